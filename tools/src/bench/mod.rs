//! The benchmark machinery behind `crown bench`: timed simulations, the native baseline
//! comparison, the interpreter's unit costs, and the generated projects and reload, search
//! and balance measurements in the submodules.

use std::sync::Arc;
use std::time::Instant;

use crown_engine::load::Project;

use crate::{session, sim};

pub mod balance;
pub mod project;
pub mod search;
pub mod watch;

pub use project::{generate_project, load_time_ms, reload_time_ms};

/// Games/s of random-bot games of `pack` on `threads` threads: batches (doubling in size)
/// until `budget` is spent. Returns the games played and the rate.
pub fn timed_sim(
    pack: &Arc<crown_engine::content::Pack>,
    kinds: &[String],
    threads: usize,
    budget: std::time::Duration,
) -> Result<(u64, f64), String> {
    let start = Instant::now();
    let (mut played, mut batch) = (0u64, 4 * threads as u64);
    while played == 0 || start.elapsed() < budget {
        let s = sim::simulate(pack, kinds, None, 1 + played, batch, Some(threads), 10, None)?;
        if s.failed > 0 {
            return Err(format!("{} of {batch} games failed: {:?}", s.failed, s.failures.first()));
        }
        played += batch;
        batch = (batch * 2).min(4096);
    }
    Ok((played, played as f64 / start.elapsed().as_secs_f64()))
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
/// same seeds so that both see the same machine load.
pub fn ttk_figures(project: &Project, games: u64) -> Result<TtkFigures, String> {
    let pack = session::load(project, "take-the-kingdom").map_err(|_| "the pack does not load".to_string())?;
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

/// What the script interpreter charges for the commonest things rules do, in ns: the
/// floor under any scripted game on this machine.
pub fn rhai_costs() -> Result<Vec<(&'static str, &'static str, f64)>, String> {
    const SRC: &str = r#"
fn wrap(i) { abs(i) }
fn loop_only(n) { let s = 0; for i in 0..n { s += i; } s }
fn host(n) { let s = 0; for i in 0..n { s += abs(i); } s }
fn script(n) { let s = 0; for i in 0..n { s += wrap(i); } s }
fn option(n) { let s = []; for i in 0..n { s.push(#{ label: `Play ${i}`, kind: "card", card: i }); if s.len() > 8 { s.clear(); } } s.len() }
"#;
    let ast = crown_engine::script::compile("bench.rhai", SRC).map_err(|e| e.to_string())?;
    let n: i64 = 50_000;
    let time = |f: &str| -> Result<f64, String> {
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            let _ = crown_engine::script::api::call_script_fn(&ast, f, vec![n.into()]).map_err(|e| e.to_string())?;
            best = best.min(t.elapsed().as_nanos() as f64 / n as f64);
        }
        Ok(best)
    };
    let base = time("loop_only")?;
    Ok(vec![
        ("rhai_loop_step_ns", "one loop pass adding to a variable", base),
        ("rhai_host_call_ns", "one call of a built-in function, over that", time("host")? - base),
        ("rhai_script_call_ns", "one call of a one-line script function, over that", time("script")? - base),
        (
            "rhai_option_map_ns",
            "building an option map with an interpolated label and pushing it",
            time("option")? - base,
        ),
    ])
}

/// Script steps (statements and expressions evaluated) per Take the Kingdom game, 4 random
/// bots, counted by the profiler: a figure that does not move with the machine's load.
pub fn ttk_steps_per_game(project: &Project, games: u64) -> Result<f64, String> {
    let pack = session::load(project, "take-the-kingdom").map_err(|_| "the pack does not load".to_string())?;
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
        .args(["sim", "take-the-kingdom", "--players", "4", "--json", "--timing", "--games"])
        .arg(games.to_string())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("the simulation failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    v["timing"]["peak_rss_mb"].as_f64().ok_or_else(|| "no peak memory figure on this system (it needs /proc)".into())
}
