//! Calls into scripts: the shared call (metered and profiled) and the nested calls a
//! script makes into other scripts (`invoke`, `fold`, `has_fn`), with their depth limit.

use std::sync::Arc;

use rhai::{Array, CallFnOptions, Dynamic, EvalAltResult, ImmutableString, Scope, AST};

use super::args::def_idx;
use super::failure::{take_failure, to_failure_in, FAILURE};
use super::meter::CallMeter;
use super::{with, Registrar, R};
use crate::game::{Game, ScriptFailure};

/// Host calls into scripts (`invoke`, `fold`) may nest this deep.
const MAX_HOST_DEPTH: usize = 24;

/// Call `name` in a compiled script with the shared engine (the script's top-level code
/// is not run).
pub fn call_script_fn(ast: &AST, name: &str, args: Vec<Dynamic>) -> R<Dynamic> {
    call_script_fn_lending(ast, name, args, None)
}

/// [`call_script_fn`] with one more argument, `last`, lent to the function where it only
/// reads it (see `compiled::call_lending`): the same value comes back in `last`.
#[inline]
pub fn call_script_fn_lending(ast: &AST, name: &str, args: Vec<Dynamic>, last: Option<&mut Dynamic>) -> R<Dynamic> {
    let mut scope = Scope::new();
    let opts = CallFnOptions::new().eval_ast(false).rewind_scope(false);
    let profiling = crate::script::profile::active();
    if profiling {
        crate::script::profile::enter(ast.source(), name);
    }
    let meter = CallMeter::start();
    let compiled = if crate::script::locate::active() {
        let mut args = args;
        args.extend(last.map(|v| v.clone()));
        Err(args)
    } else {
        crate::script::compiled::call_lending(ast, name, args, last)
    };
    let r = match compiled {
        Ok(r) => r,
        Err(args) => crate::script::engine().call_fn_with_options::<Dynamic>(opts, &mut scope, ast, name, args),
    };
    drop(meter);
    if profiling {
        crate::script::profile::leave();
    }
    r
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
pub(super) fn target_fn(g: &Game, target: &Dynamic, name: &str) -> Result<Option<Arc<AST>>, String> {
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
pub(super) fn nested_call(ast: &AST, name: &str, args: Vec<Dynamic>) -> R<Dynamic> {
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

pub(super) fn register(e: &mut Registrar) {
    e.section("Choices and hooks");
    e.register_fn(
        "invoke(target, name, args)",
        "Call function `name` in the script of a card instance (int) or definition (id string) with an array of \
         arguments; () when it has no such function.",
        invoke,
    );
    e.register_fn("has_fn(target, name)", "Whether that script defines `name`.", has_fn);
    e.register_fn(
        "fold(hook, value, args)",
        "Pass `value` through `hook(source, value, args...)` of every active source: each player's character \
         (source = the player number), then cards in active zones and the cards under them (source = the card id). \
         Returns the final value.",
        fold,
    );
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
