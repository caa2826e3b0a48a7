//! Validation beyond loading a pack, shared by every command that shows diagnostics
//! (`check`, `watch`, `serve`, `play --watch`): the printed faces, the rules documents,
//! the golden game files and a first play of each scenario; and the pack digest that `check --digest` and `watch
//! --digest` print, so two runs can tell whether they saw the same pack.

use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::diag::{Diagnostic, SourceMap};
use crown_engine::load::Project;

/// What `crown check` validates beyond loading the pack, so that every command that shows
/// diagnostics (`check`, `watch`, `serve`, `play --watch`) shows the same: the printed
/// faces (templates, icons, art, fonts), the rules documents (every placeholder and link
/// of `content/<pack>/rules.md` names something), the golden game files (pack,
/// scenario, players, agents) and each scenario's first turns ([`scenarios_start`]). Rules documents and game files read are added to `sources`.
pub fn beyond_load(project: &Project, pack: &Arc<Pack>, sources: &mut SourceMap) -> Vec<Diagnostic> {
    beyond_load_with(project, pack, sources, &mut Checks::default())
}

/// What a command that plays one table (`sim`, `profile`, `play`, `record`) checks
/// beyond loading: that table (`scenario`, `None`: the pack's default) set up and played
/// for its first turns, so a script that runs away in `setup` is met once, not once per
/// scenario. The printed faces, the rules document and the golden game files bear on
/// `print`, `reference` and `test`, not on the games: `check` and `watch` show them, and
/// a simulation does not pay for rendering every face first.
pub fn beyond_load_for(pack: &Arc<Pack>, scenario: Option<&str>) -> Vec<Diagnostic> {
    scenarios_start(pack, Some(scenario))
}

/// What the checks beyond loading found last time, for checking a pack again after an
/// edit (`crown watch`, `serve`, `play --watch`): the faces an edit cannot change are not
/// rendered again.
#[derive(Debug, Default)]
pub struct Checks {
    pub faces: crate::print::FaceChecks,
}

/// [`beyond_load`], keeping what it can in `checks` for the next time.
pub fn beyond_load_with(
    project: &Project,
    pack: &Arc<Pack>,
    sources: &mut SourceMap,
    checks: &mut Checks,
) -> Vec<Diagnostic> {
    let mut all = crate::print::check_faces_with(pack, &mut checks.faces);
    // A template mistake shows its template's line.
    crate::print::templates::add_template_sources(&project.root, sources, &all);
    let (rules, docs) = crate::print::reference::check_rules(pack);
    all.extend(rules);
    for f in docs {
        sources.insert(f);
    }
    let (games, files) = crate::golden::check_games(project, pack);
    all.extend(games);
    for f in files {
        sources.insert(f);
    }
    all.extend(scenarios_start(pack, None));
    all
}

/// Turns each scenario is played for by [`scenarios_start`].
const START_TURNS: u64 = 2;

/// An invariant broken (or failing to run) in a trial game of `check`, at the invariant.
fn invariant_fails(pack: &Pack, scenario: Option<&str>, n: usize, f: &crown_engine::game::ScriptFailure) -> Diagnostic {
    let who = scenario.map_or_else(|| format!("pack `{}`", pack.id()), |s| format!("scenario `{s}`"));
    let d = Diagnostic::error(
        "invariant-broken",
        format!("{}, in a game of {who} (seed 1, {n} random bot{})", f.message, if n == 1 { "" } else { "s" }),
    )
    .hint("the rules break their own invariant, or the invariant is wrong: `crown play` with these settings shows the game");
    match f.script.as_ref().and_then(|s| pack.sources.get(std::path::Path::new(s))) {
        Some(src) if f.line > 0 => d.at_line_col(src, f.line, 1),
        _ => match &f.script {
            Some(s) => d.in_file(s.clone()),
            None => d,
        },
    }
}

