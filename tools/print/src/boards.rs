//! Board sheets: every `[[board]]` kind of board.toml printed as a grid of squares at the
//! tiles' square size (`[print] tile_square_mm`), as the rules keep it (a board that grows
//! is `2 * width - 1` by `2 * height - 1` squares with the start in the middle), the start
//! square in its terrain's colour, columns lettered and rows numbered as transcripts name
//! the squares (`c4`). A board larger than the paper is split over pages, each a block of
//! whole squares with the letters and numbers on its margins, to be trimmed along the grid
//! and joined. Drawn by the template `board.svg` (a pack may replace it), one page each.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crown_engine::content::model::BoardKind;
use crown_engine::diag::Diagnostic;
use crown_engine::game::boards::square_name;
use resvg::usvg;
use serde::Serialize;
use serde_json::{json, Value};

use super::context::Colors;
use super::render::{parse_svg, tidy_numbers, Printer};
use super::sheet::{Orientation, PageSetup};
use super::templates::Origin;
use super::tiles::{terrain_color, NO_COLOR};
use super::util::{label, num};

/// Room on each side of a page's grid for the column letters and row numbers.
const LABEL_MM: f64 = 7.0;
/// Room above the top letters for the board's name and which part of it the page shows.
const TITLE_MM: f64 = 11.0;

/// A board sheet written.
#[derive(Debug, Clone, Serialize)]
pub struct BoardReport {
    /// The `[[board]]` kind's id.
    pub id: String,
    pub path: PathBuf,
    /// The squares across and down, as the rules keep the board.
    pub cols: i64,
    pub rows: i64,
    pub square_mm: f64,
    pub pages: usize,
    /// Squares on each page (at most), across and down.
    pub per_page: (i64, i64),
    pub orientation: Orientation,
}

/// How a board is cut into pages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Split {
    pub paper_mm: (f64, f64),
    pub orientation: Orientation,
    pub margin_mm: f64,
    /// Squares a page holds across and down (the last page of a row or column may hold fewer).
    pub per_page: (i64, i64),
    /// Pages across and down.
    pub pages: (i64, i64),
}

/// The squares across and down of a board as the rules keep it.
pub fn kept_size(k: &BoardKind) -> (i64, i64) {
    if k.grows {
        (2 * k.width - 1, 2 * k.height - 1)
    } else {
        (k.width, k.height)
    }
}

/// The fewest pages of the paper (in the orientation asked for, else whichever takes
/// fewer, portrait when equal) that hold `cols` x `rows` squares of `square` mm with room
/// for the labels; the squares shared out evenly between them. `None` when not one square
/// fits on a page.
pub fn split(setup: &PageSetup, cols: i64, rows: i64, square: f64) -> Option<Split> {
    let plan = |o: Orientation| {
        let (a, b) = setup.paper.mm();
        let (pw, ph) = if o == Orientation::Portrait { (a, b) } else { (b, a) };
        let m = setup.margin_mm;
        let across = ((pw - 2.0 * m - 2.0 * LABEL_MM) / square + 1e-9).floor() as i64;
        let down = ((ph - 2.0 * m - 2.0 * LABEL_MM - TITLE_MM) / square + 1e-9).floor() as i64;
        if across < 1 || down < 1 {
            return None;
        }
        let pages = (ceil_div(cols, across), ceil_div(rows, down));
        let per_page = (ceil_div(cols, pages.0), ceil_div(rows, pages.1));
        Some(Split { paper_mm: (pw, ph), orientation: o, margin_mm: m, per_page, pages })
    };
    match setup.orientation {
        Some(o) => plan(o),
        None => match (plan(Orientation::Portrait), plan(Orientation::Landscape)) {
            (Some(p), Some(l)) => Some(if l.pages.0 * l.pages.1 < p.pages.0 * p.pages.1 { l } else { p }),
            (p, l) => p.or(l),
        },
    }
}

