//! Crown's engine: content loading and validation, the game model, the sandboxed Rhai
//! script host, agents, transcripts and replay.
//!
//! The engine never prints, never exits the process and holds no terminal code; only
//! [`content`] touches the file system, and only to read a project.

pub mod bots;
pub mod content;
pub mod diag;
pub mod fsread;
pub mod game;
pub mod script;

pub use diag::{Diagnostic, Severity, SourceFile, SourceMap};
