//! `cargo xtask hostile`: the independent hostile-input set, run against the release
//! binary.
//!
//! Every folder of `tests/hostile/` (except those starting with `_`) is one case: a
//! `case.toml` naming the command line, the files it lays out (copied, generated, linked),
//! the outputs the command may write and what a clean exit is. The runner builds
//! `crown` in release mode, lays out each case in a fresh temporary folder (a project, a
//! folder beside it with bait files, a home and a temporary folder of its own) and runs
//! the command with:
//!
//! - a 20 second limit (the command is killed past it);
//! - its peak resident memory held to 1 GiB: polled from `/proc/PID/status` while it
//!   runs, and exactly from `getrusage` once it has been waited for (the largest child so
//!   far, so a case that raises it owns it); a 6 GiB address-space limit (`RLIMIT_AS`)
//!   stops a runaway before it takes the machine's memory;
//!
//! and fails the case on a panic message or exit code 101, a signal (other than the stop
//! the runner sends a long-running command), a timeout, more than 1 GiB resident, an exit
//! code the case does not allow, a missing expected message, or any file created,
//! changed or deleted other than the case's named outputs: in the project, beside it, in
//! the home and temporary folders, in the case's own folder and (checked once around the
//! whole run) in the repository. See docs/hardening.md ("The hostile set").
//!
//! A case may ask to be run under each script runtime (`runtimes`): the runs must then
//! end alike. After the cases, the compiled runtime's differential fuzz target (the
//! engine's `fuzz_runtimes`, generated programs run under both runtimes) runs for ten
//! seconds under the same bar, as one more case.
//!
//! This file holds the command line and the run of the whole set; beside it: `case`
//! (reading `case.toml`), `layout` (laying a case out), `limits` (the limits and the
//! memory measures), `run` (running one case and its verdict), `http` (requests to a
//! server case), `watch` (file snapshots and their changes), `fuzz` (the fuzz target's
//! build and run) and `report` (the summary).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use self::case::Case;
use self::limits::children_max_rss;
use self::report::Outcome;
use self::run::run_case;
use self::watch::{diff, snapshot};

mod case;
mod fuzz;
mod http;
mod layout;
mod limits;
mod report;
mod run;
mod watch;

