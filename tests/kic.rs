//! Kingdoms in Conflict: whole games end under every scenario with a sound table, and each
//! rule holds in positions set up piece by piece.
//!
//! Positions are Rhai snippets run with the pack's rules merged in, so they can call any
//! rules function (`action_menu`, `action`, `upkeep`...). The players' answers are queued by
//! label in advance; an answer that is never asked for fails the test.
//!
//! Board reference (x to the right, y down; the field is x, y = 1..8):
//!
//! ```text
//! y=1  S W G F W G M S
//! y=2  M L D W G F L W
//! y=3  G F M L S M D G
//! y=4  W G S D D L W F
//! y=5  F W L D D S G W
//! y=6  G D M S L M F G
//! y=7  W L F G W D L M
//! y=8  S M G W F G W S
//! ```

/// The reasons the rules give `end_game` (scripts/kingdoms-in-conflict/rules.rhai).
const RESIGNED: &str = "the other ruler resigned";
const DEFEATED: &str = "the other kingdom has no units left";
const FAMINE: &str = "the other kingdom's people revolted, with no resources left";

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::Table;
use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::load::{load_pack, LoadOptions, Project};

use crown_engine::game::record::transcript_text;
use crown_engine::game::{Game, GameConfig, Outcome, Status};

const PACK: &str = "kingdoms-in-conflict";

