//! Content: the data a pack is made of, as the loader ([`crate::load`]) leaves it: the
//! serde types of its files ([`model`]), the loaded [`Pack`] with every definition, scenario
//! and compiled script and where each came from, and what a script refers to by name
//! ([`refs`]). Data types only: nothing here reads files or runs scripts.

pub mod model;
pub mod refs;
pub mod schema;
pub mod set;
pub mod vocabulary;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::diag::{Diagnostic, SourceMap};
use model::{BoardFile, Definition, PackManifest, Scenario};

/// Which file kind a definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DefKind {
    Card,
    Plaque,
    Noble,
    Leader,
}

impl DefKind {
    pub const ALL: [DefKind; 4] = [DefKind::Card, DefKind::Plaque, DefKind::Noble, DefKind::Leader];

    pub fn as_str(self) -> &'static str {
        match self {
            DefKind::Card => "card",
            DefKind::Plaque => "plaque",
            DefKind::Noble => "noble",
            DefKind::Leader => "leader",
        }
    }

    /// The key of the array of tables in the definition file (`[[card]]`).
    pub fn table_key(self) -> &'static str {
        self.as_str()
    }

    pub fn is_character(self) -> bool {
        matches!(self, DefKind::Noble | DefKind::Leader)
    }
}

/// Where something was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// Path shown to the user (relative to the project root).
    pub file: PathBuf,
    /// Byte span of the definition's table in that file.
    pub span: Range<usize>,
    /// Byte span of its `id` value.
    pub id_span: Range<usize>,
    /// The pack whose files hold it.
    pub pack: String,
    /// Which of the definitions a `[[product]]` makes this one is, counting from 1, in the
    /// product's order; 0 for one written out (its place in the file orders it).
    pub nth: u32,
}

/// A loaded definition.
#[derive(Debug, Clone)]
pub struct Def {
    pub kind: DefKind,
    pub def: Definition,
    pub origin: Origin,
    /// Index into [`Pack::scripts`] of its compiled script.
    pub script: Option<usize>,
}

/// A loaded scenario.
#[derive(Debug, Clone)]
pub struct ScenarioEntry {
    pub scenario: Scenario,
    pub origin: Origin,
}

/// A compiled script.
#[derive(Debug, Clone)]
pub struct Script {
    /// Path shown to the user (relative to the project root).
    pub path: PathBuf,
    /// Path relative to the pack's scripts folder (`cards/gold.rhai`).
    pub rel: String,
    pub pack: String,
    /// The script as compiled, with the rules script's functions merged in underneath
    /// (so card scripts may call the rules' helpers).
    pub ast: Arc<rhai::AST>,
    /// Functions the script itself defines.
    pub functions: BTreeSet<String>,
    /// What the script itself refers to by name (collected from its own syntax tree when
    /// it is compiled, so a finding names the file that holds it; used by the checks that
    /// need the whole pack).
    pub references: Arc<refs::References>,
    /// Content hash of the text, for caches.
    pub hash: u64,
}

/// A fully loaded, validated pack, with its extended packs folded in.
#[derive(Debug, Clone)]
pub struct Pack {
    pub manifest: PackManifest,
    pub project: PathBuf,
    /// The pack and the packs it extends, outermost first.
    pub chain: Vec<String>,
    pub defs: Vec<Def>,
    pub index: BTreeMap<String, usize>,
    pub scenarios: Vec<ScenarioEntry>,
    pub board: Option<(BoardFile, Origin)>,
    pub scripts: Vec<Script>,
    pub rules: Option<usize>,
    /// Indices into `scripts` of the rules script's further files, when `rules` lists
    /// several (the script at `rules` carries all their functions).
    pub rule_parts: Vec<usize>,
    /// Index into `scripts` of the bots' script (`bots.rhai`), when the pack has one.
    pub bots: Option<usize>,
    /// What the rules' `prepare(id)` worked out for each definition when the pack was
    /// loaded (read by scripts with `prepared(id, key)`); empty without that hook.
    pub prepared: BTreeMap<String, rhai::Dynamic>,
    pub sources: SourceMap,
    /// Content hash of every file loaded, by shown path.
    pub file_hashes: BTreeMap<PathBuf, u64>,
    /// For each icon of `manifest.icons`, the pack whose folder its file is relative to
    /// (an expansion inherits the icons of the packs it extends).
    pub icon_packs: BTreeMap<String, String>,
    /// Each definition's id, kind and name as script text, and more (see [`Words`]),
    /// made when first asked.
    pub words: std::sync::OnceLock<Words>,
}

