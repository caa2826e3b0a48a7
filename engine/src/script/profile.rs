//! The script profiler behind `crown profile`: where a pack's scripts spend their time.
//!
//! It measures the code `crown sim` runs. Scripts compiled while a profile is being taken
//! carry hooks (see `compiled::Program::profiled`): each compiled function says when it
//! begins and ends, each statement which line it is on. Functions the compiled tier leaves
//! to Rhai's interpreter run, on this thread, on a second engine that is the shared one
//! plus Rhai's debugger interface (a callback before every statement and expression).
//! Either way the time since the previous event is charged to the function and line that
//! were running (self time) and to every function on the call stack (inclusive time, each
//! counted once however deep it recurses). The hooks' own time is left out; their
//! bookkeeping is not, so shares and step counts are what compare. Crown's functions (and
//! the agents behind `choose`) and Rhai's own appear in the time of the script line that
//! called them; closures are named by their line.
//!
//! Calls into other scripts (`invoke`, `fold`, hooks) each run on a fresh Rhai call stack;
//! [`enter`] and [`leave`] join them into one logical stack.
//!
//! Function names are resolved to the script that defines them: card scripts carry the
//! rules script's functions merged in, and a rules function called from a card is the
//! rules script's.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;
use std::time::Instant;

use rhai::debugger::{DebuggerCommand, DebuggerEvent};
use rhai::{Engine, EvalContext, ImmutableString, Position};

use crate::content::Pack;

/// What [`FnRow::script`] says of a function no script defines (Crown's API, Rhai's own).
pub const BUILT_IN: &str = "(built-in)";

/// What [`FnRow::name`] says of a closure (`|a, b| ...`): it is named by its line.
pub const CLOSURE: &str = "(closure)";

/// The closures a script's tree holds: internal name, and the line the closure begins on.
fn closures(ast: &rhai::AST) -> Vec<(String, usize)> {
    ast.iter_fn_def()
        .filter(|f| f.name.starts_with("anon$"))
        .map(|f| (f.name.to_string(), f.body.start_position().line().unwrap_or(0)))
        .collect()
}

/// One script function's figures.
#[derive(Debug, Clone)]
pub struct FnRow {
    /// The script defining it, as shown in the project, or [`BUILT_IN`].
    pub script: String,
    pub name: String,
    /// Line of its `fn` (0 when not found).
    pub line: usize,
    pub self_ns: u64,
    pub incl_ns: u64,
    pub calls: u64,
    /// Statements and expressions evaluated in it.
    pub steps: u64,
}

/// One script line's figures.
#[derive(Debug, Clone)]
pub struct LineRow {
    pub script: String,
    pub line: usize,
    /// The line's text, trimmed.
    pub text: String,
    pub self_ns: u64,
    pub steps: u64,
}

/// A finished profile, functions and lines sorted by self time (then by name, so equal
/// figures always print in the same order).
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// All time charged to scripts.
    pub total_ns: u64,
    pub steps: u64,
    pub functions: Vec<FnRow>,
    pub lines: Vec<LineRow>,
}

#[derive(Default, Clone, Copy)]
struct Acc {
    self_ns: u64,
    incl_ns: u64,
    calls: u64,
    steps: u64,
    /// Stamp of the last charge, so a recursing function is charged once per slice.
    stamp: u64,
}

struct Profiler {
    /// Script display paths; a script id indexes this.
    scripts: Vec<String>,
    /// Per script path: its id and the functions it defines itself.
    own: HashMap<String, (u32, BTreeSet<String>)>,
    /// The rules script's files (a function of one of them may be called from any script).
    rules: Vec<u32>,
    /// The line of each closure, by script and internal name.
    closure_lines: HashMap<(u32, ImmutableString), usize>,
    keys: HashMap<(u32, ImmutableString), u32>,
    fns: Vec<(u32, ImmutableString, Acc)>,
    lines: HashMap<(u32, u32), (u64, u64)>,
    /// The logical stack: per nested script call, its frames as (name, function id).
    segs: Vec<Vec<(ImmutableString, u32)>>,
    line: Option<(u32, u32)>,
    /// For each compiled function running, the line its caller was on.
    returns: Vec<Option<(u32, u32)>>,
    /// A host call into a script has just begun (`enter`): the compiled function it
    /// runs is already on the stack.
    fresh: bool,
    last: Instant,
    stamp: u64,
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static PROFILER: RefCell<Option<Profiler>> = const { RefCell::new(None) };
}

