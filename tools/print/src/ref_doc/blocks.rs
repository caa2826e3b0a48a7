//! Placeholders that make blocks: definitions as a gallery or a table (grouped by kind),
//! scenarios, the board, and the catalogue of a pack without a rules document.

use crown_engine::diag::plural;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crown_engine::content::{Def, DefKind};
use crown_engine::diag::did_you_mean;

use super::entries::merge_twins;
use super::model::{Block, Entry, EntryPara, Rich, Row, Span, Table};
use super::select::Columns;
use super::specs::{Args, Spec};
use super::text::{cost_text, players_phrase, players_text, scalar, slug};
use super::Expander;
use crate::context::{kind_color, print_kind, Colors};
use crate::rules_md::Placeholder;
use crate::util::label;

impl<'p> Expander<'p> {
    pub(super) fn block_placeholder(&mut self, p: &Placeholder, spec: &Spec) -> Vec<Block> {
        let Some(args) = self.args(p, spec) else { return Vec::new() };
        let kinds: &[DefKind] = match spec.name {
            "cards" => &[DefKind::Card],
            "plaques" => &[DefKind::Plaque],
            "nobles" => &[DefKind::Noble],
            "leaders" => &[DefKind::Leader],
            "characters" => &[DefKind::Noble, DefKind::Leader],
            _ => &[],
        };
        if !kinds.is_empty() {
            let as_table = match args.get("as") {
                None => false,
                Some(a) if a.value == "table" => true,
                Some(a) if a.value == "list" => false,
                Some(a) => {
                    self.error(
                        "bad-placeholder",
                        &a.value_span,
                        format!("`as` is `list` or `table`, not `{}`", a.value),
                        None,
                    );
                    return Vec::new();
                }
            };
            let Some(sel) = self.select(kinds, &args, &p.span) else { return Vec::new() };
            let Some(columns) = self.columns(&sel, &args) else { return Vec::new() };
            // Cards of several kinds are grouped under a heading per kind.
            let by_kind: BTreeSet<String> = sel.defs.iter().map(|d| print_kind(d)).collect();
            if spec.name == "cards" && by_kind.len() > 1 && args.get("sort").is_none() && !as_table {
                let mut out = Vec::new();
                let level = (self.level + 1).min(3);
                for k in by_kind {
                    let defs: Vec<&Def> = sel.defs.iter().copied().filter(|d| print_kind(d) == k).collect();
                    let copies: i64 = defs.iter().map(|d| d.def.count).sum();
                    let anchor = self.anchor_for(&format!("kind-{k}"));
                    let color = Colors { band: kind_color(self.pack, &k) }.json().0;
                    out.push(Block::Heading {
                        level,
                        text: vec![Span::Text(format!("{} ({copies} card{})", label(&k), plural(copies)))],
                        anchor,
                        color: Some(color),
                    });
                    out.push(self.defs_block(&defs, as_table, &columns));
                }
                return out;
            }
            return vec![self.defs_block(&sel.defs, as_table, &columns)];
        }
        match spec.name {
            "scenarios" => self.scenarios_block(&args, &p.span),
            "board" => {
                let Some(b) = self.board(&p.span) else { return Vec::new() };
                let mut out = Vec::new();
                if b.grid.is_some() {
                    out.extend(self.grid_block());
                }
                if !b.space.is_empty() {
                    out.extend(self.spaces_block(&args, &p.span));
                }
                if !b.supply.is_empty() {
                    out.extend(self.supplies_block(&args, &p.span));
                }
                out
            }
            "spaces" => self.spaces_block(&args, &p.span),
            "supplies" => self.supplies_block(&args, &p.span),
            "grid" => {
                if self.board(&p.span).is_none() {
                    return Vec::new();
                }
                let g = self.grid_block();
                if g.is_empty() {
                    self.error("unknown-value", &p.span, "the board has no `[grid]`", None);
                }
                g
            }
            "catalogue" => {
                let from = match args.get("pack") {
                    None => self.chapter_pack.clone(),
                    Some(a) if self.pack.chain.contains(&a.value) => a.value.clone(),
                    Some(a) => {
                        self.error(
                            "unknown-id",
                            &a.value_span,
                            format!("`{}` is not this pack or a pack it extends", a.value),
                            None,
                        );
                        return Vec::new();
                    }
                };
                self.catalogue(&from)
            }
            other => unreachable!("block placeholder {other} has no expansion"),
        }
    }

