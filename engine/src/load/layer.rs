//! The steps of loading one layer (one pack, over the packs it extends): parse its files,
//! gather what they hold, fold in the extended pack, then apply this pack's removals,
//! definitions, scenarios and rules script.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

use rayon::prelude::*;

use super::checks::rel_path_ok;
use super::files::{parse_file, parse_file_cached};
use super::{CachedFile, FileKind, FileOut, Layer, PackLoad, ParsedManifest, Ref, ScriptRef};
use crate::content::model::{BoardFile, Definition, PackManifest, RuleFiles};
use crate::content::{Def, DefKind, Origin, ScenarioEntry};
use crate::diag::{Diagnostic, SourceFile};

/// What one pack's own files hold, gathered from every file.
pub(super) struct OwnFiles {
    pub(super) manifest: Option<ParsedManifest>,
    pub(super) defs: Vec<(DefKind, Definition, Origin, Option<ScriptRef>)>,
    pub(super) scenarios: Vec<ScenarioEntry>,
    pub(super) board: Option<(BoardFile, Origin)>,
    pub(super) refs: Vec<Ref>,
    pub(super) file_hashes: BTreeMap<PathBuf, u64>,
}

/// Where the manifest is: its source (when kept) and the spans of its keys.
pub(super) struct ManifestAt<'a> {
    pub(super) file: Option<&'a SourceFile>,
    pub(super) spans: &'a BTreeMap<String, Range<usize>>,
}

impl ManifestAt<'_> {
    /// The span of a manifest key (0..0 when absent).
    fn span(&self, key: &str) -> Range<usize> {
        self.spans.get(key).cloned().unwrap_or(0..0)
    }
}

