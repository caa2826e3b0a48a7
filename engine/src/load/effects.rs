//! The effects a definition lists (`effects = [{ ... }]` on the definition, a stage or a
//! back), checked against the fields its kind's vocabulary declares
//! (`[vocabulary.<kind>.effects]`): a field no declaration names, a word not among its
//! field's words, a number out of range, a value of the wrong shape or a required field
//! left out is an error at its own line and column, with the nearest declared name. The
//! declarations are checked first (a range of two numbers in order, each setting on a type
//! that takes it).

use std::collections::BTreeMap;
use std::ops::Range;

use crate::content::model::PackManifest;
use crate::content::vocabulary::{Entry, Field, FieldSpec, FieldType};
use crate::content::Def;
use crate::diag::{did_you_mean, Diagnostic, SourceFile, SourceMap};

/// One step from a face's table to the part of an effect a problem is about.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    /// An entry of a list of entries (an effect, an action).
    Entry(usize),
    /// An item of a list of words or numbers.
    Item(usize),
}

/// One problem of one face's effects.
#[derive(Debug)]
struct Problem {
    message: String,
    hint: Option<String>,
    /// From the face's table: `effects`, the entry, its field...
    path: Vec<Step>,
    /// The problem is the key itself (a field no declaration names), not its value.
    at_key: bool,
}

/// What the checks of one definition know.
struct Ctx<'a> {
    kind: &'a str,
    /// The faces an effect may turn the card to (`type = "stage"`).
    stages: Vec<&'a str>,
}

/// Every problem of the vocabularies' `effects` declarations, then of each definition's
/// effects against its kind's.
pub fn check(
    manifest: &PackManifest,
    manifest_src: Option<&SourceFile>,
    defs: &[Def],
    sources: &SourceMap,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (kind, v) in &manifest.vocabulary {
        let Some(fields) = &v.effects else { continue };
        let mut found = Vec::new();
        declaration_problems(fields, &format!("[vocabulary.{kind}.effects]"), &mut found);
        for (name, message) in found {
            let d = Diagnostic::error("vocabulary", message);
            out.push(match manifest_src {
                Some(f) => {
                    let from = f.text.find(&format!("[vocabulary.{kind}")).unwrap_or(0);
                    super::vocabulary::locate(d, f, from, &name)
                }
                None => d,
            });
        }
    }
    for def in defs {
        let Some(fields) = manifest.vocabulary.get(def.kind.as_str()).and_then(|v| v.effects.as_ref()) else {
            continue;
        };
        let d = &def.def;
        let stages: Vec<&str> = if d.stages.is_empty() {
            if d.back.is_some() {
                vec!["front", "back"]
            } else {
                vec!["front"]
            }
        } else {
            d.stages.iter().map(|s| s.position.as_str()).collect()
        };
        let ctx = Ctx { kind: def.kind.as_str(), stages };
        let mut faces: Vec<(String, &[Entry])> = vec![(String::new(), &d.effects)];
        faces.extend(d.stages.iter().map(|s| (format!("stage {}", s.position.as_str()), &s.effects[..])));
        faces.extend(d.back.iter().map(|b| ("back".to_string(), &b.effects[..])));
        let src = sources.get(&def.origin.file);
        for (face, effects) in faces {
            let mut found = Vec::new();
            for (i, e) in effects.iter().enumerate() {
                let path = vec![Step::Key("effects".into()), Step::Entry(i)];
                check_entry(&ctx, e, fields, "an effect", &path, &mut found);
            }
            for p in found {
                let on = if face.is_empty() { String::new() } else { format!(" ({face})") };
                let diag =
                    Diagnostic::error("vocabulary", format!("`{}`{on}, {}: {}", d.id, place(&p.path), p.message))
                        .maybe_hint(p.hint);
                out.push(match src {
                    Some(f) => match span_of(f, def, &face, &p.path, p.at_key) {
                        Some(span) => diag.at(f, span),
                        None => diag.at(f, def.origin.id_span.clone()),
                    },
                    None => diag.in_file(def.origin.file.clone()),
                });
            }
        }
    }
    out
}

/// "effect 2", "effect 2, entry 1 of `actions`".
fn place(path: &[Step]) -> String {
    let mut out = String::new();
    let mut key = "";
    for step in path {
        match step {
            Step::Key(k) => key = k,
            Step::Entry(i) if out.is_empty() => out = format!("effect {}", i + 1),
            Step::Entry(i) => out.push_str(&format!(", entry {} of `{key}`", i + 1)),
            Step::Item(_) => {}
        }
    }
    out
}

