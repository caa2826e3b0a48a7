//! Integration tests: serve. `crown serve` runs on a copy of Take the Kingdom and the
//! page is opened in a real headless Chromium, driven over the DevTools protocol. The
//! page is loaded once; edits to the card files must show up in it without a reload.
//!
//! Chromium is Debian's `chromium` package (installed by `.ci/run`). When it is missing
//! the test installs it the same way, and fails if it cannot: it is never skipped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use crown_tests::{copy_dir, fresh_crown_bin, repo_project};
use serde_json::{json, Value};

// ---- Chromium ----

fn find_chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser"] {
        for dir in ["/usr/bin", "/usr/local/bin", "/snap/bin"] {
            let p = Path::new(dir).join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Chromium, installed with apt-get when missing (as root, or through `sudo -n`).
fn chromium() -> PathBuf {
    if let Some(p) = find_chromium() {
        return p;
    }
    let root = Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let prefix: Vec<&str> = if root.unwrap_or(false) { vec![] } else { vec!["sudo", "-n"] };
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = prefix.clone();
        all.extend_from_slice(args);
        Command::new(all[0])
            .args(&all[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if !run(&["apt-get", "install", "-y", "-qq", "chromium"]) {
        run(&["apt-get", "update", "-qq"]);
        run(&["apt-get", "install", "-y", "-qq", "chromium"]);
    }
    find_chromium().expect(
        "headless Chromium is needed for this test and could not be installed: \
         run `apt-get install -y chromium` as root (`.ci/run` does)",
    )
}

/// A headless Chromium with its DevTools endpoint.
struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    port: u16,
}

impl Browser {
    fn start() -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium");
        let err = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let end = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(l) => {
                    if let Some(rest) = l.split("ws://127.0.0.1:").nth(1) {
                        let port = rest.split('/').next().unwrap().parse().unwrap();
                        // Keep draining Chromium's stderr so it never blocks.
                        std::thread::spawn(move || for _ in rx {});
                        return Browser { child, _profile: profile, port };
                    }
                    seen.push(l);
                }
                Err(_) => break,
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("chromium did not open its DevTools port:\n{}", seen.join("\n"));
    }

    /// A DevTools session on the first page target.
    fn page(&self) -> Cdp {
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let list = http_get(self.port, "/json/list").unwrap_or_default();
            let targets: Value = serde_json::from_str(&list).unwrap_or(Value::Null);
            if let Some(ws) = targets
                .as_array()
                .and_then(|a| a.iter().find(|t| t["type"] == "page"))
                .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            {
                return Cdp::connect(ws);
            }
            assert!(Instant::now() < end, "no page target in {list}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_get(port: u16, path: &str) -> std::io::Result<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")?;
    // Chromium keeps the connection open: read the headers, then Content-Length bytes.
    let mut r = BufReader::new(s);
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

// ---- A minimal DevTools client: WebSocket text frames carrying JSON ----

struct Cdp {
    stream: TcpStream,
    next_id: u64,
}

impl Cdp {
    fn connect(url: &str) -> Cdp {
        let rest = url.strip_prefix("ws://").expect("ws url");
        let (host, path) = rest.split_once('/').unwrap();
        let mut stream = TcpStream::connect(host).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            stream,
            "GET /{path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        // The handshake answer ends with an empty line.
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut b).unwrap();
            head.push(b[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "websocket handshake refused: {head}");
        Cdp { stream, next_id: 1 }
    }

    fn send_frame(&mut self, payload: &[u8]) {
        let mut f = vec![0x81u8];
        let mask = [0x1fu8, 0x2e, 0x3d, 0x4c];
        match payload.len() {
            n if n < 126 => f.push(0x80 | n as u8),
            n if n < 65536 => {
                f.push(0x80 | 126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                f.push(0x80 | 127);
                f.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&f).unwrap();
    }

    /// The next complete text message.
    fn read_message(&mut self) -> String {
        let mut msg = Vec::new();
        loop {
            let mut h = [0u8; 2];
            self.stream.read_exact(&mut h).unwrap();
            let fin = h[0] & 0x80 != 0;
            let opcode = h[0] & 0x0f;
            let mut len = u64::from(h[1] & 0x7f);
            if len == 126 {
                let mut b = [0u8; 2];
                self.stream.read_exact(&mut b).unwrap();
                len = u64::from(u16::from_be_bytes(b));
            } else if len == 127 {
                let mut b = [0u8; 8];
                self.stream.read_exact(&mut b).unwrap();
                len = u64::from_be_bytes(b);
            }
            let mut data = vec![0u8; len as usize];
            self.stream.read_exact(&mut data).unwrap();
            match opcode {
                0x8 => panic!("DevTools closed the connection"),
                0x9 | 0xA => continue,
                _ => msg.extend(data),
            }
            if fin {
                return String::from_utf8_lossy(&msg).into_owned();
            }
        }
    }

    /// Send a command and wait for its answer (events in between are skipped).
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let text = json!({ "id": id, "method": method, "params": params }).to_string();
        self.send_frame(text.as_bytes());
        loop {
            let v: Value = serde_json::from_str(&self.read_message()).unwrap();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// Evaluate JavaScript in the page; the value.
    fn eval(&mut self, expr: &str) -> Value {
        let r =
            self.call("Runtime.evaluate", json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }));
        r["result"]["value"].clone()
    }

    /// Wait until `expr` is true in the page.
    fn wait_for(&mut self, expr: &str, within: Duration) {
        let end = Instant::now() + within;
        while Instant::now() < end {
            if self.eval(expr) == Value::Bool(true) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let body = self.eval("document.body ? document.body.innerText : ''");
        panic!("`{expr}` did not become true within {within:?}; the page shows:\n{}", body.as_str().unwrap_or(""));
    }
}

// ---- crown serve ----

/// `crown serve` on a copy of Take the Kingdom; the URL it serves.
struct Server {
    child: Child,
    _dir: tempfile::TempDir,
    root: PathBuf,
    url: String,
    _out: Receiver<String>,
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = repo_project();
        for sub in ["content/take-the-kingdom", "scripts/take-the-kingdom"] {
            copy_dir(&repo.root.join(sub), &root.join(sub)).unwrap();
        }
        let mut child = Command::new(fresh_crown_bin())
            .args(["--project", &root.to_string_lossy(), "serve", "take-the-kingdom", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let line = rx.recv_timeout(Duration::from_secs(20)).expect("crown serve printed nothing");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in `{line}`"))
            .to_string();
        Server { child, _dir: dir, root, url, _out: rx }
    }

    fn card_file(&self) -> PathBuf {
        self.root.join("content/take-the-kingdom/cards/attack.toml")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const LOAD: Duration = Duration::from_secs(20);
const LIVE: Duration = Duration::from_secs(10);

fn open(browser: &Browser, server: &Server) -> Cdp {
    let mut page = browser.page();
    page.call("Page.enable", json!({}));
    page.call("Page.navigate", json!({ "url": server.url }));
    page.wait_for("document.body !== null && document.body.innerText.includes('Pikemen')", LOAD);
    // Wait for the live connection, so the edits below happen after it.
    page.wait_for("document.getElementById('live').textContent.startsWith('live')", LOAD);
    assert_eq!(page.eval("window.crownLoads"), json!(1));
    page
}

#[test]
fn an_edited_card_shows_its_new_text_without_reloading_the_page() {
    let server = Server::start();
    let browser = Browser::start();
    let mut page = open(&browser, &server);
    let before_src = page.eval("document.querySelector('#card-pikemen img').getAttribute('src')");
    let text = std::fs::read_to_string(server.card_file()).unwrap();
    let old = "text = \"Deal 1 damage to a castle or land of a rival, topmost defence first.\"";
    assert!(text.contains(old));
    let edited = text.replacen(old, "text = \"Strike a rival's weakest wall at dawn.\"", 1).replacen(
        "name = \"Pikemen\"",
        "name = \"Halberdiers\"",
        1,
    );
    std::fs::write(server.card_file(), edited).unwrap();
    page.wait_for(
        "document.querySelector('#card-pikemen').innerText.includes(\"Strike a rival's weakest wall at dawn.\")",
        LIVE,
    );
    page.wait_for("document.querySelector('#card-pikemen .name').textContent === 'Halberdiers'", LIVE);
    // Updated in place: the page was not loaded again, the live script applied the update.
    assert_eq!(page.eval("window.crownLoads"), json!(1));
    assert!(page.eval("window.crownUpdates").as_u64().unwrap() >= 1);
    // The card face was rendered again: a new image address, and the image shows.
    let after_src = page.eval("document.querySelector('#card-pikemen img').getAttribute('src')");
    assert_ne!(before_src, after_src);
    page.wait_for(
        "(() => { const i = document.querySelector('#card-pikemen img'); return i.complete && i.naturalWidth > 0; })()",
        LIVE,
    );
    let svg = page.eval(&format!("fetch({after_src}).then(r => r.text())"));
    assert!(svg.as_str().unwrap().contains("<svg"), "{svg}");
    // Other cards kept their face.
    assert!(page.eval("document.querySelector('#card-soldiers').innerText.includes('Soldiers')") == json!(true));
}

#[test]
fn a_broken_edit_shows_its_diagnostic_and_the_fix_clears_it() {
    let server = Server::start();
    let browser = Browser::start();
    let mut page = open(&browser, &server);
    page.wait_for("document.getElementById('status').innerText.includes('no errors')", LIVE);
    let text = std::fs::read_to_string(server.card_file()).unwrap();
    let good = "values = { attack = 1, solo = 5 }";
    let line = text[..text.find(good).unwrap()].lines().count() + 1;
    std::fs::write(server.card_file(), text.replacen(good, "values = { attack = = 1, solo = 5 }", 1)).unwrap();
    let at = format!("content/take-the-kingdom/cards/attack.toml:{line}:");
    page.wait_for(&format!("document.getElementById('status').innerText.includes('{at}')"), LIVE);
    let status = page.eval("document.getElementById('status').innerText");
    let status = status.as_str().unwrap();
    assert!(status.contains("error[toml-syntax]"), "{status}");
    assert!(status.contains("showing the last good load"), "{status}");
    // The last good cards are still shown.
    assert_eq!(page.eval("document.querySelector('#card-pikemen .name').textContent"), json!("Pikemen"));
    assert_eq!(page.eval("window.crownLoads"), json!(1));
    // Fixed: the diagnostic goes.
    std::fs::write(server.card_file(), text.replacen(good, "values = { attack = 2, solo = 5 }", 1)).unwrap();
    page.wait_for("document.getElementById('status').innerText.includes('no errors')", LIVE);
    assert_eq!(page.eval(&format!("document.body.innerText.includes('{at}')")), json!(false));
    assert_eq!(page.eval("window.crownLoads"), json!(1));
}
