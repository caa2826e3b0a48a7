//! JSON Schemas of every definition file, generated from the content model, so editors
//! (Taplo, Even Better TOML) can complete and check pack files as they are typed.

use schemars::{schema_for, Schema};

use super::model::{BoardFile, CardFile, LeaderFile, NobleFile, PackManifest, PlaqueFile, Scenario};

/// `(file name, schema)` for every definition file kind, in a fixed order.
pub fn all() -> Vec<(&'static str, Schema)> {
    vec![
        ("pack.schema.json", schema_for!(PackManifest)),
        ("cards.schema.json", schema_for!(CardFile)),
        ("plaques.schema.json", schema_for!(PlaqueFile)),
        ("nobles.schema.json", schema_for!(NobleFile)),
        ("leaders.schema.json", schema_for!(LeaderFile)),
        ("scenario.schema.json", schema_for!(Scenario)),
        ("board.schema.json", schema_for!(BoardFile)),
    ]
}

/// The schema file that describes a content file, by its path inside the pack folder.
pub fn schema_for_file(rel: &str) -> Option<&'static str> {
    let rel = rel.replace('\\', "/");
    Some(match rel.as_str() {
        "pack.toml" => "pack.schema.json",
        "cards.toml" => "cards.schema.json",
        "plaques.toml" => "plaques.schema.json",
        "nobles.toml" => "nobles.schema.json",
        "leaders.toml" => "leaders.schema.json",
        "board.toml" => "board.schema.json",
        r if r.starts_with("cards/") => "cards.schema.json",
        r if r.starts_with("scenarios/") => "scenario.schema.json",
        _ => return None,
    })
}

/// Pretty JSON text of a schema, ending with a newline.
pub fn to_json(schema: &Schema) -> String {
    let mut s = serde_json::to_string_pretty(schema).unwrap_or_default();
    s.push('\n');
    s
}
