//! Campaigns kept in save files (`crown campaign`), exercised by Kingdom Legacy: a realm
//! played round by round through saves plays exactly like one sitting; a base game then
//! The Salt Road through saves matches the two-play golden; bad saves are refused with a
//! clear message and left untouched; `show` tells the key facts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common::{crown, load_pack, repo_project};
use crown_engine::bots;
use crown_engine::content::Pack;

use crown_engine::game::record::transcript_text;
use crown_engine::game::save::{SaveFile, SaveStatus};
use crown_engine::game::{Game, GameConfig, Status};
use crown_tools::campaign;

const BASE: &str = "kingdom-legacy";
const SALT: &str = "kingdom-legacy-saltroad";

fn pack(id: &str) -> Arc<Pack> {
    load_pack(&repo_project(), id).expect("pack loads")
}

fn root() -> String {
    repo_project().root.to_string_lossy().to_string()
}

/// `crown --project <repo> campaign ARGS...`
fn campaign_cmd(args: &[&str]) -> i32 {
    let r = root();
    let mut all = vec!["--project", r.as_str(), "campaign"];
    all.extend_from_slice(args);
    crown(&all)
}

fn read(path: &Path) -> SaveFile {
    campaign::read_save(path).expect("the save reads")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The turns of a transcript: from the first `-- turn` line to the result line, without
/// the line a pause adds.
fn turn_lines(t: &str) -> Vec<String> {
    t.lines()
        .skip_while(|l| !l.starts_with("-- turn "))
        .filter(|l| !l.starts_with("# result") && *l != "paused at a checkpoint")
        .map(str::to_string)
        .collect()
}

/// One sitting of the whole game, in memory.
fn one_sitting(pack: &Arc<Pack>, seed: u64) -> (Game, String) {
    let cfg = GameConfig::new(seed, 1);
    let g = Game::new(pack.clone(), cfg, vec![bots::bot("greedy", seed, 0).unwrap()]).unwrap();
    let (g, o) = g.run();
    assert_eq!(o.status, Status::Finished, "{}", transcript_text(&g, &o));
    let t = transcript_text(&g, &o);
    (g, t)
}

/// Play `save` round by round with the greedy bot through the command, each sitting's
/// transcript kept; returns them.
fn play_by_rounds(dir: &Path, save: &Path, extra: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..100 {
        let t = dir.join(format!("sitting-{i}.transcript"));
        let mut args = vec!["play", s(save), "--round", "--agent", "greedy", "--transcript", s(&t)];
        args.extend_from_slice(extra);
        assert_eq!(campaign_cmd(&args), 0, "sitting {i}");
        out.push(std::fs::read_to_string(&t).unwrap());
        if read(save).status == SaveStatus::Finished {
            return out;
        }
    }
    panic!("no end after 100 sittings");
}

#[test]
fn a_campaign_played_round_by_round_through_saves_plays_like_one_sitting() {
    let base = pack(BASE);
    let dir = tempfile::tempdir().unwrap();
    for seed in [3u64, 8] {
        let (whole, text) = one_sitting(&base, seed);
        let save = dir.path().join(format!("realm-{seed}.toml"));
        let seed_s = seed.to_string();
        assert_eq!(campaign_cmd(&["new", BASE, "--save", s(&save), "--seed", &seed_s]), 0);
        assert_eq!(read(&save).status, SaveStatus::New);
        let sittings = play_by_rounds(dir.path(), &save, &[]);
        assert_eq!(sittings.len(), 15, "one sitting per round of the base game");
        let end = read(&save);
        assert_eq!(end.status, SaveStatus::Finished);
        assert_eq!(end.sittings, 15);
        assert_eq!(end.player[0].score, whole.state.players[0].score, "seed {seed}: final fame differs");
        assert_eq!(end.player[0].counters.get("score_1"), whole.state.players[0].counters.get("score_1"));
        // Every event of the one sitting happens, in order, across the fifteen.
        let split: Vec<String> = sittings.iter().flat_map(|t| turn_lines(t)).collect();
        let one = turn_lines(&text);
        if split != one {
            let n = split.iter().zip(&one).position(|(a, b)| a != b).unwrap_or(split.len().min(one.len()));
            panic!(
                "seed {seed}: the sittings diverge at event {n}:\n  one sitting: {:?}\n  sittings:    {:?}",
                one.get(n),
                split.get(n)
            );
        }
        // The last sitting ends like the one sitting (the same transcript tail).
        let last: Vec<&str> = sittings.last().unwrap().lines().rev().take(20).collect();
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        assert_eq!(last, tail);
    }
}

#[test]
fn whole_games_through_saves_match_the_two_play_golden() {
    // The golden realm: the base game, then The Salt Road on what it left, seed 7.
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("realm.toml");
    let t1 = dir.path().join("play1.transcript");
    let t2 = dir.path().join("play2.transcript");
    assert_eq!(campaign_cmd(&["new", SALT, "--save", s(&save), "--seed", "7"]), 0);
    assert_eq!(campaign_cmd(&["play", s(&save), "--game", "--agent", "greedy", "--transcript", s(&t1)]), 0);
    let after1 = read(&save);
    assert_eq!(after1.status, SaveStatus::Finished);
    assert_eq!(after1.player[0].counters.get("base_done"), Some(&1));
    // The base game cannot be played again on this realm: refused, save untouched.
    let bytes = std::fs::read(&save).unwrap();
    assert_eq!(campaign_cmd(&["play", s(&save), "--game", "--agent", "greedy"]), 1);
    assert_eq!(std::fs::read(&save).unwrap(), bytes);
    assert_eq!(
        campaign_cmd(&[
            "play",
            s(&save),
            "--game",
            "--agent",
            "greedy",
            "--scenario",
            "saltroad",
            "--transcript",
            s(&t2)
        ]),
        0
    );
    let after2 = read(&save);
    assert_eq!(after2.scenario.as_deref(), Some("saltroad"));
    assert_eq!(after2.games, 2);
    let c = &after2.player[0].counters;
    assert_eq!(c.get("plays"), Some(&2));
    assert_eq!(c.get("exp_saltroad"), Some(&2));
    assert_eq!(c.get("score_1"), after1.player[0].counters.get("score_1"));
    let text = format!(
        "## play 1: the base game, a new realm\n{}\n## play 2: The Salt Road, on the realm play 1 left\n{}\n",
        std::fs::read_to_string(&t1).unwrap(),
        std::fs::read_to_string(&t2).unwrap()
    );
    let golden = repo_project().root.join("tests/golden").join(SALT).join("campaign-two-plays.transcript");
    let want = std::fs::read_to_string(golden).unwrap();
    if want != text {
        let n = want.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "differs from the golden at line {}:\n  golden: {:?}\n  saves:  {:?}",
            n + 1,
            want.lines().nth(n),
            text.lines().nth(n)
        );
    }
}

