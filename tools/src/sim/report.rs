//! `crown sim --report FILE`: one self-contained HTML page (inline SVG and CSS, no script,
//! nothing fetched) drawn from the typed summary: outcomes, win rates by seat, agent and
//! character with interval bars, the game-length histogram, card impact, and the
//! comparison when there is one.

use std::collections::BTreeMap;

use super::figures::{or_null, CardFigures, Comparisons, Diff, Share};
use super::summary::Summary;
use super::FullSummary;
use crate::out::html_escape as esc;

/// One row of an interval chart: label, estimate, interval, a note, whether to fade it.
struct Row {
    label: String,
    value: f64,
    lo: f64,
    hi: f64,
    note: String,
    faded: bool,
    strong: bool,
}

/// Horizontal bars (from `zero`) with interval whiskers, on the axis `[min, max]`.
fn interval_chart(id: &str, rows: &[Row], min: f64, max: f64, reference: Option<(f64, &str)>, percent: bool) -> String {
    let (left, width, row_h) = (240.0, 440.0, 22.0);
    let h = 30.0 + row_h * rows.len() as f64 + 20.0;
    let x = |v: f64| left + width * ((v.clamp(min, max) - min) / (max - min).max(1e-9));
    let fmt = |v: f64| if percent { format!("{:.1}%", 100.0 * v) } else { format!("{v:+.1}") };
    let mut s = format!(
        r#"<svg class="chart" id="{id}" role="img" xmlns="http://www.w3.org/2000/svg" width="{}" height="{h}" viewBox="0 0 {} {h}">"#,
        left + width + 200.0,
        left + width + 200.0
    );
    // Axis ticks: five steps.
    for k in 0..=4 {
        let v = min + (max - min) * k as f64 / 4.0;
        let xv = x(v);
        s.push_str(&format!(
            r##"<line x1="{xv:.1}" y1="20" x2="{xv:.1}" y2="{:.1}" stroke="#ddd"/><text x="{xv:.1}" y="14" font-size="10" text-anchor="middle" fill="#666">{}</text>"##,
            h - 20.0,
            esc(&fmt(v))
        ));
    }
    let zero = if min <= 0.0 && max >= 0.0 { 0.0 } else { min };
    for (i, r) in rows.iter().enumerate() {
        let y = 30.0 + row_h * i as f64;
        let (x0, x1) = (x(zero.min(r.value)), x(zero.max(r.value)));
        let colour = if r.strong {
            "#c0392b"
        } else if r.faded {
            "#bbb"
        } else {
            "#4a78b5"
        };
        s.push_str(&format!(
            r##"<g class="row"><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="end">{}</text><rect class="bar" x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}" opacity="0.75"><title>{}: {} [{}, {}] {}</title></rect><line class="ci" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-width="1.5"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222"/><text x="{:.1}" y="{:.1}" font-size="11" fill="#333">{} [{}, {}] {}</text></g>"##,
            left - 8.0,
            y + 12.0,
            esc(&r.label),
            y + 3.0,
            (x1 - x0).max(1.0),
            row_h - 8.0,
            esc(&r.label),
            esc(&fmt(r.value)),
            esc(&fmt(r.lo)),
            esc(&fmt(r.hi)),
            esc(&r.note),
            x(r.lo),
            y + 8.0,
            x(r.hi),
            y + 8.0,
            x(r.lo),
            y + 4.0,
            x(r.lo),
            y + 12.0,
            x(r.hi),
            y + 4.0,
            x(r.hi),
            y + 12.0,
            left + width + 8.0,
            y + 12.0,
            esc(&fmt(r.value)),
            esc(&fmt(r.lo)),
            esc(&fmt(r.hi)),
            esc(&r.note),
        ));
    }
    if let Some((v, label)) = reference {
        let xv = x(v);
        s.push_str(&format!(
            r##"<line class="reference" x1="{xv:.1}" y1="20" x2="{xv:.1}" y2="{:.1}" stroke="#e67e22" stroke-dasharray="4 3"/><text x="{xv:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#e67e22">{}</text>"##,
            h - 20.0,
            h - 6.0,
            esc(label)
        ));
    }
    s.push_str("</svg>");
    s
}

