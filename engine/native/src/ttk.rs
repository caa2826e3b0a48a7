//! Take the Kingdom in plain Rust: a line-by-line port of the rules script of the pack's
//! frozen copy (`tests/fixtures/native/scripts/take-the-kingdom/rules.rhai`) and its card and
//! noble scripts, with its own compact state (see the module docs of
//! [`crate`]). Function names follow the script's, so the two can be read side by
//! side; each state change writes the transcript line the matching host function writes.

use std::sync::Arc;

use super::NativeResult;
use crown_engine::content::model::Scalar;
use crown_engine::content::{DefKind, Pack};
use crown_engine::game::agent::{Agent, ChoiceRequest};
use crown_engine::game::rng::{derive_seed, GameRng};
use crown_engine::game::{GameConfig, Outcome, ScriptFailure, Status};

type R<T> = Result<T, String>;

const NONE: u32 = u32::MAX;
const NO_OWNER: u8 = u8::MAX;

// ---- keywords -----------------------------------------------------------------------

const K_LINE: u32 = 1 << 0;
const K_CASTLE: u32 = 1 << 1;
const K_SETUP: u32 = 1 << 2;
const K_TROOPS: u32 = 1 << 3;
const K_TRAP: u32 = 1 << 4;
const K_REAL: u32 = 1 << 5;
const K_ATTACK: u32 = 1 << 6;
const K_MECHANICAL: u32 = 1 << 7;
const K_CANNON: u32 = 1 << 8;
const K_PIKEMEN: u32 = 1 << 9;
const K_SURPRISE: u32 = 1 << 10;
const K_MERCENARY: u32 = 1 << 11;
const K_OUT_OF_TURN: u32 = 1 << 12;
const K_CANCELS: u32 = 1 << 13;
const K_WITH_ATTACK: u32 = 1 << 14;
const K_AGAINST: u32 = 1 << 15;
const K_BUYS: u32 = 1 << 16;
const K_FREEZE: u32 = 1 << 17;
const K_MERCY: u32 = 1 << 18;
const K_PENALTY: u32 = 1 << 19;

fn keyword_bit(k: &str) -> u32 {
    match k {
        "line" => K_LINE,
        "castle" => K_CASTLE,
        "setup" => K_SETUP,
        "troops" => K_TROOPS,
        "trap" => K_TRAP,
        "real" => K_REAL,
        "attack" => K_ATTACK,
        "mechanical" => K_MECHANICAL,
        "cannon" => K_CANNON,
        "pikemen" => K_PIKEMEN,
        "surprise" => K_SURPRISE,
        "mercenary" => K_MERCENARY,
        "out-of-turn" => K_OUT_OF_TURN,
        "cancels-penalty" => K_CANCELS,
        "with-attack" => K_WITH_ATTACK,
        "against-rival" => K_AGAINST,
        "buys" => K_BUYS,
        "freeze" => K_FREEZE,
        "mercy" => K_MERCY,
        "penalty" => K_PENALTY,
        _ => 0,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Attack,
    Defend,
    Mercenary,
    Action,
    Penalty,
    Other,
}

/// A card's behaviour: the script file its definition names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Beh {
    None,
    Attack,
    Defence,
    Land,
    Trap,
    Merc,
    Deny,
    Gold,
    Mercy,
    Sabotage,
    Spread,
    Morale,
    Mutiny,
    Earthquake,
    Fortune,
    Freeze,
    Famine,
    Disease,
    Plague,
}

/// A noble's hook: the script file its definition names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hook {
    None,
    Charles,
    Maria,
    Egbert,
    Baligant,
    Simon,
}

fn stem(path: &str) -> &str {
    let f = path.rsplit('/').next().unwrap_or(path);
    f.strip_suffix(".rhai").unwrap_or(f)
}

struct Def {
    id: String,
    name: String,
    kind: Kind,
    pack_kind: DefKind,
    kw: u32,
    beh: Beh,
    hook: Hook,
    attack: i64,
    defence: i64,
    proxy: i64,
    in_deck: i64,
    solo: i64,
    uses: i64,
    factor: i64,
    damage: i64,
    draw: i64,
    lasts_round: i64,
    number: i64,
    cannon: i64,
    pikemen: i64,
    hand_with_land: i64,
    count: i64,
    decks: Vec<String>,
    /// Cards a noble brings along (definition indices).
    cards: Vec<u32>,
    start_kingdom: bool,
    /// `pool: <name>`, its pile during kingdom building.
    pool: String,
    /// `attrs.replaces` (solo swaps), as a definition index.
    replaces: Option<u32>,
}

type DefCache = (Arc<Pack>, Arc<Vec<Def>>);

thread_local! {
    /// The last pack's definitions, digested: a run plays many games of one pack.
    static DEFS: std::cell::RefCell<Option<DefCache>> = const { std::cell::RefCell::new(None) };
}

fn cached_defs(pack: &Arc<Pack>) -> Arc<Vec<Def>> {
    DEFS.with(|c| {
        let mut c = c.borrow_mut();
        if let Some((p, d)) = c.as_ref() {
            if Arc::ptr_eq(p, pack) {
                return d.clone();
            }
        }
        let d = Arc::new(build_defs(pack));
        *c = Some((pack.clone(), d.clone()));
        d
    })
}

fn build_defs(pack: &Pack) -> Vec<Def> {
    pack.defs
        .iter()
        .map(|d| {
            let v = |k: &str| d.def.values.get(k).copied().unwrap_or(0);
            let beh = match d.def.script.as_deref().map(stem) {
                Some("attack") => Beh::Attack,
                Some("defence") => Beh::Defence,
                Some("land") => Beh::Land,
                Some("trap") => Beh::Trap,
                Some("mercenaries") => Beh::Merc,
                Some("deny") => Beh::Deny,
                Some("gold") => Beh::Gold,
                Some("mercy") => Beh::Mercy,
                Some("sabotage") => Beh::Sabotage,
                Some("spread") => Beh::Spread,
                Some("morale") => Beh::Morale,
                Some("mutiny") => Beh::Mutiny,
                Some("earthquake") => Beh::Earthquake,
                Some("fortune") => Beh::Fortune,
                Some("freeze") => Beh::Freeze,
                Some("famine") => Beh::Famine,
                Some("disease") => Beh::Disease,
                Some("plague") => Beh::Plague,
                _ => Beh::None,
            };
            let hook = match d.def.script.as_deref().map(stem) {
                Some("charles") => Hook::Charles,
                Some("maria") => Hook::Maria,
                Some("egbert") => Hook::Egbert,
                Some("baligant") => Hook::Baligant,
                Some("simon") => Hook::Simon,
                _ => Hook::None,
            };
            let kind = match d.def.kind.as_str() {
                "attack" => Kind::Attack,
                "defend" => Kind::Defend,
                "mercenary" => Kind::Mercenary,
                "action" => Kind::Action,
                "penalty" => Kind::Penalty,
                _ => Kind::Other,
            };
            Def {
                id: d.def.id.clone(),
                name: d.def.name.clone(),
                kind,
                pack_kind: d.kind,
                kw: d.def.keywords.iter().fold(0, |a, k| a | keyword_bit(k)),
                beh,
                hook,
                attack: v("attack"),
                defence: v("defence"),
                proxy: v("proxy"),
                in_deck: v("in_deck"),
                solo: v("solo"),
                uses: v("uses"),
                factor: v("factor"),
                damage: v("damage"),
                draw: v("draw"),
                lasts_round: v("lasts_round"),
                number: v("number"),
                cannon: v("cannon"),
                pikemen: v("pikemen"),
                hand_with_land: v("hand_with_land"),
                count: d.def.count,
                decks: d.def.decks.clone(),
                cards: d.def.cards.iter().filter_map(|c| pack.index.get(c).map(|&i| i as u32)).collect(),
                start_kingdom: d.def.attrs.get("start").is_some_and(|s| s == "kingdom"),
                pool: format!("pool: {}", d.def.name),
                replaces: d.def.attrs.get("replaces").and_then(|r| pack.index.get(r).map(|&i| i as u32)),
            }
        })
        .collect()
}

// ---- counters and marks ---------------------------------------------------------------

#[derive(Clone, Copy)]
enum C {
    Defence,
    Lands,
    Free,
    Open,
    Traps,
    Troops,
    Mercs,
    Plays,
    Acted,
    Frozen,
    Famine,
    NoDefend,
    NoAttack,
    NoPlay,
    Morale,
    Spread,
    Waiting,
    Build,
    Restarted,
    Enemy,
    Drawn,
}
const NC: usize = 21;
const CN: [&str; NC] = [
    "defence",
    "lands",
    "free",
    "open",
    "traps",
    "troops",
    "mercs",
    "plays",
    "acted",
    "frozen",
    "famine",
    "no_defend",
    "no_attack",
    "no_play",
    "morale",
    "spread",
    "waiting",
    "build",
    "restarted",
    "enemy",
    "drawn",
];
/// `clear_kingdom_counters`, in the script's order.
const CLEARED: [C; 16] = [
    C::Defence,
    C::Lands,
    C::Free,
    C::Open,
    C::Traps,
    C::Troops,
    C::Mercs,
    C::Plays,
    C::Frozen,
    C::Famine,
    C::NoDefend,
    C::NoAttack,
    C::NoPlay,
    C::Morale,
    C::Spread,
    C::Waiting,
];

#[derive(Clone, Copy)]
enum M {
    Hp,
    Role,
    Castle,
    Nd,
    Trap,
    Proxy,
    Uses,
    Waiting,
}
const NM: usize = 8;
const MN: [&str; NM] = ["hp", "role", "castle", "nd", "trap", "proxy", "uses", "waiting"];

// ---- the table --------------------------------------------------------------------------

struct Card {
    def: u32,
    zone: u32,
    host: u32,
    owner: u8,
    face_up: bool,
    attached: Vec<u32>,
    m: [i64; NM],
}

struct Zone {
    name: std::borrow::Cow<'static, str>,
    owner: Option<u8>,
    cards: Vec<u32>,
    kingdom: bool,
}

struct Player {
    name: String,
    ch: Option<u32>,
    c: [i64; NC],
    out: bool,
    score: i64,
}

const Z_DECK: u32 = 0;
const Z_BOX: u32 = 1;
const Z_DISCARD: u32 = 2;
const Z_PLAY: u32 = 3;
const Z_KIT: u32 = 4;
const Z_DEALT: u32 = 5;
const Z_ATTACK_DECK: u32 = 6;
const Z_DEFEND_DECK: u32 = 7;
const Z_ACTION_DECK: u32 = 8;
const Z_PLAYERS: u32 = 9;

fn hand(p: usize) -> u32 {
    Z_PLAYERS + 4 * p as u32
}
fn kingdom(p: usize) -> u32 {
    Z_PLAYERS + 4 * p as u32 + 1
}
fn beside(p: usize) -> u32 {
    Z_PLAYERS + 4 * p as u32 + 2
}
fn status(p: usize) -> u32 {
    Z_PLAYERS + 4 * p as u32 + 3
}

/// Scenario options the rules read, with the script's defaults.
struct Settings {
    solo: bool,
    per_line: i64,
    max_lands: i64,
    plays: Option<i64>,
    hand_size: i64,
    setup_points: i64,
    survival: bool,
    survival_hand: i64,
    survival_kit: String,
    rounds: i64,
}

/// How a seat's choices are made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `random` or `first`: called as is, reading nothing but the number of options.
    Blind,
    /// `greedy`: the pack's `greedy_score` (scripts/take-the-kingdom/bots.rhai), natively, with the agent's tie-breaking stream.
    Greedy,
    /// Anything else: given prompt and labels.
    Full,
}

// ---- options --------------------------------------------------------------------------

#[derive(Clone, Copy)]
enum Verb {
    Play,
    Send,
    Fire,
    Share,
}

#[derive(Clone, Copy)]
enum Lab {
    Noble(u32),
    BuildLand(u32),
    BuildOn(u32, u32),
    PlayCard(u32),
    UseBeside(u32),
    Fire(u32, u32),
    Move(u32, u32),
    End,
    Discard(u32),
    Target(Verb, u32, u32, u32),
    SpreadAll(u32),
    Station(u32, u32),
    Place(u32, u32),
    MoveTo(u32, u32),
    SetTrap(u32, u32),
    Amount(i64, u32, u32),
    TurnOn(u32, u32, u32),
    Let(u32),
    Answer(u32, u32, bool),
    Suffer(u32),
    Lift(u32, u32, bool),
    PenaltyOn(u32, u32),
    Shake(u32),
    FreezeArmy(u32),
    MercyThaw,
    MercyLand,
    MercyFortune,
    Sabotage(u32, u32),
    Mutiny(u32, u32, u32),
    Deal([u32; 3], u8, [u8; 3], i32),
}

#[derive(Clone, Copy)]
struct Opt {
    lab: Lab,
    card: i64,
    line: i64,
    owner: i64,
    amount: i64,
    worth: i64,
    /// Added with the script's `push_unique` (a repeated label gets " (2)"...).
    uniq: bool,
}

impl Opt {
    fn new(lab: Lab) -> Opt {
        Opt { lab, card: -1, line: -1, owner: -1, amount: 0, worth: 0, uniq: false }
    }
    fn card(mut self, c: u32) -> Opt {
        self.card = i64::from(c);
        self
    }
    fn line(mut self, l: u32) -> Opt {
        self.line = i64::from(l);
        self
    }
    fn owner(mut self, q: usize) -> Opt {
        self.owner = q as i64;
        self
    }
    fn amount(mut self, a: i64) -> Opt {
        self.amount = a;
        self
    }
    fn worth(mut self, w: i64) -> Opt {
        self.worth = w;
        self
    }
    fn uniq(mut self) -> Opt {
        self.uniq = true;
        self
    }
}

/// What an answer out of turn did.
#[derive(PartialEq, Eq, Clone, Copy)]
enum Ans {
    Through,
    Cancel,
    Buy,
}

/// `sim_hit`: what an attack would do to a line.
struct Sim {
    points: i64,
    applied: i64,
    falls: bool,
    castle: bool,
}

macro_rules! tlog {
    ($g:ident, $($a:tt)*) => {
        if $g.out.is_some() {
            let s = format!($($a)*);
            $g.push_line(&s);
        }
    };
}

