//! The project's own tasks, run with `cargo xtask <task>` (an alias in `.cargo/config.toml`).
//!
//! - `cargo xtask test [ARGS...]`: install the outside programs the test suite drives
//!   (when missing) and start a one-node Slurm cluster (when none answers, [`slurm`])
//!   while the tests build, then run `cargo test --workspace --features
//!   crown-tools/bench-suite ARGS...` (the benchmark suite's own tests included), the
//!   engine's own unit tests built without optimisation ([`wrap_rustc`]). This is the
//!   README's test command and what CI runs.
//! - `cargo xtask bench [ARGS...]`: `crown bench ARGS...` built in release mode with the
//!   benchmark suite (the native baseline and the generated projects), which the `crown`
//!   a designer installs leaves out.
//! - `cargo xtask provision`: only the first half (a second run finds everything there
//!   and does nothing).
//! - `cargo xtask mutants [--base REV] [ARGS...]`: mutation testing with cargo-mutants
//!   (installed on first use) over the code changed since REV (default `HEAD`: the
//!   uncommitted changes); ARGS go to `cargo mutants` (`--file engine/src/load/checks.rs`
//!   instead of a diff, `-p crown-engine`, `--test-package crown-engine`...).
//! - `cargo xtask hostile [--no-build] [--keep] [FILTER...]`: build `crown` in release mode
//!   and run the hostile-input set of `tests/hostile/` against it, each case under a
//!   20 s and 1 GiB limit, watching every file it could touch ([`hostile`]).
//! - `cargo xtask fuzz [SECONDS] [SEED]`: the compiled script runtime against Rhai's
//!   interpreter on generated programs, for SECONDS (default 300) from SEED (default: the
//!   clock), in release mode; a difference fails with the program that shows it.
//! - `cargo xtask differential [GAMES]`: `crown sim --json` of GAMES games (default 1,000)
//!   of every pack in `content/`, with random and with greedy bots, under `--runtime
//!   compiled` and `--runtime rhai` (release build); the summaries must be identical, byte
//!   for byte.
//!
//! This is the one place that calls a package manager. Tests, build scripts and library
//! code never do: a test that needs a program it cannot find fails with a message that
//! says what to install (see `tests/common/mod.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod hostile;
mod slurm;

/// An outside program a test drives, and where it comes from.
struct Program {
    /// Command names to look for on `PATH`, first match wins.
    names: &'static [&'static str],
    /// An environment variable that points at the program instead (checked first).
    env: Option<&'static str>,
    /// The Debian package that provides it.
    package: &'static str,
    /// Which tests use it.
    used_by: &'static str,
}

const PROGRAMS: &[Program] = &[
    Program {
        names: &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"],
        env: Some("CROWN_CHROMIUM"),
        package: "chromium",
        used_by: "the preview page tests (tests/serve.rs) drive a headless browser",
    },
    Program {
        names: &["pdftoppm"],
        env: None,
        package: "poppler-utils",
        used_by: "the print tests (tests/print.rs) read the printed PDF with poppler",
    },
    // Slurm, with a one-node cluster started after installing ([`slurm::ensure_cluster`]).
    Program { names: &["sbatch"], env: None, package: "slurm-client", used_by: SLURM_TEST },
    Program { names: &["slurmctld"], env: None, package: "slurmctld", used_by: SLURM_TEST },
    Program { names: &["slurmd"], env: None, package: "slurmd", used_by: SLURM_TEST },
    Program { names: &["munged"], env: None, package: "munge", used_by: SLURM_TEST },
];

