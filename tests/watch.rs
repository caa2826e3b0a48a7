//! Integration tests: watch. Real files in a temporary project, the real `notify`
//! watcher, every way editors save; then `crown watch` itself as a process on a copy of
//! Take the Kingdom (the bar: a reload line within a second, a diagnostic naming
//! file and line with the process alive, and recovery).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use crate::common::{copy_dir, crown, crown_bin, repo_project, spawn_crown};
use crown_engine::load::Project;
use crown_tools::live::{classify, ChangeKind, FsWatcher, ReloadOptions, ReloadReport, Reloader};

/// A project holding the scaffolded pack `demo`, watched, with its reloader.
struct Rig {
    _dir: tempfile::TempDir,
    root: PathBuf,
    watcher: FsWatcher,
    reloader: Reloader,
}

impl Rig {
    fn new() -> Rig {
        Rig::with(false)
    }

    fn with(poll: bool) -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(crown(&["--project", &root.to_string_lossy(), "new", "pack", "demo"]), 0);
        let project = Project::new(&root);
        let reloader = Reloader::new(&project, &["demo".to_string()], ReloadOptions::default()).unwrap();
        assert!(reloader.packs["demo"].pack.is_some(), "the scaffolded pack loads");
        let watcher = FsWatcher::new(&root, poll, Duration::from_millis(50)).unwrap();
        Rig { _dir: dir, root, watcher, reloader }
    }

    fn cards(&self) -> PathBuf {
        self.root.join("content/demo/cards/cards.toml")
    }

    /// Reports of the batches that arrive within `within` until one satisfies `done`.
    fn until(&mut self, within: Duration, done: impl Fn(&ReloadReport, &Reloader) -> bool) -> Vec<ReloadReport> {
        let end = Instant::now() + within;
        let mut all = Vec::new();
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            let Some(batch) = self.watcher.next_batch(Some(left)) else { break };
            for r in self.reloader.apply(&batch) {
                let hit = done(&r, &self.reloader);
                all.push(r);
                if hit {
                    return all;
                }
            }
        }
        panic!("no reload matched within {within:?}; reports: {:?}", all.iter().map(|r| r.line()).collect::<Vec<_>>());
    }

    /// Everything that arrives within `within`.
    fn drain(&mut self, within: Duration) -> Vec<ReloadReport> {
        let end = Instant::now() + within;
        let mut all = Vec::new();
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            let Some(batch) = self.watcher.next_batch(Some(left)) else { break };
            all.extend(self.reloader.apply(&batch));
        }
        all
    }

    fn points(&self, id: &str) -> Option<i64> {
        let p = self.reloader.packs["demo"].pack.as_ref()?;
        p.get(id).and_then(|d| d.def.values.get("points").copied())
    }
}

fn points_are(id: &'static str, v: i64) -> impl Fn(&ReloadReport, &Reloader) -> bool {
    move |r, l| {
        r.ok()
            && l.packs["demo"].pack.as_ref().and_then(|p| p.get(id)).and_then(|d| d.def.values.get("points"))
                == Some(&v)
    }
}

