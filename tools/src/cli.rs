//! The argument groups and value types several commands share, flattened into each
//! command's own arguments (`#[command(flatten)]`), so a flag means the same everywhere.
//! The commands themselves, and the top-level parser, are in [`crate::commands`].

use clap::{Args, ValueEnum};

/// How a command prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: tables and sentences.
    Human,
    /// One JSON object, under stable keys.
    Json,
}

/// `--format human|json`, with `--json` as a shorter way to ask for JSON.
#[derive(Debug, Clone, Copy, Args)]
pub struct OutputFormat {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// The same as `--format json`.
    #[arg(long)]
    pub json: bool,
}

impl OutputFormat {
    /// Whether JSON was asked for, by either spelling.
    pub fn is_json(&self) -> bool {
        self.json || self.format == Format::Json
    }
}

/// The range of a player count: 1 to [`crown_engine::game::MAX_SEATS`].
fn players_range() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crown_engine::game::MAX_SEATS as u64)
}

/// How a game is set up: players, scenario and seed. Shared by `crown campaign new` and,
/// through [`TableArgs`], every command that plays.
#[derive(Debug, Clone, Default, Args)]
pub struct SetupArgs {
    /// Players per game (default: the scenario's seats or the pack's minimum; 1 to 64).
    #[arg(long, value_parser = players_range())]
    pub players: Option<usize>,
    /// Scenario id (default: the pack's default scenario).
    #[arg(long)]
    pub scenario: Option<String>,
    /// The seed. Over many games (`crown sim`, `crown profile`) game i uses a seed derived
    /// from it and i, so the same seeds play the same games in both; a campaign keeps it
    /// for every sitting.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The table a game is set up at: players, scenario, seed and who sits where. Shared by
/// `crown play`, `crown record`, `crown sim` and `crown profile`.
#[derive(Debug, Clone, Default, Args)]
pub struct TableArgs {
    #[command(flatten)]
    pub setup: SetupArgs,
    /// Agent per seat, comma-separated, the last repeating: human (`crown play` only),
    /// random, first, greedy, search[:ROLLOUTS][:DEPTH][:POLICY] (e.g. search:64:12:greedy).
    /// Seats nobody names play the pack's `[sim] agents` (else random), in every command.
    #[arg(long, value_delimiter = ',')]
    pub agents: Vec<String>,
}
