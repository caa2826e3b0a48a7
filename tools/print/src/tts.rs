//! Virtual-tabletop output: deck sheets (grids of card images, one slot per distinct
//! face), their manifest, and one Tabletop Simulator saved object per deck, which loads by
//! dropping it into the game's Saved Objects folder.
//!
//! A saved object is the JSON the game itself writes for an object: `ObjectStates` holds
//! one `DeckCustom` whose `CustomDeck` maps a key to a sheet (`FaceURL`, `BackURL`,
//! `NumWidth`, `NumHeight`), whose `DeckIDs` list its cards bottom to top, and whose
//! `ContainedObjects` are those cards (`Name` = `Card`, `CardID` = key x 100 + slot,
//! `Nickname`). Copies of a card share its slot: its `CardID` comes back once per copy.
//! A pile of one is a lone `Card`. Each sheet's key is drawn from the pack's id, the pile
//! and the sheet's number ([`deck_key`]): the same on every print, different for every
//! sheet of the pack, and unlikely to meet another pack's, so that decks of several packs
//! share one table. Images are named by URL: `file:///` URLs of the files written here,
//! or `--tts-url` followed by the file name for sheets put on the web.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crown_engine::content::{Def, Pack};
use crown_engine::diag::Diagnostic;
use rayon::prelude::*;
use resvg::tiny_skia::Pixmap;
use resvg::usvg;
use serde::Serialize;
use serde_json::{json, Value};

use super::geometry::Geometry;
use super::render::{Printer, Side};
use super::{context, io_diag, raster, util};
use crate::files as out;

/// What [`write`] wrote.
#[derive(Debug, Clone, Serialize)]
pub struct TtsReport {
    /// `<pack>-deck.json`: which card sits in which slot of which sheet.
    pub manifest: std::path::PathBuf,
    /// Every image written (sheets, backs, thumbnails).
    pub sheets: Vec<std::path::PathBuf>,
    /// One Tabletop Simulator saved object per deck.
    pub saved_objects: Vec<std::path::PathBuf>,
    pub cell_px: (u32, u32),
    /// Images drawn this run, and those kept because their faces had not changed.
    pub drawn: usize,
    pub kept: usize,
}

#[derive(Serialize)]
struct Manifest<'a> {
    pack: &'a str,
    version: &'a str,
    card_size_mm: (f64, f64),
    cell_px: (u32, u32),
    back: String,
    decks: Vec<DeckSummary>,
    sheets: Vec<Sheet>,
}

#[derive(Serialize)]
struct DeckSummary {
    /// `cards`, `plaques`, `nobles`, `leaders`, or `tiles` (`tiles-2x1`... for tiles of
    /// several shapes).
    deck: String,
    /// The size of its pieces (cut), and of each slot of its sheets.
    size_mm: (f64, f64),
    cell_px: (u32, u32),
    /// The back every piece of the deck shares (its own, for tiles).
    back: String,
    /// The saved object to drop into Tabletop Simulator.
    saved_object: String,
    /// Copies in the deck, every count added up.
    cards: usize,
    /// Distinct faces: one slot each.
    faces: usize,
    sheets: usize,
    /// The `CustomDeck` key of each of its sheets.
    keys: Vec<u64>,
}

#[derive(Serialize)]
struct Sheet {
    /// `cards`, `plaques`, `nobles` or `leaders`: which pile the sheet belongs to.
    deck: String,
    image: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    backs: Option<String>,
    cols: usize,
    rows: usize,
    /// Its `CustomDeck` key: its cards' `CardID`s are key x 100 + slot.
    key: u64,
    /// One slot per distinct face, in order.
    cards: Vec<Slot>,
}

#[derive(Serialize)]
struct Slot {
    slot: usize,
    row: usize,
    col: usize,
    id: String,
    name: String,
    kind: String,
    /// How many cards of the deck show this face (its `CardID` is that many times in `DeckIDs`).
    count: i64,
}

/// Where the images are found from inside the game.
#[derive(Debug, Clone)]
pub enum Urls {
    /// `file:///` URLs of the files in the output folder.
    Local,
    /// The sheets will be put on the web under this address.
    Base(String),
}

impl Urls {
    fn of(&self, path: &Path) -> String {
        match self {
            Urls::Local => file_url(path),
            Urls::Base(b) => {
                let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
                format!("{}/{}", b.trim_end_matches('/'), percent_encode(&name, false))
            }
        }
    }
}

