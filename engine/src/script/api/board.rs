//! Host functions: The board: spaces, adjacency, pieces, supplies.

use super::*;
use crate::game::regions::KeyValue;

pub(super) fn register(e: &mut Registrar) {
    e.section("Board");
    e.register_fn("spaces()", "Every board space (grid tiles first, row by row, then named spaces).", || {
        read_layout(|g| Ok((0..g.state.spaces.len() as i64).map(Dynamic::from).collect::<Array>()))
    });
    e.register_fn("space(id)", "The space with id `id` (`\"x,y\"` on a grid), or -1.", |id: ImmutableString| {
        read_layout(|g| Ok(g.state.space_ids.get(id.as_str()).map_or(-1, |&s| i64::from(s))))
    });
    e.register_fn("space_id(s)", "Its id.", |s: i64| {
        read_layout(|g| Ok(g.state.spaces[sp(g, s)? as usize].id.clone()))
    });
    e.register_fn("space_name(s)", "Its name.", |s: i64| {
        read_layout(|g| Ok(g.state.spaces[sp(g, s)? as usize].name.clone()))
    });
    e.register_fn("adjacent(s)", "Spaces adjacent by `adjacent` in board.toml (symmetric).", |s: i64| {
        read_layout(|g| Ok(ints(g.state.spaces[sp(g, s)? as usize].adjacent.clone())))
    });
    e.register_fn(
        "neighbors(s, diagonal)",
        "Grid neighbours: 8 with `diagonal`, else 4 (falls back to `adjacent` off-grid).",
        |s: i64, diagonal: bool| read_layout(|g| Ok(ints(g.state.grid_neighbors(sp(g, s)?, diagonal)))),
    );
    e.register_fn("xy(s)", "`[x, y]` of a grid space (x to the right, y down, from 0).", |s: i64| {
        read_layout(|g| {
            let (x, y) = g.state.space_xy(sp(g, s)?).ok_or("this space is not on a grid")?;
            Ok(vec![Dynamic::from(x), Dynamic::from(y)])
        })
    });
    e.register_fn("space_at(x, y)", "The grid space at x, y, or -1 off the board.", |x: i64, y: i64| {
        read_layout(|g| Ok(g.state.space_at(x, y).map_or(-1, i64::from)))
    });
    e.register_fn(
        "grid_size()",
        "The grid's `[width, height]` in spaces; an error when the board has no grid.",
        || {
            read_layout(|g| {
                let (w, h) = g.state.grid.ok_or("the board has no grid (board.toml has no `[grid]`)")?;
                Ok(vec![Dynamic::from(w), Dynamic::from(h)])
            })
        },
    );
    e.register_fn(
        "space_attr(s, k)",
        "A space attribute (grid tiles have `terrain`).",
        |s: i64, k: ImmutableString| {
            read_layout(|g| Ok(g.state.spaces[sp(g, s)? as usize].attrs.get(k.as_str()).cloned().unwrap_or_default()))
        },
    );
    e.register_fn(
        "link_attr(a, b, k)",
        "An attribute of the link joining neighbours `a` and `b` (board.toml's `links = [{ to = \"b\", attrs = { \
         kind = \"sea\" } }]`), either way round; \"\" when the link carries no such attribute. An error when no \
         link joins them.",
        |a: i64, b: i64, k: ImmutableString| {
            read_layout(|g| {
                let (a, b) = (sp(g, a)?, sp(g, b)?);
                let s = &g.state;
                if !s.spaces[a as usize].adjacent.contains(&b) {
                    let name = |i: u32| &s.spaces[i as usize].id;
                    return Err(format!("`{}` and `{}` are not neighbours: no link joins them", name(a), name(b)));
                }
                Ok(s.links.get(&(a.min(b), a.max(b))).and_then(|m| m.get(k.as_str())).cloned().unwrap_or_default())
            })
        },
    );
    e.register_fn(
        "space_value(s, k)",
        "A space's named number: its value in board.toml, or what a script set (0 if neither).",
        |s: i64, k: ImmutableString| {
            read_values(|g| Ok(g.state.spaces[sp(g, s)? as usize].values.get(k.as_str()).copied().unwrap_or(0)))
        },
    );
    e.register_fn(
        "set_space_value(s, k, n)",
        "Set a named number on a space (the armies on a territory, its damage): one transcript line (`3,4 armies = \
         5`) when it changes, kept in saved games, shown on the drawn board. Returns it.",
        |s: i64, k: ImmutableString, v: i64| with_values(|g| set_space_value(g, s, &k, |_| v)),
    );
    e.register_fn(
        "add_space_value(s, k, delta)",
        "Add to a space's named number (saturating); logged as `set_space_value`. Returns the new value.",
        |s: i64, k: ImmutableString, d: i64| with_values(|g| set_space_value(g, s, &k, |old| old.saturating_add(d))),
    );
    e.register_fn(
        "count_at(s)",
        "How many pieces stand on a space (`pieces_at(s).len()` without the list).",
        |s: i64| {
            read_pieces(|g| {
                let s = sp(g, s)?;
                Ok(g.state.pieces_on(s).len() as i64)
            })
        },
    );
    e.register_fn(
        "count_at(s, kind)",
        "How many pieces of one kind stand on a space.",
        |s: i64, kind: ImmutableString| {
            read_pieces(|g| {
                let s = sp(g, s)?;
                Ok(of_kind(&g.state.pieces, g.state.pieces_on(s), &kind).len() as i64)
            })
        },
    );
    e.register_fn(
        "count_of(owner, kind)",
        "How many pieces of an owner (-1 for neutral) and kind (\"\" for any) are on the board.",
        |owner: i64, kind: ImmutableString| {
            read_pieces(|g| Ok(of_kind(&g.state.pieces, g.state.pieces_owned(owner), &kind).len() as i64))
        },
    );
    e.register_fn("pieces_at(s)", "Pieces on a space.", |s: i64| {
        read_pieces(|g| {
            let s = sp(g, s)?;
            Ok(of_kind(&g.state.pieces, g.state.pieces_on(s), ""))
        })
    });
    e.register_fn(
        "pieces_at(s, kind)",
        "Pieces of one kind on a space (`pieces_at(s, \"wall\")`).",
        |s: i64, kind: ImmutableString| {
            read_pieces(|g| {
                let s = sp(g, s)?;
                Ok(of_kind(&g.state.pieces, g.state.pieces_on(s), &kind))
            })
        },
    );
    e.register_fn(
        "pieces_of(owner, kind)",
        "Pieces on the board of an owner (-1 for neutral) and kind (\"\" for any).",
        |owner: i64, kind: ImmutableString| {
            read_pieces(|g| Ok(of_kind(&g.state.pieces, g.state.pieces_owned(owner), &kind)))
        },
    );
    e.register_fn(
        "place(kind, s, owner)",
        "Take a piece from supply `kind` and put it on `s`; -1 when the supply is empty. Logged.",
        |kind: ImmutableString, s: i64, owner: i64| {
            with_pieces(|g| {
                let s = sp(g, s)?;
                let left = g.state.supplies.get_mut(kind.as_str()).ok_or_else(|| format!("no supply `{kind}`"))?;
                if *left <= 0 {
                    return Ok(-1);
                }
                *left -= 1;
                g.state.board_version += 1;
                let id = g.state.pieces.len();
                g.state.pieces.push(Piece { kind: kind.to_string(), owner, space: Some(s), attrs: Default::default() });
                g.log(|st| {
                    let who = if owner >= 0 {
                        format!(" for {}", st.players.get(owner as usize).map_or("?", |x| x.name.as_str()))
                    } else {
                        String::new()
                    };
                    format!("place {kind}~{id}{who} at {}", st.spaces[s as usize].id)
                });
                Ok(id as i64)
            })
        },
    );
    e.register_fn("move_piece(pc, s)", "Move a piece; logged.", |p: i64, s: i64| {
        with_pieces(|g| {
            let p = pc(g, p)?;
            let s = sp(g, s)?;
            let from = g.state.pieces[p].space.ok_or("that piece is back in its supply")?;
            g.state.pieces[p].space = Some(s);
            g.state.board_version += 1;
            g.log(|st| {
                let kind = &st.pieces[p].kind;
                format!("move {kind}~{p} {} -> {}", st.spaces[from as usize].id, st.spaces[s as usize].id)
            });
            Ok(())
        })
    });
    e.register_fn("return_piece(pc)", "Return a piece to its supply; logged.", |p: i64| {
        with_pieces(|g| {
            let p = pc(g, p)?;
            if let Some(from) = g.state.pieces[p].space.take() {
                let kind = g.state.pieces[p].kind.clone();
                *g.state.supplies.entry(kind.clone()).or_insert(0) += 1;
                g.state.board_version += 1;
                g.log(|st| format!("return {kind}~{p} from {} to supply", st.spaces[from as usize].id));
            }
            Ok(())
        })
    });
    e.register_fn("piece_kind(pc)", "The supply it came from.", |p: i64| {
        read_pieces(|g| Ok(g.state.pieces[pc(g, p)?].kind.clone()))
    });
    e.register_fn("piece_owner(pc)", "Its owner, -1 for neutral.", |p: i64| {
        read_pieces(|g| Ok(g.state.pieces[pc(g, p)?].owner))
    });
    e.register_fn("set_piece_owner(pc, p)", "Change the owner.", |p: i64, o: i64| {
        with_pieces(|g| {
            let p = pc(g, p)?;
            if g.state.pieces[p].owner != o {
                g.state.pieces[p].owner = o;
                g.state.board_version += 1;
                g.log(|st| {
                    let who =
                        if o >= 0 { st.players.get(o as usize).map_or("?", |x| x.name.as_str()) } else { "nobody" };
                    format!("{}~{p} now belongs to {who}", st.pieces[p].kind)
                });
            }
            Ok(())
        })
    });
    e.register_fn("piece_space(pc)", "Where it is, or -1 when in its supply.", |p: i64| {
        read_pieces(|g| Ok(g.state.pieces[pc(g, p)?].space.map_or(-1, i64::from)))
    });
    e.register_fn(
        "piece_get(pc, k)",
        "A named number on the piece (hit points...); 0 if unset.",
        |p: i64, k: ImmutableString| {
            read_pieces(|g| Ok(g.state.pieces[pc(g, p)?].attrs.get(k.as_str()).copied().unwrap_or(0)))
        },
    );
    e.register_fn(
        "piece_set(pc, k, v)",
        "Set a named number on the piece; logged. A piece with `blocks` = 0 does not block paths.",
        |p: i64, k: ImmutableString, v: i64| {
            with_pieces(|g| {
                let p = pc(g, p)?;
                g.state.pieces[p].attrs.insert(k.to_string(), v);
                g.state.board_version += 1;
                g.log(|st| format!("{}~{p} {k} = {v}", st.pieces[p].kind));
                Ok(())
            })
        },
    );
    e.register_fn("supply(kind)", "How many are left in a supply.", |kind: ImmutableString| {
        read(|g| Ok(g.state.supplies.get(kind.as_str()).copied().unwrap_or(0)))
    });
    // What board.toml says of a supply stays the same for the game (its count does not).
    e.register_fn(
        "supplies()",
        "Every supply's id, in board.toml's order: for rules that read which supplies hold resources or whose \
         pieces they are from their `attrs` (`supply_attr`).",
        || {
            settled(|g| {
                let ids = g.pack.board.iter().flat_map(|b| b.0.supply.iter().map(|s| Dynamic::from(s.id.clone())));
                Ok(ids.collect::<rhai::Array>())
            })
        },
    );
    e.register_fn(
        "supply_name(kind)",
        "What people call a supply's pieces (its `name` in board.toml, else its id): `Danes`.",
        |kind: ImmutableString| settled(|g| Ok(supply_def(g, &kind)?.0)),
    );
    e.register_fn(
        "supply_one(kind)",
        "What people call one of its pieces (its `one`: `Dane`); empty when the board gives none and the name is \
         that word.",
        |kind: ImmutableString| settled(|g| Ok(supply_def(g, &kind)?.1)),
    );
    e.register_fn(
        "supply_attr(kind, key)",
        "An attribute of a supply (`side`), empty when it has none; an error for a supply the board does not have.",
        |kind: ImmutableString, key: ImmutableString| {
            settled(|g| Ok(supply_of(g, &kind)?.attrs.get(key.as_str()).cloned().unwrap_or_default()))
        },
    );
    e.register_fn(
        "count_pieces(n, kind)",
        "A number of a supply's pieces in words: `1 Dane`, `3 Danes` (its `one` for one, its `name` for several; \
         without `one`, the name made plural by English rules).",
        |n: i64, kind: ImmutableString| {
            read(|g| {
                let (many, one) = supply_def(g, &kind)?;
                Ok(if one.is_empty() {
                    super::table::count_words(n, &many, None)
                } else {
                    super::table::count_words(n, &one, Some(&many))
                })
            })
        },
    );
    e.register_fn(
        "board_version()",
        "A number that changes whenever a piece is placed, moved, returned, given an owner or a value, or a supply \
         changes.",
        || read(|g| Ok(g.state.board_version as i64)),
    );
    e.register_fn(
        "take(kind, n)",
        "Take up to `n` from a supply (resources held off the board); returns how many were taken.",
        |kind: ImmutableString, n: i64| {
            with(|g| {
                let left = g.state.supplies.get_mut(kind.as_str()).ok_or_else(|| format!("no supply `{kind}`"))?;
                let got = n.clamp(0, *left);
                *left -= got;
                g.state.board_version += 1;
                if got > 0 {
                    let rest = *left;
                    g.log(|_| format!("take {got} {kind} from supply ({rest} left)"));
                }
                Ok(got)
            })
        },
    );
    e.register_fn("give_back(kind, n)", "Return `n` to a supply.", |kind: ImmutableString, n: i64| {
        with(|g| {
            let left = g.state.supplies.get_mut(kind.as_str()).ok_or_else(|| format!("no supply `{kind}`"))?;
            *left += n.max(0);
            let rest = *left;
            g.state.board_version += 1;
            if n > 0 {
                g.log(|_| format!("return {n} {kind} to supply ({rest} left)"));
            }
            Ok(())
        })
    });
    e.register_fn(
        "reachable(s, budget, diagonal, into_occupied)",
        "Spaces reachable from `s` in at most `budget` steps through unoccupied spaces, nearest first; with \
         `into_occupied` an occupied space may end a path.",
        |s: i64, budget: i64, diagonal: bool, into_occupied: bool| {
            read(|g| {
                let s = sp(g, s)?;
                let r = g.state.reachable(s, budget.min(64), diagonal, into_occupied);
                let mut v: Vec<(i64, u32)> = r.into_iter().map(|(k, d)| (d, k)).collect();
                v.sort_unstable();
                Ok(v.into_iter().map(|(_, k)| Dynamic::from(i64::from(k))).collect::<Array>())
            })
        },
    );
    e.register_fn(
        "reachable(s, budget, diagonal, into_occupied, within)",
        "The same, entering only the spaces listed in `within` (a field inside its border, say), as `[space, \
         steps]` pairs, nearest first (by steps, then space number).",
        |s: i64, budget: i64, diagonal: bool, into_occupied: bool, within: Array| {
            read(|g| {
                let s = sp(g, s)?;
                let mut allowed = vec![false; g.state.spaces.len()];
                for w in within {
                    let k = w.as_int().map_err(|t| format!("reachable: `within` lists spaces (numbers), not {t}"))?;
                    allowed[sp(g, k)? as usize] = true;
                }
                let r = g.state.reachable_within(s, budget.min(64), diagonal, into_occupied, |k| allowed[k as usize]);
                let mut v: Vec<(i64, u32)> = r.into_iter().map(|(k, d)| (d, k)).collect();
                v.sort_unstable();
                Ok(v.into_iter()
                    .map(|(d, k)| Dynamic::from_array(vec![Dynamic::from(i64::from(k)), Dynamic::from(d)]))
                    .collect::<Array>())
            })
        },
    );
    e.register_fn(
        "distance(from, to, budget, diagonal)",
        "Steps of the shortest such path (ending on `to` even if occupied), or -1.",
        |from: i64, to: i64, budget: i64, diagonal: bool| {
            read(|g| {
                let from = sp(g, from)?;
                let to = sp(g, to)?;
                Ok(g.state.reachable(from, budget.min(64), diagonal, true).get(&to).copied().unwrap_or(-1))
            })
        },
    );
    e.register_fn(
        "distance(a, b, diagonal)",
        "Steps between two spaces, ignoring pieces: on the grid the king's-move distance with `diagonal`, else the \
         orthogonal one; between named spaces the fewest `adjacent` steps; -1 when nothing joins them.",
        |a: i64, b: i64, diagonal: bool| read(|g| Ok(g.state.steps(sp(g, a)?, sp(g, b)?, diagonal).unwrap_or(-1))),
    );
    e.register_fn(
        "regions_by(key)",
        "The connected regions of the board by `key`: each a largest group of connected spaces (orthogonally on the \
         grid, by `adjacent` off it) carrying the same attribute (`terrain`), or else value, under `key`, as a map: \
         `value`, `spaces` (in board order), `size`. Spaces without the key belong to none. In the order of their \
         first space.",
        |key: ImmutableString| read_layout_and_values(|g| regions(g, &key, &Map::new())),
    );
    e.register_fn(
        "regions_by(key, opts)",
        "The same with options: `within` (an array: only these spaces), `diagonal` (true: diagonal neighbours join \
         too), `sum` (a value key: each region's `total` adds it up over its spaces). `regions_by(\"terrain\", #{ \
         sum: \"crowns\" })`.",
        |key: ImmutableString, opts: Map| read_layout_and_values(|g| regions(g, &key, &opts)),
    );
    e.register_fn(
        "region_of(s, key)",
        "The spaces of the region holding `s` (as `regions_by(key)`), `s` among them; empty when `s` has no `key`.",
        |s: i64, key: ImmutableString| {
            read_layout_and_values(|g| {
                let s = sp(g, s)?;
                if g.state.key_value(s, &key).is_none() {
                    return Ok(Array::new());
                }
                let r = g.state.regions(&key, false, |_| true);
                Ok(r.into_iter().find(|r| r.spaces.contains(&s)).map(|r| ints(r.spaces)).unwrap_or_default())
            })
        },
    );
    e.register_fn(
        "bounds(spaces)",
        "The smallest box holding the grid spaces listed: `#{ x, y, w, h }` (left column, top row, width, height); \
         an error when none is on the grid.",
        |spaces: Array| {
            read_layout(|g| {
                let mut list = Vec::with_capacity(spaces.len());
                for s in spaces {
                    let k = s.as_int().map_err(|t| format!("bounds: the list holds spaces (numbers), not {t}"))?;
                    list.push(sp(g, k)?);
                }
                let b = g.state.bounds(list).ok_or("bounds: none of these spaces is on the grid")?;
                let mut m = Map::new();
                for (k, v) in [("x", b.x), ("y", b.y), ("w", b.w), ("h", b.h)] {
                    m.insert(k.into(), Dynamic::from(v));
                }
                Ok(m)
            })
        },
    );
}

