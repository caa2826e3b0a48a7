//! The rules reference as a document: each pack's rules document (`content/<pack>/rules.md`,
//! see [`super::rules_md`]) with its placeholders replaced by what the definitions say,
//! one chapter per pack of the chain (the base game first, then each expansion). A pack
//! without a rules document gets a catalogue of its definitions instead.
//!
//! The same [`Doc`] feeds the HTML, the Markdown and the PDF, so the three show the same
//! content; `crown check` expands it too, so a placeholder that names nothing is found
//! there, at its line and column.
//!
//! Placeholders (`{{ name args }}`) are listed in [`SPECS`]; docs/designers-guide.md
//! explains each with an example.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::PathBuf;

use crown_engine::content::model::{Scalar, StagePosition};
use crown_engine::content::{Def, DefKind, Pack};
use crown_engine::diag::{did_you_mean, Diagnostic, SourceFile};
use crown_engine::fsread;

use super::context::{kind_color, print_kind, Colors};
use super::icons::IconSet;
use super::rules_md::{self, Arg, Inline, Placeholder};
use super::util::label;

/// A piece of inline content.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    /// Plain text, printed as it is.
    Text(String),
    /// Text of a definition, in card markup (`**bold**`, `:icon:`, line breaks).
    Markup(String),
    Bold(Vec<Span>),
    /// Emphasis (the PDF prints it upright: its text layout has no italic within a line).
    Italic(Vec<Span>),
    Icon(String),
    /// A cross-reference; `anchor` is where the target is shown (none when the reference
    /// does not show it: then it prints as its text alone).
    Link {
        text: String,
        anchor: Option<String>,
        target: String,
    },
}

pub type Rich = Vec<Span>;

/// A block of the reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Level 0 starts a chapter (a pack of the chain), 1 to 3 are the document's `#`, `##`, `###`.
    Heading {
        level: u8,
        text: Rich,
        anchor: String,
        color: Option<String>,
    },
    Para(Rich),
    List {
        ordered: bool,
        items: Vec<Vec<Block>>,
    },
    Note(Vec<Block>),
    Table(Table),
    Entries(Vec<Entry>),
    /// A board drawn as rows of one-character tiles, with its legend.
    Grid {
        rows: Vec<String>,
        legend: Vec<(String, String)>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<Rich>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Anchors of the definitions (or spaces) this row shows.
    pub anchors: Vec<String>,
    pub cells: Vec<Rich>,
}

/// One definition (or printed twins) or scenario in a gallery.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub anchors: Vec<String>,
    pub title: String,
    /// `#12 · ×2`: the serial number and the copies.
    pub badge: String,
    /// Kind, cost, values, keywords, decks.
    pub meta: String,
    pub color: String,
    pub paras: Vec<EntryPara>,
    pub flavor: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EntryPara {
    /// A stage, a second side or a seat, set off from the main text.
    pub side: bool,
    pub rich: Rich,
}

/// The whole reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub title: String,
    /// Version, players, cards, what it expands.
    pub meta: String,
    pub description: String,
    pub blocks: Vec<Block>,
}

impl Doc {
    /// Chapters and top-level sections, for tables of contents: (level, text, anchor).
    pub fn contents(&self) -> Vec<(u8, String, String)> {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Heading { level, text, anchor, .. } if *level <= 1 => {
                    Some((*level, plain(text), anchor.clone()))
                }
                _ => None,
            })
            .collect()
    }
}

/// The text of inline content without its markup.
pub fn plain(r: &[Span]) -> String {
    let mut s = String::new();
    for p in r {
        match p {
            Span::Text(t) | Span::Markup(t) => s.push_str(t),
            Span::Bold(v) | Span::Italic(v) => s.push_str(&plain(v)),
            Span::Icon(n) => s.push_str(&format!("[{n}]")),
            Span::Link { text, .. } => s.push_str(text),
        }
    }
    s
}

/// The path of a pack's rules document, as shown (relative to the project).
pub fn rules_path(pack_id: &str) -> PathBuf {
    PathBuf::from("content").join(pack_id).join("rules.md")
}

/// Whether the pack or a pack it extends has a rules document (or something standing where
/// one would be, which reading then reports).
pub fn has_rules(pack: &Pack) -> bool {
    pack.chain.iter().any(|id| std::fs::symlink_metadata(pack.project.join(rules_path(id))).is_ok())
}

/// Syntax errors reported per rules document; past this, one more error counts the rest.
const MAX_SYNTAX_ERRORS: usize = 50;

/// What a placeholder accepts.
pub struct Spec {
    pub name: &'static str,
    /// Generated blocks (a card list, a table) rather than a few words.
    pub block: bool,
    pub positional: &'static [&'static str],
    pub named: &'static [&'static str],
    pub usage: &'static str,
}

const SELECT: &[&str] = &["kind", "deck", "keyword", "where", "ids", "serial", "pack", "sort", "as", "values", "attrs"];
const COUNT: &[&str] = &["of", "kind", "deck", "keyword", "where", "ids", "serial", "pack"];

/// Every placeholder.
pub const SPECS: &[Spec] = &[
    Spec {
        name: "cards",
        block: true,
        positional: &[],
        named: SELECT,
        usage: "{{ cards kind=\"attack\" as=\"table\" }}",
    },
    Spec { name: "plaques", block: true, positional: &[], named: SELECT, usage: "{{ plaques }}" },
    Spec { name: "nobles", block: true, positional: &[], named: SELECT, usage: "{{ nobles }}" },
    Spec { name: "leaders", block: true, positional: &[], named: SELECT, usage: "{{ leaders as=\"table\" }}" },
    Spec { name: "characters", block: true, positional: &[], named: SELECT, usage: "{{ characters }}" },
    Spec {
        name: "scenarios",
        block: true,
        positional: &[],
        named: &["ids", "as", "options", "pack"],
        usage: "{{ scenarios as=\"table\" options=\"rounds\" }}",
    },
    Spec { name: "board", block: true, positional: &[], named: &[], usage: "{{ board }}" },
    Spec {
        name: "spaces",
        block: true,
        positional: &[],
        named: &["ids", "where", "values", "attrs"],
        usage: "{{ spaces where=\"kind=region\" }}",
    },
    Spec { name: "supplies", block: true, positional: &[], named: &["ids", "where"], usage: "{{ supplies }}" },
    Spec { name: "grid", block: true, positional: &[], named: &[], usage: "{{ grid }}" },
    Spec { name: "catalogue", block: true, positional: &[], named: &["pack"], usage: "{{ catalogue }}" },
    Spec {
        name: "value",
        block: false,
        positional: &["id", "key"],
        named: &["stage", "side"],
        usage: "{{ value pikemen attack }}",
    },
    Spec {
        name: "cost",
        block: false,
        positional: &["id", "resource"],
        named: &["stage", "side"],
        usage: "{{ cost pawn wood }}",
    },
    Spec { name: "count", block: false, positional: &["id"], named: &[], usage: "{{ count pikemen }}" },
    Spec { name: "serial", block: false, positional: &["id"], named: &[], usage: "{{ serial coronation }}" },
    Spec { name: "name", block: false, positional: &["id"], named: &["stage", "side"], usage: "{{ name pikemen }}" },
    Spec {
        name: "attr",
        block: false,
        positional: &["id", "key"],
        named: &["stage", "side"],
        usage: "{{ attr alfred region }}",
    },
    Spec { name: "option", block: false, positional: &["key"], named: &["scenario"], usage: "{{ option hand_size }}" },
    Spec { name: "players", block: false, positional: &[], named: &["scenario"], usage: "{{ players }}" },
    Spec { name: "pack", block: false, positional: &["field"], named: &[], usage: "{{ pack max_turns }}" },
    Spec { name: "total", block: false, positional: &[], named: COUNT, usage: "{{ total kind=\"attack\" }}" },
    Spec { name: "supply", block: false, positional: &["id"], named: &[], usage: "{{ supply danes }}" },
    Spec { name: "space", block: false, positional: &["id", "key"], named: &[], usage: "{{ space market-7 cost }}" },
];

const PACK_FIELDS: &[&str] = &["name", "version", "players", "min_players", "max_players", "max_turns", "description"];

/// The reference of a pack: its chapters expanded, every problem found (errors make it
/// unusable), and the rules documents read (for diagnostics' snippets).
pub struct Built {
    pub doc: Doc,
    pub diagnostics: Vec<Diagnostic>,
    pub sources: Vec<SourceFile>,
}

/// One chapter's source: a rules document, or the catalogue of a pack without one.
struct Chapter {
    pack: String,
    file: Option<SourceFile>,
}

/// Read the rules documents of a pack and its chain and expand them.
pub fn build(pack: &Pack, icons: &IconSet) -> Built {
    build_with(pack, icons, true)
}

