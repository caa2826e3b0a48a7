//! The functions scripts call, and how games run them.
//!
//! While a game runs, it sits in a thread-local slot; host functions borrow it for the
//! length of one call and never hold the borrow while a script or an agent runs. The
//! game is therefore implicit in scripts: `draw(zone("deck"), pzone(p, "hand"))`.
//! Each function here is listed in [`super::docs::API`], from which
//! `docs/script-api.md` is generated.

use std::cell::{Cell, RefCell};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use rhai::{Array, CallFnOptions, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Scope, AST};

use crate::content::model::StagePosition;
use crate::content::{DefKind, Pack};
use crate::game::agent::ChoiceRequest;
use crate::game::state::{Piece, Visibility, NO_ZONE};
use crate::game::{card_ref, scalar_to_dynamic, Choice, Game, Outcome, ScriptFailure, Status};

mod board;
mod cards;
mod defs;
mod game;
mod menu;
mod players;
mod table;
mod turns;
mod zones;

type R<T> = Result<T, Box<EvalAltResult>>;

thread_local! {
    static CURRENT: RefCell<Option<Game>> = const { RefCell::new(None) };
    static FAILURE: RefCell<Option<ScriptFailure>> = const { RefCell::new(None) };
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Remember where in Crown's source a caught panic happened (a program's panic hook calls
/// this), for the failure's message.
pub fn note_caught_panic(location: String) {
    PANIC_AT.with(|p| *p.borrow_mut() = Some(location));
}

/// Whether a panic on this thread would be caught and reported as the failure of a game
/// (a program's panic hook may then stay quiet instead of printing it).
pub fn panic_is_caught() -> bool {
    CATCHING.with(std::cell::Cell::get)
}

/// Host calls into scripts (`invoke`, `fold`) may nest this deep.
const MAX_HOST_DEPTH: usize = 24;

// The meter of running scripts on this thread (see [`progress`]).
thread_local! {
    /// Script calls running (nested through `invoke` and the like).
    static CALLS: Cell<usize> = const { Cell::new(0) };
    /// When the outermost call started (moved on by the time agents took to decide).
    static CALL_START: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The operation count the engine last reported for the running call.
    static CALL_OPS: Cell<u64> = const { Cell::new(0) };
    /// Operations of the finished calls of the game installed on this thread.
    static GAME_OPS: Cell<u64> = const { Cell::new(0) };
}

/// How often (in operations) [`progress`] looks at the clock and the memory.
const METER_EVERY: u64 = 8192;

/// The engine's progress callback, called on every operation with the running call's
/// count: stops the script (with the message as the termination token) when the game
/// passes its operations, the call its time, or the process its memory.
pub(crate) fn progress(ops: u64) -> Option<Dynamic> {
    CALL_OPS.with(|c| c.set(ops));
    if !ops.is_multiple_of(METER_EVERY) {
        return None;
    }
    let l = super::LIMITS;
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
    if resident_mib().is_some_and(|m| m > l.memory_mib) {
        return Some(
            format!(
                "Crown's memory passed {} MiB while the script ran (the script keeps adding data: long strings in \
                 a map, counters, marks or stickers in a loop?)",
                l.memory_mib
            )
            .into(),
        );
    }
    None
}

/// The process's resident memory in MiB (Linux: `/proc/self/statm`, in 4 KiB pages).
fn resident_mib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some((pages * 4096) >> 20)
}

/// One script call on this thread: the outermost one starts the clock; each adds its
/// operations to the game's when it ends (also when it unwinds).
struct CallMeter;

