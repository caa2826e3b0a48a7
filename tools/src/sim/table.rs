//! The terminal table of a run's [`Summary`]: how games ended and why, game length, win
//! rates by seat, agent and character, final scores, the cards and the rounds.

use std::collections::BTreeMap;

use super::figures::{ci, or_null, pct, CardFigures, Comparisons, Share};
use super::summary::{Rounds, Summary};
use crown_engine::diag::plural;

/// How a table of cards is drawn: its title, what its figures count (player-games,
/// seat-rounds) and whether the drawn columns are shown.
struct CardTable<'a> {
    title: &'a str,
    unit: &'a str,
    drawn: bool,
}

impl Summary {
    /// Print the terminal table.
    pub fn print(&self) {
        let conf = 100.0 * self.confidence;
        let players = self.players;
        println!(
            "{} game{} of {} {} ({} player{}, seed {}, agents {}; seats {}, characters {}{})",
            self.games,
            plural(self.games),
            self.pack,
            self.version,
            players,
            plural(players),
            self.seed,
            self.agents.join(","),
            self.seat_order,
            self.characters_dealt,
            if self.overrides.is_empty() { String::new() } else { format!("; set {}", self.overrides.join(" ")) }
        );
        if self.random_bots {
            // (Cards are named only where the pack has cards: a map game has none.)
            let what = if self.cards.is_empty() {
                "they choose as random play does"
            } else {
                "they rank cards as random play does"
            };
            println!(
                "note: random bots played: {what}, which can differ from real play; \
                 `[sim] agents = \"greedy\"` in pack.toml or --agents greedy seats bots that play"
            );
        }
        println!("\nhow games ended ({conf:.0}% intervals; the rows sum to all games)");
        let mut total = 0;
        for o in &self.outcomes {
            total += o.count.games;
            println!("{}", o.count.row(&o.outcome, 34));
        }
        println!("  {:<34} {:>6}", format!("total ({total} game{})", plural(total)), "100.0%");
        self.print_endings();
        self.print_length();
        println!("\nwin rate by seat (any win, shared included; of games that did not fail)");
        for s in &self.seats {
            let agent = match &s.agent {
                Some(Some(a)) => format!(" ({a})"),
                _ => String::new(),
            };
            println!("{}", s.share.row(&format!("seat {}{agent}", s.seat)));
        }
        if self.by_agent.len() > 1 {
            println!("\nwin rate by agent (player-games)");
            for (k, s) in &self.by_agent {
                println!("{}", s.row(k));
            }
        }
        if !self.score_by_agent.is_empty() {
            println!("\nfinal score by agent (mean and its {conf:.0}% interval; player-games)");
            for (k, s) in &self.score_by_agent {
                println!("  {:<34} {:>8.1}  [{:.1}-{:.1}]  {}", k, s.mean, s.ci[0], s.ci[1], s.games);
            }
        }
        // A pack without characters (nobles, leaders) has no table of them.
        if !self.characters.is_empty() {
            println!("\nwin rate by character (player-games)");
        }
        let mut rows: Vec<_> = self.characters.iter().collect();
        rows.sort_by(|a, b| b.1.share.rate.total_cmp(&a.1.share.rate).then(a.0.cmp(b.0)));
        for (_, c) in rows {
            println!("{}", c.share.row(&c.name));
        }
        let table = CardTable {
            title: "cards, per player-game: win rate when played vs not played and the difference (improvement)",
            unit: "player-games",
            drawn: self.drawn_recorded,
        };
        self.print_cards(&self.cards, &self.cards_compared, &self.player_games, &table);
        if let Some(r) = &self.rounds {
            self.print_rounds(r, conf);
        }
    }

    /// The reasons the rules gave, when they give more than one (else the rows say it all).
    fn print_endings(&self) {
        let e = &self.endings;
        if e.len() <= 1 {
            return;
        }
        println!("\nwhy the finished games ended (the reason the rules gave; of {} finished)", self.finished);
        // (A reason that names a figure, "the realm is scored: 41 fame", is one row per
        // figure: the most common few are shown, every one is in `--json`.)
        const SHOWN: usize = 8;
        let width = e.iter().take(SHOWN).map(|o| o.reason.chars().count()).max();
        let width = width.unwrap_or(0).max(34);
        for o in e.iter().take(SHOWN) {
            println!("{}", o.count.row(&o.reason, width));
        }
        if e.len() > SHOWN {
            let rest: u64 = e[SHOWN..].iter().map(|o| o.count.games).sum();
            println!("  ... {} other reasons, {rest} games (every one is in --json)", e.len() - SHOWN);
        }
    }

