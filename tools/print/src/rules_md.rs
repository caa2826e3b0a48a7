//! The rules document of a pack (`content/<pack>/rules.md`): a small, strict subset of
//! Markdown with placeholders, parsed into blocks whose every piece knows its byte span in
//! the file, so that a mistake is reported at its line and column.
//!
//! What is understood:
//!
//! - `#`, `##`, `###` headings; paragraphs; `-`/`*` and `1.` lists (nested by indenting);
//!   `>` notes; `|` tables with a `| --- |` line under the header; `<!-- comments -->`.
//! - Inline: `**bold**`, `*italic*`, `:icon:`, `[[card-id]]` and `[[card-id|text]]` links (also
//!   `[[scenario:id]]`), `{{ name args }}` placeholders, and `\` before a character to
//!   take it literally (`\{{`, `\[[`, `\*`, `\:`, `\|`, `\\`).
//!
//! A placeholder is `{{ name ARG... }}` where each ARG is a bare word (a positional
//! argument) or `key=value`, the value bare or in double quotes. What the names mean is
//! decided by `ref_doc`; this module only reads the syntax.

use std::ops::Range;

/// A problem in the syntax of the document, at a byte span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub span: Range<usize>,
    pub message: String,
    pub hint: Option<String>,
}

impl SyntaxError {
    fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        SyntaxError { span, message: message.into(), hint: None }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// One argument of a placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// `None` for a positional argument.
    pub key: Option<String>,
    pub value: String,
    /// The whole argument, `key=value` included.
    pub span: Range<usize>,
    /// The value alone.
    pub value_span: Range<usize>,
}

/// `{{ name args }}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    pub name: String,
    pub name_span: Range<usize>,
    pub args: Vec<Arg>,
    /// From `{{` to `}}`.
    pub span: Range<usize>,
}

/// Inline content of a paragraph, heading, list item or table cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    Text(String),
    Bold(Vec<Inline>),
    Italic(Vec<Inline>),
    Icon {
        name: String,
        span: Range<usize>,
    },
    /// `[[target]]` or `[[target|text]]`.
    Link {
        target: String,
        text: Option<String>,
        span: Range<usize>,
        target_span: Range<usize>,
    },
    Placeholder(Placeholder),
}

/// A block of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Heading {
        level: u8,
        inline: Vec<Inline>,
        span: Range<usize>,
    },
    Para {
        inline: Vec<Inline>,
        span: Range<usize>,
    },
    List {
        ordered: bool,
        items: Vec<Vec<Block>>,
    },
    Note(Vec<Block>),
    Table {
        header: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
        span: Range<usize>,
    },
    /// A paragraph made of one placeholder alone: generated blocks (a card list, say) when
    /// the name is a block placeholder, else a paragraph holding its text.
    Alone(Placeholder),
}

/// One line of the document (or of a container's content), with where its text starts.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    offset: usize,
}

impl Line<'_> {
    fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    fn indent(&self) -> usize {
        self.text.len() - self.text.trim_start_matches(' ').len()
    }

    /// The line without its first `n` spaces (or fewer, if it has fewer).
    fn dedent(&self, n: usize) -> Self {
        let k = self.indent().min(n);
        Line { text: &self.text[k..], offset: self.offset + k }
    }

    fn trimmed(&self) -> Self {
        let k = self.indent();
        Line { text: self.text[k..].trim_end(), offset: self.offset + k }
    }
}

/// Parse a rules document. Comments are blanked out first (their lines keep their
/// numbers). Every syntax error found is returned; the blocks are those that parsed.
pub fn parse(text: &str) -> (Vec<Block>, Vec<SyntaxError>) {
    let mut errors = Vec::new();
    let clean = blank_comments(text, &mut errors);
    let mut lines = Vec::new();
    let mut offset = 0;
    for l in clean.split('\n') {
        let t = l.strip_suffix('\r').unwrap_or(l);
        lines.push(Line { text: t, offset });
        offset += l.len() + 1;
    }
    let blocks = parse_blocks(&lines, &mut errors, 0);
    (blocks, errors)
}

