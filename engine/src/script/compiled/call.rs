//! A call by name (`f(a, b)`, not an operator or a method) as compiled code runs it: the
//! arguments evaluated into a list of the call's own size, the first one by reference
//! when it is a variable, then a script function or a native one.
//!
//! The arguments of the calls rules make most (up to four) live in an array on the stack
//! ([`Call::run`] is generic over its length): no list to grow, and nothing to free.

use rhai::{Dynamic, EvalAltResult, ImmutableString, Position};

use super::host::{HostFn, Param};
use super::natives::Site;
use super::rt::{copy, discard, Code, Ctl, Loans, Place, Rt, X};
use crate::script::api;

/// A compiled call by name.
pub(crate) struct Call {
    /// The position the node counts its operation at, when the call is a whole statement
    /// or expression.
    pub track: Option<Position>,
    /// The first argument, when it is a variable (or `this`): its place and position.
    pub by_ref: Option<(Place, Position)>,
    /// The other arguments, in order.
    pub rest: Vec<Arg>,
    /// The script function called, when the name is one of the script's.
    pub script: Option<usize>,
    pub site: Site,
    /// `type_of(x)`, answered here.
    pub type_of: bool,
    /// A script function gets the variable handed first moved, at its last use.
    pub moved: bool,
    /// The one host function the call can reach, when there is only one (see
    /// `HostTable::only`): called straight away when the arguments have its types.
    pub known: Option<HostFn>,
    /// Text arguments not made where no one would read them.
    pub quiet: Option<Quiet>,
    /// `push(list, item)` onto a variable: its sizes worked out from the last `push`'s
    /// (see [`super::rt::KnownSizes`]).
    pub appends: bool,
    /// The arguments (bit `k` for the `k`-th) that are variables the script function
    /// only reads: a list or map they hold is lent to it, not copied (see [`lent_args`]).
    pub lend: u64,
    pub pos: Position,
}

/// The arguments of a call to a script function that lend their variable's value (bit
/// `k` for the `k`-th, the variable handed first included), made `Arg::Lend`: those the
/// function only reads (`params`, see `moves::lendable`), when the argument is a variable
/// read that is not its last use (that one is moved) and no other argument mentions the
/// variable (`shared`: the value is taken once every argument is made, and another
/// argument could change it first), at most [`Loans::MAX`].
pub(crate) fn lend_args(
    params: u64,
    by_ref: Option<(Place, Position)>,
    moved: bool,
    rest: &mut [Arg],
    shared: &[bool],
) -> u64 {
    let off = usize::from(by_ref.is_some());
    let mut mask = 0u64;
    let mut lends = |j: usize, var: bool| {
        let lend = var && j < 64 && params >> j & 1 == 1 && !shared[j] && (mask.count_ones() as usize) < Loans::MAX;
        if lend {
            mask |= 1 << j;
        }
        lend
    };
    if let Some((place, _)) = by_ref {
        lends(0, matches!(place, Place::Slot(_)) && !moved);
    }
    for (k, a) in rest.iter_mut().enumerate() {
        if let Arg::Var(s, p) = *a {
            if lends(off + k, true) {
                *a = Arg::Lend(s, p);
            }
        }
    }
    mask
}

/// A call to the host's narration or `choose` whose text arguments are made only where
/// something reads them ([`crate::script::api::nobody_reads`]): a transcript, a listener,
/// or (for a prompt) the deciding seat's agent. Unmade text is passed as `""`.
#[derive(Clone, Copy)]
pub(crate) enum Quiet {
    /// `log(text)`, `log_to(who, text[, others])`: the arguments from `rest[from]` on.
    Narration { from: usize },
    /// `choose(p, prompt, options)`: the prompt, `rest[at]`, the options after it, the
    /// seat first. Where the options are none, `choose`'s error quotes the prompt: it is
    /// then made after them.
    Prompt { at: usize },
}

/// An argument of a call. Quoted text, an integer and a variable read (not at its last
/// use) are made here, each counting its one operation as its compiled node would, without
/// calling a node for them.
pub(crate) enum Arg {
    Text(ImmutableString, Position),
    Int(i64, Position),
    Var(usize, Position),
    /// A variable read that lends a list or map it holds to the script function called
    /// (see [`lend_args`]); any other value is copied, as by `Var`.
    Lend(usize, Position),
    Code(Code),
}

