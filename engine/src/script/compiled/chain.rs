//! Chains of indexing, properties and method calls (`a[i].b.push(x)`), read and
//! assigned, and assignment in general: Rhai's `eval_dot_index_chain`,
//! `get_indexed_mut` and `eval_op_assignment` restated for compiled code.

use rhai::{ASTFlags, Dynamic, EvalAltResult, Expr, ImmutableString, OpAssignment, Position, Target};

use super::lower::Lower;
use super::natives::{engine_call, Site};
use super::rt::{calc_index, check_size, copy, fill, int, mismatch, Code, Ctl, Place, Rt, R, X};

enum Kind {
    /// `[index]`: the index value is evaluated up front.
    Index,
    Prop {
        name: ImmutableString,
        getter: ImmutableString,
        setter: ImmutableString,
    },
    Method {
        site: Site,
        args: usize,
        script: Option<usize>,
    },
    /// `.curry(..)`: a copy of the function pointer with more values curried.
    Curry {
        args: usize,
    },
    /// `.call(..)`: the function a pointer names, called (see `fnptr`).
    CallPtr {
        args: usize,
        first_pos: Position,
    },
}

impl Kind {
    /// Whether the step makes a new value (its target belongs to the chain from there).
    fn makes_value(&self) -> bool {
        matches!(self, Kind::Method { .. } | Kind::Curry { .. } | Kind::CallPtr { .. })
    }
}

struct Step {
    kind: Kind,
    /// The position of the step itself (an index's start, a property's, a call's).
    pos: Position,
    /// The position of the `.` or `[` (the parent node).
    op_pos: Position,
    /// `?.` or `?[`: a unit target ends the chain with unit.
    negated: bool,
}

struct Chain {
    steps: Vec<Step>,
    /// Evaluating the index values and call arguments, left to right (each pushes its
    /// values).
    pre: Vec<(Code, bool)>,
    root: Root,
    /// The first step whose target belongs to the chain alone (a value the root
    /// expression or a method call made, which is dropped when the chain ends): a read
    /// there moves the item out instead of copying it, with the same result.
    owned_from: usize,
}

enum Root {
    Place(Place, Position),
    Expr(Code),
}

