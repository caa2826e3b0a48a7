//! Tiles and board sheets, printed from the `tile-demo` fixture (dominoes, a square tile,
//! an L of three squares, one card, a kingdom for every seat and a shared market): each
//! tile at its shape (PNG pixels, the squares' colours at their centres, the PDF's clips
//! and, a tile a page, its TrimBox), their own grids on the sheets and their own Tabletop
//! Simulator decks, board sheets of the right size (measured on the page poppler draws),
//! `[print] tile_square_mm`, a pack's own tile template, the error for a terrain without a
//! colour, and SVG snapshots of the tile faces (in `tests/print-snapshots/`, refreshed with
//! `CROWN_BLESS=1` after a reviewed change).

use std::path::{Path, PathBuf};

use crown_engine::content::Pack;
use crown_engine::load::{load_pack, LoadOptions, Project};
use crown_tools::print::{self, Format, Geometry, Layout, Orientation, Paper, PrintOptions, Printer, Side};
use lopdf::Document;

use crate::common::{copy_dir, crown};
use crate::print::{check_snapshot, media_box, num, page_clips, poppler};

/// Points in a millimetre.
const MM: f64 = 72.0 / 25.4;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/print-fixtures")
}

fn load(root: &Path) -> Pack {
    let loaded = load_pack(&Project::new(root), "tile-demo", LoadOptions { compile_scripts: false });
    loaded.pack.unwrap_or_else(|| panic!("tile-demo does not load: {:#?}", loaded.diagnostics))
}

fn opts(out: &Path, formats: &[Format]) -> PrintOptions {
    let mut o = PrintOptions::new(out);
    o.formats = formats.to_vec();
    o
}

/// A copy of the fixtures to edit.
fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), dir.path()).unwrap();
    dir
}

/// An RGB PNG: its width, height and pixels.
struct Image {
    w: usize,
    h: usize,
    rgb: Vec<u8>,
}

impl Image {
    fn read(path: &Path) -> Image {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut r = png::Decoder::new(std::io::BufReader::new(file)).read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
        buf.truncate(info.buffer_size());
        Image { w: info.width as usize, h: info.height as usize, rgb: buf }
    }

    fn at(&self, x: usize, y: usize) -> (u8, u8, u8) {
        let i = (y * self.w + x) * 3;
        (self.rgb[i], self.rgb[i + 1], self.rgb[i + 2])
    }

    /// The pixel at a point given in millimetres from the image's top-left corner.
    fn at_mm(&self, x: f64, y: f64, dpi: f64) -> (u8, u8, u8) {
        let px = |mm: f64| (mm / 25.4 * dpi).round() as usize;
        self.at(px(x), px(y))
    }
}

