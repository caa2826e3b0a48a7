//! Tables across the full width (column widths shared by what each column says, rows
//! carried over to the next page under the header again) and the board's grid.

use super::flow::Flow;
use super::markup::markup;
use super::{Cell, Item, Part, BODY, INK, PAGE_MARGIN};
use crate::fonts::{self, FontId};
use crate::layout::{self, Align, Request, VAlign};
use crate::ref_doc::Table;

impl Flow<'_> {
    /// Column widths that share the page width by how much each column has to say.
    fn widths(&self, rows: &[Vec<String>]) -> Vec<f32> {
        let n = rows.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let full = self.full_w();
        let mut want = vec![0.0f32; n];
        let mut word = vec![0.0f32; n];
        for (r, row) in rows.iter().enumerate() {
            let font = if r == 0 { FontId::SansBold } else { FontId::Sans };
            for (i, c) in row.iter().enumerate() {
                let plain: String = c.replace("**", "");
                let w = plain.split_whitespace().map(|x| fonts::width_em(font, x)).fold(0.0, f32::max) * 2.8 + 2.6;
                word[i] = word[i].max(w);
                // A header may wrap between its words; the cells below set the width.
                let longest = if r == 0 {
                    w
                } else {
                    plain.lines().map(|l| layout::measure(l, font, self.icons)).fold(0.0, f32::max) * 2.8 + 2.6
                };
                want[i] = want[i].max(longest);
            }
        }
        let total: f32 = want.iter().sum();
        if total <= full {
            let extra = (full - total) / n as f32;
            return want.iter().map(|w| w + extra).collect();
        }
        // Narrow columns keep their width; the others share what is left by weight.
        let mut widths = vec![0.0f32; n];
        let mut fixed = vec![false; n];
        // The first column names the row: it keeps its width unless that is very wide.
        if want[0] <= full * 0.25 {
            widths[0] = want[0];
            fixed[0] = true;
        }
        loop {
            let used: f32 = (0..n).filter(|&i| fixed[i]).map(|i| widths[i]).sum();
            let weight: f32 = (0..n).filter(|&i| !fixed[i]).map(|i| want[i]).sum();
            let left = full - used;
            let mut changed = false;
            for i in 0..n {
                if fixed[i] {
                    continue;
                }
                let share = left * want[i] / weight.max(1e-3);
                if want[i] <= share {
                    widths[i] = want[i];
                    fixed[i] = true;
                    changed = true;
                }
            }
            if !changed {
                for i in 0..n {
                    if !fixed[i] {
                        widths[i] = (left * want[i] / weight.max(1e-3)).max(word[i].min(left * 0.5));
                    }
                }
                break;
            }
        }
        let sum: f32 = widths.iter().sum();
        widths.iter().map(|w| w * full / sum).collect()
    }

    /// A table across the full width; rows that do not fit go on to the next page under
    /// the header again.
    pub(super) fn table(&mut self, t: &Table, color: &str) {
        let mut links = Vec::new();
        let header: Vec<String> = t.header.iter().map(|c| markup(c, self.known, &mut links)).collect();
        let rows: Vec<(Vec<String>, Vec<String>)> = t
            .rows
            .iter()
            .map(|r| (r.cells.iter().map(|c| markup(c, self.known, &mut links)).collect(), r.anchors.clone()))
            .collect();
        let mut all = vec![header.clone()];
        all.extend(rows.iter().map(|r| r.0.clone()));
        let widths = self.widths(&all);
        self.full_width_start(16.0);
        let lay_row = |f: &Flow<'_>, row: &[String], y: f32, header: bool| -> (Vec<Cell>, f32) {
            let mut x = PAGE_MARGIN;
            let mut laid = Vec::new();
            let mut row_h: f32 = 0.0;
            for (i, w) in widths.iter().enumerate() {
                let text = row.get(i).cloned().unwrap_or_default();
                let font = if header { FontId::SansBold } else { FontId::Sans };
                let l = layout::layout(
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
                    f.icons,
                );
                row_h = row_h.max(l.height as f32 + 1.6);
                laid.push((x, *w, l));
                x += w;
            }
            let cells = laid
                .into_iter()
                .map(|(x, w, l)| Cell {
                    x: f64::from(x),
                    y: f64::from(y),
                    w: f64::from(w),
                    h: f64::from(row_h),
                    header,
                    text: l,
                })
                .collect();
            (cells, row_h)
        };
        let mut cells = Vec::new();
        let mut anchors = Vec::new();
        let mut y0 = self.y;
        let (hc, hh) = lay_row(self, &header, self.y, true);
        cells.extend(hc);
        let mut y = self.y + hh;
        for (row, row_anchors) in &rows {
            let (mut rc, mut rh) = lay_row(self, row, y, false);
            if y + rh > self.bottom() && !cells.iter().all(|c| c.header) {
                // The page is full: close this part of the table, go on on the next page.
                self.push(Item {
                    kind: "table",
                    x: f64::from(PAGE_MARGIN),
                    y: f64::from(y0),
                    w: f64::from(self.full_w()),
                    h: f64::from(y - y0),
                    color: color.to_string(),
                    parts: vec![],
                    cells: std::mem::take(&mut cells),
                    anchors: std::mem::take(&mut anchors),
                    links: links.clone(),
                });
                self.new_page();
                y0 = self.y;
                let (hc, hh) = lay_row(self, &header, y0, true);
                cells.extend(hc);
                y = y0 + hh;
                (rc, rh) = lay_row(self, row, y, false);
            }
            cells.extend(rc);
            anchors.extend(row_anchors.iter().cloned());
            y += rh;
        }
        self.push(Item {
            kind: "table",
            x: f64::from(PAGE_MARGIN),
            y: f64::from(y0),
            w: f64::from(self.full_w()),
            h: f64::from(y - y0),
            color: color.to_string(),
            parts: vec![],
            cells,
            anchors,
            links,
        });
        self.full_width_end(y + 3.0);
    }

    /// The board's grid: a square per tile, then its legend.
    pub(super) fn grid(&mut self, rows: &[String], legend: &[(String, String)]) {
        let w = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        let side = (self.full_w() / w.max(1) as f32).min(5.0);
        self.full_width_start(side * rows.len() as f32 + 12.0);
        let intro = format!(
            "Grid of {w} × {} tiles: {}.",
            rows.len(),
            legend.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
        );
        let top = self.y;
        let t = self.lay(&intro, PAGE_MARGIN, top, self.full_w(), BODY, FontId::Sans);
        let mut y = top + t.height as f32 + 1.5;
        let mut cells = Vec::new();
        for r in rows {
            for (i, c) in r.chars().enumerate() {
                let x = PAGE_MARGIN + i as f32 * side;
                let l =
                    self.lay_with(&c.to_string(), x, y + side * 0.18, side, side * 0.62, FontId::Sans, Align::Center);
                cells.push(Cell {
                    x: f64::from(x),
                    y: f64::from(y),
                    w: f64::from(side),
                    h: f64::from(side),
                    header: false,
                    text: l,
                });
            }
            y += side;
        }
        self.push(Item {
            kind: "table",
            x: f64::from(PAGE_MARGIN),
            y: f64::from(top),
            w: f64::from(self.full_w()),
            h: f64::from(y - top),
            color: INK.into(),
            parts: vec![Part { role: "text", laid: t }],
            cells,
            anchors: vec![],
            links: vec![],
        });
        self.full_width_end(y + 3.0);
    }
}
