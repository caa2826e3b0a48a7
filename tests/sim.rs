//! `crown sim` end to end on the shipped packs: outcome rows that sum to the games,
//! card statistics per player-game, seating and characters, and option errors.

use serde_json::Value;

use crate::common::{crown_bin, repo_project};

/// Run `crown --project REPO sim ARGS`: exit code, stdout, stderr.
pub fn sim(args: &[&str]) -> (i32, String, String) {
    let root = repo_project().root.to_string_lossy().to_string();
    let o = std::process::Command::new(crown_bin())
        .args(["--project", &root, "sim"])
        .args(args)
        .output()
        .expect("crown runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// `crown sim ARGS --json`, which must succeed.
pub fn sim_json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (code, out, err) = sim(&a);
    assert_eq!(code, 0, "crown sim {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn sum(v: &Value, key: &str) -> u64 {
    v.as_array().unwrap().iter().map(|r| r[key].as_u64().unwrap()).sum()
}

#[test]
fn outcome_rows_sum_to_the_games() {
    for (pack, players) in
        [("take-the-kingdom", "4"), ("kingdoms-in-conflict", "2"), ("the-last-kingdom", "3"), ("crownfields", "3")]
    {
        let v = sim_json(&[pack, "--games", "12", "--players", players, "--seed", "3"]);
        let rows = &v["outcomes"];
        assert_eq!(rows.as_array().unwrap().len(), v["players"].as_u64().unwrap() as usize + 4, "{pack}");
        assert_eq!(sum(rows, "games"), 12, "{pack}: {rows}");
        let rates: f64 = rows.as_array().unwrap().iter().map(|r| r["rate"].as_f64().unwrap()).sum();
        assert!((rates - 1.0).abs() < 1e-3, "{pack}: rates sum to {rates}");
        for r in rows.as_array().unwrap() {
            let (lo, hi, p) = (r["ci"][0].as_f64().unwrap(), r["ci"][1].as_f64().unwrap(), r["rate"].as_f64().unwrap());
            assert!(lo <= p && p <= hi && lo < hi, "{pack}: {r}");
        }
        let hist: u64 = v["length"]["histogram"].as_array().unwrap().iter().map(|p| p[1].as_u64().unwrap()).sum();
        assert_eq!(hist, 12 - v["failed"].as_u64().unwrap(), "{pack}: the length histogram covers the games played");
        assert!(v.get("timing").is_none(), "no timing without --timing");
    }
}

#[test]
fn card_statistics_split_player_games() {
    let v = sim_json(&["take-the-kingdom", "--games", "16", "--players", "4", "--seed", "9", "--min-sample", "20"]);
    let base = v["player_games"]["games"].as_u64().unwrap();
    assert_eq!(base, 64);
    assert_eq!(v["drawn_recorded"], true, "take-the-kingdom has hands: drawn is recorded");
    let cards = v["cards"].as_object().unwrap();
    assert!(cards.len() > 20);
    let mut low = 0;
    for (id, c) in cards {
        let played = c["played"]["games"].as_u64().unwrap();
        assert_eq!(played + c["not_played"]["games"].as_u64().unwrap(), base, "{id}");
        assert_eq!(
            c["played"]["wins"].as_u64().unwrap() + c["not_played"]["wins"].as_u64().unwrap(),
            v["player_games"]["wins"].as_u64().unwrap(),
            "{id}"
        );
        assert_eq!(c["drawn"]["games"].as_u64().unwrap() + c["not_drawn"]["games"].as_u64().unwrap(), base, "{id}");
        let small = played.min(base - played) < 20
            || c["drawn"]["games"].as_u64().unwrap().min(c["not_drawn"]["games"].as_u64().unwrap()) < 20;
        assert_eq!(c["low_sample"], small, "{id}: {c}");
        low += usize::from(small);
        if !c["improvement_played"]["value"].is_null() {
            let d = c["played"]["rate"].as_f64().unwrap() - c["not_played"]["rate"].as_f64().unwrap();
            assert!((c["improvement_played"]["value"].as_f64().unwrap() - d).abs() < 2e-4, "{id}");
        }
    }
    assert!(low > 0, "some cards are marked as small samples (and still listed)");
    // The table marks them too.
    let (code, out, _) = sim(&["take-the-kingdom", "--games", "4", "--players", "4"]);
    assert_eq!(code, 0);
    assert!(out.contains("how games ended") && out.contains("turn limit") && out.contains("IWD"), "{out}");
}

#[test]
fn rotation_seats_every_bot_everywhere() {
    let v = sim_json(&[
        "take-the-kingdom",
        "--games",
        "8",
        "--players",
        "4",
        "--agents",
        "greedy,random",
        "--seat-order",
        "rotate",
        "--characters",
        "fixed:maria,simon,charles,anne",
    ]);
    // greedy is role 1, random roles 2-4: 8 games rotated put greedy in each seat twice.
    assert_eq!(v["by_agent"]["greedy"]["games"], 8);
    assert_eq!(v["by_agent"]["random"]["games"], 24);
    for id in ["maria", "simon", "charles", "anne"] {
        assert_eq!(v["characters"][id]["games"], 8, "{id}: {}", v["characters"]);
    }
    assert_eq!(v["characters"].as_object().unwrap().len(), 4);
    assert!(v["seats"][0].get("agent").is_none(), "a rotated seat has no one agent");
}

#[test]
fn sweep_deals_each_character_to_each_seat() {
    let v = sim_json(&["take-the-kingdom", "--games", "12", "--players", "2", "--characters", "sweep"]);
    let chars = v["characters"].as_object().unwrap();
    assert_eq!(chars.len(), 6, "{chars:?}");
    assert!(chars.values().all(|c| c["games"] == 4), "12 games x 2 seats over 6 nobles: {chars:?}");
    let r = sim_json(&["the-last-kingdom", "--games", "6", "--players", "3", "--characters", "random", "--seed", "4"]);
    let total: u64 = r["characters"].as_object().unwrap().values().map(|c| c["games"].as_u64().unwrap()).sum();
    assert_eq!(total, 18);
}

#[test]
fn bad_options_are_refused_clearly() {
    let cases: &[(&[&str], &str)] = &[
        (&["take-the-kingdom", "--games", "0"], "--games 0"),
        (&["take-the-kingdom", "--characters", "fixed:mari,simon", "--players", "2"], "did you mean `maria`"),
        (&["take-the-kingdom", "--characters", "fixed:maria", "--players", "2"], "1 characters for 2 players"),
        (&["take-the-kingdom", "--characters", "fixed:maria,maria", "--players", "2"], "different character"),
        (&["take-the-kingdom", "--characters", "everyone"], "game, random, sweep or fixed"),
        (&["kingdoms-in-conflict", "--characters", "random"], "has no characters"),
        (&["take-the-kingdom", "--confidence", "2"], "--confidence 2"),
    ];
    for (args, want) in cases {
        let (code, _, err) = sim(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn two_shards_merged_equal_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let common = ["take-the-kingdom", "--games", "13", "--players", "3", "--seed", "21", "--seat-order", "random"];
    let whole = sim_json(&common);
    let mut files = Vec::new();
    for (i, threads) in [(0, "1"), (1, "2")] {
        let f = dir.path().join(format!("s{i}.json"));
        let shard = format!("{i}/2");
        let mut a = common.to_vec();
        a.extend(["--shard", &shard, "--threads", threads, "--out", f.to_str().unwrap()]);
        let (code, _, err) = sim(&a);
        assert_eq!(code, 0, "{err}");
        files.push(f.to_string_lossy().to_string());
    }
    let (code, out, err) = sim(&["merge", &files[1], &files[0], "--json"]);
    assert_eq!(code, 0, "{err}");
    let (_, one, _) = sim(&[&common[..], &["--json"]].concat());
    assert_eq!(out, one, "the merged JSON is byte for byte the unsharded run's");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), whole);
    // Missing or doubled shards are refused.
    let (code, _, err) = sim(&["merge", &files[0]]);
    assert_eq!(code, 2);
    assert!(err.contains("missing game ranges: 6..13"), "{err}");
    let (code, _, err) = sim(&["merge", &files[0], &files[0], &files[1]]);
    assert_eq!(code, 2);
    assert!(err.contains("s0.json is given twice"), "{err}");
    let copy = dir.path().join("copy.json");
    std::fs::copy(&files[0], &copy).unwrap();
    let (code, _, err) = sim(&["merge", &files[0], copy.to_str().unwrap(), &files[1]]);
    assert_eq!(code, 2);
    assert!(err.contains("both hold games"), "{err}");
    // A shard of another run is refused.
    let other = dir.path().join("other.json");
    let (code, _, err) = sim(&[
        "take-the-kingdom",
        "--games",
        "13",
        "--players",
        "3",
        "--seed",
        "22",
        "--shard",
        "1/2",
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = sim(&["merge", &files[0], other.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("different runs"), "{err}");
    for (args, want) in [
        (vec!["take-the-kingdom", "--shard", "3/2", "--out", "x.json"], "shard index 3 is not below the shard count 2"),
        (vec!["take-the-kingdom", "--shard", "1/2"], "needs --out"),
        (vec!["take-the-kingdom", "--games", "1", "--shard", "0/2", "--out", "x.json"], "empty"),
    ] {
        let (code, _, err) = sim(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn compare_pairs_the_same_games() {
    // The same content on both sides (a git revision, or the project folder itself): the
    // paired games are identical, so every difference is exactly 0 and none is real.
    let head = std::process::Command::new("git").args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"]).output();
    let mut others = vec![repo_project().root.to_string_lossy().to_string()];
    let pack_unchanged = std::process::Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "diff",
            "--quiet",
            "HEAD",
            "--",
            "../content/the-last-kingdom",
            "../scripts/the-last-kingdom",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if head.as_ref().is_ok_and(|o| o.status.success()) && pack_unchanged {
        others.push("HEAD".into());
    }
    for other in &others {
        let v = sim_json(&["the-last-kingdom", "--games", "6", "--players", "3", "--compare", other]);
        let c = &v["compare"];
        assert!(c["other"].as_str().unwrap().starts_with(other.as_str()), "{}", c["other"]);
        assert_eq!(c["games"], 6);
        for row in c["outcomes"].as_array().unwrap().iter().chain(c["seats"].as_array().unwrap()) {
            assert_eq!(row["difference"]["value"], 0.0, "{other}: {row}");
            assert_eq!(row["difference"]["real"], false, "{other}: {row}");
        }
        assert_eq!(c["length"]["value"], 0.0);
        let scores = c["scores"].as_array().unwrap();
        assert_eq!(scores.len(), 3);
        for s in scores {
            assert_eq!(s["difference"]["value"], 0.0, "{other}: {s}");
            assert_eq!(s["this"], s["other"], "{other}: {s}");
            assert_eq!(s["games"], 6);
        }
        assert_eq!(c["other_summary"]["outcomes"], v["outcomes"]);
    }
}

#[test]
fn compare_agents_plays_the_same_games_with_other_bots() {
    // The same bots on both sides: the very same games, every difference 0.
    let v = sim_json(&[
        "take-the-kingdom",
        "--games",
        "4",
        "--players",
        "2",
        "--agents",
        "random",
        "--compare-agents",
        "random",
    ]);
    let c = &v["compare"];
    assert_eq!(c["other"], "this project with agents random,random");
    assert_eq!(c["length"]["value"], 0.0, "{c}");
    assert_eq!(c["other_summary"]["outcomes"], v["outcomes"]);
    // Greedy against random, seat by seat, on the same seeds: the other side's summary
    // names its own agents, and each seat's score difference is paired.
    let v = sim_json(&[
        "take-the-kingdom",
        "--games",
        "6",
        "--players",
        "2",
        "--agents",
        "greedy",
        "--compare-agents",
        "random",
    ]);
    let c = &v["compare"];
    assert_eq!(v["agents"], serde_json::json!(["greedy", "greedy"]));
    assert_eq!(c["other_summary"]["agents"], serde_json::json!(["random", "random"]));
    assert_eq!(c["scores"].as_array().unwrap().len(), 2);
    assert_eq!(c["games"], 6);
    // A bad agent list is refused before any game is played.
    let (code, _, err) = sim(&["take-the-kingdom", "--games", "2", "--compare-agents", "grredy"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--compare-agents"), "{err}");
}

#[test]
fn a_changed_value_shows_as_a_real_difference() {
    // Six times the Pikemen (30 instead of 5): games get much longer; compared with the
    // unchanged project on the same seeds, the length difference is real.
    let root = repo_project().root.to_string_lossy().to_string();
    let v = sim_json(&[
        "take-the-kingdom",
        "--games",
        "16",
        "--players",
        "4",
        "--set",
        "card.pikemen.count=30",
        "--compare",
        &root,
    ]);
    assert_eq!(v["overrides"][0], "card.pikemen.count=30");
    let d = &v["compare"]["length"];
    assert!(d["value"].as_f64().unwrap() > 5.0 && d["real"] == true, "{d}");
    // Each seat's score, paired game by game: the difference is the difference of the means.
    for s in v["compare"]["scores"].as_array().unwrap() {
        let (this, other) = (s["this"].as_f64().unwrap(), s["other"].as_f64().unwrap());
        assert!((s["difference"]["value"].as_f64().unwrap() - (this - other)).abs() < 1e-3, "{s}");
    }
    assert!(v["compare"]["other_summary"]["overrides"].as_array().unwrap().is_empty());
    // A sweep: one run per value, the changed value's run equal to a plain --set run.
    let s =
        sim_json(&["take-the-kingdom", "--games", "6", "--players", "2", "--set", "card.pikemen.values.attack=1..3"]);
    assert_eq!(s["sweep"], "card.pikemen.values.attack");
    let runs = s["runs"].as_array().unwrap();
    assert_eq!(runs.iter().map(|r| r["value"].as_str().unwrap()).collect::<Vec<_>>(), ["1", "2", "3"]);
    let two =
        sim_json(&["take-the-kingdom", "--games", "6", "--players", "2", "--set", "card.pikemen.values.attack=2"]);
    assert_eq!(runs[1]["summary"], two);
    let (code, out, _) =
        sim(&["take-the-kingdom", "--games", "4", "--players", "2", "--set", "card.pikemen.values.attack=1..2"]);
    assert_eq!(code, 0);
    assert!(out.contains("pikemen IWP") && out.lines().count() >= 4, "{out}");
    // Errors name the nearest id or key.
    for (set, want) in [
        ("card.pikeman.values.attack=3", "no card `pikeman`; did you mean `pikemen`?"),
        ("card.pikemen.values.atack=3", "`pikemen` has no values key `atack`; did you mean `attack`?"),
        ("crad.pikemen.values.attack=3", "no kind `crad`; did you mean `card`?"),
        ("card.pikemen.values.attack=x", "is not a whole number"),
        ("card.pikemen.values.attack=3..1", "A <= B"),
    ] {
        let (code, _, err) = sim(&["take-the-kingdom", "--games", "4", "--set", set]);
        assert_eq!(code, 2, "{set}");
        assert!(err.contains(want), "{set}: {err}");
    }
    let (code, _, err) = sim(&["take-the-kingdom", "--games", "4", "--compare", "no-such-revision-or-folder"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a folder, and not a revision"), "{err}");
    let (code, _, err) =
        sim(&["take-the-kingdom", "--set", "card.pikemen.values.attack=1..3", "--shard", "0/2", "--out", "x.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be sharded"), "{err}");
}

#[test]
fn compared_shards_merge_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo_project().root.to_string_lossy().to_string();
    let changed =
        ["take-the-kingdom", "--games", "9", "--players", "2", "--set", "card.pikemen.count=12", "--compare", &root];
    let other_bots =
        ["take-the-kingdom", "--games", "9", "--players", "2", "--agents", "greedy", "--compare-agents", "random"];
    for (k, common) in [&changed[..], &other_bots[..]].into_iter().enumerate() {
        let (_, one, err) = sim(&[common, &["--json"]].concat());
        assert!(one.contains("\"compare\""), "{err}");
        let mut files = Vec::new();
        for i in 0..3 {
            let f = dir.path().join(format!("c{k}-{i}.json")).to_string_lossy().to_string();
            let shard = format!("{i}/3");
            let (code, _, err) = sim(&[common, &["--shard", &shard, "--out", &f]].concat());
            assert_eq!(code, 0, "{err}");
            files.push(f);
        }
        let (code, merged, err) = sim(&["merge", &files[2], &files[0], &files[1], "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(merged, one, "{common:?}");
    }
}

#[test]
fn the_report_renders_in_chromium() {
    use crate::serve::Browser;
    let dir = tempfile::tempdir().unwrap();
    let root = repo_project().root.to_string_lossy().to_string();
    let page = dir.path().join("report.html");
    let (code, _, err) = sim(&[
        "take-the-kingdom",
        "--games",
        "12",
        "--players",
        "4",
        "--agents",
        "greedy,random",
        "--seat-order",
        "rotate",
        "--set",
        "card.pikemen.count=8",
        "--compare",
        &root,
        "--report",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("<script") && !html.contains("<link") && !html.contains("src="),
        "self-contained, no script"
    );
    let browser = Browser::start();
    let mut cdp = browser.page();
    cdp.call("Runtime.enable", serde_json::json!({}));
    cdp.call("Log.enable", serde_json::json!({}));
    cdp.call("Page.enable", serde_json::json!({}));
    cdp.call("Page.navigate", serde_json::json!({ "url": format!("file://{}", page.display()) }));
    cdp.wait_for(
        "document.readyState === 'complete' && document.querySelectorAll('svg.chart').length > 0",
        std::time::Duration::from_secs(20),
    );
    let ids = cdp.eval("Array.from(document.querySelectorAll('svg.chart')).map(s => s.id).join(',')");
    for id in ["outcomes", "seats", "agents", "characters", "lengths", "cards", "compare", "compare-length"] {
        assert!(ids.as_str().unwrap().split(',').any(|x| x == id), "chart {id} missing: {ids}");
    }
    // Each chart is laid out (has a size) and the interval chart has one bar and one
    // interval line per row: 4 seats + shared, no winner, turn limit, failed.
    assert_eq!(cdp.eval("Array.from(document.querySelectorAll('svg.chart')).every(s => s.getBoundingClientRect().width > 100 && s.getBoundingClientRect().height > 5)"), Value::Bool(true));
    assert_eq!(cdp.eval("document.querySelectorAll('#outcomes .bar').length"), serde_json::json!(8));
    assert_eq!(cdp.eval("document.querySelectorAll('#outcomes .ci').length"), serde_json::json!(8));
    assert_eq!(cdp.eval("document.querySelectorAll('#agents .row').length"), serde_json::json!(2));
    let text = cdp.eval("document.body.innerText");
    assert!(text.as_str().unwrap().contains("Compared with"), "{text}");
    cdp.eval("1");
    let bad: Vec<&Value> = cdp
        .events
        .iter()
        .filter(|e| {
            e["method"] == "Runtime.exceptionThrown"
                || (e["method"] == "Runtime.consoleAPICalled" && e["params"]["type"] == "error")
                || (e["method"] == "Log.entryAdded" && e["params"]["entry"]["level"] == "error")
        })
        .collect();
    assert!(bad.is_empty(), "console errors: {bad:?}");
}

/// Every command that prints JSON takes `--format json`; `--json` is the same.
#[test]
fn format_json_is_the_same_as_json() {
    let args = ["take-the-kingdom", "--games", "4", "--players", "2", "--seed", "5"];
    let (code, long, err) = sim(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let (_, short, _) = sim(&[&args[..], &["--json"]].concat());
    assert_eq!(long, short);
    assert!(serde_json::from_str::<Value>(&long).is_ok(), "{long}");
    let (_, human, _) = sim(&args);
    assert!(serde_json::from_str::<Value>(&human).is_err(), "the default is for people: {human}");
    for command in ["sim", "check", "bench", "profile"] {
        let o = std::process::Command::new(crown_bin()).args([command, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(help.contains("--format <FORMAT>") && help.contains("--json"), "crown {command} --help:\n{help}");
    }
}

/// `--transcripts DIR` keeps each game as its transcript and the game file that replays
/// it (`crown test FILE` passes on it); `--every K` keeps games 0, K, 2K...
#[test]
fn transcripts_are_kept_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_string_lossy().to_string();
    let (code, _, err) = sim(&["take-the-kingdom", "--games", "20", "--seed", "4", "--transcripts", &d]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 20 games to"), "{err}");
    for i in 0..20 {
        for ext in ["transcript", "game.toml"] {
            let f = dir.path().join(format!("take-the-kingdom-{i}.{ext}"));
            assert!(f.is_file(), "{} is missing", f.display());
        }
    }
    let root = repo_project().root.to_string_lossy().to_string();
    for i in [0, 13] {
        let f = dir.path().join(format!("take-the-kingdom-{i}.game.toml"));
        let o = std::process::Command::new(crown_bin())
            .args(["--project", &root, "test"])
            .arg(&f)
            .output()
            .expect("crown runs");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success() && out.contains("1 game in") && out.contains("1 unchanged"), "{out}");
    }

    let every = tempfile::tempdir().unwrap();
    let e = every.path().to_string_lossy().to_string();
    let (code, _, err) = sim(&["take-the-kingdom", "--games", "10", "--transcripts", &e, "--every", "4"]);
    assert_eq!(code, 0, "{err}");
    let mut kept: Vec<String> = std::fs::read_dir(every.path())
        .unwrap()
        .map(|x| x.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".transcript"))
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        ["take-the-kingdom-0.transcript", "take-the-kingdom-4.transcript", "take-the-kingdom-8.transcript"]
    );

    let (code, _, err) = sim(&["take-the-kingdom", "--games", "2", "--transcripts", &e, "--characters", "random"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--characters game"), "{err}");

    // Only the games seat 2 won: as many as the summary counts, each one a win of seat 2.
    let only = tempfile::tempdir().unwrap();
    let o = only.path().to_string_lossy().to_string();
    let (code, out, err) =
        sim(&["take-the-kingdom", "--games", "20", "--seed", "4", "--transcripts", &o, "--only", "seat-2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let won = v["seats"][1]["wins"].as_u64().unwrap();
    assert!(won > 0, "{v}");
    assert!(err.contains(&format!("wrote {won} game")) && err.contains("won by seat 2"), "{err}");
    let games: Vec<_> = std::fs::read_dir(only.path())
        .unwrap()
        .map(|x| x.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".game.toml"))
        .collect();
    assert_eq!(games.len() as u64, won);
    for g in &games {
        let t = std::fs::read_to_string(g.with_extension("").with_extension("transcript")).unwrap();
        let won =
            |l: &str| l.starts_with("# result ") && l.split("; ").any(|x| x.starts_with("winners") && x.contains("P2"));
        assert!(t.lines().any(won), "{}: {t}", g.display());
    }
    let (code, _, err) = sim(&["take-the-kingdom", "--games", "2", "--transcripts", &o, "--only", "seat-9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no seat 9"), "{err}");
}

/// `--invariants` checks the pack's own invariants in every game and says what they cost;
/// every shipped pack states at least three, counting pack.toml's counter ranges (which
/// the engine keeps at every change) as one.
#[test]
fn invariants_are_checked_in_a_simulation() {
    for pack in ["take-the-kingdom", "the-last-kingdom", "kingdoms-in-conflict", "kingdom-legacy", "crownfields"] {
        let games = if pack == "kingdom-legacy" { "2" } else { "6" };
        let (code, _, err) = sim(&[pack, "--games", games, "--invariants"]);
        assert_eq!(code, 0, "{pack}: {err}");
        let line = err.lines().find(|l| l.starts_with("invariants (")).unwrap_or_else(|| panic!("{pack}: {err}"));
        let ranges = usize::from(line.contains("and the ranges of "));
        assert!(line.matches("invariant_").count() + ranges >= 3, "{pack} states fewer than three invariants: {line}");
        assert!(line.contains(" s of the run's "), "{line}");
    }
}

/// `--audit-peeking`: the shipped greedy bot of Take the Kingdom passes; a copy whose
/// greedy bot reads the next seat's hand is caught, with a decision that shows it.
#[test]
fn a_bot_that_peeks_is_caught() {
    let (code, out, err) =
        sim(&["take-the-kingdom", "--games", "2", "--agents", "greedy", "--audit-peeking", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("peeking audit: `greedy` passed"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["peeking"]["bots"]["greedy"]["passed"], Value::Bool(true), "{}", v["peeking"]);

    let dir = crate::common::project_copy(&["content/take-the-kingdom", "scripts/take-the-kingdom"]);
    std::fs::write(
        dir.path().join("scripts/take-the-kingdom/bots.rhai"),
        "// Reads the next seat's hand: what a fair bot may not do.\n\
         fn greedy_score(p, prompt, o) {\n    \
             let seen = 0;\n    \
             for c in cards(pzone((p + 1) % players(), \"hand\")) { seen += name_of(c).len(); }\n    \
             (seen * 31 + o.label.len() * 17) % 13\n\
         }\n",
    )
    .unwrap();
    let o = std::process::Command::new(crown_bin())
        .args(["--project", &dir.path().to_string_lossy()])
        .args(["sim", "take-the-kingdom", "--games", "2", "--agents", "greedy", "--audit-peeking"])
        .output()
        .expect("crown runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("peeking audit: `greedy` reads hidden cards"), "{err}");
    assert!(err.contains("once hidden cards are dealt again"), "{err}");
}

/// A shard played on edited content is refused by the merge, naming it; half the shards
/// merged with `--partial` merge again with the other half into the whole run.
#[test]
fn merges_refuse_other_content_and_partial_merges_merge_again() {
    let dir = tempfile::tempdir().unwrap();
    let common = ["take-the-kingdom", "--games", "12", "--players", "3", "--seed", "5"];
    let shard = |i: u64, project: Option<&std::path::Path>| {
        let f = dir.path().join(format!("{}s{i}.json", if project.is_some() { "edited-" } else { "" }));
        let s = format!("{i}/4");
        let mut a = common.to_vec();
        a.extend(["--shard", &s, "--out", f.to_str().unwrap()]);
        let (code, err) = match project {
            None => {
                let (code, _, err) = sim(&a);
                (code, err)
            }
            Some(p) => {
                let o = std::process::Command::new(crate::common::crown_bin())
                    .args(["--project", p.to_str().unwrap(), "sim"])
                    .args(&a)
                    .output()
                    .unwrap();
                (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).to_string())
            }
        };
        assert_eq!(code, 0, "{err}");
        f.to_string_lossy().to_string()
    };
    let files: Vec<String> = (0..4).map(|i| shard(i, None)).collect();
    let edited = crate::common::project_copy(&["content/take-the-kingdom", "scripts/take-the-kingdom"]);
    crate::common::edit_after(
        &edited.path().join("content/take-the-kingdom/cards/attack.toml"),
        &["id = \"soldiers\""],
        "attack = 2",
        "attack = 3",
    );
    let odd = shard(2, Some(edited.path()));
    let (code, _, err) = sim(&["merge", &files[0], &files[1], &odd, &files[3]]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{odd} is not from the run the other 3 files are from (content")), "{err}");
    // Half, then the rest.
    let half = dir.path().join("half.json");
    let (code, out, err) =
        sim(&["merge", "--partial", &files[0], &files[2], "--out", half.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("partial: these figures cover 6 of the run's 12 games; missing game ranges: 3..6, 9..12"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["partial"], serde_json::json!({ "covered": 6, "of": 12, "missing": [[3, 6], [9, 12]] }));
    let (code, out, err) = sim(&["merge", &files[3], half.to_str().unwrap(), &files[1], "--json"]);
    assert_eq!(code, 0, "{err}");
    let (_, one, _) = sim(&[&common[..], &["--json"]].concat());
    assert_eq!(out, one, "half merged with the rest is byte for byte the unsharded run's");
}

/// `--format json` is what docs/schema/sim-summary.schema.json says, for every kind of
/// run: cards and characters, rounds, a comparison, a sweep, timing, a partial merge.
#[test]
fn sim_json_follows_its_schema() {
    let root = repo_project().root;
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("docs/schema/sim-summary.schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let runs: [&[&str]; 6] = [
        &["take-the-kingdom", "--games", "8", "--players", "3"],
        &["oh-hell", "--games", "4", "--agents", "random"],
        &["kingdoms-in-conflict", "--games", "3", "--agents", "random", "--timing"],
        &["take-the-kingdom", "--games", "4", "--compare", root.to_str().unwrap()],
        &["take-the-kingdom", "--games", "3", "--set", "card.soldiers.values.attack=1..2"],
        &["the-last-kingdom", "--games", "2", "--agents", "random", "--audit-peeking"],
    ];
    for args in runs {
        let v = sim_json(args);
        let problems: Vec<String> = validator
            .iter_errors(&v)
            .map(|e| format!("{} at {}", e.to_string().chars().take(300).collect::<String>(), e.instance_path()))
            .collect();
        assert!(problems.is_empty(), "crown sim {args:?}:\n{}", problems.join("\n"));
    }
}

/// `crown bench --only bots` on a project of one pack: greedy against random on the same
/// seeds, and the greedy games replayed from their picks, each figure under its key.
#[test]
fn bench_bots_splits_deciding_from_the_games() {
    let dir = crate::common::project_copy(&["content/crownfields", "scripts/crownfields"]);
    let o = std::process::Command::new(crown_bin())
        .args(["--project", &dir.path().to_string_lossy(), "bench", "--only", "bots", "--quick", "--format", "json"])
        .output()
        .unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success() && err.is_empty(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let f = |k: &str| v[format!("crownfields_{k}")].as_f64().unwrap_or_else(|| panic!("no {k} in {out}"));
    for k in
        ["random_bots_gps_1t", "greedy_bots_gps_1t", "greedy_replayed_gps_1t", "bots_ratio", "bots_free_deciding_ratio"]
    {
        assert!(f(k) > 0.0, "{k}: {out}");
    }
    let share = f("bots_deciding_share");
    assert!((0.0..1.0).contains(&share), "{out}");
    // Crownfields' games last 24 turns whoever plays: turns a second compare as games do.
    assert_eq!(f("bots_turn_ratio"), f("bots_ratio"), "{out}");
    assert_eq!(v.as_object().unwrap().len(), 7, "one pack's figures and no other: {out}");
}