/// A declaration's mistakes, each with the field's name (where to point) and the message.
fn declaration_problems(fields: &BTreeMap<String, FieldSpec>, at: &str, out: &mut Vec<(String, String)>) {
    for (name, spec) in fields {
        let ty = format!("{:?}", spec.ty).to_lowercase();
        let mut bad = |what: String| out.push((name.clone(), format!("`{at}` field `{name}`: {what}")));
        if !(spec.range.is_empty() || (spec.range.len() == 2 && spec.range[0] <= spec.range[1])) {
            bad("a range is `[min, max]` with min <= max, or left out for any whole number".into());
        }
        let takes_words = matches!(spec.ty, FieldType::Word | FieldType::Words | FieldType::Counts);
        let takes_range = matches!(spec.ty, FieldType::Number | FieldType::Numbers | FieldType::Counts);
        if !spec.words.is_empty() && !takes_words {
            bad(format!("a field of type `{ty}` takes no `words` (only word, words and counts do)"));
        }
        if !spec.range.is_empty() && !takes_range {
            bad(format!("a field of type `{ty}` takes no `range` (only number, numbers and counts do)"));
        }
        match (spec.ty, spec.fields.is_empty()) {
            (FieldType::Entries, true) => bad("a list of entries declares their `fields`".into()),
            (FieldType::Entries, false) => declaration_problems(&spec.fields, &format!("{at}.{name}"), out),
            (_, false) => bad(format!("a field of type `{ty}` takes no `fields` (only entries do)")),
            (_, true) => {}
        }
    }
}

/// `did you mean `x`?`, else the names declared.
fn near(word: &str, known: &[&str], declared: &str) -> Option<String> {
    did_you_mean(word, known.iter().copied())
        .map(|n| format!("did you mean `{n}`?"))
        .or_else(|| Some(format!("{declared}: {}", known.join(", "))))
}

/// One entry against the fields declared for it (`what`: "an effect", "an entry of `actions`").
fn check_entry(
    ctx: &Ctx<'_>,
    entry: &Entry,
    fields: &BTreeMap<String, FieldSpec>,
    what: &str,
    path: &[Step],
    out: &mut Vec<Problem>,
) {
    let with = |step: Step| {
        let mut p = path.to_vec();
        p.push(step);
        p
    };
    for (name, value) in entry {
        match fields.get(name) {
            None => {
                let known: Vec<&str> = fields.keys().map(String::as_str).collect();
                out.push(Problem {
                    message: format!("`{name}` is not a field of {what}"),
                    hint: near(name, &known, &format!("the fields `[vocabulary.{}.effects]` declares", ctx.kind)),
                    path: with(Step::Key(name.clone())),
                    at_key: true,
                });
            }
            Some(spec) => check_field(ctx, name, value, spec, &with(Step::Key(name.clone())), out),
        }
    }
    for (name, spec) in fields {
        if spec.required && !entry.contains_key(name) {
            out.push(Problem {
                message: format!("{what} has no `{name}`, which every one must carry"),
                hint: Some(format!("add `{name} = ...` ({})", spec.ty.what())),
                path: path.to_vec(),
                at_key: false,
            });
        }
    }
}

