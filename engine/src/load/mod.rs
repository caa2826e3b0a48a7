//! Loading a pack: read every file, parse it with spans, deserialize each definition on
//! its own (so one bad card does not hide the next), fold in extended packs, compile the
//! scripts, then check every reference. All problems come back together.

use crate::diag::plural;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::content::model::{BoardFile, Definition, PackManifest};
use crate::content::{Def, DefKind, Loaded, Origin, Pack, ScenarioEntry, Script};
use crate::diag::{did_you_mean, Diagnostic, SourceFile, SourceMap};

mod checks;
mod contents;
mod effects;
mod files;
mod finish;
mod layer;
mod names;
mod product;
mod project;
mod rules;
mod scripts;
pub mod table;
mod vocabulary;
pub mod workbook;

pub use finish::span_of_setting;
pub use project::Project;

use finish::{sort_defs, Compiled};
use layer::{over_base, ManifestAt, OwnFiles};
use names::declared_names;

/// What to do while loading.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// Compile scripts (and report their errors). On by default.
    pub compile_scripts: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { compile_scripts: true }
    }
}

/// Load and validate pack `id` of `project`, with the packs it extends.
pub fn load_pack(project: &Project, id: &str, opts: LoadOptions) -> Loaded {
    run_load(project, id, opts, None)
}

fn run_load(project: &Project, id: &str, opts: LoadOptions, cache: Option<&mut Cache>) -> Loaded {
    let sources = cache.as_deref().map(|c| c.sources.clone()).unwrap_or_default();
    let mut l = PackLoad {
        project,
        root: project.root.canonicalize().unwrap_or_else(|_| project.root.clone()),
        diags: Vec::new(),
        sources,
        stack: Vec::new(),
        opts,
        cache,
        rules_broken: false,
        unchecked_calls: std::sync::atomic::AtomicUsize::new(0),
    };
    let layer = l.load_layer(id, None);
    let mut pack = layer.and_then(|layer| l.finish(layer));
    // Definitions checked by the rules script's own `validate(id)`, once all else is sound.
    if opts.compile_scripts && !l.diags.iter().any(Diagnostic::is_error) {
        if let Some(p) = pack.take() {
            let p = Arc::new(p);
            l.diags.extend(crate::script::validate::validate_pack(&p, &l.sources));
            // What the rules work out once per definition, once the pack is sound.
            let prepared = if l.diags.iter().any(Diagnostic::is_error) {
                BTreeMap::new()
            } else {
                let (prepared, diags) = crate::script::validate::prepare_pack(&p);
                l.diags.extend(diags);
                prepared
            };
            // The table `validate` ran on is gone: the pack is ours alone again.
            let mut p = Arc::try_unwrap(p).unwrap_or_else(|p| (*p).clone());
            p.prepared = prepared;
            pack = Some(p);
        }
    }
    let mut diags = l.diags;
    diags.sort_by(|a, b| (a.severity, &a.file, a.line, a.column).cmp(&(b.severity, &b.file, b.line, b.column)));
    diags.dedup();
    let held_back = suppress_follow_ons(&mut diags);
    table::label_cells(&mut diags, &l.sources);
    if let Some(p) = &pack {
        // `[check] allow = { code = ["*"] }`: every warning of that code is left out.
        diags.retain(|d| d.is_error() || !p.manifest.check.allows(d.code, None));
    }
    let errors = diags.iter().any(Diagnostic::is_error);
    Loaded { pack: if errors { None } else { pack }, diagnostics: diags, sources: l.sources, held_back }
}

/// Diagnostics that an error in a TOML file may cause elsewhere beyond [`NAME_FOLLOW_ONS`]:
/// a definition the broken file held is missing, so references to it dangle and its
/// script looks unused; what scripts write may be missing with it.
const FILE_FOLLOW_ONS: &[&str] =
    &["dangling-reference", "unused-script", "counter-never-set", "mark-never-set", "zone-named-once", "unknown-hook"];

/// Name checks that need every script of the pack (what they write, which decks they
/// build, which zones they name, which functions they define): not made while a script
/// does not compile.
const PACK_WIDE: &[&str] = &["counter-never-set", "mark-never-set", "zone-named-once", "unknown-hook"];

/// Errors after which what a file or pack holds is unknown (not one bad entry, whose id is
/// still known, but a whole file or pack that could not be read).
const LOST_CONTENT: &[&str] =
    &["toml-syntax", "csv-syntax", "invalid-utf8", "unreadable", "extends-cycle", "bad-path", "unknown-pack"];

/// Errors about what a file that was read holds, not about reading it: they never hold
/// other diagnostics back.
const JUDGEMENTS: &[&str] = &["unread-option", "misspelt-hook", "misspelt-deck", "duplicate-serial", "option-type"];

/// What the rules script's own checks report (`validate(id)`, `validate_pack()`).
const RULES_CHECKS: &[&str] = &["invalid-definition", "invalid-pack", "validate-failed"];

/// Diagnostics that follow from one definition a TOML file could not give (an entry with
/// an error is left out): the names it held look missing to the scripts.
const NAME_FOLLOW_ONS: &[&str] = &[
    "unknown-id",
    "unknown-value-key",
    "unknown-attr",
    "unknown-keyword",
    "unknown-deck",
    "unknown-supply",
    "unknown-option",
    "unknown-seat-value",
    "unknown-space-key",
    "card-in-no-deck",
    "unknown-hook",
];

