//! The laid-out pages drawn and written: each page rendered by the `reference-page.svg`
//! template, then the PDF with krilla, with links on the cross-references and bookmarks.

use crown_engine::diag::Diagnostic;
use serde_json::json;

use super::flow::flow;
use super::{Places, PAGE_MARGIN};
use crate::fonts::{self, FontId};
use crate::icons::IconSet;
use crate::layout::{Laid, Run};
use crate::ref_doc::{plain, Block, Doc};
use crate::render::parse_svg;
use crate::sheet::{pt, Paper};
use crate::templates::Templates;

/// Where `label` is printed in a laid-out text: rectangles in mm (x, top, width, height).
fn find_label(t: &Laid, label: &str) -> Vec<(f32, f32, f32, f32)> {
    let size = t.size as f32;
    let mut out = Vec::new();
    for line in &t.lines {
        for r in &line.runs {
            let Run::Text { x, text, weight, style, .. } = r else { continue };
            let font = match (*weight, *style) {
                ("bold", _) => FontId::SansBold,
                (_, "italic") => FontId::SansItalic,
                _ => FontId::Sans,
            };
            let mut from = 0;
            while let Some(i) = text[from..].find(label).map(|i| from + i) {
                let x0 = *x as f32 + fonts::width_em(font, &text[..i]) * size;
                let w = fonts::width_em(font, label) * size;
                out.push((x0, line.y as f32 - size * 0.85, w, size * 1.15));
                from = i + label.len();
            }
        }
    }
    out
}

/// Write the PDF.
pub fn write(
    doc: &Doc,
    templates: &Templates,
    icons: &IconSet,
    pack: serde_json::Value,
    paper: Paper,
) -> Result<Vec<u8>, Vec<Diagnostic>> {
    let (pw, ph) = paper.mm();
    let (pw, ph) = (pw as f32, ph as f32);
    // Lay out until the page numbers printed are the pages things landed on.
    let mut known = Places::new();
    let mut pages = Vec::new();
    for _ in 0..5 {
        let (p, places) = flow(doc, icons, pw, ph, &known);
        pages = p;
        let same = places.iter().all(|(a, (pg, _))| known.get(a).is_some_and(|k| k.0 == *pg));
        known = places;
        if same {
            break;
        }
    }
    let n = pages.len();
    let mut svgs = Vec::with_capacity(n);
    for (i, items) in pages.iter().enumerate() {
        let ctx = json!({
            "pack": pack,
            "page": { "w": pw, "h": ph, "number": i + 1, "count": n, "margin": PAGE_MARGIN },
            "items": items,
        });
        let svg = templates.render("reference-page.svg", &ctx).map_err(|e| {
            vec![Diagnostic::error(
                "template-error",
                format!("{} failed: {e}", templates.origin("reference-page.svg").describe("reference-page.svg")),
            )]
        })?;
        svgs.push(icons.attach_symbols(&svg));
    }
    let mut pdf = krilla::Document::new_with(krilla::SerializeSettings {
        enable_tagging: false,
        xmp_metadata: false,
        ..Default::default()
    });
    let size = krilla::geom::Size::from_wh(pt(f64::from(pw)), pt(f64::from(ph))).expect("paper size");
    let dest = |anchor: &str| {
        known.get(anchor).map(|(p, y)| {
            krilla::destination::XyzDestination::new(
                *p,
                krilla::geom::Point::from_xy(0.0, pt(f64::from((*y - 2.0).max(0.0)))),
            )
        })
    };
    // Each page's drawing is parsed when the page is drawn and dropped after: a
    // reference of thousands of pages never holds every page's tree at once.
    for (svg, items) in svgs.iter().zip(&pages) {
        let tree = parse_svg(svg)
            .map_err(|e| vec![Diagnostic::error("render-error", format!("reference page is not valid SVG: {e}"))])?;
        let t = &tree;
        let mut page = pdf.start_page_with(krilla::page::PageSettings::new(size));
        let mut surface = page.surface();
        krilla_svg::SurfaceExt::draw_svg(&mut surface, t, size, krilla_svg::SvgSettings::default());
        surface.finish();
        for it in items {
            // Each label once: every place it is printed is found at once (a paragraph
            // naming a card a thousand times would otherwise make a million links).
            let mut done = std::collections::BTreeSet::new();
            for (label, anchor) in &it.links {
                if !done.insert((label, anchor)) {
                    continue;
                }
                let Some(d) = dest(anchor) else { continue };
                let laid = it.parts.iter().map(|p| &p.laid).chain(it.cells.iter().map(|c| &c.text));
                for l in laid {
                    for (x, y, w, h) in find_label(l, label) {
                        if let Some(rect) = krilla::geom::Rect::from_xywh(
                            pt(f64::from(x)),
                            pt(f64::from(y)),
                            pt(f64::from(w)),
                            pt(f64::from(h)),
                        ) {
                            page.add_annotation(
                                krilla::annotation::LinkAnnotation::new(
                                    rect,
                                    krilla::annotation::Target::Destination(d.clone().into()),
                                )
                                .into(),
                            );
                        }
                    }
                }
            }
        }
        page.finish();
    }
    // Bookmarks: chapters, sections and their sub-sections.
    let mut outline = krilla::outline::Outline::new();
    let mut stack: Vec<(u8, krilla::outline::OutlineNode)> = Vec::new();
    let close =
        |stack: &mut Vec<(u8, krilla::outline::OutlineNode)>, outline: &mut krilla::outline::Outline, level: u8| {
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                let (_, node) = stack.pop().expect("a node");
                match stack.last_mut() {
                    Some((_, parent)) => parent.push_child(node),
                    None => outline.push_child(node),
                }
            }
        };
    for b in &doc.blocks {
        if let Block::Heading { level, text, anchor, .. } = b {
            if *level > 2 {
                continue;
            }
            let Some(d) = dest(anchor) else { continue };
            close(&mut stack, &mut outline, *level);
            stack.push((*level, krilla::outline::OutlineNode::new(plain(text), d)));
        }
    }
    close(&mut stack, &mut outline, 0);
    pdf.set_outline(outline);
    pdf.set_metadata(krilla::metadata::Metadata::new().title(doc.title.clone()).creator("crown reference".into()));
    pdf.finish().map_err(|e| vec![Diagnostic::error("pdf-error", format!("could not write the PDF: {e:?}"))])
}
