//! The `search` bot: Monte Carlo search over determinised hidden information, for any
//! pack, through the same choice interface as every other agent.
//!
//! At each decision with more than one option the agent plays the game on from there
//! many times ("rollouts"), each time from a copy of the table:
//! 1. the copy is the table at the start of the current turn (the game keeps one while a
//!    searching agent sits at it, [`super::ForkPoint`]); the choices already made this
//!    turn are made again, so the copy reaches this very decision with the same state;
//! 2. there, what the deciding seat cannot know is dealt again at random
//!    ("determinised"): the order of every hidden zone, and the cards in other seats'
//!    hidden hands (pooled with the one deck they draw from when the pack has exactly
//!    one hidden zone of that kind of card), and the random stream is reseeded, so a
//!    rollout never uses the real deck order or the real future dice; from there on its
//!    shuffles draw common luck ([`crate::game::RolloutLuck`]: the same cards shuffled
//!    into a zone come out in the same order in every rollout of that deal);
//! 3. the option under test is taken, and every seat then plays by the rollout policy
//!    (at random, or as the `greedy` bot does) until the game ends, or for `depth` turns,
//!    after which the pack's `evaluate(p)` (or each seat's score) ranks the seats.
//!
//! Every option plays the first two deals in turn; when no option's two rollouts differ,
//! the rollouts show no luck and the search stops there (more would repeat them).
//! Otherwise options are picked for rollouts by UCB1 (the most promising more often); the
//! option with the best mean is played. When the pack has a `greedy_score`, only its
//! best-ranked options are searched (`[search] candidates`, or with a budget in rollouts
//! four rollouts each, at least two options), in its order, which also breaks ties. A
//! finished rollout is worth the seat's share of the win; one cut short by the depth is
//! judged by the seat's margin over the best other seat (its evaluation minus theirs),
//! scaled over the decision's rollouts into 0.2 to 0.8. Solo, the evaluation alone
//! decides (scaled over the decision's rollouts), finished or not. With a budget in
//! rollouts the agent is deterministic for a seed; a budget in milliseconds is not (it
//! depends on the machine), which its kind name says.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rhai::Dynamic;

use super::greedy::{greedy_scores, GreedyAgent};
use crate::content::model::SearchPolicy;
use crate::game::agent::{quote_list, Agent, ChoiceRequest, RandomAgent};
use crate::game::rng::{derive_seed, GameRng};
use crate::game::state::Visibility;
use crate::game::{Game, Status};

/// How much a search agent may spend on one decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// This many rollouts (deterministic).
    Rollouts(u32),
    /// As many rollouts as fit in this many milliseconds (at least one per option).
    Millis(u32),
}

/// How the seats play during a rollout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Uniformly at random (fast, blind).
    Random,
    /// The pack's `greedy_score` (slower, plays like the `greedy` bot).
    Greedy,
}

impl Policy {
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "random" => Some(Policy::Random),
            "greedy" => Some(Policy::Greedy),
            _ => None,
        }
    }
}

/// A search agent's settings, from its kind name: `search`, then optionally `:ROLLOUTS`
/// or `:MSms`, then in any order `:DEPTH` (turns per rollout) or `:end`, and `:random` or
/// `:greedy` (the rollout policy). What it leaves out comes from the pack's `[search]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchSpec {
    /// `None`: the pack's `[search] rollouts`, else [`DEFAULT_ROLLOUTS`].
    pub budget: Option<Budget>,
    /// Turns a rollout plays before the seats are ranked (`u64::MAX`: to the end);
    /// `None`: the pack's `[search] depth`, else to the end of the game.
    pub depth: Option<u64>,
    /// `None`: the pack's `[search] policy`, else random.
    pub policy: Option<Policy>,
}

/// Rollouts per decision when neither the kind name nor the pack gives a budget.
pub const DEFAULT_ROLLOUTS: u32 = 32;
/// With a budget in rollouts and a pack `greedy_score`, only the options it ranks best
/// are searched: as many as get this many rollouts each (at least two).
const ROLLOUTS_PER_OPTION: usize = 4;
const MAX_ROLLOUTS: u32 = 100_000;
const MAX_MILLIS: u32 = 600_000;
const MAX_DEPTH: u64 = 100_000;

