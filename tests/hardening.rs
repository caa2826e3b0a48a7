//! Integration tests: hardening that the bad-input corpus (`invalid.rs`) cannot express:
//! raw HTTP requests to a running `crown serve`, and outputs and inputs that are devices
//! or FIFOs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::{copy_dir, crown_bin};

/// The corpus's tiny pack, copied into a temporary project.
fn tiny_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/invalid/_base/tiny");
    copy_dir(&base, dir.path()).unwrap();
    dir
}

struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let dir = tiny_project();
        let mut child = Command::new(crown_bin())
            .args(["--project", &dir.path().to_string_lossy(), "serve", "tiny", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        std::thread::spawn(move || for _ in out.lines() {});
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no address in `{line}`"));
        Server { child, port, _dir: dir }
    }

    /// Send raw bytes; return the status code of the answer (0 when the connection closed
    /// without one).
    fn status(&self, request: &[u8]) -> u16 {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let _ = s.write_all(request);
        let mut head = [0u8; 12];
        let mut got = 0;
        while got < head.len() {
            match s.read(&mut head[got..]) {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
        }
        std::str::from_utf8(&head[..got])
            .ok()
            .and_then(|h| h.strip_prefix("HTTP/1.1 "))
            .and_then(|h| h.get(..3))
            .and_then(|c| c.parse().ok())
            .unwrap_or(0)
    }

    fn get(&self, path: &str, host: &str) -> u16 {
        self.status(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Malformed requests get a 4xx answer (or a closed connection), never a panic, and the
/// server keeps answering.
#[test]
fn serve_refuses_hostile_requests_and_keeps_answering() {
    let mut s = Server::start();
    let me = format!("127.0.0.1:{}", s.port);
    assert_eq!(s.get("/", &me), 200);
    assert_eq!(s.get("/", &format!("localhost:{}", s.port)), 200);
    // The percent-escape that used to panic a worker, and its relatives.
    for bad in ["/face/%.svg", "/face/%e.svg", "/face/%zz.svg", "/face/%ff%fe.svg", "/face/tiny%2F%C3.svg"] {
        assert_eq!(s.get(bad, &me), 400, "{bad}");
    }
    assert_eq!(s.get("/face/no-such.svg", &me), 404);
    // DNS rebinding: a page elsewhere reaching 127.0.0.1 under its own name.
    for host in ["evil.example:80", &format!("evil.example:{}", s.port), "127.0.0.1", "127.0.0.1:1", ""] {
        assert_eq!(s.get("/", host), 421, "Host {host:?}");
    }
    assert_eq!(s.status(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n"), 421);
    // Methods, bodies, oversized heads.
    assert_eq!(s.status(format!("POST / HTTP/1.1\r\nHost: {me}\r\nConnection: close\r\n\r\n").as_bytes()), 405);
    assert_eq!(
        s.status(
            format!("GET / HTTP/1.1\r\nHost: {me}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello").as_bytes()
        ),
        413
    );
    let long = "a".repeat(20_000);
    assert_eq!(s.get(&format!("/{long}"), &me), 431);
    let huge = format!("GET / HTTP/1.1\r\nHost: {me}\r\nX: {}\r\n\r\n", "b".repeat(1_000_000));
    let st = s.status(huge.as_bytes());
    assert!(st == 431 || st == 0, "a 1 MB header: {st}");
    assert_eq!(s.status(b"\x00\xff garbage\r\n\r\n") / 100, 4);
    assert!(matches!(s.status(b"GET /\xff\xfe HTTP/1.1\r\n\r\n"), 0 | 400));
    // Still alive and answering.
    assert_eq!(s.get("/fragment", &me), 200);
    assert!(s.child.try_wait().unwrap().is_none(), "crown serve exited");
}

/// Event streams are capped: past 64 open at once a new one is refused with 503, and the
/// page itself is still served.
#[test]
fn serve_caps_open_event_streams() {
    let s = Server::start();
    let me = format!("127.0.0.1:{}", s.port);
    let request = format!("GET /events HTTP/1.1\r\nHost: {me}\r\n\r\n");
    let open = |_| {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        c.write_all(request.as_bytes()).unwrap();
        let mut head = [0u8; 12];
        c.read_exact(&mut head).unwrap();
        (c, String::from_utf8_lossy(&head).to_string())
    };
    let held: Vec<(TcpStream, String)> = (0..64).map(open).collect();
    assert!(
        held.iter().all(|(_, h)| h.starts_with("HTTP/1.1 200")),
        "{:?}",
        held.iter().map(|h| &h.1).collect::<Vec<_>>()
    );
    assert_eq!(s.get("/events", &me), 503);
    assert_eq!(s.get("/", &me), 200);
}

/// A campaign save reached through a symbolic link is written through it: the link stays
/// a link and the file it points to holds the new save.
#[test]
fn campaign_save_through_a_symlink_keeps_the_link() {
    let dir = tiny_project();
    let root = dir.path();
    let run = |args: &[&str]| {
        let o = Command::new(crown_bin()).arg("--project").arg(root).args(args).current_dir(root).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    run(&["campaign", "new", "tiny", "--save", "real/c.save.toml"]);
    std::os::unix::fs::symlink("real/c.save.toml", root.join("c.save.toml")).unwrap();
    let before = std::fs::read(root.join("real/c.save.toml")).unwrap();
    run(&["campaign", "play", "c.save.toml", "--agent", "first"]);
    let link = std::fs::symlink_metadata(root.join("c.save.toml")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced by a file");
    let after = std::fs::read(root.join("real/c.save.toml")).unwrap();
    assert_ne!(before, after, "the save the link points to was not written");
}

/// Bytes that cannot be written where asked are kept beside the target or in the
/// temporary folder, and the place is returned.
#[test]
fn an_unwritable_result_is_kept_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("save.toml");
    std::fs::create_dir(&folder).unwrap();
    assert!(crown_tools::out::write_atomic(&folder, b"x").is_err());
    assert!(crown_tools::out::check_writable(&folder).is_err());
    let kept = crown_tools::out::keep_unsaved(&folder, b"the round").unwrap();
    assert_eq!(std::fs::read(&kept).unwrap(), b"the round");
    assert!(folder.is_dir());
}
