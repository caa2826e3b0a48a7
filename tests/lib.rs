//! Shared helpers for the integration tests.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crown_engine::content::{load_pack as load, LoadOptions, Pack, Project};

/// The repository itself, a Crown project shipping the packs.
pub fn repo_project() -> Project {
    Project::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// Load a pack or describe its errors.
pub fn load_pack(project: &Project, id: &str) -> Result<Arc<Pack>, String> {
    let l = load(project, id, LoadOptions::default());
    match l.pack {
        Some(p) => Ok(Arc::new(p)),
        None => {
            Err(l.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))
        }
    }
}

/// Run the `crown` command in-process: exit code, and nothing captured (output goes to the
/// test's output). Use [`crown_bin`] to capture output.
pub fn crown(args: &[&str]) -> i32 {
    crown_tools::run(std::iter::once("crown").chain(args.iter().copied()))
}

/// The built `crown` binary, for tests that capture its output.
pub fn crown_bin() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| here.join("../target"));
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    target.join(profile).join("crown")
}

/// Copy a folder recursively.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let p = e.path();
        let t = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&p, &t)?;
        } else {
            std::fs::copy(&p, &t)?;
        }
    }
    Ok(())
}
