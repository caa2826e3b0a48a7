//! A person at the terminal as an agent: [`HumanAgent`] asks a menu and reads the
//! answer; [`TablePlayer`] also shows the seat its view of the table before each decision
//! and answers `board`, `status`, `log` and `help`. Used by `crown play` and `crown
//! campaign play`.

use std::io::{BufRead, Write};
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::game::agent::{Agent, ChoiceRequest};

use crown_engine::script::api::with_game;

use crate::table::{log_pages, new_header, Renderer, Seen, ViewKind};

mod menu;
pub use menu::{HumanAgent, COMMANDS};

/// A person at the terminal, shown before each decision what their seat needs (the
/// rules' `render_status(viewer)`, else their counters and own cards), the whole table on
/// request (`board`: the rules' `render(viewer)`, else the engine's view), and the
/// narration their seat may read as it happens (printed by the game's listener, see
/// [`table::listener`]; `log` shows it again).
pub struct TablePlayer<R: BufRead + Send, W: Write + Send> {
    pub human: HumanAgent<R, W>,
    renderer: Renderer,
    seen: Seen,
    /// The status last shown, not shown again before an only choice.
    last_status: Option<String>,
}

impl<R: BufRead + Send, W: Write + Send> TablePlayer<R, W> {
    pub fn new(input: R, output: W) -> Self {
        Self::with_log(input, output, Seen::default())
    }

    /// A person who has been shown the narrated lines kept in `seen`.
    pub fn with_log(input: R, output: W, seen: Seen) -> Self {
        let renderer = Renderer::with_map(crate::table::screen_width());
        TablePlayer { human: HumanAgent::new(input, output), renderer, seen, last_status: None }
    }
}

impl<R: BufRead + Send, W: Write + Send> TablePlayer<R, W> {
    /// What opens a decision of seat `player`: the turn's header when the turn begins with
    /// it (written here), then the seat's status (returned), after a note when the pack's
    /// hook failed just now.
    fn opening(&mut self, pack: &Arc<Pack>, player: usize) -> String {
        let header = with_game(|g| {
            let mut seen = self.seen.lock().ok()?;
            let h = new_header(seen.iter().map(String::as_str), &g.table())?;
            seen.push(h.clone());
            Some(h)
        })
        .flatten();
        if let Some(h) = header {
            let _ = writeln!(self.human.output, "{h}");
        }
        let (status, note) = self.renderer.draw(pack, player, ViewKind::Status);
        if let Some(n) = note {
            let _ = writeln!(self.human.output, "{n}");
        }
        status
    }
}

impl<R: BufRead + Send, W: Write + Send> Agent for TablePlayer<R, W> {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        // The later picks of a set picked at once: nothing to show.
        if self.human.picks_on(req) {
            return self.human.next_pick(req);
        }
        let status = self.opening(req.pack, req.player);
        // With answers typed ahead the person has decided already: the menu, not the
        // whole status again.
        if !self.human.answers_ahead() {
            let _ = writeln!(self.human.output, "\n{status}");
        }
        self.last_status = Some(status);
        let (renderer, seen) = (&mut self.renderer, &self.seen);
        let mut command = |word: &str| -> Option<String> {
            match word {
                "board" | "b" | "table" => {
                    let (text, note) = renderer.draw(req.pack, req.player, ViewKind::Board);
                    Some(note.map_or(text.clone(), |n| format!("{n}\n{text}")))
                }
                "status" | "s" => {
                    let (text, note) = renderer.draw(req.pack, req.player, ViewKind::Status);
                    Some(note.map_or(text.clone(), |n| format!("{n}\n{text}")))
                }
                "log" | "l" => Some(seen.lock().map(|s| log_pages(&s, Some(2))).unwrap_or_default()),
                "log all" | "l all" => Some(seen.lock().map(|s| log_pages(&s, None)).unwrap_or_default()),
                "help" | "h" | "?" => Some(format!(
                    "Type an option's number (or its label), or: {COMMANDS}. A choice that ends something \
                     for good asks y/n first."
                )),
                "compare" | "c" => Some(compare_text(req)),
                _ if word.starts_with("preview ") || word.starts_with("p ") => {
                    // `preview 3`: option 3 played on a copy of the table, to the next decision.
                    let n = word.split_once(' ').and_then(|(_, n)| n.trim().parse::<i64>().ok())?;
                    // In a number choice, `preview 7` is the number 7.
                    let n = req.number_range().map_or(n, |(lo, _)| n - lo + 1);
                    Some(preview_text(req, usize::try_from(n).unwrap_or(0)))
                }
                _ if word.starts_with("log ") || word.starts_with("l ") => {
                    // `log 5`: the last five turns.
                    let n = word.split_once(' ').and_then(|(_, n)| n.trim().parse::<usize>().ok())?;
                    Some(seen.lock().map(|s| log_pages(&s, Some(n))).unwrap_or_default())
                }
                _ => {
                    // `?3`, `help 3`: what option 3 names; `help Freeze`: that card.
                    let rest = ["help ", "h ", "?"].iter().find_map(|p| word.strip_prefix(p))?.trim();
                    if rest.is_empty() {
                        return None;
                    }
                    Some(match rest.parse::<usize>() {
                        Ok(n) if (1..=req.labels.len()).contains(&n) => {
                            crate::explain::option_help(req.pack, req.options.get(n - 1), &req.labels[n - 1])
                        }
                        Ok(n) => format!("there is no option {n} (1 to {})", req.labels.len()),
                        Err(_) => crate::explain::help(req.pack, rest),
                    })
                }
            }
        };
        self.human.ask(req, &mut command)
    }
    fn hears_only_choices(&self) -> bool {
        true
    }
    /// The seat is shown what it holds before the game takes its only option for it (as
    /// before any decision), unless nothing changed since it was last shown.
    fn only_choice(&mut self, pack: &Arc<Pack>, player: usize, prompt: &str, label: &str) {
        if self.human.typed_pick(label) {
            return;
        }
        let status = self.opening(pack, player);
        if self.last_status.as_deref() != Some(status.as_str()) {
            let _ = writeln!(self.human.output, "\n{status}");
            self.last_status = Some(status);
        }
        self.human.only_choice(pack, player, prompt, label);
    }
    /// The table at the start of each turn is kept, for `preview N`.
    fn wants_fork(&self) -> bool {
        true
    }
    fn kind(&self) -> String {
        "human".into()
    }
}

