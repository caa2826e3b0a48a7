//! Gallery entries of definitions: printed twins folded into one, the badge, the line of
//! numbers, and the paragraphs for the text, each stage, the back and what it brings.

use std::collections::BTreeMap;

use crown_engine::content::{Def, Pack};

use super::model::{Entry, EntryPara, Span};
use super::select::Columns;
use super::text::{cost_text, numbers_text, stage_label};
use crate::context::print_kind;
use crate::util::label;

/// Printed twins folded together: same name, text, numbers and sides (in different decks,
/// say) count as one entry whose count is their sum.
pub(super) struct Group<'p> {
    pub(super) def: &'p Def,
    pub(super) ids: Vec<String>,
    pub(super) count: i64,
    pub(super) serial: Option<i64>,
    pub(super) decks: Vec<String>,
    pub(super) entry: Entry,
    /// The text for a table cell: the text, each stage and the back, in card markup.
    pub(super) table_text: String,
}

pub(super) fn merge_twins<'p>(pack: &Pack, defs: &[&'p Def], cols: &Columns) -> Vec<Group<'p>> {
    let mut out: Vec<Group<'p>> = Vec::new();
    for d in defs {
        let e = entry(pack, d, cols);
        let twin = out.iter_mut().find(|g| {
            g.serial.is_none()
                && d.def.serial.is_none()
                && g.entry.title == e.title
                && g.entry.paras == e.paras
                && g.entry.flavor == e.flavor
                && g.def.def.values == d.def.values
                && g.def.def.cost == d.def.cost
                && g.def.def.keywords == d.def.keywords
                && print_kind(g.def) == print_kind(d)
        });
        match twin {
            Some(g) => {
                g.ids.push(d.def.id.clone());
                g.count += d.def.count;
                for k in &d.def.decks {
                    if !g.decks.contains(k) {
                        g.decks.push(k.clone());
                    }
                }
                g.entry.badge = badge(g.serial, g.count);
                g.entry.meta = meta(g.def, cols, &g.decks);
            }
            None => {
                let mut table_text = d.def.text.clone();
                for st in &d.def.stages {
                    let mut p = format!("**{}**", st.name);
                    if !st.values.is_empty() {
                        p.push_str(&format!(" ({})", numbers_text(&st.values)));
                    }
                    if !st.text.is_empty() {
                        p.push_str(&format!(": {}", st.text));
                    }
                    if !table_text.is_empty() {
                        table_text.push('\n');
                    }
                    table_text.push_str(&p);
                }
                if let Some(b) = &d.def.back {
                    let side = b.attrs.get("side").cloned().unwrap_or_else(|| "Other side".into());
                    if !table_text.is_empty() {
                        table_text.push('\n');
                    }
                    table_text.push_str(&format!("**{side}:** {}", b.text));
                }
                out.push(Group {
                    def: d,
                    ids: vec![d.def.id.clone()],
                    count: d.def.count,
                    serial: d.def.serial,
                    decks: d.def.decks.clone(),
                    entry: e,
                    table_text,
                });
            }
        }
    }
    out
}

fn badge(serial: Option<i64>, count: i64) -> String {
    match serial {
        Some(s) => format!("#{s} · ×{count}"),
        None => format!("×{count}"),
    }
}

fn meta(d: &Def, cols: &Columns, decks: &[String]) -> String {
    let def = &d.def;
    let mut meta = vec![label(&print_kind(d))];
    if !def.cost.is_empty() {
        meta.push(format!("cost {}", cost_text(&def.cost)));
    }
    let values: BTreeMap<String, i64> =
        def.values.iter().filter(|(k, _)| cols.values.contains(k)).map(|(k, v)| (k.clone(), *v)).collect();
    if !values.is_empty() {
        meta.push(numbers_text(&values));
    }
    for a in &cols.attrs {
        if let Some(v) = def.attrs.get(a) {
            meta.push(format!("{} {}", label(a), label(v)));
        }
    }
    if !def.keywords.is_empty() {
        meta.push(def.keywords.iter().map(|k| label(k)).collect::<Vec<_>>().join(", "));
    }
    if !decks.is_empty() {
        meta.push(format!("deck: {}", decks.iter().map(|k| label(k)).collect::<Vec<_>>().join(", ")));
    }
    meta.join(" · ")
}

