//! Limits on what a template may do while it draws, so that a template from a downloaded
//! pack can fail but never hang `crown`, fill its memory or crash it. tera has no limits
//! of its own: a macro that calls itself overflows the stack, `range(end=2000000000)`
//! allocates gigabytes, three nested loops run for hours.
//!
//! [`harden`] changes a set of parsed templates before any is drawn:
//!
//! - a template that includes itself, directly or through others, is refused;
//! - every macro body starts and ends with calls that count how deep macros nest and how
//!   many have been called, every loop body with one that counts turns, and each
//!   macro's arguments are measured when it starts;
//! - every value a `set` stores is measured;
//! - every filter and function is wrapped: its result is measured, its work counted by the
//!   size of what it is given, and the ones that multiply sizes (`replace`, `join`,
//!   `indent`, `range`) are checked before they run;
//! - `get_env` is removed (a template never reads the environment).
//!
//! [`render`] draws one template with the counters reset and its output capped. The
//! limits are [`LIMITS`]; passing one is an error naming the limit, which tera reports
//! with the template's name. The counting functions have names a template cannot write
//! (they hold a space), so a template cannot call them to cheat the count.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::Value;
use tera::ast::{Expr, ExprVal, FunctionCall, Node, WS};
use tera::Tera;

/// What one drawing of a template may use.
#[derive(Debug, Clone, Copy)]
pub struct TemplateLimits {
    /// Macros nested inside each other.
    pub macro_depth: usize,
    /// Work per drawing: one unit per loop turn and per macro call, and per filter or
    /// function call one unit plus one per KiB it is given.
    pub work: u64,
    /// The largest value a `set`, a filter, a function or a macro argument may hold
    /// (bytes, counted roughly: text, numbers and the structure around them).
    pub value_size: usize,
    /// The most numbers `range` may make.
    pub range: u64,
    /// The most a drawing may write.
    pub output: usize,
}

pub const LIMITS: TemplateLimits =
    TemplateLimits { macro_depth: 64, work: 2_000_000, value_size: 4 << 20, range: 100_000, output: 32 << 20 };

/// Whether a line of a tera error chain only names one of the hidden functions (the
/// message under it says what happened).
pub fn is_hidden_call(part: &str) -> bool {
    part.starts_with("Function call 'crown limit: ")
}

/// The hidden functions [`harden`] inserts (names no template can spell).
const ENTER: &str = "crown limit: macro enter";
const LEAVE: &str = "crown limit: macro leave";
const TURN: &str = "crown limit: loop turn";
const SIZE: &str = "crown limit: value size";

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    static WORK: Cell<u64> = const { Cell::new(0) };
}

fn charge(units: u64) -> tera::Result<()> {
    let used = WORK.with(|w| {
        let n = w.get().saturating_add(units);
        w.set(n);
        n
    });
    if used > LIMITS.work {
        return Err(tera::Error::msg(format!(
            "the template did more than {} steps of work in one drawing (a loop or macros without end?)",
            LIMITS.work
        )));
    }
    Ok(())
}

/// Roughly how many bytes a value holds.
pub fn size_of(v: &Value) -> usize {
    let mut total = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total = total.saturating_add(match v {
            Value::String(s) => s.len() + 8,
            Value::Array(a) => {
                stack.extend(a.iter());
                8
            }
            Value::Object(m) => {
                for (k, x) in m {
                    total = total.saturating_add(k.len() + 8);
                    stack.push(x);
                }
                8
            }
            _ => 8,
        });
    }
    total
}

fn check_size(v: &Value, what: &str) -> tera::Result<()> {
    let n = size_of(v);
    if n > LIMITS.value_size {
        return Err(tera::Error::msg(format!(
            "{what} grew to {n} bytes, past the {} MiB a template value may hold",
            LIMITS.value_size >> 20
        )));
    }
    Ok(())
}

fn args_size(args: &HashMap<String, Value>) -> usize {
    args.values().map(size_of).sum()
}

/// Count the work of a call given `input` bytes.
fn charge_input(input: usize) -> tera::Result<()> {
    charge(1 + (input / 1024) as u64)
}

struct GuardedFunction {
    name: String,
    inner: Arc<dyn tera::Function>,
}

