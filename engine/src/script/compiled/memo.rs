//! Calls the compiled tier remembers: a script function that changes nothing, called again
//! with the same simple arguments while nothing it read has changed, gives its value at
//! once.
//!
//! Scripts written for reading ask the same questions many times: the size of the deck
//! from the pack's definitions at every turn, a card's place in a sorted hand in every
//! comparison of a sort. The engine, not the designer, keeps the answers.
//!
//! **When a call is remembered.** The function ran compiled with arguments that are plain
//! values (unit, booleans, integers, characters, strings) and gave a small value; while it
//! ran, no host function that may change the game was called (see `api::with`), and no
//! script was started from a host function other than a compiled closure it called back
//! (a filter's test: see below), and nothing ran on the interpreter. What it read of the game
//! decides how long the answer lasts:
//! - only what stays the same for a whole game (the pack's definitions, the game's
//!   settings and seats: `api::settled`): until another game is installed on the thread
//!   or the pack is reloaded;
//! - what cards show (`api::read_faces`): until a card's face changes;
//! - how the board is laid out (`api::read_layout`): until the layout changes (a tile
//!   laid), however the cards' faces change (marks and stickers, a card turned);
//! - the pieces on the board (`api::read_pieces`: where they stand, whose they are, their
//!   values): until a piece changes or the layout does;
//! - the numbers on spaces (`api::read_values`): until one changes or the layout does (an
//!   answer that read several of these lasts until any of them changes);
//! - the game's state (`api::read`): until the next change (any host call that may
//!   change the game, and every install).
//!
//! **Exactly as if it ran.** A remembered call counts the operations the call counted,
//! reaches the call depth it reached, and counts as a read of the state when its value
//! came from one. A closure a host function called back during the call (`Callback`)
//! counted on a copy of the caller's count, apart from it: the furthest count any of them
//! reached is kept as the call's reach. When the operations or the reach would pass the
//! operation limit, or a look of the meter at the clock and the game's count (every
//! `CLOCK_EVERY` operations) that they pass would stop the script, or the depth would pass
//! the call limit, the call runs instead, so those limits stop a script exactly where the
//! interpreter stops it. The meter's looks (every `METER_EVERY` operations) are made at
//! each multiple the counted operations pass, at the call's position. Values, errors,
//! positions and operation counts are the interpreter's; the differential tests prove it
//! on every shipped game.
//!
//! **Only where it pays.** A function whose calls are rarely answered from memory (new
//! arguments each time, or it changes the game) is no longer tried after a few dozen calls.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use rhai::{Dynamic, ImmutableString, Position};

use super::rt::{Rt, R};
use super::Program;

thread_local! {
    /// Host calls that may have changed the installed game, and installs.
    static CHANGES: Cell<u64> = const { Cell::new(0) };
    /// Host calls that told something (narration) and changed nothing a script reads.
    static TOLD: Cell<u64> = const { Cell::new(0) };
    /// Reads of the game's state (not of what stays the same for a game).
    static READS: Cell<u64> = const { Cell::new(0) };
    /// Host calls that may have changed what a card shows (also counted in `CHANGES`).
    static FACE_CHANGES: Cell<u64> = const { Cell::new(0) };
    /// Reads of what cards show.
    static FACE_READS: Cell<u64> = const { Cell::new(0) };
    /// Host calls that may have changed how the board is laid out (also counted in
    /// `CHANGES`).
    static LAYOUT_CHANGES: Cell<u64> = const { Cell::new(0) };
    /// Reads of the board's layout.
    static LAYOUT_READS: Cell<u64> = const { Cell::new(0) };
    /// Host calls that may have changed the pieces on the board (where they stand, whose
    /// they are, their values), and layout changes (also counted in `CHANGES`).
    static PIECE_CHANGES: Cell<u64> = const { Cell::new(0) };
    /// Reads of the pieces on the board.
    static PIECE_READS: Cell<u64> = const { Cell::new(0) };
    /// Host calls that may have changed the numbers on spaces, and layout changes (also
    /// counted in `CHANGES`).
    static VALUE_CHANGES: Cell<u64> = const { Cell::new(0) };
    /// Reads of the numbers on spaces.
    static VALUE_READS: Cell<u64> = const { Cell::new(0) };
    /// Machines started (a host function calling back into a script).
    static MACHINES: Cell<u64> = const { Cell::new(0) };
    /// Installs of a game and reloads of its pack: what stays the same for a game ends.
    static EPOCH: Cell<u64> = const { Cell::new(0) };
    /// The furthest count a compiled closure called back from a host function reached
    /// (see [`called_back`]).
    static REACHED: Cell<u64> = const { Cell::new(0) };
    /// The deepest call level entered (see [`entered`]).
    static DEEPEST: Cell<usize> = const { Cell::new(0) };
    static MEMORY: RefCell<Memory> = RefCell::new(Memory::default());
}

