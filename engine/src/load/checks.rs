//! Checks of what one file holds: ids, relative paths, definitions and the board.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;

use toml::de::DeValue;
use toml::Spanned;

use super::{Ref, RefKind};
use crate::content::model::{BoardFile, Definition};
use crate::diag::{Diagnostic, SourceFile};

/// An id is non-empty and made of lowercase letters, digits, `-` and `_`.
pub(super) fn check_id(id: &str, span: Range<usize>, src: &SourceFile, diags: &mut Vec<Diagnostic>) -> bool {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    let bad = id.chars().find(|&c| !allowed(c));
    let len = id.chars().count();
    if !id.is_empty() && len <= 64 && bad.is_none() {
        return true;
    }
    let why = match bad {
        _ if id.is_empty() => "it is empty".to_string(),
        Some(c) => format!("{} is not allowed", describe_char(c)),
        None => format!("it is {len} characters long"),
    };
    let mut hint = String::from("ids use lowercase letters, digits, `-` and `_` (up to 64)");
    if let Some(s) = id_suggestion(id) {
        hint.push_str(&format!(", e.g. `{s}`"));
    } else if let Some(c) = bad.filter(|c| !c.is_ascii() && c.is_alphabetic()) {
        hint.push_str(&format!("; retype `{c}`: it is not a Latin letter, whatever it looks like"));
    }
    diags.push(Diagnostic::error("bad-id", format!("`{id}` is not a valid id: {why}")).at(src, span).hint(hint));
    false
}

/// `` `с` (U+0441) ``, or a name for white space and control characters.
fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".to_string(),
        '\t' => "a tab".to_string(),
        c if c.is_ascii_uppercase() => format!("the capital `{c}`"),
        c if c.is_control() || c.is_whitespace() => format!("the character U+{:04X}", c as u32),
        c if invisible(c, false) => format!("{} (U+{:04X})", invisible_name(c), c as u32),
        c => format!("`{c}` (U+{:04X})", c as u32),
    }
}

/// A character a reader of the file cannot see, which prints unpredictably: a control
/// character (a text may hold line breaks and tabs), or one that changes the direction or
/// joining of the text around it (bidirectional overrides, isolates and marks, zero-width
/// characters, line and paragraph separators).
pub(super) fn invisible(c: char, multiline: bool) -> bool {
    (c.is_control() && !(multiline && matches!(c, '\n' | '\t')))
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// What an invisible character that is not a control character does, in words.
fn invisible_name(c: char) -> &'static str {
    match c {
        '\u{200B}' => "a zero-width space",
        '\u{200C}' => "a zero-width non-joiner",
        '\u{200D}' => "a zero-width joiner",
        '\u{200E}' => "a left-to-right mark",
        '\u{200F}' => "a right-to-left mark",
        '\u{202A}' => "a left-to-right embedding",
        '\u{202B}' => "a right-to-left embedding",
        '\u{202C}' => "a pop of the text's direction",
        '\u{202D}' => "a left-to-right override",
        '\u{202E}' => "a right-to-left override",
        '\u{2028}' => "a line separator",
        '\u{2029}' => "a paragraph separator",
        '\u{FEFF}' => "a zero-width no-break space",
        '\u{2066}'..='\u{2069}' => "a direction isolate",
        _ => "an invisible character",
    }
}

