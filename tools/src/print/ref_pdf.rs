//! The rules reference as a PDF: the [`Doc`] laid out on pages of two columns (headings,
//! tables and the board's grid across the full width), each page drawn by the
//! `reference-page.svg` template and written with krilla, as the card sheets are.
//!
//! Cross-references print as `Name (p. N)` and are links; the pages are laid out again
//! until every page number is right (a number that changes can move the text after it).
//! Sections are bookmarks of the PDF.

use std::collections::BTreeMap;

use crown_engine::diag::Diagnostic;
use serde::Serialize;
use serde_json::json;

use super::fonts::{self, FontId};
use super::icons::IconSet;
use super::layout::{self, Align, Laid, Request, Run, VAlign};
use super::ref_doc::{plain, Block, Doc, Entry, Span, Table};
use super::render::parse_svg;
use super::sheet::{pt, Paper};
use super::templates::Templates;

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

struct Flow<'a> {
    icons: &'a IconSet,
    page_w: f32,
    page_h: f32,
    col_w: f32,
    pages: Vec<Vec<Item>>,
    col: usize,
    y: f32,
    /// Where the columns of the current page start (below the last full-width block).
    region_top: f32,
    /// Page numbers from the previous pass, for cross-references.
    known: &'a Places,
}

/// The text of inline content in layout markup, with cross-references as `Name (p. N)`;
/// the links it holds are added to `links`.
fn markup(r: &[Span], known: &Places, links: &mut Vec<(String, String)>) -> String {
    let mut s = String::new();
    for p in r {
        match p {
            Span::Text(t) => s.push_str(t),
            Span::Markup(m) => s.push_str(m),
            Span::Bold(v) => {
                let inner = markup(v, known, links);
                let trimmed = inner.trim_end();
                s.push_str(&format!("**{trimmed}**"));
                s.push_str(&inner[trimmed.len()..]);
            }
            Span::Italic(v) => s.push_str(&markup(v, known, links)),
            Span::Icon(n) => s.push_str(&format!(":{n}:")),
            Span::Link { text, anchor, .. } => match anchor {
                Some(a) => {
                    let page = known.get(a).map_or_else(|| "?".to_string(), |(p, _)| (p + 1).to_string());
                    let label = format!("{text} (p. {page})");
                    s.push_str(&label);
                    links.push((label, a.clone()));
                }
                None => s.push_str(text),
            },
        }
    }
    s
}

impl<'a> Flow<'a> {
    fn new(icons: &'a IconSet, pw: f32, ph: f32, known: &'a Places) -> Self {
        let col_w = (pw - 2.0 * PAGE_MARGIN - GUTTER) / 2.0;
        let top = PAGE_MARGIN + 8.0;
        Flow { icons, page_w: pw, page_h: ph, col_w, pages: vec![Vec::new()], col: 0, y: top, region_top: top, known }
    }

    fn top(&self) -> f32 {
        PAGE_MARGIN + 8.0
    }

    fn bottom(&self) -> f32 {
        self.page_h - PAGE_MARGIN - 4.0
    }

    fn full_w(&self) -> f32 {
        self.page_w - 2.0 * PAGE_MARGIN
    }

    fn col_x(&self) -> f32 {
        PAGE_MARGIN + self.col as f32 * (self.col_w + GUTTER)
    }

    #[allow(clippy::too_many_arguments)]
    fn lay_with(&self, text: &str, x: f32, y: f32, w: f32, size: f32, font: FontId, align: Align) -> Laid {
        layout::layout(
            &Request {
                text,
                x,
                y,
                width: w,
                height: 100_000.0,
                size,
                min_size: size,
                line_height: LINE,
                align,
                valign: VAlign::Top,
                font,
            },
            self.icons,
        )
    }

    fn lay(&self, text: &str, x: f32, y: f32, w: f32, size: f32, font: FontId) -> Laid {
        self.lay_with(text, x, y, w, size, font, Align::Left)
    }

    fn page_empty(&self) -> bool {
        self.pages.last().is_none_or(Vec::is_empty)
    }

    fn lowest(&self) -> f32 {
        self.pages.last().map(|p| p.iter().map(|i| (i.y + i.h) as f32).fold(self.top(), f32::max)).unwrap_or(self.top())
    }

    fn new_page(&mut self) {
        self.balance();
        self.pages.push(Vec::new());
        self.col = 0;
        self.y = self.top();
        self.region_top = self.y;
    }

    /// The next column: the right one (from the top of the columns), or a new page.
    fn next_column(&mut self) {
        if self.col == 0 {
            self.col = 1;
            self.y = self.region_top;
        } else {
            self.new_page();
        }
    }

