//! A small game played in rounds, the kind a Love-Letter-style pack is: the first seat to
//! a target wins the round, and the seat with most rounds wins the game. It checks what
//! `crown sim` says of rounds (rounds won by seat, round lengths, cards per round), that a
//! forced discard counts as discarded and not as never played, and that a recorded game
//! replays by its options' keys when a label that shows a value changes.

use std::path::Path;

use crown_engine::game::record::{GameFile, Seat};
use crown_engine::load::Project;
use serde_json::Value;

use crate::common::{copy_dir, crown_bin, load_pack};

const CARDS: &str = r#"
[[card]]
id = "coin"
name = "Coin"
kind = "treasure"
count = 10
values = { points = 1 }
text = "Score 1 point."
decks = ["main"]

[[card]]
id = "chest"
name = "Chest"
kind = "treasure"
count = 5
values = { points = 3 }
text = "Score 3 points."
decks = ["main"]

[[card]]
id = "crown"
name = "Crown"
kind = "treasure"
count = 2
values = { points = 5 }
text = "Score 5 points."
decks = ["main"]
"#;

const SCENARIO: &str = r#"
id = "standard"
name = "Three rounds"
text = "First to 6 points wins the round; most rounds wins."
default = true
options = { target = 6, hand = 3, rounds = 3 }
"#;

/// The rules; `LABEL` is how a card to play is offered (the test changes it).
const RULES: &str = r#"
fn setup() {
    let deck = zone("deck");
    create_deck("main", deck);
    shuffle(deck);
    for p in 0..players() {
        for i in 0..option("hand") { draw(deck, pzone(p, "hand")); }
    }
    begin_round();
    set_current(0);
}

