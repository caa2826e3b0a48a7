//! The steps of finishing a pack once every layer is folded in: check references,
//! compile the scripts and attach them, check hooks, names and scenarios, and warn of
//! what nothing uses.

use crate::diag::plural;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;

use rayon::prelude::*;

use super::checks::board_space_ids;
use super::files::{path_key, span_of_key};
use super::scripts::{compile_one, ScriptOut};
use super::{PackLoad, Ref, RefKind, ScriptRef, PACK_WIDE};
use crate::content::model::{BoardFile, PackManifest};
use crate::content::{Def, DefKind, Origin, ScenarioEntry, Script};
use crate::diag::{did_you_mean, Diagnostic, SourceFile};
use crate::script::lint::Names;

/// The pack's scripts once compiled: each by its pack and path, which one is the rules
/// script, which script files were used, and whether any failed.
#[derive(Default)]
pub(super) struct Compiled {
    pub(super) scripts: Vec<Script>,
    pub(super) index: BTreeMap<(String, String), usize>,
    /// The rules script's first file, and its further files (when `rules` lists several).
    pub(super) rules: Option<usize>,
    pub(super) rule_parts: Vec<usize>,
    /// Script paths as normalised bytes (comparing `Path`s is slow on large packs).
    pub(super) used: BTreeSet<OsString>,
    /// Some script did not compile (the rules script included).
    pub(super) some_failed: bool,
}

/// Definitions sorted by id, apart from their script references, with an index by id.
pub(super) fn sort_defs(
    mut defs: Vec<(Def, Option<ScriptRef>)>,
) -> (Vec<Def>, Vec<Option<ScriptRef>>, BTreeMap<String, usize>) {
    // Definitions are kept sorted by id, so reordering them within or across files
    // never changes a game (card instances are created in this order).
    defs.sort_by(|a, b| a.0.def.id.cmp(&b.0.def.id));
    // The definitions move into the pack (no copies); their script references stay beside.
    let (pack_defs, srefs): (Vec<Def>, Vec<Option<ScriptRef>>) = defs.into_iter().unzip();
    let mut index = BTreeMap::new();
    for (i, d) in pack_defs.iter().enumerate() {
        index.insert(d.def.id.clone(), i);
    }
    (pack_defs, srefs, index)
}

