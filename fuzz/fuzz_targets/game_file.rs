//! The game-file parser: any text parses or is refused; what parses prints back to the
//! same file; and replaying it against a small pack fails cleanly or plays.

#![no_main]

use std::sync::{Arc, OnceLock};

use crown_engine::content::Pack;
use crown_engine::load::{load_pack, LoadOptions, Project};
use crown_engine::game::record::GameFile;
use libfuzzer_sys::fuzz_target;

fn pack() -> &'static Arc<Pack> {
    static PACK: OnceLock<Arc<Pack>> = OnceLock::new();
    PACK.get_or_init(|| {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/invalid/_base/tiny");
        Arc::new(load_pack(&Project::new(root), "tiny", LoadOptions::default()).pack.expect("the tiny pack loads"))
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(g) = GameFile::parse(text) else {
        return;
    };
    let again = GameFile::parse(&g.to_toml()).expect("a printed game file parses");
    assert_eq!(again, g, "a game file prints back to itself");
    // Keep replays short: a game is at most a few dozen choices in the tiny pack.
    if g.players.len() <= 8 && g.choices.len() <= 200 {
        let _ = g.replay(pack().clone());
    }
});
