//! The pack's declared vocabulary (`[vocabulary.<kind>]` in `pack.toml`): every value
//! key, attribute, keyword and cost resource a definition carries, on any face, must be
//! one the vocabulary of its kind lists, within its range. A misspelt key in a card file
//! (`atack = 2`) is then an error at load, at its line, with the nearest declared key,
//! instead of a value no script ever reads. A value marked `required` must be on every
//! face of every definition of its kind that can be up, so `value(c, key)` never fails.

use std::collections::BTreeMap;

use crate::content::model::{PackManifest, Vocabulary};
use crate::content::{Def, DefKind};
use crate::diag::{did_you_mean, Diagnostic, SourceFile, SourceMap};
use crate::load::table::{Sheet, TableFormat};

/// One face's keys, as the checks see them.
struct FaceKeys<'a> {
    /// "" for the definition itself, else `stage front-bottom` or `back`.
    name: String,
    values: &'a BTreeMap<String, i64>,
    attrs: &'a BTreeMap<String, String>,
    keywords: &'a [String],
    costs: Vec<&'a BTreeMap<String, i64>>,
    /// The terrains of a tile's cells.
    terrains: Vec<&'a str>,
}

fn faces(def: &crate::content::model::Definition) -> Vec<FaceKeys<'_>> {
    let mut out = vec![FaceKeys {
        name: String::new(),
        values: &def.values,
        attrs: &def.attrs,
        keywords: &def.keywords,
        costs: vec![&def.cost],
        terrains: def.cells.iter().map(|c| c.terrain.as_str()).collect(),
    }];
    for st in &def.stages {
        out.push(FaceKeys {
            name: format!("stage {}", st.position.as_str()),
            values: &st.values,
            attrs: &st.attrs,
            keywords: &st.keywords,
            costs: st.upgrades.iter().map(|u| &u.cost).collect(),
            terrains: Vec::new(),
        });
    }
    if let Some(b) = &def.back {
        out.push(FaceKeys {
            name: "back".into(),
            values: &b.values,
            attrs: &b.attrs,
            keywords: &[],
            costs: vec![&b.cost],
            terrains: Vec::new(),
        });
    }
    out
}

