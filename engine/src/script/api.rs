//! The functions scripts call, and how games run them.
//!
//! While a game runs, it sits in a thread-local slot; host functions borrow it for the
//! length of one call and never hold the borrow while a script or an agent runs. The
//! game is therefore implicit in scripts: `draw(zone("deck"), pzone(p, "hand"))`.
//! Each function here is listed in [`super::docs::API`], from which
//! `docs/script-api.md` is generated.

use std::cell::RefCell;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use rhai::{Array, CallFnOptions, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Scope, AST};

use crate::content::model::StagePosition;
use crate::content::{DefKind, Pack};
use crate::game::agent::ChoiceRequest;
use crate::game::state::{Piece, Visibility, NO_ZONE};
use crate::game::{card_ref, scalar_to_dynamic, Choice, Game, Outcome, ScriptFailure, Status};

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
    CURRENT.with(|c| *c.borrow_mut() = Some(game));
    FAILURE.with(|f| *f.borrow_mut() = None);
    let out = f();
    let game = CURRENT.with(|c| c.borrow_mut().take()).expect("game installed");
    (game, out)
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
                message: "the rules script defines no `turn()` function".into(),
                script: rules_path(),
                line: 0,
                column: 0,
                definitions: Vec::new(),
                trace: Vec::new(),
            });
        }
        let _ = rules_call("setup", Vec::new())?;
        loop {
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
                Ok((false, false))
            })
            .map_err(|e| plain_failure(e.to_string()))?;
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
            let _ = rules_call("turn", Vec::new())?;
            let paused = with(|g| {
                let p = g.pause_at_checkpoint && g.at_checkpoint && g.over.is_none();
                g.at_checkpoint = false;
                if p {
                    g.log(|_| "paused at a checkpoint".to_string());
                }
                Ok(p)
            })
            .map_err(|e| plain_failure(e.to_string()))?;
            if paused {
                return Ok(Status::Paused);
            }
        }
    }));
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
        Err(panic) => Status::Failed(plain_failure(panic_message(panic.as_ref(), "outside the scripts"))),
    }
}

