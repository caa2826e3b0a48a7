//! The figures a summary is made of, each a type built from integer statistics: a share
//! of games won with its interval ([`Share`]), a count of games with its rate ([`Count`]),
//! a difference with its interval ([`Diff`]), a distribution of sizes ([`Histogram`]), the
//! correction of many card intervals ([`Comparisons`]) and one card's figures
//! ([`CardFigures`]). Each serializes to the JSON the summary has always had, and has the
//! text the terminal table prints for it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::interval::{newcombe, rate, wilson_z};
use super::stats::{CardTally, Tally};

/// A figure rounded to four decimals, as the summary states every rate and mean.
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// An interval `[lo, hi]`, rounded.
fn interval(lo: f64, hi: f64) -> [f64; 2] {
    [round4(lo), round4(hi)]
}

/// Label of outcome row `k` of `players + 4`.
pub fn outcome_label(k: usize, players: usize) -> String {
    match k.checked_sub(players) {
        None => format!("seat {} wins alone", k + 1),
        Some(0) => "shared win (2+ winners)".into(),
        Some(1) => "finished, no winner".into(),
        Some(2) => "turn limit".into(),
        _ => "failed".into(),
    }
}

/// Wins among games: `k` of `n`, the rate and its Wilson interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Share {
    pub games: u64,
    pub wins: u64,
    pub rate: f64,
    pub ci: [f64; 2],
}

impl Share {
    /// `k` wins of `n` games, the interval at `z` standard errors.
    pub fn of(k: u64, n: u64, z: f64) -> Share {
        let (lo, hi) = wilson_z(k, n, z);
        Share { games: n, wins: k, rate: round4(rate(k, n)), ci: interval(lo, hi) }
    }

    /// The terminal row: `label`, the rate, its interval, wins of games.
    pub fn row(&self, label: &str) -> String {
        format!("  {label:<34} {:>6}  {:<13} {}/{}", pct(self.rate), ci(self.ci), self.wins, self.games)
    }
}

/// Games of one kind among `of` games: how many, the rate and its Wilson interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Count {
    pub games: u64,
    pub rate: f64,
    pub ci: [f64; 2],
}

impl Count {
    pub fn of(k: u64, n: u64, z: f64) -> Count {
        let (lo, hi) = wilson_z(k, n, z);
        Count { games: k, rate: round4(rate(k, n)), ci: interval(lo, hi) }
    }

    /// The terminal row: `label` in `width` characters, the rate, its interval, the games.
    pub fn row(&self, label: &str, width: usize) -> String {
        format!("  {label:<width$} {:>6}  {:<13} {}", pct(self.rate), ci(self.ci), self.games)
    }
}

/// A difference with its interval and whether the interval excludes 0 (`real`); no value
/// and no interval when a side had nothing to measure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Diff {
    pub value: Option<f64>,
    pub ci: Option<[f64; 2]>,
    pub real: bool,
}

impl Diff {
    /// The difference `(value, lo, hi)`, rounded.
    pub fn of(d: (f64, f64, f64)) -> Diff {
        Diff { value: Some(round4(d.0)), ci: Some(interval(d.1, d.2)), real: d.1 > 0.0 || d.2 < 0.0 }
    }

    /// The difference, or none (`Diff::default()`) when there is nothing to measure.
    pub fn of_some(d: Option<(f64, f64, f64)>) -> Diff {
        d.map_or_else(Diff::default, Diff::of)
    }

    /// The improvement `k1/n1 - k2/n2` with its Newcombe interval (none when a side has no
    /// games).
    pub fn improvement(k1: u64, n1: u64, k2: u64, n2: u64, z: f64) -> Diff {
        if n1 == 0 || n2 == 0 {
            return Diff::default();
        }
        Diff::of(newcombe(k1, n1, k2, n2, z))
    }

    /// The value (0 when there is none).
    pub fn value_or_zero(&self) -> f64 {
        self.value.unwrap_or(0.0)
    }

    /// The interval's ends (0 when there is none).
    pub fn lo(&self) -> f64 {
        self.ci.map_or(0.0, |c| c[0])
    }

    pub fn hi(&self) -> f64 {
        self.ci.map_or(0.0, |c| c[1])
    }

    /// `+1.2 [+0.3, +2.1]` in percentage points, for the card table.
    pub fn points(&self) -> String {
        if self.value.is_none() {
            return "n/a (one side empty)".into();
        }
        format!("{:+.1} [{:+.1}, {:+.1}]", 100.0 * self.value_or_zero(), 100.0 * self.lo(), 100.0 * self.hi())
    }
}

