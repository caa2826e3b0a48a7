//! `crown play`: a person plays at the terminal against bots; `--record` writes the game
//! file for the golden suite.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use crown_engine::content::{Pack, Project};
use crown_engine::game::agent::{self, Agent, ChoiceRequest};
use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, GameConfig, Status};

use crate::live::{FsWatcher, ReloadOptions, Reloader};
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
    /// Agent per seat, comma-separated: human, random, first, greedy (default: human, then random).
    #[arg(long, value_delimiter = ',')]
    pub agents: Vec<String>,
    /// Write the game file (pack, scenario, seed, players, choices) here when the game ends.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Write the transcript here when the game ends.
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// Print every transcript line as the game goes.
    #[arg(long)]
    pub verbose: bool,
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

/// A person choosing at the terminal: numbered options, re-asked on bad input.
pub struct HumanAgent<R: BufRead + Send, W: Write + Send> {
    pub input: R,
    pub output: W,
}

impl<R: BufRead + Send, W: Write + Send> Agent for HumanAgent<R, W> {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let _ = writeln!(self.output, "\n{}, {}:", req.player_name, req.prompt);
        for (i, l) in req.labels.iter().enumerate() {
            let _ = writeln!(self.output, "  {:>2}. {l}", i + 1);
        }
        loop {
            let _ = write!(self.output, "choose 1-{}> ", req.labels.len());
            let _ = self.output.flush();
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) => return Err("input ended: the game was abandoned".into()),
                Ok(_) => {}
                Err(e) => return Err(format!("cannot read input: {e}")),
            }
            let t = line.trim();
            let picked = match t.parse::<usize>() {
                Ok(n) if (1..=req.labels.len()).contains(&n) => Some(n - 1),
                _ => req.labels.iter().position(|l| l.eq_ignore_ascii_case(t)),
            };
            let Some(i) = picked else {
                let _ = writeln!(self.output, "'{t}' is not an option: type a number from 1 to {}", req.labels.len());
                continue;
            };
            // A choice the rules mark with `confirm` (resigning, ending the game) is asked
            // again before it is taken.
            let Some(question) = req.confirm(i) else { return Ok(i) };
            let _ = write!(self.output, "{question} (y/n)> ");
            let _ = self.output.flush();
            let mut answer = String::new();
            match self.input.read_line(&mut answer) {
                Ok(0) => return Err("input ended: the game was abandoned".into()),
                Ok(_) => {}
                Err(e) => return Err(format!("cannot read input: {e}")),
            }
            if matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") {
                return Ok(i);
            }
            let _ = writeln!(self.output, "not taken; choose again");
        }
    }
    fn kind(&self) -> String {
        "human".into()
    }
    fn wants_view(&self) -> bool {
        true
    }
    fn show(&mut self, view: &str) {
        let _ = writeln!(self.output, "\n{view}");
    }
}

/// A person at the terminal, shown the table as the rules script's `render()` draws it
/// (public information, followed by the player's own cards from the engine's view), or
/// the engine's [`Game::view`](crown_engine::game::Game::view) when the pack has no
/// `render()` or it fails.
pub struct TablePlayer<R: BufRead + Send, W: Write + Send> {
    pub human: HumanAgent<R, W>,
    view: Option<String>,
    render_failed: bool,
}

impl<R: BufRead + Send, W: Write + Send> TablePlayer<R, W> {
    pub fn new(input: R, output: W) -> Self {
        TablePlayer { human: HumanAgent { input, output }, view: None, render_failed: false }
    }

    fn rendered(&mut self, req: &ChoiceRequest<'_>) -> Option<String> {
        if self.render_failed {
            return None;
        }
        let rules = req.pack.rules_script().filter(|s| s.functions.contains("render"))?;
        match crown_engine::script::api::call_script_fn(&rules.ast, "render", Vec::new()) {
            Ok(v) => {
                let mut text = v.to_string().trim_end().to_string();
                if let Some(view) = &self.view {
                    let mine = format!("@{}:", req.player_name);
                    for l in view.lines().filter(|l| l.contains(&mine) && !l.ends_with(" card(s)")) {
                        text.push('\n');
                        text.push_str(l);
                    }
                }
                Some(text)
            }
            Err(e) => {
                self.render_failed = true;
                let f = crown_engine::script::api::to_failure_in(&e, &rules.ast, Some("render"));
                let _ = writeln!(self.human.output, "(render() failed; the plain table is shown from now on: {f})");
                None
            }
        }
    }
}

impl<R: BufRead + Send, W: Write + Send> Agent for TablePlayer<R, W> {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        if let Some(table) = self.rendered(req).or_else(|| self.view.clone()) {
            let _ = writeln!(self.human.output, "\n{}", table.trim_end());
        }
        self.view = None;
        self.human.choose(req)
    }
    fn kind(&self) -> String {
        "human".into()
    }
    fn wants_view(&self) -> bool {
        true
    }
    fn show(&mut self, view: &str) {
        self.view = Some(view.to_string());
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
    let agents: Vec<Box<dyn Agent>> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| -> Box<dyn Agent> {
            if k == "human" {
                Box::new(TablePlayer::new(std::io::BufReader::new(std::io::stdin()), std::io::stdout()))
            } else {
                agent::bot(k, args.seed, i).expect("known agent")
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
    // What the scripts print (print() and debug()) is shown as it happens.
    game.echo = Some(Box::new(|line| eprintln!("script {line}")));
    println!(
        "{} {} — seed {}, {} players ({})",
        pack.manifest.name,
        pack.manifest.version,
        args.seed,
        players,
        kinds.join(", ")
    );
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
    if args.verbose {
        print!("{text}");
    } else {
        // The last events, so the end of the game is visible.
        let lines: Vec<&str> = text.lines().collect();
        for l in &lines[lines.len().saturating_sub(12)..] {
            println!("{l}");
        }
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

    fn play_with(pack: &str) -> String {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, pack, LoadOptions::default()).pack.expect("pack loads"));
        let out = Shared::default();
        let input = std::io::Cursor::new("1\n".repeat(400).into_bytes());
        let agents: Vec<Box<dyn Agent>> =
            vec![Box::new(TablePlayer::new(input, out.clone())), agent::bot("first", 1, 1).unwrap()];
        let game = Game::new(pack, GameConfig::new(1, 2), agents).unwrap();
        let _ = game.run();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text
    }

    #[test]
    fn the_table_is_drawn_by_render_with_the_players_own_cards() {
        let text = play_with("take-the-kingdom");
        // Take the Kingdom's render(): the deck line and one line per player.
        assert!(text.contains("\ndeck "), "{}", &text[..text.len().min(2000)]);
        assert!(text.contains("P2 (") || text.contains("P2:"), "{}", &text[..text.len().min(2000)]);
        // The person's own hand, from the engine's view.
        assert!(text.contains("hand@P1: "), "{}", &text[..text.len().min(2000)]);
        // Not the engine's plain view of the other seat's hidden hand.
        assert!(!text.contains("hand@P2: "), "{}", &text[..text.len().min(2000)]);
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
