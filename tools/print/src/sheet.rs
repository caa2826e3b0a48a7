//! PDF sheets: cards laid out in real units on any paper, as many as fit in whichever
//! orientation holds more, within the printer's margin, with bleed (shared between
//! neighbours when the gutter is narrower than two bleeds), crop marks outside the
//! picture and inside the margin, guides, and back pages placed for the way the printer
//! turns the sheet. With `--layout card`, the page is the card with its bleed (a grid of
//! one, no margin), each page carries a TrimBox (the cut) and a BleedBox (the picture's
//! edge), and colours are written in an ICC-based sRGB colour space.
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

use super::geometry::Geometry;
use super::render::Side;

/// Millimetres to PDF points.
pub fn pt(mm: f64) -> f32 {
    (mm * 72.0 / 25.4) as f32
}

/// Paper sizes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Paper {
    A4,
    Letter,
    A3,
    Tabloid,
    /// Any other size, in millimetres (`--paper 300x400`).
    Custom {
        w_mm: f64,
        h_mm: f64,
    },
}

impl Paper {
    /// A paper name (`a4`, `letter`, `a3`, `tabloid`; `us-letter` and `ledger` too) or
    /// `WxH` in millimetres (`300x400`, `300x400mm`), 50 to 2000 mm a side.
    pub fn parse(s: &str) -> Option<Paper> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "a4" => return Some(Paper::A4),
            "letter" | "us-letter" => return Some(Paper::Letter),
            "a3" => return Some(Paper::A3),
            "tabloid" | "ledger" => return Some(Paper::Tabloid),
            _ => {}
        }
        let (a, b) = t.trim_end_matches("mm").split_once('x')?;
        let (w, h) = (a.trim().parse::<f64>().ok()?, b.trim().parse::<f64>().ok()?);
        let ok = |x: f64| x.is_finite() && (50.0..=2000.0).contains(&x);
        (ok(w) && ok(h)).then_some(Paper::Custom { w_mm: w, h_mm: h })
    }

    /// Width and height in millimetres, portrait (the shorter side first).
    pub fn mm(self) -> (f64, f64) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (215.9, 279.4),
            Paper::A3 => (297.0, 420.0),
            Paper::Tabloid => (279.4, 431.8),
            Paper::Custom { w_mm, h_mm } => (w_mm.min(h_mm), w_mm.max(h_mm)),
        }
    }

    /// The name people know it by (`A4`, `Letter`, `300x400 mm`).
    pub fn name(self) -> String {
        match self {
            Paper::A4 => "A4".into(),
            Paper::Letter => "Letter".into(),
            Paper::A3 => "A3".into(),
            Paper::Tabloid => "Tabloid".into(),
            Paper::Custom { .. } => {
                let (w, h) = self.mm();
                format!("{}x{} mm", super::util::num(w), super::util::num(h))
            }
        }
    }
}

/// Which way up the paper is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    Portrait,
    Landscape,
}

/// How a double-sided print turns the sheet over, which decides where each back goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Duplex {
    /// Flipped over the paper's long edge (most printers' default).
    Long,
    /// Flipped over the paper's short edge.
    Short,
    /// Printed one side at a time: each back sits exactly where its front does, for
    /// cutting out and gluing.
    None,
}

/// The margin most printers leave unprinted (1/6 inch); nothing is drawn in it.
pub const DEFAULT_MARGIN_MM: f64 = 4.2;
/// How far crop marks stay away from the picture's edge (the bleed edge).
const MARK_GAP_MM: f64 = 1.0;
/// Longest crop mark.
const MARK_LEN_MM: f64 = 5.0;
/// Shortest crop mark: with crop marks, the grid leaves this much room (and the gap)
/// between its edge and the margin.
const MARK_MIN_MM: f64 = 2.0;
/// How far inside the cut line the safe-zone guide runs by default: what a cut a little
/// off may take (a shop preset sets its own).
pub const SAFE_MM: f64 = 3.0;

/// How cards are put on PDF pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// As many cards as fit on each sheet of paper, to print and cut yourself.
    Sheet,
    /// One card a page, the page its size with its bleed, each front followed by its
    /// back, one PDF per deck: what print shops taking PDFs ask for.
    Card,
}

