//! Agents answer choices. This module holds the trait and the agents that need nothing but
//! the choice: `random` (seeded) and `first` (a recording replays through
//! [`super::record::ScriptedAgent`]). The bots
//! that run the rules' scripts to decide (`greedy`, `search`) are in [`crate::bots`]. A
//! person at a terminal is an agent too, provided by the `crown` binary.

use std::sync::Arc;

use rhai::Dynamic;

use super::rng::{derive_seed, GameRng};
use super::ForkPoint;
use crate::content::Pack;

/// What an agent is asked.
pub struct ChoiceRequest<'a> {
    /// 0-based number of this choice in the game (the "step" of a recording).
    pub step: u64,
    pub player: usize,
    pub player_name: &'a str,
    pub prompt: &'a str,
    /// How many options there are (always; `labels` and `options` may be left empty for an
    /// agent that does not [`Agent::reads_labels`]).
    pub count: usize,
    pub labels: &'a [String],
    pub options: &'a [Dynamic],
    /// Options the rules show but do not offer (an `unavailable` text on the option): each
    /// its label and the reason, for a table to show greyed out. Empty where the agent does
    /// not read labels.
    pub unavailable: &'a [(String, String)],
    pub pack: &'a Arc<Pack>,
    /// For agents that [`Agent::wants_fork`]: the table at the start of this turn and the
    /// choices made since (step and label), from which the game can be played again up to
    /// this choice.
    pub fork: Option<(&'a ForkPoint, &'a [(u64, String)])>,
    /// When this choice is one pick of several (`choose_some`): what was picked before it
    /// and the limits, for a table to ask for all the picks at once.
    pub several: Option<&'a Several>,
}

/// One pick of a "pick several" choice (`choose_some`). The rules' question is asked one
/// pick at a time, each pick a choice of its own (recorded, replayed and weighed by bots
/// like any other): the options not yet picked, and a `done` option once `least` are
/// picked. A table reads this to ask for the whole set at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Several {
    /// The labels picked so far, in order.
    pub picked: Vec<String>,
    /// How many must be picked, and how many may (never more than there are options).
    pub least: usize,
    pub most: usize,
    /// The index of the option that ends the picking ([`Several::DONE`]), once `least` are
    /// picked.
    pub done: Option<usize>,
}

impl Several {
    /// The label of the option that ends the picking.
    pub const DONE: &'static str = "Done";

    /// What is wrong with `picks` (options from 0, in the order picked) as a set picked
    /// at once from `offered` options, `least` to `most` of them: the first problem found.
    pub fn set_problem(picks: &[usize], offered: usize, least: usize, most: usize) -> Option<SetProblem> {
        if let Some(&k) = picks.iter().find(|&&k| k >= offered) {
            return Some(SetProblem::NoSuchOption(k));
        }
        if let Some((_, &k)) = picks.iter().enumerate().find(|(i, k)| picks[..*i].contains(k)) {
            return Some(SetProblem::Twice(k));
        }
        (!(least..=most).contains(&picks.len())).then_some(SetProblem::Count(picks.len()))
    }
}

/// Why a set of options picked at once cannot be taken ([`Several::set_problem`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetProblem {
    /// Option `k` (from 0) is not offered.
    NoSuchOption(usize),
    /// Option `k` (from 0) is picked more than once.
    Twice(usize),
    /// This many are picked, outside the limits.
    Count(usize),
}

