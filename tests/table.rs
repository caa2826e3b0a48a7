//! Playing a shipped pack at the terminal, as a person sees it (`crown play` with a
//! scripted standard input, one person against bots).
//!
//! Each game is played twice: by the `crown` binary, and in this process with the same
//! person at the same keyboard (the terminal's own `TablePlayer` writing to a buffer) and
//! a listener that checks every line at the moment it is shown against the table as it
//! stands. The binary's output must hold the in-process output whole, so what is checked
//! here is what the binary showed. The checks:
//!
//! - **no hidden card of another seat is named**: no narrated line, status or board shown
//!   to the person names a card that lies in another seat's hand (or face down before
//!   them) and that the person has never seen, unless a copy of that name is in sight
//!   (lines the rules tell the person alone, such as a look at a rival's hand, excepted);
//! - **every bot action is told**: after a bot's choices (a run of them, such as a card
//!   and then its target), a line naming the bot is shown before anyone else decides;
//!   narrated lines are sentences (no `card#12`, no `->`);
//! - **the person's counters are shown before each of their decisions** (the pack's
//!   `show_counters`, as `counters_text` writes them).

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::game::agent::{Agent, ChoiceRequest};
use crown_engine::game::narrate::Heard;
use crown_engine::game::view::Table;
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::script::api::with_game;
use crown_tools::table::Seen;
use crown_tools::terminal::TablePlayer;

use crate::common::{crown_bin, load_pack, repo_project};

/// A writer the test reads afterwards.
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

impl Shared {
    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
    fn text_from(&self, from: usize) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()[from..]).into_owned()
    }
}

/// What happened, in order.
#[derive(Debug, Clone)]
enum Event {
    /// A bot seat decided.
    Bot(usize),
    /// The person decided.
    Person,
    /// A line was told to the person.
    Told(String),
}

/// What the checks found.
#[derive(Default)]
struct Watch {
    events: Vec<Event>,
    /// Card instances the person has seen at some moment.
    seen: BTreeSet<u32>,
    /// Hidden names found in what was shown: (the text, the name).
    leaks: Vec<(String, String)>,
    /// Decisions of the person whose status lacked their counters: (status, counters).
    missing_counters: Vec<(String, String)>,
    /// Statuses shown (one per decision of the person).
    statuses: usize,
}

impl Watch {
    /// Note what `viewer` can see now; the names that must not be shown now.
    fn forbidden(&mut self, t: Table<'_>, viewer: usize) -> BTreeSet<String> {
        let s = t.state;
        let mut hidden = BTreeSet::new();
        let mut visible = BTreeSet::new();
        for c in 0..s.cards.len() as u32 {
            if t.can_see(viewer, c) {
                self.seen.insert(c);
                visible.insert(t.card_name(c).to_string());
                continue;
            }
            let z = s.effective_zone(c);
            if z == u32::MAX || self.seen.contains(&c) {
                continue;
            }
            let held = s.zones[z as usize].owner.or(s.cards[c as usize].owner);
            if held.is_some_and(|o| o as usize != viewer) {
                hidden.insert(t.card_name(c).to_string());
            }
        }
        hidden.difference(&visible).cloned().collect()
    }

    fn check(&mut self, text: &str, forbidden: &BTreeSet<String>) {
        for name in forbidden {
            if names_word(text, name) {
                self.leaks.push((text.to_string(), name.clone()));
            }
        }
    }
}

/// Whether `text` holds `name` as whole words.
fn names_word(text: &str, name: &str) -> bool {
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
        if !word(before) && !word(after) {
            return true;
        }
        from = at + name.len();
    }
    false
}

/// The person's seat: the terminal's own player, watched.
struct Person {
    inner: TablePlayer<std::io::Cursor<Vec<u8>>, Shared>,
    out: Shared,
    watch: Arc<Mutex<Watch>>,
}

