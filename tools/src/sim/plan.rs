//! How game `i` of a run is set up: which bot sits in which seat (`--seat-order`) and
//! which character each seat gets (`--characters`). Everything follows from the master
//! seed and `i`, so any game of any shard is set up the same way.

use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::game::agent::Agent;
use crown_engine::game::rng::{derive_seed, GameRng};
use crown_engine::game::{Game, GameConfig};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeatOrder {
    /// The `--agents` in the order given, every game.
    Fixed,
    /// Game i moves every entry i seats on (mod players): each bot (and fixed character)
    /// sits in each seat equally often.
    Rotate,
    /// A seeded random seating per game.
    Random,
}

impl SeatOrder {
    pub fn as_str(self) -> &'static str {
        match self {
            SeatOrder::Fixed => "fixed",
            SeatOrder::Rotate => "rotate",
            SeatOrder::Random => "random",
        }
    }
}

/// `--characters`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Characters {
    /// As the rules deal them (or let the seats choose).
    Game,
    /// Distinct characters drawn at random for each game by the simulator (seeded).
    Random,
    /// One per `--agents` entry (they move with the seating).
    Fixed(Vec<String>),
    /// Game i gives seat s the pack's ((i + s) mod C)-th character: over C games each
    /// character sits in each seat once.
    Sweep,
}

impl Characters {
    pub fn parse(s: &str) -> Result<Characters, String> {
        match s {
            "game" => Ok(Characters::Game),
            "random" => Ok(Characters::Random),
            "sweep" => Ok(Characters::Sweep),
            _ => match s.strip_prefix("fixed:") {
                Some(ids) => Ok(Characters::Fixed(ids.split(',').map(|x| x.trim().to_string()).collect())),
                None => Err(format!("`{s}`: --characters takes game, random, sweep or fixed:ID,ID,...")),
            },
        }
    }

    pub fn label(&self) -> String {
        match self {
            Characters::Game => "game".into(),
            Characters::Random => "random".into(),
            Characters::Sweep => "sweep".into(),
            Characters::Fixed(ids) => format!("fixed:{}", ids.join(",")),
        }
    }
}

/// Everything that decides how game `i` is set up.
#[derive(Debug, Clone)]
pub struct Plan {
    pub seed: u64,
    pub players: usize,
    pub scenario: Option<String>,
    /// The bot of each role (`--agents`, one per player).
    pub kinds: Vec<String>,
    pub seat_order: SeatOrder,
    pub characters: Characters,
    /// The pack's character ids, sorted (for `random` and `sweep`).
    pub pool: Vec<String>,
    /// Where the games kept as files go (`--transcripts`), if anywhere.
    pub keep: Option<std::sync::Arc<super::keep::Keep>>,
    /// Check the pack's invariants in every game (`--invariants`).
    pub invariants: bool,
    /// Audit every bot decision for peeking (`--audit-peeking`): what the audits found.
    pub audit: Option<std::sync::Arc<std::sync::Mutex<crown_engine::bots::audit::AuditLog>>>,
}

impl Plan {
    /// Check the options against the pack.
    pub fn new(
        pack: &Pack,
        seed: u64,
        players: usize,
        scenario: Option<&str>,
        kinds: Vec<String>,
        seat_order: SeatOrder,
        characters: Characters,
    ) -> Result<Plan, String> {
        let mut pool: Vec<String> =
            pack.defs.iter().filter(|d| d.kind.is_character()).map(|d| d.def.id.clone()).collect();
        pool.sort();
        match &characters {
            Characters::Game => {}
            _ if pool.is_empty() => {
                return Err(format!(
                    "pack `{}` has no characters (nobles or leaders): --characters {} has nothing to deal",
                    pack.id(),
                    characters.label()
                ))
            }
            Characters::Random | Characters::Sweep if pool.len() < players => {
                return Err(format!(
                    "pack `{}` has {} characters for {players} players: --characters {} needs one each",
                    pack.id(),
                    pool.len(),
                    characters.label()
                ))
            }
            Characters::Fixed(ids) => {
                if ids.len() != players {
                    return Err(format!(
                        "--characters fixed: names {} characters for {players} players (one per --agents entry)",
                        ids.len()
                    ));
                }
                for id in ids {
                    if !pool.contains(id) {
                        let near = crown_engine::diag::did_you_mean(id, pool.iter().map(String::as_str));
                        return Err(format!(
                            "--characters: `{id}` is not a character of pack `{}`{}",
                            pack.id(),
                            near.map_or_else(
                                || format!(" (characters: {})", pool.join(", ")),
                                |n| format!("; did you mean `{n}`?")
                            )
                        ));
                    }
                }
                let mut sorted = ids.clone();
                sorted.sort();
                sorted.dedup();
                if sorted.len() != ids.len() {
                    return Err("--characters fixed: each seat needs a different character".into());
                }
            }
            _ => {}
        }
        Ok(Plan {
            seed,
            players,
            scenario: scenario.map(str::to_string),
            kinds,
            seat_order,
            characters,
            pool,
            keep: None,
            invariants: false,
            audit: None,
        })
    }

