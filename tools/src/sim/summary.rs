//! The summary of one side of a run: a [`Summary`] holding every figure (`--json`, the
//! report and the terminal table are all drawn from it), built from integer statistics
//! alone ([`Stats`]), so a merged sharded run prints the same bytes as one unsharded run.
//! Each group of figures is a type of its own: outcomes, endings, game length, seats,
//! characters, agents and their scores, cards, rounds. The terminal table is `table.rs`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::figures::{outcome_label, round4, CardBase, CardFigures, Comparisons, Count, Histogram, Share};
use super::interval::{each_of, rate, z_for};
use super::plan::SeatOrder;
use super::stats::{RoundStats, ScoreSum, Stats};
use crown_engine::content::Pack;

/// What a run was: everything but the statistics. Shards of one run have equal `RunInfo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub pack: String,
    pub version: String,
    /// The digest of the content and scripts played (`crown check --digest`; with
    /// `--compare`, the other side's after it): shards of one run played the same files.
    pub content: String,
    /// The crown that played the games.
    pub crown: String,
    /// `--max-failures`: a merge counts failures across shards against it, as one run would.
    pub max_failures: u64,
    pub scenario: Option<String>,
    pub seed: u64,
    /// Games in the whole run (all shards).
    pub games: u64,
    pub players: usize,
    /// The bot of each role (`--agents`).
    pub agents: Vec<String>,
    pub seat_order: SeatOrder,
    pub characters: String,
    /// `--set` overrides applied to this side, as written.
    pub overrides: Vec<String>,
    pub confidence: f64,
    pub min_sample: u64,
    /// `--compare`: what the other side is.
    pub compare: Option<String>,
    /// `--compare-agents`: the other side's bot of each role (empty: the same as `agents`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compare_agents: Vec<String>,
    /// Display name of every definition id (cards sharing a name get their id added).
    pub names: BTreeMap<String, String>,
}

impl RunInfo {
    /// Names of the pack's definitions, for the table.
    pub fn names_of(pack: &Pack) -> BTreeMap<String, String> {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for d in &pack.defs {
            *count.entry(d.def.name.as_str()).or_default() += 1;
        }
        pack.defs
            .iter()
            .map(|d| {
                let n = if count.get(d.def.name.as_str()).copied().unwrap_or(0) > 1 {
                    format!("{} ({})", d.def.name, d.def.id)
                } else {
                    d.def.name.clone()
                };
                (d.def.id.clone(), n)
            })
            .collect()
    }
}

/// Every figure of one side of a run. It serializes (through [`serde_json::to_value`],
/// whose maps sort their keys) to the summary JSON, whose shape is
/// `docs/schema/sim-summary.schema.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub pack: String,
    pub version: String,
    pub content: String,
    pub scenario: Option<String>,
    pub seed: u64,
    pub games: u64,
    pub players: usize,
    pub agents: Vec<String>,
    /// Random bots rank cards as random play does, not as people play.
    pub random_bots: bool,
    pub seat_order: &'static str,
    pub characters_dealt: String,
    pub overrides: Vec<String>,
    pub confidence: f64,
    pub min_sample: u64,
    pub finished: u64,
    pub turn_limit: u64,
    pub turn_limited_games: Vec<u64>,
    pub failed: u64,
    pub outcomes: Vec<OutcomeRow>,
    pub endings: Vec<EndingRow>,
    pub avg_turns: f64,
    pub length: Histogram,
    pub seats: Vec<SeatRow>,
    /// By character id.
    pub characters: BTreeMap<String, CharacterRow>,
    /// By bot kind, over player-games.
    pub by_agent: BTreeMap<String, Share>,
    pub score_by_agent: BTreeMap<String, ScoreMean>,
    pub player_games: Share,
    pub drawn_recorded: bool,
    pub discards_recorded: bool,
    /// By card id.
    pub cards: BTreeMap<String, CardFigures>,
    pub cards_compared: Comparisons,
    /// The rounds, where the rules kept them (`null` otherwise).
    pub rounds: Option<Rounds>,
}

