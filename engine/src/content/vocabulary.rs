//! What a pack declares its definitions carry (`[vocabulary.<kind>]` in `pack.toml`: value
//! ranges, attribute texts, keywords, cost resources, and the fields of their effects), and
//! the effects themselves: the structured entries a face lists in `effects`, each a table
//! of fields whose names, words, numbers and shape the vocabulary declares, read by scripts
//! as arrays of maps (`effects(c)`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[vocabulary.<kind>]`: the keys definitions of one kind may carry on any of their faces
/// (the definition, its stages, its back). A field left out is not checked.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    /// Value keys and the range each may take: `attack = [0, 9]` (inclusive), or `[]` for
    /// any whole number; `attack = { min = 0, max = 9, required = true }` also makes every
    /// definition of the kind carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, ValueRange>>,
    /// Attribute keys and the texts each may take: `start = ["hand", "kingdom"]`, or `[]`
    /// for any text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attrs: Option<BTreeMap<String, Vec<String>>>,
    /// Keywords.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keywords: Option<Vec<String>>,
    /// Resources a `cost` (or an upgrade's cost) may name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<Vec<String>>,
    /// Terrains a tile's `cells` may show (`terrain = "forest"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terrains: Option<Vec<String>>,
    /// The fields of each entry of a face's `effects`, by name: what each holds (`type`),
    /// the words or numbers it may take, whether every entry carries it, and for a list
    /// of entries (`type = "entries"`) their own `fields`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<BTreeMap<String, FieldSpec>>,
}

/// One value key of a vocabulary: its range (`[min, max]`, or empty for any whole
/// number) and whether every definition of the kind must carry it. It reads as the range
/// it holds (`r.len()`, `r[0]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueRange {
    pub range: Vec<i64>,
    pub required: bool,
}

impl std::ops::Deref for ValueRange {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.range
    }
}

/// `{ min = 0, max = 9, required = true }`: a value key written as a table.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ValueSpec {
    /// The smallest value allowed (give `max` too; leave both out for any whole number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    /// The largest value allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    /// Every definition of the kind must carry the value, on every face that can be up
    /// (each stage of a card with stages; else the definition, and its back if it has
    /// one), so that `value(c, key)` never fails on it: a definition without it is an
    /// error at load.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

/// A value key of `[vocabulary.<kind>]`: `[min, max]` (inclusive), `[]` for any whole
/// number, or `{ min = 0, max = 9, required = true }`.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum ValueRangeForm {
    Range(#[schemars(length(max = 2))] Vec<i64>),
    Spec(ValueSpec),
}

impl JsonSchema for ValueRange {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ValueRange".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ValueRangeForm::json_schema(g)
    }
}

impl Serialize for ValueRange {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !self.required {
            return ValueRangeForm::Range(self.range.clone()).serialize(s);
        }
        let (min, max) = match self.range[..] {
            [a, b] => (Some(a), Some(b)),
            _ => (None, None),
        };
        ValueRangeForm::Spec(ValueSpec { min, max, required: true }).serialize(s)
    }
}

/// By hand: the array form, or the table form with its own errors (an unknown key, `min`
/// without `max`).
impl<'de> Deserialize<'de> for ValueRange {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = ValueRange;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a range `[min, max]`, `[]`, or a table `{ min = 0, max = 9, required = true }`")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ValueRange, A::Error> {
                let mut range = Vec::new();
                while let Some(x) = seq.next_element::<i64>()? {
                    range.push(x);
                }
                Ok(ValueRange { range, required: false })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<ValueRange, A::Error> {
                let spec = ValueSpec::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                let range = match (spec.min, spec.max) {
                    (Some(a), Some(b)) => vec![a, b],
                    (None, None) => Vec::new(),
                    _ => {
                        return Err(serde::de::Error::custom(
                            "give both `min` and `max`, or neither (any whole number)",
                        ))
                    }
                };
                Ok(ValueRange { range, required: spec.required })
            }
        }
        d.deserialize_any(V)
    }
}

/// One field of an entry of `effects` as the vocabulary declares it:
/// `kind = { type = "word", words = ["passive", "activated"], required = true }`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// What the field holds (default `word`).
    #[serde(rename = "type", default)]
    pub ty: FieldType,
    /// The words a `word` or `words` field may hold, or the keys of a `counts` table;
    /// left out, any text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<String>,
    /// `[min, max]` (inclusive) of a `number`, of each of `numbers`, of each count of
    /// `counts`; left out, any whole number.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 2))]
    pub range: Vec<i64>,
    /// Every entry must carry the field.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// The fields of each entry of an `entries` list, declared the same way.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, FieldSpec>,
}

/// What a field of an entry holds.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    /// One word: `kind = "activated"`.
    #[default]
    Word,
    /// A list of words: `res = ["wood", "stone"]`.
    Words,
    /// A whole number: `n = 3`.
    Number,
    /// A list of whole numbers: `cards = [41, 42]`.
    Numbers,
    /// `true` or `false`: `once = true`.
    Flag,
    /// A table of whole numbers by word: `pay = { stone = 1 }`.
    Counts,
    /// A list of entries with fields of their own: `actions = [{ act = "gain" }]`.
    Entries,
    /// The position of one of the definition's own stages (`to = "front-bottom"`), or
    /// `front` / `back` for a definition without stages.
    Stage,
}

