//! The map as the page and the printed board page draw it: every space of board.toml that is not a square of a
//! `[[board]]` (the `[grid]` and the named spaces), one SVG element each, drawn from the
//! data alone. Grid squares stand where the grid puts them; named spaces joined by
//! `adjacent` are laid out from their links (a spring layout, the same for the same map);
//! spaces with no place and no links (market slots, piles) stand in rows beneath. Each
//! space shows its name, its terrain's colour (pack.toml's `[colors]`, else one made from
//! the terrain's name), the pieces on it in their supply's colour, and its numbers. In the
//! page the board's supplies stand in a row beneath, each with how many are left.
//! Everything on a map is public.

use std::collections::BTreeMap;
use std::fmt::Write;

use crown_engine::game::Game;

use crate::html_escape;

/// How every space is outlined.
const EDGE: &str = " stroke=\"#555\" stroke-width=\"1\"";
/// How every text is set (the fonts `crown print` bundles).
const TEXT: &str = " font-family=\"Liberation Sans\" font-size=\"10\" text-anchor=\"middle\"";

/// Size of a grid square, in SVG units.
const CELL: f64 = 52.0;
/// Radius of a named space laid out from its links.
const NODE: f64 = 46.0;
/// Size of a space with no place and no links.
const LOOSE: (f64, f64) = (120.0, 52.0);

/// Where a space is drawn, and as what.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    /// A grid square, its top left corner.
    Square(f64, f64),
    /// A named space, its centre.
    Node(f64, f64),
    /// A space apart, its top left corner.
    Box(f64, f64),
}

/// A map drawn: its size in SVG units and its elements (links, then one `g.space` each).
#[derive(Debug, Clone, PartialEq)]
pub struct Map {
    pub width: f64,
    pub height: f64,
    pub body: String,
}

impl Map {
    /// The map as an SVG element of its own (the page's Table column).
    pub fn svg(&self) -> String {
        format!(
            "<svg class=\"map\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-4 -4 {:.0} {:.0}\" role=\"img\" \
             aria-label=\"the map\">{}</svg>",
            self.width + 8.0,
            self.height + 8.0,
            self.body
        )
    }

    /// The map placed in the box `x, y, w, h` of a larger picture, scaled to fit.
    pub fn placed(&self, x: f64, y: f64, w: f64, h: f64) -> String {
        format!(
            "<svg x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" viewBox=\"-4 -4 {:.0} {:.0}\">{}</svg>",
            self.width + 8.0,
            self.height + 8.0,
            self.body
        )
    }
}

/// The map of the game, or `None` when the board has no spaces beyond `[[board]]` squares.
/// With `supplies`, the board's supplies stand in a row beneath it (the page's table, where
/// an option that takes from a supply is chosen by clicking it); a printed map leaves them
/// out.
pub fn map(g: &Game, supplies: bool) -> Option<Map> {
    let s = &g.state;
    let spaces: Vec<usize> = (0..s.spaces.len()).filter(|&i| s.spaces[i].board.is_none()).collect();
    if spaces.is_empty() {
        return None;
    }
    let shapes = layout(g, &spaces);
    let (w, h) = shapes.values().fold((0.0f64, 0.0f64), |(w, h), sh| match *sh {
        Shape::Square(x, y) => (w.max(x + CELL), h.max(y + CELL)),
        Shape::Node(x, y) => (w.max(x + NODE), h.max(y + NODE)),
        Shape::Box(x, y) => (w.max(x + LOOSE.0), h.max(y + LOOSE.1)),
    });
    let mut out = String::new();
    // Links first, under the spaces.
    for &i in &spaces {
        let Some(Shape::Node(x, y)) = shapes.get(&i).copied() else { continue };
        for &j in &s.spaces[i].adjacent {
            if let Some(Shape::Node(u, v)) = shapes.get(&(j as usize)).copied() {
                if (j as usize) > i {
                    link(g, i, j as usize, [x, y, u, v], &mut out);
                }
            }
        }
    }
    let on = g.pieces_by_space();
    for &i in &spaces {
        if let Some(sh) = shapes.get(&i) {
            space(g, i, *sh, &on, &mut out);
        }
    }
    let (mut w, mut h) = (w, h);
    if supplies {
        let defs = g.pack.board.as_ref().map_or(&[][..], |(b, _)| &b.supply[..]);
        let top = h + 16.0;
        for (k, su) in defs.iter().enumerate() {
            let (x, y) = in_rows(k, w, top, SUPPLY_H);
            supply(g, su, x, y, &mut out);
            w = w.max(x + LOOSE.0);
            h = h.max(y + SUPPLY_H);
        }
    }
    Some(Map { width: w, height: h, body: out })
}

