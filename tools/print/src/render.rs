//! One definition to one SVG face: pick the template, build the context, render it, and
//! turn whatever went wrong into diagnostics that name the card and its file.

use std::path::Path;
use std::sync::Arc;

use crown_engine::content::{Def, DefKind, Pack};
use crown_engine::diag::{Diagnostic, Severity};
use resvg::usvg;
use serde_json::{json, Value};

use super::context::{self, kind_color, Colors, Rgb};
use super::fonts;
use super::geometry::Geometry;
use super::icons::IconSet;
use super::layout::{self, Issue};
use super::templates::{Origin, Templates};
use super::util::{data_uri, image_mime, pack_file_in, Hasher};

/// Bumped when the renderer changes in a way that makes cached output stale.
const RENDERER_VERSION: u64 = 3;

/// Compiled templates and the icons they draw with, kept between two [`Printer`]s of one
/// pack, with the key of what they were made from.
#[derive(Debug, Default)]
pub struct KeptTemplates(Option<(u64, Arc<IconSet>, Arc<Templates>)>);

/// Which side of a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    Front,
    Back,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Front => "front",
            Side::Back => "back",
        }
    }
}

/// A rendered face.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub svg: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// Everything needed to render the faces of one pack.
pub struct Printer<'p> {
    pub pack: &'p Pack,
    pub templates: Arc<Templates>,
    pub icons: Arc<IconSet>,
    /// The size of cards (tiles have their own: [`Printer::geom_of`]).
    pub geom: Geometry,
    /// The side of a tile's square, in millimetres.
    pub square_mm: f64,
    base_hash: u64,
    back_color: Rgb,
    back_ink: Rgb,
    /// Names and versions of the pack and the packs it extends.
    packs: std::collections::BTreeMap<String, Value>,
}

impl std::fmt::Debug for Printer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Printer").field("pack", &self.pack.id()).field("geom", &self.geom).finish()
    }
}

impl<'p> Printer<'p> {
    /// Load the pack's icons and templates. Broken templates or icon files are errors;
    /// the second value holds warnings (and icon errors, which do not stop rendering).
    pub fn new(pack: &'p Pack, geom: Geometry) -> Result<(Printer<'p>, Vec<Diagnostic>), Vec<Diagnostic>> {
        Printer::new_kept(pack, geom, &mut KeptTemplates::default())
    }

