//! The content model: what a pack's TOML files may say, as serde types.
//!
//! Every struct is `deny_unknown_fields`, so a misspelled key is an error with a
//! "did you mean" hint rather than a silently ignored line. The same types produce
//! the JSON Schemas that `crown schema` writes.
//!
//! One [`Definition`] type serves cards, plaques, nobles and leaders of every game:
//! what differs between games is data (`kind`, `keywords`, `values`, `attrs`, `stages`),
//! never a new Rust type.
//!
//! ```
//! use crown_engine::content::model::CardFile;
//! let file: CardFile = toml::from_str(r#"
//! [[card]]
//! id = "trebuchet"
//! name = "Trebuchet"
//! kind = "attack"
//! count = 2
//! values = { attack = 4 }
//! text = "Deals 4 damage to one line of an enemy kingdom."
//! "#).unwrap();
//! assert_eq!(file.card[0].values["attack"], 4);
//! ```

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::vocabulary::{Entry, Field, FieldSpec, FieldType, ValueRange, ValueSpec, Vocabulary};

/// `pack.toml`: what the pack is and how it is played.
///
/// ```
/// use crown_engine::content::model::PackManifest;
/// let m: PackManifest = toml::from_str(r#"
/// id = "demo"
/// name = "Demo"
/// version = "0.1.0"
/// players = { min = 2, max = 4 }
/// card_size = "poker"
/// "#).unwrap();
/// assert_eq!(m.players.max, 4);
/// ```
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PackManifest {
    /// Kebab-case identifier; must equal the pack's folder name.
    pub id: String,
    /// Name shown to people.
    pub name: String,
    /// Version of the content (printed on cards and in transcripts).
    pub version: String,
    /// One paragraph about the game.
    #[serde(default)]
    pub description: String,
    /// How many players the pack supports.
    pub players: PlayerRange,
    /// The pack this one expands; its definitions are loaded first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
    /// Ids of definitions from the extended pack that this pack removes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<String>,
    /// Physical size of the cards: a name (`poker`, `us-poker`, `bridge`, `tarot`, `mini`,
    /// `square`) or millimetres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_size: Option<CardSize>,
    /// The rules script, relative to `scripts/<pack>/` (default `rules.rhai`), or a list
    /// of files read as one rules script (`["rules.rhai", "invariants.rhai"]`): every
    /// function of each is seen by all, and the first holds the rules' top-level code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<RuleFiles>,
    /// The bots' script, relative to `scripts/<pack>/` (default `bots.rhai` when there is
    /// one): the functions the bots call (`greedy_score`, `evaluate`), kept apart from the
    /// rules. It may call the rules' functions; the rules never call into it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bots: Option<String>,
    /// Icon names usable as `:name:` in rules text, mapped to an SVG file in the pack
    /// (relative to the pack folder) or to a built-in icon name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub icons: BTreeMap<String, String>,
    /// Colour (CSS) of each card kind's band when printing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub colors: BTreeMap<String, String>,
    /// How `crown print` presents the pieces (values to leave off the faces) and the print
    /// shop it makes files for.
    #[serde(default, skip_serializing_if = "PrintConfig::is_empty")]
    pub print: PrintConfig,
    /// Rules steps (turns) after which a game is stopped and reported as too long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Names of the per-player counters the terminal shows during `crown play`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub show_counters: Vec<String>,
    /// How people are told each counter's name (`vp = "victory points"`), at the terminal
    /// and in the browser; a counter not listed is shown by its key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counter_names: BTreeMap<String, String>,
    /// The values a counter may take (`coin = { min = 0 }`, `morale = { min = 0, max = 10 }`):
    /// a rule that would set it outside stops the game with an error at that call, naming
    /// the counter, the seat and the value, instead of an invariant written in a script.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counter_ranges: BTreeMap<String, CounterRange>,
    /// The card marks the table shows on a card anyone can see, each with how people are
    /// told it (`hp = "worth"` shows "worth 1" on a damaged wall in the browser).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub show_marks: BTreeMap<String, String>,
    /// Who sees the cards of each zone (`hand = "owner"`, `deck = "nobody"`, `discard =
    /// "everyone"`), by zone name; a `*` stands for any text (`"round-*-deck" =
    /// "nobody"`). The engine tells each seat only what its zones let it see, in
    /// narration, views and transcripts. A zone no entry names follows the built-in
    /// defaults (`hand`, `screen`: owner; `deck`, `box`, `bag`, `...deck`: nobody; any
    /// other: everyone), and `crown check` asks for a declaration of any other zone a
    /// script names.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub zones: BTreeMap<String, ZoneSeen>,
    /// What `crown check` should not warn about in this pack.
    #[serde(default, skip_serializing_if = "CheckConfig::is_empty")]
    pub check: CheckConfig,
    /// What definitions may carry, by kind (`card`, `plaque`, `noble`, `leader`): a key,
    /// keyword or resource the vocabulary does not list is an error at load.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vocabulary: BTreeMap<String, Vocabulary>,
    /// The `search` bot's default budget for this pack (`search:ROLLOUTS:DEPTH` overrides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchConfig>,
    /// How `crown sim` and `crown profile` play this pack when no `--agents` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim: Option<SimConfig>,
    /// The rules' settings every game starts from (`draft_size = 5`, `upkeep_bands = [4, 6]`),
    /// read by the rules script with `option(name)`: a scenario's `[options]` override them,
    /// and an expansion inherits its base pack's. Numbers the rules use belong here or on a
    /// definition, never only in a script.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, Scalar>,
    /// The phases of a round, in order (`phases = ["place", "draft", "play"]`): the names
    /// `set_phase`, `is_phase` and `next_phase` accept. An expansion inherits its base
    /// pack's unless it lists its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<String>,
    /// What the game calls its rounds, first to last (`round_names = ["round I", "round
    /// II"]`), where the engine and `round_name(n)` say "round 1", "round 2"; a round past
    /// the list is told by its number. An expansion inherits its base pack's unless it
    /// lists its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_names: Vec<String>,
}