// A round begins: points back to 0; from the second round on, each seat must discard a
// card from its hand and draws two.
fn begin_round() {
    next_round();
    for p in 0..players() { set_counter(p, "points", 0); }
    if round() == 1 { return; }
    for p in 0..players() {
        let hand = pzone(p, "hand");
        if count(hand) == 0 { continue; }
        let opts = [];
        for c in cards(hand) {
            opts.push(#{ label: `Discard ${name_of(c)}`, key: `discard:${def_of(c)}`, card: c });
        }
        let o = choose(p, "A new round: discard a card", opts);
        note_discard(p, o.card);
        move_card(o.card, zone("discard"));
        for i in 0..2 {
            if count(zone("deck")) > 0 { draw(zone("deck"), hand); }
        }
    }
}

fn turn() {
    let p = current();
    let hand = pzone(p, "hand");
    if count(hand) == 0 {
        finish("the cards ran out");
        return;
    }
    let options = [];
    for c in cards(hand) {
        options.push(#{ label: LABEL, key: `play:${def_of(c)}`, card: c });
    }
    let pick = choose(p, "Play a card", options);
    note_play(p, pick.card);
    move_card(pick.card, zone("discard"));
    add_counter(p, "points", value(pick.card, "points"));
    if count(zone("deck")) > 0 { draw(zone("deck"), hand); }
    if counter(p, "points") >= option("target") {
        win_round(p);
        add_counter(p, "rounds", 1);
        log(`${player_name(p)} wins round ${round()}`);
        if round() == option("rounds") {
            finish("the last round is played");
            return;
        }
        begin_round();
    }
    advance();
}

fn finish(reason) {
    let best = -1;
    let winners = [];
    for p in 0..players() {
        set_score(p, counter(p, "rounds"));
        if counter(p, "rounds") > best {
            best = counter(p, "rounds");
            winners = [p];
        } else if counter(p, "rounds") == best {
            winners.push(p);
        }
    }
    end_game(winners, reason);
}
"#;

/// A project holding the rounds game, its play label given.
fn project(label: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/invalid/_base/tiny");
    copy_dir(&base.join("content/tiny"), &dir.path().join("content/tiny")).unwrap();
    write_game(dir.path(), label);
    dir
}

fn write_game(root: &Path, label: &str) {
    let pack = root.join("content/tiny");
    std::fs::remove_file(pack.join("cards/cards.toml")).ok();
    std::fs::write(pack.join("cards/cards.toml"), CARDS).unwrap();
    std::fs::write(pack.join("scenarios/standard.toml"), SCENARIO).unwrap();
    std::fs::create_dir_all(root.join("scripts/tiny")).unwrap();
    std::fs::write(root.join("scripts/tiny/rules.rhai"), RULES.replace("LABEL", label)).unwrap();
}

fn sim(root: &Path, args: &[&str]) -> Value {
    let o = std::process::Command::new(crown_bin())
        .args(["--project", &root.to_string_lossy(), "sim", "tiny", "--json"])
        .args(args)
        .output()
        .expect("crown runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {err}"))
}

#[test]
fn rounds_are_counted_won_by_seat_and_cards_per_round() {
    let dir = project("`Play ${name_of(c)} (${value(c, \"points\")})`");
    let v = sim(dir.path(), &["--games", "60", "--agents", "greedy"]);
    let r = &v["rounds"];
    assert_eq!(r["games"], 60, "{r}");
    // Every finished game has three rounds, each won by one seat.
    let finished = v["finished"].as_u64().unwrap();
    assert_eq!(finished, 60, "{v}");
    assert_eq!(r["per_game"]["min"], 3, "{r}");
    assert_eq!(r["per_game"]["max"], 3, "{r}");
    assert_eq!(r["closed"], 180, "every round of a finished game came to its end: {r}");
    // A round is won by reaching the target, or ends with nobody winning when the cards
    // run out (the game then ends too).
    let decided = r["decided"].as_u64().unwrap();
    assert!((120..=180).contains(&decided), "{r}");
    assert_eq!(r["no_winner"], 0, "{r}");
    let won: u64 = r["seats"].as_array().unwrap().iter().map(|s| s["wins"].as_u64().unwrap()).sum();
    assert_eq!(won, decided, "each decided round has one winner: {r}");
    assert_eq!(r["seat_rounds"]["games"].as_u64().unwrap(), 2 * decided, "two seats a round: {r}");
    assert!(r["length"]["mean"].as_f64().unwrap() > 2.0, "{r}");
    // Cards per round: the Crown (5 points) wins more rounds when played than when not.
    let crown = &r["cards"]["crown"];
    assert!(crown["played"]["games"].as_u64().unwrap() > 0, "{crown}");
    assert!(crown["improvement_played"]["value"].as_f64().unwrap() > 0.0, "{crown}");
    // Forced discards are counted apart, not as "never played".
    assert_eq!(v["discards_recorded"], true);
    let discarded: u64 =
        v["cards"].as_object().unwrap().values().map(|c| c["discarded"]["games"].as_u64().unwrap()).sum();
    assert!(discarded > 0, "{}", v["cards"]);
    // The terminal table says the same.
    let o = std::process::Command::new(crown_bin())
        .args(["--project", &dir.path().to_string_lossy(), "sim", "tiny", "--games", "20"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("rounds: 3.0 a game"), "{text}");
    assert!(text.contains("rounds won by seat"), "{text}");
    assert!(text.contains("cards, per seat-round"), "{text}");
    assert!(text.contains("discarded"), "{text}");
}

#[test]
fn a_pack_with_rounds_but_no_round_winners_says_so() {
    let v = crate::sim::sim_json(&["the-last-kingdom", "--games", "4"]);
    let r = &v["rounds"];
    assert_eq!(r["games"], 4, "{r}");
    assert_eq!(r["decided"], 0, "{r}");
    assert!(r["length"]["mean"].as_f64().unwrap() > 0.0, "{r}");
    let v = crate::sim::sim_json(&["kingdoms-in-conflict", "--games", "2"]);
    assert!(v["rounds"].is_null(), "a pack that keeps no rounds has no rounds section: {}", v["rounds"]);
    // Nor a table of characters when it has none.
    assert_eq!(v["characters"], serde_json::json!({}), "{}", v["characters"]);
}

#[test]
fn a_recorded_game_replays_by_key_when_a_label_changes() {
    let dir = project("`Play ${name_of(c)} (${value(c, \"points\")})`");
    let pack = load_pack(&Project::new(dir.path()), "tiny").unwrap();
    // Play a game with bots, then pin every choice as a person's.
    let bots = GameFile {
        pack: "tiny".into(),
        scenario: None,
        seed: 11,
        players: vec!["Ann".into(), "Bo".into()],
        agents: vec!["random".into(), "random".into()],
        fallback: None,
        description: String::new(),
        continued: vec![],
        choices: vec![],
        superseded: vec![],
    };
    let (game, outcome, before) = bots.replay(pack).unwrap();
    assert!(matches!(outcome.status, crown_engine::game::Status::Finished), "{before}");
    let mut file = GameFile::from_game(&game, vec!["human".into(), "human".into()], "pinned".into());
    assert_eq!(file.seat(0), Seat::Person);
    assert!(file.choices.len() > 6, "{}", file.to_toml());
    assert!(file.choices.iter().all(|c| c.key.is_some()), "every option has a key: {}", file.to_toml());
    let text = file.to_toml();
    assert!(text.contains("key = \"play:"), "{text}");
    file = GameFile::parse(&text).unwrap();

    // The label now shows the value differently: the game replays by key to the same end.
    write_game(dir.path(), "`Play ${name_of(c)}, worth ${value(c, \"points\")}`");
    let pack = load_pack(&Project::new(dir.path()), "tiny").unwrap();
    let r = file.replay_full(pack.clone()).unwrap();
    assert!(r.continued.is_empty(), "replayed by key, no fallback: {:?}\n{}", r.continued, r.transcript);
    assert_eq!(r.outcome.winners, outcome.winners);
    assert!(r.transcript.contains(", worth "), "{}", r.transcript);
    assert_eq!(
        r.transcript.lines().filter(|l| !l.contains("Play ")).collect::<Vec<_>>(),
        before.lines().filter(|l| !l.contains("Play ")).collect::<Vec<_>>(),
        "only the labels changed"
    );

    // Without keys the same change breaks the recording: the fallback bot takes over.
    let mut no_keys = file.clone();
    for c in &mut no_keys.choices {
        c.key = None;
    }
    let r = no_keys.replay_full(pack).unwrap();
    assert!(!r.continued.is_empty(), "a changed label is no longer offered without a key");
}

#[test]
fn two_options_with_one_key_are_an_error() {
    let dir = project("`Play ${name_of(c)}`");
    let rules = dir.path().join("scripts/tiny/rules.rhai");
    let text = std::fs::read_to_string(&rules).unwrap().replace("key: `play:${def_of(c)}`", "key: 7");
    std::fs::write(&rules, text).unwrap();
    let o = std::process::Command::new(crown_bin())
        .args(["--project", &dir.path().to_string_lossy(), "sim", "tiny", "--games", "1", "--agents", "greedy"])
        .output()
        .unwrap();
    let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("two options have the key '7'"), "{out}");
}