/// One field's value against its declaration.
fn check_field(ctx: &Ctx<'_>, name: &str, value: &Field, spec: &FieldSpec, path: &[Step], out: &mut Vec<Problem>) {
    let at = |i: usize| {
        let mut p = path.to_vec();
        p.push(if spec.ty == FieldType::Entries { Step::Entry(i) } else { Step::Item(i) });
        p
    };
    let wrong = |path: Vec<Step>, written: &Field, what: &str| Problem {
        message: format!("`{name}` holds {what}, not {}", written.what()),
        hint: None,
        path,
        at_key: false,
    };
    match (spec.ty, value) {
        (FieldType::Word, Field::Word(w)) => word(ctx, name, w, spec, path.to_vec(), out),
        (FieldType::Stage, Field::Word(w)) => {
            if !ctx.stages.contains(&w.as_str()) {
                out.push(Problem {
                    message: format!("`{name} = \"{w}\"` is not a stage of this card ({})", ctx.stages.join(", ")),
                    hint: did_you_mean(w, ctx.stages.iter().copied()).map(|n| format!("did you mean `{n}`?")),
                    path: path.to_vec(),
                    at_key: false,
                });
            }
        }
        (FieldType::Number, Field::Number(n)) => range(name, *n, spec, path.to_vec(), out),
        (FieldType::Flag, Field::Flag(_)) => {}
        (FieldType::Words | FieldType::Numbers | FieldType::Entries, Field::List(items)) => {
            for (i, item) in items.iter().enumerate() {
                match (spec.ty, item) {
                    (FieldType::Words, Field::Word(w)) => word(ctx, name, w, spec, at(i), out),
                    (FieldType::Numbers, Field::Number(n)) => range(name, *n, spec, at(i), out),
                    (FieldType::Entries, Field::Table(e)) => {
                        check_entry(ctx, e, &spec.fields, &format!("an entry of `{name}`"), &at(i), out)
                    }
                    (ty, x) => out.push(wrong(at(i), x, ty.what())),
                }
            }
        }
        (FieldType::Counts, Field::Table(counts)) => {
            for (k, x) in counts {
                let mut p = path.to_vec();
                p.push(Step::Key(k.clone()));
                if !spec.words.is_empty() && !spec.words.contains(k) {
                    let known: Vec<&str> = spec.words.iter().map(String::as_str).collect();
                    out.push(Problem {
                        message: format!("`{k}` is not a word `{name}` may count"),
                        hint: near(k, &known, &format!("the words `{name}` may count")),
                        path: p.clone(),
                        at_key: true,
                    });
                }
                match x {
                    Field::Number(n) => range(&format!("{name}.{k}"), *n, spec, p, out),
                    other => out.push(wrong(p, other, "whole numbers")),
                }
            }
        }
        (ty, x) => out.push(wrong(path.to_vec(), x, ty.what())),
    }
}

fn word(ctx: &Ctx<'_>, name: &str, w: &str, spec: &FieldSpec, path: Vec<Step>, out: &mut Vec<Problem>) {
    if spec.words.is_empty() || spec.words.iter().any(|x| x == w) {
        return;
    }
    let known: Vec<&str> = spec.words.iter().map(String::as_str).collect();
    out.push(Problem {
        message: format!("`{w}` is not a word `{name}` may hold"),
        hint: near(w, &known, &format!("the words `[vocabulary.{}.effects]` declares for `{name}`", ctx.kind)),
        path,
        at_key: false,
    });
}

fn range(name: &str, n: i64, spec: &FieldSpec, path: Vec<Step>, out: &mut Vec<Problem>) {
    if let [min, max] = spec.range[..] {
        if n < min || n > max {
            out.push(Problem {
                message: format!("`{name} = {n}` is outside its range, {min} to {max}"),
                hint: None,
                path,
                at_key: false,
            });
        }
    }
}

/// Where a problem is written: the face's table read again from the file, then each step
/// of the path (the key itself when the key is the problem).
fn span_of(f: &SourceFile, def: &Def, face: &str, path: &[Step], at_key: bool) -> Option<Range<usize>> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(&f.text).ok()?;
    let face_table = super::vocabulary::face_table(&root, def, face)?;
    let (Step::Key(first), rest) = path.split_first()? else { return None };
    let mut cur = face_table.get(first.as_str())?.clone();
    for (i, step) in rest.iter().enumerate() {
        let next = match (step, cur.get_ref()) {
            (Step::Key(k), DeValue::Table(t)) => {
                let (key, value) = t.iter().find(|(key, _)| key.get_ref() == k)?;
                if at_key && i + 1 == rest.len() {
                    return Some(key.span());
                }
                value.clone()
            }
            (Step::Entry(n) | Step::Item(n), DeValue::Array(items)) => items.get(*n)?.clone(),
            _ => return None,
        };
        cur = next;
    }
    // A word at itself, inside its quotes, when written as it reads.
    let span = cur.span();
    if let DeValue::String(w) = cur.get_ref() {
        let inner = span.start + 1..span.end.saturating_sub(1);
        if f.text.get(inner.clone()) == Some(w.as_ref()) {
            return Some(inner);
        }
    }
    Some(span)
}

#[cfg(test)]
mod tests {
    use crate::load::{load_pack, LoadOptions, Project};

