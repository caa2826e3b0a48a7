//! Integer statistics over games. Merging is addition (plus sorted, bounded lists), so
//! the order games are counted in, the thread count and the sharding never change them.
//! Games played in rounds add [`RoundStats`]: how many rounds a game lasts, how long a
//! round is, and, where the rules say who won each round (`win_round`), rounds won by seat
//! and card win rates per round.

use std::collections::BTreeMap;

use crown_engine::content::Pack;
use crown_engine::game::{Outcome, Status};
use serde::{Deserialize, Serialize};

/// Games and wins of one group of player-games (a seat, a character, an agent kind).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub games: u64,
    pub wins: u64,
}

impl Tally {
    pub(super) fn add(&mut self, o: Tally) {
        self.games += o.games;
        self.wins += o.wins;
    }
}

/// Final scores of one group of player-games: count, sum and sum of squares (integers,
/// so merging is exact).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreSum {
    pub n: u64,
    pub sum: i64,
    pub sum_sq: u128,
}

impl ScoreSum {
    pub fn add(&mut self, o: ScoreSum) {
        self.n += o.n;
        self.sum = self.sum.saturating_add(o.sum);
        self.sum_sq = self.sum_sq.saturating_add(o.sum_sq);
    }

    pub fn one(score: i64) -> ScoreSum {
        ScoreSum { n: 1, sum: score, sum_sq: u128::from(score.unsigned_abs()).pow(2) }
    }

    /// Mean and its interval (normal approximation, `z` standard errors).
    pub fn mean_ci(&self, z: f64) -> Option<(f64, f64, f64)> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let mean = self.sum as f64 / n;
        let var = if self.n > 1 { ((self.sum_sq as f64) - n * mean * mean).max(0.0) / (n - 1.0) } else { 0.0 };
        let half = z * (var / n).sqrt();
        Some((mean, mean - half, mean + half))
    }
}

/// One card's player-games: those in which its owner played it / drew it, and the wins
/// among them. The "not played" side is the run's player-games minus these.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardTally {
    pub played_in: u64,
    pub played_wins: u64,
    pub plays: u64,
    pub drawn_in: u64,
    pub drawn_wins: u64,
    /// Player-games in which its owner lost it from the hand without playing it (a forced
    /// discard, `note_discard`), and the wins among them.
    #[serde(default)]
    pub discarded_in: u64,
    #[serde(default)]
    pub discarded_wins: u64,
}

impl CardTally {
    pub(super) fn add(&mut self, o: &CardTally) {
        self.played_in += o.played_in;
        self.played_wins += o.played_wins;
        self.plays += o.plays;
        self.drawn_in += o.drawn_in;
        self.drawn_wins += o.drawn_wins;
        self.discarded_in += o.discarded_in;
        self.discarded_wins += o.discarded_wins;
    }

    /// Count one player-game (or seat-round) of a seat that played `plays` and discarded
    /// `discards`, won or not, into `cards`.
    pub(super) fn count(cards: &mut BTreeMap<u32, CardTally>, plays: &[u32], discards: &[u32], won: bool) {
        let w = u64::from(won);
        let mut seen: Vec<u32> = plays.to_vec();
        seen.sort_unstable();
        for run in seen.chunk_by(|a, b| a == b) {
            let e = cards.entry(run[0]).or_default();
            e.played_in += 1;
            e.played_wins += w;
            e.plays += run.len() as u64;
        }
        let mut lost: Vec<u32> = discards.to_vec();
        lost.sort_unstable();
        lost.dedup();
        for d in lost {
            let e = cards.entry(d).or_default();
            e.discarded_in += 1;
            e.discarded_wins += w;
        }
    }
}