fn hex(s: &str) -> (u8, u8, u8) {
    let v = u32::from_str_radix(s.trim_start_matches('#'), 16).unwrap();
    ((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

const WHEAT: &str = "#e8c547";
const FOREST: &str = "#2f6b3a";
const LAKE: &str = "#3a78b5";

#[test]
fn a_domino_prints_two_to_one_each_square_in_its_terrains_colour() {
    let pack = load(&fixtures());
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&pack, &opts(out.path(), &[Format::Png, Format::Svg])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let png = |id: &str| Image::read(&out.path().join("png").join(format!("{id}.png")));
    // Squares of 40 mm at 300 dpi: a domino 80 x 40 mm, a square tile 40 x 40, the L's box
    // 80 x 80; the card keeps its poker size.
    let size = |id: &str| {
        let i = png(id);
        (i.w, i.h)
    };
    assert_eq!(size("d1"), (945, 472));
    assert_eq!(size("d3"), (945, 472));
    assert_eq!(size("well"), (472, 472));
    assert_eq!(size("bend"), (945, 945));
    assert_eq!(size("omen"), (744, 1039));
    // At the centre of each square without values, its terrain's colour; the corner the L
    // leaves out is paper.
    let d3 = png("d3");
    assert_eq!(d3.at_mm(20.0, 20.0, 300.0), hex(FOREST));
    assert_eq!(d3.at_mm(60.0, 20.0, 300.0), hex(WHEAT));
    let d1 = png("d1");
    assert_eq!(d1.at_mm(20.0, 20.0, 300.0), hex(WHEAT));
    let bend = png("bend");
    assert_eq!(bend.at_mm(20.0, 20.0, 300.0), hex(FOREST));
    assert_eq!(bend.at_mm(20.0, 60.0, 300.0), hex(WHEAT));
    assert_eq!(bend.at_mm(60.0, 20.0, 300.0), (255, 255, 255));
    // The lake square's crowns are drawn with the pack's icon and their count; the
    // terrain's name is on the square; the tile's number is in its corner.
    assert_eq!(bend.at_mm(60.0, 75.0, 300.0), hex(LAKE), "below the lake's label");
    let svg = std::fs::read_to_string(out.path().join("svg/bend.svg")).unwrap();
    assert!(svg.contains("href=\"#icon-crowns\"") && svg.contains(">3</text>"), "{svg}");
    assert!(svg.contains(">LAKE</text>") && svg.contains(">FOREST</text>") && svg.contains(">Bend</text>"), "{svg}");
    let d2 = std::fs::read_to_string(out.path().join("svg/d2.svg")).unwrap();
    assert!(d2.contains(">2</text>"), "the serial in the corner: {d2}");

    // With bleed, the picture runs on past the cut on the tile's outer edges.
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Png]);
    o.bleed_mm = 3.0;
    print::render_pack(&pack, &o).unwrap();
    let d3 = Image::read(&out.path().join("png/d3.png"));
    assert_eq!((d3.w, d3.h), (1016, 543), "86 x 46 mm");
    assert_eq!(d3.at_mm(1.0, 23.0, 300.0), hex(FOREST), "in the bleed, left");
    assert_eq!(d3.at_mm(85.0, 1.0, 300.0), hex(WHEAT), "in the bleed, top right");
    assert_eq!(d3.at_mm(23.0, 23.0, 300.0), hex(FOREST));
}

#[test]
fn tiles_lie_on_grids_of_their_own_shape_after_the_cards() {
    let pack = load(&fixtures());
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&pack, &opts(out.path(), &[Format::Pdf])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let pdf = report.pdf.as_ref().unwrap();
    // The card (3 x 3 poker cards to an A4 page), then the square tile (5 x 7 of them),
    // the dominoes (3 x 5 on landscape A4: 80 mm three times across 288.6 mm) and the L.
    let grids: Vec<(usize, usize, Orientation)> = pdf.grids.iter().map(|g| (g.cols, g.rows, g.orientation)).collect();
    use Orientation::*;
    assert_eq!(grids, [(3, 3, Portrait), (5, 7, Portrait), (3, 5, Landscape), (2, 3, Portrait)]);
    assert_eq!((pdf.pages, pdf.fronts), (4, 1 + 1 + 4 + 1));
    let placed = |id: &str| pdf.placements.iter().filter(|p| p.id == id).collect::<Vec<_>>();
    assert_eq!(placed("d2").len(), 2, "a copy per count");
    for p in placed("d1").into_iter().chain(placed("d2")).chain(placed("d3")) {
        assert_eq!((p.page, p.w_mm, p.h_mm), (3, 80.0, 40.0), "{p:?}");
    }
    assert_eq!(placed("bend")[0].w_mm, 80.0);
    // In the PDF: page three is landscape and holds four domino-sized pictures, twice as
    // wide as high.
    let doc = Document::load(&pdf.path).unwrap();
    let pages = doc.get_pages();
    assert_eq!(pages.len(), 4);
    let mb = media_box(&doc, pages[&3]);
    assert!((mb[2] - 297.0 * MM).abs() < 0.01 && (mb[3] - 210.0 * MM).abs() < 0.01, "{mb:?}");
    let (clips, _) = page_clips(&doc, pages[&3]);
    let dominoes =
        clips.iter().filter(|c| ((c.2 - c.0) - 80.0 * MM).abs() < 0.2 && ((c.3 - c.1) - 40.0 * MM).abs() < 0.2).count();
    assert_eq!(dominoes, 4, "{clips:?}");
}

#[test]
fn a_tile_a_page_has_its_shape_for_trim_box() {
    let pack = load(&fixtures());
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Pdf]);
    o.page.layout = Layout::Card;
    o.bleed_mm = 3.0;
    let report = print::render_pack(&pack, &o).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let decks: Vec<&str> = report.card_pdfs.iter().filter_map(|p| p.deck.as_deref()).collect();
    assert_eq!(decks, ["cards", "tiles-1x1", "tiles-2x1", "tiles-2x2"]);
    let path = out.path().join("tile-demo-tiles-2x1.pdf");
    let doc = Document::load(&path).unwrap();
    let pages = doc.get_pages();
    // Four dominoes, each front followed by its back.
    assert_eq!(pages.len(), 8);
    for &page in pages.values() {
        let trim: Vec<f64> =
            doc.get_dictionary(page).unwrap().get(b"TrimBox").unwrap().as_array().unwrap().iter().map(num).collect();
        let (w, h) = (trim[2] - trim[0], trim[3] - trim[1]);
        assert!((w - 80.0 * MM).abs() < 0.01 && (h - 40.0 * MM).abs() < 0.01, "{trim:?}");
        assert!((w / h - 2.0).abs() < 1e-6);
        let mb = media_box(&doc, page);
        assert!((mb[2] - 86.0 * MM).abs() < 0.01 && (mb[3] - 46.0 * MM).abs() < 0.01, "{mb:?}");
    }
}

