//! One test for every function of the script API, run against a small fixture pack that
//! holds one of everything (two-sided and multi-stage cards, a noble with a hook, a board
//! with a grid, named spaces and supplies, a scenario with settings and fixed seats).
//!
//! Each case is a Rhai snippet that throws when a result is wrong; `covers` names the
//! functions it tests, and a test fails when a registered function is covered by no case
//! (or a case claims a function its snippet never calls).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::content::Pack;
use crate::game::agent::{Agent, FirstAgent};
use crate::game::{Game, GameConfig};

/// One test: the functions it covers and the snippet that checks them.
pub(super) struct Case {
    covers: &'static [&'static str],
    code: &'static str,
}

pub(super) const fn case(covers: &'static [&'static str], code: &'static str) -> Case {
    Case { covers, code }
}

const PACK: &str = r#"
id = "fx"
name = "Fixture"
version = "1"
players = { min = 2, max = 3 }
show_counters = ["vp", "gold"]
counter_names = { vp = "victory points" }
counter_ranges = { gold = { min = 0, max = 9 } }
phases = ["draft", "play"]
round_names = ["the first round"]
[options]
hand = 5
bands = [4, 6]
[vocabulary.card.effects]
kind = { type = "word", words = ["harvest", "feast"], required = true }
once = { type = "flag" }
[vocabulary.card.effects.actions]
type = "entries"
[vocabulary.card.effects.actions.fields]
gain = { type = "counts", words = ["grain"] }
"#;

const CARDS: &str = r#"
[[card]]
id = "archer"
name = "Archer"
kind = "attack"
count = 2
decks = ["main"]
keywords = ["ranged"]
values = { attack = 2 }
cost = { gold = 3 }
attrs = { colour = "red" }
effects = [{ kind = "feast", once = true }]
text = "Shoot twice."
script = "archer.rhai"
cards = ["wall"]
serial = 7

[[card]]
id = "wall"
name = "Wall"
kind = "defend"
count = 1
decks = ["main"]
values = { defence = 3 }
[card.back]
name = "Rubble"
values = { defence = 1 }
effects = [{ kind = "feast" }]

[[card]]
id = "domino"
name = "Domino"
kind = "tile"
cells = [{ terrain = "wood", values = { crowns = 1 } }, { x = 1, terrain = "lake" }]

[[card]]
id = "farm"
name = "Farm"
kind = "land"
serial = 9

[[card.stages]]
position = "front-top"
name = "Field"
keywords = ["land"]
values = { grain = 1 }
checkboxes = ["", "grain"]
upgrades = [{ cost = { gold = 2 }, to = "back-top" }]
effects = [{ kind = "harvest", actions = [{ gain = { grain = 2 } }] }]

[[card.stages]]
position = "back-top"
name = "Mill"
keywords = ["building"]
values = { grain = 3, fame = 1 }
"#;

const NOBLES: &str = r#"
[[noble]]
id = "ada"
name = "Ada"
kind = "noble"
script = "ada.rhai"
hooks = ["bonus"]
values = { number = 1 }
"#;

const BOARD: &str = r#"
[grid]
width = 3
height = 2
rows = ["ab.", "..b"]
legend = { "a" = "hill", "b" = "wood", "." = "plain" }

[[space]]
id = "keep"
name = "The Keep"
adjacent = ["gate"]
attrs = { kind = "castle" }
values = { order = 1 }

[[space]]
id = "gate"
name = "The Gate"
links = [{ to = "keep", attrs = { kind = "drawbridge" } }]

[[supply]]
id = "knight"
name = "Knights"
one = "Knight"
count = 2
attrs = { side = "crown" }

[[supply]]
id = "gold"
name = "Gold"
count = 10

[[board]]
id = "realm"
name = "Realm"
per_seat = true
width = 3
height = 3
grows = true
start = { terrain = "castle" }
"#;

const SCENARIO: &str = r#"
id = "duel"
name = "Duel"
players = { min = 2, max = 2 }
[options]
hand = 3
mode = "duel"
[[seat]]
name = "Ann"
character = "ada"
cards = ["archer"]
agent = "greedy"
values = { start = 4 }
[[seat]]
name = "Bea"
"#;

const RULES: &str = r#"
fn setup() {}
fn turn() { end_game([0], "done"); }
fn expect(ok, msg) { if !ok { throw msg; } }
fn same(a, b, what) { if a != b { throw `${what}: ${a} is not ${b}`; } }
fn prepare(id) { #{ name: def_name(id), faces: def_faces(id).len(), kind: #{ of: def_kind(id) } } }
fn settings() { [option("hand"), option("bands"), option("mode")] }
// Keys only laid tiles give a board's squares (their cells' values, and `tile`): the
// pack loads only if the loader knows them.
fn laid_crowns(s) { if space_attr(s, "tile") == "" { 0 } else { space_value(s, "crowns") } }
"#;

const ARCHER: &str = "fn shout(x) { x * 10 }\nfn can_play(p, c) { p == 0 }\n";
const ADA: &str = "fn bonus(source, v, extra) { v + extra }\n";

/// Every function: its cases.
/// Every case: those below, then the board's (`cases_board.rs`).
fn all_cases() -> impl Iterator<Item = &'static Case> {
    CASES.iter().chain(super::cases_board::CASES)
}