fn share_rows<'a>(items: impl Iterator<Item = (String, &'a Share)>) -> Vec<Row> {
    items
        .map(|(label, v)| Row {
            label,
            value: v.rate,
            lo: v.ci[0],
            hi: v.ci[1],
            note: format!("{}/{}", v.wins, v.games),
            faded: false,
            strong: false,
        })
        .collect()
}

fn histogram(id: &str, points: &[(u64, u64)]) -> String {
    let (w, h, left, bottom) = (680.0, 220.0, 40.0, 30.0);
    let (Some(lo), Some(hi)) = (points.first().map(|p| p.0), points.last().map(|p| p.0)) else {
        return format!(
            r#"<svg class="chart" id="{id}" xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>"#
        );
    };
    let top = points.iter().map(|p| p.1).max().unwrap_or(1).max(1) as f64;
    let span = (hi - lo + 1) as f64;
    let bw = (w - left) / span;
    let mut s = format!(
        r#"<svg class="chart" id="{id}" role="img" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    for (t, g) in points {
        let bh = (h - bottom - 10.0) * *g as f64 / top;
        let x = left + bw * (t - lo) as f64;
        s.push_str(&format!(
            r##"<rect class="bar" x="{x:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="#4a78b5"><title>{t} turns: {g} games</title></rect>"##,
            h - bottom - bh,
            (bw - 1.0).max(0.5)
        ));
    }
    s.push_str(&format!(
        r##"<line x1="{left}" y1="{:.1}" x2="{w}" y2="{:.1}" stroke="#333"/><text x="{left}" y="{:.1}" font-size="11">{lo}</text><text x="{w}" y="{:.1}" font-size="11" text-anchor="end">{hi} turns</text><text x="{:.1}" y="12" font-size="11" text-anchor="end">{top} games</text>"##,
        h - bottom,
        h - bottom,
        h - bottom + 16.0,
        h - bottom + 16.0,
        left - 4.0
    ));
    s.push_str("</svg>");
    s
}

/// The sentence saying how card intervals are corrected for their number.
fn corrected(compared: &Comparisons, v: &Summary) -> String {
    let n = compared.cards;
    if n < 2 {
        return String::new();
    }
    format!(
        " The {n} cards are compared at once: each interval is drawn at {:.2}%, so that all of them hold together at {:.0}% (Bonferroni).",
        100.0 * compared.each,
        100.0 * v.confidence
    )
}

/// The cards' improvements (when drawn if `drawn`, else when played), in points, largest
/// first; a card with no figure on a side is left out.
fn card_rows(cards: &BTreeMap<String, CardFigures>, drawn: bool) -> Vec<Row> {
    let mut rows: Vec<Row> = (cards.values())
        .filter_map(|c| Some((c, c.improvement(drawn)?)))
        .filter(|(_, d)| d.value.is_some())
        .map(|(c, d)| Row {
            label: c.name.clone(),
            value: d.value_or_zero() * 100.0,
            lo: d.lo() * 100.0,
            hi: d.hi() * 100.0,
            note: if c.low_sample { "small sample".into() } else { String::new() },
            faded: c.low_sample,
            strong: false,
        })
        .collect();
    rows.sort_by(|a, b| b.value.total_cmp(&a.value).then(a.label.cmp(&b.label)));
    rows
}

fn diff_row(label: String, d: &Diff, scale: f64) -> Row {
    Row {
        label,
        value: d.value_or_zero() * scale,
        lo: d.lo() * scale,
        hi: d.hi() * scale,
        note: if d.real { "real".into() } else { String::new() },
        faded: false,
        strong: d.real,
    }
}