    fn push(&mut self, item: Item) {
        self.pages.last_mut().expect("a page").push(item);
    }

    /// Start a full-width block of about `need` mm below everything on the page.
    fn full_width_start(&mut self, need: f32) {
        self.balance();
        self.col = 0;
        self.y = if self.page_empty() { self.top() } else { self.lowest() + 4.0 };
        if self.y + need > self.bottom() && !self.page_empty() {
            self.new_page();
        }
    }

    /// When the columns of the page's last region hold text in the left column only, share
    /// it out between both columns (splitting a paragraph between lines if need be), so
    /// that a heading or table that follows comes up close below.
    fn balance(&mut self) {
        if self.col != 0 {
            return;
        }
        let top = self.region_top;
        let Some(page) = self.pages.last_mut() else { return };
        let first = page.iter().position(|i| COLUMN_KINDS.contains(&i.kind) && i.y as f32 >= top - 0.01);
        let Some(first) = first else { return };
        // Only a region still all in the left column (a balanced one is left alone).
        let right = f64::from(PAGE_MARGIN + self.col_w);
        if page[first..].iter().any(|i| !COLUMN_KINDS.contains(&i.kind) || i.x >= right) {
            return;
        }
        let end = page[first..].iter().map(|i| (i.y + i.h) as f32).fold(top, f32::max);
        let total = end - top;
        if total < 25.0 {
            return;
        }
        let target = top + total / 2.0;
        // The first item that reaches past the middle: split it (text) or move it (others).
        let Some(k) = (first..page.len()).find(|&k| (page[k].y + page[k].h) as f32 > target + 0.01) else { return };
        let mut moved: Vec<Item> = Vec::new();
        let cut_item = &mut page[k];
        let mut split_at = k;
        if cut_item.kind == "text" && cut_item.parts.last().is_some_and(|p| p.laid.lines.len() > 1) {
            let text = cut_item.parts.last_mut().expect("a part");
            let size = text.laid.size as f32;
            let pitch = LINE * size;
            let keep = (((target - cut_item.y as f32) / pitch).ceil().max(1.0)) as usize;
            if keep < text.laid.lines.len() {
                let rest: Vec<layout::Line> = text.laid.lines.split_off(keep);
                text.laid.height = f64::from(keep as f32 * pitch);
                cut_item.h = text.laid.height;
                let mut second = cut_item.clone();
                second.parts = vec![Part {
                    role: "text",
                    laid: Laid { lines: rest, size: f64::from(size), height: 0.0, fits: true },
                }];
                let n = second.parts[0].laid.lines.len() as f32;
                second.parts[0].laid.height = f64::from(n * pitch);
                second.h = f64::from(n * pitch);
                second.y = cut_item.y + cut_item.h;
                moved.push(second);
            }
            split_at = k + 1;
        } else {
            // Whole blocks: the left column keeps this one if that evens the columns better.
            let bottom_k = (page[k].y + page[k].h) as f32;
            let after = page.get(k + 1).map_or(end, |i| i.y as f32);
            let keep_left = (bottom_k - top).max(end - after);
            let move_right = (page[k].y as f32 - top).max(end - page[k].y as f32);
            if keep_left < move_right {
                split_at = k + 1;
            }
        }
        // A heading never ends the left column.
        while split_at > first + 1 && page[split_at - 1].kind == "subheading" && moved.is_empty() {
            split_at -= 1;
        }
        if split_at <= first && moved.is_empty() {
            return;
        }
        let mut tail: Vec<Item> = page.split_off(split_at);
        moved.append(&mut tail);
        let Some(start) = moved.first().map(|i| i.y as f32) else { return };
        let dx = f64::from(self.col_w + GUTTER);
        let dy = f64::from(top - start);
        let mut right_end = top;
        for mut it in moved {
            shift_item(&mut it, dx, dy);
            right_end = right_end.max((it.y + it.h) as f32);
            page.push(it);
        }
        self.col = 1;
        self.y = right_end + 1.2;
    }

    /// After a full-width block: the columns start below it.
    fn full_width_end(&mut self, bottom: f32) {
        self.y = bottom;
        self.region_top = bottom;
        self.col = 0;
    }

