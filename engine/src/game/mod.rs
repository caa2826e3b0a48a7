//! Games: the state, the agents deciding for each seat, the transcript of events, and
//! the loop that drives the pack's rules script (`setup()`, then `turn()` until
//! `end_game`), with a turn limit and script errors reported, never hung or crashed.

pub mod agent;
pub mod boards;
pub mod map;
pub mod narrate;
pub mod record;
pub mod regions;
pub mod rng;
pub mod save;
pub mod seen;
pub mod state;
pub mod tally;
pub mod view;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use rhai::Dynamic;

use crate::content::model::{BoardFile, Grid, Scalar, Seat, SpaceDef, StagePosition};
use crate::content::{Pack, ScenarioEntry};
use agent::Agent;
use rng::{derive_seed, GameRng};
use state::{Card, Piece, PlayerState, Space, State, NO_ZONE};

/// The most seats a game has (the engine keeps who has passed as one bit per seat).
pub const MAX_SEATS: usize = 64;

/// How to start a game.
#[derive(Debug, Clone)]
pub struct GameConfig {
    pub seed: u64,
    pub players: usize,
    /// Scenario id; `None` uses the pack's default scenario, if any.
    pub scenario: Option<String>,
    /// Player names (default `P1`, `P2`...; a scenario's seat names win over defaults).
    pub names: Vec<String>,
    /// Whether to keep the transcript text (off for fast simulations).
    pub transcript: bool,
    /// Stop after this many turns (default: the pack's `max_turns`, else 500).
    pub max_turns: Option<u64>,
    /// Suspend the game at the first `checkpoint()` a script reaches (after that `turn()`
    /// returns), with [`Status::Paused`]: how a campaign is played one part at a time.
    pub pause_at_checkpoint: bool,
    /// A character (noble or leader) id per seat that wins over the scenario's seat
    /// character: what the rules read with `seat_character(p)` (`crown sim --characters`).
    /// Empty, or `None` for a seat, leaves the scenario's.
    pub characters: Vec<Option<String>>,
    /// Check the pack's invariants (`invariant_...` functions of the rules) after set-up,
    /// before every decision and after every turn; a broken one fails the game.
    pub invariants: bool,
}

impl GameConfig {
    pub fn new(seed: u64, players: usize) -> Self {
        GameConfig {
            seed,
            players,
            scenario: None,
            names: Vec::new(),
            transcript: true,
            max_turns: None,
            pause_at_checkpoint: false,
            characters: Vec::new(),
            invariants: false,
        }
    }
}

/// A script failure, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptFailure {
    pub message: String,
    /// The script file (as shown in the project).
    pub script: Option<String>,
    pub line: usize,
    pub column: usize,
    /// The definitions that use that script.
    pub definitions: Vec<String>,
    /// Function call chain, outermost first.
    pub trace: Vec<String>,
}

impl ScriptFailure {
    /// A failure with a message and no place in a script (set-up errors, a replay that
    /// diverged, the native baseline's errors).
    pub fn plain(message: impl Into<String>) -> Self {
        ScriptFailure {
            message: message.into(),
            script: None,
            line: 0,
            column: 0,
            definitions: Vec::new(),
            trace: Vec::new(),
        }
    }
}

impl fmt::Display for ScriptFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.script {
            Some(s) if self.line > 0 => write!(f, "{s}:{}:{}: {}", self.line, self.column, self.message)?,
            Some(s) => write!(f, "{s}: {}", self.message)?,
            None => write!(f, "{}", self.message)?,
        }
        if !self.definitions.is_empty() {
            write!(f, " (script of {})", self.definitions.join(", "))?;
        }
        if !self.trace.is_empty() {
            write!(f, " [in {}]", self.trace.join(" > "))?;
        }
        Ok(())
    }
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// A script called `end_game`.
    Finished,
    /// The turn limit was reached first.
    TurnLimit,
    /// A script failed, or a choice could not be made (a replay that diverged).
    Failed(ScriptFailure),
    /// Suspended at a `checkpoint()` (only when [`GameConfig::pause_at_checkpoint`] is set);
    /// the state can be saved and the game resumed later.
    Paused,
}

