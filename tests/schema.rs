//! Every shipped content file validates against the JSON Schema `crown schema` writes,
//! checked by an independent validator (the `jsonschema` crate), and starts with a
//! `#:schema` line pointing at that schema; ids and counts follow the loader; a pack's own
//! schemas (`crown schema --pack`) carry its vocabulary.

use crown_engine::content::schema;

#[test]
fn shipped_content_matches_the_json_schemas() {
    let project = crate::common::repo_project();
    let schemas: std::collections::BTreeMap<&str, serde_json::Value> =
        schema::all().into_iter().map(|(n, s)| (n, serde_json::to_value(&s).unwrap())).collect();
    let mut checked = 0;
    let mut problems = Vec::new();
    for pack in project.pack_ids() {
        let dir = project.pack_dir(&pack);
        for e in walkdir::WalkDir::new(&dir).sort_by_file_name().into_iter().flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let rel = path.strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/");
            let Some(name) = schema::schema_for_file(&rel) else { continue };
            let text = std::fs::read_to_string(path).unwrap();
            let value: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let json = serde_json::to_value(value).unwrap();
            let validator = jsonschema::validator_for(&schemas[name]).unwrap();
            for err in validator.iter_errors(&json) {
                problems.push(format!("{}: {} at {}", path.display(), err, err.instance_path()));
            }
            let first = text.lines().next().unwrap_or("");
            let want_suffix = format!("docs/schema/{name}");
            if !(first.starts_with("#:schema ") && first.ends_with(&want_suffix)) {
                problems.push(format!("{}: first line should be `#:schema .../{want_suffix}`", path.display()));
            } else {
                let target = path.parent().unwrap().join(first.trim_start_matches("#:schema ").trim());
                if !target.is_file() {
                    problems.push(format!("{}: `#:schema` path does not resolve to a file", path.display()));
                }
            }
            checked += 1;
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 10, "only {checked} files checked");
}

#[test]
fn schema_files_are_current() {
    let project = crate::common::repo_project();
    for (name, s) in schema::all() {
        let have = std::fs::read_to_string(project.root.join("docs/schema").join(name)).unwrap_or_default();
        assert_eq!(have, schema::to_json(&s), "docs/schema/{name} is stale: run `crown schema`");
    }
}

#[test]
fn a_wrong_file_fails_the_schema() {
    let schemas: std::collections::BTreeMap<&str, serde_json::Value> =
        schema::all().into_iter().map(|(n, s)| (n, serde_json::to_value(&s).unwrap())).collect();
    let bad: toml::Value = toml::from_str("[[card]]\nid = \"x\"\nname = \"X\"\ncout = 2\n").unwrap();
    let v = jsonschema::validator_for(&schemas["cards.schema.json"]).unwrap();
    assert!(!v.is_valid(&serde_json::to_value(bad).unwrap()));
}

/// The schemas carry what the loader accepts for ids and counts.
#[test]
fn ids_and_counts_follow_what_the_loader_accepts() {
    let schemas: std::collections::BTreeMap<&str, serde_json::Value> =
        schema::all().into_iter().map(|(n, s)| (n, serde_json::to_value(&s).unwrap())).collect();
    let check = |file: &str, text: &str| {
        let v = jsonschema::validator_for(&schemas[file]).unwrap();
        v.is_valid(&serde_json::to_value(toml::from_str::<toml::Value>(text).unwrap()).unwrap())
    };
    let card = |id: &str, count: i64| format!("[[card]]\nid = \"{id}\"\nname = \"X\"\ncount = {count}\n");
    assert!(check("cards.schema.json", &card("gold_coin-2", 0)));
    assert!(check("cards.schema.json", &card(&"a".repeat(64), 10_000)));
    for (id, count) in [("Gold Coin", 1), ("", 1), ("gold", -1), ("gold", 10_001), (&*"a".repeat(65), 1)] {
        assert!(!check("cards.schema.json", &card(id, count)), "{id:?} {count}");
    }
    assert!(!check("scenario.schema.json", "id = \"Solo Game\"\nname = \"S\"\n"));
    assert!(!check("board.schema.json", "[[supply]]\nid = \"danes\"\ncount = 100001\n"));
    assert!(check("board.schema.json", "[[space]]\nid = \"3,4\"\nname = \"S\"\n"));
}

