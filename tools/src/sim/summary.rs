//! The summary of a run: one JSON value holding every figure (`--json`, the report and
//! the terminal table are all drawn from it), built from integer statistics alone, so a
//! merged sharded run prints the same bytes as one unsharded run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::interval::{each_of, newcombe, rate, wilson_z, z_for};
use super::plan::SeatOrder;
use super::stats::{CardTally, RoundStats, ScoreSum, Stats, Tally};
use crown_engine::content::Pack;

/// What a run was: everything but the statistics. Shards of one run have equal `RunInfo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub pack: String,
    pub version: String,
    /// The digest of the content and scripts played (`crown check --digest`; with
    /// `--compare`, the other side's after it): shards of one run played the same files.
    pub content: String,
    /// The crown that played the games.
    pub crown: String,
    /// `--max-failures`: a merge counts failures across shards against it, as one run would.
    pub max_failures: u64,
    pub scenario: Option<String>,
    pub seed: u64,
    /// Games in the whole run (all shards).
    pub games: u64,
    pub players: usize,
    /// The bot of each role (`--agents`).
    pub agents: Vec<String>,
    pub seat_order: SeatOrder,
    pub characters: String,
    /// `--set` overrides applied to this side, as written.
    pub overrides: Vec<String>,
    pub confidence: f64,
    pub min_sample: u64,
    /// `--compare`: what the other side is.
    pub compare: Option<String>,
    /// `--compare-agents`: the other side's bot of each role (empty: the same as `agents`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compare_agents: Vec<String>,
    /// Display name of every definition id (cards sharing a name get their id added).
    pub names: BTreeMap<String, String>,
}

impl RunInfo {
    /// Names of the pack's definitions, for the table.
    pub fn names_of(pack: &Pack) -> BTreeMap<String, String> {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for d in &pack.defs {
            *count.entry(d.def.name.as_str()).or_default() += 1;
        }
        pack.defs
            .iter()
            .map(|d| {
                let n = if count.get(d.def.name.as_str()).copied().unwrap_or(0) > 1 {
                    format!("{} ({})", d.def.name, d.def.id)
                } else {
                    d.def.name.clone()
                };
                (d.def.id.clone(), n)
            })
            .collect()
    }
}

pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// `{games, wins, rate, ci}` for `k` of `n`.
pub fn share(k: u64, n: u64, z: f64) -> Value {
    let (lo, hi) = wilson_z(k, n, z);
    json!({ "games": n, "wins": k, "rate": round4(rate(k, n)), "ci": [round4(lo), round4(hi)] })
}

/// A difference with its interval and whether the interval excludes 0.
pub fn diff(d: (f64, f64, f64)) -> Value {
    json!({ "value": round4(d.0), "ci": [round4(d.1), round4(d.2)], "real": d.1 > 0.0 || d.2 < 0.0 })
}

/// The improvement `k1/n1 - k2/n2` (null when a side has no player-games).
fn improvement(k1: u64, n1: u64, k2: u64, n2: u64, z: f64) -> Value {
    if n1 == 0 || n2 == 0 {
        return json!({ "value": null, "ci": null, "real": false });
    }
    diff(newcombe(k1, n1, k2, n2, z))
}

/// Label of outcome row `k` of `players + 4`.
pub fn outcome_label(k: usize, players: usize) -> String {
    match k.checked_sub(players) {
        None => format!("seat {} wins alone", k + 1),
        Some(0) => "shared win (2+ winners)".into(),
        Some(1) => "finished, no winner".into(),
        Some(2) => "turn limit".into(),
        _ => "failed".into(),
    }
}

