//! Host functions: Definitions by id: their fields, faces and costs, as written in the pack.

use super::cards::face_map;
use super::*;

/// The name of the rules' hook that works out per-definition data when the pack is loaded
/// (`prepare(id)`, read back with `prepared`).
pub const PREPARE_HOOK: &str = "prepare";

pub(super) fn register(e: &mut Registrar) {
    /// Register a function of a definition's id that gives its field `f`.
    fn def_field<T: Clone + Send + Sync + 'static>(
        e: &mut Registrar,
        signature: &str,
        text: &'static str,
        f: fn(&crate::content::model::Definition) -> T,
    ) {
        e.register_fn(signature, text, move |id: ImmutableString| {
            settled(|g| Ok(f(&g.pack.defs[def_idx(g, &id)? as usize].def)))
        });
    }
    e.section("Definitions");
    e.register_fn(
        "defs(kind)",
        "Ids of every `card`, `plaque`, `noble` or `leader` definition, sorted by id (reordering files never \
         changes a game).",
        |kind: ImmutableString| {
            settled(|g| {
                let k = DefKind::ALL
                    .into_iter()
                    .find(|k| k.as_str() == kind.as_str())
                    .ok_or_else(|| format!("`{kind}` is not card, plaque, noble or leader"))?;
                Ok(g.pack.defs_of(k).map(|d| Dynamic::from(d.def.id.clone())).collect::<Array>())
            })
        },
    );
    e.register_fn(
        "defs_in_deck(deck)",
        "Ids of definitions listing `deck` in their `decks`.",
        |deck: ImmutableString| {
            settled(|g| {
                let w = g.pack.words();
                let listed = w.decks.get(deck.as_str()).map_or(&[][..], Vec::as_slice);
                Ok(listed.iter().map(|&i| Dynamic::from(w.id[i as usize].clone())).collect::<Array>())
            })
        },
    );
    e.register_fn("def_exists(id)", "Whether a definition `id` exists.", |id: ImmutableString| {
        settled(|g| Ok(g.pack.words().by_id.contains_key(id.as_str())))
    });
    e.register_fn(
        "pack_keywords()",
        "Every keyword a definition of the pack carries, on any face, sorted, each once.",
        || {
            settled(|g| {
                let mut all = std::collections::BTreeSet::new();
                for d in &g.pack.defs {
                    let d = &d.def;
                    // A back has no keywords of its own: it keeps the definition's.
                    all.extend(d.keywords.iter().chain(d.stages.iter().flat_map(|s| &s.keywords)).map(String::as_str));
                }
                Ok(all.into_iter().map(|k| Dynamic::from(k.to_string())).collect::<Array>())
            })
        },
    );
    e.register_fn(
        "prepared(id)",
        "What the rules' `prepare(id)` worked out for definition `id` when the pack was loaded (a notation parsed \
         once, say); an error when the rules define no `prepare`.",
        |id: ImmutableString| settled(|g| prepared(g, &id).cloned()),
    );
    e.register_fn(
        "prepared(id, key)",
        "One entry of the map `prepare(id)` gave (`prepared(def_of(c), stage(c))`); an error naming the keys it has \
         when `key` is not one.",
        |id: ImmutableString, key: ImmutableString| {
            settled(|g| {
                let what = || format!("`prepare(\"{id}\")`");
                with_entry(prepared(g, &id)?, &key, what, "read it whole with prepared(id)", |e| Ok(e.clone()))
            })
        },
    );
    // One field of an entry, without copying the entry's other fields.
    e.register_fn(
        "prepared(id, key, field)",
        "One field of that entry, when the entry is a map (`prepared(def_of(c), stage(c), \"fx\")`), without \
         copying its other fields; an error naming the fields it has when `field` is not one.",
        |id: ImmutableString, key: ImmutableString, field: ImmutableString| {
            settled(|g| {
                let what = || format!("`prepare(\"{id}\")`");
                with_entry(prepared(g, &id)?, &key, what, "read it whole with prepared(id)", |e| {
                    with_entry(
                        e,
                        &field,
                        || format!("{}'s `{key}`", what()),
                        "read it whole with prepared(id, key)",
                        |x| Ok(x.clone()),
                    )
                })
            })
        },
    );
    e.register_fn("def_name(id)", "Printed name.", |id: ImmutableString| {
        settled(|g| Ok(g.pack.words().name[def_idx(g, &id)? as usize].clone()))
    });
    e.register_fn("def_kind(id)", "Kind.", |id: ImmutableString| {
        settled(|g| Ok(g.pack.words().kind[def_idx(g, &id)? as usize].clone()))
    });
    def_field(e, "def_count(id)", "Copies.", |d| d.count);
    def_field(e, "def_text(id)", "Rules text.", |d| d.text.clone());
    e.register_fn(
        "def_value(id, k)",
        "A named value of the definition (its front); an error when it has none.",
        |id: ImmutableString, k: ImmutableString| {
            settled(|g| {
                let d = &g.pack.defs[def_idx(g, &id)? as usize].def;
                d.values.get(k.as_str()).copied().ok_or_else(|| {
                    format!("`{id}` has no value `{k}`; use def_value_or(id, \"{k}\", 0) where it may be missing")
                })
            })
        },
    );
    e.register_fn(
        "def_value_or(id, k, default)",
        "As `def_value`, giving `default` when the definition has no such value.",
        |id: ImmutableString, k: ImmutableString, dflt: i64| {
            settled(|g| Ok(g.pack.defs[def_idx(g, &id)? as usize].def.values.get(k.as_str()).copied().unwrap_or(dflt)))
        },
    );
    e.register_fn(
        "def_back(id)",
        "The definition's back face as written in its `back` table: `name`, `text`, `values`, `cost`, `attrs` (an \
         error if it has none).",
        |id: ImmutableString| {
            settled(|g| {
                let d = &g.pack.defs[def_idx(g, &id)? as usize].def;
                let b = d
                    .back
                    .as_ref()
                    .ok_or_else(|| format!("`{id}` has no back face (a `back` table in its definition)"))?;
                Ok(face_map(
                    "back",
                    if b.name.is_empty() { &d.name } else { &b.name },
                    &[],
                    &b.values,
                    &b.cost,
                    &b.attrs,
                    &b.text,
                ))
            })
        },
    );
    e.register_fn(
        "did_you_mean(word, names)",
        "The name among `names` nearest to `word` (a likely typo of it), or \"\" when none is near: for the hints a \
         `validate` hook gives.",
        |word: ImmutableString, known: Array| {
            let names: Vec<String> = known.iter().map(|k| k.to_string()).collect();
            crate::diag::did_you_mean(&word, names.iter().map(String::as_str)).unwrap_or("").to_string()
        },
    );
    e.register_fn(
        "def_faces(id)",
        "Every face of the definition as written in its file, in order: its stages (or the definition itself as \
         `front`), then its `back` table. Each is a map: `face` (`front`, `front-top`..., `back`), `name`, \
         `keywords`, `values`, `cost`, `attrs`, `text`, `effects` (its own, as `effects(c)` reads them) and \
         `upgrades` (a stage's, as `upgrades(c)` gives them: what the stage leads to; empty for other faces); a \
         tile's front also has `cells`, each `#{ x, y, terrain, values }` as written.",
        |id: ImmutableString| {
            settled(|g| {
                let i = def_idx(g, &id)? as usize;
                let d = &g.pack.defs[i].def;
                let fx = &g.pack.words().effects[i];
                let mut out = Array::new();
                let with_upgrades = |mut m: Map, ups: Array, effects: &Dynamic| {
                    m.insert("upgrades".into(), Dynamic::from(ups));
                    m.insert("effects".into(), effects.clone());
                    Dynamic::from(m)
                };
                if d.stages.is_empty() {
                    let mut m = face_map("front", &d.name, &d.keywords, &d.values, &d.cost, &d.attrs, &d.text);
                    if !d.cells.is_empty() {
                        m.insert("cells".into(), Dynamic::from_array(d.cells.iter().map(cell_map).collect()));
                    }
                    out.push(with_upgrades(m, Array::new(), &fx.own));
                }
                for (st, effects) in d.stages.iter().zip(&fx.stages) {
                    let empty = std::collections::BTreeMap::new();
                    let m =
                        face_map(st.position.as_str(), &st.name, &st.keywords, &st.values, &empty, &st.attrs, &st.text);
                    out.push(with_upgrades(m, super::cards::upgrade_maps(st.position, &st.upgrades), effects));
                }
                if let Some(b) = &d.back {
                    let name = if b.name.is_empty() { &d.name } else { &b.name };
                    out.push(with_upgrades(
                        face_map("back", name, &[], &b.values, &b.cost, &b.attrs, &b.text),
                        Array::new(),
                        &fx.back,
                    ));
                }
                Ok(out)
            })
        },
    );
    e.register_fn(
        "def_cost(id)",
        "What the definition costs, as written in its `cost` table: resource -> amount (empty if it has none).",
        |id: ImmutableString| {
            settled(|g| {
                let d = &g.pack.defs[def_idx(g, &id)? as usize].def;
                Ok(d.cost.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect::<Map>())
            })
        },
    );
    e.register_fn(
        "def_attr(id, k)",
        "A named attribute (\"\" if unset).",
        |id: ImmutableString, k: ImmutableString| {
            settled(|g| {
                Ok(g.pack.defs[def_idx(g, &id)? as usize].def.attrs.get(k.as_str()).cloned().unwrap_or_default())
            })
        },
    );
    e.register_fn(
        "def_has_keyword(id, k)",
        "Whether the definition has keyword `k`.",
        |id: ImmutableString, k: ImmutableString| {
            settled(|g| Ok(g.pack.defs[def_idx(g, &id)? as usize].def.keywords.iter().any(|x| x == k.as_str())))
        },
    );
    def_field(e, "def_keywords(id)", "Keywords.", |d| {
        d.keywords.iter().map(|c| Dynamic::from(c.clone())).collect::<Array>()
    });
    def_field(e, "def_cards(id)", "The card ids the definition brings along (`cards`).", |d| {
        d.cards.iter().map(|c| Dynamic::from(c.clone())).collect::<Array>()
    });
    e.register_fn("def_serial(id)", "Serial number, or -1.", |id: ImmutableString| {
        settled(|g| Ok(g.pack.defs[def_idx(g, &id)? as usize].def.serial.unwrap_or(-1)))
    });
}

