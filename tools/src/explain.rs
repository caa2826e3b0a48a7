//! What a prompt can explain: `help NAME` prints a card's, noble's, leader's or plaque's
//! text and printed values from the pack, and `?N` those of the definitions option N
//! names (the card it plays, the cards its label names). Shared by the terminal and the
//! browser.

use crown_engine::content::{Def, Pack};
use crown_engine::diag::did_you_mean;
use crown_engine::script::api::with_game;
use crown_engine::script::Dynamic;

/// A definition's text as a person reads it: its name and kind, its printed values and
/// cost, its keywords and text (icons in words, no markup); for a card with stages, each
/// stage's name, values and text; its back's text.
pub fn describe(d: &Def) -> String {
    let def = &d.def;
    let kind = if def.kind.is_empty() { d.kind.as_str().to_string() } else { def.kind.clone() };
    let mut out = format!("{} ({kind})", def.name);
    let values = numbers(&def.values);
    if !values.is_empty() {
        out.push_str(&format!(": {values}"));
    }
    if !def.cost.is_empty() {
        out.push_str(&format!("; costs {}", numbers(&def.cost)));
    }
    if !def.keywords.is_empty() {
        out.push_str(&format!("; {}", def.keywords.join(", ")));
    }
    if !def.text.trim().is_empty() {
        out.push_str(&format!("\n  {}", plain(&def.text)));
    }
    for st in &def.stages {
        let mut line = format!("\n  {}: {}", st.position.as_str(), st.name);
        let v = numbers(&st.values);
        if !v.is_empty() {
            line.push_str(&format!(" ({v})"));
        }
        if !st.text.trim().is_empty() {
            line.push_str(&format!(" — {}", plain(&st.text)));
        }
        out.push_str(&line);
    }
    if let Some(b) = def.back.as_ref().filter(|b| !b.text.trim().is_empty()) {
        out.push_str(&format!("\n  back: {}", plain(&b.text)));
    }
    out
}

/// `a 2, b 3`, in key order.
fn numbers(m: &std::collections::BTreeMap<String, i64>) -> String {
    m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

/// Card text without its markup: icons by name, bold as plain text.
pub fn plain(text: &str) -> String {
    use crate::print::markup::{read, Mark};
    let mut out = String::new();
    for m in read(text).marks {
        match m {
            Mark::Char(c) => out.push(c),
            Mark::Bold => {}
            Mark::Icon(name) => out.push_str(&name),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a person choosing a character reads beneath the option: the text of the noble or
/// leader the option offers (a value of the option naming one by id), without markup.
pub fn character_note(pack: &Pack, option: Option<&Dynamic>) -> Option<String> {
    let map = option?.read_lock::<crown_engine::script::Map>()?.clone();
    map.values().find_map(|v| {
        let id = v.clone().into_immutable_string().ok()?;
        let d = &pack.defs[*pack.index.get(id.as_str())?];
        (d.kind.is_character() && !d.def.text.trim().is_empty()).then(|| plain(&d.def.text))
    })
}

/// `help NAME`: the definitions named (by id or name, any case; several when names are
/// shared), or what the pack has that is nearest.
pub fn help(pack: &Pack, query: &str) -> String {
    let q = query.trim().to_lowercase();
    let found: Vec<&Def> =
        pack.defs.iter().filter(|d| d.def.id.to_lowercase() == q || d.def.name.to_lowercase() == q).collect();
    if !found.is_empty() {
        return found.iter().map(|d| describe(d)).collect::<Vec<_>>().join("\n");
    }
    let names: Vec<String> = pack.defs.iter().map(|d| d.def.name.to_lowercase()).collect();
    match did_you_mean(&q, names.iter().map(String::as_str)) {
        Some(near) => {
            let d = pack.defs.iter().find(|d| d.def.name.to_lowercase() == near);
            format!(
                "nothing in {} is called '{query}'; the nearest is:\n{}",
                pack.manifest.name,
                d.map(describe).unwrap_or_default()
            )
        }
        None => format!(
            "nothing in {} is called '{query}' (help NAME: a card, noble, leader or plaque)",
            pack.manifest.name
        ),
    }
}

/// `?N`: what option `i` of a menu names: the card instance it carries (`card`, or any
/// key ending in `card`), definition ids among its values, and definitions whose names its
/// label spells out (longest names first, each word once).
pub fn option_help(pack: &Pack, option: Option<&Dynamic>, label: &str) -> String {
    let mut defs: Vec<usize> = Vec::new();
    let mut add = |i: usize| {
        if !defs.contains(&i) {
            defs.push(i);
        }
    };
    if let Some(map) = option.and_then(|o| o.clone().try_cast::<crown_engine::script::Map>()) {
        for (k, v) in &map {
            if let (true, Ok(c)) = (k.ends_with("card"), v.as_int()) {
                if let Some(Some(def)) = with_game(|g| g.state.cards.get(c as usize).map(|c| c.def as usize)) {
                    add(def);
                }
            } else if let Ok(s) = v.clone().into_immutable_string() {
                if let Some(&i) = pack.index.get(s.as_str()) {
                    add(i);
                }
            }
        }
    }
    // Names in the label, longest first, so "Great Axe" wins over "Axe".
    let lower = label.to_lowercase();
    let mut by_length: Vec<(usize, &Def)> = pack.defs.iter().enumerate().collect();
    by_length.sort_by_key(|(_, d)| std::cmp::Reverse(d.def.name.len()));
    let mut taken = vec![false; lower.len()];
    for (i, d) in by_length {
        let name = d.def.name.to_lowercase();
        if name.len() < 3 {
            continue;
        }
        let mut from = 0;
        while let Some(at) = lower[from..].find(&name).map(|x| x + from) {
            let end = at + name.len();
            let whole =
                !lower[..at].ends_with(char::is_alphanumeric) && !lower[end..].starts_with(char::is_alphanumeric);
            if whole && !taken[at..end].iter().any(|t| *t) {
                taken[at..end].iter_mut().for_each(|t| *t = true);
                add(i);
                break;
            }
            from = end;
        }
    }
    if defs.is_empty() {
        return format!("'{label}' names no card of {}", pack.manifest.name);
    }
    defs.iter().map(|&i| describe(&pack.defs[i])).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_text_loses_its_markup() {
        assert_eq!(plain("Gain 2 :coin:. **Then** draw\n a card."), "Gain 2 coin. Then draw a card.");
    }
}