/// [`build`]; without `catalogue`, chapters of packs with no rules document are left out
/// (there is nothing in them to check).
fn build_with(pack: &Pack, icons: &IconSet, catalogue: bool) -> Built {
    let mut diags = Vec::new();
    let mut chapters = Vec::new();
    // `chain` lists the pack first: chapters go base first.
    for id in pack.chain.iter().rev() {
        let shown = rules_path(id);
        let full = pack.project.join(&shown);
        let file = match fsread::read_checked_in(&pack.project, &full, fsread::Kind::RulesDocument)
            .and_then(|b| fsread::into_text(&full, b))
        {
            Ok(text) => Some(SourceFile::new(shown.clone(), text)),
            Err(e) if e.is_not_found() => None,
            Err(e) => {
                diags.push(
                    Diagnostic::error("unreadable", format!("cannot read the rules document: {}", e.reason()))
                        .in_file(&shown),
                );
                None
            }
        };
        chapters.push(Chapter { pack: id.clone(), file });
    }
    let m = &pack.manifest;
    let cards_total: i64 = pack.defs_of(DefKind::Card).map(|d| d.def.count).sum();
    let mut meta = format!(
        "Version {} · {} players · {} card{}",
        m.version,
        players_text(m.players.min, m.players.max),
        cards_total,
        if cards_total == 1 { "" } else { "s" }
    );
    if let Some(base) = &m.extends {
        let name = pack_name(pack, base);
        meta.push_str(&format!(" · expands {name}"));
    }
    let mut x = Expander {
        pack,
        icons,
        diags,
        file: None,
        chapter_pack: String::new(),
        level: 0,
        shown: BTreeMap::new(),
        anchors: BTreeSet::new(),
        links: Vec::new(),
    };
    let mut blocks = Vec::new();
    let several = chapters.len() > 1;
    let mut sources = Vec::new();
    for ch in chapters {
        x.chapter_pack = ch.pack.clone();
        x.level = 0;
        if several {
            let anchor = x.anchor_for(&format!("part-{}", ch.pack));
            blocks.push(Block::Heading {
                level: 0,
                text: vec![Span::Text(pack_name(pack, &ch.pack))],
                anchor,
                color: None,
            });
        }
        match ch.file {
            Some(file) => {
                let (md, errors) = rules_md::parse(&file.text);
                let more = errors.len().saturating_sub(MAX_SYNTAX_ERRORS);
                for e in errors.into_iter().take(MAX_SYNTAX_ERRORS) {
                    x.diags.push(Diagnostic::error("rules-syntax", e.message).at(&file, e.span).maybe_hint(e.hint));
                }
                if more > 0 {
                    x.diags.push(
                        Diagnostic::error("rules-syntax", format!("{more} more syntax errors in this file"))
                            .in_file(&file.path)
                            .hint("fix the first ones: one unclosed `**`, `{{` or `[[` can make many"),
                    );
                }
                x.file = Some(file.clone());
                let out = x.blocks(&md);
                blocks.extend(out);
                sources.push(file);
            }
            None if catalogue => {
                x.file = None;
                blocks.extend(x.catalogue(&ch.pack));
            }
            None => {}
        }
    }
    // Links find their targets once everything is shown; a target that is nowhere in the
    // reference prints as its name.
    let shown = x.shown.clone();
    for b in &mut blocks {
        resolve_links(b, &shown);
    }
    for (target, file, span) in std::mem::take(&mut x.links) {
        if !shown.contains_key(&target) {
            let name = link_name(pack, &target);
            x.diags.push(
                Diagnostic::warning(
                    "unshown-link",
                    format!("`[[{target}]]` links to {name}, which no list or table of the reference shows"),
                )
                .at(&file, span)
                .hint("show it with a placeholder such as `{{ cards ids=\"...\" }}`; until then it prints as its name, without a link"),
            );
        }
    }
    Built {
        doc: Doc { title: format!("{}: rules reference", m.name), meta, description: m.description.clone(), blocks },
        diagnostics: x.diags,
        sources,
    }
}

fn pack_name(pack: &Pack, id: &str) -> String {
    if id == pack.id() {
        return pack.manifest.name.clone();
    }
    // An extended pack's name, from its manifest (the loaded pack keeps only its own).
    let path = pack.project.join("content").join(id).join("pack.toml");
    fsread::read_text_checked(&path, fsread::Kind::Definition)
        .ok()
        .and_then(|t| toml::from_str::<crown_engine::content::model::PackManifest>(&t).ok())
        .map_or_else(|| id.to_string(), |m| m.name)
}

fn link_name(pack: &Pack, target: &str) -> String {
    match target.strip_prefix("scenario:") {
        Some(s) => pack.scenario(s).map_or_else(|| s.to_string(), |e| e.scenario.name.clone()),
        None => pack.get(target).map_or_else(|| target.to_string(), |d| d.def.name.clone()),
    }
}

fn resolve_links(b: &mut Block, shown: &BTreeMap<String, String>) {
    fn rich(r: &mut Rich, shown: &BTreeMap<String, String>) {
        for s in r {
            match s {
                Span::Link { anchor, target, .. } => *anchor = shown.get(target).cloned(),
                Span::Bold(v) | Span::Italic(v) => rich(v, shown),
                _ => {}
            }
        }
    }
    match b {
        Block::Heading { text, .. } => rich(text, shown),
        Block::Para(r) => rich(r, shown),
        Block::List { items, .. } => items.iter_mut().flatten().for_each(|b| resolve_links(b, shown)),
        Block::Note(v) => v.iter_mut().for_each(|b| resolve_links(b, shown)),
        Block::Table(t) => {
            t.header.iter_mut().for_each(|c| rich(c, shown));
            t.rows.iter_mut().flat_map(|r| r.cells.iter_mut()).for_each(|c| rich(c, shown));
        }
        Block::Entries(es) => es.iter_mut().flat_map(|e| e.paras.iter_mut()).for_each(|p| rich(&mut p.rich, shown)),
        Block::Grid { .. } => {}
    }
}

pub fn players_text(min: i64, max: i64) -> String {
    if min == max {
        format!("{min}")
    } else {
        format!("{min}–{max}")
    }
}

fn scalar(s: &Scalar) -> String {
    s.to_string()
}

fn numbers_text(map: &BTreeMap<String, i64>) -> String {
    map.iter().map(|(k, v)| format!("{} {v}", label(k))).collect::<Vec<_>>().join(", ")
}

fn cost_text(map: &BTreeMap<String, i64>) -> String {
    map.iter().map(|(k, v)| format!("{v} {}", k.replace(['-', '_'], " "))).collect::<Vec<_>>().join(", ")
}

fn stage_label(p: StagePosition) -> &'static str {
    match p {
        StagePosition::FrontTop => "Front, top",
        StagePosition::FrontBottom => "Front, bottom",
        StagePosition::BackTop => "Back, top",
        StagePosition::BackBottom => "Back, bottom",
    }
}

/// A slug for an anchor: lowercase letters, digits and `-`.
fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_end_matches('-').to_string();
    if s.is_empty() {
        "section".into()
    } else {
        s
    }
}

/// The named arguments of a placeholder, checked against its spec.
/// How a board selection names what it selects, in its errors.
struct BoardPick {
    one: &'static str,
    many: &'static str,
    example: &'static str,
}

impl BoardPick {
    fn new(one: &'static str, many: &'static str, example: &'static str) -> Self {
        BoardPick { one, many, example }
    }
}

struct Args<'a> {
    named: BTreeMap<&'a str, &'a Arg>,
    positional: Vec<&'a Arg>,
}

impl<'a> Args<'a> {
    fn get(&self, key: &str) -> Option<&'a Arg> {
        self.named.get(key).copied()
    }

    fn str(&self, key: &str) -> Option<&'a str> {
        self.get(key).map(|a| a.value.as_str())
    }
}

/// Which definitions a list placeholder shows.
struct Selection<'p> {
    defs: Vec<&'p Def>,
}

struct Expander<'p> {
    pack: &'p Pack,
    icons: &'p IconSet,
    diags: Vec<Diagnostic>,
    /// The rules document being expanded (none for a generated catalogue).
    file: Option<SourceFile>,
    /// The pack whose chapter this is: lists show its own definitions unless told otherwise.
    chapter_pack: String,
    /// The level of the last heading, so generated headings nest under it.
    level: u8,
    /// Definitions (and scenarios, as `scenario:ID`) shown so far, with their anchor.
    shown: BTreeMap<String, String>,
    anchors: BTreeSet<String>,
    /// Links made, to warn about those whose target is never shown.
    links: Vec<(String, SourceFile, Range<usize>)>,
}

impl<'p> Expander<'p> {
    fn anchor_for(&mut self, base: &str) -> String {
        let mut a = base.to_string();
        let mut n = 2;
        while self.anchors.contains(&a) {
            a = format!("{base}-{n}");
            n += 1;
        }
        self.anchors.insert(a.clone());
        a
    }

    fn error(&mut self, code: &'static str, span: &Range<usize>, message: impl Into<String>, hint: Option<String>) {
        let mut d = Diagnostic::error(code, message).maybe_hint(hint);
        if let Some(f) = &self.file {
            d = d.at(f, span.clone());
        }
        self.diags.push(d);
    }

    fn blocks(&mut self, md: &[rules_md::Block]) -> Vec<Block> {
        let mut out = Vec::new();
        for b in md {
            match b {
                rules_md::Block::Heading { level, inline, .. } => {
                    self.level = *level;
                    let text = self.inline(inline);
                    let anchor = self.anchor_for(&slug(&plain(&text)));
                    out.push(Block::Heading { level: *level, text, anchor, color: None });
                }
                rules_md::Block::Para { inline, .. } => {
                    let r = self.inline(inline);
                    out.push(Block::Para(r));
                }
                rules_md::Block::List { ordered, items } => {
                    let items = items.iter().map(|i| self.blocks(i)).collect();
                    out.push(Block::List { ordered: *ordered, items });
                }
                rules_md::Block::Note(inner) => {
                    let inner = self.blocks(inner);
                    out.push(Block::Note(inner));
                }
                rules_md::Block::Table { header, rows, .. } => {
                    let header = header.iter().map(|c| self.inline(c)).collect();
                    let rows = rows
                        .iter()
                        .map(|r| Row { anchors: Vec::new(), cells: r.iter().map(|c| self.inline(c)).collect() })
                        .collect();
                    out.push(Block::Table(Table { header, rows }));
                }
                rules_md::Block::Alone(p) => match self.spec(p) {
                    Some(spec) if spec.block => out.extend(self.block_placeholder(p, spec)),
                    Some(_) => {
                        let r = self.inline(&[Inline::Placeholder(p.clone())]);
                        out.push(Block::Para(r));
                    }
                    None => {}
                },
            }
        }
        out
    }

