//! The script profiler (`crown profile`): where time is charged, and that profiling a game
//! never changes how it plays.

use crate::common::{crown, crown_bin, load_pack, project_copy, repo_project};
use crown_engine::game::rng::derive_seed;
use crown_engine::game::{Game, GameConfig, Outcome};
use crown_engine::script::profile::{self, BUILT_IN};

fn play(pack: &std::sync::Arc<crown_engine::content::Pack>, games: u64) -> Vec<Outcome> {
    let kinds = vec!["random".to_string(); 4];
    (0..games)
        .map(|i| {
            let seed = derive_seed(11, i);
            let mut cfg = GameConfig::new(seed, 4);
            cfg.transcript = false;
            let game = Game::new(pack.clone(), cfg, crown_tools::seats::bots(&kinds, seed)).unwrap();
            game.run().1
        })
        .collect()
}

#[test]
fn profiled_games_play_the_same_and_time_goes_to_the_defining_script() {
    let pack = load_pack(&repo_project(), "take-the-kingdom").unwrap();
    let plain = play(&pack, 4);
    profile::start(&pack);
    let profiled = play(&pack, 4);
    let report = profile::finish(&pack);
    assert!(!profile::active());
    for (a, b) in plain.iter().zip(&profiled) {
        assert_eq!(
            (&a.status, &a.winners, &a.scores, a.turns, &a.plays),
            (&b.status, &b.winners, &b.scores, b.turns, &b.plays)
        );
    }
    let turns: u64 = plain.iter().map(|o| o.turns).sum();
    let row = |script: &str, name: &str| {
        report
            .functions
            .iter()
            .find(|f| f.script.ends_with(script) && f.name == name)
            .unwrap_or_else(|| panic!("no row for {script} {name}"))
    };
    // `turn` is called by the engine once a turn and everything else runs inside it.
    let turn = row("take-the-kingdom/rules.rhai", "turn");
    assert_eq!(turn.calls, turns);
    assert!(turn.incl_ns * 10 >= report.total_ns * 8, "turn holds most of the time");
    assert!(turn.line > 0);
    // A rules helper called from card scripts is the rules script's; a card's hook is the
    // card's; Crown's functions count for the line that calls them (every function of the
    // pack runs compiled, and the profile times the compiled code).
    let make_attack = row("take-the-kingdom/rules.rhai", "make_attack");
    assert!(make_attack.calls > 0);
    assert!(!report.functions.iter().any(|f| f.name == "make_attack" && f.script.contains("/cards/")));
    assert!(row("take-the-kingdom/cards/attack.rhai", "can_play").calls > 0);
    assert!(report.functions.iter().all(|f| f.script != BUILT_IN), "no function ran on the interpreter");
    for f in &report.functions {
        assert!(f.incl_ns >= f.self_ns, "{} {}", f.script, f.name);
    }
    assert_eq!(report.total_ns, report.functions.iter().map(|f| f.self_ns).sum::<u64>());
    // Lines carry their text, and their time adds up to at most the total.
    let top = &report.lines[0];
    assert!(top.line > 0 && !top.text.is_empty() && top.script.ends_with(".rhai"));
    assert!(report.lines.iter().map(|l| l.self_ns).sum::<u64>() <= report.total_ns);
    assert!(report.lines.iter().all(|l| l.script != BUILT_IN));
}

#[test]
fn crown_profile_runs_on_every_shipped_pack() {
    let root = repo_project().root.display().to_string();
    for pack in ["take-the-kingdom", "the-last-kingdom", "kingdoms-in-conflict", "kingdom-legacy", "crownfields"] {
        let games = if pack == "kingdom-legacy" { "1" } else { "3" };
        assert_eq!(crown(&["--project", &root, "profile", pack, "--games", games, "--top", "3"]), 0, "{pack}");
    }
    assert_eq!(crown(&["--project", &root, "profile", "take-the-kingdom", "--games", "2", "--json"]), 0);
    assert_eq!(crown(&["--project", &root, "profile", "no-such-pack"]), 2);
}

