//! Reporting: what running a case gave, its line in the run's listing, and the summary
//! of the run with each failure.

use std::path::PathBuf;
use std::time::Duration;

/// What running a case gave.
pub(super) struct Outcome {
    pub(super) name: String,
    pub(super) about: String,
    pub(super) code: Option<i32>,
    pub(super) signal: Option<i32>,
    pub(super) elapsed: Duration,
    /// Peak resident memory in bytes (exact when the case raised the largest child's).
    pub(super) peak_rss: u64,
    pub(super) problems: Vec<String>,
    pub(super) output: String,
}

impl Outcome {
    pub(super) fn broken(name: &str, why: String) -> Outcome {
        Outcome {
            name: name.to_string(),
            about: String::new(),
            code: None,
            signal: None,
            elapsed: Duration::ZERO,
            peak_rss: 0,
            problems: vec![why],
            output: String::new(),
        }
    }

    pub(super) fn line(&self) -> String {
        let how = match (self.code, self.signal) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(s)) => format!("signal {s}"),
            _ => "-".into(),
        };
        format!(
            "{} {:<44} {:>9} {:>7.2} s {:>6} MiB",
            if self.problems.is_empty() { "ok  " } else { "FAIL" },
            self.name,
            how,
            self.elapsed.as_secs_f64(),
            self.peak_rss >> 20
        )
    }
}

/// Print the run's summary (how many passed, the slowest case and the largest, then each
/// failure with the first lines of its output, and the repository's changes); whether
/// every case passed and the repository is unchanged.
pub(super) fn summary(results: &[Outcome], max_rss_seen: u64, repo_changes: &[(PathBuf, String)]) -> bool {
    let failed: Vec<&Outcome> = results.iter().filter(|r| !r.problems.is_empty()).collect();
    let slowest = results.iter().max_by_key(|r| r.elapsed).unwrap();
    let biggest = results.iter().max_by_key(|r| r.peak_rss).unwrap();
    println!(
        "\n{} cases, {} passed, {} failed; slowest {} in {:.2} s; largest peak RSS {} MiB ({}); \
         largest peak RSS of any child (getrusage) {} MiB",
        results.len(),
        results.len() - failed.len(),
        failed.len(),
        slowest.name,
        slowest.elapsed.as_secs_f64(),
        biggest.peak_rss >> 20,
        biggest.name,
        max_rss_seen >> 20
    );
    for r in &failed {
        println!("\nFAILED {}: {}", r.name, r.about);
        for p in &r.problems {
            println!("  - {p}");
        }
        if !r.output.is_empty() {
            println!("  output (first lines):");
            for l in r.output.lines().take(12) {
                println!("    | {l}");
            }
        }
    }
    if !repo_changes.is_empty() {
        println!("\nFAILED: files in the repository changed during the run:");
        for (_, c) in repo_changes {
            println!("  - {c}");
        }
    }
    failed.is_empty() && repo_changes.is_empty()
}
