//! `crown sim --report FILE`: one self-contained HTML page (inline SVG and CSS, no script,
//! nothing fetched) drawn from the summary JSON: outcomes, win rates by seat, agent and
//! character with interval bars, the game-length histogram, card impact, and the
//! comparison when there is one.

use serde_json::Value;

use crate::out::html_escape as esc;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

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

fn share_rows<'a>(items: impl Iterator<Item = (String, &'a Value)>) -> Vec<Row> {
    items
        .map(|(label, v)| Row {
            label,
            value: f(&v["rate"]),
            lo: f(&v["ci"][0]),
            hi: f(&v["ci"][1]),
            note: format!("{}/{}", v["wins"].as_u64().or(v["games"].as_u64()).unwrap_or(0), v["games"]),
            faded: false,
            strong: false,
        })
        .collect()
}

fn histogram(id: &str, hist: &[Value]) -> String {
    let (w, h, left, bottom) = (680.0, 220.0, 40.0, 30.0);
    let points: Vec<(u64, u64)> =
        hist.iter().map(|p| (p[0].as_u64().unwrap_or(0), p[1].as_u64().unwrap_or(0))).collect();
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
    for (t, g) in &points {
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
fn corrected(compared: &Value, v: &Value) -> String {
    let n = compared["cards"].as_u64().unwrap_or(0);
    if n < 2 {
        return String::new();
    }
    format!(
        " The {n} cards are compared at once: each interval is drawn at {:.2}%, so that all of them hold together at {:.0}% (Bonferroni).",
        100.0 * compared["each"].as_f64().unwrap_or(0.0),
        100.0 * v["confidence"].as_f64().unwrap_or(0.95)
    )
}

fn card_rows(cards: &Value, key: &str) -> Vec<Row> {
    let mut rows: Vec<Row> = cards
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, c)| !c[key]["value"].is_null())
        .map(|(_, c)| Row {
            label: c["name"].as_str().unwrap_or("").to_string(),
            value: f(&c[key]["value"]) * 100.0,
            lo: f(&c[key]["ci"][0]) * 100.0,
            hi: f(&c[key]["ci"][1]) * 100.0,
            note: if c["low_sample"].as_bool().unwrap_or(false) { "small sample".into() } else { String::new() },
            faded: c["low_sample"].as_bool().unwrap_or(false),
            strong: false,
        })
        .collect();
    rows.sort_by(|a, b| b.value.total_cmp(&a.value).then(a.label.cmp(&b.label)));
    rows
}

fn diff_row(label: String, d: &Value, scale: f64) -> Row {
    Row {
        label,
        value: f(&d["value"]) * scale,
        lo: f(&d["ci"][0]) * scale,
        hi: f(&d["ci"][1]) * scale,
        note: if d["real"].as_bool().unwrap_or(false) { "real".into() } else { String::new() },
        faded: false,
        strong: d["real"].as_bool().unwrap_or(false),
    }
}

fn span(rows: &[Row]) -> (f64, f64) {
    let m = rows.iter().map(|r| r.lo.abs().max(r.hi.abs())).fold(1.0f64, f64::max);
    (-m, m)
}

