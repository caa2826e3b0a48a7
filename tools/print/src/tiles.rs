//! Tiles as printed pieces: a definition with `cells` prints as its shape (its squares at
//! `[print] tile_square_mm`, 40 mm by default), each square in its terrain's colour from
//! the pack's `[colors]`; what the tile templates see; the check that every terrain a
//! tile or a board's start square names has a colour; and the piles the printed pieces
//! form (cards, plaques, nobles and leaders by kind, tiles by shape), each of one size.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crown_engine::content::model::TileCell;
use crown_engine::content::{Def, DefKind, Pack};
use crown_engine::diag::Diagnostic;
use serde_json::{json, Value};

use super::context::{Colors, Rgb};
use super::geometry::Geometry;
use super::icons::IconSet;
use super::util::label;

/// Template units in a tile's square: the built-in tile templates are drawn for squares
/// of 40 units, scaled to the pack's square.
pub const DESIGN_SQUARE: f64 = 40.0;

/// What a missing or unreadable terrain colour is painted with: a grey the template marks
/// with hatching and "no colour" (the error is reported once, by [`check_terrains`]).
pub const NO_COLOR: Rgb = Rgb(0xd9, 0xd9, 0xd9);

/// Whether a definition is a tile (it has `cells`).
pub fn is_tile(d: &Def) -> bool {
    !d.def.cells.is_empty()
}

/// The box a tile's cells fill: its first column and row, and how many of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shape {
    pub x0: i64,
    pub y0: i64,
    pub cols: i64,
    pub rows: i64,
}

impl Shape {
    pub fn of(cells: &[TileCell]) -> Shape {
        let xs = cells.iter().map(|c| c.x);
        let ys = cells.iter().map(|c| c.y);
        let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
        let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
        Shape { x0, y0, cols: x1 - x0 + 1, rows: y1 - y0 + 1 }
    }

    /// `2x1` for a domino lying down.
    pub fn name(&self) -> String {
        format!("{}x{}", self.cols, self.rows)
    }
}

/// The cut size of a tile: its box of squares of `square_mm`, with `bleed` around.
pub fn geometry(d: &Def, square_mm: f64, bleed: f64) -> Geometry {
    let s = Shape::of(&d.def.cells);
    Geometry { w: s.cols as f64 * square_mm, h: s.rows as f64 * square_mm, bleed }
}

/// What a tile template sees as `geom`: as for cards, but a template unit is a fortieth
/// of a square (`geom.w` is 80 for a domino lying down, whatever the square's size).
pub fn design(geom: Geometry, square_mm: f64) -> Value {
    geom.design_at(square_mm / DESIGN_SQUARE)
}

/// A terrain's colour: its entry in the pack's `[colors]`, when that is a colour.
pub fn terrain_color(pack: &Pack, terrain: &str) -> Option<Rgb> {
    pack.manifest.colors.get(terrain).and_then(|c| Rgb::parse(c))
}

/// `tile` in a tile template's context: the shape (`cols`, `rows`, `square`, `rect`
/// when every square of the box is covered), the outline of its outer edges (`outline`,
/// a path in template units: the cut line of a tile that is not a rectangle), where its
/// first cell lies (`first`, the corner the number goes in), and each cell with its
/// place, terrain, colours and values. A cell's `paint` is its square run on into the
/// bleed on the tile's outer edges.
pub fn tile_json(pack: &Pack, d: &Def, icons: &IconSet, bleed_units: f64) -> Value {
    let cells = &d.def.cells;
    let shape = Shape::of(cells);
    let s = DESIGN_SQUARE;
    let covered: BTreeSet<(i64, i64)> = cells.iter().map(|c| (c.x - shape.x0, c.y - shape.y0)).collect();
    let has = |x: i64, y: i64| covered.contains(&(x, y));
    let hidden = &pack.manifest.print.hide_values;
    let mut outline = String::new();
    let items: Vec<Value> = cells
        .iter()
        .map(|c| {
            let (col, row) = (c.x - shape.x0, c.y - shape.y0);
            let (x, y) = (col as f64 * s, row as f64 * s);
            // Outer edges: left, top, right, bottom.
            let outer = [!has(col - 1, row), !has(col, row - 1), !has(col + 1, row), !has(col, row + 1)];
            let grow = |o: bool| if o { bleed_units } else { 0.0 };
            let edges = [
                (outer[0], format!("M{} {}V{}", n(x), n(y), n(y + s))),
                (outer[1], format!("M{} {}H{}", n(x), n(y), n(x + s))),
                (outer[2], format!("M{} {}V{}", n(x + s), n(y), n(y + s))),
                (outer[3], format!("M{} {}H{}", n(x), n(y + s), n(x + s))),
            ];
            for (o, e) in edges {
                if o {
                    outline.push_str(&e);
                }
            }
            let color = terrain_color(pack, &c.terrain);
            let colors = Colors { band: color.unwrap_or(NO_COLOR) };
            let (band, dark, light) = colors.json();
            let values: Vec<Value> = c
                .values
                .iter()
                .filter(|(k, _)| !hidden.contains(k))
                .map(|(k, v)| json!({ "key": k, "label": label(k), "value": v, "icon": icons.href(k) }))
                .collect();
            json!({
                "col": col,
                "row": row,
                "x": x,
                "y": y,
                "cx": x + s / 2.0,
                "cy": y + s / 2.0,
                "paint": {
                    "x": x - grow(outer[0]),
                    "y": y - grow(outer[1]),
                    "w": s + grow(outer[0]) + grow(outer[2]),
                    "h": s + grow(outer[1]) + grow(outer[3]),
                },
                "terrain": c.terrain,
                "terrain_label": label(&c.terrain),
                "color": band,
                "color_dark": dark,
                "color_light": light,
                "ink": colors.ink(),
                "missing_color": color.is_none(),
                "values": values,
            })
        })
        .collect();
    let first = cells.first().map_or((0, 0), |c| (c.x - shape.x0, c.y - shape.y0));
    json!({
        "cols": shape.cols,
        "rows": shape.rows,
        "shape": shape.name(),
        "square": s,
        "rect": covered.len() as i64 == shape.cols * shape.rows,
        "outline": outline,
        "first": { "x": first.0 as f64 * s, "y": first.1 as f64 * s },
        "cells": items,
    })
}