#[test]
fn a_base_realm_moves_on_to_the_expansion_pack_round_by_round() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("realm.toml");
    assert_eq!(campaign_cmd(&["new", BASE, "--save", s(&save), "--scenario", "prologue", "--seed", "4"]), 0);
    assert_eq!(campaign_cmd(&["play", s(&save), "--game", "--agent", "greedy"]), 0);
    let base_done = read(&save);
    assert_eq!(base_done.pack, BASE);
    assert!(!base_done.card.iter().any(|c| c.def == "salt-road"));
    let score1 = base_done.player[0].score;
    // The expansion, four rounds, each a sitting, on the expansion's pack.
    let sittings = play_by_rounds(dir.path(), &save, &["--pack", SALT, "--scenario", "saltroad"]);
    assert_eq!(sittings.len(), 4);
    assert!(sittings[0].contains("the box gains 8 cards"), "{}", &sittings[0][..2000.min(sittings[0].len())]);
    let done = read(&save);
    assert_eq!(done.pack, SALT, "the save moved on to the expansion's pack");
    let c = &done.player[0].counters;
    assert_eq!(c.get("score_1"), Some(&score1));
    assert_eq!(c.get("score_2"), Some(&done.player[0].score));
    assert_eq!(c.get("exp_saltroad"), Some(&2));
    assert_eq!(c.get("res_salt"), Some(&1));
    let x = done.card.iter().find(|c| c.def == "salt-road").unwrap();
    assert_eq!(x.zone.as_deref(), Some("destroyed"));
    // Now a save of the expansion's pack: the base pack alone cannot take it up.
    let bytes = std::fs::read(&save).unwrap();
    assert_eq!(campaign_cmd(&["play", s(&save), "--agent", "greedy", "--pack", BASE]), 1);
    assert_eq!(std::fs::read(&save).unwrap(), bytes);
}

