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

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The bar: each case ends within this time.
const TIME_LIMIT: Duration = Duration::from_secs(20);
/// The bar: no case holds more than this in memory (peak resident set).
const MEMORY_LIMIT: u64 = 1 << 30;
/// A backstop on address space, so that a runaway case fails an allocation rather than
/// take the machine's memory. Above the bar: address space counts every thread's
/// reserved stack (`sim --threads 256` reserves 4 GiB of stacks it never touches), so
/// the bar itself is the measured resident peak.
const ADDRESS_SPACE_LIMIT: u64 = 6 << 30;

/// `cargo xtask hostile [--no-build] [--keep] [FILTER...]`.
pub fn main(args: &[String]) -> Result<bool, String> {
    let mut build = true;
    let mut keep = false;
    let mut filters = Vec::new();
    for a in args {
        match a.as_str() {
            "--no-build" => build = false,
            "--keep" => keep = true,
            "-h" | "--help" => {
                println!(
                    "usage: cargo xtask hostile [--no-build] [--keep] [FILTER...]\n\
                     Build crown in release mode and run every case of tests/hostile/ (or those whose name \
                     contains a FILTER)\nunder a 20 s and 1 GiB limit. --keep leaves each case's folder in the \
                     temporary folder."
                );
                return Ok(true);
            }
            f if f.starts_with('-') => return Err(format!("unknown option `{f}` (see --help)")),
            f => filters.push(f.to_string()),
        }
    }
    let root = repo_root();
    if build {
        build_release(&root)?;
        // The run in a process of its own: the compilers the build ran are this process's
        // children, and getrusage would report their peak memory (several hundred MiB)
        // instead of the cases'.
        let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let mut again: Vec<String> = vec!["hostile".into(), "--no-build".into()];
        if keep {
            again.push("--keep".into());
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
    if dirs.is_empty() {
        return Err(format!("no cases in {} match", cases_dir.display()));
    }
    let skip = skip_dirs(&root);
    let repo_before = snapshot(&root, &skip);
    let mut results = Vec::new();
    let mut max_rss_seen = children_max_rss();
    for dir in &dirs {
        let name = name_of(dir);
        let r = match Case::read(dir) {
            Ok(case) => run_case(&root, &bin, &case, keep, &mut max_rss_seen),
            Err(e) => Outcome::broken(&name, format!("bad case.toml: {e}")),
        };
        println!("{}", r.line());
        let _ = std::io::stdout().flush();
        results.push(r);
    }
    let repo_after = snapshot(&root, &skip);
    let repo_changes = diff(&repo_before, &repo_after);
    // Summary.
    let failed: Vec<&Outcome> = results.iter().filter(|r| !r.problems.is_empty()).collect();
    let slowest = results.iter().max_by_key(|r| r.elapsed).unwrap();
    let biggest = results.iter().max_by_key(|r| r.peak_rss).unwrap();
    println!(
        "\n{} cases, {} passed, {} failed; slowest {} in {:.2} s; largest peak RSS {} MiB ({}); \
         largest peak RSS of any child (getrusage) {} MiB",
        results.len(),
        results.len() - failed.len(),
        failed.len(),
        slowest.name,
        slowest.elapsed.as_secs_f64(),
        biggest.peak_rss >> 20,
        biggest.name,
        max_rss_seen >> 20
    );
    for r in &failed {
        println!("\nFAILED {}: {}", r.name, r.about);
        for p in &r.problems {
            println!("  - {p}");
        }
        if !r.output.is_empty() {
            println!("  output (first lines):");
            for l in r.output.lines().take(12) {
                println!("    | {l}");
            }
        }
    }
    if !repo_changes.is_empty() {
        println!("\nFAILED: files in the repository changed during the run:");
        for (_, c) in &repo_changes {
            println!("  - {c}");
        }
    }
    Ok(failed.is_empty() && repo_changes.is_empty())
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

// ---- the recipe ----

/// One piece of a generated file: text (`{n}` counts repetitions) and raw bytes (hex).
#[derive(Debug, Clone)]
struct Part {
    text: String,
    hex: Vec<u8>,
    repeat: usize,
}

#[derive(Debug)]
struct Generate {
    path: String,
    parts: Vec<Part>,
    /// Write this many files, `{i}` in the path and the text counting them (0, 1, 2...).
    copies: Option<usize>,
}

/// A PNG of zeros with the given size: a few kilobytes that decode to gigabytes.
#[derive(Debug)]
struct Png {
    path: String,
    width: u32,
    height: u32,
}

#[derive(Debug)]
struct Edit {
    path: String,
    find: String,
    replace: String,
}

#[derive(Debug)]
struct Symlink {
    path: String,
    target: String,
}

/// A raw request sent to a `crown serve` case once it is listening.
#[derive(Debug)]
struct Http {
    parts: Vec<Part>,
    /// Send this many bytes first, wait `pause_ms`, then the rest (a slow client).
    split_at: Option<usize>,
    pause_ms: u64,
    /// Allowed status codes of the answer (0: the connection closed without one).
    expect: Vec<u16>,
}

/// Where the command's standard input comes from.
#[derive(Debug)]
enum Stdin {
    Null,
    Bytes(Vec<Part>),
    /// A file or device (absolute, or relative to the project).
    File(String),
}

/// `case.toml`. See docs/hardening.md ("The hostile set") for every key.
#[derive(Debug)]
struct Case {
    name: String,
    dir: PathBuf,
    about: String,
    /// `tests/invalid/_base/NAME` copied first.
    base: Option<String>,
    /// Shipped packs copied first (content/, scripts/ and, with `golden`, tests/golden/).
    packs: Vec<String>,
    golden: bool,
    /// Commands run (with the same binary) to lay out the case, before anything is
    /// recorded: `[["campaign", "new", "tiny", "--save", "c.save.toml"]]`.
    setup: Vec<Vec<String>>,
    edit: Vec<Edit>,
    generate: Vec<Generate>,
    png: Vec<Png>,
    symlink: Vec<Symlink>,
    fifo: Vec<String>,
    mkdir: Vec<String>,
    delete: Vec<String>,
    /// `crown` arguments after `--project PROJECT` (`project = false`: none).
    args: Vec<String>,
    project_arg: bool,
    stdin: Stdin,
    /// Exit codes that are a clean exit (default 0, 1 and 2).
    exit: Vec<i32>,
    /// Texts the output (standard output and error, temporary folder shown as `$TMP`)
    /// must hold: the clear error.
    expect: Vec<String>,
    /// Texts it must not hold.
    reject: Vec<String>,
    /// Paths (relative to the project, or `{outside}/...`, `{tmp}/...`) the command may
    /// create or change; a folder allows what is under it.
    outputs: Vec<String>,
    /// A long-running command (watch, serve): stopped with SIGINT after this many seconds;
    /// a clean run is one still running then (or one that exits cleanly before).
    run_for: Option<f64>,
    http: Vec<Http>,
}

fn get_str(t: &toml::Table, key: &str) -> Result<Option<String>, String> {
    match t.get(key) {
        None => Ok(None),
        Some(toml::Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!("`{key}` must be a string, not {v}")),
    }
}

fn get_strs(t: &toml::Table, key: &str) -> Result<Vec<String>, String> {
    match t.get(key) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| format!("`{key}` must hold strings")))
            .collect(),
        Some(_) => Err(format!("`{key}` must be an array of strings")),
    }
}

