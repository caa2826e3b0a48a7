//! JSON Schemas of every definition file, generated from the content model, so editors
//! (Taplo, Even Better TOML) can complete and check pack files as they are typed: the
//! general ones (`all`, Crown's `docs/schema/`), and one pack's (`for_pack`), where the
//! definition files also know the keys, ranges, texts and required values of the pack's
//! declared vocabulary, and the fields of its effects.

use schemars::{schema_for, Schema};
use serde_json::{json, Map, Value};

use super::model::{BoardFile, CardFile, LeaderFile, NobleFile, PackManifest, PlaqueFile, Scenario, Vocabulary};
use super::vocabulary::{FieldSpec, FieldType};

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

/// The same files for one pack: each definition file's schema (cards, plaques, nobles,
/// leaders) narrowed to the pack's `[vocabulary.<kind>]` (its manifest as loaded, with
/// what the packs it extends declare), the others as in `all`.
pub fn for_pack(manifest: &PackManifest) -> Vec<(&'static str, Schema)> {
    all()
        .into_iter()
        .map(|(name, schema)| {
            let kind = match name {
                "cards.schema.json" => "card",
                "plaques.schema.json" => "plaque",
                "nobles.schema.json" => "noble",
                "leaders.schema.json" => "leader",
                _ => return (name, schema),
            };
            let Some(v) = manifest.vocabulary.get(kind) else { return (name, schema) };
            let mut value = schema.as_value().clone();
            narrow(&mut value, v, kind, &manifest.name);
            (name, Schema::try_from(value).unwrap_or(schema))
        })
        .collect()
}

/// Narrow the `Definition`, `Stage`, `Face` and `Upgrade` of one definition file's schema
/// to a vocabulary.
fn narrow(schema: &mut Value, v: &Vocabulary, kind: &str, pack: &str) {
    let values = v.values.as_ref().map(|m| {
        let props: Map<String, Value> = m
            .iter()
            .map(|(k, r)| {
                let mut p = json!({ "type": "integer" });
                if let [min, max] = r.range[..] {
                    p["minimum"] = json!(min);
                    p["maximum"] = json!(max);
                }
                (k.clone(), p)
            })
            .collect();
        keyed(props, &format!("the values {pack}'s {kind}s carry"))
    });
    let attrs = v.attrs.as_ref().map(|m| {
        let props: Map<String, Value> = m
            .iter()
            .map(|(k, allowed)| {
                let p = if allowed.is_empty() { json!({ "type": "string" }) } else { json!({ "enum": allowed }) };
                (k.clone(), p)
            })
            .collect();
        keyed(props, &format!("the attributes {pack}'s {kind}s carry"))
    });
    let keywords = v.keywords.as_ref().map(
        |k| json!({ "description": format!("keywords of {pack}'s {kind}s"), "type": "array", "items": { "enum": k } }),
    );
    let cost = v.costs.as_ref().map(|c| {
        let props: Map<String, Value> =
            c.iter().map(|k| (k.clone(), json!({ "type": "integer", "minimum": 0 }))).collect();
        keyed(props, &format!("the resources a cost of {pack}'s {kind}s names"))
    });
    let effects = v.effects.as_ref().map(|f| {
        let mut list = json!({ "type": "array", "items": entry_schema(f) });
        list["description"] = json!(format!("the effects of {pack}'s {kind}s"));
        list
    });
    let fields: [(&str, &[&str], &Option<Value>); 5] = [
        ("values", &["Definition", "Stage", "Face"], &values),
        ("attrs", &["Definition", "Stage", "Face"], &attrs),
        ("keywords", &["Definition", "Stage"], &keywords),
        ("cost", &["Definition", "Face", "Upgrade"], &cost),
        ("effects", &["Definition", "Stage", "Face"], &effects),
    ];
    for (field, types, narrowed) in fields {
        let Some(narrowed) = narrowed else { continue };
        for t in types {
            if let Some(p) = schema.pointer_mut(&format!("/$defs/{t}/properties/{field}")) {
                *p = narrowed.clone();
            }
        }
    }
    // Required values: on every stage of a card with stages, else on the definition and
    // on its back if it has one (what the loader checks).
    let required: Vec<&String> = v.values.iter().flatten().filter(|(_, r)| r.required).map(|(k, _)| k).collect();
    if let (false, Some(def)) = (required.is_empty(), schema.pointer_mut("/$defs/Definition")) {
        let has = json!({ "required": ["values"], "properties": { "values": { "required": required } } });
        let mut on_def = has.clone();
        on_def["properties"]["back"] = has.clone();
        def["if"] = json!({ "required": ["stages"] });
        def["then"] = json!({ "properties": { "stages": { "items": has } } });
        def["else"] = on_def;
    }
}

/// One entry of `effects` (or of a list of entries in one) as its declared fields allow.
fn entry_schema(fields: &std::collections::BTreeMap<String, FieldSpec>) -> Value {
    let ranged = |spec: &FieldSpec| {
        let mut p = json!({ "type": "integer" });
        if let [min, max] = spec.range[..] {
            p["minimum"] = json!(min);
            p["maximum"] = json!(max);
        }
        p
    };
    let word = |spec: &FieldSpec| {
        if spec.words.is_empty() {
            json!({ "type": "string" })
        } else {
            json!({ "enum": spec.words })
        }
    };
    let props: Map<String, Value> = fields
        .iter()
        .map(|(name, spec)| {
            let p = match spec.ty {
                FieldType::Word => word(spec),
                FieldType::Words => json!({ "type": "array", "items": word(spec) }),
                FieldType::Number => ranged(spec),
                FieldType::Numbers => json!({ "type": "array", "items": ranged(spec) }),
                FieldType::Flag => json!({ "type": "boolean" }),
                FieldType::Counts if spec.words.is_empty() => {
                    json!({ "type": "object", "additionalProperties": ranged(spec) })
                }
                FieldType::Counts => {
                    let keys: Map<String, Value> = spec.words.iter().map(|w| (w.clone(), ranged(spec))).collect();
                    json!({ "type": "object", "properties": keys, "additionalProperties": false })
                }
                FieldType::Entries => json!({ "type": "array", "items": entry_schema(&spec.fields) }),
                // The stages of the definition at hand, which a schema of the file cannot name.
                FieldType::Stage => json!({ "type": "string" }),
            };
            (name.clone(), p)
        })
        .collect();
    let required: Vec<&String> = fields.iter().filter(|(_, s)| s.required).map(|(k, _)| k).collect();
    json!({ "type": "object", "properties": props, "required": required, "additionalProperties": false })
}

/// An object of these keys only.
fn keyed(props: Map<String, Value>, description: &str) -> Value {
    json!({ "description": description, "type": "object", "properties": props, "additionalProperties": false })
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
