//! Host functions: Card instances: names, kinds, keywords, values and attributes of the face up, marks, stickers, stages and sides.

use super::*;

pub(super) fn register(e: &mut Registrar) {
    e.section("Cards");
    e.register_fn(
        "create_card(id, z)",
        "A new instance of definition `id` on top of zone `z`.",
        |id: ImmutableString, z: i64| {
            with_faces(|g| {
                let d = def_idx(g, &id)?;
                let z = zn(g, z)?;
                room_for_cards(g, 1, "create_card")?;
                let c = g.create_card(d, z);
                g.log(|s| format!("create {} in {}", card_ref_s(s, c), s.zone_label(z)));
                Ok(i64::from(c))
            })
        },
    );
    e.register_fn(
        "create_cards(id, n, z)",
        "`n` new instances of `id` in `z`.",
        |id: ImmutableString, n: i64, z: i64| {
            with_faces(|g| {
                let d = def_idx(g, &id)?;
                let z = zn(g, z)?;
                if !(0..=10_000).contains(&n) {
                    return Err(format!("create_cards: {n} copies is out of range"));
                }
                room_for_cards(g, n as usize, "create_cards")?;
                let made: Vec<u32> = (0..n).map(|_| g.create_card(d, z)).collect();
                g.log(|s| format!("create {n} x {id} in {}", s.zone_label(z)));
                Ok(ints(made))
            })
        },
    );
    e.register_fn(
        "create_deck(deck, z)",
        "For every card definition listing `deck` in its `decks`, `count` instances into `z`, in order of id \
         (shuffle afterwards). An error when no card lists `deck`.",
        |deck: ImmutableString, z: i64| {
        with_faces(|g| {
            let z = zn(g, z)?;
            let defs: Vec<(u32, i64)> = g
                .pack
                .defs
                .iter()
                .enumerate()
                .filter(|(_, d)| d.kind == DefKind::Card && d.def.decks.iter().any(|x| x == deck.as_str()))
                .map(|(i, d)| (i as u32, d.def.count))
                .collect();
            if defs.is_empty() {
                return Err(format!(
                    "no card lists the deck `{deck}` in its `decks`, so there is nothing to create (a misspelt deck name?)"
                ));
            }
            room_for_cards(g, defs.iter().map(|(_, n)| (*n).max(0) as usize).sum(), "create_deck")?;
            let mut made = Vec::new();
            for (d, n) in defs {
                for _ in 0..n {
                    made.push(g.create_card(d, z));
                }
            }
            let n = made.len();
            g.log(|s| format!("create deck {deck}: {n} cards in {}", s.zone_label(z)));
            Ok(ints(made))
        })
    },
    );
    e.register_fn("def_of(c)", "The card's definition id.", |c: i64| {
        read_faces(|g| Ok(g.pack.words().id[g.state.cards[cd(g, c)? as usize].def as usize].clone()))
    });
    e.register_fn(
        "distinct_defs(cards)",
        "The cards of an array, keeping only the first card of each definition (in the array's order): one entry \
         per kind of card, as when offering each card of a hand once.",
        |cs: Array| {
            read_faces(|g| {
                let mut seen: Vec<u32> = Vec::with_capacity(cs.len());
                let mut out = Array::with_capacity(cs.len());
                for x in cs {
                    let c = x.as_int().map_err(|t| format!("distinct_defs expects card ids, not {t}"))?;
                    let def = g.state.cards[cd(g, c)? as usize].def;
                    if !seen.contains(&def) {
                        seen.push(def);
                        out.push(x);
                    }
                }
                Ok(out)
            })
        },
    );
    e.register_fn(
        "side(c)",
        "Which side of a two-sided card (a definition with a `back` table) is up: `front` or `back`.",
        |c: i64| {
            read_faces(|g| {
                let c = cd(g, c)?;
                Ok(if back_up(g, c).is_some() { "back" } else { "front" }.to_string())
            })
        },
    );
    e.register_fn(
        "set_side(c, side)",
        "Turn a two-sided card to its `front` or `back`; logged. `value`, `attr` and `name_of` then read that side \
         (cards with stages turn with `set_stage`).",
        |c: i64, side: ImmutableString| {
            with_faces(|g| {
                let c = cd(g, c)?;
                let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
                if !d.stages.is_empty() {
                    return Err(format!("`{}` has stages: turn it with `set_stage`", d.id));
                }
                if d.back.is_none() {
                    return Err(format!("`{}` has no back face (a `back` table in its definition)", d.id));
                }
                let to = match side.as_str() {
                    "front" => StagePosition::FrontTop,
                    "back" => StagePosition::BackTop,
                    _ => return Err(format!("`{side}` is not a side (front or back)")),
                };
                if g.state.cards[c as usize].stage != to {
                    g.state.cards[c as usize].stage = to;
                    g.log(|s| format!("turn over {}: {side} side up", card_ref_s(s, c)));
                }
                Ok(())
            })
        },
    );
    e.register_fn("name_of(c)", "The printed name (of the current stage, for multi-stage cards).", |c: i64| {
        read_faces(|g| {
            let c = cd(g, c)?;
            let def = g.state.cards[c as usize].def as usize;
            Ok(match stage_of(g, c) {
                Some(s) => s.name.as_str().into(),
                None => match back_up(g, c).filter(|b| !b.name.is_empty()) {
                    Some(b) => b.name.as_str().into(),
                    None => g.pack.words().name[def].clone(),
                },
            })
        })
    });
    e.register_fn("kind_of(c)", "The definition's kind.", |c: i64| {
        read_faces(|g| Ok(g.pack.words().kind[g.state.cards[cd(g, c)? as usize].def as usize].clone()))
    });
    e.register_fn(
        "has_keyword(c, k)",
        "Whether the definition or the current stage has keyword `k`.",
        |c: i64, k: ImmutableString| {
            read_faces(|g| {
                let c = cd(g, c)?;
                Ok(card_has_keyword(g, c, &k))
            })
        },
    );
    e.register_fn(
        "with_keyword(cards, k)",
        "The cards of an array that have keyword `k` (as `has_keyword`), in the array's order: \
         `with_keyword(cards(pzone(p, \"hand\")), \"attack\")`.",
        |cs: Array, k: ImmutableString| {
            read_faces(|g| {
                let mut out = Array::new();
                for x in cs {
                    let c = x.as_int().map_err(|t| format!("with_keyword expects card ids, not {t}"))?;
                    if card_has_keyword(g, cd(g, c)?, &k) {
                        out.push(x);
                    }
                }
                Ok(out)
            })
        },
    );
    e.register_fn(
        "value(c, k)",
        "A named value of the face that is up: the current stage's (multi-stage cards), the back's (a two-sided \
         card turned over) or the definition's, plus 1 per sticker named `k`. An error naming the card and face \
         when that face has no such value (and no sticker names it).",
        |c: i64, k: ImmutableString| read_faces(|g| strict_value(g, cd(g, c)?, &k)),
    );
    e.register_fn(
        "value_or(c, k, default)",
        "As `value`, giving `default` when the face up has no such value: for values only some cards carry.",
        |c: i64, k: ImmutableString, d: i64| read_faces(|g| Ok(card_value(g, cd(g, c)?, &k).unwrap_or(d))),
    );
    e.register_fn(
        "attr(c, k)",
        "A named text attribute (stage first, then definition), or \"\".",
        |c: i64, k: ImmutableString| {
            read_faces(|g| {
                let c = cd(g, c)?;
                if let Some(v) = stage_of(g, c).and_then(|s| s.attrs.get(k.as_str())) {
                    return Ok(v.clone());
                }
                if let Some(v) = back_up(g, c).and_then(|b| b.attrs.get(k.as_str())) {
                    return Ok(v.clone());
                }
                Ok(g.pack.defs[g.state.cards[c as usize].def as usize]
                    .def
                    .attrs
                    .get(k.as_str())
                    .cloned()
                    .unwrap_or_default())
            })
        },
    );
    e.register_fn(
        "effects(c)",
        "The effects written on the face that is up (its stage's, or its back's when turned over; a face listing \
         none has the definition's): an array of maps, one per entry of `effects`, in order, each field as written \
         (a word as text, a list as an array, a table as a map, a list of entries as an array of maps); a field the \
         pack's `[vocabulary.<kind>.effects]` declares and the entry leaves out reads as empty (`false`, `0`, \
         `\"\"`, `[]`, `#{}`).",
        |c: i64| {
            read_faces(|g| {
                let c = cd(g, c)?;
                let card = &g.state.cards[c as usize];
                let d = &g.pack.defs[card.def as usize].def;
                let fx = &g.pack.words().effects[card.def as usize];
                // The face up's own, else (a face listing none) the definition's.
                if let Some(i) = d.stages.iter().position(|s| s.position == card.stage) {
                    if !d.stages[i].effects.is_empty() {
                        return Ok(fx.stages[i].clone());
                    }
                } else if back_up(g, c).is_some_and(|b| !b.effects.is_empty()) {
                    return Ok(fx.back.clone());
                }
                Ok(fx.own.clone())
            })
        },
    );
    e.register_fn(
        "mark(c, k)",
        "A mark on this card instance (damage, checkboxes, uses...), 0 if unset.",
        |c: i64, k: ImmutableString| {
            read_faces(|g| Ok(g.state.cards[cd(g, c)? as usize].marks.get(k.as_str()).copied().unwrap_or(0)))
        },
    );
    e.register_fn("set_mark(c, k, v)", "Set a mark; logged.", |c: i64, k: ImmutableString, v: i64| {
        set_mark(c, &k, |_| v)
    });
    e.register_fn("add_mark(c, k, delta)", "Add to a mark; logged.", |c: i64, k: ImmutableString, d: i64| {
        set_mark(c, &k, |o| o.saturating_add(d))
    });
    e.register_fn(
        "attach(c, host)",
        "Tuck card `c` under `host` (defences on a land, damage under a defence, equipment). It leaves its zone and \
         travels with the host.",
        |c: i64, host: i64| {
            with(|g| {
                let c = cd(g, c)?;
                let h = cd(g, host)?;
                if c == h {
                    return Err("a card cannot be attached to itself".into());
                }
                let mut x = h;
                for _ in 0..64 {
                    match g.state.cards[x as usize].host {
                        Some(up) if up == c => return Err("attaching would make a loop of cards".into()),
                        Some(up) => x = up,
                        None => break,
                    }
                }
                let from = g.state.effective_zone(c);
                g.state.detach_from_place(c);
                g.state.cards[c as usize].host = Some(h);
                g.state.cards[h as usize].attached.push(c);
                let owner = g.state.cards[h as usize].owner;
                g.state.cards[c as usize].owner = owner;
                g.log(|s| {
                    format!("attach {} under {} (from {})", card_ref_s(s, c), card_ref_s(s, h), s.zone_label(from))
                });
                Ok(())
            })
        },
    );
    e.register_fn("attached(host)", "Cards attached under `host`, first attached first.", |c: i64| {
        read(|g| Ok(ints(g.state.cards[cd(g, c)? as usize].attached.clone())))
    });
    e.register_fn("host_of(c)", "The card `c` is attached to, or -1.", |c: i64| {
        read(|g| Ok(g.state.cards[cd(g, c)? as usize].host.map_or(-1, i64::from)))
    });
    e.register_fn(
        "owner_of(c)",
        "The player controlling the card (set when it enters a player's zone), or -1.",
        |c: i64| read(|g| Ok(g.state.cards[cd(g, c)? as usize].owner.map_or(-1, i64::from))),
    );
    e.register_fn("set_owner(c, p)", "Change the controller (-1 for none).", |c: i64, p: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let o = if p < 0 { None } else { Some(pl(g, p)? as u8) };
            g.state.cards[c as usize].owner = o;
            Ok(())
        })
    });
    e.register_fn("face_up(c)", "Whether the card is face up (new cards are).", |c: i64| {
        read_faces(|g| Ok(g.state.cards[cd(g, c)? as usize].face_up))
    });
    e.register_fn("set_face_up(c, up)", "Turn a card face up or down (hidden traps); logged.", |c: i64, up: bool| {
        with_faces(|g| {
            let c = cd(g, c)?;
            if g.state.cards[c as usize].face_up != up {
                g.state.cards[c as usize].face_up = up;
                g.log(|s| format!("turn {} face {}", card_ref_s(s, c), if up { "up" } else { "down" }));
            }
            Ok(())
        })
    });
    e.register_fn(
        "stage(c)",
        "The current stage: `front-top`, `front-bottom`, `back-top`, `back-bottom`.",
        |c: i64| read_faces(|g| Ok(g.state.cards[cd(g, c)? as usize].stage.as_str().to_string())),
    );
    e.register_fn(
        "set_stage(c, pos)",
        "Turn a multi-stage card to a stage; returns how it turned: `rotate`, `flip` or `none`. Logged.",
        |c: i64, pos: ImmutableString| {
            with_faces(|g| {
                let c = cd(g, c)?;
                let to = StagePosition::parse(&pos).ok_or_else(|| {
                    format!("`{pos}` is not a stage (front-top, front-bottom, back-top, back-bottom)")
                })?;
                let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
                if !d.stages.iter().any(|s| s.position == to) {
                    return Err(format!("`{}` has no stage `{pos}`", d.id));
                }
                let from = g.state.cards[c as usize].stage;
                if from != to {
                    g.state.cards[c as usize].stage = to;
                    let how = from.turn_to(to);
                    g.log(|s| format!("{how} {} {} -> {}", card_ref_s(s, c), from.as_str(), to.as_str()));
                }
                Ok(from.turn_to(to).to_string())
            })
        },
    );
    e.register_fn("stages(c)", "The stage positions the card defines.", |c: i64| {
        read_faces(|g| {
            let d = &g.pack.defs[g.state.cards[cd(g, c)? as usize].def as usize].def;
            Ok(d.stages.iter().map(|s| Dynamic::from(s.position.as_str().to_string())).collect::<Array>())
        })
    });
    e.register_fn(
        "upgrades(c)",
        "Upgrades printed on the current stage: maps `#{to, turn, cost}` with `cost` a map resource -> amount.",
        |c: i64| {
            read_faces(|g| {
                let c = cd(g, c)?;
                let from = g.state.cards[c as usize].stage;
                Ok(stage_of(g, c).map(|st| upgrade_maps(from, &st.upgrades)).unwrap_or_default())
            })
        },
    );
    e.register_fn("checkboxes(c)", "Checkboxes printed on the current stage.", |c: i64| {
        read_faces(|g| {
            Ok(stage_of(g, cd(g, c)?)
                .map(|s| s.checkboxes.iter().map(|x| Dynamic::from(x.clone())).collect::<Array>())
                .unwrap_or_default())
        })
    });
    e.register_fn(
        "add_sticker(c, s)",
        "Put a sticker on the card; a sticker named like a value adds 1 to it.",
        |c: i64, s: ImmutableString| {
            with_faces(|g| {
                let c = cd(g, c)?;
                g.state.cards[c as usize].stickers.push(s.to_string());
                g.log(|st| format!("sticker {s} on {}", card_ref_s(st, c)));
                Ok(())
            })
        },
    );
    e.register_fn("stickers(c)", "The card's stickers.", |c: i64| {
        read_faces(|g| {
            Ok(g.state.cards[cd(g, c)? as usize].stickers.iter().map(|s| Dynamic::from(s.clone())).collect::<Array>())
        })
    });
}

