//! Take the Kingdom: the pack plays to the end under every scenario, and its special rules
//! hold in set-up positions.

use std::sync::Arc;

use crate::common::Table;
use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::game::record::transcript_text;
use crown_engine::game::state::NO_ZONE;
use crown_engine::game::{Game, GameConfig, Outcome, Status};
use crown_engine::load::{load_pack, LoadOptions, Project};

fn pack() -> Arc<Pack> {
    let project = Project::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let loaded = load_pack(&project, "take-the-kingdom", LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    Arc::new(loaded.pack.expect("pack loads"))
}

fn play(pack: &Arc<Pack>, scenario: Option<&str>, players: usize, seed: u64, bot: &str) -> (Game, Outcome) {
    let mut cfg = GameConfig::new(seed, players);
    cfg.scenario = scenario.map(str::to_string);
    let agents = (0..players).map(|s| bots::bot(bot, seed, s).expect("bot")).collect();
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
                    panic!("{sc:?} {n}p seed {seed} {bot}: {e}\n{}", transcript_text(&game, &o));
                }
            }
        }
    }
}

/// Print one game's transcript: `TTK_SEED=3 TTK_PLAYERS=4 cargo test -p crown-tools --test integration ttk::show -- --ignored --nocapture`.
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
        let placed = card.host.is_some()
            || (card.zone != NO_ZONE && g.state.zones[card.zone as usize].cards.contains(&(c as u32)));
        let removed = card.zone == NO_ZONE && card.host.is_none();
        if !placed && (!removed || g.state.cards.len() == 108) {
            return Err(format!("card {c} is nowhere"));
        }
    }
    for (p, pl) in g.state.players.iter().enumerate() {
        if pl.out {
            continue;
        }
        let counter = |k: &str| pl.counters.get(k).copied().unwrap_or(0);
        let z = g.state.zones.iter().find(|z| z.name == "kingdom" && z.owner == Some(p as u8)).ok_or("no kingdom")?;
        let (mut defence, mut lands, mut free, mut open, mut traps, mut troops, mut mercs, mut castles) =
            (0, 0, 0, 0, 0, 0, 0, 0);
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
                return Err(format!("{}: counter {k} is {} but the kingdom says {v}", pl.name, counter(k)));
            }
        }
        if castles != 1 || z.cards.first().is_none_or(|&c| mark(g, c, "castle") != 1) {
            return Err(format!("{}: {castles} castles, or the castle is not the bottom line", pl.name));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Positions: a table set up by a Rhai snippet that can use every function of the pack's
// rules, with the players' answers given in advance by label.
// ---------------------------------------------------------------------------------------

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

/// A table of this pack (seed 11); seats take the first option when nothing is queued.
fn table(players: usize, scenario: Option<&str>) -> Table {
    Table::new(pack(), PRELUDE, players, 11, scenario, false)
}

/// A test passes only if every queued answer was used.
fn done(t: &Table) {
    let left = t.unused_answers();
    assert!(left.iter().all(Vec::is_empty), "answers never asked for: {left:?}");
    if let Err(e) = check_table(t.game()) {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------------------------------
// Nobles
// ---------------------------------------------------------------------------------------

#[test]
fn charles_fires_cannons_for_five_and_morale_doubles_them() {
    let mut t = table(2, None);
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
        make_attack(0, give(0, "cannon"), "Play Cannon on", lines(1)[1]);
        expect(counter(1, "lands") == 0, "Morale Cannon felled the land");
        "#,
    );
    done(&t);
}

#[test]
fn maria_pikemen_strike_for_two() {
    let mut t = table(2, None);
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
    let mut t = table(2, None);
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
    let mut t = table(3, None);
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
        expect(current() == 1, "Anne (6) plays first");
        let mercies = 0;
        for c in cards(zone("deck")) { if def_of(c) == "mercy" { mercies += 1; } }
        expect(mercies == 2, `two Mercies shuffled into the deck (${mercies})`);
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
    let mut t = table(2, None);
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
        let decoy = trap_under(0, other, "trap-decoy");
        make_attack(1, give(1, "soldiers"), "Play Soldiers on", other);
        expect(in_discard(decoy) && counter(0, "lands") == 0, "a decoy is only discarded");
        expect(counter(1, "lands") == 1, "no damage turned back");
        "#,
    );
    done(&t);
}

#[test]
fn baligant_keeps_penalties_and_plays_them_on_a_rival_for_their_next_turn() {
    let mut t = table(2, None);
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
    let mut t = table(2, None);
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
    assert!(t.asked(1).is_empty(), "Simon was offered an answer: {:?}", t.asked(1));
    done(&t);
}

// ---------------------------------------------------------------------------------------
// Lines of defence, traps, mercenaries
// ---------------------------------------------------------------------------------------

#[test]
fn lines_of_defence_order_the_targets_and_damage_stays_in_its_line() {
    let mut t = table(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        set_character(1, "maria");
        let castle = castle_for(1);
        let walls = defend(1, castle, "walls");
        let l1 = land_for(1);
        let moat = defend(1, l1, "moat");
        let hills = defend(1, l1, "hills");
        let l2 = land_for(1);
        // Only lands are open while any stands; the bare one as much as the defended one.
        let open = [];
        for t in open_lines(1) { open.push(t[0]); }
        expect(open.len() == 2 && open.contains(l1) && open.contains(l2) && !open.contains(castle), `open lines ${open}`);
        // Topmost defence first, the rest carrying down the same line: Cannon 4 on Land 1
        // destroys the Hills (2, placed last, on top), then the Moat (2), and stops there.
        make_attack(0, give(0, "cannon"), "Play Cannon on", l1);
        expect(in_discard(hills) && in_discard(moat), "Hills then Moat fell");
        expect(mark(l1, "hp") == 1 && counter(1, "lands") == 2, "nothing was left for the land; nothing spills to Land 2");
        // A weaker attack is tucked under the card it damaged.
        let w2 = defend(1, l2, "walls");
        let s = give(0, "soldiers");
        make_attack(0, s, "Play Soldiers on", l2);
        expect(mark(w2, "hp") == 1 && host_of(s) == w2, "Soldiers tucked under the Walls they damaged");
        // The damage stays: a Pikemen finishes the Walls, then Land 2 is bare again.
        make_attack(0, give(0, "pikemen"), "Play Pikemen on", l2);
        expect(in_discard(w2) && in_discard(s), "Walls and the tucked Soldiers go to the discard");
        // With every land gone the castle opens, its defences first.
        destroy(l1);
        destroy(l2);
        let o = open_lines(1);
        expect(o.len() == 1 && o[0][0] == castle, "now only the castle");
        make_attack(0, give(0, "cavalry"), "Play Cavalry on", castle);
        expect(in_discard(walls) && mark(castle, "hp") == 3, "the castle's Walls take the blow first");
        make_attack(0, give(0, "cannon"), "Play Cannon on", castle);
        expect(is_out(1) && is_over(), "the castle falls: Maria is out, Anne wins");
        "#,
    );
    let g = t.game();
    assert_eq!(g.over.as_ref().map(|o| o.0.clone()), Some(vec![0]));
    done(&t);
}

#[test]
fn a_real_trap_turns_the_attack_back_and_its_owner_picks_where() {
    let mut t = table(2, None);
    t.answers(1, &["Turn it on P1's Land 2"]);
    t.run(
        r#"
        let a1 = kingdom_with_land(0, "anne");
        defend(0, a1, "walls");
        let a2 = land_for(0);
        let target = kingdom_with_land(1, "maria");
        let trap = trap_under(1, target, "trap-real");
        expect(!face_up(trap), "the trap lies face down");
        let c = give(0, "cannon");
        make_attack(0, c, "Play Cannon on", target);
        expect(in_discard(trap), "sprung and discarded");
        expect(counter(1, "lands") == 1 && mark(target, "hp") == 1, "the trapped land took nothing");
        expect(!in_kingdom(a2) && in_kingdom(a1), "Maria turned the 4 damage on Anne's bare Land 2");
        "#,
    );
    assert_eq!(t.asked(1), vec!["Turn it on P1's Land 2"]);
    done(&t);
}

#[test]
fn a_decoy_trap_is_discarded_and_the_attack_goes_on() {
    let mut t = table(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        let target = kingdom_with_land(1, "maria");
        let h = defend(1, target, "hills");
        let trap = trap_under(1, target, "trap-decoy");
        make_attack(0, give(0, "soldiers"), "Play Soldiers on", target);
        expect(in_discard(trap) && in_discard(h), "decoy gone, the attack destroyed the Hills");
        expect(counter(1, "traps") == 0 && counter(1, "open") == 2, "counters follow");
        "#,
    );
    done(&t);
}

#[test]
fn mercenaries_attack_defend_fire_from_the_kingdom_and_move() {
    let mut t = table(2, None);
    t.answers(0, &["Station Mercenaries (2) on your Land 1"]);
    t.run(
        r#"
        let mine = kingdom_with_land(0, "anne");
        let theirs = kingdom_with_land(1, "maria");
        defend(1, theirs, "moat");
        set_counter(0, "plays", 3);
        let m = give(0, "mercenaries-2");
        invoke(m, "play", [0, m]);
        expect(host_of(m) == mine && counter(0, "mercs") == 1 && counter(0, "defence") == 6, "stationed on Land 1");
        invoke(m, "move", [0, m]);
        expect(host_of(m) == bottom(kingdom(0)) && mark(mine, "nd") == 0, "moved to the castle");
        // Fired from the castle at Maria's land: the Moat falls, the card is spent.
        invoke(m, "fire", [0, m]);
        expect(counter(1, "defence") == 4 && in_discard(m) && counter(0, "mercs") == 0, "fired and spent");
        expect(counter(0, "defence") == 4, "it no longer defends");
        // A damaged mercenary cannot fire, but can still move.
        let m3 = defend(0, mine, "mercenaries-3");
        set_counter(0, "plays", 3);
        let labels = turn_options(0).labels();
        expect(labels.contains("Fire Mercenaries (3) from your Land 1"), `undamaged: ${labels}`);
        make_attack(1, give(1, "pikemen"), "Play Pikemen on", mine);
        expect(mark(m3, "hp") == 1, "Maria's Pikemen hurt the Mercenaries");
        labels = turn_options(0).labels();
        expect(!labels.contains("Fire Mercenaries (3) from your Land 1"), `damaged: ${labels}`);
        expect(labels.contains("Move Mercenaries (3) from your Land 1"), `damaged: ${labels}`);
        "#,
    );
    done(&t);
}

// ---------------------------------------------------------------------------------------
// Action cards
// ---------------------------------------------------------------------------------------

#[test]
fn spread_shares_an_attack_across_lands_and_players() {
    let mut t = table(3, None);
    t.answers(
        0,
        &[
            "Send a share of Trebuchet to P2's Land 1",
            "1 damage on P2's Land 1",
            "Send a share of Trebuchet to P3's Land 1",
            "1 damage on P3's Land 1",
            "Send a share of Trebuchet to P2's Land 2",
        ],
    );
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        kingdom_with_land(1, "maria");
        land_for(1);
        let defended = kingdom_with_land(2, "simon");
        set_counter(0, "plays", 3);
        let s = give(0, "spread");
        expect(invoke(s, "can_play", [0, s]) == false, "no attack in hand: Spread is not offered");
        let tr = give(0, "trebuchet");
        expect(invoke(s, "can_play", [0, s]), "with an attack in hand it is");
        invoke(s, "play", [0, s]);
        set_counter(0, "plays", 2);
        make_attack(0, tr, "Play Trebuchet on", -1);
        expect(counter(1, "lands") == 0 && counter(2, "lands") == 0, "three bare lands, two rivals, one Trebuchet");
        expect(counter(0, "spread") == 0, "Spread is spent");
        "#,
    );
    done(&t);
}