/// `[sim]` in `pack.toml`: the bots a balance run seats when none are named.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// The bot every seat plays (`"greedy"`; default `random`): the strongest the pack can
    /// afford, so that statistics follow real play (a random player ranks cards otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<String>,
}

/// `[search]` in `pack.toml`: how hard the `search` bot looks ahead by default.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SearchConfig {
    /// Rollouts per decision (1 to 100000; default 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollouts: Option<u32>,
    /// Turns each rollout plays before the rules' `evaluate(p)` (or the scores) rank the
    /// seats (1 to 100000); left out, rollouts play to the end of the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// How the seats play in a rollout: `random` (the default) or `greedy` (the rules'
    /// `greedy_score`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<SearchPolicy>,
    /// How much better (in hundredths of the 0-to-1 value of a rollout, 0 to 100) another
    /// option's rollouts must do on average before the bot plays it rather than the option
    /// the rules' `greedy_score` ranks first (default 0: the best mean is played). A prior
    /// for packs whose evaluation after a few turns is a rougher guide than their heuristic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<u32>,
    /// How many of the options the rules' `greedy_score` ranks best are searched (2 to
    /// 1000; default: a quarter of the rollouts, at least 2). A budget in rollouts is
    /// shared among them; with rollouts that show no luck (see the designer's guide) a
    /// wider search costs little more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<u32>,
}

/// A rollout policy of the `search` bot.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SearchPolicy {
    Random,
    Greedy,
}

/// `rules` in `pack.toml`: one file, or several read as one script.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum RuleFiles {
    One(String),
    Several(Vec<String>),
}

impl PackManifest {
    /// What the game calls round `n` (from 1): its entry in `round_names`, else "round n".
    pub fn round_name(&self, n: i64) -> String {
        usize::try_from(n)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.round_names.get(i))
            .cloned()
            .unwrap_or_else(|| format!("round {n}"))
    }
}

