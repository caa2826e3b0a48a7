//! Last uses: the reads of a variable after which its function never looks at it again,
//! where compiled code moves the value out of its slot instead of copying it (a list or a
//! map handed on, returned, or stored elsewhere is not copied only to be dropped).
//!
//! The interpreter copies at every read; a move gives the same values as long as nothing
//! reads the slot afterwards, which this analysis makes sure of, conservatively:
//! - the read is the variable name's last occurrence in the function's text (any later
//!   mention of the name, a declaration that shadows it included, keeps it a copy);
//! - it is in no loop (a loop's next pass may read the variable again);
//! - where the interpreter evaluates in another order than the text reads, a name seen
//!   on both sides is never moved: a variable handed by reference to a call and the
//!   call's other arguments (`f(x, g(x))`: `x` is read after `g(x)`), a chain's root and
//!   its indices and arguments (`x.push(x)`, `[x].contains(x)`: the arguments come
//!   first), the target of an op-assignment or of an assignment through a chain and the
//!   value assigned (`x += f(x)`, `x[i] = g(i)`: the value comes first).
//!
//! `tests/runtimes.rs` and the differential tests hold moved reads to the interpreter's
//! values.

use std::collections::{HashMap, HashSet};

use rhai::{ASTNode, Expr, Position, Stmt, AST};

/// A read's place in the text.
pub(crate) type At = (usize, usize);

fn at(p: Position) -> Option<At> {
    Some((p.line()?, p.position()?))
}

/// The reads of variables in `one` (an AST holding one function) that are last uses. (A
/// parameter lent to the call is copied there instead: see `Rt::take_last`.)
pub(crate) fn last_uses(one: &AST) -> HashSet<At> {
    // Every mention of a name: where, whether a read, whether in a loop.
    let mut mentions: HashMap<String, Vec<(At, bool, bool)>> = HashMap::new();
    let mut never: HashSet<String> = HashSet::new();
    one.walk(&mut |path: &[ASTNode]| {
        let in_loop = path[..path.len() - 1]
            .iter()
            .any(|n| matches!(n, ASTNode::Stmt(Stmt::While(..) | Stmt::Do(..) | Stmt::For(..))));
        match path.last() {
            Some(ASTNode::Expr(Expr::Variable(v, _, pos))) => match at(*pos) {
                Some(a) => mentions.entry(v.1.to_string()).or_default().push((a, true, in_loop)),
                None => {
                    never.insert(v.1.to_string());
                }
            },
            Some(ASTNode::Stmt(Stmt::Var(x, options, _))) => {
                let name = x.0.name.to_string();
                // A constant's own value is read-only, its copies are not: a move would
                // hand on the mark.
                if options.contains(rhai::ASTFlags::CONSTANT) {
                    never.insert(name.clone());
                }
                match at(x.0.pos) {
                    Some(a) => mentions.entry(name).or_default().push((a, false, in_loop)),
                    None => {
                        never.insert(name);
                    }
                }
            }
            Some(ASTNode::Stmt(Stmt::Assignment(x))) => {
                // The value is made first, then the target read (an op-assignment) or
                // its chain evaluated (indices, then the root).
                let (op, lhs, rhs) = (&x.0, &x.1.lhs, &x.1.rhs);
                if op.is_op_assignment() || !matches!(lhs, Expr::Variable(..)) {
                    never.extend(shared_names(lhs, rhs));
                }
            }
            Some(ASTNode::Stmt(Stmt::FnCall(x, _)) | ASTNode::Expr(Expr::FnCall(x, _))) => {
                if let Some(Expr::Variable(v, ..)) = x.args.first() {
                    if x.args[1..].iter().any(|a| mentions_name(a, &v.1)) {
                        never.insert(v.1.to_string());
                    }
                }
            }
            Some(ASTNode::Expr(Expr::Dot(x, ..) | Expr::Index(x, ..))) => {
                // A chain's indices and arguments are evaluated before its root.
                never.extend(shared_names(&x.lhs, &x.rhs));
            }
            _ => (),
        }
        true
    });
    mentions
        .into_iter()
        .filter(|(name, _)| !never.contains(name))
        .filter_map(|(_, ms)| {
            let last = ms.iter().max_by_key(|m| m.0)?;
            let alone = ms.iter().filter(|m| m.0 == last.0).count() == 1;
            (alone && last.1 && !last.2).then_some(last.0)
        })
        .collect()
}

