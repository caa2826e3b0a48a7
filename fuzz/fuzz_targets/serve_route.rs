//! The preview server's request handling (`crown serve`), whole: the input is the raw
//! bytes of one connection, handed to the same hyper HTTP/1 parser, router, checks and
//! handlers the server runs on its socket ([`crown_tools::serve::RawServer`]), over a
//! private copy of the corpus's tiny pack. Any bytes are answered (or the connection
//! closed), never with a panic or a 500 (a handler that failed); every answer is
//! well-formed; a page, face or game answer (2xx) only ever goes to a request that named
//! this server in its `Host`; a face name is only decoded from well-formed escapes.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use crown_engine::load::Project;
use crown_tools::serve::{percent_decode, route, RawServer, Reply};
use libfuzzer_sys::fuzz_target;

const PORT: u16 = 7878;

fn server() -> &'static RawServer {
    static SERVER: OnceLock<RawServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/invalid/_base/tiny");
        let dir = std::env::temp_dir().join(format!("crown-fuzz-serve-{}", std::process::id()));
        copy_dir(&base, &dir).expect("a copy of the tiny pack");
        RawServer::new(&Project::new(&dir), &[], PORT).expect("the tiny pack serves")
    })
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
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

/// Whether the request's bytes hold a `Host` header naming this server (on any line:
/// the name in any case, the value with its surrounding blanks).
fn names_this_server(request: &[u8]) -> bool {
    String::from_utf8_lossy(request).split(['\r', '\n']).any(|line| {
        line.split_once(':').is_some_and(|(name, value)| {
            let value = value.trim_matches([' ', '\t']).to_ascii_lowercase();
            name.eq_ignore_ascii_case("host")
                && (value == format!("127.0.0.1:{PORT}") || value == format!("localhost:{PORT}"))
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let answer = server().answer(data, Duration::from_secs(5));
    let text = String::from_utf8_lossy(&answer);
    if !answer.is_empty() {
        // HTTP/1.0 requests are answered in HTTP/1.0.
        assert!(
            text.starts_with("HTTP/1.1 ") || text.starts_with("HTTP/1.0 "),
            "an answer that is not HTTP: {:?}",
            &text[..text.len().min(80)]
        );
    }
    // Every answer on the connection (requests may be pipelined).
    for part in text.split("HTTP/1.1 ").skip(1).chain(text.split("HTTP/1.0 ").skip(1)) {
        let Some(code) = part.get(..3).and_then(|c| c.parse::<u16>().ok()) else { continue };
        if !(100..600).contains(&code) {
            continue; // "HTTP/1.1 " inside a body
        }
        assert_ne!(code, 500, "a handler failed:\n{text}");
        if (200..300).contains(&code) {
            assert!(names_this_server(data), "answered {code} to a request that did not name this server");
        }
    }
    // The routing on its own, on the request line as sent: a face name decodes only from
    // well-formed escapes.
    let line = data.split(|b| *b == b'\r' || *b == b'\n').next().unwrap_or_default();
    let mut words = line.split(|b| *b == b' ');
    let (method, path) = (String::from_utf8_lossy(words.next().unwrap_or_default()), String::from_utf8_lossy(words.next().unwrap_or_default()));
    let path = path.split('?').next().unwrap_or_default();
    let host = format!("127.0.0.1:{PORT}");
    if let Reply::Face(name) = route(&method, path, Some(host.as_bytes()), PORT) {
        let encoded = &path["/face/".len()..path.len() - ".svg".len()];
        assert_eq!(percent_decode(encoded).as_deref(), Some(name.as_str()));
    }
});
