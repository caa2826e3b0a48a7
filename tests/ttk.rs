//! Take the Kingdom: the pack plays to the end under every scenario, and its special rules
//! hold in set-up positions.

use std::sync::Arc;

use crown_engine::content::{load_pack, LoadOptions, Pack, Project};
use crown_engine::game::record::transcript_text;
use crown_engine::game::state::NO_ZONE;
use crown_engine::game::{agent, Game, GameConfig, Outcome, Status};

fn pack() -> Arc<Pack> {
    let project = Project::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let loaded = load_pack(&project, "take-the-kingdom", LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    Arc::new(loaded.pack.expect("pack loads"))
}

fn play(pack: &Arc<Pack>, scenario: Option<&str>, players: usize, seed: u64, bot: &str) -> (Game, Outcome) {
    let mut cfg = GameConfig::new(seed, players);
    cfg.scenario = scenario.map(str::to_string);
    let agents = (0..players).map(|s| agent::bot(bot, seed, s).expect("bot")).collect();
    let game = Game::new(pack.clone(), cfg, agents).expect("game starts");
    game.run()
}

#[test]
fn games_finish_under_every_scenario() {
    let pack = pack();
    let cases: &[(Option<&str>, usize)] = &[
        (None, 2),
        (None, 4),
        (None, 6),
        (Some("survival"), 4),
        (Some("solo-easy"), 3),
        (Some("solo-medium"), 3),
        (Some("solo-difficult"), 3),
        (Some("solo-expert"), 3),
    ];
    for &(sc, n) in cases {
        for seed in 0..20 {
            for bot in ["random", "greedy"] {
                let (game, o) = play(&pack, sc, n, seed, bot);
                if o.status != Status::Finished {
                    let t = transcript_text(&game, &o);
                    let tail: Vec<&str> = t.lines().rev().take(60).collect();
                    panic!("{sc:?} {n}p seed {seed} {bot}: {:?}\n{}", o.status, tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
                }
                assert_eq!(o.winners.len(), 1, "{sc:?} seed {seed}: {}", o.reason);
                if let Err(e) = check_table(&game) {
                    panic!("{sc:?} {n}p seed {seed} {bot}: {e}\n{}", transcript_text(&game, &o));
                }
            }
        }
    }
}

/// Print one game's transcript: `TTK_SEED=3 TTK_PLAYERS=4 cargo test -p crown-tests --test ttk show -- --ignored --nocapture`.
#[test]
#[ignore]
fn show() {
    let pack = pack();
    let seed = std::env::var("TTK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let n = std::env::var("TTK_PLAYERS").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
    let sc = std::env::var("TTK_SCENARIO").ok();
    let bot = std::env::var("TTK_BOT").unwrap_or_else(|_| "random".into());
    let (game, o) = play(&pack, sc.as_deref(), n, seed, &bot);
    println!("{}", transcript_text(&game, &o));
}

fn mark(g: &Game, c: u32, k: &str) -> i64 {
    g.state.cards[c as usize].marks.get(k).copied().unwrap_or(0)
}

fn keyword(g: &Game, c: u32, k: &str) -> bool {
    g.pack.defs[g.state.cards[c as usize].def as usize].def.keywords.iter().any(|x| x == k)
}

/// The counters the rules keep must match the kingdoms on the table, and no card may be
/// lost (every card is in a zone or tucked under another).
fn check_table(g: &Game) -> Result<(), String> {
    for (c, card) in g.state.cards.iter().enumerate() {
        let placed = card.host.is_some() || (card.zone != NO_ZONE && g.state.zones[card.zone as usize].cards.contains(&(c as u32)));
        let removed = card.zone == NO_ZONE && card.host.is_none();
        if !placed && !(removed && g.state.cards.len() != 108) {
            return Err(format!("card {c} is nowhere"));
        }
    }
    for (p, pl) in g.state.players.iter().enumerate() {
        if pl.out {
            continue;
        }
        let counter = |k: &str| pl.counters.get(k).copied().unwrap_or(0);
        let z = g.state.zones.iter().find(|z| z.name == "kingdom" && z.owner == Some(p as u8)).ok_or("no kingdom")?;
        let (mut defence, mut lands, mut free, mut open, mut traps, mut troops, mut mercs, mut castles) = (0, 0, 0, 0, 0, 0, 0, 0);
        for &l in &z.cards {
            if mark(g, l, "castle") == 1 {
                castles += 1;
            } else {
                lands += 1;
            }
            let hp = mark(g, l, "hp");
            if hp <= 0 {
                return Err(format!("{}: line {l} has hp {hp}", pl.name));
            }
            defence += hp;
            let under = &g.state.cards[l as usize].attached;
            let nd = under.iter().filter(|&&a| mark(g, a, "role") == 1).count() as i64;
            let nt = under.iter().filter(|&&a| mark(g, a, "role") == 2).count() as i64;
            if nd > 2 || nt > 1 || nd != mark(g, l, "nd") || (nt == 1) != (mark(g, l, "trap") > 0) {
                return Err(format!("{}: line {l} has {nd} defences (nd {}), {nt} traps (trap {})", pl.name, mark(g, l, "nd"), mark(g, l, "trap")));
            }
            free += 2 - nd;
            open += 1 - nt;
            traps += nt;
            for &a in under.iter().filter(|&&a| mark(g, a, "role") == 1) {
                let hp = mark(g, a, "hp");
                if hp <= 0 {
                    return Err(format!("{}: defence {a} has hp {hp}", pl.name));
                }
                defence += hp;
                troops += i64::from(keyword(g, a, "troops"));
                mercs += i64::from(keyword(g, a, "mercenary"));
            }
        }
        let want = [("defence", defence), ("lands", lands), ("free", free), ("open", open), ("traps", traps), ("troops", troops), ("mercs", mercs)];
        for (k, v) in want {
            if counter(k) != v {
                return Err(format!("{}: counter {k} is {} but the kingdom says {v}", pl.name, counter(k)));
            }
        }
        if castles != 1 {
            return Err(format!("{}: {castles} castles", pl.name));
        }
    }
    Ok(())
}
