//! The content loader: the input is one definition file of a small pack (which file is
//! chosen by the first byte), written to disk and loaded with every check and the
//! scripts compiled. Loading must return diagnostics or a pack, and rendering the
//! diagnostics must not panic either.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use crown_engine::load::{load_pack, LoadOptions, Project};
use libfuzzer_sys::fuzz_target;

/// Where the input goes: the first byte picks one.
const SLOTS: &[&str] = &[
    "content/tiny/pack.toml",
    "content/tiny/cards/cards.toml",
    "content/tiny/cards/extra.toml",
    "content/tiny/scenarios/standard.toml",
    "content/tiny/board.toml",
    "content/tiny/nobles.toml",
    "content/tiny/leaders.toml",
    "content/tiny/plaques.toml",
];

/// A private copy of the corpus's tiny pack, made once per process.
fn project() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/invalid/_base/tiny");
        let dir = std::env::temp_dir().join(format!("crown-fuzz-load-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy(&base, &dir);
        dir
    })
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let root = project();
    let slot = root.join(SLOTS[which as usize % SLOTS.len()]);
    let old = std::fs::read(&slot).ok();
    std::fs::write(&slot, bytes).unwrap();
    let l = load_pack(&Project::new(root), "tiny", LoadOptions::default());
    assert_eq!(l.pack.is_some(), !l.diagnostics.iter().any(|d| d.is_error()));
    let _ = crown_engine::diag::render(&l.diagnostics, &l.sources, false);
    // Put the file back (or remove it) so the next input starts from the same pack.
    match old {
        Some(b) => std::fs::write(&slot, b).unwrap(),
        None => std::fs::remove_file(&slot).unwrap(),
    }
});
