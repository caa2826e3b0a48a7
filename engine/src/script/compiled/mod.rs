//! The compiled tier: each script compiled once into closures (variables in slots, calls
//! bound to their targets, literals built once), run instead of Rhai's interpreter with
//! the same values, errors, positions and limits.
//!
//! `--runtime rhai` (see [`set_runtime`]) runs everything on the interpreter, so the two
//! can always be compared. A function the compiler does not cover (see `lower.rs`), and
//! every function that calls one, runs on the interpreter; [`not_compiled`] lists them
//! with the reason, and `crown profile` prints it. A script compiled while `crown profile`
//! runs carries the profiler's hooks (each function's start and end, each statement's
//! line: see `Program::profiled`), so the profile measures this tier. While the limit
//! locator runs (it needs the interpreter's debugger hooks), scripts run on the
//! interpreter.

mod call;
mod chain;
mod fnptr;
#[doc(hidden)]
pub mod gen;
mod glue;
mod host;
mod iters;
mod lower;
pub(crate) mod memo;
mod moves;
mod natives;
mod ops;
mod rt;

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use rhai::{Dynamic, EvalAltResult, FnPtr, ImmutableString, NativeCallContext, Position, Shared, AST};

use self::host::HostTable;
pub use self::host::Registrar;
use self::lower::Lower;
use self::rt::{Code, Ctl, Loans, Rt, R};

/// Which runtime runs scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// The compiled tier (functions it does not cover run on the interpreter).
    Compiled,
    /// Rhai's interpreter for everything.
    Rhai,
}

impl Runtime {
    /// The runtime's name, as `--runtime` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Compiled => "compiled",
            Runtime::Rhai => "rhai",
        }
    }
}

impl std::str::FromStr for Runtime {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [Runtime::Compiled, Runtime::Rhai]
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown runtime `{s}` (compiled or rhai)"))
    }
}

static INTERPRET: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's choice, over the process's (see [`with_runtime`]).
    static ON_THIS_THREAD: Cell<Option<Runtime>> = const { Cell::new(None) };
}

/// Choose the runtime for every script this process runs from now on.
pub fn set_runtime(r: Runtime) {
    INTERPRET.store(r == Runtime::Rhai, Ordering::Relaxed);
}

/// Run `f` with scripts on this thread on runtime `r` (differential tests run both
/// runtimes side by side).
pub fn with_runtime<T>(r: Runtime, f: impl FnOnce() -> T) -> T {
    let saved = ON_THIS_THREAD.with(|c| c.replace(Some(r)));
    let out = f();
    ON_THIS_THREAD.with(|c| c.set(saved));
    out
}

pub fn runtime() -> Runtime {
    if let Some(r) = ON_THIS_THREAD.with(Cell::get) {
        return r;
    }
    if INTERPRET.load(Ordering::Relaxed) {
        Runtime::Rhai
    } else {
        Runtime::Compiled
    }
}

static HOST: OnceLock<HostTable> = OnceLock::new();

pub(crate) fn keep_host_table(t: HostTable) {
    let _ = HOST.set(t);
}

/// The host table the engine kept when it was made (made now if it was not yet). Making
/// the engine keeps it, so the engine is made outside `HOST`'s initialisation, which
/// would otherwise wait on itself.
pub(crate) fn host_table() -> &'static HostTable {
    if let Some(t) = HOST.get() {
        return t;
    }
    let _ = crate::script::plain_engine();
    HOST.get_or_init(HostTable::default)
}

/// One script function, compiled when first needed.
struct Func {
    name: ImmutableString,
    params: usize,
    def: Shared<rhai::ScriptFuncDef>,
    /// The compiled body, once compiled (`None` inside: left to the interpreter).
    body: OnceCell<Option<Code>>,
    /// The script functions it calls, and why it was not compiled (if so).
    calls: OnceCell<(Vec<usize>, Option<String>, bool)>,
    /// Whether it and every function it reaches are compiled.
    runnable: Cell<Option<bool>>,
    /// How remembering its calls has fared (see `memo.rs`).
    memo: Cell<memo::Record>,
    /// The parameters it only reads, which callers lend it (see `moves::lendable`).
    lends: OnceCell<u64>,
    /// The reads that are last uses of their variable (`moves::last_uses`), worked out
    /// once for its callers' loans and its own compile.
    last: OnceCell<HashSet<moves::At>>,
}

