//! Golden games, as a service under `crown record`, `crown test`, `crown check`, `crown
//! watch` and the cargo test suite: finding the cases, recording a game, replaying one
//! and reporting the difference outcome first, and accepting (blessing) a change.
//!
//! A golden game is `tests/golden/<pack>/<name>.game.toml` (pack, scenario, seed, seats,
//! recorded choices) beside `<name>.transcript`, the transcript it must produce.

use crown_engine::fsread;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::load::Project;

use crate::out;

pub mod accepted;

/// One golden game on disk.
#[derive(Debug, Clone)]
pub struct Case {
    pub pack: String,
    pub game_file: PathBuf,
    pub transcript_file: PathBuf,
    /// `pack/name`.
    pub name: String,
    /// The folder the game's files are read from and written to, never out of: the
    /// project (or, for a game file named on the command line outside it, the file's own
    /// folder). A golden file that is a link leading out of it is refused, so a
    /// downloaded project can neither show a file from elsewhere in a diff nor have
    /// `--bless` overwrite it.
    pub root: PathBuf,
}

impl Case {
    /// The game file's text, read inside [`Case::root`].
    pub fn read_game_file(&self) -> Result<String, fsread::ReadError> {
        fsread::read_checked_in(&self.root, &self.game_file, fsread::Kind::GameFile)
            .and_then(|b| fsread::into_text(&self.game_file, b))
    }

    /// The transcript's text, read inside [`Case::root`]: `Ok(None)` when there is none yet.
    pub fn read_transcript(&self) -> Result<Option<String>, fsread::ReadError> {
        match fsread::read_checked_in(&self.root, &self.transcript_file, fsread::Kind::Transcript)
            .and_then(|b| fsread::into_text(&self.transcript_file, b))
        {
            Ok(t) => Ok(Some(t)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// The folder a game file named on the command line may be read and accepted in: the
/// project when the file is inside it, else the file's own folder.
fn named_root(project: &Project, file: &Path) -> PathBuf {
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let (Ok(root), Ok(folder)) = (project.root.canonicalize(), folder.canonicalize()) else {
        return project.root.clone();
    };
    if folder.starts_with(&root) {
        root
    } else {
        folder
    }
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
                root: project.root.clone(),
            });
        }
    }
    out
}

/// `crown check`'s look at a pack's golden games, without playing them: each file reads
/// and parses, names this pack, a scenario it has and a player count it allows, and only
/// agents Crown knows; its transcript exists. The diagnostics, and the game files' sources
/// for showing them.
pub fn check_games(
    project: &Project,
    pack: &Arc<Pack>,
) -> (Vec<crown_engine::Diagnostic>, Vec<crown_engine::SourceFile>) {
    use crown_engine::bots::unknown_kind;
    use crown_engine::game::agent::{Agent, FirstAgent};
    use crown_engine::Diagnostic;
    let mut diags = Vec::new();
    let mut sources = Vec::new();
    for case in discover(project, &[pack.id().to_string()]) {
        let shown = case.game_file.strip_prefix(&project.root).unwrap_or(&case.game_file).to_path_buf();
        let text = match case.read_game_file() {
            Ok(t) => t,
            Err(e) => {
                let e = e.reason();
                diags.push(Diagnostic::error("game-file", format!("cannot read this golden game: {e}")).in_file(shown));
                continue;
            }
        };
        let src = crown_engine::SourceFile::new(shown.clone(), text.as_str());
        let line_of =
            |key: &str| text.lines().position(|l| l.trim_start().starts_with(&format!("{key} ="))).map_or(1, |i| i + 1);
        let mut found = Vec::new();
        match GameFile::parse(&text) {
            Err(e) => {
                let d = Diagnostic::error(
                    "game-file",
                    format!("not a valid game file: {}", e.message().lines().next().unwrap_or("")),
                );
                found.push(match e.span() {
                    Some(span) => d.at(&src, span),
                    None => d.in_file(shown.clone()),
                });
            }
            Ok(file) => {
                if file.pack != pack.id() {
                    found.push(
                        Diagnostic::error(
                            "game-file",
                            format!("recorded for pack `{}`, not `{}`", file.pack, pack.id()),
                        )
                        .at_line_col(&src, line_of("pack"), 1),
                    );
                }
                let kinds = file.agents.iter().chain(file.fallback.iter());
                for kind in kinds {
                    let Some((msg, near)) = unknown_kind(kind) else { continue };
                    let key = if file.fallback.as_ref() == Some(kind) { "fallback" } else { "agents" };
                    found.push(
                        Diagnostic::error("game-file", msg)
                            .at_line_col(&src, line_of(key), 1)
                            .maybe_hint(near.map(|n| format!("did you mean `{n}`?"))),
                    );
                }
                let mut cfg = GameConfig::new(file.seed, file.players.len());
                cfg.scenario = file.scenario.clone();
                cfg.names = file.players.clone();
                let agents: Vec<Box<dyn Agent>> =
                    (0..file.players.len()).map(|_| Box::new(FirstAgent) as Box<dyn Agent>).collect();
                if let Err(e) = Game::new(pack.clone(), cfg, agents) {
                    let key = if e.starts_with("no scenario") { "scenario" } else { "players" };
                    found.push(Diagnostic::error("game-file", e).at_line_col(&src, line_of(key), 1));
                }
                if !case.transcript_file.is_file() {
                    found.push(
                        Diagnostic::warning("game-file", "this golden game has no transcript yet")
                            .in_file(shown.clone())
                            .hint(format!("replay it and accept the result: `crown test --bless {}`", case.name)),
                    );
                }
            }
        }
        if !found.is_empty() {
            diags.extend(found);
            sources.push(src);
        }
    }
    (diags, sources)
}

