//! `crown sim --transcripts DIR`: the games of a run kept as files, each game's transcript
//! and the game file that replays it (`<pack>-<i>.transcript`, `<pack>-<i>.game.toml`), for
//! outside checkers and `crown test`. Every game, or every Kth (`--every K`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::{Game, Outcome};

/// Where the kept games go, and how it went.
#[derive(Debug)]
pub struct Keep {
    dir: PathBuf,
    every: u64,
    written: AtomicU64,
    failed: AtomicU64,
    first_error: Mutex<Option<String>>,
}

impl Keep {
    /// Keep every `every`th game in `dir` (made when missing; an error when it cannot be).
    pub fn new(dir: &Path, every: u64) -> Result<Keep, String> {
        if every == 0 {
            return Err("--every 0: give 1 to keep every game, K to keep every Kth".into());
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--transcripts {}: cannot make the folder: {e}", dir.display()))?;
        Ok(Keep {
            dir: dir.to_path_buf(),
            every,
            written: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            first_error: Mutex::new(None),
        })
    }

    /// Whether game `i` is kept (its transcript is then recorded while it is played).
    pub fn keeps(&self, i: u64) -> bool {
        i.is_multiple_of(self.every)
    }

    /// Write game `i`, played by `kinds` (seat by seat).
    pub fn write(&self, i: u64, game: &Game, outcome: &Outcome, kinds: Vec<String>) {
        let pack = game.pack.id().to_string();
        let file =
            GameFile::from_game(game, kinds, format!("game {i} of a `crown sim` run ({})", outcome_words(outcome)));
        let base = self.dir.join(format!("{pack}-{i}"));
        let r = std::fs::write(base.with_extension("game.toml"), file.to_toml())
            .and_then(|()| std::fs::write(base.with_extension("transcript"), transcript_text(game, outcome)));
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
                "wrote {written} game{} to {} (transcripts and game files: `crown test FILE.game.toml` replays one)",
                if written == 1 { "" } else { "s" },
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
