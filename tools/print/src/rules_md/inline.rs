//! Inline content: what pulldown-cmark read of a paragraph (its characters, each at its
//! offset in the file, and the marks that open and close bold and italic, and links) made
//! into [`Inline`]s. Crown's own syntax is found in the characters here: `{{ placeholders }}`
//! and `:icon:`; so are the slips Markdown leaves as plain text (an unclosed `**`, `{{`,
//! `[[` or `<!--`).

use std::ops::Range;

use super::placeholder::{parse_placeholder, Ch};
use super::{Inline, SyntaxError, MAX_EMPHASIS};

/// A piece of a paragraph as pulldown-cmark read it.
#[derive(Debug, Clone)]
pub(super) enum Atom {
    Char(Ch),
    /// Bold or italic opens; `mark` is its `**` or `*`.
    Open {
        bold: bool,
        mark: Range<usize>,
    },
    /// The last bold or italic opened closes.
    Close {
        mark: Range<usize>,
    },
    Link {
        target: String,
        text: Option<String>,
        span: Range<usize>,
        target_span: Range<usize>,
    },
}

impl Atom {
    fn ch(&self) -> Option<Ch> {
        match self {
            Atom::Char(c) => Some(*c),
            _ => None,
        }
    }

    /// Whether this is `c` as syntax (not taken literally).
    fn is(&self, c: char) -> bool {
        self.ch().is_some_and(|x| x.is(c))
    }

    /// Where a mark or link is, for an error about it.
    fn span(&self) -> Range<usize> {
        match self {
            Atom::Char(c) => c.at..c.at + c.c.len_utf8(),
            Atom::Open { mark, .. } | Atom::Close { mark } => mark.clone(),
            Atom::Link { span, .. } => span.clone(),
        }
    }
}

/// The characters of a text event at `range` in `src`. The text differs from the file
/// where Markdown took something literally: an entity (`&amp;`) gives its characters at
/// the entity's place, and a character written after `\` starts a text event of its own
/// right after the backslash (`last_end` is where the text before it ended, so that an
/// escaped backslash, `\\`, is not taken for a second escape).
pub(super) fn push_text(src: &str, text: &str, range: &Range<usize>, last_end: usize, out: &mut Vec<Atom>) {
    let literal = |c: char, at: usize| Atom::Char(Ch { c, at, literal: true });
    if src.get(range.clone()) == Some(text) {
        let escaped = range.start > last_end && src.as_bytes()[range.start - 1] == b'\\';
        out.extend(
            text.char_indices().map(|(i, c)| Atom::Char(Ch { c, at: range.start + i, literal: escaped && i == 0 })),
        );
    } else {
        out.extend(text.chars().map(|c| literal(c, range.start)));
    }
}

/// A code span, printed as written: its backquotes and its characters, none of them syntax.
pub(super) fn push_code(src: &str, code: &str, range: &Range<usize>, out: &mut Vec<Atom>) {
    let written = &src[range.clone()];
    let ticks = &written[..written.len() - written.trim_start_matches('`').len()];
    let shown = format!("{ticks}{code}{ticks}");
    let exact = written == shown;
    out.extend(
        shown
            .char_indices()
            .map(|(i, c)| Atom::Char(Ch { c, at: if exact { range.start + i } else { range.start }, literal: true })),
    );
}

/// Characters that may make up an icon name between colons.
fn icon_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'
}