fn span(rows: &[Row]) -> (f64, f64) {
    let m = rows.iter().map(|r| r.lo.abs().max(r.hi.abs())).fold(1.0f64, f64::max);
    (-m, m)
}

/// The page for one run's summary.
pub fn page(full: &FullSummary) -> String {
    let v = &full.summary;
    let players = (v.players as u64).max(1);
    let conf = 100.0 * v.confidence;
    let title = format!("{} {}: {} games", v.pack, v.version, v.games);
    let mut body = String::new();
    body.push_str(&format!(
        "<h1>{}</h1><p class=\"meta\">{} player{}, seed {}, agents {}, seats {}, characters {}{}. Every bar has its {conf:.0}% interval (whiskers).</p>",
        esc(&title),
        players,
        crown_engine::diag::plural(players),
        v.seed,
        esc(&v.agents.join(", ")),
        esc(v.seat_order),
        esc(&v.characters_dealt),
        if v.overrides.is_empty() { String::new() } else { format!("; set {}", esc(&v.overrides.join(" "))) }
    ));
    let outcomes: Vec<Row> = (v.outcomes.iter())
        .map(|o| Row {
            label: o.outcome.clone(),
            value: o.count.rate,
            lo: o.count.ci[0],
            hi: o.count.ci[1],
            note: format!("{} games", o.count.games),
            faded: false,
            strong: false,
        })
        .collect();
    let by_players = Some((1.0 / players as f64, "1 / players"));
    body.push_str("<h2>How games ended</h2><p>The rows sum to all games.</p>");
    body.push_str(&interval_chart("outcomes", &outcomes, 0.0, 1.0, by_players, true));
    let seats = share_rows(v.seats.iter().map(|s| {
        let agent = match &s.agent {
            Some(Some(a)) => format!(" ({a})"),
            _ => String::new(),
        };
        (format!("seat {}{agent}", s.seat), &s.share)
    }));
    body.push_str("<h2>Win rate by seat</h2>");
    body.push_str(&interval_chart("seats", &seats, 0.0, 1.0, by_players, true));
    if v.by_agent.len() > 1 {
        body.push_str("<h2>Win rate by agent</h2>");
        let rows = share_rows(v.by_agent.iter().map(|(k, s)| (k.clone(), s)));
        body.push_str(&interval_chart("agents", &rows, 0.0, 1.0, by_players, true));
    }
    if !v.characters.is_empty() {
        let mut rows = share_rows(v.characters.values().map(|c| (c.name.clone(), &c.share)));
        rows.sort_by(|a, b| b.value.total_cmp(&a.value).then(a.label.cmp(&b.label)));
        body.push_str("<h2>Win rate by character</h2>");
        body.push_str(&interval_chart("characters", &rows, 0.0, 1.0, by_players, true));
    }
    let l = &v.length;
    body.push_str(&format!(
        "<h2>Game length</h2><p>{:.1} turns on average, median {}, from {} to {}.</p>",
        l.mean,
        l.median,
        or_null(l.min),
        or_null(l.max)
    ));
    body.push_str(&histogram("lengths", &l.histogram));
    let drawn = v.drawn_recorded;
    let cards = card_rows(&v.cards, drawn);
    if !cards.is_empty() {
        body.push_str(&format!(
            "<h2>Card impact</h2><p>{}: the win rate of player-games in which the card was {} minus those in which it was not, in points. Grey: fewer than {} player-games on a side.{}</p>",
            if drawn { "Improvement when drawn (IWD)" } else { "Improvement when played (IWP)" },
            if drawn { "drawn (entered the hand)" } else { "played" },
            v.min_sample,
            corrected(&v.cards_compared, v)
        ));
        let (lo, hi) = span(&cards);
        body.push_str(&interval_chart("cards", &cards, lo, hi, Some((0.0, "0")), false));
    }
    rounds(v, players, &mut body);
    if let Some(c) = &full.compare {
        body.push_str(&format!(
            "<h2>Compared with {}</h2><p>The same {} games on both sides (paired seeds); this minus other, in points; red: the interval excludes 0.</p>",
            esc(&c.other),
            c.games
        ));
        let mut rows: Vec<Row> = c.outcomes.iter().map(|o| diff_row(o.outcome.clone(), &o.difference, 100.0)).collect();
        rows.extend(c.seats.iter().map(|s| diff_row(format!("seat {} wins (any)", s.seat), &s.difference, 100.0)));
        let (lo, hi) = span(&rows);
        body.push_str(&interval_chart("compare", &rows, lo, hi, Some((0.0, "0")), false));
        let mut len: Vec<Row> = (c.scores.iter())
            .filter(|s| s.difference.value.is_some())
            .map(|s| diff_row(format!("seat {} final score", s.seat), &s.difference, 1.0))
            .collect();
        len.push(diff_row("game length (turns)".into(), &c.length, 1.0));
        let (lo, hi) = span(&len);
        body.push_str(&interval_chart("compare-length", &len, lo, hi, Some((0.0, "0")), false));
        let improvement = |x: &super::compare::CardChange| {
            if drawn {
                x.improvement_drawn
            } else {
                Some(x.improvement_played)
            }
        };
        let mut cards: Vec<Row> = (c.cards.values())
            .filter_map(|x| Some((x, improvement(x)?)))
            .filter(|(_, d)| d.value.is_some())
            .map(|(x, d)| diff_row(x.name.clone(), &d, 100.0))
            .collect();
        cards.sort_by(|a, b| b.value.total_cmp(&a.value).then(a.label.cmp(&b.label)));
        if !cards.is_empty() {
            body.push_str(&format!("<h3>Change in card impact ({})</h3>", if drawn { "IWD" } else { "IWP" }));
            let (lo, hi) = span(&cards);
            body.push_str(&interval_chart("compare-cards", &cards, lo, hi, Some((0.0, "0")), false));
        }
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:960px;color:#222}}h2{{margin-top:2em;border-bottom:1px solid #ddd}}.meta{{color:#555}}svg{{display:block;max-width:100%;height:auto}}</style></head><body>{body}</body></html>\n",
        esc(&title)
    )
}

