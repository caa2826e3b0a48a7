//! The printing benchmark: a generated pack of `n` cards printed to PDF, then to PNG at
//! 300 DPI, then printed again after one card's text changed (only that card is
//! re-rendered). `crown bench` calls [`bench`] and prints the figures.

use std::fmt::Write as _;
use std::time::Instant;

use crown_engine::load::{load_pack, LoadOptions, Project};
use serde::Serialize;

use super::{render_pack, Format, PrintOptions};

/// How many times the PDF is made; the fastest run is reported.
const PDF_RUNS: usize = 3;

/// Targets the figures are held to (on two cores).
pub const PDF_TARGET_S: f64 = 2.0;
pub const REPRINT_TARGET_S: f64 = 0.1;

/// CPU time used by this process so far (user + system), from `/proc/self/stat`; `None`
/// where that file does not exist. On a busy machine wall-clock times grow with the load;
/// CPU time shows what the work itself costs.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    // Linux reports these in USER_HZ, which is 100.
    Some((utime + stime) / 100.0)
}

/// What [`bench`] measured, in seconds.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    pub cards: usize,
    pub threads: usize,
    /// Loading the generated pack (TOML of every card).
    pub load_s: f64,
    /// Every card to a PDF (no cache), the fastest of three runs.
    pub pdf_s: f64,
    /// CPU seconds the PDF took (all threads).
    pub pdf_cpu_s: Option<f64>,
    pub pdf_pages: usize,
    pub pdf_bytes: u64,
    /// Every card to PNG at 300 DPI and SVG (cold cache).
    pub png_s: f64,
    pub png_cpu_s: Option<f64>,
    /// After one card's text changed: PNG and SVG again, cache warm.
    pub reprint_s: f64,
    pub reprint_cpu_s: Option<f64>,
    /// Faces rendered by the re-print (1 when the cache works).
    pub reprint_rendered: usize,
    /// Reloading the pack after the edit (what `crown print` adds to the re-print).
    pub reload_s: f64,
}

impl Figures {
    /// A short table for people.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let verdict = |v: f64, t: f64| if v <= t { "ok" } else { "OVER TARGET" };
        let cpu = |c: Option<f64>| c.map(|c| format!(", {c:.2} s CPU")).unwrap_or_default();
        let _ = writeln!(s, "print benchmark: {} cards, {} threads", self.cards, self.threads);
        let _ = writeln!(s, "  load pack            {:>8.3} s", self.load_s);
        let _ = writeln!(
            s,
            "  PDF                  {:>8.3} s  ({} pages, {:.1} MB{}; target {PDF_TARGET_S} s: {})",
            self.pdf_s,
            self.pdf_pages,
            self.pdf_bytes as f64 / 1e6,
            cpu(self.pdf_cpu_s),
            verdict(self.pdf_s, PDF_TARGET_S)
        );
        let _ = writeln!(
            s,
            "  PNG 300 DPI + SVG    {:>8.3} s  ({:.1} ms per card{})",
            self.png_s,
            self.png_s * 1000.0 / self.cards.max(1) as f64,
            cpu(self.png_cpu_s)
        );
        let _ = writeln!(
            s,
            "  re-print, one edit   {:>8.3} s  ({} face re-rendered{}; target {REPRINT_TARGET_S} s: {})",
            self.reprint_s,
            self.reprint_rendered,
            cpu(self.reprint_cpu_s),
            verdict(self.reprint_s, REPRINT_TARGET_S)
        );
        let _ = writeln!(s, "  reload after edit    {:>8.3} s", self.reload_s);
        s
    }
}

const KINDS: &[&str] = &["attack", "defend", "action", "penalty", "hero"];
const TEXTS: &[&str] = &[
    "Deal :sword: damage equal to this card's attack to one line of an enemy kingdom.",
    "Play in response to an attack: cancel it and gain 1 :coin:. **Discard** this card afterwards.",
    "Draw two cards, then give one card from your hand to the player on your left.",
    "While this card is in your kingdom, each of your defenders gets +1 :shield:.",
    "Gain 2 :wood: and 1 :stone:. If you have a :crown: card in play, gain 1 :metal: as well.",
    "The next time you would lose a card, keep it instead and lose 1 :grain:.",
];

