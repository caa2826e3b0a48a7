//! `crown print` and `crown reference`: printable card sheets and rules references, the
//! board map the browser and the board sheets draw, and the atomic writer.
//!
//! Code map:
//! - `fonts`: the bundled fonts (the only ones ever used) and text measurement.
//! - `icons`: the built-in icon set and a pack's `icons` table.
//! - `layout`: rules-text markup broken into lines that fit a box.
//! - `templates`: the tera templates (built in, overridable per pack) and their functions.
//! - `context`: what a template sees for one definition.
//! - `render`: one definition side to SVG, with diagnostics naming the card.
//! - `tiles`: definitions with `cells` printed as tiles of their shape, terrain colours,
//!   and the piles (decks by kind, tiles by shape) pieces are printed in.
//! - `pages`: which face goes on which PDF page, in groups of one size.
//! - `outputs`: the files made from the rendered faces (PDFs, upload list, deck sheets).
//! - `boards`: board sheets, one PDF per `[[board]]` kind, split over pages.
//! - `sheet`: PDF pages (krilla + krilla-svg): paper, orientation, margins, gutters,
//!   duplex, crop marks, guides; `raster`: PNGs and deck sheets (resvg).
//! - `tts`: deck sheets, their manifest and Tabletop Simulator saved objects.
//! - `shop`: print-on-demand shops' card specifications (`--shop`).
//! - `cache`: which SVG/PNG outputs are still current.
//! - `reference`: the rules reference (HTML, Markdown, PDF).
//! - `bench`: the printing benchmark `crown bench` runs.
//! - `map`: a board as SVG (spaces, links, pieces, supplies), for the browser and the board
//!   sheets, and what an option names on it.
//! - `files`: the atomic writer every file Crown writes goes through.
//!
//! Invariants: one usvg tree per face feeds both the PDF and the PNG; no system font and
//! no file outside the pack is read while rendering (images arrive as `data:` URIs);
//! definition text is data, escaped on output, never a template.

// Diagnostics are the error type throughout, as in the engine; they are large by design.
#![allow(clippy::result_large_err)]

#[cfg(feature = "bench-suite")]
pub mod bench;
pub mod boards;
pub mod cache;
pub mod context;
pub mod files;
pub mod fonts;
pub mod geometry;
pub mod icons;
pub mod layout;
pub mod map;
pub mod markup;
mod outputs;
pub mod pages;
pub mod raster;
pub mod ref_doc;
pub mod ref_pdf;
pub mod ref_text;
pub mod reference;
pub mod render;
pub mod rules_md;
pub mod sandbox;
pub mod sheet;
pub mod shop;
pub mod templates;
pub mod tiles;
pub mod tts;
pub mod util;

/// Text made safe inside HTML (tera's own escaping, so templates and pages built in Rust
/// escape alike).
pub fn html_escape(s: &str) -> String {
    tera::escape_html(s)
}

use crown_engine::fsread;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use clap::ValueEnum;
use crown_engine::content::model::Shop;
use crown_engine::content::{Def, Pack};
use crown_engine::diag::{Diagnostic, Severity};
use crown_engine::load::{load_pack, LoadOptions, Project};
use rayon::prelude::*;
use resvg::usvg;
use serde::Serialize;

pub use geometry::Geometry;
pub use reference::{render_reference, ReferenceFormat};
pub use render::{parse_svg, Printer, Side};
pub use sheet::{Duplex, Grid, Layout, Orientation, PageSetup, Paper, Placement};
pub use tts::TtsReport;

use crate::files as out;
use outputs::{write_boards, Faces};

/// An output of `crown print`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Sheets to print, cards at their real size.
    Pdf,
    /// One image per card face.
    Png,
    /// One SVG per card face.
    Svg,
    /// Virtual-tabletop deck sheets, their manifest and Tabletop Simulator saved objects.
    Tts,
}

/// What to print, resolved and checked.
#[derive(Debug, Clone)]
pub struct PrintOptions {
    pub out: PathBuf,
    pub formats: Vec<Format>,
    /// Card size in millimetres; `None` for the pack's.
    pub size_mm: Option<(f64, f64)>,
    /// Paper, orientation, margin, gutter, duplex, crop marks and guides of the PDF.
    pub page: PageSetup,
    pub bleed_mm: f64,
    pub backs: bool,
    pub dpi: u32,
    pub only: Vec<String>,
    pub use_cache: bool,
    /// Base URL of the deck sheets in the saved objects; `None` for file URLs.
    pub tts_url: Option<String>,
    /// The print shop the files are for (its upload list is written beside them).
    pub shop: Option<Shop>,
}