/// The result of one game.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub status: Status,
    pub winners: Vec<usize>,
    pub reason: String,
    pub scores: Vec<i64>,
    pub turns: u64,
    /// Character (noble or leader) id of each seat, if any.
    pub characters: Vec<Option<String>>,
    /// Definition ids each seat played (`note_play`), for statistics.
    pub plays: Vec<Vec<u32>>,
    /// Definition ids each seat lost from its hand without playing them (`note_discard`).
    pub discards: Vec<Vec<u32>>,
    /// Definition indices (sorted, each once) of the cards that entered each seat's `hand`
    /// zone during the game ("drawn"), for statistics; empty when the pack has no hands.
    pub drawn: Vec<Vec<u32>>,
    /// The rounds, where the rules keep them (`set_round`, `next_round`, `win_round`).
    pub rounds: Vec<tally::RoundOutcome>,
}

/// One recorded choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub step: u64,
    pub player: usize,
    pub prompt: String,
    pub label: String,
    /// The option's stable key, when the rules gave it one.
    pub key: Option<String>,
    /// Whether an agent was asked (false when there was a single option).
    pub asked: bool,
}

/// Where a game shows the lines its scripts print as they are printed.
pub type Echo = Box<dyn FnMut(&str) + Send>;

/// A game in progress.
pub struct Game {
    pub pack: Arc<Pack>,
    pub state: State,
    pub agents: Vec<Option<Box<dyn Agent>>>,
    pub seed: u64,
    pub scenario: Option<String>,
    pub(crate) options: BTreeMap<String, Scalar>,
    pub(crate) seats: Vec<crate::content::model::Seat>,
    pub transcript: Option<Vec<String>>,
    pub choices: Vec<Choice>,
    pub over: Option<(Vec<usize>, String)>,
    /// Plays, discards and rounds, for statistics.
    pub tally: tally::Tally,
    pub max_turns: u64,
    pub(crate) print_lines: usize,
    pub(crate) call_depth: usize,
    /// Suspend at the next checkpoint (from [`GameConfig::pause_at_checkpoint`]).
    pub pause_at_checkpoint: bool,
    /// Check the pack's invariants (from [`GameConfig::invariants`]; never in a copy).
    pub invariants: bool,
    /// A script reached `checkpoint()` during the current turn.
    pub(crate) at_checkpoint: bool,
    /// Called between choices; returns a newer pack to continue with (live reload).
    pub reload: Option<Box<dyn FnMut() -> Option<Arc<Pack>> + Send>>,
    /// Shown each line a script writes with `print()` or `debug()` as it is written
    /// (`crown play` puts them on standard error); they also go to the transcript.
    pub echo: Option<Echo>,
    /// Hears every transcript line and narrated line (see [`narrate`]) as it is written.
    pub listener: Option<narrate::Listener>,
    /// How the game was set up, while it can be played again from its seed with its
    /// choices (not after a resume from a save): used to locate a script that ran away.
    pub(crate) started: Option<GameConfig>,
    /// The table at the start of the current turn (or before set-up), kept only while an
    /// agent asks for it ([`Agent::wants_fork`]): what a search agent plays from.
    pub(crate) fork_point: Option<Box<ForkPoint>>,
    /// Run once on the game just before choice `.0` is asked (a search agent hides what
    /// the deciding seat cannot know at that point of a rollout).
    pub(crate) fork_hook: Option<(u64, ForkHook)>,
    /// In a search rollout: how its shuffles draw their luck (see [`RolloutLuck`]).
    pub(crate) rollout_luck: Option<RolloutLuck>,
}

/// Common luck for a search rollout's shuffles. Every option of a decision is tried on
/// the same deals; a shuffle drawn from the rollout's one random stream would give two
/// options different decks as soon as their rollouts drew a different number of random
/// values, or held the same cards in a different order, before it. So in a rollout the
/// n-th shuffle of a zone puts the cards in card order and then shuffles them with a
/// stream of their own, derived from the deal and (zone, n): two rollouts of one deal
/// that shuffle the same cards into a zone get the same order, whatever came before.
#[derive(Debug, Clone)]
pub struct RolloutLuck {
    pub seed: u64,
    /// Shuffles so far, per zone.
    pub shuffles: BTreeMap<u32, u64>,
}

