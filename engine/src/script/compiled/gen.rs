//! Random Rhai programs built from the constructs the compiled tier covers (and a few it
//! leaves to the interpreter), for differential tests: each program runs on both
//! runtimes and must give the same value or the same error, with the same operation
//! count. Errors are part of the mix on purpose: overflow, division by zero, indices out
//! of bounds, missing properties, thrown values, endless recursion (the call-depth limit)
//! and strings past the size limit. (The operation limit has its own test: a loop that
//! reaches it runs two million operations.)

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Gen {
    rng: ChaCha8Rng,
    out: String,
    /// Variables in scope, with their kind.
    vars: Vec<(String, Kind)>,
    /// The variables declared `const` (read, and handed to methods that may change them,
    /// an error; never assigned, which Rhai refuses when it reads the script).
    consts: Vec<String>,
    next: usize,
    depth: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Str,
    Bool,
    Arr,
    Map,
}

/// A program: helper functions and `fn main(a, b)` (two integers).
pub fn program(seed: u64) -> String {
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(seed),
        out: String::new(),
        vars: Vec::new(),
        consts: Vec::new(),
        next: 0,
        depth: 0,
    };
    g.out.push_str("fn twice(x) { x * 2 }\n");
    g.out.push_str("fn count_down(n) { if n <= 0 { return 0; } 1 + count_down(n - 1) }\n");
    g.out.push_str("fn label(m) { `${m.name}:${m.n}` }\n");
    g.out.push_str("fn bump() { this.n += 1; this.n }\n");
    g.out.push_str("fn pair(x, y) { x - y * 3 }\n");
    // Functions that only read a list: a variable handed to them is lent (`moves::lendable`).
    g.out.push_str("fn total(l, k) { l.len() * k + if l.len() > 0 { l[0] } else { 0 } }\n");
    g.out.push_str("fn relay(l) { total(l, 2) + l.len() }\n");
    g.out.push_str("fn main(a, b) {\n");
    g.vars = vec![("a".into(), Kind::Int), ("b".into(), Kind::Int)];
    let n = 2 + g.below(6);
    for _ in 0..n {
        g.stmt(1);
    }
    let k = g.pick_kind();
    let e = g.expr(k, 0);
    g.line(1, &e);
    g.out.push_str("}\n");
    g.out
}

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u32() as usize) % n.max(1)
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick_kind(&mut self) -> Kind {
        [Kind::Int, Kind::Int, Kind::Str, Kind::Bool, Kind::Arr, Kind::Map][self.below(6)]
    }
    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }
    fn var_of(&mut self, k: Kind) -> Option<String> {
        self.pick(k, false)
    }
    /// A variable of kind `k` that may be assigned to (not a constant).
    fn assignable(&mut self, k: Kind) -> Option<String> {
        self.pick(k, true)
    }
    fn pick(&mut self, k: Kind, assignable: bool) -> Option<String> {
        let fits = |(n, v): &&(String, Kind)| *v == k && !(assignable && self.consts.contains(n));
        let vs: Vec<String> = self.vars.iter().filter(fits).map(|(n, _)| n.clone()).collect();
        (!vs.is_empty()).then(|| vs[self.below(vs.len())].clone())
    }
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("v{}", self.next)
    }

    fn stmt(&mut self, indent: usize) {
        self.depth += 1;
        let deep = self.depth > 3;
        match self.below(if deep { 5 } else { 12 }) {
            0 | 1 => {
                let k = self.pick_kind();
                let e = self.expr(k, 0);
                let v = self.fresh();
                if self.chance(25) {
                    self.line(indent, &format!("const {v} = {e};"));
                    self.consts.push(v.clone());
                } else {
                    self.line(indent, &format!("let {v} = {e};"));
                }
                self.vars.push((v, k));
            }
            2 => {
                if let Some(v) = self.assignable(Kind::Int) {
                    let e = self.expr(Kind::Int, 1);
                    let op = ["=", "+=", "-=", "*="][self.below(4)];
                    self.line(indent, &format!("{v} {op} {e};"));
                }
            }
            3 => {
                if let Some(v) = self.var_of(Kind::Arr) {
                    let e = self.expr(Kind::Int, 1);
                    self.line(indent, &format!("{v}.push({e});"));
                }
            }
            4 => {
                if let Some(v) = self.assignable(Kind::Map) {
                    let key = ["n", "name", "extra"][self.below(3)];
                    let e = self.expr(Kind::Int, 1);
                    let op = if self.chance(50) { "=" } else { "+=" };
                    self.line(indent, &format!("{v}.{key} {op} {e};"));
                }
            }
            5 => {
                let c = self.expr(Kind::Bool, 1);
                self.line(indent, &format!("if {c} {{"));
                let mark = self.vars.len();
                self.stmt(indent + 1);
                self.vars.truncate(mark);
                self.line(indent, "} else {");
                self.stmt(indent + 1);
                self.vars.truncate(mark);
                self.line(indent, "}");
            }
            6 => {
                let x = self.fresh();
                let src = if self.chance(50) {
                    format!("0..{}", self.below(6))
                } else if self.chance(25) {
                    // A step of 0 is the call's error; a negative one walks down.
                    let (from, to) = (self.below(8), self.below(8));
                    format!("range({from}, {to}, {})", self.below(5) as i64 - 2)
                } else {
                    self.var_of(Kind::Arr).unwrap_or_else(|| "[1, 2, 3]".into())
                };
                self.line(indent, &format!("for {x} in {src} {{"));
                let mark = self.vars.len();
                self.vars.push((x.clone(), Kind::Int));
                if self.chance(30) {
                    self.line(indent + 1, &format!("if {x} == 2 {{ continue; }}"));
                }
                self.stmt(indent + 1);
                if self.chance(30) {
                    self.line(indent + 1, &format!("if {x} > 3 {{ break; }}"));
                }
                self.vars.truncate(mark);
                self.line(indent, "}");
            }
            7 => {
                let i = self.fresh();
                let limit = self.below(5);
                self.line(indent, &format!("let {i} = 0;"));
                self.line(indent, &format!("while {i} < {limit} {{"));
                let mark = self.vars.len();
                self.vars.push((i.clone(), Kind::Int));
                self.line(indent + 1, &format!("{i} += 1;"));
                self.stmt(indent + 1);
                self.vars.truncate(mark);
                self.line(indent, "}");
                self.vars.push((i, Kind::Int));
            }
            8 => match self.below(6) {
                0 => self.line(indent, "let deep = count_down(b * 3);"),
                1 => self.line(indent, "let deep = count_down(a * 1000);"),
                2 => self.line(indent, "throw `stopped at ${a}`;"),
                3 => self.line(indent, "let big = \"x\"; for i in 0..20 { big += big; }"),
                _ => self.line(indent, "return a - b;"),
            },
            9 => {
                let e = self.expr(Kind::Int, 1);
                let mut cases = String::new();
                for k in 0..self.below(3) + 1 {
                    let v = self.expr(Kind::Int, 2);
                    cases.push_str(&format!("{k} => {v}, "));
                }
                let v = self.fresh();
                self.line(indent, &format!("let {v} = switch {e} {{ {cases}_ => 0 }};"));
                self.vars.push((v, Kind::Int));
            }
            10 => {
                if let Some(v) = self.var_of(Kind::Map) {
                    let name = self.fresh();
                    self.line(indent, &format!("let {name} = {v}.bump();"));
                    self.vars.push((name, Kind::Int));
                }
            }
            _ => {
                if let Some(v) = self.assignable(Kind::Arr) {
                    let i = self.expr(Kind::Int, 2);
                    let e = self.expr(Kind::Int, 2);
                    self.line(indent, &format!("{v}[{i}] = {e};"));
                }
            }
        }
        self.depth -= 1;
    }

    fn expr(&mut self, k: Kind, depth: usize) -> String {
        let leaf = depth > 2 || self.chance(35);
        match k {
            Kind::Int => {
                if leaf {
                    return match self.below(4) {
                        0 => self.var_of(Kind::Int).unwrap_or_else(|| "a".into()),
                        1 => ["0", "1", "7", "-3", "9223372036854775807", "-9223372036854775807"][self.below(6)].into(),
                        _ => format!("{}", self.below(20)),
                    };
                }
                let (l, r) = (self.expr(Kind::Int, depth + 1), self.expr(Kind::Int, depth + 1));
                match self.below(13) {
                    0 => format!("({l} + {r})"),
                    1 => format!("({l} - {r})"),
                    2 => format!("({l} * {r})"),
                    3 => format!("({l} / {r})"),
                    4 => format!("({l} % {r})"),
                    5 => format!("-({l})"),
                    6 => format!("twice({l})"),
                    7 => format!("{}.len()", recv(self.expr(Kind::Arr, depth + 1))),
                    8 => format!("{}[{r}]", self.var_of(Kind::Arr).unwrap_or_else(|| "[4, 5, 6]".into())),
                    9 => format!("{}.n", recv(self.expr(Kind::Map, depth + 1))),
                    10 => format!("pair({l}, {{ let t = {r}; t + 1 }})"),
                    11 if self.chance(50) => format!("total({}, {l})", self.expr(Kind::Arr, depth + 1)),
                    11 => format!("relay({})", self.expr(Kind::Arr, depth + 1)),
                    _ => format!("if {} {{ {l} }} else {{ {r} }}", self.expr(Kind::Bool, depth + 1)),
                }
            }
            Kind::Str => {
                if leaf {
                    return self
                        .var_of(Kind::Str)
                        .unwrap_or_else(|| ["\"x\"", "\"\"", "\"crown\""][self.below(3)].into());
                }
                match self.below(5) {
                    0 => format!(
                        "`n=${{{}}} s=${{{}}}`",
                        self.expr(Kind::Int, depth + 1),
                        self.expr(Kind::Str, depth + 1)
                    ),
                    1 => format!("({} + {})", self.expr(Kind::Str, depth + 1), self.expr(Kind::Str, depth + 1)),
                    2 => format!("label({})", self.expr(Kind::Map, depth + 1)),
                    3 => format!("({} + {})", self.expr(Kind::Str, depth + 1), self.expr(Kind::Int, depth + 1)),
                    _ => format!("{}.to_string()", recv(self.expr(Kind::Int, depth + 1))),
                }
            }
            Kind::Bool => {
                if leaf {
                    return self.var_of(Kind::Bool).unwrap_or_else(|| ["true", "false"][self.below(2)].into());
                }
                let (l, r) = (self.expr(Kind::Int, depth + 1), self.expr(Kind::Int, depth + 1));
                match self.below(8) {
                    0 => format!("({l} < {r})"),
                    1 => format!("({l} == {r})"),
                    2 => format!("({l} >= {r})"),
                    3 => format!("({} && {})", self.expr(Kind::Bool, depth + 1), self.expr(Kind::Bool, depth + 1)),
                    4 => format!("({} || {})", self.expr(Kind::Bool, depth + 1), self.expr(Kind::Bool, depth + 1)),
                    5 => format!("!{}", self.expr(Kind::Bool, depth + 1)),
                    6 => format!("{}.contains({l})", recv(self.expr(Kind::Arr, depth + 1))),
                    _ => format!("({} != {})", self.expr(Kind::Str, depth + 1), self.expr(Kind::Str, depth + 1)),
                }
            }
            Kind::Arr => {
                if leaf {
                    return self.var_of(Kind::Arr).unwrap_or_else(|| "[1, 2, 3]".into());
                }
                let n = self.below(4);
                let items: Vec<String> = (0..n).map(|_| self.expr(Kind::Int, depth + 1)).collect();
                format!("[{}]", items.join(", "))
            }
            Kind::Map => {
                if leaf {
                    return self.var_of(Kind::Map).unwrap_or_else(|| "#{ name: \"m\", n: 1 }".into());
                }
                let n = self.expr(Kind::Int, depth + 1);
                let s = self.expr(Kind::Str, depth + 1);
                if self.chance(20) {
                    format!("#{{ name: {s} }}")
                } else {
                    format!("#{{ name: {s}, n: {n} }}")
                }
            }
        }
    }
}

/// A receiver of a method or property: a variable as it is, anything else in parentheses.
fn recv(e: String) -> String {
    if e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !e.starts_with(|c: char| c.is_ascii_digit()) {
        e
    } else {
        format!("({e})")
    }
}