impl SearchSpec {
    /// `None` when `kind` is not a search agent at all; `Some(Err)` when it is one with
    /// bad settings.
    pub fn parse(kind: &str) -> Option<Result<SearchSpec, String>> {
        let rest = match kind.strip_prefix("search") {
            Some("") => return Some(Ok(SearchSpec { budget: None, depth: None, policy: None })),
            Some(r) => r.strip_prefix(':')?,
            None => return None,
        };
        let bad = |why: String| {
            Err(format!(
                "`{kind}`: {why} (a search agent is `search`, then optionally `:ROLLOUTS` or `:MSms`, `:DEPTH` in turns or `:end`, `:random` or `:greedy`; e.g. `search:64:12:greedy`)"
            ))
        };
        let mut spec = SearchSpec { budget: None, depth: None, policy: None };
        for (i, part) in rest.split(':').enumerate() {
            if let Some(p) = Policy::parse(part) {
                if spec.policy.replace(p).is_some() {
                    return Some(bad("the rollout policy is given twice".into()));
                }
            } else if part == "end" {
                if spec.depth.replace(u64::MAX).is_some() {
                    return Some(bad("the depth is given twice".into()));
                }
            } else if let Some(ms) = part.strip_suffix("ms").filter(|_| i == 0) {
                match ms.parse::<u32>() {
                    Ok(v) if (1..=MAX_MILLIS).contains(&v) => spec.budget = Some(Budget::Millis(v)),
                    _ => return Some(bad(format!("the time budget must be 1 to {MAX_MILLIS} ms"))),
                }
            } else if i == 0 {
                match part.parse::<u32>() {
                    Ok(v) if (1..=MAX_ROLLOUTS).contains(&v) => spec.budget = Some(Budget::Rollouts(v)),
                    _ => {
                        return Some(bad(format!(
                            "`{part}` is not a budget (1 to {MAX_ROLLOUTS} rollouts, or a time like 100ms)"
                        )))
                    }
                }
            } else {
                match part.parse::<u64>() {
                    Ok(v) if (1..=MAX_DEPTH).contains(&v) && spec.depth.is_none() => spec.depth = Some(v),
                    Ok(_) if spec.depth.is_some() => return Some(bad("the depth is given twice".into())),
                    _ => {
                        return Some(bad(format!(
                            "`{part}` is not a depth (1 to {MAX_DEPTH} turns, or `end`) nor a policy"
                        )))
                    }
                }
            }
        }
        Some(Ok(spec))
    }
}

/// The settings of one decision: the kind name's, else the pack's, else the defaults.
#[derive(Debug, Clone, Copy)]
struct Resolved {
    budget: Budget,
    depth: Option<u64>,
    policy: Policy,
    /// The pack's `[search] margin`, as a fraction (0 to 1).
    margin: f64,
    /// The pack's `[search] candidates`: how many greedy-ranked options are searched.
    candidates: Option<usize>,
}

/// The search bot of one seat.
pub struct SearchAgent {
    kind: String,
    spec: SearchSpec,
    rng: GameRng,
}

impl SearchAgent {
    pub fn new(kind: &str, spec: SearchSpec, game_seed: u64, seat: usize) -> Self {
        SearchAgent {
            kind: kind.to_string(),
            spec,
            rng: GameRng::new(derive_seed(game_seed ^ 0x5EA2_C400, seat as u64 + 1)),
        }
    }
}

/// What one rollout came to, for the deciding seat.
#[derive(Debug, Clone, Copy)]
struct Rollout {
    option: usize,
    /// Games of two or more seats: the share of the win (1/k among k winners, 1/seats
    /// when a finished game has no winner, 0 when the rollout failed); `None` when the
    /// rollout stopped before the end (then `margin` decides).
    share: Option<f64>,
    /// The seat's evaluation minus the best other seat's.
    margin: f64,
    /// Solo games: the evaluation (score) to compare rollouts by.
    eval: f64,
}

