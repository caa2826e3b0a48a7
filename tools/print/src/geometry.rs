//! A card's size and bleed, and how the built-in templates' design scales to it.

/// Card size and bleed, in millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    pub w: f64,
    pub h: f64,
    pub bleed: f64,
}

/// The card size the built-in templates are drawn for; other sizes scale it.
pub const DESIGN_MM: (f64, f64) = (63.0, 88.0);

impl Geometry {
    /// Width and height with the bleed on both sides.
    pub fn full(&self) -> (f64, f64) {
        (self.w + 2.0 * self.bleed, self.h + 2.0 * self.bleed)
    }

    /// How much a template unit is in millimetres: 1 for poker cards; smaller cards scale
    /// the whole design down (so a mini card looks like a small poker card), larger ones
    /// up (a tarot card is a poker card with a taller text box).
    pub fn scale(&self) -> f64 {
        (self.w / DESIGN_MM.0).min(self.h / DESIGN_MM.1)
    }

    /// What templates see as `geom`: `w`, `h`, `bleed` in template units, `scale`, and
    /// the real sizes `w_mm`, `h_mm`, `bleed_mm` that `m::open` writes on the `<svg>`.
    pub fn design(&self) -> serde_json::Value {
        self.design_at(self.scale())
    }

    /// `geom` as [`Geometry::design`] gives it, at `k` millimetres a template unit (a
    /// tile's units follow its square, not a card's design).
    pub fn design_at(&self, k: f64) -> serde_json::Value {
        let r = |x: f64| (x * 1000.0).round() / 1000.0;
        serde_json::json!({
            "w": r(self.w / k),
            "h": r(self.h / k),
            "bleed": r(self.bleed / k),
            "scale": r(k),
            "w_mm": self.w,
            "h_mm": self.h,
            "bleed_mm": self.bleed,
        })
    }
}
