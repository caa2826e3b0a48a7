//! `crown bench`: the figures a designer waits for, measured on this machine.

use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::load::Project;

use crate::bench::{self, load_time_ms, reload_time_ms};
use crate::cli::OutputFormat;
use crate::out::{self, Done};
use crate::{golden, session};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub format: OutputFormat,
    /// Smaller workloads (under a minute).
    #[arg(long)]
    pub quick: bool,
    /// Only these groups, comma-separated: load, packs, ttk, sim, search, rhai, pdf, check,
    /// golden, watch, campaign, memory.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

impl BenchArgs {
    fn wants(&self, group: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|g| g == group)
    }
}

pub fn run(project: &Project, args: &BenchArgs) -> Done {
    let mut figures = serde_json::Map::new();
    let mut say = |key: &str, value: f64, text: String| {
        if !args.format.is_json() && !text.is_empty() {
            println!("{text}");
        }
        // Two decimals, four for ratios.
        let scale = if key.ends_with("_ratio") { 10_000.0 } else { 100.0 };
        figures.insert(key.to_string(), serde_json::json!((value * scale).round() / scale));
    };
    let threads = rayon::current_num_threads();
    if args.wants("load") {
        match load_time_ms(10_000, 2_000, if args.quick { 2 } else { 5 }) {
            Ok(ms) => say(
                "load_10k_cards_ms",
                ms,
                format!("load and validate 10,000 cards with 2,000 scripts: {ms:.0} ms (warm, best run)"),
            ),
            Err(e) => eprintln!("error: {e}"),
        }
        match reload_time_ms(10_000, 2_000, if args.quick { 2 } else { 5 }) {
            Ok(ms) => say(
                "reload_10k_cards_ms",
                ms,
                format!("reload after editing one card and one script (Loader, full validation): {ms:.0} ms"),
            ),
            Err(e) => eprintln!("error: {e}"),
        }
    }
    // Each measurement plays batches of games until its time budget is spent (packs differ
    // a hundredfold in speed), with at least one batch.
    let budget = std::time::Duration::from_secs_f64(if args.quick { 1.5 } else { 10.0 });
    for pack_id in project.pack_ids().into_iter().filter(|_| args.wants("packs")) {
        let Ok(pack) = session::load(project, &pack_id) else {
            continue;
        };
        let players = if pack_id == "take-the-kingdom" { 4 } else { crate::seats::player_count(&pack, None, None) };
        let Ok(kinds) = crate::seats::agent_kinds(&pack, None, players, &["random".to_string()], "random") else {
            continue;
        };
        let key = pack_id.replace('-', "_");
        for (label, t) in [("1 thread", 1usize), ("all threads", threads)] {
            match bench::timed_sim(&pack, &kinds, t, budget) {
                Ok((n, gps)) => {
                    let k = if t == 1 { format!("{key}_gps_1t") } else { format!("{key}_gps") };
                    say(
                        &k,
                        gps,
                        format!("{pack_id}: {gps:.0} games/s with {players} random bots on {label} ({n} games)"),
                    );
                }
                Err(e) => eprintln!("{pack_id}: {e}"),
            }
        }
    }
    if args.wants("ttk") {
        match bench::ttk_figures(project, if args.quick { 300 } else { 3000 }) {
            Ok(t) => {
                say(
                    "ttk_scripted_gps",
                    t.scripted_gps,
                    format!(
                        "take-the-kingdom scripted: {:.0} games/s per core (4 random bots, {} games)",
                        t.scripted_gps, t.games
                    ),
                );
                if let Some((native, ratio)) = t.native {
                    say(
                        "ttk_native_gps",
                        native,
                        format!("take-the-kingdom native baseline: {native:.0} games/s per core"),
                    );
                    say("ttk_ratio", ratio, format!("scripted / native: {:.2}%", ratio * 100.0));
                }
            }
            Err(e) => eprintln!("take-the-kingdom: {e}"),
        }
        match bench::ttk_steps_per_game(project, 20) {
            Ok(steps) => say(
                "ttk_steps_per_game",
                steps,
                format!("take-the-kingdom: {steps:.0} script steps a game (`crown profile`; the same on any machine)"),
            ),
            Err(e) => eprintln!("take-the-kingdom: {e}"),
        }
    }
    if args.wants("sim") {
        match bench::balance::figures(project, if args.quick { 200 } else { 2000 }, threads) {
            Ok(f) => {
                for (key, value, text) in f {
                    say(&key, value, text);
                }
            }
            Err(e) => eprintln!("sim: {e}"),
        }
    }
    if args.wants("search") {
        match bench::search::figures(project, if args.quick { 2 } else { 6 }) {
            Ok(f) => {
                for (key, value, text) in f {
                    say(&key, value, text);
                }
            }
            Err(e) => eprintln!("search: {e}"),
        }
    }
    if args.wants("rhai") {
        match bench::rhai_costs() {
            Ok(c) => {
                for (key, what, ns) in c {
                    say(key, ns, format!("script cost: {what}: {ns:.0} ns"));
                }
            }
            Err(e) => eprintln!("rhai: {e}"),
        }
    }
    if !args.quick && args.wants("pdf") {
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
    if args.wants("check") {
        // What `crown check PACK` does for each shipped pack: load and validate (scripts
        // compiled and analysed), render every face in memory, read the golden game files.
        // One thread, best of three.
        for id in project.pack_ids() {
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                let loaded = crown_engine::load::load_pack(project, &id, Default::default());
                if let Some(p) = loaded.pack.map(Arc::new) {
                    let _ = crate::print::check_faces(&p);
                    let _ = golden::check_games(project, &p);
                }
                best = best.min(t.elapsed().as_secs_f64());
            }
            let key = format!("check_{}_s", id.replace('-', "_"));
            say(&key, best, format!("crown check {id}: {:.0} ms", best * 1000.0));
        }
    }
    let cases = if args.wants("golden") { golden::discover(project, &[]) } else { Vec::new() };
    if !cases.is_empty() {
        let start = Instant::now();
        let mut packs = std::collections::BTreeMap::new();
        let mut n = 0;
        for c in &cases {
            let pack: &Result<Arc<_>, out::Failure> =
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
    if args.wants("watch") {
        let (edits, reloads) = if args.quick { (20, 100) } else { (100, 1000) };
        let r = bench::watch::latency_bench_with(edits, 1000, reloads);
        match &r.error {
            Some(e) => eprintln!("watch: {e}"),
            None => {
                say(
                    "reload_p50_ms",
                    r.p50_ms,
                    format!(
                        "watch, save to reloaded, 1,000-card pack: p50 {:.0} ms, p95 {:.0} ms ({} edits, debounce included)",
                        r.p50_ms, r.p95_ms, r.edits
                    ),
                );
                say("reload_p95_ms", r.p95_ms, String::new());
                say(
                    "reload_rss_growth_pct",
                    r.rss_growth_percent(),
                    format!(
                        "watch memory after {} reloads: {} KiB, after the first: {} KiB ({:+.1}%)",
                        r.reloads,
                        r.rss_after_all_kb,
                        r.rss_after_first_kb,
                        r.rss_growth_percent()
                    ),
                );
            }
        }
    }
    if args.wants("campaign") && project.pack_ids().iter().any(|p| p == "kingdom-legacy") {
        let n = if args.quick { 3 } else { 20 };
        match session::load(project, "kingdom-legacy") {
            Ok(pack) => match crate::campaign::bench_plays(&pack, n, true) {
                Ok((pps, fame)) => say(
                    "kl_campaign_plays_per_s",
                    pps,
                    format!(
                        "kingdom-legacy: {pps:.2} full base-game plays/s by the greedy bot, saved and reloaded every round ({n} plays, mean fame {fame:.1})"
                    ),
                ),
                Err(e) => eprintln!("campaign: {e}"),
            },
            Err(_) => eprintln!("campaign: kingdom-legacy does not load"),
        }
    }
    if args.wants("memory") && project.pack_ids().iter().any(|p| p == "take-the-kingdom") {
        let games: u64 = if args.quick { 500 } else { 100_000 };
        match bench::sim_peak_mb(project, games) {
            Ok(mb) => {
                say(
                    "sim_100k_peak_mb",
                    mb,
                    format!("peak memory of a {games}-game take-the-kingdom simulation: {mb:.1} MB"),
                );
                if games != 100_000 {
                    figures.insert("sim_peak_games".into(), serde_json::json!(games));
                    if !args.format.is_json() {
                        println!("  (--quick: {games} games, not 100,000; statistics are streamed, so memory does not grow with the count)");
                    }
                }
            }
            Err(e) => eprintln!("memory: {e}"),
        }
    }
    if args.format.is_json() {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(figures)).unwrap_or_default());
    }
    Ok(())
}