/// `a / b` rounded up, for positive `b`.
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1).div_euclid(b)
}

/// One page of a board as `board.svg` sees it: `page` (the paper, in millimetres, and
/// which page of how many), `board` (id, name, `per_seat`, `grows`, `width` and `height`
/// as written, `cols` and `rows` as kept, `square`), `part` (where the grid lies on the
/// page: `x`, `y`, `w`, `h`, and the first and last column and row it shows), `columns`
/// and `rows` (each label's centre), `squares` (each with `x`, `y`, `size`, `name`, and
/// for the start square `start`, `terrain`, `terrain_label`, `color`, `ink`,
/// `missing_color`).
#[allow(clippy::too_many_arguments)]
fn page_context(
    printer: &Printer<'_>,
    k: &BoardKind,
    sp: &Split,
    (cols, rows): (i64, i64),
    (px, py): (i64, i64),
    number: i64,
    square: f64,
) -> Value {
    let pack = printer.pack;
    let (pw, ph) = sp.paper_mm;
    let c0 = px * sp.per_page.0;
    let r0 = py * sp.per_page.1;
    let c1 = (c0 + sp.per_page.0).min(cols) - 1;
    let r1 = (r0 + sp.per_page.1).min(rows) - 1;
    let (gw, gh) = ((c1 - c0 + 1) as f64 * square, (r1 - r0 + 1) as f64 * square);
    let gx = (pw - gw) / 2.0;
    let gy = grid_top(ph, gh, sp.margin_mm);
    let start = k.start.as_ref().map(|st| (st.x.unwrap_or(cols / 2), st.y.unwrap_or(rows / 2), st.terrain.clone()));
    let mut squares = Vec::new();
    for y in r0..=r1 {
        for x in c0..=c1 {
            let mut sq = json!({
                "x": gx + (x - c0) as f64 * square,
                "y": gy + (y - r0) as f64 * square,
                "size": square,
                "name": square_name(x, y),
                "start": false,
            });
            if let Some((_, _, terrain)) = start.as_ref().filter(|s| s.0 == x && s.1 == y) {
                let color = terrain_color(pack, terrain);
                let colors = Colors { band: color.unwrap_or(NO_COLOR) };
                sq["start"] = json!(true);
                sq["terrain"] = json!(terrain);
                sq["terrain_label"] = json!(label(terrain));
                sq["color"] = json!(colors.band.hex());
                sq["ink"] = json!(colors.ink());
                sq["missing_color"] = json!(color.is_none());
            }
            squares.push(sq);
        }
    }
    let col_label = |x: i64| square_name(x, 0).trim_end_matches('1').to_string();
    let columns: Vec<Value> =
        (c0..=c1).map(|x| json!({ "x": gx + ((x - c0) as f64 + 0.5) * square, "label": col_label(x) })).collect();
    let row_labels: Vec<Value> = (r0..=r1)
        .map(|y| json!({ "y": gy + ((y - r0) as f64 + 0.5) * square, "label": (y + 1).to_string() }))
        .collect();
    let m = &pack.manifest;
    json!({
        "pack": { "id": m.id, "name": m.name, "version": m.version },
        "game": printer.game(),
        "page": { "w": pw, "h": ph, "number": number, "of": sp.pages.0 * sp.pages.1, "label": LABEL_MM, "title": TITLE_MM },
        "board": {
            "id": k.id, "name": k.name, "per_seat": k.per_seat, "grows": k.grows,
            "width": k.width, "height": k.height, "cols": cols, "rows": rows, "square": square,
        },
        "part": {
            "x": gx, "y": gy, "w": gw, "h": gh,
            "first_col": col_label(c0), "last_col": col_label(c1),
            "first_row": r0 + 1, "last_row": r1 + 1,
            "whole": sp.pages == (1, 1),
        },
        "columns": columns,
        "rows": row_labels,
        "squares": squares,
    })
}

