//! Integration tests: serve. `crown serve` runs on a copy of Take the Kingdom and the
//! page is opened in a real headless Chromium, driven over the DevTools protocol (JSON
//! messages over a WebSocket, through the `tungstenite` crate). The page is loaded once;
//! edits to the card files must show up in it without a reload.
//!
//! Chromium comes from `CROWN_CHROMIUM` or `PATH` ([`chromium`]); `cargo xtask test`
//! installs it when missing. Without it these tests fail with one message saying what to
//! install: they are never skipped.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use crate::common::{chromium, copy_dir, crown_bin, load_pack, repo_project};
use crown_engine::game::record::GameFile;
use serde_json::{json, Value};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

// ---- Chromium ----

/// A headless Chromium with its DevTools endpoint.
pub(crate) struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    /// `127.0.0.1:PORT`, where DevTools listens.
    host: String,
    /// The browser-wide DevTools WebSocket address.
    url: String,
}

impl Browser {
    pub(crate) fn start() -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                // Screenshots in the colours the page asks for (see `screen_shows_the_state`).
                "--force-color-profile=srgb",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {}: {e}", chromium().display()));
        let err = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        // Chromium announces "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID".
        let end = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(l) => {
                    if let Some(at) = l.find("ws://127.0.0.1:") {
                        let url = l[at..].trim().to_string();
                        let host = url["ws://".len()..].split('/').next().unwrap().to_string();
                        // Keep draining Chromium's stderr so it never blocks.
                        std::thread::spawn(move || for _ in rx {});
                        return Browser { child, _profile: profile, host, url };
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

    /// A DevTools session on the first page.
    pub(crate) fn page(&self) -> Cdp {
        let mut browser = Cdp::connect(&self.url);
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let targets = browser.call("Target.getTargets", json!({}));
            if let Some(id) = targets["targetInfos"]
                .as_array()
                .and_then(|a| a.iter().find(|t| t["type"] == "page"))
                .and_then(|t| t["targetId"].as_str())
            {
                return Cdp::connect(&format!("ws://{}/devtools/page/{id}", self.host));
            }
            assert!(Instant::now() < end, "no page target in {targets}");
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

// ---- DevTools: JSON commands and answers over a WebSocket ----

pub(crate) struct Cdp {
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Events that arrived while waiting for answers (`Runtime.consoleAPICalled`...).
    pub(crate) events: Vec<Value>,
}

impl Cdp {
    fn connect(url: &str) -> Cdp {
        let (ws, _) = tungstenite::connect(url).unwrap_or_else(|e| panic!("DevTools connection to {url}: {e}"));
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        }
        Cdp { ws, next_id: 1, events: Vec::new() }
    }

    /// Send a command and wait for its answer (events in between are skipped).
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let text = json!({ "id": id, "method": method, "params": params }).to_string();
        self.ws.send(Message::text(text)).unwrap_or_else(|e| panic!("{method}: {e}"));
        loop {
            let msg = self.ws.read().unwrap_or_else(|e| panic!("{method}: no answer from DevTools: {e}"));
            let v: Value = match msg {
                Message::Text(t) => serde_json::from_str(t.as_str()).unwrap(),
                Message::Close(_) => panic!("{method}: DevTools closed the connection"),
                _ => continue,
            };
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    /// Evaluate JavaScript in the page; the value.
    pub(crate) fn eval(&mut self, expr: &str) -> Value {
        let r =
            self.call("Runtime.evaluate", json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }));
        r["result"]["value"].clone()
    }

    /// Wait until `expr` is true in the page.
    pub(crate) fn wait_for(&mut self, expr: &str, within: Duration) {
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
    /// `crown serve` on a copy of Take the Kingdom.
    fn start() -> Server {
        Server::of_pack("take-the-kingdom")
    }

    /// `crown serve` on a copy of a shipped pack.
    fn of_pack(pack: &str) -> Server {
        Server::of_pack_with(pack, &[])
    }

    /// `crown serve` on a copy of a shipped pack with more files (paths from the project's
    /// root: a scenario of the test's own).
    fn of_pack_with(pack: &str, files: &[(&str, &str)]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = repo_project();
        for sub in ["content", "scripts"] {
            copy_dir(&repo.root.join(sub).join(pack), &root.join(sub).join(pack)).unwrap();
        }
        for (rel, text) in files {
            std::fs::write(root.join(rel), text).unwrap();
        }
        Server::serve(dir, root, pack)
    }

    /// `crown serve` on a pack of the given files (paths from the project's root).
    fn start_with(pack: &str, files: &[(&str, &str)]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (rel, text) in files {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        Server::serve(dir, root, pack)
    }

    fn serve(dir: tempfile::TempDir, root: PathBuf, pack: &str) -> Server {
        let mut child = Command::new(crown_bin())
            .args(["--project", &root.to_string_lossy(), "serve", pack, "--port", "0"])
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

// ---- a game in the page ----

/// The server's /play page, once its New-game form lists the packs.
fn open_play(browser: &Browser, server: &Server) -> Cdp {
    let mut page = browser.page();
    page.call("Page.enable", json!({}));
    page.call("Page.navigate", json!({ "url": format!("{}play", server.url) }));
    page.wait_for(
        "document.getElementById('pack') !== null && document.getElementById('pack').options.length > 0",
        LOAD,
    );
    page
}

/// Click what `click` finds (JavaScript returning the element) and wait for the page to
/// show the server's answer.
fn click(page: &mut Cdp, click: &str) {
    let before = page.eval("window.crownPlayUpdates").as_u64().unwrap_or(0);
    let clicked =
        page.eval(&format!("(() => {{ const e = {click}; if (!e) return false; e.click(); return true; }})()"));
    assert_eq!(clicked, json!(true), "nothing to click: {click}");
    page.wait_for(&format!("window.crownPlayUpdates > {before}"), LOAD);
}

/// A game against a bot in `crown serve`'s page, driven to its end in Chromium: the
/// options as buttons, the narrated log, a confirmation asked for, undo, a look back at an
/// earlier decision, the rules reloaded mid-game with the game kept, and the game saved as
/// a golden game that `crown test` then passes.
#[test]
fn a_game_against_a_bot_is_played_to_its_end_in_the_page() {
    let server = Server::start();
    let browser = Browser::start();
    let mut page = open_play(&browser, &server);
    page.eval("document.getElementById('seed').value = '3'; document.getElementById('agents').value = 'human,random'");
    click(&mut page, "document.getElementById('start')");
    page.wait_for("document.querySelectorAll('#options button.option').length > 1", LOAD);
    assert!(page.eval("document.getElementById('prompt').textContent").as_str().unwrap().contains("Choose your noble"));
    // Each noble is offered with its ability beneath, and its whole text on the option.
    let about = page.eval("document.querySelector('#options button.option span.about').textContent");
    assert_eq!(about, json!("Begins the game holding Dawn Raid."));
    let title = page.eval("document.querySelector('#options button.option').title");
    assert!(title.as_str().unwrap().contains("Anne, Viscountess of Narbonne (noble)"), "{title}");
    // Loaded afresh, the page shows the game on the table, and its New-game form holds
    // that game's settings (not the defaults, seed 1).
    page.call("Page.navigate", json!({ "url": format!("{}play", server.url) }));
    page.wait_for("typeof view !== 'undefined' && view !== null && view.options.length > 1", LOAD);
    assert_eq!(page.eval("document.getElementById('seed').value"), json!("3"));
    assert_eq!(page.eval("document.getElementById('pack').value"), json!("take-the-kingdom"));
    // The first noble: Anne.
    click(&mut page, "document.querySelector('#options button.option')");
    page.wait_for("document.getElementById('status').textContent.includes('Anne, Viscountess of Narbonne')", LOAD);

    // Zones are named in words, and a card face opens large.
    let labels = page.eval("[...document.querySelectorAll('#zones h3')].map(h => h.textContent).join('|')");
    assert!(labels.as_str().unwrap().contains("your hand"), "{labels}");
    assert!(!labels.as_str().unwrap().contains('@'), "{labels}");
    page.eval("document.querySelector('#zones .card img').click()");
    assert_eq!(page.eval("document.getElementById('enlarged') !== null"), json!(true));
    page.eval("document.getElementById('enlarged').click()");
    assert_eq!(page.eval("document.getElementById('enlarged') === null"), json!(true));

    // A few decisions, then undo one.
    for _ in 0..3 {
        click(&mut page, "document.querySelector('#options button.option')");
    }
    let step = page.eval("view.step").as_u64().unwrap();
    assert_eq!(step, 4);
    click(&mut page, "document.getElementById('undo')");
    assert_eq!(page.eval("view.step").as_u64().unwrap(), 3);
    assert_eq!(page.eval("view.total").as_u64().unwrap(), 3);
    click(&mut page, "document.querySelector('#options button.option')");

    // A look back at an earlier decision: its options shown but not to be taken, then now.
    click(&mut page, "document.getElementById('back')");
    assert_eq!(page.eval("view.step").as_u64().unwrap(), 3);
    assert_eq!(page.eval("document.getElementById('past').hidden"), json!(false));
    assert_eq!(page.eval("document.querySelector('#options button.option').disabled"), json!(true));
    // The log names what the person chose at each decision, not only its number.
    let first = page.eval("document.querySelector('#log li.decision[data-step=\"1\"]').textContent");
    let chosen = page.eval("view.chosen[0]");
    assert_eq!(first.as_str().unwrap(), format!("▸ decision 1: {}", chosen.as_str().unwrap()));
    click(&mut page, "document.querySelector('#log li.decision[data-step=\"1\"]')");
    assert_eq!(page.eval("view.step").as_u64().unwrap(), 1);
    click(&mut page, "document.getElementById('now')");
    assert_eq!(page.eval("view.step").as_u64().unwrap(), 4);

    // The rules reloaded mid-game: the game keeps its decisions and shows the new name.
    let nobles = server.root.join("content/take-the-kingdom/nobles.toml");
    let text = std::fs::read_to_string(&nobles).unwrap();
    std::fs::write(&nobles, text.replacen("Anne, Viscountess of Narbonne", "Anne, Countess of the Marches", 1))
        .unwrap();
    page.wait_for("document.getElementById('status').textContent.includes('Anne, Countess of the Marches')", LIVE);
    assert_eq!(page.eval("view.step").as_u64().unwrap(), 4);
    assert!(page.eval("document.getElementById('reloads').textContent").as_str().unwrap().contains("decision 4"));

    // On to the end, taking the first option; once, an option that asks for confirmation
    // is declined, then taken.
    let mut confirmed = false;
    for _ in 0..400 {
        if page.eval("view.over !== null || view.options.length === 0") == json!(true) {
            break;
        }
        let ask = page.eval("view.options.findIndex(o => o.confirm)").as_i64().unwrap_or(-1);
        if !confirmed && ask >= 0 {
            page.eval(&format!("document.querySelector('#options button.option[data-i=\"{ask}\"]').click()"));
            assert_eq!(page.eval("document.getElementById('confirm').hidden"), json!(false));
            page.eval("document.getElementById('no').click()");
            assert_eq!(page.eval("document.getElementById('confirm').hidden"), json!(true));
            page.eval(&format!("document.querySelector('#options button.option[data-i=\"{ask}\"]').click()"));
            click(&mut page, "document.getElementById('yes')");
            confirmed = true;
            continue;
        }
        click(&mut page, "document.querySelector('#options button.option')");
    }
    assert!(confirmed, "no option asked for confirmation");
    let over = page.eval("document.getElementById('over').textContent");
    // The end: who won and why, and the final scores.
    let over = over.as_str().unwrap();
    assert!(over.starts_with("── the end ──\n") && over.contains(" wins: ") && over.contains("final scores"), "{over}");
    assert_eq!(page.eval("document.getElementById('error').textContent"), json!(""));
    // The table drawn with the printed faces, and the log of what happened.
    page.wait_for("document.querySelectorAll('#zones .card img').length > 0", LOAD);
    let log = page.eval("document.getElementById('log').innerText").as_str().unwrap().to_string();
    assert!(log.contains("P2 ") && log.contains("game over: "), "{log}");
    assert!(!log.contains('#'), "engine notation in the log: {log}");

    // Saved as a golden game, which `crown test` passes.
    page.eval("document.getElementById('save-name').value = 'browser-game'");
    click(&mut page, "document.getElementById('save')");
    page.wait_for("document.getElementById('saved').textContent.includes('browser-game.game.toml')", LOAD);
    let file = server.root.join("tests/golden/take-the-kingdom/browser-game.game.toml");
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("agents = [\"human\", \"random\"]") && saved.contains("label = "), "{saved}");
    let out = Command::new(crown_bin())
        .args(["--project", &server.root.to_string_lossy(), "test", "take-the-kingdom/browser-game"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // A second save under the same name is refused.
    click(&mut page, "document.getElementById('save')");
    assert!(page.eval("document.getElementById('error').textContent").as_str().unwrap().contains("exists"));
}

/// A game action from a page elsewhere is refused: without the page's header, or from
/// another origin.
#[test]
fn game_actions_from_elsewhere_are_refused() {
    let server = Server::start();
    let port = server.url.trim_end_matches('/').rsplit(':').next().unwrap().to_string();
    let post = |headers: &[(&str, &str)]| {
        let mut s = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
        let mut req = format!(
            "POST /play/new?pack=take-the-kingdom HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n"
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        std::io::Write::write_all(&mut s, req.as_bytes()).unwrap();
        let mut answer = String::new();
        std::io::Read::read_to_string(&mut s, &mut answer).unwrap();
        answer
    };
    assert!(post(&[]).starts_with("HTTP/1.1 403"));
    assert!(post(&[("X-Crown", "play"), ("Origin", "http://evil.test")]).starts_with("HTTP/1.1 403"));
    let ok = post(&[("X-Crown", "play"), ("Origin", &format!("http://127.0.0.1:{port}"))]);
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    assert!(ok.contains("\"prompt\":\"Choose your noble\""), "{ok}");
}

/// A tile laid in the page: each seat's board drawn as a grid in its terrains' colours, a
/// click on a square shows the tile there, Turn shows the next way, and "Lay it here"
/// lays it; the ways are also listed by square.
#[test]
fn a_tile_is_laid_by_clicking_its_square_and_turning_it() {
    let server = Server::start_with(
        "tiles",
        &[
            (
                "content/tiles/pack.toml",
                "id = \"tiles\"\nname = \"Tiles\"\nversion = \"1\"\nplayers = { min = 2, max = 2 }\n\
                 [colors]\nkeep = \"#444444\"\nwood = \"#2e7d32\"\nlake = \"#1565c0\"\n",
            ),
            (
                "content/tiles/board.toml",
                "[[board]]\nid = \"realm\"\nname = \"Realm\"\nper_seat = true\nwidth = 3\nheight = 3\n\
                 start = { terrain = \"keep\" }\n",
            ),
            (
                "content/tiles/cards/tiles.toml",
                "[[card]]\nid = \"t1\"\nname = \"Tile 1\"\nkind = \"tile\"\ndecks = [\"main\"]\ncount = 4\n\
                 cells = [{ terrain = \"wood\", values = { crowns = 1 } }, { x = 1, terrain = \"lake\" }]\n",
            ),
            (
                "scripts/tiles/rules.rhai",
                "fn setup() { create_deck(\"main\", zone(\"deck\")); set_current(0); }\n\
                 fn turn() {\n\
                   let p = current();\n\
                   let b = board(p, \"realm\");\n\
                   let t = top(zone(\"deck\"));\n\
                   let ways = placements(b, t);\n\
                   ways.push(\"Put it aside\");\n\
                   let way = choose(p, \"Lay your tile\", ways);\n\
                   if type_of(way) == \"map\" { place_tile(b, t, way); log(`lays ${way.label}`); } else { move_card(t, zone(\"box\")); }\n\
                   if turn_number() >= 3 { end_game([0], \"done\"); }\n\
                   set_current(next_seat(p));\n\
                 }\n",
            ),
        ],
    );
    let browser = Browser::start();
    let mut page = open_play(&browser, &server);
    page.eval("document.getElementById('agents').value = 'human,first'");
    click(&mut page, "document.getElementById('start')");
    page.wait_for("document.querySelectorAll('#boards .board').length === 2", LOAD);
    // Both realms, named for the seat; the keep in its colour in the middle.
    let labels = page.eval("[...document.querySelectorAll('#boards .board h3')].map(h => h.textContent).join('|')");
    assert_eq!(labels, json!("your Realm|P2's Realm"));
    let keep = page.eval("getComputedStyle(document.querySelector('#boards .board[data-board=\"0\"] .square[data-square=\"b2\"]')).backgroundColor");
    assert_eq!(keep, json!("rgb(68, 68, 68)"));
    // The placements are not buttons of their own: the one other option is.
    assert_eq!(page.eval("document.querySelectorAll('#options button.option').length"), json!(1));
    assert_eq!(page.eval("document.querySelectorAll('#place-list .place-group').length"), json!(8));
    assert_eq!(page.eval("document.querySelectorAll('#boards .board[data-board=\"0\"] .square.can').length"), json!(8));
    assert_eq!(page.eval("document.querySelectorAll('#boards .board[data-board=\"1\"] .square.can').length"), json!(0));
    // A click on a1: the tile as printed, its lake on b1; Turn: its lake on a2.
    page.eval("document.querySelector('#boards .board[data-board=\"0\"] .square[data-square=\"a1\"]').click()");
    assert_eq!(page.eval("document.getElementById('place-bar').hidden"), json!(false));
    let what = page.eval("document.getElementById('place-what').textContent");
    assert!(what.as_str().unwrap().starts_with("t1 at a1, facing north"), "{what}");
    let ghosts = "[...document.querySelectorAll('#boards .square.ghost')].map(s => s.dataset.square + ':' + s.querySelector('.ghost-terrain').textContent).join(' ')";
    assert_eq!(page.eval(ghosts), json!("a1:wood b1:lake"));
    page.eval("document.getElementById('turn').click()");
    assert_eq!(page.eval(ghosts), json!("a1:wood a2:lake"));
    click(&mut page, "document.getElementById('lay')");
    // Laid: the squares take the terrains and their values, and the rules tell where.
    page.wait_for("view.step === 1", LOAD);
    let a1 = page.eval("document.querySelector('#boards .board[data-board=\"0\"] .square[data-square=\"a1\"]').title");
    assert_eq!(a1, json!("a1: wood, 1 crown (Tile 1)"));
    let a2 = page.eval("getComputedStyle(document.querySelector('#boards .board[data-board=\"0\"] .square[data-square=\"a2\"]')).backgroundColor");
    assert_eq!(a2, json!("rgb(21, 101, 192)"));
    let log = page.eval("document.getElementById('log').innerText").as_str().unwrap().to_string();
    assert!(log.contains("at a1, facing east"), "{log}");
    // A way picked from the list by square lays the tile as well.
    click(&mut page, "document.querySelector('#place-list button.place')");
    page.wait_for("view.over !== null", LOAD);
    assert_eq!(page.eval("document.getElementById('error').textContent"), json!(""));
}

/// In a card game, a decision about a card is taken by clicking the card where it is shown
/// (Take the Kingdom's hand): the card is marked, and the click takes its option.
#[test]
fn a_card_is_chosen_by_clicking_it() {
    let server = Server::start();
    let browser = Browser::start();
    let mut page = open_play(&browser, &server);
    page.eval("document.getElementById('seed').value = '1'; document.getElementById('agents').value = 'human,random'");
    click(&mut page, "document.getElementById('start')");
    page.wait_for("typeof view !== 'undefined' && view !== null && view.options.length > 0", LOAD);
    for _ in 0..60 {
        // The first card that one option alone is about.
        let one = "[...document.querySelectorAll('#zones .card.choosable')].find(d => \
                   view.options.filter(o => o.cards.includes(Number(d.dataset.card))).length === 1)";
        if page.eval(&format!("!!({one})")) == json!(true) {
            let label =
                page.eval(&format!("view.options.find(o => o.cards.includes(Number(({one}).dataset.card))).label"));
            let total = page.eval("view.total").as_u64().unwrap();
            click(&mut page, one);
            assert_eq!(page.eval("document.getElementById('error').textContent"), json!(""));
            assert!(page.eval("view.total").as_u64().unwrap() > total, "the click took a decision");
            let chosen = page.eval(&format!("view.chosen[{total}]"));
            assert_eq!(chosen, label, "the decision taken is the card's option");
            return;
        }
        if page.eval("view.over !== null") == json!(true) {
            break;
        }
        click(
            &mut page,
            "[...document.querySelectorAll('#options button.option')].find(b => !view.options[Number(b.dataset.i)].confirm)",
        );
    }
    panic!("no decision was about a card shown on the table");
}

/// The first element of the map some option names, as `[space or supply, its id, whether
/// it names one option alone]` (one that does first), or null.
const FIRST_NAMED: &str = "(() => { const all = [...document.querySelectorAll('#map g.choosable')]; \
    const one = all.find(g => { const id = g.dataset.space || g.dataset.supply; \
      return view.options.filter(o => o.spaces.includes(id) || o.supplies.includes(id)).length === 1; }); \
    const g = one || all[0]; if (!g) return null; \
    return [g.dataset.space ? 'space' : 'supply', g.dataset.space || g.dataset.supply, !!one]; })()";

/// A game of Kingdoms in Conflict played to its end in the page on the drawn board, by
/// clicks on the board alone: the map has an SVG element for every space of board.toml
/// and one for every supply beneath it; a decision is taken by clicking the square, pile
/// or supply its option names (a side by its grey tiles, a tile to build or place on, a
/// unit, the stockpile to feed or pay from, the supply a purchase takes from), choosing
/// among the options listed beside the map where a click names several, and from the
/// list beside the map for what names nothing on it (passing, buying nothing). The
/// option list of the left column is never used.
#[test]
fn kingdoms_in_conflict_is_played_on_the_drawn_board() {
    let server = Server::of_pack("kingdoms-in-conflict");
    let browser = Browser::start();
    let mut page = open_play(&browser, &server);
    page.eval("document.getElementById('seed').value = '2'; document.getElementById('agents').value = 'human,random'");
    click(&mut page, "document.getElementById('start')");
    page.wait_for("typeof view !== 'undefined' && view !== null && view.options.length > 0", LOAD);
    // The grid's 100 tiles, the 32 stockpiles and the 4 sides, each drawn once, and the
    // 14 supplies (6 resources, each ruler's walls and units).
    assert_eq!(page.eval("document.querySelectorAll('#map svg g.space').length"), json!(136));
    assert_eq!(page.eval("document.querySelectorAll('#map svg g.supply').length"), json!(14));
    // An option previewed, as `preview N` at the terminal: what taking it would do.
    click(&mut page, "document.querySelector('#options button.preview')");
    let told = page.eval("document.getElementById('preview').textContent");
    assert!(
        told.as_str().unwrap().starts_with("if you take 1 ("),
        "{told} {}",
        page.eval("document.getElementById('error').textContent")
    );
    let played = play_on_the_board(&mut page, 3, 900);
    let over = page.eval("document.getElementById('over').textContent");
    assert!(over.as_str().unwrap().contains(" wins: "), "the game ended: {over}");
    assert_eq!(page.eval("document.getElementById('error').textContent"), json!(""));
    let p = &played;
    assert!(p.alone + p.listed + p.sets >= 10 && p.listed >= 1 && p.supplies >= 1 && p.off >= 1, "{p:?}");
    assert!(p.sets >= 1, "no harvest was picked as a set: {p:?}");
    // The board as it ends: the pieces the log placed are drawn on their squares.
    let walls = page.eval(
        "[...document.querySelectorAll('#map g.space title')].filter(t => t.textContent.includes('walls')).length",
    );
    assert!(walls.as_u64().unwrap() >= 2, "walls on the drawn board: {walls}");
    // What the screen shows, against the state: the game saved, replayed here, and each
    // square's colour and each piece's disc read off a screenshot of the map.
    page.eval("document.getElementById('save-name').value = 'board-game'");
    click(&mut page, "document.getElementById('save')");
    page.wait_for("document.getElementById('saved').textContent.includes('board-game.game.toml')", LOAD);
    let file = server.root.join("tests/golden/kingdoms-in-conflict/board-game.game.toml");
    let file = GameFile::parse(&std::fs::read_to_string(file).unwrap()).unwrap();
    let pack = load_pack(&repo_project(), "kingdoms-in-conflict").unwrap();
    let (game, _, _) = file.replay(pack.clone()).unwrap();
    let (squares, discs) = screen_shows_the_state(&mut page, &game);
    assert_eq!(squares, 100, "the grid's squares compared");
    assert!(discs >= 4, "{discs} pieces compared");
}

/// A game of Borderlands, a map of named territories laid out from their links, played to
/// its end in the page by clicks on the board alone (a scenario of three rounds keeps it
/// short): armies placed by a click on a territory, an attack or a fortifying move by a
/// click on one of its two territories and a pick from the list beside the map, the end
/// of attacks and of a turn from beside the map. A screenshot of the map then shows each
/// territory's banner in its holder's colour, as the replayed state has it.
#[test]
fn borderlands_is_played_on_its_map_of_territories() {
    let short = "id = \"short\"\nname = \"Short\"\ntext = \"Three rounds.\"\nplayers = { min = 2, max = 2 }\n\
                 [options]\nround_cap = 3\n";
    let server = Server::of_pack_with("borderlands", &[("content/borderlands/scenarios/short.toml", short)]);
    let browser = Browser::start();
    let mut page = open_play(&browser, &server);
    page.wait_for("[...document.getElementById('scenario').options].some(o => o.value === 'short')", LOAD);
    page.eval(
        "document.getElementById('scenario').value = 'short'; document.getElementById('seed').value = '4'; \
         document.getElementById('agents').value = 'human,random'",
    );
    click(&mut page, "document.getElementById('start')");
    page.wait_for("typeof view !== 'undefined' && view !== null && view.options.length > 0", LOAD);
    // 18 territories and 5 regions, the links between territories, the banners' supply.
    assert_eq!(page.eval("document.querySelectorAll('#map svg g.space').length"), json!(23));
    assert!(page.eval("document.querySelectorAll('#map svg line.link').length").as_u64().unwrap() >= 20);
    let p = play_on_the_board(&mut page, 3, 1500);
    let over = page.eval("document.getElementById('over').textContent");
    assert!(over.as_str().unwrap().contains("win"), "the game ended: {over}");
    assert_eq!(page.eval("document.getElementById('error').textContent"), json!(""));
    assert!(p.alone >= 10 && p.listed >= 1 && p.off >= 1, "{p:?}");
    page.eval("document.getElementById('save-name').value = 'board-game'");
    click(&mut page, "document.getElementById('save')");
    page.wait_for("document.getElementById('saved').textContent.includes('board-game.game.toml')", LOAD);
    let file = server.root.join("tests/golden/borderlands/board-game.game.toml");
    let file = GameFile::parse(&std::fs::read_to_string(file).unwrap()).unwrap();
    let pack = load_pack(&crown_engine::load::Project::new(&server.root), "borderlands").unwrap();
    let (game, _, _) = file.replay(pack).unwrap();
    let (_, discs) = screen_shows_the_state(&mut page, &game);
    assert_eq!(discs, 18, "a banner on every territory compared");
}

/// How a game was played on the board ([`play_on_the_board`]): decisions taken by one
/// click on the map, from the list beside it after a click, as sets, and from beside the
/// map for what names nothing on it; and how many of the clicks were on supplies.
#[derive(Debug, Default)]
struct BoardPlay {
    alone: usize,
    listed: usize,
    sets: usize,
    off: usize,
    supplies: usize,
}

/// Play the page's game to its end (at most `limit` decisions) by the board alone: each
/// decision by a click on the first element of the map that an option names (one that
/// names a single option first; where several are named, the first listed beside the
/// map), a set by ticking its first option on the map, and every `off_every`th decision
/// that offers something the map does not show by that (passing, buying nothing),
/// confirmed beside the map when it asks. Checks at every decision that each option is
/// named on the map or listed beside it. The option list of the left column is never used.
fn play_on_the_board(page: &mut Cdp, off_every: usize, limit: usize) -> BoardPlay {
    // A click that changes the view, counted.
    let press = |page: &mut Cdp, js: &str| {
        let before = page.eval("window.crownPlayUpdates").as_u64().unwrap_or(0);
        page.eval(js);
        page.wait_for(&format!("window.crownPlayUpdates > {before}"), LOAD);
    };
    let click_element = "(e) => e.dispatchEvent(new MouseEvent('click', { bubbles: true }))";
    let mut played = BoardPlay::default();
    let mut offered_off = 0;
    for _ in 0..limit {
        if page.eval("view.over !== null || view.options.length === 0") == json!(true) {
            return played;
        }
        // The options as the board shows them: every one is named by an element of the
        // map or listed beside it as naming nothing there.
        let shown = page.eval(
            "(() => { const off = [...document.querySelectorAll('#map-off button[data-i]')].map(b => Number(b.dataset.i)); \
               return view.options.every((o, i) => o.spaces.length + o.supplies.length > 0 || off.includes(i)); })()",
        );
        assert_eq!(
            shown,
            json!(true),
            "an option the board does not show: {}",
            page.eval("JSON.stringify(view.options)")
        );
        // A set picks its first option by a click on what it names, then the set is
        // taken beside the map.
        if page.eval("view.several !== null") == json!(true) {
            let id = page.eval("view.options[0].spaces[0]");
            let id = id.as_str().expect("the set's first option names a space");
            page.eval(&format!("({click_element})(document.querySelector('#map g.space[data-space=\"{id}\"]'))"));
            assert_eq!(page.eval("document.querySelector('#options input.pick[data-i=\"0\"]').checked"), json!(true));
            press(page, "document.getElementById('map-several-go').click()");
            played.sets += 1;
            continue;
        }
        let has_off = page.eval("document.querySelector('#map-off button.map-option') !== null") == json!(true);
        offered_off += usize::from(has_off);
        let target = if has_off && offered_off % off_every == 0 { json!(null) } else { page.eval(FIRST_NAMED) };
        if let Some(t) = target.as_array() {
            let (what, id, single) = (t[0].as_str().unwrap(), t[1].as_str().unwrap(), t[2] == json!(true));
            let g = format!("document.querySelector('#map g.{what}[data-{what}=\"{id}\"]')");
            played.supplies += usize::from(what == "supply");
            let asks = format!(
                "view.options.filter(o => o.spaces.includes('{id}') || o.supplies.includes('{id}')).some(o => !!o.confirm)"
            );
            if single && page.eval(&asks) == json!(false) {
                press(page, &format!("({click_element})({g})"));
                played.alone += 1;
                continue;
            }
            page.eval(&format!("({click_element})({g})"));
            // Listed beside the map (or, for one option that asks to be sure, asked there).
            if page.eval("document.querySelector('#map-here .map-yes') !== null") == json!(true) {
                press(page, "document.querySelector('#map-here .map-yes').click()");
            } else {
                press(page, "document.querySelector('#map-here button.map-option').click()");
            }
            played.listed += 1;
            continue;
        }
        // What names nothing on the map, beside it, confirmed there when it asks.
        let first = "document.querySelector('#map-off button.map-option')";
        if page.eval(&format!("!!view.options[Number({first}.dataset.i)].confirm")) == json!(true) {
            page.eval(&format!("{first}.click()"));
            press(page, "document.querySelector('#map-here .map-yes').click()");
        } else {
            press(page, &format!("{first}.click()"));
        }
        played.off += 1;
    }
    panic!("the game did not end within {limit} decisions: {played:?}");
}

/// A CSS colour as Kingdoms in Conflict's data writes them (`#b9dfa0`, `red`, `light
/// grey`), as red, green and blue.
fn rgb_of(colour: &str) -> [u8; 3] {
    let named = colour.split_whitespace().collect::<String>().to_lowercase();
    match named.as_str() {
        "red" => [255, 0, 0],
        "blue" => [0, 0, 255],
        "green" => [0, 128, 0],
        "yellow" => [255, 255, 0],
        "brown" => [165, 42, 42],
        "lightgrey" => [211, 211, 211],
        "darkgrey" => [169, 169, 169],
        hex => {
            let h = hex.strip_prefix('#').unwrap_or_else(|| panic!("a colour the test knows: {colour}"));
            let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap();
            [byte(0), byte(2), byte(4)]
        }
    }
}

/// A screenshot of the page's map compared with `game`'s state: every square of the grid
/// shows its terrain's colour (pack.toml's `[colors]`), and every space shows one disc
/// for each kind of piece (and owner) the state has on it, in its supply's colour or its
/// owner's.
fn screen_shows_the_state(page: &mut Cdp, game: &crown_engine::game::Game) -> (usize, usize) {
    // A wide screen, so that a piece's disc is some pixels across; then where the map and
    // each space's shape and discs are, in the page's pixels.
    page.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1800, "height": 1400, "deviceScaleFactor": 1, "mobile": false }),
    );
    page.eval("document.querySelector('#map svg').scrollIntoView()");
    let layout = page.eval(
        "(() => { const m = document.querySelector('#map svg').getBoundingClientRect(); \
           const box = (e) => { const r = e.getBoundingClientRect(); return [r.left - m.left, r.top - m.top, r.width, r.height]; }; \
           return { map: [m.left + window.scrollX, m.top + window.scrollY, m.width, m.height], \
             spaces: [...document.querySelectorAll('#map g.space')].map(g => ({ id: g.dataset.space, \
               shape: box(g.querySelector('rect, circle:not(.piece)')), discs: [...g.querySelectorAll('circle.piece')].map(box) })) }; })()",
    );
    let m = &layout["map"];
    let clip = json!({ "x": m[0], "y": m[1], "width": m[2], "height": m[3], "scale": 1 });
    let shot =
        page.call("Page.captureScreenshot", json!({ "format": "png", "clip": clip, "captureBeyondViewport": true }));
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().unwrap()).unwrap();
    let mut r = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let at = |x: f64, y: f64| -> [u8; 3] {
        let (x, y) = (x.round() as usize, y.round() as usize);
        let i = (y * info.width as usize + x) * channels;
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    // A pixel is read as the colour of the map it is nearest to (the screen's colour
    // management may shift a saturated colour by a few percent).
    let mut palette: Vec<[u8; 3]> =
        game.pack.manifest.colors.values().filter(|c| c.starts_with('#')).map(|c| rgb_of(c)).collect();
    let board = &game.pack.board.as_ref().unwrap().0;
    palette.extend(board.supply.iter().filter_map(|su| su.attrs.get("colour")).map(|c| rgb_of(c)));
    palette.extend([[0xf4, 0xf1, 0xea], [0x22, 0x22, 0x22], [0xff, 0xff, 0xff]]);
    let dist =
        |a: [u8; 3], b: [u8; 3]| a.iter().zip(b).map(|(x, y)| (i32::from(*x) - i32::from(y)).pow(2)).sum::<i32>();
    let near = |got: [u8; 3], want: [u8; 3]| {
        palette.iter().min_by_key(|c| dist(got, **c)).is_some_and(|c| dist(*c, want) == 0)
    };
    let num = |v: &Value| v.as_f64().unwrap();
    let on = game.pieces_by_space();
    let (mut squares, mut discs) = (0, 0);
    for sp in layout["spaces"].as_array().unwrap() {
        let id = sp["id"].as_str().unwrap();
        let i = game.state.space_ids[id] as usize;
        let space = &game.state.spaces[i];
        let shape = &sp["shape"];
        if let Some(t) = space.attrs.get("terrain") {
            // The square's inner corner, where no name, disc or number is drawn.
            let want = rgb_of(&game.pack.manifest.colors[t]);
            let got = at(num(&shape[0]) + 4.0, num(&shape[1]) + num(&shape[3]) - 5.0);
            assert!(near(got, want), "{id}: the screen shows {got:?} where its terrain {t} is {want:?}");
            squares += 1;
        }
        let kinds: Vec<&(String, i64)> = on.get(&i).map(|k| k.keys().collect()).unwrap_or_default();
        let drawn = sp["discs"].as_array().unwrap();
        assert_eq!(drawn.len(), kinds.len(), "{id}: the state has {kinds:?} there");
        for (d, (kind, owner)) in drawn.iter().zip(kinds) {
            // Its supply's colour, else (one supply for every seat) its owner's, from
            // pack.toml's `[colors]`.
            let colour = match game.supply_def(kind).unwrap().attrs.get("colour") {
                Some(c) => c.clone(),
                None => game.pack.manifest.colors[&format!("seat-{}", owner + 1)].clone(),
            };
            let want = rgb_of(&colour);
            // Inside the disc, above its count.
            let got = at(num(&d[0]) + num(&d[2]) / 2.0, num(&d[1]) + num(&d[3]) * 0.15);
            assert!(near(got, want), "{id}: the disc of {kind} ({owner}) {d} shows {got:?}, its colour is {want:?}");
            discs += 1;
        }
    }
    (squares, discs)
}
