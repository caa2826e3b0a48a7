//! `crown sim --compare OTHER`: the same games (same seeds, same seating and characters)
//! played on this project and on OTHER, another project folder or a git revision of this
//! one, and what changed, with intervals.
//!
//! Each game is played on both sides, so the outcomes are paired: for a rate (a seat
//! winning, an outcome row) the difference is estimated from the discordant games (one
//! side had it, the other not) with the paired Wald interval, which excludes zero exactly
//! when McNemar's test (no continuity correction) rejects at that confidence; game length
//! uses the mean of the per-game differences. Card improvements are not paired (a card
//! played in game i on one side need not be played there on the other): their difference
//! gets an unpaired Wald interval.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::load::Project;
use serde::Serialize;

use super::figures::{outcome_label, round4, Diff};
use super::interval::{mean_diff, paired, rate, z_for};
use super::stats::{Paired, ScoreSum, Stats};
use super::summary::{RunInfo, Summary};
use crate::session;

/// The other side of a comparison: its pack, a label, and the temporary folder holding a
/// git revision (removed when dropped).
pub struct Other {
    pub pack: Arc<Pack>,
    pub label: String,
    _tmp: Option<tempfile::TempDir>,
}

fn git(dir: &Path, args: &[&str]) -> Result<std::process::Output, std::io::Error> {
    Command::new("git").arg("-C").arg(dir).args(args).stdin(Stdio::null()).output()
}

/// A revision as shown in messages: control characters written out, at most 80 characters.
fn rev_shown(rev: &str) -> String {
    let s = crate::out::shown(rev);
    match s.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
}

/// Refuse what cannot be a revision before git sees it: nothing, an option (`-c...`,
/// `--output=...`), control characters, a name longer than any ref git would make.
fn check_revision(rev: &str) -> Result<(), String> {
    let why = if rev.trim().is_empty() {
        "an empty revision"
    } else if rev.starts_with('-') {
        "a revision never starts with `-` (git would read it as an option)"
    } else if rev.chars().any(char::is_control) {
        "a revision holds no control characters"
    } else if rev.len() > 256 {
        "longer than any revision (256 bytes at most)"
    } else {
        return Ok(());
    };
    Err(format!("--compare {}: not a folder, and not a revision: {why}", rev_shown(rev)))
}