impl CallMeter {
    fn start() -> CallMeter {
        if CALLS.with(|c| {
            c.set(c.get() + 1);
            c.get() == 1
        }) {
            CALL_START.with(|t| t.set(Some(Instant::now())));
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

/// Time an agent took to decide does not count as the running call's time.
fn not_counting(spent: std::time::Duration) {
    CALL_START.with(|t| t.set(t.get().map(|s| s + spent)));
}

/// Borrow the running game for one host call.
///
/// A panic inside the call becomes the script error of that call, so the game fails with
/// the script position of the call that set it off (and the process goes on).
fn with<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    CURRENT.with(|c| {
        let mut b = c.try_borrow_mut().map_err(|_| Box::<EvalAltResult>::from("internal: game busy"))?;
        let g = b.as_mut().ok_or_else(|| Box::<EvalAltResult>::from("no game is running"))?;
        match std::panic::catch_unwind(AssertUnwindSafe(|| f(g))) {
            Ok(r) => r.map_err(Into::into),
            Err(panic) => Err(panic_message(panic.as_ref(), "in a host function").into()),
        }
    })
}

/// The message of a caught panic, with where in Crown's source it happened when known.
fn panic_message(panic: &(dyn std::any::Any + Send), place: &str) -> String {
    let msg = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    let at = PANIC_AT.with(|p| p.borrow_mut().take()).map(|l| format!(" (at {l})")).unwrap_or_default();
    format!("internal error {place} (a bug in Crown, please report it): {msg}{at}")
}

/// Run `f` with the game installed as the current one, then take it back.
pub fn with_installed<T>(game: Game, f: impl FnOnce() -> T) -> (Game, T) {
    refresh_def_ids(&game.pack);
    GAME_OPS.with(|g| g.set(0));
    CURRENT.with(|c| *c.borrow_mut() = Some(game));
    FAILURE.with(|f| *f.borrow_mut() = None);
    let out = f();
    let game = CURRENT.with(|c| c.borrow_mut().take()).expect("game installed");
    (game, out)
}

/// Read the game being played on this thread, if one is installed and not borrowed:
/// an agent deciding for a seat (a person at the terminal or in the browser) may look at
/// the table this way while the game waits for its decision.
pub fn with_game<T>(f: impl FnOnce(&Game) -> T) -> Option<T> {
    CURRENT.with(|c| c.try_borrow().ok().and_then(|b| b.as_ref().map(f)))
}

/// Play a game to its end. See [`Game::run`].
pub fn run_game(game: Game) -> (Game, Outcome) {
    let (mut game, mut status) = with_installed(game, drive);
    if let Status::Failed(f) = &mut status {
        locate_limit(&mut game, f);
    }
    let outcome = game.outcome(status);
    (game, outcome)
}

/// Whether a failure is a script hitting a limit (which Rhai reports at the call that
/// started the script).
fn hit_a_limit(f: &ScriptFailure) -> bool {
    f.message.starts_with("the script ran more than")
        || f.message.starts_with("calls nested more than")
        || f.message.ends_with("grew past its limit")
        || f.message.contains("Too many variables")
}

/// Put a limit failure at the statement that hit the limit: play the game again from its
/// seed with its choices, noting statements (see [`super::locate`]).
fn locate_limit(game: &mut Game, f: &mut ScriptFailure) {
    if !hit_a_limit(f) || super::locate::active() {
        return;
    }
    let Some(mut cfg) = game.started.clone() else { return };
    cfg.transcript = false;
    let seats = game.state.players.len();
    let file = crate::game::record::GameFile::from_game(game, vec!["human".to_string(); seats], String::new());
    let Ok(again) = Game::new(game.pack.clone(), cfg, file.scripted_agents()) else { return };
    let ((_, status), at) = super::locate::last_statement(|| with_installed(again, drive));
    if let (Status::Failed(f2), Some(at)) = (status, at) {
        // Only the same failure is located (a pack reloaded mid-game may differ).
        if f2.message == f.message {
            let logged = format!("error: {f}");
            // A rules function run from a card script carries the card script's name.
            let pack = &game.pack;
            let own = |p: &str| pack.scripts.iter().find(|s| s.path.to_string_lossy().replace('\\', "/") == p);
            let script = match (own(&at.source), pack.rules_script()) {
                (Some(s), Some(rules))
                    if !s.functions.contains(&at.function) && rules.functions.contains(&at.function) =>
                {
                    rules.path.to_string_lossy().replace('\\', "/")
                }
                _ => at.source,
            };
            f.script = Some(script);
            f.line = at.line;
            f.column = at.column;
            // The transcript's error line says the same.
            if let Some(last) = game.transcript.as_mut().and_then(|t| t.iter_mut().rev().find(|l| **l == logged)) {
                *last = format!("error: {f}");
            }
        }
    }
}

fn drive() -> Status {
    let was_catching = CATCHING.with(|c| c.replace(true));
    PANIC_AT.with(|p| *p.borrow_mut() = None);
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<Status, ScriptFailure> {
        let has_turn =
            with(|g| Ok(g.pack.rules_script().is_some_and(|s| s.functions.contains("turn")))).unwrap_or(false);
        if !has_turn {
            return Err(ScriptFailure {
                script: rules_path(),
                ..ScriptFailure::plain("the rules script defines no `turn()` function")
            });
        }
        with(|g| {
            g.mark_fork_point(true);
            Ok(())
        })
        .map_err(|e| ScriptFailure::plain(e.to_string()))?;
        let _ = rules_call("setup", Vec::new())?;
        turns(false)
    }));
    finish_drive(r, was_catching)
}

/// Play turns until the game ends, hits its turn limit or pauses; `resume_turn` plays the
/// turn already counted first (a fork taken at a turn's start).
fn turns(mut resume_turn: bool) -> Result<Status, ScriptFailure> {
    loop {
        if !resume_turn {
            let (over, limit) = with(|g| {
                if g.over.is_some() {
                    return Ok((true, false));
                }
                if g.state.turn >= g.max_turns {
                    return Ok((false, true));
                }
                g.state.turn += 1;
                let t = g.state.turn;
                g.log(|_| format!("-- turn {t}"));
                g.mark_fork_point(false);
                Ok((false, false))
            })
            .map_err(|e| ScriptFailure::plain(e.to_string()))?;
            if over {
                return Ok(Status::Finished);
            }
            if limit {
                let _ = with(|g| {
                    let t = g.max_turns;
                    g.log(|_| format!("stopped: turn limit of {t} reached"));
                    Ok(())
                });
                return Ok(Status::TurnLimit);
            }
        }
        resume_turn = false;
        let _ = rules_call("turn", Vec::new())?;
        let paused = with(|g| {
            let p = g.pause_at_checkpoint && g.at_checkpoint && g.over.is_none();
            g.at_checkpoint = false;
            if p {
                g.log(|_| "paused at a checkpoint".to_string());
            }
            Ok(p)
        })
        .map_err(|e| ScriptFailure::plain(e.to_string()))?;
        if paused {
            return Ok(Status::Paused);
        }
    }
}

