//! The rules reference as a PDF: the [`Doc`](super::ref_doc::Doc) laid out on pages of two columns (headings,
//! tables and the board's grid across the full width), each page drawn by the
//! `reference-page.svg` template and written with krilla, as the card sheets are.
//!
//! Cross-references print as `Name (p. N)` and are links; the pages are laid out again
//! until every page number is right (a number that changes can move the text after it).
//! Sections are bookmarks of the PDF.
//!
//! [`flow`] places blocks on the pages (columns, breaks, balancing), [`blocks`] lays out
//! each kind of block, [`table`] the tables and the grid, [`markup`] turns inline content
//! into layout markup, and [`pdf`] draws the pages and writes the file.

mod blocks;
mod flow;
mod markup;
mod pdf;
mod table;

use std::collections::BTreeMap;

use serde::Serialize;

use super::layout::Laid;

pub use pdf::write;

const PAGE_MARGIN: f32 = 15.0;
const GUTTER: f32 = 6.0;
/// Body text, in mm.
const BODY: f32 = 3.0;
const LINE: f32 = 1.3;
/// Indent of list items, per level.
const INDENT: f32 = 4.2;
const INK: &str = "#3a3a3a";

/// A block placed on a page.
#[derive(Debug, Clone, Serialize)]
struct Item {
    kind: &'static str,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    color: String,
    parts: Vec<Part>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cells: Vec<Cell>,
    /// Anchors shown by this item (a heading, an entry, table rows).
    #[serde(skip)]
    anchors: Vec<String>,
    /// Cross-references printed in it: (printed label, anchor).
    #[serde(skip)]
    links: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize)]
struct Part {
    role: &'static str,
    #[serde(flatten)]
    laid: Laid,
}

#[derive(Debug, Clone, Serialize)]
struct Cell {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    header: bool,
    text: Laid,
}

/// Where each anchor landed: page index and the top of its item, in mm.
type Places = BTreeMap<String, (usize, f32)>;

/// The kinds of block that sit in a column.
const COLUMN_KINDS: &[&str] = &["text", "subheading", "note", "entry"];