/// Extract revision `rev` of the git repository holding `root` into a temporary folder:
/// the folder, the project root inside it, and a label. Git is run without a shell, the
/// revision after `--end-of-options` (and checked first), so it is only ever a revision.
fn checkout(root: &Path, rev: &str) -> Result<(tempfile::TempDir, PathBuf, String), String> {
    check_revision(rev)?;
    let not_dir = format!("--compare {}: not a folder", rev_shown(rev));
    if Command::new("git").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_err() {
        return Err(format!("{not_dir}, and git is not installed to read it as a revision"));
    }
    let top = git(root, &["rev-parse", "--show-toplevel"]).map_err(|e| e.to_string())?;
    if !top.status.success() {
        return Err(format!("{not_dir}, and {} is not in a git repository to read it as a revision", root.display()));
    }
    let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim());
    let prefix = git(root, &["rev-parse", "--show-prefix"]).map_err(|e| e.to_string())?;
    let prefix = String::from_utf8_lossy(&prefix.stdout).trim().to_string();
    let commit = git(root, &["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")])
        .map_err(|e| format!("{not_dir}, and git could not be run to read it as a revision ({e})"))?;
    if !commit.status.success() {
        return Err(format!("{not_dir}, and not a revision of the git repository at {}", top.display()));
    }
    let commit = String::from_utf8_lossy(&commit.stdout).trim().to_string();
    if commit.is_empty() || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{not_dir}, and git did not resolve it to a commit"));
    }
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut archive = Command::new("git")
        .arg("-C")
        .arg(&top)
        .args(["archive", "--format=tar", "--end-of-options", &commit])
        .args((!prefix.is_empty()).then_some(prefix.as_str()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let out = archive.stdout.take().ok_or("git archive gave no output")?;
    let tar =
        Command::new("tar").arg("-x").arg("-C").arg(tmp.path()).stdin(out).output().map_err(|e| {
            format!("--compare {}: tar, needed to unpack the revision, did not run: {e}", rev_shown(rev))
        })?;
    let status = archive.wait_with_output().map_err(|e| e.to_string())?;
    if !status.status.success() || !tar.status.success() {
        return Err(format!(
            "--compare {}: could not extract the revision: {}{}",
            rev_shown(rev),
            String::from_utf8_lossy(&status.stderr),
            String::from_utf8_lossy(&tar.stderr)
        ));
    }
    let project = tmp.path().join(&prefix);
    let label = format!("{} ({})", rev_shown(rev), &commit[..commit.len().min(10)]);
    Ok((tmp, project, label))
}

/// Load pack `id` from OTHER: a project folder, else a git revision of this project.
pub fn other(project: &Project, id: &str, other: &str) -> Result<Other, String> {
    let (tmp, root, label) = if Path::new(other).is_dir() {
        (None, PathBuf::from(other), rev_shown(other))
    } else {
        let (t, r, l) = checkout(&project.root, other)?;
        (Some(t), r, l)
    };
    let p = Project::new(&root);
    if !p.pack_ids().iter().any(|x| x == id) {
        return Err(format!("--compare {label}: it has no pack `{id}` (packs: {})", p.pack_ids().join(", ")));
    }
    let pack = session::load(&p, id)
        .map_err(|_| format!("--compare {label}: pack `{id}` does not load there (errors above)"))?;
    Ok(Other { pack, label, _tmp: tmp })
}

impl Other {
    /// This same pack as the other side (`--compare-agents` without `--compare`).
    pub fn same(pack: Arc<Pack>) -> Other {
        Other { pack, label: "this project".into(), _tmp: None }
    }
}

/// Unpaired difference of two improvements (each a difference of two proportions) with a
/// Wald interval: `(value, lo, hi)`; `None` when a side has no player-games.
fn improvement_diff(a: [(u64, u64); 2], b: [(u64, u64); 2], z: f64) -> Option<(f64, f64, f64)> {
    let mut var = 0.0;
    for (k, n) in a.iter().chain(b.iter()) {
        if *n == 0 {
            return None;
        }
        let p = rate(*k, *n);
        var += p * (1.0 - p) / *n as f64;
    }
    let imp = |x: [(u64, u64); 2]| rate(x[0].0, x[0].1) - rate(x[1].0, x[1].1);
    let d = imp(b) - imp(a);
    let half = z * var.sqrt();
    Some((d, d - half, d + half))
}

fn card_sides(s: &Stats, id: &str, drawn: bool) -> [(u64, u64); 2] {
    let c = s.cards.get(id).copied().unwrap_or_default();
    let base = s.player_games;
    let (k, n) = if drawn { (c.drawn_wins, c.drawn_in) } else { (c.played_wins, c.played_in) };
    [(k, n), (base.wins - k.min(base.wins), base.games - n.min(base.games))]
}

/// The comparison section: the other side's summary and every difference (this − other).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// What the other side is.
    pub other: String,
    pub games: u64,
    pub method: &'static str,
    pub outcomes: Vec<OutcomeChange>,
    pub seats: Vec<SeatChange>,
    pub scores: Vec<ScoreChange>,
    /// Game length (turns): the mean of the per-game differences.
    pub length: Diff,
    pub length_games: u64,
    /// By card id.
    pub cards: BTreeMap<String, CardChange>,
    pub other_summary: Summary,
}

/// One outcome row on both sides: its rates and the paired difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutcomeChange {
    pub outcome: String,
    pub this: f64,
    pub other: f64,
    pub difference: Diff,
}

/// One seat's win rate (any win) on both sides and the paired difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeatChange {
    pub seat: usize,
    pub this: f64,
    pub other: f64,
    pub difference: Diff,
}

/// One seat's mean final score on both sides (none without games) and the mean of the
/// per-game differences, over the games neither side failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreChange {
    pub seat: usize,
    pub this: Option<f64>,
    pub other: Option<f64>,
    pub difference: Diff,
    pub games: u64,
}

/// How one card's improvement changed (unpaired), and the player-games it was played in
/// on each side (other, this).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardChange {
    pub name: String,
    pub played_in: [u64; 2],
    pub improvement_played: Diff,
    /// Where both sides measured cards drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub improvement_drawn: Option<Diff>,
}