impl PrintOptions {
    /// Defaults: every format, poker or the pack's size, A4 in either orientation, no
    /// bleed, 300 DPI.
    pub fn new(out: impl Into<PathBuf>) -> PrintOptions {
        PrintOptions {
            out: out.into(),
            formats: vec![Format::Pdf, Format::Png, Format::Svg, Format::Tts],
            size_mm: None,
            page: PageSetup::default(),
            bleed_mm: 0.0,
            backs: false,
            dpi: 300,
            only: Vec::new(),
            use_cache: true,
            tts_url: None,
            shop: None,
        }
    }

    pub fn wants(&self, f: Format) -> bool {
        self.formats.contains(&f)
    }

    /// What a print shop asks for: its card of the pack's size (or of `size_mm` when set),
    /// its bleed, safe zone and resolution, its files (PNGs with backs, or a PDF per deck
    /// with one card a page). An error when the shop makes no card of that size.
    pub fn apply_shop(&mut self, pack: &Pack, shop: Shop) -> Result<(), Diagnostic> {
        let spec = shop::Spec::of(shop);
        let size = match self.size_mm {
            Some(s) => s,
            None => pack
                .card_size_mm()
                .ok_or_else(|| Diagnostic::error("unknown-size", "the pack's card_size is not a known size"))?,
        };
        let (_, geom) = spec.geometry(size)?;
        self.size_mm = Some((geom.w, geom.h));
        self.bleed_mm = geom.bleed;
        self.dpi = spec.dpi;
        self.page.safe_mm = spec.safe_mm();
        self.formats = spec.formats();
        self.backs = true;
        if spec.files == shop::Files::CardPdf {
            self.page.layout = Layout::Card;
        }
        self.shop = Some(shop);
        Ok(())
    }
}

/// Parse a `--size`: a standard name or `WxH` millimetres (`63x88`, `63x88mm`).
pub fn parse_size(s: &str) -> Result<(f64, f64), Diagnostic> {
    if let Some(wh) = crown_engine::content::named_card_size(s) {
        return Ok(wh);
    }
    let t = s.trim().trim_end_matches("mm");
    if let Some((a, b)) = t.split_once(['x', 'X']) {
        if let (Ok(w), Ok(h)) = (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
            if w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0 && w <= 1000.0 && h <= 1000.0 {
                return Ok((w, h));
            }
        }
    }
    let names = crown_engine::content::CARD_SIZES.iter().map(|(n, _)| *n);
    Err(Diagnostic::error("unknown-size", format!("unknown card size `{s}`"))
        .maybe_hint(crown_engine::diag::did_you_mean(s, names).map(|n| format!("did you mean `{n}`?")))
        .hint(format!("use {} or WxH in millimetres such as 70x110", crown_engine::content::card_size_names())))
}

/// A card's place in the PDF, a file written, figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub pack: String,
    pub out: PathBuf,
    /// Files written this run (cached ones are not rewritten).
    pub written: Vec<PathBuf>,
    pub faces: usize,
    pub svg_rendered: usize,
    pub svg_cached: usize,
    /// Faces whose template failed (neither rendered nor cached).
    pub failed: usize,
    pub png_rendered: usize,
    pub png_cached: usize,
    pub pdf: Option<PdfReport>,
    /// With `--layout card`: one PDF per deck, one card a page.
    pub card_pdfs: Vec<PdfReport>,
    /// The print shop's upload list (`<pack>-<shop>.csv`), when one was written.
    pub upload_list: Option<PathBuf>,
    pub tts: Option<TtsReport>,
    /// The board sheets, one PDF per `[[board]]` kind.
    pub boards: Vec<boards::BoardReport>,
    /// The map page (`<pack>-map.pdf`), when the board has a map.
    pub map: Option<PathBuf>,
    /// Errors and warnings; errors mean some output is wrong or missing.
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PdfReport {
    pub path: PathBuf,
    /// `cards`, `plaques`, `nobles` or `leaders` for a deck's PDF of one card a page.
    pub deck: Option<String>,
    pub pages: usize,
    pub fronts: usize,
    pub backs: usize,
    /// The grid of the first pieces (the cards, unless there are only tiles).
    pub grid: Grid,
    /// The grid of each size of piece, in page order: the cards', then each tile shape's.
    pub grids: Vec<Grid>,
    pub placements: Vec<Placement>,
}

/// One face to produce.
struct Job<'a> {
    def: &'a Def,
    side: Side,
    key: u64,
    stem: String,
    /// Whether this face gets its own SVG and PNG files (the generic back made only for
    /// the deck sheets does not).
    files: bool,
}

