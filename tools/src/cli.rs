//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(name = "crown", version, about = "Crown: define, play, test, print and balance tabletop games.")]
pub struct Cli {
    /// The project folder (holding content/, scripts/ and tests/golden/).
    #[arg(long, global = true, default_value = ".")]
    pub project: PathBuf,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate packs: TOML, references, scripts. Exit 1 on errors.
    Check(CheckArgs),
    /// Scaffold a new pack or card.
    #[command(subcommand)]
    New(NewArgs),
    /// Write JSON Schemas for every definition file.
    Schema(SchemaArgs),
    /// Play at the terminal against bots.
    Play(crate::play::PlayArgs),
    /// Record a bot game as a golden game (game file + transcript).
    Record(crate::golden::RecordArgs),
    /// Replay golden games and compare transcripts; `--bless` accepts changes.
    Test(crate::golden::TestArgs),
    /// Measure load, simulation and replay speed on this machine.
    Bench(crate::bench::BenchArgs),
    /// Simulate many bot games in parallel and summarise win rates and card statistics
    /// (`crown sim merge FILES...` merges sharded runs).
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Sim(Box<crate::sim::SimArgs>),
    /// Play bot games with the script profiler on: time per script function and line.
    Profile(crate::profile::ProfileArgs),
    /// Render printable card sheets: PDF, PNG per card, SVG, Tabletop Simulator decks.
    Print(crate::print::PrintArgs),
    /// Generate a rules reference (HTML, PDF or Markdown) from the pack's definitions.
    Reference(crate::print::ReferenceArgs),
    /// A campaign kept in a save file, played one round or one game at a time.
    #[command(subcommand)]
    Campaign(crate::campaign::CampaignArgs),
    /// Write a pack's definitions as CSV or TOML (`crown export csv PACK`).
    #[command(subcommand)]
    Export(crate::export::ExportArgs),
    /// Reload packs as their files change: validate, render changed cards, replay goldens.
    Watch(crate::watch::WatchArgs),
    /// A local preview page of every card and the current diagnostics, updated live.
    Serve(crate::serve::ServeArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Packs to check, by id or path (default: every pack in the project).
    pub packs: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Do not print warnings.
    #[arg(long)]
    pub quiet: bool,
    /// End each pack's summary line with `[digest HEX]`, as `crown watch --digest` does.
    #[arg(long)]
    pub digest: bool,
}

#[derive(Debug, Subcommand)]
pub enum NewArgs {
    /// A new, playable pack with a few cards, a rules script and a golden game.
    Pack {
        /// The pack id (lowercase, digits, `-`).
        name: String,
    },
    /// A new card skeleton in an existing pack.
    Card {
        /// The pack, by id or path.
        pack: String,
        /// The new card's id.
        id: String,
        /// The card kind.
        #[arg(long, default_value = "action")]
        kind: String,
    },
    /// Copy the print templates the pack uses (built in, or from the pack it extends) into
    /// its templates/ folder, to edit. Files already there are kept.
    Templates {
        /// The pack, by id or path.
        pack: String,
        /// Only these templates (names, comma-separated, e.g. card-front.svg,macros.svg).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
    },
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Where to write the schemas (default: <project>/docs/schema).
    #[arg(long)]
    pub out: Option<PathBuf>,
}