impl Lower<'_> {
    fn chain(&mut self, e: &Expr) -> Option<Chain> {
        let (Expr::Index(x, ..) | Expr::Dot(x, ..)) = e else { unreachable!("a chain") };
        let mut steps = Vec::new();
        let mut pre: Vec<(Code, bool)> = Vec::new();
        // The steps, as `eval_dot_index_chain_raw` walks them.
        let mut parent = e;
        let mut rhs = &x.rhs;
        loop {
            // An index that is itself a chain (`a[b.c]`): the parent says so.
            let whole = parent.options().intersects(ASTFlags::BREAK);
            let is_index = matches!(parent, Expr::Index(..));
            if whole && !is_index {
                unsupported_chain(self, "a property chain used whole")?;
            }
            let negated = parent.options().intersects(ASTFlags::NEGATED);
            let (head, next) = match rhs {
                Expr::Index(x2, ..) | Expr::Dot(x2, ..) if !whole => (&x2.lhs, Some(rhs)),
                other => (other, None),
            };
            let kind = match (head, is_index) {
                (_, true) => Kind::Index,
                (Expr::Property(p, _), false) => {
                    Kind::Prop { name: p.2.clone(), getter: (p.0).0.clone(), setter: (p.1).0.clone() }
                }
                (Expr::MethodCall(m, _), false) if m.name.as_str() == "curry" => Kind::Curry { args: m.args.len() },
                (Expr::MethodCall(m, _), false) if m.name.as_str() == "call" => {
                    self.calls_any();
                    let first_pos = m.args.first().map_or(Position::NONE, Expr::start_position);
                    Kind::CallPtr { args: m.args.len(), first_pos }
                }
                (Expr::MethodCall(m, mpos), false) => {
                    let script = self.index.find(&m.name, m.args.len());
                    if let Some(i) = script {
                        self.calls.push(i);
                    }
                    Kind::Method {
                        site: Site::new(super::host_table(), m.name.clone(), m.args.len() + 1, *mpos),
                        args: m.args.len(),
                        script,
                    }
                }
                _ => return None,
            };
            let pos = match (head, is_index) {
                (h, true) => h.start_position(),
                (Expr::Property(_, p), _) | (Expr::MethodCall(_, p), _) => *p,
                _ => Position::NONE,
            };
            steps.push(Step { kind, pos, op_pos: parent.position(), negated });
            match next {
                Some(n) => {
                    parent = n;
                    let (Expr::Index(x2, ..) | Expr::Dot(x2, ..)) = n else { unreachable!() };
                    rhs = &x2.rhs;
                }
                None => break,
            }
        }
        // The index values and arguments, as `eval_dot_index_chain` evaluates them.
        let top_literal = matches!(e, Expr::Index(..)) && x.rhs.get_literal_value(None).is_some();
        let top_simple = match (&x.rhs, e) {
            (Expr::Property(..), Expr::Dot(..)) => true,
            (Expr::MethodCall(m, _), Expr::Dot(..)) => m.args.is_empty(),
            _ => false,
        };
        if top_literal {
            let v = x.rhs.get_literal_value(None)?;
            pre.push((Box::new(move |_| Ok(v.clone())), true));
        } else if !top_simple {
            self.arguments(e, &x.rhs, &mut pre)?;
        }
        let root = match &x.lhs {
            Expr::Variable(v, _, vpos) => match self.slot_of(&v.1) {
                Some(s) => Root::Place(Place::Slot(s), *vpos),
                None => return unsupported_chain(self, "a variable outside its function").map(|_| unreachable!()),
            },
            Expr::ThisPtr(p) => Root::Place(Place::This(*p), *p),
            other => Root::Expr(self.expr(other)?),
        };
        let owned_from = match root {
            Root::Expr(_) => 0,
            Root::Place(..) => steps.iter().position(|s| s.kind.makes_value()).map_or(usize::MAX, |j| j + 1),
        };
        Some(Chain { steps, pre, root, owned_from })
    }

    /// `eval_dot_index_chain_arguments`.
    fn arguments(&mut self, parent: &Expr, e: &Expr, pre: &mut Vec<(Code, bool)>) -> Option<()> {
        let pos = e.position();
        pre.push((
            Box::new(move |rt| {
                rt.track(pos)?;
                Ok(Dynamic::UNIT)
            }),
            false,
        ));
        let is_index = matches!(parent, Expr::Index(..));
        match (e, is_index) {
            (Expr::MethodCall(m, _), false) => {
                for a in &m.args {
                    pre.push((self.arg(a)?, true));
                }
            }
            (Expr::Property(..), false) => (),
            (Expr::Index(x, ..) | Expr::Dot(x, ..), _) if !parent.options().intersects(ASTFlags::BREAK) => {
                match (&x.lhs, is_index) {
                    (Expr::Property(..), false) => (),
                    (Expr::MethodCall(m, _), false) => {
                        for a in &m.args {
                            pre.push((self.arg(a)?, true));
                        }
                    }
                    (l, true) => pre.push((self.expr(l)?, true)),
                    _ => return None,
                }
                self.arguments(e, &x.rhs, pre)?;
            }
            (_, true) => pre.push((self.expr(e)?, true)),
            _ => return None,
        }
        Some(())
    }

    /// A chain read as an expression, counting the expression's operation at `pos` first.
    pub(crate) fn chain_read(&mut self, e: &Expr, pos: Position) -> Option<Code> {
        let chain = self.chain(e)?;
        // The two reads rules make most, `o.kind` and `list[i]` on a variable, go straight
        // to the item when the variable holds a map or an array (anything else, and any
        // error, takes the long way below, which restates the interpreter).
        let one = match (&chain.root, chain.steps.as_slice()) {
            (Root::Place(Place::Slot(s), vpos), [step]) if !step.negated => Some((*s, *vpos)),
            _ => None,
        };
        match (one, &chain.steps.first().map(|s| &s.kind)) {
            (Some((slot, vpos)), Some(Kind::Prop { name, .. })) if chain.pre.is_empty() => {
                let name = name.clone();
                Some(Box::new(move |rt| {
                    rt.track(pos)?;
                    if rt.slot(slot).is_map() {
                        rt.track(vpos)?;
                        rt.track(Position::NONE)?;
                        let map = rt.slot(slot).read_lock::<rhai::Map>().expect("a map");
                        return match map.get(name.as_str()) {
                            Some(v) => Ok(copy(v)),
                            None => Err(Ctl::err(
                                EvalAltResult::ErrorPropertyNotFound(name.to_string(), chain.steps[0].pos).into(),
                            )),
                        };
                    }
                    run_chain(rt, &chain, None)
                }))
            }
            (Some((slot, vpos)), Some(Kind::Index)) => Some(Box::new(move |rt| {
                rt.track(pos)?;
                let vals = pre_values(rt, &chain)?;
                if let (Some(index), true) = (vals.first().and_then(int), rt.slot(slot).is_array()) {
                    rt.track(vpos)?;
                    rt.track(Position::NONE)?;
                    let arr = rt.slot(slot).read_lock::<rhai::Array>().expect("an array");
                    let len = arr.len();
                    return match calc_index(len, index, true) {
                        Some(i) => Ok(copy(&arr[i])),
                        None => Err(Ctl::err(EvalAltResult::ErrorArrayBounds(len, index, chain.steps[0].pos).into())),
                    };
                }
                run_root(rt, &chain, Values { vals, at: 0 }, None)
            })),
            // A longer chain of indexes and properties from a variable (`this.size[r]`,
            // `o.subs[i].unit`): read where it lies when every step finds its item; the
            // operations are counted as the long way counts them (the variable, then one
            // for each step).
            _ if chain.reads_in_place() => Some(Box::new(move |rt| {
                rt.track(pos)?;
                let vals = pre_values(rt, &chain)?;
                if let Root::Place(place, vpos) = chain.root {
                    let found = rt.peek(place).ok().and_then(|root| read_in_place(root, &chain.steps, &vals));
                    if let Some(v) = found {
                        rt.track(vpos)?;
                        for _ in &chain.steps {
                            rt.track(Position::NONE)?;
                        }
                        return Ok(v);
                    }
                }
                run_root(rt, &chain, Values { vals, at: 0 }, None)
            })),
            _ => Some(Box::new(move |rt| {
                rt.track(pos)?;
                run_chain(rt, &chain, None)
            })),
        }
    }

    /// `lhs op= rhs` (or `lhs = rhs`).
    /// An assignment statement, counting the statement's operation at `pos` first.
    pub(crate) fn assignment(&mut self, op: &OpAssignment, lhs: &Expr, rhs: &Expr, pos: Position) -> Option<Code> {
        let rhs = self.expr(rhs)?;
        let op = op.clone();
        match lhs {
            Expr::Variable(..) | Expr::ThisPtr(..) => {
                let (place, vpos, name) = match lhs {
                    Expr::Variable(v, _, vpos) => match self.slot_of(&v.1) {
                        Some(slot) => (Place::Slot(slot), *vpos, v.1.to_string()),
                        None => {
                            return unsupported_chain(self, "assigning a variable outside its function")
                                .map(|_| unreachable!())
                        }
                    },
                    Expr::ThisPtr(p) => (Place::This(*p), *p, String::new()),
                    _ => unreachable!(),
                };
                // `n += 1` on two integers, chosen now and tried first (in place, keeping
                // the variable's tag; an overflow goes the long way, which makes the error).
                let ints = match (place, op.get_op_assignment_info()) {
                    (Place::Slot(i), Some((_, _, op_x, ..))) => super::ops::int_assign(op_x).map(|f| (i, f)),
                    _ => None,
                };
                Some(Box::new(move |rt| {
                    rt.track(pos)?;
                    if matches!(place, Place::This(_)) && rt.this.is_none() {
                        return Err(Ctl::err(EvalAltResult::ErrorUnboundThis(vpos).into()));
                    }
                    let v = rhs(rt)?;
                    rt.track(vpos)?;
                    if let Some((i, f)) = ints {
                        let slot = rt.slot(i);
                        if let (Some(a), Some(b)) = (int(slot), int(&v)) {
                            if let (false, Some(n)) = (slot.is_read_only(), f(a, b)) {
                                let tag = slot.tag();
                                *slot = Dynamic::from_int(n);
                                slot.set_tag(tag);
                                return Ok(Dynamic::UNIT);
                            }
                        }
                    }
                    let mut value = rt.take(place)?;
                    let r = {
                        let mut t = Target::RefMut(&mut value);
                        op_assign(rt, &op, &name, vpos, &mut t, v)
                    };
                    rt.put(place, value);
                    r?;
                    Ok(Dynamic::UNIT)
                }))
            }
            Expr::Index(..) | Expr::Dot(..) => {
                let chain = self.chain(lhs)?;
                if !matches!(chain.root, Root::Place(..)) {
                    return unsupported_chain(self, "assigning to an expression").map(|_| unreachable!());
                }
                Some(Box::new(move |rt| {
                    rt.track(pos)?;
                    let v = rhs(rt)?;
                    let _ = run_chain(rt, &chain, Some((v, &op)))?;
                    Ok(Dynamic::UNIT)
                }))
            }
            _ => unsupported_chain(self, "an assignment target").map(|_| unreachable!()),
        }
    }
}

