//! The rules script's `validate(id)` hook: a pack whose definitions carry a notation of
//! its own (Kingdom Legacy's effects, The Last Kingdom's effect steps) checks every
//! definition when the pack is loaded, so a typo in the notation is an error of `crown
//! check` (and of every reload), at its file, line and column, not a failure when a game
//! first reaches that card.
//!
//! `validate(id)` returns the definition's problems as an array (empty when it is sound).
//! Each problem is a string (the message), or a map with `message` and, optionally,
//! `hint` (shown under the message) and `at` (the offending text as written in the
//! definition: the diagnostic then points at it instead of at the id). A `validate` that
//! throws is reported as its own error, naming the definition and the script line.
//!
//! `prepare(id)` works out, once per definition and load, what the rules would otherwise
//! compute again at every play (a notation parsed, say): `prepared(id, key)` reads it.
//!
//! `validate_pack()` checks what belongs to no one definition (the board, how the settings
//! fit together) once per load, in the same way: its problems' `at` text is looked for in
//! `board.toml`, then `pack.toml`. Data checks go here rather than in `setup()`, so that
//! `crown check` finds them and no game starts on data the rules cannot play.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use rhai::{Dynamic, Map};

use crate::content::Pack;
use crate::diag::{Diagnostic, SourceMap};
use crate::game::agent::{Agent, FirstAgent};
use crate::game::{Game, GameConfig};

/// The name of the hook.
pub const HOOK: &str = "validate";

/// The name of the whole-pack hook.
pub const PACK_HOOK: &str = "validate_pack";

pub use super::api::PREPARE_HOOK;

/// Run `validate(id)` of the pack's rules script on every definition (nothing when the
/// rules script has no such function).
pub fn validate_pack(pack: &Arc<Pack>, sources: &SourceMap) -> Vec<Diagnostic> {
    let Some(rules) = pack.rules_script().filter(|_| pack.rules_define(HOOK) || pack.rules_define(PACK_HOOK)) else {
        return Vec::new();
    };
    let per_def = pack.rules_define(HOOK);
    let whole = pack.rules_define(PACK_HOOK);
    let ast = rules.ast.clone();
    let script_path = rules.path.clone();
    let game = match table_for(pack) {
        Ok(g) => g,
        Err(e) => {
            return vec![Diagnostic::error("validate", format!("cannot set a table up to run `validate`: {e}"))
                .in_file(script_path)]
        }
    };
    let ids: Vec<String> = if per_def { pack.defs.iter().map(|d| d.def.id.clone()).collect() } else { Vec::new() };
    let call = |hook: &str, args: Vec<Dynamic>| call_hook(&ast, hook, args);
    let (_, (results, whole_result)) = super::api::with_installed(game, || {
        let each: Vec<_> = ids.iter().map(|id| call(HOOK, vec![Dynamic::from(id.clone())])).collect();
        (each, whole.then(|| call(PACK_HOOK, Vec::new())))
    });
    let mut out = Vec::new();
    if let Some(result) = whole_result {
        out.extend(pack_problems(pack, sources, &script_path, result));
    }
    for (def, result) in pack.defs.iter().zip(results) {
        let id = &def.def.id;
        let src = sources.get(&def.origin.file);
        let at_def = |d: Diagnostic| match src {
            Some(f) => d.at(f, def.origin.id_span.clone()),
            None => d.in_file(def.origin.file.clone()),
        };
        let problems = match result {
            Err(e) => {
                out.push(at_def(Diagnostic::error("validate-failed", format!("`validate(\"{id}\")` failed: {e}"))));
                continue;
            }
            Ok(v) if v.is_unit() => continue,
            Ok(v) => match v.try_cast::<rhai::Array>() {
                Some(a) => a,
                None => {
                    out.push(at_def(Diagnostic::error(
                        "validate-failed",
                        format!("`validate(\"{id}\")` must give an array of problems (empty when all is well)"),
                    )));
                    continue;
                }
            },
        };
        for p in problems {
            let (message, hint, at) = problem_parts(&p);
            let d = Diagnostic::error("invalid-definition", format!("`{id}`: {message}"));
            // Point at the offending text where it is written in the definition's table.
            let located = match (src, at.as_deref().filter(|a| !a.is_empty())) {
                (Some(f), Some(text)) => {
                    // The definition's own tables (stages, back) follow its header: the
                    // first occurrence after its start is its own.
                    let from = def.origin.span.start.min(f.text.len());
                    let end = def.origin.span.end.clamp(from, f.text.len());
                    let found = f.text[from..].find(text).map(|i| from + i..from + i + text.len());
                    // Narrowed to the word the message quotes (`'gian'`) inside it, or, when
                    // the text is not written as given (escapes, a cell's quoting), that
                    // word in the definition's own table.
                    let word = quoted_words(&message).into_iter().find_map(|w| {
                        let (a, b) = found.clone().map_or((from, end), |r| (r.start, r.end));
                        f.text[a..b].find(w.as_str()).map(|i| a + i..a + i + w.len())
                    });
                    word.or(found).map(|r| d.clone().at(f, r))
                }
                _ => None,
            };
            out.push(located.unwrap_or_else(|| at_def(d)).maybe_hint(hint));
        }
    }
    out
}