/// A save a few rounds in, to damage.
fn saved_realm(dir: &Path) -> PathBuf {
    let save = dir.join("realm.toml");
    assert_eq!(campaign_cmd(&["new", BASE, "--save", s(&save), "--seed", "2"]), 0);
    for _ in 0..3 {
        assert_eq!(campaign_cmd(&["play", s(&save), "--agent", "greedy"]), 0);
    }
    save
}

/// The save is refused by `play` (exit 1, file untouched) and by `read_save`/`check_pack`
/// with a message naming the file and containing `what`.
fn refused(save: &Path, extra: &[&str], what: &str) {
    let before = std::fs::read(save).unwrap();
    let mut args = vec!["play", s(save), "--agent", "greedy"];
    args.extend_from_slice(extra);
    assert_eq!(campaign_cmd(&args), 1, "{what}");
    assert_eq!(std::fs::read(save).unwrap(), before, "the file was changed ({what})");
    let err = match campaign::read_save(save) {
        Err(e) => e,
        Ok(sv) => {
            let id = extra.iter().position(|a| *a == "--pack").map_or(BASE, |i| extra[i + 1]);
            format!("{}: {}", save.display(), sv.check_pack(&pack(id)).expect_err("refused"))
        }
    };
    assert!(err.starts_with(&save.display().to_string()), "the message names the file: {err}");
    assert!(err.contains(what), "expected `{what}` in: {err}");
}

#[test]
fn bad_saves_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let save = saved_realm(dir.path());
    let good = std::fs::read_to_string(&save).unwrap();
    let parsed = SaveFile::parse(&good).unwrap();
    assert_eq!(parsed.turns.round, 3);

    // Another pack.
    refused(&save, &["--pack", "take-the-kingdom"], "pack `take-the-kingdom` neither is it nor extends it");

    // A card the pack no longer defines (a save written by the engine, checksum and all).
    let mut gone = parsed.clone();
    gone.card[5].def = "old-windmill".into();
    std::fs::write(&save, gone.to_text().unwrap()).unwrap();
    refused(&save, &[], "no longer defines card #5 `old-windmill`");

    // Cut short, in the middle of a line and at a line end.
    std::fs::write(&save, &good[..good.len() / 2]).unwrap();
    refused(&save, &[], "cut short");
    let at_card = good[..good.len() / 2].rfind("\n[[card]]").unwrap();
    std::fs::write(&save, &good[..at_card + 1]).unwrap();
    refused(&save, &[], "cut short");

    // Another save format.
    std::fs::write(&save, good.replacen("format = 1", "format = 2", 1)).unwrap();
    refused(&save, &[], "save format 2 is not supported");

    // Damaged after writing: a changed value breaks the checksum; garbage breaks the TOML.
    std::fs::write(&save, good.replacen("stage = \"front-top\"", "stage = \"back-top\"", 1)).unwrap();
    refused(&save, &[], "damaged or edited");
    std::fs::write(&save, good.replacen("[[zone]]", "[[zone]\n\u{1}", 1)).unwrap();
    refused(&save, &[], "damaged");
    std::fs::write(&save, b"\x00\x9f\x92\x96 binary").unwrap();
    refused(&save, &[], "not a save file");
}