/// A paragraph's atoms as inline content, with Crown's syntax found in its characters.
pub(super) fn build(atoms: &[Atom], src: &str, errors: &mut Vec<SyntaxError>) -> Vec<Inline> {
    let n = atoms.len();
    // From each atom on: where the next `}}` and `]]` start and the next atom that is not a
    // character (one pass, so that a paragraph full of unclosed `{{` stays linear).
    let mut next_brace = vec![n; n + 1];
    let mut next_bracket = vec![n; n + 1];
    let mut next_mark = vec![n; n + 1];
    for k in (0..n).rev() {
        let pair = |c: char| atoms[k].is(c) && atoms.get(k + 1).is_some_and(|a| a.is(c));
        next_brace[k] = if pair('}') { k } else { next_brace[k + 1] };
        next_bracket[k] = if pair(']') { k } else { next_bracket[k + 1] };
        next_mark[k] = if atoms[k].ch().is_none() { k } else { next_mark[k + 1] };
    }
    let at = |i: usize| atoms.get(i).map_or(src.len(), |a| a.span().start);
    let end_of = |i: usize| atoms.get(i).map_or(src.len(), |a| a.span().end);
    let alnum =
        |i: Option<usize>| i.and_then(|i| atoms.get(i)).and_then(Atom::ch).is_some_and(|c| c.c.is_alphanumeric());

    // The open bold and italic runs, each with its content and whether it is bold; the
    // bottom level is the paragraph. `kept` says of each open mark whether it made a level
    // (a mark past the deepest nesting allowed is reported and left out).
    let mut stack: Vec<(Vec<Inline>, bool)> = vec![(Vec::new(), false)];
    let mut kept: Vec<bool> = Vec::new();
    let mut text = String::new();
    let flush = |text: &mut String, stack: &mut Vec<(Vec<Inline>, bool)>| {
        if !text.is_empty() {
            stack.last_mut().expect("a level").0.push(Inline::Text(std::mem::take(text)));
        }
    };
    let mut i = 0;
    while i < n {
        match &atoms[i] {
            Atom::Open { bold, mark } => {
                flush(&mut text, &mut stack);
                let keep = stack.len() <= MAX_EMPHASIS;
                if keep {
                    stack.push((Vec::new(), *bold));
                } else {
                    errors.push(SyntaxError::new(mark.clone(), "bold and italic nested too deeply"));
                }
                kept.push(keep);
                i += 1;
                continue;
            }
            Atom::Close { .. } => {
                flush(&mut text, &mut stack);
                if kept.pop() == Some(true) {
                    let (content, bold) = stack.pop().expect("an open run");
                    let run = if bold { Inline::Bold(content) } else { Inline::Italic(content) };
                    stack.last_mut().expect("a level").0.push(run);
                }
                i += 1;
                continue;
            }
            Atom::Link { target, text: label, span, target_span } => {
                flush(&mut text, &mut stack);
                stack.last_mut().expect("a level").0.push(Inline::Link {
                    target: target.clone(),
                    text: label.clone(),
                    span: span.clone(),
                    target_span: target_span.clone(),
                });
                i += 1;
                continue;
            }
            Atom::Char(_) => {}
        }
        let c = atoms[i].ch().expect("a character");
        let next_is = |c: char| atoms.get(i + 1).is_some_and(|a| a.is(c));
        if c.is('{') && next_is('{') {
            // A placeholder: up to the next `}}`, all of it plain text.
            let close = Some(next_brace[(i + 2).min(n)]).filter(|&k| k < n);
            let Some(close) = close else {
                errors.push(
                    SyntaxError::new(at(i)..at(i) + 2, "this placeholder is never closed")
                        .hint("end it with `}}` (write `\\{{` for two braces in the text)"),
                );
                text.push_str("{{");
                i += 2;
                continue;
            };
            if next_mark[i] < close {
                let m = next_mark[i];
                let what = match &atoms[m] {
                    Atom::Link { .. } => "a link",
                    _ => "bold or italic",
                };
                errors.push(
                    SyntaxError::new(atoms[m].span(), format!("Markdown reads {what} inside this placeholder"))
                        .hint("inside `{{ }}`, write `\\*`, `\\_` or `\\[` for the character itself"),
                );
                text.push_str("{{");
                i += 2;
                continue;
            }
            flush(&mut text, &mut stack);
            let chars: Vec<Ch> = atoms[i..close + 2].iter().filter_map(Atom::ch).collect();
            match parse_placeholder(&chars, end_of(close + 1)) {
                Ok(p) => stack.last_mut().expect("a level").0.push(Inline::Placeholder(p)),
                Err(e) => errors.push(e),
            }
            i = close + 2;
            continue;
        }
        if c.is('[') && next_is('[') {
            // Markdown made a link of every `[[...]]` it could: this one is not closed, or
            // has no target.
            let close = Some(next_bracket[(i + 2).min(n)]).filter(|&k| k < n && next_mark[i] > k);
            let empty = close.is_some_and(|k| {
                let inner: String = atoms[i + 2..k].iter().filter_map(Atom::ch).map(|c| c.c).collect();
                inner.split('|').next().is_none_or(|t| t.trim().is_empty())
            });
            let e = match close {
                Some(k) if empty => {
                    SyntaxError::new(at(i)..end_of(k + 1), "a link without a target").hint("write `[[card-id]]`")
                }
                _ => SyntaxError::new(at(i)..at(i) + 2, "this link is never closed")
                    .hint("write `[[card-id]]` or `[[card-id|text]]` (or `\\[[` for two brackets in the text)"),
            };
            errors.push(e);
            text.push_str("[[");
            i += 2;
            continue;
        }
        if c.is(':') && !alnum(i.checked_sub(1)) {
            let mut j = i + 1;
            while j < n && atoms[j].ch().is_some_and(|x| !x.literal && icon_char(x.c)) {
                j += 1;
            }
            if j > i + 1 && j < n && atoms[j].is(':') && !alnum(Some(j + 1)) {
                flush(&mut text, &mut stack);
                let name: String = atoms[i + 1..j].iter().filter_map(Atom::ch).map(|c| c.c).collect();
                stack.last_mut().expect("a level").0.push(Inline::Icon { name, span: at(i)..end_of(j) });
                i = j + 1;
                continue;
            }
        }
        if c.is('*') || c.is('_') {
            // A run of `*` or `_` that Markdown left as text: a mistake where it could open
            // or close bold or italic.
            let mut j = i + 1;
            while j < n && atoms[j].ch().is_some_and(|x| x.is(c.c) && x.at == at(j - 1) + 1) {
                j += 1;
            }
            let span = at(i)..end_of(j - 1);
            if let Some(e) = stray_delimiter(src, span, c.c) {
                errors.push(e);
            }
            text.extend(std::iter::repeat_n(c.c, j - i));
            i = j;
            continue;
        }
        if c.is('<') && (1..4).all(|k| atoms.get(i + k).is_some_and(|a| a.is(['!', '-', '-'][k - 1]))) {
            errors.push(SyntaxError::new(at(i)..at(i) + 4, "this comment is never closed").hint("end it with `-->`"));
        }
        text.push(c.c);
        i += 1;
    }
    flush(&mut text, &mut stack);
    // Markdown closes what it opens; the stack is back to the paragraph.
    while stack.len() > 1 {
        let (content, _) = stack.pop().expect("an open run");
        stack.last_mut().expect("a level").0.extend(content);
    }
    stack.pop().map(|s| s.0).unwrap_or_default()
}

