//! `crown reference`: the rules reference of a pack in HTML, PDF or Markdown.
//!
//! The content is one [`ref_doc::Doc`]: the pack's rules documents (`content/<pack>/rules.md`,
//! one chapter per pack of the chain) with their placeholders filled in from the
//! definitions, or a catalogue of the definitions for a pack without one. [`ref_text`]
//! writes it as HTML or Markdown (placed in the `reference.html` / `reference.md`
//! templates), [`ref_pdf`] lays it out on pages drawn by `reference-page.svg`; so the
//! three formats show the same things.

use clap::ValueEnum;
use crown_engine::content::Pack;
use crown_engine::diag::{Diagnostic, SourceMap};
use serde_json::{json, Value};

use super::icons::IconSet;
use super::layout::{self, Issue};
use super::ref_doc;
use super::ref_pdf;
use super::ref_text::{self, Flavor};
use super::sheet::Paper;
use super::templates::Templates;

/// Output format of `crown reference`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReferenceFormat {
    Html,
    Pdf,
    Md,
}

impl ReferenceFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ReferenceFormat::Html => "html",
            ReferenceFormat::Pdf => "pdf",
            ReferenceFormat::Md => "md",
        }
    }
}

/// What the `reference.html` and `reference.md` templates see besides `body` and
/// `contents`: the pack and the document's header.
fn context(pack: &Pack, doc: &ref_doc::Doc) -> Value {
    let m = &pack.manifest;
    json!({
        "pack": {
            "id": m.id, "name": m.name, "version": m.version, "description": m.description,
            "players": ref_doc::players_text(m.players.min, m.players.max),
            "extends": m.extends,
        },
        "doc": { "title": doc.title, "meta": doc.meta, "description": doc.description },
    })
}

/// The rules documents of a pack and its chain that exist, for diagnostics' snippets.
pub fn rules_sources(pack: &Pack) -> SourceMap {
    let mut map = pack.sources.clone();
    for f in check_rules(pack).1 {
        map.insert(f);
    }
    map
}

/// What `crown check` reports about the rules documents: every placeholder, link and
/// icon that names nothing, at its line and column. The documents read are returned for
/// the snippets.
pub fn check_rules(pack: &Pack) -> (Vec<Diagnostic>, Vec<crown_engine::diag::SourceFile>) {
    if !ref_doc::has_rules(pack) {
        return (Vec::new(), Vec::new());
    }
    let (icons, _) = IconSet::for_pack(pack);
    ref_doc::check(pack, &icons)
}

/// Render the reference. Returns the bytes and warnings (unknown icons in card text, a
/// link to a card no list shows); `Err` when the rules document has errors (a placeholder
/// that names nothing, say), since the reference would be wrong.
pub fn render_reference(
    pack: &Pack,
    format: ReferenceFormat,
    paper: Paper,
) -> Result<(Vec<u8>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (icons, mut diags) = IconSet::for_pack(pack);
    let icons = std::sync::Arc::new(icons);
    let built = ref_doc::build(pack, &icons);
    if built.diagnostics.iter().any(Diagnostic::is_error) {
        diags.extend(built.diagnostics);
        return Err(diags);
    }
    diags.extend(built.diagnostics);
    let doc = built.doc;
    let templates = Templates::load(pack, icons.clone())?;
    let _ = layout::take_issues();
    let bytes = match format {
        ReferenceFormat::Html | ReferenceFormat::Md => {
            let (name, flavor) = if format == ReferenceFormat::Html {
                ("reference.html", Flavor::Html)
            } else {
                ("reference.md", Flavor::Markdown)
            };
            let mut data = context(pack, &doc);
            data["body"] = json!(ref_text::body(&doc, &icons, flavor));
            data["contents"] = json!(ref_text::contents(&doc, &icons, flavor));
            let text = templates.render(name, &data).map_err(|e| {
                vec![Diagnostic::error(
                    "template-error",
                    format!("{} failed: {e}", templates.origin(name).describe(name)),
                )]
            })?;
            text.trim_start().as_bytes().to_vec()
        }
        ReferenceFormat::Pdf => ref_pdf::write(&doc, &templates, &icons, context(pack, &doc)["pack"].clone(), paper)?,
    };
    for issue in layout::take_issues() {
        match issue {
            Issue::UnknownIcon(name) => diags.push(Diagnostic::error(
                "unknown-icon",
                format!("the icon `:{name}:` is used in the pack's text but not defined"),
            )),
            Issue::MissingGlyphs(chars) => diags.push(Diagnostic::warning(
                "missing-glyph",
                format!(
                    "characters the bundled font cannot draw: {}",
                    chars.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                ),
            )),
            Issue::Overflow { .. } => {}
        }
    }
    diags.dedup();
    Ok((bytes, diags))
}
