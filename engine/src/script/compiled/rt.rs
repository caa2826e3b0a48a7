//! The compiled tier's machine: the locals of the running functions, the operation count,
//! the call level, and what every compiled node shares (errors, data-size checks, calls).
//!
//! Everything here restates a rule of Rhai's interpreter (`rhai-1.27.0/src/eval`,
//! `src/func`) so that compiled code and the interpreter give the same values and the
//! same errors; the differential tests in `tests/` hold the two together.

use std::rc::Rc;

use rhai::{Dynamic, Engine, EvalAltResult, GlobalRuntimeState, NativeCallContext, Position};

use super::Program;

pub(crate) type R<T> = Result<T, Box<EvalAltResult>>;

/// How a compiled node ends, besides with a value: an error, or leaving a loop or a
/// function early. The interpreter carries the two ways of leaving early as errors (its
/// `LoopBreak` and `Return` pseudo-errors), and so does this: a single pointer, which
/// makes a node's result ([`X`]) two words where it was three, less to write and read at
/// every node (a `return` or a `break` pays for a box, as in the interpreter).
pub(crate) struct Ctl(Box<EvalAltResult>);

impl Ctl {
    #[cold]
    pub fn brk(v: Dynamic) -> Ctl {
        Ctl(EvalAltResult::LoopBreak(true, v, Position::NONE).into())
    }

    #[cold]
    pub fn cont() -> Ctl {
        Ctl(EvalAltResult::LoopBreak(false, Dynamic::UNIT, Position::NONE).into())
    }

    #[cold]
    pub fn ret(v: Dynamic) -> Ctl {
        Ctl(EvalAltResult::Return(v, Position::NONE).into())
    }

    /// An error.
    #[cold]
    pub fn err(e: Box<EvalAltResult>) -> Ctl {
        Ctl(e)
    }

    /// What a loop makes of its body ending with this: `Ok(None)` to go on (`continue`),
    /// `Ok(Some(v))` to stop with `v` (`break`), else this, passed on. (As in the
    /// interpreter, a native function failing with a pseudo-error does the same.)
    pub fn in_loop(self) -> Result<Option<Dynamic>, Ctl> {
        match &*self.0 {
            EvalAltResult::LoopBreak(false, ..) => Ok(None),
            EvalAltResult::LoopBreak(true, ..) => match *self.0 {
                EvalAltResult::LoopBreak(_, v, _) => Ok(Some(v)),
                _ => unreachable!("a break"),
            },
            _ => Err(self),
        }
    }

    /// What a function makes of its body ending with this: the value of a `return`, or
    /// the error.
    pub fn returned(self) -> R<Dynamic> {
        match &*self.0 {
            EvalAltResult::Return(..) => match *self.0 {
                EvalAltResult::Return(v, _) => Ok(v),
                _ => unreachable!("a return"),
            },
            _ => Err(self.0),
        }
    }

    /// The error, for a node that can only fail (counting an operation, reading a place).
    pub fn into_err(self) -> Box<EvalAltResult> {
        self.0
    }
}

impl From<Box<EvalAltResult>> for Ctl {
    #[inline]
    fn from(e: Box<EvalAltResult>) -> Self {
        Ctl(e)
    }
}

pub(crate) type X = Result<Dynamic, Ctl>;

// Two words: see [`Ctl`].
const _: () = assert!(std::mem::size_of::<X>() == 16);

/// A compiled node.
pub(crate) type Code = Box<dyn Fn(&mut Rt) -> X>;