fn unsupported_chain(l: &mut Lower, why: &str) -> Option<()> {
    if l.why.is_none() {
        l.why = Some(why.to_string());
    }
    None
}

impl Chain {
    /// Whether the chain reads only indexes and properties from a variable (no calls, no
    /// `?.`), so that [`read_in_place`] can try it.
    fn reads_in_place(&self) -> bool {
        matches!(self.root, Root::Place(..))
            && self.steps.iter().all(|s| !s.negated && matches!(s.kind, Kind::Index | Kind::Prop { .. }))
    }
}

/// The item `steps` reach from `v` (`vals` the index values, in order), copied, when
/// every step is an array's item at an integer index in range or a map's item by its name
/// (what the interpreter reads without calling anything); `None` for anything else (the
/// caller then takes the long way, which says what is wrong).
fn read_in_place(v: &Dynamic, steps: &[Step], vals: &[Dynamic]) -> Option<Dynamic> {
    let Some((step, rest)) = steps.split_first() else { return Some(copy(v)) };
    match &step.kind {
        Kind::Index => {
            let (idx, vals) = vals.split_first()?;
            if v.is_array() {
                let i = int(idx)?;
                let arr = v.read_lock::<rhai::Array>()?;
                let at = calc_index(arr.len(), i, true)?;
                read_in_place(&arr[at], rest, vals)
            } else if v.is_map() {
                let key = idx.read_lock::<ImmutableString>()?;
                let map = v.read_lock::<rhai::Map>()?;
                read_in_place(map.get(key.as_str())?, rest, vals)
            } else {
                None
            }
        }
        Kind::Prop { name, .. } if v.is_map() => {
            let map = v.read_lock::<rhai::Map>()?;
            read_in_place(map.get(name.as_str())?, rest, vals)
        }
        _ => None,
    }
}

