//! Crownfields: whole games read back from their transcripts and checked against the rules
//! by code of its own, never the pack's scripts: every tile laid touches like terrain or
//! the keep, covers nothing, keeps the realm within its size; a tile is discarded only when
//! it fits nowhere; every seat takes its tiles; the seeds add up as the row says; and each
//! final score, part by part, and the winners are worked out again from the realms. The
//! checker is shown to catch a score one off, a tile laid where it may not lie, and a seed
//! miscounted. Positions set up piece by piece check the tie-breaks.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::common::Table;
use crown_engine::bots;
use crown_engine::content::model::Scalar;
use crown_engine::content::Pack;
use crown_engine::game::record::transcript_text;
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::load::{load_pack, LoadOptions, Project};

const PACK: &str = "crownfields";

fn pack() -> Arc<Pack> {
    let project = Project::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let loaded = load_pack(&project, PACK, LoadOptions::default());
    assert_eq!(loaded.errors(), 0, "{:?}", loaded.diagnostics);
    Arc::new(loaded.pack.expect("pack loads"))
}

// ---------------------------------------------------------------------------------------
// The rules as data: the tiles, the realm's size and the settings, read from the pack's
// files (cards/tiles.toml, board.toml, pack.toml and the scenario).
// ---------------------------------------------------------------------------------------

/// One square of a tile: where it lies from the tile's first square as printed, its
/// terrain and crowns.
#[derive(Debug, Clone)]
struct Cell {
    dx: i64,
    dy: i64,
    terrain: String,
    crowns: i64,
}

struct Rules {
    tiles: BTreeMap<String, Vec<Cell>>,
    /// The realm's width and height.
    side: i64,
    turns: usize,
    row: usize,
    seeds: bool,
    whole_realm: i64,
    heartland: i64,
}

fn setting(pack: &Pack, scenario: &str, key: &str) -> Scalar {
    let sc = pack.scenarios.iter().find(|e| e.scenario.id == scenario).expect("the scenario");
    sc.scenario.options.get(key).or_else(|| pack.manifest.options.get(key)).cloned().expect(key)
}

fn int(s: Scalar) -> i64 {
    match s {
        Scalar::Int(n) => n,
        other => panic!("not a number: {other:?}"),
    }
}

fn rules(pack: &Pack, scenario: &str) -> Rules {
    let mut tiles = BTreeMap::new();
    for d in &pack.defs {
        let first = &d.def.cells[0];
        let cells = d
            .def
            .cells
            .iter()
            .map(|c| Cell {
                dx: c.x - first.x,
                dy: c.y - first.y,
                terrain: c.terrain.clone(),
                crowns: c.values.get("crowns").copied().unwrap_or(0),
            })
            .collect();
        tiles.insert(d.def.id.clone(), cells);
    }
    let board = &pack.board.as_ref().expect("board.toml").0.board;
    let realm = board.iter().find(|b| b.id == "realm").expect("the realm board");
    assert_eq!(realm.width, realm.height, "a square realm");
    Rules {
        tiles,
        side: realm.width,
        turns: int(setting(pack, scenario, "turns")) as usize,
        row: int(setting(pack, scenario, "row")) as usize,
        seeds: matches!(setting(pack, scenario, "seeds"), Scalar::Bool(true)),
        whole_realm: int(setting(pack, scenario, "whole_realm")),
        heartland: int(setting(pack, scenario, "heartland")),
    }
}

// ---------------------------------------------------------------------------------------
// A realm, and what the rules say about it.
// ---------------------------------------------------------------------------------------

type Square = (i64, i64);

/// The squares filled, each with its terrain and crowns; the keep first, in the middle of
/// the board as kept (twice the realm's size less one each way).
#[derive(Clone)]
struct Realm {
    filled: BTreeMap<Square, (String, i64)>,
    keep: Square,
    side: i64,
}

impl Realm {
    fn new(side: i64) -> Realm {
        let keep = (side - 1, side - 1);
        Realm { filled: BTreeMap::from([(keep, ("keep".to_string(), 0))]), keep, side }
    }