/// Play a forked game (see [`crate::game::Game::fork`]) on from its fork point: set-up
/// first when the copy was taken before it, else the turn it was taken at. Then, with the
/// game still installed, `then` reads what it needs (a search agent's evaluation).
pub fn play_fork<T>(game: Game, before_setup: bool, then: impl FnOnce(&Status) -> T) -> (Game, Status, T) {
    let (game, (status, out)) = with_installed(game, || {
        let was_catching = CATCHING.with(|c| c.replace(true));
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<Status, ScriptFailure> {
            if before_setup {
                let _ = rules_call("setup", Vec::new())?;
                turns(false)
            } else {
                turns(true)
            }
        }));
        let status = finish_drive(r, was_catching);
        let out = then(&status);
        (status, out)
    });
    (game, status, out)
}

/// Call an optional rules function while a game is installed (`None` when the rules do
/// not define it).
pub fn call_rules_fn(name: &str, args: Vec<Dynamic>) -> Option<Result<Dynamic, ScriptFailure>> {
    let defined = with(|g| Ok(g.pack.rules_script().is_some_and(|s| s.functions.contains(name)))).unwrap_or(false);
    defined.then(|| rules_call(name, args))
}

fn finish_drive(r: std::thread::Result<Result<Status, ScriptFailure>>, was_catching: bool) -> Status {
    CATCHING.with(|c| c.set(was_catching));
    match r {
        Ok(Ok(s)) => s,
        Ok(Err(f)) => {
            let _ = with(|g| {
                let msg = f.to_string();
                g.log(|_| format!("error: {msg}"));
                Ok(())
            });
            Status::Failed(f)
        }
        Err(panic) => Status::Failed(ScriptFailure::plain(panic_message(panic.as_ref(), "outside the scripts"))),
    }
}

fn rules_path() -> Option<String> {
    with(|g| Ok(g.pack.rules_script().map(|s| s.path.display().to_string()))).ok().flatten()
}

/// Call a function of the rules script, if it defines it.
fn rules_call(name: &str, args: Vec<Dynamic>) -> Result<Dynamic, ScriptFailure> {
    let ast = with(|g| {
        let s = g.pack.rules_script().ok_or("the pack has no rules script")?;
        Ok(s.functions.contains(name).then(|| s.ast.clone()))
    })
    .map_err(|e| ScriptFailure::plain(e.to_string()))?;
    let Some(ast) = ast else {
        return Ok(Dynamic::UNIT);
    };
    call_script_fn(&ast, name, args).map_err(|e| take_failure().unwrap_or_else(|| to_failure_in(&e, &ast, Some(name))))
}

/// Call `name` in a compiled script with the shared engine (the script's top-level code
/// is not run).
pub fn call_script_fn(ast: &AST, name: &str, args: Vec<Dynamic>) -> R<Dynamic> {
    let mut scope = Scope::new();
    let opts = CallFnOptions::new().eval_ast(false).rewind_scope(false);
    let profiling = super::profile::active();
    if profiling {
        super::profile::enter(ast.source(), name);
    }
    let meter = CallMeter::start();
    let r = super::engine().call_fn_with_options::<Dynamic>(opts, &mut scope, ast, name, args);
    drop(meter);
    if profiling {
        super::profile::leave();
    }
    r
}

fn take_failure() -> Option<ScriptFailure> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// Turn a Rhai error into a located failure naming the script and its definitions.
pub fn to_failure(err: &EvalAltResult, ast: &AST) -> ScriptFailure {
    to_failure_in(err, ast, None)
}

/// As [`to_failure`], knowing which function was called (to locate errors that carry no
/// position, such as running out of operations, at that function's definition).
pub fn to_failure_in(err: &EvalAltResult, ast: &AST, called: Option<&str>) -> ScriptFailure {
    let mut source = ast.source().map(str::to_string);
    let mut trace: Vec<String> = called.map(|c| vec![c.to_string()]).unwrap_or_default();
    let mut e = err;
    let mut pos = e.position();
    while let EvalAltResult::ErrorInFunctionCall(name, src, inner, p) = e {
        // A closure's internal name (`anon$` and a hash) is not the same in every build.
        let name = if name.starts_with("anon$") { "a closure" } else { name.as_str() };
        if trace.last().map(String::as_str) != Some(name) {
            trace.push(name.to_string());
        }
        if !src.is_empty() {
            source = Some(src.clone());
        }
        pos = if inner.position().is_none() { *p } else { inner.position() };
        e = inner;
    }
    if !e.position().is_none() {
        pos = e.position();
    }
    let message = match e {
        EvalAltResult::ErrorTooManyOperations(_) => {
            format!("the script ran more than {} operations in one call (an endless loop?)", super::LIMITS.operations)
        }
        EvalAltResult::ErrorStackOverflow(_) => {
            format!("calls nested more than {} deep (endless recursion?)", super::LIMITS.call_levels)
        }
        EvalAltResult::ErrorDataTooLarge(what, _) => format!("{what} grew past its limit"),
        // Stopped by `progress`: the token is the message.
        EvalAltResult::ErrorTerminated(why, _) => why.to_string(),
        other => {
            let s = other.to_string();
            plain_words(s.split(" (line ").next().unwrap_or(&s))
        }
    };
    let definitions = source
        .as_deref()
        .map(|s| {
            with(|g| {
                Ok(g.pack
                    .defs
                    .iter()
                    .filter(|d| {
                        d.script.is_some_and(|i| g.pack.scripts[i].path.to_string_lossy().replace('\\', "/") == s)
                    })
                    .map(|d| d.def.id.clone())
                    .collect())
            })
            .unwrap_or_default()
        })
        .unwrap_or_default();
    let (mut line, mut column) = (pos.line().unwrap_or(0), pos.position().unwrap_or(0));
    if line == 0 {
        // No position (operations or stack limits): point at the innermost function.
        if let (Some(src), Some(func)) = (source.as_deref(), trace.last()) {
            if let Ok(Some(l)) = with(|g| Ok(fn_line(&g.pack, src, func))) {
                line = l;
                column = 1;
            }
        }
    }
    ScriptFailure { message, script: source, line, column, definitions, trace }
}

