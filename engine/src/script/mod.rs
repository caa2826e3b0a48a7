//! The script host: one sandboxed Rhai engine, built once and shared by every game and
//! thread, that compiles pack scripts and runs their hooks against the game in play.
//!
//! The sandbox: `Engine::new_raw` plus the standard package without a clock
//! (`no_time`), no modules (`no_module`, so no `import`), `eval` disabled, and every
//! limit set (see [`Limits`]). `print` and `debug` go to the game's log with a cap.

pub mod api;
pub mod compiled;
mod constants;
pub mod docs;
pub mod lint;
pub mod locate;
pub mod profile;
pub mod validate;

use std::sync::OnceLock;

use rhai::packages::{Package, StandardPackage};
use rhai::{Engine, ParseError, AST};

/// The limits every script runs under. A script that passes one fails with an error
/// naming its file and line; it can never hang or crash the process.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Operations per hook call (a `loop {}` fails after this many).
    pub operations: u64,
    /// Nested function calls (endless recursion fails at this depth).
    pub call_levels: usize,
    /// Expression nesting at parse time (top level, inside functions).
    pub expr_depth: (usize, usize),
    pub string_size: usize,
    pub array_size: usize,
    pub map_size: usize,
    pub variables: usize,
    pub functions: usize,
    /// Lines `print`/`debug` may add to one game's log.
    pub print_lines: usize,
    /// Operations per game, every hook call together (a turn that loops near the
    /// per-call limit, turn after turn).
    pub game_operations: u64,
    /// Seconds one hook call may run, not counting the time a player takes to decide:
    /// operations that each do much work (padding an array of 20,000 in a loop, calls
    /// through `invoke` nested in loops) pass the operation count slowly.
    pub call_seconds: u64,
    /// The memory, in MiB, one outermost script call may add (what its thread allocated
    /// since the call began, net of what it freed; see `crown_alloc`): maps of long
    /// strings, or counters, marks and stickers added in a loop, grow the game's memory
    /// without any one value passing a limit.
    pub memory_mib: u64,
    /// Card instances one game may hold (`create_card`, `create_cards`, `create_deck`).
    pub cards: usize,
}

pub const LIMITS: Limits = Limits {
    operations: 2_000_000,
    call_levels: 48,
    expr_depth: (64, 48),
    string_size: 64 * 1024,
    array_size: 20_000,
    map_size: 5_000,
    variables: 1_000,
    functions: 2_000,
    print_lines: 500,
    game_operations: 100_000_000,
    call_seconds: 3,
    memory_mib: 384,
    cards: 200_000,
};

/// The functions of the rules (or bots') script the engine and the tools call by name.
pub const ENGINE_HOOKS: &[&str] = &[
    "setup",
    "turn",
    "validate",
    "validate_pack",
    "prepare",
    "greedy_plan",
    "greedy_score",
    "evaluate",
    "render",
    "render_status",
];

/// How each hook the engine calls by name is written: the numbers of parameters it may
/// take, and its form as the guide writes it (`greedy_score` with or without the plan).
pub const HOOK_FORMS: &[(&str, &[usize], &str)] = &[
    ("setup", &[0], "fn setup()"),
    ("turn", &[0], "fn turn()"),
    ("validate", &[1], "fn validate(id)"),
    ("validate_pack", &[0], "fn validate_pack()"),
    ("prepare", &[1], "fn prepare(id)"),
    ("greedy_plan", &[3], "fn greedy_plan(p, prompt, options)"),
    ("greedy_score", &[3, 4], "fn greedy_score(p, prompt, option, plan)"),
    ("evaluate", &[1], "fn evaluate(p)"),
    ("render", &[1], "fn render(viewer)"),
    ("render_status", &[1], "fn render_status(viewer)"),
];

static ENGINE: OnceLock<Engine> = OnceLock::new();