impl Agent for Person {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let from = self.out.len();
        let viewer = req.player;
        let (forbidden, counters) = with_game(|g| {
            let f = self.watch.lock().unwrap().forbidden(g.table(), viewer);
            (f, g.counters_text(viewer, viewer))
        })
        .expect("the game is there while the person decides");
        let r = self.inner.choose(req);
        let shown = self.out.text_from(from);
        let mut w = self.watch.lock().unwrap();
        w.check(&shown, &forbidden);
        w.statuses += 1;
        if !shown.contains(&counters) {
            w.missing_counters.push((shown.clone(), counters));
        }
        w.events.push(Event::Person);
        r
    }
    fn hears_only_choices(&self) -> bool {
        true
    }
    fn only_choice(&mut self, pack: &Arc<Pack>, player: usize, prompt: &str, label: &str) {
        self.inner.only_choice(pack, player, prompt, label);
    }
    fn kind(&self) -> String {
        "human".into()
    }
}

/// A bot, watched.
struct Bot {
    inner: Box<dyn Agent>,
    seat: usize,
    watch: Arc<Mutex<Watch>>,
}

impl Agent for Bot {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let r = self.inner.choose(req);
        self.watch.lock().unwrap().events.push(Event::Bot(self.seat));
        r
    }
    fn kind(&self) -> String {
        self.inner.kind()
    }
}

/// A game at the terminal and what was checked.
struct Sitting {
    /// The binary's standard output.
    stdout: String,
    /// What the person was shown, in this process.
    shown: String,
    watch: Watch,
    game: Game,
    names: Vec<String>,
}

/// The person's keystrokes: a look at the board and the log, then options 1, 2, 3 in
/// turn, each followed by a `y` (which confirms a choice that asks, and is otherwise
/// refused as an option).
fn keystrokes(decisions: usize) -> String {
    let mut s = String::from("board\nlog\nhelp\n");
    for i in 0..decisions {
        s.push_str(&format!("{}\ny\n", 1 + i % 3));
    }
    s
}

/// Play `pack` with the person in seat 0 and `bots` in the other seats, in the binary and
/// in this process.
fn sit(pack_id: &str, scenario: Option<&str>, seed: u64, bots: &[&str], input: &str) -> Sitting {
    let players = 1 + bots.len();
    let mut kinds = vec!["human".to_string()];
    kinds.extend(bots.iter().map(|b| b.to_string()));
    let mut args = vec![
        "play".to_string(),
        pack_id.to_string(),
        "--seed".into(),
        seed.to_string(),
        "--players".into(),
        players.to_string(),
        "--agents".into(),
        kinds.join(","),
    ];
    if let Some(s) = scenario {
        args.push("--scenario".into());
        args.push(s.into());
    }
    let stdout = run_bin(&args, input);

    let pack: Arc<Pack> = load_pack(&repo_project(), pack_id).unwrap();
    let watch = Arc::new(Mutex::new(Watch::default()));
    let out = Shared::default();
    let seen = Seen::default();
    let mut agents: Vec<Box<dyn Agent>> = Vec::new();
    agents.push(Box::new(Person {
        inner: TablePlayer::with_log(std::io::Cursor::new(input.as_bytes().to_vec()), out.clone(), seen.clone()),
        out: out.clone(),
        watch: watch.clone(),
    }));
    for (i, b) in bots.iter().enumerate() {
        let inner = bots::bot(b, seed, i + 1).unwrap();
        agents.push(Box::new(Bot { inner, seat: i + 1, watch: watch.clone() }));
    }
    let mut cfg = GameConfig::new(seed, players);
    cfg.scenario = scenario.map(str::to_string);
    let mut game = Game::new(pack, cfg, agents).unwrap();
    let (w, mut o, told) = (watch.clone(), out.clone(), seen);
    game.listener = Some(Box::new(move |heard: Heard<'_>, t: Table<'_>| {
        if let Heard::Said(s) = heard {
            let mut w = w.lock().unwrap();
            let forbidden = w.forbidden(t, 0);
            if let Some(line) = s.for_seat(0) {
                // Each turn opens with its header, as the binary's listener writes it.
                let mut told = told.lock().unwrap();
                if let Some(h) = crown_tools::table::new_header(told.iter().map(String::as_str), &t) {
                    let _ = writeln!(o, "{h}");
                    told.push(h);
                }
                let _ = writeln!(o, "{line}");
                told.push(line.to_string());
                // A line the rules tell the person alone may name what the rules let them
                // see (a look at a rival's hand); every other line is checked.
                if !s.to.contains(&0) {
                    w.check(line, &forbidden);
                }
                w.events.push(Event::Told(line.to_string()));
            }
        } else {
            // Every event moves cards: keep track of what the person saw.
            w.lock().unwrap().forbidden(t, 0);
        }
    }));
    let (game, outcome) = game.run();
    if let Status::Failed(f) = &outcome.status {
        panic!("{pack_id}: the game failed: {f}\n{}", tail(&out.text_from(0)));
    }
    let names = game.state.players.iter().map(|p| p.name.clone()).collect();
    let shown = out.text_from(0);
    let watch = std::mem::take(&mut *watch.lock().unwrap());
    Sitting { stdout, shown, watch, game, names }
}

