//! The Last Kingdom: whole games end by the rules at 2, 3 and 4 players, and the special
//! rules (market slide, disbanding, on-your-own, momentum, double down, locked marker,
//! ties, final tie-breaks) hold in positions set up for them.

use std::sync::Arc;

use crate::common::Table;
use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::load::{load_pack, LoadOptions, Project};

use crown_engine::game::record::transcript_text;
use crown_engine::game::state::NO_ZONE;
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::script::api::{call_script_fn, with_installed};

fn pack() -> Arc<Pack> {
    let project = Project::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let loaded = load_pack(&project, "the-last-kingdom", LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    Arc::new(loaded.pack.expect("pack loads"))
}

// ---------------------------------------------------------------------------------------
// Whole games
// ---------------------------------------------------------------------------------------

/// Checks run by the rules' own functions after every turn: every army and peace token is
/// on the board or in its pool, and no counter has left its range.
const CHECKS: &str = r#"
fn tlk_check() {
    for k in army_kinds() {
        let on = 0;
        for r in 0..5 { for pc in pieces_at(r) { if piece_kind(pc) == k { on += 1; } } }
        let total = if k == "danes" { 24 } else { 14 };
        if on + supply(k) != total { return `${k}: ${on} on the board and ${supply(k)} in the pool`; }
    }
    if peace_count() + supply("peace") != 5 { return "peace tokens went missing"; }
    for p in 0..players() {
        if counter(p, "tokens") < 0 { return `${player_name(p)} has negative tokens`; }
        for k in army_kinds() {
            let a = counter(p, "affinity-" + k);
            if a < 0 || a > 5 { return `${player_name(p)} has affinity ${a}`; }
        }
    }
    ""
}
"#;

/// Play one game turn by turn, checking the table after every turn.
fn checked_game(pack: &Arc<Pack>, players: usize, seed: u64, bot: &str) -> Result<(), String> {
    let mut cfg = GameConfig::new(seed, players);
    cfg.transcript = false;
    let agents = (0..players).map(|s| bots::bot(bot, seed, s).expect("bot")).collect();
    let game = Game::new(pack.clone(), cfg, agents).expect("game starts");
    let rules = pack.rules_script().expect("rules").ast.clone();
    let checks = crown_engine::script::compile("checks", CHECKS).expect("checks compile");
    let merged = rules.merge(&checks);
    let ended = crown_engine::script::compile("over", "fn o() { is_over() }").expect("compiles");
    let (_game, r) = with_installed(game, || -> Result<(), String> {
        let _ = call_script_fn(&rules, "setup", vec![]).map_err(|e| e.to_string())?;
        for turn in 0..6000 {
            let over = call_script_fn(&merged, "tlk_check", vec![]).map_err(|e| e.to_string())?;
            let msg = over.to_string();
            if !msg.is_empty() {
                return Err(format!("after turn {turn}: {msg}"));
            }
            if call_script_fn(&ended, "o", vec![]).map_err(|e| e.to_string())?.as_bool().unwrap_or(false) {
                return Ok(());
            }
            let _ = call_script_fn(&rules, "turn", vec![]).map_err(|e| e.to_string())?;
        }
        Err("the game did not end in 6000 turns".into())
    });
    r
}

#[test]
fn games_end_and_the_table_stays_consistent() {
    let pack = pack();
    for players in 2..=4 {
        for seed in 0..12 {
            for bot in ["random", "greedy"] {
                if let Err(e) = checked_game(&pack, players, seed, bot) {
                    panic!("{players} players, seed {seed}, {bot}: {e}");
                }
            }
        }
    }
}

#[test]
fn every_scenario_plays_to_the_end_with_one_winner() {
    let pack = pack();
    let cases: &[(Option<&str>, usize)] = &[
        (None, 2),
        (None, 3),
        (None, 4),
        (Some("two-players"), 2),
        (Some("three-players"), 3),
        (Some("four-players"), 4),
    ];
    for &(sc, n) in cases {
        for seed in 0..8 {
            let mut cfg = GameConfig::new(seed, n);
            cfg.scenario = sc.map(str::to_string);
            let agents = (0..n).map(|s| bots::bot("random", seed, s).expect("bot")).collect();
            let game = Game::new(pack.clone(), cfg, agents).expect("game starts");
            let (game, o) = game.run();
            assert_eq!(o.status, Status::Finished, "{sc:?} {n}p seed {seed}:\n{}", transcript_text(&game, &o));
            assert_eq!(o.winners.len(), 1, "{sc:?} {n}p seed {seed}: {}", o.reason);
            // The winner has the most VP.
            let best = o.scores.iter().max().copied().unwrap_or(0);
            assert_eq!(o.scores[o.winners[0]], best, "{sc:?} {n}p seed {seed}");
            // No card is lost.
            for (c, card) in game.state.cards.iter().enumerate() {
                assert!(card.zone != NO_ZONE, "{sc:?} seed {seed}: card {c} is nowhere");
            }
        }
    }
}

#[test]
fn two_player_side_of_every_plaque_matches_plaques_toml() {
    // A plaque turned to its 2-player side reads its `back` from plaques.toml: every step
    // and parameter arrives, and the front's values do not leak through.
    let pack = pack();
    let mut t = table(2, None);
    for d in pack.defs.iter().filter(|d| d.kind == crown_engine::content::DefKind::Plaque) {
        let id = &d.def.id;
        let back = d.def.back.as_ref().expect("every plaque has a 2-player side");
        let mut checks = format!("let c = create_card(\"{id}\", zone(\"probe\"));\nset_side(c, \"back\");\n");
        checks += &format!("expect(side(c) == \"back\", \"{id} is turned over\");\n");
        for (k, v) in &back.attrs {
            checks += &format!("expect(attr(c, \"{k}\") == \"{v}\", \"{id} attr {k}: \" + attr(c, \"{k}\"));\n");
        }
        for (k, v) in &back.values {
            checks += &format!("expect(value(c, \"{k}\") == {v}, \"{id} value {k}\");\n");
        }
        for k in d.def.values.keys().filter(|k| !back.values.contains_key(*k)) {
            checks += &format!("expect(value(c, \"{k}\") == 0, \"{id}: the front's {k} leaks onto the back\");\n");
        }
        let name = if back.name.is_empty() { &d.def.name } else { &back.name };
        checks += &format!("expect(name_of(c) == \"{name}\", \"{id} name\");\n");
        t.run(&checks);
    }
}

// ---------------------------------------------------------------------------------------
// Positions: a table set up by a Rhai snippet that can use every function of the rules,
// with the players' answers given in advance by label.
// ---------------------------------------------------------------------------------------

/// Helpers for position snippets.
const PRELUDE: &str = r#"
fn expect(ok, msg) { if !ok { throw msg; } }
// A table after setup with no armies, heroes or peace tokens on the board, every leader
// parked in Kent (region 4), nobody holding tokens or VP, the draft skipped, and the
// conflict in Northumbria (0) with the succession token on Mercia (1).
fn bare_table() {
    setup();
    for r in 0..5 {
        for pc in pieces_at(r) {
            if piece_owner(pc) < 0 && !piece_kind(pc).ends_with("-token") { return_piece(pc); }
        }
    }
    for p in 0..players() {
        move_piece(figure_of(p), 4);
        set_counter(p, "tokens", 0);
        set_counter(p, "vp", 0);
        for k in army_kinds() { set_counter(p, "affinity-" + k, 0); }
    }
    set_token("conflict", 0);
    set_token("succession", 1);
    set_phase("play");
    start_conflict(0);
}
fn armies(r, d, w, m, n) {
    for i in 0..d { put_army("danes", r); }
    for i in 0..w { put_army("west-saxons", r); }
    for i in 0..m { put_army("mercians", r); }
    for i in 0..n { put_army("northumbrians", r); }
}
// Armies in region r by people, counted from the pieces.
fn counts(r) {
    let n = [0, 0, 0, 0];
    for pc in pieces_at(r) {
        let i = people_index(piece_kind(pc));
        if i < 4 { n[i] += 1; }
    }
    n
}
fn backs(p, side) { set_counter(p, "side", side); }
fn market_ids() {
    let out = [];
    for c in cards(zone("market")) { out.push(def_of(c)); }
    out
}
// Put the plaques in this order (slot 1 first).
fn arrange_market(ids) {
    let m = zone("market");
    for id in ids { move_bottom(find_in(m, id), m); }
}
"#;

/// A table of this pack (seed 5); seats take the first option when nothing is queued.
fn table(players: usize, scenario: Option<&str>) -> Table {
    Table::new(pack(), PRELUDE, players, 5, scenario, false)
}

/// A test passes only if every queued answer was used.
fn done(t: &Table) {
    let left = t.unused_answers();
    assert!(left.iter().all(Vec::is_empty), "answers never asked for: {left:?}\n{}", t.transcript());
}

/// The labels of the options in the menu a snippet returns (a call of `turn_options`, say).
fn options_of(t: &mut Table, snippet: &str) -> Vec<String> {
    let text =
        format!("{PRELUDE}\nfn probe() {{ let out = \"\"; for l in {snippet}.labels() {{ out += l + \"|\"; }} out }}");
    let ast = crown_engine::script::compile("probe", &text).expect("probe compiles");
    let r = t.with_game(|game| {
        let merged = game.pack.rules_script().expect("rules").ast.merge(&ast);
        with_installed(game, || call_script_fn(&merged, "probe", vec![]))
    });
    let joined = r.expect("probe runs").to_string();
    joined.split('|').filter(|s| !s.is_empty()).map(str::to_string).collect()
}

// ---------------------------------------------------------------------------------------
// The market
// ---------------------------------------------------------------------------------------

#[test]
fn a_used_plaque_goes_to_the_dearest_slot_and_the_rest_slide_down() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        arrange_market(["to-see-is-to-be-wise", "i-shall-take-what-is-mine", "no-mercy",
            "make-the-right-choice", "destiny-is-all", "i-am-dane", "england-is-born"]);
        expect(get("slot_costs") == [1, 1, 2, 2, 3, 3, 4], "slot costs");
        set_counter(0, "tokens", 10);
        "#,
    );
    // Slot 4 costs 2; the passive action does not end the turn; then a primary one in slot 1.
    t.answers(0, &["Use Make the Right Choice", "Raise Mercian affinity to 1", "Use To See Is to Be Wise"]);
    t.run(
        r#"
        let side = counter(0, "side");
        turn();
        expect(counter(0, "tokens") == 10 - 2 - 1, `paid ${10 - counter(0, "tokens")}, not 2 + 1`);
        expect(counter(0, "affinity-mercians") == 1, "affinity raised");
        expect(counter(0, "side") == 3 - side, "allegiance turned");
        expect(market_ids() == ["i-shall-take-what-is-mine", "no-mercy", "destiny-is-all",
            "i-am-dane", "england-is-born", "make-the-right-choice", "to-see-is-to-be-wise"],
            `market is ${market_ids()}`);
        expect(current() == 1, "a primary action ends the turn");
        expect(!has_passed(0) && !has_passed(1), "a primary action breaks the run of passes");
        "#,
    );
    done(&t);
}

