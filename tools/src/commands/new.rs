//! `crown new`: scaffold a small but playable pack (with the JSON Schemas its `#:schema`
//! lines point at), a card shaped like the pack's own, or a pack's own copy of the print
//! templates. Never overwrites. The pack's files are the templates in `commands/new/`.

use crown_engine::diag::plural;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crown_engine::content::model::Definition;
use crown_engine::content::refs::Names;
use crown_engine::content::{schema, DefKind, Pack};
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
        /// The card kind (default: the kind most of the pack's cards have).
        #[arg(long)]
        kind: Option<String>,
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
        NewArgs::Card { pack, id, kind } => new_card(project, pack, id, kind.as_deref()),
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
    let fill = |t: &str| t.replace("{id}", name).replace("{name}", &title);
    let scripts = project.scripts_dir(name);
    let files: Vec<(std::path::PathBuf, String)> = vec![
        (dir.join("pack.toml"), fill(PACK)),
        (dir.join("cards").join("cards.toml"), fill(CARDS)),
        (dir.join("scenarios").join("standard.toml"), fill(SCENARIO)),
        (dir.join("rules.md"), fill(RULES_MD)),
        (scripts.join("rules.rhai"), fill(RULES)),
        (scripts.join("bots.rhai"), fill(BOTS)),
        (scripts.join("cards").join("double.rhai"), fill(DOUBLE)),
        (project.golden_dir(name).join("README.md"), fill(GOLDEN_README)),
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
    // The schemas the files' `#:schema` lines point at, with the pack's vocabulary, so an
    // editor checks the files from the first minute (`crown schema --pack` rewrites them).
    let schema_dir = project.root.join("docs").join("schema").join(name);
    for (file, s) in schema::for_pack(&pack.manifest) {
        let path = schema_dir.join(file);
        match out::write_new(&project.root, &path, &schema::to_json(&s)) {
            Ok(true) => println!("created {}", rel(project, &path)),
            Ok(false) => println!("kept    {} (already exists)", rel(project, &path)),
            Err(e) => return Err(Failure::error(format!("cannot write {}: {e}", path.display()))),
        }
    }
    // A first golden game, recorded from the new pack, so `crown test` has something to
    // guard from the start.
    let game = project.golden_dir(name).join("first.game.toml");
    let pack = std::sync::Arc::new(pack);
    let kinds = vec!["greedy".to_string(), "random".to_string()];
    match crate::golden::record(
        &pack,
        1,
        2,
        None,
        kinds,
        "Two bots play to the end: an example `crown new` wrote, with its example cards.",
    ) {
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

fn new_card(project: &Project, pack: &str, id: &str, kind: Option<&str>) -> Done {
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
    if let Some(kind) = kind.filter(|k| !valid_id(k)) {
        return Err(Failure::new(
            2,
            format!("`{}` is not a valid card kind (lowercase letters, digits, `-` and `_`)", out::shown(kind)),
        ));
    }
    // With its scripts, to know the decks they build.
    let loaded = load_pack(&proj, &pack_id, LoadOptions::default());
    if let Some(p) = &loaded.pack {
        if let Some(d) = p.get(id) {
            return Err(Failure::new(
                1,
                format!("`{id}` already exists in {}; nothing was written", d.origin.file.display()),
            ));
        }
    }
    // The pack's own schema when `crown schema --pack` (or `crown new pack`) wrote one.
    let own = proj.root.join("docs").join("schema").join(&pack_id).join("cards.schema.json");
    let schema_at = if own.is_file() { format!("{pack_id}/cards.schema.json") } else { "cards.schema.json".into() };
    let shape = match &loaded.pack {
        Some(p) => Shape::of(p, kind),
        None => Shape { kind: kind.unwrap_or("action").to_string(), ..Shape::default() },
    };
    let path = proj.pack_dir(&pack_id).join("cards").join(format!("{id}.toml"));
    let text = shape.card(id, &title_case(id), &schema_at);
    match out::write_new(&proj.root, &path, &text) {
        Ok(true) => {
            println!("created {}", rel(&proj, &path));
            match &shape.decks[..] {
                [] => {}
                d => println!("in the deck{} {}", if d.len() == 1 { "" } else { "s" }, d.join(", ")),
            }
            println!("Next: describe it, then `crown check {pack_id}`.");
            Ok(())
        }
        Ok(false) => Err(Failure::error(format!("{} already exists; nothing was written", path.display()))),
        Err(e) => Err(Failure::error(format!("cannot write {}: {e}", path.display()))),
    }
}

/// What a new card of a pack looks like: the kind most of its cards have (or the one
/// asked for), the decks those cards list that its scripts build, and the data (values,
/// attributes, keywords, cost, stages, back) of one of those cards without a script, so
/// that the rules, which may read any of it, play the new card as they play that one; the
/// values the vocabulary requires are added where missing. Without such a card: the
/// required values and those every card of the kind carries.
#[derive(Default)]
struct Shape {
    kind: String,
    decks: Vec<String>,
    serial: Option<i64>,
    /// The card whose data is copied.
    model: Option<Definition>,
    /// The values every face must carry, at a value in their range.
    required: Vec<(String, i64)>,
    /// Comment lines: the decks the scripts build, the keys the vocabulary declares.
    notes: Vec<String>,
}

impl Shape {
    fn of(pack: &Pack, kind: Option<&str>) -> Shape {
        let cards: Vec<_> = pack.defs_of(DefKind::Card).map(|d| &d.def).collect();
        let own: Vec<_> = pack.defs_of(DefKind::Card).filter(|d| d.origin.pack == pack.id()).map(|d| &d.def).collect();
        let pool = if own.is_empty() { &cards } else { &own };
        let kind = kind
            .map(str::to_string)
            .or_else(|| most_common(pool.iter().filter(|d| valid_id(&d.kind)).map(|d| d.kind.clone())))
            .unwrap_or_else(|| "action".to_string());
        let mut siblings: Vec<_> = pool.iter().copied().filter(|d| d.kind == kind).collect();
        if siblings.is_empty() {
            siblings = pool.clone();
        }
        // The decks the scripts build, by name; a card lists them to be put in play.
        let built: BTreeSet<&str> = pack
            .scripts
            .iter()
            .flat_map(|s| s.references.literals.iter())
            .filter(|l| l.names == Names::Deck && valid_id(&l.text))
            .map(|l| l.text.as_str())
            .collect();
        let lists = |defs: &[&Definition], built_only: bool| {
            most_common(
                defs.iter()
                    .filter(|d| !d.decks.is_empty() && d.decks.iter().all(|k| valid_id(k)))
                    .filter(|d| !built_only || d.decks.iter().any(|k| built.contains(k.as_str())))
                    .map(|d| d.decks.clone()),
            )
        };
        let decks = lists(&siblings, true)
            .or_else(|| lists(&cards, true))
            .or_else(|| built.first().map(|k| vec![k.to_string()]))
            .or_else(|| lists(&siblings, false))
            .unwrap_or_default();
        // The card to copy: one without a script, in those decks if one is.
        let plain: Vec<_> = siblings.iter().copied().filter(|d| d.script.is_none() && d.hooks.is_empty()).collect();
        let model = plain.iter().find(|d| d.decks == decks).or(plain.first()).map(|d| (*d).clone());
        // The values the vocabulary requires, and without a card to copy those every card
        // of its kind carries (the rules may read them with `value`, which fails on a card
        // without them).
        let vocabulary = pack.manifest.vocabulary.get("card");
        let declared = vocabulary.and_then(|v| v.values.as_ref());
        let mut keys: BTreeSet<&String> =
            declared.into_iter().flatten().filter(|(_, r)| r.required).map(|(k, _)| k).collect();
        if let Some((first, rest)) = siblings.split_first().filter(|_| model.is_none()) {
            keys.extend(first.values.keys().filter(|k| rest.iter().all(|d| d.values.contains_key(*k))));
        }
        let required = keys
            .into_iter()
            .map(|k| match declared.and_then(|m| m.get(k)).map(|r| &r.range[..]) {
                Some(&[min, max]) => (k.clone(), 0.clamp(min, max.max(min))),
                _ => (k.clone(), 0),
            })
            .collect();
        let serial = siblings
            .iter()
            .any(|d| d.serial.is_some())
            .then(|| pack.defs.iter().filter_map(|d| d.def.serial).max().unwrap_or(0) + 1);
        let mut notes = Vec::new();
        if let Some(m) = model.as_ref().filter(|m| valid_id(&m.id)) {
            let squares = if m.cells.is_empty() { "" } else { ", squares" };
            notes.push(format!(
                "Its values{squares}, attributes and keywords are those of `{}`: make them its own.",
                m.id
            ));
        }
        if !built.is_empty() {
            let s = if built.len() == 1 { "" } else { "s" };
            let names = built.iter().copied().collect::<Vec<_>>().join(", ");
            notes.push(format!("The scripts build the deck{s} {names}."));
        }
        if let Some(v) = vocabulary {
            // Only names that are plain words go into the comment.
            let words =
                |what: &str, names: Vec<String>| (!names.is_empty()).then(|| format!("{what}: {}.", names.join(", ")));
            let plain = |names: Vec<String>| names.into_iter().filter(|n| valid_id(n)).collect::<Vec<_>>();
            let ranged = |(k, r): (&String, &crown_engine::content::model::ValueRange)| match r.range[..] {
                [min, max] => format!("{k} ({min} to {max}{})", if r.required { ", required" } else { "" }),
                _ if r.required => format!("{k} (required)"),
                _ => k.clone(),
            };
            notes.extend(words("Values", v.values.iter().flatten().filter(|(k, _)| valid_id(k)).map(ranged).collect()));
            notes.extend(words("Attributes", plain(v.attrs.iter().flatten().map(|(k, _)| k.clone()).collect())));
            notes.extend(words("Keywords", plain(v.keywords.iter().flatten().cloned().collect())));
            notes.extend(words("Costs", plain(v.costs.iter().flatten().cloned().collect())));
        }
        Shape { kind, decks, serial, model, required, notes }
    }

    /// The card file.
    fn card(&self, id: &str, name: &str, schema_at: &str) -> String {
        let mut t = format!("#:schema ../../../docs/schema/{schema_at}\n");
        t.push_str(&format!("# A new `{}` card, shaped like the pack's others; `crown check` checks it.\n", self.kind));
        for note in &self.notes {
            t.push_str(&wrap_comment(note));
        }
        let m = self.model.clone().unwrap_or_default();
        t.push_str(&format!("\n[[card]]\nid = {}\nname = {}\nkind = {}\n", q(id), q(name), q(&self.kind)));
        if let Some(n) = self.serial {
            t.push_str(&format!("serial = {n}\n"));
        }
        t.push_str("count = 1\n");
        if !self.decks.is_empty() {
            t.push_str(&format!("decks = {}\n", list(&self.decks)));
        }
        if !m.keywords.is_empty() {
            t.push_str(&format!("keywords = {}\n", list(&m.keywords)));
        }
        if m.stages.is_empty() {
            t.push_str(&format!("values = {}\n", self.values(&m.values)));
        }
        if !m.cells.is_empty() {
            // A tile: the squares of the card it copies, to make its own.
            let cells: Vec<String> = m
                .cells
                .iter()
                .map(|c| {
                    let mut parts = Vec::new();
                    if c.x != 0 {
                        parts.push(format!("x = {}", c.x));
                    }
                    if c.y != 0 {
                        parts.push(format!("y = {}", c.y));
                    }
                    parts.push(format!("terrain = {}", q(&c.terrain)));
                    if !c.values.is_empty() {
                        parts.push(format!("values = {}", table(c.values.iter().map(|(k, v)| (k, v.to_string())))));
                    }
                    format!("{{ {} }}", parts.join(", "))
                })
                .collect();
            t.push_str(&format!("cells = [{}]\n", cells.join(", ")));
        }
        if !m.cost.is_empty() {
            t.push_str(&format!("cost = {}\n", table(m.cost.iter().map(|(k, v)| (k, v.to_string())))));
        }
        if !m.attrs.is_empty() {
            t.push_str(&format!("attrs = {}\n", table(m.attrs.iter().map(|(k, v)| (k, q(v))))));
        }
        t.push_str("text = \"Describe what the card does, in your own words.\"\n");
        t.push_str(&format!(
            "# script = \"cards/{id}.rhai\"   # a script with its effects, relative to scripts/<pack>/\n"
        ));
        t.push_str("# hooks = [\"on_play\"]          # functions the script must define\n");
        if let Some(b) = &m.back {
            t.push_str(&format!("\n[card.back]\nname = {}\nvalues = {}\n", q(name), self.values(&b.values)));
            if !b.cost.is_empty() {
                t.push_str(&format!("cost = {}\n", table(b.cost.iter().map(|(k, v)| (k, v.to_string())))));
            }
            if !b.attrs.is_empty() {
                t.push_str(&format!("attrs = {}\n", table(b.attrs.iter().map(|(k, v)| (k, q(v))))));
            }
            t.push_str("text = \"What its back does.\"\n");
        }
        for st in &m.stages {
            t.push_str(&format!("\n[[card.stages]]\nposition = \"{}\"\nname = {}\n", st.position.as_str(), q(name)));
            if !st.keywords.is_empty() {
                t.push_str(&format!("keywords = {}\n", list(&st.keywords)));
            }
            t.push_str(&format!("values = {}\ntext = \"What this stage does.\"\n", self.values(&st.values)));
            if !st.attrs.is_empty() {
                t.push_str(&format!("attrs = {}\n", table(st.attrs.iter().map(|(k, v)| (k, q(v))))));
            }
            if !st.checkboxes.is_empty() {
                t.push_str(&format!("checkboxes = {}\n", list(&st.checkboxes)));
            }
            if !st.upgrades.is_empty() {
                let ups: Vec<String> = st
                    .upgrades
                    .iter()
                    .map(|u| {
                        let cost = table(u.cost.iter().map(|(k, v)| (k, v.to_string())));
                        format!("{{ cost = {cost}, to = \"{}\" }}", u.to.as_str())
                    })
                    .collect();
                t.push_str(&format!("upgrades = [{}]\n", ups.join(", ")));
            }
        }
        t
    }

    /// A face's values with the required ones it lacks, as an inline table.
    fn values(&self, have: &BTreeMap<String, i64>) -> String {
        let mut all = have.clone();
        for (k, v) in &self.required {
            all.entry(k.clone()).or_insert(*v);
        }
        table(all.iter().map(|(k, v)| (k, v.to_string())))
    }
}

/// A string as TOML writes it, quoted and escaped.
fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A key as TOML writes it: bare when it may be.
fn key(k: &str) -> String {
    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        k.to_string()
    } else {
        q(k)
    }
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|s| q(s)).collect::<Vec<_>>().join(", "))
}