fn get_tables<'a>(t: &'a toml::Table, key: &str) -> Result<Vec<&'a toml::Table>, String> {
    match t.get(key) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(a)) => {
            a.iter().map(|v| v.as_table().ok_or_else(|| format!("`{key}` must hold tables"))).collect()
        }
        Some(_) => Err(format!("`{key}` must be an array of tables")),
    }
}

fn get_int(t: &toml::Table, key: &str) -> Result<Option<i64>, String> {
    match t.get(key) {
        None => Ok(None),
        Some(v) => v.as_integer().map(Some).ok_or_else(|| format!("`{key}` must be an integer")),
    }
}

fn only_keys(t: &toml::Table, keys: &[&str], what: &str) -> Result<(), String> {
    match t.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown key `{k}` in {what} (known: {})", keys.join(", "))),
        None => Ok(()),
    }
}

fn hex_bytes(s: &str) -> Result<Vec<u8>, String> {
    let digits: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in {s:?}"));
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).map_err(|e| format!("{s:?}: {e}")))
        .collect()
}

fn parts(t: &toml::Table, key: &str) -> Result<Vec<Part>, String> {
    let mut out = Vec::new();
    for p in get_tables(t, key)? {
        only_keys(p, &["text", "hex", "repeat"], "a part")?;
        let repeat = match get_int(p, "repeat")? {
            None => 1,
            Some(n) if n >= 0 => n as usize,
            Some(_) => return Err("`repeat` must be a count".into()),
        };
        out.push(Part {
            text: get_str(p, "text")?.unwrap_or_default(),
            hex: hex_bytes(&get_str(p, "hex")?.unwrap_or_default())?,
            repeat,
        });
    }
    Ok(out)
}