/// How the sheets are laid out: what `--paper`, `--orientation`, `--margin`, `--gutter`,
/// `--duplex`, `--crop-marks` and `--guides` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PageSetup {
    pub paper: Paper,
    /// `None`: whichever holds more cards (portrait when equal).
    pub orientation: Option<Orientation>,
    /// The unprintable border of the paper: no card, bleed or mark reaches into it.
    pub margin_mm: f64,
    /// Space between the cut lines of neighbouring cards. Narrower than twice the bleed,
    /// neighbours share it: each card's picture stops halfway across.
    pub gutter_mm: f64,
    pub duplex: Duplex,
    pub crop_marks: bool,
    /// Draw the cut line, the bleed edge and the safe zone on every card.
    pub guides: bool,
    /// How far inside the cut the safe zone runs, in millimetres (guides on PDFs and PNGs).
    pub safe_mm: f64,
    pub layout: Layout,
}

impl Default for PageSetup {
    fn default() -> Self {
        PageSetup {
            paper: Paper::A4,
            orientation: None,
            margin_mm: DEFAULT_MARGIN_MM,
            gutter_mm: 0.0,
            duplex: Duplex::Long,
            crop_marks: false,
            guides: false,
            safe_mm: SAFE_MM,
            layout: Layout::Sheet,
        }
    }
}

impl PageSetup {
    /// The margin and gutter checked: errors say which option is wrong.
    pub fn check(&self) -> Result<(), String> {
        let (pw, _) = self.paper.mm();
        let m = self.margin_mm;
        if !(m.is_finite() && m >= 0.0 && 2.0 * m < pw) {
            return Err(format!("--margin must be 0 or more millimetres and leave room on the paper, not {m}"));
        }
        let g = self.gutter_mm;
        if !(g.is_finite() && (0.0..=100.0).contains(&g)) {
            return Err(format!("--gutter must be 0 to 100 millimetres, not {g}"));
        }
        if self.layout == Layout::Card && self.crop_marks {
            return Err("--crop-marks need paper around the cards; with --layout card each page is one card and its bleed, and the shop cuts at the page's TrimBox".into());
        }
        Ok(())
    }
}

/// How cards sit on a page.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Grid {
    /// The page as laid out (landscape: the longer side first).
    pub paper_mm: (f64, f64),
    pub orientation: Orientation,
    pub cols: usize,
    pub rows: usize,
    /// A card at its cut size.
    pub card_mm: (f64, f64),
    /// From one card's cut line to the next one's: the card and the gutter.
    pub pitch_mm: (f64, f64),
    /// The cut line's top-left corner of the first card, in millimetres.
    pub origin_mm: (f64, f64),
    pub bleed_mm: f64,
    pub gutter_mm: f64,
    pub margin_mm: f64,
    pub duplex: Duplex,
}

impl Grid {
    /// As many cards as fit inside the margins (leaving room for the outer bleed and the
    /// crop marks), centred on the page, in the orientation asked for or in whichever
    /// holds more. `None` when not one card fits.
    pub fn plan(setup: &PageSetup, geom: Geometry) -> Option<Grid> {
        if setup.layout == Layout::Card {
            return Some(Grid::one_card(geom));
        }
        let plan = |o: Orientation| Grid::plan_in(setup, geom, o);
        match setup.orientation {
            Some(o) => plan(o),
            None => match (plan(Orientation::Portrait), plan(Orientation::Landscape)) {
                (Some(p), Some(l)) => Some(if l.per_page() > p.per_page() { l } else { p }),
                (p, l) => p.or(l),
            },
        }
    }

    /// A page that is one card and its bleed: a grid of one, no margin, backs where their
    /// fronts are.
    pub fn one_card(geom: Geometry) -> Grid {
        let (fw, fh) = geom.full();
        Grid {
            paper_mm: (fw, fh),
            orientation: if geom.w > geom.h { Orientation::Landscape } else { Orientation::Portrait },
            cols: 1,
            rows: 1,
            card_mm: (geom.w, geom.h),
            pitch_mm: (geom.w, geom.h),
            origin_mm: (geom.bleed, geom.bleed),
            bleed_mm: geom.bleed,
            gutter_mm: 0.0,
            margin_mm: 0.0,
            duplex: Duplex::None,
        }
    }