/// What a function's text can do to a value through a call, for [`lendable`].
pub(crate) trait Calls {
    /// Whether `name` with `n` arguments (the value called on first) is a script
    /// function of this script.
    fn is_script(&self, name: &str, n: usize) -> bool;
    /// Whether a method `name` with `n` arguments (the value called on first) leaves the
    /// value it is called on as it was: some host function has that name and number, and
    /// every one of them is pure, and no script function has that name (a script method
    /// changes its `this`; so may a function pointer a map holds under that name).
    fn leaves_value(&self, name: &str, n: usize) -> bool;
}

/// The parameters (bit `i` for the `i`-th) that the function in `one` only ever reads, so
/// that a caller may lend it a variable's list or map instead of a copy and take it back
/// when the call ends: the value is never assigned to, in whole or in part, nor handed by
/// reference to anything that may change it. Conservatively, a parameter is
/// not lendable when its name is ever:
/// - the root of an assignment's target (`p = ..`, `p += ..`, `p.x = ..`, `p[i] = ..`);
/// - declared again (`let p`, `const p`, a `for` loop's variable or counter);
/// - the root of a chain holding a method call that may change its value (see
///   [`Calls::leaves_value`]; every method named anywhere in the chain counts, the
///   arguments' own included);
/// - handed first to a call by name other than a script function's (a native function
///   gets it by reference) that may change it, or handed to `call` anywhere.
pub(crate) fn lendable(one: &AST, params: &[&str], calls: &impl Calls) -> u64 {
    let mut changed: HashSet<String> = HashSet::new();
    one.walk(&mut |path: &[ASTNode]| {
        match path.last() {
            Some(ASTNode::Stmt(Stmt::Assignment(x))) => changed.extend(root_name(&x.1.lhs)),
            Some(ASTNode::Stmt(Stmt::Var(x, ..))) => {
                changed.insert(x.0.name.to_string());
            }
            Some(ASTNode::Stmt(Stmt::For(x, _))) => {
                changed.insert(x.0.name.to_string());
                changed.extend(x.1.as_ref().map(|c| c.name.to_string()));
            }
            Some(ASTNode::Expr(e @ (Expr::Dot(x, ..) | Expr::Index(x, ..)))) => {
                if let Some(root) = root_name(e) {
                    let mut leaves = true;
                    x.rhs.walk(&mut Vec::new(), &mut |p: &[ASTNode]| {
                        if let Some(ASTNode::Expr(Expr::MethodCall(m, _))) = p.last() {
                            leaves &= m.name.as_str() != "call" && calls.leaves_value(&m.name, m.args.len() + 1);
                        }
                        leaves
                    });
                    if !leaves {
                        changed.insert(root);
                    }
                }
            }
            Some(ASTNode::Stmt(Stmt::FnCall(x, _)) | ASTNode::Expr(Expr::FnCall(x, _) | Expr::MethodCall(x, _))) => {
                let n = x.args.len();
                if x.name.as_str() == "call" {
                    changed.extend(x.args.iter().filter_map(root_name));
                } else if let (true, Some(Expr::Variable(v, ..))) = (x.op_token.is_none(), x.args.first()) {
                    let by_ref =
                        matches!(path.last(), Some(ASTNode::Stmt(Stmt::FnCall(..)) | ASTNode::Expr(Expr::FnCall(..))));
                    if by_ref && !calls.is_script(&x.name, n) && !calls.leaves_value(&x.name, n) {
                        changed.insert(v.1.to_string());
                    }
                }
            }
            _ => (),
        }
        true
    });
    params.iter().enumerate().filter(|(i, p)| *i < 64 && !changed.contains(**p)).fold(0, |mask, (i, _)| mask | 1 << i)
}

/// The parameters (bit `i` for the `i`-th) the function moves somewhere at their last use
/// (`return p`, `g(p)`, `let q = p`): a lent one would be copied there, the
/// copy a loan saves its caller, so such a parameter is not worth lending. A chain's root
/// (`p.x`, `p[i]`, `p.len()`) and a variable handed first to a native function are read
/// where they lie, not moved.
pub(crate) fn moved_params(one: &AST, last: &HashSet<At>, params: &[&str], calls: &impl Calls) -> u64 {
    let mut moved = 0u64;
    one.walk(&mut |path: &[ASTNode]| {
        let Some(ASTNode::Expr(Expr::Variable(v, _, pos))) = path.last() else { return true };
        let (Some(i), Some(a)) = (params.iter().position(|p| *p == v.1.as_str()), at(*pos)) else { return true };
        if i >= 64 || !last.contains(&a) {
            return true;
        }
        let is_this = |e: &Expr| matches!(e, Expr::Variable(_, _, p) if p == pos);
        let in_place = match path.len().checked_sub(2).map(|k| &path[k]) {
            Some(ASTNode::Expr(Expr::Dot(x, ..) | Expr::Index(x, ..))) => is_this(&x.lhs),
            Some(ASTNode::Expr(Expr::FnCall(x, _)) | ASTNode::Stmt(Stmt::FnCall(x, _))) => {
                x.op_token.is_none() && x.args.first().is_some_and(is_this) && !calls.is_script(&x.name, x.args.len())
            }
            _ => false,
        };
        if !in_place {
            moved |= 1 << i;
        }
        true
    });
    moved
}