fn pack() -> Arc<Pack> {
    let project = Project::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let loaded = load_pack(&project, PACK, LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    Arc::new(loaded.pack.expect("pack loads"))
}

fn play(pack: &Arc<Pack>, scenario: Option<&str>, seed: u64, bots: [&str; 2]) -> (Game, Outcome) {
    let mut cfg = GameConfig::new(seed, 2);
    cfg.scenario = scenario.map(str::to_string);
    let agents = (0..2).map(|s| bots::bot(bots[s], seed, s).expect("bot")).collect();
    let game = Game::new(pack.clone(), cfg, agents).expect("game starts");
    game.run()
}

// ---------------------------------------------------------------------------------------
// The table after a game: pieces where they may be, nothing lost or made up.
// ---------------------------------------------------------------------------------------

fn check_table(g: &Game) -> Result<(), String> {
    let s = &g.state;
    let (w, h) = s.grid.ok_or("no grid")?;
    let initial: BTreeMap<String, i64> =
        g.pack.board.as_ref().ok_or("no board")?.0.supply.iter().map(|x| (x.id.clone(), x.count)).collect();
    let mut on_board: BTreeMap<&str, i64> = BTreeMap::new();
    let mut by_space: BTreeMap<u32, Vec<&crown_engine::game::state::Piece>> = BTreeMap::new();
    for p in s.pieces.iter().filter(|p| p.space.is_some()) {
        *on_board.entry(p.kind.as_str()).or_default() += 1;
        by_space.entry(p.space.unwrap_or(0)).or_default().push(p);
    }
    for (kind, n) in &initial {
        let now = on_board.get(kind.as_str()).copied().unwrap_or(0) + s.supplies[kind];
        if now != *n {
            return Err(format!("{kind}: {now} on the board and in the supply, {n} in the box"));
        }
    }
    let side = |p: i64| match s.globals.get(&format!("side{p}")) {
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let mut units = [0, 0];
    for (sp, pcs) in &by_space {
        let space = &s.spaces[*sp as usize];
        let terrain = space.attrs.get("terrain").cloned().unwrap_or_default();
        let kind = space.attrs.get("kind").cloned().unwrap_or_default();
        let here = || format!("{} holds {:?}", space.id, pcs.iter().map(|p| &p.kind).collect::<Vec<_>>());
        if kind == "pile" {
            let first = &pcs[0];
            if pcs.len() > 5 || pcs.iter().any(|p| p.kind != first.kind || p.owner != first.owner) {
                return Err(format!("pile: {}", here()));
            }
            if space.attrs.get("side").cloned().unwrap_or_default() != side(first.owner) {
                return Err(format!("pile on the wrong side: {}", here()));
            }
            continue;
        }
        let (x, y) = space.xy.ok_or_else(here)?;
        if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            let p = pcs[0];
            if pcs.len() != 1 || !p.kind.starts_with("wall-") || terrain != format!("edge-{}", side(p.owner)) {
                return Err(format!("grey tile: {}", here()));
            }
        } else {
            if pcs.len() != 1
                || pcs[0].kind.starts_with("wall-")
                || !["pawn-", "officer-", "general-"].iter().any(|u| pcs[0].kind.starts_with(u))
            {
                return Err(format!("field tile: {}", here()));
            }
            let colour = if pcs[0].owner == 0 { "red" } else { "blue" };
            if !pcs[0].kind.ends_with(colour) {
                return Err(format!("unit of the wrong colour: {}", here()));
            }
            units[pcs[0].owner as usize] += 1;
        }
    }
    if units.iter().any(|&n| n > 8) {
        return Err(format!("more than 8 units: {units:?}"));
    }
    Ok(())
}

fn fail_with(game: &Game, o: &Outcome, what: &str) -> ! {
    let t = transcript_text(game, o);
    let tail: Vec<&str> = t.lines().rev().take(80).collect();
    panic!("{what}\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
}

#[test]
fn games_end_under_every_scenario_with_a_sound_table() {
    let pack = pack();
    for sc in ["standard", "face-off", "border-war", "to-the-end"] {
        for seed in 0..4 {
            for bots in [["random", "random"], ["greedy", "random"], ["greedy", "greedy"]] {
                let (game, o) = play(&pack, Some(sc), seed, bots);
                let what = format!("{sc} seed {seed} {bots:?}");
                if o.status != Status::Finished {
                    fail_with(&game, &o, &format!("{what}: {:?}", o.status));
                }
                if ![DEFEATED, FAMINE, RESIGNED, "turn limit"].contains(&o.reason.as_str()) {
                    fail_with(&game, &o, &format!("{what}: ended by {}", o.reason));
                }
                if sc == "to-the-end" && o.reason == RESIGNED {
                    fail_with(&game, &o, &format!("{what}: resigned where resigning is off"));
                }
                if let Err(e) = check_table(&game) {
                    fail_with(&game, &o, &format!("{what}: {e}"));
                }
            }
        }
    }
}

#[test]
fn the_same_seed_plays_the_same_game() {
    let pack = pack();
    let (g1, o1) = play(&pack, None, 5, ["greedy", "random"]);
    let (g2, o2) = play(&pack, None, 5, ["greedy", "random"]);
    assert_eq!(transcript_text(&g1, &o1), transcript_text(&g2, &o2));
}

#[test]
fn greedy_beats_random() {
    let pack = pack();
    let mut greedy_wins = 0;
    let games = 20;
    for seed in 0..games {
        let seat = (seed % 2) as usize;
        let bots = if seat == 0 { ["greedy", "random"] } else { ["random", "greedy"] };
        let (_, o) = play(&pack, Some("to-the-end"), seed, bots);
        if o.winners == vec![seat] {
            greedy_wins += 1;
        }
    }
    assert!(greedy_wins >= 18, "greedy won {greedy_wins} of {games}");
}

#[test]
fn greedy_against_itself_usually_reaches_a_decision() {
    let pack = pack();
    let mut decided = 0;
    for seed in 0..8 {
        let (_, o) = play(&pack, Some("to-the-end"), seed, ["greedy", "greedy"]);
        if o.winners.len() == 1 {
            decided += 1;
        }
    }
    assert!(decided >= 6, "only {decided} of 8 greedy games were decided");
}

#[test]
fn sides_follow_the_scenario() {
    let pack = pack();
    let opposite = |a: &str| match a {
        "north" => "south",
        "east" => "west",
        "south" => "north",
        _ => "east",
    };
    let clockwise = |a: &str| match a {
        "north" => "east",
        "east" => "south",
        "south" => "west",
        _ => "north",
    };
    for seed in 0..6 {
        for (sc, rel) in [("face-off", opposite as fn(&str) -> &str), ("border-war", clockwise)] {
            let (g, _) = play(&pack, Some(sc), seed, ["random", "random"]);
            let first = g.state.turns.first;
            let a = g.state.globals[&format!("side{first}")].to_string();
            let b = g.state.globals[&format!("side{}", 1 - first)].to_string();
            assert_eq!(b, rel(&a), "{sc} seed {seed}");
        }
        let (g, _) = play(&pack, None, seed, ["random", "random"]);
        assert_ne!(g.state.globals["side0"].to_string(), g.state.globals["side1"].to_string());
    }
}

// ---------------------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------------------

/// Helpers for position snippets. Red is player 0, Blue player 1.
const PRELUDE: &str = r#"
fn expect(ok, msg) { if !ok { throw msg; } }
fn same(a, b, what) { if a != b { throw `${what}: expected ${b}, got ${a}`; } }
// Set the table: board read, sides taken, Red to play.
fn start(red, blue) {
    read_board();
    set("side0", red);
    set("side1", blue);
    set_current(0);
}
fn tile(x, y) { space_at(x, y) }
fn unit(p, r, x, y) { let pc = place(unit_kind(r, p), space_at(x, y), p); expect(pc >= 0, "no piece left"); pc }
fn wall_on(p, x, y) { place(wall_kind(p), space_at(x, y), p) }
fn give(p, kind, n) { for i in 0..n { expect(gain(p, kind, "test"), `cannot give ${kind}`); } }
fn held(p, kind) { stock_of(pile_list(p))[kind] }
fn rank_at(x, y) { let pc = unit_at(space_at(x, y)); if pc < 0 { 0 } else { rank_of(pc) } }
fn owner_at(x, y) { let pc = unit_at(space_at(x, y)); if pc < 0 { -1 } else { piece_owner(pc) } }
fn units(p) { unit_count(p) }
fn wall_owner(k) { for pc in pieces_at(k) { if piece_kind(pc).starts_with("wall-") { return piece_owner(pc); } } -1 }
fn menu(p) { let out = []; for o in action_menu(p) { out.push(o.label); } out }
// The detailed options under one action-menu entry: their labels.
fn subs(p, entry) {
    for o in action_menu(p) {
        // An entry names its targets after a colon ("Attack with pawn at 1,1: Blue's ...").
        if o.label == entry || o.label.starts_with(entry + ":") { let out = []; for x in o.subs { out.push(x.label); } return out; }
    }
    []
}
// Destinations of the "Move" entry of the unit at x, y, by mode: tile -> "move"/"haste".
fn moves(p, x, y) {
    let out = #{};
    for o in action_menu(p) {
        if o.act == "unit" && o.unit == space_at(x, y) && o.label.starts_with("Move ") {
            for m in o.subs { out[space_id(m.to)] = m.mode; }
        }
    }
    out
}
fn count_mode(m, mode) { let n = 0; for v in m.values() { if v == mode { n += 1; } } n }
fn cheb_xy(a, b) { max(abs(a % 10 - b % 10), abs(a / 10 - b / 10)) }
"#;

/// A two-player table of this pack (seed 11); every decision must be queued.
fn table(scenario: &str) -> Table {
    Table::new(pack(), PRELUDE, 2, 11, Some(scenario), true)
}

/// A test passes only if every queued answer was used and the table is sound.
fn done(t: &Table) {
    let left = t.unused_answers();
    assert!(left.iter().all(Vec::is_empty), "answers never asked for: {left:?}");
    if let Err(e) = check_table(t.game()) {
        panic!("{e}\n{}", t.transcript());
    }
}

// ---- upkeep ------------------------------------------------------------------------------

/// The upkeep bands are pack.toml's `upkeep_bands`: edited in a copy of the pack, the
/// army eats what the new bands say.
#[test]
fn upkeep_bands_come_from_pack_toml() {
    let dir = crate::common::project_copy(&["content/kingdoms-in-conflict", "scripts/kingdoms-in-conflict"]);
    let file = dir.path().join("content/kingdoms-in-conflict/pack.toml");
    crate::common::edit_after(&file, &["[options]"], "upkeep_bands = [4, 6]", "upkeep_bands = [2, 3, 5]");
    let loaded = load_pack(&Project::new(dir.path()), PACK, LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    let mut t = Table::new(Arc::new(loaded.pack.unwrap()), PRELUDE, 2, 11, Some("standard"), true);
    t.run(
        r#"
        let want = [0, 1, 1, 2, 3, 3, 4, 4, 4];
        for n in 0..9 { same(food_due(n), want[n], `food for ${n} units`); }
        "#,
    );
}

#[test]
fn upkeep_costs_one_food_per_band_of_units() {
    let mut t = table("standard");
    t.run(
        r#"
        let want = [0, 1, 1, 1, 1, 2, 2, 3, 3];
        for n in 0..9 { same(food_due(n), want[n], `food for ${n} units`); }
        "#,
    );
    done(&t);
}

#[test]
fn upkeep_is_paid_with_the_food_the_player_picks() {
    let mut t = table("standard");
    t.answers(0, &["Pay 1 fish", "Pay 1 fish"]);
    t.run(
        r#"
        start("north", "south");
        for x in 1..=5 { unit(0, 1, x, 3); }
        give(0, "grain", 2);
        give(0, "fish", 2);
        upkeep(0);
        same(held(0, "fish"), 0, "fish");
        same(held(0, "grain"), 2, "grain");
        same(units(0), 5, "units");
        "#,
    );
    done(&t);
}

#[test]
fn each_food_short_costs_a_unit_of_the_players_choice() {
    let mut t = table("standard");
    // 7 units eat 3 food; Red has 1: it is paid (only option), two units are sacrificed.
    t.answers(0, &["Sacrifice officer at 2,3", "Sacrifice pawn at 4,3"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 2, 2, 3);
        for x in 3..=8 { unit(0, 1, x, 3); }
        give(0, "livestock", 1);
        give(0, "wood", 3);
        upkeep(0);
        same(held(0, "livestock"), 0, "livestock");
        same(held(0, "wood"), 3, "wood is no food");
        same(units(0), 5, "units");
        same(rank_at(2, 3), 0, "sacrificed officer");
        same(rank_at(4, 3), 0, "sacrificed pawn");
        "#,
    );
    assert!(t.transcript().contains("Red is 2 food short and must sacrifice 2 units"));
    done(&t);
}

// ---- movement ----------------------------------------------------------------------------

#[test]
fn a_pawn_steps_one_tile_or_hastes_two() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 4);
        give(0, "stone", 1);
        let m = moves(0, 3, 4);
        same(count_mode(m, "move"), 8, "pawn steps without haste resources");
        same(count_mode(m, "haste"), 0, "haste needs grain and wood");
        give(0, "grain", 1);
        give(0, "wood", 1);
        let m = moves(0, 3, 4);
        same(count_mode(m, "move"), 8, "pawn steps");
        same(count_mode(m, "haste"), 16, "pawn haste-moves 2");
        for k in m.keys() {
            let d = cheb_xy(space(k), tile(3, 4));
            same(m[k], if d == 1 { "move" } else { "haste" }, `mode to ${k}`);
        }
        // A haste-move says what it costs beside it; a move says nothing.
        for o in action_menu(0) {
            if o.act == "unit" && o.label.starts_with("Move ") {
                for s in o.subs {
                    if s.mode == "haste" { same(s.note, "costs 1 grain and 1 wood", "a haste-move's note"); }
                    else { same(s.note, (), "a move's note"); }
                }
            }
        }
        "#,
    );
    done(&t);
}

