//! Replaying a game file: the agents play again from the seed, a person's recorded
//! choices are made while they are offered, then the fallback agent plays on.

use std::sync::{Arc, Mutex};

use super::{bot, unknown_kind, AGENT_KINDS};
use crate::content::Pack;
use crate::game::agent::{Agent, ChoiceRequest};
use crate::game::record::{transcript_text, Continuation, GameFile, RecordedChoice, Replayed, Seat};
use crate::game::{Game, GameConfig, Outcome};

impl GameFile {
    /// Replay against a pack: the game, its outcome and its transcript text.
    pub fn replay(&self, pack: Arc<Pack>) -> Result<(Game, Outcome, String), String> {
        self.replay_full(pack).map(|r| (r.game, r.outcome, r.transcript))
    }

    /// Replay against a pack: agents play again from the seed, persons' choices are
    /// replayed while they are offered, then the fallback agent plays on.
    pub fn replay_full(&self, pack: Arc<Pack>) -> Result<Replayed, String> {
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
        if !self.agents.is_empty() && self.agents.len() != seats {
            return Err(format!("{} agents are given for {} seats", self.agents.len(), seats));
        }
        let unknown = |kind: &str| match unknown_kind(kind) {
            Some((msg, near)) => format!("{msg}{}", near.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default()),
            None => format!("`{kind}` is not an agent that plays on its own"),
        };
        let fallback = self.fallback_kind().to_string();
        if !AGENT_KINDS.contains(&fallback.as_str()) {
            return Err(format!("fallback: {}", unknown(&fallback)));
        }
        let log: ContinuationLog = Arc::default();
        let mut agents: Vec<Box<dyn Agent>> = Vec::with_capacity(seats);
        for p in 0..seats {
            match self.seat(p) {
                Seat::Agent(kind) => match bot(&kind, self.seed, p) {
                    Some(a) => agents.push(a),
                    None => return Err(format!("seat {} ({}): {}", p, self.players[p], unknown(&kind))),
                },
                Seat::Person => agents.push(Box::new(PersonReplay {
                    recorded: self.choices.iter().filter(|c| c.player == p).cloned().collect(),
                    next: 0,
                    seed: self.seed,
                    fallback_kind: fallback.clone(),
                    fallback: None,
                    log: log.clone(),
                })),
            }
        }
        let mut cfg = GameConfig::new(self.seed, seats);
        cfg.scenario = self.scenario.clone();
        cfg.names = self.players.clone();
        // A replayed game checks the pack's invariants (`crown test`, golden games).
        cfg.invariants = true;
        let game = Game::new(pack, cfg, agents)?;
        let (game, outcome) = game.run();
        let transcript = transcript_text(&game, &outcome);
        let mut log = std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()));
        log.sort();
        let (continued, dropped): (Vec<_>, Vec<_>) = log.into_iter().unzip();
        Ok(Replayed { game, outcome, transcript, continued, dropped: dropped.into_iter().flatten().collect() })
    }
}

/// Where each person's seat was taken over, with the recorded choices set aside.
type ContinuationLog = Arc<Mutex<Vec<(Continuation, Vec<RecordedChoice>)>>>;

/// A person's seat on replay: their recorded choices while they are offered, then the
/// fallback agent (seeded as that agent would be for the seat).
struct PersonReplay {
    recorded: Vec<RecordedChoice>,
    next: usize,
    seed: u64,
    fallback_kind: String,
    fallback: Option<Box<dyn Agent>>,
    log: ContinuationLog,
}

impl Agent for PersonReplay {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        if self.fallback.is_none() {
            if let Some(c) = self.recorded.get(self.next) {
                if let Some(i) = req.find(c.key.as_deref(), &c.label) {
                    self.next += 1;
                    return Ok(i);
                }
            }
            let agent = bot(&self.fallback_kind, self.seed, req.player)
                .ok_or_else(|| format!("fallback `{}` is not an agent", self.fallback_kind))?;
            self.fallback = Some(agent);
            let k = Continuation {
                player: req.player,
                step: req.step,
                after: self.next,
                agent: self.fallback_kind.clone(),
            };
            let dropped = self.recorded[self.next..].to_vec();
            self.log.lock().unwrap_or_else(|e| e.into_inner()).push((k, dropped));
        }
        self.fallback.as_mut().expect("set above").choose(req)
    }
    fn kind(&self) -> String {
        "human".into()
    }
}
