//! `crown play`: a person plays at the terminal against bots; `--record` writes the game
//! file for the golden suite.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use crown_engine::bots;
use crown_engine::content::{Pack, Project};
use crown_engine::game::agent::{Agent, ChoiceRequest};
use crown_engine::game::narrate::LogLevel;
use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, GameConfig, Status};

use crate::live::{FsWatcher, ReloadOptions, Reloader};
use crate::table::{self, Renderer, Seen, ViewKind};
use crate::{out, session};

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The pack, by id or path.
    pub pack: String,
    /// Scenario id (default: the pack's default scenario).
    #[arg(long)]
    pub scenario: Option<String>,
    /// The game's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of players. (1 to 64)
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub players: Option<usize>,
    /// Agent per seat, comma-separated: human, random, first, greedy, search[:ROLLOUTS][:DEPTH][:POLICY] (default: human, then random).
    #[arg(long, value_delimiter = ',')]
    pub agents: Vec<String>,
    /// Write the game file (pack, scenario, seed, players, choices) here when the game ends.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Write the transcript here when the game ends.
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// What the game tells you as it goes: `private` (the default: what your seat may
    /// know: every public event and your own hidden ones), `public` (what a spectator sees)
    /// or `debug` (every transcript line, every seat's hidden cards included).
    #[arg(long, default_value = "private", value_parser = LogLevel::parse)]
    pub log: LogLevel,
    /// Reload the pack's definitions and scripts between choices when its files change,
    /// keeping the game as it stands.
    #[arg(long)]
    pub watch: bool,
    /// Quiet time, in milliseconds, that ends a batch of changes (with `--watch`).
    #[arg(long, default_value_t = crate::live::DEFAULT_DEBOUNCE_MS, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=60_000))]
    pub debounce: u64,
    /// Poll the files instead of relying on change events (with `--watch`).
    #[arg(long)]
    pub poll: bool,
}

/// A person choosing at the terminal: numbered options, re-asked on bad input; a few
/// words ask for something else than an option (see [`HumanAgent::ask`]).
pub struct HumanAgent<R: BufRead + Send, W: Write + Send> {
    pub input: R,
    pub output: W,
}

/// What the words typed at a menu other than an option ask for.
const COMMANDS: &str = "board (the whole table), status (your state again), log (what happened lately), help";

impl<R: BufRead + Send, W: Write + Send> HumanAgent<R, W> {
    fn read_line(&mut self) -> Result<String, String> {
        match crate::out::read_input_line(&mut self.input) {
            Ok(None) => Err("input ended: the game was abandoned".into()),
            Ok(Some(line)) => Ok(line.trim().to_string()),
            Err(e) => Err(format!("cannot read input ({e}): the game was abandoned")),
        }
    }

    /// Ask the menu of `req`. A line that is neither an option's number nor its label is
    /// handed to `command`; what it returns is shown and the menu asked again (`None`: not
    /// a command either).
    pub fn ask(
        &mut self,
        req: &ChoiceRequest<'_>,
        command: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Result<usize, String> {
        let _ = writeln!(self.output, "{}, {}:", req.player_name, req.prompt);
        for (i, l) in req.labels.iter().enumerate() {
            let _ = writeln!(self.output, "  {:>2}. {l}", i + 1);
        }
        loop {
            let _ = write!(self.output, "choose 1-{}> ", req.labels.len());
            let _ = self.output.flush();
            let t = self.read_line()?;
            let picked = match t.parse::<usize>() {
                Ok(n) if (1..=req.labels.len()).contains(&n) => Some(n - 1),
                _ => req.labels.iter().position(|l| l.eq_ignore_ascii_case(&t)),
            };
            let Some(i) = picked else {
                match command(&t.to_lowercase()) {
                    Some(text) => {
                        let _ = writeln!(self.output, "{}", text.trim_end());
                        let _ = writeln!(self.output, "{}, {}:", req.player_name, req.prompt);
                        for (i, l) in req.labels.iter().enumerate() {
                            let _ = writeln!(self.output, "  {:>2}. {l}", i + 1);
                        }
                    }
                    None => {
                        let _ = writeln!(
                            self.output,
                            "'{}' is not an option: type a number from 1 to {}, or {COMMANDS}",
                            crate::out::shown(&t),
                            req.labels.len()
                        );
                    }
                }
                continue;
            };
            // A choice the rules mark with `confirm` (resigning, passing with actions
            // left) is asked again before it is taken.
            let Some(question) = req.confirm(i) else { return Ok(i) };
            let _ = write!(self.output, "{question} (y/n)> ");
            let _ = self.output.flush();
            let answer = self.read_line()?;
            if matches!(answer.to_lowercase().as_str(), "y" | "yes") {
                return Ok(i);
            }
            let _ = writeln!(self.output, "not taken; choose again");
        }
    }
}

impl<R: BufRead + Send, W: Write + Send> Agent for HumanAgent<R, W> {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let _ = writeln!(self.output);
        self.ask(req, &mut |_| None)
    }
    fn kind(&self) -> String {
        "human".into()
    }
}