#[test]
fn new_never_replaces_a_campaign_and_a_missing_save_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let save = saved_realm(dir.path());
    let before = std::fs::read(&save).unwrap();
    assert_eq!(campaign_cmd(&["new", BASE, "--save", s(&save)]), 1);
    assert_eq!(std::fs::read(&save).unwrap(), before);
    let missing = dir.path().join("missing.toml");
    assert_eq!(campaign_cmd(&["play", s(&missing), "--agent", "greedy"]), 1);
    assert!(!missing.exists());
    assert!(campaign::read_save(&missing).unwrap_err().contains("cannot read"));
}

#[test]
fn a_hand_edited_save_without_its_checksum_is_taken_up() {
    let dir = tempfile::tempdir().unwrap();
    let save = saved_realm(dir.path());
    let text = std::fs::read_to_string(&save).unwrap();
    let edited: String = text
        .lines()
        .filter(|l| !l.starts_with("checksum = "))
        .map(|l| if l == "stickers_fame = 6" { "stickers_fame = 9".to_string() } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&save, edited).unwrap();
    assert_eq!(campaign_cmd(&["play", s(&save), "--agent", "greedy"]), 0);
    assert_eq!(read(&save).turns.round, 4);
}

#[test]
fn show_tells_the_key_facts() {
    let dir = tempfile::tempdir().unwrap();
    let save = saved_realm(dir.path());
    assert_eq!(campaign_cmd(&["show", s(&save)]), 0);
    let sv = read(&save);
    let text = campaign::summary(&sv, Some(&pack(BASE)));
    for want in [
        "pack       Kingdom Legacy: Hearthvale (kingdom-legacy)",
        "status     paused after 3 sitting(s)",
        "round      3",
        "score path       (empty)",
        "fame             ",
        "stickers left    blade 6",
        "box (",
        "discard (",
        "#1 ",
        "[pinewood ",
        "discovered (out of the box)",
    ] {
        assert!(text.contains(want), "`{want}` missing from:\n{text}");
    }
    // After a finished game: the score path and purged fame.
    let save2 = dir.path().join("prologue.toml");
    assert_eq!(campaign_cmd(&["new", BASE, "--save", s(&save2), "--scenario", "prologue", "--seed", "1"]), 0);
    assert_eq!(campaign_cmd(&["play", s(&save2), "--game", "--agent", "greedy"]), 0);
    let sv2 = read(&save2);
    let text2 = campaign::summary(&sv2, Some(&pack(BASE)));
    assert!(text2.contains(&format!("score path       1: {}", sv2.player[0].score)), "{text2}");
    assert!(text2.contains("plays finished   1"), "{text2}");
    assert!(text2.contains("destroyed"), "{text2}");
    // A card's stickers and marks are shown with it.
    if let Some(c) = sv2.card.iter().find(|c| !c.stickers.is_empty()) {
        assert!(text2.contains(&format!("stickers {}", c.stickers.join(" "))), "{text2}");
    }
}

#[test]
fn save_text_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let save = saved_realm(dir.path());
    let sv = read(&save);
    let again = SaveFile::parse(&sv.to_text().unwrap()).unwrap();
    assert_eq!(sv, again);
    assert!(sv.globals.keys().all(|k| !k.starts_with("cache:")), "caches are not saved");
    assert!(sv.agent.iter().any(|a| a.kind == "greedy"), "the bot's stream is saved");
}

/// Prints whole base campaigns per second by the greedy bot:
/// `cargo test --release -p crown-tools --test integration campaign::bench -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench() {
    let base = pack(BASE);
    let n = 20;
    let (one, mean1) = campaign::bench_plays(&base, n, false).unwrap();
    let (rounds, mean2) = campaign::bench_plays(&base, n, true).unwrap();
    assert_eq!(mean1, mean2, "saving between rounds changes nothing");
    println!("{n} base campaigns by the greedy bot: {one:.1} plays/s in one sitting, {rounds:.1} plays/s saved and reloaded every round; mean fame {mean1:.1}");
}
