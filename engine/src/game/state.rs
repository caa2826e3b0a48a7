//! The game state: general table pieces (players with counters, zones of card instances,
//! a board of spaces holding pieces, supplies), a plain Rust value with ordered maps only.

use std::collections::BTreeMap;

use rhai::Dynamic;

use super::rng::GameRng;
use crate::content::model::StagePosition;

/// Sentinel for "no zone" (a card attached under another, or removed from the game).
pub const NO_ZONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct PlayerState {
    pub name: String,
    /// Index into the pack's definitions of the player's noble or leader.
    pub character: Option<u32>,
    pub counters: Counters,
    /// Counters only the player may see (behind a screen); shown to others as hidden.
    pub hidden: Vec<String>,
    pub out: bool,
    pub score: i64,
}

/// A seat's counters by name, in name order. Rules read them all the time (`counter(p,
/// "plays")`), so they are a short list compared by length first, which finds a name in
/// a few instructions where an ordered tree compares it byte by byte against most keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters(Vec<(String, i64)>);

impl Counters {
    pub fn get(&self, k: &str) -> Option<&i64> {
        self.position(k).map(|i| &self.0[i].1)
    }

    /// Where counter `k` is. (Length and first letter first: most names are told apart
    /// without comparing the rest.)
    fn position(&self, k: &str) -> Option<usize> {
        let first = k.as_bytes().first();
        self.0.iter().position(|(n, _)| n.len() == k.len() && n.as_bytes().first() == first && n == k)
    }

    /// Set counter `k` (kept in name order; the name is copied only when it is new).
    pub fn insert(&mut self, k: &str, v: i64) {
        if let Some(i) = self.position(k) {
            self.0[i].1 = v;
            return;
        }
        let i = self.0.partition_point(|(n, _)| n.as_str() < k);
        self.0.insert(i, (k.to_string(), v));
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    /// Names and values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &i64)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl From<&BTreeMap<String, i64>> for Counters {
    fn from(m: &BTreeMap<String, i64>) -> Self {
        Counters(m.iter().map(|(k, v)| (k.clone(), *v)).collect())
    }
}

impl From<&Counters> for BTreeMap<String, i64> {
    fn from(c: &Counters) -> Self {
        c.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Everyone sees the cards.
    Public,
    /// Only the owner sees them (a hand).
    Owner,
    /// Nobody sees them (a deck), only how many.
    Hidden,
}

#[derive(Debug, Clone)]
pub struct Zone {
    pub name: String,
    pub owner: Option<u8>,
    /// Bottom first, top last.
    pub cards: Vec<u32>,
    /// Cards here take part in `fold` (their hooks modify the rules).
    pub active: bool,
    pub visibility: Visibility,
}

impl Zone {
    /// `name` or `name@Player`, as transcripts name a zone.
    pub fn label(&self, players: &[PlayerState]) -> String {
        match self.owner {
            Some(p) => format!("{}@{}", self.name, players.get(p as usize).map_or("?", |x| x.name.as_str())),
            None => self.name.clone(),
        }
    }