/// The summary of one side.
pub fn summary(run: &RunInfo, s: &Stats) -> Value {
    let z = z_for(run.confidence);
    let n = run.players;
    let played = s.played();
    let outcomes: Vec<Value> = s
        .outcome_counts(n)
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let (lo, hi) = wilson_z(c, s.games, z);
            json!({ "outcome": outcome_label(k, n), "games": c, "rate": round4(rate(c, s.games)), "ci": [round4(lo), round4(hi)] })
        })
        .collect();
    // Why the finished games ended, most common first (ties by reason).
    let mut endings: Vec<(&String, u64)> = s.endings.iter().map(|(r, &c)| (r, c)).collect();
    endings.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let endings: Vec<Value> = endings
        .into_iter()
        .map(|(r, c)| {
            let (lo, hi) = wilson_z(c, s.finished, z);
            json!({ "reason": r, "games": c, "rate": round4(rate(c, s.finished)), "ci": [round4(lo), round4(hi)] })
        })
        .collect();
    let seats: Vec<Value> = (0..n)
        .map(|i| {
            let w = s.seat_wins.get(i).copied().unwrap_or(0);
            let mut v = share(w, played, z);
            v["seat"] = json!(i + 1);
            if run.seat_order == SeatOrder::Fixed {
                v["agent"] = json!(run.agents.get(i));
            }
            v
        })
        .collect();
    let characters: serde_json::Map<String, Value> = s
        .characters
        .iter()
        .map(|(k, t)| {
            let mut v = share(t.wins, t.games, z);
            v["name"] = json!(run.names.get(k).unwrap_or(k));
            (k.clone(), v)
        })
        .collect();
    let mut by_agent: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for (r, t) in s.roles.iter().enumerate() {
        let e = by_agent.entry(run.agents.get(r).map_or("?", String::as_str)).or_default();
        e.0 += t.games;
        e.1 += t.wins;
    }
    let agents: serde_json::Map<String, Value> =
        by_agent.into_iter().map(|(k, (g, w))| (k.to_string(), share(w, g, z))).collect();
    let mut scores_by_agent: BTreeMap<&str, ScoreSum> = BTreeMap::new();
    for (r, t) in s.role_scores.iter().enumerate() {
        scores_by_agent.entry(run.agents.get(r).map_or("?", String::as_str)).or_default().add(*t);
    }
    let scores: serde_json::Map<String, Value> = scores_by_agent
        .into_iter()
        .filter_map(|(k, t)| {
            let (m, lo, hi) = t.mean_ci(z)?;
            Some((k.to_string(), json!({ "games": t.n, "mean": round4(m), "ci": [round4(lo), round4(hi)] })))
        })
        .collect();
    let base = s.player_games;
    // Every card is compared with the rest at once: intervals corrected for their number.
    let each = each_of(run.confidence, s.cards.len());
    let z_cards = z_for(each);
    let cards: serde_json::Map<String, Value> = (s.cards.iter())
        .map(|(id, c)| {
            (
                id.clone(),
                card_figures(&run.names, id, c, base, z_cards, run.min_sample, s.drawn_recorded, s.discards_recorded),
            )
        })
        .collect();
    let length = Histogram(&s.lengths).figures(rate(s.turns, played));
    json!({
        "pack": run.pack,
        "version": run.version,
        "content": run.content,
        "scenario": run.scenario,
        "seed": run.seed,
        "games": s.games,
        "players": n,
        "agents": run.agents,
        // Random bots rank cards as random play does, not as people play.
        "random_bots": run.agents.iter().any(|a| a == "random"),
        "seat_order": run.seat_order.as_str(),
        "characters_dealt": run.characters,
        "overrides": run.overrides,
        "confidence": run.confidence,
        "min_sample": run.min_sample,
        "finished": s.finished,
        "turn_limit": s.turn_limit,
        "turn_limited_games": s.turn_limited,
        "failed": s.failed,
        "outcomes": outcomes,
        "endings": endings,
        "avg_turns": round4(rate(s.turns, played)),
        "length": length,
        "seats": seats,
        "characters": characters,
        "by_agent": agents,
        "score_by_agent": scores,
        "player_games": share(base.wins, base.games, z),
        "drawn_recorded": s.drawn_recorded,
        "discards_recorded": s.discards_recorded,
        "cards": cards,
        "cards_compared": comparisons(s.cards.len(), each),
        "rounds": rounds_section(&s.rounds, &run.names, run.confidence, run.min_sample, s.discards_recorded),
    })
}

