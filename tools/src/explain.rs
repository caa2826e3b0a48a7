//! What a prompt can explain: `help NAME` prints a card's, noble's, leader's or plaque's
//! text and printed values from the pack, and `?N` those of the definitions option N
//! names (the card it plays, the cards its label names). Shared by the terminal and the
//! browser.

use crown_engine::content::{Def, Pack};
use crown_engine::diag::did_you_mean;
use crown_engine::script::api::with_game;
use crown_engine::script::Dynamic;

/// A definition's text as a person reads it: its name and kind, its printed values and
/// cost (a value the pack keeps off the faces, `[print] hide_values`, is the rules' own and
/// is left out here too), its keywords and text (icons in words, no markup); for a card
/// with stages, each stage's name, values and text; its back's text.
pub fn describe(pack: &Pack, d: &Def) -> String {
    let def = &d.def;
    let hidden = &pack.manifest.print.hide_values;
    let numbers = |m: &std::collections::BTreeMap<String, i64>| {
        let shown: std::collections::BTreeMap<String, i64> =
            m.iter().filter(|(k, _)| !hidden.contains(k)).map(|(k, v)| (k.clone(), *v)).collect();
        numbers(&shown)
    };
    let kind = if def.kind.is_empty() { d.kind.as_str().to_string() } else { def.kind.clone() };
    let mut out = format!("{} ({kind})", def.name);
    let values = numbers(&def.values);
    if !values.is_empty() {
        out.push_str(&format!(": {values}"));
    }
    if !def.cost.is_empty() {
        out.push_str(&format!("; costs {}", numbers(&def.cost)));
    }
    // Its keywords, less one that only repeats its kind ("Famine (penalty); penalty").
    let keywords: Vec<&str> = def.keywords.iter().map(String::as_str).filter(|k| *k != kind).collect();
    if !keywords.is_empty() {
        out.push_str(&format!("; {}", keywords.join(", ")));
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
/// shared); else the board's spaces and supplies, the counters so named, and where the
/// rules (`rules.md`, placeholders filled in) and `ASSUMPTIONS.md` define or use the word;
/// else what the pack has that is nearest.
pub fn help(pack: &Pack, query: &str) -> String {
    let q = query.trim().to_lowercase();
    let found: Vec<&Def> =
        pack.defs.iter().filter(|d| d.def.id.to_lowercase() == q || d.def.name.to_lowercase() == q).collect();
    if !found.is_empty() {
        return found.iter().map(|d| describe(pack, d)).collect::<Vec<_>>().join("\n");
    }
    let mut said = Vec::new();
    if let Some((board, _)) = &pack.board {
        for sp in board.space.iter().filter(|sp| sp.id.to_lowercase() == q || sp.name.to_lowercase() == q) {
            let text = if sp.text.is_empty() { "a space of the board".to_string() } else { plain(&sp.text) };
            said.push(format!("{} (board space): {text}", sp.name));
        }
        for su in board.supply.iter().filter(|su| su.id.to_lowercase() == q || su.name.to_lowercase() == q) {
            said.push(format!("{} (pieces beside the board): {} to begin with", su.name, su.count));
        }
    }
    for (key, label) in &pack.manifest.counter_names {
        if key.to_lowercase() == q || label.to_lowercase() == q {
            said.push(format!("{label}: a number each player keeps (the `{key}` counter of the rules)"));
        }
    }
    said.extend(rules_quotes(pack, &q));
    if !said.is_empty() {
        return said.join("\n");
    }
    let names: Vec<String> = pack.defs.iter().map(|d| d.def.name.to_lowercase()).collect();
    match did_you_mean(&q, names.iter().map(String::as_str)) {
        Some(near) => {
            let d = pack.defs.iter().find(|d| d.def.name.to_lowercase() == near);
            format!(
                "nothing in {} is called '{query}'; the nearest is:\n{}",
                pack.manifest.name,
                d.map(|d| describe(pack, d)).unwrap_or_default()
            )
        }
        None => format!(
            "nothing in {} is called '{query}', and its rules do not use the word (help NAME: a card, noble, leader, \
             plaque, board space, counter or a word of the rules)",
            pack.manifest.name
        ),
    }
}

/// How many passages of the rules `help WORD` quotes at most.
const QUOTES: usize = 3;

/// The passages of the pack's rules (`rules.md` as the reference prints it, then
/// `ASSUMPTIONS.md`) that use `word` (lower case) as a whole word, each with the file
/// and section it is in: those where the word is in bold or a heading (where the rules
/// define it) first, then the rest, [`QUOTES`] at most.
pub fn rules_quotes(pack: &Pack, word: &str) -> Vec<String> {
    if word.chars().count() < 3 {
        return Vec::new();
    }
    let (icons, _) = crate::print::icons::IconSet::for_pack(pack);
    let built = crate::print::ref_doc::build(pack, &icons);
    let mut docs = vec![(
        "rules.md".to_string(),
        crate::print::ref_text::body(&built.doc, &icons, crate::print::ref_text::Flavor::Markdown),
    )];
    for id in &pack.chain {
        if let Ok(text) = std::fs::read_to_string(pack.project.join("content").join(id).join("ASSUMPTIONS.md")) {
            docs.push(("ASSUMPTIONS.md".to_string(), text));
        }
    }
    let mut defining = Vec::new();
    let mut using = Vec::new();
    for (file, text) in &docs {
        for (section, passage) in passages(text) {
            let lower = passage.to_lowercase();
            if !has_word(&lower, word) {
                continue;
            }
            let bold = lower.contains(&format!("**{word}")) || section.to_lowercase().contains(word);
            let quote = format!("{file}, {section}: {}", unmarked(&passage));
            if bold {
                defining.push(quote);
            } else {
                using.push(quote);
            }
        }
    }
    defining.into_iter().chain(using).take(QUOTES).collect()
}

/// A Markdown text cut into passages (paragraphs and list items), each with the heading
/// it stands under.
fn passages(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::from("the beginning");
    let mut current = String::new();
    let flush = |current: &mut String, section: &str, out: &mut Vec<(String, String)>| {
        if !current.trim().is_empty() {
            out.push((section.to_string(), current.trim().to_string()));
        }
        current.clear();
    };
    for line in text.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('#') {
            flush(&mut current, &section, &mut out);
            section = format!("«{}»", unmarked(h.trim_start_matches('#').trim()));
        } else if t.is_empty()
            || t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with('|')
            || t.starts_with("<!--")
        {
            flush(&mut current, &section, &mut out);
            current.push_str(t.trim_start_matches("- ").trim_start_matches("* "));
            current.push(' ');
        } else {
            current.push_str(t);
            current.push(' ');
        }
    }
    flush(&mut current, &section, &mut out);
    out
}

/// Whether `text` holds `word` as a whole word (or its plural).
fn has_word(text: &str, word: &str) -> bool {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        let before = text[..at].chars().next_back().is_some_and(char::is_alphanumeric);
        let rest = &text[end..];
        let after = rest.strip_prefix('s').unwrap_or(rest).chars().next().is_some_and(char::is_alphanumeric);
        if !before && !after {
            return true;
        }
        from = end;
    }
    false
}

/// Markdown as plain text: no emphasis marks, no escapes, links as their text.
fn unmarked(md: &str) -> String {
    let mut out = String::new();
    let mut chars = md.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '*' | '_' | '`' => {}
            '[' | ']' => {}
            '(' if out.ends_with(|c: char| c.is_alphanumeric()) && chars.peek() == Some(&'#') => {
                // A link's target "(#anchor)": dropped.
                for n in chars.by_ref() {
                    if n == ')' {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
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
    defs.iter().map(|&i| describe(pack, &pack.defs[i])).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_text_loses_its_markup() {
        assert_eq!(plain("Gain 2 :coin:. **Then** draw\n a card."), "Gain 2 coin. Then draw a card.");
    }
}
