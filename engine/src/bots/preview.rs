//! Previews: what an option would do, worked out by playing it on a copy of the table
//! (the fork a search uses), with everything the deciding seat cannot see dealt again
//! first, so a preview never shows a hidden card as it really lies. The copy plays the
//! option, lets the other seats answer as the pack's own bots would (`[sim] agents`; a
//! searching bot answers as the greedy one, to keep a preview quick), and stops at the
//! seat's own next decision. The seat is shown what it would be told, and what changed on
//! the table as it sees it ([`crate::game::seen`]).

use std::sync::{Arc, Mutex};

use super::search::determinise;
use crate::game::agent::{quote_list, Agent, ChoiceRequest};
use crate::game::narrate::Heard;
use crate::game::seen::Facts;
use crate::game::{Game, Status};

/// What taking an option would lead to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// What the seat would be told, in order.
    pub lines: Vec<String>,
    /// What changed on the table as the seat sees it, one line each ("your wood 3 → 1").
    pub changes: Vec<String>,
    /// Where the copy stopped: the seat's next decision ("then you are asked: Place the
    /// pawn"), or how the game ended.
    pub then: String,
    /// The bot that answered decisions on the copy (the other seats', and the seat's own
    /// where nothing it can see had changed yet), when any did.
    pub others: Option<String>,
    /// The seat's own decisions that bot answered, "prompt: option", in order.
    pub assumed: Vec<String>,
    /// Whether anything the seat cannot see was dealt again on the copy.
    pub redealt: bool,
}

const STOP: &str = "preview: the next decision is reached";

/// Play option `option` of the decision `req` asks, on a copy of the table. `seed` deals
/// what the seat cannot see. An error when no copy of the table is kept for the decision
/// (the seat's agent does not ask for one) or the copy does not reach it.
pub fn preview(req: &ChoiceRequest<'_>, option: usize, seed: u64) -> Result<Preview, String> {
    let (fp, since) = req.fork.ok_or("no copy of the table is kept for this decision")?;
    if option >= req.labels.len() {
        return Err(format!("there is no option {} (1 to {})", option + 1, req.labels.len()));
    }
    let mut g = fp.game.fork();
    let (target, viewer) = (req.step, req.player);
    let next: Arc<Mutex<Option<String>>> = Arc::default();
    let others: Arc<Mutex<Option<String>>> = Arc::default();
    let before: Arc<Mutex<Option<(Facts, bool)>>> = Arc::default();
    let assumed: Arc<Mutex<Vec<String>>> = Arc::default();
    let prefix: Arc<Vec<(u64, String)>> = Arc::new(since.to_vec());
    let kind = match g.pack.manifest.sim.as_ref().and_then(|s| s.agents.as_deref()) {
        Some(k) if k.starts_with("search") => "greedy",
        Some(k) => k,
        None => "random",
    }
    .to_string();
    for (seat, slot) in g.agents.iter_mut().enumerate() {
        *slot = Some(Box::new(CopySeat {
            prefix: prefix.clone(),
            target,
            viewer,
            forced: option,
            labels: req.labels.to_vec(),
            next: next.clone(),
            bot: super::bot(&kind, seed, seat),
            kind: kind.clone(),
            others: others.clone(),
            before: before.clone(),
            assumed: assumed.clone(),
        }));
    }
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let heard = lines.clone();
    let seen = before.clone();
    // At the decision: deal again what the seat cannot see, note what the seat sees, then
    // listen as the seat.
    g.fork_hook = Some((
        target,
        Box::new(move |g: &mut Game| {
            determinise(g, viewer, seed);
            let facts = g.table().facts(viewer);
            if let Ok(mut b) = seen.lock() {
                *b = Some((facts.clone(), facts.hides_cards()));
            }
            g.listener = Some(Box::new(move |h: Heard<'_>, _| {
                if let Heard::Said(s) = h {
                    if let Some(t) = s.for_seat(viewer) {
                        if let Ok(mut l) = heard.lock() {
                            l.push(t.to_string());
                        }
                    }
                }
            }));
        }),
    ));
    // The copy plays on the fork thread: the game deciding here stays installed on this
    // one (a script's game is per thread).
    let before_setup = fp.before_setup;
    let (g, status) = crate::script::api::on_fork_thread("the preview", move || {
        let (g, status, ()) = crate::script::api::play_fork(g, before_setup, |_| ());
        (g, status)
    })?;
    let lines = lines.lock().map(|l| l.clone()).unwrap_or_default();
    let (changes, redealt) = match before.lock().ok().and_then(|b| b.clone()) {
        Some((facts, hidden)) => (facts.changes(&g.table().facts(viewer)), hidden),
        None => (Vec::new(), false),
    };
    let others = others.lock().ok().and_then(|o| o.clone());
    let assumed = assumed.lock().map(|a| a.clone()).unwrap_or_default();
    let then = match &status {
        Status::Failed(f) if f.message == STOP => {
            next.lock().ok().and_then(|n| n.clone()).unwrap_or_else(|| "the next decision".into())
        }
        Status::Failed(f) if f.message.starts_with(DIVERGED) => return Err(f.message.clone()),
        Status::Failed(f) => format!("the game would fail: {f}"),
        Status::Finished => match &g.over {
            Some((_, reason)) => format!("the game would end: {reason}"),
            None => "the game would end".into(),
        },
        Status::TurnLimit => "the game would reach its turn limit".into(),
        Status::Paused => "the game would pause at a checkpoint".into(),
    };
    Ok(Preview { lines, changes, then, others, assumed, redealt })
}