/// A count of things by size (game lengths, rounds a game, turns a round).
pub struct Histogram<'a>(pub &'a BTreeMap<u64, u64>);

impl Histogram<'_> {
    /// `{mean, median, min, max, histogram}`, given the mean.
    pub fn figures(&self, mean: f64) -> Value {
        let total: u64 = self.0.values().sum();
        let mut left = total.div_ceil(2);
        let mut median = 0;
        for (&k, &n) in self.0 {
            median = k;
            if n >= left {
                break;
            }
            left -= n;
        }
        let histogram: Vec<Value> = self.0.iter().map(|(k, n)| json!([k, n])).collect();
        json!({
            "mean": round4(mean),
            "median": median,
            "min": self.0.keys().next(),
            "max": self.0.keys().next_back(),
            "histogram": histogram,
        })
    }
}

/// How the card intervals were corrected for their number: `comparisons` cards, each
/// interval at confidence `each` (Bonferroni).
pub fn comparisons(comparisons: usize, each: f64) -> Value {
    json!({ "method": "Bonferroni", "cards": comparisons, "each": each })
}

/// One card's figures against `base` (player-games, or seat-rounds): win rate when played
/// and not, the improvement, the same for drawn and discarded where those are measured.
#[allow(clippy::too_many_arguments)]
pub fn card_figures(
    names: &BTreeMap<String, String>,
    id: &str,
    c: &CardTally,
    base: Tally,
    z: f64,
    min_sample: u64,
    drawn: bool,
    discards: bool,
) -> Value {
    let not_in = base.games - c.played_in.min(base.games);
    let not_wins = base.wins - c.played_wins.min(base.wins);
    let mut v = json!({
        "name": names.get(id).map_or(id, String::as_str),
        "plays": c.plays,
        "played": share(c.played_wins, c.played_in, z),
        "not_played": share(not_wins, not_in, z),
        "improvement_played": improvement(c.played_wins, c.played_in, not_wins, not_in, z),
    });
    let mut low = c.played_in.min(not_in) < min_sample;
    if drawn {
        let nd_in = base.games - c.drawn_in.min(base.games);
        let nd_wins = base.wins - c.drawn_wins.min(base.wins);
        v["drawn"] = share(c.drawn_wins, c.drawn_in, z);
        v["not_drawn"] = share(nd_wins, nd_in, z);
        v["improvement_drawn"] = improvement(c.drawn_wins, c.drawn_in, nd_wins, nd_in, z);
        low |= c.drawn_in.min(nd_in) < min_sample;
    }
    if discards {
        // Lost from the hand by a forced discard: counted apart, never as "not played".
        v["discarded"] = share(c.discarded_wins, c.discarded_in, z);
    }
    v["low_sample"] = json!(low);
    v
}

fn pct(v: &Value) -> String {
    format!("{:.1}%", 100.0 * v.as_f64().unwrap_or(0.0))
}

fn ci(v: &Value) -> String {
    format!("[{:.1}-{:.1}]", 100.0 * v[0].as_f64().unwrap_or(0.0), 100.0 * v[1].as_f64().unwrap_or(0.0))
}

fn signed_ci(v: &Value) -> String {
    if v["value"].is_null() {
        return "n/a (one side empty)".into();
    }
    format!(
        "{:+.1} [{:+.1}, {:+.1}]",
        100.0 * v["value"].as_f64().unwrap_or(0.0),
        100.0 * v["ci"][0].as_f64().unwrap_or(0.0),
        100.0 * v["ci"][1].as_f64().unwrap_or(0.0)
    )
}

pub fn share_row(label: &str, v: &Value) -> String {
    format!("  {label:<34} {:>6}  {:<13} {}/{}", pct(&v["rate"]), ci(&v["ci"]), v["wins"], v["games"])
}

/// A row of games counted: `label`, then the rate, its interval and the games of `v`.
fn count_row(label: &str, v: &Value, width: usize) -> String {
    format!("  {label:<width$} {:>6}  {:<13} {}", pct(&v["rate"]), ci(&v["ci"]), v["games"])
}