impl tera::Function for GuardedFunction {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        charge_input(args_size(args))?;
        if self.name == "range" {
            let num = |k: &str, d: i64| args.get(k).and_then(Value::as_i64).unwrap_or(d);
            let (start, end, step) = (num("start", 0), num("end", 0), num("step_by", 1));
            if step > 0 && end > start && ((end - start) as u64).div_ceil(step as u64) > LIMITS.range {
                return Err(tera::Error::msg(format!(
                    "range from {start} to {end} makes more than {} numbers",
                    LIMITS.range
                )));
            }
        }
        let v = self.inner.call(args)?;
        check_size(&v, &format!("the result of `{}`", self.name))?;
        Ok(v)
    }
    fn is_safe(&self) -> bool {
        self.inner.is_safe()
    }
}

struct GuardedFilter {
    name: String,
    inner: Arc<dyn tera::Filter>,
}

impl GuardedFilter {
    /// An upper bound of the result's size for the filters that can multiply sizes.
    fn predicted(&self, value: &Value, args: &HashMap<String, Value>) -> usize {
        fn text(v: Option<&Value>) -> &str {
            v.and_then(Value::as_str).unwrap_or("")
        }
        match self.name.as_str() {
            "replace" => {
                let (s, from, to) = (text(Some(value)), text(args.get("from")), text(args.get("to")));
                let hits = if from.is_empty() { s.chars().count() + 1 } else { s.matches(from).count() };
                s.len().saturating_add(hits.saturating_mul(to.len()))
            }
            "join" => {
                let n = value.as_array().map_or(0, Vec::len);
                size_of(value).saturating_add(n.saturating_mul(text(args.get("sep")).len()))
            }
            "indent" => {
                let s = text(Some(value));
                let width = args.get("prefix").and_then(Value::as_str).map_or(4, str::len);
                s.len().saturating_add((s.matches('\n').count() + 1).saturating_mul(width))
            }
            _ => 0,
        }
    }
}

impl tera::Filter for GuardedFilter {
    fn filter(&self, value: &Value, args: &HashMap<String, Value>) -> tera::Result<Value> {
        charge_input(size_of(value).saturating_add(args_size(args)))?;
        let predicted = self.predicted(value, args);
        if predicted > LIMITS.value_size {
            return Err(tera::Error::msg(format!(
                "the filter `{}` would make about {predicted} bytes, past the {} MiB a template value may hold",
                self.name,
                LIMITS.value_size >> 20
            )));
        }
        let v = self.inner.filter(value, args)?;
        check_size(&v, &format!("the result of the filter `{}`", self.name))?;
        Ok(v)
    }
    fn is_safe(&self) -> bool {
        self.inner.is_safe()
    }
}

/// Called as each macro starts, with its arguments.
fn enter(args: &HashMap<String, Value>) -> tera::Result<Value> {
    charge(1)?;
    for (k, v) in args {
        check_size(v, &format!("the macro argument `{k}`"))?;
    }
    let depth = DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    if depth > LIMITS.macro_depth {
        return Err(tera::Error::msg(format!(
            "macros nested more than {} deep (a macro that calls itself without end?)",
            LIMITS.macro_depth
        )));
    }
    Ok(Value::String(String::new()))
}

fn leave(_: &HashMap<String, Value>) -> tera::Result<Value> {
    DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    Ok(Value::String(String::new()))
}

fn turn(_: &HashMap<String, Value>) -> tera::Result<Value> {
    charge(1)?;
    Ok(Value::String(String::new()))
}

fn size(args: &HashMap<String, Value>) -> tera::Result<Value> {
    let v = args.get("v").cloned().unwrap_or(Value::Null);
    check_size(&v, "a value set by the template")?;
    Ok(v)
}

fn call(name: &str, args: HashMap<String, Expr>) -> Expr {
    Expr::new(ExprVal::FunctionCall(FunctionCall { name: name.to_string(), args }))
}

fn call_node(name: &str, args: HashMap<String, Expr>) -> Node {
    Node::VariableBlock(WS::default(), call(name, args))
}

/// Insert the counting calls into a list of nodes, and into every list inside it.
fn patch_nodes(nodes: &mut [Node]) {
    for n in nodes.iter_mut() {
        match n {
            Node::Forloop(_, f, _) => {
                patch_nodes(&mut f.body);
                f.body.insert(0, call_node(TURN, HashMap::new()));
                if let Some(b) = &mut f.empty_body {
                    patch_nodes(b);
                }
            }
            Node::MacroDefinition(_, m, _) => patch_macro(m),
            Node::Block(_, b, _) => patch_nodes(&mut b.body),
            Node::FilterSection(_, f, _) => patch_nodes(&mut f.body),
            Node::If(i, _) => {
                for (_, _, body) in &mut i.conditions {
                    patch_nodes(body);
                }
                if let Some((_, body)) = &mut i.otherwise {
                    patch_nodes(body);
                }
            }
            Node::Set(_, s) => {
                let value = std::mem::replace(&mut s.value, Expr::new(ExprVal::Bool(false)));
                s.value = call(SIZE, HashMap::from([("v".to_string(), value)]));
            }
            _ => {}
        }
    }
}