/// The page for one run's summary.
pub fn page(v: &Value) -> String {
    let players = v["players"].as_u64().unwrap_or(1).max(1);
    let conf = 100.0 * v["confidence"].as_f64().unwrap_or(0.95);
    let title =
        format!("{} {}: {} games", v["pack"].as_str().unwrap_or(""), v["version"].as_str().unwrap_or(""), v["games"]);
    let mut body = String::new();
    body.push_str(&format!(
        "<h1>{}</h1><p class=\"meta\">{} player{}, seed {}, agents {}, seats {}, characters {}{}. Every bar has its {conf:.0}% interval (whiskers).</p>",
        esc(&title),
        players,
        crown_engine::diag::plural(players),
        v["seed"],
        esc(&v["agents"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", ")).unwrap_or_default()),
        esc(v["seat_order"].as_str().unwrap_or("")),
        esc(v["characters_dealt"].as_str().unwrap_or("")),
        match v["overrides"].as_array() {
            Some(o) if !o.is_empty() =>
                format!("; set {}", esc(&o.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "))),
            _ => String::new(),
        }
    ));
    let outcomes: Vec<Row> = v["outcomes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| Row {
            label: o["outcome"].as_str().unwrap_or("").to_string(),
            value: f(&o["rate"]),
            lo: f(&o["ci"][0]),
            hi: f(&o["ci"][1]),
            note: format!("{} games", o["games"]),
            faded: false,
            strong: false,
        })
        .collect();
    body.push_str("<h2>How games ended</h2><p>The rows sum to all games.</p>");
    body.push_str(&interval_chart("outcomes", &outcomes, 0.0, 1.0, Some((1.0 / players as f64, "1 / players")), true));
    let seats = share_rows(v["seats"].as_array().into_iter().flatten().map(|s| {
        (format!("seat {}{}", s["seat"], s["agent"].as_str().map(|a| format!(" ({a})")).unwrap_or_default()), s)
    }));
    body.push_str("<h2>Win rate by seat</h2>");
    body.push_str(&interval_chart("seats", &seats, 0.0, 1.0, Some((1.0 / players as f64, "1 / players")), true));
    if let Some(a) = v["by_agent"].as_object().filter(|a| a.len() > 1) {
        body.push_str("<h2>Win rate by agent</h2>");
        let rows = share_rows(a.iter().map(|(k, s)| (k.clone(), s)));
        body.push_str(&interval_chart("agents", &rows, 0.0, 1.0, Some((1.0 / players as f64, "1 / players")), true));
    }
    if let Some(c) = v["characters"].as_object().filter(|c| !c.is_empty()) {
        let mut rows = share_rows(c.values().map(|s| (s["name"].as_str().unwrap_or("").to_string(), s)));
        rows.sort_by(|a, b| b.value.total_cmp(&a.value).then(a.label.cmp(&b.label)));
        body.push_str("<h2>Win rate by character</h2>");
        body.push_str(&interval_chart(
            "characters",
            &rows,
            0.0,
            1.0,
            Some((1.0 / players as f64, "1 / players")),
            true,
        ));
    }
    let l = &v["length"];
    body.push_str(&format!(
        "<h2>Game length</h2><p>{:.1} turns on average, median {}, from {} to {}.</p>",
        f(&l["mean"]),
        l["median"],
        l["min"],
        l["max"]
    ));
    body.push_str(&histogram("lengths", l["histogram"].as_array().map(Vec::as_slice).unwrap_or(&[])));
    let drawn = v["drawn_recorded"].as_bool().unwrap_or(false);
    let key = if drawn { "improvement_drawn" } else { "improvement_played" };
    let cards = card_rows(&v["cards"], key);
    if !cards.is_empty() {
        body.push_str(&format!(
            "<h2>Card impact</h2><p>{}: the win rate of player-games in which the card was {} minus those in which it was not, in points. Grey: fewer than {} player-games on a side.{}</p>",
            if drawn { "Improvement when drawn (IWD)" } else { "Improvement when played (IWP)" },
            if drawn { "drawn (entered the hand)" } else { "played" },
            v["min_sample"],
            corrected(&v["cards_compared"], v)
        ));
        let (lo, hi) = span(&cards);
        body.push_str(&interval_chart("cards", &cards, lo, hi, Some((0.0, "0")), false));
    }
    rounds(v, players, &mut body);
    if let Some(c) = v.get("compare").filter(|c| c.is_object()) {
        body.push_str(&format!(
            "<h2>Compared with {}</h2><p>The same {} games on both sides (paired seeds); this minus other, in points; red: the interval excludes 0.</p>",
            esc(c["other"].as_str().unwrap_or("")),
            c["games"]
        ));
        let mut rows: Vec<Row> = c["outcomes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|o| diff_row(o["outcome"].as_str().unwrap_or("").to_string(), &o["difference"], 100.0))
            .collect();
        rows.extend(
            c["seats"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| diff_row(format!("seat {} wins (any)", s["seat"]), &s["difference"], 100.0)),
        );
        let (lo, hi) = span(&rows);
        body.push_str(&interval_chart("compare", &rows, lo, hi, Some((0.0, "0")), false));
        let mut len: Vec<Row> = c["scores"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| !s["difference"]["value"].is_null())
            .map(|s| diff_row(format!("seat {} final score", s["seat"]), &s["difference"], 1.0))
            .collect();
        len.push(diff_row("game length (turns)".into(), &c["length"], 1.0));
        let (lo, hi) = span(&len);
        body.push_str(&interval_chart("compare-length", &len, lo, hi, Some((0.0, "0")), false));
        let mut cards: Vec<Row> = c["cards"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, x)| !x[key]["value"].is_null())
            .map(|(_, x)| diff_row(x["name"].as_str().unwrap_or("").to_string(), &x[key], 100.0))
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
fn rounds(v: &Value, players: u64, body: &mut String) {
    let r = &v["rounds"];
    if r.is_null() {
        return;
    }
    let (per, len) = (&r["per_game"], &r["length"]);
    body.push_str(&format!(
        "<h2>Rounds</h2><p>{:.1} rounds a game on average (from {} to {}); a round lasts {:.1} turns on average, median {}, from {} to {}.</p>",
        f(&per["mean"]),
        per["min"],
        per["max"],
        f(&len["mean"]),
        len["median"],
        len["min"],
        len["max"]
    ));
    body.push_str(&histogram("round-lengths", len["histogram"].as_array().map(Vec::as_slice).unwrap_or(&[])));
    if r["decided"].as_u64().unwrap_or(0) == 0 {
        body.push_str("<p>The rules name no round winners (<code>win_round</code>).</p>");
        return;
    }
    let seats = share_rows(r["seats"].as_array().into_iter().flatten().map(|s| (format!("seat {}", s["seat"]), s)));
    body.push_str(&format!("<h3>Rounds won by seat</h3><p>Of {} rounds with a result.</p>", r["decided"]));
    body.push_str(&interval_chart("round-seats", &seats, 0.0, 1.0, Some((1.0 / players as f64, "1 / players")), true));
    let cards = card_rows(&r["cards"], "improvement_played");
    if !cards.is_empty() {
        body.push_str(&format!(
            "<h3>Card impact per round</h3><p>The rate of rounds won by a seat that played the card in the round minus the rate when it did not, in points. Grey: fewer than {} seat-rounds on a side.{}</p>",
            v["min_sample"],
            corrected(&r["cards_compared"], v)
        ));
        let (lo, hi) = span(&cards);
        body.push_str(&interval_chart("round-cards", &cards, lo, hi, Some((0.0, "0")), false));
    }
}
