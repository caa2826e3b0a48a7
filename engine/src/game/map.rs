//! The map as text, drawn from board.toml alone (the terminal's `board`, and the engine's
//! own view of the table): every space that is not a square of a `[[board]]`.
//!
//! Spaces with a place (the `[grid]`'s squares, and named spaces given `at = [x, y]`) are
//! a table of short cells under their column numbers: the square's legend character, then
//! a mark for each kind of piece on it (the supply's `glyph` attribute, else the start of
//! its name) with their count, then its numbers after `:`. Spaces joined by
//! `adjacent` follow, one line each with their links; then the other spaces that hold
//! something; then a key to the marks. Where the table is wider than the terminal, the
//! squares that hold something are listed by name instead. Everything on a map is public.

use std::collections::BTreeMap;

use super::Game;

/// The pieces on the table by space, then by supply and owner, counted.
pub type PiecesOn = BTreeMap<usize, BTreeMap<(String, i64), usize>>;

/// The width the engine's own view of the table draws the map for.
pub const VIEW_WIDTH: usize = 100;

impl Game {
    /// Where each space of the map stands in the grid's squares: a `[grid]` square where
    /// the grid puts it, a named space where board.toml's `at` puts it (which may lie
    /// outside the grid), by space index. Spaces of a `[[board]]` are not on the map.
    pub fn map_squares(&self) -> BTreeMap<usize, (i64, i64)> {
        let s = &self.state;
        let drawn_at: BTreeMap<&str, [i64; 2]> = self
            .pack
            .board
            .as_ref()
            .map(|(b, _)| b.space.iter().filter_map(|d| d.drawn_at().map(|a| (d.id.as_str(), a))).collect())
            .unwrap_or_default();
        (0..s.spaces.len())
            .filter(|&i| s.spaces[i].board.is_none())
            .filter_map(|i| {
                let sp = &s.spaces[i];
                sp.xy.or_else(|| drawn_at.get(sp.id.as_str()).map(|&[x, y]| (x, y))).map(|xy| (i, xy))
            })
            .collect()
    }

    /// What stands on space `i`, in words: "2 × Red pawns (Ann)", then its numbers
    /// ("armies 3"); `on` is [`Game::pieces_by_space`].
    pub fn space_contents(&self, i: usize, on: &PiecesOn) -> Vec<String> {
        let s = &self.state;
        let mut words = Vec::new();
        for ((kind, owner), &n) in on.get(&i).into_iter().flatten() {
            let owner = *owner;
            let whose = usize::try_from(owner).ok().and_then(|o| s.players.get(o)).map(|p| format!(" ({})", p.name));
            words.push(format!("{n} × {}{}", self.supply_words(kind), whose.unwrap_or_default()));
        }
        for (k, v) in &s.spaces[i].values {
            words.push(format!("{k} {v}"));
        }
        words
    }

    /// The pieces on the table counted by space, then by supply and owner (one pass over
    /// the pieces, however many spaces are drawn).
    pub fn pieces_by_space(&self) -> PiecesOn {
        let mut on = PiecesOn::new();
        for pc in &self.state.pieces {
            if let Some(sp) = pc.space {
                *on.entry(sp as usize).or_default().entry((pc.kind.clone(), pc.owner)).or_default() += 1;
            }
        }
        on
    }

    /// A supply's name ("Red pawns"), else its id in words.
    fn supply_words(&self, kind: &str) -> String {
        self.supply_def(kind).map_or_else(|| kind.replace('-', " "), |su| su.name.clone())
    }

    /// board.toml's supply `kind`.
    pub fn supply_def(&self, kind: &str) -> Option<&crate::content::model::SupplyDef> {
        self.pack.board.as_ref().and_then(|(b, _)| b.supply.iter().find(|su| su.id == kind))
    }

    /// The map as text at most `width` characters wide (the table of squares gives way to
    /// a list past it); `None` when the board has no map.
    pub fn map_text(&self, width: usize) -> Option<String> {
        self.map_text_of(width, &self.pieces_by_space())
    }