#[test]
fn an_officer_moves_two_tiles_or_hastes_four() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        unit(0, 2, 3, 4);
        give(0, "grain", 1);
        give(0, "wood", 1);
        let m = moves(0, 3, 4);
        same(count_mode(m, "move"), 24, "officer moves 2");
        // Haste: every field tile within 4 (x 1..7, y 1..8) but itself, beyond 2.
        same(count_mode(m, "haste"), 7 * 8 - 1 - 24, "officer haste-moves 4");
        "#,
    );
    done(&t);
}

#[test]
fn a_general_moves_three_tiles_or_hastes_six() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        unit(0, 3, 4, 4);
        give(0, "grain", 1);
        give(0, "wood", 1);
        let m = moves(0, 4, 4);
        same(count_mode(m, "move"), 7 * 7 - 1, "general moves 3");
        same(count_mode(m, "haste"), 64 - 49, "general haste-moves 6");
        "#,
    );
    done(&t);
}

#[test]
fn paths_go_round_units_and_never_over_the_grey_ring() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        // An officer in the corner, shut in by its own pawns: the only way out would be
        // along the grey tiles, which are not part of any path.
        unit(0, 2, 1, 1);
        unit(0, 1, 2, 1);
        unit(0, 1, 2, 2);
        unit(0, 1, 1, 2);
        same(moves(0, 1, 1).len(), 0, "shut-in officer");
        // Behind a line of units a tile two steps away takes a longer path.
        unit(0, 2, 1, 5);
        unit(1, 1, 2, 4);
        unit(1, 1, 2, 5);
        unit(1, 1, 2, 6);
        let m = moves(0, 1, 5);
        expect(!("3,5" in m), "3,5 is 2 away as the crow flies but not by a free path");
        expect("1,3" in m && "1,7" in m, "along the edge of the field is free");
        expect(!("0,5" in m) && !("0,4" in m), "grey tiles are never destinations");
        "#,
    );
    done(&t);
}

