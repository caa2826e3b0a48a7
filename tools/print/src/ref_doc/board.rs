//! The board's placeholders: its grid, its spaces and its supplies as tables, each
//! narrowed by `ids=` and `where=`.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crown_engine::diag::did_you_mean;

use super::model::{Block, Row, Span, Table};
use super::specs::Args;
use super::Expander;
use crate::util::label;

/// How a board selection names what it selects, in its errors.
struct BoardPick {
    one: &'static str,
    many: &'static str,
    example: &'static str,
}

impl BoardPick {
    fn new(one: &'static str, many: &'static str, example: &'static str) -> Self {
        BoardPick { one, many, example }
    }
}

impl<'p> Expander<'p> {
    pub(super) fn board(&mut self, span: &Range<usize>) -> Option<&'p crown_engine::content::model::BoardFile> {
        match &self.pack.board {
            Some((b, _)) => Some(b),
            None => {
                self.error("unknown-id", span, "this pack has no board.toml", None);
                None
            }
        }
    }

    pub(super) fn grid_block(&mut self) -> Vec<Block> {
        let Some((b, _)) = &self.pack.board else { return Vec::new() };
        let Some(g) = &b.grid else { return Vec::new() };
        vec![Block::Grid {
            rows: g.rows.clone(),
            legend: g.legend.iter().map(|(k, v)| (k.clone(), label(v))).collect(),
        }]
    }

    pub(super) fn spaces_block(&mut self, args: &Args<'_>, span: &Range<usize>) -> Vec<Block> {
        let Some(b) = self.board(span) else { return Vec::new() };
        let Some(spaces) = self.select_on_board(
            args,
            span,
            &b.space,
            |s| &s.id,
            |s| &s.attrs,
            BoardPick::new("space", "spaces", "kind=region"),
        ) else {
            return Vec::new();
        };
        let all_values: BTreeSet<String> = spaces.iter().flat_map(|s| s.values.keys().cloned()).collect();
        let all_attrs: BTreeSet<String> = spaces.iter().flat_map(|s| s.attrs.keys().cloned()).collect();
        let mut cols = |key: &str, all: &BTreeSet<String>, default_all: bool| -> Option<Vec<String>> {
            match args.get(key) {
                None => Some(if default_all { all.iter().cloned().collect() } else { Vec::new() }),
                Some(a) if a.value == "none" => Some(Vec::new()),
                Some(a) => {
                    let wanted = Self::list(Some(a));
                    for w in &wanted {
                        if !all.contains(w) {
                            let hint =
                                did_you_mean(w, all.iter().map(String::as_str)).map(|n| format!("did you mean `{n}`?"));
                            self.error("unknown-value", &a.value_span, format!("none of these spaces has `{w}`"), hint);
                            return None;
                        }
                    }
                    Some(wanted)
                }
            }
        };
        let Some(values) = cols("values", &all_values, true) else { return Vec::new() };
        let Some(attrs) = cols("attrs", &all_attrs, false) else { return Vec::new() };
        let name_of = |id: &str| b.space.iter().find(|s| s.id == id).map_or_else(|| id.to_string(), |s| s.name.clone());
        let supply_name = |id: &str| {
            b.supply
                .iter()
                .find(|s| s.id == id)
                .map_or_else(|| label(id), |s| if s.name.is_empty() { label(&s.id) } else { s.name.clone() })
        };
        let adjacent = spaces.iter().any(|s| !s.adjacent.is_empty());
        let pieces = spaces.iter().any(|s| !s.pieces.is_empty());
        let notes = spaces.iter().any(|s| !s.text.is_empty());
        let mut header = vec![vec![Span::Text("Space".into())]];
        if adjacent {
            header.push(vec![Span::Text("Next to".into())]);
        }
        header.extend(values.iter().map(|v| vec![Span::Text(label(v))]));
        header.extend(attrs.iter().map(|v| vec![Span::Text(label(v))]));
        if pieces {
            header.push(vec![Span::Text("Starts with".into())]);
        }
        if notes {
            header.push(vec![Span::Text("Notes".into())]);
        }
        let mut rows = Vec::new();
        for s in spaces {
            let anchors = self.show(&[format!("space:{}", s.id)]);
            let t = |x: String| vec![Span::Text(x)];
            let mut cells = vec![t(s.name.clone())];
            if adjacent {
                cells.push(t(s.adjacent.iter().map(|a| name_of(a)).collect::<Vec<_>>().join(", ")));
            }
            cells
                .extend(values.iter().map(|v| t(s.values.get(v).map(|x| x.to_string()).unwrap_or_else(|| "—".into()))));
            cells.extend(attrs.iter().map(|v| t(s.attrs.get(v).map(|x| label(x)).unwrap_or_else(|| "—".into()))));
            if pieces {
                cells.push(t(s
                    .pieces
                    .iter()
                    .map(|(k, v)| format!("{v} {}", supply_name(k)))
                    .collect::<Vec<_>>()
                    .join(", ")));
            }
            if notes {
                cells.push(vec![Span::Markup(s.text.clone())]);
            }
            rows.push(Row { anchors, cells });
        }
        vec![Block::Table(Table { header, rows })]
    }

    /// Narrow `all` by the placeholder's `ids=` (each must exist) and
    /// `where="attribute=value"`; `None` once an error is reported (an unknown id, a bad
    /// `where`, or nothing left).
    fn select_on_board<'t, T>(
        &mut self,
        args: &Args<'_>,
        span: &Range<usize>,
        all: &'t [T],
        id: impl Fn(&T) -> &String,
        attrs: impl Fn(&T) -> &BTreeMap<String, String>,
        what: BoardPick,
    ) -> Option<Vec<&'t T>> {
        let mut list: Vec<&T> = all.iter().collect();
        if let Some(a) = args.get("ids") {
            let ids = Self::list(Some(a));
            for wanted in &ids {
                if !all.iter().any(|s| id(s) == wanted) {
                    let hint = did_you_mean(wanted, all.iter().map(|s| id(s).as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    self.error("unknown-id", &a.value_span, format!("the board has no {} `{wanted}`", what.one), hint);
                    return None;
                }
            }
            list = ids.iter().filter_map(|wanted| all.iter().find(|s| id(s) == wanted)).collect();
        }
        if let Some(a) = args.get("where") {
            let Some((k, v)) = a.value.split_once('=') else {
                self.error(
                    "bad-placeholder",
                    &a.value_span,
                    "`where` is `attribute=value`",
                    Some(format!("for example `where=\"{}\"`", what.example)),
                );
                return None;
            };
            list.retain(|s| attrs(s).get(k.trim()).is_some_and(|x| x == v.trim()));
        }
        if list.is_empty() {
            self.error("empty-selection", span, format!("this placeholder selects no {}", what.many), None);
            return None;
        }
        Some(list)
    }

    pub(super) fn supplies_block(&mut self, args: &Args<'_>, span: &Range<usize>) -> Vec<Block> {
        let Some(b) = self.board(span) else { return Vec::new() };
        let Some(list) = self.select_on_board(
            args,
            span,
            &b.supply,
            |s| &s.id,
            |s| &s.attrs,
            BoardPick::new("supply", "supplies", "kind=resource"),
        ) else {
            return Vec::new();
        };
        let rows = list
            .iter()
            .map(|s| Row {
                anchors: Vec::new(),
                cells: vec![
                    vec![Span::Text(if s.name.is_empty() { label(&s.id) } else { s.name.clone() })],
                    vec![Span::Text(s.count.to_string())],
                ],
            })
            .collect();
        vec![Block::Table(Table {
            header: vec![vec![Span::Text("Supply".into())], vec![Span::Text("Pieces".into())]],
            rows,
        })]
    }
}
