//! Running a game: `setup()`, then `turn()` until the game ends, hits its turn limit or
//! pauses; playing a forked game on; a limit failure put at the statement that hit it, by
//! playing the game again.

use std::panic::AssertUnwindSafe;

use rhai::Dynamic;

use super::calls::{call_script_fn, rules_call};
use super::failure::{defining_script, panic_message, take_failure, to_failure_in, CATCHING, PANIC_AT};
use super::{with, with_installed};
use crate::game::{Game, Outcome, ScriptFailure, Status};

/// Play a game to its end. See [`Game::run`].
pub fn run_game(game: Game) -> (Game, Outcome) {
    let (mut game, mut status) = with_installed(game, drive);
    if let Status::Failed(f) = &mut status {
        locate_limit(&mut game, f);
    }
    let outcome = game.outcome(status);
    (game, outcome)
}

pub(super) fn drive() -> Status {
    let was_catching = CATCHING.with(|c| c.replace(true));
    PANIC_AT.with(|p| *p.borrow_mut() = None);
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<Status, ScriptFailure> {
        let has_turn = with(|g| Ok(g.pack.rules_define("turn"))).unwrap_or(false);
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
        super::invariants::check(|| "after setup".to_string())?;
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
                g.state.turns.owner = g.state.turns.current;
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
        super::invariants::check(|| "after a turn".to_string())?;
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

/// A job for a thread's fork thread.
type ForkJob = Box<dyn FnOnce() + Send>;

thread_local! {
    /// Where this thread hands jobs to its fork thread (see [`on_fork_thread`]).
    static FORK_THREAD: std::cell::RefCell<Option<std::sync::mpsc::Sender<ForkJob>>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` on this thread's fork thread and give back what it returns. A forked copy of
/// the game (a search's rollouts, a preview, the peeking audit) is played there, in that
/// thread's game slot, while this thread's slot holds the game being decided. The fork
/// thread is started on first use and kept while this thread lives: the scripts compiled
/// there for one decision stay compiled for the next (a thread started per decision
/// compiled every script the copy ran, every time). It runs on this thread's script
/// runtime. `what` names the caller in errors ("the search agent").
pub fn on_fork_thread<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let runtime = crate::script::compiled::runtime();
    let (answer, answered) = std::sync::mpsc::channel();
    let mut job: ForkJob = Box::new(move || {
        let _ = answer.send(crate::script::compiled::with_runtime(runtime, f));
    });
    FORK_THREAD.with(|slot| -> Result<(), String> {
        let mut slot = slot.borrow_mut();
        if let Some(jobs) = slot.as_ref() {
            match jobs.send(job) {
                Ok(()) => return Ok(()),
                // The thread has ended (a job panicked): start another.
                Err(std::sync::mpsc::SendError(back)) => job = back,
            }
        }
        let (jobs, queue) = std::sync::mpsc::channel::<ForkJob>();
        std::thread::Builder::new()
            .name("crown-fork".into())
            .stack_size(16 * 1024 * 1024)
            .spawn(move || queue.into_iter().for_each(|job| job()))
            .map_err(|e| format!("{what} could not start its thread: {e}"))?;
        jobs.send(job).map_err(|_| format!("{what}'s thread ended before it started"))?;
        *slot = Some(jobs);
        Ok(())
    })?;
    answered.recv().map_err(|_| format!("{what}'s thread panicked"))
}

/// Call an optional rules function while a game is installed (`None` when the rules do
/// not define it).
pub fn call_rules_fn(name: &str, args: Vec<Dynamic>) -> Option<Result<Dynamic, ScriptFailure>> {
    let defined = with(|g| Ok(g.pack.rules_define(name))).unwrap_or(false);
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

/// Call a bot hook (`evaluate`...): the bots' script's function, else the rules'; `None`
/// when neither defines it.
pub fn call_bot_fn(name: &str, args: Vec<Dynamic>) -> Option<Result<Dynamic, ScriptFailure>> {
    let ast = with(|g| Ok(g.pack.bot_hook(name).map(|s| s.ast.clone()))).ok().flatten()?;
    Some(
        call_script_fn(&ast, name, args)
            .map_err(|e| take_failure().unwrap_or_else(|| to_failure_in(&e, &ast, Some(name)))),
    )
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
/// seed with its choices, noting statements (see [`crate::script::locate`]).
pub(super) fn locate_limit(game: &mut Game, f: &mut ScriptFailure) {
    if !hit_a_limit(f) || crate::script::locate::active() {
        return;
    }
    let Some(mut cfg) = game.started.clone() else { return };
    cfg.transcript = false;
    let seats = game.state.players.len();
    let file = crate::game::record::GameFile::from_game(game, vec!["human".to_string(); seats], String::new());
    let Ok(again) = Game::new(game.pack.clone(), cfg, file.scripted_agents()) else { return };
    let ((_, status), at) = crate::script::locate::last_statement(|| with_installed(again, drive));
    if let (Status::Failed(f2), Some(at)) = (status, at) {
        // Only the same failure is located (a pack reloaded mid-game may differ).
        if f2.message == f.message {
            let logged = format!("error: {f}");
            // A rules function run from a card script carries the card script's name.
            let script = defining_script(&game.pack, &at.source, &at.function).unwrap_or(at.source);
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

impl Game {
    /// Play the game to its end: `setup()`, then `turn()` until `end_game` or the limit.
    /// (Defined here, with the interpreter, so that `game` never calls into `script`.)
    pub fn run(self) -> (Game, Outcome) {
        run_game(self)
    }
}