#[test]
fn cannon_spread_and_morale_make_an_eight_point_attack_using_three_plays() {
    let mut t = table(2, None);
    t.answers(
        0,
        &[
            "Play Morale",
            "Play Spread",
            "Play Cannon",
            "Send a share of Cannon to P2's Land 1",
            "3 damage on P2's Land 1",
            "Send a share of Cannon to P2's Land 2",
            "5 damage on P2's Land 2",
        ],
    );
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        let l1 = kingdom_with_land(1, "maria");
        defend(1, l1, "hills");
        let l2 = land_for(1);
        defend(1, l2, "walls");
        give(0, "morale"); give(0, "spread"); give(0, "cannon");
        take_turn(0);
        expect(counter(1, "lands") == 0, `both lands fell to 3 + 5 (defence left ${counter(1, "defence")})`);
        expect(counter(1, "defence") == 3, "the castle untouched: it was not open when the shares were set");
        expect(count(hand(0)) == 0 && counter(0, "plays") == 0, "all three cards, all three plays");
        "#,
    );
    done(&t);
}

#[test]
fn deny_cancels_and_cannot_itself_be_denied() {
    let mut t = table(2, None);
    t.answers(1, &["Deny the Cavalry"]);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        let l = kingdom_with_land(1, "maria");
        give(0, "deny"); give(0, "deny"); create_card("mercy", beside(0));
        let d = give(1, "deny");
        let c = give(0, "cavalry");
        make_attack(0, c, "Play Cavalry on", l);
        expect(in_discard(c) && in_discard(d), "both cards to the discard");
        expect(counter(1, "lands") == 1, "nothing happened to the land");
        expect(count(hand(0)) == 2 && count(beside(0)) == 1, "Anne could not answer the Deny");
        "#,
    );
    assert!(t.asked(0).is_empty(), "the attacker was offered an answer to a Deny: {:?}", t.asked(0));
    done(&t);
}