/// Everything `crown sim` counts. Keys are definition ids, so statistics from different
/// machines (`--shard`) merge without the pack.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Games counted (failed ones included).
    pub games: u64,
    pub finished: u64,
    /// Games stopped by the turn limit (or paused at a checkpoint).
    pub turn_limit: u64,
    pub failed: u64,
    /// Finished games won by exactly one seat, per seat.
    pub sole_wins: Vec<u64>,
    /// Finished games with two or more winners.
    pub shared: u64,
    /// Finished games with no winner.
    pub no_winner: u64,
    /// Finished games by the reason the rules gave (`end_game`'s reason: "the last one
    /// standing", "the most territories when the rounds ran out"...).
    #[serde(default)]
    pub endings: BTreeMap<String, u64>,
    /// Finished games each seat won (alone or shared).
    pub seat_wins: Vec<u64>,
    /// Turns summed over games that did not fail.
    pub turns: u64,
    /// Game length (turns) → games, over games that did not fail.
    pub lengths: BTreeMap<u64, u64>,
    /// Player-games (seats of games that did not fail) and the wins among them.
    pub player_games: Tally,
    /// Per role (the `--agents` entry, before seating): player-games and wins.
    pub roles: Vec<Tally>,
    /// Per role: final scores of the player-games (games that did not fail).
    #[serde(default)]
    pub role_scores: Vec<ScoreSum>,
    /// Per character id (seats without a character are not counted here).
    pub characters: BTreeMap<String, Tally>,
    /// Per card id.
    pub cards: BTreeMap<String, CardTally>,
    /// Whether any card entered a `hand` zone (the pack has hands: "drawn" is measured).
    pub drawn_recorded: bool,
    /// Whether the rules noted any forced discard (`note_discard`).
    #[serde(default)]
    pub discards_recorded: bool,
    /// The rounds, where the rules keep them.
    #[serde(default)]
    pub rounds: RoundStats,
    /// Every failed game: index and message, sorted.
    pub failures: Vec<(u64, String)>,
    /// The first ten games (by index) that hit the turn limit.
    pub turn_limited: Vec<u64>,
}

/// How one game ended, as one of the outcome rows (they sum to the games).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Sole(usize),
    Shared,
    NoWinner,
    TurnLimit,
    Failed,
}

impl Class {
    pub fn of(o: &Outcome) -> Class {
        match &o.status {
            Status::Failed(_) => Class::Failed,
            Status::TurnLimit | Status::Paused => Class::TurnLimit,
            Status::Finished => match o.winners.as_slice() {
                [] => Class::NoWinner,
                [w] => Class::Sole(*w),
                _ => Class::Shared,
            },
        }
    }

    /// Index among `players + 4` outcome rows.
    pub fn index(self, players: usize) -> usize {
        match self {
            Class::Sole(s) => s.min(players.saturating_sub(1)),
            Class::Shared => players,
            Class::NoWinner => players + 1,
            Class::TurnLimit => players + 2,
            Class::Failed => players + 3,
        }
    }
}

/// A per-thread accumulator keyed by definition index (no strings in the hot path for
/// cards); [`Acc::finish`] turns it into [`Stats`].
#[derive(Debug, Clone, Default)]
pub struct Acc {
    pub s: Stats,
    cards: BTreeMap<u32, CardTally>,
    /// Per card, over the seat-rounds of rounds the rules named winners for.
    round_cards: BTreeMap<u32, CardTally>,
}

impl Acc {
    /// Count game `index`, whose seat `s` was played by role `roles[s]`.
    pub fn add(&mut self, index: u64, o: &Outcome, roles: &[usize]) {
        let s = &mut self.s;
        s.games += 1;
        let n = o.scores.len().max(roles.len());
        if s.seat_wins.len() < n {
            s.seat_wins.resize(n, 0);
            s.sole_wins.resize(n, 0);
        }
        if s.roles.len() < roles.len() {
            s.roles.resize(roles.len(), Tally::default());
            s.role_scores.resize(roles.len(), ScoreSum::default());
        }
        match Class::of(o) {
            Class::Failed => {
                s.failed += 1;
                if let Status::Failed(f) = &o.status {
                    s.failures.push((index, f.to_string()));
                }
                return;
            }
            Class::TurnLimit => {
                s.turn_limit += 1;
                if s.turn_limited.len() < 10 {
                    s.turn_limited.push(index);
                }
            }
            c => {
                s.finished += 1;
                *s.endings.entry(o.reason.clone()).or_default() += 1;
                match c {
                    Class::Sole(w) if w < n => s.sole_wins[w] += 1,
                    Class::Shared => s.shared += 1,
                    Class::NoWinner => s.no_winner += 1,
                    _ => {}
                }
            }
        }
        let finished = matches!(o.status, Status::Finished);
        s.turns += o.turns;
        *s.lengths.entry(o.turns).or_default() += 1;
        let won = |seat: usize| finished && o.winners.contains(&seat);
        for seat in 0..n {
            let w = u64::from(won(seat));
            s.seat_wins[seat] += w;
            s.player_games.add(Tally { games: 1, wins: w });
            if let Some(&r) = roles.get(seat) {
                s.roles[r].add(Tally { games: 1, wins: w });
                s.role_scores[r].add(ScoreSum::one(o.scores.get(seat).copied().unwrap_or(0)));
            }
            // A pack without characters (nobles, leaders) has no table of them.
            if let Some(Some(c)) = o.characters.get(seat) {
                s.characters.entry(c.clone()).or_default().add(Tally { games: 1, wins: w });
            }
        }
        for seat in 0..o.plays.len().max(o.discards.len()) {
            let plays = o.plays.get(seat).map_or(&[][..], Vec::as_slice);
            let discards = o.discards.get(seat).map_or(&[][..], Vec::as_slice);
            s.discards_recorded |= !discards.is_empty();
            CardTally::count(&mut self.cards, plays, discards, won(seat));
        }
        s.rounds.add(o, &mut self.round_cards);
        for (seat, drawn) in o.drawn.iter().enumerate() {
            let w = u64::from(won(seat));
            for &d in drawn {
                let e = self.cards.entry(d).or_default();
                e.drawn_in += 1;
                e.drawn_wins += w;
                self.s.drawn_recorded = true;
            }
        }
    }

