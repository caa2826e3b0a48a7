//! Printing for print shops and virtual tables, end to end through `crown print` on the
//! shipped packs: each shop preset's pixel sizes, the PDF of one card a page with its
//! TrimBox and BleedBox (read with lopdf), guides on PNGs, and Tabletop Simulator decks
//! with one slot per distinct face and CustomDeck keys no two piles share.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crown_engine::content::{DefKind, Pack};
use crown_engine::load::{load_pack, LoadOptions};
use lopdf::{Document, Object};

use crate::common::{crown, project_copy, repo_project};

/// Points in a millimetre.
const MM: f64 = 72.0 / 25.4;

fn shipped(id: &str) -> Pack {
    let loaded = load_pack(&repo_project(), id, LoadOptions { compile_scripts: false });
    loaded.pack.unwrap_or_else(|| panic!("{id}: {:#?}", loaded.diagnostics))
}

/// `crown print PACK --out OUT ARGS...` on the repository's packs: the exit code.
fn print(pack: &str, out: &Path, extra: &[&str]) -> i32 {
    let root = repo_project().root.to_string_lossy().to_string();
    let out = out.to_string_lossy().to_string();
    let mut args = vec!["--project", &root, "print", pack, "--out", &out];
    args.extend_from_slice(extra);
    crown(&args)
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{} is not a PNG", path.display());
    (u32::from_be_bytes(b[16..20].try_into().unwrap()), u32::from_be_bytes(b[20..24].try_into().unwrap()))
}

/// Images by card id, with their sizes in pixels.
type Sizes = BTreeMap<String, (u32, u32)>;

/// The PNGs in `<out>/png/`, fronts and backs apart, with their sizes.
fn pngs(out: &Path) -> (Sizes, Sizes) {
    let (mut fronts, mut backs) = (BTreeMap::new(), BTreeMap::new());
    for e in std::fs::read_dir(out.join("png")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let size = png_size(&e.path());
        match name.strip_suffix(".back.png") {
            Some(id) => backs.insert(id.to_string(), size),
            None => fronts.insert(name.trim_end_matches(".png").to_string(), size),
        };
    }
    (fronts, backs)
}

#[test]
fn each_shop_preset_writes_the_pixel_sizes_the_shop_publishes() {
    let out = tempfile::tempdir().unwrap();
    let ttk = shipped("take-the-kingdom");
    let faces: BTreeSet<String> = ttk.defs.iter().filter(|d| d.def.count > 0).map(|d| d.def.id.clone()).collect();
    // The Game Crafter: every front and every back of Take the Kingdom at 825x1125 px.
    let tgc = out.path().join("tgc");
    assert_eq!(print("take-the-kingdom", &tgc, &["--shop", "tgc"]), 0);
    let (fronts, backs) = pngs(&tgc);
    assert_eq!(fronts.keys().cloned().collect::<BTreeSet<_>>(), faces, "a front per definition");
    assert_eq!(backs.len(), fronts.len(), "and its back");
    assert!(fronts.values().chain(backs.values()).all(|s| *s == (825, 1125)), "{fronts:?}");
    assert!(!tgc.join("take-the-kingdom.pdf").exists() && !tgc.join("tts").exists(), "only what the shop takes");
    // Its upload list: a row per definition with its count and files, in print order.
    let list = std::fs::read_to_string(tgc.join("take-the-kingdom-tgc.csv")).unwrap();
    let sheet = crown_engine::load::table::parse_csv(&list).unwrap();
    let mut lines =
        sheet.rows.iter().filter(|r| r.len() > 1).map(|r| r.iter().map(|c| c.text.as_str()).collect::<Vec<_>>());
    assert_eq!(lines.next().unwrap(), ["deck", "id", "name", "count", "front", "back"]);
    let rows: Vec<Vec<&str>> = lines.collect();
    assert_eq!(rows.len(), faces.len());
    let copies: i64 = rows.iter().map(|r| r[3].parse::<i64>().unwrap()).sum();
    assert_eq!(copies, ttk.defs.iter().map(|d| d.def.count).sum::<i64>());
    for r in &rows {
        assert!(tgc.join(r[4]).is_file() && tgc.join(r[5]).is_file(), "{r:?}");
    }
    // MakePlayingCards: 822x1122 px, 36 px of bleed.
    let mpc = out.path().join("mpc");
    assert_eq!(print("take-the-kingdom", &mpc, &["--shop", "mpc", "--only", "archers,mercy"]), 0);
    let (fronts, backs) = pngs(&mpc);
    assert_eq!(fronts.len(), 2);
    assert!(fronts.values().chain(backs.values()).all(|s| *s == (822, 1122)), "{fronts:?}");
    assert!(mpc.join("take-the-kingdom-mpc.csv").is_file());
    // A mini card at The Game Crafter: 600x825 px; MakePlayingCards makes no mini card
    // (as Crown knows its specifications): a usage error, nothing written.
    let kic = shipped("kingdoms-in-conflict");
    let one = &kic.defs.iter().find(|d| d.def.count > 0).unwrap().def.id;
    let mini = out.path().join("mini");
    assert_eq!(print("kingdoms-in-conflict", &mini, &["--shop", "tgc", "--only", one]), 0);
    assert_eq!(png_size(&mini.join("png").join(format!("{one}.png"))), (600, 825));
    let refused = out.path().join("refused");
    assert_eq!(print("kingdoms-in-conflict", &refused, &["--shop", "mpc", "--only", one]), 2);
    assert!(!refused.join("png").exists());
    // What a shop sets is not set by hand as well.
    assert_eq!(print("take-the-kingdom", &refused, &["--shop", "tgc", "--bleed", "3"]), 2);
    assert_eq!(print("take-the-kingdom", &refused, &["--shop", "mpc", "--dpi", "600"]), 2);
    assert_eq!(print("take-the-kingdom", &refused, &["--shop", "drivethru", "--layout", "sheet"]), 2);
}

