//! Host functions: The game: turns, options, scenario, randomness, checkpoints, the log and the end.

use super::*;

pub(super) fn register(e: &mut Registrar) {
    e.section("Game");
    e.register_fn("get(k)", "A game variable (any script value), or () if unset.", |k: ImmutableString| {
        read(|g| Ok(g.state.globals.get(k.as_str()).cloned().unwrap_or(Dynamic::UNIT)))
    });
    e.register_fn("get_or(k, default)", "A game variable, or `default`.", |k: ImmutableString, d: Dynamic| {
        read(|g| Ok(g.state.globals.get(k.as_str()).cloned().unwrap_or(d)))
    });
    e.register_fn(
        "set(k, v)",
        "Set a game variable; changes of ints, bools and strings are logged.",
        |k: ImmutableString, v: Dynamic| {
            with(|g| {
                if g.transcript.is_some() && (v.is_int() || v.is_bool() || v.is_string()) {
                    let changed = g
                        .state
                        .globals
                        .get(k.as_str())
                        .is_none_or(|old| old.to_string() != v.to_string() || old.type_name() != v.type_name());
                    if changed {
                        let shown = v.to_string();
                        g.log(|_| format!("set {k} = {shown}"));
                    }
                }
                g.state.globals.insert(k.to_string(), v);
                Ok(())
            })
        },
    );
    e.register_fn("roll(n)", "A die roll 1..n from the game's generator; logged.", |n: i64| {
        with(|g| {
            if n < 1 {
                return Err(format!("roll({n}): a die needs at least one side"));
            }
            let v = g.state.rng.below(n as u64) as i64 + 1;
            g.log(|_| format!("roll d{n} -> {v}"));
            Ok(v)
        })
    });
    e.register_fn("random(n)", "A random number 0..n-1 from the game's generator.", |n: i64| {
        with(|g| {
            if n < 1 {
                return Err(format!("random({n}): needs at least 1"));
            }
            Ok(g.state.rng.below(n as u64) as i64)
        })
    });
    e.register_fn("shuffle_list(a)", "A shuffled copy of an array.", |a: Array| {
        with(|g| {
            let mut a = a;
            g.state.rng.shuffle(&mut a);
            Ok(a)
        })
    });
    e.register_fn(
        "option(k)",
        "A rule setting: the scenario's `[options]`, else `pack.toml`'s `[options]` (int, bool, string or array of \
         ints). A setting neither gives is an error naming the nearest known one.",
        |k: ImmutableString| {
            settled(|g| match g.options.get(k.as_str()) {
                Some(v) => Ok(scalar_to_dynamic(v)),
                None => Err(missing_option(g, &k)),
            })
        },
    );
    e.register_fn(
        "option_or(k, default)",
        "A rule setting, or `default` when neither the scenario nor `pack.toml` gives it (for settings that are \
         truly optional; a number the rules need belongs in `[options]`).",
        |k: ImmutableString, d: Dynamic| settled(|g| Ok(g.options.get(k.as_str()).map(scalar_to_dynamic).unwrap_or(d))),
    );
    e.register_fn("has_option(k)", "Whether the scenario or `pack.toml` gives setting `k`.", |k: ImmutableString| {
        settled(|g| Ok(g.options.contains_key(k.as_str())))
    });
    e.register_fn("scenario()", "The scenario id, or \"\".", || {
        settled(|g| Ok(g.scenario.clone().unwrap_or_default()))
    });
    e.register_fn(
        "seat_character(p)",
        "The character fixed for seat `p`, or \"\": the scenario's seat, or the run's (`crown sim --characters \
         fixed:...|random|sweep` sets it for every seat, so rules that deal or offer characters should read this \
         first).",
        |p: i64| settled(|g| Ok(g.seats.get(pl(g, p)?).and_then(|s| s.character.clone()).unwrap_or_default())),
    );
    e.register_fn("seat_cards(p)", "Card ids the scenario gives seat `p`.", |p: i64| {
        settled(|g| {
            Ok(g.seats
                .get(pl(g, p)?)
                .map(|s| s.cards.iter().map(|c| Dynamic::from(c.clone())).collect::<Array>())
                .unwrap_or_default())
        })
    });
    e.register_fn("seat_agent(p)", "The agent kind the scenario suggests for seat `p`, or \"\".", |p: i64| {
        settled(|g| Ok(g.seats.get(pl(g, p)?).and_then(|s| s.agent.clone()).unwrap_or_default()))
    });
    e.register_fn("seat_value(p, k)", "A number the scenario gives seat `p`.", |p: i64, k: ImmutableString| {
        settled(|g| Ok(g.seats.get(pl(g, p)?).and_then(|s| s.values.get(k.as_str()).copied()).unwrap_or(0)))
    });
    e.register_fn(
        "agent_kind(p)",
        "The kind of agent playing seat `p` (`human`, `random`, `first`, `greedy`, `scripted`, or a search bot as \
         named: `search`, `search:64:12:greedy`...; inside a search bot's rollouts, each seat is its rollout \
         policy, `greedy` or `random`).",
        |p: i64| settled(|g| Ok(g.agents[pl(g, p)?].as_ref().map_or(String::new(), |a| a.kind()))),
    );
    e.register_fn("turn_number()", "How many times `turn()` has been called.", || read(|g| Ok(g.state.turn as i64)));
    e.register_fn(
        "log(text)",
        "Tell every player what happened, in the game's words (\"Bea plays Trebuchet on Ann's Land 2\"): a narrated \
         line, shown at the terminal and in the browser, and written to the transcript. It must not name anything a \
         player may not see.",
        |s: ImmutableString| {
            tell(|g| {
                g.say(Vec::new(), |_| (s.to_string(), None));
                Ok(())
            })
        },
    );
    e.register_fn(
        "log_to(who, text)",
        "Tell only the seats `who` (a player or an array of players) something the others may not know (\"Bea draws \
         Walls\"). Written to the transcript as `to Bea: text`.",
        |who: Dynamic, s: ImmutableString| {
            tell(|g| {
                let to = seats(g, &who, "log_to")?;
                g.say(to, |_| (s.to_string(), None));
                Ok(())
            })
        },
    );
    e.register_fn(
        "log_to(who, text, others)",
        "Tell the seats `who` the whole of it and every other seat `others` instead (\"Bea draws 2 cards\"). \
         Written to the transcript as `to Bea: text` then `to others: others`.",
        |who: Dynamic, s: ImmutableString, others: ImmutableString| {
            tell(|g| {
                let to = seats(g, &who, "log_to")?;
                g.say(to, |_| (s.to_string(), Some(others.to_string())));
                Ok(())
            })
        },
    );
    e.register_fn(
        "note_play(p, c)",
        "Record that `p` played card `c` (for `crown sim` card statistics).",
        |p: i64, c: i64| {
            with(|g| {
                let p = pl(g, p)?;
                let c = cd(g, c)?;
                let d = g.state.cards[c as usize].def;
                g.tally.plays[p].push(d);
                Ok(())
            })
        },
    );
    e.register_fn(
        "note_discard(p, c)",
        "Record that `p` lost card `c` from the hand without playing it (a forced discard): `crown sim` counts it \
         as discarded, not as never played.",
        |p: i64, c: i64| {
            with(|g| {
                let p = pl(g, p)?;
                let c = cd(g, c)?;
                let d = g.state.cards[c as usize].def;
                g.tally.discards[p].push(d);
                Ok(())
            })
        },
    );
    e.register_fn(
        "win_round(seats)",
        "The round in progress (begun by `set_round`/`next_round`) is won by `seats` (a player number or an array \
         of them; `[]`: nobody). `crown sim` then reports rounds won by seat and card win rates per round. The \
         transcript writes `round won: NAME`; an error if no round has begun or the round was already won.",
        |winners: Dynamic| {
            with(|g| {
                // An empty array: nobody won the round (a draw).
                let nobody = winners.read_lock::<Array>().is_some_and(|a| a.is_empty());
                let w = if nobody { Vec::new() } else { seats(g, &winners, "win_round")? };
                g.tally.win_round(w.clone())?;
                g.log(|s| {
                    let names: Vec<&str> = w.iter().map(|&p| s.players[p].name.as_str()).collect();
                    format!("round won: {}", if names.is_empty() { "nobody".to_string() } else { names.join(", ") })
                });
                Ok(())
            })
        },
    );
    e.register_fn(
        "end_game(winners, reason)",
        "End the game: an array of winning players and why. Set scores first with `set_score`.",
        |winners: Array, reason: ImmutableString| {
            with(|g| {
                let mut w = Vec::new();
                for x in winners {
                    let p = x.as_int().map_err(|_| "end_game: winners must be player numbers".to_string())?;
                    w.push(pl(g, p)?);
                }
                if g.over.is_none() {
                    g.say(Vec::new(), |s| {
                        let names: Vec<&str> = w.iter().map(|&p| s.players[p].name.as_str()).collect();
                        let scores: Vec<String> = s.players.iter().map(|p| format!("{} {}", p.name, p.score)).collect();
                        // Alone at the table nobody is beaten: the reason and the score are the end.
                        let line = if s.players.len() == 1 {
                            format!("game over: {reason}; score: {}", scores.join(", "))
                        } else {
                            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
                            format!(
                                "game over: {} {} ({reason}); scores: {}",
                                super::table::sentence(&names, "nobody", "and"),
                                if names.len() > 1 { "win" } else { "wins" },
                                scores.join(", ")
                            )
                        };
                        (line, None)
                    });
                    g.over = Some((w, reason.to_string()));
                }
                Ok(())
            })
        },
    );
    e.register_fn("is_over()", "Whether `end_game` was called.", || read(|g| Ok(g.over.is_some())));
    e.register_fn(
        "checkpoint()",
        "Mark a safe point to suspend the game (between rounds of a campaign, say). When the game was started to \
         pause at checkpoints (`crown campaign play`), it stops once the current `turn()` returns, and its state \
         can be saved and resumed; otherwise nothing happens.",
        || {
            with(|g| {
                g.at_checkpoint = true;
                Ok(())
            })
        },
    );
}