    /// The squares a tile would cover with its first square on `at`, turned to `facing`
    /// (where its printed top points, turning clockwise; y grows downwards).
    fn cover(at: Square, facing: &str, cells: &[Cell]) -> Vec<Square> {
        cells
            .iter()
            .map(|c| {
                let (dx, dy) = match facing {
                    "north" => (c.dx, c.dy),
                    "east" => (-c.dy, c.dx),
                    "south" => (-c.dx, -c.dy),
                    "west" => (c.dy, -c.dx),
                    other => panic!("no facing {other}"),
                };
                (at.0 + dx, at.1 + dy)
            })
            .collect()
    }

    /// Whether `cells` may lie on `squares`: nothing covered, all on the board as kept,
    /// everything within the realm's size, and one square beside its own terrain or the
    /// keep. The reason when it may not.
    fn may_lay(&self, squares: &[Square], cells: &[Cell]) -> Result<(), String> {
        let kept = 2 * self.side - 1;
        for s in squares {
            if self.filled.contains_key(s) {
                return Err(format!("{} is already filled", name(*s)));
            }
            if s.0 < 0 || s.1 < 0 || s.0 >= kept || s.1 >= kept {
                return Err(format!("{s:?} is off the board"));
            }
        }
        let xs: Vec<i64> = self.filled.keys().chain(squares).map(|s| s.0).collect();
        let ys: Vec<i64> = self.filled.keys().chain(squares).map(|s| s.1).collect();
        let w = xs.iter().max().unwrap() - xs.iter().min().unwrap() + 1;
        let h = ys.iter().max().unwrap() - ys.iter().min().unwrap() + 1;
        if w > self.side || h > self.side {
            return Err(format!("the realm would span {w} by {h}"));
        }
        let touches = squares.iter().zip(cells).any(|(s, c)| {
            beside(*s).iter().any(|n| self.filled.get(n).is_some_and(|(t, _)| t == "keep" || *t == c.terrain))
        });
        if !touches {
            return Err("no square touches its own terrain or the keep".into());
        }
        Ok(())
    }

    /// Every way the tile may lie, as its first square and facing.
    fn ways(&self, cells: &[Cell]) -> Vec<(Square, &'static str)> {
        let kept = 2 * self.side - 1;
        let mut out = Vec::new();
        for y in 0..kept {
            for x in 0..kept {
                for f in ["north", "east", "south", "west"] {
                    if self.may_lay(&Realm::cover((x, y), f, cells), cells).is_ok() {
                        out.push(((x, y), f));
                    }
                }
            }
        }
        out
    }

    fn lay(&mut self, squares: &[Square], cells: &[Cell]) {
        for (s, c) in squares.iter().zip(cells) {
            self.filled.insert(*s, (c.terrain.clone(), c.crowns));
        }
    }

    /// The regions of the six terrains (the keep is none): each its terrain, squares and
    /// crowns.
    fn regions(&self) -> Vec<(String, i64, i64)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (start, (terrain, _)) in &self.filled {
            if terrain == "keep" || !seen.insert(*start) {
                continue;
            }
            let (mut size, mut crowns, mut todo) = (0, 0, vec![*start]);
            while let Some(s) = todo.pop() {
                size += 1;
                crowns += self.filled[&s].1;
                for n in beside(s) {
                    if self.filled.get(&n).is_some_and(|(t, _)| t == terrain) && seen.insert(n) {
                        todo.push(n);
                    }
                }
            }
            out.push((terrain.clone(), size, crowns));
        }
        out
    }

    /// The score's parts: regions, Whole realm, Heartland.
    fn parts(&self, r: &Rules) -> (i64, i64, i64) {
        let regions = self.regions().iter().map(|(_, size, crowns)| size * crowns).sum();
        let whole = if self.filled.len() as i64 == self.side * self.side { r.whole_realm } else { 0 };
        let xs: Vec<i64> = self.filled.keys().map(|s| s.0).collect();
        let ys: Vec<i64> = self.filled.keys().map(|s| s.1).collect();
        let (x0, x1) = (*xs.iter().min().unwrap(), *xs.iter().max().unwrap());
        let (y0, y1) = (*ys.iter().min().unwrap(), *ys.iter().max().unwrap());
        let full = x1 - x0 + 1 == self.side && y1 - y0 + 1 == self.side;
        let middle = self.keep == ((x0 + x1) / 2, (y0 + y1) / 2);
        let heart = if full && middle { r.heartland } else { 0 };
        (regions, whole, heart)
    }
}