#[test]
fn a_move_gains_the_tile_and_a_haste_move_gains_nothing() {
    let mut t = table("standard");
    t.answers(0, &["Move pawn at 3,4", "Move to 2,4 (grain)"]);
    t.answers(0, &["Move pawn at 2,4", "Haste to 2,6 (desert, nothing gained)"]);
    t.answers(0, &["Move pawn at 2,6", "Haste to 2,8 (metal, nothing gained)"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 4);
        give(0, "grain", 2);
        give(0, "wood", 2);
        action(0);
        same(held(0, "grain"), 3, "grain after the move");
        same(rank_at(2, 4), 1, "pawn moved");
        action(0);
        same(held(0, "grain"), 2, "haste paid in grain");
        same(held(0, "wood"), 1, "haste paid in wood");
        action(0);
        same(held(0, "metal"), 0, "nothing from a haste-move");
        same(held(0, "grain"), 1, "grain");
        same(held(0, "wood"), 0, "wood");
        same(rank_at(2, 8), 1, "pawn arrived");
        "#,
    );
    assert!(t.transcript().contains("Red's pawn haste-moves from "), "{}", t.transcript());
    assert!(t.transcript().contains(" and gains nothing"), "{}", t.transcript());
    done(&t);
}

// ---- harvest -----------------------------------------------------------------------------

#[test]
fn harvest_takes_one_resource_per_chosen_pawn_while_the_supply_lasts() {
    let mut t = table("standard");
    t.answers(0, &["Harvest", "Harvest grain with the pawn at 3,1", "Harvest metal with the pawn at 7,1", "Done"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 1);   // grain
        unit(0, 1, 7, 1);   // metal
        unit(0, 1, 2, 1);   // wood
        unit(0, 1, 4, 4);   // desert: never harvests
        unit(0, 1, 1, 1);   // stone, but none is left outside the stockpiles
        unit(0, 2, 6, 1);   // grain, but officers do not harvest
        take("stone", supply("stone"));
        give(0, "fish", 1);
        let opts = [];
        for o in action_menu(0) { opts.push(o.label); }
        expect(opts.contains("Harvest"), "harvest offered");
        action(0);
        same(held(0, "grain"), 1, "grain");
        same(held(0, "metal"), 1, "metal");
        same(held(0, "wood"), 0, "wood pawn stopped");
        same(held(0, "stone"), 0, "no stone left");
        give_back("stone", 15);
        "#,
    );
    let asked: Vec<String> =
        t.game().choices.iter().filter(|c| c.prompt == "Harvest with which pawns?").map(|c| c.label.clone()).collect();
    // The pawns picked in turn, then the end of the picking (one pick of several each).
    assert_eq!(asked, ["Harvest grain with the pawn at 3,1", "Harvest metal with the pawn at 7,1", "Done"]);
    done(&t);
}

// ---- buying ------------------------------------------------------------------------------

#[test]
fn buying_pays_the_cost_and_places_next_to_a_wall() {
    let mut t = table("standard");
    t.answers(0, &["Buy an officer", "Pay 1 fish, 3 metal and 1 wood", "Place on 4,1 (fish)"]);
    t.run(
        r#"
        start("north", "south");
        wall_on(0, 4, 0);
        unit(0, 1, 3, 1);
        give(0, "metal", 3);
        give(0, "wood", 1);
        give(0, "fish", 1);
        give(0, "grain", 1);
        let spots = [];
        for k in unit_spots(0) { spots.push(space_id(k)); }
        same(spots, ["4,1", "5,1"], "free tiles touching the wall at 4,0");
        buy(0);
        same(rank_at(4, 1), 2, "officer placed");
        same(held(0, "metal"), 0, "metal");
        same(held(0, "fish"), 0, "fish paid, not gained from the tile");
        same(held(0, "grain"), 1, "grain kept");
        "#,
    );
    done(&t);
}

#[test]
fn no_unit_is_offered_at_eight_units_and_walls_go_on_ones_own_grey_tiles() {
    let mut t = table("standard");
    t.answers(0, &["Buy a wall", "Pay 1 grain and 2 stone", "Wall on 8,0"]);
    t.run(
        r#"
        start("north", "south");
        wall_on(0, 4, 0);
        for x in 1..=6 { unit(0, 1, x, 3); }
        unit(0, 2, 7, 3);
        unit(0, 2, 8, 3);
        give(0, "stone", 2);
        give(0, "metal", 6);
        give(0, "wood", 3);
        give(0, "grain", 3);
        let labels = [];
        let shown = [];
        for o in buy_menu(0, stock(0)) {
            if "unavailable" in o { shown.push(o.unavailable); } else { labels.push(o.label); }
        }
        same(labels, ["Buy nothing", "Buy a wall (1 stone, 1 of any material and 1 of any food)"], "eight units: walls only, its price shown");
        same(shown, ["your army already has 8 units", "your army already has 8 units", "your army already has 8 units"], "the units shown, with the reason");
        let tiles = [];
        for k in free_wall_tiles(0) { tiles.push(space_id(k)); }
        same(tiles.len(), 7, "north grey tiles without a wall");
        expect(tiles.all(|k| k.ends_with(",0")), "only north grey tiles");
        buy(0);
        expect(wall_owner(tile(8, 0)) == 0, "wall built");
        "#,
    );
    done(&t);
}

// ---- battle ------------------------------------------------------------------------------

