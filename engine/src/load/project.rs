//! A project: the folder holding `content/<pack>/`, `scripts/<pack>/` and
//! `tests/golden/<pack>/`, and how a pack is named in it (by id or by path).

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;

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
