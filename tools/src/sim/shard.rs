//! `crown sim --shard I/N --out FILE` and `crown sim merge FILES...`: a run split into
//! disjoint ranges of game indices, each written as integer statistics, merged exactly.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::stats::{Paired, Stats};
use super::summary::RunInfo;

/// The format tag of a statistics file.
pub const FORMAT: &str = "crown-sim-stats/2";

/// What `--out` writes: the run, the game ranges covered, and the integer statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatsFile {
    pub format: String,
    pub run: RunInfo,
    /// Game index ranges `[first, end)` these statistics cover, sorted.
    pub ranges: Vec<(u64, u64)>,
    /// Games of those ranges not played because `--max-failures` stopped the run.
    pub not_run: u64,
    pub stats: Stats,
    /// `--compare`: the other side's statistics and the paired differences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<Stats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
}

/// Parse `I/N` (0 ≤ I < N, as Slurm array ids and Kubernetes completion indexes count).
pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    // The value as given, shown safely: control characters written out, a long one cut
    // (a scheduler's variable may hold anything).
    let given = {
        let t = crate::out::shown(s);
        if t.chars().count() > 48 {
            format!("{}... ({} characters)", t.chars().take(40).collect::<String>(), s.chars().count())
        } else {
            t
        }
    };
    let bad = || format!("--shard {given}: expected I/N with 0 <= I < N, e.g. --shard 0/4 ... --shard 3/4");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let number = |t: &str| -> Result<u64, String> {
        let t = t.trim();
        match t.parse::<u64>() {
            Ok(v) => Ok(v),
            Err(_) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
                Err(format!("--shard {given}: a number past {} is too large for a shard", u64::MAX))
            }
            Err(_) => Err(bad()),
        }
    };
    let (i, n) = (number(i)?, number(n)?);
    if n == 0 {
        return Err(format!("--shard {given}: the shard count must be at least 1"));
    }
    if i >= n {
        return Err(format!(
            "--shard {given}: shard index {i} is not below the shard count {n} (shards are numbered 0 to {})",
            n - 1
        ));
    }
    Ok((i, n))
}

/// The games of shard `i` of `n` in a run of `games`: `[games*i/n, games*(i+1)/n)`.
pub fn shard_range(games: u64, i: u64, n: u64) -> (u64, u64) {
    let at = |k: u64| (u128::from(games) * u128::from(k) / u128::from(n)) as u64;
    (at(i), at(i + 1))
}

