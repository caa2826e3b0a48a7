//! The native baseline: Take the Kingdom's rules written directly in plain Rust, in a crate of
//! its own (`crown-native`): a benchmark and a test oracle, not part of the library a designer links.
//!
//! This crate is **the performance baseline and the differential oracle** for the
//! scripted `take-the-kingdom` pack, as frozen for it in `tests/fixtures/native/` (a
//! project of its own: the shipped pack in `content/` and `scripts/` may change without
//! a Rust edit here).
//! It is not how Crown plays games (packs are always played by their scripts); it exists to
//!
//! - measure how fast the same game can possibly run (`crown bench` compares the scripted
//!   engine's games per second with this one's), and
//! - check the scripted rules: for the same pack, seed, scenario, players and agents, it
//!   writes a transcript byte-identical to the one the scripted game writes (every event
//!   line, every choice line, the `# result` line), using the same random stream
//!   ([`crown_engine::game::rng::GameRng`], the same draws in the same order) and asking the agents
//!   the same questions (same prompt, same option labels in the same order). Any
//!   difference is a bug in one of the two (`tests/native.rs`).
//!
//! Card and noble values (attack, defence, counts, solo copies, Gold's uses, Morale's
//! factor...) and scenario options are read from the loaded pack, so editing the TOML
//! changes both implementations alike. Which behaviour a card has is taken from the script
//! file its definition names (`cards/attack.rhai`, `nobles/charles.rhai`...).
//!
//! What it covers: every scenario of the pack (standard with 2 to 6 players, survival, the
//! four solo difficulties). Agents: `random` and `first` are called as they are; `scripted`
//! (and any other agent) gets the same prompt and labels; `greedy` is played natively with
//! the rules' `greedy_score` ported to Rust and the same tie-breaking stream as
//! [`crown_engine::bots::greedy::GreedyAgent`] built with the game's seed. Agents other than
//! `greedy` get an empty `options` slice (only `labels` is filled). A game that fails (an
//! agent error) ends with [`crown_engine::game::Status::Failed`], but its `error:` transcript line
//! does not carry the script location the scripted engine adds.
//!
//! When `cfg.transcript` is false no text is formatted at all: labels and prompts are only
//! built for agents that read them.

pub mod ttk;

use std::sync::Arc;

/// The result of one native game.
pub struct NativeResult {
    pub outcome: crown_engine::game::Outcome,
    /// The transcript text (as `crown_engine::game::record::transcript_text` gives it),
    /// when `cfg.transcript` is true.
    pub transcript: Option<String>,
}

/// Play one game of Take the Kingdom natively. `pack` must be the `take-the-kingdom` pack
/// (or one that keeps its card behaviours); `agents` one per seat.
pub fn run_game(
    pack: Arc<crown_engine::content::Pack>,
    cfg: crown_engine::game::GameConfig,
    agents: Vec<Box<dyn crown_engine::game::agent::Agent>>,
) -> NativeResult {
    ttk::run(pack, cfg, agents)
}