fn beside(s: Square) -> [Square; 4] {
    [(s.0, s.1 - 1), (s.0 - 1, s.1), (s.0 + 1, s.1), (s.0, s.1 + 1)]
}

/// `c4` for x = 2, y = 3.
fn name(s: Square) -> String {
    format!("{}{}", (b'a' + s.0 as u8) as char, s.1 + 1)
}

fn square_named(n: &str) -> Square {
    let x = i64::from(n.as_bytes()[0] - b'a');
    (x, n[1..].parse::<i64>().expect("a row number") - 1)
}

// ---------------------------------------------------------------------------------------
// Reading a transcript.
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct Seat {
    taken: usize,
    laid: usize,
    discarded: usize,
    seeds: i64,
}

/// What a checked game showed, for the tests to see the checks had something to check.
#[derive(Default, Debug)]
struct Seen {
    laid: usize,
    discards: usize,
    seeds_taken: i64,
    whole: usize,
    heartland: usize,
    tie_breaks: usize,
}

/// `tile-13#5` is a card of definition `tile-13`.
fn def_of(card: &str) -> &str {
    card.split('#').next().unwrap_or(card)
}

/// Check a finished game's transcript against the rules; the first problem found, with its
/// line.
fn check(text: &str, pack: &Pack) -> Result<Seen, String> {
    let header =
        |key: &str| text.lines().find_map(|l| l.strip_prefix(&format!("# {key} "))).ok_or(format!("no `# {key}` line"));
    let names: Vec<String> = header("players")?.split(", ").map(str::to_string).collect();
    let r = rules(pack, header("scenario")?);
    let seat_of = |n: &str| names.iter().position(|x| x == n).ok_or(format!("no seat {n}"));
    let mut realms: Vec<Realm> = names.iter().map(|_| Realm::new(r.side)).collect();
    let mut seats: Vec<Seat> = names.iter().map(|_| Seat::default()).collect();
    let mut row: Vec<String> = Vec::new();
    let mut seeds_on: BTreeMap<String, i64> = BTreeMap::new();
    let mut marked: BTreeMap<String, i64> = BTreeMap::new();
    let mut dealt = 0;
    let mut held: Option<(usize, String)> = None;
    let mut scored: BTreeMap<usize, i64> = BTreeMap::new();
    let mut seen = Seen::default();
    for (i, line) in text.lines().enumerate() {
        let at = |e: String| format!("line {}: `{line}`: {e}", i + 1);
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["move", card, "deck", "->", "row"] => {
                row.push(card.to_string());
                dealt += 1;
                if row.len() > r.row {
                    return Err(at(format!("the row holds {} tiles", row.len())));
                }
            }
            ["move", card, "row", "->", to] => {
                let p = seat_of(to.strip_prefix("held@").ok_or_else(|| at("taken to no seat".into()))?)?;
                if held.is_some() {
                    return Err(at("a tile taken while another is still held".into()));
                }
                // The seeds the transcript shows on the row are those the row's story gives.
                for t in &row {
                    let (shown, want) = (marked.get(t).copied().unwrap_or(0), seeds_on.get(t).copied().unwrap_or(0));
                    if shown != want {
                        return Err(at(format!("{t} shows {shown} seeds, not {want}")));
                    }
                }
                let place = row.iter().position(|c| c == card).ok_or_else(|| at("not in the row".into()))?;
                if r.seeds {
                    for left in &row[..place] {
                        *seeds_on.entry(left.clone()).or_default() += 1;
                    }
                }
                let s = seeds_on.remove(*card).unwrap_or(0);
                seats[p].seeds += s;
                seen.seeds_taken += s;
                seats[p].taken += 1;
                row.remove(place);
                held = Some((p, card.to_string()));
            }
            ["mark", card, "seeds", _, "->", n] => {
                let n: i64 = n.parse().map_err(|_| at("not a number".into()))?;
                if n != 0 && !row.iter().any(|t| t == card) {
                    return Err(at("a seed on a tile off the row".into()));
                }
                marked.insert(card.to_string(), n);
            }
            ["lay", card, "on", realm, "at", square, "facing", facing] => {
                let p = seat_of(realm.strip_prefix("realm@").ok_or_else(|| at("not a realm".into()))?)?;
                if held.as_ref() != Some(&(p, card.to_string())) {
                    return Err(at("laid without being taken by its seat".into()));
                }
                let cells = &r.tiles[def_of(card)];
                let squares = Realm::cover(square_named(square.trim_end_matches(',')), facing, cells);
                realms[p].may_lay(&squares, cells).map_err(at)?;
                realms[p].lay(&squares, cells);
                seats[p].laid += 1;
                seen.laid += 1;
                held = None;
            }
            ["move", card, from, "->", "discard"] => {
                let p = seat_of(from.strip_prefix("held@").ok_or_else(|| at("discarded from no seat".into()))?)?;
                let cells = &r.tiles[def_of(card)];
                if let Some((sq, f)) = realms[p].ways(cells).first() {
                    return Err(at(format!("it could lie at {}, facing {f}", name(*sq))));
                }
                seats[p].discarded += 1;
                seen.discards += 1;
                held = None;
            }
            ["score", who, "=", total, ..] => {
                let p = seat_of(who)?;
                let parts: BTreeMap<&str, i64> = line
                    .split_once('(')
                    .and_then(|(_, rest)| rest.strip_suffix(')'))
                    .ok_or_else(|| at("no parts".into()))?
                    .split(", ")
                    .filter_map(|kv| kv.rsplit_once(' '))
                    .map(|(k, v)| (k, v.parse().unwrap_or(i64::MIN)))
                    .collect();
                let (regions, whole, heart) = realms[p].parts(&r);
                let want =
                    [("regions", regions), ("seeds", seats[p].seeds), ("Whole realm", whole), ("Heartland", heart)];
                for (k, v) in want {
                    if parts.get(k) != Some(&v) {
                        return Err(at(format!("{k} should be {v}")));
                    }
                }
                let sum: i64 = want.iter().map(|(_, v)| v).sum();
                if total.parse::<i64>() != Ok(sum) {
                    return Err(at(format!("the score should be {sum}")));
                }
                seen.whole += usize::from(whole > 0);
                seen.heartland += usize::from(heart > 0);
                scored.insert(p, sum);
            }
            _ => {}
        }
        if let Some(rest) = line.strip_prefix("# result ") {
            if !rest.starts_with("finished;") {
                return Err(at("the game did not finish".into()));
            }
            let winners = rest.split("; ").find_map(|x| x.strip_prefix("winners ")).ok_or("no winners")?;
            let got: Vec<usize> = winners.split(", ").map(seat_of).collect::<Result<_, _>>()?;
            let want = winners_of(&realms, &scored);
            if got != want.0 {
                return Err(at(format!("the winners should be {:?}", want.0)));
            }
            seen.tie_breaks += usize::from(want.1);
        }
    }
    if dealt != r.turns * names.len() {
        return Err(format!("{dealt} tiles came into the row, not {} for each of {} seats", r.turns, names.len()));
    }
    if !row.is_empty() || held.is_some() {
        return Err(format!("the game ended with {} tiles in the row and {held:?} held", row.len()));
    }
    for (p, s) in seats.iter().enumerate() {
        if s.taken != r.turns || s.laid + s.discarded != s.taken {
            return Err(format!("{} took {}, laid {}, discarded {}", names[p], s.taken, s.laid, s.discarded));
        }
        if realms[p].filled.len() != 1 + 2 * s.laid {
            return Err(format!("{}'s realm has {} squares", names[p], realms[p].filled.len()));
        }
    }
    if scored.len() != names.len() {
        return Err(format!("{} of {} seats scored", scored.len(), names.len()));
    }
    Ok(seen)
}