/// The machine one entry call runs on.
pub(crate) struct Rt {
    /// The locals of every running function; the running one's start at `base`. Private:
    /// a local is reached through [`Rt::slot`] and friends, which keep [`KnownSizes`]
    /// true, and added with [`Rt::push_local`] or [`Rt::enter_frame`].
    stack: Vec<Dynamic>,
    pub base: usize,
    /// Operations so far in this entry call (the interpreter's `num_operations`).
    pub ops: u64,
    /// Call level (the interpreter's `global.level`).
    pub level: usize,
    pub prog: Rc<Program>,
    /// The count at which [`Rt::track`] next looks further than adding one: the next
    /// multiple of the meter's period, or the first count past the limit.
    check_at: u64,
    /// What the meter last heard, when a native call told it something after the last
    /// operation counted here (a nested script call, or the engine counting on a copy of
    /// the state): the interpreter leaves that in the meter, so the call reports it.
    /// Kept with the count it was heard at (`side_at`), and only good while the count is
    /// still that (see [`Rt::side`]): counting an operation need not clear it.
    side_at: u64,
    side_val: u64,
    /// `this` of the running function (a script function called as a method).
    pub this: Option<Dynamic>,
    /// The state native functions with a context see (source, the script's functions,
    /// operations and level brought up to date before each such call).
    pub global: GlobalRuntimeState,
    pub engine: &'static Engine,
    /// The buffer interpolated strings are written in (kept for the next one).
    pub text: String,
    /// The sizes of the list a variable holds, as the last `push` onto it found them (see
    /// [`Rt::arm_push`]).
    known: Option<KnownSizes>,
    /// A `push` onto a variable under way: where the variable lies, and its list's sizes
    /// before it, when known.
    pub(crate) push: Option<(usize, Option<Sizes>)>,
    /// What that `push` found, kept once the variable has its list back.
    pub(crate) pushed: Option<KnownSizes>,
    /// A `for` loop's head under way that may end in an iterator Rhai keeps to itself
    /// (see `iters.rs`).
    pub(crate) head: Option<super::iters::Head>,
    /// The parameters of the running function that its caller lent it (bit `k` for the
    /// `k`-th, see [`Loans`]), kept where debug assertions check that none is moved.
    #[cfg(debug_assertions)]
    pub(crate) lent: u64,
}

/// Arrays, map entries and bytes of text inside a value (Rhai's `calc_data_sizes`).
pub(crate) type Sizes = (usize, usize, usize);

/// The sizes of the list in stack slot `at`, when it was `len` items long at `items`.
///
/// After each `push` the interpreter walks the whole list for its sizes, so building a
/// list of n options walks n²/2 of them. Where the list stays in one variable and only
/// `push` changes it, the sizes are known from the last walk plus the item added. Every
/// other way to change the variable goes through [`Rt::slot`] (reading it, writing it,
/// handing it to a call, moving it out) or drops it ([`Rt::pop_to`]), each of which
/// forgets the sizes.
pub(crate) struct KnownSizes {
    pub at: usize,
    pub items: *const Dynamic,
    pub len: usize,
    pub sizes: Sizes,
}

impl Rt {
    /// A machine for an entry call on `global` (its level the call's), counting on from
    /// `ops` operations.
    pub fn new(prog: Rc<Program>, global: GlobalRuntimeState, ops: u64) -> Rt {
        super::memo::machine_started();
        Rt {
            stack: SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_else(|| Vec::with_capacity(64)),
            base: 0,
            ops,
            check_at: next_check(ops),
            level: global.level,
            prog,
            side_at: NO_SIDE,
            side_val: 0,
            this: None,
            global,
            engine: crate::script::plain_engine(),
            text: String::new(),
            known: None,
            push: None,
            pushed: None,
            head: None,
            #[cfg(debug_assertions)]
            lent: 0,
        }
    }

    /// Set a finished machine back as [`Rt::new`] starts one, counting from `ops` at call
    /// level `level`, on the same copy of the caller's state (a callback called again: see
    /// `Callback`).
    pub fn restart(&mut self, ops: u64, level: usize) {
        self.pop_to(0);
        self.base = 0;
        self.ops = ops;
        self.check_at = next_check(ops);
        self.level = level;
        self.global.level = level;
        self.global.num_operations = ops;
        self.side_at = NO_SIDE;
        self.side_val = 0;
        self.this = None;
    }