const CASES: &[Case] = &[
    // ---- Lists
    case(
        &[
            "sort",
            "sort_by",
            "order",
            "order_by",
            "sort_by_key",
            "order_by_key",
            "map",
            "filter",
            "reduce",
            "reduce_rev",
            "some",
            "all",
            "index_of",
            "find",
            "find_map",
            "retain",
            "drain",
            "dedup",
        ],
        r#"
        let x = [3, 1, 2];
        x.sort(|a, b| a - b);
        same(x, [1, 2, 3], "sort by a number");
        x.sort_by(|a, b| a > b);
        same(x, [3, 2, 1], "sort_by with true/false");
        same(x.order(|a, b| a - b), [1, 2, 3], "order");
        same(x, [3, 2, 1], "order leaves the list");
        same(x.order_by(|a, b| b - a), [3, 2, 1], "order_by");
        let failed = "";
        let words = ["pear", "fig", "apple", "kiwi"];
        same(words.order_by_key(|w| w.len()), ["fig", "pear", "kiwi", "apple"], "order_by_key, stable");
        words.sort_by_key(|w, i| [w.len() % 2, -i]);
        same(words, ["kiwi", "pear", "apple", "fig"], "sort_by_key: a list as the key, the index too");
        same(["b", "a", ""].order_by_key(|w| w), ["", "a", "b"], "texts as keys");
        same([[1, 2], [1], [0, 5]].order_by_key(|k| k), [[0, 5], [1], [1, 2]], "a list that starts another first");
        failed = "";
        try { [1, "a"].sort_by_key(|v| v); } catch (e) { failed = `${e}`; }
        expect(failed.contains("of one kind") && failed.contains("int"), `keys of two kinds: ${failed}`);
        failed = "";
        try { x.sort(|a, b| { throw "no order" }); } catch (e) { failed = `${e}`; }
        expect(failed.contains("no order"), `an error inside a comparison stops the sort: ${failed}`);
        failed = "";
        try { x.sort(|a, b| "less"); } catch (e) { failed = `${e}`; }
        expect(failed.contains("must return a number"), `a comparison returns a number: ${failed}`);
        same([1, 2].map(|v| v * 10), [10, 20], "map");
        same([5, 6].map(|v, i| i), [0, 1], "map with the index");
        same([1, 2, 3].filter((|least, v| v >= least).curry(2)), [2, 3], "filter with a curried value");
        failed = "";
        try { [1].filter(|v| v); } catch (e) { failed = `${e}`; }
        expect(failed.contains("must return true or false"), `a predicate returns true or false: ${failed}`);
        same([1, 2, 3].reduce(|s, v| s + v, 0), 6, "reduce");
        same([1, 2, 3].reduce(|s, v| `${s ?? ""}${v}`), "123", "reduce without a start");
        same([1, 2, 3].reduce_rev(|s, v| s + `${v}`, ""), "321", "reduce_rev");
        same([1, 2, 3].reduce_rev(|s, v| `${s ?? ""}${v}`), "321", "reduce_rev without a start");
        expect([1, 5].some(|v| v > 4) && ![1, 5].some(|v| v > 5), "some");
        expect([1, 5].all(|v| v > 0) && ![1, 5].all(|v| v > 1), "all");
        same([4, 5, 6].index_of(|v| v > 4), 1, "index_of");
        same([4, 5, 6].index_of(|v| v > 4, 2), 2, "index_of from");
        same([4, 5, 6].find(|v| v > 4), 5, "find");
        same([4, 5, 6].find(|v| v > 4, -1), 6, "find from the back");
        same([4, 5, 6].find_map(|v| if v > 4 { v * 2 } else { () }), 10, "find_map");
        same([4, 5, 6].find_map(|v| if v > 4 { v * 2 } else { () }, 2), 12, "find_map from");
        let y = [1, 2, 3, 4];
        same(y.retain(|v| v % 2 == 0), [1, 3], "retain gives back the others");
        same(y, [2, 4], "retain keeps");
        same(y.drain(|v| v > 3), [4], "drain");
        same(y, [2], "drain removes");
        let z = [1, 1, 2, 2, 1];
        z.dedup(|a, b| a == b);
        same(z, [1, 2, 1], "dedup");
        let m = #{ a: 1, b: 2 };
        same(m.map(|k, v| `${k}${v}`), #{ a: "a1", b: "b2" }, "map of a map");
        same(m.filter(|k, v| v > 1), #{ b: 2 }, "filter of a map");
        "#,
    ),
    // ---- Turns
    case(
        &["current", "has_turn", "set_current", "next_seat", "advance", "first_seat", "set_first"],
        r#"
        let failed = false;
        try { current(); } catch { failed = true; }
        expect(failed, "current() before any seat has the turn is an error");
        expect(!has_turn(0) && !has_turn(1), "nobody has the turn yet");
        set_current(1);
        same(current(), 1, "set_current");
        expect(has_turn(1) && !has_turn(0), "has_turn");
        same(next_seat(1), 0, "next_seat wraps");
        same(advance(), 0, "advance");
        same(current(), 0, "advance moves the turn");
        eliminate(1);
        same(next_seat(0), 0, "next_seat skips a seat out of the game (nobody else: p itself)");
        restore(1);
        same(first_seat(), 0, "first_seat starts at 0");
        set_first(1);
        same(first_seat(), 1, "set_first");
        "#,
    ),
    case(
        &["round", "set_round", "next_round", "round_name"],
        r#"
        same(round(), 0, "round starts at 0");
        same(round_name(1), "the first round", "round_name from round_names");
        same(round_name(2), "round 2", "round_name past the list");
        same(next_round(), 1, "next_round");
        set_round(5);
        same(round(), 5, "set_round");
        let failed = false;
        try { set_round(-1); } catch { failed = true; }
        expect(failed, "a negative round is an error");
        "#,
    ),
    case(
        &[
            "pass",
            "withdraw",
            "has_passed",
            "has_withdrawn",
            "all_passed",
            "last_passer",
            "clear_passes",
            "reset_passes",
        ],
        r#"
        same(last_passer(), -1, "nobody passed yet");
        pass(0);
        expect(has_passed(0) && !has_passed(1), "has_passed");
        expect(!all_passed(), "one of two passed");
        same(last_passer(), 0, "last_passer");
        withdraw(1);
        expect(has_withdrawn(1) && has_passed(1) && !has_withdrawn(0), "has_withdrawn");
        expect(all_passed(), "all_passed");
        same(next_seat(0), 0, "next_seat skips a withdrawn seat");
        clear_passes();
        expect(!has_passed(0) && has_passed(1), "clear_passes keeps who withdrew");
        reset_passes();
        expect(!has_passed(1) && last_passer() == -1, "reset_passes");
        eliminate(1);
        pass(0);
        expect(all_passed(), "a seat out of the game need not pass");
        "#,
    ),
    case(
        &["phase", "set_phase", "is_phase", "next_phase"],
        r#"
        let failed = false;
        try { phase(); } catch { failed = true; }
        expect(failed, "phase() before any phase is an error");
        same(next_phase(), "draft", "next_phase starts at the first");
        set_phase("play");
        expect(phase() == "play" && is_phase("play") && !is_phase("draft"), "set_phase");
        same(next_phase(), "draft", "next_phase wraps");
        let e = "";
        try { set_phase("plya"); } catch (x) { e = x; }
        expect(e.contains("did you mean `play`"), `an unknown phase: ${e}`);
        "#,
    ),
    // ---- Players
    case(
        &[
            "players",
            "player_name",
            "character",
            "set_character",
            "alive",
            "alive_after",
            "eliminate",
            "is_out",
            "restore",
        ],
        r#"
        same(players(), 2, "players");
        same(player_name(0), "Ann", "seat name");
        same(player_name(1), "Bea", "seat name");
        same(character(1), "", "no character yet");
        set_character(1, "ada");
        same(character(1), "ada", "set_character");
        same(alive(), [0, 1], "alive");
        same(alive_after(0), [1], "alive_after");
        eliminate(1);
        expect(is_out(1) && !is_out(0), "is_out");
        same(alive(), [0], "alive without the eliminated");
        same(alive_after(0), [], "nobody after");
        restore(1);
        same(alive(), [0, 1], "restore");
        eliminate(1, "Bea is out of the round");
        expect(is_out(1), "eliminate with words");
        "#,
    ),
    case(
        &[
            "counter",
            "set_counter",
            "add_counter",
            "hide_counter",
            "set_score",
            "score",
            "counters_text",
            "counter_label",
        ],
        r#"
        same(counter(0, "vp"), 0, "unset counter");
        same(set_counter(0, "vp", 4), 4, "set_counter");
        same(add_counter(0, "vp", 3), 7, "add_counter");
        same(add_counter(0, "vp", 9223372036854775807), 9223372036854775807, "add_counter saturates");
        set_counter(0, "vp", 2);
        set_counter(0, "gold", 5);
        same(counters_text(0, 1), "victory points 2, gold 5", "counters_text");
        hide_counter(0, "gold");
        same(counters_text(0, 1), "victory points 2, gold ?", "hidden from others");
        same(counters_text(0, 0), "victory points 2, gold 5", "seen by its owner");
        same(counter_label("vp"), "victory points", "counter_label");
        same(counter_label("gold"), "gold", "counter_label without a name");
        set_score(1, 12);
        same(score(1), 12, "score");
        set_score(0, [["walls", 2], ["resources", 6]]);
        same(score(0), 8, "set_score with parts: their sum");
        let failed = false;
        try { set_score(0, [["walls", "two"]]); } catch { failed = true; }
        expect(failed, "a part is [name, points]");
        // pack.toml's counter_ranges: gold from 0 to 9.
        set_counter(0, "gold", 9);
        let said = "";
        try { add_counter(0, "gold", 1); } catch (e) { said = `${e}`; }
        expect(said.contains("gold would be 10 (it is 9): pack.toml's counter_ranges holds it from 0 to 9"), said);
        said = "";
        try { set_counter(0, "gold", -1); } catch (e) { said = `${e}`; }
        expect(said.contains("would be -1"), said);
        same(counter(0, "gold"), 9, "a refused change changes nothing");
        "#,
    ),
    // ---- Zones
    case(
        &[
            "zone",
            "pzone",
            "cards",
            "cards_up",
            "count",
            "top",
            "bottom",
            "move_card",
            "move_bottom",
            "draw",
            "zone_of",
            "zone_name",
            "zone_owner",
            "find_in",
        ],
        r#"
        let d = zone("pile");
        same(zone("pile"), d, "zone is made once");
        let h = pzone(0, "hand");
        same(zone_name(d), "pile", "zone_name");
        same(zone_owner(h), 0, "zone_owner");
        same(zone_owner(d), -1, "shared zone");
        same(top(d), -1, "top of an empty zone");
        same(bottom(d), -1, "bottom of an empty zone");
        let a = create_card("archer", d);
        let w = create_card("wall", d);
        same(cards(d), [w, a], "cards: top first");
        same(cards_up(d), [a, w], "cards_up: bottom first");
        same(count(d), 2, "count");
        same(top(d), w, "top");
        same(bottom(d), a, "bottom");
        same(find_in(d, "archer"), a, "find_in");
        same(find_in(d, "farm"), -1, "find_in misses");
        same(draw(d, h), w, "draw takes the top");
        same(zone_of(w), h, "zone_of");
        move_card(w, d);
        same(top(d), w, "move_card puts on top");
        move_bottom(w, d);
        same(bottom(d), w, "move_bottom");
        same(draw(zone("empty"), h), -1, "draw from an empty zone");
        "#,
    ),
    case(
        &["shuffle", "shuffle_list", "random", "roll", "set_visibility", "remove_card", "set_active"],
        r#"
        let d = zone("deck");
        let made = create_cards("archer", 2, d) + create_cards("wall", 1, d);
        shuffle(d);
        same(count(d), 3, "shuffle keeps the cards");
        for c in made { expect(cards(d).contains(c), "shuffle lost a card"); }
        let l = shuffle_list([1, 2, 3, 4]);
        same(l.len(), 4, "shuffle_list keeps length");
        for x in [1, 2, 3, 4] { expect(l.contains(x), "shuffle_list lost an item"); }
        for i in 0..20 {
            let r = random(6);
            expect(r >= 0 && r < 6, `random out of range: ${r}`);
            let d6 = roll(6);
            expect(d6 >= 1 && d6 <= 6, `roll out of range: ${d6}`);
        }
        let z = zone("secret");
        set_visibility(z, "hidden");
        let c = create_card("wall", z);
        expect(!can_see(0, c), "a hidden zone is hidden from everyone");
        remove_card(c);
        same(zone_of(c), -1, "remove_card takes it out of the game");
        same(count(z), 0, "the zone is empty");
        let t = zone("tableau");
        create_card("archer", t);
        same(fold("bonus", 1, [2]), 1, "an inactive zone's cards take no part");
        set_active(t, true);
        same(fold("bonus", 1, [2]), 1, "archer has no bonus hook: unchanged");
        "#,
    ),
    // ---- Cards
    case(
        &[
            "create_card",
            "create_cards",
            "create_deck",
            "def_of",
            "distinct_defs",
            "name_of",
            "kind_of",
            "has_keyword",
            "with_keyword",
        ],
        r#"
        let z = zone("z");
        let deck = create_deck("main", z);
        same(deck.len(), 3, "create_deck: count copies of each card in the deck");
        let ids = [];
        for c in deck { ids.push(def_of(c)); }
        same(ids, ["archer", "archer", "wall"], "create_deck in order of id");
        let two = create_cards("wall", 2, z);
        same(two.len(), 2, "create_cards");
        let c = create_card("archer", z);
        same(name_of(c), "Archer", "name_of");
        same(kind_of(c), "attack", "kind_of");
        expect(has_keyword(c, "ranged") && !has_keyword(c, "land"), "has_keyword");
        same(with_keyword(cards(z), "ranged").len(), 3, "with_keyword");
        same(distinct_defs(cards(z)).len(), 2, "distinct_defs");
        same(def_of(distinct_defs(cards(z))[0]), "archer", "distinct_defs keeps the first of each");
        "#,
    ),
    case(
        &[
            "value",
            "value_or",
            "attr",
            "effects",
            "side",
            "set_side",
            "stage",
            "set_stage",
            "stages",
            "upgrades",
            "checkboxes",
            "add_sticker",
            "stickers",
        ],
        r#"
        let z = zone("z");
        let w = create_card("wall", z);
        same(value(w, "defence"), 3, "front value");
        same(side(w), "front", "side");
        set_side(w, "back");
        same(side(w), "back", "set_side");
        same(value(w, "defence"), 1, "the back's value");
        same(name_of(w), "Rubble", "the back's name");
        same(value_or(w, "attack", -1), -1, "value_or for a value the face lacks");
        let a = create_card("archer", z);
        same(attr(a, "colour"), "red", "attr");
        same(attr(a, "smell"), "", "attr unset");
        same(effects(w), [#{ kind: "feast", once: false, actions: [] }], "effects: the back's, declared fields left out read empty");
        same(effects(a)[0].once, true, "effects: the definition's");
        let f = create_card("farm", z);
        same(effects(f)[0].actions, [#{ gain: #{ grain: 2 } }], "effects: the stage's, with its list of entries");
        same(stage(f), "front-top", "first stage");
        same(stages(f), ["front-top", "back-top"], "stages");
        same(checkboxes(f), ["", "grain"], "checkboxes");
        let u = upgrades(f);
        same(u.len(), 1, "upgrades");
        same(u[0].to, "back-top", "upgrade target");
        same(u[0].cost.gold, 2, "upgrade cost");
        same(value(f, "grain"), 1, "stage value");
        same(set_stage(f, "back-top"), "flip", "set_stage says how it turned");
        same(name_of(f), "Mill", "the stage's name");
        same(effects(f), [], "effects: a stage listing none has the definition's");
        expect(has_keyword(f, "building") && !has_keyword(f, "land"), "the stage's keywords");
        add_sticker(f, "grain");
        same(value(f, "grain"), 4, "a sticker adds one");
        same(stickers(f), ["grain"], "stickers");
        "#,
    ),
    case(
        &[
            "mark",
            "set_mark",
            "add_mark",
            "attach",
            "attached",
            "host_of",
            "owner_of",
            "set_owner",
            "face_up",
            "set_face_up",
        ],
        r#"
        let z = pzone(1, "kingdom");
        let w = create_card("wall", z);
        let a = create_card("archer", zone("loose"));
        same(owner_of(w), 1, "a card in a player's zone is theirs");
        set_owner(w, 0);
        same(owner_of(w), 0, "set_owner");
        same(mark(w, "hp"), 0, "unset mark");
        same(set_mark(w, "hp", 3), 3, "set_mark");
        same(add_mark(w, "hp", -1), 2, "add_mark");
        attach(a, w);
        same(attached(w), [a], "attached");
        same(host_of(a), w, "host_of");
        same(host_of(w), -1, "no host");
        same(zone_of(a), z, "an attached card is in its host's zone");
        expect(face_up(w), "new cards are face up");
        set_face_up(w, false);
        expect(!face_up(w), "set_face_up");
        "#,
    ),
    // ---- Definitions
    case(
        &[
            "defs",
            "defs_in_deck",
            "def_exists",
            "def_name",
            "def_kind",
            "def_count",
            "def_text",
            "def_value",
            "def_value_or",
            "def_attr",
            "def_has_keyword",
            "def_keywords",
            "def_cards",
            "def_serial",
            "def_cost",
            "def_back",
            "def_faces",
            "did_you_mean",
            "prepared",
            "pack_keywords",
        ],
        r#"
        same(defs("card"), ["archer", "domino", "farm", "wall"], "defs sorted by id");
        same(defs("noble"), ["ada"], "nobles");
        same(defs_in_deck("main"), ["archer", "wall"], "defs_in_deck");
        expect(def_exists("wall") && !def_exists("moat"), "def_exists");
        same(prepared("archer", "name"), "Archer", "prepared: what prepare(id) worked out at load");
        let kws = pack_keywords();
        let sorted = kws;
        sorted.sort();
        expect(kws.contains("ranged") && kws.contains("building") && kws == sorted, `pack_keywords, sorted: ${kws}`);
        same(prepared("wall"), #{ name: "Wall", faces: 2, kind: #{ of: "defend" } }, "prepared whole: the wall has a back");
        let failed = "";
        try { prepared("archer", "nmae"); } catch (e) { failed = e; }
        expect(failed.contains("gave no `nmae` (it gave: faces, kind, name)"), `a key prepare did not give: ${failed}`);
        same(prepared("wall", "kind", "of"), "defend", "prepared: one field of one entry");
        try { prepared("wall", "kind", "was"); } catch (e) { failed = e; }
        expect(failed.contains("`prepare(\"wall\")`'s `kind` gave no `was` (it gave: of)"), `a field the entry lacks: ${failed}`);
        try { prepared("wall", "name", "of"); } catch (e) { failed = e; }
        expect(failed.contains("'s `name` gave string, not a map: read it whole with prepared(id, key)"), `an entry that is not a map: ${failed}`);
        same(def_name("archer"), "Archer", "def_name");
        same(def_kind("wall"), "defend", "def_kind");
        same(def_count("archer"), 2, "def_count");
        same(def_text("archer"), "Shoot twice.", "def_text");
        same(def_value("archer", "attack"), 2, "def_value");
        same(def_value_or("archer", "defence", 7), 7, "def_value_or");
        same(def_attr("archer", "colour"), "red", "def_attr");
        expect(def_has_keyword("archer", "ranged"), "def_has_keyword");
        same(def_keywords("archer"), ["ranged"], "def_keywords");
        same(def_cards("archer"), ["wall"], "def_cards");
        same(def_serial("archer"), 7, "def_serial");
        same(def_serial("wall"), -1, "no serial");
        same(def_cost("archer"), #{ gold: 3 }, "def_cost");
        same(def_cost("wall"), #{}, "no cost");
        let b = def_back("wall");
        same(b.name, "Rubble", "def_back name");
        same(b.values.defence, 1, "def_back values");
        let faces = def_faces("farm");
        same(faces.len(), 2, "def_faces: every stage");
        same(faces[1].face, "back-top", "face position");
        same(faces[1].values.grain, 3, "face values");
        same(def_faces("wall")[1].face, "back", "a back table is a face");
        same(def_faces("wall")[1].effects[0].kind, "feast", "a face's effects");
        same(faces[0].effects[0].kind, "harvest", "a stage's effects");
        let up = faces[0].upgrades;
        same(up.len(), 1, "def_faces: a stage's upgrades");
        same(up[0].to, "back-top", "upgrade target");
        same(up[0].turn, "flip", "how the card turns");
        same(up[0].cost.gold, 2, "upgrade cost");
        same(faces[1].upgrades, [], "a last stage leads nowhere");
        same(did_you_mean("archr", defs("card")), "archer", "did_you_mean");
        same(did_you_mean("zzzzzz", defs("card")), "", "nothing near");
        "#,
    ),
    // ---- Choices and hooks
    case(
        &["choose", "choose_number", "choose_some", "unavailable", "invoke", "has_fn", "fold"],
        r#"
        same(choose(0, "Pick", ["One", "Two"]), "One", "the first bot takes the first option");
        same(choose_some(0, "Pick", ["A", "B", "C"], 0, 2), ["A", "B"], "the first bot picks the first left, up to the most");
        same(choose_some(0, "Pick", ["A", "B"], 0, 5), ["A", "B"], "the most is at most every option");
        same(choose_some(0, "Pick", [#{ label: "A", unavailable: "not yet" }], 0, 1), [], "nothing to pick from: none picked");
        let limits = "";
        try { choose_some(0, "Pick", ["A"], 2, 3); } catch (e) { limits = `${e}`; }
        expect(limits.contains("is only 1 option to pick"), `more needed than offered is an error: ${limits}`);
        try { choose_some(0, "Pick", ["A"], 2, 1); } catch (e) { limits = `${e}`; }
        expect(limits.contains("0 <= least <= most"), `limits the wrong way round are an error: ${limits}`);
        try { choose_some(0, "Pick", ["Done", "B"], 0, 1); } catch (e) { limits = `${e}`; }
        expect(limits.contains("the end of the picking"), `an option labelled Done is an error: ${limits}`);
        same(choose_number(0, "How many?", 3, 9), 3, "the first bot takes the lowest number");
        same(choose_number(0, "How many?", 4, 4), 4, "a range of one is taken");
        same(choose(0, "Pick", [#{ label: "A", unavailable: "not yet" }, "B"]), "B", "an unavailable option is not offered");
        let none = "";
        try { choose(0, "Pick", [#{ label: "A", unavailable: "not yet" }]); } catch (e) { none = `${e}`; }
        expect(none.contains("no option that can be taken"), `only unavailable options is an error: ${none}`);
        let m = menu();
        m.unavailable("Build a wall", "needs 2 more wood");
        m.add("pass", "Pass");
        same(choose(0, "Act", m).kind, "pass", "a menu's unavailable option is shown, not offered");
        let empty = "";
        try { choose_number(0, "How many?", 5, 4); } catch (e) { empty = `${e}`; }
        expect(empty.contains("the range is empty"), `an empty range is an error: ${empty}`);
        same(choose(1, "Pick", [#{ label: "A", v: 1 }, #{ label: "A", v: 2 }]).v, 1, "options sharing a label count as one");
        let a = create_card("archer", zone("z"));
        same(invoke(a, "shout", [4]), 40, "invoke on a card");
        same(invoke("archer", "shout", [1]), 10, "invoke on a definition");
        same(invoke(a, "nothing", []), (), "invoke of a missing function");
        expect(has_fn(a, "shout") && !has_fn(a, "nothing"), "has_fn");
        same(fold("bonus", 1, [2]), 1, "no character yet: unchanged");
        set_character(0, "ada");
        same(fold("bonus", 1, [2]), 3, "the noble's hook adds");
        "#,
    ),
    case(
        &[
            "menu",
            "add",
            "add_numbered",
            "add_card",
            "offer",
            "confirm",
            "ends_turn",
            "note",
            "len",
            "labels",
            "options",
        ],
        r#"
        let h = pzone(0, "hand");
        let a1 = create_card("archer", h);
        let a2 = create_card("archer", h);
        let w = create_card("wall", h);
        let m = menu();
        m.offer("play", cards(h), "can_play", [0], |o| `Play ${name_of(o.card)}`);
        same(m.len(), 1, "offer: one archer (a second copy is left out), no wall (no can_play)");
        let none = menu();
        none.offer("play", cards(h), "can_play", [1], |o| `Play ${name_of(o.card)}`);
        same(none.len(), 0, "can_play is false for seat 1");
        m.add_card("play", a1, |o| "again");
        same(m.len(), 1, "add_card: the archer is offered already");
        m.add_card("discard", w, |o| `Discard ${name_of(o.card)}`);
        m.add("end", "End turn");
        m.confirm("End now?");
        m.ends_turn();
        m.add("end", "End turn");
        same(m.len(), 3, "add: a label already held is left out");
        same(m.labels(), ["Play Archer", "Discard Wall", "End turn"], "labels");
        let all = m.options();
        same(all.len(), 3, "options");
        expect(all[0].kind == "play" && all[0].card == a2 && all[0].label == "Play Archer", "an option as choose gives it");
        same(all[2].confirm, "End now?", "with its fields");
        expect(all[2].ends_turn && !("ends_turn" in all[0]), "ends_turn marks the option added last");
        m.add("pass", "Pass", #{ worth: 4 });
        m.note("pass", |o| `worth ${o.worth}`);
        let n = menu();
        n.add_numbered("fire", "Fire", #{});
        n.add_numbered("fire", "Fire", #{});
        same(n.len(), 2, "add_numbered keeps both");
        same(choose(1, "Fire which?", n).label, "Fire", "the first keeps its label");
        let o = choose(0, "Your turn", m);
        same(o.kind, "play", "the first bot takes the first option");
        same(o.card, a2, "the first card offered");
        same(o.label, "Play Archer", "its label");
        expect(!("note" in o), "notes are made for a person only, not for a bot");
        let t = menu();
        t.add("target", |o| `Attack ${space_name(o.at)}`, #{ at: space("keep") });
        t.add("target", |o| `Attack ${space_name(o.at)}`, #{ at: space("keep") });
        same(t.len(), 2, "options with label functions are never merged");
        same(choose(0, "Attack where?", t).label, "Attack The Keep", "a label function reads the option's fields");
        let z = menu();
        z.add("pass", "Pass", #{ worth: 4 });
        let p = choose(1, "Only one", z);
        same(p.worth, 4, "fields travel with the option");
        same(p.card, -1, "no card");
        "#,
    ),
    // ---- Game
    case(
        &[
            "get",
            "get_or",
            "set",
            "option",
            "option_or",
            "has_option",
            "scenario",
            "seat_character",
            "seat_cards",
            "seat_agent",
            "seat_value",
            "agent_kind",
            "turn_number",
        ],
        r#"
        same(get("x"), (), "unset variable");
        same(get_or("x", 5), 5, "get_or");
        set("x", 2);
        same(get("x"), 2, "set");
        same(option("hand"), 3, "the scenario's setting over the pack's");
        same(option("bands"), [4, 6], "a list setting from pack.toml");
        same(option_or("speed", 9), 9, "option_or");
        expect(has_option("mode") && !has_option("speed"), "has_option");
        same(scenario(), "duel", "scenario");
        same(seat_character(0), "ada", "seat_character");
        same(seat_cards(0), ["archer"], "seat_cards");
        same(seat_agent(0), "greedy", "seat_agent");
        same(seat_value(0, "start"), 4, "seat_value");
        same(seat_value(1, "start"), 0, "seat_value unset");
        same(agent_kind(0), "first", "agent_kind");
        same(turn_number(), 0, "turn_number before any turn");
        "#,
    ),
    case(
        &["log", "log_to", "note_play", "note_discard", "win_round", "checkpoint", "end_game", "is_over"],
        r#"
        log("Ann builds a wall");
        log_to(0, "Ann draws Wall");
        log_to([1], "Bea draws Archer", "Bea draws a card");
        let c = create_card("archer", pzone(0, "hand"));
        note_play(0, c);
        note_discard(1, create_card("wall", pzone(1, "hand")));
        let failed = false;
        try { win_round(0); } catch { failed = true; }
        expect(failed, "win_round before any round has begun");
        next_round();
        win_round([1]);
        failed = false;
        try { win_round(0); } catch { failed = true; }
        expect(failed, "a round is won once");
        next_round();
        win_round([]);
        checkpoint();
        expect(!is_over(), "not over yet");
        set_score(0, 3);
        end_game([0], "Ann holds the keep");
        expect(is_over(), "is_over");
        "#,
    ),
    // ---- Table
    case(
        &["can_see", "names_text", "columns", "words", "words_or", "count_words"],
        r#"
        let mine = create_card("archer", pzone(0, "hand"));
        let open = create_card("wall", zone("discard"));
        expect(can_see(0, mine) && !can_see(1, mine), "a hand is its owner's");
        expect(can_see(1, open), "a public zone");
        set_face_up(open, false);
        expect(!can_see(1, open), "face down");
        let two = create_card("archer", pzone(0, "hand"));
        same(names_text([mine, two], 0), "Archer ×2", "names_text folds repeats");
        same(names_text([mine], 1), "a face-down card", "names_text hides");
        same(columns([["a", "bb"], ["ccc", "d"]]), "a    bb\nccc  d\n", "columns: one line a row");
        same(words([]), "", "words of nothing");
        same(words([], "nobody"), "nobody", "words: what an empty list says");
        same(words(["Ann"]), "Ann", "one word");
        same(words(["Ann", "Bea"]), "Ann and Bea", "two words");
        same(words(["Ann", "Bea", 3]), "Ann, Bea and 3", "a list: items as text");
        same(words_or(["wood", "stone", "iron"]), "wood, stone or iron", "a choice");
        same(count_words(1, "card"), "1 card", "one");
        same(count_words(3, "card"), "3 cards", "more");
        same(count_words(0, "army"), "0 armies", "consonant y");
        same(count_words(2, "day"), "2 days", "vowel y");
        same(count_words(2, "coach"), "2 coaches", "-es");
        same(count_words(2, "Dane", "Danes"), "2 Danes", "a plural given");
        same(count_words(1, "Dane", "Danes"), "1 Dane", "one, with a plural given");
        same(count_words(2, "sheep", "sheep"), "2 sheep", "an irregular plural");
        "#,
    ),
];

/// The fixture pack, loaded from a temporary project.
/// The fixture pack, written and loaded once for every test here (they run in parallel).
fn fixture() -> Arc<Pack> {
    static LOADED: std::sync::OnceLock<Arc<Pack>> = std::sync::OnceLock::new();
    LOADED.get_or_init(write_fixture).clone()
}

fn write_fixture() -> Arc<Pack> {
    super::fixture_pack(
        "api-cases",
        "fx",
        &[
            ("content/fx/pack.toml", PACK),
            ("content/fx/cards/cards.toml", CARDS),
            ("content/fx/nobles.toml", NOBLES),
            ("content/fx/board.toml", BOARD),
            ("content/fx/scenarios/duel.toml", SCENARIO),
            ("scripts/fx/rules.rhai", RULES),
            ("scripts/fx/archer.rhai", ARCHER),
            ("scripts/fx/ada.rhai", ADA),
        ],
    )
}

/// A fresh two-seat game of the fixture pack (for tests elsewhere that need a game with
/// one of everything).
pub(crate) fn fixture_game() -> Game {
    fresh_game(&fixture()).expect("the fixture's game")
}

fn fresh_game(pack: &Arc<Pack>) -> Result<Game, String> {
    let mut cfg = GameConfig::new(1, 2);
    cfg.scenario = Some("duel".into());
    let agents: Vec<Box<dyn Agent>> = vec![Box::new(FirstAgent), Box::new(FirstAgent)];
    Game::new(pack.clone(), cfg, agents)
}

/// Run one case on a fresh two-seat game of the fixture.
fn run(pack: &Arc<Pack>, c: &Case) -> Result<(), String> {
    let game = fresh_game(pack)?;
    let rules = pack.rules_script().expect("rules").ast.clone();
    let ast = crate::script::compile("case", c.code).map_err(|e| e.to_string())?;
    let merged = rules.merge(&ast);
    let (_, r) = super::with_installed(game, || crate::script::engine().run_ast(&merged));
    r.map_err(|e| e.to_string())
}

#[test]
fn the_default_status_says_where_the_turn_stands() {
    let pack = fixture();
    let mut cfg = GameConfig::new(1, 2);
    cfg.scenario = Some("duel".into());
    let agents: Vec<Box<dyn Agent>> = vec![Box::new(FirstAgent), Box::new(FirstAgent)];
    let game = Game::new(pack.clone(), cfg, agents).unwrap();
    let before = game.table().status(0);
    assert!(!before.contains("turn") && !before.contains("ound"), "{before}");
    let ast = crate::script::compile("case", "set_round(2); set_phase(\"play\"); set_current(1);").unwrap();
    let (game, r) = super::with_installed(game, || crate::script::engine().run_ast(&ast));
    r.unwrap();
    let t = game.table();
    assert!(t.status(0).contains("  Round 2, play phase, Bea to play\n"), "{}", t.status(0));
    assert!(t.status(1).contains("  Round 2, play phase, your turn\n"), "{}", t.status(1));
    // Each seat's board drawn from the data, the seat's own first named as its own.
    let mid = "  your Realm:\n       a  b  c  d  e\n     1 .  .  .  .  .\n     2 .  .  .  .  .\n     3 .  .  c  .  .\n";
    assert!(t.status(0).contains(mid) && t.status(0).contains("  Bea's Realm:\n"), "{}", t.status(0));
    assert!(t.status(0).ends_with("\n  (c castle)\n"), "one legend for every board: {}", t.status(0));
    assert!(game.view(1).contains("  Ann's Realm:\n"), "{}", game.view(1));
}

#[test]
fn every_case_passes() {
    let pack = fixture();
    let failed: Vec<String> =
        all_cases().filter_map(|c| run(&pack, c).err().map(|e| format!("[{}]: {e}", c.covers.join(", ")))).collect();
    assert!(failed.is_empty(), "{} of {} cases failed:\n{}", failed.len(), all_cases().count(), failed.join("\n"));
}

#[test]
fn every_registered_function_has_a_case() {
    let registered: BTreeSet<String> = crate::script::engine()
        .gen_fn_signatures(false)
        .into_iter()
        .map(|s| s.split('(').next().unwrap_or("").trim().to_string())
        .collect();
    let covered: BTreeSet<String> = all_cases().flat_map(|c| c.covers.iter().map(|s| s.to_string())).collect();
    let missing: Vec<&String> = registered.difference(&covered).collect();
    assert!(missing.is_empty(), "registered functions no case tests: {missing:?}");
    let unknown: Vec<&String> = covered.difference(&registered).collect();
    assert!(unknown.is_empty(), "cases cover functions that are not registered: {unknown:?}");
    // A case must call what it claims to cover.
    for c in all_cases() {
        for f in c.covers {
            assert!(c.code.contains(&format!("{f}(")), "a case claims `{f}` but never calls it");
        }
    }
}