    /// The zone in words for seat `viewer`: "your hand", "Bea's kingdom", "the round 1
    /// deck".
    pub fn words(&self, players: &[PlayerState], viewer: usize) -> String {
        let name = self.name.replace(['-', '_'], " ");
        match self.owner {
            Some(p) if p as usize == viewer => format!("your {name}"),
            Some(p) => format!("{}'s {name}", players.get(p as usize).map_or("?", |x| x.name.as_str())),
            None => format!("the {name}"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Card {
    /// Index of the definition in the pack.
    pub def: u32,
    pub zone: u32,
    /// The stage currently up (multi-stage cards); front-top for everything else.
    pub stage: StagePosition,
    pub face_up: bool,
    pub marks: BTreeMap<String, i64>,
    pub stickers: Vec<String>,
    /// Cards tucked under this one, first attached first.
    pub attached: Vec<u32>,
    pub host: Option<u32>,
    /// Who controls it, if anyone (set when it enters a player's zone).
    pub owner: Option<u8>,
}

#[derive(Debug, Clone)]
pub struct Space {
    pub id: String,
    pub name: String,
    pub adjacent: Vec<u32>,
    pub xy: Option<(i64, i64)>,
    pub attrs: BTreeMap<String, String>,
    pub values: BTreeMap<String, i64>,
    /// The board of board.toml's `[[board]]` it is a square of (`State::boards`); `None`
    /// on the map (the `[grid]` and named spaces).
    pub board: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct Piece {
    /// The supply it came from (its kind).
    pub kind: String,
    pub owner: i64,
    /// `None` once returned to its supply.
    pub space: Option<u32>,
    pub attrs: BTreeMap<String, i64>,
}

/// The whole state of one game.
#[derive(Debug, Clone)]
pub struct State {
    pub players: Vec<PlayerState>,
    pub zones: Vec<Zone>,
    /// Zone ids by owner (-1 for the table) and name: found without making a key.
    pub zone_ids: BTreeMap<i64, BTreeMap<String, u32>>,
    pub cards: Vec<Card>,
    pub globals: BTreeMap<String, Dynamic>,
    pub spaces: Vec<Space>,
    pub space_ids: BTreeMap<String, u32>,
    pub grid: Option<(i64, i64)>,
    /// The boards of board.toml's `[[board]]` kinds, shared or one for each seat.
    pub boards: Vec<BoardInst>,
    pub pieces: Vec<Piece>,
    pub supplies: BTreeMap<String, i64>,
    /// What board.toml's links carry (`links = [{ to, attrs }]`), by the two spaces they
    /// join, the lower number first.
    pub links: BTreeMap<(u32, u32), BTreeMap<String, String>>,
    pub rng: GameRng,
    /// Calls of the rules' `turn()` so far.
    pub turn: u64,
    /// Choices made so far.
    pub choices: u64,
    /// Per player, a bitset over definition indices of the cards that have entered the
    /// player's `hand` zone ("drawn", for `crown sim`'s card statistics).
    pub hand_seen: Vec<Vec<u64>>,
    /// Whose turn it is, the round, the phase and who has passed.
    pub turns: Turns,
    /// Counts every change to the board's pieces and supplies (`board_version()`), so a
    /// script can keep a view of the board it derived until the board changes.
    pub board_version: u64,
    /// Who sees each zone, as pack.toml's `[zones]` declares it (name or `*` pattern);
    /// read when a zone is first named.
    pub zone_seen: std::sync::Arc<Vec<(String, Visibility)>>,
    /// The pieces by space and by owner (see [`PieceIndex`]).
    pub piece_index: PieceIndex,
}

/// The board's pieces by space and by owner, made from `State::pieces` when first asked
/// after a change, so that the board's questions (`pieces_at`, `pieces_of`) read a short
/// list instead of every piece. Every change to a piece's place or owner changes
/// `board_version` or the number of pieces, which say when the index is out of date.
#[derive(Debug, Clone, Default)]
pub struct PieceIndex {
    made_at: Option<(u64, usize)>,
    /// The pieces on each space, in piece order.
    by_space: Vec<Vec<u32>>,
    /// The pieces on the board of each owner (-1: neutral), in piece order.
    by_owner: BTreeMap<i64, Vec<u32>>,
}

/// Whether zone `name` matches a `[zones]` key (`*` stands for any text).
pub fn zone_pattern_matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            name.strip_prefix(head).is_some_and(|tail| {
                // The `*` takes 0, 1, 2... characters; the rest of the pattern must match what follows.
                tail.char_indices().map(|(i, _)| i).chain([tail.len()]).any(|i| zone_pattern_matches(rest, &tail[i..]))
            })
        }
    }
}

/// Who sees a zone named `name` that no `[zones]` entry declares.
pub fn default_visibility(name: &str) -> Option<Visibility> {
    match name {
        "hand" | "screen" => Some(Visibility::Owner),
        "deck" | "box" | "bag" => Some(Visibility::Hidden),
        n if n.ends_with("deck") => Some(Visibility::Hidden),
        _ => None,
    }
}

/// The turn plumbing every turn-based pack needs, held by the engine instead of script
/// globals (`current()`, `next_seat(p)`, `pass(p)`, `all_passed()`, `round()`,
/// `phase()`...). It carries no rule: which seat plays next, when a round ends and what
/// a pass means are still the rules script's decisions; this is only where they are kept,
/// so every pack keeps them the same way and the transcript names them the same way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turns {
    /// The seat whose turn it is, once the rules have said.
    pub current: Option<usize>,
    /// The seat that opens a round (`first_seat()`).
    pub first: usize,
    /// The round number (`round()`): 0 until the rules start one.
    pub round: i64,
    /// The phase (`phase()`), once the rules have set one.
    pub phase: Option<String>,
    /// Seats that have passed (bit per seat; seats are at most 64).
    pub passed: u64,
    /// Seats that have withdrawn: passed until `reset_passes()`, and skipped by `next_seat`.
    pub withdrawn: u64,
    /// The seat that passed or withdrew last since the passes were reset.
    pub last_passer: Option<usize>,
    /// Whose turn the one being played is: the seat that had the turn when it began (or
    /// was first given one in it). A person's log names the turn after it, also once the
    /// rules have given the turn on (a round that ends inside the turn).
    pub owner: Option<usize>,
    /// The turn in which the round was last set (0: in setting up).
    pub round_turn: u64,
}

impl Turns {
    pub fn has_passed(&self, p: usize) -> bool {
        (self.passed | self.withdrawn) & (1 << p) != 0
    }

