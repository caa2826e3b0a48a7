//! Compiling scripts: each read, checked by the static lints and compiled once (through
//! a [`Loader`]'s cache when there is one), with the rules script's functions merged in.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::files::{decode, io_reason};
use super::{CachedScript, PackLoad, ScriptRef};
use crate::content::{hash_bytes, Script};
use crate::diag::{Diagnostic, SourceFile};

impl PackLoad<'_> {
    pub(super) fn compile_script(&mut self, s: &ScriptRef, lib: Option<(&rhai::AST, u64)>) -> Option<Script> {
        let out = compile_one(self, s, lib);
        self.take_script(out)
    }

    /// Add a file to the sources (unless `unchanged`: a [`Loader`] started from the last
    /// load's sources, which hold it already).
    pub(super) fn keep_source(&mut self, src: SourceFile, unchanged: bool) {
        if let Some(c) = self.cache.as_deref_mut() {
            c.seen_paths.insert(src.path.clone());
        }
        if !unchanged {
            self.sources.insert(src);
        }
    }

    /// Keep a compiled script's source and cache entry; its script, or its diagnostics kept.
    pub(super) fn take_script(&mut self, out: ScriptOut) -> Option<Script> {
        let ScriptOut { res, src, entry, compiled, merged, cached } = out;
        if let Some(c) = self.cache.as_deref_mut() {
            c.stats.scripts += 1;
            c.stats.scripts_compiled += usize::from(compiled);
            c.stats.scripts_merged += usize::from(merged && !compiled);
            if let Some((path, e)) = entry {
                c.scripts.insert(path, e);
            }
        }
        if let Some(src) = src {
            self.keep_source(src, cached);
        }
        match res {
            Ok(s) => Some(s),
            Err(ds) => {
                self.diags.extend(ds);
                None
            }
        }
    }
}

/// What compiling one script gives: the script or its diagnostics, its source, and for a
/// [`Loader`] the cache entry to keep (with whether it was compiled or merged afresh).
pub(super) struct ScriptOut {
    res: Result<Script, Vec<Diagnostic>>,
    src: Option<SourceFile>,
    entry: Option<(PathBuf, CachedScript)>,
    compiled: bool,
    merged: bool,
    /// Taken from the cache unchanged.
    cached: bool,
}

impl ScriptOut {
    fn failed(ds: Vec<Diagnostic>, src: Option<SourceFile>) -> Self {
        ScriptOut { res: Err(ds), src, entry: None, compiled: false, merged: false, cached: false }
    }
}

/// The rules script's functions under a card script's own (so card scripts may call the
/// rules' helpers), named after the card script.
fn merge_rules(lib: &rhai::AST, ast: &rhai::AST, name: &str) -> Arc<rhai::AST> {
    let mut merged = lib.merge(ast);
    merged.set_source(name);
    Arc::new(merged)
}

/// The functions a script defines, read and parsed without checks (`None` when it cannot
/// be read or parsed: compiling it says why), with its content hash.
pub(super) fn functions_of(l: &PackLoad<'_>, s: &ScriptRef) -> Option<(rhai::AST, u64)> {
    let path = l.project.scripts_dir(&s.pack).join(&s.rel);
    let shown = l.shown(&path);
    let bytes = read_script(l, s, &path, &shown).ok()?;
    let text = decode(&bytes, &shown).ok()?;
    let name = shown.to_string_lossy().replace('\\', "/");
    let ast = crate::script::compile(&name, &text).ok()?;
    Some((ast.clone_functions_only(), hash_bytes(&bytes)))
}

