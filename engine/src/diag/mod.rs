//! Diagnostics: every problem Crown finds in content, scripts, templates or game files,
//! with the file, line, column, snippet and hint that say exactly what is wrong.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod codes;

/// How bad a diagnostic is. Errors make `crown check` fail; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// A second place a diagnostic refers to (the first definition of a duplicate id, say).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Related {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    #[serde(skip)]
    pub span: Range<usize>,
    pub message: String,
}

/// One problem, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable, kebab-case code such as `unknown-field` or `duplicate-id`.
    pub code: &'static str,
    pub message: String,
    /// The file, relative to the project root where possible.
    pub file: Option<PathBuf>,
    /// 1-based line; 0 when the diagnostic is about a whole file or has no file.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    #[serde(skip)]
    pub span: Option<Range<usize>>,
    /// Short text under the snippet's marker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        debug_assert!(
            codes::find(code).is_some(),
            "diagnostic code `{code}` is not in the catalogue: give it a page in docs/diagnostics.md"
        );
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            file: None,
            line: 0,
            column: 0,
            span: None,
            label: None,
            hint: None,
            related: Vec::new(),
        }
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, message) }
    }

    /// Attach a file without a position.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Attach a file and a byte span in it; line and column are computed from `source`.
    pub fn at(mut self, file: &SourceFile, span: Range<usize>) -> Self {
        let span = file.clamp(span);
        let (line, column) = file.line_col(span.start);
        self.file = Some(file.path.clone());
        self.line = line;
        self.column = column;
        self.span = Some(span);
        self
    }

    /// Attach a file and a 1-based line and column (as script compilers report them).
    pub fn at_line_col(mut self, file: &SourceFile, line: usize, column: usize) -> Self {
        let start = file.offset_of(line, column);
        let end = file.token_end(start);
        self.file = Some(file.path.clone());
        self.line = line.max(1);
        self.column = column.max(1);
        self.span = Some(start..end);
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn maybe_hint(mut self, hint: Option<String>) -> Self {
        if hint.is_some() {
            self.hint = hint;
        }
        self
    }

    pub fn related(mut self, file: &SourceFile, span: Range<usize>, message: impl Into<String>) -> Self {
        let span = file.clamp(span);
        let (line, column) = file.line_col(span.start);
        self.related.push(Related { file: file.path.clone(), line, column, span, message: message.into() });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:column` (or less, when the position is unknown).
    pub fn location(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), 0) => f.display().to_string(),
            (Some(f), l) => format!("{}:{}:{}", f.display(), l, self.column),
            (None, _) => String::from("<no file>"),
        }
    }
}

impl fmt::Display for Diagnostic {
    /// One line: `path:line:col: error[code]: message (hint: ...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}: {}[{}]: {}", self.location(), sev, self.code, self.message)?;
        if let Some(h) = &self.hint {
            write!(f, " (hint: {h})")?;
        }
        Ok(())
    }
}

/// The text of one file, kept so diagnostics can show snippets of it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path shown to the user (relative to the project root where possible).
    pub path: PathBuf,
    pub text: Arc<str>,
    line_starts: Arc<[usize]>,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile { path: path.into(), text, line_starts: starts.into() }
    }

    fn clamp(&self, span: Range<usize>) -> Range<usize> {
        let len = self.text.len();
        let mut start = span.start.min(len);
        while start > 0 && !self.text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = span.end.clamp(start, len);
        while end < len && !self.text.is_char_boundary(end) {
            end += 1;
        }
        start..end
    }

    /// The whole lines holding every span (clamped to the text), and the 1-based number of
    /// the first.
    pub fn lines_around<'a>(&self, spans: impl Iterator<Item = &'a Range<usize>>) -> (Range<usize>, usize) {
        let (mut lo, mut hi) = (usize::MAX, 0);
        for s in spans {
            let s = self.clamp(s.clone());
            (lo, hi) = (lo.min(s.start), hi.max(s.end));
        }
        if lo == usize::MAX {
            return (0..self.text.len(), 1);
        }
        // A span at the very end of a text ending in a line break is shown (as the
        // renderer shows it in the whole text) at the end of the last line.
        let at = if lo == self.text.len() && self.text.ends_with('\n') { lo - 1 } else { lo };
        let line = match self.line_starts.binary_search(&at) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let end = self.text[hi..].find('\n').map_or(self.text.len(), |i| hi + i + 1);
        (start..end, line + 1)
    }

    /// 1-based line and character column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.text.get(start..offset).map_or(1, |s| s.chars().count() + 1);
        (line + 1, col)
    }

    /// Byte offset of a 1-based line and character column (clamped to the text).
    pub fn offset_of(&self, line: usize, column: usize) -> usize {
        let line = line.max(1) - 1;
        let Some(&start) = self.line_starts.get(line) else {
            return self.text.len();
        };
        let rest = &self.text[start..];
        let line_text = rest.split('\n').next().unwrap_or("");
        let skip = column.max(1) - 1;
        start + line_text.char_indices().nth(skip).map_or(line_text.len(), |(i, _)| i)
    }

    /// End of the token starting at `start` (up to white space), at least one character.
    fn token_end(&self, start: usize) -> usize {
        let rest = &self.text[start.min(self.text.len())..];
        let len: usize = rest
            .char_indices()
            .find(|(_, c)| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';'))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            start + rest.chars().next().map_or(0, |c| c.len_utf8())
        } else {
            start + len
        }
    }
}

