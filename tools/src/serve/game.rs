//! A game against bots in the preview page (`crown serve`, `/play`).
//!
//! A session is the game's set-up and the person's decisions so far, by label. Every view
//! is worked out by playing the game again from its seed with those decisions, up to the
//! decision asked for: the person's seat answers from the list and, when it runs out, takes
//! note of the decision the game waits for (its prompt and options, what the seat is shown
//! and told) and stops the game there. Undo and stepping back through the log are therefore
//! the same game cut shorter, and they cost nothing to keep. A reload of the rules applies
//! from the decision the game stood at when it came, as `crown play --watch` applies it at
//! the next choice: the session keeps each pack with the decision it took over from.
//!
//! A session can be saved as a golden game: its game file (the person's decisions) and the
//! transcript replaying it gives, in `tests/golden/<pack>/`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::boards::{boards, placement, BoardView, PlaceView};
pub use super::zones::{zones, CardView, ZoneView};
use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::game::agent::{Agent, ChoiceRequest, PlacementOption, SetProblem, Several};
use crown_engine::game::narrate::Heard;
use crown_engine::game::record::GameFile;
use crown_engine::game::view::Table;
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::script::api::{with_game, with_installed};
use serde::Serialize;

use crate::out;
use crate::table::{Renderer, ViewKind};

/// What the person asked for when starting a game.
#[derive(Debug, Clone)]
pub struct Setup {
    pub pack: String,
    pub scenario: Option<String>,
    pub seed: u64,
    /// Who plays each seat: `human` (a person: with several, the people share the screen
    /// and pass it on, each seeing only what their seat may see) or a bot kind.
    pub kinds: Vec<String>,
}

/// A game in the page: its set-up, the person's decisions and the packs it was played with.
pub struct Session {
    pub setup: Setup,
    /// The seats people play (`human`), in seat order.
    pub humans: Vec<usize>,
    /// The people's decisions so far, by label, in the order the game asked them.
    pub choices: Vec<String>,
    /// The pack in force from each point on: (the person's decisions made when it took
    /// over, the pack). The first is the pack the game started with.
    pub packs: Vec<(usize, Arc<Pack>)>,
    /// The session's number in this server (a page playing an older game is told so).
    pub id: u64,
    /// Counts the changes to the decisions and packs: the views worked out since the last
    /// change are kept, by (change, decisions played).
    version: u64,
    views: Vec<((u64, usize), View)>,
}

/// Views kept per session: looking back and forth through a game, or a page asking again
/// and again, replays it once per point.
const KEPT_VIEWS: usize = 32;

/// Sessions started by this process, to number them.
static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Names Windows keeps for devices, whatever follows the dot (`con.game.toml` too): a
/// golden game named so could not be opened there.
const RESERVED_NAMES: &[&str] = &["con", "prn", "aux", "nul", "conin", "conout", "clock"];

/// One option of the decision the game waits for.
#[derive(Debug, Clone, Serialize)]
pub struct OptionView {
    pub label: String,
    /// The question a person is asked again before taking it, if any.
    pub confirm: Option<String>,
    /// The ability of the noble or leader it offers, shown beneath it.
    pub about: Option<String>,
    /// The rules mark it as ending the seat's turn.
    pub ends_turn: bool,
    /// What it costs or risks, as the rules say (its `note`).
    pub note: Option<String>,
    /// The text of the cards and characters it names (`?N` at the terminal), shown when
    /// the pointer rests on it.
    pub explain: String,
    /// When it lays a tile: where, drawn on the board.
    pub place: Option<PlaceView>,
    /// The map spaces it names (its `space` field: a space id or number, or a list of
    /// them), by id: a click on such a space of the map takes it.
    pub spaces: Vec<String>,
    /// The supplies it takes from (its `supply` field: a supply id or a list of them): a
    /// click on such a supply beneath the map takes it.
    pub supplies: Vec<String>,
    /// The cards it is about that the seat sees (its `card` field: a card's number), by
    /// number: a click on such a card takes it.
    pub cards: Vec<u32>,
}

/// A narrated line the seat was told, and how many of the person's decisions came before.
#[derive(Debug, Clone, Serialize)]
pub struct LogLine {
    pub at: usize,
    pub text: String,
}