/// One of the counts above.
type Count = &'static std::thread::LocalKey<Cell<u64>>;

/// One more of what `count` counts.
#[inline]
fn bump(count: Count) {
    count.with(|c| c.set(c.get().wrapping_add(1)));
}

/// A host call that may change the game.
#[inline]
pub(crate) fn changed() {
    bump(&CHANGES);
}

/// A host call that told something (a line of narration) and changed nothing a script
/// can read: the call that made it is not remembered (its telling would be lost), but
/// answers already kept still hold.
#[inline]
pub(crate) fn told() {
    bump(&TOLD);
}

/// A host call reading the game's state.
#[inline]
pub(crate) fn read_state() {
    bump(&READS);
}

/// A host call that may change what a card shows (and so the game).
#[inline]
pub(crate) fn faces_changed() {
    bump(&FACE_CHANGES);
    changed();
}

/// A host call that may change how the board is laid out (and so the game: what stands on
/// a space and the numbers on it are read through the layout, so those answers end too).
#[inline]
pub(crate) fn layout_changed() {
    bump(&LAYOUT_CHANGES);
    bump(&VALUE_CHANGES);
    pieces_changed();
}

/// A host call that may change the numbers on spaces (and so the game).
#[inline]
pub(crate) fn values_changed() {
    bump(&VALUE_CHANGES);
    changed();
}

/// A host call reading the numbers on spaces.
#[inline]
pub(crate) fn read_values() {
    bump(&VALUE_READS);
}

/// A host call that may change the pieces on the board (and so the game).
#[inline]
pub(crate) fn pieces_changed() {
    bump(&PIECE_CHANGES);
    changed();
}

/// A host call reading the pieces on the board.
#[inline]
pub(crate) fn read_pieces() {
    bump(&PIECE_READS);
}

/// A host call reading what cards show.
#[inline]
pub(crate) fn read_faces() {
    bump(&FACE_READS);
}

/// A host call reading how the board is laid out.
#[inline]
pub(crate) fn read_layout() {
    bump(&LAYOUT_READS);
}

/// A game installed on this thread, or its pack reloaded: nothing remembered holds.
pub(crate) fn new_game() {
    bump(&EPOCH);
    faces_changed();
    layout_changed();
}

/// A script started from a host function (a callback on a machine of its own), or an
/// operation run on the interpreter.
#[inline]
pub(crate) fn machine_started() {
    bump(&MACHINES);
}

/// A compiled closure called back from a host function ended with its count (on a copy
/// of its caller's) at `ops`.
#[inline]
pub(super) fn called_back(ops: u64) {
    REACHED.with(|r| r.set(r.get().max(ops)));
}

pub(super) fn machines() -> u64 {
    MACHINES.with(Cell::get)
}

pub(super) fn set_machines(n: u64) {
    MACHINES.with(|c| c.set(n));
}

/// A script function entered at `level`.
#[inline]
pub(super) fn entered(level: usize) {
    DEEPEST.with(|d| {
        if level > d.get() {
            d.set(level);
        }
    });
}

/// How many calls of a function are tried before deciding whether remembering pays, and
/// the share of them (one in ...) that must have been answered from memory.
const TRIAL: u32 = 64;
const PAYS_ONE_IN: u32 = 8;

/// Answers kept at most (a game asks a few hundred different questions).
const MAX_ENTRIES: usize = 1024;

/// The most values (items of lists and maps, counted through) a remembered value holds,
/// and the longest string. A call that counted more operations than its value has items
/// may keep a larger value (a plan of the board), up to `MAX_LARGE_ITEMS`: copying an item
/// costs far less than an operation. The answers kept hold at most `MAX_KEPT_ITEMS` items
/// in all.
const MAX_ITEMS: usize = 64;
const MAX_LARGE_ITEMS: usize = 4096;
const MAX_KEPT_ITEMS: usize = 1 << 16;
const MAX_TEXT: usize = 256;

/// How a function has fared (kept per function of a program).
#[derive(Clone, Copy, Default)]
pub(super) struct Record {
    calls: u32,
    answered: u32,
    off: bool,
}

impl Record {
    pub(super) fn off(self) -> bool {
        self.off
    }

    #[cfg(test)]
    pub(super) fn answered(self) -> u32 {
        self.answered
    }

    fn note(&mut self, answered: bool) {
        self.calls = self.calls.saturating_add(1);
        if answered {
            self.answered = self.answered.saturating_add(1);
        }
        if self.calls >= TRIAL && self.answered.saturating_mul(PAYS_ONE_IN) < self.calls {
            self.off = true;
        }
    }
}

/// An argument that can be part of a key.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Arg {
    Unit,
    Bool(bool),
    Int(rhai::INT),
    Char(char),
    Text(ImmutableString),
}

