//! Content: finding packs in a project, loading their TOML and scripts, and validating
//! everything in one pass so that every mistake is reported at once.
//!
//! A *project* is a folder holding `content/<pack>/`, `scripts/<pack>/` and
//! `tests/golden/<pack>/`. This module is the only part of the engine that touches the
//! file system.

pub mod load;
pub mod model;
pub mod schema;
pub mod set;
pub mod table;
pub mod vocabulary;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::{Diagnostic, SourceMap};
pub use load::{load_pack, LoadOptions, LoadStats, Loader};
use model::{BoardFile, Definition, PackManifest, Scenario};

/// A folder holding `content/`, `scripts/` and `tests/golden/`.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
}

impl Project {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Project { root: root.into() }
    }

    pub fn content_dir(&self) -> PathBuf {
        self.root.join("content")
    }

    pub fn pack_dir(&self, id: &str) -> PathBuf {
        self.root.join("content").join(id)
    }

    pub fn scripts_dir(&self, id: &str) -> PathBuf {
        self.root.join("scripts").join(id)
    }

    pub fn golden_dir(&self, id: &str) -> PathBuf {
        self.root.join("tests").join("golden").join(id)
    }

    /// Ids of every pack in the project (folders of `content/` holding a `pack.toml`), sorted.
    pub fn pack_ids(&self) -> Vec<String> {
        let mut ids = Vec::new();
        if let Ok(rd) = std::fs::read_dir(self.content_dir()) {
            for e in rd.flatten() {
                if e.path().join("pack.toml").is_file() {
                    if let Some(n) = e.file_name().to_str() {
                        ids.push(n.to_string());
                    }
                }
            }
        }
        ids.sort();
        ids
    }

    /// Resolve a pack named by id or by path (to its folder or its `pack.toml`).
    /// Returns the project the pack lives in and the pack id.
    #[allow(clippy::result_large_err)]
    pub fn resolve(&self, name: &str) -> Result<(Project, String), Diagnostic> {
        // An id is one plain folder name; anything else is a path (an absolute path joined
        // to the content folder would replace it and pass for an id).
        let plain =
            matches!(Path::new(name).components().collect::<Vec<_>>().as_slice(), [std::path::Component::Normal(_)]);
        if plain && self.pack_dir(name).join("pack.toml").is_file() {
            return Ok((self.clone(), name.to_string()));
        }
        let mut p = PathBuf::from(name);
        if p.file_name().is_some_and(|f| f == "pack.toml") {
            p.pop();
        }
        if p.join("pack.toml").is_file() {
            let abs = p.canonicalize().unwrap_or(p.clone());
            let id = abs.file_name().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            let root = abs.parent().and_then(Path::parent).map(Path::to_path_buf);
            if let (false, Some(root)) = (id.is_empty(), root) {
                return Ok((Project::new(root), id));
            }
        }
        let known = self.pack_ids();
        let hint = crate::diag::did_you_mean(name, known.iter().map(String::as_str))
            .map(|s| format!("did you mean `{s}`?"))
            .unwrap_or_else(|| {
                if known.is_empty() {
                    format!("no packs in {}; create one with `crown new pack NAME`", self.content_dir().display())
                } else {
                    format!("packs in this project: {}", known.join(", "))
                }
            });
        Err(Diagnostic::error("unknown-pack", format!("no pack named `{name}`")).hint(hint))
    }
}

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
    pub references: Arc<crate::script::lint::References>,
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
    pub sources: SourceMap,
    /// Content hash of every file loaded, by shown path.
    pub file_hashes: BTreeMap<PathBuf, u64>,
    /// For each icon of `manifest.icons`, the pack whose folder its file is relative to
    /// (an expansion inherits the icons of the packs it extends).
    pub icon_packs: BTreeMap<String, String>,
}

impl Pack {
    pub fn id(&self) -> &str {
        &self.manifest.id
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

    pub fn rules_script(&self) -> Option<&Script> {
        self.rules.map(|i| &self.scripts[i])
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

/// The standard card sizes, by name.
pub fn named_card_size(name: &str) -> Option<(f64, f64)> {
    Some(match name {
        "poker" => (63.0, 88.0),
        "bridge" => (56.0, 88.0),
        "tarot" => (70.0, 120.0),
        "mini" => (44.0, 63.0),
        "square" => (70.0, 70.0),
        _ => return None,
    })
}

/// The result of loading: the pack if it had no errors, and every diagnostic found.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub pack: Option<Pack>,
    pub diagnostics: Vec<Diagnostic>,
    pub sources: SourceMap,
}

impl Loaded {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// A stable 64-bit content hash (FNV-1a), used for caches and change detection.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_is_named_by_id_or_by_any_path_to_it() {
        let root = std::env::temp_dir().join(format!("crown-resolve-{}", std::process::id()));
        let pack = root.join("content").join("p");
        std::fs::create_dir_all(&pack).unwrap();
        std::fs::write(pack.join("pack.toml"), "").unwrap();
        let project = Project::new(&root);
        let file = pack.join("pack.toml");
        for name in ["p", pack.to_str().unwrap(), file.to_str().unwrap()] {
            let (found, id) = project.resolve(name).unwrap();
            assert_eq!(id, "p", "{name}");
            assert!(found.pack_dir(&id).join("pack.toml").is_file(), "{name}");
        }
        assert!(project.resolve("q").is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