/// The words a message quotes ('gian', `gian` or "gian"), longest first.
fn quoted_words(message: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ['\'', '`', '"'] {
        let parts: Vec<&str> = message.split(q).collect();
        // Odd pieces are inside quotes (a lone apostrophe leaves an unclosed last piece).
        for (i, w) in parts.iter().enumerate() {
            if i % 2 == 1 && i + 1 < parts.len() && !w.is_empty() && !w.contains(char::is_whitespace) {
                out.push(w.to_string());
            }
        }
    }
    out.sort_by_key(|w| std::cmp::Reverse(w.len()));
    out
}

/// A table to run the load-time hooks on: seats but no `setup()`, so the `def_*` host
/// functions work (the game is only the context they read).
fn table_for(pack: &Arc<Pack>) -> Result<Game, String> {
    let range = pack.default_scenario().and_then(|s| s.scenario.players).unwrap_or(pack.manifest.players);
    let players = range.min.clamp(1, 64) as usize;
    let mut cfg = GameConfig::new(0, players);
    cfg.transcript = false;
    let agents: Vec<Box<dyn Agent>> = (0..players).map(|_| Box::new(FirstAgent) as Box<dyn Agent>).collect();
    Game::new(pack.clone(), cfg, agents)
}

/// Call a load-time hook; its failure in the script's words.
fn call_hook(ast: &rhai::AST, hook: &str, args: Vec<Dynamic>) -> Result<Dynamic, String> {
    let call = || super::api::call_script_fn(ast, hook, args);
    match std::panic::catch_unwind(AssertUnwindSafe(call)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(super::api::to_failure_in(&e, ast, Some(hook)).to_string()),
        Err(_) => Err(format!("an internal error stopped `{hook}`")),
    }
}

/// Run `prepare(id)` of the rules script on every definition: what the rules work out
/// once from a definition's data (its own notation parsed, say), kept in the pack for
/// `prepared(id, key)`. A `prepare` that fails is an error at the definition.
pub fn prepare_pack(pack: &Arc<Pack>) -> (BTreeMap<String, Dynamic>, Vec<Diagnostic>) {
    let mut out = BTreeMap::new();
    let Some(rules) = pack.rules_script().filter(|_| pack.rules_define(PREPARE_HOOK)) else {
        return (out, Vec::new());
    };
    let ast = rules.ast.clone();
    let game = match table_for(pack) {
        Ok(g) => g,
        Err(e) => {
            let d = Diagnostic::error("prepare-failed", format!("cannot set a table up to run `prepare`: {e}"));
            return (out, vec![d.in_file(rules.path.clone())]);
        }
    };
    let ids: Vec<String> = pack.defs.iter().map(|d| d.def.id.clone()).collect();
    let (_, results) = super::api::with_installed(game, || {
        ids.iter().map(|id| call_hook(&ast, PREPARE_HOOK, vec![Dynamic::from(id.clone())])).collect::<Vec<_>>()
    });
    let mut diags = Vec::new();
    for (def, result) in pack.defs.iter().zip(results) {
        match result {
            Ok(v) => {
                out.insert(def.def.id.clone(), v);
            }
            Err(e) => {
                let d = Diagnostic::error("prepare-failed", format!("`prepare(\"{}\")` failed: {e}", def.def.id));
                diags.push(match pack.sources.get(&def.origin.file) {
                    Some(f) => d.at(f, def.origin.id_span.clone()),
                    None => d.in_file(def.origin.file.clone()),
                });
            }
        }
    }
    (out, diags)
}

/// A problem as the hook returns it: a string, or a map with `message`, `hint` and `at`.
fn problem_parts(p: &Dynamic) -> (String, Option<String>, Option<String>) {
    if p.is_string() {
        (p.to_string(), None, None)
    } else if let Some(m) = p.clone().try_cast::<Map>() {
        let get = |k: &str| m.get(k).filter(|v| !v.is_unit()).map(|v| v.to_string());
        (get("message").unwrap_or_else(|| format!("{p}")), get("hint"), get("at"))
    } else {
        (p.to_string(), None, None)
    }
}

