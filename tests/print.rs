//! `crown print` and `crown reference`: the PDF's pages, sizes and card positions (read
//! back with lopdf), PNG and deck-sheet sizes, SVG snapshots of every kind of face,
//! escaping of hostile card text, diagnostics, the output cache and template overrides.
//!
//! Snapshots live in `tests/print-snapshots/`; after reviewing a deliberate change of the
//! templates, refresh them with `CROWN_BLESS=1 cargo test -p crown-tools --test integration print::`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crown_engine::content::Pack;
use crown_engine::load::{load_pack, LoadOptions, Project};
use crown_tools::print::{self, Duplex, Format, Geometry, Orientation, Paper, PrintOptions, Printer, Side};
use lopdf::content::Content;
use lopdf::{Document, Object};

const MM: f64 = 72.0 / 25.4;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/print-fixtures")
}

fn demo() -> Pack {
    load(&fixtures(), "print-demo")
}

fn load(root: &Path, id: &str) -> Pack {
    let loaded = load_pack(&Project::new(root), id, LoadOptions { compile_scripts: false });
    match loaded.pack {
        Some(p) => p,
        None => panic!("{id} does not load: {:#?}", loaded.diagnostics),
    }
}

fn opts(out: &Path, formats: &[Format]) -> PrintOptions {
    let mut o = PrintOptions::new(out);
    o.formats = formats.to_vec();
    o
}

/// A pack written into a temporary project: `files` are (path under content/<id>/, text).
fn temp_pack(id: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("content").join(id);
    std::fs::create_dir_all(&pack).unwrap();
    std::fs::write(
        pack.join("pack.toml"),
        format!("#:schema ../../docs/schema/pack.schema.json\nid = \"{id}\"\nname = \"Test pack\"\nversion = \"0.1.0\"\nplayers = {{ min = 2, max = 4 }}\n"),
    )
    .unwrap();
    for (rel, text) in files {
        let p = pack.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let scripts = dir.path().join("scripts").join(id);
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(scripts.join("rules.rhai"), "fn setup() {}\nfn turn() { end_game([], \"test\"); }\n").unwrap();
    dir
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{} is not a PNG", path.display());
    (u32::from_be_bytes(b[16..20].try_into().unwrap()), u32::from_be_bytes(b[20..24].try_into().unwrap()))
}

pub(crate) fn num(o: &Object) -> f64 {
    match o {
        Object::Integer(i) => *i as f64,
        Object::Real(r) => f64::from(*r),
        other => panic!("not a number: {other:?}"),
    }
}

type Matrix = [f64; 6];

fn mul(a: &Matrix, b: &Matrix) -> Matrix {
    // a then b (PDF: cm pre-multiplies the current matrix).
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]
}

fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

pub(crate) type Box4 = (f64, f64, f64, f64);

/// Every clipping path, and every stroked path drawn outside any clip, on a page (not in
/// its XObjects), as bounding boxes (x0, y0, x1, y1) in PDF points, origin bottom left.
pub(crate) fn page_clips(doc: &Document, page: lopdf::ObjectId) -> (Vec<Box4>, Vec<Box4>) {
    let content = Content::decode(&doc.get_page_content(page)).unwrap();
    let bbox = |pts: &[(f64, f64)]| -> Box4 {
        (
            pts.iter().map(|p| p.0).fold(f64::MAX, f64::min),
            pts.iter().map(|p| p.1).fold(f64::MAX, f64::min),
            pts.iter().map(|p| p.0).fold(f64::MIN, f64::max),
            pts.iter().map(|p| p.1).fold(f64::MIN, f64::max),
        )
    };
    let mut ctm: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    // Whether a clip is in force (card content is drawn clipped; crop marks are not).
    let mut clipped = false;
    let mut stack = Vec::new();
    // The current path, as subpaths.
    let mut path: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut clip_pending = false;
    let mut clips = Vec::new();
    let mut strokes = Vec::new();
    for op in &content.operations {
        let n: Vec<f64> =
            op.operands.iter().filter(|o| matches!(o, Object::Integer(_) | Object::Real(_))).map(num).collect();
        match op.operator.as_str() {
            "q" => stack.push((ctm, clipped)),
            "Q" => (ctm, clipped) = stack.pop().unwrap_or((ctm, clipped)),
            "cm" => ctm = mul(&[n[0], n[1], n[2], n[3], n[4], n[5]], &ctm),
            "m" => path.push(vec![apply(&ctm, n[0], n[1])]),
            "l" => path.last_mut().expect("m before l").push(apply(&ctm, n[0], n[1])),
            "c" => path.last_mut().expect("m before c").push(apply(&ctm, n[4], n[5])),
            "re" => path.push(
                [(n[0], n[1]), (n[0] + n[2], n[1]), (n[0], n[1] + n[3]), (n[0] + n[2], n[1] + n[3])]
                    .iter()
                    .map(|(x, y)| apply(&ctm, *x, *y))
                    .collect(),
            ),
            "W" | "W*" => clip_pending = true,
            "n" | "f" | "f*" | "S" | "B" | "b" => {
                if !path.is_empty() {
                    if clip_pending {
                        clips.push(bbox(&path.concat()));
                    }
                    if op.operator == "S" && !clipped {
                        strokes.extend(path.iter().map(|sub| bbox(sub)));
                    }
                }
                clipped |= clip_pending;
                clip_pending = false;
                path.clear();
            }
            _ => {}
        }
    }
    (clips, strokes)
}

/// Card-sized clips of a page, sorted top to bottom, left to right.
fn card_rects(doc: &Document, page: lopdf::ObjectId, w_pt: f64, h_pt: f64) -> Vec<(f64, f64)> {
    let (clips, _) = page_clips(doc, page);
    let mut r: Vec<(f64, f64)> = clips
        .into_iter()
        .filter(|c| ((c.2 - c.0) - w_pt).abs() < 0.2 && ((c.3 - c.1) - h_pt).abs() < 0.2)
        .map(|c| ((c.0 * 100.0).round() / 100.0, (c.3 * 100.0).round() / 100.0))
        .collect();
    r.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.total_cmp(&b.0)));
    r.dedup();
    r
}

pub(crate) fn media_box(doc: &Document, page: lopdf::ObjectId) -> Vec<f64> {
    let dict = doc.get_dictionary(page).unwrap();
    dict.get(b"MediaBox").unwrap().as_array().unwrap().iter().map(num).collect()
}

#[test]
fn pdf_has_a4_pages_cards_at_their_places_and_embedded_fonts() {
    let pack = demo();
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&pack, &opts(out.path(), &[Format::Pdf])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let pdf = report.pdf.as_ref().unwrap();
    // One-sided copies: trebuchet 2, palisade 3, decree, plague, keep, noble, leader = 10
    // (two pages of 3x3); the stage card and the plaque share a page, then their backs.
    let total: i64 = pack.defs.iter().map(|d| d.def.count).sum();
    assert_eq!(pdf.fronts as i64, total);
    assert_eq!((pdf.grid.cols, pdf.grid.rows), (3, 3));
    assert_eq!(pdf.pages, 4);
    assert_eq!(pdf.backs, 2);

    let doc = Document::load(&pdf.path).unwrap();
    let pages = doc.get_pages();
    assert_eq!(pages.len(), 4);
    for id in pages.values() {
        let mb = media_box(&doc, *id);
        assert!((mb[2] - 595.276).abs() < 0.01 && (mb[3] - 841.89).abs() < 0.01, "{mb:?}");
    }
    // Card positions: 3x3 poker cards centred on A4, no bleed.
    let (w, h) = (63.0 * MM, 88.0 * MM);
    let first = card_rects(&doc, pages[&1], w, h);
    assert_eq!(first.len(), 9, "{first:?}");
    let (ox, oy) = ((210.0 - 189.0) / 2.0, (297.0 - 264.0) / 2.0);
    for (i, (x, top)) in first.iter().enumerate() {
        let (r, c) = (i / 3, i % 3);
        let ex = (ox + c as f64 * 63.0) * MM;
        let etop = 841.89 - (oy + r as f64 * 88.0) * MM;
        assert!((x - ex).abs() < 0.05 && (top - etop).abs() < 0.05, "card {i}: ({x}, {top}) expected ({ex}, {etop})");
    }
    assert_eq!(card_rects(&doc, pages[&2], w, h).len(), 1);
    // The placements in the report say the same.
    let p1: Vec<_> = pdf.placements.iter().filter(|p| p.page == 1).collect();
    assert_eq!(p1.len(), 9);
    assert!((p1[4].x_mm - (ox + 63.0)).abs() < 1e-9 && (p1[4].y_mm - (oy + 88.0)).abs() < 1e-9);

    // Every font is embedded (TrueType outlines in FontFile2), and they are the bundled ones.
    let mut fonts = Vec::new();
    for (_, obj) in doc.objects.iter() {
        if let Ok(d) = obj.as_dict() {
            if d.get(b"Type").ok().and_then(|t| t.as_name().ok()) == Some(b"FontDescriptor") {
                let name = String::from_utf8_lossy(d.get(b"FontName").unwrap().as_name().unwrap()).to_string();
                assert!(d.get(b"FontFile2").is_ok(), "{name} is not embedded");
                fonts.push(name);
            }
        }
    }
    assert!(!fonts.is_empty());
    assert!(fonts.iter().all(|f| f.contains("Liberation")), "{fonts:?}");

    // The same pack prints to the same bytes.
    let again = tempfile::tempdir().unwrap();
    let r2 = print::render_pack(&pack, &opts(again.path(), &[Format::Pdf])).unwrap();
    assert_eq!(
        std::fs::read(&pdf.path).unwrap(),
        std::fs::read(r2.pdf.unwrap().path).unwrap(),
        "the PDF is not deterministic"
    );
}

