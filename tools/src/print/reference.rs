//! The rules reference: every card grouped by kind with its count, cost, values and text;
//! nobles and leaders; plaques with both sides; scenarios with a table of their options;
//! the board's spaces and supplies. HTML and Markdown come from the `reference.html` and
//! `reference.md` templates; the PDF is paginated here and drawn page by page with the
//! `reference-page.svg` template.

use std::collections::{BTreeMap, BTreeSet};

use clap::ValueEnum;
use crown_engine::content::model::{Scalar, StagePosition};
use crown_engine::content::{Def, DefKind, Pack};
use crown_engine::diag::Diagnostic;
use serde::Serialize;
use serde_json::{json, Value};

use super::context::{kind_color, print_kind, Colors};
use super::fonts::FontId;
use super::icons::IconSet;
use super::layout::{self, Align, Issue, Laid, Request, VAlign};
use super::render::parse_svg;
use super::sheet::{pt, Paper};
use super::templates::Templates;
use super::util::label;

/// Output format of `crown reference`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReferenceFormat {
    Html,
    Pdf,
    Md,
}

impl ReferenceFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ReferenceFormat::Html => "html",
            ReferenceFormat::Pdf => "pdf",
            ReferenceFormat::Md => "md",
        }
    }
}

fn numbers_text(map: &BTreeMap<String, i64>) -> String {
    map.iter().map(|(k, v)| format!("{} {v}", label(k))).collect::<Vec<_>>().join(", ")
}

fn cost_text(map: &BTreeMap<String, i64>) -> String {
    map.iter().map(|(k, v)| format!("{v} {k}")).collect::<Vec<_>>().join(", ")
}

fn scalar(s: &Scalar) -> String {
    match s {
        Scalar::Int(i) => i.to_string(),
        Scalar::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        Scalar::Str(s) => s.clone(),
    }
}

fn stage_label(p: StagePosition) -> &'static str {
    match p {
        StagePosition::FrontTop => "Front, top",
        StagePosition::FrontBottom => "Front, bottom",
        StagePosition::BackTop => "Back, top",
        StagePosition::BackBottom => "Back, bottom",
    }
}

fn entry(pack: &Pack, d: &Def) -> Value {
    let def = &d.def;
    let mut brings: BTreeMap<String, (String, i64)> = BTreeMap::new();
    for id in &def.cards {
        let name = pack.get(id).map_or_else(|| id.clone(), |x| x.def.name.clone());
        brings.entry(id.clone()).or_insert((name, 0)).1 += 1;
    }
    let brings_text = brings
        .values()
        .map(|(n, c)| if *c > 1 { format!("{n} ×{c}") } else { n.clone() })
        .collect::<Vec<_>>()
        .join(", ");
    let stages: Vec<Value> = def
        .stages
        .iter()
        .map(|s| {
            let upgrades = s
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
                .collect::<Vec<_>>()
                .join("; ");
            json!({
                "position": s.position.as_str(),
                "position_label": stage_label(s.position),
                "name": s.name,
                "values_text": numbers_text(&s.values),
                "keywords": s.keywords,
                "text": s.text,
                "checkboxes": s.checkboxes.len(),
                "upgrades_text": upgrades,
            })
        })
        .collect();
    json!({
        "id": def.id,
        "name": def.name,
        "kind": print_kind(d),
        "kind_label": label(&print_kind(d)),
        "def_kind": d.kind.as_str(),
        "count": def.count,
        "serial": def.serial,
        "keywords": def.keywords.iter().map(|k| label(k)).collect::<Vec<_>>(),
        "keywords_text": def.keywords.iter().map(|k| label(k)).collect::<Vec<_>>().join(", "),
        "values_text": numbers_text(&def.values),
        "cost_text": cost_text(&def.cost),
        "text": def.text,
        "flavor": def.flavor,
        "decks_text": def.decks.iter().map(|k| label(k)).collect::<Vec<_>>().join(", "),
        "brings_text": brings_text,
        "stages": stages,
        "back": def.back.as_ref().map(|f| json!({
            "name": if f.name.is_empty() { def.name.clone() } else { f.name.clone() },
            "text": f.text,
            "values_text": numbers_text(&f.values),
            "cost_text": cost_text(&f.cost),
            "side_label": f.attrs.get("side").cloned().unwrap_or_else(|| "Other side".into()),
        })),
        "file": d.origin.file.display().to_string(),
    })
}

