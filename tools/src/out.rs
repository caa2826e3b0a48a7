//! Printing helpers shared by the commands: diagnostics, colour, atomic writes.

use std::io::{IsTerminal, Write};
use std::path::Path;

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

pub use crown_print::files::{
    check_writable, check_writable_in, keep_unsaved, target_inside, write_atomic, write_atomic_in, write_target,
};
pub use crown_print::html_escape;

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