/// What `preview N` shows: what option N would lead to, told as the seat would be told it,
/// worked out on a copy of the table where what the seat cannot see is dealt at random.
pub(crate) fn preview_text(req: &ChoiceRequest<'_>, n: usize) -> String {
    if !(1..=req.labels.len()).contains(&n) {
        return format!("there is no option {n} (1 to {})", req.labels.len());
    }
    match preview_of(req, n) {
        Ok(p) => {
            let mut out = format!("if you take {n} ({}):\n", req.labels[n - 1]);
            if let Some(note) = req.note(n - 1) {
                out.push_str(&format!("  ({note})\n"));
            }
            for l in &p.lines {
                out.push_str(&format!("  {l}\n"));
            }
            if p.lines.is_empty() {
                out.push_str("  (nothing is told yet)\n");
            }
            if let (false, Some(k)) = (p.assumed.is_empty(), &p.others) {
                out.push_str(&format!("  your next choices, as the {k} bot would make them:\n"));
                for a in &p.assumed {
                    out.push_str(&format!("    {a}\n"));
                }
            }
            if !p.changes.is_empty() {
                out.push_str("  what changes:\n");
                for c in &p.changes {
                    out.push_str(&format!("    {c}\n"));
                }
            }
            out.push_str(&format!("  {}\n", p.then));
            out.push_str(&preview_footnote(&p));
            out
        }
        Err(e) => format!("no preview of option {n}: {e}"),
    }
}

/// Option `n` (from 1) previewed; the same decision previews the same way, another
/// decision deals the copy anew.
fn preview_of(req: &ChoiceRequest<'_>, n: usize) -> Result<crown_engine::bots::preview::Preview, String> {
    let seed = crown_engine::game::rng::derive_seed(req.step, n as u64);
    crown_engine::bots::preview::preview(req, n - 1, seed)
}

/// What `compare` shows: every option's preview in a line, what it changes on the table
/// (or where the copy stopped when nothing changes), with the footnote of the first.
fn compare_text(req: &ChoiceRequest<'_>) -> String {
    let mut out = String::new();
    let mut note = None;
    for n in 1..=req.labels.len() {
        let what = match preview_of(req, n) {
            Ok(p) => {
                note.get_or_insert_with(|| preview_footnote(&p));
                if p.changes.is_empty() {
                    p.then
                } else {
                    p.changes.join("; ")
                }
            }
            Err(e) => format!("no preview: {e}"),
        };
        out.push_str(&format!("{n:>4}. {}: {what}\n", req.labels[n - 1]));
    }
    out.push_str(&note.unwrap_or_default());
    out
}

