//! Running a case: the command started in its laid-out folders under the limits, its
//! output read, its requests sent, and the verdict on what it did.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::case::{bytes_of, Case, Stdin};
use super::http::send_requests;
use super::layout::{lay_out, tempfile_dir, Layout};
use super::limits::{children_max_rss, peak_rss_of, spawn_limited, MEMORY_LIMIT, TIME_LIMIT};
use super::report::Outcome;
use super::watch::{diff, snapshot, Entry};

/// Run `case` (under the script runtime `runtime`, when given: `crown --runtime R ...`).
pub(super) fn run_case(
    repo: &Path,
    bin: &Path,
    case: &Case,
    runtime: Option<&str>,
    keep: bool,
    max_rss_seen: &mut u64,
) -> Outcome {
    let name = match runtime {
        Some(r) => format!("{} [{r}]", case.name),
        None => case.name.clone(),
    };
    let mut out = run_named(repo, bin, case, runtime, keep, max_rss_seen);
    out.name = name;
    out
}

fn run_named(
    repo: &Path,
    bin: &Path,
    case: &Case,
    runtime: Option<&str>,
    keep: bool,
    max_rss_seen: &mut u64,
) -> Outcome {
    let mut out = Outcome::broken(&case.name, String::new());
    out.problems.clear();
    out.about = case.about.clone();
    let tmp = match tempfile_dir(&case.name) {
        Ok(t) => t,
        Err(e) => return Outcome::broken(&case.name, e),
    };
    let l = Layout {
        project: tmp.join("project"),
        outside: tmp.join("outside"),
        home: tmp.join("home"),
        tmp: tmp.join("tmp"),
        root: tmp.clone(),
    };
    if let Err(e) = lay_out(repo, bin, case, &l) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Outcome::broken(&case.name, format!("laying out the case: {e}"));
    }
    let case_before = snapshot(&case.dir, &[]);
    let before = snapshot(&l.root, &[]);
    let args: Vec<String> = case.args.iter().map(|a| (l.vars())(a)).collect();
    let mut cmd = Command::new(bin);
    if case.project_arg {
        cmd.arg("--project").arg(&l.project);
    }
    if let Some(r) = runtime {
        cmd.args(["--runtime", r]);
    }
    cmd.args(&args)
        .current_dir(&l.project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &l.home)
        .env("TMPDIR", &l.tmp)
        .env("XDG_CONFIG_HOME", l.home.join(".config"))
        .env("XDG_CACHE_HOME", l.home.join(".cache"))
        .env("XDG_DATA_HOME", l.home.join(".local/share"))
        .env("NO_COLOR", "1")
        .env("LANG", "C.UTF-8")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut stdin_bytes = None;
    match &case.stdin {
        Stdin::Null => {
            cmd.stdin(Stdio::null());
        }
        Stdin::Bytes(parts) => {
            cmd.stdin(Stdio::piped());
            stdin_bytes = Some(bytes_of(parts, &l.vars()));
        }
        Stdin::File(f) => match std::fs::File::open(l.path(f)) {
            Ok(file) => {
                cmd.stdin(file);
            }
            Err(e) => return Outcome::broken(&case.name, format!("stdin {f}: {e}")),
        },
    }
    let start = Instant::now();
    let mut child = match spawn_limited(&mut cmd) {
        Ok(c) => c,
        Err(e) => return Outcome::broken(&case.name, format!("cannot run {}: {e}", bin.display())),
    };
    let pid = child.id();
    if let (Some(bytes), Some(mut w)) = (stdin_bytes, child.stdin.take()) {
        // Fed from a thread; a command that stops reading closes the pipe, which is fine.
        std::thread::spawn(move || {
            let _ = w.write_all(&bytes);
        });
    }
    // Standard output is read line by line (a server's first line names its port).
    let stdout_text = Arc::new(Mutex::new(String::new()));
    let port = Arc::new(Mutex::new(None::<u16>));
    let t_out = {
        let so = child.stdout.take().unwrap();
        let (text, port) = (stdout_text.clone(), port.clone());
        std::thread::spawn(move || {
            let mut r = BufReader::new(so);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).to_string();
                        if let Some(p) = line
                            .split("http://127.0.0.1:")
                            .nth(1)
                            .and_then(|r| r.split('/').next())
                            .and_then(|p| p.parse().ok())
                        {
                            port.lock().unwrap().get_or_insert(p);
                        }
                        let mut t = text.lock().unwrap();
                        if t.len() < 4 << 20 {
                            t.push_str(&line);
                        }
                    }
                }
            }
        })
    };
    let t_err = {
        let mut se = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let mut chunk = [0u8; 8192];
            while let Ok(n) = se.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if b.len() < 4 << 20 {
                    b.extend_from_slice(&chunk[..n]);
                }
            }
            b
        })
    };
    let mut polled_peak = 0u64;
    let mut timed_out = false;
    let mut stopped = false;
    let mut http_done = case.http.is_empty();
    let mut http_results: Vec<String> = Vec::new();
    let status: ExitStatus = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {}
            Err(e) => return Outcome::broken(&case.name, format!("waiting: {e}")),
        }
        if let Some(p) = peak_rss_of(pid) {
            polled_peak = polled_peak.max(p);
        }
        let t = start.elapsed();
        if !http_done {
            if let Some(p) = *port.lock().unwrap() {
                http_results = send_requests(p, &case.http, &l.vars());
                http_done = true;
                continue;
            }
        }
        if let Some(run_for) = case.run_for {
            if !stopped && t.as_secs_f64() >= run_for && http_done {
                // Still running at the end of its time: a clean run. Stop it as Ctrl-C would.
                let _ =
                    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), nix::sys::signal::Signal::SIGINT);
                stopped = true;
            }
        }
        if t > TIME_LIMIT {
            timed_out = true;
            let _ = child.kill();
            match child.wait() {
                Ok(s) => break s,
                Err(e) => return Outcome::broken(&case.name, format!("waiting: {e}")),
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    out.elapsed = start.elapsed();
    let _ = t_out.join();
    let stderr = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).to_string();
    let stdout = stdout_text.lock().unwrap().clone();
    // Exact peak when this case raised the largest child's resident size.
    let now = children_max_rss();
    out.peak_rss = if now > *max_rss_seen { now } else { polled_peak };
    *max_rss_seen = (*max_rss_seen).max(now);
    use std::os::unix::process::ExitStatusExt;
    out.code = status.code();
    out.signal = status.signal();
    let roots = [tmp.canonicalize().unwrap_or_else(|_| tmp.clone()), tmp.clone()];
    let mut text = format!("{stdout}{stderr}");
    for r in &roots {
        text = text.replace(&*r.to_string_lossy(), "$TMP");
    }
    out.output = text.clone();
    // The verdict.
    let p = &mut out.problems;
    if timed_out {
        p.push(format!("did not finish within {} s", TIME_LIMIT.as_secs()));
    }
    if text.contains("panicked at") || text.contains("RUST_BACKTRACE") || out.code == Some(101) {
        p.push("panicked".into());
    }
    match (out.code, out.signal) {
        (_, Some(s)) if stopped && s == nix::sys::signal::Signal::SIGINT as i32 => {}
        (_, Some(s)) if !timed_out => p.push(format!("killed by signal {s}")),
        (Some(c), _) if !(case.exit.contains(&c) || (stopped && c == 130)) => {
            p.push(format!("exit code {c}, a clean exit is {:?}", case.exit))
        }
        _ => {}
    }
    if case.run_for.is_some() && !stopped && !timed_out && case.exit == [0, 1, 2] && !case.http.is_empty() {
        p.push("the server ended before its requests were answered".into());
    }
    if out.peak_rss > MEMORY_LIMIT {
        p.push(format!("peak resident memory {} MiB, over {} MiB", out.peak_rss >> 20, MEMORY_LIMIT >> 20));
    }
    for e in &case.expect {
        let e = (l.vars())(e);
        if !text.contains(&e) {
            p.push(format!("the output does not say `{e}`"));
        }
    }
    for r in &case.reject {
        if text.contains(r.as_str()) {
            p.push(format!("the output says `{r}`"));
        }
    }
    p.extend(http_results);
    // Files: only the named outputs may change.
    let after = snapshot(&l.root, &[]);
    let allowed: Vec<PathBuf> = case.outputs.iter().map(|o| l.path(o)).collect();
    for (path, c) in diff(&before, &after) {
        // An output, what is under an output folder, or a folder made on the way to one.
        let made_folder = !before.contains_key(&path) && after.get(&path) == Some(&Entry::Dir);
        if !allowed.iter().any(|a| path.starts_with(a) || (made_folder && a.starts_with(&path))) {
            p.push(format!("{} (not a named output)", c.replace(&*tmp.to_string_lossy(), "$TMP")));
        }
    }
    for (_, c) in diff(&case_before, &snapshot(&case.dir, &[])) {
        p.push(format!("the case's own folder changed: {c}"));
    }
    if keep {
        eprintln!("xtask: kept {}", tmp.display());
    } else {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    out
}
