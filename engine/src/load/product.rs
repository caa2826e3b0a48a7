//! Definitions made as a product of lists: a `[[product]]` table of a definition file
//! names lists (suits, ranks) and a template of one definition whose texts name the lists'
//! items (`id = "{suit.id}-{rank.id}"`). One definition is made for every combination of
//! items, first list outermost, and each is then checked as a written one would be, its
//! problems shown at the template's lines.
//!
//! ```toml
//! [[product]]
//! suit = [{ id = "clubs", name = "Clubs" }, { id = "hearts", name = "Hearts" }]
//! rank = [{ id = "2", name = "2", value = 2 }, { id = "ace", name = "Ace", value = 14 }]
//!
//! [product.card]
//! id = "{suit.id}-{rank.id}"
//! name = "{rank.name} of {suit.name}"
//! values = { rank = "{rank.value}" }   # a text that is one placeholder takes the item's value as it is
//! ```

use std::borrow::Cow;
use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::diag::{did_you_mean, Diagnostic, SourceFile};

/// The most definitions one product may make.
pub(super) const MOST: usize = 10_000;

/// One list of a product: its name, where the name is written, and its items.
struct List<'a, 'i> {
    name: &'a str,
    items: &'a [Spanned<DeValue<'i>>],
}

/// The definitions a `[[product]]` table makes, in order (first list outermost), each with
/// the template's spans; or the problems that keep it from making any.
pub(super) fn expand<'i>(
    table_key: &str,
    product: &Spanned<DeValue<'i>>,
    src: &SourceFile,
) -> Result<Vec<Spanned<DeValue<'i>>>, Vec<Diagnostic>> {
    let err = |msg: String, span: Range<usize>| Diagnostic::error("bad-product", msg).at(src, span);
    let DeValue::Table(table) = product.get_ref() else {
        return Err(vec![err("a `product` must be a table: write it as `[[product]]`".into(), product.span()).hint(
            format!(
            "see \"Decks as products\" in the designer's guide: lists of items and a `[product.{table_key}]` template"
        ),
        )]);
    };
    let mut diags = Vec::new();
    let mut template = None;
    let mut template_misspelt = false;
    let mut lists: Vec<(Range<usize>, List<'_, 'i>)> = Vec::new();
    for (k, v) in table.iter() {
        let name = k.get_ref().as_ref();
        if name == table_key {
            template = Some(v);
            continue;
        }
        if let DeValue::Table(_) = v.get_ref() {
            // A table that is not the template: the template's name misspelt.
            diags.push(
                err(format!("`[product.{name}]` is not a list, and the template of a product in this file is `[product.{table_key}]`"), k.span())
                    .hint(format!("{}write the lists as `{name} = [...]`", did_you_mean(name, [table_key]).map(|s| format!("did you mean `{s}`? ")).unwrap_or_default())),
            );
            template_misspelt = true;
            continue;
        }
        let DeValue::Array(items) = v.get_ref() else {
            diags.push(
                err(format!("`{name}` of a product must be a list of its items"), v.span()).hint(format!(
                    "write `{name} = [...]` (texts, numbers or tables of fields), or `[product.{table_key}]` for the template{}",
                    did_you_mean(name, [table_key]).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
                )),
            );
            continue;
        };
        if items.is_empty() {
            diags.push(err(format!("the list `{name}` is empty, so the product makes nothing"), v.span()));
            continue;
        }
        let tables = items.iter().filter(|i| matches!(i.get_ref(), DeValue::Table(_))).count();
        if tables != 0 && tables != items.len() {
            diags.push(
                err(format!("the items of `{name}` must all be tables, or all plain values"), v.span())
                    .hint("a template names a table's field as `{list.field}` and a plain item as `{list}`"),
            );
            continue;
        }
        lists.push((k.span(), List { name, items }));
    }
    let Some(template) = template else {
        if template_misspelt {
            return Err(diags);
        }
        diags.push(
            err(format!("this product has no `[product.{table_key}]` template"), product.span())
                .hint(format!("add `[product.{table_key}]` with the fields of one {table_key}, naming the lists' items as `{{list.field}}`")),
        );
        return Err(diags);
    };
    if lists.is_empty() && diags.is_empty() {
        diags.push(err("this product names no list to make its definitions from".into(), product.span()));
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    // The lists in the order they are written (the table keeps its keys in name order).
    lists.sort_by_key(|(span, _)| span.start);
    let lists: Vec<List<'_, 'i>> = lists.into_iter().map(|(_, l)| l).collect();
    let total = lists.iter().try_fold(1usize, |n, l| n.checked_mul(l.items.len())).unwrap_or(usize::MAX);
    if total > MOST {
        return Err(vec![err(
            format!("this product makes {total} definitions, more than the {MOST} one product may make"),
            product.span(),
        )]);
    }
    // Check every placeholder once, against the first item of each list.
    let first: Vec<usize> = vec![0; lists.len()];
    let mut problems = Vec::new();
    fill(template, &lists, &first, src, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut out = Vec::with_capacity(total);
    let mut at = first;
    for _ in 0..total {
        out.push(fill(template, &lists, &at, src, &mut problems));
        // The last list turns fastest.
        for i in (0..at.len()).rev() {
            at[i] += 1;
            if at[i] < lists[i].items.len() {
                break;
            }
            at[i] = 0;
        }
    }
    Ok(out)
}

/// The template with every placeholder filled from the items at `at`.
fn fill<'i>(
    v: &Spanned<DeValue<'i>>,
    lists: &[List<'_, 'i>],
    at: &[usize],
    src: &SourceFile,
    problems: &mut Vec<Diagnostic>,
) -> Spanned<DeValue<'i>> {
    let span = v.span();
    match v.get_ref() {
        DeValue::String(s) => fill_text(s, span, lists, at, src, problems),
        DeValue::Array(a) => {
            let mut out = a.clone();
            for (o, e) in out.iter_mut().zip(a.iter()) {
                *o = fill(e, lists, at, src, problems);
            }
            Spanned::new(span, DeValue::Array(out))
        }
        DeValue::Table(t) => {
            let mut out = DeTable::new();
            for (k, e) in t.iter() {
                out.insert(k.clone(), fill(e, lists, at, src, problems));
            }
            Spanned::new(span, DeValue::Table(out))
        }
        _ => v.clone(),
    }
}

