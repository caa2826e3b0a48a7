//! The live-reload benchmark: save-to-reloaded latency through the real watcher, and
//! memory over many reloads.

use crate::bench::process_rss_kb;
use std::time::{Duration, Instant};

use crown_engine::load::Project;

use crate::live::{Change, ChangeKind, FsWatcher, ReloadOptions, Reloader, DEFAULT_DEBOUNCE_MS};

/// Save-to-reloaded latency and memory over many reloads.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LatencyReport {
    /// Median time from a file write to its reload being done, debounce included.
    pub p50_ms: f64,
    pub p95_ms: f64,
    /// Resident memory after the first reload, and after all of them (KiB; 0 where the
    /// platform does not tell).
    pub rss_after_first_kb: u64,
    pub rss_after_all_kb: u64,
    pub edits: usize,
    pub cards: usize,
    pub reloads: usize,
    /// Set when the benchmark could not run.
    pub error: Option<String>,
}

impl LatencyReport {
    /// Growth of resident memory from the first reload to the last, in percent.
    pub fn rss_growth_percent(&self) -> f64 {
        if self.rss_after_first_kb == 0 {
            return 0.0;
        }
        (self.rss_after_all_kb as f64 - self.rss_after_first_kb as f64) * 100.0 / self.rss_after_first_kb as f64
    }
}

/// Resident memory of this process in KiB (Linux), else 0.
pub fn rss_kb() -> u64 {
    process_rss_kb("self")
}

/// Save-to-reloaded latency over `edits` edits of a generated pack of `cards` cards
/// (one file per card, a fifth with scripts), through the real watcher with the default
/// debounce; then memory after 1,000 reloads against after the first.
pub fn latency_bench(edits: usize, cards: usize) -> LatencyReport {
    latency_bench_with(edits, cards, 1000)
}

/// [`latency_bench`] with the number of reloads for the memory figure.
pub fn latency_bench_with(edits: usize, cards: usize, reloads: usize) -> LatencyReport {
    match latency_inner(edits, cards.max(1), reloads.max(edits).max(1)) {
        Ok(r) => r,
        Err(e) => LatencyReport { edits, cards, error: Some(e), ..LatencyReport::default() },
    }
}

fn latency_inner(edits: usize, cards: usize, reloads: usize) -> Result<LatencyReport, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = dir.path().canonicalize().map_err(|e| e.to_string())?;
    super::project::generate_project(&root, cards, cards / 5).map_err(|e| e.to_string())?;
    let project = Project::new(&root);
    let mut reloader =
        Reloader::new(&project, &["generated".to_string()], ReloadOptions::default()).map_err(|d| d.to_string())?;
    if reloader.packs["generated"].pack.is_none() {
        return Err("the generated pack does not load".into());
    }
    let card_file = |i: usize| root.join(format!("content/generated/cards/c{i:05}.toml"));
    let card_text = |i: usize, attack: usize| {
        format!(
            "[[card]]\nid = \"c{i:05}\"\nname = \"Card {i}\"\nkind = \"attack\"\ncount = 1\nkeywords = [\"generated\"]\nvalues = {{ attack = {attack}, defence = 1 }}\ntext = \"Generated card number {i}.\"\n"
        )
    };
    let mut watcher = FsWatcher::new(&root, false, Duration::from_millis(DEFAULT_DEBOUNCE_MS))?;
    // Let the watches settle.
    while watcher.next_batch(Some(Duration::from_millis(100))).is_some() {}
    let mut times = Vec::with_capacity(edits);
    let mut rss_first = 0;
    let mut done = 0usize;
    for n in 0..edits {
        // Cards past the first fifth have no script, so the edit is a plain value change.
        let i = cards / 5 + (n * 37) % (cards - cards / 5).max(1);
        let i = i.min(cards - 1);
        let id = format!("c{i:05}");
        let start = Instant::now();
        std::fs::write(card_file(i), card_text(i, 100 + n)).map_err(|e| e.to_string())?;
        loop {
            let batch =
                watcher.next_batch(Some(Duration::from_secs(5))).ok_or_else(|| format!("edit {n}: no file event"))?;
            let reps = reloader.apply(&batch);
            if let Some(r) = reps.iter().find(|r| r.changed.contains(&id)) {
                if !r.ok() {
                    return Err(format!("edit {n}: reload failed: {}", r.line()));
                }
                break;
            }
        }
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        done += 1;
        if done == 1 {
            rss_first = rss_kb();
        }
    }
    drop(watcher);
    // The remaining reloads without the watcher (memory is what is measured).
    let change = Change {
        pack: "generated".into(),
        kind: ChangeKind::Definition,
        rel: "content/generated/cards/c00000.toml".into(),
    };
    while done < reloads {
        let i = cards / 5 + done % (cards - cards / 5).max(1);
        let i = i.min(cards - 1);
        std::fs::write(card_file(i), card_text(i, 1000 + done)).map_err(|e| e.to_string())?;
        let reps = reloader.apply(std::slice::from_ref(&change));
        if reps.iter().any(|r| !r.ok()) {
            return Err("a reload failed".into());
        }
        done += 1;
        if done == 1 {
            rss_first = rss_kb();
        }
    }
    let rss_all = rss_kb();
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        if times.is_empty() {
            0.0
        } else {
            times[((times.len() - 1) as f64 * p).round() as usize]
        }
    };
    Ok(LatencyReport {
        p50_ms: pct(0.5),
        p95_ms: pct(0.95),
        rss_after_first_kb: rss_first,
        rss_after_all_kb: rss_all,
        edits,
        cards,
        reloads: done,
        error: None,
    })
}