/// What replaying one golden game gave.
#[derive(Debug, Clone)]
pub enum Verdict {
    Pass,
    /// The transcript differs, or a person's seat was continued by the fallback agent.
    Differs(Box<Change>),
    /// The game could not be replayed (unreadable file, wrong pack, a game that cannot
    /// start or fails); bless refuses it and `fix` says what to do.
    Broken {
        report: String,
        fix: String,
    },
}

/// A changed golden game: what changed, and what accepting it writes.
#[derive(Debug, Clone)]
pub struct Change {
    /// The outcome lines, the first divergence with context and the definitions just
    /// before it, and any continuation by the fallback agent.
    pub report: String,
    /// The whole transcript diff.
    pub diff: String,
    /// The new transcript.
    pub new: String,
    /// The new game file text, when accepting changes it (a continuation).
    pub new_file: Option<String>,
    /// Whether the result (winners, scores, length, how it ended) changed.
    pub outcome_changed: bool,
    /// Definition ids named just before the first difference.
    pub involved: Vec<String>,
    /// Every definition id the old or the new transcript names.
    pub named: BTreeSet<String>,
}

/// Replay a case against its pack and compare.
pub fn check_case(case: &Case, pack: &Arc<Pack>, context: usize) -> Verdict {
    let rerecord = |file: Option<&GameFile>| match file {
        Some(f) if f.bots_only() => format!(
            "crown record {} --seed {} --players {}{} --agents {} --out {} --force",
            f.pack,
            f.seed,
            f.players.len(),
            f.scenario.as_ref().map(|s| format!(" --scenario {s}")).unwrap_or_default(),
            f.agents.join(","),
            case.game_file.display()
        ),
        Some(f) => format!(
            "crown play {} --players {}{} --record {}",
            f.pack,
            f.players.len(),
            f.scenario.as_ref().map(|s| format!(" --scenario {s}")).unwrap_or_default(),
            case.game_file.display()
        ),
        None => format!("fix {} (or remove it with its transcript)", case.game_file.display()),
    };
    let text = match case.read_game_file() {
        Ok(t) => t,
        Err(e) => {
            return Verdict::Broken {
                report: format!("{}: cannot read: {}", case.game_file.display(), e.reason()),
                fix: rerecord(None),
            }
        }
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
                fix: rerecord(None),
            };
        }
    };
    if file.pack != pack.id() {
        return Verdict::Broken {
            report: format!("{}: recorded for pack `{}`, not `{}`", case.game_file.display(), file.pack, pack.id()),
            fix: format!("move it to tests/golden/{}/ (or fix its `pack`)", file.pack),
        };
    }
    let replayed = match file.replay_full(pack.clone()) {
        Ok(x) => x,
        Err(e) => {
            return Verdict::Broken {
                report: format!("{}: cannot start the game: {e}", case.game_file.display()),
                fix: rerecord(Some(&file)),
            }
        }
    };
    if let Status::Failed(f) = &replayed.outcome.status {
        return Verdict::Broken {
            report: format!("the game fails: {f}"),
            fix: format!("fix the error, then run `crown test {}`", case.name),
        };
    }
    let old = match case.read_transcript() {
        Ok(t) => t.unwrap_or_default(),
        Err(e) => {
            return Verdict::Broken {
                report: format!("{}: cannot read: {}", case.transcript_file.display(), e.reason()),
                fix: format!(
                    "replace it with a regular file inside the project (or delete it and run `crown test --bless {}`)",
                    case.name
                ),
            }
        }
    };
    let new = replayed.transcript.clone();
    let accepted = file.accepted(&replayed);
    let new_file = (accepted != file).then(|| accepted.to_toml());
    let newly_continued: Vec<_> = replayed.continued.iter().filter(|c| !file.continued.contains(c)).collect();
    if old == new && newly_continued.is_empty() && file.continued == replayed.continued {
        return Verdict::Pass;
    }
    let mut report = outcome_report(&old, &new);
    let (divergence, involved) = diff_report(&old, &new, context, Some(pack));
    report.push_str(&divergence);
    for c in &newly_continued {
        let name = file.players.get(c.player).map(String::as_str).unwrap_or("?");
        let missed = replayed
            .dropped
            .iter()
            .find(|d| d.player == c.player)
            .map(|d| format!("the recorded choice '{}' is no longer offered", d.label))
            .unwrap_or_else(|| "the recording ran out".to_string());
        report.push_str(&format!(
            "  {name} (a person) at step {}: {missed}; {} played on from there (accepting writes this into the game file)\n",
            c.step, c.agent
        ));
    }
    let diff = if old == new { String::new() } else { unified_diff(&old, &new, context) };
    let named = old.lines().chain(new.lines()).flat_map(definitions_in).collect();
    Verdict::Differs(Box::new(Change {
        report,
        diff,
        named,
        outcome_changed: result_of(&old) != result_of(&new),
        new,
        new_file,
        involved,
    }))
}

