//! The page layout: two columns per page below full-width regions, column and page
//! breaks, and the balancing of a region's columns; [`flow`] lays out a whole document.

use super::{Item, Part, Places, COLUMN_KINDS, GUTTER, LINE, PAGE_MARGIN};
use crate::fonts::FontId;
use crate::icons::IconSet;
use crate::layout::{self, Align, Laid, Request, Run, VAlign};
use crate::ref_doc::Doc;

/// The layout in progress: the pages so far, the column and the height the next block
/// goes at.
pub(super) struct Flow<'a> {
    pub(super) icons: &'a IconSet,
    page_w: f32,
    page_h: f32,
    pub(super) col_w: f32,
    pages: Vec<Vec<Item>>,
    col: usize,
    pub(super) y: f32,
    /// Where the columns of the current page start (below the last full-width block).
    pub(super) region_top: f32,
    /// Page numbers from the previous pass, for cross-references.
    pub(super) known: &'a Places,
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

    pub(super) fn bottom(&self) -> f32 {
        self.page_h - PAGE_MARGIN - 4.0
    }

    pub(super) fn full_w(&self) -> f32 {
        self.page_w - 2.0 * PAGE_MARGIN
    }

    pub(super) fn col_x(&self) -> f32 {
        PAGE_MARGIN + self.col as f32 * (self.col_w + GUTTER)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn lay_with(&self, text: &str, x: f32, y: f32, w: f32, size: f32, font: FontId, align: Align) -> Laid {
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

    pub(super) fn lay(&self, text: &str, x: f32, y: f32, w: f32, size: f32, font: FontId) -> Laid {
        self.lay_with(text, x, y, w, size, font, Align::Left)
    }

    pub(super) fn page_empty(&self) -> bool {
        self.pages.last().is_none_or(Vec::is_empty)
    }

    fn lowest(&self) -> f32 {
        self.pages.last().map(|p| p.iter().map(|i| (i.y + i.h) as f32).fold(self.top(), f32::max)).unwrap_or(self.top())
    }

    pub(super) fn new_page(&mut self) {
        self.balance();
        self.pages.push(Vec::new());
        self.col = 0;
        self.y = self.top();
        self.region_top = self.y;
    }

    /// The next column: the right one (from the top of the columns), or a new page.
    pub(super) fn next_column(&mut self) {
        if self.col == 0 {
            self.col = 1;
            self.y = self.region_top;
        } else {
            self.new_page();
        }
    }

    pub(super) fn push(&mut self, item: Item) {
        self.pages.last_mut().expect("a page").push(item);
    }

    /// Start a full-width block of about `need` mm below everything on the page.
    pub(super) fn full_width_start(&mut self, need: f32) {
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
    pub(super) fn full_width_end(&mut self, bottom: f32) {
        self.y = bottom;
        self.region_top = bottom;
        self.col = 0;
    }
}

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

pub(super) fn shift_line(mut l: layout::Line, dx: f64, dy: f64) -> layout::Line {
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
pub(super) fn flow(doc: &Doc, icons: &IconSet, pw: f32, ph: f32, known: &Places) -> (Vec<Vec<Item>>, Places) {
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