fn bytes_of(parts: &[Part], vars: &dyn Fn(&str) -> String) -> Vec<u8> {
    let mut bytes = Vec::new();
    for p in parts {
        let text = vars(&p.text);
        for n in 0..p.repeat {
            if text.contains("{n}") {
                bytes.extend_from_slice(text.replace("{n}", &n.to_string()).as_bytes());
            } else {
                bytes.extend_from_slice(text.as_bytes());
            }
            bytes.extend_from_slice(&p.hex);
        }
    }
    bytes
}

impl Case {
    fn read(dir: &Path) -> Result<Case, String> {
        let p = dir.join("case.toml");
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let t: toml::Table = toml::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        only_keys(
            &t,
            &[
                "about",
                "base",
                "packs",
                "golden",
                "setup",
                "edit",
                "generate",
                "png",
                "symlink",
                "fifo",
                "mkdir",
                "delete",
                "args",
                "project",
                "stdin",
                "stdin_file",
                "stdin_parts",
                "exit",
                "expect",
                "reject",
                "outputs",
                "run_for",
                "http",
            ],
            "case.toml",
        )?;
        let about = get_str(&t, "about")?.unwrap_or_default();
        if about.trim().is_empty() {
            return Err("say what the case checks in `about`".into());
        }
        let mut edit = Vec::new();
        for e in get_tables(&t, "edit")? {
            only_keys(e, &["path", "find", "replace"], "[[edit]]")?;
            edit.push(Edit {
                path: get_str(e, "path")?.ok_or("[[edit]] needs `path`")?,
                find: get_str(e, "find")?.ok_or("[[edit]] needs `find`")?,
                replace: get_str(e, "replace")?.ok_or("[[edit]] needs `replace`")?,
            });
        }
        let mut generate = Vec::new();
        for g in get_tables(&t, "generate")? {
            only_keys(g, &["path", "parts", "copies"], "[[generate]]")?;
            let copies = match get_int(g, "copies")? {
                None => None,
                Some(n) if (1..=100_000).contains(&n) => Some(n as usize),
                Some(_) => return Err("`copies` must be 1 to 100000".into()),
            };
            generate.push(Generate {
                path: get_str(g, "path")?.ok_or("[[generate]] needs `path`")?,
                parts: parts(g, "parts")?,
                copies,
            });
        }
        let mut png = Vec::new();
        for g in get_tables(&t, "png")? {
            only_keys(g, &["path", "width", "height"], "[[png]]")?;
            let dim = |k: &str| -> Result<u32, String> {
                get_int(g, k)?
                    .and_then(|v| u32::try_from(v).ok())
                    .filter(|v| *v > 0)
                    .ok_or(format!("[[png]] needs `{k}`"))
            };
            png.push(Png {
                path: get_str(g, "path")?.ok_or("[[png]] needs `path`")?,
                width: dim("width")?,
                height: dim("height")?,
            });
        }
        let mut symlink = Vec::new();
        for l in get_tables(&t, "symlink")? {
            only_keys(l, &["path", "target"], "[[symlink]]")?;
            symlink.push(Symlink {
                path: get_str(l, "path")?.ok_or("[[symlink]] needs `path`")?,
                target: get_str(l, "target")?.ok_or("[[symlink]] needs `target`")?,
            });
        }
        let mut http = Vec::new();
        for h in get_tables(&t, "http")? {
            only_keys(h, &["parts", "split_at", "pause_ms", "expect"], "[[http]]")?;
            let expect = match h.get("expect") {
                None => Vec::new(),
                Some(toml::Value::Array(a)) => a
                    .iter()
                    .map(|v| v.as_integer().and_then(|c| u16::try_from(c).ok()).ok_or("`expect` holds status codes"))
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("`expect` must be an array of status codes".into()),
            };
            http.push(Http {
                parts: parts(h, "parts")?,
                split_at: get_int(h, "split_at")?.map(|v| v.max(0) as usize),
                pause_ms: get_int(h, "pause_ms")?.unwrap_or(0).max(0) as u64,
                expect,
            });
        }
        let mut setup = Vec::new();
        if let Some(v) = t.get("setup") {
            let a = v.as_array().ok_or("`setup` must be an array of command lines")?;
            for c in a {
                let c = c.as_array().ok_or("`setup` must be an array of command lines")?;
                setup.push(
                    c.iter()
                        .map(|x| x.as_str().map(str::to_string).ok_or("`setup` holds strings"))
                        .collect::<Result<_, _>>()?,
                );
            }
        }
        let stdin = match (get_str(&t, "stdin")?, get_str(&t, "stdin_file")?, t.contains_key("stdin_parts")) {
            (None, None, false) => Stdin::Null,
            (Some(s), None, false) => Stdin::Bytes(vec![Part { text: s, hex: Vec::new(), repeat: 1 }]),
            (None, Some(f), false) => Stdin::File(f),
            (None, None, true) => Stdin::Bytes(parts(&t, "stdin_parts")?),
            _ => return Err("give one of `stdin`, `stdin_file` and `stdin_parts`".into()),
        };
        let exit = match t.get("exit") {
            None => vec![0, 1, 2],
            Some(toml::Value::Integer(i)) => vec![*i as i32],
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| v.as_integer().map(|i| i as i32).ok_or("`exit` holds integers"))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("`exit` must be an exit code or a list of them".into()),
        };
        if exit.contains(&101) {
            return Err("exit code 101 is a panic, never a clean exit".into());
        }
        let run_for = match t.get("run_for") {
            None => None,
            Some(v) => Some(v.as_float().or(v.as_integer().map(|i| i as f64)).ok_or("`run_for` is seconds")?),
        };
        if run_for.is_some_and(|s| !(0.5..=15.0).contains(&s)) {
            return Err("`run_for` must be 0.5 to 15 seconds".into());
        }
        if !http.is_empty() && run_for.is_none() {
            return Err("[[http]] requests need `run_for` (a server that stays up)".into());
        }
        Ok(Case {
            name: name_of(dir),
            dir: dir.to_path_buf(),
            about,
            base: get_str(&t, "base")?,
            packs: get_strs(&t, "packs")?,
            golden: t.get("golden").and_then(toml::Value::as_bool).unwrap_or(false),
            setup,
            edit,
            generate,
            png,
            symlink,
            fifo: get_strs(&t, "fifo")?,
            mkdir: get_strs(&t, "mkdir")?,
            delete: get_strs(&t, "delete")?,
            args: get_strs(&t, "args")?,
            project_arg: t.get("project").and_then(toml::Value::as_bool).unwrap_or(true),
            stdin,
            exit,
            expect: get_strs(&t, "expect")?,
            reject: get_strs(&t, "reject")?,
            outputs: get_strs(&t, "outputs")?,
            run_for,
            http,
        })
    }
}