    /// [`Printer::new`], with the templates compiled last time when neither their text nor
    /// the icons changed (compiling them is most of what checking a pack's faces costs).
    pub fn new_kept(
        pack: &'p Pack,
        geom: Geometry,
        kept: &mut KeptTemplates,
    ) -> Result<(Printer<'p>, Vec<Diagnostic>), Vec<Diagnostic>> {
        let (icons, mut diags) = IconSet::for_pack(pack);
        let mut key = Hasher::default();
        key.u64(icons.hash);
        for (name, (text, _)) in &super::templates::sources(pack).0 {
            key.str(name).str(text);
        }
        let key = key.finish();
        let (icons, templates) = match &kept.0 {
            Some((k, icons, templates)) if *k == key => (icons.clone(), templates.clone()),
            _ => {
                let icons = Arc::new(icons);
                let templates = match Templates::load(pack, icons.clone()) {
                    Ok(t) => Arc::new(t),
                    Err(mut e) => {
                        e.extend(diags);
                        return Err(e);
                    }
                };
                kept.0 = Some((key, icons.clone(), templates.clone()));
                (icons, templates)
            }
        };
        let manifest_file = Path::new("content").join(pack.id()).join("pack.toml");
        for (kind, c) in &pack.manifest.colors {
            // A terrain's colour is checked with the terrains: it has no default.
            if Rgb::parse(c).is_none() && !super::tiles::is_terrain(pack, kind) {
                diags.push(
                    Diagnostic::warning(
                        "bad-color",
                        format!("colour `{c}` of `{kind}` is not a CSS colour; the default is used"),
                    )
                    .in_file(&manifest_file)
                    .hint("write colours as `#rrggbb` or a CSS colour name"),
                );
            }
        }
        diags.extend(super::tiles::check_terrains(pack));
        let mut carried = std::collections::BTreeSet::new();
        for d in &pack.defs {
            carried.extend(d.def.values.keys().map(String::as_str));
            for st in &d.def.stages {
                carried.extend(st.values.keys().map(String::as_str));
            }
            if let Some(b) = &d.def.back {
                carried.extend(b.values.keys().map(String::as_str));
            }
            for c in &d.def.cells {
                carried.extend(c.values.keys().map(String::as_str));
            }
        }
        for v in &pack.manifest.print.hide_values {
            if !carried.contains(v.as_str()) {
                diags.push(
                    Diagnostic::warning(
                        "unknown-value",
                        format!("`[print] hide_values` names `{v}`, a value no definition of the pack carries"),
                    )
                    .in_file(&manifest_file)
                    .maybe_hint(
                        crown_engine::diag::did_you_mean(v, carried.iter().copied())
                            .map(|n| format!("did you mean `{n}`?")),
                    ),
                );
            }
        }
        let m = &pack.manifest;
        let mut h = Hasher::default();
        h.u64(RENDERER_VERSION)
            .u64(templates.hash)
            .u64(icons.hash)
            .str(&m.id)
            .str(&m.name)
            .str(&m.version)
            .str(&format!("{:?}", m.colors))
            .str(&format!("{:?}", m.icons))
            .str(&format!("{:?}", m.print))
            .str(&format!("{:?}", (geom.w.to_bits(), geom.h.to_bits(), geom.bleed.to_bits())));
        let back_color = m.colors.get("back").and_then(|s| Rgb::parse(s)).unwrap_or(Rgb(0x2b, 0x2f, 0x3a));
        let back_ink = m.colors.get("back-ink").and_then(|s| Rgb::parse(s)).unwrap_or(Rgb(0xe8, 0xd9, 0xb0));
        let packs = context::chain_names(pack);
        h.str(&format!("{packs:?}"));
        let square_mm = m.print.tile_square();
        Ok((
            Printer { pack, templates, icons, geom, square_mm, base_hash: h.finish(), back_color, back_ink, packs },
            diags,
        ))
    }

    /// The game the pack belongs to (`{id, name, version}` of the pack at the root of its
    /// `extends` chain), as templates see it under `game`.
    pub fn game(&self) -> Value {
        self.pack.chain.last().and_then(|id| self.packs.get(id)).cloned().unwrap_or(Value::Null)
    }

    /// The size a definition prints at: a tile's shape in squares, else the cards' size.
    pub fn geom_of(&self, d: &Def) -> Geometry {
        if super::tiles::is_tile(d) {
            super::tiles::geometry(d, self.square_mm, self.geom.bleed)
        } else {
            self.geom
        }
    }

    /// Whether a definition has a back of its own (stages on the back, or a `back` face).
    pub fn two_sided(d: &Def) -> bool {
        !d.def.stages.is_empty() || d.def.back.is_some()
    }

    /// The template that draws a side of a definition.
    pub fn template(&self, d: &Def, side: Side) -> String {
        let kind = context::print_kind(d);
        let specific = format!("{}-{kind}.svg", side.as_str());
        if self.templates.has(&specific) {
            return specific;
        }
        let name = match side {
            Side::Front if super::tiles::is_tile(d) => "tile-front.svg",
            Side::Back if super::tiles::is_tile(d) => "tile-back.svg",
            Side::Front if !d.def.stages.is_empty() => "stages-front.svg",
            Side::Front if d.kind == DefKind::Plaque => "plaque-front.svg",
            Side::Front if d.kind.is_character() => "character-front.svg",
            Side::Front => "card-front.svg",
            Side::Back if !d.def.stages.is_empty() => "stages-back.svg",
            Side::Back if d.def.back.is_some() && d.kind == DefKind::Plaque => "plaque-back.svg",
            Side::Back if d.def.back.is_some() => "card-reverse.svg",
            Side::Back => "card-back.svg",
        };
        name.to_string()
    }

