//! Static checks of a compiled script, run when a pack is loaded (so `crown check` and
//! every command see them): every function a script calls must exist, with that number of
//! arguments. Found by walking Rhai's syntax tree, not by matching text.
//!
//! A call is known when the script itself or the pack's rules script defines a function of
//! that name and arity, or Crown or Rhai's standard library registers one (a method call
//! `x.f(a)` passes `x` as the first argument of a registered function, or as `this` to a
//! script function).

use crate::diag::plural;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use rhai::{ASTNode, Expr, Stmt, AST};

pub use crate::content::refs::{Literal, LostChange, Names, References};

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
const KEYWORDS: &[&str] = &["print", "debug", "type_of", "Fn", "call", "curry", "is_def_fn", "is_def_var", "eval"];

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

/// The functions `own` defines under the name of a function Crown or Rhai provides: the
/// name, the script function's parameter count, and the counts the built-in takes.
pub fn shadowed_builtins(own: &AST) -> Vec<(String, usize, BTreeSet<usize>)> {
    let host = registered();
    own.iter_functions()
        .filter_map(|f| host.get(f.name).map(|a| (f.name.to_string(), f.params.len(), a.clone())))
        .collect()
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
                message: format!("`{name}` is called with {argc} argument{}, but it takes {takes}", plural(argc)),
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
    "def_value_or",
    "def_attr",
    "def_cost",
    "def_back",
    "def_has_keyword",
];

/// Host functions that take a name: the argument's place (a method call's object is
/// place 0), what it names, and whether the call writes it (a counter or mark it sets).
const NAMED_ARGS: &[(&str, usize, Names, bool)] = &[
    ("value", 1, Names::ValueKey, false),
    ("value_or", 1, Names::ValueKey, false),
    ("def_value", 1, Names::ValueKey, false),
    ("def_value_or", 1, Names::ValueKey, false),
    ("attr", 1, Names::AttrKey, false),
    ("def_attr", 1, Names::AttrKey, false),
    ("has_keyword", 1, Names::Keyword, false),
    ("with_keyword", 1, Names::Keyword, false),
    ("def_has_keyword", 1, Names::Keyword, false),
    ("create_deck", 0, Names::Deck, false),
    ("defs_in_deck", 0, Names::Deck, false),
    ("supply", 0, Names::Supply, false),
    ("take", 0, Names::Supply, false),
    ("give_back", 0, Names::Supply, false),
    ("supply_name", 0, Names::Supply, false),
    ("supply_one", 0, Names::Supply, false),
    ("supply_attr", 0, Names::Supply, false),
    ("count_pieces", 1, Names::Supply, false),
    ("place", 0, Names::Supply, false),
    ("pieces_at", 1, Names::Supply, false),
    ("count_at", 1, Names::Supply, false),
    ("pieces_of", 1, Names::Supply, false),
    ("count_of", 1, Names::Supply, false),
    ("option", 0, Names::OptionKey, false),
    ("option_or", 0, Names::OptionKey, false),
    ("has_option", 0, Names::OptionKey, false),
    ("seat_value", 1, Names::SeatValue, false),
    ("space_value", 1, Names::SpaceKey, false),
    ("set_space_value", 1, Names::SpaceKey, true),
    ("add_space_value", 1, Names::SpaceKey, true),
    ("space_attr", 1, Names::SpaceKey, false),
    ("regions_by", 0, Names::SpaceKey, false),
    ("region_of", 1, Names::SpaceKey, false),
    ("counter", 1, Names::Counter, false),
    ("set_counter", 1, Names::Counter, true),
    ("add_counter", 1, Names::Counter, true),
    ("mark", 1, Names::Mark, false),
    ("set_mark", 1, Names::Mark, true),
    ("add_mark", 1, Names::Mark, true),
    ("zone", 0, Names::Zone, false),
    ("pzone", 1, Names::Zone, false),
    ("set_phase", 0, Names::Phase, false),
    ("is_phase", 0, Names::Phase, false),
    ("invoke", 1, Names::Hook, false),
    ("fold", 0, Names::Hook, false),
];

