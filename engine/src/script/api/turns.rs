//! Host functions: Turns: whose turn it is, the next seat, passing, rounds and phases.
//!
//! Plumbing only: the rules decide when a seat plays, when a round ends and what passing
//! means; the engine keeps the answers ([`crate::game::state::Turns`]) and names every
//! change in the transcript the same way for every pack.

use super::*;

pub(super) fn register(e: &mut Registrar) {
    e.section("Turns");
    e.register_fn(
        "current()",
        "The seat whose turn it is. An error until the rules give the turn with `set_current`.",
        || {
            read(|g| {
                g.state.turns.current.map(|p| p as i64).ok_or_else(|| {
                    "no seat has the turn yet: the rules give it with `set_current(p)` (in `setup()`, say)".to_string()
                })
            })
        },
    );
    e.register_fn(
        "has_turn(p)",
        "Whether seat `p` has the turn (false for every seat until `set_current`): for a status line.",
        |p: i64| read(|g| Ok(g.state.turns.current == Some(pl(g, p)?))),
    );
    e.register_fn("set_current(p)", "Give seat `p` the turn (the transcript says `turn: NAME`).", |p: i64| {
        with(|g| {
            set_current(g, pl(g, p)?);
            Ok(())
        })
    });
    e.register_fn(
        "next_seat(p)",
        "The seat after `p` in seat order (wrapping) that is neither out of the game nor withdrawn; `p` itself when \
         there is none.",
        |p: i64| read(|g| Ok(g.state.next_seat(pl(g, p)?) as i64)),
    );
    e.register_fn("advance()", "Give the turn to `next_seat(current())`, and return that seat.", || {
        with(|g| {
            let p = g.state.turns.current.ok_or("`advance()`: no seat has the turn yet (`set_current(p)` first)")?;
            let q = g.state.next_seat(p);
            set_current(g, q);
            Ok(q as i64)
        })
    });
    e.register_fn("first_seat()", "The seat that opens a round (0 until `set_first`).", || {
        read(|g| Ok(g.state.turns.first as i64))
    });
    e.register_fn("set_first(p)", "Make `p` the seat that opens a round.", |p: i64| {
        with(|g| {
            let p = pl(g, p)?;
            if g.state.turns.first != p {
                g.state.turns.first = p;
                g.log(|s| format!("first seat: {}", s.players[p].name));
            }
            Ok(())
        })
    });
    e.register_fn("round()", "The round number: 0 until the rules start one.", || read(|g| Ok(g.state.turns.round)));
    e.register_fn(
        "round_name(n)",
        "What the game calls round `n`: its entry in pack.toml's `round_names` (`round II`), else `round n`. The \
         engine's own lines and the status use it.",
        |n: i64| read(|g| Ok(g.pack.manifest.round_name(n))),
    );
    e.register_fn("set_round(n)", "Set the round number (0 or more).", |n: i64| with(|g| set_round(g, n)));
    e.register_fn("next_round()", "Add one to the round number, and return it.", || {
        with(|g| {
            let n = g.state.turns.round.saturating_add(1);
            set_round(g, n)?;
            Ok(n)
        })
    });
    e.register_fn(
        "pass(p)",
        "Seat `p` passes: `has_passed(p)` until `clear_passes()` or `reset_passes()`. The rules say what a pass \
         means (and narrate it).",
        |p: i64| with(|g| mark_pass(g, p, false)),
    );
    e.register_fn(
        "withdraw(p)",
        "Seat `p` passes for good: passed until `reset_passes()`, and skipped by `next_seat` and `advance` \
         meanwhile.",
        |p: i64| with(|g| mark_pass(g, p, true)),
    );
    e.register_fn("has_passed(p)", "Whether `p` has passed or withdrawn.", |p: i64| {
        read(|g| Ok(g.state.turns.has_passed(pl(g, p)?)))
    });
    e.register_fn("has_withdrawn(p)", "Whether `p` has withdrawn.", |p: i64| {
        read(|g| Ok(g.state.turns.has_withdrawn(pl(g, p)?)))
    });
    e.register_fn("all_passed()", "Whether every seat still in the game has passed or withdrawn.", || {
        read(|g| Ok(g.state.all_passed()))
    });
    e.register_fn("last_passer()", "The seat that passed or withdrew last since the passes were reset, or -1.", || {
        read(|g| Ok(g.state.turns.last_passer.map_or(-1, |p| p as i64)))
    });
    e.register_fn(
        "clear_passes()",
        "Forget the passes (a seat acted, so everyone may act again); withdrawn seats stay withdrawn.",
        || {
            with(|g| {
                if g.state.turns.passed != 0 {
                    g.state.turns.passed = 0;
                    g.log(|_| "passes cleared".to_string());
                }
                Ok(())
            })
        },
    );
    e.register_fn(
        "reset_passes()",
        "Forget the passes and withdrawals, and who passed last (a new round of passing).",
        || {
            with(|g| {
                let t = &mut g.state.turns;
                if t.passed != 0 || t.withdrawn != 0 || t.last_passer.is_some() {
                    t.passed = 0;
                    t.withdrawn = 0;
                    t.last_passer = None;
                    g.log(|_| "passes reset".to_string());
                }
                Ok(())
            })
        },
    );
    e.register_fn("phase()", "The phase of the round. An error until the rules set one.", || {
        read(|g| {
            g.state
                .turns
                .phase
                .clone()
                .ok_or_else(|| "no phase yet: the rules set one with `set_phase(name)` (in `setup()`, say)".to_string())
        })
    });
    e.register_fn(
        "set_phase(name)",
        "Set the phase: one of the names pack.toml's `phases` lists (an unknown name is an error, and `crown check` \
         finds literal ones).",
        |name: ImmutableString| {
            with(|g| {
                declared_phase(g, "set_phase", &name)?;
                set_phase(g, name.to_string());
                Ok(())
            })
        },
    );
    e.register_fn("is_phase(name)", "Whether the phase is `name` (a name `phases` lists).", |name: ImmutableString| {
        read(|g| {
            declared_phase(g, "is_phase", &name)?;
            Ok(g.state.turns.phase.as_deref() == Some(name.as_str()))
        })
    });
    e.register_fn(
        "next_phase()",
        "Move to the next phase `phases` lists (the first when none is set; after the last, the first again), and \
         return it.",
        || {
            with(|g| {
                let phases = &g.pack.manifest.phases;
                let Some(first) = phases.first() else {
                    return Err("`next_phase()`: pack.toml declares no `phases`".to_string());
                };
                let next = match &g.state.turns.phase {
                    Some(now) => {
                        let i = phases.iter().position(|x| x == now).unwrap_or(phases.len() - 1);
                        phases[(i + 1) % phases.len()].clone()
                    }
                    None => first.clone(),
                };
                set_phase(g, next.clone());
                Ok(next)
            })
        },
    );
}

