//! Queries over the board's shape, in Rust so that scripts never search it themselves:
//! connected regions of spaces sharing a key's value (terrain, an owner...), steps between
//! spaces ignoring pieces, and the bounding box of a set of grid spaces. Connection is
//! orthogonal on a grid (diagonal when asked) and by `adjacent` between named spaces, as
//! [`State::grid_neighbors`] gives it.

use std::collections::{BTreeMap, VecDeque};

use super::state::State;

/// What a space carries under a key: its attribute (text) when it has one, else its value
/// (a number). A space with neither is in no region of that key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyValue {
    Text(String),
    Number(i64),
}

/// One connected region: its spaces (in board order) share `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub value: KeyValue,
    pub spaces: Vec<u32>,
}

/// The bounding box of some grid spaces: the columns `x..x + w` and rows `y..y + h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub x: i64,
    pub y: i64,
    pub w: i64,
    pub h: i64,
}

impl State {
    /// What space `s` carries under `key`: its attribute, else its value.
    pub fn key_value(&self, s: u32, key: &str) -> Option<KeyValue> {
        let sp = self.spaces.get(s as usize)?;
        if let Some(t) = sp.attrs.get(key) {
            return Some(KeyValue::Text(t.clone()));
        }
        sp.values.get(key).map(|&v| KeyValue::Number(v))
    }

    /// The connected regions of the spaces `among` allows, each a largest group of
    /// connected spaces with the same value of `key` (spaces without one belong to none),
    /// in the order of their first space; each region's spaces in board order.
    pub fn regions(&self, key: &str, diagonal: bool, among: impl Fn(u32) -> bool) -> Vec<Region> {
        let n = self.spaces.len();
        let values: Vec<Option<KeyValue>> =
            (0..n as u32).map(|s| if among(s) { self.key_value(s, key) } else { None }).collect();
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for start in 0..n {
            let Some(value) = &values[start] else { continue };
            if seen[start] {
                continue;
            }
            seen[start] = true;
            let mut spaces = vec![start as u32];
            let mut queue = VecDeque::from([start as u32]);
            while let Some(s) = queue.pop_front() {
                for m in self.grid_neighbors(s, diagonal) {
                    let k = m as usize;
                    if !seen[k] && values[k].as_ref() == Some(value) {
                        seen[k] = true;
                        spaces.push(m);
                        queue.push_back(m);
                    }
                }
            }
            spaces.sort_unstable();
            out.push(Region { value: value.clone(), spaces });
        }
        out
    }

    /// The steps from `a` to `b` over the board's connections, ignoring pieces: on a grid,
    /// the king's-move distance (with `diagonal`) or the orthogonal one; between spaces
    /// not both on the grid, the fewest steps over `adjacent`. `None` when no path joins them.
    pub fn steps(&self, a: u32, b: u32, diagonal: bool) -> Option<i64> {
        if let (Some((ax, ay)), Some((bx, by))) = (self.space_xy(a), self.space_xy(b)) {
            if self.spaces[a as usize].board != self.spaces[b as usize].board {
                return None;
            }
            let (dx, dy) = ((ax - bx).abs(), (ay - by).abs());
            return Some(if diagonal { dx.max(dy) } else { dx + dy });
        }
        let mut dist = BTreeMap::from([(a, 0i64)]);
        let mut queue = VecDeque::from([a]);
        while let Some(s) = queue.pop_front() {
            if s == b {
                return dist.get(&s).copied();
            }
            let d = dist[&s];
            for m in self.grid_neighbors(s, diagonal) {
                dist.entry(m).or_insert_with(|| {
                    queue.push_back(m);
                    d + 1
                });
            }
        }
        None
    }

