//! PDF sheets: cards laid out in real units on A4 or Letter, as many as fit, with bleed,
//! crop marks outside the cut, and back pages mirrored for long-edge duplex printing.
//! Drawn with krilla from the same usvg trees that resvg rasterises, so the PDF and the
//! PNGs cannot disagree; text stays text, in the bundled fonts, embedded and subset.

use krilla::color::rgb;
use krilla::geom::{PathBuilder, Size, Transform};
use krilla::page::PageSettings;
use krilla::paint::Stroke;
use krilla::{Document, SerializeSettings};
use krilla_svg::{SurfaceExt, SvgSettings};
use resvg::usvg;
use serde::Serialize;

use super::render::{Geometry, Side};

/// Millimetres to PDF points.
pub fn pt(mm: f64) -> f32 {
    (mm * 72.0 / 25.4) as f32
}

/// Paper sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Paper {
    A4,
    Letter,
}

impl Paper {
    pub fn parse(s: &str) -> Option<Paper> {
        match s.to_ascii_lowercase().as_str() {
            "a4" => Some(Paper::A4),
            "letter" | "us-letter" => Some(Paper::Letter),
            _ => None,
        }
    }

    /// Width and height in millimetres, portrait.
    pub fn mm(self) -> (f64, f64) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (215.9, 279.4),
        }
    }
}

/// The page margin no card reaches into (most printers cannot print closer to the edge).
pub const MARGIN_MM: f64 = 5.0;
/// How far crop marks stay away from the bleed edge.
const MARK_GAP_MM: f64 = 1.0;
/// Longest crop mark.
const MARK_LEN_MM: f64 = 5.0;

/// How cards sit on a page.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Grid {
    pub paper_mm: (f64, f64),
    pub cols: usize,
    pub rows: usize,
    /// A card with its bleed, in millimetres.
    pub cell_mm: (f64, f64),
    /// The top-left corner of the first cell (bleed included), in millimetres.
    pub origin_mm: (f64, f64),
    pub bleed_mm: f64,
}

impl Grid {
    /// As many cards as fit inside the margins, centred on the page. `None` when not one
    /// card fits.
    pub fn plan(paper: Paper, geom: Geometry) -> Option<Grid> {
        let (pw, ph) = paper.mm();
        let (cw, ch) = geom.full();
        let cols = ((pw - 2.0 * MARGIN_MM + 1e-9) / cw).floor() as usize;
        let rows = ((ph - 2.0 * MARGIN_MM + 1e-9) / ch).floor() as usize;
        if cols == 0 || rows == 0 {
            return None;
        }
        let ox = (pw - cols as f64 * cw) / 2.0;
        let oy = (ph - rows as f64 * ch) / 2.0;
        Some(Grid { paper_mm: (pw, ph), cols, rows, cell_mm: (cw, ch), origin_mm: (ox, oy), bleed_mm: geom.bleed })
    }

    pub fn per_page(&self) -> usize {
        self.cols * self.rows
    }

    /// Top-left corner (bleed included) of slot `i` on a page of `side`. Backs mirror the
    /// columns, so a sheet turned over its long edge puts each back behind its front.
    pub fn cell(&self, slot: usize, side: Side) -> (f64, f64) {
        let (r, c) = (slot / self.cols, slot % self.cols);
        let c = match side {
            Side::Front => c,
            Side::Back => self.cols - 1 - c,
        };
        (self.origin_mm.0 + c as f64 * self.cell_mm.0, self.origin_mm.1 + r as f64 * self.cell_mm.1)
    }
}

/// One page: which side it shows, and which tree goes in which slot.
#[derive(Debug, Clone)]
pub struct PagePlan {
    pub side: Side,
    pub slots: Vec<(usize, usize)>,
}

/// A card placed on a page (for reports and tests), in millimetres from the top-left.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Placement {
    pub page: usize,
    pub side: &'static str,
    pub id: String,
    /// The cut line (bleed excluded).
    pub x_mm: f64,
    pub y_mm: f64,
    pub w_mm: f64,
    pub h_mm: f64,
}

/// Draw the pages. Slots name faces by index; `face(i)` hands over face `i` (waiting for
/// it if need be), or `None` when it could not be rendered: its place stays empty.
pub fn write_pdf(
    grid: &Grid,
    geom: Geometry,
    pages: &[PagePlan],
    face: &mut dyn FnMut(usize) -> Option<std::sync::Arc<usvg::Tree>>,
    crop_marks: bool,
    title: &str,
) -> Result<Vec<u8>, String> {
    let settings = SerializeSettings { enable_tagging: false, xmp_metadata: false, ..SerializeSettings::default() };
    let mut doc = Document::new_with(settings);
    let (pw, ph) = grid.paper_mm;
    let page_size = PageSettings::from_wh(pt(pw), pt(ph)).ok_or("bad page size")?;
    let cell = Size::from_wh(pt(grid.cell_mm.0), pt(grid.cell_mm.1)).ok_or("bad card size")?;
    for page in pages {
        let mut p = doc.start_page_with(page_size.clone());
        let mut s = p.surface();
        for &(slot, i) in &page.slots {
            let Some(tree) = face(i) else { continue };
            let (x, y) = grid.cell(slot, page.side);
            s.push_transform(&Transform::from_translate(pt(x), pt(y)));
            s.draw_svg(&tree, cell, SvgSettings::default());
            s.pop();
        }
        if crop_marks && page.side == Side::Front {
            if let Some(path) = crop_mark_path(grid, geom, page) {
                s.set_fill(None);
                s.set_stroke(Some(Stroke { paint: rgb::Color::new(0, 0, 0).into(), width: 0.3, ..Stroke::default() }));
                s.draw_path(&path);
                s.set_stroke(None);
            }
        }
        s.finish();
        p.finish();
    }
    doc.set_metadata(krilla::metadata::Metadata::new().title(title.to_string()).creator("crown print".to_string()));
    doc.finish().map_err(|e| format!("{e:?}"))
}