/// The gallery entry of one definition: its text, each stage, a tile's squares, its back,
/// what it brings.
fn entry(pack: &Pack, d: &Def, cols: &Columns) -> Entry {
    let def = &d.def;
    let mut paras = Vec::new();
    if !def.text.is_empty() {
        paras.push(EntryPara { side: false, rich: vec![Span::Markup(def.text.clone())] });
    }
    for s in &def.stages {
        let mut head = format!("{}: {}", stage_label(s.position), s.name);
        let mut rest = String::new();
        if !s.values.is_empty() {
            head.push_str(&format!(" ({})", numbers_text(&s.values)));
        }
        let upgrades: Vec<String> = s
            .upgrades
            .iter()
            .map(|u| {
                let to = def
                    .stages
                    .iter()
                    .find(|t| t.position == u.to)
                    .map_or_else(|| u.to.as_str().to_string(), |t| t.name.clone());
                let cost = if u.cost.is_empty() { "free".to_string() } else { cost_text(&u.cost) };
                format!("{cost}: {} to {to}", s.position.turn_to(u.to))
            })
            .collect();
        if !s.text.is_empty() {
            rest.push_str(&format!(". {}", s.text));
        }
        if !upgrades.is_empty() {
            rest.push_str(&format!(" Upgrade: {}.", upgrades.join("; ")));
        }
        let mut rich = vec![Span::Bold(vec![Span::Text(head)])];
        if !rest.is_empty() {
            rich.push(Span::Markup(rest));
        }
        paras.push(EntryPara { side: true, rich });
    }
    if !def.cells.is_empty() {
        // A tile: its squares as printed, each its terrain and values ("Field (Crowns 1)").
        let squares: Vec<String> = def
            .cells
            .iter()
            .map(|c| {
                let values = numbers_text(&c.values);
                if values.is_empty() {
                    label(&c.terrain)
                } else {
                    format!("{} ({values})", label(&c.terrain))
                }
            })
            .collect();
        paras.push(EntryPara { side: false, rich: vec![Span::Text(format!("Squares: {}", squares.join(", ")))] });
    }
    if let Some(b) = &def.back {
        let side = b.attrs.get("side").cloned().unwrap_or_else(|| "Other side".into());
        let name = if b.name.is_empty() { def.name.clone() } else { b.name.clone() };
        let mut head = format!("{side}: {name}");
        let extra: Vec<String> = [
            if b.cost.is_empty() { String::new() } else { format!("cost {}", cost_text(&b.cost)) },
            numbers_text(
                &b.values.iter().filter(|(k, _)| cols.values.contains(k)).map(|(k, v)| (k.clone(), *v)).collect(),
            ),
        ]
        .into_iter()
        .filter(|x| !x.is_empty())
        .collect();
        if !extra.is_empty() {
            head.push_str(&format!(" ({})", extra.join("; ")));
        }
        paras.push(EntryPara {
            side: true,
            rich: vec![Span::Bold(vec![Span::Text(head)]), Span::Markup(format!(". {}", b.text))],
        });
    }
    if !def.cards.is_empty() {
        let mut brings: Vec<(String, i64)> = Vec::new();
        for id in &def.cards {
            let name = pack.get(id).map_or_else(|| id.clone(), |x| x.def.name.clone());
            match brings.iter_mut().find(|(n, _)| *n == name) {
                Some((_, c)) => *c += 1,
                None => brings.push((name, 1)),
            }
        }
        let text = brings
            .iter()
            .map(|(n, c)| if *c > 1 { format!("{n} ×{c}") } else { n.clone() })
            .collect::<Vec<_>>()
            .join(", ");
        paras.push(EntryPara { side: false, rich: vec![Span::Text(format!("Starts with: {text}"))] });
    }
    Entry {
        anchors: Vec::new(),
        title: def.name.clone(),
        badge: badge(def.serial, def.count),
        meta: meta(d, cols, &def.decks),
        color: String::new(),
        paras,
        flavor: def.flavor.clone(),
    }
}
