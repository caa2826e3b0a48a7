//! Changing one definition value of a loaded pack without editing its files
//! (`crown sim --set card.pikemen.values.attack=2`): the general way to try a number.

use super::model::Scalar;
use super::{DefKind, Pack};
use crate::diag::did_you_mean;

/// One parsed `KIND.ID.FIELD[.KEY]=VALUE` override.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// `card`, `plaque`, `noble`, `leader`, `scenario` or `options` (pack.toml's settings).
    pub kind: String,
    pub id: String,
    /// `values`, `cost`, `count`, `attrs` (definitions) or `options` (scenarios, and the
    /// pack's own settings: kind `options`, `options.KEY=VALUE` on the command line).
    pub field: String,
    /// The key inside `values`, `cost`, `attrs` or `options`; empty for `count`.
    pub key: String,
    pub value: String,
}

const FIELDS: &[&str] = &["values", "cost", "count", "attrs"];

impl Override {
    /// Parse `kind.id.field[.key]=value` (ids may hold dots: the kind is the first part and
    /// the field the second-to-last or last).
    pub fn parse(text: &str) -> Result<Override, String> {
        let (path, value) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}`: expected KIND.ID.FIELD.KEY=VALUE, e.g. card.pikemen.values.attack=2"))?;
        let parts: Vec<&str> = path.trim().split('.').collect();
        let bad = || {
            format!(
                "`{path}`: expected KIND.ID.FIELD.KEY (e.g. card.pikemen.values.attack), KIND.ID.count or options.KEY"
            )
        };
        // `options.KEY`: a setting of pack.toml's [options].
        if parts.len() == 2 && parts[0] == "options" && !parts[1].is_empty() {
            return Ok(Override {
                kind: "options".into(),
                id: String::new(),
                field: "options".into(),
                key: parts[1].to_string(),
                value: value.trim().to_string(),
            });
        }
        if parts.len() < 3 || parts.iter().any(|p| p.is_empty()) {
            return Err(bad());
        }
        let kind = parts[0].to_string();
        let (id, field, key) = if parts[parts.len() - 1] == "count" {
            (parts[1..parts.len() - 1].join("."), "count".to_string(), String::new())
        } else if parts.len() >= 4 {
            (
                parts[1..parts.len() - 2].join("."),
                parts[parts.len() - 2].to_string(),
                parts[parts.len() - 1].to_string(),
            )
        } else {
            return Err(bad());
        };
        Ok(Override { kind, id, field, key, value: value.trim().to_string() })
    }

    /// `kind.id.field.key`, as written.
    pub fn path(&self) -> String {
        if self.kind == "options" {
            format!("options.{}", self.key)
        } else if self.key.is_empty() {
            format!("{}.{}.{}", self.kind, self.id, self.field)
        } else {
            format!("{}.{}.{}.{}", self.kind, self.id, self.field, self.key)
        }
    }
}

/// `; did you mean ...?`, or the known names when there are few.
fn hint(word: &str, known: &[&str]) -> String {
    match did_you_mean(word, known.iter().copied()) {
        Some(n) => format!("; did you mean `{n}`?"),
        None if known.is_empty() => " (there are none)".into(),
        None if known.len() <= 12 => format!(" (known: {})", known.join(", ")),
        None => String::new(),
    }
}

fn near(what: &str, word: &str, known: Vec<&str>) -> String {
    format!("no {what} `{word}`{}", hint(word, &known))
}

fn no_key(owner: &str, field: &str, key: &str, known: Vec<&str>) -> String {
    format!("`{owner}` has no {field} key `{key}`{}", hint(key, &known))
}

/// The override's value, read as the same type as the setting it replaces.
fn scalar_like(old: &Scalar, o: &Override) -> Result<Scalar, String> {
    Ok(match old {
        Scalar::Int(_) => Scalar::Int(int(o)?),
        Scalar::Bool(_) => {
            Scalar::Bool(o.value.parse().map_err(|_| format!("{}: `{}` is not true or false", o.path(), o.value))?)
        }
        Scalar::Str(_) => Scalar::Str(o.value.clone()),
        Scalar::Ints(_) => Scalar::Ints(
            o.value
                .split(',')
                .map(|x| x.trim().parse())
                .collect::<Result<_, _>>()
                .map_err(|_| format!("{}: `{}` is not whole numbers separated by commas", o.path(), o.value))?,
        ),
        Scalar::Words(_) => Scalar::Words(o.value.split(',').map(|w| w.trim().to_string()).collect()),
    })
}

fn int(o: &Override) -> Result<i64, String> {
    o.value.parse().map_err(|_| format!("{}: `{}` is not a whole number", o.path(), o.value))
}

impl Pack {
    /// Apply one override to the loaded pack's data (definitions are what scripts read with
    /// `value`/`def_value`, and what decks are built from). Only an existing id and key can
    /// be changed; an error names the nearest known one.
    pub fn apply_override(&mut self, o: &Override) -> Result<(), String> {
        if o.kind == "options" {
            // `options.KEY=VALUE`: the pack's own setting (every scenario that does not set
            // its own reads it).
            let opts = &mut self.manifest.options;
            let Some(old) = opts.get(&o.key) else {
                return Err(no_key("pack.toml", "options", &o.key, opts.keys().map(String::as_str).collect()));
            };
            let new = scalar_like(old, o)?;
            opts.insert(o.key.clone(), new);
            return Ok(());
        }
        if o.kind == "scenario" {
            let known: Vec<&str> = self.scenarios.iter().map(|s| s.scenario.id.as_str()).collect();
            let Some(i) = self.scenarios.iter().position(|s| s.scenario.id == o.id) else {
                return Err(near("scenario", &o.id, known));
            };
            if o.field != "options" {
                return Err(format!("{}: a scenario's field here is `options`", o.path()));
            }
            let (pack_opts, opts) = (&self.manifest.options, &mut self.scenarios[i].scenario.options);
            // A scenario may also override a setting it takes from pack.toml.
            let Some(old) = opts.get(&o.key).or_else(|| pack_opts.get(&o.key)) else {
                let mut keys: Vec<&str> = opts.keys().map(String::as_str).collect();
                keys.extend(pack_opts.keys().map(String::as_str));
                return Err(no_key(&o.id, "options", &o.key, keys));
            };
            let new = scalar_like(old, o)?;
            opts.insert(o.key.clone(), new);
            return Ok(());
        }
        let Some(kind) = DefKind::ALL.into_iter().find(|k| k.as_str() == o.kind) else {
            let mut kinds: Vec<&str> = DefKind::ALL.iter().map(|k| k.as_str()).collect();
            kinds.push("scenario");
            return Err(near("kind", &o.kind, kinds));
        };
        let idx = match self.index.get(&o.id) {
            Some(&i) if self.defs[i].kind == kind => i,
            _ => {
                let known: Vec<&str> = self.defs_of(kind).map(|d| d.def.id.as_str()).collect();
                return Err(near(kind.as_str(), &o.id, known));
            }
        };
        let def = &mut self.defs[idx].def;
        let map = match o.field.as_str() {
            "count" => {
                def.count = int(o)?;
                return Ok(());
            }
            "attrs" => {
                if !def.attrs.contains_key(&o.key) {
                    return Err(no_key(&o.id, "attrs", &o.key, def.attrs.keys().map(String::as_str).collect()));
                }
                def.attrs.insert(o.key.clone(), o.value.clone());
                return Ok(());
            }
            "values" => &mut def.values,
            "cost" => &mut def.cost,
            f => return Err(near("field", f, FIELDS.to_vec())),
        };
        if !map.contains_key(&o.key) {
            return Err(no_key(&o.id, &o.field, &o.key, map.keys().map(String::as_str).collect()));
        }
        let v = int(o)?;
        map.insert(o.key.clone(), v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_setting_holds_numbers_or_words() {
        let read = |t: &str| toml::from_str::<std::collections::BTreeMap<String, Scalar>>(t).map(|m| m["x"].clone());
        assert_eq!(read("x = [4, 6]"), Ok(Scalar::Ints(vec![4, 6])));
        assert_eq!(read("x = [\"clubs\", \"hearts\"]"), Ok(Scalar::Words(vec!["clubs".into(), "hearts".into()])));
        assert_eq!(read("x = []"), Ok(Scalar::Ints(vec![])));
        let mixed = read("x = [4, \"clubs\"]").unwrap_err().to_string();
        assert!(mixed.contains("whole numbers or words, not both"), "{mixed}");
        assert_eq!(Scalar::Words(vec!["clubs".into(), "hearts".into()]).to_string(), "clubs, hearts");
    }

    #[test]
    fn parses_paths() {
        let o = Override::parse("card.pikemen.values.attack=2").unwrap();
        assert_eq!(
            (o.kind.as_str(), o.id.as_str(), o.field.as_str(), o.key.as_str(), o.value.as_str()),
            ("card", "pikemen", "values", "attack", "2")
        );
        let o = Override::parse("card.a.b.count=3").unwrap();
        assert_eq!((o.id.as_str(), o.field.as_str(), o.key.as_str()), ("a.b", "count", ""));
        assert!(Override::parse("card.pikemen=2").is_err());
        assert!(Override::parse("card.pikemen.values.attack").is_err());
        let o = Override::parse("options.draft_size=4").unwrap();
        assert_eq!((o.kind.as_str(), o.key.as_str(), o.path()), ("options", "draft_size", "options.draft_size".into()));
        assert!(Override::parse("options.=4").is_err());
    }

    #[test]
    fn a_setting_keeps_its_type() {
        let o = |v: &str| Override::parse(&format!("options.bands={v}")).unwrap();
        assert_eq!(scalar_like(&Scalar::Ints(vec![4, 6]), &o("3, 5,7")), Ok(Scalar::Ints(vec![3, 5, 7])));
        assert!(scalar_like(&Scalar::Ints(vec![4]), &o("3;5")).unwrap_err().contains("separated by commas"));
        let words = Scalar::Words(vec!["a".into()]);
        assert_eq!(scalar_like(&words, &o("clubs, hearts")), Ok(Scalar::Words(vec!["clubs".into(), "hearts".into()])));
        assert_eq!(scalar_like(&Scalar::Int(1), &o("9")), Ok(Scalar::Int(9)));
        assert!(scalar_like(&Scalar::Bool(true), &o("maybe")).is_err());
    }
}