struct T {
    pack: Arc<Pack>,
    defs: Arc<Vec<Def>>,
    set: Settings,
    cards: Vec<Card>,
    zones: Vec<Zone>,
    pl: Vec<Player>,
    rng: GameRng,
    agents: Vec<Box<dyn Agent>>,
    modes: Vec<Mode>,
    greedy_rng: Vec<GameRng>,
    blank: Vec<String>,
    out: Option<String>,
    seats: Vec<crown_engine::content::model::Seat>,
    choices: u64,
    turn: u64,
    over: Option<(Vec<usize>, String)>,
    plays: Vec<Vec<u32>>,
    // globals
    g_solo: Option<bool>,
    g_current: Option<i64>,
    g_quiet: Option<i64>,
    g_round: Option<i64>,
    g_kit_used: Option<bool>,
}

pub fn run(pack: Arc<Pack>, cfg: GameConfig, agents: Vec<Box<dyn Agent>>) -> NativeResult {
    let fail = |msg: String, turns: u64| NativeResult {
        outcome: Outcome {
            status: Status::Failed(ScriptFailure::plain(msg)),
            winners: Vec::new(),
            reason: String::new(),
            scores: Vec::new(),
            turns,
            characters: Vec::new(),
            plays: Vec::new(),
            discards: Vec::new(),
            drawn: Vec::new(),
            rounds: Vec::new(),
        },
        transcript: None,
    };
    let scenario = match &cfg.scenario {
        Some(s) => match pack.scenario(s) {
            Some(x) => Some(x),
            None => return fail(format!("no scenario `{s}` in pack `{}`", pack.id()), 0),
        },
        None => pack.default_scenario(),
    };
    let range = scenario.and_then(|s| s.scenario.players).unwrap_or(pack.manifest.players);
    let n = cfg.players;
    if (n as i64) < range.min || (n as i64) > range.max || agents.len() != n || n == 0 {
        return fail(format!("{n} players, {} agents: not allowed here", agents.len()), 0);
    }
    let seats = scenario.map(|s| s.scenario.seat.clone()).unwrap_or_default();
    let opts = scenario.map(|s| s.scenario.options.clone()).unwrap_or_default();
    let int = |k: &str| match opts.get(k) {
        Some(Scalar::Int(i)) => Some(*i),
        _ => None,
    };
    let set = Settings {
        solo: matches!(opts.get("mode"), Some(Scalar::Str(s)) if s == "solo"),
        per_line: int("defences_per_line").unwrap_or(2),
        max_lands: int("max_lands").unwrap_or(5),
        plays: int("plays"),
        hand_size: int("hand_size").unwrap_or(5),
        setup_points: int("setup_points").unwrap_or(12),
        survival: matches!(opts.get("survival"), Some(Scalar::Bool(true))),
        survival_hand: int("survival_hand").unwrap_or(4),
        survival_kit: match opts.get("survival_kit") {
            Some(Scalar::Str(s)) => s.clone(),
            _ => String::new(),
        },
        rounds: int("rounds").unwrap_or(18),
    };
    let defs = cached_defs(&pack);
    let names: Vec<String> = (0..n)
        .map(|i| {
            cfg.names
                .get(i)
                .cloned()
                .or_else(|| seats.get(i).and_then(|s| s.name.clone()))
                .unwrap_or_else(|| format!("P{}", i + 1))
        })
        .collect();
    let mut unique = true;
    for i in 0..n {
        for j in 0..i {
            if names[i] == names[j] {
                unique = false;
            }
        }
    }
    let modes: Vec<Mode> = agents
        .iter()
        .map(|a| match a.kind().as_str() {
            "random" | "first" if unique => Mode::Blind,
            "greedy" if unique => Mode::Greedy,
            _ => Mode::Full,
        })
        .collect();
    let greedy_rng = (0..n).map(|s| GameRng::new(derive_seed(cfg.seed ^ 0x6EED_1000, s as u64 + 1))).collect();
    let max_turns = cfg.max_turns.or(pack.manifest.max_turns.map(u64::from)).unwrap_or(500);
    let out = cfg.transcript.then(|| {
        let mut s = String::with_capacity(64 * 1024);
        s.push_str(&format!("# pack {} {}\n", pack.id(), pack.manifest.version));
        s.push_str(&format!("# scenario {}\n", scenario.map_or("-", |s| s.scenario.id.as_str())));
        s.push_str(&format!("# seed {}\n", cfg.seed));
        // As `transcript_text` shows it: seat names only.
        let shown: Vec<&str> = names.iter().map(|x| x.split(" (").next().unwrap_or(x)).collect();
        s.push_str(&format!("# players {}\n", shown.join(", ")));
        s
    });
    let mut zones = Vec::with_capacity(Z_PLAYERS as usize + 4 * n + 8);
    for name in ["deck", "box", "discard", "play", "kit", "dealt", "attack-deck", "defend-deck", "action-deck"] {
        zones.push(Zone {
            name: name.into(),
            owner: None,
            cards: Vec::with_capacity(if name == "deck" || name == "discard" { 128 } else { 0 }),
            kingdom: false,
        });
    }
    for p in 0..n {
        for name in ["hand", "kingdom", "mercy", "status"] {
            zones.push(Zone { name: name.into(), owner: Some(p as u8), cards: Vec::new(), kingdom: name == "kingdom" });
        }
    }
    let mut t = T {
        pack: pack.clone(),
        defs,
        set,
        cards: Vec::with_capacity(128),
        zones,
        pl: names.into_iter().map(|name| Player { name, ch: None, c: [0; NC], out: false, score: 0 }).collect(),
        rng: GameRng::new(cfg.seed),
        agents,
        modes,
        greedy_rng,
        blank: Vec::new(),
        out,
        seats,
        choices: 0,
        turn: 0,
        over: None,
        plays: vec![Vec::new(); n],
        g_solo: None,
        g_current: None,
        g_quiet: None,
        g_round: None,
        g_kit_used: None,
    };
    let status = match t.drive(max_turns) {
        Ok(s) => s,
        Err(msg) => {
            tlog!(t, "error: {msg}");
            Status::Failed(ScriptFailure::plain(msg))
        }
    };
    let (winners, reason) = t.over.clone().unwrap_or_default();
    let outcome = Outcome {
        status,
        winners,
        reason,
        scores: t.pl.iter().map(|p| p.score).collect(),
        turns: t.turn,
        characters: t.pl.iter().map(|p| p.ch.map(|d| t.defs[d as usize].id.clone())).collect(),
        plays: std::mem::take(&mut t.plays),
        // The native copy counts what the benchmark compares: plays, not discards or rounds.
        discards: Vec::new(),
        drawn: Vec::new(),
        rounds: Vec::new(),
    };
    let transcript = t.out.take().map(|mut s| {
        let st = match &outcome.status {
            Status::Finished => "finished".to_string(),
            Status::TurnLimit => "turn limit".to_string(),
            Status::Paused => "paused at a checkpoint".to_string(),
            Status::Failed(f) => format!("failed: {f}"),
        };
        let winners: Vec<&str> = outcome.winners.iter().map(|&w| t.pl[w].name.as_str()).collect();
        let scores: Vec<String> = t.pl.iter().map(|p| format!("{} {}", p.name, p.score)).collect();
        s.push_str(&format!(
            "# result {st}; turns {}; winners {}; scores {}\n",
            outcome.turns,
            if winners.is_empty() { "none".to_string() } else { winners.join(", ") },
            scores.join(", ")
        ));
        s
    });
    NativeResult { outcome, transcript }
}

impl T {
    // ---- the loop (as the engine's `drive`) ----

    fn drive(&mut self, max_turns: u64) -> R<Status> {
        self.setup()?;
        loop {
            if self.over.is_some() {
                return Ok(Status::Finished);
            }
            if self.turn >= max_turns {
                tlog!(self, "stopped: turn limit of {max_turns} reached");
                return Ok(Status::TurnLimit);
            }
            self.turn += 1;
            tlog!(self, "-- turn {}", self.turn);
            self.turn_fn()?;
        }
    }

    // ---- transcript and primitive state changes (the host functions) ----

    fn push_line(&mut self, s: &str) {
        if let Some(o) = &mut self.out {
            o.push_str(s);
            o.push('\n');
        }
    }

    fn cref(&self, c: u32) -> String {
        format!("{}#{}", self.defs[self.cards[c as usize].def as usize].id, c)
    }

    fn zl(&self, z: u32) -> String {
        if z == NONE {
            return "nowhere".into();
        }
        let zone = &self.zones[z as usize];
        match zone.owner {
            Some(p) => format!("{}@{}", zone.name, self.pl[p as usize].name),
            None => zone.name.to_string(),
        }
    }

    fn pname(&self, p: usize) -> &str {
        &self.pl[p].name
    }

    #[inline]
    fn d(&self, c: u32) -> &Def {
        &self.defs[self.cards[c as usize].def as usize]
    }

    #[inline]
    fn kw(&self, c: u32, k: u32) -> bool {
        self.d(c).kw & k != 0
    }

    fn name(&self, c: u32) -> &str {
        &self.d(c).name
    }

    #[inline]
    fn c(&self, p: usize, k: C) -> i64 {
        self.pl[p].c[k as usize]
    }

    fn setc(&mut self, p: usize, k: C, v: i64) {
        let old = self.pl[p].c[k as usize];
        if old != v {
            self.pl[p].c[k as usize] = v;
            tlog!(self, "{} {} {} -> {}", self.pl[p].name, CN[k as usize], old, v);
        }
    }

    fn addc(&mut self, p: usize, k: C, d: i64) {
        let v = self.pl[p].c[k as usize].saturating_add(d);
        self.setc(p, k, v);
    }

    #[inline]
    fn m(&self, c: u32, k: M) -> i64 {
        self.cards[c as usize].m[k as usize]
    }

    fn setm(&mut self, c: u32, k: M, v: i64) {
        let old = self.cards[c as usize].m[k as usize];
        if old != v {
            self.cards[c as usize].m[k as usize] = v;
            tlog!(self, "mark {} {} {} -> {}", self.cref(c), MN[k as usize], old, v);
        }
    }

    fn addm(&mut self, c: u32, k: M, d: i64) -> i64 {
        let v = self.cards[c as usize].m[k as usize].saturating_add(d);
        self.setm(c, k, v);
        v
    }

    /// The turn (`set_current`), the quiet count (a script global) and the solo round
    /// (`set_round`, which starts at 0), logged as the engine logs them.
    fn set_global(&mut self, which: u8, v: i64) {
        match which {
            0 => {
                self.g_current = Some(v);
                tlog!(self, "turn: {}", self.pname(v as usize));
            }
            1 => {
                if self.g_quiet != Some(v) {
                    self.g_quiet = Some(v);
                    tlog!(self, "set quiet = {v}");
                }
            }
            _ => {
                if self.g_round.unwrap_or(0) != v {
                    tlog!(self, "round {v}");
                }
                self.g_round = Some(v);
            }
        }
    }

    fn owner_of(&self, c: u32) -> usize {
        let o = self.cards[c as usize].owner;
        if o == NO_OWNER {
            usize::MAX
        } else {
            o as usize
        }
    }

    fn effective_zone(&self, mut c: u32) -> u32 {
        for _ in 0..64 {
            let card = &self.cards[c as usize];
            if card.host == NONE {
                return card.zone;
            }
            c = card.host;
        }
        NONE
    }

    fn detach(&mut self, c: u32) {
        let h = self.cards[c as usize].host;
        if h != NONE {
            self.cards[h as usize].attached.retain(|&x| x != c);
            self.cards[c as usize].host = NONE;
        } else {
            let z = self.cards[c as usize].zone;
            if z != NONE {
                let zc = &mut self.zones[z as usize].cards;
                if let Some(pos) = zc.iter().rposition(|&x| x == c) {
                    zc.remove(pos);
                }
            }
        }
        self.cards[c as usize].zone = NONE;
    }

    fn put_in_zone(&mut self, c: u32, z: u32) {
        self.detach(c);
        self.zones[z as usize].cards.push(c);
        let owner = self.zones[z as usize].owner;
        self.cards[c as usize].zone = z;
        if let Some(o) = owner {
            self.cards[c as usize].owner = o;
            if !self.cards[c as usize].attached.is_empty() {
                let mut stack = self.cards[c as usize].attached.clone();
                while let Some(a) = stack.pop() {
                    self.cards[a as usize].owner = o;
                    stack.extend(self.cards[a as usize].attached.iter().copied());
                }
            }
        }
    }

    fn move_card(&mut self, c: u32, z: u32) {
        let from = self.effective_zone(c);
        self.put_in_zone(c, z);
        tlog!(self, "move {} {} -> {}", self.cref(c), self.zl(from), self.zl(z));
    }

    fn discard(&mut self, c: u32) {
        self.move_card(c, Z_DISCARD);
    }

    fn attach(&mut self, c: u32, h: u32) {
        let from = self.effective_zone(c);
        self.detach(c);
        self.cards[c as usize].host = h;
        self.cards[h as usize].attached.push(c);
        self.cards[c as usize].owner = self.cards[h as usize].owner;
        tlog!(self, "attach {} under {} (from {})", self.cref(c), self.cref(h), self.zl(from));
    }

    fn set_face_up(&mut self, c: u32, up: bool) {
        if self.cards[c as usize].face_up != up {
            self.cards[c as usize].face_up = up;
            tlog!(self, "turn {} face {}", self.cref(c), if up { "up" } else { "down" });
        }
    }

    fn draw(&mut self, from: u32, to: u32) -> Option<u32> {
        let top = *self.zones[from as usize].cards.last()?;
        self.move_card(top, to);
        Some(top)
    }

    fn count(&self, z: u32) -> usize {
        self.zones[z as usize].cards.len()
    }

    /// `cards(z)`: top first.
    fn cards_of(&self, z: u32) -> Vec<u32> {
        self.zones[z as usize].cards.iter().rev().copied().collect()
    }

    fn find_in(&self, z: u32, def: u32) -> Option<u32> {
        self.zones[z as usize].cards.iter().rev().copied().find(|&c| self.cards[c as usize].def == def)
    }

    fn new_card(&mut self, def: u32, z: u32) -> u32 {
        let id = self.cards.len() as u32;
        self.cards.push(Card {
            def,
            zone: NONE,
            host: NONE,
            owner: NO_OWNER,
            face_up: true,
            attached: Vec::new(),
            m: [0; NM],
        });
        self.put_in_zone(id, z);
        id
    }

    fn create_deck(&mut self, deck: &str, z: u32) {
        let mut n = 0;
        for d in 0..self.defs.len() {
            if self.defs[d].pack_kind == DefKind::Card && self.defs[d].decks.iter().any(|x| x == deck) {
                for _ in 0..self.defs[d].count {
                    self.new_card(d as u32, z);
                    n += 1;
                }
            }
        }
        tlog!(self, "create deck {deck}: {n} cards in {}", self.zl(z));
    }

