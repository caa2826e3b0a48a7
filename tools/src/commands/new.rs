//! `crown new`: scaffold a small but playable pack, a card skeleton, or a pack's own copy
//! of the print templates. Never overwrites.

use crown_engine::diag::plural;
use std::path::Path;

use crown_engine::load::{load_pack, LoadOptions, Project};

use crate::out;
use crate::out::{Done, Failure};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum NewArgs {
    /// A new, playable pack with a few cards, a rules script and a golden game.
    Pack {
        /// The pack id (lowercase, digits, `-`).
        name: String,
    },
    /// A new card skeleton in an existing pack.
    Card {
        /// The pack, by id or path.
        pack: String,
        /// The new card's id.
        id: String,
        /// The card kind.
        #[arg(long, default_value = "action")]
        kind: String,
    },
    /// Copy the print templates the pack uses (built in, or from the pack it extends) into
    /// its templates/ folder, to edit. Files already there are kept.
    Templates {
        /// The pack, by id or path.
        pack: String,
        /// Only these templates (names, comma-separated, e.g. card-front.svg,macros.svg).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
    },
}

pub fn run(project: &Project, args: &NewArgs) -> Done {
    match args {
        NewArgs::Pack { name } => new_pack(project, name),
        NewArgs::Card { pack, id, kind } => new_card(project, pack, id, kind),
        NewArgs::Templates { pack, only } => new_templates(project, pack, only),
    }
}

fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn new_pack(project: &Project, name: &str) -> Done {
    if !valid_id(name) {
        return Err(Failure::new(
            2,
            format!("`{}` is not a valid pack id (lowercase letters, digits, `-` and `_`)", out::shown(name)),
        ));
    }
    let dir = project.pack_dir(name);
    if dir.exists() {
        return Err(Failure::error(format!("{} already exists; nothing was written", dir.display())));
    }
    let title = title_case(name);
    let files: Vec<(std::path::PathBuf, String)> = vec![
        (dir.join("pack.toml"), PACK.replace("{id}", name).replace("{name}", &title)),
        (dir.join("cards").join("cards.toml"), CARDS.to_string()),
        (dir.join("scenarios").join("standard.toml"), SCENARIO.to_string()),
        (dir.join("rules.md"), RULES_MD.replace("{name}", &title)),
        (project.scripts_dir(name).join("rules.rhai"), RULES.to_string()),
        (project.scripts_dir(name).join("bots.rhai"), BOTS.to_string()),
        (project.scripts_dir(name).join("cards").join("double.rhai"), DOUBLE.to_string()),
        (project.golden_dir(name).join("README.md"), GOLDEN_README.replace("{id}", name)),
    ];
    for (path, text) in &files {
        match out::write_new(&project.root, path, text) {
            Ok(true) => println!("created {}", rel(project, path)),
            Ok(false) => println!("kept    {} (already exists)", rel(project, path)),
            Err(e) => {
                return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
            }
        }
    }
    let loaded = load_pack(project, name, LoadOptions::default());
    let Some(pack) = loaded.pack else {
        out::print_diagnostics(&loaded.diagnostics, &loaded.sources);
        return Err(Failure::told(1));
    };
    // A first golden game, recorded from the new pack, so `crown test` has something to
    // guard from the start.
    let game = project.golden_dir(name).join("first.game.toml");
    let pack = std::sync::Arc::new(pack);
    let kinds = vec!["greedy".to_string(), "random".to_string()];
    match crate::golden::record(&pack, 1, 2, None, kinds, "Two bots play the scaffolded pack to its end.") {
        Ok((file, transcript)) => {
            let tpath = crate::golden::transcript_path(&game);
            for (path, text) in [(&game, file.to_toml()), (&tpath, transcript)] {
                match out::write_new(&project.root, path, &text) {
                    Ok(true) => println!("created {}", rel(project, path)),
                    Ok(false) => println!("kept    {} (already exists)", rel(project, path)),
                    Err(e) => {
                        return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
                    }
                }
            }
        }
        Err((code, e)) => {
            eprintln!("error: recording the first golden game: {e}");
            return Err(Failure::told(code));
        }
    }
    println!("\nNext: `crown check {name}`, `crown play {name}`, `crown sim {name} --games 1000`,");
    println!("`crown test {name}` (replays tests/golden/{name}/first.game.toml; record more with `crown record`).");
    Ok(())
}