const SLURM_TEST: &str =
    "the Slurm test (tests/slurm.rs) runs docs/balance/slurm.sh as a job array on a one-node cluster";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if std::env::var_os(WRAPPING).is_some() {
        return wrap_rustc(&args);
    }
    match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("provision") => match provision() {
            Ok(found) => {
                for (env, path) in found {
                    println!("{env}={}", path.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        Some("bench") => run_bench(&args[1..]),
        Some("mutants") => run_mutants(&args[1..]),
        Some("fuzz") => run_fuzz(&args[1..]),
        Some("differential") => run_differential(&args[1..]),
        Some("hostile") => match hostile::main(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => fail(&e),
        },
        _ => {
            eprintln!(
                "usage: cargo xtask test [ARGS...]   install the programs the tests use, then `cargo test --workspace --features crown-tools/bench-suite ARGS...`\n\
                 \x20      cargo xtask provision          only install the programs\n\
                 \x20      cargo xtask bench [ARGS]       `crown bench ARGS` with the benchmark suite, in release mode\n\
                 \x20      cargo xtask mutants [--base REV] [ARGS]   mutation testing of the code changed since REV\n\
                 \x20      cargo xtask hostile [FILTER]   run the hostile-input set against the release binary\n\
                 \x20      cargo xtask fuzz [SECONDS] [SEED]   the compiled script runtime against the interpreter\n\
                 \x20      cargo xtask differential [GAMES]   every pack's simulations under both script runtimes"
            );
            ExitCode::from(2)
        }
    }
}

/// `cargo xtask fuzz`: the ignored `fuzz_runtimes` test of the engine, in release mode.
fn run_fuzz(args: &[String]) -> ExitCode {
    let seconds = args.first().map_or("300", String::as_str);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["test", "--release", "-p", "crown-engine", "--lib", "fuzz_runtimes", "--", "--ignored", "--nocapture"]);
    cmd.env("CROWN_FUZZ_SECONDS", seconds);
    if let Some(seed) = args.get(1) {
        cmd.env("CROWN_FUZZ_SEED", seed);
    }
    match cmd.status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => fail(&format!("cannot run cargo: {e}")),
    }
}

/// `cargo xtask differential`: every pack's `crown sim --json` under both runtimes.
fn run_differential(args: &[String]) -> ExitCode {
    let games = args.first().map_or("1000", String::as_str);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo).args(["build", "--release", "-p", "crown-tools", "--bin", "crown"]).status();
    if !built.is_ok_and(|s| s.success()) {
        return fail("the release build of crown failed");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let crown = root.join("target/release/crown");
    let mut packs: Vec<String> = match std::fs::read_dir(root.join("content")) {
        Ok(d) => d
            .flatten()
            .filter(|e| e.path().join("pack.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into())
            .collect(),
        Err(e) => return fail(&format!("cannot list content/: {e}")),
    };
    packs.sort();
    let mut differ = 0;
    for pack in &packs {
        for agents in ["random", "greedy"] {
            let mut outs = Vec::new();
            for runtime in ["compiled", "rhai"] {
                let started = std::time::Instant::now();
                let o = Command::new(&crown)
                    .arg("--project")
                    .arg(&root)
                    .args(["--runtime", runtime, "sim", pack, "--games", games, "--agents", agents, "--json"])
                    .output();
                let o = match o {
                    Ok(o) if o.status.success() => o,
                    Ok(o) => {
                        return fail(&format!("crown sim {pack} ({runtime}): {}", String::from_utf8_lossy(&o.stderr)))
                    }
                    Err(e) => return fail(&format!("cannot run {}: {e}", crown.display())),
                };
                println!("{pack:26} {agents:7} {runtime:9} {games} games in {:.1} s", started.elapsed().as_secs_f64());
                outs.push(o.stdout);
            }
            if outs[0] != outs[1] {
                println!("{pack:26} {agents:7} DIFFERS between the runtimes");
                differ += 1;
            }
        }
    }
    if differ > 0 {
        return fail(&format!("{differ} simulation(s) differ between the runtimes"));
    }
    println!(
        "every simulation is the same under both runtimes ({} packs, {games} games each, random and greedy bots)",
        packs.len()
    );
    ExitCode::SUCCESS
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("xtask: {msg}");
    ExitCode::FAILURE
}

/// Where a program is: its environment variable when set, else the first name on `PATH`.
fn locate(p: &Program) -> Result<Option<PathBuf>, String> {
    if let Some(var) = p.env {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let path = PathBuf::from(v);
            return if path.is_file() {
                Ok(Some(path))
            } else {
                Err(format!("{var} is set to {}, which is not a file", path.display()))
            };
        }
    }
    Ok(p.names.iter().find_map(|n| on_path(n)))
}

/// A program on `PATH`, or in the system folders a user's `PATH` may leave out (daemons).
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Install what is missing and start the Slurm cluster when none answers; the environment
/// variables that name each program found.
fn provision() -> Result<Vec<(&'static str, PathBuf)>, String> {
    let mut missing = Vec::new();
    for p in PROGRAMS {
        if locate(p)?.is_none() {
            missing.push(p);
        }
    }
    if !missing.is_empty() {
        install(&missing)?;
    }
    let mut found = Vec::new();
    for p in PROGRAMS {
        match locate(p)? {
            Some(path) => {
                if let Some(var) = p.env {
                    found.push((var, path));
                }
            }
            None => {
                return Err(format!(
                    "`{}` is still missing after installing Debian's `{}` package; {}",
                    p.names[0], p.package, p.used_by
                ))
            }
        }
    }
    slurm::ensure_cluster()?;
    Ok(found)
}

/// The prefix that runs a command as root: nothing when this is root, else `sudo -n`.
fn root_prefix() -> Result<Vec<&'static str>, String> {
    if is_root() {
        Ok(vec![])
    } else if Command::new("sudo").args(["-n", "true"]).output().is_ok_and(|o| o.status.success()) {
        Ok(vec!["sudo", "-n"])
    } else {
        Err("not root and `sudo -n` is not allowed".into())
    }
}