impl Func {
    fn empty(&self) -> bool {
        self.calls.get().is_some_and(|c| c.2)
    }
}

/// A script's functions by name, then number of parameters (an index into the program's
/// list): found from a `&str`, without making a key.
/// (Hashed with aHash, not the standard library's SipHash: a host function calling a
/// script function by name finds it here at every call.)
#[derive(Default)]
pub(crate) struct FnIndex(HashMap<String, Vec<(usize, usize)>, ahash::RandomState>);

impl FnIndex {
    /// Every function of the script.
    pub(crate) fn all(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.values().flatten().map(|(_, i)| *i)
    }

    /// Whether the script has a function named `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The function `name` with `n` parameters.
    pub(crate) fn find(&self, name: &str, n: usize) -> Option<usize> {
        self.0.get(name)?.iter().find(|(arity, _)| *arity == n).map(|(_, i)| *i)
    }
}

/// A script for the compiled tier: its functions, compiled as they are first called.
pub(crate) struct Program {
    fns: Vec<Func>,
    index: FnIndex,
    source: ImmutableString,
    /// The script's name as its calls' state holds it (made once: a host function calling
    /// a script function makes that state at every call).
    global_source: Option<ImmutableString>,
    lib: Shared<rhai::Module>,
    /// Compiled while a profile was being taken: its functions and statements report to
    /// the profiler (such programs are forgotten when the profile ends).
    profiled: bool,
    /// This program among all compiled in the process (names it in remembered calls).
    serial: u64,
}

/// The statements of a function body. Rhai does not name the type of a body outside the
/// crate, but `AST::walk` visits bodies: walked alone (an AST holding only that function),
/// a function's top-level statements are the walk's top-level nodes. (The AST is made of
/// the one function (see [`alone`]), not
/// filtered from a copy of the whole script's: a copy of every function for each function
/// compiled made a script of many functions slow to compile.)
fn body_of(one: &AST) -> Vec<rhai::Stmt> {
    let mut top: Vec<rhai::Stmt> = Vec::new();
    one.walk(&mut |path: &[rhai::ASTNode]| {
        if let [rhai::ASTNode::Stmt(s)] = path {
            top.push((*s).clone());
        }
        true
    });
    top
}

/// An AST holding only the function `f`.
fn alone(f: &Shared<rhai::ScriptFuncDef>) -> AST {
    let mut lib = rhai::Module::new();
    lib.set_script_fn(f.clone());
    AST::new_from_module(lib)
}

/// What calls in a script can do to the values handed to them: its functions
/// (`FnIndex`) and the host's ([`HostTable`]).
struct ScriptCalls<'a>(&'a FnIndex);

impl moves::Calls for ScriptCalls<'_> {
    fn is_script(&self, name: &str, n: usize) -> bool {
        self.0.find(name, n).is_some()
    }
    fn leaves_value(&self, name: &str, n: usize) -> bool {
        !self.0.has(name) && host_table().leaves_value(name, n)
    }
}

impl Program {
    fn new(ast: &AST) -> Program {
        let fns: Vec<Func> = ast
            .iter_fn_def()
            .map(|f| Func {
                name: f.name.clone(),
                params: f.params.len(),
                def: f.clone(),
                body: OnceCell::new(),
                calls: OnceCell::new(),
                runnable: Cell::new(None),
                memo: Cell::new(memo::Record::default()),
                lends: OnceCell::new(),
                last: OnceCell::new(),
            })
            .collect();
        let mut index = FnIndex::default();
        for (i, f) in fns.iter().enumerate() {
            index.0.entry(f.name.to_string()).or_default().push((f.params, i));
        }
        Program {
            fns,
            index,
            source: ast.source().unwrap_or("").into(),
            global_source: ast.source().map(Into::into),
            lib: ast.shared_lib().clone(),
            profiled: crate::script::profile::active(),
            serial: {
                static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                SERIAL.fetch_add(1, Ordering::Relaxed)
            },
        }
    }

    /// The parameters of function `i` its callers lend it (bit `k` for the `k`-th).
    fn lends(&self, i: usize) -> u64 {
        let f = &self.fns[i];
        *f.lends.get_or_init(|| {
            let params: Vec<&str> = f.def.params.iter().map(|p| p.as_str()).collect();
            let (one, calls) = (alone(&f.def), ScriptCalls(&self.index));
            moves::lendable(&one, &params, &calls) & !moves::moved_params(&one, self.last_uses(i), &params, &calls)
        })
    }