/// The vocabulary's own mistakes (a kind that does not exist, a range that is not two
/// numbers in order), then every definition checked against it.
pub fn check(
    manifest: &PackManifest,
    manifest_src: Option<&SourceFile>,
    defs: &[Def],
    sources: &SourceMap,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let kinds: Vec<&str> = DefKind::ALL.iter().map(|k| k.as_str()).collect();
    for (kind, v) in &manifest.vocabulary {
        let mut d = None;
        if !kinds.contains(&kind.as_str()) {
            d = Some(
                Diagnostic::error(
                    "vocabulary",
                    format!("`[vocabulary.{kind}]`: there is no kind of definition `{kind}`"),
                )
                .maybe_hint(did_you_mean(kind, kinds.iter().copied()).map(|n| format!("did you mean `{n}`?"))),
            );
        }
        for (key, range) in v.values.iter().flatten() {
            if !(range.is_empty() || (range.len() == 2 && range[0] <= range[1])) {
                let how = if range.required { "`{ min, max }`" } else { "`[min, max]`" };
                let none = if range.required { "neither" } else { "`[]`" };
                d = Some(Diagnostic::error(
                    "vocabulary",
                    format!("`[vocabulary.{kind}]` value `{key}`: a range is {how} with min <= max, or {none}"),
                ));
            }
        }
        if let Some(d) = d {
            out.push(match manifest_src {
                Some(f) => locate(d, f, 0, kind),
                None => d,
            });
        }
    }
    // Spreadsheets read back from their shown text, once each.
    let mut sheets: BTreeMap<&std::path::Path, Option<Sheet>> = BTreeMap::new();
    // A spreadsheet column whose header names a key the vocabulary does not declare
    // (`value.rnak`): one error at the header, however many rows fill it.
    let mut slips: BTreeMap<(&std::path::Path, String), HeaderSlip> = BTreeMap::new();
    // Required values missing, by file and key: those a misspelt header explains are
    // held back.
    let mut missing: Vec<(&std::path::Path, String, Diagnostic)> = Vec::new();
    for def in defs {
        let Some(v) = manifest.vocabulary.get(def.kind.as_str()) else { continue };
        let src = sources.get(&def.origin.file);
        missing.extend(missing_required(v, def, src, manifest_src).into_iter().map(|(k, d)| (&*def.origin.file, k, d)));
        for face in faces(&def.def) {
            for p in face_problems(v, &face, def.kind.as_str()) {
                let on = if face.name.is_empty() { String::new() } else { format!(" ({})", face.name) };
                let d = Diagnostic::error("vocabulary", format!("`{}`{on}: {}", def.def.id, p.message))
                    .maybe_hint(p.hint.clone());
                let Some(f) = src else {
                    out.push(d.in_file(def.origin.file.clone()));
                    continue;
                };
                let is_sheet = f.path.file_name().and_then(|n| n.to_str()).and_then(TableFormat::of).is_some();
                if !is_sheet {
                    out.push(match key_span(f, def, &face.name, (&p.column, &p.key, p.undeclared)) {
                        Some(span) => d.at(f, span),
                        None => locate(d, f, def.origin.span.start, &p.key),
                    });
                    continue;
                }
                let sheet = sheets.entry(&def.origin.file).or_insert_with(|| Sheet::from_shown(&f.text));
                let column = if face.name == "back" { format!("back.{}", p.column) } else { p.column.clone() };
                if let (true, Some(h)) = (p.undeclared, sheet.as_ref().and_then(|s| s.header_cell(&column))) {
                    if h.text.trim().strip_suffix(p.key.as_str()).is_some_and(|head| head.ends_with('.')) {
                        let slip = slips.entry((&*def.origin.file, column.clone())).or_insert_with(|| HeaderSlip {
                            span: h.span.clone(),
                            message: p.message.clone(),
                            hint: p.hint.clone(),
                            key: p.key.clone(),
                            rows: 0,
                        });
                        slip.rows += 1;
                        continue;
                    }
                }
                out.push(match sheet.as_ref().map(|s| (s.cell_at(def.origin.span.start, &column), s)) {
                    Some((Some(cell), sheet)) => {
                        // The bad value in the definition's row; a keyword at itself in its cell.
                        let at = find_word(&f.text[..cell.span.end], cell.span.start, &p.key)
                            .filter(|_| column.ends_with("keywords"))
                            .unwrap_or(cell.span.clone());
                        let d = d.at(f, at);
                        match sheet.header_cell(&column) {
                            Some(h) if p.undeclared => d.related(f, h.span.clone(), "the column that names it"),
                            _ => d,
                        }
                    }
                    _ => locate(d, f, def.origin.span.start, &p.key),
                });
            }
        }
    }
    let mut held: BTreeMap<(&std::path::Path, String), usize> = BTreeMap::new();
    for (file, key, d) in missing {
        // A required `rank` missing from the rows of a sheet headed `value.rnak`.
        match slips.iter().find(|((f, _), slip)| *f == file && did_you_mean(&slip.key, [key.as_str()]).is_some()) {
            Some(((f, column), _)) => *held.entry((*f, column.clone())).or_default() += 1,
            None => out.push(d),
        }
    }
    for ((file, column), slip) in slips {
        let Some(f) = sources.get(file) else { continue };
        let rows = if slip.rows == 1 { "1 row fills it".to_string() } else { format!("{} rows fill it", slip.rows) };
        // `did you mean `rank`?` of a column: the column's name (`value.rank`).
        let head = &column[..column.len() - slip.key.len()];
        let mut hint = slip.hint.map(|h| match h.strip_prefix("did you mean `") {
            Some(rest) => format!("did you mean `{head}{rest}"),
            None => h,
        });
        if let Some(n) = held.get(&(file, column.clone())) {
            let note = format!(
                "not shown until this is fixed, as they follow from it: {n} definition{} lacking a required value",
                if *n == 1 { "" } else { "s" }
            );
            hint = Some(match hint {
                Some(h) => format!("{h}\n{note}"),
                None => note,
            });
        }
        out.push(
            Diagnostic::error("vocabulary", format!("column `{column}`: {} ({rows})", slip.message))
                .at(f, slip.span)
                .maybe_hint(hint),
        );
    }
    out
}