    pub fn has_withdrawn(&self, p: usize) -> bool {
        self.withdrawn & (1 << p) != 0
    }
}

impl State {
    /// The seat after `p`, in seat order and wrapping, that is neither out of the game nor
    /// withdrawn; `p` itself when there is none.
    pub fn next_seat(&self, p: usize) -> usize {
        let n = self.players.len();
        (1..n).map(|k| (p + k) % n).find(|&q| !self.players[q].out && !self.turns.has_withdrawn(q)).unwrap_or(p)
    }

    /// Whether every seat still in the game has passed or withdrawn.
    pub fn all_passed(&self) -> bool {
        self.players.iter().enumerate().all(|(i, pl)| pl.out || self.turns.has_passed(i))
    }

    pub fn new(seed: u64) -> Self {
        State {
            players: Vec::new(),
            zones: Vec::new(),
            zone_ids: BTreeMap::new(),
            cards: Vec::new(),
            globals: BTreeMap::new(),
            spaces: Vec::new(),
            space_ids: BTreeMap::new(),
            grid: None,
            boards: Vec::new(),
            pieces: Vec::new(),
            supplies: BTreeMap::new(),
            links: BTreeMap::new(),
            rng: GameRng::new(seed),
            turn: 0,
            choices: 0,
            hand_seen: Vec::new(),
            turns: Turns::default(),
            board_version: 0,
            zone_seen: std::sync::Arc::new(Vec::new()),
            piece_index: PieceIndex::default(),
        }
    }

    /// Bring the index of pieces up to date (made again if the board changed since it was
    /// made): call before [`State::pieces_on`] and [`State::pieces_owned`].
    pub fn index_pieces(&mut self) {
        let key = (self.board_version, self.pieces.len());
        if self.piece_index.made_at == Some(key) {
            return;
        }
        let mut by_space = vec![Vec::new(); self.spaces.len()];
        let mut by_owner: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
        for (i, p) in self.pieces.iter().enumerate() {
            if let Some(s) = p.space {
                if let Some(list) = by_space.get_mut(s as usize) {
                    list.push(i as u32);
                }
                by_owner.entry(p.owner).or_default().push(i as u32);
            }
        }
        self.piece_index = PieceIndex { made_at: Some(key), by_space, by_owner };
    }

    fn indexed(&self) -> &PieceIndex {
        debug_assert_eq!(self.piece_index.made_at, Some((self.board_version, self.pieces.len())), "index_pieces first");
        &self.piece_index
    }

    /// The pieces on space `s`, in piece order (after [`State::index_pieces`]).
    pub fn pieces_on(&self, s: u32) -> &[u32] {
        self.indexed().by_space.get(s as usize).map_or(&[], Vec::as_slice)
    }

    /// The pieces of `owner` (-1: neutral) on the board, in piece order (after
    /// [`State::index_pieces`]).
    pub fn pieces_owned(&self, owner: i64) -> &[u32] {
        self.indexed().by_owner.get(&owner).map_or(&[], Vec::as_slice)
    }

    /// Definition indices (sorted, each once) that entered each player's `hand`.
    pub fn drawn(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.players.len()];
        for (p, bits) in self.hand_seen.iter().enumerate().take(out.len()) {
            for (w, &word) in bits.iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    out[p].push(w as u32 * 64 + x.trailing_zeros());
                    x &= x - 1;
                }
            }
        }
        out
    }

