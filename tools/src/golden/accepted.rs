//! What a pack's golden games were last accepted against, so that `crown test` can name
//! the definitions edited since (`pikemen: values.attack 1 -> 2`), whichever game shows it.
//!
//! `tests/golden/<pack>/accepted.json` holds every definition's fields, flattened to
//! `key.path -> JSON value`, with a fingerprint of its script; the pack's settings
//! (pack.toml) and the scenarios the same way; the rules and other scripts and the board by
//! fingerprint. `crown test` rewrites it whenever every
//! golden game of the pack replays unchanged or was just accepted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crown_engine::content::Pack;
use crown_engine::load::Project;

/// Entry (definition id, `scenario:ID`, `script:PATH`, `board`) -> field -> value.
pub type State = BTreeMap<String, BTreeMap<String, String>>;

/// The entry of the pack's settings (pack.toml).
const SETTINGS: &str = "pack.toml";

/// Where a pack's accepted state is kept.
pub fn path(project: &Project, pack: &str) -> PathBuf {
    project.golden_dir(pack).join("accepted.json")
}

/// The pack as it is now.
pub fn state_of(pack: &Pack) -> State {
    let mut st = State::new();
    for d in &pack.defs {
        let mut fields = BTreeMap::new();
        flatten("", &serde_json::to_value(&d.def).unwrap_or_default(), &mut fields);
        fields.remove("id");
        if let Some(i) = d.script {
            fields.insert("script text".into(), format!("{:016x}", pack.scripts[i].hash));
        }
        st.insert(d.def.id.clone(), fields);
    }
    for e in &pack.scenarios {
        let mut fields = BTreeMap::new();
        flatten("", &serde_json::to_value(&e.scenario).unwrap_or_default(), &mut fields);
        st.insert(format!("scenario:{}", e.scenario.id), fields);
    }
    // The pack's own settings (`[options]`, zones, counters...): an edited setting is
    // named as one, not blamed on the card played where games first differ.
    let mut fields = BTreeMap::new();
    flatten("", &serde_json::to_value(&pack.manifest).unwrap_or_default(), &mut fields);
    st.insert(SETTINGS.into(), fields);
    if let Some((b, _)) = &pack.board {
        let text = serde_json::to_string(b).unwrap_or_default();
        st.insert("board".into(), BTreeMap::from([("text".into(), fingerprint(&text))]));
    }
    let attached: std::collections::BTreeSet<usize> = pack.defs.iter().filter_map(|d| d.script).collect();
    for (i, s) in pack.scripts.iter().enumerate() {
        if !attached.contains(&i) {
            st.insert(
                format!("script:{}/{}", s.pack, s.rel),
                BTreeMap::from([("text".into(), format!("{:016x}", s.hash))]),
            );
        }
    }
    st
}

fn fingerprint(text: &str) -> String {
    format!("{:016x}", crown_engine::content::hash_bytes(text.as_bytes()))
}

/// Objects become dotted keys, lists of objects indexed keys; everything else is kept as
/// compact JSON. Empty and null fields are left out.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, x, out);
            }
        }
        Value::Null => {}
        Value::Array(a) if a.is_empty() => {}
        // Lists of tables (stages, faces) by position: `stages[0].values.coin`.
        Value::Array(a) if a.iter().all(Value::is_object) => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        Value::String(s) if s.is_empty() => {}
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

/// The accepted state on disk, if there is one that reads.
pub fn read(file: &Path) -> Option<State> {
    serde_json::from_str(&crown_engine::fsread::read_text_checked(file, crown_engine::fsread::Kind::Index).ok()?).ok()
}

/// Write the state if it differs from what is on disk; whether it wrote. The file stays
/// inside the project `root` (a link leading out of it is refused).
pub fn write(root: &Path, file: &Path, st: &State) -> std::io::Result<bool> {
    if read(file).as_ref() == Some(st) {
        return Ok(false);
    }
    let text = serde_json::to_string_pretty(st).map_err(std::io::Error::other)? + "\n";
    crate::out::write_atomic_in(root, file, text.as_bytes())?;
    Ok(true)
}

/// What changed from `old` to `new`, one line per entry: `pikemen: values.attack 1 -> 2`.
/// Long values are shortened; at most four fields are named per entry.
pub fn changes(old: &State, new: &State) -> Vec<(String, String)> {
    let short = |s: &str| {
        if s.chars().count() > 40 {
            format!("{}...", s.chars().take(37).collect::<String>())
        } else {
            s.to_string()
        }
    };
    let mut out = Vec::new();
    for (id, fields) in new {
        match old.get(id) {
            // A state accepted before settings were kept says nothing of them.
            None if id == SETTINGS => {}
            None => out.push((id.clone(), format!("{id}: added"))),
            Some(before) if before != fields => {
                let mut parts = Vec::new();
                let keys: std::collections::BTreeSet<&String> = before.keys().chain(fields.keys()).collect();
                for k in keys {
                    let (a, b) = (before.get(k), fields.get(k));
                    if a == b {
                        continue;
                    }
                    parts.push(match (a, b) {
                        (Some(_), Some(_)) if k == "text" || k.ends_with(".text") || k == "script text" => {
                            format!("{k} edited")
                        }
                        (Some(a), Some(b)) => format!("{k} {} -> {}", short(a), short(b)),
                        (None, Some(b)) => format!("{k} set to {}", short(b)),
                        (Some(_), None) => format!("{k} removed"),
                        (None, None) => continue,
                    });
                }
                let more = parts.len().saturating_sub(4);
                parts.truncate(4);
                if more > 0 {
                    parts.push(format!("and {more} more"));
                }
                out.push((id.clone(), format!("{id}: {}", parts.join(", "))));
            }
            Some(_) => {}
        }
    }
    for id in old.keys().filter(|id| !new.contains_key(*id)) {
        out.push((id.clone(), format!("{id}: removed")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(entries: &[(&str, &[(&str, &str)])]) -> State {
        entries
            .iter()
            .map(|(id, f)| (id.to_string(), f.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()))
            .collect()
    }

    #[test]
    fn names_each_changed_field_added_and_removed_entries() {
        let old = st(&[("pikemen", &[("values.attack", "1"), ("name", "\"Pikemen\"")]), ("gone", &[])]);
        let new = st(&[
            ("pikemen", &[("values.attack", "2"), ("name", "\"Pikemen\""), ("script text", "ab")]),
            ("fresh", &[]),
        ]);
        let c: Vec<String> = changes(&old, &new).into_iter().map(|(_, l)| l).collect();
        assert_eq!(c, vec!["fresh: added", "pikemen: script text set to ab, values.attack 1 -> 2", "gone: removed"]);
        assert!(changes(&new, &new).is_empty());
        // Settings: named by their key; a state kept before them names nothing.
        let before = st(&[("pack.toml", &[("options.hand_size", "5")])]);
        let after = st(&[("pack.toml", &[("options.hand_size", "6")])]);
        let c: Vec<String> = changes(&before, &after).into_iter().map(|(_, l)| l).collect();
        assert_eq!(c, vec!["pack.toml: options.hand_size 5 -> 6"]);
        assert!(changes(&st(&[]), &after).is_empty());
    }

    #[test]
    fn flattens_nested_fields_and_drops_empty_ones() {
        let mut out = BTreeMap::new();
        flatten(
            "",
            &serde_json::json!({"a": {"b": 1, "c": []}, "d": "", "e": null, "f": [1, 2], "g": [{"h": 3}]}),
            &mut out,
        );
        let want = [("a.b", "1"), ("f", "[1,2]"), ("g[0].h", "3")];
        assert_eq!(out, want.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
    }
}
