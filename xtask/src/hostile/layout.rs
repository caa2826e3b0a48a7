//! Laying out a case: a fresh temporary folder with the project, bait files beside it, a
//! home and a temporary folder, filled as the case's recipe says.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::case::{bytes_of, Case};

/// The folders of one run: `project`, `outside` (bait beside the project), `home`, `tmp`.
pub(super) struct Layout {
    pub(super) root: PathBuf,
    pub(super) project: PathBuf,
    pub(super) outside: PathBuf,
    pub(super) home: PathBuf,
    pub(super) tmp: PathBuf,
}

impl Layout {
    pub(super) fn vars(&self) -> impl Fn(&str) -> String + '_ {
        move |s: &str| {
            s.replace("{project}", &self.project.to_string_lossy())
                .replace("{outside}", &self.outside.to_string_lossy())
                .replace("{tmp}", &self.tmp.to_string_lossy())
                .replace("{home}", &self.home.to_string_lossy())
        }
    }

    /// A path of the recipe: `{outside}/x`, `{tmp}/x`, an absolute path, or one in the project.
    pub(super) fn path(&self, p: &str) -> PathBuf {
        let p = (self.vars())(p);
        let p = Path::new(&p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.project.join(p)
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let t = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &t)?;
        } else {
            std::fs::copy(e.path(), &t)?;
        }
    }
    Ok(())
}

/// Bait beside the project: what a link out of it would reach.
const BAIT: &[(&str, &str)] = &[
    ("secret.toml", "[[card]]\nid = \"secret\"\nname = \"Secret\"\n"),
    ("bashrc", "# a file a hostile pack would like to overwrite\nexport PATH=/usr/bin\n"),
    ("secret.transcript", "the outside transcript: must never be replaced\n"),
    ("notes/readme.txt", "a folder outside the project\n"),
];

pub(super) fn lay_out(repo: &Path, bin: &Path, case: &Case, l: &Layout) -> Result<(), String> {
    for d in [&l.project, &l.outside, &l.home, &l.tmp] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    for (p, text) in BAIT {
        let path = l.outside.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
    }
    if let Some(b) = &case.base {
        let from = repo.join("tests/invalid/_base").join(b);
        copy_dir(&from, &l.project).map_err(|e| format!("base {b}: {e}"))?;
    }
    for p in &case.packs {
        let mut parts = vec!["content", "scripts"];
        if case.golden {
            parts.push("tests/golden");
        }
        for part in parts {
            let from = repo.join(part).join(p);
            if from.is_dir() {
                copy_dir(&from, &l.project.join(part).join(p)).map_err(|e| format!("pack {p}: {e}"))?;
            }
        }
    }
    // The case's own files, laid over the base.
    for e in std::fs::read_dir(&case.dir).map_err(|e| e.to_string())?.flatten() {
        let name = e.file_name();
        if name == "case.toml" {
            continue;
        }
        let to = l.project.join(&name);
        if e.path().is_dir() {
            copy_dir(&e.path(), &to).map_err(|e| e.to_string())?;
        } else {
            std::fs::copy(e.path(), &to).map_err(|e| e.to_string())?;
        }
    }
    if case.git {
        for args in [&["init", "-q"][..], &["add", "-A"], &["commit", "-q", "-m", "the case's project"]] {
            let o = Command::new("git")
                .args(args)
                .current_dir(&l.project)
                .env("HOME", &l.home)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_AUTHOR_NAME", "case")
                .env("GIT_AUTHOR_EMAIL", "case@example.com")
                .env("GIT_COMMITTER_NAME", "case")
                .env("GIT_COMMITTER_EMAIL", "case@example.com")
                .stdin(Stdio::null())
                .output()
                .map_err(|e| format!("git {args:?}: {e}"))?;
            if !o.status.success() {
                return Err(format!("git {args:?} failed: {}", String::from_utf8_lossy(&o.stderr).trim_end()));
            }
        }
    }
    for cmd in &case.setup {
        let args: Vec<String> = cmd.iter().map(|a| (l.vars())(a)).collect();
        let o = Command::new(bin)
            .arg("--project")
            .arg(&l.project)
            .args(&args)
            .current_dir(&l.project)
            .env("HOME", &l.home)
            .env("TMPDIR", &l.tmp)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("setup {args:?}: {e}"))?;
        if !o.status.success() {
            return Err(format!("setup {args:?} failed: {}", String::from_utf8_lossy(&o.stderr).trim_end()));
        }
    }
    for e in &case.edit {
        let path = l.path(&e.path);
        let text = std::fs::read_to_string(&path).map_err(|err| format!("edit {}: {err}", e.path))?;
        match text.matches(&e.find).count() {
            1 => {
                std::fs::write(&path, text.replacen(&e.find, &(l.vars())(&e.replace), 1)).map_err(|e| e.to_string())?
            }
            n => return Err(format!("edit {}: `{}` occurs {n} times; it must occur once", e.path, e.find)),
        }
    }
    for d in &case.delete {
        let p = l.path(d);
        let r = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        r.map_err(|e| format!("delete {d}: {e}"))?;
    }
    for g in &case.generate {
        for i in 0..g.copies.unwrap_or(1) {
            let numbered = |s: &str| {
                let s = (l.vars())(s);
                if g.copies.is_some() {
                    s.replace("{i}", &i.to_string())
                } else {
                    s
                }
            };
            let path = l.path(&numbered(&g.path));
            std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::write(&path, bytes_of(&g.parts, &numbered)).map_err(|e| format!("{}: {e}", g.path))?;
        }
    }
    for g in &case.png {
        let path = l.path(&g.path);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        write_png_bomb(&path, g.width, g.height).map_err(|e| format!("{}: {e}", g.path))?;
    }
    for z in &case.zip {
        let path = l.path(&z.path);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        write_zip(&path, z, &l.vars()).map_err(|e| format!("{}: {e}", z.path))?;
    }
    for s in &case.symlink {
        let path = l.path(&s.path);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&path);
        std::os::unix::fs::symlink((l.vars())(&s.target), &path).map_err(|e| format!("symlink {}: {e}", s.path))?;
    }
    for f in &case.fifo {
        let path = l.path(f);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&path);
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o644))
            .map_err(|e| format!("mkfifo {f}: {e}"))?;
    }
    for d in &case.mkdir {
        std::fs::create_dir_all(l.path(d)).map_err(|e| format!("mkdir {d}: {e}"))?;
    }
    Ok(())
}

