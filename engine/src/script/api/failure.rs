//! Failures and their messages: a Rhai error or a caught panic turned into a located
//! [`ScriptFailure`] in the script's words, and a limit failure put at the statement that hit it.

use std::cell::{Cell, RefCell};

use rhai::{EvalAltResult, AST};

use super::with;
use crate::content::Pack;
use crate::game::ScriptFailure;

thread_local! {
    /// The innermost located failure of a nested call or an agent, which the game reports
    /// instead of the error Rhai gives at the outer call.
    pub(super) static FAILURE: RefCell<Option<ScriptFailure>> = const { RefCell::new(None) };
    /// Whether a game is being driven here, so that a panic is caught as its failure.
    pub(super) static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// Where in Crown's source the last caught panic happened (see [`note_caught_panic`]).
    pub(super) static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
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

/// The message of a caught panic, with where in Crown's source it happened when known.
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send), place: &str) -> String {
    let msg = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    let at = PANIC_AT.with(|p| p.borrow_mut().take()).map(|l| format!(" (at {l})")).unwrap_or_default();
    format!("internal error {place} (a bug in Crown, please report it): {msg}{at}")
}

pub(super) fn take_failure() -> Option<ScriptFailure> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// The script (shown path) that defines `func` when the script named `source` does not
/// but the rules or the bots' script does: Rhai names a function run inside a card's
/// script (the rules' functions are merged under it) by the card's script.
pub(super) fn defining_script(pack: &Pack, source: &str, func: &str) -> Option<String> {
    let shown = |s: &crate::content::Script| s.path.to_string_lossy().replace('\\', "/");
    let own = pack.scripts.iter().find(|s| shown(s) == source)?;
    if own.functions.contains(func) {
        return None;
    }
    pack.rule_files().chain(pack.bots_script()).find(|s| s.functions.contains(func)).map(shown)
}

/// Turn a Rhai error into a located failure naming the script and its definitions.
pub fn to_failure(err: &EvalAltResult, ast: &AST) -> ScriptFailure {
    to_failure_in(err, ast, None)
}

/// As [`to_failure`], knowing which function was called (to locate errors that carry no
/// position, such as running out of operations, at that function's definition).
/// Keep `f` as the game's failure unless one is kept already (a bot's hook that failed:
/// the game then fails with its place, not only its message).
pub fn note_failure(f: ScriptFailure) {
    FAILURE.with(|slot| {
        slot.borrow_mut().get_or_insert(f);
    });
}

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
            format!(
                "the script ran more than {} operations in one call (an endless loop?)",
                crate::script::LIMITS.operations
            )
        }
        EvalAltResult::ErrorStackOverflow(_) => {
            format!("calls nested more than {} deep (endless recursion?)", crate::script::LIMITS.call_levels)
        }
        EvalAltResult::ErrorDataTooLarge(what, _) => format!("{what} grew past its limit"),
        // Stopped by `progress`: the token is the message.
        EvalAltResult::ErrorTerminated(why, _) => why.to_string(),
        other => {
            let s = other.to_string();
            plain_words(s.split(" (line ").next().unwrap_or(&s))
        }
    };
    // A rules (or bots') function called from a card's script runs inside the card's
    // compiled script, whose name Rhai gives: the place is in the script defining it.
    if let (Some(src), Some(func)) = (source.as_deref(), trace.last()) {
        if let Ok(Some(owner)) = with(|g| Ok(defining_script(&g.pack, src, func))) {
            source = Some(owner);
        }
    }
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
            if let Ok(Some(l)) = with(|g| Ok(g.pack.sources.fn_line(std::path::Path::new(src), func))) {
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
}
