//! Icons: the built-in set shipped in the binary, and a pack's own icon set from the
//! `icons` table of its `pack.toml` (name -> an SVG file in the pack, or a built-in name).
//!
//! On a card an icon is a `<use href="#icon-NAME">` of a `<symbol>` that [`IconSet::attach_symbols`]
//! adds to the card's SVG, so every card SVG is self-contained, usvg never reads a file
//! while rendering, and resvg draws icons as plain shapes (a nested SVG image would cost it a
//! full-card layer per icon). HTML references get the same icons as `data:` URIs.

use std::collections::BTreeMap;
use std::path::Path;

use crown_engine::content::Pack;
use crown_engine::diag::Diagnostic;

use super::util::{data_uri, pack_file_in};

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

/// Diagnostics about an entry of `[icons]`, placed at it.
trait AtEntry {
    fn at_entry(self, pack: &Pack, manifest_file: &Path, name: &str) -> Self;
}

impl AtEntry for Diagnostic {
    /// At the value of `name = "..."` in the `[icons]` table of `manifest_file` (a
    /// `pack.toml` among the pack's sources), else in that file without a line.
    fn at_entry(self, pack: &Pack, manifest_file: &Path, name: &str) -> Diagnostic {
        use toml::de::{DeTable, DeValue};
        let Some(src) = pack.sources.get(manifest_file) else {
            return self.in_file(manifest_file);
        };
        let span = DeTable::parse(&src.text).ok().and_then(|root| match root.get_ref().get("icons")?.get_ref() {
            DeValue::Table(t) => t.iter().find(|(k, _)| k.get_ref() == name).map(|(_, v)| v.span()),
            _ => None,
        });
        match span {
            Some(span) => self.at(src, span),
            None => self.in_file(manifest_file),
        }
    }
}

fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

#[derive(Debug, Clone)]
struct Icon {
    /// `data:image/svg+xml;base64,...`, for HTML.
    uri: String,
    /// `#icon-...`, for `<use>` in SVG.
    href: String,
    /// The `<symbol>` that `href` points at.
    symbol: String,
}

/// A pack's icons, ready to embed.
#[derive(Debug, Clone, Default)]
pub struct IconSet {
    icons: BTreeMap<String, Icon>,
    /// Hash of everything that went in, for caches.
    pub hash: u64,
}

/// The id of an icon's symbol: `icon-` and the name, other characters as `_`.
fn symbol_id(name: &str) -> String {
    let clean: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    format!("icon-{clean}")
}

