//! Argument checks of the host functions (a player, card, zone, space, piece or
//! definition that exists) and what they read off a card: the face up, its values and keywords.

use rhai::{Array, Dynamic};

use crate::content::model::StagePosition;
use crate::game::state::Visibility;
use crate::game::{card_ref, Game};

pub(super) fn pl(g: &Game, p: i64) -> Result<usize, String> {
    if p >= 0 && (p as usize) < g.state.players.len() {
        Ok(p as usize)
    } else {
        Err(format!("no player {p} (players are 0 to {})", g.state.players.len() as i64 - 1))
    }
}

pub(super) fn cd(g: &Game, c: i64) -> Result<u32, String> {
    if c >= 0 && (c as usize) < g.state.cards.len() {
        Ok(c as u32)
    } else {
        Err(format!("no card {c}"))
    }
}

pub(super) fn zn(g: &Game, z: i64) -> Result<u32, String> {
    if z >= 0 && (z as usize) < g.state.zones.len() {
        Ok(z as u32)
    } else {
        Err(format!("no zone {z}"))
    }
}

pub(super) fn sp(g: &Game, s: i64) -> Result<u32, String> {
    if s >= 0 && (s as usize) < g.state.spaces.len() {
        Ok(s as u32)
    } else {
        Err(format!("no board space {s}"))
    }
}

pub(super) fn pc(g: &Game, p: i64) -> Result<usize, String> {
    if p >= 0 && (p as usize) < g.state.pieces.len() {
        Ok(p as usize)
    } else {
        Err(format!("no piece {p}"))
    }
}

pub(super) fn def_idx(g: &Game, id: &str) -> Result<u32, String> {
    g.pack.words().by_id.get(id).copied().ok_or_else(|| {
        let hint = crate::diag::did_you_mean(id, g.pack.defs.iter().map(|d| d.def.id.as_str()))
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        format!("no definition `{id}`{hint}")
    })
}

pub(super) fn stage_of(g: &Game, c: u32) -> Option<&crate::content::model::Stage> {
    let card = &g.state.cards[c as usize];
    let d = &g.pack.defs[card.def as usize].def;
    d.stages.iter().find(|s| s.position == card.stage)
}

/// The back face of a two-sided card (a definition with a `back` table and no stages)
/// when it is the side up.
pub(super) fn back_up(g: &Game, c: u32) -> Option<&crate::content::model::Face> {
    let card = &g.state.cards[c as usize];
    let d = &g.pack.defs[card.def as usize].def;
    let back = matches!(card.stage, StagePosition::BackTop | StagePosition::BackBottom);
    d.back.as_ref().filter(|_| back && d.stages.is_empty())
}

/// A card's value on the face that is up: its current stage's (if it has stages), its
/// back's (when turned over), else its definition's; plus one for every sticker of that
/// name. `None` when the face holds no such value and no sticker names it.
pub(super) fn card_value(g: &Game, c: u32, k: &str) -> Option<i64> {
    let card = &g.state.cards[c as usize];
    // The face up: a stage, else the back when turned over, else the definition (looked
    // at in that order, only as far as needed: this is the hottest host function).
    let base = match stage_of(g, c) {
        Some(st) => st.values.get(k).copied(),
        None => match back_up(g, c) {
            Some(b) => b.values.get(k).copied(),
            None => g.pack.defs[card.def as usize].def.values.get(k).copied(),
        },
    };
    let stickers = card.stickers.iter().filter(|s| s.as_str() == k).count() as i64;
    match base {
        Some(v) => Some(v + stickers),
        None if stickers > 0 => Some(stickers),
        None => None,
    }
}

/// Which face of a card is up, for messages: `front`, `back` or the stage's position.
fn face_word(g: &Game, c: u32) -> &'static str {
    match stage_of(g, c) {
        Some(st) => st.position.as_str(),
        None if back_up(g, c).is_some() => "back",
        None => "front",
    }
}

/// `value(c, k)`: a value the face up lacks is an error naming the card and the face.
pub(super) fn strict_value(g: &Game, c: u32, k: &str) -> Result<i64, String> {
    card_value(g, c, k).ok_or_else(|| {
        format!(
            "{} has no value `{k}` on its {} face; use value_or(c, \"{k}\", 0) where it may be missing",
            card_ref(&g.pack, &g.state, c),
            face_word(g, c)
        )
    })
}

/// Whether the card's definition or its current stage has keyword `k`.
pub(super) fn card_has_keyword(g: &Game, c: u32, k: &str) -> bool {
    let d = &g.pack.defs[g.state.cards[c as usize].def as usize].def;
    stage_of(g, c).is_some_and(|s| s.keywords.iter().any(|x| x == k)) || d.keywords.iter().any(|x| x == k)
}

pub(super) fn zone_visibility(s: &str) -> Result<Visibility, String> {
    Ok(match s {
        "public" => Visibility::Public,
        "owner" => Visibility::Owner,
        "hidden" => Visibility::Hidden,
        _ => return Err(format!("visibility `{s}` is not public, owner or hidden")),
    })
}

pub(super) fn ints(a: Vec<u32>) -> Array {
    a.into_iter().map(|x| Dynamic::from(i64::from(x))).collect()
}