    /// Count one operation at `pos`, as the interpreter's `track_operation`.
    /// (The meter only looks at the clock and the game's count every few thousand
    /// operations: see `api::meter`; the call's count is reported when it ends.)
    #[inline]
    pub fn track(&mut self, pos: Position) -> Result<(), Ctl> {
        self.ops += 1;
        if self.ops >= self.check_at {
            return self.track_slow(pos);
        }
        Ok(())
    }

    /// Count `n` operations at once (a call answered from memory, see `memo.rs`), the
    /// meter looking at each multiple of its period passed, as it would have while they
    /// ran. Only for counts that stay within the limit and that the meter's looks at its
    /// clock and the game's count would let go on, which the caller checks with
    /// [`Rt::can_count`] (a call they would stop runs, and stops where it stops).
    pub fn count_many(&mut self, n: u64, pos: Position) -> Result<(), Ctl> {
        let every = crate::script::api::METER_EVERY;
        let to = self.ops + n;
        let mut at = (self.ops / every + 1) * every;
        while at <= to {
            self.ops = at;
            let machines = super::memo::machines();
            let stop = crate::script::api::progress(at);
            super::memo::set_machines(machines);
            if let Some(token) = stop {
                return Err(Ctl::err(EvalAltResult::ErrorTerminated(token, pos).into()));
            }
            at += every;
        }
        self.ops = to;
        self.check_at = next_check(to);
        Ok(())
    }

    /// Whether `n` operations can be counted at once (see [`Rt::count_many`]).
    pub fn can_count(&self, n: u64) -> bool {
        let to = self.ops + n;
        let clock = crate::script::api::CLOCK_EVERY;
        to <= crate::script::LIMITS.operations
            && (to / clock == self.ops / clock || crate::script::api::clock_looks_pass(to))
    }

    /// [`Rt::track`] where nothing but an error can come of it (a native call's
    /// operation, a function's entry).
    #[inline]
    pub fn count(&mut self, pos: Position) -> R<()> {
        self.track(pos).map_err(Ctl::into_err)
    }

    #[cold]
    fn track_slow(&mut self, pos: Position) -> Result<(), Ctl> {
        if self.ops > crate::script::LIMITS.operations {
            // The meter last heard of the operation before (Rhai stops before reporting).
            self.ops -= 1;
            self.clear_side();
            return Err(Ctl::err(EvalAltResult::ErrorTooManyOperations(pos).into()));
        }
        self.check_at = next_check(self.ops);
        // (A count changed without `track`, by a call counting on a copy, may have passed
        // a multiple of the period: the interpreter's meter did not look then either.)
        if !self.ops.is_multiple_of(crate::script::api::METER_EVERY) {
            return Ok(());
        }
        // (The meter's look is not a script run: a call remembered across it stays so.)
        let machines = super::memo::machines();
        let stop = crate::script::api::progress(self.ops);
        super::memo::set_machines(machines);
        if let Some(token) = stop {
            return Err(Ctl::err(EvalAltResult::ErrorTerminated(token, pos).into()));
        }
        Ok(())
    }

    /// The number of locals of the running function (the interpreter's `scope.len()`).
    #[inline]
    pub fn scope_len(&self) -> usize {
        self.stack.len() - self.base
    }

    /// Drop the locals above `len` (a block's or a function's, as it ends).
    #[inline]
    pub fn pop_to(&mut self, len: usize) {
        if self.known.as_ref().is_some_and(|k| k.at >= len) {
            self.known = None;
        }
        while self.stack.len() > len {
            discard(self.stack.pop().expect("a local"));
        }
    }

    /// A new local, after the others.
    #[inline]
    pub fn push_local(&mut self, v: Dynamic) {
        self.stack.push(v);
    }

    /// Start a function's locals with its arguments; returns the caller's `base`.
    #[inline]
    pub fn enter_frame(&mut self, args: impl IntoIterator<Item = Dynamic>) -> usize {
        let saved = self.base;
        self.base = self.stack.len();
        self.stack.extend(args);
        saved
    }