/// Rhai's messages name Rust types (`i64`, `ImmutableString`); a designer reads the
/// script's words for them (`int`, `string`).
pub fn plain_words(msg: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("alloc::string::String", "string"),
        ("rhai::ImmutableString", "string"),
        ("ImmutableString", "string"),
        ("&str", "string"),
        ("String", "string"),
        ("i64", "int"),
        ("rhai::Array", "array"),
        ("rhai::Map", "map"),
        ("rhai::FnPtr", "function"),
        ("FnPtr", "function"),
        ("rhai::Dynamic", "any value"),
        ("Dynamic", "any value"),
        ("()", "nothing"),
    ];
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    'scan: while !rest.is_empty() {
        // Only whole words are replaced (`String` inside `ToString` is left alone).
        let boundary = out.chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
        if boundary {
            for (rust, word) in WORDS {
                if let Some(after) = rest.strip_prefix(rust) {
                    if after.chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
                        out.push_str(word);
                        rest = after;
                        continue 'scan;
                    }
                }
            }
        }
        let c = rest.chars().next().expect("not empty");
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The line where `fn name(` is defined in a script, from the loaded sources.
pub(crate) fn fn_line_in(sources: &crate::diag::SourceMap, script: &std::path::Path, name: &str) -> Option<usize> {
    let file = sources.get(script)?;
    let needle = format!("fn {name}(");
    file.text.lines().position(|l| l.trim_start().starts_with(&needle)).map(|i| i + 1)
}

/// The line where `fn name(` is defined in a script of the pack.
pub(crate) fn fn_line(pack: &Pack, script: &str, name: &str) -> Option<usize> {
    let file = pack.sources.get(std::path::Path::new(script))?;
    let needle = format!("fn {name}(");
    file.text.lines().position(|l| l.trim_start().starts_with(&needle)).map(|i| i + 1)
}

/// `print` and `debug` go to the transcript, capped per game.
pub fn log_print(kind: &str, s: &str) {
    let _ = with(|g| {
        g.print_lines += 1;
        let cap = super::LIMITS.print_lines;
        let line = if g.print_lines < cap {
            let line: String = s.chars().take(500).collect();
            format!("{kind}: {line}")
        } else if g.print_lines == cap {
            format!("{kind}: (further output dropped: more than {cap} lines)")
        } else {
            return Ok(());
        };
        if let Some(echo) = &mut g.echo {
            echo(&line);
        }
        g.log(|_| line);
        Ok(())
    });
}

// ---- argument checks ----

fn pl(g: &Game, p: i64) -> Result<usize, String> {
    if p >= 0 && (p as usize) < g.state.players.len() {
        Ok(p as usize)
    } else {
        Err(format!("no player {p} (players are 0 to {})", g.state.players.len() as i64 - 1))
    }
}

fn cd(g: &Game, c: i64) -> Result<u32, String> {
    if c >= 0 && (c as usize) < g.state.cards.len() {
        Ok(c as u32)
    } else {
        Err(format!("no card {c}"))
    }
}

fn zn(g: &Game, z: i64) -> Result<u32, String> {
    if z >= 0 && (z as usize) < g.state.zones.len() {
        Ok(z as u32)
    } else {
        Err(format!("no zone {z}"))
    }
}

fn sp(g: &Game, s: i64) -> Result<u32, String> {
    if s >= 0 && (s as usize) < g.state.spaces.len() {
        Ok(s as u32)
    } else {
        Err(format!("no board space {s}"))
    }
}

fn pc(g: &Game, p: i64) -> Result<usize, String> {
    if p >= 0 && (p as usize) < g.state.pieces.len() {
        Ok(p as usize)
    } else {
        Err(format!("no piece {p}"))
    }
}

fn def_idx(g: &Game, id: &str) -> Result<u32, String> {
    g.pack.index.get(id).map(|&i| i as u32).ok_or_else(|| {
        let hint = crate::diag::did_you_mean(id, g.pack.defs.iter().map(|d| d.def.id.as_str()))
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        format!("no definition `{id}`{hint}")
    })
}

fn stage_of(g: &Game, c: u32) -> Option<&crate::content::model::Stage> {
    let card = &g.state.cards[c as usize];
    let d = &g.pack.defs[card.def as usize].def;
    d.stages.iter().find(|s| s.position == card.stage)
}

/// The back face of a two-sided card (a definition with a `back` table and no stages)
/// when it is the side up.
fn back_up(g: &Game, c: u32) -> Option<&crate::content::model::Face> {
    let card = &g.state.cards[c as usize];
    let d = &g.pack.defs[card.def as usize].def;
    let back = matches!(card.stage, StagePosition::BackTop | StagePosition::BackBottom);
    d.back.as_ref().filter(|_| back && d.stages.is_empty())
}

