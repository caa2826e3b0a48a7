//! The bundled fonts, the only fonts printing ever uses, so a card looks the same on
//! every machine: Liberation Sans (regular, bold, italic) and Liberation Serif bold,
//! under the SIL Open Font License (`tools/assets/fonts/LICENSE-OFL.txt`).
//!
//! Text is measured here by shaping it with rustybuzz, the shaper usvg itself uses, so the
//! line breaks computed for a card match the glyphs that end up in the PDF and PNG.

use std::sync::{Arc, OnceLock};

use resvg::usvg::fontdb;

/// One of the bundled faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FontId {
    Sans,
    SansBold,
    SansItalic,
    SerifBold,
}

const SANS: &[u8] = include_bytes!("../../assets/fonts/LiberationSans-Regular.ttf");
const SANS_BOLD: &[u8] = include_bytes!("../../assets/fonts/LiberationSans-Bold.ttf");
const SANS_ITALIC: &[u8] = include_bytes!("../../assets/fonts/LiberationSans-Italic.ttf");
const SERIF_BOLD: &[u8] = include_bytes!("../../assets/fonts/LiberationSerif-Bold.ttf");

/// The family name templates use for the body text.
pub const SANS_FAMILY: &str = "Liberation Sans";
/// The family name templates use for titles.
pub const SERIF_FAMILY: &str = "Liberation Serif";

impl FontId {
    pub const ALL: [FontId; 4] = [FontId::Sans, FontId::SansBold, FontId::SansItalic, FontId::SerifBold];

    pub fn data(self) -> &'static [u8] {
        match self {
            FontId::Sans => SANS,
            FontId::SansBold => SANS_BOLD,
            FontId::SansItalic => SANS_ITALIC,
            FontId::SerifBold => SERIF_BOLD,
        }
    }

    pub fn family(self) -> &'static str {
        match self {
            FontId::SerifBold => SERIF_FAMILY,
            _ => SANS_FAMILY,
        }
    }

    /// CSS `font-weight`.
    pub fn weight(self) -> &'static str {
        match self {
            FontId::SansBold | FontId::SerifBold => "bold",
            _ => "normal",
        }
    }

    /// CSS `font-style`.
    pub fn style(self) -> &'static str {
        match self {
            FontId::SansItalic => "italic",
            _ => "normal",
        }
    }

    /// The face for a template's `font` argument: `sans`, `bold`, `italic`, `serif`.
    pub fn parse(name: &str) -> Option<FontId> {
        Some(match name {
            "sans" | "regular" => FontId::Sans,
            "bold" | "sans-bold" => FontId::SansBold,
            "italic" | "sans-italic" => FontId::SansItalic,
            "serif" | "serif-bold" | "title" => FontId::SerifBold,
            _ => return None,
        })
    }

    /// The same family with bold on (used by `**bold**` markup).
    pub fn bolder(self) -> FontId {
        match self {
            FontId::Sans | FontId::SansItalic => FontId::SansBold,
            f => f,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The font database usvg resolves `font-family` against: the bundled faces only.
pub fn database() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        for f in FontId::ALL {
            db.load_font_source(fontdb::Source::Binary(Arc::new(f.data())));
        }
        db.set_sans_serif_family(SANS_FAMILY);
        db.set_serif_family(SERIF_FAMILY);
        db.set_monospace_family(SANS_FAMILY);
        db.set_cursive_family(SANS_FAMILY);
        db.set_fantasy_family(SANS_FAMILY);
        Arc::new(db)
    })
    .clone()
}

fn faces() -> &'static [rustybuzz::Face<'static>; 4] {
    static FACES: OnceLock<[rustybuzz::Face<'static>; 4]> = OnceLock::new();
    FACES.get_or_init(|| FontId::ALL.map(|f| rustybuzz::Face::from_slice(f.data(), 0).expect("bundled font parses")))
}

/// The width of `text` set in `font` at size 1 (in em), as the shaper lays it out
/// (kerning included).
pub fn width_em(font: FontId, text: &str) -> f32 {
    if text.is_empty() {
        return 0.0;
    }
    let face = &faces()[font.index()];
    let mut buf = rustybuzz::UnicodeBuffer::new();
    buf.push_str(text);
    let out = rustybuzz::shape(face, &[], buf);
    let units: i32 = out.glyph_positions().iter().map(|p| p.x_advance).sum();
    units as f32 / face.units_per_em() as f32
}

/// Characters of `text` that `font` has no glyph for (they would print as empty boxes).
pub fn missing_chars(font: FontId, text: &str) -> Vec<char> {
    let face = &faces()[font.index()];
    let mut out: Vec<char> = text.chars().filter(|c| !c.is_control() && face.glyph_index(*c).is_none()).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Ascender of the bundled sans face, in em (for centring icons on text).
pub fn cap_height_em() -> f32 {
    let face = &faces()[FontId::Sans.index()];
    let cap = face.capital_height().unwrap_or(1409);
    f32::from(cap) / face.units_per_em() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_font() {
        let w = width_em(FontId::Sans, "Trebuchet");
        assert!(w > 3.0 && w < 5.5, "{w}");
        assert!(width_em(FontId::SansBold, "Trebuchet") > w);
        assert!(
            (width_em(FontId::Sans, "ab") - width_em(FontId::Sans, "a") - width_em(FontId::Sans, "b")).abs() < 0.05
        );
        assert_eq!(width_em(FontId::Sans, ""), 0.0);
    }

    #[test]
    fn missing_glyphs_are_found() {
        assert!(missing_chars(FontId::Sans, "Plain text, é and ü").is_empty());
        assert_eq!(missing_chars(FontId::Sans, "a \u{1F451} b"), vec!['\u{1F451}']);
    }

    #[test]
    fn the_database_holds_only_bundled_faces() {
        let db = database();
        assert_eq!(db.len(), 4);
        assert!(db.faces().all(|f| f.families.iter().any(|(n, _)| n.starts_with("Liberation"))));
    }
}