/// One outcome row: games that ended this way, of all games.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutcomeRow {
    pub outcome: String,
    #[serde(flatten)]
    pub count: Count,
}

impl OutcomeRow {
    /// The rows of `s`: each seat winning alone, shared, no winner, turn limit, failed.
    fn all(s: &Stats, players: usize, z: f64) -> Vec<OutcomeRow> {
        (s.outcome_counts(players).iter().enumerate())
            .map(|(k, &c)| OutcomeRow { outcome: outcome_label(k, players), count: Count::of(c, s.games, z) })
            .collect()
    }
}

/// Finished games that ended for one reason the rules gave, of the finished games.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndingRow {
    pub reason: String,
    #[serde(flatten)]
    pub count: Count,
}

impl EndingRow {
    /// Why the finished games of `s` ended, most common first (ties by reason).
    fn all(s: &Stats, z: f64) -> Vec<EndingRow> {
        let mut endings: Vec<(&String, u64)> = s.endings.iter().map(|(r, &c)| (r, c)).collect();
        endings.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        (endings.into_iter())
            .map(|(r, c)| EndingRow { reason: r.clone(), count: Count::of(c, s.finished, z) })
            .collect()
    }
}

/// One seat's wins (alone or shared) of the games that did not fail, and its bot when the
/// seating is fixed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeatRow {
    pub seat: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<Option<String>>,
    #[serde(flatten)]
    pub share: Share,
}

/// One character's wins over the player-games it was in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CharacterRow {
    pub name: String,
    #[serde(flatten)]
    pub share: Share,
}

/// One bot kind's final scores: player-games, the mean and its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScoreMean {
    pub games: u64,
    pub mean: f64,
    pub ci: [f64; 2],
}

impl ScoreMean {
    fn of(t: &ScoreSum, z: f64) -> Option<ScoreMean> {
        let (m, lo, hi) = t.mean_ci(z)?;
        Some(ScoreMean { games: t.n, mean: round4(m), ci: [round4(lo), round4(hi)] })
    }
}

/// The wins and final scores of each bot kind, the roles it played summed.
fn by_agent(run: &RunInfo, s: &Stats, z: f64) -> (BTreeMap<String, Share>, BTreeMap<String, ScoreMean>) {
    let agent = |r: usize| run.agents.get(r).map_or("?", String::as_str).to_string();
    let mut wins: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (r, t) in s.roles.iter().enumerate() {
        let e = wins.entry(agent(r)).or_default();
        e.0 += t.games;
        e.1 += t.wins;
    }
    let mut scores: BTreeMap<String, ScoreSum> = BTreeMap::new();
    for (r, t) in s.role_scores.iter().enumerate() {
        scores.entry(agent(r)).or_default().add(*t);
    }
    (
        wins.into_iter().map(|(k, (g, w))| (k, Share::of(w, g, z))).collect(),
        scores.into_iter().filter_map(|(k, t)| Some((k, ScoreMean::of(&t, z)?))).collect(),
    )
}