    /// The zone `name` of `owner` (`None`: the table's), if it has been made.
    pub fn find_zone(&self, owner: Option<u8>, name: &str) -> Option<u32> {
        self.zone_ids.get(&owner.map_or(-1, i64::from)).and_then(|by_name| by_name.get(name)).copied()
    }

    /// The zone id for `(owner, name)`, created on first use, seen as pack.toml's
    /// `[zones]` declares, else as [`default_visibility`] says, else by everyone
    /// (scripts may change it with `set_visibility`).
    pub fn zone_id(&mut self, owner: Option<u8>, name: &str) -> u32 {
        let owner_key = owner.map_or(-1, i64::from);
        if let Some(z) = self.find_zone(owner, name) {
            return z;
        }
        let id = self.zones.len() as u32;
        // A name declared as it is wins over a pattern that also matches it.
        let declared = (self.zone_seen.iter().find(|(p, _)| p == name))
            .or_else(|| self.zone_seen.iter().find(|(p, _)| zone_pattern_matches(p, name)))
            .map(|(_, v)| *v);
        let visibility = declared.or_else(|| default_visibility(name)).unwrap_or(Visibility::Public);
        self.zones.push(Zone { name: name.to_string(), owner, cards: Vec::new(), active: false, visibility });
        self.zone_ids.entry(owner_key).or_default().insert(name.to_string(), id);
        id
    }

    pub fn zone_label(&self, z: u32) -> String {
        self.zones.get(z as usize).map_or_else(|| "nowhere".to_string(), |zone| zone.label(&self.players))
    }

    /// Take a card out of wherever it is (zone or host), leaving it nowhere.
    pub fn detach_from_place(&mut self, c: u32) {
        let card = &self.cards[c as usize];
        if let Some(h) = card.host {
            let host = &mut self.cards[h as usize];
            host.attached.retain(|&x| x != c);
            self.cards[c as usize].host = None;
        } else if card.zone != NO_ZONE {
            let z = card.zone as usize;
            if let Some(pos) = self.zones[z].cards.iter().rposition(|&x| x == c) {
                self.zones[z].cards.remove(pos);
            }
        }
        self.cards[c as usize].zone = NO_ZONE;
    }

    /// Put a card into a zone at the top (or the bottom).
    pub fn put_in_zone(&mut self, c: u32, z: u32, bottom: bool) {
        self.detach_from_place(c);
        let zone = &mut self.zones[z as usize];
        if bottom {
            zone.cards.insert(0, c);
        } else {
            zone.cards.push(c);
        }
        let owner = zone.owner;
        if let (Some(p), "hand") = (owner, zone.name.as_str()) {
            let (p, d) = (p as usize, self.cards[c as usize].def as usize);
            if self.hand_seen.len() <= p {
                self.hand_seen.resize(p + 1, Vec::new());
            }
            let bits = &mut self.hand_seen[p];
            if bits.len() <= d / 64 {
                bits.resize(d / 64 + 1, 0);
            }
            bits[d / 64] |= 1 << (d % 64);
        }
        let card = &mut self.cards[c as usize];
        card.zone = z;
        if owner.is_some() {
            card.owner = owner;
        }
        // Attached cards travel with their host: keep their zone in step.
        let mut stack = card.attached.clone();
        while let Some(a) = stack.pop() {
            self.cards[a as usize].owner = owner.or(self.cards[a as usize].owner);
            stack.extend(self.cards[a as usize].attached.iter().copied());
        }
    }

    /// The zone a card is in, looking through hosts for attached cards.
    pub fn effective_zone(&self, mut c: u32) -> u32 {
        for _ in 0..64 {
            let card = &self.cards[c as usize];
            match card.host {
                Some(h) => c = h,
                None => return card.zone,
            }
        }
        NO_ZONE
    }

    pub fn space_xy(&self, s: u32) -> Option<(i64, i64)> {
        self.spaces.get(s as usize).and_then(|sp| sp.xy)
    }

    pub fn space_at(&self, x: i64, y: i64) -> Option<u32> {
        let (w, h) = self.grid?;
        if x < 0 || y < 0 || x >= w || y >= h {
            return None;
        }
        // The grid is laid out row by row from the first space: look there first, then by
        // the id `x,y`.
        let at = (y * w + x) as usize;
        let here = self.spaces.get(at).is_some_and(|sp| {
            sp.board.is_none()
                && sp.xy == Some((x, y))
                && sp.id.split_once(',').is_some_and(|(a, b)| a.parse() == Ok(x) && b.parse() == Ok(y))
        });
        if here {
            return Some(at as u32);
        }
        self.space_ids.get(&format!("{x},{y}")).copied()
    }