/// The terminal table, drawn from the summary.
pub fn print(v: &Value) {
    let conf = 100.0 * v["confidence"].as_f64().unwrap_or(0.95);
    let players = v["players"].as_u64().unwrap_or(0);
    println!(
        "{} game{} of {} {} ({} player{}, seed {}, agents {}; seats {}, characters {}{})",
        v["games"],
        crown_engine::diag::plural(v["games"].as_u64().unwrap_or(0)),
        v["pack"].as_str().unwrap_or(""),
        v["version"].as_str().unwrap_or(""),
        players,
        crown_engine::diag::plural(players),
        v["seed"],
        v["agents"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","))
            .unwrap_or_default(),
        v["seat_order"].as_str().unwrap_or(""),
        v["characters_dealt"].as_str().unwrap_or(""),
        match v["overrides"].as_array() {
            Some(o) if !o.is_empty() =>
                format!("; set {}", o.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")),
            _ => String::new(),
        }
    );
    if v["random_bots"].as_bool().unwrap_or(false) {
        // (Cards are named only where the pack has cards: a map game has none.)
        let what = if v["cards"].as_object().is_some_and(|c| !c.is_empty()) {
            "they rank cards as random play does"
        } else {
            "they choose as random play does"
        };
        println!(
            "note: random bots played: {what}, which can differ from real play; \
             `[sim] agents = \"greedy\"` in pack.toml or --agents greedy seats bots that play"
        );
    }
    println!("\nhow games ended ({conf:.0}% intervals; the rows sum to all games)");
    let mut total = 0;
    for o in v["outcomes"].as_array().into_iter().flatten() {
        total += o["games"].as_u64().unwrap_or(0);
        println!("{}", count_row(o["outcome"].as_str().unwrap_or(""), o, 34));
    }
    println!("  {:<34} {:>6}", format!("total ({total} game{})", crown_engine::diag::plural(total)), "100.0%");
    // The reasons the rules gave, when they give more than one (else the rows say it all).
    if let Some(e) = v["endings"].as_array().filter(|e| e.len() > 1) {
        println!("\nwhy the finished games ended (the reason the rules gave; of {} finished)", v["finished"]);
        // (A reason that names a figure, "the realm is scored: 41 fame", is one row per
        // figure: the most common few are shown, every one is in `--json`.)
        const SHOWN: usize = 8;
        let width = e.iter().take(SHOWN).filter_map(|o| o["reason"].as_str()).map(|r| r.chars().count()).max();
        let width = width.unwrap_or(0).max(34);
        for o in e.iter().take(SHOWN) {
            println!("{}", count_row(o["reason"].as_str().unwrap_or(""), o, width));
        }
        if e.len() > SHOWN {
            let rest: u64 = e[SHOWN..].iter().filter_map(|o| o["games"].as_u64()).sum();
            println!("  ... {} other reasons, {rest} games (every one is in --json)", e.len() - SHOWN);
        }
    }
    let l = &v["length"];
    if l["min"].is_null() {
        println!("\ngame length: no game was played to an end");
    } else {
        println!(
            "\ngame length: {:.1} turns on average, median {}, from {} to {}",
            l["mean"].as_f64().unwrap_or(0.0),
            l["median"],
            l["min"],
            l["max"]
        );
    }
    if let Some(t) = v["turn_limited_games"].as_array().filter(|t| !t.is_empty()) {
        println!("  turn limit reached in games {}", Value::Array(t.clone()));
        let (stopped, games) = (v["turn_limit"].as_u64().unwrap_or(0), v["games"].as_u64().unwrap_or(0));
        println!(
            "  {stopped} of {games} games stopped at the pack's `max_turns` (pack.toml) and count as too long, not as played to the end{}",
            if 2 * stopped >= games {
                ": if whole games are longer than that (a turn is one call of the rules' turn()), raise `max_turns`; `crown check` warns when a trial game reaches it"
            } else {
                ""
            }
        );
    }
    println!("\nwin rate by seat (any win, shared included; of games that did not fail)");
    for s in v["seats"].as_array().into_iter().flatten() {
        let agent = s["agent"].as_str().map(|a| format!(" ({a})")).unwrap_or_default();
        println!("{}", share_row(&format!("seat {}{agent}", s["seat"]), s));
    }
    if let Some(a) = v["by_agent"].as_object().filter(|a| a.len() > 1) {
        println!("\nwin rate by agent (player-games)");
        for (k, s) in a {
            println!("{}", share_row(k, s));
        }
    }
    if let Some(a) = v["score_by_agent"].as_object().filter(|a| !a.is_empty()) {
        println!("\nfinal score by agent (mean and its {conf:.0}% interval; player-games)");
        for (k, s) in a {
            println!(
                "  {:<34} {:>8.1}  [{:.1}-{:.1}]  {}",
                k,
                s["mean"].as_f64().unwrap_or(0.0),
                s["ci"][0].as_f64().unwrap_or(0.0),
                s["ci"][1].as_f64().unwrap_or(0.0),
                s["games"]
            );
        }
    }
    // A pack without characters (nobles, leaders) has no table of them.
    let mut rows: Vec<(&String, &Value)> = v["characters"].as_object().map(|m| m.iter().collect()).unwrap_or_default();
    if !rows.is_empty() {
        println!("\nwin rate by character (player-games)");
    }
    rows.sort_by(|a, b| {
        b.1["rate"].as_f64().unwrap_or(0.0).total_cmp(&a.1["rate"].as_f64().unwrap_or(0.0)).then(a.0.cmp(b.0))
    });
    for (_, s) in rows {
        println!("{}", share_row(s["name"].as_str().unwrap_or(""), s));
    }
    print_cards(
        &v["cards"],
        &v["cards_compared"],
        &v["player_games"],
        v,
        "cards, per player-game: win rate when played vs not played and the difference (improvement)",
        "player-games",
        v["drawn_recorded"].as_bool().unwrap_or(false),
    );
    print_rounds(v, conf);
}

