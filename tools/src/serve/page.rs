//! The game page (`/play`): a form to start a game, then the table, the options as
//! buttons, the narrated log with every decision a step one can go back to, and saving
//! the game as a golden game. Everything it shows comes from `/play/state` (JSON, see
//! [`super::game::View`]); the cards are the printed faces (`/face/PACK/ID.svg`).
//!
//! The page itself is `assets/play.html`, `play.css` and `play.js`; this fills in the packs.

use super::{assets, Play};
use crate::out::html_escape;

/// The page, with the packs a game can be started with.
pub fn play_page(play: &Play) -> String {
    let mut packs = Vec::new();
    if let Ok(p) = play.packs.lock() {
        for (id, pack) in p.iter() {
            let scenarios: Vec<serde_json::Value> = pack
                .scenarios
                .iter()
                .map(|s| serde_json::json!({ "id": s.scenario.id, "name": s.scenario.name }))
                .collect();
            packs.push(serde_json::json!({
                "id": id,
                "name": pack.manifest.name,
                "min": pack.manifest.players.min,
                "max": pack.manifest.players.max,
                "scenarios": scenarios,
                "default": pack.default_scenario().map(|s| s.scenario.id.clone()),
            }));
        }
    }
    // The JSON goes into a script element: `</` must not close it.
    let packs = serde_json::Value::Array(packs).to_string().replace("</", "<\\/");
    assets::PLAY.replace("@PACKS@", &packs).replace("@TITLE@", &html_escape("Crown: play"))
}
