//! Campaigns kept in save files, as a service under `crown campaign` and `crown bench`:
//! reading and writing a save, playing one sitting (to the next `checkpoint()` of the
//! rules or to the end of the game), the agents of a save's seats, and the summary that
//! `crown campaign show` prints.

use std::path::Path;
use std::sync::Arc;

use crown_engine::bots;
use crown_engine::content::Pack;
use crown_engine::fsread;
use crown_engine::game::agent::Agent;
use crown_engine::game::record::transcript_text;
use crown_engine::game::save::{SaveFile, SaveStatus};
use crown_engine::game::{Game, Outcome, Status};

use crate::out;

/// Read and check a save file; the error names the file.
pub fn read_save(path: &Path) -> Result<SaveFile, String> {
    let text = fsread::read_checked(path, fsread::Kind::Save)
        .map_err(|e| format!("{}: cannot read the save: {}", path.display(), e.reason()))?;
    let text = String::from_utf8(text).map_err(|_| format!("{}: not a save file (not UTF-8 text)", path.display()))?;
    SaveFile::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Write a save atomically: the old file stays whole until the new one replaces it.
pub fn write_save(path: &Path, save: &SaveFile) -> Result<(), String> {
    let text = save.to_text().map_err(|e| format!("{}: {e}", path.display()))?;
    out::write_atomic(path, text.as_bytes()).map_err(|e| {
        // The round was played: never lose it.
        match out::keep_unsaved(path, text.as_bytes()) {
            Some(kept) => format!(
                "cannot write {}: {e}; the new save is kept in {} (move it over the old save to go on)",
                path.display(),
                kept.display()
            ),
            None => format!("cannot write {}: {e}; nowhere else took the new save either", path.display()),
        }
    })
}

/// One sitting played on a save.
pub struct Sitting {
    pub game: Game,
    pub outcome: Outcome,
    /// The save to write (`None` when the sitting failed: the old save stays).
    pub save: Option<SaveFile>,
    pub transcript: String,
}

/// Play one sitting of `save` with `pack` (the save's pack or one extending it):
/// to the next checkpoint when `round`, else to the end of the game.
pub fn play_sitting(
    save: &SaveFile,
    pack: Arc<Pack>,
    scenario: Option<String>,
    agents: Vec<Box<dyn Agent>>,
    round: bool,
    transcript: bool,
) -> Result<Sitting, String> {
    play_sitting_told(save, pack, scenario, agents, round, transcript, None)
}

/// [`play_sitting`], with a listener told every line as it is written (a person at the
/// terminal).
pub fn play_sitting_told(
    save: &SaveFile,
    pack: Arc<Pack>,
    scenario: Option<String>,
    agents: Vec<Box<dyn Agent>>,
    round: bool,
    transcript: bool,
    listener: Option<crown_engine::game::narrate::Listener>,
) -> Result<Sitting, String> {
    let mut game = save.resume(pack, scenario, agents, round)?;
    if !transcript {
        game.transcript = None;
    }
    game.listener = listener;
    let (game, outcome) = game.run();
    let text = if transcript { transcript_text(&game, &outcome) } else { String::new() };
    let status = match &outcome.status {
        Status::Paused => Some(SaveStatus::Paused),
        Status::Finished => Some(SaveStatus::Finished),
        Status::TurnLimit | Status::Failed(_) => None,
    };
    let save = status.map(|st| SaveFile::capture(&game, st, Some(save)));
    Ok(Sitting { game, outcome, save, transcript: text })
}

/// Agents for the seats of a save: `human` is the person at this terminal, who has been
/// told the lines kept in `seen`.
pub fn agents_for(save: &SaveFile, kinds: &[String], seen: &crate::table::Seen) -> Result<Vec<Box<dyn Agent>>, String> {
    let mut out: Vec<Box<dyn Agent>> = Vec::new();
    for seat in 0..save.player.len() {
        let k = kinds.get(seat).or(kinds.last()).map_or("human", String::as_str);
        if k == "human" {
            out.push(Box::new(crate::terminal::TablePlayer::with_log(
                std::io::BufReader::new(std::io::stdin()),
                std::io::stdout(),
                seen.clone(),
            )));
        } else {
            out.push(
                bots::bot(k, save.seed, seat)
                    .ok_or_else(|| format!("unknown agent `{k}` (agents: human, {})", bots::AGENT_KINDS.join(", ")))?,
            );
        }
    }
    Ok(out)
}

fn counter(save: &SaveFile, seat: usize, k: &str) -> Option<i64> {
    save.player.get(seat).and_then(|p| p.counters.get(k).copied())
}

/// The score path: the `score_1`, `score_2`... counters of seat 0.
fn score_path(save: &SaveFile) -> Vec<i64> {
    (1..).map_while(|i| counter(save, 0, &format!("score_{i}"))).collect()
}

/// One line about where a campaign stands (from the counters a campaign's rules keep).
pub fn headline(save: &SaveFile) -> Option<String> {
    let p = save.player.first()?;
    let mut parts = Vec::new();
    if let Some(n) = p.counters.get("plays") {
        parts.push(format!("{n} play{} finished", crown_engine::diag::plural(*n)));
    }
    if let Some(r) = p.counters.get("round").filter(|r| **r > 0) {
        parts.push(format!("round {r} done"));
    }
    if let Some(f) = p.counters.get("fame") {
        parts.push(format!("fame {f}"));
    }
    let path = score_path(save);
    if !path.is_empty() {
        parts.push(format!("score path {}", path.iter().map(i64::to_string).collect::<Vec<_>>().join(" > ")));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A readable summary of a save: the campaign's standing, every seat's counters, and
/// every card by zone with its stage, stickers and marks.
pub fn summary(save: &SaveFile, pack: Option<&Pack>) -> String {
    let mut s = String::new();
    let name = pack.map_or(save.pack.clone(), |p| format!("{} ({})", p.manifest.name, save.pack));
    s.push_str(&format!(
        "pack       {name} {}\nscenario   {}\nseed       {}\nstatus     {} after {} sitting(s), {} game(s) finished, turn {}\n",
        save.pack_version,
        save.scenario.as_deref().unwrap_or("-"),
        save.seed,
        save.status.as_str(),
        save.sittings,
        save.games,
        save.turn
    ));
    if save.status == SaveStatus::New {
        s.push_str("not started: the first `crown campaign play` sets the game up\n");
    }
    // Where the turn stands (the engine's turns), with a campaign's own round marks.
    let t = &save.turns;
    let first_counter = |k: &str| save.player.first().and_then(|p| p.counters.get(k)).copied().unwrap_or(0);
    if t.round > 0 {
        let open = if first_counter("round_open") > 0 { " (open)" } else { "" };
        let fin = if first_counter("final") > 0 { ", the final round" } else { "" };
        s.push_str(&format!("round      {}{open}{fin}\n", t.round));
    }
    if let Some(ph) = &t.phase {
        s.push_str(&format!("phase      {ph}\n"));
    }
    if let Some(p) = t.current.and_then(|p| save.player.get(p)) {
        s.push_str(&format!("to play    {}\n", p.name));
    }
    for (i, p) in save.player.iter().enumerate() {
        let c = |k: &str| p.counters.get(k).copied();
        s.push_str(&format!("\nseat {} {}: score {}\n", i + 1, p.name, p.score));
        if i == 0 {
            if let Some(n) = c("plays") {
                s.push_str(&format!("  plays finished   {n}\n"));
            }
            let path = score_path(save);
            s.push_str(&format!(
                "  score path       {}\n",
                if path.is_empty() {
                    "(empty)".to_string()
                } else {
                    path.iter().enumerate().map(|(k, v)| format!("{}: {v}", k + 1)).collect::<Vec<_>>().join(", ")
                }
            ));
            if let Some(f) = c("fame") {
                s.push_str(&format!("  fame             {f}\n"));
            }
            if let Some(f) = c("purged_fame") {
                s.push_str(&format!("  purged fame      {f}\n"));
            }
            let stickers: Vec<String> = p
                .counters
                .iter()
                .filter_map(|(k, v)| k.strip_prefix("stickers_").map(|kind| format!("{kind} {v}")))
                .collect();
            if !stickers.is_empty() {
                s.push_str(&format!("  stickers left    {}\n", stickers.join(", ")));
            }
        }
        let shown = |k: &str| {
            i == 0
                && (["plays", "round_open", "final", "fame", "purged_fame"].contains(&k)
                    || k.starts_with("stickers_")
                    || (k.starts_with("score_") && k[6..].parse::<u32>().is_ok()))
        };
        let rest: Vec<String> = p.counters.iter().filter(|(k, _)| !shown(k)).map(|(k, v)| format!("{k} {v}")).collect();
        if !rest.is_empty() {
            s.push_str(&format!("  counters         {}\n", rest.join(", ")));
        }
    }
    if save.card.is_empty() {
        return s;
    }
    let def_of = |id: &str| pack.and_then(|p| p.get(id)).map(|d| &d.def);
    let label = |c: &crown_engine::game::save::SavedCard| {
        let d = def_of(&c.def);
        let serial = d.and_then(|d| d.serial).map_or(String::new(), |n| format!("#{n} "));
        let stage_name = d
            .and_then(|d| d.stages.iter().find(|st| st.position.as_str() == c.stage).map(|st| st.name.clone()))
            .or_else(|| d.map(|d| d.name.clone()))
            .unwrap_or_else(|| c.def.clone());
        let mut t = format!("{serial}{stage_name} [{} {}]", c.def, c.stage);
        if !c.stickers.is_empty() {
            t.push_str(&format!(" stickers {}", c.stickers.join(" ")));
        }
        if !c.marks.is_empty() {
            let m: Vec<String> =
                c.marks.iter().map(|(k, v)| if *v == 1 { k.clone() } else { format!("{k}={v}") }).collect();
            t.push_str(&format!(" marks {}", m.join(" ")));
        }
        t
    };
    let in_box = save.card.iter().filter(|c| c.zone.as_deref() == Some("box")).count();
    s.push_str(&format!(
        "\ncards      {} in all, {} discovered (out of the box), {} destroyed\n",
        save.card.len(),
        save.card.len() - in_box,
        save.card.iter().filter(|c| c.zone.as_deref() == Some("destroyed")).count()
    ));
    // Cards by zone and by the card they are under, once (a save may list many).
    let mut by_zone: std::collections::BTreeMap<&str, Vec<&crown_engine::game::save::SavedCard>> =
        std::collections::BTreeMap::new();
    let mut under: std::collections::BTreeMap<_, Vec<&crown_engine::game::save::SavedCard>> =
        std::collections::BTreeMap::new();
    for c in &save.card {
        if let Some(z) = c.zone.as_deref() {
            by_zone.entry(z).or_default().push(c);
        }
        if let Some(h) = c.host {
            under.entry(h).or_default().push(c);
        }
    }
    for z in &save.zone {
        let Some(mut cards) = by_zone.remove(z.key.as_str()) else { continue };
        cards.sort_by_key(|c| c.pos);
        if z.key == "box" {
            // The box is read in serial order; only what is there matters.
            let names: Vec<String> = cards
                .iter()
                .map(|c| {
                    let serial = def_of(&c.def).and_then(|d| d.serial).map_or(String::new(), |n| format!("#{n} "));
                    format!("{serial}{}", c.def)
                })
                .collect();
            s.push_str(&format!("\nbox ({}, not discovered): {}\n", cards.len(), names.join(", ")));
            continue;
        }
        let order = if z.key == "deck" { ", top first" } else { "" };
        s.push_str(&format!("\n{} ({}{order}):\n", z.key, cards.len()));
        if z.key == "deck" {
            cards.reverse();
        }
        for c in cards {
            s.push_str(&format!("  {}\n", label(c)));
            for u in under.get(&c.n).into_iter().flatten() {
                s.push_str(&format!("    under it: {}\n", label(u)));
            }
        }
    }
    let nowhere: Vec<String> =
        save.card.iter().filter(|c| c.zone.is_none() && c.host.is_none()).map(|c| c.def.clone()).collect();
    if !nowhere.is_empty() {
        s.push_str(&format!("\nout of the game: {}\n", nowhere.join(", ")));
    }
    s
}

/// How fast whole campaigns play: `n` base games (seeds 0..n) of `pack`'s default
/// scenario by the greedy bot, each played round by round through a save written to
/// text and read back between rounds (`by_rounds`), or in one go. Returns the plays per
/// second and the mean final score. For `crown bench`.
pub fn bench_plays(pack: &Arc<Pack>, n: u64, by_rounds: bool) -> Result<(f64, f64), String> {
    let t0 = std::time::Instant::now();
    let mut total = 0i64;
    for seed in 0..n {
        let (save, _) = play_through(pack, seed, "greedy", by_rounds)?;
        total += save.player.first().map_or(0, |p| p.score);
    }
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    Ok((n as f64 / secs, total as f64 / n.max(1) as f64))
}

/// A whole game of a new campaign by a bot, round by round through saves (each save
/// written to text and read back, as between sittings) or in one sitting. Returns the
/// final save and the number of sittings.
pub fn play_through(pack: &Arc<Pack>, seed: u64, bot: &str, by_rounds: bool) -> Result<(SaveFile, u64), String> {
    let players = crate::seats::player_count(pack, None, None);
    let names = (1..=players).map(|i| format!("P{i}")).collect();
    let mut save = SaveFile::new_game(pack, None, seed, names)?;
    if let Some(sc) = pack.default_scenario() {
        save.scenario = Some(sc.scenario.id.clone());
    }
    let mut sittings = 0;
    loop {
        let agents = (0..players).map(|i| bots::bot(bot, seed, i).ok_or("unknown bot")).collect::<Result<_, _>>()?;
        let sit = play_sitting(&save, pack.clone(), None, agents, by_rounds, false)?;
        sittings += 1;
        let next = sit.save.ok_or_else(|| format!("seed {seed}: the game stopped: {:?}", sit.outcome.status))?;
        save = if by_rounds { SaveFile::parse(&next.to_text()?)? } else { next };
        if save.status == SaveStatus::Finished {
            return Ok((save, sittings));
        }
        if sittings > 10_000 {
            return Err("no end after 10000 sittings".into());
        }
    }
}