impl Agent for SearchAgent {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let Some((fp, since)) = req.fork else {
            return Err(format!("the {} agent was given no copy of the table to search from", self.kind));
        };
        let n = req.count;
        let seats = fp.game.state.players.len();
        let pack_config = req.pack.manifest.search.unwrap_or_default();
        let spec = Resolved {
            budget: self.spec.budget.unwrap_or(Budget::Rollouts(pack_config.rollouts.unwrap_or(DEFAULT_ROLLOUTS))),
            depth: self.spec.depth.or(pack_config.depth.map(u64::from)),
            policy: self
                .spec
                .policy
                .or(pack_config.policy.map(|p| match p {
                    SearchPolicy::Random => Policy::Random,
                    SearchPolicy::Greedy => Policy::Greedy,
                }))
                .unwrap_or(Policy::Random),
            margin: f64::from(pack_config.margin.unwrap_or(0).min(100)) / 100.0,
            candidates: pack_config.candidates.map(|c| c as usize),
        };
        // The options to search: all of them, or when the budget is too small to try
        // each a few times, the ones the pack's greedy_score likes best (in its order,
        // which also breaks ties between equal means).
        let ranked = greedy_scores(req)?;
        let margin = if ranked.is_some() { spec.margin } else { 0.0 };
        let candidates: Vec<usize> = match ranked {
            Some(scores) => {
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
                match (spec.candidates, spec.budget) {
                    (Some(c), _) => order.truncate(c.max(2)),
                    (None, Budget::Rollouts(k)) => order.truncate((k as usize / ROLLOUTS_PER_OPTION).max(2)),
                    (None, Budget::Millis(_)) => {}
                }
                order
            }
            None => (0..n).collect(),
        };
        if candidates.len() == 1 {
            return Ok(candidates[0]);
        }
        let base = self.rng.below(u64::MAX);
        let decision = Decision {
            snapshot: fp.game.fork(),
            before_setup: fp.before_setup,
            prefix: Arc::new(since.to_vec()),
            target: req.step,
            player: req.player,
            labels: req.labels.to_vec(),
        };
        let tried = candidates.clone();
        // The rollouts run on the fork thread: the game being decided sits in this
        // thread's game slot, and each rollout installs its own copy there.
        let results = crate::script::api::on_fork_thread("the search agent", move || {
            search(&decision, &tried, spec, base, seats)
        })??;
        Ok(candidates[best_option(&results, candidates.len(), seats, margin)])
    }
    fn kind(&self) -> String {
        self.kind.clone()
    }
    fn wants_fork(&self) -> bool {
        true
    }
    fn rng_state(&self) -> Option<String> {
        Some(self.rng.state())
    }
    fn set_rng_state(&mut self, state: &str) -> Result<(), String> {
        self.rng = GameRng::from_state(state)?;
        Ok(())
    }
}

/// The decision a search is about: the copy of the table at the turn's fork point, the
/// turn's choices since, and which choice (step, seat, options) is to be made.
struct Decision {
    snapshot: Game,
    before_setup: bool,
    prefix: Arc<Vec<(u64, String)>>,
    target: u64,
    player: usize,
    labels: Vec<String>,
}

fn search(d: &Decision, candidates: &[usize], spec: Resolved, base: u64, seats: usize) -> Result<Vec<Rollout>, String> {
    let n = candidates.len();
    let started = Instant::now();
    let mut results: Vec<Rollout> = Vec::new();
    // Common random numbers: the k-th rollout of every option plays the k-th deal (the
    // same determinisation and random stream), so options are compared on the same
    // luck and their difference is not drowned by it.
    let mut dealt = vec![0u64; n];
    let mut r: u64 = 0;
    loop {
        let done = match spec.budget {
            Budget::Rollouts(k) => r >= u64::from(k),
            Budget::Millis(ms) => r >= n as u64 && started.elapsed() >= Duration::from_millis(u64::from(ms)),
        };
        if done {
            break;
        }
        // The first two deals are played by every option in turn. When no option's two
        // rollouts differ, the rollouts show no luck (the horizon holds no draw, die or
        // hidden card that matters): more would repeat them, so the search stops.
        if r == 2 * n as u64 && no_luck(&results, n) {
            break;
        }
        let option = if r < 2 * n as u64 { (r % n as u64) as usize } else { pick(&results, n, seats) };
        let seed = derive_seed(base, dealt[option]);
        dealt[option] += 1;
        let mut x = rollout(d, candidates[option], seed, spec)?;
        x.option = option;
        results.push(x);
        r += 1;
    }
    Ok(results)
}

/// Whether every option's rollouts came to exactly the same (outcome, margin and
/// evaluation) each time it was tried.
fn no_luck(results: &[Rollout], n: usize) -> bool {
    (0..n).all(|i| {
        let mut tried = results.iter().filter(|x| x.option == i);
        let first = tried.next();
        first.is_some_and(|a| {
            tried.all(|b| {
                a.share == b.share && a.margin.to_bits() == b.margin.to_bits() && a.eval.to_bits() == b.eval.to_bits()
            })
        })
    })
}

