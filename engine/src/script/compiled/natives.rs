//! Calls of native functions from compiled code: Crown's host functions straight through
//! their kept callable, a few of Rhai's standard functions the rules call all the time
//! restated here, and any other function through the engine's own resolution (what the
//! interpreter does, with the same rules of precedence, errors and limits).

use std::any::TypeId;
use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use rhai::{Dynamic, EvalAltResult, ImmutableString, Position};

use super::glue::Callable;
use super::host::{HostTable, Kind, Param};
use super::rt::{boolean, calc_index, check_size, copy, fill, int, size_check, KnownSizes, Rt, Sizes, R};

/// A standard function restated for speed (see [`intrinsic`]).
type Intrinsic = fn(&mut [&mut Dynamic]) -> R<Dynamic>;

/// What a call site with given argument types calls.
#[derive(Clone)]
enum Resolved {
    /// A host function: what Rhai's record of it says, and the function through Crown's glue.
    Host(Kind, Callable),
    /// The function, whether it is pure, whether it takes its first argument by reference,
    /// and what Rhai's own reports to the meter from calls it makes through the engine.
    Intrinsic(Intrinsic, bool, bool, Nested),
    /// Resolved by the engine at every call (any other function).
    Engine,
}

/// One native call site: the function name and, per argument types seen, its target.
pub(crate) struct Site {
    pub name: ImmutableString,
    pub pos: Position,
    /// The target for the first argument types seen (most sites only ever see one set),
    /// set once and then read without a lock or a count.
    first: OnceCell<(rhai::FnArgsVec<Param>, Resolved)>,
    /// The targets for any other argument types (a call may reach its own site again
    /// while it runs, so each is held by count).
    cache: RefCell<Vec<(rhai::FnArgsVec<Param>, Rc<Resolved>)>>,
    /// Whether Crown registers a function of this name and arity with `Dynamic`
    /// parameters (which a standard function restated here must never shadow).
    host_dynamic: bool,
}

impl Site {
    pub(crate) fn new(table: &HostTable, name: ImmutableString, arity: usize, pos: Position) -> Site {
        let host_dynamic = table.has_dynamic(&name, arity);
        Site { name, pos, first: OnceCell::new(), cache: RefCell::new(Vec::new()), host_dynamic }
    }