    /// An attribute's value as shown: the name of the space or definition it names, else
    /// the value written as words.
    fn attr_text(&self, v: &str) -> String {
        if let Some((b, _)) = &self.pack.board {
            if let Some(s) = b.space.iter().find(|s| s.id == v) {
                return s.name.clone();
            }
            if let Some(s) = b.supply.iter().find(|s| s.id == v && !s.name.is_empty()) {
                return s.name.clone();
            }
        }
        match self.pack.get(v) {
            Some(d) => d.def.name.clone(),
            None => label(v),
        }
    }

    fn defs_block(&mut self, defs: &[&Def], as_table: bool, cols: &Columns) -> Block {
        let groups = merge_twins(self.pack, defs, cols);
        if as_table {
            let serials = groups.iter().any(|g| g.serial.is_some());
            let costs = groups.iter().any(|g| !g.def.def.cost.is_empty());
            let decks = groups.iter().any(|g| !g.decks.is_empty());
            let texts = groups.iter().any(|g| !g.table_text.is_empty());
            let mut header: Vec<Rich> = Vec::new();
            let mut h = |s: &str| header.push(vec![Span::Text(s.to_string())]);
            if serials {
                h("#");
            }
            let copies = groups.iter().any(|g| g.count != 1);
            let kinds = groups.iter().map(|g| print_kind(g.def)).collect::<BTreeSet<_>>().len() > 1;
            h(&label(groups[0].def.kind.as_str()));
            if kinds {
                h("Kind");
            }
            if copies {
                h("Copies");
            }
            if costs {
                h("Cost");
            }
            for v in &cols.values {
                h(&label(v));
            }
            for a in &cols.attrs {
                h(&label(a));
            }
            if decks {
                h("Deck");
            }
            if texts {
                h("Text");
            }
            let mut rows = Vec::new();
            for g in &groups {
                let anchors = self.show(&g.ids);
                let mut cells: Vec<Rich> = Vec::new();
                let t = |s: String| vec![Span::Text(s)];
                if serials {
                    cells.push(t(g.serial.map(|s| s.to_string()).unwrap_or_default()));
                }
                cells.push(t(g.def.def.name.clone()));
                if kinds {
                    cells.push(t(label(&print_kind(g.def))));
                }
                if copies {
                    cells.push(t(g.count.to_string()));
                }
                if costs {
                    cells.push(t(cost_text(&g.def.def.cost)));
                }
                for v in &cols.values {
                    cells.push(t(g.def.def.values.get(v).map(|x| x.to_string()).unwrap_or_else(|| "—".into())));
                }
                for a in &cols.attrs {
                    cells.push(t(g.def.def.attrs.get(a).map(|x| self.attr_text(x)).unwrap_or_else(|| "—".into())));
                }
                if decks {
                    cells.push(t(g.decks.iter().map(|d| label(d)).collect::<Vec<_>>().join(", ")));
                }
                if texts {
                    cells.push(vec![Span::Markup(g.table_text.clone())]);
                }
                rows.push(Row { anchors, cells });
            }
            Block::Table(Table { header, rows })
        } else {
            let mut entries = Vec::new();
            for g in groups {
                let anchors = self.show(&g.ids);
                let color = Colors { band: kind_color(self.pack, &print_kind(g.def)) }.json().0;
                let mut e = g.entry;
                e.anchors = anchors;
                e.color = color;
                entries.push(e);
            }
            Block::Entries(entries)
        }
    }