/// Install Debian packages with apt-get, as root or through `sudo -n`.
fn install(missing: &[&Program]) -> Result<(), String> {
    let packages: Vec<&str> = missing.iter().map(|p| p.package).collect();
    let why: Vec<String> = missing.iter().map(|p| format!("  {} ({}): {}", p.names[0], p.package, p.used_by)).collect();
    let by_hand = format!(
        "the tests need these programs:\n{}\ninstall them (Debian: `apt-get install {}` as root){}",
        why.join("\n"),
        packages.join(" "),
        if missing.iter().any(|p| p.env.is_some()) {
            ", or point CROWN_CHROMIUM at a Chromium or Chrome binary"
        } else {
            ""
        }
    );
    if on_path("apt-get").is_none() {
        return Err(format!("no apt-get on this machine; {by_hand}"));
    }
    let prefix = root_prefix().map_err(|e| format!("{e}, so nothing can be installed; {by_hand}"))?;
    eprintln!("xtask: installing {} (Debian packages) for the tests", packages.join(", "));
    let apt = |args: &[&str]| -> Result<(), String> {
        let mut all = prefix.clone();
        all.push("apt-get");
        all.extend_from_slice(args);
        let out = Command::new(all[0])
            .args(&all[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output()
            .map_err(|e| format!("could not run {}: {e}", all.join(" ")))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "`{}` failed ({}):\n{}\n{by_hand}",
                all.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim_end()
            ))
        }
    };
    apt(&["update", "-qq"])?;
    let mut install = vec!["install", "-y", "-qq"];
    install.extend_from_slice(&packages);
    apt(&install)
}

