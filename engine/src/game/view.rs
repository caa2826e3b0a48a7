//! What one seat can see of the table: which cards it may read, its own counters and
//! cards in a stable order. Used by the terminal, the browser table and the rules'
//! render hooks (through the layout helpers of the script API).

use super::state::{State, Visibility, NO_ZONE};
use super::Game;
use crate::content::model::StagePosition;
use crate::content::Pack;

/// A game's table as it stands: the pack and the state, read together (what a game's
/// listener is handed with each line).
#[derive(Clone, Copy)]
pub struct Table<'a> {
    pub pack: &'a Pack,
    pub state: &'a State,
}

impl Game {
    /// The table as it stands.
    pub fn table(&self) -> Table<'_> {
        Table { pack: &self.pack, state: &self.state }
    }

    /// See [`Table::card_name`].
    pub fn card_name(&self, c: u32) -> &str {
        self.table().card_name(c)
    }

    /// See [`Table::can_see`].
    pub fn can_see(&self, viewer: usize, c: u32) -> bool {
        self.table().can_see(viewer, c)
    }

    /// See [`Table::counter_label`].
    pub fn counter_label<'a>(&'a self, key: &'a str) -> &'a str {
        self.pack.manifest.counter_names.get(key).map_or(key, String::as_str)
    }

    /// See [`Table::counters_text`].
    pub fn counters_text(&self, p: usize, viewer: usize) -> String {
        self.table().counters_text(p, viewer)
    }

    /// See [`Table::names_text`].
    pub fn names_text(&self, cards: &[u32], viewer: usize) -> String {
        self.table().names_text(cards, viewer)
    }

    /// See [`Table::status`].
    pub fn status(&self, viewer: usize) -> String {
        self.table().status(viewer)
    }
}