/// The shared engine, with Crown's API registered.
/// (While `crown profile` runs on this thread, the same engine with the profiler's
/// debugger callback.)
#[inline]
pub fn engine() -> &'static Engine {
    if profile::active() {
        return profile::engine();
    }
    if locate::active() {
        return locate::engine();
    }
    ENGINE.get_or_init(build_engine)
}

/// A debugger's step callback (see `register_debugger`).
pub(crate) type Step = fn(
    rhai::EvalContext,
    rhai::debugger::DebuggerEvent,
    rhai::ASTNode,
    Option<&str>,
    rhai::Position,
) -> Result<rhai::debugger::DebuggerCommand, Box<rhai::EvalAltResult>>;

/// The shared engine's configuration plus a debugger calling `step` (the profiler's and
/// the limit locator's engines), built once into `cell`.
fn engine_with_debugger(cell: &'static OnceLock<Engine>, step: Step) -> &'static Engine {
    cell.get_or_init(|| {
        let mut e = build_engine();
        #[allow(deprecated)] // "volatile", not deprecated
        e.register_debugger(|_, dbg| dbg, step);
        e
    })
}

/// The shared engine without any debugger (what the compiled tier calls natives through).
pub(crate) fn plain_engine() -> &'static Engine {
    ENGINE.get_or_init(build_engine)
}

/// Rhai with its standard package and nothing of Crown's: every limit in [`LIMITS`], no
/// string interner, no `eval`. The engine scripts run on is this with Crown's functions;
/// reading a script's constants ([`constants`]) uses it bare.
fn sandboxed() -> Engine {
    let mut e = Engine::new_raw();
    StandardPackage::new().register_into_engine(&mut e);
    let l = LIMITS;
    e.set_max_operations(l.operations)
        .set_max_call_levels(l.call_levels)
        .set_max_expr_depths(l.expr_depth.0, l.expr_depth.1)
        .set_max_string_size(l.string_size)
        .set_max_array_size(l.array_size)
        .set_max_map_size(l.map_size)
        .set_max_variables(l.variables)
        .set_max_functions(l.functions)
        // No string interner: with a cap, every new string past the cap scans the whole
        // cache to evict one (11% of a Take the Kingdom game), and the interner sits
        // behind one lock shared by every thread. Interning never changes a value.
        .set_max_strings_interned(0);
    e.disable_symbol("eval");
    e
}

fn build_engine() -> Engine {
    let mut e = sandboxed();
    e.set_fail_on_invalid_map_property(true).set_strict_variables(true);
    e.on_print(|s| api::log_print("print", s));
    e.on_debug(|s, _, _| api::log_print("debug", s));
    // The operation limit per call is checked by the engine itself; the callback (called
    // on every operation, so it does little) counts the game's operations and, every few
    // thousand, looks at the time and memory a runaway script would take.
    e.on_progress(api::progress);
    let mut reg = compiled::Registrar::new(&mut e);
    api::register(&mut reg);
    let table = reg.finish();
    compiled::keep_host_table(table);
    e
}

/// The documentation of every host function, in the order registered, as each
/// registration gives it (what `docs/script-api.md` is made of: [`docs::markdown`]).
pub fn documented() -> Vec<docs::FnDoc> {
    let mut e = Engine::new_raw();
    let mut reg = compiled::Registrar::new(&mut e);
    api::register(&mut reg);
    reg.into_docs()
}

pub use rhai::{Dynamic, Map};

/// A script map of text entries (for tools and tests that build options by hand).
pub fn map_of(pairs: &[(&str, &str)]) -> Dynamic {
    let m: rhai::Map = pairs.iter().map(|(k, v)| ((*k).into(), Dynamic::from(v.to_string()))).collect();
    Dynamic::from(m)
}