/// Everything the page shows of the game at one point.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub pack: String,
    pub pack_name: String,
    /// The scenario played (`None`: the pack's default), for the New-game form.
    pub scenario: Option<String>,
    pub seed: u64,
    pub names: Vec<String>,
    pub kinds: Vec<String>,
    /// The seat the view is drawn for: the one whose decision the game waits for, else
    /// (the game over) the first person's.
    pub seat: usize,
    /// The seats people play: with more than one, the page asks for the screen to be
    /// passed on before it shows the next seat's view.
    pub humans: Vec<usize>,
    /// The session's number (see [`Session::id`]).
    pub game: u64,
    /// The person's decisions made at this point.
    pub step: usize,
    /// The person's decisions made in the whole session.
    pub total: usize,
    pub prompt: Option<String>,
    pub options: Vec<OptionView>,
    /// What the person chose at each of their decisions so far, in order (the log names
    /// them: "decision 3: Take Walls for your Castle").
    pub chosen: Vec<String>,
    /// `[lo, hi]` when the choice is a number from `lo` to `hi`: option `i` is `lo + i`,
    /// asked as one number field rather than a button each.
    pub number: Option<(i64, i64)>,
    /// `[least, most]` when the choice picks several of the options at once
    /// (`choose_some`): the page ticks a set and sends it (`picks`), in the order ticked.
    pub several: Option<(usize, usize)>,
    /// Options shown but not offered now: each its label and why, drawn greyed out.
    pub unavailable: Vec<(String, String)>,
    /// What the rules draw before a decision (`render_status`) and the whole table
    /// (`render`), for the seat.
    pub status: String,
    pub board: String,
    pub zones: Vec<ZoneView>,
    /// The `[[board]]` boards, drawn as grids.
    pub boards: Vec<BoardView>,
    /// The map (the `[grid]` and named spaces) as an SVG element, one `g.space` each
    /// (`crate::map`); `None` when the board has none.
    pub map: Option<String>,
    pub log: Vec<LogLine>,
    /// Once the game is over: how it ended, the final scores and who went out
    /// ([`crate::table::end_summary`]).
    pub over: Option<String>,
    /// A failure of the game (a script error, a recorded decision no longer offered).
    pub error: Option<String>,
    /// Reloads of the rules during the game: at which decision each took over.
    pub reloads: Vec<usize>,
    /// What the scripts wrote with `print()` and `debug()`.
    pub script_output: Vec<String>,
}

/// What the person's seat found when its decisions ran out.
#[derive(Default)]
struct Pending {
    /// The seat whose decision it is.
    seat: usize,
    /// What an option asked to be previewed would do (see [`Session::preview`]).
    preview: Option<String>,
    prompt: String,
    options: Vec<OptionView>,
    /// The range when the choice is a number (`ChoiceRequest::number_range`).
    number: Option<(i64, i64)>,
    /// The limits when the choice picks several (`ChoiceRequest::several`).
    several: Option<(usize, usize)>,
    unavailable: Vec<(String, String)>,
    status: String,
    board: String,
    zones: Vec<ZoneView>,
    boards: Vec<BoardView>,
}

/// The person's seat in a replay: answers from the session's decisions, then notes the
/// decision the game waits for and stops the game.
struct WebSeat {
    choices: Vec<String>,
    answered: Arc<AtomicUsize>,
    pending: Arc<Mutex<Option<Pending>>>,
    renderer: Renderer,
    /// The option (from 0) of the waiting decision to preview, as the terminal's
    /// `preview N` does.
    preview: Option<usize>,
}

/// The message a replay stops with when the person's decisions run out.
const WAITING: &str = "waiting for the person's decision";

impl Agent for WebSeat {
    fn reads_notes(&self) -> bool {
        true
    }
    /// A preview plays the option on a copy of the table from the turn's start.
    fn wants_fork(&self) -> bool {
        self.preview.is_some()
    }
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let n = self.answered.load(Ordering::SeqCst);
        if let Some(label) = self.choices.get(n) {
            let i = req.labels.iter().position(|l| l == label).ok_or_else(|| {
                format!(
                    "your decision {} ('{label}') is no longer among the options of \"{}\"; continue from decision {n} to \
                     play on",
                    n + 1,
                    req.prompt
                )
            })?;
            self.answered.store(n + 1, Ordering::SeqCst);
            return Ok(i);
        }
        if let Some(i) = self.preview {
            if let Ok(mut p) = self.pending.lock() {
                *p = Some(Pending {
                    seat: req.player,
                    preview: Some(crate::terminal::preview_text(req, i + 1)),
                    ..Pending::default()
                });
            }
            return Err(WAITING.into());
        }
        let (status, _) = self.renderer.draw(req.pack, req.player, ViewKind::Status);
        let (board, _) = self.renderer.draw(req.pack, req.player, ViewKind::Board);
        let laying: Vec<Option<PlacementOption>> = (0..req.labels.len()).map(|i| req.placement(i)).collect();
        let covered: Vec<i64> = laying.iter().flatten().flat_map(|p| p.squares.iter().copied()).collect();
        let (zones, boards, places) = with_game(|g| {
            let places: Vec<Option<PlaceView>> = (laying.iter().enumerate())
                .map(|(i, p)| p.as_ref().and_then(|p| placement(g, p, req.placement_head(i).map(|h| h.0))))
                .collect();
            (zones(g, req.player), boards(g, req.player, &covered), places)
        })
        .unwrap_or_default();
        // A pick of several shows its options without the end of the picking.
        let options = req.labels[..req.offered()]
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let named = with_game(|g| crate::map::named(g, req.options.get(i), req.player)).unwrap_or_default();
                OptionView {
                    label: l.clone(),
                    confirm: req.confirm(i),
                    ends_turn: req.ends_turn(i),
                    note: req.note(i),
                    about: crate::explain::character_note(req.pack, req.options.get(i)),
                    explain: crate::explain::option_help(req.pack, req.options.get(i), l),
                    place: places.get(i).cloned().flatten(),
                    spaces: named.spaces,
                    supplies: named.supplies,
                    cards: named.cards,
                }
            })
            .collect();
        if let Ok(mut p) = self.pending.lock() {
            let number = req.number_range();
            let several = req.several.map(|s| (s.least, s.most));
            let unavailable = req.unavailable.to_vec();
            *p = Some(Pending {
                seat: req.player,
                preview: None,
                prompt: req.prompt.to_string(),
                options,
                number,
                several,
                unavailable,
                status,
                board,
                zones,
                boards,
            });
        }
        Err(WAITING.into())
    }
    fn kind(&self) -> String {
        "human".into()
    }
}