fn n(x: f64) -> String {
    super::util::num(x)
}

/// Where a terrain is named: the tiles that have it, the boards that start with it.
#[derive(Default)]
struct Users {
    tiles: Vec<String>,
    boards: Vec<String>,
}

impl Users {
    /// ``tiles `d1`, `d3` and 4 more, and the start square of board `kingdom` ``.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.tiles.is_empty() {
            let mut t: Vec<String> = self.tiles.iter().take(3).map(|id| format!("`{id}`")).collect();
            if self.tiles.len() > 3 {
                t.push(format!("{} more", self.tiles.len() - 3));
            }
            let last = t.pop().unwrap_or_default();
            let list = if t.is_empty() { last } else { format!("{} and {last}", t.join(", ")) };
            parts.push(format!("tile{} {list}", if self.tiles.len() == 1 { "" } else { "s" }));
        }
        for b in &self.boards {
            parts.push(format!("the start square of board `{b}`"));
        }
        parts.join(", and ")
    }
}

/// Every terrain a tile's cells or a board's start square names, and where.
fn terrains_used(pack: &Pack) -> BTreeMap<String, Users> {
    let mut used: BTreeMap<String, Users> = BTreeMap::new();
    for d in pack.defs.iter().filter(|d| is_tile(d)) {
        for c in &d.def.cells {
            let e = used.entry(c.terrain.clone()).or_default();
            if !e.tiles.contains(&d.def.id) {
                e.tiles.push(d.def.id.clone());
            }
        }
    }
    if let Some((board, _)) = &pack.board {
        for k in &board.board {
            if let Some(st) = &k.start {
                used.entry(st.terrain.clone()).or_default().boards.push(k.id.clone());
            }
        }
    }
    used
}

/// Whether `key` of the pack's `[colors]` is a terrain's (so that a bad colour there is the
/// terrain check's error, not the kinds' warning).
pub fn is_terrain(pack: &Pack, key: &str) -> bool {
    pack.defs.iter().any(|d| d.def.cells.iter().any(|c| c.terrain == key))
        || pack
            .board
            .as_ref()
            .is_some_and(|(b, _)| b.board.iter().any(|k| k.start.as_ref().is_some_and(|s| s.terrain == key)))
}

/// An error for every terrain a tile or a board's start square names that has no colour
/// in the pack's `[colors]` (or one that is not a colour): the squares are painted in
/// their terrain's colour, and a grey stand-in would print a tile that looks finished.
/// Such squares print hatched and marked "no colour".
pub fn check_terrains(pack: &Pack) -> Vec<Diagnostic> {
    let manifest_file = Path::new("content").join(pack.id()).join("pack.toml");
    let mut out = Vec::new();
    for (terrain, users) in terrains_used(pack) {
        let on = users.describe();
        let d = match pack.manifest.colors.get(&terrain) {
            None => Diagnostic::error(
                "missing-color",
                format!("terrain `{terrain}` has no colour in `[colors]` of {} (it is on {on})", manifest_file.display()),
            )
            .hint(format!(
                "add `{} = \"#6b8e23\"` (any CSS colour) under `[colors]`: every square is printed in its terrain's colour",
                toml_key(&terrain)
            )),
            Some(c) if Rgb::parse(c).is_none() => Diagnostic::error(
                "bad-color",
                format!("the colour `{c}` of terrain `{terrain}` in {} is not a CSS colour (it is on {on})", manifest_file.display()),
            )
            .hint("write colours as `#rrggbb` or a CSS colour name"),
            Some(_) => continue,
        };
        out.push(at_color_entry(d, pack, &manifest_file, &terrain));
    }
    out
}