/// A link between two spaces laid out from their links, `at` its two ends: a grey line,
/// or, for a link that carries data (board.toml's `links`), a dashed one in the colour of
/// its `kind` with what it carries as its title ("Ravenscar – Duskmoor: sea").
fn link(g: &Game, i: usize, j: usize, at: [f64; 4], out: &mut String) {
    let [x, y, u, v] = at;
    let s = &g.state;
    let Some(attrs) = s.links.get(&(i.min(j) as u32, i.max(j) as u32)) else {
        let _ = write!(out, "<line class=\"link\" x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{u:.1}\" y2=\"{v:.1}\" stroke=\"#888\" stroke-width=\"3\"/>");
        return;
    };
    let colour = attrs.get("kind").map_or_else(|| "#555".to_string(), |k| color_of(g, k));
    let said: Vec<&str> = attrs.values().map(String::as_str).collect();
    let _ = write!(
        out,
        "<line class=\"link carries\" x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{u:.1}\" y2=\"{v:.1}\" stroke=\"{}\" \
         stroke-width=\"3\" stroke-dasharray=\"8 5\"><title>{} – {}: {}</title></line>",
        html_escape(&colour),
        html_escape(&s.spaces[i].name),
        html_escape(&s.spaces[j].name),
        html_escape(&said.join(", "))
    );
}

/// Height of a supply in the row beneath the map.
const SUPPLY_H: f64 = 34.0;

/// One supply: a disc in its colour with its glyph, its name and how many are left, with
/// the same in words as its title. What a supply holds is public.
fn supply(g: &Game, su: &crown_engine::content::model::SupplyDef, x: f64, y: f64, out: &mut String) {
    let left = g.state.supplies.get(&su.id).copied().unwrap_or(0);
    let name = if su.name.is_empty() { &su.id } else { &su.name };
    let colour = supply_colour(g, su);
    let glyph = su.attrs.get("glyph").map_or("", String::as_str);
    let _ = write!(
        out,
        "<g class=\"supply\" data-supply=\"{}\"><title>{}: {left} left of {}</title>\
         <rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{}\" height=\"{SUPPLY_H}\" rx=\"6\" fill=\"#fffdf7\"{EDGE}/>\
         <circle class=\"piece\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"10\" fill=\"{}\" stroke=\"#222\"/>\
         <text class=\"count\" x=\"{:.1}\" y=\"{:.1}\"{TEXT} font-weight=\"bold\" fill=\"#fff\" stroke=\"#222\" \
         stroke-width=\"0.6\">{}</text><text class=\"name\" x=\"{:.1}\" y=\"{:.1}\"{TEXT}>{}</text>\
         <text class=\"left\" x=\"{:.1}\" y=\"{:.1}\"{TEXT}>{left} left</text></g>",
        html_escape(&su.id),
        html_escape(name),
        su.count,
        LOOSE.0,
        x + 16.0,
        y + SUPPLY_H / 2.0,
        html_escape(&colour),
        x + 16.0,
        y + SUPPLY_H / 2.0 + 4.0,
        html_escape(glyph),
        x + 72.0,
        y + 14.0,
        html_escape(name),
        x + 72.0,
        y + 27.0,
    );
}

/// The items of an option's field `name`: its value, or each item of a list; none when
/// the option is not a map or has no such field.
fn field_items(option: Option<&crown_engine::script::Dynamic>, name: &str) -> Vec<crown_engine::script::Dynamic> {
    let Some(map) = option.and_then(|o| o.read_lock::<crown_engine::script::Map>()) else {
        return Vec::new();
    };
    let Some(v) = map.get(name) else { return Vec::new() };
    match v.read_lock::<Vec<crown_engine::script::Dynamic>>() {
        Some(a) => a.clone(),
        None => vec![v.clone()],
    }
}

