//! The compiler: a function's syntax tree to compiled nodes (closures), with variables
//! resolved to slots, calls to their targets and literals built once. Each node restates
//! what Rhai's interpreter does for it (`eval/stmt.rs`, `eval/expr.rs`, `func/call.rs`),
//! counting the same operations at the same positions. A construct not restated here
//! leaves the function to the interpreter (`None`, with the reason in `why`).

use std::collections::HashMap;
use std::fmt::Write as _;

use rhai::{ASTFlags, Dynamic, EvalAltResult, Expr, FnCallExpr, FnPtr, ImmutableString, Position, Stmt, Token};

use super::call::{lend_args, Arg, Call, Quiet};
use super::natives::Site;
use super::rt::{bool_of, boolean, copy, discard, fill, int, mismatch, size_check, Code, Ctl, Place, Rt};
use super::FnIndex;

pub(crate) struct Lower<'a> {
    /// The running function's locals at this point of the compile (Rhai's scope).
    pub names: Vec<ImmutableString>,
    /// Script functions by name and arity (index into the program).
    pub index: &'a FnIndex,
    /// The parameters each script function only reads (see `moves::lendable`).
    pub lends: &'a dyn Fn(usize) -> u64,
    /// Script functions this one calls.
    pub calls: Vec<usize>,
    pub why: Option<String>,
    /// The reads that are last uses of their variable (`moves.rs`): the value is moved
    /// out of its slot, not copied.
    pub moves: &'a std::collections::HashSet<super::moves::At>,
    /// Each statement tells the profiler its line (see `Program::profiled`).
    pub profiled: bool,
}

macro_rules! unsupported {
    ($self:ident, $($t:tt)*) => {{
        if $self.why.is_none() {
            $self.why = Some(format!($($t)*));
        }
        return None;
    }};
}

