//! Icons: the built-in set shipped in the binary, and a pack's own icon set from the
//! `icons` table of its `pack.toml` (name -> an SVG file in the pack, or a built-in name).
//!
//! Icons reach a card as `data:` URIs inside `<image>` elements, so every card SVG is
//! self-contained and usvg never reads a file while rendering.

use std::collections::BTreeMap;
use std::path::Path;

use crown_engine::content::Pack;
use crown_engine::diag::Diagnostic;

use super::util::{data_uri, pack_file};

/// The built-in icons, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("coin", include_str!("../../assets/icons/coin.svg")),
    ("crown", include_str!("../../assets/icons/crown.svg")),
    ("fish", include_str!("../../assets/icons/fish.svg")),
    ("flip", include_str!("../../assets/icons/flip.svg")),
    ("grain", include_str!("../../assets/icons/grain.svg")),
    ("heart", include_str!("../../assets/icons/heart.svg")),
    ("livestock", include_str!("../../assets/icons/livestock.svg")),
    ("metal", include_str!("../../assets/icons/metal.svg")),
    ("rotate", include_str!("../../assets/icons/rotate.svg")),
    ("shield", include_str!("../../assets/icons/shield.svg")),
    ("skull", include_str!("../../assets/icons/skull.svg")),
    ("star", include_str!("../../assets/icons/star.svg")),
    ("stone", include_str!("../../assets/icons/stone.svg")),
    ("sword", include_str!("../../assets/icons/sword.svg")),
    ("wood", include_str!("../../assets/icons/wood.svg")),
];

/// Names that resolve to a built-in icon unless the pack maps them itself: common value
/// and resource names.
const ALIASES: &[(&str, &str)] = &[
    ("attack", "sword"),
    ("defence", "shield"),
    ("defense", "shield"),
    ("fame", "crown"),
    ("gold", "coin"),
    ("money", "coin"),
    ("food", "grain"),
    ("ore", "metal"),
    ("iron", "metal"),
    ("health", "heart"),
    ("life", "heart"),
    ("victory", "star"),
    ("points", "star"),
    // Card kinds, for the faint watermark of the built-in fronts.
    ("defend", "shield"),
    ("penalty", "skull"),
    ("action", "star"),
    ("hero", "crown"),
    ("castle", "crown"),
    ("mercenary", "coin"),
    ("trap", "skull"),
];

fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// A pack's icons, ready to embed.
#[derive(Debug, Clone, Default)]
pub struct IconSet {
    /// Name -> `data:image/svg+xml;base64,...`.
    uris: BTreeMap<String, String>,
    /// Hash of everything that went in, for caches.
    pub hash: u64,
}

impl IconSet {
    /// The built-in icons, the default aliases, then the pack's `icons` table. Errors
    /// (a missing file, a file that is not SVG, an unknown built-in) come back as diagnostics
    /// on `pack.toml`; the icon is then left out.
    pub fn for_pack(pack: &Pack) -> (IconSet, Vec<Diagnostic>) {
        let mut set = IconSet::default();
        let mut diags = Vec::new();
        let mut hasher = Vec::new();
        for (name, svg) in BUILTIN {
            set.uris.insert((*name).to_string(), data_uri("image/svg+xml", svg.as_bytes()));
        }
        for (alias, target) in ALIASES {
            if let Some(svg) = builtin(target) {
                set.uris.insert((*alias).to_string(), data_uri("image/svg+xml", svg.as_bytes()));
            }
        }
        let manifest_file = Path::new("content").join(pack.id()).join("pack.toml");
        for (name, target) in &pack.manifest.icons {
            hasher.extend_from_slice(name.as_bytes());
            hasher.extend_from_slice(target.as_bytes());
            if !target.ends_with(".svg") {
                match builtin(target) {
                    Some(svg) => {
                        set.uris.insert(name.clone(), data_uri("image/svg+xml", svg.as_bytes()));
                    }
                    None => diags.push(
                        Diagnostic::error(
                            "unknown-icon",
                            format!("icon `{name}` names `{target}`, which is neither an SVG file nor a built-in icon"),
                        )
                        .in_file(&manifest_file)
                        .hint(format!("built-in icons: {}", builtin_names().join(", "))),
                    ),
                }
                continue;
            }
            match pack_file(pack, target) {
                Ok((shown, bytes)) => {
                    if !looks_like_svg(&bytes) {
                        diags.push(
                            Diagnostic::error(
                                "bad-icon",
                                format!("icon `{name}`: `{}` is not an SVG file", shown.display()),
                            )
                            .in_file(&manifest_file),
                        );
                        continue;
                    }
                    hasher.extend_from_slice(&bytes);
                    set.uris.insert(name.clone(), data_uri("image/svg+xml", &bytes));
                }
                Err(msg) => diags.push(
                    Diagnostic::error("missing-icon", format!("icon `{name}`: {msg}"))
                        .in_file(&manifest_file)
                        .hint("icon files are relative to the pack folder, e.g. `icons/sword.svg`"),
                ),
            }
        }
        set.hash = crown_engine::content::hash_bytes(&hasher);
        (set, diags)
    }

    /// The data URI of an icon, if the set has it.
    pub fn uri(&self, name: &str) -> Option<&str> {
        self.uris.get(name).map(String::as_str)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.uris.keys().map(String::as_str)
    }
}

/// Names of the built-in icons.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

fn looks_like_svg(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).to_lowercase();
    head.contains("<svg")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_icons_are_valid_svg() {
        let opts = resvg::usvg::Options::default();
        for (name, svg) in BUILTIN {
            let tree = resvg::usvg::Tree::from_str(svg, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(tree.size().width(), 24.0, "{name}");
        }
    }

    #[test]
    fn aliases_point_at_builtins() {
        for (alias, target) in ALIASES {
            assert!(builtin(target).is_some(), "{alias} -> {target}");
        }
    }
}
