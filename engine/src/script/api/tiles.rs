//! Host functions: boards of board.toml's `[[board]]` kinds (shared or one for each seat)
//! and tiles of several squares laid on them.

use rhai::{FnPtr, NativeCallContext};

use super::*;
use crate::content::model::TileCell;
use crate::game::boards::{square_name, Placement, FACINGS};

/// The board numbered `b`, or an error naming how many there are.
fn bd(g: &Game, b: i64) -> Result<usize, String> {
    if b >= 0 && (b as usize) < g.state.boards.len() {
        Ok(b as usize)
    } else {
        Err(format!("no board {b} (board.toml's [[board]] kinds made {})", g.state.boards.len()))
    }
}

/// The board of kind `kind` belonging to `owner` (`None`: the shared one).
fn board_of_kind(g: &Game, owner: Option<usize>, kind: &str) -> Result<i64, String> {
    if let Some(i) = g.state.boards.iter().position(|b| b.kind == kind && b.owner == owner) {
        return Ok(i as i64);
    }
    let kinds = g.state.boards.iter().map(|b| b.kind.as_str());
    let near = crate::diag::did_you_mean(kind, kinds).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
    Err(match (owner, g.state.boards.iter().find(|b| b.kind == kind)) {
        (Some(_), Some(_)) => format!("the `{kind}` board is shared, not one for each seat: call `board(\"{kind}\")`"),
        (None, Some(_)) => format!("each seat has its own `{kind}` board: call `board(p, \"{kind}\")`"),
        _ => format!("no board `{kind}` in board.toml's [[board]]{near}"),
    })
}

/// How the transcript names board `b`: `kingdom@Ann`, or `kingdom` when shared.
fn board_label(s: &crate::game::state::State, b: usize) -> String {
    let bd = &s.boards[b];
    match bd.owner {
        Some(p) => format!("{}@{}", bd.kind, s.players.get(p).map_or("?", |x| x.name.as_str())),
        None => bd.kind.clone(),
    }
}

/// The cells of card `c`'s definition, an error when it is not a tile.
fn tile_cells(g: &Game, c: i64) -> Result<(u32, Vec<TileCell>), String> {
    let c = cd(g, c)?;
    let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
    if d.cells.is_empty() {
        return Err(format!("`{}` is not a tile: its definition has no `cells`", d.id));
    }
    Ok((c, d.cells.clone()))
}

/// A placement as scripts see it: `at`, `facing`, `squares`, `terrains` (what each square
/// would take) and `label` ("d13 at c4, facing north").
fn placement_map(g: &Game, c: u32, p: &Placement) -> Map {
    let (x, y) = g.state.space_xy(p.at).unwrap_or((0, 0));
    let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
    let id = &d.id;
    let mut m = Map::new();
    m.insert("at".into(), Dynamic::from(i64::from(p.at)));
    m.insert("facing".into(), Dynamic::from(FACINGS[p.facing].to_string()));
    m.insert("squares".into(), Dynamic::from_array(ints(p.squares.clone())));
    let terrains = d.cells.iter().map(|cell| Dynamic::from(cell.terrain.clone())).collect();
    m.insert("terrains".into(), Dynamic::from_array(terrains));
    m.insert("label".into(), Dynamic::from(format!("{id} at {}, facing {}", square_name(x, y), FACINGS[p.facing])));
    m
}

/// The options of `placements(b, c, #{ ... })`: whether to keep only the ways that lay a
/// square beside one already filled (`touching`).
fn placement_options(opts: &Map) -> Result<bool, String> {
    let mut touching = false;
    for (k, v) in opts {
        match k.as_str() {
            "touching" => {
                touching = v.as_bool().map_err(|t| format!("placements: `touching` is true or false, not {t}"))?
            }
            other => {
                let near = crate::diag::did_you_mean(other, ["touching"]);
                let hint = near.map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
                return Err(format!("placements: no option `{other}`{hint}; it takes `touching`"));
            }
        }
    }
    Ok(touching)
}