    pub fn occupied(&self, s: u32) -> bool {
        self.pieces.iter().any(|p| p.space == Some(s) && p.attrs.get("blocks").copied().unwrap_or(1) != 0)
    }

    /// Grid neighbours of a space: 8 (with diagonals) or 4.
    pub fn grid_neighbors(&self, s: u32, diagonal: bool) -> Vec<u32> {
        let Some((x, y)) = self.space_xy(s) else {
            return self.spaces.get(s as usize).map(|sp| sp.adjacent.clone()).unwrap_or_default();
        };
        let board = self.spaces[s as usize].board;
        let at = |x: i64, y: i64| match board {
            Some(b) => self.board_square(b as usize, x, y),
            None => self.space_at(x, y),
        };
        let mut out = Vec::with_capacity(8);
        for dy in -1..=1 {
            for dx in -1..=1 {
                if (dx == 0 && dy == 0) || (!diagonal && dx != 0 && dy != 0) {
                    continue;
                }
                if let Some(n) = at(x + dx, y + dy) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// Spaces reachable from `from` in at most `budget` steps through unoccupied spaces
    /// (the destination itself may be occupied when `into_occupied`), with their distance.
    /// Breadth-first in a fixed neighbour order, so the result is deterministic.
    pub fn reachable(&self, from: u32, budget: i64, diagonal: bool, into_occupied: bool) -> BTreeMap<u32, i64> {
        self.reachable_within(from, budget, diagonal, into_occupied, |_| true)
    }

    /// As [`State::reachable`], entering only the spaces `within` allows (a field inside
    /// a border, say): paths never leave them.
    pub fn reachable_within(
        &self,
        from: u32,
        budget: i64,
        diagonal: bool,
        into_occupied: bool,
        within: impl Fn(u32) -> bool,
    ) -> BTreeMap<u32, i64> {
        // The spaces holding a blocking piece, found once (`occupied` scans every piece).
        let blocked: std::collections::BTreeSet<u32> = self
            .pieces
            .iter()
            .filter(|p| p.attrs.get("blocks").copied().unwrap_or(1) != 0)
            .filter_map(|p| p.space)
            .collect();
        self.search(from, budget, diagonal, into_occupied, |s| blocked.contains(&s), within)
    }

    /// The breadth-first search behind [`State::reachable`], with `blocked` telling which
    /// spaces hold a blocking piece.
    fn search(
        &self,
        from: u32,
        budget: i64,
        diagonal: bool,
        into_occupied: bool,
        blocked: impl Fn(u32) -> bool,
        allowed: impl Fn(u32) -> bool,
    ) -> BTreeMap<u32, i64> {
        let mut dist = BTreeMap::new();
        let mut frontier = vec![from];
        dist.insert(from, 0);
        for step in 1..=budget.max(0) {
            let mut next = Vec::new();
            for &s in &frontier {
                for n in self.grid_neighbors(s, diagonal) {
                    if dist.contains_key(&n) || !allowed(n) {
                        continue;
                    }
                    if blocked(n) {
                        if into_occupied {
                            dist.insert(n, step);
                        }
                        continue;
                    }
                    dist.insert(n, step);
                    next.push(n);
                }
            }
            frontier = next;
        }
        dist.remove(&from);
        dist
    }
}

/// One board of a `[[board]]` kind: its squares are the spaces `first..first + w * h`,
/// row by row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardInst {
    pub kind: String,
    /// What people call it ("Kingdom").
    pub name: String,
    /// The seat it belongs to; `None` for a shared board.
    pub owner: Option<usize>,
    pub w: i64,
    pub h: i64,
    pub first: u32,
    /// For a board that grows: the width and height what is laid must fit in.
    pub fit: Option<(i64, i64)>,
    /// For a board that grows: how many squares past what is laid a tile can reach (the
    /// longest tile of the pack), so drawings show that much room; `None`: all of it.
    pub reach: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_keep_name_order_and_one_entry_a_name() {
        let mut c = Counters::default();
        for (k, v) in [("plays", 3), ("acted", 1), ("no_play", 0), ("plays", 2), ("", 7), ("mercs", 4), ("acted", 5)] {
            c.insert(k, v);
        }
        let all: Vec<(&str, i64)> = c.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(all, [("", 7), ("acted", 5), ("mercs", 4), ("no_play", 0), ("plays", 2)]);
        assert_eq!(c.get("plays"), Some(&2));
        assert_eq!(c.get(""), Some(&7));
        assert_eq!(c.get("play"), None);
        assert_eq!(c.get("plays "), None);
    }

    #[test]
    fn declared_zones_are_seen_as_declared_and_others_by_the_defaults() {
        assert!(zone_pattern_matches("round-*-deck", "round-2-deck"));
        assert!(zone_pattern_matches("*", "aside"));
        assert!(zone_pattern_matches("a*b*c", "a-b-x-c"));
        assert!(!zone_pattern_matches("round-*-deck", "round-2-discard"));
        assert!(!zone_pattern_matches("aside", "asides"));
        let mut s = State::new(1);
        s.zone_seen = std::sync::Arc::new(vec![
            ("*-pile".to_string(), Visibility::Hidden),
            ("aside".to_string(), Visibility::Hidden),
            ("hand".to_string(), Visibility::Public),
            ("open-pile".to_string(), Visibility::Public),
        ]);
        let seen = |s: &mut State, n: &str| {
            let z = s.zone_id(None, n);
            s.zones[z as usize].visibility
        };
        assert_eq!(seen(&mut s, "aside"), Visibility::Hidden);
        assert_eq!(seen(&mut s, "hand"), Visibility::Public, "a declaration wins over the default");
        assert_eq!(seen(&mut s, "open-pile"), Visibility::Public, "the name wins over a pattern");
        assert_eq!(seen(&mut s, "draw-pile"), Visibility::Hidden);
        assert_eq!(seen(&mut s, "deck"), Visibility::Hidden);
        assert_eq!(seen(&mut s, "discard"), Visibility::Public);
    }

    fn grid(w: i64, h: i64) -> State {
        let mut s = State::new(1);
        s.grid = Some((w, h));
        for y in 0..h {
            for x in 0..w {
                let id = format!("{x},{y}");
                s.space_ids.insert(id.clone(), s.spaces.len() as u32);
                s.spaces.push(Space {
                    id: id.clone(),
                    name: id,
                    adjacent: Vec::new(),
                    xy: Some((x, y)),
                    attrs: BTreeMap::new(),
                    values: BTreeMap::new(),
                    board: None,
                });
            }
        }
        s
    }

    fn piece(s: &mut State, x: i64, y: i64, blocks: Option<i64>) {
        let mut attrs = BTreeMap::new();
        if let Some(b) = blocks {
            attrs.insert("blocks".to_string(), b);
        }
        let space = s.space_at(x, y);
        s.pieces.push(Piece { kind: "unit".into(), owner: 0, space, attrs });
    }

    /// The search asking `occupied` space by space (the definition).
    fn reference(s: &State, from: u32, budget: i64, diagonal: bool, into_occupied: bool) -> BTreeMap<u32, i64> {
        s.search(from, budget, diagonal, into_occupied, |x| s.occupied(x), |_| true)
    }

    #[test]
    fn reachable_goes_around_blocking_pieces_only() {
        let mut s = grid(6, 5);
        piece(&mut s, 2, 0, None);
        piece(&mut s, 2, 1, Some(1));
        piece(&mut s, 2, 2, Some(0)); // does not block
        piece(&mut s, 2, 3, None);
        piece(&mut s, 4, 4, None);
        let from = s.space_at(0, 1).unwrap();
        for diagonal in [false, true] {
            for into in [false, true] {
                for budget in [0, 1, 3, 6, 12] {
                    assert_eq!(s.reachable(from, budget, diagonal, into), reference(&s, from, budget, diagonal, into));
                }
            }
        }
        // Through the non-blocking piece at (2,2) only, orthogonally.
        let r = s.reachable(from, 4, false, false);
        assert_eq!(r.get(&s.space_at(3, 2).unwrap()), Some(&4));
        assert!(!r.contains_key(&s.space_at(2, 1).unwrap()));
        // A piece back in its supply blocks nothing.
        s.pieces[1].space = None;
        assert_eq!(s.reachable(from, 2, false, false).get(&s.space_at(2, 1).unwrap()), Some(&2));
    }
}
