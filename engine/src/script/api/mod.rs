//! The functions scripts call, and how games run them.
//!
//! While a game runs, it sits in a thread-local slot; host functions borrow it for the
//! length of one call and never hold the borrow while a script or an agent runs. The
//! game is therefore implicit in scripts: `draw(zone("deck"), pzone(p, "hand"))`.
//!
//! Each host function is documented where it is registered: under a section of the
//! reference (`e.section("Players")`), with its signature as a designer writes a call and
//! what it does, `e.register_fn("player_name(p)", "The seat's name ...", |p: i64| ...)`.
//! `docs/script-api.md` is generated from the registrations (see [`super::docs`]).
//!
//! This file holds the current game, registration and the helpers every host function
//! uses; the rest is split by job: `run` (playing a game), `meter` (script time and
//! memory), `failure` (errors and their messages), `args` (argument checks), `choices`
//! (`choose` and asking agents), `calls` (calls into scripts, `invoke`/`fold`),
//! `invariants` (the pack's own checks, run while a game is played) and `reload` (live
//! pack reloading). The other files register the host functions by topic; `choices` and
//! `calls` register the ones they define.

use std::cell::RefCell;
use std::panic::AssertUnwindSafe;

use rhai::{Array, Dynamic, EvalAltResult, ImmutableString, Map};

use crate::content::model::StagePosition;
use crate::content::{DefKind, Pack};
use crate::game::state::{Piece, NO_ZONE};
use crate::game::{card_ref, scalar_to_dynamic, Game};
use crate::script::compiled::{memo, Registrar};

mod args;
mod board;
mod calls;
mod cards;
mod choices;
mod defs;
mod failure;
mod game;
pub mod invariants;
mod lists;
mod menu;
pub(crate) use self::menu::offers_something;
mod meter;
mod players;
mod reload;
mod run;
mod table;
mod tiles;
mod turns;
mod zones;

// What the files of this module share (the host-function files reach it through
// `use super::*`), and the public paths callers outside use.
use self::args::{
    back_up, card_has_keyword, card_value, cd, def_idx, ints, pc, pl, sp, stage_of, strict_value, zn, zone_visibility,
};
pub use self::calls::{call_script_fn, call_script_fn_lending};
use self::calls::{nested_call, target_fn};
pub(super) use self::choices::{ask, Offer};
pub use self::defs::PREPARE_HOOK;
pub use self::failure::{note_caught_panic, note_failure, panic_is_caught, plain_words, to_failure, to_failure_in};
use self::failure::{panic_message, FAILURE};
pub use self::meter::game_ops;
#[cfg(test)]
pub(crate) use self::meter::reset_game_ops;
use self::meter::GAME_OPS;
pub(crate) use self::meter::{clock_looks_pass, progress, report_call_ops, swap_call_ops, CLOCK_EVERY, METER_EVERY};
pub use self::reload::swap_pack;
pub use self::run::{call_bot_fn, call_rules_fn, on_fork_thread, play_fork, run_game};
pub use self::table::{count_words, sentence};

type R<T> = Result<T, Box<EvalAltResult>>;

thread_local! {
    /// The game being played on this thread (see [`with_installed`]).
    static CURRENT: RefCell<Option<Game>> = const { RefCell::new(None) };
}

/// Borrow the running game for one host call.
///
/// A panic inside the call becomes the script error of that call, so the game fails with
/// the script position of the call that set it off (and the process goes on).
///
/// A call through here may change the game: the compiled tier forgets the answers it kept
/// from the game's state (host functions that only look use [`read`] or [`settled`]).
fn with<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    memo::changed();
    borrow_mut(f)
}

/// Tell something (a line of narration) that no script can read back: the game's state
/// is unchanged, so answers built on it still hold.
fn tell<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    memo::told();
    borrow_mut(f)
}

/// Whether text made now would go unread: the game keeps no transcript and no one listens
/// to it, and (for a choice's prompt, `seat` given) that seat's agent does not read
/// prompts. The compiled tier then does not make narration (`log`, `log_to`) or such a
/// prompt, so text no one reads costs nothing; where anything reads it, it is made as
/// always. Without a game (a script run alone) everything counts as read.
pub(crate) fn nobody_reads(seat: Option<&Dynamic>) -> bool {
    CURRENT.with(|c| {
        let Ok(g) = c.try_borrow() else { return false };
        let Some(g) = g.as_ref() else { return false };
        if g.transcript.is_some() || g.listener.is_some() {
            return false;
        }
        let Some(seat) = seat else { return true };
        match seat.as_int().ok().and_then(|p| usize::try_from(p).ok()).and_then(|p| g.agents.get(p)) {
            Some(Some(a)) => !a.reads_prompt(&g.pack, g.state.choices),
            _ => false,
        }
    })
}

