//! `crown profile`: play bot games on one thread with the script profiler on, then show
//! which script functions and lines the time went to.

use std::time::Instant;

use clap::Args;
use crown_engine::game::rng::derive_seed;
use crown_engine::game::{Game, Status};
use crown_engine::load::Project;
use crown_engine::script::compiled::{runtime, Runtime};
use crown_engine::script::profile::{self, Report};

use crate::cli::OutputFormat;
use crate::cli::TableArgs;
use crate::out::{self, Done, Failure};
use crate::session;

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The pack, by id or path.
    pub pack: String,
    #[command(flatten)]
    pub table: TableArgs,
    /// Number of games (1 to 10^6).
    #[arg(long, default_value_t = 50, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=1_000_000))]
    pub games: u64,
    /// Rows to show in each table (at least 1).
    #[arg(long, default_value_t = 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    pub top: usize,
    #[command(flatten)]
    pub format: OutputFormat,
}

pub fn run(project: &Project, args: &ProfileArgs) -> Done {
    let (pack, players, kinds) = session::bot_table(project, &args.pack, &args.table, "profile")?;
    let config = |seed| crate::sim::config(seed, players, args.table.setup.scenario.as_deref());
    if let Err(e) =
        Game::new(pack.clone(), config(args.table.setup.seed), crate::seats::bots(&kinds, args.table.setup.seed))
    {
        return Err(Failure::usage(e.to_string()));
    }
    let start = Instant::now();
    profile::start(&pack);
    let mut failed = Vec::new();
    let mut turns = 0;
    for i in 0..args.games {
        let gs = derive_seed(args.table.setup.seed, i);
        let game = match Game::new(pack.clone(), config(gs), crate::seats::bots(&kinds, gs)) {
            Ok(g) => g,
            Err(e) => {
                failed.push((i, e));
                continue;
            }
        };
        let (_, outcome) = game.run();
        turns += outcome.turns;
        if let Status::Failed(f) = outcome.status {
            failed.push((i, f.to_string()));
        }
    }
    let report = profile::finish(&pack);
    let wall = start.elapsed().as_secs_f64();
    let interpreted = interpreted(&pack);
    let games = args.games.max(1);
    if args.format.is_json() {
        println!(
            "{}",
            serde_json::to_string_pretty(&to_json(&report, args, players, &kinds, wall, &interpreted))
                .unwrap_or_default()
        );
    } else {
        print_report(&report, args, &kinds, players, games, turns, wall);
        print_interpreted(&interpreted, runtime());
    }
    for (i, f) in failed.iter().take(5) {
        eprintln!("error: game {i} (seed {}): {f}", derive_seed(args.table.setup.seed, *i));
    }
    out::fail_if(!failed.is_empty())
}

/// The functions the compiled runtime leaves to Rhai's interpreter, per script:
/// `(where, function, why)`, where is the script and the function's line. (The profile runs the scripts as `crown sim` does, on the
/// runtime `--runtime` names: these ran on the interpreter under `compiled`.)
fn interpreted(pack: &crown_engine::content::Pack) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for s in &pack.scripts {
        for f in crown_engine::script::compiled::not_compiled(&s.ast) {
            if seen.insert(f.name.clone()) {
                let at = match f.closure_line.or_else(|| pack.sources.fn_line(&s.path, &f.name)) {
                    Some(line) => format!("{}:{line}", s.path.display()),
                    None => s.path.display().to_string(),
                };
                out.push((at, f.name, f.why));
            }
        }
    }
    out
}

fn print_interpreted(list: &[(String, String, String)], runtime: Runtime) {
    println!();
    if runtime == Runtime::Rhai {
        println!("Every script function ran on Rhai's interpreter (`--runtime rhai`).");
        return;
    }
    if list.is_empty() {
        println!("Every script function runs compiled (`--runtime compiled`).");
        return;
    }
    println!("Script functions the compiled runtime leaves to Rhai's interpreter:");
    for (script, f, why) in list {
        println!("  {f}  {script}: {why}");
    }
}

fn pct(part: u64, total: u64) -> f64 {
    100.0 * part as f64 / total.max(1) as f64
}

fn print_report(r: &Report, args: &ProfileArgs, kinds: &[String], players: usize, games: u64, turns: u64, wall: f64) {
    let ms = r.total_ns as f64 / 1e6;
    println!(
        "Profile of {}: {} game{}, {} player{} ({}), seed {}, {:.1} turns a game",
        args.pack,
        args.games,
        crown_engine::diag::plural(args.games),
        players,
        crown_engine::diag::plural(players),
        kinds.join(", "),
        args.table.setup.seed,
        turns as f64 / games as f64
    );
    println!(
        "{ms:.0} ms in scripts ({:.2} ms a game, {} steps a game); {wall:.1} s with the profiler's own time",
        ms / games as f64,
        r.steps / games
    );
    println!();
    println!("{:>6} {:>6} {:>11} {:>11}  function", "self", "incl", "calls/game", "steps/game");
    for f in r.functions.iter().take(args.top) {
        let at = if f.line > 0 { format!("{}:{}", f.script, f.line) } else { f.script.clone() };
        println!(
            "{:>5.1}% {:>5.1}% {:>11.1} {:>11.1}  {}  {at}",
            pct(f.self_ns, r.total_ns),
            pct(f.incl_ns, r.total_ns),
            f.calls as f64 / games as f64,
            f.steps as f64 / games as f64,
            f.name
        );
    }
    println!();
    println!("{:>6} {:>11}  line", "self", "steps/game");
    for l in r.lines.iter().take(args.top) {
        println!(
            "{:>5.1}% {:>11.1}  {}:{}  {}",
            pct(l.self_ns, r.total_ns),
            l.steps as f64 / games as f64,
            l.script,
            l.line,
            l.text
        );
    }
}

fn to_json(
    r: &Report,
    args: &ProfileArgs,
    players: usize,
    kinds: &[String],
    wall: f64,
    interpreted: &[(String, String, String)],
) -> serde_json::Value {
    use serde_json::json;
    let ms = |ns: u64| (ns as f64 / 1e4).round() / 100.0;
    json!({
        "runtime": runtime().name(),
        "interpreted": interpreted.iter().map(|(s, f, why)| json!({ "script": s, "function": f, "why": why })).collect::<Vec<_>>(),
        "pack": args.pack,
        "games": args.games,
        "players": players,
        "agents": kinds,
        "seed": args.table.setup.seed,
        "script_ms": ms(r.total_ns),
        "wall_s": (wall * 100.0).round() / 100.0,
        "steps": r.steps,
        "functions": r.functions.iter().map(|f| json!({
            "script": f.script, "name": f.name, "line": f.line,
            "self_ms": ms(f.self_ns), "incl_ms": ms(f.incl_ns), "calls": f.calls, "steps": f.steps,
        })).collect::<Vec<_>>(),
        "lines": r.lines.iter().map(|l| json!({
            "script": l.script, "line": l.line, "text": l.text, "self_ms": ms(l.self_ns), "steps": l.steps,
        })).collect::<Vec<_>>(),
    })
}
