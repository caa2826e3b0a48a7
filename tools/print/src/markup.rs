//! Card text markup, read once for every output: `:icon:`, `**bold**`, and `\*`, `\:`,
//! `\\` for a literal asterisk, colon or backslash. Bold runs close within their paragraph;
//! a `**` that does not is printed as written and reported (`unclosed-markup`) at its
//! line and column in the card's file: inside the TOML string, or the spreadsheet cell.

use std::ops::Range;

use crown_engine::content::{Def, Pack};
use crown_engine::diag::{Diagnostic, SourceFile};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// What one piece of card text is.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A character printed as it is (an escaped one included).
    Char(char),
    /// `**`: bold on, or off.
    Bold,
    /// `:name:`.
    Icon(String),
}

/// Card text read: its pieces, and the byte spans of the `**` left unclosed (printed as
/// written).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Read {
    pub marks: Vec<Mark>,
    pub unclosed: Vec<Range<usize>>,
}

fn icon_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'
}

/// Read card text. A `:` inside a word or not closing a name is a plain colon.
pub fn read(text: &str) -> Read {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let mut marks: Vec<(usize, Mark)> = Vec::new();
    let mut i = 0;
    while i < n {
        let (at, c) = chars[i];
        let next = chars.get(i + 1).map(|x| x.1);
        if c == '\\' && matches!(next, Some('*' | ':' | '\\')) {
            marks.push((at, Mark::Char(next.unwrap_or(c))));
            i += 2;
            continue;
        }
        if c == '*' && next == Some('*') {
            marks.push((at, Mark::Bold));
            i += 2;
            continue;
        }
        if c == ':' && (i == 0 || !chars[i - 1].1.is_alphanumeric()) {
            let mut j = i + 1;
            while j < n && icon_char(chars[j].1) {
                j += 1;
            }
            if j > i + 1 && j < n && chars[j].1 == ':' && (j + 1 >= n || !chars[j + 1].1.is_alphanumeric()) {
                marks.push((at, Mark::Icon(chars[i + 1..j].iter().map(|x| x.1).collect())));
                i = j + 1;
                continue;
            }
        }
        marks.push((at, Mark::Char(c)));
        i += 1;
    }
    // Pair the `**` within each paragraph; one left open is printed as written.
    let mut unclosed = Vec::new();
    let mut open: Option<usize> = None;
    let mut newlines = 0;
    for (k, (_, mark)) in marks.iter().enumerate() {
        match mark {
            Mark::Char('\n') => newlines += 1,
            Mark::Char(c) if c.is_whitespace() => {}
            m => {
                if newlines > 1 {
                    unclosed.extend(open.take());
                }
                newlines = 0;
                if *m == Mark::Bold {
                    open = if open.is_some() { None } else { Some(k) };
                }
            }
        }
    }
    unclosed.extend(open);
    let spans = unclosed.iter().map(|&k| marks[k].0..marks[k].0 + 2).collect();
    let mut out = Vec::with_capacity(marks.len());
    for (k, (_, m)) in marks.into_iter().enumerate() {
        if unclosed.contains(&k) {
            out.extend([Mark::Char('*'), Mark::Char('*')]);
        } else {
            out.push(m);
        }
    }
    Read { marks: out, unclosed: spans }
}