#[test]
fn gold_buys_the_card_changes_hands_and_is_discarded_after_its_third_use() {
    let mut t = table(2, None);
    t.answers(1, &["Buy the Soldiers with Gold"]);
    t.answers(0, &["Buy the Pikemen with Gold"]);
    t.answers(1, &["Buy the Cavalry with Gold"]);
    t.run(
        r#"
        let la = kingdom_with_land(0, "anne");
        let lm = kingdom_with_land(1, "charles");
        let g = give(1, "gold");
        let s = give(0, "soldiers");
        make_attack(0, s, "Play Soldiers on", lm);
        expect(zone_of(s) == hand(1) && zone_of(g) == hand(0), "Charles bought the Soldiers; Anne has the Gold");
        expect(mark(g, "uses") == 1 && counter(1, "lands") == 1, "first use, no damage");
        let p = give(1, "pikemen");
        make_attack(1, p, "Play Pikemen on", la);
        expect(zone_of(p) == hand(0) && zone_of(g) == hand(1) && mark(g, "uses") == 2, "second use");
        let c = give(0, "cavalry");
        make_attack(0, c, "Play Cavalry on", lm);
        expect(zone_of(c) == hand(1), "the third buyer still gets the card");
        expect(in_discard(g), "Gold is discarded after its third use");
        // Gold does not buy penalties.
        let f = give(0, "famine");
        expect(!invoke(g, "can_answer", [1, g, f]), "no Gold against a penalty");
        "#,
    );
    done(&t);
}

#[test]
fn mercy_answers_from_beside_the_castle_stands_as_land_lifts_freeze_and_draws() {
    let mut t = table(2, None);
    t.answers(1, &["Answer the Soldiers with the Mercy beside your castle"]);
    t.answers(0, &["Mercy: lift the Freeze", "Mercy: draw cards, as Fortune does"]);
    t.run(
        r#"
        let la = kingdom_with_land(0, "anne");
        let lm = kingdom_with_land(1, "maria");
        let m1 = create_card("mercy", beside(1));
        let s = give(0, "soldiers");
        make_attack(0, s, "Play Soldiers on", lm);
        expect(in_discard(m1) && in_discard(s) && counter(1, "lands") == 1, "Mercy beside the castle works as a Deny");
        // On her turn, as a play: lift a Freeze.
        let fz = create_card("freeze", status(0));
        set_counter(0, "frozen", 1);
        expect(!may_attack(0), "frozen");
        let m2 = create_card("mercy", hand(0));
        set_counter(0, "plays", 3);
        invoke(m2, "play", [0, m2]);
        expect(counter(0, "frozen") == 0 && in_discard(fz) && in_discard(m2), "the Freeze is lifted");
        // As a Fortune: two cards.
        create_cards("walls", 4, zone("deck"));
        let m3 = create_card("mercy", hand(0));
        let before = count(hand(0));
        invoke(m3, "play", [0, m3]);
        expect(count(hand(0)) == before - 1 + 2, "drew two");
        // As a proxy land worth 1 (the only use left when not frozen and the deck is empty).
        while count(zone("deck")) > 0 { discard(top(zone("deck"))); }
        let m4 = create_card("mercy", beside(0));
        invoke(m4, "play", [0, m4]);
        expect(counter(0, "lands") == 2 && in_kingdom(m4) && mark(m4, "hp") == 1, "Mercy stands as a land");
        "#,
    );
    done(&t);
}