fn run_chain(rt: &mut Rt, chain: &Chain, new_val: Option<(Dynamic, &OpAssignment)>) -> X {
    let vals = pre_values(rt, chain)?;
    run_root(rt, chain, Values { vals, at: 0 }, new_val)
}

/// A chain's index values and method arguments, evaluated left to right.
fn pre_values(rt: &mut Rt, chain: &Chain) -> Result<rhai::FnArgsVec<Dynamic>, Ctl> {
    let mut vals = rhai::FnArgsVec::new();
    for (p, pushes) in &chain.pre {
        let v = p(rt)?;
        if *pushes {
            vals.push(v);
        }
    }
    Ok(vals)
}

/// A chain from its root, its index values and arguments evaluated.
fn run_root(rt: &mut Rt, chain: &Chain, mut values: Values, new_val: Option<(Dynamic, &OpAssignment)>) -> X {
    match &chain.root {
        Root::Place(place, vpos) => {
            rt.track(*vpos)?;
            let name = String::new();
            let appends = match (place, &chain.steps[..]) {
                (Place::Slot(i), [Step { kind: Kind::Method { site, args: 1, script: None }, .. }])
                    if site.name.as_str() == "push" && !rt.peek(*place)?.is_read_only() =>
                {
                    rt.arm_push(*i);
                    true
                }
                _ => false,
            };
            let mut root = rt.take(*place)?;
            let r = {
                let mut t = Target::RefMut(&mut root);
                apply(rt, &mut t, chain, 0, &mut values, new_val, *vpos, &name)
            };
            rt.put(*place, root);
            if appends {
                rt.settle_push();
            }
            Ok(r?.0)
        }
        Root::Expr(c) => {
            let v = c(rt)?;
            let mut t = Target::TempValue(v);
            Ok(apply(rt, &mut t, chain, 0, &mut values, None, Position::NONE, "")?.0)
        }
    }
}