/// The minimal diff takes time in proportion to the changed lines times the lines that
/// differ, up to the square of the changed lines: it is made only while that square stays
/// under this (10,000 changed lines; a whole changed golden game is a few thousand). Past
/// it (a transcript of a million lines with nothing in common with the new one) the diff
/// is the old changed part removed and the new one added, in time in proportion to the
/// lines.
const MAX_DIFF_WORK: u64 = 100_000_000;

/// The unified diff of two transcripts (`--diff`), minimal unless the changed parts are
/// too large to align (see [`MAX_DIFF_WORK`]).
fn unified_diff(old: &str, new: &str, context: usize) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (mid_a, mid_b) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let changed = (mid_a.len() + mid_b.len()) as u64;
    if changed.saturating_mul(changed) <= MAX_DIFF_WORK {
        return similar::TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(context)
            .header("expected", "now")
            .to_string();
    }
    let line = |sign: char, l: &str| format!("{sign}{l}{}", if l.ends_with('\n') { "" } else { "\n" });
    let before = head.saturating_sub(context);
    let after = tail.min(context);
    let count = |n: usize| head - before + n + after;
    let mut out = format!(
        "--- expected\n+++ now\n@@ -{},{} +{},{} @@\n",
        before + 1,
        count(mid_a.len()),
        before + 1,
        count(mid_b.len())
    );
    for l in &a[before..head] {
        out.push_str(&line(' ', l));
    }
    for l in mid_a {
        out.push_str(&line('-', l));
    }
    for l in mid_b {
        out.push_str(&line('+', l));
    }
    for l in &a[a.len() - tail..a.len() - tail + after] {
        out.push_str(&line(' ', l));
    }
    out
}