/// `<!-- ... -->` replaced by spaces (line breaks kept), so offsets stay those of the file.
fn blank_comments(text: &str, errors: &mut Vec<SyntaxError>) -> String {
    let blank = |s: &str, out: &mut String| {
        for c in s.chars() {
            if c == '\n' {
                out.push('\n');
            } else {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    while let Some(i) = text[pos..].find("<!--").map(|i| pos + i) {
        out.push_str(&text[pos..i]);
        match text[i + 4..].find("-->") {
            Some(j) => {
                let end = i + 4 + j + 3;
                blank(&text[i..end], &mut out);
                pos = end;
            }
            None => {
                errors.push(SyntaxError::new(i..i + 4, "this comment is never closed").hint("end it with `-->`"));
                blank(&text[i..], &mut out);
                return out;
            }
        }
    }
    out.push_str(&text[pos..]);
    out
}

fn heading_level(t: &str) -> Option<(usize, &str)> {
    let hashes = t.len() - t.trim_start_matches('#').len();
    if hashes == 0 {
        return None;
    }
    let rest = &t[hashes..];
    if rest.is_empty() || rest.starts_with(' ') {
        Some((hashes, rest))
    } else {
        None
    }
}

/// A list marker at the start of `t`: whether it is ordered and the width of the marker
/// with the space after it.
fn list_marker(t: &str) -> Option<(bool, usize)> {
    let b = t.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'-' | b'*' | b'+') && b[1] == b' ' {
        // `**bold**` at the start of a line is not a list.
        return Some((false, 2));
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if (1..=3).contains(&digits) && b.get(digits) == Some(&b'.') && b.get(digits + 1) == Some(&b' ') {
        return Some((true, digits + 2));
    }
    None
}

/// Whether a line (already dedented to its container) starts a block other than a paragraph.
fn starts_block(l: &Line<'_>) -> bool {
    let t = l.text.trim_start();
    l.indent() < 4
        && (heading_level(t).is_some() || t.starts_with('|') || t.starts_with('>') || list_marker(t).is_some())
}

/// How deep lists and notes may nest in one another.
const MAX_DEPTH: usize = 8;
/// How deep bold and italic may nest in one another.
const MAX_EMPHASIS: usize = 4;

fn parse_blocks(lines: &[Line<'_>], errors: &mut Vec<SyntaxError>, depth: usize) -> Vec<Block> {
    if depth > MAX_DEPTH {
        let first = lines.iter().find(|l| !l.is_blank()).map_or(0, |l| l.offset);
        errors.push(
            SyntaxError::new(first..first + 1, format!("lists and notes nested more than {MAX_DEPTH} deep"))
                .hint("a rules reference reads best with one or two levels"),
        );
        return Vec::new();
    }
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.is_blank() {
            i += 1;
            continue;
        }
        let t = line.trimmed();
        if let Some((level, rest)) = heading_level(t.text) {
            let start = t.offset + level;
            if level > 3 {
                errors.push(
                    SyntaxError::new(t.offset..t.offset + level, format!("a heading of level {level}"))
                        .hint("use `#`, `##` or `###`: the reference has three levels of headings"),
                );
            }
            let content = rest.trim();
            let lead = rest.len() - rest.trim_start().len();
            let inline = parse_inline(&[(start + lead, content)], errors);
            blocks.push(Block::Heading { level: level.min(3) as u8, inline, span: t.offset..t.offset + t.text.len() });
            i += 1;
            continue;
        }
        if t.text.starts_with('|') {
            let mut j = i;
            while j < lines.len() && lines[j].trimmed().text.starts_with('|') {
                j += 1;
            }
            blocks.push(parse_table(&lines[i..j], errors));
            i = j;
            continue;
        }
        if t.text.starts_with('>') {
            let mut inner = Vec::new();
            let mut j = i;
            while j < lines.len() && lines[j].trimmed().text.starts_with('>') {
                let l = lines[j].trimmed();
                let after = &l.text[1..];
                let skip = usize::from(after.starts_with(' '));
                inner.push(Line { text: &after[skip..], offset: l.offset + 1 + skip });
                j += 1;
            }
            blocks.push(Block::Note(parse_blocks(&inner, errors, depth + 1)));
            i = j;
            continue;
        }
        if let Some((ordered, _)) = list_marker(t.text) {
            let (block, next) = parse_list(lines, i, ordered, errors, depth);
            blocks.push(block);
            i = next;
            continue;
        }
        // A paragraph: up to a blank line or the start of another block.
        let mut segs = vec![(t.offset, t.text)];
        let mut j = i + 1;
        while j < lines.len() && !lines[j].is_blank() && !starts_block(&lines[j]) {
            let l = lines[j].trimmed();
            segs.push((l.offset, l.text));
            j += 1;
        }
        let span = segs[0].0..segs.last().map_or(0, |(o, s)| o + s.len());
        let inline = parse_inline(&segs, errors);
        match inline.as_slice() {
            [Inline::Placeholder(p)] => blocks.push(Block::Alone(p.clone())),
            _ => blocks.push(Block::Para { inline, span }),
        }
        i = j;
    }
    blocks
}

/// A list starting at `lines[start]`; returns it and the index of the first line after it.
fn parse_list(
    lines: &[Line<'_>],
    start: usize,
    ordered: bool,
    errors: &mut Vec<SyntaxError>,
    depth: usize,
) -> (Block, usize) {
    let base = lines[start].indent();
    let mut items = Vec::new();
    let mut i = start;
    while i < lines.len() {
        let l = lines[i];
        if l.is_blank() || l.indent() != base {
            break;
        }
        let t = l.dedent(base);
        let Some((o, width)) = list_marker(t.text) else { break };
        if o != ordered {
            break;
        }
        let content_indent = base + width;
        let mut item_lines = vec![Line { text: &t.text[width..], offset: t.offset + width }];
        let mut j = i + 1;
        let mut last_blank = false;
        while j < lines.len() {
            let n = lines[j];
            if n.is_blank() {
                last_blank = true;
                item_lines.push(Line { text: "", offset: n.offset });
                j += 1;
                continue;
            }
            if n.indent() >= content_indent.min(base + 2) && n.indent() > base {
                // Indented: part of this item (nested blocks included).
                item_lines.push(n.dedent(content_indent));
                last_blank = false;
                j += 1;
                continue;
            }
            if !last_blank && n.indent() <= base && !starts_block(&n.dedent(base)) {
                // A lazy continuation of the item's paragraph.
                item_lines.push(n.dedent(base));
                j += 1;
                continue;
            }
            break;
        }
        // Trailing blank lines belong to what follows the list.
        while j > i + 1 && lines[j - 1].is_blank() {
            j -= 1;
            item_lines.pop();
        }
        items.push(parse_blocks(&item_lines, errors, depth + 1));
        i = j;
        // A blank line between items keeps the list going.
        let mut k = i;
        while k < lines.len() && lines[k].is_blank() {
            k += 1;
        }
        if k < lines.len()
            && lines[k].indent() == base
            && list_marker(lines[k].dedent(base).text).map(|m| m.0) == Some(ordered)
        {
            i = k;
        }
    }
    (Block::List { ordered, items }, i)
}

/// Split a table row into cells at `|`, except inside `[[ ]]` or `{{ }}` or after `\`.
fn split_cells<'a>(line: &Line<'a>) -> Vec<(usize, &'a str)> {
    let text = line.text.trim_end();
    let body = text.strip_prefix('|').unwrap_or(text);
    let body_off = line.offset + (text.len() - body.len());
    let body = body.strip_suffix('|').filter(|b| !b.ends_with('\\')).unwrap_or(body);
    let bytes = body.as_bytes();
    let mut cells = Vec::new();
    let mut start = 0;
    let mut depth_link = 0usize;
    let mut depth_ph = 0usize;
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => {
                k += 2;
                continue;
            }
            b'[' if bytes.get(k + 1) == Some(&b'[') => {
                depth_link += 1;
                k += 2;
                continue;
            }
            b']' if bytes.get(k + 1) == Some(&b']') && depth_link > 0 => {
                depth_link -= 1;
                k += 2;
                continue;
            }
            b'{' if bytes.get(k + 1) == Some(&b'{') => {
                depth_ph += 1;
                k += 2;
                continue;
            }
            b'}' if bytes.get(k + 1) == Some(&b'}') && depth_ph > 0 => {
                depth_ph -= 1;
                k += 2;
                continue;
            }
            b'|' if depth_link == 0 && depth_ph == 0 => {
                cells.push((body_off + start, &body[start..k]));
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    cells.push((body_off + start, &body[start..]));
    cells
        .into_iter()
        .map(|(o, c)| {
            let lead = c.len() - c.trim_start().len();
            (o + lead, c.trim())
        })
        .collect()
}

fn parse_table(lines: &[Line<'_>], errors: &mut Vec<SyntaxError>) -> Block {
    let span = lines[0].trimmed().offset..lines.last().map_or(0, |l| l.offset + l.text.len());
    let rows: Vec<Vec<(usize, &str)>> = lines.iter().map(|l| split_cells(&l.trimmed())).collect();
    let is_rule = |cells: &[(usize, &str)]| {
        cells.iter().all(|(_, c)| {
            let c = c.trim();
            !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')) && c.contains('-')
        })
    };
    if rows.len() < 2 || !is_rule(&rows[1]) {
        errors.push(
            SyntaxError::new(
                lines[0].trimmed().offset..lines[0].trimmed().offset + 1,
                "a table without its `| --- |` line",
            )
            .hint("write the header row, then a line such as `| --- | --- |`, then the rows"),
        );
        return Block::Table { header: Vec::new(), rows: Vec::new(), span };
    }
    let width = rows[0].len();
    let cells_of = |row: &[(usize, &str)], errors: &mut Vec<SyntaxError>| -> Vec<Vec<Inline>> {
        row.iter().map(|(o, c)| parse_inline(&[(*o, c)], errors)).collect()
    };
    let header = cells_of(&rows[0], errors);
    let mut body = Vec::new();
    for (n, row) in rows.iter().enumerate().skip(2) {
        if row.len() != width {
            let l = lines[n].trimmed();
            errors.push(
                SyntaxError::new(
                    l.offset..l.offset + l.text.len(),
                    format!("this row has {} cells, the header {width}", row.len()),
                )
                .hint("every row of a table has as many cells as its header (write `\\|` for a `|` in a cell)"),
            );
        }
        body.push(cells_of(row, errors));
    }
    Block::Table { header, rows: body, span }
}

/// Characters that may make up an icon name between colons.
fn icon_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'
}

/// Inline markup of a paragraph given as (offset, text) lines, joined by spaces.
pub fn parse_inline(segs: &[(usize, &str)], errors: &mut Vec<SyntaxError>) -> Vec<Inline> {
    // The joined text and, for every character, its byte offset in the file.
    let mut chars: Vec<(char, usize)> = Vec::new();
    for (n, (off, s)) in segs.iter().enumerate() {
        if n > 0 {
            let prev_end = segs[n - 1].0 + segs[n - 1].1.len();
            chars.push((' ', prev_end));
        }
        chars.extend(s.char_indices().map(|(i, c)| (c, off + i)));
    }
    let end_off = segs.last().map_or(0, |(o, s)| o + s.len());
    // Where the next `}}` and `]]` start, from each character on (one pass, so that a
    // paragraph full of unclosed `{{` stays linear).
    let n = chars.len();
    let mut next_brace = vec![n; n + 1];
    let mut next_bracket = vec![n; n + 1];
    for k in (0..n).rev() {
        let pair = |c: char| chars[k].0 == c && chars.get(k + 1).is_some_and(|x| x.0 == c);
        next_brace[k] = if pair('}') { k } else { next_brace[k + 1] };
        next_bracket[k] = if pair(']') { k } else { next_bracket[k + 1] };
    }
    let at = |i: usize| chars.get(i).map_or(end_off, |c| c.1);
    let end_of = |i: usize| chars.get(i).map_or(end_off, |c| c.1 + c.0.len_utf8());

    // A stack of open bold and italic runs: each holds its content, where it opened and
    // whether it is bold.
    let mut stack: Vec<(Vec<Inline>, usize, bool)> = vec![(Vec::new(), 0, false)];
    let mut text = String::new();
    let flush = |text: &mut String, stack: &mut Vec<(Vec<Inline>, usize, bool)>| {
        if !text.is_empty() {
            let top = &mut stack.last_mut().expect("a level").0;
            top.push(Inline::Text(std::mem::take(text)));
        }
    };
    let mut i = 0;
    while i < n {
        let c = chars[i].0;
        let next = chars.get(i + 1).map(|x| x.0);
        if c == '\\' {
            match next {
                Some(x) if x.is_ascii_punctuation() => {
                    text.push(x);
                    i += 2;
                }
                _ => {
                    text.push('\\');
                    i += 1;
                }
            }
            continue;
        }
        if c == '*' {
            let bold = next == Some('*');
            flush(&mut text, &mut stack);
            if stack.len() > 1 && stack.last().is_some_and(|s| s.2 == bold) {
                let (content, _, _) = stack.pop().expect("open run");
                let run = if bold { Inline::Bold(content) } else { Inline::Italic(content) };
                stack.last_mut().expect("a level").0.push(run);
            } else if stack.len() > MAX_EMPHASIS {
                errors.push(SyntaxError::new(at(i)..at(i) + 1, "bold and italic nested too deeply"));
                text.push_str(if bold { "**" } else { "*" });
            } else {
                stack.push((Vec::new(), i, bold));
            }
            i += if bold { 2 } else { 1 };
            continue;
        }
        if c == '{' && next == Some('{') {
            // A placeholder: up to the matching `}}`.
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
            flush(&mut text, &mut stack);
            match parse_placeholder(&chars[i..close + 2], end_of(close + 1)) {
                Ok(p) => stack.last_mut().expect("a level").0.push(Inline::Placeholder(p)),
                Err(e) => errors.push(e),
            }
            i = close + 2;
            continue;
        }
        if c == '[' && next == Some('[') {
            let close = Some(next_bracket[(i + 2).min(n)]).filter(|&k| k < n);
            let Some(close) = close else {
                errors.push(
                    SyntaxError::new(at(i)..at(i) + 2, "this link is never closed")
                        .hint("write `[[card-id]]` or `[[card-id|text]]` (or `\\[[` for two brackets in the text)"),
                );
                text.push_str("[[");
                i += 2;
                continue;
            };
            flush(&mut text, &mut stack);
            let inner: String = chars[i + 2..close].iter().map(|c| c.0).collect();
            let (target, label) = match inner.split_once('|') {
                Some((t, l)) => (t, Some(l.trim().to_string())),
                None => (inner.as_str(), None),
            };
            let lead = target.len() - target.trim_start().len();
            let t0 = at(i + 2 + target[..lead].chars().count());
            let target = target.trim().to_string();
            let t1 = t0 + target.len();
            if target.is_empty() {
                errors.push(
                    SyntaxError::new(at(i)..end_of(close + 1), "a link without a target").hint("write `[[card-id]]`"),
                );
            } else {
                stack.last_mut().expect("a level").0.push(Inline::Link {
                    target,
                    text: label.filter(|l| !l.is_empty()),
                    span: at(i)..end_of(close + 1),
                    target_span: t0..t1,
                });
            }
            i = close + 2;
            continue;
        }
        if c == ':' && (i == 0 || !chars[i - 1].0.is_alphanumeric()) {
            let mut j = i + 1;
            while j < n && icon_char(chars[j].0) {
                j += 1;
            }
            if j > i + 1 && j < n && chars[j].0 == ':' && (j + 1 >= n || !chars[j + 1].0.is_alphanumeric()) {
                flush(&mut text, &mut stack);
                let name: String = chars[i + 1..j].iter().map(|c| c.0).collect();
                stack.last_mut().expect("a level").0.push(Inline::Icon { name, span: at(i)..end_of(j) });
                i = j + 1;
                continue;
            }
        }
        text.push(c);
        i += 1;
    }
    flush(&mut text, &mut stack);
    while stack.len() > 1 {
        let (content, opened, bold) = stack.pop().expect("open run");
        let (mark, what) = if bold { ("**", "bold") } else { ("*", "italic") };
        errors.push(
            SyntaxError::new(at(opened)..at(opened) + mark.len(), format!("{what} text that is never closed"))
                .hint(format!("close it with `{mark}` in the same paragraph (write `\\*` for an asterisk)")),
        );
        let top = &mut stack.last_mut().expect("a level").0;
        top.push(Inline::Text(mark.into()));
        top.extend(content);
    }
    stack.pop().map(|s| s.0).unwrap_or_default()
}

/// `{{ name args }}` from its characters (with their offsets); `end` is the offset after `}}`.
fn parse_placeholder(chars: &[(char, usize)], end: usize) -> Result<Placeholder, SyntaxError> {
    let start = chars[0].1;
    let inner = &chars[2..chars.len() - 2];
    let off = |k: usize| inner.get(k).map_or(end - 2, |c| c.1);
    let mut k = 0;
    let skip_ws = |k: &mut usize| {
        while *k < inner.len() && inner[*k].0.is_whitespace() {
            *k += 1;
        }
    };
    skip_ws(&mut k);
    let name_start = k;
    while k < inner.len() && (inner[k].0.is_ascii_alphanumeric() || inner[k].0 == '-' || inner[k].0 == '_') {
        k += 1;
    }
    if k == name_start {
        return Err(SyntaxError::new(start..end, "a placeholder without a name")
            .hint("write `{{ name ... }}`, e.g. `{{ cards kind=\"attack\" }}` or `{{ value pikemen attack }}`"));
    }
    let name: String = inner[name_start..k].iter().map(|c| c.0).collect();
    let name_span = off(name_start)..off(k);
    if k < inner.len() && !inner[k].0.is_whitespace() {
        return Err(SyntaxError::new(
            off(k)..off(k) + inner[k].0.len_utf8(),
            format!("unexpected `{}` after the placeholder's name", inner[k].0),
        ));
    }
    let mut args = Vec::new();
    loop {
        skip_ws(&mut k);
        if k >= inner.len() {
            break;
        }
        let a0 = k;
        let word = |k: &mut usize| {
            let s = *k;
            while *k < inner.len() && !inner[*k].0.is_whitespace() && inner[*k].0 != '=' && inner[*k].0 != '"' {
                *k += 1;
            }
            (s, *k)
        };
        let quoted = |k: &mut usize| -> Result<(String, Range<usize>), SyntaxError> {
            let q = *k;
            *k += 1;
            let mut v = String::new();
            while *k < inner.len() && inner[*k].0 != '"' {
                if inner[*k].0 == '\\' && *k + 1 < inner.len() {
                    *k += 1;
                }
                v.push(inner[*k].0);
                *k += 1;
            }
            if *k >= inner.len() {
                return Err(SyntaxError::new(off(q)..off(q) + 1, "a quoted value that is never closed")
                    .hint("end it with `\"` before `}}`"));
            }
            // The value's span leaves the quotes out.
            let span = off(q + 1)..off(*k);
            *k += 1;
            Ok((v, span))
        };
        if inner[k].0 == '"' {
            let (v, vs) = quoted(&mut k)?;
            args.push(Arg { key: None, value: v, span: off(a0)..off(k), value_span: vs });
            continue;
        }
        let (ws, we) = word(&mut k);
        if ws == we {
            return Err(SyntaxError::new(
                off(k)..off(k) + 1,
                format!("unexpected `{}` in the placeholder", inner[k].0),
            ));
        }
        let w: String = inner[ws..we].iter().map(|c| c.0).collect();
        if k < inner.len() && inner[k].0 == '=' {
            k += 1;
            if k >= inner.len() || inner[k].0.is_whitespace() {
                return Err(SyntaxError::new(off(a0)..off(k), format!("`{w}=` without a value"))
                    .hint(format!("write `{w}=value` or `{w}=\"a value\"`")));
            }
            let (v, vs) = if inner[k].0 == '"' {
                quoted(&mut k)?
            } else {
                let (s, e) = word(&mut k);
                (inner[s..e].iter().map(|c| c.0).collect(), off(s)..off(e))
            };
            args.push(Arg { key: Some(w), value: v, span: off(a0)..off(k), value_span: vs });
        } else {
            args.push(Arg { key: None, value: w, span: off(ws)..off(we), value_span: off(ws)..off(we) });
        }
    }
    Ok(Placeholder { name, name_span, args, span: start..end })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<Block> {
        let (b, e) = parse(text);
        assert!(e.is_empty(), "{e:#?}");
        b
    }

    #[test]
    fn headings_paragraphs_and_lists() {
        let b =
            ok("# Setup\n\nShuffle the deck\nand deal.\n\n- one\n- two **bold**\n  still two\n\n1. first\n2. second\n");
        assert!(matches!(&b[0], Block::Heading { level: 1, .. }));
        assert_eq!(b[1], Block::Para { inline: vec![Inline::Text("Shuffle the deck and deal.".into())], span: 9..35 });
        let Block::List { ordered: false, items } = &b[2] else { panic!("{b:#?}") };
        assert_eq!(items.len(), 2);
        let Block::Para { inline, .. } = &items[1][0] else { panic!() };
        assert_eq!(inline[1], Inline::Bold(vec![Inline::Text("bold".into())]));
        assert_eq!(inline[2], Inline::Text(" still two".into()));
        assert!(matches!(&b[3], Block::List { ordered: true, items } if items.len() == 2));
    }

    #[test]
    fn nested_lists_and_notes() {
        let b = ok("- a\n  - a1\n  - a2\n- b\n\n> A note\n> over two lines.\n");
        let Block::List { items, .. } = &b[0] else { panic!() };
        assert!(matches!(&items[0][1], Block::List { items, .. } if items.len() == 2));
        assert!(matches!(&b[1], Block::Note(inner) if inner.len() == 1));
    }

    #[test]
    fn placeholders_links_and_icons_keep_their_offsets() {
        let text = "Deal {{ value pikemen attack }} with [[pikemen|the pike]] and :sword:.";
        let b = ok(text);
        let Block::Para { inline, .. } = &b[0] else { panic!() };
        let Inline::Placeholder(p) = &inline[1] else { panic!("{inline:#?}") };
        assert_eq!(p.name, "value");
        assert_eq!(&text[p.name_span.clone()], "value");
        assert_eq!(&text[p.args[0].span.clone()], "pikemen");
        assert_eq!(&text[p.span.clone()], "{{ value pikemen attack }}");
        let Inline::Link { target, text: label, target_span, .. } = &inline[3] else { panic!() };
        assert_eq!((target.as_str(), label.as_deref()), ("pikemen", Some("the pike")));
        assert_eq!(&text[target_span.clone()], "pikemen");
        assert!(matches!(&inline[5], Inline::Icon { name, .. } if name == "sword"));
    }

    #[test]
    fn named_and_quoted_arguments() {
        let text = "{{ cards kind=\"attack\" as=table values=\"attack, solo\" }}";
        let b = ok(text);
        let Block::Alone(p) = &b[0] else { panic!("{b:#?}") };
        assert_eq!(p.args.len(), 3);
        assert_eq!(p.args[0].key.as_deref(), Some("kind"));
        assert_eq!(p.args[0].value, "attack");
        assert_eq!(&text[p.args[0].value_span.clone()], "attack");
        assert_eq!(&text[p.args[0].span.clone()], "kind=\"attack\"");
        assert_eq!(p.args[2].value, "attack, solo");
    }

    #[test]
    fn tables_split_cells_outside_links() {
        let b = ok("| Card | Note |\n| --- | --- |\n| [[a|b]] | x \\| y |\n");
        let Block::Table { header, rows, .. } = &b[0] else { panic!() };
        assert_eq!(header.len(), 2);
        assert_eq!(rows[0].len(), 2);
        assert_eq!(rows[0][1], vec![Inline::Text("x | y".into())]);
    }

    #[test]
    fn comments_vanish_and_keep_positions() {
        let text = "<!-- a\nnote -->\nText {{ oops";
        let (_, e) = parse(text);
        assert_eq!(e.len(), 1);
        assert_eq!(&text[e[0].span.clone()], "{{");
    }

    #[test]
    fn syntax_errors_are_located() {
        let text = "**open\n\n{{ }}\n\n| a |\n| b |\n";
        let (_, e) = parse(text);
        let msgs: Vec<&str> = e.iter().map(|e| e.message.as_str()).collect();
        assert!(msgs.contains(&"bold text that is never closed"), "{msgs:?}");
        assert!(msgs.contains(&"a placeholder without a name"), "{msgs:?}");
        assert!(msgs.contains(&"a table without its `| --- |` line"), "{msgs:?}");
        let t = e.iter().find(|e| e.message.starts_with("a table")).unwrap();
        assert_eq!(t.span.start, text.find("| a").unwrap());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let (_, e) = parse(&">".repeat(100_000));
        assert!(e.iter().any(|e| e.message.contains("nested more than")), "{e:?}");
        let (_, e) = parse(&"* **".repeat(50_000));
        assert!(e.iter().any(|e| e.message.contains("nested too deeply")));
        // Unclosed openers do not make parsing quadratic.
        let t = std::time::Instant::now();
        let (_, e) = parse(&"{{ [[ ".repeat(200_000));
        assert!(!e.is_empty() && t.elapsed().as_secs() < 10);
    }

    #[test]
    fn escapes_and_plain_colons() {
        let b = ok("Choose one: \\{{ not \\[[ this \\*\\* and a:b:c *see* this");
        let Block::Para { inline, .. } = &b[0] else { panic!() };
        assert_eq!(inline[0], Inline::Text("Choose one: {{ not [[ this ** and a:b:c ".into()));
        assert_eq!(inline[1], Inline::Italic(vec![Inline::Text("see".into())]));
    }
}