impl Session {
    /// A new session; `pack` is the pack as loaded now.
    pub fn new(setup: Setup, pack: Arc<Pack>) -> Result<Session, String> {
        let humans: Vec<usize> =
            setup.kinds.iter().enumerate().filter(|(_, k)| *k == "human").map(|(i, _)| i).collect();
        if humans.is_empty() {
            return Err("a game in the page needs a person: no seat is `human`".into());
        }
        for k in &setup.kinds {
            if k != "human" && !bots::AGENT_KINDS.contains(&k.as_str()) {
                return Err(format!("unknown agent `{k}` (agents: human, {})", bots::AGENT_KINDS.join(", ")));
            }
        }
        let id = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let s =
            Session { setup, humans, choices: Vec::new(), packs: vec![(0, pack)], id, version: 0, views: Vec::new() };
        // The set-up must make a game (players in range, a known scenario).
        s.start(s.packs[0].1.clone(), Vec::new()).map(|_| s)
    }

    fn start(&self, pack: Arc<Pack>, agents: Vec<Box<dyn Agent>>) -> Result<Game, String> {
        let agents = if agents.is_empty() {
            (0..self.setup.kinds.len()).map(|i| bots::bot("first", self.setup.seed, i).expect("first agent")).collect()
        } else {
            agents
        };
        let mut cfg = GameConfig::new(self.setup.seed, self.setup.kinds.len());
        cfg.scenario = self.setup.scenario.clone();
        Game::new(pack, cfg, agents)
    }

    /// The latest pack of the session.
    pub fn pack(&self) -> &Arc<Pack> {
        &self.packs[self.packs.len() - 1].1
    }

    /// A reloaded pack: it takes over from the decision the game stands at.
    pub fn reloaded(&mut self, pack: Arc<Pack>) {
        if Arc::ptr_eq(self.pack(), &pack) {
            return;
        }
        self.changed();
        let at = self.choices.len();
        // A reload that comes back to the same decision replaces the one before it.
        if self.packs.len() > 1 && self.packs[self.packs.len() - 1].0 == at {
            self.packs.pop();
        }
        self.packs.push((at, pack));
    }

    /// Go back to decision `to` (keeping the decisions before it); later reloads take
    /// over from there.
    pub fn rewind(&mut self, to: usize) {
        if to >= self.choices.len() {
            return;
        }
        self.changed();
        self.choices.truncate(to);
        for p in &mut self.packs {
            p.0 = p.0.min(to);
        }
        // Of several packs taking over at the same decision, the latest is the one in force.
        let mut kept: Vec<(usize, Arc<Pack>)> = Vec::new();
        for p in self.packs.drain(..) {
            if kept.last().is_some_and(|k| k.0 == p.0) && kept.len() > 1 {
                kept.pop();
            }
            kept.push(p);
        }
        self.packs = kept;
    }

    /// The decisions or packs changed: views worked out before no longer hold.
    fn changed(&mut self) {
        self.version += 1;
        self.views.clear();
    }

    /// The view of the game after the first `upto` decisions (all of them when `None`; a
    /// number past them is all of them): kept from an earlier request when nothing changed
    /// since, else played again ([`Session::replay`]) and kept.
    pub fn view(&mut self, upto: Option<usize>) -> View {
        let key = (self.version, upto.unwrap_or(self.choices.len()).min(self.choices.len()));
        if let Some((_, v)) = self.views.iter().find(|(k, _)| *k == key) {
            return v.clone();
        }
        let (_, v) = self.replay(Some(key.1));
        if self.views.len() >= KEPT_VIEWS {
            self.views.remove(0);
        }
        self.views.push((key, v.clone()));
        v
    }

