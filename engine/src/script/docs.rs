//! The script API reference, `docs/script-api.md`, made from the host functions'
//! registrations. Each host function is documented where it is registered, in
//! `api/<topic>.rs`: under a section (`e.section("Players")`), with its signature as a
//! designer writes a call and what it does:
//!
//! ```text
//! e.register_fn("player_name(p)", "The seat's name ...", |p: i64| ...);
//! ```
//!
//! The reference shows each parameter's type and the result's, read from the Rust
//! function. This file holds the rest: the order of the sections, the introduction, how a
//! registration's signature is read ([`FnDoc`]) and the Markdown made of them all. A test
//! fails when the file is stale or when a function the engine knows has no documentation
//! (`CROWN_BLESS=1 cargo test -p crown-engine --lib docs::` rewrites the file).

use std::any::TypeId;

/// The reference's sections, in reading order. A host function's registration is listed
/// in the section named last before it (`e.section(...)`), after the section's functions
/// registered before it.
pub const SECTIONS: &[&str] =
    &["Players", "Turns", "Zones", "Cards", "Definitions", "Board", "Choices and hooks", "Game", "Table", "Lists"];

/// One host function as the reference documents it.
#[derive(Debug)]
pub struct FnDoc {
    /// The section it is listed in (one of [`SECTIONS`]).
    pub section: &'static str,
    /// The name scripts call it by.
    pub name: String,
    /// For a function written as a method called on its first parameter, that
    /// parameter's name (`list` in `list.find(|x| ...)`).
    pub receiver: Option<String>,
    /// Its parameters after the receiver.
    pub params: Vec<ParamDoc>,
    /// What it returns, in a designer's words ([`type_word`]); `None` for nothing (`()`).
    pub returns: Option<&'static str>,
    /// What it does, in Markdown.
    pub text: &'static str,
}

/// A parameter as the reference shows it.
#[derive(Debug)]
pub struct ParamDoc {
    /// Its name, or the shape of the closure it takes (`|a, b| ...`).
    pub name: String,
    /// Its type in a designer's words ([`type_word`]).
    pub ty: &'static str,
}