pub fn write(path: &Path, file: &StatsFile) -> Result<(), String> {
    let text = serde_json::to_string(file).map_err(|e| e.to_string())?;
    crate::out::write_atomic(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn read(path: &Path) -> Result<StatsFile, String> {
    let text = crown_engine::fsread::read_text_checked(path, crown_engine::fsread::Kind::Shard)
        .map_err(|e| format!("{}: {}", path.display(), e.reason()))?;
    let f: StatsFile = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a `crown sim --out` statistics file ({e})", path.display()))?;
    if f.format != FORMAT {
        return Err(format!("{}: format `{}`, this crown reads `{FORMAT}`", path.display(), f.format));
    }
    Ok(f)
}

/// What differs between the runs of two statistics files, in words (`None`: the same run).
fn run_difference(a: &RunInfo, b: &RunInfo) -> Option<String> {
    let fields: [(&str, String, String); 16] = [
        ("pack", a.pack.clone(), b.pack.clone()),
        ("pack version", a.version.clone(), b.version.clone()),
        ("content (its digest: a definition, setting or script differs)", a.content.clone(), b.content.clone()),
        ("crown version", a.crown.clone(), b.crown.clone()),
        ("--max-failures", a.max_failures.to_string(), b.max_failures.to_string()),
        ("scenario", format!("{:?}", a.scenario), format!("{:?}", b.scenario)),
        ("seed", a.seed.to_string(), b.seed.to_string()),
        ("games in the run", a.games.to_string(), b.games.to_string()),
        ("players", a.players.to_string(), b.players.to_string()),
        ("agents", a.agents.join(","), b.agents.join(",")),
        ("seating", format!("{:?}", a.seat_order), format!("{:?}", b.seat_order)),
        ("characters", a.characters.clone(), b.characters.clone()),
        ("options set (--set)", a.overrides.join(" "), b.overrides.join(" ")),
        ("--compare", format!("{:?}", a.compare), format!("{:?}", b.compare)),
        ("--compare-agents", a.compare_agents.join(","), b.compare_agents.join(",")),
        (
            "confidence and minimum sample",
            format!("{} {}", a.confidence, a.min_sample),
            format!("{} {}", b.confidence, b.min_sample),
        ),
    ];
    let clip = |s: &str| -> String {
        let s = crate::out::shown(s);
        if s.chars().count() > 60 {
            format!("{}…", s.chars().take(60).collect::<String>())
        } else {
            s
        }
    };
    if let Some((what, x, y)) = fields.iter().find(|(_, x, y)| x != y) {
        return Some(format!("{what}: `{}` against `{}`", clip(x), clip(y)));
    }
    (a != b).then(|| "the names of the pack's definitions differ".to_string())
}

/// A statistics file's own counts must agree: its ranges lie inside the run and hold the
/// games it counts, and its games are the finished, stopped and failed ones.
fn check_counts(p: &Path, f: &StatsFile) -> Result<(), String> {
    let bad = |why: String| Err(format!("{}: {why}; the file was edited or damaged, so it is not merged", p.display()));
    let mut covered = 0u64;
    for &(a, b) in &f.ranges {
        if a >= b {
            return bad(format!("the game range {a}..{b} holds no games"));
        }
        if b > f.run.games {
            return bad(format!("the game range {a}..{b} runs past the run's {} games", f.run.games));
        }
        covered = covered.saturating_add(b - a);
    }
    if f.not_run > covered {
        return bad(format!("it says {} games were not played, of the {covered} its ranges hold", f.not_run));
    }
    if f.stats.games != covered - f.not_run {
        return bad(format!(
            "it counts {} games, but its ranges hold {covered} games{}",
            f.stats.games,
            if f.not_run > 0 { format!(" of which {} were not played", f.not_run) } else { String::new() }
        ));
    }
    let ended = [f.stats.finished, f.stats.turn_limit, f.stats.failed].iter().try_fold(0u64, |s, x| s.checked_add(*x));
    if ended != Some(f.stats.games) {
        return bad(format!(
            "its {} games are not its finished ({}), stopped ({}) and failed ({}) games together",
            f.stats.games, f.stats.finished, f.stats.turn_limit, f.stats.failed
        ));
    }
    for side in std::iter::once(&f.stats).chain(f.other.as_ref()) {
        if let Some(why) = side.disagreement() {
            return bad(why);
        }
    }
    if f.other.is_some() != f.paired.is_some() || (f.run.compare.is_none() && f.other.is_some()) {
        return bad("its comparison statistics do not match its run (a side is missing)".into());
    }
    Ok(())
}

/// Whether every count of `b` can be added to the same count of `a`: the two are walked
/// side by side as JSON (maps by key, lists by position) and each pair of numbers must
/// add up inside the 64-bit range, so a merge never wraps around.
fn sums_fit(a: &serde_json::Value, b: &serde_json::Value, at: &mut Vec<String>) -> Result<(), String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let int = |n: &serde_json::Number| n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
            if let (Some(x), Some(y)) = (int(x), int(y)) {
                if !(i128::from(i64::MIN)..=i128::from(i64::MAX)).contains(&(x + y)) {
                    return Err(format!("`{}` ({x} and {y}) adds up past what a count can hold", at.join(".")));
                }
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in y {
                if let Some(w) = x.get(k) {
                    at.push(k.clone());
                    sums_fit(w, v, at)?;
                    at.pop();
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (w, v)) in x.iter().zip(y).enumerate() {
                at.push(i.to_string());
                sums_fit(w, v, at)?;
                at.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

/// Statistics files merged: the statistics, and the game ranges of the run no file held
/// (empty for a complete run).
#[derive(Debug)]
pub struct Merged {
    pub file: StatsFile,
    pub missing: Vec<(u64, u64)>,
}

/// Merge statistics files of one run. They must describe the same run (the same content
/// and crown too), cover disjoint game ranges and, unless `partial`, together every game of
/// it; each file's counts must agree with its ranges and with one another, and the sums
/// must fit. Anything else is refused with the reason, naming the file that does not
/// belong, so merged statistics always come from exactly one run. A partial merge is a
/// statistics file like a shard's, holding the ranges of the files merged: it merges
/// again later with the rest.
pub fn merge(paths: &[PathBuf], partial: bool) -> Result<Merged, String> {
    let mut files = Vec::with_capacity(paths.len());
    let mut seen: std::collections::HashMap<PathBuf, &Path> = std::collections::HashMap::new();
    for p in paths {
        let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        if let Some(first) = seen.get(&real) {
            return Err(if *first == p.as_path() {
                format!("{} is given twice", p.display())
            } else {
                format!("{} and {} are the same file (given twice)", first.display(), p.display())
            });
        }
        seen.insert(real, p.as_path());
        let f = read(p)?;
        check_counts(p, &f)?;
        files.push((p, f));
    }
    if files.is_empty() {
        return Err("crown sim merge: give the statistics files to merge".into());
    }
    // The run most files describe (the first such): a file of another run is named,
    // wherever it comes in the list. The files fall into a few runs (most often one):
    // each is compared with one file of each run met so far.
    let mut runs: Vec<(usize, usize)> = Vec::new(); // (first file of the run, files agreeing)
    for (k, (_, f)) in files.iter().enumerate() {
        match runs.iter_mut().find(|(first, _)| files[*first].1.run == f.run) {
            Some((_, n)) => *n += 1,
            None => runs.push((k, 1)),
        }
    }
    let (first, agreeing) = runs
        .iter()
        .fold(None::<(usize, usize)>, |best, &(k, n)| match best {
            Some((b, m)) if m >= n => Some((b, m)),
            _ => Some((k, n)),
        })
        .ok_or("crown sim merge: give the statistics files to merge")?;
    let (common_path, common) = (files[first].0.to_path_buf(), files[first].1.clone());
    let mut merged = common.clone();
    merged.ranges.clear();
    merged.stats = Stats::default();
    merged.other = common.other.as_ref().map(|_| Stats::default());
    merged.paired = common.paired.as_ref().map(|_| Paired::default());
    merged.not_run = 0;
    let mut ranges: Vec<(u64, u64, &Path)> = Vec::new();
    for (p, f) in &files {
        if let Some(what) = run_difference(&merged.run, &f.run) {
            let others = agreeing;
            return Err(if others > 1 {
                // Its own value first.
                let what = run_difference(&f.run, &merged.run).unwrap_or(what);
                format!(
                    "{} is not from the run the other {others} files are from ({what}); merge the shards of one run only",
                    p.display(),
                )
            } else {
                format!(
                    "{} and {} are from different runs ({what}); merge the shards of one run only",
                    common_path.display(),
                    p.display()
                )
            });
        }
        if f.other.is_some() != merged.other.is_some() {
            return Err(format!(
                "{} and {} are from different runs (one holds the statistics of a comparison, the other not)",
                common_path.display(),
                p.display()
            ));
        }
        ranges.extend(f.ranges.iter().map(|&(a, b)| (a, b, p.as_path())));
    }
    ranges.sort();
    let mut at = 0;
    let mut missing = Vec::new();
    for w in 0..ranges.len() {
        let (a, b, p) = ranges[w];
        if a < at {
            let prev = ranges[w - 1].2;
            return Err(if prev == p {
                format!("{} holds games from {a} twice (its ranges overlap)", p.display())
            } else {
                format!("{} and {} both hold games from {a} (a shard given twice?)", prev.display(), p.display())
            });
        }
        if a > at {
            missing.push((at, a));
        }
        at = b;
    }
    if at < merged.run.games {
        missing.push((at, merged.run.games));
    }
    if !missing.is_empty() && !partial {
        return Err(format!(
            "the files cover {} of the run's {} games; missing game ranges: {} (a shard not finished or not given? `--partial --out FILE` merges what there is, to merge again with the rest)",
            ranges.iter().map(|r| r.1 - r.0).sum::<u64>(),
            merged.run.games,
            ranges_text(&missing)
        ));
    }
    for (p, f) in files {
        let sides = [
            (serde_json::to_value(&merged.stats), serde_json::to_value(&f.stats)),
            (serde_json::to_value(&merged.other), serde_json::to_value(&f.other)),
            (serde_json::to_value(&merged.paired), serde_json::to_value(&f.paired)),
        ];
        for (a, b) in sides {
            let (a, b) = (a.map_err(|e| e.to_string())?, b.map_err(|e| e.to_string())?);
            sums_fit(&a, &b, &mut Vec::new())
                .map_err(|e| format!("{}: {e}; the file was edited or damaged, so it is not merged", p.display()))?;
        }
        merged.ranges.extend(f.ranges);
        merged.not_run += f.not_run;
        merged.stats = std::mem::take(&mut merged.stats).merge(f.stats);
        if let (Some(m), Some(o)) = (merged.other.as_mut(), f.other) {
            *m = std::mem::take(m).merge(o);
        }
        if let (Some(m), Some(o)) = (merged.paired.as_mut(), f.paired) {
            *m = std::mem::take(m).merge(o);
        }
    }
    merged.ranges.sort_unstable();
    // Adjacent ranges are one range (a merge of merges stays short).
    let mut joined: Vec<(u64, u64)> = Vec::with_capacity(merged.ranges.len());
    for (a, b) in std::mem::take(&mut merged.ranges) {
        match joined.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ => joined.push((a, b)),
        }
    }
    merged.ranges = joined;
    Ok(Merged { file: merged, missing })
}

/// Game ranges as people read them: `0..500, 750..1000`.
pub fn ranges_text(ranges: &[(u64, u64)]) -> String {
    ranges.iter().map(|(a, b)| format!("{a}..{b}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::stats::Tally;

    #[test]
    fn shards_partition_the_games() {
        for games in [1u64, 7, 100, 1001] {
            for n in 1..6 {
                let mut at = 0;
                for i in 0..n {
                    let (a, b) = shard_range(games, i, n);
                    assert_eq!(a, at);
                    at = b;
                }
                assert_eq!(at, games);
            }
        }
        assert_eq!(parse_shard("1/4"), Ok((1, 4)));
        assert!(parse_shard("3/2").unwrap_err().contains("not below the shard count 2"));
        assert!(parse_shard("2/2").is_err() && parse_shard("0/0").is_err() && parse_shard("a/b").is_err());
        // A scheduler's value may hold anything: shown with its control characters written
        // out, cut when long, a number past the 64-bit range told too large.
        let escaped = parse_shard("\u{1b}[31m1/8\n").unwrap_err();
        assert!(!escaped.contains('\u{1b}') && escaped.contains("\\u{1b}[31m1/8\\n"), "{escaped}");
        let long = parse_shard(&format!("{}/8", "9".repeat(10_000))).unwrap_err();
        assert!(long.len() < 200 && long.contains("(10002 characters)") && long.contains("too large"), "{long}");
    }

    fn shard(dir: &Path, name: &str, range: (u64, u64), not_run: u64) -> PathBuf {
        let run = RunInfo {
            pack: "p".into(),
            version: "1".into(),
            content: "00000000000000aa".into(),
            crown: "0.1.0".into(),
            max_failures: 10,
            scenario: None,
            seed: 1,
            games: 10,
            players: 2,
            agents: vec!["random".into()],
            seat_order: crate::sim::plan::SeatOrder::Fixed,
            characters: "game".into(),
            overrides: Vec::new(),
            confidence: 0.95,
            min_sample: 30,
            compare: None,
            compare_agents: Vec::new(),
            names: Default::default(),
        };
        let f = StatsFile {
            format: FORMAT.into(),
            run,
            ranges: vec![range],
            not_run,
            stats: Stats {
                games: range.1 - range.0 - not_run,
                finished: range.1 - range.0 - not_run,
                lengths: std::iter::once((7, range.1 - range.0 - not_run)).filter(|x| x.1 > 0).collect(),
                ..Stats::default()
            },
            other: None,
            paired: None,
        };
        let path = dir.join(name);
        write(&path, &f).unwrap();
        path
    }

    /// Games a shard did not play (stopped by `--max-failures`) are summed over the
    /// shards, never taken from one of them.
    #[test]
    fn merging_adds_the_games_each_shard_did_not_play() {
        let dir = tempfile::tempdir().unwrap();
        let a = shard(dir.path(), "a.json", (0, 5), 3);
        let b = shard(dir.path(), "b.json", (5, 10), 4);
        let merged = merge(&[a.clone(), b.clone()], false).unwrap().file;
        assert_eq!(merged.not_run, 7);
        assert_eq!(merged.ranges, vec![(0, 10)], "adjacent ranges joined");
        assert_eq!(merge(&[b, a], false).unwrap().file.not_run, 7, "in any order");
    }

    /// Shards that overlap are refused naming both files; ranges no shard covers are
    /// named; a complete set in any order merges.
    #[test]
    fn merging_refuses_overlaps_and_names_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let a = shard(dir.path(), "a.json", (0, 4), 0);
        let b = shard(dir.path(), "b.json", (3, 7), 0);
        let c = shard(dir.path(), "c.json", (7, 10), 0);
        let e = merge(&[c.clone(), b.clone(), a.clone()], false).unwrap_err();
        assert!(e.contains("a.json and ") && e.contains("b.json both hold games from 3"), "{e}");
        let d = shard(dir.path(), "d.json", (5, 7), 0);
        let e = merge(&[a.clone(), d.clone(), c.clone()], false).unwrap_err();
        assert!(e.contains("cover 9 of the run's 10 games") && e.contains("missing game ranges: 4..5"), "{e}");
        let e = merge(&[d, c.clone()], false).unwrap_err();
        assert!(e.contains("missing game ranges: 0..5") && !e.contains("7.."), "{e}");
        let e = merge(&[a.clone(), shard(dir.path(), "e.json", (4, 8), 0)], false).unwrap_err();
        assert!(e.contains("missing game ranges: 8..10"), "{e}");
        let whole = merge(&[shard(dir.path(), "f.json", (4, 7), 0), c, a], false).unwrap();
        assert_eq!((whole.file.ranges, whole.missing), (vec![(0, 10)], vec![]));
    }

    /// A shard edited or damaged is refused with the reason, before anything is summed:
    /// counts that disagree with its ranges, a range past the run, sums past 64 bits, the
    /// same file twice (by another path too), another run's shard naming what differs.
    #[test]
    fn merging_refuses_what_is_not_one_complete_run() {
        let dir = tempfile::tempdir().unwrap();
        let a = shard(dir.path(), "a.json", (0, 5), 0);
        let b = shard(dir.path(), "b.json", (5, 10), 0);
        let edit = |name: &str, f: &dyn Fn(&mut StatsFile)| {
            let mut file = read(&b).unwrap();
            f(&mut file);
            let p = dir.path().join(name);
            write(&p, &file).unwrap();
            p
        };
        let e = merge(&[a.clone(), edit("games.json", &|f| f.stats.games = 50)], false).unwrap_err();
        assert!(e.contains("games.json: it counts 50 games, but its ranges hold 5 games"), "{e}");
        let e = merge(&[a.clone(), edit("ended.json", &|f| f.stats.failed = 1)], false).unwrap_err();
        assert!(e.contains("are not its finished (5), stopped (0) and failed (1) games together"), "{e}");
        let e = merge(&[a.clone(), edit("past.json", &|f| f.ranges = vec![(5, u64::MAX)])], false).unwrap_err();
        assert!(e.contains("runs past the run's 10 games"), "{e}");
        let e = merge(&[a.clone(), edit("empty.json", &|f| f.ranges = vec![(7, 5)])], false).unwrap_err();
        assert!(e.contains("the game range 7..5 holds no games"), "{e}");
        let e = merge(&[a.clone(), edit("turns.json", &|f| f.stats.turns = u64::MAX)], false).unwrap_err();
        assert!(e.contains("`turns`") && e.contains("adds up past what a count can hold"), "{e}");
        // The counts inside lists are walked too (a bot's score sum), not only the scalars.
        let scores = |from: &PathBuf, name: &str, sum: i64| {
            let mut file = read(from).unwrap();
            file.stats.role_scores = vec![crate::sim::stats::ScoreSum { n: 5, sum, sum_sq: 0 }];
            let p = dir.path().join(name);
            write(&p, &file).unwrap();
            p
        };
        let (low, high) = (scores(&a, "low.json", 1), scores(&b, "high.json", i64::MAX));
        let e = merge(&[low.clone(), high], false).unwrap_err();
        assert!(e.contains("`role_scores.0.sum`") && e.contains("adds up past what a count can hold"), "{e}");
        merge(&[low, scores(&b, "fits.json", i64::MAX - 1)], false).unwrap();
        let e = merge(&[a.clone(), edit("seed.json", &|f| f.run.seed = 9)], false).unwrap_err();
        assert!(e.contains("different runs (seed: `1` against `9`)"), "{e}");
        let e = merge(&[a.clone(), edit("set.json", &|f| f.run.overrides = vec!["card.x.count=3".into()])], false)
            .unwrap_err();
        assert!(e.contains("options set (--set): `` against `card.x.count=3`"), "{e}");
        let e = merge(&[a.clone(), b.clone(), b.clone()], false).unwrap_err();
        assert!(e.contains("b.json is given twice"), "{e}");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&b, &link).unwrap();
        let e = merge(&[a.clone(), b.clone(), link], false).unwrap_err();
        assert!(e.contains("b.json and ") && e.contains("link.json are the same file"), "{e}");
        let e = merge(
            &[
                a.clone(),
                edit("both.json", &|f| {
                    f.ranges = vec![(5, 7), (6, 10)];
                    (f.stats.games, f.stats.finished) = (6, 6);
                    f.stats.lengths = [(7, 6)].into();
                }),
            ],
            false,
        )
        .unwrap_err();
        assert!(e.contains("both.json holds games from 6 twice"), "{e}");
        assert_eq!(merge(&[a.clone(), b.clone()], false).unwrap().file.stats.games, 10);
        // Counts that disagree with one another: wins past the games.
        let e = merge(&[a.clone(), edit("wins.json", &|f| f.stats.sole_wins = vec![4, 3])], false).unwrap_err();
        assert!(
            e.contains("wins.json: its games won alone, shared and without a winner add up to more than its 5"),
            "{e}"
        );
        let e = merge(&[a.clone(), edit("seat.json", &|f| f.stats.seat_wins = vec![6, 0])], false).unwrap_err();
        assert!(e.contains("seat 1 wins 6 of its 5 finished games"), "{e}");
        let e = merge(&[a.clone(), edit("role.json", &|f| f.stats.roles = vec![Tally { games: 5, wins: 9 }])], false)
            .unwrap_err();
        assert!(e.contains("bot 1 won 9 of 5 games"), "{e}");
    }

    /// A shard of other content (or another crown) is refused, naming it wherever it
    /// comes in the list.
    #[test]
    fn merging_names_the_shard_of_other_content() {
        let dir = tempfile::tempdir().unwrap();
        let a = shard(dir.path(), "a.json", (0, 3), 0);
        let b = shard(dir.path(), "b.json", (3, 6), 0);
        let c = shard(dir.path(), "c.json", (6, 10), 0);
        let mut odd = read(&a).unwrap();
        odd.run.content = "00000000000000bb".into();
        let o = dir.path().join("odd.json");
        write(&o, &odd).unwrap();
        for files in [[o.clone(), b.clone(), c.clone()], [b.clone(), o.clone(), c.clone()]] {
            let e = merge(&files, false).unwrap_err();
            assert!(
                e.starts_with(&format!("{} is not from the run the other 2 files are from (content", o.display())),
                "{e}"
            );
        }
        let mut old = read(&a).unwrap();
        old.run.crown = "0.0.9".into();
        let p = dir.path().join("old.json");
        write(&p, &old).unwrap();
        let e = merge(&[p, b, c], false).unwrap_err();
        assert!(
            e.contains("old.json is not from the run") && e.contains("(crown version: `0.0.9` against `0.1.0`)"),
            "{e}"
        );
    }

    /// Half the shards merged with `--partial` write a file that merges with the other
    /// half into what all of them give at once.
    #[test]
    fn a_partial_merge_merges_again_with_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let parts: Vec<PathBuf> =
            (0..4).map(|i| shard(dir.path(), &format!("s{i}.json"), shard_range(10, i, 4), 0)).collect();
        let all = merge(&parts, false).unwrap().file;
        assert!(merge(&[parts[0].clone(), parts[2].clone()], false).is_err(), "incomplete without --partial");
        let half = merge(&[parts[0].clone(), parts[2].clone()], true).unwrap();
        assert_eq!(half.missing, vec![shard_range(10, 1, 4), (shard_range(10, 3, 4).0, 10)]);
        let h = dir.path().join("half.json");
        write(&h, &half.file).unwrap();
        let again = merge(&[parts[3].clone(), h.clone(), parts[1].clone()], false).unwrap();
        assert_eq!(again.file, all);
        let e = merge(&[h, parts[0].clone(), parts[1].clone(), parts[3].clone()], false).unwrap_err();
        assert!(e.contains("both hold games from 0"), "{e}");
    }
}
