//! Checked reading: every file Crown reads goes through [`read_checked`], which looks at
//! what stands at the path before reading it. A directory, FIFO, socket or device is
//! refused (a FIFO would block forever, `/dev/zero` would fill memory), and so is a file
//! larger than the limit for its kind, so a hostile or mistaken file can cost at most
//! its limit in memory. [`read_checked_in`] also refuses a path that resolves (through
//! symbolic links) outside a given folder, the project: files the user names on the
//! command line are read wherever they are, files a pack names are read only inside it.
//!
//! The limits are documented in `docs/designers-guide.md` (section "Limits") and
//! `docs/hardening.md`; each is far above any real file of its kind.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

const MIB: u64 = 1024 * 1024;

/// A definition file (`pack.toml`, cards, scenarios, boards...).
pub const DEFINITION_LIMIT: u64 = 8 * MIB;
/// A Rhai script.
pub const SCRIPT_LIMIT: u64 = 2 * MIB;
/// A card template (SVG, HTML or Markdown).
pub const TEMPLATE_LIMIT: u64 = 4 * MIB;
/// Card art or an icon file.
pub const ART_LIMIT: u64 = 32 * MIB;
/// A font file.
pub const FONT_LIMIT: u64 = 32 * MIB;
/// A game file (`*.game.toml`): a few hundred bytes, plus a few per decision a person
/// made. Parsing takes tens of times the file's size in memory.
pub const GAME_FILE_LIMIT: u64 = 2 * MIB;
/// A golden game's transcript (the shipped ones are at most 130 KiB).
pub const TRANSCRIPT_LIMIT: u64 = 16 * MIB;
/// A campaign save (tens of KiB for a whole campaign; parsing takes tens of times the
/// file's size in memory).
pub const SAVE_LIMIT: u64 = 8 * MIB;
/// A `crown sim --out` statistics file (a shard).
pub const SHARD_LIMIT: u64 = 16 * MIB;
/// A pack's rules document (`rules.md`; the shipped ones are at most 16 KiB): laying it
/// out takes up to about 150 times its size in memory.
pub const RULES_DOC_LIMIT: u64 = MIB;
/// Crown's own bookkeeping files (print cache, accepted golden games).
pub const INDEX_LIMIT: u64 = 16 * MIB;
/// The most pixels a raster image (art, an icon) may have: a small file can declare a
/// huge picture (a PNG of zeros compresses a thousandfold), and decoding it takes four
/// bytes a pixel. 40 million is a 7,300 × 5,500 photograph; a poker card printed at the
/// highest `--dpi` (1200) is 12 million.
pub const ART_PIXELS_LIMIT: u64 = 40_000_000;
/// The longest side of a raster image, in pixels.
pub const ART_SIDE_LIMIT: u32 = 20_000;

/// What a file is for, which sets its size limit and names it in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Definition,
    /// A pack's rules document (`rules.md`).
    RulesDocument,
    Script,
    Template,
    Art,
    Font,
    GameFile,
    Transcript,
    Save,
    Shard,
    Index,
}

impl Kind {
    /// The most bytes a file of this kind may hold.
    pub const fn limit(self) -> u64 {
        match self {
            Kind::Definition => DEFINITION_LIMIT,
            Kind::RulesDocument => RULES_DOC_LIMIT,
            Kind::Script => SCRIPT_LIMIT,
            Kind::Template => TEMPLATE_LIMIT,
            Kind::Art => ART_LIMIT,
            Kind::Font => FONT_LIMIT,
            Kind::GameFile => GAME_FILE_LIMIT,
            Kind::Transcript => TRANSCRIPT_LIMIT,
            Kind::Save => SAVE_LIMIT,
            Kind::Shard => SHARD_LIMIT,
            Kind::Index => INDEX_LIMIT,
        }
    }

