//! Property tests over the shipped packs and the loaders: cards are never duplicated or
//! lost, every game ends (or is reported at the turn limit), results do not depend on the
//! thread count, recorded games replay to the same transcript, and no input (random bytes,
//! mutated shipped files, arbitrary game files and scripts) makes a loader panic.
//!
//! These are also the stable, bounded variants of the fuzz targets in `fuzz/` (see
//! docs/hardening.md): the same entry points, a few dozen cases each, so they run in CI.
//! `PROPTEST_CASES=N` runs more.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::common::repo_project;
use crown_engine::content::Pack;
use crown_engine::game::record::{transcript_text, GameFile};
use crown_engine::game::state::NO_ZONE;
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::load::{load_pack, LoadOptions, Project};
use proptest::prelude::*;

/// The shipped packs, loaded once.
fn packs() -> &'static Vec<Arc<Pack>> {
    static PACKS: OnceLock<Vec<Arc<Pack>>> = OnceLock::new();
    PACKS.get_or_init(|| {
        let project = repo_project();
        let ids = project.pack_ids();
        assert!(ids.len() >= 4, "expected the shipped packs, found {ids:?}");
        ids.iter()
            .map(|id| crate::common::load_pack(&project, id).unwrap_or_else(|e| panic!("{id} does not load:\n{e}")))
            .collect()
    })
}

fn players_of(pack: &Pack) -> usize {
    crown_tools::seats::player_count(pack, None, None)
}

fn kinds(players: usize, mix: u8) -> Vec<String> {
    let all = ["random", "greedy", "first"];
    (0..players).map(|i| all[(mix as usize + i) % all.len()].to_string()).collect()
}

fn play(pack: &Arc<Pack>, seed: u64, mix: u8, transcript: bool) -> (Game, crown_engine::game::Outcome) {
    let players = players_of(pack);
    let k = kinds(players, mix);
    let mut cfg = GameConfig::new(seed, players);
    cfg.transcript = transcript;
    let game = Game::new(pack.clone(), cfg, crown_tools::seats::bots(&k, seed))
        .unwrap_or_else(|e| panic!("{}: cannot start seed {seed}: {e}", pack.id()));
    game.run()
}

/// Every card instance is in exactly one place: one zone (listed there once, and the
/// card says so), under one host (listed in its `attached` once), or out of the game.
fn check_cards(game: &Game) -> Result<(), String> {
    let s = &game.state;
    let n = s.cards.len();
    let mut seen = vec![0u32; n];
    for (zi, z) in s.zones.iter().enumerate() {
        for &c in &z.cards {
            let card = s
                .cards
                .get(c as usize)
                .ok_or_else(|| format!("zone {} lists card {c}, which does not exist", z.name))?;
            seen[c as usize] += 1;
            if card.zone as usize != zi {
                return Err(format!("card {c} is listed in zone {} but says it is in zone {}", z.name, card.zone));
            }
            if card.host.is_some() {
                return Err(format!("card {c} is in zone {} and attached to a host", z.name));
            }
        }
    }
    for (hi, h) in s.cards.iter().enumerate() {
        for &a in &h.attached {
            let card =
                s.cards.get(a as usize).ok_or_else(|| format!("card {hi} holds card {a}, which does not exist"))?;
            seen[a as usize] += 1;
            if card.host != Some(hi as u32) {
                return Err(format!("card {a} is attached to {hi} but names host {:?}", card.host));
            }
        }
    }
    for (c, card) in s.cards.iter().enumerate() {
        let expected = u32::from(card.zone != NO_ZONE || card.host.is_some());
        if seen[c] != expected {
            let def = &game.pack.defs[card.def as usize].def.id;
            return Err(format!(
                "card {c} ({def}) is held {} times but should be held {expected} time(s) (zone {}, host {:?})",
                seen[c], card.zone, card.host
            ));
        }
    }
    Ok(())
}