#[test]
fn backs_are_mirrored_and_crop_marks_sit_outside_the_cut_and_inside_the_margin() {
    let pack = demo();
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Pdf]);
    o.backs = true;
    o.page.crop_marks = true;
    o.page.gutter_mm = 6.0;
    o.bleed_mm = 3.0;
    o.page.paper = Paper::Letter;
    o.page.orientation = Some(Orientation::Portrait);
    let report = print::render_pack(&pack, &o).unwrap();
    let pdf = report.pdf.unwrap();
    // 3 mm bleed and a 6 mm gutter: 69x94 mm cells. Inside 4.2 mm margins, with room for
    // the outer bleed and the marks, portrait Letter (215.9x279.4 mm) takes 2x2.
    assert_eq!((pdf.grid.cols, pdf.grid.rows), (2, 2));
    assert_eq!(pdf.backs, pdf.fronts);
    let doc = Document::load(&pdf.path).unwrap();
    let pages = doc.get_pages();
    assert_eq!(pages.len(), pdf.pages);
    let mb = media_box(&doc, pages[&1]);
    assert!((mb[2] - 612.0).abs() < 0.01 && (mb[3] - 792.0).abs() < 0.01, "{mb:?}");
    let (w, h) = (69.0 * MM, 94.0 * MM);
    let fronts = card_rects(&doc, pages[&1], w, h);
    let backs = card_rects(&doc, pages[&2], w, h);
    assert_eq!(fronts.len(), 4);
    assert_eq!(backs.len(), 4);
    // Turned over the long edge, each back lands behind its front: x mirrors, y stays.
    for (f, b) in fronts.iter().zip(&backs) {
        let mirrored = 612.0 - f.0 - w;
        assert!(
            backs.iter().any(|b2| (b2.0 - mirrored).abs() < 0.05 && (b2.1 - f.1).abs() < 0.05),
            "{f:?} has no back at {mirrored}"
        );
        assert!((b.1 - f.1).abs() < 0.05);
    }
    let back_ids: Vec<_> = pdf.placements.iter().filter(|p| p.page == 2).map(|p| p.id.clone()).collect();
    let front_ids: Vec<_> = pdf.placements.iter().filter(|p| p.page == 1).map(|p| p.id.clone()).collect();
    assert_eq!(back_ids, front_ids);
    // Crop marks: strokes outside every card (bleed included), on the extension of the
    // cut lines, inside the printable area; on front pages only.
    let marks = |page| -> Vec<Box4> {
        let cards = card_rects(&doc, page, w, h);
        page_clips(&doc, page)
            .1
            .into_iter()
            .filter(|s| {
                cards
                    .iter()
                    .all(|(x, top)| s.2 < *x - 0.01 || s.0 > x + w + 0.01 || s.1 > *top + 0.01 || s.3 < top - h - 0.01)
            })
            .collect()
    };
    let front_marks = marks(pages[&1]);
    // Two columns and two rows, each card with its own cut lines: 4 vertical cut lines
    // x 2 ends + 4 horizontal x 2 ends.
    assert_eq!(front_marks.len(), 16, "{front_marks:?}");
    let bleed = 3.0 * MM;
    for (x, _) in &fronts {
        let cut = x + bleed;
        assert!(
            front_marks.iter().any(|m| (m.0 - cut).abs() < 0.05 && (m.2 - cut).abs() < 0.05),
            "no mark on the cut line at {cut}"
        );
    }
    let margin = 4.2 * MM;
    for m in &front_marks {
        assert!(
            m.0 >= margin - 0.01
                && m.1 >= margin - 0.01
                && m.2 <= 612.0 - margin + 0.01
                && m.3 <= 792.0 - margin + 0.01,
            "a crop mark reaches into the margin: {m:?}"
        );
    }
    assert!(marks(pages[&2]).is_empty(), "crop marks on a back page");
}

#[test]
fn pngs_and_deck_sheets_have_the_right_sizes() {
    let pack = demo();
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Png, Format::Tts]);
    o.dpi = 150;
    o.bleed_mm = 2.0;
    let report = print::render_pack(&pack, &o).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    // 67x92 mm at 150 DPI.
    assert_eq!(png_size(&out.path().join("png/trebuchet.png")), (396, 543));
    assert_eq!(png_size(&out.path().join("png/forest.back.png")), (396, 543));
    assert!(!out.path().join("png/trebuchet.back.png").exists(), "one-sided cards get no back without --backs");
    // Deck sheets: cells of 409x571 px, one sheet per kind of piece.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("tts/print-demo-deck.json")).unwrap()).unwrap();
    assert_eq!(manifest["cell_px"], serde_json::json!([409, 571]));
    let sheets = manifest["sheets"].as_array().unwrap();
    let cards = sheets.iter().find(|s| s["deck"] == "cards").unwrap();
    // One slot per distinct face: trebuchet (x2), palisade (x3) and four single cards.
    let slots = cards["cards"].as_array().unwrap();
    assert_eq!(slots.len(), 6);
    let count = |id: &str| slots.iter().find(|s| s["id"] == id).unwrap()["count"].as_i64();
    assert_eq!((count("trebuchet"), count("palisade")), (Some(2), Some(3)));
    assert_eq!((cards["cols"].as_u64(), cards["rows"].as_u64()), (Some(6), Some(1)));
    assert_eq!(png_size(&out.path().join("tts").join(cards["image"].as_str().unwrap())), (6 * 409, 571));
    assert!(cards["backs"].is_string(), "the stage card has a back of its own");
    assert_eq!(png_size(&out.path().join("tts/back.png")), (409, 571));
    for s in sheets {
        let (w, h) = png_size(&out.path().join("tts").join(s["image"].as_str().unwrap()));
        assert!(w <= 4096 && h <= 4096);
        assert!(s["cols"].as_u64().unwrap() <= 10 && s["rows"].as_u64().unwrap() <= 7);
    }
}

#[test]
fn a_full_sheet_of_cards_stays_within_ten_by_seven() {
    let mut text = String::from("#:schema ../../../docs/schema/cards.schema.json\n");
    for i in 0..75 {
        text.push_str(&format!(
            "[[card]]\nid = \"c{i}\"\nname = \"Card {i}\"\nkind = \"action\"\ntext = \"Draw a card.\"\n\n"
        ));
    }
    let dir = temp_pack("many", &[("cards/c.toml", &text)]);
    let pack = load(dir.path(), "many");
    let out = dir.path().join("out");
    let report = print::render_pack(&pack, &opts(&out, &[Format::Tts])).unwrap();
    assert_eq!(report.errors(), 0);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tts/many-deck.json")).unwrap()).unwrap();
    let sheets = manifest["sheets"].as_array().unwrap();
    assert_eq!(sheets.len(), 2);
    assert_eq!((sheets[0]["cols"].as_u64(), sheets[0]["rows"].as_u64()), (Some(10), Some(7)));
    assert_eq!(sheets[0]["cards"].as_array().unwrap().len(), 69);
    // Each slot says where it lies on its sheet, row by row: the 14th of ten a row is the
    // fourth of the second row, the last the ninth of the seventh.
    let place = |i: usize| {
        let slot = &sheets[0]["cards"][i];
        (slot["slot"].as_u64(), slot["row"].as_u64(), slot["col"].as_u64())
    };
    assert_eq!(place(13), (Some(13), Some(1), Some(3)));
    assert_eq!(place(68), (Some(68), Some(6), Some(8)));
    assert_eq!(place(9), (Some(9), Some(0), Some(9)));
    assert_eq!(png_size(&out.join("tts").join(sheets[0]["image"].as_str().unwrap())), (4090, 3997));
    assert_eq!(sheets[1]["cards"].as_array().unwrap().len(), 6);
    // Printed again, the sheets whose faces did not change are kept; after one card of
    // the second sheet changes, only that sheet is drawn again.
    let tts = print::render_pack(&pack, &opts(&out, &[Format::Tts])).unwrap().tts.unwrap();
    assert_eq!((tts.drawn, tts.kept), (0, 4), "back, two sheets, the thumbnail");
    let first = std::fs::read(out.join("tts").join(sheets[0]["image"].as_str().unwrap())).unwrap();
    std::fs::write(
        dir.path().join("content/many/cards/c.toml"),
        text.replace("name = \"Card 72\"", "name = \"Card 72 (new)\""),
    )
    .unwrap();
    let pack = load(dir.path(), "many");
    let tts = print::render_pack(&pack, &opts(&out, &[Format::Tts])).unwrap().tts.unwrap();
    assert_eq!((tts.drawn, tts.kept), (1, 3));
    assert_eq!(std::fs::read(out.join("tts").join(sheets[0]["image"].as_str().unwrap())).unwrap(), first);
    let save = std::fs::read_to_string(out.join("tts/many-cards.json")).unwrap();
    assert!(save.contains("Card 72 (new)"));
    // Without the cache, everything is drawn.
    let mut o = opts(&out, &[Format::Tts]);
    o.use_cache = false;
    let tts = print::render_pack(&pack, &o).unwrap().tts.unwrap();
    assert_eq!((tts.drawn, tts.kept), (4, 0));
}

/// Compare with (or, with CROWN_BLESS=1, write) tests/print-snapshots/<name>.
pub(crate) fn check_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/print-snapshots").join(name);
    if std::env::var_os("CROWN_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("no snapshot {}; run with CROWN_BLESS=1 and review it", path.display()));
    if expected != actual {
        let line = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{} differs at line {}:\n  expected: {}\n  actual:   {}\n(review, then CROWN_BLESS=1)",
            path.display(),
            line + 1,
            expected.lines().nth(line).unwrap_or(""),
            actual.lines().nth(line).unwrap_or("")
        );
    }
}