/// The unclosed `**` of the texts a side of a definition prints, each an error at the
/// marker in the definition's file.
pub fn check(pack: &Pack, d: &Def, back: bool) -> Vec<Diagnostic> {
    let def = &d.def;
    let mut texts: Vec<(Vec<PathPart>, &str)> = Vec::new();
    if back {
        if let Some(b) = &def.back {
            texts.push((vec![PathPart::Key("back"), PathPart::Key("text")], &b.text));
        }
    } else {
        texts.push((vec![PathPart::Key("text")], &def.text));
        texts.push((vec![PathPart::Key("flavor")], &def.flavor));
        for (i, st) in def.stages.iter().enumerate() {
            texts.push((vec![PathPart::Key("stages"), PathPart::Index(i), PathPart::Key("text")], &st.text));
        }
    }
    let mut out = Vec::new();
    for (path, text) in texts {
        for at in read(text).unclosed {
            let field = path
                .iter()
                .map(|p| match p {
                    PathPart::Key(k) => k.to_string(),
                    PathPart::Index(i) => format!("[{i}]"),
                })
                .collect::<Vec<_>>()
                .join(".")
                .replace(".[", "[");
            let diag = Diagnostic::error(
                "unclosed-markup",
                format!("`{}`: `**` in its `{field}` opens bold text that is never closed", def.id),
            )
            .hint("close it with `**` in the same paragraph, or write `\\*` for an asterisk (`\\\\*` inside a TOML string in double quotes)");
            out.push(match pack.sources.get(&d.origin.file) {
                Some(src) => match place(src, d, &path, text, at.clone()) {
                    Some((span, cell)) => diag.at(src, span).label(cell.unwrap_or_else(|| "never closed".into())),
                    None => diag.at(src, d.origin.id_span.clone()).label("this card"),
                },
                None => diag.in_file(&d.origin.file),
            });
        }
    }
    out
}

/// A step into a definition's table.
#[derive(Debug, Clone, Copy)]
enum PathPart {
    Key(&'static str),
    Index(usize),
}

/// Where the bytes `at` of `value` (the text at `path` of definition `d`) are written in
/// its file, and in a spreadsheet the cell's row and column.
fn place(
    src: &SourceFile,
    d: &Def,
    path: &[PathPart],
    value: &str,
    at: Range<usize>,
) -> Option<(Range<usize>, Option<String>)> {
    use crown_engine::load::table;
    let name = src.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let sheet = table::TableFormat::of(name).is_some();
    let mut cell = None;
    let span = if sheet {
        let s = table::Sheet::from_shown(&src.text)?;
        let (items, _) = table::rows_to_items(&s, src);
        let item = items.into_iter().find(|i| i.span() == d.origin.span)?;
        let span = value_span(&item, path)?;
        let header = s.header();
        cell = s.rows.iter().flatten().find(|c| c.span == span).map(|c| {
            let head = header.and_then(|h| h.iter().find(|h| h.col == c.col)).map_or("", |h| h.text.trim());
            table::cell_label(c, head)
        });
        span
    } else {
        let root = DeTable::parse(&src.text).ok()?;
        let item = root.get_ref().values().find_map(|v| match v.get_ref() {
            DeValue::Array(a) => a.iter().find(|i| i.span() == d.origin.span).cloned(),
            _ => None,
        })?;
        value_span(&item, path)?
    };
    let raw = src.text.get(span.clone())?;
    let offsets = if sheet { csv_chars(raw) } else { toml_chars(raw) };
    // The text as read must be what the literal decodes to, character for character
    // (a workbook shows a line break in a cell as a space).
    if offsets.len() != value.chars().count() {
        return Some((span.start..span.start, cell));
    }
    let k = value[..at.start].chars().count();
    let start = span.start + offsets[k];
    let end = span.start + offsets.get(k + 2).copied().unwrap_or(offsets[k] + 2);
    Some((start..end.min(span.end), cell))
}

fn value_span(item: &Spanned<DeValue<'_>>, path: &[PathPart]) -> Option<Range<usize>> {
    let mut cur = item.clone();
    for p in path {
        cur = match (p, cur.get_ref()) {
            (PathPart::Key(k), DeValue::Table(t)) => t.get(*k)?.clone(),
            (PathPart::Index(i), DeValue::Array(a)) => a.get(*i)?.clone(),
            _ => return None,
        };
    }
    Some(cur.span())
}

/// The byte offset in `raw` (a CSV cell as written) of each character of its text.
fn csv_chars(raw: &str) -> Vec<usize> {
    let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return raw.char_indices().map(|(i, _)| i).collect();
    };
    let mut out = Vec::new();
    let mut it = inner.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        out.push(i + 1);
        if c == '"' {
            it.next();
        }
    }
    out
}