impl Lower<'_> {
    /// This function calls through a function pointer, which may name any function of
    /// the script: it runs compiled only when they all do.
    pub(crate) fn calls_any(&mut self) {
        let all: Vec<usize> = self.index.all().collect();
        self.calls.extend(all);
    }

    /// Whether the variable read at `pos` is its last use.
    fn last_use(&self, pos: Position) -> bool {
        matches!((pos.line(), pos.position()), (Some(l), Some(c)) if self.moves.contains(&(l, c)))
    }

    pub(crate) fn slot_of(&self, name: &str) -> Option<usize> {
        self.names.iter().rposition(|n| n.as_str() == name)
    }

    /// A statement block; `restore` drops the locals it declared when it ends.
    pub(crate) fn block(&mut self, stmts: &[Stmt], restore: bool) -> Option<Code> {
        if stmts.is_empty() {
            return Some(Box::new(|_| Ok(Dynamic::UNIT)));
        }
        let mark = self.names.len();
        let codes: Vec<Code> = stmts.iter().map(|s| self.stmt(s)).collect::<Option<_>>()?;
        if restore {
            self.names.truncate(mark);
        }
        Some(Box::new(move |rt| {
            let (last, before) = codes.split_last().expect("a statement");
            // (No result is made before the last statement's: overwriting one would drop
            // it, a call for each block run.)
            let r = match before.iter().try_for_each(|c| c(rt).map(discard)) {
                Ok(()) => last(rt),
                Err(e) => Err(e),
            };
            if restore {
                rt.pop_to(rt.base + mark);
            }
            r
        }))
    }

    fn stmt(&mut self, s: &Stmt) -> Option<Code> {
        let code = self.stmt_code(s)?;
        if !self.profiled {
            return Some(code);
        }
        let line = s.position().line().unwrap_or(0) as u32;
        Some(Box::new(move |rt| {
            crate::script::profile::at_line(line);
            code(rt)
        }))
    }

    fn stmt_code(&mut self, s: &Stmt) -> Option<Code> {
        let pos = s.position();
        let body: Code = match s {
            Stmt::Noop(..) => Box::new(|_| Ok(Dynamic::UNIT)),
            Stmt::Expr(e) => {
                let e = self.expr(e)?;
                return Some(Box::new(move |rt| {
                    rt.track(pos)?;
                    e(rt)
                }));
            }
            Stmt::Block(b) => {
                if b.is_empty() {
                    Box::new(|_| Ok(Dynamic::UNIT))
                } else {
                    self.block(b.statements(), true)?
                }
            }
            // Calls and expressions count their statement's operation themselves (one
            // closure less a node).
            Stmt::FnCall(x, p) => return self.fn_call(x, *p, Some(pos)),
            Stmt::Assignment(x) => return self.assignment(&x.0, &x.1.lhs, &x.1.rhs, pos),
            Stmt::Var(x, options, p) => {
                let (name, e, index) = &**x;
                let p = *p;
                // A `const` is a variable whose own value is marked read-only (Rhai's
                // `push_entry`): a copy of it is not, and a function that would change it
                // is refused at its call (`ErrorNonPureMethodCallOnConstant`), as for a
                // constant `this`. Its reads are never moves (`moves.rs`).
                let constant = options.contains(ASTFlags::CONSTANT);
                let e = self.expr(e)?;
                let index = index.map(|i| self.names.len() - i.get());
                if index.is_none() {
                    self.names.push(name.name.clone());
                }
                return Some(Box::new(move |rt| {
                    rt.track(pos)?;
                    if index.is_none() && rt.scope_len() >= crate::script::LIMITS.variables {
                        return Err(Ctl::err(EvalAltResult::ErrorTooManyVariables(p).into()));
                    }
                    let v = if constant { e(rt)?.into_read_only() } else { e(rt)? };
                    match index {
                        Some(i) => *rt.slot(i) = v,
                        None => rt.push_local(v),
                    }
                    Ok(Dynamic::UNIT)
                }));
            }
            Stmt::If(x, ..) => {
                let cond_pos = x.expr.position();
                let cond = self.expr(&x.expr)?;
                let then = (!x.body.is_empty()).then(|| self.block(x.body.statements(), true)).flatten();
                if !x.body.is_empty() && then.is_none() {
                    return None;
                }
                let other = (!x.branch.is_empty()).then(|| self.block(x.branch.statements(), true)).flatten();
                if !x.branch.is_empty() && other.is_none() {
                    return None;
                }
                return Some(Box::new(move |rt| {
                    rt.track(pos)?;
                    let v = cond(rt)?;
                    let c = bool_of(rt.engine, &v, cond_pos)?;
                    discard(v);
                    match (c, &then, &other) {
                        (true, Some(b), _) | (false, _, Some(b)) => b(rt),
                        _ => Ok(Dynamic::UNIT),
                    }
                }));
            }
            Stmt::Switch(x, ..) => self.switch(&x.0, &x.1)?,
            Stmt::While(x, ..) if matches!(x.expr, Expr::Unit(..) | Expr::BoolConstant(true, ..)) => {
                let bpos = x.body.position();
                if x.body.is_empty() {
                    Box::new(move |rt| loop {
                        rt.track(bpos)?;
                    })
                } else {
                    let body = self.block(x.body.statements(), true)?;
                    Box::new(move |rt| loop {
                        match body(rt) {
                            Ok(v) => discard(v),
                            Err(c) => {
                                if let Some(v) = c.in_loop()? {
                                    return Ok(v);
                                }
                            }
                        }
                    })
                }
            }
            Stmt::While(x, ..) => {
                let cond_pos = x.expr.position();
                let cond = self.expr(&x.expr)?;
                let body = if x.body.is_empty() { None } else { Some(self.block(x.body.statements(), true)?) };
                Box::new(move |rt| loop {
                    let c = cond(rt)?;
                    if !bool_of(rt.engine, &c, cond_pos)? {
                        return Ok(Dynamic::UNIT);
                    }
                    let Some(body) = &body else { continue };
                    match body(rt) {
                        Ok(v) => discard(v),
                        Err(c) => {
                            if let Some(v) = c.in_loop()? {
                                return Ok(v);
                            }
                        }
                    }
                })
            }
            Stmt::Do(x, options, ..) => {
                let is_while = !options.contains(ASTFlags::NEGATED);
                let body = if x.body.is_empty() { None } else { Some(self.block(x.body.statements(), true)?) };
                let cond_pos = x.expr.position();
                let cond = self.expr(&x.expr)?;
                Box::new(move |rt| loop {
                    if let Some(body) = &body {
                        match body(rt) {
                            Ok(v) => discard(v),
                            Err(c) => match c.in_loop()? {
                                None => continue,
                                Some(v) => return Ok(v),
                            },
                        }
                    }
                    let c = cond(rt)?;
                    if bool_of(rt.engine, &c, cond_pos)? ^ is_while {
                        return Ok(Dynamic::UNIT);
                    }
                })
            }
            Stmt::For(x, ..) => self.for_loop(&x.0, x.1.as_ref(), &x.2)?,
            Stmt::BreakLoop(e, options, ..) => {
                let is_break = options.contains(ASTFlags::BREAK);
                let e = match e {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                Box::new(move |rt| {
                    let v = match &e {
                        Some(e) => e(rt)?,
                        None => Dynamic::UNIT,
                    };
                    Err(if is_break { Ctl::brk(v) } else { Ctl::cont() })
                })
            }
            Stmt::Return(e, options, p) => {
                let throw = options.contains(ASTFlags::BREAK);
                let p = *p;
                let e = match e {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                Box::new(move |rt| {
                    let v = match &e {
                        Some(e) => e(rt)?,
                        None => Dynamic::UNIT,
                    };
                    Err(if throw { Ctl::err(EvalAltResult::ErrorRuntime(v, p).into()) } else { Ctl::ret(v) })
                })
            }
            Stmt::TryCatch(..) => unsupported!(self, "try/catch"),
            _ => unsupported!(self, "a statement of kind {:?}", std::mem::discriminant(s)),
        };
        Some(Box::new(move |rt| {
            rt.track(pos)?;
            body(rt)
        }))
    }

    fn for_loop(&mut self, var: &rhai::Ident, counter: Option<&rhai::Ident>, fc: &rhai::FlowControl) -> Option<Code> {
        let var_pos = var.pos;
        let has_counter = counter.is_some();
        let iter_pos = fc.expr.start_position();
        // A head ending in a call that makes one of the iterators Rhai keeps to itself
        // (`range(a, b, step)`, `s.chars()`, `n.bits()`): its arguments are kept while it
        // runs (`iters.rs`), unless the script has a function of that name.
        let restated = match head_call(&fc.expr) {
            Some(n) if super::iters::NAMES.contains(&n) => {
                if self.index.has(n) {
                    unsupported!(self, "a `for` loop over `{n}(...)`, a function of the script")
                }
                true
            }
            _ => false,
        };
        let iter = self.expr(&fc.expr)?;
        let mark = self.names.len();
        if let Some(c) = counter {
            self.names.push(c.name.clone());
        }
        self.names.push(var.name.clone());
        let var_slot = self.names.len() - 1;
        let bpos = fc.body.position();
        let body = if fc.body.is_empty() { None } else { Some(self.block(fc.body.statements(), true)?) };
        self.names.truncate(mark);
        Some(Box::new(move |rt| {
            let max = crate::script::LIMITS.variables - usize::from(has_counter);
            if rt.scope_len() >= max {
                return Err(Ctl::err(EvalAltResult::ErrorTooManyVariables(var_pos).into()));
            }
            let (obj, head) = if restated {
                let outer = rt.head.replace(Default::default());
                let obj = iter(rt);
                let head = std::mem::replace(&mut rt.head, outer);
                (obj?, head)
            } else {
                (iter(rt)?, None)
            };
            let items = match head.as_ref().and_then(|h| super::iters::items(&obj, h)) {
                Some(items) => Ok(items),
                None => for_items(obj),
            };
            let items = items.map_err(|t| {
                Ctl::err(if super::host_table().iterable(t) {
                    super::chain::unsupported_at_run_time("a `for` loop over this type", iter_pos)
                } else {
                    EvalAltResult::ErrorFor(iter_pos).into()
                })
            })?;
            if has_counter {
                rt.push_local(Dynamic::ZERO);
            }
            rt.push_local(Dynamic::UNIT);
            let r = (|| {
                let Some(body) = &body else {
                    for _ in items {
                        rt.track(bpos)?;
                    }
                    return Ok(Dynamic::UNIT);
                };
                let mut index: i64 = -1;
                for v in items {
                    index = index.checked_add(1).ok_or_else(|| {
                        Ctl::err(
                            EvalAltResult::ErrorArithmetic(format!("for-loop counter overflow: {index}"), var_pos)
                                .into(),
                        )
                    })?;
                    if has_counter {
                        *rt.slot(var_slot - 1) = Dynamic::from_int(index);
                    }
                    discard(std::mem::replace(rt.slot(var_slot), v));
                    match body(rt) {
                        Ok(v) => discard(v),
                        Err(c) => {
                            if let Some(v) = c.in_loop()? {
                                return Ok(v);
                            }
                        }
                    }
                }
                Ok(Dynamic::UNIT)
            })();
            rt.pop_to(rt.base + mark);
            r
        }))
    }

    fn switch(&mut self, value: &Expr, cases: &rhai::SwitchCasesCollection) -> Option<Code> {
        let v = self.expr(value)?;
        let mut conds: Vec<Option<(Code, Position)>> = Vec::new();
        let mut bodies: Vec<Code> = Vec::new();
        for b in &cases.expressions {
            conds.push(match &b.lhs {
                Expr::BoolConstant(..) => None,
                c => Some((self.expr(c)?, c.position())),
            });
            bodies.push(self.expr(&b.rhs)?);
        }
        let consts: Vec<Option<bool>> = cases
            .expressions
            .iter()
            .map(|b| if let Expr::BoolConstant(x, ..) = b.lhs { Some(x) } else { None })
            .collect();
        let table: HashMap<u64, Vec<usize>> = cases.cases.iter().map(|(h, c)| (*h, c.blocks.to_vec())).collect();
        let ranges = cases.ranges.clone();
        let def = cases.def_case;
        Some(Box::new(move |rt| {
            let value = v(rt)?;
            let mut chosen = None;
            let test = |rt: &mut Rt, i: usize| -> Result<bool, Ctl> {
                match (&consts[i], &conds[i]) {
                    (Some(b), _) => Ok(*b),
                    (None, Some((c, p))) => {
                        let x = c(rt)?;
                        bool_of(rt.engine, &x, *p)
                    }
                    (None, None) => Ok(true),
                }
            };
            if hashable(&value) {
                if let Some(list) = table.get(&super::switch_hash(&value)) {
                    for &i in list {
                        if test(rt, i)? {
                            chosen = Some(i);
                            break;
                        }
                    }
                }
                if chosen.is_none() && !ranges.is_empty() {
                    for r in ranges.iter().filter(|r| r.contains(&value)) {
                        if test(rt, r.index())? {
                            chosen = Some(r.index());
                            break;
                        }
                    }
                }
            }
            match chosen.or(def) {
                Some(i) => bodies[i](rt),
                None => Ok(Dynamic::UNIT),
            }
        }))
    }

    /// An expression, counting its evaluation as the interpreter's `eval_expr`.
    pub(crate) fn expr(&mut self, e: &Expr) -> Option<Code> {
        let pos = e.position();
        let simple = matches!(
            e,
            Expr::DynamicConstant(..)
                | Expr::IntegerConstant(..)
                | Expr::CharConstant(..)
                | Expr::StringConstant(..)
                | Expr::BoolConstant(..)
                | Expr::Unit(..)
        );
        if simple {
            return literal(e, pos);
        }
        let body: Code = match e {
            // Calls and variables count their operation themselves (one closure less).
            Expr::FnCall(x, p) => return self.fn_call(x, *p, Some(pos)),
            Expr::Variable(x, ..) => {
                let Some(slot) = self.slot_of(&x.1) else {
                    unsupported!(self, "the variable `{}` outside its function", x.1)
                };
                if self.last_use(pos) {
                    return Some(Box::new(move |rt| {
                        rt.track(pos)?;
                        Ok(rt.take_last(slot))
                    }));
                }
                return Some(Box::new(move |rt| {
                    rt.track(pos)?;
                    Ok(copy(rt.slot(slot)))
                }));
            }
            Expr::ThisPtr(p) => {
                let p = *p;
                Box::new(move |rt| rt.read(Place::This(p)))
            }
            Expr::InterpolatedString(parts, ..) => {
                let table = super::host_table();
                let parts: Vec<(Code, Position, Site)> = parts
                    .iter()
                    .map(|p| {
                        let site = Site::new(table, "to_string".into(), 1, p.position());
                        Some((self.expr(p)?, p.position(), site))
                    })
                    .collect::<Option<_>>()?;
                // Whether a number is printed by the standard `to_string` (Crown registers
                // none of its own).
                let plain_numbers = !table.has_dynamic("to_string", 1)
                    && table.exact("to_string", &[std::any::TypeId::of::<rhai::INT>()]).is_none();
                Box::new(move |rt| {
                    // Written into the machine's own buffer (a value inside may be another
                    // interpolation: it finds the buffer taken and makes its own).
                    let mut s = std::mem::take(&mut rt.text);
                    s.clear();
                    for (c, p, site) in &parts {
                        let mut item = c(rt)?;
                        if item.is_string() {
                            s.push_str(item.read_lock::<ImmutableString>().expect("a string").as_str());
                        } else if let (true, Some(n)) = (plain_numbers, int(&item)) {
                            // The standard `to_string` of a number, one operation (a failure
                            // to count it is not an error here, as in `to_text`).
                            let _ = rt.track(site.pos);
                            let _ = write!(s, "{n}");
                        } else {
                            s.push_str(&to_text(rt, site, &mut item));
                        }
                        discard(item);
                        size_check((0, 0, s.len()), *p)?;
                    }
                    let text = ImmutableString::from(s.as_str());
                    rt.text = s;
                    Ok(Dynamic::from(text))
                })
            }
            Expr::Array(items, ..) => {
                let items: Vec<(Code, Position)> =
                    items.iter().map(|x| Some((self.expr(x)?, x.position()))).collect::<Option<_>>()?;
                Box::new(move |rt| {
                    let mut arr = rhai::Array::with_capacity(items.len());
                    let mut total = (0, 0, 0);
                    for (c, p) in &items {
                        let v = c(rt)?;
                        let s = super::rt::item_sizes(&v);
                        total = (total.0 + s.0 + 1, total.1 + s.1, total.2 + s.2);
                        size_check(total, *p)?;
                        arr.push(v);
                    }
                    Ok(Dynamic::from_array(arr))
                })
            }
            Expr::Map(x, ..) => {
                let template = x.1.clone();
                let items: Vec<(Code, Position)> =
                    x.0.iter().map(|(_, v)| Some((self.expr(v)?, v.position()))).collect::<Option<_>>()?;
                // The template holds the keys in order (a key is written once: the parser
                // refuses a second), so its values are filled in that order, each from the
                // item it names, with no look-up: `order[j]` is the item of the j-th key.
                let order: Option<Vec<usize>> = template
                    .keys()
                    .map(|k| x.0.iter().position(|(name, _)| name.name.as_str() == k.as_str()))
                    .collect();
                let Some(order) = order.filter(|o| o.len() == items.len()) else {
                    unsupported!(self, "a map literal whose keys are not each written once");
                };
                Box::new(move |rt| {
                    let mut values: Vec<Dynamic> = Vec::with_capacity(items.len());
                    let mut total = (0, 0, 0);
                    for (c, p) in &items {
                        let v = c(rt)?;
                        let s = super::rt::item_sizes(&v);
                        total = (total.0 + s.0, total.1 + s.1 + 1, total.2 + s.2);
                        size_check(total, *p)?;
                        values.push(v);
                    }
                    let mut map = template.clone();
                    for (slot, &i) in map.values_mut().zip(&order) {
                        *slot = std::mem::take(&mut values[i]);
                    }
                    Ok(Dynamic::from_map(map))
                })
            }
            Expr::And(xs, ..) | Expr::Or(xs, ..) => {
                let is_and = matches!(e, Expr::And(..));
                let xs: Vec<(Code, Position)> =
                    xs.iter().map(|x| Some((self.expr(x)?, x.position()))).collect::<Option<_>>()?;
                Box::new(move |rt| {
                    for (c, p) in &xs {
                        let v = c(rt)?;
                        let b = bool_of(rt.engine, &v, *p)?;
                        discard(v);
                        if b != is_and {
                            return Ok(Dynamic::from_bool(b));
                        }
                    }
                    Ok(Dynamic::from_bool(is_and))
                })
            }
            Expr::Coalesce(xs, ..) => {
                let xs: Vec<Code> = xs.iter().map(|x| self.expr(x)).collect::<Option<_>>()?;
                Box::new(move |rt| {
                    let mut v = Dynamic::UNIT;
                    for c in &xs {
                        v = c(rt)?;
                        if !v.is_unit() {
                            break;
                        }
                    }
                    Ok(v)
                })
            }
            Expr::Stmt(b) => self.block(b.statements(), true)?,
            Expr::Index(..) | Expr::Dot(..) => return self.chain_read(e, pos),
            _ => unsupported!(self, "an expression of kind {:?}", std::mem::discriminant(e)),
        };
        Some(Box::new(move |rt| {
            rt.track(pos)?;
            body(rt)
        }))
    }

    /// An argument, as the interpreter's `get_arg_value`: a literal counts one operation
    /// at its start and is not evaluated as an expression.
    pub(crate) fn arg(&mut self, e: &Expr) -> Option<Code> {
        if e.get_literal_value(None).is_some() {
            return literal(e, e.start_position());
        }
        self.expr(e)
    }

    /// An argument of a call by name: quoted text, an integer and a variable, the
    /// arguments most calls have, made by the call itself (see [`Arg`]); anything else
    /// as [`Lower::arg`].
    fn call_arg(&mut self, e: &Expr) -> Option<Arg> {
        Some(match e {
            Expr::StringConstant(s, _) => Arg::Text(s.clone(), e.start_position()),
            Expr::IntegerConstant(n, _) => Arg::Int(*n, e.start_position()),
            Expr::Variable(x, ..) if !self.last_use(e.position()) => match self.slot_of(&x.1) {
                Some(slot) => Arg::Var(slot, e.position()),
                None => unsupported!(self, "the variable `{}` outside its function", x.1),
            },
            _ => Arg::Code(self.arg(e)?),
        })
    }

    /// A function call (not a method call): operators, the syntax functions, script
    /// functions, then native ones.
    /// `track`: the position the node counts its operation at, when the call is a whole
    /// statement or expression (the interpreter counts one before evaluating it).
    pub(crate) fn fn_call(&mut self, x: &FnCallExpr, pos: Position, track: Option<Position>) -> Option<Code> {
        if x.capture_parent_scope {
            unsupported!(self, "a call capturing its caller's scope");
        }
        if let Some(op) = x.op_token.clone() {
            if x.args.len() == 1 {
                let a = self.arg(&x.args[0])?;
                let site = Site::new(super::host_table(), x.name.clone(), 1, pos);
                return Some(Box::new(move |rt| {
                    if let Some(t) = track {
                        rt.track(t)?;
                    }
                    let mut v = a(rt)?;
                    if matches!(op, Token::Bang) {
                        if let Some(b) = boolean(&v) {
                            discard(v);
                            return Ok(Dynamic::from_bool(!b));
                        }
                    }
                    if matches!(op, Token::Minus | Token::UnaryMinus) {
                        if let Some(n) = int(&v) {
                            discard(v);
                            return n.checked_neg().map(Dynamic::from_int).ok_or_else(|| {
                                Ctl::err(EvalAltResult::ErrorArithmetic("integer overflow".into(), pos).into())
                            });
                        }
                    }
                    rt.level += 1;
                    let r = site.call(rt, &mut [&mut v], false);
                    rt.level -= 1;
                    Ok(r?)
                }));
            }
            if x.args.len() == 2 {
                let l = self.arg(&x.args[0])?;
                let r = self.arg(&x.args[1])?;
                let site = Site::new(super::host_table(), x.name.clone(), 2, pos);
                // Chosen now, tried first: the operator on two integers, and `==` or `!=`
                // of a text with a quoted one (`kind == "card"`).
                let ints = super::ops::int_op(&op);
                let text = match (&op, &x.args[1]) {
                    (Token::EqualsTo | Token::NotEqualsTo, Expr::StringConstant(s, _)) => {
                        Some((s.clone(), matches!(op, Token::EqualsTo)))
                    }
                    _ => None,
                };
                return Some(Box::new(move |rt| {
                    if let Some(t) = track {
                        rt.track(t)?;
                    }
                    let mut lhs = l(rt)?;
                    let mut rhs = r(rt)?;
                    if let (Some(f), Some(a), Some(b)) = (ints, int(&lhs), int(&rhs)) {
                        if let Some(v) = f(a, b) {
                            discard(lhs);
                            discard(rhs);
                            return Ok(v);
                        }
                    }
                    if let Some((s, equal)) = &text {
                        if let Some(t) = lhs.read_lock::<ImmutableString>() {
                            return Ok(Dynamic::from_bool((*t == *s) == *equal));
                        }
                    }
                    if !lhs.is_variant() && !rhs.is_variant() {
                        if let Some(r) = super::ops::binary(&op, &lhs, &rhs) {
                            discard(lhs);
                            discard(rhs);
                            return r.map_err(|e| Ctl::err(fill(e, pos)));
                        }
                        if super::ops::special(&op, &lhs, &rhs) {
                            let r = super::natives::engine_call(
                                rt,
                                site.name.as_str(),
                                pos,
                                &mut [&mut lhs, &mut rhs],
                                false,
                            );
                            rt.ops -= 1;
                            rt.clear_side();
                            return Ok(r?);
                        }
                    }
                    rt.level += 1;
                    let r = site.call(rt, &mut [&mut lhs, &mut rhs], false);
                    rt.level -= 1;
                    Ok(r?)
                }));
            }
        }
        let n = x.args.len();
        match (x.name.as_str(), n) {
            ("Fn", 1) => {
                let a = self.arg(&x.args[0])?;
                let apos = x.args[0].start_position();
                return Some(Box::new(move |rt| {
                    if let Some(t) = track {
                        rt.track(t)?;
                    }
                    let v = a(rt)?;
                    let s = v.into_immutable_string().map_err(|t| Ctl::err(mismatch(rt.engine, "string", t, apos)))?;
                    FnPtr::try_from(s).map(Dynamic::from).map_err(|e| Ctl::err(fill(e, apos)))
                }));
            }
            ("curry", n) if n > 1 => {
                let f = self.arg(&x.args[0])?;
                let fpos = x.args[0].start_position();
                let rest: Vec<Code> = x.args[1..].iter().map(|a| self.arg(a)).collect::<Option<_>>()?;
                return Some(Box::new(move |rt| {
                    if let Some(t) = track {
                        rt.track(t)?;
                    }
                    let v = f(rt)?;
                    let mut p = super::fnptr::pointer(rt, v, fpos).map_err(Ctl::err)?;
                    for a in &rest {
                        p.add_curry(a(rt)?);
                    }
                    Ok(Dynamic::from(p))
                }));
            }
            ("call", n) if n >= 1 => {
                self.calls_any();
                let f = self.arg(&x.args[0])?;
                let fpos = x.args[0].start_position();
                // A variable handed first goes to a native function by reference.
                let first = match x.args.get(1) {
                    Some(Expr::Variable(v, ..)) => match self.slot_of(&v.1) {
                        Some(slot) => Some(Place::Slot(slot)),
                        None => unsupported!(self, "the variable `{}` outside its function", v.1),
                    },
                    Some(Expr::ThisPtr(p)) => Some(Place::This(*p)),
                    _ => None,
                };
                let rest: Vec<Code> = x.args[1..].iter().map(|a| self.arg(a)).collect::<Option<_>>()?;
                return Some(Box::new(move |rt| {
                    if let Some(t) = track {
                        rt.track(t)?;
                    }
                    let v = f(rt)?;
                    let p = super::fnptr::pointer(rt, v, fpos).map_err(Ctl::err)?;
                    let mut args = rhai::FnArgsVec::new();
                    for a in &rest {
                        args.push(a(rt)?);
                    }
                    Ok(super::fnptr::call_by_name(rt, &p, args, pos, first)?)
                }));
            }
            ("call" | "curry" | "is_def_var" | "eval" | "is_def_fn" | "Fn", _) => {
                unsupported!(self, "`{}` with {n} arguments", x.name)
            }
            _ => (),
        }
        let script = (!x.hashes.is_native_only()).then(|| self.index.find(&x.name, n)).flatten();
        if let Some(i) = script {
            self.calls.push(i);
        }
        // The first argument, when a variable (or `this`), goes by reference (to a native
        // method).
        let by_ref = match x.args.first() {
            Some(Expr::Variable(v, _, vpos)) => match self.slot_of(&v.1) {
                Some(slot) => Some((Place::Slot(slot), *vpos)),
                None => unsupported!(self, "the variable `{}` outside its function", v.1),
            },
            Some(Expr::ThisPtr(p)) => Some((Place::This(*p), *p)),
            _ => None,
        };
        let mut rest: Vec<Arg> =
            x.args.iter().skip(usize::from(by_ref.is_some())).map(|a| self.call_arg(a)).collect::<Option<_>>()?;
        let site = Site::new(super::host_table(), x.name.clone(), n, pos);
        let type_of = x.name.as_str() == "type_of" && n == 1;
        // A script function gets a copy of a variable handed first, or the value itself
        // at the variable's last use.
        let moved = matches!(by_ref, Some((Place::Slot(_), vpos)) if self.last_use(vpos));
        let known = (script.is_none() && !type_of).then(|| super::host_table().only(&x.name, n).cloned()).flatten();
        // The host's narration and prompts, made only where something reads them.
        let off = usize::from(by_ref.is_some());
        let quiet = match (x.name.as_str(), n, off) {
            _ if script.is_some() => None,
            ("log", 1, 0) => Some(Quiet::Narration { from: 0 }),
            ("log_to", 2 | 3, _) => Some(Quiet::Narration { from: 1 - off }),
            ("choose", 3, _) => Some(Quiet::Prompt { at: 1 - off }),
            _ => None,
        };
        let appends = script.is_none() && x.name.as_str() == "push" && n == 2;
        // A variable some other argument mentions is not lent.
        let shared: Vec<bool> = (0..n)
            .map(|j| match &x.args[j] {
                Expr::Variable(v, ..) => {
                    x.args.iter().enumerate().any(|(m, a)| m != j && super::moves::mentions_name(a, &v.1))
                }
                _ => false,
            })
            .collect();
        let lend = script.map_or(0, |i| lend_args((self.lends)(i), by_ref, moved, &mut rest, &shared));
        Some(Call { track, by_ref, rest, script, site, type_of, moved, known, quiet, appends, lend, pos }.code())
    }
}

/// A literal, counting one operation at `pos`: integers, booleans, characters, unit and
/// quoted text made where they are needed (no call to copy a value), anything else (a
/// constant list or map, a folded constant) copied from the one built now.
fn literal(e: &Expr, pos: Position) -> Option<Code> {
    Some(match e {
        Expr::IntegerConstant(n, _) => {
            let n = *n;
            Box::new(move |rt| {
                rt.track(pos)?;
                Ok(Dynamic::from_int(n))
            })
        }
        Expr::BoolConstant(b, _) => {
            let b = *b;
            Box::new(move |rt| {
                rt.track(pos)?;
                Ok(Dynamic::from_bool(b))
            })
        }
        Expr::CharConstant(c, _) => {
            let c = *c;
            Box::new(move |rt| {
                rt.track(pos)?;
                Ok(Dynamic::from_char(c))
            })
        }
        Expr::Unit(_) => Box::new(move |rt| {
            rt.track(pos)?;
            Ok(Dynamic::UNIT)
        }),
        Expr::StringConstant(s, _) => {
            let s = s.clone();
            Box::new(move |rt| {
                rt.track(pos)?;
                Ok(Dynamic::from(s.clone()))
            })
        }
        _ => {
            let v = e.get_literal_value(None)?;
            Box::new(move |rt| {
                rt.track(pos)?;
                Ok(v.clone())
            })
        }
    })
}

/// The name of the call a `for` loop's head ends in (`f(...)`, `x.f(...)`, `x[i].y.f`):
/// none when it ends in an index or anything else.
fn head_call(e: &Expr) -> Option<&str> {
    match e {
        Expr::FnCall(x, _) => Some(x.name.as_str()),
        Expr::Dot(x, ..) | Expr::Index(x, ..) => match &x.rhs {
            Expr::MethodCall(m, _) if matches!(e, Expr::Dot(..)) => Some(m.name.as_str()),
            Expr::Property(p, _) if matches!(e, Expr::Dot(..)) => Some(p.2.as_str()),
            rest @ (Expr::Dot(..) | Expr::Index(..)) => head_call(rest),
            _ => None,
        },
        _ => None,
    }
}

/// The values a `for` loop runs over, for the types Rhai iterates.
fn for_items(obj: Dynamic) -> Result<Box<dyn Iterator<Item = Dynamic>>, std::any::TypeId> {
    if obj.is_array() {
        return Ok(Box::new(obj.into_array().expect("an array").into_iter()));
    }
    if let Some(r) = obj.read_lock::<std::ops::Range<i64>>() {
        return Ok(Box::new(r.clone().map(Dynamic::from_int)));
    }
    if let Some(r) = obj.read_lock::<std::ops::RangeInclusive<i64>>() {
        return Ok(Box::new(r.clone().map(Dynamic::from_int)));
    }
    if obj.is_string() {
        let s = obj.into_immutable_string().expect("a string");
        let chars: Vec<char> = s.chars().collect();
        return Ok(Box::new(chars.into_iter().map(Dynamic::from_char)));
    }
    Err(obj.type_id())
}

/// A value in an interpolated string: `to_string` as Rhai's `print_with_func_raw` calls it
/// (one native call), with its fallbacks.
fn to_text(rt: &mut Rt, site: &Site, item: &mut Dynamic) -> String {
    rt.level += 1;
    let r = site.call(rt, &mut [item], true);
    rt.level -= 1;
    match r {
        Ok(v) if v.is_string() => v.into_immutable_string().expect("a string").to_string(),
        Ok(v) => rt.engine.map_type_name(v.type_name()).to_string(),
        Err(_) => format!("{item}"),
    }
}

/// Rhai's `Dynamic::is_hashable`.
fn hashable(v: &Dynamic) -> bool {
    if v.is_unit() || v.is_bool() || v.is_string() || v.is_char() || v.is_int() || v.is_blob() {
        return true;
    }
    if let Ok(a) = v.as_array_ref() {
        return a.iter().all(hashable);
    }
    if let Ok(m) = v.as_map_ref() {
        return m.values().all(hashable);
    }
    if let Some(f) = v.read_lock::<FnPtr>() {
        return f.curry().iter().all(hashable);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::tests::same;

    /// A `const` inside a function runs compiled, alike on both runtimes: read whole and
    /// by item, copied into a variable that then changes, handed to a function that
    /// changes its copy, declared again on every pass of a loop, and a changing method
    /// called on it or on an item of it (an error), a script method reading it or changing
    /// it (an error).
    #[test]
    fn local_constants_run_compiled_and_agree() {
        let src = r#"
fn read(a) { const N = 3; const L = [1, [2, 3], #{ x: 4 }]; N * a + L[1][0] + L[2].x + L.len() }
fn copied(a) { const L = [1, 2]; let m = L; m.push(a); m.len() + L.len() }
fn handed(a) { const L = [1]; grow(L, a) + L.len() }
fn grow(l, a) { l.push(a); l.len() }
fn looped(a) { let s = 0; for i in 0..a { const K = i * 2; s += K; } s }
fn text(a) { const S = "abc"; `${S[a % 3]}${S.len()}` }
fn pushed(a) { const L = [1, 2]; L.push(a); L.len() }
fn inner(a) { const L = [[1], 2]; L[0].push(a); L[0].len() }
fn last(a) { const L = [a]; L }
fn last_pushed(a) { let r = last(a); r.push(1); r.len() }
fn bumped(a) { const M = #{ n: a }; M.bump() }
fn bump() { this.n += 1; this.n }
fn peeked(a) { const M = #{ n: a }; M.peek() + M.n }
fn peek() { this.n * 2 }
"#;
        let ast = crate::script::compile("diff.rhai", src).unwrap();
        assert_eq!(super::super::not_compiled(&ast), []);
        for f in
            ["read", "copied", "handed", "looped", "text", "pushed", "inner", "last", "last_pushed", "bumped", "peeked"]
        {
            for a in [0, 1, 2] {
                same(src, f, &[a]);
            }
        }
        // The variable limit, reached by a constant.
        for before in [997, 998, 999] {
            let body: String = (0..before).map(|i| format!("let v{i} = {i};\n")).collect();
            same(&format!("fn f(a) {{\n{body}const C = a;\nC + 1\n}}"), "f", &[1]);
        }
    }
}
