//! The names a pack declares, for the checks of names scripts spell out in strings.

use crate::content::model::{BoardFile, PackManifest};
use crate::content::{Def, ScenarioEntry, Script};

/// Every name the pack declares, by kind, for the checks of names scripts spell out.
pub(super) fn declared_names(
    manifest: &PackManifest,
    defs: &[Def],
    scenarios: &[ScenarioEntry],
    board: Option<&BoardFile>,
    scripts: &[Script],
) -> crate::script::lint::Declared {
    use crate::script::lint::Names;
    let mut d = crate::script::lint::Declared::default();
    d.add(Names::Id, defs.iter().map(|x| x.def.id.clone()));
    for x in defs {
        let def = &x.def;
        d.add(Names::ValueKey, def.values.keys().cloned());
        d.add(Names::AttrKey, def.attrs.keys().cloned());
        d.add(Names::Keyword, def.keywords.iter().cloned());
        d.add(Names::Deck, def.decks.iter().cloned());
        for st in &def.stages {
            d.add(Names::ValueKey, st.values.keys().cloned());
            d.add(Names::AttrKey, st.attrs.keys().cloned());
            d.add(Names::Keyword, st.keywords.iter().cloned());
        }
        if let Some(b) = &def.back {
            d.add(Names::ValueKey, b.values.keys().cloned());
            d.add(Names::AttrKey, b.attrs.keys().cloned());
        }
    }
    d.add(Names::OptionKey, manifest.options.keys().cloned());
    d.add(Names::Phase, manifest.phases.iter().cloned());
    for sc in scenarios {
        d.add(Names::OptionKey, sc.scenario.options.keys().cloned());
        d.add(Names::SeatValue, sc.scenario.seat.iter().flat_map(|s| s.values.keys().cloned()));
    }
    // A tile laid on a `[[board]]` board gives its squares `terrain`, `tile` and its
    // cells' values.
    let tiles = defs.iter().filter(|x| !x.def.cells.is_empty());
    d.add(Names::SpaceKey, tiles.flat_map(|x| x.def.cells.iter().flat_map(|c| c.values.keys().cloned())));
    if let Some(b) = board {
        if b.grid.is_some() || !b.board.is_empty() {
            // Every tile of a grid board has its legend's `terrain`, and so has every
            // filled square of a `[[board]]` board.
            d.add(Names::SpaceKey, ["terrain".to_string()]);
        }
        if !b.board.is_empty() {
            d.add(Names::SpaceKey, ["tile".to_string()]);
        }
        d.add(Names::Supply, b.supply.iter().map(|s| s.id.clone()));
        d.add(Names::SpaceKey, b.space.iter().flat_map(|s| s.values.keys().chain(s.attrs.keys()).cloned()));
    }
    d.add(Names::Counter, manifest.show_counters.iter().cloned());
    d.add(Names::Counter, manifest.counter_names.keys().cloned());
    d.add(Names::Counter, manifest.counter_ranges.keys().cloned());
    // So do the names the pack's vocabulary declares.
    for v in manifest.vocabulary.values() {
        d.add(Names::ValueKey, v.values.iter().flat_map(|m| m.keys().cloned()));
        d.add(Names::AttrKey, v.attrs.iter().flat_map(|m| m.keys().cloned()));
        d.add(Names::Keyword, v.keywords.iter().flatten().cloned());
    }
    // Names `[check.allow]` accepts count as declared (and as did-you-mean candidates).
    for (code, names) in &manifest.check.allow {
        if let Some(kind) = crate::script::lint::names_of_code(code) {
            d.add(kind, names.iter().filter(|n| *n != "*").cloned());
        }
    }
    d.add_scripts(scripts.iter().map(|s| s.references.as_ref()));
    // What `invoke` and `fold` may call: every function a script of the pack defines.
    d.add(Names::Hook, scripts.iter().flat_map(|s| s.functions.iter().cloned()));
    d
}