impl Arg {
    fn of(v: &Dynamic) -> Option<Arg> {
        if v.tag() != 0 {
            return None;
        }
        if v.is_unit() {
            Some(Arg::Unit)
        } else if let Ok(i) = v.as_int() {
            Some(Arg::Int(i))
        } else if let Ok(b) = v.as_bool() {
            Some(Arg::Bool(b))
        } else if let Ok(c) = v.as_char() {
            Some(Arg::Char(c))
        } else if v.is_string() {
            let s = v.clone().into_immutable_string().ok()?;
            (s.len() <= MAX_TEXT).then_some(Arg::Text(s))
        } else {
            None
        }
    }
}

/// A call: the program, the function and its arguments.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct Key {
    program: u64,
    function: usize,
    /// (Held inline: no allocation for the few arguments a call has.)
    args: rhai::FnArgsVec<Arg>,
}

struct Entry {
    value: Dynamic,
    /// Operations the call counted, how far past its start a closure it called back
    /// counted (at least `ops`), and how many levels deep it went.
    ops: u64,
    reach: u64,
    depth: usize,
    /// What the meter last heard from a native call at the call's end, if nothing was
    /// counted after it (see `Rt::side`), as an offset from the count at the end.
    heard: Option<i64>,
    /// How long it holds.
    lasts: Lasts,
    /// The values it holds (see [`small`]).
    items: usize,
}

/// How long an answer holds, from what its call read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lasts {
    /// For the game: it read only what stays the same for a game.
    Game,
    /// While what it read of the table stays as it was at these counts of changes: the
    /// cards' faces, the layout, the pieces, the numbers on spaces (`None`: not read).
    Table { faces: Option<u64>, layout: Option<u64>, pieces: Option<u64>, values: Option<u64> },
    /// While the game stays as it was at this count of its changes.
    State(u64),
}

impl Lasts {
    fn holds(self) -> bool {
        let same = |kept: Option<u64>, now: Count| kept.is_none_or(|n| now.with(Cell::get) == n);
        match self {
            Lasts::Game => true,
            Lasts::Table { faces, layout, pieces, values } => {
                same(faces, &FACE_CHANGES)
                    && same(layout, &LAYOUT_CHANGES)
                    && same(pieces, &PIECE_CHANGES)
                    && same(values, &VALUE_CHANGES)
            }
            Lasts::State(n) => CHANGES.with(Cell::get) == n,
        }
    }

    /// Count the reads the call made, as the call would have.
    fn read_again(self) {
        match self {
            Lasts::Game => {}
            Lasts::Table { faces, layout, pieces, values } => {
                if faces.is_some() {
                    read_faces();
                }
                if layout.is_some() {
                    read_layout();
                }
                if pieces.is_some() {
                    read_pieces();
                }
                if values.is_some() {
                    read_values();
                }
            }
            Lasts::State(_) => read_state(),
        }
    }
}

/// The answers kept on this thread, for the game installed.
#[derive(Default)]
struct Memory {
    epoch: u64,
    entries: HashMap<Key, Entry, ahash::RandomState>,
    /// The items of every entry's value.
    items: usize,
}

impl Memory {
    /// The answer to `key`, if it still holds.
    fn get(&mut self, key: &Key) -> Option<&Entry> {
        self.forget_other_games();
        self.entries.get(key).filter(|e| e.lasts.holds())
    }

    /// Keep an answer. When the memory is full it starts again (answers that no longer
    /// hold are among what it forgets).
    fn keep(&mut self, key: Key, e: Entry) {
        self.forget_other_games();
        if self.entries.len() >= MAX_ENTRIES || self.items + e.items > MAX_KEPT_ITEMS {
            self.entries.clear();
            self.items = 0;
        }
        self.items += e.items;
        if let Some(old) = self.entries.insert(key, e) {
            self.items -= old.items;
        }
    }

    fn forget_other_games(&mut self) {
        let epoch = EPOCH.with(Cell::get);
        if self.epoch != epoch {
            self.epoch = epoch;
            self.entries.clear();
            self.items = 0;
        }
    }
}

/// The key of a call of function `i` with `args`, when it is worth trying to remember.
pub(super) fn key(prog: &Program, i: usize, args: &[Dynamic]) -> Option<Key> {
    let args = args.iter().map(Arg::of).collect::<Option<rhai::FnArgsVec<Arg>>>();
    if args.is_none() {
        note(prog, i, false);
    }
    Some(Key { program: prog.serial, function: i, args: args? })
}

fn note(prog: &Program, i: usize, answered: bool) {
    let cell = &prog.fns[i].memo;
    let mut r = cell.get();
    r.note(answered);
    cell.set(r);
}