#[test]
fn plaques_cost_their_slot_and_unaffordable_ones_are_not_offered() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        armies(0, 1, 1, 0, 0);
        arrange_market(["no-mercy", "i-am-dane", "england-is-born", "to-see-is-to-be-wise",
            "make-the-right-choice", "i-shall-take-what-is-mine", "destiny-is-all"]);
        set_counter(0, "tokens", 2);
        "#,
    );
    let labels = options_of(&mut t, "turn_options(0)");
    // Each plaque's label says what it costs on its slot and what it does.
    for l in [
        "Use No Mercy (1 token): remove 1 army from each of two neighbouring regions, then +2 VP",
        "Use I Am Dane (1 token): put 2 Danes in a region",
        "Use England Is Born (2 tokens): put 1 West Saxon, 1 Mercian and 1 Northumbrian in different regions",
        "Use To See Is to Be Wise (2 tokens): turn your allegiance",
        "Pass",
        "Prepare for invasion: take 0 tokens and sit out the rest of this conflict",
    ] {
        assert!(labels.contains(&l.to_string()), "{l} missing from {labels:?}");
    }
    for l in ["Use Make the Right Choice", "Use I Shall Take What Is Mine", "Use Destiny Is All"] {
        assert!(!labels.iter().any(|x| x.starts_with(l)), "{l} offered with 2 tokens: {labels:?}");
    }
}