    fn resolve(&self, table: &HostTable, args: &[&mut Dynamic]) -> Target<'_> {
        let same = |t: &rhai::FnArgsVec<Param>| t.len() == args.len() && t.iter().zip(args).all(|(t, a)| t.admits(a));
        if let Some((t, r)) = self.first.get() {
            if same(t) {
                return Target::First(r);
            }
        } else {
            let types: rhai::FnArgsVec<TypeId> = args.iter().map(|a| a.type_id()).collect();
            let r = self.find(table, &types, args);
            return match self.first.set((types.iter().copied().map(Param::of).collect(), r)) {
                Ok(()) => Target::First(&self.first.get().expect("just set").1),
                // (Set meanwhile by a call this one made: keep this one among the others.)
                Err((types, r)) => self.keep(types, r),
            };
        }
        if let Some(r) = self.cache.borrow().iter().find(|(t, _)| same(t)).map(|(_, r)| r.clone()) {
            return Target::Other(r);
        }
        let types: rhai::FnArgsVec<TypeId> = args.iter().map(|a| a.type_id()).collect();
        let r = self.find(table, &types, args);
        self.keep(types.iter().copied().map(Param::of).collect(), r)
    }

    fn keep(&self, types: rhai::FnArgsVec<Param>, r: Resolved) -> Target<'_> {
        let r = Rc::new(r);
        self.cache.borrow_mut().push((types, r.clone()));
        Target::Other(r)
    }

    /// What a call with arguments of `types` calls (Rhai's resolution order).
    fn find(&self, table: &HostTable, types: &[TypeId], args: &[&mut Dynamic]) -> Resolved {
        match table.exact(&self.name, types) {
            Some(f) => Resolved::Host(f.kind, f.call.clone()),
            None => match (!self.host_dynamic).then(|| intrinsic(&self.name, args)).flatten() {
                Some((f, pure, method)) => Resolved::Intrinsic(f, pure, method, Nested::of(&self.name)),
                None if self.host_dynamic => match table.dynamic(&self.name, types) {
                    Some(f) => Resolved::Host(f.kind, f.call.clone()),
                    None => Resolved::Engine,
                },
                None => Resolved::Engine,
            },
        }
    }

    /// A method call: the value, and whether the target may have changed (the function
    /// takes it by reference).
    pub(crate) fn call_method(&self, rt: &mut Rt, args: &mut [&mut Dynamic], is_ref_mut: bool) -> R<(Dynamic, bool)> {
        let target = self.resolve(super::host_table(), args);
        let method = match &*target {
            Resolved::Host(k, _) => k.method,
            Resolved::Intrinsic(_, _, m, _) => *m,
            Resolved::Engine => true,
        };
        self.call_target(rt, &target, args, is_ref_mut).map(|v| (v, method))
    }

    /// Call the function with `args` (the first one a variable's own value when
    /// `is_ref_mut`), as the interpreter's `exec_fn_call` for a native function.
    pub(crate) fn call(&self, rt: &mut Rt, args: &mut [&mut Dynamic], is_ref_mut: bool) -> R<Dynamic> {
        let target = self.resolve(super::host_table(), args);
        self.call_target(rt, &target, args, is_ref_mut)
    }

    /// [`Site::call_host`] with arguments that are all values (none a variable's own),
    /// for the functions most calls reach (pure, without a context): what it does for
    /// them, small enough to be made inside the call's own code.
    #[inline(always)]
    pub(crate) fn call_host_values(
        &self,
        rt: &mut Rt,
        f: Kind,
        call: &Callable,
        args: &mut [&mut Dynamic],
    ) -> R<Dynamic> {
        if !f.pure || f.context {
            return self.call_host(rt, f, call, args, false);
        }
        let pos = self.pos;
        rt.count(pos)?;
        match rt.watching(|_| call(None, args)) {
            Ok(r) => {
                check_size(&r, pos)?;
                Ok(r)
            }
            Err(e) => Err(fill(e, pos)),
        }
    }

    /// Call host function `f` (its callable `call`) with `args`, the first one a
    /// variable's own value when `is_ref_mut`.
    pub(crate) fn call_host(
        &self,
        rt: &mut Rt,
        f: Kind,
        call: &Callable,
        args: &mut [&mut Dynamic],
        is_ref_mut: bool,
    ) -> R<Dynamic> {
        let pos = self.pos;
        rt.count(pos)?;
        if !f.pure && args.first().is_some_and(|a| a.is_read_only()) {
            return Err(EvalAltResult::ErrorNonPureMethodCallOnConstant(self.name.to_string(), pos).into());
        }
        let swap = is_ref_mut && !f.method && !args.is_empty();
        let r = if swap {
            // The function takes its first argument by value: it gets a copy, and the
            // variable keeps its own (the interpreter's `change_first_arg_to_copy`).
            let c = copy(args[0]);
            let own = std::mem::replace(&mut *args[0], c);
            let r = rt.watching(|rt| call_native(rt, &self.name, pos, f, call, args));
            super::rt::discard(std::mem::replace(&mut *args[0], own));
            r
        } else {
            rt.watching(|rt| call_native(rt, &self.name, pos, f, call, args))
        };
        let r = r.and_then(|r| check_size(&r, pos).map(|()| r)).map_err(|e| fill(e, pos))?;
        // The interpreter checks the first argument as the function left it: the
        // variable's own value for a method, else the copy it was handed, which the
        // function took or, a number or a boolean, has no size (so there is nothing to
        // check).
        if is_ref_mut && !swap && !args.is_empty() {
            check_size(args[0], pos)?;
        }
        Ok(r)
    }

    fn call_target(&self, rt: &mut Rt, target: &Resolved, args: &mut [&mut Dynamic], is_ref_mut: bool) -> R<Dynamic> {
        let pos = self.pos;
        // A `push` onto a variable this call makes (none that it calls in turn).
        let push = rt.push.take();
        match target {
            Resolved::Host(f, call) => self.call_host(rt, *f, call, args, is_ref_mut),
            Resolved::Intrinsic(f, pure, method, nested) => {
                rt.count(pos)?;
                if !*pure && args.first().is_some_and(|a| a.is_read_only()) {
                    return Err(EvalAltResult::ErrorNonPureMethodCallOnConstant(self.name.to_string(), pos).into());
                }
                let nested = match nested {
                    Nested::No => false,
                    Nested::Once => true,
                    Nested::IfListHasItems => args[0].as_array_ref().is_ok_and(|a| !a.is_empty()),
                };
                let r = f(args).map_err(|e| fill(e, pos))?;
                if nested {
                    rt.note_side(rt.ops + 1);
                }
                check_size(&r, pos)?;
                if is_ref_mut && *method && !args.is_empty() {
                    match push {
                        Some((at, before)) if self.name.as_str() == "push" && args.len() == 2 => {
                            pushed(rt, at, before, args[0], pos)?
                        }
                        _ => check_size(args[0], pos)?,
                    }
                }
                Ok(r)
            }
            // `print` of a text: what the engine's `print` does, without resolving it each time.
            Resolved::Engine if self.name.as_str() == "print" && args.len() == 1 && args[0].is_string() => {
                rt.count(pos)?;
                let text = args[0].read_lock::<ImmutableString>().expect("a string").clone();
                crate::script::api::log_print("print", &text);
                Ok(Dynamic::UNIT)
            }
            Resolved::Engine => engine_call(rt, &self.name, pos, args, is_ref_mut),
        }
    }
}