    pub fn merge(mut self, o: Acc) -> Acc {
        for (k, v) in &o.cards {
            self.cards.entry(*k).or_default().add(v);
        }
        for (k, v) in &o.round_cards {
            self.round_cards.entry(*k).or_default().add(v);
        }
        self.s = self.s.merge(o.s);
        self
    }

    /// The statistics, cards named by id.
    pub fn finish(self, pack: &Pack) -> Stats {
        let mut s = self.s;
        let id = |d: u32| pack.defs.get(d as usize).map_or_else(|| format!("#{d}"), |x| x.def.id.clone());
        for (d, t) in self.cards {
            s.cards.entry(id(d)).or_default().add(&t);
        }
        for (d, t) in self.round_cards {
            s.rounds.cards.entry(id(d)).or_default().add(&t);
        }
        s
    }
}

pub(super) fn add_vec(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

impl Stats {
    /// Add another run's statistics (disjoint games) to these.
    /// The first way the counts disagree with one another, in words (`None`: they agree):
    /// outcomes that add up to more than the games, wins past the games they are among.
    /// A statistics file whose counts disagree was edited or damaged.
    pub fn disagreement(&self) -> Option<String> {
        fn sum(v: impl Iterator<Item = u64>) -> Option<u64> {
            v.into_iter().try_fold(0u64, u64::checked_add)
        }
        let outcomes = sum(self.sole_wins.iter().copied().chain([self.shared, self.no_winner]));
        if outcomes.is_none_or(|o| o > self.finished) {
            return Some(format!(
                "its games won alone, shared and without a winner add up to more than its {} finished games",
                self.finished
            ));
        }
        if !self.endings.is_empty() && sum(self.endings.values().copied()) != Some(self.finished) {
            return Some(format!("its endings do not add up to its {} finished games", self.finished));
        }
        let played = self.finished.checked_add(self.turn_limit);
        if sum(self.lengths.values().copied()) != played {
            return Some("its game lengths do not add up to its games that did not fail".into());
        }
        if let Some((seat, w)) = self.seat_wins.iter().enumerate().find(|(_, &w)| w > self.finished) {
            return Some(format!("seat {} wins {w} of its {} finished games", seat + 1, self.finished));
        }
        let tallies = std::iter::once(("all seats".to_string(), self.player_games))
            .chain(self.roles.iter().enumerate().map(|(i, t)| (format!("bot {}", i + 1), *t)))
            .chain(self.characters.iter().map(|(c, t)| (format!("character `{c}`"), *t)));
        for (who, t) in tallies {
            if t.wins > t.games {
                return Some(format!("{who} won {} of {} games", t.wins, t.games));
            }
        }
        for (id, c) in &self.cards {
            let pairs = [(c.played_wins, c.played_in), (c.drawn_wins, c.drawn_in), (c.discarded_wins, c.discarded_in)];
            if pairs.iter().any(|(w, g)| w > g) || c.played_in > self.player_games.games {
                return Some(format!("card `{id}` has more wins than games"));
            }
        }
        if self.failures.len() as u64 > self.failed || self.turn_limited.len() as u64 > self.turn_limit {
            return Some("it lists more failed or stopped games than it counts".into());
        }
        None
    }

    pub fn merge(mut self, o: Stats) -> Stats {
        self.games += o.games;
        self.finished += o.finished;
        self.turn_limit += o.turn_limit;
        self.failed += o.failed;
        add_vec(&mut self.sole_wins, &o.sole_wins);
        self.shared += o.shared;
        self.no_winner += o.no_winner;
        for (k, v) in o.endings {
            *self.endings.entry(k).or_default() += v;
        }
        add_vec(&mut self.seat_wins, &o.seat_wins);
        self.turns += o.turns;
        for (k, v) in o.lengths {
            *self.lengths.entry(k).or_default() += v;
        }
        self.player_games.add(o.player_games);
        if self.roles.len() < o.roles.len() {
            self.roles.resize(o.roles.len(), Tally::default());
        }
        for (i, t) in o.roles.into_iter().enumerate() {
            self.roles[i].add(t);
        }
        if self.role_scores.len() < o.role_scores.len() {
            self.role_scores.resize(o.role_scores.len(), ScoreSum::default());
        }
        for (i, t) in o.role_scores.into_iter().enumerate() {
            self.role_scores[i].add(t);
        }
        for (k, v) in o.characters {
            self.characters.entry(k).or_default().add(v);
        }
        for (k, v) in o.cards {
            self.cards.entry(k).or_default().add(&v);
        }
        self.drawn_recorded |= o.drawn_recorded;
        self.discards_recorded |= o.discards_recorded;
        self.rounds = self.rounds.merge(o.rounds);
        self.failures.extend(o.failures);
        self.failures.sort();
        self.turn_limited.extend(o.turn_limited);
        self.turn_limited.sort_unstable();
        self.turn_limited.truncate(10);
        self
    }

    /// Games that did not fail.
    pub fn played(&self) -> u64 {
        self.games - self.failed
    }

    /// Games in each outcome row: each seat winning alone, shared, no winner, turn limit,
    /// failed (sums to `games`).
    pub fn outcome_counts(&self, players: usize) -> Vec<u64> {
        let mut v: Vec<u64> = (0..players).map(|s| self.sole_wins.get(s).copied().unwrap_or(0)).collect();
        v.extend([self.shared, self.no_winner, self.turn_limit, self.failed]);
        v
    }
}

/// What two runs of the same seeds differ in, game by game (`--compare`): for each outcome
/// row and each seat's win, the games where only side A or only side B had it, and the
/// game-length differences (B − A) over games neither side failed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    pub games: u64,
    pub outcome_a_only: Vec<u64>,
    pub outcome_b_only: Vec<u64>,
    pub win_a_only: Vec<u64>,
    pub win_b_only: Vec<u64>,
    pub length_games: u64,
    pub length_diff_sum: i64,
    pub length_diff_sq: u64,
    /// Per seat, over games neither side failed: the final scores of side A and of side
    /// B, and their differences (B − A).
    #[serde(default)]
    pub scores_a: Vec<ScoreSum>,
    #[serde(default)]
    pub scores_b: Vec<ScoreSum>,
    #[serde(default)]
    pub score_diff: Vec<ScoreSum>,
}

