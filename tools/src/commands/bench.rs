//! `crown bench`: the figures a designer waits for, measured on this machine, on the packs
//! of the project: games a second, the search bot's cost a decision, the interpreter's
//! unit costs, `crown check` and the golden suite, campaign plays. Built with the
//! `bench-suite` feature (`cargo xtask bench`), it also runs [`crate::bench::suite`].

use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::load::Project;

use crate::bench::{self, Figures};
use crate::cli::OutputFormat;
use crate::out::{self, Done, Failure};
use crate::{golden, session};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub format: OutputFormat,
    /// Smaller workloads: about 4 minutes for every group on 2 cores, most of it the search bot (`--only` picks groups).
    #[arg(long)]
    pub quick: bool,
    /// Only these groups, comma-separated: packs, bots, search, rhai, check, golden, campaign; and,
    /// in the benchmark suite (`cargo xtask bench`): load, ttk, peer, sim, pdf, watch, memory.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

/// The groups every `crown` measures, on the packs of the project it is given.
const GROUPS: &[&str] = &["packs", "bots", "search", "rhai", "check", "golden", "campaign"];

impl BenchArgs {
    fn wants(&self, group: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|g| g == group)
    }
}

pub fn run(project: &Project, args: &BenchArgs) -> Done {
    check_groups(args)?;
    let mut f = Figures::new(args.format.is_json());
    let threads = rayon::current_num_threads();
    if args.wants("packs") {
        bench_packs(project, args.quick, threads, &mut f);
    }
    if args.wants("bots") {
        bench_bots(project, args.quick, &mut f);
    }
    if args.wants("search") {
        bench_search(project, args.quick, &mut f);
    }
    if args.wants("rhai") {
        bench_rhai(&mut f);
    }
    if args.wants("check") {
        bench_check(project, &mut f);
    }
    if args.wants("golden") {
        bench_golden(project, &mut f);
    }
    if args.wants("campaign") {
        bench_campaign(project, args.quick, &mut f);
    }
    #[cfg(feature = "bench-suite")]
    bench::suite::run(project, args.quick, &|g| args.wants(g), &mut f);
    if args.format.is_json() {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(f.map)).unwrap_or_default());
    } else if cfg!(not(feature = "bench-suite")) && args.only.is_empty() {
        println!(
            "(the benchmark suite, with the native baseline and the generated projects, runs with `cargo xtask bench`)"
        );
    }
    Ok(())
}

/// Refuse an `--only` group that does not exist, and a group of the benchmark suite when
/// this `crown` was built without it.
fn check_groups(args: &BenchArgs) -> Done {
    if let Some(g) =
        args.only.iter().find(|g| !GROUPS.contains(&g.as_str()) && !bench::SUITE_GROUPS.contains(&g.as_str()))
    {
        let all: Vec<&str> = GROUPS.iter().chain(bench::SUITE_GROUPS).copied().collect();
        return Err(Failure::usage(format!("no benchmark group `{g}` (groups: {})", all.join(", "))));
    }
    if cfg!(not(feature = "bench-suite")) {
        if let Some(g) = args.only.iter().find(|g| bench::SUITE_GROUPS.contains(&g.as_str())) {
            return Err(Failure::usage(format!(
                "the `{g}` group is in the benchmark suite, which this `crown` was built without: run it with `cargo xtask bench --only {g}` in Crown's repository"
            )));
        }
    }
    Ok(())
}

/// The `packs` group: games a second of each pack with random bots, on one thread and on
/// `threads`.
fn bench_packs(project: &Project, quick: bool, threads: usize, f: &mut Figures) {
    // Each measurement plays batches of games until its time budget is spent (packs differ
    // a hundredfold in speed), with at least one batch.
    let budget = std::time::Duration::from_secs_f64(if quick { 1.5 } else { 10.0 });
    for pack_id in project.pack_ids() {
        let Ok(pack) = session::load(project, &pack_id) else {
            continue;
        };
        let players = crate::seats::player_count(&pack, None, None);
        let Ok(kinds) = crate::seats::agent_kinds(&pack, None, players, &["random".to_string()], "random") else {
            continue;
        };
        let key = pack_id.replace('-', "_");
        for (label, t) in [("1 thread", 1usize), ("all threads", threads)] {
            match bench::timed_sim(&pack, &kinds, t, budget) {
                Ok((n, gps)) => {
                    let k = if t == 1 { format!("{key}_gps_1t") } else { format!("{key}_gps") };
                    f.say(
                        &k,
                        gps,
                        format!("{pack_id}: {gps:.0} games/s with {players} random bots on {label} ({n} games)"),
                    );
                }
                Err(e) => eprintln!("{pack_id}: {e}"),
            }
        }
    }
}