fn pack_files(n: usize, edited: Option<usize>) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let per_file = 100;
    for f in 0..n.div_ceil(per_file) {
        let mut t = String::from("#:schema ../../../docs/schema/cards.schema.json\n");
        for i in f * per_file..((f + 1) * per_file).min(n) {
            let kind = KINDS[i % KINDS.len()];
            let mut text = TEXTS[i % TEXTS.len()].to_string();
            if edited == Some(i) {
                text.push_str(" This card was edited.");
            }
            let _ = write!(
                t,
                "\n[[card]]\nid = \"card-{i:04}\"\nname = \"Generated card {i}\"\nkind = \"{kind}\"\ncount = 1\nvalues = {{ {kind} = {} }}\ncost = {{ gold = {} }}\ntext = \"{text}\"\n",
                1 + i % 6,
                i % 4
            );
            if i % 3 == 0 {
                t.push_str("flavor = \"Stone by stone, the walls went up.\"\n");
            }
        }
        files.push((format!("cards/cards-{f:02}.toml"), t));
    }
    files
}

fn write_pack(root: &std::path::Path, n: usize, edited: Option<usize>) -> std::io::Result<()> {
    let dir = root.join("content").join("bench");
    std::fs::create_dir_all(dir.join("cards"))?;
    std::fs::write(
        dir.join("pack.toml"),
        "#:schema ../../docs/schema/pack.schema.json\nid = \"bench\"\nname = \"Bench\"\nversion = \"1.0.0\"\nplayers = { min = 2, max = 4 }\n",
    )?;
    for (rel, text) in pack_files(n, edited) {
        std::fs::write(dir.join(rel), text)?;
    }
    let scripts = root.join("scripts").join("bench");
    std::fs::create_dir_all(&scripts)?;
    std::fs::write(
        scripts.join("rules.rhai"),
        "fn setup() {}\n\nfn turn() {\n    end_game([], \"the benchmark pack is never played\");\n}\n",
    )?;
    Ok(())
}