impl RolloutLuck {
    /// Shuffle `cards`, the whole content of zone `zone`, with common luck.
    pub fn shuffle(&mut self, zone: u32, cards: &mut [u32]) {
        let n = self.shuffles.entry(zone).or_insert(0);
        let mut rng = GameRng::new(derive_seed(self.seed, (u64::from(zone) << 32) | *n));
        *n += 1;
        cards.sort_unstable();
        rng.shuffle(cards);
    }
}

/// Changes a forked game at the moment of a choice (see [`Game::fork_hook`]).
pub type ForkHook = Box<dyn FnOnce(&mut Game) + Send>;

/// A copy of the game from which the current turn can be played again.
pub struct ForkPoint {
    /// The game at the start of the turn (no agents, no transcript).
    pub game: Game,
    /// Whether the copy was taken before `setup()` (then a replay runs set-up first).
    pub before_setup: bool,
    /// How many choices the game had made when the copy was taken.
    pub choices_before: usize,
}

impl Game {
    /// Set up the table from the pack (board, supplies, players) without running scripts.
    pub fn new(pack: Arc<Pack>, cfg: GameConfig, agents: Vec<Box<dyn Agent>>) -> Result<Game, String> {
        let started = cfg.clone();
        let scenario = scenario_of(&pack, cfg.scenario.as_deref())?;
        let n = cfg.players;
        check_table(&pack, scenario, n, agents.len())?;
        let mut state = State::new(cfg.seed);
        state.zone_seen = zone_visibility(&pack);
        let seats = seats_of(&pack, scenario, &cfg.characters, n)?;
        seat_players(&mut state, &cfg.names, &seats, n);
        if let Some((board, _)) = &pack.board {
            lay_board(&mut state, &pack, board);
        }
        let mut agents: Vec<Option<Box<dyn Agent>>> = agents.into_iter().map(Some).collect();
        agents.shrink_to_fit();
        let max_turns = cfg.max_turns.or(pack.manifest.max_turns.map(u64::from)).unwrap_or(500);
        let header = cfg.transcript.then(|| transcript_header(&pack, scenario, cfg.seed, &state, &agents));
        Ok(Game {
            options: options_of(&pack, scenario),
            scenario: scenario.map(|s| s.scenario.id.clone()),
            seats,
            pack,
            state,
            agents,
            seed: cfg.seed,
            transcript: header,
            choices: Vec::new(),
            over: None,
            tally: tally::Tally::new(n),
            max_turns,
            print_lines: 0,
            call_depth: 0,
            pause_at_checkpoint: cfg.pause_at_checkpoint,
            invariants: cfg.invariants,
            at_checkpoint: false,
            reload: None,
            echo: None,
            listener: None,
            started: Some(started),
            fork_point: None,
            fork_hook: None,
            rollout_luck: None,
        })
    }

    /// A copy of the table to play on from here: the same pack, state, options and turn
    /// limit, with no agents (the caller seats its own), no transcript, no reload or echo
    /// hooks, and no way to be played again from its seed.
    pub fn fork(&self) -> Game {
        Game {
            pack: self.pack.clone(),
            state: self.state.clone(),
            agents: (0..self.agents.len()).map(|_| None).collect(),
            seed: self.seed,
            scenario: self.scenario.clone(),
            options: self.options.clone(),
            seats: self.seats.clone(),
            transcript: None,
            choices: Vec::new(),
            over: self.over.clone(),
            tally: self.tally.clone(),
            max_turns: self.max_turns,
            print_lines: self.print_lines,
            call_depth: 0,
            pause_at_checkpoint: false,
            invariants: false,
            at_checkpoint: false,
            reload: None,
            echo: None,
            listener: None,
            started: None,
            fork_point: None,
            fork_hook: None,
            rollout_luck: self.rollout_luck.clone(),
        }
    }

    /// Keep a fork point when an agent wants one (before set-up and at each turn's start).
    pub(crate) fn mark_fork_point(&mut self, before_setup: bool) {
        if self.agents.iter().flatten().any(|a| a.wants_fork()) {
            let game = self.fork();
            self.fork_point = Some(Box::new(ForkPoint { game, before_setup, choices_before: self.choices.len() }));
        }
    }