/// The winners: the most points, then the largest region, then the most crowns; and
/// whether a tie had to be broken (or shared).
fn winners_of(realms: &[Realm], scores: &BTreeMap<usize, i64>) -> (Vec<usize>, bool) {
    let measures: [&dyn Fn(usize) -> i64; 3] =
        [&|p| scores[&p], &|p| realms[p].regions().iter().map(|r| r.1).max().unwrap_or(0), &|p| {
            realms[p].regions().iter().map(|r| r.2).sum()
        }];
    let mut left: Vec<usize> = (0..realms.len()).collect();
    for m in measures {
        let best = left.iter().map(|&p| m(p)).max().unwrap_or(0);
        let before = left.len();
        left.retain(|&p| m(p) == best);
        if left.len() == 1 {
            return (left, before < realms.len());
        }
    }
    (left, true)
}

// ---------------------------------------------------------------------------------------
// Games.
// ---------------------------------------------------------------------------------------

fn play(pack: &Arc<Pack>, scenario: &str, players: usize, seed: u64, bot: &str) -> String {
    let mut cfg = GameConfig::new(seed, players);
    cfg.scenario = Some(scenario.to_string());
    cfg.invariants = true;
    let agents = (0..players).map(|s| bots::bot(bot, seed, s).expect("bot")).collect();
    let game = Game::new(pack.clone(), cfg, agents).expect("game starts");
    let (game, o) = game.run();
    let text = transcript_text(&game, &o);
    assert_eq!(o.status, Status::Finished, "{scenario} {players}p seed {seed} {bot}:\n{text}");
    text
}