/// Read and compile one script (through a [`Loader`]'s cache when there is one). `lib` is
/// the rules script's functions and the rules script's content hash.
pub(super) fn compile_one(l: &PackLoad<'_>, s: &ScriptRef, lib: Option<(&rhai::AST, u64)>) -> ScriptOut {
    let path = l.project.scripts_dir(&s.pack).join(&s.rel);
    let shown = l.shown(&path);
    let bytes = match read_script(l, s, &path, &shown) {
        Ok(b) => b,
        Err(d) => return ScriptOut::failed(vec![*d], None),
    };
    let file = ScriptFile {
        hash: hash_bytes(&bytes),
        len: bytes.len(),
        name: shown.to_string_lossy().replace('\\', "/"),
        path,
        shown,
    };
    let cache = l.cache.as_deref().filter(|_| l.opts.compile_scripts);
    if let Some(c) = cache.and_then(|c| c.scripts.get(&file.path)) {
        if c.hash == file.hash
            && c.len == file.len
            && c.shown == file.shown
            && c.script.rel == s.rel
            && c.script.pack == s.pack
        {
            return from_cache(l, c, file, lib);
        }
    }
    let text = match decode(&bytes, &file.shown) {
        Ok(t) => t,
        Err(d) => return ScriptOut::failed(vec![*d], None),
    };
    let src = SourceFile::new(file.shown.clone(), text.as_str());
    if !l.opts.compile_scripts {
        return uncompiled(s, file, src);
    }
    // Rhai takes a block comment left open at the end as running to the end of the file.
    if let Some(at) = unclosed_block_comment(&text) {
        let d = Diagnostic::error("script-syntax", "script does not compile: this block comment is never closed")
            .at(&src, at..at + 2)
            .hint("close it with `*/` (block comments nest: each `/*` inside needs its own `*/`)");
        return ScriptOut {
            res: Err(vec![d]),
            src: Some(src),
            entry: None,
            compiled: true,
            merged: false,
            cached: false,
        };
    }
    compile_text(l, s, lib, file, &text, src)
}

/// One script file as read: where it is, how it is shown and named, and its content's
/// hash and length.
struct ScriptFile {
    path: PathBuf,
    shown: PathBuf,
    /// The name the compiled script carries (its shown path, with `/`).
    name: String,
    hash: u64,
    len: usize,
}

/// The bytes of a script, or why they cannot be read: missing, refused (too large, not
/// a file, unreadable), or outside the project.
fn read_script(l: &PackLoad<'_>, s: &ScriptRef, path: &Path, shown: &Path) -> Result<Vec<u8>, Box<Diagnostic>> {
    let bytes = match crate::fsread::read_checked(path, crate::fsread::Kind::Script) {
        Ok(b) => b,
        Err(crate::fsread::ReadError::Io(_, e)) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut d = Diagnostic::error(
                "missing-script",
                format!("script `{}` cannot be read: {}", shown.display(), io_reason(&e)),
            );
            if let Some(f) = l.sources.get(&s.file) {
                if s.span != (0..0) {
                    d = d.at(f, s.span.clone());
                } else {
                    d = d.in_file(shown);
                }
            } else {
                d = d.in_file(shown);
            }
            let hint = format!("create {} or fix the path (it is relative to scripts/{}/)", shown.display(), s.pack);
            return Err(Box::new(d.hint(hint)));
        }
        Err(e) => {
            // There, but refused: too large, not a file, or unreadable.
            let d = Diagnostic::error("unreadable", format!("script `{}` is refused: {}", shown.display(), e.reason()));
            let d = match l.sources.get(&s.file) {
                Some(f) if s.span != (0..0) => d.at(f, s.span.clone()),
                _ => d.in_file(shown),
            };
            return Err(Box::new(d));
        }
    };
    if let Ok(canon) = path.canonicalize() {
        if !canon.starts_with(&l.root) {
            let d = Diagnostic::error("symlink-outside-project", "script resolves to a file outside the project")
                .in_file(shown);
            return Err(Box::new(d));
        }
    }
    Ok(bytes)
}

/// An unchanged script from the cache, with the rules' functions merged in again (and
/// its calls into them checked again) when the rules changed.
fn from_cache(l: &PackLoad<'_>, c: &CachedScript, file: ScriptFile, lib: Option<(&rhai::AST, u64)>) -> ScriptOut {
    let (ast, merged, remerged) = match lib {
        None => (c.script.ast.clone(), c.merged.clone(), false),
        Some((lib, lh)) => match &c.merged {
            Some((h, m)) if *h == lh => (m.clone(), c.merged.clone(), false),
            _ => {
                // The rules changed: the calls into them are checked again.
                let findings = lint_diagnostics(&c.src, &c.script.ast, Some(lib));
                if !findings.is_empty() {
                    return ScriptOut::failed(findings, Some(c.src.clone()));
                }
                let m = merge_rules(lib, &c.script.ast, &file.name);
                (m.clone(), Some((lh, m)), true)
            }
        },
    };
    let entry = CachedScript {
        hash: file.hash,
        len: c.len,
        shown: c.shown.clone(),
        script: c.script.clone(),
        src: c.src.clone(),
        merged,
        seen: l.cache.as_deref().map_or(0, |c| c.generation),
    };
    ScriptOut {
        res: Ok(Script { ast, ..c.script.clone() }),
        src: Some(c.src.clone()),
        entry: Some((file.path, entry)),
        compiled: false,
        merged: remerged,
        cached: true,
    }
}

