//! The compiled script runtime's fuzz target as one more case of the hostile set: the
//! engine's ignored `fuzz_runtimes` test (random programs from the constructs the compiled
//! tier covers, errors and limits included, each run under both runtimes and required to
//! give the same values, errors and operation counts), built in release mode with the
//! rest and run for [`SECONDS`] under the set's time and memory bar.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::limits::{children_max_rss, peak_rss_of, spawn_limited, MEMORY_LIMIT, TIME_LIMIT};
use super::report::Outcome;

/// The name it is listed under (and filtered by).
pub(super) const NAME: &str = "runtime-fuzz-compiled-against-rhai";

/// How long the fuzzer runs: well inside the bar, long enough for a few thousand programs.
const SECONDS: u64 = 10;

/// The test's full name in the engine's test binary.
const TEST: &str = "script::compiled::tests::fuzz_runtimes";

/// Build the engine's library tests in release mode; the test binary's path.
pub(super) fn build(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("xtask: building the runtimes' fuzz target (release)");
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["test", "--release", "--quiet", "-p", "crown-engine", "--lib", "--no-run", "--message-format=json"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run cargo test --no-run: {e}"))?;
    if !out.status.success() {
        return Err(format!("building the engine's tests failed ({})", out.status));
    }
    // The compiler-artifact message of the engine's test target names its executable.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"name\":\"crown_engine\"") && l.contains("\"test\":true"))
        .find_map(|l| {
            let rest = &l[l.find("\"executable\":\"")? + "\"executable\":\"".len()..];
            Some(PathBuf::from(&rest[..rest.find('"')?]))
        })
        .ok_or_else(|| "cargo did not name the engine's test binary".to_string())
}

/// Run the fuzz target under the bar; its outcome.
pub(super) fn run(bin: &Path, max_rss_seen: &mut u64) -> Outcome {
    let mut out = Outcome::broken(NAME, String::new());
    out.problems.clear();
    out.about = "generated programs under both script runtimes: the same values, errors and operation counts".into();
    let mut cmd = Command::new(bin);
    cmd.args(["--ignored", "--exact", TEST, "--nocapture", "--test-threads", "1"])
        .env("CROWN_FUZZ_SECONDS", SECONDS.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = match spawn_limited(&mut cmd) {
        Ok(c) => c,
        Err(e) => return Outcome::broken(NAME, format!("cannot run {}: {e}", bin.display())),
    };
    let pid = child.id();
    let (mut so, mut se) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let (mut polled, mut timed_out) = (0u64, false);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(_) => break None,
        }
        polled = polled.max(peak_rss_of(pid).unwrap_or(0));
        if start.elapsed() > TIME_LIMIT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    out.elapsed = start.elapsed();
    let now = children_max_rss();
    out.peak_rss = if now > *max_rss_seen { now } else { polled };
    *max_rss_seen = (*max_rss_seen).max(now);
    out.output = format!("{}{}", t_out.join().unwrap_or_default(), t_err.join().unwrap_or_default());
    use std::os::unix::process::ExitStatusExt;
    out.code = status.and_then(|s| s.code());
    out.signal = status.and_then(|s| s.signal());
    if timed_out {
        out.problems.push(format!("did not finish within {} s", TIME_LIMIT.as_secs()));
    }
    if out.code != Some(0) {
        out.problems.push("the runtimes differed, or the fuzzer failed (its output says where)".into());
    }
    if !out.output.contains("1 passed") || !out.output.contains("all equal") {
        out.problems.push("the fuzz test did not run (no `1 passed` and `all equal`)".into());
    }
    if out.peak_rss > MEMORY_LIMIT {
        out.problems.push(format!("peak resident memory {} MiB, over {} MiB", out.peak_rss >> 20, MEMORY_LIMIT >> 20));
    }
    out
}
