//! The data a template sees for one definition: names, values and costs with their
//! icons, stages, the other face, colours. Everything here is plain data; templates
//! escape it on output.

use std::collections::BTreeMap;

use crown_engine::content::model::{Definition, Face, Stage, StagePosition};
use crown_engine::content::{Def, DefKind, Pack};
use serde_json::{json, Value};

use super::icons::IconSet;
use super::util::label;

/// Band colours by kind when the pack does not set one.
const DEFAULT_COLORS: &[(&str, &str)] = &[
    ("attack", "#a8322d"),
    ("defend", "#2f5f8a"),
    ("defence", "#2f5f8a"),
    ("defense", "#2f5f8a"),
    ("action", "#3c7a45"),
    ("penalty", "#5d3f86"),
    ("trap", "#7a4b22"),
    ("mercenary", "#a7761b"),
    ("hero", "#b8862a"),
    ("event", "#2d6f73"),
    ("enemy", "#6e2430"),
    ("resource", "#6d7b32"),
    ("building", "#7b5b3a"),
    ("unit", "#4b5a6b"),
    ("plaque", "#6b4f2a"),
    ("noble", "#6d2150"),
    ("leader", "#1f4d5c"),
];

/// A palette for kinds nobody named, picked by a stable hash of the kind.
const PALETTE: &[&str] = &["#8a3b12", "#2e6b5e", "#5b4a8a", "#7a6a1f", "#3b5f8f", "#8f3a5a", "#4f6b2a", "#6a4a3a"];

/// An RGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub fn parse(s: &str) -> Option<Rgb> {
        let c: svgtypes::Color = s.trim().parse().ok()?;
        Some(Rgb(c.red, c.green, c.blue))
    }

    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// Mix with another colour: `t` = 0 keeps self, 1 gives `other`.
    pub fn mix(self, other: Rgb, t: f32) -> Rgb {
        let m = |a: u8, b: u8| (f32::from(a) + (f32::from(b) - f32::from(a)) * t).round().clamp(0.0, 255.0) as u8;
        Rgb(m(self.0, other.0), m(self.1, other.1), m(self.2, other.2))
    }
}

/// The colours of one kind.
#[derive(Debug, Clone)]
pub struct Colors {
    pub band: Rgb,
}

impl Colors {
    /// Text colour that reads on the band: dark on light bands, white on dark ones.
    pub fn ink(&self) -> String {
        let Rgb(r, g, b) = self.band;
        let lum = 0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b);
        if lum > 150.0 {
            "#26221c".into()
        } else {
            "#ffffff".into()
        }
    }

    pub fn json(&self) -> (String, String, String) {
        (self.band.hex(), self.band.mix(Rgb(0, 0, 0), 0.38).hex(), self.band.mix(Rgb(255, 255, 255), 0.72).hex())
    }
}

/// The band colour of `kind`: the pack's `colors`, else a default.
pub fn kind_color(pack: &Pack, kind: &str) -> Rgb {
    if let Some(c) = pack.manifest.colors.get(kind).and_then(|s| Rgb::parse(s)) {
        return c;
    }
    if let Some((_, c)) = DEFAULT_COLORS.iter().find(|(k, _)| *k == kind) {
        return Rgb::parse(c).unwrap_or(Rgb(80, 80, 80));
    }
    let h = crown_engine::content::hash_bytes(kind.as_bytes());
    Rgb::parse(PALETTE[(h % PALETTE.len() as u64) as usize]).unwrap_or(Rgb(80, 80, 80))
}

/// The print kind of a definition: its `kind`, else the file it came from.
pub fn print_kind(d: &Def) -> String {
    if d.def.kind.is_empty() {
        d.kind.as_str().to_string()
    } else {
        d.def.kind.clone()
    }
}

/// A short label for a value or cost without an icon: its first three letters, or for
/// `any-<group>` the whole of it (`any food`), so two kinds of "any" never print alike.
fn short(key: &str) -> String {
    match key.strip_prefix("any-").or_else(|| key.strip_prefix("any_")) {
        Some(group) => format!("any {}", group.replace(['-', '_'], " ")),
        None => key.chars().take(3).collect(),
    }
}