/// A person at the terminal, shown before each decision what their seat needs (the
/// rules' `render_status(viewer)`, else their counters and own cards), the whole table on
/// request (`board`: the rules' `render(viewer)`, else the engine's view), and the
/// narration their seat may read as it happens (printed by the game's listener, see
/// [`table::listener`]; `log` shows it again).
pub struct TablePlayer<R: BufRead + Send, W: Write + Send> {
    pub human: HumanAgent<R, W>,
    renderer: Renderer,
    seen: Seen,
}

impl<R: BufRead + Send, W: Write + Send> TablePlayer<R, W> {
    pub fn new(input: R, output: W) -> Self {
        Self::with_log(input, output, Seen::default())
    }

    /// A person who has been shown the narrated lines kept in `seen`.
    pub fn with_log(input: R, output: W, seen: Seen) -> Self {
        TablePlayer { human: HumanAgent { input, output }, renderer: Renderer::default(), seen }
    }
}

impl<R: BufRead + Send, W: Write + Send> Agent for TablePlayer<R, W> {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let (status, note) = self.renderer.draw(req.pack, req.player, ViewKind::Status);
        if let Some(n) = note {
            let _ = writeln!(self.human.output, "{n}");
        }
        let _ = writeln!(self.human.output, "\n{status}");
        let (renderer, seen) = (&mut self.renderer, &self.seen);
        let mut command = |word: &str| -> Option<String> {
            match word {
                "board" | "b" | "table" => {
                    let (text, note) = renderer.draw(req.pack, req.player, ViewKind::Board);
                    Some(note.map_or(text.clone(), |n| format!("{n}\n{text}")))
                }
                "status" | "s" => {
                    let (text, note) = renderer.draw(req.pack, req.player, ViewKind::Status);
                    Some(note.map_or(text.clone(), |n| format!("{n}\n{text}")))
                }
                "log" | "l" => {
                    let lines = seen.lock().map(|s| s.clone()).unwrap_or_default();
                    let from = lines.len().saturating_sub(30);
                    Some(if lines.is_empty() {
                        "(nothing has been told yet)".to_string()
                    } else {
                        lines[from..].join("\n")
                    })
                }
                "help" | "h" | "?" => Some(format!(
                    "Type an option's number (or its label), or: {COMMANDS}. A choice that ends something \
                     for good asks y/n first."
                )),
                _ => None,
            }
        };
        self.human.ask(req, &mut command)
    }
    fn kind(&self) -> String {
        "human".into()
    }
}