impl PackLoad<'_> {
    /// Check the manifest's players, card size and version.
    pub(super) fn check_manifest(&mut self, m: &PackManifest, f: &SourceFile) {
        let find = |key: &str| span_of_key(&f.text, key);
        if m.players.min < 1 || m.players.max < m.players.min || m.players.max > 16 {
            self.diags.push(
                Diagnostic::error(
                    "bad-players",
                    format!("players = {}..{} is not a valid range", m.players.min, m.players.max),
                )
                .at(f, find("players"))
                .hint("use 1 <= min <= max <= 16"),
            );
        }
        if let Some(size) = &m.card_size {
            if crate::content::card_size_mm(size).is_none_or(|(w, h)| !(w > 0.0 && h > 0.0 && w < 1000.0 && h < 1000.0))
            {
                self.diags.push(
                    Diagnostic::error("bad-card-size", "unknown or impossible card size")
                        .at(f, find("card_size"))
                        .hint(format!(
                            "use {}, or {{ width_mm = 63, height_mm = 88 }}",
                            crate::content::card_size_names()
                        )),
                );
            }
        }
        if let Some(sq) = m.print.tile_square_mm.filter(|s| !(10.0..=200.0).contains(s)) {
            self.diags.push(
                Diagnostic::error(
                    "out-of-range",
                    format!("[print] tile_square_mm = {sq}: a tile's square is 10 to 200 mm"),
                )
                .at(f, span_of_table_key(&f.text, "print", "tile_square_mm"))
                .hint("give the side in millimetres, 10 to 200 (40 when left out)"),
            );
        }
        if m.version.trim().is_empty() {
            self.diags.push(Diagnostic::error("empty-version", "version is empty").at(f, find("version")));
        }
        if let Some(search) = &m.search {
            let ranges = [
                ("rollouts", search.rollouts, 1, 100_000),
                ("depth", search.depth, 1, 100_000),
                ("margin", search.margin, 0, 100),
                ("candidates", search.candidates, 2, 1000),
            ];
            for (key, value, lo, hi) in ranges {
                if let Some(v) = value.filter(|v| !(lo..=hi).contains(v)) {
                    self.diags.push(
                        Diagnostic::error("bad-search", format!("[search] {key} = {v} is out of range"))
                            .at(f, span_of_table_key(&f.text, "search", key))
                            .hint(format!("use {lo} to {hi}")),
                    );
                }
            }
        }
        if let Some(kind) = m.sim.as_ref().and_then(|s| s.agents.as_deref()) {
            let problem = if kind == "human" {
                Some(("`crown sim` plays bots only".to_string(), None))
            } else {
                crate::bots::unknown_kind(kind)
            };
            if let Some((msg, near)) = problem {
                self.diags.push(
                    Diagnostic::error("bad-sim-agents", format!("[sim] agents = \"{kind}\": {msg}"))
                        .at(f, span_of_table_key(&f.text, "sim", "agents"))
                        .hint(near.map_or_else(
                            || "use random, first, greedy or search".to_string(),
                            |n| format!("did you mean `{n}`?"),
                        )),
                );
            }
        }
        let mut seen = BTreeSet::new();
        for ph in &m.phases {
            let problem = if ph.trim().is_empty() {
                Some("a phase needs a name".to_string())
            } else if !seen.insert(ph.as_str()) {
                Some(format!("the phase `{ph}` is listed twice"))
            } else {
                None
            };
            if let Some(message) = problem {
                self.diags.push(
                    Diagnostic::error("bad-phases", message)
                        .at(f, find("phases"))
                        .hint("list each phase of a round once, in order: phases = [\"draft\", \"play\"]"),
                );
            }
        }
    }

    /// Check that every reference names a definition, supply or space of the right kind;
    /// the ids of the cards referenced.
    pub(super) fn check_refs(
        &mut self,
        refs: &[Ref],
        pack_defs: &[Def],
        index: &BTreeMap<String, usize>,
        board: Option<&BoardFile>,
    ) -> BTreeSet<String> {
        let spaces: BTreeSet<String> = board.map(board_space_ids).unwrap_or_default();
        let supplies: BTreeSet<&str> =
            board.map(|b| b.supply.iter().map(|s| s.id.as_str()).collect()).unwrap_or_default();
        let mut referenced_cards: BTreeSet<String> = BTreeSet::new();
        for r in refs {
            let ok = match r.kind {
                RefKind::Card => index.get(&r.id).is_some_and(|&i| pack_defs[i].kind == DefKind::Card),
                RefKind::Character => index.get(&r.id).is_some_and(|&i| pack_defs[i].kind.is_character()),
                RefKind::Supply => supplies.contains(r.id.as_str()),
                RefKind::Space => spaces.contains(&r.id),
            };
            if r.kind == RefKind::Card {
                referenced_cards.insert(r.id.clone());
            }
            if !ok {
                let Some(f) = self.sources.get(&r.file).cloned() else {
                    continue;
                };
                let candidates: Vec<&str> = match r.kind {
                    RefKind::Card => {
                        pack_defs.iter().filter(|d| d.kind == DefKind::Card).map(|d| d.def.id.as_str()).collect()
                    }
                    RefKind::Character => {
                        pack_defs.iter().filter(|d| d.kind.is_character()).map(|d| d.def.id.as_str()).collect()
                    }
                    RefKind::Supply => supplies.iter().copied().collect(),
                    RefKind::Space => spaces.iter().map(String::as_str).collect(),
                };
                let wrong_kind = index.get(&r.id).map(|&i| pack_defs[i].kind.as_str());
                let msg = match wrong_kind {
                    Some(k) => format!("`{}` is a {k}, but a {} is expected here", r.id, r.kind.noun()),
                    None => format!("no {} `{}` is defined", r.kind.noun(), r.id),
                };
                let hint = did_you_mean(&r.id, candidates).map(|s| format!("did you mean `{s}`?"));
                self.diags.push(Diagnostic::error("dangling-reference", msg).at(&f, r.span.clone()).maybe_hint(hint));
            }
        }
        referenced_cards
    }

    /// Compile every distinct definition script (in parallel), with the rules' functions
    /// `lib` merged in.
    pub(super) fn compile_def_scripts(
        &mut self,
        srefs: &[Option<ScriptRef>],
        lib: Option<(&rhai::AST, u64)>,
        c: &mut Compiled,
    ) {
        let mut wanted: Vec<ScriptRef> = Vec::new();
        let mut wanted_keys: BTreeSet<(&str, &str)> = BTreeSet::new();
        for s in srefs.iter().flatten() {
            if wanted_keys.insert((s.pack.as_str(), s.rel.as_str())) {
                wanted.push(s.clone());
            }
        }
        c.some_failed = self.rules_broken;
        let compiled: Vec<(ScriptRef, ScriptOut)> =
            wanted.into_par_iter().map(|s| (s.clone(), compile_one(self, &s, lib))).collect();
        for (s, out) in compiled {
            let path = self.project.scripts_dir(&s.pack).join(&s.rel);
            c.used.insert(path_key(&self.shown(&path)));
            if let Some(script) = self.take_script(out) {
                c.index.insert((s.pack.clone(), s.rel.clone()), c.scripts.len());
                c.scripts.push(script);
            } else {
                c.some_failed = true;
            }
        }
    }

    /// Compile the bots' script as a card script is compiled: over the rules' functions
    /// `lib`, so it may call them. Its index among the scripts.
    pub(super) fn compile_bots(
        &mut self,
        bots: Option<&ScriptRef>,
        lib: Option<(&rhai::AST, u64)>,
        c: &mut Compiled,
    ) -> Option<usize> {
        let b = bots?;
        let path = self.project.scripts_dir(&b.pack).join(&b.rel);
        c.used.insert(path_key(&self.shown(&path)));
        if let Some(&i) = c.index.get(&(b.pack.clone(), b.rel.clone())) {
            return Some(i);
        }
        let out = compile_one(self, b, lib);
        let Some(script) = self.take_script(out) else {
            c.some_failed = true;
            return None;
        };
        let i = c.scripts.len();
        c.index.insert((b.pack.clone(), b.rel.clone()), i);
        c.scripts.push(script);
        Some(i)
    }

    /// One mistake, one error: say on the rules script's error how many card script calls
    /// wait for it to be fixed before they are checked.
    pub(super) fn note_unchecked_calls(&mut self, rules: Option<&ScriptRef>) {
        let unchecked = self.unchecked_calls.swap(0, std::sync::atomic::Ordering::Relaxed);
        if let (true, Some(r)) = (unchecked > 0, rules) {
            let shown = self.shown(&self.project.scripts_dir(&r.pack).join(&r.rel));
            if let Some(d) = self.diags.iter_mut().find(|d| d.is_error() && d.file.as_deref() == Some(shown.as_path()))
            {
                let note = format!(
                    "not checked until this is fixed: {unchecked} call{} from the other scripts (cards, bots) to functions that are not Crown's",
                    plural(unchecked)
                );
                d.hint = Some(match d.hint.take() {
                    Some(h) => format!("{h}\n{note}"),
                    None => note,
                });
            }
        }
    }

    /// Attach each definition's script, reporting the hooks it names that its script does
    /// not define; the scripts missing a hook.
    pub(super) fn attach_scripts(
        &mut self,
        pack_defs: &mut [Def],
        srefs: &[Option<ScriptRef>],
        c: &Compiled,
    ) -> BTreeSet<usize> {
        let mut missing_hooks: BTreeSet<usize> = BTreeSet::new();
        for (i, sref) in srefs.iter().enumerate() {
            let Some(s) = sref else { continue };
            let Some(&si) = c.index.get(&(s.pack.clone(), s.rel.clone())) else { continue };
            pack_defs[i].script = Some(si);
            let have = &c.scripts[si].functions;
            let hooks = if self.opts.compile_scripts { s.hooks.as_slice() } else { &[] };
            for (hook, span) in hooks {
                if have.contains(hook) {
                    continue;
                }
                missing_hooks.insert(si);
                if let Some(f) = self.sources.get(&s.file).cloned() {
                    let hint = did_you_mean(hook, have.iter().map(String::as_str))
                        .map(|h| format!("the script defines `{h}`; did you mean that?"))
                        .unwrap_or_else(|| format!("define `fn {hook}(...)` in {}", c.scripts[si].path.display()));
                    self.diags.push(
                        Diagnostic::error(
                            "missing-hook",
                            format!("`{}` names hook `{hook}`, but its script does not define it", pack_defs[i].def.id),
                        )
                        .at(&f, span.clone())
                        .hint(hint),
                    );
                }
            }
        }
        missing_hooks
    }

    /// Warn of a card script's function that nothing can reach: not a hook any definition
    /// names, not called by any script, not named in a string (a hook invoked by name).
    pub(super) fn unreachable_functions(
        &mut self,
        pack_defs: &[Def],
        scripts: &[Script],
        missing_hooks: BTreeSet<usize>,
        reachable: &BTreeSet<String>,
    ) {
        // Each script once, named by the first definition that uses it. A script missing
        // a declared hook has its error already (naming the misspelt function): one
        // mistake, one diagnostic.
        let mut seen = missing_hooks;
        for (i, def) in pack_defs.iter().enumerate() {
            let Some(si) = def.script else { continue };
            if !seen.insert(si) {
                continue;
            }
            let own = &scripts[si].functions;
            for f in own {
                if reachable.contains(f) {
                    continue;
                }
                // What it may have meant: a name hooks are invoked or declared by.
                let near = did_you_mean(f, reachable.iter().map(String::as_str));
                let line = self.sources.fn_line(&scripts[si].path, f);
                let mut d = Diagnostic::warning(
                    "unreachable-function",
                    format!(
                        "`{f}` is never called: no definition names it as a hook (`{}` uses this script) and no script calls it",
                        pack_defs[i].def.id
                    ),
                );
                d = match (self.sources.get(&scripts[si].path), line) {
                    (Some(src), Some(l)) => d.at_line_col(src, l, 1),
                    _ => d.in_file(scripts[si].path.clone()),
                };
                self.diags.push(d.maybe_hint(near.map(|n| format!("a misspelt hook? did you mean `{n}`?"))));
            }
        }
    }

    /// The names a function may be reached by: every name a script calls or spells out,
    /// and every hook a definition declares.
    pub(super) fn reachable_names(srefs: &[Option<ScriptRef>], scripts: &[Script]) -> BTreeSet<String> {
        let mut reachable: BTreeSet<String> = BTreeSet::new();
        for sc in scripts {
            reachable.extend(sc.references.names.iter().cloned());
        }
        for s in srefs.iter().flatten() {
            reachable.extend(s.hooks.iter().map(|(h, _)| h.clone()));
        }
        reachable
    }

    /// A function of the rules or bots' script that nothing calls and whose name is near
    /// one the engine calls by name (`greedy_scor` for `greedy_score`): the engine never
    /// runs it, and what it was for silently does not happen.
    pub(super) fn misspelt_engine_hooks(
        &mut self,
        scripts: &[Script],
        rules: &[usize],
        bots: Option<usize>,
        reachable: &BTreeSet<String>,
    ) {
        let bot_hooks = ["greedy_plan", "greedy_score", "evaluate"];
        let groups: [(Vec<&Script>, &[&str]); 2] = [
            (rules.iter().map(|&i| &scripts[i]).collect(), crate::script::ENGINE_HOOKS),
            (bots.map(|i| &scripts[i]).into_iter().collect(), &bot_hooks[..]),
        ];
        for (group, hooks) in groups {
            // The rules' files are read as one: a hook any of them defines is defined.
            let defined = |h: &str| group.iter().any(|sc| sc.functions.contains(h));
            for sc in &group {
                for f in &sc.functions {
                    if reachable.contains(f) || crate::script::ENGINE_HOOKS.contains(&f.as_str()) {
                        continue;
                    }
                    let missing = hooks.iter().copied().filter(|h| !defined(h));
                    let Some(hook) = did_you_mean(f, missing) else { continue };
                    let line = self.sources.fn_line(&sc.path, f);
                    // The engine never runs it: what it was for silently does not happen.
                    let d = Diagnostic::error(
                        "misspelt-hook",
                        format!("`{f}` is never called: the engine calls `{hook}`, which this script does not define"),
                    );
                    let d = match (self.sources.get(&sc.path), line) {
                        (Some(src), Some(l)) => d.at_line_col(src, l, 1),
                        _ => d.in_file(sc.path.clone()),
                    };
                    self.diags.push(d.hint(format!("rename it `{hook}`, or call it from a script if it is a helper")));
                }
            }
        }
    }

    /// A hook of the rules or bots' script written with parameters the engine does not
    /// call it with (`fn render()` for `fn render(viewer)`): the engine calls it by name
    /// and number of arguments, so it would never run.
    pub(super) fn hook_forms(&mut self, scripts: &[Script], rules: &[usize], bots: Option<usize>) {
        for &i in rules.iter().chain(bots.as_ref()) {
            let sc = &scripts[i];
            // (A script's syntax tree holds the rules' functions too: only its own count.)
            for &(hook, arities, form) in crate::script::HOOK_FORMS.iter().filter(|(h, _, _)| sc.functions.contains(*h))
            {
                let written: Vec<usize> =
                    sc.ast.iter_functions().filter(|f| f.name == hook).map(|f| f.params.len()).collect();
                if written.is_empty() || written.iter().any(|n| arities.contains(n)) {
                    continue;
                }
                let line = self.sources.fn_line(&sc.path, hook);
                let d = Diagnostic::error(
                    "hook-arity",
                    format!(
                        "`{hook}` takes {}, but this script's takes {}: the engine never calls it",
                        count_params(arities[0]),
                        count_params(written[0])
                    ),
                );
                let d = match (self.sources.get(&sc.path), line) {
                    (Some(src), Some(l)) => d.at_line_col(src, l, 1),
                    _ => d.in_file(sc.path.clone()),
                };
                self.diags.push(d.hint(format!("write it `{form}`")));
            }
        }
    }

    /// Check the names scripts spell out in strings against what the pack declares
    /// (leaving out what `[check.allow]` accepts, and the pack-wide checks while some
    /// script did not compile).
    pub(super) fn check_script_names(
        &mut self,
        manifest: &PackManifest,
        scripts: &[Script],
        declared: &crate::script::lint::Declared,
        some_script_failed: bool,
    ) {
        for sc in scripts {
            let Some(src) = self.sources.get(&sc.path).cloned() else { continue };
            for n in crate::script::lint::check_names(&sc.references, declared) {
                if !n.error && manifest.check.allows(n.code, Some(&n.subject)) {
                    continue;
                }
                // What scripts write is known only when every script compiled.
                if some_script_failed && PACK_WIDE.contains(&n.code) {
                    continue;
                }
                let f = n.finding;
                let d =
                    if n.error { Diagnostic::error(n.code, f.message) } else { Diagnostic::warning(n.code, f.message) };
                let d = if f.line > 0 { d.at_line_col(&src, f.line, f.col) } else { d.in_file(sc.path.clone()) };
                self.diags.push(d.maybe_hint(f.hint));
            }
        }
    }

    /// A function that changes an array or map parameter in place and never hands it
    /// back: a warning at the change (Rhai passes arguments by value, so the caller's value
    /// never changes), unless `[check.allow]` accepts `param-change-lost` for the function.
    pub(super) fn lost_changes(&mut self, manifest: &PackManifest, scripts: &[Script]) {
        for sc in scripts {
            let Some(src) = self.sources.get(&sc.path).cloned() else { continue };
            for l in &sc.references.lost_changes {
                if manifest.check.allows("param-change-lost", Some(&l.function)) {
                    continue;
                }
                let (f, p) = (&l.function, &l.param);
                let what =
                    if l.how.contains('=') { "assigns into".to_string() } else { format!("calls `{}` on", l.how) };
                let d = Diagnostic::warning(
                    "param-change-lost",
                    format!(
                        "`{f}` {what} its parameter `{p}` but never returns it: Rhai passes arrays and maps to functions by value, so the caller's `{p}` does not change"
                    ),
                );
                let d = if l.line > 0 { d.at_line_col(&src, l.line, l.col) } else { d.in_file(sc.path.clone()) };
                self.diags.push(d.hint(format!(
                    "return it and assign the result (`{p} = {f}(..., {p});` with `{p}` as the function's last value), or keep it where every call sees it (`set`/`get`); if the change is meant for this call only, copy it first: `let {p} = {p};`"
                )));
            }
        }
    }

    /// A zone a script names that pack.toml's `[zones]` does not declare and no built-in
    /// default covers is seen by every seat: a warning at the first line naming it (cards
    /// set aside face down in `aside` would be shown to everyone).
    pub(super) fn undeclared_zones(&mut self, manifest: &PackManifest, scripts: &[Script]) {
        use crate::game::state::{default_visibility, zone_pattern_matches};
        use crate::script::lint::Names;
        // A zone already told as a likely slip (`zone-named-once`) is not told again.
        let mut told: BTreeSet<String> = self
            .diags
            .iter()
            .filter(|d| d.code == "zone-named-once")
            .filter_map(|d| d.message.split('`').nth(1).map(str::to_string))
            .collect();
        for sc in scripts {
            let Some(src) = self.sources.get(&sc.path).cloned() else { continue };
            for l in sc.references.literals.iter().filter(|l| l.names == Names::Zone) {
                let name = l.text.as_str();
                if manifest.zones.keys().any(|p| zone_pattern_matches(p, name))
                    || default_visibility(name).is_some()
                    || manifest.check.allows("undeclared-zone", Some(name))
                    || !told.insert(name.to_string())
                {
                    continue;
                }
                let d = Diagnostic::warning(
                    "undeclared-zone",
                    format!("every seat sees the cards of the zone `{name}`: pack.toml's [zones] does not say who sees it"),
                )
                .hint(format!(
                    "declare it in pack.toml: `[zones]` `{name} = \"nobody\"` (only counted), `\"owner\"` or `\"everyone\"`"
                ));
                self.diags.push(if l.line > 0 {
                    d.at_line_col(&src, l.line, l.col)
                } else {
                    d.in_file(sc.path.clone())
                });
            }
        }
    }

    /// Every setting (pack.toml's `[options]`, a scenario's `[options]`) that no script
    /// reads is an error: a misspelt key there is otherwise ignored without a word.
    pub(super) fn unread_options(
        &mut self,
        manifest: &PackManifest,
        morigin: &Origin,
        scenarios: &[ScenarioEntry],
        scripts: &[Script],
    ) {
        let refs: Vec<&crate::content::refs::References> = scripts.iter().map(|s| &*s.references).collect();
        let read = |k: &str| crate::script::lint::reads_name(refs.iter().copied(), Names::OptionKey, k);
        // Hints: the settings the scripts name, and those other places give that are read.
        let mut known: BTreeSet<&str> = refs
            .iter()
            .flat_map(|r| &r.literals)
            .filter(|l| l.names == Names::OptionKey)
            .map(|l| l.text.as_str())
            .collect();
        known.extend(
            std::iter::once(&manifest.options)
                .chain(scenarios.iter().map(|sc| &sc.scenario.options))
                .flat_map(|o| o.keys())
                .map(String::as_str)
                .filter(|k| read(k)),
        );
        let given: BTreeSet<&str> = std::iter::once(&manifest.options)
            .chain(scenarios.iter().map(|sc| &sc.scenario.options))
            .flat_map(|o| o.keys())
            .map(String::as_str)
            .collect();
        let places = std::iter::once((&manifest.options, morigin, "pack.toml".to_string())).chain(
            scenarios.iter().map(|sc| (&sc.scenario.options, &sc.origin, format!("scenario `{}`", sc.scenario.id))),
        );
        for (options, origin, who) in places {
            for key in options.keys().filter(|k| !read(k)) {
                if manifest.check.allows("unread-option", Some(key)) {
                    continue;
                }
                // The setting silently changes nothing: an error, as a misspelt key is.
                let mut d = Diagnostic::error(
                    "unread-option",
                    format!("{who} sets option `{key}`, but no script reads it, so it changes nothing"),
                );
                d = match self.sources.get(&origin.file).cloned() {
                    Some(f) => {
                        let span = span_of_setting(&f.text, key);
                        if span.is_empty() {
                            d.in_file(origin.file.clone())
                        } else {
                            d.at(&f, span)
                        }
                    }
                    None => d.in_file(origin.file.clone()),
                };
                let made = crate::script::lint::made_name_near(refs.iter().copied(), Names::OptionKey, key);
                let near = crate::diag::did_you_mean(key, known.iter().copied()).or(made.as_deref());
                // The rules may read the slip: a name they read that no setting gives.
                let hint = near.map(|n| {
                    if given.contains(n) {
                        format!("did you mean `{n}`, which the rules read?")
                    } else {
                        format!(
                            "the rules read `{n}`, which no setting gives: one of the two names is misspelt \
                             (here, or where a script reads `{n}`)"
                        )
                    }
                });
                self.diags.push(d.maybe_hint(hint));
            }
        }
    }

    /// Warn of every value key a definition of this pack carries (front, stages, back) that
    /// no script reads: editing it changes no game (only, perhaps, the printed card). A key
    /// carried by many definitions is one warning, at the first, with how many carry it,
    /// the first few named and their places.
    pub(super) fn unread_values(&mut self, manifest: &PackManifest, pack: &str, defs: &[Def], scripts: &[Script]) {
        let refs: Vec<&crate::content::refs::References> = scripts.iter().map(|s| &*s.references).collect();
        let mut verdict: BTreeMap<&str, bool> = BTreeMap::new();
        // Each unread key, in the order first met, with the definitions carrying it.
        let mut unread: Vec<(&str, Vec<&Def>)> = Vec::new();
        for d in defs.iter().filter(|d| d.origin.pack == pack) {
            let def = &d.def;
            let keys = def
                .values
                .keys()
                .chain(def.stages.iter().flat_map(|st| st.values.keys()))
                .chain(def.back.iter().flat_map(|b| b.values.keys()));
            // A key the pack's vocabulary does not declare is an error of its own already.
            let declared = manifest.vocabulary.get(d.kind.as_str()).and_then(|v| v.values.as_ref());
            for key in keys.filter(|k| declared.is_none_or(|v| v.contains_key(*k))) {
                let read = *verdict
                    .entry(key.as_str())
                    .or_insert_with(|| crate::script::lint::reads_name(refs.iter().copied(), Names::ValueKey, key));
                if read || manifest.check.allows("unread-value", Some(key)) {
                    continue;
                }
                match unread.iter_mut().find(|(k, _)| *k == key.as_str()) {
                    Some((_, carriers)) if carriers.last().is_some_and(|c| std::ptr::eq(*c, d)) => {}
                    Some((_, carriers)) => carriers.push(d),
                    None => unread.push((key.as_str(), vec![d])),
                }
            }
        }
        // Where a definition writes `key`, else its id.
        let place = |d: &Def, key: &str| -> Option<(SourceFile, std::ops::Range<usize>)> {
            let f = self.sources.get(&d.origin.file)?.clone();
            let span = span_in(&f.text, definition_text(&f.text, d.origin.id_span.start), key)
                .unwrap_or_else(|| d.origin.id_span.clone());
            Some((f, span))
        };
        let mut out = Vec::new();
        for (key, mut carriers) in unread {
            // In the order they are written.
            carriers.sort_by(|a, b| (&a.origin.file, a.origin.span.start).cmp(&(&b.origin.file, b.origin.span.start)));
            let first = carriers[0];
            let message = match carriers.len() {
                1 => format!(
                    "`{}` has a value `{key}` that no script reads, so changing it changes no game",
                    first.def.id
                ),
                n => {
                    let kinds: BTreeSet<&str> = carriers.iter().map(|d| d.kind.as_str()).collect();
                    let what = match kinds.iter().next() {
                        Some(k) if kinds.len() == 1 => format!("{k}s"),
                        _ => "definitions".to_string(),
                    };
                    let named: Vec<String> = carriers.iter().take(3).map(|d| format!("`{}`", d.def.id)).collect();
                    let more = if n > 3 { format!(" and {} more", n - 3) } else { String::new() };
                    format!(
                        "{n} {what} ({}{more}) have a value `{key}` that no script reads, so changing it changes no game",
                        named.join(", ")
                    )
                }
            };
            let mut d = Diagnostic::warning("unread-value", message).hint(format!(
                "read it in the rules (value(c, \"{key}\")), or if it is only printed, allow it: [check.allow] unread-value = [\"{key}\"]"
            ));
            d = match place(first, key) {
                Some((f, span)) => d.at(&f, span),
                None => d.in_file(first.origin.file.clone()),
            };
            for other in carriers.iter().skip(1).take(2) {
                if let Some((f, span)) = place(other, key) {
                    d = d.related(&f, span, format!("also on `{}`", other.def.id));
                }
            }
            out.push(d);
        }
        self.diags.extend(out);
    }

    /// Warn of every script file, in the scripts folders of the packs of `chain`, that no
    /// definition uses.
    pub(super) fn unused_scripts(&mut self, chain: &[String], used: &BTreeSet<OsString>) {
        for p in chain {
            let dir = self.project.scripts_dir(p);
            for e in walkdir::WalkDir::new(&dir).sort_by_file_name().into_iter().flatten() {
                if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rhai") {
                    let shown = self.shown(e.path());
                    if !used.contains(&path_key(&shown)) {
                        self.diags.push(
                            Diagnostic::warning("unused-script", "no definition uses this script")
                                .in_file(shown)
                                .hint("name it with `script = \"...\"` in a definition, or delete it"),
                        );
                    }
                }
            }
        }
    }

    /// Warn of cards with count 0 that nothing names (so never in play).
    pub(super) fn uncounted_cards(&mut self, pack_defs: &[Def], referenced_cards: &BTreeSet<String>) {
        for d in pack_defs {
            if d.kind == DefKind::Card && d.def.count == 0 && !referenced_cards.contains(&d.def.id) {
                if let Some(f) = self.sources.get(&d.origin.file).cloned() {
                    self.diags.push(
                        Diagnostic::warning(
                            "card-in-no-deck",
                            format!("card `{}` has count 0 and nothing names it", d.def.id),
                        )
                        .at(&f, d.origin.id_span.clone())
                        .hint("give it a count, or list it in a noble's, leader's or seat's `cards`"),
                    );
                }
            }
        }
    }

    /// `[check.allow]` names codes of the catalogue (`unknown-code`, with the nearest one),
    /// and codes that can be warnings: an error is never left out (`allow-of-error`).
    pub(super) fn check_allow(&mut self, manifest: &PackManifest, morigin: &Origin) {
        use crate::diag::codes;
        let Some(f) = self.sources.get(&morigin.file).cloned() else { return };
        for code in manifest.check.allow.keys() {
            let at = span_of_setting(&f.text, code);
            if at.is_empty() {
                // A code only a pack this one extends allows: checked in that pack.
                continue;
            }
            match codes::find(code) {
                None => self.diags.push(
                    Diagnostic::error(
                        "unknown-code",
                        format!("`[check.allow]` names `{code}`, which is no diagnostic code"),
                    )
                    .at(&f, at)
                    .hint(match codes::nearest(code) {
                        Some(n) => format!("did you mean `{n}`? (`crown check --explain all` lists the codes)"),
                        None => "`crown check --explain all` lists the codes".into(),
                    }),
                ),
                // Allowing a name-check code declares the names it lists, and an unread
                // setting may be one only packs extending this one read.
                Some(e)
                    if e.severity == "error"
                        && crate::script::lint::names_of_code(code).is_none()
                        && code != "unread-option" =>
                {
                    self.diags.push(
                        Diagnostic::warning(
                            "allow-of-error",
                            format!("`{code}` is always an error, and `[check.allow]` leaves out warnings only"),
                        )
                        .at(&f, at)
                        .hint(format!("fix what it reports (`crown check --explain {code}`) and remove this line")),
                    )
                }
                Some(_) => {}
            }
        }
    }

    /// Scenario checks that need the manifest: seats within the players allowed, at most
    /// one default scenario.
    pub(super) fn check_scenarios(&mut self, scenarios: &[ScenarioEntry], manifest: &PackManifest, morigin: &Origin) {
        let mut defaults = 0;
        let mfile = self.sources.get(&morigin.file).cloned();
        for sc in scenarios {
            let s = &sc.scenario;
            if s.default {
                defaults += 1;
            }
            self.option_types(sc, manifest, mfile.as_ref());
            let range = s.players.unwrap_or(manifest.players);
            if !s.seat.is_empty() && ((s.seat.len() as i64) < range.min || (s.seat.len() as i64) > range.max) {
                if let Some(f) = self.sources.get(&sc.origin.file).cloned() {
                    self.diags.push(
                        Diagnostic::error(
                            "seat-count",
                            format!(
                                "scenario `{}` has {} seats but allows {}-{} players",
                                s.id,
                                s.seat.len(),
                                range.min,
                                range.max
                            ),
                        )
                        .at(&f, sc.origin.id_span.clone()),
                    );
                }
            }
        }
        if defaults > 1 {
            self.diags.push(
                Diagnostic::error("many-defaults", "more than one scenario has `default = true`")
                    .in_file(morigin.file.clone()),
            );
        }
    }
}

