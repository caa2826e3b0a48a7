//! `crown sim`: many bot games in parallel, streaming statistics, a summary.
//!
//! Game `i` is seeded with `derive_seed(seed, i)` and set up by [`plan::Plan`] from the
//! seed and `i` alone; statistics are integer sums ([`stats::Stats`]), so the result is
//! the same for any thread count. The modules: `plan` (seating and characters), `stats`
//! (what is counted, folded game by game and merged), `interval` (Wilson, Newcombe and
//! paired intervals), `figures` (the typed figures a summary is made of), `summary` (one
//! side's [`summary::Summary`], built from the statistics), `table` (its terminal table),
//! `compare` (the typed comparison of two sides), `shard` (statistics files, `--shard` and
//! `crown sim merge`), `report` (the HTML page).
//!
//! Statistics travel as types: [`Stats`] (integer sums) becomes a [`FullSummary`] (the
//! figures), which every output reads by field; it becomes JSON only when printed.

pub mod compare;
pub mod figures;
pub mod interval;
pub mod keep;
pub mod plan;
pub mod report;
pub mod shard;
pub mod stats;
pub mod summary;
pub mod table;

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::game::{GameConfig, Outcome, ScriptFailure, Status};
use rayon::prelude::*;
use serde::Serialize;

use compare::Comparison;
pub use interval::wilson;
use plan::{Characters, Plan, SeatOrder};
pub use stats::Stats;
use stats::{Acc, Paired};
use summary::{RunInfo, Summary};

/// The process's pool of `threads` game threads (0: one a core), made on first use and
/// kept: the compiled script tier compiles a script once per thread, so a process that
/// simulates again (the benchmark's batches, a test binary's many simulations) plays on
/// threads that have compiled the pack's scripts already.
fn worker_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    static POOLS: std::sync::Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = std::sync::Mutex::new(Vec::new());
    let mut pools = POOLS.lock().map_err(|_| "internal: the game thread pools are poisoned".to_string())?;
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // Deeply recursive scripts stop at the call-depth limit well inside this.
        .stack_size(16 * 1024 * 1024)
        .build()
        .map_err(|e| e.to_string())?;
    let pool = Arc::new(pool);
    pools.push((threads, pool.clone()));
    Ok(pool)
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
        discards: Vec::new(),
        drawn: Vec::new(),
        rounds: Vec::new(),
    }
}

/// Play game `i` of `plan`: its outcome and the role of each seat.
fn play_one(pack: &Arc<Pack>, plan: &Plan, i: u64) -> (Outcome, Vec<usize>) {
    match plan.game(pack, i) {
        Ok((game, roles)) => {
            let (game, outcome) = game.run();
            if let Some(keep) = plan.keep.as_ref().filter(|k| k.keeps(i)) {
                keep.write(i, &game, &outcome, roles.iter().map(|&r| plan.kinds[r].clone()).collect());
            }
            (outcome, roles)
        }
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
    let pool = worker_pool(threads.unwrap_or(0))?;
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

/// Everything a run prints: this side's summary and, when there is one, the comparison
/// with the other side, the peeking audit, the timing and the note of a partial merge.
/// Its JSON (`--json`) is [`FullSummary::to_json`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FullSummary {
    #[serde(flatten)]
    pub summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<Comparison>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peeking: Option<Peeking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Partial>,
}

impl FullSummary {
    /// The summary JSON. It goes through a `serde_json::Value`, whose maps keep their keys
    /// sorted, so every object's keys come out in alphabetical order whatever the order of
    /// the fields.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The JSON as `--json` prints it.
    pub fn to_json_text(&self) -> String {
        serde_json::to_string_pretty(&self.to_json()).unwrap_or_default()
    }

    /// The terminal table, and the comparison when there is one.
    pub fn print(&self) {
        self.summary.print();
        if let Some(c) = &self.compare {
            c.print(self.summary.confidence);
        }
    }
}

/// The peeking audit (`--audit-peeking`): re-deals a decision was taken again on, by bot
/// kind the decisions audited and changed, and the rules' menus that changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Peeking {
    pub redeals: u64,
    pub bots: std::collections::BTreeMap<String, PeekingBot>,
    pub menus_changed: u64,
    pub menu_example: Option<String>,
}

/// One bot kind's audit: decisions audited, those whose choice changed with a re-deal,
/// whether none did, and the first that did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeekingBot {
    pub decisions: u64,
    pub changed: u64,
    pub passed: bool,
    pub example: Option<String>,
}

impl Peeking {
    pub fn of(log: &crown_engine::bots::audit::AuditLog) -> Peeking {
        let bots = (log.kinds.iter())
            .map(|(k, (audited, changed, example))| {
                let bot = PeekingBot {
                    decisions: *audited,
                    changed: *changed,
                    passed: *changed == 0,
                    example: example.clone(),
                };
                (k.clone(), bot)
            })
            .collect();
        Peeking {
            redeals: crown_engine::bots::audit::REDEALS,
            bots,
            menus_changed: log.menus.0,
            menu_example: log.menus.1.clone(),
        }
    }
}

/// How long a run took (`--timing`): threads, seconds, games a second, peak memory (MB).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Timing {
    pub threads: usize,
    pub elapsed_s: f64,
    pub games_per_s: f64,
    pub peak_rss_mb: Option<f64>,
}

/// A merge of some of a run's shards (`crown sim merge --partial`): the games the figures
/// cover, of the run's, and the game ranges missing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Partial {
    pub covered: u64,
    pub of: u64,
    pub missing: Vec<[u64; 2]>,
}

/// The summary of this side, with the comparison section when there is another side.
pub fn full_summary(run: &RunInfo, stats: &Stats, other: Option<&Stats>, paired: Option<&Paired>) -> FullSummary {
    let compare = match (other, paired) {
        (Some(o), Some(p)) => Some(Comparison::of(run, stats, o, p, run.compare.as_deref().unwrap_or("other"))),
        _ => None,
    };
    FullSummary { summary: Summary::of(run, stats), compare, peeking: None, timing: None, partial: None }
}

/// This process's peak resident memory (VmHWM), in MB, where /proc tells it.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
