//! `crown sim`: many bot games in parallel and a summary of win rates, lengths and card
//! statistics; `--compare` and `--compare-agents` pair them with other games on the same
//! seeds, `--set` tries a value without editing files, `crown sim merge` joins shards.

use crown_engine::diag::plural;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::content::set::Override;
use crown_engine::content::Pack;
use crown_engine::game::rng::derive_seed;
use crown_engine::load::Project;

use crate::cli::{OutputFormat, TableArgs};
use crate::out::{self, Done, Failure};
use crate::session;
use crate::sim::plan::{Characters, Plan, SeatOrder};
use crate::sim::stats::Stats;
use crate::sim::summary::RunInfo;
use crate::sim::*;

#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(subcommand)]
    pub command: Option<SimCommand>,
    /// The pack, by id or path.
    pub pack: Option<String>,
    #[command(flatten)]
    pub table: TableArgs,
    /// Number of games (at least 1; games stream into integer sums, so no upper bound
    /// but time).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Worker threads (default: all cores; 1 to 256).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub format: OutputFormat,
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
    #[arg(long, value_name = "I/N", allow_hyphen_values = true)]
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
    /// Keep the games as files in DIR: each one's transcript and the game file that
    /// replays it (`PACK-I.transcript`, `PACK-I.game.toml`), for outside checkers and
    /// `crown test`. Every game, or every Kth with --every.
    #[arg(long, value_name = "DIR")]
    pub transcripts: Option<std::path::PathBuf>,
    /// Check the pack's invariants (its rules' `invariant_...` functions) in every game:
    /// after set-up, before every decision and after every turn. A broken one fails the
    /// game; the time the checks took is reported.
    #[arg(long)]
    pub invariants: bool,
    /// Audit the bots for peeking: each decision is taken again on copies of the table
    /// where what the seat cannot see is dealt again; a bot whose choice changes reads
    /// hidden cards, and is reported with a decision that shows it (slow: a few copies of
    /// every turn).
    #[arg(long)]
    pub audit_peeking: bool,
    /// With --transcripts: keep only games 0, K, 2K...
    #[arg(long, value_name = "K", default_value_t = 1, requires = "transcripts")]
    pub every: u64,
    /// With --transcripts: keep only the games that ended this way: seat-N (seat N won,
    /// alone or shared), shared, no-winner, turn-limit or failed.
    #[arg(long, value_name = "OUTCOME", requires = "transcripts")]
    pub only: Option<String>,
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
    #[command(flatten)]
    pub format: OutputFormat,
    /// Also write the merged statistics file (to merge further).
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Merge the files given even when they do not cover the whole run (a shard still
    /// running): the summary is an interim one, and `--out` writes a file that merges
    /// again with the rest.
    #[arg(long)]
    pub partial: bool,
    /// Also write the HTML report (as `crown sim --report`).
    #[arg(long, value_name = "FILE")]
    pub report: Option<std::path::PathBuf>,
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

pub fn run(project: &Project, args: &SimArgs) -> Done {
    match run_inner(project, args) {
        Ok(code) => out::exit(code),
        Err(e) => Err(Failure::usage(e)),
    }
}

fn run_merge(args: &MergeArgs) -> Result<i32, String> {
    let shard::Merged { file: merged, missing } = shard::merge(&args.files, args.partial)?;
    if let Some(out) = &args.out {
        shard::write(out, &merged)?;
    }
    let mut v = full_summary(&merged.run, &merged.stats, merged.other.as_ref(), merged.paired.as_ref());
    if !missing.is_empty() {
        let covered: u64 = merged.ranges.iter().map(|(a, b)| b - a).sum();
        v.partial =
            Some(Partial { covered, of: merged.run.games, missing: missing.iter().map(|&(a, b)| [a, b]).collect() });
        eprintln!(
            "partial: these figures cover {covered} of the run's {} games; missing game ranges: {}{}",
            merged.run.games,
            shard::ranges_text(&missing),
            if args.out.is_some() { " (merge the file written with the rest)" } else { "" }
        );
    }
    write_report(args.report.as_deref(), &v)?;
    if args.format.is_json() {
        println!("{}", v.to_json_text());
    } else {
        v.print();
    }
    // The failures of every shard count against one --max-failures, as in one run.
    if merged.stats.failed > merged.run.max_failures {
        eprintln!(
            "{} games failed across the shards, past --max-failures {}: one run would have stopped after {} failures, so fix the failing games before trusting these figures",
            merged.stats.failed, merged.run.max_failures, merged.run.max_failures
        );
    }
    Ok(report_failures(&merged.stats, merged.run.seed, merged.run.games, merged.not_run))
}

fn run_inner(project: &Project, args: &SimArgs) -> Result<i32, String> {
    if let Some(SimCommand::Merge(m)) = &args.command {
        return run_merge(m);
    }
    let (first, end) = checked_range(args)?;
    let Some(pack_name) = args.pack.clone() else {
        return Err("crown sim: name the pack to simulate (crown sim PACK), or `crown sim merge FILES...`".into());
    };
    let (base, players, kinds) = match session::bot_table(project, &pack_name, &args.table, "sim") {
        Ok(t) => t,
        // A failure already told keeps its code; the others are usage errors.
        Err(f) => return f.message.map_or(Ok(f.code), Err),
    };
    if first == end {
        return Err(format!(
            "--shard {}: this shard of {} games is empty (use fewer shards)",
            args.shard.as_deref().unwrap_or(""),
            args.games
        ));
    }
    let (fixed, sweep) = overrides(&args.set)?;
    check_sweep(args, sweep.is_some())?;
    let plan = this_plan(args, &base, players, kinds.clone(), sweep.is_some())?;
    let (other, other_plan) = other_side(project, args, &base, players, &plan)?;
    let packs = packs_to_run(&base, &fixed, sweep.as_ref())?;
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let sim = Sim { args, first, end, base, players, kinds, plan, other, other_plan, threads };
    let mut runs = Vec::new();
    let mut code = 0;
    for (set, pack) in packs {
        let (v, run_code) = sim.play(&set, &pack)?;
        code = code.max(run_code);
        runs.push((set, v));
    }
    match sweep {
        None => {
            if let Some((_, v)) = runs.pop() {
                sim.print_run(v)?;
            }
        }
        Some((o, values)) => sim.print_sweep_runs(&o, &values, runs),
    }
    Ok(code)
}

/// A `--set` sweep (`A..B`): the override it varies and its values.
type Sweep = (Override, Vec<String>);

/// One run's overrides, and the pack they change.
type Variant = (Vec<Override>, Arc<Pack>);

/// The games this run plays, `first..end` (all of them, or one shard's), with the checks
/// on `--shard`, `--games` and `--confidence`.
fn checked_range(args: &SimArgs) -> Result<(u64, u64), String> {
    let range = match &args.shard {
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
    Ok(range)
}

/// A `--set` sweep runs one simulation per value: refuse the options that take one run.
fn check_sweep(args: &SimArgs, sweeping: bool) -> Result<(), String> {
    if sweeping && args.report.is_some() {
        return Err("--report draws one run: give one --set value instead of a sweep".into());
    }
    if sweeping && (args.shard.is_some() || args.out.is_some()) {
        return Err("a --set sweep (A..B) runs one simulation per value: it cannot be sharded or written with --out; shard each value's run instead".into());
    }
    Ok(())
}

/// The plan of this side's games: seating and characters, the checks asked for
/// (`--invariants`, `--audit-peeking`) and where the games kept as files go
/// (`--transcripts`).
fn this_plan(args: &SimArgs, base: &Pack, players: usize, kinds: Vec<String>, sweeping: bool) -> Result<Plan, String> {
    let characters = Characters::parse(&args.characters)?;
    let setup = &args.table.setup;
    let scenario = setup.scenario.as_deref();
    let mut plan = Plan::new(base, setup.seed, players, scenario, kinds, args.seat_order, characters)?;
    plan.invariants = args.invariants;
    if args.audit_peeking {
        plan.audit = Some(Arc::default());
    }
    if args.invariants && base.invariants().is_empty() {
        eprintln!(
            "warning: --invariants: pack `{}` states no invariants (`fn invariant_...()` in its rules)",
            base.id()
        );
    }
    if let Some(dir) = &args.transcripts {
        if !matches!(plan.characters, Characters::Game) {
            return Err(format!(
                "--transcripts with --characters {}: a game file replays the characters the rules deal, so keep games with --characters game",
                plan.characters.label()
            ));
        }
        if sweeping {
            return Err("--transcripts keeps the games of one run: give one --set value instead of a sweep".into());
        }
        let only = match &args.only {
            Some(o) => Some(crate::sim::keep::Only::parse(o, plan.players)?),
            None => None,
        };
        plan.keep = Some(Arc::new(crate::sim::keep::Keep::new(dir, args.every, only)?));
    }
    Ok(plan)
}

/// The other side of a comparison, if any: OTHER's pack (`--compare`), and the plan of
/// its games when it seats other bots (`--compare-agents`, on OTHER or on this same pack).
fn other_side(
    project: &Project,
    args: &SimArgs,
    base: &Arc<Pack>,
    players: usize,
    plan: &Plan,
) -> Result<(Option<compare::Other>, Option<Plan>), String> {
    let mut other = match &args.compare {
        Some(o) => Some(compare::other(project, base.id(), o)?),
        None => None,
    };
    if args.compare_agents.is_empty() {
        return Ok((other, None));
    }
    let setup = &args.table.setup;
    let scenario = setup.scenario.as_deref();
    let side = other.get_or_insert_with(|| compare::Other::same(base.clone()));
    let other_kinds = crate::seats::agent_kinds(&side.pack, scenario, players, &args.compare_agents, "random")
        .map_err(|e| format!("--compare-agents: {e}"))?;
    if other_kinds.iter().any(|k| k == "human") {
        return Err("--compare-agents: `crown sim` plays bots only".into());
    }
    side.label = format!("{} with agents {}", side.label, other_kinds.join(","));
    let other_plan =
        Plan::new(&side.pack, setup.seed, players, scenario, other_kinds, args.seat_order, plan.characters.clone())?;
    Ok((other, Some(other_plan)))
}

/// The pack of each run with its overrides: one run, or one per value of a sweep. Every
/// value is checked before any game is played.
fn packs_to_run(base: &Arc<Pack>, fixed: &[Override], sweep: Option<&Sweep>) -> Result<Vec<Variant>, String> {
    let values: Vec<Option<String>> = match sweep {
        Some((_, v)) => v.iter().cloned().map(Some).collect(),
        None => vec![None],
    };
    let mut packs = Vec::new();
    for value in &values {
        let mut set = fixed.to_vec();
        if let (Some((o, _)), Some(v)) = (sweep, value) {
            set.push(Override { value: v.clone(), ..o.clone() });
        }
        let pack = if set.is_empty() {
            base.clone()
        } else {
            let mut p = (**base).clone();
            for o in &set {
                p.apply_override(o).map_err(|e| format!("--set {}={}: {e}", o.path(), o.value))?;
            }
            Arc::new(p)
        };
        packs.push((set, pack));
    }
    Ok(packs)
}

/// What every run of one `crown sim` shares: the options, the games it plays, the table
/// and both sides of a comparison.
struct Sim<'a> {
    args: &'a SimArgs,
    first: u64,
    end: u64,
    base: Arc<Pack>,
    players: usize,
    kinds: Vec<String>,
    plan: Plan,
    other: Option<compare::Other>,
    other_plan: Option<Plan>,
    threads: usize,
}

impl Sim<'_> {
    /// Play one run on `pack` (changed by the overrides `set`), say what its checks found
    /// and write its statistics when asked: its summary, and its exit code.
    fn play(&self, set: &[Override], pack: &Arc<Pack>) -> Result<(FullSummary, i32), String> {
        let args = self.args;
        let run = self.run_info(pack, set);
        let (played, secs) = self.play_games(pack)?;
        if args.invariants {
            self.tell_invariants(secs);
        }
        let mut code = self.tell_kept();
        if let Some(out) = &args.out {
            self.write_stats(out, &run, &played)?;
        }
        let mut v = full_summary(&run, &played.stats, played.other.as_ref(), played.paired.as_ref());
        if let Some(log) = &self.plan.audit {
            let log = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
            v.peeking = Some(Peeking::of(&log));
            code = code.max(tell_peeking(&log));
        }
        v.timing = Some(timing(self.threads, played.stats.games * if self.other.is_some() { 2 } else { 1 }, secs));
        let seed = args.table.setup.seed;
        code = code.max(report_failures(&played.stats, seed, args.games, played.not_run));
        if let Some(o) = &played.other {
            code = code.max(report_failures(o, seed, args.games, played.not_run));
        }
        Ok((v, code))
    }

    /// What a run on `pack` is, as its summary and statistics file state it.
    fn run_info(&self, pack: &Pack, set: &[Override]) -> RunInfo {
        let (args, other) = (self.args, &self.other);
        let setup = &args.table.setup;
        let mut names = RunInfo::names_of(pack);
        if let Some(o) = other {
            for (k, v) in RunInfo::names_of(&o.pack) {
                names.entry(k).or_insert(v);
            }
        }
        RunInfo {
            pack: pack.id().to_string(),
            version: pack.manifest.version.clone(),
            content: match other {
                Some(o) => format!(
                    "{:016x} {:016x}",
                    crate::validate::pack_digest(pack),
                    crate::validate::pack_digest(&o.pack)
                ),
                None => format!("{:016x}", crate::validate::pack_digest(pack)),
            },
            crown: env!("CARGO_PKG_VERSION").to_string(),
            max_failures: args.max_failures,
            scenario: setup.scenario.clone().or_else(|| pack.default_scenario().map(|s| s.scenario.id.clone())),
            seed: setup.seed,
            games: args.games,
            players: self.players,
            agents: self.kinds.clone(),
            seat_order: args.seat_order,
            characters: self.plan.characters.label(),
            overrides: set.iter().map(|o| format!("{}={}", o.path(), o.value)).collect(),
            confidence: args.confidence,
            min_sample: args.min_sample,
            compare: other.as_ref().map(|o| o.label.clone()),
            compare_agents: self.other_plan.as_ref().map(|p| p.kinds.clone()).unwrap_or_default(),
            names,
        }
    }

    /// Play the run's games (and the other side's) with a progress bar: what they came
    /// to, and the seconds they took.
    fn play_games(&self, pack: &Arc<Pack>) -> Result<(Played, f64), String> {
        let bar = progress_bar(self.end - self.first, self.args.format.is_json());
        let start = Instant::now();
        let played = play_pair(
            pack,
            self.other.as_ref().map(|o| (&o.pack, self.other_plan.as_ref().unwrap_or(&self.plan))),
            &self.plan,
            self.first..self.end,
            Some(self.threads),
            self.args.max_failures,
            bar.as_ref(),
        )?;
        if let Some(pb) = &bar {
            pb.finish_and_clear();
        }
        Ok((played, start.elapsed().as_secs_f64()))
    }

    /// Say which invariants were checked in every game and the time the checks took.
    fn tell_invariants(&self, secs: f64) {
        let threads = self.threads;
        let spent = crown_engine::script::api::invariants::seconds_spent();
        // The ranges pack.toml declares for counters are kept at every change, always.
        let ranges = &self.base.manifest.counter_ranges;
        let kept = if ranges.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = ranges.keys().map(|k| format!("`{k}`")).collect();
            format!(", and the ranges of {} kept at every change", names.join(", "))
        };
        eprintln!(
            "invariants ({}) checked in every game{kept}: {spent:.2} s of the run's {:.2} s of play on {threads} thread{}",
            self.base.invariants().join(", "),
            secs * threads as f64,
            plural(threads)
        );
    }

    /// Say what became of the games kept as files (`--transcripts`): 1 when they could
    /// not all be written, else 0.
    fn tell_kept(&self) -> i32 {
        if let Some(keep) = &self.plan.keep {
            match keep.report() {
                Ok(line) => eprintln!("{line}"),
                Err(e) => {
                    eprintln!("error: {e}");
                    return 1;
                }
            }
        }
        0
    }

    /// Write the run's statistics for `crown sim merge` (`--out`).
    fn write_stats(&self, out: &std::path::Path, run: &RunInfo, played: &Played) -> Result<(), String> {
        let (first, end) = (self.first, self.end);
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
        eprintln!("games {first}..{end} of {}: statistics written to {}", self.args.games, out.display());
        Ok(())
    }

    /// Show the summary of one run: the JSON (with the timing when asked), or the tables
    /// and the speed; and the HTML report when asked.
    fn print_run(&self, mut v: FullSummary) -> Result<(), String> {
        let args = self.args;
        let threads = self.threads;
        let t = v.timing.take();
        write_report(args.report.as_deref(), &v)?;
        if args.format.is_json() {
            if args.timing {
                v.timing = t;
            }
            println!("{}", v.to_json_text());
        } else {
            v.print();
            let (gps, elapsed) = t.map_or((0.0, 0.0), |t| (t.games_per_s, t.elapsed_s));
            // A slow run (search bots) says how long a game takes, not "0 games/s".
            let each = if gps > 0.0 && gps < 1.0 { format!(", {:.1} s a game", 1.0 / gps) } else { String::new() };
            // The rate is written as the JSON writes it (`111.0`, `0.013`).
            println!(
                "\n{} games/s on {threads} thread{} ({elapsed:.2} s{each})",
                serde_json::Value::from(gps),
                plural(threads)
            );
        }
        Ok(())
    }

    /// Show the runs of a sweep, one per value of `o`: as JSON, or a row per value.
    fn print_sweep_runs(&self, o: &Override, values: &[String], runs: Vec<(Vec<Override>, FullSummary)>) {
        let mut list = Vec::new();
        for (value, (_, mut v)) in values.iter().zip(runs) {
            if !self.args.timing {
                v.timing = None;
            }
            list.push(SweepRun { value: value.clone(), summary: v });
        }
        let sweep = SweepRuns { sweep: o.path(), runs: list };
        if self.args.format.is_json() {
            let v = serde_json::to_value(&sweep).unwrap_or_default();
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        } else {
            print_sweep(o, &sweep);
        }
    }
}