    fn shuffle(&mut self, z: u32) {
        let mut cards = std::mem::take(&mut self.zones[z as usize].cards);
        self.rng.shuffle(&mut cards);
        let n = cards.len();
        self.zones[z as usize].cards = cards;
        tlog!(self, "shuffle {} ({n} cards)", self.zl(z));
    }

    fn set_character(&mut self, p: usize, d: u32) {
        self.pl[p].ch = Some(d);
        tlog!(self, "{} is {}", self.pl[p].name, self.defs[d as usize].id);
    }

    fn note_play(&mut self, p: usize, c: u32) {
        let d = self.cards[c as usize].def;
        self.plays[p].push(d);
    }

    fn is_out(&self, p: usize) -> bool {
        self.pl[p].out
    }

    fn alive(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.pl.len()).filter(|&p| !self.pl[p].out)
    }

    fn n_alive(&self) -> usize {
        self.pl.iter().filter(|p| !p.out).count()
    }

    fn char_def(&self, p: usize) -> Option<&Def> {
        self.pl[p].ch.map(|d| &self.defs[d as usize])
    }

    fn noble_number(&self, p: usize) -> i64 {
        self.char_def(p).map_or(0, |d| d.number)
    }

    /// Whether a live player's noble has this hook (`fold` consults live players only).
    fn has_hook(&self, p: usize, h: Hook) -> bool {
        !self.pl[p].out && self.char_def(p).is_some_and(|d| d.hook == h)
    }

    // ---- choices ----

    fn label(&self, o: &Opt) -> String {
        let ln = |l: u32| self.line_name(l);
        match o.lab {
            Lab::Noble(d) => format!("{} ({})", self.defs[d as usize].name, self.defs[d as usize].number),
            Lab::BuildLand(c) => format!("Take {} as a new land", self.name(c)),
            Lab::BuildOn(c, l) => format!("Take {} for your {}", self.name(c), ln(l)),
            Lab::PlayCard(c) => format!("Play {}", self.card_label(c)),
            Lab::UseBeside(c) => format!("Use the {} beside your castle", self.name(c)),
            Lab::Fire(c, l) => format!("Fire {} from your {}", self.card_label(c), ln(l)),
            Lab::Move(c, l) => format!("Move {} from your {}", self.card_label(c), ln(l)),
            Lab::End => "End turn".into(),
            Lab::Discard(c) => format!("Discard {} to make room", self.card_label(c)),
            Lab::Target(v, c, l, q) => {
                format!("{} {}'s {}", self.verb(v, c), self.pname(q as usize), ln(l))
            }
            Lab::SpreadAll(c) => format!("Send {} to attack, shared out with Spread", self.card_label(c)),
            Lab::Station(c, l) => format!("Station {} on your {}", self.card_label(c), ln(l)),
            Lab::Place(c, l) => format!("Play {} on your {}", self.name(c), ln(l)),
            Lab::MoveTo(c, l) => format!("Move {} to your {}", self.card_label(c), ln(l)),
            Lab::SetTrap(c, l) => {
                format!("Set {} under your {}{}", self.name(c), ln(l), self.trap_note(self.owner_of(l), c))
            }
            Lab::Amount(a, q, l) => format!("{a} damage on {}'s {}", self.pname(q as usize), ln(l)),
            Lab::TurnOn(p, q, l) => {
                let whose = if p == q { "your".to_string() } else { format!("{}'s", self.pname(p as usize)) };
                format!("Turn it on {whose} {}", ln(l))
            }
            Lab::Let(c) => format!("Let the {} through", self.name(c)),
            Lab::Answer(a, c, b) => match self.d(a).beh {
                Beh::Gold => format!("Buy the {} with Gold", self.name(c)),
                Beh::Mercy if b => format!("Answer the {} with the Mercy beside your castle", self.name(c)),
                Beh::Mercy => format!("Answer the {} with Mercy", self.name(c)),
                Beh::Sabotage => format!("Sabotage the {}", self.name(c)),
                _ => format!("Deny the {}", self.name(c)),
            },
            Lab::Suffer(c) => format!("Suffer {}", self.name(c)),
            Lab::Lift(a, c, b) => {
                if b {
                    format!("Lift {} with the {} beside your castle", self.name(c), self.name(a))
                } else {
                    format!("Lift {} with {}", self.name(c), self.name(a))
                }
            }
            Lab::PenaltyOn(c, q) => format!("Play {} on {}", self.name(c), self.pname(q as usize)),
            Lab::Shake(q) => format!("Shake {}'s kingdom", self.pname(q as usize)),
            Lab::FreezeArmy(q) => format!("Freeze {}'s army", self.pname(q as usize)),
            Lab::MercyThaw => "Mercy: lift the Freeze".into(),
            Lab::MercyLand => "Mercy: stand as a proxy land".into(),
            Lab::MercyFortune => "Mercy: draw cards, as Fortune does".into(),
            Lab::Sabotage(q, l) => format!("Sabotage the trap under {}'s {}", self.pname(q as usize), ln(l)),
            Lab::Mutiny(q, d, l) => format!("Turn {}'s {} on {}", self.pname(q as usize), self.name(d), ln(l)),
            Lab::Deal(pm, k, seats, drop) => {
                let mut parts: Vec<String> = Vec::new();
                if drop >= 0 {
                    parts.push(format!("discard {}", self.name(drop as u32)));
                }
                for i in 0..k as usize {
                    let s = seats[i] as usize;
                    let who = if s == 0 { "you take".to_string() } else { format!("{} takes", self.pname(s)) };
                    parts.push(format!("{who} {}", self.card_label(pm[i])));
                }
                let label = parts.join(", ");
                let mut ch = label.chars();
                match ch.next() {
                    Some(f) => f.to_uppercase().collect::<String>() + ch.as_str(),
                    None => label,
                }
            }
        }
    }

    fn verb(&self, v: Verb, c: u32) -> String {
        match v {
            Verb::Play => format!("Play {} on", self.name(c)),
            Verb::Send => format!("Send {} against", self.card_label(c)),
            Verb::Fire => format!("Fire {} at", self.card_label(c)),
            Verb::Share => format!("Send a share of {} to", self.card_label(c)),
        }
    }

    /// Labels as the script builds them (`push_unique` suffixes) and as `choose` keeps
    /// them (the first of equal labels).
    fn labels(&self, opts: &[Opt]) -> (Vec<String>, Vec<usize>) {
        let mut built: Vec<String> = Vec::with_capacity(opts.len());
        for o in opts {
            let base = self.label(o);
            let mut l = base.clone();
            if o.uniq {
                let mut k = 1;
                while built.contains(&l) {
                    k += 1;
                    l = format!("{base} ({k})");
                }
            }
            built.push(l);
        }
        let mut labels = Vec::with_capacity(built.len());
        let mut keep = Vec::with_capacity(built.len());
        for (i, l) in built.into_iter().enumerate() {
            if !labels.contains(&l) {
                labels.push(l);
                keep.push(i);
            }
        }
        (labels, keep)
    }

    /// The host's `choose`: returns the index of the chosen option in `opts`.
    fn choose(&mut self, p: usize, prompt: &dyn Fn(&T) -> String, opts: &[Opt]) -> R<usize> {
        if opts.is_empty() {
            return Err(format!("choose(\"{}\") was given no options", prompt(self)));
        }
        let step = self.choices;
        self.choices += 1;
        let mode = self.modes[p];
        let full = self.out.is_some() || mode == Mode::Full;
        let (labels, keep) = if full { self.labels(opts) } else { (Vec::new(), Vec::new()) };
        let n = if full { labels.len() } else { opts.len() };
        let at = |i: usize| if full { keep[i] } else { i };
        let (index, asked) = if n == 1 {
            (0, false)
        } else {
            let i = match mode {
                Mode::Greedy => {
                    let mut best: Vec<usize> = Vec::new();
                    let mut best_score = i64::MIN;
                    for i in 0..n {
                        let s = self.greedy_score(p, &opts[at(i)]);
                        if s > best_score {
                            best_score = s;
                            best.clear();
                            best.push(i);
                        } else if s == best_score {
                            best.push(i);
                        }
                    }
                    let k = self.greedy_rng[p].below(best.len() as u64) as usize;
                    best[k]
                }
                _ => {
                    let pr = if mode == Mode::Full { prompt(self) } else { String::new() };
                    if !full && self.blank.len() < n {
                        self.blank.resize(n, String::new());
                    }
                    let pack = self.pack.clone();
                    let name = std::mem::take(&mut self.pl[p].name);
                    let ls: &[String] = if full { &labels } else { &self.blank[..n] };
                    let req = ChoiceRequest {
                        step,
                        player: p,
                        player_name: &name,
                        prompt: &pr,
                        count: n,
                        labels: ls,
                        options: &[],
                        unavailable: &[],
                        pack: &pack,
                        fork: None,
                        several: None,
                    };
                    let r = self.agents[p].choose(&req);
                    self.pl[p].name = name;
                    match r {
                        Ok(i) if i < n => i,
                        Ok(i) => return Err(format!("agent chose option {i} of {n}")),
                        Err(msg) => return Err(msg),
                    }
                }
            };
            (i, true)
        };
        if self.out.is_some() {
            let pr = prompt(self);
            let who = self.pl[p].name.clone();
            let label = &labels[index];
            let s = if asked {
                format!("choice {step} {who}: {pr} -> {label}")
            } else {
                format!("choice {step} {who}: {pr} -> {label} (only option)")
            };
            self.push_line(&s);
        }
        Ok(at(index))
    }

    // ---- names ----

    fn card_label(&self, c: u32) -> String {
        if self.kw(c, K_MERCENARY) {
            format!("{} ({})", self.name(c), self.d(c).attack)
        } else {
            self.name(c).to_string()
        }
    }

    /// The lines of a kingdom, castle first (the zone, bottom first).
    fn lines(&self, p: usize) -> &[u32] {
        &self.zones[kingdom(p) as usize].cards
    }

    /// The defence standing on line `l`: its own hit points left and those of the
    /// defences on it (the script's `line_defence`).
    fn line_defence(&self, l: u32) -> i64 {
        let on: i64 = (self.cards[l as usize].attached.iter())
            .filter(|&&a| self.m(a, M::Role) == 1)
            .map(|&a| self.m(a, M::Hp))
            .sum();
        self.m(l, M::Hp) + on
    }

    fn line_name(&self, l: u32) -> String {
        let p = self.owner_of(l);
        if p < self.pl.len() {
            let ls = self.lines(p);
            if let Some(i) = ls.iter().position(|&x| x == l) {
                if i > 0 {
                    return format!("{} {}", self.name(l), i);
                }
            }
        }
        self.name(l).to_string()
    }

    /// The lines a rival may strike: every land, or the castle once none is left.
    fn open_lines(&self, q: usize) -> &[u32] {
        let ls = self.lines(q);
        if ls.len() <= 1 {
            ls
        } else {
            &ls[1..]
        }
    }

    fn in_kingdom(&self, c: u32) -> bool {
        let z = self.effective_zone(c);
        z != NONE && self.zones[z as usize].kingdom
    }

    fn is_enemy(&self, p: usize) -> bool {
        self.c(p, C::Enemy) > 0
    }

    fn rivals(&self, p: usize) -> Vec<usize> {
        self.rival_iter(p).collect()
    }

    /// Rivals of p, in turn order after p (in solo the enemies face only the player).
    fn rival_iter(&self, p: usize) -> impl Iterator<Item = usize> + '_ {
        let enemy = self.is_enemy(p);
        let n = self.pl.len();
        let (a, b) = if enemy { (0, 1) } else { (1, n) };
        (a..b).map(move |k| if enemy { 0 } else { (p + k) % n }).filter(|&q| !self.pl[q].out)
    }

    fn has_rival(&self, p: usize) -> bool {
        if self.is_enemy(p) {
            !self.is_out(0)
        } else {
            self.n_alive() > 1
        }
    }

    fn next_alive(&self, p: usize) -> usize {
        let n = self.pl.len();
        for k in 1..=n {
            let q = (p + k) % n;
            if !self.is_out(q) {
                return q;
            }
        }
        p
    }

    // ---- what a player may do ----

    fn may_play(&self, p: usize) -> bool {
        self.c(p, C::NoPlay) == 0
    }
    fn may_defend(&self, p: usize) -> bool {
        self.c(p, C::NoDefend) == 0 && self.c(p, C::NoPlay) == 0
    }
    fn may_attack(&self, p: usize) -> bool {
        self.c(p, C::NoAttack) == 0 && self.c(p, C::Frozen) == 0 && self.c(p, C::NoPlay) == 0
    }

    fn has_attack_source(&self, p: usize, except: u32) -> bool {
        if self.c(p, C::Mercs) > 0 {
            return true;
        }
        self.zones[hand(p) as usize].cards.iter().any(|&c| c != except && self.kw(c, K_ATTACK | K_MERCENARY))
    }

    // ---- building a kingdom ----

    fn worth(&self, c: u32) -> i64 {
        if self.m(c, M::Proxy) == 1 {
            self.d(c).proxy
        } else {
            self.d(c).defence
        }
    }

    fn add_line(&mut self, p: usize, c: u32, castle: bool) {
        self.move_card(c, kingdom(p));
        let hp = self.worth(c);
        self.setm(c, M::Hp, hp);
        if castle {
            self.setm(c, M::Castle, 1);
        } else {
            self.addc(p, C::Lands, 1);
        }
        self.addc(p, C::Defence, hp);
        self.addc(p, C::Free, self.set.per_line);
        self.addc(p, C::Open, 1);
    }

    fn add_defence(&mut self, p: usize, c: u32, line: u32) {
        tlog!(self, "{} puts {} on {}", self.pname(p), self.name(c), self.line_name(line));
        self.attach(c, line);
        let hp = self.d(c).defence;
        self.setm(c, M::Role, 1);
        self.setm(c, M::Hp, hp);
        self.addm(line, M::Nd, 1);
        self.addc(p, C::Free, -1);
        self.addc(p, C::Defence, hp);
        if self.kw(c, K_TROOPS) {
            self.addc(p, C::Troops, 1);
        }
        if self.kw(c, K_MERCENARY) {
            self.addc(p, C::Mercs, 1);
        }
    }

    fn lift_defence(&mut self, c: u32) {
        let line = self.cards[c as usize].host;
        let p = self.owner_of(line);
        self.addm(line, M::Nd, -1);
        self.addc(p, C::Free, 1);
        self.addc(p, C::Defence, -self.m(c, M::Hp));
        if self.kw(c, K_TROOPS) {
            self.addc(p, C::Troops, -1);
        }
        if self.kw(c, K_MERCENARY) {
            self.addc(p, C::Mercs, -1);
        }
    }

    fn move_defence(&mut self, c: u32, line: u32) {
        let old = self.cards[c as usize].host;
        self.addm(old, M::Nd, -1);
        self.attach(c, line);
        self.addm(line, M::Nd, 1);
    }

    fn set_trap(&mut self, p: usize, c: u32, line: u32) {
        self.attach(c, line);
        self.setm(c, M::Role, 2);
        self.set_face_up(c, false);
        self.setm(line, M::Trap, i64::from(c) + 1);
        self.addc(p, C::Open, -1);
        self.addc(p, C::Traps, 1);
    }

    fn trap_of(&self, line: u32) -> i64 {
        self.m(line, M::Trap) - 1
    }

    fn remove_trap(&mut self, line: u32) {
        let t = self.trap_of(line);
        if t < 0 {
            return;
        }
        let t = t as u32;
        let p = self.owner_of(line);
        self.setm(line, M::Trap, 0);
        self.set_face_up(t, true);
        self.discard(t);
        self.addc(p, C::Open, 1);
        self.addc(p, C::Traps, -1);
    }

    fn top_defence(&self, line: u32) -> Option<u32> {
        self.cards[line as usize].attached.iter().rev().copied().find(|&a| self.m(a, M::Role) == 1)
    }

    fn top_card(&self, line: u32) -> u32 {
        self.top_defence(line).unwrap_or(line)
    }

    // ---- damage ----

    fn discard_deep(&mut self, c: u32) {
        let att = self.cards[c as usize].attached.clone();
        for a in att {
            self.discard_deep(a);
        }
        self.discard(c);
    }

    fn destroy(&mut self, c: u32) -> R<()> {
        if self.m(c, M::Role) == 1 {
            self.lift_defence(c);
            tlog!(self, "{}'s {} is destroyed", self.pname(self.owner_of(c)), self.name(c));
            self.discard_deep(c);
            return Ok(());
        }
        let p = self.owner_of(c);
        let att = self.cards[c as usize].attached.clone();
        for a in att {
            let r = self.m(a, M::Role);
            if r == 1 {
                self.lift_defence(a);
                self.discard_deep(a);
            } else if r == 2 {
                self.remove_trap(c);
            } else {
                self.discard(a);
            }
        }
        let castle = self.m(c, M::Castle) == 1;
        tlog!(self, "{}'s {} falls", self.pname(p), self.name(c));
        self.addc(p, C::Defence, -self.m(c, M::Hp));
        self.addc(p, C::Free, -self.set.per_line);
        self.addc(p, C::Open, -1);
        self.setm(c, M::Nd, 0);
        if castle {
            self.discard(c);
            self.castle_falls(p)?;
        } else {
            self.addc(p, C::Lands, -1);
            self.discard(c);
        }
        Ok(())
    }

    fn hit_line(&mut self, line: u32, mut amt: i64) -> R<i64> {
        let mut damaged = -1;
        while amt > 0 && self.in_kingdom(line) {
            let t = self.top_card(line);
            let hp = self.m(t, M::Hp);
            if amt >= hp {
                amt -= hp;
                self.destroy(t)?;
                damaged = -1;
                if t == line {
                    break;
                }
            } else {
                self.setm(t, M::Hp, hp - amt);
                let q = self.owner_of(line);
                self.addc(q, C::Defence, -amt);
                self.told_damage(q, t, amt, hp);
                amt = 0;
                damaged = i64::from(t);
            }
        }
        Ok(damaged)
    }

    fn hit_top(&mut self, line: u32, amt: i64) -> R<()> {
        let t = self.top_card(line);
        let hp = self.m(t, M::Hp);
        if amt >= hp {
            self.destroy(t)?;
        } else {
            self.setm(t, M::Hp, hp - amt);
            let q = self.owner_of(line);
            self.addc(q, C::Defence, -amt);
            self.told_damage(q, t, amt, hp);
        }
        Ok(())
    }

    /// The rules' `told_damage`: a hit that leaves card `t` of seat `q` standing.
    fn told_damage(&mut self, q: usize, t: u32, amt: i64, hp: i64) {
        tlog!(self, "{}'s {} takes {amt} damage: it is worth {} now", self.pname(q), self.name(t), hp - amt);
    }

    fn sim_hit(&self, line: u32, amt: i64) -> Sim {
        let mut points = 0;
        let mut applied = 0;
        let mut left = amt;
        let mut gone = 0;
        let mut len = 0;
        let att = &self.cards[line as usize].attached;
        let stack = att
            .iter()
            .rev()
            .filter(|&&a| self.m(a, M::Role) == 1)
            .map(|&a| self.m(a, M::Hp))
            .chain(std::iter::once(self.m(line, M::Hp)));
        let mut stopped = false;
        for h in stack {
            len += 1;
            if stopped {
                continue;
            }
            if left >= h {
                points += h;
                applied += h;
                left -= h;
                gone += 1;
            } else {
                applied += left;
                left = 0;
                stopped = true;
            }
        }
        Sim { points, applied, falls: gone == len, castle: self.m(line, M::Castle) == 1 }
    }

    fn line_total(&self, line: u32) -> i64 {
        let mut s = self.m(line, M::Hp);
        for &a in &self.cards[line as usize].attached {
            if self.m(a, M::Role) == 1 {
                s += self.m(a, M::Hp);
            }
        }
        s
    }

    // ---- a castle falls ----

    fn castle_falls(&mut self, p: usize) -> R<()> {
        tlog!(self, "{}'s castle has fallen", self.pname(p));
        if self.set.survival && self.g_kit_used != Some(true) && self.count(Z_KIT) > 0 {
            self.restart(p);
            return Ok(());
        }
        self.knock_out(p)
    }

    fn clear_kingdom_counters(&mut self, p: usize) {
        for k in CLEARED {
            self.setc(p, k, 0);
        }
    }

    fn knock_out(&mut self, p: usize) -> R<()> {
        for z in [hand(p), kingdom(p), beside(p), status(p)] {
            for c in self.cards_of(z) {
                self.discard_deep(c);
            }
        }
        self.clear_kingdom_counters(p);
        if !self.pl[p].out {
            self.pl[p].out = true;
            tlog!(self, "{} is out of the game", self.pname(p));
        }
        self.check_last_standing();
        Ok(())
    }

    fn restart(&mut self, p: usize) {
        if self.g_kit_used != Some(true) {
            self.g_kit_used = Some(true);
            tlog!(self, "set kit_used = true");
        }
        for z in [hand(p), kingdom(p), status(p)] {
            for c in self.cards_of(z) {
                self.discard_deep(c);
            }
        }
        self.clear_kingdom_counters(p);
        let kit = self.set.survival_kit.clone();
        let mut first = true;
        for id in kit.split(' ') {
            if id.is_empty() {
                continue;
            }
            let Some(&d) = self.pack.index.get(id) else { continue };
            let Some(c) = self.find_in(Z_KIT, d as u32) else { continue };
            if self.kw(c, K_LINE) {
                self.add_line(p, c, first);
                first = false;
            } else {
                self.move_card(c, hand(p));
            }
        }
        self.setc(p, C::Restarted, 1);
        if self.out.is_some() {
            let b = self.zones[kingdom(p) as usize].cards.first().copied();
            let nm = b.map_or(String::new(), |b| self.name(b).to_string());
            tlog!(self, "{} rebuilds around a {} (survival)", self.pname(p), nm);
        }
    }

    fn check_last_standing(&mut self) {
        if self.over.is_some() {
            return;
        }
        if self.set.solo {
            if self.is_out(0) {
                self.finish("your castle has fallen");
                return;
            }
            if self.alive().filter(|&q| q != 0).count() == 0 {
                self.finish("both enemy kingdoms have fallen");
            }
            return;
        }
        if self.n_alive() <= 1 {
            self.finish("last kingdom standing");
        }
    }

    fn finish(&mut self, reason: &str) {
        if self.over.is_some() {
            return;
        }
        let mut best: i64 = -1;
        let mut bs = -1;
        let mut bn = -1;
        for p in 0..self.pl.len() {
            let s = if self.is_out(p) { 0 } else { self.c(p, C::Defence) };
            self.pl[p].score = s;
            if self.is_out(p) {
                tlog!(self, "score {} = {s}", self.pname(p));
            } else {
                // The score's parts: the defence standing on each line.
                let parts: Vec<(String, i64)> =
                    self.lines(p).iter().map(|&l| (self.line_name(l), self.line_defence(l))).collect();
                let total: i64 = parts.iter().map(|(_, n)| n).sum();
                let parts: Vec<String> = parts.iter().map(|(w, n)| format!("{w} {n}")).collect();
                self.pl[p].score = total;
                tlog!(self, "score {} = {total} ({})", self.pname(p), parts.join(", "));
            }
            if !self.is_out(p) {
                let nb = self.noble_number(p);
                if s > bs || (s == bs && nb > bn) {
                    best = p as i64;
                    bs = s;
                    bn = nb;
                }
            }
        }
        let w: Vec<usize> = if best >= 0 { vec![best as usize] } else { Vec::new() };
        if self.out.is_some() {
            let names: Vec<String> = w.iter().map(|&p| self.pl[p].name.clone()).collect();
            let scores: Vec<String> = self.pl.iter().map(|p| format!("{} {}", p.name, p.score)).collect();
            tlog!(
                self,
                "game over: {} wins ({reason}); scores: {}",
                if names.is_empty() { "nobody".into() } else { names.join(" and ") },
                scores.join(", ")
            );
        }
        self.over = Some((w, reason.to_string()));
    }

    // ---- answers out of turn ----

    fn can_answer(&self, a: u32, c: u32) -> bool {
        match self.d(a).beh {
            Beh::Deny | Beh::Mercy => true,
            Beh::Gold => !self.kw(c, K_PENALTY),
            Beh::Sabotage => self.kw(c, K_MECHANICAL),
            _ => false,
        }
    }

    fn value_cost(&self, a: u32) -> i64 {
        if self.kw(a, K_BUYS) {
            2
        } else if self.kw(a, K_MERCY) {
            8
        } else {
            5
        }
    }

    fn offer_answer(&mut self, q: usize, p: usize, c: u32, threat: i64) -> R<Ans> {
        if self.is_out(q) || self.c(q, C::Famine) > 0 || self.kw(c, K_SURPRISE) {
            return Ok(Ans::Through);
        }
        let mut opts: Vec<Opt> = Vec::new();
        let mut seen: Vec<Beh> = Vec::new();
        for &a in self.zones[hand(q) as usize].cards.iter().rev() {
            if self.kw(a, K_OUT_OF_TURN) && self.can_answer(a, c) {
                // The label depends only on the answer's behaviour: the first card of each.
                let b = self.d(a).beh;
                if !seen.contains(&b) {
                    seen.push(b);
                    opts.push(Opt::new(Lab::Answer(a, c, false)).card(a).worth(threat * 8 - self.value_cost(a)));
                }
            }
        }
        for &a in self.zones[beside(q) as usize].cards.iter().rev() {
            if self.can_answer(a, c) {
                opts.push(Opt::new(Lab::Answer(a, c, true)).card(a).worth(threat * 8 - self.value_cost(a) - 2));
            }
        }
        if opts.is_empty() {
            return Ok(Ans::Through);
        }
        let o = if self.is_enemy(q) {
            opts[0]
        } else {
            opts.insert(0, Opt::new(Lab::Let(c)));
            let i = self.choose(q, &|t: &T| format!("{} plays {} against you", t.pname(p), t.name(c)), &opts)?;
            opts[i]
        };
        if o.card < 0 {
            return Ok(Ans::Through);
        }
        let a = o.card as u32;
        tlog!(self, "{} answers {}'s {} with {}", self.pname(q), self.pname(p), self.name(c), self.name(a));
        self.note_play(q, a);
        Ok(match self.d(a).beh {
            Beh::Gold => {
                let n = self.addm(a, M::Uses, 1);
                self.move_card(c, hand(q));
                let uses = self.d(a).uses;
                if n >= uses {
                    tlog!(self, "Gold has been used {n} times and goes to the discard");
                    self.discard(a);
                } else {
                    tlog!(self, "{} takes the Gold (used {n} of {uses} times)", self.pname(p));
                    self.move_card(a, hand(p));
                }
                Ans::Buy
            }
            _ => {
                self.discard(a);
                Ans::Cancel
            }
        })
    }

    // ---- attacks ----

    fn target_options(&self, p: usize, verb: Verb, vc: u32, amount: i64) -> Vec<Opt> {
        let mut opts = Vec::new();
        for q in self.rival_iter(p) {
            for &l in self.open_lines(q) {
                opts.push(Opt::new(Lab::Target(verb, vc, l, q as u32)).line(l).owner(q).amount(amount));
            }
        }
        opts
    }

    fn attack_value(&self, p: usize, c: u32) -> i64 {
        let d = self.d(c);
        let mut v = d.attack;
        if d.kw & K_CANNON != 0 && self.has_hook(p, Hook::Charles) {
            v = self.char_def(p).map_or(v, |x| x.cannon);
        }
        if d.kw & K_PIKEMEN != 0 && self.has_hook(p, Hook::Maria) {
            v = self.char_def(p).map_or(v, |x| x.pikemen);
        }
        v
    }

    fn make_attack(&mut self, p: usize, c: u32, verb: Verb, mut line: i64) -> R<()> {
        self.move_card(c, Z_PLAY);
        let mut v = self.attack_value(p, c);
        let m = self.c(p, C::Morale);
        if m > 0 {
            v *= m;
            self.setc(p, C::Morale, 0);
            tlog!(self, "Morale: {} strikes for {v}", self.name(c));
        }
        let mut shares: Vec<(u32, i64)> = Vec::new();
        if self.c(p, C::Spread) > 0 {
            self.setc(p, C::Spread, 0);
            shares = self.spread_shares(p, c, v)?;
        } else {
            if line < 0 {
                if self.is_enemy(p) {
                    line = self.enemy_best_line(0, v);
                } else {
                    let opts = self.target_options(p, verb, c, v);
                    let i = self.choose(
                        p,
                        &|t: &T| format!("{}: which line takes the {v} damage?", t.card_label(c)),
                        &opts,
                    )?;
                    line = opts[i].line;
                }
            }
            if line >= 0 {
                shares.push((line as u32, v));
            }
        }
        self.resolve_attack(p, c, v, shares)
    }

    fn spread_shares(&mut self, p: usize, c: u32, v: i64) -> R<Vec<(u32, i64)>> {
        if self.is_enemy(p) {
            return Ok(self.enemy_spread(v));
        }
        let mut shares: Vec<(u32, i64)> = Vec::new();
        let mut left = v;
        while left > 0 {
            let opts = self.target_options(p, Verb::Share, c, 0);
            if opts.is_empty() {
                break;
            }
            let i = self.choose(p, &|_: &T| format!("Spread: {left} of {v} damage still to share out"), &opts)?;
            let o = opts[i];
            let (ol, oq) = (o.line as u32, o.owner as u32);
            let mut amt = left;
            if left > 1 {
                let aopts: Vec<Opt> = (1..=left)
                    .map(|a| Opt::new(Lab::Amount(a, oq, ol)).line(ol).owner(oq as usize).amount(a))
                    .collect();
                let j = self.choose(
                    p,
                    &|t: &T| {
                        format!(
                            "Spread: how much of the {left} goes on {}'s {}?",
                            t.pname(oq as usize),
                            t.line_name(ol)
                        )
                    },
                    &aopts,
                )?;
                amt = aopts[j].amount;
            }
            let mut merged = false;
            for s in shares.iter_mut() {
                if s.0 == ol {
                    s.1 += amt;
                    merged = true;
                }
            }
            if !merged {
                shares.push((ol, amt));
            }
            left -= amt;
        }
        Ok(shares)
    }

    fn resolve_attack(&mut self, p: usize, c: u32, v: i64, mut shares: Vec<(u32, i64)>) -> R<()> {
        if self.out.is_some() {
            for &(l, a) in &shares {
                tlog!(
                    self,
                    "{} attacks {}'s {} with {} for {a}",
                    self.pname(p),
                    self.pname(self.owner_of(l)),
                    self.line_name(l),
                    self.name(c)
                );
            }
        }
        for q in self.rivals(p) {
            if !shares.iter().any(|s| self.owner_of(s.0) == q) {
                continue;
            }
            let r = self.offer_answer(q, p, c, v)?;
            if r == Ans::Buy {
                return Ok(());
            }
            if r == Ans::Cancel {
                shares.retain(|s| self.owner_of(s.0) != q);
            }
        }
        let mut tuck: i64 = -1;
        for (line, amt) in shares {
            if !self.in_kingdom(line) {
                continue;
            }
            let q = self.owner_of(line);
            let t = self.trap_of(line);
            if t >= 0 {
                let t = t as u32;
                let real = self.kw(t, K_REAL) || self.has_hook(q, Hook::Egbert);
                self.remove_trap(line);
                if real {
                    tlog!(
                        self,
                        "{}'s trap under {} springs: it is real, and the attack turns back on {}",
                        self.pname(q),
                        self.line_name(line),
                        self.pname(p)
                    );
                    let d = self.turn_back(q, p, amt)?;
                    if d >= 0 {
                        tuck = d;
                    }
                    continue;
                }
                tlog!(self, "{}'s trap under {} springs: a decoy", self.pname(q), self.line_name(line));
            }
            let d = self.hit_line(line, amt)?;
            if d >= 0 {
                tuck = d;
            }
        }
        if self.effective_zone(c) == Z_PLAY {
            if tuck >= 0 && self.in_kingdom(tuck as u32) {
                self.attach(c, tuck as u32);
                self.setm(c, M::Role, 3);
            } else {
                self.discard(c);
            }
        }
        Ok(())
    }

    fn turn_back(&mut self, q: usize, p: usize, amt: i64) -> R<i64> {
        if self.is_out(p) {
            return Ok(-1);
        }
        let line: i64 = if self.is_enemy(q) {
            self.enemy_best_line(p, amt)
        } else {
            let opts: Vec<Opt> = self
                .open_lines(p)
                .iter()
                .map(|&l| Opt::new(Lab::TurnOn(p as u32, q as u32, l)).line(l).owner(p).amount(amt))
                .collect();
            if opts.is_empty() {
                return Ok(-1);
            }
            let i =
                self.choose(q, &|t: &T| format!("Your trap turns {amt} damage back on {}: where?", t.pname(p)), &opts)?;
            opts[i].line
        };
        if line < 0 {
            return Ok(-1);
        }
        let line = line as u32;
        tlog!(self, "{}'s {} takes {amt} turned-back damage", self.pname(p), self.line_name(line));
        self.hit_line(line, amt)
    }
}