/// A text of the template: one that is a single placeholder takes the item's value (a
/// number stays a number); any other has each placeholder replaced by the item's text.
fn fill_text<'i>(
    s: &str,
    span: Range<usize>,
    lists: &[List<'_, 'i>],
    at: &[usize],
    src: &SourceFile,
    problems: &mut Vec<Diagnostic>,
) -> Spanned<DeValue<'i>> {
    let places = placeholders(s);
    if places.is_empty() {
        return Spanned::new(span, DeValue::String(Cow::Owned(s.to_string())));
    }
    if let [(r, name)] = places.as_slice() {
        if *r == (0..s.len()) {
            return match item_value(name, lists, at) {
                Ok(v) => Spanned::new(span, v),
                Err(msg) => {
                    problems.push(placeholder_problem(msg, name, &span, s, r, lists, src));
                    Spanned::new(span, DeValue::String(Cow::Owned(s.to_string())))
                }
            };
        }
    }
    let mut text = String::with_capacity(s.len());
    let mut last = 0;
    for (r, name) in &places {
        text.push_str(&s[last..r.start]);
        match item_value(name, lists, at)
            .and_then(|v| as_text(&v).ok_or_else(|| format!("`{name}` is not a text or a number")))
        {
            Ok(t) => text.push_str(&t),
            Err(msg) => problems.push(placeholder_problem(msg, name, &span, s, r, lists, src)),
        }
        last = r.end;
    }
    text.push_str(&s[last..]);
    Spanned::new(span, DeValue::String(Cow::Owned(text)))
}

/// The places of `{name}` and `{name.field}` in a text (names of letters, digits, `_` and
/// `-`): the byte range of each, braces included, and the name inside.
fn placeholders(s: &str) -> Vec<(Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = s[from..].find('{').map(|i| from + i) {
        let Some(close) = s[open..].find('}').map(|i| open + i) else { break };
        let inner = &s[open + 1..close];
        let word = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if inner.split('.').count() <= 2 && inner.split('.').all(word) {
            out.push((open..close + 1, inner));
        }
        from = close + 1;
    }
    out
}

/// The value a placeholder names, for the items at `at`.
fn item_value<'i>(name: &str, lists: &[List<'_, 'i>], at: &[usize]) -> Result<DeValue<'i>, String> {
    let (list, field) = name.split_once('.').map_or((name, None), |(l, f)| (l, Some(f)));
    let Some(i) = lists.iter().position(|l| l.name == list) else {
        return Err(format!("no list of this product is called `{list}`"));
    };
    let item = lists[i].items[at[i]].get_ref();
    match (item, field) {
        (DeValue::Table(t), Some(f)) => t
            .get(f)
            .map(|v| v.get_ref().clone())
            .ok_or_else(|| format!("the item {} of `{list}` has no field `{f}`", at[i] + 1)),
        (DeValue::Table(_), None) => {
            Err(format!("the items of `{list}` are tables: name one of their fields, `{{{list}.field}}`"))
        }
        (_, Some(f)) => Err(format!("the items of `{list}` are plain values, with no field `{f}`: write `{{{list}}}`")),
        (v, None) => Ok(v.clone()),
    }
}