struct JobOut {
    tree: Option<Arc<usvg::Tree>>,
    diags: Vec<Diagnostic>,
    svg_rendered: bool,
    png_rendered: bool,
    /// The template failed: nothing was rendered.
    failed: bool,
    written: Vec<PathBuf>,
    cache_svg: Option<u64>,
    cache_png: Option<u64>,
}

/// The card geometry for a pack and options, with the checks on size and bleed.
pub fn geometry(pack: &Pack, opts: &PrintOptions) -> Result<Geometry, Diagnostic> {
    let (w, h) = match opts.size_mm {
        Some(wh) => wh,
        None => pack.card_size_mm().ok_or_else(|| {
            Diagnostic::error("unknown-size", "the pack's card_size is not a known size")
                .in_file(Path::new("content").join(pack.id()).join("pack.toml"))
        })?,
    };
    let b = opts.bleed_mm;
    if !(b.is_finite() && b >= 0.0) {
        return Err(Diagnostic::error("bad-bleed", format!("bleed must be zero or more millimetres, not {b}")));
    }
    if 2.0 * b >= w.min(h) {
        return Err(Diagnostic::error(
            "bad-bleed",
            format!("a bleed of {b} mm is larger than the {w}x{h} mm card allows"),
        )
        .hint("bleed is usually 2 to 3 mm"));
    }
    Ok(Geometry { w, h, bleed: b })
}

/// Print a loaded pack. `Err` when nothing could be printed (bad options, broken
/// templates); otherwise the report, whose diagnostics may still hold errors (a missing
/// art file, an unknown icon) for faces that were printed with a visible placeholder.
pub fn render_pack(pack: &Pack, opts: &PrintOptions) -> Result<Report, Vec<Diagnostic>> {
    let geom = geometry(pack, opts).map_err(|d| vec![d])?;
    let defs = select(pack, &opts.only)?;
    let square = pack.manifest.print.tile_square();
    // Cards, plaques, nobles and leaders by kind, then tiles by shape: each pile of one size.
    let piles = tiles::piles(&defs, geom, square);
    let sheets = opts.page.layout == Layout::Sheet;
    let groups = if opts.wants(Format::Pdf) { Some(pdf_groups(opts, &defs, &piles, geom)?) } else { None };
    let (printer, diags) = Printer::new(pack, geom)?;
    if defs.is_empty() {
        return Ok(nothing_to_print(pack, opts, diags));
    }
    let out_dir = &opts.out;
    std::fs::create_dir_all(out_dir).map_err(|e| vec![io_diag(out_dir, &e)])?;
    let mut cache = if opts.use_cache { cache::Cache::load(out_dir) } else { cache::Cache::default() };
    let tts_back = tts_back(opts, &defs);
    // A card a page means fronts and backs.
    let backs = opts.backs || opts.page.layout == Layout::Card;
    let jobs = face_jobs(&printer, &defs, &piles, opts, backs, tts_back.as_deref());
    let need_trees = opts.wants(Format::Pdf) || opts.wants(Format::Tts);
    let face_index: BTreeMap<(&str, Side), usize> =
        jobs.iter().enumerate().map(|(i, j)| ((j.def.def.id.as_str(), j.side), i)).collect();
    let index_of = |id: &str, side: Side| face_index.get(&(id, side)).copied();
    // Sheets are drawn while the faces are rendered; a card a page makes a PDF per pile,
    // drawn once every face is there.
    let plan = groups.as_ref().filter(|_| sheets).map(|g| (g, pages::paginate(g, backs, &index_of)));
    let title = format!("{} {}: cards", pack.manifest.name, pack.manifest.version);
    let pdf_job = plan.as_ref().map(|(_, (pages, ..))| PdfJob { pages, setup: &opts.page, title: &title });
    let (outs, pdf_result) = run_jobs(&printer, &jobs, opts, &cache, need_trees, pdf_job);

    let mut report = Report {
        pack: pack.id().to_string(),
        out: out_dir.clone(),
        faces: jobs.len(),
        diagnostics: diags,
        ..Report::default()
    };
    let (trees, keys) = tally_faces(&jobs, outs, opts, &mut cache, &mut report);
    if opts.only.is_empty() {
        remove_stale_faces(&jobs, opts, &mut cache);
    }
    let faces = Faces { pack, opts, piles: &piles, trees, keys, index_of: &index_of };
    if let (Some((groups, paged)), Some(result)) = (plan, pdf_result) {
        faces.write_sheets_pdf(groups, paged, result, &mut report)?;
    }
    if groups.is_some() && !sheets {
        faces.write_card_pdfs(&mut report)?;
    }
    if opts.wants(Format::Pdf) && sheets && opts.only.is_empty() {
        write_boards(&printer, opts, &mut report);
    }
    if let (Some(shop), true) = (opts.shop, opts.wants(Format::Png)) {
        faces.write_upload_list(shop, &mut report)?;
    }
    if opts.wants(Format::Tts) {
        faces.write_tts(geom, tts_back.as_deref(), &mut cache, &mut report);
    }
    if opts.use_cache {
        if let Err(e) = cache.save(out_dir) {
            report.diagnostics.push(io_diag(out_dir, &e));
        }
    }
    let mut diags = std::mem::take(&mut report.diagnostics);
    diags.sort_by_key(|d| d.severity);
    report.diagnostics = printer.group_template_errors(diags);
    Ok(report)
}