fn plain_failure(message: String) -> ScriptFailure {
    ScriptFailure { message, script: None, line: 0, column: 0, definitions: Vec::new(), trace: Vec::new() }
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
    .map_err(|e| plain_failure(e.to_string()))?;
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
    let r = super::engine().call_fn_with_options::<Dynamic>(opts, &mut scope, ast, name, args);
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
        if trace.last().map(String::as_str) != Some(name.as_str()) {
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
    let base = match (stage_of(g, c), back_up(g, c)) {
        (Some(st), _) => st.values.get(k).copied(),
        (None, Some(b)) => b.values.get(k).copied(),
        (None, None) => g.pack.defs[card.def as usize].def.values.get(k).copied(),
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
    match (stage_of(g, c), back_up(g, c)) {
        (Some(st), _) => st.position.as_str(),
        (None, Some(_)) => "back",
        (None, None) => "front",
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
    // Live reload happens between choices.
    maybe_reload();
    let (player, step, agent, pack, name, view) = with(|g| {
        let player = pl(g, p)?;
        let step = g.state.choices;
        g.state.choices += 1;
        if labels.len() == 1 {
            return Ok((player, step, None, g.pack.clone(), String::new(), None));
        }
        let agent = g.agents[player].take().ok_or("internal: agent busy")?;
        let view = agent.wants_view().then(|| g.view(player));
        Ok((player, step, Some(agent), g.pack.clone(), g.state.players[player].name.clone(), view))
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
                prompt: &prompt,
                labels: &labels,
                options: &options,
                pack: &pack,
            };
            let r = a.choose(&req);
            with(|g| {
                g.agents[player] = Some(a);
                Ok(())
            })?;
            match r {
                Ok(i) if i < labels.len() => (i, true),
                Ok(i) => return Err(format!("agent chose option {i} of {}", labels.len()).into()),
                Err(msg) => {
                    FAILURE.with(|f| {
                        f.borrow_mut().get_or_insert_with(|| plain_failure(msg.clone()));
                    });
                    return Err(msg.into());
                }
            }
        }
    };
    let label = labels[index].clone();
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
    Ok(options[index].clone())
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
    register_players(e);
    register_zones(e);
    register_cards(e);
    register_defs(e);
    register_board(e);
    register_game(e);
}

fn register_players(e: &mut Engine) {
    e.register_fn("players", || with(|g| Ok(g.state.players.len() as i64)));
    e.register_fn("player_name", |p: i64| with(|g| Ok(g.state.players[pl(g, p)?].name.clone())));
    e.register_fn("character", |p: i64| {
        with(|g| {
            let p = pl(g, p)?;
            Ok(g.state.players[p].character.map_or(String::new(), |d| g.pack.defs[d as usize].def.id.clone()))
        })
    });
    e.register_fn("set_character", |p: i64, id: ImmutableString| {
        with(|g| {
            let p = pl(g, p)?;
            let d = def_idx(g, &id)?;
            if !g.pack.defs[d as usize].kind.is_character() {
                return Err(format!("`{id}` is not a noble or leader"));
            }
            g.state.players[p].character = Some(d);
            g.log(|s| format!("{} is {id}", s.players[p].name));
            Ok(())
        })
    });
    e.register_fn("counter", |p: i64, k: ImmutableString| {
        with(|g| Ok(g.state.players[pl(g, p)?].counters.get(k.as_str()).copied().unwrap_or(0)))
    });
    e.register_fn("set_counter", |p: i64, k: ImmutableString, v: i64| set_counter(p, &k, |_| v));
    e.register_fn("add_counter", |p: i64, k: ImmutableString, d: i64| set_counter(p, &k, |old| old.saturating_add(d)));
    e.register_fn("hide_counter", |p: i64, k: ImmutableString| {
        with(|g| {
            let p = pl(g, p)?;
            let h = &mut g.state.players[p].hidden;
            if !h.iter().any(|x| x == k.as_str()) {
                h.push(k.to_string());
            }
            Ok(())
        })
    });
    e.register_fn("eliminate", |p: i64| {
        with(|g| {
            let p = pl(g, p)?;
            if !g.state.players[p].out {
                g.state.players[p].out = true;
                g.log(|s| format!("{} is out of the game", s.players[p].name));
            }
            Ok(())
        })
    });
    e.register_fn("restore", |p: i64| {
        with(|g| {
            let p = pl(g, p)?;
            g.state.players[p].out = false;
            g.log(|s| format!("{} is back in the game", s.players[p].name));
            Ok(())
        })
    });
    e.register_fn("is_out", |p: i64| with(|g| Ok(g.state.players[pl(g, p)?].out)));
    e.register_fn("alive", || {
        with(|g| {
            Ok(g.state
                .players
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.out)
                .map(|(i, _)| Dynamic::from(i as i64))
                .collect::<Array>())
        })
    });
    e.register_fn("alive_after", |p: i64| {
        with(|g| {
            let start = pl(g, p)?;
            let n = g.state.players.len();
            Ok((1..n)
                .map(|k| (start + k) % n)
                .filter(|&q| !g.state.players[q].out)
                .map(|q| Dynamic::from(q as i64))
                .collect::<Array>())
        })
    });
    e.register_fn("set_score", |p: i64, v: i64| {
        with(|g| {
            let p = pl(g, p)?;
            g.state.players[p].score = v;
            g.log(|s| format!("score {} = {v}", s.players[p].name));
            Ok(())
        })
    });
    e.register_fn("score", |p: i64| with(|g| Ok(g.state.players[pl(g, p)?].score)));
}

fn set_counter(p: i64, k: &str, f: impl FnOnce(i64) -> i64) -> R<i64> {
    with(|g| {
        let p = pl(g, p)?;
        let old = g.state.players[p].counters.get(k).copied().unwrap_or(0);
        let new = f(old);
        if new != old {
            g.state.players[p].counters.insert(k.to_string(), new);
            g.log(|s| format!("{} {k} {old} -> {new}", s.players[p].name));
        }
        Ok(new)
    })
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

fn register_zones(e: &mut Engine) {
    e.register_fn("zone", |name: ImmutableString| with(|g| Ok(i64::from(g.state.zone_id(None, &name)))));
    e.register_fn("pzone", |p: i64, name: ImmutableString| {
        with(|g| {
            let p = pl(g, p)?;
            Ok(i64::from(g.state.zone_id(Some(p as u8), &name)))
        })
    });
    e.register_fn("cards", |z: i64| {
        with(|g| {
            Ok(g.state.zones[zn(g, z)? as usize]
                .cards
                .iter()
                .rev()
                .map(|&c| Dynamic::from(i64::from(c)))
                .collect::<Array>())
        })
    });
    e.register_fn("cards_up", |z: i64| {
        with(|g| {
            Ok(g.state.zones[zn(g, z)? as usize].cards.iter().map(|&c| Dynamic::from(i64::from(c))).collect::<Array>())
        })
    });
    e.register_fn("count", |z: i64| with(|g| Ok(g.state.zones[zn(g, z)? as usize].cards.len() as i64)));
    e.register_fn("top", |z: i64| {
        with(|g| Ok(g.state.zones[zn(g, z)? as usize].cards.last().map_or(-1, |&c| i64::from(c))))
    });
    e.register_fn("bottom", |z: i64| {
        with(|g| Ok(g.state.zones[zn(g, z)? as usize].cards.first().map_or(-1, |&c| i64::from(c))))
    });
    e.register_fn("move_card", |c: i64, z: i64| move_card(c, z, false));
    e.register_fn("move_bottom", |c: i64, z: i64| move_card(c, z, true));
    e.register_fn("draw", |from: i64, to: i64| -> R<i64> {
        let top = with(|g| Ok(g.state.zones[zn(g, from)? as usize].cards.last().map_or(-1, |&c| i64::from(c))))?;
        if top >= 0 {
            move_card(top, to, false)?;
        }
        Ok(top)
    });
    e.register_fn("shuffle", |z: i64| {
        with(|g| {
            let z = zn(g, z)?;
            let mut cards = std::mem::take(&mut g.state.zones[z as usize].cards);
            g.state.rng.shuffle(&mut cards);
            let n = cards.len();
            g.state.zones[z as usize].cards = cards;
            g.log(|s| format!("shuffle {} ({n} cards)", s.zone_label(z)));
            Ok(())
        })
    });
    e.register_fn("zone_of", |c: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let z = g.state.effective_zone(c);
            Ok(if z == NO_ZONE { -1 } else { i64::from(z) })
        })
    });
    e.register_fn("zone_name", |z: i64| with(|g| Ok(g.state.zones[zn(g, z)? as usize].name.clone())));
    e.register_fn("zone_owner", |z: i64| with(|g| Ok(g.state.zones[zn(g, z)? as usize].owner.map_or(-1, i64::from))));
    e.register_fn("set_active", |z: i64, on: bool| {
        with(|g| {
            let z = zn(g, z)?;
            g.state.zones[z as usize].active = on;
            Ok(())
        })
    });
    e.register_fn("set_visibility", |z: i64, v: ImmutableString| {
        with(|g| {
            let z = zn(g, z)?;
            g.state.zones[z as usize].visibility = zone_visibility(&v)?;
            Ok(())
        })
    });
    e.register_fn("find_in", |z: i64, id: ImmutableString| {
        with(|g| {
            let z = zn(g, z)?;
            let d = def_idx(g, &id)?;
            Ok(g.state.zones[z as usize]
                .cards
                .iter()
                .rev()
                .find(|&&c| g.state.cards[c as usize].def == d)
                .map_or(-1, |&c| i64::from(c)))
        })
    });
    e.register_fn("remove_card", |c: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let from = g.state.effective_zone(c);
            g.state.detach_from_place(c);
            g.log(|s| format!("remove {} from {} (out of the game)", card_ref_s(s, c), s.zone_label(from)));
            Ok(())
        })
    });
}