/// Costs as templates see them: each also lists, under `any`, the icons of what may pay
/// it when it is `any-<group>` and the board's supplies name that group
/// (`attrs.group = "food"`); empty otherwise.
fn costs(pack: &Pack, map: &BTreeMap<String, i64>, icons: &IconSet) -> Vec<Value> {
    let mut out = numbers(map, icons, &[]);
    for c in &mut out {
        let key = c["key"].as_str().unwrap_or_default();
        let group = key.strip_prefix("any-").or_else(|| key.strip_prefix("any_"));
        let members: Vec<Value> = match (group, &pack.board) {
            (Some(g), Some((board, _))) => board
                .supply
                .iter()
                .filter(|s| s.attrs.get("group").is_some_and(|x| x == g))
                .filter_map(|s| {
                    let icon = icons.href(&s.id)?;
                    let name = if s.name.is_empty() { label(&s.id) } else { s.name.clone() };
                    Some(json!({ "key": s.id, "name": name, "icon": icon }))
                })
                .collect(),
            _ => Vec::new(),
        };
        c["any"] = Value::Array(members);
    }
    out
}

/// Values or costs as templates see them, less those the pack's `[print] hide_values`
/// leaves off the faces.
fn numbers(map: &BTreeMap<String, i64>, icons: &IconSet, hidden: &[String]) -> Vec<Value> {
    map.iter()
        .filter(|(k, _)| !hidden.contains(k))
        .map(|(k, v)| json!({ "key": k, "label": label(k), "short": short(k), "value": v, "icon": icons.href(k) }))
        .collect()
}

fn face_json(pack: &Pack, face: &Face, front: &Definition, icons: &IconSet, side_label: &str) -> Value {
    let hidden = &pack.manifest.print.hide_values;
    json!({
        "name": if face.name.is_empty() { front.name.clone() } else { face.name.clone() },
        "text": face.text,
        "values": numbers(&face.values, icons, hidden),
        "cost": costs(pack, &face.cost, icons),
        "attrs": face.attrs,
        "side_label": face.attrs.get("side").cloned().unwrap_or_else(|| side_label.to_string()),
    })
}

fn stage_json(pack: &Pack, s: &Stage, def: &Definition, icons: &IconSet) -> Value {
    let hidden = &pack.manifest.print.hide_values;
    let production: BTreeMap<String, i64> =
        s.values.iter().filter(|(k, _)| k.as_str() != "fame").map(|(k, v)| (k.clone(), *v)).collect();
    let upgrades: Vec<Value> = s
        .upgrades
        .iter()
        .map(|u| {
            let to_name = def
                .stages
                .iter()
                .find(|t| t.position == u.to)
                .map_or_else(|| u.to.as_str().to_string(), |t| t.name.clone());
            json!({
                "cost": costs(pack, &u.cost, icons),
                "to": u.to.as_str(),
                "to_name": to_name,
                "turn": if s.position.turn_to(u.to) == "flip" { "flip" } else { "rotate" },
            })
        })
        .collect();
    let checkboxes: Vec<Value> = s
        .checkboxes
        .iter()
        .map(|c| json!({ "label": c, "icon": if c.is_empty() { None } else { icons.href(c) } }))
        .collect();
    json!({
        "position": s.position.as_str(),
        "name": s.name,
        "keywords": s.keywords,
        "values": numbers(&s.values, icons, hidden),
        "production": numbers(&production, icons, hidden),
        "fame": s.values.get("fame").filter(|_| !hidden.iter().any(|h| h == "fame")),
        "text": s.text,
        "attrs": s.attrs,
        "checkboxes": checkboxes,
        "upgrades": upgrades,
    })
}

