//! `crown bench`: the figures a designer waits for, measured on this machine.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::content::{load_pack, LoadOptions, Project};

use crate::{golden, session, sim};

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print one JSON object with the figures under stable keys.
    #[arg(long)]
    pub json: bool,
    /// Smaller workloads (under a minute).
    #[arg(long)]
    pub quick: bool,
}

/// Write a project of `cards` card files (one card each) and `scripts` scripts.
pub fn generate_project(root: &Path, cards: usize, scripts: usize) -> std::io::Result<()> {
    let pack = root.join("content/generated");
    std::fs::create_dir_all(pack.join("cards"))?;
    std::fs::create_dir_all(root.join("scripts/generated/cards"))?;
    std::fs::write(
        pack.join("pack.toml"),
        "id = \"generated\"\nname = \"Generated\"\nversion = \"1.0.0\"\nplayers = { min = 2, max = 4 }\n",
    )?;
    std::fs::write(
        root.join("scripts/generated/rules.rhai"),
        "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n",
    )?;
    for i in 0..cards {
        let script = if i < scripts {
            std::fs::write(
                root.join(format!("scripts/generated/cards/c{i:05}.rhai")),
                format!("fn on_play(p, c) {{\n    let x = value(c, \"attack\") + {i};\n    add_counter(p, \"score\", x % 7);\n}}\n"),
            )?;
            format!("script = \"cards/c{i:05}.rhai\"\nhooks = [\"on_play\"]\n")
        } else {
            String::new()
        };
        std::fs::write(
            pack.join(format!("cards/c{i:05}.toml")),
            format!(
                "[[card]]\nid = \"c{i:05}\"\nname = \"Card {i}\"\nkind = \"attack\"\ncount = {}\nkeywords = [\"generated\"]\nvalues = {{ attack = {}, defence = {} }}\ntext = \"Generated card number {i}.\"\n{script}",
                1 + i % 3,
                i % 9,
                i % 5
            ),
        )?;
    }
    Ok(())
}

/// Load-and-validate time of a generated project, best of `runs` warm runs, in ms.
pub fn load_time_ms(cards: usize, scripts: usize, runs: usize) -> Result<f64, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    generate_project(dir.path(), cards, scripts).map_err(|e| e.to_string())?;
    let project = Project::new(dir.path());
    let first = load_pack(&project, "generated", LoadOptions::default());
    if first.errors() > 0 {
        return Err(format!("the generated project does not load: {}", first.diagnostics[0]));
    }
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let l = load_pack(&project, "generated", LoadOptions::default());
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        assert!(l.pack.is_some());
        best = best.min(ms);
    }
    Ok(best)
}

pub fn run(project: &Project, args: &BenchArgs) -> i32 {
    let mut figures = serde_json::Map::new();
    let mut say = |key: &str, value: f64, text: String| {
        if !args.json {
            println!("{text}");
        }
        figures.insert(key.to_string(), serde_json::json!((value * 100.0).round() / 100.0));
    };
    let threads = rayon::current_num_threads();
    match load_time_ms(10_000, 2_000, if args.quick { 2 } else { 5 }) {
        Ok(ms) => say(
            "load_10k_cards_ms",
            ms,
            format!("load and validate 10,000 cards with 2,000 scripts: {ms:.0} ms (warm, best run)"),
        ),
        Err(e) => eprintln!("error: {e}"),
    }
    let games: u64 = if args.quick { 500 } else { 4000 };
    for pack_id in project.pack_ids() {
        let Ok(pack) = session::load(project, &pack_id) else {
            continue;
        };
        let players = if pack_id == "take-the-kingdom" { 4 } else { session::player_count(&pack, None, None) };
        let Ok(kinds) = session::agent_kinds(&pack, None, players, &["random".to_string()], "random") else {
            continue;
        };
        let key = pack_id.replace('-', "_");
        for (label, t) in [("1 thread", 1usize), ("all threads", threads)] {
            let n = if t == 1 { games / 2 } else { games };
            let start = Instant::now();
            match sim::simulate(&pack, &kinds, None, 1, n, Some(t), 10, None) {
                Ok(s) if s.failed == 0 => {
                    let gps = n as f64 / start.elapsed().as_secs_f64();
                    let k = if t == 1 { format!("{key}_gps_1t") } else { format!("{key}_gps") };
                    say(
                        &k,
                        gps,
                        format!("{pack_id}: {gps:.0} games/s with {players} random bots on {label} ({n} games)"),
                    );
                }
                Ok(s) => eprintln!("{pack_id}: {} of {n} games failed: {:?}", s.failed, s.failures.first()),
                Err(e) => eprintln!("{pack_id}: {e}"),
            }
        }
    }
    if !args.quick {
        match crate::print::bench::bench(1000) {
            Ok(f) => {
                say(
                    "pdf_1000_cards_s",
                    f.pdf_s,
                    format!("1,000 cards to PDF: {:.2} s ({} pages)", f.pdf_s, f.pdf_pages),
                );
                say("png_1000_cards_s", f.png_s, format!("1,000 cards to PNG at 300 DPI: {:.2} s", f.png_s));
                say("reprint_one_card_s", f.reprint_s, format!("re-print after one card edit: {:.3} s", f.reprint_s));
            }
            Err(e) => eprintln!("print benchmark: {e}"),
        }
    }
    let cases = golden::discover(project, &[]);
    if !cases.is_empty() {
        let start = Instant::now();
        let mut packs = std::collections::BTreeMap::new();
        let mut n = 0;
        for c in &cases {
            let pack: &Result<Arc<_>, i32> =
                packs.entry(c.pack.clone()).or_insert_with(|| session::load(project, &c.pack));
            if let Ok(p) = pack {
                let _ = golden::check_case(c, p, 2);
                n += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        say(
            "golden_suite_s",
            secs,
            format!("golden suite: {n} games replayed in {secs:.2} s ({:.0} games/s)", n as f64 / secs.max(1e-9)),
        );
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(figures)).unwrap_or_default());
    }
    0
}