impl Arg {
    /// The argument's value; a list or map it lends is left where it is (unit given:
    /// [`Call::lend_values`] takes it once every argument is made).
    #[inline(always)]
    fn eval(&self, rt: &mut Rt) -> X {
        match self {
            Arg::Lend(slot, p) => {
                rt.track(*p)?;
                let v = rt.slot(*slot);
                Ok(if lendable(v) { Dynamic::UNIT } else { copy(v) })
            }
            Arg::Text(s, p) => {
                rt.track(*p)?;
                Ok(Dynamic::from(s.clone()))
            }
            Arg::Int(n, p) => {
                rt.track(*p)?;
                Ok(Dynamic::from_int(*n))
            }
            Arg::Var(slot, p) => {
                rt.track(*p)?;
                Ok(copy(rt.slot(*slot)))
            }
            Arg::Code(c) => c(rt),
        }
    }
}

/// A call's argument values.
trait Values: AsMut<[Dynamic]> + IntoIterator<Item = Dynamic> {
    /// `n` units, to be filled in.
    fn units(n: usize) -> Self;
}

impl<const N: usize> Values for [Dynamic; N] {
    #[inline(always)]
    fn units(n: usize) -> Self {
        debug_assert_eq!(n, N);
        std::array::from_fn(|_| Dynamic::UNIT)
    }
}

impl Values for Vec<Dynamic> {
    fn units(n: usize) -> Self {
        vec![Dynamic::UNIT; n]
    }
}

impl Call {
    /// The call as a closure, its arguments held in a list of their number.
    pub(crate) fn code(self) -> Code {
        match self.rest.len() + usize::from(self.by_ref.is_some()) {
            0 => Box::new(move |rt| self.run::<[Dynamic; 0]>(rt)),
            1 => Box::new(move |rt| self.run::<[Dynamic; 1]>(rt)),
            2 => Box::new(move |rt| self.run::<[Dynamic; 2]>(rt)),
            3 => Box::new(move |rt| self.run::<[Dynamic; 3]>(rt)),
            4 => Box::new(move |rt| self.run::<[Dynamic; 4]>(rt)),
            _ => Box::new(move |rt| self.run::<Vec<Dynamic>>(rt)),
        }
    }

    #[inline(always)]
    fn run<V: Values>(&self, rt: &mut Rt) -> X {
        if let Some(t) = self.track {
            rt.track(t)?;
        }
        // `f(this, ..)` with no `this` evaluates `this` as an argument (an error).
        let by_ref = match self.by_ref {
            Some((Place::This(p), _)) if rt.this.is_none() => {
                rt.track(p)?;
                return Err(Ctl::err(EvalAltResult::ErrorUnboundThis(p).into()));
            }
            b => b,
        };
        if let Some((_, vpos)) = by_ref {
            rt.track(vpos)?;
        }
        // The values, the first one's place kept for a variable's (read after the others,
        // as the interpreter does).
        let off = usize::from(by_ref.is_some());
        let mut values = V::units(off + self.rest.len());
        let mut unread = match self.quiet {
            Some(Quiet::Narration { from }) if api::nobody_reads(None) => from..usize::MAX,
            _ => 0..0,
        };
        for (k, a) in self.rest.iter().enumerate() {
            if let Some(Quiet::Prompt { at }) = self.quiet {
                if k == at {
                    let seat = match by_ref {
                        Some((place, _)) => rt.peek(place)?,
                        None => &values.as_mut()[0],
                    };
                    if api::nobody_reads(Some(seat)) {
                        unread = at..at + 1;
                    }
                }
            }
            if unread.contains(&k) {
                set(&mut values.as_mut()[off + k], Dynamic::from(ImmutableString::new()));
                continue;
            }
            match a.eval(rt) {
                Ok(v) => set(&mut values.as_mut()[off + k], v),
                Err(e) => {
                    values.into_iter().for_each(discard);
                    return Err(e);
                }
            }
        }
        // A prompt left unmade is made after all where `choose` will quote it.
        if let Some(Quiet::Prompt { at }) = self.quiet {
            if unread.contains(&at) && !values.as_mut().get(off + at + 1).is_some_and(api::offers_something) {
                match self.rest[at].eval(rt) {
                    Ok(v) => set(&mut values.as_mut()[off + at], v),
                    Err(e) => {
                        values.into_iter().for_each(discard);
                        return Err(e);
                    }
                }
            }
        }
        if let Some(i) = self.script {
            if let Some((place, _)) = by_ref {
                if self.lend & 1 == 0 || !lendable(rt.peek(place)?) {
                    let v = match (self.moved, place) {
                        (true, Place::Slot(i)) => rt.take_last(i),
                        _ => rt.read(place)?,
                    };
                    set(&mut values.as_mut()[0], v);
                }
            }
            if self.lend != 0 {
                let loans = self.lend_values(rt, by_ref, values.as_mut());
                if !loans.is_empty() {
                    return Ok(super::call_script_lent(rt, i, values, self.pos, &loans)?);
                }
            }
            return Ok(super::call_script(rt, i, values, self.pos)?);
        }
        if let Some(k) = &self.known {
            // Its first parameter is taken by value, so a variable handed first is copied
            // (the interpreter lends it and the function gets a copy: the same).
            let first = match by_ref {
                Some((place, _)) => Some(rt.peek(place)?),
                None => None,
            };
            if same_types(&k.params, first, &values.as_mut()[off..]) {
                if let Some(v) = first.map(copy) {
                    set(&mut values.as_mut()[0], v);
                }
                rt.level += 1;
                let r = with_refs(values.as_mut(), |args| self.site.call_host_values(rt, k.kind, &k.call, args));
                rt.level -= 1;
                values.into_iter().for_each(discard);
                return Ok(r?);
            }
        }
        let mut by_value = true;
        let mut appends = false;
        if let Some((place, _)) = by_ref {
            let v = rt.peek(place)?;
            let v = if v.is_read_only() {
                rt.read(place)?
            } else {
                by_value = false;
                if let (true, Place::Slot(i)) = (self.appends, place) {
                    rt.arm_push(i);
                    appends = true;
                }
                rt.take(place)?
            };
            set(&mut values.as_mut()[0], v);
        }
        let r = if self.type_of {
            Ok(Dynamic::from(rt.engine.map_type_name(values.as_mut()[0].type_name()).to_string()))
        } else {
            rt.level += 1;
            let r = with_refs(values.as_mut(), |args| self.site.call(rt, args, !by_value));
            rt.level -= 1;
            r
        };
        if let (false, Some((place, _))) = (by_value, by_ref) {
            rt.put(place, std::mem::take(&mut values.as_mut()[0]));
        }
        if appends {
            rt.settle_push();
        }
        // (Most arguments were taken by the call, leaving unit.)
        values.into_iter().for_each(discard);
        Ok(r?)
    }
}