    fn title(&mut self, doc: &Doc) {
        let w = self.full_w();
        let x = PAGE_MARGIN;
        let mut y = self.y;
        let t = self.lay(&doc.title, x, y, w, 7.0, FontId::SerifBold);
        y += t.height as f32 + 1.0;
        let m = self.lay(&doc.meta, x, y, w, 3.0, FontId::SansItalic);
        y += m.height as f32 + 1.5;
        let mut parts = vec![Part { role: "title", laid: t }, Part { role: "meta", laid: m }];
        if !doc.description.is_empty() {
            let d = self.lay(&doc.description, x, y, w, BODY, FontId::Sans);
            y += d.height as f32;
            parts.push(Part { role: "text", laid: d });
        }
        let h = y - self.y + 2.0;
        let top = self.y;
        self.push(Item {
            kind: "title",
            x: f64::from(x),
            y: f64::from(top),
            w: f64::from(w),
            h: f64::from(h),
            color: INK.into(),
            parts,
            cells: vec![],
            anchors: vec![],
            links: vec![],
        });
        self.full_width_end(top + h + 2.0);
    }

    /// The table of contents, with page numbers.
    fn contents(&mut self, items: &[(u8, String, String)]) {
        if items.is_empty() {
            return;
        }
        self.full_width_start(20.0);
        let x = PAGE_MARGIN;
        let w = self.full_w();
        let mut y = self.y;
        let mut parts = vec![Part { role: "title", laid: self.lay("Contents", x, y, w, 4.2, FontId::SerifBold) }];
        y += parts[0].laid.height as f32 + 1.0;
        let mut links = Vec::new();
        for (level, text, anchor) in items {
            let page = self.known.get(anchor).map_or_else(|| "?".to_string(), |(p, _)| (p + 1).to_string());
            let indent = if *level == 0 { 0.0 } else { 5.0 };
            let font = if *level == 0 { FontId::SansBold } else { FontId::Sans };
            let t = self.lay(text, x + indent, y, w - indent - 12.0, BODY, font);
            let n = self.lay_with(&page, x + w - 12.0, y, 12.0, BODY, font, Align::Right);
            y += t.height as f32 + 0.4;
            links.push((text.clone(), anchor.clone()));
            parts.push(Part { role: "text", laid: t });
            parts.push(Part { role: "text", laid: n });
        }
        let top = self.y;
        let h = y - top + 1.0;
        self.push(Item {
            kind: "toc",
            x: f64::from(x),
            y: f64::from(top),
            w: f64::from(w),
            h: f64::from(h),
            color: INK.into(),
            parts,
            cells: vec![],
            anchors: vec![],
            links,
        });
        self.full_width_end(top + h + 2.0);
    }

    /// A chapter (level 0, on a new page) or a section (level 1) across the full width.
    fn heading(&mut self, level: u8, text: &str, anchor: &str, color: &str) {
        if level == 0 && !self.page_empty() {
            self.new_page();
        }
        self.full_width_start(30.0);
        let size = if level == 0 { 6.2 } else { 5.0 };
        let t = self.lay(text, PAGE_MARGIN, self.y, self.full_w(), size, FontId::SerifBold);
        let h = t.height as f32 + 2.0;
        let top = self.y;
        self.push(Item {
            kind: "heading",
            x: f64::from(PAGE_MARGIN),
            y: f64::from(top),
            w: f64::from(self.full_w()),
            h: f64::from(h),
            color: color.to_string(),
            parts: vec![Part { role: "title", laid: t }],
            cells: vec![],
            anchors: vec![anchor.to_string()],
            links: vec![],
        });
        self.full_width_end(top + h + 2.5);
    }

    /// A heading inside a column, kept with what follows.
    fn subheading(&mut self, level: u8, text: &str, anchor: &str, color: &str) {
        let size = if level == 2 { 4.0 } else { 3.4 };
        let font = if level == 2 { FontId::SerifBold } else { FontId::SansBold };
        let gap = if self.y > self.region_top + 0.1 { 2.0 } else { 0.0 };
        let probe = self.lay(text, 0.0, 0.0, self.col_w, size, font);
        if self.y + gap + probe.height as f32 + 14.0 > self.bottom() {
            self.next_column();
        }
        let gap = if self.y > self.region_top + 0.1 { 2.0 } else { 0.0 };
        self.y += gap;
        let t = self.lay(text, self.col_x(), self.y, self.col_w, size, font);
        let h = t.height as f32 + 0.8;
        let top = self.y;
        let x = self.col_x();
        self.push(Item {
            kind: "subheading",
            x: f64::from(x),
            y: f64::from(top),
            w: f64::from(self.col_w),
            h: f64::from(h),
            color: color.to_string(),
            parts: vec![Part { role: "title", laid: t }],
            cells: vec![],
            anchors: vec![anchor.to_string()],
            links: vec![],
        });
        self.y = top + h + 1.2;
    }

