//! Who sits at a table: the player count (explicit, else the scenario's seats, else the
//! pack's minimum), the agent kind of each seat from `--agents` or the scenario, and the
//! bot agents built from those kinds.

use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::game::agent::Agent;

/// The bot that sits where nobody says which: the pack's `[sim] agents`, else `random`.
/// Every command that seats bots (`sim`, `play`, `record`, `serve`, `profile`) uses it, so
/// a golden game recorded without `--agents` plays the bots `crown sim` plays.
pub fn default_bot(pack: &Pack) -> String {
    pack.manifest.sim.as_ref().and_then(|s| s.agents.clone()).unwrap_or_else(|| "random".into())
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
