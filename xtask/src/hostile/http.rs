//! The raw HTTP requests sent to a `crown serve` case once it listens, and the check
//! that it still answers a plain request after them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::case::{bytes_of, Http};

/// Send each request to the server on `port`; the problems (a status not allowed), then
/// a plain request that must still be answered 200.
pub(super) fn send_requests(port: u16, reqs: &[Http], vars: &dyn Fn(&str) -> String) -> Vec<String> {
    let host = format!("127.0.0.1:{port}");
    let with_host = |s: &str| vars(s).replace("{host}", &host).replace("{port}", &port.to_string());
    let mut problems = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let bytes = bytes_of(&r.parts, &with_host);
        let status = raw_request(port, &bytes, r.split_at, r.pause_ms);
        if !r.expect.is_empty() && !r.expect.contains(&status) {
            problems.push(format!("request {} answered {status}, expected one of {:?}", i + 1, r.expect));
        }
    }
    let ok =
        raw_request(port, format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(), None, 0);
    if ok != 200 {
        problems.push(format!("after the hostile requests, GET / answered {ok}, not 200"));
    }
    problems
}

/// The status code of the answer to `bytes` (0 when the connection closed without one).
fn raw_request(port: u16, bytes: &[u8], split_at: Option<usize>, pause_ms: u64) -> u16 {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return 0 };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
    let at = split_at.unwrap_or(bytes.len()).min(bytes.len());
    let _ = s.write_all(&bytes[..at]);
    if pause_ms > 0 {
        std::thread::sleep(Duration::from_millis(pause_ms));
    }
    let _ = s.write_all(&bytes[at..]);
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