    fn inline(&mut self, inline: &[Inline]) -> Rich {
        let mut out = Vec::new();
        for i in inline {
            match i {
                Inline::Text(t) => out.push(Span::Text(t.clone())),
                Inline::Bold(v) => {
                    let inner = self.inline(v);
                    out.push(Span::Bold(inner));
                }
                Inline::Italic(v) => {
                    let inner = self.inline(v);
                    out.push(Span::Italic(inner));
                }
                Inline::Icon { name, span } => {
                    if !self.icons.has(name) {
                        let hint = did_you_mean(name, self.icons.names()).map(|n| format!("did you mean `:{n}:`?"));
                        self.error(
                            "unknown-icon",
                            span,
                            format!("the icon `:{name}:` is not defined"),
                            hint.or_else(|| {
                                Some("add it to the pack's `[icons]` table, or write `\\:` for a plain colon".into())
                            }),
                        );
                    }
                    out.push(Span::Icon(name.clone()));
                }
                Inline::Link { target, text, span, target_span } => {
                    let known = match target.strip_prefix("scenario:") {
                        Some(s) => {
                            let ok = self.pack.scenario(s).is_some();
                            if !ok {
                                let hint = did_you_mean(s, self.pack.scenarios.iter().map(|e| e.scenario.id.as_str()))
                                    .map(|n| format!("did you mean `scenario:{n}`?"));
                                self.error("unknown-id", target_span, format!("no scenario `{s}` in this pack"), hint);
                            }
                            ok
                        }
                        None => {
                            let ok = self.pack.get(target).is_some();
                            if !ok {
                                let hint = did_you_mean(target, self.pack.defs.iter().map(|d| d.def.id.as_str()))
                                    .map(|n| format!("did you mean `{n}`?"))
                                    .or_else(|| Some("link a card, plaque, noble or leader by its id, or a scenario as `scenario:ID`".into()));
                                self.error(
                                    "unknown-id",
                                    target_span,
                                    format!("no card, plaque, noble or leader `{target}` in this pack"),
                                    hint,
                                );
                            }
                            ok
                        }
                    };
                    let name = text.clone().unwrap_or_else(|| link_name(self.pack, target));
                    if known {
                        if let Some(f) = &self.file {
                            self.links.push((target.clone(), f.clone(), span.clone()));
                        }
                    }
                    out.push(Span::Link { text: name, anchor: None, target: target.clone() });
                }
                Inline::Placeholder(p) => match self.spec(p) {
                    Some(spec) if spec.block => {
                        self.error(
                            "misplaced-placeholder",
                            &p.span,
                            format!(
                                "`{{{{ {} }}}}` makes a list or a table: it must stand alone in its paragraph",
                                p.name
                            ),
                            Some("put it on a line of its own, with blank lines around it".into()),
                        );
                    }
                    Some(spec) => {
                        if let Some(text) = self.inline_placeholder(p, spec) {
                            out.push(Span::Text(text));
                        }
                    }
                    None => {}
                },
            }
        }
        out
    }

