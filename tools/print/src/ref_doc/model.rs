//! The document model of the reference: blocks and inline spans, as the HTML, the
//! Markdown and the PDF writers read them.

/// A piece of inline content.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    /// Plain text, printed as it is.
    Text(String),
    /// Text of a definition, in card markup (`**bold**`, `:icon:`, line breaks).
    Markup(String),
    Bold(Vec<Span>),
    /// Emphasis (the PDF prints it upright: its text layout has no italic within a line).
    Italic(Vec<Span>),
    Icon(String),
    /// A cross-reference; `anchor` is where the target is shown (none when the reference
    /// does not show it: then it prints as its text alone).
    Link {
        text: String,
        anchor: Option<String>,
        target: String,
    },
}

pub type Rich = Vec<Span>;

/// A block of the reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Level 0 starts a chapter (a pack of the chain), 1 to 3 are the document's `#`, `##`, `###`.
    Heading {
        level: u8,
        text: Rich,
        anchor: String,
        color: Option<String>,
    },
    Para(Rich),
    List {
        ordered: bool,
        items: Vec<Vec<Block>>,
    },
    Note(Vec<Block>),
    Table(Table),
    Entries(Vec<Entry>),
    /// A board drawn as rows of one-character tiles, with its legend.
    Grid {
        rows: Vec<String>,
        legend: Vec<(String, String)>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<Rich>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Anchors of the definitions (or spaces) this row shows.
    pub anchors: Vec<String>,
    pub cells: Vec<Rich>,
}

/// One definition (or printed twins) or scenario in a gallery.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub anchors: Vec<String>,
    pub title: String,
    /// `#12 · ×2`: the serial number and the copies.
    pub badge: String,
    /// Kind, cost, values, keywords, decks.
    pub meta: String,
    pub color: String,
    pub paras: Vec<EntryPara>,
    pub flavor: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EntryPara {
    /// A stage, a second side or a seat, set off from the main text.
    pub side: bool,
    pub rich: Rich,
}

/// The whole reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub title: String,
    /// Version, players, cards, what it expands.
    pub meta: String,
    pub description: String,
    pub blocks: Vec<Block>,
}

impl Doc {
    /// Chapters and top-level sections, for tables of contents: (level, text, anchor).
    pub fn contents(&self) -> Vec<(u8, String, String)> {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Heading { level, text, anchor, .. } if *level <= 1 => {
                    Some((*level, plain(text), anchor.clone()))
                }
                _ => None,
            })
            .collect()
    }
}

/// The text of inline content without its markup.
pub fn plain(r: &[Span]) -> String {
    let mut s = String::new();
    for p in r {
        match p {
            Span::Text(t) | Span::Markup(t) => s.push_str(t),
            Span::Bold(v) | Span::Italic(v) => s.push_str(&plain(v)),
            Span::Icon(n) => s.push_str(&format!("[{n}]")),
            Span::Link { text, .. } => s.push_str(text),
        }
    }
    s
}

/// What a block costs to write and lay out: the bytes of its text, plus a hundred for
/// each row, entry, list item and paragraph (each is laid out on its own).
pub fn cost(b: &Block) -> usize {
    fn rich(r: &[Span]) -> usize {
        r.iter()
            .map(|p| match p {
                Span::Text(t) | Span::Markup(t) | Span::Icon(t) => t.len(),
                Span::Bold(v) | Span::Italic(v) => rich(v),
                Span::Link { text, target, .. } => text.len() + target.len(),
            })
            .sum()
    }
    const EACH: usize = 100;
    match b {
        Block::Heading { text, anchor, .. } => EACH + rich(text) + anchor.len(),
        Block::Para(r) => EACH + rich(r),
        Block::List { items, .. } => items.iter().flatten().map(cost).sum::<usize>() + EACH * (items.len() + 1),
        Block::Note(v) => EACH + v.iter().map(cost).sum::<usize>(),
        Block::Table(t) => {
            EACH + t.header.iter().map(|c| rich(c)).sum::<usize>()
                + t.rows.iter().map(|r| EACH + r.cells.iter().map(|c| rich(c)).sum::<usize>()).sum::<usize>()
        }
        Block::Entries(es) => es
            .iter()
            .map(|e| {
                EACH + e.title.len()
                    + e.badge.len()
                    + e.meta.len()
                    + e.flavor.len()
                    + e.paras.iter().map(|p| rich(&p.rich)).sum::<usize>()
            })
            .sum(),
        Block::Grid { rows, legend } => {
            EACH + rows.iter().map(String::len).sum::<usize>()
                + legend.iter().map(|(a, b)| a.len() + b.len()).sum::<usize>()
        }
    }
}