/// The size check after the standard `push` onto the variable in stack slot `at`: the
/// sizes known `before` it plus the item it added, or the whole list walked; what it
/// finds is remembered for the next `push` ([`Rt::settle_push`]).
fn pushed(rt: &mut Rt, at: usize, before: Option<Sizes>, list: &Dynamic, pos: Position) -> R<()> {
    let Some((items, len)) = super::rt::list_at(list) else {
        return check_size(list, pos);
    };
    let sizes = match before {
        Some((a, m, s)) => {
            let last = list.as_array_ref().ok().and_then(|l| l.last().map(super::rt::item_sizes));
            let (x, y, z) = last.expect("the item just pushed");
            (a + 1 + x, m + y, s + z)
        }
        None => super::rt::data_sizes(list),
    };
    size_check(sizes, pos)?;
    rt.pushed = Some(KnownSizes { at, items, len, sizes });
    Ok(())
}

/// A call site's target, as [`Site::resolve`] found it.
enum Target<'a> {
    First(&'a Resolved),
    Other(Rc<Resolved>),
}

impl std::ops::Deref for Target<'_> {
    type Target = Resolved;
    fn deref(&self) -> &Resolved {
        match self {
            Target::First(r) => r,
            Target::Other(r) => r,
        }
    }
}

/// (The name is read as text only for a function that takes a context.)
fn call_native(
    rt: &mut Rt,
    name: &ImmutableString,
    pos: Position,
    f: Kind,
    func: &Callable,
    args: &mut [&mut Dynamic],
) -> R<Dynamic> {
    if f.context {
        rt.sync_global();
        let ctx = rt.context(name.as_str(), pos);
        func(Some(ctx), args)
    } else {
        func(None, args)
    }
}

/// A native function found by the engine's resolution at this call (the interpreter's
/// `exec_native_fn_call` on a copy of the state, whose operation is counted here).
pub(crate) fn engine_call(
    rt: &mut Rt,
    name: &str,
    pos: Position,
    args: &mut [&mut Dynamic],
    is_ref_mut: bool,
) -> R<Dynamic> {
    // The engine's call adds a level of its own.
    rt.sync_global();
    rt.global.level = rt.level.saturating_sub(1);
    if let Some(head) = rt.head.as_mut() {
        head.heard(name, args);
    }
    let machines = super::memo::machines();
    let r = rt.watching(|rt| rt.context(name, pos).call_native_fn_raw(name, is_ref_mut, args));
    // The engine counting the call's own operation is no script run; a script the native
    // function called back (more operations counted) is (see memo.rs).
    if super::memo::machines() - machines <= 1 {
        super::memo::set_machines(machines);
    }
    rt.count_kept();
    r
}