/// `cases` cases (whole games of every shipped pack are slow in debug builds; loaders
/// are fast), or `PROPTEST_CASES`.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(16))]

    /// No card is duplicated or lost, and every game ends or stops at the turn limit,
    /// in every shipped pack, whatever the seed and the mix of bots.
    #[test]
    fn games_keep_every_card_and_end(seed in any::<u64>(), mix in 0u8..3) {
        for pack in packs() {
            let (game, o) = play(pack, seed, mix, false);
            prop_assert!(
                matches!(o.status, Status::Finished | Status::TurnLimit),
                "{} seed {seed} mix {mix}: {:?}", pack.id(), o.status
            );
            prop_assert!(o.turns <= game.max_turns, "{}: {} turns past the limit {}", pack.id(), o.turns, game.max_turns);
            if o.status == Status::TurnLimit {
                prop_assert_eq!(o.turns, game.max_turns);
            }
            if let Err(e) = check_cards(&game) {
                return Err(TestCaseError::fail(format!("{} seed {seed} mix {mix}: {e}", pack.id())));
            }
        }
    }
}

proptest! {
    #![proptest_config(config(4))]

    /// A game recorded to a file (and read back) replays to the same transcript.
    #[test]
    fn recorded_games_replay(seed in any::<u64>(), mix in 0u8..3) {
        for pack in packs() {
            let (game, o) = play(pack, seed, mix, true);
            let live = transcript_text(&game, &o);
            let players = players_of(pack);
            let file = GameFile::from_game(&game, kinds(players, mix), String::new());
            let text = file.to_toml();
            let back = GameFile::parse(&text).map_err(|e| TestCaseError::fail(format!("{}: {e}\n{text}", pack.id())))?;
            prop_assert_eq!(&back, &file);
            let (_, _, replayed) = back.replay(pack.clone()).map_err(TestCaseError::fail)?;
            prop_assert!(live == replayed, "{} seed {seed}: replay differs", pack.id());
            // The same game with every seat taken as a person: their recorded choices are
            // replayed and the fallback agent never has to step in.
            let pinned = GameFile::from_game(&game, vec!["human".to_string(); players], String::new());
            let r = pinned.replay_full(pack.clone()).map_err(TestCaseError::fail)?;
            prop_assert!(r.continued.is_empty(), "{} seed {seed}: continued {:?}", pack.id(), r.continued);
            prop_assert!(live == r.transcript, "{} seed {seed}: replay of a person's choices differs", pack.id());
        }
    }
}

/// The transcripts of games `0..n` played by `threads` threads taking games in turn
/// from a shared counter (so which thread plays which game varies from run to run).
fn transcripts_on(pack: &Arc<Pack>, seed: u64, n: u64, threads: usize) -> Vec<String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let next = AtomicU64::new(0);
    let out = std::sync::Mutex::new(vec![String::new(); n as usize]);
    std::thread::scope(|s| {
        for _ in 0..threads {
            std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let gs = crown_engine::game::rng::derive_seed(seed, i);
                    let (g, o) = play(pack, gs, (i % 3) as u8, true);
                    out.lock().unwrap()[i as usize] = transcript_text(&g, &o);
                })
                .unwrap();
        }
    });
    out.into_inner().unwrap()
}

/// The same seed gives the same transcripts and the same `sim` statistics with 1, 2 and
/// 8 threads, in every shipped pack.
#[test]
fn same_seed_same_result_on_1_2_8_threads() {
    for pack in packs() {
        for seed in [0xC0FFEE_u64] {
            let one = transcripts_on(pack, seed, 4, 1);
            for threads in [2, 8] {
                let other = transcripts_on(pack, seed, 4, threads);
                for (i, (a, b)) in one.iter().zip(&other).enumerate() {
                    assert!(a == b, "{} seed {seed}: game {i} differs on {threads} threads", pack.id());
                }
            }
            let k = kinds(players_of(pack), 0);
            let sim =
                |t| format!("{:?}", crown_tools::sim::simulate(pack, &k, None, seed, 6, Some(t), 6, None).unwrap());
            let s1 = sim(1);
            assert_eq!(s1, sim(2), "{}: sim differs on 2 threads", pack.id());
            assert_eq!(s1, sim(8), "{}: sim differs on 8 threads", pack.id());
        }
    }
}

