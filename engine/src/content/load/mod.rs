//! Loading a pack: read every file, parse it with spans, deserialize each definition on
//! its own (so one bad card does not hide the next), fold in extended packs, compile the
//! scripts, then check every reference. All problems come back together.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::model::{BoardFile, Definition, PackManifest};
use super::{Def, DefKind, Loaded, Origin, Pack, Project, ScenarioEntry, Script};
use crate::diag::{did_you_mean, Diagnostic, SourceFile, SourceMap};

mod checks;
mod files;
mod names;
mod scripts;

use checks::{board_space_ids, rel_path_ok};
use files::{parse_file, parse_file_cached, path_key, span_of_key};
use names::declared_names;
use scripts::{compile_one, ScriptOut};

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
            // The table `validate` ran on is gone: the pack is ours alone again.
            pack = Some(Arc::try_unwrap(p).unwrap_or_else(|p| (*p).clone()));
        }
    }
    let mut diags = l.diags;
    diags.sort_by(|a, b| (a.severity, &a.file, a.line, a.column).cmp(&(b.severity, &b.file, b.line, b.column)));
    diags.dedup();
    suppress_follow_ons(&mut diags);
    super::table::label_cells(&mut diags, &l.sources);
    if let Some(p) = &pack {
        // `[check] allow = { code = ["*"] }`: every warning of that code is left out.
        diags.retain(|d| d.is_error() || !p.manifest.check.allows(d.code, None));
    }
    let errors = diags.iter().any(Diagnostic::is_error);
    Loaded { pack: if errors { None } else { pack }, diagnostics: diags, sources: l.sources }
}

/// Diagnostics that an error in a TOML file may cause elsewhere beyond [`NAME_FOLLOW_ONS`]:
/// a definition the broken file held is missing, so references to it dangle and its
/// script looks unused; what scripts write may be missing with it.
const FILE_FOLLOW_ONS: &[&str] =
    &["dangling-reference", "unused-script", "counter-never-set", "mark-never-set", "zone-named-once"];

/// Name checks that need every script of the pack (what they write, which decks they
/// build, which zones they name): not made while a script does not compile.
const PACK_WIDE: &[&str] = &["counter-never-set", "mark-never-set", "zone-named-once"];

/// Errors after which what a file or pack holds is unknown (not one bad entry, whose id is
/// still known, but a whole file or pack that could not be read).
const LOST_CONTENT: &[&str] =
    &["toml-syntax", "csv-syntax", "invalid-utf8", "unreadable", "extends-cycle", "bad-path", "unknown-pack"];

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
];