/// Give seat `p` the turn. Every call is written (`turn: NAME`), also when the same seat
/// acts again, so a reader of the transcript can follow the turns.
fn set_current(g: &mut Game, p: usize) {
    g.state.turns.current = Some(p);
    g.state.turns.owner.get_or_insert(p);
    g.log(|s| format!("turn: {}", s.players[p].name));
}

fn set_round(g: &mut Game, n: i64) -> Result<(), String> {
    if n < 0 {
        return Err(format!("set_round({n}): rounds count from 0"));
    }
    if g.state.turns.round != n {
        g.state.turns.round = n;
        g.state.turns.round_turn = g.state.turn;
        g.tally.begin_round(n, g.state.turn);
        let name = g.pack.manifest.round_name(n);
        g.log(|_| name);
    }
    Ok(())
}

fn mark_pass(g: &mut Game, p: i64, withdraw: bool) -> Result<(), String> {
    let p = pl(g, p)?;
    let t = &mut g.state.turns;
    let bit = 1u64 << p;
    let before = (t.passed, t.withdrawn);
    if withdraw {
        t.withdrawn |= bit;
    } else {
        t.passed |= bit;
    }
    t.last_passer = Some(p);
    if before != (t.passed, t.withdrawn) {
        let what = if withdraw { "withdraws" } else { "passes" };
        g.log(|s| format!("{} {what}", s.players[p].name));
    }
    Ok(())
}

fn set_phase(g: &mut Game, name: String) {
    if g.state.turns.phase.as_deref() != Some(name.as_str()) {
        g.log(|_| format!("phase: {name}"));
        g.state.turns.phase = Some(name);
    }
}

/// A phase name must be one pack.toml's `phases` declares.
fn declared_phase(g: &Game, f: &str, name: &str) -> Result<(), String> {
    let phases = &g.pack.manifest.phases;
    if phases.iter().any(|x| x == name) {
        return Ok(());
    }
    if phases.is_empty() {
        return Err(format!(
            "`{f}(\"{name}\")`: pack.toml declares no `phases` (list them: `phases = [\"{name}\", ...]`)"
        ));
    }
    let near = crate::diag::did_you_mean(name, phases.iter().map(String::as_str));
    Err(format!(
        "`{f}(\"{name}\")`: no phase `{name}` in pack.toml's `phases` ({}){}",
        phases.join(", "),
        near.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default()
    ))
}
