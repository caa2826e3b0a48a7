//! Saved games: the whole state of a game stopped between two turns, as a TOML file, and
//! how to take the game up again from it. This is what a campaign lives in between
//! sittings (`crown campaign`): card instances by definition id (zone, position, stage,
//! stickers, marks), every seat's counters, the script globals, the board's pieces and
//! supplies, the game's random generator and each bot's own random stream.
//!
//! A save is written with a trailing `[end]` section holding the card count and a
//! checksum of everything above it, so a file cut short or damaged is refused instead of
//! being taken for a smaller realm. (A save edited by hand is accepted once its `checksum`
//! line is removed.)
//!
//! ```
//! use crown_engine::game::save::SaveFile;
//! let err = SaveFile::parse("format = 1\npack = \"demo\"\n").unwrap_err();
//! assert!(err.contains("cut short"), "{err}");
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use rhai::{Array, Dynamic, Map};
use serde::{Deserialize, Serialize};

use super::agent::Agent;
use super::rng::GameRng;
use super::state::{Card, Piece, PlayerState, Turns, Visibility, Zone, NO_ZONE};
use super::{Game, GameConfig};
use crate::content::model::StagePosition;
use crate::content::Pack;

/// The save format this engine writes and reads.
pub const FORMAT: i64 = 1;

/// Where a saved game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SaveStatus {
    /// Made by `campaign new`: nothing played yet; the first sitting starts the game.
    New,
    /// Stopped at a checkpoint (between two rounds of a campaign).
    Paused,
    /// The last game played on it ended; the next sitting starts another game on the same
    /// state (the rules' `setup()` carries on from it).
    Finished,
}

impl SaveStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SaveStatus::New => "new",
            SaveStatus::Paused => "paused",
            SaveStatus::Finished => "finished",
        }
    }
}

/// A saved game, as written to disk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SaveFile {
    /// Always [`FORMAT`].
    pub format: i64,
    /// The pack the state belongs to (it may be moved on to a pack extending it).
    pub pack: String,
    /// That pack's version when the save was written.
    pub pack_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    pub seed: u64,
    pub status: SaveStatus,
    /// Sittings that wrote this save.
    #[serde(default)]
    pub sittings: u64,
    /// Games finished on this state.
    #[serde(default)]
    pub games: u64,
    /// `turn()` calls so far (the transcript's turn numbers go on from here).
    #[serde(default)]
    pub turn: u64,
    /// Choices made so far.
    #[serde(default)]
    pub choices: u64,
    /// The game's random generator ([`GameRng::state`]).
    pub rng: String,
    /// Script globals (`set`) that TOML can hold: integers, booleans, strings, and arrays
    /// and maps of them; not those named `cache:...` ([`CACHE_PREFIX`]).
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub globals: toml::Table,
    /// Whose turn it was, the round, the phase and who had passed (`current()`...).
    #[serde(default, skip_serializing_if = "SavedTurns::is_empty")]
    pub turns: SavedTurns,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub supplies: BTreeMap<String, i64>,
    /// The named numbers on the board's spaces, by space id (those a script set, and
    /// board.toml's own).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub space_values: BTreeMap<String, BTreeMap<String, i64>>,
    #[serde(default)]
    pub player: Vec<SavedPlayer>,
    /// Each bot's own random stream, by seat and kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent: Vec<SavedAgent>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zone: Vec<SavedZone>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub card: Vec<SavedCard>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub piece: Vec<SavedPiece>,
    /// Written last: proves the file is whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<SaveEnd>,
    /// Where each `[[card]]` entry names its definition in the file this save was read from.
    #[serde(skip)]
    pub card_lines: CardLines,
}

/// The 1-based line of each card entry's `def = ...` in a parsed save (empty for a save
/// not read from a file). Not part of the save's value: it never makes two saves differ.
#[derive(Debug, Clone, Default)]
pub struct CardLines(pub Vec<usize>);

impl PartialEq for CardLines {
    fn eq(&self, _: &CardLines) -> bool {
        true
    }
}

impl CardLines {
    fn of(text: &str) -> CardLines {
        let mut lines: Vec<usize> = Vec::new();
        let mut in_card = false;
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if l.starts_with('[') {
                in_card = l == "[[card]]";
                if in_card {
                    lines.push(i + 1);
                }
            } else if in_card && l.strip_prefix("def").is_some_and(|r| r.trim_start().starts_with('=')) {
                if let Some(last) = lines.last_mut() {
                    *last = i + 1;
                }
            }
        }
        CardLines(lines)
    }
}