#[test]
fn the_profile_says_which_runtime_ran_the_scripts() {
    let root = repo_project().root.display().to_string();
    let said = |runtime: &str, json: bool| {
        let mut args =
            vec!["--project", &root, "--runtime", runtime, "profile", "oh-hell", "--games", "1", "--top", "1"];
        if json {
            args.push("--json");
        }
        let out = std::process::Command::new(crown_bin()).args(&args).output().expect("crown runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("text")
    };
    let line = |text: String| text.lines().last().unwrap_or_default().to_string();
    assert_eq!(line(said("rhai", false)), "Every script function ran on Rhai's interpreter (`--runtime rhai`).");
    assert_eq!(line(said("compiled", false)), "Every script function runs compiled (`--runtime compiled`).");
    for runtime in ["rhai", "compiled"] {
        let v: serde_json::Value = serde_json::from_str(&said(runtime, true)).expect("JSON");
        assert_eq!(v["runtime"], runtime);
    }
}

/// The benchmark suite's step count (`cargo xtask bench`; `cargo xtask test` builds the suite).
#[cfg(feature = "bench-suite")]
#[test]
fn step_counts_do_not_depend_on_the_run() {
    let project = repo_project();
    let a = crown_tools::bench::suite::ttk_steps_per_game(&project, 3).unwrap();
    let b = crown_tools::bench::suite::ttk_steps_per_game(&project, 3).unwrap();
    assert_eq!(a, b);
    assert!(a > 1000.0, "{a}");
}

#[test]
fn the_interpreter_costs_are_measured() {
    let costs = crown_tools::bench::rhai_costs().unwrap();
    let keys: Vec<&str> = costs.iter().map(|(k, _, _)| *k).collect();
    assert_eq!(
        keys,
        ["rhai_loop_step_ns", "rhai_host_call_ns", "rhai_engine_call_ns", "rhai_script_call_ns", "rhai_option_map_ns"]
    );
    assert!(costs.iter().all(|(_, _, ns)| ns.is_finite()), "{costs:?}");
    assert!(costs[0].2 > 0.0);
}

#[test]
fn a_closure_is_profiled_compiled_at_its_line() {
    // Oh Hell sorts each hand with a closure comparator: the profile names it by its line.
    let pack = load_pack(&repo_project(), "oh-hell").unwrap();
    profile::start(&pack);
    let _ = play(&pack, 2);
    let report = profile::finish(&pack);
    let text = std::fs::read_to_string(repo_project().root.join("scripts/oh-hell/rules.rhai")).unwrap();
    let line = text.lines().position(|l| l.contains(".sort(|x, y|")).expect("the sort") + 1;
    let closure = report
        .functions
        .iter()
        .find(|f| f.name == profile::CLOSURE && f.line == line)
        .unwrap_or_else(|| panic!("no row for the closure at line {line}: {:?}", report.functions));
    assert!(closure.script.ends_with("oh-hell/rules.rhai") && closure.calls > 0, "{closure:?}");
    assert!(report.functions.iter().all(|f| !f.name.starts_with("anon$")));
    assert!(crown_engine::script::compiled::not_compiled(&pack.scripts[pack.rules.unwrap()].ast).is_empty());
}

/// A function the compiled runtime leaves to the interpreter (here one using `try`), and
/// the function calling it, are named with their script's file and line and the reason;
/// a `for` loop over `range` with a step runs compiled.
#[test]
fn the_profile_names_what_runs_on_the_interpreter_at_its_line() {
    let dir = project_copy(&["content/oh-hell", "scripts/oh-hell"]);
    let rules = dir.path().join("scripts/oh-hell/rules.rhai");
    let text = std::fs::read_to_string(&rules).unwrap();
    let text = text.replacen("fn turn() {\n", "fn turn() {\n    let checked = guarded(2) + stepped(6);\n", 1);
    let text = text
        + "\nfn guarded(n) {\n    let r = 0;\n    try { r = n; } catch (e) { r = -1; }\n    r\n}\n\nfn stepped(n) {\n    let k = 0;\n    for i in range(0, n, 2) { k += i; }\n    k\n}\n";
    std::fs::write(&rules, &text).unwrap();
    let line = |head: &str| text.lines().position(|l| l.starts_with(head)).expect(head) + 1;
    let root = dir.path().display().to_string();
    let out = std::process::Command::new(crown_bin())
        .args(["--project", &root, "profile", "oh-hell", "--games", "1", "--top", "1"])
        .output()
        .expect("crown runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8(out.stdout).unwrap();
    let tail: Vec<&str> =
        said.lines().skip_while(|l| !l.starts_with("Script functions the compiled runtime")).collect();
    let mut listed = tail[1..].to_vec();
    listed.sort_unstable();
    assert_eq!(
        listed,
        [
            format!("  guarded  scripts/oh-hell/rules.rhai:{}: try/catch", line("fn guarded(")),
            format!(
                "  turn  scripts/oh-hell/rules.rhai:{}: calls `guarded`, which runs on the interpreter",
                line("fn turn(")
            ),
        ],
        "{said}"
    );
}
