//! The benchmark machinery behind `crown bench`. Always built: the figures of a run
//! ([`Figures`]), timed simulations of any pack, the interpreter's unit costs and the
//! search bot's cost a decision ([`search`]). Built with the `bench-suite` feature only
//! (`cargo xtask bench`), so the `crown` a designer installs carries neither: the native
//! copy of Take the Kingdom as the scripted pack's baseline and the generated benchmark
//! projects ([`suite`], [`project`], [`watch`], [`balance`]).

use std::sync::Arc;
use std::time::Instant;

use crate::sim;

pub mod bots;
pub mod search;

/// The benchmark suite's groups (the `bench-suite` feature, `cargo xtask bench`), as
/// `crown bench --only` names them: known to every `crown`, so one built without the suite
/// can say where a group is measured.
pub const SUITE_GROUPS: &[&str] = &["load", "ttk", "peer", "sim", "pdf", "watch", "memory"];

#[cfg(feature = "bench-suite")]
pub mod balance;
#[cfg(feature = "bench-suite")]
pub mod project;
#[cfg(feature = "bench-suite")]
pub mod suite;
#[cfg(feature = "bench-suite")]
pub mod watch;

#[cfg(feature = "bench-suite")]
pub use project::{generate_project, load_time_ms, reload_time_ms};

/// The pack the native copy plays: the suite's throughput figures and the balance
/// figures are measured on it.
#[cfg(feature = "bench-suite")]
pub const NATIVE_PACK: &str = "take-the-kingdom";

/// Where the native copy's own frozen copy of [`NATIVE_PACK`] lies in Crown's repository
/// (a project of its own): the port plays that copy, so the shipped pack may change
/// without a Rust edit.
#[cfg(feature = "bench-suite")]
pub const NATIVE_FIXTURE: &str = "tests/fixtures/native";

/// The project holding the native copy's frozen pack, under `project` (Crown's repository).
#[cfg(feature = "bench-suite")]
pub fn native_project(project: &crown_engine::load::Project) -> Result<crown_engine::load::Project, String> {
    let root = project.root.join(NATIVE_FIXTURE);
    if !root.join("content").join(NATIVE_PACK).is_dir() {
        return Err(format!(
            "the native baseline's copy of {NATIVE_PACK} is not at {} (it is part of Crown's own repository)",
            root.display()
        ));
    }
    Ok(crown_engine::load::Project::new(root))
}

/// The figures of one run: each printed as it comes (for people) and kept under a stable
/// key (for `--format json`).
pub struct Figures {
    pub json: bool,
    pub map: serde_json::Map<String, serde_json::Value>,
}

impl Figures {
    pub fn new(json: bool) -> Figures {
        Figures { json, map: serde_json::Map::new() }
    }

    /// A figure: two decimals, four for ratios; `text` is printed unless it is empty or the
    /// output is JSON.
    pub fn say(&mut self, key: &str, value: f64, text: impl AsRef<str>) {
        if !self.json && !text.as_ref().is_empty() {
            println!("{}", text.as_ref());
        }
        let scale = if key.ends_with("_ratio") { 10_000.0 } else { 100.0 };
        self.map.insert(key.to_string(), serde_json::json!((value * scale).round() / scale));
    }

    /// A value that is not a measurement (what a figure was measured on).
    pub fn note(&mut self, key: &str, value: serde_json::Value) {
        self.map.insert(key.to_string(), value);
    }
}

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

/// The median of `xs` (the mean of the middle two for an even count; 0 for none).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// What the script interpreter charges for the commonest things rules do, in ns: the
/// floor under any scripted game on this machine.
pub fn rhai_costs() -> Result<Vec<(&'static str, &'static str, f64)>, String> {
    const SRC: &str = r#"
fn wrap(i) { abs(i) }
fn loop_only(n) { let s = 0; for i in 0..n { s += i; } s }
fn host(n) { let s = 0; for i in 0..n { s += abs(i); } s }
fn engine(n) { let s = 0; for i in 0..n { s += parse_int("7"); } s }
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
        (
            "rhai_host_call_ns",
            "one call of a built-in function the compiled tier restates (`abs`), over that",
            time("host")? - base,
        ),
        (
            "rhai_engine_call_ns",
            "one call of a built-in function left to Rhai's resolution (`parse_int`), over that",
            time("engine")? - base,
        ),
        ("rhai_script_call_ns", "one call of a one-line script function, over that", time("script")? - base),
        (
            "rhai_option_map_ns",
            "building an option map with an interpolated label and pushing it",
            time("option")? - base,
        ),
    ])
}

/// Resident memory of a process (`self` or a pid) in KiB, from `/proc/<pid>/status`
/// (Linux), else 0.
pub fn process_rss_kb(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

/// CPU seconds this process has used so far, user and system (from /proc/self/stat, in
/// the kernel's USER_HZ ticks of 1/100 s); where /proc is missing, seconds of wall clock
/// since the first call.
pub fn cpu_seconds() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let wall = || START.get_or_init(Instant::now).elapsed().as_secs_f64();
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return wall() };
    // The fields after the command name (which may hold spaces, inside parentheses).
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return wall() };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    match (f.get(11).and_then(|x| x.parse::<f64>().ok()), f.get(12).and_then(|x| x.parse::<f64>().ok())) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => wall(),
    }
}

#[cfg(test)]
mod tests {
    /// `--only` takes every group the suite measures, and names no group it does not
    /// (`peer` was measured but refused by `--only`).
    #[test]
    fn only_takes_every_group_the_suite_measures() {
        let suite = include_str!("suite.rs");
        let mut measured: Vec<&str> =
            suite.split("wants(\"").skip(1).filter_map(|rest| rest.split('"').next()).collect();
        measured.sort_unstable();
        measured.dedup();
        let mut groups = super::SUITE_GROUPS.to_vec();
        groups.sort_unstable();
        assert_eq!(measured, groups);
    }
}