    fn plan_in(setup: &PageSetup, geom: Geometry, o: Orientation) -> Option<Grid> {
        let (a, b) = setup.paper.mm();
        let (pw, ph) = match o {
            Orientation::Portrait => (a, b),
            Orientation::Landscape => (b, a),
        };
        let g = setup.gutter_mm;
        // Around the grid: the bleed, then room for the marks, then the margin.
        let marks = if setup.crop_marks { MARK_GAP_MM + MARK_MIN_MM } else { 0.0 };
        let border = setup.margin_mm + geom.bleed + marks;
        let fit = |room: f64, card: f64| ((room + g + 1e-9) / (card + g)).floor().max(0.0) as usize;
        let cols = fit(pw - 2.0 * border, geom.w);
        let rows = fit(ph - 2.0 * border, geom.h);
        if cols == 0 || rows == 0 {
            return None;
        }
        let gw = cols as f64 * geom.w + (cols - 1) as f64 * g;
        let gh = rows as f64 * geom.h + (rows - 1) as f64 * g;
        Some(Grid {
            paper_mm: (pw, ph),
            orientation: o,
            cols,
            rows,
            card_mm: (geom.w, geom.h),
            pitch_mm: (geom.w + g, geom.h + g),
            origin_mm: ((pw - gw) / 2.0, (ph - gh) / 2.0),
            bleed_mm: geom.bleed,
            gutter_mm: g,
            margin_mm: setup.margin_mm,
            duplex: setup.duplex,
        })
    }

    pub fn per_page(&self) -> usize {
        self.cols * self.rows
    }

    /// The column and row a slot takes on a page of `side`. Backs are placed where the
    /// sheet turned over brings them behind their fronts: over the long edge of a
    /// portrait page (or the short edge of a landscape one) the columns mirror; over the
    /// other edge, the rows.
    pub fn col_row(&self, slot: usize, side: Side) -> (usize, usize) {
        let (r, c) = (slot / self.cols, slot % self.cols);
        if side == Side::Front {
            return (c, r);
        }
        let mirror_cols = match (self.duplex, self.orientation) {
            (Duplex::None, _) => return (c, r),
            (Duplex::Long, Orientation::Portrait) | (Duplex::Short, Orientation::Landscape) => true,
            (Duplex::Long, Orientation::Landscape) | (Duplex::Short, Orientation::Portrait) => false,
        };
        if mirror_cols {
            (self.cols - 1 - c, r)
        } else {
            (c, self.rows - 1 - r)
        }
    }

    /// Top-left corner of the cut line of slot `i` on a page of `side`, in millimetres.
    pub fn card_at(&self, slot: usize, side: Side) -> (f64, f64) {
        let (c, r) = self.col_row(slot, side);
        (self.origin_mm.0 + c as f64 * self.pitch_mm.0, self.origin_mm.1 + r as f64 * self.pitch_mm.1)
    }

    /// How far a card's picture may run past its cut line on each side (left, top,
    /// right, bottom): the whole bleed at the grid's edge, at most half the gutter
    /// between neighbours.
    pub fn bleed_sides(&self, col: usize, row: usize) -> [f64; 4] {
        let b = self.bleed_mm;
        let inner = b.min(self.gutter_mm / 2.0);
        [
            if col == 0 { b } else { inner },
            if row == 0 { b } else { inner },
            if col + 1 == self.cols { b } else { inner },
            if row + 1 == self.rows { b } else { inner },
        ]
    }
}