    /// Add a transcript line (built only when a transcript is kept or a listener hears it).
    #[inline]
    pub fn log(&mut self, line: impl FnOnce(&State) -> String) {
        if self.transcript.is_none() && self.listener.is_none() {
            return;
        }
        let l = line(&self.state);
        if let Some(f) = &mut self.listener {
            f(narrate::Heard::Line(&l), view::Table { pack: &self.pack, state: &self.state });
        }
        if let Some(t) = &mut self.transcript {
            t.push(l);
        }
    }

    /// Narrate a line to the seats in `to` (empty: everyone), with what the other seats
    /// read instead (see [`narrate`]). It goes to the transcript as well. Nothing is built
    /// when neither a transcript nor a listener is kept.
    pub fn say(&mut self, to: Vec<usize>, text: impl FnOnce(&State) -> (String, Option<String>)) {
        if self.transcript.is_none() && self.listener.is_none() {
            return;
        }
        let (text, others) = text(&self.state);
        let said = narrate::Said { to, text, others };
        let names: Vec<&str> = self.state.players.iter().map(|p| p.name.as_str()).collect();
        for line in said.transcript_lines(&names) {
            self.log(|_| line);
        }
        if let Some(f) = &mut self.listener {
            f(narrate::Heard::Said(&said), view::Table { pack: &self.pack, state: &self.state });
        }
    }

    pub fn player_name(&self, p: usize) -> &str {
        self.state.players.get(p).map_or("?", |x| x.name.as_str())
    }

    /// `def-id#instance`, how transcripts name a card.
    pub fn card_ref(&self, c: u32) -> String {
        card_ref(&self.pack, &self.state, c)
    }

    /// Make a new card instance of definition index `def` in zone `z`.
    pub fn create_card(&mut self, def: u32, z: u32) -> u32 {
        let id = self.state.cards.len() as u32;
        self.state.cards.push(Card {
            def,
            zone: NO_ZONE,
            stage: StagePosition::FrontTop,
            face_up: true,
            marks: BTreeMap::new(),
            stickers: Vec::new(),
            attached: Vec::new(),
            host: None,
            owner: None,
        });
        self.state.put_in_zone(id, z, false);
        id
    }

    /// The outcome as it stands.
    pub(crate) fn outcome(&self, status: Status) -> Outcome {
        let (winners, reason) = self.over.clone().unwrap_or_default();
        let finished = matches!(status, Status::Finished);
        Outcome {
            status,
            winners,
            reason,
            scores: self.state.players.iter().map(|p| p.score).collect(),
            turns: self.state.turn,
            characters: self
                .state
                .players
                .iter()
                .map(|p| p.character.map(|d| self.pack.defs[d as usize].def.id.clone()))
                .collect(),
            plays: self.tally.plays.clone(),
            discards: self.tally.discards.clone(),
            drawn: self.state.drawn(),
            rounds: self.tally.rounds(self.state.turn, finished),
        }
    }