/// The value of a rollout to the deciding seat, in 0..=1. Solo: the evaluation scaled
/// between the lowest and highest seen in this decision's rollouts.
fn values(results: &[Rollout], seats: usize) -> Vec<f64> {
    if seats > 1 {
        // Rollouts cut short are judged by their margin, scaled between the lowest and
        // highest margins seen in this decision into 0.2..0.8: less sure than a game that
        // was won (1) or lost (0).
        let open = results.iter().filter(|x| x.share.is_none());
        let lo = open.clone().map(|x| x.margin).fold(f64::INFINITY, f64::min);
        let hi = open.map(|x| x.margin).fold(f64::NEG_INFINITY, f64::max);
        return results
            .iter()
            .map(|x| x.share.unwrap_or(0.2 + 0.6 * if hi > lo { (x.margin - lo) / (hi - lo) } else { 0.5 }))
            .collect();
    }
    // Solo, the evaluation alone judges a rollout, finished or not: many solo games
    // always end in a "win" (the realm is scored), and rushing to the end would look
    // best. A pack whose solo game can be lost says so in its evaluate(p).
    let lo = results.iter().map(|x| x.eval).fold(f64::INFINITY, f64::min);
    let hi = results.iter().map(|x| x.eval).fold(f64::NEG_INFINITY, f64::max);
    results.iter().map(|x| if hi > lo { (x.eval - lo) / (hi - lo) } else { 0.5 }).collect()
}

fn means(results: &[Rollout], n: usize, seats: usize) -> (Vec<u32>, Vec<f64>) {
    let mut visits = vec![0u32; n];
    let mut total = vec![0f64; n];
    for (x, v) in results.iter().zip(values(results, seats)) {
        visits[x.option] += 1;
        total[x.option] += v;
    }
    let mean = total.iter().zip(&visits).map(|(t, &v)| if v == 0 { 0.0 } else { t / f64::from(v) }).collect();
    (visits, mean)
}

/// The next option to try by UCB1 (each once first).
fn pick(results: &[Rollout], n: usize, seats: usize) -> usize {
    let (visits, mean) = means(results, n, seats);
    if let Some(i) = visits.iter().position(|&v| v == 0) {
        return i;
    }
    let ln = (results.len() as f64).ln();
    let mut best = (0, f64::NEG_INFINITY);
    for i in 0..n {
        let u = mean[i] + (2.0 * ln / f64::from(visits[i])).sqrt();
        if u > best.1 {
            best = (i, u);
        }
    }
    best.0
}

/// The option with the best mean; ties go to the more visited, then the earlier (the
/// candidates come in the greedy order when the pack has one). With a `margin` (the
/// pack's `[search] margin`, given only when the candidates come in the greedy order),
/// the first candidate is played unless the best mean beats its mean by more than that.
fn best_option(results: &[Rollout], n: usize, seats: usize, margin: f64) -> usize {
    let (visits, mean) = means(results, n, seats);
    let mut best = 0;
    for i in 1..n {
        if (mean[i], visits[i]) > (mean[best], visits[best]) {
            best = i;
        }
    }
    if best != 0 && visits[0] > 0 && mean[best] - mean[0] <= margin {
        return 0;
    }
    best
}

