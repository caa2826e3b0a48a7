//! `crown sim`: many bot games in parallel, streaming statistics, a summary.
//!
//! Game `i` is seeded with `derive_seed(seed, i)`, and statistics are integer sums, so the
//! result is the same for any thread count.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::content::{Pack, Project};
use crown_engine::game::rng::derive_seed;
use crown_engine::game::{Game, GameConfig, Outcome, Status};
use rayon::prelude::*;

use crate::session;

#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(flatten)]
    pub table: session::BotTableArgs,
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Stop after this many failed games (the summary still covers the games played).
    #[arg(long, default_value_t = 10)]
    pub max_failures: u64,
}

/// Integer statistics over games; merging is addition, so order never matters.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub games: u64,
    pub finished: u64,
    pub turn_limit: u64,
    pub failed: u64,
    pub turns: u64,
    pub seat_wins: Vec<u64>,
    pub char_games: BTreeMap<String, u64>,
    pub char_wins: BTreeMap<String, u64>,
    /// Per definition index: player-games in which it was played, wins among those, plays.
    pub card_games: BTreeMap<u32, (u64, u64, u64)>,
    pub failures: Vec<(u64, String)>,
    pub turn_limited: Vec<u64>,
}

impl Stats {
    fn add(mut self, index: u64, o: &Outcome) -> Self {
        self.games += 1;
        if self.seat_wins.len() < o.scores.len() {
            self.seat_wins.resize(o.scores.len(), 0);
        }
        match &o.status {
            Status::Finished => self.finished += 1,
            Status::TurnLimit | Status::Paused => {
                self.turn_limit += 1;
                if self.turn_limited.len() < 10 {
                    self.turn_limited.push(index);
                }
            }
            Status::Failed(f) => {
                self.failed += 1;
                self.failures.push((index, f.to_string()));
                return self;
            }
        }
        self.turns += o.turns;
        for &w in &o.winners {
            if let Some(s) = self.seat_wins.get_mut(w) {
                *s += 1;
            }
        }
        for (seat, ch) in o.characters.iter().enumerate() {
            let key = ch.clone().unwrap_or_else(|| format!("seat {}", seat + 1));
            *self.char_games.entry(key.clone()).or_default() += 1;
            if o.winners.contains(&seat) {
                *self.char_wins.entry(key).or_default() += 1;
            }
        }
        for (seat, plays) in o.plays.iter().enumerate() {
            let mut seen: Vec<u32> = plays.clone();
            seen.sort_unstable();
            let won = u64::from(o.winners.contains(&seat));
            let mut i = 0;
            while i < seen.len() {
                let d = seen[i];
                let n = seen[i..].iter().take_while(|&&x| x == d).count();
                let e = self.card_games.entry(d).or_default();
                e.0 += 1;
                e.1 += won;
                e.2 += n as u64;
                i += n;
            }
        }
        self
    }

    fn merge(mut self, o: Stats) -> Self {
        self.games += o.games;
        self.finished += o.finished;
        self.turn_limit += o.turn_limit;
        self.failed += o.failed;
        self.turns += o.turns;
        if self.seat_wins.len() < o.seat_wins.len() {
            self.seat_wins.resize(o.seat_wins.len(), 0);
        }
        for (i, w) in o.seat_wins.iter().enumerate() {
            self.seat_wins[i] += w;
        }
        for (k, v) in o.char_games {
            *self.char_games.entry(k).or_default() += v;
        }
        for (k, v) in o.char_wins {
            *self.char_wins.entry(k).or_default() += v;
        }
        for (k, (a, b, c)) in o.card_games {
            let e = self.card_games.entry(k).or_default();
            e.0 += a;
            e.1 += b;
            e.2 += c;
        }
        self.failures.extend(o.failures);
        self.failures.sort();
        self.turn_limited.extend(o.turn_limited);
        self.turn_limited.sort_unstable();
        self.turn_limited.truncate(10);
        self
    }
}

