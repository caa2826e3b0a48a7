//! The atomic writer: every file Crown writes goes through [`write_atomic`] (a temporary
//! file beside the target, then a rename), so an interrupted run never leaves a half-written
//! file. It lives here, in the lowest crate that writes files; the `crown` command's
//! `out` module re-exports it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a write to `path` lands: `path` itself, or, when it is a symbolic link (even a
/// chain of them, or one to a file not yet made), the file the link points to, so the
/// link is kept. Refuses a folder, a FIFO, a socket or a device standing there: none of
/// them is replaced, and a FIFO is never opened.
pub fn write_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut target = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(target),
            Err(e) => return Err(e),
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&target)?;
                target = target.parent().unwrap_or(Path::new(".")).join(link);
            }
            Ok(m) if m.is_file() => return Ok(target),
            Ok(m) => {
                let what = if m.is_dir() { "a folder" } else { "not a regular file (a FIFO, socket or device)" };
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("it is {what}, and Crown replaces only regular files"),
                ));
            }
        }
    }
    Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "too many levels of symbolic links"))
}

/// Write a file atomically: a temporary file beside it, then a rename. An interrupted
/// write leaves the old file as it was. A symbolic link is written through (its target
/// is replaced, the link stays); a folder, FIFO or device is refused ([`write_target`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = write_target(path)?;
    let path = target.as_path();
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    // Unique per write: the process, the thread and a counter, so two writers of the same
    // target (threads of one process, or two processes) never share a temporary file.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let thread: String = format!("{:?}", std::thread::current().id()).chars().filter(char::is_ascii_digit).collect();
    let tmp = dir.join(format!(".{name}.crown-tmp-{}-{thread}-{n}", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create_new(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    written.inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Where a write to `path` lands ([`write_target`]), checked to stay inside the folder
/// `root`: for files Crown derives from a project or an output folder (golden
/// transcripts, new cards, schemas, the faces of a print) rather than files the command
/// line names. A symbolic link there, or a linked folder on the way, that leads out of
/// `root` is refused, so a downloaded project cannot make Crown overwrite a file
/// elsewhere.
pub fn target_inside(root: &Path, path: &Path) -> std::io::Result<PathBuf> {
    let target = write_target(path)?;
    let root = std::fs::canonicalize(root)?;
    let resolved = resolve_existing(&target)?;
    if resolved.starts_with(&root) {
        Ok(target)
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it leads outside {}, to {}", root.display(), resolved.display()),
        ))
    }
}

/// `path` with its longest existing ancestor resolved (links followed) and the rest
/// appended as written; a `..` in the part that does not exist yet is refused.
fn resolve_existing(path: &Path) -> std::io::Result<PathBuf> {
    let abs = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir()?.join(path) };
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    loop {
        match std::fs::canonicalize(cur) {
            Ok(mut resolved) => {
                for part in rest.iter().rev() {
                    resolved.push(part);
                }
                return Ok(resolved);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let (Some(name), Some(parent)) = (cur.file_name(), cur.parent()) else {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "a path that cannot be resolved",
                    ));
                };
                rest.push(name.to_os_string());
                cur = parent;
            }
            Err(e) => return Err(e),
        }
    }
}

/// [`write_atomic`], refusing a target that leads outside `root` ([`target_inside`]).
pub fn write_atomic_in(root: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = target_inside(root, path)?;
    write_atomic(&target, bytes)
}

/// [`check_writable`], refusing a target that leads outside `root` ([`target_inside`]).
pub fn check_writable_in(root: &Path, path: &Path) -> std::io::Result<()> {
    let target = target_inside(root, path)?;
    check_writable(&target)
}

/// Check, before long work, that [`write_atomic`] can write `path`: what stands there
/// (through links) is a regular file or nothing, and a file can be made in its folder
/// (a probe file is made and removed). The error does not name the file; callers do.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let target = write_target(path)?;
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".crown-probe-{}", std::process::id()));
    std::fs::File::create_new(&probe)?;
    std::fs::remove_file(&probe)
}

/// Keep bytes that could not be written to `path`: beside it as `NAME.unsaved-PID`, or,
/// when that folder takes no file either, in the system's temporary folder. Returns
/// where they went, for the error message.
pub fn keep_unsaved(path: &Path, bytes: &[u8]) -> Option<PathBuf> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "crown".into());
    let spare = format!("{name}.unsaved-{}", std::process::id());
    let beside = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).join(&spare);
    [beside, std::env::temp_dir().join(&spare)].into_iter().find(|p| write_atomic(p, bytes).is_ok())
}
