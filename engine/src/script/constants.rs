//! A script's top-level constants: `const SUITS = ["clubs", "diamonds", "hearts", "spades"];`
//! at the top of a file. Rhai's functions see only their parameters, so the constants are
//! worked out when the script is read, before any game (from literals, operators, Rhai's own
//! functions and the constants above them), and compiling with them in scope writes each
//! value where a function names it. Both runtimes then run the same syntax tree.

use rhai::{Engine, LexError, ParseError, ParseErrorType, Position, Scope, AST};
use std::sync::OnceLock;

/// An engine that reads a script without knowing Crown's functions, to find and work out
/// its constants: the script's functions may name constants it does not know yet.
fn reader() -> &'static Engine {
    static READER: OnceLock<Engine> = OnceLock::new();
    READER.get_or_init(super::sandboxed)
}

/// The constants `text` declares at its top level, in order, each with its value. A script
/// that does not read (a syntax error) declares none here: compiling it reports the error.
pub(super) fn top_level(text: &str) -> Result<Scope<'static>, ParseError> {
    let mut scope = Scope::new();
    if !text.contains("const") {
        return Ok(scope);
    }
    let Ok(ast) = reader().compile(text) else { return Ok(scope) };
    for stmt in ast.statements() {
        let rhai::Stmt::Var(decl, flags, pos) = stmt else { continue };
        if !flags.intersects(rhai::ASTFlags::CONSTANT) {
            continue;
        }
        let name = decl.0.name.to_string();
        let one = AST::new([stmt.clone()], rhai::Module::new());
        if let Err(e) = reader().run_ast_with_scope(&mut scope, &one) {
            let why = match *e {
                rhai::EvalAltResult::ErrorFunctionNotFound(sig, _) => format!("it calls `{}`", sig.replace(" (", "(")),
                e => e.to_string().split(" (line ").next().unwrap_or_default().to_string(),
            };
            return Err(error(
                format!(
                    "the constant `{name}` cannot be worked out when the script is read: {why}. A constant is \
                     made of literals, operators, Rhai's own functions and the constants above it; the game's \
                     functions (`players()`, `option(..)`) are not there yet: call them in a function"
                ),
                *pos,
            ));
        }
    }
    Ok(scope)
}

