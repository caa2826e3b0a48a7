//! Running a game: `setup()`, then `turn()` until the game ends, hits its turn limit or
//! pauses; playing a forked game on; calling the rules script's functions.

use std::panic::AssertUnwindSafe;

use rhai::Dynamic;

use super::calls::call_script_fn;
use super::failure::{locate_limit, panic_message, take_failure, to_failure_in, CATCHING, PANIC_AT};
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

/// Call a function of the rules script, if it defines it.
pub(super) fn rules_call(name: &str, args: Vec<Dynamic>) -> Result<Dynamic, ScriptFailure> {
    let ast = with(|g| {
        let s = g.pack.rules_script().ok_or("the pack has no rules script")?;
        Ok(g.pack.rules_define(name).then(|| s.ast.clone()))
    })
    .map_err(|e| ScriptFailure::plain(e.to_string()))?;
    let Some(ast) = ast else {
        return Ok(Dynamic::UNIT);
    };
    call_script_fn(&ast, name, args).map_err(|e| take_failure().unwrap_or_else(|| to_failure_in(&e, &ast, Some(name))))
}

impl Game {
    /// Play the game to its end: `setup()`, then `turn()` until `end_game` or the limit.
    /// (Defined here, with the interpreter, so that `game` never calls into `script`.)
    pub fn run(self) -> (Game, Outcome) {
        run_game(self)
    }
}