/// Wilson score interval (95%) for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = 1.96f64;
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let denom = 1.0 + z * z / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / denom;
    let half = z * ((p * (1.0 - p) / n_f) + z * z / (4.0 * n_f * n_f)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[allow(clippy::too_many_arguments)]
/// Play `games` bot games and gather statistics (used by `crown sim` and `crown bench`).
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
    let players = kinds.len();
    let failed = AtomicU64::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(16 * 1024 * 1024)
        .build()
        .map_err(|e| e.to_string())?;
    // Check once, before spawning work, that a game can be set up at all.
    Game::new(pack.clone(), config(seed, players, scenario), session::bots(kinds, seed))?;
    let stats = pool.install(|| {
        (0..games)
            .into_par_iter()
            .fold(Stats::default, |st, i| {
                if failed.load(Ordering::Relaxed) >= max_failures {
                    return st;
                }
                let gs = derive_seed(seed, i);
                let game = match Game::new(pack.clone(), config(gs, players, scenario), session::bots(kinds, gs)) {
                    Ok(g) => g,
                    Err(e) => {
                        let mut st = st;
                        st.games += 1;
                        st.failed += 1;
                        st.failures.push((i, e));
                        failed.fetch_add(1, Ordering::Relaxed);
                        return st;
                    }
                };
                let (_, outcome) = game.run();
                if matches!(outcome.status, Status::Failed(_)) {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                if let Some(pb) = progress {
                    pb.inc(1);
                }
                st.add(i, &outcome)
            })
            .reduce(Stats::default, Stats::merge)
    });
    Ok(stats)
}

/// How `crown sim` (and `crown profile`) set up game `seed`: no transcript kept.
pub fn config(seed: u64, players: usize, scenario: Option<&str>) -> GameConfig {
    let mut c = GameConfig::new(seed, players);
    c.scenario = scenario.map(str::to_string);
    c.transcript = false;
    c
}

pub fn run(project: &Project, args: &SimArgs) -> i32 {
    let scenario = args.table.scenario.as_deref();
    let (pack, players, kinds) = match session::bot_table(project, &args.table, "sim") {
        Ok(t) => t,
        Err(code) => return code,
    };
    let bar = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let pb = indicatif::ProgressBar::new(args.games);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games {per_sec} eta {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let start = Instant::now();
    let stats = match simulate(
        &pack,
        &kinds,
        scenario,
        args.table.seed,
        args.games,
        Some(threads),
        args.max_failures,
        bar.as_ref(),
    ) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let secs = start.elapsed().as_secs_f64();
    let summary = summary_json(&pack, &stats, args, players, &kinds, threads, secs);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary).unwrap_or_default());
    } else {
        print_table(&pack, &stats, args, players, threads, secs);
    }
    for (i, f) in stats.failures.iter().take(5) {
        eprintln!("error: game {i} (seed {}): {f}", derive_seed(args.table.seed, *i));
    }
    if stats.failed > 0 {
        let not_run = args.games - stats.games;
        eprintln!(
            "{} of {} games failed{}",
            stats.failed,
            args.games,
            if not_run > 0 { format!("; stopped early, {not_run} games not played") } else { String::new() }
        );
        return 1;
    }
    0
}

fn summary_json(
    pack: &Pack,
    s: &Stats,
    args: &SimArgs,
    players: usize,
    kinds: &[String],
    threads: usize,
    secs: f64,
) -> serde_json::Value {
    use serde_json::json;
    let played = s.games - s.failed;
    let wins: serde_json::Map<String, serde_json::Value> = s
        .char_games
        .iter()
        .map(|(k, &n)| {
            let w = s.char_wins.get(k).copied().unwrap_or(0);
            let (lo, hi) = wilson(w, n);
            (k.clone(), json!({ "games": n, "wins": w, "rate": round4(w as f64 / n.max(1) as f64), "ci95": [round4(lo), round4(hi)] }))
        })
        .collect();
    let seats: Vec<serde_json::Value> = s
        .seat_wins
        .iter()
        .map(|&w| {
            let (lo, hi) = wilson(w, played);
            json!({ "wins": w, "rate": round4(w as f64 / played.max(1) as f64), "ci95": [round4(lo), round4(hi)] })
        })
        .collect();
    let cards: serde_json::Map<String, serde_json::Value> = s
        .card_games
        .iter()
        .map(|(&d, &(g, w, n))| {
            (
                pack.defs[d as usize].def.id.clone(),
                json!({ "played_in": g, "plays": n, "win_rate_when_played": round4(w as f64 / g.max(1) as f64) }),
            )
        })
        .collect();
    json!({
        "pack": pack.id(),
        "version": pack.manifest.version,
        "scenario": args.table.scenario.clone().or_else(|| pack.default_scenario().map(|s| s.scenario.id.clone())),
        "games": s.games,
        "seed": args.table.seed,
        "players": players,
        "agents": kinds,
        "finished": s.finished,
        "turn_limit": s.turn_limit,
        "turn_limited_games": s.turn_limited,
        "failed": s.failed,
        "avg_turns": round4(s.turns as f64 / played.max(1) as f64),
        "wins": wins,
        "seats": seats,
        "cards": cards,
        "timing": {
            "threads": threads,
            "elapsed_s": round4(secs),
            "games_per_s": (s.games as f64 / secs.max(1e-9)).round(),
            "peak_rss_mb": peak_rss_mb().map(|m| (m * 10.0).round() / 10.0),
        },
    })
}