/// A pack's own schemas (`crown schema --pack`): every shipped file satisfies its pack's,
/// and a key its vocabulary does not declare, a value out of range, a text not allowed or
/// a missing required value fails.
#[test]
fn pack_schemas_carry_the_vocabulary() {
    let project = crate::common::repo_project();
    for pack in project.pack_ids() {
        let loaded = crown_engine::load::load_pack(&project, &pack, crown_engine::load::LoadOptions::default());
        let p = loaded.pack.unwrap();
        let schemas: std::collections::BTreeMap<&str, serde_json::Value> =
            schema::for_pack(&p.manifest).into_iter().map(|(n, s)| (n, serde_json::to_value(&s).unwrap())).collect();
        let dir = project.pack_dir(&pack);
        for e in walkdir::WalkDir::new(&dir).into_iter().flatten() {
            let rel = e.path().strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/");
            let Some(name) = schema::schema_for_file(&rel).filter(|_| rel.ends_with(".toml")) else { continue };
            let text = std::fs::read_to_string(e.path()).unwrap();
            let json = serde_json::to_value(toml::from_str::<toml::Value>(&text).unwrap()).unwrap();
            let v = jsonschema::validator_for(&schemas[name]).unwrap();
            let errors: Vec<String> = v.iter_errors(&json).map(|e| format!("{e} at {}", e.instance_path())).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", e.path().display());
        }
    }
    let manifest: crown_engine::content::model::PackManifest = toml::from_str(
        "id = \"x\"\nname = \"X\"\nversion = \"1\"\nplayers = { min = 1, max = 2 }\n[vocabulary.card]\n\
         values = { attack = { min = 0, max = 9, required = true }, solo = [] }\nattrs = { side = [\"a\", \"b\"] }\n\
         keywords = [\"troops\"]\ncosts = [\"gold\"]\n[vocabulary.card.effects]\n\
         kind = { type = \"word\", words = [\"strike\"], required = true }\nn = { type = \"number\", range = [1, 3] }\n",
    )
    .unwrap();
    let cards = schema::for_pack(&manifest).into_iter().find(|(n, _)| *n == "cards.schema.json").unwrap().1;
    let v = jsonschema::validator_for(&serde_json::to_value(&cards).unwrap()).unwrap();
    let ok = |body: &str| {
        let text = format!("[[card]]\nid = \"x\"\nname = \"X\"\n{body}");
        v.is_valid(&serde_json::to_value(toml::from_str::<toml::Value>(&text).unwrap()).unwrap())
    };
    assert!(ok(
        "values = { attack = 2, solo = -4 }\nattrs = { side = \"a\" }\nkeywords = [\"troops\"]\ncost = { gold = 1 }\n"
    ));
    assert!(ok("[[card.stages]]\nposition = \"front-top\"\nname = \"X\"\nvalues = { attack = 1 }\n"));
    assert!(ok("values = { attack = 1 }\neffects = [{ kind = \"strike\", n = 2 }]\n"));
    for bad in [
        "values = { atack = 2 }\n",
        "values = { attack = 10 }\n",
        "values = { solo = 1 }\n",
        "values = { attack = 1 }\nattrs = { side = \"c\" }\n",
        "values = { attack = 1 }\nkeywords = [\"trops\"]\n",
        "values = { attack = 1 }\ncost = { wood = 1 }\n",
        "values = { attack = 1 }\nback = { name = \"B\" }\n",
        "[[card.stages]]\nposition = \"front-top\"\nname = \"X\"\n",
        "values = { attack = 1 }\neffects = [{ knid = \"strike\" }]\n",
        "values = { attack = 1 }\neffects = [{ kind = \"strkie\" }]\n",
        "values = { attack = 1 }\neffects = [{ kind = \"strike\", n = 4 }]\n",
    ] {
        assert!(!ok(bad), "{bad}");
    }
}