#[test]
fn a_packs_print_shop_is_its_default_and_none_leaves_it_out() {
    let dir = project_copy(&["content/take-the-kingdom", "scripts/take-the-kingdom"]);
    let manifest = dir.path().join("content/take-the-kingdom/pack.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("[print]\n", "[print]\nshop = \"mpc\"\n")).unwrap();
    let root = dir.path().to_str().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    assert_eq!(crown(&["--project", root, "print", "take-the-kingdom", "--out", out_s, "--only", "archers"]), 0);
    assert_eq!(png_size(&out.join("png/archers.png")), (822, 1122));
    let plain = dir.path().join("plain");
    let plain_s = plain.to_str().unwrap();
    let args =
        ["--project", root, "print", "take-the-kingdom", "--out", plain_s, "--only", "archers", "--shop", "none"];
    assert_eq!(crown(&args), 0);
    assert_eq!(png_size(&plain.join("png/archers.png")), (744, 1039), "63x88 mm at 300 dpi, no bleed");
    // A shop the pack names, and a bleed set by hand: which one is meant is unclear.
    assert_eq!(crown(&["--project", root, "print", "take-the-kingdom", "--out", out_s, "--bleed", "2"]), 2);
}

fn num(o: &Object) -> f64 {
    match o {
        Object::Integer(i) => *i as f64,
        Object::Real(r) => f64::from(*r),
        other => panic!("not a number: {other:?}"),
    }
}

/// A page's box, inherited from the page tree when the page has none.
fn page_box(doc: &Document, page: lopdf::ObjectId, name: &[u8]) -> Option<[f64; 4]> {
    let mut dict = doc.get_dictionary(page).ok()?;
    loop {
        if let Ok(b) = dict.get(name) {
            let b = match b {
                Object::Reference(r) => doc.get_object(*r).ok()?,
                o => o,
            };
            let v: Vec<f64> = b.as_array().ok()?.iter().map(num).collect();
            return Some([v[0], v[1], v[2], v[3]]);
        }
        let parent = dict.get(b"Parent").ok()?.as_reference().ok()?;
        dict = doc.get_dictionary(parent).ok()?;
    }
}

fn near(a: [f64; 4], b: [f64; 4]) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 0.01)
}

/// Whether any colour space the PDF declares is ICC-based.
fn has_icc_colour_space(doc: &Document) -> bool {
    doc.objects.values().any(|o| match o {
        Object::Array(a) => matches!(a.first(), Some(Object::Name(n)) if n == b"ICCBased"),
        _ => false,
    })
}

