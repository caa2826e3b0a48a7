//! `crown print`: printable card sheets (PDF), a PNG and SVG per card face, and deck
//! sheets with Tabletop Simulator saved objects.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use crown_engine::content::model::Shop;
use crown_engine::content::Pack;
use crown_engine::diag::{Diagnostic, SourceMap};
use crown_engine::load::Project;

use crate::out::{Done, Failure};
use crate::print::*;
use crate::{out, session};
use crown_engine::diag::plural;

/// Arguments of `crown print`.
#[derive(Debug, Args)]
pub struct PrintArgs {
    /// The pack, by id or path.
    pub pack: String,
    /// Output folder (default: <project>/build/print/<pack>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// What to write, comma-separated (default: pdf,png,svg,tts; with a shop, the files
    /// it takes).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub format: Option<Vec<Format>>,
    /// Make the files a print-on-demand shop takes: tgc (The Game Crafter: PNGs, 825x1125
    /// px for poker cards), mpc (MakePlayingCards: PNGs, 822x1122 px) or drivethru
    /// (DriveThruCards: a PDF per deck, one card a page), each with the shop's card size,
    /// bleed, safe zone and resolution; none for no shop (default: the pack's [print] shop).
    #[arg(long, value_enum)]
    pub shop: Option<ShopArg>,
    /// How the PDF holds the cards: sheet (as many as fit on the paper) or card (one card a
    /// page with its bleed, each front followed by its back, a PDF per deck, with TrimBox
    /// and BleedBox, in sRGB) (default: sheet).
    #[arg(long, value_enum)]
    pub layout: Option<Layout>,
    /// Card size: poker, us-poker, bridge, tarot, mini, square or WxH in millimetres (e.g.
    /// 70x110) (default: the pack's card_size, else poker).
    #[arg(long)]
    pub size: Option<String>,
    /// Paper of the PDF: a4, letter, a3, tabloid or WxH in millimetres (e.g. 300x450).
    #[arg(long, default_value = "a4")]
    pub paper: String,
    /// Which way up the paper is (default: whichever holds more cards; portrait when equal).
    #[arg(long, value_enum)]
    pub orientation: Option<Orientation>,
    /// The printer's unprintable border, in millimetres: no card, bleed or mark is put in it.
    #[arg(long, default_value_t = sheet::DEFAULT_MARGIN_MM)]
    pub margin: f64,
    /// Space between neighbouring cards, in millimetres (narrower than twice the bleed,
    /// neighbours share their bleed).
    #[arg(long, default_value_t = 0.0)]
    pub gutter: f64,
    /// How the printer turns the sheet for the backs: over its long edge, its short edge,
    /// or not at all (backs printed on their own, placed like their fronts).
    #[arg(long, value_enum, default_value = "long")]
    pub duplex: Duplex,
    /// Bleed around each card, in millimetres (default: 0, or the shop's).
    #[arg(long)]
    pub bleed: Option<f64>,
    /// Draw crop marks outside the cut lines (inside the margin).
    #[arg(long)]
    pub crop_marks: bool,
    /// Draw guides on every card, on the PDF and the PNGs: the cut line, the bleed edge and
    /// the safe zone (for checking files; upload them without).
    #[arg(long)]
    pub guides: bool,
    /// Print a back for every card (two-sided pieces always get theirs).
    #[arg(long)]
    pub backs: bool,
    /// Resolution of the PNGs (50 to 1200; memory grows with its square) (default: 300).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<u32>::new().range(36..=1200))]
    pub dpi: Option<u32>,
    /// Print only these definitions (ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Render every face again, ignoring the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Where the deck sheets will be put on the web (e.g. https://example.org/decks): the
    /// Tabletop Simulator saved objects then name them there instead of by file:/// URLs.
    #[arg(long, value_name = "URL")]
    pub tts_url: Option<String>,
}

/// `--shop`: a shop, or none (to leave out the pack's `[print] shop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShopArg {
    Tgc,
    Mpc,
    Drivethru,
    None,
}

impl ShopArg {
    fn shop(self) -> Option<Shop> {
        match self {
            ShopArg::Tgc => Some(Shop::Tgc),
            ShopArg::Mpc => Some(Shop::Mpc),
            ShopArg::Drivethru => Some(Shop::Drivethru),
            ShopArg::None => None,
        }
    }
}