/// The value of the call `key` at `rt.level` (before the call's own level): from memory
/// when it holds and can be given exactly as the call would, else by `run`.
pub(super) fn call(rt: &mut Rt, key: Key, pos: Position, run: impl FnOnce(&mut Rt) -> R<Dynamic>) -> R<Dynamic> {
    let base = rt.level;
    let known = MEMORY.with(|m| {
        let mut m = m.borrow_mut();
        let e = m.get(&key)?;
        (rt.can_count(e.reach) && base + e.depth <= crate::script::LIMITS.call_levels)
            .then(|| (e.value.clone(), e.ops, e.reach, e.depth, e.lasts, e.heard))
    });
    if let Some((value, ops, reach, depth, lasts, heard)) = known {
        if reach > ops {
            called_back(rt.ops + reach);
        }
        rt.count_many(ops, pos).map_err(super::rt::Ctl::into_err)?;
        if let Some(off) = heard {
            rt.note_side(rt.ops.wrapping_add_signed(off));
        }
        lasts.read_again();
        entered(base + depth);
        note(&rt.prog, key.function, true);
        return Ok(value);
    }
    let before = (CHANGES.with(Cell::get), MACHINES.with(Cell::get), EPOCH.with(Cell::get), TOLD.with(Cell::get));
    let reads = Reads::now();
    let ops = rt.ops;
    let outer = DEEPEST.with(|d| d.replace(base));
    let reached_before = REACHED.with(|r| r.replace(0));
    let r = run(rt);
    let deepest = DEEPEST.with(|d| d.replace(d.get().max(outer)));
    let reached = REACHED.with(|r| r.replace(r.get().max(reached_before)));
    let unchanged =
        before == (CHANGES.with(Cell::get), MACHINES.with(Cell::get), EPOCH.with(Cell::get), TOLD.with(Cell::get));
    note(&rt.prog, key.function, false);
    let budget = usize::try_from(rt.ops.saturating_sub(ops)).unwrap_or(usize::MAX).clamp(MAX_ITEMS, MAX_LARGE_ITEMS);
    let mut left = budget;
    match &r {
        Ok(v) if unchanged && rt.ops > ops && small(v, &mut left) => {
            let e = Entry {
                items: budget - left,
                value: v.clone(),
                ops: rt.ops - ops,
                reach: (rt.ops - ops).max(reached.saturating_sub(ops)),
                depth: deepest - base,
                heard: rt.side().map(|h| h.wrapping_sub(rt.ops) as i64),
                lasts: lasts(reads),
            };
            MEMORY.with(|m| m.borrow_mut().keep(key, e));
        }
        _ => {}
    }
    r
}

/// The counts of reads when a call starts: of the state, the cards' faces, the layout, the
/// pieces and the numbers on spaces.
struct Reads {
    state: u64,
    faces: u64,
    layout: u64,
    pieces: u64,
    values: u64,
}

impl Reads {
    fn now() -> Reads {
        Reads {
            state: READS.with(Cell::get),
            faces: FACE_READS.with(Cell::get),
            layout: LAYOUT_READS.with(Cell::get),
            pieces: PIECE_READS.with(Cell::get),
            values: VALUE_READS.with(Cell::get),
        }
    }
}

/// How long an answer holds whose call started when the counts of reads were `before`.
fn lasts(before: Reads) -> Lasts {
    if READS.with(Cell::get) != before.state {
        return Lasts::State(CHANGES.with(Cell::get));
    }
    let read = |reads: Count, was: u64, changes: Count| (reads.with(Cell::get) != was).then(|| changes.with(Cell::get));
    let faces = read(&FACE_READS, before.faces, &FACE_CHANGES);
    let layout = read(&LAYOUT_READS, before.layout, &LAYOUT_CHANGES);
    let pieces = read(&PIECE_READS, before.pieces, &PIECE_CHANGES);
    let values = read(&VALUE_READS, before.values, &VALUE_CHANGES);
    if faces.is_none() && layout.is_none() && pieces.is_none() && values.is_none() {
        Lasts::Game
    } else {
        Lasts::Table { faces, layout, pieces, values }
    }
}

/// Whether `v` is small enough to keep: plain values, short strings, and lists and maps
/// of them holding at most `items` values in all.
fn small(v: &Dynamic, items: &mut usize) -> bool {
    if *items == 0 || v.tag() != 0 {
        return false;
    }
    *items -= 1;
    if v.is_unit() || v.is_int() || v.is_bool() || v.is_char() {
        return true;
    }
    if v.is_string() {
        return v.read_lock::<ImmutableString>().is_some_and(|s| s.len() <= MAX_TEXT);
    }
    if v.is_array() {
        return v.read_lock::<rhai::Array>().is_some_and(|a| a.iter().all(|x| small(x, items)));
    }
    if v.is_map() {
        return v.read_lock::<rhai::Map>().is_some_and(|m| m.values().all(|x| small(x, items)));
    }
    false
}