/// The `# result` line of a transcript, without its prefix.
fn result_of(transcript: &str) -> Option<&str> {
    transcript.lines().rev().find_map(|l| l.strip_prefix("# result "))
}

/// The result's parts: how it ended, turns, winners, scores.
fn result_parts(transcript: &str) -> BTreeMap<&str, &str> {
    let mut parts = BTreeMap::new();
    if let Some(r) = result_of(transcript) {
        for (i, part) in r.split("; ").enumerate() {
            match part.split_once(' ') {
                Some((k @ ("turns" | "winners" | "scores"), v)) => parts.insert(k, v),
                _ if i == 0 => parts.insert("ended", part),
                _ => None,
            };
        }
    }
    parts
}

/// Winners, scores, length and ending, old and new, the ones that changed marked.
pub fn outcome_report(old: &str, new: &str) -> String {
    let (a, b) = (result_parts(old), result_parts(new));
    let mut r = String::new();
    for (key, label) in [("winners", "winners"), ("scores", "scores"), ("turns", "turns"), ("ended", "ended")] {
        let (x, y) = (a.get(key).copied().unwrap_or("?"), b.get(key).copied().unwrap_or("?"));
        if x == y {
            r.push_str(&format!("  {label:<8} {x}\n"));
        } else {
            r.push_str(&format!("  {label:<8} {x}  ->  {y}\n"));
        }
    }
    r
}

/// The first diverging line with context on both sides, and the definitions named just
/// before it (the card whose change set the divergence off, usually).
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
    } else if old != new {
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
        let after = |lines: &[&str], sign: char, r: &mut String| {
            for (i, l) in lines.iter().enumerate().skip(first).take(context.max(1)) {
                r.push_str(&format!("    {:>5} {sign} {l}\n", i + 1));
            }
        };
        after(&old_lines, '-', &mut r);
        after(&new_lines, '+', &mut r);
    }
    // The event that set the change off usually sits just before the first changed line
    // (the card being played); if none is named there, the first changed lines.
    let mut before = BTreeSet::new();
    for l in &old_lines[first.saturating_sub(context.max(1))..first.min(old_lines.len())] {
        before.extend(definitions_in(l).into_iter().filter(known));
    }
    if before.is_empty() {
        for l in [old_lines.get(first), new_lines.get(first)].into_iter().flatten() {
            before.extend(definitions_in(l).into_iter().filter(known));
        }
    }
    if !before.is_empty() {
        let ids: Vec<&str> = before.iter().map(String::as_str).collect();
        r.push_str(&format!("  definitions just before the first change: {}\n", ids.join(", ")));
    }
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

/// Play a bot game and make its game file and transcript, checking that the file replays
/// to the same transcript. An error comes with the exit code it deserves.
pub fn record(
    pack: &Arc<Pack>,
    seed: u64,
    players: usize,
    scenario: Option<String>,
    kinds: Vec<String>,
    description: &str,
) -> Result<(GameFile, String), (i32, String)> {
    let mut cfg = GameConfig::new(seed, players);
    cfg.scenario = scenario;
    let game = Game::new(pack.clone(), cfg, crate::seats::bots(&kinds, seed)).map_err(|e| (2, e))?;
    let (game, outcome) = game.run();
    if let Status::Failed(f) = &outcome.status {
        return Err((1, format!("the game failed: {f}")));
    }
    let file = GameFile::from_game(&game, kinds, description.to_string());
    // The transcript is what replaying the file gives (not the live game's), so the
    // golden is exactly what `crown test` will compare against.
    let replayed = file.replay(pack.clone()).map_err(|e| (1, format!("the recorded game does not replay: {e}")))?.2;
    let live = transcript_text(&game, &outcome);
    if live != replayed {
        let (report, _) = diff_report(&live, &replayed, 3, Some(pack));
        return Err((
            1,
            format!("the game does not replay to the same transcript (is the rules script deterministic?)\n{report}"),
        ));
    }
    Ok((file, replayed))
}