/// Compile `text` with its constants `consts` (not empty). Rhai writes a constant's value
/// wherever a function names it, except at the head of a chain (`SUITS.len()`,
/// `SUITS[i]`): there a function reads it from a local constant of its own, which Crown
/// declares right after the function's opening brace (`{ const SUITS = SUITS;`), on a line
/// that has nothing after the brace, so that no position the script reports moves. A
/// closure, or a function whose body starts on the brace's line, cannot be given one: the
/// chain's head is then an error at its place, with the way round it.
pub(super) fn compile_with(engine: &Engine, consts: &Scope, text: &str) -> Result<AST, ParseError> {
    let ast = engine.compile_with_scope(consts, text)?;
    let heads = chain_heads(&ast, consts);
    if heads.is_empty() {
        return Ok(ast);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for (f, brace, names) in &heads {
        let (Some(line), Some(col)) = (brace.line(), brace.position()) else { continue };
        let after = lines.get(line - 1).and_then(|l| l.get(col..)).map(str::trim);
        let alone = after.is_some_and(|rest| rest.is_empty() || rest.starts_with("//"));
        let opens = lines.get(line - 1).and_then(|l| l.as_bytes().get(col - 1)) == Some(&b'{');
        if f.starts_with("anon$") || !alone || !opens {
            let (name, at) = &names[0];
            let fix = format!("let {} = {name};", name.to_lowercase());
            return Err(error(
                format!(
                    "`{name}` begins a chain of `.` or `[..]` in a {}: Crown cannot give it the constant's value \
                     there. Read it into a variable first (`{fix}`), or write the function's body on lines of its own",
                    if f.starts_with("anon$") {
                        "closure"
                    } else {
                        "function whose body starts on the line of its `{`"
                    }
                ),
                *at,
            ));
        }
        let offset: usize = lines[..line - 1].iter().map(|l| l.len()).sum::<usize>() + col;
        let mut decl = String::new();
        for (name, _) in names {
            if !decl.contains(&format!(" {name} ")) {
                decl.push_str(&format!(" const {name} = {name};"));
            }
        }
        inserts.push((offset, decl));
    }
    let mut with = text.to_string();
    inserts.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (at, decl) in inserts {
        with.insert_str(at, &decl);
    }
    engine.compile_with_scope(consts, &with)
}

/// A function naming constants at the heads of chains: its name, the position of its
/// body's opening brace, and each such constant with where it is named.
type Heads = (String, Position, Vec<(String, Position)>);

/// Every function naming a constant at the head of a chain.
fn chain_heads(ast: &AST, consts: &Scope) -> Vec<Heads> {
    let mut out = Vec::new();
    for f in ast.iter_fn_def() {
        let mut lib = rhai::Module::new();
        lib.set_script_fn(f.clone());
        let one = AST::new_from_module(lib);
        let mut names = Vec::new();
        one.walk(&mut |path: &[rhai::ASTNode]| {
            if let Some(rhai::ASTNode::Expr(rhai::Expr::Variable(v, _, pos))) = path.last() {
                if v.0.is_none() && consts.iter_raw().any(|(n, ..)| n == v.1.as_str()) {
                    names.push((v.1.to_string(), *pos));
                }
            }
            true
        });
        if !names.is_empty() {
            out.push((f.name.to_string(), f.body.start_position(), names));
        }
    }
    out
}

/// A function or closure whose parameter has a constant's name would read the constant,
/// not its argument: refused, at the function.
pub(super) fn check_parameters(ast: &AST, consts: &Scope, text: &str) -> Result<(), ParseError> {
    for f in ast.iter_fn_def() {
        for p in &f.params {
            if consts.iter_raw().any(|(n, ..)| n == p.as_str()) {
                let (what, pos) = if f.name.starts_with("anon$") {
                    ("a closure".to_string(), Position::NONE)
                } else {
                    (format!("function `{}`", f.name), position_of_fn(text, &f.name))
                };
                return Err(error(
                    format!("{what} has a parameter `{p}`, the name of a constant of this script: rename one"),
                    pos,
                ));
            }
        }
    }
    Ok(())
}

/// Where `fn name(` begins in `text`, or no position.
fn position_of_fn(text: &str, name: &str) -> Position {
    let want = format!("fn {name}(");
    text.lines()
        .enumerate()
        .find_map(|(i, l)| l.find(&want).map(|c| Position::new(i as u16 + 1, c as u16 + 1)))
        .unwrap_or(Position::NONE)
}

fn error(message: String, pos: Position) -> ParseError {
    ParseError(Box::new(ParseErrorType::BadInput(LexError::Runtime(message))), pos)
}

#[cfg(test)]
mod tests {
    fn run(text: &str, f: &str) -> Result<rhai::Dynamic, String> {
        let ast = super::super::compile("t", text).map_err(|e| e.to_string())?;
        super::super::engine().call_fn::<rhai::Dynamic>(&mut rhai::Scope::new(), &ast, f, ()).map_err(|e| e.to_string())
    }

    #[test]
    fn functions_read_the_constants_above_and_below_them() {
        let text = "const SUITS = [\"clubs\", \"hearts\"];\nconst HAND = 3 * 4;\nconst LABEL = `${HAND} cards`;\n\
                    fn suits() {\n    SUITS.len() + HAND\n}\nfn label() { LABEL }\nfn shadow() { let HAND = 1; HAND }\n\
                    fn later() { LATE }\nconst LATE = #{ a: 1 };";
        assert_eq!(run(text, "suits").unwrap().as_int().unwrap(), 14);
        assert_eq!(run(text, "label").unwrap().into_string().unwrap(), "12 cards");
        assert_eq!(run(text, "shadow").unwrap().as_int().unwrap(), 1);
        assert!(run(text, "later").unwrap().is_map());
    }

    #[test]
    fn a_constant_at_the_head_of_a_chain_is_read_in_a_function_of_lines_of_its_own() {
        let text = "const SUITS = [\"clubs\", \"hearts\", \"spades\"];\nfn count() {  // how many\n    SUITS.len() + SUITS[1].len()\n}\n\
                    fn bad() {\n    SUITS[9]\n}";
        assert_eq!(run(text, "count").unwrap().as_int().unwrap(), 9);
        // An error still names the script's own line and column.
        let e = run(text, "bad").unwrap_err();
        assert!(e.contains("out of bounds") && e.contains("line 6,"), "{e}");
        let e = run("const SUITS = [1];\nfn f() { SUITS.len() }", "f").unwrap_err();
        assert!(e.contains("`SUITS` begins a chain") && e.contains("let suits = SUITS;"), "{e}");
        let e = run("const SUITS = [1];\nfn f() {\n    [2].map(|x| SUITS[0] + x)\n}", "f").unwrap_err();
        assert!(e.contains("in a closure") && e.contains("line 3"), "{e}");
        // A constant is constant inside the function too.
        let e = run("const SUITS = [1];\nfn f() {\n    SUITS.push(2);\n    SUITS\n}", "f").unwrap_err();
        assert!(e.to_lowercase().contains("constant"), "{e}");
    }

    #[test]
    fn a_constant_of_the_game_is_refused_at_its_line() {
        let e = run("fn f() { N }\n\nconst N = players();", "f").unwrap_err();
        assert!(e.contains("the constant `N` cannot be worked out"), "{e}");
        assert!(e.contains("line 3"), "{e}");
        let e = run("const N = loop { };\nfn f() { N }", "f").unwrap_err();
        assert!(e.contains("the constant `N`"), "{e}");
    }

    #[test]
    fn a_parameter_named_as_a_constant_is_refused() {
        let e = run("const N = 3;\n\nfn f(N) { N }", "f").unwrap_err();
        assert!(e.contains("function `f` has a parameter `N`"), "{e}");
        assert!(e.contains("line 3"), "{e}");
        let e = run("const N = 3;\nfn f() { [1].map(|N| N) }", "f").unwrap_err();
        assert!(e.contains("a closure has a parameter `N`"), "{e}");
    }

    #[test]
    fn a_script_without_constants_and_a_broken_one_compile_as_before() {
        assert_eq!(run("fn f() { 2 }", "f").unwrap().as_int().unwrap(), 2);
        let e = run("const N = 3;\nfn f() { N + }", "f").unwrap_err();
        assert!(!e.contains("constant"), "{e}");
    }
}