/// The groups of pieces laid out on one grid: on sheets, every piece of the cards' size
/// together (as many kinds to a page as fit), then each shape of tile; a card a page,
/// one group per pile. An error when the page setup is wrong or a group's pieces do not
/// fit on the page.
fn pdf_groups<'a>(
    opts: &PrintOptions,
    defs: &[&'a Def],
    piles: &[tiles::Pile<'a>],
    geom: Geometry,
) -> Result<Vec<pages::Group<'a>>, Vec<Diagnostic>> {
    opts.page.check().map_err(|m| vec![Diagnostic::error("bad-layout", m)])?;
    let mut wanted: Vec<(Vec<&Def>, Geometry, String)> = Vec::new();
    let cards: Vec<&Def> = defs.iter().copied().filter(|d| !tiles::is_tile(d)).collect();
    // A pack with nothing to print is told so; its card size still has to fit.
    if !cards.is_empty() || defs.is_empty() {
        wanted.push((cards, geom, "card".into()));
    }
    for p in piles.iter().filter(|p| p.tiles) {
        let shape = tiles::Shape::of(&p.defs[0].def.cells).name();
        wanted.push((p.defs.clone(), p.geom, format!("{shape} tile")));
    }
    let mut groups = Vec::new();
    let mut errors = Vec::new();
    for (defs, geom, what) in wanted {
        match pages::plan_grid(&opts.page, geom, &what) {
            Ok(grid) => groups.push(pages::Group { defs, grid, geom }),
            Err(d) => errors.push(d),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(groups)
}

/// The report of a pack with no piece to print: a warning, and no file written.
fn nothing_to_print(pack: &Pack, opts: &PrintOptions, mut diags: Vec<Diagnostic>) -> Report {
    diags.push(
        Diagnostic::warning(
            "nothing-to-print",
            format!("`{}` has no card, plaque, noble, leader or tile to print", pack.id()),
        )
        .hint("definitions with `count = 0` are not printed"),
    );
    Report { pack: pack.id().to_string(), out: opts.out.clone(), diagnostics: diags, ..Report::default() }
}

/// The card whose back the deck sheets give every one-sided card, when they are wanted.
fn tts_back(opts: &PrintOptions, defs: &[&Def]) -> Option<String> {
    if opts.wants(Format::Tts) {
        defs.iter().find(|d| !Printer::two_sided(d) && !tiles::is_tile(d)).map(|d| d.def.id.clone())
    } else {
        None
    }
}

/// The faces to produce, each with its cache key: every front; the back of two-sided
/// pieces; generic backs on request (and, for the deck sheets, one for the cards and one
/// for each shape of tile).
fn face_jobs<'a>(
    printer: &Printer<'_>,
    defs: &[&'a Def],
    piles: &[tiles::Pile<'_>],
    opts: &PrintOptions,
    backs: bool,
    tts_back: Option<&str>,
) -> Vec<Job<'a>> {
    let mut jobs: Vec<Job<'a>> = Vec::new();
    let tile_backs: std::collections::BTreeSet<&str> = if opts.wants(Format::Tts) {
        piles.iter().filter(|p| p.tiles).map(|p| p.defs[0].def.id.as_str()).collect()
    } else {
        Default::default()
    };
    for &d in defs {
        jobs.push(Job { def: d, side: Side::Front, key: 0, stem: d.def.id.clone(), files: true });
        let own_back = Printer::two_sided(d) || backs;
        let id = d.def.id.as_str();
        if own_back || tts_back == Some(id) || tile_backs.contains(id) {
            jobs.push(Job { def: d, side: Side::Back, key: 0, stem: format!("{id}.back"), files: own_back });
        }
    }
    // Cache keys hash every definition: spread them over the cores too.
    jobs.par_iter_mut().for_each(|j| j.key = printer.key(j.def, j.side));
    jobs
}

/// Take in what each face came to: its diagnostics and files into the report, which
/// faces were rendered and which came from the cache, the cache keys of its files. Each
/// face's tree, and its cache key with whether it rendered without a problem, in the
/// order of the jobs.
#[allow(clippy::type_complexity)]
fn tally_faces(
    jobs: &[Job<'_>],
    outs: Vec<JobOut>,
    opts: &PrintOptions,
    cache: &mut cache::Cache,
    report: &mut Report,
) -> (Vec<Option<Arc<usvg::Tree>>>, Vec<(u64, bool)>) {
    let mut trees: Vec<Option<Arc<usvg::Tree>>> = Vec::with_capacity(outs.len());
    let keys: Vec<(u64, bool)> = jobs.iter().zip(&outs).map(|(j, o)| (j.key, o.diags.is_empty())).collect();
    for (j, o) in jobs.iter().zip(outs) {
        report.diagnostics.extend(o.diags);
        report.written.extend(o.written);
        if !j.files {
            trees.push(o.tree);
            continue;
        }
        if o.failed {
            report.failed += 1;
        } else if opts.wants(Format::Svg) {
            if o.svg_rendered {
                report.svg_rendered += 1;
            } else {
                report.svg_cached += 1;
            }
        }
        if opts.wants(Format::Png) && !o.failed {
            if o.png_rendered {
                report.png_rendered += 1;
            } else {
                report.png_cached += 1;
            }
        }
        let svg_rel = format!("svg/{}.svg", j.stem);
        let png_rel = format!("png/{}.png", j.stem);
        // A face rendered only for the PDF or the deck sheets left its SVG file as it was.
        match o.cache_svg {
            Some(k) => cache.set(&svg_rel, k),
            None if (o.svg_rendered && opts.wants(Format::Svg)) || o.failed => cache.remove(&svg_rel),
            None => {}
        }
        match o.cache_png {
            Some(k) => cache.set(&png_rel, k),
            None if o.png_rendered || o.failed => cache.remove(&png_rel),
            None => {}
        }
        trees.push(o.tree);
    }
    (trees, keys)
}

/// A full print: the faces of definitions that are gone (or lost their back) go too.
fn remove_stale_faces(jobs: &[Job<'_>], opts: &PrintOptions, cache: &mut cache::Cache) {
    let keep: std::collections::BTreeSet<String> = jobs.iter().filter(|j| j.files).map(|j| j.stem.clone()).collect();
    for (fmt, ext) in [(Format::Svg, "svg"), (Format::Png, "png")] {
        if opts.wants(fmt) {
            remove_stale(&opts.out.join(ext), ext, &keep, cache);
        }
    }
}

/// Remove `<dir>/*.<ext>` files an earlier print made whose stem is not in `keep`.
fn remove_stale(dir: &Path, ext: &str, keep: &std::collections::BTreeSet<String>, cache: &mut cache::Cache) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(&format!(".{ext}")) {
            let rel = format!("{ext}/{name}");
            // Only files an earlier print recorded: never a file of someone else's.
            if !keep.contains(stem) && cache.knows(&rel) && e.path().is_file() {
                let _ = std::fs::remove_file(e.path());
                cache.remove(&rel);
            }
        }
    }
}

/// The definitions to print, grouped by kind, in pack order within a kind; `only` narrows them (unknown ids are errors).
fn select<'p>(pack: &'p Pack, only: &[String]) -> Result<Vec<&'p Def>, Vec<Diagnostic>> {
    let mut errs = Vec::new();
    for id in only {
        if pack.get(id).is_none() {
            let known = pack.defs.iter().map(|d| d.def.id.as_str());
            errs.push(
                Diagnostic::error(
                    "unknown-print-id",
                    format!("`--only {id}`: no definition with that id in `{}`", pack.id()),
                )
                .maybe_hint(crown_engine::diag::did_you_mean(id, known).map(|s| format!("did you mean `{s}`?"))),
            );
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(in_print_order(pack).into_iter().filter(|d| only.is_empty() || only.contains(&d.def.id)).collect())
}

/// The definitions `crown print` prints (those with copies), in the order it lays them out.
pub fn in_print_order(pack: &Pack) -> Vec<&Def> {
    let mut defs: Vec<&Def> = pack.defs.iter().filter(|d| d.def.count > 0).collect();
    // Cards first, then plaques, nobles and leaders: sheets of one kind. Within a kind, in
    // the order the designer wrote them: files by name (numbers by their value, so
    // `cards-2` before `cards-10`), then their place in the file (a spreadsheet's rows in
    // order), then a product's definitions in the product's order.
    defs.sort_by(|a, b| {
        a.kind
            .cmp(&b.kind)
            .then_with(|| natural_cmp(&a.origin.file.to_string_lossy(), &b.origin.file.to_string_lossy()))
            .then_with(|| a.origin.span.start.cmp(&b.origin.span.start))
            .then_with(|| a.origin.nth.cmp(&b.origin.nth))
            .then_with(|| natural_cmp(&a.def.id, &b.def.id))
    });
    defs
}

/// Texts compared with each run of digits read as a number: `card-2` before `card-10`.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let number = |it: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                    let mut digits = String::new();
                    while let Some(c) = it.next_if(char::is_ascii_digit) {
                        digits.push(c);
                    }
                    digits
                };
                let (m, n) = (number(&mut x), number(&mut y));
                let (m, n) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                let order = m.len().cmp(&n.len()).then_with(|| m.cmp(n));
                if order != Ordering::Equal {
                    return order;
                }
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(&d);
                }
                x.next();
                y.next();
            }
        }
    }
}