// ---- laying out a case ----

/// The folders of one run: `project`, `outside` (bait beside the project), `home`, `tmp`.
struct Layout {
    root: PathBuf,
    project: PathBuf,
    outside: PathBuf,
    home: PathBuf,
    tmp: PathBuf,
}

impl Layout {
    fn vars(&self) -> impl Fn(&str) -> String + '_ {
        move |s: &str| {
            s.replace("{project}", &self.project.to_string_lossy())
                .replace("{outside}", &self.outside.to_string_lossy())
                .replace("{tmp}", &self.tmp.to_string_lossy())
                .replace("{home}", &self.home.to_string_lossy())
        }
    }

    /// A path of the recipe: `{outside}/x`, `{tmp}/x`, an absolute path, or one in the project.
    fn path(&self, p: &str) -> PathBuf {
        let p = (self.vars())(p);
        let p = Path::new(&p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.project.join(p)
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let t = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &t)?;
        } else {
            std::fs::copy(e.path(), &t)?;
        }
    }
    Ok(())
}

/// Bait beside the project: what a link out of it would reach.
const BAIT: &[(&str, &str)] = &[
    ("secret.toml", "[[card]]\nid = \"secret\"\nname = \"Secret\"\n"),
    ("bashrc", "# a file a hostile pack would like to overwrite\nexport PATH=/usr/bin\n"),
    ("secret.transcript", "the outside transcript: must never be replaced\n"),
    ("notes/readme.txt", "a folder outside the project\n"),
];

