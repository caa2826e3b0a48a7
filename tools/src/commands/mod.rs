//! The commands of the `crown` binary, one file each: its arguments (a clap `Args` or
//! `Subcommand`) and its `run(project, args) -> Done`, a [`out::Failure`] carrying the
//! exit code (1: errors found, tests failed; 2: a usage error) and the message, printed
//! once by [`out::exit_code`]. A command uses the services of the crate (`print`,
//! `golden`, `sim`, `live`, `session`, `validate`...) and never another command: adding
//! one is a file here and a line in [`Command`].

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use crown_engine::load::Project;

use crate::out;

pub mod bench;
pub mod campaign;
pub mod check;
pub mod export;
pub mod new;
pub mod play;
pub mod print;
pub mod profile;
pub mod record;
pub mod reference;
pub mod schema;
pub mod serve;
pub mod sim;
pub mod test;
pub mod watch;

#[derive(Debug, Parser)]
#[command(name = "crown", version, about = "Crown: define, play, test, print and balance tabletop games.")]
pub struct Cli {
    /// The project folder (holding content/, scripts/ and tests/golden/).
    #[arg(long, global = true, default_value = ".")]
    pub project: PathBuf,
    /// How scripts run: `compiled` (each script compiled once to native closures; a
    /// function the compiler does not cover runs on the interpreter) or `rhai` (Rhai's
    /// interpreter for everything). Both give the same games, byte for byte.
    #[arg(long, global = true, default_value = "compiled", value_name = "compiled|rhai")]
    pub runtime: crown_engine::script::compiled::Runtime,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate packs: TOML, references, scripts. Exit 1 on errors.
    Check(check::CheckArgs),
    /// Scaffold a new pack or card.
    #[command(subcommand)]
    New(new::NewArgs),
    /// Write JSON Schemas for every definition file.
    Schema(schema::SchemaArgs),
    /// Play at the terminal against bots.
    Play(play::PlayArgs),
    /// Record a bot game as a golden game (game file + transcript).
    Record(record::RecordArgs),
    /// Replay golden games and compare transcripts; `--bless` accepts changes.
    Test(test::TestArgs),
    /// Measure load, simulation and replay speed on this machine.
    Bench(bench::BenchArgs),
    /// Simulate many bot games in parallel and summarise win rates and card statistics
    /// (`crown sim merge FILES...` merges sharded runs).
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Sim(Box<sim::SimArgs>),
    /// Play bot games with the script profiler on: time per script function and line.
    Profile(profile::ProfileArgs),
    /// Render printable card sheets: PDF, PNG per card, SVG, Tabletop Simulator decks, the files print shops take.
    Print(print::PrintArgs),
    /// Generate a rules reference (HTML, PDF or Markdown) from the pack's definitions.
    Reference(reference::ReferenceArgs),
    /// A campaign kept in a save file, played one round or one game at a time.
    #[command(subcommand)]
    Campaign(campaign::CampaignArgs),
    /// Write a pack's definitions as CSV or TOML (`crown export csv PACK`).
    #[command(subcommand)]
    Export(export::ExportArgs),
    /// Reload packs as their files change: validate, render changed cards, replay goldens.
    Watch(watch::WatchArgs),
    /// A local preview page of every card and the current diagnostics, updated live.
    Serve(serve::ServeArgs),
}

/// Run the parsed command; returns the exit code.
pub fn exec(cli: Cli) -> i32 {
    crown_engine::script::compiled::set_runtime(cli.runtime);
    let project = Project::new(cli.project);
    out::exit_code(match cli.command {
        Command::Check(a) => check::run(&project, &a),
        Command::New(a) => new::run(&project, &a),
        Command::Schema(a) => schema::run(&project, &a),
        Command::Play(a) => play::run(&project, &a),
        Command::Record(a) => record::run(&project, &a),
        Command::Test(a) => test::run(&project, &a),
        Command::Bench(a) => bench::run(&project, &a),
        Command::Sim(a) => sim::run(&project, &a),
        Command::Profile(a) => profile::run(&project, &a),
        Command::Print(a) => print::run(&project, &a),
        Command::Reference(a) => reference::run(&project, &a),
        Command::Campaign(a) => campaign::run(&project, &a),
        Command::Export(a) => export::run(&project, &a),
        Command::Watch(a) => watch::run(&project, &a),
        Command::Serve(a) => serve::run(&project, &a),
    })
}