#[test]
fn market_actions_are_carried_out_as_far_as_they_can_be() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        // Northumbria (0) and Mercia (1) both hold armies; Kent (4) holds one; Wessex (3) none.
        armies(0, 1, 0, 0, 0);
        armies(1, 0, 1, 0, 0);
        armies(4, 0, 0, 1, 0);
        // No Mercy must hit two armies when it can: only pairs of two occupied neighbours.
        expect(strike_pairs("armies") == [[0, 1], [1, 4]], `pairs ${strike_pairs("armies")}`);
        // Against Saxon armies only (Brida's Vengeance): Mercia and Kent.
        expect(strike_pairs("saxons") == [[1, 4]], `Saxon pairs ${strike_pairs("saxons")}`);
        // I Shall Take What Is Mine marches 2 armies: no region holds 2, so any occupied one.
        expect(take_sources(2) == [0, 1, 4], `sources ${take_sources(2)}`);
        armies(1, 1, 0, 0, 0);
        expect(take_sources(2) == [1], `with 2 in Mercia: ${take_sources(2)}`);
        // With no army anywhere, any neighbouring pair will do (the VP are still gained).
        for r in 0..5 { for pc in pieces_at(r) { if piece_owner(pc) < 0 && people_index(piece_kind(pc)) < 4 { return_piece(pc); } } }
        expect(strike_pairs("armies").len() == 7, "all seven neighbouring pairs");
        expect(take_sources(2) == [], "nothing to march");
        "#,
    );
}

// ---------------------------------------------------------------------------------------
// Disbanding
// ---------------------------------------------------------------------------------------

