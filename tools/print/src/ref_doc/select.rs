//! Which definitions a list or count placeholder selects: the pack it reads, `ids=`, the
//! filters (`kind`, `deck`, `keyword`, `where`, `serial`), the order (`sort`), and the
//! value and attribute columns shown.

use std::collections::BTreeSet;
use std::ops::Range;

use crown_engine::content::{Def, DefKind};
use crown_engine::diag::did_you_mean;

use super::specs::Args;
use super::Expander;
use crate::context::print_kind;
use crate::rules_md::Arg;

/// Which definitions a list placeholder shows.
pub(super) struct Selection<'p> {
    pub(super) defs: Vec<&'p Def>,
}

/// Which values and attributes a list shows.
#[derive(Debug, Clone)]
pub(super) struct Columns {
    pub(super) values: Vec<String>,
    pub(super) attrs: Vec<String>,
}

impl<'p> Expander<'p> {
    /// A comma-separated list argument.
    pub(super) fn list(a: Option<&Arg>) -> Vec<String> {
        a.map(|a| a.value.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    /// The definitions a list or count placeholder names, in the order asked.
    pub(super) fn select(&mut self, kinds: &[DefKind], args: &Args<'_>, span: &Range<usize>) -> Option<Selection<'p>> {
        let pack = self.pack;
        // Whose definitions: the chapter's pack, another of the chain, or all.
        let from: Option<String> = match args.get("pack") {
            None => Some(self.chapter_pack.clone()),
            Some(a) if a.value == "all" => None,
            Some(a) if pack.chain.contains(&a.value) => Some(a.value.clone()),
            Some(a) => {
                self.error(
                    "unknown-id",
                    &a.value_span,
                    format!("`{}` is not this pack or a pack it extends", a.value),
                    Some(format!("use one of {}, or `all`", pack.chain.join(", "))),
                );
                return None;
            }
        };
        let pool: Vec<&'p Def> = pack
            .defs
            .iter()
            .filter(|d| kinds.contains(&d.kind) && from.as_ref().is_none_or(|f| &d.origin.pack == f))
            .collect();
        let what = kinds.iter().map(|k| format!("{}s", k.as_str())).collect::<Vec<_>>().join(" or ");
        let mut defs: Vec<&'p Def> = match args.get("ids") {
            Some(a) => {
                let mut v = Vec::new();
                for id in Self::list(Some(a)) {
                    match pool.iter().find(|d| d.def.id == id) {
                        Some(d) => v.push(*d),
                        None => {
                            let hint = did_you_mean(&id, pool.iter().map(|d| d.def.id.as_str()))
                                .map(|n| format!("did you mean `{n}`?"));
                            let msg = match pack.get(&id) {
                                Some(d) if !kinds.contains(&d.kind) => {
                                    format!("`{id}` is a {}, not one of the {what}", d.kind.as_str())
                                }
                                Some(d) => format!(
                                    "`{id}` belongs to `{}`, not to this chapter's pack (add `pack=\"all\"`)",
                                    d.origin.pack
                                ),
                                None => format!("no {what} `{id}` in this pack"),
                            };
                            self.error("unknown-id", &a.value_span, msg, hint);
                            return None;
                        }
                    }
                }
                v
            }
            None => pool.clone(),
        };
        // Filters: each a comma-separated list of accepted names.
        type Get = fn(&Def) -> Vec<String>;
        let filters: [(&str, &str, Get); 3] = [
            ("kind", "kind", |d| vec![print_kind(d)]),
            ("deck", "deck", |d| d.def.decks.clone()),
            ("keyword", "keyword", |d| {
                let mut k = d.def.keywords.clone();
                k.extend(d.def.stages.iter().flat_map(|s| s.keywords.iter().cloned()));
                k
            }),
        ];
        for (key, what_one, get) in filters {
            let Some(a) = args.get(key) else { continue };
            let known: BTreeSet<String> = pool.iter().flat_map(|d| get(d)).collect();
            let wanted = Self::list(Some(a));
            for w in &wanted {
                if !known.contains(w) {
                    let hint = did_you_mean(w, known.iter().map(String::as_str))
                        .map(|n| format!("did you mean `{n}`?"))
                        .unwrap_or_else(|| {
                            format!("the {what} here have: {}", known.iter().cloned().collect::<Vec<_>>().join(", "))
                        });
                    self.error(
                        "unknown-value",
                        &a.value_span,
                        format!("no {what} with the {what_one} `{w}`"),
                        Some(hint),
                    );
                    return None;
                }
            }
            defs.retain(|d| get(d).iter().any(|x| wanted.contains(x)));
        }
        if let Some(a) = args.get("where") {
            let Some((k, v)) = a.value.split_once('=') else {
                self.error(
                    "bad-placeholder",
                    &a.value_span,
                    "`where` is `attribute=value`",
                    Some("for example `where=\"faction=danes\"`".into()),
                );
                return None;
            };
            let (k, v) = (k.trim(), v.trim());
            defs.retain(|d| d.def.attrs.get(k).is_some_and(|x| x == v));
        }
        if let Some(a) = args.get("serial") {
            let range = a.value.split_once('-').map_or_else(
                || a.value.trim().parse::<i64>().ok().map(|n| (n, n)),
                |(x, y)| Some((x.trim().parse::<i64>().ok()?, y.trim().parse::<i64>().ok()?)),
            );
            let Some((lo, hi)) = range else {
                self.error("bad-placeholder", &a.value_span, "`serial` is a number or a range such as `1-10`", None);
                return None;
            };
            defs.retain(|d| d.def.serial.is_some_and(|s| (lo..=hi).contains(&s)));
        }
        if defs.is_empty() {
            self.error(
                "empty-selection",
                span,
                format!("this placeholder selects no {what}"),
                Some("check its filters: an empty list or count is always a mistake".into()),
            );
            return None;
        }
        if let Some(a) = args.get("sort") {
            match a.value.as_str() {
                "pack" => {}
                "name" => defs.sort_by(|x, y| x.def.name.cmp(&y.def.name)),
                "serial" => defs.sort_by_key(|d| d.def.serial.unwrap_or(i64::MAX)),
                key => {
                    if !defs.iter().any(|d| d.def.values.contains_key(key)) {
                        let keys: BTreeSet<&str> =
                            defs.iter().flat_map(|d| d.def.values.keys().map(String::as_str)).collect();
                        let hint = did_you_mean(key, keys.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| "sort by `pack` (the files' order), `name`, `serial` or a value".into());
                        self.error(
                            "unknown-value",
                            &a.value_span,
                            format!("nothing here has a value `{key}` to sort by"),
                            Some(hint),
                        );
                        return None;
                    }
                    defs.sort_by_key(|d| d.def.values.get(key).copied().unwrap_or(i64::MAX));
                }
            }
        }
        Some(Selection { defs })
    }

    /// The value and attribute columns (or meta) a list shows: `values=` and `attrs=`
    /// name them (`none` for none); by default every value and no attribute.
    pub(super) fn columns(&mut self, sel: &Selection<'_>, args: &Args<'_>) -> Option<Columns> {
        let all_values: BTreeSet<String> = sel.defs.iter().flat_map(|d| d.def.values.keys().cloned()).collect();
        let all_attrs: BTreeSet<String> = sel.defs.iter().flat_map(|d| d.def.attrs.keys().cloned()).collect();
        let mut pick = |key: &str, all: &BTreeSet<String>, default_all: bool| -> Option<Vec<String>> {
            match args.get(key) {
                None => Some(if default_all { all.iter().cloned().collect() } else { Vec::new() }),
                Some(a) if a.value == "none" => Some(Vec::new()),
                Some(a) => {
                    let wanted = Self::list(Some(a));
                    for w in &wanted {
                        if !all.contains(w) {
                            let hint = did_you_mean(w, all.iter().map(String::as_str))
                                .map(|n| format!("did you mean `{n}`?"))
                                .unwrap_or_else(|| {
                                    format!("they have: {}", all.iter().cloned().collect::<Vec<_>>().join(", "))
                                });
                            let code = if key == "attrs" { "unknown-attr" } else { "unknown-value" };
                            self.error(
                                code,
                                &a.value_span,
                                format!(
                                    "none of the definitions shown has the {} `{w}`",
                                    if key == "attrs" { "attribute" } else { "value" }
                                ),
                                Some(hint),
                            );
                            return None;
                        }
                    }
                    Some(wanted)
                }
            }
        };
        let values = pick("values", &all_values, true)?;
        let attrs = pick("attrs", &all_attrs, false)?;
        Some(Columns { values, attrs })
    }
}