fn io_diag(path: &Path, e: &std::io::Error) -> Diagnostic {
    Diagnostic::error("io-error", format!("cannot write {}: {e}", path.display()))
}

/// What the PDF needs while the faces are being rendered.
struct PdfJob<'a> {
    pages: &'a [sheet::PagePlan],
    setup: &'a PageSetup,
    title: &'a str,
}

/// Render every face on the thread pool, in roughly the order of the jobs; when a PDF is
/// wanted, another thread draws its pages as soon as their faces are ready, so drawing
/// overlaps rendering.
#[allow(clippy::type_complexity)]
fn run_jobs(
    printer: &Printer<'_>,
    jobs: &[Job<'_>],
    opts: &PrintOptions,
    cache: &cache::Cache,
    need_trees: bool,
    pdf: Option<PdfJob<'_>>,
) -> (Vec<JobOut>, Option<Result<Vec<u8>, String>>) {
    let n = jobs.len();
    let slots: Vec<Mutex<Option<JobOut>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let wants_pdf = pdf.is_some();
    let pdf_result = std::thread::scope(|s| {
        // Created in here, so that if a job panics the sender is dropped while unwinding
        // and the drawer stops waiting.
        let (tx, rx) = mpsc::channel::<(usize, Option<Arc<usvg::Tree>>)>();
        let drawer = pdf.map(|p| {
            s.spawn(move || {
                let mut have: BTreeMap<usize, Option<Arc<usvg::Tree>>> = BTreeMap::new();
                let mut get = |i: usize| -> Option<Arc<usvg::Tree>> {
                    while !have.contains_key(&i) {
                        match rx.recv() {
                            Ok((k, t)) => {
                                have.insert(k, t);
                            }
                            Err(_) => return None,
                        }
                    }
                    have.get(&i).cloned().flatten()
                };
                sheet::write_pdf(p.pages, &mut get, p.setup, p.title)
            })
        });
        let sender = &tx;
        rayon::scope(|rs| {
            for _ in 0..rayon::current_num_threads() {
                rs.spawn(|_| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let out = run_job(printer, &jobs[i], opts, cache, need_trees);
                    if wants_pdf {
                        let _ = sender.send((i, out.tree.clone()));
                    }
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
                });
            }
        });
        drop(tx);
        drawer.map(|h| h.join().unwrap_or_else(|_| Err("the PDF writer stopped".to_string())))
    });
    let outs =
        slots.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every job ran")).collect();
    (outs, pdf_result)
}

