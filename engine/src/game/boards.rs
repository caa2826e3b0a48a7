//! Boards besides the map (board.toml's `[[board]]`): one shared, or one for each seat,
//! each a grid of squares that are ordinary spaces of the table (so every board query,
//! `regions_by`, `neighbors`, pieces, works on them), and tiles of several squares laid on
//! them: every legal way to lay one (position and facing), laying it, and the notation
//! transcripts name it by ("d13 at c4, facing north").

use std::collections::{BTreeMap, BTreeSet};

use super::state::{BoardInst, Space, State};
use crate::content::model::{BoardKind, TileCell};

/// The four facings of a tile, turning clockwise from the tile as printed (`north`).
pub const FACINGS: [&str; 4] = ["north", "east", "south", "west"];

/// One way to lay a tile: its first cell on square `at`, turned to `facing` (an index of
/// [`FACINGS`]); `squares[i]` is the square cell `i` covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub at: u32,
    pub facing: usize,
    pub squares: Vec<u32>,
}

/// A square's name on its board: its column as a letter from `a`, its row as a number
/// from 1 (`c4` is x = 2, y = 3).
pub fn square_name(x: i64, y: i64) -> String {
    let col =
        u8::try_from(x).ok().filter(|c| *c < 26).map_or_else(|| format!("[{x}]"), |c| ((b'a' + c) as char).to_string());
    format!("{col}{}", y + 1)
}

/// Cell offsets from the first cell, turned clockwise `facing` quarter turns (y down).
fn turned(cells: &[TileCell], facing: usize) -> Vec<(i64, i64)> {
    let (x0, y0) = cells.first().map_or((0, 0), |c| (c.x, c.y));
    cells
        .iter()
        .map(|c| {
            let (mut dx, mut dy) = (c.x - x0, c.y - y0);
            for _ in 0..facing {
                (dx, dy) = (-dy, dx);
            }
            (dx, dy)
        })
        .collect()
}

impl State {
    /// Add a board of `kind` (for seat `owner`, or shared): its squares become spaces
    /// named `kind:x,y` (`kind@2:x,y` for the second seat's), the start square filled.
    pub fn add_board(&mut self, kind: &BoardKind, owner: Option<usize>) -> usize {
        let (w, h) = if kind.grows { (2 * kind.width - 1, 2 * kind.height - 1) } else { (kind.width, kind.height) };
        let b = self.boards.len();
        let first = self.spaces.len() as u32;
        let prefix = match owner {
            Some(p) => format!("{}@{}", kind.id, p + 1),
            None => kind.id.clone(),
        };
        for y in 0..h {
            for x in 0..w {
                let id = format!("{prefix}:{x},{y}");
                self.space_ids.insert(id.clone(), self.spaces.len() as u32);
                self.spaces.push(Space {
                    id,
                    name: square_name(x, y),
                    adjacent: Vec::new(),
                    xy: Some((x, y)),
                    attrs: BTreeMap::new(),
                    values: BTreeMap::new(),
                    board: Some(b as u32),
                });
            }
        }
        let fit = kind.grows.then_some((kind.width, kind.height));
        self.boards.push(BoardInst {
            kind: kind.id.clone(),
            name: kind.name.clone(),
            owner,
            w,
            h,
            first,
            fit,
            reach: None,
        });
        if let Some(st) = &kind.start {
            let (x, y) = (st.x.unwrap_or(w / 2), st.y.unwrap_or(h / 2));
            if let Some(s) = self.board_square(b, x, y) {
                self.spaces[s as usize].attrs.insert("terrain".into(), st.terrain.clone());
            }
        }
        b
    }

    /// The square of board `b` at column `x`, row `y`.
    pub fn board_square(&self, b: usize, x: i64, y: i64) -> Option<u32> {
        let bd = self.boards.get(b)?;
        (x >= 0 && y >= 0 && x < bd.w && y < bd.h).then(|| bd.first + (y * bd.w + x) as u32)
    }

    /// The squares of board `b` that hold something (a `terrain`).
    pub fn filled(&self, b: usize) -> Vec<u32> {
        let Some(bd) = self.boards.get(b) else { return Vec::new() };
        (bd.first..bd.first + (bd.w * bd.h) as u32)
            .filter(|&s| self.spaces[s as usize].attrs.contains_key("terrain"))
            .collect()
    }