/// One mistake, one error: while a TOML file or a pack could not be read, the diagnostics
/// that may only follow from it are held back (while a definition could not be read, those
/// about names it may have held), and the first such error says how many were.
fn suppress_follow_ons(diags: &mut Vec<Diagnostic>) {
    let is_toml = |d: &Diagnostic| d.file.as_ref().is_some_and(|f| f.extension().is_some_and(|x| x == "toml"));
    let lost = |d: &Diagnostic| d.is_error() && is_toml(d) && LOST_CONTENT.contains(&d.code);
    let entry = |d: &Diagnostic| d.is_error() && is_toml(d);
    // Whole files lost hold back every follow-on; a lost entry, the names it held.
    let whole = diags.iter().any(lost);
    if !whole && !diags.iter().any(entry) {
        return;
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
            (names > 0)
                .then(|| format!("{names} script call{} naming missing data", if names == 1 { "" } else { "s" })),
            count("card-in-no-deck", "card in no deck", "cards in no deck"),
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
/// use crown_engine::content::{Loader, LoadOptions, Project};
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
}

/// What one parsed file yields.
#[derive(Default, Clone)]
struct FileOut {
    source: Option<SourceFile>,
    hash: u64,
    manifest: Option<(PackManifest, Origin, BTreeMap<String, Range<usize>>)>,
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
    Table(DefKind, super::table::TableFormat),
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

    fn load_layer_inner(&mut self, id: &str, dir: &Path) -> Option<Layer> {
        let files = self.list_files(dir);
        let cache = self.cache.as_deref();
        let parsed: Vec<(FileOut, Option<CachedFile>)> = files
            .par_iter()
            .map(|(path, kind)| {
                let shown = self.shown(path);
                match cache {
                    None => (parse_file(path, &shown, *kind, id), None),
                    Some(c) => parse_file_cached(c, path, shown, *kind, id),
                }
            })
            .collect();
        let mut outs = Vec::with_capacity(parsed.len());
        for ((path, _), (out, fresh)) in files.iter().zip(parsed) {
            // Unchanged (from the cache): its source is already in the map.
            let reused = self.cache.is_some() && fresh.is_none() && out.source.is_some();
            if let Some(c) = self.cache.as_deref_mut() {
                c.stats.files += 1;
                let generation = c.generation;
                match fresh {
                    Some(entry) => {
                        c.stats.files_parsed += 1;
                        c.files.insert(path.clone(), entry);
                    }
                    None => {
                        if let Some(e) = c.files.get_mut(path) {
                            e.seen = generation;
                        }
                    }
                }
            }
            outs.push((out, reused));
        }
        let mut manifest = None;
        let mut own_defs = Vec::new();
        let mut scenarios = Vec::new();
        let mut board: Option<(BoardFile, Origin)> = None;
        let mut refs = Vec::new();
        // Files come sorted by path (a sorted walk), so collecting the hashes builds the
        // map in one pass instead of searching it once per file (paths compare slowly).
        let mut hash_list = Vec::with_capacity(outs.len());
        for (out, reused) in outs {
            if let Some(src) = out.source {
                hash_list.push((src.path.clone(), out.hash));
                self.keep_source(src, reused);
            }
            self.diags.extend(out.diags);
            if out.manifest.is_some() {
                manifest = out.manifest;
            }
            own_defs.extend(out.defs);
            scenarios.extend(out.scenarios);
            if let Some(b) = out.board {
                board = Some(b);
            }
            refs.extend(out.refs);
        }
        let file_hashes: BTreeMap<PathBuf, u64> = hash_list.into_iter().collect();
        let (mut manifest, morigin, mspans) = manifest?;
        let mfile = self.sources.get(&morigin.file).cloned();
        if manifest.id != id {
            if let Some(f) = &mfile {
                let span = mspans.get("id").cloned().unwrap_or(0..0);
                self.diags.push(
                    Diagnostic::error(
                        "pack-id-mismatch",
                        format!("pack id `{}` differs from its folder name `{id}`", manifest.id),
                    )
                    .at(f, span)
                    .hint(format!("set `id = \"{id}\"` or rename the folder")),
                );
            }
        }

        // Fold in the extended pack.
        let mut base = None;
        if let Some(parent) = manifest.extends.clone() {
            let span = mspans.get("extends").cloned().unwrap_or(0..0);
            let named = mfile.as_ref().map(|f| (f, span));
            base = self.load_layer(&parent, named);
            if base.is_none() {
                // The parent failed; its errors are reported. Keep going to report ours.
            }
        } else if !manifest.remove.is_empty() {
            if let Some(f) = &mfile {
                let span = mspans.get("remove").cloned().unwrap_or(0..0);
                self.diags.push(
                    Diagnostic::error(
                        "remove-without-extends",
                        "`remove` lists definitions, but this pack extends no pack",
                    )
                    .at(f, span)
                    .hint("add `extends = \"base-pack\"` or delete `remove`"),
                );
            }
        }

        let mut chain = vec![id.to_string()];
        let mut defs: Vec<(Def, Option<ScriptRef>)> = Vec::new();
        let mut all_scenarios = Vec::new();
        let mut all_refs = Vec::new();
        let mut rules = None;
        let mut hashes = BTreeMap::new();
        let mut icon_packs: BTreeMap<String, String> = BTreeMap::new();
        let own_icons: Vec<String> = manifest.icons.keys().cloned().collect();
        if let Some(b) = base {
            // What the extended packs accept, this one accepts too (their scripts run here).
            let mut manifest_allow = b.manifest.check.allow.clone();
            for (code, names) in std::mem::take(&mut manifest.check.allow) {
                manifest_allow.entry(code).or_default().extend(names);
            }
            manifest.check.allow = manifest_allow;
            // The search bot's defaults, unless this pack sets its own.
            if manifest.search.is_none() {
                manifest.search = b.manifest.search;
            }
            // The rules' settings: the base pack's, with this pack's over them.
            let mut options = b.manifest.options.clone();
            options.append(&mut manifest.options);
            manifest.options = options;
            // And its vocabulary, with this pack's additions.
            let mut vocabulary = b.manifest.vocabulary.clone();
            for (kind, v) in std::mem::take(&mut manifest.vocabulary) {
                let into = vocabulary.entry(kind).or_default();
                fn union<T: Clone>(into: &mut Option<T>, more: Option<T>, add: impl FnOnce(&mut T, T)) {
                    match (into.as_mut(), more) {
                        (Some(a), Some(b)) => add(a, b),
                        (None, Some(b)) => *into = Some(b),
                        _ => {}
                    }
                }
                union(&mut into.values, v.values, |a, b| a.extend(b));
                union(&mut into.attrs, v.attrs, |a, b| a.extend(b));
                union(&mut into.keywords, v.keywords, |a, b| a.extend(b));
                union(&mut into.costs, v.costs, |a, b| a.extend(b));
            }
            manifest.vocabulary = vocabulary;
            // And its printed look: colours, icons (whose files stay in the folder of the
            // pack that names them), card size and print settings, each overridden or
            // added to by this pack's own.
            let mut colors = b.manifest.colors.clone();
            colors.extend(std::mem::take(&mut manifest.colors));
            manifest.colors = colors;
            let mut icons = b.manifest.icons.clone();
            icons.extend(std::mem::take(&mut manifest.icons));
            manifest.icons = icons;
            icon_packs = b.icon_packs;
            if manifest.card_size.is_none() {
                manifest.card_size = b.manifest.card_size.clone();
            }
            let mut hide = b.manifest.print.hide_values.clone();
            for v in std::mem::take(&mut manifest.print.hide_values) {
                if !hide.contains(&v) {
                    hide.push(v);
                }
            }
            manifest.print.hide_values = hide;
            chain.extend(b.chain);
            defs = b.defs;
            all_scenarios = b.scenarios;
            all_refs = b.refs;
            rules = b.rules;
            hashes = b.file_hashes;
            if board.is_none() {
                board = b.board;
            }
        }
        for name in own_icons {
            icon_packs.insert(name, id.to_string());
        }
        if hashes.is_empty() {
            hashes = file_hashes;
        } else {
            hashes.extend(file_hashes);
        }

        // Removals.
        for (i, rid) in manifest.remove.iter().enumerate() {
            match defs.iter().position(|(d, _)| d.def.id == *rid) {
                Some(pos) => {
                    defs.remove(pos);
                }
                None => {
                    if let Some(f) = &mfile {
                        let span = mspans.get(&format!("remove.{i}")).cloned().unwrap_or(0..0);
                        self.diags.push(
                            Diagnostic::error(
                                "remove-of-nothing",
                                format!("`remove` names `{rid}`, which the extended packs do not define"),
                            )
                            .at(f, span),
                        );
                    }
                }
            }
        }
        let base_count = defs.len();
        let base_ids: BTreeMap<String, usize> =
            defs.iter().enumerate().map(|(i, (d, _))| (d.def.id.clone(), i)).collect();

        // This pack's definitions: duplicates within the pack, overrides of the base.
        let mut own_seen: BTreeMap<String, Origin> = BTreeMap::new();
        let mut lower_seen: BTreeMap<String, (String, Origin)> = BTreeMap::new();
        for (kind, def, origin, sref) in own_defs {
            if let Some(first) = own_seen.get(&def.id) {
                let f = self.sources.get(&origin.file).cloned();
                let ff = self.sources.get(&first.file).cloned();
                if let (Some(f), Some(ff)) = (f, ff) {
                    self.diags.push(
                        Diagnostic::error("duplicate-id", format!("`{}` is defined twice", def.id))
                            .at(&f, origin.id_span.clone())
                            .label("second definition")
                            .related(&ff, first.id_span.clone(), "first defined here")
                            .hint("ids must be unique across the pack; rename one of them"),
                    );
                }
                continue;
            }
            let lower = def.id.to_lowercase();
            if let Some((other, o)) = lower_seen.get(&lower) {
                if *other != def.id {
                    if let (Some(f), Some(of)) =
                        (self.sources.get(&origin.file).cloned(), self.sources.get(&o.file).cloned())
                    {
                        self.diags.push(
                            Diagnostic::error(
                                "id-case-clash",
                                format!("`{}` and `{other}` differ only in case", def.id),
                            )
                            .at(&f, origin.id_span.clone())
                            .related(&of, o.id_span.clone(), "the other one")
                            .hint("ids are compared exactly; pick names that differ in more than case"),
                        );
                    }
                }
            }
            lower_seen.insert(lower, (def.id.clone(), origin.clone()));
            own_seen.insert(def.id.clone(), origin.clone());
            let entry = (Def { kind, def, origin: origin.clone(), script: None }, sref);
            match base_ids.get(&entry.0.def.id) {
                Some(&bi) if bi < base_count => {
                    if entry.0.def.replaces {
                        defs[bi] = entry;
                    } else if let (Some(f), Some(bf)) =
                        (self.sources.get(&origin.file).cloned(), self.sources.get(&defs[bi].0.origin.file).cloned())
                    {
                        self.diags.push(
                            Diagnostic::error(
                                "redefinition",
                                format!("`{}` is already defined by pack `{}`", entry.0.def.id, defs[bi].0.origin.pack),
                            )
                            .at(&f, origin.id_span.clone())
                            .related(&bf, defs[bi].0.origin.id_span.clone(), "defined here")
                            .hint("add `override = true` to replace it, or choose another id"),
                        );
                    }
                }
                _ => {
                    if entry.0.def.replaces {
                        if let Some(f) = self.sources.get(&origin.file).cloned() {
                            self.diags.push(
                                Diagnostic::error(
                                    "override-of-nothing",
                                    format!(
                                        "`{}` has `override = true` but no extended pack defines it",
                                        entry.0.def.id
                                    ),
                                )
                                .at(&f, origin.id_span.clone())
                                .hint(if manifest.extends.is_some() {
                                    "remove `override = true`, or fix the id"
                                } else {
                                    "this pack extends nothing; remove `override = true`"
                                }),
                            );
                        }
                    }
                    defs.push(entry);
                }
            }
        }

        // Scenarios: unique ids within the pack; an expansion's scenario may replace a base one of the same id.
        let mut seen_sc: BTreeMap<String, Origin> = BTreeMap::new();
        for sc in scenarios {
            if let Some(first) = seen_sc.get(&sc.scenario.id) {
                if let (Some(f), Some(ff)) =
                    (self.sources.get(&sc.origin.file).cloned(), self.sources.get(&first.file).cloned())
                {
                    self.diags.push(
                        Diagnostic::error("duplicate-id", format!("scenario `{}` is defined twice", sc.scenario.id))
                            .at(&f, sc.origin.id_span.clone())
                            .related(&ff, first.id_span.clone(), "first defined here"),
                    );
                }
                continue;
            }
            seen_sc.insert(sc.scenario.id.clone(), sc.origin.clone());
            all_scenarios.retain(|s: &ScenarioEntry| s.scenario.id != sc.scenario.id);
            all_scenarios.push(sc);
        }
        all_refs.extend(refs);

        // The rules script: this pack's own, else the one inherited.
        let rules_rel = manifest.rules.clone().unwrap_or_else(|| "rules.rhai".to_string());
        let own_rules = self.project.scripts_dir(id).join(&rules_rel);
        // A refused path (reported when the manifest was parsed) is never read.
        if !rel_path_ok(&rules_rel) {
            rules = None;
        } else if own_rules.is_file() || manifest.rules.is_some() || rules.is_none() {
            rules = Some(ScriptRef {
                pack: id.to_string(),
                rel: rules_rel,
                file: morigin.file.clone(),
                span: mspans.get("rules").cloned().unwrap_or(0..0),
                hooks: Vec::new(),
            });
        }

        Some(Layer {
            manifest,
            manifest_origin: morigin,
            chain,
            defs,
            scenarios: all_scenarios,
            board,
            refs: all_refs,
            rules,
            file_hashes: hashes,
            icon_packs,
        })
    }

    /// The TOML files of a pack folder, with what each one holds. Reports unknown files,
    /// symlinks that leave the project or loop, and names that differ only in case.
    fn list_files(&mut self, dir: &Path) -> Vec<(PathBuf, FileKind)> {
        let mut out = Vec::new();
        // Keyed by the folder's path as bytes: comparing `Path`s component by component
        // was most of the time spent listing a large pack.
        let mut names_by_dir: BTreeMap<(std::ffi::OsString, String), PathBuf> = BTreeMap::new();
        let walker = walkdir::WalkDir::new(dir).follow_links(false).sort_by_file_name().max_depth(6);
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let p = e.path().map(|p| self.shown(p)).unwrap_or_default();
                    self.diags.push(Diagnostic::error("unreadable", format!("cannot read: {e}")).in_file(p));
                    continue;
                }
            };
            let path = entry.path().to_path_buf();
            let rel = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
            let top = rel.components().next().and_then(|c| c.as_os_str().to_str()).unwrap_or("");
            if matches!(top, "templates" | "art" | "icons" | "fonts") {
                continue;
            }
            if let (Some(parent), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) {
                let key = (parent.as_os_str().to_os_string(), name.to_lowercase());
                if let Some(other) = names_by_dir.get(&key) {
                    self.diags.push(
                        Diagnostic::error(
                            "name-case-clash",
                            format!(
                                "`{}` and `{}` differ only in case",
                                name,
                                other.file_name().and_then(|n| n.to_str()).unwrap_or("")
                            ),
                        )
                        .in_file(self.shown(&path))
                        .hint("such names collide on Windows and macOS; rename one"),
                    );
                    continue;
                }
                names_by_dir.insert(key, path.clone());
            }
            let ft = entry.file_type();
            if ft.is_symlink() {
                match path.canonicalize() {
                    Err(e) => {
                        self.diags.push(
                            Diagnostic::error("bad-symlink", format!("symbolic link cannot be followed: {e}"))
                                .in_file(self.shown(&path))
                                .hint("a link that loops or points nowhere; remove it"),
                        );
                        continue;
                    }
                    Ok(target) => {
                        if !target.starts_with(&self.root) {
                            self.diags.push(
                                Diagnostic::error(
                                    "symlink-outside-project",
                                    format!("symbolic link points outside the project, to {}", target.display()),
                                )
                                .in_file(self.shown(&path))
                                .hint("copy the file into the project instead"),
                            );
                            continue;
                        }
                        if target.is_dir() {
                            self.diags.push(
                                Diagnostic::warning("symlinked-folder", "linked folders are not followed")
                                    .in_file(self.shown(&path)),
                            );
                            continue;
                        }
                    }
                }
            } else if !ft.is_file() {
                if !ft.is_dir() && path.extension().is_some_and(|x| x == "toml") {
                    let d = crate::fsread::read_checked(&path, crate::fsread::Kind::Definition).err();
                    let why = d.map_or_else(|| "not a regular file".into(), |e| e.reason());
                    self.diags.push(
                        Diagnostic::error("unreadable", format!("cannot read file: {why}")).in_file(self.shown(&path)),
                    );
                }
                continue;
            }
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if !super::table::is_definition_list(name) {
                continue;
            }
            let depth = rel.components().count();
            // A definition list is TOML or a spreadsheet (CSV, XLSX, ODS) of the same name.
            let (stem, defs_kind) = match super::table::TableFormat::of(name) {
                Some(f) => (name.rsplit_once('.').map_or(name, |(s, _)| s), Some(f)),
                None => (name.strip_suffix(".toml").unwrap_or(name), None),
            };
            let list = |k: DefKind| match defs_kind {
                Some(f) => FileKind::Table(k, f),
                None => FileKind::Defs(k),
            };
            let kind = match (top, depth, stem, defs_kind) {
                (_, 1, "pack", None) => Some(FileKind::Manifest),
                (_, 1, "cards", _) | ("cards", _, _, _) => Some(list(DefKind::Card)),
                (_, 1, "plaques", _) => Some(list(DefKind::Plaque)),
                (_, 1, "nobles", _) => Some(list(DefKind::Noble)),
                (_, 1, "leaders", _) => Some(list(DefKind::Leader)),
                (_, 1, "board", None) => Some(FileKind::Board),
                ("scenarios", 2, _, None) => Some(FileKind::Scenario),
                _ => None,
            };
            match kind {
                Some(k) => out.push((path, k)),
                None => self.diags.push(
                    Diagnostic::warning("unknown-file", format!("`{}` is not a file Crown loads", rel.display()))
                        .in_file(self.shown(&path))
                        .hint("definition files are pack.toml, cards/*.toml, plaques.toml, nobles.toml, leaders.toml, board.toml and scenarios/*.toml; card lists may also be .csv, .xlsx or .ods"),
                ),
            }
        }
        out
    }

    /// Compile scripts, check references and hooks, and build the pack.
    /// Cards with a count that no script can put in play: when the scripts name every deck
    /// they build in a literal (and never enumerate all definitions with `defs`), a card
    /// whose `decks` they never build, and that nothing names by id, is never played.
    fn cards_in_no_deck(
        &mut self,
        defs: &[Def],
        scripts: &[Script],
        declared: &crate::script::lint::Declared,
        referenced: &BTreeSet<String>,
    ) {
        use crate::script::lint::Names;
        if declared.dynamic.contains(&Names::Deck) || scripts.iter().any(|s| s.references.names.contains("defs")) {
            return;
        }
        let built: BTreeSet<&str> = scripts
            .iter()
            .flat_map(|s| s.references.literals.iter())
            .filter(|l| l.names == Names::Deck)
            .map(|l| l.text.as_str())
            .collect();
        let by_id: BTreeSet<&str> = scripts
            .iter()
            .flat_map(|s| s.references.literals.iter())
            .filter(|l| l.names == Names::Id)
            .map(|l| l.text.as_str())
            .chain(scripts.iter().flat_map(|s| s.references.names.iter().map(String::as_str)))
            .collect();
        // One warning per deck nobody builds (and one for cards listing no deck), at the
        // first card concerned, naming the others.
        let mut stranded: BTreeMap<Option<&str>, Vec<&Def>> = BTreeMap::new();
        for d in defs {
            let def = &d.def;
            if d.kind != DefKind::Card
                || def.count == 0
                || referenced.contains(&def.id)
                || by_id.contains(def.id.as_str())
                || def.decks.iter().any(|k| built.contains(k.as_str()))
            {
                continue;
            }
            stranded.entry(def.decks.first().map(String::as_str)).or_default().push(d);
        }
        let mut out = Vec::new();
        for (deck, cards) in stranded {
            let first = cards[0];
            let Some(f) = self.sources.get(&first.origin.file) else { continue };
            let others = match cards.len() {
                1 => String::new(),
                2 => format!(" (and `{}`)", cards[1].def.id),
                n => format!(" (and `{}` and {} more)", cards[1].def.id, n - 2),
            };
            let message = match deck {
                None => format!("card `{}`{others} lists no deck, so no script puts it in play", first.def.id),
                Some(k) => format!("card `{}`{others} is in the deck `{k}`, which no script builds", first.def.id),
            };
            let known: Vec<String> = built.iter().map(|k| format!("`{k}`")).collect();
            let hint = match deck.and_then(|k| did_you_mean(k, built.iter().copied())) {
                Some(n) => format!("did you mean the deck `{n}`?"),
                None if known.is_empty() => {
                    "no script calls `create_deck` or `defs_in_deck` with a deck name".to_string()
                }
                None => format!("the scripts build {}", known.join(", ")),
            };
            out.push(Diagnostic::warning("card-in-no-deck", message).at(f, first.origin.id_span.clone()).hint(hint));
        }
        self.diags.extend(out);
    }

    fn finish(&mut self, layer: Layer) -> Option<Pack> {
        let Layer { manifest, manifest_origin, chain, defs, scenarios, board, refs, rules, file_hashes, icon_packs } =
            layer;
        let mfile = self.sources.get(&manifest_origin.file).cloned();
        if let Some(f) = &mfile {
            self.check_manifest(&manifest, f);
        }

        // Definitions are kept sorted by id, so reordering them within or across files
        // never changes a game (card instances are created in this order).
        let mut defs = defs;
        defs.sort_by(|a, b| a.0.def.id.cmp(&b.0.def.id));
        let mut scenarios = scenarios;
        scenarios.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
        // The definitions move into the pack (no copies); their script references stay beside.
        let (mut pack_defs, srefs): (Vec<Def>, Vec<Option<ScriptRef>>) = defs.into_iter().unzip();
        let mut index = BTreeMap::new();
        for (i, d) in pack_defs.iter().enumerate() {
            index.insert(d.def.id.clone(), i);
        }

        // References.
        let spaces: BTreeSet<String> = board.as_ref().map(|(b, _)| board_space_ids(b)).unwrap_or_default();
        let supplies: BTreeSet<&str> =
            board.as_ref().map(|(b, _)| b.supply.iter().map(|s| s.id.as_str()).collect()).unwrap_or_default();
        let mut referenced_cards: BTreeSet<String> = BTreeSet::new();
        for r in &refs {
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

        // Scripts.
        let mut scripts: Vec<Script> = Vec::new();
        let mut script_index: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut rules_idx = None;
        // Script paths as normalised bytes (comparing `Path`s is slow on large packs).
        let mut used_scripts: BTreeSet<std::ffi::OsString> = BTreeSet::new();
        let mut rules_functions_ast: Option<(rhai::AST, u64)> = None;
        if let Some(r) = &rules {
            let path = self.project.scripts_dir(&r.pack).join(&r.rel);
            used_scripts.insert(path_key(&self.shown(&path)));
            match self.compile_script(r, None) {
                Some(s) => {
                    if self.opts.compile_scripts && !s.functions.contains("turn") {
                        let d = Diagnostic::error("missing-turn", "the rules script defines no `turn()` function")
                            .in_file(s.path.clone())
                            .hint(
                                "games call `fn turn()` once per turn until `end_game`; define it in the rules script",
                            );
                        self.diags.push(match self.sources.get(&r.file).cloned() {
                            Some(f) if r.span != (0..0) => {
                                d.related(&f, r.span.clone(), "the rules script is named here")
                            }
                            _ => d,
                        });
                    }
                    rules_functions_ast = Some((s.ast.clone_functions_only(), s.hash));
                    rules_idx = Some(scripts.len());
                    script_index.insert((r.pack.clone(), r.rel.clone()), scripts.len());
                    scripts.push(s);
                }
                None => self.rules_broken = true,
            }
        }
        // Compile every distinct definition script (in parallel), then attach.
        let mut wanted: Vec<ScriptRef> = Vec::new();
        let mut wanted_keys: BTreeSet<(&str, &str)> = BTreeSet::new();
        for s in srefs.iter().flatten() {
            if wanted_keys.insert((s.pack.as_str(), s.rel.as_str())) {
                wanted.push(s.clone());
            }
        }
        let lib = rules_functions_ast.as_ref().map(|(a, h)| (a, *h));
        let mut some_script_failed = self.rules_broken;
        let compiled: Vec<(ScriptRef, ScriptOut)> =
            wanted.into_par_iter().map(|s| (s.clone(), compile_one(self, &s, lib))).collect();
        for (s, out) in compiled {
            let path = self.project.scripts_dir(&s.pack).join(&s.rel);
            used_scripts.insert(path_key(&self.shown(&path)));
            if let Some(script) = self.take_script(out) {
                script_index.insert((s.pack.clone(), s.rel.clone()), scripts.len());
                scripts.push(script);
            } else {
                some_script_failed = true;
            }
        }
        let unchecked = self.unchecked_calls.swap(0, std::sync::atomic::Ordering::Relaxed);
        if let (true, Some(r)) = (unchecked > 0, &rules) {
            // One mistake, one error: say on the rules script's error what waits for it.
            let shown = self.shown(&self.project.scripts_dir(&r.pack).join(&r.rel));
            if let Some(d) = self.diags.iter_mut().find(|d| d.is_error() && d.file.as_deref() == Some(shown.as_path()))
            {
                let note = format!(
                    "not checked until this is fixed: {unchecked} call{} from card scripts to functions that are not Crown's",
                    if unchecked == 1 { "" } else { "s" }
                );
                d.hint = Some(match d.hint.take() {
                    Some(h) => format!("{h}\n{note}"),
                    None => note,
                });
            }
        }
        // Scripts a definition names a hook of that they do not define.
        let mut missing_hooks: BTreeSet<usize> = BTreeSet::new();
        for (i, sref) in srefs.iter().enumerate() {
            let Some(s) = sref else { continue };
            if let Some(&si) = script_index.get(&(s.pack.clone(), s.rel.clone())) {
                pack_defs[i].script = Some(si);
                let have = &scripts[si].functions;
                let hooks = if self.opts.compile_scripts { s.hooks.as_slice() } else { &[] };
                for (hook, span) in hooks {
                    if !have.contains(hook) {
                        missing_hooks.insert(si);
                        if let Some(f) = self.sources.get(&s.file).cloned() {
                            let hint = did_you_mean(hook, have.iter().map(String::as_str))
                                .map(|h| format!("the script defines `{h}`; did you mean that?"))
                                .unwrap_or_else(|| {
                                    format!("define `fn {hook}(...)` in {}", scripts[si].path.display())
                                });
                            self.diags.push(
                                Diagnostic::error(
                                    "missing-hook",
                                    format!(
                                        "`{}` names hook `{hook}`, but its script does not define it",
                                        pack_defs[i].def.id
                                    ),
                                )
                                .at(&f, span.clone())
                                .hint(hint),
                            );
                        }
                    }
                }
            }
        }

        // A card script's function that nothing can reach: not a hook any definition names,
        // not called by any script, not named in a string (a hook invoked by name).
        if self.opts.compile_scripts {
            let mut reachable: BTreeSet<String> = BTreeSet::new();
            for sc in &scripts {
                reachable.extend(sc.references.names.iter().cloned());
            }
            for s in srefs.iter().flatten() {
                reachable.extend(s.hooks.iter().map(|(h, _)| h.clone()));
            }
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
                    let line = crate::script::api::fn_line_in(&self.sources, &scripts[si].path, f);
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

        // What definitions carry, against the pack's declared vocabulary.
        self.diags.extend(super::vocabulary::check(&manifest, mfile.as_ref(), &pack_defs, &self.sources));

        // Names spelt out in strings: what the pack's data and scripts declare.
        let declared = self
            .opts
            .compile_scripts
            .then(|| declared_names(&manifest, &pack_defs, &scenarios, board.as_ref().map(|(b, _)| b), &scripts));
        if let Some(declared) = &declared {
            for sc in &scripts {
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
                    let d = if n.error {
                        Diagnostic::error(n.code, f.message)
                    } else {
                        Diagnostic::warning(n.code, f.message)
                    };
                    let d = if f.line > 0 { d.at_line_col(&src, f.line, f.col) } else { d.in_file(sc.path.clone()) };
                    self.diags.push(d.maybe_hint(f.hint));
                }
            }
        }

        // Warnings: unused scripts, cards in no deck.
        if self.opts.compile_scripts {
            for p in &chain {
                let dir = self.project.scripts_dir(p);
                for e in walkdir::WalkDir::new(&dir).sort_by_file_name().into_iter().flatten() {
                    if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rhai") {
                        let shown = self.shown(e.path());
                        if !used_scripts.contains(&path_key(&shown)) {
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
        for d in &pack_defs {
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
        if let (Some(declared), false) = (&declared, some_script_failed) {
            self.cards_in_no_deck(&pack_defs, &scripts, declared, &referenced_cards);
        }

        // Scenario checks that need the manifest.
        let mut defaults = 0;
        for sc in &scenarios {
            let s = &sc.scenario;
            if s.default {
                defaults += 1;
            }
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
                    .in_file(manifest_origin.file.clone()),
            );
        }

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
            sources,
            file_hashes,
            icon_packs,
        })
    }

    fn check_manifest(&mut self, m: &PackManifest, f: &SourceFile) {
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
            if super::card_size_mm(size).is_none_or(|(w, h)| !(w > 0.0 && h > 0.0 && w < 1000.0 && h < 1000.0)) {
                self.diags.push(
                    Diagnostic::error("bad-card-size", "unknown or impossible card size")
                        .at(f, find("card_size"))
                        .hint("use poker, bridge, tarot, mini, square, or { width_mm = 63, height_mm = 88 }"),
                );
            }
        }
        if m.version.trim().is_empty() {
            self.diags.push(Diagnostic::error("empty-version", "version is empty").at(f, find("version")));
        }
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
}