    /// Play the game again from its seed with the first `upto` decisions (all of them when
    /// `None`); the game as it then stands, and the view of it.
    pub fn replay(&self, upto: Option<usize>) -> (Game, View) {
        let (game, view, _) = self.play(upto, None);
        (game, view)
    }

    /// What taking option `i` (from 0) of the decision the game waits for would do, told
    /// as the terminal's `preview N` tells it: played on a copy of the table, the seat's
    /// hidden information dealt at random, nothing of the game changed.
    pub fn preview(&self, i: usize) -> Result<String, String> {
        let (_, view, preview) = self.play(None, Some(i));
        preview.ok_or_else(|| view.error.unwrap_or_else(|| "no decision waits to be previewed".into()))
    }

    /// [`Session::replay`], and with `preview`, that option of the waiting decision
    /// previewed instead of the view's options.
    fn play(&self, upto: Option<usize>, preview: Option<usize>) -> (Game, View, Option<String>) {
        let upto = upto.unwrap_or(self.choices.len()).min(self.choices.len());
        let answered = Arc::new(AtomicUsize::new(0));
        let pending: Arc<Mutex<Option<Pending>>> = Arc::default();
        let humans = self.humans.clone();
        let mut agents: Vec<Box<dyn Agent>> = Vec::new();
        for (i, k) in self.setup.kinds.iter().enumerate() {
            if humans.contains(&i) {
                agents.push(Box::new(WebSeat {
                    choices: self.choices[..upto].to_vec(),
                    answered: answered.clone(),
                    pending: pending.clone(),
                    renderer: Renderer::default(),
                    preview,
                }));
            } else {
                agents.push(bots::bot(k, self.setup.seed, i).expect("a known agent"));
            }
        }
        let mut game = self.start(self.packs[0].1.clone(), agents).expect("the session's set-up makes a game");
        // What each person's seat is told, with the number of decisions made before each line.
        let logs: Arc<Mutex<Vec<Vec<LogLine>>>> = Arc::new(Mutex::new(vec![Vec::new(); self.setup.kinds.len()]));
        let (l, a, heard_by) = (logs.clone(), answered.clone(), humans.clone());
        game.listener = Some(Box::new(move |heard: Heard<'_>, table: Table<'_>| {
            let Heard::Said(s) = heard else { return };
            let Ok(mut logs) = l.lock() else { return };
            for &seat in &heard_by {
                let Some(text) = s.for_seat(seat) else { continue };
                let l = &mut logs[seat];
                let at = a.load(Ordering::SeqCst);
                // Each turn opens with its header, as at the terminal.
                if let Some(h) = crate::table::new_header(l.iter().map(|x| x.text.as_str()), &table) {
                    l.push(LogLine { at, text: h });
                }
                l.push(LogLine { at, text: text.to_string() });
            }
        }));
        let prints: Arc<Mutex<Vec<String>>> = Arc::default();
        let p = prints.clone();
        game.echo = Some(Box::new(move |line: &str| {
            if let Ok(mut p) = p.lock() {
                p.push(line.to_string());
            }
        }));
        // Reloads take over at the first choice after the decision they came at.
        let mut later: Vec<(usize, Arc<Pack>)> = self.packs[1..].iter().filter(|p| p.0 <= upto).cloned().collect();
        later.reverse();
        let a = answered.clone();
        game.reload = Some(Box::new(move || {
            let n = a.load(Ordering::SeqCst);
            let mut next = None;
            while later.last().is_some_and(|p| p.0 <= n) {
                next = later.pop().map(|p| p.1);
            }
            next
        }));
        let (game, outcome) = game.run();
        let mut waiting = pending.lock().ok().and_then(|mut p| p.take());
        let previewed = waiting.as_mut().and_then(|p| p.preview.take());
        let step = answered.load(Ordering::SeqCst);
        let error = match &outcome.status {
            Status::Failed(f) if waiting.is_none() || f.message != WAITING => Some(f.to_string()),
            Status::TurnLimit => Some(format!("the game stopped at the turn limit ({} turns)", game.max_turns)),
            _ => None,
        };
        // The view is drawn for the seat whose decision it is, else the first person's.
        let seat = waiting.as_ref().map_or(humans[0], |p| p.seat);
        let log = logs.lock().map(|l| l[seat].clone()).unwrap_or_default();
        // Over: how it ended and why, the scores with their parts, who went out.
        let over = match outcome.status {
            Status::Finished => {
                Some(crate::table::end_summary(&game, &outcome) + crate::table::revealed(&game, seat).as_str())
            }
            _ => None,
        };
        let (game, p) = match waiting {
            Some(p) => (game, p),
            // Over (or failed): the table as it stands, drawn for the seat.
            None => with_installed(game, || {
                let mut r = Renderer::default();
                let pack = with_game(|g| g.pack.clone()).expect("installed");
                let (status, _) = r.draw(&pack, seat, ViewKind::Status);
                let (board, _) = r.draw(&pack, seat, ViewKind::Board);
                let (zones, boards) = with_game(|g| (zones(g, seat), boards(g, seat, &[]))).unwrap_or_default();
                Pending { status, board, zones, boards, ..Pending::default() }
            }),
        };
        let view = View {
            pack: game.pack.id().to_string(),
            pack_name: game.pack.manifest.name.clone(),
            scenario: self.setup.scenario.clone(),
            seed: self.setup.seed,
            names: game.state.players.iter().map(|p| p.name.clone()).collect(),
            kinds: self.setup.kinds.clone(),
            seat,
            humans,
            game: self.id,
            step,
            total: self.choices.len(),
            chosen: self.choices.clone(),
            prompt: (!p.options.is_empty()).then_some(p.prompt),
            options: p.options,
            number: p.number,
            several: p.several,
            unavailable: p.unavailable,
            status: p.status,
            board: p.board,
            zones: p.zones,
            boards: p.boards,
            map: crate::map::map(&game, true).map(|m| m.svg()),
            log,
            over,
            error,
            reloads: self.packs[1..].iter().map(|p| p.0).collect(),
            script_output: prints.lock().map(|p| p.clone()).unwrap_or_default(),
        };
        (game, view, previewed)
    }