#[cfg(test)]
thread_local! {
    /// Values lent on this thread (tests check that a loan was made).
    pub(crate) static LENT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl Call {
    /// The values of the arguments that lend (`lend`) and hold a list or a map, not a
    /// constant's: each moves to the call and comes back when it ends. (Their places hold
    /// unit: the others were copied as each argument was made.)
    fn lend_values(&self, rt: &mut Rt, by_ref: Option<(Place, Position)>, values: &mut [Dynamic]) -> Loans {
        let mut loans = Loans::NONE;
        let off = usize::from(by_ref.is_some());
        let mut bits = self.lend;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let slot = match (j, by_ref) {
                (0, Some((Place::Slot(s), _))) => s,
                _ => match self.rest[j - off] {
                    Arg::Lend(s, _) => s,
                    _ => unreachable!("only variables lend"),
                },
            };
            let v = rt.slot(slot);
            if lendable(v) {
                set(&mut values[j], std::mem::take(v));
                loans.push(j, rt.base + slot);
                #[cfg(test)]
                LENT.with(|n| n.set(n.get() + 1));
            }
        }
        loans
    }
}

/// Whether a variable's value is lent rather than copied: a list or a map (a copy of
/// anything else is cheap), not a constant's (a copy is never read-only).
#[inline(always)]
pub(crate) fn lendable(v: &Dynamic) -> bool {
    (v.is_array() || v.is_map()) && !v.is_read_only()
}

/// Whether the arguments (`first`, when it is still where it lies, then `rest`) have the
/// types `params`.
#[inline]
fn same_types(params: &[Param], first: Option<&Dynamic>, rest: &[Dynamic]) -> bool {
    let (params, first_ok) = match first {
        Some(v) => match params.split_first() {
            Some((t, others)) => (others, t.admits(v)),
            None => return false,
        },
        None => (params, true),
    };
    first_ok && params.len() == rest.len() && params.iter().zip(rest).all(|(t, v)| t.admits(v))
}

/// Put `v` in a place that holds unit (which needs no dropping).
#[inline(always)]
fn set(slot: &mut Dynamic, v: Dynamic) {
    discard(std::mem::replace(slot, v));
}

/// `f` with references to `values` (without building a list of them for the few arguments
/// most calls have).
#[inline]
fn with_refs<T>(values: &mut [Dynamic], f: impl FnOnce(&mut [&mut Dynamic]) -> T) -> T {
    match values {
        [] => f(&mut []),
        [a] => f(&mut [a]),
        [a, b] => f(&mut [a, b]),
        [a, b, c] => f(&mut [a, b, c]),
        [a, b, c, d] => f(&mut [a, b, c, d]),
        _ => f(&mut values.iter_mut().collect::<rhai::FnArgsVec<_>>()),
    }
}