    /// [`Game::map_text`] with the pieces counted already ([`Game::pieces_by_space`]).
    pub(crate) fn map_text_of(&self, width: usize, on: &PiecesOn) -> Option<String> {
        let s = &self.state;
        let on_map: Vec<usize> = (0..s.spaces.len()).filter(|&i| s.spaces[i].board.is_none()).collect();
        if on_map.is_empty() {
            return None;
        }
        let mut key = Key::new(self);
        let placed = self.map_squares();
        let mut out = String::new();
        if !placed.is_empty() {
            let cells: BTreeMap<(i64, i64), (usize, String)> =
                placed.iter().map(|(&i, &xy)| (xy, (i, self.cell(i, on, &mut key)))).collect();
            let table = table(&cells, width);
            match table {
                Some(t) => out.push_str(&t),
                None => {
                    out.push_str("squares that hold something (the map is wider than the screen):\n");
                    for &(i, _) in cells.values() {
                        let what = self.space_contents(i, on);
                        if !what.is_empty() {
                            out.push_str(&format!("  {}: {}\n", self.space_title(i), what.join(", ")));
                        }
                    }
                }
            }
        }
        // Spaces joined by links, then the others that hold something.
        let mut empty = Vec::new();
        for &i in on_map.iter().filter(|i| !placed.contains_key(i)) {
            let sp = &s.spaces[i];
            let what = self.space_contents(i, on);
            if sp.adjacent.is_empty() {
                if what.is_empty() {
                    empty.push(sp.name.as_str());
                } else {
                    out.push_str(&format!("{}: {}\n", self.space_title(i), what.join(", ")));
                }
                continue;
            }
            // A link that carries data says it: "Ravenscar (sea)".
            let links: Vec<String> = sp
                .adjacent
                .iter()
                .filter_map(|&j| Some((j, s.spaces.get(j as usize)?)))
                .map(|(j, o)| match s.links.get(&((i as u32).min(j), (i as u32).max(j))) {
                    Some(attrs) => format!("{} ({})", o.name, attrs.values().cloned().collect::<Vec<_>>().join(", ")),
                    None => o.name.clone(),
                })
                .collect();
            let what = if what.is_empty() { "empty".to_string() } else { what.join(", ") };
            out.push_str(&format!("{}: {what}; next to {}\n", self.space_title(i), links.join(", ")));
        }
        if !empty.is_empty() {
            let more = empty.len().saturating_sub(12);
            empty.truncate(12);
            let rest = if more > 0 { format!(" and {more} more") } else { String::new() };
            out.push_str(&format!("empty: {}{rest}\n", empty.join(", ")));
        }
        let legend = key.words();
        if !legend.is_empty() {
            out.push_str(&format!("key: {legend}\n"));
        }
        Some(out)
    }

    /// A space as a list names it: "Wessex", "2,3 (fish)".
    fn space_title(&self, i: usize) -> String {
        let sp = &self.state.spaces[i];
        match sp.attrs.get("terrain") {
            Some(t) if sp.name == sp.id => format!("{} ({t})", sp.name),
            _ => sp.name.clone(),
        }
    }

    /// The short cell of space `i` in the table: its legend character, its pieces' marks
    /// and counts, its numbers. The marks used are noted in `key`.
    fn cell(&self, i: usize, on: &PiecesOn, key: &mut Key) -> String {
        let sp = &self.state.spaces[i];
        let mut cell = String::new();
        if let Some(t) = sp.attrs.get("terrain") {
            cell.push_str(&key.terrain(t));
        }
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for ((kind, _), n) in on.get(&i).into_iter().flatten() {
            *kinds.entry(kind.clone()).or_default() += n;
        }
        let marks: Vec<String> = kinds.iter().map(|(kind, &n)| key.piece(self, kind, n)).collect();
        if !marks.is_empty() {
            if !cell.is_empty() {
                cell.push(' ');
            }
            cell.push_str(&marks.join(","));
        }
        for (k, v) in &sp.values {
            key.numbers.insert(k.clone());
            cell.push_str(&format!(":{v}"));
        }
        cell
    }
}

