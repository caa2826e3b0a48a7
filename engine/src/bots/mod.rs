//! The bots that decide by running the pack's rules: `greedy` (the rules' `greedy_score`)
//! and `search` (Monte Carlo search over copies of the game), the factory that builds any
//! bot from its kind name, and replaying game files (which builds bots). The game itself
//! ([`crate::game`]) knows agents only through the [`Agent`] trait, so the dependency runs
//! one way: `bots` → `script` → `game`.

pub mod audit;
pub mod greedy;
pub mod preview;
pub mod replay;
pub mod search;

use crate::game::agent::{Agent, FirstAgent, RandomAgent};

/// Agent kinds that can be built from a name.
pub const AGENT_KINDS: &[&str] = &["random", "first", "greedy", "search"];

/// Why `kind` names no agent a game file may use (`human` or a bot kind), and the nearest
/// kind; `None` when it is one.
pub fn unknown_kind(kind: &str) -> Option<(String, Option<&'static str>)> {
    if kind == "human" || AGENT_KINDS.contains(&kind) {
        return None;
    }
    if let Some(spec) = search::SearchSpec::parse(kind) {
        return spec.err().map(|e| (e, None));
    }
    let near = crate::diag::did_you_mean(kind, AGENT_KINDS.iter().copied());
    Some((format!("`{kind}` is not an agent (agents: human, {})", AGENT_KINDS.join(", ")), near))
}

/// Build a bot agent by kind name.
pub fn bot(kind: &str, game_seed: u64, seat: usize) -> Option<Box<dyn Agent>> {
    Some(match kind {
        "random" => Box::new(RandomAgent::new(game_seed, seat)),
        "first" => Box::new(FirstAgent),
        "greedy" => Box::new(greedy::GreedyAgent::new(game_seed, seat)),
        _ => match search::SearchSpec::parse(kind)? {
            Ok(spec) => Box::new(search::SearchAgent::new(kind, spec, game_seed, seat)),
            Err(_) => return None,
        },
    })
}
