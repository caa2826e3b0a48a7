//! What one seat can see of the table as a list of facts (scores, counters, the cards in
//! each zone or only their count, the pieces and numbers on each space, the squares of
//! each board), and what changed between two such lists, in words. A preview tells the
//! consequences of an option this way: the facts before it, the facts after it, the
//! difference. Nothing a seat cannot see enters its facts, so nothing hidden can leak
//! through a difference.

use std::collections::BTreeMap;

use super::state::Visibility;
use super::view::{folded, Table};
use crate::diag::count_words;

const FACE_DOWN: &str = "a face-down card";

/// One fact's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// A number the seat can read.
    Number(i64),
    /// Something told in words (a character, the pieces on a space, a square).
    Words(String),
    /// A zone: how many cards, and their names where the seat can read them all.
    Cards { count: usize, names: Option<Vec<String>> },
}

/// Everything one seat can see, in the order a person reads a table: each seat's score,
/// character and counters, the zones, the spaces, the boards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts(Vec<(String, Fact)>);

impl Table<'_> {
    /// What seat `viewer` can see of the table, fact by fact.
    pub fn facts(&self, viewer: usize) -> Facts {
        let s = self.state;
        let mut out = Vec::new();
        let shown = &self.pack.manifest.show_counters;
        for (i, p) in s.players.iter().enumerate() {
            let who = if i == viewer { "your".to_string() } else { format!("{}'s", p.name) };
            if p.score != 0 {
                out.push((format!("{who} score"), Fact::Number(p.score)));
            }
            if let Some(d) = p.character {
                out.push((format!("{who} character"), Fact::Words(self.pack.defs[d as usize].def.name.clone())));
            }
            if p.out {
                out.push((format!("{who} place"), Fact::Words("out of the game".into())));
            }
            for (k, v) in p.counters.iter() {
                let secret = i != viewer && p.hidden.iter().any(|h| h == k);
                if secret || !(shown.is_empty() || shown.iter().any(|x| x == k)) {
                    continue;
                }
                out.push((format!("{who} {}", self.counter_label(k)), Fact::Number(*v)));
            }
        }
        for z in s.zones.iter() {
            let readable = match z.visibility {
                Visibility::Public => true,
                Visibility::Owner => z.owner == Some(viewer as u8),
                Visibility::Hidden => false,
            };
            let names = readable.then(|| {
                z.cards
                    .iter()
                    .map(|&c| if self.can_see(viewer, c) { self.card_name(c).to_string() } else { FACE_DOWN.into() })
                    .collect()
            });
            out.push((z.words(&s.players, viewer), Fact::Cards { count: z.cards.len(), names }));
        }
        let mut on: BTreeMap<u32, BTreeMap<String, usize>> = BTreeMap::new();
        for pc in s.pieces.iter() {
            if let Some(sp) = pc.space {
                let owner = usize::try_from(pc.owner).ok().and_then(|o| s.players.get(o));
                let what = match owner {
                    Some(o) => format!("{} ({})", pc.kind.replace(['-', '_'], " "), o.name),
                    None => pc.kind.replace(['-', '_'], " "),
                };
                *on.entry(sp).or_default().entry(what).or_default() += 1;
            }
        }
        for (i, sp) in s.spaces.iter().enumerate() {
            let name = match sp.board.and_then(|b| s.boards.get(b as usize).map(|bd| (b, bd))) {
                Some((b, bd)) => {
                    let k = i as i64 - i64::from(bd.first);
                    format!("{} {}", s.board_words(b as usize, viewer), super::boards::square_name(k % bd.w, k / bd.w))
                }
                None => sp.name.clone(),
            };
            if let Some(pcs) = on.get(&(i as u32)) {
                let words: Vec<String> = pcs.iter().map(|(w, n)| format!("{n} {w}")).collect();
                out.push((format!("on {name}"), Fact::Words(words.join(", "))));
            }
            if sp.board.is_some() {
                // A square: what lies on it, in words ("forest, crowns 1").
                let mut words: Vec<String> = sp.attrs.values().cloned().collect();
                words.extend(sp.values.iter().filter(|(_, v)| **v != 0).map(|(k, v)| format!("{k} {v}")));
                if !words.is_empty() {
                    out.push((name, Fact::Words(words.join(", "))));
                }
            } else {
                for (k, v) in sp.values.iter() {
                    out.push((format!("{name} {k}"), Fact::Number(*v)));
                }
            }
        }
        Facts(out)
    }
}

impl Facts {
    /// Whether the seat cannot read some card (a hidden pile, a rival's hand, a card face
    /// down): what a preview deals again at random.
    pub fn hides_cards(&self) -> bool {
        self.0.iter().any(|(_, f)| match f {
            Fact::Cards { count, names: None } => *count > 0,
            Fact::Cards { names: Some(n), .. } => n.iter().any(|x| x == FACE_DOWN),
            _ => false,
        })
    }

