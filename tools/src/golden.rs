//! Golden games: `crown record`, `crown test` (replay, diff, bless, explain) and the
//! library functions the cargo test suite shares with them.
//!
//! A golden game is `tests/golden/<pack>/<name>.game.toml` (pack, scenario, seed, seats,
//! recorded choices) beside `<name>.transcript`, the transcript it must produce.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::content::{Pack, Project};
use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, GameConfig, Status};

use crate::{out, session};

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The pack, by id or path.
    pub pack: String,
    /// The game's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of players.
    #[arg(long)]
    pub players: Option<usize>,
    /// Scenario id.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Agent per seat (random, first, greedy), comma-separated; the last repeats.
    #[arg(long, value_delimiter = ',')]
    pub agents: Vec<String>,
    /// The game file to write (`NAME.game.toml`); the transcript goes beside it.
    #[arg(long)]
    pub out: PathBuf,
    /// What the game is meant to show.
    #[arg(long, default_value = "")]
    pub description: String,
    /// Replace an existing game file.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Packs (by id) or game files to replay (default: every golden game of the project).
    pub targets: Vec<String>,
    /// Accept the new transcripts of failing games (atomically); passing games are untouched.
    #[arg(long)]
    pub bless: bool,
    /// List the golden games whose transcripts involve this definition id, and stop.
    #[arg(long)]
    pub explain: Option<String>,
    /// Lines of context around the first difference.
    #[arg(long, default_value_t = 4)]
    pub context: usize,
}

/// One golden game on disk.
#[derive(Debug, Clone)]
pub struct Case {
    pub pack: String,
    pub game_file: PathBuf,
    pub transcript_file: PathBuf,
    /// `pack/name`.
    pub name: String,
}

/// The transcript path beside a game file.
pub fn transcript_path(game_file: &Path) -> PathBuf {
    let s = game_file.to_string_lossy();
    let base = s.strip_suffix(".game.toml").or_else(|| s.strip_suffix(".toml")).unwrap_or(&s);
    PathBuf::from(format!("{base}.transcript"))
}

/// Golden games of the given packs (all packs when empty), sorted by path.
pub fn discover(project: &Project, packs: &[String]) -> Vec<Case> {
    let packs: Vec<String> = if packs.is_empty() { project.pack_ids() } else { packs.to_vec() };
    let mut out = Vec::new();
    for p in packs {
        let dir = project.golden_dir(&p);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> =
            rd.flatten().map(|e| e.path()).filter(|f| f.to_string_lossy().ends_with(".game.toml")).collect();
        files.sort();
        for f in files {
            let stem = f.file_name().and_then(|n| n.to_str()).unwrap_or("").trim_end_matches(".game.toml").to_string();
            out.push(Case {
                pack: p.clone(),
                transcript_file: transcript_path(&f),
                name: format!("{p}/{stem}"),
                game_file: f,
            });
        }
    }
    out
}

/// What replaying one golden game gave.
#[derive(Debug, Clone)]
pub enum Verdict {
    Pass,
    /// The transcript differs; `report` says where and how; `new` is the new transcript.
    Differs {
        report: String,
        new: String,
        involved: Vec<String>,
    },
    /// The game no longer replays (a recorded choice is not offered); bless refuses.
    Broken {
        report: String,
    },
}