#[test]
fn svg_snapshot_of_every_kind_of_face() {
    let pack = demo();
    let (printer, diags) = Printer::new(&pack, Geometry { w: 63.0, h: 88.0, bleed: 0.0 }).unwrap();
    assert!(diags.is_empty(), "{diags:#?}");
    let faces = [
        ("trebuchet", Side::Front, "card-front"),
        ("palisade", Side::Back, "card-back"),
        ("old-keep", Side::Front, "card-front-art"),
        ("royal-decree", Side::Front, "card-front-markup"),
        ("forest", Side::Front, "stages-front"),
        ("forest", Side::Back, "stages-back"),
        ("recruit", Side::Front, "plaque-front"),
        ("recruit", Side::Back, "plaque-back"),
        ("lady-of-the-lake", Side::Front, "noble"),
        ("ragnar", Side::Front, "leader"),
    ];
    for (id, side, name) in faces {
        let d = pack.get(id).unwrap();
        let r = printer.render(d, side);
        assert!(r.diagnostics.is_empty(), "{id}: {:#?}", r.diagnostics);
        // Every face parses with the bundled fonts and has the card's proportions.
        let tree = print::parse_svg(&r.svg).unwrap();
        assert!((tree.size().width() / tree.size().height() - 63.0 / 88.0).abs() < 1e-3);
        check_snapshot(&format!("{name}.svg"), &r.svg);
    }
}

const HOSTILE: &str = r#"#:schema ../../../docs/schema/cards.schema.json
[[card]]
id = "hostile"
name = "<script>alert(1)</script>"
kind = "action"
keywords = ["a&b"]
text = "Gain {{ x }} & {% if true %}lose{% endif %} 1 :coin:. Then </text><text>pwned"
flavor = "\"Quotes\" & 'apostrophes' <b>bold?</b>"
"#;

#[test]
fn card_text_is_escaped_everywhere_and_never_a_template() {
    let dir = temp_pack("hostile", &[("cards/h.toml", HOSTILE)]);
    let pack = load(dir.path(), "hostile");
    let svg = print::card_svg(&pack, "hostile", None).unwrap();
    assert!(svg.diagnostics.iter().all(|d| !d.is_error()), "{:#?}", svg.diagnostics);
    let front = &svg.front;
    assert!(!front.contains("<script>"), "raw markup in the SVG");
    assert!(front.contains("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;"));
    assert!(!front.contains("</text><text>pwned"));
    assert!(front.contains("{{ x }}"), "template syntax in card text must print as is");
    assert!(front.contains("&amp;"));
    // The SVG is well formed and the names survive as text.
    let tree = print::parse_svg(front).unwrap();
    let mut texts = Vec::new();
    collect_text(tree.root(), &mut texts);
    let all = texts.join(" ");
    assert!(all.contains("<script>alert(1)</script>"), "{all}");
    assert!(all.contains("{{ x }}"), "{all}");
    assert!(all.contains("</text><text>pwned"), "{all}");
    let squeezed: String = all.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(squeezed.contains("Gain{{x}}&{%iftrue%}lose{%endif%}1"), "{squeezed}");

    // The references escape it too.
    let (html, _) = print::render_reference(&pack, print::ReferenceFormat::Html, Paper::A4).unwrap();
    let html = String::from_utf8(html).unwrap();
    assert!(!html.contains("<script>alert"), "raw script in the HTML");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;"));
    assert!(html.contains("{{ x }}"));
    assert!(html.contains("<img class=\"icon\""), "icons become images");
    let (md, _) = print::render_reference(&pack, print::ReferenceFormat::Md, Paper::A4).unwrap();
    let md = String::from_utf8(md).unwrap();
    assert!(!md.contains("<script>") && md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{md}");
    assert!(md.contains("&lt;b&gt;bold?&lt;/b&gt;"));
    let (pdf, _) = print::render_reference(&pack, print::ReferenceFormat::Pdf, Paper::A4).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));

    // And the whole print goes through.
    let report =
        print::render_pack(&pack, &opts(&dir.path().join("out"), &[Format::Pdf, Format::Png, Format::Svg])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
}

#[test]
fn unclosed_bold_prints_as_written_and_is_an_error_at_its_marker() {
    let cards = "[[card]]\nid = \"mine\"\nname = \"Mine\"\nkind = \"action\"\n\
                 text = \"Mine ** | Wheat\\n\\nGain **2** :coin:. Pay 1 \\\\*\\\\* \"\n";
    let dir = temp_pack(
        "marks",
        &[("cards/c.toml", cards), ("cards/more.csv", "id,name,text\nore,Ore,\"Say \"\"hi\"\"\n**go\"\n")],
    );
    let pack = load(dir.path(), "marks");
    let diags = print::check_faces(&pack);
    let found: Vec<(String, usize, usize, Option<String>)> = diags
        .iter()
        .filter(|d| d.code == "unclosed-markup")
        .map(|d| (d.file.as_ref().unwrap().display().to_string(), d.line, d.column, d.label.clone()))
        .collect();
    assert_eq!(
        found,
        [
            ("content/marks/cards/c.toml".to_string(), 5, 14, Some("never closed".to_string())),
            ("content/marks/cards/more.csv".to_string(), 3, 1, Some("row 2, column C (text)".to_string())),
        ],
        "{diags:#?}"
    );
    // Printed as written, not as bold eating the rest; an escaped `\*` is an asterisk.
    let svg = print::card_svg(&pack, "mine", None).unwrap();
    let mut texts = Vec::new();
    collect_text(print::parse_svg(&svg.front).unwrap().root(), &mut texts);
    let all: String = texts.join(" ").chars().filter(|c| !c.is_whitespace()).collect();
    assert!(all.contains("Mine**|Wheat") && all.contains("Pay1**"), "{all}");
}

fn collect_text(g: &resvg::usvg::Group, out: &mut Vec<String>) {
    for n in g.children() {
        match n {
            resvg::usvg::Node::Group(g) => collect_text(g, out),
            resvg::usvg::Node::Text(t) => out.push(t.chunks().iter().map(|c| c.text().to_string()).collect()),
            _ => {}
        }
    }
}

#[test]
fn problems_are_diagnostics_naming_the_card_and_file() {
    let cards = r#"#:schema ../../../docs/schema/cards.schema.json
[[card]]
id = "no-art"
name = "No Art"
kind = "action"
art = "art/missing.png"
text = "Fine text."

[[card]]
id = "odd-icon"
name = "Odd Icon"
kind = "action"
text = "Gain 1 :swrod: now."

[[card]]
id = "wordy"
name = "Wordy"
kind = "action"
text = """WORDS"""

[[card]]
id = "long-word"
name = "Incomprehensibilities-of-the-Unfathomable-Realm"
kind = "action"
text = "Short."
"#
    .replace("WORDS", &"Far too many words for one small card. ".repeat(40));
    let dir = temp_pack("broken", &[("cards/b.toml", &cards)]);
    let pack = load(dir.path(), "broken");
    let out = dir.path().join("out");
    let report = print::render_pack(&pack, &opts(&out, &[Format::Pdf, Format::Png])).unwrap();
    let by_code: BTreeMap<&str, &crown_engine::diag::Diagnostic> =
        report.diagnostics.iter().map(|d| (d.code, d)).collect();
    let art = by_code.get("missing-art").expect("missing art reported");
    assert!(art.is_error() && art.message.contains("no-art") && art.message.contains("art/missing.png"), "{art:?}");
    assert_eq!(art.file.as_deref(), Some(Path::new("content/broken/cards/b.toml")));
    assert!(art.line > 0);
    let icon = by_code.get("unknown-icon").expect("unknown icon reported");
    assert!(icon.is_error() && icon.message.contains("odd-icon") && icon.message.contains(":swrod:"), "{icon:?}");
    assert!(icon.hint.as_deref().unwrap_or("").contains("sword"), "{icon:?}");
    // An overflow is reported at the words that do not fit, in the card's own text: the
    // start of a text too long for its box, a word too wide for it.
    let line_of = |needle: &str| cards.lines().position(|l| l.contains(needle)).expect("the line") + 1;
    let overflows: Vec<&crown_engine::diag::Diagnostic> =
        report.diagnostics.iter().filter(|d| d.code == "text-overflow").collect();
    let over = overflows.iter().find(|d| d.message.contains("`wordy`")).expect("overflow reported");
    assert!(!over.is_error() && over.line == line_of("text = \"\"\"Far too"), "{over:?}");
    let wide = overflows.iter().find(|d| d.message.contains("`long-word`")).expect("a word too wide reported");
    assert!(wide.line == line_of("name = \"Incomprehensibilities"), "{wide:?}");
    // Output is still produced, with the placeholder for the missing art.
    assert!(out.join("png/no-art.png").is_file());
    assert!(out.join("broken.pdf").is_file());

    // Option problems: bleed larger than the card, a card too large for the paper.
    let mut o = opts(&out, &[Format::Pdf]);
    o.bleed_mm = 40.0;
    let err = print::render_pack(&pack, &o).unwrap_err();
    assert_eq!(err[0].code, "bad-bleed");
    let mut o = opts(&out, &[Format::Pdf]);
    o.size_mm = Some((300.0, 400.0));
    assert_eq!(print::render_pack(&pack, &o).unwrap_err()[0].code, "card-too-large");
    let e = print::parse_size("pokr").unwrap_err();
    assert_eq!(e.code, "unknown-size");
    assert!(e.hint.as_deref().unwrap_or("").contains("poker"));
    assert_eq!(print::parse_size("70x110mm").unwrap(), (70.0, 110.0));
    assert_eq!(print::parse_size("bridge").unwrap(), (56.0, 88.0));
}

fn crown(args: &[&str]) -> i32 {
    let mut v = vec!["crown"];
    v.extend_from_slice(args);
    crown_tools::run(v)
}

#[test]
fn a_pack_without_pieces_prints_nothing_and_says_so() {
    let dir = temp_pack("empty", &[]);
    let pack = load(dir.path(), "empty");
    let r = print::render_pack(&pack, &opts(&dir.path().join("out"), &[Format::Pdf, Format::Tts])).unwrap();
    assert_eq!(r.errors(), 0);
    assert_eq!(r.diagnostics[0].code, "nothing-to-print");
    assert!(r.pdf.is_none() && r.written.is_empty());
}