#[test]
fn sabotage_removes_a_trap_unsprung_and_stops_only_siege_engines() {
    let mut t = table(2, None);
    t.answers(1, &["Sabotage the Cannon"]);
    t.run(
        r#"
        let la = kingdom_with_land(0, "anne");
        let lm = kingdom_with_land(1, "egbert");
        let trap = trap_under(1, lm, "trap-real");
        let sab = give(0, "sabotage");
        set_counter(0, "plays", 3);
        invoke(sab, "play", [0, sab]);
        expect(in_discard(trap) && counter(1, "traps") == 0, "the trap is gone");
        expect(counter(0, "lands") == 1 && counter(1, "lands") == 1, "and it was not sprung");
        // Out of turn: a Cannon can be sabotaged ...
        let s2 = give(1, "sabotage");
        let c = give(0, "cannon");
        make_attack(0, c, "Play Cannon on", lm);
        expect(in_discard(c) && in_discard(s2) && counter(1, "lands") == 1, "the Cannon was stopped");
        // ... Soldiers cannot.
        let s3 = give(1, "sabotage");
        make_attack(0, give(0, "soldiers"), "Play Soldiers on", lm);
        expect(counter(1, "lands") == 0 && zone_of(s3) == hand(1), "no Sabotage against Soldiers");
        "#,
    );
    done(&t);
}

#[test]
fn earthquake_clears_traps_unsprung_and_shakes_the_top_of_every_land() {
    let mut t = table(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        set_character(1, "egbert");
        let castle = castle_for(1);
        let cw = defend(1, castle, "walls");
        let ct = trap_under(1, castle, "trap-real");
        let l1 = land_for(1);
        let h = defend(1, l1, "hills");
        let t1 = trap_under(1, l1, "trap-decoy");
        let l2 = land_for(1);
        let e = give(0, "earthquake");
        set_counter(0, "plays", 3);
        invoke(e, "play", [0, e]);
        expect(in_discard(ct) && in_discard(t1) && counter(1, "traps") == 0, "every trap discarded");
        expect(counter(0, "lands") == 1, "none sprung, though Egbert's traps are real");
        expect(mark(h, "hp") == 1 && !in_kingdom(l2), "1 damage on the top of each land");
        expect(mark(cw, "hp") == 3 && mark(castle, "hp") == 3, "the castle is not reached while land stands");
        "#,
    );
    done(&t);
}

#[test]
fn mutiny_removes_troops_wherever_they_stand() {
    let mut t = table(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        set_character(1, "maria");
        let castle = castle_for(1);
        let k = defend(1, castle, "knights");
        let w = defend(1, castle, "walls");
        let l = land_for(1);
        defend(1, l, "battlements");
        let m = give(0, "mutiny");
        set_counter(0, "plays", 3);
        expect(invoke(m, "can_play", [0, m]), "Knights are a target behind a land and the Walls");
        invoke(m, "play", [0, m]);
        expect(in_discard(k) && counter(1, "troops") == 0, "the Knights are gone");
        expect(in_kingdom(w) && mark(w, "hp") == 3 && counter(1, "defence") == 3 + 3 + 1 + 5, "nothing else moved");
        let m2 = give(0, "mutiny");
        expect(!invoke(m2, "can_play", [0, m2]), "no troops left: no Mutiny");
        "#,
    );
    done(&t);
}

#[test]
fn freeze_stops_attacks_until_the_end_of_the_next_turn() {
    let mut t = table(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        kingdom_with_land(1, "maria");
        let f = give(0, "freeze");
        set_counter(0, "plays", 3);
        invoke(f, "play", [0, f]);
        expect(counter(1, "frozen") == 1 && zone_of(f) == status(1), "Maria is frozen");
        begin_turn(1, 3);
        let c = give(1, "cannon");
        expect(!invoke(c, "can_play", [1, c]), "no attack while frozen");
        let h = give(1, "hills");
        expect(invoke(h, "can_play", [1, h]), "defences are fine");
        end_turn(1);
        expect(counter(1, "frozen") == 0 && in_discard(f), "thawed at the end of her turn");
        begin_turn(1, 3);
        expect(invoke(c, "can_play", [1, c]), "free to attack again");
        "#,
    );
    done(&t);
}

#[test]
fn fortune_draws_two_and_a_penalty_drawn_strikes_at_once() {
    let mut t = table(2, None);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        kingdom_with_land(1, "maria");
        create_card("walls", zone("deck"));
        create_card("plague", zone("deck"));
        let f = give(0, "fortune");
        begin_turn(0, 3);
        do_turn_option(0, #{ kind: "card", card: f, label: "Play Fortune" });
        expect(count(hand(0)) == 1 && find_in(hand(0), "walls") >= 0, "one card kept");
        expect(counter(0, "no_play") == 1 && counter(0, "plays") == 1, "Plague struck: one play for Fortune, one for Plague");
        expect(turn_options(0).len() == 1, "nothing may be played under Plague");
        "#,
    );
    done(&t);
}

// ---------------------------------------------------------------------------------------
// Penalties
// ---------------------------------------------------------------------------------------