/// Every placement of card `c` on board `b` as maps (with `touching`, only those laying a
/// square beside a filled one), then kept by `rule` when given (called with each, the game
/// not held meanwhile).
fn placements(ctx: Option<&NativeCallContext>, b: i64, c: i64, touching: bool, rule: Option<&FnPtr>) -> R<Array> {
    let all: Vec<Map> = read_layout_and_faces(|g| {
        let b = bd(g, b)?;
        let (c, cells) = tile_cells(g, c)?;
        let st = &g.state;
        let filled = |s: u32| st.spaces[s as usize].attrs.contains_key("terrain");
        let beside = |p: &Placement| p.squares.iter().any(|&s| st.grid_neighbors(s, false).into_iter().any(filled));
        Ok(st.placements(b, &cells).iter().filter(|p| !touching || beside(p)).map(|p| placement_map(g, c, p)).collect())
    })?;
    let mut out = Array::with_capacity(all.len());
    let mut rule = match (ctx, rule) {
        (Some(ctx), Some(rule)) => Some(crate::script::compiled::Callback::new(ctx, rule, 1)),
        _ => None,
    };
    for m in all {
        let keep = match &mut rule {
            Some(rule) => {
                let v = rule.call([Dynamic::from_map(m.clone())])?;
                v.as_bool()
                    .map_err(|t| format!("placements: the rule returned {t} where true or false was expected"))?
            }
            _ => true,
        };
        if keep {
            out.push(Dynamic::from_map(m));
        }
    }
    Ok(out)
}