    /// The cache key of a side: the definition, the template set, the pack's look, the
    /// geometry, and the art file's size and time.
    pub fn key(&self, d: &Def, side: Side) -> u64 {
        let mut h = Hasher::default();
        h.u64(self.base_hash).str(side.as_str()).str(&self.template(d, side));
        h.str(&serde_json::to_string(&d.def).unwrap_or_default());
        h.str(d.kind.as_str());
        let g = self.geom_of(d);
        h.u64(g.w.to_bits()).u64(g.h.to_bits());
        for id in &d.def.cards {
            if let Some(x) = self.pack.get(id) {
                h.str(&x.def.name);
            }
        }
        if let Some(art) = &d.def.art {
            let p = self.pack.project.join("content").join(&d.origin.pack).join(art);
            if let Ok(m) = std::fs::metadata(&p) {
                h.u64(m.len());
                if let Ok(t) = m.modified().map(|t| t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default()) {
                    h.u64(t.as_nanos() as u64);
                }
            }
        }
        h.finish()
    }

    /// The context a template sees for a side of a definition.
    pub fn context(&self, d: &Def, side: Side, diags: &mut Vec<Diagnostic>) -> Value {
        let mut art_uri = None;
        let mut art_missing = None;
        if let Some(art) = &d.def.art {
            match pack_file_in(self.pack, &d.origin.pack, art) {
                Ok((shown, bytes)) => match image_mime(&bytes) {
                    Some(mime) => art_uri = Some(data_uri(mime, &bytes)),
                    None => {
                        diags.push(self.card_diag(
                            d,
                            Severity::Error,
                            "bad-art",
                            format!(
                                "art of `{}`: `{}` is not a PNG, JPEG, GIF, WebP or SVG image",
                                d.def.id,
                                shown.display()
                            ),
                        ));
                        art_missing = Some(art.clone());
                    }
                },
                Err(msg) => {
                    diags.push(
                        self.card_diag(d, Severity::Error, "missing-art", format!("art of `{}`: {msg}", d.def.id))
                            .hint("art paths are relative to the pack folder, e.g. `art/trebuchet.png`"),
                    );
                    art_missing = Some(art.clone());
                }
            }
        }
        let card =
            context::card_json(self.pack, d, &self.icons, art_uri.as_deref(), art_missing.as_deref(), &self.packs);
        let colors = Colors { band: kind_color(self.pack, &context::print_kind(d)) };
        let (color, color_dark, color_light) = colors.json();
        let m = &self.pack.manifest;
        let tile = super::tiles::is_tile(d);
        let geom = if tile { super::tiles::design(self.geom_of(d), self.square_mm) } else { self.geom.design() };
        let tile = if tile {
            let bleed = geom["bleed"].as_f64().unwrap_or(0.0);
            super::tiles::tile_json(self.pack, d, &self.icons, bleed)
        } else {
            Value::Null
        };
        json!({
            "pack": { "id": m.id, "name": m.name, "version": m.version, "description": m.description },
            // The game the pack belongs to: the pack at the root of its `extends` chain,
            // whose name the common back shows so that expansion cards shuffle in unseen.
            "game": self.game(),
            "geom": geom,
            "card": card,
            "tile": tile,
            "side": side.as_str(),
            "color": color,
            "color_dark": color_dark,
            "color_light": color_light,
            "ink": colors.ink(),
            "back_color": self.back_color.hex(),
            "back_ink": self.back_ink.hex(),
            "back_icon": if self.icons.has("back") { "back" } else { "crown" },
        })
    }

