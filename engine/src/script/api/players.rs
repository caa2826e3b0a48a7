//! Host functions: Seats: counters, characters, scores, who is still in.

use super::*;

pub(super) fn register(e: &mut Registrar) {
    e.section("Players");
    e.register_fn("players()", "Number of seats. Players are numbered 0 to players()-1.", || {
        settled(|g| Ok(g.state.players.len() as i64))
    });
    e.register_fn("player_name(p)", "The seat's name (`P1`... or the scenario's seat name).", |p: i64| {
        read(|g| Ok(g.state.players[pl(g, p)?].name.clone()))
    });
    e.register_fn("character(p)", "Id of the player's noble or leader, or \"\".", |p: i64| {
        read(|g| {
            let p = pl(g, p)?;
            Ok(g.state.players[p].character.map_or(String::new(), |d| g.pack.defs[d as usize].def.id.clone()))
        })
    });
    e.register_fn(
        "set_character(p, id)",
        "Give the player a noble or leader; its script's hooks then take part in `fold`.",
        |p: i64, id: ImmutableString| {
            with(|g| {
                let p = pl(g, p)?;
                let d = def_idx(g, &id)?;
                if !g.pack.defs[d as usize].kind.is_character() {
                    return Err(format!("`{id}` is not a noble or leader"));
                }
                g.state.players[p].character = Some(d);
                g.log(|s| format!("{} is {id}", s.players[p].name));
                Ok(())
            })
        },
    );
    e.register_fn(
        "counter(p, name)",
        "A named counter of the player (0 if never set).",
        |p: i64, k: ImmutableString| {
            read(|g| Ok(g.state.players[pl(g, p)?].counters.get(k.as_str()).copied().unwrap_or(0)))
        },
    );
    e.register_fn(
        "set_counter(p, name, value)",
        "Set a counter; logged. Returns the new value.",
        |p: i64, k: ImmutableString, v: i64| set_counter(p, &k, |_| v),
    );
    e.register_fn(
        "add_counter(p, name, delta)",
        "Add to a counter (saturating); logged. Returns the new value.",
        |p: i64, k: ImmutableString, d: i64| set_counter(p, &k, |old| old.saturating_add(d)),
    );
    e.register_fn(
        "hide_counter(p, name)",
        "Show the counter to its owner only (behind a screen) at the terminal.",
        |p: i64, k: ImmutableString| {
            with(|g| {
                let p = pl(g, p)?;
                let h = &mut g.state.players[p].hidden;
                if !h.iter().any(|x| x == k.as_str()) {
                    h.push(k.to_string());
                }
                Ok(())
            })
        },
    );
    e.register_fn(
        "eliminate(p)",
        "Mark the player out of the game (told \"P2 is out of the game\"; the end of the game says in which turn).",
        |p: i64| eliminate(p, None),
    );
    e.register_fn(
        "eliminate(p, told)",
        "The same, told in the pack's words: `eliminate(p, \"Bea is out of the round\")`.",
        |p: i64, told: ImmutableString| eliminate(p, Some(told)),
    );
    e.register_fn("restore(p)", "Bring an eliminated player back (survival modes).", |p: i64| {
        with(|g| {
            let p = pl(g, p)?;
            g.state.players[p].out = false;
            g.tally.out(p, None);
            g.say(Vec::new(), |s| (format!("{} is back in the game", s.players[p].name), None));
            Ok(())
        })
    });
    e.register_fn("is_out(p)", "Whether the player is out.", |p: i64| read(|g| Ok(g.state.players[pl(g, p)?].out)));
    e.register_fn("alive()", "Players not out, in seat order.", || {
        read(|g| {
            Ok(g.state
                .players
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.out)
                .map(|(i, _)| Dynamic::from(i as i64))
                .collect::<Array>())
        })
    });
    e.register_fn(
        "alive_after(p)",
        "Players not out, in turn order starting after `p` (`p` itself left out): whoever plays next first.",
        |p: i64| {
            read(|g| {
                let start = pl(g, p)?;
                let n = g.state.players.len();
                Ok((1..n)
                    .map(|k| (start + k) % n)
                    .filter(|&q| !g.state.players[q].out)
                    .map(|q| Dynamic::from(q as i64))
                    .collect::<Array>())
            })
        },
    );
    e.register_fn(
        "set_score(p, n)",
        "The player's final score, reported by `crown sim` and transcripts.",
        |p: i64, v: i64| {
            with(|g| {
                let p = pl(g, p)?;
                g.state.players[p].score = v;
                g.log(|s| format!("score {} = {v}", s.players[p].name));
                Ok(())
            })
        },
    );
    e.register_fn(
        "set_score(p, parts)",
        "The final score as the sum of its parts, `[[\"walls\", 2], [\"resources\", 6]]`: the end of the game shows \
         each part beside the score. Setting the same parts again writes nothing.",
        |p: i64, parts: Array| {
            with(|g| {
                let p = pl(g, p)?;
                let parts = score_parts(&parts)?;
                let v = parts
                    .iter()
                    .try_fold(0i64, |a, (_, n)| a.checked_add(*n))
                    .ok_or("set_score: the parts overflow")?;
                // Called every turn with the same parts, it writes nothing.
                if g.state.players[p].score == v && g.tally.score_parts[p] == parts {
                    return Ok(());
                }
                g.state.players[p].score = v;
                let words: Vec<String> = parts.iter().map(|(w, n)| format!("{w} {n}")).collect();
                g.log(|s| format!("score {} = {v} ({})", s.players[p].name, words.join(", ")));
                g.tally.score_parts[p] = parts;
                Ok(())
            })
        },
    );
    e.register_fn("score(p)", "The score set so far.", |p: i64| read(|g| Ok(g.state.players[pl(g, p)?].score)));
}