/// A `file:///` URL of an absolute path (`C:\x y` becomes `file:///C:/x%20y`).
pub fn file_url(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let s = abs.to_string_lossy().replace('\\', "/");
    let s = s.trim_start_matches('/');
    format!("file:///{}", percent_encode(s, true))
}

fn percent_encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && (b == b'/' || b == b':'));
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The smallest and largest `CustomDeck` key given to a sheet.
const KEY_MIN: u64 = 1_000;
const KEY_MAX: u64 = 99_999;

/// The `CustomDeck` key of sheet `n` (from 0) of a pack's pile: drawn from the pack's id,
/// the pile and `n`, so every print of the pack gives the same keys and another pack's are
/// unlikely to meet them; one already given in this pack (`used`) moves on to the next free
/// key, so no two sheets of a pack share one.
pub fn deck_key(pack: &str, deck: &str, n: usize, used: &mut std::collections::BTreeSet<u64>) -> u64 {
    let h = util::Hasher::default().str(pack).str(deck).u64(n as u64).finish();
    let span = KEY_MAX - KEY_MIN + 1;
    let mut k = KEY_MIN + h % span;
    while !used.insert(k) {
        k = if k == KEY_MAX { KEY_MIN } else { k + 1 };
    }
    k
}

/// A stable six-digit GUID for an object of the pack.
fn guid(parts: &[&str]) -> String {
    let mut h = util::Hasher::default();
    for p in parts {
        h.str(p);
    }
    format!("{:06x}", h.finish() & 0xff_ffff)
}

fn transform(x: f64, scale: f64) -> Value {
    // Face down (rotZ 180), as a deck lies on the table.
    json!({
        "posX": x, "posY": 1.0, "posZ": 0.0,
        "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
        "scaleX": scale, "scaleY": 1.0, "scaleZ": scale,
    })
}

/// One sheet as the game's `CustomDeck` entry.
fn custom_deck(face: &str, back: &str, cols: usize, rows: usize, unique_back: bool) -> Value {
    json!({
        "FaceURL": face,
        "BackURL": back,
        "NumWidth": cols,
        "NumHeight": rows,
        "BackIsHidden": true,
        "UniqueBack": unique_back,
        "Type": 0,
    })
}

/// The common fields of a card or deck object.
fn object(
    name: &str,
    guid: String,
    nickname: &str,
    description: &str,
    transform: Value,
) -> serde_json::Map<String, Value> {
    let v = json!({
        "GUID": guid,
        "Name": name,
        "Transform": transform,
        "Nickname": nickname,
        "Description": description,
        "GMNotes": "",
        "ColorDiffuse": { "r": 0.713235259, "g": 0.713235259, "b": 0.713235259 },
        "Locked": false,
        "Grid": true,
        "Snap": true,
        "IgnoreFoW": false,
        "Autoraise": true,
        "Sticky": true,
        "Tooltip": true,
        "GridProjection": false,
        "HideWhenFaceDown": true,
        "LuaScript": "",
        "LuaScriptState": "",
        "XmlUI": "",
    });
    match v {
        Value::Object(m) => m,
        _ => unreachable!("an object literal"),
    }
}

/// The faces of the pack's jobs, for the deck sheets: `trees[i]` is face `i` (or `None`
/// when it could not be rendered), `keys[i]` its cache key and whether it rendered
/// without a diagnostic (only such faces' sheets are recorded in the cache).
pub struct Faces<'a> {
    pub trees: &'a [Option<Arc<usvg::Tree>>],
    pub keys: &'a [(u64, bool)],
    pub index_of: &'a (dyn Fn(&str, Side) -> Option<usize> + Sync),
}

/// A face drawn at a slot's size: its index and the size in pixels.
type Cell = (usize, (u32, u32));

/// One image to write: each slot a face, or `None` for the plain back colour, drawn at
/// `cell` pixels from faces of size `geom`.
struct Image {
    path: std::path::PathBuf,
    slots: Vec<Option<usize>>,
    cols: usize,
    rows: usize,
    cell: (u32, u32),
    geom: Geometry,
}