impl Paired {
    pub fn add(&mut self, players: usize, a: &Outcome, b: &Outcome) {
        self.games += 1;
        let rows = players + 4;
        if self.outcome_a_only.len() < rows {
            self.outcome_a_only.resize(rows, 0);
            self.outcome_b_only.resize(rows, 0);
            self.win_a_only.resize(players, 0);
            self.win_b_only.resize(players, 0);
        }
        let (ca, cb) = (Class::of(a).index(players), Class::of(b).index(players));
        if ca != cb {
            self.outcome_a_only[ca] += 1;
            self.outcome_b_only[cb] += 1;
        }
        let won = |o: &Outcome, s: usize| matches!(o.status, Status::Finished) && o.winners.contains(&s);
        for s in 0..players {
            match (won(a, s), won(b, s)) {
                (true, false) => self.win_a_only[s] += 1,
                (false, true) => self.win_b_only[s] += 1,
                _ => {}
            }
        }
        if !matches!(a.status, Status::Failed(_)) && !matches!(b.status, Status::Failed(_)) {
            let d = b.turns as i64 - a.turns as i64;
            self.length_games += 1;
            self.length_diff_sum += d;
            self.length_diff_sq += d.unsigned_abs() * d.unsigned_abs();
            for v in [&mut self.scores_a, &mut self.scores_b, &mut self.score_diff] {
                if v.len() < players {
                    v.resize(players, ScoreSum::default());
                }
            }
            for seat in 0..players {
                let score = |o: &Outcome| o.scores.get(seat).copied().unwrap_or(0);
                self.scores_a[seat].add(ScoreSum::one(score(a)));
                self.scores_b[seat].add(ScoreSum::one(score(b)));
                self.score_diff[seat].add(ScoreSum::one(score(b).saturating_sub(score(a))));
            }
        }
    }