/// How a preview was worked out, as far as it matters to the reader: who answered the
/// other seats on the copy, and whether hidden cards were dealt there at random.
pub fn preview_footnote(p: &crown_engine::bots::preview::Preview) -> String {
    let mut how = vec!["played on a copy of the table".to_string()];
    if let Some(k) = &p.others {
        how.push(format!("the other seats answer there as the {k} bot would"));
    }
    if p.redealt {
        how.push("cards you cannot see are dealt there at random".into());
    }
    format!("({})", how.join("; "))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crown_engine::bots;
    use crown_engine::game::GameConfig;
    use crown_engine::game::{Game, Status};
    use crown_engine::load::Project;
    use crown_engine::load::{load_pack, LoadOptions};

    /// A writer the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Pack `p` written from `files` (paths from the project's root) under `root`, loaded.
    fn pack_of(root: &std::path::Path, files: &[(&str, &str)]) -> Arc<crown_engine::content::Pack> {
        for (rel, text) in files {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        let loaded = load_pack(&Project::new(root), "p", LoadOptions::default());
        Arc::new(loaded.pack.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics)))
    }

    /// A one-seat pack `p` under `root` whose rules are `rules`, loaded.
    fn solo_pack(root: &std::path::Path, rules: &str) -> Arc<crown_engine::content::Pack> {
        let manifest = "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n";
        pack_of(root, &[("content/p/pack.toml", manifest), ("scripts/p/rules.rhai", rules)])
    }

    /// One seat's game of `pack` played at the table by a person typing `keys`: the game,
    /// how it ended, and what the person was shown.
    fn play_alone(pack: Arc<crown_engine::content::Pack>, keys: &[u8]) -> (Game, crown_engine::game::Outcome, String) {
        let out = Shared::default();
        let input = std::io::Cursor::new(keys.to_vec());
        let agents: Vec<Box<dyn Agent>> = vec![Box::new(TablePlayer::new(input, out.clone()))];
        let (game, outcome) = Game::new(pack, GameConfig::new(1, 1), agents).unwrap().run();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        (game, outcome, text)
    }

    fn play_with(pack: &str, keys: &str) -> String {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, pack, LoadOptions::default()).pack.expect("pack loads"));
        let out = Shared::default();
        let input = std::io::Cursor::new(keys.repeat(200).into_bytes());
        let agents: Vec<Box<dyn Agent>> =
            vec![Box::new(TablePlayer::new(input, out.clone())), bots::bot("first", 1, 1).unwrap()];
        let game = Game::new(pack, GameConfig::new(1, 2), agents).unwrap();
        let _ = game.run();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text
    }

    /// A round that ends inside a turn (Oh Hell's last trick of a hand, scored and the next
    /// hand dealt by the last seat to play) opens with its own header, and the next turn's
    /// header names its own seat: never the new round under the old turn's header.
    #[test]
    fn a_round_that_begins_inside_a_turn_has_its_own_header() {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, "oh-hell", LoadOptions::default()).pack.unwrap());
        let out = Shared::default();
        let seen = Seen::default();
        let input = std::io::Cursor::new("1\n".repeat(40).into_bytes());
        let agents: Vec<Box<dyn Agent>> = vec![
            Box::new(TablePlayer::with_log(input, out.clone(), seen.clone())),
            bots::bot("first", 1, 1).unwrap(),
            bots::bot("first", 1, 2).unwrap(),
        ];
        let mut cfg = GameConfig::new(2, 3);
        cfg.max_turns = Some(12);
        let mut game = Game::new(pack, cfg, agents).unwrap();
        let mut o = out.clone();
        game.listener = Some(crate::table::listener(
            crown_engine::game::narrate::LogLevel::Private,
            vec![0],
            seen.clone(),
            move |l| {
                let _ = writeln!(o, "{l}");
            },
        ));
        let _ = game.run();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let heads: Vec<&str> = text.lines().filter(|l| l.starts_with(crate::table::HEADER)).collect();
        let at = heads.iter().position(|h| *h == "── round 2 begins ──").unwrap_or_else(|| panic!("{heads:#?}"));
        assert_eq!(heads[at - 1], "── round 1 · turn 6 · P3 ──", "{heads:#?}");
        assert_eq!(heads[at + 1], "── round 2 · turn 7 · P2 ──", "{heads:#?}");
        assert!(!heads.contains(&"── round 2 · turn 6 · P3 ──"), "{heads:#?}");
    }

    /// Input that arrives only after a person has thought for `wait`.
    struct Slow {
        inner: std::io::Cursor<Vec<u8>>,
        wait: Option<std::time::Duration>,
    }

    impl Slow {
        fn pause(&mut self) {
            if let Some(w) = self.wait.take() {
                std::thread::sleep(w);
            }
        }
    }

    impl std::io::Read for Slow {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.pause();
            self.inner.read(buf)
        }
    }

    impl BufRead for Slow {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            self.pause();
            self.inner.fill_buf()
        }
        fn consume(&mut self, n: usize) {
            self.inner.consume(n)
        }
    }

    /// A person who thinks longer than a script may run in one call, then asks for the
    /// board: the rules' `render` is a call of its own, with its own clock, so the map is
    /// drawn (it used to inherit the waiting call's clock, thinking time included).
    #[test]
    fn the_board_is_drawn_after_thinking_longer_than_a_script_may_run() {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, "kingdoms-in-conflict", LoadOptions::default()).pack.unwrap());
        let out = Shared::default();
        let limit = crown_engine::script::LIMITS.call_seconds;
        let input = Slow {
            inner: std::io::Cursor::new(b"board\n".to_vec()),
            wait: Some(std::time::Duration::from_millis(limit * 1000 + 500)),
        };
        let agents: Vec<Box<dyn Agent>> =
            vec![Box::new(TablePlayer::new(input, out.clone())), bots::bot("first", 1, 1).unwrap()];
        let _ = Game::new(pack, GameConfig::new(1, 2), agents).unwrap().run();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(!text.contains("render() failed"), "{text}");
        assert!(text.contains("key: # corner"), "no map drawn:\n{text}");
        assert!(text.contains("units 0, walls 0, upkeep 0 food; stock"), "no rules' table drawn:\n{text}");
    }

    /// The log is told in turns: each opens with its header (round, turn, seat), `log N`
    /// pages back by turns, and options the rules mark as ending the turn say so.
    #[test]
    fn the_log_is_told_in_turns_and_menus_mark_what_ends_the_turn() {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, "the-last-kingdom", LoadOptions::default()).pack.unwrap());
        let out = Shared::default();
        let seen = Seen::default();
        let input = std::io::Cursor::new("1\nlog 1\n".repeat(60).into_bytes());
        let agents: Vec<Box<dyn Agent>> =
            vec![Box::new(TablePlayer::with_log(input, out.clone(), seen.clone())), bots::bot("first", 1, 1).unwrap()];
        let mut game = Game::new(pack, GameConfig::new(1, 2), agents).unwrap();
        let mut o = out.clone();
        game.listener = Some(crate::table::listener(
            crown_engine::game::narrate::LogLevel::Private,
            vec![0],
            seen.clone(),
            move |l| {
                let _ = writeln!(o, "{l}");
            },
        ));
        let _ = game.run();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let head = &text[..4000.min(text.len())];
        assert!(text.starts_with("── setting up ──"), "{head}");
        assert!(text.contains("\n── round I · turn 1"), "{head}");
        assert!(text.contains("\n── round I · turn 3 · P1 ──\n"), "{head}");
        assert!(text.contains("[ends your turn]"), "{head}");
        assert!(text.contains("(earlier turns: `log N` shows the last N turns, `log all` everything)"), "{head}");
        // Headers are only written when the turn, its seat or the round changes.
        let heads: Vec<&str> = text.lines().filter(|l| l.starts_with(crate::table::HEADER)).collect();
        let logged: Vec<String> =
            seen.lock().unwrap().iter().filter(|l| l.starts_with(crate::table::HEADER)).cloned().collect();
        assert!(logged.windows(2).all(|w| w[0] != w[1]), "{logged:?}");
        assert!(heads.len() >= logged.len());
    }

    /// `preview N` plays option N on a copy of the table and tells what the seat would be
    /// told, up to the next decision; the copy deals what the seat cannot see at random,
    /// so a preview of a draw does not tell the card really on top of the deck.
    #[test]
    fn a_preview_tells_what_an_option_does_without_showing_hidden_cards() {
        let root = tempfile::tempdir().unwrap();
        let cards: String = ["Ash", "Birch", "Cedar", "Elm", "Fir", "Hazel", "Larch", "Maple", "Oak", "Yew"]
            .iter()
            .map(|n| {
                format!(
                    "[[card]]\nid = \"{}\"\nname = \"{n}\"\nkind = \"tree\"\ndecks = [\"main\"]\n",
                    n.to_lowercase()
                )
            })
            .collect();
        let files = [
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            ("content/p/cards/trees.toml", cards.as_str()),
            (
                "scripts/p/rules.rhai",
                "fn setup() { create_deck(\"main\", zone(\"deck\")); shuffle(zone(\"deck\")); }\n\
                 fn turn() {\n\
                   let o = choose(0, \"Act\", [\"Draw\", \"Stop\"]);\n\
                   if o == \"Draw\" { let c = top(zone(\"deck\")); move_card(c, pzone(0, \"hand\")); \
                   log_to(0, `you draw ${name_of(c)}`, \"P1 draws a card\"); }\n\
                   choose(0, \"Again?\", [\"Yes\", \"No\"]);\n\
                   end_game([0], \"done\");\n\
                 }\n",
            ),
        ];
        let pack = pack_of(root.path(), &files);
        let mut same = 0;
        for seed in 1..=12 {
            let out = Shared::default();
            let input = std::io::Cursor::new(b"preview 1\npreview 9\n1\n1\n".to_vec());
            let agents: Vec<Box<dyn Agent>> = vec![Box::new(TablePlayer::new(input, out.clone()))];
            let _ = Game::new(pack.clone(), GameConfig::new(seed, 1), agents).unwrap().run();
            let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
            assert!(text.contains("if you take 1 (Draw):\n  you draw "), "{text}");
            assert!(text.contains("  what changes:\n    the deck 10 → 9 cards\n    your hand: + "), "{text}");
            assert!(text.contains("  then you are asked: Again?\n(played on a copy of the table"), "{text}");
            assert!(text.contains("there is no option 9 (1 to 2)"), "{text}");
            let drawn: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("you draw ")).collect();
            // No narration in this test: the preview's line, then nothing of the real draw
            // but the hand in the status; compare with the card the game really drew.
            let previewed = drawn[0];
            let real = text.lines().rev().find_map(|l| l.trim().strip_prefix("your hand: ")).unwrap_or("");
            if previewed == real {
                same += 1;
            }
        }
        assert!(same < 12, "every preview named the card really on top of the deck");
    }

    /// A tile's placements are offered a line a square, each facing numbered, and the board
    /// drawn as a grid shows the tile laid.
    #[test]
    fn placements_are_grouped_by_square() {
        let root = tempfile::tempdir().unwrap();
        let files = [
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            (
                "content/p/board.toml",
                "[[board]]\nid = \"realm\"\nname = \"Realm\"\nper_seat = true\nwidth = 3\nheight = 3\nstart = { terrain = \"keep\" }\n",
            ),
            (
                "content/p/cards/tiles.toml",
                "[[card]]\nid = \"t1\"\nname = \"Tile 1\"\nkind = \"tile\"\ndecks = [\"main\"]\n\
                 cells = [{ terrain = \"wood\" }, { x = 1, terrain = \"lake\" }]\n",
            ),
            (
                "scripts/p/rules.rhai",
                "fn setup() { create_deck(\"main\", zone(\"deck\")); }\n\
                 fn turn() {\n\
                   let b = board(0, \"realm\");\n\
                   let t = top(zone(\"deck\"));\n\
                   let ways = placements(b, t);\n\
                   ways.push(\"Put it aside\");\n\
                   let way = choose(0, \"Lay your tile\", ways);\n\
                   if type_of(way) == \"map\" { place_tile(b, t, way); }\n\
                   choose(0, \"Done?\", [\"Yes\", \"No\"]);\n\
                   end_game([0], \"done\");\n\
                 }\n",
            ),
        ];
        let pack = pack_of(root.path(), &files);
        let (_, outcome, text) = play_alone(pack, b"t1 at a1, facing east\n1\n");
        assert!(matches!(outcome.status, Status::Finished), "{:?}\n{text}", outcome.status);
        // 3 x 3 with the keep in the middle: from a1 the tile lies as printed (north, its
        // lake on b1) or turned east (its lake on a2); the menu ends with the option that
        // lays nothing.
        assert!(text.contains("\n  t1 at a1, facing:  1. north   2. east\n"), "{text}");
        assert!(text.contains("\n  t1 at c3, facing: 15. south  16. west\n"), "{text}");
        let last = text.lines().find(|l| l.ends_with(". Put it aside")).unwrap_or_else(|| panic!("{text}"));
        let n: usize = last.trim().split('.').next().unwrap().parse().unwrap();
        assert_eq!(n, 17, "16 ways (8 pairs of squares around the keep, each laid 2 ways), then the last: {text}");
        // Taken by its label; the board then shows the wood on a1 and the lake beneath it.
        assert!(
            text.contains("\n     1 w  .  .\n     2 l  k  .\n     3 .  .  .\n  (k keep, l lake, w wood)\n"),
            "{text}"
        );
    }

    #[test]
    fn a_number_is_asked_as_one_number_and_a_long_menu_is_searched_by_a_word() {
        let root = tempfile::tempdir().unwrap();
        let pack = solo_pack(
            root.path(),
            "fn setup() {}\n\
             fn turn() {\n\
               let n = choose_number(0, \"How many armies move?\", 3, 15);\n\
               let towns = [];\n\
               for t in [\"Ash\", \"Birch\", \"Cedar\", \"Elm\", \"Fir\", \"Hazel\", \"Larch\", \"Oak\", \"Pine\", \"Yew\"] { towns.push(`March on ${t}`); }\n\
               towns.push(#{ label: \"March on Zed\", unavailable: \"the pass is snowed in\" });\n\
               let to = choose(0, \"Where to?\", towns);\n\
               end_game([0], `${n} armies: ${to}`);\n\
             }\n",
        );
        let (game, outcome, text) = play_alone(pack, b"2\n7\nbirch\nfir\n2\n");
        assert!(matches!(outcome.status, Status::Finished), "{:?}\n{text}", outcome.status);
        // The number is typed, not picked from 13 lines; 2 is outside the range.
        assert!(text.contains("How many armies move? (a number from 3 to 15)\nchoose 3-15> "), "{text}");
        assert!(!text.contains(" 1. 3"), "{text}");
        assert!(text.contains("'2' is not an option: type a number from 3 to 15"), "{text}");
        // Ten towns: a word shows the options that name it, numbered as in the menu.
        assert!(text.contains("(type a word to see only the options that name it)"), "{text}");
        assert!(text.contains("the options that name 'birch':\n   2. March on Birch\n"), "{text}");
        assert!(text.contains("the options that name 'fir':\n   5. March on Fir\n"), "{text}");
        assert_eq!(game.choices.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(), ["7", "March on Birch"]);
        // An option the rules show but do not offer: listed with its reason, not numbered.
        assert!(text.contains("\n   -  March on Zed (not now: the pass is snowed in)\n"), "{text}");
        assert!(text.contains("choose 1-10> "), "{text}");
    }

    /// A choice that picks several (`choose_some`) is asked once: the person types the set
    /// in order; a wrong set is refused with the reason; the game records each pick and the
    /// end of the picking, and shows nothing between the picks.
    #[test]
    fn a_set_is_picked_at_once_and_recorded_pick_by_pick() {
        let root = tempfile::tempdir().unwrap();
        let pack = solo_pack(
            root.path(),
            "fn setup() {}\n\
             fn turn() {\n\
               let a = choose_some(0, \"Which fields are sown?\", [\"North field\", \"Mill field\", \"River field\", \"Hill field\"], 1, 3);\n\
               let b = choose_some(0, \"Which guards stand watch?\", [\"Ada\", \"Bo\"], 2, 2);\n\
               let c = choose_some(0, \"Which debts are paid?\", [\"Rent\", \"Tithe\"], 0, 2);\n\
               end_game([0], `${a} ${b} ${c}`);\n\
             }\n",
        );
        let (game, outcome, text) = play_alone(pack, b"1 5\n2 2\n1 2 3 4\n3 1\n2 1\nnone\n");
        assert!(matches!(outcome.status, Status::Finished), "{:?}\n{text}", outcome.status);
        assert!(
            text.contains("Which fields are sown? (pick 1 to 3: type their numbers in the order they are taken, like 1 3):\n   1. North field\n"),
            "{text}"
        );
        assert!(text.contains("there is no option 5 (1 to 4); pick again"), "{text}");
        assert!(text.contains("option 2 is picked twice; pick again"), "{text}");
        assert!(text.contains("pick 1 to 3, not 4; pick again"), "{text}");
        assert!(text.contains("Which guards stand watch? (pick 2: "), "{text}");
        assert!(text.contains("Which debts are paid? (pick up to 2, or none: "), "{text}");
        // Each question is asked once, "Done" never listed.
        assert_eq!(text.matches("Which fields are sown?").count(), 1, "{text}");
        assert!(!text.contains("Done"), "{text}");
        let labels: Vec<&str> = game.choices.iter().map(|c| c.label.as_str()).collect();
        // Two fields of up to three, then the end; two guards of two (the last the only
        // choice left, no end to pick); no debt: the end at once.
        assert_eq!(labels, ["River field", "North field", "Done", "Bo", "Ada", "Done"]);
        assert!(
            outcome.reason.contains("[\"River field\", \"North field\"] [\"Bo\", \"Ada\"] []"),
            "{}",
            outcome.reason
        );
    }

    #[test]
    fn a_menu_of_one_option_is_told_not_taken_silently() {
        let text = play_with("take-the-kingdom", "1\n");
        let at = text.find("(the only choice)").unwrap_or_else(|| panic!("{}", &text[..3000.min(text.len())]));
        // The seat is shown what it holds, as the table stands, before the game plays for it.
        let since_asked = &text[text[..at].rfind("choose 1-").unwrap()..at];
        assert!(since_asked.contains("your hand: "), "{since_asked}");
    }

    #[test]
    fn help_prints_a_cards_text_and_an_options_names() {
        let text = play_with("take-the-kingdom", "help freeze\n?1\nhelp frieze\nhelp 99\n1\n");
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = load_pack(&project, "take-the-kingdom", LoadOptions::default()).pack.unwrap();
        let text_of = |id: &str| crate::explain::plain(&pack.get(id).unwrap().def.text);
        // The card's text, as the pack holds it, at the first prompt.
        assert!(text.contains("Freeze (action)"), "{}", &text[..2000.min(text.len())]);
        assert!(text.contains(&text_of("freeze")));
        // Option 1 of the first menu (the nobles) names a noble: its ability.
        let noble = pack.defs.iter().filter(|d| d.kind.is_character()).find(|d| text.contains(&text_of(&d.def.id)));
        assert!(noble.is_some(), "no noble's text after ?1");
        // A slip is answered with the nearest name; a number past the menu is refused.
        assert!(text.contains("nothing in Take the Kingdom is called 'frieze'; the nearest is:"));
        assert!(text.contains("there is no option 99"));
    }

    #[test]
    fn the_status_comes_before_each_decision_and_the_board_on_request() {
        let text = play_with("take-the-kingdom", "board\n1\n");
        let head = &text[text.len().saturating_sub(3000)..];
        // render_status(viewer): the person's counters and hand, one line per rival.
        assert!(text.contains("You, P1 (") && text.contains("your hand: "), "{head}");
        // `board`: the rules' render(viewer), the deck line first.
        assert!(text.contains("> deck 94, discard 0\nYou, P1: defence 0"), "{head}");
        // Never the engine's plain view of the other seat's hidden hand.
        assert!(!text.contains("hand@P2"), "{head}");
    }

    /// Without render hooks the engine draws both: the seat's counters and own cards,
    /// and its plain view of the table.
    #[test]
    fn without_render_hooks_the_engine_draws_the_table() {
        let root = tempfile::tempdir().unwrap();
        let files = [
            (
                "content/p/pack.toml",
                "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 2, max = 2 }\n\
                 show_counters = [\"gold\"]\ncounter_names = { gold = \"gold coins\" }\n",
            ),
            (
                "content/p/cards.toml",
                "[[card]]\nid = \"coin\"\nname = \"Coin\"\nkind = \"card\"\ncount = 4\ndecks = [\"main\"]\n",
            ),
            (
                "scripts/p/rules.rhai",
                "fn setup() { create_deck(\"main\", zone(\"deck\")); for p in 0..2 { draw(zone(\"deck\"), pzone(p, \"hand\")); set_counter(p, \"gold\", 3); } }\n\
                 fn turn() { let p = turn_number() % 2; choose(p, \"Act\", [\"Wait\", \"Win\"]); end_game([p], \"done\"); }\n",
            ),
        ];
        let pack = pack_of(root.path(), &files);
        let out = Shared::default();
        let input = std::io::Cursor::new(b"board\n1\n".to_vec());
        let agents: Vec<Box<dyn Agent>> =
            vec![bots::bot("first", 1, 0).unwrap(), Box::new(TablePlayer::new(input, out.clone()))];
        let (_, outcome) = Game::new(pack, GameConfig::new(1, 2), agents).unwrap().run();
        assert!(matches!(outcome.status, Status::Finished), "{:?}", outcome.status);
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains("You are P2: gold coins 3\n  your hand: Coin\n"), "{text}");
        assert!(text.contains("P1: gold coins 3\nP2 <- you: gold coins 3\n"), "{text}");
        assert!(text.contains("P1's hand: 1 card"), "{text}");
    }

    /// A `render_status` that fails in one position of the game is told once, the engine's
    /// view shown in its place, and drawn again where it works: one failure never hides
    /// the pack's own view for the rest of the game.
    #[test]
    fn a_status_that_fails_once_draws_again_afterwards() {
        let root = tempfile::tempdir().unwrap();
        let pack = solo_pack(
            root.path(),
            "fn setup() { set(\"n\", 0); }\n\
             fn turn() { set(\"n\", get(\"n\") + 1); choose(0, \"Act\", [\"Wait\", \"Rest\"]); if get(\"n\") == 4 { end_game([0], \"done\"); } }\n\
             fn render_status(viewer) { let n = get(\"n\"); if n == 2 || n == 3 { throw \"no map here\"; } `THE MAP at turn ${n}` }\n",
        );
        let (_, outcome, text) = play_alone(pack, b"1\n1\n1\n1\n");
        assert!(matches!(outcome.status, Status::Finished), "{:?}", outcome.status);
        assert!(text.contains("THE MAP at turn 1") && text.contains("THE MAP at turn 4"), "{text}");
        assert_eq!(text.matches("render_status() failed").count(), 1, "told once: {text}");
        assert!(text.contains("no map here"), "{text}");
    }

    /// `board` draws the map from board.toml, the rules' own `render` beneath it; a
    /// `render` that fails leaves the map in place (the engine's view draws it too).
    #[test]
    fn the_board_draws_the_map_and_the_rules_table_adds_to_it() {
        let root = tempfile::tempdir().unwrap();
        let files = [
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            (
                "content/p/board.toml",
                "[grid]\nwidth = 2\nheight = 1\nrows = [\"fw\"]\nlegend = { f = \"field\", w = \"wood\" }\n\n\
                 [[supply]]\nid = \"farmer\"\nname = \"Farmers\"\ncount = 3\n",
            ),
            (
                "scripts/p/rules.rhai",
                "fn setup() { set(\"n\", 0); place(\"farmer\", space(\"1,0\"), 0); }\n\
                 fn turn() { set(\"n\", get(\"n\") + 1); choose(0, \"Act\", [\"Wait\", \"Rest\"]); if get(\"n\") == 2 { end_game([0], \"done\"); } }\n\
                 fn render(viewer) { if get(\"n\") == 2 { throw \"no table here\"; } \"THE RULES' TABLE\" }\n",
            ),
        ];
        let pack = pack_of(root.path(), &files);
        let (_, outcome, text) = play_alone(pack, b"board\n1\nboard\n1\n");
        assert!(matches!(outcome.status, Status::Finished), "{:?}", outcome.status);
        let map = "  0   1\n0 f   w F\nkey: f field, w wood; F Farmers\n";
        assert!(text.contains(&format!("{map}THE RULES' TABLE")), "the rules' table under the map: {text}");
        assert!(text.contains("render() failed") && text.contains("no table here"), "{text}");
        assert_eq!(text.matches("0 f   w F").count(), 2, "the map at each `board`: {text}");
    }

    /// A choice the rules mark with `confirm` is asked again; "n" puts the menu back.
    #[test]
    fn a_choice_marked_confirm_is_asked_again() {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, "take-the-kingdom", LoadOptions::default()).pack.expect("pack loads"));
        let resign = rhai_map(&[("label", "Resign"), ("confirm", "Resigning ends the game. Resign?")]);
        let pass = rhai_map(&[("label", "Pass")]);
        let options = vec![pass, resign];
        let labels = vec!["Pass".to_string(), "Resign".to_string()];
        let req = action_request(&pack, &labels, &options);
        let ask = |input: &str| {
            let out = Shared::default();
            let mut h = HumanAgent::new(std::io::Cursor::new(input.as_bytes().to_vec()), out.clone());
            let got = h.choose(&req);
            let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
            (got, text)
        };
        let (got, text) = ask("2\nn\n1\n");
        assert_eq!(got, Ok(0), "{text}");
        assert!(text.contains("Resigning ends the game. Resign? (y/n)> not taken; choose again"), "{text}");
        assert_eq!(ask("2\ny\n").0, Ok(1));
        assert_eq!(ask("1\n").0, Ok(0));
    }

    /// "2 1 3" answers this menu and the next ones in turn, each said to be typed ahead;
    /// an answer the next menu cannot take drops the rest, and the menu is asked again.
    #[test]
    fn several_numbers_answer_the_next_menus_in_turn() {
        let project = Project::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
        let pack = Arc::new(load_pack(&project, "take-the-kingdom", LoadOptions::default()).pack.expect("pack loads"));
        let options = vec![rhai_map(&[("label", "Pass")]), rhai_map(&[("label", "Play")])];
        let labels = vec!["Pass".to_string(), "Play".to_string()];
        let req = action_request(&pack, &labels, &options);
        let out = Shared::default();
        let mut h = HumanAgent::new(std::io::Cursor::new(b"2 1 9 2\n1\n".to_vec()), out.clone());
        assert_eq!(h.choose(&req), Ok(1));
        assert!(h.answers_ahead());
        assert_eq!(h.choose(&req), Ok(0));
        // 9 is no option of the third menu: the rest is dropped, and the person asked.
        assert_eq!(h.choose(&req), Ok(0));
        assert!(!h.answers_ahead());
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains("choose 1-2> 1 (typed ahead)"), "{text}");
        assert!(
            text.contains("'9' (typed ahead) is not an option here: the answers typed ahead are dropped"),
            "{text}"
        );
        assert!(!text.contains("2 (typed ahead)"), "{text}");
    }

    /// Seat P1's "Your action" menu of `labels` (the options' maps `options`), at step 0.
    fn action_request<'a>(
        pack: &'a Arc<Pack>,
        labels: &'a [String],
        options: &'a [crown_engine::script::Dynamic],
    ) -> ChoiceRequest<'a> {
        ChoiceRequest {
            step: 0,
            player: 0,
            player_name: "P1",
            prompt: "Your action",
            count: labels.len(),
            labels,
            options,
            unavailable: &[],
            pack,
            fork: None,
            several: None,
        }
    }

    fn rhai_map(pairs: &[(&str, &str)]) -> crown_engine::script::Dynamic {
        crown_engine::script::map_of(pairs)
    }
}
