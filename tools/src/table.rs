//! A person at the table: what one seat is shown, shared by the terminal (`crown play`,
//! `crown campaign play`) and the browser (`crown serve`).
//!
//! The rules draw the table through two optional hooks, called while the game waits for
//! the seat's decision: `render_status(viewer)`, a few lines shown before each decision,
//! and `render(viewer)` (or the older `render()`), the whole table, shown on request.
//! Without them (or when one fails, after saying so once) the engine's own views are
//! used: [`Game::status`] and [`Game::view`]. Narration (see
//! [`crown_engine::game::narrate`]) is filtered for the seat by a [`LogLevel`].

use std::sync::{Arc, Mutex};

use crown_engine::content::Pack;
use crown_engine::game::narrate::{Heard, Listener, LogLevel};
use crown_engine::game::view::Table;
use crown_engine::game::Game;
use crown_engine::script::api::{call_script_fn, to_failure_in, with_game};
use crown_engine::script::Dynamic;

/// How many parameters the rules script's function `name` takes, if it defines one.
pub fn hook_arity(pack: &Pack, name: &str) -> Option<usize> {
    let rules = pack.rules_script()?;
    rules.ast.iter_functions().find(|f| f.name == name).map(|f| f.params.len())
}

/// Which of the rules' views a seat asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// `render_status(viewer)`: the few lines shown before each decision.
    Status,
    /// `render(viewer)`: the whole table.
    Board,
}

/// Draws a seat's views, remembering a hook that failed (it is not called again in this
/// game, and the failure is told once).
#[derive(Default)]
pub struct Renderer {
    failed_status: bool,
    failed_board: bool,
}

impl Renderer {
    /// The view of seat `viewer`, drawn by the rules' hook or the engine. Call it while
    /// the game waits for a decision (from an agent): it reads the installed game. The
    /// second value is a note to show when a hook failed just now.
    pub fn draw(&mut self, pack: &Arc<Pack>, viewer: usize, kind: ViewKind) -> (String, Option<String>) {
        let (name, failed) = match kind {
            ViewKind::Status => ("render_status", &mut self.failed_status),
            ViewKind::Board => ("render", &mut self.failed_board),
        };
        let mut note = None;
        if !*failed {
            if let (Some(arity), Some(rules)) = (hook_arity(pack, name), pack.rules_script()) {
                let args = if arity == 1 { vec![Dynamic::from(viewer as i64)] } else { Vec::new() };
                match call_script_fn(&rules.ast, name, args) {
                    Ok(v) => {
                        let mut text = v.to_string().trim_end().to_string();
                        // The older `render()` draws the public table only: the seat's own
                        // cards follow, from the engine.
                        if arity == 0 {
                            if let Some(own) = with_game(|g| own_cards(g, viewer)) {
                                text.push_str(&own);
                            }
                        }
                        return (text, None);
                    }
                    Err(e) => {
                        *failed = true;
                        let f = to_failure_in(&e, &rules.ast, Some(name));
                        note = Some(format!("({name}() failed; the engine's plain view is shown from now on: {f})"));
                    }
                }
            }
        }
        let plain = with_game(|g| match kind {
            ViewKind::Status => g.status(viewer),
            ViewKind::Board => g.view(viewer),
        })
        .unwrap_or_default();
        (plain.trim_end().to_string(), note)
    }
}

/// The seat's own cards, zone by zone (oldest first), as lines to add under a table.
fn own_cards(g: &Game, viewer: usize) -> String {
    let mut out = String::new();
    for z in g.state.zones.iter().filter(|z| z.owner == Some(viewer as u8) && !z.cards.is_empty()) {
        out.push_str(&format!("\nyour {}: {}", z.name, g.names_text(&z.cards, viewer)));
    }
    out
}

/// The narrated lines a person has been shown, newest last (for the `log` command and the
/// browser's log).
pub type Seen = Arc<Mutex<Vec<String>>>;

/// A listener that hands each line the person may read, at `level`, to `show` and keeps
/// it in `seen`, each turn opened by its header (see [`turn_header`]). `seats` are the
/// seats the person plays.
pub fn listener(
    level: LogLevel,
    seats: Vec<usize>,
    seen: Seen,
    mut show: impl FnMut(&str) + Send + 'static,
) -> Listener {
    Box::new(move |heard: Heard<'_>, table: Table<'_>| {
        if let Some(line) = level.shown(heard, &seats) {
            if let Ok(mut s) = seen.lock() {
                if level != LogLevel::Debug {
                    if let Some(h) = new_header(s.iter().map(String::as_str), &table) {
                        show(&h);
                        s.push(h);
                    }
                }
                show(line);
                s.push(line.to_string());
            }
        }
    })
}

/// How a turn's header begins: what `log` pages by.
pub const HEADER: &str = "── ";

/// The line that opens a turn in a person's log: "── round II · turn 14 · Bea ──" (the
/// round where the rules keep rounds, in the pack's words; "setting up" before the first
/// turn).
pub fn turn_header(table: &Table<'_>) -> String {
    let s = table.state;
    let mut parts = Vec::new();
    if s.turns.round > 0 {
        parts.push(table.pack.manifest.round_name(s.turns.round));
    }
    if s.turn == 0 {
        parts.push("setting up".to_string());
    } else {
        parts.push(format!("turn {}", s.turn));
        if let Some(p) = s.turns.current.and_then(|p| s.players.get(p)) {
            parts.push(p.name.clone());
        }
    }
    format!("{HEADER}{} ──", parts.join(" · "))
}

/// The header to show before the next line, when the turn (or the seat playing it, or the
/// round) changed since the last header of the log, `lines` (oldest first).
pub fn new_header<'a>(lines: impl DoubleEndedIterator<Item = &'a str>, table: &Table<'_>) -> Option<String> {
    let h = turn_header(table);
    let mut lines = lines;
    let last = lines.rfind(|l| l.starts_with(HEADER));
    (last != Some(h.as_str())).then_some(h)
}

/// What `log` shows: the last `turns` turns told (from their headers), or everything.
pub fn log_pages(seen: &[String], turns: Option<usize>) -> String {
    if seen.is_empty() {
        return "(nothing has been told yet)".to_string();
    }
    let from = match turns {
        None => 0,
        Some(n) => {
            let heads: Vec<usize> =
                (seen.iter().enumerate()).filter(|(_, l)| l.starts_with(HEADER)).map(|(i, _)| i).collect();
            heads.len().checked_sub(n.max(1)).map_or(0, |k| heads[k])
        }
    };
    let mut text = seen[from..].join("\n");
    if from > 0 {
        text = format!("(earlier turns: `log N` shows the last N turns, `log all` everything)\n{text}");
    }
    text
}