/// The deck sheets of every pile of pieces, their manifest and one saved object per
/// deck. `back_of` names the definition whose generic back is the cards' common back
/// (`geom` their size); a pile of tiles has the back of its first tile. A sheet whose
/// faces are those it was made from (the print cache says so) is kept as it is.
#[allow(clippy::too_many_arguments)]
pub fn write(
    pack: &Pack,
    piles: &[super::tiles::Pile<'_>],
    geom: Geometry,
    faces: &Faces<'_>,
    out_dir: &Path,
    back_of: Option<&str>,
    urls: &Urls,
    cache: &mut super::cache::Cache,
    use_cache: bool,
) -> Result<TtsReport, Diagnostic> {
    let (trees, index_of) = (faces.trees, faces.index_of);
    let dir = out_dir.join("tts");
    let cell = raster::tts_cell(geom);
    let err = |e: String| Diagnostic::error("tts-error", format!("deck sheets: {e}"));
    let has_front = |d: &&Def| index_of(&d.def.id, Side::Front).is_some_and(|t| trees[t].is_some());
    let card_back = back_of.and_then(|id| index_of(id, Side::Back)).filter(|t| trees[*t].is_some());
    let card_back_path = dir.join("back.png");
    // Sheets to compose and encode, all at once on the thread pool once they are known.
    let mut images: Vec<Image> =
        vec![Image { path: card_back_path.clone(), slots: vec![card_back], cols: 1, rows: 1, cell, geom }];
    let mut sheets = Vec::new();
    let mut decks = Vec::new();
    let mut files = Vec::new();
    let mut saved_objects = Vec::new();
    let mut used_keys = std::collections::BTreeSet::new();
    // One deck (a run of sheets) per pile: cards, plaques, nobles, leaders, tiles.
    for (deck_no, pile) in piles.iter().enumerate() {
        // One slot per distinct face; the copies repeat its CardID.
        let faces_of_kind: Vec<&Def> = pile.defs.iter().copied().filter(has_front).collect();
        if faces_of_kind.is_empty() {
            continue;
        }
        let (geom, deck) = (pile.geom, pile.name.clone());
        let cell = raster::tts_cell(geom);
        let scale = (geom.w.min(geom.h) / 63.0 * 100.0).round() / 100.0;
        // Tiles have a back of their own shape: their first tile's.
        let (back_tree, back_path) = if pile.tiles {
            let t = index_of(&pile.defs[0].def.id, Side::Back).filter(|t| trees[*t].is_some());
            let path = dir.join(format!("{}-{deck}-back.png", pack.id()));
            images.push(Image { path: path.clone(), slots: vec![t], cols: 1, rows: 1, cell, geom });
            (t, path)
        } else {
            (card_back, card_back_path.clone())
        };
        let back_url = urls.of(&back_path);
        let copies: usize = faces_of_kind.iter().map(|d| usize::try_from(d.def.count).unwrap_or(0)).sum();
        let mut custom = serde_json::Map::new();
        let mut deck_ids = Vec::new();
        let mut contained = Vec::new();
        let mut thumbnail = None;
        let mut keys = Vec::new();
        let n_sheets = faces_of_kind.len().div_ceil(raster::TTS_PER_SHEET);
        for (n, chunk) in faces_of_kind.chunks(raster::TTS_PER_SHEET).enumerate() {
            let (cols, rows) = raster::tts_grid(chunk.len());
            let fronts: Vec<Option<usize>> = chunk.iter().map(|d| index_of(&d.def.id, Side::Front)).collect();
            thumbnail.get_or_insert(fronts[0]);
            let image = format!("{}-{deck}-{}.png", pack.id(), n + 1);
            let path = dir.join(&image);
            let face_url = urls.of(&path);
            images.push(Image { path, slots: fronts, cols, rows, cell, geom });
            let mut backs = None;
            let mut sheet_back_url = back_url.clone();
            if chunk.iter().any(|d| Printer::two_sided(d)) {
                let back_cells: Vec<Option<usize>> = chunk
                    .iter()
                    .map(|d| {
                        let own = if Printer::two_sided(d) { index_of(&d.def.id, Side::Back) } else { None };
                        own.filter(|t| trees[*t].is_some()).or(back_tree)
                    })
                    .collect();
                let name = format!("{}-{deck}-{}-backs.png", pack.id(), n + 1);
                let path = dir.join(&name);
                sheet_back_url = urls.of(&path);
                images.push(Image { path, slots: back_cells, cols, rows, cell, geom });
                backs = Some(name);
            }
            let key = deck_key(pack.id(), &deck, n, &mut used_keys);
            keys.push(key);
            let entry = custom_deck(&face_url, &sheet_back_url, cols, rows, backs.is_some());
            custom.insert(key.to_string(), entry.clone());
            for (slot, d) in chunk.iter().enumerate() {
                let card_id = key * 100 + slot as u64;
                for copy in 1..=d.def.count {
                    deck_ids.push(card_id);
                    let mut card = object(
                        "Card",
                        guid(&[pack.id(), &deck, &card_id.to_string(), &copy.to_string()]),
                        &d.def.name,
                        &d.def.text,
                        transform(deck_no as f64 * 3.0, scale),
                    );
                    card.insert("GMNotes".into(), json!(d.def.id));
                    card.insert("CardID".into(), json!(card_id));
                    card.insert("SidewaysCard".into(), json!(geom.w > geom.h));
                    card.insert("Hands".into(), json!(true));
                    card.insert("CustomDeck".into(), json!({ key.to_string(): entry }));
                    card.insert("ContainedObjects".into(), json!([]));
                    contained.push(Value::Object(card));
                }
            }
            sheets.push(Sheet {
                deck: deck.clone(),
                image,
                backs,
                cols,
                rows,
                key,
                cards: chunk
                    .iter()
                    .enumerate()
                    .map(|(i, d)| Slot {
                        slot: i,
                        row: i / cols,
                        col: i % cols,
                        id: d.def.id.clone(),
                        name: d.def.name.clone(),
                        kind: context::print_kind(d),
                        count: d.def.count,
                    })
                    .collect(),
            });
        }
        let nickname = format!("{}: {}", pack.manifest.name, deck);
        let object = if contained.len() == 1 {
            // A pile of one is a card, not a deck.
            contained.pop().expect("one card")
        } else {
            let mut d = object(
                "DeckCustom",
                guid(&[pack.id(), &deck]),
                &nickname,
                &format!("{} {}, {} cards", pack.manifest.name, pack.manifest.version, contained.len()),
                transform(deck_no as f64 * 3.0, scale),
            );
            d.insert("SidewaysCard".into(), json!(geom.w > geom.h));
            d.insert("Hands".into(), json!(false));
            d.insert("DeckIDs".into(), json!(deck_ids));
            d.insert("CustomDeck".into(), Value::Object(custom));
            d.insert("ContainedObjects".into(), Value::Array(contained));
            Value::Object(d)
        };
        let save = json!({
            "SaveName": nickname,
            "GameMode": "",
            "Gravity": 0.5,
            "PlayArea": 0.5,
            "Date": "",
            "Table": "",
            "Sky": "",
            "Note": "",
            "Rules": "",
            "XmlUI": "",
            "LuaScript": "",
            "LuaScriptState": "",
            "ObjectStates": [object],
            "TabStates": {},
            "VersionNumber": "",
        });
        let name = format!("{}-{deck}.json", pack.id());
        let path = dir.join(&name);
        let text = serde_json::to_string_pretty(&save).unwrap_or_default();
        out::write_atomic_in(out_dir, &path, text.as_bytes()).map_err(|e| io_diag(&path, &e))?;
        saved_objects.push(path);
        // The game shows a PNG of the same name as the saved object's picture.
        if let Some(t) = thumbnail {
            images.push(Image {
                path: dir.join(format!("{}-{deck}.png", pack.id())),
                slots: vec![t],
                cols: 1,
                rows: 1,
                cell,
                geom,
            });
        }
        decks.push(DeckSummary {
            deck,
            size_mm: (geom.w, geom.h),
            cell_px: cell,
            back: back_path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
            saved_object: name,
            cards: copies,
            faces: faces_of_kind.len(),
            sheets: n_sheets,
            keys,
        });
    }
    // Which images are still what their faces would make; only the others are drawn,
    // from faces rasterised once however many slots show them.
    let rel = |p: &Path| format!("tts/{}", p.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
    let keyed: Vec<(u64, bool)> = images
        .iter()
        .map(|im| {
            let mut h = util::Hasher::default();
            h.u64(u64::from(im.cell.0)).u64(u64::from(im.cell.1)).u64(im.cols as u64).u64(im.rows as u64);
            let mut clean = true;
            for s in &im.slots {
                let (k, c) = s.map_or((0, true), |t| faces.keys[t]);
                h.u64(k);
                clean &= c;
            }
            (h.finish(), clean)
        })
        .collect();
    let stale: Vec<bool> = images
        .iter()
        .zip(&keyed)
        .map(|(im, (k, clean))| !(use_cache && *clean && cache.fresh(&rel(&im.path), *k)))
        .collect();
    // Each face at the size of the slots it fills (a face fills slots of one size).
    let mut wanted: BTreeMap<Cell, Geometry> = BTreeMap::new();
    for im in images.iter().zip(&stale).filter(|(_, s)| **s).map(|(im, _)| im) {
        for &t in im.slots.iter().flatten() {
            wanted.insert((t, im.cell), im.geom);
        }
    }
    let wanted: Vec<(Cell, Geometry)> = wanted.into_iter().collect();
    let cells: BTreeMap<Cell, Pixmap> = wanted
        .par_iter()
        .map(|&((t, cell), geom)| {
            let tree = trees[t].as_ref().expect("a rendered face");
            raster::rasterize(tree, cell.0, cell.1, Some(()), geom).map(|pm| ((t, cell), pm))
        })
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let blank = |cell: (u32, u32)| {
        let mut pm = Pixmap::new(cell.0, cell.1).ok_or_else(|| err("bad cell size".into()))?;
        pm.fill(resvg::tiny_skia::Color::from_rgba8(0x2b, 0x2f, 0x3a, 255));
        Ok::<Pixmap, Diagnostic>(pm)
    };
    images
        .par_iter()
        .zip(&stale)
        .filter(|(_, s)| **s)
        .map(|(im, _)| {
            let plain = blank(im.cell)?;
            let slots: Vec<&Pixmap> = im.slots.iter().map(|s| s.map_or(&plain, |t| &cells[&(t, im.cell)])).collect();
            let bytes = raster::compose(&slots, im.cols, im.rows, im.cell).map_err(err)?;
            out::write_atomic_in(out_dir, &im.path, &bytes).map_err(|e| io_diag(&im.path, &e))
        })
        .collect::<Result<Vec<()>, Diagnostic>>()?;
    for ((im, (k, clean)), s) in images.iter().zip(&keyed).zip(&stale) {
        match (*s, *clean && use_cache) {
            (true, true) => cache.set(&rel(&im.path), *k),
            (true, false) => cache.remove(&rel(&im.path)),
            (false, _) => {}
        }
        files.push(im.path.clone());
    }
    let manifest = Manifest {
        pack: pack.id(),
        version: &pack.manifest.version,
        card_size_mm: (geom.w, geom.h),
        cell_px: cell,
        back: "back.png".into(),
        decks,
        sheets,
    };
    let path = dir.join(format!("{}-deck.json", pack.id()));
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    out::write_atomic_in(out_dir, &path, text.as_bytes()).map_err(|e| io_diag(&path, &e))?;
    // What an earlier run left that this one did not make (a deck that shrank, a pack
    // that lost its plaques) goes.
    let made: std::collections::BTreeSet<&Path> =
        files.iter().chain(&saved_objects).chain(std::iter::once(&path)).map(|p| p.as_path()).collect();
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_file() && p.extension().is_some_and(|x| x == "png" || x == "json") && !made.contains(p.as_path()) {
                let _ = std::fs::remove_file(&p);
                cache.remove(&rel(&p));
            }
        }
    }
    let drawn = stale.iter().filter(|s| **s).count();
    Ok(TtsReport { manifest: path, sheets: files, saved_objects, cell_px: cell, drawn, kept: stale.len() - drawn })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_are_absolute_and_escaped() {
        let u = file_url(Path::new("/tmp/my cards/deck #1.png"));
        assert_eq!(u, "file:///tmp/my%20cards/deck%20%231.png");
        assert!(file_url(Path::new("rel.png")).starts_with("file:///"));
        let b = Urls::Base("https://example.org/decks/".into());
        assert_eq!(b.of(Path::new("/x/a b.png")), "https://example.org/decks/a%20b.png");
        assert_eq!(guid(&["a", "b"]).len(), 6);
    }

    #[test]
    fn deck_keys_are_stable_in_range_and_never_shared_within_a_pack() {
        let mut used = std::collections::BTreeSet::new();
        let a = deck_key("take-the-kingdom", "cards", 0, &mut used);
        let b = deck_key("take-the-kingdom", "nobles", 0, &mut used);
        assert_ne!(a, b);
        assert_eq!(deck_key("take-the-kingdom", "cards", 0, &mut std::collections::BTreeSet::new()), a);
        // Taken already: the next free key.
        let mut taken: std::collections::BTreeSet<u64> = (KEY_MIN..=KEY_MAX).filter(|k| *k != KEY_MIN).collect();
        assert_eq!(deck_key("x", "cards", 0, &mut taken), KEY_MIN);
        for k in [a, b] {
            assert!((KEY_MIN..=KEY_MAX).contains(&k));
            // Every CardID (key x 100 + slot) fits the game's 32-bit integers.
            assert!(k * 100 + 69 < i32::MAX as u64);
        }
    }
}