/// A count of things by size (game lengths, rounds a game, turns a round): the mean (given),
/// median, least and greatest size, and the count of each size.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Histogram {
    pub mean: f64,
    pub median: u64,
    pub min: Option<u64>,
    pub max: Option<u64>,
    /// `[size, count]`, smallest size first.
    pub histogram: Vec<(u64, u64)>,
}

impl Histogram {
    /// The figures of `counts` (size → count), given their mean.
    pub fn of(counts: &BTreeMap<u64, u64>, mean: f64) -> Histogram {
        let total: u64 = counts.values().sum();
        let mut left = total.div_ceil(2);
        let mut median = 0;
        for (&k, &n) in counts {
            median = k;
            if n >= left {
                break;
            }
            left -= n;
        }
        Histogram {
            mean: round4(mean),
            median,
            min: counts.keys().next().copied(),
            max: counts.keys().next_back().copied(),
            histogram: counts.iter().map(|(&k, &n)| (k, n)).collect(),
        }
    }
}

/// How the card intervals were corrected for their number: `cards` cards, each interval at
/// confidence `each` (Bonferroni).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparisons {
    pub method: &'static str,
    pub cards: usize,
    pub each: f64,
}

impl Comparisons {
    pub fn of(cards: usize, each: f64) -> Comparisons {
        Comparisons { method: "Bonferroni", cards, each }
    }
}

/// One card's figures against a baseline (player-games, or seat-rounds): the win rate when
/// played and not, the improvement, the same for drawn and discarded where those are
/// measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardFigures {
    pub name: String,
    pub plays: u64,
    pub played: Share,
    pub not_played: Share,
    pub improvement_played: Diff,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drawn: Option<Share>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_drawn: Option<Share>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub improvement_drawn: Option<Diff>,
    /// Lost from the hand by a forced discard: counted apart, never as "not played".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discarded: Option<Share>,
    /// Fewer than the minimum sample on a side (played or not, drawn or not).
    pub low_sample: bool,
}

/// What the figures of a set of cards are measured against and how.
#[derive(Debug, Clone, Copy)]
pub struct CardBase<'a> {
    pub names: &'a BTreeMap<String, String>,
    /// The player-games (or seat-rounds) and the wins among them.
    pub base: Tally,
    /// Standard errors of each card's intervals.
    pub z: f64,
    pub min_sample: u64,
    /// Whether the figures for drawn and for discarded cards are measured.
    pub drawn: bool,
    pub discards: bool,
}

impl CardFigures {
    /// The figures of card `id`, counted `c`, against `b`.
    pub fn of(b: &CardBase, id: &str, c: &CardTally) -> CardFigures {
        let (base, z) = (b.base, b.z);
        let not_in = base.games - c.played_in.min(base.games);
        let not_wins = base.wins - c.played_wins.min(base.wins);
        let mut f = CardFigures {
            name: b.names.get(id).map_or(id, String::as_str).to_string(),
            plays: c.plays,
            played: Share::of(c.played_wins, c.played_in, z),
            not_played: Share::of(not_wins, not_in, z),
            improvement_played: Diff::improvement(c.played_wins, c.played_in, not_wins, not_in, z),
            drawn: None,
            not_drawn: None,
            improvement_drawn: None,
            discarded: None,
            low_sample: c.played_in.min(not_in) < b.min_sample,
        };
        if b.drawn {
            let nd_in = base.games - c.drawn_in.min(base.games);
            let nd_wins = base.wins - c.drawn_wins.min(base.wins);
            f.drawn = Some(Share::of(c.drawn_wins, c.drawn_in, z));
            f.not_drawn = Some(Share::of(nd_wins, nd_in, z));
            f.improvement_drawn = Some(Diff::improvement(c.drawn_wins, c.drawn_in, nd_wins, nd_in, z));
            f.low_sample |= c.drawn_in.min(nd_in) < b.min_sample;
        }
        if b.discards {
            f.discarded = Some(Share::of(c.discarded_wins, c.discarded_in, z));
        }
        f
    }

    /// The improvement the report charts: when drawn if `drawn`, else when played.
    pub fn improvement(&self, drawn: bool) -> Option<&Diff> {
        if drawn {
            self.improvement_drawn.as_ref()
        } else {
            Some(&self.improvement_played)
        }
    }
}

/// A rate as a percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// An interval as percentages, `[12.3-45.6]`.
pub fn ci(c: [f64; 2]) -> String {
    format!("[{:.1}-{:.1}]", 100.0 * c[0], 100.0 * c[1])
}

/// A size that may be missing, as the summary JSON writes it (`null` when missing).
pub fn or_null(x: Option<u64>) -> String {
    x.map_or_else(|| "null".into(), |x| x.to_string())
}