#[test]
fn famine_forbids_out_of_turn_cards_for_the_round() {
    let mut t = table(2, None);
    t.answers(1, &["Suffer Famine", "Deny the Pikemen"]);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        let l = kingdom_with_land(1, "maria");
        defend(1, l, "walls");
        let d = give(1, "deny");
        begin_turn(1, 3);
        let f = give(1, "famine");
        strike(1, f);
        expect(counter(1, "famine") == 1 && counter(1, "plays") == 2, "Famine struck, one play used");
        let h = give(1, "hills");
        expect(!invoke(h, "can_play", [1, h]), "no defences this turn");
        end_turn(1);
        expect(zone_of(f) == status(1), "Famine lies before her for the round");
        // Anne's turn: Maria may not Deny.
        make_attack(0, give(0, "soldiers"), "Play Soldiers on", l);
        expect(zone_of(d) == hand(1) && counter(1, "defence") == 3 + 1 + 1, "the Soldiers hit, the Deny stayed in hand");
        // Maria's next turn ends the Famine; now she may Deny.
        begin_turn(1, 3);
        expect(counter(1, "famine") == 0 && in_discard(f), "the round is over");
        end_turn(1);
        let p = give(0, "pikemen");
        make_attack(0, p, "Play Pikemen on", l);
        expect(in_discard(d) && in_discard(p), "Denied");
        "#,
    );
    assert_eq!(t.asked(1), vec!["Suffer Famine", "Deny the Pikemen"]);
    done(&t);
}

#[test]
fn penalties_cost_a_play_and_lifting_one_costs_another() {
    let mut t = table(2, None);
    t.answers(0, &["Lift Plague with Deny"]);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        let l = kingdom_with_land(1, "maria");
        give(0, "deny");
        give(0, "soldiers");
        begin_turn(0, 3);
        strike(0, give(0, "plague"));
        expect(counter(0, "plays") == 1 && counter(0, "no_play") == 0, "lifted: two plays spent");
        let labels = turn_options(0).labels();
        expect(labels.contains("Play Soldiers"), "free to play the last card");
        // Disease: no attacks, defences allowed.
        end_turn(0);
        begin_turn(0, 3);
        strike(0, give(0, "disease"));
        let s = find_in(hand(0), "soldiers");
        let h = give(0, "hills");
        expect(!invoke(s, "can_play", [0, s]) && invoke(h, "can_play", [0, h]), "Disease stops attacks only");
        end_turn(0);
        expect(counter(0, "no_attack") == 0, "for this turn only");
        "#,
    );
    done(&t);
}

// ---------------------------------------------------------------------------------------
// The turn, the end, survival, solo
// ---------------------------------------------------------------------------------------

#[test]
fn a_turn_tops_up_to_five_replacing_penalties_and_allows_three_plays() {
    let mut t = table(2, None);
    t.answers(0, &["Play Land", "Play Land"]);
    t.answers(1, &["Play Hills", "Play Hills on your Castle", "Play Hills", "Play Hills on your Castle", "Play Hills"]);
    t.run(
        r#"
        kingdom_with_land(0, "anne");
        kingdom_with_land(1, "maria");
        create_cards("land", 3, zone("deck"));
        create_card("disease", zone("deck"));
        create_cards("land", 4, zone("deck"));
        take_turn(0);
        expect(count(hand(0)) == 3 && count(zone("deck")) == 2, "six drawn, the Disease replaced, two lands played");
        expect(counter(0, "lands") == 3, "the Disease was one of the three plays");
        for c in cards(zone("deck")) { discard(c); }
        create_cards("hills", 6, zone("deck"));
        take_turn(1);
        expect(count(hand(1)) == 2 && counter(1, "free") == 1, "three Hills played, then the turn is over");
        "#,
    );
    done(&t);
}

#[test]
fn the_game_ends_when_nothing_more_can_be_played_and_ties_go_to_the_higher_noble() {
    let mut t = table(3, None);
    t.run(
        r#"
        set("solo", false);
        kingdom_with_land(0, "charles");
        kingdom_with_land(1, "simon");
        let l = kingdom_with_land(2, "egbert");
        destroy(l);
        set_current(0);
        set("quiet", 0);
        let n = 0;
        while !is_over() && n < 10 { turn(); n += 1; }
        expect(is_over() && n == 3, `one quiet round ends the game (${n} turns)`);
        expect(score(0) == 4 && score(1) == 4 && score(2) == 3, "scores are the defence left");
        "#,
    );
    let g = t.game();
    assert_eq!(g.over.as_ref().map(|o| o.0.clone()), Some(vec![1]), "Simon (2) beats Charles (1) on the tie");
    done(&t);
}

#[test]
fn passing_by_choice_does_not_end_the_game_while_the_deck_has_cards() {
    let mut t = table(2, None);
    t.answers(0, &["End turn", "End turn", "End turn"]);
    t.answers(1, &["End turn", "End turn", "End turn"]);
    t.run(
        r#"
        set("solo", false);
        kingdom_with_land(0, "charles");
        kingdom_with_land(1, "simon");
        for p in 0..2 { for i in 0..6 { give(p, "land"); } }
        create_cards("land", 10, zone("deck"));
        set_current(0);
        set("quiet", 0);
        for i in 0..4 { turn(); }
        expect(!is_over(), "two rounds of passing with cards left in the deck do not end the game");
        for c in cards(zone("deck")) { discard(c); }
        turn();
        turn();
        expect(is_over(), "once the deck is spent, a quiet round ends it");
        "#,
    );
    done(&t);
}