fn patch_macro(m: &mut tera::ast::MacroDefinition) {
    // Already patched (a macro is kept both in the template's list and in its tree).
    if matches!(m.body.first(), Some(Node::VariableBlock(_, Expr { val: ExprVal::FunctionCall(f), .. })) if f.name == ENTER)
    {
        return;
    }
    patch_nodes(&mut m.body);
    let args: HashMap<String, Expr> =
        m.args.keys().map(|k| (k.clone(), Expr::new(ExprVal::Ident(k.clone())))).collect();
    m.body.insert(0, call_node(ENTER, args));
    m.body.push(call_node(LEAVE, HashMap::new()));
}

/// The templates each template includes, anywhere in it.
fn includes(nodes: &[Node], out: &mut BTreeSet<String>) {
    for n in nodes {
        match n {
            Node::Include(_, names, _) => out.extend(names.iter().cloned()),
            Node::Forloop(_, f, _) => {
                includes(&f.body, out);
                if let Some(b) = &f.empty_body {
                    includes(b, out);
                }
            }
            Node::MacroDefinition(_, m, _) => includes(&m.body, out),
            Node::Block(_, b, _) => includes(&b.body, out),
            Node::FilterSection(_, f, _) => includes(&f.body, out),
            Node::If(i, _) => {
                for (_, _, body) in &i.conditions {
                    includes(body, out);
                }
                if let Some((_, body)) = &i.otherwise {
                    includes(body, out);
                }
            }
            _ => {}
        }
    }
}

/// A chain of includes that comes back to where it started, if there is one:
/// `["a.svg", "b.svg", "a.svg"]`.
fn include_cycle(tera: &Tera) -> Option<Vec<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, t) in &tera.templates {
        let mut inc = BTreeSet::new();
        includes(&t.ast, &mut inc);
        for m in t.macros.values() {
            includes(&m.body, &mut inc);
        }
        graph.insert(name.clone(), inc);
    }
    // Depth-first search with colours; the path is the cycle when a grey node is met.
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut cycle = path[i..].to_vec();
            cycle.push(n.to_string());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for next in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, graph, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, &graph, &mut done, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

/// Put the limits into a set of parsed templates (see the module's documentation).
/// The error is a template of a chain that include each other, and the message.
pub fn harden(tera: &mut Tera) -> Result<(), (String, String)> {
    if let Some(cycle) = include_cycle(tera) {
        let msg = if cycle.len() == 2 {
            format!("`{}` includes itself", cycle[0])
        } else {
            format!("templates include each other in a ring: {}", cycle.join(" includes "))
        };
        return Err((cycle[0].clone(), msg));
    }
    tera.functions.remove("get_env");
    let functions: Vec<(String, Arc<dyn tera::Function>)> = tera.functions.drain().collect();
    for (name, inner) in functions {
        tera.functions.insert(name.clone(), Arc::new(GuardedFunction { name, inner }));
    }
    let filters: Vec<(String, Arc<dyn tera::Filter>)> = tera.filters.drain().collect();
    for (name, inner) in filters {
        tera.filters.insert(name.clone(), Arc::new(GuardedFilter { name, inner }));
    }
    tera.register_function(ENTER, enter);
    tera.register_function(LEAVE, leave);
    tera.register_function(TURN, turn);
    tera.register_function(SIZE, size);
    for t in tera.templates.values_mut() {
        patch_nodes(&mut t.ast);
        for m in t.macros.values_mut() {
            patch_macro(m);
        }
        for b in t.blocks.values_mut() {
            patch_nodes(&mut b.body);
        }
        for defs in t.blocks_definitions.values_mut() {
            for (_, b) in defs.iter_mut() {
                patch_nodes(&mut b.body);
            }
        }
    }
    Ok(())
}