impl PackLoad<'_> {
    /// Parse every listed file (in parallel, through the cache when there is one), noting
    /// in the cache what was parsed afresh; each file's output, with whether it was
    /// taken unchanged from the cache.
    pub(super) fn parse_files(&mut self, id: &str, files: &[(PathBuf, FileKind)]) -> Vec<(FileOut, bool)> {
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
        outs
    }

    /// Keep each file's source and diagnostics, and gather what the files define.
    pub(super) fn gather_files(&mut self, outs: Vec<(FileOut, bool)>) -> OwnFiles {
        let mut own = OwnFiles {
            manifest: None,
            defs: Vec::new(),
            scenarios: Vec::new(),
            board: None,
            refs: Vec::new(),
            file_hashes: BTreeMap::new(),
        };
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
                own.manifest = out.manifest;
            }
            own.defs.extend(out.defs);
            own.scenarios.extend(out.scenarios);
            if let Some(b) = out.board {
                own.board = Some(b);
            }
            own.refs.extend(out.refs);
        }
        own.file_hashes = hash_list.into_iter().collect();
        own
    }

    /// A pack's `id` must be its folder's name.
    pub(super) fn check_pack_id(&mut self, id: &str, manifest: &PackManifest, at: &ManifestAt<'_>) {
        if manifest.id != id {
            if let Some(f) = at.file {
                self.diags.push(
                    Diagnostic::error(
                        "pack-id-mismatch",
                        format!("pack id `{}` differs from its folder name `{id}`", manifest.id),
                    )
                    .at(f, at.span("id"))
                    .hint(format!("set `id = \"{id}\"` or rename the folder")),
                );
            }
        }
    }

    /// Load the pack this one extends (with its own bases), or report a `remove` that has
    /// nothing to remove from.
    pub(super) fn load_base(&mut self, manifest: &PackManifest, at: &ManifestAt<'_>) -> Option<Layer> {
        if let Some(parent) = manifest.extends.clone() {
            let named = at.file.map(|f| (f, at.span("extends")));
            // When the parent fails, its errors are reported; the caller keeps going to report ours.
            return self.load_layer(&parent, named);
        }
        if !manifest.remove.is_empty() {
            if let Some(f) = at.file {
                self.diags.push(
                    Diagnostic::error(
                        "remove-without-extends",
                        "`remove` lists definitions, but this pack extends no pack",
                    )
                    .at(f, at.span("remove"))
                    .hint("add `extends = \"base-pack\"` or delete `remove`"),
                );
            }
        }
        None
    }

    /// Drop the extended packs' definitions that `remove` names.
    pub(super) fn apply_removals(
        &mut self,
        defs: &mut Vec<(Def, Option<ScriptRef>)>,
        remove: &[String],
        at: &ManifestAt<'_>,
    ) {
        for (i, rid) in remove.iter().enumerate() {
            match defs.iter().position(|(d, _)| d.def.id == *rid) {
                Some(pos) => {
                    defs.remove(pos);
                }
                None => {
                    if let Some(f) = at.file {
                        self.diags.push(
                            Diagnostic::error(
                                "remove-of-nothing",
                                format!("`remove` names `{rid}`, which the extended packs do not define"),
                            )
                            .at(f, at.span(&format!("remove.{i}"))),
                        );
                    }
                }
            }
        }
    }

    /// Add this pack's definitions: duplicates within the pack and ids differing only in
    /// case are errors; one with an extended pack's id replaces it with `override = true`.
    pub(super) fn add_own_defs(
        &mut self,
        defs: &mut Vec<(Def, Option<ScriptRef>)>,
        own_defs: Vec<(DefKind, Definition, Origin, Option<ScriptRef>)>,
        extends: bool,
    ) {
        let base_count = defs.len();
        let base_ids: BTreeMap<String, usize> =
            defs.iter().enumerate().map(|(i, (d, _))| (d.def.id.clone(), i)).collect();
        let mut own_seen: BTreeMap<String, Origin> = BTreeMap::new();
        let mut lower_seen: BTreeMap<String, (String, Origin)> = BTreeMap::new();
        for (kind, def, origin, sref) in own_defs {
            if let Some(first) = own_seen.get(&def.id) {
                self.duplicate_def(&def.id, &origin, first);
                continue;
            }
            let lower = def.id.to_lowercase();
            if let Some((other, o)) = lower_seen.get(&lower) {
                if *other != def.id {
                    self.id_case_clash(&def.id, &origin, other, o);
                }
            }
            lower_seen.insert(lower, (def.id.clone(), origin.clone()));
            own_seen.insert(def.id.clone(), origin.clone());
            let entry = (Def { kind, def, origin, script: None }, sref);
            match base_ids.get(&entry.0.def.id) {
                Some(&bi) if bi < base_count => {
                    if entry.0.def.replaces {
                        defs[bi] = entry;
                    } else {
                        self.redefinition(&entry.0, &defs[bi].0);
                    }
                }
                _ => {
                    if entry.0.def.replaces {
                        self.override_of_nothing(&entry.0, extends);
                    }
                    defs.push(entry);
                }
            }
        }
    }

    /// `duplicate-id`: a definition id given twice within the pack.
    fn duplicate_def(&mut self, id: &str, origin: &Origin, first: &Origin) {
        let f = self.sources.get(&origin.file).cloned();
        let ff = self.sources.get(&first.file).cloned();
        if let (Some(f), Some(ff)) = (f, ff) {
            self.diags.push(
                Diagnostic::error("duplicate-id", format!("`{id}` is defined twice"))
                    .at(&f, origin.id_span.clone())
                    .label("second definition")
                    .related(&ff, first.id_span.clone(), "first defined here")
                    .hint("ids must be unique across the pack; rename one of them"),
            );
        }
    }

    /// `id-case-clash`: two ids of the pack that differ only in case.
    fn id_case_clash(&mut self, id: &str, origin: &Origin, other: &str, o: &Origin) {
        if let (Some(f), Some(of)) = (self.sources.get(&origin.file).cloned(), self.sources.get(&o.file).cloned()) {
            self.diags.push(
                Diagnostic::error("id-case-clash", format!("`{id}` and `{other}` differ only in case"))
                    .at(&f, origin.id_span.clone())
                    .related(&of, o.id_span.clone(), "the other one")
                    .hint("ids are compared exactly; pick names that differ in more than case"),
            );
        }
    }

    /// `redefinition`: an extended pack's id defined again without `override = true`.
    fn redefinition(&mut self, def: &Def, base: &Def) {
        if let (Some(f), Some(bf)) =
            (self.sources.get(&def.origin.file).cloned(), self.sources.get(&base.origin.file).cloned())
        {
            self.diags.push(
                Diagnostic::error(
                    "redefinition",
                    format!("`{}` is already defined by pack `{}`", def.def.id, base.origin.pack),
                )
                .at(&f, def.origin.id_span.clone())
                .related(&bf, base.origin.id_span.clone(), "defined here")
                .hint("add `override = true` to replace it, or choose another id"),
            );
        }
    }

    /// `override-of-nothing`: `override = true` on an id no extended pack defines.
    fn override_of_nothing(&mut self, def: &Def, extends: bool) {
        if let Some(f) = self.sources.get(&def.origin.file).cloned() {
            self.diags.push(
                Diagnostic::error(
                    "override-of-nothing",
                    format!("`{}` has `override = true` but no extended pack defines it", def.def.id),
                )
                .at(&f, def.origin.id_span.clone())
                .hint(if extends {
                    "remove `override = true`, or fix the id"
                } else {
                    "this pack extends nothing; remove `override = true`"
                }),
            );
        }
    }

    /// Add this pack's scenarios: unique ids within the pack; an expansion's scenario may
    /// replace a base one of the same id.
    pub(super) fn add_own_scenarios(&mut self, all: &mut Vec<ScenarioEntry>, scenarios: Vec<ScenarioEntry>) {
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
            all.retain(|s: &ScenarioEntry| s.scenario.id != sc.scenario.id);
            all.push(sc);
        }
    }

    /// The rules script: this pack's own, else the one inherited. Its further files (when
    /// `rules` lists several) ride along in `more`.
    pub(super) fn rules_script(
        &mut self,
        id: &str,
        manifest: &PackManifest,
        morigin: &Origin,
        at: &ManifestAt<'_>,
        inherited: Option<ScriptRef>,
    ) -> Option<ScriptRef> {
        let files: Vec<&str> = manifest.rules.as_ref().map_or_else(|| vec!["rules.rhai"], |r| r.files());
        let several = files.len() > 1 || matches!(manifest.rules, Some(RuleFiles::Several(_)));
        let span = |i: usize| if several { at.span(&format!("rules.{i}")) } else { at.span("rules") };
        let own_rules = self.project.scripts_dir(id).join(files[0]);
        // A refused path (reported when the manifest was parsed) is never read.
        if !files.iter().all(|f| rel_path_ok(f)) {
            return None;
        }
        if !(own_rules.is_file() || manifest.rules.is_some() || inherited.is_none()) {
            return inherited;
        }
        let mut more: Vec<(String, Range<usize>)> = Vec::new();
        for (i, f) in files.iter().enumerate().skip(1) {
            if files[..i].contains(f) {
                if let Some(src) = at.file {
                    self.diags.push(
                        Diagnostic::error("bad-rules", format!("`{f}` is listed twice in `rules`"))
                            .at(src, span(i))
                            .hint("list each rules file once"),
                    );
                }
                continue;
            }
            more.push((f.to_string(), span(i)));
        }
        Some(ScriptRef {
            pack: id.to_string(),
            rel: files[0].to_string(),
            file: morigin.file.clone(),
            span: span(0),
            hooks: Vec::new(),
            more,
        })
    }

    /// The bots' script: this pack's own (named, or `bots.rhai` when there is one), else
    /// the one inherited, else none.
    pub(super) fn bots_script(
        &self,
        id: &str,
        manifest: &PackManifest,
        morigin: &Origin,
        at: &ManifestAt<'_>,
        inherited: Option<ScriptRef>,
    ) -> Option<ScriptRef> {
        let rel = manifest.bots.clone().unwrap_or_else(|| "bots.rhai".to_string());
        if !rel_path_ok(&rel) {
            None
        } else if manifest.bots.is_some() || self.project.scripts_dir(id).join(&rel).is_file() {
            Some(ScriptRef {
                pack: id.to_string(),
                rel,
                file: morigin.file.clone(),
                span: at.span("bots"),
                hooks: Vec::new(),
                more: Vec::new(),
            })
        } else {
            inherited
        }
    }
}