/// One page: which side it shows, which tree goes in which slot, and the grid and size of
/// the pieces on it (cards, or tiles of one shape).
#[derive(Debug, Clone)]
pub struct PagePlan {
    pub side: Side,
    pub slots: Vec<(usize, usize)>,
    pub grid: Grid,
    pub geom: Geometry,
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

/// Draw the pages, each on its own grid. Slots name faces by index; `face(i)` hands over
/// face `i` (waiting for it if need be), or `None` when it could not be rendered: its
/// place stays empty.
pub fn write_pdf(
    pages: &[PagePlan],
    face: &mut dyn FnMut(usize) -> Option<std::sync::Arc<usvg::Tree>>,
    setup: &PageSetup,
    title: &str,
) -> Result<Vec<u8>, String> {
    let one_card = setup.layout == Layout::Card;
    let settings = SerializeSettings {
        enable_tagging: false,
        xmp_metadata: false,
        // A shop's file says what its colours are: sRGB, through an embedded ICC profile,
        // rather than the printer's own RGB.
        no_device_cs: one_card,
        ..SerializeSettings::default()
    };
    let mut doc = Document::new_with(settings);
    for page in pages {
        let (grid, geom) = (&page.grid, page.geom);
        let (pw, ph) = grid.paper_mm;
        let mut page_size = PageSettings::from_wh(pt(pw), pt(ph)).ok_or("bad page size")?;
        if one_card {
            // The picture runs to the page's edge (the BleedBox); the shop cuts at the TrimBox.
            let b = grid.bleed_mm;
            let trim = krilla::geom::Rect::from_xywh(pt(b), pt(b), pt(geom.w), pt(geom.h)).ok_or("bad trim box")?;
            let bleed = krilla::geom::Rect::from_xywh(0.0, 0.0, pt(pw), pt(ph)).ok_or("bad bleed box")?;
            page_size = page_size.with_trim_box(Some(trim)).with_bleed_box(Some(bleed));
        }
        let (fw, fh) = geom.full();
        let cell = Size::from_wh(pt(fw), pt(fh)).ok_or("bad card size")?;
        let b = geom.bleed;
        let mut p = doc.start_page_with(page_size);
        let mut s = p.surface();
        for &(slot, i) in &page.slots {
            let Some(tree) = face(i) else { continue };
            let (x, y) = grid.card_at(slot, page.side);
            let (c, r) = grid.col_row(slot, page.side);
            let sides = grid.bleed_sides(c, r);
            // Neighbours closer than two bleeds share them: clip this card's picture
            // halfway across the gutter.
            let shared = sides.iter().any(|&e| e < b - 1e-9);
            if shared {
                let clip = rect_path(x - sides[0], y - sides[1], x + geom.w + sides[2], y + geom.h + sides[3])
                    .ok_or("bad clip")?;
                s.push_clip_path(&clip, &krilla::paint::FillRule::NonZero);
            }
            s.push_transform(&Transform::from_translate(pt(x - b), pt(y - b)));
            s.draw_svg(&tree, cell, SvgSettings::default());
            s.pop();
            if shared {
                s.pop();
            }
        }
        let marks_here = page.side == Side::Front || grid.duplex == Duplex::None;
        if setup.crop_marks && marks_here {
            if let Some(path) = crop_mark_path(grid, geom, page) {
                s.set_fill(None);
                s.set_stroke(Some(Stroke { paint: rgb::Color::new(0, 0, 0).into(), width: 0.3, ..Stroke::default() }));
                s.draw_path(&path);
                s.set_stroke(None);
            }
        }
        if setup.guides {
            draw_guides(&mut s, grid, geom, page, setup.safe_mm)?;
        }
        s.finish();
        p.finish();
    }
    doc.set_metadata(krilla::metadata::Metadata::new().title(title.to_string()).creator("crown print".to_string()));
    doc.finish().map_err(|e| format!("{e:?}"))
}

/// A PDF of whole pages, each a tree drawn over a page of its size in millimetres (the
/// board sheets).
pub fn write_pages(pages: &[((f64, f64), std::sync::Arc<usvg::Tree>)], title: &str) -> Result<Vec<u8>, String> {
    let settings = SerializeSettings { enable_tagging: false, xmp_metadata: false, ..SerializeSettings::default() };
    let mut doc = Document::new_with(settings);
    for ((w, h), tree) in pages {
        let size = PageSettings::from_wh(pt(*w), pt(*h)).ok_or("bad page size")?;
        let mut p = doc.start_page_with(size);
        let mut s = p.surface();
        s.draw_svg(tree, Size::from_wh(pt(*w), pt(*h)).ok_or("bad page size")?, SvgSettings::default());
        s.finish();
        p.finish();
    }
    doc.set_metadata(krilla::metadata::Metadata::new().title(title.to_string()).creator("crown print".to_string()));
    doc.finish().map_err(|e| format!("{e:?}"))
}

/// A closed rectangle, corners in millimetres.
fn rect_path(x0: f64, y0: f64, x1: f64, y1: f64) -> Option<krilla::geom::Path> {
    let mut pb = PathBuilder::new();
    pb.move_to(pt(x0), pt(y0));
    pb.line_to(pt(x1), pt(y0));
    pb.line_to(pt(x1), pt(y1));
    pb.line_to(pt(x0), pt(y1));
    pb.close();
    pb.finish()
}

/// The colours of the guides: cut line, bleed edge, safe zone.
pub const GUIDE_CUT: (u8, u8, u8) = (0, 160, 230);
pub const GUIDE_BLEED: (u8, u8, u8) = (230, 40, 40);
pub const GUIDE_SAFE: (u8, u8, u8) = (200, 0, 200);

/// On every card of the page: its cut line (solid), how far its picture runs (the bleed
/// edge, dotted) and the safe zone a slightly crooked cut leaves alone (dashed).
fn draw_guides(
    s: &mut krilla::surface::Surface<'_>,
    grid: &Grid,
    geom: Geometry,
    page: &PagePlan,
    safe: f64,
) -> Result<(), String> {
    let stroke = |(r, g, b): (u8, u8, u8), dash: Option<Vec<f32>>| Stroke {
        paint: rgb::Color::new(r, g, b).into(),
        width: 0.6,
        dash: dash.map(|array| krilla::paint::StrokeDash { array, offset: 0.0 }),
        ..Stroke::default()
    };
    s.set_fill(None);
    for &(slot, _) in &page.slots {
        let (x, y) = grid.card_at(slot, page.side);
        let (c, r) = grid.col_row(slot, page.side);
        let (w, h) = (geom.w, geom.h);
        if geom.bleed > 0.0 {
            let e = grid.bleed_sides(c, r);
            s.set_stroke(Some(stroke(GUIDE_BLEED, Some(vec![0.8, 1.6]))));
            s.draw_path(&rect_path(x - e[0], y - e[1], x + w + e[2], y + h + e[3]).ok_or("bad guide")?);
        }
        s.set_stroke(Some(stroke(GUIDE_CUT, None)));
        s.draw_path(&rect_path(x, y, x + w, y + h).ok_or("bad guide")?);
        if safe > 0.0 && w > 2.0 * safe && h > 2.0 * safe {
            s.set_stroke(Some(stroke(GUIDE_SAFE, Some(vec![3.0, 2.0]))));
            s.draw_path(&rect_path(x + safe, y + safe, x + w - safe, y + h - safe).ok_or("bad guide")?);
        }
    }
    s.set_stroke(None);
    Ok(())
}

/// Marks on the extension of every cut line of the occupied cells, outside the grid and
/// its bleed, stopping at the margin (never in the printer's unprintable border).
fn crop_mark_path(grid: &Grid, geom: Geometry, page: &PagePlan) -> Option<krilla::geom::Path> {
    let (pw, ph) = grid.paper_mm;
    let cells: Vec<(usize, usize)> = page.slots.iter().map(|(s, _)| grid.col_row(*s, page.side)).collect();
    let used_cols: std::collections::BTreeSet<usize> = cells.iter().map(|c| c.0).collect();
    let used_rows: std::collections::BTreeSet<usize> = cells.iter().map(|c| c.1).collect();
    let (Some(&c0), Some(&c1)) = (used_cols.first(), used_cols.last()) else {
        return None;
    };
    let (Some(&r0), Some(&r1)) = (used_rows.first(), used_rows.last()) else {
        return None;
    };
    let (ox, oy) = grid.origin_mm;
    let (sx, sy) = grid.pitch_mm;
    // The picture's outer edges, bleed included.
    let b = geom.bleed;
    let top = oy + r0 as f64 * sy - b;
    let bottom = oy + r1 as f64 * sy + geom.h + b;
    let left = ox + c0 as f64 * sx - b;
    let right = ox + c1 as f64 * sx + geom.w + b;
    let mut xs = Vec::new();
    for c in &used_cols {
        let x = ox + *c as f64 * sx;
        xs.push(x);
        xs.push(x + geom.w);
    }
    let mut ys = Vec::new();
    for r in &used_rows {
        let y = oy + *r as f64 * sy;
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
    let m = grid.margin_mm;
    for &x in &xs {
        let a = top - MARK_GAP_MM;
        seg(&mut pb, x, a, x, (a - MARK_LEN_MM).max(m));
        let a = bottom + MARK_GAP_MM;
        seg(&mut pb, x, a, x, (a + MARK_LEN_MM).min(ph - m));
    }
    for &y in &ys {
        let a = left - MARK_GAP_MM;
        seg(&mut pb, a, y, (a - MARK_LEN_MM).max(m), y);
        let a = right + MARK_GAP_MM;
        seg(&mut pb, a, y, (a + MARK_LEN_MM).min(pw - m), y);
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

    fn g(w: f64, h: f64, bleed: f64) -> Geometry {
        Geometry { w, h, bleed }
    }

    fn on(paper: Paper) -> PageSetup {
        PageSetup { paper, ..PageSetup::default() }
    }

    #[test]
    fn papers_parse() {
        assert_eq!(Paper::parse("A4"), Some(Paper::A4));
        assert_eq!(Paper::parse("tabloid").map(Paper::mm), Some((279.4, 431.8)));
        assert_eq!(Paper::parse("a3").map(Paper::mm), Some((297.0, 420.0)));
        assert_eq!(Paper::parse("400x300mm").map(Paper::mm), Some((300.0, 400.0)));
        assert_eq!(Paper::parse("a5"), None);
        assert_eq!(Paper::parse("10x300"), None);
        assert_eq!(Paper::Custom { w_mm: 300.0, h_mm: 450.5 }.name(), "300x450.5 mm");
    }

    #[test]
    fn the_grid_holds_as_many_cards_as_fit_in_either_orientation() {
        let plan = |s: &PageSetup, geom| {
            let g = Grid::plan(s, geom).unwrap();
            (g.cols, g.rows, g.orientation)
        };
        use Orientation::*;
        assert_eq!(plan(&on(Paper::A4), g(63.0, 88.0, 0.0)), (3, 3, Portrait));
        assert_eq!(plan(&on(Paper::Letter), g(63.0, 88.0, 0.0)), (3, 3, Portrait));
        // With bleed and no gutter neighbours share their bleed: still nine to a page.
        assert_eq!(plan(&on(Paper::A4), g(63.0, 88.0, 3.0)), (3, 3, Portrait));
        assert_eq!(plan(&on(Paper::Letter), g(63.0, 88.0, 3.0)), (3, 3, Portrait));
        // A gutter of twice the bleed gives each card all of it: six, either way up
        // (portrait when equal, or as asked).
        let gutter = PageSetup { gutter_mm: 6.0, ..on(Paper::Letter) };
        assert_eq!(plan(&gutter, g(63.0, 88.0, 3.0)), (3, 2, Portrait));
        let landscape = PageSetup { orientation: Some(Landscape), ..gutter };
        assert_eq!(plan(&landscape, g(63.0, 88.0, 3.0)), (3, 2, Landscape));
        // Landscape holds more: 18 mini cards on A4 (16 portrait), 18 poker cards on A3
        // and Tabloid (16 portrait).
        assert_eq!(plan(&on(Paper::A4), g(44.0, 63.0, 0.0)), (6, 3, Landscape));
        assert_eq!(plan(&on(Paper::A3), g(63.0, 88.0, 0.0)), (6, 3, Landscape));
        assert_eq!(plan(&on(Paper::Tabloid), g(63.0, 88.0, 0.0)), (6, 3, Landscape));
        let portrait = PageSetup { orientation: Some(Portrait), ..on(Paper::A3) };
        assert_eq!(plan(&portrait, g(63.0, 88.0, 0.0)), (4, 4, Portrait));
        // Wide cards go landscape.
        assert_eq!(plan(&on(Paper::A4), g(88.0, 63.0, 0.0)), (3, 3, Landscape));
        assert!(Grid::plan(&on(Paper::A4), g(250.0, 300.0, 0.0)).is_none());
        // A card wider than portrait paper still fits across a landscape page.
        assert_eq!(plan(&on(Paper::A4), g(250.0, 88.0, 0.0)), (1, 2, Landscape));
    }

    #[test]
    fn the_grid_is_centred_and_leaves_the_margin_and_room_for_marks() {
        let s = PageSetup {
            margin_mm: 10.0,
            crop_marks: true,
            gutter_mm: 2.0,
            orientation: Some(Orientation::Portrait),
            ..on(Paper::A4)
        };
        let grid = Grid::plan(&s, g(63.0, 88.0, 3.0)).unwrap();
        // 210 - 2 x (10 + 3 + 3) = 178 mm across: two cards and a gutter (128 mm).
        assert_eq!((grid.cols, grid.rows), (2, 2));
        let (x, y) = grid.card_at(0, Side::Front);
        assert!((x - (210.0 - 128.0) / 2.0).abs() < 1e-9 && (y - (297.0 - 178.0) / 2.0).abs() < 1e-9);
        let (x1, _) = grid.card_at(1, Side::Front);
        assert!((x1 - x - 65.0).abs() < 1e-9);
        // Outer sides keep the whole bleed, inner ones half the gutter.
        assert_eq!(grid.bleed_sides(0, 0), [3.0, 3.0, 1.0, 1.0]);
    }

    #[test]
    fn a_card_a_page_is_the_card_and_its_bleed() {
        let setup = PageSetup { layout: Layout::Card, ..on(Paper::A4) };
        let grid = Grid::plan(&setup, g(63.5, 88.9, 3.175)).unwrap();
        assert_eq!((grid.cols, grid.rows), (1, 1));
        assert!((grid.paper_mm.0 - 69.85).abs() < 1e-9 && (grid.paper_mm.1 - 95.25).abs() < 1e-9);
        assert_eq!(grid.card_at(0, Side::Front), (3.175, 3.175));
        assert_eq!(grid.card_at(0, Side::Back), (3.175, 3.175));
        assert_eq!(grid.bleed_sides(0, 0), [3.175; 4]);
        assert!(PageSetup { crop_marks: true, ..setup }.check().is_err());
    }

    #[test]
    fn backs_land_behind_their_fronts_for_each_way_of_turning_the_sheet() {
        let geom = g(63.0, 88.0, 0.0);
        let with = |duplex, orientation| {
            Grid::plan(&PageSetup { duplex, orientation: Some(orientation), ..on(Paper::A4) }, geom).unwrap()
        };
        use Orientation::*;
        // Portrait, long edge: columns mirror about the page's vertical centre line.
        let grid = with(Duplex::Long, Portrait);
        let (fx, fy) = grid.card_at(0, Side::Front);
        let (bx, by) = grid.card_at(0, Side::Back);
        assert_eq!(fy, by);
        assert!((fx + 63.0 + bx - 210.0).abs() < 1e-9, "{fx} {bx}");
        // Portrait, short edge: rows mirror.
        let grid = with(Duplex::Short, Portrait);
        let (fx, fy) = grid.card_at(0, Side::Front);
        let (bx, by) = grid.card_at(0, Side::Back);
        assert_eq!(fx, bx);
        assert!((fy + 88.0 + by - 297.0).abs() < 1e-9, "{fy} {by}");
        // Landscape: the long edge is the top, so long-edge duplex mirrors the rows.
        let grid = with(Duplex::Long, Landscape);
        assert_eq!(grid.col_row(0, Side::Back), (0, grid.rows - 1));
        let grid = with(Duplex::Short, Landscape);
        assert_eq!(grid.col_row(0, Side::Back), (grid.cols - 1, 0));
        // One side at a time: backs where the fronts are.
        let grid = with(Duplex::None, Portrait);
        assert_eq!(grid.card_at(4, Side::Back), grid.card_at(4, Side::Front));
    }
}