/// The runs of a `--set` sweep, one per value of the override it varies.
#[derive(serde::Serialize)]
struct SweepRuns {
    /// The override varied, as `KIND.ID.FIELD.KEY`.
    sweep: String,
    runs: Vec<SweepRun>,
}

#[derive(serde::Serialize)]
struct SweepRun {
    value: String,
    summary: FullSummary,
}

/// Write the HTML report of a summary, when asked.
fn write_report(path: Option<&std::path::Path>, v: &FullSummary) -> Result<(), String> {
    if let Some(path) = path {
        crate::out::write_atomic(path, report::page(v).as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    Ok(())
}

/// `--set` arguments: the fixed overrides and the one sweep (`A..B`), if any.
fn overrides(set: &[String]) -> Result<(Vec<Override>, Option<Sweep>), String> {
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
fn print_sweep(o: &Override, sweep: &SweepRuns) {
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let Some(first) = sweep.runs.first().map(|r| &r.summary) else { return };
    let players = first.summary.players;
    println!(
        "{} = each value: {} games of {} each ({} players, seed {}); win rates with {:.0}% intervals in --json",
        o.path(),
        first.summary.games,
        first.summary.pack,
        players,
        first.summary.seed,
        100.0 * first.summary.confidence
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
    if first.compare.is_some() {
        head.push_str("  (vs other: changes marked * are real)");
    }
    println!("{head}");
    for r in &sweep.runs {
        let s = &r.summary;
        let mut line = format!("  {:>6}", r.value);
        for k in 0..players + 3 {
            let real = s.compare.as_ref().and_then(|c| c.outcomes.get(k)).is_some_and(|o| o.difference.real);
            let rate = s.summary.outcomes.get(k).map_or(0.0, |o| o.count.rate);
            line.push_str(&format!(" {:>7}{}", pct(rate), if real { "*" } else { " " }));
        }
        line.push_str(&format!(" {:>7.1}", s.summary.length.mean));
        if card {
            let c = s.summary.cards.get(&o.id).map(|c| c.improvement_played).unwrap_or_default();
            line.push_str(&format!(
                "  {:+.1} [{:+.1}, {:+.1}]",
                100.0 * c.value_or_zero(),
                100.0 * c.lo(),
                100.0 * c.hi()
            ));
        }
        println!("{line}");
    }
}

fn timing(threads: usize, games: u64, secs: f64) -> Timing {
    Timing {
        threads,
        elapsed_s: figures::round4(secs),
        games_per_s: games_per_s(games as f64 / secs.max(1e-9)),
        peak_rss_mb: peak_rss_mb().map(|m| (m * 10.0).round() / 10.0),
    }
}

/// Tell the audit's verdict on standard error: 0 when every bot passed, else 1.
fn tell_peeking(log: &crown_engine::bots::audit::AuditLog) -> i32 {
    let mut code = 0;
    for (k, (audited, changed, example)) in &log.kinds {
        if *changed == 0 {
            eprintln!(
                "peeking audit: `{k}` passed: {audited} decision{} each taken again with hidden cards dealt {} other ways, always the same choice",
                plural(*audited),
                crown_engine::bots::audit::REDEALS
            );
        } else {
            code = 1;
            eprintln!(
                "peeking audit: `{k}` reads hidden cards: {changed} of {audited} decisions changed when what its seat cannot see was dealt again; for example {}",
                example.as_deref().unwrap_or("")
            );
        }
    }
    if let (n, Some(example)) = &log.menus {
        code = 1;
        eprintln!(
            "peeking audit: the rules' options changed with hidden cards in {n} decision{}; for example {example}",
            plural(*n)
        );
    }
    code
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
