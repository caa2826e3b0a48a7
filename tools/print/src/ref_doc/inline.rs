//! Placeholders that stand for a few words (a value, a cost, a name, an option, a count):
//! the definition, stage, side or scenario they read, and what they print.

use std::collections::BTreeMap;
use std::ops::Range;

use crown_engine::content::{Def, DefKind};
use crown_engine::diag::did_you_mean;

use super::specs::{Args, Spec, PACK_FIELDS};
use super::text::{players_text, scalar};
use super::Expander;
use crate::rules_md::{Arg, Placeholder};

/// One face of a definition, as placeholders read it.
struct Face<'p> {
    name: &'p str,
    values: &'p BTreeMap<String, i64>,
    cost: Option<&'p BTreeMap<String, i64>>,
    attrs: &'p BTreeMap<String, String>,
    what: String,
}

impl<'p> Expander<'p> {
    fn def(&mut self, a: &Arg) -> Option<&'p Def> {
        let d = self.pack.get(&a.value);
        if d.is_none() {
            let hint = did_you_mean(&a.value, self.pack.defs.iter().map(|d| d.def.id.as_str()))
                .map(|n| format!("did you mean `{n}`?"));
            self.error(
                "unknown-id",
                &a.value_span,
                format!("no card, plaque, noble or leader `{}` in this pack", a.value),
                hint,
            );
        }
        d
    }

    /// The face a placeholder reads: the definition itself, a stage (`stage=`, by position
    /// or name) or the back (`side=back`).
    fn face(&mut self, d: &'p Def, args: &Args<'_>) -> Option<Face<'p>> {
        let def = &d.def;
        if let Some(s) = args.get("stage") {
            let found =
                def.stages.iter().find(|st| st.position.as_str() == s.value || st.name.eq_ignore_ascii_case(&s.value));
            return match found {
                Some(st) => Some(Face {
                    name: &st.name,
                    values: &st.values,
                    cost: None,
                    attrs: &st.attrs,
                    what: format!("stage {}", st.name),
                }),
                None => {
                    let names: Vec<String> =
                        def.stages.iter().map(|st| format!("{} ({})", st.position.as_str(), st.name)).collect();
                    let hint = if names.is_empty() {
                        format!("`{}` has no stages", def.id)
                    } else {
                        format!("its stages: {}", names.join(", "))
                    };
                    self.error(
                        "unknown-stage",
                        &s.value_span,
                        format!("`{}` has no stage `{}`", def.id, s.value),
                        Some(hint),
                    );
                    None
                }
            };
        }
        if let Some(s) = args.get("side") {
            return match (s.value.as_str(), &def.back) {
                ("front", _) => Some(Face {
                    name: &def.name,
                    values: &def.values,
                    cost: Some(&def.cost),
                    attrs: &def.attrs,
                    what: "front".into(),
                }),
                ("back", Some(b)) => Some(Face {
                    name: if b.name.is_empty() { &def.name } else { &b.name },
                    values: &b.values,
                    cost: Some(&b.cost),
                    attrs: &b.attrs,
                    what: "back".into(),
                }),
                ("back", None) => {
                    self.error("unknown-stage", &s.value_span, format!("`{}` has no back side", def.id), None);
                    None
                }
                _ => {
                    self.error(
                        "bad-placeholder",
                        &s.value_span,
                        format!("`side` is `front` or `back`, not `{}`", s.value),
                        None,
                    );
                    None
                }
            };
        }
        Some(Face {
            name: &def.name,
            values: &def.values,
            cost: Some(&def.cost),
            attrs: &def.attrs,
            what: "front".into(),
        })
    }

    fn scenario(&mut self, args: &Args<'_>, span: &Range<usize>) -> Option<&'p crown_engine::content::ScenarioEntry> {
        match args.get("scenario") {
            Some(a) => {
                let s = self.pack.scenario(&a.value);
                if s.is_none() {
                    let hint = did_you_mean(&a.value, self.pack.scenarios.iter().map(|e| e.scenario.id.as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    self.error("unknown-id", &a.value_span, format!("no scenario `{}` in this pack", a.value), hint);
                }
                s
            }
            None => {
                let s = self.pack.default_scenario();
                if s.is_none() {
                    self.error(
                        "unknown-id",
                        span,
                        "the pack has no default scenario to read this from",
                        Some("name one with `scenario=\"ID\"`".into()),
                    );
                }
                s
            }
        }
    }

    /// A placeholder that stands for a few words: a number, a name.
    pub(super) fn inline_placeholder(&mut self, p: &Placeholder, spec: &Spec) -> Option<String> {
        let args = self.args(p, spec)?;
        let pos = |i: usize| args.positional[i];
        match spec.name {
            "value" | "attr" | "cost" => {
                let d = self.def(pos(0))?;
                let face = self.face(d, &args)?;
                let key = pos(1);
                let (found, keys): (Option<String>, Vec<String>) = match spec.name {
                    "value" => {
                        (face.values.get(&key.value).map(|v| v.to_string()), face.values.keys().cloned().collect())
                    }
                    "attr" => (face.attrs.get(&key.value).cloned(), face.attrs.keys().cloned().collect()),
                    _ => {
                        let cost = face.cost.cloned().unwrap_or_default();
                        (cost.get(&key.value).map(|v| v.to_string()), cost.keys().cloned().collect())
                    }
                };
                if found.is_none() {
                    let what = match spec.name {
                        "value" => "value",
                        "attr" => "attribute",
                        _ => "cost in",
                    };
                    let hint = did_you_mean(&key.value, keys.iter().map(String::as_str))
                        .map(|n| format!("did you mean `{n}`?"))
                        .unwrap_or_else(|| {
                            if keys.is_empty() {
                                format!("its {} holds none", face.what)
                            } else {
                                format!("its {} has {}", face.what, keys.join(", "))
                            }
                        });
                    let code = if spec.name == "attr" { "unknown-attr" } else { "unknown-value" };
                    self.error(
                        code,
                        &key.value_span,
                        format!("`{}` has no {what} `{}` on its {}", d.def.id, key.value, face.what),
                        Some(hint),
                    );
                }
                found
            }
            "count" => self.def(pos(0)).map(|d| d.def.count.to_string()),
            "serial" => {
                let d = self.def(pos(0))?;
                if d.def.serial.is_none() {
                    self.error(
                        "unknown-value",
                        &pos(0).value_span,
                        format!("`{}` has no serial number", d.def.id),
                        None,
                    );
                }
                d.def.serial.map(|n| n.to_string())
            }
            "name" => {
                let d = self.def(pos(0))?;
                self.face(d, &args).map(|f| f.name.to_string())
            }
            "option" => {
                let s = self.scenario(&args, &p.span)?;
                let key = pos(0);
                // The scenario's setting, else the one it takes from pack.toml.
                match s.scenario.options.get(&key.value).or_else(|| self.pack.manifest.options.get(&key.value)) {
                    Some(v) => Some(scalar(v)),
                    None => {
                        let mut keys: Vec<&str> = s.scenario.options.keys().map(String::as_str).collect();
                        keys.extend(self.pack.manifest.options.keys().map(String::as_str));
                        let hint = did_you_mean(&key.value, keys.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| format!("its options: {}", keys.join(", ")));
                        self.error(
                            "unknown-option",
                            &key.value_span,
                            format!("the scenario `{}` sets no option `{}`", s.scenario.id, key.value),
                            Some(hint),
                        );
                        None
                    }
                }
            }
            "players" => {
                let s = match args.get("scenario") {
                    Some(_) => self.scenario(&args, &p.span)?.scenario.players,
                    None => None,
                };
                let r = s.unwrap_or(self.pack.manifest.players);
                Some(players_text(r.min, r.max))
            }
            "pack" => {
                let f = pos(0);
                let m = &self.pack.manifest;
                let v = match f.value.as_str() {
                    "name" => Some(m.name.clone()),
                    "version" => Some(m.version.clone()),
                    "players" => Some(players_text(m.players.min, m.players.max)),
                    "min_players" => Some(m.players.min.to_string()),
                    "max_players" => Some(m.players.max.to_string()),
                    "max_turns" => m.max_turns.map(|t| t.to_string()),
                    "description" => Some(m.description.clone()),
                    _ => {
                        let hint = did_you_mean(&f.value, PACK_FIELDS.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| format!("`pack` reads {}", PACK_FIELDS.join(", ")));
                        self.error(
                            "unknown-value",
                            &f.value_span,
                            format!("`pack.toml` has no field `{}` to show", f.value),
                            Some(hint),
                        );
                        return None;
                    }
                };
                if v.is_none() {
                    self.error("unknown-value", &f.value_span, format!("`pack.toml` does not set `{}`", f.value), None);
                }
                v
            }
            "total" => {
                let of = args.str("of").unwrap_or("card");
                if matches!(of, "space" | "spaces" | "supply" | "supplies") {
                    let board = self.board(&p.span)?;
                    for k in ["kind", "deck", "keyword", "ids", "serial", "pack"] {
                        if let Some(a) = args.get(k) {
                            self.error(
                                "bad-placeholder",
                                &a.span,
                                format!("`{k}` does not apply to `of=\"{of}\"` (use `where`)"),
                                None,
                            );
                            return None;
                        }
                    }
                    let filter = match args.get("where") {
                        None => None,
                        Some(a) => match a.value.split_once('=') {
                            Some((k, v)) => Some((k.trim().to_string(), v.trim().to_string())),
                            None => {
                                self.error("bad-placeholder", &a.value_span, "`where` is `attribute=value`", None);
                                return None;
                            }
                        },
                    };
                    let keep =
                        |attrs: &BTreeMap<String, String>| filter.as_ref().is_none_or(|(k, v)| attrs.get(k) == Some(v));
                    let n: i64 = if of.starts_with("space") {
                        board.space.iter().filter(|s| keep(&s.attrs)).count() as i64
                    } else {
                        board.supply.iter().filter(|s| keep(&s.attrs)).map(|s| s.count).sum()
                    };
                    if n == 0 {
                        self.error("empty-selection", &p.span, format!("this placeholder counts no {of}"), None);
                        return None;
                    }
                    return Some(n.to_string());
                }
                let kinds = match DefKind::ALL.iter().find(|k| k.as_str() == of || format!("{}s", k.as_str()) == of) {
                    Some(k) => vec![*k],
                    None => {
                        let a = args.get("of").expect("given");
                        self.error(
                            "bad-placeholder",
                            &a.value_span,
                            format!("`of` is card, plaque, noble, leader, space or supply, not `{of}`"),
                            None,
                        );
                        return None;
                    }
                };
                let sel = self.select(&kinds, &args, &p.span)?;
                Some(sel.defs.iter().map(|d| d.def.count).sum::<i64>().to_string())
            }
            "supply" => {
                let a = pos(0);
                let board = self.board(&a.span)?;
                match board.supply.iter().find(|s| s.id == a.value) {
                    Some(s) => Some(s.count.to_string()),
                    None => {
                        let hint = did_you_mean(&a.value, board.supply.iter().map(|s| s.id.as_str()))
                            .map(|n| format!("did you mean `{n}`?"));
                        self.error("unknown-id", &a.value_span, format!("the board has no supply `{}`", a.value), hint);
                        None
                    }
                }
            }
            "space" => {
                let (a, key) = (pos(0), pos(1));
                let board = self.board(&a.span)?;
                let Some(s) = board.space.iter().find(|s| s.id == a.value) else {
                    let hint = did_you_mean(&a.value, board.space.iter().map(|s| s.id.as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    self.error("unknown-id", &a.value_span, format!("the board has no space `{}`", a.value), hint);
                    return None;
                };
                match s.values.get(&key.value) {
                    Some(v) => Some(v.to_string()),
                    None => {
                        let keys: Vec<&str> = s.values.keys().map(String::as_str).collect();
                        let hint = did_you_mean(&key.value, keys.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| format!("its values: {}", keys.join(", ")));
                        self.error(
                            "unknown-value",
                            &key.value_span,
                            format!("the space `{}` has no value `{}`", s.id, key.value),
                            Some(hint),
                        );
                        None
                    }
                }
            }
            other => unreachable!("inline placeholder {other} has no expansion"),
        }
    }
}