fn run_job(printer: &Printer<'_>, j: &Job<'_>, opts: &PrintOptions, cache: &cache::Cache, need_trees: bool) -> JobOut {
    let out_dir = &opts.out;
    let svg_rel = format!("svg/{}.svg", j.stem);
    let png_rel = format!("png/{}.png", j.stem);
    let guides = opts.page.guides.then_some(opts.page.safe_mm);
    let png_key =
        util::Hasher::default().u64(j.key).u64(u64::from(opts.dpi)).u64(guides.map_or(u64::MAX, f64::to_bits)).finish();
    let want_svg = opts.wants(Format::Svg) && j.files;
    let want_png = opts.wants(Format::Png) && j.files;
    let svg_fresh = want_svg && cache.fresh(&svg_rel, j.key);
    let png_fresh = want_png && cache.fresh(&png_rel, png_key);
    let need_tree = need_trees || (want_png && !png_fresh);
    let mut o = JobOut {
        tree: None,
        diags: Vec::new(),
        svg_rendered: false,
        png_rendered: want_png && !png_fresh,
        failed: false,
        written: Vec::new(),
        cache_svg: None,
        cache_png: None,
    };
    if !need_tree && (!want_svg || svg_fresh) {
        return o;
    }
    let svg = if svg_fresh {
        match fsread::read_text_checked(&out_dir.join(&svg_rel), fsread::Kind::Template) {
            Ok(s) => s,
            Err(_) => printer.render(j.def, j.side).svg,
        }
    } else {
        let r = printer.render(j.def, j.side);
        o.diags = r.diagnostics;
        o.svg_rendered = true;
        r.svg
    };
    let clean = o.diags.is_empty();
    if svg.is_empty() {
        (o.failed, o.svg_rendered, o.png_rendered) = (true, false, false);
        return o;
    }
    if want_svg && !svg_fresh {
        let path = out_dir.join(&svg_rel);
        match out::write_atomic_in(&opts.out, &path, svg.as_bytes()) {
            Ok(()) => {
                o.written.push(path);
                if clean {
                    o.cache_svg = Some(j.key);
                }
            }
            Err(e) => o.diags.push(io_diag(&path, &e)),
        }
    }
    if !need_tree {
        return o;
    }
    let tree = match parse_svg(&svg) {
        Ok(t) => t,
        Err(e) => {
            let name = printer.template(j.def, j.side);
            o.diags.push(printer.card_diag(
                j.def,
                Severity::Error,
                "render-error",
                format!(
                    "the {} of `{}` is not valid SVG ({}): {e}",
                    j.side.as_str(),
                    j.def.def.id,
                    printer.templates.origin(&name).describe(&name)
                ),
            ));
            return o;
        }
    };
    if want_png && !png_fresh {
        let path = out_dir.join(&png_rel);
        match raster::face_png(&tree, printer.geom_of(j.def), opts.dpi, guides) {
            Ok(bytes) => match out::write_atomic_in(&opts.out, &path, &bytes) {
                Ok(()) => {
                    o.written.push(path);
                    if clean {
                        o.cache_png = Some(png_key);
                    }
                }
                Err(e) => o.diags.push(io_diag(&path, &e)),
            },
            Err(e) => o.diags.push(printer.card_diag(
                j.def,
                Severity::Error,
                "render-error",
                format!("PNG of `{}`: {e}", j.def.def.id),
            )),
        }
    }
    if need_trees {
        o.tree = Some(Arc::new(tree));
    }
    o
}