/// One mistake, one error: while a TOML file or a pack could not be read, the diagnostics
/// that may only follow from it are held back (while a definition could not be read, those
/// about names it may have held), and the first such error says how many were. Gives how
/// many were held back.
fn suppress_follow_ons(diags: &mut Vec<Diagnostic>) -> usize {
    let is_toml = |d: &Diagnostic| d.file.as_ref().is_some_and(|f| f.extension().is_some_and(|x| x == "toml"));
    let lost = |d: &Diagnostic| d.is_error() && is_toml(d) && LOST_CONTENT.contains(&d.code);
    // What the rules' own checks (`validate`, `validate_pack`) report about a file may
    // itself follow from a misspelt name in a script: it never holds those names back.
    // Nor does a judgement about what a file holds (a setting no script reads), nor a
    // follow-on itself.
    let entry = |d: &Diagnostic| {
        d.is_error()
            && is_toml(d)
            && !RULES_CHECKS.contains(&d.code)
            && !JUDGEMENTS.contains(&d.code)
            && !NAME_FOLLOW_ONS.contains(&d.code)
    };
    // Whole files lost hold back every follow-on; a lost entry, the names it held.
    let whole = diags.iter().any(lost);
    if !whole && !diags.iter().any(entry) {
        return 0;
    }
    let follow_ons: Vec<&str> =
        if whole { NAME_FOLLOW_ONS.iter().chain(FILE_FOLLOW_ONS).copied().collect() } else { NAME_FOLLOW_ONS.to_vec() };
    let is_root = |d: &Diagnostic| if whole { lost(d) } else { entry(d) };
    let held: Vec<&'static str> = diags.iter().filter(|d| follow_ons.contains(&d.code)).map(|d| d.code).collect();
    diags.retain(|d| !follow_ons.contains(&d.code));
    if let (false, Some(root)) = (held.is_empty(), diags.iter_mut().find(|d| is_root(d))) {
        let count = |code: &str, one: &str, many: &str| match held.iter().filter(|c| **c == code).count() {
            0 => None,
            1 => Some(format!("1 {one}")),
            n => Some(format!("{n} {many}")),
        };
        let names = held.iter().filter(|c| c.starts_with("unknown-")).count();
        let what: Vec<String> = [
            count("dangling-reference", "reference to a missing definition", "references to missing definitions"),
            count("unused-script", "unused script", "unused scripts"),
            (names > 0).then(|| format!("{names} script call{} naming missing data", plural(names))),
            count("card-in-no-deck", "card in no deck", "cards in no deck"),
            {
                let told = ["dangling-reference", "unused-script", "card-in-no-deck"];
                let other = held.iter().filter(|c| !c.starts_with("unknown-") && !told.contains(c)).count();
                (other > 0).then(|| format!("{other} other finding{} about names", plural(other)))
            },
        ]
        .into_iter()
        .flatten()
        .collect();
        let list = match what.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        let note = format!("not shown until this is fixed, as they may follow from it: {list}");
        root.hint = Some(match root.hint.take() {
            Some(h) => format!("{h}\n{note}"),
            None => note,
        });
    }
    held.len()
}

/// Loads one pack again and again (live reload), re-reading every file but parsing and
/// compiling again only those whose content changed since the previous load.
///
/// Every [`load`](Loader::load) gives exactly what [`load_pack`] gives for the files as
/// they are now, diagnostics included: all references, hooks, duplicates and scenarios
/// are validated again each time, over the cached per-file results. What is kept between
/// loads, keyed by the file's path and a hash of its bytes:
///
/// - for each TOML file, its parsed and checked definitions, scenarios, board, the
///   references it makes and its own diagnostics;
/// - for each script, its compiled AST and the functions it defines, and the same AST
///   with the rules script's functions merged in (redone, without recompiling, when the
///   rules script changes).
///
/// Files that disappear are dropped from the cache at the next load; a file that fails
/// to parse or compile is parsed again each time until it is fixed. Each load still
/// reads every file (to hash it), so an edit is always seen, whatever its timestamp.
///
/// ```no_run
/// use crown_engine::load::{Loader, LoadOptions, Project};
///
/// let project = Project::new(".");
/// let mut loader = Loader::new(&project, "take-the-kingdom", LoadOptions::default());
/// let first = loader.load(); // parses and compiles everything
/// // ... a designer saves one card file ...
/// let again = loader.load(); // parses that file only; validates the whole pack
/// let stats = loader.stats();
/// assert!(stats.files_parsed <= 1 && stats.scripts_compiled == 0);
/// # let _ = (first, again);
/// ```
pub struct Loader {
    project: Project,
    pack: String,
    opts: LoadOptions,
    cache: Cache,
}

/// What the last [`Loader::load`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// TOML files read.
    pub files: usize,
    /// TOML files parsed (the others were unchanged and taken from the cache).
    pub files_parsed: usize,
    /// Scripts read.
    pub scripts: usize,
    /// Scripts compiled from their text.
    pub scripts_compiled: usize,
    /// Card scripts given the rules script's functions again (after the rules changed).
    pub scripts_merged: usize,
}

impl Loader {
    /// A loader for pack `pack` (an id) of `project`, with nothing cached yet.
    pub fn new(project: &Project, pack: &str, opts: LoadOptions) -> Self {
        Loader { project: project.clone(), pack: pack.to_string(), opts, cache: Cache::default() }
    }

