//! What a pack's definitions hold, judged once they are all loaded: each card's decks
//! (a misspelt deck, a card in no deck), serial numbers unique within a pack and its base,
//! and scenario settings of the type pack.toml gives them.

use std::collections::{BTreeMap, BTreeSet};

use super::finish::{definition_text, line_from, span_in, span_of_setting};
use super::PackLoad;
use crate::content::model::PackManifest;
use crate::content::{Def, DefKind, ScenarioEntry, Script};
use crate::diag::{did_you_mean, Diagnostic, SourceFile};

impl PackLoad<'_> {
    /// `option-type`: a scenario's setting whose type differs from the one pack.toml's
    /// `[options]` gives it (`max_hand = "8"` beside `max_hand = 8`): the rules read one
    /// type, so every game of the scenario fails or reads it wrong. At the setting, with
    /// a note at pack.toml's.
    pub(super) fn option_types(&mut self, sc: &ScenarioEntry, manifest: &PackManifest, mfile: Option<&SourceFile>) {
        use crate::content::model::Scalar;
        let Some(f) = self.sources.get(&sc.origin.file).cloned() else { return };
        for (key, value) in &sc.scenario.options {
            let Some(base) = manifest.options.get(key) else { continue };
            let (here, there) = (scalar_type(value), scalar_type(base));
            if here == there || (is_list(value) && is_list(base) && (is_empty_list(value) || is_empty_list(base))) {
                continue;
            }
            let at = span_of_setting(&f.text, key);
            let at = if at.is_empty() { sc.origin.id_span.clone() } else { line_from(&f.text, at) };
            // `"8"` where pack.toml has 8: the same value without the quotes.
            let unquoted = match (value, base) {
                (Scalar::Str(t), Scalar::Int(_)) if t.trim().parse::<i64>().is_ok() => Some(t.trim()),
                (Scalar::Str(t), Scalar::Bool(_)) if matches!(t.trim(), "true" | "false") => Some(t.trim()),
                _ => None,
            };
            let hint = match unquoted {
                Some(t) => format!("write it without quotes: `{key} = {t}`"),
                None => format!("give it as {there}, as pack.toml does (`{key} = {}`)", toml_value(base)),
            };
            let mut d = Diagnostic::error("option-type", format!("`{key}` is {here} here but {there} in pack.toml"))
                .at(&f, at)
                .hint(hint);
            if let Some(mf) = mfile {
                let there_at = span_of_setting(&mf.text, key);
                if !there_at.is_empty() {
                    d = d.related(
                        mf,
                        line_from(&mf.text, there_at),
                        format!("pack.toml gives `{key}` as {there} here"),
                    );
                }
            }
            self.diags.push(d);
        }
    }

    /// `duplicate-serial`: two definitions of the pack (its own, or of the packs it
    /// extends) with the same `serial`, reported at the later one's `serial` (base packs
    /// first, then file by file), pointing at the other.
    pub(super) fn duplicate_serials(&mut self, defs: &[Def], chain: &[String]) {
        // `chain` lists the pack first and the pack it extends after it.
        let layer = |d: &Def| chain.len() - chain.iter().position(|p| *p == d.origin.pack).unwrap_or(0);
        let mut with_serial: Vec<(&Def, i64)> = defs.iter().filter_map(|d| d.def.serial.map(|s| (d, s))).collect();
        with_serial.sort_by(|(a, _), (b, _)| {
            (layer(a), &a.origin.file, a.origin.id_span.start).cmp(&(layer(b), &b.origin.file, b.origin.id_span.start))
        });
        let mut first: BTreeMap<i64, &Def> = BTreeMap::new();
        let mut out = Vec::new();
        for (d, serial) in with_serial {
            let Some(other) = first.get(&serial).copied() else {
                first.insert(serial, d);
                continue;
            };
            let (Some(f), Some(of)) = (self.sources.get(&d.origin.file), self.sources.get(&other.origin.file)) else {
                continue;
            };
            let at = |f: &SourceFile, d: &Def| {
                span_in(&f.text, definition_text(&f.text, d.origin.id_span.start), "serial")
                    .unwrap_or_else(|| d.origin.id_span.clone())
            };
            let free = (1..).find(|n| !defs.iter().any(|d| d.def.serial == Some(*n))).unwrap_or(serial);
            out.push(
                Diagnostic::error(
                    "duplicate-serial",
                    format!("`{}` has serial {serial}, which `{}` already has", d.def.id, other.def.id),
                )
                .at(f, at(f, d))
                .label("second use")
                .related(of, at(of, other), format!("`{}` has serial {serial} here", other.def.id))
                .hint(format!(
                    "serial numbers tell the cards apart (discovery order in a legacy game): give one of them another (the first free one is {free})"
                )),
            );
        }
        self.diags.extend(out);
    }

    /// `implausible-count`: a card whose count is at least 25, more than all the other
    /// cards of a deck it lists together and more than five times the largest count among
    /// them (`count = 300` in a deck of forty): a slip of the keyboard far more often than
    /// a design, at the `count`. A deck of one kind of card (coins) is never flagged.
    pub(super) fn implausible_counts(&mut self, defs: &[Def]) {
        let mut decks: BTreeMap<&str, Vec<&Def>> = BTreeMap::new();
        for d in defs {
            for k in &d.def.decks {
                decks.entry(k.as_str()).or_default().push(d);
            }
        }
        let mut out = Vec::new();
        let mut told = BTreeSet::new();
        for (deck, cards) in &decks {
            // The deck's copies in all, and its two largest counts with the card of the first.
            let total: i64 = cards.iter().map(|d| d.def.count).sum();
            let mut top = (i64::MIN, "", i64::MIN);
            for d in cards {
                if d.def.count > top.0 {
                    top = (d.def.count, d.def.id.as_str(), top.0);
                } else if d.def.count > top.2 {
                    top.2 = d.def.count;
                }
            }
            for d in cards.iter().filter(|_| cards.len() > 1) {
                let n = d.def.count;
                let rest = total - n;
                let largest = if d.def.id == top.1 { top.2 } else { top.0 };
                if n < 25 || n <= rest || n <= 5 * largest || !told.insert(d.def.id.as_str()) {
                    continue;
                }
                let Some(f) = self.sources.get(&d.origin.file) else { continue };
                let at = span_in(&f.text, definition_text(&f.text, d.origin.id_span.start), "count")
                    .unwrap_or_else(|| d.origin.id_span.clone());
                out.push(
                    Diagnostic::warning(
                        "implausible-count",
                        format!(
                            "`{}` has {n} copies, more than the other {rest} cards of the deck `{deck}` together (the most of any other is {largest})",
                            d.def.id
                        ),
                    )
                    .at(f, at)
                    .hint("`count` is the number of copies of this card; if so many are meant, say so in pack.toml: `[check.allow] implausible-count = [\"*\"]`"),
                );
            }
        }
        self.diags.extend(out);
    }

    /// `dangling-reference` in an attribute: where most of the values a pack gives an
    /// attribute (`replaces = "soldiers"`) are the ids of its definitions, the attribute
    /// names definitions, and a value that names none is a slip (`replaces = "soldier"`),
    /// reported at the value with the nearest id; a rule reading it would otherwise fail
    /// far from it, or not at all.
    pub(super) fn attrs_naming_definitions(&mut self, defs: &[Def], index: &BTreeMap<String, usize>) {
        let mut by_key: BTreeMap<&str, Vec<(&Def, &str)>> = BTreeMap::new();
        for d in defs {
            for (k, v) in &d.def.attrs {
                by_key.entry(k.as_str()).or_default().push((d, v.as_str()));
            }
        }
        let mut out = Vec::new();
        for (key, values) in &by_key {
            let naming = values.iter().filter(|(_, v)| index.contains_key(*v)).count();
            if naming == 0 || 2 * naming < values.len() {
                continue;
            }
            for (d, v) in values.iter().filter(|(_, v)| !index.contains_key(*v)) {
                let Some(f) = self.sources.get(&d.origin.file) else { continue };
                let quoted = format!("\"{v}\"");
                let at = span_in(&f.text, definition_text(&f.text, d.origin.id_span.start), key)
                    .and_then(|k| {
                        let line_end = f.text[k.end..].find('\n').map_or(f.text.len(), |i| k.end + i);
                        f.text[k.end..line_end].find(&quoted).map(|i| k.end + i..k.end + i + quoted.len())
                    })
                    .unwrap_or_else(|| d.origin.id_span.clone());
                let hint = did_you_mean(v, index.keys().map(String::as_str)).map(|n| format!("did you mean `{n}`?"));
                out.push(
                    Diagnostic::error(
                        "dangling-reference",
                        format!(
                            "`{}` has {key} = \"{v}\", but no definition is called `{v}` (the pack's other `{key}` values name definitions)",
                            d.def.id
                        ),
                    )
                    .at(f, at)
                    .maybe_hint(hint),
                );
            }
        }
        self.diags.extend(out);
    }

    /// Cards with a count that no script can put in play: when the scripts name every deck
    /// they build in a literal (and never list the cards with `defs`), a card whose `decks`
    /// they never build, and that nothing names by id, is never played. And every entry of
    /// a card's `decks`: a deck only this card lists, that no script builds, one slip from a
    /// deck that is built or that other cards list, is a misspelling (its copies are missing
    /// from the deck it meant), at the entry.
    pub(super) fn cards_in_no_deck(
        &mut self,
        defs: &[Def],
        scripts: &[Script],
        declared: &crate::script::lint::Declared,
        referenced: &BTreeSet<String>,
    ) {
        use crate::script::lint::Names;
        // When scripts build decks through a variable or list the cards with `defs`, which
        // decks are built is not known for sure: a deck no script names at all beside a near
        // one that is named is then a likely slip (a warning); otherwise a card no script
        // can deal is certain (an error).
        let lists_cards = |s: &Script| s.references.def_kinds.iter().any(|k| k == "*" || k == DefKind::Card.as_str());
        let lists_any_cards = scripts.iter().any(lists_cards);
        let unsure = declared.dynamic.contains(&Names::Deck) || lists_any_cards;
        let mut built: BTreeSet<&str> = scripts
            .iter()
            .flat_map(|s| s.references.literals.iter())
            .filter(|l| l.names == Names::Deck)
            .map(|l| l.text.as_str())
            .collect();
        if unsure {
            // Every deck a script spells out anywhere (a list it builds from, say).
            let listed: BTreeSet<&str> = defs.iter().flat_map(|d| d.def.decks.iter().map(String::as_str)).collect();
            built.extend(
                scripts
                    .iter()
                    .flat_map(|s| s.references.strings.iter().map(String::as_str))
                    .filter(|t| listed.contains(t)),
            );
        }
        let by_id: BTreeSet<&str> = scripts
            .iter()
            .flat_map(|s| s.references.literals.iter())
            .filter(|l| l.names == Names::Id)
            .map(|l| l.text.as_str())
            .chain(scripts.iter().flat_map(|s| s.references.names.iter().map(String::as_str)))
            .collect();
        // How many definitions list each deck (a deck several list is a real one).
        let mut listed_by: BTreeMap<&str, usize> = BTreeMap::new();
        for d in defs {
            for k in d.def.decks.iter().map(String::as_str).collect::<BTreeSet<_>>() {
                *listed_by.entry(k).or_default() += 1;
            }
        }
        // The decks a slip is measured against: those built, and those several cards list.
        let real: BTreeSet<&str> =
            built.iter().copied().chain(listed_by.iter().filter(|(_, n)| **n > 1).map(|(k, _)| *k)).collect();
        let mut out = Vec::new();
        let mut misspelt: BTreeSet<&str> = BTreeSet::new();
        for d in defs.iter().filter(|d| d.kind == DefKind::Card && d.def.count != 0) {
            for k in d.def.decks.iter().map(String::as_str) {
                if built.contains(k) || listed_by.get(k) != Some(&1) {
                    continue;
                }
                let Some(near) = did_you_mean(k, real.iter().copied().filter(|r| *r != k)) else { continue };
                // A numbered series (`round-1`, `round-2`) is not a slip.
                if digits_apart(k, near) {
                    continue;
                }
                let Some(f) = self.sources.get(&d.origin.file) else { continue };
                let span = span_of_word(&f.text, definition_text(&f.text, d.origin.id_span.start), k)
                    .or_else(|| span_of_word(&f.text, d.origin.span.clone(), k))
                    .unwrap_or_else(|| d.origin.id_span.clone());
                let whose = if built.contains(near) { "the scripts build" } else { "other cards list" };
                out.push(
                    Diagnostic::error(
                        "misspelt-deck",
                        format!(
                            "card `{}` lists the deck `{k}`, which no other card lists and no script builds, so its copies are missing from the deck it meant",
                            d.def.id
                        ),
                    )
                    .at(f, span)
                    .hint(format!("did you mean the deck `{near}`? ({whose} `{near}`)")),
                );
                misspelt.insert(d.def.id.as_str());
            }
        }
        // One finding per deck nobody builds (and one for cards listing no deck), at the
        // first card concerned, naming the others.
        let mut stranded: BTreeMap<Option<&str>, Vec<&Def>> = BTreeMap::new();
        for d in defs {
            let def = &d.def;
            if d.kind != DefKind::Card
                || def.count == 0
                || misspelt.contains(def.id.as_str())
                || referenced.contains(&def.id)
                || by_id.contains(def.id.as_str())
                || def.decks.iter().any(|k| built.contains(k.as_str()))
            {
                continue;
            }
            let deck = def.decks.first().map(String::as_str);
            if unsure {
                // A slip is one card's: a deck that several cards list is a real deck
                // built under a name made at run time (`round-${r}`).
                let slip = match deck {
                    Some(k) => listed_by.get(k) == Some(&1) && did_you_mean(k, built.iter().copied()).is_some(),
                    None => !built.is_empty(),
                };
                if !slip {
                    continue;
                }
            }
            stranded.entry(deck).or_default().push(d);
        }
        for (deck, cards) in stranded {
            let first = cards[0];
            let Some(f) = self.sources.get(&first.origin.file) else { continue };
            let others = match cards.len() {
                1 => String::new(),
                2 => format!(" (and `{}`)", cards[1].def.id),
                n => format!(" (and `{}` and {} more)", cards[1].def.id, n - 2),
            };
            let message = match deck {
                None => format!("card `{}`{others} lists no deck, so no script puts it in play", first.def.id),
                Some(k) => format!("card `{}`{others} is in the deck `{k}`, which no script builds", first.def.id),
            };
            let known: Vec<String> = built.iter().map(|k| format!("`{k}`")).collect();
            let hint = match deck.and_then(|k| did_you_mean(k, built.iter().copied())) {
                Some(n) => format!("did you mean the deck `{n}`?"),
                None if known.is_empty() => {
                    "no script calls `create_deck` or `defs_in_deck` with a deck name".to_string()
                }
                None => format!("the scripts build {}", known.join(", ")),
            };
            // With no deck built at all the pack may not deal cards yet, a deck may be built
            // under a name made at run time, and a card listing no deck may be dealt from
            // `defs("card")`: a warning. A card listing no deck where the scripts build
            // decks and never list the cards themselves is never dealt: an error.
            let d = if built.is_empty() || (deck.is_some() && unsure) || (deck.is_none() && lists_any_cards) {
                Diagnostic::warning("card-in-no-deck", message)
            } else {
                Diagnostic::error("card-in-no-deck", message)
            };
            out.push(d.at(f, first.origin.id_span.clone()).hint(hint));
        }
        self.diags.extend(out);
    }
}

