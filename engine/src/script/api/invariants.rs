//! Pack invariants: the rules' own statements of what must always hold, checked while a
//! game is played.
//!
//! An invariant is a rules function named `invariant_...` taking no parameters (in any
//! file of the rules), returning `true` when all is well, else `false` or a message
//! saying what is wrong. When a game checks them ([`crate::game::GameConfig::invariants`]:
//! replays of game files, `crown play`, `crown check`'s trial games, `crown sim
//! --invariants`), every one runs after `setup()`, before every decision and after every
//! `turn()`. The first broken one fails the game, naming itself, where it broke (turn and
//! decision) and the transcript's last line, at its definition in the rules.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::calls::rules_call;
use super::with;
use crate::game::ScriptFailure;

thread_local! {
    /// An invariant is running on this thread (it may not ask for a choice).
    static CHECKING: Cell<bool> = const { Cell::new(false) };
}

/// Nanoseconds spent checking invariants in this process (`crown sim --invariants`
/// reports it).
static SPENT_NS: AtomicU64 = AtomicU64::new(0);

/// Time spent checking invariants so far, in seconds, on all threads together.
pub fn seconds_spent() -> f64 {
    SPENT_NS.load(Ordering::Relaxed) as f64 / 1e9
}

/// Whether an invariant is running on this thread.
pub(super) fn checking() -> bool {
    CHECKING.with(Cell::get)
}

/// Check the pack's invariants, if the game checks them: `when` says where the game
/// stands ("after setup", "before decision 57"). A broken invariant, or one that cannot
/// run, is the game's failure.
pub(super) fn check(when: impl FnOnce() -> String) -> Result<(), ScriptFailure> {
    let names = with(|g| Ok(if g.invariants && !checking() { g.pack.invariants() } else { Vec::new() }))
        .map_err(|e| ScriptFailure::plain(e.to_string()))?;
    if names.is_empty() {
        return Ok(());
    }
    let started = Instant::now();
    CHECKING.with(|c| c.set(true));
    let r = run_all(&names, when);
    CHECKING.with(|c| c.set(false));
    SPENT_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    r
}

fn run_all(names: &[String], when: impl FnOnce() -> String) -> Result<(), ScriptFailure> {
    for name in names {
        let v = rules_call(name, Vec::new())?;
        let said = if let Ok(ok) = v.as_bool() {
            if ok {
                continue;
            }
            String::new()
        } else if v.is_string() {
            v.to_string()
        } else {
            format!("it returned {} (an invariant returns true, false or a message)", v.type_name())
        };
        return Err(broken(name, &said, &when()));
    }
    Ok(())
}

/// The failure of invariant `name`, at its definition.
fn broken(name: &str, said: &str, when: &str) -> ScriptFailure {
    with(|g| {
        let turn = g.state.turn;
        let last = g.transcript.as_ref().and_then(|t| t.last()).cloned();
        let script = g.pack.rule_files().find(|s| s.functions.contains(name)).map(|s| s.path.clone());
        let line = script.as_ref().and_then(|p| g.pack.sources.fn_line(p, name)).unwrap_or(0);
        let mut message = format!("invariant `{name}` is broken {when} (turn {turn})");
        if !said.is_empty() {
            message.push_str(&format!(": {said}"));
        }
        if let Some(l) = last {
            message.push_str(&format!("; the transcript's last line: {l}"));
        }
        Ok(ScriptFailure {
            script: script.map(|p| p.to_string_lossy().replace('\\', "/")),
            line,
            column: 1,
            ..ScriptFailure::plain(message)
        })
    })
    .unwrap_or_else(|e| ScriptFailure::plain(e.to_string()))
}