fn rollout(d: &Decision, option: usize, seed: u64, spec: Resolved) -> Result<Rollout, String> {
    let (target, player) = (d.target, d.player);
    let mut g = d.snapshot.fork();
    if let Some(d) = spec.depth {
        g.max_turns = g.max_turns.min(g.state.turn.saturating_add(d));
    }
    let seats = g.state.players.len();
    for (q, slot) in g.agents.iter_mut().enumerate() {
        *slot = Some(Box::new(ForkAgent {
            prefix: d.prefix.clone(),
            target,
            forced: option,
            labels: d.labels.clone(),
            policy: match spec.policy {
                Policy::Random => Box::new(RandomAgent::new(seed, q)),
                Policy::Greedy => Box::new(GreedyAgent::new(seed, q)),
            },
        }));
    }
    g.fork_hook = Some((target, Box::new(move |g: &mut Game| determinise(g, player, seed))));
    let (g, status, evals) = crate::script::api::play_fork(g, d.before_setup, |_| {
        (0..seats)
            .map(|q| crate::script::api::call_bot_fn("evaluate", vec![Dynamic::from(q as i64)]))
            .collect::<Vec<_>>()
    });
    if let Status::Failed(f) = &status {
        // A copy that did not reach the decision is a fault of the search, not of the
        // pack: say so rather than play on blind.
        if f.message.starts_with(DIVERGED) {
            return Err(f.message.clone());
        }
    }
    let mut eval = Vec::with_capacity(seats);
    for (q, e) in evals.into_iter().enumerate() {
        eval.push(match e {
            None => g.state.players[q].score as f64,
            Some(Ok(v)) => v.as_int().map(|i| i as f64).map_err(|_| {
                format!("the rules' evaluate({q}) returned {} where an integer was expected", v.type_name())
            })?,
            Some(Err(f)) if matches!(status, Status::Failed(_)) => {
                let _ = f;
                0.0
            }
            Some(Err(f)) => return Err(format!("the rules' evaluate({q}) failed: {f}")),
        });
    }
    let failed = matches!(status, Status::Failed(_));
    let finished = matches!(status, Status::Finished);
    let winners = g.over.as_ref().map(|(w, _)| w.clone()).unwrap_or_default();
    let won = finished && winners.contains(&player);
    let share = if failed {
        Some(0.0)
    } else if finished && winners.is_empty() {
        Some(1.0 / seats as f64)
    } else if finished {
        Some(if won { 1.0 / winners.len() as f64 } else { 0.0 })
    } else {
        None
    };
    let best_other =
        eval.iter().enumerate().filter(|&(q, _)| q != player).map(|(_, &e)| e).fold(f64::NEG_INFINITY, f64::max);
    let margin = if best_other.is_finite() { eval[player] - best_other } else { 0.0 };
    Ok(Rollout { option, share, margin, eval: if failed { f64::MIN } else { eval[player] } })
}

const DIVERGED: &str = "search: the copy of the table did not reach the decision";

/// The option a copy of the table takes again at `req`: the one the turn's earlier choice
/// at that step (`prefix`, `(step, label)` sorted by step) named, if it is offered.
pub(crate) fn replayed(prefix: &[(u64, String)], req: &ChoiceRequest<'_>) -> Option<usize> {
    let i = prefix.binary_search_by_key(&req.step, |(s, _)| *s).ok()?;
    req.labels.iter().position(|l| *l == prefix[i].1)
}

/// Plays one seat of a rollout: the turn's earlier choices again, then the option under
/// test, then its policy.
struct ForkAgent {
    prefix: Arc<Vec<(u64, String)>>,
    target: u64,
    forced: usize,
    labels: Vec<String>,
    policy: Box<dyn Agent>,
}

impl Agent for ForkAgent {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        if req.step > self.target {
            return self.policy.choose(req);
        }
        let wanted = if req.step == self.target {
            (req.labels == self.labels.as_slice()).then_some(self.forced)
        } else {
            replayed(&self.prefix, req)
        };
        wanted.ok_or_else(|| {
            format!(
                "{DIVERGED} (step {}: {} asked \"{}\" with options [{}]); please report this",
                req.step,
                req.player_name,
                req.prompt,
                quote_list(req.labels)
            )
        })
    }
    /// A rollout seat is its policy (`greedy` or `random`), so rules that prepare hints
    /// only for the greedy bot prepare them here too.
    fn kind(&self) -> String {
        self.policy.kind()
    }
    /// Labels up to the decision (choices are matched by label), then as its policy.
    fn reads_labels(&self, step: u64) -> bool {
        step <= self.target || self.policy.reads_labels(step)
    }
    fn reads_prompt(&self, pack: &crate::content::Pack, step: u64) -> bool {
        step <= self.target || self.policy.reads_prompt(pack, step)
    }
    fn reads_label_text(&self, pack: &crate::content::Pack, step: u64) -> bool {
        step <= self.target || self.policy.reads_label_text(pack, step)
    }
}