/// Output that refuses to grow past [`TemplateLimits::output`].
struct Capped(Vec<u8>);

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > LIMITS.output {
            return Err(std::io::Error::other(format!(
                "the template wrote more than {} MiB in one drawing",
                LIMITS.output >> 20
            )));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Draw template `name` of a hardened set with the counters reset and the output capped.
pub fn render(tera: &Tera, name: &str, ctx: &tera::Context) -> tera::Result<String> {
    DEPTH.with(|d| d.set(0));
    WORK.with(|w| w.set(0));
    let mut out = Capped(Vec::new());
    tera.render_to(name, ctx, &mut out)?;
    String::from_utf8(out.0).map_err(|e| tera::Error::msg(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hardened(templates: &[(&str, &str)]) -> Result<Tera, String> {
        let mut t = Tera::default();
        t.add_raw_templates(templates.to_vec()).map_err(|e| e.to_string())?;
        harden(&mut t).map_err(|e| e.1)?;
        Ok(t)
    }

    fn draw(t: &Tera, name: &str) -> Result<String, String> {
        render(t, name, &tera::Context::new()).map_err(|e| crate::templates::error_chain(&e))
    }

    #[test]
    fn ordinary_templates_draw_as_before() {
        let t = hardened(&[
            ("m.svg", "{% macro twice(x) %}{{ x }}{{ x }}{% endmacro twice %}{% macro down(n) %}{% if n > 0 %}{{ n }}{{ self::down(n=n-1) }}{% endif %}{% endmacro down %}"),
            ("a.svg", "{% import \"m.svg\" as m %}{% set s = \"ab\" %}{% for i in range(end=3) %}{{ m::twice(x=i) }}{% endfor %}{{ m::down(n=3) }}{{ s | upper }}{% include \"b.svg\" %}"),
            ("b.svg", "[{{ \"x-y\" | replace(from=\"-\", to=\"+\") }}]"),
        ])
        .unwrap();
        assert_eq!(draw(&t, "a.svg").unwrap(), "001122321AB[x+y]");
    }

    #[test]
    fn runaway_templates_fail_with_the_limit() {
        let cases = [
            ("{% macro f(n) %}{{ self::f(n=n+1) }}{% endmacro f %}{{ self::f(n=0) }}", "nested more than 64"),
            ("{% for i in range(end=2000000000) %}{{ i }}{% endfor %}", "more than 100000 numbers"),
            (
                "{% for i in range(end=5000) %}{% for j in range(end=5000) %}{% endfor %}{% endfor %}",
                "steps of work",
            ),
            (
                "{% set_global s = \"ab\" %}{% for i in range(end=64) %}{% set_global s = s ~ s %}{% endfor %}",
                "a value set by the template",
            ),
            (
                "{% macro g(s, n) %}{% if n < 60 %}{{ self::g(s=s ~ s, n=n+1) }}{% endif %}{% endmacro g %}{{ self::g(s=\"ab\", n=0) }}",
                "the macro argument `s`",
            ),
            (
                "{% macro f(n) %}{% if n < 40 %}{{ self::f(n=n+1) }}{{ self::f(n=n+1) }}{% endif %}{% endmacro f %}{{ self::f(n=0) }}",
                "steps of work",
            ),
            ("{{ get_env(name=\"HOME\") }}", "get_env"),
        ];
        for (text, what) in cases {
            let t = hardened(&[("t.svg", text)]).unwrap();
            let e = draw(&t, "t.svg").unwrap_err();
            assert!(e.contains(what), "{text}\nexpected `{what}` in: {e}");
        }
        let big = format!(
            "{{% set a = \"{}\" %}}{{% set b = a | replace(from=\"x\", to=a) %}}{{{{ b | replace(from=\"x\", to=a) | length }}}}",
            "x".repeat(4000)
        );
        let t = hardened(&[("t.svg", &big)]).unwrap();
        assert!(draw(&t, "t.svg").unwrap_err().contains("the filter `replace` would make"));
    }

    #[test]
    fn include_rings_are_refused() {
        let e = hardened(&[("a.svg", "{% include \"a.svg\" %}")]).err().unwrap();
        assert_eq!(e, "`a.svg` includes itself");
        let e = hardened(&[
            ("a.svg", "{% include \"b.svg\" %}"),
            ("b.svg", "{% if true %}{% include \"c.svg\" %}{% endif %}"),
            ("c.svg", "{% for i in [1] %}{% include \"a.svg\" %}{% endfor %}"),
        ])
        .err()
        .unwrap();
        assert_eq!(e, "templates include each other in a ring: a.svg includes b.svg includes c.svg includes a.svg");
    }

    #[test]
    fn the_counting_functions_cannot_be_called_by_a_template() {
        // `crown limit: macro leave()` does not parse: no template can lower the depth.
        let mut t = Tera::default();
        assert!(t.add_raw_template("t.svg", "{{ crown limit: macro leave() }}").is_err());
    }
}