fn run_bin(args: &[String], input: &str) -> String {
    let (out, status, err) = spawn_bin(args, input);
    assert!(status.success(), "crown {} failed: {err}\n{}", args.join(" "), tail(&out));
    out
}

/// The binary run with `input` on its standard input: its output, exit status and errors.
fn spawn_bin(args: &[String], input: &str) -> (String, std::process::ExitStatus, String) {
    let mut child = Command::new(crown_bin())
        .args(args)
        .current_dir(repo_project().root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the crown binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let keys = input.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(keys.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    let _ = feeder.join();
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

impl Sitting {
    /// Every check of the module's header; `what` names the game in messages.
    fn assert_all(&self, what: &str) {
        if !self.stdout.contains(&self.shown) {
            // Where the two part: the first line of this process's output the binary's
            // output does not have at that place.
            let start = self.shown.lines().next().and_then(|l| self.stdout.find(l)).unwrap_or(0);
            let (a, b): (Vec<&str>, Vec<&str>) = (self.shown.lines().collect(), self.stdout[start..].lines().collect());
            let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            panic!(
                "{what}: the binary showed something else than the same game played here, from line {i}:\n--- here:\n{}\n--- binary:\n{}",
                a[i.saturating_sub(5)..(i + 5).min(a.len())].join("\n"),
                b[i.saturating_sub(5)..(i + 5).min(b.len())].join("\n")
            );
        }
        let w = &self.watch;
        assert!(w.statuses > 3, "{what}: the person decided only {} times", w.statuses);
        if let Some((text, name)) = w.leaks.first() {
            panic!("{what}: {} hidden card name(s) shown; first: `{name}` in:\n{text}", w.leaks.len());
        }
        if let Some((status, counters)) = w.missing_counters.first() {
            panic!("{what}: the person's counters `{counters}` were not shown before a decision:\n{status}");
        }
        // Every run of a bot's choices is told in a line naming the bot before anyone
        // else decides.
        let mut pending: Option<(usize, usize)> = None;
        let silent = |seat: usize, at: usize| -> String {
            let from = at.saturating_sub(12);
            let around: Vec<String> = self.watch.events[from..(at + 3).min(self.watch.events.len())]
                .iter()
                .map(|e| format!("{e:?}"))
                .collect();
            format!("{what}: {} acted and nothing said so:\n{}", self.names[seat], around.join("\n"))
        };
        for (i, e) in w.events.iter().enumerate() {
            match e {
                Event::Bot(s) => match pending {
                    Some((p, at)) if p != *s => panic!("{}", silent(p, at)),
                    Some(_) => {}
                    None => pending = Some((*s, i)),
                },
                Event::Person => {
                    if let Some((p, at)) = pending {
                        panic!("{}", silent(p, at));
                    }
                }
                Event::Told(line) => {
                    assert!(
                        !line.contains(" -> ") && !line.contains('#'),
                        "{what}: a narrated line in the engine's notation: {line}"
                    );
                    if let Some((p, _)) = pending {
                        if names_word(line, &self.names[p]) {
                            pending = None;
                        }
                    }
                }
            }
        }
        if let Some((p, at)) = pending {
            panic!("{}", silent(p, at));
        }
    }

    fn bot_decisions(&self) -> usize {
        self.watch.events.iter().filter(|e| matches!(e, Event::Bot(_))).count()
    }
}

#[test]
fn take_the_kingdom_at_the_terminal() {
    let s = sit("take-the-kingdom", None, 3, &["random", "greedy"], &keystrokes(400));
    s.assert_all("take-the-kingdom");
    assert!(s.bot_decisions() > 20);
    // The person's own draws are told by name, the others' by number.
    assert!(s.shown.contains("P1 draws "), "{}", tail(&s.shown));
    assert!(s.shown.lines().any(|l| l.starts_with("P2 draws ") && l.ends_with(" cards")), "{}", tail(&s.shown));
    assert!(s.game.state.players.len() == 3);
}

#[test]
fn take_the_kingdom_solo_at_the_terminal() {
    let s = sit("take-the-kingdom", Some("solo-easy"), 5, &["first", "first"], &keystrokes(200));
    s.assert_all("take-the-kingdom solo");
    // The enemy kingdoms are run by the rules; what they do is told all the same.
    assert!(s.shown.contains("Enemy 1 "), "{}", tail(&s.shown));
}

#[test]
fn the_last_kingdom_at_the_terminal() {
    let s = sit("the-last-kingdom", None, 2, &["random", "greedy"], &keystrokes(600));
    s.assert_all("the-last-kingdom");
    assert!(s.bot_decisions() > 20);
}

#[test]
fn the_last_kingdom_two_players_at_the_terminal() {
    let s = sit("the-last-kingdom", None, 4, &["greedy"], &keystrokes(600));
    s.assert_all("the-last-kingdom, 2 players");
    assert!(s.bot_decisions() > 20);
}

#[test]
fn kingdom_legacy_at_the_terminal() {
    let s = sit("kingdom-legacy", Some("prologue"), 1, &[], &keystrokes(3000));
    // A solo game: no other seat, no bot; the person's state before every decision.
    assert!(s.stdout.contains(&s.shown), "{}", tail(&s.stdout));
    assert!(s.watch.missing_counters.is_empty(), "{:?}", s.watch.missing_counters.first());
    assert!(s.watch.statuses > 20);
}

#[test]
fn crownfields_at_the_terminal() {
    let s = sit("crownfields", None, 3, &["greedy", "random"], &keystrokes(200));
    s.assert_all("crownfields");
    assert!(s.bot_decisions() > 20);
    // Before each decision the row and every realm, square by square, the person's first.
    assert!(s.shown.contains("The row, left to right: Tile "), "{}", tail(&s.shown));
    assert!(s.shown.contains("Your realm:\n") && s.shown.contains("P2's realm (seeds "), "{}", tail(&s.shown));
    assert!(s.shown.lines().any(|l| l.contains("keep")), "{}", tail(&s.shown));
}

#[test]
fn kingdoms_in_conflict_at_the_terminal() {
    let s = sit("kingdoms-in-conflict", None, 1, &["greedy"], &keystrokes(400));
    s.assert_all("kingdoms-in-conflict");
    assert!(s.bot_decisions() > 20);
    // The board is drawn on request only, not at every decision.
    let boards = s.shown.matches("Tiles:").count();
    assert!(boards <= 2, "the board was drawn {boards} times");
    // Each seat's status line agrees with its stock and units lines below it.
    let checked = kic_status_agrees(&s.shown);
    assert!(checked > 20, "only {checked} status blocks");
}

/// Check every Kingdoms in Conflict status block in `shown` ("units U, walls W, food F,
/// materials M", then "stock: ...", then "units: ..." when there are any): food is the
/// livestock, grain and fish in stock, materials the metal, stone and wood, units the
/// units listed. Gives how many blocks were checked.
fn kic_status_agrees(shown: &str) -> usize {
    let lines: Vec<&str> = shown.lines().collect();
    let number_before = |text: &str, word: &str| -> i64 {
        let at = text.find(&format!(" {word}")).unwrap_or_else(|| panic!("no {word} in {text}"));
        text[..at].rsplit(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    let mut checked = 0;
    for (i, l) in lines.iter().enumerate() {
        // (The board's compact lines, "units 0, walls 0, upkeep 0 food; L0 G0 ...", differ.)
        let Some(at) = l.find("): units ").filter(|_| l.contains(", materials ")) else { continue };
        let counts = &l[at + 3..];
        let after = |word: &str| -> i64 {
            let from = counts.find(&format!("{word} ")).unwrap() + word.len() + 1;
            counts[from..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
        };
        let stock = lines[i + 1].trim().strip_prefix("stock: ").unwrap_or_else(|| panic!("no stock line after {l}"));
        let food: i64 = ["livestock", "grain", "fish"].iter().map(|r| number_before(stock, r)).sum();
        let materials: i64 = ["metal", "stone", "wood"].iter().map(|r| number_before(stock, r)).sum();
        let units = match lines.get(i + 2).and_then(|u| u.trim().strip_prefix("units: ")) {
            Some(u) => u.matches(" at ").count() as i64,
            None => 0,
        };
        assert_eq!(
            (after("units"), after("food"), after("materials")),
            (units, food, materials),
            "{l}\n{}",
            lines[i + 1]
        );
        checked += 1;
    }
    checked
}

/// `--log public` tells the person what a spectator is told (their own draws by number);
/// `--log debug` says what it shows and shows the engine's lines.
#[test]
fn log_levels() {
    let args = |level: &str| -> Vec<String> {
        ["play", "take-the-kingdom", "--seed", "3", "--agents", "human,random", "--log", level]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let public = run_bin(&args("public"), &keystrokes(300));
    assert!(public.contains("public log:"), "{}", tail(&public));
    assert!(public.lines().any(|l| l.starts_with("P1 draws ") && l.ends_with(" cards")), "{}", tail(&public));
    assert!(!public.contains("move "), "{}", tail(&public));
    let debug = run_bin(&args("debug"), &keystrokes(300));
    assert!(debug.contains("debug log: every transcript line"), "{}", tail(&debug));
    assert!(debug.lines().any(|l| l.starts_with("move ") && l.contains("hand@P2")), "{}", tail(&debug));
    assert!(debug.contains("to P2: P2 draws "), "{}", tail(&debug));
    let bad = Command::new(crown_bin())
        .args(["play", "take-the-kingdom", "--log", "loud"])
        .current_dir(repo_project().root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("public, private, debug"));
}

/// Numbers agree with their nouns in everything a table shows: three games of each
/// shipped pack played by random bots through `crown play` (narration, the status the
/// rules draw, the end), never "1 Danes", "1 cards" or "P1 and P2 wins". A word after
/// "1" is wrong when it is the plural of another word (`count_words` makes it from one),
/// unless it is a counter the pack names (a resource called "wares") or the "1" is the
/// number in a name ("Land 1 springs", a tile "2,1").
#[test]
fn numbers_agree_with_their_nouns() {
    let project = repo_project();
    let mut found = Vec::new();
    for id in crate::common::SHIPPED_PACKS {
        let pack = load_pack(&project, id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let m = &pack.manifest;
        let named: BTreeSet<&str> = (m.counter_names.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()]))
            .chain(m.show_counters.iter().map(String::as_str))
            .collect();
        for seed in 1..=3 {
            let args: Vec<String> =
                ["play", id, "--agents", "random", "--seed", &seed.to_string()].iter().map(|s| s.to_string()).collect();
            let shown = run_bin(&args, "");
            for line in shown.lines() {
                if let Some(w) = plural_after_one(line).filter(|w| !named.contains(w)) {
                    found.push(format!("{id} seed {seed}: \"1 {w}\" in: {line}"));
                }
                // "P1 and P2 wins": several winners in the clause before "wins".
                if let Some(i) = line.find(" wins") {
                    if line[..i].rsplit([':', ';', '.']).next().is_some_and(|c| c.contains(" and ")) {
                        found.push(format!("{id} seed {seed}: several winners with \"wins\": {line}"));
                    }
                }
            }
        }
    }
    found.dedup();
    assert!(found.is_empty(), "numbers that disagree with their nouns:\n{}", found.join("\n"));
}

/// The first word after a "1" that is the plural of another word, where the "1" counts
/// something: not a name's number ("Land 1 springs": a capitalised word before it) nor
/// part of a pair of numbers ("2,1").
fn plural_after_one(line: &str) -> Option<&str> {
    let words: Vec<&str> = line.split(' ').collect();
    for i in 0..words.len().saturating_sub(1) {
        if words[i].trim_start_matches(['(', '[']) != "1" {
            continue;
        }
        let named = i > 0
            && words[i - 1].chars().next().is_some_and(char::is_uppercase)
            && words[i - 1].chars().all(char::is_alphanumeric);
        let next = words[i + 1].trim_end_matches([',', '.', ';', ':', ')', ']']);
        if named || !next.chars().all(char::is_alphabetic) || !next.ends_with('s') {
            continue;
        }
        let stems = [
            next.strip_suffix("ies").map(|s| format!("{s}y")),
            next.strip_suffix("es").map(String::from),
            next.strip_suffix('s').map(String::from),
        ];
        let plural = stems
            .iter()
            .flatten()
            .any(|stem| !stem.is_empty() && crown_engine::diag::count_words(2, stem, None) == format!("2 {next}"));
        if plural {
            return Some(next);
        }
    }
    None
}

/// `preview 1` at the first decision of a seeded game of each shipped pack shows a
/// consequence: at least one score, counter, card, piece or square that changes, under
/// "what changes:".
#[test]
fn the_first_preview_of_every_pack_shows_what_changes() {
    for id in crate::common::SHIPPED_PACKS {
        let args: Vec<String> =
            ["play", id, "--agents", "human", "--seed", "1"].iter().map(|s| s.to_string()).collect();
        let (out, _, _) = spawn_bin(&args, "preview 1\n");
        let at = out.find("if you take 1").unwrap_or_else(|| panic!("{id}: no preview shown\n{}", tail(&out)));
        let preview = &out[at..];
        let changes = preview.split_once("what changes:\n").map(|(_, rest)| rest).unwrap_or("");
        let first = changes.lines().next().unwrap_or("");
        assert!(
            first.starts_with("    ") && !first.trim().is_empty(),
            "{id}: the preview shows no change:\n{}",
            &preview[..preview.len().min(2000)]
        );
    }
}

/// The end screen of a played game of each shipped pack explains the winner's score: at
/// least two of its parts ("Castle 9, Land 1 9"), for the winner (or the one seat of a
/// solo game).
#[test]
fn every_end_screen_names_the_parts_of_the_winners_score() {
    for id in crate::common::SHIPPED_PACKS {
        let args: Vec<String> =
            ["play", id, "--agents", "random", "--seed", "2"].iter().map(|s| s.to_string()).collect();
        let out = run_bin(&args, "");
        let end =
            out.split_once("── the end ──\n").map(|(_, e)| e).unwrap_or_else(|| panic!("{id}: no end\n{}", tail(&out)));
        let lines: Vec<&str> = end.lines().collect();
        let winner = lines[0].split_once(" win").map(|(w, _)| w.to_string());
        let at = lines.iter().position(|l| l.starts_with("final score")).expect("final scores");
        let rows: Vec<&str> = lines[at + 1..].iter().take_while(|l| l.starts_with("  ")).copied().collect();
        let row = match &winner {
            Some(w) if rows.len() > 1 => rows.iter().find(|r| r.trim_start().starts_with(w.as_str())).copied(),
            _ => rows.first().copied(),
        }
        .unwrap_or_else(|| panic!("{id}: no score row for the winner\n{end}"));
        // The parts follow the score after three spaces, and hold no three spaces.
        let parts = row.trim_start().rsplit_once("   ").map_or("", |(_, p)| p);
        let parts = parts.split(';').next().unwrap_or("");
        let named =
            parts.split(", ").filter(|p| p.rsplit_once(' ').is_some_and(|(_, n)| n.parse::<i64>().is_ok())).count();
        assert!(named >= 2, "{id}: the winner's score is not explained: {row}\n{end}");
    }
}

/// `help WORD` for a word the rules define in bold answers from the rules: Kingdom
/// Legacy's "block", The Last Kingdom's "momentum", a board space's text for "Mercia".
#[test]
fn help_answers_rules_words_from_the_rules() {
    let project = repo_project();
    let kl = load_pack(&project, "kingdom-legacy").unwrap();
    let block = crown_tools::explain::help(&kl, "block");
    assert!(block.starts_with("rules.md, «"), "{block}");
    assert!(block.lines().next().unwrap().contains("Block a card: it lies under the blocking card"), "{block}");
    let tlk = load_pack(&project, "the-last-kingdom").unwrap();
    let mercia = crown_tools::explain::help(&tlk, "Mercia");
    assert!(mercia.starts_with("Mercia (board space): The midland kingdom"), "{mercia}");
    // A value kept off the faces (`[print] hide_values`) is the rules' own: help leaves it out.
    let ttk = load_pack(&project, "take-the-kingdom").unwrap();
    let famine = crown_tools::explain::help(&ttk, "famine");
    assert!(
        famine.starts_with("Famine (penalty)") && !famine.contains("lasts_round") && !famine.contains("solo"),
        "{famine}"
    );
    let nothing = crown_tools::explain::help(&tlk, "xylophone");
    assert!(nothing.contains("its rules do not use the word"), "{nothing}");
}

/// A pack of `n` cards a kind, each card a name of its own, written under `root`: the
/// person (seat 0) holds the wrens; the other seat's flints and the deck's larches are
/// never theirs to see. Each play passes the deck's top card into the other seat's hand,
/// and a second choice may shuffle the deck (with the game's own random stream).
fn unseen_names_pack(root: &std::path::Path, n: usize) {
    let mut cards = String::new();
    for (name, kind, deck) in [("Wren", "bird", "wrens"), ("Flint", "stone", "flints"), ("Larch", "tree", "larches")] {
        for i in 1..=n {
            cards.push_str(&format!(
                "[[card]]\nid = \"{}-{i:02}\"\nname = \"{name} {i:02}\"\nkind = \"{kind}\"\ncount = 1\n\
                 values = {{ points = {} }}\ntext = \"Score its points.\"\ndecks = [\"{deck}\"]\n\n",
                name.to_lowercase(),
                1 + i % 5
            ));
        }
    }
    let files = [
        (
            "content/unseen/pack.toml",
            "id = \"unseen\"\nname = \"Unseen\"\nversion = \"0.1.0\"\ndescription = \"Cards the person never sees.\"\n\
             players = { min = 2, max = 2 }\ncard_size = \"poker\"\nmax_turns = 400\nshow_counters = [\"points\"]\n\n\
             [zones]\nvault = \"owner\"\n"
                .to_string(),
        ),
        ("content/unseen/cards/cards.toml", cards),
        (
            "content/unseen/scenarios/standard.toml",
            "id = \"standard\"\nname = \"Standard game\"\ntext = \"Play every card.\"\ndefault = true\n".to_string(),
        ),
        (
            "scripts/unseen/rules.rhai",
            r#"fn setup() {
    create_deck("wrens", pzone(0, "hand"));
    create_deck("flints", pzone(1, "hand"));
    create_deck("larches", zone("deck"));
    shuffle(zone("deck"));
    set_current(0);
}

fn turn() {
    let p = current();
    if count(pzone(0, "hand")) == 0 {
        for s in 0..players() {
            set_score(s, counter(s, "points"));
        }
        let a = counter(0, "points");
        let b = counter(1, "points");
        end_game(if a > b { [0] } else if b > a { [1] } else { [0, 1] }, "the wrens are played");
        return;
    }
    let options = [];
    for c in cards(pzone(p, "hand")) {
        options.push(#{ label: "Play " + name_of(c), card: c });
    }
    let pick = choose(p, "Play a card", options);
    move_card(pick.card, pzone(p, "vault"));
    let weight = 0;
    for d in cards(pzone(1, "hand")) {
        weight += value(d, "points");
    }
    add_counter(p, "points", value(pick.card, "points") + weight % 2);
    draw(zone("deck"), pzone(1, "hand"));
    let then = choose(p, "Then", [#{ label: "Leave the deck", stir: false }, #{ label: "Stir the deck", stir: true }]);
    if then.stir {
        shuffle(zone("deck"));
    }
    advance();
}
"#
            .to_string(),
        ),
    ];
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `preview N` of every option and `compare` before every choice change nothing of the
/// game: its transcript (every seat's cards, every random draw) is byte for byte that of
/// the same answers without them. And they show nothing the person's seat cannot see: in
/// a pack whose cards each have a name of their own, the other seat's hand and the deck
/// (dealt again at random on every preview's copy, and fed from one another by every
/// play) are never named before the game is over. The same with four seats of The Last
/// Kingdom (transcripts).
#[test]
fn previews_of_every_option_change_nothing_and_show_nothing_hidden() {
    let dir = tempfile::tempdir().unwrap();
    unseen_names_pack(dir.path(), 12);
    let project = dir.path().to_string_lossy().into_owned();
    let games: [(&str, Vec<&str>); 2] = [
        ("unseen", vec!["--project", project.as_str(), "play", "unseen", "--agents", "human,first"]),
        (
            "the-last-kingdom",
            vec!["play", "the-last-kingdom", "--seed", "2", "--players", "4", "--agents", "human,random,greedy,first"],
        ),
    ];
    // Options 1, 2, 3 in turn, each followed by a `y` (as `keystrokes`); with previews,
    // `preview 1` to `preview 40` and `compare` first, at whatever decision stands.
    let answers = |previews: bool| -> String {
        let looks: String = (1..=40).map(|k| format!("preview {k}\n")).chain(["compare\n".to_string()]).collect();
        (0..400).map(|i| format!("{}{}\ny\n", if previews { looks.as_str() } else { "" }, 1 + i % 3)).collect()
    };
    for (what, args) in &games {
        let mut runs = Vec::new();
        for previews in [false, true] {
            let transcript = dir.path().join(format!("{what}-{previews}.transcript"));
            let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            a.extend(["--transcript".to_string(), transcript.to_string_lossy().into_owned()]);
            let out = run_bin(&a, &answers(previews));
            let t = std::fs::read_to_string(&transcript)
                .unwrap_or_else(|e| panic!("{what}: no transcript written ({e}):\n{}", tail(&out)));
            runs.push((out, t));
        }
        let ((plain, plain_t), (looked, looked_t)) = (&runs[0], &runs[1]);
        // Every menu had 40 options at most, so each of its options was previewed.
        let widest = looked
            .split("choose 1-")
            .skip(1)
            .filter_map(|s| s.split_once("> ").and_then(|(n, _)| n.parse::<usize>().ok()))
            .max()
            .unwrap_or(0);
        assert!((2..=40).contains(&widest), "{what}: menus of up to {widest} options");
        let previews = looked.matches("if you take ").count();
        assert!(previews > 20, "{what}: only {previews} previews shown:\n{}", tail(looked));
        assert!(looked.contains("(played on a copy of the table"), "{what}: no compare shown:\n{}", tail(looked));
        assert!(plain.contains("game over: ") && looked.contains("game over: "), "{what}: a game did not end");
        if plain_t != looked_t {
            let (a, b): (Vec<&str>, Vec<&str>) = (plain_t.lines().collect(), looked_t.lines().collect());
            let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            panic!(
                "{what}: the game with previews went otherwise, from transcript line {}:\n--- without:\n{}\n--- with:\n{}",
                i + 1,
                a[i.saturating_sub(3)..(i + 3).min(a.len())].join("\n"),
                b[i.saturating_sub(3)..(i + 3).min(b.len())].join("\n")
            );
        }
        if *what == "unseen" {
            for (out, how) in [(plain, "without previews"), (looked, "with previews")] {
                // Up to the end, which reveals what the seat could not see.
                let out = &out[..out.find("game over: ").unwrap_or(out.len())];
                for hidden in ["Flint", "Larch"] {
                    if let Some(at) = out.find(hidden) {
                        let from = out[..at].rfind("\n\n").unwrap_or(0);
                        panic!("{how}: a {hidden} card is named:\n{}", &out[from..(at + 200).min(out.len())]);
                    }
                }
            }
            // The previews did deal the unseen cards again, and told what changed of them.
            assert!(looked.contains("P2's hand 12 → 13 cards"), "{}", tail(looked));
            assert!(looked.contains("cards you cannot see are dealt there at random"), "{}", tail(looked));
        }
    }
}