/// Deal again what seat `p` cannot see, and reseed the random stream.
///
/// Hidden zones (decks) are shuffled in place. Cards in another seat's own-eyes-only
/// zones (hands) are pooled, by kind of definition, with the hidden zone they draw from
/// ([`draw_pile`]: the one hidden zone holding that kind, or the one named as a draw pile
/// when a box of cards out of the game holds it too), else with the same-named zones of
/// the other seats; each pool is dealt back into the same places, so every zone keeps its
/// size and its mix of kinds.
pub fn determinise(g: &mut Game, p: usize, seed: u64) {
    let mut rng = GameRng::new(derive_seed(seed, 0xD371));
    let s = &mut g.state;
    let kind_of = |c: u32| g.pack.defs[s.cards[c as usize].def as usize].kind as u8;
    // Hidden zones holding each kind, by owner (None: shared).
    let mut hidden_with: std::collections::BTreeMap<(u8, Option<u8>), Vec<u32>> = Default::default();
    for (z, zone) in s.zones.iter().enumerate() {
        if zone.visibility == Visibility::Hidden {
            let mut kinds: Vec<u8> = zone.cards.iter().map(|&c| kind_of(c)).collect();
            kinds.sort_unstable();
            kinds.dedup();
            for k in kinds {
                hidden_with.entry((k, zone.owner)).or_default().push(z as u32);
            }
        }
    }
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Pool {
        Zone(u32),
        Name(String),
    }
    let mut pools: std::collections::BTreeMap<(u8, Pool), Vec<(u32, usize)>> = Default::default();
    for (z, zone) in s.zones.iter().enumerate() {
        let unseen = match zone.visibility {
            Visibility::Hidden => true,
            Visibility::Owner => zone.owner != Some(p as u8),
            Visibility::Public => false,
        };
        if !unseen {
            continue;
        }
        for (i, &c) in zone.cards.iter().enumerate() {
            let k = kind_of(c);
            let pool = if zone.visibility == Visibility::Hidden {
                Pool::Zone(z as u32)
            } else {
                let own = hidden_with.get(&(k, zone.owner)).and_then(|v| draw_pile(v, &s.zones));
                let shared = hidden_with.get(&(k, None)).and_then(|v| draw_pile(v, &s.zones));
                match own.or(shared) {
                    Some(z) => Pool::Zone(z),
                    None => Pool::Name(zone.name.clone()),
                }
            };
            pools.entry((k, pool)).or_default().push((z as u32, i));
        }
    }
    for slots in pools.values() {
        let mut cards: Vec<u32> = slots.iter().map(|&(z, i)| s.zones[z as usize].cards[i]).collect();
        let faces: Vec<bool> = cards.iter().map(|&c| s.cards[c as usize].face_up).collect();
        rng.shuffle(&mut cards);
        for ((&(z, i), &c), &up) in slots.iter().zip(&cards).zip(&faces) {
            s.zones[z as usize].cards[i] = c;
            let owner = s.zones[z as usize].owner;
            let card = &mut s.cards[c as usize];
            card.zone = z;
            card.face_up = up;
            if owner.is_some() {
                card.owner = owner;
            }
        }
    }
    s.rng = GameRng::new(derive_seed(seed, 0x5EED));
    g.rollout_luck = Some(crate::game::RolloutLuck { seed: derive_seed(seed, 0x5A0F), shuffles: Default::default() });
}

