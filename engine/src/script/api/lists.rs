//! Host functions: the list and map functions that call a script function (`sort`,
//! `filter`, `map`, `reduce`...). Crown defines them in place of Rhai's standard ones,
//! with the same names, arguments and results, for two reasons:
//!
//! - the function they call runs on the compiled tier, as every other function a host
//!   function calls back (menus, placements); Rhai's own call it on the interpreter;
//! - an error inside it stops the script at its line. Rhai's `sort` and `dedup` turn a
//!   failing comparison into an order, and its predicates read anything but `true` as
//!   `false`: a broken comparison silently mis-sorted, and one that never returned ran
//!   on past the operation limit. Here a comparison returns a number or `true`/`false`,
//!   a predicate `true` or `false`, and anything else is an error naming what it got.
//!
//! Both runtimes call these same functions, so they agree with each other by
//! construction; the differential tests (`compiled::tests`) hold them to it.
//!
//! A closure may take the item alone or the item and its index (`|c, i| ...`), and
//! `reduce` the total first (`|sum, c| ...`), as in Rhai. A function named by text
//! (`Fn("is_even")`) or one that reads the item as `this` goes through Rhai's own
//! calling convention (`FnPtr::call_raw_with_extra_args`), which tries each form.

use std::cmp::Ordering;
use std::panic::AssertUnwindSafe;

use rhai::{FnPtr, NativeCallContext};

use super::*;
use crate::script::compiled::Callback;

/// How a function is handed a list item.
#[derive(Clone, Copy)]
enum Takes {
    /// `|item| ...` (after any curried values and the leading value)
    Item,
    /// `|item, index| ...`
    ItemIndex,
    /// Anything else: Rhai's convention finds the form.
    Other,
}

/// How `f`, handed `lead` values before the item, takes it: read once per call of the
/// list function, from the script's own definition of the closure.
fn takes(ctx: &NativeCallContext, f: &FnPtr, lead: usize) -> Takes {
    if !f.is_anonymous() {
        return Takes::Other;
    }
    let n = f.curry().len() + lead;
    let has = |k: usize| ctx.global_runtime_state().lib.iter().any(|m| m.get_script_fn(f.fn_name(), k).is_some());
    if has(n + 1) {
        Takes::Item
    } else if has(n + 2) {
        Takes::ItemIndex
    } else {
        Takes::Other
    }
}

/// `f` called on each item of a list, after `lead` values (a reduction's total so far):
/// how it takes the item, and the callback it is (found once for the whole list).
struct Each<'c, 'n> {
    how: Takes,
    callback: Callback<'c, 'n>,
}

impl<'c, 'n> Each<'c, 'n> {
    fn new(ctx: &'c NativeCallContext<'n>, f: &'c FnPtr, lead: usize) -> Self {
        let how = takes(ctx, f, lead);
        let callback = match how {
            Takes::Item => Callback::new(ctx, f, lead + 1),
            Takes::ItemIndex => Callback::new(ctx, f, lead + 2),
            Takes::Other => Callback::interpreted(ctx, f),
        };
        Each { how, callback }
    }

    /// Call `f` on `item` (at `index`), after `lead`.
    fn call(&mut self, caller: &str, lead: Option<Dynamic>, item: &mut Dynamic, index: usize) -> R<Dynamic> {
        let index = Dynamic::from(i64::try_from(index).unwrap_or(i64::MAX));
        let (ctx, f) = self.callback.parts();
        match (self.how, lead) {
            (Takes::Item, lead) => self.callback.call(lead.into_iter().chain([item.clone()])),
            (Takes::ItemIndex, lead) => self.callback.call(lead.into_iter().chain([item.clone(), index])),
            (Takes::Other, None) => f.call_raw_with_extra_args(caller, ctx, Some(item), [], [index], Some(0)),
            (Takes::Other, Some(total)) => {
                f.call_raw_with_extra_args(caller, ctx, Some(item), [total], [index], Some(1))
            }
        }
    }

    /// Call `f` on a map's entry, handed as `(key, value)`.
    fn call_entry(&mut self, caller: &str, key: &str, value: &mut Dynamic) -> R<Dynamic> {
        let key = Dynamic::from(key.to_string());
        let (ctx, f) = self.callback.parts();
        match self.how {
            Takes::Item => self.callback.call([key, value.clone()]),
            _ => f.call_raw_with_extra_args(caller, ctx, Some(value), [key], [], Some(1)),
        }
    }
}

/// An error at the list function's call.
fn wrong(ctx: &NativeCallContext, what: String) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(what.into(), ctx.call_position()).into()
}

fn type_words(ctx: &NativeCallContext, v: &Dynamic) -> String {
    failure::plain_words(ctx.engine().map_type_name(v.type_name()))
}