/// What scripts ask of definitions most, made once per pack: each definition's id, kind
/// and name as script text (host functions hand out a shared copy instead of making the
/// text again), its number by id (found by hashing, not by comparing ids), and the
/// definitions each deck lists, in pack order.
#[derive(Debug, Clone, Default)]
pub struct Words {
    pub by_id: std::collections::HashMap<String, u32, ahash::RandomState>,
    pub id: Vec<rhai::ImmutableString>,
    pub kind: Vec<rhai::ImmutableString>,
    pub name: Vec<rhai::ImmutableString>,
    pub decks: BTreeMap<String, Vec<u32>>,
    /// Each definition's effects as scripts read them.
    pub effects: Vec<DefEffects>,
}

/// A definition's effects as scripts read them ([`vocabulary::entries_value`]: arrays of
/// maps, the fields its kind declares filled in): its own, each of its stages' (in the
/// order of `stages`) and its back's.
#[derive(Debug, Clone, Default)]
pub struct DefEffects {
    pub own: rhai::Dynamic,
    pub stages: Vec<rhai::Dynamic>,
    pub back: rhai::Dynamic,
}

impl Words {
    fn of(defs: &[Def], manifest: &PackManifest) -> Words {
        let mut w = Words::default();
        for d in defs {
            let fields = manifest.vocabulary.get(d.kind.as_str()).and_then(|v| v.effects.as_ref());
            let of = |list: &[model::Entry]| vocabulary::entries_value(list, fields);
            let def = &d.def;
            w.effects.push(DefEffects {
                own: of(&def.effects),
                stages: def.stages.iter().map(|s| of(&s.effects)).collect(),
                back: of(def.back.as_ref().map_or(&[][..], |b| &b.effects)),
            });
        }
        for (i, d) in defs.iter().enumerate() {
            w.by_id.insert(d.def.id.clone(), i as u32);
            w.id.push(d.def.id.as_str().into());
            w.kind.push(d.def.kind.as_str().into());
            w.name.push(d.def.name.as_str().into());
            for deck in &d.def.decks {
                let list = w.decks.entry(deck.clone()).or_default();
                if list.last() != Some(&(i as u32)) {
                    list.push(i as u32);
                }
            }
        }
        w
    }
}

impl Pack {
    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    /// See [`Words`].
    pub fn words(&self) -> &Words {
        self.words.get_or_init(|| Words::of(&self.defs, &self.manifest))
    }

    pub fn get(&self, id: &str) -> Option<&Def> {
        self.index.get(id).map(|&i| &self.defs[i])
    }

    pub fn defs_of(&self, kind: DefKind) -> impl Iterator<Item = &Def> {
        self.defs.iter().filter(move |d| d.kind == kind)
    }

    pub fn scenario(&self, id: &str) -> Option<&ScenarioEntry> {
        self.scenarios.iter().find(|s| s.scenario.id == id)
    }

    /// The scenario used when none is named: the one marked `default`, else none.
    pub fn default_scenario(&self) -> Option<&ScenarioEntry> {
        self.scenarios.iter().find(|s| s.scenario.default)
    }

    /// The rules script: its first file, whose syntax tree holds the functions of every
    /// file of the rules (what games run).
    pub fn rules_script(&self) -> Option<&Script> {
        self.rules.map(|i| &self.scripts[i])
    }

    /// Every file of the rules script, the first first (one, unless `rules` lists several).
    pub fn rule_files(&self) -> impl Iterator<Item = &Script> {
        self.rules.into_iter().chain(self.rule_parts.iter().copied()).map(|i| &self.scripts[i])
    }

    /// Whether the rules (any of their files) define function `name`.
    pub fn rules_define(&self, name: &str) -> bool {
        self.rule_files().any(|s| s.functions.contains(name))
    }

