//! Printing helpers shared by the commands: diagnostics, colour, atomic writes.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crown_engine::diag::{self, Diagnostic, SourceMap};

/// Whether standard error is a terminal that takes colour.
pub fn color_stderr() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Print diagnostics for a person on standard error.
pub fn print_diagnostics(diags: &[Diagnostic], sources: &SourceMap) {
    if diags.is_empty() {
        return;
    }
    let text = diag::render(diags, sources, color_stderr());
    let _ = std::io::stderr().write_all(text.as_bytes());
}

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

/// Write a new file; never overwrite an existing one.
pub fn write_new(path: &Path, text: &str) -> std::io::Result<bool> {
    if path.exists() || path.symlink_metadata().is_ok() {
        return Ok(false);
    }
    write_atomic(path, text.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads writing the same target never share a temporary file: every write succeeds,
    /// the file holds one whole write, and no temporary file is left.
    #[test]
    fn threads_writing_one_target() {
        let dir = std::env::temp_dir().join(format!("crown-out-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("same.txt");
        let contents: Vec<Vec<u8>> = (0..8u8).map(|i| vec![b'a' + i; 200_000]).collect();
        std::thread::scope(|s| {
            for c in &contents {
                let target = &target;
                s.spawn(move || {
                    for _ in 0..5 {
                        write_atomic(target, c).unwrap();
                    }
                });
            }
        });
        let end = std::fs::read(&target).unwrap();
        assert!(contents.contains(&end));
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("crown-tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