    /// What player `viewer` can see of the table (for a person at the terminal).
    pub fn view(&self, viewer: usize) -> String {
        let s = &self.state;
        let mut out = String::new();
        let shown = &self.pack.manifest.show_counters;
        for (i, p) in s.players.iter().enumerate() {
            let ch = p.character.map(|d| self.pack.defs[d as usize].def.name.as_str()).unwrap_or("");
            let counters: Vec<String> = p
                .counters
                .iter()
                .filter(|(k, _)| shown.is_empty() || shown.contains(k))
                .map(|(k, v)| {
                    let label = self.counter_label(k);
                    if i != viewer && p.hidden.contains(k) {
                        format!("{label} ?")
                    } else {
                        format!("{label} {v}")
                    }
                })
                .collect();
            out.push_str(&format!(
                "{}{}{}{}: {}\n",
                p.name,
                if ch.is_empty() { String::new() } else { format!(" ({ch})") },
                if p.out { " [out]" } else { "" },
                if i == viewer { " <- you" } else { "" },
                counters.join(", ")
            ));
        }
        for (zi, z) in s.zones.iter().enumerate() {
            if z.cards.is_empty() {
                continue;
            }
            let visible = match z.visibility {
                state::Visibility::Public => true,
                state::Visibility::Owner => z.owner == Some(viewer as u8),
                state::Visibility::Hidden => false,
            };
            let label = z.words(&s.players, viewer);
            if visible {
                // A pile top first; a hand oldest first, so that it keeps its order from one
                // look to the next.
                let names: Vec<String> = if z.visibility == state::Visibility::Owner {
                    z.cards.iter().map(|&c| self.describe_card(c, viewer)).collect()
                } else {
                    z.cards.iter().rev().map(|&c| self.describe_card(c, viewer)).collect()
                };
                out.push_str(&format!("  {label}: {}\n", names.join(" | ")));
            } else {
                let _ = zi;
                let n = crate::diag::count_words(z.cards.len() as i64, "card", None);
                out.push_str(&format!("  {label}: {n}\n"));
            }
        }
        let on = self.pieces_by_space();
        if let Some(map) = self.map_text_of(map::VIEW_WIDTH, &on) {
            for line in map.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
        // Pieces on the squares of a `[[board]]` (the map above draws the rest).
        for &i in on.keys().filter(|&&i| s.spaces[i].board.is_some()) {
            let what = self.space_contents(i, &on);
            if !what.is_empty() {
                out.push_str(&format!("  [{}] {}\n", s.spaces[i].name, what.join(", ")));
            }
        }
        out.push_str(&s.boards_text(viewer, &boards::terrain_letters(&self.pack)));
        out
    }

    fn describe_card(&self, c: u32, viewer: usize) -> String {
        let s = &self.state;
        let card = &s.cards[c as usize];
        let d = &self.pack.defs[card.def as usize].def;
        if !card.face_up && card.owner != Some(viewer as u8) {
            return "(face down)".into();
        }
        let mut t = if d.stages.is_empty() {
            d.name.clone()
        } else {
            d.stages.iter().find(|st| st.position == card.stage).map_or(d.name.clone(), |st| st.name.clone())
        };
        if !card.face_up {
            t.push_str(" (face down)");
        }
        if !card.attached.is_empty() {
            let under: Vec<String> = card.attached.iter().map(|&a| self.describe_card(a, viewer)).collect();
            t.push_str(&format!(" [{}]", under.join(", ")));
        }
        t
    }
}

/// The scenario a game plays: the one named, or the pack's default (if any).
fn scenario_of<'p>(pack: &'p Pack, name: Option<&str>) -> Result<Option<&'p ScenarioEntry>, String> {
    Ok(match name {
        Some(s) => Some(pack.scenario(s).ok_or_else(|| {
            let known: Vec<&str> = pack.scenarios.iter().map(|s| s.scenario.id.as_str()).collect();
            format!("no scenario `{s}` in pack `{}` (scenarios: {})", pack.id(), known.join(", "))
        })?),
        None => pack.default_scenario(),
    })
}

/// Check that the pack (or the scenario) seats `n` players, that there is an agent for
/// each, and that the pack has rules to play.
fn check_table(pack: &Pack, scenario: Option<&ScenarioEntry>, n: usize, agents: usize) -> Result<(), String> {
    let range = scenario.and_then(|s| s.scenario.players).unwrap_or(pack.manifest.players);
    if (n as i64) < range.min || (n as i64) > range.max {
        return Err(format!(
            "{} player{}: {} allows {} to {}",
            n,
            crate::diag::plural(n),
            scenario.map_or_else(|| format!("pack `{}`", pack.id()), |s| format!("scenario `{}`", s.scenario.id)),
            range.min,
            range.max
        ));
    }
    if n == 0 || n > MAX_SEATS {
        return Err(format!("{n} players: a game seats 1 to {MAX_SEATS}"));
    }
    if agents != n {
        return Err(format!("{} agents for {} players", agents, n));
    }
    if pack.rules.is_none() {
        return Err(format!("pack `{}` has no rules script", pack.id()));
    }
    Ok(())
}