pub fn run(project: &Project, args: &PrintArgs) -> Done {
    let size_mm = card_size(args)?;
    let dpi = args.dpi.unwrap_or(300);
    if !(50..=1200).contains(&dpi) {
        return Err(Failure::usage(format!("--dpi must be between 50 and 1200, not {dpi}")));
    }
    let page = page_setup(args)?;
    let pack = session::load_printable(project, &args.pack)?;
    let out_dir = args.out.clone().unwrap_or_else(|| project.root.join("build").join("print").join(pack.id()));
    // The folder takes files, before anything is rendered.
    if let Err(e) = out::check_writable(&out_dir.join(".crown-print")) {
        return Err(Failure::error(format!("cannot write into {}: {e}", out_dir.display())));
    }
    let mut opts = PrintOptions {
        out: out_dir,
        formats: vec![Format::Pdf, Format::Png, Format::Svg, Format::Tts],
        size_mm,
        page,
        bleed_mm: args.bleed.unwrap_or(0.0),
        backs: args.backs,
        dpi,
        only: args.only.clone(),
        use_cache: !args.no_cache,
        tts_url: args.tts_url.clone(),
        shop: None,
    };
    apply_shop(&mut opts, &pack, args)?;
    if let Some(f) = &args.format {
        opts.formats = f.clone();
    }
    opts.formats.sort();
    opts.formats.dedup();
    let started = Instant::now();
    let report = render(project, &pack, &opts)?;
    out::print_diagnostics(&report.diagnostics, &pack.sources);
    let mut parts = Vec::new();
    if let Some(shop) = opts.shop {
        parts.push(shop_part(&pack, &opts, shop)?);
    }
    parts.extend(pdf_parts(&opts, &report));
    parts.extend(file_parts(&opts, &report));
    let errors = report.errors();
    let warnings = report.diagnostics.len() - errors;
    println!(
        "{}: printed to {} in {:.2} s: {}; {errors} error{}, {warnings} warning{}",
        pack.id(),
        report.out.display(),
        started.elapsed().as_secs_f64(),
        parts.join("; "),
        plural(errors),
        plural(warnings)
    );
    out::fail_if(errors > 0)
}

/// Show a diagnostic about the options: the command stops as on a usage error.
fn told_usage(d: Diagnostic) -> Failure {
    out::print_diagnostics(&[d], &SourceMap::default());
    Failure::told(2)
}

/// `--size`, read: `None` for the pack's card size.
fn card_size(args: &PrintArgs) -> Result<Option<(f64, f64)>, Failure> {
    args.size.as_deref().map(parse_size).transpose().map_err(told_usage)
}

/// The paper and how the cards are laid on it, from the options, checked.
fn page_setup(args: &PrintArgs) -> Result<PageSetup, Failure> {
    let Some(paper) = Paper::parse(&args.paper) else {
        let d = Diagnostic::error("unknown-paper", format!("unknown paper `{}`", args.paper))
            .maybe_hint(
                crown_engine::diag::did_you_mean(&args.paper, ["a4", "letter", "a3", "tabloid"])
                    .map(|n| format!("did you mean `{n}`?")),
            )
            .hint("use a4, letter, a3, tabloid or WxH in millimetres (50 to 2000 a side), e.g. 300x450");
        return Err(told_usage(d));
    };
    let page = PageSetup {
        paper,
        orientation: args.orientation,
        margin_mm: args.margin,
        gutter_mm: args.gutter,
        duplex: args.duplex,
        crop_marks: args.crop_marks,
        guides: args.guides,
        layout: args.layout.unwrap_or(Layout::Sheet),
        ..PageSetup::default()
    };
    if let Err(m) = page.check() {
        return Err(Failure::usage(m.to_string()));
    }
    Ok(page)
}

/// Set the options a print shop asks for (`--shop`, else the pack's `[print] shop`),
/// refusing the ones given by hand that it would override.
fn apply_shop(opts: &mut PrintOptions, pack: &Pack, args: &PrintArgs) -> Done {
    let shop = match args.shop {
        Some(a) => a.shop(),
        None => pack.manifest.print.shop,
    };
    let Some(shop) = shop else {
        return Ok(());
    };
    let spec = shop::Spec::of(shop);
    // What the shop sets is not also set by hand: one of the two would be silently lost.
    let given: Vec<&str> =
        [("--bleed", args.bleed.is_some()), ("--dpi", args.dpi.is_some()), ("--layout", args.layout.is_some())]
            .into_iter()
            .filter_map(|(name, set)| set.then_some(name))
            .collect();
    if !given.is_empty() {
        let from = if args.shop.is_some() {
            format!("--shop {}", shop.as_str())
        } else {
            format!("the pack's [print] shop = \"{}\"", shop.as_str())
        };
        return Err(Failure::usage(format!(
            "{from} sets the bleed, resolution and layout {} asks for: leave out {} (or print with --shop none)",
            spec.name,
            given.join(", ")
        )));
    }
    opts.apply_shop(pack, shop).map_err(told_usage)
}