/// From `at` to the end of its line, trailing blanks and a comment left out.
pub(super) fn line_from(text: &str, at: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let rest = &text[at.start..];
    let line = rest.split('\n').next().unwrap_or("");
    // A `#` outside a string starts a comment.
    let mut in_str = false;
    let mut end = line.len();
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_str = !in_str,
            '#' if !in_str => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    at.start..at.start + line[..end].trim_end().len()
}

/// Where setting `key` is written in a pack.toml or scenario file: its first line that
/// starts `key =` (in an `[options]` table or an inline one), or nothing.
pub fn span_of_setting(text: &str, key: &str) -> std::ops::Range<usize> {
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let start = off + (line.len() - t.len());
        if let Some(rest) = t.strip_prefix(key) {
            if rest.trim_start().starts_with('=') {
                return start..start + key.len();
            }
        }
        // `options = { mode = "solo", rounds = 18 }`
        if let Some(i) = t.find(&format!("{key} =")).filter(|_| t.starts_with("options")) {
            return start + i..start + i + key.len();
        }
        off += line.len();
    }
    0..0
}

/// Where `key = ...` is written inside the table `[table]` of a TOML file (the line, from
/// the key), or nothing.
fn span_of_table_key(text: &str, table: &str, key: &str) -> std::ops::Range<usize> {
    let header = format!("[{table}]");
    let mut off = 0;
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[') {
            inside = t.trim_end().starts_with(&header);
        } else if inside && t.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('=')) {
            let start = off + (line.len() - t.len());
            return start..start + t.trim_end().len();
        }
        off += line.len();
    }
    0..0
}