/// A standard function restated here, for these arguments: `(function, is_pure)`.
fn intrinsic(name: &str, args: &[&mut Dynamic]) -> Option<(Intrinsic, bool, bool)> {
    let first = args.first()?;
    Some(match (name, args.len()) {
        ("len", 1) if first.is_array() => {
            (|a| Ok(Dynamic::from_int(a[0].as_array_ref().map_or(0, |x| x.len() as i64))), true, true)
        }
        ("len", 1) if first.is_map() => {
            (|a| Ok(Dynamic::from_int(a[0].as_map_ref().map_or(0, |x| x.len() as i64))), true, true)
        }
        ("len", 1) if first.is_string() => (
            |a| Ok(Dynamic::from_int(a[0].read_lock::<ImmutableString>().map_or(0, |s| s.chars().count() as i64))),
            true,
            false,
        ),
        ("is_empty", 1) if first.is_array() => {
            (|a| Ok(Dynamic::from_bool(a[0].as_array_ref().map_or(true, |x| x.is_empty()))), true, true)
        }
        ("is_empty", 1) if first.is_map() => {
            (|a| Ok(Dynamic::from_bool(a[0].as_map_ref().map_or(true, |x| x.is_empty()))), true, true)
        }
        ("push", 2) if first.is_array() => (
            |a| {
                let item = std::mem::take(a[1]);
                change_list(a[0], |l| l.push(item))
            },
            false,
            true,
        ),
        ("contains", 2) if first.is_map() && args[1].is_string() => (
            |a| {
                let key = a[1].read_lock::<ImmutableString>().map(|s| s.to_string()).unwrap_or_default();
                Ok(Dynamic::from_bool(a[0].as_map_ref().is_ok_and(|m| m.contains_key(key.as_str()))))
            },
            true,
            true,
        ),
        ("keys", 1) if first.is_map() => (
            |a| {
                let keys = a[0]
                    .as_map_ref()
                    .map(|m| m.keys().map(|k| Dynamic::from(ImmutableString::from(k.as_str()))).collect());
                Ok(Dynamic::from_array(keys.unwrap_or_default()))
            },
            true,
            true,
        ),
        ("split", 2) if first.is_string() && args[1].is_string() => (
            |a| {
                let (s, d) = (text(a[0]), text(a[1]));
                let parts = if s.is_empty() || (!d.is_empty() && !s.contains(d.as_str())) {
                    vec![Dynamic::from(s.clone())]
                } else {
                    s.split(d.as_str()).map(|p| Dynamic::from(ImmutableString::from(p))).collect()
                };
                Ok(Dynamic::from_array(parts))
            },
            true,
            true,
        ),
        ("starts_with", 2) if first.is_string() && args[1].is_string() => {
            (|a| Ok(Dynamic::from_bool(text(a[0]).starts_with(text(a[1]).as_str()))), true, false)
        }
        ("index_of", 2) if first.is_string() && args[1].is_string() => (
            |a| {
                let (s, f) = (text(a[0]), text(a[1]));
                let at = if s.is_empty() {
                    -1
                } else {
                    s.find(f.as_str()).map_or(-1, |i| i64::try_from(s[..i].chars().count()).unwrap_or(-1))
                };
                Ok(Dynamic::from_int(at))
            },
            true,
            false,
        ),
        ("sub_string", 3) if first.is_string() && args[1].is_int() && args[2].is_int() => (
            |a| {
                let (start, len) = (int(a[1]).unwrap_or(0), int(a[2]).unwrap_or(0));
                Ok(Dynamic::from(sub_string(&text(a[0]), start, len)))
            },
            true,
            false,
        ),
        ("sub_string", 2) if first.is_string() && args[1].is_int() => (
            |a| {
                let s = text(a[0]);
                // (To the end: as long as the text's bytes, as Rhai's `sub_string` has it.)
                let len = i64::try_from(s.len()).unwrap_or(i64::MAX);
                Ok(Dynamic::from(sub_string(&s, int(a[1]).unwrap_or(0), len)))
            },
            true,
            false,
        ),
        // Text and a number joined: Rhai's `+` prints the number with `to_string`, which
        // writes it as `Display` does (and text as it is).
        ("+", 2) if first.is_string() && args[1].is_int() || first.is_int() && args[1].is_string() => {
            (|a| Ok(Dynamic::from(ImmutableString::from(format!("{}{}", a[0], a[1])))), true, true)
        }
        ("to_string", 1) if first.is_int() => {
            (|a| Ok(Dynamic::from(ImmutableString::from(int(a[0]).unwrap_or(0).to_string()))), true, false)
        }
        ("to_string", 1) if first.is_bool() => {
            (|a| Ok(Dynamic::from(ImmutableString::from(boolean(a[0]).unwrap_or(false).to_string()))), true, false)
        }
        ("contains", 2) if first.is_array() && (args[1].is_int() || args[1].is_string()) => {
            (|a| Ok(Dynamic::from_bool(position(a).is_some())), true, true)
        }
        ("index_of", 2) if first.is_array() && (args[1].is_int() || args[1].is_string()) => {
            (|a| Ok(Dynamic::from_int(position(a).map_or(-1, |i| i64::try_from(i).unwrap_or(i64::MAX)))), true, true)
        }
        ("pop", 1) if first.is_array() => {
            (|a| Ok(a[0].write_lock::<rhai::Array>().and_then(|mut l| l.pop()).unwrap_or(Dynamic::UNIT)), false, true)
        }
        ("remove", 2) if first.is_array() && args[1].is_int() => (
            |a| {
                let i = int(a[1]).unwrap_or(0);
                let mut list = a[0].write_lock::<rhai::Array>();
                let removed = list.as_mut().and_then(|l| calc_index(l.len(), i, true).map(|at| l.remove(at)));
                Ok(removed.unwrap_or(Dynamic::UNIT))
            },
            false,
            true,
        ),
        ("clear", 1) if first.is_array() => (|a| change_list(a[0], |l| l.clear()), false, true),
        // Rhai's `truncate`: to no items at all when `len` is 0 or less.
        ("truncate", 2) if first.is_array() && args[1].is_int() => (
            |a| {
                let len = usize::try_from(int(a[1]).unwrap_or(0)).unwrap_or(0);
                change_list(a[0], |l| l.truncate(len))
            },
            false,
            true,
        ),
        ("remove", 2) if first.is_map() && args[1].is_string() => (
            |a| {
                let key = text(a[1]);
                Ok(a[0].write_lock::<rhai::Map>().and_then(|mut m| m.remove(key.as_str())).unwrap_or(Dynamic::UNIT))
            },
            false,
            true,
        ),
        ("contains", 2) if first.is_string() && args[1].is_string() => {
            (|a| Ok(Dynamic::from_bool(text(a[0]).contains(text(a[1]).as_str()))), true, false)
        }
        ("contains", 2) if first.is_string() && args[1].is_char() => {
            (|a| Ok(Dynamic::from_bool(a[1].as_char().ok().is_some_and(|c| text(a[0]).contains(c)))), true, false)
        }
        ("ends_with", 2) if first.is_string() && args[1].is_string() => {
            (|a| Ok(Dynamic::from_bool(text(a[0]).ends_with(text(a[1]).as_str()))), true, false)
        }
        // Rhai's own `abs`, `sign`, `min` and `max` of integers (its arithmetic and logic
        // packages): `abs` of the least integer is its overflow error.
        ("abs", 1) if first.is_int() => (
            |a| {
                let x = int(a[0]).unwrap_or(0);
                match x.checked_abs() {
                    Some(v) => Ok(Dynamic::from_int(v)),
                    None => {
                        Err(EvalAltResult::ErrorArithmetic(format!("Negation overflow: -{x}"), Position::NONE).into())
                    }
                }
            },
            true,
            false,
        ),
        ("sign", 1) if first.is_int() => (|a| Ok(Dynamic::from_int(int(a[0]).unwrap_or(0).signum())), true, false),
        ("min", 2) if first.is_int() && args[1].is_int() => (
            |a| {
                let (x, y) = (int(a[0]).unwrap_or(0), int(a[1]).unwrap_or(0));
                Ok(Dynamic::from_int(if x <= y { x } else { y }))
            },
            true,
            false,
        ),
        ("max", 2) if first.is_int() && args[1].is_int() => (
            |a| {
                let (x, y) = (int(a[0]).unwrap_or(0), int(a[1]).unwrap_or(0));
                Ok(Dynamic::from_int(if x >= y { x } else { y }))
            },
            true,
            false,
        ),
        _ => return None,
    })
}