const DIVERGED: &str = "preview: the copy of the table did not reach the decision";

/// A seat of the copy: the turn's earlier choices again, then the option to preview at
/// the decision; after it, the other seats answer as the pack's bot `kind` would, and the
/// previewing seat's next decision stops the copy once something it can see has changed
/// (until then the bot answers for it too, a few decisions at most: choosing a side shows
/// its consequence only once a wall stands on it).
struct CopySeat {
    prefix: Arc<Vec<(u64, String)>>,
    target: u64,
    viewer: usize,
    forced: usize,
    labels: Vec<String>,
    next: Arc<Mutex<Option<String>>>,
    bot: Option<Box<dyn Agent>>,
    kind: String,
    others: Arc<Mutex<Option<String>>>,
    before: Arc<Mutex<Option<(Facts, bool)>>>,
    assumed: Arc<Mutex<Vec<String>>>,
}

/// How many of its own decisions a preview answers for the seat while nothing it can see
/// has changed.
const OWN_ANSWERS: usize = 8;

impl CopySeat {
    /// Whether the bot should answer the seat's own decision `req`: nothing the seat can
    /// see has changed since the previewed option, and few have been answered so far.
    fn answers_own(&self, req: &ChoiceRequest<'_>) -> bool {
        let answered = self.assumed.lock().map_or(OWN_ANSWERS, |a| a.len());
        let Some((before, _)) = self.before.lock().ok().and_then(|b| b.clone()) else { return false };
        answered < OWN_ANSWERS
            && crate::script::api::with_game(|g| before.changes(&g.table().facts(req.player)).is_empty())
                .unwrap_or(false)
    }
}

impl Agent for CopySeat {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        if req.step > self.target {
            let own = req.player == self.viewer;
            if !own || self.answers_own(req) {
                if let Some(bot) = self.bot.as_mut() {
                    if let Ok(mut o) = self.others.lock() {
                        *o = Some(self.kind.clone());
                    }
                    let i = bot.choose(req)?;
                    if own {
                        if let Ok(mut a) = self.assumed.lock() {
                            a.push(format!("{}: {}", req.prompt, req.labels.get(i).map_or("?", String::as_str)));
                        }
                    }
                    return Ok(i);
                }
            }
            if let Ok(mut n) = self.next.lock() {
                *n = Some(if req.player == self.viewer {
                    format!("then you are asked: {}", req.prompt)
                } else {
                    format!("then {} is asked: {}", req.player_name, req.prompt)
                });
            }
            return Err(STOP.into());
        }
        let wanted = if req.step == self.target {
            (req.labels == self.labels.as_slice()).then_some(self.forced)
        } else {
            super::search::replayed(&self.prefix, req)
        };
        wanted.ok_or_else(|| {
            format!(
                "{DIVERGED} (step {}: {} asked \"{}\" with options [{}])",
                req.step,
                req.player_name,
                req.prompt,
                quote_list(req.labels)
            )
        })
    }
    fn kind(&self) -> String {
        "preview".into()
    }
}