/// The diagnostics of `validate_pack()`: each at its `at` text in `board.toml`, else in
/// `pack.toml`; without one, on the first of those files the pack has.
fn pack_problems(
    pack: &Pack,
    sources: &SourceMap,
    script: &std::path::Path,
    result: Result<Dynamic, String>,
) -> Vec<Diagnostic> {
    let manifest = std::path::Path::new("content").join(pack.id()).join("pack.toml");
    let files: Vec<&crate::diag::SourceFile> = pack
        .board
        .iter()
        .map(|(_, o)| o.file.as_path())
        .chain([manifest.as_path()])
        .filter_map(|f| sources.get(f))
        .collect();
    let on_pack = |d: Diagnostic| match files.first() {
        Some(f) => d.in_file(f.path.clone()),
        None => d.in_file(script.to_path_buf()),
    };
    let problems = match result {
        Err(e) => return vec![on_pack(Diagnostic::error("validate-failed", format!("`{PACK_HOOK}()` failed: {e}")))],
        Ok(v) if v.is_unit() => return Vec::new(),
        Ok(v) => match v.try_cast::<rhai::Array>() {
            Some(a) => a,
            None => {
                return vec![on_pack(Diagnostic::error(
                    "validate-failed",
                    format!("`{PACK_HOOK}()` must give an array of problems (empty when all is well)"),
                ))]
            }
        },
    };
    problems
        .iter()
        .map(|p| {
            let (message, hint, at) = problem_parts(p);
            let d = Diagnostic::error("invalid-pack", message);
            let located = at.filter(|a| !a.is_empty()).and_then(|text| {
                files.iter().find_map(|f| f.text.find(&text).map(|i| d.clone().at(f, i..i + text.len())))
            });
            located.unwrap_or_else(|| on_pack(d)).maybe_hint(hint)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::quoted_words;
    use crate::load::{load_pack, LoadOptions, Project};

    /// Load a one-card pack whose rules script validates the card's `fx` attribute.
    fn check(fx: &str, validate: &str) -> Vec<String> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!("crown-validate-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let card = format!("[[card]]\nid = \"axe\"\nname = \"Axe\"\ncount = 0\nattrs = {{ fx = \"{fx}\" }}\n");
        let rules = format!("fn setup() {{}}\nfn turn() {{ end_game([], \"done\"); }}\n{validate}");
        for (rel, text) in [
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            ("content/p/cards/a.toml", card.as_str()),
            ("scripts/p/rules.rhai", rules.as_str()),
        ] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        let loaded = load_pack(&Project::new(&root), "p", LoadOptions::default());
        let _ = std::fs::remove_dir_all(&root);
        loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{} {}:{} {}", d.code, d.line, d.column, d.message))
            .collect()
    }

    const HOOK: &str = "fn validate(id) {\n  let out = [];\n  for f in def_faces(id) {\n    if f.attrs.fx.starts_with(\"x\") { out.push(#{ message: \"no x\", at: f.attrs.fx }); }\n  }\n  out\n}\n";

    #[test]
    fn the_quoted_word_is_found() {
        assert_eq!(quoted_words("unknown action 'gian' (did you mean 'gain'?)"), vec!["gian", "gain"]);
        assert_eq!(quoted_words("the rider's horse"), Vec::<String>::new());
        assert_eq!(quoted_words("no step `tokns` here"), vec!["tokns"]);
    }

    #[test]
    fn problems_point_at_the_text_they_name() {
        let clean = check("chop", HOOK);
        assert!(clean.is_empty(), "{clean:?}");
        assert_eq!(check("xchop", HOOK), vec!["invalid-definition 5:17 `axe`: no x"]);
    }

    #[test]
    fn a_validate_that_throws_or_returns_nonsense_is_an_error_naming_the_definition() {
        let thrown = check("chop", "fn validate(id) { throw \"bad\"; }");
        assert!(
            thrown.len() == 1 && thrown[0].starts_with("validate-failed 2:6 `validate(\"axe\")` failed"),
            "{thrown:?}"
        );
        let odd = check("chop", "fn validate(id) { 42 }");
        assert!(odd.len() == 1 && odd[0].contains("must give an array"), "{odd:?}");
    }

    /// `validate_pack()` runs once, without `validate(id)` too; its problems point at their
    /// text in pack.toml (`players = ...` on line 4 here), and one that throws says so.
    #[test]
    fn whole_pack_problems_point_at_the_pack_files() {
        let hook = "fn validate_pack() { [#{ message: \"one seat is not a game\", at: \"players\", hint: \"two\" }, \"plain\"] }";
        let got = check("chop", hook);
        assert_eq!(got, vec!["invalid-pack 0:0 plain", "invalid-pack 4:1 one seat is not a game"], "{got:?}");
        let thrown = check("chop", "fn validate_pack() { throw \"no board\"; }");
        assert!(
            thrown.len() == 1 && thrown[0].starts_with("validate-failed") && thrown[0].contains("no board"),
            "{thrown:?}"
        );
        let both = check("xchop", &format!("{HOOK}fn validate_pack() {{ [] }}"));
        assert_eq!(both, vec!["invalid-definition 5:17 `axe`: no x"]);
    }
}