/// A script read but not compiled (scripts are not compiled in this load).
fn uncompiled(s: &ScriptRef, file: ScriptFile, src: SourceFile) -> ScriptOut {
    let script = Script {
        path: file.shown,
        rel: s.rel.clone(),
        pack: s.pack.clone(),
        ast: Arc::new(rhai::AST::empty()),
        functions: BTreeSet::new(),
        references: Arc::default(),
        hash: file.hash,
    };
    ScriptOut { res: Ok(script), src: Some(src), entry: None, compiled: false, merged: false, cached: false }
}

/// Compile a script's text and check its calls; the script with the rules' functions
/// merged in, and for a [`Loader`] the cache entry to keep.
fn compile_text(
    l: &PackLoad<'_>,
    s: &ScriptRef,
    lib: Option<(&rhai::AST, u64)>,
    file: ScriptFile,
    text: &str,
    src: SourceFile,
) -> ScriptOut {
    let ScriptFile { path, shown, name, hash, len } = file;
    let cache = l.cache.as_deref().filter(|_| l.opts.compile_scripts);
    match crate::script::compile(&name, text) {
        Ok(ast) => {
            let (findings, unchecked) = lint_findings(&src, &ast, lib.map(|(l, _)| l), l.rules_broken);
            l.unchecked_calls.fetch_add(unchecked, std::sync::atomic::Ordering::Relaxed);
            if !findings.is_empty() {
                return ScriptOut {
                    res: Err(findings),
                    src: Some(src),
                    entry: None,
                    compiled: true,
                    merged: false,
                    cached: false,
                };
            }
            let functions: BTreeSet<String> = crate::script::function_names(&ast).map(str::to_string).collect();
            let references = Arc::new(crate::script::lint::references(&ast));
            let own = Script {
                path: shown.clone(),
                rel: s.rel.clone(),
                pack: s.pack.clone(),
                ast: Arc::new(ast),
                functions,
                references,
                hash,
            };
            let merged = lib.map(|(lib, lh)| (lh, merge_rules(lib, &own.ast, &name)));
            let script =
                Script { ast: merged.as_ref().map_or_else(|| own.ast.clone(), |(_, m)| m.clone()), ..own.clone() };
            let entry = cache.map(|c| {
                let e = CachedScript {
                    hash,
                    len,
                    shown,
                    script: own,
                    src: src.clone(),
                    merged: merged.clone(),
                    seen: c.generation,
                };
                (path, e)
            });
            ScriptOut { res: Ok(script), src: Some(src), entry, compiled: true, merged: lib.is_some(), cached: false }
        }
        Err(e) => {
            let pos = e.position();
            let (line, col) = (pos.line().unwrap_or(0), pos.position().unwrap_or(1));
            let mut msg = e.err_type().to_string();
            let mut hint = script_error_hint(&msg);
            if let rhai::ParseErrorType::VariableUndefined(name) = e.err_type() {
                if in_closure(text, line, col, name) {
                    msg = format!(
                        "`{name}` is not a variable of this closure: a closure sees only its own parameters \
                         (and the script's functions), not the variables of the function it is written in"
                    );
                    hint = Some(format!(
                        "hand the value to the closure as a parameter: `(|{name}, x| ...).curry({name})`; for a \
                         menu option, put it in the option's fields (`#{{ {name}: {name} }}`) and read `o.{name}`"
                    ));
                } else if declared_at_top(text, name) {
                    msg = format!(
                        "`{name}` is a variable of the script's top level, which functions do not see (each \
                         function sees its parameters, its own `let`s and the script's `const`s)"
                    );
                    hint = Some(format!(
                        "declare it `const {name} = ...;` (functions see the script's constants), or, for a \
                         number of the game, put it in pack.toml's [options] and read it with `option(\"...\")`"
                    ));
                }
            }
            let mut d = Diagnostic::error("script-syntax", format!("script does not compile: {msg}"));
            d = if line > 0 { d.at_line_col(&src, line, col) } else { d.in_file(shown) };
            ScriptOut {
                res: Err(vec![d.maybe_hint(hint)]),
                src: Some(src),
                entry: None,
                compiled: true,
                merged: false,
                cached: false,
            }
        }
    }
}