/// An inline table of keys and values already written as TOML.
fn table<'a>(entries: impl Iterator<Item = (&'a String, String)>) -> String {
    let parts: Vec<String> = entries.map(|(k, v)| format!("{} = {v}", key(k))).collect();
    if parts.is_empty() {
        "{}".to_string()
    } else {
        format!("{{ {} }}", parts.join(", "))
    }
}

/// The value most items have (the first of those tied).
fn most_common<T: Ord + Clone>(items: impl Iterator<Item = T>) -> Option<T> {
    let mut seen: BTreeMap<T, (usize, usize)> = BTreeMap::new();
    for (i, x) in items.enumerate() {
        seen.entry(x).or_insert((0, i)).0 += 1;
    }
    seen.into_iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1))).map(|(x, _)| x)
}

/// A comment, in lines of at most 90 characters.
fn wrap_comment(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("#");
    for word in text.split(' ') {
        if line.len() + 1 + word.len() > 90 && line.len() > 1 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#  ");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
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

const PACK: &str = include_str!("new/pack.toml");
const CARDS: &str = include_str!("new/cards.toml");
const SCENARIO: &str = include_str!("new/standard.toml");
const RULES_MD: &str = include_str!("new/rules.md");
const RULES: &str = include_str!("new/rules.rhai");
const BOTS: &str = include_str!("new/bots.rhai");
const DOUBLE: &str = include_str!("new/double.rhai");
const GOLDEN_README: &str = include_str!("new/golden-readme.md");
