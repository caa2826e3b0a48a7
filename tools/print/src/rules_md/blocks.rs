//! pulldown-cmark's events made into the rules document's blocks. Markdown that the
//! reference cannot print (a code block, a picture, HTML...) is an error at its span, with
//! a hint at what to write instead; its content is left out.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::inline::{self, push_code, push_text, Atom};
use super::placeholder::Ch;
use super::{Block, Inline, SyntaxError, MAX_DEPTH};

/// What pulldown-cmark is asked to read: CommonMark, GitHub's tables, and Obsidian's wiki
/// links for `[[card-id]]`. Footnotes, strikethrough, task lists and GitHub's alerts are
/// read only to be reported: designers' editors show them, the reference cannot.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_WIKILINKS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
}

const NO_LINKS: &str = "the reference links only to its own definitions and scenarios: write `[[card-id]]`, \
     `[[card-id|text]]` or `[[scenario:id]]`, and an address as plain text";

/// The events of one document, read front to back.
pub(super) struct Reader<'a> {
    src: &'a str,
    events: std::iter::Peekable<std::vec::IntoIter<(Event<'a>, Range<usize>)>>,
    /// Where the last text read ended (see [`push_text`]).
    last_text_end: usize,
    pub(super) errors: Vec<SyntaxError>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        let parser = Parser::new_ext(src, options());
        let mut errors = Vec::new();
        // A link definition prints nothing in Markdown: the line would vanish.
        for (_, def) in parser.reference_definitions().iter() {
            errors.push(SyntaxError::new(trim_end(src, def.span.clone()), "a link definition").hint(
                "Markdown leaves a line `[label]: address` out of the text, and the reference links only to its own \
                 definitions and scenarios (write `\\[` to start a line with a bracket)",
            ));
        }
        let events: Vec<_> = parser.into_offset_iter().collect();
        Reader { src, events: events.into_iter().peekable(), last_text_end: 0, errors }
    }

    /// The whole document.
    pub(super) fn document(&mut self) -> Vec<Block> {
        let mut blocks = Vec::new();
        while self.events.peek().is_some() {
            blocks.extend(self.blocks(0));
            // An end at the top level closes nothing: skip it.
            if let Some((Event::End(_), _)) = self.events.peek() {
                self.events.next();
            }
        }
        blocks
    }

    fn error(&mut self, span: Range<usize>, message: impl Into<String>, hint: impl Into<String>) {
        self.errors.push(SyntaxError::new(span, message).hint(hint));
    }

    /// Blocks up to the end of their container (not taken).
    fn blocks(&mut self, depth: usize) -> Vec<Block> {
        let mut out = Vec::new();
        loop {
            match self.events.peek() {
                None | Some((Event::End(_), _)) => break,
                Some((Event::Start(tag), _)) if is_block(tag) => {
                    let (Event::Start(tag), range) = self.events.next().expect("peeked") else { unreachable!() };
                    self.block(tag, range, depth, &mut out);
                }
                Some((Event::Rule, _)) => {
                    let (_, range) = self.events.next().expect("peeked");
                    self.error(
                        trim_end(self.src, range),
                        "a horizontal rule",
                        "the reference has none: headings divide it (write `\\---` for dashes in the text)",
                    );
                }
                // The text of an item of a tight list, outside any paragraph.
                Some(_) => {
                    let (atoms, span) = self.inline(false);
                    self.paragraph(atoms, span, &mut out);
                }
            }
        }
        out
    }

    fn block(&mut self, tag: Tag<'a>, range: Range<usize>, depth: usize, out: &mut Vec<Block>) {
        let src = self.src;
        match tag {
            Tag::Paragraph => {
                let (atoms, _) = self.inline(true);
                self.paragraph(atoms, trim_end(src, range), out);
            }
            Tag::Heading { level, .. } => {
                let level = level as usize;
                if level > 3 {
                    let at = range.start + src[range.clone()].find('#').unwrap_or(0);
                    self.error(
                        at..at + level,
                        format!("a heading of level {level}"),
                        "use `#`, `##` or `###`: the reference has three levels of headings",
                    );
                }
                let (atoms, _) = self.inline(true);
                let inline = inline::build(&atoms, src, &mut self.errors);
                out.push(Block::Heading { level: level.min(3) as u8, inline, span: trim_end(src, range) });
            }
            Tag::BlockQuote(kind) => {
                if kind.is_some() {
                    let text = &src[range.clone()];
                    let at = range.start + text.find("[!").unwrap_or(0);
                    let end = at + src[at..range.end].find(']').map_or(1, |e| e + 1);
                    self.error(
                        at..end,
                        format!("a GitHub alert (`{}`)", &src[at..end]),
                        "write a plain `>` note: the reference prints every note alike",
                    );
                }
                let inner = self.nested(depth);
                self.events.next();
                out.push(Block::Note(inner));
            }
            Tag::List(start) => {
                if let Some(n) = start.filter(|&n| n != 1) {
                    let text = &src[range.clone()];
                    let at = range.start + text.len() - text.trim_start().len();
                    let digits = src[at..].bytes().take_while(u8::is_ascii_digit).count().max(1);
                    self.error(
                        at..at + digits,
                        format!("a list numbered from {n}"),
                        "the reference numbers every list from 1: start it with `1.`",
                    );
                }
                let mut items = Vec::new();
                while let Some((Event::Start(Tag::Item), _)) = self.events.peek() {
                    self.events.next();
                    items.push(self.nested(depth));
                    self.events.next();
                }
                self.events.next();
                out.push(Block::List { ordered: start.is_some(), items });
            }
            Tag::Table(_) => out.push(self.table(range)),
            Tag::HtmlBlock => self.html_block(),
            Tag::CodeBlock(kind) => {
                let first = src[range.clone()].lines().next().unwrap_or("").trim_end();
                let hint = match kind {
                    CodeBlockKind::Indented => {
                        "the reference has no code blocks: a paragraph indented by four spaces or more after a \
                         blank line is one, so indent it less"
                    }
                    CodeBlockKind::Fenced(_) => "the reference has no code blocks: write the text as a paragraph",
                };
                self.error(range.start..range.start + first.len(), "a code block", hint);
                self.skip();
            }
            Tag::FootnoteDefinition(_) => {
                let end = src[range.clone()].find("]:").map_or(range.end, |e| range.start + e + 2);
                self.error(
                    range.start..end,
                    "a footnote",
                    "the reference has no footnotes: write the note in the text, or as a `>` note",
                );
                self.skip();
            }
            _ => {
                // Nothing else is read (definition lists and metadata are not asked for).
                self.error(trim_end(src, range), "Markdown the reference cannot print", "leave it out");
                self.skip();
            }
        }
    }

    /// The blocks of a list item or a note, one level deeper; too deep, an error and none.
    fn nested(&mut self, depth: usize) -> Vec<Block> {
        if depth < MAX_DEPTH {
            return self.blocks(depth + 1);
        }
        let at = self.events.peek().map_or(self.src.len(), |(_, r)| r.start);
        self.error(
            at..at + 1,
            format!("lists and notes nested more than {MAX_DEPTH} deep"),
            "a rules reference reads best with one or two levels",
        );
        // Skip to the container's end (left for the caller), however deep it goes.
        let mut open = 0usize;
        while let Some((ev, _)) = self.events.peek() {
            match ev {
                Event::End(_) if open == 0 => break,
                Event::End(_) => open -= 1,
                Event::Start(_) => open += 1,
                _ => {}
            }
            self.events.next();
        }
        Vec::new()
    }

    /// Skip what is inside the container just opened, and its end.
    fn skip(&mut self) {
        let mut open = 0usize;
        for (ev, _) in self.events.by_ref() {
            match ev {
                Event::End(_) if open == 0 => return,
                Event::End(_) => open -= 1,
                Event::Start(_) => open += 1,
                _ => {}
            }
        }
    }

    /// A paragraph (or the text of a tight list item), or a placeholder alone.
    fn paragraph(&mut self, atoms: Vec<Atom>, span: Range<usize>, out: &mut Vec<Block>) {
        self.check_table_like(&atoms, &span);
        let inline = inline::build(&atoms, self.src, &mut self.errors);
        match inline.as_slice() {
            [Inline::Placeholder(p)] => out.push(Block::Alone(p.clone())),
            _ => out.push(Block::Para { inline, span }),
        }
    }

    /// A paragraph that starts with `|` was meant as a table: its `| --- |` line is missing
    /// or does not match the header.
    fn check_table_like(&mut self, atoms: &[Atom], span: &Range<usize>) {
        let Some(Atom::Char(first)) = atoms.first() else { return };
        if !first.is('|') {
            return;
        }
        let text = &self.src[first.at..span.end.max(first.at)];
        let mut lines = text.lines();
        let header = cell_count(lines.next().unwrap_or(""));
        // The second line, without the `>` of a note.
        let rule = lines
            .next()
            .map(|l| l.trim_start_matches(['>', ' ', '\t']).trim())
            .filter(|l| l.contains('-') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t')));
        let at = first.at..first.at + 1;
        match rule {
            Some(rule) => self.error(
                at,
                format!("the `| --- |` line of this table has {} cells, the header {header}", cell_count(rule)),
                "give the line under the header as many cells as the header",
            ),
            None => self.error(
                at,
                "a table without its `| --- |` line",
                "write the header row, then a line such as `| --- | --- |`, then the rows",
            ),
        }
    }

    /// A table: its header's cells, then each row's, every row as wide as the header.
    fn table(&mut self, range: Range<usize>) -> Block {
        let mut header = Vec::new();
        let mut rows = Vec::new();
        while let Some((ev, r)) = self.events.next() {
            match ev {
                Event::Start(Tag::TableHead) => header = self.cells(),
                Event::Start(Tag::TableRow) => {
                    let line = self.src[r.start..].lines().next().unwrap_or("").trim_end();
                    let n = cell_count(line);
                    if n != header.len() {
                        self.error(
                            r.start..r.start + line.len(),
                            format!("this row has {n} cells, the header {}", header.len()),
                            "every row of a table has as many cells as its header, and a blank line ends the \
                             table (write `\\|` for a `|` in a cell, `[[card-id\\|text]]` in a link)",
                        );
                    }
                    rows.push(self.cells());
                }
                _ => break,
            }
        }
        Block::Table { header, rows, span: trim_end(self.src, range) }
    }

    /// The cells of a table's header or row, up to its end (taken).
    fn cells(&mut self) -> Vec<Vec<Inline>> {
        let mut cells = Vec::new();
        while let Some((Event::Start(Tag::TableCell), _)) = self.events.next() {
            let (atoms, _) = self.inline(true);
            cells.push(inline::build(&atoms, self.src, &mut self.errors));
        }
        cells
    }

    /// An HTML block: comments, which are left out, and nothing else.
    fn html_block(&mut self) {
        let mut open: Option<usize> = None;
        let mut comment = false;
        let mut reported = false;
        while let Some((ev, r)) = self.events.next() {
            let Event::Html(h) = ev else { break };
            let base = if self.src.get(r.clone()) == Some(&*h) { r.start } else { r.start.min(self.src.len()) };
            let mut k = 0;
            while k < h.len() {
                if open.is_some() {
                    match h[k..].find("-->") {
                        Some(j) => {
                            open = None;
                            k += j + 3;
                        }
                        None => break,
                    }
                    continue;
                }
                let rest = &h[k..];
                let ws = rest.len() - rest.trim_start().len();
                k += ws;
                if k >= h.len() {
                    break;
                }
                if h[k..].starts_with("<!--") {
                    open = Some(base + k);
                    comment = true;
                    // `<!-->` and `<!--->` close at once.
                    k += 2;
                    continue;
                }
                if !reported {
                    let line = h[k..].lines().next().unwrap_or("").trim_end();
                    let span = base + k..base + k + line.len().max(1);
                    if comment {
                        self.error(
                            span,
                            "text on the line of a comment",
                            "Markdown reads the rest of a comment's line as HTML: start the text on a line of its own",
                        );
                    } else {
                        self.error(
                            span,
                            "HTML in the rules document",
                            "the reference is written in Markdown alone (write `\\<` for a `<` in the text)",
                        );
                    }
                    reported = true;
                }
                break;
            }
        }
        if let Some(at) = open {
            self.error(at..at + 4, "this comment is never closed", "end it with `-->`");
        }
    }

    /// Inline content up to the end of its paragraph, heading or cell (taken, when
    /// `closed`), or, for the text of a tight list item, up to the next block or the item's
    /// end (not taken). Returns the atoms and the span they cover.
    fn inline(&mut self, closed: bool) -> (Vec<Atom>, Range<usize>) {
        let src = self.src;
        let mut atoms = Vec::new();
        let mut span: Option<Range<usize>> = None;
        // The inline tags open, each with whether it made an atom (bold, italic).
        let mut open: Vec<bool> = Vec::new();
        while let Some((ev, _)) = self.events.peek() {
            match ev {
                Event::End(_) if open.is_empty() => {
                    if closed {
                        self.events.next();
                    }
                    break;
                }
                Event::Start(tag) if is_block(tag) => break,
                Event::Rule => break,
                _ => {}
            }
            let (ev, r) = self.events.next().expect("peeked");
            let s = span.get_or_insert(r.clone());
            s.end = s.end.max(r.end);
            match ev {
                Event::Text(t) => {
                    push_text(src, &t, &r, self.last_text_end, &mut atoms);
                    self.last_text_end = r.end;
                }
                Event::Code(t) => {
                    push_code(src, &t, &r, &mut atoms);
                    self.last_text_end = r.end;
                }
                Event::SoftBreak => atoms.push(Atom::Char(Ch { c: ' ', at: r.start, literal: true })),
                Event::HardBreak => {
                    let hint = if src[r.clone()].starts_with('\\') {
                        "the reference joins a paragraph's lines: remove the `\\` at the end of the line, or leave \
                         a blank line to start a new paragraph"
                    } else {
                        "the reference joins a paragraph's lines: remove the spaces at the end of the line, or \
                         leave a blank line to start a new paragraph"
                    };
                    let written = src[r.clone()].trim_end_matches(['\n', '\r']);
                    self.error(r.start..r.start + written.len(), "a line break inside a paragraph", hint);
                    atoms.push(Atom::Char(Ch { c: ' ', at: r.start, literal: true }));
                }
                Event::Start(Tag::Emphasis) | Event::Start(Tag::Strong) => {
                    let bold = matches!(ev, Event::Start(Tag::Strong));
                    let len = if bold { 2 } else { 1 };
                    atoms.push(Atom::Open { bold, mark: r.start..(r.start + len).min(r.end) });
                    open.push(true);
                }
                Event::End(TagEnd::Emphasis) | Event::End(TagEnd::Strong) => {
                    let len = if matches!(ev, Event::End(TagEnd::Strong)) { 2 } else { 1 };
                    if open.pop() == Some(true) {
                        atoms.push(Atom::Close { mark: r.end.saturating_sub(len).max(r.start)..r.end });
                    }
                }
                Event::Start(Tag::Strikethrough) => {
                    let at = r.start;
                    let ticks = src[r.clone()].bytes().take_while(|&b| b == b'~').count().max(1);
                    self.error(
                        at..at + ticks,
                        "struck-through text",
                        "the reference cannot strike text out: leave out the `~` (write `\\~` for a tilde)",
                    );
                    open.push(false);
                }
                Event::End(_) => {
                    open.pop();
                }
                Event::Start(Tag::Link { link_type: LinkType::WikiLink { has_pothole }, .. }) => {
                    if let Some(link) = self.wiki_link(r, has_pothole) {
                        atoms.push(link);
                    }
                }
                Event::Start(Tag::Link { link_type, .. }) => {
                    let message = match link_type {
                        LinkType::Autolink | LinkType::Email => "an address in `<` `>`",
                        _ => "a Markdown link",
                    };
                    self.error(r, message, NO_LINKS);
                    self.skip();
                }
                Event::Start(Tag::Image { .. }) => {
                    self.error(
                        r,
                        "a picture",
                        "the rules document cannot show pictures (write `\\![` for the characters)",
                    );
                    self.skip();
                }
                Event::InlineHtml(h) => {
                    if !h.starts_with("<!--") {
                        self.error(
                            r,
                            "HTML in the text",
                            "the reference is written in Markdown alone (write `\\<` for a `<`)",
                        );
                    }
                }
                Event::FootnoteReference(_) => self.error(
                    r,
                    "a footnote",
                    "the reference has no footnotes: write the note in the text, or as a `>` note",
                ),
                Event::TaskListMarker(_) => self.error(
                    r,
                    "a task box",
                    "the reference has no boxes to tick: leave out the `[ ]` (write `\\[ ]` for the brackets)",
                ),
                Event::Start(_) => {
                    self.error(r, "Markdown the reference cannot print", "leave it out");
                    self.skip();
                }
                _ => self.error(r, "Markdown the reference cannot print", "leave it out"),
            }
        }
        let span = span.unwrap_or(0..0);
        (atoms, span)
    }

    /// `[[target]]` or `[[target|text]]` at `span`, up to its end (taken). The target is
    /// read from the file (trimmed), the text from the link's plain words.
    fn wiki_link(&mut self, span: Range<usize>, has_pothole: bool) -> Option<Atom> {
        let src = self.src;
        let mut label = String::new();
        let mut open = 0usize;
        let mut marked = false;
        for (ev, r) in self.events.by_ref() {
            match ev {
                Event::End(_) if open == 0 => break,
                Event::End(_) => open -= 1,
                Event::Start(_) => {
                    open += 1;
                    if !marked {
                        self.errors.push(
                            SyntaxError::new(r, "Markdown inside a link's text")
                                .hint("a link's text is printed plain: write `\\*` or `\\_` for the character"),
                        );
                        marked = true;
                    }
                }
                Event::Text(t) => label.push_str(&t),
                Event::Code(_) => label.push_str(&src[r]),
                Event::SoftBreak | Event::HardBreak => label.push(' '),
                _ => {}
            }
        }
        let inner_start = (span.start + 2).min(span.end);
        let inner = src.get(inner_start..span.end.saturating_sub(2).max(inner_start)).unwrap_or("");
        let raw = match inner.find('|') {
            // In a table the `|` is written `\|`.
            Some(p) if has_pothole => inner[..p].strip_suffix('\\').unwrap_or(&inner[..p]),
            _ => inner,
        };
        let lead = raw.len() - raw.trim_start().len();
        let target = raw.trim();
        if target.is_empty() {
            self.errors.push(SyntaxError::new(span, "a link without a target").hint("write `[[card-id]]`"));
            return None;
        }
        let t0 = inner_start + lead;
        let text = has_pothole.then(|| label.trim().to_string()).filter(|l| !l.is_empty());
        Some(Atom::Link { target: target.to_string(), text, span, target_span: t0..t0 + target.len() })
    }
}

/// Whether a tag opens a block (rather than inline content).
fn is_block(tag: &Tag<'_>) -> bool {
    !matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

/// A span without the line breaks and spaces that end it.
fn trim_end(src: &str, r: Range<usize>) -> Range<usize> {
    let text = src.get(r.clone()).unwrap_or("");
    r.start..r.start + text.trim_end().len()
}

/// How many cells a table row written on `line` has: its `|` that are not written `\|`,
/// the first and last left out.
fn cell_count(line: &str) -> usize {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let bytes = t.as_bytes();
    let mut bars = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => k += 1,
            b'|' => bars.push(k),
            _ => {}
        }
        k += 1;
    }
    if bars.last().is_some_and(|&b| t[b + 1..].trim().is_empty()) {
        bars.pop();
    }
    bars.len() + 1
}