    /// Load and validate the pack as its files are now (see [`load_pack`]).
    pub fn load(&mut self) -> Loaded {
        self.cache.generation += 1;
        self.cache.stats = LoadStats::default();
        let mut loaded = run_load(&self.project, &self.pack, self.opts, Some(&mut self.cache));
        let generation = self.cache.generation;
        self.cache.files.retain(|_, f| f.seen == generation);
        self.cache.scripts.retain(|_, s| s.seen == generation);
        // The load started from the previous sources: if a file is gone (deleted, or no
        // longer readable as text), rebuild the map from this load's files only.
        let seen = std::mem::take(&mut self.cache.seen_paths);
        if self.cache.source_paths.iter().any(|p| !seen.contains(p)) {
            let mut fresh = SourceMap::default();
            for p in &seen {
                if let Some(f) = loaded.sources.get(p) {
                    fresh.insert(f.clone());
                }
            }
            if let Some(pack) = loaded.pack.as_mut() {
                pack.sources = fresh.clone();
            }
            loaded.sources = fresh;
        }
        self.cache.sources = loaded.sources.clone();
        self.cache.source_paths = seen;
        loaded
    }

    /// What the last load parsed and compiled, and what it took from the cache.
    pub fn stats(&self) -> LoadStats {
        self.cache.stats
    }

    /// The pack this loader loads.
    pub fn pack_id(&self) -> &str {
        &self.pack
    }

    /// Forget every cached result (the next load parses and compiles everything).
    pub fn clear(&mut self) {
        self.cache.files.clear();
        self.cache.scripts.clear();
    }
}

/// Per-file results kept by a [`Loader`] (looked up by path, never iterated in an order
/// that could reach a result).
#[derive(Default)]
struct Cache {
    files: std::collections::HashMap<PathBuf, CachedFile>,
    scripts: std::collections::HashMap<PathBuf, CachedScript>,
    generation: u64,
    stats: LoadStats,
    /// Every source of the last load, and their paths: a load starts from a copy of it and
    /// inserts only the files that changed (inserting 10,000 files one by one was the
    /// largest serial step of a reload).
    sources: SourceMap,
    source_paths: std::collections::HashSet<PathBuf>,
    /// Paths of the sources the current load kept (fresh or unchanged).
    seen_paths: std::collections::HashSet<PathBuf>,
}

struct CachedFile {
    hash: u64,
    len: usize,
    kind: FileKind,
    pack: String,
    shown: PathBuf,
    out: FileOut,
    seen: u64,
}

struct CachedScript {
    hash: u64,
    len: usize,
    shown: PathBuf,
    /// The script compiled on its own.
    script: Script,
    src: SourceFile,
    /// With the rules' functions merged in: the rules script's hash and the AST.
    merged: Option<(u64, Arc<rhai::AST>)>,
    seen: u64,
}

/// What kind of thing a reference points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RefKind {
    Card,
    Character,
    Supply,
    Space,
}

impl RefKind {
    fn noun(self) -> &'static str {
        match self {
            RefKind::Card => "card",
            RefKind::Character => "noble or leader",
            RefKind::Supply => "supply",
            RefKind::Space => "board space",
        }
    }
}

#[derive(Debug, Clone)]
struct Ref {
    kind: RefKind,
    id: String,
    file: PathBuf,
    span: Range<usize>,
}

/// A script named by a definition or the manifest, with where it was named.
#[derive(Debug, Clone)]
struct ScriptRef {
    /// The pack whose scripts folder it is in.
    pack: String,
    rel: String,
    file: PathBuf,
    span: Range<usize>,
    /// Hooks the script must define, with their spans.
    hooks: Vec<(String, Range<usize>)>,
    /// The rules script's further files (`rules = ["rules.rhai", "invariants.rhai"]`), each
    /// with where the manifest names it: read with this one as one script.
    more: Vec<(String, Range<usize>)>,
}

/// The manifest as parsed: the manifest, its origin, and the span of each top-level key
/// (and of each array item, as `key.i`).
type ParsedManifest = (PackManifest, Origin, BTreeMap<String, Range<usize>>);

/// What one parsed file yields.
#[derive(Default, Clone)]
struct FileOut {
    source: Option<SourceFile>,
    hash: u64,
    manifest: Option<ParsedManifest>,
    defs: Vec<(DefKind, Definition, Origin, Option<ScriptRef>)>,
    scenarios: Vec<ScenarioEntry>,
    board: Option<(BoardFile, Origin)>,
    refs: Vec<Ref>,
    diags: Vec<Diagnostic>,
}

/// One pack's definitions, with the packs it extends already folded in.
struct Layer {
    manifest: PackManifest,
    manifest_origin: Origin,
    chain: Vec<String>,
    defs: Vec<(Def, Option<ScriptRef>)>,
    scenarios: Vec<ScenarioEntry>,
    board: Option<(BoardFile, Origin)>,
    refs: Vec<Ref>,
    rules: Option<ScriptRef>,
    /// The bots' script (`bots.rhai`), compiled over the rules like a card script.
    bots: Option<ScriptRef>,
    file_hashes: BTreeMap<PathBuf, u64>,
    /// The pack whose folder holds each icon's file.
    icon_packs: BTreeMap<String, String>,
}

