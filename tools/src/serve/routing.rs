//! The routing of a request and its checks (`Host`, method, path), kept apart from the
//! server so they can be tested and fuzzed alone; also the decoding of a query string.

use std::collections::BTreeMap;

/// The most a request may carry in its address and headers (16 KiB), answered 431
/// beyond. hyper refuses a head past its own read buffer (about 400 KiB) before any of
/// this code runs, so no request holds more than that in memory; no body is ever read.
pub const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// Whether a `Host` header names this server: `127.0.0.1:PORT` or `localhost:PORT`.
/// Anything else is a page elsewhere reaching the server through a name that resolves
/// to 127.0.0.1 (DNS rebinding), and is refused.
pub fn host_allowed(host: Option<&[u8]>, port: u16) -> bool {
    let Some(host) = host.and_then(|h| std::str::from_utf8(h).ok()) else { return false };
    let host = host.trim();
    let Some((name, p)) = host.rsplit_once(':') else { return false };
    p == port.to_string() && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
}

/// What a request gets back, before it is turned into an HTTP response: the routing
/// and the checks, kept apart from the server so they can be tested (and fuzzed) alone.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    Page,
    Fragment,
    Events,
    Face(String),
    /// The game page.
    PlayPage,
    /// A request about the game in the page (`/play/...`).
    Play(PlayCall),
    Refused(u16, &'static str),
}

/// What a `/play/...` request asks of the game in the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayCall {
    /// GET: the game as it stands (or at decision `at`).
    State,
    /// GET: what taking an option would do (the terminal's `preview N`).
    Preview,
    /// POST: start a game.
    New,
    /// POST: take an option.
    Choose,
    /// POST: go back to a decision, dropping the later ones.
    Rewind,
    /// POST: save the game as a golden game.
    Save,
}

/// Route one request: its method, its path (still percent-encoded) and its `Host`.
/// Never panics, whatever the bytes.
pub fn route(method: &str, path: &str, host: Option<&[u8]>, port: u16) -> Reply {
    if !host_allowed(host, port) {
        return Reply::Refused(421, "this server answers only to 127.0.0.1 and localhost\n");
    }
    let action = match path {
        "/play/new" => Some(PlayCall::New),
        "/play/choose" => Some(PlayCall::Choose),
        "/play/rewind" => Some(PlayCall::Rewind),
        "/play/save" => Some(PlayCall::Save),
        _ => None,
    };
    if let Some(call) = action {
        return if method == "POST" { Reply::Play(call) } else { Reply::Refused(405, "POST only\n") };
    }
    if method != "GET" && method != "HEAD" {
        return Reply::Refused(405, "GET only\n");
    }
    match path {
        "/" => Reply::Page,
        "/play" => Reply::PlayPage,
        "/play/state" => Reply::Play(PlayCall::State),
        "/play/preview" => Reply::Play(PlayCall::Preview),
        "/fragment" => Reply::Fragment,
        "/events" => Reply::Events,
        p => match p.strip_prefix("/face/").and_then(|p| p.strip_suffix(".svg")) {
            Some(name) => match percent_decode(name) {
                Some(name) => Reply::Face(name),
                None => Reply::Refused(400, "malformed face name\n"),
            },
            None => Reply::Refused(404, "not found\n"),
        },
    }
}

/// Decode `%XX` escapes; `None` for a malformed escape (a `%` not followed by two hex
/// digits, which the decoder would pass through as it is) or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let malformed = b
        .iter()
        .enumerate()
        .any(|(i, &c)| c == b'%' && !b.get(i + 1..i + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)));
    if malformed {
        return None;
    }
    percent_encoding::percent_decode_str(s).decode_utf8().ok().map(|c| c.into_owned())
}

/// `a=1&b=x%20y` into its pairs (`+` is a space); malformed escapes leave a pair out.
pub fn query_pairs(q: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for part in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        if let (Some(k), Some(v)) = (percent_decode(&k.replace('+', " ")), percent_decode(&v.replace('+', " "))) {
            out.insert(k, v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_refusals() {
        let me = Some(&b"127.0.0.1:7878"[..]);
        assert_eq!(route("GET", "/", me, 7878), Reply::Page);
        assert_eq!(route("GET", "/", Some(b"LocalHost:7878"), 7878), Reply::Page);
        assert_eq!(route("GET", "/face/tiny/a%20b.svg", me, 7878), Reply::Face("tiny/a b".into()));
        for bad in ["/face/%.svg", "/face/%e.svg", "/face/%+1.svg", "/face/%ff.svg", "/face/%\u{e9}.svg"] {
            assert_eq!(route("GET", bad, me, 7878), Reply::Refused(400, "malformed face name\n"), "{bad}");
        }
        for host in [&b"evil.test:7878"[..], b"127.0.0.1", b"127.0.0.1:7879", b"localhost:7878.evil", b"\xff:7878"] {
            assert!(matches!(route("GET", "/", Some(host), 7878), Reply::Refused(421, _)));
        }
        assert!(matches!(route("GET", "/", None, 7878), Reply::Refused(421, _)));
        assert!(matches!(route("DELETE", "/", me, 7878), Reply::Refused(405, _)));
        // The game: its page and state by GET, its actions by POST only.
        assert_eq!(route("GET", "/play", me, 7878), Reply::PlayPage);
        assert_eq!(route("GET", "/play/state", me, 7878), Reply::Play(PlayCall::State));
        assert_eq!(route("GET", "/play/preview", me, 7878), Reply::Play(PlayCall::Preview));
        assert_eq!(route("POST", "/play/choose", me, 7878), Reply::Play(PlayCall::Choose));
        assert!(matches!(route("GET", "/play/choose", me, 7878), Reply::Refused(405, _)));
        assert!(matches!(route("POST", "/play/save", Some(b"evil.test:7878"), 7878), Reply::Refused(421, _)));
        assert!(matches!(route("POST", "/", me, 7878), Reply::Refused(405, _)));
    }

    #[test]
    fn query_pairs_decode_and_skip_malformed_escapes() {
        let q = query_pairs("name=my-game&description=a+quiet%20game&bad=%zz&i=2&&flag");
        assert_eq!(q.get("description").map(String::as_str), Some("a quiet game"));
        assert_eq!(q.get("i").map(String::as_str), Some("2"));
        assert_eq!(q.get("flag").map(String::as_str), Some(""));
        assert!(!q.contains_key("bad"));
    }
}