/// The evaluated index values and arguments, taken in step order.
struct Values {
    vals: rhai::FnArgsVec<Dynamic>,
    at: usize,
}

impl Values {
    fn take(&mut self, n: usize) -> rhai::FnArgsVec<Dynamic> {
        // Each value is taken once, in order: moved out, not copied.
        let out = self.vals[self.at..self.at + n].iter_mut().map(std::mem::take).collect();
        self.at += n;
        out
    }
}

#[allow(clippy::too_many_arguments)]
fn apply(
    rt: &mut Rt,
    target: &mut Target,
    chain: &Chain,
    i: usize,
    vals: &mut Values,
    new_val: Option<(Dynamic, &OpAssignment)>,
    root_pos: Position,
    root_name: &str,
) -> R<(Dynamic, bool)> {
    let step = &chain.steps[i];
    let last = i + 1 == chain.steps.len();
    if step.negated && target.as_ref().is_unit() {
        return Ok((Dynamic::UNIT, false));
    }
    let is_ref_mut = target.is_ref();
    match &step.kind {
        Kind::Index => {
            let mut idx = vals.take(1).pop().expect("an index value");
            if !last {
                let idx_for_setter = idx.clone();
                let (setter_value, result) = {
                    let obj = target.as_mut();
                    indexed(rt, obj, &mut idx, step.pos, step.op_pos, false, true, |rt, item| -> R<_> {
                        let temp = item.is_temp_value();
                        Ok(match apply(rt, item, chain, i + 1, vals, new_val, root_pos, root_name)? {
                            (result, true) if temp => (Some(item.as_ref().clone()), (result, true)),
                            result => (None, result),
                        })
                    })??
                };
                if let Some(mut v) = setter_value {
                    let mut idx = idx_for_setter;
                    match indexer_set(rt, target.as_mut(), &mut idx, &mut v, is_ref_mut, step.op_pos) {
                        Ok(_) => (),
                        Err(e) if matches!(*e, EvalAltResult::ErrorIndexingType(..)) => (),
                        Err(e) => return Err(e),
                    }
                }
                return Ok(result);
            }
            match new_val {
                Some((v, op)) => {
                    let obj = target.as_mut();
                    let mut idx2 = idx.clone();
                    let mut pending = Some(v);
                    let setter = match indexed(rt, obj, &mut idx2, step.pos, step.op_pos, true, false, |rt, item| {
                        let v = pending.take().expect("the new value");
                        op_assign(rt, op, root_name, root_pos, item, v)?;
                        check_size(item.as_ref(), op.position())
                    }) {
                        Ok(r) => {
                            r?;
                            None
                        }
                        Err(e) if matches!(*e, EvalAltResult::ErrorIndexingType(..)) => Some(()),
                        Err(e) => return Err(e),
                    };
                    if setter.is_some() {
                        let mut v = pending.take().expect("the new value");
                        if op.is_op_assignment() {
                            let mut idx3 = idx.clone();
                            if let Ok(cur) = indexer_get(rt, obj, &mut idx3, step.op_pos) {
                                let mut cur = cur;
                                {
                                    let mut t = Target::RefMut(&mut cur);
                                    op_assign(rt, op, root_name, root_pos, &mut t, v)?;
                                }
                                v = cur;
                                check_size(&v, op.position())?;
                            }
                        }
                        let _ = indexer_set(rt, obj, &mut idx, &mut v, is_ref_mut, step.op_pos)?;
                    }
                    Ok((Dynamic::UNIT, true))
                }
                None => {
                    let obj = target.as_mut();
                    let owned = i >= chain.owned_from;
                    let v =
                        indexed(rt, obj, &mut idx, step.pos, step.op_pos, false, true, |_, item| read(item, owned))?;
                    Ok((v, false))
                }
            }
        }
        Kind::Method { site, args, script } => {
            let mut call_args = vals.take(*args);
            let (v, updated) = match script {
                Some(f) => (super::call_script_this(rt, *f, call_args, site.pos, target.as_mut())?, false),
                None => method_call(rt, site, target, &mut call_args)?,
            };
            if last {
                return Ok((v, updated));
            }
            let mut t = Target::TempValue(v);
            apply(rt, &mut t, chain, i + 1, vals, new_val, root_pos, root_name)
        }
        Kind::Curry { args } => {
            let values = vals.take(*args);
            let v = super::fnptr::curry_method(rt, target.as_ref(), values, step.pos)?;
            if last {
                return Ok((v, false));
            }
            let mut t = Target::TempValue(v);
            apply(rt, &mut t, chain, i + 1, vals, new_val, root_pos, root_name)
        }
        Kind::CallPtr { args, first_pos } => {
            let call_args = vals.take(*args);
            let (v, updated) = match target.as_ref().read_lock::<rhai::FnPtr>().map(|f| f.clone()) {
                Some(f) => (super::fnptr::call(rt, &f, call_args, step.pos)?, false),
                None => super::fnptr::call_on(rt, target, call_args, step.pos, *first_pos)?,
            };
            if last {
                return Ok((v, updated));
            }
            let mut t = Target::TempValue(v);
            apply(rt, &mut t, chain, i + 1, vals, new_val, root_pos, root_name)
        }
        Kind::Prop { name, getter, setter } => {
            if target.as_ref().is_map() {
                let mut index = Dynamic::from(name.clone());
                if last {
                    return match new_val {
                        Some((v, op)) => {
                            {
                                let obj = target.as_mut();
                                indexed(rt, obj, &mut index, step.pos, step.op_pos, true, false, |rt, item| {
                                    op_assign(rt, op, root_name, root_pos, item, v)
                                })??;
                            }
                            check_size(target.source(), op.position())?;
                            Ok((Dynamic::UNIT, true))
                        }
                        None => {
                            let obj = target.as_mut();
                            let owned = i >= chain.owned_from;
                            let v = indexed(rt, obj, &mut index, step.pos, step.op_pos, false, false, |_, item| {
                                read(item, owned)
                            })?;
                            Ok((v, false))
                        }
                    };
                }
                let obj = target.as_mut();
                return indexed(rt, obj, &mut index, step.pos, step.op_pos, false, true, |rt, item| {
                    apply(rt, item, chain, i + 1, vals, new_val, root_pos, root_name)
                })?;
            }
            // A property of another type: its getter and setter, else its indexer.
            if last {
                if let Some((mut v, op)) = new_val {
                    if op.is_op_assignment() {
                        let mut cur = get_prop(rt, target, getter, name, is_ref_mut, step.pos, step.op_pos)?;
                        {
                            let mut t = Target::RefMut(&mut cur);
                            op_assign(rt, op, root_name, root_pos, &mut t, v)?;
                        }
                        v = cur;
                    }
                    return set_prop(rt, target, setter, name, &mut v, is_ref_mut, step.pos, step.op_pos);
                }
                let v = get_prop(rt, target, getter, name, is_ref_mut, step.pos, step.op_pos)?;
                return Ok((v, false));
            }
            let mut val = get_prop(rt, target, getter, name, is_ref_mut, step.pos, step.op_pos)?;
            let (result, changed) = {
                let mut t = Target::RefMut(&mut val);
                apply(rt, &mut t, chain, i + 1, vals, new_val, root_pos, root_name)?
            };
            if changed {
                match set_prop(rt, target, setter, name, &mut val, is_ref_mut, step.pos, step.op_pos) {
                    Ok(_) => (),
                    Err(e) if matches!(*e, EvalAltResult::ErrorIndexingType(..)) => (),
                    Err(e) => return Err(e),
                }
            }
            Ok((result, changed))
        }
    }
}

