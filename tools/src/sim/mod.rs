//! `crown sim`: many bot games in parallel, streaming statistics, a summary.
//!
//! Game `i` is seeded with `derive_seed(seed, i)` and set up by [`plan::Plan`] from the
//! seed and `i` alone; statistics are integer sums ([`stats::Stats`]), so the result is
//! the same for any thread count. The modules: `plan` (seating and characters), `stats`
//! (what is counted), `interval` (Wilson, Newcombe and paired intervals), `summary` (the
//! JSON every output is drawn from, and the terminal table), `shard` (statistics files,
//! `--shard` and `crown sim merge`).

pub mod interval;
pub mod plan;
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

pub use interval::wilson;
use plan::{Characters, Plan, SeatOrder};
use stats::Acc;
pub use stats::Stats;
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
        status: Status::Failed(ScriptFailure {
            message,
            script: None,
            line: 0,
            column: 0,
            definitions: Vec::new(),
            trace: Vec::new(),
        }),
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

/// Play games `range` of `plan` on a pool of `threads` threads.
pub fn play(
    pack: &Arc<Pack>,
    plan: &Plan,
    range: Range<u64>,
    threads: Option<usize>,
    max_failures: u64,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<(Stats, u64), String> {
    let failed = AtomicU64::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(16 * 1024 * 1024)
        .build()
        .map_err(|e| e.to_string())?;
    // Check once, before spawning work, that a game can be set up at all.
    plan.game(pack, range.start)?;
    let acc = pool.install(|| {
        range
            .clone()
            .into_par_iter()
            .fold(Acc::default, |mut acc, i| {
                if failed.load(Ordering::Relaxed) >= max_failures {
                    return acc;
                }
                let (o, roles) = play_one(pack, plan, i);
                if matches!(o.status, Status::Failed(_)) {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                if let Some(pb) = progress {
                    pb.inc(1);
                }
                acc.add(i, &o, &roles);
                acc
            })
            .reduce(Acc::default, Acc::merge)
    });
    let stats = acc.finish(pack);
    let not_run = (range.end - range.start) - stats.games;
    Ok((stats, not_run))
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
    let v = summary::summary(&merged.run, &merged.stats);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        summary::print(&v);
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
    let (pack, players, kinds) = match session::bot_table(project, &table, "sim") {
        Ok(t) => t,
        Err(code) => return Ok(code),
    };
    let characters = Characters::parse(&args.characters)?;
    let plan = Plan::new(&pack, table.seed, players, scenario, kinds.clone(), args.seat_order, characters)?;
    let run = RunInfo {
        pack: pack.id().to_string(),
        version: pack.manifest.version.clone(),
        scenario: table.scenario.clone().or_else(|| pack.default_scenario().map(|s| s.scenario.id.clone())),
        seed: table.seed,
        games: args.games,
        players,
        agents: kinds,
        seat_order: args.seat_order,
        characters: plan.characters.label(),
        overrides: Vec::new(),
        confidence: args.confidence,
        min_sample: args.min_sample,
        compare: None,
        names: RunInfo::names_of(&pack),
    };
    if first == end {
        return Err(format!(
            "--shard {}: this shard of {} games is empty (use fewer shards)",
            args.shard.as_deref().unwrap_or(""),
            args.games
        ));
    }
    let bar = progress_bar(end - first, args.json);
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let start = Instant::now();
    let (stats, not_run) = play(&pack, &plan, first..end, Some(threads), args.max_failures, bar.as_ref())?;
    if let Some(out) = &args.out {
        let file = shard::StatsFile {
            format: shard::FORMAT.into(),
            run: run.clone(),
            ranges: vec![(first, end)],
            not_run,
            stats: stats.clone(),
            other: None,
            paired: None,
        };
        shard::write(out, &file)?;
        eprintln!("games {first}..{end} of {}: statistics written to {}", args.games, out.display());
    }
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let secs = start.elapsed().as_secs_f64();
    let mut v = summary::summary(&run, &stats);
    let timing = timing(threads, stats.games, secs);
    if args.json {
        if args.timing {
            v["timing"] = timing;
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        summary::print(&v);
        println!(
            "\n{:.0} games/s on {threads} thread{} ({secs:.2} s)",
            stats.games as f64 / secs.max(1e-9),
            if threads == 1 { "" } else { "s" }
        );
    }
    Ok(report_failures(&stats, table.seed, args.games, not_run))
}

fn timing(threads: usize, games: u64, secs: f64) -> serde_json::Value {
    serde_json::json!({
        "threads": threads,
        "elapsed_s": summary::round4(secs),
        "games_per_s": (games as f64 / secs.max(1e-9)).round(),
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