    /// Take option `i` of the decision the game waits for now.
    pub fn choose(&mut self, i: usize) -> Result<(), String> {
        let view = self.view(None);
        if view.step < self.choices.len() {
            return Err(view.error.unwrap_or_else(|| "the game did not reach your last decision".into()));
        }
        if view.several.is_some() {
            return Err("this decision picks a set of options (`picks`), not one".into());
        }
        let o = view.options.get(i).ok_or_else(|| match view.options.len() {
            0 => "the game waits for no decision".to_string(),
            n => format!("option {} of {n}", i + 1),
        })?;
        let label = o.label.clone();
        self.changed();
        self.choices.push(label);
        Ok(())
    }

    /// Take the options `picks` (in that order) of the decision the game waits for now,
    /// when it picks several (`choose_some`): each is a decision of its own, then the end
    /// of the picking when fewer than the most were picked.
    pub fn choose_set(&mut self, picks: &[usize]) -> Result<(), String> {
        let view = self.view(None);
        if view.step < self.choices.len() {
            return Err(view.error.unwrap_or_else(|| "the game did not reach your last decision".into()));
        }
        let Some((least, most)) = view.several else {
            return Err("this decision picks one option, not a set".into());
        };
        let n = view.options.len();
        match Several::set_problem(picks, n, least, most) {
            Some(SetProblem::NoSuchOption(k)) => return Err(format!("option {} of {n}", k + 1)),
            Some(SetProblem::Twice(_)) => return Err("an option is picked twice".into()),
            Some(SetProblem::Count(c)) => return Err(format!("pick {least} to {most}, not {c}")),
            None => {}
        }
        self.changed();
        // When every option must be picked, the game takes the last one left without
        // asking: it is no decision.
        let asked = if least == n { &picks[..n.saturating_sub(1)] } else { picks };
        self.choices.extend(asked.iter().map(|&k| view.options[k].label.clone()));
        if picks.len() < most {
            self.choices.push(Several::DONE.to_string());
        }
        Ok(())
    }