    #[inline]
    pub fn slot(&mut self, i: usize) -> &mut Dynamic {
        let at = self.base + i;
        if self.known.as_ref().is_some_and(|k| k.at == at) {
            self.known = None;
        }
        &mut self.stack[at]
    }

    /// Before a `push` onto the variable in slot `i`: what its list's sizes are, if the
    /// last `push` onto it left them known and it is still that list, as long.
    pub fn arm_push(&mut self, i: usize) {
        let at = self.base + i;
        let known = match (self.known.take(), list_at(&self.stack[at])) {
            (Some(k), Some((items, len))) if k.at == at && k.items == items && k.len == len => Some(k.sizes),
            _ => None,
        };
        self.push = Some((at, known));
        self.pushed = None;
    }

    /// After that `push`, the variable holding its list again: remember what it found
    /// (checked against the list at the next `push`, in [`Rt::arm_push`]).
    pub fn settle_push(&mut self) {
        self.push = None;
        if let Some(k) = self.pushed.take() {
            self.known = Some(k);
        }
    }

    /// Take the value a variable place holds (a local, or `this`), to hand it by
    /// reference to a call; [`Rt::put`] puts it back.
    #[inline]
    pub fn take(&mut self, place: Place) -> Result<Dynamic, Ctl> {
        match place {
            Place::Slot(i) => Ok(std::mem::take(self.slot(i))),
            Place::This(pos) => self.this.take().ok_or_else(|| Ctl::err(EvalAltResult::ErrorUnboundThis(pos).into())),
        }
    }

    #[inline]
    pub fn put(&mut self, place: Place, v: Dynamic) {
        match place {
            Place::Slot(i) => discard(std::mem::replace(self.slot(i), v)),
            Place::This(_) => self.this = Some(v),
        }
    }

    /// The value of a variable place, looked at where it is.
    #[inline(always)]
    pub fn peek(&self, place: Place) -> Result<&Dynamic, Ctl> {
        match place {
            Place::Slot(i) => Ok(&self.stack[self.base + i]),
            Place::This(pos) => self.this.as_ref().ok_or_else(|| Ctl::err(EvalAltResult::ErrorUnboundThis(pos).into())),
        }
    }

    /// The value of local `i` at its last use, moved out. A parameter moved anywhere is
    /// never lent (`moves::moved_params`), which debug builds check here.
    #[inline(always)]
    pub fn take_last(&mut self, i: usize) -> Dynamic {
        #[cfg(debug_assertions)]
        assert!(i >= 64 || self.lent >> i & 1 == 0, "parameter {i}, lent to the call, is moved at its last use");
        std::mem::take(self.slot(i))
    }

    /// A copy of the value of a variable place.
    #[inline(always)]
    pub fn read(&mut self, place: Place) -> Result<Dynamic, Ctl> {
        match place {
            Place::Slot(i) => Ok(copy(self.slot(i))),
            Place::This(pos) => self.this.clone().ok_or_else(|| Ctl::err(EvalAltResult::ErrorUnboundThis(pos).into())),
        }
    }

    /// Bring the shared state up to date and make the context a native function gets.
    pub fn sync_global(&mut self) {
        self.global.num_operations = self.ops;
        self.global.level = self.level;
    }

    pub fn context<'a>(&'a self, name: &'a str, pos: Position) -> NativeCallContext<'a> {
        NativeCallContext::from((self.engine, name, None, &self.global, pos))
    }
}

/// Variables of a caller lent to the script function it calls: its parameter `k` holds
/// the list or map of the caller's slot at `at` (an index into the whole stack, below the
/// callee's frame), which holds unit meanwhile, until the call ends and gives it back
/// ([`Rt::give_back`]). The function only reads such a parameter (`moves::lendable`),
/// and nothing else reads the caller's locals while it runs, so the values are those of a
/// copy, without making one.
pub(crate) struct Loans {
    len: usize,
    loans: [(usize, usize); Loans::MAX],
}

impl Loans {
    /// The most variables one call lends (the others are copied).
    pub const MAX: usize = 8;