    /// The reads of function `i` that are last uses of their variable.
    fn last_uses(&self, i: usize) -> &HashSet<moves::At> {
        let f = &self.fns[i];
        f.last.get_or_init(|| moves::last_uses(&alone(&f.def)))
    }

    /// Compile function `i` (not what it calls).
    fn lower(&self, i: usize) {
        let f = &self.fns[i];
        if f.calls.get().is_some() {
            return;
        }
        let mut l = Lower {
            names: f.def.params.to_vec(),
            index: &self.index,
            lends: &|j| self.lends(j),
            calls: Vec::new(),
            why: None,
            moves: self.last_uses(i),
            profiled: self.profiled,
        };
        let (body, empty) = if f.def.this_type.is_some() {
            l.why = Some("a method of a type (`this`)".into());
            (None, false)
        } else {
            let b = body_of(&alone(&f.def));
            (l.block(&b, false), b.is_empty())
        };
        let why = body.is_none().then(|| l.why.take().unwrap_or_else(|| "a construct not compiled".into()));
        let _ = f.body.set(body);
        let _ = f.calls.set((l.calls, why, empty));
    }

    /// Whether function `i` runs compiled: it and every function it reaches compiled.
    fn runnable(&self, i: usize) -> bool {
        if let Some(r) = self.fns[i].runnable.get() {
            return r;
        }
        let mut seen = vec![false; self.fns.len()];
        let mut stack = vec![i];
        let mut ok = true;
        while let Some(j) = stack.pop() {
            if std::mem::replace(&mut seen[j], true) {
                continue;
            }
            self.lower(j);
            let (calls, why, _) = self.fns[j].calls.get().expect("lowered");
            if why.is_some() {
                ok = false;
                break;
            }
            stack.extend(calls.iter().copied().filter(|&k| !seen[k]));
        }
        self.fns[i].runnable.set(Some(ok));
        ok
    }

    /// Why function `i` runs on the interpreter (`None`: it runs compiled).
    fn why(&self, i: usize) -> Option<String> {
        if self.runnable(i) {
            return None;
        }
        self.lower(i);
        let (calls, why, _) = self.fns[i].calls.get().expect("lowered");
        if let Some(w) = why {
            return Some(w.clone());
        }
        let j = calls.iter().copied().find(|&j| !self.runnable(j)).unwrap_or(i);
        Some(format!("calls `{}`, which runs on the interpreter", self.fns[j].name))
    }
}

thread_local! {
    /// Scripts compiled on this thread, by the address of their function library (held,
    /// so that the address identifies the script for as long as the entry lives).
    static PROGRAMS: RefCell<HashMap<usize, Rc<Program>, ahash::RandomState>> = RefCell::new(HashMap::default());
}

/// The script with function library `lib`, if this thread has compiled it, with the
/// profiler's hooks when a profile is being taken and without them otherwise (when a
/// profile begins or ends, each script is compiled again the next time it runs).
fn compiled_program(lib: &Shared<rhai::Module>) -> Option<Rc<Program>> {
    let profiled = crate::script::profile::active();
    PROGRAMS.with(|p| p.borrow().get(&(Shared::as_ptr(lib) as usize)).filter(|x| x.profiled == profiled).cloned())
}

fn program(ast: &AST) -> Rc<Program> {
    if let Some(x) = compiled_program(ast.shared_lib()) {
        return x;
    }
    PROGRAMS.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= 64 {
            // Scripts no longer loaded anywhere (only this cache holds them).
            p.retain(|_, x| Shared::strong_count(&x.lib) > 1);
        }
        let x = Rc::new(Program::new(ast));
        p.insert(Shared::as_ptr(ast.shared_lib()) as usize, x.clone());
        x
    })
}

/// A function the compiled tier leaves to the interpreter ([`not_compiled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreted {
    /// Its name; a closure is named by its line (`closure at line 12`): its internal name
    /// (`anon$` and a hash) means nothing to a reader.
    pub name: String,
    /// A closure's line in its script (a named function's is found by its name).
    pub closure_line: Option<usize>,
    /// Why it runs on the interpreter.
    pub why: String,
}