/// A Rust type of a host function's parameter or result: its id, and its name for a
/// message about it.
pub type RustType = (TypeId, &'static str);

impl FnDoc {
    /// The documentation of a host function registered with `signature` (`player_name(p)`;
    /// `list.find(|x| ..., start)` for a method called on its first parameter, where
    /// `|x| ...` stands for a closure), `text`, and Rust parameter and result types
    /// `params` and `returns`. The engine's own types are named as in `custom` (`Menu`).
    ///
    /// An error, naming the function, when the signature is not written so, when it names
    /// more or fewer parameters than the Rust function takes, when a closure's shape stands
    /// for a parameter that is not a function, or when a type has no designer's name.
    pub fn new(
        section: &'static str,
        signature: &str,
        text: &'static str,
        params: &[RustType],
        returns: RustType,
        custom: &[(TypeId, &'static str)],
    ) -> Result<FnDoc, String> {
        let fail = |name: &str, why: String| format!("host function `{name}`: {why}");
        let (receiver, name, names) = parse(signature).ok_or_else(|| {
            fail(
                signature,
                format!(
                    "the signature `{signature}` is not written as a call (`name(a, b)`, or `list.name(|x| ..., b)`)"
                ),
            )
        })?;
        let written = names.len() + usize::from(receiver.is_some());
        if written != params.len() {
            return Err(fail(
                name,
                format!(
                    "the signature `{signature}` names {written} parameters, the Rust function takes {}",
                    params.len()
                ),
            ));
        }
        let word = |(id, rust): RustType| {
            type_word(id, custom).ok_or_else(|| {
                fail(name, format!("the reference has no name for the Rust type `{rust}` (see `docs::type_word`)"))
            })
        };
        let mut docs = Vec::with_capacity(names.len());
        for (&param, &ty) in names.iter().zip(&params[params.len() - names.len()..]) {
            let ty = word(ty)?;
            if param.starts_with('|') && ty != "fn" {
                return Err(fail(name, format!("`{param}` stands for a closure, but that parameter is {ty}")));
            }
            docs.push(ParamDoc { name: param.to_string(), ty });
        }
        let returns = if returns.0 == TypeId::of::<()>() { None } else { Some(word(returns)?) };
        let receiver = receiver.map(str::to_string);
        Ok(FnDoc { section, name: name.to_string(), receiver, params: docs, returns, text })
    }

    /// How many arguments a call passes, the receiver counted.
    pub fn arity(&self) -> usize {
        self.params.len() + usize::from(self.receiver.is_some())
    }

    /// The signature as the reference writes it: `player_name(p: int) -> string`,
    /// `list.find(|x| ..., start: int) -> any` (a closure's shape says its type).
    pub fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| if p.name.starts_with('|') { p.name.clone() } else { format!("{}: {}", p.name, p.ty) })
            .collect();
        let receiver = self.receiver.as_ref().map_or(String::new(), |r| format!("{r}."));
        let returns = self.returns.map_or(String::new(), |r| format!(" -> {r}"));
        format!("{receiver}{}({}){returns}", self.name, params.join(", "))
    }
}

/// A signature's receiver (when written as a method), name and parameter names: `a.f(|x, i|
/// ..., b)` is `(Some("a"), "f", ["|x, i| ...", "b"])`. A closure's shape is one parameter
/// however many commas it holds. `None` when it is not written so.
fn parse(signature: &str) -> Option<(Option<&str>, &str, Vec<&str>)> {
    let (head, rest) = signature.split_once('(')?;
    let inside = rest.strip_suffix(')')?;
    let (receiver, name) = match head.split_once('.') {
        Some((receiver, name)) => (Some(receiver), name),
        None => (None, head),
    };
    let is_name = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name(name) || receiver.is_some_and(|r| !is_name(r)) {
        return None;
    }
    let mut names = Vec::new();
    let mut in_closure = false;
    let mut start = 0;
    for (i, c) in inside.char_indices() {
        match c {
            '|' => in_closure = !in_closure,
            ',' if !in_closure => {
                names.push(inside[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inside.trim().is_empty() {
        names.push(inside[start..].trim());
    }
    let fits = |p: &&str| is_name(p) || p.starts_with('|') && p.matches('|').count() == 2;
    names.iter().all(fits).then_some((receiver, name, names))
}

/// A Rust type as designers know it: `int`, `bool`, `string`, `array`, `map`, `any` (a
/// `Dynamic`: whatever a script holds), `fn` (a function or closure), or the name the
/// engine's own type is registered under (`custom`: `Menu`). `None` for any other.
pub fn type_word(t: TypeId, custom: &[(TypeId, &'static str)]) -> Option<&'static str> {
    let words = [
        (TypeId::of::<rhai::INT>(), "int"),
        (TypeId::of::<bool>(), "bool"),
        (TypeId::of::<rhai::ImmutableString>(), "string"),
        (TypeId::of::<String>(), "string"),
        (TypeId::of::<rhai::Array>(), "array"),
        (TypeId::of::<rhai::Map>(), "map"),
        (TypeId::of::<rhai::Dynamic>(), "any"),
        (TypeId::of::<rhai::FnPtr>(), "fn"),
    ];
    words.iter().chain(custom).find(|(id, _)| *id == t).map(|(_, word)| *word)
}

/// The Markdown reference: the introduction, then each section's functions in the order
/// they are registered. A `|` in a cell (a closure's shape, a closure in an example) is
/// escaped so that it does not end the cell.
pub fn markdown() -> String {
    let functions = super::documented();
    let mut out = String::new();
    out.push_str("# Script API reference\n\n");
    out.push_str(
        "<!-- Generated from the host functions' registrations (engine/src/script/api/) by \
         `CROWN_BLESS=1 cargo test -p crown-engine --lib docs::`; do not edit. -->\n\n",
    );
    out.push_str(INTRO);
    for section in SECTIONS {
        out.push_str(&format!("\n## {section}\n\n| function | what it does |\n|---|---|\n"));
        for f in functions.iter().filter(|f| f.section == *section) {
            let (signature, text) = (f.signature().replace('|', "\\|"), f.text.replace('|', "\\|"));
            out.push_str(&format!("| `{signature}` | {text} |\n"));
        }
    }
    out
}

const INTRO: &str = "Scripts are [Rhai](https://rhai.rs). Crown runs them in a sandbox: integers only (no floats), \
no `eval`, no `import`, no clock, variables must be declared with `let`, and limits on operations per call \
(2,000,000), call depth (48), expression depth, string, array and map sizes. A script that passes a limit \
stops its game with an error naming the script file and line.\n\n\
**How the engine calls a pack.** The rules script (`scripts/<pack>/rules.rhai`) defines `fn setup()`, \
called once, and `fn turn()`, called again and again until a script calls `end_game(winners, reason)`; \
after the pack's `max_turns` calls (default 500) the game is stopped and reported as too long. \
Optional: `fn greedy_score(p, prompt, option) -> int` ranks options for the `greedy` bot (with \
`fn greedy_plan(p, prompt, options)`, called once per choice, its value comes as a fourth argument: \
`fn greedy_score(p, prompt, option, plan)`, for what every option is weighed against); \
`fn evaluate(p) -> int` says how well seat `p` stands when a `search` bot's rollout stops before the end \
(higher is better; without it the scores are compared); \
`fn render_status(viewer) -> string` draws, in a few lines, what a person needs before each decision (their \
counters, their hand in a stable order, the public state that matters) and `fn render(viewer) -> string` the \
whole table as that seat sees it (asked for with `board`), both at the terminal and in the browser. Without \
them the engine shows the seat's counters and own cards, and its plain view of the table. Top-level statements of scripts do \
not run: put setup in `setup()`. A top-level `const NAME = value;` is worked out when the script is read \
(from literals, operators, Rhai's own functions and the constants above it) and seen by every function \
of its file.\n\n\
**Card, noble, leader and plaque scripts** (named by `script = \"...\"` in a definition) define functions \
the rules call with `invoke(card_or_id, \"on_play\", [args])`, or hooks consulted with `fold`. Every function \
of the rules script is visible to them, so shared helpers live in `rules.rhai`.\n\n\
**The game is implicit**: every function below reads or changes the game being played. Players, zones, \
cards, spaces and pieces are integers; definitions are named by their string ids. Every change of state \
is written to the transcript, one line per event, so golden games show exactly what happened.\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::compiled::Registrar;
    use std::collections::BTreeSet;

    /// A signature Rhai writes (`eliminate(p: i64, told: &str) -> ()`): its name and number
    /// of parameters.
    fn name_and_arity(signature: &str) -> (String, usize) {
        let (name, rest) = signature.split_once('(').expect("a signature has its parentheses");
        let mut depth = 0;
        let mut params = 0;
        let mut empty = true;
        for ch in rest.chars() {
            match ch {
                '(' | '[' | '{' | '<' => depth += 1,
                ')' if depth == 0 => break,
                ')' | ']' | '}' | '>' => depth -= 1,
                ',' if depth == 0 => params += 1,
                c if !c.is_whitespace() => empty = false,
                _ => {}
            }
        }
        (name.trim().to_string(), if empty { 0 } else { params + 1 })
    }

    #[test]
    fn arity_is_read_from_rhais_signatures() {
        assert_eq!(name_and_arity("players() -> i64"), ("players".into(), 0));
        assert_eq!(name_and_arity("eliminate(p: i64, told: &str)"), ("eliminate".into(), 2));
        assert_eq!(name_and_arity("set_score(p: i64, parts: Array) -> ()"), ("set_score".into(), 2));
        assert_eq!(name_and_arity("f(m: HashMap<K, V>) -> ()"), ("f".into(), 1));
    }

    /// The documentation of functions registered on a bare engine.
    fn registered(register: impl FnOnce(&mut Registrar)) -> Vec<FnDoc> {
        let mut engine = rhai::Engine::new_raw();
        let mut e = Registrar::new(&mut engine);
        e.section("Lists");
        register(&mut e);
        e.into_docs()
    }

    #[test]
    fn the_reference_shows_the_rust_functions_types_in_a_designers_words() {
        let docs = registered(|e| {
            e.register_fn("players()", "Seats.", || 2_i64);
            e.register_fn("eliminate(p, told)", "Out.", |_: i64, _: rhai::ImmutableString| ());
            e.register_fn("get_or(k, default)", "A variable.", |_: rhai::ImmutableString, d: rhai::Dynamic| d);
            e.register_fn("f(flag, list, map, f)", "All.", |_: bool, _: rhai::Array, m: rhai::Map, _: rhai::FnPtr| {
                Ok::<_, Box<rhai::EvalAltResult>>(m)
            });
            e.register_fn(
                "list.find(|x| ..., start)",
                "First.",
                |_: &mut rhai::Array, _: rhai::FnPtr, _: i64| -> Result<rhai::Dynamic, Box<rhai::EvalAltResult>> {
                    Ok(rhai::Dynamic::UNIT)
                },
            );
            e.register_type_with_name::<Vec<u8>>("Bytes");
            e.register_fn("bytes()", "Bytes.", Vec::<u8>::new);
        });
        let signatures: Vec<String> = docs.iter().map(FnDoc::signature).collect();
        assert_eq!(
            signatures,
            [
                "players() -> int",
                "eliminate(p: int, told: string)",
                "get_or(k: string, default: any) -> any",
                "f(flag: bool, list: array, map: map, f: fn) -> map",
                "list.find(|x| ..., start: int) -> any",
                "bytes() -> Bytes",
            ]
        );
        assert_eq!(docs[4].arity(), 3);
    }

    /// A signature that names more or fewer parameters than the Rust function takes stops
    /// the registration, so every engine (and every test that builds one) fails at once.
    #[test]
    #[should_panic(
        expected = "host function `player_name`: the signature `player_name(p, q)` names 2 parameters, the Rust function takes 1"
    )]
    fn a_signature_must_name_every_parameter() {
        registered(|e| {
            e.register_fn("player_name(p, q)", "The seat's name.", |_: i64| String::new());
        });
    }

    #[test]
    #[should_panic(
        expected = "host function `find`: the signature `list.find(|x| ...)` names 2 parameters, the Rust function takes 3"
    )]
    fn a_methods_receiver_is_one_of_its_parameters() {
        registered(|e| {
            e.register_fn("list.find(|x| ...)", "First.", |_: &mut rhai::Array, _: rhai::FnPtr, _: i64| 0_i64);
        });
    }

    #[test]
    #[should_panic(expected = "host function `sort`: `|a, b| ...` stands for a closure, but that parameter is int")]
    fn a_closures_shape_stands_for_a_function_only() {
        registered(|e| {
            e.register_fn("list.sort(|a, b| ...)", "Sort.", |_: &mut rhai::Array, _: i64| ());
        });
    }

    #[test]
    #[should_panic(expected = "host function `f(p`: the signature `f(p` is not written as a call")]
    fn a_signature_is_written_as_a_call() {
        registered(|e| {
            e.register_fn("f(p", "Nothing.", |_: i64| ());
        });
    }

    #[test]
    #[should_panic(expected = "host function `f`: the reference has no name for the Rust type `u8`")]
    fn every_type_has_a_designers_name() {
        registered(|e| {
            e.register_fn("f(x)", "Nothing.", |_: u8| ());
        });
    }

    #[test]
    #[should_panic(expected = "`Rules` is not a section of the reference")]
    fn a_section_is_one_the_reference_lists() {
        let mut engine = rhai::Engine::new_raw();
        Registrar::new(&mut engine).section("Rules");
    }

    /// Every function the engine knows is documented, at its arity (every registration
    /// through the `Registrar` is; one made on the engine another way would not be), every
    /// section lists some, and the file is the one the registrations make.
    #[test]
    fn every_registered_function_is_documented_and_docs_are_current() {
        let engine = crate::script::engine();
        let registered: BTreeSet<(String, usize)> =
            engine.gen_fn_signatures(false).iter().map(|s| name_and_arity(s)).collect();
        let functions = crate::script::documented();
        let documented: BTreeSet<(String, usize)> = functions.iter().map(|f| (f.name.clone(), f.arity())).collect();
        let show = |set: Vec<&(String, usize)>| set.iter().map(|(n, a)| format!("{n}/{a}")).collect::<Vec<_>>();
        let missing = show(registered.difference(&documented).collect());
        let stale = show(documented.difference(&registered).collect());
        assert!(missing.is_empty(), "registered but undocumented (name/arity): {missing:?}");
        assert!(stale.is_empty(), "documented but not registered (name/arity): {stale:?}");
        let empty: Vec<&&str> = SECTIONS.iter().filter(|s| !functions.iter().any(|f| f.section == **s)).collect();
        assert!(empty.is_empty(), "sections with no function: {empty:?}");

        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/script-api.md");
        let want = markdown();
        if std::env::var_os("CROWN_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == want, "docs/script-api.md is stale: run CROWN_BLESS=1 cargo test -p crown-engine --lib docs::");
    }
}