#[test]
fn exit_codes() {
    let dir = temp_pack("codes", &[("cards/c.toml", "#:schema ../../../docs/schema/cards.schema.json\n[[card]]\nid = \"a\"\nname = \"A\"\nkind = \"action\"\ntext = \"Draw :star:.\"\n")]);
    let root = dir.path().to_str().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    assert_eq!(crown(&["--project", root, "print", "codes", "--out", out_s, "--format", "svg"]), 0);
    assert!(out.join("svg/a.svg").is_file());
    assert_eq!(crown(&["--project", root, "print", "codes", "--out", out_s, "--size", "huge"]), 2);
    assert_eq!(crown(&["--project", root, "print", "codes", "--out", out_s, "--bleed", "40"]), 2);
    assert_eq!(crown(&["--project", root, "print", "codes", "--out", out_s, "--format", "jpeg"]), 2);
    assert_eq!(crown(&["--project", root, "print", "codes", "--out", out_s, "--only", "b"]), 2);
    assert_eq!(crown(&["--project", root, "print", "nosuchpack"]), 2);
    let refp = dir.path().join("ref.html");
    assert_eq!(crown(&["--project", root, "reference", "codes", "--out", refp.to_str().unwrap()]), 0);
    assert!(std::fs::read_to_string(&refp).unwrap().contains("<h3><span>A</span>"));
    // A content error: an unknown icon.
    std::fs::write(
        dir.path().join("content/codes/cards/c.toml"),
        "#:schema ../../../docs/schema/cards.schema.json\n[[card]]\nid = \"a\"\nname = \"A\"\nkind = \"action\"\ntext = \"Draw :nope:.\"\n",
    )
    .unwrap();
    assert_eq!(crown(&["--project", root, "print", "codes", "--out", out_s, "--format", "svg"]), 1);
}

#[test]
fn reprinting_after_one_edit_renders_only_that_card() {
    let card = |i: usize, text: &str| {
        format!("[[card]]\nid = \"c{i}\"\nname = \"Card {i}\"\nkind = \"attack\"\nvalues = {{ attack = {i} }}\ntext = \"{text}\"\n\n")
    };
    let write = |dir: &Path, edited: bool| {
        let mut t = String::from("#:schema ../../../docs/schema/cards.schema.json\n");
        for i in 0..6 {
            t.push_str(&card(i, if edited && i == 3 { "Edited text." } else { "Deal damage." }));
        }
        std::fs::write(dir.join("content/inc/cards/c.toml"), t).unwrap();
    };
    let dir = temp_pack("inc", &[("cards/c.toml", "")]);
    write(dir.path(), false);
    let out = dir.path().join("out");
    let o = opts(&out, &[Format::Png, Format::Svg, Format::Pdf]);
    let r = print::render_pack(&load(dir.path(), "inc"), &o).unwrap();
    assert_eq!((r.png_rendered, r.svg_rendered), (6, 6));
    let before = std::fs::read(out.join("png/c1.png")).unwrap();
    let r = print::render_pack(&load(dir.path(), "inc"), &o).unwrap();
    assert_eq!((r.png_rendered, r.png_cached, r.svg_rendered, r.svg_cached), (0, 6, 0, 6));
    write(dir.path(), true);
    let r = print::render_pack(&load(dir.path(), "inc"), &o).unwrap();
    assert_eq!((r.png_rendered, r.svg_rendered), (1, 1));
    assert!(std::fs::read_to_string(out.join("svg/c3.svg")).unwrap().contains("Edited text."));
    assert_eq!(std::fs::read(out.join("png/c1.png")).unwrap(), before);
    // The PDF is always whole.
    assert_eq!(r.pdf.unwrap().fronts, 6);
    // A different DPI re-renders the PNGs but not the SVGs.
    let mut o2 = o.clone();
    o2.dpi = 100;
    let r = print::render_pack(&load(dir.path(), "inc"), &o2).unwrap();
    assert_eq!((r.png_rendered, r.svg_rendered), (6, 0));
    assert_eq!(png_size(&out.join("png/c0.png")), (248, 346));
    // A deleted card's files go on the next full print; files crown did not make stay.
    std::fs::write(out.join("png/mine.png"), b"not a card").unwrap();
    std::fs::write(
        dir.path().join("content/inc/cards/c.toml"),
        format!("#:schema ../../../docs/schema/cards.schema.json\n{}", card(0, "Only one.")),
    )
    .unwrap();
    print::render_pack(&load(dir.path(), "inc"), &o).unwrap();
    assert!(!out.join("png/c5.png").exists() && !out.join("svg/c5.svg").exists());
    assert!(out.join("png/mine.png").exists());
    // A print of the PDF alone leaves the SVG files, and what the cache says of them, as
    // they were.
    print::render_pack(&load(dir.path(), "inc"), &opts(&out, &[Format::Pdf])).unwrap();
    let r = print::render_pack(&load(dir.path(), "inc"), &opts(&out, &[Format::Svg])).unwrap();
    assert_eq!((r.svg_rendered, r.svg_cached), (0, 1));
}

#[test]
fn pack_templates_override_the_built_in_ones() {
    let front = r##"{%- import "macros.svg" as m -%}
{{ m::open(geom=geom) }}<rect width="{{ geom.w }}" height="{{ geom.h }}" fill="#123456"/>
<text x="5" y="10" font-family="Liberation Sans" font-size="4" id="custom">{{ card.name }} / {{ card.kind_label }}</text></svg>
"##;
    let dir = temp_pack(
        "styled",
        &[
            ("cards/c.toml", "#:schema ../../../docs/schema/cards.schema.json\n[[card]]\nid = \"a\"\nname = \"Alpha & Co\"\nkind = \"spell\"\ntext = \"x\"\n[[card]]\nid = \"b\"\nname = \"Beta\"\nkind = \"action\"\ntext = \"y\"\n"),
            ("templates/front-spell.svg", front),
        ],
    );
    let pack = load(dir.path(), "styled");
    let a = print::card_svg(&pack, "a", None).unwrap();
    assert!(a.front.contains("id=\"custom\">Alpha &amp; Co / Spell</text>"), "{}", a.front);
    let b = print::card_svg(&pack, "b", None).unwrap();
    assert!(!b.front.contains("custom"), "only kind `spell` uses the override");

    // A broken template is an error naming its file.
    std::fs::write(dir.path().join("content/styled/templates/front-spell.svg"), "{% if %}").unwrap();
    let err = print::card_svg(&pack, "a", None).unwrap_err();
    assert_eq!(err[0].code, "template-error");
    assert_eq!(err[0].file.as_deref(), Some(Path::new("content/styled/templates/front-spell.svg")));
    // A template that fails while rendering names the card.
    std::fs::write(dir.path().join("content/styled/templates/front-spell.svg"), "{{ card.nonesuch.deeper }}").unwrap();
    let r = print::card_svg(&pack, "a", None).unwrap();
    let d = r.diagnostics.iter().find(|d| d.code == "template-error").expect("render error");
    assert!(d.message.contains("`a`") && d.message.contains("front-spell.svg"), "{d:?}");
}

#[test]
fn reference_names_every_card_noble_leader_plaque_and_scenario() {
    let pack = demo();
    let (html, diags) = print::render_reference(&pack, print::ReferenceFormat::Html, Paper::A4).unwrap();
    assert!(diags.is_empty(), "{diags:#?}");
    let html = String::from_utf8(html).unwrap();
    for d in &pack.defs {
        assert!(html.contains(&format!("<span>{}</span>", d.def.name)), "{} missing", d.def.name);
    }
    for s in &pack.scenarios {
        assert!(html.contains(&s.scenario.name), "{} missing", s.scenario.name);
    }
    // Both sides of the plaque, every stage, the option table, the board.
    assert!(html.contains("Recruit (two players)") && html.contains("2-player side"));
    for stage in ["Forest", "Logging Camp", "Sawmill", "Royal Forest"] {
        assert!(html.contains(stage), "{stage}");
    }
    assert!(html.contains("<th>Enemy draw</th>") && html.contains("<th>Rounds</th>"));
    assert!(html.contains("Wessex") && html.contains("Danish armies"));
    let (md, _) = print::render_reference(&pack, print::ReferenceFormat::Md, Paper::A4).unwrap();
    let md = String::from_utf8(md).unwrap();
    assert!(md.contains("### Lady of the Lake") && md.contains("| Solo, hard |"), "{md}");
    let (pdf, _) = print::render_reference(&pack, print::ReferenceFormat::Pdf, Paper::A4).unwrap();
    let doc = Document::load_mem(&pdf).unwrap();
    assert!(!doc.get_pages().is_empty());
    let mb = media_box(&doc, doc.get_pages()[&1]);
    assert!((mb[2] - 595.276).abs() < 0.01);
}