/// The static checks of a compiled script ([`crate::script::lint`]) as diagnostics.
fn lint_diagnostics(src: &SourceFile, ast: &rhai::AST, lib: Option<&rhai::AST>) -> Vec<Diagnostic> {
    lint_findings(src, ast, lib, false).0
}

/// As [`lint_diagnostics`]; with `rules_broken`, calls to unknown functions are not
/// reported (they may be the broken rules script's) but counted.
fn lint_findings(
    src: &SourceFile,
    ast: &rhai::AST,
    lib: Option<&rhai::AST>,
    rules_broken: bool,
) -> (Vec<Diagnostic>, usize) {
    let mut findings = crate::script::lint::check_calls(ast, lib);
    let before = findings.len();
    if rules_broken {
        findings.retain(|f| !f.message.starts_with("no function"));
    }
    let unchecked = before - findings.len();
    let mut diags: Vec<Diagnostic> = findings
        .into_iter()
        .map(|f| {
            let code = if f.message.starts_with("no function") { "unknown-function" } else { "wrong-arity" };
            let d = Diagnostic::error(code, f.message);
            let d = if f.line > 0 { d.at_line_col(src, f.line, f.col) } else { d.in_file(src.path.clone()) };
            d.maybe_hint(f.hint)
        })
        .collect();
    diags.extend(shadowing(src, ast));
    (diags, unchecked)
}

/// A script function named as one of Crown's or Rhai's: with the same number of
/// parameters it silently replaces the built-in for every script call; with another, a
/// call with the built-in's arguments runs the built-in, and a slip in the count gives an
/// arity error that names neither. Either way, the name must change.
fn shadowing(src: &SourceFile, ast: &rhai::AST) -> Vec<Diagnostic> {
    crate::script::lint::shadowed_builtins(ast)
        .into_iter()
        .map(|(name, n, builtin)| {
            let counts: Vec<String> = builtin.iter().map(usize::to_string).collect();
            let what = if builtin.contains(&n) {
                format!("this `{name}` takes {n} argument{} as the built-in does, so it replaces the built-in for every script call", if n == 1 { "" } else { "s" })
            } else {
                format!(
                    "a call with {} argument{} runs the built-in instead of this one",
                    counts.join(" or "),
                    if counts.len() == 1 && counts[0] == "1" { "" } else { "s" }
                )
            };
            let d = Diagnostic::error(
                "shadows-builtin",
                format!("`{name}` is already the name of a built-in function (docs/script-api.md lists them): {what}"),
            );
            let needle = format!("fn {name}(");
            let d = match src.text.lines().position(|l| l.trim_start().starts_with(&needle)) {
                Some(i) => d.at_line_col(src, i + 1, 1),
                None => d.in_file(src.path.clone()),
            };
            d.hint(format!("give this function another name (`my_{name}`, or one that says what it does)"))
        })
        .collect()
}