/// `eliminate(p)`: "P2 is out of the game"; `eliminate(p, told)` says `told` instead (a
/// game of rounds: "P2 is out of the round").
fn eliminate(p: i64, told: Option<ImmutableString>) -> R<()> {
    with(|g| {
        let p = pl(g, p)?;
        if !g.state.players[p].out {
            g.state.players[p].out = true;
            let turn = g.state.turn;
            g.tally.out(p, Some(turn));
            g.say(Vec::new(), |s| {
                (told.map_or_else(|| format!("{} is out of the game", s.players[p].name), |t| t.to_string()), None)
            });
        }
        Ok(())
    })
}

/// The parts of a score: `[["regions", 12], ["gold", 4]]`, each a name and a whole number.
fn score_parts(parts: &Array) -> Result<Vec<(String, i64)>, String> {
    let bad = |x: &Dynamic| {
        format!("set_score(p, parts): each part is [name, points], like [\"gold\", 4], not {}", x.type_name())
    };
    parts
        .iter()
        .map(|x| {
            let pair = x.read_lock::<Array>().ok_or_else(|| bad(x))?;
            match pair.as_slice() {
                [name, n] if name.is_string() && n.is_int() => Ok((name.to_string(), n.as_int().unwrap_or(0))),
                _ => Err(bad(x)),
            }
        })
        .collect()
}

fn set_counter(p: i64, k: &str, f: impl FnOnce(i64) -> i64) -> R<i64> {
    with(|g| {
        let p = pl(g, p)?;
        let old = g.state.players[p].counters.get(k).copied().unwrap_or(0);
        let new = f(old);
        // The values pack.toml's `counter_ranges` allows it: a rule that would set it
        // outside is a mistake in the rules, stopped where it is made.
        if let Some(range) = g.pack.manifest.counter_ranges.get(k).filter(|r| !r.holds(new)) {
            return Err(format!(
                "{}'s {k} would be {new} (it is {old}): pack.toml's counter_ranges holds it {}",
                g.state.players[p].name,
                range.words()
            ));
        }
        if new != old {
            g.state.players[p].counters.insert(k, new);
            g.log(|s| format!("{} {k} {old} -> {new}", s.players[p].name));
        }
        Ok(new)
    })
}