impl FieldType {
    /// What the field holds, for messages: "a word", "a list of whole numbers".
    pub fn what(self) -> &'static str {
        match self {
            FieldType::Word => "a word",
            FieldType::Words => "a list of words",
            FieldType::Number => "a whole number",
            FieldType::Numbers => "a list of whole numbers",
            FieldType::Flag => "true or false",
            FieldType::Counts => "a table of whole numbers (`{ stone = 1 }`)",
            FieldType::Entries => "a list of tables (`[{ ... }, { ... }]`)",
            FieldType::Stage => "a stage of the card",
        }
    }
}

impl FieldSpec {
    /// What an expansion's declaration of the same field adds: more words and fields, a
    /// range, `required`; a field of another type replaces this one.
    pub fn extend(&mut self, more: FieldSpec) {
        if more.ty != self.ty {
            *self = more;
            return;
        }
        for w in more.words {
            if !self.words.contains(&w) {
                self.words.push(w);
            }
        }
        if !more.range.is_empty() {
            self.range = more.range;
        }
        self.required |= more.required;
        extend_fields(&mut self.fields, more.fields);
    }
}

/// Fields declared again by an expansion, added to those of the pack it extends.
pub fn extend_fields(into: &mut BTreeMap<String, FieldSpec>, more: BTreeMap<String, FieldSpec>) {
    for (name, spec) in more {
        match into.get_mut(&name) {
            Some(have) => have.extend(spec),
            None => {
                into.insert(name, spec);
            }
        }
    }
}

/// One entry of a face's `effects` (or of a list of entries inside one): its fields by
/// name, as written.
pub type Entry = BTreeMap<String, Field>;

/// What one field of an entry holds, as written; the vocabulary says what it must be.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Field {
    Flag(bool),
    Number(i64),
    Word(String),
    List(Vec<Field>),
    Table(Entry),
}

impl Field {
    /// What was written, for messages: "a word", "a list", "a table".
    pub fn what(&self) -> &'static str {
        match self {
            Field::Flag(_) => "true or false",
            Field::Number(_) => "a whole number",
            Field::Word(_) => "a word",
            Field::List(_) => "a list",
            Field::Table(_) => "a table",
        }
    }
}

/// What one field of an effect holds: a word, a whole number, true or false, a list or a
/// table (the pack's `[vocabulary.<kind>.effects]` says which).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum FieldForm {
    Flag(bool),
    Number(i64),
    Word(String),
    List(Vec<Field>),
    Table(BTreeMap<String, Field>),
}

impl JsonSchema for Field {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Field".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        FieldForm::json_schema(g)
    }
}

/// By hand, for an error that says what a field may hold (an untagged enum's error names
/// only the enum).
impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Field;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field: a word, a whole number, true or false, a list or a table")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Field, E> {
                Ok(Field::Flag(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Field, E> {
                Ok(Field::Number(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Field, E> {
                i64::try_from(v).map(Field::Number).map_err(|_| E::custom(format!("{v} is too large for a field")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(Field::Word(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
                let mut items = Vec::new();
                while let Some(x) = seq.next_element::<Field>()? {
                    items.push(x);
                }
                Ok(Field::List(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
                let mut entry = Entry::new();
                while let Some((k, v)) = map.next_entry::<String, Field>()? {
                    entry.insert(k, v);
                }
                Ok(Field::Table(entry))
            }
        }
        d.deserialize_any(V)
    }
}

/// Entries as scripts read them: an array of maps, each field as a Rhai value (a word as
/// text, a list as an array, a table as a map), and each field `fields` declares but the
/// entry leaves out read as empty: `false`, `0`, `""`, `[]` or `#{}`.
pub fn entries_value(entries: &[Entry], fields: Option<&BTreeMap<String, FieldSpec>>) -> rhai::Dynamic {
    rhai::Dynamic::from_array(entries.iter().map(|e| entry_value(e, fields)).collect())
}

fn entry_value(entry: &Entry, fields: Option<&BTreeMap<String, FieldSpec>>) -> rhai::Dynamic {
    let mut m = rhai::Map::new();
    for (k, v) in entry {
        let nested = fields.and_then(|f| f.get(k)).map(|s| &s.fields);
        m.insert(k.as_str().into(), field_value(v, nested));
    }
    for (k, spec) in fields.into_iter().flatten() {
        if entry.contains_key(k) {
            continue;
        }
        let empty = match spec.ty {
            FieldType::Flag => rhai::Dynamic::FALSE,
            FieldType::Number => rhai::Dynamic::from_int(0),
            FieldType::Word | FieldType::Stage => rhai::Dynamic::from(rhai::ImmutableString::new()),
            FieldType::Words | FieldType::Numbers | FieldType::Entries => rhai::Dynamic::from_array(rhai::Array::new()),
            FieldType::Counts => rhai::Dynamic::from_map(rhai::Map::new()),
        };
        m.insert(k.as_str().into(), empty);
    }
    rhai::Dynamic::from_map(m)
}

fn field_value(v: &Field, fields: Option<&BTreeMap<String, FieldSpec>>) -> rhai::Dynamic {
    match v {
        Field::Flag(b) => rhai::Dynamic::from_bool(*b),
        Field::Number(n) => rhai::Dynamic::from_int(*n),
        Field::Word(w) => rhai::Dynamic::from(w.clone()),
        Field::List(items) => rhai::Dynamic::from_array(
            items
                .iter()
                .map(|x| match x {
                    Field::Table(e) => entry_value(e, fields),
                    other => field_value(other, None),
                })
                .collect(),
        ),
        Field::Table(e) => {
            rhai::Dynamic::from_map(e.iter().map(|(k, x)| (k.as_str().into(), field_value(x, None))).collect())
        }
    }
}
