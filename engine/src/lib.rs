//! Crown's engine: content loading and validation, the game model, the sandboxed Rhai
//! script host, agents, transcripts and replay.
//!
//! The modules are layers, each using only those listed before it (a test in
//! `tests/tidy.rs` keeps it so): [`diag`] and [`fsread`] at the base, then [`content`] (data
//! types), [`game`] (the table and its state), [`script`] (the Rhai host that runs the
//! rules), [`bots`] (agents that decide by running the rules) and [`load`] (reading a
//! project: parsing, compiling and checking scripts, running the pack's `validate`).
//!
//! The engine never prints, never exits the process and holds no terminal code; only
//! [`load`] and [`fsread`] touch the file system, and only to read a project.

pub mod diag;
pub mod fsread;

/// The unit tests count allocations as the `crown` binary does (the script meter's memory
/// limit reads the counts; see `crown_alloc`).
#[cfg(test)]
#[global_allocator]
static GLOBAL: crown_alloc::Counting<std::alloc::System> = crown_alloc::Counting(std::alloc::System);

pub mod content;
pub mod game;
pub mod script;

pub mod bots;
pub mod load;

pub use diag::{Diagnostic, Severity, SourceFile, SourceMap};