/// The rounds section, where the rules keep rounds: rounds a game, their length, and where
/// the rules name round winners, rounds won by seat and card impact per round.
fn rounds(v: &Summary, players: u64, body: &mut String) {
    let Some(r) = &v.rounds else { return };
    let (per, len) = (&r.per_game, &r.length);
    body.push_str(&format!(
        "<h2>Rounds</h2><p>{:.1} rounds a game on average (from {} to {}); a round lasts {:.1} turns on average, median {}, from {} to {}.</p>",
        per.mean,
        or_null(per.min),
        or_null(per.max),
        len.mean,
        len.median,
        or_null(len.min),
        or_null(len.max)
    ));
    body.push_str(&histogram("round-lengths", &len.histogram));
    if r.decided == 0 {
        body.push_str("<p>The rules name no round winners (<code>win_round</code>).</p>");
        return;
    }
    let seats = share_rows(r.seats.iter().map(|s| (format!("seat {}", s.seat), &s.share)));
    body.push_str(&format!("<h3>Rounds won by seat</h3><p>Of {} rounds with a result.</p>", r.decided));
    body.push_str(&interval_chart("round-seats", &seats, 0.0, 1.0, Some((1.0 / players as f64, "1 / players")), true));
    let cards = card_rows(&r.cards, false);
    if !cards.is_empty() {
        body.push_str(&format!(
            "<h3>Card impact per round</h3><p>The rate of rounds won by a seat that played the card in the round minus the rate when it did not, in points. Grey: fewer than {} seat-rounds on a side.{}</p>",
            v.min_sample,
            corrected(&r.cards_compared, v)
        ));
        let (lo, hi) = span(&cards);
        body.push_str(&interval_chart("round-cards", &cards, lo, hi, Some((0.0, "0")), false));
    }
}