/// Everything a card template sees under `card`. `art` is the art's data URI (or None
/// with `art_missing` naming the file when it could not be read); `packs` is
/// [`chain_names`].
pub fn card_json(
    pack: &Pack,
    d: &Def,
    icons: &IconSet,
    art: Option<&str>,
    art_missing: Option<&str>,
    packs: &BTreeMap<String, Value>,
) -> Value {
    let def = &d.def;
    let hidden = &pack.manifest.print.hide_values;
    let kind = print_kind(d);
    let kind_label = label(&kind);
    let mut type_bits = vec![kind_label.clone()];
    type_bits.extend(def.keywords.iter().filter(|k| !k.eq_ignore_ascii_case(&kind)).map(|k| label(k)));
    // Nobles and leaders: their first value is the headline number, the rest are stats.
    let mut stats = numbers(&def.values, icons, hidden);
    let headline = if d.kind.is_character() {
        let pick =
            ["number", "initiative", "rank", "strength"].iter().find_map(|k| stats.iter().position(|v| v["key"] == *k));
        pick.map(|i| stats.remove(i))
    } else {
        None
    };
    let mut brings: BTreeMap<String, (String, i64)> = BTreeMap::new();
    for id in &def.cards {
        let name = pack.get(id).map_or_else(|| id.clone(), |x| x.def.name.clone());
        brings.entry(id.clone()).or_insert((name, 0)).1 += 1;
    }
    let brings_list: Vec<Value> = brings.values().map(|(n, c)| json!({ "name": n, "count": c })).collect();
    let brings_text = brings
        .values()
        .map(|(n, c)| if *c > 1 { format!("{n} ×{c}") } else { n.clone() })
        .collect::<Vec<_>>()
        .join(", ");
    let stage = |p: StagePosition| def.stages.iter().find(|s| s.position == p).map(|s| stage_json(pack, s, def, icons));
    // The pack the definition comes from (a base pack's card printed in an expansion
    // keeps its own name on its footer).
    let own = packs.get(&d.origin.pack).cloned().unwrap_or_else(
        || json!({ "id": pack.manifest.id, "name": pack.manifest.name, "version": pack.manifest.version }),
    );
    let deck_label =
        if d.kind.is_character() { Some(label(d.kind.as_str())) } else { def.decks.first().map(|s| label(s)) };
    json!({
        "id": def.id,
        "name": def.name,
        "kind": kind,
        "kind_label": kind_label,
        "def_kind": d.kind.as_str(),
        "type_line": type_bits.join(" · "),
        "keywords": def.keywords,
        "count": def.count,
        "serial": def.serial,
        "pack": own,
        "values": numbers(&def.values, icons, hidden),
        "stats": if d.kind.is_character() { stats } else { Vec::new() },
        "headline": headline,
        "cost": costs(pack, &def.cost, icons),
        "text": def.text,
        "flavor": def.flavor,
        "attrs": def.attrs,
        "decks": def.decks,
        "deck_label": deck_label,
        "brings": brings_list,
        "brings_text": brings_text,
        "art": art,
        "kind_icon": icons.href(&kind),
        "art_missing": art_missing,
        "stages": def.stages.iter().map(|s| stage_json(pack, s, def, icons)).collect::<Vec<_>>(),
        "stage_front_top": stage(StagePosition::FrontTop),
        "stage_front_bottom": stage(StagePosition::FrontBottom),
        "stage_back_top": stage(StagePosition::BackTop),
        "stage_back_bottom": stage(StagePosition::BackBottom),
        "side_label": def.attrs.get("side").cloned().unwrap_or_else(|| if d.kind == DefKind::Plaque { "Front side".into() } else { kind_label.clone() }),
        "face": def.back.as_ref().map(|f| face_json(pack, f, def, icons, "Reverse side")),
        "has_back": def.back.is_some(),
    })
}

/// `{id, name, version}` of the printed pack and of each pack it extends (read from its
/// `pack.toml` as loaded), by id.
pub fn chain_names(pack: &Pack) -> BTreeMap<String, Value> {
    let m = &pack.manifest;
    let mut out = BTreeMap::new();
    for id in &pack.chain {
        let shown = std::path::Path::new("content").join(id).join("pack.toml");
        let base = (id != &m.id)
            .then(|| pack.sources.get(&shown))
            .flatten()
            .and_then(|f| toml::from_str::<crown_engine::content::model::PackManifest>(&f.text).ok());
        let v = match base {
            Some(b) => json!({ "id": id, "name": b.name, "version": b.version }),
            None => json!({ "id": m.id, "name": m.name, "version": m.version }),
        };
        out.insert(id.clone(), v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse_and_mix() {
        assert_eq!(Rgb::parse("#a8322d"), Some(Rgb(0xa8, 0x32, 0x2d)));
        assert_eq!(Rgb::parse("crimson").map(Rgb::hex).as_deref(), Some("#dc143c"));
        assert_eq!(Rgb::parse("not a colour"), None);
        assert_eq!(Rgb(0, 0, 0).mix(Rgb(255, 255, 255), 0.5), Rgb(128, 128, 128));
    }
}