#[test]
fn disbanding_trims_the_largest_peoples_first() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        // [Danes, West Saxons, Mercians, Northumbrians] before -> after.
        let cases = [
            [[8, 1, 0, 0], [4, 1, 0, 0]],
            [[3, 3, 1, 0], [2, 2, 1, 0]],
            [[4, 4, 4, 4], [1, 1, 1, 1]],
            [[6, 2, 1, 1], [1, 1, 1, 1]],
            [[2, 2, 2, 0], [1, 1, 1, 0]],
            [[3, 1, 1, 1], [2, 1, 1, 1]],
            [[0, 5, 0, 2], [0, 3, 0, 2]],
            [[3, 3, 3, 0], [1, 1, 1, 0]],
            [[2, 2, 1, 0], [2, 2, 1, 0]],
            [[1, 1, 1, 1], [1, 1, 1, 1]],
        ];
        for c in cases {
            let b = c[0];
            armies(2, b[0], b[1], b[2], b[3]);
            put_hero("hero-ubba", 2);
            disband(2);
            expect(counts(2) == c[1], `${b} became ${counts(2)}, not ${c[1]}`);
            let heroes = 0;
            for pc in pieces_at(2) { if piece_kind(pc) == "hero-ubba" { heroes += 1; } }
            expect(heroes == 1, "heroes are never disbanded");
            for pc in pieces_at(2) { if piece_owner(pc) < 0 { return_piece(pc); } }
        }
        "#,
    );
}

#[test]
fn a_won_conflict_disbands_but_a_tie_does_not() {
    let mut t = table(2, None);
    t.run(
        r#"
        bare_table();
        backs(0, 1);
        backs(1, 2);
        armies(0, 5, 2, 0, 0);
        set("invasion", 0);
        pass(0);
        resolve_conflict();
        expect(counts(0) == [3, 2, 0, 0], `after a Dane win: ${counts(0)}`);
        // A tie in Mercia (now the conflict region): nothing is disbanded.
        armies(1, 4, 4, 0, 0);
        set("invasion", 1);
        resolve_conflict();
        expect(counts(1) == [4, 4, 0, 0], `after a tie: ${counts(1)}`);
        "#,
    );
}

// ---------------------------------------------------------------------------------------
// Winning and losing: affinity VP, on your own, momentum, double down
// ---------------------------------------------------------------------------------------

#[test]
fn winners_score_their_best_five_and_a_lone_winner_gets_five_more() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        backs(0, 2);
        backs(1, 1);
        backs(2, 1);
        set_counter(0, "affinity-west-saxons", 3);
        set_counter(0, "affinity-mercians", 1);
        set_counter(0, "affinity-northumbrians", 2);
        set_counter(0, "affinity-danes", 5);
        // 4 West Saxons, 2 Mercians, 1 Northumbrian and a Mercian hero against 3 Danes.
        armies(0, 3, 4, 2, 1);
        put_hero("hero-aethelflaed", 0);
        set("invasion", 0);
        pass(0);
        // What each seat is told before the conflict is what it then gets.
        let told = render_status(0);
        expect(told.contains("if it were resolved now: the Saxons would win; you would score 19 VP (affinities 3 + 3 + 3 + 3 + 2, +5 for winning on their own)"), told);
        expect(render_status(1).contains("the Saxons would win; you would take 2 tokens"), render_status(1));
        resolve_conflict();
        // Best five at P1's affinities: 4 West Saxons (3 each) + the Northumbrian (2) = 14,
        // Danes are on the losing side and count nothing; on her own: +5.
        expect(counter(0, "vp") == 19, `P1 scored ${counter(0, "vp")}`);
        expect(counter(1, "vp") == 0 && counter(2, "vp") == 0, "losers score no VP");
        expect(counter(1, "tokens") == 2 && counter(2, "tokens") == 2, "two losers: 2 tokens each, no bonus");
        expect(peace_side(0) == 2, "a Saxon peace token in Northumbria");
        "#,
    );
}

#[test]
fn a_lone_loser_gets_two_more_tokens_and_shared_wins_get_no_bonus() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        backs(0, 1);
        backs(1, 1);
        backs(2, 2);
        set_counter(0, "affinity-danes", 2);
        set_counter(1, "affinity-danes", 1);
        armies(0, 4, 1, 0, 0);
        set("invasion", 2);
        pass(2);
        expect(render_status(1).contains("the Danes would win; you would score 4 VP"), render_status(1));
        expect(render_status(2).contains("the Danes would win; you would take 4 tokens"), render_status(2));
        resolve_conflict();
        expect(counter(0, "vp") == 8, `P1 scored ${counter(0, "vp")}`);
        expect(counter(1, "vp") == 4, `P2 scored ${counter(1, "vp")}`);
        expect(counter(2, "tokens") == 4, `the lone loser got ${counter(2, "tokens")} tokens`);
        "#,
    );
}