/// A spreadsheet column headed with an undeclared key, and how many rows fill it.
struct HeaderSlip {
    span: std::ops::Range<usize>,
    message: String,
    hint: Option<String>,
    key: String,
    rows: usize,
}

/// A definition lacking a value its kind's vocabulary marks `required`: one error per key,
/// at the definition's id, naming the faces without it, with the declaration related.
fn missing_required(
    v: &Vocabulary,
    def: &Def,
    src: Option<&SourceFile>,
    manifest_src: Option<&SourceFile>,
) -> Vec<(String, Diagnostic)> {
    let kind = def.kind.as_str();
    let d = &def.def;
    let mut out = Vec::new();
    for (key, _) in v.values.iter().flatten().filter(|(_, r)| r.required) {
        // The faces that can be up: each stage, else the definition and its back.
        let lacking: Vec<String> = if d.stages.is_empty() {
            let mut l = Vec::new();
            if !d.values.contains_key(key) {
                l.push("front".to_string());
            }
            if d.back.as_ref().is_some_and(|b| !b.values.contains_key(key)) {
                l.push("back".to_string());
            }
            l
        } else {
            d.stages
                .iter()
                .filter(|st| !st.values.contains_key(key))
                .map(|st| st.position.as_str().to_string())
                .collect()
        };
        if lacking.is_empty() {
            continue;
        }
        let on = match (d.stages.is_empty(), d.back.is_some()) {
            (true, false) => String::new(),
            (true, true) => format!(" on its {}", lacking.join(" and ")),
            (false, _) => format!(" on its stage{} {}", if lacking.len() == 1 { "" } else { "s" }, lacking.join(", ")),
        };
        let diag = Diagnostic::error(
            "vocabulary",
            format!("`{}` has no value `{key}`{on}, which every {kind} must carry", d.id),
        )
        .hint(format!(
            "add `{key} = ...` to its values{}; `[vocabulary.{kind}]` in pack.toml marks `{key}` required",
            if d.stages.is_empty() { "" } else { " on every stage" }
        ));
        let diag = match src {
            Some(f) => diag.at(f, def.origin.id_span.clone()),
            None => diag.in_file(def.origin.file.clone()),
        };
        // The declaration, when it is in this pack's own pack.toml.
        let declared = manifest_src.and_then(|m| {
            let header = m.text.find(&format!("[vocabulary.{kind}]"))?;
            find_word(&m.text, header, key).map(|sp| (m, sp))
        });
        out.push((
            key.clone(),
            match declared {
                Some((m, sp)) => diag.related(m, sp, "required here"),
                None => diag,
            },
        ));
    }
    out
}

/// One problem of one face.
struct Problem {
    message: String,
    /// The key as written (or the keyword).
    key: String,
    /// The spreadsheet column it is written in, on the front (`value.attack`, `keywords`).
    column: String,
    /// The key itself is not declared (not only its value wrong).
    undeclared: bool,
    hint: Option<String>,
}