/// The golden games the targets name: packs by id, games by `pack/name`, game files by
/// path; every game of the project when there are none.
pub fn cases_for(project: &Project, targets: &[String]) -> Result<Vec<Case>, String> {
    let mut pack_names = Vec::new();
    let mut cases = Vec::new();
    let all = || discover(project, &[]);
    for t in targets {
        if t.ends_with(".toml") {
            let f = PathBuf::from(t);
            let text = match fsread::read_text_checked(&f, fsread::Kind::GameFile) {
                Ok(t) => t,
                // Missing or not UTF-8: replaying reports it. Not a file, or too large: say so now.
                Err(e @ (fsread::ReadError::NotAFile(..) | fsread::ReadError::TooLarge { .. })) => {
                    return Err(e.to_string())
                }
                Err(_) => String::new(),
            };
            // A file that does not parse is taken to belong to its folder's pack (golden
            // games sit in tests/golden/<pack>/); replaying it then reports the parse error.
            let folder = || f.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string());
            let pack = GameFile::parse(&text).map(|g| g.pack).ok().or_else(folder).unwrap_or_default();
            let stem = f.file_name().and_then(|n| n.to_str()).unwrap_or("").trim_end_matches(".game.toml").to_string();
            cases.push(Case {
                name: format!("{pack}/{stem}"),
                pack,
                transcript_file: transcript_path(&f),
                root: named_root(project, &f),
                game_file: f,
            });
        } else if t.contains('/') {
            let known = all();
            match known.iter().find(|c| c.name == *t) {
                Some(c) => cases.push(c.clone()),
                None => {
                    let near = crown_engine::diag::did_you_mean(t, known.iter().map(|c| c.name.as_str()));
                    return Err(format!(
                        "no golden game `{t}`{}",
                        near.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default()
                    ));
                }
            }
        } else {
            pack_names.push(t.clone());
        }
    }
    if !pack_names.is_empty() || targets.is_empty() {
        let ids = project.pack_ids();
        for p in &pack_names {
            if !ids.contains(p) {
                let near = crown_engine::diag::did_you_mean(p, ids.iter().map(String::as_str));
                return Err(format!(
                    "no pack `{p}` in {}{}",
                    project.content_dir().display(),
                    near.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default()
                ));
            }
        }
        cases.extend(discover(project, &pack_names));
    }
    Ok(cases)
}

/// Whether the targets cover whole packs (none, or only pack ids).
pub fn targets_whole_packs(targets: &[String]) -> bool {
    targets.iter().all(|t| !t.ends_with(".toml") && !t.contains('/'))
}

/// Write what accepting a changed game writes; the files written.
pub fn accept(case: &Case, change: &Change) -> Result<Vec<PathBuf>, String> {
    let mut wrote = Vec::new();
    if let Some(text) = &change.new_file {
        out::write_atomic_in(&case.root, &case.game_file, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", case.game_file.display()))?;
        wrote.push(case.game_file.clone());
    }
    let old = case.read_transcript().ok().flatten().unwrap_or_default();
    if old != change.new {
        out::write_atomic_in(&case.root, &case.transcript_file, change.new.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", case.transcript_file.display()))?;
        wrote.push(case.transcript_file.clone());
    }
    Ok(wrote)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Transcripts with nothing in common past a large size are diffed in linear time:
    /// the old middle removed, the new one added, with the context around them.
    #[test]
    fn huge_diffs_stay_linear() {
        let old: String = (0..20_000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..300).map(|i| format!("new {i}\n")).collect();
        let (old, new) = (format!("same\n{old}end\n"), format!("same\n{new}end\n"));
        let start = std::time::Instant::now();
        let d = unified_diff(&old, &new, 1);
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
        assert!(d.starts_with("--- expected\n+++ now\n@@ -1,20002 +1,302 @@\n same\n-old 0\n"), "{}", &d[..80]);
        assert!(d.ends_with("+new 299\n end\n"), "{}", &d[d.len() - 40..]);
        // Small changes keep the minimal diff.
        let d = unified_diff("a\nb\nc\n", "a\nx\nc\n", 1);
        assert_eq!(d, "--- expected\n+++ now\n@@ -1,3 +1,3 @@\n a\n-b\n+x\n c\n");
    }

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