    pub fn merge(mut self, o: Paired) -> Paired {
        self.games += o.games;
        add_vec(&mut self.outcome_a_only, &o.outcome_a_only);
        add_vec(&mut self.outcome_b_only, &o.outcome_b_only);
        add_vec(&mut self.win_a_only, &o.win_a_only);
        add_vec(&mut self.win_b_only, &o.win_b_only);
        self.length_games += o.length_games;
        self.length_diff_sum += o.length_diff_sum;
        self.length_diff_sq += o.length_diff_sq;
        add_sums(&mut self.scores_a, o.scores_a);
        add_sums(&mut self.scores_b, o.scores_b);
        add_sums(&mut self.score_diff, o.score_diff);
        self
    }
}

fn add_sums(a: &mut Vec<ScoreSum>, b: Vec<ScoreSum>) {
    if a.len() < b.len() {
        a.resize(b.len(), ScoreSum::default());
    }
    for (x, y) in a.iter_mut().zip(b) {
        x.add(y);
    }
}

/// The rounds of a run's games.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundStats {
    /// Games (that did not fail) in which the rules began at least one round.
    pub games: u64,
    /// Rounds a game had → games.
    pub per_game: BTreeMap<u64, u64>,
    /// Rounds that came to their end, and their lengths: turns → rounds.
    pub closed: u64,
    pub lengths: BTreeMap<u64, u64>,
    /// Rounds the rules said the winners of, and those won by nobody.
    pub decided: u64,
    pub no_winner: u64,
    /// Rounds each seat won (alone or shared).
    pub seat_wins: Vec<u64>,
    /// Seat-rounds of the decided rounds and the wins among them: the card baseline.
    pub seat_rounds: Tally,
    /// Per card id, over seat-rounds of decided rounds.
    pub cards: BTreeMap<String, CardTally>,
}

impl RoundStats {
    /// Count the rounds of one game; card figures go to `cards` (by definition index).
    pub fn add(&mut self, o: &Outcome, cards: &mut BTreeMap<u32, CardTally>) {
        if o.rounds.is_empty() || matches!(o.status, Status::Failed(_)) {
            return;
        }
        self.games += 1;
        *self.per_game.entry(o.rounds.len() as u64).or_default() += 1;
        let seats = o.scores.len().max(o.plays.len());
        if self.seat_wins.len() < seats {
            self.seat_wins.resize(seats, 0);
        }
        for r in &o.rounds {
            if r.closed {
                self.closed += 1;
                *self.lengths.entry(r.turns).or_default() += 1;
            }
            let Some(winners) = &r.winners else { continue };
            self.decided += 1;
            if winners.is_empty() {
                self.no_winner += 1;
            }
            for seat in 0..seats {
                let won = winners.contains(&seat);
                self.seat_wins[seat] += u64::from(won);
                self.seat_rounds.add(Tally { games: 1, wins: u64::from(won) });
                let plays = r.plays.get(seat).map_or(&[][..], Vec::as_slice);
                let discards = r.discards.get(seat).map_or(&[][..], Vec::as_slice);
                CardTally::count(cards, plays, discards, won);
            }
        }
    }

    pub fn merge(mut self, o: RoundStats) -> RoundStats {
        self.games += o.games;
        for (k, v) in o.per_game {
            *self.per_game.entry(k).or_default() += v;
        }
        self.closed += o.closed;
        for (k, v) in o.lengths {
            *self.lengths.entry(k).or_default() += v;
        }
        self.decided += o.decided;
        self.no_winner += o.no_winner;
        add_vec(&mut self.seat_wins, &o.seat_wins);
        self.seat_rounds.add(o.seat_rounds);
        for (k, v) in o.cards {
            self.cards.entry(k).or_default().add(&v);
        }
        self
    }
}