/// The SVG of one definition's front, and of its back when it has one of its own: what a
/// live preview shows. Uses the pack's templates and icons, no bleed.
pub fn card_svg(pack: &Pack, id: &str, size_mm: Option<(f64, f64)>) -> Result<CardSvg, Vec<Diagnostic>> {
    let mut opts = PrintOptions::new(PathBuf::new());
    opts.size_mm = size_mm;
    let geom = geometry(pack, &opts).map_err(|d| vec![d])?;
    let (printer, mut diags) = Printer::new(pack, geom)?;
    let d = select(pack, &[id.to_string()])?.into_iter().next().ok_or_else(|| {
        vec![Diagnostic::error("unknown-print-id", format!("`{id}` has a count of zero and is not printed"))]
    })?;
    let front = printer.render(d, Side::Front);
    diags.extend(front.diagnostics);
    let back = if Printer::two_sided(d) {
        let b = printer.render(d, Side::Back);
        diags.extend(b.diagnostics);
        Some(b.svg)
    } else {
        None
    };
    Ok(CardSvg { front: front.svg, back, diagnostics: diags })
}

/// What printing would find wrong, without writing anything: the pack's templates are
/// compiled and every face of every printed definition is rendered (to SVG, in memory),
/// so an unknown `:icon:`, missing art or a broken template is reported by `crown check`
/// rather than first by `crown print`. Diagnostics are deduplicated, and a template that
/// fails for many faces is one finding.
pub fn check_faces(pack: &Pack) -> Vec<Diagnostic> {
    check_faces_with(pack, &mut FaceChecks::default())
}