/// The hidden zone a hand draws from, among the hidden zones `zones` holding its kind of
/// card: the only one, else the only one named as a draw pile (`deck`, `...deck`, `bag`)
/// when others (a box of cards out of the game) hold that kind too.
fn draw_pile(zones: &[u32], all: &[crate::game::state::Zone]) -> Option<u32> {
    if let [z] = zones {
        return Some(*z);
    }
    let piles: Vec<u32> = zones
        .iter()
        .copied()
        .filter(|&z| {
            let n = all[z as usize].name.as_str();
            n.ends_with("deck") || n == "bag"
        })
        .collect();
    match piles[..] {
        [z] => Some(z),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_parse_with_budgets_depths_and_policies() {
        let p = |k: &str| SearchSpec::parse(k);
        let spec = |budget, depth, policy| Some(Ok(SearchSpec { budget, depth, policy }));
        assert_eq!(p("random"), None);
        assert_eq!(p("searching"), None);
        assert_eq!(p("search"), spec(None, None, None));
        assert_eq!(p("search:64"), spec(Some(Budget::Rollouts(64)), None, None));
        assert_eq!(p("search:8:end"), spec(Some(Budget::Rollouts(8)), Some(u64::MAX), None));
        assert_eq!(p("search:100ms:8"), spec(Some(Budget::Millis(100)), Some(8), None));
        assert_eq!(p("search:greedy"), spec(None, None, Some(Policy::Greedy)));
        assert_eq!(p("search:16:greedy:6"), spec(Some(Budget::Rollouts(16)), Some(6), Some(Policy::Greedy)));
        for bad in [
            "search:0",
            "search:x",
            "search:64:0",
            "search:64:8:1",
            "search:",
            "search:0ms",
            "search:8:8ms",
            "search:greedy:random",
        ] {
            assert!(matches!(p(bad), Some(Err(_))), "{bad}");
        }
    }

    #[test]
    fn options_are_each_tried_once_then_the_best_is_played() {
        let r = |option, share| Rollout { option, share: Some(share), margin: 0.0, eval: 0.0 };
        assert_eq!(pick(&[], 3, 2), 0);
        assert_eq!(pick(&[r(0, 0.0)], 3, 2), 1);
        let results = [r(0, 0.0), r(1, 1.0), r(2, 0.5), r(1, 1.0)];
        assert_eq!(best_option(&results, 3, 2, 0.0), 1);
        // Rollouts cut short: the larger margin is the better, a finished win better still.
        let cut = |option, margin| Rollout { option, share: None, margin, eval: 0.0 };
        assert_eq!(best_option(&[cut(0, -3.0), cut(1, 4.0)], 2, 2, 0.0), 1);
        assert_eq!(best_option(&[cut(0, 9.0), cut(1, 4.0), r(2, 1.0)], 3, 2, 0.0), 2);
        // Solo: the evaluation decides, whether the rollout reached the end or not.
        let solo = |option, eval| Rollout { option, share: None, margin: 0.0, eval };
        assert_eq!(best_option(&[solo(0, 90.0), solo(1, 10.0)], 2, 1, 0.0), 0);
        assert_eq!(best_option(&[solo(0, 10.0), solo(1, 90.0), solo(0, 20.0)], 2, 1, 0.0), 1);
        // A margin keeps the first (greedy-ranked) candidate unless another is better by more.
        let close = [solo(0, 50.0), solo(1, 55.0), solo(2, 100.0), solo(2, 0.0)];
        assert_eq!(best_option(&close, 3, 1, 0.0), 1);
        assert_eq!(best_option(&close, 3, 1, 0.1), 0);
        assert_eq!(best_option(&[solo(0, 0.0), solo(1, 100.0)], 2, 1, 0.1), 1);
    }

    #[test]
    fn common_luck_shuffles_the_same_cards_the_same_way() {
        use crate::game::RolloutLuck;
        let luck = || RolloutLuck { seed: 9, shuffles: Default::default() };
        let (mut a, mut b) = (luck(), luck());
        // The same cards, held in a different order: the same deck after the shuffle.
        let mut x: Vec<u32> = (0..20).collect();
        let mut y: Vec<u32> = (0..20).rev().collect();
        a.shuffle(2, &mut x);
        b.shuffle(2, &mut y);
        assert_eq!(x, y);
        assert_ne!(x, (0..20).collect::<Vec<u32>>(), "shuffled");
        // The zone's next shuffle, and another zone's first, draw other luck.
        let mut again: Vec<u32> = (0..20).collect();
        a.shuffle(2, &mut again);
        let mut other: Vec<u32> = (0..20).collect();
        b.shuffle(3, &mut other);
        assert_ne!(again, x);
        assert_ne!(other, x);
    }

    #[test]
    fn rollouts_that_repeat_themselves_show_no_luck() {
        let solo = |option, eval| Rollout { option, share: None, margin: 0.0, eval };
        assert!(no_luck(&[solo(0, 5.0), solo(1, 7.0), solo(0, 5.0), solo(1, 7.0)], 2));
        assert!(!no_luck(&[solo(0, 5.0), solo(1, 7.0), solo(0, 5.0), solo(1, 8.0)], 2));
        // An option never tried shows nothing yet.
        assert!(!no_luck(&[solo(0, 5.0), solo(0, 5.0)], 2));
        // Games of several seats: a win and a cut-short rollout differ.
        let won = Rollout { option: 0, share: Some(1.0), margin: 0.0, eval: 0.0 };
        let cut = Rollout { option: 0, share: None, margin: 0.0, eval: 0.0 };
        assert!(!no_luck(&[won, cut], 1));
        assert!(no_luck(&[won, won], 1));
    }
}