/// The functions of `ast` the compiled tier leaves to the interpreter, with the reason.
pub fn not_compiled(ast: &AST) -> Vec<Interpreted> {
    let p = program(ast);
    (0..p.fns.len())
        .filter_map(|i| {
            let f = &p.fns[i];
            let closure_line = f.name.starts_with("anon$").then(|| f.def.body.start_position().line().unwrap_or(0));
            let name = match closure_line {
                Some(line) => format!("closure at line {line}"),
                None => f.name.to_string(),
            };
            p.why(i).map(|why| Interpreted { name, closure_line, why })
        })
        .collect()
}

/// Call `name` of `ast` on the compiled tier, if the tier runs it (else the arguments
/// come back, to run it on the interpreter), with one more argument when `last` is some,
/// lent where the function only reads that parameter (a bot's plan, handed to the score
/// of every option): a list or map moves in and is back in `last` when the call ends.
/// Otherwise (and for the interpreter) a copy goes.
pub(crate) fn call_lending(
    ast: &AST,
    name: &str,
    mut args: Vec<Dynamic>,
    last: Option<&mut Dynamic>,
) -> Result<R<Dynamic>, Vec<Dynamic>> {
    let found = (runtime() == Runtime::Compiled)
        .then(|| program(ast))
        .and_then(|prog| Some((prog.index.find(name, args.len() + usize::from(last.is_some()))?, prog)))
        .filter(|(i, prog)| prog.runnable(*i));
    let Some((i, prog)) = found else {
        args.extend(last.map(|v| v.clone()));
        return Err(args);
    };
    let engine = crate::script::plain_engine();
    let mut global = engine.new_global_runtime_state();
    global.source.clone_from(&prog.global_source);
    global.lib.push(ast.shared_lib().clone());
    let lent = prog.lends(i) >> args.len() & 1 == 1;
    let mut rt = Rt::new(prog, global, 0);
    // A value lent comes back below the frame, where a caller's variable would lie.
    let mut loans = Loans::NONE;
    let last = match last {
        Some(v) if lent && call::lendable(v) => {
            rt.push_local(Dynamic::UNIT);
            loans.push(args.len(), 0);
            #[cfg(test)]
            call::LENT.with(|n| n.set(n.get() + 1));
            args.push(std::mem::take(v));
            Some(v)
        }
        other => {
            args.extend(other.map(|v| v.clone()));
            None
        }
    };
    let r = if loans.is_empty() {
        run_fn::<false>(&mut rt, i, args, Position::NONE, &loans)
    } else {
        run_fn::<true>(&mut rt, i, args, Position::NONE, &loans)
    };
    if let Some(v) = last {
        *v = std::mem::take(rt.slot(0));
    }
    crate::script::api::report_call_ops(rt.heard());
    // As `Engine::call_fn`: `exit` gives the call's value, and the entry function's own
    // wrapper comes off its error.
    Ok(r.or_else(|e| match *e {
        EvalAltResult::Exit(v, ..) => Ok(v),
        EvalAltResult::ErrorInFunctionCall(f, _, inner, _) if f == name => Err(inner),
        _ => Err(e),
    }))
}

/// Call a script's function pointer that a host function was handed (a menu's label, a
/// placement rule), with `args` after its curried values: on the compiled tier when it
/// runs the function, else on the interpreter (`FnPtr::call_raw`). A host function that
/// calls the same pointer many times (a sort's comparison) makes one [`Callback`] instead.
pub(crate) fn call_fn_ptr(ctx: &NativeCallContext, f: &FnPtr, args: impl IntoIterator<Item = Dynamic>) -> R<Dynamic> {
    let args: rhai::FnArgsVec<Dynamic> = args.into_iter().collect();
    Callback::new(ctx, f, args.len()).call(args)
}

/// A script's function pointer a host function calls, maybe many times with the same
/// number of arguments (a sort's comparison, a filter's test): found once, and on the
/// compiled tier one machine kept for all its calls.
///
/// A closure written in a script is linked to its script's function, and Rhai calls it the
/// way `call_script_fn` calls a linked function from a native context: on a copy of the
/// caller's state a level up, counting one operation at the host call's position, then the
/// call-depth check, an empty body giving `()`, and any other error wrapped in the
/// function's name. Operations counted meanwhile are the copy's: the caller's count goes
/// on from where it was, and the meter keeps what it last heard (reported here as the
/// interpreter's progress callback would have left it). Every call starts again from that
/// copy: the machine is only reused, its state set back as a new machine's would be.
pub(crate) struct Callback<'c, 'n> {
    ctx: &'c NativeCallContext<'n>,
    f: &'c FnPtr,
    /// On the compiled tier: the machine, the function it runs, and the count and call
    /// level the caller's copy starts each call from.
    machine: Option<(Rt, usize, u64, usize)>,
}