/// What a standard function Rhai runs reports to the meter from the calls it makes through
/// the engine: one operation past the call's, whatever the number of calls (each is made
/// on a copy of the state at the call's count).
#[derive(Clone, Copy)]
enum Nested {
    No,
    /// `+` of text and a number prints the number with `to_string`.
    Once,
    /// `contains` and `index_of` of a list compare each element with `==`, when there is one.
    IfListHasItems,
}

impl Nested {
    fn of(name: &str) -> Nested {
        match name {
            "+" => Nested::Once,
            "contains" | "index_of" => Nested::IfListHasItems,
            _ => Nested::No,
        }
    }
}

/// Where the value `a[1]`, a number or a text, first is in the list `a[0]`. Rhai compares
/// with `==`: the same type by value, another type is never equal.
fn position(a: &[&mut Dynamic]) -> Option<usize> {
    let v = &*a[1];
    a[0].as_array_ref().ok()?.iter().position(|x| match (int(x), int(v)) {
        (Some(p), Some(q)) => p == q,
        _ => {
            x.is_string()
                && v.is_string()
                && *x.read_lock::<ImmutableString>().expect("a string")
                    == *v.read_lock::<ImmutableString>().expect("a string")
        }
    })
}

/// Change the list a value holds (the intrinsics are chosen for their argument types),
/// giving `()`, as Rhai's list functions that change a list in place do.
fn change_list(v: &mut Dynamic, f: impl FnOnce(&mut rhai::Array)) -> R<Dynamic> {
    if let Some(mut l) = v.write_lock::<rhai::Array>() {
        f(&mut l);
    }
    Ok(Dynamic::UNIT)
}