#[test]
fn survival_restarts_the_first_fallen_kingdom_with_village_land_and_mercenaries() {
    let mut t = table(3, Some("survival"));
    t.run(
        r#"
        for id in ["village", "land", "mercenaries-1", "mercenaries-2"] { create_card(id, zone("kit")); }
        kingdom_with_land(0, "anne");
        set_character(1, "maria");
        let c1 = castle_for(1);
        let old = give(1, "hills");
        kingdom_with_land(2, "simon");
        make_attack(0, give(0, "cannon"), "Play Cannon on", c1);
        expect(!is_out(1) && counter(1, "restarted") == 1, "Maria restarts");
        expect(def_of(bottom(kingdom(1))) == "village" && mark(bottom(kingdom(1)), "castle") == 1, "around the Village");
        expect(counter(1, "lands") == 1 && counter(1, "defence") == 3, "with the Land");
        expect(find_in(hand(1), "mercenaries-1") >= 0 && find_in(hand(1), "mercenaries-2") >= 0, "and both Mercenaries in hand");
        expect(count(hand(1)) == 2 && in_discard(old), "the Mercenaries are her whole hand");
        expect(hand_size(1) == 4, "filling to four from now on");
        // A second fall is final.
        set_character(2, "simon");
        let v = bottom(kingdom(1));
        destroy(lines(1)[1]);
        make_attack(0, give(0, "cannon"), "Play Cannon on", v);
        expect(is_out(1), "out for good");
        "#,
    );
    done(&t);
}

#[test]
fn solo_decks_hold_eighteen_solo_cards_each_and_charles_brings_gold_and_dawn_raid() {
    let mut t = table(3, Some("solo-expert"));
    t.run(
        r#"
        setup();
        for d in ["attack-deck", "defend-deck", "action-deck"] {
            expect(count(zone(d)) == 18, `${d}: ${count(zone(d))}`);
        }
        let gold = find_in(zone("action-deck"), "gold");
        let denies = 0;
        for c in cards(zone("action-deck")) { if def_of(c) == "deny" { denies += 1; } }
        expect(gold >= 0 && denies == 2, "Gold took the place of one of the three solo Denies");
        // The rules have both cards found when Anne or Charles plays: Dawn Raid is in the
        // attack deck too, in place of a Soldiers, and with no Anne at the table nobody
        // takes it straight (it is shared out like any card).
        let raid = find_in(zone("attack-deck"), "dawn-raid");
        let soldiers = 0;
        for c in cards(zone("attack-deck")) { if def_of(c) == "soldiers" { soldiers += 1; } }
        expect(raid >= 0, "Charles plays: Dawn Raid is found too");
        expect(soldiers == def_value("soldiers", "solo") - 1, `Dawn Raid took a Soldiers' place (${soldiers} left)`);
        expect(rightful_holder(raid) == -1, "no Anne at the table: Dawn Raid goes to nobody straight");
        let penalties = 0;
        for c in cards(zone("action-deck")) { if has_keyword(c, "penalty") { penalties += 1; } }
        expect(penalties == 3, "the three penalties are in the action deck");
        expect(counter(0, "defence") == 3 + 1 + 2 + 1, "Simon: Castle, Land + Moat, Land");
        expect(counter(1, "defence") == 3 + 1 + 2 + 1 + 2 + 2, "Egbert: Castle, Land + Moat, Land + Hills, Village");
        expect(character(2) == "charles" && counter(2, "enemy") == 1, "Charles is an enemy kingdom");
        // Gold, when dealt, goes straight to Charles.
        for c in cards(zone("action-deck")) { if c != gold { discard(c); } }
        solo_round();
        expect(zone_of(gold) == hand(2), "Gold went to Charles");
        "#,
    );
    done(&t);
}

/// Without Anne or Charles neither Gold nor Dawn Raid joins the solo decks (Egbert's
/// Village, also brought along, is built into his kingdom instead).
#[test]
fn solo_decks_without_anne_or_charles_keep_their_cards() {
    let mut t = table(3, Some("solo-easy"));
    t.run(
        r#"
        setup();
        expect(find_in(zone("attack-deck"), "dawn-raid") < 0, "no Dawn Raid");
        expect(find_in(zone("action-deck"), "gold") < 0, "no Gold");
        for d in ["attack-deck", "defend-deck", "action-deck"] {
            expect(count(zone(d)) == 18, `${d}: ${count(zone(d))}`);
        }
        "#,
    );
    done(&t);
}

#[test]
fn solo_enemies_strike_the_player_where_a_land_falls_and_a_fallen_enemy_lets_a_card_be_discarded() {
    let mut t = table(3, Some("solo-easy"));
    t.answers(0, &["Discard Land, you take Pikemen, Enemy 2 takes Deny"]);
    t.run(
        r#"
        set("solo", true);
        set_character(0, "egbert"); set_character(1, "baligant"); set_character(2, "maria");
        set_counter(1, "enemy", 1); set_counter(2, "enemy", 1);
        castle_for(0);
        let weak = land_for(0);
        let strong = land_for(0);
        defend(0, strong, "walls");
        castle_for(1); castle_for(2); land_for(2);
        // An enemy with Soldiers (2) fells the bare land rather than dent the Walls.
        enemy_use(2, give(2, "soldiers"));
        expect(!in_kingdom(weak) && in_kingdom(strong), "the land that falls is the one chosen");
        expect(counter(1, "defence") == 3, "enemies never attack each other");
        // Knock out enemy 1; a round then deals three cards for two kingdoms.
        destroy(bottom(kingdom(1)));
        expect(is_out(1) && !is_over(), "one enemy down, the game goes on");
        for c in cards(zone("attack-deck")) { discard(c); }
        create_card("pikemen", zone("attack-deck"));
        create_card("land", zone("defend-deck"));
        create_card("deny", zone("action-deck"));
        set_round(0);
        solo_round();
        expect(find_in(zone("discard"), "land") >= 0, "the Land was discarded");
        // The player (answering with the first option) attacks Maria with the Pikemen; she
        // spends her Deny at this first chance.
        expect(find_in(zone("discard"), "deny") >= 0 && find_in(zone("discard"), "pikemen") >= 0, "Maria denied the Pikemen");
        expect(counter(2, "lands") == 1, "her land stands");
        "#,
    );
    done(&t);
}

