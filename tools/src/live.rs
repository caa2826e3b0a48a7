//! Live reloading: the pieces `crown watch`, `crown play --watch` and `crown serve` share.
//!
//! - [`FsWatcher`]: the `notify` watcher on `content/`, `scripts/` and `tests/golden/`
//!   (folders, recursively: editors save by rename), editor temp and swap files ignored,
//!   events gathered into batches once the folder has been quiet for the debounce time.
//! - [`classify`]: which pack a changed path belongs to and what kind of file it is.
//! - [`Reloader`]: the last good load of every watched pack. A batch reloads only the
//!   packs it touches; a load with errors changes nothing that is loaded (its diagnostics
//!   are kept for display), and the next good save replaces it. Optionally only the faces
//!   of changed definitions are rendered again, and only the golden games whose
//!   transcripts involve a changed definition are replayed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crown_engine::content::Pack;
use crown_engine::diag::{Diagnostic, SourceMap};
use crown_engine::load::{LoadOptions, Loader, Project};
use notify::{RecursiveMode, Watcher};

use crate::golden::{self, Verdict};
use crate::out;
use crate::print::{self, Format, PrintOptions};
use crown_engine::diag::plural;

/// Default quiet time that closes a batch of file events.
pub const DEFAULT_DEBOUNCE_MS: u64 = 50;

/// The quiet time once every file written in a batch has been closed (or renamed into
/// place): the save is complete, only its immediate followers are waited for.
const SETTLE_MS: u64 = 10;

/// A batch is processed at the latest this long after its first event, even if events
/// keep coming (a long rename storm or checkout).
const MAX_BATCH: Duration = Duration::from_millis(1500);

// ---------------------------------------------------------------------------------------
// The digest of a loaded pack

// ---------------------------------------------------------------------------------------
// Classification

/// What kind of file changed, which decides what is rebuilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// `content/<pack>/pack.toml`.
    Manifest,
    /// Cards, plaques, nobles, leaders.
    Definition,
    /// `content/<pack>/scenarios/*.toml`.
    Scenario,
    /// `content/<pack>/board.toml`.
    Board,
    /// `scripts/<pack>/**.rhai`.
    Script,
    /// `content/<pack>/templates/*`: card faces only.
    Template,
    /// `content/<pack>/rules.md`: the rules document, checked again with the pack.
    Rules,
    /// Art, icons and other files of the pack folder: card faces only.
    Asset,
    /// `tests/golden/<pack>/*`.
    Golden,
    /// A folder appeared or vanished: the whole pack is read again.
    Folder,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Manifest => "manifest",
            ChangeKind::Definition => "definition",
            ChangeKind::Scenario => "scenario",
            ChangeKind::Board => "board",
            ChangeKind::Script => "script",
            ChangeKind::Template => "template",
            ChangeKind::Rules => "rules document",
            ChangeKind::Asset => "asset",
            ChangeKind::Golden => "golden game",
            ChangeKind::Folder => "folder",
        }
    }

    /// Whether the pack itself (definitions, scenarios, scripts) must be loaded again.
    pub fn needs_load(self) -> bool {
        !matches!(self, ChangeKind::Template | ChangeKind::Asset | ChangeKind::Golden)
    }
}

/// One changed path, classified.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    /// The pack folder the file lives in (`content/<pack>`, `scripts/<pack>`...).
    pub pack: String,
    pub kind: ChangeKind,
    /// Path relative to the project root, with `/`.
    pub rel: String,
}

/// Editor temporary, backup and swap files, and the atomic-write temporaries of Crown:
/// never a reason to reload.
pub fn ignored(name: &str) -> bool {
    name.is_empty()
        || name.starts_with('.')
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name == "4913"
        || name.contains(".crown-tmp-")
        || [".swp", ".swx", ".swo", ".tmp", ".bak", ".orig", ".part", ".crdownload", ".kate-swp"]
            .iter()
            .any(|e| name.ends_with(e))
        || name.eq_ignore_ascii_case("thumbs.db")
        || name.starts_with("___jb_")
        // Office programs' lock files: `~$cards.xlsx`, `.~lock.cards.ods#`.
        || name.starts_with("~$")
}