/// The tables `check` plays its trial games at: every scenario (or, for a pack without
/// scenarios, the pack itself), or only the table of `only` (`Some(None)`: the pack's
/// default scenario, or the pack itself when it has none); each at its smallest table,
/// seed 1, with a transcript (so every line of narration and every prompt is made, and
/// one that fails is found here: a run that keeps no transcript does not make them);
/// none without rules.
fn trial_tables<'p>(
    pack: &'p Pack,
    only: Option<Option<&str>>,
) -> Vec<(Option<&'p str>, usize, crown_engine::game::GameConfig)> {
    if pack.rules.is_none() {
        return Vec::new();
    }
    let mut ids: Vec<Option<&str>> = if pack.scenarios.is_empty() {
        vec![None]
    } else {
        pack.scenarios.iter().map(|s| Some(s.scenario.id.as_str())).collect()
    };
    if let Some(only) = only {
        let wanted = only.or_else(|| pack.default_scenario().map(|s| s.scenario.id.as_str()));
        ids.retain(|id| *id == wanted);
    }
    ids.into_iter()
        .map(|id| {
            let n = crate::seats::player_count(pack, id, None);
            let mut cfg = crown_engine::game::GameConfig::new(1, n);
            cfg.scenario = id.map(str::to_string);
            cfg.transcript = true;
            (id, n, cfg)
        })
        .collect()
}

/// Whether a game failed in the pack's bots' script.
fn in_bots_script(pack: &Pack, f: &crown_engine::game::ScriptFailure) -> bool {
    let bots = pack.bots_script().map(|s| s.path.to_string_lossy().replace('\\', "/"));
    f.line > 0 && bots.is_some() && f.script.as_deref().map(|s| s.replace('\\', "/")) == bots
}

/// A bot's hook failing in a trial game of `check`, at the hook's line.
fn bot_fails(
    pack: &Pack,
    scenario: Option<&str>,
    n: usize,
    bot: &str,
    f: &crown_engine::game::ScriptFailure,
) -> Diagnostic {
    let who = scenario.map_or_else(|| format!("pack `{}`", pack.id()), |s| format!("scenario `{s}`"));
    let d = Diagnostic::error(
        "bot-fails",
        format!("{}, in a game of {who} (seed 1, {n} {bot} bot{})", f.message, if n == 1 { "" } else { "s" }),
    )
    .hint("every game with this bot would fail here: `crown sim` seats it unless `--agents` says otherwise");
    match f.script.as_ref().and_then(|s| pack.sources.get(std::path::Path::new(s))) {
        Some(src) => d.at_line_col(src, f.line, f.column.max(1)),
        None => d,
    }
}

/// Every scenario (or, for a pack without scenarios, the pack itself) set up and played for
/// its first turns by random bots, then by the pack's own bot (`[sim] agents`), at its
/// smallest table, seed 1 (a bot hook that fails is an error at its line): a setting the rules
/// refuse (`sides = "oposite"`), a definition id misspelt in a setting, or a data check
/// thrown from `setup` fails every game, and is an error here, at the scenario, rather than
/// at the table. The error is placed at the setting whose text the failure quotes, else at
/// the scenario's id.
pub fn scenarios_start(pack: &Arc<Pack>, only: Option<Option<&str>>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (id, n, mut cfg) in trial_tables(pack, only) {
        cfg.max_turns = Some(START_TURNS);
        // An invariant that cannot run, or that the first turns break, is found here.
        cfg.invariants = true;
        // Random bots first (they reach what the rules offer), then the pack's own bot
        // (its hooks in bots.rhai run only for it).
        let mut bots = vec!["random".to_string()];
        let own = crate::seats::default_bot(pack);
        if own != "random" {
            bots.push(own);
        }
        let mut failure = None;
        for bot in &bots {
            let agents = crate::seats::bots(&vec![bot.clone(); n], 1);
            match crown_engine::game::Game::new(pack.clone(), cfg.clone(), agents) {
                Err(e) => failure = Some(e),
                Ok(game) => match game.run().1.status {
                    // The pack's own check: at its definition, not at the scenario.
                    crown_engine::game::Status::Failed(f) if f.message.starts_with("invariant `") => {
                        out.push(invariant_fails(pack, id, n, &f));
                    }
                    // A bot's own hook: at its line.
                    crown_engine::game::Status::Failed(f) if in_bots_script(pack, &f) => {
                        out.push(bot_fails(pack, id, n, bot, &f));
                    }
                    crown_engine::game::Status::Failed(f) => failure = Some(f.to_string()),
                    _ => continue,
                },
            }
            break;
        }
        let Some(failure) = failure else { continue };
        let who = id.map_or_else(|| format!("pack `{}`", pack.id()), |s| format!("scenario `{s}`"));
        let d = Diagnostic::error(
            "scenario-fails",
            format!(
                "{who} cannot be played: with {n} player{}, seed 1 and random bots, the game fails: {failure}",
                if n == 1 { "" } else { "s" }
            ),
        )
        .hint("every game of it would fail the same way: fix the setting or the rules it names");
        let entry = id.and_then(|s| pack.scenario(s));
        out.push(match entry.and_then(|e| pack.sources.get(&e.origin.file).map(|f| (e, f))) {
            Some((e, f)) => {
                // A setting whose value the failure quotes (`"oposite"`), else one it names.
                let quotes = |t: &str| ["\"", "`", "'"].iter().any(|q| failure.contains(&format!("{q}{t}{q}")));
                let strings = || {
                    e.scenario.options.iter().filter_map(|(k, v)| match v {
                        crown_engine::content::model::Scalar::Str(t) if !t.is_empty() => Some((k, t.as_str())),
                        _ => None,
                    })
                };
                let quoted = strings()
                    .find(|(_, t)| quotes(t))
                    .map(|(k, _)| k)
                    .or_else(|| e.scenario.options.keys().find(|k| failure.contains(k.as_str())));
                let span = quoted.map(|k| setting_span(&f.text, k)).filter(|r| !r.is_empty());
                d.at(f, span.unwrap_or_else(|| e.origin.id_span.clone()))
            }
            None => d,
        });
    }
    out
}