/// Rough costs of the script operations the rules lean on (release build):
/// `cargo test --release -p crown-tools --test integration ttk::micro -- --ignored --nocapture`.
#[test]
#[ignore]
fn micro() {
    let cases = [
        ("empty loop", "for i in 0..N { }"),
        ("rules fn", "for i in 0..N { per_line(); }"),
        ("counter", "for i in 0..N { counter(0, \"lands\"); }"),
        ("has_keyword", "for i in 0..N { has_keyword(c, \"attack\"); }"),
        ("invoke can_play", "for i in 0..N { invoke(c, \"can_play\", [0, c]); }"),
        ("map literal", "for i in 0..N { let m = #{ label: \"x\", kind: \"card\", card: c }; }"),
        ("interpolate", "for i in 0..N { let s = `Play ${name_of(c)} on ${pname(1)}'s Land`; }"),
        ("named_lines", "for i in 0..N { named_lines(1); }"),
        ("open_lines", "for i in 0..N { open_lines(1); }"),
        ("target_options", "for i in 0..N { target_options(0, \"Play Cannon on\", 4); }"),
        ("turn_options", "for i in 0..N { turn_options(0); }"),
        ("fold attack_value", "for i in 0..N { attack_value(0, c); }"),
        ("log", "for i in 0..N { log(`x ${i}`); }"),
    ];
    for (what, body) in cases {
        let mut t = table(4, None);
        t.game_mut().transcript = None;
        let start = std::time::Instant::now();
        t.run(&format!(
            r#"
            for p in 0..4 {{ let l = kingdom_with_land(p, ["anne", "maria", "simon", "charles"][p]); land_for(p); defend(p, l, "hills"); }}
            let c = give(0, "cannon"); give(0, "hills"); give(0, "deny"); give(0, "land"); give(0, "spread");
            set_counter(0, "plays", 3);
            {body}
            "#
        ).replace("N", "1000"));
        println!("{what:20} {:>8.2} us", start.elapsed().as_secs_f64() * 1e6 / 1000.0);
    }
}

#[test]
fn render_shows_kingdoms_with_damage_and_hides_traps() {
    let mut t = table(2, None);
    t.run(
        r#"
        let l = kingdom_with_land(0, "anne");
        let w = defend(0, l, "walls");
        defend(0, l, "hills");
        trap_under(0, l, "trap-real");
        kingdom_with_land(1, "maria");
        set_mark(w, "hp", 1);
        add_counter(0, "defence", -2);
        let r = render(1);
        expect(r.contains("P1 (Anne, Viscountess of Narbonne, 6): defence 7, 1 land, 0 in hand\n"), r);
        expect(r.contains("    Land 1 (1): Walls (1/3), Hills (2), trap\n"), r);
        expect(!r.contains("real"), "the kind of trap is not shown to a rival");
        let mine = render(0);
        expect(mine.contains("    Land 1 (1): Walls (1/3), Hills (2), trap: Trap (real)\n"), mine);
        expect(mine.contains("You, P1 (Anne, Viscountess of Narbonne, 6): defence 7, lands 1, plays 0"), mine);
        "#,
    );
    done(&t);
}

#[test]
fn spread_shares_meet_traps_and_answers_one_by_one() {
    let mut t = table(3, None);
    t.answers(
        0,
        &["Send a share of Cannon to P2's Land 1", "2 damage on P2's Land 1", "Send a share of Cannon to P3's Land 1"],
    );
    t.answers(1, &["Turn it on P1's Land 1"]);
    t.answers(2, &["Deny the Cannon"]);
    t.run(
        r#"
        let a1 = kingdom_with_land(0, "anne");
        defend(0, a1, "walls");
        let a2 = land_for(0);
        let m = kingdom_with_land(1, "maria");
        let trap = trap_under(1, m, "trap-real");
        let s = kingdom_with_land(2, "simon");
        give(2, "deny");
        set_counter(0, "spread", 1);
        make_attack(0, give(0, "cannon"), "Play Cannon on", -1);
        expect(in_discard(trap) && in_kingdom(m), "Maria's real trap took her share and turned it back");
        expect(mark(top_card(a1), "hp") == 1 && in_kingdom(a2), "Maria put the 2 on Anne's walled Land 1");
        expect(in_kingdom(s) && counter(2, "lands") == 1, "Simon denied his share only");
        "#,
    );
    done(&t);
}