/// The top of a page's grid: below the margin, the title and the letters, centred in
/// what is left.
fn grid_top(ph: f64, gh: f64, margin: f64) -> f64 {
    let top = margin + TITLE_MM + LABEL_MM;
    top + ((ph - top - LABEL_MM - margin - gh) / 2.0).max(0.0)
}

/// Write `<pack>-board-<id>.pdf` for every `[[board]]` kind of the pack. Problems (a
/// template that fails, a square larger than the paper) are diagnostics; the boards that
/// could be drawn are written.
pub fn write(printer: &Printer<'_>, setup: &PageSetup, out_dir: &Path) -> (Vec<BoardReport>, Vec<Diagnostic>) {
    let pack = printer.pack;
    let mut reports = Vec::new();
    let mut diags = Vec::new();
    let Some((board, origin)) = &pack.board else {
        return (reports, diags);
    };
    let square = printer.square_mm;
    for k in &board.board {
        let (cols, rows) = kept_size(k);
        let Some(sp) = split(setup, cols, rows, square) else {
            diags.push(
                Diagnostic::error(
                    "board-too-large",
                    format!(
                        "board `{}`: a square of {} mm and its labels do not fit on {} paper inside {} mm margins",
                        k.id,
                        num(square),
                        setup.paper.name(),
                        num(setup.margin_mm)
                    ),
                )
                .in_file(&origin.file)
                .hint("use a larger --paper or a smaller `[print] tile_square_mm`"),
            );
            continue;
        };
        let mut pages: Vec<((f64, f64), Arc<usvg::Tree>)> = Vec::new();
        let mut failed = None;
        for py in 0..sp.pages.1 {
            for px in 0..sp.pages.0 {
                let number = py * sp.pages.0 + px + 1;
                let ctx = page_context(printer, k, &sp, (cols, rows), (px, py), number, square);
                match render_page(printer, &ctx) {
                    Ok(tree) => pages.push((sp.paper_mm, Arc::new(tree))),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            if failed.is_some() {
                break;
            }
        }
        if let Some(e) = failed {
            let what = printer.templates.origin("board.svg").describe("board.svg");
            let mut d = Diagnostic::error("template-error", format!("{what} failed for board `{}`: {e}", k.id))
                .in_file(&origin.file);
            if let Origin::Pack(p) = printer.templates.origin("board.svg") {
                d = d.hint(format!("fix {}", p.display()));
            }
            diags.push(d);
            continue;
        }
        let title = format!("{} {}: board {}", pack.manifest.name, pack.manifest.version, k.name);
        let path = out_dir.join(format!("{}-board-{}.pdf", pack.id(), k.id));
        match super::sheet::write_pages(&pages, &title) {
            Ok(bytes) => match crate::files::write_atomic_in(out_dir, &path, &bytes) {
                Ok(()) => reports.push(BoardReport {
                    id: k.id.clone(),
                    path,
                    cols,
                    rows,
                    square_mm: square,
                    pages: pages.len(),
                    per_page: sp.per_page,
                    orientation: sp.orientation,
                }),
                Err(e) => diags.push(super::io_diag(&path, &e)),
            },
            Err(e) => diags.push(Diagnostic::error("pdf-error", format!("could not write board `{}`: {e}", k.id))),
        }
    }
    (reports, diags)
}

/// The map page: every space of board.toml that is not a `[[board]]` square, drawn as the
/// browser draws it ([`crate::map`]) with the pieces board.toml sets on them, scaled to one
/// page of the paper (landscape when the map is wider than tall), the pack's name above it.
/// Written as `<pack>-map.pdf`; `None` when the board has no map.
pub fn write_map(printer: &Printer<'_>, setup: &PageSetup, out_dir: &Path) -> Result<Option<PathBuf>, Diagnostic> {
    let pack = printer.pack;
    let players = pack.manifest.players.min.max(1) as usize;
    let agents: Vec<Box<dyn crown_engine::game::agent::Agent>> =
        (0..players).map(|_| Box::new(crown_engine::game::agent::FirstAgent) as _).collect();
    let game =
        crown_engine::game::Game::new(Arc::new(pack.clone()), crown_engine::game::GameConfig::new(1, players), agents)
            .map_err(|e| Diagnostic::error("board-error", format!("the map cannot be set out: {e}")))?;
    let Some(map) = crate::map::map(&game, false) else { return Ok(None) };
    let (a, b) = setup.paper.mm();
    let (pw, ph) = if map.width > map.height { (a.max(b), a.min(b)) } else { (a.min(b), a.max(b)) };
    let m = setup.margin_mm;
    let title = format!("{} {}: the map", pack.manifest.name, pack.manifest.version);
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{pw}mm\" height=\"{ph}mm\" viewBox=\"0 0 {pw} {ph}\">\
         <text x=\"{m}\" y=\"{}\" font-family=\"Liberation Sans\" font-weight=\"bold\" font-size=\"6\">{}</text>{}</svg>",
        m + 6.0,
        crate::html_escape(&title),
        map.placed(m, m + TITLE_MM, pw - 2.0 * m, ph - 2.0 * m - TITLE_MM)
    );
    let tree =
        parse_svg(&svg).map_err(|e| Diagnostic::error("board-error", format!("the map is not valid SVG: {e}")))?;
    let path = out_dir.join(format!("{}-map.pdf", pack.id()));
    let bytes = super::sheet::write_pages(&[((pw, ph), Arc::new(tree))], &title)
        .map_err(|e| Diagnostic::error("pdf-error", format!("could not write the map: {e}")))?;
    crate::files::write_atomic_in(out_dir, &path, &bytes).map_err(|e| super::io_diag(&path, &e))?;
    Ok(Some(path))
}

/// One page drawn by `board.svg`, icons attached, parsed with the bundled fonts.
fn render_page(printer: &Printer<'_>, ctx: &Value) -> Result<usvg::Tree, String> {
    let svg = printer.templates.render("board.svg", ctx)?;
    let svg = printer.icons.attach_symbols(&tidy_numbers(&svg));
    parse_svg(&svg).map_err(|e| format!("not valid SVG: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sheet::Paper;

    #[test]
    fn a_board_is_split_into_the_fewest_pages_of_whole_squares() {
        let a4 = PageSetup::default();
        // 5 x 5 squares of 40 mm and their labels are wider than A4 portrait (4 across, 6
        // down) and taller than landscape (6 across, 4 down): two pages either way, so
        // portrait, the columns shared 3 and 2.
        let sp = split(&a4, 5, 5, 40.0).unwrap();
        assert_eq!((sp.orientation, sp.pages, sp.per_page), (Orientation::Portrait, (2, 1), (3, 5)));
        // A 3 x 3 board fits on one portrait page.
        let sp = split(&a4, 3, 3, 40.0).unwrap();
        assert_eq!((sp.orientation, sp.pages, sp.per_page), (Orientation::Portrait, (1, 1), (3, 3)));
        // A growing 5 x 5 kingdom is kept 9 x 9: on A3 (6 x 9 squares a page), two pages.
        let a3 = PageSetup { paper: Paper::A3, ..PageSetup::default() };
        let sp = split(&a3, 9, 9, 40.0).unwrap();
        assert_eq!((sp.pages, sp.per_page), ((2, 1), (5, 9)), "{sp:?}");
        // Landscape when asked.
        let sp = split(&PageSetup { orientation: Some(Orientation::Landscape), ..a4 }, 5, 5, 40.0).unwrap();
        assert_eq!((sp.pages, sp.per_page), ((1, 2), (5, 3)));
        // A square larger than the paper: none.
        assert!(split(&a4, 1, 1, 200.0).is_none());
    }
}