fn lay_out(repo: &Path, bin: &Path, case: &Case, l: &Layout) -> Result<(), String> {
    for d in [&l.project, &l.outside, &l.home, &l.tmp] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    for (p, text) in BAIT {
        let path = l.outside.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
    }
    if let Some(b) = &case.base {
        let from = repo.join("tests/invalid/_base").join(b);
        copy_dir(&from, &l.project).map_err(|e| format!("base {b}: {e}"))?;
    }
    for p in &case.packs {
        let mut parts = vec!["content", "scripts"];
        if case.golden {
            parts.push("tests/golden");
        }
        for part in parts {
            let from = repo.join(part).join(p);
            if from.is_dir() {
                copy_dir(&from, &l.project.join(part).join(p)).map_err(|e| format!("pack {p}: {e}"))?;
            }
        }
    }
    // The case's own files, laid over the base.
    for e in std::fs::read_dir(&case.dir).map_err(|e| e.to_string())?.flatten() {
        let name = e.file_name();
        if name == "case.toml" {
            continue;
        }
        let to = l.project.join(&name);
        if e.path().is_dir() {
            copy_dir(&e.path(), &to).map_err(|e| e.to_string())?;
        } else {
            std::fs::copy(e.path(), &to).map_err(|e| e.to_string())?;
        }
    }
    for cmd in &case.setup {
        let args: Vec<String> = cmd.iter().map(|a| (l.vars())(a)).collect();
        let o = Command::new(bin)
            .arg("--project")
            .arg(&l.project)
            .args(&args)
            .current_dir(&l.project)
            .env("HOME", &l.home)
            .env("TMPDIR", &l.tmp)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("setup {args:?}: {e}"))?;
        if !o.status.success() {
            return Err(format!("setup {args:?} failed: {}", String::from_utf8_lossy(&o.stderr).trim_end()));
        }
    }
    for e in &case.edit {
        let path = l.path(&e.path);
        let text = std::fs::read_to_string(&path).map_err(|err| format!("edit {}: {err}", e.path))?;
        match text.matches(&e.find).count() {
            1 => {
                std::fs::write(&path, text.replacen(&e.find, &(l.vars())(&e.replace), 1)).map_err(|e| e.to_string())?
            }
            n => return Err(format!("edit {}: `{}` occurs {n} times; it must occur once", e.path, e.find)),
        }
    }
    for d in &case.delete {
        let p = l.path(d);
        let r = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        r.map_err(|e| format!("delete {d}: {e}"))?;
    }
    for g in &case.generate {
        for i in 0..g.copies.unwrap_or(1) {
            let numbered = |s: &str| {
                let s = (l.vars())(s);
                if g.copies.is_some() {
                    s.replace("{i}", &i.to_string())
                } else {
                    s
                }
            };
            let path = l.path(&numbered(&g.path));
            std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::write(&path, bytes_of(&g.parts, &numbered)).map_err(|e| format!("{}: {e}", g.path))?;
        }
    }
    for g in &case.png {
        let path = l.path(&g.path);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        write_png_bomb(&path, g.width, g.height).map_err(|e| format!("{}: {e}", g.path))?;
    }
    for s in &case.symlink {
        let path = l.path(&s.path);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&path);
        std::os::unix::fs::symlink((l.vars())(&s.target), &path).map_err(|e| format!("symlink {}: {e}", s.path))?;
    }
    for f in &case.fifo {
        let path = l.path(f);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&path);
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o644))
            .map_err(|e| format!("mkfifo {f}: {e}"))?;
    }
    for d in &case.mkdir {
        std::fs::create_dir_all(l.path(d)).map_err(|e| format!("mkdir {d}: {e}"))?;
    }
    Ok(())
}

