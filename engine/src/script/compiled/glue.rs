//! Crown's own glue between a call's arguments and a host function's Rust parameters,
//! used by the compiled tier (the interpreter keeps Rhai's).
//!
//! Rhai's glue (`RhaiNativeFunc`) converts each argument with `Dynamic::cast`, which
//! names the argument's type before converting it, for a panic message a checked call
//! never shows: about 90 instructions an argument, more than many host functions take
//! to run. A compiled call site has already matched the argument types against the
//! function's parameters (`natives::Site`), so the glue here reads an integer or a
//! boolean where it lies and converts anything else with `try_cast_result`: the same
//! value, without the name.
//!
//! [`Glue`] is implemented for the same closure shapes as Rhai's: 0 to 6 parameters, a
//! `NativeCallContext` first or not, the first parameter `&mut T` or by value, returning
//! a value or a `Result` of one. `Registrar::register_fn` asks for both, so every
//! function Crown registers gets both.

use std::any::{type_name, Any, TypeId};
use std::sync::Arc;

use rhai::{Dynamic, EvalAltResult, NativeCallContext, Variant};

/// A host function's result (Rhai's `RhaiResult`).
type RhaiResult = Result<Dynamic, Box<EvalAltResult>>;

use super::rt::{boolean, int};

/// A host function as the compiled tier calls it (the shape of Rhai's native functions).
pub(crate) type Callable =
    Arc<dyn Fn(Option<NativeCallContext>, &mut [&mut Dynamic]) -> RhaiResult + Send + Sync + 'static>;

/// Marks a `&mut T` parameter in a [`Glue`] marker (as Rhai's `Mut<T>`).
pub struct Mut<T>(T);
/// Marks a function that returns its value.
pub struct Plain;
/// Marks a function that returns `Result<value, Box<EvalAltResult>>`.
pub struct Fallible;
/// Marks a function without a `NativeCallContext` parameter.
pub struct NoContext;
/// Marks a function whose first parameter is a `NativeCallContext`.
pub struct Context;

/// A closure the compiled tier can call through its own glue. `M` is a marker tuple
/// (context, return, parameters) that keeps each shape's implementation apart.
pub trait Glue<M> {
    fn callable(self) -> Callable;
}

/// The argument as parameter type `T` (its type already checked by the call site).
#[inline(always)]
fn arg<T: Variant + Clone>(a: &mut Dynamic) -> T {
    if TypeId::of::<T>() == TypeId::of::<i64>() {
        if let Some(n) = int(a) {
            return reify(n);
        }
    }
    if TypeId::of::<T>() == TypeId::of::<bool>() {
        if let Some(b) = boolean(a) {
            return reify(b);
        }
    }
    let v = std::mem::take(a);
    // A `Dynamic` parameter gets the argument as it is (`Dynamic::cast` does the same).
    if TypeId::of::<T>() == TypeId::of::<Dynamic>() {
        return reify(v);
    }
    match v.try_cast_result::<T>() {
        Ok(t) => t,
        Err(v) => panic!("cannot cast {} to {}", v.type_name(), type_name::<T>()),
    }
}

/// `a` as type `T`, which it is (the type ids are compared when the code is generated).
#[inline(always)]
fn reify<A: Any, T: Any>(a: A) -> T {
    let mut slot = Some(a);
    match (&mut slot as &mut dyn Any).downcast_mut::<Option<T>>() {
        Some(t) => t.take().expect("just put"),
        None => unreachable!("{} is not {}", type_name::<A>(), type_name::<T>()),
    }
}

/// The value a host function returned, as Rhai's glue makes it.
#[inline(always)]
fn ret<R: Variant + Clone>(r: R) -> RhaiResult {
    Ok(Dynamic::from(r))
}

#[inline(always)]
fn ret_fallible<R: Variant + Clone>(r: Result<R, Box<EvalAltResult>>) -> RhaiResult {
    r.map(Dynamic::from)
}

