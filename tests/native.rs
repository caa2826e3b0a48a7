//! The native baseline (the `crown-native` crate) against the scripted Take the Kingdom: for
//! the same pack, scenario, seed, players and agents both must write the same transcript,
//! byte for byte. A difference is a bug in one of them (differential testing of the
//! scripted rules); the first differing line is shown with the lines before it. Both play
//! the frozen copy of the pack in `tests/fixtures/native` (see its README), the game the
//! port was written from: the shipped pack may change on its own.
//!
//! More seeds: `NATIVE_SEEDS=1000 cargo test --release -p crown-tools --test integration native::`.

use std::sync::Arc;

use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::game::record::transcript_text;
use crown_engine::game::{agent, Game, GameConfig, Status};
use crown_native as native;

/// The project holding the port's frozen copy of the pack.
fn native_project() -> crown_engine::load::Project {
    crown_engine::load::Project::new(crate::common::repo_project().root.join("tests/fixtures/native"))
}

fn pack() -> Arc<Pack> {
    crate::common::load_pack(&native_project(), "take-the-kingdom").expect("pack loads")
}

fn seeds(default: u64) -> u64 {
    let scale: u64 = std::env::var("NATIVE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    (default * scale / 200).max(1)
}

fn config(seed: u64, players: usize, scenario: Option<&str>) -> GameConfig {
    let mut cfg = GameConfig::new(seed, players);
    cfg.scenario = scenario.map(str::to_string);
    cfg
}

fn agents(bot: &str, seed: u64, players: usize) -> Vec<Box<dyn agent::Agent>> {
    (0..players).map(|s| bots::bot(bot, seed, s).expect("bot")).collect()
}

/// The scripted transcript and the native one, for one game.
fn both(pack: &Arc<Pack>, scenario: Option<&str>, players: usize, seed: u64, bot: &str) -> (String, String) {
    let game = Game::new(pack.clone(), config(seed, players, scenario), agents(bot, seed, players)).expect("game");
    let (game, outcome) = game.run();
    let scripted = transcript_text(&game, &outcome);
    let n = native::run_game(pack.clone(), config(seed, players, scenario), agents(bot, seed, players));
    assert_eq!(n.outcome.winners, outcome.winners, "{scenario:?} {players}p seed {seed} {bot}: winners");
    assert_eq!(n.outcome.scores, outcome.scores, "{scenario:?} {players}p seed {seed} {bot}: scores");
    assert_eq!(n.outcome.turns, outcome.turns, "{scenario:?} {players}p seed {seed} {bot}: turns");
    assert_eq!(n.outcome.plays, outcome.plays, "{scenario:?} {players}p seed {seed} {bot}: plays");
    assert_eq!(n.outcome.characters, outcome.characters);
    assert_eq!(n.outcome.status, outcome.status, "{scenario:?} {players}p seed {seed} {bot}: status");
    (scripted, n.transcript.expect("transcript requested"))
}

/// Where two transcripts first differ, with context.
fn first_difference(a: &str, b: &str) -> Option<String> {
    if a == b {
        return None;
    }
    let la: Vec<&str> = a.lines().collect();
    let lb: Vec<&str> = b.lines().collect();
    let i = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
    let from = i.saturating_sub(12);
    let mut s = String::new();
    for (k, line) in la.iter().enumerate().take(i).skip(from) {
        s.push_str(&format!("  {:>5}   {line}\n", k + 1));
    }
    s.push_str(&format!("  {:>5} scripted: {}\n", i + 1, la.get(i).copied().unwrap_or("<end>")));
    s.push_str(&format!("  {:>5} native:   {}\n", i + 1, lb.get(i).copied().unwrap_or("<end>")));
    Some(s)
}

fn check(scenario: Option<&str>, players: usize, bot: &str, count: u64) {
    let pack = pack();
    let mut failures = Vec::new();
    for seed in 0..count {
        let (s, n) = both(&pack, scenario, players, seed, bot);
        if let Some(d) = first_difference(&s, &n) {
            failures.push(format!("{scenario:?}, {players} players, {bot}, seed {seed}: first difference\n{d}"));
            if failures.len() >= 3 {
                break;
            }
        }
    }
    assert!(failures.is_empty(), "transcripts differ:\n{}", failures.join("\n"));
}

#[test]
fn standard_four_players_random() {
    check(None, 4, "random", seeds(200));
}

#[test]
fn standard_two_and_three_players_random() {
    check(None, 2, "random", seeds(100));
    check(None, 3, "random", seeds(100));
}

#[test]
fn standard_five_and_six_players_random() {
    check(Some("standard"), 5, "random", seeds(40));
    check(Some("standard"), 6, "random", seeds(40));
}

#[test]
fn survival_random() {
    check(Some("survival"), 4, "random", seeds(100));
    check(Some("survival"), 2, "random", seeds(50));
}

#[test]
fn solo_random() {
    for sc in ["solo-easy", "solo-medium", "solo-difficult", "solo-expert"] {
        check(Some(sc), 3, "random", seeds(60));
    }
}

#[test]
fn greedy_every_scenario() {
    check(None, 4, "greedy", seeds(60));
    check(None, 2, "greedy", seeds(30));
    check(Some("survival"), 3, "greedy", seeds(30));
    for sc in ["solo-easy", "solo-medium", "solo-difficult", "solo-expert"] {
        check(Some(sc), 3, "greedy", seeds(30));
    }
}

#[test]
fn first_option_every_scenario() {
    for (sc, n) in [(None, 4), (Some("survival"), 4), (Some("solo-easy"), 3), (Some("solo-expert"), 3)] {
        check(sc, n, "first", seeds(10));
    }
}

/// Replaying a recorded game (scripted agents choose by label) gives the same transcript.
#[test]
fn scripted_replay() {
    let pack = pack();
    for (sc, n) in [(None, 4usize), (Some("survival"), 3), (Some("solo-medium"), 3)] {
        for seed in 0..seeds(20) {
            let game = Game::new(pack.clone(), config(seed, n, sc), agents("random", seed, n)).expect("game");
            let (game, outcome) = game.run();
            let want = transcript_text(&game, &outcome);
            let file = crown_engine::game::record::GameFile::from_game(&game, Vec::new(), String::new());
            let mut cfg = config(seed, n, sc);
            cfg.names = file.players.clone();
            let got = native::run_game(pack.clone(), cfg, file.scripted_agents());
            let got = got.transcript.expect("transcript");
            if let Some(d) = first_difference(&want, &got) {
                panic!("replay {sc:?} {n}p seed {seed}: first difference\n{d}");
            }
        }
    }
}

/// Without a transcript the game plays the same (no text is formatted, same outcome).
#[test]
fn no_transcript_same_outcome() {
    let pack = pack();
    for seed in 0..seeds(50) {
        for (sc, n, bot) in [(None, 4usize, "random"), (Some("solo-hard"), 3, "random"), (None, 3, "greedy")] {
            let sc = if sc == Some("solo-hard") { Some("solo-difficult") } else { sc };
            let mut quiet = config(seed, n, sc);
            quiet.transcript = false;
            let a = native::run_game(pack.clone(), quiet, agents(bot, seed, n));
            let b = native::run_game(pack.clone(), config(seed, n, sc), agents(bot, seed, n));
            assert!(a.transcript.is_none());
            assert_eq!(a.outcome.winners, b.outcome.winners);
            assert_eq!(a.outcome.scores, b.outcome.scores);
            assert_eq!(a.outcome.turns, b.outcome.turns);
            assert_eq!(a.outcome.plays, b.outcome.plays);
            assert_eq!(a.outcome.status, Status::Finished, "seed {seed}");
        }
    }
}

/// A value edited in the pack changes the native game as it changes the scripted one.
#[test]
fn values_come_from_the_pack() {
    let mut pack = (*pack()).clone();
    for d in pack.defs.iter_mut() {
        if d.def.id == "cannon" {
            d.def.values.insert("attack".into(), 7);
        }
        if d.def.id == "land" {
            d.def.values.insert("defence".into(), 2);
        }
    }
    let pack = Arc::new(pack);
    for seed in 0..seeds(20) {
        let (s, n) = both(&pack, None, 4, seed, "random");
        if let Some(d) = first_difference(&s, &n) {
            panic!("edited pack, seed {seed}: first difference\n{d}");
        }
    }
}

/// Games per second, native and scripted, 4 players, random bots, one thread, no
/// transcript: `cargo test --release -p crown-tools --test integration native::throughput -- --ignored --nocapture`
/// (`NATIVE_GAMES` games each, 10,000 by default). A measurement, not a check.
#[test]
#[ignore]
fn throughput() {
    let pack = pack();
    let games: u64 = std::env::var("NATIVE_GAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let quiet = |seed| {
        let mut c = config(seed, 4, None);
        c.transcript = false;
        c
    };
    let t = std::time::Instant::now();
    let mut turns = 0;
    for seed in 0..games {
        turns += native::run_game(pack.clone(), quiet(seed), agents("random", seed, 4)).outcome.turns;
    }
    let native_s = t.elapsed().as_secs_f64();
    // NATIVE_SCRIPTED=0 times the native games only (for profiling).
    let scripted_games = match std::env::var("NATIVE_SCRIPTED").ok().and_then(|s| s.parse::<u64>().ok()) {
        Some(n) => n.max(1),
        None => (games / 10).max(1),
    };
    let t = std::time::Instant::now();
    for seed in 0..scripted_games {
        let g = Game::new(pack.clone(), quiet(seed), agents("random", seed, 4)).expect("game");
        let _ = g.run();
    }
    let scripted_s = t.elapsed().as_secs_f64();
    let ngps = games as f64 / native_s;
    let sgps = scripted_games as f64 / scripted_s;
    println!(
        "native: {games} games in {native_s:.2} s = {ngps:.0} games/s ({} turns/game); scripted: {scripted_games} games in {scripted_s:.2} s = {sgps:.0} games/s; ratio scripted/native {:.3}",
        turns / games,
        sgps / ngps
    );
}