/// `f` of entry `key` of `v`, a map that `what()` names (else an error that says how to
/// read it instead, or which keys it has).
fn with_entry<T>(
    v: &Dynamic,
    key: &str,
    what: impl Fn() -> String,
    instead: &str,
    f: impl FnOnce(&Dynamic) -> Result<T, String>,
) -> Result<T, String> {
    let m = v.read_lock::<Map>().ok_or_else(|| format!("{} gave {}, not a map: {instead}", what(), v.type_name()))?;
    let e = m.get(key).ok_or_else(|| {
        let keys: Vec<&str> = m.keys().map(|k| k.as_str()).collect();
        format!("{} gave no `{key}` (it gave: {})", what(), keys.join(", "))
    })?;
    f(e)
}

/// What `prepare(id)` gave for definition `id` when the pack was loaded.
fn prepared<'g>(g: &'g Game, id: &str) -> Result<&'g Dynamic, String> {
    def_idx(g, id)?;
    g.pack.prepared.get(id).ok_or_else(|| {
        if g.pack.rules_define(PREPARE_HOOK) {
            format!("`prepare(\"{id}\")` has not run (the pack is being checked)")
        } else {
            "the rules define no `prepare(id)` to read from: define it to work out data once per definition".to_string()
        }
    })
}

/// One cell of a tile as written (`def_faces`): `#{ x, y, terrain, values }`.
fn cell_map(c: &crate::content::model::TileCell) -> Dynamic {
    let mut m = Map::new();
    m.insert("x".into(), Dynamic::from(c.x));
    m.insert("y".into(), Dynamic::from(c.y));
    m.insert("terrain".into(), Dynamic::from(c.terrain.clone()));
    let values: Map = c.values.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect();
    m.insert("values".into(), Dynamic::from_map(values));
    Dynamic::from_map(m)
}