/// This pack's layer over its base: the manifest with the base's folded in, the base's
/// definitions, scenarios, references, rules script and file hashes with this pack's
/// files' hashes added, and this pack's board unless it has none.
pub(super) fn over_base(
    id: &str,
    mut manifest: PackManifest,
    manifest_origin: Origin,
    board: Option<(BoardFile, Origin)>,
    file_hashes: BTreeMap<PathBuf, u64>,
    base: Option<Layer>,
) -> Layer {
    let own_icons: Vec<String> = manifest.icons.keys().cloned().collect();
    let mut chain = vec![id.to_string()];
    let mut board = board;
    let (mut defs, mut scenarios, mut refs, mut rules, mut bots) = (Vec::new(), Vec::new(), Vec::new(), None, None);
    let mut hashes = BTreeMap::new();
    let mut icon_packs: BTreeMap<String, String> = BTreeMap::new();
    if let Some(b) = base {
        fold_manifest(&mut manifest, b.manifest);
        icon_packs = b.icon_packs;
        chain.extend(b.chain);
        defs = b.defs;
        scenarios = b.scenarios;
        refs = b.refs;
        rules = b.rules;
        bots = b.bots;
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
    Layer {
        manifest,
        manifest_origin,
        chain,
        defs,
        scenarios,
        board,
        refs,
        rules,
        bots,
        file_hashes: hashes,
        icon_packs,
    }
}

/// Fold the extended pack's manifest into this pack's: what it allows, its search bot
/// defaults, settings, vocabulary and printed look, each overridden or added to by this
/// pack's own.
fn fold_manifest(manifest: &mut PackManifest, base: PackManifest) {
    // What the extended packs accept, this one accepts too (their scripts run here).
    let mut manifest_allow = base.check.allow.clone();
    for (code, names) in std::mem::take(&mut manifest.check.allow) {
        manifest_allow.entry(code).or_default().extend(names);
    }
    manifest.check.allow = manifest_allow;
    // The search bot's defaults, unless this pack sets its own.
    if manifest.search.is_none() {
        manifest.search = base.search;
    }
    if manifest.sim.is_none() {
        manifest.sim = base.sim.clone();
    }
    // The names of the rounds and the phases of a round, unless this pack lists its own.
    if manifest.round_names.is_empty() {
        manifest.round_names = base.round_names.clone();
    }
    if manifest.phases.is_empty() {
        manifest.phases = base.phases.clone();
    }
    // Who sees each zone: the base pack's declarations, with this pack's over them.
    let mut zones = base.zones.clone();
    zones.append(&mut manifest.zones);
    manifest.zones = zones;
    // The rules' settings: the base pack's, with this pack's over them.
    let mut options = base.options.clone();
    options.append(&mut manifest.options);
    manifest.options = options;
    // And its vocabulary, with this pack's additions.
    let mut vocabulary = base.vocabulary.clone();
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
        union(&mut into.terrains, v.terrains, |a, b| a.extend(b));
        union(&mut into.effects, v.effects, crate::content::vocabulary::extend_fields);
    }
    manifest.vocabulary = vocabulary;
    // And its printed look: colours, icons (whose files stay in the folder of the pack
    // that names them), card size and print settings, each overridden or added to by
    // this pack's own.
    let mut colors = base.colors.clone();
    colors.extend(std::mem::take(&mut manifest.colors));
    manifest.colors = colors;
    let mut icons = base.icons.clone();
    icons.extend(std::mem::take(&mut manifest.icons));
    manifest.icons = icons;
    if manifest.card_size.is_none() {
        manifest.card_size = base.card_size.clone();
    }
    let mut hide = base.print.hide_values.clone();
    for v in std::mem::take(&mut manifest.print.hide_values) {
        if !hide.contains(&v) {
            hide.push(v);
        }
    }
    manifest.print.hide_values = hide;
    if manifest.print.shop.is_none() {
        manifest.print.shop = base.print.shop;
    }
    if manifest.print.tile_square_mm.is_none() {
        manifest.print.tile_square_mm = base.print.tile_square_mm;
    }
}
