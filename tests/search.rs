//! The `search` bot: it plays every shipped pack to an end, the same way twice for a seed,
//! and its rollouts never start from what its seat cannot see.

use crown_engine::bots;
use crown_engine::bots::search;
use crown_engine::game::agent::Agent;
use crown_engine::game::state::Visibility;
use crown_engine::game::{Game, GameConfig, Status};

use crate::common::{load_pack, repo_project};

/// One game with `kinds` seated in order; the transcript and the status.
fn play(pack: &str, kinds: &[&str], seed: u64) -> (String, Status, Vec<String>) {
    let (pack, scenario) = pack.split_once('/').map_or((pack, None), |(p, s)| (p, Some(s.to_string())));
    let pack = load_pack(&repo_project(), pack).expect("pack loads");
    let agents: Vec<Box<dyn Agent>> =
        kinds.iter().enumerate().map(|(i, k)| bots::bot(k, seed, i).expect("a bot kind")).collect();
    let mut cfg = GameConfig::new(seed, kinds.len());
    cfg.scenario = scenario;
    let (game, outcome) = Game::new(pack, cfg, agents).expect("game starts").run();
    let asked = game.choices.iter().filter(|c| c.player == 0 && c.asked).map(|c| c.label.clone()).collect();
    (game.transcript.unwrap_or_default().join("\n"), outcome.status, asked)
}

#[test]
fn the_search_bot_plays_every_pack_to_an_end_and_the_same_way_twice() {
    // A small budget keeps the debug build quick; the pack's own budget is measured by
    // `crown bench --only search`.
    for (pack, kinds, twice) in [
        ("take-the-kingdom", &["search:3:2", "random", "random"][..], true),
        ("the-last-kingdom", &["search:2:1", "random"][..], false),
        ("kingdoms-in-conflict", &["search:2:2:random", "random"][..], false),
        ("crownfields", &["search:2:2:random", "random"][..], false),
        ("kingdom-legacy/prologue", &["search:1:1"][..], false),
    ] {
        let start = std::time::Instant::now();
        let (a, status, asked) = play(pack, kinds, 5);
        assert!(matches!(status, Status::Finished | Status::TurnLimit), "{pack}: {status:?}");
        assert!(asked.len() > 5, "{pack}: the search seat was asked only {} times", asked.len());
        if twice {
            let (b, _, _) = play(pack, kinds, 5);
            assert!(a == b, "{pack}: two games with seed 5 differ");
        }
        eprintln!("{pack}: {:.1} s", start.elapsed().as_secs_f64());
    }
}

#[test]
fn rollouts_redeal_only_what_the_deciding_seat_cannot_see() {
    let pack = load_pack(&repo_project(), "take-the-kingdom").expect("pack loads");
    let agents: Vec<Box<dyn Agent>> = (0..4).map(|i| bots::bot("random", 9, i).unwrap()).collect();
    let mut cfg = GameConfig::new(9, 4);
    cfg.max_turns = Some(3);
    let (game, outcome) = Game::new(pack, cfg, agents).unwrap().run();
    assert_eq!(outcome.status, Status::TurnLimit);
    let before = game.fork();
    let seen_by_0 = |g: &Game, z: usize| {
        let zone = &g.state.zones[z];
        match zone.visibility {
            Visibility::Public => true,
            Visibility::Owner => zone.owner == Some(0),
            Visibility::Hidden => false,
        }
    };
    let defs = |g: &Game, zs: &[usize]| {
        let mut d: Vec<u32> =
            zs.iter().flat_map(|&z| g.state.zones[z].cards.iter().map(|&c| g.state.cards[c as usize].def)).collect();
        d.sort_unstable();
        d
    };
    let unseen: Vec<usize> = (0..before.state.zones.len()).filter(|&z| !seen_by_0(&before, z)).collect();
    assert!(unseen.iter().any(|&z| before.state.zones[z].visibility == Visibility::Hidden), "a deck");
    assert!(unseen.iter().any(|&z| before.state.zones[z].visibility == Visibility::Owner), "rivals' hands");
    let mut changed = 0;
    for seed in 1..=5 {
        let mut g = before.fork();
        search::determinise(&mut g, 0, seed);
        for z in 0..g.state.zones.len() {
            assert_eq!(g.state.zones[z].cards.len(), before.state.zones[z].cards.len(), "zone sizes stay");
            if seen_by_0(&before, z) {
                assert_eq!(g.state.zones[z].cards, before.state.zones[z].cards, "what seat 0 sees stays");
            }
            for &c in &g.state.zones[z].cards {
                assert_eq!(g.state.cards[c as usize].zone, z as u32, "each card knows its zone");
            }
        }
        // The unseen cards are the same cards, dealt again.
        assert_eq!(defs(&g, &unseen), defs(&before, &unseen));
        if unseen.iter().any(|&z| g.state.zones[z].cards != before.state.zones[z].cards) {
            changed += 1;
        }
        assert_ne!(g.state.rng.state(), before.state.rng.state(), "the future dice are not the real ones");
    }
    assert_eq!(changed, 5, "every redeal changed what seat 0 cannot see");
}

#[test]
fn search_kinds_with_bad_settings_are_refused_with_the_syntax() {
    let (code, _, err) = crate::sim::sim(&["take-the-kingdom", "--games", "1", "--agents", "search:0:greedy"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("search:0:greedy") && err.contains("`search:64:12:greedy`"), "{err}");
}