    fn scenarios_block(&mut self, args: &Args<'_>, span: &Range<usize>) -> Vec<Block> {
        let pack = self.pack;
        let from: Option<String> = match args.get("pack") {
            None => Some(self.chapter_pack.clone()),
            Some(a) if a.value == "all" => None,
            Some(a) if pack.chain.contains(&a.value) => Some(a.value.clone()),
            Some(a) => {
                self.error(
                    "unknown-id",
                    &a.value_span,
                    format!("`{}` is not this pack or a pack it extends", a.value),
                    None,
                );
                return Vec::new();
            }
        };
        let pool: Vec<&crown_engine::content::ScenarioEntry> =
            pack.scenarios.iter().filter(|s| from.as_ref().is_none_or(|f| &s.origin.pack == f)).collect();
        let list: Vec<&crown_engine::content::ScenarioEntry> = match args.get("ids") {
            Some(a) => {
                let mut v = Vec::new();
                for id in Self::list(Some(a)) {
                    match pool.iter().find(|s| s.scenario.id == id) {
                        Some(s) => v.push(*s),
                        None => {
                            let hint = did_you_mean(&id, pool.iter().map(|s| s.scenario.id.as_str()))
                                .map(|n| format!("did you mean `{n}`?"));
                            self.error("unknown-id", &a.value_span, format!("no scenario `{id}` here"), hint);
                            return Vec::new();
                        }
                    }
                }
                v
            }
            None => pool,
        };
        if list.is_empty() {
            self.error("empty-selection", span, "this placeholder selects no scenarios", None);
            return Vec::new();
        }
        let mode = args.str("as").unwrap_or("both");
        if !["both", "table", "list"].contains(&mode) {
            let a = args.get("as").expect("given");
            self.error(
                "bad-placeholder",
                &a.value_span,
                format!("`as` is `table`, `list` or `both`, not `{mode}`"),
                None,
            );
            return Vec::new();
        }
        let all_keys: BTreeSet<String> = list.iter().flat_map(|s| s.scenario.options.keys().cloned()).collect();
        let keys: Vec<String> = match args.get("options") {
            None => all_keys.iter().cloned().collect(),
            Some(a) if a.value == "none" => Vec::new(),
            Some(a) => {
                let wanted = Self::list(Some(a));
                for w in &wanted {
                    if !all_keys.contains(w) {
                        let hint = did_you_mean(w, all_keys.iter().map(String::as_str))
                            .map(|n| format!("did you mean `{n}`?"));
                        self.error(
                            "unknown-option",
                            &a.value_span,
                            format!("none of these scenarios sets `{w}`"),
                            hint,
                        );
                        return Vec::new();
                    }
                }
                wanted
            }
        };
        let mut out = Vec::new();
        let players = |s: &crown_engine::content::model::Scenario| {
            let r = s.players.unwrap_or(pack.manifest.players);
            players_text(r.min, r.max)
        };
        if mode != "list" {
            let mut header = vec![vec![Span::Text("Scenario".into())], vec![Span::Text("Players".into())]];
            header.extend(keys.iter().map(|k| vec![Span::Text(label(k))]));
            let rows = list
                .iter()
                .map(|e| {
                    let s = &e.scenario;
                    let mut name = s.name.clone();
                    if s.default {
                        name.push_str(" (default)");
                    }
                    let mut cells = vec![vec![Span::Text(name)], vec![Span::Text(players(s))]];
                    cells.extend(
                        keys.iter()
                            .map(|k| vec![Span::Text(s.options.get(k).map(scalar).unwrap_or_else(|| "—".into()))]),
                    );
                    let anchors = if mode == "table" { self.show(&[format!("scenario:{}", s.id)]) } else { Vec::new() };
                    Row { anchors, cells }
                })
                .collect();
            out.push(Block::Table(Table { header, rows }));
        }
        if mode != "table" {
            let mut entries = Vec::new();
            for e in &list {
                let s = &e.scenario;
                let anchors = self.show(&[format!("scenario:{}", s.id)]);
                let mut paras = Vec::new();
                if !s.text.is_empty() {
                    paras.push(EntryPara { side: false, rich: vec![Span::Markup(s.text.clone())] });
                }
                for (i, seat) in s.seat.iter().enumerate() {
                    let name_of = |id: &str| pack.get(id).map_or_else(|| id.to_string(), |d| d.def.name.clone());
                    let mut r = vec![Span::Bold(vec![Span::Text(
                        seat.name.clone().unwrap_or_else(|| format!("Seat {}", i + 1)),
                    )])];
                    let mut t = String::new();
                    if let Some(c) = &seat.character {
                        t.push_str(&format!(": {}", name_of(c)));
                    }
                    if !seat.cards.is_empty() {
                        t.push_str(&format!(
                            ", starting with {}",
                            seat.cards.iter().map(|c| name_of(c)).collect::<Vec<_>>().join(", ")
                        ));
                    }
                    if !t.is_empty() {
                        r.push(Span::Text(t));
                    }
                    paras.push(EntryPara { side: true, rich: r });
                }
                let opts: Vec<String> = s
                    .options
                    .iter()
                    .filter(|(k, _)| keys.contains(k))
                    .map(|(k, v)| format!("{} {}", label(k), scalar(v)))
                    .collect();
                entries.push(Entry {
                    anchors,
                    title: s.name.clone(),
                    badge: {
                        let r = s.players.unwrap_or(pack.manifest.players);
                        format!("{}{}", players_phrase(r.min, r.max), if s.default { " · default" } else { "" })
                    },
                    meta: opts.join(", "),
                    color: "#3a3a3a".into(),
                    paras,
                    flavor: String::new(),
                });
            }
            out.push(Block::Entries(entries));
        }
        out
    }

