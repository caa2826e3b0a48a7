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
//!
//! The work is split by job: [`model`] is the document, [`specs`] the placeholders and
//! their arguments, [`expand`] walks a rules document, [`inline`] fills the placeholders
//! that stand for a few words, [`select`] and [`board`] pick what a list shows,
//! [`blocks`] and [`entries`] make its tables and galleries, [`text`] writes values as words.

mod blocks;
mod board;
mod entries;
mod expand;
mod inline;
mod model;
mod select;
mod specs;
mod text;

use crown_engine::diag::plural;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::PathBuf;

use crown_engine::content::{DefKind, Pack};
use crown_engine::diag::{Diagnostic, SourceFile};
use crown_engine::fsread;

use super::icons::IconSet;
use super::rules_md;

pub use model::{plain, Block, Doc, Entry, EntryPara, Rich, Row, Span, Table};
pub use specs::{Spec, SPECS};
pub use text::players_text;

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
        "Version {} · {} · {} card{}",
        m.version,
        text::players_phrase(m.players.min, m.players.max),
        cards_total,
        plural(cards_total)
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
        next_anchor: BTreeMap::new(),
        links: Vec::new(),
        made: 0,
        over: false,
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

/// The expansion in progress: the pack read, the problems found, the anchors and links made
/// so far. Its methods are spread over this module's files, by job.
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
    /// The next number to try after each anchor's base (`setup-2`, `setup-3`...), so a
    /// heading repeated thousands of times is not numbered from 2 again each time.
    next_anchor: BTreeMap<String, usize>,
    /// Links made, to warn about those whose target is never shown.
    links: Vec<(String, SourceFile, Range<usize>)>,
    /// What placeholders have made so far ([`model::cost`]), against [`OUTPUT_LIMIT`].
    made: usize,
    /// Past the limit: later placeholders make nothing.
    over: bool,
}

/// What the placeholders of a reference may make together ([`model::cost`]: bytes of
/// text, and a hundred for each row, entry or paragraph): a list or a table of every
/// definition asked for thousands of times, or a long name repeated, would otherwise
/// take minutes and gigabytes to write and lay out. The shipped packs' references make
/// at most 30 KiB; at the limit, a PDF of tables takes a few seconds.
const OUTPUT_LIMIT: usize = 2 * 1024 * 1024;

impl<'p> Expander<'p> {
    fn anchor_for(&mut self, base: &str) -> String {
        let mut a = base.to_string();
        let mut n = self.next_anchor.get(base).copied().unwrap_or(2);
        while self.anchors.contains(&a) {
            a = format!("{base}-{n}");
            n += 1;
        }
        self.next_anchor.insert(base.to_string(), n);
        self.anchors.insert(a.clone());
        a
    }

    /// Count what a placeholder made against [`OUTPUT_LIMIT`]; past it, an error at the
    /// placeholder (once) and `false`: what it made is dropped.
    fn made(&mut self, cost: usize, span: &Range<usize>) -> bool {
        if self.over {
            return false;
        }
        self.made = self.made.saturating_add(cost);
        if self.made <= OUTPUT_LIMIT {
            return true;
        }
        self.over = true;
        self.error(
            "reference-too-large",
            span,
            format!(
                "with this placeholder the reference passes {} MiB of generated text, the limit: placeholders after it \
                 make nothing",
                OUTPUT_LIMIT / (1024 * 1024)
            ),
            Some(
                "a list or table of the same definitions repeated, or a long value printed over and over? show each \
                 list once and link to it with [[id]]"
                    .into(),
            ),
        );
        false
    }

    fn error(&mut self, code: &'static str, span: &Range<usize>, message: impl Into<String>, hint: Option<String>) {
        let mut d = Diagnostic::error(code, message).maybe_hint(hint);
        if let Some(f) = &self.file {
            d = d.at(f, span.clone());
        }
        self.diags.push(d);
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
}

/// Expand the rules documents of a pack for `crown check`: only the diagnostics (and the
/// documents read, for their snippets).
pub fn check(pack: &Pack, icons: &IconSet) -> (Vec<Diagnostic>, Vec<SourceFile>) {
    let b = build_with(pack, icons, false);
    (b.diagnostics, b.sources)
}