/// A card's value on the face that is up: its current stage's (if it has stages), its
/// back's (when turned over), else its definition's; plus one for every sticker of that
/// name. `None` when the face holds no such value and no sticker names it.
fn card_value(g: &Game, c: u32, k: &str) -> Option<i64> {
    let card = &g.state.cards[c as usize];
    // The face up: a stage, else the back when turned over, else the definition (looked
    // at in that order, only as far as needed: this is the hottest host function).
    let base = match stage_of(g, c) {
        Some(st) => st.values.get(k).copied(),
        None => match back_up(g, c) {
            Some(b) => b.values.get(k).copied(),
            None => g.pack.defs[card.def as usize].def.values.get(k).copied(),
        },
    };
    let stickers = card.stickers.iter().filter(|s| s.as_str() == k).count() as i64;
    match base {
        Some(v) => Some(v + stickers),
        None if stickers > 0 => Some(stickers),
        None => None,
    }
}

/// Which face of a card is up, for messages: `front`, `back` or the stage's position.
fn face_word(g: &Game, c: u32) -> &'static str {
    match stage_of(g, c) {
        Some(st) => st.position.as_str(),
        None if back_up(g, c).is_some() => "back",
        None => "front",
    }
}

/// `value(c, k)`: a value the face up lacks is an error naming the card and the face.
fn strict_value(g: &Game, c: u32, k: &str) -> Result<i64, String> {
    card_value(g, c, k).ok_or_else(|| {
        format!(
            "{} has no value `{k}` on its {} face; use value_or(c, \"{k}\", 0) where it may be missing",
            card_ref(&g.pack, &g.state, c),
            face_word(g, c)
        )
    })
}

/// Whether the card's definition or its current stage has keyword `k`.
fn card_has_keyword(g: &Game, c: u32, k: &str) -> bool {
    let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
    stage_of(g, c).is_some_and(|s| s.keywords.iter().any(|x| x == k)) || d.keywords.iter().any(|x| x == k)
}

fn zone_visibility(s: &str) -> Result<Visibility, String> {
    Ok(match s {
        "public" => Visibility::Public,
        "owner" => Visibility::Owner,
        "hidden" => Visibility::Hidden,
        _ => return Err(format!("visibility `{s}` is not public, owner or hidden")),
    })
}

fn label_of(opt: &Dynamic) -> Result<String, String> {
    if opt.is_map() {
        // Borrow the map in place (a clone would copy every option's fields).
        if let Some(m) = opt.read_lock::<Map>() {
            return m.get("label").map(|l| l.to_string()).ok_or_else(|| "an option map needs a `label`".to_string());
        }
    }
    if opt.is_string() {
        return Ok(opt.to_string());
    }
    Ok(opt.to_string())
}

fn ints(a: Vec<u32>) -> Array {
    a.into_iter().map(|x| Dynamic::from(i64::from(x))).collect()
}

// ---- choices and hooks (these release the game while a script or agent runs) ----

fn choose(p: i64, prompt: ImmutableString, options: Array) -> R<Dynamic> {
    if options.is_empty() {
        return Err(format!("choose(\"{prompt}\") was given no options").into());
    }
    // Options with the same label are the same choice: keep the first of each.
    let mut labels: Vec<String> = Vec::with_capacity(options.len());
    let mut keep: Vec<usize> = Vec::with_capacity(options.len());
    for (i, o) in options.iter().enumerate() {
        let l = label_of(o)?;
        if !labels.contains(&l) {
            labels.push(l);
            keep.push(i);
        }
    }
    let options: Array =
        if keep.len() == options.len() { options } else { keep.iter().map(|&i| options[i].clone()).collect() };
    let offer = Listed { labels, options };
    let (i, _) = ask(p, &prompt, &offer)?;
    Ok(offer.options[i].clone())
}

/// What a choice offers: how many options, and their labels and values when an agent
/// reads them (an action menu makes these only then).
pub(super) trait Offer {
    fn len(&self) -> usize;
    /// Option `i`'s label (for the transcript: the chosen one's).
    fn label(&self, i: usize) -> R<String>;
    /// Every option's label and value (a map with its fields), for agents that read them.
    fn read(&self) -> R<(Vec<String>, Vec<Dynamic>)>;
}

/// Options given as an array of labels or maps (labels made by the script already).
struct Listed {
    labels: Vec<String>,
    options: Array,
}

impl Offer for Listed {
    fn len(&self) -> usize {
        self.labels.len()
    }
    fn label(&self, i: usize) -> R<String> {
        Ok(self.labels[i].clone())
    }
    fn read(&self) -> R<(Vec<String>, Vec<Dynamic>)> {
        Ok((self.labels.clone(), self.options.clone()))
    }
}