/// Whether the game may hold `n` more card instances (see `Limits::cards`).
fn room_for_cards(g: &Game, n: usize, what: &str) -> Result<(), String> {
    let limit = crate::script::LIMITS.cards;
    if g.state.cards.len().saturating_add(n) > limit {
        return Err(format!(
            "{what}: the game would hold more than {limit} cards ({} already; cards made in a loop?)",
            g.state.cards.len()
        ));
    }
    Ok(())
}

/// One face of a definition as scripts read it (`def_faces`, `def_back`).
/// Upgrades printed on a stage, as `#{to, turn, cost}` maps (`turn`: how the card turns
/// from `from` to reach `to`).
pub(super) fn upgrade_maps(from: StagePosition, upgrades: &[crate::content::model::Upgrade]) -> Array {
    upgrades
        .iter()
        .map(|u| {
            let mut m = Map::new();
            m.insert("to".into(), Dynamic::from(u.to.as_str().to_string()));
            m.insert("turn".into(), Dynamic::from(from.turn_to(u.to).to_string()));
            let cost: Map = u.cost.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect();
            m.insert("cost".into(), Dynamic::from(cost));
            Dynamic::from(m)
        })
        .collect()
}

pub(super) fn face_map(
    face: &str,
    name: &str,
    keywords: &[String],
    values: &std::collections::BTreeMap<String, i64>,
    cost: &std::collections::BTreeMap<String, i64>,
    attrs: &std::collections::BTreeMap<String, String>,
    text: &str,
) -> Map {
    let ints = |m: &std::collections::BTreeMap<String, i64>| -> Map {
        m.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect()
    };
    let mut m = Map::new();
    m.insert("face".into(), Dynamic::from(face.to_string()));
    m.insert("name".into(), Dynamic::from(name.to_string()));
    m.insert("keywords".into(), Dynamic::from(keywords.iter().map(|k| Dynamic::from(k.clone())).collect::<Array>()));
    m.insert("values".into(), Dynamic::from(ints(values)));
    m.insert("cost".into(), Dynamic::from(ints(cost)));
    let attrs: Map = attrs.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(v.clone()))).collect();
    m.insert("attrs".into(), Dynamic::from(attrs));
    m.insert("text".into(), Dynamic::from(text.to_string()));
    m
}