/// A table of cards' figures (see [`card_figures`]) against `base`, `unit` being what
/// the figures count (player-games, seat-rounds), best improvement first.
pub fn print_cards(cards: &Value, compared: &Value, base: &Value, v: &Value, title: &str, unit: &str, drawn: bool) {
    let Some(cards) = cards.as_object().filter(|c| !c.is_empty()) else { return };
    let discards = v["discards_recorded"].as_bool().unwrap_or(false);
    println!(
        "\n{title},{} baseline {} {} of {} {unit}; * = fewer than {} {unit} on a side",
        if drawn { " the same for drawn (entered the hand);" } else { "" },
        pct(&base["rate"]),
        ci(&base["ci"]),
        base["games"],
        v["min_sample"]
    );
    let n = compared["cards"].as_u64().unwrap_or(0);
    if n > 1 {
        println!(
            "  the {n} cards are compared at once: each interval at {:.2}%, so that all {n} hold together at {:.0}% (Bonferroni); a difference whose interval excludes 0 is one chance alone rarely gives",
            100.0 * compared["each"].as_f64().unwrap_or(0.0),
            100.0 * v["confidence"].as_f64().unwrap_or(0.95)
        );
    }
    if discards {
        println!("  discarded = {unit} in which a forced discard took it from the hand unplayed, and their win rate");
    }
    println!(
        "  {:<31} {:>6} {:>7} {:>7} {:<22}{}{}",
        "card",
        "played",
        "WR",
        "WR not",
        "improvement (IWP)",
        if drawn { format!("  {:>6} {:>7} {:<22}", "drawn", "WR", "improvement (IWD)") } else { String::new() },
        if discards { format!("  {:>9} {:>7}", "discarded", "WR") } else { String::new() }
    );
    let mut rows: Vec<(&String, &Value)> = cards.iter().collect();
    let key = |c: &Value| c["improvement_played"]["value"].as_f64().unwrap_or(0.0);
    rows.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)).then(a.0.cmp(b.0)));
    for (_, c) in rows {
        let d = if drawn {
            format!(
                "  {:>6} {:>7} {:<22}",
                c["drawn"]["games"],
                pct(&c["drawn"]["rate"]),
                signed_ci(&c["improvement_drawn"])
            )
        } else {
            String::new()
        };
        let x = if discards {
            let games = c["discarded"]["games"].as_u64().unwrap_or(0);
            let rate = if games == 0 { "-".to_string() } else { pct(&c["discarded"]["rate"]) };
            format!("  {games:>9} {rate:>7}")
        } else {
            String::new()
        };
        println!(
            "{} {:<31} {:>6} {:>7} {:>7} {:<22}{d}{x}",
            if c["low_sample"].as_bool().unwrap_or(false) { "*" } else { " " },
            c["name"].as_str().unwrap_or(""),
            c["played"]["games"],
            pct(&c["played"]["rate"]),
            pct(&c["not_played"]["rate"]),
            signed_ci(&c["improvement_played"]),
        );
    }
}