    /// Every way to lay a tile of `cells` on board `b`: each square for its first cell,
    /// each facing, every cell on an empty square of the board and, on a board that grows,
    /// all that is laid within its size. Ways that would leave the board the same (a tile
    /// whose two halves match, turned half round) are given once, the first found.
    pub fn placements(&self, b: usize, cells: &[TileCell]) -> Vec<Placement> {
        let Some(bd) = self.boards.get(b) else { return Vec::new() };
        let squares_of_board = bd.first..bd.first + (bd.w * bd.h) as u32;
        let full: Vec<bool> =
            squares_of_board.clone().map(|s| self.spaces[s as usize].attrs.contains_key("terrain")).collect();
        // What is laid already, as a box the tile's squares widen (a growing board).
        let laid = self.bounds(squares_of_board.clone().filter(|&s| full[(s - bd.first) as usize]));
        // Cells alike in terrain and values count as the same: each cell's first like one.
        let like: Vec<usize> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| cells.iter().position(|d| c.terrain == d.terrain && c.values == d.values).unwrap_or(i))
            .collect();
        let facings: Vec<Vec<(i64, i64)>> = (0..4).map(|f| turned(cells, f)).collect();
        let mut seen: std::collections::HashSet<Vec<(u32, usize)>, ahash::RandomState> = Default::default();
        let mut out = Vec::new();
        let mut squares = Vec::with_capacity(cells.len());
        for at in squares_of_board {
            let Some((x, y)) = self.space_xy(at) else { continue };
            for (facing, offsets) in facings.iter().enumerate() {
                squares.clear();
                let mut open = true;
                for &(dx, dy) in offsets {
                    match self.board_square(b, x + dx, y + dy) {
                        Some(s) if !full[(s - bd.first) as usize] => squares.push(s),
                        _ => {
                            open = false;
                            break;
                        }
                    }
                }
                if !open {
                    continue;
                }
                if let Some((fw, fh)) = bd.fit {
                    let mut bx = laid.map(|l| (l.x, l.y, l.x + l.w - 1, l.y + l.h - 1));
                    for &(dx, dy) in offsets {
                        let (sx, sy) = (x + dx, y + dy);
                        let (l, t, r, b) = bx.unwrap_or((sx, sy, sx, sy));
                        bx = Some((l.min(sx), t.min(sy), r.max(sx), b.max(sy)));
                    }
                    if bx.is_some_and(|(l, t, r, b)| r - l + 1 > fw || b - t + 1 > fh) {
                        continue;
                    }
                }
                // What the board would show: each square with the cell laid on it.
                let mut shown: Vec<(u32, usize)> = squares.iter().zip(&like).map(|(&s, &c)| (s, c)).collect();
                shown.sort_unstable();
                if seen.insert(shown) {
                    out.push(Placement { at, facing, squares: squares.clone() });
                }
            }
        }
        out
    }

    /// Lay a tile: each square takes its cell's terrain and values, and `tile` (what
    /// covers it, as the transcript names it).
    pub fn lay(&mut self, p: &Placement, cells: &[TileCell], tile: &str) {
        for (cell, &s) in cells.iter().zip(&p.squares) {
            let sp = &mut self.spaces[s as usize];
            sp.attrs.insert("terrain".into(), cell.terrain.clone());
            sp.attrs.insert("tile".into(), tile.to_string());
            sp.values.extend(cell.values.iter().map(|(k, v)| (k.clone(), *v)));
        }
        self.board_version += 1;
    }

    /// The columns and rows of board `b` worth drawing, `(x0, y0, x1, y1)` inclusive: the
    /// whole board, or for one that grows the rows and columns around what is laid, up to
    /// its size each way and no further than a tile reaches from it.
    pub fn board_window(&self, b: usize) -> (i64, i64, i64, i64) {
        let Some(bd) = self.boards.get(b) else { return (0, 0, -1, -1) };
        let (mut x0, mut y0, mut x1, mut y1) = (0, 0, bd.w - 1, bd.h - 1);
        if let (Some((fw, fh)), Some(bx)) = (bd.fit, self.bounds(self.filled(b))) {
            // Room to grow on every side, within the board as kept.
            let r = bd.reach.unwrap_or(i64::MAX / 4);
            x0 = (bx.x + bx.w - fw).max(bx.x - r).max(0);
            y0 = (bx.y + bx.h - fh).max(bx.y - r).max(0);
            x1 = (bx.x + fw - 1).min(bx.x + bx.w - 1 + r).min(bd.w - 1);
            y1 = (bx.y + fh - 1).min(bx.y + bx.h - 1 + r).min(bd.h - 1);
        }
        (x0, y0, x1, y1)
    }

    /// Board `b` drawn as text, one row a line: each square its terrain's letter (from
    /// [`terrain_letters`], `.` when empty) and the sum of its values when it has any (a
    /// domino's crowns: `f2`), columns lettered and rows numbered; a growing board shows
    /// only the rows and columns around what is laid, up to its size each way. Then a line
    /// saying what the letters and numbers stand for.
    pub fn board_text(&self, b: usize, letters: &BTreeMap<String, char>) -> String {
        let mut out = self.board_grid(b, letters);
        out.push_str(&self.board_legend(&[b], letters));
        out
    }

    /// The grid of [`State::board_text`], without its legend.
    pub fn board_grid(&self, b: usize, letters: &BTreeMap<String, char>) -> String {
        if b >= self.boards.len() {
            return String::new();
        }
        let (x0, y0, x1, y1) = self.board_window(b);
        let mut lines =
            vec![format!("   {}", (x0..=x1).map(|x| format!("{:<3}", &square_name(x, 0)[..1])).collect::<String>())];
        for y in y0..=y1 {
            let mut line = format!("{:>2} ", y + 1);
            for x in x0..=x1 {
                let sp = self.board_square(b, x, y).map(|s| &self.spaces[s as usize]);
                let t = sp.and_then(|sp| sp.attrs.get("terrain"));
                line.push(t.map_or('.', |t| letter_of(letters, t)));
                let n: i64 = sp.map_or(0, |sp| sp.values.values().sum());
                line.push(match n {
                    0 => ' ',
                    1..=9 => char::from(b'0' + n as u8),
                    _ => '+',
                });
                line.push(' ');
            }
            lines.push(line);
        }
        let mut out = String::new();
        for l in lines {
            out.push_str(l.trim_end());
            out.push('\n');
        }
        out
    }

    /// What the letters and numbers of boards `bs` stand for: "f field, k keep, l lake;
    /// a number: crowns" (the terrains and value names found on them).
    pub fn board_legend(&self, bs: &[usize], letters: &BTreeMap<String, char>) -> String {
        let mut terrains: BTreeMap<char, &str> = BTreeMap::new();
        let mut values: BTreeSet<&str> = BTreeSet::new();
        for &b in bs {
            let Some(bd) = self.boards.get(b) else { continue };
            for sp in &self.spaces[bd.first as usize..(bd.first + (bd.w * bd.h) as u32) as usize] {
                if let Some(t) = sp.attrs.get("terrain") {
                    terrains.insert(letter_of(letters, t), t);
                }
                values.extend(sp.values.iter().filter(|(_, n)| **n != 0).map(|(k, _)| k.as_str()));
            }
        }
        if terrains.is_empty() {
            return String::new();
        }
        let mut out: String = terrains.iter().map(|(c, t)| format!("{c} {t}")).collect::<Vec<_>>().join(", ");
        if !values.is_empty() {
            let names: Vec<&str> = values.into_iter().collect();
            out.push_str(&format!("; a number: {}", names.join(" and ")));
        }
        out.push('\n');
        out
    }
}