/// What an option names that the page lets a person click to take it.
#[derive(Debug, Default)]
pub struct Named {
    /// Map spaces, by id ([`named_spaces`]).
    pub spaces: Vec<String>,
    /// Supplies beneath the map, by id ([`named_supplies`]).
    pub supplies: Vec<String>,
    /// Cards seat `viewer` sees, by number ([`named_cards`]).
    pub cards: Vec<u32>,
}

/// What `option` names for seat `viewer` to click: its spaces, supplies and cards.
pub fn named(g: &Game, option: Option<&crown_engine::script::Dynamic>, viewer: usize) -> Named {
    Named {
        spaces: named_spaces(g, option),
        supplies: named_supplies(g, option),
        cards: named_cards(g, option, viewer),
    }
}

/// The supplies an option names through its `supply` field (a supply id, or a list of
/// them): a click on such a supply beneath the map takes it. Ids that are no supply of
/// board.toml are left out.
fn named_supplies(g: &Game, option: Option<&crown_engine::script::Dynamic>) -> Vec<String> {
    field_items(option, "supply").iter().map(|x| x.to_string()).filter(|id| g.supply_def(id).is_some()).collect()
}

/// The cards an option is about through its `card` field (a card's number, or a list:
/// the card a menu's `add_card` option carries) that seat `viewer` sees: a number would
/// tell a face-down card apart.
fn named_cards(g: &Game, option: Option<&crown_engine::script::Dynamic>, viewer: usize) -> Vec<u32> {
    field_items(option, "card")
        .iter()
        .filter_map(|x| x.as_int().ok().and_then(|c| u32::try_from(c).ok()))
        .filter(|&c| (c as usize) < g.state.cards.len() && g.can_see(viewer, c))
        .collect()
}

/// The map spaces an option names through its `space` field (a space id, a space number,
/// or a list of them), by id; none when it has no such field or names no map space.
fn named_spaces(g: &Game, option: Option<&crown_engine::script::Dynamic>) -> Vec<String> {
    let s = &g.state;
    field_items(option, "space")
        .iter()
        .filter_map(|x| match x.as_int() {
            Ok(i) => usize::try_from(i).ok().and_then(|i| s.spaces.get(i)),
            Err(_) => s.space_ids.get(x.to_string().as_str()).map(|&i| &s.spaces[i as usize]),
        })
        .filter(|sp| sp.board.is_none())
        .map(|sp| sp.id.clone())
        .collect()
}

/// Where each space goes.
fn layout(g: &Game, spaces: &[usize]) -> BTreeMap<usize, Shape> {
    let s = &g.state;
    let mut shapes = BTreeMap::new();
    let mut bottom = 0.0f64;
    let mut linked = Vec::new();
    let mut loose = Vec::new();
    let placed = g.map_squares();
    // Places left of or above the grid (`at = [-1, 3]`) shift the whole picture.
    let (x0, y0) = placed.values().fold((0i64, 0i64), |(a, b), &(x, y)| (a.min(x), b.min(y)));
    for &i in spaces {
        let sp = &s.spaces[i];
        match placed.get(&i) {
            Some(&(x, y)) => {
                let (x, y) = (x - x0, y - y0);
                shapes.insert(i, Shape::Square(x as f64 * CELL, y as f64 * CELL));
                bottom = bottom.max((y + 1) as f64 * CELL);
            }
            None if !sp.adjacent.is_empty() => linked.push(i),
            None => loose.push(i),
        }
    }
    let top = if bottom > 0.0 { bottom + 16.0 } else { 0.0 };
    let placed = springs(g, &linked);
    let mut width = shapes.values().fold(0.0f64, |w, sh| match sh {
        Shape::Square(x, _) => w.max(x + CELL),
        _ => w,
    });
    let mut lowest = bottom;
    for (i, (x, y)) in linked.iter().zip(placed) {
        shapes.insert(*i, Shape::Node(x, top + y));
        width = width.max(x + NODE);
        lowest = lowest.max(top + y + NODE);
    }
    // Spaces apart: rows as wide as the rest of the map (six at least).
    let start = if lowest > 0.0 { lowest + 16.0 } else { 0.0 };
    for (k, i) in loose.iter().enumerate() {
        let (x, y) = in_rows(k, width, start, LOOSE.1);
        shapes.insert(*i, Shape::Box(x, y));
    }
    shapes
}

