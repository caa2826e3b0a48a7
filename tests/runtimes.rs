//! The compiled tier against Rhai's interpreter on the shipped packs: the same simulation
//! summaries byte for byte (random and greedy bots, seeds of their own), and every function
//! of every shipped script compiled (so the comparison is not between two interpreters).
//! Golden games replay under both in `tests/golden.rs`; generated programs are compared in
//! the engine's `script/compiled/tests.rs` and by `cargo xtask fuzz`; `cargo xtask
//! differential` plays 1,000 games a pack this way.

use std::path::{Path, PathBuf};

use crate::common::{copy_dir, crown_bin, load_pack, repo_project};

/// `crown --runtime RUNTIME sim ARGS --json`: its output, which must come.
fn sim_on(runtime: &str, args: &[&str]) -> String {
    let root = repo_project().root.to_string_lossy().to_string();
    let o = std::process::Command::new(crown_bin())
        .args(["--project", &root, "--runtime", runtime, "sim", "--json", "--threads", "2"])
        .args(args)
        .output()
        .expect("crown runs");
    assert!(o.status.success(), "crown --runtime {runtime} sim {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("utf-8")
}

#[test]
fn simulations_agree_under_both_runtimes() {
    let runs: [(&str, &[&str]); 9] = [
        ("take-the-kingdom", &["--games", "60", "--players", "4", "--seed", "11"]),
        ("take-the-kingdom", &["--games", "12", "--players", "2", "--agents", "greedy", "--seed", "12"]),
        ("the-last-kingdom", &["--games", "40", "--players", "3", "--agents", "greedy,random", "--seed", "13"]),
        ("kingdoms-in-conflict", &["--games", "30", "--agents", "greedy,random", "--seed", "14"]),
        ("kingdom-legacy", &["--games", "3", "--agents", "greedy", "--seed", "15"]),
        ("kingdom-legacy-saltroad", &["--games", "3", "--seed", "16"]),
        ("crownfields", &["--games", "8", "--players", "3", "--agents", "greedy,random", "--seed", "17"]),
        ("oh-hell", &["--games", "6", "--players", "4", "--agents", "random", "--seed", "18"]),
        ("oh-hell", &["--games", "4", "--players", "3", "--agents", "greedy", "--seed", "19"]),
    ];
    for (pack, args) in runs {
        let mut a = vec![pack];
        a.extend_from_slice(args);
        let compiled = sim_on("compiled", &a);
        let rhai = sim_on("rhai", &a);
        if compiled != rhai {
            let at = compiled.lines().zip(rhai.lines()).position(|(x, y)| x != y).unwrap_or(0);
            panic!(
                "crown sim {a:?} differs between the runtimes from line {}:\ncompiled: {:?}\nrhai:     {:?}",
                at + 1,
                compiled.lines().nth(at),
                rhai.lines().nth(at)
            );
        }
    }
}

/// Every function of every shipped script runs on the compiled tier: one that falls back
/// to the interpreter is named here with the reason (`crown profile` says the same).
#[test]
fn every_shipped_function_is_compiled() {
    let project = repo_project();
    let mut left = Vec::new();
    for pack in crate::common::SHIPPED_PACKS {
        let p = load_pack(&project, pack).unwrap_or_else(|e| panic!("{pack}: {e}"));
        for s in &p.scripts {
            for f in crown_engine::script::compiled::not_compiled(&s.ast) {
                left.push(format!("{}: `{}`: {}", s.path.display(), f.name, f.why));
            }
        }
    }
    left.sort();
    left.dedup();
    assert!(left.is_empty(), "functions left to the interpreter:\n{}", left.join("\n"));
}

/// A run's output with the numbers (timings, rates) written as `#` and the line of the
/// run's speed left out: what must be the same under both runtimes.
fn without_numbers(out: &std::process::Output) -> String {
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    text.lines()
        .filter(|l| !l.contains("games/s"))
        .map(|l| l.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect::<String>() + "\n")
        .collect()
}

/// `crown sim tiny --games 2 --agents first` on the project in `dir`, under `--runtime
/// compiled` and then `--runtime rhai`.
fn tiny_on_both_runtimes(dir: &Path) -> (std::process::Output, std::process::Output) {
    let run = |runtime: &str| {
        std::process::Command::new(crown_bin())
            .args(["--project", &dir.to_string_lossy(), "--runtime", runtime])
            .args(["sim", "tiny", "--games", "2", "--agents", "first"])
            .output()
            .expect("crown runs")
    };
    (run("compiled"), run("rhai"))
}

/// The hostile set's sandbox scripts (`tests/hostile/runtime-limit-*`: operations, call
/// depth, closures calling themselves, string, array, nested and map sizes, time), each
/// played under both runtimes by this build: each game fails at the same limit, with the
/// same message at the same place. `cargo xtask hostile runtime-` runs the same cases
/// against the release build, where each must also keep the time and memory bar.
#[test]
fn every_sandbox_limit_holds_alike_under_both_runtimes() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(repo.join("tests/hostile"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("runtime-limit-")))
        .collect();
    cases.sort();
    assert!(cases.len() >= 8, "{cases:?}");
    for case in &cases {
        let recipe: toml::Table = toml::from_str(&std::fs::read_to_string(case.join("case.toml")).unwrap()).unwrap();
        let expect: Vec<&str> = recipe
            .get("expect")
            .and_then(|e| e.as_array())
            .map_or(vec![], |a| a.iter().filter_map(|v| v.as_str()).collect());
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&repo.join("tests/invalid/_base/tiny"), dir.path()).unwrap();
        copy_dir(&case.join("scripts"), &dir.path().join("scripts")).unwrap();
        let (compiled, rhai) = tiny_on_both_runtimes(dir.path());
        let name = case.file_name().unwrap().to_string_lossy();
        assert_eq!((compiled.status.code(), rhai.status.code()), (Some(1), Some(1)), "{name}");
        let (c, r) = (without_numbers(&compiled), without_numbers(&rhai));
        assert_eq!(c, r, "{name}: the runtimes end differently");
        for e in expect {
            let e: String = e.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
            assert!(c.contains(&e), "{name}: no `{e}` in\n{c}");
        }
    }
}