    /// The smallest box holding every grid space of `spaces`; `None` when none of them is
    /// on the grid.
    pub fn bounds(&self, spaces: impl IntoIterator<Item = u32>) -> Option<Bounds> {
        let mut it = spaces.into_iter().filter_map(|s| self.space_xy(s));
        let (x0, y0) = it.next()?;
        let (mut l, mut t, mut r, mut b) = (x0, y0, x0, y0);
        for (x, y) in it {
            (l, t, r, b) = (l.min(x), t.min(y), r.max(x), b.max(y));
        }
        Some(Bounds { x: l, y: t, w: r - l + 1, h: b - t + 1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::state::Space;

    /// A grid from rows of one-letter terrain (`.` is a tile without terrain), each tile
    /// worth its digit under `crowns` when the row below it in `crowns` has one.
    fn board(rows: &[&str], crowns: &[&str]) -> State {
        let mut s = State::new(1);
        let (w, h) = (rows[0].len() as i64, rows.len() as i64);
        s.grid = Some((w, h));
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                let id = format!("{x},{y}");
                let mut sp = Space {
                    id: id.clone(),
                    name: id.clone(),
                    adjacent: Vec::new(),
                    xy: Some((x as i64, y as i64)),
                    attrs: Default::default(),
                    values: Default::default(),
                    board: None,
                };
                if c != '.' {
                    sp.attrs.insert("terrain".into(), c.to_string());
                }
                if let Some(d) = crowns.get(y).and_then(|r| r[x..].chars().next()).and_then(|c| c.to_digit(10)) {
                    sp.values.insert("crowns".into(), i64::from(d));
                }
                s.space_ids.insert(id, s.spaces.len() as u32);
                s.spaces.push(sp);
            }
        }
        s
    }

    fn at(s: &State, x: i64, y: i64) -> u32 {
        s.space_at(x, y).unwrap()
    }

    #[test]
    fn regions_are_the_connected_groups_of_one_value() {
        let s = board(&["ffw.", "fww.", "..wf"], &[]);
        let r = s.regions("terrain", false, |_| true);
        let shown: Vec<(KeyValue, Vec<(i64, i64)>)> =
            r.iter().map(|r| (r.value.clone(), r.spaces.iter().map(|&k| s.space_xy(k).unwrap()).collect())).collect();
        let t = |c: &str| KeyValue::Text(c.into());
        assert_eq!(
            shown,
            vec![
                (t("f"), vec![(0, 0), (1, 0), (0, 1)]),
                (t("w"), vec![(2, 0), (1, 1), (2, 1), (2, 2)]),
                (t("f"), vec![(3, 2)]),
            ]
        );
        // Diagonally, the lone forest joins nothing more (its diagonal neighbour is water),
        // and narrowing to some spaces splits what only the others joined.
        assert_eq!(s.regions("terrain", true, |_| true).len(), 3);
        let no_middle = s.regions("terrain", false, |k| k != at(&s, 2, 1));
        assert_eq!(no_middle.iter().filter(|r| r.value == t("w")).count(), 3);
        // A value key groups by number; spaces without the key are in no region.
        let s = board(&["ab", "cd"], &["10", "1."]);
        let r = s.regions("crowns", false, |_| true);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0], Region { value: KeyValue::Number(1), spaces: vec![0, 2] });
        assert_eq!(r[1], Region { value: KeyValue::Number(0), spaces: vec![1] });
    }

    #[test]
    fn steps_ignore_pieces_and_follow_adjacency_off_the_grid() {
        let mut s = board(&["....", "....", "...."], &[]);
        assert_eq!(s.steps(at(&s, 0, 0), at(&s, 3, 2), true), Some(3));
        assert_eq!(s.steps(at(&s, 0, 0), at(&s, 3, 2), false), Some(5));
        // Named spaces: a - b - c, and d alone.
        for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
            let k = s.spaces.len() as u32;
            s.space_ids.insert(id.to_string(), k);
            s.spaces.push(Space {
                id: id.to_string(),
                name: id.to_string(),
                adjacent: Vec::new(),
                xy: None,
                attrs: Default::default(),
                values: Default::default(),
                board: None,
            });
            if i > 0 && i < 3 {
                s.spaces[k as usize].adjacent.push(k - 1);
                s.spaces[k as usize - 1].adjacent.push(k);
            }
        }
        let id = |s: &State, n: &str| s.space_ids[n];
        assert_eq!(s.steps(id(&s, "a"), id(&s, "c"), false), Some(2));
        assert_eq!(s.steps(id(&s, "a"), id(&s, "a"), false), Some(0));
        assert_eq!(s.steps(id(&s, "a"), id(&s, "d"), false), None);
    }

    #[test]
    fn bounds_hold_every_grid_space_given() {
        let s = board(&["....", "....", "...."], &[]);
        let b = s.bounds([at(&s, 2, 0), at(&s, 1, 2), at(&s, 3, 1)]).unwrap();
        assert_eq!(b, Bounds { x: 1, y: 0, w: 3, h: 3 });
        assert_eq!(s.bounds([at(&s, 1, 1)]), Some(Bounds { x: 1, y: 1, w: 1, h: 1 }));
        assert_eq!(s.bounds([]), None);
    }
}