    /// Render a side to SVG text. Problems come back as diagnostics on the card; the SVG
    /// is still produced where possible (a missing art file draws a marked placeholder).
    pub fn render(&self, d: &Def, side: Side) -> Rendered {
        let mut diags = Vec::new();
        let ctx = self.context(d, side, &mut diags);
        let name = self.template(d, side);
        let _ = layout::take_issues();
        let result = self.templates.render(&name, &ctx);
        let issues = layout::take_issues();
        // Markup left open is printed as written, and reported at its place in the file.
        diags.extend(super::markup::check(self.pack, d, side == Side::Back));
        let what = self.templates.origin(&name).describe(&name);
        for issue in issues {
            diags.push(match issue {
                Issue::UnknownIcon(icon) => {
                    let known: Vec<&str> = self.icons.names().collect();
                    let near = crown_engine::diag::did_you_mean(&icon, known.iter().copied());
                    let hint = format!(
                        "{}add `{icon} = \"icons/{icon}.svg\"` to `[icons]` in pack.toml, or use a built-in icon: {}",
                        near.map(|s| format!("did you mean `:{s}:`? or ")).unwrap_or_default(),
                        super::icons::builtin_names().join(", ")
                    );
                    let message = format!("`{}` uses the icon `:{icon}:`, which the pack does not define", d.def.id);
                    let src = self.pack.sources.get(&d.origin.file);
                    match src.and_then(|f| Some((f, icon_in_definition(f, d, &icon)?))) {
                        // At the `:icon:` in the card's text (or its spreadsheet cell).
                        Some((f, span)) => Diagnostic::error("unknown-icon", message).at(f, span).label("not an icon of the pack").hint(hint),
                        // Not written in the card: the template draws it, for every card.
                        None => self
                            .card_diag(d, Severity::Error, "unknown-icon", format!("{what} failed for `{}` ({}): it draws the icon `{icon}`, which the pack does not define", d.def.id, side.as_str()))
                            .hint(hint),
                    }
                }
                Issue::MissingGlyphs(chars) => self
                    .card_diag(
                        d,
                        Severity::Warning,
                        "missing-glyph",
                        format!(
                            "`{}` has characters the bundled font cannot draw: {}",
                            d.def.id,
                            chars.iter().map(|c| format!("`{c}` (U+{:04X})", *c as u32)).collect::<Vec<_>>().join(", ")
                        ),
                    )
                    .hint("use `:icon:` markup for symbols"),
                Issue::Overflow { excerpt, size, needed, box_height, too_wide } => {
                    let detail = match &too_wide {
                        Some(word) => format!("`{word}` is wider than the box even at {size:.1} mm type"),
                        None => format!("it needs {needed:.1} mm but the box is {box_height:.1} mm high at the smallest size ({size:.1} mm)"),
                    };
                    let message = format!("text of `{}` does not fit its box on the {} ({what}): \"{excerpt}\": {detail}", d.def.id, side.as_str());
                    let src = self.pack.sources.get(&d.origin.file);
                    match src.and_then(|f| Some((f, overflow_in_definition(f, d, &excerpt, too_wide.as_deref())?))) {
                        // At the words in the card's own text (or its spreadsheet cell).
                        Some((f, span)) => Diagnostic::warning("text-overflow", message)
                            .at(f, span)
                            .label(if too_wide.is_some() { "too wide for the box" } else { "does not fit" }),
                        None => self.card_diag(d, Severity::Warning, "text-overflow", message),
                    }
                    .hint("shorten the text, or give the template a bigger box")
                }
            });
        }
        let svg = match result {
            Ok(s) => s,
            Err(msg) => {
                let mut diag = self.card_diag(
                    d,
                    Severity::Error,
                    "template-error",
                    format!("{what} failed for `{}` ({}): {msg}", d.def.id, side.as_str()),
                );
                if let Origin::Pack(p) = self.templates.origin(&name) {
                    diag = diag.hint(format!("fix {}", p.display()));
                }
                diags.push(diag);
                return Rendered { svg: String::new(), diagnostics: diags };
            }
        };
        let svg = if name.ends_with(".svg") { self.icons.attach_symbols(&tidy_numbers(&svg)) } else { svg };
        Rendered { svg, diagnostics: diags }
    }