/// A closure the engine calls back (a menu's label here; a placement rule goes the same
/// way) runs compiled under `--runtime compiled`, and must behave as on the interpreter:
/// the same labels, the same call depth left to it (a label recursing just short of the
/// limit, and just past it), the same errors at the same places, the same operation limit.
#[test]
fn a_closure_the_engine_calls_back_runs_alike_under_both_runtimes() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let rules = std::fs::read_to_string(repo.join("tests/invalid/_base/tiny/scripts/tiny/rules.rhai")).unwrap();
    let options = "    let options = [];\n    for c in cards(hand) {\n        options.push(#{ label: \"Play \" + name_of(c), card: c });\n    }\n";
    assert!(rules.contains(options), "the tiny pack's turn has changed: update this test");
    let mut labels: Vec<(String, String)> = (36..=50)
        .map(|depth| (format!("depth {depth}"), format!("|o| `Play ${{name_of(o.card)}} ${{down({depth})}}`")))
        .collect();
    labels.push(("a plain label".into(), "|o| `Play ${name_of(o.card)}`".into()));
    labels.push((
        "a label that throws".into(),
        "|o| { if o.card >= 0 { throw `no label for ${o.card}`; } \"x\" }".into(),
    ));
    labels.push(("a label with no body".into(), "|o| {}".into()));
    labels.push(("a label that never ends".into(), "|o| { let n = 0; loop { n += 1; } }".into()));
    let (mut passed, mut failed) = (0, 0);
    for (what, label) in &labels {
        let menu = format!("    let options = menu();\n    for c in cards(hand) {{\n        options.add_card(\"play\", c, {label});\n    }}\n");
        let text = rules.replace(options, &menu) + "\nfn down(n) { if n == 0 { \"\" } else { down(n - 1) } }\n";
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&repo.join("tests/invalid/_base/tiny"), dir.path()).unwrap();
        std::fs::write(dir.path().join("scripts/tiny/rules.rhai"), text).unwrap();
        let (compiled, rhai) = tiny_on_both_runtimes(dir.path());
        assert_eq!(compiled.status.code(), rhai.status.code(), "{what}: the runtimes end differently");
        assert_eq!(without_numbers(&compiled), without_numbers(&rhai), "{what}: the runtimes end differently");
        if compiled.status.success() {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    // The depths straddle the call-depth limit, so a level off by one would show.
    assert!(passed >= 2 && failed >= 4, "{passed} runs passed and {failed} failed");
}