/// A predicate's answer.
fn truth(ctx: &NativeCallContext, caller: &str, v: Dynamic) -> R<bool> {
    v.as_bool().map_err(|_| {
        wrong(
            ctx,
            format!("the function given to `{caller}` must return true or false; it returned {}", type_words(ctx, &v)),
        )
    })
}

/// A comparison's answer: a number (below 0: `a` first; 0: equal; above 0: `b` first) or
/// `true` (`a` first) / `false`.
fn order(ctx: &NativeCallContext, caller: &str, v: Dynamic) -> R<Ordering> {
    if let Ok(n) = v.as_int() {
        return Ok(n.cmp(&0));
    }
    if let Ok(b) = v.as_bool() {
        return Ok(if b { Ordering::Less } else { Ordering::Greater });
    }
    Err(wrong(
        ctx,
        format!(
            "the comparison given to `{caller}` must return a number (below 0, 0 or above 0) or true/false; it returned {}",
            type_words(ctx, &v)
        ),
    ))
}

/// Where a search starts: `start` from the front, or from the back when negative.
fn start_at(len: usize, start: i64) -> usize {
    if start < 0 {
        len - usize::try_from(start.unsigned_abs()).unwrap_or(usize::MAX).min(len)
    } else {
        usize::try_from(start).unwrap_or(usize::MAX).min(len)
    }
}

/// Sort `a` in place with the script's comparison (a stable sort). The first error
/// stops the comparisons and is the result; a comparison that is not a consistent order
/// is an error too (the standard sort notices some).
fn sort(ctx: &NativeCallContext, caller: &str, a: &mut Array, f: &FnPtr) -> R<()> {
    if a.len() <= 1 {
        return Ok(());
    }
    let mut failed: Option<Box<EvalAltResult>> = None;
    let mut compare = Callback::new(ctx, f, 2);
    let sorted = std::panic::catch_unwind(AssertUnwindSafe(|| {
        a.sort_by(|x, y| {
            if failed.is_some() {
                return Ordering::Equal;
            }
            match compare.call([x.clone(), y.clone()]).and_then(|v| order(ctx, caller, v)) {
                Ok(o) => o,
                Err(e) => {
                    failed = Some(e);
                    Ordering::Equal
                }
            }
        });
    }));
    match (failed, sorted) {
        (Some(e), _) => Err(e),
        (None, Ok(())) => Ok(()),
        (None, Err(_)) => Err(wrong(
            ctx,
            format!("the comparison given to `{caller}` does not order the list consistently (it says a before b and b before a, or a before b, b before c and c before a)"),
        )),
    }
}