/// A name or text a person can read as it prints: no invisible characters (an error at
/// the character, or at the value when the file writes it as an escape), and a warning
/// for one a spreadsheet would run as a formula (`crown export csv` guards it, but a
/// shared pack's list may be opened elsewhere).
fn check_visible(
    id: &str,
    field: &str,
    value: &str,
    span: Range<usize>,
    src: &SourceFile,
    diags: &mut Vec<Diagnostic>,
) {
    let multiline = field != "name";
    if let Some(c) = value.chars().find(|&c| invisible(c, multiline)) {
        // The character itself, when the file holds it as it is.
        let raw = src.text.get(span.clone()).unwrap_or("");
        let at = raw.find(c).map_or(span.clone(), |i| span.start + i..span.start + i + c.len_utf8());
        diags.push(
            Diagnostic::error("invisible-character", format!("the {field} of `{id}` holds {}, which nobody reading the file can see", describe_char(c)))
                .at(src, at)
                .hint("remove it: right-to-left text needs no direction marks (Unicode lays it out), and a line break in a text is a new line of the TOML string"),
        );
    }
    let formula = value.starts_with(['=', '@']) || (value.starts_with(['+', '-']) && value.contains(['(', '|', '!']));
    if formula {
        diags.push(
            Diagnostic::warning("formula-like-text", format!("the {field} of `{id}` begins like a spreadsheet formula"))
                .at(src, span)
                .hint("a spreadsheet opening a list of these cards would run it; `crown export csv` writes it as text, other tools may not"),
        );
    }
}