pub fn run(project: &Project, args: &PlayArgs) -> i32 {
    let pack = match session::load(project, &args.pack) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let scenario = args.scenario.as_deref();
    let players = session::player_count(&pack, scenario, args.players);
    let mut wanted = args.agents.clone();
    if wanted.is_empty() {
        wanted.push("human".into());
        wanted.push("random".into());
    }
    let kinds = match session::agent_kinds(&pack, scenario, players, &wanted, "random") {
        Ok(k) => k,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    // Before playing: the files asked for must be writable, or the game is lost.
    for path in args.transcript.iter().chain(&args.record) {
        if let Err(e) = out::check_writable(path) {
            eprintln!("error: cannot write {}: {e}; nothing was played", path.display());
            return 1;
        }
    }
    let seen = Seen::default();
    let agents: Vec<Box<dyn Agent>> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| -> Box<dyn Agent> {
            if k == "human" {
                Box::new(TablePlayer::with_log(
                    std::io::BufReader::new(std::io::stdin()),
                    std::io::stdout(),
                    seen.clone(),
                ))
            } else {
                bots::bot(k, args.seed, i).expect("known agent")
            }
        })
        .collect();
    let mut cfg = GameConfig::new(args.seed, players);
    cfg.scenario = args.scenario.clone();
    let mut game = match Game::new(pack.clone(), cfg, agents) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    // What the scripts print (print() and debug()) is shown as it happens (the debug log
    // shows them in their place among the transcript's lines).
    if args.log != LogLevel::Debug {
        game.echo = Some(Box::new(|line| eprintln!("script {line}")));
    }
    // What happens is told as it happens, as the person's seats may know it.
    let humans: Vec<usize> = kinds.iter().enumerate().filter(|(_, k)| *k == "human").map(|(i, _)| i).collect();
    game.listener = Some(table::listener(args.log, humans, seen, |line| println!("{line}")));
    println!(
        "{} {} — seed {}, {} players ({})",
        pack.manifest.name,
        pack.manifest.version,
        args.seed,
        players,
        kinds.join(", ")
    );
    match args.log {
        LogLevel::Debug => println!(
            "debug log: every transcript line is shown, with every seat's hidden information (hands, face-down cards)"
        ),
        LogLevel::Public => println!("public log: what a spectator sees (your own hidden draws are not told either)"),
        LogLevel::Private => {}
    }
    if kinds.iter().any(|k| k == "human") {
        println!("at a menu, type an option's number, or: {COMMANDS}");
    }
    if args.watch {
        match live_reload(project, &args.pack, args.poll, args.debounce) {
            Ok(hook) => game.reload = Some(hook),
            Err(e) => {
                eprintln!("error: {e}");
                return 1;
            }
        }
        println!("watching the pack's files: edits apply at the next choice");
    }
    let (game, outcome) = game.run();
    let text = transcript_text(&game, &outcome);
    if let Status::TurnLimit = outcome.status {
        println!("the game stopped at the turn limit ({} turns)", game.max_turns);
    }
    if let Some(path) = &args.transcript {
        if let Err(e) = out::write_atomic(path, text.as_bytes()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return 1;
        }
    }
    if let Some(path) = &args.record {
        let file = GameFile::from_game(&game, kinds.clone(), String::new());
        if let Err(e) = out::write_atomic(path, file.to_toml().as_bytes()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return 1;
        }
        println!("recorded {}", path.display());
    }
    match outcome.status {
        Status::Failed(f) => {
            eprintln!("error: {f}");
            1
        }
        _ => 0,
    }
}

/// The hook [`Game::reload`] calls between choices.
pub type ReloadHook = Box<dyn FnMut() -> Option<Arc<Pack>> + Send>;