    /// The kind in words, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Definition => "a definition file",
            Kind::RulesDocument => "a rules document",
            Kind::Script => "a script",
            Kind::Template => "a template",
            Kind::Art => "art",
            Kind::Font => "a font",
            Kind::GameFile => "a game file",
            Kind::Transcript => "a transcript",
            Kind::Save => "a campaign save",
            Kind::Shard => "a statistics file",
            Kind::Index => "an index file",
        }
    }
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The operating system's error (not found, permission denied...).
    Io(PathBuf, std::io::Error),
    /// Something other than a regular file stands at the path.
    NotAFile(PathBuf, &'static str),
    /// The file is larger than its kind allows.
    TooLarge { path: PathBuf, kind: Kind, size: u64 },
    /// The path resolves outside the folder it must stay in.
    Outside { path: PathBuf, target: PathBuf },
    /// A raster image declares more pixels than art may have.
    TooManyPixels { path: PathBuf, width: u32, height: u32 },
}

impl ReadError {
    pub fn path(&self) -> &Path {
        match self {
            ReadError::Io(p, _) | ReadError::NotAFile(p, _) => p,
            ReadError::TooLarge { path, .. }
            | ReadError::Outside { path, .. }
            | ReadError::TooManyPixels { path, .. } => path,
        }
    }

    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(_, e) if e.kind() == std::io::ErrorKind::NotFound)
    }

    /// What is wrong, without the path (for messages that name the file already).
    pub fn reason(&self) -> String {
        match self {
            ReadError::Io(_, e) => e.to_string(),
            ReadError::NotAFile(_, what) => format!("it is {what}, not a regular file"),
            ReadError::TooLarge { kind, size, .. } => {
                format!("it is {size} bytes, over the {} limit for {}", human_size(kind.limit()), kind.name())
            }
            ReadError::Outside { target, .. } => {
                format!("it resolves outside the project, to {}", target.display())
            }
            ReadError::TooManyPixels { width, height, .. } => format!(
                "it is an image of {width} × {height} pixels, over the limit for art ({} million pixels, \
                 {ART_SIDE_LIMIT} on a side)",
                ART_PIXELS_LIMIT / 1_000_000
            ),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read {}: {}", self.path().display(), self.reason())
    }
}

impl std::error::Error for ReadError {}

/// For call sites that handle an [`std::io::Error`] and name the file themselves: the
/// operating system's error as it was, or one whose message is [`ReadError::reason`].
impl From<ReadError> for std::io::Error {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Io(_, e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.reason()),
        }
    }
}

/// `1.5 MiB`, `12 bytes`.
pub fn human_size(n: u64) -> String {
    if n < 1024 {
        format!("{n} bytes")
    } else if n < MIB {
        format!("{} KiB", n / 1024)
    } else if n < 1024 * MIB {
        let tenths = n * 10 / MIB;
        if tenths.is_multiple_of(10) {
            format!("{} MiB", tenths / 10)
        } else {
            format!("{}.{} MiB", tenths / 10, tenths % 10)
        }
    } else {
        format!("{} GiB", n / (1024 * MIB))
    }
}

fn not_a_file(ft: &std::fs::FileType) -> Option<&'static str> {
    if ft.is_file() {
        return None;
    }
    if ft.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
        if ft.is_char_device() || ft.is_block_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

