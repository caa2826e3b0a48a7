//! The compiled tier against Rhai's interpreter on the shipped packs: the same simulation
//! summaries byte for byte (random and greedy bots, seeds of their own), and every function
//! of every shipped script compiled (so the comparison is not between two interpreters).
//! Golden games replay under both in `tests/golden.rs`; generated programs are compared in
//! the engine's `script/compiled/tests.rs` and by `cargo xtask fuzz`; `cargo xtask
//! differential` plays 1,000 games a pack this way.

use crate::common::{crown_bin, load_pack, repo_project};

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
    let runs: [(&str, &[&str]); 6] = [
        ("take-the-kingdom", &["--games", "60", "--players", "4", "--seed", "11"]),
        ("take-the-kingdom", &["--games", "12", "--players", "2", "--agents", "greedy", "--seed", "12"]),
        ("the-last-kingdom", &["--games", "40", "--players", "3", "--agents", "greedy,random", "--seed", "13"]),
        ("kingdoms-in-conflict", &["--games", "30", "--agents", "greedy,random", "--seed", "14"]),
        ("kingdom-legacy", &["--games", "3", "--agents", "greedy", "--seed", "15"]),
        ("kingdom-legacy-saltroad", &["--games", "3", "--seed", "16"]),
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
    for pack in
        ["take-the-kingdom", "the-last-kingdom", "kingdoms-in-conflict", "kingdom-legacy", "kingdom-legacy-saltroad"]
    {
        let p = load_pack(&project, pack).unwrap_or_else(|e| panic!("{pack}: {e}"));
        for s in &p.scripts {
            for (f, why) in crown_engine::script::compiled::not_compiled(&s.ast) {
                left.push(format!("{}: `{f}`: {why}", s.path.display()));
            }
        }
    }
    left.sort();
    left.dedup();
    assert!(left.is_empty(), "functions left to the interpreter:\n{}", left.join("\n"));
}
