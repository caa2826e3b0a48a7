//! Watch soak: `crown watch --digest` as a process on a copy of Take the Kingdom while a
//! seeded random sequence of at least 1,000 edits hits its files: valid value and script
//! edits, invalid ones (TOML syntax errors, unknown fields, script syntax errors, a
//! duplicate id), half-written files (part, pause, the rest), saves by temporary file and
//! rename, deletions and re-creations of card files and scripts, new card files; with
//! pauses of varying length between some edits so the batches vary. Then the last valid
//! state is written back and the test checks that the process never died nor panicked,
//! that the state it holds (its digest) equals a clean load of the final files, and that
//! its resident memory stayed flat.
//!
//! `CROWN_SOAK_SEED` and `CROWN_SOAK_EDITS` change the seed (default 11) and the number
//! of edits (default 1,000, the minimum the bar asks for).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use crate::common::{copy_dir, crown_bin, load_pack, repo_project, spawn_crown};
use crown_engine::load::Project;

const PACK: &str = "take-the-kingdom";

/// SplitMix64: small, seeded, the same sequence everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Resident memory of a process in KiB, from `/proc/<pid>/status` (0 elsewhere).
fn rss_kb(pid: u32) -> u64 {
    crown_tools::bench::process_rss_kb(&pid.to_string())
}

/// The `[digest HEX]` at the end of a line.
fn digest_of(line: &str) -> Option<String> {
    let at = line.rfind("[digest ")?;
    Some(line[at + 8..].trim_end().trim_end_matches(']').to_string())
}

/// Every `values = { name = N` number in a text: the name and the byte range of the digits.
fn value_spots(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut spots = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("values = { ") {
        let start = from + i + "values = { ".len();
        from = start;
        let rest = &text[start..];
        let Some(eq) = rest.find(" = ") else { continue };
        let name = &rest[..eq];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            continue;
        }
        let d0 = start + eq + 3;
        let len = text[d0..].bytes().take_while(u8::is_ascii_digit).count();
        if len > 0 {
            spots.push((name.to_string(), d0..d0 + len));
        }
    }
    spots
}

/// Write `text` in two parts on one handle, pausing in between: a save caught half-written.
fn write_in_two(path: &Path, text: &str, cut: usize, pause: Duration) {
    let mut cut = cut.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&text.as_bytes()[..cut]).unwrap();
    f.flush().unwrap();
    std::thread::sleep(pause);
    f.write_all(&text.as_bytes()[cut..]).unwrap();
}

/// The running watcher: its output lines arrive on channels.
struct Watch {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
    lines: Vec<String>,
    err_lines: usize,
    err_tail: Vec<String>,
    panics: Vec<String>,
}

impl Watch {
    fn start(root: &Path) -> Watch {
        let root = root.to_string_lossy();
        let (child, out, err) = spawn_crown(&["--project", &root, "watch", PACK, "--digest"]);
        Watch { child, out, err, lines: Vec::new(), err_lines: 0, err_tail: Vec::new(), panics: Vec::new() }
    }

    /// Take what the process printed so far (keeps the pipes from filling up).
    fn pump(&mut self) {
        self.lines.extend(self.out.try_iter());
        for l in self.err.try_iter() {
            self.err_lines += 1;
            if l.contains("panicked") || l.contains("RUST_BACKTRACE") {
                self.panics.push(l.clone());
            }
            self.err_tail.push(l);
            if self.err_tail.len() > 40 {
                self.err_tail.remove(0);
            }
        }
    }