/// This process's peak resident memory (VmHWM), in MB, where /proc tells it.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn print_table(pack: &Pack, s: &Stats, args: &SimArgs, players: usize, threads: usize, secs: f64) {
    let played = (s.games - s.failed).max(1);
    println!(
        "{} games of {} ({} players, seed {}): {} finished, {} hit the turn limit, {} failed; {:.1} turns on average",
        s.games,
        pack.manifest.name,
        players,
        args.table.seed,
        s.finished,
        s.turn_limit,
        s.failed,
        s.turns as f64 / played as f64
    );
    if !s.turn_limited.is_empty() {
        println!("  turn limit reached in games {:?}", s.turn_limited);
    }
    println!("\nwin rate by character (95% interval)");
    let mut rows: Vec<(&String, u64, u64)> =
        s.char_games.iter().map(|(k, &n)| (k, n, s.char_wins.get(k).copied().unwrap_or(0))).collect();
    rows.sort_by(|a, b| (b.2 * a.1.max(1)).cmp(&(a.2 * b.1.max(1))).then(a.0.cmp(b.0)));
    for (k, n, w) in rows {
        let (lo, hi) = wilson(w, n);
        let name = pack.get(k).map_or(k.as_str(), |d| d.def.name.as_str());
        println!(
            "  {name:<32} {:>6.1}%  [{:>5.1}-{:>5.1}]  {w}/{n}",
            100.0 * w as f64 / n.max(1) as f64,
            100.0 * lo,
            100.0 * hi
        );
    }
    println!("\nwin rate by seat");
    for (i, &w) in s.seat_wins.iter().enumerate() {
        let (lo, hi) = wilson(w, played);
        println!(
            "  seat {:<27} {:>6.1}%  [{:>5.1}-{:>5.1}]",
            i + 1,
            100.0 * w as f64 / played as f64,
            100.0 * lo,
            100.0 * hi
        );
    }
    if !s.card_games.is_empty() {
        println!("\ncards: win rate of the player who played it (baseline {:.1}%)", 100.0 / players as f64);
        let mut cards: Vec<_> = s.card_games.iter().collect();
        cards.sort_by(|a, b| ((b.1).1 * (a.1).0.max(1)).cmp(&((a.1).1 * (b.1).0.max(1))));
        // Cards that share a name (Mercenaries +/-1, +/-2...) are told apart by their id.
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        for d in &pack.defs {
            *names.entry(d.def.name.as_str()).or_default() += 1;
        }
        for (&d, &(g, w, n)) in cards.iter().take(40) {
            let def = &pack.defs[d as usize].def;
            let label = if names.get(def.name.as_str()).copied().unwrap_or(0) > 1 {
                format!("{} ({})", def.name, def.id)
            } else {
                def.name.clone()
            };
            println!(
                "  {label:<32} {:>6.1}%  played {n} times in {g} player-games",
                100.0 * w as f64 / g.max(1) as f64
            );
        }
    }
    println!(
        "\n{:.0} games/s on {threads} thread{} ({secs:.2} s)",
        s.games as f64 / secs.max(1e-9),
        if threads == 1 { "" } else { "s" }
    );
}