/// Turn an SVG document into a `<symbol>` with the same viewBox, its ids prefixed so
/// that icons never clash with each other or with the card.
pub fn make_symbol(id: &str, svg: &str) -> Result<String, String> {
    let doc = resvg::usvg::roxmltree::Document::parse(svg).map_err(|e| format!("not valid SVG: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" {
        return Err("the root element is not <svg>".into());
    }
    let num = |n: &str| root.attribute(n).and_then(|v| v.trim().trim_end_matches("px").parse::<f64>().ok());
    let view_box = match root.attribute("viewBox") {
        Some(v) => v.to_string(),
        None => match (num("width"), num("height")) {
            (Some(w), Some(h)) => format!("0 0 {w} {h}"),
            _ => return Err("the <svg> has neither a viewBox nor a width and height".into()),
        },
    };
    let inner = match (root.first_child(), root.last_child()) {
        (Some(a), Some(b)) => &svg[a.range().start..b.range().end],
        _ => "",
    };
    let prefix = format!("{id}-");
    let inner = inner
        .replace("xlink:href=", "href=")
        .replace("id=\"", &format!("id=\"{prefix}"))
        .replace("url(#", &format!("url(#{prefix}"))
        .replace("href=\"#", &format!("href=\"#{prefix}"));
    let view_box = view_box.replace(['"', '<', '>', '&'], "");
    Ok(format!("<symbol id=\"{id}\" viewBox=\"{view_box}\">{inner}</symbol>"))
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
            set.add(name, svg.as_bytes()).expect("built-in icons are valid");
        }
        for (alias, target) in ALIASES {
            if let Some(svg) = builtin(target) {
                set.add(alias, svg.as_bytes()).expect("built-in icons are valid");
            }
        }
        for (name, target) in &pack.manifest.icons {
            // An icon an expansion inherits lives in the folder of the pack that names it.
            let owner = pack.icon_packs.get(name).map_or(pack.id(), String::as_str);
            let manifest_file = Path::new("content").join(owner).join("pack.toml");
            hasher.extend_from_slice(name.as_bytes());
            hasher.extend_from_slice(target.as_bytes());
            if !target.ends_with(".svg") {
                match builtin(target) {
                    Some(svg) => {
                        set.add(name, svg.as_bytes()).expect("built-in icons are valid");
                    }
                    None => diags.push(
                        Diagnostic::error(
                            "unknown-icon",
                            format!("icon `{name}` names `{target}`, which is neither an SVG file nor a built-in icon"),
                        )
                        .at_entry(pack, &manifest_file, name)
                        .hint(format!("built-in icons: {}", builtin_names().join(", "))),
                    ),
                }
                continue;
            }
            match pack_file_in(pack, owner, target) {
                Ok((shown, bytes)) => {
                    if !looks_like_svg(&bytes) {
                        diags.push(
                            Diagnostic::error(
                                "bad-icon",
                                format!("icon `{name}`: `{}` is not an SVG file", shown.display()),
                            )
                            .at_entry(pack, &manifest_file, name),
                        );
                        continue;
                    }
                    hasher.extend_from_slice(&bytes);
                    if let Err(e) = set.add(name, &bytes) {
                        diags.push(
                            Diagnostic::error("bad-icon", format!("icon `{name}`: `{}`: {e}", shown.display()))
                                .at_entry(pack, &manifest_file, name),
                        );
                    }
                }
                Err(msg) => diags.push(
                    Diagnostic::error("missing-icon", format!("icon `{name}`: {msg}"))
                        .at_entry(pack, &manifest_file, name)
                        .hint("icon files are relative to the pack folder, e.g. `icons/sword.svg`"),
                ),
            }
        }
        set.hash = crown_engine::content::hash_bytes(&hasher);
        (set, diags)
    }

    fn add(&mut self, name: &str, svg: &[u8]) -> Result<(), String> {
        let text = std::str::from_utf8(svg).map_err(|_| "not UTF-8 text".to_string())?;
        let id = symbol_id(name);
        let symbol = make_symbol(&id, text)?;
        self.icons
            .insert(name.to_string(), Icon { uri: data_uri("image/svg+xml", svg), href: format!("#{id}"), symbol });
        Ok(())
    }

    pub fn has(&self, name: &str) -> bool {
        self.icons.contains_key(name)
    }

    /// The data URI of an icon (for HTML), if the set has it.
    pub fn uri(&self, name: &str) -> Option<&str> {
        self.icons.get(name).map(|i| i.uri.as_str())
    }

    /// `#icon-NAME`, for `<use href="...">` in SVG, if the set has it.
    pub fn href(&self, name: &str) -> Option<&str> {
        self.icons.get(name).map(|i| i.href.as_str())
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.icons.keys().map(String::as_str)
    }

    /// Add the `<symbol>` of every icon an SVG document refers to (`"#icon-..."`) in a
    /// `<defs>` just before its closing `</svg>`.
    pub fn attach_symbols(&self, svg: &str) -> String {
        let mut wanted: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(i) = rest.find("\"#icon-") {
            let after = &rest[i + 2..];
            let end = after.find('"').unwrap_or(after.len());
            let id = &after[..end];
            if !wanted.contains(&id) {
                wanted.push(id);
            }
            rest = &after[end..];
        }
        if wanted.is_empty() {
            return svg.to_string();
        }
        let Some(close) = svg.rfind("</svg>") else { return svg.to_string() };
        let mut defs = String::from("<defs>");
        for id in &wanted {
            if let Some(icon) = self.icons.values().find(|i| &i.href[1..] == *id) {
                defs.push_str(&icon.symbol);
            }
        }
        defs.push_str("</defs>\n");
        let mut out = String::with_capacity(svg.len() + defs.len());
        out.push_str(&svg[..close]);
        out.push_str(&defs);
        out.push_str(&svg[close..]);
        out
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
    fn symbols_keep_the_view_box_and_prefix_ids() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="20"><defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="10" height="20"/><use xlink:href="#g"/></svg>"##;
        let s = make_symbol("icon-x", svg).unwrap();
        assert_eq!(
            s,
            r##"<symbol id="icon-x" viewBox="0 0 10 20"><defs><linearGradient id="icon-x-g"/></defs><rect fill="url(#icon-x-g)" width="10" height="20"/><use href="#icon-x-g"/></symbol>"##
        );
        assert!(make_symbol("icon-y", "<html/>").is_err());
        assert!(make_symbol("icon-y", "not xml").is_err());
    }

    #[test]
    fn used_symbols_are_attached_once() {
        let (set, _) = IconSet::for_pack(&crate::layout::tests::test_pack());
        let card = r##"<svg xmlns="http://www.w3.org/2000/svg"><use href="#icon-coin"/><use href="#icon-coin"/><use href="#icon-crown"/></svg>"##;
        let out = set.attach_symbols(card);
        assert_eq!(out.matches("<symbol id=\"icon-coin\"").count(), 1);
        assert_eq!(out.matches("<symbol ").count(), 2);
        assert!(out.ends_with("</defs>\n</svg>"));
        let tree = resvg::usvg::Tree::from_str(&out, &resvg::usvg::Options::default()).unwrap();
        assert!(tree.root().has_children());
    }

    #[test]
    fn aliases_point_at_builtins() {
        for (alias, target) in ALIASES {
            assert!(builtin(target).is_some(), "{alias} -> {target}");
        }
    }
}
