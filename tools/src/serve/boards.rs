//! The `[[board]]` boards as the page draws them (a grid of squares in their terrains'
//! colours, what each holds on hover), and the options that lay a tile as squares on those
//! boards, so a person lays a tile by clicking where it goes and turning it.

use crown_engine::diag::count_words;
use crown_engine::game::agent::PlacementOption;
use crown_engine::game::boards::square_name;
use crown_engine::game::Game;
use serde::Serialize;

/// One board for the seat: its name in words and the squares worth drawing, row by row.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BoardView {
    /// "your Kingdom", "Bea's Kingdom", "the Market".
    pub label: String,
    /// Column letters, left to right.
    pub cols: Vec<String>,
    /// Row numbers, top to bottom.
    pub rows: Vec<String>,
    /// `squares[row][col]`.
    pub squares: Vec<Vec<SquareView>>,
}

/// A square of a board.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SquareView {
    /// "c4".
    pub name: String,
    /// Its terrain; `None` when empty.
    pub terrain: Option<String>,
    /// The terrain's colour from pack.toml's `[colors]`, when the pack gives one.
    pub color: Option<String>,
    /// What it holds, in words: "2 crowns".
    pub values: String,
    /// The name of the card laid on it.
    pub tile: Option<String>,
}

/// An option that lays a tile, drawn on the board it lays on.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PlaceView {
    /// The board's index in the view's boards.
    pub board: usize,
    /// The option's label without its facing ("d13 at c4"), the ways are grouped by.
    pub head: String,
    /// The square of the tile's first cell, and its facing.
    pub at: String,
    pub facing: String,
    /// The squares it covers, and the terrain and colour each would take.
    pub squares: Vec<String>,
    pub terrains: Vec<String>,
    pub colors: Vec<Option<String>>,
}