/// All the files diagnostics may point into, by their shown path.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: BTreeMap<PathBuf, SourceFile>,
}

impl SourceMap {
    pub fn insert(&mut self, file: SourceFile) {
        self.files.insert(file.path.clone(), file);
    }

    /// The line (from 1) where `fn name(` is defined in the file at `path`.
    pub fn fn_line(&self, path: &Path, name: &str) -> Option<usize> {
        let file = self.get(path)?;
        let needle = format!("fn {name}(");
        file.text.lines().position(|l| l.trim_start().starts_with(&needle)).map(|i| i + 1)
    }

    pub fn get(&self, path: &Path) -> Option<&SourceFile> {
        self.files.get(path)
    }

    pub fn extend(&mut self, other: &SourceMap) {
        for (k, v) in &other.files {
            self.files.insert(k.clone(), v.clone());
        }
    }
}

/// A line longer than this (in bytes) shows at most [`SNIPPETS_PER_LONG_LINE`] snippets.
const LONG_LINE: usize = 2_000;
const SNIPPETS_PER_LONG_LINE: usize = 50;

/// Render diagnostics for a person: snippet, marker, label, hint, related places.
pub fn render(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
    let renderer = if color { Renderer::styled() } else { Renderer::plain() };
    let mut out = String::new();
    // Snippets shown per long line: the renderer reads the whole line for each, so past a
    // few on one line (a header row of 16,384 unknown columns) the rest are shown by
    // place alone.
    let mut on_long_line: BTreeMap<(PathBuf, usize), usize> = BTreeMap::new();
    for d in diags {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let title = level.clone().primary_title(d.message.as_str()).id(d.code);
        let source = d.file.as_deref().and_then(|f| sources.get(f));
        let mut groups: Vec<Group<'_>> = Vec::new();
        let crowded = match (source, &d.span) {
            (Some(src), Some(span)) => {
                let (lines, first) = src.lines_around(std::iter::once(span));
                let n = on_long_line.entry((src.path.clone(), first)).or_default();
                *n += usize::from(lines.len() > LONG_LINE);
                *n > SNIPPETS_PER_LONG_LINE
            }
            _ => false,
        };
        match (source, &d.span) {
            (Some(src), Some(span)) if !crowded => {
                let path = src.path.to_str().unwrap_or("?");
                // Only the lines the annotations are on go to the renderer, which reads
                // what it is given: the whole file, for each of thousands of diagnostics
                // in a large file, took minutes.
                let here = d.related.iter().filter(|r| r.file == src.path).map(|r| &r.span);
                let (lines, first_line) = src.lines_around(std::iter::once(span).chain(here));
                let at = |r: &Range<usize>| r.start.saturating_sub(lines.start)..r.end.saturating_sub(lines.start);
                let mut ann = AnnotationKind::Primary.span(at(span));
                if let Some(l) = &d.label {
                    ann = ann.label(l.as_str());
                }
                let mut snippet =
                    Snippet::source(&src.text[lines.clone()]).line_start(first_line).path(path).annotation(ann);
                for r in &d.related {
                    if r.file == src.path {
                        snippet =
                            snippet.annotation(AnnotationKind::Context.span(at(&r.span)).label(r.message.as_str()));
                    }
                }
                groups.push(title.element(snippet));
            }
            _ => {
                let title = match &d.file {
                    Some(_) => format!("{} ({})", d.message, d.location()),
                    None => d.message.clone(),
                };
                groups.push(Group::with_title(level.primary_title(title).id(d.code)));
            }
        }
        for r in &d.related {
            if source.is_some_and(|s| s.path == r.file) {
                continue;
            }
            if let Some(rs) = sources.get(&r.file) {
                let path = rs.path.to_str().unwrap_or("?");
                groups.push(Level::NOTE.secondary_title(r.message.as_str()).element(
                    Snippet::source(&*rs.text).path(path).annotation(AnnotationKind::Primary.span(r.span.clone())),
                ));
            } else {
                groups.push(Group::with_title(Level::NOTE.secondary_title(format!(
                    "{} ({}:{}:{})",
                    r.message,
                    r.file.display(),
                    r.line,
                    r.column
                ))));
            }
        }
        if let Some(h) = &d.hint {
            groups.push(Group::with_title(Level::HELP.secondary_title(h.as_str())));
        }
        out.push_str(&renderer.render(&groups).to_string());
        out.push_str("\n\n");
    }
    out
}

/// The closest candidate to `word` by edit distance, if it is close enough to be a typo.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&word.to_lowercase(), &c.to_lowercase());
        let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Optimal string alignment distance over characters: insertions, deletions,
