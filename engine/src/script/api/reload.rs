//! Live pack reloading: between choices, a game takes the reloaded pack (card instances
//! keep their state), and its transcript says what changed.

use std::sync::Arc;

use super::{refresh_def_ids, with};
use crate::content::Pack;
use crate::game::Game;

/// Before a choice: take the pack the game's reload hook gives, if it gives one.
pub(super) fn maybe_reload() {
    let hook = with(|g| Ok(g.reload.take())).ok().flatten();
    let Some(mut hook) = hook else { return };
    let new = hook();
    let _ = with(|g| {
        g.reload = Some(hook);
        if let Some(pack) = new {
            swap_pack(g, pack);
        }
        Ok(())
    });
}

/// Continue the game with a reloaded pack: card instances keep their state and take
/// their definition's new values and script. A reload that removed a definition still in
/// play is refused and logged.
pub fn swap_pack(g: &mut Game, pack: Arc<Pack>) {
    crate::script::compiled::memo::new_game();
    let mut map = Vec::with_capacity(g.pack.defs.len());
    for d in &g.pack.defs {
        map.push(pack.index.get(&d.def.id).map(|&i| i as u32));
    }
    let mut missing: Vec<String> = Vec::new();
    let used = g.state.cards.iter().map(|c| c.def).chain(g.state.players.iter().filter_map(|p| p.character));
    for d in used {
        if map[d as usize].is_none() {
            let id = g.pack.defs[d as usize].def.id.clone();
            if !missing.contains(&id) {
                missing.push(id);
            }
        }
    }
    if !missing.is_empty() {
        g.log(|_| {
            format!(
                "reload refused: {} removed while in play; the game keeps the previous definitions",
                missing.join(", ")
            )
        });
        return;
    }
    for c in &mut g.state.cards {
        c.def = map[c.def as usize].unwrap_or(c.def);
    }
    for p in &mut g.state.players {
        p.character = p.character.map(|d| map[d as usize].unwrap_or(d));
    }
    g.tally.renumber(|d| map[d as usize].unwrap_or(d));
    // What scripts worked out from the old definitions (globals named `cache:...`) is
    // worked out again from the new ones.
    g.state.globals.retain(|k, _| !k.starts_with(crate::game::save::CACHE_PREFIX));
    let version = pack.manifest.version.clone();
    let what = reload_changes(&g.pack, &pack);
    refresh_def_ids(&pack);
    g.pack = pack;
    g.log(|_| format!("reload: definitions and scripts reloaded (version {version}){what}"));
}

/// What a reload changed, for its transcript line: `: changed a, b; added c; removed d;
/// rules script changed` (empty when nothing did). A definition changed when its TOML or
/// its script's text did.
fn reload_changes(old: &Pack, new: &Pack) -> String {
    let script_hash = |p: &Pack, d: &crate::content::Def| d.script.map(|i| p.scripts[i].hash);
    let (mut changed, mut added) = (Vec::new(), Vec::new());
    for d in &new.defs {
        match old.index.get(&d.def.id).map(|&i| &old.defs[i]) {
            Some(o) if o.def != d.def || script_hash(old, o) != script_hash(new, d) => changed.push(d.def.id.as_str()),
            Some(_) => {}
            None => added.push(d.def.id.as_str()),
        }
    }
    let removed: Vec<&str> =
        old.defs.iter().filter(|d| !new.index.contains_key(&d.def.id)).map(|d| d.def.id.as_str()).collect();
    let mut parts = Vec::new();
    for (word, ids) in [("changed", changed), ("added", added), ("removed", removed)] {
        if !ids.is_empty() {
            parts.push(format!("{word} {}", ids.join(", ")));
        }
    }
    if old.rules_hash() != new.rules_hash() {
        parts.push("rules script changed".into());
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tiny_game;
    use super::*;
    use rhai::Dynamic;

    #[test]
    fn a_reload_drops_cache_globals_and_keeps_the_others() {
        let mut game = tiny_game("reload-cache");
        game.state.globals.insert("cache:fx:a".into(), Dynamic::from(1_i64));
        game.state.globals.insert("score".into(), Dynamic::from(2_i64));
        let pack = game.pack.clone();
        swap_pack(&mut game, pack);
        let keys: Vec<&String> = game.state.globals.keys().collect();
        assert_eq!(keys, ["score"]);
        // Nothing changed, so the reload line names nothing.
        let last = game.transcript.as_ref().and_then(|t| t.last()).unwrap();
        assert_eq!(last, "reload: definitions and scripts reloaded (version 1)");
    }
}
