//! Printing helpers shared by the commands: diagnostics, colour, atomic writes.

use std::io::{IsTerminal, Write};
use std::path::Path;
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

/// Write a file atomically: a temporary file beside it, then a rename. An interrupted
/// write leaves the old file as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
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

/// Write a new file; never overwrite an existing one.
pub fn write_new(path: &Path, text: &str) -> std::io::Result<bool> {
    if path.exists() {
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