/// A valid id close to a bad one (`Gold Coin` -> `gold-coin`), when one can be guessed:
/// never for ids with characters other than ASCII, whose intent is unclear.
fn id_suggestion(id: &str) -> Option<String> {
    if !id.is_ascii() {
        return None;
    }
    let mut s = String::new();
    for c in id.trim().chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() || c == '_' {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let s: String = s.trim_matches('-').chars().take(64).collect();
    let s = s.trim_end_matches('-').to_string();
    (!s.is_empty() && s != id).then_some(s)
}

/// A path is non-empty, relative and does not climb out with `..`.
pub(super) fn rel_path_ok(p: &str) -> bool {
    !(p.is_empty() || Path::new(p).is_absolute() || p.split(['/', '\\']).any(|c| c == ".."))
}

pub(super) fn check_rel_path(p: &str, span: Range<usize>, src: &SourceFile, diags: &mut Vec<Diagnostic>) -> bool {
    let bad = !rel_path_ok(p);
    if bad {
        diags.push(
            Diagnostic::error("bad-path", format!("`{p}` must be a relative path inside the pack"))
                .at(src, span)
                .hint("paths may not be absolute or climb out with `..`"),
        );
    }
    !bad
}

pub(super) fn check_definition(
    def: &Definition,
    item: &Spanned<DeValue<'_>>,
    src: &SourceFile,
    diags: &mut Vec<Diagnostic>,
) {
    let at = |path: &[P<'_>]| span_at(item, path).unwrap_or(item.span());
    check_id(&def.id, at(&[P::K("id")]), src, diags);
    if def.name.trim().is_empty() {
        diags.push(
            Diagnostic::error("empty-name", format!("`{}` has an empty name", def.id)).at(src, at(&[P::K("name")])),
        );
    }
    for (field, value) in [("name", &def.name), ("text", &def.text), ("flavor", &def.flavor)] {
        check_visible(&def.id, field, value, at(&[P::K(field)]), src, diags);
    }
    for (i, st) in def.stages.iter().enumerate() {
        for (field, value) in [("name", &st.name), ("text", &st.text)] {
            check_visible(&def.id, field, value, at(&[P::K("stages"), P::I(i), P::K(field)]), src, diags);
        }
    }
    if def.count < 0 || def.count > 10_000 {
        diags.push(
            Diagnostic::error("out-of-range", format!("count {} is out of range", def.count))
                .at(src, at(&[P::K("count")]))
                .hint("a count is the number of copies: 0 to 10000"),
        );
    }
    for (res, n) in &def.cost {
        if *n < 0 {
            diags.push(
                Diagnostic::error("out-of-range", format!("cost of `{res}` is negative ({n})"))
                    .at(src, at(&[P::K("cost"), P::K(res)]))
                    .hint("costs are zero or more"),
            );
        }
    }
    for (name, n) in &def.values {
        if n.unsigned_abs() > 1_000_000_000 {
            diags.push(
                Diagnostic::error("out-of-range", format!("value `{name}` = {n} is too large"))
                    .at(src, at(&[P::K("values"), P::K(name)]))
                    .hint("values are limited to ±1,000,000,000 so arithmetic in scripts cannot overflow"),
            );
        }
    }
    if let Some(s) = &def.script {
        check_rel_path(s, at(&[P::K("script")]), src, diags);
    }
    if let Some(a) = &def.art {
        check_rel_path(a, at(&[P::K("art")]), src, diags);
    }
    if !def.stages.is_empty() {
        if def.stages.len() > 4 {
            diags.push(
                Diagnostic::error("too-many-stages", "a card has at most four stages").at(src, at(&[P::K("stages")])),
            );
        }
        let mut seen = BTreeSet::new();
        for (i, st) in def.stages.iter().enumerate() {
            if !seen.insert(st.position) {
                diags.push(
                    Diagnostic::error("duplicate-stage", format!("two stages at `{}`", st.position.as_str()))
                        .at(src, at(&[P::K("stages"), P::I(i), P::K("position")])),
                );
            }
        }
        if !seen.contains(&crate::content::model::StagePosition::FrontTop) {
            diags.push(
                Diagnostic::error("missing-stage", "a multi-stage card needs a `front-top` stage (its starting stage)")
                    .at(src, at(&[P::K("stages")])),
            );
        }
        for (i, st) in def.stages.iter().enumerate() {
            for (j, up) in st.upgrades.iter().enumerate() {
                if !seen.contains(&up.to) || up.to == st.position {
                    diags.push(
                        Diagnostic::error(
                            "bad-upgrade",
                            format!("upgrade to `{}` from `{}` goes nowhere", up.to.as_str(), st.position.as_str()),
                        )
                        .at(src, at(&[P::K("stages"), P::I(i), P::K("upgrades"), P::I(j), P::K("to")]))
                        .hint("the target must be another stage defined on this card"),
                    );
                }
            }
        }
    }
}

pub(super) fn collect_def_refs(def: &Definition, item: &Spanned<DeValue<'_>>, shown: &Path, refs: &mut Vec<Ref>) {
    for (i, c) in def.cards.iter().enumerate() {
        let span = span_at(item, &[P::K("cards"), P::I(i)]).unwrap_or(item.span());
        refs.push(Ref { kind: RefKind::Card, id: c.clone(), file: shown.to_path_buf(), span });
    }
}

pub(super) fn check_board(
    b: &BoardFile,
    v: &Spanned<DeValue<'_>>,
    shown: &Path,
    src: &SourceFile,
    diags: &mut Vec<Diagnostic>,
    refs: &mut Vec<Ref>,
) {
    let at = |path: &[P<'_>]| span_at(v, path).unwrap_or(v.span());
    if let Some(g) = &b.grid {
        if !(1..=64).contains(&g.width) || !(1..=64).contains(&g.height) {
            diags.push(
                Diagnostic::error("out-of-range", "grid width and height must be 1 to 64").at(src, at(&[P::K("grid")])),
            );
        } else if g.rows.len() as i64 != g.height {
            diags.push(
                Diagnostic::error("grid-shape", format!("grid has height {} but {} rows", g.height, g.rows.len()))
                    .at(src, at(&[P::K("grid"), P::K("rows")])),
            );
        } else {
            for (y, row) in g.rows.iter().enumerate() {
                let span = at(&[P::K("grid"), P::K("rows"), P::I(y)]);
                if row.chars().count() as i64 != g.width {
                    diags.push(
                        Diagnostic::error(
                            "grid-shape",
                            format!("row {y} has {} tiles, the grid is {} wide", row.chars().count(), g.width),
                        )
                        .at(src, span.clone()),
                    );
                }
                for c in row.chars() {
                    if !g.legend.contains_key(&c.to_string()) {
                        diags.push(
                            Diagnostic::error("grid-legend", format!("tile `{c}` in row {y} is not in the legend"))
                                .at(src, span.clone())
                                .hint(format!(
                                    "legend keys: {}",
                                    g.legend.keys().cloned().collect::<Vec<_>>().join(" ")
                                )),
                        );
                        break;
                    }
                }
            }
        }
    }
    let mut seen = BTreeMap::new();
    let mut drawn: BTreeMap<[i64; 2], &str> = BTreeMap::new();
    // Each link that carries data, by its two spaces: what it carries and where it was written.
    type Written = (BTreeMap<String, String>, Range<usize>);
    let mut links: BTreeMap<(String, String), Written> = BTreeMap::new();
    let (grid_w, grid_h) = b.grid.as_ref().map_or((0, 0), |g| (g.width, g.height));
    for (i, s) in b.space.iter().enumerate() {
        if let Some([x, y]) = s.at {
            let within = crate::content::model::SpaceDef::DRAWN_WITHIN;
            let wrong = if s.drawn_at().is_none() {
                Some(format!(
                    "lies too far from the map: each of its numbers must be {} to {}",
                    within.start(),
                    within.end()
                ))
            } else if (0..grid_w).contains(&x) && (0..grid_h).contains(&y) {
                Some(format!("is the grid's square {x},{y}: the space would be drawn over it"))
            } else {
                drawn.insert([x, y], &s.id).map(|other| format!("is where space `{other}` is drawn"))
            };
            if let Some(wrong) = wrong {
                diags.push(
                    Diagnostic::warning("space-position", format!("space `{}`: `at = [{x}, {y}]` {wrong}", s.id))
                        .at(src, at(&[P::K("space"), P::I(i), P::K("at")]))
                        .hint("`at` is where the map draws the space, as [column, row] of the grid's squares; a place next to the grid, such as [1, -1] above its top row, is free"),
                );
            }
        }
        let span = at(&[P::K("space"), P::I(i), P::K("id")]);
        check_id(&s.id.replace(',', "-"), span.clone(), src, diags);
        if let Some(first) = seen.insert(s.id.clone(), span.clone()) {
            diags.push(
                Diagnostic::error("duplicate-id", format!("space `{}` is defined twice", s.id))
                    .at(src, span.clone())
                    .related(src, first, "first defined here"),
            );
        }
        for (j, a) in s.adjacent.iter().enumerate() {
            refs.push(Ref {
                kind: RefKind::Space,
                id: a.clone(),
                file: shown.to_path_buf(),
                span: at(&[P::K("space"), P::I(i), P::K("adjacent"), P::I(j)]),
            });
        }
        for (j, l) in s.links.iter().enumerate() {
            let span = at(&[P::K("space"), P::I(i), P::K("links"), P::I(j), P::K("to")]);
            refs.push(Ref { kind: RefKind::Space, id: l.to.clone(), file: shown.to_path_buf(), span: span.clone() });
            // The same link written from both ends must say the same of it.
            let pair = if s.id < l.to { (s.id.clone(), l.to.clone()) } else { (l.to.clone(), s.id.clone()) };
            match links.get(&pair) {
                Some((attrs, first)) if *attrs != l.attrs => diags.push(
                    Diagnostic::error(
                        "link-conflict",
                        format!("the link between `{}` and `{}` is written twice, and says two things", pair.0, pair.1),
                    )
                    .at(src, span)
                    .related(src, Range::clone(first), "written first here")
                    .hint("write the link's attrs on one of its two spaces only"),
                ),
                Some(_) => {}
                None => {
                    links.insert(pair, (l.attrs.clone(), span));
                }
            }
        }
        for k in s.pieces.keys() {
            refs.push(Ref {
                kind: RefKind::Supply,
                id: k.clone(),
                file: shown.to_path_buf(),
                span: at(&[P::K("space"), P::I(i), P::K("pieces"), P::K(k)]),
            });
        }
    }
    let mut seen_sup = BTreeMap::new();
    for (i, s) in b.supply.iter().enumerate() {
        let span = at(&[P::K("supply"), P::I(i), P::K("id")]);
        check_id(&s.id, span.clone(), src, diags);
        if let Some(first) = seen_sup.insert(s.id.clone(), span.clone()) {
            diags.push(
                Diagnostic::error("duplicate-id", format!("supply `{}` is defined twice", s.id))
                    .at(src, span.clone())
                    .related(src, first, "first defined here"),
            );
        }
        if s.count < 0 || s.count > 100_000 {
            diags.push(
                Diagnostic::error("out-of-range", format!("supply count {} is out of range", s.count))
                    .at(src, at(&[P::K("supply"), P::I(i), P::K("count")])),
            );
        }
    }
    check_board_kinds(b, &at, src, diags);
}

/// The `[[board]]` kinds: ids once each, a size of 1 to 32 squares each way, a start
/// square on the board.
fn check_board_kinds(
    b: &BoardFile,
    at: &dyn Fn(&[P<'_>]) -> Range<usize>,
    src: &SourceFile,
    diags: &mut Vec<Diagnostic>,
) {
    let mut seen = BTreeMap::new();
    for (i, k) in b.board.iter().enumerate() {
        let span = at(&[P::K("board"), P::I(i), P::K("id")]);
        check_id(&k.id, span.clone(), src, diags);
        if let Some(first) = seen.insert(k.id.clone(), span.clone()) {
            diags.push(
                Diagnostic::error("duplicate-id", format!("board `{}` is defined twice", k.id))
                    .at(src, span.clone())
                    .related(src, first, "first defined here"),
            );
        }
        for (key, n) in [("width", k.width), ("height", k.height)] {
            if !(1..=32).contains(&n) {
                diags.push(
                    Diagnostic::error(
                        "out-of-range",
                        format!("board `{}` has {key} {n}: a board is 1 to 32 squares each way", k.id),
                    )
                    .at(src, at(&[P::K("board"), P::I(i), P::K(key)])),
                );
            }
        }
        let Some(st) = &k.start else { continue };
        let (w, h) = if k.grows { (2 * k.width - 1, 2 * k.height - 1) } else { (k.width, k.height) };
        for (key, v, max) in [("x", st.x, w), ("y", st.y, h)] {
            if v.is_some_and(|v| v < 0 || v >= max) {
                diags.push(
                    Diagnostic::error(
                        "out-of-range",
                        format!(
                            "board `{}` starts at {key} = {}, off its {max} squares (counted from 0)",
                            k.id,
                            v.unwrap_or(0)
                        ),
                    )
                    .at(src, at(&[P::K("board"), P::I(i), P::K("start"), P::K(key)])),
                );
            }
        }
    }
}

pub(super) fn board_space_ids(b: &BoardFile) -> BTreeSet<String> {
    let mut ids: BTreeSet<String> = b.space.iter().map(|s| s.id.clone()).collect();
    if let Some(g) = &b.grid {
        for y in 0..g.height.max(0) {
            for x in 0..g.width.max(0) {
                ids.insert(format!("{x},{y}"));
            }
        }
    }
    ids
}

/// A step of a path into a TOML value.
pub(super) enum P<'a> {
    K(&'a str),
    I(usize),
}

pub(super) fn span_at(v: &Spanned<DeValue<'_>>, path: &[P<'_>]) -> Option<Range<usize>> {
    let mut cur = v;
    for p in path {
        cur = match p {
            P::K(k) => cur.get_ref().get(*k)?,
            P::I(i) => cur.get_ref().get(*i)?,
        };
    }
    Some(cur.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert!(rel_path_ok("rules.rhai") && rel_path_ok("cards/a.rhai"));
        assert!(
            !rel_path_ok("") && !rel_path_ok("/etc/passwd") && !rel_path_ok("../x.rhai") && !rel_path_ok("a\\..\\b")
        );
    }

    #[test]
    fn id_suggestions() {
        assert_eq!(id_suggestion("Gold Coin").as_deref(), Some("gold-coin"));
        assert_eq!(id_suggestion("  Coin!!").as_deref(), Some("coin"));
        assert_eq!(id_suggestion("\u{441}oin"), None);
        assert_eq!(id_suggestion("--"), None);
        assert_eq!(id_suggestion("!!!"), None);
        assert_eq!(describe_char('\u{441}'), "`\u{441}` (U+0441)");
        assert_eq!(describe_char('\u{202E}'), "a right-to-left override (U+202E)");
    }
}