impl Summary {
    /// The summary of one side: `run` played, counted `s`.
    pub fn of(run: &RunInfo, s: &Stats) -> Summary {
        let z = z_for(run.confidence);
        let n = run.players;
        let played = s.played();
        let seats = (0..n)
            .map(|i| SeatRow {
                seat: i + 1,
                agent: (run.seat_order == SeatOrder::Fixed).then(|| run.agents.get(i).cloned()),
                share: Share::of(s.seat_wins.get(i).copied().unwrap_or(0), played, z),
            })
            .collect();
        let characters = (s.characters.iter())
            .map(|(k, t)| {
                let name = run.names.get(k).unwrap_or(k).clone();
                (k.clone(), CharacterRow { name, share: Share::of(t.wins, t.games, z) })
            })
            .collect();
        let (by_agent, score_by_agent) = by_agent(run, s, z);
        // Every card is compared with the rest at once: intervals corrected for their number.
        let each = each_of(run.confidence, s.cards.len());
        let base = CardBase {
            names: &run.names,
            base: s.player_games,
            z: z_for(each),
            min_sample: run.min_sample,
            drawn: s.drawn_recorded,
            discards: s.discards_recorded,
        };
        let cards = s.cards.iter().map(|(id, c)| (id.clone(), CardFigures::of(&base, id, c))).collect();
        Summary {
            pack: run.pack.clone(),
            version: run.version.clone(),
            content: run.content.clone(),
            scenario: run.scenario.clone(),
            seed: run.seed,
            games: s.games,
            players: n,
            agents: run.agents.clone(),
            random_bots: run.agents.iter().any(|a| a == "random"),
            seat_order: run.seat_order.as_str(),
            characters_dealt: run.characters.clone(),
            overrides: run.overrides.clone(),
            confidence: run.confidence,
            min_sample: run.min_sample,
            finished: s.finished,
            turn_limit: s.turn_limit,
            turn_limited_games: s.turn_limited.clone(),
            failed: s.failed,
            outcomes: OutcomeRow::all(s, n, z),
            endings: EndingRow::all(s, z),
            avg_turns: round4(rate(s.turns, played)),
            length: Histogram::of(&s.lengths, rate(s.turns, played)),
            seats,
            characters,
            by_agent,
            score_by_agent,
            player_games: Share::of(s.player_games.wins, s.player_games.games, z),
            drawn_recorded: s.drawn_recorded,
            discards_recorded: s.discards_recorded,
            cards,
            cards_compared: Comparisons::of(s.cards.len(), each),
            rounds: Rounds::of(&s.rounds, run, s.discards_recorded),
        }
    }
}

/// The rounds of a run's games: rounds a game, turns a round and, where the rules name
/// round winners, rounds won by seat and card figures per seat-round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rounds {
    pub games: u64,
    pub per_game: Histogram,
    pub closed: u64,
    pub length: Histogram,
    pub decided: u64,
    pub no_winner: u64,
    /// Rounds each seat won, of the decided rounds (none when no round was decided).
    pub seats: Vec<RoundSeat>,
    pub seat_rounds: Share,
    pub cards: BTreeMap<String, CardFigures>,
    pub cards_compared: Comparisons,
}

/// One seat's rounds won.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundSeat {
    pub seat: usize,
    #[serde(flatten)]
    pub share: Share,
}

impl Rounds {
    /// The figures of `r` (none when no game kept rounds).
    fn of(r: &RoundStats, run: &RunInfo, discards: bool) -> Option<Rounds> {
        if r.games == 0 {
            return None;
        }
        let z = z_for(run.confidence);
        let each = each_of(run.confidence, r.cards.len());
        let base = CardBase {
            names: &run.names,
            base: r.seat_rounds,
            z: z_for(each),
            min_sample: run.min_sample,
            drawn: false,
            discards,
        };
        let seats = if r.decided > 0 {
            (r.seat_wins.iter().enumerate())
                .map(|(i, &w)| RoundSeat { seat: i + 1, share: Share::of(w, r.decided, z) })
                .collect()
        } else {
            Vec::new()
        };
        let rounds: u64 = r.per_game.iter().map(|(k, v)| k * v).sum();
        Some(Rounds {
            games: r.games,
            per_game: Histogram::of(&r.per_game, rate(rounds, r.games)),
            closed: r.closed,
            length: Histogram::of(&r.lengths, rate(r.lengths.iter().map(|(k, v)| k * v).sum(), r.closed)),
            decided: r.decided,
            no_winner: r.no_winner,
            seats,
            seat_rounds: Share::of(r.seat_rounds.wins, r.seat_rounds.games, z),
            cards: r.cards.iter().map(|(id, c)| (id.clone(), CardFigures::of(&base, id, c))).collect(),
            cards_compared: Comparisons::of(r.cards.len(), each),
        })
    }
}