/// The `bots` group: each pack played by greedy and by random bots on the same seeds, and
/// how their rates compare.
fn bench_bots(project: &Project, quick: bool, f: &mut Figures) {
    for pack_id in project.pack_ids() {
        let Ok(pack) = session::load(project, &pack_id) else {
            continue;
        };
        match bench::bots::bot_speeds(&pack, if quick { 10 } else { 60 }) {
            Ok(b) => {
                let key = pack_id.replace('-', "_");
                f.say(&format!("{key}_random_bots_gps_1t"), b.random.gps(), "");
                f.say(&format!("{key}_greedy_bots_gps_1t"), b.greedy.gps(), "");
                f.say(&format!("{key}_greedy_replayed_gps_1t"), b.replayed.gps(), "");
                f.say(
                    &format!("{key}_bots_ratio"),
                    b.ratio(),
                    format!(
                        "{pack_id}: greedy bots {:.1} games/s, random {:.1}, on one thread, the same seeds: {:.2} of random's rate",
                        b.greedy.gps(),
                        b.random.gps(),
                        b.ratio()
                    ),
                );
                f.say(
                    &format!("{key}_bots_turn_ratio"),
                    b.turn_ratio(),
                    format!(
                        "{pack_id}: a greedy game lasts {:.1} turns, a random one {:.1}: turns a second, greedy {:.2} of random's",
                        b.greedy.turns_per_game(),
                        b.random.turns_per_game(),
                        b.turn_ratio()
                    ),
                );
                f.say(&format!("{key}_bots_deciding_share"), b.deciding_share(), "");
                f.say(
                    &format!("{key}_bots_free_deciding_ratio"),
                    b.free_deciding_ratio(),
                    format!(
                        "{pack_id}: the greedy games replayed from their picks (the rules alone) {:.1} games/s: deciding is {:.0}% of a greedy game, and greedy bots that decided for free would play at {:.2} of random's rate",
                        b.replayed.gps(),
                        100.0 * b.deciding_share(),
                        b.free_deciding_ratio()
                    ),
                );
            }
            Err(e) => eprintln!("{pack_id}: bots: {e}"),
        }
    }
}

/// The `search` group: what the search bot costs a decision.
fn bench_search(project: &Project, quick: bool, f: &mut Figures) {
    match bench::search::figures(project, if quick { 2 } else { 6 }) {
        Ok(rows) => {
            for (key, value, text) in rows {
                f.say(&key, value, text);
            }
        }
        Err(e) => eprintln!("search: {e}"),
    }
}

/// The `rhai` group: the interpreter's unit costs.
fn bench_rhai(f: &mut Figures) {
    match bench::rhai_costs() {
        Ok(c) => {
            for (key, what, ns) in c {
                f.say(key, ns, format!("script cost: {what}: {ns:.0} ns"));
            }
        }
        Err(e) => eprintln!("rhai: {e}"),
    }
}

/// The `check` group: what `crown check PACK` does for each shipped pack: load and
/// validate (scripts compiled and analysed), render every face in memory, read the golden
/// game files. One thread, best of three.
fn bench_check(project: &Project, f: &mut Figures) {
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
        f.say(&key, best, format!("crown check {id}: {:.0} ms", best * 1000.0));
    }
}

/// The `golden` group: every golden game of the project replayed, each pack loaded once.
fn bench_golden(project: &Project, f: &mut Figures) {
    let cases = golden::discover(project, &[]);
    if cases.is_empty() {
        return;
    }
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
    f.say(
        "golden_suite_s",
        secs,
        format!("golden suite: {n} games replayed in {secs:.2} s ({:.0} games/s)", n as f64 / secs.max(1e-9)),
    );
}

/// The `campaign` group: every pack whose rules pause at `checkpoint()`, a whole game by
/// the greedy bot, saved and read back at every checkpoint as between sittings.
fn bench_campaign(project: &Project, quick: bool, f: &mut Figures) {
    for pack_id in project.pack_ids() {
        let Ok(pack) = session::load(project, &pack_id) else {
            continue;
        };
        if !pack.rule_files().any(|r| r.references.names.contains("checkpoint")) {
            continue;
        }
        let n = if quick { 3 } else { 20 };
        match crate::campaign::bench_plays(&pack, n, true) {
            Ok((pps, score)) => f.say(
                &format!("campaign_{}_plays_per_s", pack_id.replace('-', "_")),
                pps,
                format!(
                    "{pack_id}: {pps:.2} whole campaign games/s by the greedy bot, saved and read back at every checkpoint ({n} games, mean score {score:.1})"
                ),
            ),
            Err(e) => eprintln!("{pack_id}: campaign: {e}"),
        }
    }
}