/// A 1-bit grey PNG of zeros: tiny on disk, `width * height * 4` bytes once decoded to
/// RGBA.
fn write_png_bomb(path: &Path, width: u32, height: u32) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::One);
    enc.set_compression(png::Compression::High);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    let mut s = w.stream_writer().map_err(|e| e.to_string())?;
    let row = vec![0u8; (width as usize).div_ceil(8)];
    for _ in 0..height {
        s.write_all(&row).map_err(|e| e.to_string())?;
    }
    s.finish().map_err(|e| e.to_string())
}

// ---- watching files ----

/// What stands at a path: its kind and content digest (links are not followed).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    File { len: u64, digest: u64 },
    Dir,
    Link(PathBuf),
    Other(&'static str),
}

/// Every entry under `root`, by path (links not followed; FIFOs and devices not opened).
fn snapshot(root: &Path, skip: &[PathBuf]) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    walk(root, skip, &mut out);
    out
}

fn walk(p: &Path, skip: &[PathBuf], out: &mut BTreeMap<PathBuf, Entry>) {
    if skip.iter().any(|s| s == p) {
        return;
    }
    let Ok(m) = std::fs::symlink_metadata(p) else { return };
    let ft = m.file_type();
    let entry = if ft.is_symlink() {
        Entry::Link(std::fs::read_link(p).unwrap_or_default())
    } else if ft.is_dir() {
        Entry::Dir
    } else if ft.is_file() {
        Entry::File { len: m.len(), digest: digest_file(p) }
    } else {
        use std::os::unix::fs::FileTypeExt;
        Entry::Other(if ft.is_fifo() {
            "fifo"
        } else if ft.is_socket() {
            "socket"
        } else {
            "device"
        })
    };
    let is_dir = entry == Entry::Dir;
    out.insert(p.to_path_buf(), entry);
    if is_dir {
        if let Ok(rd) = std::fs::read_dir(p) {
            let mut kids: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            kids.sort();
            for k in kids {
                walk(&k, skip, out);
            }
        }
    }
}

fn digest_file(p: &Path) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if let Ok(mut f) = std::fs::File::open(p) {
        let mut buf = vec![0u8; 1 << 16];
        while let Ok(n) = f.read(&mut buf) {
            if n == 0 {
                break;
            }
            h.write(&buf[..n]);
        }
    }
    h.finish()
}

/// The changes from `a` to `b`: each path, and what happened to it.
fn diff(a: &BTreeMap<PathBuf, Entry>, b: &BTreeMap<PathBuf, Entry>) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for (p, e) in a {
        match b.get(p) {
            None => out.push((p.clone(), format!("deleted {}", p.display()))),
            Some(f) if f != e => out.push((p.clone(), format!("changed {} ({} -> {})", p.display(), kind(e), kind(f)))),
            _ => {}
        }
    }
    for p in b.keys().filter(|p| !a.contains_key(*p)) {
        out.push((p.clone(), format!("created {}", p.display())));
    }
    out
}

fn kind(e: &Entry) -> String {
    match e {
        Entry::File { len, .. } => format!("file of {len} bytes"),
        Entry::Dir => "folder".into(),
        Entry::Link(t) => format!("link to {}", t.display()),
        Entry::Other(k) => (*k).into(),
    }
}

// ---- running ----

/// What running a case gave.
struct Outcome {
    name: String,
    about: String,
    code: Option<i32>,
    signal: Option<i32>,
    elapsed: Duration,
    /// Peak resident memory in bytes (exact when the case raised the largest child's).
    peak_rss: u64,
    problems: Vec<String>,
    output: String,
}

impl Outcome {
    fn broken(name: &str, why: String) -> Outcome {
        Outcome {
            name: name.to_string(),
            about: String::new(),
            code: None,
            signal: None,
            elapsed: Duration::ZERO,
            peak_rss: 0,
            problems: vec![why],
            output: String::new(),
        }
    }

    fn line(&self) -> String {
        let how = match (self.code, self.signal) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(s)) => format!("signal {s}"),
            _ => "-".into(),
        };
        format!(
            "{} {:<44} {:>9} {:>7.2} s {:>6} MiB",
            if self.problems.is_empty() { "ok  " } else { "FAIL" },
            self.name,
            how,
            self.elapsed.as_secs_f64(),
            self.peak_rss >> 20
        )
    }
}