/// The item a chain reads last: moved out of a container the chain alone holds (`owned`),
/// else copied, as the interpreter always does.
fn read(item: &mut Target, owned: bool) -> Dynamic {
    match item {
        Target::RefMut(v) if owned => std::mem::take(*v),
        _ => item.as_ref().clone(),
    }
}

fn get_prop(
    rt: &mut Rt,
    target: &mut Target,
    getter: &str,
    name: &str,
    is_ref_mut: bool,
    pos: Position,
    op_pos: Position,
) -> R<Dynamic> {
    match engine_call(rt, getter, pos, &mut [target.as_mut()], is_ref_mut) {
        Ok(v) => Ok(v),
        Err(err) if matches!(*err, EvalAltResult::ErrorDotExpr(..)) => {
            let mut prop = Dynamic::from(name.to_string());
            indexer_get(rt, target.as_mut(), &mut prop, op_pos).map_err(|e| match *e {
                EvalAltResult::ErrorIndexingType(..) => err,
                _ => e,
            })
        }
        Err(e) => Err(e),
    }
}

#[allow(clippy::too_many_arguments)]
fn set_prop(
    rt: &mut Rt,
    target: &mut Target,
    setter: &str,
    name: &str,
    v: &mut Dynamic,
    is_ref_mut: bool,
    pos: Position,
    op_pos: Position,
) -> R<(Dynamic, bool)> {
    let r = {
        let mut args = [target.as_mut(), &mut *v];
        engine_call(rt, setter, pos, &mut args, is_ref_mut)
    };
    match r {
        Ok(x) => Ok((x, false)),
        Err(err) if matches!(*err, EvalAltResult::ErrorDotExpr(..)) => {
            let mut idx = Dynamic::from(name.to_string());
            indexer_set(rt, target.as_mut(), &mut idx, v, is_ref_mut, op_pos).map_err(|e| match *e {
                EvalAltResult::ErrorIndexingType(..) => err,
                _ => e,
            })
        }
        Err(e) => Err(e),
    }
}

