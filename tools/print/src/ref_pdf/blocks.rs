//! Each kind of block laid out in the flow: the title, the contents, headings, running
//! text and lists, notes and gallery entries.

use super::flow::{shift_line, Flow};
use super::markup::{collect_note, markup};
use super::{Item, Part, BODY, INDENT, INK, LINE, PAGE_MARGIN};
use crate::fonts::{self, FontId};
use crate::layout::{self, Align, Laid};
use crate::ref_doc::{plain, Block, Doc, Entry};

impl Flow<'_> {
    pub(super) fn title(&mut self, doc: &Doc) {
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
    pub(super) fn contents(&mut self, items: &[(u8, String, String)]) {
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
    fn text(&mut self, text: &str, indent: f32, bullet: Option<&str>, mut links: Vec<(String, String)>) {
        if text.trim().is_empty() {
            return;
        }
        // Each piece of the text placed in a column carries its links: each label once.
        links.sort_unstable();
        links.dedup();
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

    /// A box laid out by `build` (its parts and height, from a top edge) at the current
    /// height, or whole in the next column when it does not fit below what this column
    /// already holds.
    fn laid_whole(&mut self, build: impl Fn(&Self, f32) -> (Vec<Part>, f32)) -> (Vec<Part>, f32) {
        let (parts, h) = build(self, self.y);
        if self.y + h > self.bottom() && self.y > self.region_top + 0.1 {
            self.next_column();
            return build(self, self.y);
        }
        (parts, h)
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
        let (parts, h) = self.laid_whole(build);
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
        let (parts, h) = self.laid_whole(build);
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

    pub(super) fn blocks(&mut self, blocks: &[Block], indent: f32) {
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