/// The squares' cells as a table under column numbers, rows numbered; `None` when it is
/// wider than `width`.
fn table(cells: &BTreeMap<(i64, i64), (usize, String)>, width: usize) -> Option<String> {
    let (x0, x1, y0, y1) = cells.keys().fold((i64::MAX, i64::MIN, i64::MAX, i64::MIN), |(a, b, c, d), &(x, y)| {
        (a.min(x), b.max(x), c.min(y), d.max(y))
    });
    let columns = usize::try_from(x1 - x0 + 1).ok()?;
    let number = |n: i64| n.to_string().chars().count();
    let cw = cells.values().map(|(_, c)| c.chars().count()).chain([number(x0), number(x1)]).max().unwrap_or(1) + 1;
    let lw = number(y0).max(number(y1)) + 1;
    if lw + columns * cw > width {
        return None;
    }
    let mut out = " ".repeat(lw);
    for x in x0..=x1 {
        out.push_str(&format!("{x:<cw$}"));
    }
    out = out.trim_end().to_string();
    out.push('\n');
    for y in y0..=y1 {
        let mut row = format!("{y:<lw$}");
        for x in x0..=x1 {
            let c = cells.get(&(x, y)).map_or("", |(_, c)| c.as_str());
            row.push_str(&format!("{c:<cw$}"));
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    Some(out)
}

/// The marks of a drawing: every supply's and terrain's, fixed for the pack (a kind keeps
/// its mark however the pieces move), and which of them the drawing used, for its key.
struct Key {
    /// Mark by supply id: its `glyph` attribute, else the shortest start of its name no
    /// other supply took (board.toml's order).
    marks: BTreeMap<String, String>,
    /// Mark by terrain: the grid legend's character for it.
    legend: BTreeMap<String, String>,
    /// Terrain by its mark, as used.
    terrains: BTreeMap<String, String>,
    /// Supply name by its mark, as used.
    pieces: BTreeMap<String, String>,
    numbers: std::collections::BTreeSet<String>,
}

impl Key {
    fn new(g: &Game) -> Self {
        let mut marks = BTreeMap::new();
        let mut taken = std::collections::BTreeSet::new();
        let supplies = g.pack.board.as_ref().map(|(b, _)| b.supply.as_slice()).unwrap_or_default();
        for su in supplies.iter().filter(|su| su.attrs.contains_key("glyph")) {
            taken.insert(su.attrs["glyph"].clone());
            marks.insert(su.id.clone(), su.attrs["glyph"].clone());
        }
        for su in supplies.iter().filter(|su| !su.attrs.contains_key("glyph")) {
            let name: Vec<char> = if su.name.is_empty() { su.id.chars().collect() } else { su.name.chars().collect() };
            let letters: Vec<char> = name.iter().copied().filter(|c| c.is_alphanumeric()).collect();
            let mark = (1..=letters.len())
                .map(|n| {
                    let rest: String = letters[1..n].iter().collect();
                    letters[0].to_uppercase().collect::<String>() + rest.as_str()
                })
                .find(|m| !taken.contains(m))
                .unwrap_or_else(|| su.id.clone());
            taken.insert(mark.clone());
            marks.insert(su.id.clone(), mark);
        }
        let legend = (g.pack.board.as_ref().and_then(|(b, _)| b.grid.as_ref()))
            .map(|grid| grid.legend.iter().map(|(mark, terrain)| (terrain.clone(), mark.clone())).collect())
            .unwrap_or_default();
        Key { marks, legend, terrains: BTreeMap::new(), pieces: BTreeMap::new(), numbers: Default::default() }
    }

    /// A terrain's mark: the grid legend's character for it, else its first letter.
    fn terrain(&mut self, t: &str) -> String {
        let mark = self
            .legend
            .get(t)
            .cloned()
            .unwrap_or_else(|| t.chars().next().map(|c| c.to_uppercase().to_string()).unwrap_or_default());
        self.terrains.entry(mark.clone()).or_insert_with(|| t.to_string());
        mark
    }

    /// A kind of piece's mark, followed by their count when more than one stand there
    /// (after `×` where the mark ends in a digit).
    fn piece(&mut self, g: &Game, kind: &str, n: usize) -> String {
        let mark = self.marks.get(kind).cloned().unwrap_or_else(|| kind.to_string());
        self.pieces.entry(mark.clone()).or_insert_with(|| g.supply_words(kind));
        match n {
            1 => mark,
            _ if mark.ends_with(|c: char| c.is_ascii_digit()) => format!("{mark}×{n}"),
            _ => format!("{mark}{n}"),
        }
    }

    fn words(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let terrains: Vec<String> = self.terrains.iter().map(|(m, t)| format!("{m} {t}")).collect();
        if !terrains.is_empty() {
            parts.push(terrains.join(", "));
        }
        let pieces: Vec<String> = self.pieces.iter().map(|(m, t)| format!("{m} {t}")).collect();
        if !pieces.is_empty() {
            parts.push(pieces.join(", "));
        }
        if !self.numbers.is_empty() {
            let names: Vec<&str> = self.numbers.iter().map(String::as_str).collect();
            parts.push(format!(":N {}", names.join(", then ")));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use crate::game::agent::FirstAgent;
    use crate::game::state::Piece;
    use crate::game::{Game, GameConfig};

    const BOARD: &str = r#"
[grid]
width = 3
height = 2
rows = ["ab.", "ba."]
legend = { "a" = "wood", "b" = "hill", "." = "sea" }

[[space]]
id = "pile"
name = "Pile"
at = [1, -1]

[[space]]
id = "north"
name = "North"
adjacent = ["south"]

[[space]]
id = "south"
name = "South"
adjacent = ["north"]
values = { armies = 3 }

[[space]]
id = "market"
name = "Market"

[[space]]
id = "well"
name = "Well"

[[supply]]
id = "knight-red"
name = "Red knights"
count = 4
attrs = { glyph = "K1" }

[[supply]]
id = "gold"
name = "Gold"
count = 10

[[supply]]
id = "goats"
name = "Goats"
count = 10
"#;

    fn game() -> Game {
        let pack = crate::script::api::fixture_pack(
            "map-text",
            "m",
            &[
                ("content/m/pack.toml", "id = \"m\"\nname = \"M\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
                ("content/m/board.toml", BOARD),
                ("scripts/m/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n"),
            ],
        );
        let mut g = Game::new(pack, GameConfig::new(1, 1), vec![Box::new(FirstAgent)]).unwrap();
        let at = |g: &Game, id: &str| Some(g.state.space_ids[id]);
        let piece =
            |kind: &str, owner: i64, space| Piece { kind: kind.into(), owner, space, attrs: Default::default() };
        let (square, other, pile, market) = (at(&g, "0,0"), at(&g, "1,1"), at(&g, "pile"), at(&g, "market"));
        g.state.pieces.extend([
            piece("knight-red", 0, square),
            piece("goats", -1, other),
            piece("gold", 0, pile),
            piece("gold", 0, pile),
            piece("goats", -1, market),
        ]);
        g
    }

    #[test]
    fn the_map_is_drawn_as_text_from_the_board_alone() {
        let g = game();
        let me = g.state.players[0].name.clone();
        let text = g.map_text(100).unwrap();
        let expected = "   0    1    2\n\
             -1      G2\n\
             0  a K1 b    .\n\
             1  b    a Go .\n\
             North: empty; next to South\n\
             South: armies 3; next to North\n\
             Market: 1 × Goats\n\
             empty: Well\n\
             key: . sea, a wood, b hill; G Gold, Go Goats, K1 Red knights\n";
        assert_eq!(text, expected, "{text}");
        // Too narrow for the table: the squares that hold something, by name.
        let narrow = g.map_text(12).unwrap();
        assert!(
            narrow.starts_with(&format!(
                "squares that hold something (the map is wider than the screen):\n  0,0 (wood): 1 × Red knights ({me})\n  \
                 Pile: 2 × Gold ({me})\n"
            )),
            "{narrow}"
        );
        // The engine's own view of the table draws it too.
        assert!(g.view(0).contains("  0  a K1 b    .\n"), "{}", g.view(0));
    }

    /// A space drawn (`at`) where the map cannot draw it well is a warning at its `at`
    /// (on a grid square, where another is drawn, too far off); the board is kept, since
    /// `at` changes no rule.
    #[test]
    fn a_space_drawn_out_of_place_is_a_warning_and_the_board_stays() {
        let root = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            std::fs::create_dir_all(root.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.path().join(rel), text).unwrap();
        };
        write("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n");
        write("scripts/p/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n");
        write(
            "content/p/board.toml",
            "[grid]\nwidth = 2\nheight = 1\nrows = [\"ff\"]\nlegend = { f = \"field\" }\n\n\
             [[space]]\nid = \"a\"\nname = \"A\"\nat = [0, -1]\n\n\
             [[space]]\nid = \"b\"\nname = \"B\"\nat = [0, -1]\n\n\
             [[space]]\nid = \"c\"\nname = \"C\"\nat = [1, 0]\n\n\
             [[space]]\nid = \"d\"\nname = \"D\"\nat = [5, 99]\n",
        );
        let loaded =
            crate::load::load_pack(&crate::load::Project::new(root.path()), "p", crate::load::LoadOptions::default());
        let found: Vec<(usize, String)> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.code == "space-position")
            .map(|d| {
                assert_eq!(d.severity, crate::diag::Severity::Warning, "{}", d.message);
                (d.line, d.message.clone())
            })
            .collect();
        assert_eq!(found.len(), 3, "{:?}", loaded.diagnostics);
        assert!(found[0].0 == 15 && found[0].1.contains("is where space `a` is drawn"), "{found:?}");
        assert!(found[1].0 == 20 && found[1].1.contains("is the grid's square 1,0"), "{found:?}");
        assert!(found[2].0 == 25 && found[2].1.contains("too far from the map"), "{found:?}");
        assert!(loaded.pack.is_some_and(|p| p.board.is_some()), "the board is kept");
    }
}