    /// What changed from `self` to `after`, one line each, in the order of `after` (then
    /// what is gone): "your wood 3 → 1", "your hand: + Cavalry, − Dawn Raid (5 cards)",
    /// "P2's hand 5 → 4 cards", "on Mercia: 1 danes (P1) → 2 danes (P1)".
    pub fn changes(&self, after: &Facts) -> Vec<String> {
        let before: BTreeMap<&str, &Fact> = self.0.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let now: BTreeMap<&str, &Fact> = after.0.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut out = Vec::new();
        for (k, v) in &after.0 {
            match before.get(k.as_str()) {
                Some(b) if *b == v => {}
                Some(b) => out.push(changed(k, b, v)),
                None => out.push(changed(k, &empty_like(v), v)),
            }
        }
        for (k, v) in &self.0 {
            if !now.contains_key(k.as_str()) {
                out.push(changed(k, v, &empty_like(v)));
            }
        }
        out.retain(|l| !l.is_empty());
        out
    }
}

/// What a fact is when there is none of it: no number, no words, no cards.
fn empty_like(f: &Fact) -> Fact {
    match f {
        Fact::Number(_) => Fact::Number(0),
        Fact::Words(_) => Fact::Words(String::new()),
        Fact::Cards { names, .. } => Fact::Cards { count: 0, names: names.as_ref().map(|_| Vec::new()) },
    }
}

fn changed(key: &str, was: &Fact, is: &Fact) -> String {
    match (was, is) {
        (Fact::Number(a), Fact::Number(b)) if a != b => format!("{key} {a} → {b}"),
        (Fact::Words(a), Fact::Words(b)) if a != b => match (a.is_empty(), b.is_empty()) {
            (true, _) => format!("{key}: {b}"),
            (_, true) => format!("{key}: no longer {a}"),
            _ => format!("{key}: {a} → {b}"),
        },
        (Fact::Cards { count: a, names: Some(x) }, Fact::Cards { count: b, names: Some(y) }) if x != y => {
            let (gained, lost) = (missing(y, x), missing(x, y));
            let mut parts = Vec::new();
            if !gained.is_empty() {
                parts.push(format!("+ {}", folded(&gained)));
            }
            if !lost.is_empty() {
                parts.push(format!("− {}", folded(&lost)));
            }
            if parts.is_empty() {
                // The same cards in another order.
                return format!("{key}: the same cards in another order");
            }
            // The count, where it is not plain from the names.
            let n = if a == b || *a == 0 || *b == 0 {
                String::new()
            } else {
                format!(" ({})", count_words(*b as i64, "card", None))
            };
            format!("{key}: {}{n}", parts.join(", "))
        }
        (Fact::Cards { count: a, .. }, Fact::Cards { count: b, .. }) if a != b => {
            format!("{key} {a} → {}", count_words(*b as i64, "card", None))
        }
        _ => String::new(),
    }
}

/// The names of `xs` that `ys` lacks, counting repeats (`[A, A, B] - [A]` is `[A, B]`).
fn missing(xs: &[String], ys: &[String]) -> Vec<String> {
    let mut left: BTreeMap<&str, usize> = BTreeMap::new();
    for y in ys {
        *left.entry(y.as_str()).or_default() += 1;
    }
    let mut out = Vec::new();
    for x in xs {
        match left.get_mut(x.as_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(x.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(v: Vec<(&str, Fact)>) -> Facts {
        Facts(v.into_iter().map(|(k, f)| (k.to_string(), f)).collect())
    }

    fn cards(names: &[&str]) -> Fact {
        Fact::Cards { count: names.len(), names: Some(names.iter().map(|s| s.to_string()).collect()) }
    }

    /// Numbers, words and cards each tell what changed; what did not change says nothing;
    /// a zone the seat cannot read tells only its count.
    #[test]
    fn changes_are_told_fact_by_fact() {
        let a = facts(vec![
            ("your wood", Fact::Number(3)),
            ("your hand", cards(&["Cavalry", "Dawn Raid", "Gold"])),
            ("P2's hand", Fact::Cards { count: 5, names: None }),
            ("on Mercia", Fact::Words("1 danes (P1)".into())),
            ("your stone", Fact::Number(2)),
        ]);
        let b = facts(vec![
            ("your wood", Fact::Number(1)),
            ("your hand", cards(&["Gold", "Knights"])),
            ("P2's hand", Fact::Cards { count: 4, names: None }),
            ("on Mercia", Fact::Words("2 danes (P1)".into())),
            ("your stone", Fact::Number(2)),
            ("on Kent", Fact::Words("1 danes (P1)".into())),
        ]);
        assert_eq!(
            a.changes(&b),
            [
                "your wood 3 → 1",
                "your hand: + Knights, − Cavalry, Dawn Raid (2 cards)",
                "P2's hand 5 → 4 cards",
                "on Mercia: 1 danes (P1) → 2 danes (P1)",
                "on Kent: 1 danes (P1)",
            ]
        );
        assert_eq!(b.changes(&a).last().map(String::as_str), Some("on Kent: no longer 1 danes (P1)"));
        assert!(a.changes(&a).is_empty());
    }
}