/// A program of poppler-utils, the independent PDF reader these tests check the printed
/// sheets with; missing, the test fails saying what to install (`cargo xtask test` does).
pub(crate) fn poppler(program: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = std::process::Command::new(program).args(args).output().unwrap_or_else(|e| {
        panic!(
            "`{program}` could not be run ({e}): this test reads the printed PDF with poppler; \
             run the suite with `cargo xtask test` (it installs Debian's `poppler-utils`), or install poppler yourself"
        )
    });
    assert!(out.status.success(), "{program} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn poppler_reads_a_printed_pack_at_its_paper_size_with_embedded_fonts_and_ink_on_the_page() {
    let out = tempfile::tempdir().unwrap();
    let root = crate::common::repo_project().root;
    let code = crown(&[
        "--project",
        &root.to_string_lossy(),
        "print",
        "take-the-kingdom",
        "--format",
        "pdf",
        "--out",
        &out.path().to_string_lossy(),
    ]);
    assert_eq!(code, 0);
    let pdf = walkdir::WalkDir::new(out.path())
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .find(|p| p.extension().is_some_and(|x| x == "pdf"))
        .expect("a PDF was written");
    let info = poppler("pdfinfo", &[pdf.as_os_str()]);
    let field = |k: &str| {
        info.lines().find_map(|l| l.strip_prefix(k)).map(str::trim).unwrap_or_else(|| panic!("no {k} in:\n{info}"))
    };
    assert!(field("Page size:").starts_with("595.276 x 841.89 pts"), "{info}");
    assert!(field("Pages:").parse::<u32>().unwrap() > 1, "{info}");
    // Every font is embedded (the `emb` column of pdffonts).
    let fonts = poppler("pdffonts", &[pdf.as_os_str()]);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(!rows.is_empty(), "{fonts}");
    for r in &rows {
        let cols: Vec<&str> = r.split_whitespace().collect();
        assert!(cols.iter().rev().nth(4) == Some(&"yes"), "a font is not embedded:\n{fonts}");
    }
    // Page one drawn by poppler has ink on it: cards, not a blank sheet.
    let prefix = out.path().join("page");
    poppler(
        "pdftoppm",
        &[
            "-r".as_ref(),
            "30".as_ref(),
            "-f".as_ref(),
            "1".as_ref(),
            "-l".as_ref(),
            "1".as_ref(),
            "-png".as_ref(),
            pdf.as_os_str(),
            prefix.as_os_str(),
        ],
    );
    let png = std::fs::read_dir(out.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("page"))
        .expect("pdftoppm wrote page one");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let px = &buf[..frame.buffer_size()];
    let dark = px.chunks(3).filter(|c| c.iter().map(|&v| u32::from(v)).sum::<u32>() < 600).count();
    assert!(dark * 20 > px.len() / 3, "page one is nearly blank: {dark} dark pixels of {}", px.len() / 3);
}

/// `crown print PACK --format pdf` of a shipped pack with more arguments: the PDF.
fn print_shipped(pack: &str, out: &Path, extra: &[&str]) -> PathBuf {
    let root = crate::common::repo_project().root;
    let (root, out_s) = (root.to_string_lossy().to_string(), out.to_string_lossy().to_string());
    let mut args = vec!["--project", &root, "print", pack, "--format", "pdf", "--out", &out_s];
    args.extend_from_slice(extra);
    assert_eq!(crown(&args), 0, "crown {}", args.join(" "));
    out.join(format!("{pack}.pdf"))
}

/// What pdfinfo says: the number of pages and the first page's size in points.
fn pdf_pages_and_size(pdf: &Path) -> (u32, (f64, f64)) {
    let info = poppler("pdfinfo", &[pdf.as_os_str()]);
    let field = |k: &str| {
        info.lines().find_map(|l| l.strip_prefix(k)).map(str::trim).unwrap_or_else(|| panic!("no {k} in:\n{info}"))
    };
    let size: Vec<f64> = field("Page size:").split_whitespace().filter_map(|w| w.parse().ok()).take(2).collect();
    (field("Pages:").parse().unwrap(), (size[0], size[1]))
}

#[test]
fn letter_with_bleed_holds_nine_poker_cards_and_every_paper_prints_at_its_size() {
    let out = tempfile::tempdir().unwrap();
    let near = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 0.1 && (a.1 - b.1).abs() < 0.1;
    // Take the Kingdom's 114 poker cards with 3 mm bleed on Letter: neighbours share
    // their bleed, nine to a portrait page, 13 pages.
    let pdf = print_shipped("take-the-kingdom", &out.path().join("letter"), &["--paper", "letter", "--bleed", "3"]);
    let (pages, size) = pdf_pages_and_size(&pdf);
    assert_eq!(pages, 13);
    assert!(near(size, (612.0, 792.0)), "{size:?}");
    // Crop marks need room outside the bleed: landscape then holds more (4x2).
    let pdf = print_shipped(
        "take-the-kingdom",
        &out.path().join("marks"),
        &["--paper", "letter", "--bleed", "3", "--crop-marks"],
    );
    let (pages, size) = pdf_pages_and_size(&pdf);
    assert_eq!(pages, 15);
    assert!(near(size, (792.0, 612.0)), "{size:?}");
    // Larger papers take 6x3 landscape; a size of one's own, in the orientation asked for.
    for (paper, expected) in [("a3", (1190.55, 841.89)), ("tabloid", (1224.0, 792.0))] {
        let pdf = print_shipped("take-the-kingdom", &out.path().join(paper), &["--paper", paper]);
        let (pages, size) = pdf_pages_and_size(&pdf);
        assert_eq!(pages, 7, "{paper}");
        assert!(near(size, expected), "{paper}: {size:?}");
    }
    let pdf = print_shipped(
        "take-the-kingdom",
        &out.path().join("custom"),
        &["--paper", "450x300", "--orientation", "portrait"],
    );
    let (_, size) = pdf_pages_and_size(&pdf);
    assert!(near(size, (300.0 * MM, 450.0 * MM)), "{size:?}");
}

#[test]
fn duplex_margin_and_gutter_put_every_card_and_back_where_the_pdf_draws_it() {
    let pack = demo();
    for (duplex, orientation) in [
        (Duplex::Long, Orientation::Portrait),
        (Duplex::Short, Orientation::Portrait),
        (Duplex::Long, Orientation::Landscape),
        (Duplex::Short, Orientation::Landscape),
        (Duplex::None, Orientation::Portrait),
    ] {
        let out = tempfile::tempdir().unwrap();
        let mut o = opts(out.path(), &[Format::Pdf]);
        o.backs = true;
        o.page.duplex = duplex;
        o.page.orientation = Some(orientation);
        o.page.margin_mm = 12.0;
        o.page.gutter_mm = 4.0;
        let what = format!("{duplex:?} {orientation:?}");
        let pdf = print::render_pack(&pack, &o).unwrap().pdf.unwrap();
        let (pw, ph) = pdf.grid.paper_mm;
        let doc = Document::load(&pdf.path).unwrap();
        let pages = doc.get_pages();
        let mb = media_box(&doc, pages[&1]);
        assert!((mb[2] - pw * MM).abs() < 0.01 && (mb[3] - ph * MM).abs() < 0.01, "{what}: {mb:?}");
        assert_eq!(pw > ph, orientation == Orientation::Landscape, "{what}");
        let on_page = |n: usize| -> Vec<&print::Placement> { pdf.placements.iter().filter(|p| p.page == n).collect() };
        let (fronts, backs) = (on_page(1), on_page(2));
        assert!(fronts.len() > 1 && fronts.len() == backs.len(), "{what}");
        // The PDF draws the cards where the report says.
        for (n, placed) in [(1, &fronts), (2, &backs)] {
            let mut drawn = card_rects(&doc, pages[&(n as u32)], 63.0 * MM, 88.0 * MM);
            let mut expected: Vec<(f64, f64)> = placed
                .iter()
                .map(|p| (((p.x_mm * MM) * 100.0).round() / 100.0, ((ph - p.y_mm) * MM * 100.0).round() / 100.0))
                .collect();
            let key = |a: &(f64, f64), b: &(f64, f64)| b.1.total_cmp(&a.1).then(a.0.total_cmp(&b.0));
            drawn.sort_by(key);
            expected.sort_by(key);
            assert_eq!(drawn.len(), expected.len(), "{what} page {n}");
            for (d, e) in drawn.iter().zip(&expected) {
                assert!(
                    (d.0 - e.0).abs() < 0.05 && (d.1 - e.1).abs() < 0.05,
                    "{what} page {n}: drawn {d:?}, expected {e:?}"
                );
            }
        }
        // Nothing in the margin; neighbours a gutter apart.
        for p in fronts.iter().chain(&backs) {
            assert!(
                p.x_mm >= 12.0 && p.y_mm >= 12.0 && p.x_mm + 63.0 <= pw - 12.0 && p.y_mm + 88.0 <= ph - 12.0,
                "{what}"
            );
        }
        let mut xs: Vec<f64> = fronts.iter().map(|p| p.x_mm).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
        assert!(xs.windows(2).all(|w| (w[1] - w[0] - 67.0).abs() < 1e-6), "{what}: {xs:?}");
        // Each back behind its front once the sheet is turned the way the printer turns it.
        for (f, b) in fronts.iter().zip(&backs) {
            assert_eq!(f.id, b.id);
            let mirror_x = (pw - f.x_mm - 63.0, f.y_mm);
            let mirror_y = (f.x_mm, ph - f.y_mm - 88.0);
            let expected = match (duplex, orientation) {
                (Duplex::None, _) => (f.x_mm, f.y_mm),
                (Duplex::Long, Orientation::Portrait) | (Duplex::Short, Orientation::Landscape) => mirror_x,
                _ => mirror_y,
            };
            assert!((b.x_mm - expected.0).abs() < 1e-6 && (b.y_mm - expected.1).abs() < 1e-6, "{what}: {f:?} {b:?}");
        }
    }
}

#[test]
fn neighbours_without_a_gutter_share_their_bleed() {
    let pack = demo();
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Pdf]);
    o.bleed_mm = 3.0;
    let pdf = print::render_pack(&pack, &o).unwrap().pdf.unwrap();
    assert_eq!((pdf.grid.cols, pdf.grid.rows), (3, 3), "nine poker cards with bleed on A4");
    let doc = Document::load(&pdf.path).unwrap();
    let page = doc.get_pages()[&1];
    let (clips, _) = page_clips(&doc, page);
    let ph = 297.0;
    let has_clip = |x0: f64, y0: f64, x1: f64, y1: f64| {
        let (x0, x1, top, bottom) = (x0 * MM, x1 * MM, (ph - y0) * MM, (ph - y1) * MM);
        clips.iter().any(|c| {
            (c.0 - x0).abs() < 0.05
                && (c.2 - x1).abs() < 0.05
                && (c.3 - top).abs() < 0.05
                && (c.1 - bottom).abs() < 0.05
        })
    };
    let first = &pdf.placements[0];
    let centre = &pdf.placements[4];
    // The top-left card keeps its bleed on the grid's outer edges only...
    assert!(has_clip(first.x_mm - 3.0, first.y_mm - 3.0, first.x_mm + 63.0, first.y_mm + 88.0), "{clips:?}");
    // ...and the centre one is cut exactly at its neighbours' cut lines.
    assert!(has_clip(centre.x_mm, centre.y_mm, centre.x_mm + 63.0, centre.y_mm + 88.0), "{clips:?}");
    assert!((centre.x_mm - first.x_mm - 63.0).abs() < 1e-9);
}