/// The top left corner of the `k`th box (`LOOSE.0` wide, `height` high) set in rows from
/// `top` down, each row as wide as the rest of the map (`width`), six boxes at least.
fn in_rows(k: usize, width: f64, top: f64, height: f64) -> (f64, f64) {
    let per_row = ((width / (LOOSE.0 + 8.0)).floor() as usize).max(6);
    ((k % per_row) as f64 * (LOOSE.0 + 8.0), top + (k / per_row) as f64 * (height + 8.0))
}

/// Centres for the spaces `linked` (joined by `adjacent`): a spring layout (linked
/// spaces pull together, all spaces push apart) from a circle in board order, the same
/// every time, shifted so that every space lies inside the picture.
fn springs(g: &Game, linked: &[usize]) -> Vec<(f64, f64)> {
    let n = linked.len();
    if n == 0 {
        return Vec::new();
    }
    let at: BTreeMap<usize, usize> = linked.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let radius = (n as f64 * NODE * 2.4) / std::f64::consts::TAU + NODE;
    let mut pos: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let a = k as f64 / n as f64 * std::f64::consts::TAU;
            (radius * a.cos(), radius * a.sin())
        })
        .collect();
    let ideal = NODE * 3.0;
    for round in 0..300 {
        let heat = ideal * (1.0 - round as f64 / 300.0) * 0.5;
        let mut push = vec![(0.0f64, 0.0f64); n];
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
                let d = (dx * dx + dy * dy).sqrt().max(1.0);
                let f = ideal * ideal / d;
                push[a].0 += dx / d * f;
                push[a].1 += dy / d * f;
            }
            for j in &g.state.spaces[linked[a]].adjacent {
                if let Some(&b) = at.get(&(*j as usize)) {
                    let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
                    let d = (dx * dx + dy * dy).sqrt().max(1.0);
                    let f = d * d / ideal;
                    push[a].0 -= dx / d * f;
                    push[a].1 -= dy / d * f;
                }
            }
        }
        for (p, (fx, fy)) in pos.iter_mut().zip(push) {
            let len = (fx * fx + fy * fy).sqrt().max(1e-9);
            let step = len.min(heat);
            p.0 += fx / len * step;
            p.1 += fy / len * step;
        }
    }
    let (x0, y0) = pos.iter().fold((f64::MAX, f64::MAX), |(x, y), p| (x.min(p.0), y.min(p.1)));
    pos.into_iter().map(|(x, y)| (x - x0 + NODE, y - y0 + NODE)).collect()
}

/// A colour for a name: the pack's, else a light one made from the name (the same name,
/// the same colour).
fn color_of(g: &Game, name: &str) -> String {
    if let Some(c) = g.pack.manifest.colors.get(name) {
        return c.clone();
    }
    let h = name.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))) % 360;
    format!("hsl({h}, 45%, 82%)")
}

/// A supply's own colour: its `colour` attribute as written in words ("light grey" is
/// CSS's `lightgrey`), if it has one.
fn own_colour(su: &crown_engine::content::model::SupplyDef) -> Option<String> {
    let c = su.attrs.get("colour").or_else(|| su.attrs.get("color"))?;
    Some(c.split_whitespace().collect::<String>().to_lowercase())
}

/// The colour a supply is drawn in beneath the map: its own, else one made from its id.
fn supply_colour(g: &Game, su: &crown_engine::content::model::SupplyDef) -> String {
    own_colour(su).unwrap_or_else(|| color_of(g, &su.id))
}

/// Seat colours where pack.toml's `[colors]` gives none (`seat-1 = "#c62828"`...): six
/// that tell apart, then again.
const SEAT_COLOURS: [&str; 6] = ["#c62828", "#1565c0", "#2e7d32", "#f9a825", "#6a1b9a", "#ef6c00"];