    /// The rules' invariants: functions named `invariant_...` that take no parameters,
    /// by name (see `script::api::invariants`).
    pub fn invariants(&self) -> Vec<String> {
        let Some(rules) = self.rules_script() else { return Vec::new() };
        let mut names: Vec<String> = rules
            .ast
            .iter_functions()
            .filter(|f| f.name.starts_with("invariant_") && f.params.is_empty())
            .map(|f| f.name.to_string())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The content hash of the rules, all their files together (`None` without rules).
    pub fn rules_hash(&self) -> Option<u64> {
        self.rules?;
        let bytes: Vec<u8> = self.rule_files().flat_map(|s| s.hash.to_le_bytes()).collect();
        Some(hash_bytes(&bytes))
    }

    /// The bots' script, when the pack has one.
    pub fn bots_script(&self) -> Option<&Script> {
        self.bots.map(|i| &self.scripts[i])
    }

    /// The script whose function `name` a bot calls (`greedy_score`, `evaluate`): the
    /// bots' script when it defines it, else the rules script when that does.
    pub fn bot_hook(&self, name: &str) -> Option<&Script> {
        match self.bots_script().filter(|s| s.functions.contains(name)) {
            Some(b) => Some(b),
            None => self.rules_script().filter(|_| self.rules_define(name)),
        }
    }

    /// The card size in millimetres (default poker, 63x88).
    pub fn card_size_mm(&self) -> Option<(f64, f64)> {
        match &self.manifest.card_size {
            None => Some((63.0, 88.0)),
            Some(s) => card_size_mm(s),
        }
    }
}

/// Millimetres of a card size, `None` for an unknown name.
pub fn card_size_mm(size: &model::CardSize) -> Option<(f64, f64)> {
    match size {
        model::CardSize::Named(n) => named_card_size(n),
        model::CardSize::Mm { width_mm, height_mm } => Some((*width_mm, *height_mm)),
    }
}

/// The standard card sizes, by name, in millimetres: poker as printed in Europe (63x88)
/// and in the US (2.5x3.5 in, the size print-on-demand shops cut), bridge (2.25x3.5 in),
/// tarot, mini (American mini, 1.75x2.5 in) and square.
pub const CARD_SIZES: &[(&str, (f64, f64))] = &[
    ("poker", (63.0, 88.0)),
    ("us-poker", (63.5, 88.9)),
    ("bridge", (56.0, 88.0)),
    ("tarot", (70.0, 120.0)),
    ("mini", (44.0, 63.0)),
    ("square", (70.0, 70.0)),
];

/// A standard card size by name.
pub fn named_card_size(name: &str) -> Option<(f64, f64)> {
    CARD_SIZES.iter().find(|(n, _)| *n == name).map(|(_, wh)| *wh)
}

/// The standard sizes as a hint lists them: `poker (63x88), us-poker (63.5x88.9), ...`.
pub fn card_size_names() -> String {
    let mm = |x: f64| format!("{x}");
    CARD_SIZES.iter().map(|(n, (w, h))| format!("{n} ({}x{})", mm(*w), mm(*h))).collect::<Vec<_>>().join(", ")
}

/// The result of loading: the pack if it had no errors, and every diagnostic found.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub pack: Option<Pack>,
    pub diagnostics: Vec<Diagnostic>,
    pub sources: SourceMap,
    /// Diagnostics held back because they may only follow from an error shown (told in
    /// that error's hint, counted in summaries).
    pub held_back: usize,
}

impl Loaded {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// A stable 64-bit content hash (FNV-1a), used for caches, change detection and save
/// checksums: the same on every machine and every run, unlike std's `DefaultHasher`.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    Fnv::default().write(bytes).finish()
}

/// The running FNV-1a state behind [`hash_bytes`], fed in pieces.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) -> &mut Self {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        self
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard sizes, in millimetres: poker 2.5x3.5 in (63x88 as printed), bridge
    /// 2.25x3.5 in, tarot 70x120, mini 44x63 (American mini, 1.75x2.5 in), square 70x70.
    #[test]
    fn named_card_sizes_are_the_standard_ones() {
        let want = [
            ("poker", (63.0, 88.0)),
            ("us-poker", (63.5, 88.9)),
            ("bridge", (56.0, 88.0)),
            ("tarot", (70.0, 120.0)),
            ("mini", (44.0, 63.0)),
            ("square", (70.0, 70.0)),
        ];
        for (name, size) in want {
            assert_eq!(named_card_size(name), Some(size), "{name}");
        }
        assert_eq!(named_card_size("huge"), None);
        assert_eq!(card_size_names().split(", ").count(), CARD_SIZES.len());
        assert!(card_size_names().starts_with("poker (63x88), us-poker (63.5x88.9), "));
    }

    /// FNV-1a's published test vectors: a change to the constants changes every cache key
    /// and save checksum.
    #[test]
    fn the_content_hash_is_fnv1a() {
        assert_eq!(hash_bytes(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash_bytes(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash_bytes(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(Fnv::default().write(b"foo").write(b"bar").finish(), hash_bytes(b"foobar"));
    }
}
