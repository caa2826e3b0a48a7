//! Static checks of a compiled script, run when a pack is loaded (so `crown check` and
//! every command see them): every function a script calls must exist, with that number of
//! arguments. Found by walking Rhai's syntax tree, not by matching text.
//!
//! A call is known when the script itself or the pack's rules script defines a function of
//! that name and arity, or Crown or Rhai's standard library registers one (a method call
//! `x.f(a)` passes `x` as the first argument of a registered function, or as `this` to a
//! script function).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use rhai::{ASTNode, Expr, Stmt, AST};

/// One finding, at a 1-based line and column of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub line: usize,
    pub col: usize,
    pub message: String,
    pub hint: Option<String>,
}

/// Functions by name, with the numbers of arguments they accept.
type Arities = BTreeMap<String, BTreeSet<usize>>;

/// Rhai's own keywords that look like calls.
const KEYWORDS: &[&str] =
    &["print", "debug", "type_of", "Fn", "call", "curry", "is_shared", "is_def_fn", "is_def_var", "eval"];

/// Every function registered in the engine (Crown's API and Rhai's standard library).
fn registered() -> &'static Arities {
    static R: OnceLock<Arities> = OnceLock::new();
    R.get_or_init(|| {
        let mut out = Arities::new();
        for sig in super::engine().gen_fn_signatures(true) {
            if let Some((name, n)) = parse_signature(&sig) {
                out.entry(name).or_default().insert(n);
            }
        }
        out
    })
}

/// `name(a: T, b: U) -> R` -> (`name`, 2).
fn parse_signature(sig: &str) -> Option<(String, usize)> {
    let open = sig.find('(')?;
    let name = sig[..open].trim();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let mut depth = 0usize;
    let mut params = 0usize;
    let mut any = false;
    for c in sig[open + 1..].chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' if depth == 0 => break,
            ')' | '>' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => params += 1,
            c if !c.is_whitespace() => any = true,
            _ => {}
        }
    }
    Some((name.to_string(), if any { params + 1 } else { 0 }))
}

fn script_functions(ast: &AST, into: &mut Arities) {
    for f in ast.iter_functions() {
        into.entry(f.name.to_string()).or_default().insert(f.params.len());
    }
}

/// Check every call in `own` (a script as compiled) against its own functions, those of
/// the rules script `lib` (for a card script), and the registered ones.
pub fn check_calls(own: &AST, lib: Option<&AST>) -> Vec<Finding> {
    let mut scripted = Arities::new();
    script_functions(own, &mut scripted);
    if let Some(lib) = lib {
        script_functions(lib, &mut scripted);
    }
    let host = registered();
    let mut out = Vec::new();
    own.walk(&mut |path: &[ASTNode]| {
        let (x, pos, method) = match path.last() {
            Some(ASTNode::Expr(Expr::FnCall(x, pos))) => (x, *pos, false),
            Some(ASTNode::Expr(Expr::MethodCall(x, pos))) => (x, *pos, true),
            // A call standing as a statement of its own.
            Some(ASTNode::Stmt(Stmt::FnCall(x, pos))) => (x, *pos, false),
            _ => return true,
        };
        let name = x.name.as_str();
        if x.is_operator_call() || KEYWORDS.contains(&name) || name.starts_with("anon$") {
            return true;
        }
        let argc = x.args.len();
        // A registered function receives a method call's object as its first argument; a
        // script function receives it as `this`.
        let host_argc = if method { argc + 1 } else { argc };
        let ok_script = scripted.get(name).is_some_and(|a| a.contains(&argc));
        let ok_host = host.get(name).is_some_and(|a| a.contains(&host_argc));
        if ok_script || ok_host {
            return true;
        }
        let (line, col) = (pos.line().unwrap_or(0), pos.position().unwrap_or(1));
        let mut arities: BTreeSet<usize> = scripted.get(name).cloned().unwrap_or_default();
        if let Some(h) = host.get(name) {
            arities.extend(h.iter().map(|n| if method { n.saturating_sub(1) } else { *n }));
        }
        if arities.is_empty() {
            let names = scripted.keys().chain(host.keys()).map(String::as_str);
            let near = crate::diag::did_you_mean(name, names);
            out.push(Finding {
                line,
                col,
                message: format!(
                    "no function `{name}` exists: neither the script, the rules script nor Crown defines one"
                ),
                hint: near.map(|n| format!("did you mean `{n}`?")),
            });
        } else {
            let list: Vec<String> = arities.iter().map(usize::to_string).collect();
            let takes = match list.len() {
                1 => list[0].clone(),
                _ => format!("{} or {}", list[..list.len() - 1].join(", "), list[list.len() - 1]),
            };
            out.push(Finding {
                line,
                col,
                message: format!(
                    "`{name}` is called with {argc} argument{}, but it takes {takes}",
                    if argc == 1 { "" } else { "s" }
                ),
                hint: None,
            });
        }
        true
    });
    out
}

/// Host functions whose first argument is a definition id.
const TAKES_ID: &[&str] = &[
    "def_name",
    "def_kind",
    "def_count",
    "def_text",
    "def_cards",
    "def_keywords",
    "def_value",
    "def_attr",
    "def_cost",
    "def_back",
    "def_has_keyword",
];

