//! The cards a seat sees in the preview page's game (`crown serve`, `/play`): its own
//! zones and the public ones card by card, hidden piles by their counts, each card by the
//! face the seat may see.

use crown_engine::game::state::Visibility;
use crown_engine::game::Game;
use serde::Serialize;

/// A card as the seat sees it.
#[derive(Debug, Clone, Serialize)]
pub struct CardView {
    /// Its definition id, the name of its printed face (`/face/PACK/ID.svg`); empty when
    /// the seat may not see it.
    pub id: String,
    pub name: String,
    /// Cards tucked under it.
    pub under: Vec<CardView>,
    /// Its marks the pack shows (`show_marks` in pack.toml), in words: "worth 1".
    pub marks: Vec<String>,
    /// The card's number in the game (what an option's `card` field names), for a click
    /// on it to take the option; none for a card the seat may not see.
    pub card: Option<u32>,
}

/// A zone as the seat sees it.
#[derive(Debug, Clone, Serialize)]
pub struct ZoneView {
    pub label: String,
    /// How many cards it holds (all of them, shown or not).
    pub count: usize,
    /// The cards shown: every card of the seat's own zones, the top card of a shared pile.
    pub cards: Vec<CardView>,
}

/// The zones seat `viewer` can see cards of: its own zones and public ones whole (a large
/// shared pile by its top card and count), a hidden pile by its count only. Empty zones
/// are left out.
pub fn zones(g: &Game, viewer: usize) -> Vec<ZoneView> {
    let s = &g.state;
    let card = |c: u32| card_view(g, viewer, c, 0);
    let mut out = Vec::new();
    for z in s.zones.iter().filter(|z| !z.cards.is_empty()) {
        let mine = z.owner == Some(viewer as u8);
        let label = z.words(&s.players, viewer);
        let cards: Vec<CardView> = match (z.visibility, z.owner) {
            (Visibility::Hidden, _) => Vec::new(),
            (Visibility::Owner, _) if !mine => Vec::new(),
            // A large shared pile (a discard pile): its top card.
            (Visibility::Public, None) if z.cards.len() > 12 => {
                z.cards.last().map(|&c| vec![card(c)]).unwrap_or_default()
            }
            _ => z.cards.iter().map(|&c| card(c)).collect(),
        };
        out.push(ZoneView { label, count: z.cards.len(), cards });
    }
    out
}

fn card_view(g: &Game, viewer: usize, c: u32, depth: usize) -> CardView {
    let s = &g.state;
    let seen = g.can_see(viewer, c);
    let under = if depth < 4 {
        s.cards[c as usize].attached.iter().map(|&a| card_view(g, viewer, a, depth + 1)).collect()
    } else {
        Vec::new()
    };
    if !seen {
        return CardView { id: String::new(), name: "a face-down card".into(), under, marks: Vec::new(), card: None };
    }
    let card = &s.cards[c as usize];
    let marks = (g.pack.manifest.show_marks.iter())
        .filter_map(|(k, words)| card.marks.get(k).map(|v| format!("{words} {v}")))
        .collect();
    CardView {
        id: g.pack.defs[card.def as usize].def.id.clone(),
        name: g.card_name(c).to_string(),
        under,
        marks,
        card: Some(c),
    }
}