    /// Save the session as golden game `name` of its pack under `project_root`: the game
    /// file (the person's decisions, the bots by kind) and the transcript it replays to,
    /// with the latest pack. Refuses a name in use. Returns the files written.
    pub fn save_golden(&self, project_root: &Path, name: &str, description: &str) -> Result<Vec<PathBuf>, String> {
        if name.is_empty()
            || name.len() > 64
            || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            || name.starts_with('-')
        {
            return Err(format!(
                "`{}` is not a golden game name (lowercase letters, digits and dashes, at most 64)",
                out::shown(&name.chars().take(80).collect::<String>())
            ));
        }
        let device = |n: &str| {
            RESERVED_NAMES.contains(&n)
                || ["com", "lpt"]
                    .iter()
                    .any(|p| n.strip_prefix(p).is_some_and(|d| d.len() == 1 && d.as_bytes()[0].is_ascii_digit()))
        };
        if device(name) {
            return Err(format!("`{name}` is a name Windows keeps for a device: choose another name"));
        }
        let (game, _) = self.replay(None);
        let pack = self.pack().clone();
        let dir = project_root.join("tests/golden").join(pack.id());
        let file_path = dir.join(format!("{name}.game.toml"));
        let transcript_path = dir.join(format!("{name}.transcript"));
        for p in [&file_path, &transcript_path] {
            if p.exists() {
                return Err(format!("{} exists: choose another name", p.display()));
            }
        }
        let file = GameFile::from_game(&game, self.setup.kinds.clone(), description.to_string());
        // The transcript is what replaying the file gives, so `crown test` passes at once;
        // when the latest rules no longer offer a recorded decision, the fallback agent
        // plays on and the file says where.
        let replayed = file.replay_full(pack)?;
        let file = file.accepted(&replayed);
        // Both files stay inside the project: a golden folder or file that is a link
        // leading elsewhere is refused before anything is made.
        for p in [&file_path, &transcript_path] {
            out::check_writable_in(project_root, p).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
        out::write_atomic_in(project_root, &file_path, file.to_toml().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", file_path.display()))?;
        out::write_atomic_in(project_root, &transcript_path, replayed.transcript.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", transcript_path.display()))?;
        Ok(vec![file_path, transcript_path])
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crown_engine::load::{load_pack, LoadOptions, Project};

    /// A shipped pack, loaded.
    pub(crate) fn pack(id: &str) -> Arc<Pack> {
        let project = Project::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        Arc::new(load_pack(&project, id, LoadOptions::default()).pack.expect("the pack loads"))
    }

    /// Pack `p` made of `files` (paths under a project root, and their text), loaded.
    fn fixture_pack(files: &[(&str, &str)]) -> Arc<Pack> {
        let root = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            std::fs::create_dir_all(root.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.path().join(rel), text).unwrap();
        }
        let loaded = load_pack(&Project::new(root.path()), "p", LoadOptions::default());
        Arc::new(loaded.pack.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics)))
    }

    /// Take the Kingdom, a person against a random bot, seed 3.
    pub(crate) fn session() -> Session {
        let setup = Setup {
            pack: "take-the-kingdom".into(),
            scenario: None,
            seed: 3,
            kinds: vec!["human".into(), "random".into()],
        };
        Session::new(setup, pack("take-the-kingdom")).unwrap()
    }

    /// A number choice (`choose_number`) is offered as its range, one field on the page;
    /// the option picked is the number's place in it.
    #[test]
    fn a_number_choice_is_offered_as_its_range() {
        let p = fixture_pack(&[
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            (
                "scripts/p/rules.rhai",
                "fn setup() {}\nfn turn() { let n = choose_number(0, \"How many?\", 3, 15); end_game([0], `${n}`); }\n",
            ),
        ]);
        let setup = Setup { pack: "p".into(), scenario: None, seed: 1, kinds: vec!["human".into()] };
        let mut s = Session::new(setup, p).unwrap();
        let (_, v) = s.replay(None);
        assert_eq!(v.number, Some((3, 15)));
        assert_eq!(v.options.len(), 13);
        s.choose(4).unwrap();
        let (g, v) = s.replay(None);
        assert_eq!(g.choices[0].label, "7");
        assert_eq!(v.number, None);
    }

    /// A choice that picks several (`choose_some`) is offered as its options without the
    /// end of the picking, with its limits; the set sent is taken pick by pick, in order,
    /// and a wrong set changes nothing.
    #[test]
    fn a_set_is_offered_with_its_limits_and_taken_in_order() {
        let p = fixture_pack(&[
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            (
                "scripts/p/rules.rhai",
                "fn setup() {}\nfn turn() {\n\
                   let a = choose_some(0, \"Sow which fields?\", [\"North\", \"Mill\", \"River\"], 1, 2);\n\
                   let b = choose_some(0, \"Post which guards?\", [\"Ada\", \"Bo\", \"Cy\"], 0, 3);\n\
                   end_game([0], `${a} ${b}`);\n}\n",
            ),
        ]);
        let setup = Setup { pack: "p".into(), scenario: None, seed: 1, kinds: vec!["human".into()] };
        let mut s = Session::new(setup, p).unwrap();
        let (_, v) = s.replay(None);
        assert_eq!(v.several, Some((1, 2)));
        assert_eq!(v.options.iter().map(|o| o.label.as_str()).collect::<Vec<_>>(), ["North", "Mill", "River"]);
        assert!(s.choose(0).unwrap_err().contains("picks a set"));
        assert_eq!(s.choose_set(&[0, 1, 2]).unwrap_err(), "pick 1 to 2, not 3");
        assert_eq!(s.choose_set(&[2, 2]).unwrap_err(), "an option is picked twice");
        assert_eq!(s.choose_set(&[3]).unwrap_err(), "option 4 of 3");
        assert!(s.choices.is_empty());
        s.choose_set(&[2]).unwrap();
        let (_, v) = s.replay(None);
        assert_eq!((v.prompt.as_deref(), v.several), (Some("Post which guards?"), Some((0, 3))));
        s.choose_set(&[]).unwrap();
        let (g, v) = s.replay(None);
        assert_eq!(s.choices, ["River", "Done", "Done"]);
        assert!(g.choices.iter().all(|c| c.asked));
        assert!(v.over.is_some_and(|o| o.contains("[\"River\"] []")), "{:?}", v.error);
    }

    #[test]
    fn a_session_replays_to_its_decisions_and_goes_back() {
        let mut s = session();
        let (_, v) = s.replay(None);
        assert_eq!((v.step, v.prompt.as_deref()), (0, Some("Choose your noble")));
        for _ in 0..5 {
            s.choose(0).unwrap();
        }
        let (_, now) = s.replay(None);
        assert_eq!((now.step, now.total), (5, 5));
        assert!(now.status.contains("Anne, Viscountess of Narbonne"), "{}", now.status);
        // A look back is the same game cut shorter; the session keeps its decisions.
        let (_, past) = s.replay(Some(2));
        assert_eq!((past.step, past.total), (2, 5));
        assert!(past.log.len() < now.log.len());
        assert!(now.log.iter().all(|l| l.at <= 5) && now.log.windows(2).all(|w| w[0].at <= w[1].at));
        s.rewind(4);
        assert_eq!(s.choices.len(), 4);
        assert_eq!(s.replay(None).1.step, 4);
        assert!(s.choose(99).unwrap_err().contains("option 100 of"));
    }

    /// Looking back and forth replays each point once; a change of the decisions forgets
    /// what was kept. A point past the game is the game now.
    #[test]
    fn views_are_kept_until_the_game_changes() {
        let mut s = session();
        s.choose(0).unwrap();
        s.choose(0).unwrap();
        assert!(s.views.is_empty(), "choosing changed the game");
        let (past, now) = (s.view(Some(1)), s.view(None));
        assert_eq!((past.step, now.step), (1, 2));
        assert_eq!(s.view(Some(usize::MAX)).step, 2);
        assert_eq!(s.view(Some(1)).log.len(), past.log.len());
        assert_eq!(s.views.len(), 2, "{:?}", s.views.iter().map(|v| v.0).collect::<Vec<_>>());
        s.rewind(5);
        assert_eq!(s.views.len(), 2, "going back past the game changes nothing");
        s.rewind(1);
        assert!(s.views.is_empty());
        assert_eq!(s.view(None).total, 1);
        for _ in 0..KEPT_VIEWS + 5 {
            s.view(Some(0));
            s.version += 1;
        }
        assert_eq!(s.views.len(), KEPT_VIEWS);
    }

    #[test]
    fn a_reload_takes_over_where_the_game_stands() {
        let mut s = session();
        s.choose(0).unwrap();
        s.choose(0).unwrap();
        let newer = pack("take-the-kingdom");
        s.reloaded(newer.clone());
        s.reloaded(newer.clone());
        assert_eq!(s.packs.len(), 2);
        assert_eq!(s.packs[1].0, 2);
        let (game, v) = s.replay(None);
        assert!(Arc::ptr_eq(&game.pack, &newer));
        assert_eq!((v.step, v.reloads.clone()), (2, vec![2]));
        // Looking back before the reload plays the game with the pack it had then.
        let (old, _) = s.replay(Some(1));
        assert!(Arc::ptr_eq(&old.pack, &s.packs[0].1));
        // Going back before it: the reload takes over from there.
        s.rewind(1);
        assert_eq!(s.packs[1].0, 1);
    }

    #[test]
    fn what_the_scripts_print_is_shown() {
        let p = fixture_pack(&[
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 2, max = 2 }\n"),
            (
                "scripts/p/rules.rhai",
                "fn setup() { print(\"hello\"); }\nfn turn() { let p = choose(0, \"Act\", [\"Wait\", \"Win\"]); \
                 log(`P1 chose ${p}`); if p == \"Win\" { end_game([0], \"won\"); } }\n",
            ),
        ]);
        let setup = Setup { pack: "p".into(), scenario: None, seed: 1, kinds: vec!["human".into(), "first".into()] };
        let mut s = Session::new(setup, p).unwrap();
        s.choose(1).unwrap();
        let (_, v) = s.replay(None);
        assert_eq!(v.script_output, ["print: hello"]);
        assert_eq!(
            v.over.as_deref(),
            Some("── the end ──\nP1 wins: won\nfinal scores\n  P1  0\n  P2  0\nafter 1 turn\n")
        );
        let log: Vec<&str> = v.log.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(log[..3], ["── turn 1 ──", "P1 chose Win", "game over: P1 wins (won); scores: P1 0, P2 0"]);
        // Over: no decision waits, and the table is still drawn (the engine's views).
        assert!(v.options.is_empty() && v.status.contains("You are P1"), "{}", v.status);
    }

