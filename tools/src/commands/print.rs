//! `crown print`: printable card sheets (PDF), a PNG and SVG per card face, and deck
//! sheets with Tabletop Simulator saved objects.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
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
    /// What to write, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "pdf,png,svg,tts")]
    pub format: Vec<Format>,
    /// Card size: poker, bridge, tarot, mini, square or WxH in millimetres (e.g. 70x110)
    /// (default: the pack's card_size, else poker).
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
    /// Bleed around each card, in millimetres.
    #[arg(long, default_value_t = 0.0)]
    pub bleed: f64,
    /// Draw crop marks outside the cut lines (inside the margin).
    #[arg(long)]
    pub crop_marks: bool,
    /// Draw guides on every card: the cut line, the bleed edge and the safe zone.
    #[arg(long)]
    pub guides: bool,
    /// Print a back for every card (two-sided pieces always get theirs).
    #[arg(long)]
    pub backs: bool,
    /// Resolution of the PNGs (36 to 1200; memory grows with its square).
    #[arg(long, default_value_t = 300, value_parser = clap::builder::RangedU64ValueParser::<u32>::new().range(36..=1200))]
    pub dpi: u32,
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

pub fn run(project: &Project, args: &PrintArgs) -> Done {
    let size_mm = match args.size.as_deref().map(parse_size).transpose() {
        Ok(s) => s,
        Err(d) => {
            out::print_diagnostics(&[d], &SourceMap::default());
            return Err(Failure::told(2));
        }
    };
    if !(50..=1200).contains(&args.dpi) {
        return Err(Failure::usage(format!("--dpi must be between 50 and 1200, not {}", args.dpi)));
    }
    let Some(paper) = Paper::parse(&args.paper) else {
        let d = Diagnostic::error("unknown-paper", format!("unknown paper `{}`", args.paper))
            .maybe_hint(
                crown_engine::diag::did_you_mean(&args.paper, ["a4", "letter", "a3", "tabloid"])
                    .map(|n| format!("did you mean `{n}`?")),
            )
            .hint("use a4, letter, a3, tabloid or WxH in millimetres (50 to 2000 a side), e.g. 300x450");
        out::print_diagnostics(&[d], &SourceMap::default());
        return Err(Failure::told(2));
    };
    let page = PageSetup {
        paper,
        orientation: args.orientation,
        margin_mm: args.margin,
        gutter_mm: args.gutter,
        duplex: args.duplex,
        crop_marks: args.crop_marks,
        guides: args.guides,
    };
    if let Err(m) = page.check() {
        return Err(Failure::usage(m.to_string()));
    }
    let pack = session::load_printable(project, &args.pack)?;
    let out_dir = args.out.clone().unwrap_or_else(|| project.root.join("build").join("print").join(pack.id()));
    // The folder takes files, before anything is rendered.
    if let Err(e) = out::check_writable(&out_dir.join(".crown-print")) {
        return Err(Failure::error(format!("cannot write into {}: {e}", out_dir.display())));
    }
    let mut formats = args.format.clone();
    formats.sort();
    formats.dedup();
    let opts = PrintOptions {
        out: out_dir,
        formats,
        size_mm,
        page,
        bleed_mm: args.bleed,
        backs: args.backs,
        dpi: args.dpi,
        only: args.only.clone(),
        use_cache: !args.no_cache,
        tts_url: args.tts_url.clone(),
    };
    let started = Instant::now();
    let report = match render_pack(&pack, &opts) {
        Ok(r) => r,
        Err(diags) => {
            out::print_diagnostics(&diags, &templates::with_template_sources(&project.root, &pack.sources, &diags));
            // Option problems are usage errors; broken templates are content errors.
            let usage = diags.iter().any(|d| {
                matches!(d.code, "bad-bleed" | "bad-layout" | "unknown-size" | "card-too-large" | "unknown-id")
            });
            return Err(Failure::told(if usage { 2 } else { 1 }));
        }
    };
    out::print_diagnostics(&report.diagnostics, &pack.sources);
    let mut parts = Vec::new();
    if let Some(p) = &report.pdf {
        parts.push(format!(
            "{} ({} page{}, {} front{}, {} back{}, {}x{} per page, {} {})",
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
            match p.grid.orientation {
                Orientation::Portrait => "portrait",
                Orientation::Landscape => "landscape",
            }
        ));
    }
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
