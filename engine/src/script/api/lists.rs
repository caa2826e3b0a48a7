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

/// Sort `a` in place by the key `f` gives each item (`sort_by_key`, `order_by_key`): `f`
/// is called once for each item, in order, and the items are ordered by their keys (a
/// stable sort). Keys are numbers, texts, characters or true/false, or lists of these,
/// compared item by item (a list that is the start of another comes first); two keys of
/// different kinds at one place are an error.
fn sort_by_key(ctx: &NativeCallContext, caller: &str, a: &mut Array, f: &FnPtr) -> R<()> {
    let mut each = Each::new(ctx, f, 0);
    let mut keyed = Vec::with_capacity(a.len());
    for (i, mut item) in std::mem::take(a).into_iter().enumerate() {
        keyed.push((each.call(caller, None, &mut item, i)?, item));
    }
    let mut failed: Option<(Dynamic, Dynamic)> = None;
    keyed.sort_by(|(x, _), (y, _)| {
        key_order(x, y).unwrap_or_else(|pair| {
            failed.get_or_insert(pair);
            Ordering::Equal
        })
    });
    if let Some((x, y)) = failed {
        return Err(wrong(
            ctx,
            format!(
                "the keys given to `{caller}` must be of one kind to be compared: {} and {}",
                type_words(ctx, &x),
                type_words(ctx, &y)
            ),
        ));
    }
    a.extend(keyed.into_iter().map(|(_, item)| item));
    Ok(())
}