/// Every problem of one face.
fn face_problems(v: &Vocabulary, face: &FaceKeys<'_>, kind: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    let problem = |message: String, key: &str, column: String, undeclared: bool, hint: Option<String>| Problem {
        message,
        key: key.to_string(),
        column,
        undeclared,
        hint,
    };
    let near = |word: &str, known: Vec<&str>| {
        did_you_mean(word, known.iter().copied()).map(|n| format!("did you mean `{n}`?")).or_else(|| {
            Some(format!(
                "add it to `[vocabulary.{kind}]` in pack.toml if it is meant (declared: {})",
                known.join(", ")
            ))
        })
    };
    if let Some(values) = &v.values {
        for (k, n) in face.values {
            match values.get(k) {
                None => out.push(problem(
                    format!("`{k}` is not a value {kind}s carry"),
                    k,
                    format!("value.{k}"),
                    true,
                    near(k, values.keys().map(String::as_str).collect()),
                )),
                Some(r) if r.len() == 2 && (*n < r[0] || *n > r[1]) => out.push(problem(
                    format!("`{k} = {n}` is outside its range, {} to {}", r[0], r[1]),
                    k,
                    format!("value.{k}"),
                    false,
                    None,
                )),
                Some(_) => {}
            }
        }
    }
    if let Some(attrs) = &v.attrs {
        for (k, text) in face.attrs {
            match attrs.get(k) {
                None => out.push(problem(
                    format!("`{k}` is not an attribute {kind}s carry"),
                    k,
                    format!("attr.{k}"),
                    true,
                    near(k, attrs.keys().map(String::as_str).collect()),
                )),
                Some(allowed) if !allowed.is_empty() && !allowed.contains(text) => out.push(problem(
                    format!("`{k} = \"{text}\"` is not one of {}", allowed.join(", ")),
                    k,
                    format!("attr.{k}"),
                    false,
                    did_you_mean(text, allowed.iter().map(String::as_str)).map(|n| format!("did you mean `{n}`?")),
                )),
                Some(_) => {}
            }
        }
    }
    if let Some(keywords) = &v.keywords {
        for k in face.keywords {
            if !keywords.contains(k) {
                out.push(problem(
                    format!("`{k}` is not a keyword {kind}s carry"),
                    k,
                    "keywords".into(),
                    false,
                    near(k, keywords.iter().map(String::as_str).collect()),
                ));
            }
        }
    }
    if let Some(costs) = &v.costs {
        for cost in &face.costs {
            for k in cost.keys() {
                if !costs.contains(k) {
                    out.push(problem(
                        format!("`{k}` is not a resource a {kind}'s cost may name"),
                        k,
                        format!("cost.{k}"),
                        true,
                        near(k, costs.iter().map(String::as_str).collect()),
                    ));
                }
            }
        }
    }
    if let Some(terrains) = &v.terrains {
        for &t in &face.terrains {
            if !terrains.iter().any(|k| k == t) {
                out.push(problem(
                    format!("`{t}` is not a terrain a {kind}'s cells may show"),
                    t,
                    "cells".into(),
                    false,
                    near(t, terrains.iter().map(String::as_str).collect()),
                ));
            }
        }
    }
    out
}

/// Point at the first whole-word occurrence of `word` after `from` (a definition's own
/// keys follow its start), else at `from`.
pub(super) fn locate(d: Diagnostic, f: &SourceFile, from: usize, word: &str) -> Diagnostic {
    let text = &f.text;
    let from = from.min(text.len());
    // In a spreadsheet a key is written once, in the header row (`value.atack`), above
    // the row of the definition: look there when the row does not hold it.
    let is_sheet = f.path.file_name().and_then(|n| n.to_str()).and_then(super::table::TableFormat::of).is_some();
    if is_sheet {
        if let Some(span) = find_word(text, from, word).or_else(|| find_word(text, 0, word)) {
            return d.at(f, span);
        }
        return d.at(f, from..from);
    }
    match find_word(text, from, word) {
        Some(span) => d.at(f, span),
        None => d.at(f, from..from),
    }
}

/// The first occurrence of `word` at or after `from` that is a whole word.
fn find_word(text: &str, from: usize, word: &str) -> Option<std::ops::Range<usize>> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut at = from;
    while let Some(i) = text.get(at..).and_then(|t| t.find(word)) {
        let start = at + i;
        let end = start + word.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return Some(start..end);
        }
        at = end;
    }
    None
}

/// A table's value, when it is one.
pub(super) fn table<'a>(v: &toml::Spanned<toml::de::DeValue<'a>>) -> Option<toml::de::DeTable<'a>> {
    match v.get_ref() {
        toml::de::DeValue::Table(t) => Some(t.clone()),
        _ => None,
    }
}