/// Read a whole file, after checking that it is a regular file (through any symbolic
/// links) within the limit for its kind. The read itself stops one byte past the limit,
/// so a file that grows while it is read, or one whose size the system misreports, is
/// still refused rather than read whole.
pub fn read_checked(path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let io = |e| ReadError::Io(path.to_path_buf(), e);
    let meta = std::fs::metadata(path).map_err(io)?;
    if let Some(what) = not_a_file(&meta.file_type()) {
        return Err(ReadError::NotAFile(path.to_path_buf(), what));
    }
    let limit = kind.limit();
    if meta.len() > limit {
        return Err(ReadError::TooLarge { path: path.to_path_buf(), kind, size: meta.len() });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    // Checked again on the open file: the path may have been swapped in between.
    let meta = file.metadata().map_err(io)?;
    if let Some(what) = not_a_file(&meta.file_type()) {
        return Err(ReadError::NotAFile(path.to_path_buf(), what));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(limit)).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { path: path.to_path_buf(), kind, size: bytes.len() as u64 });
    }
    if kind == Kind::Art {
        if let Some((width, height)) = image_size(&bytes) {
            if u64::from(width) * u64::from(height) > ART_PIXELS_LIMIT || width.max(height) > ART_SIDE_LIMIT {
                return Err(ReadError::TooManyPixels { path: path.to_path_buf(), width, height });
            }
        }
    }
    Ok(bytes)
}

/// The width and height a raster image declares (PNG, JPEG, GIF, WebP), read from its
/// header without decoding it; `None` for other files (SVG) or a header that does not
/// read.
pub fn image_size(b: &[u8]) -> Option<(u32, u32)> {
    let be32 = |i: usize| b.get(i..i + 4).map(|x| u32::from_be_bytes([x[0], x[1], x[2], x[3]]));
    let be16 = |i: usize| b.get(i..i + 2).map(|x| u32::from(u16::from_be_bytes([x[0], x[1]])));
    let le16 = |i: usize| b.get(i..i + 2).map(|x| u32::from(u16::from_le_bytes([x[0], x[1]])));
    let le24 = |i: usize| b.get(i..i + 3).map(|x| u32::from_le_bytes([x[0], x[1], x[2], 0]));
    if b.starts_with(b"\x89PNG\r\n\x1a\n") && b.get(12..16) == Some(b"IHDR") {
        return Some((be32(16)?, be32(20)?));
    }
    if b.starts_with(b"GIF8") {
        return Some((le16(6)?, le16(8)?));
    }
    if b.len() > 16 && &b[0..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        return match &b[12..16] {
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
            }
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            _ => None,
        };
    }
    if b.starts_with(&[0xff, 0xd8]) {
        // Walk the segments to the first start of frame (SOF0-SOF15 but DHT, JPG, DAC).
        let mut i = 2;
        while i + 4 <= b.len() {
            if b[i] != 0xff {
                return None;
            }
            let marker = b[i + 1];
            if marker == 0xff {
                i += 1;
                continue;
            }
            if (0xc0..=0xcf).contains(&marker) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                return Some((be16(i + 7)?, be16(i + 5)?));
            }
            if marker == 0xda || marker == 0xd9 {
                return None;
            }
            i += 2 + be16(i + 2)? as usize;
        }
    }
    None
}

/// [`read_checked`], as UTF-8 text (a byte-order mark is kept; invalid UTF-8 is an
/// [`std::io::ErrorKind::InvalidData`] error, as [`std::fs::read_to_string`] gives).
pub fn read_text_checked(path: &Path, kind: Kind) -> Result<String, ReadError> {
    into_text(path, read_checked(path, kind)?)
}

/// Bytes read from `path` as UTF-8 text, or the error [`std::fs::read_to_string`] gives.
pub fn into_text(path: &Path, bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|_| {
        ReadError::Io(
            path.to_path_buf(),
            std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"),
        )
    })
}