fn register_cards(e: &mut Engine) {
    e.register_fn("def_of", |c: i64| {
        with(|g| Ok(g.pack.defs[g.state.cards[cd(g, c)? as usize].def as usize].def.id.clone()))
    });
    e.register_fn("distinct_defs", |cs: Array| {
        with(|g| {
            let mut seen: Vec<u32> = Vec::with_capacity(cs.len());
            let mut out = Array::with_capacity(cs.len());
            for x in cs {
                let c = x.as_int().map_err(|t| format!("distinct_defs expects card ids, not {t}"))?;
                let def = g.state.cards[cd(g, c)? as usize].def;
                if !seen.contains(&def) {
                    seen.push(def);
                    out.push(x);
                }
            }
            Ok(out)
        })
    });
    e.register_fn("name_of", |c: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
            Ok(match (stage_of(g, c), back_up(g, c)) {
                (Some(s), _) => s.name.clone(),
                (None, Some(b)) if !b.name.is_empty() => b.name.clone(),
                _ => d.name.clone(),
            })
        })
    });
    e.register_fn("kind_of", |c: i64| {
        with(|g| Ok(g.pack.defs[g.state.cards[cd(g, c)? as usize].def as usize].def.kind.clone()))
    });
    e.register_fn("has_keyword", |c: i64, k: ImmutableString| {
        with(|g| {
            let c = cd(g, c)?;
            Ok(card_has_keyword(g, c, &k))
        })
    });
    e.register_fn("with_keyword", |cs: Array, k: ImmutableString| {
        with(|g| {
            let mut out = Array::new();
            for x in cs {
                let c = x.as_int().map_err(|t| format!("with_keyword expects card ids, not {t}"))?;
                if card_has_keyword(g, cd(g, c)?, &k) {
                    out.push(x);
                }
            }
            Ok(out)
        })
    });
    e.register_fn("value", |c: i64, k: ImmutableString| with(|g| strict_value(g, cd(g, c)?, &k)));
    e.register_fn("value_or", |c: i64, k: ImmutableString, d: i64| {
        with(|g| Ok(card_value(g, cd(g, c)?, &k).unwrap_or(d)))
    });
    e.register_fn("attr", |c: i64, k: ImmutableString| {
        with(|g| {
            let c = cd(g, c)?;
            if let Some(v) = stage_of(g, c).and_then(|s| s.attrs.get(k.as_str())) {
                return Ok(v.clone());
            }
            if let Some(v) = back_up(g, c).and_then(|b| b.attrs.get(k.as_str())) {
                return Ok(v.clone());
            }
            Ok(g.pack.defs[g.state.cards[c as usize].def as usize]
                .def
                .attrs
                .get(k.as_str())
                .cloned()
                .unwrap_or_default())
        })
    });
    e.register_fn("mark", |c: i64, k: ImmutableString| {
        with(|g| Ok(g.state.cards[cd(g, c)? as usize].marks.get(k.as_str()).copied().unwrap_or(0)))
    });
    e.register_fn("set_mark", |c: i64, k: ImmutableString, v: i64| set_mark(c, &k, |_| v));
    e.register_fn("add_mark", |c: i64, k: ImmutableString, d: i64| set_mark(c, &k, |o| o.saturating_add(d)));
    e.register_fn("attach", |c: i64, host: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let h = cd(g, host)?;
            if c == h {
                return Err("a card cannot be attached to itself".into());
            }
            let mut x = h;
            for _ in 0..64 {
                match g.state.cards[x as usize].host {
                    Some(up) if up == c => return Err("attaching would make a loop of cards".into()),
                    Some(up) => x = up,
                    None => break,
                }
            }
            let from = g.state.effective_zone(c);
            g.state.detach_from_place(c);
            g.state.cards[c as usize].host = Some(h);
            g.state.cards[h as usize].attached.push(c);
            let owner = g.state.cards[h as usize].owner;
            g.state.cards[c as usize].owner = owner;
            g.log(|s| format!("attach {} under {} (from {})", card_ref_s(s, c), card_ref_s(s, h), s.zone_label(from)));
            Ok(())
        })
    });
    e.register_fn("attached", |c: i64| with(|g| Ok(ints(g.state.cards[cd(g, c)? as usize].attached.clone()))));
    e.register_fn("host_of", |c: i64| with(|g| Ok(g.state.cards[cd(g, c)? as usize].host.map_or(-1, i64::from))));
    e.register_fn("owner_of", |c: i64| with(|g| Ok(g.state.cards[cd(g, c)? as usize].owner.map_or(-1, i64::from))));
    e.register_fn("set_owner", |c: i64, p: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let o = if p < 0 { None } else { Some(pl(g, p)? as u8) };
            g.state.cards[c as usize].owner = o;
            Ok(())
        })
    });
    e.register_fn("side", |c: i64| {
        with(|g| {
            let c = cd(g, c)?;
            Ok(if back_up(g, c).is_some() { "back" } else { "front" }.to_string())
        })
    });
    e.register_fn("set_side", |c: i64, side: ImmutableString| {
        with(|g| {
            let c = cd(g, c)?;
            let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
            if !d.stages.is_empty() {
                return Err(format!("`{}` has stages: turn it with `set_stage`", d.id));
            }
            if d.back.is_none() {
                return Err(format!("`{}` has no back face (a `back` table in its definition)", d.id));
            }
            let to = match side.as_str() {
                "front" => StagePosition::FrontTop,
                "back" => StagePosition::BackTop,
                _ => return Err(format!("`{side}` is not a side (front or back)")),
            };
            if g.state.cards[c as usize].stage != to {
                g.state.cards[c as usize].stage = to;
                g.log(|s| format!("turn over {}: {side} side up", card_ref_s(s, c)));
            }
            Ok(())
        })
    });
    e.register_fn("face_up", |c: i64| with(|g| Ok(g.state.cards[cd(g, c)? as usize].face_up)));
    e.register_fn("set_face_up", |c: i64, up: bool| {
        with(|g| {
            let c = cd(g, c)?;
            if g.state.cards[c as usize].face_up != up {
                g.state.cards[c as usize].face_up = up;
                g.log(|s| format!("turn {} face {}", card_ref_s(s, c), if up { "up" } else { "down" }));
            }
            Ok(())
        })
    });
    e.register_fn("stage", |c: i64| with(|g| Ok(g.state.cards[cd(g, c)? as usize].stage.as_str().to_string())));
    e.register_fn("set_stage", |c: i64, pos: ImmutableString| {
        with(|g| {
            let c = cd(g, c)?;
            let to = StagePosition::parse(&pos)
                .ok_or_else(|| format!("`{pos}` is not a stage (front-top, front-bottom, back-top, back-bottom)"))?;
            let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
            if !d.stages.iter().any(|s| s.position == to) {
                return Err(format!("`{}` has no stage `{pos}`", d.id));
            }
            let from = g.state.cards[c as usize].stage;
            if from != to {
                g.state.cards[c as usize].stage = to;
                let how = from.turn_to(to);
                g.log(|s| format!("{how} {} {} -> {}", card_ref_s(s, c), from.as_str(), to.as_str()));
            }
            Ok(from.turn_to(to).to_string())
        })
    });
    e.register_fn("stages", |c: i64| {
        with(|g| {
            let d = &g.pack.defs[g.state.cards[cd(g, c)? as usize].def as usize].def;
            Ok(d.stages.iter().map(|s| Dynamic::from(s.position.as_str().to_string())).collect::<Array>())
        })
    });
    e.register_fn("upgrades", |c: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let from = g.state.cards[c as usize].stage;
            let Some(st) = stage_of(g, c) else {
                return Ok(Array::new());
            };
            Ok(st
                .upgrades
                .iter()
                .map(|u| {
                    let mut m = Map::new();
                    m.insert("to".into(), Dynamic::from(u.to.as_str().to_string()));
                    m.insert("turn".into(), Dynamic::from(from.turn_to(u.to).to_string()));
                    let cost: Map = u.cost.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect();
                    m.insert("cost".into(), Dynamic::from(cost));
                    Dynamic::from(m)
                })
                .collect::<Array>())
        })
    });
    e.register_fn("checkboxes", |c: i64| {
        with(|g| {
            Ok(stage_of(g, cd(g, c)?)
                .map(|s| s.checkboxes.iter().map(|x| Dynamic::from(x.clone())).collect::<Array>())
                .unwrap_or_default())
        })
    });
    e.register_fn("add_sticker", |c: i64, s: ImmutableString| {
        with(|g| {
            let c = cd(g, c)?;
            g.state.cards[c as usize].stickers.push(s.to_string());
            g.log(|st| format!("sticker {s} on {}", card_ref_s(st, c)));
            Ok(())
        })
    });
    e.register_fn("stickers", |c: i64| {
        with(|g| {
            Ok(g.state.cards[cd(g, c)? as usize].stickers.iter().map(|s| Dynamic::from(s.clone())).collect::<Array>())
        })
    });
    e.register_fn("create_card", |id: ImmutableString, z: i64| {
        with(|g| {
            let d = def_idx(g, &id)?;
            let z = zn(g, z)?;
            let c = g.create_card(d, z);
            g.log(|s| format!("create {} in {}", card_ref_s(s, c), s.zone_label(z)));
            Ok(i64::from(c))
        })
    });
    e.register_fn("create_cards", |id: ImmutableString, n: i64, z: i64| {
        with(|g| {
            let d = def_idx(g, &id)?;
            let z = zn(g, z)?;
            if !(0..=10_000).contains(&n) {
                return Err(format!("create_cards: {n} copies is out of range"));
            }
            let made: Vec<u32> = (0..n).map(|_| g.create_card(d, z)).collect();
            g.log(|s| format!("create {n} x {id} in {}", s.zone_label(z)));
            Ok(ints(made))
        })
    });
    e.register_fn("create_deck", |deck: ImmutableString, z: i64| {
        with(|g| {
            let z = zn(g, z)?;
            let defs: Vec<(u32, i64)> = g
                .pack
                .defs
                .iter()
                .enumerate()
                .filter(|(_, d)| d.kind == DefKind::Card && d.def.decks.iter().any(|x| x == deck.as_str()))
                .map(|(i, d)| (i as u32, d.def.count))
                .collect();
            let mut made = Vec::new();
            for (d, n) in defs {
                for _ in 0..n {
                    made.push(g.create_card(d, z));
                }
            }
            let n = made.len();
            g.log(|s| format!("create deck {deck}: {n} cards in {}", s.zone_label(z)));
            Ok(ints(made))
        })
    });
}