fn check_or_fail(text: &str, pack: &Pack, what: &str) -> Seen {
    match check(text, pack) {
        Ok(seen) => seen,
        Err(e) => panic!("{what}: {e}\n{text}"),
    }
}

#[test]
fn bot_games_follow_the_rules_to_the_last_point() {
    let pack = pack();
    let mut all = Seen::default();
    let mut games = 0;
    for (scenario, bot, seeds) in
        [("standard", "random", 0..36), ("standard", "greedy", 0..9), ("plain-row", "random", 0..6)]
    {
        for seed in seeds {
            let players = 2 + (seed as usize % 3);
            let seen =
                check_or_fail(&play(&pack, scenario, players, seed, bot), &pack, &format!("{scenario} {bot} {seed}"));
            all.laid += seen.laid;
            all.discards += seen.discards;
            all.seeds_taken += seen.seeds_taken;
            all.whole += seen.whole;
            all.heartland += seen.heartland;
            all.tie_breaks += seen.tie_breaks;
            games += 1;
        }
    }
    // The games went through every part of the rules.
    assert!(all.laid > 20 * games && all.discards > 10 && all.seeds_taken > 100, "{all:?}");
    assert!(all.whole > 0 && all.heartland > 0, "{all:?}");
}

#[test]
fn golden_games_follow_the_rules() {
    let pack = pack();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden").join(PACK);
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("the golden games").flatten() {
        if e.path().extension().is_some_and(|x| x == "transcript") {
            let text = std::fs::read_to_string(e.path()).unwrap();
            check_or_fail(&text, &pack, &e.path().display().to_string());
            n += 1;
        }
    }
    assert!(n >= 3, "{n} golden games");
}

