//! PNG output with resvg: one image per card face at a chosen DPI, and the deck sheets
//! a virtual tabletop imports (grids of at most 10x7 cards, within 4096 px).

use resvg::tiny_skia::{Pixmap, PixmapPaint, Transform};
use resvg::usvg;

use super::geometry::Geometry;

/// Pixels for a length in millimetres at `dpi`.
pub fn px(mm: f64, dpi: u32) -> u32 {
    (mm / 25.4 * f64::from(dpi)).round().max(1.0) as u32
}

/// Rasterise a face at `dpi`, bleed included; with `guides` (the safe zone's distance
/// inside the cut, in millimetres), the guides drawn over it as on the PDF sheets.
pub fn face_png(tree: &usvg::Tree, geom: Geometry, dpi: u32, guides: Option<f64>) -> Result<Vec<u8>, String> {
    let (fw, fh) = geom.full();
    let (w, h) = (px(fw, dpi), px(fh, dpi));
    let mut pm = rasterize(tree, w, h, None, geom)?;
    if let Some(safe) = guides {
        draw_guides(&mut pm, geom, dpi, safe)?;
    }
    encode(&pm, Some(dpi))
}

/// The guides of a face image: its cut line (solid), the edge of its bleed, which is the
/// image's edge (dotted), and the safe zone `safe` millimetres inside the cut (dashed), in
/// the sheets' colours and line width.
fn draw_guides(pm: &mut Pixmap, geom: Geometry, dpi: u32, safe: f64) -> Result<(), String> {
    use super::sheet::{GUIDE_BLEED, GUIDE_CUT, GUIDE_SAFE};
    use resvg::tiny_skia::{Paint, PathBuilder, Rect, Stroke, StrokeDash};
    let k = f64::from(dpi) / 25.4;
    // The sheets' 0.6 pt line.
    let width = (0.6 / 72.0 * f64::from(dpi)).max(1.0) as f32;
    let (pw, ph) = (f64::from(pm.width()), f64::from(pm.height()));
    let mut draw = |(r, g, b): (u8, u8, u8), x0: f64, y0: f64, x1: f64, y1: f64, dash: Option<[f64; 2]>| {
        let rect = Rect::from_ltrb(x0 as f32, y0 as f32, x1 as f32, y1 as f32).ok_or("bad guide")?;
        let path = PathBuilder::from_rect(rect);
        let mut paint = Paint::default();
        paint.set_color_rgba8(r, g, b, 255);
        paint.anti_alias = true;
        let dash = dash.and_then(|[on, off]| StrokeDash::new(vec![(on * k) as f32, (off * k) as f32], 0.0));
        let stroke = Stroke { width, dash, ..Stroke::default() };
        pm.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
        Ok::<(), String>(())
    };
    let (b, half) = (geom.bleed * k, f64::from(width) / 2.0);
    if geom.bleed > 0.0 {
        // The bleed edge is the image's edge: drawn just inside it.
        draw(GUIDE_BLEED, half, half, pw - half, ph - half, Some([0.28, 0.56]))?;
    }
    draw(GUIDE_CUT, b, b, pw - b, ph - b, None)?;
    if safe > 0.0 && geom.w > 2.0 * safe && geom.h > 2.0 * safe {
        let s = b + safe * k;
        draw(GUIDE_SAFE, s, s, pw - s, ph - s, Some([1.06, 0.7]))?;
    }
    Ok(())
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

    #[test]
    fn png_guides_draw_the_cut_the_bleed_edge_and_the_safe_zone() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="69mm" height="94mm" viewBox="0 0 69 94"><rect width="69" height="94" fill="white"/></svg>"#;
        let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).unwrap();
        let geom = Geometry { w: 63.0, h: 88.0, bleed: 3.0 };
        let decode = |bytes: Vec<u8>| {
            let mut r = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
            let mut buf = vec![0; r.output_buffer_size().unwrap()];
            let info = r.next_frame(&mut buf).unwrap();
            (info.width as usize, buf)
        };
        let (w, plain) = decode(face_png(&tree, geom, 300, None).unwrap());
        let (_, guided) = decode(face_png(&tree, geom, 300, Some(3.0)).unwrap());
        assert!(plain.iter().all(|&v| v == 255), "a white face stays white without guides");
        // Down the columns: the bleed edge at the image's edge, the cut 3 mm (35 px) in,
        // the safe zone 6 mm (71 px) in, each in its colour (dashed lines have gaps: any
        // pixel of the column counts).
        let h = guided.len() / 3 / w;
        let at = |x: usize, y: usize| {
            let i = (y * w + x) * 3;
            (guided[i], guided[i + 1], guided[i + 2])
        };
        let near = |x: usize, c: (u8, u8, u8)| (x.saturating_sub(2)..x + 3).any(|x| (0..h).any(|y| at(x, y) == c));
        use super::super::sheet::{GUIDE_BLEED, GUIDE_CUT, GUIDE_SAFE};
        assert!(near(1, GUIDE_BLEED));
        assert!(near(35, GUIDE_CUT) && near(w - 36, GUIDE_CUT));
        assert!(near(71, GUIDE_SAFE) && near(w - 72, GUIDE_SAFE));
        assert_eq!(at(50, h / 2), (255, 255, 255), "nothing between the lines");
        let at = |x: usize| at(x, h / 2);
        assert_eq!(at(w / 2), (255, 255, 255), "nothing drawn inside the safe zone");
    }
}