// ---- Kingdoms in Conflict: a pillage needs room ----

/// Kingdoms in Conflict with its scenarios' options tightened for the pillage check:
/// stockpiles of `pile_limit` and games of `turns` player turns.
fn kic_tight(pile_limit: i64, turns: i64) -> Arc<Pack> {
    use crown_engine::content::model::Scalar;
    let kic = packs().iter().find(|p| p.id() == "kingdoms-in-conflict").expect("the Kingdoms in Conflict pack");
    let mut pack = (**kic).clone();
    for e in &mut pack.scenarios {
        e.scenario.options.insert("pile-limit".into(), Scalar::Int(pile_limit));
        e.scenario.options.insert("turn-limit".into(), Scalar::Int(turns));
    }
    Arc::new(pack)
}

/// Every pillage in a Kingdoms in Conflict transcript, as (its line, how many of the
/// pillaged resources went back to the supply for want of room, how many were taken).
/// Each pillaged resource is either moved onto one of the pillager's piles (a `move`
/// line) or lost to the supply (the rules log why), in order after the pillage line.
fn kic_pillages(transcript: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = transcript.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some((_, rest)) = l.split_once(" pillages ") else { continue };
        if l.starts_with("choice ") {
            continue;
        }
        let n: usize =
            rest.split(' ').next().and_then(|x| x.parse().ok()).unwrap_or_else(|| panic!("pillage line: {l}"));
        let (mut seen, mut lost) = (0, 0);
        for after in &lines[i + 1..] {
            if seen == n {
                break;
            }
            if after.ends_with("is lost to the supply") {
                lost += 1;
                seen += 1;
            } else if after.starts_with("move ") {
                seen += 1;
            }
        }
        assert_eq!(seen, n, "not every pillaged resource is accounted for after: {l}");
        out.push((l.to_string(), lost, n));
    }
    out
}

/// Kingdoms in Conflict: no pillage takes goods when none of them fits in the
/// pillager's own stockpiles, judged at the moment of the pillage (after the move before
/// it has gained its tile or been paid for). A pillage whose every resource went back to
/// the supply is one the rules should not have offered.
///
/// The edge comes up when the stockpiles are full, which takes a long game with the
/// shipped options; with piles of 1 or 2 the stockpiles are full from the first turns, so
/// short games of greedy bots (which pillage whenever it pays) across every scenario meet
/// it often: with the menu judging the room before the move, about one game in ten of these
/// took a pillage with no room. `PROPTEST_CASES=N` plays N games.
#[test]
fn kic_no_pillage_takes_goods_when_none_fits() {
    const TURNS: i64 = 16;
    let games: u64 = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let packs = [kic_tight(1, TURNS), kic_tight(2, TURNS)];
    let scenarios = ["standard", "face-off", "border-war", "to-the-end"];
    let (mut pillages, mut partly) = (0, 0);
    for i in 0..games {
        let pack = &packs[(i / 4 % 2) as usize];
        let sc = scenarios[(i % 4) as usize];
        let seed = crown_engine::game::rng::derive_seed(0x0911_1A6E, i);
        let bots = if i % 5 == 4 { ["greedy", "random"] } else { ["greedy", "greedy"] };
        let mut cfg = GameConfig::new(seed, 2);
        cfg.scenario = Some(sc.to_string());
        cfg.transcript = true;
        let game = Game::new(pack.clone(), cfg, crown_tools::seats::bots(&bots.map(String::from), seed))
            .unwrap_or_else(|e| panic!("{sc} seed {seed}: {e}"));
        let (game, o) = game.run();
        let text = transcript_text(&game, &o);
        for (line, lost, n) in kic_pillages(&text) {
            pillages += 1;
            if lost > 0 {
                partly += 1;
            }
            assert!(
                lost < n,
                "{sc} seed {seed} (pile-limit {}, {bots:?}): a pillage took {n} resource(s) and none fitted: {line}",
                (i / 4 % 2) + 1
            );
        }
    }
    // The check saw enough pillages, some of them keeping only part of what they took (so
    // it reads a loss when there is one). Too few games may show neither.
    if games >= 200 {
        assert!(pillages >= games as usize / 8, "only {pillages} pillages in {games} games");
        assert!(partly > 0, "no pillage lost any resource: the check would not see a loss");
    }
}

