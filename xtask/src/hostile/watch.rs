//! Watching files: a snapshot of every entry under a folder (kind and content digest)
//! and the changes between two snapshots.

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What stands at a path: its kind and content digest (links are not followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Entry {
    File { len: u64, digest: u64 },
    Dir,
    Link(PathBuf),
    Other(&'static str),
}

/// Every entry under `root`, by path (links not followed; FIFOs and devices not opened).
pub(super) fn snapshot(root: &Path, skip: &[PathBuf]) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    walk(root, skip, &mut out);
    out
}

fn walk(p: &Path, skip: &[PathBuf], out: &mut BTreeMap<PathBuf, Entry>) {
    if skip.iter().any(|s| s == p) {
        return;
    }
    let Ok(m) = std::fs::symlink_metadata(p) else { return };
    let ft = m.file_type();
    let entry = if ft.is_symlink() {
        Entry::Link(std::fs::read_link(p).unwrap_or_default())
    } else if ft.is_dir() {
        Entry::Dir
    } else if ft.is_file() {
        Entry::File { len: m.len(), digest: digest_file(p) }
    } else {
        use std::os::unix::fs::FileTypeExt;
        Entry::Other(if ft.is_fifo() {
            "fifo"
        } else if ft.is_socket() {
            "socket"
        } else {
            "device"
        })
    };
    let is_dir = entry == Entry::Dir;
    out.insert(p.to_path_buf(), entry);
    if is_dir {
        if let Ok(rd) = std::fs::read_dir(p) {
            let mut kids: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            kids.sort();
            for k in kids {
                walk(&k, skip, out);
            }
        }
    }
}

fn digest_file(p: &Path) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if let Ok(mut f) = std::fs::File::open(p) {
        let mut buf = vec![0u8; 1 << 16];
        while let Ok(n) = f.read(&mut buf) {
            if n == 0 {
                break;
            }
            h.write(&buf[..n]);
        }
    }
    h.finish()
}

/// The changes from `a` to `b`: each path, and what happened to it.
pub(super) fn diff(a: &BTreeMap<PathBuf, Entry>, b: &BTreeMap<PathBuf, Entry>) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for (p, e) in a {
        match b.get(p) {
            None => out.push((p.clone(), format!("deleted {}", p.display()))),
            Some(f) if f != e => out.push((p.clone(), format!("changed {} ({} -> {})", p.display(), kind(e), kind(f)))),
            _ => {}
        }
    }
    for p in b.keys().filter(|p| !a.contains_key(*p)) {
        out.push((p.clone(), format!("created {}", p.display())));
    }
    out
}

fn kind(e: &Entry) -> String {
    match e {
        Entry::File { len, .. } => format!("file of {len} bytes"),
        Entry::Dir => "folder".into(),
        Entry::Link(t) => format!("link to {}", t.display()),
        Entry::Other(k) => (*k).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_sees_changes() {
        let a: BTreeMap<PathBuf, Entry> =
            [("/a".into(), Entry::Dir), ("/a/x".into(), Entry::File { len: 1, digest: 1 })].into();
        let mut b = a.clone();
        b.insert("/a/x".into(), Entry::File { len: 1, digest: 2 });
        b.insert("/a/y".into(), Entry::Link("/etc".into()));
        let d: Vec<String> = diff(&a, &b).into_iter().map(|x| x.1).collect();
        assert_eq!(d, vec!["changed /a/x (file of 1 bytes -> file of 1 bytes)", "created /a/y"]);
    }
}