    /// No loan (most calls), and where a call's loans start.
    pub const NONE: Loans = Loans { len: 0, loans: [(0, 0); Loans::MAX] };

    pub fn push(&mut self, param: usize, at: usize) {
        self.loans[self.len] = (param, at);
        self.len += 1;
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The parameters lent (bit `k` for the `k`-th).
    #[cfg(debug_assertions)]
    pub fn params(&self) -> u64 {
        self.loans[..self.len].iter().fold(0, |m, &(k, _)| m | 1 << k)
    }
}

impl Rt {
    /// At the end of a call (its frame still on the stack), give each value lent to it
    /// back to the caller's variable.
    #[inline(always)]
    pub fn give_back(&mut self, loans: &Loans) {
        for &(param, at) in &loans.loans[..loans.len] {
            let here = self.base + param;
            if self.known.as_ref().is_some_and(|k| k.at == here || k.at == at) {
                self.known = None;
            }
            self.stack.swap(here, at);
        }
    }

    /// Give the values lent to a call back from its arguments, `args`, when it ends before
    /// they were its frame (the others are dropped).
    #[cold]
    pub fn give_back_unused(&mut self, args: impl IntoIterator<Item = Dynamic>, loans: &Loans) {
        for (k, v) in args.into_iter().enumerate() {
            match loans.loans[..loans.len].iter().find(|l| l.0 == k) {
                Some(&(_, at)) => {
                    if self.known.as_ref().is_some_and(|known| known.at == at) {
                        self.known = None;
                    }
                    discard(std::mem::replace(&mut self.stack[at], v));
                }
                None => discard(v),
            }
        }
    }
}

thread_local! {
    /// The stacks of machines that have finished, for the next ones (a host function
    /// calling a script makes a machine for each call).
    static SPARE: std::cell::RefCell<Vec<Vec<Dynamic>>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Rt {
    fn drop(&mut self) {
        self.pop_to(0);
        let stack = std::mem::take(&mut self.stack);
        // (A thread that is ending keeps nothing.)
        let _ = SPARE.try_with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < 16 && stack.capacity() <= 1024 {
                s.push(stack);
            }
        });
    }
}

/// What a native call leaves in the meter (see [`Rt::side`]).
const UNTOUCHED: u64 = u64::MAX;

/// `side_at` when the meter has heard nothing since the last operation counted here.
const NO_SIDE: u64 = u64::MAX;

/// The count after `ops` at which [`Rt::track`] looks further: the next multiple of the
/// meter's period, or the first count past the limit, whichever comes first.
fn next_check(ops: u64) -> u64 {
    let every = crate::script::api::METER_EVERY;
    (ops / every + 1).saturating_mul(every).min(crate::script::LIMITS.operations + 1)
}

impl Rt {
    /// Run a native call, noting what it reports to the meter.
    #[inline]
    pub fn watching<T>(&mut self, f: impl FnOnce(&mut Rt) -> T) -> T {
        let before = crate::script::api::swap_call_ops(UNTOUCHED);
        let out = f(self);
        let after = crate::script::api::swap_call_ops(before);
        if after != UNTOUCHED {
            self.note_side(after);
        }
        out
    }

    /// Note what the meter heard from a native call, after the last operation counted.
    #[inline]
    pub fn note_side(&mut self, heard: u64) {
        self.side_at = self.ops;
        self.side_val = heard;
    }

    /// Forget what the meter heard (an operation counted since, or taken back).
    #[inline]
    pub fn clear_side(&mut self) {
        self.side_at = NO_SIDE;
    }

    /// What the meter last heard from a native call, if nothing was counted here since.
    pub fn side(&self) -> Option<u64> {
        (self.side_at == self.ops).then_some(self.side_val)
    }

    /// What the call reports to the meter when it ends.
    pub fn heard(&self) -> u64 {
        self.side().unwrap_or(self.ops)
    }