    /// Wait for a line matching `pred` (within `within`).
    fn wait_line(&mut self, within: Duration, pred: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + within;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.out.recv_timeout(left) {
                Ok(l) => {
                    self.lines.push(l.clone());
                    if pred(&l) {
                        return l;
                    }
                }
                Err(_) => break,
            }
        }
        self.pump();
        panic!("no matching line within {within:?}; stderr:\n{}", self.err_tail.join("\n"));
    }

    /// Wait until the process has printed nothing for `quiet` (at most `max`).
    fn settle(&mut self, quiet: Duration, max: Duration) {
        let end = Instant::now() + max;
        while Instant::now() < end {
            match self.out.recv_timeout(quiet) {
                Ok(l) => self.lines.push(l),
                Err(_) => break,
            }
        }
        self.pump();
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    fn why_dead(&mut self) -> String {
        self.pump();
        format!("{:?}; stderr tail:\n{}", self.child.try_wait(), self.err_tail.join("\n"))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn crown_watch_survives_a_thousand_random_edits() {
    let seed: u64 = std::env::var("CROWN_SOAK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(11);
    let edits: usize = std::env::var("CROWN_SOAK_EDITS").ok().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let repo = repo_project();
    for sub in [format!("content/{PACK}"), format!("scripts/{PACK}"), format!("tests/golden/{PACK}")] {
        copy_dir(&repo.root.join(&sub), &root.join(&sub)).unwrap();
    }
    let cards_dir = root.join(format!("content/{PACK}/cards"));
    let scripts_dir = root.join(format!("scripts/{PACK}/cards"));
    let golden_dir = root.join(format!("tests/golden/{PACK}"));
    let sorted_files = |d: &Path, ext: &str| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(ext))
            .collect();
        v.sort();
        v
    };
    let card_files = sorted_files(&cards_dir, ".toml");
    // The range of every card value, from the pack's declared vocabulary.
    let shipped = load_pack(&repo, PACK).unwrap();
    let ranges: BTreeMap<String, (i64, i64)> = shipped.manifest.vocabulary["card"]
        .values
        .iter()
        .flatten()
        .filter(|(_, r)| r.len() == 2)
        .map(|(k, r)| (k.clone(), (r[0], r[1])))
        .collect();
    let scripts = sorted_files(&scripts_dir, ".rhai");
    let transcripts = sorted_files(&golden_dir, ".transcript");
    assert!(card_files.len() >= 5 && scripts.len() >= 10 && !transcripts.is_empty());

    // The valid content of every file the edits touch (absent: the file is deleted in the
    // valid state), starting from the shipped files.
    let mut good: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    let originals: BTreeMap<PathBuf, String> =
        card_files.iter().chain(&scripts).map(|p| (p.clone(), std::fs::read_to_string(p).unwrap())).collect();
    for (p, t) in &originals {
        good.insert(p.clone(), Some(t.clone()));
    }

    let mut w = Watch::start(&root);
    let first = w.wait_line(Duration::from_secs(30), |l| l.starts_with("loaded ") || l.starts_with("error "));
    assert!(first.starts_with(&format!("loaded {PACK}")), "{first}");
    w.wait_line(Duration::from_secs(10), |l| l.starts_with("watching "));
    let pid = w.child.id();

    let mut rng = Rng(seed);
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut new_cards = 0usize;
    // Files whose state on disk is not their valid state (broken, or deleted).
    let mut broken: BTreeSet<PathBuf> = BTreeSet::new();
    let mut rss_early = 0;
    let mut rss_max = 0;
    let started = Instant::now();
    for n in 0..edits {
        let roll = rng.below(100);
        let kind: &'static str = match roll {
            0..=29 => "valid value edit",
            30..=37 => "valid script edit",
            38..=45 => "invalid TOML syntax",
            46..=51 => "unknown field",
            52..=56 => "script syntax error",
            57..=66 => "half-written save",
            67..=78 => "save by rename",
            79..=86 => "deletion",
            87..=90 => "re-creation",
            91..=96 => "new card file",
            _ => "golden file rewritten",
        };
        *counts.entry(kind).or_default() += 1;
        match kind {
            "valid value edit" | "half-written save" | "save by rename" => {
                // A value changed in a card file (the file re-created if it was deleted).
                let path = rng.pick(&card_files).clone();
                let mut text = good[&path].clone().unwrap_or_else(|| originals[&path].clone());
                let spots = value_spots(&text);
                if !spots.is_empty() {
                    let (name, r) = rng.pick(&spots).clone();
                    // A valid value: one digit within the range the pack's vocabulary gives.
                    let (lo, hi) = ranges.get(&name).copied().unwrap_or((0, 9));
                    let (lo, hi) = (lo.clamp(0, 9) as usize, hi.clamp(0, 9) as usize);
                    let digit = lo + rng.below(hi - lo + 1);
                    text = format!("{}{}{}", &text[..r.start], digit, &text[r.end..]);
                    // Same digit count is not guaranteed: later spots are recomputed each time.
                }
                match kind {
                    "half-written save" => {
                        let cut = rng.below(text.len());
                        write_in_two(&path, &text, cut, Duration::from_millis(2 + rng.below(40) as u64));
                    }
                    "save by rename" => {
                        let name = path.file_name().unwrap().to_string_lossy().to_string();
                        let tmp = if rng.chance(50) {
                            path.with_file_name(format!("{name}.{n}.tmp"))
                        } else {
                            path.with_file_name(format!(".{name}.{n}"))
                        };
                        std::fs::write(&tmp, &text).unwrap();
                        std::fs::rename(&tmp, &path).unwrap();
                    }
                    _ => std::fs::write(&path, &text).unwrap(),
                }
                broken.remove(&path);
                good.insert(path, Some(text));
            }
            "valid script edit" => {
                // A helper function added or changed at the end of a card script.
                let path = rng.pick(&scripts).clone();
                let text = format!("{}\nfn soak_helper() {{ {} }}\n", originals[&path], rng.below(1000));
                if rng.chance(50) {
                    let tmp = path.with_file_name(format!("{}.{n}.tmp", path.file_name().unwrap().to_string_lossy()));
                    std::fs::write(&tmp, &text).unwrap();
                    std::fs::rename(&tmp, &path).unwrap();
                } else {
                    std::fs::write(&path, &text).unwrap();
                }
                broken.remove(&path);
                good.insert(path, Some(text));
            }
            "invalid TOML syntax" => {
                let path = rng.pick(&card_files).clone();
                let text = good[&path].clone().unwrap_or_else(|| originals[&path].clone());
                let broken_text = if rng.chance(50) {
                    text.replacen("values = { ", "values = { = ", 1)
                } else {
                    // Cut off in the middle, with a table header left open.
                    let mut cut = rng.below(text.len());
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    format!("{}\n[[card\n", &text[..cut])
                };
                std::fs::write(&path, broken_text).unwrap();
                broken.insert(path);
            }
            "unknown field" => {
                let path = rng.pick(&card_files).clone();
                let text = good[&path].clone().unwrap_or_else(|| originals[&path].clone());
                let field = *rng.pick(&["colour = \"red\"", "cuont = 2", "valeus = { attack = 1 }"]);
                std::fs::write(&path, text.replacen("\nkind = ", &format!("\n{field}\nkind = "), 1)).unwrap();
                broken.insert(path);
            }
            "script syntax error" => {
                let path = rng.pick(&scripts).clone();
                let text = good[&path].clone().unwrap_or_else(|| originals[&path].clone());
                let tail = *rng.pick(&["\nfn broken( {\n", "\nlet x = ;\n", "\n/* never closed\n"]);
                std::fs::write(&path, format!("{text}{tail}")).unwrap();
                broken.insert(path);
            }
            "deletion" => {
                // A card file, a card script or one of the new card files.
                let mut pool: Vec<PathBuf> = card_files.clone();
                pool.extend(scripts.iter().take(4).cloned());
                pool.extend(good.keys().filter(|p| !originals.contains_key(*p)).cloned());
                let path = rng.pick(&pool).clone();
                let _ = std::fs::remove_file(&path);
                if originals.contains_key(&path) && rng.chance(50) {
                    // Deleted and written again at once (an editor saving by delete + create).
                    std::thread::sleep(Duration::from_millis(rng.below(5) as u64));
                    let text = good[&path].clone().unwrap_or_else(|| originals[&path].clone());
                    std::fs::write(&path, &text).unwrap();
                    broken.remove(&path);
                    good.insert(path, Some(text));
                } else if !originals.contains_key(&path) {
                    // A new card file deleted: a valid state.
                    broken.remove(&path);
                    good.insert(path, None);
                } else {
                    broken.insert(path);
                }
                // An original file left deleted stays broken until it is written again.
            }
            "re-creation" => {
                let missing: Vec<PathBuf> = originals.keys().filter(|p| !p.exists()).cloned().collect();
                let path = if missing.is_empty() { rng.pick(&card_files).clone() } else { rng.pick(&missing).clone() };
                let text = good[&path].clone().unwrap_or_else(|| originals[&path].clone());
                std::fs::write(&path, &text).unwrap();
                broken.remove(&path);
                good.insert(path, Some(text));
            }
            "new card file" => {
                new_cards += 1;
                let id = format!("soak-{new_cards}");
                let path = cards_dir.join(format!("{id}.toml"));
                let valid = rng.chance(75);
                let text = format!(
                    "#:schema ../../../docs/schema/cards.schema.json\n[[card]]\nid = \"{}\"\nname = \"Soak {new_cards}\"\nkind = \"attack\"\nkeywords = [\"attack\"]\ncount = 1\nvalues = {{ attack = {}, solo = 0 }}\ndecks = [\"main\"]\ntext = \"Added while the pack was watched.\"\n",
                    if valid { id.as_str() } else { "pikemen" },
                    1 + rng.below(4)
                );
                std::fs::write(&path, &text).unwrap();
                // A duplicate id is an error until the file goes: the valid state lacks it.
                if !valid {
                    broken.insert(path.clone());
                }
                good.insert(path, valid.then_some(text));
            }
            _ => {
                // A golden transcript saved again unchanged, by rename.
                let path = rng.pick(&transcripts).clone();
                let text = std::fs::read_to_string(&path).unwrap();
                let tmp = path.with_file_name(format!("golden.{n}.tmp"));
                std::fs::write(&tmp, text).unwrap();
                std::fs::rename(&tmp, &path).unwrap();
            }
        }
        // Mistakes get fixed, sooner or later: a broken or deleted file written back as it
        // was last valid (a new file with a duplicate id removed).
        if !broken.is_empty() && rng.chance(35) {
            let list: Vec<PathBuf> = broken.iter().cloned().collect();
            let path = rng.pick(&list).clone();
            match &good[&path] {
                Some(t) => std::fs::write(&path, t).unwrap(),
                None => std::fs::remove_file(&path).unwrap(),
            }
            broken.remove(&path);
            *counts.entry("fix").or_default() += 1;
        }
        // Pauses of varying length: some edits land in one batch, some in their own.
        match rng.below(100) {
            0..=7 => std::thread::sleep(Duration::from_millis(40 + rng.below(120) as u64)),
            8..=39 => std::thread::sleep(Duration::from_millis(1 + rng.below(6) as u64)),
            _ => {}
        }
        if n % 25 == 0 {
            w.pump();
            assert!(w.alive(), "crown watch died after edit {n}: {}", w.why_dead());
            assert!(w.panics.is_empty(), "crown watch panicked: {:?}", w.panics);
            let rss = rss_kb(pid);
            rss_max = rss_max.max(rss);
            if n == 100 {
                rss_early = rss;
            }
        }
    }
    let edit_time = started.elapsed();

    // The final state: every file as in the last valid state, the broken new files gone.
    for (path, text) in &good {
        match text {
            Some(t) => std::fs::write(path, t).unwrap(),
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }
    w.settle(Duration::from_millis(2500), Duration::from_secs(30));
    let total = started.elapsed();
    assert!(w.alive(), "crown watch died: {}", w.why_dead());
    assert!(w.panics.is_empty(), "crown watch panicked: {:?}", w.panics);
    let rss_end = rss_kb(pid);

    // A clean load of the final files, in this process and by `crown check --digest`.
    let project = Project::new(&root);
    let clean = load_pack(&project, PACK).unwrap_or_else(|e| panic!("the final files do not load:\n{e}"));
    let want = format!("{:016x}", crown_tools::validate::pack_digest(&clean));
    let check = Command::new(crown_bin())
        .args(["--project", &root.to_string_lossy(), "check", PACK, "--digest"])
        .output()
        .unwrap();
    let check_out = String::from_utf8_lossy(&check.stdout);
    assert_eq!(
        digest_of(check_out.trim()).as_deref(),
        Some(want.as_str()),
        "crown check --digest: {check_out}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let original = load_pack(&repo_project(), PACK).unwrap();
    assert_ne!(
        crown_tools::validate::pack_digest(&original),
        crown_tools::validate::pack_digest(&clean),
        "the edits should leave a state other than the shipped one"
    );

    let reloads: Vec<&String> =
        w.lines.iter().filter(|l| l.starts_with("reload ") || l.starts_with("error ")).collect();
    let ok = reloads.iter().filter(|l| l.starts_with("reload ")).count();
    let last = reloads.last().expect("reload lines");
    eprintln!(
        "soak: seed {seed}, {edits} edits in {:.1} s ({:.1} s with the final settle); {counts:?}; {} batches ({ok} reloaded, {} with errors, {} stderr lines); memory VmRSS {rss_early} KiB at edit 100, {rss_max} KiB max during the edits, {rss_end} KiB at the end ({:.2}x); final digest {want}",
        edit_time.as_secs_f64(),
        total.as_secs_f64(),
        reloads.len(),
        reloads.len() - ok,
        w.err_lines,
        rss_end as f64 / rss_early.max(1) as f64,
    );
    assert!(last.starts_with(&format!("reload {PACK}")), "the final batch did not load: {last}");
    assert_eq!(digest_of(last).as_deref(), Some(want.as_str()), "the watched state differs from a clean load: {last}");
    assert!(reloads.len() >= 20, "too few batches: {}", reloads.len());
    assert!(ok > 5 && reloads.len() - ok > 5, "expected both good and broken batches: {ok} of {}", reloads.len());
    if rss_early > 0 {
        assert!(
            (rss_end as f64) < 1.5 * rss_early as f64,
            "memory grew from {rss_early} KiB to {rss_end} KiB over the soak"
        );
    }
}