/// `regions_by(key, opts)`: the connected regions of `key`'s values as maps (`value`,
/// `spaces`, `size`, and `total` when `opts.sum` names a value to add up), narrowed to
/// `opts.within` and joined diagonally too with `opts.diagonal`.
fn regions(g: &Game, key: &str, opts: &Map) -> Result<Array, String> {
    let mut within: Option<Vec<bool>> = None;
    let mut diagonal = false;
    let mut sum: Option<String> = None;
    for (k, v) in opts {
        match k.as_str() {
            "within" => {
                let list = v.read_lock::<Array>().ok_or("regions_by: `within` lists spaces (an array)")?;
                let mut allowed = vec![false; g.state.spaces.len()];
                for w in list.iter() {
                    let s = w.as_int().map_err(|t| format!("regions_by: `within` lists spaces (numbers), not {t}"))?;
                    allowed[sp(g, s)? as usize] = true;
                }
                within = Some(allowed);
            }
            "diagonal" => {
                diagonal = v.as_bool().map_err(|t| format!("regions_by: `diagonal` is true or false, not {t}"))?
            }
            "sum" => {
                sum = Some(v.clone().into_string().map_err(|t| format!("regions_by: `sum` names a value, not {t}"))?)
            }
            other => {
                let near = crate::diag::did_you_mean(other, ["within", "diagonal", "sum"]);
                let hint = near.map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
                return Err(format!("regions_by: no option `{other}`{hint}; it takes `within`, `diagonal` and `sum`"));
            }
        }
    }
    let found = g.state.regions(key, diagonal, |s| within.as_ref().is_none_or(|w| w[s as usize]));
    Ok(found
        .into_iter()
        .map(|r| {
            let mut m = Map::new();
            let value = match r.value {
                KeyValue::Text(t) => Dynamic::from(t),
                KeyValue::Number(n) => Dynamic::from(n),
            };
            m.insert("value".into(), value);
            m.insert("size".into(), Dynamic::from(r.spaces.len() as i64));
            if let Some(sum) = &sum {
                let spaces = &g.state.spaces;
                let total: i64 =
                    r.spaces.iter().map(|&s| spaces[s as usize].values.get(sum).copied().unwrap_or(0)).sum();
                m.insert("total".into(), Dynamic::from(total));
            }
            m.insert("spaces".into(), Dynamic::from_array(ints(r.spaces)));
            Dynamic::from_map(m)
        })
        .collect())
}

