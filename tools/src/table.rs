//! A person at the table: what one seat is shown, shared by the terminal (`crown play`,
//! `crown campaign play`) and the browser (`crown serve`).
//!
//! The rules draw the table through two optional hooks, called while the game waits for
//! the seat's decision: `render_status(viewer)`, a few lines shown before each decision,
//! and `render(viewer)` (or the older `render()`), the whole table, shown on request.
//! Without them (or, for one drawing, when one fails: said once a failure) the engine's
//! own views are used: [`Game::status`] and [`Game::view`]. Narration (see
//! [`crown_engine::game::narrate`]) is filtered for the seat by a [`LogLevel`].

use std::sync::{Arc, Mutex};

use crown_engine::content::Pack;
use crown_engine::game::narrate::{Heard, Listener, LogLevel};
use crown_engine::game::view::Table;
use crown_engine::game::{Game, Outcome, Status};
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

/// Draws a seat's views. A hook that fails is shown the engine's plain view in its place
/// for that one drawing, and is called again the next time (a failure in one position of
/// the game does not hide the pack's own view for the rest of it); each failure is told
/// once, until the hook draws again or fails another way.
#[derive(Default)]
pub struct Renderer {
    failed_status: Option<String>,
    failed_board: Option<String>,
    /// Where the map is drawn as text above the rules' `render` (the terminal), the width
    /// it may take; the engine's own view draws it in any case.
    map_width: Option<usize>,
}

impl Renderer {
    /// A renderer that draws the map as text, `width` characters at most, above the rules'
    /// `render` (the terminal's).
    pub fn with_map(width: usize) -> Self {
        Renderer { map_width: Some(width), ..Renderer::default() }
    }