impl RuleFiles {
    /// The files, in the order given (the first holds the rules' top-level code).
    pub fn files(&self) -> Vec<&str> {
        match self {
            RuleFiles::One(f) => vec![f.as_str()],
            RuleFiles::Several(fs) => fs.iter().map(String::as_str).collect(),
        }
    }
}

/// By hand: a path, or a non-empty list of paths, each with its own error.
impl<'de> Deserialize<'de> for RuleFiles {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RuleFiles;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a script path (`\"rules.rhai\"`) or a list of them (`[\"rules.rhai\", \"invariants.rhai\"]`)",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RuleFiles, E> {
                Ok(RuleFiles::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<RuleFiles, A::Error> {
                let mut files = Vec::new();
                while let Some(x) = seq.next_element::<String>()? {
                    files.push(x);
                }
                if files.is_empty() {
                    return Err(serde::de::Error::custom(
                        "list at least one rules file (or leave `rules` out for `rules.rhai`)",
                    ));
                }
                Ok(RuleFiles::Several(files))
            }
        }
        d.deserialize_any(V)
    }
}

/// `[print]` in `pack.toml`: how printed faces present the pieces. An expansion inherits
/// it from the pack it extends, adding its own.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrintConfig {
    /// Values the rules read that no player needs to see (`solo = 2`, a count for the
    /// scripts, say): left off every printed face. Scripts still read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hide_values: Vec<String>,
    /// The print-on-demand shop the pack's cards are made for (`tgc`, `mpc` or
    /// `drivethru`): `crown print` then writes what that shop takes (card size, bleed,
    /// safe zone, resolution, files), as `--shop` does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shop: Option<Shop>,
    /// The side of one square of a tile, in millimetres (40 when not given): a domino of
    /// two squares side by side prints 80 x 40 mm, and board sheets draw their squares at
    /// this size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 10, max = 200))]
    pub tile_square_mm: Option<f64>,
}

/// The side of a tile's square when `[print] tile_square_mm` does not give it.
pub const DEFAULT_TILE_SQUARE_MM: f64 = 40.0;

impl PrintConfig {
    pub fn is_empty(&self) -> bool {
        self.hide_values.is_empty() && self.shop.is_none() && self.tile_square_mm.is_none()
    }

    /// The side of a tile's square in millimetres: `tile_square_mm`, else 40.
    pub fn tile_square(&self) -> f64 {
        self.tile_square_mm.unwrap_or(DEFAULT_TILE_SQUARE_MM)
    }
}

/// A print-on-demand shop whose published card specifications `crown print` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
pub enum Shop {
    /// The Game Crafter: a PNG per face, 300 dpi, 1/8 in bleed.
    #[serde(rename = "tgc")]
    Tgc,
    /// MakePlayingCards: a PNG per face, 300 dpi, 36 px of bleed.
    #[serde(rename = "mpc")]
    Mpc,
    /// DriveThruCards: one PDF per deck, one card a page, 1/8 in bleed.
    #[serde(rename = "drivethru")]
    Drivethru,
}

impl Shop {
    pub const ALL: [Shop; 3] = [Shop::Tgc, Shop::Mpc, Shop::Drivethru];

    /// The name `--shop` and `[print] shop` take.
    pub fn as_str(self) -> &'static str {
        match self {
            Shop::Tgc => "tgc",
            Shop::Mpc => "mpc",
            Shop::Drivethru => "drivethru",
        }
    }
}

/// `[check]` in `pack.toml`: warnings the designer has looked at and accepts.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// Warnings to leave out, by code (as `crown check` prints it, e.g. `unknown-attr`):
    /// the names they may concern (a key or name a script spells out, e.g. an attribute
    /// that only packs extending this one define), or `["*"]` for every warning of that
    /// code. Errors cannot be silenced, but the names a name check's code lists count as
    /// declared (see docs/diagnostics.md).
    #[serde(default)]
    pub allow: BTreeMap<String, Vec<String>>,
}