    /// The spec of a placeholder, its arguments checked; `None` (with an error) when
    /// the name is unknown.
    fn spec(&mut self, p: &Placeholder) -> Option<&'static Spec> {
        let Some(spec) = SPECS.iter().find(|s| s.name == p.name) else {
            let hint = did_you_mean(&p.name, SPECS.iter().map(|s| s.name))
                .map(|n| format!("did you mean `{n}`?"))
                .unwrap_or_else(|| {
                    format!("placeholders are {}", SPECS.iter().map(|s| s.name).collect::<Vec<_>>().join(", "))
                });
            self.error("unknown-placeholder", &p.name_span, format!("unknown placeholder `{}`", p.name), Some(hint));
            return None;
        };
        Some(spec)
    }

    /// Check the arguments against the spec; `None` after reporting what is wrong.
    fn args<'a>(&mut self, p: &'a Placeholder, spec: &Spec) -> Option<Args<'a>> {
        let mut ok = true;
        let mut named: BTreeMap<&str, &Arg> = BTreeMap::new();
        let mut positional = Vec::new();
        for a in &p.args {
            match &a.key {
                Some(k) => {
                    if !spec.named.contains(&k.as_str()) {
                        let hint = did_you_mean(k, spec.named.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| {
                                if spec.named.is_empty() {
                                    format!("`{}` takes no named arguments: {}", spec.name, spec.usage)
                                } else {
                                    format!("`{}` takes {}", spec.name, spec.named.join(", "))
                                }
                            });
                        self.error(
                            "bad-placeholder",
                            &a.span,
                            format!("`{}` has no argument `{k}`", spec.name),
                            Some(hint),
                        );
                        ok = false;
                    } else if named.insert(k.as_str(), a).is_some() {
                        self.error("bad-placeholder", &a.span, format!("`{k}` is given twice"), None);
                        ok = false;
                    }
                }
                None => positional.push(a),
            }
        }
        if positional.len() != spec.positional.len() {
            let what = if spec.positional.is_empty() {
                "no bare words".to_string()
            } else {
                spec.positional.iter().map(|s| s.to_uppercase()).collect::<Vec<_>>().join(" ")
            };
            let span = positional.get(spec.positional.len()).map_or(p.span.clone(), |a| a.span.clone());
            self.error(
                "bad-placeholder",
                &span,
                format!(
                    "`{}` takes {what}, given {} bare word{}",
                    spec.name,
                    positional.len(),
                    if positional.len() == 1 { "" } else { "s" }
                ),
                Some(format!("for example `{}`", spec.usage)),
            );
            ok = false;
        }
        ok.then_some(Args { named, positional })
    }

    fn def(&mut self, a: &Arg) -> Option<&'p Def> {
        let d = self.pack.get(&a.value);
        if d.is_none() {
            let hint = did_you_mean(&a.value, self.pack.defs.iter().map(|d| d.def.id.as_str()))
                .map(|n| format!("did you mean `{n}`?"));
            self.error(
                "unknown-id",
                &a.value_span,
                format!("no card, plaque, noble or leader `{}` in this pack", a.value),
                hint,
            );
        }
        d
    }

    /// The face a placeholder reads: the definition itself, a stage (`stage=`, by position
    /// or name) or the back (`side=back`).
    fn face(&mut self, d: &'p Def, args: &Args<'_>) -> Option<Face<'p>> {
        let def = &d.def;
        if let Some(s) = args.get("stage") {
            let found =
                def.stages.iter().find(|st| st.position.as_str() == s.value || st.name.eq_ignore_ascii_case(&s.value));
            return match found {
                Some(st) => Some(Face {
                    name: &st.name,
                    values: &st.values,
                    cost: None,
                    attrs: &st.attrs,
                    what: format!("stage {}", st.name),
                }),
                None => {
                    let names: Vec<String> =
                        def.stages.iter().map(|st| format!("{} ({})", st.position.as_str(), st.name)).collect();
                    let hint = if names.is_empty() {
                        format!("`{}` has no stages", def.id)
                    } else {
                        format!("its stages: {}", names.join(", "))
                    };
                    self.error(
                        "unknown-stage",
                        &s.value_span,
                        format!("`{}` has no stage `{}`", def.id, s.value),
                        Some(hint),
                    );
                    None
                }
            };
        }
        if let Some(s) = args.get("side") {
            return match (s.value.as_str(), &def.back) {
                ("front", _) => Some(Face {
                    name: &def.name,
                    values: &def.values,
                    cost: Some(&def.cost),
                    attrs: &def.attrs,
                    what: "front".into(),
                }),
                ("back", Some(b)) => Some(Face {
                    name: if b.name.is_empty() { &def.name } else { &b.name },
                    values: &b.values,
                    cost: Some(&b.cost),
                    attrs: &b.attrs,
                    what: "back".into(),
                }),
                ("back", None) => {
                    self.error("unknown-stage", &s.value_span, format!("`{}` has no back side", def.id), None);
                    None
                }
                _ => {
                    self.error(
                        "bad-placeholder",
                        &s.value_span,
                        format!("`side` is `front` or `back`, not `{}`", s.value),
                        None,
                    );
                    None
                }
            };
        }
        Some(Face {
            name: &def.name,
            values: &def.values,
            cost: Some(&def.cost),
            attrs: &def.attrs,
            what: "front".into(),
        })
    }

    fn scenario(&mut self, args: &Args<'_>, span: &Range<usize>) -> Option<&'p crown_engine::content::ScenarioEntry> {
        match args.get("scenario") {
            Some(a) => {
                let s = self.pack.scenario(&a.value);
                if s.is_none() {
                    let hint = did_you_mean(&a.value, self.pack.scenarios.iter().map(|e| e.scenario.id.as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    self.error("unknown-id", &a.value_span, format!("no scenario `{}` in this pack", a.value), hint);
                }
                s
            }
            None => {
                let s = self.pack.default_scenario();
                if s.is_none() {
                    self.error(
                        "unknown-id",
                        span,
                        "the pack has no default scenario to read this from",
                        Some("name one with `scenario=\"ID\"`".into()),
                    );
                }
                s
            }
        }
    }

    /// A placeholder that stands for a few words: a number, a name.
    fn inline_placeholder(&mut self, p: &Placeholder, spec: &Spec) -> Option<String> {
        let args = self.args(p, spec)?;
        let pos = |i: usize| args.positional[i];
        match spec.name {
            "value" | "attr" | "cost" => {
                let d = self.def(pos(0))?;
                let face = self.face(d, &args)?;
                let key = pos(1);
                let (found, keys): (Option<String>, Vec<String>) = match spec.name {
                    "value" => {
                        (face.values.get(&key.value).map(|v| v.to_string()), face.values.keys().cloned().collect())
                    }
                    "attr" => (face.attrs.get(&key.value).cloned(), face.attrs.keys().cloned().collect()),
                    _ => {
                        let cost = face.cost.cloned().unwrap_or_default();
                        (cost.get(&key.value).map(|v| v.to_string()), cost.keys().cloned().collect())
                    }
                };
                if found.is_none() {
                    let what = match spec.name {
                        "value" => "value",
                        "attr" => "attribute",
                        _ => "cost in",
                    };
                    let hint = did_you_mean(&key.value, keys.iter().map(String::as_str))
                        .map(|n| format!("did you mean `{n}`?"))
                        .unwrap_or_else(|| {
                            if keys.is_empty() {
                                format!("its {} holds none", face.what)
                            } else {
                                format!("its {} has {}", face.what, keys.join(", "))
                            }
                        });
                    let code = if spec.name == "attr" { "unknown-attr" } else { "unknown-value" };
                    self.error(
                        code,
                        &key.value_span,
                        format!("`{}` has no {what} `{}` on its {}", d.def.id, key.value, face.what),
                        Some(hint),
                    );
                }
                found
            }
            "count" => self.def(pos(0)).map(|d| d.def.count.to_string()),
            "serial" => {
                let d = self.def(pos(0))?;
                if d.def.serial.is_none() {
                    self.error(
                        "unknown-value",
                        &pos(0).value_span,
                        format!("`{}` has no serial number", d.def.id),
                        None,
                    );
                }
                d.def.serial.map(|n| n.to_string())
            }
            "name" => {
                let d = self.def(pos(0))?;
                self.face(d, &args).map(|f| f.name.to_string())
            }
            "option" => {
                let s = self.scenario(&args, &p.span)?;
                let key = pos(0);
                // The scenario's setting, else the one it takes from pack.toml.
                match s.scenario.options.get(&key.value).or_else(|| self.pack.manifest.options.get(&key.value)) {
                    Some(v) => Some(scalar(v)),
                    None => {
                        let mut keys: Vec<&str> = s.scenario.options.keys().map(String::as_str).collect();
                        keys.extend(self.pack.manifest.options.keys().map(String::as_str));
                        let hint = did_you_mean(&key.value, keys.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| format!("its options: {}", keys.join(", ")));
                        self.error(
                            "unknown-option",
                            &key.value_span,
                            format!("the scenario `{}` sets no option `{}`", s.scenario.id, key.value),
                            Some(hint),
                        );
                        None
                    }
                }
            }
            "players" => {
                let s = match args.get("scenario") {
                    Some(_) => self.scenario(&args, &p.span)?.scenario.players,
                    None => None,
                };
                let r = s.unwrap_or(self.pack.manifest.players);
                Some(players_text(r.min, r.max))
            }
            "pack" => {
                let f = pos(0);
                let m = &self.pack.manifest;
                let v = match f.value.as_str() {
                    "name" => Some(m.name.clone()),
                    "version" => Some(m.version.clone()),
                    "players" => Some(players_text(m.players.min, m.players.max)),
                    "min_players" => Some(m.players.min.to_string()),
                    "max_players" => Some(m.players.max.to_string()),
                    "max_turns" => m.max_turns.map(|t| t.to_string()),
                    "description" => Some(m.description.clone()),
                    _ => {
                        let hint = did_you_mean(&f.value, PACK_FIELDS.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| format!("`pack` reads {}", PACK_FIELDS.join(", ")));
                        self.error(
                            "unknown-value",
                            &f.value_span,
                            format!("`pack.toml` has no field `{}` to show", f.value),
                            Some(hint),
                        );
                        return None;
                    }
                };
                if v.is_none() {
                    self.error("unknown-value", &f.value_span, format!("`pack.toml` does not set `{}`", f.value), None);
                }
                v
            }
            "total" => {
                let of = args.str("of").unwrap_or("card");
                if matches!(of, "space" | "spaces" | "supply" | "supplies") {
                    let board = self.board(&p.span)?;
                    for k in ["kind", "deck", "keyword", "ids", "serial", "pack"] {
                        if let Some(a) = args.get(k) {
                            self.error(
                                "bad-placeholder",
                                &a.span,
                                format!("`{k}` does not apply to `of=\"{of}\"` (use `where`)"),
                                None,
                            );
                            return None;
                        }
                    }
                    let filter = match args.get("where") {
                        None => None,
                        Some(a) => match a.value.split_once('=') {
                            Some((k, v)) => Some((k.trim().to_string(), v.trim().to_string())),
                            None => {
                                self.error("bad-placeholder", &a.value_span, "`where` is `attribute=value`", None);
                                return None;
                            }
                        },
                    };
                    let keep =
                        |attrs: &BTreeMap<String, String>| filter.as_ref().is_none_or(|(k, v)| attrs.get(k) == Some(v));
                    let n: i64 = if of.starts_with("space") {
                        board.space.iter().filter(|s| keep(&s.attrs)).count() as i64
                    } else {
                        board.supply.iter().filter(|s| keep(&s.attrs)).map(|s| s.count).sum()
                    };
                    if n == 0 {
                        self.error("empty-selection", &p.span, format!("this placeholder counts no {of}"), None);
                        return None;
                    }
                    return Some(n.to_string());
                }
                let kinds = match DefKind::ALL.iter().find(|k| k.as_str() == of || format!("{}s", k.as_str()) == of) {
                    Some(k) => vec![*k],
                    None => {
                        let a = args.get("of").expect("given");
                        self.error(
                            "bad-placeholder",
                            &a.value_span,
                            format!("`of` is card, plaque, noble, leader, space or supply, not `{of}`"),
                            None,
                        );
                        return None;
                    }
                };
                let sel = self.select(&kinds, &args, &p.span)?;
                Some(sel.defs.iter().map(|d| d.def.count).sum::<i64>().to_string())
            }
            "supply" => {
                let a = pos(0);
                let board = self.board(&a.span)?;
                match board.supply.iter().find(|s| s.id == a.value) {
                    Some(s) => Some(s.count.to_string()),
                    None => {
                        let hint = did_you_mean(&a.value, board.supply.iter().map(|s| s.id.as_str()))
                            .map(|n| format!("did you mean `{n}`?"));
                        self.error("unknown-id", &a.value_span, format!("the board has no supply `{}`", a.value), hint);
                        None
                    }
                }
            }
            "space" => {
                let (a, key) = (pos(0), pos(1));
                let board = self.board(&a.span)?;
                let Some(s) = board.space.iter().find(|s| s.id == a.value) else {
                    let hint = did_you_mean(&a.value, board.space.iter().map(|s| s.id.as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    self.error("unknown-id", &a.value_span, format!("the board has no space `{}`", a.value), hint);
                    return None;
                };
                match s.values.get(&key.value) {
                    Some(v) => Some(v.to_string()),
                    None => {
                        let keys: Vec<&str> = s.values.keys().map(String::as_str).collect();
                        let hint = did_you_mean(&key.value, keys.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| format!("its values: {}", keys.join(", ")));
                        self.error(
                            "unknown-value",
                            &key.value_span,
                            format!("the space `{}` has no value `{}`", s.id, key.value),
                            Some(hint),
                        );
                        None
                    }
                }
            }
            other => unreachable!("inline placeholder {other} has no expansion"),
        }
    }

    fn board(&mut self, span: &Range<usize>) -> Option<&'p crown_engine::content::model::BoardFile> {
        match &self.pack.board {
            Some((b, _)) => Some(b),
            None => {
                self.error("unknown-id", span, "this pack has no board.toml", None);
                None
            }
        }
    }

    /// An attribute's value as shown: the name of the space or definition it names, else
    /// the value written as words.
    fn attr_text(&self, v: &str) -> String {
        if let Some((b, _)) = &self.pack.board {
            if let Some(s) = b.space.iter().find(|s| s.id == v) {
                return s.name.clone();
            }
            if let Some(s) = b.supply.iter().find(|s| s.id == v && !s.name.is_empty()) {
                return s.name.clone();
            }
        }
        match self.pack.get(v) {
            Some(d) => d.def.name.clone(),
            None => label(v),
        }
    }

    /// A comma-separated list argument.
    fn list(a: Option<&Arg>) -> Vec<String> {
        a.map(|a| a.value.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    /// The definitions a list or count placeholder names, in the order asked.
    fn select(&mut self, kinds: &[DefKind], args: &Args<'_>, span: &Range<usize>) -> Option<Selection<'p>> {
        let pack = self.pack;
        // Whose definitions: the chapter's pack, another of the chain, or all.
        let from: Option<String> = match args.get("pack") {
            None => Some(self.chapter_pack.clone()),
            Some(a) if a.value == "all" => None,
            Some(a) if pack.chain.contains(&a.value) => Some(a.value.clone()),
            Some(a) => {
                self.error(
                    "unknown-id",
                    &a.value_span,
                    format!("`{}` is not this pack or a pack it extends", a.value),
                    Some(format!("use one of {}, or `all`", pack.chain.join(", "))),
                );
                return None;
            }
        };
        let pool: Vec<&'p Def> = pack
            .defs
            .iter()
            .filter(|d| kinds.contains(&d.kind) && from.as_ref().is_none_or(|f| &d.origin.pack == f))
            .collect();
        let what = kinds.iter().map(|k| format!("{}s", k.as_str())).collect::<Vec<_>>().join(" or ");
        let mut defs: Vec<&'p Def> = match args.get("ids") {
            Some(a) => {
                let mut v = Vec::new();
                for id in Self::list(Some(a)) {
                    match pool.iter().find(|d| d.def.id == id) {
                        Some(d) => v.push(*d),
                        None => {
                            let hint = did_you_mean(&id, pool.iter().map(|d| d.def.id.as_str()))
                                .map(|n| format!("did you mean `{n}`?"));
                            let msg = match pack.get(&id) {
                                Some(d) if !kinds.contains(&d.kind) => {
                                    format!("`{id}` is a {}, not one of the {what}", d.kind.as_str())
                                }
                                Some(d) => format!(
                                    "`{id}` belongs to `{}`, not to this chapter's pack (add `pack=\"all\"`)",
                                    d.origin.pack
                                ),
                                None => format!("no {what} `{id}` in this pack"),
                            };
                            self.error("unknown-id", &a.value_span, msg, hint);
                            return None;
                        }
                    }
                }
                v
            }
            None => pool.clone(),
        };
        // Filters: each a comma-separated list of accepted names.
        type Get = fn(&Def) -> Vec<String>;
        let filters: [(&str, &str, Get); 3] = [
            ("kind", "kind", |d| vec![print_kind(d)]),
            ("deck", "deck", |d| d.def.decks.clone()),
            ("keyword", "keyword", |d| {
                let mut k = d.def.keywords.clone();
                k.extend(d.def.stages.iter().flat_map(|s| s.keywords.iter().cloned()));
                k
            }),
        ];
        for (key, what_one, get) in filters {
            let Some(a) = args.get(key) else { continue };
            let known: BTreeSet<String> = pool.iter().flat_map(|d| get(d)).collect();
            let wanted = Self::list(Some(a));
            for w in &wanted {
                if !known.contains(w) {
                    let hint = did_you_mean(w, known.iter().map(String::as_str))
                        .map(|n| format!("did you mean `{n}`?"))
                        .unwrap_or_else(|| {
                            format!("the {what} here have: {}", known.iter().cloned().collect::<Vec<_>>().join(", "))
                        });
                    self.error(
                        "unknown-value",
                        &a.value_span,
                        format!("no {what} with the {what_one} `{w}`"),
                        Some(hint),
                    );
                    return None;
                }
            }
            defs.retain(|d| get(d).iter().any(|x| wanted.contains(x)));
        }
        if let Some(a) = args.get("where") {
            let Some((k, v)) = a.value.split_once('=') else {
                self.error(
                    "bad-placeholder",
                    &a.value_span,
                    "`where` is `attribute=value`",
                    Some("for example `where=\"faction=danes\"`".into()),
                );
                return None;
            };
            let (k, v) = (k.trim(), v.trim());
            defs.retain(|d| d.def.attrs.get(k).is_some_and(|x| x == v));
        }
        if let Some(a) = args.get("serial") {
            let range = a.value.split_once('-').map_or_else(
                || a.value.trim().parse::<i64>().ok().map(|n| (n, n)),
                |(x, y)| Some((x.trim().parse::<i64>().ok()?, y.trim().parse::<i64>().ok()?)),
            );
            let Some((lo, hi)) = range else {
                self.error("bad-placeholder", &a.value_span, "`serial` is a number or a range such as `1-10`", None);
                return None;
            };
            defs.retain(|d| d.def.serial.is_some_and(|s| (lo..=hi).contains(&s)));
        }
        if defs.is_empty() {
            self.error(
                "empty-selection",
                span,
                format!("this placeholder selects no {what}"),
                Some("check its filters: an empty list or count is always a mistake".into()),
            );
            return None;
        }
        if let Some(a) = args.get("sort") {
            match a.value.as_str() {
                "pack" => {}
                "name" => defs.sort_by(|x, y| x.def.name.cmp(&y.def.name)),
                "serial" => defs.sort_by_key(|d| d.def.serial.unwrap_or(i64::MAX)),
                key => {
                    if !defs.iter().any(|d| d.def.values.contains_key(key)) {
                        let keys: BTreeSet<&str> =
                            defs.iter().flat_map(|d| d.def.values.keys().map(String::as_str)).collect();
                        let hint = did_you_mean(key, keys.iter().copied())
                            .map(|n| format!("did you mean `{n}`?"))
                            .unwrap_or_else(|| "sort by `pack` (the files' order), `name`, `serial` or a value".into());
                        self.error(
                            "unknown-value",
                            &a.value_span,
                            format!("nothing here has a value `{key}` to sort by"),
                            Some(hint),
                        );
                        return None;
                    }
                    defs.sort_by_key(|d| d.def.values.get(key).copied().unwrap_or(i64::MAX));
                }
            }
        }
        Some(Selection { defs })
    }

    fn block_placeholder(&mut self, p: &Placeholder, spec: &Spec) -> Vec<Block> {
        let Some(args) = self.args(p, spec) else { return Vec::new() };
        let kinds: &[DefKind] = match spec.name {
            "cards" => &[DefKind::Card],
            "plaques" => &[DefKind::Plaque],
            "nobles" => &[DefKind::Noble],
            "leaders" => &[DefKind::Leader],
            "characters" => &[DefKind::Noble, DefKind::Leader],
            _ => &[],
        };
        if !kinds.is_empty() {
            let as_table = match args.get("as") {
                None => false,
                Some(a) if a.value == "table" => true,
                Some(a) if a.value == "list" => false,
                Some(a) => {
                    self.error(
                        "bad-placeholder",
                        &a.value_span,
                        format!("`as` is `list` or `table`, not `{}`", a.value),
                        None,
                    );
                    return Vec::new();
                }
            };
            let Some(sel) = self.select(kinds, &args, &p.span) else { return Vec::new() };
            let Some(columns) = self.columns(&sel, &args) else { return Vec::new() };
            // Cards of several kinds are grouped under a heading per kind.
            let by_kind: BTreeSet<String> = sel.defs.iter().map(|d| print_kind(d)).collect();
            if spec.name == "cards" && by_kind.len() > 1 && args.get("sort").is_none() && !as_table {
                let mut out = Vec::new();
                let level = (self.level + 1).min(3);
                for k in by_kind {
                    let defs: Vec<&Def> = sel.defs.iter().copied().filter(|d| print_kind(d) == k).collect();
                    let copies: i64 = defs.iter().map(|d| d.def.count).sum();
                    let anchor = self.anchor_for(&format!("kind-{k}"));
                    let color = Colors { band: kind_color(self.pack, &k) }.json().0;
                    out.push(Block::Heading {
                        level,
                        text: vec![Span::Text(format!(
                            "{} ({copies} card{})",
                            label(&k),
                            if copies == 1 { "" } else { "s" }
                        ))],
                        anchor,
                        color: Some(color),
                    });
                    out.push(self.defs_block(&defs, as_table, &columns));
                }
                return out;
            }
            return vec![self.defs_block(&sel.defs, as_table, &columns)];
        }
        match spec.name {
            "scenarios" => self.scenarios_block(&args, &p.span),
            "board" => {
                let Some(b) = self.board(&p.span) else { return Vec::new() };
                let mut out = Vec::new();
                if b.grid.is_some() {
                    out.extend(self.grid_block());
                }
                if !b.space.is_empty() {
                    out.extend(self.spaces_block(&args, &p.span));
                }
                if !b.supply.is_empty() {
                    out.extend(self.supplies_block(&args, &p.span));
                }
                out
            }
            "spaces" => self.spaces_block(&args, &p.span),
            "supplies" => self.supplies_block(&args, &p.span),
            "grid" => {
                if self.board(&p.span).is_none() {
                    return Vec::new();
                }
                let g = self.grid_block();
                if g.is_empty() {
                    self.error("unknown-value", &p.span, "the board has no `[grid]`", None);
                }
                g
            }
            "catalogue" => {
                let from = match args.get("pack") {
                    None => self.chapter_pack.clone(),
                    Some(a) if self.pack.chain.contains(&a.value) => a.value.clone(),
                    Some(a) => {
                        self.error(
                            "unknown-id",
                            &a.value_span,
                            format!("`{}` is not this pack or a pack it extends", a.value),
                            None,
                        );
                        return Vec::new();
                    }
                };
                self.catalogue(&from)
            }
            other => unreachable!("block placeholder {other} has no expansion"),
        }
    }

    /// The value and attribute columns (or meta) a list shows: `values=` and `attrs=`
    /// name them (`none` for none); by default every value and no attribute.
    fn columns(&mut self, sel: &Selection<'_>, args: &Args<'_>) -> Option<Columns> {
        let all_values: BTreeSet<String> = sel.defs.iter().flat_map(|d| d.def.values.keys().cloned()).collect();
        let all_attrs: BTreeSet<String> = sel.defs.iter().flat_map(|d| d.def.attrs.keys().cloned()).collect();
        let mut pick = |key: &str, all: &BTreeSet<String>, default_all: bool| -> Option<Vec<String>> {
            match args.get(key) {
                None => Some(if default_all { all.iter().cloned().collect() } else { Vec::new() }),
                Some(a) if a.value == "none" => Some(Vec::new()),
                Some(a) => {
                    let wanted = Self::list(Some(a));
                    for w in &wanted {
                        if !all.contains(w) {
                            let hint = did_you_mean(w, all.iter().map(String::as_str))
                                .map(|n| format!("did you mean `{n}`?"))
                                .unwrap_or_else(|| {
                                    format!("they have: {}", all.iter().cloned().collect::<Vec<_>>().join(", "))
                                });
                            let code = if key == "attrs" { "unknown-attr" } else { "unknown-value" };
                            self.error(
                                code,
                                &a.value_span,
                                format!(
                                    "none of the definitions shown has the {} `{w}`",
                                    if key == "attrs" { "attribute" } else { "value" }
                                ),
                                Some(hint),
                            );
                            return None;
                        }
                    }
                    Some(wanted)
                }
            }
        };
        let values = pick("values", &all_values, true)?;
        let attrs = pick("attrs", &all_attrs, false)?;
        Some(Columns { values, attrs })
    }

    /// A definition shown: its anchor (the first time it is shown), and every id of its
    /// printed twins.
    fn show(&mut self, ids: &[String]) -> Vec<String> {
        let mut anchors = Vec::new();
        for id in ids {
            if !self.shown.contains_key(id) {
                let base = match id.split_once(':') {
                    Some((kind, rest)) => format!("{kind}-{rest}"),
                    None => format!("def-{id}"),
                };
                let a = self.anchor_for(&base);
                self.shown.insert(id.clone(), a.clone());
                anchors.push(a);
            }
        }
        anchors
    }

    fn defs_block(&mut self, defs: &[&Def], as_table: bool, cols: &Columns) -> Block {
        let groups = merge_twins(self.pack, defs, cols);
        if as_table {
            let serials = groups.iter().any(|g| g.serial.is_some());
            let costs = groups.iter().any(|g| !g.def.def.cost.is_empty());
            let decks = groups.iter().any(|g| !g.decks.is_empty());
            let texts = groups.iter().any(|g| !g.table_text.is_empty());
            let mut header: Vec<Rich> = Vec::new();
            let mut h = |s: &str| header.push(vec![Span::Text(s.to_string())]);
            if serials {
                h("#");
            }
            let copies = groups.iter().any(|g| g.count != 1);
            let kinds = groups.iter().map(|g| print_kind(g.def)).collect::<BTreeSet<_>>().len() > 1;
            h(&label(groups[0].def.kind.as_str()));
            if kinds {
                h("Kind");
            }
            if copies {
                h("Copies");
            }
            if costs {
                h("Cost");
            }
            for v in &cols.values {
                h(&label(v));
            }
            for a in &cols.attrs {
                h(&label(a));
            }
            if decks {
                h("Deck");
            }
            if texts {
                h("Text");
            }
            let mut rows = Vec::new();
            for g in &groups {
                let anchors = self.show(&g.ids);
                let mut cells: Vec<Rich> = Vec::new();
                let t = |s: String| vec![Span::Text(s)];
                if serials {
                    cells.push(t(g.serial.map(|s| s.to_string()).unwrap_or_default()));
                }
                cells.push(t(g.def.def.name.clone()));
                if kinds {
                    cells.push(t(label(&print_kind(g.def))));
                }
                if copies {
                    cells.push(t(g.count.to_string()));
                }
                if costs {
                    cells.push(t(cost_text(&g.def.def.cost)));
                }
                for v in &cols.values {
                    cells.push(t(g.def.def.values.get(v).map(|x| x.to_string()).unwrap_or_else(|| "—".into())));
                }
                for a in &cols.attrs {
                    cells.push(t(g.def.def.attrs.get(a).map(|x| self.attr_text(x)).unwrap_or_else(|| "—".into())));
                }
                if decks {
                    cells.push(t(g.decks.iter().map(|d| label(d)).collect::<Vec<_>>().join(", ")));
                }
                if texts {
                    cells.push(vec![Span::Markup(g.table_text.clone())]);
                }
                rows.push(Row { anchors, cells });
            }
            Block::Table(Table { header, rows })
        } else {
            let mut entries = Vec::new();
            for g in groups {
                let anchors = self.show(&g.ids);
                let color = Colors { band: kind_color(self.pack, &print_kind(g.def)) }.json().0;
                let mut e = g.entry;
                e.anchors = anchors;
                e.color = color;
                entries.push(e);
            }
            Block::Entries(entries)
        }
    }

    fn scenarios_block(&mut self, args: &Args<'_>, span: &Range<usize>) -> Vec<Block> {
        let pack = self.pack;
        let from: Option<String> = match args.get("pack") {
            None => Some(self.chapter_pack.clone()),
            Some(a) if a.value == "all" => None,
            Some(a) if pack.chain.contains(&a.value) => Some(a.value.clone()),
            Some(a) => {
                self.error(
                    "unknown-id",
                    &a.value_span,
                    format!("`{}` is not this pack or a pack it extends", a.value),
                    None,
                );
                return Vec::new();
            }
        };
        let pool: Vec<&crown_engine::content::ScenarioEntry> =
            pack.scenarios.iter().filter(|s| from.as_ref().is_none_or(|f| &s.origin.pack == f)).collect();
        let list: Vec<&crown_engine::content::ScenarioEntry> = match args.get("ids") {
            Some(a) => {
                let mut v = Vec::new();
                for id in Self::list(Some(a)) {
                    match pool.iter().find(|s| s.scenario.id == id) {
                        Some(s) => v.push(*s),
                        None => {
                            let hint = did_you_mean(&id, pool.iter().map(|s| s.scenario.id.as_str()))
                                .map(|n| format!("did you mean `{n}`?"));
                            self.error("unknown-id", &a.value_span, format!("no scenario `{id}` here"), hint);
                            return Vec::new();
                        }
                    }
                }
                v
            }
            None => pool,
        };
        if list.is_empty() {
            self.error("empty-selection", span, "this placeholder selects no scenarios", None);
            return Vec::new();
        }
        let mode = args.str("as").unwrap_or("both");
        if !["both", "table", "list"].contains(&mode) {
            let a = args.get("as").expect("given");
            self.error(
                "bad-placeholder",
                &a.value_span,
                format!("`as` is `table`, `list` or `both`, not `{mode}`"),
                None,
            );
            return Vec::new();
        }
        let all_keys: BTreeSet<String> = list.iter().flat_map(|s| s.scenario.options.keys().cloned()).collect();
        let keys: Vec<String> = match args.get("options") {
            None => all_keys.iter().cloned().collect(),
            Some(a) if a.value == "none" => Vec::new(),
            Some(a) => {
                let wanted = Self::list(Some(a));
                for w in &wanted {
                    if !all_keys.contains(w) {
                        let hint = did_you_mean(w, all_keys.iter().map(String::as_str))
                            .map(|n| format!("did you mean `{n}`?"));
                        self.error(
                            "unknown-option",
                            &a.value_span,
                            format!("none of these scenarios sets `{w}`"),
                            hint,
                        );
                        return Vec::new();
                    }
                }
                wanted
            }
        };
        let mut out = Vec::new();
        let players = |s: &crown_engine::content::model::Scenario| {
            let r = s.players.unwrap_or(pack.manifest.players);
            players_text(r.min, r.max)
        };
        if mode != "list" {
            let mut header = vec![vec![Span::Text("Scenario".into())], vec![Span::Text("Players".into())]];
            header.extend(keys.iter().map(|k| vec![Span::Text(label(k))]));
            let rows = list
                .iter()
                .map(|e| {
                    let s = &e.scenario;
                    let mut name = s.name.clone();
                    if s.default {
                        name.push_str(" (default)");
                    }
                    let mut cells = vec![vec![Span::Text(name)], vec![Span::Text(players(s))]];
                    cells.extend(
                        keys.iter()
                            .map(|k| vec![Span::Text(s.options.get(k).map(scalar).unwrap_or_else(|| "—".into()))]),
                    );
                    let anchors = if mode == "table" { self.show(&[format!("scenario:{}", s.id)]) } else { Vec::new() };
                    Row { anchors, cells }
                })
                .collect();
            out.push(Block::Table(Table { header, rows }));
        }
        if mode != "table" {
            let mut entries = Vec::new();
            for e in &list {
                let s = &e.scenario;
                let anchors = self.show(&[format!("scenario:{}", s.id)]);
                let mut paras = Vec::new();
                if !s.text.is_empty() {
                    paras.push(EntryPara { side: false, rich: vec![Span::Markup(s.text.clone())] });
                }
                for (i, seat) in s.seat.iter().enumerate() {
                    let name_of = |id: &str| pack.get(id).map_or_else(|| id.to_string(), |d| d.def.name.clone());
                    let mut r = vec![Span::Bold(vec![Span::Text(
                        seat.name.clone().unwrap_or_else(|| format!("Seat {}", i + 1)),
                    )])];
                    let mut t = String::new();
                    if let Some(c) = &seat.character {
                        t.push_str(&format!(": {}", name_of(c)));
                    }
                    if !seat.cards.is_empty() {
                        t.push_str(&format!(
                            ", starting with {}",
                            seat.cards.iter().map(|c| name_of(c)).collect::<Vec<_>>().join(", ")
                        ));
                    }
                    if !t.is_empty() {
                        r.push(Span::Text(t));
                    }
                    paras.push(EntryPara { side: true, rich: r });
                }
                let opts: Vec<String> = s
                    .options
                    .iter()
                    .filter(|(k, _)| keys.contains(k))
                    .map(|(k, v)| format!("{} {}", label(k), scalar(v)))
                    .collect();
                entries.push(Entry {
                    anchors,
                    title: s.name.clone(),
                    badge: format!("{} players{}", players(s), if s.default { " · default" } else { "" }),
                    meta: opts.join(", "),
                    color: "#3a3a3a".into(),
                    paras,
                    flavor: String::new(),
                });
            }
            out.push(Block::Entries(entries));
        }
        out
    }

    fn grid_block(&mut self) -> Vec<Block> {
        let Some((b, _)) = &self.pack.board else { return Vec::new() };
        let Some(g) = &b.grid else { return Vec::new() };
        vec![Block::Grid {
            rows: g.rows.clone(),
            legend: g.legend.iter().map(|(k, v)| (k.clone(), label(v))).collect(),
        }]
    }

    fn spaces_block(&mut self, args: &Args<'_>, span: &Range<usize>) -> Vec<Block> {
        let Some(b) = self.board(span) else { return Vec::new() };
        let Some(spaces) = self.select_on_board(
            args,
            span,
            &b.space,
            |s| &s.id,
            |s| &s.attrs,
            BoardPick::new("space", "spaces", "kind=region"),
        ) else {
            return Vec::new();
        };
        let all_values: BTreeSet<String> = spaces.iter().flat_map(|s| s.values.keys().cloned()).collect();
        let all_attrs: BTreeSet<String> = spaces.iter().flat_map(|s| s.attrs.keys().cloned()).collect();
        let mut cols = |key: &str, all: &BTreeSet<String>, default_all: bool| -> Option<Vec<String>> {
            match args.get(key) {
                None => Some(if default_all { all.iter().cloned().collect() } else { Vec::new() }),
                Some(a) if a.value == "none" => Some(Vec::new()),
                Some(a) => {
                    let wanted = Self::list(Some(a));
                    for w in &wanted {
                        if !all.contains(w) {
                            let hint =
                                did_you_mean(w, all.iter().map(String::as_str)).map(|n| format!("did you mean `{n}`?"));
                            self.error("unknown-value", &a.value_span, format!("none of these spaces has `{w}`"), hint);
                            return None;
                        }
                    }
                    Some(wanted)
                }
            }
        };
        let Some(values) = cols("values", &all_values, true) else { return Vec::new() };
        let Some(attrs) = cols("attrs", &all_attrs, false) else { return Vec::new() };
        let name_of = |id: &str| b.space.iter().find(|s| s.id == id).map_or_else(|| id.to_string(), |s| s.name.clone());
        let supply_name = |id: &str| {
            b.supply
                .iter()
                .find(|s| s.id == id)
                .map_or_else(|| label(id), |s| if s.name.is_empty() { label(&s.id) } else { s.name.clone() })
        };
        let adjacent = spaces.iter().any(|s| !s.adjacent.is_empty());
        let pieces = spaces.iter().any(|s| !s.pieces.is_empty());
        let notes = spaces.iter().any(|s| !s.text.is_empty());
        let mut header = vec![vec![Span::Text("Space".into())]];
        if adjacent {
            header.push(vec![Span::Text("Next to".into())]);
        }
        header.extend(values.iter().map(|v| vec![Span::Text(label(v))]));
        header.extend(attrs.iter().map(|v| vec![Span::Text(label(v))]));
        if pieces {
            header.push(vec![Span::Text("Starts with".into())]);
        }
        if notes {
            header.push(vec![Span::Text("Notes".into())]);
        }
        let mut rows = Vec::new();
        for s in spaces {
            let anchors = self.show(&[format!("space:{}", s.id)]);
            let t = |x: String| vec![Span::Text(x)];
            let mut cells = vec![t(s.name.clone())];
            if adjacent {
                cells.push(t(s.adjacent.iter().map(|a| name_of(a)).collect::<Vec<_>>().join(", ")));
            }
            cells
                .extend(values.iter().map(|v| t(s.values.get(v).map(|x| x.to_string()).unwrap_or_else(|| "—".into()))));
            cells.extend(attrs.iter().map(|v| t(s.attrs.get(v).map(|x| label(x)).unwrap_or_else(|| "—".into()))));
            if pieces {
                cells.push(t(s
                    .pieces
                    .iter()
                    .map(|(k, v)| format!("{v} {}", supply_name(k)))
                    .collect::<Vec<_>>()
                    .join(", ")));
            }
            if notes {
                cells.push(vec![Span::Markup(s.text.clone())]);
            }
            rows.push(Row { anchors, cells });
        }
        vec![Block::Table(Table { header, rows })]
    }

    /// Narrow `all` by the placeholder's `ids=` (each must exist) and
    /// `where="attribute=value"`; `None` once an error is reported (an unknown id, a bad
    /// `where`, or nothing left).
    fn select_on_board<'t, T>(
        &mut self,
        args: &Args<'_>,
        span: &Range<usize>,
        all: &'t [T],
        id: impl Fn(&T) -> &String,
        attrs: impl Fn(&T) -> &BTreeMap<String, String>,
        what: BoardPick,
    ) -> Option<Vec<&'t T>> {
        let mut list: Vec<&T> = all.iter().collect();
        if let Some(a) = args.get("ids") {
            let ids = Self::list(Some(a));
            for wanted in &ids {
                if !all.iter().any(|s| id(s) == wanted) {
                    let hint = did_you_mean(wanted, all.iter().map(|s| id(s).as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    self.error("unknown-id", &a.value_span, format!("the board has no {} `{wanted}`", what.one), hint);
                    return None;
                }
            }
            list = ids.iter().filter_map(|wanted| all.iter().find(|s| id(s) == wanted)).collect();
        }
        if let Some(a) = args.get("where") {
            let Some((k, v)) = a.value.split_once('=') else {
                self.error(
                    "bad-placeholder",
                    &a.value_span,
                    "`where` is `attribute=value`",
                    Some(format!("for example `where=\"{}\"`", what.example)),
                );
                return None;
            };
            list.retain(|s| attrs(s).get(k.trim()).is_some_and(|x| x == v.trim()));
        }
        if list.is_empty() {
            self.error("empty-selection", span, format!("this placeholder selects no {}", what.many), None);
            return None;
        }
        Some(list)
    }

    fn supplies_block(&mut self, args: &Args<'_>, span: &Range<usize>) -> Vec<Block> {
        let Some(b) = self.board(span) else { return Vec::new() };
        let Some(list) = self.select_on_board(
            args,
            span,
            &b.supply,
            |s| &s.id,
            |s| &s.attrs,
            BoardPick::new("supply", "supplies", "kind=resource"),
        ) else {
            return Vec::new();
        };
        let rows = list
            .iter()
            .map(|s| Row {
                anchors: Vec::new(),
                cells: vec![
                    vec![Span::Text(if s.name.is_empty() { label(&s.id) } else { s.name.clone() })],
                    vec![Span::Text(s.count.to_string())],
                ],
            })
            .collect();
        vec![Block::Table(Table {
            header: vec![vec![Span::Text("Supply".into())], vec![Span::Text("Pieces".into())]],
            rows,
        })]
    }

    /// Everything a pack's definitions say, for a pack without a rules document: cards by
    /// kind, nobles, leaders, plaques, scenarios and the board, each under a heading.
    fn catalogue(&mut self, from: &str) -> Vec<Block> {
        let pack = self.pack;
        let level = (self.level + 1).min(3);
        let mut out = Vec::new();
        let all = Columns { values: Vec::new(), attrs: Vec::new() };
        let of = |k: DefKind| -> Vec<&'p Def> {
            pack.defs.iter().filter(|d| d.kind == k && d.origin.pack == from).collect()
        };
        let cards = of(DefKind::Card);
        let kinds: BTreeSet<String> = cards.iter().map(|d| print_kind(d)).collect();
        for k in kinds {
            let defs: Vec<&Def> = cards.iter().copied().filter(|d| print_kind(d) == k).collect();
            let copies: i64 = defs.iter().map(|d| d.def.count).sum();
            let anchor = self.anchor_for(&format!("kind-{k}"));
            let color = Colors { band: kind_color(pack, &k) }.json().0;
            out.push(Block::Heading {
                level,
                text: vec![Span::Text(format!("{} ({copies} card{})", label(&k), if copies == 1 { "" } else { "s" }))],
                anchor,
                color: Some(color),
            });
            let cols = Columns {
                values: defs
                    .iter()
                    .flat_map(|d| d.def.values.keys().cloned())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect(),
                attrs: Vec::new(),
            };
            out.push(self.defs_block(&defs, false, &cols));
        }
        for (k, title) in [(DefKind::Noble, "Nobles"), (DefKind::Leader, "Leaders"), (DefKind::Plaque, "Plaques")] {
            let defs = of(k);
            if defs.is_empty() {
                continue;
            }
            let anchor = self.anchor_for(&slug(title));
            out.push(Block::Heading { level, text: vec![Span::Text(title.into())], anchor, color: None });
            let cols = Columns {
                values: defs
                    .iter()
                    .flat_map(|d| d.def.values.keys().cloned())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect(),
                ..all.clone()
            };
            out.push(self.defs_block(&defs, false, &cols));
        }
        if pack.scenarios.iter().any(|s| s.origin.pack == from) {
            let anchor = self.anchor_for("scenarios");
            out.push(Block::Heading { level, text: vec![Span::Text("Scenarios".into())], anchor, color: None });
            let args = Args { named: BTreeMap::new(), positional: Vec::new() };
            let saved = std::mem::replace(&mut self.chapter_pack, from.to_string());
            out.extend(self.scenarios_block(&args, &(0..0)));
            self.chapter_pack = saved;
        }
        if let Some((b, origin)) = &pack.board {
            if origin.pack == from {
                let anchor = self.anchor_for("board");
                out.push(Block::Heading { level, text: vec![Span::Text("Board".into())], anchor, color: None });
                let args = Args { named: BTreeMap::new(), positional: Vec::new() };
                if b.grid.is_some() {
                    out.extend(self.grid_block());
                }
                if !b.space.is_empty() {
                    out.extend(self.spaces_block(&args, &(0..0)));
                }
                if !b.supply.is_empty() {
                    out.extend(self.supplies_block(&args, &(0..0)));
                }
            }
        }
        out
    }
}

/// One face of a definition, as placeholders read it.
struct Face<'p> {
    name: &'p str,
    values: &'p BTreeMap<String, i64>,
    cost: Option<&'p BTreeMap<String, i64>>,
    attrs: &'p BTreeMap<String, String>,
    what: String,
}

/// Which values and attributes a list shows.
#[derive(Debug, Clone)]
struct Columns {
    values: Vec<String>,
    attrs: Vec<String>,
}

/// Printed twins folded together: same name, text, numbers and sides (in different decks,
/// say) count as one entry whose count is their sum.
struct Group<'p> {
    def: &'p Def,
    ids: Vec<String>,
    count: i64,
    serial: Option<i64>,
    decks: Vec<String>,
    entry: Entry,
    /// The text for a table cell: the text, each stage and the back, in card markup.
    table_text: String,
}

fn merge_twins<'p>(pack: &Pack, defs: &[&'p Def], cols: &Columns) -> Vec<Group<'p>> {
    let mut out: Vec<Group<'p>> = Vec::new();
    for d in defs {
        let e = entry(pack, d, cols);
        let twin = out.iter_mut().find(|g| {
            g.serial.is_none()
                && d.def.serial.is_none()
                && g.entry.title == e.title
                && g.entry.paras == e.paras
                && g.entry.flavor == e.flavor
                && g.def.def.values == d.def.values
                && g.def.def.cost == d.def.cost
                && g.def.def.keywords == d.def.keywords
                && print_kind(g.def) == print_kind(d)
        });
        match twin {
            Some(g) => {
                g.ids.push(d.def.id.clone());
                g.count += d.def.count;
                for k in &d.def.decks {
                    if !g.decks.contains(k) {
                        g.decks.push(k.clone());
                    }
                }
                g.entry.badge = badge(g.serial, g.count);
                g.entry.meta = meta(g.def, cols, &g.decks);
            }
            None => {
                let mut table_text = d.def.text.clone();
                for st in &d.def.stages {
                    let mut p = format!("**{}**", st.name);
                    if !st.values.is_empty() {
                        p.push_str(&format!(" ({})", numbers_text(&st.values)));
                    }
                    if !st.text.is_empty() {
                        p.push_str(&format!(": {}", st.text));
                    }
                    if !table_text.is_empty() {
                        table_text.push('\n');
                    }
                    table_text.push_str(&p);
                }
                if let Some(b) = &d.def.back {
                    let side = b.attrs.get("side").cloned().unwrap_or_else(|| "Other side".into());
                    if !table_text.is_empty() {
                        table_text.push('\n');
                    }
                    table_text.push_str(&format!("**{side}:** {}", b.text));
                }
                out.push(Group {
                    def: d,
                    ids: vec![d.def.id.clone()],
                    count: d.def.count,
                    serial: d.def.serial,
                    decks: d.def.decks.clone(),
                    entry: e,
                    table_text,
                });
            }
        }
    }
    out
}