/// Classify a path (absolute, or relative to the project root). `None` for paths outside
/// the watched folders and for ignored files.
pub fn classify(root: &Path, path: &Path) -> Option<Change> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<&str> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    if parts.iter().any(|p| ignored(p)) {
        return None;
    }
    let rel_s = parts.join("/");
    let mk = |pack: &str, kind| Some(Change { pack: pack.to_string(), kind, rel: rel_s.clone() });
    match parts.as_slice() {
        ["content", pack] | ["scripts", pack] | ["tests", "golden", pack] => mk(pack, ChangeKind::Folder),
        ["content", pack, "pack.toml"] => mk(pack, ChangeKind::Manifest),
        ["content", pack, "board.toml"] => mk(pack, ChangeKind::Board),
        // Definition lists: TOML, or a spreadsheet (CSV, XLSX, ODS) of the same name.
        ["content", pack, f]
            if crown_engine::load::table::is_definition_list(f)
                && ["plaques.", "nobles.", "leaders.", "cards."].iter().any(|s| f.starts_with(s)) =>
        {
            mk(pack, ChangeKind::Definition)
        }
        ["content", pack, "cards" | "scenarios"] => mk(pack, ChangeKind::Folder),
        ["content", pack, "cards", .., f] if crown_engine::load::table::is_definition_list(f) => {
            mk(pack, ChangeKind::Definition)
        }
        ["content", pack, "scenarios", f] if f.ends_with(".toml") => mk(pack, ChangeKind::Scenario),
        ["content", pack, "cards" | "scenarios", .., f] if !f.contains('.') => mk(pack, ChangeKind::Folder),
        ["content", pack, "templates", ..] => mk(pack, ChangeKind::Template),
        ["content", pack, "rules.md"] => mk(pack, ChangeKind::Rules),
        ["content", pack, .., f] if f.contains('.') && !f.ends_with(".toml") => mk(pack, ChangeKind::Asset),
        ["content", pack, .., f] if !f.contains('.') => mk(pack, ChangeKind::Folder),
        ["scripts", pack, ..] => {
            let last = parts.last().copied().unwrap_or("");
            if last.ends_with(".rhai") {
                mk(pack, ChangeKind::Script)
            } else if last.contains('.') {
                None
            } else {
                mk(pack, ChangeKind::Folder)
            }
        }
        ["tests", "golden", pack, f] if f.ends_with(".game.toml") || f.ends_with(".transcript") => {
            mk(pack, ChangeKind::Golden)
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// The file-system watcher

/// The folders of a project that are watched, each recursively.
pub fn watched_dirs(root: &Path) -> Vec<PathBuf> {
    vec![root.join("content"), root.join("scripts"), root.join("tests").join("golden")]
}

/// A `notify` watcher on a project's folders, with debouncing.
pub struct FsWatcher {
    root: PathBuf,
    watcher: Box<dyn Watcher + Send>,
    rx: Receiver<notify::Result<notify::Event>>,
    /// Watched folders and the identity (device, inode) of each when it was watched, so
    /// a folder replaced wholesale is watched again.
    dirs: BTreeMap<PathBuf, Option<(u64, u64)>>,
    debounce: Duration,
    /// Polling: no close events, the full debounce always applies.
    polling: bool,
    /// Errors reported by the watcher since the last batch.
    pub errors: Vec<String>,
}

#[cfg(unix)]
fn identity(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().filter(|m| m.is_dir()).map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(p: &Path) -> Option<(u64, u64)> {
    p.is_dir().then_some((0, 0))
}

impl FsWatcher {
    /// Watch `root`'s `content/`, `scripts/` and `tests/golden/` (and `root` itself, not
    /// recursively, to notice those folders appearing or being replaced).
    pub fn new(root: &Path, poll: bool, debounce: Duration) -> Result<FsWatcher, String> {
        let root = root.canonicalize().map_err(|e| format!("{}: {e}", root.display()))?;
        let (tx, rx) = channel();
        let watcher: Box<dyn Watcher + Send> = if poll {
            let cfg =
                notify::Config::default().with_poll_interval(Duration::from_millis(200)).with_compare_contents(true);
            Box::new(notify::PollWatcher::new(tx, cfg).map_err(|e| format!("cannot start the poll watcher: {e}"))?)
        } else {
            Box::new(notify::recommended_watcher(tx).map_err(|e| format!("cannot start the file watcher: {e}"))?)
        };
        let mut w = FsWatcher { root, watcher, rx, dirs: BTreeMap::new(), debounce, polling: poll, errors: Vec::new() };
        w.watcher
            .watch(&w.root.clone(), RecursiveMode::NonRecursive)
            .map_err(|e| format!("cannot watch {}: {e}", w.root.display()))?;
        let tests = w.root.join("tests");
        if tests.is_dir() {
            let _ = w.watcher.watch(&tests, RecursiveMode::NonRecursive);
        }
        w.refresh_dirs();
        Ok(w)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Watch the folders that appeared or were replaced since the last call.
    fn refresh_dirs(&mut self) {
        for d in watched_dirs(&self.root) {
            let now = identity(&d);
            let before = self.dirs.get(&d).copied().flatten();
            if now.is_some() && now != before {
                let _ = self.watcher.unwatch(&d);
                match self.watcher.watch(&d, RecursiveMode::Recursive) {
                    Ok(()) => {
                        self.dirs.insert(d, now);
                    }
                    Err(e) => self.errors.push(format!("cannot watch {}: {e}", d.display())),
                }
            } else if now.is_none() {
                if before.is_some() {
                    let _ = self.watcher.unwatch(&d);
                }
                self.dirs.insert(d, None);
            }
        }
    }

    /// Wait for the next batch of changes (at most `timeout`, forever when `None`): the
    /// classified changes, deduplicated and sorted. An empty batch means only ignored
    /// files changed; `None` means the timeout passed or the watcher stopped.
    pub fn next_batch(&mut self, timeout: Option<Duration>) -> Option<Vec<Change>> {
        let first = match timeout {
            Some(t) => match self.rx.recv_timeout(t) {
                Ok(e) => e,
                Err(_) => return None,
            },
            None => self.rx.recv().ok()?,
        };
        let start = Instant::now();
        let mut paths: BTreeSet<PathBuf> = BTreeSet::new();
        // Files written to and not yet closed: while there are any, the batch waits for
        // the full quiet time; once every write is closed (or the file was renamed into
        // place or removed), a short quiet time is enough.
        let mut open: BTreeSet<PathBuf> = BTreeSet::new();
        fn take(
            e: notify::Result<notify::Event>,
            paths: &mut BTreeSet<PathBuf>,
            open: &mut BTreeSet<PathBuf>,
            errors: &mut Vec<String>,
        ) {
            use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind};
            use notify::EventKind as K;
            match e {
                Ok(ev) => match ev.kind {
                    K::Access(AccessKind::Close(AccessMode::Write)) => {
                        for p in &ev.paths {
                            open.remove(p);
                        }
                        paths.extend(ev.paths);
                    }
                    K::Access(_) => {}
                    K::Create(CreateKind::Folder)
                    | K::Remove(_)
                    | K::Modify(ModifyKind::Name(_))
                    | K::Modify(ModifyKind::Metadata(_)) => {
                        for p in &ev.paths {
                            open.remove(p);
                        }
                        paths.extend(ev.paths);
                    }
                    _ => {
                        open.extend(ev.paths.iter().cloned());
                        paths.extend(ev.paths);
                    }
                },
                Err(e) => errors.push(e.to_string()),
            }
        }
        take(first, &mut paths, &mut open, &mut self.errors);
        let settle = self.debounce.min(Duration::from_millis(SETTLE_MS));
        loop {
            let left = MAX_BATCH.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            let quiet = if open.is_empty() && !self.polling { settle } else { self.debounce };
            match self.rx.recv_timeout(quiet.min(left)) {
                Ok(e) => take(e, &mut paths, &mut open, &mut self.errors),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        self.refresh_dirs();
        let mut changes: BTreeSet<Change> = BTreeSet::new();
        for p in &paths {
            if let Some(c) = classify(&self.root, p) {
                changes.insert(c);
            } else if p.parent() == Some(self.root.as_path()) || p.parent() == Some(self.root.join("tests").as_path()) {
                // `content/`, `scripts/` or `tests/golden/` itself appeared or was replaced:
                // every pack is read again.
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if ["content", "scripts", "golden"].contains(&name) {
                    changes.insert(Change { pack: String::new(), kind: ChangeKind::Folder, rel: name.to_string() });
                }
            }
        }
        // A path without an extension that is gone is a deleted folder or an editor's
        // temporary file (`sed -i`): noise when the batch holds real changes to its pack.
        let real: BTreeSet<String> =
            changes.iter().filter(|c| c.kind != ChangeKind::Folder).map(|c| c.pack.clone()).collect();
        let root = self.root.clone();
        changes.retain(|c| c.kind != ChangeKind::Folder || !real.contains(&c.pack) || root.join(&c.rel).exists());
        Some(changes.into_iter().collect())
    }
}

// ---------------------------------------------------------------------------------------
// Reloading

/// One watched pack: the last good load and what the latest attempt reported.
#[derive(Debug, Clone)]
pub struct PackState {
    pub id: String,
    /// The last load without errors (`None` if the pack never loaded).
    pub pack: Option<Arc<Pack>>,
    /// Diagnostics of the latest attempt (errors mean `pack` is older than the files).
    pub diagnostics: Vec<Diagnostic>,
    pub sources: SourceMap,
    /// Counts successful reloads.
    pub generation: u64,
}

impl PackState {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// What one reload of one pack did: the line `crown watch` prints.
#[derive(Debug, Clone)]
pub struct ReloadReport {
    pub pack: String,
    /// The changed files (relative paths) and their kinds.
    pub files: Vec<(String, ChangeKind)>,
    /// Whether the pack was loaded again.
    pub loaded: bool,
    /// Errors of the attempt; when non-zero the last good load was kept.
    pub errors: usize,
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    /// Changed definitions whose shape changed (kind, stages, a back face): a game in
    /// progress holding their cards may not use them as before. `id (what changed)`.
    pub incompatible: Vec<String>,
    /// The rules script changed (every definition may behave differently).
    pub rules_changed: bool,
    pub scenarios_changed: Vec<String>,
    /// Card faces rendered again (`--print`).
    pub rendered: usize,
    pub print_errors: usize,
    /// Golden games replayed (`--test`): passed, and the names of the failed ones.
    pub golden_passed: usize,
    pub golden_failed: Vec<String>,
    pub elapsed: Duration,
}

impl ReloadReport {
    fn new(pack: &str) -> ReloadReport {
        ReloadReport {
            pack: pack.to_string(),
            files: Vec::new(),
            loaded: false,
            errors: 0,
            added: Vec::new(),
            changed: Vec::new(),
            removed: Vec::new(),
            incompatible: Vec::new(),
            rules_changed: false,
            scenarios_changed: Vec::new(),
            rendered: 0,
            print_errors: 0,
            golden_passed: 0,
            golden_failed: Vec::new(),
            elapsed: Duration::ZERO,
        }
    }

    /// Whether the reload succeeded (nothing loaded was left stale by an error).
    pub fn ok(&self) -> bool {
        self.errors == 0
    }

    /// The one line printed for this reload.
    pub fn line(&self) -> String {
        let mut files: Vec<String> =
            self.files.iter().take(3).map(|(f, k)| format!("{} ({})", short(f, &self.pack), k.as_str())).collect();
        if self.files.len() > 3 {
            files.push(format!("+{} more", self.files.len() - 3));
        }
        let what = files.join(", ");
        let ms = self.elapsed.as_secs_f64() * 1000.0;
        if self.errors > 0 {
            return format!(
                "error  {}: {what}: {} error{}, last good load kept [{ms:.0} ms]",
                self.pack,
                self.errors,
                plural(self.errors)
            );
        }
        let mut did: Vec<String> = Vec::new();
        if self.loaded {
            let mut defs = Vec::new();
            for (n, list) in [("changed", &self.changed), ("added", &self.added), ("removed", &self.removed)] {
                if !list.is_empty() {
                    defs.push(format!("{n} {}", ids(list)));
                }
            }
            if !self.incompatible.is_empty() {
                defs.push(format!("incompatible {}", ids(&self.incompatible)));
            }
            if self.rules_changed {
                defs.push("rules script".into());
            }
            if !self.scenarios_changed.is_empty() {
                defs.push(format!("scenario {}", ids(&self.scenarios_changed)));
            }
            if defs.is_empty() {
                did.push("reloaded, no definition changed".into());
            } else {
                did.push(format!("reloaded: {}", defs.join("; ")));
            }
        }
        if self.rendered > 0 || self.print_errors > 0 {
            let mut s = format!("{} face{} rendered", self.rendered, plural(self.rendered));
            if self.print_errors > 0 {
                s.push_str(&format!(" ({} print error{})", self.print_errors, plural(self.print_errors)));
            }
            did.push(s);
        }
        let replayed = self.golden_passed + self.golden_failed.len();
        if replayed > 0 {
            if self.golden_failed.is_empty() {
                did.push(format!("{replayed} golden game{} passed", plural(replayed)));
            } else {
                did.push(format!(
                    "{} of {replayed} golden game{} FAILED ({})",
                    self.golden_failed.len(),
                    plural(replayed),
                    self.golden_failed.join(", ")
                ));
            }
        }
        if did.is_empty() {
            did.push("checked".into());
        }
        format!("reload {}: {what} -> {} [{ms:.0} ms]", self.pack, did.join("; "))
    }
}

fn ids(list: &[String]) -> String {
    if list.len() <= 4 {
        list.join(", ")
    } else {
        format!("{}, +{} more", list[..3].join(", "), list.len() - 3)
    }
}

/// `content/ttk/cards/a.toml` shown as `cards/a.toml` when it belongs to the pack itself.
fn short(rel: &str, pack: &str) -> String {
    let p = format!("content/{pack}/");
    rel.strip_prefix(&p).map(str::to_string).unwrap_or_else(|| rel.to_string())
}

/// Options of a [`Reloader`].
#[derive(Debug, Clone, Default)]
pub struct ReloadOptions {
    /// Render changed faces into this folder.
    pub print: Option<PathBuf>,
    /// Replay the golden games involving changed definitions.
    pub test: bool,
}

/// The last good load of each watched pack.
pub struct Reloader {
    pub project: Project,
    /// Watched packs by id.
    pub packs: BTreeMap<String, PackState>,
    /// Whether every pack of the project is watched (new packs are picked up).
    all: bool,
    pub opts: ReloadOptions,
    /// One incremental loader per pack: unchanged files are not parsed or compiled again.
    loaders: BTreeMap<String, Loader>,
    /// One set of kept checks per pack: faces an edit cannot change are not rendered again.
    checks: BTreeMap<String, crate::validate::Checks>,
}

/// Load a pack as its files are now, through its incremental loader.
///
/// The diagnostics are those `crown check` gives: after a good load, the printed faces
/// and golden game files are validated too. Their errors are shown and counted, but do
/// not stop the pack being played (they concern printing and recorded games).
fn load_state(
    project: &Project,
    loaders: &mut BTreeMap<String, Loader>,
    checks: &mut BTreeMap<String, crate::validate::Checks>,
    id: &str,
) -> (Option<Arc<Pack>>, Vec<Diagnostic>, SourceMap) {
    let loader = loaders.entry(id.to_string()).or_insert_with(|| Loader::new(project, id, LoadOptions::default()));
    let l = loader.load();
    let (pack, mut diagnostics, mut sources) = (l.pack.map(Arc::new), l.diagnostics, l.sources);
    if let Some(p) = &pack {
        let kept = checks.entry(id.to_string()).or_default();
        diagnostics.extend(crate::validate::beyond_load_with(project, p, &mut sources, kept));
    }
    (pack, diagnostics, sources)
}

impl Reloader {
    /// Load the packs (every pack of the project when `packs` is empty). Packs that do not
    /// load are kept, with their diagnostics, and load on the first good save.
    #[allow(clippy::result_large_err)]
    pub fn new(project: &Project, packs: &[String], opts: ReloadOptions) -> Result<Reloader, Diagnostic> {
        let all = packs.is_empty();
        let mut ids = Vec::new();
        let mut proj = project.clone();
        for name in packs {
            let (p, id) = project.resolve(name)?;
            proj = p;
            ids.push(id);
        }
        if all {
            ids = project.pack_ids();
        }
        let mut r = Reloader {
            project: proj,
            packs: BTreeMap::new(),
            all,
            opts,
            loaders: BTreeMap::new(),
            checks: BTreeMap::new(),
        };
        for id in ids {
            let (pack, diagnostics, sources) = load_state(&r.project, &mut r.loaders, &mut r.checks, &id);
            let st = PackState { id: id.clone(), pack, diagnostics, sources, generation: 0 };
            r.packs.insert(id, st);
        }
        Ok(r)
    }

    /// The watched packs a change to files of pack folder `folder` affects: the pack
    /// itself and every pack extending it.
    fn affected(&self, folder: &str) -> Vec<String> {
        self.packs
            .values()
            .filter(|s| s.id == folder || s.pack.as_ref().is_some_and(|p| p.chain.iter().any(|c| c == folder)))
            .map(|s| s.id.clone())
            .collect()
    }

    /// Apply a batch of changes; one report per pack touched.
    pub fn apply(&mut self, changes: &[Change]) -> Vec<ReloadReport> {
        let mut by_pack: BTreeMap<String, Vec<&Change>> = BTreeMap::new();
        for c in changes {
            let targets: Vec<String> = if c.pack.is_empty() {
                let mut t: BTreeSet<String> = self.packs.keys().cloned().collect();
                if self.all {
                    t.extend(self.project.pack_ids());
                }
                t.into_iter().collect()
            } else {
                self.affected(&c.pack)
            };
            if targets.is_empty()
                && self.all
                && !c.pack.is_empty()
                && self.project.pack_dir(&c.pack).join("pack.toml").is_file()
            {
                // A new pack.
                by_pack.entry(c.pack.clone()).or_default().push(c);
                continue;
            }
            for t in targets {
                by_pack.entry(t).or_default().push(c);
            }
        }
        if self.all {
            // Packs whose folder vanished are dropped.
            let gone: Vec<String> = self
                .packs
                .keys()
                .filter(|id| by_pack.contains_key(*id) && !self.project.pack_dir(id).join("pack.toml").is_file())
                .cloned()
                .collect();
            for id in gone {
                self.packs.remove(&id);
                self.loaders.remove(&id);
                by_pack.remove(&id);
            }
        }
        let mut reports = Vec::new();
        for (id, cs) in by_pack {
            reports.push(self.reload_pack(&id, &cs));
        }
        reports
    }

    fn reload_pack(&mut self, id: &str, changes: &[&Change]) -> ReloadReport {
        let start = Instant::now();
        let mut rep = ReloadReport::new(id);
        let mut seen = BTreeSet::new();
        for c in changes {
            if seen.insert(c.rel.clone()) {
                rep.files.push((c.rel.clone(), c.kind));
            }
        }
        let needs_load = changes.iter().any(|c| c.kind.needs_load());
        let faces_only = changes.iter().any(|c| matches!(c.kind, ChangeKind::Template | ChangeKind::Asset));
        let goldens: Vec<String> =
            changes.iter().filter(|c| c.kind == ChangeKind::Golden).map(|c| c.rel.clone()).collect();
        let state = self.packs.entry(id.to_string()).or_insert_with(|| PackState {
            id: id.to_string(),
            pack: None,
            diagnostics: Vec::new(),
            sources: SourceMap::default(),
            generation: 0,
        });
        let old = state.pack.clone();
        if needs_load || old.is_none() {
            let (pack, diagnostics, sources) = load_state(&self.project, &mut self.loaders, &mut self.checks, id);
            rep.loaded = true;
            rep.errors = if pack.is_some() { 0 } else { diagnostics.iter().filter(|d| d.is_error()).count() };
            state.diagnostics = diagnostics;
            state.sources = sources;
            match pack {
                Some(p) => {
                    if let Some(o) = &old {
                        diff_packs(o, &p, &mut rep);
                    } else {
                        rep.added = p.defs.iter().map(|d| d.def.id.clone()).collect();
                    }
                    state.pack = Some(p);
                    state.generation += 1;
                }
                _ => {
                    if rep.errors == 0 {
                        rep.errors = 1;
                    }
                    rep.elapsed = start.elapsed();
                    return rep;
                }
            }
        }
        let Some(pack) = state.pack.clone() else {
            rep.elapsed = start.elapsed();
            return rep;
        };
        if faces_only {
            // Templates and art: check the templates load; keep their diagnostics.
            match print::geometry(&pack, &PrintOptions::new(PathBuf::new()))
                .map_err(|d| vec![d])
                .and_then(|g| print::Printer::new(&pack, g).map(|(_, w)| w))
            {
                Ok(warnings) => {
                    state.diagnostics.retain(|d| !is_print_diag(d));
                    state.diagnostics.extend(warnings.into_iter().filter(|d| d.is_error()));
                }
                Err(errors) => {
                    rep.errors = errors.iter().filter(|d| d.is_error()).count().max(1);
                    state.diagnostics.retain(|d| !is_print_diag(d));
                    state.diagnostics.extend(errors);
                    rep.elapsed = start.elapsed();
                    return rep;
                }
            }
            state.generation += 1;
        }
        let generation_changed = rep.loaded || faces_only;
        if let (Some(dir), true) = (self.opts.print.clone(), generation_changed) {
            let only: Vec<String> = if faces_only || rep.rules_changed {
                Vec::new()
            } else {
                rep.changed.iter().chain(&rep.added).filter(|i| pack.get(i).is_some()).cloned().collect()
            };
            if faces_only || rep.rules_changed || !only.is_empty() || rep.added.len() == pack.defs.len() {
                (rep.rendered, rep.print_errors) = print_faces(&pack, &dir, only);
            }
        }
        if self.opts.test {
            self.replay_goldens(&pack, &mut rep, &goldens);
        }
        rep.elapsed = start.elapsed();
        rep
    }

    /// Replay the golden games of `pack` that involve what changed.
    fn replay_goldens(&self, pack: &Arc<Pack>, rep: &mut ReloadReport, changed_files: &[String]) {
        let touched: BTreeSet<&str> =
            rep.changed.iter().chain(&rep.added).chain(&rep.removed).map(String::as_str).collect();
        let everything = rep.rules_changed;
        for case in golden::discover(&self.project, &[pack.id().to_string()]) {
            let rel_game = rel_to(&self.project.root, &case.game_file);
            let rel_tr = rel_to(&self.project.root, &case.transcript_file);
            let named = changed_files.iter().any(|f| *f == rel_game || *f == rel_tr);
            let wanted = named || everything || {
                let text = case.read_transcript().ok().flatten().unwrap_or_default();
                text.lines().any(|l| {
                    l.strip_prefix("# scenario ").is_some_and(|s| rep.scenarios_changed.iter().any(|x| x == s.trim()))
                        || golden::definitions_in(l).iter().any(|d| touched.contains(d.as_str()))
                })
            };
            if !wanted {
                continue;
            }
            match golden::check_case(&case, pack, 3) {
                Verdict::Pass => rep.golden_passed += 1,
                Verdict::Differs(change) => {
                    let what = if change.outcome_changed { "the outcome changed" } else { "the path changed" };
                    eprintln!("CHANGED {}: {what}\n{}", case.name, change.report.trim_end());
                    rep.golden_failed.push(case.name.clone());
                }
                Verdict::Broken { report, fix } => {
                    eprintln!("FAIL {}: could not replay: {report}\n  fix: {fix}", case.name);
                    rep.golden_failed.push(case.name.clone());
                }
            }
        }
    }

    /// Print the diagnostics of the latest attempt for a pack (errors first).
    pub fn print_diagnostics(&self, id: &str) {
        if let Some(s) = self.packs.get(id) {
            out::print_diagnostics(&s.diagnostics, &s.sources);
        }
    }
}

/// Render the faces of `only` (every definition when empty) as SVG and PNG into
/// `dir/<pack>`, with the print cache; print errors. Faces rendered, and errors.
pub fn print_faces(pack: &Pack, dir: &Path, only: Vec<String>) -> (usize, usize) {
    let mut o = PrintOptions::new(dir.join(pack.id()));
    o.formats = vec![Format::Svg, Format::Png];
    o.only = only;
    match print::render_pack(pack, &o) {
        Ok(r) => {
            let errors: Vec<Diagnostic> = r.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
            out::print_diagnostics(&errors, &pack.sources);
            (r.svg_rendered.max(r.png_rendered), errors.len())
        }
        Err(d) => {
            out::print_diagnostics(&d, &pack.sources);
            (0, d.iter().filter(|d| d.is_error()).count().max(1))
        }
    }
}

fn is_print_diag(d: &Diagnostic) -> bool {
    d.file.as_ref().is_some_and(|f| f.components().any(|c| c.as_os_str() == "templates"))
        || d.code.starts_with("template")
        || d.code.starts_with("icon")
}

fn rel_to(root: &Path, p: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let p = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    p.strip_prefix(&root).unwrap_or(&p).to_string_lossy().replace('\\', "/")
}

/// What differs between two loads of a pack.
fn diff_packs(old: &Pack, new: &Pack, rep: &mut ReloadReport) {
    let script_hash = |p: &Pack, d: &crown_engine::content::Def| d.script.map(|i| p.scripts[i].hash);
    for d in &new.defs {
        match old.get(&d.def.id) {
            None => rep.added.push(d.def.id.clone()),
            Some(o) => {
                if o.def != d.def || o.kind != d.kind || script_hash(old, o) != script_hash(new, d) {
                    rep.changed.push(d.def.id.clone());
                    let stages = |x: &crown_engine::content::Def| {
                        x.def.stages.iter().map(|s| format!("{:?}", s.position)).collect::<Vec<_>>()
                    };
                    let why = if o.kind != d.kind {
                        Some(format!("{} -> {}", o.kind.as_str(), d.kind.as_str()))
                    } else if stages(o) != stages(d) {
                        Some("stages".to_string())
                    } else if o.def.back.is_some() != d.def.back.is_some() {
                        Some("back face".to_string())
                    } else {
                        None
                    };
                    if let Some(w) = why {
                        rep.incompatible.push(format!("{} ({w})", d.def.id));
                    }
                }
            }
        }
    }
    for d in &old.defs {
        if new.get(&d.def.id).is_none() {
            rep.removed.push(d.def.id.clone());
        }
    }
    rep.rules_changed = old.rules_hash() != new.rules_hash()
        || old.manifest != new.manifest
        || old.board.as_ref().map(|b| format!("{:?}", b.0)) != new.board.as_ref().map(|b| format!("{:?}", b.0));
    for s in &new.scenarios {
        let before = old.scenario(&s.scenario.id).map(|o| format!("{:?}", o.scenario));
        if before.as_deref() != Some(format!("{:?}", s.scenario).as_str()) {
            rep.scenarios_changed.push(s.scenario.id.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_editor_files() {
        for n in [".attack.toml.swp", "attack.toml~", ".#attack.toml", "#attack.toml#", "4913", "a.toml.tmp", ".x"] {
            assert!(ignored(n), "{n}");
        }
        for n in ["attack.toml", "rules.rhai", "a.game.toml"] {
            assert!(!ignored(n), "{n}");
        }
    }

    #[test]
    fn classifies_paths() {
        let root = Path::new("/p");
        let k = |s: &str| classify(root, &root.join(s)).map(|c| (c.pack, c.kind));
        assert_eq!(k("content/a/cards/x.toml"), Some(("a".into(), ChangeKind::Definition)));
        assert_eq!(k("content/a/nobles.toml"), Some(("a".into(), ChangeKind::Definition)));
        assert_eq!(k("content/a/cards/list.csv"), Some(("a".into(), ChangeKind::Definition)));
        assert_eq!(k("content/a/cards/list.xlsx"), Some(("a".into(), ChangeKind::Definition)));
        assert_eq!(k("content/a/plaques.ods"), Some(("a".into(), ChangeKind::Definition)));
        assert_eq!(k("content/a/cards/~$list.xlsx"), None);
        assert_eq!(k("content/a/pack.toml"), Some(("a".into(), ChangeKind::Manifest)));
        assert_eq!(k("content/a/scenarios/s.toml"), Some(("a".into(), ChangeKind::Scenario)));
        assert_eq!(k("content/a/templates/card.svg"), Some(("a".into(), ChangeKind::Template)));
        assert_eq!(k("content/a/art/x.png"), Some(("a".into(), ChangeKind::Asset)));
        assert_eq!(k("content/a/rules.md"), Some(("a".into(), ChangeKind::Rules)));
        assert_eq!(k("scripts/a/cards/x.rhai"), Some(("a".into(), ChangeKind::Script)));
        assert_eq!(k("scripts/a/cards"), Some(("a".into(), ChangeKind::Folder)));
        assert_eq!(k("tests/golden/a/g.game.toml"), Some(("a".into(), ChangeKind::Golden)));
        assert_eq!(k("content/a/cards/.x.toml.swp"), None);
        assert_eq!(k("content/a/cards/x.toml~"), None);
        assert_eq!(k("target/debug/x"), None);
    }
}