impl CheckConfig {
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty()
    }

    /// Whether a warning of `code` about `name` (if it concerns one) is allowed.
    pub fn allows(&self, code: &str, name: Option<&str>) -> bool {
        self.allow.get(code).is_some_and(|names| names.iter().any(|n| n == "*" || Some(n.as_str()) == name))
    }
}

/// Who sees the cards of a zone (pack.toml's `[zones]`).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ZoneSeen {
    /// The zone's owner only (a hand).
    Owner,
    /// Every seat (a discard pile, the table).
    Everyone,
    /// No seat, only how many cards it holds (a deck, a bag, cards set aside face down).
    Nobody,
}

/// A range of player counts.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PlayerRange {
    pub min: i64,
    pub max: i64,
}

/// A card size: a standard name or explicit millimetres.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum CardSize {
    /// `poker` (63x88), `us-poker` (63.5x88.9), `bridge` (56x88), `tarot` (70x120), `mini`
    /// (44x63), `square` (70x70).
    Named(String),
    /// Explicit size in millimetres.
    Mm { width_mm: f64, height_mm: f64 },
}

/// A file of cards (`cards/*.toml`): any number of `[[card]]` tables.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct CardFile {
    #[serde(default)]
    pub card: Vec<Definition>,
    /// Cards made as a product of lists (`[[product]]`): lists of items, and a
    /// `[product.card]` template whose texts name them (`"{suit.name}"`). See "Decks as
    /// products" in the designer's guide.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub product: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// `plaques.toml`: action plaques (market tiles), each usually with a `back` side.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct PlaqueFile {
    #[serde(default)]
    pub plaque: Vec<Definition>,
    /// Plaques made as a product of lists (`[[product]]`): lists of items, and a
    /// `[product.plaque]` template whose texts name them (`"{suit.name}"`). See "Decks as
    /// products" in the designer's guide.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub product: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// `nobles.toml`: player characters with a number and an ability.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct NobleFile {
    #[serde(default)]
    pub noble: Vec<Definition>,
    /// Nobles made as a product of lists (`[[product]]`): lists of items, and a
    /// `[product.noble]` template whose texts name them (`"{suit.name}"`). See "Decks as
    /// products" in the designer's guide.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub product: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// `leaders.toml`: player characters with statistics and their own cards.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct LeaderFile {
    #[serde(default)]
    pub leader: Vec<Definition>,
    /// Leaders made as a product of lists (`[[product]]`): lists of items, and a
    /// `[product.leader]` template whose texts name them (`"{suit.name}"`). See "Decks as
    /// products" in the designer's guide.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub product: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// One card, plaque, noble or leader.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    /// Unique id across the whole pack (and the packs it extends), kebab-case.
    #[schemars(regex(pattern = r"^[a-z0-9_-]{1,64}$"))]
    pub id: String,
    /// Printed name.
    pub name: String,
    /// The kind (`attack`, `defend`, `action`, `penalty`, `hero`...), which picks the print template and colour.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Keywords the rules and scripts test for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Copies in the game (default 1 for characters and plaques, 1 for cards).
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 10_000))]
    pub count: i64,
    /// Named numbers: attack, defence, strength, initiative, production...
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, i64>,
    /// What it costs to play or buy, by resource.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cost: BTreeMap<String, i64>,
    /// Rules text in the designer's own words; `:icon:` markup allowed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Flavour text, printed in italics.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub flavor: String,
    /// Art image, relative to the pack folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub art: Option<String>,
    /// Script implementing the effects, relative to `scripts/<pack>/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// Functions the script must define (`on_play`, `modify_attack`...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<String>,
    /// Named text attributes: faction, region, allegiance, icon...
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    /// What it does, as structured entries whose fields `[vocabulary.<kind>.effects]`
    /// declares (`effects = [{ kind = "activated", ... }]`); read with `effects(c)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Entry>,
    /// Cards this definition brings along (a noble's starting cards, a leader's cards).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<String>,
    /// Named decks this card is shuffled into (`main`, `solo-attack`, `round-1`...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<String>,
    /// Serial number (discovery order in legacy games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<i64>,
    /// A tile covering several squares, each with its terrain (a domino: two cells): laid
    /// on a board with `place_tile`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<TileCell>,
    /// Up to four stages of a card that rotates and flips.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<Stage>,
    /// The other side of a two-sided piece (a plaque's 2-player side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<Face>,
    /// In an expansion: replace the definition of the same id from the extended pack.
    #[serde(default, rename = "override", skip_serializing_if = "std::ops::Not::not")]
    pub replaces: bool,
}