fn set_mark(c: i64, k: &str, f: impl FnOnce(i64) -> i64) -> R<i64> {
    with_faces(|g| {
        let c = cd(g, c)?;
        let old = g.state.cards[c as usize].marks.get(k).copied().unwrap_or(0);
        let new = f(old);
        if new != old {
            if new == 0 {
                g.state.cards[c as usize].marks.remove(k);
            } else {
                g.state.cards[c as usize].marks.insert(k.to_string(), new);
            }
            g.log(|s| format!("mark {} {k} {old} -> {new}", card_ref_s(s, c)));
        }
        Ok(new)
    })
}

#[cfg(test)]
mod tests {
    use crate::game::{Game, GameConfig};
    use crate::load::{load_pack, LoadOptions, Project};
    use std::sync::Arc;

    /// Run `probe()` of a rules script over a one-card pack whose card has a back face.
    fn probe(body: &str) -> Result<String, String> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!("crown-cards-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let card = "[[card]]\nid = \"axe\"\nname = \"Axe\"\ncount = 0\nvalues = { a = 1 }\nattrs = { t = \"front\", keep = \"yes\" }\nback = { name = \"Great Axe\", values = { a = 2, b = 3 }, attrs = { t = \"back\" } }\n";
        let rules = format!("fn setup() {{}}\nfn turn() {{ end_game([], \"done\"); }}\nfn probe() {{\n{body}\n}}\n");
        for (rel, text) in [
            ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
            ("content/p/cards/a.toml", card),
            ("scripts/p/rules.rhai", rules.as_str()),
        ] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        let loaded = load_pack(&Project::new(&root), "p", LoadOptions::default());
        let _ = std::fs::remove_dir_all(&root);
        let pack = Arc::new(loaded.pack.expect("the pack loads"));
        let ast = pack.rules_script().unwrap().ast.clone();
        let game = Game::new(pack, GameConfig::new(1, 1), vec![Box::new(crate::game::agent::FirstAgent)]).unwrap();
        let (_, r) = super::super::with_installed(game, || super::super::call_script_fn(&ast, "probe", Vec::new()));
        r.map(|v| v.to_string()).map_err(|e| e.to_string())
    }

