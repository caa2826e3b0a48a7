//! The files made from a print's rendered faces: the PDF of sheets, a PDF per pile of one
//! card a page, the board sheets and the map page, the print shop's upload list, and the
//! deck sheets with their Tabletop Simulator saved objects. Each notes what it wrote, and
//! what went wrong, in the print's report.

// Diagnostics are the error type throughout, as in the engine; they are large by design.
#![allow(clippy::result_large_err)]

use std::path::PathBuf;
use std::sync::Arc;

use crown_engine::content::model::Shop;
use crown_engine::content::Pack;
use crown_engine::diag::Diagnostic;
use resvg::usvg;

use super::{boards, cache, io_diag, pages, sheet, shop, tiles, tts};
use super::{Geometry, Grid, PdfReport, Placement, PrintOptions, Printer, Report, Side};
use crate::files as out;

/// The board sheets and the map page, into the report.
pub(super) fn write_boards(printer: &Printer<'_>, opts: &PrintOptions, report: &mut Report) {
    let (boards, found) = boards::write(printer, &opts.page, &opts.out);
    report.written.extend(boards.iter().map(|b| b.path.clone()));
    report.boards = boards;
    report.diagnostics.extend(found);
    match boards::write_map(printer, &opts.page, &opts.out) {
        Ok(Some(path)) => {
            report.written.push(path.clone());
            report.map = Some(path);
        }
        Ok(None) => {}
        Err(d) => report.diagnostics.push(d),
    }
}

/// A page plan: the pages, where each piece went, and the counts of fronts and backs.
pub(super) type Paged = (Vec<sheet::PagePlan>, Vec<Placement>, usize, usize);

/// The faces of a print once rendered, and what the files made of them (the PDFs, the
/// upload list, the deck sheets) are written from.
pub(super) struct Faces<'a> {
    pub(super) pack: &'a Pack,
    pub(super) opts: &'a PrintOptions,
    pub(super) piles: &'a [tiles::Pile<'a>],
    /// Each face's tree (when the PDF or the deck sheets need it), in the order of the jobs.
    pub(super) trees: Vec<Option<Arc<usvg::Tree>>>,
    /// Each face's cache key, and whether it rendered without a problem.
    pub(super) keys: Vec<(u64, bool)>,
    /// The job of a definition's side, by id.
    pub(super) index_of: &'a (dyn Fn(&str, Side) -> Option<usize> + Sync),
}

impl Faces<'_> {
    /// Whether a face of these pages could not be rendered.
    fn leaves_blank(&self, pages: &[sheet::PagePlan]) -> bool {
        pages.iter().flat_map(|p| p.slots.iter()).any(|(_, t)| self.trees[*t].is_none())
    }

    /// Write a file of the output folder, noting it in the report.
    fn write_file(&self, path: PathBuf, bytes: &[u8], report: &mut Report) -> Result<PathBuf, Vec<Diagnostic>> {
        out::write_atomic_in(&self.opts.out, &path, bytes).map_err(|e| vec![io_diag(&path, &e)])?;
        report.written.push(path.clone());
        Ok(path)
    }

    /// Write the PDF of sheets, drawn while the faces were rendered.
    pub(super) fn write_sheets_pdf(
        &self,
        groups: &[pages::Group<'_>],
        paged: Paged,
        result: Result<Vec<u8>, String>,
        report: &mut Report,
    ) -> Result<(), Vec<Diagnostic>> {
        let (pages, placements, fronts, backs) = paged;
        if self.leaves_blank(&pages) {
            report.diagnostics.push(Diagnostic::error(
                "render-failed",
                "some faces could not be rendered; the PDF leaves their places empty",
            ));
        }
        let bytes =
            result.map_err(|e| vec![Diagnostic::error("pdf-error", format!("could not write the PDF: {e}"))])?;
        let path = self.write_file(self.opts.out.join(format!("{}.pdf", self.pack.id())), &bytes, report)?;
        let grids: Vec<Grid> = groups.iter().map(|g| g.grid).collect();
        let grid = grids[0];
        report.pdf = Some(PdfReport { path, deck: None, pages: pages.len(), fronts, backs, grid, grids, placements });
        Ok(())
    }

    /// Write a PDF for each pile, one card a page, each front followed by its back.
    pub(super) fn write_card_pdfs(&self, report: &mut Report) -> Result<(), Vec<Diagnostic>> {
        let (pack, opts) = (self.pack, self.opts);
        for pile in self.piles {
            let deck = pile.name.clone();
            let grid = Grid::one_card(pile.geom);
            let group = pages::Group { defs: pile.defs.clone(), grid, geom: pile.geom };
            let (pages, placements, fronts, back_pages) = pages::paginate(&[group], true, self.index_of);
            if self.leaves_blank(&pages) {
                report.diagnostics.push(Diagnostic::error(
                    "render-failed",
                    format!("some faces could not be rendered; the {deck} PDF leaves their pages blank"),
                ));
            }
            let title = format!("{} {}: {deck}", pack.manifest.name, pack.manifest.version);
            let bytes = sheet::write_pdf(&pages, &mut |i| self.trees[i].clone(), &opts.page, &title)
                .map_err(|e| vec![Diagnostic::error("pdf-error", format!("could not write the {deck} PDF: {e}"))])?;
            let path = self.write_file(opts.out.join(format!("{}-{deck}.pdf", pack.id())), &bytes, report)?;
            report.card_pdfs.push(PdfReport {
                path,
                deck: Some(deck),
                pages: pages.len(),
                fronts,
                backs: back_pages,
                grid,
                grids: vec![grid],
                placements,
            });
        }
        Ok(())
    }

    /// Write the print shop's upload list, for a shop that takes PNGs.
    pub(super) fn write_upload_list(&self, shop: Shop, report: &mut Report) -> Result<(), Vec<Diagnostic>> {
        if shop::Spec::of(shop).files == shop::Files::Png {
            let has_back = |id: &str| (self.index_of)(id, Side::Back).is_some();
            let path = shop::upload_list_path(&self.opts.out, self.pack, shop);
            let text = shop::upload_list(self.piles, &has_back);
            let path = self.write_file(path, text.as_bytes(), report)?;
            report.upload_list = Some(path);
        }
        Ok(())
    }

    /// Write the deck sheets, their manifest and the Tabletop Simulator saved objects.
    pub(super) fn write_tts(
        &self,
        geom: Geometry,
        tts_back: Option<&str>,
        cache: &mut cache::Cache,
        report: &mut Report,
    ) {
        let opts = self.opts;
        let urls = match &opts.tts_url {
            Some(u) => tts::Urls::Base(u.clone()),
            None => tts::Urls::Local,
        };
        let faces = tts::Faces { trees: &self.trees, keys: &self.keys, index_of: self.index_of };
        match tts::write(self.pack, self.piles, geom, &faces, &opts.out, tts_back, &urls, cache, opts.use_cache) {
            Ok(t) => {
                report.written.extend(t.sheets.iter().cloned());
                report.written.extend(t.saved_objects.iter().cloned());
                report.written.push(t.manifest.clone());
                report.tts = Some(t);
            }
            Err(d) => report.diagnostics.push(d),
        }
    }
}