fn one() -> i64 {
    1
}

/// Where a stage sits on a card: which side is up and which edge is at the top.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum StagePosition {
    FrontTop,
    FrontBottom,
    BackTop,
    BackBottom,
}

impl StagePosition {
    pub const ALL: [StagePosition; 4] =
        [StagePosition::FrontTop, StagePosition::FrontBottom, StagePosition::BackTop, StagePosition::BackBottom];

    pub fn as_str(self) -> &'static str {
        match self {
            StagePosition::FrontTop => "front-top",
            StagePosition::FrontBottom => "front-bottom",
            StagePosition::BackTop => "back-top",
            StagePosition::BackBottom => "back-bottom",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }

    pub fn is_front(self) -> bool {
        matches!(self, StagePosition::FrontTop | StagePosition::FrontBottom)
    }

    /// How a card turns to go from `self` to `to`: `rotate` (same side), `flip` (other side).
    pub fn turn_to(self, to: StagePosition) -> &'static str {
        if self == to {
            "none"
        } else if self.is_front() == to.is_front() {
            "rotate"
        } else {
            "flip"
        }
    }
}

/// One stage of a multi-stage card.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    pub position: StagePosition,
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Named numbers of this stage: fame, production per resource...
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, i64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Named text attributes of this stage.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    /// The effects of this stage (see `Definition::effects`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Entry>,
    /// Checkboxes printed on this stage (each with an optional icon or resource).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkboxes: Vec<String>,
    /// Upgrades printed on this stage: their cost and the stage they turn the card to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upgrades: Vec<Upgrade>,
}

/// An upgrade box: pay `cost`, turn the card to stage `to`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Upgrade {
    #[serde(default)]
    pub cost: BTreeMap<String, i64>,
    pub to: StagePosition,
}

/// The other face of a two-sided piece.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Face {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, i64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cost: BTreeMap<String, i64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    /// The effects of this side (see `Definition::effects`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Entry>,
}

/// `scenarios/<id>.toml`: one way to set up and play the pack.
///
/// ```
/// use crown_engine::content::model::Scenario;
/// let s: Scenario = toml::from_str(r#"
/// id = "solo-easy"
/// name = "Solo, easy"
/// players = { min = 1, max = 1 }
/// options = { mode = "solo", rounds = 18 }
/// [[seat]]
/// character = "egbert"
/// cards = ["castle", "land"]
/// "#).unwrap();
/// assert_eq!(s.seat[0].cards.len(), 2);
/// ```
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[schemars(regex(pattern = r"^[a-z0-9_-]{1,64}$"))]
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Player counts this scenario allows (default: the pack's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<PlayerRange>,
    /// Settings the rules script reads with `option(name)`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, Scalar>,
    /// Fixed seats, in order: their character and starting cards.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat: Vec<Seat>,
    /// Whether this is the scenario used when none is named.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
}

/// A seat fixed by a scenario.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    /// Label shown for the seat (`You`, `Enemy 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The noble or leader id for this seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character: Option<String>,
    /// Card ids this seat starts with (its starting kingdom, say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<String>,
    /// The agent a bot game uses for this seat by default (`scripted-enemy`, `random`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Named numbers for the seat.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, i64>,
}

/// A setting: integer, boolean, string, a list of integers (a table of bands or steps), or
/// a list of words (an order of suits, the names of the rounds).
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(untagged)]
pub enum Scalar {
    Int(i64),
    Bool(bool),
    Str(String),
    Ints(Vec<i64>),
    Words(Vec<String>),
}

/// An item of a list setting.
#[derive(Deserialize)]
#[serde(untagged)]
enum Item {
    Int(i64),
    Word(String),
}