/// Ask seat `p`'s agent to pick one of `offer`'s options (a single one is taken without
/// asking), record the choice, and return its index and label.
pub(super) fn ask(p: i64, prompt: &ImmutableString, offer: &dyn Offer) -> R<(usize, String)> {
    let count = offer.len();
    // Live reload happens between choices.
    maybe_reload();
    let (player, step, reads) = with(|g| {
        let player = pl(g, p)?;
        let step = g.state.choices;
        g.state.choices += 1;
        if g.fork_hook.as_ref().is_some_and(|(at, _)| *at == step) {
            if let Some((_, hook)) = g.fork_hook.take() {
                hook(g);
            }
        }
        let reads = count > 1 && g.agents[player].as_ref().is_none_or(|a| a.reads_labels(step));
        Ok((player, step, reads))
    })?;
    // Labels and fields are made only for an agent that reads them (the game is not
    // borrowed here: an action menu's labels are script functions).
    let (labels, options) = if reads { offer.read()? } else { (Vec::new(), Vec::new()) };
    let (agent, pack, name, view, fork) = with(|g| {
        if count == 1 {
            return Ok((None, g.pack.clone(), String::new(), None, None));
        }
        let agent = g.agents[player].take().ok_or("internal: agent busy")?;
        let view = agent.wants_view().then(|| g.view(player));
        // A searching agent gets the turn's fork point and the choices made since.
        let fork = match (agent.wants_fork(), g.fork_point.take()) {
            (true, Some(fp)) => {
                let since: Vec<(u64, String)> =
                    g.choices.iter().skip(fp.choices_before).map(|c| (c.step, c.label.clone())).collect();
                Some((fp, since))
            }
            (_, fp) => {
                g.fork_point = fp;
                None
            }
        };
        Ok((Some(agent), g.pack.clone(), g.state.players[player].name.clone(), view, fork))
    })?;
    let (index, asked) = match agent {
        None => (0, false),
        Some(mut a) => {
            if let Some(v) = view {
                a.show(&v);
            }
            let req = ChoiceRequest {
                step,
                player,
                player_name: &name,
                prompt,
                count,
                labels: &labels,
                options: &options,
                pack: &pack,
                fork: fork.as_ref().map(|(fp, since)| (&**fp, since.as_slice())),
            };
            let asked_at = Instant::now();
            let r = a.choose(&req);
            not_counting(asked_at.elapsed());
            with(|g| {
                g.agents[player] = Some(a);
                if let Some((fp, _)) = fork {
                    g.fork_point.get_or_insert(fp);
                }
                Ok(())
            })?;
            match r {
                Ok(i) if i < count => (i, true),
                Ok(i) => return Err(format!("agent chose option {i} of {count}").into()),
                Err(msg) => {
                    FAILURE.with(|f| {
                        f.borrow_mut().get_or_insert_with(|| ScriptFailure::plain(msg.clone()));
                    });
                    return Err(msg.into());
                }
            }
        }
    };
    let label = match labels.get(index) {
        Some(l) => l.clone(),
        None => offer.label(index)?,
    };
    with(|g| {
        g.log(|s| {
            let who = &s.players[player].name;
            if asked {
                format!("choice {step} {who}: {prompt} -> {label}")
            } else {
                format!("choice {step} {who}: {prompt} -> {label} (only option)")
            }
        });
        g.choices.push(Choice { step, player, prompt: prompt.to_string(), label: label.clone(), asked });
        Ok(())
    })?;
    Ok((index, label))
}

impl Game {
    /// Play the game to its end: `setup()`, then `turn()` until `end_game` or the limit.
    /// (Defined here, with the interpreter, so that `game` never calls into `script`.)
    pub fn run(self) -> (Game, Outcome) {
        run_game(self)
    }
}

fn maybe_reload() {
    let hook = with(|g| Ok(g.reload.take())).ok().flatten();
    let Some(mut hook) = hook else { return };
    let new = hook();
    let _ = with(|g| {
        g.reload = Some(hook);
        if let Some(pack) = new {
            swap_pack(g, pack);
        }
        Ok(())
    });
}

/// Continue the game with a reloaded pack: card instances keep their state and take
/// their definition's new values and script. A reload that removed a definition still in
/// play is refused and logged.
pub fn swap_pack(g: &mut Game, pack: Arc<Pack>) {
    let mut map = Vec::with_capacity(g.pack.defs.len());
    for d in &g.pack.defs {
        map.push(pack.index.get(&d.def.id).map(|&i| i as u32));
    }
    let mut missing: Vec<String> = Vec::new();
    let used = g.state.cards.iter().map(|c| c.def).chain(g.state.players.iter().filter_map(|p| p.character));
    for d in used {
        if map[d as usize].is_none() {
            let id = g.pack.defs[d as usize].def.id.clone();
            if !missing.contains(&id) {
                missing.push(id);
            }
        }
    }
    if !missing.is_empty() {
        g.log(|_| {
            format!(
                "reload refused: {} removed while in play; the game keeps the previous definitions",
                missing.join(", ")
            )
        });
        return;
    }
    for c in &mut g.state.cards {
        c.def = map[c.def as usize].unwrap_or(c.def);
    }
    for p in &mut g.state.players {
        p.character = p.character.map(|d| map[d as usize].unwrap_or(d));
    }
    for plays in &mut g.plays {
        for d in plays.iter_mut() {
            *d = map[*d as usize].unwrap_or(*d);
        }
    }
    // What scripts worked out from the old definitions (globals named `cache:...`) is
    // worked out again from the new ones.
    g.state.globals.retain(|k, _| !k.starts_with(crate::game::save::CACHE_PREFIX));
    let version = pack.manifest.version.clone();
    let what = reload_changes(&g.pack, &pack);
    refresh_def_ids(&pack);
    g.pack = pack;
    g.log(|_| format!("reload: definitions and scripts reloaded (version {version}){what}"));
}