/// Read the pieces on the board through their index by space and owner, brought up to
/// date first (keeping an index is no change to the game: answers built on the state
/// still hold). An answer built on pieces lasts until a piece changes ([`with_pieces`]).
fn read_pieces<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    memo::read_pieces();
    borrow_mut(|g| {
        g.state.index_pieces();
        f(g)
    })
}

/// Change a number on a space (`set_space_value`, `add_space_value`): as [`with`], and
/// answers built on [`read_values`] end too.
fn with_values<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    memo::values_changed();
    borrow_mut(f)
}

/// Look at the numbers on spaces, nothing else of the game: an answer built on such reads
/// (and on the layout) is kept until a number changes ([`with_values`]) or the layout does.
fn read_values<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    memo::read_values();
    look(f)
}

/// Look at how the board is laid out and at the numbers on its spaces (regions summed by
/// a value): as [`read_layout`] and [`read_values`] together.
fn read_layout_and_values<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    memo::read_values();
    read_layout(f)
}

/// Change the pieces on the board: place, move, return one, give it an owner or a value.
/// Every host function that changes a piece comes here.
fn with_pieces<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    memo::pieces_changed();
    borrow_mut(f)
}

fn borrow_mut<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    CURRENT.with(|c| {
        let mut b = c.try_borrow_mut().map_err(|_| Box::<EvalAltResult>::from("internal: game busy"))?;
        let g = b.as_mut().ok_or_else(|| Box::<EvalAltResult>::from("no game is running"))?;
        match std::panic::catch_unwind(AssertUnwindSafe(|| f(g))) {
            Ok(r) => r.map_err(Into::into),
            Err(panic) => Err(panic_message(panic.as_ref(), "in a host function").into()),
        }
    })
}

/// Look at the running game for one host call that changes nothing: what it reads is the
/// game's state, so a script function's answer built on it is kept only until the game
/// next changes (see `compiled/memo.rs`).
fn read<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    memo::read_state();
    look(f)
}

/// Change what a card shows (its side, stage, stickers, marks, whether it is face up) or
/// make a card: as [`with`], and answers built on [`read_faces`] end too.
fn with_faces<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    memo::faces_changed();
    with(f)
}

/// Change how the board is laid out (a space's attributes: a tile laid): as [`with`], and
/// answers built on [`read_layout`] end too.
fn with_layout<T>(f: impl FnOnce(&mut Game) -> Result<T, String>) -> R<T> {
    memo::layout_changed();
    with(f)
}

/// Look at how the board is laid out (its spaces, their ids, names, links and attributes),
/// nothing of what stands on it: an answer built on such reads is kept until the layout
/// changes ([`with_layout`]), however the pieces move and the numbers on spaces change.
fn read_layout<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    memo::read_layout();
    look(f)
}

/// Look at how the board is laid out and at a card (a tile's squares, to lay it): as
/// [`read_layout`] and [`read_faces`] together.
fn read_layout_and_faces<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    memo::read_faces();
    read_layout(f)
}

/// Look at what cards show (their definition, side or stage, stickers, marks, whether
/// face up), nothing of where they are: an answer built on such reads is kept until a
/// card's face changes ([`with_faces`]), however the cards move.
fn read_faces<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    memo::read_faces();
    look(f)
}

/// Look at what stays the same for the whole game (the pack's definitions, the game's
/// settings and its seats): a script function's answer built only on such reads is kept
/// for the game.
fn settled<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    look(f)
}

fn look<T>(f: impl FnOnce(&Game) -> Result<T, String>) -> R<T> {
    CURRENT.with(|c| {
        let b = c.try_borrow().map_err(|_| Box::<EvalAltResult>::from("internal: game busy"))?;
        let g = b.as_ref().ok_or_else(|| Box::<EvalAltResult>::from("no game is running"))?;
        match std::panic::catch_unwind(AssertUnwindSafe(|| f(g))) {
            Ok(r) => r.map_err(Into::into),
            Err(panic) => Err(panic_message(panic.as_ref(), "in a host function").into()),
        }
    })
}

/// Run `f` with the game installed as the current one, then take it back.
pub fn with_installed<T>(game: Game, f: impl FnOnce() -> T) -> (Game, T) {
    refresh_def_ids(&game.pack);
    memo::new_game();
    GAME_OPS.with(|g| g.set(0));
    CURRENT.with(|c| *c.borrow_mut() = Some(game));
    FAILURE.with(|f| *f.borrow_mut() = None);
    let out = f();
    let game = CURRENT.with(|c| c.borrow_mut().take()).expect("game installed");
    memo::new_game();
    (game, out)
}

