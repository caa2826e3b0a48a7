//! `crown sim`: many bot games in parallel, streaming statistics, a summary.
//!
//! Game `i` is seeded with `derive_seed(seed, i)` and set up by [`plan::Plan`] from the
//! seed and `i` alone; statistics are integer sums ([`stats::Stats`]), so the result is
//! the same for any thread count. The modules: `plan` (seating and characters), `stats`
//! (what is counted), `interval` (Wilson, Newcombe and paired intervals), `summary` (the
//! JSON every output is drawn from, and the terminal table), `shard` (statistics files,
//! `--shard` and `crown sim merge`).

pub mod compare;
pub mod interval;
pub mod plan;
pub mod report;
pub mod shard;
pub mod stats;
pub mod summary;

use std::io::IsTerminal;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::content::{Pack, Project};
use crown_engine::game::rng::derive_seed;
use crown_engine::game::{GameConfig, Outcome, ScriptFailure, Status};
use rayon::prelude::*;

use crown_engine::content::set::Override;
pub use interval::wilson;
use plan::{Characters, Plan, SeatOrder};
pub use stats::Stats;
use stats::{Acc, Paired};
use summary::RunInfo;

use crate::session;

#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(subcommand)]
    pub command: Option<SimCommand>,
    /// The pack, by id or path.
    pub pack: Option<String>,
    /// Players per game (default: the scenario's seats or the pack's minimum; 1 to 64).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub players: Option<usize>,
    /// Scenario id (default: the pack's default scenario).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Master seed; game i uses a seed derived from it and i (the same seeds play the same
    /// games in `crown sim` and `crown profile`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Agent per seat (per role, with --seat-order), comma-separated (random, first,
    /// greedy); the last repeats.
    #[arg(long, value_delimiter = ',')]
    pub agents: Vec<String>,
    /// Number of games (at least 1; games stream into integer sums, so no upper bound
    /// but time).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Worker threads (default: all cores; 1 to 256).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub threads: Option<usize>,
    /// Print one JSON object (every figure) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Add the timing (threads, seconds, games/s, peak memory) to `--json`; without it the
    /// JSON depends on nothing but the options and the content.
    #[arg(long)]
    pub timing: bool,
    /// Stop after this many failed games, at least 1 (the summary still covers the games
    /// played).
    #[arg(long, default_value_t = 10, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=1_000_000_000))]
    pub max_failures: u64,
    /// Who sits where: `fixed` (the --agents order), `rotate` (game i moves everyone i
    /// seats on, so each bot sits in each seat equally) or `random` (seeded per game).
    #[arg(long, value_enum, default_value_t = SeatOrder::Fixed)]
    pub seat_order: SeatOrder,
    /// Characters (nobles, leaders): `game` (as the rules deal or let seats choose),
    /// `random` (distinct, drawn by the simulator), `fixed:ID,ID,...` (one per --agents
    /// entry, moving with the seating) or `sweep` (each character in each seat equally).
    #[arg(long, default_value = "game")]
    pub characters: String,
    /// Cards with fewer player-games than this on either side (played / not played) are
    /// marked as small samples.
    #[arg(long, default_value_t = 30)]
    pub min_sample: u64,
    /// Confidence of every interval (and of "real" differences).
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Play only the I-th of N disjoint ranges of the games (0 <= I < N; game i keeps its
    /// seed), and write the statistics with --out for `crown sim merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Write the run's statistics (every integer sum, JSON) to FILE, for `crown sim merge`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Play the same games (same seeds, seating, characters) on OTHER too, another project
    /// folder or a git revision of this project (HEAD~1, a branch, a tag), and report what
    /// changed (this − other) with intervals, marking the differences that are real.
    #[arg(long, value_name = "OTHER")]
    pub compare: Option<String>,
    /// Play the other side of the comparison with these agents instead (same syntax as
    /// --agents): `--compare-agents greedy` plays the same games with greedy bots, on this
    /// project or, with --compare, on OTHER. Paired by seed like --compare: is the
    /// search bot better than greedy on the same deals?
    #[arg(long, value_name = "AGENTS", value_delimiter = ',')]
    pub compare_agents: Vec<String>,
    /// Change a definition value for this run without editing files:
    /// KIND.ID.FIELD.KEY=VALUE (card.pikemen.values.attack=2; fields values, cost, attrs,
    /// count; scenario.ID.options.KEY). A whole-number range A..B runs one simulation per
    /// value and tabulates them. Repeatable.
    #[arg(long = "set", value_name = "KIND.ID.FIELD.KEY=VALUE")]
    pub set: Vec<String>,
    /// Also write a self-contained HTML page with the charts (win rates with interval
    /// bars, game lengths, card impact, the comparison).
    #[arg(long, value_name = "FILE")]
    pub report: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
pub enum SimCommand {
    /// Merge the statistics files of a sharded run (`--shard I/N --out FILE`) and print
    /// the summary: the same as one unsharded run, byte for byte in --json.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The statistics files (`crown sim --out`), one per shard, in any order.
    #[arg(required = true)]
    pub files: Vec<std::path::PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write the merged statistics file (to merge further).
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Also write the HTML report (as `crown sim --report`).
    #[arg(long, value_name = "FILE")]
    pub report: Option<std::path::PathBuf>,
}

/// Play `games` bot games and gather statistics (used by `crown sim` and `crown bench`):
/// the `--agents` order every game, characters as the rules deal them.
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    pack: &Arc<Pack>,
    kinds: &[String],
    scenario: Option<&str>,
    seed: u64,
    games: u64,
    threads: Option<usize>,
    max_failures: u64,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Stats, String> {
    let plan = Plan::new(pack, seed, kinds.len(), scenario, kinds.to_vec(), SeatOrder::Fixed, Characters::Game)?;
    Ok(play(pack, &plan, 0..games, threads, max_failures, progress)?.0)
}

/// What a game that could not be set up counts as.
fn failed_outcome(message: String) -> Outcome {
    Outcome {
        status: Status::Failed(ScriptFailure::plain(message)),
        winners: Vec::new(),
        reason: String::new(),
        scores: Vec::new(),
        turns: 0,
        characters: Vec::new(),
        plays: Vec::new(),
        drawn: Vec::new(),
    }
}

/// Play game `i` of `plan`: its outcome and the role of each seat.
fn play_one(pack: &Arc<Pack>, plan: &Plan, i: u64) -> (Outcome, Vec<usize>) {
    match plan.game(pack, i) {
        Ok((game, roles)) => (game.run().1, roles),
        Err(e) => (failed_outcome(e), plan.seating(i)),
    }
}

/// Play games `range` of `plan` on a pool of `threads` threads: the statistics and the
/// games not played (stopped by `max_failures`).
pub fn play(
    pack: &Arc<Pack>,
    plan: &Plan,
    range: Range<u64>,
    threads: Option<usize>,
    max_failures: u64,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<(Stats, u64), String> {
    let p = play_pair(pack, None, plan, range, threads, max_failures, progress)?;
    Ok((p.stats, p.not_run))
}

/// What a run gives: this side's statistics and, with `--compare`, the other side's and
/// the paired differences; the games not played (stopped by failures).
pub struct Played {
    pub stats: Stats,
    pub other: Option<Stats>,
    pub paired: Option<Paired>,
    pub not_run: u64,
}

#[derive(Default)]
struct Fold {
    this: Acc,
    other: Option<Acc>,
    paired: Option<Paired>,
}

fn join<T>(a: Option<T>, b: Option<T>, f: impl FnOnce(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, b) => a.or(b),
    }
}

/// Play games `range` of `plan` on `pack` and, when given, the same games on the other
/// side (its pack and plan: the same seeds, seating and characters, perhaps other agents).
pub fn play_pair(
    pack: &Arc<Pack>,
    other: Option<(&Arc<Pack>, &Plan)>,
    plan: &Plan,
    range: Range<u64>,
    threads: Option<usize>,
    max_failures: u64,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Played, String> {
    let failed = AtomicU64::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(16 * 1024 * 1024)
        .build()
        .map_err(|e| e.to_string())?;
    // Check once, before spawning work, that a game can be set up at all.
    plan.game(pack, range.start)?;
    if let Some((o, op)) = other {
        op.game(o, range.start).map_err(|e| format!("the other side (--compare): {e}"))?;
    }
    let fold = pool.install(|| {
        range
            .clone()
            .into_par_iter()
            .fold(Fold::default, |mut f, i| {
                if failed.load(Ordering::Relaxed) >= max_failures {
                    return f;
                }
                let (o, roles) = play_one(pack, plan, i);
                let mut fails = matches!(o.status, Status::Failed(_));
                if let Some((op, oplan)) = other {
                    let (oo, _) = play_one(op, oplan, i);
                    fails |= matches!(oo.status, Status::Failed(_));
                    f.other.get_or_insert_with(Acc::default).add(i, &oo, &roles);
                    f.paired.get_or_insert_with(Paired::default).add(plan.players, &oo, &o);
                }
                if fails {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                if let Some(pb) = progress {
                    pb.inc(1);
                }
                f.this.add(i, &o, &roles);
                f
            })
            .reduce(Fold::default, |a, b| Fold {
                this: a.this.merge(b.this),
                other: join(a.other, b.other, Acc::merge),
                paired: join(a.paired, b.paired, Paired::merge),
            })
    });
    let stats = fold.this.finish(pack);
    let not_run = (range.end - range.start) - stats.games;
    Ok(Played {
        stats,
        other: other.map(|(op, _)| fold.other.unwrap_or_default().finish(op)),
        paired: other.map(|_| fold.paired.unwrap_or_default()),
        not_run,
    })
}

/// How `crown sim` (and `crown profile`) set up game `seed`: no transcript kept.
pub fn config(seed: u64, players: usize, scenario: Option<&str>) -> GameConfig {
    let mut c = GameConfig::new(seed, players);
    c.scenario = scenario.map(str::to_string);
    c.transcript = false;
    c
}

fn progress_bar(games: u64, quiet: bool) -> Option<indicatif::ProgressBar> {
    (!quiet && std::io::stderr().is_terminal()).then(|| {
        let pb = indicatif::ProgressBar::new(games);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games {per_sec} eta {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    })
}

pub fn run(project: &Project, args: &SimArgs) -> i32 {
    match run_inner(project, args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn run_merge(args: &MergeArgs) -> Result<i32, String> {
    let merged = shard::merge(&args.files)?;
    if let Some(out) = &args.out {
        shard::write(out, &merged)?;
    }
    let v = full_summary(&merged.run, &merged.stats, merged.other.as_ref(), merged.paired.as_ref());
    write_report(args.report.as_deref(), &v)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print_all(&v);
    }
    Ok(report_failures(&merged.stats, merged.run.seed, merged.run.games, merged.not_run))
}

fn run_inner(project: &Project, args: &SimArgs) -> Result<i32, String> {
    if let Some(SimCommand::Merge(m)) = &args.command {
        return run_merge(m);
    }
    let (first, end) = match &args.shard {
        Some(s) => {
            let (i, n) = shard::parse_shard(s)?;
            if args.out.is_none() {
                return Err(format!(
                    "--shard {s} needs --out FILE to write its statistics to (then `crown sim merge`)"
                ));
            }
            shard::shard_range(args.games, i, n)
        }
        None => (0, args.games),
    };
    if args.games == 0 {
        return Err("--games 0: nothing to simulate (give at least 1)".into());
    }
    if !(args.confidence > 0.5 && args.confidence < 1.0) {
        return Err(format!("--confidence {}: give a level between 0.5 and 1, e.g. 0.95", args.confidence));
    }
    let Some(pack_name) = args.pack.clone() else {
        return Err("crown sim: name the pack to simulate (crown sim PACK), or `crown sim merge FILES...`".into());
    };
    let table = session::BotTableArgs {
        pack: pack_name,
        players: args.players,
        scenario: args.scenario.clone(),
        seed: args.seed,
        agents: args.agents.clone(),
    };
    let scenario = table.scenario.as_deref();
    let (base, players, kinds) = match session::bot_table(project, &table, "sim") {
        Ok(t) => t,
        Err(code) => return Ok(code),
    };
    if first == end {
        return Err(format!(
            "--shard {}: this shard of {} games is empty (use fewer shards)",
            args.shard.as_deref().unwrap_or(""),
            args.games
        ));
    }
    let (fixed, sweep) = overrides(&args.set)?;
    if sweep.is_some() && args.report.is_some() {
        return Err("--report draws one run: give one --set value instead of a sweep".into());
    }
    if sweep.is_some() && (args.shard.is_some() || args.out.is_some()) {
        return Err("a --set sweep (A..B) runs one simulation per value: it cannot be sharded or written with --out; shard each value's run instead".into());
    }
    let characters = Characters::parse(&args.characters)?;
    let plan = Plan::new(&base, table.seed, players, scenario, kinds.clone(), args.seat_order, characters)?;
    let mut other = match &args.compare {
        Some(o) => Some(compare::other(project, base.id(), o)?),
        None => None,
    };
    // --compare-agents: the other side's bots (on OTHER, or on this same pack).
    let other_plan = if args.compare_agents.is_empty() {
        None
    } else {
        let side = other.get_or_insert_with(|| compare::Other::same(base.clone()));
        let other_kinds = session::agent_kinds(&side.pack, scenario, players, &args.compare_agents, "random")
            .map_err(|e| format!("--compare-agents: {e}"))?;
        if other_kinds.iter().any(|k| k == "human") {
            return Err("--compare-agents: `crown sim` plays bots only".into());
        }
        side.label = format!("{} with agents {}", side.label, other_kinds.join(","));
        Some(Plan::new(
            &side.pack,
            table.seed,
            players,
            scenario,
            other_kinds,
            args.seat_order,
            plan.characters.clone(),
        )?)
    };
    let values: Vec<Option<String>> = match &sweep {
        Some((_, v)) => v.iter().cloned().map(Some).collect(),
        None => vec![None],
    };
    // Check every value before playing any game.
    let mut packs = Vec::new();
    for value in &values {
        let mut set = fixed.clone();
        if let (Some((o, _)), Some(v)) = (&sweep, value) {
            set.push(Override { value: v.clone(), ..o.clone() });
        }
        let pack = if set.is_empty() {
            base.clone()
        } else {
            let mut p = (*base).clone();
            for o in &set {
                p.apply_override(o).map_err(|e| format!("--set {}={}: {e}", o.path(), o.value))?;
            }
            Arc::new(p)
        };
        packs.push((set, pack));
    }
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let mut runs = Vec::new();
    let mut code = 0;
    for (set, pack) in packs {
        let mut names = RunInfo::names_of(&pack);
        if let Some(o) = &other {
            for (k, v) in RunInfo::names_of(&o.pack) {
                names.entry(k).or_insert(v);
            }
        }
        let run = RunInfo {
            pack: pack.id().to_string(),
            version: pack.manifest.version.clone(),
            scenario: table.scenario.clone().or_else(|| pack.default_scenario().map(|s| s.scenario.id.clone())),
            seed: table.seed,
            games: args.games,
            players,
            agents: kinds.clone(),
            seat_order: args.seat_order,
            characters: plan.characters.label(),
            overrides: set.iter().map(|o| format!("{}={}", o.path(), o.value)).collect(),
            confidence: args.confidence,
            min_sample: args.min_sample,
            compare: other.as_ref().map(|o| o.label.clone()),
            compare_agents: other_plan.as_ref().map(|p| p.kinds.clone()).unwrap_or_default(),
            names,
        };
        let bar = progress_bar(end - first, args.json);
        let start = Instant::now();
        let played = play_pair(
            &pack,
            other.as_ref().map(|o| (&o.pack, other_plan.as_ref().unwrap_or(&plan))),
            &plan,
            first..end,
            Some(threads),
            args.max_failures,
            bar.as_ref(),
        )?;
        if let Some(pb) = &bar {
            pb.finish_and_clear();
        }
        let secs = start.elapsed().as_secs_f64();
        if let Some(out) = &args.out {
            let file = shard::StatsFile {
                format: shard::FORMAT.into(),
                run: run.clone(),
                ranges: vec![(first, end)],
                not_run: played.not_run,
                stats: played.stats.clone(),
                other: played.other.clone(),
                paired: played.paired.clone(),
            };
            shard::write(out, &file)?;
            eprintln!("games {first}..{end} of {}: statistics written to {}", args.games, out.display());
        }
        let mut v = full_summary(&run, &played.stats, played.other.as_ref(), played.paired.as_ref());
        v["timing"] = timing(threads, played.stats.games * if other.is_some() { 2 } else { 1 }, secs);
        code = code.max(report_failures(&played.stats, table.seed, args.games, played.not_run));
        if let Some(o) = &played.other {
            code = code.max(report_failures(o, table.seed, args.games, played.not_run));
        }
        runs.push((set, v));
    }
    match sweep {
        None => {
            let Some((_, mut v)) = runs.pop() else { return Ok(code) };
            let t = v.as_object_mut().and_then(|m| m.remove("timing")).unwrap_or_default();
            write_report(args.report.as_deref(), &v)?;
            if args.json {
                if args.timing {
                    v["timing"] = t;
                }
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                print_all(&v);
                let gps = t["games_per_s"].as_f64().unwrap_or(0.0);
                // A slow run (search bots) says how long a game takes, not "0 games/s".
                let each = if gps > 0.0 && gps < 1.0 { format!(", {:.1} s a game", 1.0 / gps) } else { String::new() };
                println!(
                    "\n{} games/s on {threads} thread{} ({:.2} s{each})",
                    t["games_per_s"],
                    if threads == 1 { "" } else { "s" },
                    t["elapsed_s"].as_f64().unwrap_or(0.0)
                );
            }
        }
        Some((o, values)) => {
            let mut list = Vec::new();
            for (value, (_, mut v)) in values.iter().zip(runs) {
                if !args.timing {
                    if let Some(m) = v.as_object_mut() {
                        m.remove("timing");
                    }
                }
                list.push(serde_json::json!({ "value": value, "summary": v }));
            }
            let v = serde_json::json!({ "sweep": o.path(), "runs": list });
            if args.json {
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                print_sweep(&o, &v);
            }
        }
    }
    Ok(code)
}

/// The summary of this side, with the comparison section when there is another side.
pub fn full_summary(run: &RunInfo, stats: &Stats, other: Option<&Stats>, paired: Option<&Paired>) -> serde_json::Value {
    let mut v = summary::summary(run, stats);
    if let (Some(o), Some(p)) = (other, paired) {
        v["compare"] = compare::section(run, stats, o, p, run.compare.as_deref().unwrap_or("other"));
    }
    v
}

/// Write the HTML report of a summary, when asked.
fn write_report(path: Option<&std::path::Path>, v: &serde_json::Value) -> Result<(), String> {
    if let Some(path) = path {
        crate::out::write_atomic(path, report::page(v).as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    Ok(())
}

/// The table, and the comparison when there is one.
fn print_all(v: &serde_json::Value) {
    summary::print(v);
    if v.get("compare").is_some_and(|c| c.is_object()) {
        compare::print(&v["compare"], v["confidence"].as_f64().unwrap_or(0.95));
    }
}

/// `--set` arguments: the fixed overrides and the one sweep (`A..B`), if any.
#[allow(clippy::type_complexity)]
fn overrides(set: &[String]) -> Result<(Vec<Override>, Option<(Override, Vec<String>)>), String> {
    let mut fixed = Vec::new();
    let mut sweep = None;
    for s in set {
        let o = Override::parse(s).map_err(|e| format!("--set {e}"))?;
        match o.value.split_once("..") {
            Some((a, b)) => {
                let bad = || format!("--set {s}: a sweep is A..B with whole numbers A <= B (at most 50 values)");
                let (a, b): (i64, i64) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
                if a > b || b - a >= 50 {
                    return Err(bad());
                }
                if sweep.is_some() {
                    return Err(format!("--set {s}: only one --set may sweep a range"));
                }
                sweep = Some((o, (a..=b).map(|x| x.to_string()).collect()));
            }
            None => fixed.push(o),
        }
    }
    Ok((fixed, sweep))
}

/// One row per swept value.
fn print_sweep(o: &Override, v: &serde_json::Value) {
    let pct = |x: &serde_json::Value| format!("{:.1}%", 100.0 * x.as_f64().unwrap_or(0.0));
    let first = &v["runs"][0]["summary"];
    let players = first["players"].as_u64().unwrap_or(0) as usize;
    println!(
        "{} = each value: {} games of {} each ({} players, seed {}); win rates with {:.0}% intervals in --json",
        o.path(),
        first["games"],
        first["pack"].as_str().unwrap_or(""),
        players,
        first["seed"],
        100.0 * first["confidence"].as_f64().unwrap_or(0.95)
    );
    let mut head = format!("  {:>6}", "value");
    for s in 0..players {
        head.push_str(&format!(" {:>8}", format!("seat {}", s + 1)));
    }
    head.push_str(&format!(" {:>8} {:>8} {:>8} {:>7}", "shared", "no win", "limit", "turns"));
    let card = o.kind == "card";
    if card {
        head.push_str(&format!("  {} IWP", o.id));
    }
    if first.get("compare").is_some() {
        head.push_str("  (vs other: changes marked * are real)");
    }
    println!("{head}");
    for r in v["runs"].as_array().into_iter().flatten() {
        let s = &r["summary"];
        let mut line = format!("  {:>6}", r["value"].as_str().unwrap_or(""));
        for k in 0..players + 3 {
            let real = s["compare"]["outcomes"][k]["difference"]["real"].as_bool().unwrap_or(false);
            line.push_str(&format!(" {:>7}{}", pct(&s["outcomes"][k]["rate"]), if real { "*" } else { " " }));
        }
        line.push_str(&format!(" {:>7.1}", s["length"]["mean"].as_f64().unwrap_or(0.0)));
        if card {
            let c = &s["cards"][&o.id]["improvement_played"];
            line.push_str(&format!(
                "  {:+.1} [{:+.1}, {:+.1}]",
                100.0 * c["value"].as_f64().unwrap_or(0.0),
                100.0 * c["ci"][0].as_f64().unwrap_or(0.0),
                100.0 * c["ci"][1].as_f64().unwrap_or(0.0)
            ));
        }
        println!("{line}");
    }
}

fn timing(threads: usize, games: u64, secs: f64) -> serde_json::Value {
    serde_json::json!({
        "threads": threads,
        "elapsed_s": summary::round4(secs),
        "games_per_s": games_per_s(games as f64 / secs.max(1e-9)),
        "peak_rss_mb": peak_rss_mb().map(|m| (m * 10.0).round() / 10.0),
    })
}

/// Print the first failures; the exit code (1 when a game failed).
fn report_failures(stats: &Stats, seed: u64, games: u64, not_run: u64) -> i32 {
    for (i, f) in stats.failures.iter().take(5) {
        eprintln!("error: game {i} (seed {}): {f}", derive_seed(seed, *i));
    }
    if stats.failed > 0 {
        eprintln!(
            "{} of {} games failed{}",
            stats.failed,
            games,
            if not_run > 0 { format!("; stopped early, {not_run} games not played") } else { String::new() }
        );
        return 1;
    }
    0
}

/// This process's peak resident memory (VmHWM), in MB, where /proc tells it.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Games a second as reported: whole games from 10 up, three decimals below (a search
/// run at 0.013 games/s is not "0").
fn games_per_s(x: f64) -> f64 {
    if x >= 10.0 {
        x.round()
    } else {
        (x * 1000.0).round() / 1000.0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn slow_runs_keep_their_rate() {
        assert_eq!(super::games_per_s(0.0132847), 0.013);
        assert_eq!(super::games_per_s(4.9876), 4.988);
        assert_eq!(super::games_per_s(111.4), 111.0);
    }
}
