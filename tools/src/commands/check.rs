//! `crown check`: load and validate packs, print every diagnostic, exit 1 on errors.

use crown_engine::diag::plural;
use crown_engine::diag::Severity;
use crown_engine::load::{load_pack, LoadOptions, Project};

use clap::Args;

use crate::cli::OutputFormat;
use crate::out::{self, Done, Failure};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Packs to check, by id or path (default: every pack in the project).
    pub packs: Vec<String>,
    #[command(flatten)]
    pub format: OutputFormat,
    /// Do not print warnings.
    #[arg(long)]
    pub quiet: bool,
    /// End each pack's summary line with `[digest HEX]`, as `crown watch --digest` does.
    #[arg(long)]
    pub digest: bool,
    /// Print what a diagnostic code means (the code in brackets: `error[unknown-attr]`),
    /// what causes it and how to fix it, instead of checking; `all` lists every code.
    #[arg(long, value_name = "CODE", conflicts_with_all = ["packs", "quiet", "digest"])]
    pub explain: Option<String>,
}

pub fn run(project: &Project, args: &CheckArgs) -> Done {
    if let Some(code) = &args.explain {
        return explain(code);
    }
    let packs: Vec<String> = if args.packs.is_empty() { project.pack_ids() } else { args.packs.clone() };
    if packs.is_empty() {
        return Err(Failure::new(
            2,
            format!("no packs in {} (create one with `crown new pack NAME`)", project.content_dir().display()),
        ));
    }
    let mut errors = 0;
    let mut json = Vec::new();
    let mut digests = serde_json::Map::new();
    for name in &packs {
        let (proj, id) = match project.resolve(name) {
            Ok(x) => x,
            Err(d) => {
                eprintln!("{d}");
                return Err(Failure::told(2));
            }
        };
        let loaded = load_pack(&proj, &id, LoadOptions::default());
        let held = loaded.held_back;
        let pack = loaded.pack.map(std::sync::Arc::new);
        // Everything a later command reads: the content as loaded, then its printed faces
        // (templates, icons, art).
        let mut all = loaded.diagnostics;
        let mut sources = loaded.sources;
        let mut notes: Vec<String> = Vec::new();
        if let Some(p) = &pack {
            all.extend(crate::validate::beyond_load(&proj, p, &mut sources));
            // Whole games, when the first turns went well: a game that needs more turns
            // than `max_turns` ends at the limit in every simulation.
            if !all.iter().any(|d| d.is_error()) {
                let games = crate::validate::whole_games(p);
                if games.left_out > 0 {
                    notes.push(format!(
                        "note: {}'s trial games stopped at the {} s budget: {} whole game{} played, {} left out",
                        id,
                        crate::validate::WHOLE_GAMES_BUDGET.as_secs(),
                        games.played,
                        plural(games.played),
                        games.left_out
                    ));
                }
                let found = games.diagnostics;
                // A warning the game then proves (an option misspelt where it runs) is
                // said once, as the error at the same place.
                all.retain(|w| {
                    w.is_error() || !found.iter().any(|e| e.is_error() && e.file == w.file && e.line == w.line)
                });
                all.extend(found);
            }
        }
        let e = all.iter().filter(|d| d.is_error()).count();
        let w = all.len() - e;
        let mut diags = all;
        if args.quiet {
            diags.retain(|d| d.severity == Severity::Error);
        }
        errors += e;
        if args.format.is_json() {
            if let (true, Some(p)) = (args.digest, &pack) {
                digests.insert(id.clone(), format!("{:016x}", crate::validate::pack_digest(p)).into());
            }
            for d in &diags {
                let mut v = serde_json::to_value(d).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("pack".into(), id.clone().into());
                }
                json.push(v);
            }
        } else {
            out::print_diagnostics(&diags, &sources);
            example_note(&diags, &sources);
            for n in &notes {
                println!("{n}");
            }
            // The digest of what loaded, also when checks beyond loading found errors.
            let digest = match (&pack, args.digest) {
                (Some(p), true) => format!(" {}", crate::validate::digest_tag(p)),
                _ => String::new(),
            };
            let summary = match pack.as_ref().filter(|_| e == 0) {
                Some(p) => format!(
                    "{id}: ok ({} definition{}, {} scenario{}, {} script{}), {w} warning{}{digest}",
                    p.defs.len(),
                    plural(p.defs.len()),
                    p.scenarios.len(),
                    plural(p.scenarios.len()),
                    p.scripts.len(),
                    plural(p.scripts.len()),
                    plural(w),
                ),
                None => {
                    // What waits for the errors: findings that may follow from them, and
                    // the checks that need a pack that loads.
                    let mut waiting = Vec::new();
                    if held > 0 {
                        waiting.push(format!("{held} finding{} that may follow from them", plural(held)));
                    }
                    if pack.is_none() {
                        waiting.push("the printed faces, golden games and scenarios".to_string());
                    }
                    let waiting = if waiting.is_empty() {
                        String::new()
                    } else {
                        format!(" ({} are checked once they are fixed)", waiting.join(", and "))
                    };
                    format!("{id}: {e} error{}, {w} warning{}{waiting}{digest}", plural(e), plural(w))
                }
            };
            println!("{summary}");
        }
    }
    if args.format.is_json() {
        let mut doc = serde_json::json!({ "errors": errors, "diagnostics": json });
        if args.digest {
            doc["digests"] = digests.into();
        }
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    out::fail_if(errors > 0)
}

/// `crown check --explain CODE`: the code's page from the catalogue (docs/diagnostics.md),
/// or every code with its summary for `all`.
fn explain(code: &str) -> Done {
    use crown_engine::diag::codes;
    if code == "all" {
        for e in codes::catalogue() {
            println!("{:<28} {:<17} {}", e.code, e.severity, e.summary);
        }
        return Ok(());
    }
    let code = code.trim().trim_start_matches("error[").trim_start_matches("warning[").trim_end_matches(']');
    match codes::find(code) {
        Some(e) => {
            println!("{}", e.page);
            Ok(())
        }
        None => {
            let near = codes::nearest(code).map(|n| format!(": did you mean `{n}`?")).unwrap_or_default();
            Err(Failure::usage(format!("no diagnostic code `{code}`{near} (`crown check --explain all` lists them)")))
        }
    }
}

/// Which findings are in files that still carry the mark of the example `crown new`
/// wrote: once its cards are replaced, its rules document and scripts name what is gone.
fn example_note(diags: &[crown_engine::diag::Diagnostic], sources: &crown_engine::diag::SourceMap) {
    let mut files = std::collections::BTreeSet::new();
    let mut n = 0;
    for d in diags {
        let Some(f) = &d.file else { continue };
        if sources.get(f).is_some_and(|s| s.text.contains(crate::validate::EXAMPLE_MARK)) {
            files.insert(f.display().to_string());
            n += 1;
        }
    }
    if n > 0 {
        let list: Vec<String> = files.into_iter().collect();
        let (these, files) = match (n, list.len()) {
            (1, _) => ("1 of these findings is".to_string(), "a file"),
            (_, 1) => (format!("{n} of these findings are"), "a file"),
            _ => (format!("{n} of these findings are"), "files"),
        };
        println!(
            "note: {these} in {files} written by `crown new` as an example and still marked so ({}): make {} yours (and drop the line that says `crown new`), or delete {}",
            list.join(", "),
            if list.len() == 1 { "it" } else { "them" },
            if list.len() == 1 { "it" } else { "them" },
        );
    }
}
