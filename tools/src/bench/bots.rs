//! `crown bench --only bots`: a pack's greedy bots against random ones on the same seeds,
//! and how much of a greedy game is the bots deciding. The greedy games are played once
//! more with each seat repeating, by position, the options its bot picked: the rules of
//! those very games with nothing decided. A greedy game can cost more than a random one
//! for two reasons, and the figures tell them apart: its bots think (greedy against the
//! replay), and its games are other games (the replay against random games: longer, or
//! with larger hands and boards).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use crown_engine::content::Pack;
use crown_engine::game::agent::{Agent, ChoiceRequest};
use crown_engine::game::Outcome;

use super::median;
use crate::sim;
use crate::sim::plan::{Characters, Plan, SeatOrder};

/// The seed of every run: game `i` is the same game for each kind of bot.
const SEED: u64 = 1;

/// Games of one kind of bot: how many, their turns, and the time each round took.
pub struct BotRun {
    pub games: u64,
    pub turns: u64,
    pub times: Vec<f64>,
}

impl BotRun {
    /// The median round's seconds.
    pub fn secs(&self) -> f64 {
        median(&self.times)
    }

    pub fn gps(&self) -> f64 {
        self.games as f64 / self.secs().max(1e-9)
    }

    pub fn turns_per_game(&self) -> f64 {
        self.turns as f64 / self.games.max(1) as f64
    }
}

/// How many times each kind of game is timed, in turn.
const ROUNDS: usize = 5;

/// The default bots against random ones, on one thread: the same games (the same seeds),
/// every seat random, every seat greedy, and the greedy games replayed; each kind in turn,
/// [`ROUNDS`] times. Each figure is the median of its rounds, and each ratio the median of
/// the rounds' own ratios: a round's runs are a few seconds apart, so they see the same
/// machine (its speed drifts by a fifth from one minute to the next here).
pub struct BotSpeeds {
    pub random: BotRun,
    pub greedy: BotRun,
    /// The greedy games again, each seat repeating its bot's picks: their rules alone.
    pub replayed: BotRun,
}

impl BotSpeeds {
    /// The median over the rounds of `f(random, greedy, replayed)` seconds.
    fn per_round(&self, f: impl Fn(f64, f64, f64) -> f64) -> f64 {
        let rounds: Vec<f64> = (0..self.random.times.len())
            .map(|i| f(self.random.times[i], self.greedy.times[i], self.replayed.times[i]))
            .collect();
        median(&rounds)
    }

    /// Greedy games a second over random games a second.
    pub fn ratio(&self) -> f64 {
        self.per_round(|random, greedy, _| random / greedy.max(1e-9))
    }

    /// Greedy turns a second over random turns a second (the cost of a turn, where the
    /// bots make games of different lengths).
    pub fn turn_ratio(&self) -> f64 {
        self.ratio() * self.greedy.turns as f64 / self.random.turns.max(1) as f64
    }

    /// The part of a greedy game's time its bots spend deciding.
    pub fn deciding_share(&self) -> f64 {
        self.per_round(|_, greedy, replayed| (1.0 - replayed / greedy.max(1e-9)).max(0.0))
    }

    /// The ratio bots that decided as the greedy ones do, at no cost, would reach: the
    /// greedy games' rules alone against the random games.
    pub fn free_deciding_ratio(&self) -> f64 {
        self.per_round(|random, _, replayed| random / replayed.max(1e-9))
    }
}

pub fn bot_speeds(pack: &Arc<Pack>, games: u64) -> Result<BotSpeeds, String> {
    let players = crate::seats::player_count(pack, None, None);
    let kinds = |agent: &str| crate::seats::agent_kinds(pack, None, players, &[agent.to_string()], agent);
    let (random, greedy) = (kinds("random")?, kinds("greedy")?);
    let run = |kinds: &[String]| -> Result<(u64, f64), String> {
        let start = Instant::now();
        let s = sim::simulate(pack, kinds, None, SEED, games, Some(1), 10, None)?;
        if s.failed > 0 {
            return Err(format!("{} of {games} {} games failed: {:?}", s.failed, kinds[0], s.failures.first()));
        }
        Ok((s.turns, start.elapsed().as_secs_f64()))
    };
    let plan = Plan::new(pack, SEED, players, None, greedy.clone(), SeatOrder::Fixed, Characters::Game)?;
    let recorded = (0..games).map(|i| record(pack, &plan, i)).collect::<Result<Vec<_>, _>>()?;
    let replay = || -> Result<(u64, f64), String> {
        let start = Instant::now();
        let turns = replay_all(pack, &plan, &recorded)?;
        Ok((turns, start.elapsed().as_secs_f64()))
    };
    let empty = || BotRun { games, turns: 0, times: Vec::with_capacity(ROUNDS) };
    let mut b = BotSpeeds { random: empty(), greedy: empty(), replayed: empty() };
    for _ in 0..ROUNDS {
        for (into, (turns, secs)) in
            [(&mut b.random, run(&random)?), (&mut b.greedy, run(&greedy)?), (&mut b.replayed, replay()?)]
        {
            into.turns = turns;
            into.times.push(secs);
        }
    }
    Ok(b)
}