/// The letter terrain `t` is drawn with: its own from `letters`, or its first letter.
fn letter_of(letters: &BTreeMap<String, char>, t: &str) -> char {
    letters.get(t).copied().unwrap_or_else(|| t.chars().next().unwrap_or('?'))
}

/// How far the pack's longest tile reaches: the most squares its cells span either way
/// (2 for a domino); `None` when the pack has no tiles.
pub fn tile_reach(pack: &crate::content::Pack) -> Option<i64> {
    pack.defs
        .iter()
        .filter(|d| !d.def.cells.is_empty())
        .map(|d| {
            let span = |f: fn(&TileCell) -> i64| {
                let (lo, hi) =
                    d.def.cells.iter().map(f).fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
                hi - lo + 1
            };
            span(|c| c.x).max(span(|c| c.y))
        })
        .max()
}

/// A letter for each terrain of a pack's boards (its tiles' cells and its boards' start
/// squares), one each and never `.`: the terrain's first letter, or when another terrain
/// has it (field, forest) the next of its letters that is free, then its letters in capitals,
/// then any free letter. Terrains are taken in alphabetical order, so the letters depend
/// on the pack alone.
pub fn terrain_letters(pack: &crate::content::Pack) -> BTreeMap<String, char> {
    let mut terrains: BTreeSet<&str> = BTreeSet::new();
    for d in &pack.defs {
        terrains.extend(d.def.cells.iter().map(|c| c.terrain.as_str()));
    }
    if let Some((file, _)) = &pack.board {
        terrains.extend(file.board.iter().filter_map(|k| k.start.as_ref()).map(|s| s.terrain.as_str()));
    }
    letters_for(terrains)
}