    /// Template errors that repeat face after face, one finding each: a template that fails
    /// the same way for many cards (a broken tag, a field some cards lack) is reported
    /// once, at the line of the template where it fails when that can be found (else at the
    /// first card), naming how many cards it fails for and the first few. Other
    /// diagnostics pass through in their order.
    pub fn group_template_errors(&self, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = Vec::with_capacity(diags.len());
        // (template's description, error) -> (index in `out`, the cards it fails for)
        let mut groups: Vec<((String, String), usize, Vec<String>)> = Vec::new();
        for d in diags {
            let parts =
                matches!(d.code, "template-error" | "unknown-icon").then(|| template_failure(&d.message)).flatten();
            let Some((what, id, error)) = parts else {
                out.push(d);
                continue;
            };
            let key = (what.to_string(), error.to_string());
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => {
                    if !g.2.iter().any(|x| x == id) {
                        g.2.push(id.to_string());
                    }
                }
                None => {
                    groups.push((key, out.len(), vec![id.to_string()]));
                    out.push(d);
                }
            }
        }
        for ((what, error), i, ids) in groups {
            let name = self.templates.origins.iter().find(|(n, o)| o.describe(n) == what).map(|(n, _)| n.clone());
            let first = &out[i];
            let shown: Vec<String> = ids.iter().take(3).map(|id| format!("`{id}`")).collect();
            let cards = match ids.len() {
                1 => shown.join(""),
                n if n <= 3 => format!("{n} cards ({})", shown.join(", ")),
                n => format!("{n} cards ({} and {} more)", shown.join(", "), n - 3),
            };
            let error = match &name {
                Some(n) => error.strip_prefix(&format!("Failed to render '{n}': ")).unwrap_or(&error),
                None => &error,
            };
            let message = format!("{what} fails for {cards}: {error}");
            let placed = name.as_deref().and_then(|n| self.templates.locate(n, error));
            let grouped = match placed {
                Some((src, span)) => {
                    let mut d = Diagnostic::error(first.code, message).at(&src, span).label(match ids.len() {
                        1 => "fails here for this card".to_string(),
                        n => format!("fails here for {n} cards"),
                    });
                    if let (Some(file), Some(span)) = (&first.file, &first.span) {
                        d.related.push(crown_engine::diag::Related {
                            file: file.clone(),
                            line: first.line,
                            column: first.column,
                            span: span.clone(),
                            message: format!(
                                "the {}card it fails for: `{}`",
                                if ids.len() > 1 { "first " } else { "" },
                                ids[0]
                            ),
                        });
                    }
                    let missing = error.strip_prefix("Variable `").and_then(|r| r.split_once('`')).map(|x| x.0);
                    let hint = first.hint.clone().filter(|_| first.code != "template-error");
                    d.maybe_hint(hint).maybe_hint(missing.filter(|_| error.contains("not found in context")).map(|v| {
                        format!(
                            "not every card has `{v}`: test it first (`{{% if {v} is defined %}}`) or give a default (`{{{{ {v} | default(value=\"\") }}}}`)"
                        )
                    }))
                }
                None => Diagnostic { message, ..first.clone() },
            };
            out[i] = grouped;
        }
        out
    }

    /// A diagnostic about a definition, pointing at its id in its file.
    pub fn card_diag(&self, d: &Def, sev: Severity, code: &'static str, msg: String) -> Diagnostic {
        let diag = match sev {
            Severity::Error => Diagnostic::error(code, msg),
            Severity::Warning => Diagnostic::warning(code, msg),
        };
        match self.pack.sources.get(&d.origin.file) {
            Some(src) => diag.at(src, d.origin.id_span.clone()).label("this card"),
            None => diag.in_file(&d.origin.file),
        }
    }
}

/// Where `:icon:` is written in the definition's own text in its file (a `[[card]]` table
/// up to the next definition, or its spreadsheet row): a whole name after a colon not
/// escaped and not inside a word.
fn icon_in_definition(f: &crown_engine::SourceFile, d: &Def, icon: &str) -> Option<std::ops::Range<usize>> {
    let (start, end) = definition_body(f, d);
    let text: &str = &f.text;
    let token = format!(":{icon}:");
    let body = &text[start..end];
    let mut from = 0;
    while let Some(i) = body[from..].find(&token) {
        let at = from + i;
        let before = body[..at].chars().next_back();
        let after = body[at + token.len()..].chars().next();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '\\') && !after.is_some_and(char::is_alphanumeric) {
            return Some(start + at..start + at + token.len());
        }
        from = at + 1;
    }
    None
}

/// Where the text a face could not fit is written in the definition's own text: the word
/// too wide for the box when one is, else the text's first words (from the excerpt the
/// layout reported). `None` when the words are not written there as they print (a
/// template made them, or markup starts them).
fn overflow_in_definition(
    f: &crown_engine::SourceFile,
    d: &Def,
    excerpt: &str,
    too_wide: Option<&str>,
) -> Option<std::ops::Range<usize>> {
    let (start, end) = definition_body(f, d);
    let body = &f.text[start..end];
    let needle: String = match too_wide {
        Some(word) => word.to_string(),
        None => {
            // The first words, up to about 24 characters.
            let mut out = String::new();
            for w in excerpt.trim_end_matches("...").split(' ') {
                if !out.is_empty() && out.len() + w.len() > 24 {
                    break;
                }
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(w);
            }
            out
        }
    };
    if needle.trim().is_empty() {
        return None;
    }
    // Past the `id` value (the id may hold the same word as the name).
    let from = d.origin.id_span.end.clamp(start, end) - start;
    let at = body[from..].find(needle.as_str()).map(|i| from + i)?;
    Some(start + at..start + at + needle.len())
}