/// The text of the definition whose `id` is at `at`: from there to the next definition's
/// header (`[[card]]`, not a `[[card.stages]]` of its own), or the end of the file.
pub(super) fn definition_text(text: &str, at: usize) -> std::ops::Range<usize> {
    let mut off = at;
    for line in text.get(at..).unwrap_or("").split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(h) = t.strip_prefix("[[") {
            if !h.split("]]").next().unwrap_or("").contains('.') {
                return at..off;
            }
        }
        off += line.len();
    }
    at..text.len()
}

/// Where `key = ` is written inside `range` of `text` (a definition's table): a key at the
/// start of a line, or after `{` or `,` in an inline table.
pub(super) fn span_in(text: &str, range: std::ops::Range<usize>, key: &str) -> Option<std::ops::Range<usize>> {
    let body = text.get(range.clone())?;
    let mut from = 0;
    while let Some(i) = body[from..].find(key) {
        let at = from + i;
        let before = body[..at].trim_end_matches([' ', '\t']);
        let after = body[at + key.len()..].trim_start_matches([' ', '\t']);
        if (before.is_empty() || before.ends_with(['{', ',', '\n']))
            && after.starts_with('=')
            && !after.starts_with("==")
        {
            return Some(range.start + at..range.start + at + key.len());
        }
        from = at + key.len();
    }
    None
}

/// "no parameter", "1 parameter", "3 parameters".
fn count_params(n: usize) -> String {
    match n {
        0 => "no parameter".into(),
        1 => "1 parameter".into(),
        n => format!("{n} parameters"),
    }
}