impl T {
    // ---- penalties ----

    fn keeps_penalty(&self, p: usize) -> bool {
        self.has_hook(p, Hook::Baligant)
    }

    fn penalty_drawn(&mut self, p: usize, c: u32) -> R<()> {
        if self.keeps_penalty(p) {
            self.tell_draws(p, &[c]);
            self.tell_kept(p, c);
            return Ok(());
        }
        self.strike(p, c)
    }

    /// A kept penalty, to its keeper alone (the script's `tell_kept`).
    fn tell_kept(&mut self, p: usize, c: u32) {
        tlog!(self, "to {}: {} keeps {} to use on a rival", self.pname(p), self.pname(p), self.name(c));
    }

    fn strike(&mut self, p: usize, c: u32) -> R<()> {
        // A penalty laid by Baligant already lies before its victim.
        if self.effective_zone(c) != status(p) {
            self.move_card(c, status(p));
        }
        tlog!(self, "{} strikes {}", self.name(c), self.pname(p));
        if self.c(p, C::Plays) > 0 {
            self.addc(p, C::Plays, -1);
        }
        if self.c(p, C::Plays) > 0 {
            let mut opts = self.lift_options(p, c);
            if !opts.is_empty() {
                let o = if self.is_enemy(p) {
                    opts[0]
                } else {
                    opts.insert(0, Opt::new(Lab::Suffer(c)));
                    let i = self.choose(p, &|t: &T| format!("{} strikes you", t.name(c)), &opts)?;
                    opts[i]
                };
                if o.card >= 0 {
                    let a = o.card as u32;
                    tlog!(self, "{} lifts {} with {}", self.pname(p), self.name(c), self.name(a));
                    self.note_play(p, a);
                    self.discard(a);
                    self.discard(c);
                    self.addc(p, C::Plays, -1);
                    self.addc(p, C::Acted, 1);
                    return Ok(());
                }
            }
        }
        match self.d(c).beh {
            Beh::Famine => {
                tlog!(self, "{} may not defend this turn, nor answer out of turn until their next turn", self.pname(p));
                self.setc(p, C::NoDefend, 1);
                self.setc(p, C::Famine, 1);
            }
            Beh::Disease => {
                tlog!(self, "{} may not attack this turn", self.pname(p));
                self.setc(p, C::NoAttack, 1);
            }
            Beh::Plague => {
                tlog!(self, "{} may play no other card this turn", self.pname(p));
                self.setc(p, C::NoPlay, 1);
            }
            _ => {}
        }
        Ok(())
    }