pub(super) fn register(e: &mut Registrar) {
    e.section("Board");
    e.register_fn(
        "board(kind)",
        "The shared board of a `[[board]]` kind in board.toml; an error for a kind each seat has its own of.",
        |kind: ImmutableString| read_layout(|g| board_of_kind(g, None, &kind)),
    );
    e.register_fn(
        "board(p, kind)",
        "Seat `p`'s board of a `[[board]]` kind with `per_seat = true` (a kingdom each).",
        |p: i64, kind: ImmutableString| read_layout(|g| board_of_kind(g, Some(pl(g, p)?), &kind)),
    );
    e.register_fn("board_owner(b)", "The seat a board belongs to, -1 for a shared one.", |b: i64| {
        read_layout(|g| Ok(g.state.boards[bd(g, b)?].owner.map_or(-1, |p| p as i64)))
    });
    e.register_fn(
        "board_limit(b)",
        "`[width, height]` that what is laid on the board must fit in: a growing board's `width` and `height` as \
         board.toml gives them (a kingdom of 5 by 5), any other board's size.",
        |b: i64| {
            read_layout(|g| {
                let bd = &g.state.boards[bd(g, b)?];
                let (w, h) = bd.fit.unwrap_or((bd.w, bd.h));
                Ok(vec![Dynamic::from(w), Dynamic::from(h)])
            })
        },
    );
    e.register_fn(
        "board_size(b)",
        "`[width, height]` of the board as kept (a growing board: twice its size less one, its start in the \
         middle).",
        |b: i64| {
            read_layout(|g| {
                let bd = &g.state.boards[bd(g, b)?];
                Ok(vec![Dynamic::from(bd.w), Dynamic::from(bd.h)])
            })
        },
    );
    e.register_fn(
        "board_at(b, x, y)",
        "The square of board `b` at column `x`, row `y` (from 0), or -1 off it. Squares are spaces: every board \
         function works on them, and `space_name` names them `c4` (column letter, row number).",
        |b: i64, x: i64, y: i64| read_layout(|g| Ok(g.state.board_square(bd(g, b)?, x, y).map_or(-1, i64::from))),
    );
    e.register_fn("board_squares(b)", "Every square of a board, row by row.", |b: i64| {
        read_layout(|g| {
            let bd = &g.state.boards[bd(g, b)?];
            Ok(ints((bd.first..bd.first + (bd.w * bd.h) as u32).collect()))
        })
    });
    e.register_fn(
        "filled(b)",
        "The squares of a board that hold something (a `terrain`): the start square and the tiles laid.",
        |b: i64| read_layout(|g| Ok(ints(g.state.filled(bd(g, b)?)))),
    );
    e.register_fn("board_of(s)", "The board a space is a square of, -1 for the map's spaces.", |s: i64| {
        read_layout(|g| Ok(g.state.spaces[sp(g, s)? as usize].board.map_or(-1, i64::from)))
    });
    e.register_fn(
        "board_text(b)",
        "A board drawn as text: each square its terrain's letter (`.` when empty) and the sum of its values when it \
         has any (`f2`), columns lettered, rows numbered, then a line saying what the letters and numbers stand \
         for; a growing board shows the room it may still grow into. Terrains sharing a first letter get letters of \
         their own (field `f`, forest `o`).",
        |b: i64| read(|g| Ok(g.state.board_text(bd(g, b)?, &crate::game::boards::terrain_letters(&g.pack)))),
    );
    e.register_fn(
        "placements(b, c)",
        "Every way to lay tile `c` (a card whose definition has `cells`) on board `b`: each square for its first \
         cell and each facing (where the tile's printed top points: `north` as printed, then `east`, `south`, \
         `west`, turning clockwise about its first cell), every cell on an empty square and, on a growing board, \
         all that is laid within its size; ways that leave the board the same are given once. Each is a map: `at`, \
         `facing`, `squares` (the square each cell covers, in the order of `cells`), `terrains` (the terrain each \
         of those squares would take), `label` (`d13 at c4, facing north`), ready for `choose`.",
        |b: i64, c: i64| placements(None, b, c, false, None),
    );
    e.register_fn(
        "placements(b, c, rule)",
        "The same, kept by the rules' own test: `rule` is called with each placement and returns true to keep it \
         (`|p| p.squares.some(|s| touches_like(s))`).",
        |ctx: NativeCallContext, b: i64, c: i64, rule: FnPtr| placements(Some(&ctx), b, c, false, Some(&rule)),
    );
    e.register_fn(
        "placements(b, c, options)",
        "The same with options: `#{ touching: true }` keeps only the ways that lay a square beside (orthogonally) a \
         filled one, before any rule is asked, so a rule that wants the tile next to something is called for those \
         alone (an unknown option is an error naming the known ones).",
        |b: i64, c: i64, opts: Map| placements(None, b, c, placement_options(&opts)?, None),
    );
    e.register_fn(
        "placements(b, c, options, rule)",
        "Options, then the rules' own test of each placement left (`placements(b, c, #{ touching: true }, |p| \
         beside_like(p))`).",
        |ctx: NativeCallContext, b: i64, c: i64, opts: Map, rule: FnPtr| {
            placements(Some(&ctx), b, c, placement_options(&opts)?, Some(&rule))
        },
    );
    e.register_fn(
        "place_tile(b, c, placement)",
        "Lay tile `c` as one of its placements says (`at` and `facing`): each square takes its cell's `terrain`, \
         values and `tile` (the card); logged as `lay d13#5 on kingdom@Ann at c4, facing north`. An error where the \
         tile cannot lie.",
        |b: i64, c: i64, placement: Map| {
        with_layout(|g| {
            let b = bd(g, b)?;
            let (c, cells) = tile_cells(g, c)?;
            let at = placement.get("at").and_then(|v| v.as_int().ok()).ok_or("place_tile: the placement has no `at`")?;
            let facing = placement.get("facing").map(|v| v.to_string()).unwrap_or_default();
            let f = FACINGS.iter().position(|x| *x == facing).ok_or_else(|| {
                format!("place_tile: facing `{facing}` is none of north, east, south, west")
            })?;
            let all = g.state.placements(b, &cells);
            let p = all.into_iter().find(|p| i64::from(p.at) == at && p.facing == f).ok_or_else(|| {
                let (x, y) = sp(g, at).ok().and_then(|s| g.state.space_xy(s)).unwrap_or((0, 0));
                format!(
                    "place_tile: the tile cannot lie at {}, facing {facing}, on {} (off the board, on a filled square or past its size)",
                    square_name(x, y),
                    board_label(&g.state, b)
                )
            })?;
            let tile = g.card_ref(c);
            g.state.lay(&p, &cells, &tile);
            let (x, y) = g.state.space_xy(p.at).unwrap_or((0, 0));
            g.log(|st| format!("lay {tile} on {} at {}, facing {}", board_label(st, b), square_name(x, y), FACINGS[f]));
            Ok(())
        })
    },
    );
}
