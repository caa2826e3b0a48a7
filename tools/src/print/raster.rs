//! PNG output with resvg: one image per card face at a chosen DPI, and the deck sheets
//! a virtual tabletop imports (grids of at most 10x7 cards, within 4096 px).

use resvg::tiny_skia::{Pixmap, PixmapPaint, Transform};
use resvg::usvg;

use super::render::Geometry;

/// Pixels for a length in millimetres at `dpi`.
pub fn px(mm: f64, dpi: u32) -> u32 {
    (mm / 25.4 * f64::from(dpi)).round().max(1.0) as u32
}

/// Rasterise a face at `dpi`, bleed included.
pub fn face_png(tree: &usvg::Tree, geom: Geometry, dpi: u32) -> Result<Vec<u8>, String> {
    let (fw, fh) = geom.full();
    let (w, h) = (px(fw, dpi), px(fh, dpi));
    let pm = rasterize(tree, w, h, None, geom)?;
    encode(&pm, Some(dpi))
}

/// Encode an opaque image (every image here is drawn on white) as an RGB PNG, with fast
/// compression, and its resolution recorded when known.
pub fn encode(pm: &Pixmap, dpi: Option<u32>) -> Result<Vec<u8>, String> {
    // Opaque, so premultiplied and straight colour agree: drop the alpha byte.
    let rgb: Vec<u8> = pm.data().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, pm.width(), pm.height());
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    if let Some(dpi) = dpi {
        let ppm = (f64::from(dpi) / 0.0254).round() as u32;
        enc.set_pixel_dims(Some(png::PixelDimensions { xppu: ppm, yppu: ppm, unit: png::Unit::Meter }));
    }
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(&rgb).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The most pixels one image Crown draws may have (four bytes each while it is drawn):
/// a tarot card at 1200 dpi is 19 million; a metre-wide card at that resolution would
/// be over a billion.
pub const MAX_PIXELS: u64 = 64_000_000;

/// A `w` x `h` image to draw on, refused past [`MAX_PIXELS`].
fn canvas(w: u32, h: u32) -> Result<Pixmap, String> {
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(format!(
            "a {w}x{h} image is over the limit of {} million pixels: use a lower --dpi or a smaller card size",
            MAX_PIXELS / 1_000_000
        ));
    }
    Pixmap::new(w, h).ok_or_else(|| format!("cannot make a {w}x{h} image"))
}

/// Rasterise a face into `w` x `h` pixels; with `trim` the bleed is cut off first.
pub fn rasterize(tree: &usvg::Tree, w: u32, h: u32, trim: Option<()>, geom: Geometry) -> Result<Pixmap, String> {
    let mut pm = canvas(w, h)?;
    pm.fill(resvg::tiny_skia::Color::WHITE);
    let size = tree.size();
    let (fw, fh) = geom.full();
    // User units per millimetre of the tree.
    let (kx, ky) = (size.width() as f64 / fw, size.height() as f64 / fh);
    let transform = match trim {
        None => Transform::from_scale(w as f32 / size.width(), h as f32 / size.height()),
        Some(()) => {
            let sx = f64::from(w) / (geom.w * kx);
            let sy = f64::from(h) / (geom.h * ky);
            Transform::from_row(
                sx as f32,
                0.0,
                0.0,
                sy as f32,
                (-geom.bleed * kx * sx) as f32,
                (-geom.bleed * ky * sy) as f32,
            )
        }
    };
    resvg::render(tree, transform, &mut pm.as_mut());
    Ok(pm)
}

/// The largest cell of a 10x7 grid within 4096 px with the card's proportions.
pub fn tts_cell(geom: Geometry) -> (u32, u32) {
    let by_width: f64 = 4096.0 / 10.0;
    let by_height = 4096.0 / 7.0 * geom.w / geom.h;
    let w = by_width.min(by_height).floor();
    let h = (w * geom.h / geom.w).floor();
    (w as u32, h as u32)
}

/// Cards per sheet: 10x7 less the last slot, which virtual tabletops keep for the
/// hidden-card image.
pub const TTS_PER_SHEET: usize = 69;

/// Columns and rows of a sheet holding `n` cards.
pub fn tts_grid(n: usize) -> (usize, usize) {
    let cols = n.clamp(1, 10);
    (cols, n.div_ceil(cols).max(1))
}

/// Compose card images (already at cell size) into one sheet.
pub fn compose(cells: &[&Pixmap], cols: usize, rows: usize, cell: (u32, u32)) -> Result<Vec<u8>, String> {
    let (w, h) = (u64::from(cell.0) * cols as u64, u64::from(cell.1) * rows as u64);
    let mut sheet = canvas(u32::try_from(w).unwrap_or(u32::MAX), u32::try_from(h).unwrap_or(u32::MAX))?;
    sheet.fill(resvg::tiny_skia::Color::WHITE);
    for (i, pm) in cells.iter().enumerate() {
        let (r, c) = (i / cols, i % cols);
        sheet.draw_pixmap(
            (c as u32 * cell.0) as i32,
            (r as u32 * cell.1) as i32,
            pm.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
    }
    encode(&sheet, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheets_stay_within_limits() {
        let (w, h) = tts_cell(Geometry { w: 63.0, h: 88.0, bleed: 0.0 });
        assert!(w * 10 <= 4096 && h * 7 <= 4096, "{w}x{h}");
        assert!(w >= 400);
        let (w, h) = tts_cell(Geometry { w: 70.0, h: 70.0, bleed: 0.0 });
        assert!(w * 10 <= 4096 && h * 7 <= 4096 && w == h);
        assert_eq!(tts_grid(69), (10, 7));
        assert_eq!(tts_grid(3), (3, 1));
        assert_eq!(tts_grid(11), (10, 2));
        assert_eq!(px(63.0, 300), 744);
    }
}