// ---- loaders never panic ----

/// A copy of a project folder in a temporary directory.
fn scratch_copy(from: &Path, packs: &[&str]) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    for p in packs {
        crate::common::copy_dir(&from.join("content").join(p), &dir.path().join("content").join(p)).unwrap();
        let s = from.join("scripts").join(p);
        if s.is_dir() {
            crate::common::copy_dir(&s, &dir.path().join("scripts").join(p)).unwrap();
        }
    }
    let project = Project::new(dir.path());
    (dir, project)
}

fn tiny_base() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/invalid/_base/tiny")
}

/// Where an arbitrary file is dropped into the tiny pack.
const SLOTS: &[&str] = &[
    "content/tiny/pack.toml",
    "content/tiny/cards/cards.toml",
    "content/tiny/cards/extra.toml",
    "content/tiny/scenarios/standard.toml",
    "content/tiny/board.toml",
    "content/tiny/nobles.toml",
    "content/tiny/leaders.toml",
    "content/tiny/plaques.toml",
];

/// Load must return (errors or a pack), and a pack that loads must play.
fn load_never_panics(project: &Project, id: &str) {
    let l = load_pack(project, id, LoadOptions::default());
    assert_eq!(l.pack.is_some(), !l.diagnostics.iter().any(|d| d.is_error()));
    // Rendering every diagnostic must not panic either (spans inside the text).
    let _ = crown_engine::diag::render(&l.diagnostics, &l.sources, false);
    for d in &l.diagnostics {
        let _ = d.to_string();
    }
}

/// The text of every shipped TOML file, by path relative to the repository.
fn shipped_toml() -> &'static Vec<(String, String)> {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let root = repo_project().root;
        let mut out = Vec::new();
        for e in walkdir::WalkDir::new(root.join("content")).sort_by_file_name().into_iter().flatten() {
            if e.path().extension().is_some_and(|x| x == "toml") {
                let rel = e.path().strip_prefix(&root).unwrap().to_string_lossy().to_string();
                out.push((rel, std::fs::read_to_string(e.path()).unwrap()));
            }
        }
        out
    })
}

/// The shipped scripts' text.
fn shipped_scripts() -> &'static Vec<(String, String)> {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let root = repo_project().root;
        let mut out = Vec::new();
        for e in walkdir::WalkDir::new(root.join("scripts")).sort_by_file_name().into_iter().flatten() {
            if e.path().extension().is_some_and(|x| x == "rhai") {
                let rel = e.path().strip_prefix(&root).unwrap().to_string_lossy().to_string();
                out.push((rel, std::fs::read_to_string(e.path()).unwrap()));
            }
        }
        out
    })
}