/// What type a setting's value is, in words (`an integer`).
fn scalar_type(v: &crate::content::model::Scalar) -> &'static str {
    use crate::content::model::Scalar;
    match v {
        Scalar::Int(_) => "an integer",
        Scalar::Bool(_) => "a boolean (true or false)",
        Scalar::Str(_) => "a string",
        Scalar::Ints(_) => "a list of integers",
        Scalar::Words(_) => "a list of strings",
    }
}

fn is_list(v: &crate::content::model::Scalar) -> bool {
    use crate::content::model::Scalar;
    matches!(v, Scalar::Ints(_) | Scalar::Words(_))
}

fn is_empty_list(v: &crate::content::model::Scalar) -> bool {
    use crate::content::model::Scalar;
    matches!(v, Scalar::Ints(l) if l.is_empty()) || matches!(v, Scalar::Words(l) if l.is_empty())
}

/// A setting's value as TOML writes it (`8`, `"solo"`, `[1, 2]`).
fn toml_value(v: &crate::content::model::Scalar) -> String {
    use crate::content::model::Scalar;
    let quoted = |w: &String| format!("{w:?}");
    match v {
        Scalar::Int(n) => n.to_string(),
        Scalar::Bool(b) => b.to_string(),
        Scalar::Str(t) => quoted(t),
        Scalar::Ints(l) => format!("[{}]", l.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")),
        Scalar::Words(l) => format!("[{}]", l.iter().map(quoted).collect::<Vec<_>>().join(", ")),
    }
}

/// Whether two names differ only in their digits (`round-1`, `round-2`).
fn digits_apart(a: &str, b: &str) -> bool {
    let strip = |s: &str| s.chars().filter(|c| !c.is_ascii_digit()).collect::<String>();
    a != b && strip(a) == strip(b)
}

/// Where `word` is written as a whole (not part of a longer name) inside `range` of
/// `text`: an entry of a list, a cell of a row.
fn span_of_word(text: &str, range: std::ops::Range<usize>, word: &str) -> Option<std::ops::Range<usize>> {
    let body = text.get(range.clone())?;
    let is_name = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut from = 0;
    while let Some(i) = body[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        if !body[..at].ends_with(is_name) && !body[end..].starts_with(is_name) {
            return Some(range.start + at..range.start + end);
        }
        from = end;
    }
    None
}