/// Whether a profile is being taken on this thread.
#[inline]
pub fn active() -> bool {
    ON.with(Cell::get)
}

static ENGINE: OnceLock<Engine> = OnceLock::new();

/// The profiling engine: the shared engine's configuration plus the debugger callback.
pub(super) fn engine() -> &'static Engine {
    super::engine_with_debugger(&ENGINE, step)
}

/// Start profiling the scripts of `pack` on this thread (games must be played on it).
pub fn start(pack: &Pack) {
    let mut scripts = Vec::new();
    let mut own = HashMap::new();
    let mut rules = Vec::new();
    let rule_paths: Vec<String> = pack.rule_files().map(|s| s.path.display().to_string()).collect();
    // Closures (`|a, b| ...`, named `anon$` and a hash) belong to the script whose text
    // holds them: a card script's tree carries the rules' closures too.
    let rule_closures: BTreeSet<String> =
        pack.rule_files().flat_map(|s| closures(&s.ast).into_iter().map(|(name, _)| name)).collect();
    let mut closure_lines = HashMap::new();
    for s in &pack.scripts {
        let path = s.path.display().to_string();
        let id = scripts.len() as u32;
        let is_rules = rule_paths.contains(&path);
        if is_rules {
            rules.push(id);
        }
        scripts.push(path.clone());
        let mut fns = s.functions.clone();
        for (name, line) in closures(&s.ast) {
            if is_rules || !rule_closures.contains(&name) {
                closure_lines.insert((id, ImmutableString::from(name.as_str())), line);
                fns.insert(name);
            }
        }
        own.insert(path, (id, fns));
    }
    let p = Profiler {
        scripts,
        own,
        closure_lines,
        rules,
        keys: HashMap::new(),
        fns: Vec::new(),
        lines: HashMap::new(),
        segs: Vec::new(),
        line: None,
        returns: Vec::new(),
        fresh: false,
        last: Instant::now(),
        stamp: 0,
    };
    PROFILER.with(|x| *x.borrow_mut() = Some(p));
    ON.with(|o| o.set(true));
}

/// Stop profiling and report (function and line rows of `pack`'s scripts).
pub fn finish(pack: &Pack) -> Report {
    ON.with(|o| o.set(false));
    let Some(p) = PROFILER.with(|x| x.borrow_mut().take()) else {
        return Report::default();
    };
    let mut functions: Vec<FnRow> = p
        .fns
        .iter()
        .map(|(s, name, a)| {
            let script = p.scripts[*s as usize].clone();
            let closure = p.closure_lines.get(&(*s, name.clone()));
            FnRow {
                line: closure
                    .copied()
                    .or_else(|| pack.sources.fn_line(std::path::Path::new(&script), name))
                    .unwrap_or(0),
                script,
                name: if closure.is_some() { CLOSURE.to_string() } else { name.to_string() },
                self_ns: a.self_ns,
                incl_ns: a.incl_ns,
                calls: a.calls,
                steps: a.steps,
            }
        })
        .collect();
    functions.sort_by(|a, b| b.self_ns.cmp(&a.self_ns).then_with(|| (&a.script, &a.name).cmp(&(&b.script, &b.name))));
    let mut lines: Vec<LineRow> = p
        .lines
        .iter()
        .map(|(&(s, l), &(ns, steps))| {
            let script = p.scripts[s as usize].clone();
            let text = pack
                .sources
                .get(std::path::Path::new(&script))
                .and_then(|f| f.text.lines().nth((l as usize).saturating_sub(1)))
                .map(|t| t.trim().to_string())
                .unwrap_or_default();
            LineRow { script, line: l as usize, text, self_ns: ns, steps }
        })
        .collect();
    lines.sort_by(|a, b| b.self_ns.cmp(&a.self_ns).then_with(|| (&a.script, a.line).cmp(&(&b.script, b.line))));
    Report {
        total_ns: functions.iter().map(|f| f.self_ns).sum(),
        steps: functions.iter().map(|f| f.steps).sum(),
        functions,
        lines,
    }
}