/// Read the game being played on this thread, if one is installed and not borrowed:
/// an agent deciding for a seat (a person at the terminal or in the browser) may look at
/// the table this way while the game waits for its decision.
pub fn with_game<T>(f: impl FnOnce(&Game) -> T) -> Option<T> {
    CURRENT.with(|c| c.try_borrow().ok().and_then(|b| b.as_ref().map(f)))
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

// ---- registration ----

/// Register Crown's API on the engine (through `e`, which also keeps each function for
/// the compiled tier and its documentation for the reference). The reference lists the
/// functions of a section in the order registered here.
pub fn register(e: &mut Registrar) {
    players::register(e);
    turns::register(e);
    zones::register(e);
    cards::register(e);
    defs::register(e);
    board::register(e);
    tiles::register(e);
    choices::register(e);
    menu::register(e);
    calls::register(e);
    game::register(e);
    table::register(e);
    lists::register(e);
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
pub(crate) fn fixture_pack(tag: &str, id: &str, files: &[(&str, &str)]) -> std::sync::Arc<Pack> {
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
    std::sync::Arc::new(loaded.pack.unwrap_or_else(|| panic!("the fixture `{tag}` loads: {errors:?}")))
}

/// A one-seat game of a minimal pack (nothing run yet), for this module's tests.
#[cfg(test)]
fn tiny_game(tag: &str) -> Game {
    let pack = fixture_pack(
        tag,
        "p",
        &[
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            ("scripts/p/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n"),
        ],
    );
    Game::new(pack, crate::game::GameConfig::new(1, 1), vec![Box::new(crate::game::agent::FirstAgent)]).unwrap()
}

#[cfg(test)]
mod cases;
#[cfg(test)]
pub(crate) use self::cases::fixture_game;
#[cfg(test)]
mod cases_board;

#[cfg(test)]
mod tests {
    use super::*;

    /// The greedy bot reads a prompt only where its hooks read their `prompt` parameter,
    /// and nothing without `greedy_score` (it then plays at random).
    #[test]
    fn the_greedy_bot_reads_prompts_only_where_its_hooks_do() {
        use crate::game::agent::Agent;
        let reads = |tag: &str, bots: &str| {
            let pack = fixture_pack(
                tag,
                "p",
                &[
                    (
                        "content/p/pack.toml",
                        "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n",
                    ),
                    ("scripts/p/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n"),
                    ("scripts/p/bots.rhai", bots),
                ],
            );
            crate::bots::greedy::GreedyAgent::new(1, 0).reads_prompt(&pack, 0)
        };
        assert!(!reads("greedy-none", "fn greedy_score(p, prompt, o) { 1 }\n"));
        assert!(reads("greedy-score", "fn greedy_score(p, prompt, o) { prompt.len() }\n"));
        assert!(reads(
            "greedy-plan",
            "fn greedy_plan(p, prompt, os) { prompt }\nfn greedy_score(p, prompt, o, plan) { plan.len() }\n"
        ));
        assert!(!reads("greedy-plan-only", "fn greedy_plan(p, prompt, os) { prompt }\nfn evaluate(p) { 0 }\n"));
    }

    #[test]
    fn the_greedy_bot_makes_menu_labels_only_where_a_script_reads_them() {
        // Option 1's label cannot be made: a game fails only where something makes it.
        let play = |tag: &str, score: &str| {
            let rules = "fn setup() {}\n\
                         fn turn() {\n\
                           let m = menu();\n\
                           for n in 0..3 { m.add(\"pick\", |o| if o.n == 1 { throw \"label made\" } else { `Pick ${o.n}` }, #{ n: n }); }\n\
                           let o = choose(0, \"Pick\", m);\n\
                           end_game([0], `picked ${o.n}`);\n\
                         }\n";
            let pack = fixture_pack(
                tag,
                "p",
                &[
                    (
                        "content/p/pack.toml",
                        "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n",
                    ),
                    ("scripts/p/rules.rhai", rules),
                    ("scripts/p/bots.rhai", score),
                ],
            );
            let mut cfg = crate::game::GameConfig::new(1, 1);
            cfg.transcript = false;
            let agent: Box<dyn crate::game::agent::Agent> = Box::new(crate::bots::greedy::GreedyAgent::new(1, 0));
            Game::new(pack, cfg, vec![agent]).unwrap().run().1.status
        };
        let fields = play("greedy-fields", "fn greedy_score(p, prompt, o) { if o.n == 2 { 1 } else { 0 } }\n");
        assert!(matches!(fields, crate::game::Status::Finished), "{fields:?}");
        let text = play("greedy-text", "fn greedy_score(p, prompt, o) { o.label.len() }\n");
        let crate::game::Status::Failed(f) = text else { panic!("the labels were not made: {text:?}") };
        assert!(f.message.contains("label made"), "{}", f.message);
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
