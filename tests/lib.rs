//! Shared helpers for the integration tests.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crown_engine::content::{load_pack as load, LoadOptions, Pack, Project};

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

/// The built `crown` binary, for tests that capture its output.
pub fn crown_bin() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| here.join("../target"));
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    target.join(profile).join("crown")
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
        req.labels.iter().position(|l| *l == want).ok_or_else(|| {
            format!("{} was asked \"{}\": no option '{want}' among {:?}", req.player_name, req.prompt, req.labels)
        })
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
    let merged = rules.merge(&ast);
    let (game, r) = crown_engine::script::api::with_installed(game, || crown_engine::script::engine().run_ast(&merged));
    (game, r.map_err(|e| e.to_string()))
}

/// The `crown` binary, built when it is missing or older than the engine's or the tools'
/// sources (`cargo test -p crown-tests` does not build other packages' binaries). Built at
/// most once per test process.
pub fn fresh_crown_bin() -> PathBuf {
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let bin = crown_bin();
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let root = repo_project().root;
    let newest = ["engine/src", "tools/src", "tools/templates", "engine/Cargo.toml", "tools/Cargo.toml"]
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(root.join(d)).into_iter().flatten())
        .filter_map(|e| e.metadata().ok()?.modified().ok())
        .max();
    let stale = match (std::fs::metadata(&bin).and_then(|m| m.modified()), newest) {
        (Ok(t), Some(n)) => t < n,
        (Ok(_), None) => false,
        (Err(_), _) => true,
    };
    if stale && !*built {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "-q", "-p", "crown-tools", "--bin", "crown"])
            .current_dir(&root)
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build -p crown-tools failed");
        *built = true;
    }
    assert!(bin.is_file(), "{} is missing: run `cargo build -p crown-tools` first", bin.display());
    bin
}

/// Start the `crown` binary with `args`, its standard output and error read line by line
/// on their own threads (so a chatty process never blocks on a full pipe).
pub fn spawn_crown(
    args: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(fresh_crown_bin())
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