impl Profiler {
    /// The function id of `name` as called in the script at `source`.
    fn key(&mut self, source: Option<&str>, name: &ImmutableString) -> u32 {
        let script = match source.and_then(|s| self.own.get(s)) {
            Some((id, fns)) if fns.contains(name.as_str()) => *id,
            _ => match self.rules.iter().copied().find(|&r| self.defines(r, name)) {
                Some(r) => r,
                // Not a script function: one of Crown's or Rhai's.
                None => self.intern_script(BUILT_IN),
            },
        };
        if let Some(&k) = self.keys.get(&(script, name.clone())) {
            return k;
        }
        let k = self.fns.len() as u32;
        self.fns.push((script, name.clone(), Acc::default()));
        self.keys.insert((script, name.clone()), k);
        k
    }

    fn defines(&self, script: u32, name: &str) -> bool {
        self.own.get(&self.scripts[script as usize]).is_some_and(|(_, fns)| fns.contains(name))
    }

    fn intern_script(&mut self, path: &str) -> u32 {
        if let Some((id, _)) = self.own.get(path) {
            return *id;
        }
        let id = self.scripts.len() as u32;
        self.scripts.push(path.to_string());
        self.own.insert(path.to_string(), (id, BTreeSet::new()));
        id
    }

    /// Charge the time since the last event to what was running.
    fn charge(&mut self, now: Instant) {
        let dt = now.saturating_duration_since(self.last).as_nanos() as u64;
        self.stamp += 1;
        let stamp = self.stamp;
        let mut top = None;
        for seg in &self.segs {
            for &(_, f) in seg {
                let a = &mut self.fns[f as usize].2;
                if a.stamp != stamp {
                    a.stamp = stamp;
                    a.incl_ns += dt;
                }
                top = Some(f);
            }
        }
        if let Some(f) = top {
            self.fns[f as usize].2.self_ns += dt;
            if let Some(l) = self.line {
                self.lines.entry(l).or_default().0 += dt;
            }
        }
    }
}

/// Before a host-side call into a script function (`name` of the script at `source`).
pub fn enter(source: Option<&str>, name: &str) {
    let now = Instant::now();
    PROFILER.with(|x| {
        if let Some(p) = x.borrow_mut().as_mut() {
            p.charge(now);
            let name = ImmutableString::from(name);
            let f = p.key(source, &name);
            p.fns[f as usize].2.calls += 1;
            p.segs.push(vec![(name, f)]);
            p.fresh = true;
            p.line = None;
            p.last = Instant::now();
        }
    });
}

/// After that call returned.
pub fn leave() {
    let now = Instant::now();
    PROFILER.with(|x| {
        if let Some(p) = x.borrow_mut().as_mut() {
            p.charge(now);
            p.segs.pop();
            p.fresh = false;
            p.line = None;
            p.last = Instant::now();
        }
    });
}

// ---- the compiled tier's hooks ----
//
// Scripts compiled while a profile is being taken (see `compiled::Program::profiled`) say
// when one of their functions begins and ends and when a statement begins, so that the
// profile measures the code `crown sim` runs. Functions left to the interpreter are
// measured by the debugger callback below, as before.