#[test]
fn a_hand_of_dead_cards_discards_one_to_make_room() {
    let mut t = table(2, None);
    t.answers(0, &["Discard Walls to make room", "Play Land", "End turn"]);
    t.run(
        r#"
        set_character(0, "anne");
        let c = castle_for(0);
        defend(0, c, "hills");
        defend(0, c, "moat");
        kingdom_with_land(1, "maria");
        for id in ["walls", "walls", "moat", "deny", "gold"] { give(0, id); }
        create_cards("land", 3, zone("deck"));
        take_turn(0);
        expect(count(hand(0)) == 4 && find_in(zone("discard"), "walls") >= 0, "one Walls discarded");
        take_turn(0);
        expect(count(hand(0)) == 4 && counter(0, "lands") == 1, "next turn: a Land drawn and played");
        // With the deck spent, a dead hand just passes.
        while count(zone("deck")) > 0 { discard(top(zone("deck"))); }
        let l = lines(0)[1];
        defend(0, l, "hills");
        defend(0, l, "hills");
        let n = count(hand(0));
        take_turn(0);
        expect(count(hand(0)) == n, "no discard once the deck is spent");
        "#,
    );
    done(&t);
}

/// The pack states its own rules as invariants (scripts/take-the-kingdom/invariants.rhai):
/// in a copy whose top-up draws one card too many, `crown test` fails every golden game
/// that tops up, naming the invariant, the decision and the transcript's last line, at
/// the invariant's definition; `crown check` finds it too.
#[test]
fn a_hand_drawn_past_its_size_breaks_an_invariant() {
    let dir = crate::common::project_copy(&[
        "content/take-the-kingdom",
        "scripts/take-the-kingdom",
        "tests/golden/take-the-kingdom",
    ]);
    crate::common::edit_after(
        &dir.path().join("scripts/take-the-kingdom/rules.rhai"),
        &["fn top_up(p) {"],
        "while count(hand(p)) < size {",
        "while count(hand(p)) < size + 1 {",
    );
    let root = dir.path().to_string_lossy().to_string();
    let run = |args: &[&str]| {
        let o = std::process::Command::new(crate::common::crown_bin())
            .args(["--project", &root])
            .args(args)
            .output()
            .expect("crown runs");
        (o.status.code(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
    };
    let (code, out) = run(&["test", "take-the-kingdom"]);
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("invariant `invariant_top_up_stops_at_the_hand_size` is broken before decision"), "{out}");
    assert!(out.contains("past a hand of 5") && out.contains("the transcript's last line"), "{out}");
    assert!(out.contains("invariants.rhai:"), "placed at the invariant: {out}");
    let (code, out) = run(&["check", "take-the-kingdom"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("error[invariant-broken]") && out.contains("invariant_top_up_stops_at_the_hand_size"),
        "{out}"
    );
}

/// What the others are told of a seat's draws adds up to the cards it really drew, in
/// every golden game of several players: each card moved from a deck into a hand is
/// counted in a "draws N cards" told to the others, or struck at once as a penalty (told
/// by name). A penalty Baligant keeps is counted with the rest of the draw, so a rival
/// cannot deduce it from the hand's size. Set-up is left out: a noble's card (Charles'
/// Gold) is known to all from the noble's text.
#[test]
fn narrated_draws_count_the_cards_drawn() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/take-the-kingdom");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "transcript") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut drawn: std::collections::BTreeMap<String, i64> = Default::default();
        let mut told: std::collections::BTreeMap<String, i64> = Default::default();
        let mut fresh: Vec<(String, String)> = Vec::new();
        // From the first turn: a noble's card given at set-up is told by the noble's text.
        let first = text.find("\n-- turn ").expect("a first turn");
        for line in text[first..].lines() {
            if line.starts_with("choice ") {
                fresh.clear();
            }
            if let Some(m) = line.strip_prefix("move ") {
                let (card, rest) = m.split_once(' ').unwrap_or((m, ""));
                if let Some((from, to)) = rest.split_once(" -> ") {
                    let to = to.split(' ').next().unwrap_or("");
                    if from.ends_with("deck") {
                        if let Some(p) = to.strip_prefix("hand@") {
                            *drawn.entry(p.to_string()).or_default() += 1;
                            fresh.push((card.to_string(), p.to_string()));
                        }
                    } else if let Some(p) = from.strip_prefix("hand@") {
                        // A penalty struck as it was drawn is told by name, not counted.
                        if to == format!("status@{p}") && fresh.contains(&(card.to_string(), p.to_string())) {
                            *told.entry(p.to_string()).or_default() += 1;
                        }
                    }
                }
            }
            if let Some(t) = line.strip_prefix("to others: ") {
                let words: Vec<&str> = t.split(' ').collect();
                if let [p, "draws", n, "card" | "cards"] = words.as_slice() {
                    *told.entry(p.to_string()).or_default() += n.parse::<i64>().unwrap();
                }
            }
        }
        if drawn.len() < 2 {
            continue; // a solo game: no one else is told
        }
        assert_eq!(drawn, told, "{}: cards drawn and draws told, by seat", path.display());
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} golden games of several players");
}

/// A person sees beside each option what it meets or brings: a build its defence, an attack
/// target the defences on the line, by name and hit points.
#[test]
fn a_person_sees_what_each_target_and_build_holds() {
    let mut answers = String::new();
    for a in [1, 1, 1, 1, 1, 3] {
        answers.push_str(&format!("{a}\n"));
    }
    answers.push_str(&"1\n".repeat(25));
    answers.push_str("quit\n");
    let mut child = std::process::Command::new(crate::common::crown_bin())
        .args(["--project"])
        .arg(crate::common::repo_project().root)
        .args(["play", "take-the-kingdom", "--players", "2", "--seed", "3"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(answers.as_bytes()).unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    assert!(out.contains("   1. Take Walls for your Castle\n      (defence 3)\n"), "{out}");
    assert!(out.contains("(no defence on it; 1 hit point in all)"), "{out}");
    assert!(out.contains("(defended by Moat 2; 3 hit points in all)"), "{out}");
}