fn new_card(project: &Project, pack: &str, id: &str, kind: &str) -> Done {
    let (proj, pack_id) = match project.resolve(pack) {
        Ok(x) => x,
        Err(d) => {
            eprintln!("{d}");
            return Err(Failure::told(2));
        }
    };
    if !valid_id(id) {
        return Err(Failure::new(
            2,
            format!("`{}` is not a valid card id (lowercase letters, digits, `-` and `_`)", out::shown(id)),
        ));
    }
    // The kind is written into the card file as it is: only a plain word may go there.
    if !valid_id(kind) {
        return Err(Failure::new(
            2,
            format!("`{}` is not a valid card kind (lowercase letters, digits, `-` and `_`)", out::shown(kind)),
        ));
    }
    let loaded = load_pack(&proj, &pack_id, LoadOptions { compile_scripts: false });
    if let Some(p) = &loaded.pack {
        if let Some(d) = p.get(id) {
            return Err(Failure::new(
                1,
                format!("`{id}` already exists in {}; nothing was written", d.origin.file.display()),
            ));
        }
    }
    let path = proj.pack_dir(&pack_id).join("cards").join(format!("{id}.toml"));
    let text = CARD.replace("{id}", id).replace("{name}", &title_case(id)).replace("{kind}", kind);
    match out::write_new(&proj.root, &path, &text) {
        Ok(true) => {
            println!("created {}", rel(&proj, &path));
            Ok(())
        }
        Ok(false) => Err(Failure::error(format!("{} already exists; nothing was written", path.display()))),
        Err(e) => Err(Failure::error(format!("cannot write {}: {e}", path.display()))),
    }
}

