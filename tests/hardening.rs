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
    // A seat count past what the command line allows (it once sized a vector: capacity
    // overflow in the game thread), found by the serve_route fuzz target.
    let huge = format!(
        "POST /play/new?pack=tiny&players=7273703029523728157 HTTP/1.1\r\nHost: {me}\r\nX-Crown: play\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(s.status(huge.as_bytes()), 400);
    // Two Host headers are malformed, whichever comes first.
    let two = format!("GET / HTTP/1.1\r\nHost: {me}\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
    assert_eq!(s.status(two.as_bytes()), 400);
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

/// `crown campaign play FILE --game --agent human,first` in `root`, with `TMPDIR` set: the
/// child, a reader of its standard output (sent on as it comes) and its standard input.
fn campaign_at_the_table(root: &Path, save: &str, tmp: &Path) -> (Child, std::sync::mpsc::Receiver<String>) {
    let mut child = Command::new(crown_bin())
        .arg("--project")
        .arg(root)
        .args(["campaign", "play", save, "--game", "--agent", "human,first"])
        .current_dir(root)
        .env("TMPDIR", tmp)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0 || tx.send(String::from_utf8_lossy(&buf[..n]).to_string()).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Wait until the output so far holds `what` (the game waits at the person's first menu).
fn wait_for(rx: &std::sync::mpsc::Receiver<String>, what: &str) -> String {
    let mut seen = String::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !seen.contains(what) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(s) => seen.push_str(&s),
            Err(_) => panic!("no `{what}` in the output within 30 s:\n{seen}"),
        }
    }
    seen
}

/// Answer the first option at every menu to the end of the game; exit code and standard error.
fn answer_to_the_end(mut child: Child) -> (Option<i32>, String) {
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all("1\n".repeat(400).as_bytes());
    drop(stdin);
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (child.wait().unwrap().code(), err)
}

/// The file a message names after "is kept in ".
fn kept_path(err: &str) -> std::path::PathBuf {
    let rest = err.split("the new save is kept in ").nth(1).unwrap_or_else(|| panic!("no kept file named in: {err}"));
    std::path::PathBuf::from(rest.split(" (move it").next().unwrap().trim())
}

/// A round played at the table is never lost: when the save cannot be written once the
/// game is over (here a folder has taken its place while the game waited for the
/// person's first choice; that works as root too, where permissions would not stop a
/// write), the new save is kept beside it as `NAME.unsaved-PID`, the message names that
/// file, and it holds the game as played.
#[test]
fn campaign_round_is_kept_when_the_save_becomes_a_folder() {
    let dir = tiny_project();
    let root = dir.path();
    let tmp = root.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let o = Command::new(crown_bin())
        .arg("--project")
        .arg(root)
        .args(["campaign", "new", "tiny", "--save", "c.save.toml"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (child, rx) = campaign_at_the_table(root, "c.save.toml", &tmp);
    let pid = child.id();
    wait_for(&rx, "choose 1-");
    // The round is under way: the save's place now holds a folder.
    std::fs::remove_file(root.join("c.save.toml")).unwrap();
    std::fs::create_dir(root.join("c.save.toml")).unwrap();
    let (code, err) = answer_to_the_end(child);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot write c.save.toml"), "{err}");
    let kept = kept_path(&err);
    assert_eq!(kept, std::path::PathBuf::from(format!("./c.save.toml.unsaved-{pid}")), "{err}");
    let text = std::fs::read_to_string(root.join(&kept)).unwrap();
    let save = crown_engine::game::save::SaveFile::parse(&text).unwrap();
    assert_eq!((save.status.as_str(), save.sittings, save.games), ("finished", 1, 1), "the game as played");
    assert!(root.join("c.save.toml").is_dir(), "the folder is left as it was");
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "nothing went to the temporary folder");
}

/// When the folder the save was in cannot take a file either (it has become a file),
/// the new save goes to the system's temporary folder, named in the message.
#[test]
fn campaign_round_is_kept_in_the_temporary_folder_when_its_folder_is_gone() {
    let dir = tiny_project();
    let root = dir.path();
    let tmp = root.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let o = Command::new(crown_bin())
        .arg("--project")
        .arg(root)
        .args(["campaign", "new", "tiny", "--save", "saves/c.save.toml"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (child, rx) = campaign_at_the_table(root, "saves/c.save.toml", &tmp);
    let pid = child.id();
    wait_for(&rx, "choose 1-");
    std::fs::rename(root.join("saves"), root.join("saves-moved")).unwrap();
    std::fs::write(root.join("saves"), "now a file").unwrap();
    let (code, err) = answer_to_the_end(child);
    assert_eq!(code, Some(1), "{err}");
    let kept = kept_path(&err);
    assert_eq!(kept, tmp.join(format!("c.save.toml.unsaved-{pid}")), "{err}");
    let save = crown_engine::game::save::SaveFile::parse(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    assert_eq!((save.status.as_str(), save.sittings), ("finished", 1));
    assert_eq!(std::fs::read_to_string(root.join("saves")).unwrap(), "now a file");
}

/// A seat that plays at random and keeps every view of the table it is shown.
struct Spy {
    rng: crown_engine::game::agent::RandomAgent,
    views: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl crown_engine::game::agent::Agent for Spy {
    fn choose(&mut self, req: &crown_engine::game::agent::ChoiceRequest<'_>) -> Result<usize, String> {
        self.rng.choose(req)
    }
    fn kind(&self) -> String {
        "spy".into()
    }
    fn wants_view(&self) -> bool {
        true
    }
    fn show(&mut self, view: &str) {
        self.views.lock().unwrap().push(view.to_string());
    }
}

/// The Last Kingdom's `[zones]` declares the draft packets and kept cards `owner`: every
/// seat sees its own by name and the others' as a count only, in every view of a played
/// game. (The state tests set visibility directly; this holds the pack's declaration to
/// the game.)
#[test]
fn zones_the_pack_declares_owner_show_their_cards_to_the_owner_alone() {
    use crown_engine::game::agent::{Agent, RandomAgent};
    use crown_engine::game::{Game, GameConfig};
    let project = crate::common::repo_project();
    let pack = crate::common::load_pack(&project, "the-last-kingdom").unwrap();
    let declared: Vec<&str> = pack
        .manifest
        .zones
        .iter()
        .filter(|(_, seen)| matches!(seen, crown_engine::content::model::ZoneSeen::Owner))
        .map(|(z, _)| z.as_str())
        .collect();
    assert!(declared.contains(&"packet") && declared.contains(&"kept"), "{declared:?}");
    let views: Vec<_> = (0..2).map(|_| std::sync::Arc::new(std::sync::Mutex::new(Vec::new()))).collect();
    let agents: Vec<Box<dyn Agent>> = (0..2)
        .map(|seat| Box::new(Spy { rng: RandomAgent::new(7, seat), views: views[seat].clone() }) as Box<dyn Agent>)
        .collect();
    let (_, outcome) = Game::new(pack.clone(), GameConfig::new(7, 2), agents).unwrap().run();
    assert!(matches!(outcome.status, crown_engine::game::Status::Finished), "{:?}", outcome.status);
    let (mut own, mut others) = (0, 0);
    for (seat, seen) in views.iter().enumerate() {
        for view in seen.lock().unwrap().iter() {
            for line in view.lines() {
                let Some((zone, what)) = line.trim_start().split_once(": ") else { continue };
                let Some(name) = declared.iter().find(|z| zone.ends_with(&format!(" {z}"))) else { continue };
                if zone.starts_with("your ") {
                    own += 1;
                    assert!(
                        !what.ends_with(" card") && !what.ends_with(" cards"),
                        "seat {seat} sees its {name} as a count: {line}"
                    );
                } else {
                    others += 1;
                    let count = what.trim_end_matches(" cards").trim_end_matches(" card");
                    assert!(count.parse::<u32>().is_ok(), "seat {seat} sees another seat's {name}: {line}\n{view}");
                }
            }
        }
    }
    assert!(own > 0 && others > 0, "the views showed no packet or kept cards ({own} own, {others} others')");
}