/// The engine's turn plumbing ([`crate::game::state::Turns`]), seats by number.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SavedTurns {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<usize>,
    #[serde(default)]
    pub first: usize,
    #[serde(default)]
    pub round: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withdrawn: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_passer: Option<usize>,
}

impl SavedTurns {
    fn is_empty(&self) -> bool {
        *self == SavedTurns::default()
    }

    fn of(t: &Turns) -> SavedTurns {
        let seats = |bits: u64| (0..super::MAX_SEATS).filter(|p| bits & (1 << p) != 0).collect();
        SavedTurns {
            current: t.current,
            first: t.first,
            round: t.round,
            phase: t.phase.clone(),
            passed: seats(t.passed),
            withdrawn: seats(t.withdrawn),
            last_passer: t.last_passer,
        }
    }

    /// The turns again, every seat checked against the table's `players`.
    fn restore(&self, players: usize, phases: &[String]) -> Result<Turns, String> {
        if self.round < 0 {
            return Err(format!("[turns] round = {}: rounds count from 0", self.round));
        }
        if let Some(ph) = self.phase.as_ref().filter(|ph| !phases.contains(ph)) {
            return Err(format!(
                "[turns] phase `{ph}` is not one of pack.toml's `phases` ({})",
                if phases.is_empty() { "it lists none".to_string() } else { phases.join(", ") }
            ));
        }
        let seat = |what: &str, p: usize| {
            if p < players {
                Ok(p)
            } else {
                Err(format!("[turns] {what} names seat {p}, but the game has {players} seats (0 to {})", players - 1))
            }
        };
        let bits = |what: &str, list: &[usize]| {
            list.iter().try_fold(0u64, |b, &p| Ok::<u64, String>(b | (1 << seat(what, p)?)))
        };
        Ok(Turns {
            current: self.current.map(|p| seat("current", p)).transpose()?,
            first: seat("first", self.first)?,
            round: self.round,
            phase: self.phase.clone(),
            passed: bits("passed", &self.passed)?,
            withdrawn: bits("withdrawn", &self.withdrawn)?,
            last_passer: self.last_passer.map(|p| seat("last_passer", p)).transpose()?,
            owner: None,
            round_turn: 0,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SavedPlayer {
    pub name: String,
    /// Definition id of the seat's noble or leader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character: Option<String>,
    #[serde(default)]
    pub score: i64,
    #[serde(default, skip_serializing_if = "is_false")]
    pub out: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    #[serde(default)]
    pub counters: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SavedAgent {
    pub seat: usize,
    pub kind: String,
    pub rng: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SavedZone {
    /// `name`, or `name@SEAT` for a seat's zone (seats from 0).
    pub key: String,
    /// `public`, `owner` or `hidden`.
    pub visibility: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub active: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SavedCard {
    /// The instance number (cards are listed in this order, from 0).
    pub n: u32,
    /// Definition id.
    pub def: String,
    /// Zone key; absent for a card attached under another, or out of the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
    /// The card it lies under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<u32>,
    /// Position in its zone (0 = bottom) or under its host (0 = first attached).
    #[serde(default)]
    pub pos: usize,
    pub stage: String,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub face_up: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stickers: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub marks: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SavedPiece {
    pub kind: String,
    #[serde(default = "no_owner")]
    pub owner: i64,
    /// Space id; absent once returned to its supply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SaveEnd {
    pub cards: usize,
    /// FNV-1a (64 bits, hexadecimal) of every byte before the `[end]` line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn yes() -> bool {
    true
}
fn no_owner() -> i64 {
    -1
}

fn fnv1a(bytes: &[u8]) -> String {
    format!("{:016x}", crate::content::hash_bytes(bytes))
}

/// Globals whose name starts with this are caches the rules can rebuild: not saved.
pub const CACHE_PREFIX: &str = "cache:";

/// Marker for a script's unit value `()` inside an array or map (TOML has no null).
const UNIT_KEY: &str = "()";

impl SaveFile {
    /// A save for a game not started yet: the first sitting starts it from `setup()`.
    pub fn new_game(
        pack: &Pack,
        scenario: Option<String>,
        seed: u64,
        players: Vec<String>,
    ) -> Result<SaveFile, String> {
        if seed > i64::MAX as u64 {
            return Err(format!("seed {seed} is too large for a save (at most {})", i64::MAX));
        }
        Ok(SaveFile {
            format: FORMAT,
            pack: pack.id().to_string(),
            pack_version: pack.manifest.version.clone(),
            scenario,
            seed,
            status: SaveStatus::New,
            sittings: 0,
            games: 0,
            turn: 0,
            choices: 0,
            rng: GameRng::new(seed).state(),
            globals: toml::Table::new(),
            turns: SavedTurns::default(),
            supplies: BTreeMap::new(),
            space_values: BTreeMap::new(),
            player: players
                .into_iter()
                .map(|name| SavedPlayer {
                    name,
                    character: None,
                    score: 0,
                    out: false,
                    hidden: Vec::new(),
                    counters: BTreeMap::new(),
                })
                .collect(),
            agent: Vec::new(),
            zone: Vec::new(),
            card: Vec::new(),
            piece: Vec::new(),
            end: None,
            card_lines: CardLines::default(),
        })
    }

    /// Capture a game stopped between turns. `previous` is the save it was started from:
    /// bot streams of seats and kinds not played this time are kept from it.
    pub fn capture(game: &Game, status: SaveStatus, previous: Option<&SaveFile>) -> SaveFile {
        let s = &game.state;
        let pack = &game.pack;
        let zone_key = |z: &Zone| match z.owner {
            Some(p) => format!("{}@{p}", z.name),
            None => z.name.clone(),
        };
        let zones: Vec<SavedZone> = s
            .zones
            .iter()
            .map(|z| SavedZone {
                key: zone_key(z),
                visibility: match z.visibility {
                    Visibility::Public => "public",
                    Visibility::Owner => "owner",
                    Visibility::Hidden => "hidden",
                }
                .to_string(),
                active: z.active,
            })
            .collect();
        let cards: Vec<SavedCard> = s
            .cards
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let i = i as u32;
                let (zone, pos) = if let Some(h) = c.host {
                    (None, s.cards[h as usize].attached.iter().position(|&x| x == i).unwrap_or(0))
                } else if c.zone != NO_ZONE {
                    let z = &s.zones[c.zone as usize];
                    (Some(zone_key(z)), z.cards.iter().position(|&x| x == i).unwrap_or(0))
                } else {
                    (None, 0)
                };
                SavedCard {
                    n: i,
                    def: pack.defs[c.def as usize].def.id.clone(),
                    zone,
                    host: c.host,
                    pos,
                    stage: c.stage.as_str().to_string(),
                    face_up: c.face_up,
                    owner: c.owner,
                    stickers: c.stickers.clone(),
                    marks: c.marks.clone(),
                }
            })
            .collect();
        let mut globals = toml::Table::new();
        for (k, v) in &s.globals {
            if v.is_unit() || k.starts_with(CACHE_PREFIX) {
                continue;
            }
            if let Some(t) = to_toml(v) {
                globals.insert(k.clone(), t);
            }
        }
        let mut agents: BTreeMap<(usize, String), String> = previous
            .map(|p| p.agent.iter().map(|a| ((a.seat, a.kind.clone()), a.rng.clone())).collect())
            .unwrap_or_default();
        for (seat, a) in game.agents.iter().enumerate() {
            if let Some(a) = a {
                if let Some(r) = a.rng_state() {
                    agents.insert((seat, a.kind()), r);
                }
            }
        }
        SaveFile {
            format: FORMAT,
            pack: pack.id().to_string(),
            pack_version: pack.manifest.version.clone(),
            scenario: game.scenario.clone(),
            seed: game.seed,
            status,
            sittings: previous.map_or(0, |p| p.sittings) + 1,
            games: previous.map_or(0, |p| p.games) + u64::from(status == SaveStatus::Finished),
            turn: s.turn,
            choices: s.choices,
            rng: s.rng.state(),
            globals,
            turns: SavedTurns::of(&s.turns),
            supplies: s.supplies.clone(),
            space_values: s
                .spaces
                .iter()
                .filter(|sp| !sp.values.is_empty())
                .map(|sp| (sp.id.clone(), sp.values.clone()))
                .collect(),
            player: s
                .players
                .iter()
                .map(|p| SavedPlayer {
                    name: p.name.clone(),
                    character: p.character.map(|d| pack.defs[d as usize].def.id.clone()),
                    score: p.score,
                    out: p.out,
                    hidden: p.hidden.clone(),
                    counters: (&p.counters).into(),
                })
                .collect(),
            agent: agents.into_iter().map(|((seat, kind), rng)| SavedAgent { seat, kind, rng }).collect(),
            zone: zones,
            card: cards,
            piece: s
                .pieces
                .iter()
                .map(|p| SavedPiece {
                    kind: p.kind.clone(),
                    owner: p.owner,
                    space: p.space.map(|sp| s.spaces[sp as usize].id.clone()),
                    attrs: p.attrs.clone(),
                })
                .collect(),
            end: None,
            card_lines: CardLines::default(),
        }
    }

    /// The file's text, ending with the `[end]` section.
    pub fn to_text(&self) -> Result<String, String> {
        let mut body = self.clone();
        body.end = None;
        let mut text = String::from(
            "# A saved game (`crown campaign show FILE` reads it). The [end] section proves the file is whole;\n\
             # delete its checksum line after editing the file by hand.\n",
        );
        text.push_str(&toml::to_string(&body).map_err(|e| format!("cannot write the save: {e}"))?);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let sum = fnv1a(text.as_bytes());
        text.push_str(&format!("\n[end]\ncards = {}\nchecksum = \"{sum}\"\n", self.card.len()));
        Ok(text)
    }

    /// Read a save's text: the format version, wholeness (`[end]`, card count, checksum)
    /// and the shape of every entry are checked. Errors say what is wrong, not where the
    /// file is (the caller names the file).
    pub fn parse(text: &str) -> Result<SaveFile, String> {
        // Look at the format before anything else, so a save from a newer Crown says so.
        let format = text.lines().find_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("format")?.trim_start().strip_prefix('=')?;
            Some(rest.trim().to_string())
        });
        match format.as_deref() {
            None => return Err("not a save file: no `format = 1` line".into()),
            Some("1") => {}
            Some(other) => {
                return Err(format!(
                    "save format {other} is not supported: this version of Crown reads format {FORMAT}"
                ))
            }
        }
        let end_at = text.rfind("\n[end]\n").or_else(|| text.rfind("\n[end]\r\n"));
        let Some(end_at) = end_at else {
            return Err("the file is cut short: its closing [end] section is missing".into());
        };
        let mut save: SaveFile = toml::from_str(text).map_err(|e| {
            let msg = e.to_string();
            format!("the file is damaged: {}", msg.trim().replace('\n', " "))
        })?;
        let Some(end) = &save.end else {
            return Err("the file is cut short: its closing [end] section is missing".into());
        };
        if end.cards != save.card.len() {
            return Err(format!(
                "the file is cut short or damaged: [end] counts {} cards but {} are listed",
                end.cards,
                save.card.len()
            ));
        }
        if let Some(sum) = &end.checksum {
            let now = fnv1a(&text.as_bytes()[..end_at]);
            if *sum != now {
                return Err(format!(
                    "the file was damaged or edited after it was written (checksum {sum} in [end], {now} computed); \
                     if the edit was on purpose, delete the checksum line"
                ));
            }
        }
        for (i, c) in save.card.iter().enumerate() {
            if c.n as usize != i {
                return Err(format!("card entries are out of order: entry {} is numbered {}", i + 1, c.n));
            }
        }
        GameRng::from_state(&save.rng)?;
        save.card_lines = CardLines::of(text);
        Ok(save)
    }

    /// Whether `pack` can take this save up: it is the save's pack or extends it, and it
    /// still defines every card, character and stage the save names.
    pub fn check_pack(&self, pack: &Pack) -> Result<(), String> {
        if !pack.chain.contains(&self.pack) {
            return Err(format!(
                "this save belongs to pack `{}`; pack `{}` neither is it nor extends it",
                self.pack,
                pack.id()
            ));
        }
        let mut missing = Vec::new();
        for c in &self.card {
            match pack.index.get(&c.def) {
                None => missing.push(match self.card_lines.0.get(c.n as usize) {
                    Some(line) => format!("card #{} `{}` (line {line})", c.n, c.def),
                    None => format!("card #{} `{}`", c.n, c.def),
                }),
                Some(&d) => {
                    let def = &pack.defs[d].def;
                    let Some(stage) = StagePosition::parse(&c.stage) else {
                        return Err(format!("card #{} `{}`: unknown stage `{}`", c.n, c.def, c.stage));
                    };
                    let known = if def.stages.is_empty() {
                        stage == StagePosition::FrontTop
                    } else {
                        def.stages.iter().any(|s| s.position == stage)
                    };
                    if !known {
                        return Err(format!(
                            "card #{} `{}` is saved at stage {}, which the card no longer has",
                            c.n, c.def, c.stage
                        ));
                    }
                }
            }
        }
        for p in &self.player {
            if let Some(ch) = &p.character {
                if !pack.index.contains_key(ch) {
                    missing.push(format!("character `{ch}` of {}", p.name));
                }
            }
        }
        if !missing.is_empty() {
            let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
            missing.truncate(5);
            return Err(format!(
                "pack `{}` {} no longer defines {}{more}",
                pack.id(),
                pack.manifest.version,
                missing.join(", ")
            ));
        }
        Ok(())
    }

    /// Start the next sitting: a game of `pack` (the save's pack or one extending it) on
    /// the saved state, under `scenario` (default: the save's). Each agent whose seat and
    /// kind have a saved random stream continues it. The rules' `setup()` runs first, as
    /// always, and must carry on from an existing state.
    pub fn resume(
        &self,
        pack: Arc<Pack>,
        scenario: Option<String>,
        mut agents: Vec<Box<dyn Agent>>,
        pause_at_checkpoint: bool,
    ) -> Result<Game, String> {
        self.check_pack(&pack)?;
        for (seat, a) in agents.iter_mut().enumerate() {
            let kind = a.kind();
            if let Some(s) = self.agent.iter().find(|s| s.seat == seat && s.kind == kind) {
                a.set_rng_state(&s.rng).map_err(|e| format!("seat {seat} ({kind}): {e}"))?;
            }
        }
        let mut cfg = GameConfig::new(self.seed, self.player.len());
        cfg.scenario = scenario.or_else(|| self.scenario.clone());
        cfg.names = self.player.iter().map(|p| p.name.clone()).collect();
        cfg.pause_at_checkpoint = pause_at_checkpoint;
        let mut game = Game::new(pack, cfg, agents)?;
        if self.status != SaveStatus::New {
            self.restore(&mut game)?;
        }
        // The turn limit counts from where this sitting starts.
        game.max_turns = game.max_turns.saturating_add(self.turn);
        Ok(game)
    }

    /// Put the saved state into a freshly made game of a compatible pack.
    fn restore(&self, game: &mut Game) -> Result<(), String> {
        // A resumed game cannot be played again from its seed alone.
        game.started = None;
        let pack = game.pack.clone();
        let s = &mut game.state;
        s.rng = GameRng::from_state(&self.rng)?;
        s.turn = self.turn;
        s.choices = self.choices;
        if s.players.len() != self.player.len() {
            return Err(format!("the save has {} seats, the game {}", self.player.len(), s.players.len()));
        }
        for (p, sp) in s.players.iter_mut().zip(&self.player) {
            *p = PlayerState {
                name: sp.name.clone(),
                character: match &sp.character {
                    Some(id) => Some(*pack.index.get(id).ok_or_else(|| format!("unknown character `{id}`"))? as u32),
                    None => None,
                },
                counters: (&sp.counters).into(),
                hidden: sp.hidden.clone(),
                out: sp.out,
                score: sp.score,
            };
        }
        // Zones, in their saved order (scripts hold zone numbers).
        s.zones.clear();
        s.zone_ids.clear();
        let mut key_index: BTreeMap<&str, u32> = BTreeMap::new();
        for (i, z) in self.zone.iter().enumerate() {
            let (name, owner) = match z.key.rsplit_once('@') {
                Some((n, seat)) if !seat.is_empty() && seat.bytes().all(|b| b.is_ascii_digit()) => {
                    let seat: u8 = seat.parse().map_err(|_| format!("zone `{}`: bad seat", z.key))?;
                    if seat as usize >= self.player.len() {
                        return Err(format!("zone `{}` belongs to seat {seat}, which the save does not have", z.key));
                    }
                    (n.to_string(), Some(seat))
                }
                _ => (z.key.clone(), None),
            };
            let visibility = match z.visibility.as_str() {
                "public" => Visibility::Public,
                "owner" => Visibility::Owner,
                "hidden" => Visibility::Hidden,
                v => return Err(format!("zone `{}`: unknown visibility `{v}`", z.key)),
            };
            if key_index.insert(z.key.as_str(), i as u32).is_some() {
                return Err(format!("zone `{}` is listed twice", z.key));
            }
            s.zone_ids.entry(owner.map_or(-1, i64::from)).or_default().insert(name.clone(), i as u32);
            s.zones.push(Zone { name, owner, cards: Vec::new(), active: z.active, visibility });
        }
        // Cards, by instance number, then placed in zones and under hosts by position.
        s.cards.clear();
        let mut in_zone: BTreeMap<u32, Vec<(usize, u32)>> = BTreeMap::new();
        let mut under: BTreeMap<u32, Vec<(usize, u32)>> = BTreeMap::new();
        let n = self.card.len() as u32;
        for c in &self.card {
            let def =
                *pack.index.get(&c.def).ok_or_else(|| format!("card #{}: unknown definition `{}`", c.n, c.def))?;
            let stage =
                StagePosition::parse(&c.stage).ok_or_else(|| format!("card #{}: unknown stage `{}`", c.n, c.stage))?;
            let mut zone = NO_ZONE;
            match (&c.zone, c.host) {
                (Some(_), Some(_)) => return Err(format!("card #{} is both in a zone and under a card", c.n)),
                (Some(k), None) => {
                    zone = *key_index
                        .get(k.as_str())
                        .ok_or_else(|| format!("card #{}: zone `{k}` is not among the saved zones", c.n))?;
                    in_zone.entry(zone).or_default().push((c.pos, c.n));
                }
                (None, Some(h)) => {
                    if h >= n || h == c.n {
                        return Err(format!("card #{}: no card #{h} to lie under", c.n));
                    }
                    under.entry(h).or_default().push((c.pos, c.n));
                }
                (None, None) => {}
            }
            s.cards.push(Card {
                def: def as u32,
                zone,
                stage,
                face_up: c.face_up,
                marks: c.marks.clone(),
                stickers: c.stickers.clone(),
                attached: Vec::new(),
                host: c.host,
                owner: c.owner,
            });
        }
        for (z, mut list) in in_zone {
            list.sort_unstable();
            for (want, &(pos, c)) in list.iter().enumerate() {
                if pos != want {
                    return Err(format!(
                        "zone `{}`: card #{c} is at position {pos}, expected {want} (positions must run 0, 1, 2...)",
                        self.zone[z as usize].key
                    ));
                }
            }
            s.zones[z as usize].cards = list.into_iter().map(|(_, c)| c).collect();
        }
        for (h, mut list) in under {
            list.sort_unstable();
            s.cards[h as usize].attached = list.into_iter().map(|(_, c)| c).collect();
        }
        // A host chain must end in a zone (or out of the game), never loop.
        for c in 0..n {
            let mut at = c;
            for step in 0..=n {
                match s.cards[at as usize].host {
                    Some(h) => at = h,
                    None => break,
                }
                if step == n {
                    return Err(format!("card #{c}: its hosts form a loop"));
                }
            }
        }
        // Pieces and supplies (the board's spaces come from the pack).
        s.pieces.clear();
        for p in &self.piece {
            let space = match &p.space {
                Some(id) => Some(
                    *s.space_ids.get(id).ok_or_else(|| format!("a {} piece stands on unknown space `{id}`", p.kind))?,
                ),
                None => None,
            };
            s.pieces.push(Piece { kind: p.kind.clone(), owner: p.owner, space, attrs: p.attrs.clone() });
        }
        s.supplies = self.supplies.clone();
        for (id, values) in &self.space_values {
            let sp = *s.space_ids.get(id).ok_or_else(|| format!("a value is kept on unknown space `{id}`"))?;
            s.spaces[sp as usize].values = values.clone();
        }
        s.board_version += 1;
        s.turns = self.turns.restore(s.players.len(), &game.pack.manifest.phases)?;
        s.globals.clear();
        for (k, v) in &self.globals {
            s.globals.insert(k.clone(), from_toml(v).map_err(|e| format!("global `{k}`: {e}"))?);
        }
        Ok(())
    }
}

/// A script value as TOML; `None` for what TOML cannot hold (functions, characters...).
fn to_toml(v: &Dynamic) -> Option<toml::Value> {
    if v.is_unit() {
        let mut t = toml::Table::new();
        t.insert(UNIT_KEY.into(), toml::Value::Boolean(true));
        return Some(toml::Value::Table(t));
    }
    if let Ok(i) = v.as_int() {
        return Some(toml::Value::Integer(i));
    }
    if let Ok(b) = v.as_bool() {
        return Some(toml::Value::Boolean(b));
    }
    if v.is_string() {
        return Some(toml::Value::String(v.clone().into_string().ok()?));
    }
    if v.is_array() {
        let a = v.read_lock::<Array>()?;
        return a.iter().map(to_toml).collect::<Option<Vec<_>>>().map(toml::Value::Array);
    }
    if v.is_map() {
        let m = v.read_lock::<Map>()?;
        let mut t = toml::Table::new();
        for (k, x) in m.iter() {
            t.insert(k.to_string(), to_toml(x)?);
        }
        return Some(toml::Value::Table(t));
    }
    None
}

fn from_toml(v: &toml::Value) -> Result<Dynamic, String> {
    Ok(match v {
        toml::Value::Integer(i) => Dynamic::from(*i),
        toml::Value::Boolean(b) => Dynamic::from(*b),
        toml::Value::String(s) => Dynamic::from(s.clone()),
        toml::Value::Array(a) => Dynamic::from_array(a.iter().map(from_toml).collect::<Result<Array, _>>()?),
        toml::Value::Table(t) => {
            if t.len() == 1 && t.get(UNIT_KEY) == Some(&toml::Value::Boolean(true)) {
                return Ok(Dynamic::UNIT);
            }
            let mut m = Map::new();
            for (k, x) in t {
                m.insert(k.as_str().into(), from_toml(x)?);
            }
            Dynamic::from_map(m)
        }
        toml::Value::Float(_) => return Err("scripts have no fractional numbers".into()),
        toml::Value::Datetime(_) => return Err("scripts have no dates".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_values_round_trip_through_toml() {
        let mut inner = Map::new();
        inner.insert("a".into(), Dynamic::from(3_i64));
        inner.insert("none".into(), Dynamic::UNIT);
        let v = Dynamic::from_array(vec![
            Dynamic::from(true),
            Dynamic::from("x".to_string()),
            Dynamic::from_map(inner),
            Dynamic::UNIT,
        ]);
        let t = to_toml(&v).unwrap();
        let back = from_toml(&t).unwrap();
        assert_eq!(back.to_string(), v.to_string());
    }

    #[test]
    fn turns_round_trip_and_bad_ones_are_refused() {
        let t = Turns {
            current: Some(2),
            first: 1,
            round: 3,
            phase: Some("play".into()),
            passed: 0b101,
            withdrawn: 0b010,
            last_passer: Some(0),
            owner: None,
            round_turn: 0,
        };
        let phases = ["draft".to_string(), "play".to_string()];
        let saved = SavedTurns::of(&t);
        assert_eq!((saved.passed.clone(), saved.withdrawn.clone()), (vec![0, 2], vec![1]));
        assert_eq!(saved.restore(3, &phases).unwrap(), t);
        assert!(SavedTurns::default().is_empty() && !saved.is_empty());
        let bad = |f: &dyn Fn(&mut SavedTurns)| {
            let mut s = saved.clone();
            f(&mut s);
            s.restore(3, &phases).unwrap_err()
        };
        assert!(bad(&|s| s.current = Some(3)).contains("current names seat 3, but the game has 3 seats"));
        assert!(bad(&|s| s.passed.push(9)).contains("passed names seat 9"));
        assert!(bad(&|s| s.last_passer = Some(5)).contains("last_passer names seat 5"));
        assert!(bad(&|s| s.round = -1).contains("rounds count from 0"));
        assert!(bad(&|s| s.phase = Some("feast".into()))
            .contains("`feast` is not one of pack.toml's `phases` (draft, play)"));
    }

    #[test]
    fn format_and_wholeness_are_checked() {
        assert!(SaveFile::parse("pack = \"x\"\n").unwrap_err().contains("no `format = 1`"));
        assert!(SaveFile::parse("format = 2\n").unwrap_err().contains("format 2 is not supported"));
    }
}
