//! The commands of the `crown` binary. Each command is a module with a `run` function
//! returning the process exit code: 0 success, 1 failure (errors found, tests failed),
//! 2 usage error.

pub mod bench;
pub mod campaign;
pub mod check;
pub mod cli;
pub mod export;
pub mod golden;
pub mod live;
pub mod new;
pub mod out;
pub mod play;
pub mod print;
pub mod profile;
pub mod schema;
pub mod serve;
pub mod session;
pub mod sim;
pub mod table;
pub mod watch;

use std::ffi::OsString;

use clap::Parser;

/// Parse the arguments and run the command; returns the exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let project = crown_engine::content::Project::new(cli.project.clone());
    match cli.command {
        cli::Command::Check(a) => check::run(&project, &a),
        cli::Command::New(a) => new::run(&project, &a),
        cli::Command::Schema(a) => schema::run(&project, &a),
        cli::Command::Play(a) => play::run(&project, &a),
        cli::Command::Record(a) => golden::run_record(&project, &a),
        cli::Command::Test(a) => golden::run_test(&project, &a),
        cli::Command::Bench(a) => bench::run(&project, &a),
        cli::Command::Sim(a) => sim::run(&project, &a),
        cli::Command::Profile(a) => profile::run(&project, &a),
        cli::Command::Print(a) => print::run_print(&project, &a),
        cli::Command::Export(a) => export::run(&project, &a),
        cli::Command::Reference(a) => print::run_reference(&project, &a),
        cli::Command::Campaign(a) => campaign::run(&project, &a),
        cli::Command::Watch(a) => watch::run(&project, &a),
        cli::Command::Serve(a) => serve::run(&project, &a),
    }
}