/// Who sees the cards of each zone, as pack.toml's `[zones]` says.
fn zone_visibility(pack: &Pack) -> Arc<Vec<(String, state::Visibility)>> {
    Arc::new(
        pack.manifest
            .zones
            .iter()
            .map(|(name, seen)| {
                let v = match seen {
                    crate::content::model::ZoneSeen::Owner => state::Visibility::Owner,
                    crate::content::model::ZoneSeen::Everyone => state::Visibility::Public,
                    crate::content::model::ZoneSeen::Nobody => state::Visibility::Hidden,
                };
                (name.clone(), v)
            })
            .collect(),
    )
}

/// The scenario's seats, with the characters the configuration gives the first `n` seats
/// over the scenario's (each checked to be a character of the pack).
fn seats_of(
    pack: &Pack,
    scenario: Option<&ScenarioEntry>,
    characters: &[Option<String>],
    n: usize,
) -> Result<Vec<Seat>, String> {
    let mut seats = scenario.map(|s| s.scenario.seat.clone()).unwrap_or_default();
    for (i, ch) in characters.iter().enumerate().take(n) {
        if let Some(id) = ch {
            match pack.get(id) {
                Some(d) if d.kind.is_character() => {}
                _ => {
                    return Err(format!(
                        "seat {}: `{id}` is not a character (noble or leader) of pack `{}`",
                        i + 1,
                        pack.id()
                    ))
                }
            }
            if seats.len() <= i {
                seats.resize(i + 1, Default::default());
            }
            seats[i].character = Some(id.clone());
        }
    }
    Ok(seats)
}

/// Seat `n` players, named as the configuration says, else as their seat is, else `P1`,
/// `P2`...
fn seat_players(state: &mut State, names: &[String], seats: &[Seat], n: usize) {
    for i in 0..n {
        let name = names
            .get(i)
            .cloned()
            .or_else(|| seats.get(i).and_then(|s| s.name.clone()))
            .unwrap_or_else(|| format!("P{}", i + 1));
        state.players.push(PlayerState {
            name,
            character: None,
            counters: Default::default(),
            hidden: Vec::new(),
            out: false,
            score: 0,
        });
    }
}

/// Lay out board.toml on the table: the supplies, the grid's squares and the named
/// spaces, the links between spaces, the pieces that start on them, and the boards of
/// each `[[board]]` kind.
fn lay_board(state: &mut State, pack: &Pack, board: &BoardFile) {
    for s in &board.supply {
        state.supplies.insert(s.id.clone(), s.count);
    }
    if let Some(g) = &board.grid {
        add_grid(state, g);
    }
    for sd in &board.space {
        add_space(state, sd);
    }
    for sd in &board.space {
        link_space(state, sd);
        place_pieces(state, sd);
    }
    for sp in &mut state.spaces {
        sp.adjacent.sort_unstable();
    }
    // The boards of each `[[board]]` kind: one shared, or one for each seat; drawn with as
    // much room around what is laid as the longest tile reaches.
    let reach = if board.board.is_empty() { None } else { boards::tile_reach(pack) };
    for kind in &board.board {
        let seats: Vec<Option<usize>> =
            if kind.per_seat { (0..state.players.len()).map(Some).collect() } else { vec![None] };
        for owner in seats {
            let b = state.add_board(kind, owner);
            state.boards[b].reach = reach;
        }
    }
}

/// A space for each square of the grid, named `x,y`, with its legend's terrain.
fn add_grid(state: &mut State, g: &Grid) {
    state.grid = Some((g.width, g.height));
    for (y, row) in g.rows.iter().enumerate() {
        for (x, ch) in row.chars().enumerate() {
            let id = format!("{x},{y}");
            let mut attrs = BTreeMap::new();
            if let Some(t) = g.legend.get(&ch.to_string()) {
                attrs.insert("terrain".to_string(), t.clone());
            }
            state.space_ids.insert(id.clone(), state.spaces.len() as u32);
            state.spaces.push(Space {
                id: id.clone(),
                name: id,
                adjacent: Vec::new(),
                xy: Some((x as i64, y as i64)),
                attrs,
                values: BTreeMap::new(),
                board: None,
            });
        }
    }
}

