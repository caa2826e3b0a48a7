//! Previews: what an option would do, worked out by playing it on a copy of the table
//! (the fork a search uses), with everything the deciding seat cannot see dealt again
//! first, so a preview never shows a hidden card as it really lies. The copy plays the
//! option and stops at the next decision; the seat is shown what it would be told.

use std::sync::{Arc, Mutex};

use super::search::determinise;
use crate::game::agent::{quote_list, Agent, ChoiceRequest};
use crate::game::narrate::Heard;
use crate::game::{Game, Status};

/// What taking an option would lead to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// What the seat would be told, in order.
    pub lines: Vec<String>,
    /// Where the copy stopped: the next decision ("Bea is asked: Block with which card?"),
    /// or how the game ended.
    pub then: String,
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
    let prefix: Arc<Vec<(u64, String)>> = Arc::new(since.to_vec());
    for slot in g.agents.iter_mut() {
        *slot = Some(Box::new(CopySeat {
            prefix: prefix.clone(),
            target,
            forced: option,
            labels: req.labels.to_vec(),
            next: next.clone(),
        }));
    }
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let heard = lines.clone();
    // At the decision: deal again what the seat cannot see, then listen as the seat.
    g.fork_hook = Some((
        target,
        Box::new(move |g: &mut Game| {
            determinise(g, viewer, seed);
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
    Ok(Preview { lines, then })
}

const DIVERGED: &str = "preview: the copy of the table did not reach the decision";

/// A seat of the copy: the turn's earlier choices again, then the option to preview at
/// the decision; the next decision of any seat stops the copy.
struct CopySeat {
    prefix: Arc<Vec<(u64, String)>>,
    target: u64,
    forced: usize,
    labels: Vec<String>,
    next: Arc<Mutex<Option<String>>>,
}

impl Agent for CopySeat {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        if req.step > self.target {
            if let Ok(mut n) = self.next.lock() {
                *n = Some(format!("then {} is asked: {}", req.player_name, req.prompt));
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