/// Pixels of one colour family in a column of a page drawn by pdftoppm at 150 DPI.
fn guide_pixels(pdf: &Path, dir: &Path, x_mm: f64, y0_mm: f64, y1_mm: f64, is: fn(u8, u8, u8) -> bool) -> usize {
    let prefix = dir.join("guides");
    let _ = std::fs::remove_file(dir.join("guides-1.png"));
    poppler(
        "pdftoppm",
        &[
            "-r".as_ref(),
            "150".as_ref(),
            "-f".as_ref(),
            "1".as_ref(),
            "-l".as_ref(),
            "1".as_ref(),
            "-png".as_ref(),
            pdf.as_os_str(),
            prefix.as_os_str(),
        ],
    );
    let png = dir.join("guides-1.png");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let (w, channels) = (frame.width as usize, frame.line_size / frame.width as usize);
    let px = |mm: f64| (mm / 25.4 * 150.0).round() as usize;
    let mut n = 0;
    for y in px(y0_mm)..px(y1_mm) {
        for x in px(x_mm).saturating_sub(1)..=px(x_mm) + 1 {
            let i = y * frame.line_size + x.min(w - 1) * channels;
            if is(buf[i], buf[i + 1], buf[i + 2]) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn guides_show_the_cut_line_and_the_safe_zone() {
    let pack = demo();
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Pdf]);
    o.page.guides = true;
    let pdf = print::render_pack(&pack, &o).unwrap().pdf.unwrap();
    let p = pdf.placements[0].clone();
    let magenta = |r: u8, g: u8, b: u8| r > g.saturating_add(60) && b > g.saturating_add(60);
    let cyan = |r: u8, g: u8, b: u8| b > r.saturating_add(80) && g > r.saturating_add(50);
    // The safe zone runs 3 mm inside the cut line (dashed), the cut line on it.
    let safe = guide_pixels(&pdf.path, out.path(), p.x_mm + 3.0, p.y_mm + 10.0, p.y_mm + 78.0, magenta);
    assert!(safe > 40, "safe-zone guide: {safe} pixels");
    let cut = guide_pixels(&pdf.path, out.path(), p.x_mm, p.y_mm + 10.0, p.y_mm + 78.0, cyan);
    assert!(cut > 100, "cut-line guide: {cut} pixels");
    // Without --guides, neither.
    o.page.guides = false;
    let plain = print::render_pack(&pack, &o).unwrap().pdf.unwrap();
    assert_eq!(guide_pixels(&plain.path, out.path(), p.x_mm + 3.0, p.y_mm + 10.0, p.y_mm + 78.0, magenta), 0);
}

#[test]
fn layout_options_are_checked() {
    let dir = temp_pack("layout", &[("cards/c.toml", "#:schema ../../../docs/schema/cards.schema.json\n[[card]]\nid = \"a\"\nname = \"A\"\nkind = \"action\"\ntext = \"Draw.\"\n")]);
    let root = dir.path().to_str().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["--project", root, "print", "layout", "--out", out_s, "--format", "pdf"];
        a.extend_from_slice(extra);
        crown(&a)
    };
    assert_eq!(run(&["--paper", "a3", "--orientation", "landscape", "--duplex", "short", "--guides"]), 0);
    assert_eq!(run(&["--paper", "a5"]), 2);
    assert_eq!(run(&["--paper", "10x20"]), 2);
    assert_eq!(run(&["--margin=-1"]), 2);
    assert_eq!(run(&["--margin", "120"]), 2);
    assert_eq!(run(&["--gutter", "500"]), 2);
    assert_eq!(run(&["--duplex", "sideways"]), 2);
    // A margin that leaves no room for a card.
    assert_eq!(run(&["--margin", "80"]), 2);
}

/// What Tabletop Simulator reads in a saved object (`Saves/Saved Objects/*.json`): the
/// fields of a custom deck and of its cards, with their types.
const TTS_SAVED_OBJECT_SCHEMA: &str = r##"{
  "type": "object",
  "required": ["SaveName", "ObjectStates"],
  "properties": {
    "SaveName": { "type": "string" },
    "ObjectStates": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/object" } }
  },
  "$defs": {
    "transform": {
      "type": "object",
      "required": ["posX", "posY", "posZ", "rotX", "rotY", "rotZ", "scaleX", "scaleY", "scaleZ"],
      "additionalProperties": { "type": "number" }
    },
    "sheet": {
      "type": "object",
      "required": ["FaceURL", "BackURL", "NumWidth", "NumHeight", "BackIsHidden", "UniqueBack"],
      "properties": {
        "FaceURL": { "type": "string", "minLength": 1 },
        "BackURL": { "type": "string", "minLength": 1 },
        "NumWidth": { "type": "integer", "minimum": 1, "maximum": 10 },
        "NumHeight": { "type": "integer", "minimum": 1, "maximum": 7 },
        "BackIsHidden": { "type": "boolean" },
        "UniqueBack": { "type": "boolean" },
        "Type": { "type": "integer" }
      }
    },
    "customDeck": {
      "type": "object",
      "minProperties": 1,
      "propertyNames": { "pattern": "^[1-9][0-9]*$" },
      "additionalProperties": { "$ref": "#/$defs/sheet" }
    },
    "object": {
      "type": "object",
      "required": ["GUID", "Name", "Transform", "Nickname"],
      "properties": {
        "GUID": { "type": "string", "pattern": "^[0-9a-f]{6}$" },
        "Name": { "enum": ["DeckCustom", "Card"] },
        "Transform": { "$ref": "#/$defs/transform" },
        "Nickname": { "type": "string" },
        "Description": { "type": "string" },
        "CardID": { "type": "integer", "minimum": 100 },
        "DeckIDs": { "type": "array", "items": { "type": "integer", "minimum": 100 } },
        "CustomDeck": { "$ref": "#/$defs/customDeck" },
        "ContainedObjects": { "type": "array", "items": { "$ref": "#/$defs/object" } }
      },
      "if": { "properties": { "Name": { "const": "DeckCustom" } } },
      "then": { "required": ["DeckIDs", "CustomDeck", "ContainedObjects"] },
      "else": { "required": ["CardID", "CustomDeck"] }
    }
  }
}"##;

/// The local file a `file:///` URL names.
fn file_of(url: &str) -> PathBuf {
    let path = url.strip_prefix("file://").unwrap_or_else(|| panic!("not a file URL: {url}"));
    let mut out = Vec::new();
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap(), 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    PathBuf::from(String::from_utf8(out).unwrap())
}