/// [`read_checked`] for a file that must stay inside `root` (the project): a path whose
/// symbolic links lead outside it is refused.
pub fn read_checked_in(root: &Path, path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let io = |e| ReadError::Io(path.to_path_buf(), e);
    let target = std::fs::canonicalize(path).map_err(io)?;
    let root = std::fs::canonicalize(root).map_err(io)?;
    if !target.starts_with(&root) {
        return Err(ReadError::Outside { path: path.to_path_buf(), target });
    }
    read_checked(&target, kind).map_err(|e| match e {
        ReadError::Io(_, e) => ReadError::Io(path.to_path_buf(), e),
        ReadError::NotAFile(_, w) => ReadError::NotAFile(path.to_path_buf(), w),
        ReadError::TooLarge { kind, size, .. } => ReadError::TooLarge { path: path.to_path_buf(), kind, size },
        ReadError::TooManyPixels { width, height, .. } => {
            ReadError::TooManyPixels { path: path.to_path_buf(), width, height }
        }
        o @ ReadError::Outside { .. } => o,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_file_or_too_large() {
        let dir = tempfile_dir();
        let f = dir.join("ok.toml");
        std::fs::write(&f, b"a = 1").unwrap();
        assert_eq!(read_checked(&f, Kind::Definition).unwrap(), b"a = 1");
        let e = read_checked(&dir, Kind::Definition).unwrap_err();
        assert_eq!(e.reason(), "it is a folder, not a regular file");
        let e = read_checked(Path::new("/dev/zero"), Kind::Art).unwrap_err();
        assert_eq!(e.reason(), "it is a device, not a regular file");
        let big = dir.join("big.rhai");
        std::fs::write(&big, vec![b' '; (SCRIPT_LIMIT + 1) as usize]).unwrap();
        let e = read_checked(&big, Kind::Script).unwrap_err();
        assert_eq!(e.reason(), "it is 2097153 bytes, over the 2 MiB limit for a script");
        std::fs::write(&big, vec![b' '; SCRIPT_LIMIT as usize]).unwrap();
        assert!(read_checked(&big, Kind::Script).is_ok());
        #[cfg(unix)]
        {
            let link = dir.join("link.toml");
            std::os::unix::fs::symlink("/dev/null", &link).unwrap();
            assert!(read_checked(&link, Kind::Definition).is_err());
            let e = read_checked_in(&dir, &link, Kind::Definition).unwrap_err();
            assert_eq!(e.reason(), "it resolves outside the project, to /dev/null");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("crown-fsread-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Image headers are read for their size; a declared decompression bomb is refused
    /// as art before anything decodes it.
    #[test]
    fn image_sizes_from_headers() {
        let png = |w: u32, h: u32| {
            let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
            b.extend_from_slice(&w.to_be_bytes());
            b.extend_from_slice(&h.to_be_bytes());
            b.extend_from_slice(&[1, 0, 0, 0, 0]);
            b
        };
        assert_eq!(image_size(&png(30000, 20)), Some((30000, 20)));
        assert_eq!(image_size(b"GIF89a\x10\x00\x20\x00"), Some((16, 32)));
        // JPEG: SOI, an APP0 segment of 16 bytes, then SOF0 with height 600, width 800.
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10];
        jpeg.extend_from_slice(&[0; 14]);
        jpeg.extend_from_slice(&[0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20, 0x03]);
        assert_eq!(image_size(&jpeg), Some((800, 600)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend_from_slice(&[0x1f, 0x4e, 0x00, 0x0f, 0x27, 0x00]); // 20000 x 10000
        assert_eq!(image_size(&webp), Some((20000, 10000)));
        assert_eq!(image_size(b"<svg xmlns='http://www.w3.org/2000/svg'/>"), None);
        let dir = std::env::temp_dir().join(format!("crown-fsread-img-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bomb = dir.join("bomb.png");
        std::fs::write(&bomb, png(30000, 30000)).unwrap();
        let e = read_checked(&bomb, Kind::Art).unwrap_err();
        assert!(e.reason().contains("30000 × 30000 pixels"), "{}", e.reason());
        std::fs::write(&bomb, png(6000, 6000)).unwrap();
        assert!(read_checked(&bomb, Kind::Art).is_ok());
        assert!(read_checked(&bomb, Kind::Definition).is_ok(), "only art is looked at as an image");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(12), "12 bytes");
        assert_eq!(human_size(3 * 1024), "3 KiB");
        assert_eq!(human_size(32 * MIB), "32 MiB");
        assert_eq!(human_size(5 * 1024 * MIB), "5 GiB");
    }
}