impl Comparison {
    /// The comparison of `this` with `other`, paired game by game in `p`, the other side
    /// being `label`.
    pub fn of(run: &RunInfo, this: &Stats, other: &Stats, p: &Paired, label: &str) -> Comparison {
        let z = z_for(run.confidence);
        let n = run.players;
        let get = |v: &Vec<u64>, k: usize| v.get(k).copied().unwrap_or(0);
        let this_rows = this.outcome_counts(n);
        let other_rows = other.outcome_counts(n);
        let outcomes = (0..n + 4)
            .map(|k| OutcomeChange {
                outcome: outcome_label(k, n),
                this: round4(rate(this_rows[k], this.games)),
                other: round4(rate(other_rows[k], other.games)),
                difference: Diff::of(paired(p.games, get(&p.outcome_b_only, k), get(&p.outcome_a_only, k), z)),
            })
            .collect();
        let seats = (0..n)
            .map(|s| SeatChange {
                seat: s + 1,
                this: round4(rate(get(&this.seat_wins, s), this.games)),
                other: round4(rate(get(&other.seat_wins, s), other.games)),
                difference: Diff::of(paired(p.games, get(&p.win_b_only, s), get(&p.win_a_only, s), z)),
            })
            .collect();
        // Each seat's final score, game by game: the mean of the per-game differences.
        let scores = (0..n)
            .map(|s| {
                let d = p.score_diff.get(s).copied().unwrap_or_default();
                let mean = |x: &Vec<ScoreSum>| x.get(s).and_then(|t| t.mean_ci(z)).map(|m| round4(m.0));
                ScoreChange {
                    seat: s + 1,
                    this: mean(&p.scores_b),
                    other: mean(&p.scores_a),
                    difference: Diff::of_some(d.mean_ci(z)),
                    games: d.n,
                }
            })
            .collect();
        let mut ids: Vec<&String> = this.cards.keys().chain(other.cards.keys()).collect();
        ids.sort();
        ids.dedup();
        let drawn = this.drawn_recorded && other.drawn_recorded;
        let cards = ids
            .into_iter()
            .map(|id| {
                let d = |drawn: bool| {
                    Diff::of_some(improvement_diff(card_sides(other, id, drawn), card_sides(this, id, drawn), z))
                };
                let played_in = |s: &Stats| s.cards.get(id).map_or(0, |c| c.played_in);
                let change = CardChange {
                    name: run.names.get(id).unwrap_or(id).clone(),
                    played_in: [played_in(other), played_in(this)],
                    improvement_played: d(false),
                    improvement_drawn: drawn.then(|| d(true)),
                };
                (id.clone(), change)
            })
            .collect();
        let mut other_run = run.clone();
        other_run.overrides.clear();
        if !run.compare_agents.is_empty() {
            other_run.agents = run.compare_agents.clone();
        }
        other_run.compare_agents.clear();
        Comparison {
            other: label.to_string(),
            games: p.games,
            method: "paired by seed: Wald interval for paired proportions (McNemar) on outcomes and seat wins, mean of per-game differences for length and scores; unpaired Wald for card improvements",
            outcomes,
            seats,
            scores,
            length: Diff::of(mean_diff(p.length_games, p.length_diff_sum, p.length_diff_sq, z)),
            length_games: p.length_games,
            cards,
            other_summary: Summary::of(&other_run, other),
        }
    }

    /// The comparison, for the terminal.
    pub fn print(&self, confidence: f64) {
        println!(
            "\ncompared with {} on the same {} games (this − other; {:.0}% intervals; `real`: the interval excludes 0)",
            self.other,
            self.games,
            100.0 * confidence
        );
        // A share's row in percent, a mean's as it is.
        let share = |label: &str, other: f64, this: f64, d: &Diff| {
            println!("  {label:<34} {:>6.1}% -> {:>6.1}%  {}", 100.0 * other, 100.0 * this, signed(d, 100.0, " pts"));
        };
        let mean = |label: &str, other: f64, this: f64, d: &Diff| {
            println!("  {label:<34} {other:>6.1} -> {this:>6.1}   {}", signed(d, 1.0, ""));
        };
        for o in &self.outcomes {
            share(&o.outcome, o.other, o.this, &o.difference);
        }
        for s in &self.seats {
            share(&format!("seat {} wins (any)", s.seat), s.other, s.this, &s.difference);
        }
        for s in &self.scores {
            let label = format!("seat {} final score", s.seat);
            mean(&label, s.other.unwrap_or(0.0), s.this.unwrap_or(0.0), &s.difference);
        }
        let other_mean = self.other_summary.length.mean;
        mean("game length (turns)", other_mean, other_mean + self.length.value_or_zero(), &self.length);
        let real = |d: Option<&Diff>| d.is_some_and(|d| d.real);
        let cards: Vec<&CardChange> = (self.cards.values())
            .filter(|c| real(Some(&c.improvement_played)) || real(c.improvement_drawn.as_ref()))
            .collect();
        if cards.is_empty() {
            println!("  no card's improvement (when played or drawn) changed beyond its interval");
        } else {
            println!("  cards whose improvement changed (IWP / IWD, this − other):");
            for c in cards {
                println!(
                    "    {:<32} IWP {}   IWD {}",
                    c.name,
                    signed(&c.improvement_played, 100.0, ""),
                    c.improvement_drawn.as_ref().map_or_else(|| "n/a".into(), |d| signed(d, 100.0, ""))
                );
            }
        }
    }
}

/// A difference scaled (100: percentage points), with its unit and interval, marked when
/// it is real.
fn signed(d: &Diff, scale: f64, unit: &str) -> String {
    if d.value.is_none() {
        return "n/a".into();
    }
    format!(
        "{:+.1}{unit} [{:+.1}, {:+.1}]{}",
        scale * d.value_or_zero(),
        scale * d.lo(),
        scale * d.hi(),
        if d.real { "  <- real" } else { "" }
    )
}