/// The seats a private line is for: a player number or an array of them (at least one).
fn seats(g: &Game, who: &Dynamic, f: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    if let Ok(p) = who.as_int() {
        out.push(pl(g, p)?);
    } else if let Some(a) = who.read_lock::<Array>() {
        for x in a.iter() {
            let p = x.as_int().map_err(|_| format!("{f}: the seats must be player numbers, not {}", x.type_name()))?;
            let p = pl(g, p)?;
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if out.is_empty() {
            return Err(format!("{f}: no seat to tell (an empty array); use log(text) for a line everyone reads"));
        }
        out.sort_unstable();
    } else {
        return Err(format!("{f}: the first argument is a player number or an array of them, not {}", who.type_name()));
    }
    Ok(out)
}

/// `option(k)` for a setting neither the scenario nor `pack.toml` gives: an error naming
/// where it could be set and the nearest known name, never a silent `()`.
fn missing_option(g: &Game, k: &str) -> String {
    let known: Vec<&str> = g.options.keys().map(String::as_str).collect();
    let near = crate::diag::did_you_mean(k, known.iter().copied())
        .map(|n| format!("; did you mean `{n}`?"))
        .unwrap_or_default();
    let scenario =
        g.scenario.as_deref().map(|s| format!("scenario `{s}`")).unwrap_or_else(|| "the game (no scenario)".into());
    format!("option `{k}` is not set: neither {scenario} nor pack.toml's [options] gives it{near} (use has_option(k) or option_or(k, default) where it may be missing)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::model::Scalar;
    use crate::game::GameConfig;

    /// A game of a pack whose pack.toml gives `[options]` and whose scenario overrides one.
    fn game(scenario: Option<&str>) -> Game {
        let pack = super::super::fixture_pack(
            &format!("options-{scenario:?}"),
            "p",
            &[
                (
                    "content/p/pack.toml",
                    "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n\
                     [options]\nhand = 5\nbands = [4, 6]\n",
                ),
                ("content/p/scenarios/s.toml", "id = \"s\"\nname = \"S\"\n[options]\nhand = 3\nmode = \"solo\"\n"),
                // The rules read every setting (an unread one is an error).
                (
                    "scripts/p/rules.rhai",
                    "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n\
                     fn settings() { [option(\"hand\"), option(\"bands\"), option(\"mode\")] }\n",
                ),
            ],
        );
        let mut cfg = GameConfig::new(1, 1);
        cfg.scenario = scenario.map(String::from);
        Game::new(pack, cfg, vec![Box::new(crate::game::agent::FirstAgent)]).unwrap()
    }

    #[test]
    fn the_scenario_overrides_pack_options_and_a_missing_one_is_an_error() {
        let g = game(Some("s"));
        assert_eq!(g.options.get("hand"), Some(&Scalar::Int(3)));
        assert_eq!(g.options.get("bands"), Some(&Scalar::Ints(vec![4, 6])));
        assert_eq!(g.options.get("mode"), Some(&Scalar::Str("solo".into())));
        let e = missing_option(&g, "hnad");
        assert!(e.contains("scenario `s`") && e.contains("did you mean `hand`?"), "{e}");
        // Without a scenario the pack's own settings hold.
        let g = game(None);
        assert_eq!(g.options.get("hand"), Some(&Scalar::Int(5)));
        assert!(missing_option(&g, "mode").contains("the game (no scenario)"));
    }
}