impl<'c, 'n> Callback<'c, 'n> {
    /// `f`, to be called with `n` arguments after its curried values.
    pub(crate) fn new(ctx: &'c NativeCallContext<'n>, f: &'c FnPtr, n: usize) -> Self {
        let machine = linked_compiled(ctx, f, f.curry().len() + n).map(|(prog, i)| {
            let mut copy = ctx.global_runtime_state().clone();
            copy.level += 1;
            let (ops, level) = (copy.num_operations, copy.level);
            // (A compiled closure is no script started apart: see `memo::called_back`.)
            let machines = memo::machines();
            let rt = Rt::new(prog, copy, ops);
            memo::set_machines(machines);
            (rt, i, ops, level)
        });
        Callback { ctx, f, machine }
    }

    /// `f`, called on the interpreter (Rhai's own conventions find how it takes its
    /// arguments).
    pub(crate) fn interpreted(ctx: &'c NativeCallContext<'n>, f: &'c FnPtr) -> Self {
        Callback { ctx, f, machine: None }
    }

    /// The pointer and the context it is called from (to call it another way).
    pub(crate) fn parts(&self) -> (&'c NativeCallContext<'n>, &'c FnPtr) {
        (self.ctx, self.f)
    }

    /// Call it with `args` (as many as it was made for).
    pub(crate) fn call(&mut self, args: impl IntoIterator<Item = Dynamic>) -> R<Dynamic> {
        let Some((rt, i, ops, level)) = &mut self.machine else {
            memo::machine_started();
            let mut args: rhai::FnArgsVec<Dynamic> = args.into_iter().collect();
            return self.f.call_raw(self.ctx, None, args.as_mut_slice());
        };
        rt.restart(*ops, *level);
        let values = self.f.curry().iter().cloned().chain(args);
        let pos = self.ctx.call_position();
        let r = if rt.prog.fns[*i].empty() {
            enter(rt, pos).map(|()| Dynamic::UNIT)
        } else {
            run_fn::<false>(rt, *i, values, pos, &Loans::NONE)
        };
        memo::called_back(rt.ops);
        crate::script::api::report_call_ops(rt.heard());
        r
    }
}

/// The compiled program and function a closure `f` called with `n` arguments runs as, when
/// the compiled tier runs it: a closure (linked to its script's function, found in the
/// calling script's library) of a script this thread has compiled, every function it
/// reaches compiled.
fn linked_compiled(ctx: &NativeCallContext, f: &FnPtr, n: usize) -> Option<(Rc<Program>, usize)> {
    if runtime() == Runtime::Rhai || !f.is_anonymous() {
        return None;
    }
    let lib = ctx.global_runtime_state().lib.first()?;
    let prog = compiled_program(lib)?;
    let i = prog.index.find(f.fn_name(), n)?;
    prog.runnable(i).then_some((prog, i))
}

/// A script function called from compiled code (`exec_fn_call` and `call_script_fn`).
/// A call that changes nothing may be answered from memory (see `memo.rs`).
pub(crate) fn call_script(rt: &mut Rt, i: usize, args: impl IntoIterator<Item = Dynamic>, pos: Position) -> R<Dynamic> {
    if rt.prog.fns[i].empty() {
        return Ok(Dynamic::UNIT);
    }
    if rt.prog.fns[i].memo.get().off() {
        return call_script_now::<false>(rt, i, args, pos, &Loans::NONE);
    }
    let args: rhai::FnArgsVec<Dynamic> = args.into_iter().collect();
    match memo::key(&rt.prog, i, &args) {
        Some(key) => memo::call(rt, key, pos, |rt| call_script_now::<false>(rt, i, args, pos, &Loans::NONE)),
        None => call_script_now::<false>(rt, i, args, pos, &Loans::NONE),
    }
}