/// One face of a definition as scripts read it (`def_faces`, `def_back`).
fn face_map(
    face: &str,
    name: &str,
    keywords: &[String],
    values: &std::collections::BTreeMap<String, i64>,
    cost: &std::collections::BTreeMap<String, i64>,
    attrs: &std::collections::BTreeMap<String, String>,
    text: &str,
) -> Map {
    let ints = |m: &std::collections::BTreeMap<String, i64>| -> Map {
        m.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect()
    };
    let mut m = Map::new();
    m.insert("face".into(), Dynamic::from(face.to_string()));
    m.insert("name".into(), Dynamic::from(name.to_string()));
    m.insert("keywords".into(), Dynamic::from(keywords.iter().map(|k| Dynamic::from(k.clone())).collect::<Array>()));
    m.insert("values".into(), Dynamic::from(ints(values)));
    m.insert("cost".into(), Dynamic::from(ints(cost)));
    let attrs: Map = attrs.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(v.clone()))).collect();
    m.insert("attrs".into(), Dynamic::from(attrs));
    m.insert("text".into(), Dynamic::from(text.to_string()));
    m
}

fn set_mark(c: i64, k: &str, f: impl FnOnce(i64) -> i64) -> R<i64> {
    with(|g| {
        let c = cd(g, c)?;
        let old = g.state.cards[c as usize].marks.get(k).copied().unwrap_or(0);
        let new = f(old);
        if new != old {
            if new == 0 {
                g.state.cards[c as usize].marks.remove(k);
            } else {
                g.state.cards[c as usize].marks.insert(k.to_string(), new);
            }
            g.log(|s| format!("mark {} {k} {old} -> {new}", card_ref_s(s, c)));
        }
        Ok(new)
    })
}