#[test]
fn leaders_add_strength_to_their_side_but_never_score() {
    let mut t = table(2, None);
    t.run(
        r#"
        bare_table();
        backs(0, 2);
        backs(1, 1);
        set_counter(0, "affinity-west-saxons", 4);
        armies(0, 3, 1, 0, 0);
        // P1's leader (strength >= 2) tips Northumbria to the Saxons.
        move_piece(figure_of(0), 0);
        add_counter(0, "strength-bonus", 2);
        let st = strengths(0);
        expect(st[1] == 1 + leader_strength(0) && st[0] == 3, `strengths ${st}`);
        set("invasion", 0);
        pass(0);
        // Momentum on the Saxons: P1 is not on her own, so only the armies score.
        set("momentum", 2);
        resolve_conflict();
        expect(peace_side(0) == 2, "the Saxons win");
        expect(counter(0, "vp") == 4, `P1 scored ${counter(0, "vp")}: the leader must not count`);
        "#,
    );
}

#[test]
fn momentum_counts_as_one_more_player_on_its_side() {
    let mut t = table(2, None);
    t.run(
        r#"
        bare_table();
        expect(get("momentum") > 0, "2 players use the momentum marker");
        backs(0, 1);
        backs(1, 2);
        set_counter(0, "affinity-danes", 1);
        // Momentum on the Danes, the Danes win: the lone Dane winner gets no bonus, the lone
        // Saxon loser does.
        set("momentum", 1);
        armies(0, 3, 0, 0, 0);
        set("invasion", 0);
        pass(0);
        resolve_conflict();
        expect(counter(0, "vp") == 3, `winner with momentum against: ${counter(0, "vp")}`);
        expect(counter(1, "tokens") == 4, `lone loser: ${counter(1, "tokens")} tokens`);
        expect(get("momentum") == 1, "momentum shows the winning side");
        // Now in Mercia with momentum on the Danes, the Saxons win: the Saxon winner is alone
        // (+5), the Dane loser counts double (no bonus).
        set_counter(1, "affinity-mercians", 2);
        armies(1, 0, 0, 2, 0);
        set("invasion", 1);
        resolve_conflict();
        expect(counter(1, "vp") == 4 + 5, `winner against the momentum: ${counter(1, "vp")}`);
        expect(counter(0, "tokens") == 2, `loser on the momentum side: ${counter(0, "tokens")} tokens`);
        expect(get("momentum") == 2, "momentum flips to the Saxons");
        // A tie leaves the marker alone.
        let r = get("conflict");
        set("invasion", 0);
        resolve_conflict();
        expect(get("momentum") == 2, "a tie does not move the momentum marker");
        expect(peace_side(r) == 0, "no peace token after a tie");
        "#,
    );
}

#[test]
fn double_down_lets_only_the_doubler_score_and_locks_their_side() {
    let mut t = table(2, None);
    t.run(
        r#"
        bare_table();
        arrange_market(["england-is-born", "i-am-dane", "to-see-is-to-be-wise", "no-mercy",
            "make-the-right-choice", "i-shall-take-what-is-mine", "destiny-is-all"]);
        backs(0, 2);
        backs(1, 2);
        set_counter(0, "tokens", 5);
        set_counter(1, "tokens", 5);
        set_counter(0, "affinity-west-saxons", 2);
        set_counter(1, "affinity-west-saxons", 3);
        "#,
    );
    t.answers(
        0,
        &[
            "Use England Is Born",
            "Put a West Saxon in Northumbria",
            "Put a Mercian in Mercia",
            "Put a Northumbrian in East Anglia",
            "Double down as Saxon",
        ],
    );
    t.run(
        r#"
        turn();
        expect(get("double") == 0, "P1 doubled down");
        expect(!can_change_side(0), "the doubler cannot change allegiance");
        let labels = turn_options(0).labels();
        expect(!labels.some(|l| l.starts_with("Use To See Is to Be Wise")), `To See offered to the doubler: ${labels}`);
        "#,
    );
    // P2, also a Saxon, uses I Am Dane (back side: double down as Dane) but turns first:
    // the spare marker is taken, so no double-down question is asked.
    t.answers(1, &["Use To See Is to Be Wise", "Use I Am Dane", "Put 2 Danes in Wessex"]);
    t.run(
        r#"
        set_counter(1, "side", 2);
        // To See is primary: it ends P2's turn; give P2 another turn right away.
        turn();
        expect(counter(1, "side") == 1, "P2 turned Dane");
        expect(counter(1, "tokens") == 5 - 1 - 1, `To See's 2-player side costs a token: ${counter(1, "tokens")}`);
        set_current(1);
        turn();
        expect(get("double") == 0, "still P1's double down");
        "#,
    );
    // Resolution: both Saxon, Saxons win in Northumbria -> only P1 scores, no bonuses.
    t.run(
        r#"
        backs(1, 2);
        armies(0, 0, 2, 0, 0);
        set("invasion", 1);
        pass(1);
        set("momentum", 1);
        let t1 = counter(1, "tokens");
        resolve_conflict();
        expect(counter(0, "vp") == 3 * 2, `the doubler scored ${counter(0, "vp")}`);
        expect(counter(1, "vp") == 0, "the other Saxon scores nothing");
        expect(counter(1, "tokens") == t1 + 2, "and takes 2 tokens as a loser, no bonus");
        expect(get("double") == -1, "the spare marker goes back");
        "#,
    );
    done(&t);
}