/// The words every file of the example pack `crown new pack` writes carries until the
/// designer drops them: `check` and `test` say which of their findings come from such files.
pub const EXAMPLE_MARK: &str = "an example `crown new` wrote";

/// How long `check` may spend playing whole trial games; past it, the games not yet played
/// are left out and `check` says how many.
pub const WHOLE_GAMES_BUDGET: std::time::Duration = std::time::Duration::from_secs(20);

/// What the whole trial games found, and how many were left out when the budget ran out.
pub struct WholeGames {
    pub diagnostics: Vec<Diagnostic>,
    pub played: usize,
    pub left_out: usize,
}

/// Whole games of every scenario (or of the pack), seed 1, at its smallest and its largest
/// table, with random bots and then with the pack's own bot (`[sim] agents`): a game that
/// fails past its first turns (at a round's end, in the scoring, in a bot hook that only a
/// late position reaches) is an error at the script line, and one that reaches the pack's
/// `max_turns` a finding at `max_turns` with the figure (every simulation of such a game
/// stops at the limit and counts as too long). Each finding is said once.
pub fn whole_games(pack: &Arc<Pack>) -> WholeGames {
    let started = std::time::Instant::now();
    let mut out = WholeGames { diagnostics: Vec::new(), played: 0, left_out: 0 };
    let mut bots = vec!["random".to_string()];
    let own = crate::seats::default_bot(pack);
    if own != "random" {
        bots.push(own);
    }
    let mut games = Vec::new();
    for (id, n, cfg) in trial_tables(pack, None) {
        let largest = largest_table(pack, id);
        for bot in &bots {
            games.push((id, n, cfg.clone(), bot.clone()));
            if largest != n {
                let mut big = cfg.clone();
                big.players = largest;
                games.push((id, largest, big, bot.clone()));
            }
        }
    }
    let (mut failed, mut too_long) = (false, false);
    for (k, (id, n, cfg, bot)) in games.iter().enumerate() {
        if started.elapsed() > WHOLE_GAMES_BUDGET {
            out.left_out = games.len() - k;
            break;
        }
        let agents = crate::seats::bots(&vec![bot.clone(); *n], 1);
        let Ok(game) = crown_engine::game::Game::new(pack.clone(), cfg.clone(), agents) else { continue };
        let (game, outcome) = game.run();
        out.played += 1;
        let who = id.map_or_else(|| format!("pack `{}`", pack.id()), |s| format!("scenario `{s}`"));
        match &outcome.status {
            crown_engine::game::Status::Failed(f) if !failed => {
                failed = true;
                if in_bots_script(pack, f) {
                    out.diagnostics.push(bot_fails(pack, *id, *n, bot, f));
                    continue;
                }
                // Later in the game than the first turns (a round's end, the scoring): every
                // game that gets that far fails the same way.
                let d = Diagnostic::error(
                    "game-fails",
                    format!("a game of {who} (seed 1, {n} {bot} bots) fails in turn {}: {}", outcome.turns, f.message),
                )
                .hint("the first turns play, but every game that gets this far fails here: `crown play` with these settings shows it");
                out.diagnostics.push(match f.script.as_ref().and_then(|s| pack.sources.get(std::path::Path::new(s))) {
                    Some(src) if f.line > 0 => d.at_line_col(src, f.line, f.column.max(1)),
                    _ => d,
                });
            }
            crown_engine::game::Status::TurnLimit if !too_long => {
                too_long = true;
                let limit = game.max_turns;
                let d = Diagnostic::warning(
                    "turn-limit",
                    format!("a game of {who} (seed 1, {n} {bot} bots) was still going after max_turns = {limit} turns"),
                )
                .hint("every simulation stops such games at the limit and counts them as too long: raise `max_turns` in pack.toml past the longest game (a turn is one call of the rules' turn())");
                let manifest = pack.sources.get(&std::path::Path::new("content").join(pack.id()).join("pack.toml"));
                out.diagnostics.push(match manifest {
                    Some(f) => {
                        let span = crown_engine::load::span_of_setting(&f.text, "max_turns");
                        if span.is_empty() {
                            d.in_file(f.path.clone())
                        } else {
                            d.at(f, span)
                        }
                    }
                    None => d,
                });
            }
            _ => {}
        }
    }
    out
}