    /// The role (index into `kinds`) sitting in each seat of game `i`.
    pub fn seating(&self, i: u64) -> Vec<usize> {
        let n = self.players;
        match self.seat_order {
            SeatOrder::Fixed => (0..n).collect(),
            SeatOrder::Rotate => (0..n).map(|s| (s + n - (i % n as u64) as usize) % n).collect(),
            SeatOrder::Random => {
                let mut rng = GameRng::new(derive_seed(self.seed ^ 0x5EA7_0000, i));
                let mut v: Vec<usize> = (0..n).collect();
                for k in (1..n).rev() {
                    let j = rng.below(k as u64 + 1) as usize;
                    v.swap(k, j);
                }
                v
            }
        }
    }

    /// The character given to each seat of game `i` (empty: the rules decide).
    pub fn characters_of(&self, i: u64, roles: &[usize]) -> Vec<Option<String>> {
        match &self.characters {
            Characters::Game => Vec::new(),
            Characters::Fixed(ids) => roles.iter().map(|&r| Some(ids[r].clone())).collect(),
            Characters::Sweep => {
                let c = self.pool.len() as u64;
                (0..self.players).map(|s| Some(self.pool[((i + s as u64) % c) as usize].clone())).collect()
            }
            Characters::Random => {
                let mut rng = GameRng::new(derive_seed(self.seed ^ 0xC4A2_0000, i));
                let mut left = self.pool.clone();
                (0..self.players).map(|_| Some(left.remove(rng.below(left.len() as u64) as usize))).collect()
            }
        }
    }

    /// Game `i`, set up, and the role of each seat.
    pub fn game(&self, pack: &Arc<Pack>, i: u64) -> Result<(Game, Vec<usize>), String> {
        self.game_with(pack, i, |seat, a| match &self.audit {
            Some(log) => {
                Box::new(crown_engine::bots::audit::PeekAudit::new(a, derive_seed(self.seed, i), seat, log.clone()))
            }
            None => a,
        })
    }

    /// Game `i` as [`Plan::game`] sets it up, each seat's bot given to `seat_agent` (with
    /// the seat's number), which may wrap it or play in its place.
    pub fn game_with(
        &self,
        pack: &Arc<Pack>,
        i: u64,
        seat_agent: impl Fn(usize, Box<dyn Agent>) -> Box<dyn Agent>,
    ) -> Result<(Game, Vec<usize>), String> {
        let gs = derive_seed(self.seed, i);
        let roles = self.seating(i);
        let kinds: Vec<String> = roles.iter().map(|&r| self.kinds[r].clone()).collect();
        let mut cfg = super::config(gs, self.players, self.scenario.as_deref());
        cfg.characters = self.characters_of(i, &roles);
        cfg.transcript = self.keep.as_ref().is_some_and(|k| k.keeps(i));
        cfg.invariants = self.invariants;
        let agents =
            crate::seats::bots(&kinds, gs).into_iter().enumerate().map(|(seat, a)| seat_agent(seat, a)).collect();
        Ok((Game::new(pack.clone(), cfg, agents)?, roles))
    }

    /// A fresh configuration for game `i` (what `config` gives, plus the characters).
    pub fn config(&self, i: u64) -> GameConfig {
        let roles = self.seating(i);
        let mut cfg = super::config(derive_seed(self.seed, i), self.players, self.scenario.as_deref());
        cfg.characters = self.characters_of(i, &roles);
        cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(order: SeatOrder) -> Plan {
        Plan {
            seed: 3,
            players: 3,
            scenario: None,
            kinds: vec!["a".into(), "b".into(), "c".into()],
            seat_order: order,
            characters: Characters::Sweep,
            pool: vec!["x".into(), "y".into(), "z".into(), "w".into()],
            keep: None,
            invariants: false,
            audit: None,
        }
    }

    #[test]
    fn rotation_puts_each_role_in_each_seat() {
        let p = plan(SeatOrder::Rotate);
        let mut count = [[0; 3]; 3];
        for i in 0..30 {
            let s = p.seating(i);
            for (seat, &role) in s.iter().enumerate() {
                count[seat][role] += 1;
            }
        }
        assert_eq!(count, [[10; 3]; 3]);
        assert_eq!(p.seating(0), vec![0, 1, 2]);
        let r = plan(SeatOrder::Random);
        for i in 0..20 {
            let mut s = r.seating(i);
            s.sort();
            assert_eq!(s, vec![0, 1, 2]);
        }
        assert_ne!(
            (0..20).map(|i| r.seating(i)).collect::<Vec<_>>(),
            (0..20).map(|_| vec![0, 1, 2]).collect::<Vec<_>>()
        );
    }

    #[test]
    fn sweep_gives_each_character_each_seat() {
        let p = plan(SeatOrder::Fixed);
        let mut count = std::collections::BTreeMap::new();
        for i in 0..8 {
            let c = p.characters_of(i, &[0, 1, 2]);
            let mut distinct = c.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), 3);
            for (s, ch) in c.into_iter().enumerate() {
                *count.entry((s, ch.unwrap())).or_insert(0) += 1;
            }
        }
        assert!(count.values().all(|&n| n == 2) && count.len() == 12, "{count:?}");
    }
}
