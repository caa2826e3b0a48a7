//! Values written as words in the reference: player counts, numbers, costs, stage
//! positions, and the slugs of anchors.

use std::collections::BTreeMap;

use crown_engine::content::model::{Scalar, StagePosition};

use crate::util::label;

/// `1 player`, `2–4 players`: a player count with its noun.
pub fn players_phrase(min: i64, max: i64) -> String {
    let n = players_text(min, max);
    if max == 1 {
        format!("{n} player")
    } else {
        format!("{n} players")
    }
}

pub fn players_text(min: i64, max: i64) -> String {
    if min == max {
        format!("{min}")
    } else {
        format!("{min}–{max}")
    }
}

pub(super) fn scalar(s: &Scalar) -> String {
    s.to_string()
}

pub(super) fn numbers_text(map: &BTreeMap<String, i64>) -> String {
    map.iter().map(|(k, v)| format!("{} {v}", label(k))).collect::<Vec<_>>().join(", ")
}

pub(super) fn cost_text(map: &BTreeMap<String, i64>) -> String {
    map.iter().map(|(k, v)| format!("{v} {}", k.replace(['-', '_'], " "))).collect::<Vec<_>>().join(", ")
}

pub(super) fn stage_label(p: StagePosition) -> &'static str {
    match p {
        StagePosition::FrontTop => "Front, top",
        StagePosition::FrontBottom => "Front, bottom",
        StagePosition::BackTop => "Back, top",
        StagePosition::BackBottom => "Back, bottom",
    }
}

/// A slug for an anchor: lowercase letters, digits and `-`.
pub(super) fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_end_matches('-').to_string();
    if s.is_empty() {
        "section".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("Setting up: two players"), "setting-up-two-players");
        assert_eq!(slug("**"), "section");
    }
}