/// The error for a run of `*` or `_` at `span` that Markdown printed as it is, if it
/// could open or close bold or italic (CommonMark's flanking rules): `**open` never
/// closed, say, where `2 * 3` is plain text.
fn stray_delimiter(src: &str, span: Range<usize>, c: char) -> Option<SyntaxError> {
    let before = src[..span.start].chars().next_back();
    let after = src[span.end..].chars().next();
    let space = |c: Option<char>| c.is_none_or(char::is_whitespace);
    let punct = |c: Option<char>| c.is_some_and(|c| !c.is_alphanumeric() && !c.is_whitespace());
    let left = !space(after) && (!punct(after) || space(before) || punct(before));
    let right = !space(before) && (!punct(before) || space(after) || punct(after));
    let (opens, closes) =
        if c == '*' { (left, right) } else { (left && (!right || punct(before)), right && (!left || punct(after))) };
    let run = &src[span.clone()];
    let what = if run.len() >= 2 { "bold" } else { "italic" };
    let name = if c == '*' { "an asterisk" } else { "an underscore" };
    if opens {
        Some(
            SyntaxError::new(span, format!("{what} text that is never closed"))
                .hint(format!("close it with `{run}` in the same paragraph (write `\\{c}` for {name})")),
        )
    } else if closes {
        Some(
            SyntaxError::new(span, format!("`{run}` that closes no {what} text"))
                .hint(format!("open it with `{run}` in the same paragraph, or write `\\{c}` for {name}")),
        )
    } else {
        None
    }
}