/// The functions that keep the pieces of one supply (`""`: of every supply).
const FILTERS_PIECES: &[&str] = &["pieces_at", "count_at", "pieces_of", "count_of"];

/// The kind of name a name-check diagnostic code is about (`unknown-attr` -> attribute
/// keys), for the names a pack's `[check.allow]` declares.
pub fn names_of_code(code: &str) -> Option<Names> {
    Some(match code {
        "unknown-value-key" => Names::ValueKey,
        "unknown-attr" => Names::AttrKey,
        "unknown-keyword" => Names::Keyword,
        "unknown-deck" => Names::Deck,
        "unknown-supply" => Names::Supply,
        "unknown-option" => Names::OptionKey,
        "unknown-seat-value" => Names::SeatValue,
        "unknown-space-key" => Names::SpaceKey,
        "counter-never-set" => Names::Counter,
        "mark-never-set" => Names::Mark,
        "unknown-phase" => Names::Phase,
        "unknown-hook" => Names::Hook,
        _ => return None,
    })
}

/// Collect a script's [`References`].
pub fn references(ast: &AST) -> References {
    let mut out = References::default();
    ast.walk(&mut |path: &[ASTNode]| {
        let (x, method) = match path.last() {
            Some(ASTNode::Expr(Expr::FnCall(x, _))) | Some(ASTNode::Stmt(Stmt::FnCall(x, _))) => (x, false),
            Some(ASTNode::Expr(Expr::MethodCall(x, _))) => (x, true),
            Some(ASTNode::Expr(Expr::StringConstant(s, _))) => {
                out.add_string(s);
                return true;
            }
            // A literal array of constants (`["coin", "wood"]`) is folded into one value.
            Some(ASTNode::Expr(Expr::DynamicConstant(d, _))) => {
                if let Some(a) = d.read_lock::<rhai::Array>() {
                    for x in a.iter().filter(|x| x.is_string()) {
                        out.add_string(&x.to_string());
                    }
                }
                return true;
            }
            _ => return true,
        };
        let name = x.name.as_str();
        out.names.insert(name.to_string());
        if x.is_operator_call() {
            return true;
        }
        // A method call's object is not among its arguments.
        let arg =
            |place: usize| if method { place.checked_sub(1).and_then(|i| x.args.get(i)) } else { x.args.get(place) };
        if name == "defs" {
            let kind = match arg(0) {
                Some(Expr::StringConstant(text, _)) => text.to_string(),
                _ => "*".to_string(),
            };
            out.def_kinds.insert(kind);
        }
        let mut literal = |place: usize, names: Names, writes: bool| match arg(place) {
            Some(Expr::StringConstant(text, pos)) => out.literals.push(Literal {
                names,
                text: text.to_string(),
                function: name.to_string(),
                writes,
                line: pos.line().unwrap_or(0),
                col: pos.position().unwrap_or(1),
            }),
            Some(_) => {
                out.dynamic.insert(names);
            }
            None => {}
        };
        if TAKES_ID.contains(&name) {
            literal(0, Names::Id, false);
        }
        for &(f, place, names, writes) in NAMED_ARGS {
            if f == name {
                literal(place, names, writes);
            }
        }
        true
    });
    out.lost_changes = lost_changes(ast);
    out
}

/// The methods that grow, reorder or filter an array or map in place, called for that
/// (taking items out, `remove`, `pop`, `clear`..., is how a function works through a copy
/// of its own, and is not reported).
const CHANGES_IN_PLACE: &[&str] = &[
    "push",
    "append",
    "insert",
    "pad",
    "reverse",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_desc",
    "dedup",
    "retain",
    "fill_with",
    "mixin",
];

/// The variable a chain of indexing and properties starts from (`a` of `a[i].x`).
fn chain_root(e: &Expr) -> Option<&str> {
    match e {
        Expr::Variable(x, ..) => Some(x.1.as_str()),
        Expr::Index(b, ..) | Expr::Dot(b, ..) => chain_root(&b.lhs),
        _ => None,
    }
}