    /// Running text in the current column, split across columns and pages as needed;
    /// `bullet` is the marker of a list item, hung in the indent.
    fn text(&mut self, text: &str, indent: f32, bullet: Option<&str>, links: Vec<(String, String)>) {
        if text.trim().is_empty() {
            return;
        }
        let x0 = self.col_x() + indent;
        let w = self.col_w - indent;
        let laid = self.lay(text, x0, 0.0, w, BODY, FontId::Sans);
        let size = laid.size as f32;
        let pitch = LINE * size;
        let above = (LINE * 0.5 + 0.5 * fonts::cap_height_em()) * size;
        let mut lines = laid.lines.into_iter().peekable();
        let mut first = true;
        while lines.peek().is_some() {
            let room = ((self.bottom() - self.y) / pitch).floor().max(0.0) as usize;
            let room = if room == 0 && self.y <= self.region_top + 0.1 { 1 } else { room };
            if room == 0 {
                self.next_column();
                continue;
            }
            let chunk: Vec<_> = lines.by_ref().take(room).collect();
            let dx = f64::from(self.col_x() + indent - x0);
            let first_top = chunk[0].y as f32 - above;
            let dy = f64::from(self.y - first_top);
            let shifted: Vec<layout::Line> = chunk.into_iter().map(|l| shift_line(l, dx, dy)).collect();
            let h = shifted.len() as f32 * pitch;
            let mut parts = Vec::new();
            if let (true, Some(b)) = (first, bullet) {
                let bl = self.lay_with(
                    b,
                    self.col_x() + indent - INDENT,
                    self.y,
                    INDENT - 0.8,
                    BODY,
                    FontId::Sans,
                    Align::Right,
                );
                parts.push(Part { role: "text", laid: bl });
            }
            parts.push(Part {
                role: "text",
                laid: Laid { lines: shifted, size: laid.size, height: f64::from(h), fits: true },
            });
            let x = self.col_x();
            self.push(Item {
                kind: "text",
                x: f64::from(x),
                y: f64::from(self.y),
                w: f64::from(self.col_w),
                h: f64::from(h),
                color: INK.into(),
                parts,
                cells: vec![],
                anchors: vec![],
                links: links.clone(),
            });
            self.y += h;
            first = false;
        }
        self.y += 1.2;
    }