/// What a reload changed, for its transcript line: `: changed a, b; added c; removed d;
/// rules script changed` (empty when nothing did). A definition changed when its TOML or
/// its script's text did.
fn reload_changes(old: &Pack, new: &Pack) -> String {
    let script_hash = |p: &Pack, d: &crate::content::Def| d.script.map(|i| p.scripts[i].hash);
    let (mut changed, mut added) = (Vec::new(), Vec::new());
    for d in &new.defs {
        match old.index.get(&d.def.id).map(|&i| &old.defs[i]) {
            Some(o) if o.def != d.def || script_hash(old, o) != script_hash(new, d) => changed.push(d.def.id.as_str()),
            Some(_) => {}
            None => added.push(d.def.id.as_str()),
        }
    }
    let removed: Vec<&str> =
        old.defs.iter().filter(|d| !new.index.contains_key(&d.def.id)).map(|d| d.def.id.as_str()).collect();
    let mut parts = Vec::new();
    for (word, ids) in [("changed", changed), ("added", added), ("removed", removed)] {
        if !ids.is_empty() {
            parts.push(format!("{word} {}", ids.join(", ")));
        }
    }
    if old.rules_script().map(|s| s.hash) != new.rules_script().map(|s| s.hash) {
        parts.push("rules script changed".into());
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join("; "))
    }
}

/// The script index of a card (instance id) or definition (id string), if it has one.
fn target_script(g: &Game, target: &Dynamic) -> Result<Option<usize>, String> {
    let def = if let Ok(c) = target.as_int() {
        g.state.cards.get(c as usize).map(|c| c.def).ok_or_else(|| format!("no card {c}"))?
    } else {
        let id = target.to_string();
        def_idx(g, &id)?
    };
    Ok(g.pack.defs[def as usize].script)
}

/// The AST of the target's script when that script itself defines `name` (only the
/// AST handle is shared; nothing else is copied).
fn target_fn(g: &Game, target: &Dynamic, name: &str) -> Result<Option<Arc<AST>>, String> {
    Ok(target_script(g, target)?.and_then(|i| {
        let s = &g.pack.scripts[i];
        s.functions.contains(name).then(|| s.ast.clone())
    }))
}

fn enter_call() -> R<()> {
    with(|g| {
        g.call_depth += 1;
        if g.call_depth > MAX_HOST_DEPTH {
            g.call_depth -= 1;
            return Err(format!(
                "`invoke`/`fold` nested more than {MAX_HOST_DEPTH} deep (endless recursion through hooks?)"
            ));
        }
        Ok(())
    })
}

fn leave_call() {
    let _ = with(|g| {
        g.call_depth = g.call_depth.saturating_sub(1);
        Ok(())
    });
}

/// Call into another script; on failure remember the innermost located error.
fn nested_call(ast: &AST, name: &str, args: Vec<Dynamic>) -> R<Dynamic> {
    enter_call()?;
    let r = call_script_fn(ast, name, args);
    leave_call();
    r.map_err(|e| {
        let f = to_failure_in(&e, ast, Some(name));
        let msg = f.to_string();
        FAILURE.with(|slot| {
            slot.borrow_mut().get_or_insert(f);
        });
        Box::<EvalAltResult>::from(msg)
    })
}

fn invoke(target: Dynamic, name: ImmutableString, args: Array) -> R<Dynamic> {
    let Some(ast) = with(|g| target_fn(g, &target, &name))? else {
        return Ok(Dynamic::UNIT);
    };
    nested_call(&ast, &name, args)
}

fn has_fn(target: Dynamic, name: ImmutableString) -> R<bool> {
    with(|g| Ok(target_script(g, &target)?.is_some_and(|i| g.pack.scripts[i].functions.contains(name.as_str()))))
}

/// Sources whose hooks `fold` consults: each player's character, then cards in active
/// zones (bottom to top) and the cards attached under them.
fn fold_sources(g: &Game, hook: &str) -> Vec<(Arc<AST>, Dynamic)> {
    let mut out = Vec::new();
    let has = |def: u32| -> Option<Arc<AST>> {
        let si = g.pack.defs[def as usize].script?;
        let s = &g.pack.scripts[si];
        s.functions.contains(hook).then(|| s.ast.clone())
    };
    for (i, p) in g.state.players.iter().enumerate() {
        if p.out {
            continue;
        }
        if let Some(ast) = p.character.and_then(has) {
            out.push((ast, Dynamic::from(i as i64)));
        }
    }
    for z in g.state.zones.iter().filter(|z| z.active) {
        for &c in &z.cards {
            let mut stack = vec![c];
            while let Some(x) = stack.pop() {
                let card = &g.state.cards[x as usize];
                if let Some(ast) = has(card.def) {
                    out.push((ast, Dynamic::from(i64::from(x))));
                }
                stack.extend(card.attached.iter().rev().copied());
            }
        }
    }
    out
}

fn fold(hook: ImmutableString, value: Dynamic, args: Array) -> R<Dynamic> {
    let sources = with(|g| Ok(fold_sources(g, &hook)))?;
    let mut v = value;
    for (ast, source) in sources {
        let mut a = Vec::with_capacity(args.len() + 2);
        a.push(source);
        a.push(v);
        a.extend(args.iter().cloned());
        v = nested_call(&ast, &hook, a)?;
    }
    Ok(v)
}