fn is_root() -> bool {
    // The effective user id, from the kernel's own view of this process.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

/// Mutation testing: `cargo mutants` over what changed since `--base REV` (default
/// `HEAD`), or over what ARGS select when they name files. cargo-mutants is installed
/// with `cargo install --locked` the first time (the one place that installs it).
fn run_mutants(args: &[String]) -> ExitCode {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let have = Command::new(&cargo).args(["mutants", "--version"]).output().is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("xtask: installing cargo-mutants (cargo install --locked cargo-mutants)");
        let ok =
            Command::new(&cargo).args(["install", "--locked", "cargo-mutants"]).status().is_ok_and(|s| s.success());
        if !ok {
            return fail("could not install cargo-mutants; install it with `cargo install --locked cargo-mutants`");
        }
    }
    let mut rest: Vec<String> = Vec::new();
    let mut base = "HEAD".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--base" {
            match it.next() {
                Some(b) => base = b.clone(),
                None => return fail("--base needs a revision"),
            }
        } else {
            rest.push(a.clone());
        }
    }
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(&root).arg("mutants").arg("--features").arg("crown-tools/bench-suite");
    if !rest.iter().any(|a| a == "--file" || a == "-f" || a.starts_with("--file=")) {
        // The code a change touches: the diff since BASE, given to cargo-mutants.
        let diff = Command::new("git")
            .current_dir(&root)
            .args(["diff", "--end-of-options", &base, "--", "engine", "tools", "xtask"])
            .output();
        let diff = match diff {
            Ok(o) if o.status.success() => o.stdout,
            Ok(o) => return fail(&format!("git diff {base}: {}", String::from_utf8_lossy(&o.stderr).trim())),
            Err(e) => return fail(&format!("could not run git: {e}")),
        };
        if diff.is_empty() {
            return fail(&format!("nothing changed since {base}: name one with --base REV, or files with --file"));
        }
        let path = root.join("target").join("mutants.diff");
        if let Err(e) = std::fs::create_dir_all(root.join("target")).and_then(|_| std::fs::write(&path, diff)) {
            return fail(&format!("cannot write {}: {e}", path.display()));
        }
        cmd.arg("--in-diff").arg(path);
    }
    match cmd.args(&rest).status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(1, 255) as u8)),
        Err(e) => fail(&format!("could not run cargo mutants: {e}")),
    }
}

/// `crown bench ARGS` with the benchmark suite, built in release mode, on this repository.
fn run_bench(args: &[String]) -> ExitCode {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new(cargo)
        .current_dir(&root)
        .args(["run", "--release", "--quiet", "--package", "crown-tools", "--features", "bench-suite", "--", "bench"])
        .args(args)
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(1, 255) as u8)),
        Err(e) => fail(&format!("could not run cargo: {e}")),
    }
}

/// `cargo xtask test`: provision and build at once, then run the tests. On a fresh machine
/// the download and installation of the outside programs (a minute or two, mostly waiting
/// on the network and dpkg) overlap the test build (minutes of compiling), instead of
/// coming before it. The build's own output comes first; provisioning says what it did
/// when both are done.
fn test(args: &[String]) -> ExitCode {
    let provisioning = std::thread::spawn(provision);
    let start = std::time::Instant::now();
    let built = build_tests(args);
    eprintln!("xtask: the test build took {:.0} s", start.elapsed().as_secs_f64());
    let found = match provisioning.join() {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => return fail(&e),
        Err(_) => return fail("provisioning stopped unexpectedly"),
    };
    if let Err(code) = built {
        return code;
    }
    let start = std::time::Instant::now();
    let code = run_tests(args, &found);
    eprintln!("xtask: the test run took {:.0} s", start.elapsed().as_secs_f64());
    code
}

/// `cargo test --no-run` with the cargo arguments of `args` (those before a `--`): every
/// test binary built, none run. An error is the exit code to leave with.
fn build_tests(args: &[String]) -> Result<(), ExitCode> {
    let cargo_args = args.iter().take_while(|a| *a != "--");
    let mut cmd = test_command();
    cmd.args(cargo_args).arg("--no-run");
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(ExitCode::from(s.code().map_or(1, |c| c.clamp(1, 255) as u8))),
        Err(e) => Err(fail(&format!("could not run cargo test: {e}"))),
    }
}

/// `cargo test --workspace --features crown-tools/bench-suite`, from the workspace's root,
/// with this program as the compiler wrapper of the workspace's own crates
/// ([`wrap_rustc`]).
fn test_command() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root).args(["test", "--workspace", "--features", "crown-tools/bench-suite"]);
    match wrapper(&root) {
        Ok(w) => {
            cmd.env("RUSTC_WORKSPACE_WRAPPER", w).env(WRAPPING, "1");
        }
        // Without the wrapper the tests are the same; only the engine's unit tests build
        // slower.
        Err(e) => eprintln!("xtask: building the engine's unit tests optimised: {e}"),
    }
    cmd
}