    /// Seats are 0 to players - 1: the number of players itself is no seat, and says so
    /// in the designer's words (not as an internal error of a host function).
    #[test]
    fn a_seat_is_below_the_number_of_players() {
        // (The counter's name through a variable: one no script sets is refused spelt out.)
        assert_eq!(probe("let k = \"gold\";\ncounter(0, k)").unwrap(), "0");
        for seat in ["1", "-1"] {
            let e = probe(&format!("let k = \"gold\";\ncounter({seat}, k)")).unwrap_err();
            assert!(e.contains(&format!("no player {seat} (players are 0 to 0)")), "{e}");
        }
    }

    #[test]
    fn the_side_up_is_what_value_attr_and_name_of_read() {
        let got = probe(
            "let c = create_card(\"axe\", zone(\"z\"));\n\
             let front = [side(c), value(c, \"a\"), attr(c, \"t\"), name_of(c)];\n\
             set_side(c, \"back\");\n\
             [front, [side(c), value(c, \"a\"), value(c, \"b\"), attr(c, \"t\"), attr(c, \"keep\"), name_of(c)]]",
        );
        assert_eq!(got.unwrap(), r#"[["front", 1, "front", "Axe"], ["back", 2, 3, "back", "yes", "Great Axe"]]"#);
    }

    #[test]
    fn a_value_the_face_lacks_is_an_error_unless_read_with_value_or() {
        let e = probe("let c = create_card(\"axe\", zone(\"z\"));\nvalue(c, \"b\")").unwrap_err();
        assert!(e.contains("axe#0 has no value `b` on its front face"), "{e}");
        assert_eq!(probe("let c = create_card(\"axe\", zone(\"z\"));\nvalue_or(c, \"b\", 7)").unwrap(), "7");
        let e =
            probe("let k = \"zz\"; // a name no definition has: `check` refuses it spelt out\ndef_value(\"axe\", k)")
                .unwrap_err();
        assert!(e.contains("`axe` has no value `zz`"), "{e}");
        assert_eq!(probe("def_value_or(\"axe\", \"zz\", 4)").unwrap(), "4");
        let e = probe("let c = create_card(\"axe\", zone(\"z\"));\nset_side(c, \"edge\")").unwrap_err();
        assert!(e.contains("`edge` is not a side"), "{e}");
    }

    #[test]
    fn def_faces_lists_every_face_as_written() {
        let got = probe("let out = [];\nfor f in def_faces(\"axe\") { out.push([f.face, f.name, f.values]); }\nout");
        assert_eq!(got.unwrap(), r#"[["front", "Axe", #{"a": 1}], ["back", "Great Axe", #{"a": 2, "b": 3}]]"#);
    }
}