/// What rendering each face reported, by the face's cache key (the definition, the
/// templates, the pack's look, the geometry, the art: what the print cache keys on), so
/// that checking a pack again after an edit renders only the faces the edit can change.
#[derive(Debug, Default)]
pub struct FaceChecks {
    by_key: BTreeMap<u64, Vec<Diagnostic>>,
    templates: render::KeptTemplates,
    /// Faces rendered by the last check (the others were known).
    pub rendered: usize,
}

/// [`check_faces`], rendering only the faces whose key `cache` does not know.
pub fn check_faces_with(pack: &Pack, cache: &mut FaceChecks) -> Vec<Diagnostic> {
    let opts = PrintOptions::new(PathBuf::new());
    let geom = match geometry(pack, &opts) {
        Ok(g) => g,
        Err(d) => return vec![d],
    };
    let (printer, mut diags) = match Printer::new_kept(pack, geom, &mut cache.templates) {
        Ok(x) => x,
        Err(ds) => return ds,
    };
    let defs = match select(pack, &[]) {
        Ok(d) => d,
        Err(ds) => return ds,
    };
    let mut known = std::mem::take(&mut cache.by_key);
    cache.rendered = 0;
    for &d in &defs {
        let sides: &[Side] = if Printer::two_sided(d) { &[Side::Front, Side::Back] } else { &[Side::Front] };
        for &side in sides {
            let key = printer.key(d, side);
            let found = match known.remove(&key) {
                Some(found) => found,
                None => {
                    cache.rendered += 1;
                    printer.render(d, side).diagnostics
                }
            };
            diags.extend(found.iter().cloned());
            cache.by_key.insert(key, found);
        }
    }
    diags.extend(costs_without_icons(&printer, &defs));
    let mut seen = std::collections::BTreeSet::new();
    diags.retain(|d| seen.insert(d.to_string()));
    printer.group_template_errors(diags)
}

/// A warning for each cost word the pack has no icon for: the faces print it as its
/// first three letters (`2 coi` for `coins`), which a player cannot read. Said once per
/// word, at its first use.
fn costs_without_icons(printer: &Printer<'_>, defs: &[&Def]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut told = std::collections::BTreeSet::new();
    for d in defs {
        let def = &d.def;
        let costs = std::iter::once(&def.cost)
            .chain(def.back.iter().map(|b| &b.cost))
            .chain(def.stages.iter().flat_map(|s| s.upgrades.iter().map(|u| &u.cost)));
        for (word, amount) in costs.flat_map(|c| c.iter()) {
            let any = word.starts_with("any-") || word.starts_with("any_");
            if any || printer.icons.href(word).is_some() || !told.insert(word.clone()) {
                continue;
            }
            let shown: String = word.chars().take(3).collect();
            let diag = Diagnostic::warning(
                "cost-without-icon",
                format!("`{}` costs {amount} `{word}`, which has no icon: its face prints `{amount} {shown}`", def.id),
            )
            .hint(format!("give `{word}` an icon in pack.toml's `[icons]` (`{word} = \"icons/{word}.svg\"`), or name the cost as an icon the pack has"));
            out.push(match printer.pack.sources.get(&d.origin.file) {
                Some(f) => {
                    let (start, end) = render::definition_body(f, d);
                    let body = &f.text[start..end];
                    match body.find(&format!("{word} =")).or_else(|| body.find(word.as_str())) {
                        Some(i) => diag.at(f, start + i..start + i + word.len()),
                        None => diag.at(f, d.origin.id_span.clone()),
                    }
                }
                None => diag,
            });
        }
    }
    out
}

/// What [`card_svg`] returns.
#[derive(Debug, Clone)]
pub struct CardSvg {
    pub front: String,
    pub back: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Load a pack for printing: its scripts are not compiled unless that is what it takes
/// to see that the hooks its definitions name are there.
pub fn load_for_print(project: &Project, id: &str) -> crown_engine::content::Loaded {
    let loaded = load_pack(project, id, LoadOptions { compile_scripts: false });
    // Without compiling, the loader cannot see the functions a script defines and reports
    // every hook as missing; in that case only, load again with the scripts compiled.
    if loaded.pack.is_none() && loaded.diagnostics.iter().filter(|d| d.is_error()).all(|d| d.code == "missing-hook") {
        return load_pack(project, id, LoadOptions::default());
    }
    loaded
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;

    #[test]
    fn numbers_in_names_are_ordered_by_their_value() {
        let mut names =
            vec!["10 of Clubs", "2 of Clubs", "cards-10.toml", "cards-2.toml", "cards-02.toml", "Ace of Clubs"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            ["2 of Clubs", "10 of Clubs", "Ace of Clubs", "cards-2.toml", "cards-02.toml", "cards-10.toml"]
        );
    }
}