/// Replay a case against its pack and compare.
pub fn check_case(case: &Case, pack: &Arc<Pack>, context: usize) -> Verdict {
    let text = match std::fs::read_to_string(&case.game_file) {
        Ok(t) => t,
        Err(e) => return Verdict::Broken { report: format!("{}: cannot read: {e}", case.game_file.display()) },
    };
    let file = match GameFile::parse(&text) {
        Ok(f) => f,
        Err(e) => {
            let msg = e.message().lines().next().unwrap_or("").to_string();
            let pos = e.span().map(|s| {
                let src = crown_engine::SourceFile::new(case.game_file.clone(), text.as_str());
                let (l, c) = src.line_col(s.start);
                format!(":{l}:{c}")
            });
            return Verdict::Broken {
                report: format!(
                    "{}{}: not a valid game file: {msg}",
                    case.game_file.display(),
                    pos.unwrap_or_default()
                ),
            };
        }
    };
    if file.pack != pack.id() {
        return Verdict::Broken {
            report: format!("{}: recorded for pack `{}`, not `{}`", case.game_file.display(), file.pack, pack.id()),
        };
    }
    let (_, outcome, new) = match file.replay(pack.clone()) {
        Ok(x) => x,
        Err(e) => {
            return Verdict::Broken { report: format!("{}: cannot start the game: {e}", case.game_file.display()) }
        }
    };
    let old = std::fs::read_to_string(&case.transcript_file).unwrap_or_default();
    if let Status::Failed(f) = &outcome.status {
        if f.message.contains("recorded choice") || f.message.contains("recording has no more choices") {
            // Show where the game first went another way, and through which definitions:
            // the choice that is no longer offered is only the consequence.
            let mut report = f.message.clone();
            if !old.is_empty() {
                report.push('\n');
                report.push_str(&diff_report(&old, &new, context, Some(pack)).0);
            }
            return Verdict::Broken { report: report.trim_end().to_string() };
        }
    }
    if old == new {
        return Verdict::Pass;
    }
    let (report, involved) = diff_report(&old, &new, context, Some(pack));
    Verdict::Differs { report, new, involved }
}

/// The first diverging line with context, a unified diff, and the definitions named by
/// the changed lines.
///
/// With a pack, only ids of its definitions are named.
pub fn diff_report(old: &str, new: &str, context: usize, pack: Option<&Pack>) -> (String, Vec<String>) {
    let known = |id: &String| pack.is_none_or(|p| p.get(id).is_some());
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let first =
        old_lines.iter().zip(&new_lines).position(|(a, b)| a != b).unwrap_or(old_lines.len().min(new_lines.len()));
    let mut r = String::new();
    if old.is_empty() {
        r.push_str("  no expected transcript yet (new game): run `crown test --bless` to accept it\n");
    } else {
        let turn = new_lines[..first.min(new_lines.len())]
            .iter()
            .rev()
            .find(|l| l.starts_with("-- turn "))
            .map(|l| l.trim_start_matches("-- ").to_string());
        r.push_str(&format!(
            "  first difference at line {}{}:\n",
            first + 1,
            turn.map(|t| format!(" ({t})")).unwrap_or_default()
        ));
        let lo = first.saturating_sub(context);
        for (i, l) in old_lines.iter().enumerate().take(first).skip(lo) {
            r.push_str(&format!("    {:>5}   {l}\n", i + 1));
        }
        if let Some(l) = old_lines.get(first) {
            r.push_str(&format!("    {:>5} - {l}\n", first + 1));
        }
        if let Some(l) = new_lines.get(first) {
            r.push_str(&format!("    {:>5} + {l}\n", first + 1));
        }
        r.push_str("  diff (expected -, now +):\n");
        let diff = similar::TextDiff::from_lines(old, new);
        let unified = diff.unified_diff().context_radius(context).header("expected", "now").to_string();
        for (shown, l) in unified.lines().enumerate() {
            if shown >= 60 {
                r.push_str("    ... (diff cut at 60 lines)\n");
                break;
            }
            r.push_str(&format!("    {l}\n"));
        }
    }
    // The event that set the change off usually sits just before the first changed line
    // (the card being played); the changed lines name what it touched.
    let mut before = BTreeSet::new();
    for l in &old_lines[first.saturating_sub(context.max(1))..first.min(old_lines.len())] {
        before.extend(definitions_in(l).into_iter().filter(known));
    }
    let mut changed = BTreeSet::new();
    let diff = similar::TextDiff::from_lines(old, new);
    for change in diff.iter_all_changes() {
        if change.tag() != similar::ChangeTag::Equal {
            changed.extend(definitions_in(change.value()).into_iter().filter(known));
        }
    }
    if !before.is_empty() {
        let ids: Vec<&str> = before.iter().map(String::as_str).collect();
        r.push_str(&format!("  definitions just before the first change: {}\n", ids.join(", ")));
    }
    let rest: Vec<&str> = changed.iter().filter(|d| !before.contains(*d)).map(String::as_str).collect();
    if !rest.is_empty() {
        r.push_str(&format!("  definitions in the changed events: {}\n", rest.join(", ")));
    }
    before.extend(changed);
    (r, before.into_iter().collect())
}