/// The byte offset of the outermost `/*` that is never closed (outside strings and line
/// comments; block comments nest, as in Rhai).
fn unclosed_block_comment(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !open.is_empty() {
            if b[i..].starts_with(b"/*") {
                open.push(i);
                i += 2;
            } else if b[i..].starts_with(b"*/") {
                open.pop();
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                open.push(i);
                i += 2;
            }
            q @ (b'"' | b'`' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    open.first().copied()
}

/// Whether position (`line`, `col`, 1-based) of `text` is inside a closure's body, and
/// `name` a variable of some function (a `let` or a parameter): the last closure
/// parameter list before the position (`|o|`, `|a, b|`) opens a body that has not ended
/// there (no bracket closed past it, no `,` or `;` outside brackets, its `{ }` not closed).
fn in_closure(text: &str, line: usize, col: usize, name: &str) -> bool {
    let mut before: String = text.lines().take(line.saturating_sub(1)).map(|l| format!("{l}\n")).collect();
    let Some(l) = text.lines().nth(line.saturating_sub(1)) else { return false };
    before.extend(l.chars().take(col.saturating_sub(1)));
    let bars: Vec<usize> = before.match_indices('|').map(|(i, _)| i).collect();
    let params_at = bars.windows(2).rev().find(|w| {
        let params = before[w[0] + 1..w[1]].trim();
        !params.is_empty()
            && params.split(',').all(|p| {
                let p = p.trim();
                p.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && p.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
    });
    let Some(w) = params_at else { return false };
    let body = &before[w[1] + 1..];
    let braced = body.trim_start().starts_with('{');
    let mut depth = 0usize;
    for ch in body.chars() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
                if braced && depth == 0 {
                    return false;
                }
            }
            ',' | ';' if depth == 0 => return false,
            _ => (),
        }
    }
    declared_in_a_function(text, name)
}

/// Whether `name` is declared by a `let` or as a function's parameter somewhere in `text`.
fn declared_in_a_function(text: &str, name: &str) -> bool {
    let word = |s: &str| {
        s.trim_start().strip_prefix(name).is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    };
    text.split("let ").skip(1).any(word)
        || text.lines().filter_map(|l| l.trim_start().strip_prefix("fn ")).any(|sig| {
            sig.split_once('(')
                .and_then(|(_, r)| r.split_once(')'))
                .is_some_and(|(ps, _)| ps.split(',').any(|p| p.trim() == name))
        })
}

/// Whether `text` declares `name` with `let` at its top level (a line that starts,
/// unindented, with the declaration). Functions see top-level `const`s, not `let`s.
fn declared_at_top(text: &str, name: &str) -> bool {
    text.lines().any(|l| {
        l.strip_prefix("let ").is_some_and(|rest| {
            rest.trim_start().strip_prefix(name).is_some_and(|after| {
                after.trim_start().starts_with('=') || after.trim_start().starts_with(';') || after.is_empty()
            })
        })
    })
}

fn script_error_hint(msg: &str) -> Option<String> {
    let m = msg.to_lowercase();
    if m.contains("eval") {
        Some("`eval` is disabled in Crown scripts; call functions directly".into())
    } else if m.contains("import") {
        Some("scripts cannot import modules; the rules script's functions are available to every card script".into())
    } else if m.contains("too deeply nested") || m.contains("expression exceeds") {
        let (top, in_fn) = crate::script::LIMITS.expr_depth;
        Some(format!(
            "expressions may nest at most {top} levels at the top of a script and {in_fn} inside functions; \
             split it into smaller expressions or functions"
        ))
    } else if m.contains("variable not found") || m.contains("undefined variable") {
        Some("declare it with `let` first; scripts run with strict variables".into())
    } else if m.contains("timestamp") {
        Some("there is no clock in Crown scripts: games must be deterministic".into())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unclosed_block_comments_are_found() {
        assert_eq!(unclosed_block_comment("fn f() {}\n/* open\nfn g() {}\n"), Some(10));
        assert_eq!(unclosed_block_comment("/* a /* b */ c */ fn f() {}"), None);
        assert_eq!(unclosed_block_comment("/* a /* b */ c"), Some(0));
        assert_eq!(unclosed_block_comment("let s = \"/*\"; // /* not a comment\nlet c = '*';"), None);
        assert_eq!(unclosed_block_comment("let s = `/* ${x}`;"), None);
    }

    #[test]
    fn a_name_inside_a_closure_is_told_apart() {
        let text = "fn f(p) {\n    [1].filter(|x| x == p)\n}\nfn g(a, b) { a || b && c }\n\
                    fn h(p) { s.sort(|a, b| a - p) }\nfn k(q) { m.add(\"go\", |o| o.to, #{ to: q }) }\n\
                    fn n(q) {\n    let big = w.filter(|c| {\n        c > q\n    });\n}";
        assert!(in_closure(text, 2, 25, "p"));
        assert!(!in_closure(text, 4, 24, "c"));
        assert!(in_closure(text, 5, 30, "p"));
        assert!(!in_closure(text, 2, 5, "p"));
        // After the closure has ended; a name no function declares; a body on its own lines.
        assert!(!in_closure(text, 6, 40, "q"));
        assert!(!in_closure(text, 2, 25, "undeclared"));
        assert!(in_closure(text, 9, 13, "q"));
    }

    #[test]
    fn top_level_declarations_are_found() {
        assert!(declared_at_top("// rules\nlet WIN = 7;\nfn f() { WIN }\n", "WIN"));
        assert!(!declared_at_top("const WIN=7;\n", "WIN"));
        assert!(!declared_at_top("fn f() {\n    let WIN = 7;\n}\n", "WIN"));
        assert!(!declared_at_top("let WINNER = 7;\n", "WIN"));
    }
}
