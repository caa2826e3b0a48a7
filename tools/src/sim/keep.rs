//! `crown sim --transcripts DIR`: the games of a run kept as files, each game's transcript
//! and the game file that replays it (`<pack>-<i>.transcript`, `<pack>-<i>.game.toml`), for
//! outside checkers and `crown test`. Every game, or every Kth (`--every K`), or only those
//! that ended a given way (`--only failed`, `--only seat-2`...).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, Outcome};

use super::stats::Class;

/// Which endings a run keeps (`--only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// Seat N (1-based on the command line, 0-based here) won, alone or shared.
    Seat(usize),
    Shared,
    NoWinner,
    TurnLimit,
    Failed,
}

impl Only {
    /// `seat-N`, `shared`, `no-winner`, `turn-limit` or `failed`.
    pub fn parse(s: &str, players: usize) -> Result<Only, String> {
        let usage = "give seat-N (seat N won), shared, no-winner, turn-limit or failed";
        match s {
            "shared" => Ok(Only::Shared),
            "no-winner" => Ok(Only::NoWinner),
            "turn-limit" => Ok(Only::TurnLimit),
            "failed" => Ok(Only::Failed),
            _ => {
                let n = s.strip_prefix("seat-").and_then(|n| n.parse::<usize>().ok());
                match n {
                    Some(n) if (1..=players).contains(&n) => Ok(Only::Seat(n - 1)),
                    Some(n) => Err(format!("--only {s}: there is no seat {n} in a {players}-player game")),
                    None => Err(format!("--only {s}: {usage}")),
                }
            }
        }
    }

    /// " that ended ...", for the report.
    fn words(self) -> String {
        match self {
            Only::Seat(p) => format!(" won by seat {}", p + 1),
            Only::Shared => " with a shared win".into(),
            Only::NoWinner => " that finished with no winner".into(),
            Only::TurnLimit => " stopped at the turn limit".into(),
            Only::Failed => " that failed".into(),
        }
    }

    pub fn matches(self, o: &Outcome) -> bool {
        let class = Class::of(o);
        match self {
            Only::Seat(p) => matches!(class, Class::Sole(_) | Class::Shared) && o.winners.contains(&p),
            Only::Shared => class == Class::Shared,
            Only::NoWinner => class == Class::NoWinner,
            Only::TurnLimit => class == Class::TurnLimit,
            Only::Failed => class == Class::Failed,
        }
    }
}

/// Where the kept games go, and how it went.
#[derive(Debug)]
pub struct Keep {
    dir: PathBuf,
    every: u64,
    only: Option<Only>,
    written: AtomicU64,
    failed: AtomicU64,
    first_error: Mutex<Option<String>>,
}

impl Keep {
    /// Keep every `every`th game in `dir` (made when missing; an error when it cannot be).
    pub fn new(dir: &Path, every: u64, only: Option<Only>) -> Result<Keep, String> {
        if every == 0 {
            return Err("--every 0: give 1 to keep every game, K to keep every Kth".into());
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--transcripts {}: cannot make the folder: {e}", dir.display()))?;
        Ok(Keep {
            dir: dir.to_path_buf(),
            every,
            only,
            written: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            first_error: Mutex::new(None),
        })
    }

    /// Whether game `i` may be kept (its transcript is then recorded while it is played;
    /// with `--only`, it is written if it ends that way).
    pub fn keeps(&self, i: u64) -> bool {
        i.is_multiple_of(self.every)
    }

    /// Write game `i`, played by `kinds` (seat by seat), if it ended as `--only` asks.
    pub fn write(&self, i: u64, game: &Game, outcome: &Outcome, kinds: Vec<String>) {
        if self.only.is_some_and(|o| !o.matches(outcome)) {
            return;
        }
        let pack = game.pack.id().to_string();
        let file =
            GameFile::from_game(game, kinds, format!("game {i} of a `crown sim` run ({})", outcome_words(outcome)));
        let base = self.dir.join(format!("{pack}-{i}"));
        // Written atomically: a run cut off never leaves half a game that later fails to replay.
        let r = crate::out::write_atomic(&base.with_extension("game.toml"), file.to_toml().as_bytes()).and_then(|()| {
            crate::out::write_atomic(&base.with_extension("transcript"), transcript_text(game, outcome).as_bytes())
        });
        match r {
            Ok(()) => {
                self.written.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let mut first = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert_with(|| format!("{}: {e}", base.display()));
            }
        }
    }

    /// What was written, for the person: `Ok(line)`, or an error naming the first file
    /// that could not be written.
    pub fn report(&self) -> Result<String, String> {
        let written = self.written.load(Ordering::Relaxed);
        let failed = self.failed.load(Ordering::Relaxed);
        let first = self.first_error.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match first {
            Some(e) => Err(format!("{failed} of the kept games could not be written (the first: {e})")),
            None => Ok(format!(
                "wrote {written} game{}{} to {} (transcripts and game files: `crown test FILE.game.toml` replays one)",
                if written == 1 { "" } else { "s" },
                self.only.map(Only::words).unwrap_or_default(),
                self.dir.display()
            )),
        }
    }
}

/// How a game ended, in a few words, for its file's description.
fn outcome_words(o: &Outcome) -> String {
    match &o.status {
        crown_engine::game::Status::Failed(f) => format!("failed: {}", f.message),
        crown_engine::game::Status::TurnLimit => "stopped at the turn limit".into(),
        _ if o.reason.is_empty() => "finished".into(),
        _ => format!("ended: {}", o.reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reads_the_endings_and_refuses_others() {
        assert_eq!(Only::parse("seat-2", 4), Ok(Only::Seat(1)));
        assert_eq!(Only::parse("failed", 2), Ok(Only::Failed));
        assert_eq!(Only::parse("turn-limit", 2), Ok(Only::TurnLimit));
        assert!(Only::parse("seat-5", 4).unwrap_err().contains("no seat 5 in a 4-player game"));
        assert!(Only::parse("seat-0", 4).unwrap_err().contains("no seat 0"));
        assert!(Only::parse("won", 4).unwrap_err().contains("give seat-N"));
    }
}