#[test]
fn a_card_a_page_pdf_carries_a_trim_box_and_a_bleed_box_on_every_page() {
    let out = tempfile::tempdir().unwrap();
    let ttk = shipped("take-the-kingdom");
    // DriveThruCards: a PDF per deck, each card a page at 2.75x3.75 in, followed by its back.
    let dtc = out.path().join("dtc");
    assert_eq!(print("take-the-kingdom", &dtc, &["--shop", "drivethru"]), 0);
    let (w, h, b) = (2.5 * 72.0, 3.5 * 72.0, 0.125 * 72.0);
    for kind in [DefKind::Card, DefKind::Noble] {
        let path = dtc.join(format!("take-the-kingdom-{}s.pdf", kind.as_str()));
        let doc = Document::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let copies: i64 = ttk.defs.iter().filter(|d| d.kind == kind).map(|d| d.def.count).sum();
        let pages = doc.get_pages();
        assert_eq!(pages.len() as i64, 2 * copies, "{}: a front and a back per card", path.display());
        for (n, id) in &pages {
            let media = page_box(&doc, *id, b"MediaBox").unwrap();
            assert!(near(media, [0.0, 0.0, w + 2.0 * b, h + 2.0 * b]), "page {n}: {media:?}");
            let bleed = page_box(&doc, *id, b"BleedBox").unwrap_or_else(|| panic!("page {n} has no BleedBox"));
            assert!(near(bleed, media), "page {n}: {bleed:?}");
            let trim = page_box(&doc, *id, b"TrimBox").unwrap_or_else(|| panic!("page {n} has no TrimBox"));
            assert!(near(trim, [b, b, b + w, b + h]), "page {n}: {trim:?}");
        }
        assert!(has_icc_colour_space(&doc), "{}: colours in ICC-based sRGB", path.display());
    }
    assert!(!dtc.join("png").exists(), "DriveThruCards takes the PDFs");
    // --layout card on its own: the pack's card size and the bleed asked for.
    let card = out.path().join("card");
    assert_eq!(print("the-last-kingdom", &card, &["--layout", "card", "--format", "pdf", "--bleed", "3"]), 0);
    let doc = Document::load(card.join("the-last-kingdom-cards.pdf")).unwrap();
    let first = doc.get_pages()[&1];
    let trim = page_box(&doc, first, b"TrimBox").unwrap();
    assert!(near(trim, [3.0 * MM, 3.0 * MM, 66.0 * MM, 91.0 * MM]), "{trim:?}");
    assert!(near(page_box(&doc, first, b"BleedBox").unwrap(), [0.0, 0.0, 69.0 * MM, 94.0 * MM]));
    // The sheets keep no such boxes, and stay in the printer's RGB.
    let sheets = out.path().join("sheets");
    assert_eq!(print("take-the-kingdom", &sheets, &["--format", "pdf", "--only", "mercy"]), 0);
    let doc = Document::load(sheets.join("take-the-kingdom.pdf")).unwrap();
    assert!(page_box(&doc, doc.get_pages()[&1], b"TrimBox").is_none());
    assert!(!has_icc_colour_space(&doc));
    // Crop marks need paper around the cards.
    assert_eq!(print("the-last-kingdom", &sheets, &["--layout", "card", "--crop-marks"]), 2);
}

#[test]
fn guides_are_drawn_on_pngs_for_checking_a_file() {
    let out = tempfile::tempdir().unwrap();
    let (plain, guided) = (out.path().join("plain"), out.path().join("guided"));
    assert_eq!(print("take-the-kingdom", &plain, &["--shop", "tgc", "--only", "archers"]), 0);
    assert_eq!(print("take-the-kingdom", &guided, &["--shop", "tgc", "--only", "archers", "--guides"]), 0);
    let pixels = |p: &Path| {
        let mut r = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap())).read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        (info.width as usize, buf)
    };
    let (w, a) = pixels(&plain.join("png/archers.png"));
    let (_, b) = pixels(&guided.join("png/archers.png"));
    let at = |px: &[u8], x: usize, y: usize| {
        let i = (y * w + x) * 3;
        (px[i], px[i + 1], px[i + 2])
    };
    // The Game Crafter's cut is 37.5 px in, its safe zone 75 px in: down the middle of
    // the card, the cut line's and the safe zone's colours there, and not without --guides.
    let y = 1125 / 2;
    let column_has = |px: &[u8], x0: usize, x1: usize, c: (u8, u8, u8)| {
        (x0..=x1).any(|x| (y - 40..y + 40).any(|y| at(px, x, y) == c))
    };
    let (cut, safe) = (crown_tools::print::sheet::GUIDE_CUT, crown_tools::print::sheet::GUIDE_SAFE);
    assert!(column_has(&b, 35, 40, cut) && column_has(&b, 785, 790, cut));
    assert!(column_has(&b, 72, 78, safe) && column_has(&b, 747, 753, safe));
    assert!(!column_has(&a, 35, 40, cut) && !column_has(&a, 72, 78, safe));
}