/// Run the benchmark on `n_cards` generated cards in a temporary folder.
pub fn bench(n_cards: usize) -> Result<Figures, String> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = tmp.path();
    write_pack(root, n_cards, None).map_err(|e| e.to_string())?;
    let project = Project::new(root);
    let opts_load = LoadOptions { compile_scripts: false };
    let t = Instant::now();
    let loaded = load_pack(&project, "bench", opts_load);
    let load_s = t.elapsed().as_secs_f64();
    let pack = loaded.pack.ok_or_else(|| format!("generated pack does not load: {:?}", loaded.diagnostics.first()))?;

    let mut pdf = PrintOptions::new(root.join("out-pdf"));
    pdf.formats = vec![Format::Pdf];
    pdf.use_cache = false;
    // Three runs; the figures are those of the fastest (the first also pays for loading
    // the fonts and starting the threads).
    let mut best: Option<(f64, Option<f64>, super::PdfReport)> = None;
    for _ in 0..PDF_RUNS {
        let (t, c) = (Instant::now(), cpu_seconds());
        let r = render_pack(&pack, &pdf).map_err(|d| format!("{:?}", d.first()))?;
        let s = t.elapsed().as_secs_f64();
        let cpu = c.and_then(|c| Some(cpu_seconds()? - c));
        let rep = r.pdf.ok_or("no PDF")?;
        if best.as_ref().is_none_or(|b| s < b.0) {
            best = Some((s, cpu, rep));
        }
    }
    let (pdf_s, pdf_cpu_s, pdf_report) = best.ok_or("no PDF run")?;
    let pdf_bytes = std::fs::metadata(&pdf_report.path).map(|m| m.len()).unwrap_or(0);

    let mut png = PrintOptions::new(root.join("out-png"));
    png.formats = vec![Format::Png, Format::Svg];
    let (t, c) = (Instant::now(), cpu_seconds());
    render_pack(&pack, &png).map_err(|d| format!("{:?}", d.first()))?;
    let png_s = t.elapsed().as_secs_f64();
    let png_cpu_s = c.and_then(|c| Some(cpu_seconds()? - c));

    let edited = n_cards / 2;
    write_pack(root, n_cards, Some(edited)).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let loaded = load_pack(&project, "bench", opts_load);
    let reload_s = t.elapsed().as_secs_f64();
    let pack = loaded.pack.ok_or("edited pack does not load")?;
    let (t, c) = (Instant::now(), cpu_seconds());
    let r = render_pack(&pack, &png).map_err(|d| format!("{:?}", d.first()))?;
    let reprint_s = t.elapsed().as_secs_f64();
    let reprint_cpu_s = c.and_then(|c| Some(cpu_seconds()? - c));
    Ok(Figures {
        cards: n_cards,
        threads: rayon::current_num_threads(),
        load_s,
        pdf_s,
        pdf_cpu_s,
        pdf_pages: pdf_report.pages,
        pdf_bytes,
        png_s,
        png_cpu_s,
        reprint_s,
        reprint_cpu_s,
        reprint_rendered: r.png_rendered,
        reload_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_bench_runs_and_reprints_one_card() {
        let f = bench(12).unwrap();
        assert_eq!(f.pdf_pages, 2);
        assert_eq!(f.reprint_rendered, 1);
        assert!(f.table().contains("re-print"));
    }

    /// The full benchmark: `cargo test --release -p crown-tools --lib print::bench -- --ignored --nocapture`.
    #[test]
    #[ignore = "takes a minute; run by hand or through `crown bench`"]
    fn thousand_cards() {
        let f = bench(1000).unwrap();
        println!("{}", f.table());
        assert_eq!(f.reprint_rendered, 1);
    }
}

#[cfg(test)]
mod profile {
    use super::*;
    use crate::{raster, render, Geometry, Printer, Side};

    #[test]
    #[ignore = "profiling aid"]
    fn stages() {
        let tmp = tempfile::tempdir().unwrap();
        write_pack(tmp.path(), 60, None).unwrap();
        let pack = load_pack(&Project::new(tmp.path()), "bench", LoadOptions { compile_scripts: false }).pack.unwrap();
        let geom = Geometry { w: 63.0, h: 88.0, bleed: 0.0 };
        let (printer, _) = Printer::new(&pack, geom).unwrap();
        let (mut tr, mut tp, mut tz, mut te) = (0.0, 0.0, 0.0, 0.0);
        for d in &pack.defs {
            let t = Instant::now();
            let svg = printer.render(d, Side::Front).svg;
            tr += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let tree = render::parse_svg(&svg).unwrap();
            tp += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let pm = raster::rasterize(&tree, 744, 1039, None, geom).unwrap();
            tz += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let _ = raster::encode(&pm, Some(300)).unwrap();
            te += t.elapsed().as_secs_f64();
        }
        let n = pack.defs.len() as f64;
        println!(
            "per card: template {:.2} ms, parse {:.2} ms, raster {:.2} ms, encode {:.2} ms",
            tr * 1e3 / n,
            tp * 1e3 / n,
            tz * 1e3 / n,
            te * 1e3 / n
        );
    }
}

#[cfg(test)]
mod profile_pdf {
    use super::*;

    /// `perf record` this one to see where the PDF time goes.
    #[test]
    #[ignore = "profiling aid"]
    fn pdf_only() {
        let tmp = tempfile::tempdir().unwrap();
        write_pack(tmp.path(), 1000, None).unwrap();
        let pack = load_pack(&Project::new(tmp.path()), "bench", LoadOptions { compile_scripts: false }).pack.unwrap();
        let mut o = PrintOptions::new(tmp.path().join("out"));
        o.formats = vec![Format::Pdf];
        o.use_cache = false;
        for _ in 0..3 {
            let (t, c) = (Instant::now(), cpu_seconds());
            render_pack(&pack, &o).unwrap();
            println!(
                "PDF {:.3} s, {:.2} s CPU",
                t.elapsed().as_secs_f64(),
                cpu_seconds().unwrap_or(0.0) - c.unwrap_or(0.0)
            );
        }
    }
}