/// Marks in the margin on the extension of every cut line of the occupied cells.
fn crop_mark_path(grid: &Grid, geom: Geometry, page: &PagePlan) -> Option<krilla::geom::Path> {
    let (pw, ph) = grid.paper_mm;
    let used_cols: std::collections::BTreeSet<usize> = page.slots.iter().map(|(s, _)| s % grid.cols).collect();
    let used_rows: std::collections::BTreeSet<usize> = page.slots.iter().map(|(s, _)| s / grid.cols).collect();
    let (Some(&c0), Some(&c1)) = (used_cols.first(), used_cols.last()) else {
        return None;
    };
    let (Some(&r0), Some(&r1)) = (used_rows.first(), used_rows.last()) else {
        return None;
    };
    let b = geom.bleed;
    let top = grid.origin_mm.1 + r0 as f64 * grid.cell_mm.1;
    let bottom = grid.origin_mm.1 + (r1 + 1) as f64 * grid.cell_mm.1;
    let left = grid.origin_mm.0 + c0 as f64 * grid.cell_mm.0;
    let right = grid.origin_mm.0 + (c1 + 1) as f64 * grid.cell_mm.0;
    let mut xs = Vec::new();
    for c in &used_cols {
        let x = grid.origin_mm.0 + *c as f64 * grid.cell_mm.0 + b;
        xs.push(x);
        xs.push(x + geom.w);
    }
    let mut ys = Vec::new();
    for r in &used_rows {
        let y = grid.origin_mm.1 + *r as f64 * grid.cell_mm.1 + b;
        ys.push(y);
        ys.push(y + geom.h);
    }
    xs.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
    ys.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
    let mut pb = PathBuilder::new();
    let mut any = false;
    let mut seg = |pb: &mut PathBuilder, x1: f64, y1: f64, x2: f64, y2: f64| {
        if (x2 - x1).abs() + (y2 - y1).abs() >= 1.0 {
            pb.move_to(pt(x1), pt(y1));
            pb.line_to(pt(x2), pt(y2));
            any = true;
        }
    };
    // Leave 2 mm of paper edge unmarked.
    let edge = 2.0;
    for &x in &xs {
        let a = top - MARK_GAP_MM;
        seg(&mut pb, x, a, x, (a - MARK_LEN_MM).max(edge));
        let a = bottom + MARK_GAP_MM;
        seg(&mut pb, x, a, x, (a + MARK_LEN_MM).min(ph - edge));
    }
    for &y in &ys {
        let a = left - MARK_GAP_MM;
        seg(&mut pb, a, y, (a - MARK_LEN_MM).max(edge), y);
        let a = right + MARK_GAP_MM;
        seg(&mut pb, a, y, (a + MARK_LEN_MM).min(pw - edge), y);
    }
    if any {
        pb.finish()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poker_cards_fit_nine_to_a_page() {
        let g = Grid::plan(Paper::A4, Geometry { w: 63.0, h: 88.0, bleed: 0.0 }).unwrap();
        assert_eq!((g.cols, g.rows), (3, 3));
        assert!((g.origin_mm.0 - 10.5).abs() < 1e-9);
        let g = Grid::plan(Paper::Letter, Geometry { w: 63.0, h: 88.0, bleed: 0.0 }).unwrap();
        assert_eq!((g.cols, g.rows), (3, 3));
        let g = Grid::plan(Paper::A4, Geometry { w: 63.0, h: 88.0, bleed: 3.0 }).unwrap();
        assert_eq!((g.cols, g.rows), (2, 3));
        let g = Grid::plan(Paper::A4, Geometry { w: 44.0, h: 63.0, bleed: 0.0 }).unwrap();
        assert_eq!((g.cols, g.rows), (4, 4));
        assert!(Grid::plan(Paper::A4, Geometry { w: 250.0, h: 88.0, bleed: 0.0 }).is_none());
    }

    #[test]
    fn backs_mirror_the_columns() {
        let g = Grid::plan(Paper::A4, Geometry { w: 63.0, h: 88.0, bleed: 0.0 }).unwrap();
        let (fx, fy) = g.cell(0, Side::Front);
        let (bx, by) = g.cell(0, Side::Back);
        assert_eq!(fy, by);
        // Mirrored about the page's vertical centre line.
        assert!((fx + g.cell_mm.0 + bx - 210.0).abs() < 1e-9, "{fx} {bx}");
    }
}