macro_rules! glue_shapes {
    ($($p:ident),*) => {
        glue_shapes!(@plain Plain, ret, ($($p),*));
        glue_shapes!(@plain Fallible, ret_fallible, ($($p),*));
        glue_shapes!(@method Plain, ret, ($($p),*));
        glue_shapes!(@method Fallible, ret_fallible, ($($p),*));
    };
    // Every parameter by value.
    (@plain $ret:ident, $conv:ident, ($($p:ident),*)) => {
        #[allow(non_snake_case, unused_mut, unused_variables)]
        impl<FN, $($p: Variant + Clone,)* RET: Variant + Clone> Glue<(NoContext, $ret, ($($p,)*))> for FN
        where
            FN: Fn($($p),*) -> glue_shapes!(@ret $ret RET) + Send + Sync + 'static,
        {
            fn callable(self) -> Callable {
                Arc::new(move |_: Option<NativeCallContext>, args: &mut [&mut Dynamic]| {
                    let mut drain = args.iter_mut();
                    $(let $p = arg::<$p>(drain.next().expect("an argument for each parameter"));)*
                    $conv(self($($p),*))
                })
            }
        }
        #[allow(non_snake_case, unused_mut, unused_variables)]
        impl<FN, $($p: Variant + Clone,)* RET: Variant + Clone> Glue<(Context, $ret, ($($p,)*))> for FN
        where
            FN: for<'a> Fn(NativeCallContext<'a>, $($p),*) -> glue_shapes!(@ret $ret RET) + Send + Sync + 'static,
        {
            fn callable(self) -> Callable {
                Arc::new(move |ctx: Option<NativeCallContext>, args: &mut [&mut Dynamic]| {
                    let ctx = ctx.expect("a context for a function that takes one");
                    let mut drain = args.iter_mut();
                    $(let $p = arg::<$p>(drain.next().expect("an argument for each parameter"));)*
                    $conv(self(ctx, $($p),*))
                })
            }
        }
    };
    // The first parameter `&mut T` (a method on the value where it lies), the rest by value.
    (@method $ret:ident, $conv:ident, ()) => {};
    (@method $ret:ident, $conv:ident, ($first:ident $(, $p:ident)*)) => {
        #[allow(non_snake_case, unused_mut, unused_variables)]
        impl<FN, $first: Variant + Clone, $($p: Variant + Clone,)* RET: Variant + Clone>
            Glue<(NoContext, $ret, (Mut<$first>, $($p,)*))> for FN
        where
            FN: Fn(&mut $first, $($p),*) -> glue_shapes!(@ret $ret RET) + Send + Sync + 'static,
        {
            fn callable(self) -> Callable {
                Arc::new(move |_: Option<NativeCallContext>, args: &mut [&mut Dynamic]| {
                    let (first, rest) = args.split_first_mut().expect("the value the method is called on");
                    let mut drain = rest.iter_mut();
                    $(let $p = arg::<$p>(drain.next().expect("an argument for each parameter"));)*
                    let mut guard = first.write_lock::<$first>().expect("the type the call site checked");
                    $conv(self(&mut guard, $($p),*))
                })
            }
        }
        #[allow(non_snake_case, unused_mut, unused_variables)]
        impl<FN, $first: Variant + Clone, $($p: Variant + Clone,)* RET: Variant + Clone>
            Glue<(Context, $ret, (Mut<$first>, $($p,)*))> for FN
        where
            FN: for<'a> Fn(NativeCallContext<'a>, &mut $first, $($p),*) -> glue_shapes!(@ret $ret RET)
                + Send + Sync + 'static,
        {
            fn callable(self) -> Callable {
                Arc::new(move |ctx: Option<NativeCallContext>, args: &mut [&mut Dynamic]| {
                    let ctx = ctx.expect("a context for a function that takes one");
                    let (first, rest) = args.split_first_mut().expect("the value the method is called on");
                    let mut drain = rest.iter_mut();
                    $(let $p = arg::<$p>(drain.next().expect("an argument for each parameter"));)*
                    let mut guard = first.write_lock::<$first>().expect("the type the call site checked");
                    $conv(self(ctx, &mut guard, $($p),*))
                })
            }
        }
    };
    (@ret Plain $r:ident) => { $r };
    (@ret Fallible $r:ident) => { Result<$r, Box<EvalAltResult>> };
}

glue_shapes!();
glue_shapes!(A);
glue_shapes!(A, B);
glue_shapes!(A, B, C);
glue_shapes!(A, B, C, D);
glue_shapes!(A, B, C, D, E);
glue_shapes!(A, B, C, D, E, G);