fn badge(serial: Option<i64>, count: i64) -> String {
    match serial {
        Some(s) => format!("#{s} · ×{count}"),
        None => format!("×{count}"),
    }
}

fn meta(d: &Def, cols: &Columns, decks: &[String]) -> String {
    let def = &d.def;
    let mut meta = vec![label(&print_kind(d))];
    if !def.cost.is_empty() {
        meta.push(format!("cost {}", cost_text(&def.cost)));
    }
    let values: BTreeMap<String, i64> =
        def.values.iter().filter(|(k, _)| cols.values.contains(k)).map(|(k, v)| (k.clone(), *v)).collect();
    if !values.is_empty() {
        meta.push(numbers_text(&values));
    }
    for a in &cols.attrs {
        if let Some(v) = def.attrs.get(a) {
            meta.push(format!("{} {}", label(a), label(v)));
        }
    }
    if !def.keywords.is_empty() {
        meta.push(def.keywords.iter().map(|k| label(k)).collect::<Vec<_>>().join(", "));
    }
    if !decks.is_empty() {
        meta.push(format!("deck: {}", decks.iter().map(|k| label(k)).collect::<Vec<_>>().join(", ")));
    }
    meta.join(" · ")
}

/// The gallery entry of one definition: its text, each stage, its back, what it brings.
fn entry(pack: &Pack, d: &Def, cols: &Columns) -> Entry {
    let def = &d.def;
    let mut paras = Vec::new();
    if !def.text.is_empty() {
        paras.push(EntryPara { side: false, rich: vec![Span::Markup(def.text.clone())] });
    }
    for s in &def.stages {
        let mut head = format!("{}: {}", stage_label(s.position), s.name);
        let mut rest = String::new();
        if !s.values.is_empty() {
            head.push_str(&format!(" ({})", numbers_text(&s.values)));
        }
        let upgrades: Vec<String> = s
            .upgrades
            .iter()
            .map(|u| {
                let to = def
                    .stages
                    .iter()
                    .find(|t| t.position == u.to)
                    .map_or_else(|| u.to.as_str().to_string(), |t| t.name.clone());
                let cost = if u.cost.is_empty() { "free".to_string() } else { cost_text(&u.cost) };
                format!("{cost}: {} to {to}", s.position.turn_to(u.to))
            })
            .collect();
        if !s.text.is_empty() {
            rest.push_str(&format!(". {}", s.text));
        }
        if !upgrades.is_empty() {
            rest.push_str(&format!(" Upgrade: {}.", upgrades.join("; ")));
        }
        let mut rich = vec![Span::Bold(vec![Span::Text(head)])];
        if !rest.is_empty() {
            rich.push(Span::Markup(rest));
        }
        paras.push(EntryPara { side: true, rich });
    }
    if let Some(b) = &def.back {
        let side = b.attrs.get("side").cloned().unwrap_or_else(|| "Other side".into());
        let name = if b.name.is_empty() { def.name.clone() } else { b.name.clone() };
        let mut head = format!("{side}: {name}");
        let extra: Vec<String> = [
            if b.cost.is_empty() { String::new() } else { format!("cost {}", cost_text(&b.cost)) },
            numbers_text(
                &b.values.iter().filter(|(k, _)| cols.values.contains(k)).map(|(k, v)| (k.clone(), *v)).collect(),
            ),
        ]
        .into_iter()
        .filter(|x| !x.is_empty())
        .collect();
        if !extra.is_empty() {
            head.push_str(&format!(" ({})", extra.join("; ")));
        }
        paras.push(EntryPara {
            side: true,
            rich: vec![Span::Bold(vec![Span::Text(head)]), Span::Markup(format!(". {}", b.text))],
        });
    }
    if !def.cards.is_empty() {
        let mut brings: Vec<(String, i64)> = Vec::new();
        for id in &def.cards {
            let name = pack.get(id).map_or_else(|| id.clone(), |x| x.def.name.clone());
            match brings.iter_mut().find(|(n, _)| *n == name) {
                Some((_, c)) => *c += 1,
                None => brings.push((name, 1)),
            }
        }
        let text = brings
            .iter()
            .map(|(n, c)| if *c > 1 { format!("{n} ×{c}") } else { n.clone() })
            .collect::<Vec<_>>()
            .join(", ");
        paras.push(EntryPara { side: false, rich: vec![Span::Text(format!("Starts with: {text}"))] });
    }
    Entry {
        anchors: Vec::new(),
        title: def.name.clone(),
        badge: badge(def.serial, def.count),
        meta: meta(d, cols, &def.decks),
        color: String::new(),
        paras,
        flavor: def.flavor.clone(),
    }
}

/// Expand the rules documents of a pack for `crown check`: only the diagnostics (and the
/// documents read, for their snippets).
pub fn check(pack: &Pack, icons: &IconSet) -> (Vec<Diagnostic>, Vec<SourceFile>) {
    let b = build_with(pack, icons, false);
    (b.diagnostics, b.sources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("Setting up: two players"), "setting-up-two-players");
        assert_eq!(slug("**"), "section");
    }
}