/// Copy every template the pack uses (or those of `only`) into its `templates/` folder:
/// the built-in ones, or a base pack's own where the pack extends one that has them.
fn new_templates(project: &Project, pack: &str, only: &[String]) -> Done {
    let (proj, pack_id) = match project.resolve(pack) {
        Ok(x) => x,
        Err(d) => {
            eprintln!("{d}");
            return Err(Failure::told(2));
        }
    };
    let loaded = crate::print::load_for_print(&proj, &pack_id);
    let Some(pack) = loaded.pack else {
        out::print_diagnostics(&loaded.diagnostics, &loaded.sources);
        eprintln!("{pack_id}: fix the pack first (see `crown check {pack_id}`)");
        return Err(Failure::told(1));
    };
    let (sources, diags) = crate::print::templates::sources(&pack);
    if diags.iter().any(|d| d.is_error()) {
        out::print_diagnostics(&diags, &pack.sources);
        return Err(Failure::told(1));
    }
    for name in only {
        if !sources.contains_key(name) {
            let hint = crown_engine::diag::did_you_mean(name, sources.keys().map(String::as_str))
                .map(|n| format!(" (did you mean `{n}`?)"))
                .unwrap_or_default();
            return Err(Failure::new(
                2,
                format!(
                    "there is no template `{name}`{hint}; templates: {}",
                    sources.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    let dir = proj.pack_dir(&pack_id).join("templates");
    let own = std::path::PathBuf::from("content").join(&pack_id).join("templates");
    let (mut created, mut kept) = (0, 0);
    for (name, (text, origin)) in &sources {
        if !only.is_empty() && !only.contains(name) {
            continue;
        }
        let path = dir.join(name);
        let from = match origin {
            crate::print::templates::Origin::Pack(p) if p.starts_with(&own) => {
                println!("kept    {} (the pack's own)", rel(&proj, &path));
                kept += 1;
                continue;
            }
            crate::print::templates::Origin::Pack(p) => format!("from {}", p.display()),
            crate::print::templates::Origin::Builtin => "built in".to_string(),
        };
        match out::write_new(&proj.root, &path, text) {
            Ok(true) => {
                println!("created {} ({from})", rel(&proj, &path));
                created += 1;
            }
            Ok(false) => {
                println!("kept    {} (already exists)", rel(&proj, &path));
                kept += 1;
            }
            Err(e) => {
                return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
            }
        }
    }
    println!(
        "\n{created} template{} written, {kept} kept. Edit them, then `crown print {pack_id}`; delete the ones you",
        plural(created)
    );
    println!("leave unchanged, so that they keep following Crown's built-in ones.");
    Ok(())
}

fn rel(project: &Project, p: &Path) -> String {
    p.strip_prefix(&project.root).unwrap_or(p).display().to_string()
}

fn title_case(id: &str) -> String {
    id.split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const PACK: &str = r#"#:schema ../../docs/schema/pack.schema.json
# The pack: what it is, how many play, how big its cards are.
id = "{id}"
name = "{name}"
version = "0.1.0"
description = "A small race to 15 points: draw, play a card, score it."
players = { min = 2, max = 4 }
card_size = "poker"
max_turns = 200
show_counters = ["points"]
"#;

const CARDS: &str = r#"#:schema ../../../docs/schema/cards.schema.json
# Every card of the deck. `count` is the number of copies; `values.points` is what it scores.

[[card]]
id = "coin"
name = "Coin"
kind = "treasure"
count = 8
values = { points = 1 }
text = "Score 1 point."
decks = ["main"]

[[card]]
id = "chest"
name = "Chest"
kind = "treasure"
count = 4
values = { points = 3 }
text = "Score 3 points."
decks = ["main"]

[[card]]
id = "double"
name = "Double"
kind = "action"
count = 2
values = { points = 0 }
text = "Your next card this game scores twice."
decks = ["main"]
script = "cards/double.rhai"
hooks = ["on_play"]
"#;

const SCENARIO: &str = r#"#:schema ../../../docs/schema/scenario.schema.json
id = "standard"
name = "Standard game"
text = "First to 15 points wins; when the deck runs out, the highest score wins."
default = true
options = { target = 15, hand = 3 }
"#;

const RULES_MD: &str = r#"<!-- The rules of {name}, for `crown reference`. Placeholders ({{ ... }}) bring in
     what the cards and scenarios say: see "The rules reference" in Crown's designer's guide. -->
# Setup

Shuffle the {{ total }} cards into one deck and deal {{ option hand }} to each player.

# A turn

Play one card from your hand: it scores its points (after a [[double]], your next scoring
card counts twice). Then draw a card.

# End of the game and scoring

The first player to reach {{ option target }} points wins at once. When a player has no
card left to play, the game ends and the highest score wins; tied players share the win.

# The cards

{{ cards as="table" values="points" }}
"#;

const BOTS: &str = r#"// How the bots play, apart from the rules: the `greedy` bot takes the option that
// greedy_score ranks highest. This file may call the rules' functions; the rules never
// call into it.

// The greedy bot plays its most valuable card.
fn greedy_score(p, prompt, option) {
    value(option.card, "points")
}
"#;

const RULES: &str = r#"// Rules of the game. The engine calls setup() once, then turn() until end_game().

fn setup() {
    let deck = zone("deck");
    create_deck("main", deck);
    shuffle(deck);
    for p in 0..players() {
        for i in 0..option("hand") {
            draw(deck, pzone(p, "hand"));
        }
    }
    set_current(0);
}

fn turn() {
    let p = current();
    let hand = pzone(p, "hand");
    if count(hand) == 0 {
        finish("the cards ran out");
        return;
    }
    let options = [];
    for c in cards(hand) {
        options.push(#{ label: "Play " + name_of(c), card: c });
    }
    let pick = choose(p, "Play a card", options);
    play(p, pick.card);
    if counter(p, "points") >= option("target") {
        finish(player_name(p) + " reached " + option("target"));
        return;
    }
    draw(zone("deck"), hand);
    advance();
}

fn play(p, c) {
    note_play(p, c);
    move_card(c, zone("discard"));
    let points = value(c, "points");
    if counter(p, "double") > 0 && points > 0 {
        points *= 2;
        set_counter(p, "double", 0);
    }
    add_counter(p, "points", points);
    invoke(c, "on_play", [p, c]);
}

fn finish(reason) {
    let best = -1;
    let winners = [];
    for p in 0..players() {
        set_score(p, counter(p, "points"));
        if counter(p, "points") > best {
            best = counter(p, "points");
            winners = [p];
        } else if counter(p, "points") == best {
            winners.push(p);
        }
    }
    end_game(winners, reason);
}
"#;

const DOUBLE: &str = r#"// Double: the player's next scoring card counts twice.
fn on_play(p, c) {
    set_counter(p, "double", 1);
}
"#;

const CARD: &str = r#"#:schema ../../../docs/schema/cards.schema.json

[[card]]
id = "{id}"
name = "{name}"
kind = "{kind}"
count = 1
values = {}
text = "Describe what the card does, in your own words."
# script = "cards/{id}.rhai"   # a script with its effects, relative to scripts/<pack>/
# hooks = ["on_play"]          # functions the script must define
"#;

const GOLDEN_README: &str = r#"# Golden games of {id}

Each `NAME.game.toml` here is a recorded game (pack, scenario, seed, who plays each seat,
a person's choices) and `NAME.transcript` is what it must produce. `crown test {id}`
replays them all: bots play again from the seed, a person's choices are replayed.
`crown test --review` walks the changed ones; `crown test --bless` accepts them.
`first.game.toml` was recorded when the pack was made; record more with
`crown record {id} --seed 2 --out tests/golden/{id}/second.game.toml`.
"#;