impl<'a> Table<'a> {
    /// The name on the face of a card that is up: its stage's, its back's when turned
    /// over, else its definition's.
    pub fn card_name(&self, c: u32) -> &'a str {
        let card = &self.state.cards[c as usize];
        let d = &self.pack.defs[card.def as usize].def;
        if let Some(st) = d.stages.iter().find(|s| s.position == card.stage) {
            return &st.name;
        }
        let back = matches!(card.stage, StagePosition::BackTop | StagePosition::BackBottom);
        match d.back.as_ref().filter(|b| back && d.stages.is_empty() && !b.name.is_empty()) {
            Some(b) => &b.name,
            None => &d.name,
        }
    }

    /// Whether seat `viewer` may read card `c`: it lies (or is attached under a card that
    /// lies) in a public zone or a zone the viewer owns and may see, and it is face up or
    /// the viewer's own. Cards in hidden zones (a deck) and cards out of the game are not.
    pub fn can_see(&self, viewer: usize, c: u32) -> bool {
        let s = &self.state;
        let Some(card) = s.cards.get(c as usize) else { return false };
        let z = s.effective_zone(c);
        if z == NO_ZONE {
            return false;
        }
        let zone = &s.zones[z as usize];
        let zone_ok = match zone.visibility {
            Visibility::Public => true,
            Visibility::Owner => zone.owner == Some(viewer as u8),
            Visibility::Hidden => false,
        };
        zone_ok && (card.face_up || card.owner == Some(viewer as u8))
    }

    /// How the pack names a counter (`counter_names` in pack.toml), else its key.
    pub fn counter_label<'k>(&self, key: &'k str) -> &'k str
    where
        'a: 'k,
    {
        self.pack.manifest.counter_names.get(key).map_or(key, String::as_str)
    }

    /// Player `p`'s counters as `viewer` sees them: the pack's `show_counters` in their
    /// order (every counter the player has when the pack names none), `label value`,
    /// with `?` for a counter `p` keeps behind a screen when `viewer` is someone else.
    pub fn counters_text(&self, p: usize, viewer: usize) -> String {
        let Some(pl) = self.state.players.get(p) else { return String::new() };
        let shown = &self.pack.manifest.show_counters;
        let keys: Vec<&str> = if shown.is_empty() {
            pl.counters.keys().map(String::as_str).collect()
        } else {
            shown.iter().map(String::as_str).collect()
        };
        let parts: Vec<String> = keys
            .iter()
            .map(|k| {
                let label = self.counter_label(k);
                if p != viewer && pl.hidden.iter().any(|h| h == k) {
                    format!("{label} ?")
                } else {
                    format!("{label} {}", pl.counters.get(k).copied().unwrap_or(0))
                }
            })
            .collect();
        parts.join(", ")
    }

    /// Card names as `viewer` may read them ("a face-down card" otherwise), in the order
    /// given, repeats of a name folded into the first (`Deny ×2`).
    pub fn names_text(&self, cards: &[u32], viewer: usize) -> String {
        let names: Vec<String> =
            cards
                .iter()
                .filter(|&&c| (c as usize) < self.state.cards.len())
                .map(|&c| {
                    if self.can_see(viewer, c) {
                        self.card_name(c).to_string()
                    } else {
                        "a face-down card".to_string()
                    }
                })
                .collect();
        folded(&names)
    }

    /// What seat `viewer` could not see while the game was played and is shown once it is
    /// over, a line each: the cards of a rival's own zones and the cards lying face down
    /// (by zone, "P2's hand: Deny ×2, Land"), and the counters a rival kept behind a
    /// screen ("P2's victory points 86"; of the counters the pack shows, `show_counters`).
    /// Piles nobody reads (a deck's order) stay as they are.
    pub fn revealed(&self, viewer: usize) -> Vec<String> {
        let s = self.state;
        let mut out = Vec::new();
        for z in s.zones.iter().filter(|z| z.visibility != Visibility::Hidden) {
            let unseen: Vec<String> =
                z.cards.iter().filter(|&&c| !self.can_see(viewer, c)).map(|&c| self.card_name(c).to_string()).collect();
            if !unseen.is_empty() {
                out.push(format!("{}: {}", z.words(&s.players, viewer), folded(&unseen)));
            }
        }
        for (i, p) in s.players.iter().enumerate() {
            if i == viewer {
                continue;
            }
            let shown = &self.pack.manifest.show_counters;
            for k in p.hidden.iter().filter(|k| shown.is_empty() || shown.contains(k)) {
                if let Some(v) = p.counters.get(k) {
                    out.push(format!("{}'s {} {v}", p.name, self.counter_label(k)));
                }
            }
        }
        out
    }

    /// What a seat is shown before each of its decisions when the rules draw no status
    /// of their own (`render_status`): its counters, then each zone of its own with cards
    /// in it, oldest card first (a hand keeps its order from one decision to the next).
    pub fn status(&self, viewer: usize) -> String {
        let s = &self.state;
        let Some(me) = s.players.get(viewer) else { return String::new() };
        let ch = me.character.map(|d| self.pack.defs[d as usize].def.name.as_str());
        let mut out = format!(
            "You are {}{}: {}\n",
            me.name,
            ch.map(|c| format!(" ({c})")).unwrap_or_default(),
            self.counters_text(viewer, viewer)
        );
        // Where the turn stands, as far as the rules keep it with the engine.
        let t = &s.turns;
        let mut at: Vec<String> = Vec::new();
        if t.round > 0 {
            at.push(self.pack.manifest.round_name(t.round));
        }
        if let Some(ph) = &t.phase {
            at.push(format!("{ph} phase"));
        }
        if let Some(p) = t.current.filter(|&p| p < s.players.len()) {
            at.push(if p == viewer { "your turn".to_string() } else { format!("{} to play", s.players[p].name) });
        }
        if let Some(first) = at.first_mut() {
            // "Round 2, play phase, your turn" (a phase or seat name may start with any letter).
            if let Some(c) = first.chars().next() {
                first.replace_range(..c.len_utf8(), &c.to_uppercase().to_string());
            }
            out.push_str(&format!("  {}\n", at.join(", ")));
        }
        for z in s.zones.iter().filter(|z| z.owner == Some(viewer as u8) && !z.cards.is_empty()) {
            out.push_str(&format!("  your {}: {}\n", z.name, self.names_text(&z.cards, viewer)));
        }
        // Each seat's board (and any shared one), drawn from the data.
        out.push_str(&s.boards_text(viewer, &super::boards::terrain_letters(self.pack)));
        out
    }
}

/// Names in their order, repeats folded into the first ("Deny ×2, Land").
pub fn folded(names: &[String]) -> String {
    let mut out: Vec<(&str, usize)> = Vec::new();
    for n in names {
        match out.iter_mut().find(|(m, _)| *m == n) {
            Some(e) => e.1 += 1,
            None => out.push((n, 1)),
        }
    }
    let parts: Vec<String> =
        out.into_iter().map(|(n, k)| if k > 1 { format!("{n} ×{k}") } else { n.to_string() }).collect();
    parts.join(", ")
}

/// Text rows laid out in columns, each as wide as its widest cell (counted in
/// characters), two spaces apart, trailing spaces trimmed.
pub fn columns(rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for r in rows {
        for (i, cell) in r.iter().enumerate() {
            let w = cell.chars().count();
            if widths.len() <= i {
                widths.push(w);
            } else if widths[i] < w {
                widths[i] = w;
            }
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if i + 1 < r.len() {
                line.push_str(&" ".repeat(widths[i] - cell.chars().count()));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up() {
        let rows = vec![
            vec!["Wessex".to_string(), "2 Danes".to_string(), "peace".to_string()],
            vec!["Kent".to_string(), "10 West Saxons".to_string()],
        ];
        assert_eq!(columns(&rows), "Wessex  2 Danes         peace\nKent    10 West Saxons\n");
    }
}