/// The largest resident size of any child waited for so far, in bytes.
fn children_max_rss() -> u64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map(|u| u.max_rss().max(0) as u64 * 1024)
        .unwrap_or(0)
}

/// `VmHWM` of a running process, in bytes.
fn peak_rss_of(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Spawn with the address-space backstop: lowered in this process for the spawn (the
/// child inherits it), then raised back.
fn spawn_limited(cmd: &mut Command) -> std::io::Result<Child> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (soft, hard) = getrlimit(Resource::RLIMIT_AS).map_err(std::io::Error::from)?;
    setrlimit(Resource::RLIMIT_AS, ADDRESS_SPACE_LIMIT.min(hard), hard).map_err(std::io::Error::from)?;
    let child = cmd.spawn();
    setrlimit(Resource::RLIMIT_AS, soft, hard).map_err(std::io::Error::from)?;
    child
}

fn run_case(repo: &Path, bin: &Path, case: &Case, keep: bool, max_rss_seen: &mut u64) -> Outcome {
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

/// A fresh folder for one case in the system's temporary folder.
fn tempfile_dir(name: &str) -> Result<PathBuf, String> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("crown-hostile-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.canonicalize().unwrap_or(dir))
}

/// Send each request to the server on `port`; the problems (a status not allowed), then
/// a plain request that must still be answered 200.
fn send_requests(port: u16, reqs: &[Http], vars: &dyn Fn(&str) -> String) -> Vec<String> {
    let host = format!("127.0.0.1:{port}");
    let with_host = |s: &str| vars(s).replace("{host}", &host).replace("{port}", &port.to_string());
    let mut problems = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let bytes = bytes_of(&r.parts, &with_host);
        let status = raw_request(port, &bytes, r.split_at, r.pause_ms);
        if !r.expect.is_empty() && !r.expect.contains(&status) {
            problems.push(format!("request {} answered {status}, expected one of {:?}", i + 1, r.expect));
        }
    }
    let ok =
        raw_request(port, format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(), None, 0);
    if ok != 200 {
        problems.push(format!("after the hostile requests, GET / answered {ok}, not 200"));
    }
    problems
}

/// The status code of the answer to `bytes` (0 when the connection closed without one).
fn raw_request(port: u16, bytes: &[u8], split_at: Option<usize>, pause_ms: u64) -> u16 {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return 0 };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
    let at = split_at.unwrap_or(bytes.len()).min(bytes.len());
    let _ = s.write_all(&bytes[..at]);
    if pause_ms > 0 {
        std::thread::sleep(Duration::from_millis(pause_ms));
    }
    let _ = s.write_all(&bytes[at..]);
    let mut head = [0u8; 12];
    let mut got = 0;
    while got < head.len() {
        match s.read(&mut head[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    std::str::from_utf8(&head[..got])
        .ok()
        .and_then(|h| h.strip_prefix("HTTP/1.1 "))
        .and_then(|h| h.get(..3))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_reads() {
        let dir = repo_root().join("tests/hostile");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.path().is_dir() && !name_of(&e.path()).starts_with('_') {
                Case::read(&e.path()).unwrap_or_else(|err| panic!("{}: {err}", e.path().display()));
                n += 1;
            }
        }
        assert!(n >= 40, "the hostile set has {n} cases; it should have at least 40");
    }

    #[test]
    fn diff_sees_changes() {
        let a: BTreeMap<PathBuf, Entry> =
            [("/a".into(), Entry::Dir), ("/a/x".into(), Entry::File { len: 1, digest: 1 })].into();
        let mut b = a.clone();
        b.insert("/a/x".into(), Entry::File { len: 1, digest: 2 });
        b.insert("/a/y".into(), Entry::Link("/etc".into()));
        let d: Vec<String> = diff(&a, &b).into_iter().map(|x| x.1).collect();
        assert_eq!(d, vec!["changed /a/x (file of 1 bytes -> file of 1 bytes)", "created /a/y"]);
        assert_eq!(
            bytes_of(&[Part { text: "{n},".into(), hex: vec![0xff], repeat: 3 }], &|s| s.to_string()),
            b"0,\xff1,\xff2,\xff"
        );
    }
}