/// A structured mutation of a text.
#[derive(Debug, Clone)]
enum Mutation {
    /// Delete bytes `at..at+len` (positions are taken modulo the length).
    Delete(usize, usize),
    /// Insert a token at a position.
    Insert(usize, &'static str),
    /// Duplicate line `n`.
    DuplicateLine(usize),
    /// Swap lines `a` and `b`.
    SwapLines(usize, usize),
    /// Cut the text at a position (a half-written file).
    Truncate(usize),
    /// Replace a byte with an arbitrary one.
    Byte(usize, u8),
}

const TOKENS: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    "[[card]]\n",
    "[[card]]\nid = \"x\"\n",
    "=",
    "\"",
    "'''",
    "\"\"\"",
    "\n",
    "#",
    "nan",
    "inf",
    "-9223372036854775808",
    "99999999999999999999",
    "1e400",
    "0x",
    "1979-05-27T07:32:00Z",
    "true",
    ",",
    ".",
    "a.b.c",
    "\u{feff}",
    "\0",
    "\\u0000",
    "é",
    "override = true\n",
    "extends = \"tiny\"\n",
    "remove = [\"coin\"]\n",
    "count = -1\n",
    "count = 10001\n",
    "cards = [\"nothing\"]\n",
    "script = \"../x.rhai\"\n",
    "hooks = [\"on_play\"]\n",
    "stages = [{ position = \"back-top\", name = \"x\" }]\n",
    "[grid]\nwidth = 0\n",
    "[[space]]\nid = \"a\"\nadjacent = [\"b\"]\n",
    "[[seat]]\ncharacter = \"coin\"\n",
    "players = { min = 0, max = 99 }\n",
    "card_size = { width_mm = -1, height_mm = 1e9 }\n",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(a, l)| Mutation::Delete(a, l)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Mutation::Insert(a, TOKENS[t])),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Byte(a, b)),
    ]
}

fn apply(text: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut b = text.to_vec();
    for m in muts {
        let len = b.len().max(1);
        match *m {
            Mutation::Delete(at, l) => {
                let at = at % len;
                let end = (at + l).min(b.len());
                if at < end {
                    b.drain(at..end);
                }
            }
            Mutation::Insert(at, t) => {
                let at = at % (b.len() + 1);
                b.splice(at..at, t.bytes());
            }
            Mutation::DuplicateLine(n) | Mutation::SwapLines(n, _) if b.is_empty() => {
                let _ = n;
            }
            Mutation::DuplicateLine(n) => {
                let mut lines: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let i = n % lines.len();
                let l = lines[i].clone();
                lines.insert(i, l);
                b = lines.join(&b'\n');
            }
            Mutation::SwapLines(x, y) => {
                let mut lines: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let n = lines.len();
                lines.swap(x % n, y % n);
                b = lines.join(&b'\n');
            }
            Mutation::Truncate(at) => b.truncate(at % len),
            Mutation::Byte(at, v) => {
                if !b.is_empty() {
                    let i = at % b.len();
                    b[i] = v;
                }
            }
        }
    }
    b
}

/// One scratch copy of the tiny pack per test thread, files reset before each case.
fn with_tiny(f: impl FnOnce(&Project)) {
    let (_dir, project) = scratch_copy(&tiny_base(), &["tiny"]);
    f(&project);
}