/// By hand, for an error that says what a setting may be (an untagged enum's error names
/// only the enum).
impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a setting: a whole number, true or false, a word, or a list of whole numbers or of words")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Scalar, E> {
                i64::try_from(v).map(Scalar::Int).map_err(|_| E::custom(format!("{v} is too large for a setting")))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Str(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                let (mut ints, mut words) = (Vec::new(), Vec::new());
                while let Some(x) = seq.next_element::<Item>()? {
                    match x {
                        Item::Int(i) => ints.push(i),
                        Item::Word(w) => words.push(w),
                    }
                }
                match (ints.is_empty(), words.is_empty()) {
                    (_, true) => Ok(Scalar::Ints(ints)),
                    (true, false) => Ok(Scalar::Words(words)),
                    (false, false) => {
                        Err(serde::de::Error::custom("a list setting holds whole numbers or words, not both"))
                    }
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl std::fmt::Display for Scalar {
    /// As a designer writes it in a sentence: `5`, `yes`, `deal`, `4, 6`, `clubs, hearts`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Bool(b) => f.write_str(if *b { "yes" } else { "no" }),
            Scalar::Str(s) => f.write_str(s),
            Scalar::Ints(v) => {
                let parts: Vec<String> = v.iter().map(i64::to_string).collect();
                f.write_str(&parts.join(", "))
            }
            Scalar::Words(v) => f.write_str(&v.join(", ")),
        }
    }
}

/// `board.toml`: the spaces of the board, their adjacency, and the limited supplies.
///
/// ```
/// use crown_engine::content::model::BoardFile;
/// let b: BoardFile = toml::from_str(r#"
/// [[space]]
/// id = "wessex"
/// name = "Wessex"
/// adjacent = ["mercia"]
/// [[space]]
/// id = "mercia"
/// name = "Mercia"
/// [[supply]]
/// id = "danes"
/// count = 20
/// "#).unwrap();
/// assert_eq!(b.space.len(), 2);
/// ```
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct BoardFile {
    /// A rectangular grid; its tiles become spaces named `x,y` (0-based, x to the right, y down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<Grid>,
    /// Named spaces (regions) and their adjacency (adjacency is made symmetric).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub space: Vec<SpaceDef>,
    /// Limited supplies of pieces or resources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supply: Vec<SupplyDef>,
    /// Kinds of board besides the map: one shared, or one for every seat (a kingdom each),
    /// on which tiles are laid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub board: Vec<BoardKind>,
}

/// A kind of board (`[[board]]`): a grid of empty squares, shared or one for each seat.
///
/// ```
/// use crown_engine::content::model::BoardFile;
/// let b: BoardFile = toml::from_str(r#"
/// [[board]]
/// id = "kingdom"
/// name = "Kingdom"
/// per_seat = true
/// width = 5
/// height = 5
/// grows = true
/// start = { terrain = "castle" }
/// "#).unwrap();
/// assert!(b.board[0].per_seat && b.board[0].grows);
/// ```
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct BoardKind {
    #[schemars(regex(pattern = r"^[a-z0-9_-]{1,64}$"))]
    pub id: String,
    /// What people call it ("Kingdom"): "Ann's kingdom".
    pub name: String,
    /// One board for each seat (else one, shared).
    #[serde(default)]
    pub per_seat: bool,
    /// Its size in squares; a board that grows may be laid in any direction from its start
    /// as long as what is laid fits in `width` by `height`.
    #[schemars(range(min = 1, max = 32))]
    pub width: i64,
    #[schemars(range(min = 1, max = 32))]
    pub height: i64,
    /// Tiles are laid outward from the start square, and what is laid must fit in `width`
    /// by `height` (the board is kept as a grid of `2 * width - 1` by `2 * height - 1` with
    /// the start in the middle).
    #[serde(default)]
    pub grows: bool,
    /// A square filled at setup (a castle): where it is (default: the middle) and what it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<StartSquare>,
}