#[test]
fn a_charge_kills_a_pawn_and_the_survivor_takes_its_tile() {
    let mut t = table("standard");
    t.answers(0, &["Attack with officer at 3,3", "Charge Blue's pawn at 4,3"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 2, 3, 3);
        unit(1, 1, 4, 3);   // livestock
        give(0, "grain", 1);
        give(1, "grain", 1);
        action(0);
        same(owner_at(4, 3), 0, "Red took the tile");
        same(rank_at(4, 3), 1, "the officer came out of it a pawn");
        same(rank_at(3, 3), 0, "the old tile is free");
        same(units(1), 0, "the pawn died");
        same(held(0, "livestock"), 1, "the charge gains the tile");
        "#,
    );
    done(&t);
}

#[test]
fn a_pawn_charging_a_pawn_dies_with_it() {
    let mut t = table("standard");
    t.answers(0, &["Attack with pawn at 3,3", "Charge Blue's pawn at 4,3"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 3);
        unit(1, 1, 4, 3);
        give(0, "grain", 1);
        action(0);
        same(units(0), 0, "attacker died");
        same(units(1), 0, "target died");
        same(held(0, "livestock"), 0, "no survivor, no resource");
        "#,
    );
    done(&t);
}

#[test]
fn an_officer_can_be_charged_only_when_all_six_of_its_pawns_are_in_play() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        unit(0, 3, 3, 3);
        unit(1, 2, 4, 4);
        give(0, "grain", 1);
        let a = subs(0, "Attack with general at 3,3");
        expect(!a.contains("Charge Blue's officer at 4,4"), "the officer would survive as a pawn");
        expect(a.contains("Stay, attack Blue's officer at 4,4"), "adjacent attack allowed");
        for x in 1..=6 { unit(1, 1, x, 8); }
        same(supply("pawn-blue"), 0, "all six blue pawns in play");
        let a = subs(0, "Attack with general at 3,3");
        expect(a.contains("Charge Blue's officer at 4,4"), "now the hit kills the officer");
        "#,
    );
    t.answers(0, &["Attack with general at 3,3", "Charge Blue's officer at 4,4"]);
    t.run(
        r#"
        action(0);
        same(owner_at(4, 4), 0, "Red took the tile");
        same(rank_at(4, 4), 2, "general became an officer");
        same(units(1), 6, "the officer was removed");
        "#,
    );
    done(&t);
}

#[test]
fn a_general_is_never_charged() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        unit(0, 3, 3, 3);
        unit(1, 3, 5, 3);
        give(0, "grain", 1);
        let a = subs(0, "Attack with general at 3,3");
        expect(!a.some(|l| l.contains("Charge")), "no charge on a general");
        expect(a.contains("Move to 4,3, attack Blue's general at 5,3"), "move then attack");
        "#,
    );
    done(&t);
}

#[test]
fn an_adjacent_attack_costs_both_a_hit_point_and_gains_nothing() {
    let mut t = table("standard");
    t.answers(0, &["Attack with general at 2,3", "Move to 3,3, attack Blue's officer at 4,4"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 3, 2, 3);
        unit(1, 2, 4, 4);
        give(0, "grain", 1);
        action(0);
        same(rank_at(3, 3), 2, "general demoted to officer, standing where it moved");
        same(rank_at(4, 4), 1, "officer demoted to pawn");
        same(owner_at(4, 4), 1, "still Blue's");
        same(held(0, "metal"), 0, "no resource after an attack (3,3 is metal)");
        "#,
    );
    done(&t);
}

#[test]
fn a_haste_move_before_an_attack_is_paid_for() {
    let mut t = table("standard");
    // From 1,1 only a haste-move to 3,3 reaches the blue pawn: the one option is taken.
    t.answers(0, &["Attack with pawn at 1,1"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 1, 1);
        unit(1, 1, 4, 4);
        give(0, "grain", 1);
        give(0, "wood", 1);
        give(0, "fish", 1);
        action(0);
        same(units(0), 0, "pawn died in the attack");
        same(units(1), 0, "pawn killed");
        same(held(0, "grain") + held(0, "wood"), 0, "haste paid");
        same(held(0, "fish"), 1, "fish kept");
        "#,
    );
    assert!(t.game().choices.iter().any(|c| c.label == "Haste to 3,3, attack Blue's pawn at 4,4" && !c.asked));
    done(&t);
}

#[test]
fn demotion_falls_back_to_a_pawn_then_to_removal() {
    let mut t = table("standard");
    t.answers(0, &["Attack with pawn at 3,3", "Stay, attack Blue's general at 4,4"]);
    t.answers(0, &["Attack with pawn at 3,5", "Stay, attack Blue's general at 4,6"]);
    t.answers(0, &["Attack with pawn at 5,2", "Stay, attack Blue's officer at 6,2"]);
    t.run(
        r#"
        start("north", "south");
        give(0, "fish", 5);
        // No blue officer left in the supply: a general falls to a pawn.
        unit(1, 3, 4, 4);
        take("officer-blue", supply("officer-blue"));
        unit(0, 1, 3, 3);
        action(0);
        same(rank_at(4, 4), 1, "general became a pawn");
        // Neither officer nor pawn left: a general is removed.
        unit(1, 3, 4, 6);
        take("pawn-blue", supply("pawn-blue"));
        unit(0, 1, 3, 5);
        action(0);
        same(rank_at(4, 6), 0, "general removed");
        // No pawn left: an officer is removed.
        give_back("officer-blue", 1);
        unit(1, 2, 6, 2);
        unit(0, 1, 5, 2);
        action(0);
        same(rank_at(6, 2), 0, "officer removed");
        give_back("officer-blue", 5);
        give_back("pawn-blue", 5);
        "#,
    );
    done(&t);
    let tr = t.transcript();
    assert!(tr.contains("Blue's general at 4,4 becomes a pawn: no officer of its colour is left in the supply"));
    assert!(tr.contains("Blue's general at 4,6 is removed: no lower piece of its colour is left in the supply"));
    assert!(tr.contains("Blue's officer at 6,2 is removed: no lower piece of its colour is left in the supply"));
    // The test borrowed pieces with take/give_back; one pawn stays on the board.
    let left: usize = t.game().state.pieces.iter().filter(|p| p.space.is_some() && p.kind == "pawn-blue").count();
    assert_eq!(left, 1);
}