/// Definition ids a transcript line names: `id#instance` card references and `P is id`.
pub fn definitions_in(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in line.split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '[' | ']' | ':' | ';')) {
        if let Some((id, n)) = word.split_once('#') {
            if !id.is_empty()
                && !n.is_empty()
                && n.chars().all(|c| c.is_ascii_digit())
                && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            {
                out.push(id.to_string());
            }
        }
    }
    if let Some((_, rest)) = line.split_once(" is ") {
        let id = rest.trim();
        if !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_') {
            out.push(id.to_string());
        }
    }
    out
}

pub fn run_record(project: &Project, args: &RecordArgs) -> i32 {
    let pack = match session::load(project, &args.pack) {
        Ok(p) => p,
        Err(c) => return c,
    };
    if args.out.exists() && !args.force {
        eprintln!("error: {} exists; pass --force to replace it", args.out.display());
        return 1;
    }
    let scenario = args.scenario.as_deref();
    let players = session::player_count(&pack, scenario, args.players);
    let kinds = match session::agent_kinds(&pack, scenario, players, &args.agents, "random") {
        Ok(k) if !k.iter().any(|x| x == "human") => k,
        Ok(_) => {
            eprintln!("error: `crown record` records bot games; use `crown play --record` to record your own");
            return 2;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut cfg = GameConfig::new(args.seed, players);
    cfg.scenario = args.scenario.clone();
    let game = match Game::new(pack.clone(), cfg, session::bots(&kinds, args.seed)) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let (game, outcome) = game.run();
    if let Status::Failed(f) = &outcome.status {
        eprintln!("error: the game failed: {f}");
        return 1;
    }
    let file = GameFile::from_game(&game, kinds, args.description.clone());
    // The transcript is what replaying the file gives (not the live game's), so the
    // golden is exactly what `crown test` will compare against.
    let replayed = match file.replay(pack.clone()) {
        Ok((_, _, t)) => t,
        Err(e) => {
            eprintln!("error: the recorded game does not replay: {e}");
            return 1;
        }
    };
    let live = transcript_text(&game, &outcome);
    if live != replayed {
        let (report, _) = diff_report(&live, &replayed, 3, Some(&pack));
        eprintln!(
            "error: the game does not replay to the same transcript (is the rules script deterministic?)\n{report}"
        );
        return 1;
    }
    let tpath = transcript_path(&args.out);
    if let Err(e) = out::write_atomic(&args.out, file.to_toml().as_bytes())
        .and_then(|_| out::write_atomic(&tpath, replayed.as_bytes()))
    {
        eprintln!("error: cannot write: {e}");
        return 1;
    }
    println!(
        "recorded {} ({} choices, {} turns, {}) and {}",
        args.out.display(),
        file.choices.len(),
        outcome.turns,
        replayed.lines().last().unwrap_or("").trim_start_matches("# result "),
        tpath.display()
    );
    0
}

/// Load each pack once.
fn packs_for(project: &Project, cases: &[Case]) -> BTreeMap<String, Result<Arc<Pack>, i32>> {
    let mut packs = BTreeMap::new();
    for c in cases {
        if !packs.contains_key(&c.pack) {
            packs.insert(c.pack.clone(), session::load(project, &c.pack));
        }
    }
    packs
}

pub fn run_test(project: &Project, args: &TestArgs) -> i32 {
    let mut pack_names = Vec::new();
    let mut files = Vec::new();
    for t in &args.targets {
        if t.ends_with(".toml") {
            files.push(PathBuf::from(t));
        } else {
            pack_names.push(t.clone());
        }
    }
    let mut cases =
        if pack_names.is_empty() && !files.is_empty() { Vec::new() } else { discover(project, &pack_names) };
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        // A file that does not parse is taken to belong to its folder's pack (golden games
        // sit in tests/golden/<pack>/); replaying it then reports the parse error.
        let folder = || f.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string());
        let pack = GameFile::parse(&text).map(|g| g.pack).ok().or_else(folder).unwrap_or_default();
        let stem = f.file_name().and_then(|n| n.to_str()).unwrap_or("").trim_end_matches(".game.toml").to_string();
        cases.push(Case { name: format!("{pack}/{stem}"), pack, transcript_file: transcript_path(&f), game_file: f });
    }
    if let Some(id) = &args.explain {
        return explain(&cases, id);
    }
    if cases.is_empty() {
        eprintln!("no golden games found under {}", project.root.join("tests/golden").display());
        println!("0 passed, 0 failed");
        return 0;
    }
    let start = Instant::now();
    let packs = packs_for(project, &cases);
    let (mut passed, mut failed, mut blessed, mut refused) = (0, 0, 0, 0);
    for case in &cases {
        let pack = match packs.get(&case.pack) {
            Some(Ok(p)) => p,
            _ => {
                println!("FAIL {}: pack `{}` does not load", case.name, case.pack);
                failed += 1;
                continue;
            }
        };
        match check_case(case, pack, args.context) {
            Verdict::Pass => {
                passed += 1;
                println!("ok   {}", case.name);
            }
            Verdict::Differs { report, new, .. } => {
                if args.bless {
                    match out::write_atomic(&case.transcript_file, new.as_bytes()) {
                        Ok(()) => {
                            blessed += 1;
                            println!("BLESSED {}", case.name);
                        }
                        Err(e) => {
                            failed += 1;
                            println!("FAIL {}: cannot write {}: {e}", case.name, case.transcript_file.display());
                        }
                    }
                } else {
                    failed += 1;
                    println!("FAIL {}: the transcript changed\n{report}", case.name);
                }
            }
            Verdict::Broken { report } => {
                failed += 1;
                if args.bless {
                    refused += 1;
                    println!("FAIL {}: cannot bless, the game no longer replays: {report}\n  re-record it with `crown record` (or `crown play --record`)", case.name);
                } else {
                    println!("FAIL {}: the game no longer replays: {report}", case.name);
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if args.bless {
        println!("{blessed} blessed, {refused} refused");
    }
    println!("{} games in {:.2} s ({:.1} games/s)", cases.len(), secs, cases.len() as f64 / secs.max(1e-9));
    println!("{} passed, {} failed", passed + blessed, failed);
    i32::from(failed > 0)
}

fn explain(cases: &[Case], id: &str) -> i32 {
    let mut hits = 0;
    for c in cases {
        let t = std::fs::read_to_string(&c.transcript_file).unwrap_or_default();
        let n = t.lines().filter(|l| definitions_in(l).iter().any(|d| d == id)).count();
        if n > 0 {
            hits += 1;
            println!("{:<48} {n} event{}", c.name, if n == 1 { "" } else { "s" });
        }
    }
    println!("{hits} of {} golden games involve `{id}`", cases.len());
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_definitions_in_lines() {
        assert_eq!(definitions_in("move trebuchet#17 hand@P1 -> discard"), vec!["trebuchet"]);
        assert_eq!(definitions_in("P2 is maria"), vec!["maria"]);
        assert!(definitions_in("choice 3 P1: Pick -> Play #1").is_empty());
    }

    #[test]
    fn diff_names_first_line_and_definitions() {
        let (r, ids) = diff_report("a\n-- turn 1\nmove x#1 d -> h\n", "a\n-- turn 1\nmove y#1 d -> h\n", 2, None);
        assert!(r.contains("first difference at line 3 (turn 1)"), "{r}");
        assert_eq!(ids, vec!["x", "y"]);
    }

    #[test]
    fn diff_names_the_card_played_just_before_the_change() {
        let old = "-- turn 1\nmove dawn-raid#14 hand@P4 -> play\nP4 attacks P2's Land 1 with Dawn Raid for 3\n";
        let new = "-- turn 1\nmove dawn-raid#14 hand@P4 -> play\nP4 attacks P2's Land 1 with Dawn Raid for 4\n";
        let (r, ids) = diff_report(old, new, 3, None);
        assert!(r.contains("definitions just before the first change: dawn-raid"), "{r}");
        assert_eq!(ids, vec!["dawn-raid"]);
    }

    #[test]
    fn transcript_path_is_beside() {
        assert_eq!(transcript_path(Path::new("t/g/a.game.toml")), PathBuf::from("t/g/a.transcript"));
    }
}