/// The byte offset in `raw` (a TOML string as written, quotes included) of each character
/// of the string it means: escapes read, a line-ending backslash and the newline right
/// after an opening `"""` or `'''` dropped, `\r\n` one character.
fn toml_chars(raw: &str) -> Vec<usize> {
    let (quote, basic) = if raw.starts_with("\"\"\"") {
        (3, true)
    } else if raw.starts_with("'''") {
        (3, false)
    } else {
        (1, raw.starts_with('"'))
    };
    let end = raw.len().saturating_sub(quote).max(quote);
    let body = &raw[quote..end];
    let chars: Vec<(usize, char)> = body.char_indices().map(|(i, c)| (i + quote, c)).collect();
    let mut out = Vec::new();
    let mut i = 0;
    if quote == 3 {
        if chars.first().map(|c| c.1) == Some('\n') {
            i = 1;
        } else if chars.first().map(|c| c.1) == Some('\r') && chars.get(1).map(|c| c.1) == Some('\n') {
            i = 2;
        }
    }
    while i < chars.len() {
        let (at, c) = chars[i];
        if c == '\r' && chars.get(i + 1).map(|c| c.1) == Some('\n') {
            out.push(at);
            i += 2;
            continue;
        }
        if !(basic && c == '\\') {
            out.push(at);
            i += 1;
            continue;
        }
        match chars.get(i + 1).map(|c| c.1) {
            Some('u') => i += 6,
            Some('U') => i += 10,
            Some(w) if w.is_whitespace() => {
                // A line-ending backslash: the newline and the white space after it go.
                i += 1;
                while i < chars.len() && chars[i].1.is_whitespace() {
                    i += 1;
                }
                continue;
            }
            _ => i += 2,
        }
        out.push(at);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bold_pairs_within_a_paragraph_and_escapes_are_literal() {
        let r = read("Mine ** | Wheat");
        assert_eq!(r.unclosed, vec![5..7]);
        assert!(r.marks.iter().all(|m| matches!(m, Mark::Char(_))), "printed as written: {r:?}");
        let r = read("**Siege** and \\*\\* and a\\:b \\:coin: :coin:");
        assert!(r.unclosed.is_empty());
        let text: String = r
            .marks
            .iter()
            .map(|m| match m {
                Mark::Char(c) => c.to_string(),
                Mark::Bold => "|".into(),
                Mark::Icon(n) => format!("[{n}]"),
            })
            .collect();
        assert_eq!(text, "|Siege| and ** and a:b :coin: [coin]");
        // A paragraph ends an open run: the first `**` is the one left open.
        assert_eq!(read("Mine **\n\nGain **2**.").unclosed, vec![5..7]);
        assert!(read("a **b\nc** d").unclosed.is_empty());
        assert_eq!(read("\\\\**x").unclosed, vec![2..4]);
    }

    #[test]
    fn characters_of_a_literal_map_to_where_they_are_written() {
        let raw = r#""a\n\"b\u00e9c""#;
        let at = toml_chars(raw);
        assert_eq!(at.len(), "a\n\"béc".chars().count());
        assert_eq!(&raw[at[4]..at[4] + 6], "\\u00e9");
        assert_eq!(&raw[at[5]..], "c\"");
        let raw = "\"\"\"\nab \\\n   cd\"\"\"";
        let at = toml_chars(raw);
        assert_eq!(at.len(), 5);
        assert_eq!(&raw[at[3]..at[3] + 1], "c");
        assert_eq!(toml_chars("'a\\*'"), [1, 2, 3]);
        assert_eq!(csv_chars("\"say \"\"hi\"\"\""), [1, 2, 3, 4, 5, 7, 8, 9]);
        assert_eq!(csv_chars("plain"), [0, 1, 2, 3, 4]);
    }
}
