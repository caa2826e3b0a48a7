//! What several commands share: loading a pack for play (printing diagnostics when it
//! does not load, and counting what `crown check` would report when it does), and
//! building agents from `--agents`.

use crown_engine::diag::plural;
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::load::{load_pack, LoadOptions, Project};

use crate::out::{self, Failure};

/// Load a pack named by id or path; on errors print them and fail with the exit code.
pub fn load(project: &Project, name: &str) -> Result<Arc<Pack>, Failure> {
    load_scoped(project, name, None)
}

/// [`load`] for a command that plays one table, `scenario` (`None`: the pack's default):
/// only that table's first turns are tried, and when they fail with random bots (a
/// script that throws or runs away in `setup`), every game would fail the same way, so
/// the command stops there with that one error instead of playing each game into it.
pub fn load_table(project: &Project, name: &str, scenario: Option<&str>) -> Result<Arc<Pack>, Failure> {
    load_scoped(project, name, Some(scenario))
}

fn load_scoped(project: &Project, name: &str, table: Option<Option<&str>>) -> Result<Arc<Pack>, Failure> {
    let (proj, id) = project.resolve(name).map_err(|d| {
        eprintln!("{d}");
        Failure::told(2)
    })?;
    let loaded = load_pack(&proj, &id, LoadOptions::default());
    let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    if !errors.is_empty() {
        out::print_diagnostics(&errors, &loaded.sources);
        eprintln!("{id}: {} error{}; fix them first (`crown check {id}`)", errors.len(), plural(errors.len()));
        return Err(Failure::told(1));
    }
    let pack = loaded.pack.map(Arc::new).ok_or(Failure::told(1))?;
    // The same validation as `crown check` (for one table, what bears on its games);
    // what does not stop this command is counted.
    let mut sources = loaded.sources;
    let mut all = loaded.diagnostics;
    all.extend(match table {
        None => crate::validate::beyond_load(&proj, &pack, &mut sources),
        Some(scenario) => crate::validate::beyond_load_for(&pack, scenario),
    });
    if table.is_some() {
        let fails: Vec<_> = all.iter().filter(|d| d.code == "scenario-fails").cloned().collect();
        if !fails.is_empty() {
            out::print_diagnostics(&fails, &sources);
            eprintln!("{id}: every game of this table would fail the same way; nothing was played");
            return Err(Failure::told(1));
        }
    }
    let (e, w) = (all.iter().filter(|d| d.is_error()).count(), all.iter().filter(|d| !d.is_error()).count());
    if e + w > 0 {
        let mut parts = Vec::new();
        if e > 0 {
            parts.push(match table {
                None => format!("{e} error{} in printed faces, golden games or scenario starts", plural(e)),
                Some(_) => format!("{e} error{} in this table's first turns", plural(e)),
            });
        }
        if w > 0 {
            parts.push(format!("{w} warning{}", plural(w)));
        }
        let them = if e + w == 1 { "it" } else { "them" };
        eprintln!("{id}: {} (`crown check {id}` shows {them})", parts.join(" and "));
    }
    Ok(pack)
}

/// What a bots-only command (`crown sim`, `crown profile`) plays: the pack, the player count
/// and the bot of each seat (default `random`). Diagnostics are printed; a usage error is returned.
pub fn bot_table(
    project: &Project,
    pack: &str,
    args: &crate::cli::TableArgs,
    command: &str,
) -> Result<(Arc<Pack>, usize, Vec<String>), Failure> {
    let scenario = args.setup.scenario.as_deref();
    let pack = load_table(project, pack, scenario)?;
    let players = crate::seats::player_count(&pack, scenario, args.setup.players);
    // Without --agents, the pack's `[sim] agents`, else random bots.
    let default = crate::seats::default_bot(&pack);
    let kinds = crate::seats::agent_kinds(&pack, scenario, players, &args.agents, &default).map_err(Failure::usage)?;
    if kinds.iter().any(|k| k == "human") {
        return Err(Failure::usage(format!("`crown {command}` plays bots only; use `crown play` to play yourself")));
    }
    Ok((pack, players, kinds))
}

/// Load a pack to print it (`crown print`, `crown reference`): errors are printed, and the
/// failure carries the exit code.
pub fn load_printable(project: &Project, name: &str) -> Result<Pack, Failure> {
    let (proj, id) = match project.resolve(name) {
        Ok(x) => x,
        Err(d) => {
            out::print_diagnostics(&[d], &crown_engine::diag::SourceMap::default());
            return Err(Failure::told(2));
        }
    };
    let loaded = crate::print::load_for_print(&proj, &id);
    match loaded.pack {
        Some(p) => Ok(p),
        None => {
            out::print_diagnostics(&loaded.diagnostics, &loaded.sources);
            eprintln!("{id}: {} error(s); fix them (see `crown check {id}`) before printing", loaded.errors());
            Err(Failure::told(1))
        }
    }
}