/// Print the pack; when nothing could be printed, show why and stop.
fn render(project: &Project, pack: &Pack, opts: &PrintOptions) -> Result<Report, Failure> {
    render_pack(pack, opts).map_err(|diags| {
        out::print_diagnostics(&diags, &templates::with_template_sources(&project.root, &pack.sources, &diags));
        // Option problems are usage errors; broken templates are content errors (the
        // catalogue of codes says which is which).
        let usage = diags.iter().any(|d| crown_engine::diag::codes::is_usage(d.code));
        Failure::told(if usage { 2 } else { 1 })
    })
}

/// The summary's words on the shop's card: its size, bleed and pixels.
fn shop_part(pack: &Pack, opts: &PrintOptions, shop: Shop) -> Result<String, Failure> {
    let geom = geometry(pack, opts).map_err(|d| Failure::error(d.message))?;
    let (fw, fh) = geom.full();
    Ok(format!(
        "for {}: {}x{} mm cards with {} mm bleed, {}x{} px at {} dpi",
        shop::Spec::of(shop).name,
        util::num(geom.w),
        util::num(geom.h),
        util::num(geom.bleed),
        raster::px(fw, opts.dpi),
        raster::px(fh, opts.dpi),
        opts.dpi
    ))
}

/// The summary's words on the PDFs written: a deck's PDF of a card a page, the sheets,
/// the board sheets.
fn pdf_parts(opts: &PrintOptions, report: &Report) -> Vec<String> {
    let mut parts = Vec::new();
    for p in &report.card_pdfs {
        parts.push(format!(
            "{} ({} card{}, one a page, each followed by its back: {} page{})",
            p.path.display(),
            p.fronts,
            plural(p.fronts),
            p.pages,
            plural(p.pages),
        ));
    }
    let way = |o: Orientation| match o {
        Orientation::Portrait => "portrait",
        Orientation::Landscape => "landscape",
    };
    if let Some(p) = &report.pdf {
        // The cards' grid, then each shape of tile's (or the tiles' alone).
        let more: Vec<String> =
            p.grids.iter().skip(1).map(|g| format!("{}x{} {}", g.cols, g.rows, way(g.orientation))).collect();
        parts.push(format!(
            "{} ({} page{}, {} front{}, {} back{}, {}x{} per page, {} {}{})",
            p.path.display(),
            p.pages,
            plural(p.pages),
            p.fronts,
            plural(p.fronts),
            p.backs,
            plural(p.backs),
            p.grid.cols,
            p.grid.rows,
            opts.page.paper.name(),
            way(p.grid.orientation),
            if more.is_empty() { String::new() } else { format!(", tiles {}", more.join(", ")) }
        ));
    }
    for b in &report.boards {
        parts.push(format!(
            "board sheet {} ({}x{} squares of {} mm, {} page{})",
            b.path.display(),
            b.cols,
            b.rows,
            util::num(b.square_mm),
            b.pages,
            plural(b.pages)
        ));
    }
    parts
}

/// The summary's words on the other files: PNGs and SVGs (rendered and cached), the
/// upload list, the faces that failed, the deck sheets.
fn file_parts(opts: &PrintOptions, report: &Report) -> Vec<String> {
    let mut parts = Vec::new();
    if opts.wants(Format::Png) {
        parts.push(format!(
            "{} PNG{} ({} rendered, {} cached)",
            report.png_rendered + report.png_cached,
            plural(report.png_rendered + report.png_cached),
            report.png_rendered,
            report.png_cached
        ));
    }
    if opts.wants(Format::Svg) {
        parts.push(format!(
            "{} SVG{} ({} rendered, {} cached)",
            report.svg_rendered + report.svg_cached,
            plural(report.svg_rendered + report.svg_cached),
            report.svg_rendered,
            report.svg_cached
        ));
    }
    if let Some(list) = &report.upload_list {
        parts.push(format!("upload list {}", list.display()));
    }
    if report.failed > 0 {
        parts.push(format!("{} face{} failed", report.failed, plural(report.failed)));
    }
    if let Some(t) = &report.tts {
        parts.push(format!(
            "deck sheets, {} Tabletop Simulator saved object{} and {}",
            t.saved_objects.len(),
            plural(t.saved_objects.len()),
            t.manifest.display()
        ));
    }
    parts
}