/// The summary's `rounds` section (null when no game kept rounds).
fn rounds_section(
    r: &RoundStats,
    names: &BTreeMap<String, String>,
    confidence: f64,
    min_sample: u64,
    discards: bool,
) -> Value {
    let z = z_for(confidence);
    let each = each_of(confidence, r.cards.len());
    let z_cards = z_for(each);
    if r.games == 0 {
        return Value::Null;
    }
    let seats: Vec<Value> = (r.seat_wins.iter().enumerate())
        .map(|(i, &w)| {
            let mut v = share(w, r.decided, z);
            v["seat"] = json!(i + 1);
            v
        })
        .collect();
    let cards: serde_json::Map<String, Value> = (r.cards.iter())
        .map(|(id, c)| (id.clone(), card_figures(names, id, c, r.seat_rounds, z_cards, min_sample, false, discards)))
        .collect();
    let rounds: u64 = r.per_game.iter().map(|(k, v)| k * v).sum();
    json!({
        "games": r.games,
        "per_game": Histogram(&r.per_game).figures(rate(rounds, r.games)),
        "closed": r.closed,
        "length": Histogram(&r.lengths).figures(rate(r.lengths.iter().map(|(k, v)| k * v).sum(), r.closed)),
        "decided": r.decided,
        "no_winner": r.no_winner,
        "seats": if r.decided > 0 { json!(seats) } else { json!([]) },
        "seat_rounds": share(r.seat_rounds.wins, r.seat_rounds.games, z),
        "cards": cards,
        "cards_compared": comparisons(r.cards.len(), each),
    })
}

/// The terminal lines of the `rounds` section.
fn print_rounds(v: &Value, conf: f64) {
    let r = &v["rounds"];
    if r.is_null() {
        return;
    }
    let per = &r["per_game"];
    let len = &r["length"];
    println!(
        "\nrounds: {:.1} a game (from {} to {}); a round lasts {:.1} turns on average (median {}, from {} to {})",
        per["mean"].as_f64().unwrap_or(0.0),
        per["min"],
        per["max"],
        len["mean"].as_f64().unwrap_or(0.0),
        len["median"],
        len["min"],
        len["max"],
    );
    let decided = r["decided"].as_u64().unwrap_or(0);
    if decided == 0 {
        println!("  the rules name no round winners (`win_round`): no rounds won by seat or cards per round");
        return;
    }
    println!(
        "\nrounds won by seat ({conf:.0}% intervals; of {decided} round{} with a result)",
        crown_engine::diag::plural(decided)
    );
    for s in r["seats"].as_array().into_iter().flatten() {
        println!("{}", share_row(&format!("seat {}", s["seat"]), s));
    }
    let nobody = r["no_winner"].as_u64().unwrap_or(0);
    if nobody > 0 {
        println!("  won by nobody: {nobody} round{}", crown_engine::diag::plural(nobody));
    }
    print_cards(
        &r["cards"],
        &r["cards_compared"],
        &r["seat_rounds"],
        v,
        "cards, per seat-round: rate of rounds won when played in the round vs not played",
        "seat-rounds",
        false,
    );
}
