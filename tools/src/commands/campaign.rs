//! `crown campaign`: a game that lives in a save file and is played one part at a time
//! (a legacy campaign: one round, or one whole game, per sitting).
//!
//! - `new PACK --save FILE` writes a save of a game not started yet (pack, scenario, seed,
//!   seats); the first sitting starts it with the rules' `setup()`.
//! - `play FILE` loads the save, plays until the next `checkpoint()` of the rules
//!   (`--round`, the default) or to the end of the game (`--game`), by a person at the
//!   terminal or a bot, and writes the save back atomically. `--pack` moves the save on
//!   to a pack that extends its own (an expansion), `--scenario` switches scenario.
//! - `show FILE` summarises a save.
//!
//! A save that cannot be read, belongs to another pack, names cards the pack no longer
//! has, or comes from another save format is refused, and the file is left as it was; a
//! sitting that fails (a script error, the turn limit) does not write the save either.

use crown_engine::bots;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use crown_engine::game::save::SaveFile;
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::load::Project;

use crate::campaign::{agents_for, headline, play_sitting_told, read_save, summary, write_save};
use crate::out::{Done, Failure};
use crate::{out, session};

#[derive(Debug, Subcommand)]
pub enum CampaignArgs {
    /// Start a campaign: write a save of a game not played yet.
    New(NewArgs),
    /// Play the next round (or the whole game) of a saved campaign, then save it.
    Play(PlayArgs),
    /// Summarise a save: pack, plays, score path, counters, cards by zone.
    Show(ShowArgs),
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The pack, by id or path.
    pub pack: String,
    /// The save file to write.
    #[arg(long)]
    pub save: PathBuf,
    #[command(flatten)]
    pub setup: crate::cli::SetupArgs,
    /// Replace an existing save file.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The save file.
    pub save: PathBuf,
    /// Play until the rules' next checkpoint (the end of a round; the default).
    #[arg(long, conflicts_with = "game")]
    pub round: bool,
    /// Play the whole game to its end.
    #[arg(long)]
    pub game: bool,
    /// Who plays, per seat, comma-separated (the last repeats): human, random, first, greedy, search.
    #[arg(long, value_delimiter = ',', default_value = "human")]
    pub agent: Vec<String>,
    /// Switch scenario (kept in the save), e.g. an expansion's scenario after the base game.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Move the save on to this pack, which must extend the save's pack (kept in the save).
    #[arg(long)]
    pub pack: Option<String>,
    /// Write this sitting's transcript here.
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// What the game tells you as it goes: `private` (the default: what your seat may
    /// know), `public` (what a spectator sees) or `debug` (every transcript line, hidden
    /// information included).
    #[arg(long, default_value = "private", value_parser = crown_engine::game::narrate::LogLevel::parse)]
    pub log: crown_engine::game::narrate::LogLevel,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The save file.
    pub save: PathBuf,
}

pub fn run(project: &Project, args: &CampaignArgs) -> Done {
    match args {
        CampaignArgs::New(a) => run_new(project, a),
        CampaignArgs::Play(a) => run_play(project, a),
        CampaignArgs::Show(a) => run_show(project, a),
    }
}

fn run_new(project: &Project, args: &NewArgs) -> Done {
    if args.save.exists() && !args.force {
        return Err(Failure::new(
            1,
            format!("{} exists: a campaign is already saved there (--force replaces it)", args.save.display()),
        ));
    }
    let pack = session::load(project, &args.pack)?;
    let players = crate::seats::player_count(&pack, args.setup.scenario.as_deref(), args.setup.players);
    // Make the game once, without playing it, so a bad scenario or seat count is refused now.
    let mut cfg = GameConfig::new(args.setup.seed, players);
    cfg.scenario = args.setup.scenario.clone();
    let bots = (0..players).map(|i| bots::bot("first", args.setup.seed, i).expect("first agent")).collect();
    let game = match Game::new(pack.clone(), cfg, bots) {
        Ok(g) => g,
        Err(e) => {
            return Err(Failure::usage(e.to_string()));
        }
    };
    let names = game.state.players.iter().map(|p| p.name.clone()).collect();
    let save = match SaveFile::new_game(&pack, game.scenario.clone(), args.setup.seed, names) {
        Ok(s) => s,
        Err(e) => {
            return Err(Failure::usage(e.to_string()));
        }
    };
    // Nothing has been played yet, so nothing is kept elsewhere when this fails.
    let written =
        save.to_text().and_then(|text| out::write_atomic(&args.save, text.as_bytes()).map_err(|e| e.to_string()));
    if let Err(e) = written {
        return Err(Failure::new(
            1,
            format!("cannot write {}: {e}; nothing was written", out::shown(&args.save.display().to_string())),
        ));
    }
    println!(
        "new campaign of {} {} (scenario {}, seed {}) saved to {}; play it with `crown campaign play {}`",
        pack.manifest.name,
        pack.manifest.version,
        save.scenario.as_deref().unwrap_or("-"),
        args.setup.seed,
        args.save.display(),
        args.save.display()
    );
    Ok(())
}

