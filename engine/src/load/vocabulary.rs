//! The pack's declared vocabulary (`[vocabulary.<kind>]` in `pack.toml`): every value
//! key, attribute, keyword and cost resource a definition carries, on any face, must be
//! one the vocabulary of its kind lists, within its range. A misspelt key in a card file
//! (`atack = 2`) is then an error at load, at its line, with the nearest declared key,
//! instead of a value no script ever reads.

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
}

fn faces(def: &crate::content::model::Definition) -> Vec<FaceKeys<'_>> {
    let mut out = vec![FaceKeys {
        name: String::new(),
        values: &def.values,
        attrs: &def.attrs,
        keywords: &def.keywords,
        costs: vec![&def.cost],
    }];
    for st in &def.stages {
        out.push(FaceKeys {
            name: format!("stage {}", st.position.as_str()),
            values: &st.values,
            attrs: &st.attrs,
            keywords: &st.keywords,
            costs: st.upgrades.iter().map(|u| &u.cost).collect(),
        });
    }
    if let Some(b) = &def.back {
        out.push(FaceKeys {
            name: "back".into(),
            values: &b.values,
            attrs: &b.attrs,
            keywords: &[],
            costs: vec![&b.cost],
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
                d = Some(Diagnostic::error(
                    "vocabulary",
                    format!("`[vocabulary.{kind}]` value `{key}`: a range is `[min, max]` with min <= max, or `[]`"),
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
    for def in defs {
        let Some(v) = manifest.vocabulary.get(def.kind.as_str()) else { continue };
        let src = sources.get(&def.origin.file);
        for face in faces(&def.def) {
            for p in face_problems(v, &face, def.kind.as_str()) {
                let on = if face.name.is_empty() { String::new() } else { format!(" ({})", face.name) };
                let d =
                    Diagnostic::error("vocabulary", format!("`{}`{on}: {}", def.def.id, p.message)).maybe_hint(p.hint);
                let Some(f) = src else {
                    out.push(d.in_file(def.origin.file.clone()));
                    continue;
                };
                let is_sheet = f.path.file_name().and_then(|n| n.to_str()).and_then(TableFormat::of).is_some();
                if !is_sheet {
                    out.push(locate(d, f, def.origin.span.start, &p.key));
                    continue;
                }
                let sheet = sheets.entry(&def.origin.file).or_insert_with(|| Sheet::from_shown(&f.text));
                let column = if face.name == "back" { format!("back.{}", p.column) } else { p.column.clone() };
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
    out
}

/// Point at the first whole-word occurrence of `word` after `from` (a definition's own
/// keys follow its start), else at `from`.
fn locate(d: Diagnostic, f: &SourceFile, from: usize, word: &str) -> Diagnostic {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ranges_texts_keywords_and_costs_are_checked_with_suggestions() {
        let v: Vocabulary = toml::from_str(
            "values = { attack = [0, 3], any = [] }\nattrs = { start = [\"hand\", \"kingdom\"], note = [] }\nkeywords = [\"troops\"]\ncosts = [\"wood\"]",
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
            ]
        );
    }
}