    #[test]
    fn a_person_at_least_and_known_bots() {
        let setup = |kinds: &[&str]| Setup {
            pack: "take-the-kingdom".into(),
            scenario: None,
            seed: 1,
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
        };
        let p = pack("take-the-kingdom");
        assert!(Session::new(setup(&["random", "random"]), p.clone()).err().unwrap().contains("no seat is `human`"));
        assert!(Session::new(setup(&["human", "human"]), p.clone()).is_ok(), "people may share the screen");
        assert!(Session::new(setup(&["human", "clever"]), p.clone()).err().unwrap().contains("unknown agent `clever`"));
        assert!(Session::new(setup(&["human"]), p).err().unwrap().contains("1 player: "));
    }

    /// An option previewed in the page as at the terminal (`preview N`): what taking it
    /// would do, the game unchanged.
    #[test]
    fn an_option_is_previewed_without_changing_the_game() {
        let mut s = session();
        let before = s.view(None);
        let text = s.preview(0).unwrap();
        assert!(text.starts_with(&format!("if you take 1 ({}):\n", before.options[0].label)), "{text}");
        assert_eq!(s.choices.len(), 0, "nothing chosen");
        let n = before.options.len();
        assert_eq!(s.preview(n).unwrap(), format!("there is no option {} (1 to {n})", n + 1));
        assert_eq!(s.view(None).options.len(), n);
    }

