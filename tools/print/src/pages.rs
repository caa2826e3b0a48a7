//! Which face goes on which page of a PDF: the pieces in groups of one size (on sheets,
//! every card, plaque, noble and leader on the cards' grid, then the tiles of each shape
//! on a grid of their own), the copies of each as its count says, one-sided pieces first
//! and two-sided ones each front page followed by its back page; and the grid a size
//! takes on the paper.

use crown_engine::content::Def;
use crown_engine::diag::Diagnostic;

use super::geometry::Geometry;
use super::render::{Printer, Side};
use super::sheet::{Grid, PagePlan, PageSetup, Placement};
use super::util;

/// Pieces of one size laid out on one grid.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    pub defs: Vec<&'a Def>,
    pub grid: Grid,
    pub geom: Geometry,
}

/// The grid pieces of `geom` take on the paper, or the error saying they do not fit.
/// `what` names them (`card`, `2x1 tile`).
pub fn plan_grid(setup: &PageSetup, geom: Geometry, what: &str) -> Result<Grid, Diagnostic> {
    Grid::plan(setup, geom).ok_or_else(|| {
        let (pw, ph) = setup.paper.mm();
        let marks = if setup.crop_marks { " and room for crop marks" } else { "" };
        let hint = if what == "card" {
            "use a larger --paper, a smaller --margin or --size, or less --bleed"
        } else {
            "use a larger --paper, a smaller --margin or `[print] tile_square_mm`, or less --bleed"
        };
        Diagnostic::error(
            "card-too-large",
            format!(
                "a {}x{} mm {what} with {} mm bleed does not fit on {} paper ({}x{} mm) inside {} mm margins{marks}",
                util::num(geom.w),
                util::num(geom.h),
                geom.bleed,
                setup.paper.name(),
                util::num(pw),
                util::num(ph),
                util::num(setup.margin_mm)
            ),
        )
        .hint(hint)
    })
}

/// The pages of a PDF, the place of every face on them, and how many fronts and backs
/// they hold. Within each group: copies per count; one-sided pieces first (with back
/// pages when `backs`), then two-sided pieces with their backs on the following page.
pub fn paginate(
    groups: &[Group<'_>],
    backs: bool,
    index_of: &(dyn Fn(&str, Side) -> Option<usize> + Sync),
) -> (Vec<PagePlan>, Vec<Placement>, usize, usize) {
    let mut pages = Vec::new();
    let mut placements = Vec::new();
    let (mut fronts, mut back_count) = (0, 0);
    for g in groups {
        let (grid, geom) = (g.grid, g.geom);
        let mut one: Vec<(&Def, usize, Option<usize>)> = Vec::new();
        let mut two: Vec<(&Def, usize, Option<usize>)> = Vec::new();
        for d in &g.defs {
            let Some(front) = index_of(&d.def.id, Side::Front) else {
                continue;
            };
            let back = index_of(&d.def.id, Side::Back);
            let copies = usize::try_from(d.def.count).unwrap_or(0);
            for _ in 0..copies {
                if Printer::two_sided(d) {
                    two.push((d, front, back));
                } else {
                    one.push((d, front, if backs { back } else { None }));
                }
            }
        }
        for (run, with_backs) in [(one, backs), (two, true)] {
            for chunk in run.chunks(grid.per_page()) {
                let page_no = pages.len() + 1;
                let mut fp = PagePlan { side: Side::Front, slots: Vec::new(), grid, geom };
                let mut bp = PagePlan { side: Side::Back, slots: Vec::new(), grid, geom };
                for (slot, (d, f, b)) in chunk.iter().enumerate() {
                    fp.slots.push((slot, *f));
                    fronts += 1;
                    let (x, y) = grid.card_at(slot, Side::Front);
                    placements.push(Placement {
                        page: page_no,
                        side: "front",
                        id: d.def.id.clone(),
                        x_mm: x,
                        y_mm: y,
                        w_mm: geom.w,
                        h_mm: geom.h,
                    });
                    if with_backs {
                        if let Some(b) = b {
                            bp.slots.push((slot, *b));
                            back_count += 1;
                            let (x, y) = grid.card_at(slot, Side::Back);
                            placements.push(Placement {
                                page: page_no + 1,
                                side: "back",
                                id: d.def.id.clone(),
                                x_mm: x,
                                y_mm: y,
                                w_mm: geom.w,
                                h_mm: geom.h,
                            });
                        }
                    }
                }
                pages.push(fp);
                if with_backs {
                    pages.push(bp);
                }
            }
        }
    }
    (pages, placements, fronts, back_count)
}
