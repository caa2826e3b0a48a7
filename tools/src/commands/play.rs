//! `crown play`: a person plays at the terminal against bots; `--record` writes the game
//! file for the golden suite.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::game::agent::Agent;
use crown_engine::game::narrate::LogLevel;
use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::load::Project;

use crate::cli::TableArgs;
use crate::live::{FsWatcher, ReloadOptions, Reloader};
use crate::out::{Done, Failure};
use crate::table::{self, Seen};
use crate::terminal::{TablePlayer, COMMANDS};
use crate::{out, session};

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The pack, by id or path.
    pub pack: String,
    #[command(flatten)]
    pub table: TableArgs,
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

pub fn run(project: &Project, args: &PlayArgs) -> Done {
    let scenario = args.table.setup.scenario.as_deref();
    let pack = session::load_table(project, &args.pack, scenario)?;
    let players = crate::seats::player_count(&pack, scenario, args.table.setup.players);
    let bot = crate::seats::default_bot(&pack);
    let mut wanted = args.table.agents.clone();
    if wanted.is_empty() {
        wanted.push("human".into());
        wanted.push(bot.clone());
    }
    let kinds = match crate::seats::agent_kinds(&pack, scenario, players, &wanted, &bot) {
        Ok(k) => k,
        Err(e) => {
            return Err(Failure::usage(e.to_string()));
        }
    };
    // Before playing: the files asked for must be writable, or the game is lost.
    for path in args.transcript.iter().chain(&args.record) {
        if let Err(e) = out::check_writable(path) {
            return Err(Failure::error(format!("cannot write {}: {e}; nothing was played", path.display())));
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
                bots::bot(k, args.table.setup.seed, i).expect("known agent")
            }
        })
        .collect();
    let mut cfg = GameConfig::new(args.table.setup.seed, players);
    cfg.scenario = args.table.setup.scenario.clone();
    // A person playing sees the pack's own rules hold, or where they break.
    cfg.invariants = true;
    let mut game = match Game::new(pack.clone(), cfg, agents) {
        Ok(g) => g,
        Err(e) => {
            return Err(Failure::usage(e.to_string()));
        }
    };
    // What the scripts print (print() and debug()) is shown as it happens (the debug log
    // shows them in their place among the transcript's lines).
    if args.log != LogLevel::Debug {
        game.echo = Some(Box::new(|line| eprintln!("script {line}")));
    }
    // What happens is told as it happens, as the person's seats may know it.
    let humans: Vec<usize> = kinds.iter().enumerate().filter(|(_, k)| *k == "human").map(|(i, _)| i).collect();
    let viewer = humans.first().copied().unwrap_or(0);
    game.listener = Some(table::listener(args.log, humans, seen, |line| println!("{line}")));
    println!(
        "{} {} — seed {}, {} player{} ({})",
        pack.manifest.name,
        pack.manifest.version,
        args.table.setup.seed,
        players,
        crown_engine::diag::plural(players),
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
                return Err(Failure::error(e.to_string()));
            }
        }
        println!("watching the pack's files: edits apply at the next choice");
    }
    let (game, outcome) = game.run();
    let text = transcript_text(&game, &outcome);
    // The end: the result and why, scores with their parts, who went out, the table (a
    // game that failed ends with its error instead).
    let game = if matches!(outcome.status, Status::Failed(_)) {
        game
    } else {
        let (game, end) = table::end_screen(game, &outcome, viewer);
        println!("\n{end}");
        game
    };
    if let Some(path) = &args.transcript {
        if let Err(e) = out::write_atomic(path, text.as_bytes()) {
            return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
        }
    }
    if let Some(path) = &args.record {
        let file = GameFile::from_game(&game, kinds.clone(), String::new());
        if let Err(e) = out::write_atomic(path, file.to_toml().as_bytes()) {
            return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
        }
        println!("recorded {}", path.display());
    }
    match outcome.status {
        Status::Failed(f) => Err(Failure::error(f.to_string())),
        _ => Ok(()),
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