    /// Count one operation made by a call on a copy of the state (the engine's own
    /// resolution), keeping what the meter heard from it.
    #[inline]
    pub fn count_kept(&mut self) {
        let kept = self.side();
        self.ops += 1;
        if let Some(v) = kept {
            self.note_side(v);
        }
    }
}

/// A variable's place: a local of the running function, or its `this`.
#[derive(Clone, Copy)]
pub(crate) enum Place {
    Slot(usize),
    This(Position),
}

/// `err` with `pos` unless it has one (Rhai's `fill_position`).
#[inline]
pub(crate) fn fill(mut err: Box<EvalAltResult>, pos: Position) -> Box<EvalAltResult> {
    if err.position().is_none() {
        err.set_position(pos);
    }
    err
}

pub(crate) fn mismatch(engine: &Engine, expected: &str, got: &str, pos: Position) -> Box<EvalAltResult> {
    EvalAltResult::ErrorMismatchDataType(engine.map_type_name(expected).into(), got.into(), pos).into()
}

pub(crate) fn bool_of(engine: &Engine, v: &Dynamic, pos: Position) -> Result<bool, Ctl> {
    v.as_bool().map_err(|t| Ctl::err(mismatch(engine, "bool", t, pos)))
}

// ---- reading scalars without asking a value for its type's name ----
//
// `Dynamic::as_int` and its kind name the value's type when it is not one (a string
// built for an error nobody reads): these look at the value's kind first.

/// The integer `v` holds, if it holds one.
#[inline(always)]
pub(crate) fn int(v: &Dynamic) -> Option<i64> {
    scalar(v, Dynamic::is_int, Dynamic::as_int)
}

/// The boolean `v` holds, if it holds one.
#[inline(always)]
pub(crate) fn boolean(v: &Dynamic) -> Option<bool> {
    scalar(v, Dynamic::is_bool, Dynamic::as_bool)
}

/// The character `v` holds, if it holds one.
#[inline(always)]
pub(crate) fn character(v: &Dynamic) -> Option<char> {
    scalar(v, Dynamic::is_char, Dynamic::as_char)
}

/// The scalar `v` holds when `is` says it holds one, read by `read`.
#[inline(always)]
fn scalar<T>(v: &Dynamic, is: fn(&Dynamic) -> bool, read: fn(&Dynamic) -> Result<T, &'static str>) -> Option<T> {
    if is(v) {
        read(v).ok()
    } else {
        None
    }
}

/// Drop a value a node is done with, without a call for the values that own nothing
/// (unit, integers, booleans, characters: most of what statements and operators leave).
#[inline(always)]
pub(crate) fn discard(v: Dynamic) {
    if owns_nothing(&v) {
        std::mem::forget(v);
    } else {
        drop(v);
    }
}

/// A copy of `v`, as `Dynamic::clone` makes it (the tag kept, never read-only), with the
/// integers and booleans most copies are of made here, without a call.
#[inline(always)]
pub(crate) fn copy(v: &Dynamic) -> Dynamic {
    let mut c = if let Some(n) = int(v) {
        Dynamic::from_int(n)
    } else if let Some(b) = boolean(v) {
        Dynamic::from_bool(b)
    } else {
        return v.clone();
    };
    c.set_tag(v.tag());
    c
}

/// Whether `v` is unit, a number, a boolean or a character: a value that owns nothing
/// (no drop to run, no size inside a container).
#[inline(always)]
fn owns_nothing(v: &Dynamic) -> bool {
    v.is_unit() || v.is_int() || v.is_bool() || v.is_char()
}

// ---- data sizes (Rhai's `calc_data_sizes` and `throw_on_size`) ----

pub(crate) fn data_sizes(v: &Dynamic) -> (usize, usize, usize) {
    // As an item inside a container, a blob also counts one for itself.
    if v.is_blob() {
        return (v.read_lock::<rhai::Blob>().map_or(0, |b| b.len()), 0, 0);
    }
    inner_sizes(v)
}