    /// The view of seat `viewer`, drawn by the rules' hook or the engine. Call it while
    /// the game waits for a decision (from an agent): it reads the installed game. The
    /// second value is a note to show when a hook failed just now.
    pub fn draw(&mut self, pack: &Arc<Pack>, viewer: usize, kind: ViewKind) -> (String, Option<String>) {
        let (name, failed) = match kind {
            ViewKind::Status => ("render_status", &mut self.failed_status),
            ViewKind::Board => ("render", &mut self.failed_board),
        };
        let mut note = None;
        if let (Some(1), Some(rules)) = (hook_arity(pack, name), pack.rules_script()) {
            match call_script_fn(&rules.ast, name, vec![Dynamic::from(viewer as i64)]) {
                Ok(v) => {
                    *failed = None;
                    let mut text = v.to_string().trim_end().to_string();
                    // The rules' table adds to the drawn map; it never replaces it.
                    if let (ViewKind::Board, Some(width)) = (kind, self.map_width) {
                        if let Some(map) = with_game(|g| g.map_text(width)).flatten() {
                            text = format!("{}\n{text}", map.trim_end());
                        }
                    }
                    return (text, None);
                }
                Err(e) => {
                    let f = to_failure_in(&e, &rules.ast, Some(name)).to_string();
                    if failed.as_deref() != Some(f.as_str()) {
                        note = Some(format!(
                            "({name}() failed; the engine's plain view is shown until it draws again: {f})"
                        ));
                    }
                    *failed = Some(f);
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
        // The seat whose turn it is, though the rules may have given the turn on inside it.
        if let Some(p) = s.turns.owner.or(s.turns.current).and_then(|p| s.players.get(p)) {
            parts.push(p.name.clone());
        }
    }
    format!("{HEADER}{} ──", parts.join(" · "))
}

/// The header to show before the next line, when the turn (or the seat playing it, or the
/// round) changed since the last header of the log, `lines` (oldest first). A round that
/// begins inside a turn already told opens with a header of its own ("── round 2 begins
/// ──"), not with the turn's header again under the new round.
pub fn new_header<'a>(lines: impl DoubleEndedIterator<Item = &'a str>, table: &Table<'_>) -> Option<String> {
    let h = turn_header(table);
    let mut lines = lines;
    let last = lines.rfind(|l| l.starts_with(HEADER));
    if last == Some(h.as_str()) {
        return None;
    }
    let s = table.state;
    let this_turn = |l: &str| {
        s.turn > 0 && (l.contains(&format!(" turn {} ·", s.turn)) || l.ends_with(&format!(" turn {} ──", s.turn)))
    };
    let round = table.pack.manifest.round_name(s.turns.round);
    let begins = format!("{HEADER}{round} begins ──");
    let same_round = |l: &str| l.starts_with(&format!("{HEADER}{round} ·"));
    let began_in_this_turn = s.turn > 0 && s.turns.round > 0 && s.turns.round_turn == s.turn;
    match last {
        Some(l) if began_in_this_turn && l == begins => None,
        Some(l) if began_in_this_turn && this_turn(l) && !same_round(l) => Some(begins),
        _ => Some(h),
    }
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

/// What a person reads when the game is over: how it ended and why, the final scores with
/// their parts (where the rules gave them: `set_score(p, parts)`), who went out and in
/// which turn, and how long the game was. The terminal adds the table as it ends.
pub fn end_summary(game: &Game, outcome: &Outcome) -> String {
    let s = &game.state;
    let name = |p: usize| s.players.get(p).map_or("?", |x| x.name.as_str());
    let mut out = format!("{HEADER}the end ──\n");
    match &outcome.status {
        Status::Finished if s.players.len() == 1 => out.push_str(&format!("{}\n", outcome.reason)),
        Status::Finished => {
            let winners: Vec<String> = outcome.winners.iter().map(|&p| name(p).to_string()).collect();
            let who = match winners.as_slice() {
                [] => "nobody wins".to_string(),
                [one] => format!("{one} wins"),
                many => format!("{} win", crown_engine::script::api::sentence(many, "", "and")),
            };
            out.push_str(&format!("{who}: {}\n", outcome.reason));
            // Where the scores alone would not have named the winners, say so.
            let score = |p: usize| s.players.get(p).map_or(0, |x| x.score);
            let lowest = outcome.winners.iter().map(|&p| score(p)).min();
            let beaten = (0..s.players.len()).filter(|p| !outcome.winners.contains(p)).map(score).max();
            let scored = s.players.iter().any(|p| p.score != 0);
            match if scored { (lowest, beaten) } else { (None, None) } {
                (Some(w), Some(l)) if l > w => out.push_str(
                    "(a beaten seat scored more: the score does not decide this game, the reason above does)\n",
                ),
                (Some(w), Some(l)) if l == w => out.push_str("(tied on score: the rules' tie-break decided)\n"),
                _ => {}
            }
        }
        Status::TurnLimit => out.push_str(&format!("the game stopped at the turn limit ({} turns)\n", game.max_turns)),
        Status::Paused => out.push_str("the game is paused at a checkpoint\n"),
        Status::Failed(f) => out.push_str(&format!("the game failed: {f}\n")),
    }
    let width = s.players.iter().map(|p| p.name.chars().count()).max().unwrap_or(0);
    let points = s.players.iter().map(|p| p.score.to_string().len()).max().unwrap_or(1);
    out.push_str(if s.players.len() == 1 { "final score\n" } else { "final scores\n" });
    for (p, pl) in s.players.iter().enumerate() {
        let mut notes = Vec::new();
        if let Some(parts) = game.tally.score_parts.get(p).filter(|v| !v.is_empty()) {
            notes.push(parts.iter().map(|(w, n)| format!("{w} {n}")).collect::<Vec<_>>().join(", "));
        }
        if let Some((_, t)) = game.tally.outs.iter().find(|(q, _)| *q == p) {
            notes.push(if *t == 0 { "out before the first turn".to_string() } else { format!("out in turn {t}") });
        }
        let notes = if notes.is_empty() { String::new() } else { format!("   {}", notes.join("; ")) };
        out.push_str(&format!("  {:<width$}  {:>points$}{notes}\n", pl.name, pl.score));
    }
    out.push_str(&format!("after {}\n", crown_engine::script::api::count_words(outcome.turns as i64, "turn", None)));
    out
}

/// What seat `viewer` could not see while the game was played, shown when it is over
/// ("revealed at the end:" and a line each; nothing when nothing was hidden from it).
pub fn revealed(game: &Game, viewer: usize) -> String {
    let lines = game.table().revealed(viewer);
    if lines.is_empty() {
        return String::new();
    }
    let mut out = "revealed at the end:\n".to_string();
    for l in lines {
        out.push_str(&format!("  {l}\n"));
    }
    out
}

/// How many characters a line of the terminal holds: `COLUMNS` where the shell exports
/// it, else 100.
pub fn screen_width() -> usize {
    std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse().ok()).filter(|&w| w >= 20).unwrap_or(100)
}

/// The end of a game at the terminal: [`end_summary`], then the table as it ends, drawn
/// for seat `viewer` (the drawn map and the rules' `render(viewer)`, else the engine's view).
pub fn end_screen(game: Game, outcome: &Outcome, viewer: usize) -> (Game, String) {
    let mut text = end_summary(&game, outcome);
    text.push_str(&revealed(&game, viewer));
    let pack = game.pack.clone();
    let (game, (board, note)) = crown_engine::script::api::with_installed(game, || {
        Renderer::with_map(screen_width()).draw(&pack, viewer, ViewKind::Board)
    });
    if let Some(n) = note {
        text.push_str(&format!("{n}\n"));
    }
    text.push_str("the table as the game ends:\n");
    text.push_str(&board);
    text.push('\n');
    (game, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crown_engine::game::GameConfig;
    use crown_engine::load::{load_pack, LoadOptions, Project};

    /// Pack `p` made of `files` (path, text) under `root`, loaded.
    fn pack_of(root: &std::path::Path, files: &[(&str, &str)]) -> Arc<crown_engine::content::Pack> {
        for (rel, text) in files {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        let loaded = load_pack(&Project::new(root), "p", LoadOptions::default());
        Arc::new(loaded.pack.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics)))
    }

    /// The end tells the winner and why, each score with its parts, who went out in which
    /// turn, and the game's length.
    #[test]
    fn the_end_shows_scores_with_their_parts_and_who_went_out() {
        let root = tempfile::tempdir().unwrap();
        let pack = pack_of(
            root.path(),
            &[
                ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 3, max = 3 }\n"),
                (
                    "scripts/p/rules.rhai",
                    "fn setup() {}\n\
                 fn turn() {\n\
                   if turn_number() == 2 { eliminate(2, `${player_name(2)} is out of the round`); return; }\n\
                   if turn_number() == 3 {\n\
                     set_score(0, [[\"walls\", 2], [\"resources\", 6]]);\n\
                     set_score(1, 5);\n\
                     end_game([0], \"the strongest kingdom stands\");\n\
                   }\n\
                 }\n",
                ),
            ],
        );
        let agents = (0..3).map(|i| crown_engine::bots::bot("first", 1, i).unwrap()).collect();
        let (game, outcome) = Game::new(pack, GameConfig::new(1, 3), agents).unwrap().run();
        assert_eq!(
            end_summary(&game, &outcome),
            "── the end ──\nP1 wins: the strongest kingdom stands\nfinal scores\n  \
             P1  8   walls 2, resources 6\n  P2  5\n  P3  0   out in turn 2\nafter 3 turns\n"
        );
        let (_, screen) = end_screen(game, &outcome, 0);
        assert!(screen.contains("the table as the game ends:\n"), "{screen}");
    }

    /// Once the game is over each seat is shown what it could not see: a rival's hand, a
    /// card lying face down, a counter kept behind a screen; a deck stays as it is, and a
    /// seat's own cards are not repeated.
    #[test]
    fn the_end_reveals_what_was_hidden_from_each_seat() {
        let root = tempfile::tempdir().unwrap();
        let pack = pack_of(
            root.path(),
            &[
            (
                "content/p/pack.toml",
                "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 2, max = 2 }\n\
                 counter_names = { vp = \"victory points\" }\n[zones]\ntraps = \"everyone\"\n",
            ),
            (
                "content/p/cards.toml",
                "[[card]]\nid = \"moat\"\nname = \"Moat\"\nkind = \"card\"\ncount = 2\ndecks = [\"main\"]\n\
                 [[card]]\nid = \"deny\"\nname = \"Deny\"\nkind = \"card\"\ncount = 4\ndecks = [\"main\"]\n",
            ),
            (
                "scripts/p/rules.rhai",
                "fn setup() {\n\
                   create_deck(\"main\", zone(\"deck\"));\n\
                   for p in 0..2 { hide_counter(p, \"vp\"); set_counter(p, \"vp\", 5 + p); }\n\
                   let moat = cards(zone(\"deck\")).filter(|c| kind_of(c) == \"card\" && name_of(c) == \"Moat\")[0];\n\
                   set_face_up(moat, false);\n\
                   move_card(moat, zone(\"traps\"));\n\
                   for c in cards(zone(\"deck\")).filter(|c| name_of(c) == \"Deny\") { move_card(c, pzone(1, \"hand\")); }\n\
                 }\n\
                 fn turn() { end_game([0], \"done\"); }\n",
            ),
            ],
        );
        let agents = (0..2).map(|i| crown_engine::bots::bot("first", 1, i).unwrap()).collect();
        let (game, outcome) = Game::new(pack, GameConfig::new(1, 2), agents).unwrap().run();
        assert_eq!(
            revealed(&game, 0),
            "revealed at the end:\n  the traps: Moat\n  P2's hand: Deny ×4\n  P2's victory points 6\n"
        );
        assert_eq!(revealed(&game, 1), "revealed at the end:\n  the traps: Moat\n  P1's victory points 5\n");
        let (_, screen) = end_screen(game, &outcome, 1);
        assert!(screen.contains("revealed at the end:\n  the traps: Moat\n"), "{screen}");
    }
}