/// The last link of a chain (`push(..)` of `a[i].push(..)`).
fn chain_end(e: &Expr) -> &Expr {
    match e {
        Expr::Index(b, ..) | Expr::Dot(b, ..) => chain_end(&b.rhs),
        e => e,
    }
}

/// The variables a value hands back: itself, the items of an array or map made of it,
/// the arguments of a function it calls (which may hand them back), the last value of a
/// block.
fn handed_back(e: &Expr, into: &mut BTreeSet<String>) {
    match e {
        Expr::Variable(x, ..) => {
            into.insert(x.1.to_string());
        }
        Expr::Array(items, _) => items.iter().for_each(|i| handed_back(i, into)),
        Expr::Map(m, _) => m.0.iter().for_each(|(_, v)| handed_back(v, into)),
        Expr::FnCall(f, _) => f.args.iter().for_each(|a| handed_back(a, into)),
        Expr::Stmt(block) => last_value(block.statements(), into),
        _ => {}
    }
}

/// The variables the last statement of a block hands back (both branches of an `if`).
fn last_value(stmts: &[Stmt], into: &mut BTreeSet<String>) {
    match stmts.last() {
        Some(Stmt::Expr(e)) => handed_back(e, into),
        Some(Stmt::FnCall(f, _)) => f.args.iter().for_each(|a| handed_back(a, into)),
        Some(Stmt::If(f, _)) => {
            last_value(f.body.statements(), into);
            last_value(f.branch.statements(), into);
        }
        Some(Stmt::Block(b)) => last_value(b.statements(), into),
        _ => {}
    }
}

/// Changes functions make in place to a parameter they never hand back (by `return` or
/// as their last value) and never replace with a `let` of the same name. Rhai passes
/// arguments by value, so `seen.push(k)` in `fn flood(k, seen)` changes the function's
/// own copy: the caller's array stays as it was. (A method's `this` is the caller's own
/// value, and is not reported.)
fn lost_changes(ast: &AST) -> Vec<LostChange> {
    let mut out = Vec::new();
    for f in ast.iter_fn_def() {
        if f.params.is_empty() || f.name.starts_with("anon$") {
            continue;
        }
        let n = f.params.len();
        let mut one = ast.clone_functions_only();
        one.retain_functions(|_, _, name, arity| name == f.name.as_str() && arity == n);
        let mut top: Vec<Stmt> = Vec::new();
        let mut back = BTreeSet::new();
        let mut shadowed = BTreeSet::new();
        let mut changes: Vec<(String, String, usize, usize)> = Vec::new();
        one.walk(&mut |path: &[ASTNode]| {
            // A link inside a chain is judged with the chain.
            let inner = match path {
                [.., ASTNode::Expr(Expr::Index(b, ..) | Expr::Dot(b, ..)), ASTNode::Expr(e)] => {
                    std::ptr::eq(&b.rhs, *e)
                }
                _ => false,
            };
            if let [ASTNode::Stmt(s)] = path {
                top.push((*s).clone());
            }
            let (root, how, pos) = match path.last() {
                Some(ASTNode::Stmt(Stmt::Var(x, ..))) => {
                    shadowed.insert(x.0.name.to_string());
                    return true;
                }
                Some(ASTNode::Stmt(Stmt::Return(Some(e), ..))) => {
                    handed_back(e, &mut back);
                    return true;
                }
                Some(ASTNode::Stmt(Stmt::Assignment(x))) => {
                    let lhs = &x.1.lhs;
                    if !matches!(lhs, Expr::Index(..) | Expr::Dot(..)) {
                        return true;
                    }
                    // Stored into something else (`grid[y] = row`): the change goes with it.
                    handed_back(&x.1.rhs, &mut back);
                    let how = if matches!(lhs, Expr::Index(..)) { "[...] =" } else { ". =" };
                    (chain_root(lhs), how.to_string(), lhs.start_position())
                }
                Some(ASTNode::Expr(e @ (Expr::Index(..) | Expr::Dot(..)))) if !inner => match chain_end(e) {
                    Expr::MethodCall(m, pos) if CHANGES_IN_PLACE.contains(&m.name.as_str()) => {
                        // What is pushed into something (`this.push(m)`) goes with it.
                        m.args.iter().for_each(|a| handed_back(a, &mut back));
                        (chain_root(e), m.name.to_string(), *pos)
                    }
                    _ => return true,
                },
                _ => return true,
            };
            if let Some(root) = root.filter(|r| f.params.iter().any(|p| p.as_str() == *r)) {
                changes.push((root.to_string(), how, pos.line().unwrap_or(0), pos.position().unwrap_or(1)));
            }
            true
        });
        last_value(&top, &mut back);
        let mut told = BTreeSet::new();
        for (param, how, line, col) in changes {
            if back.contains(&param) || shadowed.contains(&param) || !told.insert(param.clone()) {
                continue;
            }
            out.push(LostChange { function: f.name.to_string(), param, how, line, col });
        }
    }
    out.sort_by_key(|l| (l.line, l.col));
    out
}