/// Set in the environment of the compiler wrapper (this program, run by cargo for each
/// crate of the workspace).
const WRAPPING: &str = "CROWN_XTASK_RUSTC_WRAPPER";

/// A copy of this program for cargo to run as the compiler wrapper (a copy, so that a
/// build of the xtask package never writes the file that is running), at the same path
/// every time: cargo counts the wrapper's path in what decides a rebuild.
fn wrapper(root: &Path) -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find xtask's own program: {e}"))?;
    let dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    // (Absolute: cargo runs the wrapper from each crate's folder.)
    let dir = std::path::absolute(&dir).map_err(|e| format!("cannot find {}: {e}", dir.display()))?;
    let copy = dir.join("xtask-rustc-wrapper");
    let same = |a: &Path, b: &Path| std::fs::read(a).ok().zip(std::fs::read(b).ok()).is_some_and(|(a, b)| a == b);
    if !same(&me, &copy) {
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let part = dir.join("xtask-rustc-wrapper.part");
        std::fs::copy(&me, &part).map_err(|e| format!("cannot copy xtask to {}: {e}", part.display()))?;
        std::fs::rename(&part, &copy).map_err(|e| format!("cannot write {}: {e}", copy.display()))?;
    }
    Ok(copy)
}

/// The compiler wrapper: run the compiler (`args[0]`) with the rest of `args`, and build
/// the engine's own unit tests (`--crate-name crown_engine --test`) without optimisation.
///
/// `cargo test` builds every unit with one profile, and the engine is optimised for the
/// games the other tests play on it (Cargo.toml). Its unit-test copy is a second build of
/// the whole engine that nothing links, which cargo schedules last, alone on one core;
/// unoptimised it builds in a third of the time and its tests run a few seconds longer
/// (docs/performance.md, "Building"). A profile cannot say this, and a separate
/// `cargo test -p crown-engine` would resolve the dependencies' features for the engine
/// alone and build them again.
fn wrap_rustc(args: &[String]) -> ExitCode {
    let Some((rustc, rest)) = args.split_first() else {
        return fail("the compiler wrapper was run without a compiler");
    };
    let mut cmd = Command::new(rustc);
    cmd.args(rest);
    if engine_unit_tests(rest) {
        // (rustc takes the last of a repeated `-C` option: cargo's comes first.)
        cmd.args(["-C", "opt-level=0"]);
    }
    match cmd.status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(1, 255) as u8)),
        Err(e) => fail(&format!("cannot run the compiler {rustc}: {e}")),
    }
}

/// Whether the compiler's arguments build the engine's own unit tests (its library with
/// `--test`), not the engine library the other tests link, nor another crate's tests.
fn engine_unit_tests(args: &[String]) -> bool {
    args.windows(2).any(|w| w[0] == "--crate-name" && w[1] == "crown_engine") && args.iter().any(|a| a == "--test")
}

fn run_tests(args: &[String], found: &[(&'static str, PathBuf)]) -> ExitCode {
    let mut cmd = test_command();
    cmd.args(args);
    for (var, path) in found {
        cmd.env(var, path);
    }
    match cmd.status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(1, 255) as u8)),
        Err(e) => fail(&format!("could not run cargo test: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::engine_unit_tests;

    fn args(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn only_the_engines_unit_tests_are_built_unoptimised() {
        let test = "--crate-name crown_engine --edition=2021 engine/src/lib.rs --test -C opt-level=2";
        assert!(engine_unit_tests(&args(test)));
        let lib = "--crate-name crown_engine --edition=2021 engine/src/lib.rs --crate-type lib -C opt-level=2";
        assert!(!engine_unit_tests(&args(lib)));
        let other = "--crate-name crown_tools --edition=2021 tools/src/lib.rs --test -C opt-level=0";
        assert!(!engine_unit_tests(&args(other)));
        let named = "--crate-name integration --edition=2021 tests/integration.rs --test --extern crown_engine=x";
        assert!(!engine_unit_tests(&args(named)));
    }
}