    /// A note: a shaded box in the column (moved whole to the next column if it does not fit).
    fn note(&mut self, paras: &[(String, Vec<(String, String)>)]) {
        let build = |f: &Flow<'_>, y0: f32| -> (Vec<Part>, f32) {
            let x = f.col_x() + 3.0;
            let w = f.col_w - 5.0;
            let mut y = y0 + 1.6;
            let mut parts = Vec::new();
            for (p, _) in paras {
                let l = f.lay(p, x, y, w, BODY * 0.95, FontId::Sans);
                y += l.height as f32 + 1.0;
                parts.push(Part { role: "text", laid: l });
            }
            (parts, y - y0 + 0.6)
        };
        let (mut parts, mut h) = build(self, self.y);
        if self.y + h > self.bottom() && self.y > self.region_top + 0.1 {
            self.next_column();
            (parts, h) = build(self, self.y);
        }
        let x = self.col_x();
        self.push(Item {
            kind: "note",
            x: f64::from(x),
            y: f64::from(self.y),
            w: f64::from(self.col_w),
            h: f64::from(h),
            color: "#8a7a5c".into(),
            parts,
            cells: vec![],
            anchors: vec![],
            links: paras.iter().flat_map(|p| p.1.iter().cloned()).collect(),
        });
        self.y += h + 2.0;
    }

    /// A gallery entry: a bold title, a grey line of numbers, then paragraphs.
    fn entry(&mut self, e: &Entry) {
        let mut links = Vec::new();
        let paras: Vec<(bool, String)> =
            e.paras.iter().map(|p| (p.side, markup(&p.rich, self.known, &mut links))).collect();
        let meta = if e.meta.is_empty() { e.badge.clone() } else { format!("{} · {}", e.badge, e.meta) };
        let build = |f: &Flow<'_>, y0: f32| -> (Vec<Part>, f32) {
            let x = f.col_x() + 2.2;
            let w = f.col_w - 3.0;
            let mut y = y0 + 1.2;
            let mut parts = Vec::new();
            let t = f.lay(&e.title, x, y, w, 3.5, FontId::SansBold);
            y += t.height as f32 + 0.3;
            parts.push(Part { role: "title", laid: t });
            let m = f.lay(&meta, x, y, w, 2.6, FontId::SansItalic);
            y += m.height as f32 + 0.5;
            parts.push(Part { role: "meta", laid: m });
            for (side, p) in &paras {
                let l = f.lay(p, x, y, w, BODY, FontId::Sans);
                y += l.height as f32 + 0.6;
                parts.push(Part { role: if *side { "side" } else { "text" }, laid: l });
            }
            if !e.flavor.is_empty() {
                let l = f.lay(&e.flavor, x, y, w, 2.6, FontId::SansItalic);
                y += l.height as f32 + 0.6;
                parts.push(Part { role: "flavor", laid: l });
            }
            (parts, y - y0 + 1.0)
        };
        let (mut parts, mut h) = build(self, self.y);
        if self.y + h > self.bottom() && self.y > self.region_top + 0.1 {
            self.next_column();
            (parts, h) = build(self, self.y);
        }
        let x = self.col_x();
        self.push(Item {
            kind: "entry",
            x: f64::from(x),
            y: f64::from(self.y),
            w: f64::from(self.col_w),
            h: f64::from(h),
            color: if e.color.is_empty() { INK.into() } else { e.color.clone() },
            parts,
            cells: vec![],
            anchors: e.anchors.clone(),
            links,
        });
        self.y += h + 2.2;
    }

    /// Column widths that share the page width by how much each column has to say.
    fn widths(&self, rows: &[Vec<String>]) -> Vec<f32> {
        let n = rows.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let full = self.full_w();
        let mut want = vec![0.0f32; n];
        let mut word = vec![0.0f32; n];
        for (r, row) in rows.iter().enumerate() {
            let font = if r == 0 { FontId::SansBold } else { FontId::Sans };
            for (i, c) in row.iter().enumerate() {
                let plain: String = c.replace("**", "");
                let w = plain.split_whitespace().map(|x| fonts::width_em(font, x)).fold(0.0, f32::max) * 2.8 + 2.6;
                word[i] = word[i].max(w);
                // A header may wrap between its words; the cells below set the width.
                let longest = if r == 0 {
                    w
                } else {
                    plain.lines().map(|l| layout::measure(l, font, self.icons)).fold(0.0, f32::max) * 2.8 + 2.6
                };
                want[i] = want[i].max(longest);
            }
        }
        let total: f32 = want.iter().sum();
        if total <= full {
            let extra = (full - total) / n as f32;
            return want.iter().map(|w| w + extra).collect();
        }
        // Narrow columns keep their width; the others share what is left by weight.
        let mut widths = vec![0.0f32; n];
        let mut fixed = vec![false; n];
        // The first column names the row: it keeps its width unless that is very wide.
        if want[0] <= full * 0.25 {
            widths[0] = want[0];
            fixed[0] = true;
        }
        loop {
            let used: f32 = (0..n).filter(|&i| fixed[i]).map(|i| widths[i]).sum();
            let weight: f32 = (0..n).filter(|&i| !fixed[i]).map(|i| want[i]).sum();
            let left = full - used;
            let mut changed = false;
            for i in 0..n {
                if fixed[i] {
                    continue;
                }
                let share = left * want[i] / weight.max(1e-3);
                if want[i] <= share {
                    widths[i] = want[i];
                    fixed[i] = true;
                    changed = true;
                }
            }
            if !changed {
                for i in 0..n {
                    if !fixed[i] {
                        widths[i] = (left * want[i] / weight.max(1e-3)).max(word[i].min(left * 0.5));
                    }
                }
                break;
            }
        }
        let sum: f32 = widths.iter().sum();
        widths.iter().map(|w| w * full / sum).collect()
    }

    /// A table across the full width; rows that do not fit go on to the next page under
    /// the header again.
    fn table(&mut self, t: &Table, color: &str) {
        let mut links = Vec::new();
        let header: Vec<String> = t.header.iter().map(|c| markup(c, self.known, &mut links)).collect();
        let rows: Vec<(Vec<String>, Vec<String>)> = t
            .rows
            .iter()
            .map(|r| (r.cells.iter().map(|c| markup(c, self.known, &mut links)).collect(), r.anchors.clone()))
            .collect();
        let mut all = vec![header.clone()];
        all.extend(rows.iter().map(|r| r.0.clone()));
        let widths = self.widths(&all);
        self.full_width_start(16.0);
        let lay_row = |f: &Flow<'_>, row: &[String], y: f32, header: bool| -> (Vec<Cell>, f32) {
            let mut x = PAGE_MARGIN;
            let mut laid = Vec::new();
            let mut row_h: f32 = 0.0;
            for (i, w) in widths.iter().enumerate() {
                let text = row.get(i).cloned().unwrap_or_default();
                let font = if header { FontId::SansBold } else { FontId::Sans };
                let l = layout::layout(
                    &Request {
                        text: &text,
                        x: x + 1.2,
                        y: y + 0.8,
                        width: w - 2.4,
                        height: 10_000.0,
                        size: 2.8,
                        min_size: 1.8,
                        line_height: 1.2,
                        align: Align::Left,
                        valign: VAlign::Top,
                        font,
                    },
                    f.icons,
                );
                row_h = row_h.max(l.height as f32 + 1.6);
                laid.push((x, *w, l));
                x += w;
            }
            let cells = laid
                .into_iter()
                .map(|(x, w, l)| Cell {
                    x: f64::from(x),
                    y: f64::from(y),
                    w: f64::from(w),
                    h: f64::from(row_h),
                    header,
                    text: l,
                })
                .collect();
            (cells, row_h)
        };
        let mut cells = Vec::new();
        let mut anchors = Vec::new();
        let mut y0 = self.y;
        let (hc, hh) = lay_row(self, &header, self.y, true);
        cells.extend(hc);
        let mut y = self.y + hh;
        for (row, row_anchors) in &rows {
            let (mut rc, mut rh) = lay_row(self, row, y, false);
            if y + rh > self.bottom() && !cells.iter().all(|c| c.header) {
                // The page is full: close this part of the table, go on on the next page.
                self.push(Item {
                    kind: "table",
                    x: f64::from(PAGE_MARGIN),
                    y: f64::from(y0),
                    w: f64::from(self.full_w()),
                    h: f64::from(y - y0),
                    color: color.to_string(),
                    parts: vec![],
                    cells: std::mem::take(&mut cells),
                    anchors: std::mem::take(&mut anchors),
                    links: links.clone(),
                });
                self.new_page();
                y0 = self.y;
                let (hc, hh) = lay_row(self, &header, y0, true);
                cells.extend(hc);
                y = y0 + hh;
                (rc, rh) = lay_row(self, row, y, false);
            }
            cells.extend(rc);
            anchors.extend(row_anchors.iter().cloned());
            y += rh;
        }
        self.push(Item {
            kind: "table",
            x: f64::from(PAGE_MARGIN),
            y: f64::from(y0),
            w: f64::from(self.full_w()),
            h: f64::from(y - y0),
            color: color.to_string(),
            parts: vec![],
            cells,
            anchors,
            links,
        });
        self.full_width_end(y + 3.0);
    }

    /// The board's grid: a square per tile, then its legend.
    fn grid(&mut self, rows: &[String], legend: &[(String, String)]) {
        let w = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        let side = (self.full_w() / w.max(1) as f32).min(5.0);
        self.full_width_start(side * rows.len() as f32 + 12.0);
        let intro = format!(
            "Grid of {w} × {} tiles: {}.",
            rows.len(),
            legend.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
        );
        let top = self.y;
        let t = self.lay(&intro, PAGE_MARGIN, top, self.full_w(), BODY, FontId::Sans);
        let mut y = top + t.height as f32 + 1.5;
        let mut cells = Vec::new();
        for r in rows {
            for (i, c) in r.chars().enumerate() {
                let x = PAGE_MARGIN + i as f32 * side;
                let l =
                    self.lay_with(&c.to_string(), x, y + side * 0.18, side, side * 0.62, FontId::Sans, Align::Center);
                cells.push(Cell {
                    x: f64::from(x),
                    y: f64::from(y),
                    w: f64::from(side),
                    h: f64::from(side),
                    header: false,
                    text: l,
                });
            }
            y += side;
        }
        self.push(Item {
            kind: "table",
            x: f64::from(PAGE_MARGIN),
            y: f64::from(top),
            w: f64::from(self.full_w()),
            h: f64::from(y - top),
            color: INK.into(),
            parts: vec![Part { role: "text", laid: t }],
            cells,
            anchors: vec![],
            links: vec![],
        });
        self.full_width_end(y + 3.0);
    }

    fn blocks(&mut self, blocks: &[Block], indent: f32) {
        for b in blocks {
            self.block(b, indent);
        }
    }

    fn block(&mut self, b: &Block, indent: f32) {
        match b {
            Block::Heading { level, text, anchor, color } => {
                let c = color.clone().unwrap_or_else(|| INK.into());
                if *level <= 1 {
                    self.heading(*level, &plain(text), anchor, &c);
                } else {
                    self.subheading(*level, &plain(text), anchor, &c);
                }
            }
            Block::Para(r) => {
                let mut links = Vec::new();
                let m = markup(r, self.known, &mut links);
                self.text(&m, indent, None, links);
            }
            Block::List { ordered, items } => {
                for (n, item) in items.iter().enumerate() {
                    let marker = if *ordered { format!("{}.", n + 1) } else { "•".to_string() };
                    let inner = indent + INDENT;
                    match item.split_first() {
                        Some((Block::Para(r), rest)) => {
                            let mut links = Vec::new();
                            let m = markup(r, self.known, &mut links);
                            self.text(&m, inner, Some(&marker), links);
                            self.blocks(rest, inner);
                        }
                        _ => self.blocks(item, inner),
                    }
                }
            }
            Block::Note(inner) => {
                let mut paras = Vec::new();
                collect_note(inner, self.known, &mut paras, "");
                self.note(&paras);
            }
            Block::Table(t) => self.table(t, INK),
            Block::Entries(es) => {
                for e in es {
                    self.entry(e);
                }
            }
            Block::Grid { rows, legend } => self.grid(rows, legend),
        }
    }
}