    /// Two people sharing the screen: each view is drawn for the seat whose decision it is,
    /// with that seat's hand, its own log, and the other's hand as a count only.
    #[test]
    fn people_sharing_the_screen_each_see_their_own_seat() {
        let setup = Setup {
            pack: "take-the-kingdom".into(),
            scenario: None,
            seed: 3,
            kinds: vec!["human".into(), "human".into()],
        };
        let mut s = Session::new(setup, pack("take-the-kingdom")).unwrap();
        let mut seats = std::collections::BTreeSet::new();
        for _ in 0..12 {
            let v = s.view(None);
            if v.options.is_empty() {
                break;
            }
            assert_eq!(v.humans, vec![0, 1]);
            seats.insert(v.seat);
            let (g, _) = s.replay(None);
            let other = 1 - v.seat;
            for z in &v.zones {
                let hidden = g.state.zones.iter().find(|gz| {
                    gz.words(&g.state.players, v.seat) == z.label
                        && gz.owner == Some(other as u8)
                        && gz.visibility == crown_engine::game::state::Visibility::Owner
                });
                if hidden.is_some() {
                    assert!(z.cards.is_empty(), "seat {} sees seat {other}'s {}: {:?}", v.seat, z.label, z.cards);
                }
            }
            // The log is the seat's own: the other's drawn cards are never named in it.
            for own in g.state.zones.iter().filter(|z| z.owner == Some(other as u8) && z.name == "hand") {
                for &c in &own.cards {
                    let name = g.card_name(c);
                    assert!(
                        !v.log.iter().any(|l| l.text.contains(&format!("draws {name}"))),
                        "seat {} is told seat {other} drew {name}",
                        v.seat
                    );
                }
            }
            s.choose(0).unwrap();
        }
        assert_eq!(seats.len(), 2, "both people decided in turn: {seats:?}");
    }

    #[test]
    fn a_golden_name_is_checked_and_never_replaces_a_file() {
        let mut s = session();
        s.choose(0).unwrap();
        let root = tempfile::tempdir().unwrap();
        assert!(s.save_golden(root.path(), "Bad Name", "").unwrap_err().contains("not a golden game name"));
        for bad in ["a/b", "..", "../x", "a\\b", "", ".git", "x\u{1b}[2J"] {
            assert!(s.save_golden(root.path(), bad, "").unwrap_err().contains("not a golden game name"), "{bad:?}");
        }
        for device in ["con", "nul", "aux", "prn", "com1", "lpt9"] {
            assert!(s.save_golden(root.path(), device, "").unwrap_err().contains("Windows keeps"), "{device}");
        }
        assert!(std::fs::read_dir(root.path()).unwrap().next().is_none(), "nothing written");
        let wrote = s.save_golden(root.path(), "one-noble", "a noble taken").unwrap();
        assert!(wrote[0].ends_with("tests/golden/take-the-kingdom/one-noble.game.toml"));
        let file = GameFile::parse(&std::fs::read_to_string(&wrote[0]).unwrap()).unwrap();
        assert_eq!(file.description, "a noble taken");
        assert_eq!(file.choices.len(), 1);
        // The decisions ran out where the person stopped: the fallback played on, as noted.
        assert_eq!(file.continued.len(), 1);
        assert!(s.save_golden(root.path(), "one-noble", "").unwrap_err().contains("exists"));
    }
}