/// A greedy game as played: each seat's picks, and how it ended.
struct Recorded {
    picks: Vec<Vec<usize>>,
    outcome: Outcome,
}

/// Play game `i` of `plan`, keeping the position of every option each seat picked.
fn record(pack: &Arc<Pack>, plan: &Plan, i: u64) -> Result<Recorded, String> {
    let picks: Vec<Arc<Mutex<Vec<usize>>>> = (0..plan.players).map(|_| Arc::default()).collect();
    let (game, _) = plan.game_with(pack, i, |seat, inner| Box::new(Recording { inner, picks: picks[seat].clone() }))?;
    let (_, outcome) = game.run();
    let picks =
        picks.iter().map(|p| p.lock().map(|p| p.clone()).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    Ok(Recorded { picks, outcome })
}

/// Replay every recorded game, each seat repeating its picks; the turns played. A replay
/// that ends otherwise than the game it repeats is an error: the same seed and choices
/// make the same game.
fn replay_all(pack: &Arc<Pack>, plan: &Plan, recorded: &[Recorded]) -> Result<u64, String> {
    let mut turns = 0;
    for (i, r) in recorded.iter().enumerate() {
        let (game, _) = plan.game_with(pack, i as u64, |seat, _| {
            Box::new(Replaying { picks: r.picks[seat].clone(), next: 0 }) as Box<dyn Agent>
        })?;
        let (_, o) = game.run();
        let p = &r.outcome;
        if (&o.status, o.turns, &o.winners, &o.scores) != (&p.status, p.turns, &p.winners, &p.scores) {
            let ended = |o: &Outcome| {
                format!("{:?}, {} turns, winners {:?}, scores {:?}", o.status, o.turns, o.winners, o.scores)
            };
            return Err(format!(
                "greedy game {i} replayed from its choices ended otherwise: {} (played: {})",
                ended(&o),
                ended(p)
            ));
        }
        turns += o.turns;
    }
    Ok(turns)
}

/// A seat's bot, the position of each option it picks kept.
struct Recording {
    inner: Box<dyn Agent>,
    picks: Arc<Mutex<Vec<usize>>>,
}

impl Agent for Recording {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let pick = self.inner.choose(req)?;
        self.picks.lock().map_err(|e| e.to_string())?.push(pick);
        Ok(pick)
    }
    fn kind(&self) -> String {
        self.inner.kind()
    }
    fn reads_labels(&self, step: u64) -> bool {
        self.inner.reads_labels(step)
    }
    fn reads_prompt(&self, pack: &Pack, step: u64) -> bool {
        self.inner.reads_prompt(pack, step)
    }
    fn reads_label_text(&self, pack: &Pack, step: u64) -> bool {
        self.inner.reads_label_text(pack, step)
    }
    fn wants_fork(&self) -> bool {
        self.inner.wants_fork()
    }
    fn wants_view(&self) -> bool {
        self.inner.wants_view()
    }
    fn show(&mut self, view: &str) {
        self.inner.show(view)
    }
    fn hears_only_choices(&self) -> bool {
        self.inner.hears_only_choices()
    }
    fn reads_notes(&self) -> bool {
        self.inner.reads_notes()
    }
    fn only_choice(&mut self, pack: &Arc<Pack>, player: usize, prompt: &str, label: &str) {
        self.inner.only_choice(pack, player, prompt, label)
    }
    fn rng_state(&self) -> Option<String> {
        self.inner.rng_state()
    }
    fn set_rng_state(&mut self, state: &str) -> Result<(), String> {
        self.inner.set_rng_state(state)
    }
}

/// A seat repeating recorded picks by position. Like a random bot, it reads no option, so
/// the engine makes no label for it: what is left is the rules' own work.
struct Replaying {
    picks: Vec<usize>,
    next: usize,
}

