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
/// A game file (`*.game.toml`).
pub const GAME_FILE_LIMIT: u64 = 16 * MIB;
/// A golden game's transcript.
pub const TRANSCRIPT_LIMIT: u64 = 64 * MIB;
/// A campaign save.
pub const SAVE_LIMIT: u64 = 64 * MIB;
/// A `crown sim --out` statistics file (a shard).
pub const SHARD_LIMIT: u64 = 64 * MIB;
/// Crown's own bookkeeping files (print cache, accepted golden games).
pub const INDEX_LIMIT: u64 = 16 * MIB;

/// What a file is for, which sets its size limit and names it in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Definition,
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
}

impl ReadError {
    pub fn path(&self) -> &Path {
        match self {
            ReadError::Io(p, _) | ReadError::NotAFile(p, _) => p,
            ReadError::TooLarge { path, .. } | ReadError::Outside { path, .. } => path,
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
    Ok(bytes)
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

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(12), "12 bytes");
        assert_eq!(human_size(3 * 1024), "3 KiB");
        assert_eq!(human_size(32 * MIB), "32 MiB");
        assert_eq!(human_size(5 * 1024 * MIB), "5 GiB");
    }
}