    /// A pack of one card whose effects hold the given text, its vocabulary declaring
    /// them; the errors as `line:column message (hint)`.
    fn errors(tag: &str, card: &str) -> Vec<String> {
        let root = std::env::temp_dir().join(format!("crown-effects-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "content/p/pack.toml",
            r#"id = "p"
name = "P"
version = "1"
players = { min = 1, max = 1 }

[vocabulary.card.effects]
kind = { type = "word", words = ["passive", "activated"], required = true }
once = { type = "flag" }
pay = { type = "counts", words = ["wood", "stone"], range = [1, 9] }

[vocabulary.card.effects.actions]
type = "entries"
required = true

[vocabulary.card.effects.actions.fields]
act = { type = "word", words = ["gain", "turn"], required = true }
res = { type = "words", words = ["wood", "stone"] }
n = { type = "number", range = [1, 9] }
to = { type = "stage" }
"#,
        );
        write("scripts/p/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n");
        write("content/p/cards/c.toml", card);
        let loaded = load_pack(&Project::new(&root), "p", LoadOptions::default());
        let _ = std::fs::remove_dir_all(&root);
        loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                // The hint's first line (a note of what follows from the error may come after).
                let hint = d.hint.as_deref().unwrap_or("").lines().next().unwrap_or("");
                format!("{}:{} {} ({hint})", d.line, d.column, d.message)
            })
            .collect()
    }

    const CARD: &str = r#"[[card]]
id = "pinewood"
name = "Pinewood"

[[card.stages]]
position = "front-top"
name = "Pinewood"
effects = [
    { kind = "activated", actions = [{ act = "gain", res = ["wood"], n = 3 }, { act = "turn", to = "front-bottom" }] },
    { kind = "passive", once = true, pay = { stone = 1 }, actions = [{ act = "gain", res = ["wood", "stone"], n = 1 }] },
]

[[card.stages]]
position = "front-bottom"
name = "Clearing"
"#;

    #[test]
    fn declared_effects_load_clean() {
        assert_eq!(errors("clean", CARD), Vec::<String>::new());
    }

    #[test]
    fn a_misspelt_field_or_word_is_an_error_at_its_line_and_column() {
        let card = CARD
            .replace("act = \"gain\", res = [\"wood\"]", "act = \"gian\", res = [\"wood\"]")
            .replace("{ kind = \"passive\", once", "{ knid = \"passive\", once")
            .replace("res = [\"wood\", \"stone\"]", "res = [\"wood\", \"stnoe\"]")
            .replace("to = \"front-bottom\"", "to = \"back-top\"")
            .replace("pay = { stone = 1 }", "pay = { stone = 12 }")
            .replace("n = 3 }", "n = \"three\" }");
        assert_eq!(
            errors("misspelt", &card),
            [
                "9:47 `pinewood` (stage front-top), effect 1, entry 1 of `actions`: `gian` is not a word `act` may hold (did you mean `gain`?)",
                "9:75 `pinewood` (stage front-top), effect 1, entry 1 of `actions`: `n` holds a whole number, not a word ()",
                "9:107 `pinewood` (stage front-top), effect 1, entry 2 of `actions`: `to = \"back-top\"` is not a stage of this card (front-top, front-bottom) ()",
                "10:5 `pinewood` (stage front-top), effect 2: an effect has no `kind`, which every one must carry (add `kind = ...` (a word))",
                "10:7 `pinewood` (stage front-top), effect 2: `knid` is not a field of an effect (did you mean `kind`?)",
                "10:54 `pinewood` (stage front-top), effect 2: `pay.stone = 12` is outside its range, 1 to 9 ()",
                "10:103 `pinewood` (stage front-top), effect 2, entry 1 of `actions`: `stnoe` is not a word `res` may hold (did you mean `stone`?)",
            ]
        );
    }

    #[test]
    fn a_declaration_with_a_range_out_of_order_is_an_error_at_the_field() {
        let mut found = Vec::new();
        let fields: std::collections::BTreeMap<String, super::FieldSpec> =
            toml::from_str("n = { type = \"number\", range = [9, 1] }\nkind = { type = \"flag\", words = [\"a\"] }")
                .unwrap();
        super::declaration_problems(&fields, "[vocabulary.card.effects]", &mut found);
        let got: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(
            got,
            [
                "`[vocabulary.card.effects]` field `kind`: a field of type `flag` takes no `words` (only word, words and counts do)",
                "`[vocabulary.card.effects]` field `n`: a range is `[min, max]` with min <= max, or left out for any whole number",
            ]
        );
    }
}
