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

/// Write a file atomically: a temporary file beside it, then a rename. An interrupted
/// write leaves the old file as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.crown-tmp-{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
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
