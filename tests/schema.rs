//! Every shipped content file validates against the JSON Schema `crown schema` writes,
//! checked by an independent validator (the `jsonschema` crate), and starts with a
//! `#:schema` line pointing at that schema.

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