/// The paragraphs of a note, lists flattened into bulleted lines.
fn collect_note(blocks: &[Block], known: &Places, out: &mut Vec<(String, Vec<(String, String)>)>, prefix: &str) {
    for b in blocks {
        match b {
            Block::Para(r) | Block::Heading { text: r, .. } => {
                let mut links = Vec::new();
                let m = markup(r, known, &mut links);
                out.push((format!("{prefix}{m}"), links));
            }
            Block::List { ordered, items } => {
                for (n, item) in items.iter().enumerate() {
                    let marker = if *ordered { format!("{}. ", n + 1) } else { "• ".to_string() };
                    collect_note(item, known, out, &marker);
                }
            }
            other => {
                let mut links = Vec::new();
                if let Block::Table(t) = other {
                    for r in &t.rows {
                        let cells: Vec<String> = r.cells.iter().map(|c| markup(c, known, &mut links)).collect();
                        out.push((cells.join(" · "), std::mem::take(&mut links)));
                    }
                }
            }
        }
    }
}

/// The kinds of block that sit in a column.
const COLUMN_KINDS: &[&str] = &["text", "subheading", "note", "entry"];

fn shift_item(it: &mut Item, dx: f64, dy: f64) {
    it.x += dx;
    it.y += dy;
    for p in &mut it.parts {
        p.laid.lines = std::mem::take(&mut p.laid.lines).into_iter().map(|l| shift_line(l, dx, dy)).collect();
    }
    for c in &mut it.cells {
        c.x += dx;
        c.y += dy;
        c.text.lines = std::mem::take(&mut c.text.lines).into_iter().map(|l| shift_line(l, dx, dy)).collect();
    }
}