impl Agent for Replaying {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let pick = *self.picks.get(self.next).ok_or_else(|| {
            format!(
                "step {}: the replay has no more picks for {}, who is asked \"{}\"",
                req.step, req.player_name, req.prompt
            )
        })?;
        self.next += 1;
        if pick >= req.count {
            return Err(format!("step {}: the replay picks option {pick} of {}", req.step, req.count));
        }
        Ok(pick)
    }
    fn kind(&self) -> String {
        "replay".into()
    }
    fn reads_labels(&self, _step: u64) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crown_engine::load::{load_pack, LoadOptions, Project};

    fn shipped(id: &str) -> Arc<Pack> {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        Arc::new(load_pack(&project, id, LoadOptions::default()).pack.expect("the pack loads"))
    }

    fn greedy_plan(pack: &Arc<Pack>) -> Plan {
        let players = crate::seats::player_count(pack, None, None);
        let kinds = crate::seats::agent_kinds(pack, None, players, &["greedy".to_string()], "greedy").unwrap();
        Plan::new(pack, SEED, players, None, kinds, SeatOrder::Fixed, Characters::Game).unwrap()
    }

    /// A greedy game replayed from its picks, with no label made for the seats, is the same
    /// game: on a board (Crownfields) and with hidden hands and bids (Oh Hell).
    #[test]
    fn greedy_games_replayed_from_their_picks_end_as_played() {
        for id in ["crownfields", "oh-hell"] {
            let pack = shipped(id);
            let plan = greedy_plan(&pack);
            let recorded: Vec<Recorded> = (0..2).map(|i| record(&pack, &plan, i).unwrap()).collect();
            assert!(recorded.iter().all(|r| r.picks.iter().all(|p| !p.is_empty())), "{id}: every seat chose");
            let turns = replay_all(&pack, &plan, &recorded).unwrap();
            assert_eq!(turns, recorded.iter().map(|r| r.outcome.turns).sum::<u64>(), "{id}");
        }
    }

    /// Picks that are not the game's are found out: the first one out of range stops the
    /// replay, and a replay of other picks does not pass for the game recorded.
    #[test]
    fn a_replay_of_other_picks_is_an_error() {
        let pack = shipped("crownfields");
        let plan = greedy_plan(&pack);
        let mut r = record(&pack, &plan, 0).unwrap();
        r.picks[0][0] = 10_000;
        let e = replay_all(&pack, &plan, &[r]).unwrap_err();
        assert!(e.contains("picks option 10000 of"), "{e}");
        let mut r = record(&pack, &plan, 0).unwrap();
        r.picks[1].truncate(3);
        let e = replay_all(&pack, &plan, &[r]).unwrap_err();
        assert!(e.contains("no more picks"), "{e}");
    }

    /// A replay of other picks that the game accepts to the end is not taken for the game
    /// recorded: an Oh Hell bid changed moves the scores, not the options.
    #[test]
    fn a_replay_that_ends_otherwise_is_an_error() {
        let pack = shipped("oh-hell");
        let plan = greedy_plan(&pack);
        let mut r = record(&pack, &plan, 0).unwrap();
        r.picks[0][0] = 1 - r.picks[0][0];
        let e = replay_all(&pack, &plan, &[r]).unwrap_err();
        assert!(e.contains("greedy game 0 replayed from its choices ended otherwise"), "{e}");
    }

    #[test]
    fn the_figures_are_medians_of_the_rounds() {
        let run = |times: &[f64]| BotRun { games: 10, turns: 100, times: times.to_vec() };
        let b =
            BotSpeeds { random: run(&[1.0, 1.0, 2.0]), greedy: run(&[4.0, 3.0, 4.0]), replayed: run(&[2.0, 3.0, 1.0]) };
        assert_eq!(b.random.secs(), 1.0);
        assert_eq!(b.greedy.gps(), 2.5);
        // Round by round: greedy / random 1/4, 1/3, 1/2; deciding 1/2, 0, 3/4; free 1/2, 1/3, 2.
        assert_eq!(b.ratio(), 1.0 / 3.0);
        assert_eq!(b.deciding_share(), 0.5);
        assert_eq!(b.free_deciding_ratio(), 0.5);
        assert!((b.turn_ratio() - 1.0 / 3.0).abs() < 1e-12);
        let quick = BotSpeeds { random: run(&[1.0]), greedy: run(&[1.0]), replayed: run(&[1.2]) };
        assert_eq!(quick.deciding_share(), 0.0, "the clock's noise never makes deciding cost less than nothing");
        assert_eq!(median(&[3.0, 1.0, 4.0, 2.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }
}