// ---- registration ----

/// Register Crown's API on the engine.
pub fn register(e: &mut Engine) {
    players::register(e);
    turns::register(e);
    zones::register(e);
    cards::register(e);
    defs::register(e);
    board::register(e);
    game::register(e);
    table::register(e);
    menu::register(e);
}

fn move_card(c: i64, z: i64, bottom: bool) -> R<()> {
    with(|g| {
        let c = cd(g, c)?;
        let z = zn(g, z)?;
        let from = g.state.effective_zone(c);
        g.state.put_in_zone(c, z, bottom);
        g.log(|s| {
            let r = card_ref_s(s, c);
            format!("move {r} {} -> {}{}", s.zone_label(from), s.zone_label(z), if bottom { " (bottom)" } else { "" })
        });
        Ok(())
    })
}

/// Transcript name of a card without the pack (the pack is reached through the game).
fn card_ref_s(s: &crate::game::state::State, c: u32) -> String {
    // The definition id is resolved by `Game::log` callers through `card_ref`; here we
    // only have the state, so go through the current thread's pack index snapshot.
    DEF_IDS.with(|ids| {
        let ids = ids.borrow();
        match s.cards.get(c as usize) {
            Some(card) => format!("{}#{}", ids.get(card.def as usize).map_or("?", |x| x.as_str()), c),
            None => format!("?#{c}"),
        }
    })
}

thread_local! {
    /// Definition ids of the running game's pack, for transcript lines.
    static DEF_IDS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn refresh_def_ids(pack: &Pack) {
    DEF_IDS.with(|ids| {
        let mut ids = ids.borrow_mut();
        if ids.len() != pack.defs.len() || ids.iter().zip(&pack.defs).any(|(a, d)| *a != d.def.id) {
            *ids = pack.defs.iter().map(|d| d.def.id.clone()).collect();
        }
    });
}

/// Keep transcript card names in step with the game's pack; call when installing a game.
pub fn prepare(pack: &Pack) {
    refresh_def_ids(pack);
}

/// `card_ref` for callers outside scripts.
pub fn describe_card(g: &Game, c: u32) -> String {
    card_ref(&g.pack, &g.state, c)
}

/// A pack made of `files` (paths under a project root, and their text) in a temporary
/// folder, loaded, and the folder removed: the fixtures of this module's tests.
#[cfg(test)]
fn fixture_pack(tag: &str, id: &str, files: &[(&str, &str)]) -> Arc<Pack> {
    use crate::load::{load_pack, LoadOptions, Project};
    let root = std::env::temp_dir().join(format!("crown-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (rel, text) in files {
        std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
        std::fs::write(root.join(rel), text).unwrap();
    }
    let loaded = load_pack(&Project::new(&root), id, LoadOptions::default());
    let _ = std::fs::remove_dir_all(&root);
    let errors: Vec<String> = loaded.diagnostics.iter().map(|d| d.message.clone()).collect();
    Arc::new(loaded.pack.unwrap_or_else(|| panic!("the fixture `{tag}` loads: {errors:?}")))
}

#[cfg(test)]
mod cases;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_use_the_scripts_words_for_types() {
        assert_eq!(
            plain_words("Function not found: double_it (i64, ImmutableString)"),
            "Function not found: double_it (int, string)"
        );
        assert_eq!(
            plain_words("Data type incorrect: i64 (expecting &str)"),
            "Data type incorrect: int (expecting string)"
        );
        assert_eq!(plain_words("returns () not rhai::Map"), "returns nothing not map");
        assert_eq!(plain_words("ToString and i64x stay"), "ToString and i64x stay");
    }
    use crate::game::GameConfig;

    /// A one-seat game of a minimal pack (nothing run yet).
    fn tiny_game(tag: &str) -> Game {
        let pack = fixture_pack(
            tag,
            "p",
            &[
                ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
                ("scripts/p/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n"),
            ],
        );
        Game::new(pack, GameConfig::new(1, 1), vec![crate::bots::bot("first", 1, 0).unwrap()]).unwrap()
    }

    #[test]
    fn a_reload_drops_cache_globals_and_keeps_the_others() {
        let mut game = tiny_game("reload-cache");
        game.state.globals.insert("cache:fx:a".into(), Dynamic::from(1_i64));
        game.state.globals.insert("score".into(), Dynamic::from(2_i64));
        let pack = game.pack.clone();
        swap_pack(&mut game, pack);
        let keys: Vec<&String> = game.state.globals.keys().collect();
        assert_eq!(keys, ["score"]);
        // Nothing changed, so the reload line names nothing.
        let last = game.transcript.as_ref().and_then(|t| t.last()).unwrap();
        assert_eq!(last, "reload: definitions and scripts reloaded (version 1)");
    }

    #[test]
    fn a_panic_inside_a_host_call_becomes_that_calls_error() {
        let game = tiny_game("host-panic");
        let (game, r) = with_installed(game, || with(|_| -> Result<(), String> { panic!("boom") }));
        let e = r.expect_err("the panic is an error").to_string();
        assert!(e.contains("internal error in a host function") && e.contains("boom"), "{e}");
        // The game is still there, usable, and no longer borrowed.
        let (_, again) = with_installed(game, || with(|g| Ok(g.state.turn)));
        assert_eq!(again.unwrap(), 0);
    }
}
