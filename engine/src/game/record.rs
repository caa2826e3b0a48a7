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

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use super::agent::{quote_list, Agent, ChoiceRequest};
use super::{Choice, Game, Outcome, Status};

/// A recorded game.
///
/// Each seat is a person or an agent (`agents`, one per seat). Replaying runs the agents
/// again from the seed, so a bot's game always replays and shows how a change played out;
/// only a person's choices (`human` seats, or every seat when `agents` is empty) are
/// pinned. When a person's recorded choice is no longer offered, or their recording runs
/// out, the `fallback` agent plays on for them; `continued` says where.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GameFile {
    pub pack: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    pub seed: u64,
    /// Seat names, in order.
    pub players: Vec<String>,
    /// Who plays each seat: `human` (a person: the recorded choices are replayed) or an
    /// agent kind (`random`, `first`, `greedy`: the agent plays again from the seed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// The agent that plays on for a person whose recorded choice is no longer offered
    /// (default `greedy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// What this game is meant to show (kept when re-recording).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Where the fallback agent took over from a person, as accepted by `crown test --bless`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub continued: Vec<Continuation>,
    /// The persons' choices, in order, by label. (Files may also hold agents' choices,
    /// which replaying ignores.)
    #[serde(default)]
    pub choices: Vec<RecordedChoice>,
    /// A person's recorded choices that a change made unreachable, set aside when the
    /// game was continued by the fallback agent, so that nothing a person chose is lost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<RecordedChoice>,
}

/// One recorded choice.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
pub struct RecordedChoice {
    pub step: u64,
    pub player: usize,
    pub label: String,
    /// The option's stable key, when the rules gave it one (`key` in the option's map):
    /// replaying finds the option by it, so a label that shows a value may change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// The fallback agent took over a person's seat at this step.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
pub struct Continuation {
    pub player: usize,
    /// The step (the game's choice number) of the first choice the agent made.
    pub step: u64,
    /// How many of the person's recorded choices were replayed before it.
    pub after: usize,
    pub agent: String,
}

/// Who plays a seat when a game file is replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seat {
    /// A person: their recorded choices, then the fallback agent.
    Person,
    /// An agent, run again from the seed.
    Agent(String),
}

/// A replayed game file.
pub struct Replayed {
    pub game: Game,
    pub outcome: Outcome,
    pub transcript: String,
    /// Where a person's recording stopped and the fallback agent played on, by seat.
    pub continued: Vec<Continuation>,
    /// The recorded choices of persons that were not replayed because of a continuation.
    pub dropped: Vec<RecordedChoice>,
}

impl GameFile {
    pub fn parse(text: &str) -> Result<GameFile, toml::de::Error> {
        toml::from_str(text)
    }

    /// Build the file of a finished game. Agents' choices are not kept: replaying runs
    /// the agents again.
    pub fn from_game(game: &Game, agents: Vec<String>, description: String) -> GameFile {
        let mut file = GameFile {
            pack: game.pack.id().to_string(),
            scenario: game.scenario.clone(),
            seed: game.seed,
            players: game.state.players.iter().map(|p| p.name.clone()).collect(),
            agents,
            fallback: None,
            description,
            continued: Vec::new(),
            choices: Vec::new(),
            superseded: Vec::new(),
        };
        file.choices = recorded(&game.choices).into_iter().filter(|c| file.seat(c.player) == Seat::Person).collect();
        file
    }

    /// Who plays seat `p` on replay.
    pub fn seat(&self, p: usize) -> Seat {
        match self.agents.get(p).map(String::as_str) {
            None | Some("human") => Seat::Person,
            Some(kind) => Seat::Agent(kind.to_string()),
        }
    }

    /// The fallback agent's kind.
    pub fn fallback_kind(&self) -> &str {
        self.fallback.as_deref().unwrap_or("greedy")
    }

    /// Whether every seat is played by an agent.
    pub fn bots_only(&self) -> bool {
        (0..self.players.len()).all(|p| self.seat(p) != Seat::Person)
    }

