//! Narration: what happened, told from each seat's point of view.
//!
//! A game keeps two records of events. The **transcript** is the omniscient one: every
//! event, mechanics included (cards moving, counters changing, choices), hidden
//! information and all; golden games compare it line by line. **Narration** is what the
//! players are told, in the game's words, each line with the seats allowed to read it:
//!
//! - a public line (`log(text)` in a script) is read by everyone;
//! - a private line (`log_to(who, text)`) only by the seats named;
//! - a private line with a public summary (`log_to(who, text, others)`): the seats named
//!   read `text`, every other seat reads `others` instead.
//!
//! Narrated lines go into the transcript too, so that golden games cover them: a public
//! line as it is, a private one as `to P1: text` followed, when there is a summary, by
//! `to others: summary`. What one seat saw can therefore be read back from an omniscient
//! transcript, and a transcript stays the same whoever watched the game.

use std::fmt::Write;

/// One narrated line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The seats that read `text`; empty: every seat (a public line).
    pub to: Vec<usize>,
    pub text: String,
    /// What the seats not in `to` read instead; `None`: nothing.
    pub others: Option<String>,
}

impl Said {
    /// A line everyone reads.
    pub fn public(text: impl Into<String>) -> Said {
        Said { to: Vec::new(), text: text.into(), others: None }
    }

    /// Whether every seat reads the same text.
    pub fn is_public(&self) -> bool {
        self.to.is_empty()
    }

    /// What seat `seat` reads, if anything.
    pub fn for_seat(&self, seat: usize) -> Option<&str> {
        self.for_seats(&[seat])
    }

    /// What a person holding all of `seats` reads (several people at one terminal): the
    /// private text when any of them may read it, else the public summary.
    pub fn for_seats(&self, seats: &[usize]) -> Option<&str> {
        if self.to.is_empty() || self.to.iter().any(|s| seats.contains(s)) {
            Some(&self.text)
        } else {
            self.others.as_deref()
        }
    }

    /// What a spectator reads (no seat's private lines).
    pub fn for_spectator(&self) -> Option<&str> {
        if self.to.is_empty() {
            Some(&self.text)
        } else {
            self.others.as_deref()
        }
    }

    /// The transcript lines of this narration, given the seats' names.
    pub fn transcript_lines(&self, names: &[&str]) -> Vec<String> {
        if self.to.is_empty() {
            return vec![self.text.clone()];
        }
        let mut head = String::from("to ");
        for (i, s) in self.to.iter().enumerate() {
            if i > 0 {
                head.push_str(", ");
            }
            let _ = write!(head, "{}", names.get(*s).copied().unwrap_or("?"));
        }
        let mut out = vec![format!("{head}: {}", self.text)];
        if let Some(o) = &self.others {
            out.push(format!("to others: {o}"));
        }
        out
    }
}

/// What a game's listener hears as the game goes.
#[derive(Debug, Clone, Copy)]
pub enum Heard<'a> {
    /// A transcript line (every line, narration included): the omniscient record.
    Line(&'a str),
    /// A narrated line, with its readers.
    Said(&'a Said),
}

/// Called with every transcript line and every narrated line as they are written, with
/// the table as it stands then (`crown play` prints what the person's seat may read;
/// `crown serve` keeps them; the tests check each against what the seat may see).
pub type Listener = Box<dyn FnMut(Heard<'_>, super::view::Table<'_>) + Send>;

/// Which of a game's records a person at the table follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    /// What a spectator reads: public lines and the public summaries of private ones.
    Public,
    /// What the person's seat reads: public lines and the private lines meant for it.
    Private,
    /// Every transcript line, every seat's hidden information included.
    Debug,
}

impl LogLevel {
    pub fn parse(s: &str) -> Result<LogLevel, String> {
        match s {
            "public" => Ok(LogLevel::Public),
            "private" => Ok(LogLevel::Private),
            "debug" => Ok(LogLevel::Debug),
            _ => Err(format!("`{s}` is not a log level (public, private, debug)")),
        }
    }

    /// What a person holding `seats` is shown of one event, at this level.
    pub fn shown<'a>(self, heard: Heard<'a>, seats: &[usize]) -> Option<&'a str> {
        match (self, heard) {
            (LogLevel::Debug, Heard::Line(l)) => Some(l),
            (LogLevel::Debug, Heard::Said(_)) | (_, Heard::Line(_)) => None,
            (LogLevel::Public, Heard::Said(s)) => s.for_spectator(),
            (LogLevel::Private, Heard::Said(s)) => s.for_seats(seats),
        }
    }
}

/// `1 card`, `2 cards`, `0 armies`: a number with its noun, plural unless it is one
/// (English rules: `-s`, `-es` after s, x, z, ch, sh; `-ies` after a consonant and `y`),
/// or the plural given.
pub fn count_words(n: i64, word: &str, plural: Option<&str>) -> String {
    if n == 1 || n == -1 {
        return format!("{n} {word}");
    }
    if let Some(p) = plural {
        return format!("{n} {p}");
    }
    let lower = word.to_lowercase();
    let consonant_y = lower.ends_with('y') && !lower[..lower.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    let p = if consonant_y && lower.len() > 1 {
        format!("{}ies", &word[..word.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"].iter().any(|e| lower.ends_with(e)) {
        format!("{word}es")
    } else {
        format!("{word}s")
    };
    format!("{n} {p}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_seat_reads_its_own_version() {
        let s = Said {
            to: vec![0],
            text: "P1 looks at P2's hand: Guthrum".into(),
            others: Some("P1 looks at a card of P2's hand".into()),
        };
        assert_eq!(s.for_seat(0), Some("P1 looks at P2's hand: Guthrum"));
        assert_eq!(s.for_seat(1), Some("P1 looks at a card of P2's hand"));
        assert_eq!(s.for_spectator(), Some("P1 looks at a card of P2's hand"));
        assert_eq!(
            s.transcript_lines(&["P1", "P2"]),
            ["to P1: P1 looks at P2's hand: Guthrum", "to others: P1 looks at a card of P2's hand"]
        );
        let quiet = Said { others: None, ..s };
        assert_eq!(quiet.for_seat(1), None);
        assert_eq!(quiet.for_seats(&[1, 0]), Some("P1 looks at P2's hand: Guthrum"));
        assert_eq!(quiet.transcript_lines(&["P1", "P2"]), ["to P1: P1 looks at P2's hand: Guthrum"]);
        let public = Said::public("P2 passes");
        assert_eq!(public.for_seat(1), Some("P2 passes"));
        assert_eq!(public.transcript_lines(&["P1", "P2"]), ["P2 passes"]);
    }

    #[test]
    fn levels_show_what_they_promise() {
        let private = Said { to: vec![1], text: "secret".into(), others: Some("summary".into()) };
        assert_eq!(LogLevel::Private.shown(Heard::Said(&private), &[1]), Some("secret"));
        assert_eq!(LogLevel::Private.shown(Heard::Said(&private), &[0]), Some("summary"));
        assert_eq!(LogLevel::Public.shown(Heard::Said(&private), &[1]), Some("summary"));
        assert_eq!(LogLevel::Debug.shown(Heard::Said(&private), &[0]), None);
        assert_eq!(
            LogLevel::Debug.shown(Heard::Line("move a#1 deck -> hand@P2"), &[0]),
            Some("move a#1 deck -> hand@P2")
        );
        assert_eq!(LogLevel::Private.shown(Heard::Line("move a#1 deck -> hand@P2"), &[0]), None);
        assert!(LogLevel::parse("loud").unwrap_err().contains("public, private, debug"));
    }
}