#[test]
fn double_down_changes_nothing_when_the_players_back_different_sides() {
    let mut t = table(2, None);
    t.run(
        r#"
        bare_table();
        backs(0, 2);
        backs(1, 1);
        set_counter(0, "affinity-west-saxons", 1);
        set("double", 0);
        set("momentum", 1);
        armies(0, 0, 3, 0, 0);
        set("invasion", 1);
        pass(1);
        resolve_conflict();
        expect(counter(0, "vp") == 3 + 5, `lone winner against the momentum: ${counter(0, "vp")}`);
        expect(counter(1, "tokens") == 2, "loser on the momentum side: no bonus");
        "#,
    );
}

// ---------------------------------------------------------------------------------------
// The locked marker
// ---------------------------------------------------------------------------------------

#[test]
fn the_locked_marker_stops_allegiance_changes_and_passes_to_the_other_user() {
    let mut t = table(2, None);
    t.run(
        r#"
        bare_table();
        arrange_market(["make-the-right-choice", "to-see-is-to-be-wise", "i-am-dane", "no-mercy",
            "england-is-born", "i-shall-take-what-is-mine", "destiny-is-all"]);
        backs(0, 2);
        backs(1, 1);
        set_counter(0, "tokens", 9);
        set_counter(1, "tokens", 9);
        "#,
    );
    t.answers(0, &["Use Make the Right Choice", "Raise Dane affinity to 1", "Pass"]);
    t.run(
        r#"
        turn();
        expect(get("locked") == 0, "P1 holds the locked marker");
        expect(!can_change_side(0), "P1 is locked");
        let labels = turn_options(0).labels();
        expect(!labels.some(|l| l.starts_with("Use To See Is to Be Wise")), `To See offered while locked: ${labels}`);
        "#,
    );
    // P2 takes the same action (now in slot 7, 4 tokens): the marker moves to P2.
    t.answers(
        1,
        &[
            "Use Make the Right Choice",
            "Raise West Saxon affinity to 1",
            "Use I Am Dane",
            "Put 2 Danes in Kent",
            "Do not double down",
        ],
    );
    t.run(
        r#"
        turn();
        expect(get("locked") == 1, "the marker went to P2");
        expect(can_change_side(0) && !can_change_side(1), "P1 is free, P2 locked");
        expect(counter(1, "tokens") == 9 - 4 - 1, `P2 paid ${9 - counter(1, "tokens")}`);
        "#,
    );
    // Both pass: the conflict resolves and the marker goes back.
    t.answers(0, &["Pass"]);
    t.answers(1, &["Pass"]);
    t.run(
        r#"
        turn();
        turn();
        expect(get("conflict") == 1, "the conflict was resolved");
        expect(get("locked") == -1, "the locked marker returns after the conflict");
        "#,
    );
    done(&t);
}

#[test]
fn with_three_players_there_is_no_locked_marker_or_double_down() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        arrange_market(["make-the-right-choice", "i-am-dane", "to-see-is-to-be-wise", "no-mercy",
            "england-is-born", "i-shall-take-what-is-mine", "destiny-is-all"]);
        backs(0, 1);
        set_counter(0, "tokens", 9);
        "#,
    );
    t.answers(0, &["Use Make the Right Choice", "Raise Dane affinity to 1", "Use I Am Dane", "Put 2 Danes in Wessex"]);
    t.run(
        r#"
        turn();
        expect(get("locked") == -1 && get("double") == -1, "multi-player sides have no markers");
        expect(get("momentum") == 0, "no momentum with 3 players");
        "#,
    );
    done(&t);
}

// ---------------------------------------------------------------------------------------
// Ties, the round's end, turn order
// ---------------------------------------------------------------------------------------

#[test]
fn a_tie_gives_nothing_and_the_region_comes_back_later() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        backs(0, 1);
        backs(1, 2);
        backs(2, 2);
        armies(0, 2, 2, 0, 0);
        set("invasion", 2);
        pass(1);
        resolve_conflict();
        expect(peace_side(0) == 0, "no peace token on a tie");
        for p in 0..3 { expect(counter(p, "vp") == 0 && counter(p, "tokens") == 0, "no benefits"); }
        expect(get("conflict") == 1, "the conflict moves to the succession region");
        // The invasion holder (P3) placed the succession token: Northumbria is open again
        // (the first option offered, so the test agent took it).
        expect(get("succession") == 0, `succession on ${get("succession")}`);
        expect(current() == 2, "the player left of the last passer starts");
        expect(get("ties") == [0], "Northumbria tied once");
        "#,
    );
}