/// The text a value holds (the intrinsics are chosen for their argument types).
fn text(v: &Dynamic) -> ImmutableString {
    v.read_lock::<ImmutableString>().map(|s| s.clone()).unwrap_or_default()
}

/// Rhai's `sub_string(text, start, len)`: `len` characters from character `start` (from
/// the end when negative), cut to the text's end; empty where nothing is left.
fn sub_string(s: &str, start: i64, len: i64) -> ImmutableString {
    if s.is_empty() || len <= 0 {
        return ImmutableString::new();
    }
    let chars: Vec<char> = s.chars().collect();
    let offset = if start < 0 {
        let back = usize::try_from(start.unsigned_abs()).unwrap_or(usize::MAX);
        chars.len().saturating_sub(back)
    } else {
        match usize::try_from(start) {
            Ok(start) if start < chars.len() => start,
            _ => return ImmutableString::new(),
        }
    };
    let left = chars.len() - offset;
    let len = usize::try_from(len).map_or(left, |len| len.min(left));
    chars[offset..offset + len].iter().collect::<String>().into()
}

#[cfg(test)]
mod tests {
    use super::super::tests::same;

    /// Standard functions the tier restates, on both runtimes: `abs`, `sign`, `min` and
    /// `max` at the integers' ends, `abs` of the least one (an overflow error), the method
    /// form, other types (which the engine resolves); `pop`, `clear`, `truncate` and
    /// `remove` of a list at every kind of position; a map's `remove`, a text's `contains`
    /// and `ends_with`, and `pop` of a constant (an error).
    #[test]
    fn restated_standard_functions_agree() {
        let src = "fn f(a) { [abs(a), sign(a), min(a, 3), max(a, 3), min(3, a), max(a, a), a.abs(), a.max(-1)] }\n\
                   fn g(a) { let b = a; -abs(b - 1) + max(min(a, 0), -5) }\nfn h(a) { min(\"b\", a) }";
        for a in [0, 3, -3, 1, i64::MAX, i64::MIN + 1, i64::MIN] {
            for f in ["f", "g", "h"] {
                same(src, f, &[a]);
            }
        }
        let src = "fn f(a) { let l = [1, \"x\"]; let m = #{ k: a, j: 2 }; let s = `ab${a}`;\n\
                   [l.pop(), l.pop(), l.pop(), l, m.remove(\"k\"), m.remove(\"z\"), m, s.contains(\"b1\"), \
                   s.contains('1'), s.contains(\"\"), s.ends_with(`${a}`), s.ends_with(\"\"), \"\".ends_with(\"a\")] }\n\
                   const L = [1];\nfn g(a) {\n    L.pop() + a\n}";
        for a in [1, 2] {
            same(src, "f", &[a]);
            same(src, "g", &[a]);
        }
        let src = "fn f(a) { let l = [1, 2, 3, 4]; let r = [l.remove(a), l.remove(-a), l.remove(9), l.remove(-9)];\n\
                   r.push(l); let t = [5, 6, 7]; t.truncate(a); let u = [5, 6]; u.truncate(-a); r + [t, u, [].remove(0)] }\n\
                   fn g(a) { let l = [a, a]; l.clear(); l.truncate(2); l.push(a); l }";
        for a in [0, 1, 2, 4, 5, -1, i64::MAX, i64::MIN] {
            same(src, "f", &[a]);
            same(src, "g", &[a]);
        }
    }
}