#[test]
fn tabletop_simulator_saved_objects_hold_every_copy_with_its_name_and_sheets() {
    let root = crate::common::repo_project().root;
    let pack = load(&root, "the-last-kingdom");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("my prints");
    let report = print::render_pack(&pack, &opts(&dir, &[Format::Tts])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let tts = report.tts.unwrap();
    let schema: serde_json::Value = serde_json::from_str(TTS_SAVED_OBJECT_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let cell = tts.cell_px;
    let mut kinds = Vec::new();
    for path in &tts.saved_objects {
        let save: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let errors: Vec<String> =
            validator.iter_errors(&save).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        let deck = &save["ObjectStates"][0];
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let kind = name.strip_prefix("the-last-kingdom-").unwrap().trim_end_matches('s').to_string();
        // Every copy of every definition of this kind, in the order the files list them, by name.
        let expected: Vec<&crown_engine::content::Def> = print::in_print_order(&pack)
            .into_iter()
            .filter(|d| d.kind.as_str() == kind)
            .flat_map(|d| std::iter::repeat_n(d, d.def.count as usize))
            .collect();
        let cards: Vec<&serde_json::Value> = if deck["Name"] == "DeckCustom" {
            let ids = deck["DeckIDs"].as_array().unwrap();
            let contained = deck["ContainedObjects"].as_array().unwrap();
            assert_eq!(ids.len(), contained.len(), "{name}");
            for (id, card) in ids.iter().zip(contained) {
                assert_eq!(*id, card["CardID"], "{name}: DeckIDs follow ContainedObjects");
            }
            contained.iter().collect()
        } else {
            vec![deck]
        };
        assert_eq!(cards.len(), expected.len(), "{name}: one card per copy");
        for (card, d) in cards.iter().zip(&expected) {
            assert_eq!(card["Nickname"], d.def.name.as_str());
            assert_eq!(card["GMNotes"], d.def.id.as_str());
            // CardID = sheet key x 100 + slot; the sheet is declared on the deck (and on
            // the card) and its image holds that slot.
            let id = card["CardID"].as_u64().unwrap();
            let key = (id / 100).to_string();
            let sheets = if deck["Name"] == "DeckCustom" { &deck["CustomDeck"] } else { &card["CustomDeck"] };
            let sheet = &sheets[&key];
            assert_eq!(&card["CustomDeck"][&key], sheet);
            let (cols, rows) = (sheet["NumWidth"].as_u64().unwrap(), sheet["NumHeight"].as_u64().unwrap());
            assert!(id % 100 < cols * rows, "{name}: slot {} outside a {cols}x{rows} sheet", id % 100);
            let face = file_of(sheet["FaceURL"].as_str().unwrap());
            assert_eq!(png_size(&face), (cols as u32 * cell.0, rows as u32 * cell.1), "{}", face.display());
            let back = file_of(sheet["BackURL"].as_str().unwrap());
            assert!(back.is_file(), "{}", back.display());
            assert_eq!(sheet["UniqueBack"], back.file_name().unwrap().to_string_lossy().ends_with("-backs.png"));
        }
        // Counted per definition: each id as many times as its count.
        let mut by_id: BTreeMap<String, i64> = BTreeMap::new();
        for c in &cards {
            *by_id.entry(c["GMNotes"].as_str().unwrap().to_string()).or_default() += 1;
        }
        for d in &expected {
            assert_eq!(by_id[&d.def.id], d.def.count, "{name}: {}", d.def.id);
        }
        assert!(path.with_extension("png").is_file(), "the saved object's picture");
        kinds.push(kind);
    }
    kinds.sort();
    assert_eq!(kinds, ["card", "leader", "plaque"]);
    // The URLs name the files where they are (spaces escaped).
    let text = std::fs::read_to_string(&tts.saved_objects[0]).unwrap();
    assert!(text.contains("my%20prints/tts/the-last-kingdom-"), "{text}");

    // --tts-url: the sheets will be on the web.
    let mut o = opts(&out.path().join("web"), &[Format::Tts]);
    o.tts_url = Some("https://example.org/decks/".into());
    let report = print::render_pack(&pack, &o).unwrap();
    let text = std::fs::read_to_string(&report.tts.unwrap().saved_objects[0]).unwrap();
    assert!(text.contains("\"FaceURL\": \"https://example.org/decks/the-last-kingdom-cards-1.png\""), "{text}");
    assert!(!text.contains("file://"));
}

/// A copy of shipped packs (content and scripts) in a temporary project.
fn copy_of_shipped(packs: &[&str]) -> tempfile::TempDir {
    let root = crate::common::repo_project().root;
    let dir = tempfile::tempdir().unwrap();
    for pack in packs {
        for top in ["content", "scripts"] {
            let from = root.join(top).join(pack);
            for e in walkdir::WalkDir::new(&from).into_iter().flatten() {
                let to = dir.path().join(top).join(pack).join(e.path().strip_prefix(&from).unwrap());
                if e.file_type().is_dir() {
                    std::fs::create_dir_all(&to).unwrap();
                } else {
                    std::fs::copy(e.path(), &to).unwrap();
                }
            }
        }
    }
    dir
}

#[test]
fn doc_template_examples_render() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/printing.md")).unwrap();
    let mut examples = Vec::new();
    let mut block: Option<String> = None;
    for line in doc.lines() {
        match (&mut block, line.trim()) {
            (None, "```tera") => block = Some(String::new()),
            (Some(b), "```") => {
                examples.push(std::mem::take(b));
                block = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            _ => {}
        }
    }
    assert!(examples.len() >= 2, "the template examples of docs/printing.md are fenced as ```tera");
    // Every kind of piece (cards, stages, plaques, nobles, leaders) and "any" costs.
    let dir = copy_of_shipped(&["kingdoms-in-conflict"]);
    for top in ["content", "scripts"] {
        let demo = fixtures().join(top).join("print-demo");
        for e in walkdir::WalkDir::new(&demo).into_iter().flatten() {
            let to = dir.path().join(top).join("print-demo").join(e.path().strip_prefix(&demo).unwrap());
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(e.path(), &to).unwrap();
            }
        }
    }
    for (n, example) in examples.iter().enumerate() {
        for pack_id in ["print-demo", "kingdoms-in-conflict"] {
            let templates = dir.path().join("content").join(pack_id).join("templates");
            std::fs::create_dir_all(&templates).unwrap();
            for t in ["card-front.svg", "character-front.svg", "plaque-front.svg", "stages-front.svg"] {
                std::fs::write(templates.join(t), example).unwrap();
            }
            let pack = load(dir.path(), pack_id);
            for d in &pack.defs {
                let svg = print::card_svg(&pack, &d.def.id, None)
                    .unwrap_or_else(|e| panic!("example {} on {}: {e:#?}", n + 1, d.def.id));
                let errors: Vec<_> = svg.diagnostics.iter().filter(|x| x.is_error()).collect();
                assert!(errors.is_empty(), "example {} on {}: {errors:#?}\n{example}", n + 1, d.def.id);
                print::parse_svg(&svg.front).unwrap_or_else(|e| panic!("example {} on {}: {e}", n + 1, d.def.id));
                assert!(svg.front.contains(&d.def.name.replace('&', "&amp;")), "example {}", n + 1);
            }
        }
    }
}

#[test]
fn new_templates_copies_what_the_pack_uses_and_keeps_what_is_there() {
    let dir = copy_of_shipped(&["kingdom-legacy", "kingdom-legacy-saltroad"]);
    let root = dir.path().to_str().unwrap();
    // The base pack takes a copy of two built-in templates and changes one.
    assert_eq!(
        crown(&["--project", root, "new", "templates", "kingdom-legacy", "--only", "card-front.svg,macros.svg"]),
        0
    );
    let base = dir.path().join("content/kingdom-legacy/templates");
    let builtin: BTreeMap<&str, &str> = print::templates::BUILTIN.iter().copied().collect();
    assert_eq!(std::fs::read_to_string(base.join("macros.svg")).unwrap(), builtin["macros.svg"]);
    assert!(!base.join("card-back.svg").exists(), "--only copies only those");
    let mine = builtin["card-front.svg"].replace(
        "{{ m::footer(card=card, pack=pack, geom=geom) }}",
        "<!-- base look -->\n{{ m::footer(card=card, pack=pack, geom=geom) }}",
    );
    std::fs::write(base.join("card-front.svg"), &mine).unwrap();
    // The expansion gets every template, the base pack's own where it has one.
    assert_eq!(crown(&["--project", root, "new", "templates", "kingdom-legacy-saltroad"]), 0);
    let exp = dir.path().join("content/kingdom-legacy-saltroad/templates");
    for (name, text) in print::templates::BUILTIN {
        let written = std::fs::read_to_string(exp.join(name)).unwrap();
        if *name == "card-front.svg" {
            assert_eq!(written, mine);
        } else {
            assert_eq!(written, *text, "{name}");
        }
    }
    // Never overwritten.
    std::fs::write(exp.join("card-back.svg"), "{{ nonsense").unwrap();
    assert_eq!(crown(&["--project", root, "new", "templates", "kingdom-legacy-saltroad"]), 0);
    assert_eq!(std::fs::read_to_string(exp.join("card-back.svg")).unwrap(), "{{ nonsense");
    assert_eq!(crown(&["--project", root, "new", "templates", "kingdom-legacy", "--only", "card-frnt.svg"]), 2);
    assert_eq!(crown(&["--project", root, "new", "templates", "no-such-pack"]), 2);
}

#[test]
fn an_expansion_prints_in_its_base_packs_style() {
    let base_pack = r##"#:schema ../../docs/schema/pack.schema.json
id = "base"
name = "Base Game"
version = "2.0.0"
players = { min = 1, max = 2 }
card_size = "mini"
[icons]
torch = "icons/torch.svg"
[colors]
spell = "#123456"
back = "#654321"
[print]
hide_values = ["weight"]
"##;
    let exp_pack = r##"#:schema ../../docs/schema/pack.schema.json
id = "exp"
name = "The Expansion"
version = "0.3.0"
players = { min = 1, max = 2 }
extends = "base"
[colors]
curse = "#abcdef"
"##;
    let card = |id: &str| {
        format!("[[card]]\nid = \"{id}\"\nname = \"{id}\"\nkind = \"spell\"\nvalues = {{ weight = 3, power = 2 }}\ntext = \"Light the :torch:.\"\n")
    };
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("content/base/pack.toml", base_pack.to_string()),
        (
            "content/base/icons/torch.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><circle cx=\"5\" cy=\"5\" r=\"4\"/></svg>"
                .to_string(),
        ),
        ("content/base/cards/c.toml", card("old")),
        ("content/exp/pack.toml", exp_pack.to_string()),
        ("content/exp/cards/c.toml", card("new")),
        ("scripts/base/rules.rhai", "fn setup() {}\nfn turn() { end_game([], \"test\"); }\n".to_string()),
    ];
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let pack = load(dir.path(), "exp");
    let out = dir.path().join("out");
    let mut o = opts(&out, &[Format::Svg]);
    o.backs = true;
    let report = print::render_pack(&pack, &o).unwrap();
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    let svg = |name: &str| std::fs::read_to_string(out.join("svg").join(name)).unwrap();
    for id in ["old", "new"] {
        let front = svg(&format!("{id}.svg"));
        // The base pack's card size, band colour, icon file and hidden value.
        assert!(front.contains("width=\"44mm\""), "{id}: {front}");
        assert!(front.contains("#123456"), "{id}: the base pack's colour");
        assert!(front.contains("id=\"icon-torch\""), "{id}: the base pack's icon");
        assert!(!front.contains("Weight") && front.contains("Power"), "{id}: hidden value");
        assert!(svg(&format!("{id}.back.svg")).contains("#654321"), "{id}: the base pack's back colour");
        assert!(svg(&format!("{id}.back.svg")).contains("Base Game"), "{id}: the game's name on the back");
    }
    // Each card's footer names its own pack.
    assert!(svg("old.svg").contains("Base Game 2.0.0"));
    assert!(svg("new.svg").contains("The Expansion 0.3.0"));
}

#[test]
fn any_costs_show_what_may_pay_them_and_hidden_values_stay_off_the_faces() {
    let root = crate::common::repo_project().root;
    let kic = load(&root, "kingdoms-in-conflict");
    let officer = print::card_svg(&kic, "officer", None).unwrap().front;
    // `any-material` and `any-food`: the icons of the board's supplies of each group.
    for icon in ["metal", "stone", "wood", "livestock", "grain", "fish"] {
        assert!(officer.contains(&format!("href=\"#icon-{icon}\"")), "{icon}");
    }
    assert!(!officer.contains(" any<"), "an ambiguous `any` label: {officer}");
    assert!(officer.contains(">HP 2<"), "two-letter values are abbreviations");
    let ttk = load(&root, "take-the-kingdom");
    let archers = print::card_svg(&ttk, "archers", None).unwrap().front;
    assert!(archers.contains(">3<") && !archers.contains("Solo"), "{archers}");
}