/// The sizes of a value held inside an array or a map. (The kind is asked first, a
/// cheap look at the value, then the one lock that kind needs: most items are numbers,
/// booleans or cards, which have no size.)
pub(crate) fn inner_sizes(v: &Dynamic) -> (usize, usize, usize) {
    if v.is_array() {
        return v.read_lock::<rhai::Array>().map_or((0, 0, 0), |a| array_sizes(&a));
    }
    if v.is_map() {
        return v.read_lock::<rhai::Map>().map_or((0, 0, 0), |m| map_sizes(&m));
    }
    if v.is_string() {
        return (0, 0, v.read_lock::<rhai::ImmutableString>().map_or(0, |s| s.len()));
    }
    if v.is_blob() {
        return (1 + v.read_lock::<rhai::Blob>().map_or(0, |b| b.len()), 0, 0);
    }
    (0, 0, 0)
}

fn array_sizes(a: &rhai::Array) -> (usize, usize, usize) {
    let (mut ax, mut mx, mut sx) = (0, 0, 0);
    for v in a {
        ax += 1;
        let (x, m, s) = item_sizes(v);
        ax += x;
        mx += m;
        sx += s;
    }
    (ax, mx, sx)
}

fn map_sizes(map: &rhai::Map) -> (usize, usize, usize) {
    let (mut ax, mut mx, mut sx) = (0, 0, 0);
    for v in map.values() {
        mx += 1;
        let (x, m, s) = item_sizes(v);
        ax += x;
        mx += m;
        sx += s;
    }
    (ax, mx, sx)
}

/// [`inner_sizes`] of an item, with the items most lists and maps hold (numbers,
/// booleans, texts) counted here, without a call.
#[inline(always)]
pub(crate) fn item_sizes(v: &Dynamic) -> (usize, usize, usize) {
    if owns_nothing(v) {
        (0, 0, 0)
    } else if v.is_string() {
        (0, 0, v.read_lock::<rhai::ImmutableString>().map_or(0, |s| s.len()))
    } else {
        inner_sizes(v)
    }
}

/// Rhai's `throw_on_size`, with the position filled in.
#[inline]
pub(crate) fn size_check((a, m, s): (usize, usize, usize), pos: Position) -> R<()> {
    let l = crate::script::LIMITS;
    if s <= l.string_size && a <= l.array_size && m <= l.map_size {
        return Ok(());
    }
    too_large((a, m, s), pos)
}

#[cold]
fn too_large((a, m, s): (usize, usize, usize), pos: Position) -> R<()> {
    let l = crate::script::LIMITS;
    let what = if s > l.string_size {
        "Length of string"
    } else if a > l.array_size {
        "Size of array/BLOB"
    } else if m > l.map_size {
        "Size of object map"
    } else {
        return Ok(());
    };
    Err(EvalAltResult::ErrorDataTooLarge(what.to_string(), pos).into())
}

/// Where a list keeps its items, and how many: what a remembered size is checked
/// against. (Values are never shared: the engine is built without closures' captured
/// variables, so a list in a variable is that variable's alone.)
pub(crate) fn list_at(v: &Dynamic) -> Option<(*const Dynamic, usize)> {
    v.as_array_ref().ok().map(|a| (a.as_ptr(), a.len()))
}

/// Rhai's `check_data_size`.
#[inline]
pub(crate) fn check_size(v: &Dynamic, pos: Position) -> R<()> {
    if v.is_array() || v.is_map() || v.is_string() || v.is_blob() {
        size_check(data_sizes(v), pos)
    } else {
        Ok(())
    }
}

/// Rhai's `calc_index`.
pub(crate) fn calc_index(length: usize, index: i64, negative_from_end: bool) -> Option<usize> {
    if length == 0 {
        return None;
    }
    if index < 0 {
        if negative_from_end {
            let abs = usize::try_from(index.unsigned_abs()).ok()?;
            if abs <= length {
                return Some(length - abs);
            }
        }
        return None;
    }
    let i = usize::try_from(index).ok()?;
    (i < length).then_some(i)
}