/// A supply's name for several pieces and for one (`one` is empty when the board does not
/// give it: the name is then the word for one, made plural by English rules). A supply
/// without a name goes by its id.
fn supply_def(g: &Game, kind: &str) -> Result<(String, String), String> {
    let s = supply_of(g, kind)?;
    let many = if s.name.is_empty() { s.id.clone() } else { s.name.clone() };
    let one = if s.one.is_empty() && s.name.is_empty() { s.id.clone() } else { s.one.clone() };
    Ok((many, one))
}

/// The board's supply `kind`, or an error with the nearest id it has.
fn supply_of<'g>(g: &'g Game, kind: &str) -> Result<&'g crate::content::model::SupplyDef, String> {
    let b = g.pack.board.as_ref().ok_or("the pack has no board")?;
    b.0.supply.iter().find(|s| s.id == kind).ok_or_else(|| no_supply(g, kind))
}

/// No supply `kind`, with the nearest id the board has.
fn no_supply(g: &Game, kind: &str) -> String {
    let ids = g.pack.board.iter().flat_map(|b| b.0.supply.iter().map(|s| s.id.as_str()));
    match crate::diag::did_you_mean(kind, ids) {
        Some(near) => format!("no supply `{kind}` (did you mean `{near}`?)"),
        None => format!("no supply `{kind}`"),
    }
}

/// The pieces among `found` of supply `kind` (any, when empty), as script numbers.
fn of_kind(pieces: &[Piece], found: &[u32], kind: &str) -> Array {
    found
        .iter()
        .filter(|&&i| kind.is_empty() || pieces[i as usize].kind == kind)
        .map(|&i| Dynamic::from(i64::from(i)))
        .collect()
}

/// A space's named number set to `new(old)` (a number a script keeps on the board: the
/// armies on a territory, its damage), told in one transcript line when it changes.
fn set_space_value(g: &mut crate::game::Game, s: i64, k: &str, new: impl FnOnce(i64) -> i64) -> Result<i64, String> {
    let s = sp(g, s)?;
    if k.is_empty() {
        return Err("a space value needs a name".into());
    }
    let values = &mut g.state.spaces[s as usize].values;
    let old = values.get(k).copied().unwrap_or(0);
    let v = new(old);
    if v != old || !values.contains_key(k) {
        values.insert(k.to_string(), v);
        g.state.board_version += 1;
        g.log(|st| format!("{} {k} = {v}", st.spaces[s as usize].id));
    }
    Ok(v)
}