/// The checker fails a transcript whose score is one off, whose tile lies where it may
/// not, or whose seeds are miscounted.
#[test]
fn the_checker_catches_a_wrong_score_a_wrong_tile_and_a_wrong_seed() {
    let pack = pack();
    let text = play(&pack, "standard", 3, 5, "greedy");
    check_or_fail(&text, &pack, "the game as played");
    let first_score = text.lines().find(|l| l.starts_with("score ")).unwrap().to_string();
    let edit = |from: &str, to: &str| text.replacen(from, to, 1);

    // A region's points one more, and the total with them.
    let (head, rest) = first_score.split_once(" = ").unwrap();
    let (total, parts) = rest.split_once(" (regions ").unwrap();
    let (regions, tail) = parts.split_once(',').unwrap();
    let bumped = format!(
        "{head} = {} (regions {},{tail}",
        total.parse::<i64>().unwrap() + 1,
        regions.parse::<i64>().unwrap() + 1
    );
    let e = check(&edit(&first_score, &bumped), &pack).expect_err("a wrong score is caught");
    assert!(e.contains("regions should be"), "{e}");

    // A tile turned where it touches nothing of its own: its first square far from the keep.
    let lay = text.lines().find(|l| l.starts_with("lay ")).unwrap().to_string();
    let (front, _) = lay.split_once(" at ").unwrap();
    let e = check(&edit(&lay, &format!("{front} at a1, facing north")), &pack).expect_err("a bad tile is caught");
    assert!(e.contains("span") || e.contains("touches"), "{e}");

    // A seed more on a tile taken.
    let score_seeds = first_score.split(", seeds ").nth(1).unwrap().split(',').next().unwrap();
    let more = first_score.replacen(
        &format!("seeds {score_seeds},"),
        &format!("seeds {},", score_seeds.parse::<i64>().unwrap() + 1),
        1,
    );
    let e = check(&edit(&first_score, &more), &pack).expect_err("a wrong seed count is caught");
    assert!(e.contains("seeds should be"), "{e}");

    // A seed too many marked on a tile of the row.
    let mark = text.lines().find(|l| l.starts_with("mark ") && l.ends_with("seeds 0 -> 1")).unwrap().to_string();
    let e = check(&edit(&mark, &mark.replace("0 -> 1", "0 -> 2")), &pack).expect_err("a wrong mark is caught");
    assert!(e.contains("shows 2 seeds, not 1"), "{e}");
}

// ---------------------------------------------------------------------------------------
// Positions: the tie-breaks.
// ---------------------------------------------------------------------------------------

const PRELUDE: &str = r#"
fn expect(ok, msg) { if !ok { throw msg; } }
// Lay tile `id` in seat p's realm with its first square on `square`, facing `facing`.
fn lay_at(p, id, square, facing) {
    let c = create_card(id, pzone(p, "realm"));
    let b = board(p, "realm");
    for pl in placements(b, c) {
        if space_name(pl.at) == square && pl.facing == facing {
            place_tile(b, c, pl);
            return;
        }
    }
    throw `${id} cannot lie at ${square}, facing ${facing}`;
}
"#;

fn ended(snippet: &str) -> (Vec<usize>, String) {
    let mut t = Table::new(pack(), PRELUDE, 2, 1, Some("standard"), true);
    t.run(snippet);
    t.over().expect("the game ended")
}

#[test]
fn a_tie_goes_to_the_largest_region() {
    // Both realms score 0; P1's field region has 4 squares, P2's forest 2.
    let (winners, reason) = ended(
        r#"
        lay_at(0, "tile-01", "e4", "north");
        lay_at(0, "tile-02", "e3", "north");
        lay_at(1, "tile-07", "e4", "north");
        final_scoring();
        "#,
    );
    assert_eq!((winners, reason.as_str()), (vec![0], "a tie broken by the largest region"));
}

#[test]
fn then_to_the_most_crowns_and_else_is_shared() {
    // P1: a crowned field of 1 square (1 point); P2: 1 seed, no crown. Largest regions 1 each.
    let (winners, reason) = ended(
        r#"
        lay_at(0, "tile-20", "e4", "north");
        lay_at(1, "tile-04", "e4", "north");
        set_counter(1, "seeds", 1);
        final_scoring();
        "#,
    );
    assert_eq!((winners, reason.as_str()), (vec![0], "a tie broken by the most crowns"));
    let (winners, reason) = ended(
        r#"
        lay_at(0, "tile-04", "e4", "north");
        lay_at(1, "tile-05", "e6", "north");
        final_scoring();
        "#,
    );
    assert_eq!((winners, reason.as_str()), (vec![0, 1], "a shared victory"));
}