/// Checking faces again renders only those an edit can change, and finds the same.
#[test]
fn face_checks_render_again_only_what_changed() {
    let pack = demo();
    let mut kept = print::FaceChecks::default();
    let first = print::check_faces_with(&pack, &mut kept);
    let all = kept.rendered;
    assert!(all >= pack.defs.len(), "every face rendered the first time: {all}");
    assert_eq!(print::check_faces_with(&pack, &mut kept), first);
    assert_eq!(kept.rendered, 0, "nothing changed, nothing rendered");
    let mut edited = pack.clone();
    let d = edited.defs.iter_mut().find(|d| !d.def.text.is_empty()).expect("a card with text");
    d.def.text.push_str(" :nosuchicon:");
    let again = print::check_faces_with(&edited, &mut kept);
    assert_eq!(kept.rendered, 1, "only the edited face");
    assert_eq!(again, print::check_faces(&edited), "the same as checking from scratch");
    assert!(again.len() > first.len(), "the edit's problem is found: {again:?}");
}

/// A template edited between two checks is compiled again: its mistake is found.
#[test]
fn face_checks_compile_templates_again_when_they_change() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&fixtures(), dir.path()).unwrap();
    let pack = load(dir.path(), "print-demo");
    let mut kept = print::FaceChecks::default();
    let before = print::check_faces_with(&pack, &mut kept);
    assert!(!before.iter().any(|d| d.is_error()), "{before:?}");
    let t = dir.path().join("content/print-demo/templates/card-front.svg");
    std::fs::create_dir_all(t.parent().unwrap()).unwrap();
    std::fs::write(&t, "<svg>{{ name </svg>").unwrap();
    let after = print::check_faces_with(&pack, &mut kept);
    assert!(after.iter().any(|d| d.is_error()), "the broken template is found: {after:?}");
    assert_eq!(after, print::check_faces(&pack));
}

/// A template that fails for every card (a field no card has, an icon the pack lacks) is
/// one finding each, at the template's line, naming how many cards and the first; an
/// unknown icon written in a card's text is at its token in the card's file.
#[test]
fn a_template_mistake_is_one_finding_at_its_line_and_a_text_icon_is_at_its_token() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&fixtures(), dir.path()).unwrap();
    let t = dir.path().join("content/print-demo/templates/card-front.svg");
    std::fs::create_dir_all(t.parent().unwrap()).unwrap();
    std::fs::write(
        &t,
        "<svg xmlns=\"http://www.w3.org/2000/svg\">\n<use href=\"{{ icon(name='nope') }}\"/>\n<text>{{ card.text | rich }}</text>\n<text>{{ card.motto }}</text>\n</svg>\n",
    )
    .unwrap();
    let cards = dir.path().join("content/print-demo/cards/basic.toml");
    let text = std::fs::read_to_string(&cards).unwrap();
    std::fs::write(&cards, text.replacen("absorbs 3 damage", "absorbs 3 :nosuchicon: damage", 1)).unwrap();
    let pack = load(dir.path(), "print-demo");
    let diags = print::check_faces(&pack);
    let at_template: Vec<_> = diags
        .iter()
        .filter(|d| d.file.as_deref() == Some(Path::new("content/print-demo/templates/card-front.svg")))
        .collect();
    assert_eq!(at_template.len(), 2, "one finding per mistake: {diags:#?}");
    assert_eq!((at_template[0].code, at_template[0].line), ("unknown-icon", 2), "{:?}", at_template[0]);
    assert_eq!((at_template[1].code, at_template[1].line), ("template-error", 4), "{:?}", at_template[1]);
    for f in &at_template {
        assert!(f.message.contains(" cards (`"), "how many, and the first named: {}", f.message);
        assert_eq!(f.related.len(), 1, "the first card is shown: {f:?}");
    }
    // The icon written in the card's text is at `:nosuchicon:` in its file, not at its id.
    let own = diags.iter().find(|d| d.message.contains(":nosuchicon:")).expect("the text's icon is found");
    let src = pack.sources.get(own.file.as_ref().unwrap()).unwrap();
    assert_eq!(&src.text[own.span.clone().unwrap()], ":nosuchicon:");
}

/// A pack with a map prints it as one page (`<pack>-map.pdf`), drawn from board.toml: The
/// Last Kingdom's five regions by name, with the armies board.toml sets on them; a pack
/// whose board has only `[[board]]` kinds prints no map.
#[test]
fn a_map_of_named_spaces_prints_as_a_page() {
    let root = crate::common::repo_project().root;
    let tlk = load(&root, "the-last-kingdom");
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&tlk, &opts(out.path(), &[Format::Pdf])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let map = out.path().join("the-last-kingdom-map.pdf");
    assert_eq!(report.map.as_deref(), Some(map.as_path()));
    let text = poppler("pdftotext", &[map.as_os_str(), "-".as_ref()]);
    for region in ["Northumbria", "Mercia", "East Anglia", "Wessex", "Kent", "Market slot 1"] {
        assert!(text.contains(region), "{region} is not on the map:\n{text}");
    }
    let info = poppler("pdfinfo", &[map.as_os_str()]);
    assert!(info.lines().any(|l| l.starts_with("Pages:") && l.ends_with(" 1")), "{info}");
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&load(&fixtures(), "tile-demo"), &opts(out.path(), &[Format::Pdf])).unwrap();
    assert_eq!(report.map, None);
}

/// Oh Hell's 52 cards as a product of 4 suits and 13 ranks.
const OH_HELL_PRODUCT: &str = r#"[[product]]
suit = [
  { id = "clubs", name = "Clubs" },
  { id = "diamonds", name = "Diamonds" },
  { id = "spades", name = "Spades" },
  { id = "hearts", name = "Hearts" },
]
rank = [
  { id = "2", name = "2", value = 2 }, { id = "3", name = "3", value = 3 },
  { id = "4", name = "4", value = 4 }, { id = "5", name = "5", value = 5 },
  { id = "6", name = "6", value = 6 }, { id = "7", name = "7", value = 7 },
  { id = "8", name = "8", value = 8 }, { id = "9", name = "9", value = 9 },
  { id = "10", name = "10", value = 10 }, { id = "jack", name = "Jack", value = 11 },
  { id = "queen", name = "Queen", value = 12 }, { id = "king", name = "King", value = 13 },
  { id = "ace", name = "Ace", value = 14 },
]

[product.card]
id = "{suit.id}-{rank.id}"
name = "{rank.name} of {suit.name}"
kind = "{suit.id}"
values = { rank = "{rank.value}" }
decks = ["deck"]
"#;

/// A deck declared as a product loads as the same definitions as the spreadsheet that
/// lists them one by one, plays the same games, prints in the product's order (2, 3, ...,
/// 10, Jack... of Clubs, then Diamonds), and a slip in its template is one error at its place.
#[test]
fn a_deck_made_as_a_product_is_the_written_deck_and_prints_in_its_order() {
    let dir = copy_of_shipped(&["oh-hell"]);
    let root = dir.path();
    let written = load(root, "oh-hell");
    let cards = root.join("content/oh-hell/cards");
    std::fs::remove_file(cards.join("deck.csv")).unwrap();
    std::fs::write(cards.join("deck.toml"), OH_HELL_PRODUCT).unwrap();
    let made = load(root, "oh-hell");
    assert_eq!(made.defs.len(), 52);
    for (a, b) in written.defs.iter().zip(&made.defs) {
        assert_eq!(a.def, b.def, "{}", a.def.id);
    }
    let names: Vec<&str> = print::in_print_order(&made).iter().map(|d| d.def.name.as_str()).collect();
    assert_eq!(
        names[..14],
        [
            "2 of Clubs",
            "3 of Clubs",
            "4 of Clubs",
            "5 of Clubs",
            "6 of Clubs",
            "7 of Clubs",
            "8 of Clubs",
            "9 of Clubs",
            "10 of Clubs",
            "Jack of Clubs",
            "Queen of Clubs",
            "King of Clubs",
            "Ace of Clubs",
            "2 of Diamonds"
        ]
    );
    assert_eq!(names[51], "Ace of Hearts");
    // The spreadsheet's own rows print in their order too, not by id ("clubs-10" < "clubs-2").
    let rows: Vec<&str> = print::in_print_order(&written).iter().take(10).map(|d| d.def.name.as_str()).collect();
    assert_eq!(rows[8..], ["10 of Clubs", "Jack of Clubs"]);

    // The same games, from the command line.
    let sim = |project: &Path| {
        let o = std::process::Command::new(crate::common::crown_bin())
            .args(["--project"])
            .arg(project)
            .args(["sim", "oh-hell", "--games", "6", "--players", "4", "--json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    // Everything but the digest of the files (a TOML file and a CSV file).
    let games =
        |s: String| s.lines().filter(|l| !l.trim_start().starts_with("\"content\":")).collect::<Vec<_>>().join("\n");
    assert_eq!(games(sim(root)), games(sim(&crate::common::repo_project().root)));

    // A placeholder naming no list: one error, at the placeholder.
    let broken = OH_HELL_PRODUCT.replace("{rank.name} of {suit.name}", "{rank.name} of {siut.name}");
    std::fs::write(cards.join("deck.toml"), &broken).unwrap();
    let o = std::process::Command::new(crate::common::crown_bin())
        .args(["--project"])
        .arg(root)
        .args(["check", "oh-hell"])
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{text}");
    let line = broken.lines().position(|l| l.contains("{siut.name}")).unwrap() + 1;
    let col = broken.lines().nth(line - 1).unwrap().find("{siut").unwrap() + 1;
    assert!(text.contains("error[bad-product]: `{siut.name}`: no list of this product is called `siut`"), "{text}");
    assert!(text.contains(&format!("content/oh-hell/cards/deck.toml:{line}:{col}")), "{text}");
    assert!(text.contains("did you mean `suit`?"), "{text}");
    assert_eq!(text.matches("error[").count(), 1, "one error, no cascade: {text}");
}