/// The table of one face of a definition in its parsed file (`face`: "" for the
/// definition itself, `stage front-bottom` or `back`).
pub(super) fn face_table<'a>(
    root: &toml::Spanned<toml::de::DeTable<'a>>,
    def: &Def,
    face: &str,
) -> Option<toml::de::DeTable<'a>> {
    use toml::de::DeValue;
    let item = root.get_ref().values().find_map(|v| match v.get_ref() {
        DeValue::Array(a) => a.iter().find(|i| i.span() == def.origin.span).cloned(),
        _ => None,
    })?;
    let item = table(&item)?;
    match face.strip_prefix("stage ") {
        _ if face.is_empty() => Some(item),
        Some(position) => match item.get("stages")?.get_ref() {
            DeValue::Array(stages) => stages.iter().filter_map(table).find(|st| {
                st.get("position").is_some_and(|v| matches!(v.get_ref(), DeValue::String(s) if s == position))
            }),
            _ => None,
        },
        None => table(item.get("back")?),
    }
}

/// Where a face's problem is written in the definition's TOML table: an undeclared key at
/// itself in its table (the `atack` of `values = { atack = 2 }`), a value out of its range
/// or list at the value, a keyword at its item; never the same word elsewhere in the
/// card (its text, say). `None` when the table cannot be read back.
fn key_span(
    f: &SourceFile,
    def: &Def,
    face: &str,
    (column, key, undeclared): (&str, &str, bool),
) -> Option<std::ops::Range<usize>> {
    use toml::de::{DeTable, DeValue};
    use toml::Spanned;
    let root = DeTable::parse(&f.text).ok()?;
    let face_table = face_table(&root, def, face)?;
    // The tables the problem's column names: a stage's costs are its upgrades'.
    let (field, _) = column.split_once('.').unwrap_or((column, ""));
    let field = match field {
        "value" => "values",
        "attr" => "attrs",
        other => other,
    };
    let mut holders = Vec::new();
    match (field, face_table.get("upgrades").map(Spanned::get_ref)) {
        ("cost", Some(DeValue::Array(ups))) if face.starts_with("stage ") => {
            holders.extend(ups.iter().filter_map(table).filter_map(|u| u.get("cost").cloned()));
        }
        _ => holders.extend(face_table.get(field).cloned()),
    }
    for holder in holders {
        match holder.get_ref() {
            DeValue::Table(t) => {
                if let Some((k, v)) = t.iter().find(|(k, _)| k.get_ref() == key) {
                    return Some(if undeclared { k.span() } else { v.span() });
                }
            }
            DeValue::Array(items) if field == "cells" => {
                let terrain = |c: DeTable<'_>| {
                    let v = c.get("terrain")?;
                    matches!(v.get_ref(), DeValue::String(s) if s == key).then(|| v.span())
                };
                if let Some(span) = items.iter().filter_map(table).find_map(terrain) {
                    let inner = span.start + 1..span.end.saturating_sub(1);
                    return Some(if f.text.get(inner.clone()) == Some(key) { inner } else { span });
                }
            }
            DeValue::Array(items) => {
                if let Some(v) = items.iter().find(|v| matches!(v.get_ref(), DeValue::String(s) if s == key)) {
                    // The keyword inside its quotes, when written as it reads.
                    let inner = v.span().start + 1..v.span().end.saturating_sub(1);
                    return Some(if f.text.get(inner.clone()) == Some(key) { inner } else { v.span() });
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ranges_texts_keywords_and_costs_are_checked_with_suggestions() {
        let v: Vocabulary = toml::from_str(
            "values = { attack = [0, 3], any = [] }\nattrs = { start = [\"hand\", \"kingdom\"], note = [] }\nkeywords = [\"troops\"]\ncosts = [\"wood\"]\nterrains = [\"forest\", \"lake\"]",
        )
        .unwrap();
        let values = BTreeMap::from([("atack".to_string(), 1), ("attack".to_string(), 5), ("any".to_string(), -40)]);
        let attrs = BTreeMap::from([("start".to_string(), "hnd".to_string()), ("note".to_string(), "x".to_string())]);
        let cost = BTreeMap::from([("wod".to_string(), 1)]);
        let face = FaceKeys {
            name: String::new(),
            values: &values,
            attrs: &attrs,
            keywords: &["trops".to_string()],
            costs: vec![&cost],
            terrains: vec!["forest", "forrest"],
        };
        let got: Vec<String> = face_problems(&v, &face, "card")
            .into_iter()
            .map(|p| format!("{} {}: {} ({})", p.column, p.key, p.message, p.hint.unwrap_or_default()))
            .collect();
        assert_eq!(
            got,
            [
                "value.atack atack: `atack` is not a value cards carry (did you mean `attack`?)",
                "value.attack attack: `attack = 5` is outside its range, 0 to 3 ()",
                "attr.start start: `start = \"hnd\"` is not one of hand, kingdom (did you mean `hand`?)",
                "keywords trops: `trops` is not a keyword cards carry (did you mean `troops`?)",
                "cost.wod wod: `wod` is not a resource a card's cost may name (did you mean `wood`?)",
                "cells forrest: `forrest` is not a terrain a card's cells may show (did you mean `forest`?)",
            ]
        );
    }
    /// A range's ends are inside it; one past either end is not.
    #[test]
    fn a_range_holds_its_ends_and_nothing_past_them() {
        let v: Vocabulary = toml::from_str("values = { attack = [0, 3] }").unwrap();
        let outside = |n: i64| {
            let values = BTreeMap::from([("attack".to_string(), n)]);
            let attrs = BTreeMap::new();
            let face = FaceKeys {
                name: String::new(),
                values: &values,
                attrs: &attrs,
                keywords: &[],
                costs: vec![],
                terrains: vec![],
            };
            !face_problems(&v, &face, "card").is_empty()
        };
        assert!(!outside(0) && !outside(3), "the ends are inside");
        assert!(outside(4) && outside(-1), "one past either end is outside");
    }

    #[test]
    fn a_required_value_is_needed_on_every_face_that_can_be_up() {
        let v: Vocabulary =
            toml::from_str("values = { attack = { min = 0, max = 3, required = true }, any = [] }").unwrap();
        let file: crate::content::model::CardFile = toml::from_str(
            r#"
[[card]]
id = "plain"
name = "P"
values = { attack = 1 }
[[card]]
id = "bare"
name = "B"
values = { any = 1 }
[[card]]
id = "two-sided"
name = "T"
values = { attack = 1 }
back = { name = "Back" }
[[card]]
id = "staged"
name = "S"
values = { attack = 1 }
[[card.stages]]
position = "front-top"
name = "A"
values = { attack = 1 }
[[card.stages]]
position = "back-top"
name = "B"
[[card.stages]]
position = "back-bottom"
name = "C"
"#,
        )
        .unwrap();
        let origin =
            crate::content::Origin { file: "c.toml".into(), span: 0..0, id_span: 0..0, pack: "p".into(), nth: 0 };
        let got: Vec<String> = file
            .card
            .into_iter()
            .flat_map(|def| {
                let d = Def { kind: DefKind::Card, def, origin: origin.clone(), script: None };
                missing_required(&v, &d, None, None)
            })
            .map(|(_, d)| d.message)
            .collect();
        assert_eq!(
            got,
            [
                "`bare` has no value `attack`, which every card must carry",
                "`two-sided` has no value `attack` on its back, which every card must carry",
                "`staged` has no value `attack` on its stages back-top, back-bottom, which every card must carry",
            ]
        );
        // The table form keeps its own mistakes apart.
        let err = |t: &str| toml::from_str::<Vocabulary>(t).unwrap_err().to_string();
        assert!(err("values = { a = { min = 1 } }").contains("give both `min` and `max`"));
        assert!(err("values = { a = { min = 0, max = 1, requird = true } }").contains("unknown field `requird`"));
        let any: Vocabulary = toml::from_str("values = { a = { required = true } }").unwrap();
        assert!(any.values.unwrap()["a"].is_empty());
    }
}