/// A named space of board.toml: a new space, or what it says of a square of the grid.
fn add_space(state: &mut State, sd: &SpaceDef) {
    let idx = match state.space_ids.get(&sd.id) {
        Some(&i) => i,
        None => {
            let i = state.spaces.len() as u32;
            state.space_ids.insert(sd.id.clone(), i);
            state.spaces.push(Space {
                id: sd.id.clone(),
                name: sd.name.clone(),
                adjacent: Vec::new(),
                xy: None,
                attrs: BTreeMap::new(),
                values: BTreeMap::new(),
                board: None,
            });
            i
        }
    };
    let sp = &mut state.spaces[idx as usize];
    sp.name = sd.name.clone();
    sp.attrs.extend(sd.attrs.clone());
    sp.values.extend(sd.values.clone());
}

/// Join a space to the spaces it is adjacent or linked to, both ways; a link's
/// attributes are kept with the pair.
fn link_space(state: &mut State, sd: &SpaceDef) {
    let a = state.space_ids[&sd.id];
    let linked = sd.links.iter().map(|l| (&l.to, Some(&l.attrs)));
    for (adj, attrs) in sd.adjacent.iter().map(|id| (id, None)).chain(linked) {
        if let Some(&b) = state.space_ids.get(adj) {
            if !state.spaces[a as usize].adjacent.contains(&b) {
                state.spaces[a as usize].adjacent.push(b);
            }
            if !state.spaces[b as usize].adjacent.contains(&a) {
                state.spaces[b as usize].adjacent.push(a);
            }
            if let Some(attrs) = attrs.filter(|m| !m.is_empty()) {
                state.links.entry((a.min(b), a.max(b))).or_default().extend(attrs.clone());
            }
        }
    }
}

/// Put the pieces a space starts with on it, taken from their supply while it lasts.
fn place_pieces(state: &mut State, sd: &SpaceDef) {
    let a = state.space_ids[&sd.id];
    for (kind, count) in &sd.pieces {
        for _ in 0..*count {
            let left = state.supplies.entry(kind.clone()).or_insert(0);
            if *left <= 0 {
                break;
            }
            *left -= 1;
            state.pieces.push(Piece { kind: kind.clone(), owner: -1, space: Some(a), attrs: BTreeMap::new() });
        }
    }
}

/// The first lines of a game's transcript: the pack, the scenario, the seed and who plays.
fn transcript_header(
    pack: &Pack,
    scenario: Option<&ScenarioEntry>,
    seed: u64,
    state: &State,
    agents: &[Option<Box<dyn Agent>>],
) -> Vec<String> {
    let mut t = Vec::with_capacity(512);
    t.push(format!("# pack {} {}", pack.id(), pack.manifest.version));
    t.push(format!("# scenario {}", scenario.map_or("-", |s| s.scenario.id.as_str())));
    t.push(format!("# seed {seed}"));
    let names: Vec<String> = state
        .players
        .iter()
        .zip(agents)
        .map(|(p, a)| format!("{} ({})", p.name, a.as_ref().map_or("?".into(), |a| a.kind())))
        .collect();
    t.push(format!("# players {}", names.join(", ")));
    t
}

/// A game's options: the pack's settings, then the scenario's over them.
fn options_of(pack: &Pack, scenario: Option<&ScenarioEntry>) -> BTreeMap<String, Scalar> {
    let mut o = pack.manifest.options.clone();
    if let Some(s) = scenario {
        o.extend(s.scenario.options.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    o
}

/// `def-id#instance`.
pub fn card_ref(pack: &Pack, state: &State, c: u32) -> String {
    match state.cards.get(c as usize) {
        Some(card) => format!("{}#{}", pack.defs[card.def as usize].def.id, c),
        None => format!("?#{c}"),
    }
}

/// Convert a TOML scalar to a script value.
pub(crate) fn scalar_to_dynamic(s: &Scalar) -> Dynamic {
    match s {
        Scalar::Int(i) => Dynamic::from(*i),
        Scalar::Bool(b) => Dynamic::from(*b),
        Scalar::Str(s) => Dynamic::from(s.clone()),
        Scalar::Ints(v) => Dynamic::from(v.iter().map(|&i| Dynamic::from(i)).collect::<rhai::Array>()),
        Scalar::Words(v) => Dynamic::from(v.iter().map(|w| Dynamic::from(w.clone())).collect::<rhai::Array>()),
    }
}