    /// Game length, and the games stopped by the turn limit.
    fn print_length(&self) {
        let l = &self.length;
        match (l.min, l.max) {
            (Some(min), Some(max)) => {
                println!("\ngame length: {:.1} turns on average, median {}, from {min} to {max}", l.mean, l.median)
            }
            _ => println!("\ngame length: no game was played to an end"),
        }
        let t = &self.turn_limited_games;
        if !t.is_empty() {
            println!("  turn limit reached in games {}", serde_json::to_string(t).unwrap_or_default());
            let (stopped, games) = (self.turn_limit, self.games);
            println!(
                "  {stopped} of {games} games stopped at the pack's `max_turns` (pack.toml) and count as too long, not as played to the end{}",
                if 2 * stopped >= games {
                    ": if whole games are longer than that (a turn is one call of the rules' turn()), raise `max_turns`; `crown check` warns when a trial game reaches it"
                } else {
                    ""
                }
            );
        }
    }

    /// A table of cards' figures against `base`, best improvement first.
    fn print_cards(&self, cards: &BTreeMap<String, CardFigures>, compared: &Comparisons, base: &Share, t: &CardTable) {
        if cards.is_empty() {
            return;
        }
        let (unit, drawn) = (t.unit, t.drawn);
        let discards = self.discards_recorded;
        println!(
            "\n{},{} baseline {} {} of {} {unit}; * = fewer than {} {unit} on a side",
            t.title,
            if drawn { " the same for drawn (entered the hand);" } else { "" },
            pct(base.rate),
            ci(base.ci),
            base.games,
            self.min_sample
        );
        let n = compared.cards;
        if n > 1 {
            println!(
                "  the {n} cards are compared at once: each interval at {:.2}%, so that all {n} hold together at {:.0}% (Bonferroni); a difference whose interval excludes 0 is one chance alone rarely gives",
                100.0 * compared.each,
                100.0 * self.confidence
            );
        }
        if discards {
            println!(
                "  discarded = {unit} in which a forced discard took it from the hand unplayed, and their win rate"
            );
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
        let mut rows: Vec<(&String, &CardFigures)> = cards.iter().collect();
        let key = |c: &CardFigures| c.improvement_played.value_or_zero();
        rows.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)).then(a.0.cmp(b.0)));
        for (_, c) in rows {
            let d = if drawn {
                let s = c.drawn.unwrap_or_default();
                format!("  {} {:>7} {:<22}", s.games, pct(s.rate), c.improvement_drawn.unwrap_or_default().points())
            } else {
                String::new()
            };
            let x = if discards {
                let s = c.discarded.unwrap_or_default();
                let rate = if s.games == 0 { "-".to_string() } else { pct(s.rate) };
                format!("  {:>9} {rate:>7}", s.games)
            } else {
                String::new()
            };
            // The counts of games played and drawn are written unpadded, as the table has
            // always written them.
            println!(
                "{} {:<31} {} {:>7} {:>7} {:<22}{d}{x}",
                if c.low_sample { "*" } else { " " },
                c.name,
                c.played.games,
                pct(c.played.rate),
                pct(c.not_played.rate),
                c.improvement_played.points(),
            );
        }
    }

    /// The terminal lines of the rounds.
    fn print_rounds(&self, r: &Rounds, conf: f64) {
        let (per, len) = (&r.per_game, &r.length);
        println!(
            "\nrounds: {:.1} a game (from {} to {}); a round lasts {:.1} turns on average (median {}, from {} to {})",
            per.mean,
            or_null(per.min),
            or_null(per.max),
            len.mean,
            len.median,
            or_null(len.min),
            or_null(len.max),
        );
        let decided = r.decided;
        if decided == 0 {
            println!("  the rules name no round winners (`win_round`): no rounds won by seat or cards per round");
            return;
        }
        println!("\nrounds won by seat ({conf:.0}% intervals; of {decided} round{} with a result)", plural(decided));
        for s in &r.seats {
            println!("{}", s.share.row(&format!("seat {}", s.seat)));
        }
        if r.no_winner > 0 {
            println!("  won by nobody: {} round{}", r.no_winner, plural(r.no_winner));
        }
        let table = CardTable {
            title: "cards, per seat-round: rate of rounds won when played in the round vs not played",
            unit: "seat-rounds",
            drawn: false,
        };
        self.print_cards(&r.cards, &r.cards_compared, &r.seat_rounds, &table);
    }
}