/// The square of a board filled at setup.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct StartSquare {
    /// Column and row from 0 (of the board as kept: a growing board's middle is
    /// `width - 1, height - 1`); the middle when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i64>,
    /// Its `terrain` attribute.
    pub terrain: String,
}

/// One square of a tile (`cells` of a definition): where it lies in the tile as printed
/// (x to the right, y down, from 0) and what it gives the board square it covers.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct TileCell {
    #[serde(default)]
    #[schemars(range(min = 0, max = 7))]
    pub x: i64,
    #[serde(default)]
    #[schemars(range(min = 0, max = 7))]
    pub y: i64,
    /// The square's `terrain` attribute once the tile is laid.
    pub terrain: String,
    /// Named numbers the square takes (`crowns`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, i64>,
}

/// A grid board described row by row with a one-character legend.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    pub width: i64,
    pub height: i64,
    /// One string per row, one legend character per tile.
    pub rows: Vec<String>,
    /// What each character means: the tile's terrain (becomes its `terrain` attribute).
    pub legend: BTreeMap<String, String>,
}

/// A named space on the board.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct SpaceDef {
    #[schemars(regex(pattern = r"^[a-z0-9_,-]{1,64}$"))]
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adjacent: Vec<String>,
    /// Neighbours joined by a link that carries data: adjacent as `adjacent` makes them
    /// (both ways), with the link's `attrs` for the rules to read (`link_attr`) and the map
    /// to draw (a sea route dashed, in the colour of its `kind`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkDef>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, i64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    /// Pieces placed here at setup, by supply id and number.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pieces: BTreeMap<String, i64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Where the drawn map shows the space, as `[column, row]` in the `[grid]`'s squares
    /// (it may lie outside the grid: `[1, -1]` is above the top row). Only drawings read it:
    /// it gives the space no neighbours. Without it, a space joined by `adjacent` is laid
    /// out from its links and one with neither stands in a row beneath the map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<[i64; 2]>,
}

impl SpaceDef {
    /// The columns and rows a space may be drawn at (`at`): the largest grid and a margin
    /// around it. `check` warns of a place outside; the maps lay such a space out as if it
    /// had no `at`.
    pub const DRAWN_WITHIN: std::ops::RangeInclusive<i64> = -16..=80;

    /// `at`, where it lies within [`SpaceDef::DRAWN_WITHIN`].
    pub fn drawn_at(&self) -> Option<[i64; 2]> {
        self.at.filter(|a| a.iter().all(|n| Self::DRAWN_WITHIN.contains(n)))
    }
}

/// The values a counter may take: `min` and `max`, either or both (`counter_ranges` in
/// pack.toml).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct CounterRange {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
}

impl CounterRange {
    /// How the range reads in a message: "from 0", "up to 10", "from 0 to 10".
    pub fn words(&self) -> String {
        match (self.min, self.max) {
            (Some(a), Some(b)) => format!("from {a} to {b}"),
            (Some(a), None) => format!("from {a}"),
            (None, Some(b)) => format!("up to {b}"),
            (None, None) => "any value".into(),
        }
    }

    /// Whether `v` lies in the range.
    pub fn holds(&self, v: i64) -> bool {
        self.min.is_none_or(|a| v >= a) && self.max.is_none_or(|b| v <= b)
    }
}

/// A link from a space to a neighbour that carries data: `{ to = "ravenscar", attrs = {
/// kind = "sea" } }`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct LinkDef {
    /// The neighbour's id.
    pub to: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
}

/// A limited supply of pieces or resources.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct SupplyDef {
    #[schemars(regex(pattern = r"^[a-z0-9_-]{1,64}$"))]
    pub id: String,
    /// What people call the pieces (`"Danes"`, `"Peace tokens"`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// What people call one of them (`"Dane"`), when `name` is not that word made plural
    /// by English rules: `count_pieces(1, "danes")` says "1 Dane", `count_pieces(3,
    /// "danes")` "3 Danes".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub one: String,
    #[schemars(range(min = 0, max = 100_000))]
    pub count: i64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
}
