//! Shared helpers for the integration tests (both test binaries include this module).

// Each test binary uses its own subset of the helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::load::{load_pack as load, LoadOptions, Project};

/// The repository itself, a Crown project shipping the packs.
pub fn repo_project() -> Project {
    Project::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// Load a pack or describe its errors.
pub fn load_pack(project: &Project, id: &str) -> Result<Arc<Pack>, String> {
    let l = load(project, id, LoadOptions::default());
    match l.pack {
        Some(p) => Ok(Arc::new(p)),
        None => {
            Err(l.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))
        }
    }
}

/// Run the `crown` command in-process: exit code, and nothing captured (output goes to the
/// test's output). Use [`crown_bin`] to capture output.
pub fn crown(args: &[&str]) -> i32 {
    crown_tools::run(std::iter::once("crown").chain(args.iter().copied()))
}

/// The `crown` binary cargo built for these tests, for tests that run it as a child
/// process (to capture its output, or to see how it exits).
pub fn crown_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_crown"))
}

/// Copy a folder recursively.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let p = e.path();
        let t = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&p, &t)?;
        } else {
            std::fs::copy(&p, &t)?;
        }
    }
    Ok(())
}

/// A temporary project holding copies of parts of this repository (`content/PACK`,
/// `scripts/PACK`, `tests/golden`...), for tests that edit a pack.
pub fn project_copy(parts: &[&str]) -> tempfile::TempDir {
    let repo = repo_project().root;
    let dir = tempfile::tempdir().expect("a temporary folder");
    for part in parts {
        copy_dir(&repo.join(part), &dir.path().join(part)).unwrap_or_else(|e| panic!("copy {part}: {e}"));
    }
    dir
}

/// Replace the first `old` that follows the first `after` in a file (`after` finds the
/// definition, `old` the text to edit in it). Panics naming what was not found, so a
/// moved value fails the test that edits it.
pub fn edit_after(file: &Path, after: &[&str], old: &str, new: &str) {
    let s = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut at = 0;
    for a in after {
        at += s[at..].find(a).unwrap_or_else(|| panic!("no `{a}` in {}", file.display()));
    }
    let i = at + s[at..].find(old).unwrap_or_else(|| panic!("no `{old}` after {after:?} in {}", file.display()));
    std::fs::write(file, format!("{}{new}{}", &s[..i], &s[i + old.len()..])).unwrap();
}

/// Answers of a position test, queued per seat by label.
pub type SeatQueue = std::sync::Arc<std::sync::Mutex<Vec<std::collections::VecDeque<String>>>>;

/// Answers each choice with the next label queued for its seat. With nothing queued it
/// takes the first option, or fails when `strict` (every decision spelled out).
pub struct QueuedAgent {
    pub seat: usize,
    pub queue: SeatQueue,
    pub strict: bool,
}

impl crown_engine::game::agent::Agent for QueuedAgent {
    fn choose(&mut self, req: &crown_engine::game::agent::ChoiceRequest<'_>) -> Result<usize, String> {
        let mut q = self.queue.lock().unwrap();
        let Some(want) = q[self.seat].pop_front() else {
            return if self.strict {
                Err(format!(
                    "{} was asked \"{}\" with nothing queued; options: {:?}",
                    req.player_name, req.prompt, req.labels
                ))
            } else {
                Ok(0)
            };
        };
        // The label as written, else the one option whose label is it followed by its
        // cost or effect (`Use No Mercy` for `Use No Mercy (2 tokens): ...`).
        if let Some(i) = req.labels.iter().position(|l| *l == want) {
            return Ok(i);
        }
        let longer: Vec<usize> = (0..req.labels.len())
            .filter(|&i| {
                let rest = req.labels[i].strip_prefix(want.as_str()).unwrap_or("");
                rest.starts_with(" (") || rest.starts_with(": ")
            })
            .collect();
        match longer[..] {
            [i] => Ok(i),
            _ => Err(format!(
                "{} was asked \"{}\": no option '{want}' among {:?}",
                req.player_name, req.prompt, req.labels
            )),
        }
    }
    fn kind(&self) -> String {
        "test".into()
    }
}

/// One queued agent per seat, sharing one queue.
pub fn queued_agents(players: usize, strict: bool) -> (SeatQueue, Vec<Box<dyn crown_engine::game::agent::Agent>>) {
    let queue: SeatQueue = std::sync::Arc::new(std::sync::Mutex::new(vec![Default::default(); players]));
    let agents = (0..players)
        .map(|seat| {
            Box::new(QueuedAgent { seat, queue: queue.clone(), strict }) as Box<dyn crown_engine::game::agent::Agent>
        })
        .collect();
    (queue, agents)
}

/// Run a Rhai snippet (after `prelude`) against a game, with every function of the pack's
/// rules script available to it: how position tests set up and inspect a table.
pub fn run_snippet(
    game: crown_engine::game::Game,
    prelude: &str,
    snippet: &str,
) -> (crown_engine::game::Game, Result<(), String>) {
    let rules = game.pack.rules_script().expect("rules").ast.clone();
    let text = format!("{prelude}\n{snippet}");
    let ast = crown_engine::script::compile("position", &text).unwrap_or_else(|e| panic!("snippet: {e}"));
    // The bots' script too, where the pack has one (snippets may ask what a bot would do).
    let rules = match game.pack.bots.and_then(|i| game.pack.scripts.get(i)) {
        Some(b) => rules.merge(&b.ast),
        None => (*rules).clone(),
    };
    let merged = rules.merge(&ast);
    let (game, r) = crown_engine::script::api::with_installed(game, || crown_engine::script::engine().run_ast(&merged));
    (game, r.map_err(|e| e.to_string()))
}