fn indexer_get(rt: &mut Rt, target: &mut Dynamic, idx: &mut Dynamic, pos: Position) -> R<Dynamic> {
    rt.level += 1;
    let r = engine_call(rt, "index$get$", pos, &mut [target, idx], true);
    rt.level -= 1;
    r
}

fn indexer_set(
    rt: &mut Rt,
    target: &mut Dynamic,
    idx: &mut Dynamic,
    v: &mut Dynamic,
    is_ref_mut: bool,
    pos: Position,
) -> R<(Dynamic, bool)> {
    rt.level += 1;
    let r = engine_call(rt, "index$set$", pos, &mut [target, idx, v], is_ref_mut);
    rt.level -= 1;
    r.map(|x| (x, false))
}

/// `make_method_call` for a native method: `(value, whether the target changed)`.
fn method_call(rt: &mut Rt, site: &Site, target: &mut Target, call_args: &mut [Dynamic]) -> R<(Dynamic, bool)> {
    // A map holding a function pointer under the method's name calls it (object style).
    if let Ok(map) = target.as_ref().as_map_ref() {
        if map.get(site.name.as_str()).is_some_and(|v| v.is_fnptr()) {
            return Err(EvalAltResult::ErrorFunctionNotFound(
                format!("{} (object-style call is not supported by the compiled runtime)", site.name),
                site.pos,
            )
            .into());
        }
    }
    let is_ref_mut = target.is_ref();
    let r = {
        let mut args: rhai::FnArgsVec<&mut Dynamic> = rhai::FnArgsVec::new();
        args.push(target.as_mut());
        args.extend(call_args.iter_mut());
        rt.level += 1;
        let r = site.call_method(rt, &mut args, is_ref_mut);
        rt.level -= 1;
        r?
    };
    if r.1 {
        target.propagate_changed_value(site.pos)?;
    }
    Ok(r)
}

/// `eval_op_assignment`.
pub(crate) fn op_assign(
    rt: &mut Rt,
    op: &OpAssignment,
    root_name: &str,
    root_pos: Position,
    target: &mut Target,
    mut new_val: Dynamic,
) -> R<()> {
    if target.as_ref().is_read_only() {
        return Err(EvalAltResult::ErrorAssignmentToConstant(root_name.to_string(), root_pos).into());
    }
    let pos = op.position();
    if let Some((_, _, op_x, op_x_str, _, op_str)) = op.get_op_assignment_info() {
        let lhs = target.as_mut();
        if let Some(r) = super::ops::assign(op_x, lhs, &new_val) {
            r.map_err(|e| fill(e, pos))?;
        } else if super::ops::special_assign(op_x, lhs, &new_val) {
            let r = engine_call(rt, op_x_str, pos, &mut [&mut *lhs, &mut new_val], true);
            rt.ops -= 1;
            rt.clear_side();
            let _ = r?;
        } else {
            let r = engine_call(rt, op_x_str, pos, &mut [&mut *lhs, &mut new_val], true);
            match r {
                Ok(_) => (),
                Err(e) if matches!(&*e, EvalAltResult::ErrorFunctionNotFound(f, ..) if f.starts_with(op_x_str)) => {
                    let v = engine_call(rt, op_str, pos, &mut [&mut *lhs, &mut new_val], true)?;
                    *lhs = v;
                }
                Err(e) => return Err(e),
            }
            check_size(lhs, root_pos)?;
        }
    } else {
        *target.as_mut() = new_val;
    }
    target.propagate_changed_value(pos)
}