#[test]
fn walls_fall_to_an_attack_from_straight_across_only() {
    let mut t = table("standard");
    // From 4,7 the only attack is on the wall at 4,9, from 4,8.
    t.answers(0, &["Attack with pawn at 4,7"]);
    t.run(
        r#"
        start("north", "south");
        wall_on(1, 4, 9);
        wall_on(1, 6, 9);
        unit(0, 1, 5, 8);
        give(1, "stone", 1);
        let a = subs(0, "Attack with pawn at 5,8");
        expect(!a.some(|l| l.starts_with("Stay")), `both walls are diagonal to 5,8: ${a}`);
        expect(a.contains("Move to 4,8, attack Blue's wall on 4,9"), "straight across from 4,8");
        unit(0, 1, 4, 7);
        give(0, "grain", 1);
        action(0);
        expect(wall_owner(tile(4, 9)) < 0, "wall removed");
        same(rank_at(4, 8), 1, "the pawn loses nothing");
        same(held(0, "wood"), 0, "no resource after an attack (4,8 is wood)");
        "#,
    );
    done(&t);
}

#[test]
fn only_the_opponent_can_be_attacked() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        wall_on(0, 3, 0);
        wall_on(1, 3, 9);
        unit(0, 3, 3, 1);
        unit(0, 1, 4, 1);
        unit(0, 2, 3, 2);
        unit(1, 1, 2, 2);
        give(0, "grain", 1);
        let a = subs(0, "Attack with general at 3,1");
        expect(a.len() > 0, "the blue pawn can be attacked");
        expect(a.all(|l| l.contains("Blue's")), `only Blue's pieces: ${a}`);
        let m = menu(0);
        same(m.filter(|l| l.starts_with("Attack")).len(), 2, `the general and the officer reach the blue pawn: ${m}`);
        "#,
    );
    done(&t);
}

// ---- stockpiles, pillage and raze ----------------------------------------------------------

#[test]
fn a_wall_guards_only_the_pile_directly_behind_it() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        wall_on(1, 4, 9);
        // Blue's piles behind 3,9 (unguarded), 4,9 (guarded) and 5,9 (unguarded).
        place("grain", space("pile-south-3"), 1);
        place("fish", space("pile-south-4"), 1);
        place("fish", space("pile-south-4"), 1);
        place("stone", space("pile-south-5"), 1);
        unit(0, 1, 4, 8);
        give(0, "wood", 1);
        let p = subs(0, "Pillage with pawn at 4,8");
        expect(p.contains("Stay, pillage 1 grain from South pile 3"), `diagonal pile: ${p}`);
        expect(p.contains("Stay, pillage 1 stone from South pile 5"), "other diagonal pile");
        expect(!p.some(|l| l.contains("South pile 4")), "the pile behind the wall is safe");
        let r = subs(0, "Raze with pawn at 4,8");
        expect(!r.some(|l| l.contains("South pile 4")), "no raze behind the wall");
        same(r.filter(|l| l.starts_with("Stay")).len(), 2, "raze 3 and 5 from where it stands");
        "#,
    );
    done(&t);
}

#[test]
fn pillage_keeps_what_fits_and_returns_the_rest_to_the_supply() {
    let mut t = table("standard");
    t.answers(0, &["Pillage with pawn at 4,8", "Stay, pillage 2 grain from South pile 4"]);
    t.run(
        r#"
        start("north", "south");
        for i in 0..3 { place("grain", space("pile-south-4"), 1); }
        // Red's eight places are all taken; the grain pile has room for one more.
        let kinds = ["wood", "wood", "wood", "stone", "stone", "stone", "metal"];
        for x in 1..=7 { for i in 0..5 { place(kinds[x - 1], space(`pile-north-${x}`), 0); } }
        for i in 0..4 { place("grain", space("pile-north-8"), 0); }
        same(room_of(pile_list(0))["grain"], 1, "room for one grain");
        unit(0, 1, 4, 8);
        let before = supply("grain");
        action(0);
        same(held(0, "grain"), 5, "one grain kept");
        same(held(1, "grain"), 1, "two grain taken from Blue");
        same(supply("grain"), before + 1, "the other went back to the supply");
        "#,
    );
    assert!(t.transcript().contains("No stockpile of Red has room: the grain is lost to the supply"));
    let mut t2 = table("standard");
    t2.run(
        r#"
        start("north", "south");
        place("grain", space("pile-south-4"), 1);
        let kinds = ["wood", "wood", "wood", "stone", "stone", "stone", "metal", "metal"];
        for x in 1..=8 { for i in 0..5 { place(kinds[x - 1], space(`pile-north-${x}`), 0); } }
        unit(0, 1, 4, 8);
        let m = menu(0);
        expect(!m.some(|l| l.starts_with("Pillage")), `no room, no pillage: ${m}`);
        expect(m.contains("Raze with pawn at 4,8: Blue's South pile 4 (1 grain)"), `raze needs no room, and names its target: ${m}`);
        "#,
    );
    done(&t);
}