/// substitutions and swaps of two neighbouring characters each count as one edit.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// `"s"` unless `n` is one: `format!("{n} error{}", plural(n))`.
pub fn plural<N: PartialEq + From<u8>>(n: N) -> &'static str {
    if n == N::from(1) {
        ""
    } else {
        "s"
    }
}

/// `1 card`, `2 cards`, `0 armies`: a number with its noun, plural unless it is one
/// (English rules: `-s`, `-es` after s, x, z, ch, sh; `-ies` after a consonant and `y`),
/// or the plural given.
pub fn count_words(n: i64, word: &str, plural: Option<&str>) -> String {
    let mut out = String::with_capacity(word.len() + 24);
    write_count_words(&mut out, n, word, plural);
    out
}

/// [`count_words`] written at the end of `out`. Scripts call it in the labels of every
/// option they build, so it writes the number's digits itself and reads the word's ending
/// without a lower-case copy: only a letter of ASCII lower-cases to one of the letters the
/// rules look at.
pub fn write_count_words(out: &mut String, n: i64, word: &str, plural: Option<&str>) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut m = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
    out.push(' ');
    if n == 1 || n == -1 {
        out.push_str(word);
        return;
    }
    if let Some(p) = plural {
        out.push_str(p);
        return;
    }
    let mut ending = word.chars().rev().map(|c| c.to_ascii_lowercase());
    let last = ending.next();
    let before = ending.next();
    let vowel = |c: Option<char>| matches!(c, Some('a' | 'e' | 'i' | 'o' | 'u'));
    if last == Some('y') && before.is_some() && !vowel(before) {
        out.push_str(&word[..word.len() - 1]);
        out.push_str("ies");
    } else if matches!(last, Some('s' | 'x' | 'z')) || (last == Some('h') && matches!(before, Some('c' | 's'))) {
        out.push_str(word);
        out.push_str("es");
    } else {
        out.push_str(word);
        out.push('s');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules as first written (a lower-case copy, `format!`): the written-out
    /// [`count_words`] agrees with them on every word and number here.
    fn count_words_as_written(n: i64, word: &str, plural: Option<&str>) -> String {
        if n == 1 || n == -1 {
            return format!("{n} {word}");
        }
        if let Some(p) = plural {
            return format!("{n} {p}");
        }
        let lower = word.to_lowercase();
        let consonant_y = lower.ends_with('y') && !lower[..lower.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
        let p = if consonant_y && lower.len() > 1 {
            format!("{}ies", &word[..word.len() - 1])
        } else if ["s", "x", "z", "ch", "sh"].iter().any(|e| lower.ends_with(e)) {
            format!("{word}es")
        } else {
            format!("{word}s")
        };
        format!("{n} {p}")
    }

    #[test]
    fn count_words_agrees_with_the_rules_as_written() {
        let words = [
            "card",
            "army",
            "ARMY",
            "day",
            "DAY",
            "y",
            "Y",
            "coach",
            "COACH",
            "bush",
            "box",
            "buzz",
            "bus",
            "moth",
            "h",
            "sh",
            "ch",
            "",
            "ÿ",
            "Éy",
            "İy",
            "\u{212A}y",
            "ay",
            "Ay",
            "quay",
            "fly",
            "Ox",
            "café",
            "naïvety",
            "straße",
            "σ",
            "knight",
            "die",
            "xs",
            "ies",
        ];
        let numbers = [i64::MIN, i64::MIN + 1, -1_000_001, -2, -1, 0, 1, 2, 9, 10, 11, 99, 100, 1_234_567, i64::MAX];
        for w in words {
            for n in numbers {
                for plural in [None, Some("Danes"), Some("")] {
                    assert_eq!(count_words(n, w, plural), count_words_as_written(n, w, plural), "{n} {w:?} {plural:?}");
                }
            }
        }
    }

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new("a.toml", "ab\ncé d\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(7), (2, 4));
        assert_eq!(f.offset_of(2, 4), 7);
    }

    #[test]
    fn typo_suggestions() {
        assert_eq!(did_you_mean("cout", ["count", "cost", "name"]), Some("count"));
        assert_eq!(did_you_mean("zzzzzz", ["count", "cost"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_swap_of_neighbours_is_one_edit() {
        assert_eq!(edit_distance("chets", "chest"), 1);
        assert_eq!(edit_distance("cuont", "count"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("abc", "ca"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(did_you_mean("chets", ["chest", "coin", "double"]), Some("chest"));
        assert_eq!(did_you_mean("cuont", ["count", "cost"]), Some("count"));
    }

    #[test]
    fn no_file_means_no_location() {
        let d = Diagnostic::error("bad-bleed", "too much bleed").hint("use 3 mm");
        let text = render(&[d], &SourceMap::default(), false);
        assert!(text.contains("too much bleed") && !text.contains("no file"), "{text}");
    }

    #[test]
    fn display_has_location() {
        let f = SourceFile::new("c.toml", "x = 1\ny = 2\n");
        let d = Diagnostic::error("unknown-field", "unknown field `y`").at(&f, 6..7).hint("remove it");
        assert_eq!(d.to_string(), "c.toml:2:1: error[unknown-field]: unknown field `y` (hint: remove it)");
    }
}