#[test]
fn a_shops_upload_list_puts_the_tiles_in_piles_of_their_own() {
    let pack = load(&fixtures());
    let out = tempfile::tempdir().unwrap();
    let mut o = PrintOptions::new(out.path());
    o.apply_shop(&pack, crown_engine::content::model::Shop::Tgc).unwrap();
    let report = print::render_pack(&pack, &o).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let csv = std::fs::read_to_string(report.upload_list.unwrap()).unwrap();
    assert!(csv.contains("\ncards,omen,Omen,1,png/omen.png,png/omen.back.png\n"), "{csv}");
    assert!(csv.contains("\ntiles-2x1,d2,Domino 2,2,png/d2.png,png/d2.back.png\n"), "{csv}");
    // The shop's bleed (1/8 in) and resolution, on the tile's own size: 86.35 x 46.35 mm.
    let d2 = Image::read(&out.path().join("png/d2.png"));
    assert_eq!((d2.w, d2.h), (1020, 547));
}

#[test]
fn tiles_make_tabletop_simulator_decks_of_their_own_shape() {
    let pack = load(&fixtures());
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&pack, &opts(out.path(), &[Format::Tts])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let tts = out.path().join("tts");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tts.join("tile-demo-deck.json")).unwrap()).unwrap();
    let deck = manifest["decks"].as_array().unwrap().iter().find(|d| d["deck"] == "tiles-2x1").unwrap();
    assert_eq!(deck["size_mm"], serde_json::json!([80.0, 40.0]));
    assert_eq!(deck["cell_px"], serde_json::json!([409, 204]));
    assert_eq!((deck["cards"].as_u64(), deck["faces"].as_u64()), (Some(4), Some(3)));
    assert_eq!(deck["back"], "tile-demo-tiles-2x1-back.png");
    let sheet = Image::read(&tts.join("tile-demo-tiles-2x1-1.png"));
    assert_eq!((sheet.w, sheet.h), (3 * 409, 204));
    let back = Image::read(&tts.join("tile-demo-tiles-2x1-back.png"));
    assert_eq!((back.w, back.h), (409, 204));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tts.join("tile-demo-tiles-2x1.json")).unwrap()).unwrap();
    let obj = &saved["ObjectStates"][0];
    assert_eq!(obj["DeckIDs"].as_array().unwrap().len(), 4);
    assert_eq!(obj["SidewaysCard"], true);
    let custom = obj["CustomDeck"].as_object().unwrap().values().next().unwrap();
    assert!(custom["BackURL"].as_str().unwrap().ends_with("tile-demo-tiles-2x1-back.png"), "{custom}");
    // The cards keep the common back.
    let cards = manifest["decks"].as_array().unwrap().iter().find(|d| d["deck"] == "cards").unwrap();
    assert_eq!(cards["back"], "back.png");
}