/// The items of `a` from `start` for which `f` holds, by index.
fn first_match(ctx: &NativeCallContext, caller: &str, a: &mut Array, f: &FnPtr, start: i64) -> R<Option<usize>> {
    let mut each = Each::new(ctx, f, 0);
    let from = start_at(a.len(), start);
    for (i, item) in a.iter_mut().enumerate().skip(from) {
        if truth(ctx, caller, each.call(caller, None, item, i)?)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Remove the items for which `f` holds (`keep` false) or does not hold (`keep` true),
/// and return them.
fn split_off(ctx: &NativeCallContext, caller: &str, a: &mut Array, f: &FnPtr, keep: bool) -> R<Array> {
    let mut each = Each::new(ctx, f, 0);
    let mut out = Array::new();
    let mut i = 0;
    let mut x = 0;
    while x < a.len() {
        if truth(ctx, caller, each.call(caller, None, &mut a[x], i)?)? != keep {
            out.push(a.remove(x));
        } else {
            x += 1;
        }
        i += 1;
    }
    Ok(out)
}

fn reduce(ctx: &NativeCallContext, a: &mut Array, f: &FnPtr, initial: Dynamic, backwards: bool) -> R<Dynamic> {
    let caller = if backwards { "reduce_rev" } else { "reduce" };
    let mut each = Each::new(ctx, f, 1);
    let n = a.len();
    let mut total = initial;
    for k in 0..n {
        let i = if backwards { n - 1 - k } else { k };
        total = each.call(caller, Some(total), &mut a[i], i)?;
    }
    Ok(total)
}

pub(super) fn register(e: &mut Registrar) {
    for name in ["sort", "sort_by"] {
        e.register_mutating(name, move |ctx: NativeCallContext, a: &mut Array, f: FnPtr| sort(&ctx, name, a, &f));
    }
    for name in ["order", "order_by"] {
        e.register_fn(name, move |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<Array> {
            let mut copy = a.clone();
            sort(&ctx, name, &mut copy, &f)?;
            Ok(copy)
        });
    }
    e.register_fn("map", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<Array> {
        let mut each = Each::new(&ctx, &f, 0);
        let mut out = Array::with_capacity(a.len());
        for (i, item) in a.iter_mut().enumerate() {
            out.push(each.call("map", None, item, i)?);
        }
        Ok(out)
    });
    e.register_fn("filter", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<Array> {
        let mut each = Each::new(&ctx, &f, 0);
        let mut out = Array::new();
        for (i, item) in a.iter_mut().enumerate() {
            if truth(&ctx, "filter", each.call("filter", None, item, i)?)? {
                out.push(item.clone());
            }
        }
        Ok(out)
    });
    e.register_fn("reduce", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| {
        reduce(&ctx, a, &f, Dynamic::UNIT, false)
    });
    e.register_fn("reduce", |ctx: NativeCallContext, a: &mut Array, f: FnPtr, initial: Dynamic| {
        reduce(&ctx, a, &f, initial, false)
    });
    e.register_fn("reduce_rev", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| {
        reduce(&ctx, a, &f, Dynamic::UNIT, true)
    });
    e.register_fn("reduce_rev", |ctx: NativeCallContext, a: &mut Array, f: FnPtr, initial: Dynamic| {
        reduce(&ctx, a, &f, initial, true)
    });
    e.register_fn("some", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<bool> {
        Ok(first_match(&ctx, "some", a, &f, 0)?.is_some())
    });
    e.register_fn("all", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<bool> {
        let mut each = Each::new(&ctx, &f, 0);
        for (i, item) in a.iter_mut().enumerate() {
            if !truth(&ctx, "all", each.call("all", None, item, i)?)? {
                return Ok(false);
            }
        }
        Ok(true)
    });
    let index = |r: Option<usize>| r.map_or(-1, |i| i64::try_from(i).unwrap_or(i64::MAX));
    e.register_fn("index_of", move |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<i64> {
        Ok(index(first_match(&ctx, "index_of", a, &f, 0)?))
    });
    e.register_fn("index_of", move |ctx: NativeCallContext, a: &mut Array, f: FnPtr, start: i64| -> R<i64> {
        Ok(index(first_match(&ctx, "index_of", a, &f, start)?))
    });
    e.register_fn("find", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<Dynamic> {
        Ok(first_match(&ctx, "find", a, &f, 0)?.map_or(Dynamic::UNIT, |i| a[i].clone()))
    });
    e.register_fn("find", |ctx: NativeCallContext, a: &mut Array, f: FnPtr, start: i64| -> R<Dynamic> {
        Ok(first_match(&ctx, "find", a, &f, start)?.map_or(Dynamic::UNIT, |i| a[i].clone()))
    });
    for arity in [false, true] {
        let find_map = move |ctx: &NativeCallContext, a: &mut Array, f: &FnPtr, start: i64| -> R<Dynamic> {
            let mut each = Each::new(ctx, f, 0);
            let from = start_at(a.len(), start);
            for (i, item) in a.iter_mut().enumerate().skip(from) {
                let v = each.call("find_map", None, item, i)?;
                if !v.is_unit() {
                    return Ok(v);
                }
            }
            Ok(Dynamic::UNIT)
        };
        if arity {
            e.register_fn("find_map", move |ctx: NativeCallContext, a: &mut Array, f: FnPtr, start: i64| {
                find_map(&ctx, a, &f, start)
            });
        } else {
            e.register_fn("find_map", move |ctx: NativeCallContext, a: &mut Array, f: FnPtr| find_map(&ctx, a, &f, 0));
        }
    }
    e.register_mutating("retain", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| {
        split_off(&ctx, "retain", a, &f, true)
    });
    e.register_mutating("drain", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| {
        split_off(&ctx, "drain", a, &f, false)
    });
    e.register_mutating("dedup", |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<()> {
        // Rhai's order: the later item first (`Vec::dedup_by` hands them so).
        let mut failed: Option<Box<EvalAltResult>> = None;
        let mut same = Callback::new(&ctx, &f, 2);
        a.dedup_by(|x, y| {
            if failed.is_some() {
                return false;
            }
            match same.call([y.clone(), x.clone()]).and_then(|v| truth(&ctx, "dedup", v)) {
                Ok(same) => same,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        });
        failed.map_or(Ok(()), Err)
    });
    // Object maps: the function is handed `(key, value)`.
    e.register_fn("map", |ctx: NativeCallContext, m: &mut Map, f: FnPtr| -> R<Map> {
        let mut each = Each::new(&ctx, &f, 1);
        let mut out = Map::new();
        for (k, v) in m.iter_mut() {
            out.insert(k.clone(), each.call_entry("map", k, v)?);
        }
        Ok(out)
    });
    e.register_fn("filter", |ctx: NativeCallContext, m: &mut Map, f: FnPtr| -> R<Map> {
        let mut each = Each::new(&ctx, &f, 1);
        let mut out = Map::new();
        for (k, v) in m.iter_mut() {
            if truth(&ctx, "filter", each.call_entry("filter", k, v)?)? {
                out.insert(k.clone(), v.clone());
            }
        }
        Ok(out)
    });
}