    /// The file after accepting a replay: persons' choices up to where the fallback took
    /// over, the continuations, and the choices set aside (added to earlier ones).
    pub fn accepted(&self, r: &Replayed) -> GameFile {
        let mut file = self.clone();
        let mut kept = Vec::new();
        let mut taken = vec![0usize; self.players.len()];
        for c in &self.choices {
            if c.player >= self.players.len() || self.seat(c.player) != Seat::Person {
                continue;
            }
            let limit = r.continued.iter().find(|k| k.player == c.player).map(|k| k.after);
            if limit.is_none_or(|l| taken[c.player] < l) {
                kept.push(c.clone());
            }
            taken[c.player] += 1;
        }
        file.choices = kept;
        file.continued = r.continued.clone();
        for d in &r.dropped {
            if !file.superseded.contains(d) {
                file.superseded.push(d.clone());
            }
        }
        file
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
        if let Some(f) = &self.fallback {
            s.push_str(&format!("fallback = {}\n", toml_str(f)));
        }
        if !self.description.is_empty() {
            s.push_str(&format!("description = {}\n", toml_str(&self.description)));
        }
        if !self.continued.is_empty() {
            s.push_str(
                "# The fallback agent played on for a person from these steps (accepted by `crown test --bless`).\n",
            );
            s.push_str("continued = [\n");
            for c in &self.continued {
                s.push_str(&format!(
                    "  {{ player = {}, step = {}, after = {}, agent = {} }},\n",
                    c.player,
                    c.step,
                    c.after,
                    toml_str(&c.agent)
                ));
            }
            s.push_str("]\n");
        }
        push_choices(&mut s, "choices", &self.choices);
        if !self.superseded.is_empty() {
            s.push_str("# A person's choices that an accepted change made unreachable, kept for reference.\n");
            push_choices(&mut s, "superseded", &self.superseded);
        }
        s
    }

    /// Agents that replay this file's choices, one per seat.
    pub fn scripted_agents(&self) -> Vec<Box<dyn Agent>> {
        (0..self.players.len())
            .map(|p| {
                let mine: Vec<RecordedChoice> = self.choices.iter().filter(|c| c.player == p).cloned().collect();
                Box::new(ScriptedAgent { recorded: Arc::new(mine), next: 0 }) as Box<dyn Agent>
            })
            .collect()
    }
}

/// Asked choices only (single options are replayed without asking).
pub fn recorded(choices: &[Choice]) -> Vec<RecordedChoice> {
    choices
        .iter()
        .filter(|c| c.asked)
        .map(|c| RecordedChoice { step: c.step, player: c.player, label: c.label.clone(), key: c.key.clone() })
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

fn push_choices(s: &mut String, key: &str, choices: &[RecordedChoice]) {
    s.push_str(&format!("{key} = [\n"));
    for c in choices {
        let key = c.key.as_ref().map(|k| format!(", key = {}", toml_str(k))).unwrap_or_default();
        s.push_str(&format!(
            "  {{ step = {}, player = {}, label = {}{key} }},\n",
            c.step,
            c.player,
            toml_str(&c.label)
        ));
    }
    s.push_str("]\n");
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Replays recorded choices by label.
pub struct ScriptedAgent {
    /// Every recorded choice of the seat, in order.
    pub recorded: Arc<Vec<RecordedChoice>>,
    pub next: usize,
}

impl Agent for ScriptedAgent {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let Some(c) = self.recorded.get(self.next) else {
            return Err(format!(
                "step {}: the recording has no more choices, but {} is asked \"{}\" with options [{}]",
                req.step,
                req.player_name,
                req.prompt,
                quote_list(req.labels)
            ));
        };
        self.next += 1;
        match req.find(c.key.as_deref(), &c.label) {
            Some(i) => Ok(i),
            None => Err(format!(
                "step {}: recorded choice '{}'{} not among options [{}] ({} was asked \"{}\")",
                req.step,
                c.label,
                c.key.as_ref().map(|k| format!(" (key '{k}')")).unwrap_or_default(),
                quote_list(req.labels),
                req.player_name,
                req.prompt
            )),
        }
    }
    fn kind(&self) -> String {
        "scripted".into()
    }
}
