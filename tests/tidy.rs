//! The structure rules `docs/ARCHITECTURE.md` states, checked on the source text (as
//! rust-analyzer's tidy tests do), so the map cannot drift from the code:
//!
//! - the top-level modules of `engine/src` and of `tools/src` import each other one way
//!   only: the graph of their `crate::`/`super::` paths has no cycle (test code, which may
//!   use anything in its crate, left out); between the files of one module too, but for the
//!   pairs ARCHITECTURE.md lists with their reasons;
//! - the engine's modules use only the layers ARCHITECTURE.md lists below them;
//! - a command (`tools/src/commands/<cmd>.rs`) never imports another command, and no
//!   service imports a command;
//! - every `.rs` file under `engine/src`, `engine/alloc/src`, `tools/src`, `engine/native/src` and
//!   `xtask/src` is named in ARCHITECTURE.md by its path from its crate's `src/`;
//! - no source file is over 1,000 lines (test tables and the native game copy aside).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, as paths relative to it with `/`, sorted.
fn rust_files(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.path().strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"))
        .collect();
    out.sort();
    out
}

/// The module path of a file relative to `src/` (`script/api/run.rs` -> `script::api::run`).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The source with comments and the contents of string and char literals blanked out, so
/// that a path in a doc comment or a message is not taken for an import.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#')) && !ident_before(b, i) {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            j += 1;
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.len();
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if b[i] == b'\'' && is_char_literal(b, i) {
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            out.push_str("' '");
            i += 1;
        } else {
            let ch = src[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// `'a'`, `'\n'`, `'\u{1F600}'` and not a lifetime (`'a`, `'static`).
fn is_char_literal(b: &[u8], i: usize) -> bool {
    match b.get(i + 1) {
        Some(b'\\') => true,
        Some(_) => {
            // One character (possibly multi-byte) then a closing quote.
            let rest = &b[i + 1..];
            let len = match rest[0] {
                c if c < 0x80 => 1,
                c if c >= 0xF0 => 4,
                c if c >= 0xE0 => 3,
                _ => 2,
            };
            rest.get(len) == Some(&b'\'')
        }
        None => false,
    }
}

/// The end (exclusive) of the item starting at `i`: through its matching `}` when a `{`
/// comes before any `;`, else through the `;`.
fn item_end(s: &str, i: usize) -> usize {
    let b = s.as_bytes();
    let mut j = i;
    while j < b.len() && b[j] != b'{' && b[j] != b';' {
        j += 1;
    }
    if j >= b.len() || b[j] == b';' {
        return (j + 1).min(b.len());
    }
    let mut depth = 0;
    while j < b.len() {
        match b[j] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// The code without its `#[cfg(test)]` items, and the names of the modules declared
/// test-only in it (`#[cfg(test)] mod cases;`, whose files are test code too).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_mods = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let end = item_end(after, 0);
        let item = after[..end].trim();
        if let Some(name) = item.strip_prefix("mod ").or_else(|| item.strip_prefix("pub mod ")) {
            if let Some(name) = name.strip_suffix(';') {
                test_mods.push(name.trim().to_string());
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    (out, test_mods)
}

/// The paths a file's code names through `crate::` and `super::`, whole: `crate::a::b::f`
/// names `a::b::f`, and a `use` group names each of its entries, nested groups included
/// (`crate::{a::b, c::{d, self}}` names `a::b`, `c::d` and `c`). [`resolve`] then finds the
/// module each path is in, so that a file naming a function of another module's file is an
/// edge to that file, not to the top of its crate.
fn named_paths(code: &str, module: &[String]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let starts = |kw: &str| code[i..].starts_with(kw) && !ident_before(b, i);
        let (base, j) = if starts("crate::") {
            (Vec::new(), i + "crate::".len())
        } else if starts("super::") {
            // `super` of `a/b/c.rs` (module a::b::c) is a::b; of `a/b/mod.rs` (a::b) it is a.
            let mut up = 1;
            let mut j = i + "super::".len();
            while code[j..].starts_with("super::") {
                up += 1;
                j += "super::".len();
            }
            (module[..module.len().saturating_sub(up)].to_vec(), j)
        } else {
            i += 1;
            continue;
        };
        let end = read_path(code, j, base, &mut out);
        i = end.max(i + 1);
    }
    out
}

/// Read the path at byte `j` of `code` (segments `a::b::c`, perhaps ending in a group
/// `{...}`), after `base`, into `out`; the byte where it ends.
fn read_path(code: &str, mut j: usize, mut base: Vec<String>, out: &mut BTreeSet<Vec<String>>) -> usize {
    loop {
        if code[j..].starts_with('{') {
            let close = group_end(code, j);
            for entry in group_entries(&code[j + 1..close]) {
                let entry = entry.trim();
                if entry == "self" {
                    if !base.is_empty() {
                        out.insert(base.clone());
                    }
                } else {
                    read_path(entry, 0, base.clone(), out);
                }
            }
            return close + 1;
        }
        let name: String = code[j..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            if !base.is_empty() {
                out.insert(base);
            }
            return j;
        }
        j += name.len();
        base.push(name);
        if code[j..].starts_with("::") {
            j += "::".len();
        } else {
            out.insert(base);
            return j;
        }
    }
}

/// The byte of the `}` closing the group that opens at byte `open` (or the end of `code`).
fn group_end(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (k, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + k;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The top-level entries of a group's inside (`a::b, c::{d, e}` gives `a::b` and
/// `c::{d, e}`).
fn group_entries(inside: &str) -> Vec<&str> {
    let mut entries = Vec::new();
    let mut depth = 0;
    let mut from = 0;
    for (k, c) in inside.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                entries.push(&inside[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    entries.push(&inside[from..]);
    entries.into_iter().filter(|e| !e.trim().is_empty()).collect()
}

/// One crate's source: for each non-test file (relative to `src/`), the top-level
/// modules of the crate its code names, and the full paths it names.
struct CrateSource {
    files: BTreeMap<String, BTreeSet<Vec<String>>>,
    modules: BTreeSet<Vec<String>>,
    /// Each non-test file's code, comments and literals blanked (see [`code_only`]).
    code: BTreeMap<String, String>,
}

fn read_crate(src: &Path) -> CrateSource {
    let rels = rust_files(src);
    let mut test_files = BTreeSet::new();
    let mut parsed = BTreeMap::new();
    for rel in &rels {
        let text = std::fs::read_to_string(src.join(rel)).unwrap();
        let (code, test_mods) = without_tests(&code_only(&text));
        let module = module_of(rel);
        for m in test_mods {
            let mut p = module.clone();
            p.push(m);
            test_files.insert(p);
        }
        parsed.insert(rel.clone(), (module, code));
    }
    let modules: BTreeSet<Vec<String>> = parsed.values().map(|(m, _)| m.clone()).collect();
    let mut files = BTreeMap::new();
    let mut code_of = BTreeMap::new();
    for (rel, (module, code)) in parsed {
        if test_files.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        files.insert(rel.clone(), named_paths(&code, &module));
        code_of.insert(rel, code);
    }
    CrateSource { files, modules, code: code_of }
}

/// The longest module of the crate that `path` starts with.
fn resolve(modules: &BTreeSet<Vec<String>>, path: &[String]) -> Option<Vec<String>> {
    (1..=path.len()).rev().map(|k| path[..k].to_vec()).find(|p| modules.contains(p))
}

/// Edges between the crate's modules at `depth` (1: top-level modules), with the files
/// that make each edge.
fn module_graph(c: &CrateSource, depth: usize) -> BTreeMap<(String, String), Vec<String>> {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (rel, paths) in &c.files {
        let from = module_of(rel);
        if from.is_empty() {
            continue;
        }
        let from_key = from[..from.len().min(depth)].join("::");
        for p in paths {
            let Some(to) = resolve(&c.modules, p) else { continue };
            if to.is_empty() {
                continue;
            }
            let to_key = to[..to.len().min(depth)].join("::");
            if to_key != from_key {
                edges.entry((from_key.clone(), to_key)).or_default().push(rel.clone());
            }
        }
    }
    edges
}

/// The cycles of a graph: its strongly connected components with more than one node.
fn cycles(edges: &BTreeMap<(String, String), Vec<String>>) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        next.entry(a).or_default().push(b);
        next.entry(b).or_default();
    }
    // Reachability is small here (tens of nodes): a node is on a cycle with every node it
    // reaches that reaches it back.
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(n) = stack.pop() {
            for m in next.get(n.as_str()).into_iter().flatten() {
                if seen.insert(m.to_string()) {
                    stack.push(m.to_string());
                }
            }
        }
        seen
    };
    let all: BTreeMap<String, BTreeSet<String>> = next.keys().map(|n| (n.to_string(), reach(n))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (n, r) in &all {
        if !r.contains(n) {
            continue;
        }
        let comp: Vec<String> = r.iter().filter(|m| all[*m].contains(n)).cloned().collect();
        if !out.contains(&comp) {
            out.push(comp);
        }
    }
    out
}

fn describe(edges: &BTreeMap<(String, String), Vec<String>>, cycle: &[String]) -> String {
    let mut s = format!("import cycle between {}:", cycle.join(", "));
    for ((a, b), files) in edges {
        if cycle.contains(a) && cycle.contains(b) {
            s.push_str(&format!("\n  {a} -> {b} (in {})", files.join(", ")));
        }
    }
    s
}

#[test]
fn the_modules_of_each_crate_import_one_way() {
    let mut problems = Vec::new();
    for src in ["engine/src", "tools/src", "tools/print/src"] {
        let c = read_crate(&root().join(src));
        let edges = module_graph(&c, 1);
        for cyc in cycles(&edges) {
            problems.push(format!("{src}: {}", describe(&edges, &cyc)));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Edges between sibling modules, by their parent (`""` for the crate's top level): an
/// import from `a::b::c` of `a::d::e` is an edge `a::b -> a::d` under `a`. A module and
/// what it contains are not siblings (a `mod.rs` declares its files and they use it).
fn sibling_graphs(c: &CrateSource) -> BTreeMap<String, BTreeMap<(String, String), Vec<String>>> {
    let mut out: BTreeMap<String, BTreeMap<(String, String), Vec<String>>> = BTreeMap::new();
    for (rel, paths) in &c.files {
        let from = module_of(rel);
        for p in paths {
            let Some(to) = resolve(&c.modules, p) else { continue };
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue;
            }
            let parent = from[..common].join("::");
            let key = |m: &[String]| m[..=common].join("::");
            out.entry(parent).or_default().entry((key(&from), key(&to))).or_default().push(rel.clone());
        }
    }
    out
}

/// The import circles between the files (and folders) of one module that ARCHITECTURE.md
/// allows, each with its reason there: `crate: a <-> b` pairs.
fn allowed_circles() -> BTreeSet<(String, String, String)> {
    let map = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let Some(start) = map.find(CIRCLES_HEADING) else { return BTreeSet::new() };
    map[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let l = l.strip_prefix("- `")?;
            let (pair, _) = l.split_once('`')?;
            let (krate, pair) = pair.split_once(": ")?;
            let (a, b) = pair.split_once(" <-> ")?;
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            Some((krate.to_string(), a.to_string(), b.to_string()))
        })
        .collect()
}

/// Where ARCHITECTURE.md lists the allowed circles.
const CIRCLES_HEADING: &str = "### Import circles inside a module";

#[test]
fn the_files_of_each_module_import_one_way_or_the_map_says_why() {
    let allowed = allowed_circles();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for (krate, src) in [("engine", "engine/src"), ("tools", "tools/src"), ("print", "tools/print/src")] {
        let c = read_crate(&root().join(src));
        for (parent, edges) in sibling_graphs(&c) {
            if parent.is_empty() {
                continue; // the top level: `the_modules_of_each_crate_import_one_way`
            }
            for cyc in cycles(&edges) {
                // Every pair of the circle that imports both ways must be named.
                let mut named = true;
                for a in &cyc {
                    for b in cyc.iter().filter(|b| a < *b) {
                        let both =
                            edges.contains_key(&(a.clone(), b.clone())) && edges.contains_key(&(b.clone(), a.clone()));
                        let pair = (krate.to_string(), a.clone(), b.clone());
                        if both {
                            seen.insert(pair.clone());
                            named &= allowed.contains(&pair);
                        }
                    }
                }
                let pairs_only = cyc.len() == 2;
                if !named || !pairs_only {
                    problems.push(format!("{src}: {}", describe(&edges, &cyc)));
                }
            }
        }
    }
    for (krate, a, b) in allowed.difference(&seen) {
        problems.push(format!(
            "ARCHITECTURE.md allows `{krate}: {a} <-> {b}`, which no longer imports both ways: take it off"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The engine's layers, lowest first, as ARCHITECTURE.md lists them: a module may use
/// only the modules of earlier layers.
const ENGINE_LAYERS: &[&[&str]] = &[&["diag", "fsread"], &["content"], &["game"], &["script"], &["bots"], &["load"]];

#[test]
fn the_engine_is_in_layers() {
    let c = read_crate(&root().join("engine/src"));
    let layer_of = |m: &str| ENGINE_LAYERS.iter().position(|l| l.contains(&m));
    let mut problems = Vec::new();
    for m in c.modules.iter().filter(|m| m.len() == 1) {
        if layer_of(&m[0]).is_none() {
            problems.push(format!("engine/src: module `{}` is in no layer of ENGINE_LAYERS", m[0]));
        }
    }
    for ((from, to), files) in module_graph(&c, 1) {
        if let (Some(a), Some(b)) = (layer_of(&from), layer_of(&to)) {
            if b >= a {
                problems.push(format!("engine/src: {from} uses {to}, which is not below it (in {})", files.join(", ")));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn commands_use_services_and_never_each_other() {
    let c = read_crate(&root().join("tools/src"));
    let mut problems = Vec::new();
    for (rel, paths) in &c.files {
        let from = module_of(rel);
        let is_command = from.first().is_some_and(|m| m == "commands") && from.len() == 2;
        for p in paths {
            let Some(to) = resolve(&c.modules, p) else { continue };
            if to.first().is_none_or(|m| m != "commands") {
                continue;
            }
            if from.first().is_some_and(|m| m == "commands") && from.len() == 1 {
                continue; // commands/mod.rs lists and runs them
            }
            if from == ["lib"] || rel == "lib.rs" || rel == "main.rs" {
                continue;
            }
            if is_command {
                if to.len() >= 2 && to[1] != from[1] {
                    problems.push(format!("tools/src/{rel}: the command `{}` uses the command `{}`", from[1], to[1]));
                }
            } else {
                problems.push(format!("tools/src/{rel}: a service uses `{}`", to.join("::")));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The crates whose every file ARCHITECTURE.md maps, by their `src/` folder, and how the
/// map names their files (the print crate's as `print/...`).
const MAPPED: &[(&str, &str)] = &[
    ("engine/src", ""),
    ("engine/alloc/src", ""),
    ("engine/native/src", ""),
    ("tools/src", ""),
    ("tools/print/src", "print/"),
    ("xtask/src", ""),
];

#[test]
fn architecture_md_names_every_source_file() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    for (src, named) in MAPPED {
        for rel in rust_files(&root().join(src)) {
            if !doc.contains(&format!("`{named}{rel}`")) {
                missing.push(format!("{src}/{rel}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md does not name these files (as `path/from/src.rs` in backquotes):\n  {}",
        missing.join("\n  ")
    );
}

/// The files of `tools/` (the `crown` command and the print crate) that may write to the
/// file system themselves: the atomic writer, and the benchmarks' scratch projects (made
/// in a temporary folder, then thrown away).
const DIRECT_WRITERS: &[&str] =
    &["tools/print/src/files.rs", "tools/src/bench/project.rs", "tools/src/bench/watch.rs", "tools/print/src/bench.rs"];

/// What writes a file or prints, as code names it.
const WRITES: &[&str] = &["fs::write(", "File::create(", "OpenOptions::new("];
const PRINTS: &[&str] = &["println!", "eprintln!", "print!", "eprint!", "dbg!", "process::exit("];

#[test]
fn files_are_written_atomically_and_the_engine_never_prints() {
    let mut problems = Vec::new();
    for src in ["tools/src", "tools/print/src"] {
        for (rel, code) in read_crate(&root().join(src)).code {
            if DIRECT_WRITERS.contains(&format!("{src}/{rel}").as_str()) {
                continue;
            }
            for w in WRITES.iter().filter(|w| code.contains(*w)) {
                problems.push(format!("{src}/{rel}: `{w}`: write through `files::write_atomic`"));
            }
        }
    }
    for (rel, code) in read_crate(&root().join("engine/src")).code {
        for w in WRITES.iter().chain(PRINTS).filter(|w| code.contains(*w)) {
            problems.push(format!("engine/src/{rel}: `{w}`: the engine neither writes files nor prints"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Files allowed past the length bar: tables and the native game copy.
const LONG_ALLOWED: &[&str] = &["engine/native/src/ttk.rs"];

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let mut long = Vec::new();
    for (src, _) in MAPPED {
        for rel in rust_files(&root().join(src)) {
            let path = format!("{src}/{rel}");
            let lines = std::fs::read_to_string(root().join(&path)).unwrap().lines().count();
            if lines > 1000 && !LONG_ALLOWED.contains(&path.as_str()) {
                long.push(format!("{path}: {lines} lines"));
            }
        }
    }
    assert!(long.is_empty(), "split these files by job:\n  {}", long.join("\n  "));
}

#[test]
fn the_checker_sees_imports_cycles_and_test_code() {
    let code = code_only(
        "use crate::{a::b, c, self};\nuse super::super::d;\n// crate::nope\nlet s = \"crate::nope\";\n\
         use crate::f::{g::{h, self}, i as j};\nlet k = crate::l::m::n(1);\nlet v = super::p::Q::<u8>::new();\n\
         #[cfg(test)]\nmod tests { use crate::e; }\n#[cfg(test)]\nmod cases;\nfn f<'a>(x: &'a str) -> char { 'x' }\n",
    );
    let (code, test_mods) = without_tests(&code);
    assert_eq!(test_mods, ["cases"]);
    let module: Vec<String> = ["m", "n", "o"].iter().map(|s| s.to_string()).collect();
    let got: Vec<String> = named_paths(&code, &module).into_iter().map(|p| p.join("::")).collect();
    // Whole paths: a function of another module's file (`crate::l::m::n`) names that file.
    assert_eq!(got, ["a::b", "c", "f::g", "f::g::h", "f::i", "l::m::n", "m::d", "m::n::p::Q"]);
    let mut edges = BTreeMap::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")] {
        edges.insert((a.to_string(), b.to_string()), vec![]);
    }
    assert_eq!(cycles(&edges), vec![vec!["x".to_string(), "y".into(), "z".into()]]);
    // Files of one module: siblings by their parent; a module and its own files are not.
    let path = |p: &str| p.split("::").map(str::to_string).collect::<Vec<String>>();
    let files: BTreeMap<String, BTreeSet<Vec<String>>> = [
        ("a/x.rs", vec!["a::y::f"]),
        ("a/y.rs", vec!["a::x::g", "a::h"]),
        ("a/mod.rs", vec!["a::x::g"]),
        ("b.rs", vec!["a::x::g"]),
    ]
    .into_iter()
    .map(|(f, ps)| (f.to_string(), ps.into_iter().map(path).collect()))
    .collect();
    let modules = ["a", "a::x", "a::y", "b"].into_iter().map(path).collect();
    let graphs = sibling_graphs(&CrateSource { files, modules, code: BTreeMap::new() });
    let pairs = |parent: &str| graphs[parent].keys().map(|(a, b)| format!("{a}>{b}")).collect::<Vec<_>>();
    assert_eq!(graphs.keys().collect::<Vec<_>>(), ["", "a"]);
    assert_eq!(pairs("a"), ["a::x>a::y", "a::y>a::x"]);
    assert_eq!(pairs(""), ["b>a"]);
}

/// A constant written as a function of no arguments returning a literal (`fn SIDES() {
/// ["north", "south"] }`), the lines that hold one.
fn constant_functions(script: &str) -> Vec<String> {
    script
        .lines()
        .map(str::trim)
        .filter(|l| {
            let Some(rest) = l.strip_prefix("fn ") else { return false };
            let Some((name, body)) = rest.split_once("()") else { return false };
            let body = body.trim_start();
            let literal = body.strip_prefix('{').map(str::trim_start).is_some_and(|b| {
                b.starts_with(['[', '"', '`', '\''])
                    || b.starts_with("#{")
                    || b.starts_with(|c: char| c.is_ascii_digit())
            });
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && literal
        })
        .map(String::from)
        .collect()
}

/// The rules scripts are examples designers copy: what a pack's data holds (resources,
/// ranks, colours, terrains) is read from its TOML files, and a text said once is written
/// where it is said, so no script keeps a constant as a function returning a literal.
#[test]
fn the_scripts_keep_no_constants_as_functions() {
    let mut found = Vec::new();
    for e in walkdir::WalkDir::new(root().join("scripts")).into_iter().flatten() {
        if e.path().extension().is_some_and(|x| x == "rhai") {
            let text = std::fs::read_to_string(e.path()).unwrap();
            for l in constant_functions(&text) {
                found.push(format!("{}: {l}", e.path().strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(found.is_empty(), "constants written as functions (read them from the pack's data):\n{}", found.join("\n"));
    let sample = "fn SIDES() { [\"north\", \"south\"] }\nfn KEEP() { \"keep\" }\nfn LIMIT() { 3 }\nfn side(p) { [\"a\"][p] }\nfn reset() { [] }\n";
    assert_eq!(constant_functions(sample).len(), 3, "{:?}", constant_functions(sample));
}
