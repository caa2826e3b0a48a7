//! The rules document of a pack (`content/<pack>/rules.md`): Markdown, read with
//! pulldown-cmark (CommonMark with GitHub's tables and Obsidian's `[[wiki links]]`), with
//! Crown's placeholders and icons read from its text. Every piece knows its byte span in
//! the file, so that a mistake is reported at its line and column.
//!
//! What is understood:
//!
//! - `#`, `##`, `###` headings (or a line underlined with `===` or `---`); paragraphs; `-`,
//!   `*`, `+` and `1.` lists (nested by indenting); `>` notes; tables with a `| --- |` line
//!   under the header; `<!-- comments -->`.
//! - Inline: `**bold**`, `*italic*` (or `__bold__`, `_italic_`), `:icon:`, `[[card-id]]`
//!   and `[[card-id|text]]` links (also `[[scenario:id]]`), `{{ name args }}` placeholders,
//!   `` `code` `` (printed as written, backquotes included), `&amp;` and other entities, and
//!   `\` before a punctuation character to take it literally (`\{{`, `\[[`, `\*`, `\:`,
//!   `\|`, `\\`).
//!
//! Markdown the reference cannot print is an error at its place, never silently dropped
//! nor printed as written: headings deeper than `###`, lists numbered from anything but 1,
//! code blocks, horizontal rules, HTML other than comments, pictures, links to addresses
//! (and link definitions), footnotes, struck-through text, task boxes, GitHub's `[!NOTE]`
//! alerts and hard line breaks. So are the slips Markdown would print as plain text: an
//! unclosed `**`, `{{`, `[[` or `<!--`, and a table without its `| --- |` line or with a
//! row of another width.
//!
//! A placeholder is `{{ name ARG... }}` where each ARG is a bare word (a positional
//! argument) or `key=value`, the value bare or in double quotes. What the names mean is
//! decided by `ref_doc`; this module only reads the syntax.
//!
//! The work is split by job: [`blocks`] walks pulldown-cmark's events into blocks and
//! reports the constructs that have no place in a reference, [`inline`] turns a paragraph's
//! characters and marks into inline content (placeholders, icons, emphasis, links), and
//! [`placeholder`] reads one placeholder's name and arguments.

mod blocks;
mod inline;
mod placeholder;
#[cfg(test)]
mod tests;

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

/// How deep lists and notes may nest in one another.
const MAX_DEPTH: usize = 8;
/// How deep bold and italic may nest in one another.
const MAX_EMPHASIS: usize = 4;

/// Parse a rules document. Every syntax error found is returned, in the order of the
/// file; the blocks are those that parsed.
pub fn parse(text: &str) -> (Vec<Block>, Vec<SyntaxError>) {
    let mut reader = blocks::Reader::new(text);
    let blocks = reader.document();
    let mut errors = reader.errors;
    errors.sort_by_key(|e| e.span.start);
    (blocks, errors)
}
