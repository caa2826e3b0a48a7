//! Game files: a game's pack, scenario, seed, seats and recorded choices (by label), and
//! replaying them into a transcript. These are what golden tests are made of.
//!
//! ```
//! use crown_engine::game::record::GameFile;
//! let g = GameFile::parse(r#"
//! pack = "demo"
//! seed = 7
//! players = ["P1", "P2"]
//! agents = ["random", "greedy"]
//! choices = [
//!   { step = 0, player = 0, label = "Play Coin" },
//! ]
//! "#).unwrap();
//! assert_eq!(g.choices[0].label, "Play Coin");
//! assert!(g.to_toml().contains("label = \"Play Coin\""));
//! ```

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::agent::{Agent, ScriptedAgent};
use super::{Choice, Game, GameConfig, Outcome, Status};
use crate::content::Pack;

/// A recorded game.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GameFile {
    pub pack: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    pub seed: u64,
    /// Seat names, in order.
    pub players: Vec<String>,
    /// Who played each seat when it was recorded (`human`, `random`...), for reference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// What this game is meant to show (kept when re-recording).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Every choice an agent was asked, in order, by label.
    #[serde(default)]
    pub choices: Vec<RecordedChoice>,
}

/// One recorded choice.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RecordedChoice {
    pub step: u64,
    pub player: usize,
    pub label: String,
}

impl GameFile {
    pub fn parse(text: &str) -> Result<GameFile, toml::de::Error> {
        toml::from_str(text)
    }

    /// Build the file of a finished game.
    pub fn from_game(game: &Game, agents: Vec<String>, description: String) -> GameFile {
        GameFile {
            pack: game.pack.id().to_string(),
            scenario: game.scenario.clone(),
            seed: game.seed,
            players: game.state.players.iter().map(|p| p.name.clone()).collect(),
            agents,
            description,
            choices: recorded(&game.choices),
        }
    }

    /// TOML text, one choice per line.
    pub fn to_toml(&self) -> String {
        let mut s = String::from(
            "# A recorded game: `crown test FILE` replays it and compares it with the .transcript beside it.\n",
        );
        s.push_str(&format!("pack = {}\n", toml_str(&self.pack)));
        if let Some(sc) = &self.scenario {
            s.push_str(&format!("scenario = {}\n", toml_str(sc)));
        }
        s.push_str(&format!("seed = {}\n", self.seed));
        s.push_str(&format!(
            "players = [{}]\n",
            self.players.iter().map(|p| toml_str(p)).collect::<Vec<_>>().join(", ")
        ));
        if !self.agents.is_empty() {
            s.push_str(&format!(
                "agents = [{}]\n",
                self.agents.iter().map(|p| toml_str(p)).collect::<Vec<_>>().join(", ")
            ));
        }
        if !self.description.is_empty() {
            s.push_str(&format!("description = {}\n", toml_str(&self.description)));
        }
        s.push_str("choices = [\n");
        for c in &self.choices {
            s.push_str(&format!("  {{ step = {}, player = {}, label = {} }},\n", c.step, c.player, toml_str(&c.label)));
        }
        s.push_str("]\n");
        s
    }

    /// Agents that replay this file's choices, one per seat.
    pub fn scripted_agents(&self) -> Vec<Box<dyn Agent>> {
        (0..self.players.len())
            .map(|p| {
                let mine: Vec<(u64, String)> =
                    self.choices.iter().filter(|c| c.player == p).map(|c| (c.step, c.label.clone())).collect();
                Box::new(ScriptedAgent { recorded: Arc::new(mine), next: 0 }) as Box<dyn Agent>
            })
            .collect()
    }

    /// Replay against a pack: the game, its outcome and its transcript text.
    pub fn replay(&self, pack: Arc<Pack>) -> Result<(Game, Outcome, String), String> {
        let seats = self.players.len();
        if let Some(c) = self.choices.iter().find(|c| c.player >= seats) {
            let has = match seats {
                0 => "no seats".to_string(),
                1 => "1 seat (player 0)".to_string(),
                n => format!("{n} seats (players 0 to {})", n - 1),
            };
            return Err(format!(
                "the choice recorded at step {} is for player {}, but the game has {has}",
                c.step, c.player
            ));
        }
        let mut cfg = GameConfig::new(self.seed, self.players.len());
        cfg.scenario = self.scenario.clone();
        cfg.names = self.players.clone();
        let agents = self.scripted_agents();
        let game = Game::new(pack, cfg, agents)?;
        let (game, outcome) = game.run();
        let text = transcript_text(&game, &outcome);
        Ok((game, outcome, text))
    }
}

/// Asked choices only (single options are replayed without asking).
pub fn recorded(choices: &[Choice]) -> Vec<RecordedChoice> {
    choices
        .iter()
        .filter(|c| c.asked)
        .map(|c| RecordedChoice { step: c.step, player: c.player, label: c.label.clone() })
        .collect()
}

/// The transcript text of a played game: its lines, then the result.
pub fn transcript_text(game: &Game, outcome: &Outcome) -> String {
    let mut s = String::new();
    if let Some(t) = &game.transcript {
        for line in t {
            // Seat agents differ between recording and replay; the header names seats only.
            if let Some(rest) = line.strip_prefix("# players ") {
                let names: Vec<&str> = rest.split(", ").map(|x| x.split(" (").next().unwrap_or(x)).collect();
                s.push_str(&format!("# players {}\n", names.join(", ")));
                continue;
            }
            s.push_str(line);
            s.push('\n');
        }
    }
    s.push_str(&result_line(game, outcome));
    s
}

/// `# result ...` lines summarising the outcome.
pub fn result_line(game: &Game, o: &Outcome) -> String {
    let status = match &o.status {
        Status::Finished => "finished".to_string(),
        Status::TurnLimit => "turn limit".to_string(),
        Status::Paused => "paused at a checkpoint".to_string(),
        Status::Failed(f) => format!("failed: {f}"),
    };
    let winners: Vec<&str> = o.winners.iter().map(|&w| game.player_name(w)).collect();
    let scores: Vec<String> = game.state.players.iter().map(|p| format!("{} {}", p.name, p.score)).collect();
    format!(
        "# result {status}; turns {}; winners {}; scores {}\n",
        o.turns,
        if winners.is_empty() { "none".to_string() } else { winners.join(", ") },
        scores.join(", ")
    )
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}