/// Whether some script may read name `key` of kind `names` (a setting, a value key...): a
/// call names it in a literal, or (when a script also reads that kind through a variable)
/// some string of the scripts is the key, or a prefix of it ending in `_` or `-`
/// (`"stickers_" + k`) and the rest is not one slip from a string of the scripts that is
/// not it (`stickers_stoen` beside `"stone"`: the scripts make `stickers_stone`). A rest
/// far from every string may be made from the pack's data, and counts as read.
pub fn reads_name<'a>(scripts: impl IntoIterator<Item = &'a References> + Clone, names: Names, key: &str) -> bool {
    let named = scripts.clone().into_iter().flat_map(|r| &r.literals).any(|l| l.names == names && l.text == key);
    named
        || scripts.clone().into_iter().any(|r| r.dynamic.contains(&names))
            && (scripts.clone().into_iter().any(|r| r.strings.contains(key))
                || prefixes_of(scripts.clone(), key).into_iter().any(|p| made_name(scripts.clone(), key, p).is_none()))
}

/// The strings of the scripts that are a prefix of `key` ending in `_` or `-`.
fn prefixes_of<'a>(scripts: impl IntoIterator<Item = &'a References>, key: &str) -> Vec<&'a str> {
    scripts
        .into_iter()
        .flat_map(|r| &r.strings)
        .map(String::as_str)
        .filter(|s| s.len() < key.len() && (s.ends_with('_') || s.ends_with('-')) && key.starts_with(s))
        .collect()
}

/// For `key` made of `prefix` and a rest that is not a string of the scripts but one slip
/// from one: the name the scripts make (`stickers_stone` for `stickers_stoen`).
fn made_name<'a>(scripts: impl IntoIterator<Item = &'a References> + Clone, key: &str, prefix: &str) -> Option<String> {
    let rest = &key[prefix.len()..];
    let strings = || scripts.clone().into_iter().flat_map(|r| &r.strings).map(String::as_str);
    if strings().any(|s| s == rest) {
        return None;
    }
    crate::diag::did_you_mean(rest, strings().filter(|s| !s.is_empty())).map(|near| format!("{prefix}{near}"))
}

/// The name the scripts make through a variable that `key` is one slip from
/// (`stickers_stone` for `stickers_stoen`, when a script reads `"stickers_" + k` and
/// spells `"stone"`), for a did-you-mean.
pub fn made_name_near<'a>(
    scripts: impl IntoIterator<Item = &'a References> + Clone,
    names: Names,
    key: &str,
) -> Option<String> {
    if !scripts.clone().into_iter().any(|r| r.dynamic.contains(&names)) {
        return None;
    }
    prefixes_of(scripts.clone(), key).into_iter().find_map(|p| made_name(scripts.clone(), key, p))
}

/// What a pack declares, for checking the names its scripts spell out in strings: for
/// each kind of name, every name the pack's data holds (for counters and marks: every
/// name a script writes, and the counters `pack.toml` shows; for zones: how many
/// literals name each), and the kinds some script also writes through a variable.
#[derive(Debug, Clone, Default)]
pub struct Declared {
    pub known: BTreeMap<Names, BTreeSet<String>>,
    pub zone_uses: BTreeMap<String, usize>,
    pub dynamic: BTreeSet<Names>,
}

