//! The placeholders of a rules document: what each accepts ([`SPECS`]), and a
//! placeholder's name and arguments checked against its spec.

use crown_engine::diag::plural;
use std::collections::BTreeMap;

use crown_engine::diag::did_you_mean;

use super::Expander;
use crate::rules_md::{Arg, Placeholder};

/// What a placeholder accepts.
pub struct Spec {
    pub name: &'static str,
    /// Generated blocks (a card list, a table) rather than a few words.
    pub block: bool,
    pub positional: &'static [&'static str],
    pub named: &'static [&'static str],
    pub usage: &'static str,
}

const SELECT: &[&str] = &["kind", "deck", "keyword", "where", "ids", "serial", "pack", "sort", "as", "values", "attrs"];
const COUNT: &[&str] = &["of", "kind", "deck", "keyword", "where", "ids", "serial", "pack"];

/// Every placeholder.
pub const SPECS: &[Spec] = &[
    Spec {
        name: "cards",
        block: true,
        positional: &[],
        named: SELECT,
        usage: "{{ cards kind=\"attack\" as=\"table\" }}",
    },
    Spec { name: "plaques", block: true, positional: &[], named: SELECT, usage: "{{ plaques }}" },
    Spec { name: "nobles", block: true, positional: &[], named: SELECT, usage: "{{ nobles }}" },
    Spec { name: "leaders", block: true, positional: &[], named: SELECT, usage: "{{ leaders as=\"table\" }}" },
    Spec { name: "characters", block: true, positional: &[], named: SELECT, usage: "{{ characters }}" },
    Spec {
        name: "scenarios",
        block: true,
        positional: &[],
        named: &["ids", "as", "options", "pack"],
        usage: "{{ scenarios as=\"table\" options=\"rounds\" }}",
    },
    Spec { name: "board", block: true, positional: &[], named: &[], usage: "{{ board }}" },
    Spec {
        name: "spaces",
        block: true,
        positional: &[],
        named: &["ids", "where", "values", "attrs"],
        usage: "{{ spaces where=\"kind=region\" }}",
    },
    Spec { name: "supplies", block: true, positional: &[], named: &["ids", "where"], usage: "{{ supplies }}" },
    Spec { name: "grid", block: true, positional: &[], named: &[], usage: "{{ grid }}" },
    Spec { name: "catalogue", block: true, positional: &[], named: &["pack"], usage: "{{ catalogue }}" },
    Spec {
        name: "value",
        block: false,
        positional: &["id", "key"],
        named: &["stage", "side"],
        usage: "{{ value pikemen attack }}",
    },
    Spec {
        name: "cost",
        block: false,
        positional: &["id", "resource"],
        named: &["stage", "side"],
        usage: "{{ cost pawn wood }}",
    },
    Spec { name: "count", block: false, positional: &["id"], named: &[], usage: "{{ count pikemen }}" },
    Spec { name: "serial", block: false, positional: &["id"], named: &[], usage: "{{ serial coronation }}" },
    Spec { name: "name", block: false, positional: &["id"], named: &["stage", "side"], usage: "{{ name pikemen }}" },
    Spec {
        name: "attr",
        block: false,
        positional: &["id", "key"],
        named: &["stage", "side"],
        usage: "{{ attr alfred region }}",
    },
    Spec { name: "option", block: false, positional: &["key"], named: &["scenario"], usage: "{{ option hand_size }}" },
    Spec { name: "players", block: false, positional: &[], named: &["scenario"], usage: "{{ players }}" },
    Spec { name: "pack", block: false, positional: &["field"], named: &[], usage: "{{ pack max_turns }}" },
    Spec { name: "total", block: false, positional: &[], named: COUNT, usage: "{{ total kind=\"attack\" }}" },
    Spec { name: "supply", block: false, positional: &["id"], named: &[], usage: "{{ supply danes }}" },
    Spec { name: "space", block: false, positional: &["id", "key"], named: &[], usage: "{{ space market-7 cost }}" },
];

/// The fields `{{ pack FIELD }}` reads from `pack.toml`.
pub(super) const PACK_FIELDS: &[&str] =
    &["name", "version", "players", "min_players", "max_players", "max_turns", "description"];

/// The arguments of a placeholder, checked against its spec.
pub(super) struct Args<'a> {
    pub(super) named: BTreeMap<&'a str, &'a Arg>,
    pub(super) positional: Vec<&'a Arg>,
}

impl<'a> Args<'a> {
    pub(super) fn get(&self, key: &str) -> Option<&'a Arg> {
        self.named.get(key).copied()
    }

    pub(super) fn str(&self, key: &str) -> Option<&'a str> {
        self.get(key).map(|a| a.value.as_str())
    }
}

impl Expander<'_> {
    /// The spec of a placeholder, its arguments checked; `None` (with an error) when
    /// the name is unknown.
    pub(super) fn spec(&mut self, p: &Placeholder) -> Option<&'static Spec> {
        let Some(spec) = SPECS.iter().find(|s| s.name == p.name) else {
            let hint = did_you_mean(&p.name, SPECS.iter().map(|s| s.name))
                .map(|n| format!("did you mean `{n}`?"))
                .unwrap_or_else(|| {
                    format!("placeholders are {}", SPECS.iter().map(|s| s.name).collect::<Vec<_>>().join(", "))
                });
            self.error("unknown-placeholder", &p.name_span, format!("unknown placeholder `{}`", p.name), Some(hint));
            return None;
        };
        Some(spec)
    }

    /// Check the arguments against the spec; `None` after reporting what is wrong.
    pub(super) fn args<'a>(&mut self, p: &'a Placeholder, spec: &Spec) -> Option<Args<'a>> {
        let mut ok = true;
        let mut named: BTreeMap<&str, &Arg> = BTreeMap::new();
        let mut positional = Vec::new();
        for a in &p.args {
            match &a.key {
                Some(k) => {
                    if !spec.named.contains(&k.as_str()) {
                        let hint = did_you_mean(k, spec.named.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| {
                                if spec.named.is_empty() {
                                    format!("`{}` takes no named arguments: {}", spec.name, spec.usage)
                                } else {
                                    format!("`{}` takes {}", spec.name, spec.named.join(", "))
                                }
                            });
                        self.error(
                            "bad-placeholder",
                            &a.span,
                            format!("`{}` has no argument `{k}`", spec.name),
                            Some(hint),
                        );
                        ok = false;
                    } else if named.insert(k.as_str(), a).is_some() {
                        self.error("bad-placeholder", &a.span, format!("`{k}` is given twice"), None);
                        ok = false;
                    }
                }
                None => positional.push(a),
            }
        }
        if positional.len() != spec.positional.len() {
            let what = if spec.positional.is_empty() {
                "no bare words".to_string()
            } else {
                spec.positional.iter().map(|s| s.to_uppercase()).collect::<Vec<_>>().join(" ")
            };
            let span = positional.get(spec.positional.len()).map_or(p.span.clone(), |a| a.span.clone());
            self.error(
                "bad-placeholder",
                &span,
                format!(
                    "`{}` takes {what}, given {} bare word{}",
                    spec.name,
                    positional.len(),
                    plural(positional.len())
                ),
                Some(format!("for example `{}`", spec.usage)),
            );
            ok = false;
        }
        ok.then_some(Args { named, positional })
    }
}
