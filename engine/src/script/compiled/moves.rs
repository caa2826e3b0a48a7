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

/// The reads of variables in `one` (an AST holding one function) that are last uses.
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
fn mentions_name(e: &Expr, name: &str) -> bool {
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