struct PackLoad<'p> {
    project: &'p Project,
    root: PathBuf,
    diags: Vec<Diagnostic>,
    sources: SourceMap,
    stack: Vec<String>,
    opts: LoadOptions,
    /// Results of earlier loads (a [`Loader`]'s), reused for files that did not change.
    cache: Option<&'p mut Cache>,
    /// The rules script did not compile or failed its checks: card scripts' calls cannot
    /// be checked against its functions, and those left unchecked are counted here.
    rules_broken: bool,
    unchecked_calls: std::sync::atomic::AtomicUsize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Manifest,
    Defs(DefKind),
    /// A definition list kept in a spreadsheet.
    Table(DefKind, table::TableFormat),
    Scenario,
    Board,
}

impl PackLoad<'_> {
    fn shown(&self, p: &Path) -> PathBuf {
        p.strip_prefix(&self.project.root)
            .or_else(|_| p.strip_prefix(&self.root))
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| p.to_path_buf())
    }

    /// Load one pack and, first, the packs it extends.
    fn load_layer(&mut self, id: &str, named_at: Option<(&SourceFile, Range<usize>)>) -> Option<Layer> {
        let dir = self.project.pack_dir(id);
        if !dir.join("pack.toml").is_file() {
            let mut d = Diagnostic::error("unknown-pack", format!("no pack named `{id}` in this project"));
            if let Some((f, span)) = named_at {
                d = d.at(f, span);
            } else {
                d = d.in_file(self.shown(&dir.join("pack.toml")));
            }
            // Not the packs extending this one: a pack cannot extend itself or its extenders.
            let known: Vec<String> = self.project.pack_ids().into_iter().filter(|p| !self.stack.contains(p)).collect();
            let hint = did_you_mean(id, known.iter().map(String::as_str)).map(|s| format!("did you mean `{s}`?"));
            self.diags.push(d.maybe_hint(hint));
            return None;
        }
        if let Some(pos) = self.stack.iter().position(|s| s == id) {
            let cycle: Vec<&str> = self.stack[pos..].iter().map(String::as_str).chain([id]).collect();
            let mut d = Diagnostic::error("extends-cycle", format!("`extends` forms a cycle: {}", cycle.join(" -> ")));
            if let Some((f, span)) = named_at {
                d = d.at(f, span);
            }
            self.diags.push(d.hint("a pack cannot extend itself, directly or through others"));
            return None;
        }
        self.stack.push(id.to_string());
        let layer = self.load_layer_inner(id, &dir);
        self.stack.pop();
        layer
    }

    /// Load one pack's own files over the layer of the pack it extends.
    fn load_layer_inner(&mut self, id: &str, dir: &Path) -> Option<Layer> {
        let files = self.list_files(dir);
        let outs = self.parse_files(id, &files);
        let OwnFiles { manifest, defs, scenarios, board, refs, file_hashes } = self.gather_files(outs);
        let (manifest, morigin, mspans) = manifest?;
        let mfile = self.sources.get(&morigin.file).cloned();
        let at = ManifestAt { file: mfile.as_ref(), spans: &mspans };
        self.check_pack_id(id, &manifest, &at);
        let base = self.load_base(&manifest, &at);
        let mut layer = over_base(id, manifest, morigin, board, file_hashes, base);
        self.apply_removals(&mut layer.defs, &layer.manifest.remove, &at);
        self.add_own_defs(&mut layer.defs, defs, layer.manifest.extends.is_some());
        self.add_own_scenarios(&mut layer.scenarios, scenarios);
        layer.refs.extend(refs);
        layer.rules = self.rules_script(id, &layer.manifest, &layer.manifest_origin, &at, layer.rules.take());
        layer.bots = self.bots_script(id, &layer.manifest, &layer.manifest_origin, &at, layer.bots.take());
        Some(layer)
    }

    /// Compile scripts, check references and hooks, and build the pack.
    fn finish(&mut self, layer: Layer) -> Option<Pack> {
        let Layer {
            manifest,
            manifest_origin,
            chain,
            defs,
            mut scenarios,
            board,
            refs,
            rules,
            bots,
            file_hashes,
            icon_packs,
        } = layer;
        let mfile = self.sources.get(&manifest_origin.file).cloned();
        if let Some(f) = &mfile {
            self.check_manifest(&manifest, f);
        }
        let (mut pack_defs, srefs, index) = sort_defs(defs);
        scenarios.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
        self.duplicate_serials(&pack_defs, &chain);
        self.implausible_counts(&pack_defs);
        let referenced_cards = self.check_refs(&refs, &pack_defs, &index, board.as_ref().map(|(b, _)| b));
        self.attrs_naming_definitions(&pack_defs, &index);

        let mut compiled = Compiled::default();
        let lib = self.compile_rules(rules.as_ref(), &mut compiled);
        self.compile_def_scripts(&srefs, lib.as_ref().map(|(a, h)| (a, *h)), &mut compiled);
        let bots_idx = self.compile_bots(bots.as_ref(), lib.as_ref().map(|(a, h)| (a, *h)), &mut compiled);
        self.note_unchecked_calls(rules.as_ref());
        let missing_hooks = self.attach_scripts(&mut pack_defs, &srefs, &compiled);
        let Compiled {
            scripts, rules: rules_idx, rule_parts, used: used_scripts, some_failed: some_script_failed, ..
        } = compiled;
        if self.opts.compile_scripts {
            let reachable = Self::reachable_names(&srefs, &scripts);
            self.unreachable_functions(&pack_defs, &scripts, missing_hooks, &reachable);
            let rule_files: Vec<usize> = rules_idx.into_iter().chain(rule_parts.iter().copied()).collect();
            self.misspelt_engine_hooks(&scripts, &rule_files, bots_idx, &reachable);
            self.hook_forms(&scripts, &rule_files, bots_idx);
            self.lost_changes(&manifest, &scripts);
        }

        // What definitions carry, against the pack's declared vocabulary.
        self.diags.extend(vocabulary::check(&manifest, mfile.as_ref(), &pack_defs, &self.sources));
        self.diags.extend(effects::check(&manifest, mfile.as_ref(), &pack_defs, &self.sources));
        // Names spelt out in strings: what the pack's data and scripts declare.
        let declared = self
            .opts
            .compile_scripts
            .then(|| declared_names(&manifest, &pack_defs, &scenarios, board.as_ref().map(|(b, _)| b), &scripts));
        if let Some(declared) = &declared {
            self.check_script_names(&manifest, &scripts, declared, some_script_failed);
            self.undeclared_zones(&manifest, &scripts);
            // Only with the rules script loaded: it is what reads settings.
            if !some_script_failed && rules_idx.is_some() {
                self.unread_options(&manifest, &manifest_origin, &scenarios, &scripts);
                self.unread_values(&manifest, &manifest.id, &pack_defs, &scripts);
            }
        }

        // Warnings: unused scripts, cards in no deck.
        if self.opts.compile_scripts {
            self.unused_scripts(&chain, &used_scripts);
        }
        self.uncounted_cards(&pack_defs, &referenced_cards);
        if let (Some(declared), false) = (&declared, some_script_failed) {
            self.cards_in_no_deck(&pack_defs, &scripts, declared, &referenced_cards);
        }
        self.check_scenarios(&scenarios, &manifest, &manifest_origin);
        self.check_allow(&manifest, &manifest_origin);

        // A clone copies the map as it is; `extend` searched it once per file.
        let sources = self.sources.clone();
        Some(Pack {
            manifest,
            project: self.project.root.clone(),
            chain,
            defs: pack_defs,
            index,
            scenarios,
            board,
            scripts,
            rules: rules_idx,
            rule_parts,
            bots: bots_idx,
            prepared: BTreeMap::new(),
            sources,
            file_hashes,
            icon_packs,
            words: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small project in a fresh temporary folder, removed on drop.
    struct TempProject(PathBuf);

    impl Drop for TempProject {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn project(tag: &str) -> TempProject {
        let root = std::env::temp_dir().join(format!("crown-loader-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        write(
            &root,
            "content/p/pack.toml",
            "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 2 }\n",
        );
        write(
            &root,
            "scripts/p/rules.rhai",
            "fn setup() {}\nfn turn() { end_game([], \"done\"); }\nfn bonus() { 1 }\n",
        );
        for i in 0..4 {
            write(
                &root,
                &format!("content/p/cards/c{i}.toml"),
                &format!(
                    "[[card]]\nid = \"c{i}\"\nname = \"Card {i}\"\ncount = 1\nscript = \"cards/c{i}.rhai\"\nhooks = [\"on_play\"]\n"
                ),
            );
            write(&root, &format!("scripts/p/cards/c{i}.rhai"), &format!("fn on_play(p, c) {{ bonus() + {i} }}\n"));
        }
        TempProject(root)
    }

    type Summary = (Vec<String>, Vec<(String, Vec<String>, Option<String>, Option<String>)>);

    /// Diagnostics; per definition its name, its script's functions, and the text the
    /// sources hold for its file and its script (from `Loaded::sources` and the pack's).
    fn summary(l: &Loaded) -> Summary {
        let diags = l.diagnostics.iter().map(|d| format!("{d:?}")).collect();
        let text = |m: &SourceMap, p: &Path| m.get(p).map(|f| f.text.to_string());
        let defs = l
            .pack
            .iter()
            .flat_map(|p| {
                p.defs.iter().map(|d| {
                    let script = d.script.map(|i| &p.scripts[i]);
                    let fns = script.map(|s| crate::script::function_names(&s.ast).map(str::to_string).collect());
                    let file = text(&l.sources, &d.origin.file);
                    assert_eq!(file, text(&p.sources, &d.origin.file));
                    let stext = script.and_then(|s| text(&l.sources, &s.path));
                    assert_eq!(stext, script.and_then(|s| text(&p.sources, &s.path)));
                    (d.def.name.clone(), fns.unwrap_or_default(), file, stext)
                })
            })
            .collect();
        (diags, defs)
    }

    #[test]
    fn loader_matches_load_pack_on_the_shipped_packs() {
        let proj = Project::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        for id in proj.pack_ids() {
            let full = load_pack(&proj, &id, LoadOptions::default());
            let mut loader = Loader::new(&proj, &id, LoadOptions::default());
            let first = loader.load();
            let again = loader.load();
            assert_eq!(summary(&first), summary(&full), "{id}");
            assert_eq!(summary(&again), summary(&full), "{id}");
            let s = loader.stats();
            assert!(s.files > 0 && s.scripts > 0, "{id}: {s:?}");
            assert_eq!((s.files_parsed, s.scripts_compiled, s.scripts_merged), (0, 0, 0), "{id}");
        }
    }

    #[test]
    fn loader_reparses_only_what_changed_and_matches_a_full_load() {
        let t = project("incremental");
        let proj = Project::new(&t.0);
        let mut loader = Loader::new(&proj, "p", LoadOptions::default());
        let first = loader.load();
        assert_eq!(first.errors(), 0, "{:?}", first.diagnostics);
        let s = loader.stats();
        assert_eq!((s.files, s.files_parsed, s.scripts, s.scripts_compiled), (5, 5, 5, 5));

        let again = loader.load();
        let s = loader.stats();
        assert_eq!((s.files_parsed, s.scripts_compiled, s.scripts_merged), (0, 0, 0));
        assert_eq!(summary(&again), summary(&first));

        // One card file edited: that file only is parsed again.
        write(
            &t.0,
            "content/p/cards/c2.toml",
            "[[card]]\nid = \"c2\"\nname = \"Renamed\"\ncount = 2\nscript = \"cards/c2.rhai\"\nhooks = [\"on_play\"]\n",
        );
        let l = loader.load();
        assert_eq!((loader.stats().files_parsed, loader.stats().scripts_compiled), (1, 0));
        assert_eq!(summary(&l), summary(&load_pack(&proj, "p", LoadOptions::default())));
        assert!(l.pack.as_ref().unwrap().get("c2").is_some_and(|d| d.def.name == "Renamed"));

        // One card script edited: that script only is compiled again.
        write(&t.0, "scripts/p/cards/c1.rhai", "fn on_play(p, c) { bonus() }\nfn extra() { 2 }\n");
        let l = loader.load();
        assert_eq!((loader.stats().files_parsed, loader.stats().scripts_compiled), (0, 1));
        assert_eq!(summary(&l), summary(&load_pack(&proj, "p", LoadOptions::default())));

        // The rules edited: compiled again, and every card script gets the new functions
        // merged in without being compiled again.
        write(
            &t.0,
            "scripts/p/rules.rhai",
            "fn setup() {}\nfn turn() { end_game([], \"done\"); }\nfn bonus() { 5 }\nfn more() { 6 }\n",
        );
        let l = loader.load();
        let s = loader.stats();
        assert_eq!((s.scripts_compiled, s.scripts_merged), (1, 4));
        let pack = l.pack.as_ref().unwrap();
        let c0 = &pack.scripts[pack.get("c0").unwrap().script.unwrap()];
        assert!(crate::script::function_names(&c0.ast).any(|f| f == "more"));
        assert_eq!(summary(&l), summary(&load_pack(&proj, "p", LoadOptions::default())));

        // A hook removed from a cached script is still reported: validation always runs.
        write(&t.0, "scripts/p/cards/c3.rhai", "fn other(p, c) { 0 }\n");
        let l = loader.load();
        assert!(l.diagnostics.iter().any(|d| d.code == "missing-hook"), "{:?}", l.diagnostics);
        assert_eq!(summary(&l), summary(&load_pack(&proj, "p", LoadOptions::default())));

        // A deleted card disappears, and its cache entry with it.
        std::fs::remove_file(t.0.join("content/p/cards/c0.toml")).unwrap();
        let l = loader.load();
        assert!(l.pack.is_none() || l.pack.as_ref().unwrap().get("c0").is_none());
        assert_eq!(summary(&l), summary(&load_pack(&proj, "p", LoadOptions::default())));
        assert_eq!(loader.cache.files.len(), 4);
        assert!(l.sources.get(Path::new("content/p/cards/c0.toml")).is_none());
        assert!(l.sources.get(Path::new("content/p/cards/c1.toml")).is_some());
    }

    /// A count is 0 to 10,000 copies: both ends load, one past either end is refused at
    /// the count's line.
    #[test]
    fn counts_load_from_0_to_10000() {
        for (count, ok) in [(0, true), (10_000, true), (10_001, false), (-1, false)] {
            let tmp = project(&format!("count{}", count + 1));
            write(
                &tmp.0,
                "content/p/cards/c0.toml",
                &format!("[[card]]\nid = \"c0\"\nname = \"Card 0\"\ncount = {count}\n"),
            );
            let loaded = load_pack(&Project::new(&tmp.0), "p", LoadOptions::default());
            let out_of_range: Vec<_> = loaded.diagnostics.iter().filter(|d| d.code == "out-of-range").collect();
            assert_eq!(out_of_range.is_empty(), ok, "count = {count}: {:?}", loaded.diagnostics);
            if !ok {
                assert_eq!(out_of_range[0].line, 4, "count = {count}");
            }
        }
    }

    /// `bots.rhai` is compiled over the rules (it may call them), found by default, and
    /// answers the bot hooks it defines; the rules cannot call into it.
    #[test]
    fn the_bots_script_sits_over_the_rules() {
        let tmp = project("bots");
        write(&tmp.0, "scripts/p/bots.rhai", "fn greedy_score(p, prompt, o) { bonus() + 1 }\n");
        let loaded = load_pack(&Project::new(&tmp.0), "p", LoadOptions::default());
        let pack = loaded.pack.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
        assert!(!loaded.diagnostics.iter().any(|d| d.code == "unused-script"), "{:?}", loaded.diagnostics);
        let bots = pack.bots_script().expect("bots.rhai is found");
        assert_eq!(bots.rel, "bots.rhai");
        assert_eq!(pack.bot_hook("greedy_score").map(|s| s.rel.as_str()), Some("bots.rhai"));
        assert_eq!(pack.bot_hook("bonus").map(|s| s.rel.as_str()), Some("rules.rhai"), "else the rules'");
        assert!(pack.bot_hook("evaluate").is_none());
        // The rules calling a function only the bots define: an error of the rules script.
        write(
            &tmp.0,
            "scripts/p/rules.rhai",
            "fn setup() { helper() }\nfn turn() { end_game([], \"done\"); }\nfn bonus() { 1 }\n",
        );
        write(&tmp.0, "scripts/p/bots.rhai", "fn helper() { 2 }\nfn greedy_score(p, prompt, o) { bonus() }\n");
        let loaded = load_pack(&Project::new(&tmp.0), "p", LoadOptions::default());
        let errors: Vec<String> =
            loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| format!("{:?} {}", d.file, d.message)).collect();
        assert!(errors.iter().any(|e| e.contains("rules.rhai") && e.contains("helper")), "{errors:?}");
    }

    /// A bot hook or an engine hook misspelt (`greedy_scor`) is never called: a warning
    /// at the function naming the hook; a helper with a name of its own is not one.
    #[test]
    fn a_misspelt_engine_hook_is_a_warning() {
        let tmp = project("hooks");
        write(&tmp.0, "scripts/p/bots.rhai", "fn greedy_scor(p, prompt, o) { 1 }\nfn unused_helper() { 2 }\n");
        write(
            &tmp.0,
            "scripts/p/rules.rhai",
            "fn setup() {}\nfn turn() { end_game([], \"done\"); }\nfn bonus() { 1 }\nfn rendr(viewer) { \"\" }\n",
        );
        let loaded = load_pack(&Project::new(&tmp.0), "p", LoadOptions::default());
        let got: Vec<String> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.code == "misspelt-hook")
            .map(|d| format!("{}:{} {}", d.file.as_ref().unwrap().display(), d.line, d.message))
            .collect();
        assert_eq!(
            got,
            [
                "scripts/p/bots.rhai:1 `greedy_scor` is never called: the engine calls `greedy_score`, which this script does not define",
                "scripts/p/rules.rhai:4 `rendr` is never called: the engine calls `render`, which this script does not define",
            ]
        );
    }

    /// Cards in the decks the rules build: `decks` and the rules script, the findings by
    /// code as `code line:col message`.
    fn deck_findings(tag: &str, cards: &str, rules: &str) -> Vec<String> {
        let tmp = project(tag);
        for i in 0..4 {
            let _ = std::fs::remove_file(tmp.0.join(format!("content/p/cards/c{i}.toml")));
        }
        write(&tmp.0, "content/p/cards/cards.toml", cards);
        write(&tmp.0, "scripts/p/rules.rhai", rules);
        let loaded = load_pack(&Project::new(&tmp.0), "p", LoadOptions::default());
        loaded
            .diagnostics
            .iter()
            .filter(|d| d.code == "misspelt-deck" || d.code == "card-in-no-deck")
            .map(|d| {
                format!(
                    "{} {} {}:{} {}",
                    if d.is_error() { "error" } else { "warning" },
                    d.code,
                    d.line,
                    d.column,
                    d.message
                )
            })
            .collect()
    }

    const DECK_RULES: &str =
        "fn setup() { create_deck(\"main\", zone(\"draw\")); create_deck(\"solo\", zone(\"solo\")); }\nfn turn() { end_game([], \"done\"); }\n";

    /// Every entry of `decks` is checked: a deck only one card lists, one slip from a deck
    /// built, is an error at the entry, though the card's other deck is built.
    #[test]
    fn a_misspelt_second_deck_is_an_error_at_its_entry() {
        let cards = "[[card]]\nid = \"a\"\nname = \"A\"\ncount = 2\ndecks = [\"main\", \"sollo\"]\n\n\
                     [[card]]\nid = \"b\"\nname = \"B\"\ncount = 2\ndecks = [\"main\", \"solo\"]\n";
        let got = deck_findings("deck-entry", cards, DECK_RULES);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].starts_with("error misspelt-deck 5:19 card `a` lists the deck `sollo`"), "{got:?}");
        // A numbered series is not a slip; nor is a deck several cards list.
        let series = "[[card]]\nid = \"a\"\nname = \"A\"\ncount = 2\ndecks = [\"main\", \"round-1\"]\n\n\
                      [[card]]\nid = \"b\"\nname = \"B\"\ncount = 2\ndecks = [\"main\", \"round-2\"]\n\n\
                      [[card]]\nid = \"c\"\nname = \"C\"\ncount = 2\ndecks = [\"main\", \"round-2\"]\n";
        assert!(deck_findings("deck-series", series, DECK_RULES).is_empty());
    }

    /// A card listing no deck while the rules build decks by name (and never list the
    /// cards with `defs`) is never dealt: an error; listing them with `defs("card")` may
    /// deal it: a warning. Listing another kind (`defs("noble")`) changes nothing.
    #[test]
    fn a_card_in_no_deck_is_an_error_unless_the_rules_list_the_cards() {
        let cards = "[[card]]\nid = \"a\"\nname = \"A\"\ncount = 2\n\n\
                     [[card]]\nid = \"b\"\nname = \"B\"\ncount = 2\ndecks = [\"main\", \"solo\"]\n";
        let nobles = DECK_RULES.replace("fn turn()", "fn nobles() { defs(\"noble\") }\nfn turn()");
        for rules in [DECK_RULES.to_string(), nobles] {
            let got = deck_findings("no-deck", cards, &rules);
            assert_eq!(got, ["error card-in-no-deck 2:6 card `a` lists no deck, so no script puts it in play"]);
        }
        let listed = DECK_RULES.replace("fn turn()", "fn every_card() { defs(\"card\") }\nfn turn()");
        let got = deck_findings("no-deck-defs", cards, &listed);
        assert_eq!(got, ["warning card-in-no-deck 2:6 card `a` lists no deck, so no script puts it in play"]);
    }

    /// Two definitions with one serial: an error at the second's `serial`, with a note at
    /// the first's; an expansion reusing a serial of the pack it extends is one too.
    #[test]
    fn a_serial_given_twice_is_an_error_at_the_second() {
        let tmp = project("serials");
        write(&tmp.0, "content/p/cards/c0.toml", "[[card]]\nid = \"c0\"\nname = \"A\"\nserial = 3\n");
        write(&tmp.0, "content/p/cards/c1.toml", "[[card]]\nid = \"c1\"\nname = \"B\"\nserial = 3\n");
        write(
            &tmp.0,
            "content/x/pack.toml",
            "id = \"x\"\nname = \"X\"\nversion = \"1\"\nextends = \"p\"\nplayers = { min = 1, max = 2 }\n",
        );
        write(&tmp.0, "content/x/cards/more.toml", "[[card]]\nid = \"x0\"\nname = \"X\"\ncount = 0\nserial = 4\n");
        let serials = |pack: &str| -> Vec<String> {
            load_pack(&Project::new(&tmp.0), pack, LoadOptions::default())
                .diagnostics
                .iter()
                .filter(|d| d.code == "duplicate-serial")
                .map(|d| {
                    let r = &d.related[0];
                    format!(
                        "{}:{} {} ({}:{})",
                        d.file.as_ref().unwrap().display(),
                        d.line,
                        d.message,
                        r.file.display(),
                        r.line
                    )
                })
                .collect()
        };
        let one = ["content/p/cards/c1.toml:4 `c1` has serial 3, which `c0` already has (content/p/cards/c0.toml:4)"];
        assert_eq!(serials("p"), one);
        write(&tmp.0, "content/p/cards/c1.toml", "[[card]]\nid = \"c1\"\nname = \"B\"\nserial = 4\n");
        assert!(serials("p").is_empty());
        assert_eq!(
            serials("x"),
            ["content/x/cards/more.toml:5 `x0` has serial 4, which `c1` already has (content/p/cards/c1.toml:4)"]
        );
    }

    /// A scenario's setting of another type than pack.toml's (`"8"` for 8): an error at
    /// the setting, with the value unquoted in the hint; a list beside an empty list is not.
    #[test]
    fn a_scenario_option_of_another_type_is_an_error_at_the_setting() {
        let tmp = project("option-types");
        write(
            &tmp.0,
            "content/p/pack.toml",
            "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 2 }\n\n[options]\nmax_hand = 8\nmode = \"a\"\nlist = []\n",
        );
        write(
            &tmp.0,
            "content/p/scenarios/s.toml",
            "id = \"s\"\nname = \"S\"\n\n[options]\nmax_hand = \"8\"  # eight\nmode = 2\nlist = [1, 2]\n",
        );
        let loaded = load_pack(&Project::new(&tmp.0), "p", LoadOptions::default());
        let got: Vec<String> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.code == "option-type")
            .map(|d| format!("{}:{} {} ({})", d.line, d.column, d.message, d.hint.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            got,
            [
                "5:1 `max_hand` is a string here but an integer in pack.toml (write it without quotes: `max_hand = 8`)",
                "6:1 `mode` is an integer here but a string in pack.toml (give it as a string, as pack.toml does (`mode = \"a\"`))",
            ]
        );
    }

    /// A spreadsheet header naming an undeclared value (`value.rnak`): one error at the
    /// header cell, the rows' missing required value held back.
    #[test]
    fn a_misspelt_sheet_header_is_one_error_at_the_header() {
        let tmp = project("sheet-header");
        write(
            &tmp.0,
            "content/p/pack.toml",
            "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 2 }\n\n\
             [vocabulary.card]\nvalues = { rank = { min = 1, max = 9, required = true } }\n",
        );
        for i in 0..4 {
            let _ = std::fs::remove_file(tmp.0.join(format!("content/p/cards/c{i}.toml")));
        }
        write(&tmp.0, "content/p/cards/deck.csv", "id,name,value.rnak\na,A,1\nb,B,2\nc,C,3\n");
        let loaded = load_pack(&Project::new(&tmp.0), "p", LoadOptions::default());
        let errors: Vec<String> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{}:{} {} ({})", d.line, d.column, d.message, d.hint.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            errors,
            ["1:9 column `value.rnak`: `rnak` is not a value cards carry (3 rows fill it) (did you mean `value.rank`?\n\
              not shown until this is fixed, as they follow from it: 3 definitions lacking a required value)"]
        );
    }
}