fn run_play(project: &Project, args: &PlayArgs) -> Done {
    let save = match read_save(&args.save) {
        Ok(s) => s,
        Err(e) => {
            return Err(Failure::error(format!("{e}; the save was not changed")));
        }
    };
    let pack_name = args.pack.clone().unwrap_or_else(|| save.pack.clone());
    let pack = session::load(project, &pack_name)?;
    if let Err(e) = save.check_pack(&pack) {
        return Err(Failure::error(format!("{}: {e}; the save was not changed", args.save.display())));
    }
    if pack.id() == save.pack && pack.manifest.version != save.pack_version {
        println!("note: saved with {} {}, now {}", save.pack, save.pack_version, pack.manifest.version);
    }
    let seen = crate::table::Seen::default();
    let agents = match agents_for(&save, &args.agent, &seen) {
        Ok(a) => a,
        Err(e) => {
            return Err(Failure::usage(e.to_string()));
        }
    };
    // Before playing: the save (and the transcript, if asked for) must be writable, or
    // the round would be played for nothing.
    let outputs = std::iter::once(&args.save).chain(args.transcript.as_ref());
    for path in outputs {
        if let Err(e) = out::check_writable(path) {
            return Err(Failure::new(
                1,
                format!("cannot write {}: {e}; nothing was played and the save was not changed", path.display()),
            ));
        }
    }
    let kinds: Vec<String> = agents.iter().map(|a| a.kind()).collect();
    let round = !args.game;
    println!(
        "{} {} — {} of the campaign in {} (sitting {}, {})",
        pack.manifest.name,
        pack.manifest.version,
        if round { "a round" } else { "a game" },
        args.save.display(),
        save.sittings + 1,
        kinds.join(", ")
    );
    let humans: Vec<usize> = kinds.iter().enumerate().filter(|(_, k)| *k == "human").map(|(i, _)| i).collect();
    if args.log == crown_engine::game::narrate::LogLevel::Debug {
        println!("debug log: every transcript line is shown, with every seat's hidden information");
    }
    let listener = crate::table::listener(args.log, humans, seen, |line| println!("{line}"));
    let sitting = match play_sitting_told(&save, pack, args.scenario.clone(), agents, round, true, Some(listener)) {
        Ok(s) => s,
        Err(e) => {
            return Err(Failure::error(format!("{}: {e}; the save was not changed", args.save.display())));
        }
    };
    if let Some(path) = &args.transcript {
        if let Err(e) = out::write_atomic(path, sitting.transcript.as_bytes()) {
            match out::keep_unsaved(path, sitting.transcript.as_bytes()) {
                Some(k) => {
                    eprintln!("error: cannot write {}: {e}; the transcript is kept in {}", path.display(), k.display())
                }
                None => eprintln!("error: cannot write {}: {e}", path.display()),
            }
        }
    }
    // A play that ended: the result, scores with their parts, the table as it ends.
    if matches!(sitting.outcome.status, Status::Finished) {
        println!("\n{}", crate::table::end_summary(&sitting.game, &sitting.outcome));
    }
    let Some(new_save) = &sitting.save else {
        let why = match &sitting.outcome.status {
            Status::Failed(f) => f.to_string(),
            Status::TurnLimit => format!("the turn limit ({} turns) came before a checkpoint", sitting.game.max_turns),
            _ => "the game did not stop between turns".to_string(),
        };
        return Err(Failure::error(format!("{why}; the save was not changed")));
    };
    if let Err(e) = write_save(&args.save, new_save) {
        return Err(Failure::error(e.to_string()));
    }
    println!(
        "saved {} ({}): {}",
        args.save.display(),
        new_save.status.as_str(),
        headline(new_save).unwrap_or_else(|| format!("turn {}", new_save.turn))
    );
    Ok(())
}

fn run_show(project: &Project, args: &ShowArgs) -> Done {
    let save = match read_save(&args.save) {
        Ok(s) => s,
        Err(e) => {
            return Err(Failure::error(e.to_string()));
        }
    };
    let pack = session::load(project, &save.pack).ok();
    print!("{}", summary(&save, pack.as_deref()));
    Ok(())
}