fn register_defs(e: &mut Engine) {
    fn def_field<T: Clone + Send + Sync + 'static>(
        e: &mut Engine,
        name: &str,
        f: fn(&crate::content::model::Definition) -> T,
    ) {
        e.register_fn(name, move |id: ImmutableString| with(|g| Ok(f(&g.pack.defs[def_idx(g, &id)? as usize].def))));
    }
    def_field(e, "def_name", |d| d.name.clone());
    def_field(e, "def_kind", |d| d.kind.clone());
    def_field(e, "def_count", |d| d.count);
    def_field(e, "def_text", |d| d.text.clone());
    def_field(e, "def_cards", |d| d.cards.iter().map(|c| Dynamic::from(c.clone())).collect::<Array>());
    def_field(e, "def_keywords", |d| d.keywords.iter().map(|c| Dynamic::from(c.clone())).collect::<Array>());
    e.register_fn("def_value", |id: ImmutableString, k: ImmutableString| {
        with(|g| {
            let d = &g.pack.defs[def_idx(g, &id)? as usize].def;
            d.values.get(k.as_str()).copied().ok_or_else(|| {
                format!("`{id}` has no value `{k}`; use def_value_or(id, \"{k}\", 0) where it may be missing")
            })
        })
    });
    e.register_fn("def_value_or", |id: ImmutableString, k: ImmutableString, dflt: i64| {
        with(|g| Ok(g.pack.defs[def_idx(g, &id)? as usize].def.values.get(k.as_str()).copied().unwrap_or(dflt)))
    });
    e.register_fn("def_cost", |id: ImmutableString| {
        with(|g| {
            let d = &g.pack.defs[def_idx(g, &id)? as usize].def;
            Ok(d.cost.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect::<Map>())
        })
    });
    e.register_fn("def_back", |id: ImmutableString| {
        with(|g| {
            let d = &g.pack.defs[def_idx(g, &id)? as usize].def;
            let b =
                d.back.as_ref().ok_or_else(|| format!("`{id}` has no back face (a `back` table in its definition)"))?;
            Ok(face_map(
                "back",
                if b.name.is_empty() { &d.name } else { &b.name },
                &[],
                &b.values,
                &b.cost,
                &b.attrs,
                &b.text,
            ))
        })
    });
    e.register_fn("did_you_mean", |word: ImmutableString, known: Array| {
        let names: Vec<String> = known.iter().map(|k| k.to_string()).collect();
        crate::diag::did_you_mean(&word, names.iter().map(String::as_str)).unwrap_or("").to_string()
    });
    e.register_fn("def_faces", |id: ImmutableString| {
        with(|g| {
            let d = &g.pack.defs[def_idx(g, &id)? as usize].def;
            let mut out = Array::new();
            if d.stages.is_empty() {
                out.push(Dynamic::from(face_map("front", &d.name, &d.keywords, &d.values, &d.cost, &d.attrs, &d.text)));
            }
            for st in &d.stages {
                let empty = std::collections::BTreeMap::new();
                out.push(Dynamic::from(face_map(
                    st.position.as_str(),
                    &st.name,
                    &st.keywords,
                    &st.values,
                    &empty,
                    &st.attrs,
                    &st.text,
                )));
            }
            if let Some(b) = &d.back {
                let name = if b.name.is_empty() { &d.name } else { &b.name };
                out.push(Dynamic::from(face_map("back", name, &[], &b.values, &b.cost, &b.attrs, &b.text)));
            }
            Ok(out)
        })
    });
    e.register_fn("def_attr", |id: ImmutableString, k: ImmutableString| {
        with(|g| Ok(g.pack.defs[def_idx(g, &id)? as usize].def.attrs.get(k.as_str()).cloned().unwrap_or_default()))
    });
    e.register_fn("def_has_keyword", |id: ImmutableString, k: ImmutableString| {
        with(|g| Ok(g.pack.defs[def_idx(g, &id)? as usize].def.keywords.iter().any(|x| x == k.as_str())))
    });
    e.register_fn("def_exists", |id: ImmutableString| with(|g| Ok(g.pack.index.contains_key(id.as_str()))));
    e.register_fn("defs", |kind: ImmutableString| {
        with(|g| {
            let k = DefKind::ALL
                .into_iter()
                .find(|k| k.as_str() == kind.as_str())
                .ok_or_else(|| format!("`{kind}` is not card, plaque, noble or leader"))?;
            Ok(g.pack.defs_of(k).map(|d| Dynamic::from(d.def.id.clone())).collect::<Array>())
        })
    });
    e.register_fn("defs_in_deck", |deck: ImmutableString| {
        with(|g| {
            Ok(g.pack
                .defs
                .iter()
                .filter(|d| d.def.decks.iter().any(|x| x == deck.as_str()))
                .map(|d| Dynamic::from(d.def.id.clone()))
                .collect::<Array>())
        })
    });
    e.register_fn("def_serial", |id: ImmutableString| {
        with(|g| Ok(g.pack.defs[def_idx(g, &id)? as usize].def.serial.unwrap_or(-1)))
    });
}

