//! The `crown` command. [`commands`] holds one module per command, each owning its
//! arguments and its `run`; the other modules are the services they share (and that the
//! test suite calls directly): each uses only the services below it, never a command.
//! `tests/tidy.rs` keeps both rules, and `docs/ARCHITECTURE.md` maps every file.

pub mod cli;
pub mod commands;

pub mod bench;
pub mod campaign;
pub mod explain;
pub mod golden;
pub mod live;
pub use crown_print::map;
pub mod out;
pub use crown_print as print;
pub mod seats;
pub mod serve;
pub mod session;
pub mod sim;
pub mod table;
pub mod terminal;
pub mod validate;

use std::ffi::OsString;

use clap::Parser;

/// Parse the arguments and run the command; returns the exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    match commands::Cli::try_parse_from(args) {
        Ok(cli) => commands::exec(cli),
        Err(e) => {
            let _ = e.print();
            if e.use_stderr() {
                2
            } else {
                0
            }
        }
    }
}