/// The width and height in millimetres of the board's outer line on page `page` of a
/// board sheet, as poppler draws it at 100 dpi: the darkest pixels on the line across the
/// page 5 mm below the grid's top, and on the line down it 5 mm inside its right edge.
fn drawn_grid_mm(pdf: &Path, page: u32, dir: &Path) -> (f64, f64) {
    let prefix = dir.join(format!("board-{page}"));
    let p = page.to_string();
    let args: Vec<std::ffi::OsString> = ["-r", "100", "-f", &p, "-l", &p, "-png", "-singlefile"]
        .iter()
        .map(std::ffi::OsString::from)
        .chain([pdf.as_os_str().to_owned(), prefix.as_os_str().to_owned()])
        .collect();
    poppler("pdftoppm", &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
    let img = Image::read(&prefix.with_extension("png"));
    let dark = |(r, g, b): (u8, u8, u8)| u32::from(r) + u32::from(g) + u32::from(b) < 3 * 70;
    // The grid's top line: the first row mostly dark (a quarter of the page or more).
    let top = (0..img.h).find(|&y| (0..img.w).filter(|&x| dark(img.at(x, y))).count() > img.w / 4).unwrap();
    let row = top + 20;
    let xs: Vec<usize> = (0..img.w).filter(|&x| dark(img.at(x, row))).collect();
    let (left, right) = (xs[0], *xs.last().unwrap());
    // Down the grid 5 mm inside its right edge (the title starts at its left).
    let col = right - 20;
    let ys: Vec<usize> = (0..img.h).filter(|&y| dark(img.at(col, y))).collect();
    let (up, down) = (ys[0], *ys.last().unwrap());
    let mm = |px: usize| px as f64 * 25.4 / 100.0;
    (mm(right - left), mm(down - up))
}

#[test]
fn every_board_kind_prints_as_a_sheet_of_squares_at_the_tile_size() {
    let pack = load(&fixtures());
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&pack, &opts(out.path(), &[Format::Pdf])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let boards: Vec<String> = report
        .boards
        .iter()
        .map(|b| format!("{} {}x{}, {} pages of {}x{}", b.id, b.cols, b.rows, b.pages, b.per_page.0, b.per_page.1))
        .collect();
    // The kingdom grows: 3 x 3 is kept 5 x 5 with the castle in the middle, 200 mm across,
    // which A4 takes in two pages (3 and 2 columns); the market is 4 x 2 on one page.
    assert_eq!(boards, ["kingdom 5x5, 2 pages of 3x5", "market 4x2, 1 pages of 4x2"]);
    let market = out.path().join("tile-demo-board-market.pdf");
    assert_eq!(report.boards[1].path, market);
    let doc = Document::load(&market).unwrap();
    let mb = media_box(&doc, doc.get_pages()[&1]);
    assert!((mb[2] - 210.0 * MM).abs() < 0.01 && (mb[3] - 297.0 * MM).abs() < 0.01, "A4: {mb:?}");
    // Drawn: 4 x 2 squares of 40 mm, 160 x 80 mm (within a pixel and the line's width).
    let (w, h) = drawn_grid_mm(&market, 1, out.path());
    assert!((w - 160.0).abs() < 1.0 && (h - 80.0).abs() < 1.0, "{w} x {h} mm");
    let kingdom = out.path().join("tile-demo-board-kingdom.pdf");
    let (w, h) = drawn_grid_mm(&kingdom, 2, out.path());
    assert!((w - 80.0).abs() < 1.0 && (h - 200.0).abs() < 1.0, "the second page, columns d and e: {w} x {h} mm");

    // On A3 the kingdom is one page; with a square of 30 mm, one A4 page too.
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Pdf]);
    o.page.paper = Paper::A3;
    let report = print::render_pack(&pack, &o).unwrap();
    assert_eq!((report.boards[0].pages, report.boards[0].per_page), (1, (5, 5)));
    let dir = fixture_copy();
    let manifest = dir.path().join("content/tile-demo/pack.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\n[print]\ntile_square_mm = 30\n")).unwrap();
    let report = print::render_pack(&load(dir.path()), &opts(out.path(), &[Format::Pdf])).unwrap();
    assert_eq!((report.boards[0].pages, report.boards[0].square_mm), (1, 30.0));
    let (w, h) = drawn_grid_mm(&out.path().join("tile-demo-board-kingdom.pdf"), 1, out.path());
    assert!((w - 150.0).abs() < 1.0 && (h - 150.0).abs() < 1.0, "{w} x {h} mm");
    // Boards print with the sheets, not with --only.
    let out = tempfile::tempdir().unwrap();
    let mut o = opts(out.path(), &[Format::Pdf]);
    o.only = vec!["d1".into()];
    assert!(print::render_pack(&pack, &o).unwrap().boards.is_empty());
}

