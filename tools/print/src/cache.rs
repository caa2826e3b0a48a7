//! The output cache: `<out>/.crown-print-cache.json` maps each SVG, PNG and deck sheet
//! written to the hash of what produced it (definition, templates, icons, geometry, DPI;
//! for a deck sheet, its faces' hashes). A re-print
//! renders only the faces whose hash changed or whose file is gone. Faces that had any
//! diagnostic are never recorded, so their problems are reported again next time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

const FILE: &str = ".crown-print-cache.json";
const VERSION: u32 = 1;

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Cache {
    version: u32,
    entries: BTreeMap<String, String>,
    /// The SVG, PNG and deck-sheet files found in the output folder when the cache was
    /// loaded.
    #[serde(skip)]
    present: BTreeSet<String>,
}

impl Cache {
    /// The cache of an output folder (empty when missing, unreadable or of another version).
    pub fn load(out: &Path) -> Cache {
        let mut cache = crown_engine::fsread::read_text_checked(&out.join(FILE), crown_engine::fsread::Kind::Index)
            .ok()
            .and_then(|t| serde_json::from_str::<Cache>(&t).ok())
            .filter(|c| c.version == VERSION)
            .unwrap_or(Cache { version: VERSION, entries: BTreeMap::new(), present: BTreeSet::new() });
        // One listing per folder instead of one look-up per file.
        for dir in ["svg", "png", "tts"] {
            if let Ok(rd) = std::fs::read_dir(out.join(dir)) {
                for e in rd.flatten() {
                    if e.file_type().is_ok_and(|t| t.is_file()) {
                        cache.present.insert(format!("{dir}/{}", e.file_name().to_string_lossy()));
                    }
                }
            }
        }
        cache
    }

    /// Whether `rel` (`svg/...` or `png/...`) existed when the cache was loaded and was
    /// made from `key`.
    pub fn fresh(&self, rel: &str, key: u64) -> bool {
        self.present.contains(rel) && self.entries.get(rel).is_some_and(|k| *k == format!("{key:016x}"))
    }

    /// Whether an earlier print recorded `rel`.
    pub fn knows(&self, rel: &str) -> bool {
        self.entries.contains_key(rel)
    }

    pub fn set(&mut self, rel: &str, key: u64) {
        self.entries.insert(rel.to_string(), format!("{key:016x}"));
    }

    pub fn remove(&mut self, rel: &str) {
        self.entries.remove(rel);
    }

    pub fn save(&self, out: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).unwrap_or_default();
        crate::files::write_atomic_in(out, &out.join(FILE), text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let dir = std::env::temp_dir().join(format!("crown-cache-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("svg")).unwrap();
        std::fs::write(dir.join("svg/a.svg"), "x").unwrap();
        let mut c = Cache::load(&dir);
        assert!(!c.fresh("svg/a.svg", 7));
        c.set("svg/a.svg", 7);
        c.set("svg/gone.svg", 7);
        c.save(&dir).unwrap();
        let c = Cache::load(&dir);
        assert!(c.fresh("svg/a.svg", 7));
        assert!(!c.fresh("svg/a.svg", 8));
        assert!(!c.fresh("svg/gone.svg", 7));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