/// What a string literal passed to a host function names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// A definition id (`def_*`).
    Id,
    /// A value key (`value`, `def_value`).
    ValueKey,
}

/// A string literal naming something the pack should have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    pub names: Names,
    pub text: String,
    /// The function it is passed to.
    pub function: String,
    pub line: usize,
    pub col: usize,
}

/// What a script refers to by name, collected once when it is compiled: the names it
/// may call a function by (every function it calls, and every string literal shaped like
/// a name: a hook invoked by name, `invoke(c, "on_play", ...)`), and the literals that
/// name definitions or value keys.
#[derive(Debug, Clone, Default)]
pub struct References {
    pub names: BTreeSet<String>,
    pub literals: Vec<Literal>,
}

/// Collect a script's [`References`].
pub fn references(ast: &AST) -> References {
    let mut out = References::default();
    ast.walk(&mut |path: &[ASTNode]| {
        let (x, method) = match path.last() {
            Some(ASTNode::Expr(Expr::FnCall(x, _))) | Some(ASTNode::Stmt(Stmt::FnCall(x, _))) => (x, false),
            Some(ASTNode::Expr(Expr::MethodCall(x, _))) => (x, true),
            Some(ASTNode::Expr(Expr::StringConstant(s, _))) if s.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                out.names.insert(s.to_string());
                return true;
            }
            _ => return true,
        };
        let name = x.name.as_str();
        out.names.insert(name.to_string());
        if method || x.is_operator_call() {
            return true;
        }
        let mut literal = |i: usize, names: Names| {
            if let Some(Expr::StringConstant(text, pos)) = x.args.get(i) {
                out.literals.push(Literal {
                    names,
                    text: text.to_string(),
                    function: name.to_string(),
                    line: pos.line().unwrap_or(0),
                    col: pos.position().unwrap_or(1),
                });
            }
        };
        if TAKES_ID.contains(&name) {
            literal(0, Names::Id);
        }
        if (name == "value" || name == "def_value") && x.args.len() == 2 {
            literal(1, Names::ValueKey);
        }
        true
    });
    out
}

/// What a pack declares, for checking the names scripts spell out in strings.
pub struct Declared<'a> {
    /// Every definition id.
    pub ids: &'a BTreeSet<String>,
    /// Every value key any definition, stage or back face holds.
    pub value_keys: &'a BTreeSet<String>,
}

/// Literals that name what the pack does not have: a definition id passed to a `def_*`
/// function (an error: the call always fails), a value key passed to `value` or
/// `def_value` that no definition holds (a warning: the value is always 0). Each finding
/// says whether it is an error.
pub fn check_names(refs: &References, declared: &Declared<'_>) -> Vec<(Finding, bool)> {
    refs.literals
        .iter()
        .filter_map(|l| {
            let (known, message, error) = match l.names {
                Names::Id => (
                    declared.ids,
                    format!("no definition `{}` exists in this pack, so `{}` always fails here", l.text, l.function),
                    true,
                ),
                Names::ValueKey => (
                    declared.value_keys,
                    format!("no definition has a value `{}`, so `{}` always gives 0 here", l.text, l.function),
                    false,
                ),
            };
            if known.contains(&l.text) {
                return None;
            }
            let near = crate::diag::did_you_mean(&l.text, known.iter().map(String::as_str));
            let hint = near.map(|n| format!("did you mean `{n}`?"));
            Some((Finding { line: l.line, col: l.col, message, hint }, error))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(rules: Option<&str>, text: &str) -> Vec<String> {
        let lib = rules.map(|r| super::super::compile("rules", r).unwrap());
        let ast = super::super::compile("card", text).unwrap();
        check_calls(&ast, lib.as_ref())
            .into_iter()
            .map(|f| {
                format!("{}:{} {}{}", f.line, f.col, f.message, f.hint.map(|h| format!(" ({h})")).unwrap_or_default())
            })
            .collect()
    }

    #[test]
    fn known_calls_pass() {
        let rules = "fn helper(a, b) { a + b }";
        let card = "fn on_play(p, c) {\n  let x = helper(1, 2);\n  let l = [1, 2];\n  l.push(3);\n  print(l.len());\n  let f = |a| a + 1;\n  f.call(1);\n  abs(x)\n}";
        assert!(findings(Some(rules), card).is_empty(), "{:?}", findings(Some(rules), card));
    }

    #[test]
    fn unknown_functions_get_a_suggestion_and_wrong_arities_the_right_count() {
        let rules = "fn helper(a, b) { a + b }";
        let card = "fn on_play(p, c) {\n  helpr(1, 2);\n  helper(1);\n}";
        assert_eq!(
            findings(Some(rules), card),
            vec![
                "2:3 no function `helpr` exists: neither the script, the rules script nor Crown defines one (did you mean `helper`?)",
                "3:3 `helper` is called with 1 argument, but it takes 2",
            ]
        );
    }

    #[test]
    fn signatures_are_read_with_their_arity() {
        assert_eq!(parse_signature("abs(x: int) -> int"), Some(("abs".into(), 1)));
        assert_eq!(parse_signature("players() -> int"), Some(("players".into(), 0)));
        assert_eq!(parse_signature("f(a: Map, b: Array<int>) -> ()"), Some(("f".into(), 2)));
        assert_eq!(parse_signature("+(x: int, y: int) -> int"), None);
    }
}