#[test]
fn the_room_for_a_pillage_is_judged_after_what_the_move_gains() {
    let mut t = table("standard");
    // Red has one free place and neither grain nor wood (so no haste-move). The pawn at
    // 4,7 reaches the tiles touching Blue's grey tile 4,9 in one step: 3,8 (grain), 4,8
    // (wood), 5,8 (fish). Stepping onto wood or fish fills the free place, so no grain
    // fits any more when the pawn pillages; stepping onto grain starts a grain pile that
    // takes what is pillaged.
    t.answers(0, &["Pillage with pawn at 4,7", "Move to 3,8, pillage 2 grain from South pile 4"]);
    t.run(
        r#"
        start("north", "south");
        for i in 0..2 { place("grain", space("pile-south-4"), 1); }
        let kinds = ["stone", "stone", "metal", "metal", "livestock", "fish", "fish"];
        for x in 1..=7 { for i in 0..5 { place(kinds[x - 1], space(`pile-north-${x}`), 0); } }
        same(room_of(pile_list(0))["grain"], 5, "before the move, grain fits");
        unit(0, 1, 4, 7);
        let p = subs(0, "Pillage with pawn at 4,7");
        expect(!p.some(|l| l.starts_with("Move to 4,8")), `the wood gained at 4,8 fills the place: ${p}`);
        expect(!p.some(|l| l.starts_with("Move to 5,8")), `the fish gained at 5,8 fills the place: ${p}`);
        same(p, ["Move to 3,8, pillage 1 grain from South pile 4", "Move to 3,8, pillage 2 grain from South pile 4"], "pillages");
        let r = subs(0, "Raze with pawn at 4,7");
        expect(r.contains("Move to 4,8, raze South pile 4 (2 grain)"), `a raze needs no room: ${r}`);
        action(0);
        same(held(0, "grain"), 3, "the grain of 3,8 and both pillaged");
        same(held(1, "grain"), 0, "Blue's pile taken");
        "#,
    );
    assert!(!t.transcript().contains("is lost to the supply"), "{}", t.transcript());
    done(&t);
}

#[test]
fn paying_for_a_haste_move_can_make_room_for_a_pillage() {
    let mut t = table("standard");
    // Red's eight places are taken: six full piles, one grain and one wood. Metal does not
    // fit until the haste-move to a tile touching Blue's grey tile 4,9 is paid with that
    // grain and wood, which empties two places before the pillage.
    t.answers(0, &["Pillage with pawn at 4,6", "Haste to 4,8, pillage 2 metal from South pile 4"]);
    t.run(
        r#"
        start("north", "south");
        for i in 0..2 { place("metal", space("pile-south-4"), 1); }
        let kinds = ["stone", "stone", "metal", "metal", "livestock", "fish"];
        for x in 1..=6 { for i in 0..5 { place(kinds[x - 1], space(`pile-north-${x}`), 0); } }
        place("grain", space("pile-north-7"), 0);
        place("wood", space("pile-north-8"), 0);
        same(room_of(pile_list(0))["metal"], 0, "before the haste-move, no metal fits");
        unit(0, 1, 4, 6);
        let p = subs(0, "Pillage with pawn at 4,6");
        expect(p.contains("Haste to 4,8, pillage 1 metal from South pile 4"), `room made by paying: ${p}`);
        action(0);
        same(held(0, "metal"), 12, "both pillaged metal kept");
        same(held(0, "grain") + held(0, "wood"), 0, "the haste-move paid");
        same(held(1, "metal"), 0, "Blue's pile taken");
        "#,
    );
    assert!(!t.transcript().contains("is lost to the supply"), "{}", t.transcript());
    done(&t);
}

#[test]
fn a_raze_sends_the_whole_pile_back_after_a_move_that_gains_its_tile() {
    let mut t = table("standard");
    t.answers(0, &["Raze with pawn at 4,7", "Move to 4,8, raze South pile 5 (4 fish)"]);
    t.run(
        r#"
        start("north", "south");
        for i in 0..4 { place("fish", space("pile-south-5"), 1); }
        unit(0, 1, 4, 7);
        let before = supply("fish");
        action(0);
        same(held(1, "fish"), 0, "pile razed");
        same(supply("fish"), before + 4, "back in the supply");
        same(held(0, "wood"), 1, "the move onto 4,8 gained its wood");
        "#,
    );
    done(&t);
}

#[test]
fn gains_fill_guarded_piles_first_and_keep_one_kind_per_pile() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        wall_on(0, 6, 0);
        give(0, "grain", 7);
        give(0, "fish", 1);
        let l = pile_list(0);
        same(l[5].kind, "grain", "the guarded place (behind 6,0) filled first");
        same(l[5].n, 5, "five at most");
        same(l[0].kind, "grain", "then the first free place");
        same(l[0].n, 2, "the rest");
        same(l[1].kind, "fish", "fish on its own pile");
        "#,
    );
    done(&t);
}

// ---- winning -----------------------------------------------------------------------------

#[test]
fn no_units_at_the_end_of_ones_own_turn_is_defeat() {
    let mut t = table("standard");
    // Blue has no unit and cannot buy one: at the end of its turn it is defeated.
    t.answers(1, &["Pass"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 3);
        give(0, "grain", 2);
        give(1, "stone", 1);
        set_current(1);
        turn();
        "#,
    );
    assert_eq!(t.over(), Some((vec![0], DEFEATED.to_string())));
    done(&t);
}

#[test]
fn losing_the_last_unit_in_the_opponents_turn_is_not_yet_defeat() {
    let mut t = table("standard");
    t.answers(0, &["Attack with officer at 3,3", "Charge Blue's pawn at 4,3"]);
    t.answers(1, &["Buy a pawn", "Place on 5,8 (fish)", "Pass"]);
    t.run(
        r#"
        start("north", "south");
        wall_on(1, 5, 9);
        unit(0, 2, 3, 3);
        unit(1, 1, 4, 3);
        give(0, "fish", 3);
        give(1, "wood", 1);
        give(1, "grain", 1);
        give(1, "stone", 1);
        give(1, "fish", 1);
        turn();
        expect(!is_over(), "Blue has no unit, but it is Red's turn that ended");
        turn();
        expect(!is_over(), "Blue bought a pawn in time");
        same(units(1), 1, "Blue's new pawn");
        "#,
    );
    done(&t);
}