    fn lift_options(&self, p: usize, c: u32) -> Vec<Opt> {
        let mut opts: Vec<Opt> = Vec::new();
        let worth = if self.kw(c, K_PENALTY) && self.d(c).lasts_round == 0 && self.c(p, C::Plays) > 1 { 12 } else { 3 };
        let mut seen: Vec<&str> = Vec::new();
        for &a in self.zones[hand(p) as usize].cards.iter().rev() {
            if self.kw(a, K_CANCELS) {
                // "Lift X with <name>": one option per card name.
                let nm = self.name(a);
                if !seen.contains(&nm) {
                    seen.push(nm);
                    opts.push(Opt::new(Lab::Lift(a, c, false)).card(a).worth(worth));
                }
            }
        }
        for &a in self.zones[beside(p) as usize].cards.iter().rev() {
            if self.kw(a, K_CANCELS) {
                opts.push(Opt::new(Lab::Lift(a, c, true)).card(a).worth(worth - 2));
            }
        }
        opts
    }

    fn penalty_can_play(&self, p: usize) -> bool {
        if !self.may_play(p) || !self.keeps_penalty(p) {
            return false;
        }
        self.rival_iter(p).any(|q| self.c(q, C::Waiting) == 0)
    }

    fn penalty_play(&mut self, p: usize, c: u32) -> R<()> {
        let opts: Vec<Opt> = self
            .rivals(p)
            .into_iter()
            .filter(|&q| self.c(q, C::Waiting) == 0)
            .map(|q| Opt::new(Lab::PenaltyOn(c, q as u32)).owner(q))
            .collect();
        let q = if self.is_enemy(p) {
            opts[0].owner
        } else {
            let i = self.choose(p, &|t: &T| format!("Which rival suffers {}?", t.name(c)), &opts)?;
            opts[i].owner
        };
        self.penalty_send(p, c, q as usize)
    }

    fn penalty_send(&mut self, p: usize, c: u32, q: usize) -> R<()> {
        self.move_card(c, Z_PLAY);
        tlog!(self, "{} plays {} on {}", self.pname(p), self.name(c), self.pname(q));
        let r = self.offer_answer(q, p, c, 2)?;
        if r == Ans::Cancel {
            self.discard(c);
            return Ok(());
        }
        if r == Ans::Buy {
            return Ok(());
        }
        self.move_card(c, status(q));
        self.setm(c, M::Waiting, 1);
        self.setc(q, C::Waiting, 1);
        Ok(())
    }

    fn strike_waiting(&mut self, p: usize) -> R<()> {
        if self.c(p, C::Waiting) == 0 {
            return Ok(());
        }
        self.setc(p, C::Waiting, 0);
        for c in self.cards_of(status(p)) {
            if self.m(c, M::Waiting) == 1 {
                self.setm(c, M::Waiting, 0);
                self.strike(p, c)?;
            }
        }
        Ok(())
    }

    // ---- drawing ----

    fn hand_size(&self, p: usize) -> i64 {
        if self.c(p, C::Restarted) > 0 {
            return self.set.survival_hand;
        }
        if self.has_hook(p, Hook::Simon) && self.c(p, C::Lands) > 0 {
            return self.char_def(p).map_or(self.set.hand_size, |d| d.hand_with_land);
        }
        self.set.hand_size
    }

