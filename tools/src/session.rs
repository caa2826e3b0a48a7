//! What several commands share: loading a pack for play (printing diagnostics when it
//! does not load, and counting what `crown check` would report when it does), and
//! building agents from `--agents`.

use std::sync::Arc;

use crown_engine::bots;
use crown_engine::content::{load_pack, LoadOptions, Pack, Project};
use crown_engine::game::agent::Agent;

use crate::out;

/// Load a pack named by id or path; on errors print them and return the exit code.
pub fn load(project: &Project, name: &str) -> Result<Arc<Pack>, i32> {
    let (proj, id) = project.resolve(name).map_err(|d| {
        eprintln!("{d}");
        2
    })?;
    let loaded = load_pack(&proj, &id, LoadOptions::default());
    let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    if !errors.is_empty() {
        out::print_diagnostics(&errors, &loaded.sources);
        eprintln!(
            "{id}: {} error{}; fix them first (`crown check {id}`)",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        );
        return Err(1);
    }
    let pack = loaded.pack.map(Arc::new).ok_or(1)?;
    // The same validation as `crown check`; what does not stop this command is counted.
    let mut sources = loaded.sources;
    let mut all = loaded.diagnostics;
    all.extend(crate::check::beyond_load(&proj, &pack, &mut sources));
    let (e, w) = (all.iter().filter(|d| d.is_error()).count(), all.iter().filter(|d| !d.is_error()).count());
    if e + w > 0 {
        let mut parts = Vec::new();
        if e > 0 {
            parts.push(format!("{e} error{} in printed faces or golden games", if e == 1 { "" } else { "s" }));
        }
        if w > 0 {
            parts.push(format!("{w} warning{}", if w == 1 { "" } else { "s" }));
        }
        let them = if e + w == 1 { "it" } else { "them" };
        eprintln!("{id}: {} (`crown check {id}` shows {them})", parts.join(" and "));
    }
    Ok(pack)
}

/// The agent kind of each seat: `--agents` (the last repeats), else the scenario's seat
/// agent, else `default`.
pub fn agent_kinds(
    pack: &Pack,
    scenario: Option<&str>,
    players: usize,
    agents: &[String],
    default: &str,
) -> Result<Vec<String>, String> {
    let seats = scenario
        .and_then(|s| pack.scenario(s))
        .or_else(|| if scenario.is_none() { pack.default_scenario() } else { None })
        .map(|s| s.scenario.seat.clone())
        .unwrap_or_default();
    let mut kinds = Vec::with_capacity(players);
    for i in 0..players {
        let k = agents
            .get(i)
            .or(agents.last())
            .cloned()
            .or_else(|| seats.get(i).and_then(|s| s.agent.clone()).filter(|a| bots::unknown_kind(a).is_none()))
            .unwrap_or_else(|| default.to_string());
        if let Some((msg, near)) = bots::unknown_kind(&k) {
            return Err(format!(
                "unknown agent: {msg}{}",
                near.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default()
            ));
        }
        kinds.push(k);
    }
    Ok(kinds)
}

/// The arguments of a bots-only command (`crown sim`, `crown profile`): which games to play.
#[derive(Debug, clap::Args)]
pub struct BotTableArgs {
    /// The pack, by id or path.
    pub pack: String,
    /// Players per game (default: the scenario's seats or the pack's minimum). (1 to 64)
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub players: Option<usize>,
    /// Scenario id (default: the pack's default scenario).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Master seed; game i uses a seed derived from it and i (the same seeds play the same
    /// games in `crown sim` and `crown profile`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Agent per seat, comma-separated (random, first, greedy, search[:ROLLOUTS][:DEPTH][:POLICY], e.g. search:64:12:greedy); the last repeats.
    #[arg(long, value_delimiter = ',')]
    pub agents: Vec<String>,
}

/// What a bots-only command (`crown sim`, `crown profile`) plays: the pack, the player count
/// and the bot of each seat (default `random`). Errors are printed; `Err` is the exit code.
pub fn bot_table(
    project: &Project,
    args: &BotTableArgs,
    command: &str,
) -> Result<(Arc<Pack>, usize, Vec<String>), i32> {
    let pack = load(project, &args.pack)?;
    let scenario = args.scenario.as_deref();
    let players = player_count(&pack, scenario, args.players);
    let kinds = agent_kinds(&pack, scenario, players, &args.agents, "random").map_err(|e| {
        eprintln!("error: {e}");
        2
    })?;
    if kinds.iter().any(|k| k == "human") {
        eprintln!("error: `crown {command}` plays bots only; use `crown play` to play yourself");
        return Err(2);
    }
    Ok((pack, players, kinds))
}

/// Build bot agents for one game.
pub fn bots(kinds: &[String], seed: u64) -> Vec<Box<dyn Agent>> {
    kinds
        .iter()
        .enumerate()
        .map(|(i, k)| bots::bot(k, seed, i).unwrap_or_else(|| bots::bot("random", seed, i).expect("random agent")))
        .collect()
}

/// The number of players: explicit, else the scenario's seats, else the pack's minimum
/// (at least 2 when the pack allows it).
pub fn player_count(pack: &Pack, scenario: Option<&str>, players: Option<usize>) -> usize {
    if let Some(n) = players {
        return n;
    }
    let sc = scenario.and_then(|s| pack.scenario(s)).or_else(|| pack.default_scenario());
    if let Some(sc) = sc {
        if !sc.scenario.seat.is_empty() {
            return sc.scenario.seat.len();
        }
        if let Some(r) = sc.scenario.players {
            return r.min.max(1) as usize;
        }
    }
    let r = pack.manifest.players;
    (r.min.max(2).min(r.max)).max(1) as usize
}
