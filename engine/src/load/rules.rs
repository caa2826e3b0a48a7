//! The rules script: one file, or several read as one (`rules = ["rules.rhai",
//! "invariants.rhai"]`). Each file is compiled and checked on its own, over the functions of
//! the others, so a finding names the file that holds it; the first file's script carries
//! every function (and its own top-level code), and is what games run.

use std::collections::BTreeMap;

use super::files::path_key;
use super::finish::Compiled;
use super::scripts::functions_of;
use super::{PackLoad, ScriptRef};
use crate::content::Script;
use crate::diag::Diagnostic;

impl PackLoad<'_> {
    /// Compile the rules script (which must define `turn()`); its functions alone (of
    /// every file), for the card scripts, with their content hash.
    pub(super) fn compile_rules(&mut self, rules: Option<&ScriptRef>, c: &mut Compiled) -> Option<(rhai::AST, u64)> {
        let r = rules?;
        let parts: Vec<ScriptRef> = std::iter::once(r.clone())
            .chain(r.more.iter().map(|(rel, span)| ScriptRef {
                rel: rel.clone(),
                span: span.clone(),
                more: Vec::new(),
                ..r.clone()
            }))
            .collect();
        for p in &parts {
            let path = self.project.scripts_dir(&p.pack).join(&p.rel);
            c.used.insert(path_key(&self.shown(&path)));
        }
        let scripts = if parts.len() == 1 { vec![self.compile_script(r, None)] } else { self.compile_parts(&parts) };
        if scripts.iter().any(Option::is_none) {
            self.rules_broken = true;
            return None;
        }
        let scripts: Vec<Script> = scripts.into_iter().flatten().collect();
        if self.opts.compile_scripts && !scripts.iter().any(|s| s.functions.contains("turn")) {
            let d = Diagnostic::error("missing-turn", "the rules script defines no `turn()` function")
                .in_file(scripts[0].path.clone())
                .hint("games call `fn turn()` once per turn until `end_game`; define it in the rules script");
            self.diags.push(match self.sources.get(&r.file).cloned() {
                Some(f) if r.span != (0..0) => d.related(&f, r.span.clone(), "the rules script is named here"),
                _ => d,
            });
        }
        let hash = match &scripts[..] {
            [one] => one.hash,
            several => {
                crate::content::hash_bytes(&several.iter().flat_map(|s| s.hash.to_le_bytes()).collect::<Vec<u8>>())
            }
        };
        self.invariants_take_nothing(&scripts);
        let lib = (scripts[0].ast.clone_functions_only(), hash);
        for (p, s) in parts.iter().zip(scripts) {
            let i = c.scripts.len();
            if c.rules.is_none() {
                c.rules = Some(i);
            } else {
                c.rule_parts.push(i);
            }
            c.index.insert((p.pack.clone(), p.rel.clone()), i);
            c.scripts.push(s);
        }
        Some(lib)
    }

    /// An `invariant_...` function with parameters is never run (the engine calls
    /// invariants with none): an error at it.
    fn invariants_take_nothing(&mut self, scripts: &[Script]) {
        for s in scripts {
            let own = s.ast.iter_functions().filter(|f| s.functions.contains(f.name));
            for f in own.filter(|f| f.name.starts_with("invariant_") && !f.params.is_empty()) {
                let line = self.sources.fn_line(&s.path, f.name);
                let d = Diagnostic::error(
                    "invariant-with-parameters",
                    format!(
                        "`{}` takes {}, but an invariant takes none: the engine never runs it",
                        f.name,
                        crate::script::api::count_words(f.params.len() as i64, "parameter", None)
                    ),
                );
                let d = match (self.sources.get(&s.path), line) {
                    (Some(src), Some(l)) => d.at_line_col(src, l, 1),
                    _ => d.in_file(s.path.clone()),
                };
                self.diags.push(d.hint("read what it needs from the table (players(), counters...) inside it, or rename it if it is a helper"));
            }
        }
    }

    /// Each file of a rules script in several, compiled over the functions of the others
    /// (read first, so calls between them check either way); a function defined in two
    /// of them is an error at the second.
    fn compile_parts(&mut self, parts: &[ScriptRef]) -> Vec<Option<Script>> {
        let own: Vec<Option<(rhai::AST, u64)>> = parts.iter().map(|p| functions_of(self, p)).collect();
        if own.iter().any(Option::is_none) {
            // A file that cannot be read or parsed: calls into it are not checked.
            self.rules_broken = true;
        }
        let mut out = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let others: Vec<&(rhai::AST, u64)> =
                own.iter().enumerate().filter(|&(j, _)| j != i).filter_map(|(_, o)| o.as_ref()).collect();
            let mut lib = rhai::AST::empty();
            let mut bytes = Vec::new();
            for (ast, h) in &others {
                lib = lib.merge(ast);
                bytes.extend(h.to_le_bytes());
            }
            out.push(self.compile_script(p, Some((&lib, crate::content::hash_bytes(&bytes)))));
        }
        self.defined_twice(parts, &own);
        out
    }

    /// A function (by name and arity) that two rules files define: the later one would
    /// silently replace the earlier.
    fn defined_twice(&mut self, parts: &[ScriptRef], own: &[Option<(rhai::AST, u64)>]) {
        let mut first: BTreeMap<(String, usize), usize> = BTreeMap::new();
        for (i, o) in own.iter().enumerate() {
            let Some((ast, _)) = o else { continue };
            for f in ast.iter_functions() {
                let key = (f.name.to_string(), f.params.len());
                let Some(&j) = first.get(&key) else {
                    first.insert(key, i);
                    continue;
                };
                let shown = |k: usize| self.shown(&self.project.scripts_dir(&parts[k].pack).join(&parts[k].rel));
                let (here, there) = (shown(i), shown(j));
                let line = self.sources.fn_line(&here, f.name);
                let d = Diagnostic::error(
                    "defined-twice",
                    format!(
                        "`{}` with {} parameter{} is defined in {} too; the rules files are read as one script",
                        f.name,
                        f.params.len(),
                        if f.params.len() == 1 { "" } else { "s" },
                        there.display()
                    ),
                );
                let d = match (self.sources.get(&here), line) {
                    (Some(src), Some(l)) => d.at_line_col(src, l, 1),
                    _ => d.in_file(here),
                };
                self.diags.push(d.hint("rename one of them, or keep only one"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::load::{load_pack, LoadOptions, Project};

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A pack whose rules are `rules.rhai` and `more.rhai`, with `pack.toml` as given.
    fn two_files(manifest_rules: &str, rules: &str, more: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "content/p/pack.toml",
            &format!("id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = {{ min = 1, max = 2 }}\n{manifest_rules}\n"),
        );
        write(root, "scripts/p/rules.rhai", rules);
        write(root, "scripts/p/more.rhai", more);
        dir
    }

    fn play(pack: crate::content::Pack) -> (crate::game::Game, crate::game::Outcome) {
        let cfg = crate::game::GameConfig::new(1, 1);
        let agents: Vec<Box<dyn crate::game::agent::Agent>> = vec![Box::new(crate::game::agent::FirstAgent)];
        crate::game::Game::new(std::sync::Arc::new(pack), cfg, agents).expect("a game").run()
    }

    fn errors(root: &Path) -> Vec<String> {
        let loaded = load_pack(&Project::new(root), "p", LoadOptions::default());
        loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                format!(
                    "{}:{} {}",
                    d.file.as_ref().map(|f| f.display().to_string()).unwrap_or_default(),
                    d.line,
                    d.message
                )
            })
            .collect()
    }

    /// Files listed in `rules` are read as one: calls go both ways, hooks may sit in any
    /// of them, and a game runs them all.
    #[test]
    fn rule_files_are_read_as_one() {
        let dir = two_files(
            "rules = [\"rules.rhai\", \"more.rhai\"]",
            "fn setup() { set(\"n\", helper()) }\nfn base() { 40 }\n",
            "fn helper() { base() + 2 }\nfn turn() { end_game([], `n is ${get(\"n\")}`); }\n",
        );
        let loaded = load_pack(&Project::new(dir.path()), "p", LoadOptions::default());
        let pack = loaded.pack.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
        assert!(
            loaded.diagnostics.iter().all(|d| !d.is_error() && d.code != "unused-script"),
            "{:?}",
            loaded.diagnostics
        );
        assert_eq!(pack.rule_files().map(|s| s.rel.as_str()).collect::<Vec<_>>(), ["rules.rhai", "more.rhai"]);
        assert!(pack.rules_define("turn") && pack.rules_define("base"));
        assert!(pack.rules_hash().is_some());
        let (_, out) = play(pack);
        assert_eq!(out.status, crate::game::Status::Finished, "{out:?}");
        assert_eq!(out.reason, "n is 42");
    }

    /// Without the list, a call into the other file is an error of the file that makes it;
    /// a function both define is an error at the second; a file listed twice is refused.
    #[test]
    fn rule_files_are_checked_each_at_its_place() {
        let rules = "fn setup() { helper() }\nfn turn() { end_game([], \"done\"); }\n";
        let dir = two_files("", rules, "fn helper() { 1 }\n");
        let e = errors(dir.path());
        assert!(e.iter().any(|e| e.contains("rules.rhai") && e.contains("helper")), "{e:?}");

        let dir = two_files("rules = [\"rules.rhai\", \"more.rhai\"]", rules, "fn helper() { 1 }\n\nfn turn() { 2 }\n");
        let e = errors(dir.path());
        assert!(
            e.iter().any(|e| e.contains("more.rhai:3") && e.contains("`turn` with 0 parameters is defined in")),
            "{e:?}"
        );

        let dir = two_files("rules = [\"rules.rhai\", \"more.rhai\", \"rules.rhai\"]", rules, "fn helper() { 1 }\n");
        let e = errors(dir.path());
        assert!(e.iter().any(|e| e.contains("pack.toml:5") && e.contains("listed twice")), "{e:?}");

        let dir = two_files("rules = [\"rules.rhai\", \"gone.rhai\"]", rules, "fn helper() { 1 }\n");
        let e = errors(dir.path());
        assert!(e.iter().any(|e| e.contains("pack.toml:5") && e.contains("gone.rhai")), "{e:?}");

        let dir = two_files("rules = []", rules, "");
        let e = errors(dir.path());
        assert!(e.iter().any(|e| e.contains("at least one rules file")), "{e:?}");
    }

    /// An invariant with parameters would never run: an error at it.
    #[test]
    fn an_invariant_with_parameters_is_an_error() {
        let dir = two_files(
            "rules = [\"rules.rhai\", \"more.rhai\"]",
            "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n",
            "fn invariant_fine() { true }\n\nfn invariant_of(p) { p >= 0 }\n",
        );
        let e = errors(dir.path());
        assert!(e.iter().any(|e| e.contains("more.rhai:3") && e.contains("`invariant_of` takes 1 parameter")), "{e:?}");
        assert!(!e.iter().any(|e| e.contains("invariant_fine")), "{e:?}");
    }

    /// A failure inside a function of a further file is reported in that file.
    #[test]
    fn a_failure_is_placed_in_the_file_that_defines_the_function() {
        let dir = two_files(
            "rules = [\"rules.rhai\", \"more.rhai\"]",
            "fn setup() {}\nfn turn() { helper(); end_game([], \"done\"); }\n",
            "// helpers\n\nfn helper() {\n    let x = [1];\n    x[3]\n}\n",
        );
        let loaded = load_pack(&Project::new(dir.path()), "p", LoadOptions::default());
        let pack = loaded.pack.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
        let (_, out) = play(pack);
        let crate::game::Status::Failed(f) = out.status else { panic!("the call fails: {out:?}") };
        let text = f.to_string();
        assert!(text.contains("more.rhai:5"), "{text}");
    }
}