/// `get_indexed_mut`: the item at `idx` of `target`, handed to `k` (the borrow of a
/// container's item lasts as long as `k` runs).
#[allow(clippy::too_many_arguments)]
fn indexed<T>(
    rt: &mut Rt,
    target: &mut Dynamic,
    idx: &mut Dynamic,
    idx_pos: Position,
    op_pos: Position,
    add_if_not_found: bool,
    use_indexers: bool,
    k: impl FnOnce(&mut Rt, &mut Target) -> T,
) -> R<T> {
    rt.count(Position::NONE)?;
    if target.is_array() {
        let index = idx.as_int().map_err(|t| mismatch(rt.engine, "i64", t, idx_pos))?;
        let mut arr = target.as_array_mut().expect("an array");
        let len = arr.len();
        let i = calc_index(len, index, true).ok_or_else(|| EvalAltResult::ErrorArrayBounds(len, index, idx_pos))?;
        let mut t = Target::try_from(&mut arr[i])?;
        return Ok(k(rt, &mut t));
    }
    if target.is_map() {
        let Some(key) = idx.read_lock::<ImmutableString>().map(|s| s.clone()) else {
            return Err(mismatch(rt.engine, "string", idx.type_name(), idx_pos));
        };
        let mut map = target.as_map_mut().expect("a map");
        if add_if_not_found && (map.is_empty() || !map.contains_key(key.as_str())) {
            map.insert(key.as_str().into(), Dynamic::UNIT);
        }
        return match map.get_mut(key.as_str()) {
            Some(v) => {
                let mut t = Target::try_from(v)?;
                Ok(k(rt, &mut t))
            }
            None => Err(EvalAltResult::ErrorPropertyNotFound(key.to_string(), idx_pos).into()),
        };
    }
    if let Some(value) = int(target) {
        if let Some(index) = int(idx) {
            let bit =
                calc_index(64, index, true).ok_or_else(|| EvalAltResult::ErrorBitFieldBounds(64, index, idx_pos))?;
            let bit_value = (value & (1 << bit)) != 0;
            let mut t = Target::Bit { source: target, value: bit_value.into(), bit: bit as u8 };
            return Ok(k(rt, &mut t));
        }
        return Err(unsupported_at_run_time("a bit-field range", idx_pos));
    }
    if target.is_string() {
        let s = target.read_lock::<ImmutableString>().expect("a string").clone();
        return match idx.as_int() {
            Ok(index) => {
                let count = s.chars().count();
                let bounds = || EvalAltResult::ErrorStringBounds(count, index, idx_pos);
                let (ch, offset) = if index >= 0 {
                    let offset = usize::try_from(index).map_err(|_| bounds())?;
                    (s.chars().nth(offset).ok_or_else(bounds)?, offset)
                } else {
                    let offset = usize::try_from(index.unsigned_abs()).map_err(|_| bounds())?;
                    (s.chars().rev().nth(offset - 1).ok_or_else(bounds)?, offset)
                };
                let mut t = Target::StringChar { source: target, value: ch.into(), index: offset };
                Ok(k(rt, &mut t))
            }
            Err(t) if t.contains("Range") => Err(unsupported_at_run_time("a string range", idx_pos)),
            Err(t) => Err(mismatch(rt.engine, "i64", t, idx_pos)),
        };
    }
    if use_indexers && !target.is_blob() {
        let v = indexer_get(rt, target, idx, op_pos)?;
        let mut t = Target::TempValue(v);
        return Ok(k(rt, &mut t));
    }
    Err(EvalAltResult::ErrorIndexingType(
        format!("{} [{}]", rt.engine.map_type_name(target.type_name()), rt.engine.map_type_name(idx.type_name())),
        op_pos,
    )
    .into())
}

/// What no shipped rules do and the compiled tier does not restate: an error saying so
/// (`--runtime rhai` runs it).
pub(crate) fn unsupported_at_run_time(what: &str, pos: Position) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(
        format!("{what} is not supported by the compiled runtime (run with --runtime rhai)").into(),
        pos,
    )
    .into()
}