/// The variable a chain (or a plain variable read) starts from.
fn root_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Variable(v, ..) => Some(v.1.to_string()),
        Expr::Dot(x, ..) | Expr::Index(x, ..) => root_name(&x.lhs),
        _ => None,
    }
}

/// The variables both `a` and `b` mention.
fn shared_names(a: &Expr, b: &Expr) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    a.walk(&mut Vec::new(), &mut |path: &[ASTNode]| {
        if let Some(ASTNode::Expr(Expr::Variable(v, ..))) = path.last() {
            names.push(v.1.to_string());
        }
        true
    });
    names.retain(|n| mentions_name(b, n));
    names
}

/// Whether `e` mentions the variable `name` anywhere.
pub(crate) fn mentions_name(e: &Expr, name: &str) -> bool {
    let mut found = false;
    e.walk(&mut Vec::new(), &mut |path: &[ASTNode]| {
        if let Some(ASTNode::Expr(Expr::Variable(v, ..))) = path.last() {
            found |= v.1.as_str() == name;
        }
        !found
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::compiled::tests::same;

    /// The parameters of function `name` of `src` its callers may lend it.
    fn lent(src: &str, name: &str) -> u64 {
        let ast = crate::script::compile("t.rhai", src).expect("the script");
        let f = ast.iter_fn_def().find(|f| f.name.as_str() == name).expect("the function").clone();
        let params: Vec<&str> = f.params.iter().map(|p| p.as_str()).collect();
        let prog = crate::script::compiled::program(&ast);
        lendable(&super::super::alone(&f), &params, &super::super::ScriptCalls(&prog.index))
    }

    #[test]
    fn a_parameter_is_lendable_only_where_nothing_can_change_it() {
        let src = r#"
fn reads(p, q) { p.len() + q[0] + p.x.len() + q.index_of(2) + p.keys().len() }
fn handed(p) { reads(p, p) + [p].len() }
fn tested(p) { if 1 in p { 1 } else { 0 } }
fn assigned(p) { p = 1 }
fn field(p) { p.x = 1 }
fn item(p) { p[0] += 1 }
fn pushed(p) { p.push(1) }
fn pushed_by_name(p) { push(p, 1) }
fn inner(p) { p.x.push(1) }
fn declared(p) { let p = 1; p }
fn looped(p) { let s = 0; for p in [1, 2] { s += p; } s }
fn counted(p) { let s = 0; for (x, p) in [1, 2] { s += p; } s }
fn scripted(p) { p.bump() }
fn bump() { this.n += 1 }
fn called(p) { let f = Fn("push"); f.call(p, 1) }
fn unknown(p) { p.no_such_method() }
fn sorted(p) { p.sort() }
fn got(p) { p.get(0) }
fn mixed(p, q, r) { q.push(1); p.len() + r }
"#;
        assert_eq!(lent(src, "reads"), 0b11);
        assert_eq!(lent(src, "handed"), 0b1);
        assert_eq!(lent(src, "tested"), 0b1);
        for f in [
            "assigned",
            "field",
            "item",
            "pushed",
            "pushed_by_name",
            "inner",
            "declared",
            "looped",
            "counted",
            "scripted",
            "called",
            "unknown",
            "sorted",
            "got",
        ] {
            assert_eq!(lent(src, f), 0, "`{f}` may change its parameter");
        }
        assert_eq!(lent(src, "mixed"), 0b101);
        // Past the 64th parameter nothing is lent (the mask has 64 bits).
        let params: Vec<String> = (0..66).map(|i| format!("p{i}")).collect();
        let many = format!("fn many({}) {{ p0.len() + p64.len() + p65.len() }}", params.join(", "));
        assert_eq!(lent(&many, "many"), u64::MAX);
    }

    /// A parameter moved at its last use (so not worth lending) is one read there whole:
    /// returned, handed to a script function or an operator, kept; not one read where it
    /// lies (a chain's root, handed first to a native function) nor a loop's head.
    #[test]
    fn a_parameter_is_moved_where_its_last_use_takes_it_whole() {
        let src = r#"
fn returned(p) { p }
fn looped(p) { let s = 0; for x in p { s += x; } s }
fn handed(p) { g(p) }
fn g(q) { q.len() }
fn compared(p) { p == [1] }
fn kept(p) { let q = p; q.len() }
fn read(p, q) { p.len() + q[0] + p.x }
fn native(p) { contains(p, 1) }
fn earlier(p) { let n = g(p); n + p.len() }
fn second(a, p) { a.len() + g(p) }
"#;
        let ast = crate::script::compile("t.rhai", src).expect("the script");
        let prog = crate::script::compiled::program(&ast);
        let moved = |name: &str| {
            let i = prog.index.find(name, ast.iter_fn_def().find(|f| f.name.as_str() == name).unwrap().params.len());
            let f = &prog.fns[i.unwrap()];
            let params: Vec<&str> = f.def.params.iter().map(|p| p.as_str()).collect();
            moved_params(
                &super::super::alone(&f.def),
                prog.last_uses(i.unwrap()),
                &params,
                &super::super::ScriptCalls(&prog.index),
            )
        };
        for f in ["returned", "handed", "compared", "kept"] {
            assert_eq!(moved(f), 1, "`{f}` moves its parameter");
        }
        assert_eq!(moved("read"), 0);
        assert_eq!(moved("native"), 0);
        assert_eq!(moved("second"), 0b10);
        // (A loop's head is never moved: it is part of the loop.)
        assert_eq!(moved("looped"), 0);
        // (Handed on before its last use, which reads it in place.)
        assert_eq!(moved("earlier"), 0);
    }

    /// Lists and maps lent to functions that only read them give the values copies give,
    /// on both runtimes: the caller changing its variable after the call, the callee
    /// keeping or returning its parameter, lending it on, failing, recursing past the call
    /// limit, an empty function, a variable another argument changes first (not lent), a
    /// constant (copied), a function that changes its parameter (not lent), the third
    /// argument, more variables than one call lends, `this` handed first (copied).
    #[test]
    fn lent_values_read_as_the_interpreters_copies() {
        let src = r#"
fn reads(l, m) { l.len() * 100 + m.n + l[0] }
fn lend(a) { let l = [a, 2, 3]; let m = #{ n: a }; let s = reads(l, m); l.push(s); m.n += 1; reads(l, m) + l.len() }
fn stores(l) { #{ kept: l } }
fn keep(a) { let l = [a]; let k = stores(l); l.push(5); k.kept.len() * 10 + l.len() }
fn returns(l) { l }
fn back(a) { let l = [a]; let r = returns(l); r.push(1); l.len() * 10 + r.len() }
fn deep(l, n) { if n == 0 { l.len() } else { deep(l, n - 1) + l[0] } }
fn nested(a) { let l = [a, a]; deep(l, 3) + l.len() }
fn fails(l) { l[10] }
fn failing(a) { let l = [a]; fails(l) }
fn two(x, y) { x.len() * 10 + y }
fn popped(a) { let l = [a, 2]; two(l, l.pop()) }
fn both(x, y) { x.len() + y.len() }
fn twice(a) { let l = [a]; both(l, l) }
fn empty(l) { }
fn to_empty(a) { let l = [a]; empty(l); l.len() }
fn changes(l) { l.push(1); l.len() }
fn not_lent(a) { let l = [a]; changes(l) + l.len() }
fn constant(a) { const L = [1, 2]; reads(L, #{ n: a }) }
fn too_deep(l, n) { too_deep(l, n + 1) }
fn overflow(a) { let l = [a]; too_deep(l, 0) }
fn in_loop(a) { let l = [a, 1]; let s = 0; for i in 0..3 { s += reads(l, #{ n: i }); } s + l.len() }
fn has(l, x) { x in l }
fn tested(a) { let l = [1, 2, a]; has(l, 2) }
fn three(n, l, m) { n + l.len() * 10 + m.n }
fn third(a) { let l = [a]; let m = #{ n: a }; let r = three(a, l, m); r + l.len() + m.n }
fn nine(a, b, c, d, e, f, g, h, i) { a.len() + b.len() + c.len() + d.len() + e.len() + f.len() + g.len() + h.len() + i.len() }
fn many(x) { let a = [x]; let b = [1]; let c = [2]; let d = [3]; let e = [4]; let f = [5]; let g = [6]; let h = [7]; let i = [8, 9]; let n = nine(a, b, c, d, e, f, g, h, i); n + nine(a, b, c, d, e, f, g, h, i) }
fn on_this() { reads(this, #{ n: 1 }) }
fn via_this(a) { let l = [a, 2]; l.on_this() + l.len() }
"#;
        let ast = crate::script::compile("diff.rhai", src).unwrap();
        assert_eq!(crate::script::compiled::not_compiled(&ast), []);
        for f in [
            "lend", "keep", "back", "nested", "failing", "popped", "twice", "to_empty", "not_lent", "constant",
            "overflow", "in_loop", "tested", "third", "many", "via_this",
        ] {
            for a in [0, 1, 5] {
                same(src, f, &[a]);
            }
        }
        // Loans were made where the functions only read, and not elsewhere.
        let loans = |f: &str| {
            let before = crate::script::compiled::call::LENT.with(|n| n.get());
            crate::script::compiled::with_runtime(crate::script::compiled::Runtime::Compiled, || {
                let _ = crate::script::api::call_script_fn(&ast, f, vec![1.into()]);
            });
            crate::script::compiled::call::LENT.with(|n| n.get()) - before
        };
        // (`m` at its last use is moved, not lent.)
        assert_eq!(loans("lend"), 3);
        assert_eq!(loans("nested"), 4);
        assert_eq!(loans("in_loop"), 3);
        // The third argument, after a variable handed first that holds a number.
        assert_eq!(loans("third"), 2);
        // At most eight a call (`Loans::MAX`): the ninth is copied (the second call moves
        // every variable, at its last use).
        assert_eq!(loans("many"), 8);
        // `this` handed first is copied, never lent.
        assert_eq!(loans("via_this"), 0);
        for f in ["popped", "twice", "not_lent", "constant"] {
            assert_eq!(loans(f), 0, "`{f}` lends nothing");
        }
    }

    /// The host lends a value (a bot's plan) to a function that only reads it, and gets
    /// it back as it was; a function that changes it gets a copy. Alike on both runtimes.
    #[test]
    fn the_host_lends_a_value_only_to_a_function_that_reads_it() {
        use crate::script::compiled::{call::LENT, with_runtime, Runtime};
        let src = "fn score(a, plan) { plan.n + a }\nfn change(a, plan) { plan.n += a; plan.n }";
        let ast = crate::script::compile("lend.rhai", src).unwrap();
        for r in [Runtime::Rhai, Runtime::Compiled] {
            for (f, lent) in [("score", 1), ("change", 0)] {
                let mut plan =
                    rhai::Dynamic::from_map([("n".into(), rhai::Dynamic::from_int(1))].into_iter().collect());
                let before = LENT.with(|n| n.get());
                let v = with_runtime(r, || {
                    crate::script::api::call_script_fn_lending(&ast, f, vec![2.into()], Some(&mut plan))
                });
                assert_eq!(v.unwrap().as_int(), Ok(3), "{f} on {r:?}");
                assert_eq!(plan.to_string(), "#{\"n\": 1}", "{f} on {r:?}: the plan comes back as it was");
                let expected = if r == Runtime::Compiled { lent } else { 0 };
                assert_eq!(LENT.with(|n| n.get()) - before, expected, "{f} on {r:?}");
            }
        }
    }

    /// The last uses found in function `f` of `src`, as (line, column).
    fn found(src: &str) -> Vec<At> {
        let ast = crate::script::compile("t.rhai", src).expect("the script");
        let mut v: Vec<At> = last_uses(&ast).into_iter().collect();
        v.sort();
        v
    }

    #[test]
    fn a_read_is_moved_only_at_its_last_use_outside_loops() {
        // `x` at its last use (column 32), `y` at its only one (column 36).
        assert_eq!(found("fn f(y) { let x = [1]; g(x); g(x); y }"), vec![(1, 32), (1, 36)]);
        assert_eq!(found("fn f() { let x = [1]; for i in 0..2 { g(x); } }"), vec![]);
        assert_eq!(found("fn f() { let x = [1]; while true { g(x); } }"), vec![]);
    }

    #[test]
    fn a_name_read_out_of_text_order_is_never_moved() {
        assert_eq!(found("fn f() { let x = [1]; x.push(x); }"), vec![]);
        assert_eq!(found("fn f() { let x = [1]; x += g(x); }"), vec![]);
        assert_eq!(found("fn f() { let x = [1]; x[0] = g(x); }"), vec![]);
        assert_eq!(found("fn f() { let x = [1]; h(x, g(x)); }"), vec![]);
        assert_eq!(found("fn f(a) { [a].contains(a) }"), vec![]);
        // (`i` is never moved; `x` is, where it is last read.)
        assert_eq!(found("fn f(i) { let x = [1]; x[i] = g(i); x }"), vec![(1, 37)]);
        // A plain assignment writes after its value is made: the read may move.
        assert_eq!(found("fn f() { let x = [1]; x = g(x); }"), vec![(1, 29)]);
    }
}