impl ChoiceRequest<'_> {
    /// How many of the options are the rules' own: all but the end of a picking
    /// ([`Several::done`], always the last), what a table shows and a bot weighs.
    pub fn offered(&self) -> usize {
        self.several.and_then(|s| s.done).unwrap_or(self.count)
    }

    /// The question to ask again before option `i` is taken, when the rules give the
    /// option a `confirm` text (resigning, a choice that ends the game). Bots ignore it.
    pub fn confirm(&self, i: usize) -> Option<String> {
        let m = self.options.get(i)?.read_lock::<rhai::Map>()?;
        m.get("confirm").map(|c| c.to_string())
    }

    /// What option `i` costs or risks, when the rules say (a `note` text in its map, or an
    /// action menu's `m.note(kind, f)`): made for a person, shown beside the option.
    pub fn note(&self, i: usize) -> Option<String> {
        let m = self.options.get(i)?.read_lock::<rhai::Map>()?;
        m.get("note").filter(|n| !n.is_unit()).map(|n| n.to_string()).filter(|n| !n.is_empty())
    }

    /// Whether the rules mark option `i` as ending the seat's turn (`ends_turn: true` in
    /// its map, or `ends_turn(menu)`), for the menu to say so.
    pub fn ends_turn(&self, i: usize) -> bool {
        let Some(m) = self.options.get(i).and_then(|o| o.read_lock::<rhai::Map>()) else { return false };
        m.get("ends_turn").and_then(|v| v.as_bool().ok()).unwrap_or(false)
    }

    /// Option `i` as a tile's placement (a map from `placements(b, c)`, or one the rules
    /// made alike: `at`, `facing` and `squares`), for a table to draw it on the board.
    pub fn placement(&self, i: usize) -> Option<PlacementOption> {
        let m = self.options.get(i)?.read_lock::<rhai::Map>()?;
        let ints = |k: &str| -> Option<Vec<i64>> {
            m.get(k)?.read_lock::<rhai::Array>()?.iter().map(|v| v.as_int().ok()).collect()
        };
        let texts = |k: &str| -> Vec<String> {
            m.get(k)
                .and_then(|v| v.read_lock::<rhai::Array>().map(|a| a.iter().map(|t| t.to_string()).collect()))
                .unwrap_or_default()
        };
        Some(PlacementOption {
            at: m.get("at")?.as_int().ok()?,
            facing: m.get("facing")?.clone().into_string().ok()?,
            squares: ints("squares")?,
            terrains: texts("terrains"),
        })
    }

    /// Option `i`'s label without its facing, when it lays a tile and its label ends with
    /// it ("d13 at c4" of "d13 at c4, facing north"), and the facing: what a table groups
    /// the ways to lay a tile by.
    pub fn placement_head(&self, i: usize) -> Option<(&str, String)> {
        let p = self.placement(i)?;
        let head = self.labels.get(i)?.strip_suffix(&format!(", facing {}", p.facing))?;
        Some((head, p.facing))
    }

    /// The range `lo..=hi` when the options are the whole numbers from `lo` to `hi` in
    /// order (`choose_number`, or a list of them): a table asks for one number instead of
    /// listing them. Option `i` is then the number `lo + i`.
    pub fn number_range(&self) -> Option<(i64, i64)> {
        if self.count < 2 || self.options.len() != self.count {
            return None;
        }
        let lo = self.options[0].as_int().ok()?;
        let whole = self.options.iter().enumerate().all(|(i, o)| o.as_int().ok() == Some(lo + i as i64));
        whole.then_some((lo, lo + self.count as i64 - 1))
    }

    /// Option `i`'s stable key (its `key` field), when the rules gave it one.
    pub fn key(&self, i: usize) -> Option<String> {
        option_key(self.options.get(i)?).ok().flatten()
    }

    /// The option a recorded choice names: by its key when the recording has one and this
    /// choice's options carry keys (so a label that shows a value may change), else by
    /// label.
    pub fn find(&self, key: Option<&str>, label: &str) -> Option<usize> {
        if let Some(k) = key {
            let keys: Vec<Option<String>> = (0..self.options.len()).map(|i| self.key(i)).collect();
            if keys.iter().any(Option::is_some) {
                return keys.iter().position(|x| x.as_deref() == Some(k));
            }
        }
        self.labels.iter().position(|l| l == label)
    }
}

/// An option that lays a tile: its first cell's square, its facing (`north`...), the
/// squares it covers and the terrain each would take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementOption {
    pub at: i64,
    pub facing: String,
    pub squares: Vec<i64>,
    pub terrains: Vec<String>,
}

/// An option's stable key: the `key` field of an option map (a text or a whole number),
/// recorded with the choice so that a recorded game finds the option again when its label
/// changes.
pub fn option_key(opt: &Dynamic) -> Result<Option<String>, String> {
    let Some(m) = opt.read_lock::<rhai::Map>() else { return Ok(None) };
    m.get("key").map(key_text).transpose()
}