fn shift_line(mut l: layout::Line, dx: f64, dy: f64) -> layout::Line {
    l.y += dy;
    for r in &mut l.runs {
        match r {
            Run::Text { x, .. } => *x += dx,
            Run::Icon { x, y, .. } => {
                *x += dx;
                *y += dy;
            }
        }
    }
    l
}

/// Lay the document out; returns the pages and where every anchor landed.
fn flow(doc: &Doc, icons: &IconSet, pw: f32, ph: f32, known: &Places) -> (Vec<Vec<Item>>, Places) {
    let mut f = Flow::new(icons, pw, ph, known);
    f.title(doc);
    f.contents(&doc.contents());
    f.blocks(&doc.blocks, 0.0);
    f.balance();
    let pages = std::mem::take(&mut f.pages);
    let mut places = Places::new();
    for (p, items) in pages.iter().enumerate() {
        for it in items {
            for a in &it.anchors {
                places.entry(a.clone()).or_insert((p, it.y as f32));
            }
        }
    }
    (pages, places)
}

/// Where `label` is printed in a laid-out text: rectangles in mm (x, top, width, height).
fn find_label(t: &Laid, label: &str) -> Vec<(f32, f32, f32, f32)> {
    let size = t.size as f32;
    let mut out = Vec::new();
    for line in &t.lines {
        for r in &line.runs {
            let Run::Text { x, text, weight, style, .. } = r else { continue };
            let font = match (*weight, *style) {
                ("bold", _) => FontId::SansBold,
                (_, "italic") => FontId::SansItalic,
                _ => FontId::Sans,
            };
            let mut from = 0;
            while let Some(i) = text[from..].find(label).map(|i| from + i) {
                let x0 = *x as f32 + fonts::width_em(font, &text[..i]) * size;
                let w = fonts::width_em(font, label) * size;
                out.push((x0, line.y as f32 - size * 0.85, w, size * 1.15));
                from = i + label.len();
            }
        }
    }
    out
}