#[test]
fn tile_square_mm_sizes_the_tiles_and_a_pack_template_replaces_the_built_in_one() {
    let dir = fixture_copy();
    let pack_dir = dir.path().join("content/tile-demo");
    let manifest = pack_dir.join("pack.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\n[print]\ntile_square_mm = 30\n")).unwrap();
    std::fs::create_dir_all(pack_dir.join("templates")).unwrap();
    // A tile template of the pack's own: each square in its colour, nothing else.
    std::fs::write(
        pack_dir.join("templates/tile-front.svg"),
        r#"{%- import "macros.svg" as m -%}
{{ m::open(geom=geom) }}{% for c in tile.cells %}
<rect x="{{ c.x }}" y="{{ c.y }}" width="{{ tile.square }}" height="{{ tile.square }}" fill="{{ c.color_dark }}"/>{% endfor %}
</svg>"#,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let report = print::render_pack(&load(dir.path()), &opts(out.path(), &[Format::Png])).unwrap();
    assert_eq!(report.errors(), 0, "{:#?}", report.diagnostics);
    let d1 = Image::read(&out.path().join("png/d1.png"));
    assert_eq!((d1.w, d1.h), (709, 354), "60 x 30 mm at 300 dpi");
    let dark = |c: &str| {
        let (r, g, b) = hex(c);
        let m = |v: u8| (f32::from(v) * 0.62).round() as u8;
        (m(r), m(g), m(b))
    };
    assert_eq!(d1.at_mm(15.0, 15.0, 300.0), dark(WHEAT));
    assert_eq!(d1.at_mm(45.0, 3.0, 300.0), dark(FOREST));
    // The cards keep the built-in look.
    assert_eq!(Image::read(&out.path().join("png/omen.png")).w, 744);

    // A square out of range is refused where it is written.
    std::fs::write(&manifest, format!("{text}\n[print]\ntile_square_mm = 5\n")).unwrap();
    let loaded = load_pack(&Project::new(dir.path()), "tile-demo", LoadOptions { compile_scripts: false });
    let d = loaded.diagnostics.iter().find(|d| d.is_error()).expect("an error");
    assert_eq!(d.code, "out-of-range");
    assert!(d.message.contains("tile_square_mm = 5"), "{d:?}");
    assert_eq!(d.file.as_deref(), Some(Path::new("content/tile-demo/pack.toml")));
}

#[test]
fn a_terrain_without_a_colour_is_an_error_naming_the_terrain_and_the_file() {
    let dir = fixture_copy();
    let manifest = dir.path().join("content/tile-demo/pack.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace("forest = \"#2f6b3a\"\n", "").replace("castle = \"#8a8a8a\"", "castle = \"grey-ish\"");
    std::fs::write(&manifest, text).unwrap();
    let pack = load(dir.path());
    let found = print::check_faces(&pack);
    let errors: Vec<_> = found.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    let forest = errors.iter().find(|d| d.code == "missing-color").expect("forest has no colour");
    assert!(forest.message.contains("terrain `forest`"), "{}", forest.message);
    assert!(forest.message.contains("content/tile-demo/pack.toml"), "{}", forest.message);
    assert!(forest.message.contains("tiles `bend`, `d1` and `d3`"), "{}", forest.message);
    assert_eq!(forest.file.as_deref(), Some(Path::new("content/tile-demo/pack.toml")));
    assert!(forest.hint.as_deref().unwrap_or("").contains("forest = "), "{forest:?}");
    let castle = errors.iter().find(|d| d.code == "bad-color").expect("castle's colour is no colour");
    assert!(castle.message.contains("`grey-ish`") && castle.message.contains("board `kingdom`"), "{}", castle.message);
    // `crown check` fails on it; `crown print` prints the squares marked, and fails too.
    let root = dir.path().to_string_lossy().to_string();
    assert_eq!(crown(&["--project", &root, "check", "tile-demo"]), 1);
    let out = dir.path().join("out");
    let out_s = out.to_string_lossy().to_string();
    assert_eq!(crown(&["--project", &root, "print", "tile-demo", "--out", &out_s, "--format", "svg,pdf"]), 1);
    let svg = std::fs::read_to_string(out.join("svg/d1.svg")).unwrap();
    assert!(svg.contains(">no colour</text>"), "{svg}");
    assert!(out.join("tile-demo-board-kingdom.pdf").exists());
}

#[test]
fn svg_snapshot_of_the_tile_faces() {
    let pack = load(&fixtures());
    let (printer, diags) = Printer::new(&pack, Geometry { w: 63.0, h: 88.0, bleed: 0.0 }).unwrap();
    assert!(diags.is_empty(), "{diags:#?}");
    for (id, side, name, ratio) in [
        ("d1", Side::Front, "tile-front", 2.0),
        ("bend", Side::Front, "tile-front-bend", 1.0),
        ("d1", Side::Back, "tile-back", 2.0),
    ] {
        let r = printer.render(pack.get(id).unwrap(), side);
        assert!(r.diagnostics.is_empty(), "{id}: {:#?}", r.diagnostics);
        let tree = print::parse_svg(&r.svg).unwrap();
        assert!((tree.size().width() / tree.size().height() - ratio).abs() < 1e-3, "{id}");
        check_snapshot(&format!("{name}.svg"), &r.svg);
    }
}