/// Compile a script's text; `name` becomes the source name errors report. Its top-level
/// constants are worked out first and written where its functions name them
/// ([`constants`]).
pub fn compile(name: &str, text: &str) -> Result<AST, ParseError> {
    let consts = constants::top_level(text)?;
    let mut ast =
        if consts.is_empty() { engine().compile(text)? } else { constants::compile_with(engine(), &consts, text)? };
    constants::check_parameters(&ast, &consts, text)?;
    ast.set_source(name);
    Ok(ast)
}

/// Names of the functions a compiled script defines, closures left out: they cannot be
/// called by name, and their internal names (`anon$` and a hash) differ between builds,
/// which would make a pack's digest and messages differ too.
pub fn function_names(ast: &AST) -> impl Iterator<Item = &str> {
    ast.iter_functions().map(|f| f.name).filter(|n| !n.starts_with("anon$"))
}

/// Whether some function `name` of `ast` (of any arity) reads its parameter at `index`:
/// its name appears as a variable in the body. (Closures capture nothing, so a closure
/// reads it only when it is handed on, which names it here too.) A function that never
/// reads a parameter can be given any value for it.
pub fn reads_param(ast: &AST, name: &str, index: usize) -> bool {
    ast.iter_fn_def().filter(|f| f.name == name).any(|f| {
        let Some(param) = f.params.get(index) else { return false };
        let mut lib = rhai::Module::new();
        lib.set_script_fn(f.clone());
        let one = AST::new_from_module(lib);
        let mut reads = false;
        one.walk(&mut |path: &[rhai::ASTNode]| {
            if let Some(rhai::ASTNode::Expr(rhai::Expr::Variable(v, ..))) = path.last() {
                reads |= v.1 == *param;
            }
            !reads
        });
        reads
    })
}

/// Whether any function or statement of `ast` may read a map's field `name`: as a
/// property (`o.label`), or through a string equal to it (`o["label"]`, `"label" in o`).
/// A map literal's keys (`#{ label: .. }`) are not reads.
pub fn reads_property(ast: &AST, name: &str) -> bool {
    let mut reads = false;
    let mut look = |path: &[rhai::ASTNode]| {
        match path.last() {
            Some(rhai::ASTNode::Expr(rhai::Expr::Property(p, _))) => reads |= p.2 == name,
            Some(rhai::ASTNode::Expr(rhai::Expr::StringConstant(s, _))) => reads |= s == name,
            _ => {}
        }
        !reads
    };
    ast.walk(&mut look);
    reads
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_parameter_is_read_where_its_name_is_used() {
        let ast = super::compile(
            "t",
            "fn score(p, prompt, o) { o.value } fn plan(p, prompt, o) { if prompt == \"x\" { 1 } else { 2 } }\n\
             fn score(p, prompt) { p } fn hand_on(p, prompt) { [1].map((|t, x| x).curry(prompt)) }",
        )
        .unwrap();
        assert!(!super::reads_param(&ast, "score", 1));
        assert!(super::reads_param(&ast, "score", 2));
        assert!(super::reads_param(&ast, "plan", 1));
        assert!(super::reads_param(&ast, "hand_on", 1));
        assert!(!super::reads_param(&ast, "nothing", 0));
    }

    #[test]
    fn a_field_is_read_by_property_or_by_its_name_in_text() {
        let read = |src: &str| super::reads_property(&super::compile("t", src).unwrap(), "label");
        assert!(!read("fn f(o) { #{ label: o.kind } }"));
        assert!(read("fn f(o) { o.label }"));
        assert!(read("fn f(o) { o[\"label\"] }"));
        assert!(read("fn f(o) { \"label\" in o }"));
        assert!(read("let o = #{}; o.label = 1;"));
        assert!(!read("fn f(o) { o.labels }"));
    }

    #[test]
    fn closures_are_not_named_functions() {
        let ast = super::compile("t", "fn f() { let g = |x| x + 1; g.call(1) }").unwrap();
        let names: Vec<&str> = super::function_names(&ast).collect();
        assert_eq!(names, ["f"]);
    }
}