/// The colour of seat `seat` (from 0): `seat-N` of pack.toml's `[colors]` (N from 1), else
/// one of [`SEAT_COLOURS`].
fn seat_colour(g: &Game, seat: usize) -> String {
    match g.pack.manifest.colors.get(&format!("seat-{}", seat + 1)) {
        Some(c) => c.clone(),
        None => SEAT_COLOURS[seat % SEAT_COLOURS.len()].to_string(),
    }
}

/// The colour a piece is drawn in: its supply's own (a supply of one seat's pieces, or of
/// a resource), else its owner's (one supply shared by every seat, its pieces told apart by
/// whose they are), else one made from the supply's id.
fn piece_colour(g: &Game, kind: &str, owner: i64) -> String {
    match (g.supply_def(kind).and_then(own_colour), usize::try_from(owner)) {
        (Some(c), _) => c,
        (None, Ok(seat)) => seat_colour(g, seat),
        (None, Err(_)) => color_of(g, kind),
    }
}

/// One space: its shape, name, pieces and numbers, with everything in words as its title.
fn space(g: &Game, i: usize, shape: Shape, on: &crown_engine::game::map::PiecesOn, out: &mut String) {
    let s = &g.state;
    let sp = &s.spaces[i];
    let fill = sp.attrs.get("terrain").map_or_else(|| "#f4f1ea".to_string(), |t| color_of(g, t));
    let none = BTreeMap::new();
    let pieces = on.get(&i).unwrap_or(&none);
    let mut words = vec![sp.name.clone()];
    if let Some(t) = sp.attrs.get("terrain") {
        words.push(t.clone());
    }
    words.extend(g.space_contents(i, on));
    let _ = write!(
        out,
        "<g class=\"space\" data-space=\"{}\"><title>{}</title>",
        html_escape(&sp.id),
        html_escape(&words.join(", "))
    );
    let (cx, cy, label_y) = match shape {
        Shape::Square(x, y) => {
            let _ = write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"{EDGE}/>",
                CELL - 2.0,
                CELL - 2.0
            );
            (x + CELL / 2.0 - 1.0, y + CELL / 2.0, y + 11.0)
        }
        Shape::Node(x, y) => {
            let _ = write!(out, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{NODE}\" fill=\"{fill}\"{EDGE}/>");
            (x, y + 8.0, y - NODE / 2.0)
        }
        Shape::Box(x, y) => {
            let _ = write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"{fill}\"{EDGE}/>",
                LOOSE.0, LOOSE.1
            );
            (x + LOOSE.0 / 2.0, y + LOOSE.1 / 2.0 + 6.0, y + 13.0)
        }
    };
    let _ = write!(out, "<text class=\"name\" x=\"{cx:.1}\" y=\"{label_y:.1}\"{TEXT}>{}</text>", html_escape(&sp.name));
    // Pieces: a disc each kind in its supply's colour, with the count on it.
    let n = pieces.len() as f64;
    for (k, ((kind, owner), count)) in pieces.iter().enumerate() {
        let colour = piece_colour(g, kind, *owner);
        let x = cx + (k as f64 - (n - 1.0) / 2.0) * 17.0;
        let _ = write!(
            out,
            "<circle class=\"piece\" cx=\"{x:.1}\" cy=\"{cy:.1}\" r=\"8\" fill=\"{}\" stroke=\"#222\"/><text class=\"count\" \
             x=\"{x:.1}\" y=\"{:.1}\"{TEXT} font-weight=\"bold\" fill=\"#fff\" stroke=\"#222\" stroke-width=\"0.6\">{count}</text>",
            html_escape(&colour),
            cy + 4.0
        );
    }
    if !sp.values.is_empty() {
        let nums: Vec<String> = sp.values.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = write!(
            out,
            "<text class=\"values\" x=\"{cx:.1}\" y=\"{:.1}\"{TEXT}>{}</text>",
            cy + 20.0,
            html_escape(&nums.join(", "))
        );
    }
    out.push_str("</g>");
}