/// A 1-bit grey PNG of zeros: tiny on disk, `width * height * 4` bytes once decoded to
/// RGBA.
fn write_png_bomb(path: &Path, width: u32, height: u32) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::One);
    enc.set_compression(png::Compression::High);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    let mut s = w.stream_writer().map_err(|e| e.to_string())?;
    let row = vec![0u8; (width as usize).div_ceil(8)];
    for _ in 0..height {
        s.write_all(&row).map_err(|e| e.to_string())?;
    }
    s.finish().map_err(|e| e.to_string())
}

/// A zip archive of the case's parts, each written piece by piece (a part of a gigabyte
/// of zeros costs no memory), deflated unless `stored`.
fn write_zip(path: &Path, z: &super::case::Zip, vars: &dyn Fn(&str) -> String) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut w = zip::ZipWriter::new(std::io::BufWriter::new(file));
    for part in &z.parts {
        let method = if part.stored { zip::CompressionMethod::Stored } else { zip::CompressionMethod::Deflated };
        let opts = zip::write::SimpleFileOptions::default().compression_method(method).large_file(true);
        w.start_file(vars(&part.name), opts).map_err(|e| e.to_string())?;
        for p in &part.parts {
            let text = vars(&p.text);
            for n in 0..p.repeat {
                if text.contains("{n}") {
                    w.write_all(text.replace("{n}", &n.to_string()).as_bytes()).map_err(|e| e.to_string())?;
                } else {
                    w.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
                }
                w.write_all(&p.hex).map_err(|e| e.to_string())?;
            }
        }
    }
    w.finish().map_err(|e| e.to_string())?;
    Ok(())
}

/// A fresh folder for one case in the system's temporary folder.
pub(super) fn tempfile_dir(name: &str) -> Result<PathBuf, String> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("crown-hostile-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.canonicalize().unwrap_or(dir))
}
