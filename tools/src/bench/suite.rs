//! The benchmark suite (`cargo xtask bench`, the `bench-suite` feature): what needs more
//! than the packs of the project at hand. The native copy of Take the Kingdom
//! (`crown-native`) measured against the scripted pack on the same seeds, the script steps
//! of a game, the cost of the balance tools, and the generated projects (10,000 cards to
//! load and reload, 1,000 to print, a watched pack to edit).

use std::sync::Arc;
use std::time::Instant;

use crown_engine::content::Pack;
use crown_engine::load::Project;

use super::{median, native_project, Figures, NATIVE_PACK};
use crate::{session, sim};

/// The example packs with a twin in plain Python (`tools/twins/`: the same rules and
/// bots), the twin's file and the player counts measured.
pub const PEERS: &[Peer] = &[
    Peer { pack: "oh-hell", twin: "oh_hell.py", players: &[3, 4, 5] },
    Peer { pack: "borderlands", twin: "borderlands.py", players: &[2, 3, 4] },
];

/// An example pack and its twin in plain Python.
pub struct Peer {
    pub pack: &'static str,
    /// Its file in `tools/twins/`.
    pub twin: &'static str,
    pub players: &'static [usize],
}

/// Measure the suite's groups that `wants` asks for.
pub fn run(project: &Project, quick: bool, wants: &dyn Fn(&str) -> bool, f: &mut Figures) {
    let threads = rayon::current_num_threads();
    if wants("load") {
        match super::load_time_ms(10_000, 2_000, if quick { 2 } else { 5 }) {
            Ok(ms) => f.say(
                "load_10k_cards_ms",
                ms,
                format!("load and validate 10,000 cards with 2,000 scripts: {ms:.0} ms (warm, best run)"),
            ),
            Err(e) => eprintln!("error: {e}"),
        }
        match super::reload_time_ms(10_000, 2_000, if quick { 2 } else { 5 }) {
            Ok(ms) => f.say(
                "reload_10k_cards_ms",
                ms,
                format!("reload after editing one card and one script (Loader, full validation): {ms:.0} ms"),
            ),
            Err(e) => eprintln!("error: {e}"),
        }
    }
    if wants("ttk") {
        match ttk_figures(project, if quick { 300 } else { 3000 }) {
            Ok(t) => {
                f.say(
                    "ttk_scripted_gps",
                    t.scripted_gps,
                    format!(
                        "take-the-kingdom scripted: {:.0} games/s per core (4 random bots, {} games)",
                        t.scripted_gps, t.games
                    ),
                );
                if let Some((native, ratio)) = t.native {
                    f.say(
                        "ttk_native_gps",
                        native,
                        format!("take-the-kingdom native baseline: {native:.0} games/s per core"),
                    );
                    f.say("ttk_ratio", ratio, format!("scripted / native: {:.2}%", ratio * 100.0));
                }
            }
            Err(e) => eprintln!("take-the-kingdom: {e}"),
        }
        match ttk_steps_per_game(project, 20) {
            Ok(steps) => f.say(
                "ttk_steps_per_game",
                steps,
                format!("take-the-kingdom: {steps:.0} script steps a game (`crown profile`; the same on any machine)"),
            ),
            Err(e) => eprintln!("take-the-kingdom: {e}"),
        }
    }
    if wants("peer") {
        for p in PEERS.iter().filter(|p| project.pack_ids().iter().any(|id| id == p.pack)) {
            peer(project, p, quick, f);
        }
    }
    if wants("sim") {
        match super::balance::figures(project, if quick { 200 } else { 2000 }, threads) {
            Ok(rows) => {
                for (key, value, text) in rows {
                    f.say(&key, value, text);
                }
            }
            Err(e) => eprintln!("sim: {e}"),
        }
    }
    if !quick && wants("pdf") {
        match crate::print::bench::bench(1000) {
            Ok(p) => {
                f.say(
                    "pdf_1000_cards_s",
                    p.pdf_s,
                    format!("1,000 cards to PDF: {:.2} s ({} pages)", p.pdf_s, p.pdf_pages),
                );
                f.say("png_1000_cards_s", p.png_s, format!("1,000 cards to PNG at 300 DPI: {:.2} s", p.png_s));
                f.say("reprint_one_card_s", p.reprint_s, format!("re-print after one card edit: {:.3} s", p.reprint_s));
            }
            Err(e) => eprintln!("print benchmark: {e}"),
        }
    }
    if wants("watch") {
        let (edits, reloads) = if quick { (20, 100) } else { (100, 1000) };
        let r = super::watch::latency_bench_with(edits, 1000, reloads);
        match &r.error {
            Some(e) => eprintln!("watch: {e}"),
            None => {
                f.say(
                    "reload_p50_ms",
                    r.p50_ms,
                    format!(
                        "watch, save to reloaded, 1,000-card pack: p50 {:.0} ms, p95 {:.0} ms ({} edits, debounce included)",
                        r.p50_ms, r.p95_ms, r.edits
                    ),
                );
                f.say("reload_p95_ms", r.p95_ms, String::new());
                f.say(
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
    if wants("memory") && project.pack_ids().iter().any(|p| p == NATIVE_PACK) {
        let games: u64 = if quick { 500 } else { 100_000 };
        match sim_peak_mb(project, games) {
            Ok(mb) => {
                f.say(
                    "sim_100k_peak_mb",
                    mb,
                    format!("peak memory of a {games}-game take-the-kingdom simulation: {mb:.1} MB"),
                );
                if games != 100_000 {
                    f.note("sim_peak_games", serde_json::json!(games));
                    if !f.json {
                        println!("  (--quick: {games} games, not 100,000; statistics are streamed, so memory does not grow with the count)");
                    }
                }
            }
            Err(e) => eprintln!("memory: {e}"),
        }
    }
}

/// Take the Kingdom throughput on one thread.
pub struct TtkFigures {
    pub games: u64,
    pub scripted_gps: f64,
    /// Native baseline games/s and the scripted/native ratio, measured interleaved.
    pub native: Option<(f64, f64)>,
}

/// Take the Kingdom games/s on one thread, 4 random bots, transcripts off: the scripted
/// pack and the native baseline (the `crown-native` crate), in alternating batches over the
/// same seeds so that both see the same machine load. Both play the native copy's frozen
/// pack ([`native_project`]), the game the port was written from.
pub fn ttk_figures(project: &Project, games: u64) -> Result<TtkFigures, String> {
    let frozen = native_project(project)?;
    let pack = session::load(&frozen, NATIVE_PACK).map_err(|_| "the pack does not load".to_string())?;
    let kinds = vec!["random".to_string(); 4];
    let batch = (games / 10).max(1);
    let (mut scripted, mut native) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    let mut played = 0;
    while played < games {
        let first = 1 + played;
        let t = Instant::now();
        let s = sim::simulate(&pack, &kinds, None, first, batch, Some(1), 1, None)?;
        scripted += t.elapsed();
        if s.failed > 0 {
            return Err(format!("scripted game failed: {:?}", s.failures.first()));
        }
        let t = Instant::now();
        for i in 0..batch {
            let seed = crown_engine::game::rng::derive_seed(first, i);
            let mut cfg = crown_engine::game::GameConfig::new(seed, 4);
            cfg.transcript = false;
            let r = crown_native::run_game(pack.clone(), cfg, crate::seats::bots(&kinds, seed));
            if let crown_engine::game::Status::Failed(f) = &r.outcome.status {
                return Err(format!("native game failed: {f}"));
            }
        }
        native += t.elapsed();
        played += batch;
    }
    let scripted_gps = played as f64 / scripted.as_secs_f64().max(1e-9);
    let native_gps = played as f64 / native.as_secs_f64().max(1e-9);
    Ok(TtkFigures { games: played, scripted_gps, native: Some((native_gps, scripted_gps / native_gps)) })
}

/// Script steps (statements and expressions evaluated) per Take the Kingdom game (the
/// native copy's frozen pack), 4 random bots, counted by the profiler: a figure that does
/// not move with the machine's load.
pub fn ttk_steps_per_game(project: &Project, games: u64) -> Result<f64, String> {
    let frozen = native_project(project)?;
    let pack = session::load(&frozen, NATIVE_PACK).map_err(|_| "the pack does not load".to_string())?;
    let kinds = vec!["random".to_string(); 4];
    crown_engine::script::profile::start(&pack);
    for i in 0..games {
        let seed = crown_engine::game::rng::derive_seed(1, i);
        let game =
            crown_engine::game::Game::new(pack.clone(), sim::config(seed, 4, None), crate::seats::bots(&kinds, seed))?;
        game.run();
    }
    let report = crown_engine::script::profile::finish(&pack);
    Ok(report.steps as f64 / games.max(1) as f64)
}

/// Peak resident memory, in MB, of `crown sim take-the-kingdom --games N` run as a child
/// process (its own figure, read from /proc at the end of the run).
pub fn sim_peak_mb(project: &Project, games: u64) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe)
        .arg("--project")
        .arg(&project.root)
        .args(["sim", NATIVE_PACK, "--players", "4", "--json", "--timing", "--games"])
        .arg(games.to_string())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("the simulation failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    v["timing"]["peak_rss_mb"].as_f64().ok_or_else(|| "no peak memory figure on this system (it needs /proc)".into())
}

/// An example pack against its twin in plain Python: games per CPU-second of each, for
/// each player count with random and greedy bots, on the same number of games (Crown on
/// one thread, the twin timing itself with `time.process_time`). Without `python3` on the
/// PATH, it says so and measures Crown alone. Oh Hell's figures are `peer_{players}p_...`,
/// another pack's `peer_{pack}_{players}p_...`.
fn peer(project: &Project, peer: &Peer, quick: bool, f: &mut Figures) {
    let id = peer.pack;
    let (games, rounds): (u64, usize) = if quick { (60, 3) } else { (400, 5) };
    let pack = match session::load(project, id) {
        Ok(p) => p,
        Err(_) => return eprintln!("{id}: the pack does not load"),
    };
    let twin = project.root.join("tools/twins").join(peer.twin);
    let python = std::process::Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !python {
        eprintln!("peer: python3 is not on the PATH, so {id}'s Python twin is not measured (Crown alone below)");
    }
    for &players in peer.players {
        for agent in ["random", "greedy"] {
            let key = if id == PEERS[0].pack {
                format!("peer_{players}p_{agent}")
            } else {
                format!("peer_{}_{players}p_{agent}", id.replace('-', "_"))
            };
            // The two sides timed in turn, `rounds` pairs: each side's figure is the
            // median of its runs and the ratio the median of the pairs' own ratios, since
            // the machine's speed drifts by a fifth from one minute to the next here.
            let (mut crown, mut py, mut twin_failed) = (Vec::new(), Vec::new(), !python);
            for _ in 0..rounds {
                match crown_gps(&pack, agent, players, games) {
                    Ok(gps) => crown.push(gps),
                    Err(e) => return eprintln!("{id}: {e}"),
                }
                if !twin_failed {
                    match twin_gps(&twin, agent, players, games) {
                        Ok(gps) => py.push(gps),
                        Err(e) => {
                            eprintln!("peer: the Python twin failed: {e}");
                            twin_failed = true;
                        }
                    }
                }
            }
            let c = median(&crown);
            f.say(
                &format!("{key}_crown_gps"),
                c,
                format!("{id}, {players} {agent} bots: Crown {c:.0} games per CPU-second ({games} games, median of {rounds})"),
            );
            if !twin_failed {
                let p = median(&py);
                let ratio = median(&crown.iter().zip(&py).map(|(c, p)| c / p).collect::<Vec<_>>());
                f.say(&format!("{key}_python_gps"), p, format!("   its Python twin: {p:.0} games per CPU-second"));
                f.say(&format!("{key}_ratio"), ratio, format!("   Crown / Python: {ratio:.3} (the median pair)"));
            }
        }
    }
}

/// Crown's games per CPU-second of `games` games of `pack` on one thread, every seat `agent`.
fn crown_gps(pack: &Arc<Pack>, agent: &str, players: usize, games: u64) -> Result<f64, String> {
    let kinds = vec![agent.to_string(); players];
    let t = crate::bench::cpu_seconds();
    let s = sim::simulate(pack, &kinds, None, 1, games, Some(1), 10, None)?;
    let cpu = (crate::bench::cpu_seconds() - t).max(1e-9);
    if s.failed > 0 {
        return Err(format!("{} of {games} games failed: {:?}", s.failed, s.failures.first()));
    }
    Ok(games as f64 / cpu)
}

/// The Python twin's games per CPU-second (it times itself) on the same games.
fn twin_gps(twin: &std::path::Path, agent: &str, players: usize, games: u64) -> Result<f64, String> {
    let o = std::process::Command::new("python3")
        .arg(twin)
        .args(["--games", &games.to_string(), "--players", &players.to_string(), "--agents", agent])
        .args(["--seed", "1", "--json"])
        .output()
        .map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).map_err(|e| e.to_string())?;
    v["games_per_cpu_second"].as_f64().ok_or_else(|| "no games_per_cpu_second".to_string())
}
