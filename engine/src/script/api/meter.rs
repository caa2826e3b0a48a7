//! The meter of script time: each script call's operations and running time, the game's
//! operations in all, and the memory the call's thread allocated, stopping a script that
//! passes its limits.

use std::cell::Cell;
use std::time::Instant;

use rhai::Dynamic;

// The meter of running scripts on this thread (see [`progress`]).
thread_local! {
    /// Script calls running (nested through `invoke` and the like).
    static CALLS: Cell<usize> = const { Cell::new(0) };
    /// When the outermost call started (moved on by the time agents took to decide).
    static CALL_START: Cell<Option<Instant>> = const { Cell::new(None) };
    /// What this thread had allocated when the outermost call started
    /// ([`crown_alloc::thread_net_bytes`]).
    static CALL_BYTES: Cell<i64> = const { Cell::new(0) };
    /// The operation count the engine last reported for the running call.
    static CALL_OPS: Cell<u64> = const { Cell::new(0) };
    /// Operations of the finished calls of the game installed on this thread.
    pub(super) static GAME_OPS: Cell<u64> = const { Cell::new(0) };
}

/// How often (in operations) [`progress`] looks at the memory the call added: a thread's
/// count, so cheap; often enough that one operation adding a large value (a 60 KB
/// sticker, a counter named by a 60 KB string) passes the limit by a few MiB at most (at
/// 8,192 it passed it by 480 MiB, and two threads took 1.2 GiB).
pub(crate) const METER_EVERY: u64 = 256;

/// How often (in operations) [`progress`] looks at the clock and the game's operations.
pub(crate) const CLOCK_EVERY: u64 = 8192;

/// The engine's progress callback, called on every operation with the running call's
/// count: stops the script (with the message as the termination token) when the game
/// passes its operations, or the call its time or memory.
///
/// The interpreter calls it on every operation it runs: the compiled tier remembers no
/// call during which the interpreter ran (see `compiled/memo.rs`).
pub(crate) fn progress(ops: u64) -> Option<Dynamic> {
    crate::script::compiled::memo::machine_started();
    CALL_OPS.with(|c| c.set(ops));
    if !ops.is_multiple_of(METER_EVERY) {
        return None;
    }
    let l = crate::script::LIMITS;
    if crown_alloc::thread_net_bytes() - CALL_BYTES.with(Cell::get) > (l.memory_mib as i64) << 20 {
        return Some(
            format!(
                "the script added more than {} MiB of data in one call (it keeps adding data: long strings in a \
                 map, counters, marks or stickers in a loop?)",
                l.memory_mib
            )
            .into(),
        );
    }
    if !ops.is_multiple_of(CLOCK_EVERY) {
        return None;
    }
    if GAME_OPS.with(Cell::get).saturating_add(ops) > l.game_operations {
        return Some(
            format!(
                "the game ran more than {} script operations in all (a loop that runs in every turn?)",
                l.game_operations
            )
            .into(),
        );
    }
    if CALL_START.with(Cell::get).is_some_and(|t| t.elapsed().as_secs() >= l.call_seconds) {
        return Some(
            format!(
                "the script ran for more than {} seconds in one call (slow operations in a loop, or calls through \
                 `invoke` nested in loops?)",
                l.call_seconds
            )
            .into(),
        );
    }
    None
}

/// Whether the meter's looks at the clock and at the game's operations, at the multiples
/// of [`CLOCK_EVERY`] a running call passes up to its count `to`, would all let it go on
/// (what [`progress`] checks there, without doing anything): the compiled tier then counts
/// a remembered call's operations at once instead of running it.
pub(crate) fn clock_looks_pass(to: u64) -> bool {
    let l = crate::script::LIMITS;
    GAME_OPS.with(Cell::get).saturating_add(to) <= l.game_operations
        && CALL_START.with(Cell::get).is_none_or(|t| t.elapsed().as_secs() < l.call_seconds)
}

/// Operations of the finished calls of the game (or calls) on this thread so far.
pub fn game_ops() -> u64 {
    GAME_OPS.with(Cell::get)
}

/// Start the game's operation count again (tests that run many calls on one thread).
#[cfg(test)]
pub(crate) fn reset_game_ops() {
    GAME_OPS.with(|g| g.set(0));
}

/// Put `v` in the meter's slot for the running call's count and give back what was there
/// (the compiled tier watches what native calls report there).
pub(crate) fn swap_call_ops(v: u64) -> u64 {
    CALL_OPS.with(|c| c.replace(v))
}

/// The running call's operation count, as the compiled tier reports it when a call
/// ends (it calls [`progress`] only every [`METER_EVERY`] operations).
pub(crate) fn report_call_ops(ops: u64) {
    CALL_OPS.with(|c| c.set(ops));
}

/// One script call on this thread: the outermost one starts the clock; each adds its
/// operations to the game's when it ends (also when it unwinds).
pub(super) struct CallMeter;

impl CallMeter {
    pub(super) fn start() -> CallMeter {
        if CALLS.with(|c| {
            c.set(c.get() + 1);
            c.get() == 1
        }) {
            CALL_START.with(|t| t.set(Some(Instant::now())));
            CALL_BYTES.with(|b| b.set(crown_alloc::thread_net_bytes()));
        }
        CALL_OPS.with(|c| c.set(0));
        CallMeter
    }
}

impl Drop for CallMeter {
    fn drop(&mut self) {
        let ops = CALL_OPS.with(|c| c.replace(0));
        GAME_OPS.with(|g| g.set(g.get().saturating_add(ops)));
        CALLS.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// Run `f`, an agent deciding (a person thinking, a bot running its own scripts, a view
/// drawn meanwhile), outside the running call's meter: the time and memory it takes do
/// not count as the waiting call's, and a script called meanwhile (`render`, a bot's
/// `greedy_score`) is metered as an outermost call of its own, from its own start.
pub(super) fn deciding<T>(f: impl FnOnce() -> T) -> T {
    let calls = CALLS.with(|c| c.replace(0));
    let start = CALL_START.with(|t| t.replace(None));
    let ops = CALL_OPS.with(|c| c.replace(0));
    let bytes = CALL_BYTES.with(Cell::get);
    let (t, b) = (Instant::now(), crown_alloc::thread_net_bytes());
    let out = f();
    CALLS.with(|c| c.set(calls));
    CALL_START.with(|c| c.set(start.map(|s| s + t.elapsed())));
    CALL_OPS.with(|c| c.set(ops));
    CALL_BYTES.with(|c| c.set(bytes + (crown_alloc::thread_net_bytes() - b)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A call that has waited past the time limit for a person to decide: a script run
    /// meanwhile (the board drawn) has its own clock, and the waiting call's clock does
    /// not count the wait.
    #[test]
    fn a_script_run_while_an_agent_decides_has_its_own_clock() {
        let limit = Duration::from_secs(crate::script::LIMITS.call_seconds);
        let outer = CallMeter::start();
        let long_ago = Instant::now().checked_sub(limit * 2).unwrap();
        CALL_START.with(|t| t.set(Some(long_ago)));
        let inner_stopped = deciding(|| {
            let _inner = CallMeter::start();
            progress(CLOCK_EVERY).is_some()
        });
        assert!(!inner_stopped, "the nested call counted the outer call's time");
        assert_eq!(CALLS.with(Cell::get), 1, "the waiting call is running again");
        // The waiting call's own time is as it was (long ago here), not reset.
        assert!(progress(CLOCK_EVERY).is_some());
        drop(outer);
        assert_eq!(CALLS.with(Cell::get), 0);
        reset_game_ops();
    }
}
