//! Small helpers shared by the print modules: data URIs, pack files, hashing, numbers.

use crown_engine::fsread;
use std::path::{Component, Path, PathBuf};

use crown_engine::content::Pack;

/// `data:<mime>;base64,<data>`.
pub fn data_uri(mime: &str, bytes: &[u8]) -> String {
    let mut s = String::with_capacity(mime.len() + 13 + bytes.len() * 4 / 3 + 4);
    s.push_str("data:");
    s.push_str(mime);
    s.push_str(";base64,");
    base64::Engine::encode_string(&base64::engine::general_purpose::STANDARD, bytes, &mut s);
    s
}

/// The MIME type of an image file, by its first bytes.
pub fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF8") {
        Some("image/gif")
    } else if bytes.len() > 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).to_lowercase();
        head.contains("<svg").then_some("image/svg+xml")
    }
}

/// Read a file named relative to a pack's folder. Returns the path shown to people
/// (relative to the project) and the bytes, or a message saying what is wrong.
pub fn pack_file(pack: &Pack, rel: &str) -> Result<(PathBuf, Vec<u8>), String> {
    pack_file_in(pack, pack.id(), rel)
}

/// Like [`pack_file`], in the folder of pack `pack_id` (a pack this one extends, say).
pub fn pack_file_in(pack: &Pack, pack_id: &str, rel: &str) -> Result<(PathBuf, Vec<u8>), String> {
    let relp = Path::new(rel);
    if rel.is_empty() || relp.is_absolute() || relp.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(format!("`{rel}` must be a relative path inside the pack folder"));
    }
    let shown = Path::new("content").join(pack_id).join(relp);
    let full = pack.project.join(&shown);
    match fsread::read_checked_in(&pack.project, &full, fsread::Kind::Art) {
        Ok(b) => Ok((shown, b)),
        Err(e) if e.is_not_found() => Err(format!("`{}` does not exist", shown.display())),
        Err(e) => Err(format!("cannot read `{}`: {}", shown.display(), e.reason())),
    }
}

/// A running hash over several pieces (the engine's FNV-1a), for cache keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hasher(crown_engine::content::Fnv);

impl Hasher {
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        // A separator after each piece, so ("ab","c") and ("a","bc") differ.
        self.0.write(b).write(&[0xff]);
        self
    }

    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }

    pub fn u64(&mut self, n: u64) -> &mut Self {
        self.bytes(&n.to_le_bytes())
    }

    pub fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// A number for SVG output: at most three decimals, no trailing zeros.
pub fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// `attack` -> `Attack`, `solo-attack` -> `Solo attack`.
pub fn label(key: &str) -> String {
    // Two letters are an abbreviation: `hp` is HP, `vp` VP.
    if key.chars().count() <= 2 {
        return key.to_uppercase();
    }
    let spaced = key.replace(['-', '_'], " ");
    let mut c = spaced.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(data_uri("text/plain", b""), "data:text/plain;base64,");
        assert_eq!(data_uri("a", b"f"), "data:a;base64,Zg==");
        assert_eq!(data_uri("a", b"fo"), "data:a;base64,Zm8=");
        assert_eq!(data_uri("a", b"foobar"), "data:a;base64,Zm9vYmFy");
    }

    #[test]
    fn numbers_and_labels() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.23456), "1.235");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(label("solo-attack"), "Solo attack");
    }

    #[test]
    fn hasher_separates_pieces() {
        let a = Hasher::default().str("ab").str("c").finish();
        let b = Hasher::default().str("a").str("bc").finish();
        assert_ne!(a, b);
    }

    #[test]
    fn mime_sniffing() {
        assert_eq!(image_mime(b"\x89PNG\r\n\x1a\nxxxx"), Some("image/png"));
        assert_eq!(image_mime(b"<?xml version='1.0'?><svg>"), Some("image/svg+xml"));
        assert_eq!(image_mime(b"hello"), None);
    }
}
