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

/// The longest line a person's answer may be (a menu choice, a command, y/n). A longer
/// line (or input that never ends a line, such as `/dev/zero`) is refused rather than
/// held in memory.
pub const MAX_INPUT_LINE: usize = 4096;

/// Read one line of a person's input, without its line end. `Ok(None)` at the end of
/// input; an error for a line longer than [`MAX_INPUT_LINE`] bytes (the rest of it is
/// not read) or one that is not UTF-8.
pub fn read_input_line(input: &mut impl std::io::BufRead) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    let mut limited = std::io::Read::take(&mut *input, MAX_INPUT_LINE as u64 + 1);
    let n = std::io::BufRead::read_until(&mut limited, b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if line.len() > MAX_INPUT_LINE && line.last() != Some(&b'\n') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("an input line longer than {MAX_INPUT_LINE} bytes"),
        ));
    }
    let text = String::from_utf8(line)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "input that is not UTF-8 text"))?;
    Ok(Some(text.trim_end_matches(['\n', '\r']).to_string()))
}

/// A name or path from the command line or a file, shown in a message: control
/// characters (escape sequences, a bell, line breaks) are written as escapes, so echoing
/// hostile text cannot drive the terminal.
pub fn shown(s: &str) -> String {
    if s.chars().any(char::is_control) {
        s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
    } else {
        s.to_string()
    }
}

/// Write a new file inside `root` ([`write_atomic_in`]); never overwrite an existing one.
pub fn write_new(root: &Path, path: &Path, text: &str) -> std::io::Result<bool> {
    if path.exists() || path.symlink_metadata().is_ok() {
        return Ok(false);
    }
    write_atomic_in(root, path, text.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Derived files stay inside their folder: a link, or a linked folder on the way, that
    /// leads out is refused and nothing is written; links inside are followed.
    #[cfg(unix)]
    #[test]
    fn writes_inside_a_folder_stay_inside() {
        let dir = std::env::temp_dir().join(format!("crown-out-inside-{}", std::process::id()));
        let (root, outside) = (dir.join("project"), dir.join("outside"));
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("bashrc"), "keep").unwrap();
        std::os::unix::fs::symlink(outside.join("bashrc"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("away")).unwrap();
        std::os::unix::fs::symlink("real", root.join("here")).unwrap();
        let e = write_atomic_in(&root, &root.join("link.txt"), b"x").unwrap_err();
        assert!(e.to_string().contains("leads outside"), "{e}");
        assert!(write_atomic_in(&root, &root.join("away/new/file.txt"), b"x").is_err());
        assert!(check_writable_in(&root, &root.join("away/probe.txt")).is_err());
        assert!(write_atomic_in(&root, &root.join("x/../../outside/y.txt"), b"x").is_err());
        assert_eq!(std::fs::read_to_string(outside.join("bashrc")).unwrap(), "keep");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1, "nothing made outside");
        write_atomic_in(&root, &root.join("here/a/b.txt"), b"in").unwrap();
        assert_eq!(std::fs::read_to_string(root.join("real/a/b.txt")).unwrap(), "in");
        assert!(write_new(&root, &root.join("new.txt"), "n").unwrap());
        assert!(!write_new(&root, &root.join("new.txt"), "again").unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn input_lines_are_bounded() {
        let mut r = std::io::BufReader::new(&b"1\r\nyes\n\xff\n"[..]);
        assert_eq!(read_input_line(&mut r).unwrap().as_deref(), Some("1"));
        assert_eq!(read_input_line(&mut r).unwrap().as_deref(), Some("yes"));
        assert!(read_input_line(&mut r).is_err(), "not UTF-8");
        assert_eq!(read_input_line(&mut r).unwrap(), None);
        // An endless line is refused after the limit, never read whole.
        let mut zero = std::io::BufReader::new(std::io::repeat(0));
        let e = read_input_line(&mut zero).unwrap_err();
        assert!(e.to_string().contains("longer than 4096 bytes"), "{e}");
        let exact = format!("{}\n", "a".repeat(MAX_INPUT_LINE));
        let mut r = std::io::BufReader::new(exact.as_bytes());
        assert_eq!(read_input_line(&mut r).unwrap().map(|l| l.len()), Some(MAX_INPUT_LINE));
        assert_eq!(shown("evil\n\u{1b}]0;x\u{7}"), "evil\\n\\u{1b}]0;x\\u{7}");
        assert_eq!(shown("tіny"), "tіny");
    }

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

/// Text made safe inside HTML (tera's own escaping, so templates and pages built in Rust
/// escape alike).
pub fn html_escape(s: &str) -> String {
    tera::escape_html(s)
}

/// How a command fails: its exit code (1: errors found or a step failed; 2: a usage
/// error) and what went wrong, unless that was already printed (diagnostics, a test
/// report). Commands return it; [`exit_code`] is the one place it is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: i32,
    pub message: Option<String>,
}

impl Failure {
    /// A failure with exit code `code`, printed as `error: MESSAGE`.
    pub fn new(code: i32, message: impl Into<String>) -> Failure {
        Failure { code, message: Some(message.into()) }
    }

    /// A step failed or errors were found (exit code 1).
    pub fn error(message: impl Into<String>) -> Failure {
        Failure::new(1, message)
    }

    /// The command was asked for something it cannot do (exit code 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(2, message)
    }

    /// A failure whose reasons were already printed.
    pub fn told(code: i32) -> Failure {
        Failure { code, message: None }
    }
}

impl From<i32> for Failure {
    fn from(code: i32) -> Failure {
        Failure::told(code)
    }
}

/// What a command returns.
pub type Done = Result<(), Failure>;

/// `Ok` for exit code 0, else a failure already told.
pub fn exit(code: i32) -> Done {
    if code == 0 {
        Ok(())
    } else {
        Err(Failure::told(code))
    }
}

/// `Err` (exit code 1, reasons already printed) when `failed`.
pub fn fail_if(failed: bool) -> Done {
    exit(i32::from(failed))
}

/// Print a command's failure (`error: MESSAGE` on standard error) and give the exit code.
pub fn exit_code(done: Done) -> i32 {
    match done {
        Ok(()) => 0,
        Err(f) => {
            if let Some(m) = &f.message {
                eprintln!("error: {m}");
            }
            // A failure always exits non-zero, even one built with code 0 by mistake.
            if f.code == 0 {
                1
            } else {
                f.code
            }
        }
    }
}
