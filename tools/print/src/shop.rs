//! Print-on-demand shops: what The Game Crafter, MakePlayingCards and DriveThruCards ask
//! of card files (cut size, bleed, safe zone, resolution, which files), as their published
//! specifications state it (`docs/printing.md` cites each), and the upload list written
//! beside the images.

use std::path::Path;

use crown_engine::content::model::Shop;
use crown_engine::content::Pack;
use crown_engine::diag::Diagnostic;

use super::geometry::Geometry;
use super::util::num;
use super::Format;

/// Millimetres in an inch.
const MM_PER_IN: f64 = 25.4;

/// One card product a shop makes: its name and its cut (trim) size in inches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Product {
    pub name: &'static str,
    pub trim_in: (f64, f64),
}

/// What a shop takes: the card products it makes, and for all of them the bleed beyond
/// the cut and the safe zone inside it (inches), the resolution, and the files.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    pub shop: Shop,
    /// The shop's name, as people know it.
    pub name: &'static str,
    pub products: &'static [Product],
    pub bleed_in: f64,
    pub safe_in: f64,
    pub dpi: u32,
    /// A PNG per face (`png/<id>.png` and `png/<id>.back.png`) with an upload list, or
    /// one PDF per deck with one card a page.
    pub files: Files,
}

/// The files a shop takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    /// One image per face, front and back, and `<pack>-<shop>.csv` saying which to
    /// upload, with how many copies.
    Png,
    /// One PDF per deck, each card a page followed by its back (`--layout card`).
    CardPdf,
}

const US_POKER: Product = Product { name: "poker", trim_in: (2.5, 3.5) };

/// The shops, from their published card specifications.
pub const SPECS: &[Spec] = &[
    // The Game Crafter's templates: poker 825x1125 px, bridge 750x1125, mini 600x825,
    // tarot 900x1500 at 300 dpi: the cut size and 1/8 in of bleed all round, the safe
    // zone 1/8 in inside the cut (1/4 in from the edge of the image). RGB PNG or JPG.
    Spec {
        shop: Shop::Tgc,
        name: "The Game Crafter",
        products: &[
            US_POKER,
            Product { name: "bridge", trim_in: (2.25, 3.5) },
            Product { name: "mini", trim_in: (1.75, 2.5) },
            Product { name: "tarot", trim_in: (2.75, 4.75) },
        ],
        bleed_in: 0.125,
        safe_in: 0.125,
        dpi: 300,
        files: Files::Png,
    },
    // MakePlayingCards: poker cards as 822x1122 px at 300 dpi, 36 px of bleed on each
    // side of the 750x1050 px cut, the safe area 36 px inside the cut (678x978 px).
    Spec {
        shop: Shop::Mpc,
        name: "MakePlayingCards",
        products: &[US_POKER],
        bleed_in: 36.0 / 300.0,
        safe_in: 36.0 / 300.0,
        dpi: 300,
        files: Files::Png,
    },
    // DriveThruCards: a PDF per deck, one card a page (each front followed by its back),
    // 1/8 in of bleed built into the page (2.75x3.75 in for poker cards), nothing that
    // matters closer than 1/8 in to the cut.
    Spec {
        shop: Shop::Drivethru,
        name: "DriveThruCards",
        products: &[US_POKER],
        bleed_in: 0.125,
        safe_in: 0.125,
        dpi: 300,
        files: Files::CardPdf,
    },
];

/// How far a pack's card may be from a shop's product and still be made as it (a 63x88 mm
/// poker card is the shop's 2.5x3.5 in one; 56x88 mm bridge its 2.25x3.5 in).
const MATCH_MM: f64 = 1.5;

