//! Auditing a bot for peeking (`crown sim --audit-peeking`): does its choice depend on what
//! its seat cannot see?
//!
//! The audited bot decides as usual on the real table. Then, for each of a few re-deals,
//! a copy of the game is played up to the same decision (from the start of the turn, with
//! the turn's earlier choices made again, as the `search` bot's rollouts do), what the
//! deciding seat cannot see is dealt again there ([`super::search::determinise`]: hidden
//! zones reshuffled, other seats' hidden hands pooled and re-dealt), and a fresh bot of the
//! same kind, in the same state (its random stream where it was), decides. A bot that reads
//! only what its seat may know decides the same way on every re-deal; a different choice
//! is reported with the decision that shows it. A menu whose options change with the
//! re-deal is reported too: then the rules themselves offer what the seat cannot know.

use std::sync::{Arc, Mutex};

use super::search::determinise;
use crate::game::agent::{Agent, ChoiceRequest};
use crate::game::rng::derive_seed;
use crate::game::Game;

/// How many re-deals each decision is tried against.
pub const REDEALS: u64 = 2;

/// What the audits of a run found, by bot kind.
#[derive(Debug, Default, Clone)]
pub struct AuditLog {
    /// By bot kind: decisions audited (more than one option), decisions whose choice
    /// changed with a re-deal, and the first such one, in words.
    pub kinds: std::collections::BTreeMap<String, (u64, u64, Option<String>)>,
    /// Decisions whose options themselves changed with a re-deal (the rules' menu reads
    /// hidden cards), and the first.
    pub menus: (u64, Option<String>),
}

/// A bot under audit: it plays as the bot it wraps.
pub struct PeekAudit {
    inner: Box<dyn Agent>,
    kind: String,
    game_seed: u64,
    seat: usize,
    log: Arc<Mutex<AuditLog>>,
}

impl PeekAudit {
    pub fn new(inner: Box<dyn Agent>, game_seed: u64, seat: usize, log: Arc<Mutex<AuditLog>>) -> Self {
        PeekAudit { kind: inner.kind(), inner, game_seed, seat, log }
    }