/// Every `[[board]]` board of the game, drawn for seat `viewer` (boards are public), each
/// with the room around what is laid that the engine draws, and at least the squares
/// `also` (those the options would cover) so that every one can be clicked.
pub fn boards(g: &Game, viewer: usize, also: &[i64]) -> Vec<BoardView> {
    let s = &g.state;
    let colors = &g.pack.manifest.colors;
    (0..s.boards.len())
        .map(|b| {
            let (mut x0, mut y0, mut x1, mut y1) = s.board_window(b);
            let on_board = also.iter().filter_map(|&q| s.spaces.get(usize::try_from(q).ok()?));
            for (x, y) in on_board.filter(|sp| sp.board == Some(b as u32)).filter_map(|sp| sp.xy) {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
            let squares = (y0..=y1)
                .map(|y| {
                    (x0..=x1)
                        .filter_map(|x| s.board_square(b, x, y))
                        .map(|q| {
                            let sp = &s.spaces[q as usize];
                            let terrain = sp.attrs.get("terrain").cloned();
                            let values: Vec<String> =
                                sp.values.iter().filter(|(_, n)| **n != 0).map(|(k, n)| value_words(*n, k)).collect();
                            SquareView {
                                name: sp.name.clone(),
                                color: terrain.as_ref().and_then(|t| colors.get(t).cloned()),
                                terrain,
                                values: values.join(", "),
                                tile: sp.attrs.get("tile").map(|t| tile_name(g, t)),
                            }
                        })
                        .collect()
                })
                .collect();
            BoardView {
                label: s.board_words(b, viewer),
                cols: (x0..=x1).map(|x| square_name(x, 0)[..1].to_string()).collect(),
                rows: (y0..=y1).map(|y| (y + 1).to_string()).collect(),
                squares,
            }
        })
        .collect()
}

/// The option `p` (`head`: its label without the facing, when it ends with it) as
/// squares of a board, when they all lie on one.
pub fn placement(g: &Game, p: &PlacementOption, head: Option<&str>) -> Option<PlaceView> {
    let s = &g.state;
    let space = |q: i64| s.spaces.get(usize::try_from(q).ok()?);
    let board = space(p.at)?.board? as usize;
    let squares: Option<Vec<String>> = p
        .squares
        .iter()
        .map(|&q| space(q).filter(|sp| sp.board == Some(board as u32)).map(|sp| sp.name.clone()))
        .collect();
    let colors = &g.pack.manifest.colors;
    let at = space(p.at)?.name.clone();
    Some(PlaceView {
        board,
        head: head.map_or_else(|| at.clone(), str::to_string),
        at,
        facing: p.facing.clone(),
        squares: squares?,
        colors: p.terrains.iter().map(|t| colors.get(t).cloned()).collect(),
        terrains: p.terrains.clone(),
    })
}

/// A square's value in words: `2 crowns`, `1 crown` (a value is named as a plural, as
/// `crowns`; one of it drops the `s`).
fn value_words(n: i64, key: &str) -> String {
    match key.strip_suffix('s').filter(|k| (n == 1 || n == -1) && !k.ends_with('s')) {
        Some(one) => count_words(n, one, None),
        None => format!("{n} {key}"),
    }
}

/// The name of the card a square's `tile` names (`d13#5`, as transcripts write it).
fn tile_name(g: &Game, tile: &str) -> String {
    let card =
        tile.rsplit_once('#').and_then(|(_, n)| n.parse::<u32>().ok()).filter(|&c| (c as usize) < g.state.cards.len());
    card.map_or_else(|| tile.to_string(), |c| g.card_name(c).to_string())
}

#[cfg(test)]
mod tests {
    use super::value_words;

    #[test]
    fn values_are_counted_in_words() {
        assert_eq!(value_words(1, "crowns"), "1 crown");
        assert_eq!(value_words(3, "crowns"), "3 crowns");
        assert_eq!(value_words(1, "glass"), "1 glass");
        assert_eq!(value_words(1, "gold"), "1 gold");
    }
}

/// The map and what options name on it, as the page gets them from a session.
#[cfg(test)]
mod map_tests {
    use crate::serve::game::tests::{pack, session};
    use crate::serve::game::{Session, Setup};

    /// The map is drawn from board.toml: one element per space that is not a `[[board]]`
    /// square (Kingdoms in Conflict's grid and piles, The Last Kingdom's regions and
    /// market), the pieces on them; a pack with no map draws none.
    #[test]
    fn the_map_draws_every_space_of_the_board() {
        for (id, pieces) in [("kingdoms-in-conflict", 0), ("the-last-kingdom", 5)] {
            let p = pack(id);
            let setup =
                Setup { pack: id.into(), scenario: None, seed: 3, kinds: vec!["human".into(), "random".into()] };
            let (g, v) = Session::new(setup, p).unwrap().replay(None);
            let map = v.map.unwrap_or_else(|| panic!("{id}: no map"));
            let spaces = g.state.spaces.iter().filter(|sp| sp.board.is_none()).count();
            assert_eq!(map.matches("<g class=\"space\"").count(), spaces, "{id}");
            // Beneath it, every supply with how many are left.
            let supplies = g.pack.board.as_ref().map_or(0, |(b, _)| b.supply.len());
            assert_eq!(map.matches("<g class=\"supply\"").count(), supplies, "{id}");
            for (kind, left) in &g.state.supplies {
                assert!(
                    map.contains(&format!("data-supply=\"{kind}\">")) && map.contains(&format!(">{left} left<")),
                    "{kind}"
                );
            }
            assert!(map.matches("class=\"piece\"").count() >= pieces, "{id}: {map}");
            if id == "the-last-kingdom" {
                assert!(map.contains("data-space=\"mercia\"") && map.contains("<line class=\"link\""), "{map}");
            }
        }
        // Numbers on spaces (Borderlands' armies, one transcript line each when set) are
        // drawn on their spaces.
        let id = "borderlands";
        let setup = Setup { pack: id.into(), scenario: None, seed: 3, kinds: vec!["human".into(), "random".into()] };
        let (g, v) = Session::new(setup, pack(id)).unwrap().replay(None);
        let map = v.map.expect("a map");
        let held = g.state.spaces.iter().filter(|sp| sp.values.get("armies").is_some_and(|&n| n > 0)).count();
        assert!(held > 0 && map.matches("class=\"values\"").count() >= held, "{map}");
        assert!(map.contains(">armies ") || map.contains(", armies "), "{map}");
        // A link that carries data (the southern road) is drawn dashed, saying what it is.
        assert!(map.contains("<title>Marrowdown – Vinehollow: road</title>"), "{map}");
        assert_eq!(map.matches("class=\"link carries\"").count(), 2, "{map}");
        let (_, v) = session().replay(None);
        assert_eq!(v.map, None, "Take the Kingdom has no map");
    }

    /// An option with a `space` field names that space of the map, for a click on it to
    /// take the option: Kingdoms in Conflict's sides by their grey tiles, its walls each on
    /// its grey tile.
    #[test]
    fn options_name_the_spaces_a_click_takes() {
        let id = "kingdoms-in-conflict";
        let setup = Setup { pack: id.into(), scenario: None, seed: 3, kinds: vec!["human".into(), "random".into()] };
        let mut s = Session::new(setup, pack(id)).unwrap();
        let (_, v) = s.replay(None);
        // A side names its grey tiles: a click on any of them takes it.
        let tiles: Vec<&String> = v.options.iter().flat_map(|o| &o.spaces).collect();
        assert!(v.options.iter().all(|o| o.spaces.len() == 8), "{:?}", v.options);
        assert_eq!(tiles.iter().collect::<std::collections::BTreeSet<_>>().len(), tiles.len(), "no tile twice");
        s.choose(0).unwrap();
        let (_, v) = s.replay(None);
        assert_eq!(v.prompt.as_deref(), Some("Place starting wall 1 of 2"));
        for o in &v.options {
            let tile = o.label.strip_prefix("Wall on ").expect("a wall");
            assert_eq!(o.spaces, [tile], "{}", o.label);
            assert!(v.map.as_deref().unwrap().contains(&format!("data-space=\"{tile}\"")));
        }
    }

    /// An option about a card (its `card` field: a menu's `add_card`) names that card, for
    /// a click on it to take the option, and the card is drawn with its number; a card the
    /// seat does not see is named by no option and drawn without one.
    #[test]
    fn options_name_the_cards_a_click_takes() {
        let mut s = session();
        let mut named = 0;
        for _ in 0..40 {
            let (g, v) = s.replay(None);
            if v.over.is_some() {
                break;
            }
            let drawn: Vec<u32> = v.zones.iter().flat_map(|z| &z.cards).filter_map(|c| c.card).collect();
            for o in &v.options {
                for c in &o.cards {
                    assert!(g.can_see(v.seat, *c), "{}: a card the seat does not see", o.label);
                    named += usize::from(drawn.contains(c));
                }
            }
            for z in &v.zones {
                for c in z.cards.iter().filter(|c| c.id.is_empty()) {
                    assert_eq!(c.card, None, "a face-down card is drawn without its number");
                }
            }
            s.choose(0).unwrap();
        }
        assert!(named >= 3, "options naming a card drawn on the table: {named}");
    }

    /// An option with a `supply` field names that supply, drawn beneath the map with how
    /// many are left, for a click on it to take the option: Kingdoms in Conflict's
    /// purchases by the supply of the wall or unit bought; its payments name the
    /// stockpiles they take from.
    #[test]
    fn purchases_name_their_supply_and_payments_their_piles() {
        let id = "kingdoms-in-conflict";
        let setup = Setup { pack: id.into(), scenario: None, seed: 3, kinds: vec!["human".into(), "random".into()] };
        let mut s = Session::new(setup, pack(id)).unwrap();
        let mut v = s.replay(None).1;
        for _ in 0..200 {
            if v.prompt.as_deref() == Some("Buy phase") && v.options.len() > 1 {
                break;
            }
            s.choose(0).unwrap();
            v = s.replay(None).1;
        }
        assert_eq!(v.prompt.as_deref(), Some("Buy phase"), "{:?}", v.options);
        let map = v.map.as_deref().unwrap();
        for o in &v.options {
            match o.label.as_str() {
                "Buy nothing" => assert!(o.supplies.is_empty() && o.spaces.is_empty()),
                l => {
                    assert_eq!(o.supplies.len(), 1, "{l}");
                    let su = &o.supplies[0];
                    assert!(map.contains(&format!("<g class=\"supply\" data-supply=\"{su}\">")), "{su}");
                }
            }
        }
        let buy = v.options.iter().position(|o| !o.supplies.is_empty()).unwrap();
        s.choose(buy).unwrap();
        let v = s.replay(None).1;
        assert!(v.prompt.as_deref().unwrap().starts_with("Pay for the "), "{:?}", v.prompt);
        for o in &v.options {
            assert!(
                !o.spaces.is_empty() && o.spaces.iter().all(|p| p.starts_with("pile-")),
                "{}: {:?}",
                o.label,
                o.spaces
            );
        }
    }
}