impl Spec {
    pub fn of(shop: Shop) -> &'static Spec {
        SPECS.iter().find(|s| s.shop == shop).expect("every shop has a spec")
    }

    pub fn bleed_mm(&self) -> f64 {
        self.bleed_in * MM_PER_IN
    }

    pub fn safe_mm(&self) -> f64 {
        self.safe_in * MM_PER_IN
    }

    /// The formats the shop's files are made of.
    pub fn formats(&self) -> Vec<Format> {
        match self.files {
            Files::Png => vec![Format::Png],
            Files::CardPdf => vec![Format::Pdf],
        }
    }

    /// The shop's product for a card of `size_mm` (either way up), as a geometry: its cut
    /// size in millimetres, the card's orientation kept, and the shop's bleed. An error
    /// names the products the shop makes.
    pub fn geometry(&self, size_mm: (f64, f64)) -> Result<(Product, Geometry), Diagnostic> {
        let (w, h) = size_mm;
        let landscape = w > h;
        let (short, long) = (w.min(h), w.max(h));
        let near = |p: &Product| {
            (p.trim_in.0 * MM_PER_IN - short).abs() <= MATCH_MM && (p.trim_in.1 * MM_PER_IN - long).abs() <= MATCH_MM
        };
        let Some(p) = self.products.iter().find(|p| near(p)) else {
            let made: Vec<String> = self
                .products
                .iter()
                .map(|p| {
                    format!(
                        "{} ({}x{} in, {}x{} mm)",
                        p.name,
                        num(p.trim_in.0),
                        num(p.trim_in.1),
                        num(p.trim_in.0 * MM_PER_IN),
                        num(p.trim_in.1 * MM_PER_IN)
                    )
                })
                .collect();
            return Err(Diagnostic::error(
                "shop-size",
                format!(
                    "{} makes no card of {}x{} mm: its card sizes (as Crown knows them from its published specifications) are {}",
                    self.name,
                    num(w),
                    num(h),
                    made.join(", ")
                ),
            )
            .hint("print with a card size the shop makes (--size, or card_size in pack.toml), or without --shop and set --size, --bleed and --dpi to what the shop asks"));
        };
        let (tw, th) = (p.trim_in.0 * MM_PER_IN, p.trim_in.1 * MM_PER_IN);
        let (gw, gh) = if landscape { (th, tw) } else { (tw, th) };
        Ok((*p, Geometry { w: gw, h: gh, bleed: self.bleed_mm() }))
    }
}

/// `tgc`, `mpc`, `drivethru`: the names a shop is given by.
pub fn names() -> String {
    Shop::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// One CSV cell, quoted when it must be.
fn cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The upload list of a shop taking one image per face: a row per definition with its
/// deck (its pile: `cards`..., `tiles`), id, name, copies, and the front and back images to upload (paths from the output
/// folder), in print order. The shop's deck editor takes each front with its count.
pub fn upload_list(piles: &[super::tiles::Pile<'_>], has_back: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::from("deck,id,name,count,front,back\n");
    for (pile, d) in piles.iter().flat_map(|p| p.defs.iter().map(move |d| (p, d))) {
        let id = &d.def.id;
        let back = if has_back(id) { format!("png/{id}.back.png") } else { String::new() };
        let row =
            [pile.name.clone(), id.clone(), d.def.name.clone(), d.def.count.to_string(), format!("png/{id}.png"), back];
        out.push_str(&row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// Where the upload list goes: `<out>/<pack>-<shop>.csv`.
pub fn upload_list_path(out: &Path, pack: &Pack, shop: Shop) -> std::path::PathBuf {
    out.join(format!("{}-{}.csv", pack.id(), shop.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::px;

    /// The pixel sizes each shop publishes, from the geometry Crown prints.
    #[test]
    fn each_shop_gets_the_pixels_it_publishes() {
        let full_px = |shop, size| {
            let (_, g) = Spec::of(shop).geometry(size).unwrap();
            let (fw, fh) = g.full();
            (px(fw, 300), px(fh, 300))
        };
        assert_eq!(full_px(Shop::Tgc, (63.0, 88.0)), (825, 1125));
        assert_eq!(full_px(Shop::Tgc, (63.5, 88.9)), (825, 1125));
        assert_eq!(full_px(Shop::Tgc, (56.0, 88.0)), (750, 1125));
        assert_eq!(full_px(Shop::Tgc, (44.0, 63.0)), (600, 825));
        assert_eq!(full_px(Shop::Tgc, (70.0, 120.0)), (900, 1500));
        assert_eq!(full_px(Shop::Mpc, (63.0, 88.0)), (822, 1122));
        assert_eq!(full_px(Shop::Drivethru, (63.0, 88.0)), (825, 1125));
        // Landscape cards stay landscape.
        assert_eq!(full_px(Shop::Mpc, (88.0, 63.0)), (1122, 822));
        // The safe zone: 1/4 in from the edge of The Game Crafter's image, 36 px inside
        // MakePlayingCards' cut.
        let tgc = Spec::of(Shop::Tgc);
        assert_eq!(px(tgc.bleed_mm() + tgc.safe_mm(), 300), 75);
        assert_eq!(px(Spec::of(Shop::Mpc).safe_mm(), 300), 36);
    }

    #[test]
    fn a_size_the_shop_does_not_make_is_an_error_naming_what_it_makes() {
        let e = Spec::of(Shop::Mpc).geometry((44.0, 63.0)).unwrap_err();
        assert_eq!(e.code, "shop-size");
        assert!(e.message.contains("MakePlayingCards makes no card of 44x63 mm"), "{}", e.message);
        assert!(e.message.contains("poker (2.5x3.5 in, 63.5x88.9 mm)"), "{}", e.message);
        assert!(Spec::of(Shop::Tgc).geometry((70.0, 70.0)).is_err());
        assert_eq!(names(), "tgc, mpc, drivethru");
        assert_eq!(Spec::of(Shop::Drivethru).formats(), vec![Format::Pdf]);
    }
}