fn letters_for<'a>(terrains: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, char> {
    let mut used: BTreeSet<char> = BTreeSet::from(['.']);
    let mut out = BTreeMap::new();
    for t in terrains {
        let own = t.chars().filter(|c| c.is_ascii_alphanumeric());
        let pick = own
            .clone()
            .map(|c| c.to_ascii_lowercase())
            .chain(own.map(|c| c.to_ascii_uppercase()))
            .chain('a'..='z')
            .chain('A'..='Z')
            .chain('0'..='9')
            .find(|c| !used.contains(c))
            .unwrap_or('?');
        used.insert(pick);
        out.insert(t.to_string(), pick);
    }
    out
}

impl State {
    /// Board `b` named for seat `viewer`: "your Kingdom", "Bea's Kingdom", "the Market".
    pub fn board_words(&self, b: usize, viewer: usize) -> String {
        let Some(bd) = self.boards.get(b) else { return String::new() };
        let whose = match bd.owner {
            Some(p) if p == viewer => "your".to_string(),
            Some(p) => format!("{}'s", self.players.get(p).map_or("?", |x| x.name.as_str())),
            None => "the".to_string(),
        };
        format!("{whose} {}", bd.name)
    }

    /// Every `[[board]]` board drawn for seat `viewer` (boards are public): a line naming
    /// it ("your Kingdom", "Bea's Kingdom", "the Market"), then its grid, indented; then
    /// one legend for them all.
    pub fn boards_text(&self, viewer: usize, letters: &BTreeMap<String, char>) -> String {
        let mut out = String::new();
        for b in 0..self.boards.len() {
            out.push_str(&format!("  {}:\n", self.board_words(b, viewer)));
            for line in self.board_grid(b, letters).lines() {
                out.push_str(&format!("    {line}\n"));
            }
        }
        let all: Vec<usize> = (0..self.boards.len()).collect();
        let legend = self.board_legend(&all, letters);
        if !legend.is_empty() {
            out.push_str(&format!("  ({})\n", legend.trim_end()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::model::StartSquare;

    fn cell(x: i64, y: i64, t: &str) -> TileCell {
        TileCell { x, y, terrain: t.into(), values: BTreeMap::from([("crowns".to_string(), i64::from(t == "wood"))]) }
    }

    fn kingdom(grows: bool) -> BoardKind {
        BoardKind {
            id: "kingdom".into(),
            name: "Kingdom".into(),
            per_seat: true,
            width: 3,
            height: 3,
            grows,
            start: Some(StartSquare { x: None, y: None, terrain: "castle".into() }),
        }
    }

    #[test]
    fn boards_are_spaces_named_by_seat_and_square() {
        let mut s = State::new(1);
        let b0 = s.add_board(&kingdom(false), Some(0));
        let b1 = s.add_board(&kingdom(true), Some(1));
        assert_eq!((b0, b1), (0, 1));
        assert_eq!(s.spaces.len(), 9 + 25);
        let mid = s.board_square(b0, 1, 1).unwrap();
        assert_eq!(s.spaces[mid as usize].id, "kingdom@1:1,1");
        assert_eq!(s.spaces[mid as usize].name, "b2");
        assert_eq!(s.spaces[mid as usize].attrs["terrain"], "castle");
        assert_eq!(s.filled(b1), vec![s.board_square(b1, 2, 2).unwrap()], "the middle of a 5 by 5 kept board");
        // Neighbours stay on their own board.
        let corner = s.board_square(b0, 2, 2).unwrap();
        assert_eq!(
            s.grid_neighbors(corner, false),
            vec![s.board_square(b0, 2, 1).unwrap(), s.board_square(b0, 1, 2).unwrap()]
        );
        assert_eq!(s.steps(corner, s.board_square(b1, 2, 2).unwrap(), true), None, "no way between two boards");
        assert_eq!(square_name(2, 3), "c4");
    }

    #[test]
    fn placements_turn_the_tile_keep_off_filled_squares_and_fit_a_growing_board() {
        let mut s = State::new(1);
        let b = s.add_board(&kingdom(false), None);
        let domino = [cell(0, 0, "wood"), cell(1, 0, "lake")];
        // 3 x 3 with the middle filled: 8 pairs of free neighbouring squares around it,
        // each covered two ways (wood first, or lake first).
        let all = s.placements(b, &domino);
        assert_eq!(all.len(), 8 * 2, "{all:?}");
        let p = &all[0];
        assert_eq!((p.at, FACINGS[p.facing]), (s.board_square(b, 0, 0).unwrap(), "north"));
        assert_eq!(p.squares, vec![s.board_square(b, 0, 0).unwrap(), s.board_square(b, 1, 0).unwrap()]);
        s.lay(p, &domino, "d1#0");
        assert_eq!(s.spaces[p.squares[1] as usize].attrs["terrain"], "lake");
        assert_eq!(s.spaces[p.squares[0] as usize].values["crowns"], 1);
        assert!(s.placements(b, &domino).iter().all(|q| !q.squares.contains(&p.squares[0])));
        // Two like halves: a half turn lays the same, so it is offered once.
        let twin = [cell(0, 0, "lake"), cell(1, 0, "lake")];
        let fresh = State::new(1);
        let mut t = fresh.clone();
        let b = t.add_board(&kingdom(false), None);
        assert_eq!(t.placements(b, &twin).len(), 8);
        // A growing board: what is laid stays within 3 by 3.
        let mut g = fresh;
        let b = g.add_board(&kingdom(true), Some(0));
        let east = g.placements(b, &domino).into_iter().find(|q| q.at == g.board_square(b, 3, 2).unwrap()).unwrap();
        g.lay(&east, &domino, "d1#0");
        let too_far =
            g.placements(b, &domino).into_iter().any(|q| q.squares.contains(&g.board_square(b, 1, 2).unwrap()));
        assert!(!too_far, "west of the castle would make the kingdom 4 wide");
        let letters = letters_for(["castle", "lake", "wood"]);
        assert_eq!(
            g.board_text(b, &letters),
            "   c  d  e\n 1 .  .  .\n 2 .  .  .\n 3 c  w1 l\n 4 .  .  .\n 5 .  .  .\nc castle, l lake, w wood; a number: crowns\n"
        );
        g.players.push(crate::game::state::PlayerState {
            name: "Ann".into(),
            character: None,
            counters: Default::default(),
            hidden: Vec::new(),
            out: false,
            score: 0,
        });
        assert!(g.boards_text(0, &letters).starts_with("  your Kingdom:\n       c  d  e\n     1 .  .  .\n"));
        assert!(g.boards_text(1, &letters).starts_with("  Ann's Kingdom:\n"), "{}", g.boards_text(1, &letters));
        assert!(g.boards_text(1, &letters).ends_with("\n  (c castle, l lake, w wood; a number: crowns)\n"));
    }

    #[test]
    fn terrains_sharing_a_first_letter_are_drawn_with_letters_of_their_own() {
        let l = letters_for(["field", "forest", "keep", "lake", "marsh", "meadow", "mine"]);
        let got: String = l.values().collect();
        assert_eq!(got, "foklmei", "{l:?}");
        // Never the empty square's dot, and one letter each even past the alphabet.
        let many: Vec<String> = (0..70).map(|i| format!("t{i}")).collect();
        let l = letters_for(many.iter().map(String::as_str));
        let set: BTreeSet<char> = l.values().copied().collect();
        assert_eq!(set.len(), 63, "62 letters and digits, then '?'");
        assert!(!set.contains(&'.'));
    }
}