proptest! {
    #![proptest_config(config(64))]

    /// Random bytes in any definition file of a small pack: errors, never a panic.
    #[test]
    fn random_bytes_never_panic_the_loader(slot in 0..SLOTS.len(), bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        with_tiny(|project| {
            std::fs::write(project.root.join(SLOTS[slot]), &bytes).unwrap();
            load_never_panics(project, "tiny");
        });
    }

    /// Random TOML-ish text (tokens strung together) in a definition file.
    #[test]
    fn random_toml_never_panics_the_loader(
        slot in 0..SLOTS.len(),
        toks in proptest::collection::vec((0..TOKENS.len(), "[a-z_]{0,6}"), 0..40),
    ) {
        let text: String = toks.iter().map(|(t, w)| format!("{}{w}", TOKENS[*t])).collect();
        with_tiny(|project| {
            std::fs::write(project.root.join(SLOTS[slot]), text.as_bytes()).unwrap();
            load_never_panics(project, "tiny");
        });
    }

    /// Mutations of a shipped file (any pack's), dropped into the tiny pack as the file of
    /// the same kind, or into a copy of its own pack.
    #[test]
    fn mutated_shipped_files_never_panic_the_loader(
        file in any::<prop::sample::Index>(),
        muts in proptest::collection::vec(mutation(), 1..6),
        own_pack in any::<bool>(),
    ) {
        let files = shipped_toml();
        let (rel, text) = &files[file.index(files.len())];
        let bytes = apply(text.as_bytes(), &muts);
        let parts: Vec<&str> = rel.split('/').collect(); // content/<pack>/...
        if own_pack {
            let repo = repo_project().root;
            let pack = parts[1];
            let manifest = std::fs::read_to_string(repo.join("content").join(pack).join("pack.toml")).unwrap();
            let mut packs = vec![pack];
            let base = manifest.lines().find_map(|l| l.strip_prefix("extends = \"")).map(|s| s.trim_end_matches('"'));
            if let Some(b) = base {
                packs.push(b);
            }
            let (_dir, project) = scratch_copy(&repo, &packs);
            std::fs::write(project.root.join(rel), &bytes).unwrap();
            let l = load_pack(&project, pack, LoadOptions { compile_scripts: false });
            let _ = crown_engine::diag::render(&l.diagnostics, &l.sources, false);
        } else {
            let rest = parts[2..].join("/");
            let slot = if rest.starts_with("cards/") { "cards/cards.toml".to_string() } else if rest.starts_with("scenarios/") { "scenarios/standard.toml".to_string() } else { rest };
            with_tiny(|project| {
                std::fs::write(project.root.join("content/tiny").join(slot), &bytes).unwrap();
                load_never_panics(project, "tiny");
            });
        }
    }

    /// Arbitrary text as a game file: parsed or refused, never a panic; what parses
    /// prints back to the same file.
    #[test]
    fn game_file_parser_never_panics(
        base in 0usize..3,
        muts in proptest::collection::vec(mutation(), 0..6),
    ) {
        let golden = golden_files();
        let text = &golden[base % golden.len()];
        let bytes = apply(text.as_bytes(), &muts);
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(g) = GameFile::parse(&text) {
            let again = GameFile::parse(&g.to_toml()).map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(again, g);
        }
    }

    /// A game file whose fields are arbitrary round-trips through its TOML form, and
    /// replaying it against a pack fails cleanly or plays.
    #[test]
    fn arbitrary_game_files_round_trip_and_replay(
        seed in any::<u64>(),
        players in proptest::collection::vec("[ -~]{0,12}", 0..6),
        choices in proptest::collection::vec(
            (0u64..50, 0usize..8, "[ -~é\"\\\\]{0,16}", proptest::option::of("[ -~é\"\\\\]{0,8}")),
            0..30,
        ),
        description in "[ -~\n\t\"]{0,40}",
    ) {
        let g = GameFile {
            pack: "tiny".into(),
            scenario: None,
            seed,
            players,
            agents: vec![],
            fallback: None,
            description,
            continued: vec![],
            choices: choices
                .into_iter()
                .map(|(step, player, label, key)| crown_engine::game::record::RecordedChoice { step, player, label, key })
                .collect(),
            superseded: vec![],
        };
        let back = GameFile::parse(&g.to_toml()).map_err(|e| TestCaseError::fail(format!("{e}\n{}", g.to_toml())))?;
        prop_assert_eq!(&back, &g);
        let pack = tiny_pack();
        if let Ok((_, o, _)) = back.replay(pack.clone()) {
            prop_assert!(!matches!(o.status, Status::Paused));
        }
    }

    /// Script compilation under Crown's limits: arbitrary and mutated scripts compile or
    /// give an error with a position, never a panic or a stack overflow.
    #[test]
    fn script_compilation_never_panics(
        script in any::<prop::sample::Index>(),
        muts in proptest::collection::vec(script_mutation(), 0..6),
    ) {
        let scripts = shipped_scripts();
        let (name, text) = &scripts[script.index(scripts.len())];
        let bytes = apply(text.as_bytes(), &muts);
        let text = String::from_utf8_lossy(&bytes);
        let _ = crown_engine::script::compile(name, &text);
    }

    #[test]
    fn random_scripts_never_panic_the_compiler(toks in proptest::collection::vec((0..SCRIPT_TOKENS.len(), "[a-z0-9_]{0,4}"), 0..80)) {
        let text: String = toks.iter().map(|(t, w)| format!("{}{w}", SCRIPT_TOKENS[*t])).collect();
        let _ = crown_engine::script::compile("random.rhai", &text);
    }
}

