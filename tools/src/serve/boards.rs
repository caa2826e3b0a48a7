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
