//! `crown check`: load and validate packs, print every diagnostic, exit 1 on errors.

use std::sync::Arc;

use crown_engine::content::{load_pack, LoadOptions, Pack, Project};
use crown_engine::diag::{Diagnostic, Severity, SourceMap};

use crate::cli::{CheckArgs, Format};
use crate::out;

/// What `crown check` validates beyond loading the pack, so that every command that shows
/// diagnostics (`check`, `watch`, `serve`, `play --watch`) shows the same: the printed
/// faces (templates, icons, art, fonts), the rules documents (every placeholder and link
/// of `content/<pack>/rules.md` names something) and the golden game files (pack,
/// scenario, players, agents). Rules documents and game files read are added to `sources`.
pub fn beyond_load(project: &Project, pack: &Arc<Pack>, sources: &mut SourceMap) -> Vec<Diagnostic> {
    let mut all = crate::print::check_faces(pack);
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

pub fn run(project: &Project, args: &CheckArgs) -> i32 {
    let packs: Vec<String> = if args.packs.is_empty() { project.pack_ids() } else { args.packs.clone() };
    if packs.is_empty() {
        eprintln!("error: no packs in {} (create one with `crown new pack NAME`)", project.content_dir().display());
        return 2;
    }
    let mut errors = 0;
    let mut json = Vec::new();
    let mut digests = serde_json::Map::new();
    for name in &packs {
        let (proj, id) = match project.resolve(name) {
            Ok(x) => x,
            Err(d) => {
                eprintln!("{d}");
                return 2;
            }
        };
        let loaded = load_pack(&proj, &id, LoadOptions::default());
        let pack = loaded.pack.map(std::sync::Arc::new);
        // Everything a later command reads: the content as loaded, then its printed faces
        // (templates, icons, art).
        let mut all = loaded.diagnostics;
        let mut sources = loaded.sources;
        if let Some(p) = &pack {
            all.extend(beyond_load(&proj, p, &mut sources));
        }
        let e = all.iter().filter(|d| d.is_error()).count();
        let w = all.len() - e;
        let mut diags = all;
        if args.quiet {
            diags.retain(|d| d.severity == Severity::Error);
        }
        errors += e;
        match args.format {
            Format::Human => {
                out::print_diagnostics(&diags, &sources);
                let summary = match pack.as_ref().filter(|_| e == 0) {
                    Some(p) => format!(
                        "{id}: ok ({} definitions, {} scenarios, {} scripts), {w} warning{}{}",
                        p.defs.len(),
                        p.scenarios.len(),
                        p.scripts.len(),
                        if w == 1 { "" } else { "s" },
                        if args.digest { format!(" {}", crate::live::digest_tag(p)) } else { String::new() }
                    ),
                    None => format!(
                        "{id}: {e} error{}, {w} warning{}",
                        if e == 1 { "" } else { "s" },
                        if w == 1 { "" } else { "s" }
                    ),
                };
                println!("{summary}");
            }
            Format::Json => {
                if let (true, Some(p)) = (args.digest, &pack) {
                    digests.insert(id.clone(), format!("{:016x}", crate::live::pack_digest(p)).into());
                }
                for d in &diags {
                    let mut v = serde_json::to_value(d).unwrap_or_default();
                    if let Some(o) = v.as_object_mut() {
                        o.insert("pack".into(), id.clone().into());
                    }
                    json.push(v);
                }
            }
        }
    }
    if args.format == Format::Json {
        let mut doc = serde_json::json!({ "errors": errors, "diagnostics": json });
        if args.digest {
            doc["digests"] = digests.into();
        }
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    i32::from(errors > 0)
}
