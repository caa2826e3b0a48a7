//! Host functions: Zones and moving cards between them.

use super::*;

pub(super) fn register(e: &mut Registrar) {
    e.section("Zones");
    // A zone is made the first time it is named; its number never changes after that.
    e.register_fn(
        "zone(name)",
        "A shared zone (created on first use): `deck`, `discard`, `market`... Zones named `deck`, `*deck`, `box` \
         and `bag` are hidden; others public.",
        |name: ImmutableString| zone_named(None, &name),
    );
    e.register_fn(
        "pzone(p, name)",
        "A player's zone: `hand` (seen by its owner only), `kingdom`, `play`...",
        |p: i64, name: ImmutableString| {
            let p = settled(|g| pl(g, p))?;
            zone_named(Some(p as u8), &name)
        },
    );
    e.register_fn("cards(z)", "Card ids in the zone, top first.", |z: i64| {
        read(|g| {
            Ok(g.state.zones[zn(g, z)? as usize]
                .cards
                .iter()
                .rev()
                .map(|&c| Dynamic::from(i64::from(c)))
                .collect::<Array>())
        })
    });
    e.register_fn(
        "cards_up(z)",
        "Card ids in the zone, bottom first (the order they were put there, for piles that grow upwards).",
        |z: i64| {
            read(|g| {
                Ok(g.state.zones[zn(g, z)? as usize]
                    .cards
                    .iter()
                    .map(|&c| Dynamic::from(i64::from(c)))
                    .collect::<Array>())
            })
        },
    );
    e.register_fn("count(z)", "Number of cards in the zone.", |z: i64| {
        read(|g| Ok(g.state.zones[zn(g, z)? as usize].cards.len() as i64))
    });
    e.register_fn("top(z)", "The top card, or -1 when empty.", |z: i64| {
        read(|g| Ok(g.state.zones[zn(g, z)? as usize].cards.last().map_or(-1, |&c| i64::from(c))))
    });
    e.register_fn("bottom(z)", "The bottom card, or -1 when empty.", |z: i64| {
        read(|g| Ok(g.state.zones[zn(g, z)? as usize].cards.first().map_or(-1, |&c| i64::from(c))))
    });
    e.register_fn(
        "move_card(c, z)",
        "Put a card on top of a zone (detaching it if it was attached); logged. Cards attached under it come along.",
        |c: i64, z: i64| move_card(c, z, false),
    );
    e.register_fn("move_bottom(c, z)", "Put a card at the bottom of a zone; logged.", |c: i64, z: i64| {
        move_card(c, z, true)
    });
    e.register_fn(
        "draw(from, to)",
        "Move the top card of `from` to the top of `to`; returns it, or -1 when `from` is empty.",
        |from: i64, to: i64| -> R<i64> {
            let top = read(|g| Ok(g.state.zones[zn(g, from)? as usize].cards.last().map_or(-1, |&c| i64::from(c))))?;
            if top >= 0 {
                move_card(top, to, false)?;
            }
            Ok(top)
        },
    );
    e.register_fn("shuffle(z)", "Shuffle a zone with the game's random generator; logged.", |z: i64| {
        with(|g| {
            let z = zn(g, z)?;
            let mut cards = std::mem::take(&mut g.state.zones[z as usize].cards);
            match &mut g.rollout_luck {
                Some(luck) => luck.shuffle(z, &mut cards),
                None => g.state.rng.shuffle(&mut cards),
            }
            let n = cards.len();
            g.state.zones[z as usize].cards = cards;
            g.log(|s| format!("shuffle {} ({n} cards)", s.zone_label(z)));
            Ok(())
        })
    });
    e.register_fn("zone_of(c)", "The zone a card is in (for an attached card, its host's zone), or -1.", |c: i64| {
        read(|g| {
            let c = cd(g, c)?;
            let z = g.state.effective_zone(c);
            Ok(if z == NO_ZONE { -1 } else { i64::from(z) })
        })
    });
    e.register_fn("zone_name(z)", "The zone's name.", |z: i64| {
        read(|g| Ok(g.state.zones[zn(g, z)? as usize].name.clone()))
    });
    e.register_fn("zone_owner(z)", "The owning player, or -1 for a shared zone.", |z: i64| {
        read(|g| Ok(g.state.zones[zn(g, z)? as usize].owner.map_or(-1, i64::from)))
    });
    e.register_fn(
        "set_active(z, on)",
        "Cards in an active zone (and cards attached under them) take part in `fold`.",
        |z: i64, on: bool| {
            with(|g| {
                let z = zn(g, z)?;
                g.state.zones[z as usize].active = on;
                Ok(())
            })
        },
    );
    e.register_fn(
        "set_visibility(z, v)",
        "`public`, `owner` or `hidden`: who sees the zone's cards from now on (pack.toml's `[zones]` says who sees \
         each zone from the start).",
        |z: i64, v: ImmutableString| {
            with(|g| {
                let z = zn(g, z)?;
                g.state.zones[z as usize].visibility = zone_visibility(&v)?;
                Ok(())
            })
        },
    );
    e.register_fn(
        "find_in(z, id)",
        "The topmost card of definition `id` in the zone, or -1.",
        |z: i64, id: ImmutableString| {
            read(|g| {
                let z = zn(g, z)?;
                let d = def_idx(g, &id)?;
                Ok(g.state.zones[z as usize]
                    .cards
                    .iter()
                    .rev()
                    .find(|&&c| g.state.cards[c as usize].def == d)
                    .map_or(-1, |&c| i64::from(c)))
            })
        },
    );
    e.register_fn("remove_card(c)", "Take a card out of the game (destroyed, returned to the box).", |c: i64| {
        with(|g| {
            let c = cd(g, c)?;
            let from = g.state.effective_zone(c);
            g.state.detach_from_place(c);
            g.log(|s| format!("remove {} from {} (out of the game)", card_ref_s(s, c), s.zone_label(from)));
            Ok(())
        })
    });
}

/// The zone `name` (of seat `owner`), made if it is named for the first time.
fn zone_named(owner: Option<u8>, name: &str) -> R<i64> {
    match settled(|g| Ok(g.state.find_zone(owner, name)))? {
        Some(z) => Ok(i64::from(z)),
        None => with(|g| Ok(i64::from(g.state.zone_id(owner, name)))),
    }
}