/// The most players a scenario (or the pack) seats: its seats when it lists them, else the
/// top of its player range, else the pack's.
fn largest_table(pack: &Pack, scenario: Option<&str>) -> usize {
    let sc = scenario.and_then(|s| pack.scenario(s));
    if let Some(sc) = sc {
        if !sc.scenario.seat.is_empty() {
            return sc.scenario.seat.len();
        }
        if let Some(r) = sc.scenario.players {
            return r.max.max(1) as usize;
        }
    }
    pack.manifest.players.max.max(1) as usize
}

/// The line where `key = ...` is written in a scenario file (from the key to the line's
/// end), or nothing.
fn setting_span(text: &str, key: &str) -> std::ops::Range<usize> {
    let key_at = crown_engine::load::span_of_setting(text, key);
    if key_at.is_empty() {
        return key_at;
    }
    let line_end = text[key_at.start..].find('\n').map_or(text.len(), |n| key_at.start + n);
    key_at.start..key_at.start + text[key_at.start..line_end].trim_end().len()
}

/// A stable digest of everything a load of a pack produced: the manifest, every definition
/// (kind, all its fields, where it was defined, its script), the scenarios, the board, each
/// script's path, functions and source hash, and the hash of every file read. Two loads give
/// the same digest exactly when they hold the same content, whatever the machine (maps are
/// ordered, nothing depends on time or addresses); the watcher's incremental reloads are
/// compared with a clean load through it.
pub fn pack_digest(pack: &Pack) -> u64 {
    use std::fmt::Write as _;
    // Struct fields in declaration order, maps in key order.
    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap_or_else(|e| format!("<{e}>"))
    }
    let mut s = String::new();
    let _ = writeln!(s, "manifest {}", json(&pack.manifest));
    let _ = writeln!(s, "chain {:?}", pack.chain);
    for d in &pack.defs {
        let script = d.script.map(|i| (&pack.scripts[i].rel, pack.scripts[i].hash));
        let _ = writeln!(
            s,
            "def {} {} {} {:?} {:?} {:?} {:?} {}",
            d.def.id,
            d.kind.as_str(),
            d.origin.file.to_string_lossy().replace('\\', "/"),
            d.origin.span,
            d.origin.id_span,
            d.origin.pack,
            script,
            json(&d.def)
        );
    }
    let _ = writeln!(s, "index {:?}", pack.index);
    for e in &pack.scenarios {
        let _ = writeln!(
            s,
            "scenario {} {} {:?} {}",
            e.scenario.id,
            e.origin.file.to_string_lossy().replace('\\', "/"),
            e.origin.span,
            json(&e.scenario)
        );
    }
    if let Some((b, o)) = &pack.board {
        let _ = writeln!(s, "board {} {}", o.file.to_string_lossy().replace('\\', "/"), json(b));
    }
    for sc in &pack.scripts {
        let _ = writeln!(
            s,
            "script {} {} {} {:016x} {:?}",
            sc.path.to_string_lossy().replace('\\', "/"),
            sc.rel,
            sc.pack,
            sc.hash,
            sc.functions
        );
    }
    let _ = writeln!(s, "rules {:?} {:?}", pack.rules, pack.rule_parts);
    let _ = writeln!(s, "bots {:?}", pack.bots);
    for (f, h) in &pack.file_hashes {
        let _ = writeln!(s, "file {} {h:016x}", f.to_string_lossy().replace('\\', "/"));
    }
    crown_engine::content::hash_bytes(s.as_bytes())
}

/// `[digest HEX]`, as `crown watch --digest` and `crown check --digest` print it.
pub fn digest_tag(pack: &Pack) -> String {
    format!("[digest {:016x}]", pack_digest(pack))
}