const SCRIPT_TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "#{",
    "fn ",
    "let ",
    "const ",
    "if ",
    "else ",
    "while ",
    "loop ",
    "for ",
    " in ",
    "return ",
    "break",
    ";",
    ",",
    ".",
    "=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "<<",
    ">>",
    "&&",
    "||",
    "!",
    "|",
    "|x|",
    "\"",
    "'",
    "`",
    "${",
    "/*",
    "*/",
    "//",
    "\n",
    "eval",
    "import ",
    "export ",
    "Fn(\"f\")",
    ".call(",
    "this",
    "switch ",
    "=>",
    "_",
    "?",
    "?.",
    "??",
    "9223372036854775807",
    "0x",
    "1.5",
    "é",
    "\0",
    "..",
    "..=",
    "try ",
    "catch ",
    "throw ",
    "do ",
    "until ",
];

fn script_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(a, l)| Mutation::Delete(a, l)),
        (any::<usize>(), 0..SCRIPT_TOKENS.len()).prop_map(|(a, t)| Mutation::Insert(a, SCRIPT_TOKENS[t])),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn golden_files() -> &'static Vec<String> {
    static FILES: OnceLock<Vec<String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let root = repo_project().root.join("tests/golden");
        let mut out = Vec::new();
        for e in walkdir::WalkDir::new(root).sort_by_file_name().into_iter().flatten() {
            if e.path().to_string_lossy().ends_with(".game.toml") {
                out.push(std::fs::read_to_string(e.path()).unwrap());
            }
        }
        assert!(!out.is_empty());
        out
    })
}

fn tiny_pack() -> &'static Arc<Pack> {
    static PACK: OnceLock<Arc<Pack>> = OnceLock::new();
    PACK.get_or_init(|| {
        let project = Project::new(tiny_base());
        crate::common::load_pack(&project, "tiny").unwrap()
    })
}

#[test]
fn mutations_apply() {
    assert_eq!(apply(b"ab\ncd", &[Mutation::SwapLines(0, 1)]), b"cd\nab");
    assert_eq!(apply(b"abc", &[Mutation::Delete(1, 1)]), b"ac");
    assert_eq!(apply(b"abc", &[Mutation::Insert(3, "x")]), b"abcx");
    assert_eq!(apply(b"abc", &[Mutation::Truncate(2)]), b"ab");
    assert_eq!(apply(b"", &[Mutation::DuplicateLine(4), Mutation::Byte(3, 0)]), b"");
}

/// The card check finds a duplicated card, a lost card and a card in two places.
#[test]
fn card_check_catches_duplicates_and_losses() {
    // (The first pack that plays with cards: a map game may have none.)
    let pack = packs().iter().find(|p| !p.defs.is_empty()).expect("a pack with cards");
    let (game, _) = play(pack, 3, 0, false);
    check_cards(&game).unwrap();
    let z = game.state.zones.iter().position(|z| !z.cards.is_empty()).expect("a zone with cards");
    let c = game.state.zones[z].cards[0];
    let other = (z + 1) % game.state.zones.len();

    let (mut dup, _) = play(pack, 3, 0, false);
    dup.state.zones[other].cards.push(c);
    assert!(check_cards(&dup).is_err(), "a card listed in two zones");

    let (mut lost, _) = play(pack, 3, 0, false);
    lost.state.zones[z].cards.retain(|&x| x != c);
    assert!(check_cards(&lost).is_err(), "a card whose zone does not list it");

    let (mut twice, _) = play(pack, 3, 0, false);
    twice.state.zones[z].cards.push(c);
    assert!(check_cards(&twice).is_err(), "a card listed twice in its zone");
}