    /// Everything a pack's definitions say, for a pack without a rules document: cards by
    /// kind, nobles, leaders, plaques, scenarios and the board, each under a heading.
    pub(super) fn catalogue(&mut self, from: &str) -> Vec<Block> {
        let pack = self.pack;
        let level = (self.level + 1).min(3);
        let mut out = Vec::new();
        let all = Columns { values: Vec::new(), attrs: Vec::new() };
        let of = |k: DefKind| -> Vec<&'p Def> {
            pack.defs.iter().filter(|d| d.kind == k && d.origin.pack == from).collect()
        };
        let cards = of(DefKind::Card);
        let kinds: BTreeSet<String> = cards.iter().map(|d| print_kind(d)).collect();
        for k in kinds {
            let defs: Vec<&Def> = cards.iter().copied().filter(|d| print_kind(d) == k).collect();
            let copies: i64 = defs.iter().map(|d| d.def.count).sum();
            let anchor = self.anchor_for(&format!("kind-{k}"));
            let color = Colors { band: kind_color(pack, &k) }.json().0;
            out.push(Block::Heading {
                level,
                text: vec![Span::Text(format!("{} ({copies} card{})", label(&k), plural(copies)))],
                anchor,
                color: Some(color),
            });
            let cols = Columns {
                values: defs
                    .iter()
                    .flat_map(|d| d.def.values.keys().cloned())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect(),
                attrs: Vec::new(),
            };
            out.push(self.defs_block(&defs, false, &cols));
        }
        for (k, title) in [(DefKind::Noble, "Nobles"), (DefKind::Leader, "Leaders"), (DefKind::Plaque, "Plaques")] {
            let defs = of(k);
            if defs.is_empty() {
                continue;
            }
            let anchor = self.anchor_for(&slug(title));
            out.push(Block::Heading { level, text: vec![Span::Text(title.into())], anchor, color: None });
            let cols = Columns {
                values: defs
                    .iter()
                    .flat_map(|d| d.def.values.keys().cloned())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect(),
                ..all.clone()
            };
            out.push(self.defs_block(&defs, false, &cols));
        }
        if pack.scenarios.iter().any(|s| s.origin.pack == from) {
            let anchor = self.anchor_for("scenarios");
            out.push(Block::Heading { level, text: vec![Span::Text("Scenarios".into())], anchor, color: None });
            let args = Args { named: BTreeMap::new(), positional: Vec::new() };
            let saved = std::mem::replace(&mut self.chapter_pack, from.to_string());
            out.extend(self.scenarios_block(&args, &(0..0)));
            self.chapter_pack = saved;
        }
        if let Some((b, origin)) = &pack.board {
            if origin.pack == from {
                let anchor = self.anchor_for("board");
                out.push(Block::Heading { level, text: vec![Span::Text("Board".into())], anchor, color: None });
                let args = Args { named: BTreeMap::new(), positional: Vec::new() };
                if b.grid.is_some() {
                    out.extend(self.grid_block());
                }
                if !b.space.is_empty() {
                    out.extend(self.spaces_block(&args, &(0..0)));
                }
                if !b.supply.is_empty() {
                    out.extend(self.supplies_block(&args, &(0..0)));
                }
            }
        }
        out
    }
}