/// `cargo xtask hostile [--no-build] [--keep] [FILTER...]`.
pub fn main(args: &[String]) -> Result<bool, String> {
    let mut build = true;
    let mut keep = false;
    let mut filters = Vec::new();
    let mut fuzz_bin: Option<PathBuf> = None;
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--no-build" => build = false,
            "--keep" => keep = true,
            // Internal: the engine's test binary holding the runtimes' fuzz target.
            "--fuzz-bin" => fuzz_bin = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!(
                    "usage: cargo xtask hostile [--no-build] [--keep] [FILTER...]\n\
                     Build crown in release mode and run every case of tests/hostile/ (or those whose name \
                     contains a FILTER)\nunder a 20 s and 1 GiB limit, then the compiled runtime's fuzz target for ten \
                     seconds (`runtime-fuzz-compiled-against-rhai`, left out by a filter naming none of it).\n\
                     --keep leaves each case's folder in the temporary folder."
                );
                return Ok(true);
            }
            f if f.starts_with('-') => return Err(format!("unknown option `{f}` (see --help)")),
            f => filters.push(f.to_string()),
        }
    }
    let root = repo_root();
    let fuzz_selected = filters.is_empty() || filters.iter().any(|f| fuzz::NAME.contains(f.as_str()));
    if build {
        build_release(&root)?;
        if fuzz_selected {
            fuzz_bin = Some(fuzz::build(&root)?);
        }
        // The run in a process of its own: the compilers the build ran are this process's
        // children, and getrusage would report their peak memory (several hundred MiB)
        // instead of the cases'.
        let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let mut again: Vec<String> = vec!["hostile".into(), "--no-build".into()];
        if keep {
            again.push("--keep".into());
        }
        if let Some(f) = &fuzz_bin {
            again.extend(["--fuzz-bin".to_string(), f.to_string_lossy().to_string()]);
        }
        again.extend(filters);
        let status = Command::new(me).args(&again).status().map_err(|e| format!("cannot run the cases: {e}"))?;
        return Ok(status.success());
    }
    let bin = release_bin(&root);
    if !bin.is_file() {
        return Err(format!("{} is missing: run without --no-build", bin.display()));
    }
    let cases_dir = root.join("tests/hostile");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases_dir)
        .map_err(|e| format!("{}: {e}", cases_dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !name_of(p).starts_with('_'))
        .filter(|p| filters.is_empty() || filters.iter().any(|f| name_of(p).contains(f.as_str())))
        .collect();
    dirs.sort();
    if dirs.is_empty() && fuzz_bin.is_none() {
        return Err(format!("no cases in {} match", cases_dir.display()));
    }
    let skip = skip_dirs(&root);
    let repo_before = snapshot(&root, &skip);
    let mut results = Vec::new();
    let mut max_rss_seen = children_max_rss();
    for dir in &dirs {
        let name = name_of(dir);
        let runs = match Case::read(dir) {
            Ok(case) if case.runtimes.is_empty() => vec![run_case(&root, &bin, &case, None, keep, &mut max_rss_seen)],
            Ok(case) => {
                let mut runs: Vec<Outcome> = case
                    .runtimes
                    .iter()
                    .map(|r| run_case(&root, &bin, &case, Some(r), keep, &mut max_rss_seen))
                    .collect();
                same_under_each_runtime(&mut runs);
                runs
            }
            Err(e) => vec![Outcome::broken(&name, format!("bad case.toml: {e}"))],
        };
        for r in runs {
            println!("{}", r.line());
            let _ = std::io::stdout().flush();
            results.push(r);
        }
    }
    if let Some(bin) = fuzz_bin {
        let r = fuzz::run(&bin, &mut max_rss_seen);
        println!("{}", r.line());
        results.push(r);
    }
    let repo_after = snapshot(&root, &skip);
    let repo_changes = diff(&repo_before, &repo_after);
    Ok(report::summary(&results, max_rss_seen, &repo_changes))
}

/// A case run under each runtime must end alike under each: the same exit code and the
/// same output once numbers (timings, seeds shown the same either way) are set aside and
/// the line of the run's speed dropped. A difference fails the last run.
fn same_under_each_runtime(runs: &mut [Outcome]) {
    let shown = |o: &Outcome| -> Vec<String> {
        o.output
            .lines()
            .filter(|l| !l.contains("games/s"))
            .map(|l| l.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect())
            .collect()
    };
    let Some((first, rest)) = runs.split_first_mut() else { return };
    let want = shown(first);
    for r in rest {
        if r.code != first.code {
            r.problems.push(format!("exit {:?} here, {:?} under {}", r.code, first.code, first.name));
            continue;
        }
        let got = shown(r);
        if let Some(i) = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i)) {
            r.problems.push(format!(
                "output differs from {}'s at line {}: `{}` here, `{}` there",
                first.name,
                i + 1,
                got.get(i).map_or("(none)", String::as_str),
                want.get(i).map_or("(none)", String::as_str)
            ));
        }
    }
}

fn name_of(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default()
}

fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|v| !v.is_empty()) {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                root.join(d)
            }
        }
        None => root.join("target"),
    }
}

fn release_bin(root: &Path) -> PathBuf {
    target_dir(root).join("release/crown")
}

/// Folders of the repository the run does not watch: build output and git's own.
fn skip_dirs(root: &Path) -> Vec<PathBuf> {
    vec![root.join("target"), root.join(".git"), target_dir(root), root.join("fuzz/target")]
}

fn build_release(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("xtask: building crown (release)");
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "--quiet", "-p", "crown-tools", "--bin", "crown"])
        .status()
        .map_err(|e| format!("could not run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build --release failed ({status})"));
    }
    Ok(release_bin(root))
}