/// How two sort keys compare, or the two values at the first place where they cannot.
fn key_order(x: &Dynamic, y: &Dynamic) -> Result<Ordering, (Dynamic, Dynamic)> {
    if let (Ok(a), Ok(b)) = (x.as_int(), y.as_int()) {
        return Ok(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (x.read_lock::<ImmutableString>(), y.read_lock::<ImmutableString>()) {
        return Ok(a.as_str().cmp(b.as_str()));
    }
    if let (Ok(a), Ok(b)) = (x.as_char(), y.as_char()) {
        return Ok(a.cmp(&b));
    }
    if let (Ok(a), Ok(b)) = (x.as_bool(), y.as_bool()) {
        return Ok(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (x.read_lock::<Array>(), y.read_lock::<Array>()) {
        for (p, q) in a.iter().zip(b.iter()) {
            match key_order(p, q)? {
                Ordering::Equal => continue,
                o => return Ok(o),
            }
        }
        return Ok(a.len().cmp(&b.len()));
    }
    Err((x.clone(), y.clone()))
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

/// A copy of `a` sorted in place by `how` (`order`, `order_by` with `sort`; `order_by_key`
/// with `sort_by_key`), `a` left as it is.
fn sorted(
    ctx: &NativeCallContext,
    caller: &str,
    a: &Array,
    f: &FnPtr,
    how: fn(&NativeCallContext, &str, &mut Array, &FnPtr) -> R<()>,
) -> R<Array> {
    let mut copy = a.clone();
    how(ctx, caller, &mut copy, f)?;
    Ok(copy)
}

/// The first value `f` returns for an item of `a` from `start` that is not `()`, or `()`.
fn find_map(ctx: &NativeCallContext, a: &mut Array, f: &FnPtr, start: i64) -> R<Dynamic> {
    let mut each = Each::new(ctx, f, 0);
    let from = start_at(a.len(), start);
    for (i, item) in a.iter_mut().enumerate().skip(from) {
        let v = each.call("find_map", None, item, i)?;
        if !v.is_unit() {
            return Ok(v);
        }
    }
    Ok(Dynamic::UNIT)
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
    e.section("Lists");
    let index = |r: Option<usize>| r.map_or(-1, |i| i64::try_from(i).unwrap_or(i64::MAX));
    e.register_mutating(
        "list.sort(|a, b| ...)",
        "Sort the list in place (stable) by a comparison: a number below 0 puts `a` first, 0 keeps the order, above \
         0 puts `b` first (`true`/`false` mean `a` first / `b` first): `hand.sort(|x, y| rank(x) - rank(y))`. \
         Anything else it returns, an error inside it, or an order that contradicts itself stops the script at its \
         line.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| sort(&ctx, "sort", a, &f),
    );
    e.register_mutating(
        "list.sort_by(|a, b| ...)",
        "The same as `sort`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| sort(&ctx, "sort_by", a, &f),
    );
    e.register_fn(
        "list.order(|a, b| ...)",
        "A sorted copy of the list, the list left as it is.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| sorted(&ctx, "order", a, &f, sort),
    );
    e.register_fn(
        "list.order_by(|a, b| ...)",
        "The same as `order`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| sorted(&ctx, "order_by", a, &f, sort),
    );
    e.register_mutating(
        "list.sort_by_key(|x| ...)",
        "Sort the list in place (stable) by a key the function gives each item, called once per item: \
         `hand.sort_by_key(|c| card_order(c))`. Keys are numbers, texts, characters or true/false, or lists of \
         these compared item by item (`|c| [suit_of(c), rank_of(c)]`); keys of two kinds, or an error inside the \
         function, stop the script at its line.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| sort_by_key(&ctx, "sort_by_key", a, &f),
    );
    e.register_fn(
        "list.order_by_key(|x| ...)",
        "A copy of the list sorted as `sort_by_key` sorts it, the list left as it is.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| sorted(&ctx, "order_by_key", a, &f, sort_by_key),
    );
    e.register_fn(
        "list.map(|x| ...)",
        "A new list of what the function returns for each item. The function may take the item's index too: `|x, i| \
         ...`; so may every function below that is handed items.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<Array> {
            let mut each = Each::new(&ctx, &f, 0);
            let mut out = Array::with_capacity(a.len());
            for (i, item) in a.iter_mut().enumerate() {
                out.push(each.call("map", None, item, i)?);
            }
            Ok(out)
        },
    );
    e.register_fn(
        "list.filter(|x| ...)",
        "The items for which the function returns `true` (it must return `true` or `false`).",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<Array> {
            let mut each = Each::new(&ctx, &f, 0);
            let mut out = Array::new();
            for (i, item) in a.iter_mut().enumerate() {
                if truth(&ctx, "filter", each.call("filter", None, item, i)?)? {
                    out.push(item.clone());
                }
            }
            Ok(out)
        },
    );
    e.register_fn(
        "list.reduce(|total, x| ...)",
        "Fold the list from the front: `total` starts as `()` and becomes what the function returns.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| reduce(&ctx, a, &f, Dynamic::UNIT, false),
    );
    e.register_fn(
        "list.reduce(|total, x| ..., start)",
        "The same, `total` starting as `start`: `cards.reduce(|sum, c| sum + worth(c), 0)`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr, initial: Dynamic| reduce(&ctx, a, &f, initial, false),
    );
    e.register_fn(
        "list.reduce_rev(|total, x| ...)",
        "`reduce` from the back.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| reduce(&ctx, a, &f, Dynamic::UNIT, true),
    );
    e.register_fn(
        "list.reduce_rev(|total, x| ..., start)",
        "`reduce` from the back, starting as `start`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr, initial: Dynamic| reduce(&ctx, a, &f, initial, true),
    );
    e.register_fn(
        "list.some(|x| ...)",
        "Whether the function returns `true` for some item (it stops at the first).",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<bool> {
            Ok(first_match(&ctx, "some", a, &f, 0)?.is_some())
        },
    );
    e.register_fn(
        "list.all(|x| ...)",
        "Whether it returns `true` for every item (it stops at the first `false`).",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<bool> {
            let mut each = Each::new(&ctx, &f, 0);
            for (i, item) in a.iter_mut().enumerate() {
                if !truth(&ctx, "all", each.call("all", None, item, i)?)? {
                    return Ok(false);
                }
            }
            Ok(true)
        },
    );
    e.register_fn(
        "list.index_of(|x| ...)",
        "The index of the first item for which it returns `true`, or -1. (`index_of(value)` finds a value.)",
        move |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<i64> {
            Ok(index(first_match(&ctx, "index_of", a, &f, 0)?))
        },
    );
    e.register_fn(
        "list.index_of(|x| ..., start)",
        "The same from index `start` (from the back when negative).",
        move |ctx: NativeCallContext, a: &mut Array, f: FnPtr, start: i64| -> R<i64> {
            Ok(index(first_match(&ctx, "index_of", a, &f, start)?))
        },
    );
    e.register_fn(
        "list.find(|x| ...)",
        "The first item for which it returns `true`, or `()`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<Dynamic> {
            Ok(first_match(&ctx, "find", a, &f, 0)?.map_or(Dynamic::UNIT, |i| a[i].clone()))
        },
    );
    e.register_fn(
        "list.find(|x| ..., start)",
        "The same from index `start`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr, start: i64| -> R<Dynamic> {
            Ok(first_match(&ctx, "find", a, &f, start)?.map_or(Dynamic::UNIT, |i| a[i].clone()))
        },
    );
    e.register_fn(
        "list.find_map(|x| ...)",
        "The first value the function returns that is not `()`, or `()`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| find_map(&ctx, a, &f, 0),
    );
    e.register_fn(
        "list.find_map(|x| ..., start)",
        "The same from index `start`.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr, start: i64| find_map(&ctx, a, &f, start),
    );
    e.register_mutating(
        "list.retain(|x| ...)",
        "Keep the items for which it returns `true`; return the others, removed.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| split_off(&ctx, "retain", a, &f, true),
    );
    e.register_mutating(
        "list.drain(|x| ...)",
        "Remove the items for which it returns `true`, and return them.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| split_off(&ctx, "drain", a, &f, false),
    );
    e.register_mutating(
        "list.dedup(|a, b| ...)",
        "Remove each item the function calls the same (`true`) as the item kept before it.",
        |ctx: NativeCallContext, a: &mut Array, f: FnPtr| -> R<()> {
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
        },
    );
    // Object maps: the function is handed `(key, value)`.
    e.register_fn(
        "map.map(|key, value| ...)",
        "An object map of what the function returns for each entry.",
        |ctx: NativeCallContext, m: &mut Map, f: FnPtr| -> R<Map> {
            let mut each = Each::new(&ctx, &f, 1);
            let mut out = Map::new();
            for (k, v) in m.iter_mut() {
                out.insert(k.clone(), each.call_entry("map", k, v)?);
            }
            Ok(out)
        },
    );
    e.register_fn(
        "map.filter(|key, value| ...)",
        "The entries for which it returns `true`.",
        |ctx: NativeCallContext, m: &mut Map, f: FnPtr| -> R<Map> {
            let mut each = Each::new(&ctx, &f, 1);
            let mut out = Map::new();
            for (k, v) in m.iter_mut() {
                if truth(&ctx, "filter", each.call_entry("filter", k, v)?)? {
                    out.insert(k.clone(), v.clone());
                }
            }
            Ok(out)
        },
    );
}