/// Write the PDF.
pub fn write(
    doc: &Doc,
    templates: &Templates,
    icons: &IconSet,
    pack: serde_json::Value,
    paper: Paper,
) -> Result<Vec<u8>, Vec<Diagnostic>> {
    let (pw, ph) = paper.mm();
    let (pw, ph) = (pw as f32, ph as f32);
    // Lay out until the page numbers printed are the pages things landed on.
    let mut known = Places::new();
    let mut pages = Vec::new();
    for _ in 0..5 {
        let (p, places) = flow(doc, icons, pw, ph, &known);
        pages = p;
        let same = places.iter().all(|(a, (pg, _))| known.get(a).is_some_and(|k| k.0 == *pg));
        known = places;
        if same {
            break;
        }
    }
    let n = pages.len();
    let mut svgs = Vec::with_capacity(n);
    for (i, items) in pages.iter().enumerate() {
        let ctx = json!({
            "pack": pack,
            "page": { "w": pw, "h": ph, "number": i + 1, "count": n, "margin": PAGE_MARGIN },
            "items": items,
        });
        let svg = templates.render("reference-page.svg", &ctx).map_err(|e| {
            vec![Diagnostic::error(
                "template-error",
                format!("{} failed: {e}", templates.origin("reference-page.svg").describe("reference-page.svg")),
            )]
        })?;
        svgs.push(icons.attach_symbols(&svg));
    }
    let trees: Vec<_> = svgs
        .iter()
        .map(|s| parse_svg(s))
        .collect::<Result<_, _>>()
        .map_err(|e| vec![Diagnostic::error("render-error", format!("reference page is not valid SVG: {e}"))])?;
    let mut pdf = krilla::Document::new_with(krilla::SerializeSettings {
        enable_tagging: false,
        xmp_metadata: false,
        ..Default::default()
    });
    let size = krilla::geom::Size::from_wh(pt(f64::from(pw)), pt(f64::from(ph))).expect("paper size");
    let dest = |anchor: &str| {
        known.get(anchor).map(|(p, y)| {
            krilla::destination::XyzDestination::new(
                *p,
                krilla::geom::Point::from_xy(0.0, pt(f64::from((*y - 2.0).max(0.0)))),
            )
        })
    };
    for (t, items) in trees.iter().zip(&pages) {
        let mut page = pdf.start_page_with(krilla::page::PageSettings::new(size));
        let mut surface = page.surface();
        krilla_svg::SurfaceExt::draw_svg(&mut surface, t, size, krilla_svg::SvgSettings::default());
        surface.finish();
        for it in items {
            for (label, anchor) in &it.links {
                let Some(d) = dest(anchor) else { continue };
                let laid = it.parts.iter().map(|p| &p.laid).chain(it.cells.iter().map(|c| &c.text));
                for l in laid {
                    for (x, y, w, h) in find_label(l, label) {
                        if let Some(rect) = krilla::geom::Rect::from_xywh(
                            pt(f64::from(x)),
                            pt(f64::from(y)),
                            pt(f64::from(w)),
                            pt(f64::from(h)),
                        ) {
                            page.add_annotation(
                                krilla::annotation::LinkAnnotation::new(
                                    rect,
                                    krilla::annotation::Target::Destination(d.clone().into()),
                                )
                                .into(),
                            );
                        }
                    }
                }
            }
        }
        page.finish();
    }
    // Bookmarks: chapters, sections and their sub-sections.
    let mut outline = krilla::outline::Outline::new();
    let mut stack: Vec<(u8, krilla::outline::OutlineNode)> = Vec::new();
    let close =
        |stack: &mut Vec<(u8, krilla::outline::OutlineNode)>, outline: &mut krilla::outline::Outline, level: u8| {
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                let (_, node) = stack.pop().expect("a node");
                match stack.last_mut() {
                    Some((_, parent)) => parent.push_child(node),
                    None => outline.push_child(node),
                }
            }
        };
    for b in &doc.blocks {
        if let Block::Heading { level, text, anchor, .. } = b {
            if *level > 2 {
                continue;
            }
            let Some(d) = dest(anchor) else { continue };
            close(&mut stack, &mut outline, *level);
            stack.push((*level, krilla::outline::OutlineNode::new(plain(text), d)));
        }
    }
    close(&mut stack, &mut outline, 0);
    pdf.set_outline(outline);
    pdf.set_metadata(krilla::metadata::Metadata::new().title(doc.title.clone()).creator("crown reference".into()));
    pdf.finish().map_err(|e| vec![Diagnostic::error("pdf-error", format!("could not write the PDF: {e:?}"))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_print_their_page() {
        let mut known = Places::new();
        known.insert("def-a".into(), (2, 30.0));
        let mut links = Vec::new();
        let r = vec![
            Span::Text("Play ".into()),
            Span::Link { text: "Alpha".into(), anchor: Some("def-a".into()), target: "a".into() },
            Span::Text(" or ".into()),
            Span::Link { text: "Beta".into(), anchor: None, target: "b".into() },
            Span::Bold(vec![Span::Text("now ".into())]),
        ];
        assert_eq!(markup(&r, &known, &mut links), "Play Alpha (p. 3) or Beta**now** ");
        assert_eq!(links, vec![("Alpha (p. 3)".to_string(), "def-a".to_string())]);
    }
}