/// Start the `crown` binary with `args`, its standard output and error read line by line
/// on their own threads (so a chatty process never blocks on a full pipe).
pub fn spawn_crown(
    args: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(crown_bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .expect("the crown binary starts");
    let lines = |r: Box<dyn std::io::Read + Send>| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(r).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        rx
    };
    let out = lines(Box::new(child.stdout.take().expect("piped stdout")));
    let err = lines(Box::new(child.stderr.take().expect("piped stderr")));
    (child, out, err)
}

/// A table for position tests: a game of a pack whose seats answer from queued labels,
/// and Rhai snippets (after the pack's test prelude) run against it.
pub struct Table {
    game: Option<crown_engine::game::Game>,
    queue: SeatQueue,
    prelude: &'static str,
}

impl Table {
    /// A game of `pack` not yet set up; `strict` seats fail when asked with nothing queued.
    pub fn new(
        pack: Arc<Pack>,
        prelude: &'static str,
        players: usize,
        seed: u64,
        scenario: Option<&str>,
        strict: bool,
    ) -> Table {
        let (queue, agents) = queued_agents(players, strict);
        let mut cfg = crown_engine::game::GameConfig::new(seed, players);
        cfg.scenario = scenario.map(str::to_string);
        let game = crown_engine::game::Game::new(pack, cfg, agents).expect("game starts");
        Table { game: Some(game), queue, prelude }
    }

    /// Queue the labels seat `p` will pick, in order.
    pub fn answers(&self, p: usize, labels: &[&str]) {
        self.queue.lock().unwrap()[p].extend(labels.iter().map(|s| s.to_string()));
    }

    /// Run a snippet against the table; an error fails the test with the transcript.
    pub fn run(&mut self, snippet: &str) {
        let prelude = self.prelude;
        let r = self.with_game(|game| run_snippet(game, prelude, snippet));
        if let Err(e) = r {
            panic!("{e}\n--- transcript ---\n{}", self.transcript());
        }
    }

    /// Hand the game to `f` (which gives it back), for tests that run scripts their own way.
    pub fn with_game<T>(&mut self, f: impl FnOnce(crown_engine::game::Game) -> (crown_engine::game::Game, T)) -> T {
        let (game, out) = f(self.game.take().expect("table"));
        self.game = Some(game);
        out
    }

    pub fn game(&self) -> &crown_engine::game::Game {
        self.game.as_ref().expect("table")
    }

    pub fn game_mut(&mut self) -> &mut crown_engine::game::Game {
        self.game.as_mut().expect("table")
    }

    pub fn transcript(&self) -> String {
        self.game().transcript.as_ref().map(|t| t.join("\n")).unwrap_or_default()
    }

    /// Choices seat `p`'s agent was actually asked (more than one option).
    pub fn asked(&self, p: usize) -> Vec<String> {
        self.game().choices.iter().filter(|c| c.player == p && c.asked).map(|c| c.label.clone()).collect()
    }

    /// Queued labels no choice asked for, per seat.
    pub fn unused_answers(&self) -> Vec<Vec<String>> {
        self.queue.lock().unwrap().iter().map(|q| q.iter().cloned().collect()).collect()
    }

    pub fn over(&self) -> Option<(Vec<usize>, String)> {
        self.game().over.clone()
    }
}

/// The Chromium the browser tests drive: the binary `CROWN_CHROMIUM` names, else the first
/// of `chromium`, `chromium-browser`, `google-chrome` on `PATH`. When there is none the
/// test fails with one message saying what to install; nothing here installs anything
/// (`cargo xtask test`, the README's test command, does that before the tests run).
pub fn chromium() -> PathBuf {
    static FOUND: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    let found = FOUND.get_or_init(|| {
        if let Some(v) = std::env::var_os("CROWN_CHROMIUM").filter(|v| !v.is_empty()) {
            let p = PathBuf::from(v);
            return if p.is_file() {
                Ok(p)
            } else {
                Err(format!("CROWN_CHROMIUM is set to {}, which is not a file", p.display()))
            };
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
            .iter()
            .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                "this browser test needs Chromium and none was found on PATH: run the suite with \
                 `cargo xtask test` (it installs Debian's `chromium` package), install Chromium \
                 yourself, or set CROWN_CHROMIUM to a Chromium or Chrome binary"
                    .to_string()
            })
    });
    match found {
        Ok(p) => p.clone(),
        Err(e) => panic!("{e}"),
    }
}

/// Every shipped pack, the expansion included.
pub const SHIPPED_PACKS: &[&str] = &[
    "take-the-kingdom",
    "the-last-kingdom",
    "kingdom-legacy",
    "kingdom-legacy-saltroad",
    "kingdoms-in-conflict",
    "crownfields",
    "oh-hell",
];
