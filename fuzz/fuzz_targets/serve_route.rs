//! The preview server's request handling (`crown serve`): any method, path and `Host`
//! header is routed to a page, a face or a refusal, never a panic; a face name is only
//! ever decoded from well-formed escapes.

#![no_main]

use crown_tools::serve::{percent_decode, route, Reply};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Three fields separated by NUL bytes: method, path, Host (absent when missing).
    let mut parts = data.splitn(3, |b| *b == 0);
    let method = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let path = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let host = parts.next();
    let port = 7878;
    match route(&method, &path, host, port) {
        Reply::Face(name) => {
            let encoded = &path["/face/".len()..path.len() - ".svg".len()];
            assert_eq!(percent_decode(encoded).as_deref(), Some(name.as_str()));
        }
        Reply::Refused(code, _) => assert!((400..500).contains(&code)),
        Reply::Page | Reply::Fragment | Reply::Events | Reply::PlayPage => {
            assert!(crown_tools::serve::host_allowed(host, port));
        }
        Reply::Play(call) => {
            assert!(crown_tools::serve::host_allowed(host, port));
            // Game actions are POST requests, the game's state a GET.
            let post = call != crown_tools::serve::PlayCall::State;
            assert_eq!(method == "POST", post);
        }
    }
});
