//! Function pointers in compiled code: `curry` and `call`, in both their forms
//! (`f.curry(x)` and `curry(f, x)`, `f.call(x)` and `call(f, x)`), as Rhai's
//! `make_method_call` and `make_function_call` handle them.
//!
//! The function a pointer names is found when it is called (a closure, `Fn("name")`, or
//! a native function's name): a script function of the running script as a call by name
//! finds it, else a native function by name. So that the first can always run compiled,
//! a function that calls through a pointer counts every function of its script as one it
//! may call (see `Lower::calls_any`).

use std::any::type_name;

use rhai::{Dynamic, FnArgsVec, FnPtr, Position, Target};

use super::natives::Site;
use super::rt::{mismatch, Place, Rt, R};

/// The type-mismatch error for a value that is not a function pointer.
fn not_a_pointer(rt: &Rt, v: &Dynamic, pos: Position) -> Box<rhai::EvalAltResult> {
    mismatch(rt.engine, type_name::<FnPtr>(), rt.engine.map_type_name(v.type_name()), pos)
}

/// The function pointer `v` holds, or the mismatch error at `pos`.
pub(crate) fn pointer(rt: &Rt, v: Dynamic, pos: Position) -> R<FnPtr> {
    if v.is_fnptr() {
        return Ok(v.cast::<FnPtr>());
    }
    Err(not_a_pointer(rt, &v, pos))
}

/// `f.curry(values)`: a copy of the pointer with `values` curried after its own.
pub(crate) fn curry_method(rt: &Rt, f: &Dynamic, values: FnArgsVec<Dynamic>, pos: Position) -> R<Dynamic> {
    let Some(p) = f.read_lock::<FnPtr>() else { return Err(not_a_pointer(rt, f, pos)) };
    let mut p = p.clone();
    for v in values {
        p.add_curry(v);
    }
    Ok(p.into())
}

/// `f.call(args)` / `call(f, args)`: the function `f` names, given its curried values
/// then `args`.
pub(crate) fn call(rt: &mut Rt, f: &FnPtr, args: FnArgsVec<Dynamic>, pos: Position) -> R<Dynamic> {
    let values: FnArgsVec<Dynamic> = f.curry().iter().cloned().chain(args).collect();
    if let Some(i) = rt.prog.index.find(f.fn_name(), values.len()) {
        return super::call_script(rt, i, values, pos);
    }
    native(rt, f.fn_name(), values, pos)
}

/// `call(f, args)`: as [`call`], except that a native function is handed the variable
/// `first` (the first argument, when it is one) by reference, as a call by name is.
pub(crate) fn call_by_name(
    rt: &mut Rt,
    f: &FnPtr,
    args: FnArgsVec<Dynamic>,
    pos: Position,
    first: Option<Place>,
) -> R<Dynamic> {
    let values: FnArgsVec<Dynamic> = f.curry().iter().cloned().chain(args).collect();
    if let Some(i) = rt.prog.index.find(f.fn_name(), values.len()) {
        return super::call_script(rt, i, values, pos);
    }
    let mut values = values;
    let site = Site::new(super::host_table(), f.fn_name().into(), values.len(), pos);
    let lent = first.filter(|p| f.curry().is_empty() && rt.peek(*p).is_ok_and(|v| !v.is_read_only()));
    let r = {
        let mut refs: FnArgsVec<&mut Dynamic> = values.iter_mut().collect();
        rt.level += 1;
        let r = site.call(rt, &mut refs, lent.is_some());
        rt.level -= 1;
        r
    };
    if let (Some(place), Some(v)) = (lent, values.first_mut()) {
        rt.put(place, std::mem::take(v));
    }
    r
}

/// `target.call(f, args)` on a value that is not a function pointer: `f` called with
/// `target` as `this` (a script function) or as its first argument (a native one).
pub(crate) fn call_on(
    rt: &mut Rt,
    target: &mut Target,
    mut args: FnArgsVec<Dynamic>,
    pos: Position,
    first_pos: Position,
) -> R<(Dynamic, bool)> {
    if args.is_empty() {
        let got = rt.engine.map_type_name(target.as_ref().type_name()).to_string();
        return Err(mismatch(rt.engine, type_name::<FnPtr>(), &got, pos));
    }
    let f = pointer(rt, args.remove(0), first_pos)?;
    let values: FnArgsVec<Dynamic> = f.curry().iter().cloned().chain(args).collect();
    if let Some(i) = rt.prog.index.find(f.fn_name(), values.len()) {
        return Ok((super::call_script_this(rt, i, values, pos, target.as_mut())?, false));
    }
    let is_ref_mut = target.is_ref();
    let site = Site::new(super::host_table(), f.fn_name().into(), values.len() + 1, pos);
    let mut values = values;
    let r = {
        let mut refs: FnArgsVec<&mut Dynamic> = FnArgsVec::new();
        refs.push(target.as_mut());
        refs.extend(values.iter_mut());
        rt.level += 1;
        let r = site.call_method(rt, &mut refs, is_ref_mut);
        rt.level -= 1;
        r?
    };
    if r.1 {
        target.propagate_changed_value(pos)?;
    }
    Ok(r)
}

/// A native function called by name (or the error of a call that finds none).
fn native(rt: &mut Rt, name: &str, mut values: FnArgsVec<Dynamic>, pos: Position) -> R<Dynamic> {
    let site = Site::new(super::host_table(), name.into(), values.len(), pos);
    let mut refs: FnArgsVec<&mut Dynamic> = values.iter_mut().collect();
    rt.level += 1;
    let r = site.call(rt, &mut refs, false);
    rt.level -= 1;
    r
}