/// Entries for definitions, with printed twins (same name, text, numbers and sides, in
/// different decks, say) folded into one entry whose count is their sum.
fn merged<'a>(pack: &Pack, defs: impl Iterator<Item = &'a Def>) -> Vec<Value> {
    let mut out: Vec<(Value, Value)> = Vec::new();
    for d in defs {
        let e = entry(pack, d);
        let mut sig = e.clone();
        if let Some(o) = sig.as_object_mut() {
            for k in ["id", "count", "decks_text", "file", "serial"] {
                o.remove(k);
            }
        }
        match out.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, first)) => {
                let count = first["count"].as_i64().unwrap_or(0) + e["count"].as_i64().unwrap_or(0);
                first["count"] = json!(count);
                let mut decks: Vec<String> = first["decks_text"]
                    .as_str()
                    .unwrap_or("")
                    .split(", ")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                for x in e["decks_text"].as_str().unwrap_or("").split(", ").filter(|s| !s.is_empty()) {
                    if !decks.iter().any(|y| y == x) {
                        decks.push(x.to_string());
                    }
                }
                first["decks_text"] = json!(decks.join(", "));
                if let Some(ids) = first["ids"].as_array_mut() {
                    ids.push(e["id"].clone());
                }
            }
            None => {
                let mut e = e;
                e["ids"] = json!([e["id"].clone()]);
                out.push((sig, e));
            }
        }
    }
    out.into_iter().map(|(_, e)| e).collect()
}