#[test]
fn no_resources_at_the_end_of_ones_own_turn_is_famine() {
    let mut t = table("standard");
    t.answers(0, &["Sacrifice pawn at 3,3", "Pass"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 3);
        unit(0, 1, 4, 4);
        give(1, "grain", 1);
        turn();
        "#,
    );
    assert_eq!(t.over(), Some((vec![1], FAMINE.to_string())));
    done(&t);
}

#[test]
fn a_player_may_resign_where_the_scenario_allows_it() {
    let mut t = table("standard");
    t.answers(0, &["Resign"]);
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 3);
        give(0, "grain", 1);
        give(0, "stone", 1);
        turn();
        "#,
    );
    assert_eq!(t.over(), Some((vec![1], RESIGNED.to_string())));
    let mut t2 = table("to-the-end");
    t2.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 3);
        give(0, "stone", 1);
        expect(!menu(0).contains("Resign"), "no resigning in to-the-end");
        "#,
    );
    done(&t);
    done(&t2);
}

#[test]
fn the_turn_limit_ends_the_game_without_a_winner() {
    // The same pack with a 12-turn limit: too short for any kingdom to fall.
    let mut pack = (*pack()).clone();
    let entry = pack.scenarios.iter_mut().find(|e| e.scenario.id == "to-the-end").expect("scenario");
    entry.scenario.options.insert("turn-limit".into(), crown_engine::content::model::Scalar::Int(12));
    let pack = Arc::new(pack);
    for seed in 0..3 {
        let (game, o) = play(&pack, Some("to-the-end"), seed, ["greedy", "greedy"]);
        if o.reason != "turn limit" {
            fail_with(&game, &o, &format!("seed {seed} ended by {}", o.reason));
        }
        assert_eq!(o.status, Status::Finished);
        assert!(o.winners.is_empty());
        assert_eq!(o.turns, 12);
    }
}

/// The board at the terminal is the engine's map of board.toml (the supplies' glyphs on
/// their tiles, each stockpile drawn outside its grey tile), the rulers' lines of
/// `render(viewer)` beneath it, the viewer's ruler first.
#[test]
fn the_board_is_the_engines_map_with_the_rulers_beneath() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        wall_on(0, 4, 0);
        unit(0, 3, 4, 1);
        unit(1, 1, 5, 8);
        give(0, "grain", 3);
        let r = render(1);
        expect(r.contains("Red (north edge): units 1, walls 1, upkeep 1 food; stock 0 livestock, 3 grain"), r);
        expect(r.index_of("Blue") < r.index_of("Red"), `the viewer's ruler first: ${r}`);
        "#,
    );
    let map = t.game().map_text(100).expect("a map");
    for (mark, what) in [("^ [R]", "the wall"), ("F R3", "the red general on fish"), ("F B1", "the blue pawn on fish")]
    {
        assert!(map.contains(mark), "{what} ({mark}):\n{map}");
    }
    // The grain went to a stockpile, drawn in the row above the grid.
    let above = map.lines().nth(1).unwrap_or_default();
    assert!(above.starts_with("-1 ") && above.contains("G3"), "the grain pile above the north edge:\n{map}");
    done(&t);
}

/// The unit costs are the ones `cards/units.toml` holds: an edited cost in a copy of the
/// pack is what the game charges, and the game plays differently.
#[test]
fn unit_costs_come_from_the_units_file() {
    let dir = crate::common::project_copy(&["content/kingdoms-in-conflict", "scripts/kingdoms-in-conflict"]);
    let units = dir.path().join("content/kingdoms-in-conflict/cards/units.toml");
    let old = "cost = { wood = 1, grain = 1, any-material = 1 }";
    crate::common::edit_after(&units, &["id = \"pawn\""], old, "cost = { wood = 2, grain = 1, fish = 1 }");
    let edited = {
        let loaded = load_pack(&Project::new(dir.path()), PACK, LoadOptions::default());
        assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
        Arc::new(loaded.pack.unwrap())
    };
    let cost = |p: &Arc<Pack>| {
        let mut t = crate::common::Table::new(p.clone(), "", 2, 1, None, false);
        t.run("set(\"probe\", `${def_cost(\"pawn\")}`);");
        t.game().state.globals.get("probe").map(|v| v.to_string()).unwrap_or_default()
    };
    assert_eq!(cost(&pack()), r#"#{"any-material": 1, "grain": 1, "wood": 1}"#);
    assert_eq!(cost(&edited), r#"#{"fish": 1, "grain": 1, "wood": 2}"#);
    // Greedy games on the same seeds go another way once a pawn costs more.
    let differs = (0..6).any(|seed| {
        let (a, ao) = play(&pack(), None, seed, ["greedy", "greedy"]);
        let (b, bo) = play(&edited, None, seed, ["greedy", "greedy"]);
        transcript_text(&a, &ao) != transcript_text(&b, &bo)
    });
    assert!(differs, "the edited pawn cost changed no game");
}

/// The status warns of famine when the food held is less than the next upkeep, saying how
/// many units it would cost, and says nothing once there is food enough.
#[test]
fn the_status_warns_of_famine_ahead() {
    let mut t = table("standard");
    t.run(
        r#"
        start("north", "south");
        unit(0, 1, 3, 4);
        let due = food_due(unit_count(0));
        expect(due > 0, "a unit costs upkeep");
        let text = render_status(0);
        expect(text.contains(`famine ahead: 0 food for an upkeep of ${due}: without more food, ${count_words(due, "unit")} will be sacrificed`), text);
        give(0, "grain", due);
        expect(!render_status(0).contains("famine ahead"), render_status(0));
        "#,
    );
    done(&t);
}
