//! Take the Kingdom: the pack plays to the end under every scenario, and its special rules
//! hold in set-up positions.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crown_engine::content::{load_pack, LoadOptions, Pack, Project};
use crown_engine::game::agent::{Agent, ChoiceRequest};
use crown_engine::game::record::transcript_text;
use crown_engine::game::state::NO_ZONE;
use crown_engine::game::{agent, Game, GameConfig, Outcome, Status};

fn pack() -> Arc<Pack> {
    let project = Project::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let loaded = load_pack(&project, "take-the-kingdom", LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    Arc::new(loaded.pack.expect("pack loads"))
}

fn play(
    pack: &Arc<Pack>,
    scenario: Option<&str>,
    players: usize,
    seed: u64,
    bot: &str,
) -> (Game, Outcome) {
    let mut cfg = GameConfig::new(seed, players);
    cfg.scenario = scenario.map(str::to_string);
    let agents = (0..players)
        .map(|s| agent::bot(bot, seed, s).expect("bot"))
        .collect();
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
                    panic!(
                        "{sc:?} {n}p seed {seed} {bot}: {:?}\n{}",
                        o.status,
                        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                    );
                }
                assert_eq!(o.winners.len(), 1, "{sc:?} seed {seed}: {}", o.reason);
                if let Err(e) = check_table(&game) {
                    panic!(
                        "{sc:?} {n}p seed {seed} {bot}: {e}\n{}",
                        transcript_text(&game, &o)
                    );
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
    let seed = std::env::var("TTK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let n = std::env::var("TTK_PLAYERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let sc = std::env::var("TTK_SCENARIO").ok();
    let bot = std::env::var("TTK_BOT").unwrap_or_else(|_| "random".into());
    let (game, o) = play(&pack, sc.as_deref(), n, seed, &bot);
    println!("{}", transcript_text(&game, &o));
}

fn mark(g: &Game, c: u32, k: &str) -> i64 {
    g.state.cards[c as usize].marks.get(k).copied().unwrap_or(0)
}

fn keyword(g: &Game, c: u32, k: &str) -> bool {
    g.pack.defs[g.state.cards[c as usize].def as usize]
        .def
        .keywords
        .iter()
        .any(|x| x == k)
}

/// The counters the rules keep must match the kingdoms on the table, and no card may be
/// lost (every card is in a zone or tucked under another).
fn check_table(g: &Game) -> Result<(), String> {
    for (c, card) in g.state.cards.iter().enumerate() {
        let placed = card.host.is_some()
            || (card.zone != NO_ZONE
                && g.state.zones[card.zone as usize]
                    .cards
                    .contains(&(c as u32)));
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
        let z = g
            .state
            .zones
            .iter()
            .find(|z| z.name == "kingdom" && z.owner == Some(p as u8))
            .ok_or("no kingdom")?;
        let (
            mut defence,
            mut lands,
            mut free,
            mut open,
            mut traps,
            mut troops,
            mut mercs,
            mut castles,
        ) = (0, 0, 0, 0, 0, 0, 0, 0);
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
                return Err(format!(
                    "{}: line {l} has {nd} defences (nd {}), {nt} traps (trap {})",
                    pl.name,
                    mark(g, l, "nd"),
                    mark(g, l, "trap")
                ));
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
        let want = [
            ("defence", defence),
            ("lands", lands),
            ("free", free),
            ("open", open),
            ("traps", traps),
            ("troops", troops),
            ("mercs", mercs),
        ];
        for (k, v) in want {
            if counter(k) != v {
                return Err(format!(
                    "{}: counter {k} is {} but the kingdom says {v}",
                    pl.name,
                    counter(k)
                ));
            }
        }
        if castles != 1 {
            return Err(format!("{}: {castles} castles", pl.name));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Positions: a table set up by a Rhai snippet that can use every function of the pack's
// rules, with the players' answers given in advance by label.
// ---------------------------------------------------------------------------------------

type Queue = Arc<Mutex<Vec<VecDeque<String>>>>;

/// Answers each choice with the next label queued for its seat; with nothing queued, the
/// first option (which is always the passive one: "Let ... through", "Suffer ...").
struct Queued {
    seat: usize,
    queue: Queue,
}

impl Agent for Queued {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let mut q = self.queue.lock().unwrap();
        let Some(want) = q[self.seat].pop_front() else {
            return Ok(0);
        };
        req.labels.iter().position(|l| *l == want).ok_or_else(|| {
            format!(
                "{} was asked \"{}\": no option '{want}' among {:?}",
                req.player_name, req.prompt, req.labels
            )
        })
    }
    fn kind(&self) -> String {
        "test".into()
    }
}

/// Helpers for position snippets.
const PRELUDE: &str = r#"
fn expect(ok, msg) { if !ok { throw msg; } }
fn castle_for(p) { let c = create_card("castle", zone("box")); add_line(p, c, true); c }
fn land_for(p) { let c = create_card("land", zone("box")); add_line(p, c, false); c }
fn defend(p, line, id) { let c = create_card(id, zone("box")); add_defence(p, c, line); c }
fn trap_under(p, line, id) { let c = create_card(id, zone("box")); set_trap(p, c, line); c }
fn give(p, id) { create_card(id, hand(p)) }
fn kingdom_with_land(p, noble) { set_character(p, noble); castle_for(p); land_for(p) }
fn in_discard(c) { zone_of(c) == zone("discard") }
"#;

struct Table {
    game: Option<Game>,
    queue: Queue,
}

impl Table {
    fn new(players: usize, scenario: Option<&str>) -> Table {
        let pack = pack();
        let queue: Queue = Arc::new(Mutex::new(vec![VecDeque::new(); players]));
        let agents: Vec<Box<dyn Agent>> = (0..players)
            .map(|seat| {
                Box::new(Queued {
                    seat,
                    queue: queue.clone(),
                }) as Box<dyn Agent>
            })
            .collect();
        let mut cfg = GameConfig::new(11, players);
        cfg.scenario = scenario.map(str::to_string);
        let game = Game::new(pack, cfg, agents).expect("game starts");
        Table {
            game: Some(game),
            queue,
        }
    }

    /// Queue the labels seat `p` will pick, in order.
    fn answers(&self, p: usize, labels: &[&str]) {
        self.queue.lock().unwrap()[p].extend(labels.iter().map(|s| s.to_string()));
    }

    /// Run a snippet against the table; it fails the test with the transcript on an error.
    fn run(&mut self, snippet: &str) {
        let game = self.game.take().expect("table");
        let rules = game.pack.rules_script().expect("rules").ast.clone();
        let text = format!("{PRELUDE}\n{snippet}");
        let ast = crown_engine::script::compile("position", &text)
            .unwrap_or_else(|e| panic!("snippet: {e}"));
        let merged = rules.merge(&ast);
        let (game, r) = crown_engine::script::api::with_installed(game, || {
            crown_engine::script::engine().run_ast(&merged)
        });
        let text = game
            .transcript
            .as_ref()
            .map(|t| t.join("\n"))
            .unwrap_or_default();
        self.game = Some(game);
        if let Err(e) = r {
            panic!("{e}\n--- transcript ---\n{text}");
        }
    }

    fn game(&self) -> &Game {
        self.game.as_ref().expect("table")
    }

    /// Choices an agent of seat `p` was actually asked (more than one option).
    fn asked(&self, p: usize) -> Vec<String> {
        self.game()
            .choices
            .iter()
            .filter(|c| c.player == p && c.asked)
            .map(|c| c.label.clone())
            .collect()
    }

    fn unused_answers(&self) -> Vec<Vec<String>> {
        self.queue
            .lock()
            .unwrap()
            .iter()
            .map(|q| q.iter().cloned().collect())
            .collect()
    }
}

/// A test passes only if every queued answer was used.
fn done(t: &Table) {
    let left = t.unused_answers();
    assert!(
        left.iter().all(Vec::is_empty),
        "answers never asked for: {left:?}"
    );
    if let Err(e) = check_table(t.game()) {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------------------------------
// Nobles
// ---------------------------------------------------------------------------------------

#[test]
fn charles_fires_cannons_for_five_and_morale_doubles_them() {
    let mut t = Table::new(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "charles");
        let l = kingdom_with_land(1, "maria");
        defend(1, l, "battlements");
        make_attack(0, give(0, "cannon"), "Play Cannon on", l);
        expect(counter(1, "defence") == 4, `Battlements should be gone (defence ${counter(1, "defence")})`);
        expect(counter(1, "lands") == 1, "the land itself stands: no damage carries past 5");
        // Maria's Cannon is a plain 4.
        let m = defend(0, bottom(kingdom(0)), "battlements");
        make_attack(1, give(1, "cannon"), "Play Cannon on", lines(0)[1]);
        set_counter(0, "morale", 0);
        expect(mark(m, "hp") == 5, "Maria cannot reach the castle's Battlements while a land stands");
        expect(counter(0, "lands") == 0, "Maria's 4 destroyed Charles's bare land");
        // Morale doubles after the noble's bonus: 10.
        let w = defend(1, bottom(kingdom(1)), "walls");
        set_counter(0, "morale", 2);
        make_attack(0, give(0, "cannon-solo"), "Play Cannon on", lines(1)[1]);
        expect(counter(1, "lands") == 0, "Morale Cannon felled the land");
        "#,
    );
    done(&t);
}

#[test]
fn maria_pikemen_strike_for_two() {
    let mut t = Table::new(2, None);
    t.run(
        r#"
        let mine = kingdom_with_land(0, "maria");
        let theirs = kingdom_with_land(1, "charles");
        let h = defend(1, theirs, "hills");
        make_attack(0, give(0, "pikemen"), "Play Pikemen on", theirs);
        expect(in_discard(h), "Maria's Pikemen destroy a +2 Hills");
        let h2 = defend(0, mine, "hills");
        let p = give(1, "pikemen");
        make_attack(1, p, "Play Pikemen on", mine);
        expect(mark(h2, "hp") == 1, "anyone else's Pikemen deal 1");
        expect(host_of(p) == h2, "the Pikemen card is tucked under the damaged Hills");
        "#,
    );
    done(&t);
}

#[test]
fn simon_fills_to_six_only_while_he_holds_land() {
    let mut t = Table::new(2, None);
    t.run(
        r#"
        let l = kingdom_with_land(0, "simon");
        kingdom_with_land(1, "anne");
        create_cards("walls", 30, zone("deck"));
        top_up(0);
        expect(count(hand(0)) == 6, `with land: ${count(hand(0))} cards`);
        top_up(1);
        expect(count(hand(1)) == 5, "everyone else fills to five");
        destroy(l);
        for c in cards(hand(0)) { discard(c); }
        top_up(0);
        expect(count(hand(0)) == 5, `without land: ${count(hand(0))} cards`);
        // A Mercy standing as a proxy land counts as land.
        let m = create_card("mercy", beside(0));
        set_counter(0, "plays", 3);
        invoke(m, "play", [0, m]);
        expect(counter(0, "lands") == 1, "the proxy land stands");
        for c in cards(hand(0)) { discard(c); }
        top_up(0);
        expect(count(hand(0)) == 6, "proxy land is land for Simon");
        "#,
    );
    t.answers(0, &[]);
    done(&t);
}

#[test]
fn setup_gives_egbert_his_village_charles_gold_anne_dawn_raid() {
    let mut t = Table::new(3, None);
    t.answers(0, &["Graf Egbert of Brunswick (3)"]);
    t.answers(1, &["Anne, Viscountess of Narbonne (6)"]);
    t.answers(2, &["Baron Charles de Mangonel (1)"]);
    t.run(
        r#"
        setup();
        let village = false;
        for l in lines(0) { if def_of(l) == "village" { village = true; } }
        expect(village, "Egbert's Village stands in his kingdom");
        expect(counter(0, "defence") == 14, `Egbert: 12 points plus the Village (${counter(0, "defence")})`);
        expect(counter(1, "defence") == 12 && counter(2, "defence") == 12, "the others build exactly 12");
        expect(find_in(hand(1), "dawn-raid") >= 0, "Anne holds Dawn Raid");
        expect(find_in(hand(2), "gold") >= 0, "Charles holds Gold");
        for p in 0..3 { expect(count(beside(p)) == 1, "a Mercy beside every castle"); }
        expect(count(zone("deck")) + count(zone("box")) + 3 + 2 == 108 - cards(kingdom(0)).len() - cards(kingdom(1)).len() - cards(kingdom(2)).len() - defences_placed(),
               "every card accounted for");
        expect(get("current") == 1, "Anne (6) plays first");
        fn defences_placed() {
            let n = 0;
            for p in 0..3 { for l in lines(p) { n += attached(l).len(); } }
            n
        }
        "#,
    );
    done(&t);
}

#[test]
fn egbert_traps_are_always_real() {
    let mut t = Table::new(2, None);
    t.run(
        r#"
        let mine = kingdom_with_land(0, "anne");
        let his = kingdom_with_land(1, "egbert");
        let trap = trap_under(1, his, "trap-decoy");
        make_attack(0, give(0, "soldiers"), "Play Soldiers on", his);
        expect(in_discard(trap), "the trap is sprung");
        expect(counter(1, "lands") == 1, "Egbert's land is untouched");
        expect(counter(0, "lands") == 0, "the decoy worked as real: Anne's land took the Soldiers");
        // The same decoy under anyone else's land does nothing.
        let other = land_for(0);
        let decoy = trap_under(0, other, "trap-decoy-solo");
        make_attack(1, give(1, "soldiers-solo"), "Play Soldiers on", other);
        expect(in_discard(decoy) && counter(0, "lands") == 0, "a decoy is only discarded");
        expect(counter(1, "lands") == 1, "no damage turned back");
        "#,
    );
    done(&t);
}

#[test]
fn baligant_keeps_penalties_and_plays_them_on_a_rival_for_their_next_turn() {
    let mut t = Table::new(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "baligant");
        kingdom_with_land(1, "maria");
        let f = give(0, "famine");
        set_counter(0, "plays", 3);
        penalty_drawn(0, f);
        expect(zone_of(f) == hand(0) && counter(0, "no_defend") == 0, "Baligant is not struck; he keeps it");
        expect(invoke(f, "can_play", [0, f]), "he may play it on a rival");
        invoke(f, "play", [0, f]);
        expect(zone_of(f) == status(1) && counter(1, "waiting") == 1, "it waits before Maria");
        expect(counter(1, "no_defend") == 0, "not yet");
        begin_turn(1, 3);
        strike_waiting(1);
        expect(counter(1, "no_defend") == 1 && counter(1, "famine") == 1, "it strikes at her turn");
        expect(counter(1, "plays") == 2, "and costs her one of her plays");
        // Maria draws a Disease herself: it strikes at once.
        let d = give(1, "disease");
        penalty_drawn(1, d);
        expect(counter(1, "no_attack") == 1 && zone_of(d) == status(1), "anyone else suffers it");
        expect(!invoke(d, "can_play", [1, d]), "and cannot play it on others");
        "#,
    );
    done(&t);
}

#[test]
fn dawn_raid_cannot_be_answered() {
    let mut t = Table::new(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        let l = kingdom_with_land(1, "simon");
        give(1, "deny");
        give(1, "gold");
        create_card("mercy", beside(1));
        make_attack(0, give(0, "dawn-raid"), "Play Dawn Raid on", l);
        expect(counter(1, "lands") == 0, "the raid lands");
        expect(count(hand(1)) == 2 && count(beside(1)) == 1, "no answer was spent");
        "#,
    );
    assert!(
        t.asked(1).is_empty(),
        "Simon was offered an answer: {:?}",
        t.asked(1)
    );
    done(&t);
}