fn register_board(e: &mut Engine) {
    e.register_fn("spaces", || with(|g| Ok((0..g.state.spaces.len() as i64).map(Dynamic::from).collect::<Array>())));
    e.register_fn("space", |id: ImmutableString| {
        with(|g| Ok(g.state.space_ids.get(id.as_str()).map_or(-1, |&s| i64::from(s))))
    });
    e.register_fn("space_id", |s: i64| with(|g| Ok(g.state.spaces[sp(g, s)? as usize].id.clone())));
    e.register_fn("space_name", |s: i64| with(|g| Ok(g.state.spaces[sp(g, s)? as usize].name.clone())));
    e.register_fn("adjacent", |s: i64| with(|g| Ok(ints(g.state.spaces[sp(g, s)? as usize].adjacent.clone()))));
    e.register_fn("neighbors", |s: i64, diagonal: bool| {
        with(|g| Ok(ints(g.state.grid_neighbors(sp(g, s)?, diagonal))))
    });
    e.register_fn("xy", |s: i64| {
        with(|g| {
            let (x, y) = g.state.space_xy(sp(g, s)?).ok_or("this space is not on a grid")?;
            Ok(vec![Dynamic::from(x), Dynamic::from(y)])
        })
    });
    e.register_fn("space_at", |x: i64, y: i64| with(|g| Ok(g.state.space_at(x, y).map_or(-1, i64::from))));
    e.register_fn("space_attr", |s: i64, k: ImmutableString| {
        with(|g| Ok(g.state.spaces[sp(g, s)? as usize].attrs.get(k.as_str()).cloned().unwrap_or_default()))
    });
    e.register_fn("space_value", |s: i64, k: ImmutableString| {
        with(|g| Ok(g.state.spaces[sp(g, s)? as usize].values.get(k.as_str()).copied().unwrap_or(0)))
    });
    e.register_fn("pieces_at", |s: i64| {
        with(|g| {
            let s = sp(g, s)?;
            Ok(g.state
                .pieces
                .iter()
                .enumerate()
                .filter(|(_, p)| p.space == Some(s))
                .map(|(i, _)| Dynamic::from(i as i64))
                .collect::<Array>())
        })
    });
    e.register_fn("pieces_of", |owner: i64, kind: ImmutableString| {
        with(|g| {
            Ok(g.state
                .pieces
                .iter()
                .enumerate()
                .filter(|(_, p)| p.space.is_some() && p.owner == owner && (kind.is_empty() || p.kind == kind.as_str()))
                .map(|(i, _)| Dynamic::from(i as i64))
                .collect::<Array>())
        })
    });
    e.register_fn("place", |kind: ImmutableString, s: i64, owner: i64| {
        with(|g| {
            let s = sp(g, s)?;
            let left = g.state.supplies.get_mut(kind.as_str()).ok_or_else(|| format!("no supply `{kind}`"))?;
            if *left <= 0 {
                return Ok(-1);
            }
            *left -= 1;
            let id = g.state.pieces.len();
            g.state.pieces.push(Piece { kind: kind.to_string(), owner, space: Some(s), attrs: Default::default() });
            g.log(|st| {
                let who = if owner >= 0 {
                    format!(" for {}", st.players.get(owner as usize).map_or("?", |x| x.name.as_str()))
                } else {
                    String::new()
                };
                format!("place {kind}~{id}{who} at {}", st.spaces[s as usize].id)
            });
            Ok(id as i64)
        })
    });
    e.register_fn("move_piece", |p: i64, s: i64| {
        with(|g| {
            let p = pc(g, p)?;
            let s = sp(g, s)?;
            let from = g.state.pieces[p].space.ok_or("that piece is back in its supply")?;
            g.state.pieces[p].space = Some(s);
            g.log(|st| {
                let kind = &st.pieces[p].kind;
                format!("move {kind}~{p} {} -> {}", st.spaces[from as usize].id, st.spaces[s as usize].id)
            });
            Ok(())
        })
    });
    e.register_fn("return_piece", |p: i64| {
        with(|g| {
            let p = pc(g, p)?;
            if let Some(from) = g.state.pieces[p].space.take() {
                let kind = g.state.pieces[p].kind.clone();
                *g.state.supplies.entry(kind.clone()).or_insert(0) += 1;
                g.log(|st| format!("return {kind}~{p} from {} to supply", st.spaces[from as usize].id));
            }
            Ok(())
        })
    });
    e.register_fn("piece_kind", |p: i64| with(|g| Ok(g.state.pieces[pc(g, p)?].kind.clone())));
    e.register_fn("piece_owner", |p: i64| with(|g| Ok(g.state.pieces[pc(g, p)?].owner)));
    e.register_fn("set_piece_owner", |p: i64, o: i64| {
        with(|g| {
            let p = pc(g, p)?;
            g.state.pieces[p].owner = o;
            Ok(())
        })
    });
    e.register_fn("piece_space", |p: i64| with(|g| Ok(g.state.pieces[pc(g, p)?].space.map_or(-1, i64::from))));
    e.register_fn("piece_get", |p: i64, k: ImmutableString| {
        with(|g| Ok(g.state.pieces[pc(g, p)?].attrs.get(k.as_str()).copied().unwrap_or(0)))
    });
    e.register_fn("piece_set", |p: i64, k: ImmutableString, v: i64| {
        with(|g| {
            let p = pc(g, p)?;
            g.state.pieces[p].attrs.insert(k.to_string(), v);
            g.log(|st| format!("{}~{p} {k} = {v}", st.pieces[p].kind));
            Ok(())
        })
    });
    e.register_fn("supply", |kind: ImmutableString| {
        with(|g| Ok(g.state.supplies.get(kind.as_str()).copied().unwrap_or(0)))
    });
    e.register_fn("take", |kind: ImmutableString, n: i64| {
        with(|g| {
            let left = g.state.supplies.get_mut(kind.as_str()).ok_or_else(|| format!("no supply `{kind}`"))?;
            let got = n.clamp(0, *left);
            *left -= got;
            if got > 0 {
                let rest = *left;
                g.log(|_| format!("take {got} {kind} from supply ({rest} left)"));
            }
            Ok(got)
        })
    });
    e.register_fn("give_back", |kind: ImmutableString, n: i64| {
        with(|g| {
            let left = g.state.supplies.get_mut(kind.as_str()).ok_or_else(|| format!("no supply `{kind}`"))?;
            *left += n.max(0);
            let rest = *left;
            if n > 0 {
                g.log(|_| format!("return {n} {kind} to supply ({rest} left)"));
            }
            Ok(())
        })
    });
    e.register_fn("reachable", |s: i64, budget: i64, diagonal: bool, into_occupied: bool| {
        with(|g| {
            let s = sp(g, s)?;
            let r = g.state.reachable(s, budget.min(64), diagonal, into_occupied);
            let mut v: Vec<(i64, u32)> = r.into_iter().map(|(k, d)| (d, k)).collect();
            v.sort_unstable();
            Ok(v.into_iter().map(|(_, k)| Dynamic::from(i64::from(k))).collect::<Array>())
        })
    });
    e.register_fn("distance", |from: i64, to: i64, budget: i64, diagonal: bool| {
        with(|g| {
            let from = sp(g, from)?;
            let to = sp(g, to)?;
            Ok(g.state.reachable(from, budget.min(64), diagonal, true).get(&to).copied().unwrap_or(-1))
        })
    });
}