/// [`call_script`] with the caller's variables `loans` lent to it (see [`rt::Loans`]),
/// given back when it ends. (Such a call holds a list or map, which no remembered call
/// does.)
pub(crate) fn call_script_lent(
    rt: &mut Rt,
    i: usize,
    args: impl IntoIterator<Item = Dynamic>,
    pos: Position,
    loans: &Loans,
) -> R<Dynamic> {
    if rt.prog.fns[i].empty() {
        rt.give_back_unused(args, loans);
        return Ok(Dynamic::UNIT);
    }
    call_script_now::<true>(rt, i, args, pos, loans)
}

fn call_script_now<const LENT: bool>(
    rt: &mut Rt,
    i: usize,
    args: impl IntoIterator<Item = Dynamic>,
    pos: Position,
    loans: &Loans,
) -> R<Dynamic> {
    rt.level += 1;
    let saved = rt.this.take();
    let r = run_fn::<LENT>(rt, i, args, pos, loans);
    rt.this = saved;
    rt.level -= 1;
    r
}

/// A script function called as a method: `target` is its `this`, changed in place; a
/// constant stays as it is, and the function sees it read-only (changing it is an error,
/// as where the interpreter's `this` points at the constant itself).
pub(crate) fn call_script_this(
    rt: &mut Rt,
    i: usize,
    args: rhai::FnArgsVec<Dynamic>,
    pos: Position,
    target: &mut Dynamic,
) -> R<Dynamic> {
    if rt.prog.fns[i].empty() {
        return Ok(Dynamic::UNIT);
    }
    rt.level += 1;
    let (this, write_back) =
        if target.is_read_only() { (target.clone().into_read_only(), false) } else { (std::mem::take(target), true) };
    let saved = rt.this.replace(this);
    let r = run_fn::<false>(rt, i, args, pos, &Loans::NONE);
    let this = std::mem::replace(&mut rt.this, saved);
    if let (true, Some(v)) = (write_back, this) {
        *target = v;
    }
    rt.level -= 1;
    r
}

/// Entering a script function at `pos` (the interpreter's `call_script_fn`): one
/// operation, then the call-depth check.
fn enter(rt: &mut Rt, pos: Position) -> R<()> {
    rt.count(pos)?;
    memo::entered(rt.level);
    if rt.level > crate::script::LIMITS.call_levels {
        return Err(EvalAltResult::ErrorStackOverflow(pos).into());
    }
    Ok(())
}

/// `LENT`: the caller lends the call its variables `loans`, given back when it ends
/// however it ends (without, `loans` is not looked at).
fn run_fn<const LENT: bool>(
    rt: &mut Rt,
    i: usize,
    args: impl IntoIterator<Item = Dynamic>,
    pos: Position,
    loans: &Loans,
) -> R<Dynamic> {
    let prog = rt.prog.clone();
    let f = &prog.fns[i];
    if let Err(e) = enter(rt, pos) {
        if LENT {
            rt.give_back_unused(args, loans);
        }
        return Err(e);
    }
    let body = f.body.get().and_then(Option::as_ref).expect("a compiled function");
    let saved = rt.enter_frame(args);
    #[cfg(debug_assertions)]
    let saved_lent = std::mem::replace(&mut rt.lent, if LENT { loans.params() } else { 0 });
    debug_assert_eq!(rt.scope_len(), f.params);
    let r = if prog.profiled {
        crate::script::profile::frame_enter(&prog.source, &f.name);
        let r = body(rt);
        crate::script::profile::frame_leave();
        r
    } else {
        body(rt)
    };
    if LENT {
        rt.give_back(loans);
    }
    #[cfg(debug_assertions)]
    {
        rt.lent = saved_lent;
    }
    rt.pop_to(rt.base);
    rt.base = saved;
    match r.or_else(Ctl::returned) {
        Ok(v) => Ok(v),
        Err(mut e) => {
            if matches!(*e, EvalAltResult::Exit(..)) || e.is_system_exception() {
                e.set_position(pos);
                Err(e)
            } else {
                Err(EvalAltResult::ErrorInFunctionCall(f.name.to_string(), prog.source.to_string(), e, pos).into())
            }
        }
    }
}

/// The hash Rhai files a `switch` case under (its `calc_switch_value_hash`).
pub(crate) fn switch_hash(v: &Dynamic) -> u64 {
    let mut h = match rhai::config::hashing::get_hashing_seed() {
        Some([a, b, c, d]) if (a | b | c | d) != 0 => ahash::RandomState::with_seeds(*a, *b, *c, *d).build_hasher(),
        _ => ahash::AHasher::default(),
    };
    v.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests;