/// Watch a pack's files for a game in progress: a thread reloads the pack on every change
/// and leaves the newest good load for the hook to hand over at the next choice. A reload
/// with errors prints its diagnostics and hands over nothing: the game keeps what it has.
pub fn live_reload(project: &Project, pack: &str, poll: bool, debounce_ms: u64) -> Result<ReloadHook, String> {
    let mut reloader =
        Reloader::new(project, &[pack.to_string()], ReloadOptions::default()).map_err(|d| d.message.clone())?;
    let mut watcher = FsWatcher::new(&reloader.project.root, poll, Duration::from_millis(debounce_ms.max(1)))?;
    let slot: Arc<Mutex<Option<Arc<Pack>>>> = Arc::new(Mutex::new(None));
    let writer = slot.clone();
    std::thread::Builder::new()
        .name("crown-play-watch".into())
        .spawn(move || {
            while let Some(batch) = watcher.next_batch(None) {
                if batch.is_empty() {
                    continue;
                }
                for rep in reloader.apply(&batch) {
                    if !rep.ok() {
                        reloader.print_diagnostics(&rep.pack);
                        eprintln!("{} (the game goes on unchanged)", rep.line());
                        continue;
                    }
                    if rep.loaded {
                        if let Some(p) = reloader.packs.get(&rep.pack).and_then(|s| s.pack.clone()) {
                            if let Ok(mut s) = writer.lock() {
                                *s = Some(p);
                            }
                        }
                        eprintln!("{} (applies at the next choice)", rep.line());
                        if !rep.removed.is_empty() {
                            eprintln!(
                                "note: {} removed: if the game holds any of them, the reload is refused and the game \
                                 keeps its definitions",
                                rep.removed.join(", ")
                            );
                        }
                        if !rep.incompatible.is_empty() {
                            eprintln!(
                                "note: {} changed shape: cards in play take the new definition (a card on a stage \
                                 that is gone reads the definition's own values)",
                                rep.incompatible.join(", ")
                            );
                        }
                    }
                }
            }
        })
        .map_err(|e| format!("cannot start the watcher thread: {e}"))?;
    Ok(Box::new(move || slot.lock().ok().and_then(|mut s| s.take())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crown_engine::content::{load_pack, LoadOptions};
    use crown_engine::game::GameConfig;

    /// A writer the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn play_with(pack: &str, keys: &str) -> String {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, pack, LoadOptions::default()).pack.expect("pack loads"));
        let out = Shared::default();
        let input = std::io::Cursor::new(keys.repeat(200).into_bytes());
        let agents: Vec<Box<dyn Agent>> =
            vec![Box::new(TablePlayer::new(input, out.clone())), bots::bot("first", 1, 1).unwrap()];
        let game = Game::new(pack, GameConfig::new(1, 2), agents).unwrap();
        let _ = game.run();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text
    }

    #[test]
    fn the_status_comes_before_each_decision_and_the_board_on_request() {
        let text = play_with("take-the-kingdom", "board\n1\n");
        let head = &text[text.len().saturating_sub(3000)..];
        // render_status(viewer): the person's counters and hand, one line per rival.
        assert!(text.contains("You, P1 (") && text.contains("your hand: "), "{head}");
        // `board`: the rules' render(viewer), the deck line first.
        assert!(text.contains("> deck 94, discard 0\nYou, P1: defence 0"), "{head}");
        // Never the engine's plain view of the other seat's hidden hand.
        assert!(!text.contains("hand@P2"), "{head}");
    }

    /// Without render hooks the engine draws both: the seat's counters and own cards,
    /// and its plain view of the table.
    #[test]
    fn without_render_hooks_the_engine_draws_the_table() {
        let root = tempfile::tempdir().unwrap();
        for (rel, text) in [
            (
                "content/p/pack.toml",
                "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 2, max = 2 }\n\
                 show_counters = [\"gold\"]\ncounter_names = { gold = \"gold coins\" }\n",
            ),
            (
                "content/p/cards.toml",
                "[[card]]\nid = \"coin\"\nname = \"Coin\"\nkind = \"card\"\ncount = 4\ndecks = [\"main\"]\n",
            ),
            (
                "scripts/p/rules.rhai",
                "fn setup() { create_deck(\"main\", zone(\"deck\")); for p in 0..2 { draw(zone(\"deck\"), pzone(p, \"hand\")); set_counter(p, \"gold\", 3); } }\n\
                 fn turn() { let p = turn_number() % 2; choose(p, \"Act\", [\"Wait\", \"Win\"]); end_game([p], \"done\"); }\n",
            ),
        ] {
            std::fs::create_dir_all(root.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.path().join(rel), text).unwrap();
        }
        let loaded = load_pack(&Project::new(root.path()), "p", LoadOptions::default());
        let pack = Arc::new(loaded.pack.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics)));
        let out = Shared::default();
        let input = std::io::Cursor::new(b"board\n1\n".to_vec());
        let agents: Vec<Box<dyn Agent>> =
            vec![bots::bot("first", 1, 0).unwrap(), Box::new(TablePlayer::new(input, out.clone()))];
        let (_, outcome) = Game::new(pack, GameConfig::new(1, 2), agents).unwrap().run();
        assert!(matches!(outcome.status, Status::Finished), "{:?}", outcome.status);
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains("You are P2: gold coins 3\n  your hand: Coin\n"), "{text}");
        assert!(text.contains("P1: gold coins 3\nP2 <- you: gold coins 3\n"), "{text}");
        assert!(text.contains("hand@P1: 1 card(s)"), "{text}");
    }

    /// A choice the rules mark with `confirm` is asked again; "n" puts the menu back.
    #[test]
    fn a_choice_marked_confirm_is_asked_again() {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, "take-the-kingdom", LoadOptions::default()).pack.expect("pack loads"));
        let resign = rhai_map(&[("label", "Resign"), ("confirm", "Resigning ends the game. Resign?")]);
        let pass = rhai_map(&[("label", "Pass")]);
        let options = vec![pass, resign];
        let labels = vec!["Pass".to_string(), "Resign".to_string()];
        let req = ChoiceRequest {
            step: 0,
            player: 0,
            player_name: "P1",
            prompt: "Your action",
            count: labels.len(),
            labels: &labels,
            options: &options,
            pack: &pack,
            fork: None,
        };
        let ask = |input: &str| {
            let out = Shared::default();
            let mut h = HumanAgent { input: std::io::Cursor::new(input.as_bytes().to_vec()), output: out.clone() };
            let got = h.choose(&req);
            let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
            (got, text)
        };
        let (got, text) = ask("2\nn\n1\n");
        assert_eq!(got, Ok(0), "{text}");
        assert!(text.contains("Resigning ends the game. Resign? (y/n)> not taken; choose again"), "{text}");
        assert_eq!(ask("2\ny\n").0, Ok(1));
        assert_eq!(ask("1\n").0, Ok(0));
    }

    fn rhai_map(pairs: &[(&str, &str)]) -> crown_engine::script::Dynamic {
        crown_engine::script::map_of(pairs)
    }
}