/// Everything the reference templates see.
pub fn reference_data(pack: &Pack) -> Value {
    let m = &pack.manifest;
    // Cards grouped by kind, kinds in alphabetical order.
    let kinds: BTreeSet<String> = pack.defs_of(DefKind::Card).map(print_kind).collect();
    let groups: Vec<Value> = kinds
        .iter()
        .map(|k| {
            let defs: Vec<&Def> = pack.defs_of(DefKind::Card).filter(|d| print_kind(d) == *k).collect();
            let copies: i64 = defs.iter().map(|d| d.def.count).sum();
            let (color, dark, _) = Colors { band: kind_color(pack, k) }.json();
            json!({
                "kind": k,
                "title": label(k),
                "color": color,
                "color_dark": dark,
                "copies": copies,
                "entries": merged(pack, defs.iter().copied()),
            })
        })
        .collect();
    let of = |k: DefKind| merged(pack, pack.defs_of(k));
    // Scenarios, and one table of every option any of them sets.
    let mut option_keys: BTreeSet<String> = BTreeSet::new();
    for s in &pack.scenarios {
        option_keys.extend(s.scenario.options.keys().cloned());
    }
    let scenarios: Vec<Value> = pack
        .scenarios
        .iter()
        .map(|e| {
            let s = &e.scenario;
            let players = s.players.unwrap_or(m.players);
            json!({
                "id": s.id,
                "name": s.name,
                "text": s.text,
                "default": s.default,
                "players": players_text(players.min, players.max),
                "options": s.options.iter().map(|(k, v)| json!({ "key": k, "label": label(k), "value": scalar(v) })).collect::<Vec<_>>(),
                "options_text": s.options.iter().map(|(k, v)| format!("{} {}", label(k), scalar(v))).collect::<Vec<_>>().join(", "),
                "cells": option_keys.iter().map(|k| s.options.get(k).map(scalar).unwrap_or_else(|| "—".into())).collect::<Vec<_>>(),
                "seats": s.seat.iter().enumerate().map(|(i, seat)| {
                    let character = seat.character.as_ref().map(|c| pack.get(c).map_or_else(|| c.clone(), |d| d.def.name.clone()));
                    let cards = seat.cards.iter().map(|c| pack.get(c).map_or_else(|| c.clone(), |d| d.def.name.clone())).collect::<Vec<_>>();
                    json!({
                        "name": seat.name.clone().unwrap_or_else(|| format!("Seat {}", i + 1)),
                        "character": character,
                        "cards_text": cards.join(", "),
                        "agent": seat.agent,
                        "values_text": numbers_text(&seat.values),
                    })
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    let board = pack.board.as_ref().map(|(b, _)| {
        let name_of = |id: &str| b.space.iter().find(|s| s.id == id).map_or_else(|| id.to_string(), |s| s.name.clone());
        json!({
            "spaces": b.space.iter().map(|s| json!({
                "id": s.id,
                "name": s.name,
                "adjacent_text": s.adjacent.iter().map(|a| name_of(a)).collect::<Vec<_>>().join(", "),
                "values_text": numbers_text(&s.values),
                "pieces_text": s.pieces.iter().map(|(k, v)| format!("{v} {k}")).collect::<Vec<_>>().join(", "),
                "text": s.text,
            })).collect::<Vec<_>>(),
            "supplies": b.supply.iter().map(|s| json!({
                "id": s.id,
                "name": if s.name.is_empty() { label(&s.id) } else { s.name.clone() },
                "count": s.count,
            })).collect::<Vec<_>>(),
            "grid": b.grid.as_ref().map(|g| json!({
                "width": g.width,
                "height": g.height,
                "rows": g.rows,
                "legend": g.legend.iter().map(|(k, v)| json!({ "char": k, "terrain": v })).collect::<Vec<_>>(),
            })),
        })
    });
    let cards_total: i64 = pack.defs_of(DefKind::Card).map(|d| d.def.count).sum();
    json!({
        "pack": {
            "id": m.id, "name": m.name, "version": m.version, "description": m.description,
            "players": players_text(m.players.min, m.players.max),
            "extends": m.extends,
        },
        "groups": groups,
        "nobles": of(DefKind::Noble),
        "leaders": of(DefKind::Leader),
        "plaques": of(DefKind::Plaque),
        "scenarios": scenarios,
        "option_columns": option_keys.iter().map(|k| label(k)).collect::<Vec<_>>(),
        "board": board,
        "totals": { "cards": cards_total, "definitions": pack.defs.len() },
    })
}

fn players_text(min: i64, max: i64) -> String {
    if min == max {
        format!("{min}")
    } else {
        format!("{min}–{max}")
    }
}

/// Render the reference. Returns the bytes and warnings (unknown icons in text, say).
pub fn render_reference(
    pack: &Pack,
    format: ReferenceFormat,
    paper: Paper,
) -> Result<(Vec<u8>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (icons, mut diags) = IconSet::for_pack(pack);
    let icons = std::sync::Arc::new(icons);
    let templates = Templates::load(pack, icons.clone())?;
    let data = reference_data(pack);
    let _ = layout::take_issues();
    let bytes = match format {
        ReferenceFormat::Html | ReferenceFormat::Md => {
            let name = if format == ReferenceFormat::Html { "reference.html" } else { "reference.md" };
            let text = templates.render(name, &data).map_err(|e| {
                vec![Diagnostic::error(
                    "template-error",
                    format!("{} failed: {e}", templates.origin(name).describe(name)),
                )]
            })?;
            text.into_bytes()
        }
        ReferenceFormat::Pdf => reference_pdf(pack, &templates, &icons, &data, paper)?,
    };
    for issue in layout::take_issues() {
        match issue {
            Issue::UnknownIcon(name) => diags.push(Diagnostic::error(
                "unknown-icon",
                format!("the icon `:{name}:` is used in the pack's text but not defined"),
            )),
            Issue::MissingGlyphs(chars) => diags.push(Diagnostic::warning(
                "missing-glyph",
                format!(
                    "characters the bundled font cannot draw: {}",
                    chars.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                ),
            )),
            Issue::Overflow { .. } => {}
        }
    }
    diags.dedup();
    Ok((bytes, diags))
}

/// A block placed on a reference page.
#[derive(Debug, Clone, Serialize)]
struct Item {
    kind: &'static str,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    color: String,
    parts: Vec<Part>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cells: Vec<Cell>,
}

/// A laid-out piece of an item, with its role (`title`, `meta` or `text`).
#[derive(Debug, Clone, Serialize)]
struct Part {
    role: &'static str,
    #[serde(flatten)]
    laid: Laid,
}

#[derive(Debug, Clone, Serialize)]
struct Cell {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    header: bool,
    text: Laid,
}

const PAGE_MARGIN: f32 = 15.0;
const GUTTER: f32 = 6.0;

struct Flow<'a> {
    icons: &'a IconSet,
    page_w: f32,
    page_h: f32,
    col_w: f32,
    pages: Vec<Vec<Item>>,
    col: usize,
    y: f32,
    /// Where the current section's entries start (a column break above it is pointless).
    section_top: f32,
}

impl Flow<'_> {
    fn top(&self) -> f32 {
        PAGE_MARGIN + 8.0
    }

    fn bottom(&self) -> f32 {
        self.page_h - PAGE_MARGIN - 4.0
    }

    fn col_x(&self) -> f32 {
        PAGE_MARGIN + self.col as f32 * (self.col_w + GUTTER)
    }

    fn lay(&self, text: &str, x: f32, y: f32, w: f32, size: f32, font: FontId) -> Laid {
        layout::layout(
            &Request {
                text,
                x,
                y,
                width: w,
                height: 10_000.0,
                size,
                min_size: size,
                line_height: 1.25,
                align: Align::Left,
                valign: VAlign::Top,
                font,
            },
            self.icons,
        )
    }

    /// The right column starts below the last full-width block (heading, table) of the
    /// page; past the right column comes a new page.
    fn new_column(&mut self) {
        if self.col == 0 {
            self.col = 1;
            self.y = self.section_top;
        } else {
            self.new_page();
        }
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.col = 0;
        self.y = self.top();
        self.section_top = self.y;
    }

    fn push(&mut self, item: Item) {
        self.pages.last_mut().expect("a page").push(item);
    }

    /// A section heading across the full width, starting a fresh row.
    fn heading(&mut self, text: &str, color: &str) {
        // Headings start in the left column, below whatever the right column holds.
        let lowest = self
            .pages
            .last()
            .map(|p| p.iter().map(|i| (i.y + i.h) as f32).fold(self.top(), f32::max))
            .unwrap_or(self.top());
        self.col = 0;
        self.y = if self.pages.last().is_some_and(|p| !p.is_empty()) { lowest + 4.0 } else { self.top() };
        if self.y + 24.0 > self.bottom() {
            self.new_page();
        }
        let t = self.lay(text, PAGE_MARGIN, self.y, self.page_w - 2.0 * PAGE_MARGIN, 5.2, FontId::SerifBold);
        let h = t.height as f32 + 2.0;
        let parts = vec![Part { role: "title", laid: t }];
        self.push(Item {
            kind: "heading",
            x: f64::from(PAGE_MARGIN),
            y: f64::from(self.y),
            w: f64::from(self.page_w - 2.0 * PAGE_MARGIN),
            h: f64::from(h),
            color: color.to_string(),
            parts,
            cells: vec![],
        });
        self.y += h + 2.5;
        self.section_top = self.y;
    }

    /// An entry: a bold title line, a grey meta line, then paragraphs.
    fn entry(&mut self, title: &str, meta: &str, paras: &[String], color: &str) {
        let build = |f: &Flow<'_>, y0: f32| -> (Vec<Part>, f32) {
            let x = f.col_x() + 2.2;
            let w = f.col_w - 3.0;
            let mut y = y0 + 1.2;
            let mut parts = Vec::new();
            let t = f.lay(title, x, y, w, 3.5, FontId::SansBold);
            y += t.height as f32 + 0.3;
            parts.push(Part { role: "title", laid: t });
            if !meta.is_empty() {
                let m = f.lay(meta, x, y, w, 2.6, FontId::SansItalic);
                y += m.height as f32 + 0.5;
                parts.push(Part { role: "meta", laid: m });
            }
            for p in paras.iter().filter(|p| !p.trim().is_empty()) {
                let l = f.lay(p, x, y, w, 3.0, FontId::Sans);
                y += l.height as f32 + 0.6;
                parts.push(Part { role: "text", laid: l });
            }
            (parts, y - y0 + 1.0)
        };
        let (mut parts, mut h) = build(self, self.y);
        if self.y + h > self.bottom() && self.y > self.section_top + 0.1 {
            self.new_column();
            (parts, h) = build(self, self.y);
        }
        let x = self.col_x();
        self.push(Item {
            kind: "entry",
            x: f64::from(x),
            y: f64::from(self.y),
            w: f64::from(self.col_w),
            h: f64::from(h),
            color: color.to_string(),
            parts,
            cells: vec![],
        });
        self.y += h + 2.2;
    }

    /// A table across the full width.
    fn table(&mut self, header: &[String], rows: &[Vec<String>], color: &str) {
        let lowest = self
            .pages
            .last()
            .map(|p| p.iter().map(|i| (i.y + i.h) as f32).fold(self.top(), f32::max))
            .unwrap_or(self.top());
        self.col = 0;
        self.y = lowest + 3.0;
        let n = header.len().max(1);
        let full = self.page_w - 2.0 * PAGE_MARGIN;
        let first = if n > 6 { full * 0.2 } else { (full * 0.3).min(60.0) };
        let rest = if n > 1 { (full - first) / (n - 1) as f32 } else { full - first };
        let widths: Vec<f32> = (0..n).map(|i| if i == 0 { first } else { rest }).collect();
        let mut all_rows = vec![(header.to_vec(), true)];
        all_rows.extend(rows.iter().map(|r| (r.clone(), false)));
        let mut cells = Vec::new();
        let y0 = self.y;
        let mut y = y0;
        for (row, is_header) in all_rows {
            let mut x = PAGE_MARGIN;
            let mut laid = Vec::new();
            let mut row_h: f32 = 0.0;
            for (i, w) in widths.iter().enumerate() {
                let text = row.get(i).cloned().unwrap_or_default();
                let font = if is_header { FontId::SansBold } else { FontId::Sans };
                // Cells shrink their type (down to 1.8 mm) until the longest word fits.
                let t = layout::layout(
                    &Request {
                        text: &text,
                        x: x + 1.2,
                        y: y + 0.8,
                        width: w - 2.4,
                        height: 10_000.0,
                        size: 2.8,
                        min_size: 1.8,
                        line_height: 1.2,
                        align: Align::Left,
                        valign: VAlign::Top,
                        font,
                    },
                    self.icons,
                );
                row_h = row_h.max(t.height as f32 + 1.6);
                laid.push((x, *w, t));
                x += w;
            }
            if y + row_h > self.bottom() {
                break;
            }
            for (x, w, t) in laid {
                cells.push(Cell {
                    x: f64::from(x),
                    y: f64::from(y),
                    w: f64::from(w),
                    h: f64::from(row_h),
                    header: is_header,
                    text: t,
                });
            }
            y += row_h;
        }
        self.push(Item {
            kind: "table",
            x: f64::from(PAGE_MARGIN),
            y: f64::from(y0),
            w: f64::from(full),
            h: f64::from(y - y0),
            color: color.to_string(),
            parts: vec![],
            cells,
        });
        self.y = y + 3.0;
        self.section_top = self.y;
    }
}

fn reference_pdf(
    pack: &Pack,
    templates: &Templates,
    icons: &IconSet,
    data: &Value,
    paper: Paper,
) -> Result<Vec<u8>, Vec<Diagnostic>> {
    let (pw, ph) = paper.mm();
    let (pw, ph) = (pw as f32, ph as f32);
    let mut flow = Flow::new(icons, pw, ph);
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let pack_color = "#3a3a3a";
    let intro = format!(
        "{} players · {} cards · version {}{}",
        s(&data["pack"]["players"]),
        data["totals"]["cards"],
        s(&data["pack"]["version"]),
        if s(&data["pack"]["description"]).is_empty() {
            String::new()
        } else {
            format!("\n\n{}", s(&data["pack"]["description"]))
        }
    );
    flow.heading(&format!("{}: rules reference", s(&data["pack"]["name"])), pack_color);
    flow.entry("About", "", &[intro], pack_color);
    let entry_paras = |e: &Value| -> (String, Vec<String>) {
        let mut meta = vec![s(&e["kind_label"])];
        if e["count"].as_i64().unwrap_or(1) != 1 {
            meta.push(format!("×{}", e["count"]));
        }
        if !s(&e["cost_text"]).is_empty() {
            meta.push(format!("cost {}", s(&e["cost_text"])));
        }
        if !s(&e["values_text"]).is_empty() {
            meta.push(s(&e["values_text"]));
        }
        if !s(&e["keywords_text"]).is_empty() {
            meta.push(s(&e["keywords_text"]));
        }
        let mut paras = vec![s(&e["text"])];
        for st in e["stages"].as_array().into_iter().flatten() {
            let mut p = format!("**{}: {}**", s(&st["position_label"]), s(&st["name"]));
            if !s(&st["values_text"]).is_empty() {
                p.push_str(&format!(" ({})", s(&st["values_text"])));
            }
            if !s(&st["text"]).is_empty() {
                p.push_str(&format!(". {}", s(&st["text"])));
            }
            if !s(&st["upgrades_text"]).is_empty() {
                p.push_str(&format!(" Upgrade: {}.", s(&st["upgrades_text"])));
            }
            paras.push(p);
        }
        if e["back"].is_object() {
            let b = &e["back"];
            let mut p = format!("**{}: {}**", s(&b["side_label"]), s(&b["name"]));
            let extra: Vec<String> =
                [s(&b["cost_text"]).to_string(), s(&b["values_text"])].into_iter().filter(|x| !x.is_empty()).collect();
            if !extra.is_empty() {
                p.push_str(&format!(" ({})", extra.join("; ")));
            }
            p.push_str(&format!(". {}", s(&b["text"])));
            paras.push(p);
        }
        if !s(&e["brings_text"]).is_empty() {
            paras.push(format!("Starts with: {}", s(&e["brings_text"])));
        }
        (meta.join(" · "), paras)
    };
    for g in data["groups"].as_array().into_iter().flatten() {
        let copies = g["copies"].as_i64().unwrap_or(0);
        flow.heading(
            &format!("{} ({copies} card{})", s(&g["title"]), if copies == 1 { "" } else { "s" }),
            &s(&g["color"]),
        );
        for e in g["entries"].as_array().into_iter().flatten() {
            let (meta, paras) = entry_paras(e);
            flow.entry(&s(&e["name"]), &meta, &paras, &s(&g["color"]));
        }
    }
    for (key, title) in [("nobles", "Nobles"), ("leaders", "Leaders"), ("plaques", "Plaques")] {
        let list = data[key].as_array().cloned().unwrap_or_default();
        if list.is_empty() {
            continue;
        }
        flow.heading(title, pack_color);
        for e in &list {
            let (meta, paras) = entry_paras(e);
            flow.entry(&s(&e["name"]), &meta, &paras, pack_color);
        }
    }
    let scenarios = data["scenarios"].as_array().cloned().unwrap_or_default();
    if !scenarios.is_empty() {
        flow.heading("Scenarios", pack_color);
        let columns: Vec<String> = data["option_columns"].as_array().into_iter().flatten().map(s).collect();
        if !columns.is_empty() {
            let mut header = vec!["Scenario".to_string()];
            header.extend(columns);
            let rows: Vec<Vec<String>> = scenarios
                .iter()
                .map(|sc| {
                    let mut r = vec![s(&sc["name"])];
                    r.extend(sc["cells"].as_array().into_iter().flatten().map(s));
                    r
                })
                .collect();
            flow.table(&header, &rows, pack_color);
        }
        for sc in &scenarios {
            let meta = format!(
                "{} players{}",
                s(&sc["players"]),
                if sc["default"].as_bool() == Some(true) { " · default" } else { "" }
            );
            let mut paras = vec![s(&sc["text"])];
            for seat in sc["seats"].as_array().into_iter().flatten() {
                let mut p = format!("**{}**", s(&seat["name"]));
                if !s(&seat["character"]).is_empty() {
                    p.push_str(&format!(": {}", s(&seat["character"])));
                }
                if !s(&seat["cards_text"]).is_empty() {
                    p.push_str(&format!(", starting with {}", s(&seat["cards_text"])));
                }
                paras.push(p);
            }
            flow.entry(&s(&sc["name"]), &meta, &paras, pack_color);
        }
    }
    if data["board"].is_object() {
        let b = &data["board"];
        flow.heading("Board", pack_color);
        if b["grid"].is_object() {
            let g = &b["grid"];
            let legend: Vec<String> = g["legend"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|l| format!("{} = {}", s(&l["char"]), s(&l["terrain"])))
                .collect();
            let rows: Vec<String> = g["rows"].as_array().into_iter().flatten().map(s).collect();
            flow.entry(
                &format!("Grid, {}×{}", g["width"], g["height"]),
                &legend.join(", "),
                &[rows.join("\n")],
                pack_color,
            );
        }
        for sp in b["spaces"].as_array().into_iter().flatten() {
            let mut paras = Vec::new();
            if !s(&sp["adjacent_text"]).is_empty() {
                paras.push(format!("Next to: {}", s(&sp["adjacent_text"])));
            }
            if !s(&sp["pieces_text"]).is_empty() {
                paras.push(format!("Starts with: {}", s(&sp["pieces_text"])));
            }
            paras.push(s(&sp["text"]));
            flow.entry(&s(&sp["name"]), &s(&sp["values_text"]), &paras, pack_color);
        }
        let supplies: Vec<String> = b["supplies"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| format!("{}: {}", s(&x["name"]), x["count"]))
            .collect();
        if !supplies.is_empty() {
            flow.entry("Supplies", "", &[supplies.join("\n")], pack_color);
        }
    }
    let pages = std::mem::take(&mut flow.pages);
    let n = pages.len();
    let mut svgs = Vec::with_capacity(n);
    for (i, items) in pages.into_iter().enumerate() {
        let ctx = json!({
            "pack": data["pack"],
            "page": { "w": pw, "h": ph, "number": i + 1, "count": n, "margin": PAGE_MARGIN },
            "items": items,
        });
        let svg = templates.render("reference-page.svg", &ctx).map_err(|e| {
            vec![Diagnostic::error(
                "template-error",
                format!("{} failed: {e}", templates.origin("reference-page.svg").describe("reference-page.svg")),
            )]
        })?;
        svgs.push(icons.attach_symbols(&svg));
    }
    let trees: Vec<_> = svgs
        .iter()
        .map(|s| parse_svg(s))
        .collect::<Result<_, _>>()
        .map_err(|e| vec![Diagnostic::error("render-error", format!("reference page is not valid SVG: {e}"))])?;
    let mut doc = krilla::Document::new_with(krilla::SerializeSettings {
        enable_tagging: false,
        xmp_metadata: false,
        ..Default::default()
    });
    let size = krilla::geom::Size::from_wh(pt(f64::from(pw)), pt(f64::from(ph))).expect("paper size");
    for t in &trees {
        let mut page = doc.start_page_with(krilla::page::PageSettings::new(size));
        let mut surface = page.surface();
        krilla_svg::SurfaceExt::draw_svg(&mut surface, t, size, krilla_svg::SvgSettings::default());
        surface.finish();
        page.finish();
    }
    doc.set_metadata(
        krilla::metadata::Metadata::new()
            .title(format!("{}: rules reference", pack.manifest.name))
            .creator("crown reference".into()),
    );
    doc.finish().map_err(|e| vec![Diagnostic::error("pdf-error", format!("could not write the PDF: {e:?}"))])
}

impl<'a> Flow<'a> {
    fn new(icons: &'a IconSet, pw: f32, ph: f32) -> Self {
        let col_w = (pw - 2.0 * PAGE_MARGIN - GUTTER) / 2.0;
        let mut f =
            Flow { icons, page_w: pw, page_h: ph, col_w, pages: vec![Vec::new()], col: 0, y: 0.0, section_top: 0.0 };
        f.y = f.top();
        f.section_top = f.y;
        f
    }
}
