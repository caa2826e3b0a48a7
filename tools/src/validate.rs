//! Validation beyond loading a pack, shared by every command that shows diagnostics
//! (`check`, `watch`, `serve`, `play --watch`): the printed faces, the rules documents
//! and the golden game files; and the pack digest that `check --digest` and `watch
//! --digest` print, so two runs can tell whether they saw the same pack.

use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::diag::{Diagnostic, SourceMap};
use crown_engine::load::Project;

/// What `crown check` validates beyond loading the pack, so that every command that shows
/// diagnostics (`check`, `watch`, `serve`, `play --watch`) shows the same: the printed
/// faces (templates, icons, art, fonts), the rules documents (every placeholder and link
/// of `content/<pack>/rules.md` names something) and the golden game files (pack,
/// scenario, players, agents). Rules documents and game files read are added to `sources`.
pub fn beyond_load(project: &Project, pack: &Arc<Pack>, sources: &mut SourceMap) -> Vec<Diagnostic> {
    beyond_load_with(project, pack, sources, &mut Checks::default())
}

/// What the checks beyond loading found last time, for checking a pack again after an
/// edit (`crown watch`, `serve`, `play --watch`): the faces an edit cannot change are not
/// rendered again.
#[derive(Debug, Default)]
pub struct Checks {
    pub faces: crate::print::FaceChecks,
}

/// [`beyond_load`], keeping what it can in `checks` for the next time.
pub fn beyond_load_with(
    project: &Project,
    pack: &Arc<Pack>,
    sources: &mut SourceMap,
    checks: &mut Checks,
) -> Vec<Diagnostic> {
    let mut all = crate::print::check_faces_with(pack, &mut checks.faces);
    let (rules, docs) = crate::print::reference::check_rules(pack);
    all.extend(rules);
    for f in docs {
        sources.insert(f);
    }
    let (games, files) = crate::golden::check_games(project, pack);
    all.extend(games);
    for f in files {
        sources.insert(f);
    }
    all
}

/// A stable digest of everything a load of a pack produced: the manifest, every definition
/// (kind, all its fields, where it was defined, its script), the scenarios, the board, each
/// script's path, functions and source hash, and the hash of every file read. Two loads give
/// the same digest exactly when they hold the same content, whatever the machine (maps are
/// ordered, nothing depends on time or addresses); the watcher's incremental reloads are
/// compared with a clean load through it.
pub fn pack_digest(pack: &Pack) -> u64 {
    use std::fmt::Write as _;
    // Struct fields in declaration order, maps in key order.
    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap_or_else(|e| format!("<{e}>"))
    }
    let mut s = String::new();
    let _ = writeln!(s, "manifest {}", json(&pack.manifest));
    let _ = writeln!(s, "chain {:?}", pack.chain);
    for d in &pack.defs {
        let script = d.script.map(|i| (&pack.scripts[i].rel, pack.scripts[i].hash));
        let _ = writeln!(
            s,
            "def {} {} {} {:?} {:?} {:?} {:?} {}",
            d.def.id,
            d.kind.as_str(),
            d.origin.file.to_string_lossy().replace('\\', "/"),
            d.origin.span,
            d.origin.id_span,
            d.origin.pack,
            script,
            json(&d.def)
        );
    }
    let _ = writeln!(s, "index {:?}", pack.index);
    for e in &pack.scenarios {
        let _ = writeln!(
            s,
            "scenario {} {} {:?} {}",
            e.scenario.id,
            e.origin.file.to_string_lossy().replace('\\', "/"),
            e.origin.span,
            json(&e.scenario)
        );
    }
    if let Some((b, o)) = &pack.board {
        let _ = writeln!(s, "board {} {}", o.file.to_string_lossy().replace('\\', "/"), json(b));
    }
    for sc in &pack.scripts {
        let _ = writeln!(
            s,
            "script {} {} {} {:016x} {:?}",
            sc.path.to_string_lossy().replace('\\', "/"),
            sc.rel,
            sc.pack,
            sc.hash,
            sc.functions
        );
    }
    let _ = writeln!(s, "rules {:?}", pack.rules);
    let _ = writeln!(s, "bots {:?}", pack.bots);
    for (f, h) in &pack.file_hashes {
        let _ = writeln!(s, "file {} {h:016x}", f.to_string_lossy().replace('\\', "/"));
    }
    crown_engine::content::hash_bytes(s.as_bytes())
}

/// `[digest HEX]`, as `crown watch --digest` and `crown check --digest` print it.
pub fn digest_tag(pack: &Pack) -> String {
    format!("[digest {:016x}]", pack_digest(pack))
}
