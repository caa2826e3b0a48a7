//! Statistics of games played in rounds: how many rounds a game lasts, how long a round
//! is, and, where the rules say who won each round (`win_round`), rounds won by seat and
//! card win rates per round (a card that decides rounds shows here even when it is
//! drawn in every game). Integers only, so merging is addition, as in [`super::stats`].

use std::collections::BTreeMap;

use crown_engine::game::{Outcome, Status};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::interval::{each_of, rate, z_for};
use super::stats::{add_vec, CardTally, Tally};
use super::summary::{card_figures, comparisons, share, Histogram};

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

    /// The summary's `rounds` section (null when no game kept rounds).
    pub fn summary(&self, names: &BTreeMap<String, String>, confidence: f64, min_sample: u64, discards: bool) -> Value {
        let z = z_for(confidence);
        let each = each_of(confidence, self.cards.len());
        let z_cards = z_for(each);
        if self.games == 0 {
            return Value::Null;
        }
        let seats: Vec<Value> = (self.seat_wins.iter().enumerate())
            .map(|(i, &w)| {
                let mut v = share(w, self.decided, z);
                v["seat"] = json!(i + 1);
                v
            })
            .collect();
        let cards: serde_json::Map<String, Value> = (self.cards.iter())
            .map(|(id, c)| {
                (id.clone(), card_figures(names, id, c, self.seat_rounds, z_cards, min_sample, false, discards))
            })
            .collect();
        let rounds: u64 = self.per_game.iter().map(|(k, v)| k * v).sum();
        json!({
            "games": self.games,
            "per_game": Histogram(&self.per_game).figures(rate(rounds, self.games)),
            "closed": self.closed,
            "length": Histogram(&self.lengths).figures(rate(self.lengths.iter().map(|(k, v)| k * v).sum(), self.closed)),
            "decided": self.decided,
            "no_winner": self.no_winner,
            "seats": if self.decided > 0 { json!(seats) } else { json!([]) },
            "seat_rounds": share(self.seat_rounds.wins, self.seat_rounds.games, z),
            "cards": cards,
            "cards_compared": comparisons(self.cards.len(), each),
        })
    }
}

/// The terminal lines of the `rounds` section.
pub fn print(v: &Value, conf: f64) {
    let r = &v["rounds"];
    if r.is_null() {
        return;
    }
    let per = &r["per_game"];
    let len = &r["length"];
    println!(
        "\nrounds: {:.1} a game (from {} to {}); a round lasts {:.1} turns on average (median {}, from {} to {})",
        per["mean"].as_f64().unwrap_or(0.0),
        per["min"],
        per["max"],
        len["mean"].as_f64().unwrap_or(0.0),
        len["median"],
        len["min"],
        len["max"],
    );
    let decided = r["decided"].as_u64().unwrap_or(0);
    if decided == 0 {
        println!("  the rules name no round winners (`win_round`): no rounds won by seat or cards per round");
        return;
    }
    println!("\nrounds won by seat ({conf:.0}% intervals; of {decided} round{} with a result)", plural(decided));
    for s in r["seats"].as_array().into_iter().flatten() {
        println!("{}", super::summary::share_row(&format!("seat {}", s["seat"]), s));
    }
    let nobody = r["no_winner"].as_u64().unwrap_or(0);
    if nobody > 0 {
        println!("  won by nobody: {nobody} round{}", plural(nobody));
    }
    super::summary::print_cards(
        &r["cards"],
        &r["cards_compared"],
        &r["seat_rounds"],
        v,
        "cards, per seat-round: rate of rounds won when played in the round vs not played",
        "seat-rounds",
        false,
    );
}

fn plural(n: u64) -> &'static str {
    crown_engine::diag::plural(n)
}
