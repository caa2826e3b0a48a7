//! `crown record`: play a bot game and keep it as a golden game (game file + transcript).

use std::path::PathBuf;

use clap::Args;
use crown_engine::load::Project;

use crate::cli::TableArgs;
use crate::golden::{record, transcript_path};
use crate::out::{Done, Failure};
use crate::{out, session};

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The pack, by id or path.
    pub pack: String,
    #[command(flatten)]
    pub table: TableArgs,
    /// The game file to write (`NAME.game.toml`); the transcript goes beside it.
    #[arg(long)]
    pub out: PathBuf,
    /// What the game is meant to show.
    #[arg(long, default_value = "")]
    pub description: String,
    /// Replace an existing game file.
    #[arg(long)]
    pub force: bool,
}

pub fn run(project: &Project, args: &RecordArgs) -> Done {
    let pack = session::load_table(project, &args.pack, args.table.setup.scenario.as_deref())?;
    if args.out.exists() && !args.force {
        return Err(Failure::error(format!("{} exists; pass --force to replace it", args.out.display())));
    }
    for path in [args.out.clone(), transcript_path(&args.out)] {
        if let Err(e) = out::check_writable(&path) {
            return Err(Failure::error(format!("cannot write {}: {e}; nothing was recorded", path.display())));
        }
    }
    let scenario = args.table.setup.scenario.as_deref();
    let players = crate::seats::player_count(&pack, scenario, args.table.setup.players);
    let kinds = match crate::seats::agent_kinds(
        &pack,
        scenario,
        players,
        &args.table.agents,
        &crate::seats::default_bot(&pack),
    ) {
        Ok(k) if !k.iter().any(|x| x == "human") => k,
        Ok(_) => {
            return Err(Failure::new(
                2,
                "`crown record` records bot games; use `crown play --record` to record your own",
            ));
        }
        Err(e) => {
            return Err(Failure::usage(e.to_string()));
        }
    };
    let (file, replayed) = match record(
        &pack,
        args.table.setup.seed,
        players,
        args.table.setup.scenario.clone(),
        kinds,
        &args.description,
    ) {
        Ok(x) => x,
        Err((code, e)) => {
            eprintln!("error: {e}");
            return Err(Failure::told(code));
        }
    };
    let tpath = transcript_path(&args.out);
    if let Err(e) = out::write_atomic(&args.out, file.to_toml().as_bytes())
        .and_then(|_| out::write_atomic(&tpath, replayed.as_bytes()))
    {
        return Err(Failure::error(format!("cannot write: {e}")));
    }
    println!(
        "recorded {} ({}) and {}",
        args.out.display(),
        replayed.lines().last().unwrap_or("").trim_start_matches("# result "),
        tpath.display()
    );
    Ok(())
}