/// A plain value as text, as it would be written.
fn as_text(v: &DeValue<'_>) -> Option<String> {
    match v {
        DeValue::String(s) => Some(s.to_string()),
        DeValue::Integer(n) => {
            Some(i64::from_str_radix(n.as_str(), n.radix()).map_or_else(|_| n.as_str().to_string(), |n| n.to_string()))
        }
        DeValue::Float(f) => Some(f.as_str().to_string()),
        DeValue::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A placeholder that names nothing, at the placeholder itself (inside the template's text).
fn placeholder_problem(
    msg: String,
    name: &str,
    span: &Range<usize>,
    s: &str,
    at: &Range<usize>,
    lists: &[List<'_, '_>],
    src: &SourceFile,
) -> Diagnostic {
    // The text is written in quotes in the file: a placeholder without escapes before it
    // starts one byte past the opening quote.
    let written = src.text.get(span.clone()).unwrap_or("");
    let place = match written.find(&s[at.clone()]) {
        Some(i) => span.start + i..span.start + i + at.len(),
        None => span.clone(),
    };
    let list = name.split_once('.').map_or(name, |(l, _)| l);
    let near = did_you_mean(list, lists.iter().map(|l| l.name)).filter(|n| *n != list);
    Diagnostic::error("bad-product", format!("`{{{name}}}`: {msg}"))
        .at(src, place)
        .maybe_hint(near.map(|n| format!("did you mean `{n}`?")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_text(text: &str) -> Result<Vec<String>, Vec<String>> {
        let src = SourceFile::new("cards.toml", text);
        let table = DeTable::parse(text).expect("toml");
        let product = table.get_ref().get("product").and_then(|v| v.get_ref().as_array()).expect("product")[0].clone();
        match expand("card", &product, &src) {
            Ok(items) => Ok(items
                .iter()
                .map(|i| {
                    let t = i.get_ref();
                    let id = t.get("id").map(|v| format!("{:?}", v.get_ref())).unwrap_or_default();
                    let rank =
                        t.get("values").and_then(|v| v.get_ref().get("rank")).map(|v| format!("{:?}", v.get_ref()));
                    format!("{id} {}", rank.unwrap_or_default())
                })
                .collect()),
            Err(d) => Err(d
                .iter()
                .map(|d| {
                    let r = d.span.clone().unwrap_or(0..0);
                    format!("{} ({}) {}..{}", d.message, d.hint.clone().unwrap_or_default(), r.start, r.end)
                })
                .collect()),
        }
    }

    #[test]
    fn every_combination_is_made_first_list_outermost_and_a_lone_placeholder_keeps_its_type() {
        let made = expand_text(
            "[[product]]\nsuit = [{ id = \"c\" }, { id = \"h\" }]\nrank = [{ id = \"2\", value = 2 }, { id = \"a\", value = 14 }]\n\
             [product.card]\nid = \"{suit.id}-{rank.id}\"\nvalues = { rank = \"{rank.value}\" }\n",
        )
        .expect("made");
        assert_eq!(made.len(), 4);
        assert!(made[0].starts_with("String(\"c-2\")") && made[0].contains("Integer"), "{made:?}");
        assert!(made[1].starts_with("String(\"c-a\")"), "{made:?}");
        assert!(made[2].starts_with("String(\"h-2\")"), "{made:?}");
    }

    #[test]
    fn a_placeholder_naming_nothing_is_one_error_at_the_placeholder() {
        let text = "[[product]]\nsuit = [\"c\", \"h\"]\n[product.card]\nid = \"{siut}-x\"\n";
        let errs = expand_text(text).expect_err("refused");
        assert_eq!(errs.len(), 1, "{errs:?}");
        let at = text.find("{siut}").expect("there");
        assert!(errs[0].ends_with(&format!("{}..{}", at, at + 6)), "{errs:?}");
        assert!(errs[0].contains("no list of this product is called `siut`"), "{errs:?}");
    }

    #[test]
    fn a_product_past_its_limit_or_without_a_template_is_refused() {
        let big = format!(
            "[[product]]\na = [{}]\nb = [{}]\n[product.card]\nid = \"{{a}}-{{b}}\"\n",
            "1,".repeat(101),
            "1,".repeat(100)
        );
        assert!(expand_text(&big).expect_err("too many")[0].contains("more than the 10000"));
        let none = "[[product]]\na = [1]\n[product.crad]\nid = \"x\"\n";
        let errs = expand_text(none).expect_err("no template");
        assert!(errs.iter().any(|e| e.contains("did you mean `card`")), "{errs:?}");
    }
}