/// A definition's own text in its file, `(start, end)`: its `[[card]]` table with its
/// sub-tables, up to the next definition, or its spreadsheet row.
pub(super) fn definition_body(f: &crown_engine::SourceFile, d: &Def) -> (usize, usize) {
    let text: &str = &f.text;
    let sheet = f.path.file_name().and_then(|n| n.to_str()).and_then(crown_engine::load::table::TableFormat::of);
    let start = d.origin.span.start.min(text.len());
    let end = if sheet.is_some() {
        d.origin.span.end.min(text.len())
    } else {
        // The definition's sub-tables (`[[card.stages]]`) follow its header; the next
        // top-level header starts the next definition.
        let mut off = start;
        let mut end = text.len();
        for (k, line) in text[start..].split_inclusive('\n').enumerate() {
            let head = line.trim_start().strip_prefix('[').map(|h| h.trim_start_matches('['));
            if k > 0 && head.is_some_and(|h| !h.split(']').next().unwrap_or("").contains('.')) {
                end = off;
                break;
            }
            off += line.len();
        }
        end
    };
    (start, end)
}

/// The parts of a face's template error, `TEMPLATE failed for `ID` (SIDE): ERROR`: the
/// template's description, the card's id and the error.
fn template_failure(message: &str) -> Option<(&str, &str, &str)> {
    let (what, rest) = message.split_once(" failed for `")?;
    let (id, rest) = rest.split_once("` (")?;
    let (_, error) = rest.split_once("): ")?;
    Some((what, id, error))
}

/// Round the float noise of template arithmetic (`9.271999999999998`) to three decimals,
/// inside tags only: text between tags (card text) is never touched.
pub fn tidy_numbers(svg: &str) -> String {
    let b = svg.as_bytes();
    let mut out = String::with_capacity(svg.len());
    let mut in_tag = false;
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        match b[i] {
            b'<' => in_tag = true,
            b'>' => in_tag = false,
            b'.' if in_tag && i > 0 && b[i - 1].is_ascii_digit() => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                if j - i - 1 > 3 && !(j < b.len() && (b[j].is_ascii_alphabetic() && b[j] != b'm')) {
                    let mut k = i - 1;
                    while k > 0 && b[k - 1].is_ascii_digit() {
                        k -= 1;
                    }
                    let neg = k > 0 && b[k - 1] == b'-';
                    let start = if neg { k - 1 } else { k };
                    // `1.2.34567` (a version, say) is not a number.
                    if start == 0 || b[start - 1] != b'.' {
                        if let Ok(x) = svg[start..j].parse::<f64>() {
                            out.push_str(&svg[last..start]);
                            out.push_str(&super::util::num(x));
                            last = j;
                        }
                    }
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&svg[last..]);
    out
}

/// Parse a face's SVG with the bundled fonts only. Images must be `data:` URIs: usvg
/// reads no file and no system font.
///
/// ```
/// let t = crown_print::parse_svg(r#"<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="20mm"/>"#).unwrap();
/// assert!((t.size().height() / t.size().width() - 2.0).abs() < 1e-6);
/// ```
pub fn parse_svg(svg: &str) -> Result<usvg::Tree, String> {
    let opts = usvg::Options {
        fontdb: fonts::database(),
        font_family: fonts::SANS_FAMILY.to_string(),
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: usvg::ImageHrefResolver::default_data_resolver(),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    usvg::Tree::from_str(svg, &opts).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::tidy_numbers;

    #[test]
    fn float_noise_is_rounded_in_tags_only() {
        let svg = r#"<text x="9.271999999999998" y="-0.30000000000000004" width="4.992000000000001mm">0.30000000000000004 stays</text><image href="data:a;base64,AB12"/>"#;
        assert_eq!(
            tidy_numbers(svg),
            r#"<text x="9.272" y="-0.3" width="4.992mm">0.30000000000000004 stays</text><image href="data:a;base64,AB12"/>"#
        );
        assert_eq!(tidy_numbers(r#"<path d="M1.00001 2.5 L3.123456,4"/>"#), r#"<path d="M1 2.5 L3.123,4"/>"#);
    }
}