    fn note(&self, f: impl FnOnce(&mut AuditLog)) {
        f(&mut self.log.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

impl Agent for PeekAudit {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let state = self.inner.rng_state();
        let pick = self.inner.choose(req)?;
        let Some((fp, since)) = req.fork.filter(|_| req.count > 1) else { return Ok(pick) };
        let mut changed: Option<String> = None;
        let mut menu: Option<String> = None;
        for r in 0..REDEALS {
            let seed = derive_seed(self.game_seed ^ 0xA0D1_7000, req.step * REDEALS + r);
            let probe = Probe {
                snapshot: fp.game.fork(),
                before_setup: fp.before_setup,
                prefix: since.to_vec(),
                target: req.step,
                seat: self.seat,
                kind: self.kind.clone(),
                game_seed: self.game_seed,
                rng: state.clone(),
                seed,
            };
            // The copy runs on the fork thread: this thread's game slot holds the game
            // being decided.
            let seen = crate::script::api::on_fork_thread("the peeking audit", move || probe.run())??;
            let Some((labels, label)) = seen else { continue };
            let real = &req.labels[pick];
            if labels.as_slice() != req.labels {
                menu.get_or_insert_with(|| {
                    format!(
                        "{} (seat {}), decision {} of the game with seed {}: \"{}\" offers other options once hidden cards are dealt again",
                        req.player_name, req.player, req.step, self.game_seed, req.prompt
                    )
                });
            } else if label != *real {
                changed.get_or_insert_with(|| {
                    format!(
                        "{} (seat {}), decision {} of the game with seed {}: \"{}\": '{real}' on the real table, '{label}' once hidden cards are dealt again",
                        req.player_name, req.player, req.step, self.game_seed, req.prompt
                    )
                });
            }
        }
        let kind = self.kind.clone();
        self.note(|log| {
            let e = log.kinds.entry(kind).or_default();
            e.0 += 1;
            if let Some(c) = changed {
                e.1 += 1;
                e.2.get_or_insert(c);
            }
            if let Some(m) = menu {
                log.menus.0 += 1;
                log.menus.1.get_or_insert(m);
            }
        });
        Ok(pick)
    }
    fn kind(&self) -> String {
        self.kind.clone()
    }
    fn wants_fork(&self) -> bool {
        true
    }
    fn reads_labels(&self, _step: u64) -> bool {
        true
    }
    fn rng_state(&self) -> Option<String> {
        self.inner.rng_state()
    }
    fn set_rng_state(&mut self, state: &str) -> Result<(), String> {
        self.inner.set_rng_state(state)
    }
}

/// One re-dealt copy of a decision.
struct Probe {
    snapshot: Game,
    before_setup: bool,
    prefix: Vec<(u64, String)>,
    target: u64,
    seat: usize,
    kind: String,
    game_seed: u64,
    rng: Option<String>,
    seed: u64,
}

/// What the copy's seat was offered and chose, once it reached the decision.
type Seen = Arc<Mutex<Option<(Vec<String>, String)>>>;

impl Probe {
    fn run(self) -> Result<Option<(Vec<String>, String)>, String> {
        let mut g = self.snapshot;
        let seen: Seen = Arc::default();
        let fresh = super::bot(&self.kind, self.game_seed, self.seat)
            .ok_or_else(|| format!("the peeking audit cannot make a `{}` bot", self.kind))?;
        let mut fresh = Some(fresh);
        let prefix = Arc::new(self.prefix);
        for (q, slot) in g.agents.iter_mut().enumerate() {
            *slot = Some(Box::new(Replaying {
                prefix: prefix.clone(),
                target: self.target,
                decider: if q == self.seat { fresh.take() } else { None },
                rng: self.rng.clone(),
                seen: seen.clone(),
            }));
        }
        let (player, seed) = (self.seat, self.seed);
        g.fork_hook = Some((self.target, Box::new(move |g: &mut Game| determinise(g, player, seed))));
        let (_, status, ()) = crate::script::api::play_fork(g, self.before_setup, |_| ());
        let out = seen.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (out, status) {
            (Some(o), _) => Ok(Some(o)),
            (None, crate::game::Status::Failed(f)) => {
                Err(format!("peeking audit: the copy of the table failed before the decision: {f}"))
            }
            (None, _) => Err("peeking audit: the copy of the table ended before the decision".into()),
        }
    }
}

/// Stops a copy once the decision is made.
const STOP: &str = "peeking audit: the decision is made";

/// A seat of a copy: the turn's earlier choices again (by label), then at the decision the
/// audited bot's fresh twin, whose choice is noted before the copy stops. On the audited
/// seat the twin is asked at the earlier choices too (its answer set aside for the one
/// made), so that what a bot's script notes on the table as it decides (a plan kept in a
/// game variable) is noted in the copy as well; its random stream is then set to where
/// the bot's stood at the decision.
struct Replaying {
    prefix: Arc<Vec<(u64, String)>>,
    target: u64,
    decider: Option<Box<dyn Agent>>,
    rng: Option<String>,
    seen: Seen,
}

impl Agent for Replaying {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        if req.step == self.target {
            let d = self.decider.as_mut().ok_or("peeking audit: the decision came to another seat")?;
            if let Some(s) = &self.rng {
                d.set_rng_state(s)?;
            }
            let i = d.choose(req)?;
            *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = Some((req.labels.to_vec(), req.labels[i].clone()));
            return Err(STOP.into());
        }
        if let Some(d) = self.decider.as_mut() {
            d.choose(req)?;
        }
        super::search::replayed(&self.prefix, req)
            .ok_or_else(|| format!("peeking audit: the copy did not reach the decision (step {})", req.step))
    }
    fn kind(&self) -> String {
        self.decider.as_ref().map_or_else(|| "replay".into(), |d| d.kind())
    }
    fn reads_labels(&self, _step: u64) -> bool {
        true
    }
}