/// A compiled script function `name` of the script at `source` begins.
pub(crate) fn frame_enter(source: &str, name: &ImmutableString) {
    let now = Instant::now();
    PROFILER.with(|x| {
        if let Some(p) = x.borrow_mut().as_mut() {
            p.charge(now);
            let caller_line = p.line;
            p.returns.push(caller_line);
            // The host's call (`enter`) already stands for the function it called.
            if std::mem::take(&mut p.fresh) {
                p.line = None;
                p.last = Instant::now();
                return;
            }
            let f = p.key(Some(source), name);
            p.fns[f as usize].2.calls += 1;
            match p.segs.last_mut() {
                Some(seg) => seg.push((name.clone(), f)),
                None => p.segs.push(vec![(name.clone(), f)]),
            }
            p.line = None;
            p.last = Instant::now();
        }
    });
}

/// The compiled function begun last ends.
pub(crate) fn frame_leave() {
    let now = Instant::now();
    PROFILER.with(|x| {
        if let Some(p) = x.borrow_mut().as_mut() {
            p.charge(now);
            if let Some(seg) = p.segs.last_mut() {
                seg.pop();
            }
            p.line = p.returns.pop().flatten();
            p.last = Instant::now();
        }
    });
}

/// A statement on `line` of the running compiled function begins.
pub(crate) fn at_line(line: u32) {
    let now = Instant::now();
    PROFILER.with(|x| {
        if let Some(p) = x.borrow_mut().as_mut() {
            p.charge(now);
            if let Some(&(_, top)) = p.segs.last().and_then(|s| s.last()) {
                p.fns[top as usize].2.steps += 1;
                let l = (p.fns[top as usize].0, line);
                p.line = Some(l);
                p.lines.entry(l).or_default().1 += 1;
            }
            p.last = Instant::now();
        }
    });
}

/// The debugger callback: charge the last slice, then note where the scripts are now.
fn step(
    ctx: EvalContext,
    event: DebuggerEvent,
    _node: rhai::ASTNode,
    _source: Option<&str>,
    pos: Position,
) -> Result<DebuggerCommand, Box<rhai::EvalAltResult>> {
    let now = Instant::now();
    let exit = matches!(event, DebuggerEvent::FunctionExitWithValue(_) | DebuggerEvent::FunctionExitWithError(_));
    PROFILER.with(|x| {
        let mut b = x.borrow_mut();
        let Some(p) = b.as_mut() else { return };
        if !exit {
            p.charge(now);
        }
        p.fresh = false;
        if let (Some(dbg), Some(seg_i)) = (ctx.debugger(), p.segs.len().checked_sub(1)) {
            let frames = dbg.call_stack();
            let mut seg = std::mem::take(&mut p.segs[seg_i]);
            // Frames still the same from the bottom are kept; the rest were returned
            // from, and any new ones were called since the last step. (Before Rhai has
            // pushed the called function's frame, the hook `enter` noted stands.)
            if !frames.is_empty() {
                let same = seg.iter().zip(frames).take_while(|((n, _), fr)| *n == fr.fn_name).count();
                seg.truncate(same);
            }
            for fr in &frames[seg.len().min(frames.len())..] {
                let f = p.key(fr.source.as_deref(), &fr.fn_name);
                p.fns[f as usize].2.calls += 1;
                seg.push((fr.fn_name.clone(), f));
            }
            if let Some(&(_, top)) = seg.last() {
                p.fns[top as usize].2.steps += 1;
                // A line belongs to the innermost script function (a built-in function's
                // frame carries the position of its call).
                let script = seg
                    .iter()
                    .rev()
                    .map(|&(_, f)| p.fns[f as usize].0)
                    .find(|&s| p.scripts[s as usize] != BUILT_IN)
                    .unwrap_or(p.fns[top as usize].0);
                p.line = pos.line().map(|l| (script, l as u32));
                if let Some(l) = p.line {
                    p.lines.entry(l).or_default().1 += 1;
                }
            }
            p.segs[seg_i] = seg;
        }
        if exit {
            // A built-in function returning: it was called after the last step, so the
            // time since then is its own (its frame is on the stack only now).
            p.charge(now);
        }
        p.last = Instant::now();
    });
    Ok(DebuggerCommand::StepInto)
}