fn set_points(text: &str, id: &str, v: i64) -> String {
    let start = text.find(&format!("id = \"{id}\"")).expect("card in file");
    let at = start + text[start..].find("values = { points = ").unwrap() + "values = { points = ".len();
    let end = at + text[at..].find(' ').unwrap();
    format!("{}{v}{}", &text[..at], &text[end..])
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn write_in_place_reloads_the_changed_definition() {
    let mut rig = Rig::new();
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    std::fs::write(rig.cards(), set_points(&text, "chest", 7)).unwrap();
    let reps = rig.until(2 * SECOND, points_are("chest", 7));
    let last = reps.last().unwrap();
    assert_eq!(last.changed, vec!["chest"], "{}", last.line());
    assert!(
        last.line().starts_with("reload demo: cards/cards.toml (definition) -> reloaded: changed chest"),
        "{}",
        last.line()
    );
    assert_eq!(rig.points("coin"), Some(1));
}

#[test]
fn polling_sees_edits_new_files_and_deletions() {
    let mut rig = Rig::with(true);
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    std::fs::write(rig.cards(), set_points(&text, "chest", 6)).unwrap();
    rig.until(3 * SECOND, points_are("chest", 6));
    let gem = rig.root.join("content/demo/cards/gem.toml");
    std::fs::write(
        &gem,
        "[[card]]\nid = \"gem\"\nname = \"Gem\"\nkind = \"treasure\"\ndecks = [\"main\"]\nvalues = { points = 5 }\n",
    )
    .unwrap();
    rig.until(3 * SECOND, points_are("gem", 5));
    std::fs::remove_file(&gem).unwrap();
    rig.until(3 * SECOND, |r, _| r.removed == vec!["gem"]);
}

#[test]
fn write_temp_then_rename_is_one_change_and_the_temp_is_ignored() {
    let mut rig = Rig::new();
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    let tmp = rig.root.join("content/demo/cards/.cards.toml.tmp");
    std::fs::write(&tmp, set_points(&text, "coin", 4)).unwrap();
    std::fs::rename(&tmp, rig.cards()).unwrap();
    let reps = rig.until(2 * SECOND, points_are("coin", 4));
    for r in &reps {
        assert!(r.files.iter().all(|(f, _)| !f.contains(".tmp")), "temp file reported: {}", r.line());
    }
}

#[test]
fn delete_then_create_ends_with_the_new_file() {
    let mut rig = Rig::new();
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    std::fs::remove_file(rig.cards()).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    std::fs::write(rig.cards(), set_points(&text, "chest", 9)).unwrap();
    rig.until(2 * SECOND, points_are("chest", 9));
    // A deletion that stays: the definitions go (nothing else names them in this pack).
    // Another file keeps a card the rules can deal, so the pack stays playable without them
    // (with no card in the deck `main`, `create_deck("main")` would always fail: an error).
    let keep = rig.root.join("content/demo/cards/keep.toml");
    std::fs::write(
        &keep,
        "[[card]]\nid = \"gem\"\nname = \"Gem\"\nkind = \"treasure\"\ncount = 1\ndecks = [\"main\"]\nvalues = { points = 5 }\ntext = \"Score 5.\"\n",
    )
    .unwrap();
    rig.until(2 * SECOND, points_are("gem", 5));
    std::fs::remove_file(rig.cards()).unwrap();
    let reps = rig.until(2 * SECOND, |r, _| !r.removed.is_empty());
    assert_eq!(reps.last().unwrap().removed, vec!["chest", "coin", "double"], "{}", reps.last().unwrap().line());
    std::fs::write(rig.cards(), &text).unwrap();
    rig.until(2 * SECOND, points_are("chest", 3));
}

#[test]
fn new_folder_and_new_file_are_picked_up() {
    let mut rig = Rig::new();
    let sub = rig.root.join("content/demo/cards/extra");
    std::fs::create_dir(&sub).unwrap();
    // Give the watcher a moment to add the new folder, as an editor would.
    std::thread::sleep(Duration::from_millis(30));
    std::fs::write(
        sub.join("gem.toml"),
        "[[card]]\nid = \"gem\"\nname = \"Gem\"\nkind = \"treasure\"\ncount = 1\ndecks = [\"main\"]\nvalues = { points = 5 }\ntext = \"Score 5.\"\n",
    )
    .unwrap();
    let reps = rig.until(2 * SECOND, points_are("gem", 5));
    assert!(reps.iter().any(|r| r.added == vec!["gem"]), "{:?}", reps.iter().map(|r| r.line()).collect::<Vec<_>>());
    // A file written in the folder later is seen too (the folder is watched).
    std::fs::write(
        sub.join("gem.toml"),
        "[[card]]\nid = \"gem\"\nname = \"Gem\"\nkind = \"treasure\"\ncount = 1\ndecks = [\"main\"]\nvalues = { points = 6 }\ntext = \"Score 6.\"\n",
    )
    .unwrap();
    rig.until(2 * SECOND, points_are("gem", 6));
    // And the folder deleted: the card goes.
    std::fs::remove_dir_all(&sub).unwrap();
    rig.until(2 * SECOND, |r, _| r.removed == vec!["gem"]);
}

#[test]
fn editor_swap_and_backup_files_are_ignored() {
    let mut rig = Rig::new();
    let dir = rig.root.join("content/demo/cards");
    for name in [".cards.toml.swp", ".cards.toml.swx", "cards.toml~", ".#cards.toml", "#cards.toml#", "4913", "x.tmp"] {
        std::fs::write(dir.join(name), "[[card]\nbroken").unwrap();
    }
    std::fs::write(rig.root.join("scripts/demo/.rules.rhai.swp"), "fn (").unwrap();
    let reps = rig.drain(Duration::from_millis(400));
    assert!(reps.is_empty(), "swap files caused reloads: {:?}", reps.iter().map(|r| r.line()).collect::<Vec<_>>());
    for name in ["cards.toml~", "4913", "x.tmp"] {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    assert!(rig.drain(Duration::from_millis(300)).is_empty());
    for n in ["content/demo/cards/.cards.toml.swp", "content/demo/cards/cards.toml~", "scripts/demo/#rules.rhai#"] {
        assert!(classify(&rig.root, &rig.root.join(n)).is_none(), "{n}");
    }
}

#[test]
fn broken_save_keeps_the_last_good_load_and_the_fix_recovers() {
    let mut rig = Rig::new();
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    // A half-written file: cut in the middle of a table.
    let cut = text.find("values = { points = 3 }").unwrap() + 12;
    std::fs::write(rig.cards(), &text[..cut]).unwrap();
    let reps = rig.until(2 * SECOND, |r, _| !r.ok());
    let st = &rig.reloader.packs["demo"];
    assert!(st.errors() > 0);
    let d = st.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert_eq!(d.file.as_deref(), Some(Path::new("content/demo/cards/cards.toml")), "{d}");
    assert!(d.line > 0, "{d}");
    assert!(reps.last().unwrap().line().contains("last good load kept"));
    assert_eq!(rig.points("chest"), Some(3), "the last good load is still there");
    // A script syntax error: same.
    let rules = rig.root.join("scripts/demo/rules.rhai");
    let rules_text = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(rig.cards(), &text).unwrap();
    rig.until(2 * SECOND, |r, _| r.ok());
    std::fs::write(&rules, format!("{rules_text}\nfn broken( {{\n")).unwrap();
    let reps = rig.until(2 * SECOND, |r, _| !r.ok());
    assert_eq!(reps.last().unwrap().files, vec![("scripts/demo/rules.rhai".to_string(), ChangeKind::Script)]);
    let st = &rig.reloader.packs["demo"];
    assert!(
        st.diagnostics.iter().any(|d| d.file.as_deref() == Some(Path::new("scripts/demo/rules.rhai")) && d.line > 0),
        "{:?}",
        st.diagnostics
    );
    let before = st.pack.as_ref().unwrap().rules_script().unwrap().hash;
    // Fixed: the new rules are loaded.
    std::fs::write(&rules, format!("{rules_text}\nfn helper() {{ 1 }}\n")).unwrap();
    let reps = rig.until(2 * SECOND, |r, _| r.ok());
    assert!(reps.last().unwrap().rules_changed, "{}", reps.last().unwrap().line());
    assert_ne!(rig.reloader.packs["demo"].pack.as_ref().unwrap().rules_script().unwrap().hash, before);
}

#[test]
fn rename_storm_ends_in_the_state_on_disk() {
    let mut rig = Rig::new();
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    let dir = rig.root.join("content/demo/cards");
    for i in 0..60 {
        let tmp = dir.join(format!("cards.toml.{i}.tmp"));
        std::fs::write(&tmp, set_points(&text, "coin", 10 + i)).unwrap();
        std::fs::rename(&tmp, rig.cards()).unwrap();
        if i % 7 == 0 {
            // Also moves of whole files in and out.
            std::fs::write(dir.join("x.toml"), "[[card]]\nid = \"x\"\nname = \"X\"\nkind = \"k\"\n").unwrap();
            std::fs::rename(dir.join("x.toml"), dir.join("y.toml")).unwrap();
            std::fs::remove_file(dir.join("y.toml")).unwrap();
        }
    }
    rig.until(3 * SECOND, points_are("coin", 69));
    assert!(rig.drain(Duration::from_millis(300)).iter().all(|r| r.ok()));
    assert_eq!(rig.points("coin"), Some(69));
    let p = rig.reloader.packs["demo"].pack.as_ref().unwrap();
    assert!(p.get("x").is_none() && p.get("y").is_none());
}

#[test]
fn content_folder_replaced_wholesale() {
    let mut rig = Rig::new();
    // As a checkout of another branch does: the pack folder (and the scripts) swapped for
    // other copies, old ones moved away.
    let other = rig.root.join("other");
    copy_dir(&rig.root.join("content/demo"), &other.join("content-demo")).unwrap();
    copy_dir(&rig.root.join("scripts/demo"), &other.join("scripts-demo")).unwrap();
    let cards = other.join("content-demo/cards/cards.toml");
    let text = std::fs::read_to_string(&cards).unwrap();
    std::fs::write(&cards, set_points(&set_points(&text, "coin", 2), "chest", 5)).unwrap();
    std::fs::rename(rig.root.join("content/demo"), rig.root.join("old-demo")).unwrap();
    std::fs::rename(other.join("content-demo"), rig.root.join("content/demo")).unwrap();
    std::fs::rename(rig.root.join("scripts/demo"), rig.root.join("old-scripts")).unwrap();
    std::fs::rename(other.join("scripts-demo"), rig.root.join("scripts/demo")).unwrap();
    rig.until(3 * SECOND, |r, l| {
        points_are("coin", 2)(r, l)
            && l.packs["demo"].pack.as_ref().unwrap().get("chest").unwrap().def.values["points"] == 5
    });
    // The new folder is watched: a later edit in it is seen.
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    std::fs::write(rig.cards(), set_points(&text, "chest", 8)).unwrap();
    rig.until(2 * SECOND, points_are("chest", 8));
    // The whole content/ folder replaced.
    let new_content = rig.root.join("content2");
    copy_dir(&rig.root.join("content"), &new_content).unwrap();
    let c2 = new_content.join("demo/cards/cards.toml");
    let t2 = std::fs::read_to_string(&c2).unwrap();
    std::fs::write(&c2, set_points(&t2, "chest", 11)).unwrap();
    std::fs::rename(rig.root.join("content"), rig.root.join("content-old")).unwrap();
    std::fs::rename(&new_content, rig.root.join("content")).unwrap();
    rig.until(3 * SECOND, points_are("chest", 11));
    let text = std::fs::read_to_string(rig.cards()).unwrap();
    std::fs::write(rig.cards(), set_points(&text, "chest", 12)).unwrap();
    rig.until(2 * SECOND, points_are("chest", 12));
}

#[test]
fn golden_games_involving_changed_definitions_are_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let repo = repo_project();
    for sub in ["content/the-last-kingdom", "scripts/the-last-kingdom", "tests/golden/the-last-kingdom"] {
        copy_dir(&repo.root.join(sub), &root.join(sub)).unwrap();
    }
    let project = Project::new(&root);
    let opts = ReloadOptions { print: None, test: true };
    let mut reloader = Reloader::new(&project, &["the-last-kingdom".to_string()], opts).unwrap();
    let pack = reloader.packs["the-last-kingdom"].pack.clone().expect("the-last-kingdom loads");
    let cases = crown_tools::golden::discover(&project, &["the-last-kingdom".to_string()]);
    assert!(cases.len() > 1);
    // A definition named in some transcripts but not all.
    let involved = |id: &str| {
        cases
            .iter()
            .filter(|c| {
                std::fs::read_to_string(&c.transcript_file)
                    .unwrap()
                    .lines()
                    .any(|l| crown_tools::golden::definitions_in(l).iter().any(|d| d == id))
            })
            .count()
    };
    let def = pack
        .defs
        .iter()
        .find(|d| {
            let n = involved(&d.def.id);
            let in_file = std::fs::read_to_string(root.join(&d.origin.file))
                .is_ok_and(|t| t.contains(&format!("text = {}", toml_str(&d.def.text))));
            n > 0 && n < cases.len() && !d.def.text.is_empty() && in_file
        })
        .expect("a definition in some goldens only");
    let id = def.def.id.clone();
    let file = root.join(&def.origin.file);
    let text = std::fs::read_to_string(&file).unwrap();
    let old = format!("text = {}", toml_str(&def.def.text));
    assert!(text.contains(&old), "{old}");
    // Only the text changes: the goldens involving it replay and pass.
    std::fs::write(&file, text.replacen(&old, "text = \"Reworded.\"", 1)).unwrap();
    let rel = def.origin.file.to_string_lossy().replace('\\', "/");
    let change = classify(&root, &root.join(&rel)).unwrap();
    let reps = reloader.apply(&[change]);
    assert_eq!(reps.len(), 1);
    let r = &reps[0];
    assert_eq!(r.changed, vec![id.clone()], "{}", r.line());
    assert_eq!(r.golden_passed, involved(&id), "{}", r.line());
    assert!(r.golden_failed.is_empty(), "{}", r.line());
    assert!(r.line().contains("golden game"), "{}", r.line());
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

// ---- the bar: `crown watch` as a process ----

/// A running `crown` process whose output lines arrive on channels.
pub struct Proc {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
    pub seen_err: Vec<String>,
}

impl Proc {
    fn start(args: &[&str]) -> Proc {
        let (child, out, err) = spawn_crown(args);
        Proc { child, out, err, seen_err: Vec::new() }
    }

    /// The next standard-output line matching `pred`, within `within`.
    fn line(&mut self, within: Duration, pred: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + within;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.out.recv_timeout(left) {
                Ok(l) if pred(&l) => return l,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        self.seen_err.extend(self.err.try_iter());
        panic!("no matching line within {within:?}; stderr:\n{}", self.seen_err.join("\n"));
    }

    fn stderr_now(&mut self) -> String {
        self.seen_err.extend(self.err.try_iter());
        self.seen_err.join("\n")
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn crown_watch_on_take_the_kingdom_meets_the_bar() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let repo = repo_project();
    for sub in ["content/take-the-kingdom", "scripts/take-the-kingdom"] {
        copy_dir(&repo.root.join(sub), &root.join(sub)).unwrap();
    }
    std::fs::create_dir_all(root.join("tests/golden")).unwrap();
    let mut p = Proc::start(&["--project", &root.to_string_lossy(), "watch", "take-the-kingdom"]);
    p.line(Duration::from_secs(10), |l| l.starts_with("watching "));
    let file = root.join("content/take-the-kingdom/cards/attack.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let good = text.replacen("values = { attack = 1, solo = 5 }", "values = { attack = 2, solo = 5 }", 1);
    assert_ne!(good, text);

    // A value edit: a reload line within one second.
    let t = Instant::now();
    std::fs::write(&file, &good).unwrap();
    let l = p.line(Duration::from_secs(1), |l| l.starts_with("reload take-the-kingdom"));
    let ms = t.elapsed().as_millis();
    assert!(l.contains("cards/attack.toml (definition)") && l.contains("changed pikemen"), "{l}");
    assert!(ms < 1000, "{ms} ms");
    eprintln!("value edit -> `{l}` after {ms} ms");

    // A syntax error: a diagnostic naming the file and line; the process stays alive.
    let broken = good.replacen("values = { attack = 2, solo = 5 }", "values = { attack = = 2, solo = 5 }", 1);
    let line_no = broken[..broken.find("values = { attack = = 2").unwrap()].lines().count() + 1;
    std::fs::write(&file, &broken).unwrap();
    let l = p.line(Duration::from_secs(2), |l| l.starts_with("error  take-the-kingdom"));
    assert!(l.contains("last good load kept"), "{l}");
    std::thread::sleep(Duration::from_millis(100));
    let err = p.stderr_now();
    let at = format!("content/take-the-kingdom/cards/attack.toml:{line_no}:");
    assert!(err.contains(&at), "no diagnostic at {at} in:\n{err}");
    assert!(p.alive(), "crown watch exited on a broken save");

    // Fixed: a reload line again.
    let fixed = good.replacen("values = { attack = 2, solo = 5 }", "values = { attack = 3, solo = 5 }", 1);
    let t = Instant::now();
    std::fs::write(&file, &fixed).unwrap();
    let l = p.line(Duration::from_secs(1), |l| l.starts_with("reload take-the-kingdom"));
    assert!(l.contains("changed pikemen"), "{l}");
    eprintln!("fix -> `{l}` after {} ms", t.elapsed().as_millis());
    assert!(p.alive());
}

#[test]
fn play_watch_reloads_between_choices_and_logs_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(crown(&["--project", &root.to_string_lossy(), "new", "pack", "demo"]), 0);
    let transcript = root.join("game.transcript");
    let mut child = Command::new(crown_bin())
        .args(["--project", &root.to_string_lossy(), "play", "demo", "--watch", "--agents", "human,first"])
        .arg("--transcript")
        .arg(&transcript)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    use std::io::Write;
    let wait_prompt = |rx: &Receiver<String>| {
        let end = Instant::now() + Duration::from_secs(10);
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(l) if l.contains("watching the pack's files") => return true,
                Ok(l) if l.trim_end().ends_with(':') && l.contains(", ") => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        false
    };
    assert!(wait_prompt(&rx), "play did not start");
    // A first choice; then a definition the game holds is removed: refused.
    writeln!(stdin, "1").unwrap();
    let cards = root.join("content/demo/cards/cards.toml");
    let text = std::fs::read_to_string(&cards).unwrap();
    let at = text.find("[[card]]\nid = \"double\"").expect("double in the scaffold");
    let end = text[at + 8..].find("[[card]]").map_or(text.len(), |e| at + 8 + e);
    std::fs::write(&cards, format!("{}{}", &text[..at], &text[end..])).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    writeln!(stdin, "1").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // Then a value edit (with the definition back): reloaded.
    std::fs::write(&cards, set_points(&text, "chest", 30)).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    for _ in 0..200 {
        if writeln!(stdin, "1").is_err() {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(err.contains("reload demo: cards/cards.toml (definition) -> reloaded: removed double"), "{err}");
    assert!(err.contains("note: double removed"), "{err}");
    assert!(
        err.contains("reload demo: cards/cards.toml (definition) -> reloaded: changed chest; added double"),
        "{err}"
    );
    let t = std::fs::read_to_string(&transcript).unwrap();
    let refused = t.lines().position(|l| l.starts_with("reload refused: double removed while in play")).expect(&t);
    let reloaded = t
        .lines()
        .position(|l| l.starts_with("reload: definitions and scripts reloaded") && l.ends_with(": changed chest"))
        .expect(&t);
    assert!(refused < reloaded, "{t}");
    // The game went on after both and ended normally.
    assert!(t.lines().last().unwrap().starts_with("# result"), "{t}");
}

/// The benchmark suite's reload figures (`cargo xtask bench`; `cargo xtask test` builds the suite).
#[cfg(feature = "bench-suite")]
#[test]
fn latency_benchmark_reports_percentiles_and_memory() {
    // `CROWN_LATENCY=100,1000,1000` runs the full benchmark (edits, cards, reloads).
    let spec = std::env::var("CROWN_LATENCY").unwrap_or_else(|_| "20,200,60".into());
    let n: Vec<usize> = spec.split(',').map(|x| x.trim().parse().unwrap()).collect();
    let r = crown_tools::bench::watch::latency_bench_with(n[0], n[1], n[2]);
    eprintln!("{r:?} (memory growth {:.1}%)", r.rss_growth_percent());
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!(r.reloads, n[2]);
    assert!(r.p50_ms > 0.0 && r.p50_ms <= r.p95_ms, "{r:?}");
    // Generous bounds for a loaded CI machine; the figures themselves are what matters.
    assert!(r.p50_ms < 500.0, "{r:?}");
    assert!(r.rss_after_first_kb > 0 && r.rss_growth_percent() < 50.0, "{r:?}");
}