fn register_game(e: &mut Engine) {
    e.register_fn("choose", choose);
    e.register_fn("invoke", invoke);
    e.register_fn("has_fn", has_fn);
    e.register_fn("fold", fold);
    e.register_fn("get", |k: ImmutableString| {
        with(|g| Ok(g.state.globals.get(k.as_str()).cloned().unwrap_or(Dynamic::UNIT)))
    });
    e.register_fn("get_or", |k: ImmutableString, d: Dynamic| {
        with(|g| Ok(g.state.globals.get(k.as_str()).cloned().unwrap_or(d)))
    });
    e.register_fn("set", |k: ImmutableString, v: Dynamic| {
        with(|g| {
            if g.transcript.is_some() && (v.is_int() || v.is_bool() || v.is_string()) {
                let changed = g
                    .state
                    .globals
                    .get(k.as_str())
                    .is_none_or(|old| old.to_string() != v.to_string() || old.type_name() != v.type_name());
                if changed {
                    let shown = v.to_string();
                    g.log(|_| format!("set {k} = {shown}"));
                }
            }
            g.state.globals.insert(k.to_string(), v);
            Ok(())
        })
    });
    e.register_fn("roll", |n: i64| {
        with(|g| {
            if n < 1 {
                return Err(format!("roll({n}): a die needs at least one side"));
            }
            let v = g.state.rng.below(n as u64) as i64 + 1;
            g.log(|_| format!("roll d{n} -> {v}"));
            Ok(v)
        })
    });
    e.register_fn("random", |n: i64| {
        with(|g| {
            if n < 1 {
                return Err(format!("random({n}): needs at least 1"));
            }
            Ok(g.state.rng.below(n as u64) as i64)
        })
    });
    e.register_fn("shuffle_list", |a: Array| {
        with(|g| {
            let mut a = a;
            g.state.rng.shuffle(&mut a);
            Ok(a)
        })
    });
    e.register_fn("option", |k: ImmutableString| {
        with(|g| Ok(g.options.get(k.as_str()).map(scalar_to_dynamic).unwrap_or(Dynamic::UNIT)))
    });
    e.register_fn("option_or", |k: ImmutableString, d: Dynamic| {
        with(|g| Ok(g.options.get(k.as_str()).map(scalar_to_dynamic).unwrap_or(d)))
    });
    e.register_fn("scenario", || with(|g| Ok(g.scenario.clone().unwrap_or_default())));
    e.register_fn("seat_character", |p: i64| {
        with(|g| Ok(g.seats.get(pl(g, p)?).and_then(|s| s.character.clone()).unwrap_or_default()))
    });
    e.register_fn("seat_cards", |p: i64| {
        with(|g| {
            Ok(g.seats
                .get(pl(g, p)?)
                .map(|s| s.cards.iter().map(|c| Dynamic::from(c.clone())).collect::<Array>())
                .unwrap_or_default())
        })
    });
    e.register_fn("seat_agent", |p: i64| {
        with(|g| Ok(g.seats.get(pl(g, p)?).and_then(|s| s.agent.clone()).unwrap_or_default()))
    });
    e.register_fn("seat_value", |p: i64, k: ImmutableString| {
        with(|g| Ok(g.seats.get(pl(g, p)?).and_then(|s| s.values.get(k.as_str()).copied()).unwrap_or(0)))
    });
    e.register_fn("agent_kind", |p: i64| {
        with(|g| Ok(g.agents[pl(g, p)?].as_ref().map_or(String::new(), |a| a.kind())))
    });
    e.register_fn("turn_number", || with(|g| Ok(g.state.turn as i64)));
    e.register_fn("log", |s: ImmutableString| {
        with(|g| {
            g.log(|_| s.to_string());
            Ok(())
        })
    });
    e.register_fn("note_play", |p: i64, c: i64| {
        with(|g| {
            let p = pl(g, p)?;
            let c = cd(g, c)?;
            let d = g.state.cards[c as usize].def;
            g.plays[p].push(d);
            Ok(())
        })
    });
    e.register_fn("checkpoint", || {
        with(|g| {
            g.at_checkpoint = true;
            Ok(())
        })
    });
    e.register_fn("end_game", |winners: Array, reason: ImmutableString| {
        with(|g| {
            let mut w = Vec::new();
            for x in winners {
                let p = x.as_int().map_err(|_| "end_game: winners must be player numbers".to_string())?;
                w.push(pl(g, p)?);
            }
            if g.over.is_none() {
                g.log(|s| {
                    let names: Vec<&str> = w.iter().map(|&p| s.players[p].name.as_str()).collect();
                    let scores: Vec<String> = s.players.iter().map(|p| format!("{} {}", p.name, p.score)).collect();
                    format!(
                        "game over: {} wins ({reason}); scores: {}",
                        if names.is_empty() { "nobody".into() } else { names.join(" and ") },
                        scores.join(", ")
                    )
                });
                g.over = Some((w, reason.to_string()));
            }
            Ok(())
        })
    });
    e.register_fn("is_over", || with(|g| Ok(g.over.is_some())));
}

/// Keep transcript card names in step with the game's pack; call when installing a game.
pub fn prepare(pack: &Pack) {
    refresh_def_ids(pack);
}

/// `card_ref` for callers outside scripts.
pub fn describe_card(g: &Game, c: u32) -> String {
    card_ref(&g.pack, &g.state, c)
}

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
    use crate::content::{load_pack, LoadOptions, Project};
    use crate::game::{agent, GameConfig};

    /// A one-seat game of a minimal pack (nothing run yet).
    fn tiny_game(tag: &str) -> Game {
        let root = std::env::temp_dir().join(format!("crown-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (rel, text) in [
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            ("scripts/p/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n"),
        ] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        let loaded = load_pack(&Project::new(&root), "p", LoadOptions::default());
        let _ = std::fs::remove_dir_all(&root);
        let pack = Arc::new(loaded.pack.expect("the pack loads"));
        Game::new(pack, GameConfig::new(1, 1), vec![agent::bot("first", 1, 0).unwrap()]).unwrap()
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
