//! Where a script was when it hit a limit. Rhai reports "too many operations" and "stack
//! overflow" at the call that started the script, not at the statement that ran away
//! (system errors take the position of each function call they leave). Games are
//! deterministic, so the failed game is played again from its seed with the same choices,
//! on an engine whose debugger notes every statement it steps to: the last one noted
//! before the same failure is the statement that hit the limit.
//!
//! Only a failure of this kind pays for the second run (about three times a plain run's
//! cost); a replay that does not fail the same way (a pack reloaded mid-game, a game
//! resumed from a save) leaves the failure as it was.

use std::cell::{Cell, RefCell};
use std::sync::OnceLock;

use rhai::debugger::{DebuggerCommand, DebuggerEvent};
use rhai::{ASTNode, Engine, EvalContext, Position};

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    /// The last statement stepped to: its script (source name), the function it is in
    /// ("" at the top level) and its position.
    static LAST: RefCell<Option<(String, String, Position)>> = const { RefCell::new(None) };
}

/// Whether a failure is being located on this thread.
#[inline]
pub fn active() -> bool {
    ON.with(Cell::get)
}

static ENGINE: OnceLock<Engine> = OnceLock::new();

/// The shared engine's configuration plus a debugger that notes each statement.
pub(super) fn engine() -> &'static Engine {
    super::engine_with_debugger(&ENGINE, step)
}

fn step(
    ctx: EvalContext,
    event: DebuggerEvent,
    node: ASTNode,
    source: Option<&str>,
    pos: Position,
) -> Result<DebuggerCommand, Box<rhai::EvalAltResult>> {
    // Statements, and expressions standing as statements (a call on its own line comes as
    // an expression).
    let _ = node;
    if matches!(event, DebuggerEvent::Step) && !pos.is_none() {
        let function = ctx.debugger().and_then(|d| d.call_stack().last()).map(|f| f.fn_name.as_str());
        LAST.with(|l| {
            let mut l = l.borrow_mut();
            // Most steps stay in the same script and function: no new strings for those.
            match l.as_mut() {
                Some((src, f, p)) if src == source.unwrap_or("") && f == function.unwrap_or("") => *p = pos,
                _ => *l = Some((source.unwrap_or("").to_string(), function.unwrap_or("").to_string(), pos)),
            }
        });
    }
    Ok(DebuggerCommand::StepInto)
}

/// Where a statement is: the script it was run as (a card script's functions and the
/// rules functions merged under them share its name), the function, line and column.
pub struct Statement {
    pub source: String,
    pub function: String,
    pub line: usize,
    pub column: usize,
}

/// Run `f` (which replays a game on this thread) noting statements; the last one noted.
pub fn last_statement<T>(f: impl FnOnce() -> T) -> (T, Option<Statement>) {
    let was = ON.with(|o| o.replace(true));
    LAST.with(|l| *l.borrow_mut() = None);
    let out = f();
    ON.with(|o| o.set(was));
    let last = LAST.with(|l| l.borrow_mut().take());
    let at = last.and_then(|(source, function, pos)| {
        Some(Statement { source, function, line: pos.line()?, column: pos.position().unwrap_or(1) })
    });
    (out, at)
}