impl Declared {
    /// Count what every script of the pack writes, reads through variables and names as
    /// a zone (the data's own names are added by the loader).
    pub fn add_scripts<'a>(&mut self, scripts: impl IntoIterator<Item = &'a References>) {
        for r in scripts {
            self.dynamic.extend(r.dynamic.iter().copied());
            for l in &r.literals {
                if l.writes {
                    self.known.entry(l.names).or_default().insert(l.text.clone());
                }
                if l.names == Names::Zone {
                    *self.zone_uses.entry(l.text.clone()).or_default() += 1;
                }
            }
        }
    }

    pub fn add(&mut self, names: Names, items: impl IntoIterator<Item = String>) {
        self.known.entry(names).or_default().extend(items);
    }
}

/// A literal that names nothing the pack has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameFinding {
    pub finding: Finding,
    /// The name the literal spells out.
    pub subject: String,
    /// The diagnostic code (`unknown-id`, `unknown-keyword`...).
    pub code: &'static str,
    pub error: bool,
}

/// Literals that name what the pack does not have: errors, whether the call then fails
/// (`def_value` of an unknown id, `value` of a value no definition has, `create_deck` of
/// a deck no card lists, `take` from a supply the board lacks) or quietly gives 0, a
/// default, nothing or an empty list (which silently changes every game). Settings a
/// script reads that no scenario gives are warnings (a base pack's rules may read what
/// only the packs extending it set); a hook no script defines yet, a warning unless a
/// near name is defined; a zone named once beside a near name, a warning (a guess).
/// Counters and marks are judged against what scripts write, and not at all when a
/// script also writes them through a variable; a zone is reported when this is the only
/// literal naming it and another zone's name is one slip away.
pub fn check_names(refs: &References, declared: &Declared) -> Vec<NameFinding> {
    let empty = BTreeSet::new();
    let mut out = Vec::new();
    for l in &refs.literals {
        if l.writes {
            continue;
        }
        let known = declared.known.get(&l.names).unwrap_or(&empty);
        let (t, f) = (&l.text, &l.function);
        let (code, error, message) = match l.names {
            Names::Zone => {
                if declared.zone_uses.get(t).copied().unwrap_or(0) > 1 {
                    continue;
                }
                // Only one slip apart, and long enough that near names are unlikely to be
                // two real zones (`hand` and `land` are both real).
                let near = declared.zone_uses.keys().filter(|z| *z != t).find(|z| {
                    t.chars().count() >= 5 && crate::diag::edit_distance(&t.to_lowercase(), &z.to_lowercase()) == 1
                });
                let Some(near) = near.map(String::as_str) else { continue };
                let message = if declared.zone_uses.get(near).copied().unwrap_or(0) > 1 {
                    format!("no other script line names the zone `{t}`, so what goes there is never seen again")
                } else if t.as_str() < near {
                    // Two near names, each named once: one warning for the pair.
                    format!("the zones `{t}` and `{near}` are each named on one line only: is one of them misspelt?")
                } else {
                    continue;
                };
                let hint = Some(format!("did you mean `{near}`?"));
                let finding = Finding { line: l.line, col: l.col, message, hint };
                out.push(NameFinding { finding, subject: t.clone(), code: "zone-named-once", error: false });
                continue;
            }
            _ if known.contains(t) => continue,
            Names::Counter | Names::Mark if declared.dynamic.contains(&l.names) => {
                // Some script also writes them through a variable, so a name no script
                // writes spelt out may still be set: only a near name written is told, as
                // a likely slip (a warning).
                let Some(near) = crate::diag::did_you_mean(t, known.iter().map(String::as_str)) else { continue };
                let (code, what, set) = if l.names == Names::Counter {
                    ("counter-never-set", "counter", "set_counter` or `add_counter")
                } else {
                    ("mark-never-set", "mark", "set_mark` or `add_mark")
                };
                let message = format!(
                    "no script sets a {what} `{t}` by name (with `{set}`; some set {what}s through a variable), so `{f}` may always give 0 here"
                );
                let finding = Finding { line: l.line, col: l.col, message, hint: Some(format!("did you mean `{near}`?")) };
                out.push(NameFinding { finding, subject: t.clone(), code, error: false });
                continue;
            }
            Names::Id => ("unknown-id", true, format!("no definition `{t}` exists in this pack, so `{f}` always fails here")),
            Names::ValueKey => {
                // `value` and `def_value` fail on a value the card does not have; the
                // `_or` forms give their default.
                let fails = !f.ends_with("_or");
                let then = if fails { "always fails" } else { "always gives its default" };
                ("unknown-value-key", fails, format!("no definition has a value `{t}`, so `{f}` {then} here"))
            }
            Names::AttrKey => (
                "unknown-attr",
                true,
                format!("no definition has an attribute `{t}`, so `{f}` never finds one here"),
            ),
            Names::Keyword => {
                ("unknown-keyword", true, format!("no definition has the keyword `{t}`, so `{f}` never matches here"))
            }
            Names::Deck => {
                // `create_deck` refuses a deck no card lists (the deck would be empty).
                let fails = f == "create_deck";
                let then = if fails { "always fails" } else { "finds no cards" };
                ("unknown-deck", true, format!("no card lists the deck `{t}` in its `decks`, so `{f}` {then} here"))
            }
            // `pieces_at(s, "")`: pieces of every supply.
            Names::Supply if t.is_empty() && FILTERS_PIECES.contains(&f.as_str()) => continue,
            Names::Supply => {
                let then = match f.as_str() {
                    "supply" | "count_at" | "count_of" => "always gives 0",
                    "pieces_at" | "pieces_of" => "never finds a piece",
                    _ => "always fails",
                };
                ("unknown-supply", true, format!("the board has no supply `{t}`, so `{f}` {then} here"))
            }
            Names::OptionKey => {
                // A warning even for `option`: a base pack's script may read settings that
                // only the scenarios of packs extending it give (`[check] allow` names them).
                let then = if f == "option" { "is an error if it runs" } else { "never reads one" };
                ("unknown-option", false, format!("neither pack.toml's [options] nor any scenario sets an option `{t}`, so `{f}` {then} here"))
            }
            Names::SeatValue => {
                ("unknown-seat-value", true, format!("no scenario seat has a value `{t}`, so `{f}` always gives 0 here"))
            }
            Names::SpaceKey => (
                "unknown-space-key",
                true,
                format!(
                    "no board space has a value or attribute `{t}` and no script sets one (with `set_space_value` or `add_space_value`), so `{f}` never finds one here"
                ),
            ),
            Names::Counter => (
                "counter-never-set",
                true,
                format!("no script sets a counter `{t}` (with `set_counter` or `add_counter`), so `{f}` always gives 0 here"),
            ),
            Names::Mark => (
                "mark-never-set",
                true,
                format!("no script sets a mark `{t}` (with `set_mark` or `add_mark`), so `{f}` always gives 0 here"),
            ),
            Names::Phase => (
                "unknown-phase",
                true,
                if known.is_empty() {
                    format!("pack.toml declares no `phases`, so `{f}(\"{t}\")` always fails (list them: `phases = [\"{t}\", ...]`)")
                } else {
                    format!("pack.toml's `phases` has no phase `{t}`, so `{f}` always fails here")
                },
            ),
            Names::Hook => {
                // A near name defined is a slip (an error: the call silently does nothing);
                // with none, a hook no script defines yet (a warning).
                let slip = crate::diag::did_you_mean(t, known.iter().map(String::as_str)).is_some();
                let then = if f == "fold" { "gives back its value unchanged" } else { "always gives ()" };
                ("unknown-hook", slip, format!("no script of this pack defines a function `{t}`, so `{f}` {then} here"))
            }
        };
        let near = crate::diag::did_you_mean(t, known.iter().map(String::as_str));
        let finding = Finding { line: l.line, col: l.col, message, hint: near.map(|n| format!("did you mean `{n}`?")) };
        out.push(NameFinding { finding, subject: t.clone(), code, error });
    }
    out
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

    fn names(text: &str, declared: &mut Declared) -> Vec<String> {
        let refs = references(&super::super::compile("card", text).unwrap());
        declared.add_scripts([&refs]);
        check_names(&refs, declared)
            .into_iter()
            .map(|n| format!("{} {} {}", n.code, n.subject, n.finding.hint.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn names_spelt_in_strings_are_checked_against_what_the_pack_declares() {
        let mut d = Declared::default();
        d.add(Names::Keyword, ["troops".to_string()]);
        d.add(Names::Id, ["pikemen".to_string()]);
        let text = "fn f(p, c) {\n  set_counter(p, \"gold\", 1);\n  if has_keyword(c, \"trops\") { counter(p, \"glod\") }\n  def_name(\"pikeman\");\n  c.has_keyword(\"troops\");\n}";
        assert_eq!(
            names(text, &mut d),
            vec![
                "unknown-keyword trops did you mean `troops`?",
                "counter-never-set glod did you mean `gold`?",
                "unknown-id pikeman did you mean `pikemen`?",
            ]
        );
    }

    /// Every function taking a supply name checks it: `place` fails on an unknown one,
    /// `pieces_at` finds nothing (and `""` there means every supply).
    #[test]
    fn supplies_named_in_place_and_the_piece_filters_are_checked() {
        let mut d = Declared::default();
        d.add(Names::Supply, ["army".to_string()]);
        let text = "fn f(s) {\n  place(\"amry\", s, 0);\n  pieces_at(s, \"armys\");\n  pieces_at(s, \"\");\n  count_of(0, \"army\")\n}";
        let refs = references(&super::super::compile("card", text).unwrap());
        let got: Vec<String> = check_names(&refs, &d)
            .into_iter()
            .map(|n| {
                format!("{}:{} {} {}", n.finding.line, n.code, n.finding.message, n.finding.hint.unwrap_or_default())
            })
            .collect();
        assert_eq!(
            got,
            [
                "2:unknown-supply the board has no supply `amry`, so `place` always fails here did you mean `army`?",
                "3:unknown-supply the board has no supply `armys`, so `pieces_at` never finds a piece here did you mean `army`?",
            ]
        );
    }

    /// A setting read through a prefix (`option_or("stickers_" + k, 0)`) counts as read
    /// when the rest is a string of the scripts, or far from all of them (made from data);
    /// one slip from one of them, it is not read, and the name the scripts make is near.
    #[test]
    fn a_setting_made_from_a_prefix_needs_a_rest_the_scripts_spell() {
        let text = "fn f() {\n  for k in [\"stone\", \"wood\"] { option_or(\"stickers_\" + k, 0); }\n}";
        let refs = references(&super::super::compile("rules", text).unwrap());
        let read = |key: &str| reads_name([&refs], Names::OptionKey, key);
        assert!(read("stickers_stone") && read("stickers_wood"));
        assert!(read("stickers_from_the_data"));
        assert!(!read("stickers_stoen"));
        assert_eq!(made_name_near([&refs], Names::OptionKey, "stickers_stoen").as_deref(), Some("stickers_stone"));
        assert_eq!(made_name_near([&refs], Names::OptionKey, "stickers_stone"), None);
    }

    #[test]
    fn phases_are_judged_against_pack_toml_phases() {
        let text = "fn f() {\n  set_phase(\"play\");\n  if is_phase(\"drfat\") { next_phase(); }\n}";
        // Without a `phases` list every phase is unknown, and the message says to list them.
        let refs = references(&super::super::compile("card", text).unwrap());
        let none = check_names(&refs, &Declared::default());
        assert_eq!(none.len(), 2);
        assert!(none.iter().all(|n| n.error && n.code == "unknown-phase"));
        assert!(none[0].finding.message.contains("pack.toml declares no `phases`"), "{}", none[0].finding.message);
        let mut d = Declared::default();
        d.add(Names::Phase, ["draft".to_string(), "play".to_string()]);
        assert_eq!(names(text, &mut d), vec!["unknown-phase drfat did you mean `draft`?"]);
    }

    #[test]
    fn counters_written_through_a_variable_are_not_judged() {
        let mut d = Declared::default();
        let text = "fn f(p, k) {\n  add_counter(p, k, 1);\n  counter(p, \"anything\")\n}";
        assert!(names(text, &mut d).is_empty());
    }

    #[test]
    fn a_zone_named_once_beside_a_near_one_is_reported_once() {
        let mut d = Declared::default();
        let text = "fn f(c) {\n  move_card(c, zone(\"dicsard\"));\n  zone(\"discard\");\n  zone(\"hand\");\n  zone(\"land\");\n  zone(\"land\");\n}";
        assert_eq!(names(text, &mut d), vec!["zone-named-once dicsard did you mean `discard`?"]);
    }

    fn lost(text: &str) -> Vec<String> {
        let refs = references(&super::super::compile("rules", text).unwrap());
        refs.lost_changes
            .iter()
            .map(|l| format!("{}:{} {}({}) {}", l.line, l.col, l.function, l.param, l.how))
            .collect()
    }

    #[test]
    fn changes_to_a_parameter_never_handed_back_are_found() {
        // The flood fill whose `seen` never grows for its caller.
        let flood =
            "fn flood(k, seen) {\n  seen.push(k);\n  for n in [k + 1] { if !seen.contains(n) { flood(n, seen); } }\n}";
        assert_eq!(lost(flood), vec!["2:8 flood(seen) push"]);
        assert_eq!(lost("fn tidy(hand) {\n  hand.sort_by_key(|c| c);\n}"), vec!["2:8 tidy(hand) sort_by_key"]);
        let index = "fn mark(grid, x, y) {\n  grid[y][x] = 1;\n}\nfn name(m) {\n  m.name = \"x\";\n  let n = 1;\n}";
        assert_eq!(lost(index), vec!["2:3 mark(grid) [...] =", "5:3 name(m) . ="]);
        // Deep in a chain, through an index that is itself a parameter.
        assert_eq!(lost("fn f(a, i) {\n  a[i].push(1);\n  0\n}"), vec!["2:8 f(a) push"]);
        // Handed back, as the last value, by `return`, in an array or through a call.
        for ok in [
            "fn f(a) { a.push(1); a }",
            "fn f(a) { a.push(1); return a; }",
            "fn f(a) { if a.len() > 2 { return []; } a.push(1); if true { a } else { [] } }",
            "fn f(a, b) { a.push(1); b[0] = 2; [a, b] }",
            "fn f(m) { m.x = 1; #{ m: m } }",
            "fn g(a) { a } fn f(a) { a.sort(); g(a) }",
            // A copy made on purpose, a method's own `this`, a closure, a read only.
            "fn f(a) { let a = a; a.push(1); a.len() }",
            "fn f(x) { this.push(x); }",
            "fn f(a) { let g = |x| { x.push(1); 0 }; g.call(a) }",
            "fn f(a) { a.len() + a[0] }",
            "fn f(n) { n += 1; print(n); }",
            // Stored into what the caller keeps; items taken out of a working copy.
            "fn f(m) { m.label = `x`; this.push(m); }",
            "fn f(g, row) { row.push(1); g[0] = row; g }",
            "fn f(q) { while q.len() > 0 { let x = q.remove(0); print(x); } }",
        ] {
            assert_eq!(lost(ok), Vec::<String>::new(), "{ok}");
        }
    }

    #[test]
    fn signatures_are_read_with_their_arity() {
        assert_eq!(parse_signature("abs(x: int) -> int"), Some(("abs".into(), 1)));
        assert_eq!(parse_signature("players() -> int"), Some(("players".into(), 0)));
        assert_eq!(parse_signature("f(a: Map, b: Array<int>) -> ()"), Some(("f".into(), 2)));
        assert_eq!(parse_signature("+(x: int, y: int) -> int"), None);
    }
}