    /// The script's `trap_note`: what a noble makes of `p`'s trap `t`, for `p`'s eyes.
    fn trap_note(&self, p: usize, t: u32) -> &'static str {
        let printed = self.kw(t, K_REAL);
        let real = printed || self.has_hook(p, Hook::Egbert);
        if real == printed {
            ""
        } else if printed {
            " (a decoy for you)"
        } else {
            " (real for you)"
        }
    }

    fn top_up(&mut self, p: usize) -> R<()> {
        let size = self.hand_size(p);
        let mut drawn: Vec<u32> = Vec::new();
        let mut kept: Vec<u32> = Vec::new();
        while (self.count(hand(p)) as i64) < size {
            let Some(c) = self.draw(Z_DECK, hand(p)) else { break };
            self.addc(p, C::Acted, 1);
            self.addc(p, C::Drawn, 1);
            if self.kw(c, K_PENALTY) && !self.keeps_penalty(p) {
                self.tell_draws(p, &drawn);
                drawn.clear();
                self.strike(p, c)?;
                if self.is_out(p) || self.over.is_some() {
                    break;
                }
            } else {
                // A kept penalty is counted with the rest of the draw.
                drawn.push(c);
                if self.kw(c, K_PENALTY) {
                    kept.push(c);
                }
            }
        }
        self.tell_draws(p, &drawn);
        for c in kept {
            self.tell_kept(p, c);
        }
        Ok(())
    }

    /// The script's `tell_draws`: the cards to `p` (repeats folded as `names_text` does),
    /// how many to the others.
    fn tell_draws(&mut self, p: usize, drawn: &[u32]) {
        if drawn.is_empty() || self.out.is_none() {
            return;
        }
        let mut names: Vec<(&str, usize)> = Vec::new();
        for &c in drawn {
            let n = self.name(c);
            match names.iter_mut().find(|(m, _)| *m == n) {
                Some(e) => e.1 += 1,
                None => names.push((n, 1)),
            }
        }
        let list: Vec<String> =
            names.into_iter().map(|(n, k)| if k > 1 { format!("{n} ×{k}") } else { n.to_string() }).collect();
        let k = drawn.len();
        tlog!(self, "to {}: {} draws {}", self.pname(p), self.pname(p), list.join(", "));
        tlog!(self, "to others: {} draws {k} {}", self.pname(p), if k == 1 { "card" } else { "cards" });
    }

    fn fortune_draw(&mut self, p: usize, n: i64) -> R<()> {
        for i in 0..n {
            let from = if self.set.solo {
                if i % 2 == 0 {
                    Z_ATTACK_DECK
                } else {
                    Z_DEFEND_DECK
                }
            } else {
                Z_DECK
            };
            let Some(c) = self.draw(from, hand(p)) else { continue };
            if self.kw(c, K_PENALTY) {
                self.penalty_drawn(p, c)?;
            } else {
                self.tell_draws(p, &[c]);
                if self.is_enemy(p) {
                    self.enemy_use(p, c)?;
                }
            }
            if self.over.is_some() || self.is_out(p) {
                return Ok(());
            }
        }
        Ok(())
    }

    fn can_draw(&self) -> bool {
        if self.set.solo {
            self.count(Z_ATTACK_DECK) + self.count(Z_DEFEND_DECK) > 0
        } else {
            self.count(Z_DECK) > 0
        }
    }

    // ---- setup ----

    fn setup(&mut self) -> R<()> {
        let solo = self.set.solo;
        self.g_solo = Some(solo);
        tlog!(self, "set solo = {solo}");
        if solo {
            self.solo_setup()
        } else {
            self.standard_setup()
        }
    }

    fn seat_character(&self, p: usize) -> Option<u32> {
        let id = self.seats.get(p).and_then(|s| s.character.as_deref())?;
        if id.is_empty() {
            return None;
        }
        self.pack.index.get(id).map(|&i| i as u32)
    }

    fn pool_zone(&mut self, name: &str) -> u32 {
        for (i, z) in self.zones.iter().enumerate().skip(Z_PLAYERS as usize) {
            if z.owner.is_none() && z.name == name {
                return i as u32;
            }
        }
        self.zones.push(Zone { name: name.to_string().into(), owner: None, cards: Vec::new(), kingdom: false });
        (self.zones.len() - 1) as u32
    }

    fn standard_setup(&mut self) -> R<()> {
        self.create_deck("main", Z_DECK);
        self.create_deck("castles", Z_BOX);
        self.create_deck("kingdom", Z_BOX);
        let n = self.pl.len();

        let mut taken: Vec<u32> = Vec::new();
        for p in 0..n {
            let ch = match self.seat_character(p) {
                Some(d) => d,
                None => {
                    let opts: Vec<Opt> = (0..self.defs.len() as u32)
                        .filter(|&d| self.defs[d as usize].pack_kind == DefKind::Noble && !taken.contains(&d))
                        .map(|d| Opt::new(Lab::Noble(d)).card(d))
                        .collect();
                    let i = self.choose(p, &|_: &T| "Choose your noble".to_string(), &opts)?;
                    opts[i].card as u32
                }
            };
            taken.push(ch);
            self.set_character(p, ch);
            tlog!(self, "{} plays as {}", self.pname(p), self.defs[ch as usize].name);
        }

        if self.set.survival {
            let kit = self.set.survival_kit.clone();
            for id in kit.split(' ') {
                if id.is_empty() {
                    continue;
                }
                let Some(&d) = self.pack.index.get(id) else { continue };
                if let Some(c) = self.find_in(Z_DECK, d as u32) {
                    self.move_card(c, Z_KIT);
                }
            }
        }

        let mut to_deck = 0;
        for c in self.cards_of(Z_BOX) {
            if self.kw(c, K_MERCY) && to_deck < self.d(c).in_deck {
                self.move_card(c, Z_DECK);
                to_deck += 1;
            }
        }
        for p in 0..n {
            if let Some(c) = self.cards_of(Z_BOX).into_iter().find(|&c| self.kw(c, K_CASTLE)) {
                self.add_line(p, c, true);
            }
            if let Some(c) = self.cards_of(Z_BOX).into_iter().find(|&c| self.kw(c, K_MERCY)) {
                self.move_card(c, beside(p));
            }
            let b = self.set.setup_points - self.c(p, C::Defence);
            self.setc(p, C::Build, b);
        }

        for p in 0..n {
            let Some(ch) = self.pl[p].ch else { continue };
            let cards = self.defs[ch as usize].cards.clone();
            let start_kingdom = self.defs[ch as usize].start_kingdom;
            for d in cards {
                let Some(c) = self.find_in(Z_DECK, d) else { continue };
                if start_kingdom && self.kw(c, K_LINE) {
                    self.add_line(p, c, false);
                } else {
                    self.move_card(c, hand(p));
                }
            }
        }

        let mut pools: Vec<u32> = Vec::new();
        for c in self.cards_of(Z_DECK) {
            if self.kw(c, K_SETUP) {
                let defs = self.defs.clone();
                let z = self.pool_zone(&defs[self.cards[c as usize].def as usize].pool);
                if !pools.contains(&z) {
                    pools.push(z);
                }
                self.move_card(c, z);
            }
        }
        let mut low = 0;
        for p in 0..n {
            if self.noble_number(p) < self.noble_number(low) {
                low = p;
            }
        }
        let mut going = true;
        while going {
            going = false;
            for k in 0..n {
                let p = (low + k) % n;
                if self.c(p, C::Build) <= 0 {
                    continue;
                }
                let opts = self.build_options(p, &pools);
                if opts.is_empty() {
                    tlog!(self, "{} can take nothing more that fits and stops building", self.pname(p));
                    self.setc(p, C::Build, 0);
                    continue;
                }
                let left = self.c(p, C::Build);
                let i = self.choose(
                    p,
                    &|_: &T| {
                        format!(
                            "Build your kingdom: {left} {} still to take",
                            if left == 1 { "point" } else { "points" }
                        )
                    },
                    &opts,
                )?;
                let o = opts[i];
                let c = o.card as u32;
                if o.line < 0 {
                    tlog!(self, "{} builds a new {}", self.pname(p), self.name(c));
                    self.add_line(p, c, false);
                } else {
                    self.add_defence(p, c, o.line as u32);
                }
                let dv = self.d(c).defence;
                self.addc(p, C::Build, -dv);
                going = true;
            }
        }
        for &z in &pools {
            for c in self.cards_of(z) {
                self.move_card(c, Z_DECK);
            }
        }
        self.shuffle(Z_DECK);

        let mut first = 0;
        for p in 0..n {
            if self.noble_number(p) > self.noble_number(first) {
                first = p;
            }
        }
        self.set_global(0, first as i64);
        self.set_global(1, 0);
        Ok(())
    }

    fn build_options(&self, p: usize, pools: &[u32]) -> Vec<Opt> {
        let left = self.c(p, C::Build);
        let mut opts = Vec::new();
        let spots: Vec<u32> = self.lines(p).iter().copied().filter(|&l| self.m(l, M::Nd) < self.set.per_line).collect();
        let room = self.c(p, C::Lands) < self.set.max_lands;
        for &z in pools {
            let Some(&c) = self.zones[z as usize].cards.last() else { continue };
            if self.d(c).defence > left {
                continue;
            }
            if self.kw(c, K_LINE) {
                if room {
                    opts.push(Opt::new(Lab::BuildLand(c)).card(c));
                }
            } else {
                for &l in &spots {
                    opts.push(Opt::new(Lab::BuildOn(c, l)).card(c).line(l));
                }
            }
        }
        opts
    }

    // ---- the multiplayer turn ----

    fn turn_fn(&mut self) -> R<()> {
        if self.set.solo {
            return self.solo_round();
        }
        let p = self.g_current.unwrap_or(0) as usize;
        let mut passed = false;
        if !self.is_out(p) {
            passed = self.take_turn(p)?;
        }
        if self.over.is_some() {
            return Ok(());
        }
        let mut q = self.g_quiet.unwrap_or(0);
        if self.c(p, C::Acted) > 0 || (passed && self.count(Z_DECK) > 0) {
            q = 0;
        } else {
            q += 1;
        }
        self.set_global(1, q);
        if q >= self.n_alive() as i64 {
            if self.count(Z_DECK) == 0 {
                self.finish("the deck is spent and a whole round passed without a card played");
            } else {
                self.finish("a whole round passed in which nobody could play or draw a card");
            }
            return Ok(());
        }
        let nx = self.next_alive(p);
        self.set_global(0, nx as i64);
        Ok(())
    }

    /// Whether the player chose to pass (see `play_loop`).
    fn take_turn(&mut self, p: usize) -> R<bool> {
        self.begin_turn(p, self.set.plays.unwrap_or(3));
        self.top_up(p)?;
        if !self.is_out(p) && self.over.is_none() {
            self.strike_waiting(p)?;
        }
        let passed = self.play_loop(p)?;
        if !self.is_out(p) {
            self.end_turn(p);
        }
        Ok(passed)
    }

    fn begin_turn(&mut self, p: usize, plays: i64) {
        self.setc(p, C::Acted, 0);
        self.setc(p, C::Drawn, 0);
        if self.c(p, C::Famine) > 0 {
            self.setc(p, C::Famine, 0);
        }
        for c in self.cards_of(status(p)) {
            if self.kw(c, K_PENALTY) && self.m(c, M::Waiting) == 0 {
                self.discard(c);
            }
        }
        self.setc(p, C::Plays, plays);
    }

    /// Returns whether the player chose to stop while something could still be played.
    fn play_loop(&mut self, p: usize) -> R<bool> {
        let mut first = true;
        while self.c(p, C::Plays) > 0 && self.over.is_none() && !self.is_out(p) {
            let opts = self.turn_options(p);
            if opts.len() == 1 {
                if first {
                    self.stuck_discard(p)?;
                }
                break;
            }
            first = false;
            let n = self.c(p, C::Plays);
            let i = self.choose(
                p,
                &|_: &T| format!("Your turn: {n} {} left", if n == 1 { "play" } else { "plays" }),
                &opts,
            )?;
            let o = opts[i];
            if matches!(o.lab, Lab::End) {
                tlog!(
                    self,
                    "{} ends the turn with {n} {} unused",
                    self.pname(p),
                    if n == 1 { "play" } else { "plays" }
                );
                return Ok(true);
            }
            self.do_turn_option(p, o)?;
        }
        Ok(false)
    }

    fn stuck_discard(&mut self, p: usize) -> R<()> {
        if !self.may_play(p) || self.count(Z_DECK) == 0 || self.count(hand(p)) == 0 {
            return Ok(());
        }
        let mut opts: Vec<Opt> = Vec::new();
        let mut seen = Seen::default();
        for c in self.cards_of(hand(p)) {
            let d = self.cards[c as usize].def;
            if !seen.insert(d) {
                continue;
            }
            let worth = if self.kw(c, K_OUT_OF_TURN) {
                -50
            } else if self.d(c).kind == Kind::Defend {
                -self.worth(c)
            } else {
                -10
            };
            opts.push(Opt::new(Lab::Discard(c)).card(c).worth(worth));
        }
        let o = if self.is_enemy(p) {
            opts[0]
        } else {
            let i = self.choose(p, &|_: &T| "Nothing in your hand can be played: discard a card".to_string(), &opts)?;
            opts[i]
        };
        let c = o.card as u32;
        tlog!(self, "{} can play nothing and discards {}", self.pname(p), self.name(c));
        self.discard(c);
        Ok(())
    }

    fn end_turn(&mut self, p: usize) {
        if !self.set.solo {
            self.setc(p, C::Morale, 0);
            self.setc(p, C::Spread, 0);
        }
        self.setc(p, C::NoDefend, 0);
        self.setc(p, C::NoAttack, 0);
        self.setc(p, C::NoPlay, 0);
        self.setc(p, C::Plays, 0);
        let frozen = self.c(p, C::Frozen) > 0;
        for c in self.cards_of(status(p)) {
            if self.kw(c, K_PENALTY) {
                if self.m(c, M::Waiting) == 0 && self.d(c).lasts_round == 0 {
                    self.discard(c);
                }
            } else if frozen && self.kw(c, K_FREEZE) {
                tlog!(self, "{}'s army thaws", self.pname(p));
                self.discard(c);
            }
        }
        if frozen {
            self.setc(p, C::Frozen, 0);
        }
    }

    fn turn_options(&self, p: usize) -> Vec<Opt> {
        let mut opts = Vec::new();
        if self.may_play(p) {
            let mut seen = Seen::default();
            for &c in self.zones[hand(p) as usize].cards.iter().rev() {
                let d = self.cards[c as usize].def;
                if !seen.insert(d) {
                    continue;
                }
                if self.can_play(p, c) {
                    opts.push(Opt::new(Lab::PlayCard(c)).card(c));
                }
            }
            for &c in self.zones[beside(p) as usize].cards.iter().rev() {
                if self.can_play(p, c) {
                    opts.push(Opt::new(Lab::UseBeside(c)).card(c));
                }
            }
            if self.c(p, C::Mercs) > 0 && self.c(p, C::Frozen) == 0 {
                for &l in self.lines(p) {
                    for &d in &self.cards[l as usize].attached {
                        if self.m(d, M::Role) != 1 || !self.kw(d, K_MERCENARY) {
                            continue;
                        }
                        if self.may_attack(p) && self.m(d, M::Hp) == self.d(d).defence {
                            opts.push(Opt::new(Lab::Fire(d, l)).card(d).uniq());
                        }
                        if self.c(p, C::Free) - (self.set.per_line - self.m(l, M::Nd)) > 0 {
                            opts.push(Opt::new(Lab::Move(d, l)).card(d).uniq());
                        }
                    }
                }
            }
        }
        opts.push(Opt::new(Lab::End));
        opts
    }

    fn do_turn_option(&mut self, p: usize, o: Opt) -> R<()> {
        self.addc(p, C::Plays, -1);
        let c = o.card as u32;
        if let Lab::Move(..) = o.lab {
            return self.merc_move(p, c);
        }
        self.addc(p, C::Acted, 1);
        self.note_play(p, c);
        if let Lab::Fire(..) = o.lab {
            self.lift_defence(c);
            return self.make_attack(p, c, Verb::Fire, -1);
        }
        self.play(p, c)
    }

    // ---- the cards: can_play and play ----

    fn can_play(&self, p: usize, c: u32) -> bool {
        let solo_need = if self.set.solo { 1 } else { 2 };
        match self.d(c).beh {
            Beh::Attack => self.may_attack(p) && self.has_rival(p),
            Beh::Defence => self.may_defend(p) && self.c(p, C::Free) > 0,
            Beh::Land => self.may_defend(p) && self.c(p, C::Lands) < self.set.max_lands,
            Beh::Trap => self.may_defend(p) && self.c(p, C::Open) > 0,
            Beh::Merc => (self.may_defend(p) && self.c(p, C::Free) > 0) || (self.may_attack(p) && self.has_rival(p)),
            Beh::Deny | Beh::Gold | Beh::None => false,
            Beh::Mercy => {
                self.may_play(p)
                    && (self.c(p, C::Frozen) > 0
                        || (self.may_defend(p) && self.c(p, C::Lands) < self.set.max_lands)
                        || self.can_draw())
            }
            Beh::Sabotage => self.may_play(p) && self.rival_iter(p).any(|q| self.c(q, C::Traps) > 0),
            Beh::Spread => {
                self.c(p, C::Spread) == 0
                    && self.c(p, C::Plays) >= solo_need
                    && self.may_attack(p)
                    && self.has_attack_source(p, c)
            }
            Beh::Morale => {
                self.c(p, C::Morale) == 0
                    && self.c(p, C::Plays) >= solo_need
                    && self.may_attack(p)
                    && self.has_attack_source(p, c)
            }
            Beh::Mutiny => self.may_play(p) && self.rival_iter(p).any(|q| self.c(q, C::Troops) > 0),
            Beh::Earthquake => self.may_play(p) && self.has_rival(p),
            Beh::Fortune => self.may_play(p) && self.can_draw(),
            Beh::Freeze => self.may_play(p) && self.rival_iter(p).any(|q| self.c(q, C::Frozen) == 0),
            Beh::Famine | Beh::Disease | Beh::Plague => self.penalty_can_play(p),
        }
    }

    fn spots(&self, p: usize) -> Vec<u32> {
        self.lines(p).iter().copied().filter(|&l| self.m(l, M::Nd) < self.set.per_line).collect()
    }

    fn play(&mut self, p: usize, c: u32) -> R<()> {
        match self.d(c).beh {
            Beh::Attack => self.make_attack(p, c, Verb::Play, -1),
            Beh::Defence => {
                let opts: Vec<Opt> =
                    self.spots(p).into_iter().map(|l| Opt::new(Lab::Place(c, l)).card(c).line(l)).collect();
                let i = self.choose(p, &|t: &T| format!("Where does the {} go?", t.name(c)), &opts)?;
                self.add_defence(p, c, opts[i].line as u32);
                Ok(())
            }
            Beh::Land => {
                self.add_line(p, c, false);
                tlog!(self, "{} adds a {} to the kingdom", self.pname(p), self.name(c));
                Ok(())
            }
            Beh::Trap => {
                let opts: Vec<Opt> = self
                    .lines(p)
                    .iter()
                    .copied()
                    .filter(|&l| self.trap_of(l) < 0)
                    .map(|l| Opt::new(Lab::SetTrap(c, l)).card(c).line(l))
                    .collect();
                let i = self.choose(p, &|_: &T| "Where is the trap set?".to_string(), &opts)?;
                let l = opts[i].line as u32;
                self.set_trap(p, c, l);
                tlog!(self, "{} sets a trap under {}", self.pname(p), self.line_name(l));
                Ok(())
            }
            Beh::Merc => {
                let mut opts: Vec<Opt> = Vec::new();
                if self.may_defend(p) {
                    for l in self.spots(p) {
                        opts.push(Opt::new(Lab::Station(c, l)).card(c).line(l));
                    }
                }
                if self.may_attack(p) {
                    let a = self.d(c).attack;
                    if self.c(p, C::Spread) > 0 {
                        opts.push(Opt::new(Lab::SpreadAll(c)).amount(a));
                    } else {
                        opts.extend(self.target_options(p, Verb::Send, c, a));
                    }
                }
                let i = self.choose(p, &|t: &T| format!("{}: defend or attack?", t.card_label(c)), &opts)?;
                let o = opts[i];
                if let Lab::Station(..) = o.lab {
                    self.add_defence(p, c, o.line as u32);
                    Ok(())
                } else {
                    self.make_attack(p, c, Verb::Send, o.line)
                }
            }
            Beh::Mercy => self.mercy_play(p, c),
            Beh::Sabotage => {
                let mut opts: Vec<Opt> = Vec::new();
                for q in self.rivals(p) {
                    if self.c(q, C::Traps) == 0 {
                        continue;
                    }
                    for &l in self.lines(q) {
                        if self.trap_of(l) >= 0 {
                            opts.push(Opt::new(Lab::Sabotage(q as u32, l)).line(l).owner(q).worth(self.line_total(l)));
                        }
                    }
                }
                let i = self.choose(p, &|_: &T| "Which trap is sabotaged?".to_string(), &opts)?;
                let o = opts[i];
                let (q, l) = (o.owner as usize, o.line as u32);
                self.move_card(c, Z_PLAY);
                tlog!(
                    self,
                    "{} plays Sabotage on the trap under {}'s {}",
                    self.pname(p),
                    self.pname(q),
                    self.line_name(l)
                );
                let r = self.offer_answer(q, p, c, 2)?;
                if r == Ans::Through {
                    tlog!(
                        self,
                        "{} sabotages the trap under {}'s {}; it is not sprung",
                        self.pname(p),
                        self.pname(q),
                        self.line_name(l)
                    );
                    self.remove_trap(l);
                    self.discard(c);
                } else if r == Ans::Cancel {
                    self.discard(c);
                }
                Ok(())
            }
            Beh::Spread => {
                self.setc(p, C::Spread, 1);
                tlog!(self, "{} will share out the next attack", self.pname(p));
                self.discard(c);
                Ok(())
            }
            Beh::Morale => {
                self.setc(p, C::Morale, self.d(c).factor);
                tlog!(self, "{}'s troops take heart: the next attack counts double", self.pname(p));
                self.discard(c);
                Ok(())
            }
            Beh::Mutiny => {
                let opts = self.mutiny_choices(p);
                let i = self.choose(p, &|_: &T| "Mutiny: whose troops desert?".to_string(), &opts)?;
                self.strike_mutiny(p, c, opts[i])
            }
            Beh::Earthquake => {
                let opts: Vec<Opt> =
                    self.rivals(p).into_iter().map(|q| Opt::new(Lab::Shake(q as u32)).owner(q)).collect();
                let i = self.choose(p, &|_: &T| "Earthquake: whose kingdom shakes?".to_string(), &opts)?;
                self.quake(p, c, opts[i].owner as usize)
            }
            Beh::Fortune => {
                self.discard(c);
                tlog!(self, "{} draws on Fortune", self.pname(p));
                self.fortune_draw(p, self.d(c).draw)
            }
            Beh::Freeze => {
                let opts: Vec<Opt> = self
                    .rivals(p)
                    .into_iter()
                    .filter(|&q| self.c(q, C::Frozen) == 0)
                    .map(|q| Opt::new(Lab::FreezeArmy(q as u32)).owner(q))
                    .collect();
                let i = self.choose(p, &|_: &T| "Freeze: whose army?".to_string(), &opts)?;
                self.freeze(p, c, opts[i].owner as usize)
            }
            Beh::Famine | Beh::Disease | Beh::Plague => self.penalty_play(p, c),
            Beh::Deny | Beh::Gold | Beh::None => Ok(()),
        }
    }

    fn merc_move(&mut self, p: usize, c: u32) -> R<()> {
        let here = self.cards[c as usize].host;
        let opts: Vec<Opt> = self
            .spots(p)
            .into_iter()
            .filter(|&l| l != here)
            .map(|l| Opt::new(Lab::MoveTo(c, l)).card(c).line(l))
            .collect();
        let i = self.choose(p, &|t: &T| format!("Where do the {} go?", t.card_label(c)), &opts)?;
        let l = opts[i].line as u32;
        self.move_defence(c, l);
        tlog!(self, "{} moves {} to {}", self.pname(p), self.card_label(c), self.line_name(l));
        Ok(())
    }

    fn mercy_play(&mut self, p: usize, c: u32) -> R<()> {
        let mut opts: Vec<Opt> = Vec::new();
        if self.c(p, C::Frozen) > 0 {
            opts.push(Opt::new(Lab::MercyThaw).worth(30));
        }
        if self.may_defend(p) && self.c(p, C::Lands) < self.set.max_lands {
            opts.push(Opt::new(Lab::MercyLand).worth(10));
        }
        if self.can_draw() {
            opts.push(Opt::new(Lab::MercyFortune).worth(12));
        }
        let i = self.choose(p, &|_: &T| "How is the Mercy spent?".to_string(), &opts)?;
        match opts[i].lab {
            Lab::MercyThaw => {
                for f in self.cards_of(status(p)) {
                    if self.kw(f, K_FREEZE) {
                        self.discard(f);
                    }
                }
                self.setc(p, C::Frozen, 0);
                tlog!(self, "{} spends Mercy to lift the Freeze", self.pname(p));
                self.discard(c);
                Ok(())
            }
            Lab::MercyLand => {
                self.setm(c, M::Proxy, 1);
                self.add_line(p, c, false);
                tlog!(self, "{}'s Mercy stands as a proxy land", self.pname(p));
                Ok(())
            }
            _ => {
                self.discard(c);
                tlog!(self, "{} spends Mercy as a Fortune", self.pname(p));
                let n = self.pack.index.get("fortune").map_or(0, |&d| self.defs[d].draw);
                self.fortune_draw(p, n)
            }
        }
    }

    fn mutiny_choices(&self, p: usize) -> Vec<Opt> {
        let mut opts = Vec::new();
        for q in self.rivals(p) {
            if self.c(q, C::Troops) == 0 {
                continue;
            }
            for &l in self.lines(q) {
                for &d in &self.cards[l as usize].attached {
                    if self.m(d, M::Role) == 1 && self.kw(d, K_TROOPS) {
                        opts.push(
                            Opt::new(Lab::Mutiny(q as u32, d, l)).card(d).owner(q).worth(self.m(d, M::Hp)).uniq(),
                        );
                    }
                }
            }
        }
        opts
    }

    fn strike_mutiny(&mut self, p: usize, c: u32, o: Opt) -> R<()> {
        let q = o.owner as usize;
        let d = o.card as u32;
        self.move_card(c, Z_PLAY);
        if self.out.is_some() {
            let host = self.cards[d as usize].host;
            let host = if host == NONE { d } else { host };
            tlog!(
                self,
                "{} plays Mutiny on {}'s {} on {}",
                self.pname(p),
                self.pname(q),
                self.name(d),
                self.line_name(host)
            );
        }
        let r = self.offer_answer(q, p, c, 3)?;
        if r == Ans::Through {
            tlog!(self, "{}'s {} mutiny and leave", self.pname(q), self.name(d));
            self.destroy(d)?;
            self.discard(c);
        } else if r == Ans::Cancel {
            self.discard(c);
        }
        Ok(())
    }

    fn quake(&mut self, p: usize, c: u32, q: usize) -> R<()> {
        self.move_card(c, Z_PLAY);
        tlog!(self, "{} plays Earthquake on {}'s kingdom", self.pname(p), self.pname(q));
        let r = self.offer_answer(q, p, c, 3)?;
        if r == Ans::Buy {
            return Ok(());
        }
        if r == Ans::Cancel {
            self.discard(c);
            return Ok(());
        }
        tlog!(self, "The earth shakes under {}'s kingdom", self.pname(q));
        for l in self.lines(q).to_vec() {
            if self.trap_of(l) >= 0 {
                self.remove_trap(l);
            }
        }
        let dmg = self.d(c).damage;
        for l in self.open_lines(q).to_vec() {
            if self.in_kingdom(l) {
                self.hit_top(l, dmg)?;
            }
        }
        self.discard(c);
        Ok(())
    }

    fn freeze(&mut self, p: usize, c: u32, q: usize) -> R<()> {
        self.move_card(c, Z_PLAY);
        tlog!(self, "{} plays Freeze on {}'s army", self.pname(p), self.pname(q));
        let r = self.offer_answer(q, p, c, 3)?;
        if r == Ans::Buy {
            return Ok(());
        }
        if r == Ans::Cancel {
            self.discard(c);
            return Ok(());
        }
        self.move_card(c, status(q));
        self.setc(q, C::Frozen, 1);
        tlog!(self, "{}'s army is frozen until the end of their next turn", self.pname(q));
        Ok(())
    }

    // ---- solo ----

    fn solo_setup(&mut self) -> R<()> {
        for (deck, z) in
            [("solo-attack", Z_ATTACK_DECK), ("solo-defend", Z_DEFEND_DECK), ("solo-action", Z_ACTION_DECK)]
        {
            for d in 0..self.defs.len() {
                if !self.defs[d].decks.iter().any(|x| x == deck) {
                    continue;
                }
                let n = self.defs[d].solo;
                if !(0..=10_000).contains(&n) {
                    return Err(format!("create_cards: {n} copies is out of range"));
                }
                for _ in 0..n {
                    self.new_card(d as u32, z);
                }
                tlog!(self, "create {n} x {} in {}", self.defs[d].id, self.zl(z));
            }
        }
        let n = self.pl.len();
        for p in 0..n {
            let ch = self.seat_character(p).ok_or("a solo seat has no noble")?;
            self.set_character(p, ch);
            if self.seats.get(p).and_then(|s| s.values.get("enemy").copied()).unwrap_or(0) > 0 {
                self.setc(p, C::Enemy, 1);
            }
            let ids: Vec<String> = self.seats.get(p).map(|s| s.cards.clone()).unwrap_or_default();
            let mut line: Option<u32> = None;
            for id in ids {
                let d = *self.pack.index.get(&id).ok_or_else(|| format!("no definition `{id}`"))? as u32;
                let c = self.new_card(d, Z_BOX);
                tlog!(self, "create {} in {}", self.cref(c), self.zl(Z_BOX));
                if self.kw(c, K_CASTLE) {
                    self.add_line(p, c, true);
                    line = Some(c);
                } else if self.kw(c, K_LINE) {
                    self.add_line(p, c, false);
                    line = Some(c);
                } else if let Some(l) = line {
                    self.add_defence(p, c, l);
                }
            }
        }
        // Both nobles' cards go in when either of those nobles plays (the script's order:
        // nobles by id).
        let deck_card = |d: &u32| matches!(self.defs[*d as usize].kind, Kind::Attack | Kind::Action);
        let brings = (0..n).any(|p| self.pl[p].ch.is_some_and(|ch| self.defs[ch as usize].cards.iter().any(deck_card)));
        if brings {
            let nobles: Vec<u32> =
                (0..self.defs.len() as u32).filter(|&d| self.defs[d as usize].pack_kind == DefKind::Noble).collect();
            for ch in nobles {
                for d in self.defs[ch as usize].cards.clone() {
                    match self.defs[d as usize].kind {
                        Kind::Attack => self.swap_into(Z_ATTACK_DECK, d),
                        Kind::Action => self.swap_into(Z_ACTION_DECK, d),
                        _ => {}
                    }
                }
            }
        }
        self.shuffle(Z_ATTACK_DECK);
        self.shuffle(Z_DEFEND_DECK);
        self.shuffle(Z_ACTION_DECK);
        self.set_global(2, 0);
        Ok(())
    }

    fn swap_into(&mut self, deck: u32, d: u32) {
        if let Some(out) = self.defs[d as usize].replaces {
            if let Some(c) = self.find_in(deck, out) {
                let from = self.effective_zone(c);
                self.detach(c);
                tlog!(self, "remove {} from {} (out of the game)", self.cref(c), self.zl(from));
            }
        }
        let c = self.new_card(d, deck);
        tlog!(self, "create {} in {}", self.cref(c), self.zl(deck));
    }

    fn rightful_holder(&self, c: u32) -> Option<usize> {
        let d = self.cards[c as usize].def;
        self.alive().find(|&p| self.char_def(p).is_some_and(|x| x.cards.contains(&d)))
    }

    fn solo_round(&mut self) -> R<()> {
        let r = self.g_round.unwrap_or(0) + 1;
        self.set_global(2, r);
        let rounds = self.set.rounds;
        if r > rounds {
            self.finish(&format!("all {rounds} rounds played"));
            return Ok(());
        }
        let mut dealt: Vec<u32> = Vec::new();
        for z in [Z_ATTACK_DECK, Z_DEFEND_DECK, Z_ACTION_DECK] {
            if let Some(c) = self.draw(z, Z_DEALT) {
                dealt.push(c);
            }
        }
        let n = self.pl.len();
        let mut given: Vec<i64> = vec![-1; n];
        let mut rest: Vec<u32> = Vec::new();
        for c in dealt {
            match self.rightful_holder(c) {
                Some(h) if given[h] < 0 => {
                    given[h] = i64::from(c);
                    tlog!(self, "{} goes straight to {}, whose noble uses it", self.name(c), self.pname(h));
                }
                _ => rest.push(c),
            }
        }
        let seats: Vec<usize> = self.alive().filter(|&p| given[p] < 0).collect();
        if !rest.is_empty() && !seats.is_empty() {
            let opts = self.deal_options(&rest, &seats);
            let o = if opts.len() == 1 {
                opts[0]
            } else {
                let i = self.choose(0, &|_: &T| format!("Round {r} of {rounds}: share out the cards"), &opts)?;
                opts[i]
            };
            if let Lab::Deal(pm, k, _, drop) = o.lab {
                for i in 0..k as usize {
                    given[seats[i]] = i64::from(pm[i]);
                }
                if drop >= 0 {
                    tlog!(self, "{} is discarded unused", self.name(drop as u32));
                    self.discard(drop as u32);
                }
            }
        }
        for c in self.cards_of(Z_DEALT) {
            if !given.contains(&i64::from(c)) {
                self.discard(c);
            }
        }
        let mut told: Vec<String> = Vec::new();
        for (p, &g) in given.iter().enumerate() {
            if g >= 0 {
                self.move_card(g as u32, hand(p));
                if self.out.is_some() {
                    told.push(format!("{} takes {}", self.pname(p), self.card_label(g as u32)));
                }
            }
        }
        if !told.is_empty() {
            tlog!(self, "Round {r}: {}", told.join(", "));
        }
        for (p, &g) in given.iter().enumerate() {
            if self.over.is_some() {
                return Ok(());
            }
            if self.is_out(p) {
                continue;
            }
            if self.is_enemy(p) {
                self.enemy_turn(p, g)?;
            } else {
                self.solo_turn(p, g)?;
            }
        }
        Ok(())
    }

    fn deal_options(&self, cs: &[u32], seats: &[usize]) -> Vec<Opt> {
        let k = cs.len().min(seats.len()).min(3);
        let mut opts = Vec::new();
        let mut perms: Vec<Vec<u32>> = Vec::new();
        permutations(cs, k, &mut Vec::new(), &mut perms);
        for pm in perms {
            let mut drop: i32 = -1;
            for &c in cs {
                if !pm.contains(&c) {
                    drop = c as i32;
                }
            }
            let mut worth = 0;
            let mut arr = [0u32; 3];
            let mut st = [0u8; 3];
            for i in 0..k {
                arr[i] = pm[i];
                st[i] = seats[i] as u8;
                worth += self.deal_worth(seats[i], pm[i]);
            }
            opts.push(Opt::new(Lab::Deal(arr, k as u8, st, drop)).worth(worth).uniq());
        }
        opts
    }

    fn deal_worth(&self, s: usize, c: u32) -> i64 {
        let d = self.d(c);
        let v = d.attack + d.defence;
        let good = match d.kind {
            Kind::Penalty => -6,
            Kind::Attack => v * 3,
            Kind::Action => 4,
            _ => v * 2 + 1,
        };
        if s == 0 {
            good
        } else {
            -good
        }
    }

    fn solo_turn(&mut self, p: usize, c: i64) -> R<()> {
        self.begin_turn(p, self.set.plays.unwrap_or(1));
        if c >= 0 && self.kw(c as u32, K_PENALTY) {
            self.penalty_drawn(p, c as u32)?;
        }
        if !self.is_out(p) && self.over.is_none() {
            self.strike_waiting(p)?;
        }
        self.play_loop(p)?;
        if !self.is_out(p) {
            self.end_turn(p);
        }
        Ok(())
    }

    // ---- the enemy rules ----

    fn enemy_turn(&mut self, e: usize, mut c: i64) -> R<()> {
        self.begin_turn(e, 1);
        self.strike_waiting(e)?;
        if c >= 0 && self.kw(c as u32, K_PENALTY) {
            let cc = c as u32;
            if self.keeps_penalty(e) {
                if self.c(0, C::Waiting) == 0 && !self.is_out(0) {
                    self.penalty_send(e, cc, 0)?;
                } else {
                    self.discard(cc);
                }
            } else {
                self.strike(e, cc)?;
            }
            c = -1;
        }
        for h in self.cards_of(hand(e)) {
            if self.over.is_some() || self.is_out(e) {
                break;
            }
            if i64::from(h) == c || self.effective_zone(h) != hand(e) {
                continue;
            }
            if self.enemy_holds(h) {
                continue;
            }
            self.enemy_use(e, h)?;
        }
        if c >= 0 && self.over.is_none() && !self.is_out(e) && self.effective_zone(c as u32) == hand(e) {
            let cc = c as u32;
            if !self.enemy_holds(cc) {
                self.enemy_use(e, cc)?;
            }
        }
        if !self.is_out(e) {
            self.end_turn(e);
        }
        Ok(())
    }

    fn enemy_holds(&self, c: u32) -> bool {
        self.kw(c, K_OUT_OF_TURN | K_WITH_ATTACK | K_PENALTY)
    }

    fn enemy_use(&mut self, e: usize, c: u32) -> R<()> {
        if self.enemy_holds(c) || !self.may_play(e) {
            return Ok(());
        }
        self.note_play(e, c);
        self.addc(e, C::Acted, 1);
        self.enemy_play(e, c)
    }

    fn enemy_play(&mut self, e: usize, c: u32) -> R<()> {
        match self.d(c).beh {
            Beh::Attack => {
                if !self.can_play(e, c) {
                    return Ok(());
                }
                self.enemy_boost(e)?;
                self.make_attack(e, c, Verb::Play, -1)
            }
            Beh::Defence => {
                let l = self.enemy_spot(e);
                if let (Some(l), true) = (l, self.may_defend(e)) {
                    self.add_defence(e, c, l);
                } else {
                    tlog!(self, "{} has no room for {}", self.pname(e), self.name(c));
                    self.discard(c);
                }
                Ok(())
            }
            Beh::Land => {
                if self.can_play(e, c) {
                    self.play(e, c)
                } else {
                    tlog!(self, "{} has no room for {}", self.pname(e), self.name(c));
                    self.discard(c);
                    Ok(())
                }
            }
            Beh::Trap => {
                if !self.may_defend(e) {
                    self.discard(c);
                    return Ok(());
                }
                let ls = self.lines(e).to_vec();
                for &l in ls.iter().skip(1) {
                    if self.trap_of(l) < 0 {
                        self.set_trap(e, c, l);
                        return Ok(());
                    }
                }
                if let Some(&l) = ls.first() {
                    if self.trap_of(l) < 0 {
                        self.set_trap(e, c, l);
                        return Ok(());
                    }
                }
                self.discard(c);
                Ok(())
            }
            Beh::Merc => {
                let m = self.c(e, C::Morale);
                let v = self.attack_value(e, c) * if m > 0 { m } else { 1 };
                let best = if self.is_out(0) { -1 } else { self.enemy_best_line(0, v) };
                let kills = best >= 0 && self.sim_hit(best as u32, v).points > 0;
                let spot = self.enemy_spot(e);
                if self.may_attack(e) && best >= 0 && (kills || spot.is_none() || !self.may_defend(e)) {
                    self.enemy_boost(e)?;
                    self.make_attack(e, c, Verb::Send, -1)
                } else {
                    if let (Some(s), true) = (spot, self.may_defend(e)) {
                        self.add_defence(e, c, s);
                    }
                    Ok(())
                }
            }
            Beh::Spread => {
                self.setc(e, C::Spread, 1);
                self.discard(c);
                Ok(())
            }
            Beh::Morale => {
                self.setc(e, C::Morale, self.d(c).factor);
                self.discard(c);
                Ok(())
            }
            Beh::Mutiny => {
                let mut best: Option<Opt> = None;
                for o in self.mutiny_choices(e) {
                    if best.is_none_or(|b| o.worth > b.worth) {
                        best = Some(o);
                    }
                }
                match best {
                    None => {
                        self.discard(c);
                        Ok(())
                    }
                    Some(o) => self.strike_mutiny(e, c, o),
                }
            }
            Beh::Earthquake => {
                if self.is_out(0) {
                    self.discard(c);
                    return Ok(());
                }
                self.quake(e, c, 0)
            }
            Beh::Fortune => self.play(e, c),
            Beh::Freeze => {
                if self.is_out(0) || self.c(0, C::Frozen) > 0 {
                    self.discard(c);
                    return Ok(());
                }
                self.freeze(e, c, 0)
            }
            _ => Ok(()),
        }
    }

    fn enemy_best_line(&self, q: usize, v: i64) -> i64 {
        let mut best = -1;
        let mut bs = -1;
        for &l in self.open_lines(q) {
            let h = self.sim_hit(l, v);
            let mut s = if h.falls { 10000 + h.points * 10 } else { h.points * 10 + h.applied };
            if h.falls && h.castle {
                s += 100000;
            }
            if s > bs {
                best = i64::from(l);
                bs = s;
            }
        }
        best
    }

    fn enemy_spread(&self, v: i64) -> Vec<(u32, i64)> {
        let mut shares: Vec<(u32, i64)> = Vec::new();
        let mut left = v;
        let mut sorted: Vec<(u32, i64)> = Vec::new();
        for &l in self.open_lines(0) {
            let x = (l, self.line_total(l));
            let mut i = 0;
            while i < sorted.len() && sorted[i].1 <= x.1 {
                i += 1;
            }
            sorted.insert(i, x);
        }
        for &x in &sorted {
            if x.1 <= left && left > 0 {
                shares.push(x);
                left -= x.1;
            }
        }
        if left > 0 {
            let mut best: i64 = -1;
            let mut bs = -1;
            for &x in &sorted {
                if shares.iter().any(|s| s.0 == x.0) {
                    continue;
                }
                let h = self.sim_hit(x.0, left);
                let s = h.points * 10 + h.applied;
                if s > bs {
                    best = i64::from(x.0);
                    bs = s;
                }
            }
            if best >= 0 {
                shares.push((best as u32, left));
            }
        }
        shares
    }

    fn enemy_boost(&mut self, e: usize) -> R<()> {
        for h in self.cards_of(hand(e)) {
            if self.kw(h, K_WITH_ATTACK) {
                self.note_play(e, h);
                self.enemy_play(e, h)?;
            }
        }
        Ok(())
    }

    fn enemy_spot(&self, e: usize) -> Option<u32> {
        let ls = self.lines(e);
        for &l in ls.iter().skip(1) {
            if self.m(l, M::Nd) < self.set.per_line {
                return Some(l);
            }
        }
        ls.first().copied().filter(|&l| self.m(l, M::Nd) < self.set.per_line)
    }

    // ---- the greedy bot (the rules' greedy_score) ----

    fn greedy_score(&self, p: usize, o: &Opt) -> i64 {
        match o.lab {
            Lab::PlayCard(c) | Lab::UseBeside(c) => self.card_urge(c),
            Lab::Target(..) | Lab::SpreadAll(_) | Lab::Amount(..) | Lab::TurnOn(..) => {
                if o.line < 0 {
                    30 + o.amount * 5
                } else {
                    self.target_score(p, o.line as u32, o.amount)
                }
            }
            Lab::BuildLand(c) => self.d(c).defence * 10 + 4,
            Lab::BuildOn(c, _) => self.d(c).defence * 10,
            Lab::Fire(c, _) => 18 + self.d(c).attack * 5,
            Lab::Move(..) => -5,
            Lab::Station(c, l) | Lab::Place(c, l) | Lab::MoveTo(c, l) => 10 + self.d(c).defence * 2 - self.m(l, M::Nd),
            Lab::SetTrap(_, l) => {
                if self.m(l, M::Castle) == 1 {
                    5
                } else {
                    7
                }
            }
            Lab::PenaltyOn(..) | Lab::Shake(_) | Lab::FreezeArmy(_) => self.c(o.owner as usize, C::Defence),
            Lab::Answer(..)
            | Lab::Lift(..)
            | Lab::Discard(_)
            | Lab::Sabotage(..)
            | Lab::Mutiny(..)
            | Lab::Deal(..)
            | Lab::MercyThaw
            | Lab::MercyLand
            | Lab::MercyFortune => o.worth,
            Lab::Noble(_) | Lab::End | Lab::Let(_) | Lab::Suffer(_) => 0,
        }
    }

    fn card_urge(&self, c: u32) -> i64 {
        let d = self.d(c);
        match d.kind {
            Kind::Attack => 30 + d.attack * 5,
            Kind::Penalty => 40,
            Kind::Mercenary => 26 + d.attack * 2,
            Kind::Defend => {
                if d.kw & K_TRAP != 0 {
                    16
                } else {
                    18 + d.defence * 4
                }
            }
            _ => {
                if d.kw & K_WITH_ATTACK != 0 {
                    36
                } else if d.kw & K_MERCY != 0 {
                    2
                } else if d.kw & K_AGAINST != 0 {
                    24
                } else {
                    20
                }
            }
        }
    }

    fn target_score(&self, p: usize, line: u32, amt: i64) -> i64 {
        let h = self.sim_hit(line, amt);
        let q = self.owner_of(line);
        let mut s = h.points * 10 + h.applied * 2 + self.c(q, C::Defence);
        if h.falls {
            s += 30;
        }
        if h.falls && h.castle {
            s += 1000;
        }
        if q == p {
            s = -s;
        }
        if self.trap_of(line) >= 0 && q != p {
            s -= 25;
        }
        s
    }
}

/// Ordered selections of `k` cards out of `cs`, in the script's order.
fn permutations(cs: &[u32], k: usize, prefix: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
    if k == 0 {
        out.push(prefix.clone());
        return;
    }
    for i in 0..cs.len() {
        let rest: Vec<u32> = cs.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &c)| c).collect();
        prefix.push(cs[i]);
        permutations(&rest, k - 1, prefix, out);
        prefix.pop();
    }
}

/// A small set of definition indices (the kinds of card in one hand), on the stack.
#[derive(Default)]
struct Seen {
    a: [u32; 32],
    n: usize,
    more: Vec<u32>,
}

impl Seen {
    /// Whether `d` was not in the set (and is now).
    fn insert(&mut self, d: u32) -> bool {
        if self.a[..self.n].contains(&d) || self.more.contains(&d) {
            return false;
        }
        if self.n < self.a.len() {
            self.a[self.n] = d;
            self.n += 1;
        } else {
            self.more.push(d);
        }
        true
    }
}