#[test]
fn a_second_tie_or_a_tie_in_the_last_region_skips_it() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        // Four regions won already; Northumbria (0) is the last, no succession token left.
        for r in 1..5 { put_peace(r, 2); }
        set_token("succession", -1);
        armies(0, 1, 1, 0, 0);
        set("invasion", 0);
        pass(0);
        resolve_conflict();
        expect(peace_side(0) == 0, "the last region stays without a peace token");
        expect(round() == 2 && phase() == "draft", "round I is over: cleanup ran");
        expect(peace_count() == 0, "cleanup removed the peace tokens");
        expect(get("skipped") == [] && get("ties") == [], "ties are forgotten for round II");
        "#,
    );
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        armies(0, 1, 1, 0, 0);
        set("ties", [0]);
        set("invasion", 0);
        pass(0);
        resolve_conflict();
        expect(get("skipped") == [0], "a second tie in Northumbria skips it");
        expect(get("succession") != 0, "a skipped region gets no succession token");
        "#,
    );
}

#[test]
fn everyone_must_pass_in_a_row_and_the_invasion_preparer_sits_out() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        put_peace(3, 1);
        put_peace(4, 2);
        backs(0, 1);
        set_counter(0, "tokens", 9);
        set_counter(1, "tokens", 5);
        arrange_market(["i-am-dane", "england-is-born", "to-see-is-to-be-wise", "no-mercy",
            "make-the-right-choice", "i-shall-take-what-is-mine", "destiny-is-all"]);
        "#,
    );
    t.answers(0, &["Use I Am Dane", "Put 2 Danes in Northumbria", "Move your leader to Wessex", "Pass"]);
    t.answers(1, &["Prepare for invasion"]);
    t.answers(2, &["Pass", "Pass"]);
    t.run(
        r#"
        turn();
        turn();
        expect(get("invasion") == 1 && counter(1, "tokens") == 7, "P2 prepared: +2 tokens for 2 peace tokens");
        turn();
        expect(current() == 0 && get("conflict") == 0, "P1 has not passed since the primary action");
        turn();
        expect(current() == 2, `P2 sits out: P3 plays after P1, not ${current()}`);
        turn();
        expect(get("conflict") == 0, "P1 has not passed since moving");
        turn();
        expect(get("conflict") == 1, "P3 and P1 passed in a row: resolved");
        expect(peace_side(0) == 1, "the Danes won Northumbria");
        expect(current() == 1, "the player left of the last passer (P1) starts");
        "#,
    );
    done(&t);
}

#[test]
fn without_a_preparer_the_last_passer_takes_the_invasion_token_without_tokens() {
    let mut t = table(2, None);
    t.run(
        r#"
        bare_table();
        put_peace(3, 1);
        backs(0, 1);
        backs(1, 2);
        set("momentum", 1);
        armies(0, 1, 0, 0, 0);
        "#,
    );
    t.answers(0, &["Pass"]);
    t.answers(1, &["Pass", "Next conflict in Kent"]);
    t.run(
        r#"
        turn();
        turn();
        expect(get("last_invasion") == 1, "P2 passed last and held the invasion token");
        expect(counter(1, "tokens") == 4, `lone loser, no invasion bonus: ${counter(1, "tokens")}`);
        expect(get("succession") == 4, "P2 placed the succession token");
        expect(current() == 0, "P1, left of P2, starts the next conflict");
        "#,
    );
    done(&t);
}

#[test]
fn final_ties_go_to_peace_tokens_then_affinity_then_initiative() {
    let mut t = table(3, None);
    t.run(
        r#"
        bare_table();
        set_round(2);
        set_token("succession", -1);
        for p in 0..3 { set_counter(p, "vp", 30); }
        put_peace(1, 1);
        put_peace(2, 1);
        put_peace(3, 2);
        backs(0, 2);
        backs(1, 1);
        backs(2, 1);
        set_counter(1, "affinity-danes", 2);
        set_counter(2, "affinity-danes", 2);
        final_scoring();
        // Danes hold more peace tokens: P2 and P3 remain; equal affinity: initiative decides.
        let w = if def_value(character(1), "initiative") > def_value(character(2), "initiative") { 1 } else { 2 };
        expect(is_over(), "the game is over");
        expect(final_breaker(w, [0, 3 - w]) == "initiative", final_breaker(w, [0, 3 - w]));
        set_counter(1, "affinity-mercians", 1);
        expect(final_better(1, 2) && final_better(1, 0), "more affinity wins among the Danes");
        expect(final_breaker(1, [0, 2]) == "affinity levels", "affinity broke the tie");
        set_counter(0, "vp", 31);
        expect(final_better(0, 1), "VP come first");
        "#,
    );
}

// ---------------------------------------------------------------------------------------
// Setup and draft
// ---------------------------------------------------------------------------------------