/// A `key` field's value as recorded: a text, or a whole number written out.
pub fn key_text(k: &Dynamic) -> Result<String, String> {
    if k.is_string() || k.is_int() {
        Ok(k.to_string())
    } else {
        Err(format!("an option's `key` must be a text or a whole number, not {}", k.type_name()))
    }
}

/// Something that makes decisions for a seat.
pub trait Agent: Send {
    /// Pick one of `req.labels` by index. An `Err` stops the game with that message.
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String>;
    /// The agent's kind, as given on the command line (`random`, `greedy`...).
    fn kind(&self) -> String;
    /// Whether this agent wants to see the table before each choice (a person does).
    fn wants_view(&self) -> bool {
        false
    }
    /// Whether this agent reads the options' labels and fields at choice `step`. One that
    /// only picks by position (`random`, `first`) says no, and an action menu's labels are
    /// then never made (only the chosen one's, for the transcript).
    fn reads_labels(&self, _step: u64) -> bool {
        true
    }
    /// Whether this agent reads the prompt of choice `step` (in `pack`'s game). One that
    /// does not, where no transcript is kept and no one listens, gets an empty prompt: the
    /// compiled tier does not make it (see `script::api::nobody_reads`).
    fn reads_prompt(&self, _pack: &crate::content::Pack, step: u64) -> bool {
        self.reads_labels(step)
    }
    /// Whether this agent, reading the options (`reads_labels`), reads their labels' text
    /// too. One that weighs only the options' fields says no: an action menu's labels are
    /// then made for the option chosen alone, and its options come without `label`.
    fn reads_label_text(&self, _pack: &crate::content::Pack, step: u64) -> bool {
        self.reads_labels(step)
    }
    /// Whether the agent searches ahead: it is then given a fork point of the game with
    /// each choice ([`ChoiceRequest::fork`]).
    fn wants_fork(&self) -> bool {
        false
    }
    /// Shown the table before a choice, when `wants_view` is true.
    fn show(&mut self, _view: &str) {}
    /// Whether the agent is a person, told of a menu of one option, which the game takes
    /// without asking ([`Agent::only_choice`]).
    fn hears_only_choices(&self) -> bool {
        false
    }
    /// Whether a person reads the options: the rules' notes on them (what an option costs
    /// or risks) are then made ([`ChoiceRequest::note`]).
    fn reads_notes(&self) -> bool {
        self.hears_only_choices()
    }
    /// A menu of one option was taken for seat `player` without asking: `prompt`, and the
    /// option's label. The game waits meanwhile, so the seat may be shown the table.
    fn only_choice(&mut self, _pack: &Arc<Pack>, _player: usize, _prompt: &str, _label: &str) {}
    /// The state of the agent's own random stream, if it has one (see
    /// [`GameRng::state`]), so that a game saved and resumed gets the same decisions.
    fn rng_state(&self) -> Option<String> {
        None
    }
    /// Continue the random stream from a [`Agent::rng_state`] text.
    fn set_rng_state(&mut self, _state: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Picks uniformly at random with its own stream, so its draws never disturb the game's.
pub struct RandomAgent {
    rng: GameRng,
}

impl RandomAgent {
    pub fn new(game_seed: u64, seat: usize) -> Self {
        RandomAgent { rng: GameRng::new(derive_seed(game_seed ^ 0xA6E1_7000, seat as u64 + 1)) }
    }
}

impl Agent for RandomAgent {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        Ok(self.rng.below(req.count as u64) as usize)
    }
    fn kind(&self) -> String {
        "random".into()
    }
    fn reads_labels(&self, _step: u64) -> bool {
        false
    }
    fn rng_state(&self) -> Option<String> {
        Some(self.rng.state())
    }
    fn set_rng_state(&mut self, state: &str) -> Result<(), String> {
        self.rng = GameRng::from_state(state)?;
        Ok(())
    }
}

/// Always the first option.
pub struct FirstAgent;

impl Agent for FirstAgent {
    fn choose(&mut self, _req: &ChoiceRequest<'_>) -> Result<usize, String> {
        Ok(0)
    }
    fn kind(&self) -> String {
        "first".into()
    }
    fn reads_labels(&self, _step: u64) -> bool {
        false
    }
}

pub fn quote_list(labels: &[String]) -> String {
    labels.iter().map(|l| format!("'{l}'")).collect::<Vec<_>>().join(", ")
}