/// The saved objects of a print: `(file name, object)` per deck.
fn saved_objects(out: &Path) -> Vec<(String, serde_json::Value)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(out.join("tts")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.ends_with(".json") && !name.ends_with("-deck.json") {
            let save: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            v.push((name, save["ObjectStates"][0].clone()));
        }
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Every CustomDeck key the saved objects name.
fn keys(objects: &[(String, serde_json::Value)]) -> Vec<u64> {
    objects
        .iter()
        .flat_map(|(_, o)| o["CustomDeck"].as_object().unwrap().keys().map(|k| k.parse::<u64>().unwrap()))
        .collect()
}

#[test]
fn tabletop_simulator_decks_hold_one_slot_per_distinct_face_and_keys_no_two_piles_share() {
    let out = tempfile::tempdir().unwrap();
    let ttk = shipped("take-the-kingdom");
    let dir = out.path().join("ttk");
    assert_eq!(print("take-the-kingdom", &dir, &["--format", "tts"]), 0);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tts/take-the-kingdom-deck.json")).unwrap()).unwrap();
    let objects = saved_objects(&dir);
    assert_eq!(objects.len(), 2, "cards and nobles");
    for (name, deck) in &objects {
        let kind = name.trim_start_matches("take-the-kingdom-").trim_end_matches("s.json");
        let defs: Vec<_> =
            crown_tools::print::in_print_order(&ttk).into_iter().filter(|d| d.kind.as_str() == kind).collect();
        // One slot per distinct face: the sheets' slots are the definitions, once each, in
        // the order they are written.
        let slots: Vec<&serde_json::Value> = manifest["sheets"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["deck"] == format!("{kind}s"))
            .flat_map(|s| s["cards"].as_array().unwrap())
            .collect();
        let ids: Vec<&str> = slots.iter().map(|s| s["id"].as_str().unwrap()).collect();
        assert_eq!(ids, defs.iter().map(|d| d.def.id.as_str()).collect::<Vec<_>>(), "{name}");
        // The copies repeat their CardID in DeckIDs: each as many times as the card's count.
        let deck_ids = deck["DeckIDs"].as_array().unwrap();
        let contained = deck["ContainedObjects"].as_array().unwrap();
        assert_eq!(deck_ids.len() as i64, defs.iter().map(|d| d.def.count).sum::<i64>(), "{name}");
        let mut copies: BTreeMap<u64, (String, i64)> = BTreeMap::new();
        for (id, card) in deck_ids.iter().zip(contained) {
            assert_eq!(*id, card["CardID"], "{name}: DeckIDs follow ContainedObjects");
            let e = copies.entry(id.as_u64().unwrap()).or_insert((card["GMNotes"].as_str().unwrap().to_string(), 0));
            assert_eq!(e.0, card["GMNotes"].as_str().unwrap(), "{name}: one CardID, one face");
            e.1 += 1;
        }
        assert_eq!(copies.len(), defs.len(), "{name}: a CardID per distinct face");
        for d in &defs {
            assert!(copies.values().any(|(id, n)| *id == d.def.id && *n == d.def.count), "{name}: {}", d.def.id);
        }
        let guids: BTreeSet<&str> = contained.iter().map(|c| c["GUID"].as_str().unwrap()).collect();
        assert_eq!(guids.len(), contained.len(), "{name}: every card object its own GUID");
    }
    // Take the Kingdom's 108 cards (34 faces) fit one sheet; its nobles another.
    let sheets = manifest["sheets"].as_array().unwrap();
    assert_eq!(sheets.len(), 2);
    assert_eq!(sheets[0]["cards"].as_array().unwrap().len(), 34);
    // Keys: none shared between the piles of a pack, nor with another pack's, and the same
    // on every print.
    let ttk_keys = keys(&objects);
    assert_eq!(ttk_keys.iter().collect::<BTreeSet<_>>().len(), ttk_keys.len());
    assert!(!ttk_keys.contains(&1), "not the key every deck used to have");
    let tlk = out.path().join("tlk");
    assert_eq!(print("the-last-kingdom", &tlk, &["--format", "tts"]), 0);
    let tlk_keys = keys(&saved_objects(&tlk));
    assert_eq!(tlk_keys.iter().collect::<BTreeSet<_>>().len(), tlk_keys.len());
    assert!(tlk_keys.iter().all(|k| !ttk_keys.contains(k)), "{ttk_keys:?} {tlk_keys:?}");
    let again = out.path().join("again");
    assert_eq!(print("take-the-kingdom", &again, &["--format", "tts", "--no-cache"]), 0);
    assert_eq!(keys(&saved_objects(&again)), ttk_keys);
}