#[test]
fn setup_follows_the_leaders_and_the_two_player_extras() {
    for players in 2..=4 {
        let mut t = table(players, None);
        t.run(&format!(
            r#"
            setup();
            let n = {players};
            let placed = 0;
            for r in 0..5 {{ let c = counts(r); placed += c[0] + c[1] + c[2] + c[3]; }}
            expect(placed == 10 + if n == 2 {{ 5 }} else {{ 0 }}, `armies on the board: ${{placed}}`);
            expect(get("back") == (n == 2), "2-player plaque side exactly with 2 players");
            for p in 0..n {{
                let id = character(p);
                expect(leader_region(p) == space(def_attr(id, "region")), "starting region");
                expect(counter(p, "tokens") == def_value(id, "tokens"), "starting tokens");
                expect(count(pzone(p, "hand")) == 2, "two leader cards in hand");
            }}
            for r in 1..3 {{
                let heroes = 0;
                for c in cards(zone(`round-${{r}}-deck`)) {{
                    if has_keyword(c, "hero") {{
                        heroes += 1;
                        let l = attr(c, "leader");
                        for p in 0..n {{ expect(l != character(p), "a hero of a leader in play"); }}
                    }}
                }}
                expect(heroes == 3, `round ${{r}} deck has ${{heroes}} heroes`);
                expect(count(zone(`round-${{r}}-deck`)) == 27, "24 round cards and 3 heroes");
            }}
            let order = by_initiative();
            expect(get("conflict_placer") == order[0] && get("succession_placer") == order[1], "placers by initiative");
            expect(first_seat() == if n == 2 {{ order[1] }} else {{ order[2] }}, "first player");
            "#
        ));
    }
}

#[test]
fn the_draft_deals_five_keeps_four_and_plays_instants() {
    for players in 2..=4 {
        draft_check(table(players, None), players, 5, 4);
    }
}

/// The draft's numbers are pack.toml's `[options]`: an edited packet and keep in a copy of
/// the pack are what the draft deals and keeps, and the reference says so.
#[test]
fn the_draft_follows_pack_toml() {
    let dir = crate::common::project_copy(&["content/the-last-kingdom", "scripts/the-last-kingdom"]);
    let file = dir.path().join("content/the-last-kingdom/pack.toml");
    crate::common::edit_after(&file, &["[options]"], "draft_packet = 5", "draft_packet = 6");
    crate::common::edit_after(&file, &["[options]"], "draft_keep = 4", "draft_keep = 3");
    let loaded = load_pack(&Project::new(dir.path()), "the-last-kingdom", LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    let edited = Arc::new(loaded.pack.unwrap());
    for players in 2..=4 {
        draft_check(Table::new(edited.clone(), PRELUDE, players, 5, None, false), players, 6, 3);
    }
}

/// Run round I's draft on table `t` and check that each player kept `keep` of `packet`.
fn draft_check(mut t: Table, players: usize, packet: usize, keep: usize) {
    {
        t.run(&format!(
            r#"
            setup();
            place_tokens();
            run_draft();
            let n = {players};
            let kept = 0;
            for p in 0..n {{
                let round_cards = 0;
                for c in cards(pzone(p, "hand")) {{
                    expect(!has_keyword(c, "instant"), "instants do not stay in hand");
                    if !has_keyword(c, "leader-card") {{ round_cards += 1; }}
                }}
                for c in cards(pzone(p, "play")) {{ expect(has_keyword(c, "instant"), "only instants were played"); round_cards += 1; }}
                expect(round_cards == {keep}, `${{player_name(p)}} drafted ${{round_cards}}`);
                expect(count(pzone(p, "packet")) == 0 && count(pzone(p, "kept")) == 0, "draft zones emptied");
            }}
            expect(count(zone("discard-1")) == ({packet} - {keep}) * n, "the rest of every packet is discarded");
            expect(count(zone("round-1-deck")) == 27 - {packet} * n, "{packet} cards dealt to each player");
            "#
        ));
    }
}

/// The 2-player side is plaques.toml's `back`: an edited back value in a copy of the pack
/// is what the 2-player game uses, and only there.
#[test]
fn the_two_player_side_comes_from_plaques_toml() {
    let dir = crate::common::project_copy(&["content/the-last-kingdom", "scripts/the-last-kingdom"]);
    let file = dir.path().join("content/the-last-kingdom/plaques.toml");
    crate::common::edit_after(&file, &["id = \"no-mercy\"", "[plaque.back]"], "vp = 3", "vp = 5");
    let loaded = load_pack(&Project::new(dir.path()), "the-last-kingdom", LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    let edited = Arc::new(loaded.pack.unwrap());
    let vp_of = |p: Arc<Pack>| {
        let mut t = Table::new(p, PRELUDE, 2, 5, None, false);
        t.run("let c = create_card(\"no-mercy\", zone(\"probe\")); set_side(c, \"back\"); set(\"probe\", value(c, \"vp\"));");
        t.game().state.globals.get("probe").map(|v| v.to_string()).unwrap_or_default()
    };
    assert_eq!(vp_of(pack()), "3");
    assert_eq!(vp_of(edited), "5");
}
