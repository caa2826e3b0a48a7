//! What a game counts as it is played, for `crown sim`'s statistics and the end of the
//! game: the cards each seat played (`note_play`) and lost from the hand without playing
//! them (`note_discard`); the rounds: where each began, and who won it when the rules say
//! (`win_round`); when each seat went out; the parts of each final score.

/// A round as the game marks it: it begins when the rules change the round number
/// (`set_round`, `next_round`) and ends where the next begins or the game ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundMark {
    pub number: i64,
    /// The game's turn count when the round began.
    pub from_turn: u64,
    /// Where the round begins in each seat's plays and discards.
    pub plays_from: Vec<usize>,
    pub discards_from: Vec<usize>,
    /// The seats that won the round (`win_round`); `None` while the rules have not said.
    pub winners: Option<Vec<usize>>,
}

/// One round of a game, for statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundOutcome {
    pub number: i64,
    /// Turns played in the round.
    pub turns: u64,
    /// Who won it, when the rules said (`win_round`).
    pub winners: Option<Vec<usize>>,
    /// Definition indices each seat played, and discarded, in the round.
    pub plays: Vec<Vec<u32>>,
    pub discards: Vec<Vec<u32>>,
    /// Whether the round came to its end: a later round began or the game finished.
    pub closed: bool,
}

/// The counts of one game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Definition indices each seat played, in order.
    pub plays: Vec<Vec<u32>>,
    /// Definition indices of the cards each seat lost from its hand without playing them
    /// (a forced discard), in order.
    pub discards: Vec<Vec<u32>>,
    pub rounds: Vec<RoundMark>,
    /// Each seat that went out (`eliminate`) and the turn it went out in, in order.
    pub outs: Vec<(usize, u64)>,
    /// The parts of each seat's score, when the rules gave them (`set_score(p, parts)`).
    pub score_parts: Vec<Vec<(String, i64)>>,
}

impl Tally {
    pub fn new(players: usize) -> Tally {
        Tally {
            plays: vec![Vec::new(); players],
            discards: vec![Vec::new(); players],
            rounds: Vec::new(),
            outs: Vec::new(),
            score_parts: vec![Vec::new(); players],
        }
    }

    /// Seat `p` went out in turn `turn` (or came back, `None`).
    pub fn out(&mut self, p: usize, turn: Option<u64>) {
        self.outs.retain(|&(q, _)| q != p);
        if let Some(t) = turn {
            self.outs.push((p, t));
        }
    }

    /// Round `number` begins at turn `turn`.
    pub fn begin_round(&mut self, number: i64, turn: u64) {
        self.rounds.push(RoundMark {
            number,
            from_turn: turn,
            plays_from: self.plays.iter().map(Vec::len).collect(),
            discards_from: self.discards.iter().map(Vec::len).collect(),
            winners: None,
        });
    }

    /// The rules say who won the round in progress.
    pub fn win_round(&mut self, winners: Vec<usize>) -> Result<(), String> {
        let Some(r) = self.rounds.last_mut() else {
            return Err("win_round: no round has begun (set_round or next_round begins one)".into());
        };
        if r.winners.is_some() {
            return Err(format!("win_round: round {} was already won", r.number));
        }
        r.winners = Some(winners);
        Ok(())
    }

    /// Every round marked, the last one closed when `finished`.
    pub fn rounds(&self, turns: u64, finished: bool) -> Vec<RoundOutcome> {
        let slice = |all: &[Vec<u32>], from: &[usize], to: Option<&[usize]>| -> Vec<Vec<u32>> {
            all.iter()
                .enumerate()
                .map(|(p, v)| {
                    let a = from.get(p).copied().unwrap_or(0).min(v.len());
                    let b = to.and_then(|t| t.get(p).copied()).unwrap_or(v.len()).clamp(a, v.len());
                    v[a..b].to_vec()
                })
                .collect()
        };
        (self.rounds.iter().enumerate())
            .map(|(i, r)| {
                let next = self.rounds.get(i + 1);
                RoundOutcome {
                    number: r.number,
                    turns: next.map_or(turns, |n| n.from_turn).saturating_sub(r.from_turn),
                    winners: r.winners.clone(),
                    plays: slice(&self.plays, &r.plays_from, next.map(|n| n.plays_from.as_slice())),
                    discards: slice(&self.discards, &r.discards_from, next.map(|n| n.discards_from.as_slice())),
                    closed: next.is_some() || finished,
                }
            })
            .collect()
    }

    /// Definition index `old` is now `new` (a reload renumbered the definitions).
    pub fn renumber(&mut self, map: impl Fn(u32) -> u32) {
        for d in self.plays.iter_mut().chain(self.discards.iter_mut()).flatten() {
            *d = map(*d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_split_the_plays_and_count_their_turns() {
        let mut t = Tally::new(2);
        t.plays[0].push(7);
        t.begin_round(1, 2);
        t.plays[0].push(1);
        t.discards[1].push(4);
        t.win_round(vec![0]).unwrap();
        assert!(t.win_round(vec![1]).unwrap_err().contains("already won"));
        t.begin_round(2, 5);
        t.plays[1].push(3);
        let r = t.rounds(9, false);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].number, r[0].turns, r[0].closed), (1, 3, true));
        assert_eq!(r[0].plays, vec![vec![1], vec![]]);
        assert_eq!(r[0].discards, vec![vec![], vec![4]]);
        assert_eq!(r[0].winners, Some(vec![0]));
        assert_eq!((r[1].turns, r[1].closed, r[1].winners.clone()), (4, false, None));
        assert_eq!(r[1].plays, vec![vec![], vec![3]]);
        assert!(t.rounds(9, true)[1].closed);
    }

    #[test]
    fn a_round_is_won_only_once_it_has_begun() {
        let mut t = Tally::new(1);
        assert!(t.win_round(vec![0]).unwrap_err().contains("no round has begun"));
    }
}
