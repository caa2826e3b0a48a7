//! `crown play`: a person plays at the terminal against bots; `--record` writes the game
//! file for the golden suite.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use crown_engine::content::Project;
use crown_engine::game::agent::{self, Agent, ChoiceRequest};
use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, GameConfig, Status};

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
    /// Number of players.
    #[arg(long)]
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
            if let Ok(n) = t.parse::<usize>() {
                if (1..=req.labels.len()).contains(&n) {
                    return Ok(n - 1);
                }
            }
            if let Some(i) = req.labels.iter().position(|l| l.eq_ignore_ascii_case(t)) {
                return Ok(i);
            }
            let _ = writeln!(self.output, "'{t}' is not an option: type a number from 1 to {}", req.labels.len());
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
    let agents: Vec<Box<dyn Agent>> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| -> Box<dyn Agent> {
            if k == "human" {
                Box::new(HumanAgent { input: std::io::BufReader::new(std::io::stdin()), output: std::io::stdout() })
            } else {
                agent::bot(k, args.seed, i).expect("known agent")
            }
        })
        .collect();
    let mut cfg = GameConfig::new(args.seed, players);
    cfg.scenario = args.scenario.clone();
    let game = match Game::new(pack.clone(), cfg, agents) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    println!(
        "{} {} — seed {}, {} players ({})",
        pack.manifest.name,
        pack.manifest.version,
        args.seed,
        players,
        kinds.join(", ")
    );
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