/// A key as TOML writes it: bare when it can be, else quoted.
fn toml_key(k: &str) -> String {
    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

/// At `name = ...` in the `[colors]` of `manifest_file` when it is there, else at the
/// `[colors]` table, else in the file.
fn at_color_entry(d: Diagnostic, pack: &Pack, manifest_file: &Path, name: &str) -> Diagnostic {
    use toml::de::{DeTable, DeValue};
    let Some(src) = pack.sources.get(manifest_file) else {
        return d.in_file(manifest_file);
    };
    let span = DeTable::parse(&src.text).ok().and_then(|root| {
        let (key, colors) = root.get_ref().iter().find(|(k, _)| k.get_ref() == "colors")?;
        match colors.get_ref() {
            DeValue::Table(t) => {
                Some(t.iter().find(|(k, _)| k.get_ref() == name).map_or(key.span(), |(_, v)| v.span()))
            }
            _ => None,
        }
    });
    match span {
        Some(span) => d.at(src, span),
        None => d.in_file(manifest_file),
    }
}

/// A pile of printed pieces, all of one size: a deck of one kind of definition (`cards`,
/// `plaques`, `nobles`, `leaders`), or the tiles of one shape (`tiles`, or `tiles-2x1`,
/// `tiles-2x2`... when the pack's tiles come in several shapes). Each has its own PDF of
/// one piece a page with `--layout card`, and its own deck in Tabletop Simulator.
#[derive(Debug, Clone)]
pub struct Pile<'a> {
    pub name: String,
    pub defs: Vec<&'a Def>,
    pub geom: Geometry,
    pub tiles: bool,
}

/// The piles of `defs` (in the order given within each): cards, plaques, nobles and
/// leaders at the card size `card`, then tiles by shape.
pub fn piles<'a>(defs: &[&'a Def], card: Geometry, square_mm: f64) -> Vec<Pile<'a>> {
    let mut out = Vec::new();
    for kind in DefKind::ALL {
        let of_kind: Vec<&Def> = defs.iter().copied().filter(|d| d.kind == kind && !is_tile(d)).collect();
        if !of_kind.is_empty() {
            out.push(Pile { name: format!("{}s", kind.as_str()), defs: of_kind, geom: card, tiles: false });
        }
    }
    let mut shapes: BTreeMap<(i64, i64), Vec<&Def>> = BTreeMap::new();
    for d in defs.iter().copied().filter(|d| is_tile(d)) {
        let s = Shape::of(&d.def.cells);
        shapes.entry((s.cols, s.rows)).or_default().push(d);
    }
    let several = shapes.len() > 1;
    for ((cols, rows), tiles) in shapes {
        let geom = geometry(tiles[0], square_mm, card.bleed);
        let name = if several { format!("tiles-{cols}x{rows}") } else { "tiles".to_string() };
        out.push(Pile { name, defs: tiles, geom, tiles: true });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(x: i64, y: i64) -> TileCell {
        TileCell { x, y, terrain: "wheat".into(), values: BTreeMap::new() }
    }

    #[test]
    fn a_shape_is_the_box_its_cells_fill() {
        let domino = [cell(0, 0), cell(1, 0)];
        assert_eq!(Shape::of(&domino), Shape { x0: 0, y0: 0, cols: 2, rows: 1 });
        let ell = [cell(1, 1), cell(1, 2), cell(2, 2)];
        assert_eq!(Shape::of(&ell), Shape { x0: 1, y0: 1, cols: 2, rows: 2 });
        assert_eq!(Shape::of(&ell).name(), "2x2");
        assert_eq!(Shape::of(&[cell(0, 0)]).name(), "1x1");
        assert_eq!(toml_key("deep-water"), "deep-water");
        assert_eq!(toml_key("deep water"), "\"deep water\"");
    }

    #[test]
    fn where_a_terrain_is_used_reads_as_a_list() {
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let u = Users { tiles: ids(&["d1"]), boards: Vec::new() };
        assert_eq!(u.describe(), "tile `d1`");
        let u = Users { tiles: ids(&["d1", "d2", "d3", "d4", "d5"]), boards: ids(&["kingdom"]) };
        assert_eq!(u.describe(), "tiles `d1`, `d2`, `d3` and 2 more, and the start square of board `kingdom`");
        let u = Users { tiles: Vec::new(), boards: ids(&["kingdom"]) };
        assert_eq!(u.describe(), "the start square of board `kingdom`");
    }
}
