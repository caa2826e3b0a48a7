//! The compiled tier against Rhai's interpreter on the same scripts: values, errors with
//! their positions, and operation counts must be the same.

use rhai::AST;

use super::{gen, not_compiled, with_runtime, Runtime};
use crate::script::api::{call_script_fn, game_ops};

/// The argument sets every generated program is called with.
const ARGS: [[i64; 2]; 5] = [[1, 2], [0, 0], [-5, 3], [i64::MAX, 2], [3, -1]];

/// Generated program `seed` on both runtimes with every argument set (panics on a
/// difference): whether `main` ran compiled, and how many calls ended in an error.
fn compare_program(seed: u64) -> (bool, u64) {
    let src = gen::program(seed);
    let ast = crate::script::compile("gen.rhai", &src).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
    let compiled = !not_compiled(&ast).iter().any(|f| f.name == "main");
    let mut errors = 0;
    for args in ARGS {
        let a = run(Runtime::Rhai, &ast, "main", &args);
        let b = run(Runtime::Compiled, &ast, "main", &args);
        assert_eq!(a, b, "seed {seed}, main{args:?} (left: interpreter, right: compiled):\n{src}");
        errors += u64::from(a.0.starts_with("error"));
    }
    (compiled, errors)
}

/// What a call gives, and the operations it counted.
fn run(r: Runtime, ast: &AST, name: &str, args: &[i64]) -> (String, u64) {
    with_runtime(r, || {
        crate::script::api::reset_game_ops();
        let before = game_ops();
        let out = match call_script_fn(ast, name, args.iter().map(|&a| a.into()).collect()) {
            Ok(v) => format!("ok {v:?}"),
            Err(e) => format!("error {e}"),
        };
        (out, game_ops() - before)
    })
}

/// [`run`] with the engine's fixture game installed (its cards, board, pieces and seats).
fn on_fixture_game(r: Runtime, ast: &AST, name: &str, args: &[i64]) -> (String, u64) {
    let game = crate::script::api::fixture_game();
    crate::script::api::with_installed(game, || run(r, ast, name, args)).1
}

pub(super) fn same(src: &str, name: &str, args: &[i64]) {
    let ast = crate::script::compile("diff.rhai", src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let a = run(Runtime::Rhai, &ast, name, args);
    let b = run(Runtime::Compiled, &ast, name, args);
    assert_eq!(a, b, "the runtimes differ on {name}{args:?} (left: interpreter, right: compiled):\n{src}");
}

/// A script's top-level constants, written where functions name them (and read from a
/// local constant at the head of a chain), run alike on both runtimes: values, errors,
/// operation counts.
#[test]
fn constants_agree() {
    let src = "const SUITS = [\"clubs\", \"hearts\", \"spades\"];\nconst ORDER = #{ clubs: 1, hearts: 2 };\n\
               const HAND = 2 * SUITS.len();\n\
               fn f(a) {\n    let n = 0;\n    for s in SUITS { if s in ORDER { n += ORDER[s] * a; } }\n    n + HAND + SUITS[a % 3].len() + ORDER.hearts\n}\n\
               fn g(a) {\n    SUITS[a]\n}\n\
               fn h(a) {\n    SUITS.push(\"x\");\n    a\n}";
    for a in [0, 1, 2, 5, -1] {
        same(src, "f", &[a]);
        same(src, "g", &[a]);
        same(src, "h", &[a]);
    }
}

#[test]
fn generated_programs_give_the_same_values_errors_and_operations() {
    let n = 150;
    let compiled = (0..n).filter(|&seed| compare_program(seed).0).count() as u64;
    assert!(compiled * 10 >= n * 9, "only {compiled} of {n} generated programs ran compiled");
}

#[test]
fn limits_are_the_same() {
    // The operation limit, endless recursion, a string past its size.
    same("fn f(a) { loop { a += 1; } }", "f", &[0]);
    same("fn f(a) { f(a + 1) }", "f", &[0]);
    same("fn f(a) { let s = \"ab\"; loop { s += s; } }", "f", &[0]);
    // (An array grown to its limit checks its size at every push, so it would run into
    // the time limit first in an unoptimised test build: see the property test's mix.)
    same("fn f(a) { let x = []; for i in 0..30 { x.push(a); } x.len() }", "f", &[1]);
}

#[test]
fn errors_name_the_same_place() {
    same("fn f(a) {\n    let m = #{ x: 1 };\n    m.y + a\n}", "f", &[1]);
    same("fn g(a) { [1, 2][a] }\nfn f(a) { g(a) + 1 }", "f", &[5]);
    same("fn f(a) { if a { 1 } else { 2 } }", "f", &[1]);
    same("fn f(a) { let s = \"x\"; s.nope(a) }", "f", &[1]);
    same("fn f(a) { throw `bad ${a}`; }", "f", &[3]);
    same("fn f(a) { a / 0 }", "f", &[3]);
    same("fn f(a) { unknown_fn(a) }", "f", &[3]);
    same("fn f(a) { for x in a { } }", "f", &[3]);
}

#[test]
fn the_constructs_the_rules_use_agree() {
    let src = r#"
fn push_unique() { for o in this { if o == 3 { return false; } } this.push(3); true }
fn helper(m) { m.n += 1; m }
fn f(a) {
    let out = [];
    let m = #{ n: a, name: "x", list: [1, 2] };
    m.list.push(a);
    m.list[0] += 5;
    m["name"] += "y";
    let t = helper(m);
    out.push(t.n);
    out.push(m.n);
    let s = `${m.name}/${m.list}/${a}`;
    out.push(s);
    let u = [1, 2];
    out.push(u.push_unique());
    out.push(u.push_unique());
    out.push(u);
    let w = switch a { 1 => "one", 2 | 3 => "few", _ => "many" };
    out.push(w);
    let k = 0;
    do { k += 1; if k == 2 { continue; } } while k < 5;
    out.push(k);
    let n = 0;
    for (x, i) in [5, 6, 7] { n += x * i; }
    out.push(n);
    out.push(m?.missing ?? "none");
    out.push(type_of(m));
    out.push("abc"[1]);
    let bits = 5;
    bits[1] = true;
    out.push(bits);
    out.push(0..3);
    out
}
"#;
    for a in [1, 2, 7] {
        same(src, "f", &[a]);
    }
}

#[test]
fn a_host_function_called_straight_agrees_and_others_types_find_nothing() {
    // `count_words` is the only host function of its name with two parameters: a call
    // with its types goes straight to it, with a variable handed first or not; other
    // types take the long way and find no function, with the same error. The variable
    // handed first is untouched either way.
    let src = r#"
fn straight(a) { let n = a; let w = "card"; [count_words(n, w), count_words(a + 1, "die"), n, w] }
fn other_types(a) { let w = "card"; count_words(w, a) }
fn other_type_first(a) { let s = `${a}`; count_words(s, "card") }
fn constant_first(a) { count_words(2, "card") + count_words(a, `x${a}`) }
"#;
    let _ = crate::script::plain_engine();
    assert!(super::host_table().only("count_words", 2).is_some(), "count_words/2 is called straight");
    for f in ["straight", "other_types", "other_type_first", "constant_first"] {
        for a in [0, 1, 3] {
            same(src, f, &[a]);
        }
    }
}

#[test]
fn a_value_moved_at_its_last_use_reads_as_the_interpreters_copy() {
    // Each function reads a list or map at what is, or looks like, its last use: where
    // the interpreter reads in another order than the text, in loops, after shadowing.
    // (Moving any of the first five, or of the last two, would leave unit where the
    // interpreter has a value.)
    let src = r#"
fn g(v) { v }
fn h(p, q) { p.len() * 10 + q.len() }
fn k(v) { v.push(0); v.len() }
fn root(a) { let x = [a, 2]; x.push(x) }
fn op(a) { let x = [a]; x += g(x) }
fn chain(a) { let x = [a, 2]; x[0] = g(x) }
fn by_ref(a) { let x = [a]; h(x, g(x)) }
fn looped(a) { let x = [a]; let n = 0; for i in 0..3 { n += k(x); } n }
fn copied(a) { let x = [a]; let y = x; y.push(1); x.len() * 10 + y.len() }
fn moved(a) { let x = #{ n: a }; let y = x; y.n += 1; y.n }
fn branches(a) { let x = [a]; if a > 1 { k(x) } else { x.len() } }
fn shadowed(a) { let x = [a]; { let x = [9, 9]; k(x); } x }
fn handed(a) { let x = [a, a]; k(x) }
fn text(a) { let s = `n${a}`; let t = s; t += "c"; s + t }
fn returned(a) { let m = #{ a: a }; m.b = [m.a]; m }
fn twice(a) { let x = [a]; [x, x] }
fn rooted(a) { [a, a / 2].contains(a) }
fn indexed(a) { let x = [a, 2]; let i = 1; x[i] = g(i) }
"#;
    let ast = crate::script::compile("moves.rhai", src).expect("the script");
    assert!(not_compiled(&ast).is_empty(), "{:?}", not_compiled(&ast));
    for f in [
        "root", "op", "chain", "by_ref", "looped", "copied", "moved", "branches", "shadowed", "handed", "text",
        "returned", "twice", "rooted", "indexed",
    ] {
        for a in [1, 2] {
            same(src, f, &[a]);
        }
    }
}

#[test]
fn a_block_inside_a_script_calls_arguments_keeps_the_callers_locals() {
    // A block inside an argument declares locals of its own while the arguments before
    // it are already made: it reads the caller's locals, leaves them as they were, and
    // an error in an argument is the interpreter's.
    let src = r#"
fn three(x, y, z) { x * 100 + y * 10 + z }
fn two(x, y) { [x, y] }
fn blocks(a) { let b = a + 1; three(a, { let c = b * 2; let c = c + a; c }, { let d = [b]; d.len() + b }) }
fn nested(a) { let v = [a]; two(v, two({ let w = v.len(); w + a }, three(1, { let q = a; q }, 3))) }
fn looped(a) { two(a, { let n = 0; for i in 0..a { let k = i; n += k; } n }) + [a] }
fn by_ref(a) { let v = [a, a]; two(v, { let v = 7; v + a }) }
fn moved(a) { let v = [a]; let n = two(v, { let t = 1; t }); n }
fn failing(a) { let keep = a * 3; three(1, { let z = keep; z }, if a > 0 { throw "no" } else { keep }) }
fn inner_error(a) { three(a, { let u = [1]; u[a] }, 1) }
"#;
    let ast = crate::script::compile("args.rhai", src).expect("the script");
    assert!(not_compiled(&ast).is_empty(), "{:?}", not_compiled(&ast));
    for f in ["blocks", "nested", "looped", "by_ref", "moved", "failing", "inner_error"] {
        for a in [0, 1, 4] {
            same(src, f, &[a]);
        }
    }
    // The limit on variables counts the caller's locals and the block's, not arguments:
    // `w` is the 1,000th variable in `under` (allowed) and the 1,001st in `at` (an error).
    let lets = |n: usize| (0..n).map(|i| format!("let v{i} = {i}; ")).collect::<String>();
    let src = format!(
        "fn two(x, y) {{ x + y }}\nfn under(a) {{ {} two(a, {{ let w = 1; w }}) }}\nfn at(a) {{ {} two(a, {{ let w = 1; w }}) }}",
        lets(998),
        lets(999)
    );
    let ast = crate::script::compile("limit.rhai", &src).expect("the script");
    assert!(run(Runtime::Rhai, &ast, "under", &[1]).0.starts_with("ok"));
    assert!(run(Runtime::Rhai, &ast, "at", &[1]).0.starts_with("error"));
    for f in ["under", "at"] {
        same(&src, f, &[1]);
    }
}

#[test]
fn a_read_out_of_a_value_the_chain_alone_holds_agrees() {
    // The last step of a chain whose value a call or an expression made is moved out of
    // it, not copied; a chain rooted at a variable copies, and the variable keeps its
    // value, whatever a method call on the way returned.
    let src = r#"
fn make(a) { #{ n: a, list: [a, [a, 2]], inner: #{ k: [a] } } }
fn same_list() { this.list }
fn f(a) {
    let m = make(a);
    let out = [];
    out.push(make(a).list);
    out.push(make(a).list[1]);
    out.push(make(a).inner.k);
    out.push(make(a)["n"]);
    out.push([[a], [a, a]][1]);
    out.push(#{ x: #{ y: [a] } }.x.y);
    out.push(m.list[1]);
    out.push(m.inner.k);
    out.push(m.same_list()[1]);
    out.push(m.keys()[0]);
    out.push(m);
    let r = make(a)?.list?[0];
    out.push(r);
    out
}
fn bad(a) { make(a).list[5] }
fn missing(a) { make(a).missing }
"#;
    let ast = crate::script::compile("owned.rhai", src).expect("the script");
    assert!(not_compiled(&ast).is_empty(), "{:?}", not_compiled(&ast));
    for a in [0, 3] {
        same(src, "f", &[a]);
        same(src, "bad", &[a]);
        same(src, "missing", &[a]);
    }
    // (The function reads all the way through.)
    assert!(run(Runtime::Compiled, &ast, "f", &[3]).0.starts_with("ok"));
}

#[test]
fn chains_read_in_place_agree() {
    // Chains of indexes and properties from a variable or `this` (`this.size[r]`,
    // `m.list[i][j]`, `m[k].n`), read where they lie when every step finds its item, and
    // the long way otherwise: an index out of range or negative, a missing property, a
    // map indexed by a number, an array by text, a string indexed, `?.`; the counts the
    // same, and the operation limit reached inside such a chain stops it where the
    // interpreter stops.
    let src = r#"
fn make(a) { #{ n: a, list: [a, [a, 2, [7, a]]], inner: #{ k: [a, "x"], "two words": a }, text: "héllo" } }
fn sized(r) { this.list[r] }
fn f(a) {
    let m = make(a);
    let keys = ["n", "inner"];
    let out = [];
    for i in [-3, -1, 0, 1, 2] {
        out.push(m.list[1][i]);
    }
    out.push(m.list[1][2][1]);
    out.push(m.list[1][2][-1]);
    out.push(m.inner.k[1]);
    out.push(m.inner["two words"]);
    out.push(m[keys[1]].k);
    out.push(m[keys[0]]);
    out.push(m.text[1]);
    out.push(m.text[-1]);
    out.push(m.sized(1));
    out.push(m.list[1][2]);
    out
}
fn far(a) { make(a).list[1][5 + a] }
fn negative(a) { let m = make(a); m.list[1][-4 - a] }
fn missing(a) { let m = make(a); m.inner.missing[0] }
fn by_number(a) { let m = make(a); m.inner[a] }
fn by_text(a) { let m = make(a); m.list["x"] }
fn through_a_number(a) { let m = make(a); m.n.k }
fn guarded(a) { let m = #{ inner: () }; m.inner?.k }
fn limit(a) { let m = make(a); let t = 0; for i in 0..(a * 1000) { t += m.list[1][2][1] + m.inner.k[0]; } t }
"#;
    let ast = crate::script::compile("in_place.rhai", src).expect("the script");
    assert!(not_compiled(&ast).is_empty(), "{:?}", not_compiled(&ast));
    for a in [0, 3] {
        for name in ["f", "far", "negative", "missing", "by_number", "by_text", "through_a_number", "guarded"] {
            same(src, name, &[a]);
        }
    }
    let out = run(Runtime::Compiled, &ast, "f", &[3]).0;
    assert!(out.starts_with("ok"), "{out}");
    // Around the operation limit: the first value that passes it, and the one before.
    let limit = crate::script::LIMITS.operations as i64;
    for a in [1, 2, limit / 7000, limit / 7000 + 1, limit / 6000] {
        same(src, "limit", &[a]);
    }
}

#[test]
fn the_text_and_map_functions_restated_agree() {
    // `keys`, `split`, `starts_with`, `index_of` (of text and of a list), `sub_string`,
    // `contains` of a list and `+` of text and a number, restated in `natives.rs`,
    // against Rhai's own on the edge cases of each.
    let src = r#"
fn f(a) {
    let out = [];
    out.push(#{}.keys());
    out.push(#{ b: 1, a: [a] }.keys());
    for t in ["", "a,b,,c", "abc", ",", "dé,jà,vu", "x, y", ", z"] {
        for d in [",", "", "zz", ", ", "é", "ab", "c"] {
            out.push(t.split(d));
            out.push(t.starts_with(d));
            out.push(t.index_of(d));
        }
        for st in [0, 1, 2, -1, -3, -100, 100, a] {
            out.push(t.sub_string(st));
            for n in [0, 1, 2, -1, 100, a] {
                out.push(t.sub_string(st, n));
            }
        }
    }
    let m = #{ x: a };
    let k = m.keys();
    k.push("y");
    out.push(k);
    out.push(m);
    for t in ["", "No.", "dé"] {
        out.push(t + a);
        out.push(a + t);
        out.push(t + a + " " + (a - 1) + t);
    }
    let keyed = #{};
    keyed["" + a] = a;
    out.push(keyed);
    for l in [[], [1, "a", 2], ["x", "y", "x"], [#{ n: 1 }, 3, [1]], [a, a]] {
        for v in [1, 2, 3, "x", "a", "", a] {
            out.push(l.index_of(v));
            out.push(l.contains(v));
        }
    }
    out
}
// Text joined to numbers until the operation limit, or the text limit, stops it.
fn joined(a) { let s = ""; loop { s = s + a; } }
fn counted(a) { let n = 0; loop { let k = "" + n; n += 1; } }
// A join as the call's last operation: what the meter heard from it is the call's count.
fn last(a) { "" + a }
fn last_first(a) { a + "x" }
fn found(a) { [a, 1].index_of(1) }
fn looked_in_nothing(a) { [].index_of(a) }
"#;
    let ast = crate::script::compile("texts.rhai", src).expect("the script");
    assert!(not_compiled(&ast).is_empty(), "{:?}", not_compiled(&ast));
    for a in [0, 2, -2, i64::MAX, i64::MIN] {
        same(src, "f", &[a]);
    }
    for f in ["joined", "counted", "last", "last_first", "found", "looked_in_nothing"] {
        same(src, f, &[7]);
    }
}

/// The property test run for longer, with fresh seeds: `cargo xtask fuzz [SECONDS]` (or
/// `CROWN_FUZZ_SECONDS=60 cargo test --release -p crown-engine -- --ignored fuzz`).
/// Prints how many programs it ran and what share ended in an error.
#[test]
#[ignore = "long: run by `cargo xtask fuzz`"]
fn fuzz_runtimes() {
    let seconds: u64 = std::env::var("CROWN_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let start_seed: u64 = std::env::var("CROWN_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    });
    let until = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let lent_before = super::call::LENT.with(|n| n.get());
    let (mut programs, mut errors, mut calls) = (0u64, 0u64, 0u64);
    let mut seed = start_seed;
    while std::time::Instant::now() < until {
        errors += compare_program(seed).1;
        calls += ARGS.len() as u64;
        programs += 1;
        seed = seed.wrapping_add(1);
    }
    println!(
        "fuzz: {programs} programs from seed {start_seed}, {calls} calls, {:.0}% ended in an error, {} values lent, \
         all equal",
        100.0 * errors as f64 / calls.max(1) as f64,
        super::call::LENT.with(|n| n.get()) - lent_before
    );
}

/// Both runtimes on the script in the file `CROWN_DIFF_FILE`, `main(1, 2)`: for looking
/// into a difference the fuzzer found.
#[test]
#[ignore = "a tool: CROWN_DIFF_FILE=path cargo test -p crown-engine -- --ignored diff_file"]
fn diff_file() {
    let Ok(path) = std::env::var("CROWN_DIFF_FILE") else { return };
    let src = std::fs::read_to_string(path).expect("the file");
    let ast = crate::script::compile("diff.rhai", &src).expect("it compiles");
    let args: Vec<i64> = std::env::var("CROWN_DIFF_ARGS")
        .map_or_else(|_| vec![1, 2], |s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect());
    println!("interpreter: {:?}", run(Runtime::Rhai, &ast, "main", &args));
    println!("compiled:    {:?}", run(Runtime::Compiled, &ast, "main", &args));
}

#[test]
fn closures_handed_to_list_functions_agree_and_run_compiled() {
    // Crown's own `sort`, `map`, `filter`... call their function on the compiled tier:
    // one parameter or two (with the index), curried values, a reduction's total, maps.
    let src = r#"
fn rank(c) { c % 13 }
fn sorted(a) { let x = [5, 3, a, 1, 14, 27]; x.sort(|p, q| rank(p) - rank(q)); x }
fn sorted_bool(a) { let x = [a, 9, 2, 7]; x.sort(|p, q| p > q); x }
fn ordered(a) { let x = [a, 9, 2]; let y = x.order(|p, q| p - q); let z = x.order_by_key(|v| [v % 3, -v]); x.sort_by_key(|v, i| v * i); [x, y, z] }
fn mapped(a) { [1, 2, a].map(|v| v * 2) + [4, 5].map(|v, i| v * i) }
fn filtered(a) { let least = a; [1, 5, 3, 8].filter((|least, v| v >= least).curry(least)) }
fn filtered_index(a) { [1, 5, 3, 8].filter((|a, v, i| v > i + a).curry(a)) }
fn reduced(a) { [[1, 2, 3].reduce(|s, v| s + v, a), [1, 2, 3].reduce(|s, v| v + (s ?? 0)), [1, 2].reduce_rev(|s, v, i| `${s}${v}${i}`, "")] }
fn searched(a) {
    let x = [4, 7, a, 10];
    [x.some(|v| v > 8), x.all(|v| v > 0), x.index_of((|a, v| v == a).curry(a)), x.index_of(|v| v > 5, 2), x.index_of(|v| v > 5, -1),
     x.find(|v| v > 5), x.find(|v| v > 50), x.find_map(|v| if v > 6 { v * 10 } else { () })]
}
fn kept(a) { let x = [1, 2, 3, 4, a]; let gone = x.retain(|v| v % 2 == 0); let y = [1, 2, 3, a]; let d = y.drain(|v| v > 2); [x, gone, y, d] }
fn deduped(a) { let x = [1, 1, 2, a, a, 3]; x.dedup(|p, q| p == q); x }
fn on_maps(a) { let m = #{ x: 1, y: a }; [m.map(|k, v| `${k}=${v}`), m.filter(|k, v| v > 1)] }
fn called(a) { let g = |x| x * 2; let h = (|k, x| x + k).curry(10); [g.call(a), call(g, a), h.call(a), call(h, a), Fn("rank").call(a + 13)] }
fn curried(a) { let g = |p, q, r| p * 100 + q * 10 + r; let h = curry(g, a, 2); let k = h.curry(3); k.call() }
fn by_name(a) { let x = [1]; call(Fn("push"), x, a); x }
fn wrong_count(a) { let g = |x| x; g.call(a, a) }
fn not_a_pointer(a) { let z = a; z.curry(1) }
fn not_a_pointer_call(a) { call(a, 1) }
"#;
    let ast = crate::script::compile("lists.rhai", src).expect("the script");
    assert!(not_compiled(&ast).is_empty(), "every function runs compiled: {:?}", not_compiled(&ast));
    for f in [
        "sorted",
        "sorted_bool",
        "ordered",
        "mapped",
        "filtered",
        "filtered_index",
        "reduced",
        "searched",
        "kept",
        "deduped",
        "on_maps",
        "called",
        "curried",
        "by_name",
        "wrong_count",
        "not_a_pointer",
        "not_a_pointer_call",
    ] {
        for a in [0, 3, 8] {
            same(src, f, &[a]);
        }
    }
}

#[test]
fn errors_inside_list_functions_stop_the_script_at_their_line() {
    // Rhai's own `sort` turned a failing comparison into an order; Crown's stops with the
    // error, under both runtimes alike, and so do a comparison or predicate returning
    // something else, and one that runs past the operation limit.
    let src = r#"
fn throws(a) { let x = [3, 1, 2]; x.sort(|p, q| { throw "boom" }); x }
fn text_order(a) { let x = [3, 1, 2]; x.sort(|p, q| "less"); x }
fn runaway(a) { let x = [3, 1, 2]; x.sort(|p, q| { loop { } }); x }
fn deep(a) { let x = [3, 1, 2]; x.sort(|p, q| deep(p)); x }
fn not_a_truth(a) { [1, 2].filter(|v| v) }
fn map_error(a) { [1, 0].map(|v| 10 / v) }
fn dedup_error(a) { let x = [1, 1]; x.dedup(|p, q| p.nope()); x }
fn constant(a) { const X = [2, 1]; X.sort(|p, q| p - q); X }
fn mixed_keys(a) { [1, 2, a].order_by_key(|v| if v > 1 { `${v}` } else { v }) }
fn runaway_key(a) { let x = [3, 1, 2]; x.sort_by_key(|v| { loop { } }); x }
"#;
    // Every function of the source, each of which must fail.
    for f in src.lines().filter_map(|l| l.strip_prefix("fn ")?.split('(').next()) {
        same(src, f, &[1]);
        let ast = crate::script::compile("diff.rhai", src).unwrap();
        let (out, _) = run(Runtime::Compiled, &ast, f, &[1]);
        assert!(out.starts_with("error"), "{f} fails: {out}");
    }
}

#[test]
fn strings_compared_indexed_and_the_variable_limit_in_a_for_loop_agree() {
    // Three changes to the compiled tier once went unnoticed: `>=` on equal strings, a
    // negative string index, and the variable limit reached inside a `for` loop.
    let src = r#"
fn compare(a) { let s = `x${a}`; let t = `x${a}`; let u = "y"; [s >= t, s <= t, s > t, s < t, s == t, s != t, s >= u, s < u, u > s] }
fn chars(a) { let s = "abcdef"; [s[-3], s[-1], s[a], s[-6]] }
fn char_out(a) { let s = "abc"; s[-4 - a] }
fn char_past(a) { let s = "abc"; s[3 + a] }
fn chars_compared(a) { let c = "abc"[a % 3]; [c >= 'b', c < 'b', c == 'a'] }
fn sliced(a) { let s = "abcdef"; [s.sub_string(a, 2), s.sub_string(-2), s.sub_string(1..3), s.sub_string(2..=10)] }
fn listed(a) { let x = [1, 2, 3]; [x[-1], x[-3], x.extract(a), x.extract(-2, 1)] }
fn list_out(a) { let x = [1, 2, 3]; x[-4 - a] }
"#;
    for f in ["compare", "chars", "char_out", "char_past", "chars_compared", "sliced", "listed", "list_out"] {
        for a in [0, 1, 2] {
            same(src, f, &[a]);
        }
    }
    // 997 variables, then a `for` loop declares the 998th and 999th (its variable and
    // counter): allowed; at 998 and 999 before the loop, the loop's second passes the limit.
    for before in [996, 997, 998, 999] {
        let mut body = String::new();
        for i in 0..before {
            body.push_str(&format!("let v{i} = {i};\n"));
        }
        let src = format!("fn f(a) {{\n{body}let n = 0;\nfor (x, i) in [1, 2] {{ n += x + i; }}\nn + a\n}}");
        same(&src, "f", &[1]);
    }
}

/// How often the calls of `name` in `ast` were answered from memory on this thread.
fn answered(ast: &AST, name: &str) -> (u32, bool) {
    let p = super::program(ast);
    let i = (0..p.fns.len()).find(|&i| p.fns[i].name == name).expect("the function");
    let r = p.fns[i].memo.get();
    (r.answered(), r.off())
}

#[test]
fn remembered_calls_count_reach_and_stop_as_the_calls_would() {
    let src = r#"
fn sum_to(x) { let n = 0; for i in 0..x { n += i; } n }
fn suits() { ["clubs", "diamonds", "spades", "hearts"] }
fn order(c) { suits().index_of(suits()[c % 4]) * 100 + sum_to(c % 7) }
fn sorted(a) { let x = [9, 3, 7, 1, 8, 2, 6, 4, 5, 0]; x.sort((|a, p, q| order(p + a) - order(q + a)).curry(a)); x }
fn many(a) { let t = 0; for k in 0..300 { t += sum_to(k % 5 + a); } t }
fn runaway(a) { let t = 0; loop { t += sum_to(a + 3); } }
fn d(n) { if n == 0 { 0 } else { d(n - 1) + 1 } }
fn down(k, n) { if k == 0 { d(n) } else { down(k - 1, n) } }
fn deep(a) { d(20) + down(a, 20) }
fn fresh(a) { let t = 0; for k in 0..200 { t += sum_to(k); } t }
fn capped(a) { min(a, sum_to(5)) }
fn many_capped(a) { let t = 0; for k in 0..100 { t += capped(k % 3 + a); } t }
fn upto(n) { let x = []; for i in 0..n { x.push(i); } x }
fn evens(n) { upto(n * 40).filter(|x| x % 2 == 0).map(|x| x * 3).len() }
fn sorted_evens(n) { let x = upto(n * 9); x.sort(|p, q| q % 7 - p % 7); x.filter(|v| v % 2 == 0)[0] }
fn many_evens(a) { let t = 0; for k in 0..200 { t += evens(k % 5 + a) + sorted_evens(k % 3 + a); } t }
fn runaway_evens(a) { let t = 0; loop { t += evens(a + 3); } }
fn heavy(n) { [n].map(|x| { let t = 0; for i in 0..x * 300 { t += i; } t })[0] }
fn runaway_heavy(a) { let t = 0; for i in 0..650000 + a * 1000 { t += 1; } loop { t += heavy(3); } }
"#;
    let ast = crate::script::compile("memo.rhai", src).unwrap();
    for f in ["many", "sorted", "runaway", "fresh", "many_capped", "many_evens", "runaway_evens", "runaway_heavy"] {
        for a in [0, 2] {
            same(src, f, &[a]);
        }
    }
    // Called deeper than before: the first call of `d(20)` went 21 levels down; 30 levels
    // further it is called again and passes the call limit exactly where it would.
    for a in [20, 26, 27, 28, 29, 40] {
        same(src, "deep", &[a]);
    }
    // The remembering is real: the repeated calls were answered from memory...
    with_runtime(Runtime::Compiled, || {
        let _ = call_script_fn(&ast, "many", vec![1.into()]);
        let _ = call_script_fn(&ast, "sorted", vec![1.into()]);
        let _ = call_script_fn(&ast, "fresh", vec![1.into()]);
        let _ = call_script_fn(&ast, "many_capped", vec![1.into()]);
        let _ = call_script_fn(&ast, "many_evens", vec![1.into()]);
    });
    // (Calls whose closures a host function called back, too.)
    assert!(answered(&ast, "evens").0 > 150, "evens answered {:?}", answered(&ast, "evens"));
    assert!(answered(&ast, "sorted_evens").0 > 150, "sorted_evens answered {:?}", answered(&ast, "sorted_evens"));
    // (A function ending in a standard function the engine resolves, `min`, too.)
    assert!(answered(&ast, "capped").0 > 90, "capped answered {:?}", answered(&ast, "capped"));
    assert!(answered(&ast, "sum_to").0 > 200, "sum_to answered {:?}", answered(&ast, "sum_to"));
    assert!(answered(&ast, "suits").0 > 0 && answered(&ast, "order").0 > 0);
    // ...and a function whose calls are rarely repeated is no longer tried.
    let ast = crate::script::compile("memo.rhai", src).unwrap();
    with_runtime(Runtime::Compiled, || {
        let _ = call_script_fn(&ast, "fresh", vec![1.into()]);
    });
    assert_eq!(answered(&ast, "sum_to"), (0, true));
}

/// Answers built on the fixtures of the table hold while cards and pieces move: what cards
/// show (`value`, `kind_of`, `name_of`...) until a card's face changes (a stage turned, a
/// side, a sticker, a mark, a card made), how the board is laid out (`spaces`,
/// `space_attr`, `adjacent`...) until a tile is laid. Both runtimes give the same values
/// and counts, and the calls between the changes were answered from memory.
#[test]
fn answers_about_cards_last_until_a_face_changes() {
    let src = r#"
fn worth(c) { value_or(c, "grain", 0) * 100 + value_or(c, "defence", 0) * 10 + mark(c, "hp") }
fn label(c) { `${name_of(c)} (${kind_of(c)}, ${stickers(c).len()} stickers, ${side(c)} ${face_up(c)})` }
fn look(cs) { cs.map(|c| `${worth(c)} ${label(c)}`) }
fn main(a) {
    let here = zone("z");
    let there = zone("loose");
    let f = create_card("farm", here);
    let w = create_card("wall", here);
    let seen = [];
    for i in 0..3 {
        seen += look([f, w]);
        move_card(f, if i % 2 == 0 { there } else { here });
        seen += look([f, w]);
    }
    set_stage(f, "back-top");
    seen += look([f, w]);
    add_sticker(f, "grain");
    seen += look([f, w]);
    set_side(w, "back");
    seen += look([f, w]);
    set_mark(w, "hp", a);
    seen += look([f, w]);
    set_face_up(w, false);
    seen += look([f, w]);
    let g = create_card("farm", here);
    seen += look([f, w, g]);
    seen
}
fn grassy() { spaces().filter(|s| space_attr(s, "terrain") != "").len() }
fn castles() { spaces().filter(|s| space_attr(s, "kind") == "castle").map(|s| `${space_name(s)} by ${adjacent(s).len()}`) }
fn survey() { `${grassy()} ${castles()} ${count_at(space("keep"))} ${space_value(space("keep"), "order")}` }
fn hp(k) { piece_get(k, "hp") }
fn occupied() { spaces().filter(|s| count_at(s) > 0).len() }
fn owned(p) { spaces().filter((|p, s| pieces_at(s).filter((|p, k| piece_owner(k) == p).curry(p)).len() > 0).curry(p)).len() }
fn walk(a) {
    let seen = [];
    let b = board(0, "realm");
    let d = create_card("domino", zone("tiles"));
    for i in 0..3 {
        seen.push(survey());
        place("knight", space(if i % 2 == 0 { "keep" } else { "gate" }), 0);
        seen.push(`${occupied()} ${owned(0)} ${owned(1)}`);
        // A card's face changing leaves the layout as it was.
        set_mark(d, "seen", i);
        add_space_value(space("keep"), "order", a);
        seen.push(`${occupied()} ${owned(0)} ${owned(1)}`);
        seen.push(survey());
    }
    let k = pieces_at(space("keep"))[0];
    set_piece_owner(k, 1);
    seen.push(`${occupied()} ${owned(0)} ${owned(1)}`);
    add_space_value(space("gate"), "order", a);
    seen.push(`${occupied()} ${owned(0)} ${owned(1)}`);
    move_piece(k, space("gate"));
    seen.push(`${occupied()} ${owned(0)} ${owned(1)}`);
    seen.push(`${hp(k)}`);
    piece_set(k, "hp", 2);
    seen.push(`${occupied()} ${owned(0)} ${owned(1)} ${hp(k)}`);
    return_piece(k);
    seen.push(`${occupied()} ${owned(0)} ${owned(1)}`);
    place_tile(b, d, placements(b, d, #{ touching: true })[0]);
    seen.push(survey());
    seen
}
"#;
    let ast = crate::script::compile("faces.rhai", src).unwrap();
    let play = |r: Runtime| on_fixture_game(r, &ast, "main", &[4]);
    let a = play(Runtime::Rhai);
    let b = play(Runtime::Compiled);
    assert!(a.0.starts_with("ok") && a.0.contains("Mill") && a.0.contains("Rubble"), "{}", a.0);
    assert_eq!(a, b, "the runtimes differ (left: interpreter, right: compiled)");
    assert!(answered(&ast, "worth").0 >= 4, "worth answered {:?}", answered(&ast, "worth"));
    assert!(answered(&ast, "label").0 >= 4, "label answered {:?}", answered(&ast, "label"));
    let play = |r: Runtime| on_fixture_game(r, &ast, "walk", &[2]);
    let a = play(Runtime::Rhai);
    assert!(a.0.starts_with("ok") && a.0.contains("The Keep by 1"), "{}", a.0);
    assert_eq!(a, play(Runtime::Compiled), "the runtimes differ on the map (left: interpreter, right: compiled)");
    // Answers about the layout last while cards' faces change (a mark set), until a tile is
    // laid.
    assert!(answered(&ast, "grassy").0 >= 5 && answered(&ast, "castles").0 >= 5, "grassy and castles answered");
    // Answers about the pieces last while only numbers on spaces change.
    assert!(answered(&ast, "occupied").0 >= 4, "occupied answered {:?}", answered(&ast, "occupied"));
    assert!(answered(&ast, "owned").0 >= 8, "owned answered {:?}", answered(&ast, "owned"));
}

/// Answers built on the numbers on spaces last while pieces move and counters change,
/// until a number changes or the layout does; a large value is kept when its call did more
/// work than the value has items, and a value past the largest size is not.
#[test]
fn answers_about_numbers_on_spaces_and_large_answers() {
    let src = r#"
fn orders() { let t = 0; for s in spaces() { t += space_value(s, "order") * (s + 1); } t }
fn plan() { let x = []; for s in spaces() { for k in 0..8 { x.push(space_value(s, "order") + k); } } x }
fn huge() { let x = []; for i in 0..5000 { x.push(i); } x }
fn main(a) {
    let seen = [huge()[1], huge()[2]];
    for i in 0..4 {
        seen.push(orders());
        seen.push(plan().len());
        place("knight", space(if i % 2 == 0 { "keep" } else { "gate" }), 0);
        add_counter(0, "gold", 1);
        seen.push(orders());
        seen.push(plan()[3]);
        if i == 2 { add_space_value(space("keep"), "order", a); }
        seen.push(orders());
        seen.push(plan()[3]);
    }
    seen
}
"#;
    let ast = crate::script::compile("values.rhai", src).unwrap();
    let play = |r: Runtime| on_fixture_game(r, &ast, "main", &[5]);
    let a = play(Runtime::Rhai);
    assert!(a.0.starts_with("ok"), "{}", a.0);
    assert_eq!(a, play(Runtime::Compiled), "the runtimes differ (left: interpreter, right: compiled)");
    // Twelve calls of each, one number changed between them: all but the first and the
    // one after the change can be answered (a call whose count would pass the meter's look
    // at the clock runs instead). Were a read of a number a read of the state, the calls
    // after a piece placed or a counter changed would run: six at most.
    assert!(answered(&ast, "orders").0 >= 8, "orders answered {:?}", answered(&ast, "orders"));
    assert!(answered(&ast, "plan").0 >= 8, "plan answered {:?}", answered(&ast, "plan"));
    assert_eq!(answered(&ast, "huge").0, 0, "a value of 5,000 items is not kept");
}

#[test]
fn text_no_one_reads_is_not_made() {
    // Narration and a prompt whose making fails. Where a transcript is kept both runtimes
    // make them (and fail at the same place); where nothing reads them (no transcript, no
    // listener, seats whose agents read no prompts) the compiled tier does not make them,
    // except a prompt that `choose`'s error quotes (no options).
    let src = r#"
fn boom() { throw "made"; }
fn narrate() { log(`x ${boom()}`); log_to(0, `y ${boom()}`); 1 }
fn narrate_seat() { let p = 0; log_to(p, `z ${boom()}`); 1 }
fn ask() { choose(0, `Pick ${boom()}`, ["a", "b"]) }
fn ask_seat() { let p = 1; choose(p, `Pick ${boom()}`, ["a", "b"]) }
fn ask_nothing() { choose(0, `Pick ${boom()}`, []) }
fn plain() { log("kept"); choose(1, "Pick", ["a", "b"]) }
"#;
    let ast = crate::script::compile("text.rhai", src).unwrap();
    let call = |r: Runtime, told: bool, name: &str| {
        let mut game = crate::script::api::fixture_game();
        if !told {
            game.transcript = None;
        }
        let (game, out) = crate::script::api::with_installed(game, || run(r, &ast, name, &[]).0);
        (out, game.transcript.map(|t| t.iter().filter(|l| l.contains("kept") || l.contains("Pick")).count()))
    };
    for name in ["narrate", "narrate_seat", "ask", "ask_seat", "ask_nothing"] {
        for r in [Runtime::Rhai, Runtime::Compiled] {
            let (out, _) = call(r, true, name);
            assert!(out.starts_with("error") && out.contains("made"), "{name} on {r:?}, told: {out}");
        }
        let (out, _) = call(Runtime::Rhai, false, name);
        assert!(out.starts_with("error") && out.contains("made"), "{name} on the interpreter: {out}");
    }
    assert_eq!(call(Runtime::Compiled, false, "narrate").0, "ok 1");
    assert_eq!(call(Runtime::Compiled, false, "narrate_seat").0, "ok 1");
    assert_eq!(call(Runtime::Compiled, false, "ask").0, "ok \"a\"");
    assert_eq!(call(Runtime::Compiled, false, "ask_seat").0, "ok \"a\"");
    let (out, _) = call(Runtime::Compiled, false, "ask_nothing");
    assert!(out.starts_with("error") && out.contains("made"), "an error quoting the prompt makes it: {out}");
    // Plain text where it is read: the same lines on both runtimes.
    assert_eq!(call(Runtime::Rhai, true, "plain"), call(Runtime::Compiled, true, "plain"));
    assert_eq!(call(Runtime::Compiled, true, "plain").1, Some(2));
}

/// The runtime chosen is the one that runs: the differential tests above would pass with
/// both sides on one runtime, so this pins the choice itself. Under `rhai` the compiled
/// tier hands every call back to the interpreter; under `compiled` it runs it; a choice
/// made for this thread is undone when its scope ends, and names are read exactly.
#[test]
fn the_runtime_chosen_is_the_one_that_runs() {
    assert_eq!("compiled".parse::<Runtime>(), Ok(Runtime::Compiled));
    assert_eq!("rhai".parse::<Runtime>(), Ok(Runtime::Rhai));
    for wrong in ["", "Rhai", "interpreter", "compiled "] {
        let e = wrong.parse::<Runtime>().expect_err(wrong);
        assert!(e.contains(&format!("`{wrong}`")) && e.contains("compiled or rhai"), "{e}");
    }
    let ast = crate::script::compile("choice.rhai", "fn f(a) { a + 1 }").expect("the script");
    let args = || vec![rhai::Dynamic::from_int(41)];
    let handed_back = with_runtime(Runtime::Rhai, || super::call_lending(&ast, "f", args(), None));
    assert!(matches!(&handed_back, Err(a) if a.len() == 1 && a[0].as_int() == Ok(41)), "{handed_back:?}");
    let ran = with_runtime(Runtime::Compiled, || super::call_lending(&ast, "f", args(), None));
    assert!(matches!(&ran, Ok(Ok(v)) if v.as_int() == Ok(42)), "{ran:?}");
    // The same through the engine's entry point, on either runtime.
    for r in [Runtime::Rhai, Runtime::Compiled] {
        assert_eq!(run(r, &ast, "f", &[41]).0, "ok 42", "{r:?}");
    }
    let inner = with_runtime(Runtime::Rhai, || (with_runtime(Runtime::Compiled, super::runtime), super::runtime()));
    assert_eq!(inner, (Runtime::Compiled, Runtime::Rhai));
}

/// A chain that reads a built-in getter (Rhai's `len` of a text or a list, a function
/// pointer's `name`) and goes on from its value: the getter's result is the next step's
/// target, on both runtimes, errors included.
#[test]
fn getters_inside_chains_agree() {
    same("fn f(a) { let p = Fn(\"f\"); p.name.len + a }", "f", &[2]);
    same("fn f(a) { let x = [[1, 2], [3]]; x.len + x[0].len * a }", "f", &[3]);
    same("fn f(a) { let s = \"abcd\"; s.len.foo + a }", "f", &[1]);
    same("fn f(a) { let m = #{ s: \"abc\" }; m.s.len * a }", "f", &[4]);
    same("fn f(a) { let m = #{ p: Fn(\"g\") }; m.p.name.len + a }", "f", &[5]);
}

/// Writing through an index: into a value that has none (a number) is an error at the same
/// place on both runtimes; into a text, from either end, sets a character.
#[test]
fn an_index_written_on_a_number_agrees() {
    same("fn f(a) { let x = 5; x[0] = a; x }", "f", &[1]);
    same("fn f(a) { let s = \"abc\"; s[1] = 'x'; s[-1] = 'y'; s + a }", "f", &[1]);
}

/// A host function called as a method on a constant (top-level or local): both runtimes
/// call it on the constant's value.
#[test]
fn a_host_method_on_a_constant_agrees() {
    same("const W = [\"a\", \"b\"];\nfn f(a) {\n    W.words(\"none\") + a\n}", "f", &[1]);
    same("const N = 3;\nfn f(a) {\n    N.count_words(\"card\") + a\n}", "f", &[2]);
    same("fn f(a) { const W = [\"a\", \"b\"]; W.words(\"none\") + a }", "f", &[3]);
}

/// A unary operator the tier does not work out itself (`+n`) calls the operator's function
/// a level down and comes back to the caller's level: many of them in one call leave the
/// call-depth limit where it was.
#[test]
fn unary_operators_leave_the_call_depth_as_they_found_it() {
    same("fn g(a) { a }\nfn f(a) { let n = 0; for i in 0..60 { n += g(+i) + -a; } n }", "f", &[2]);
    same("fn g(a) { if a > 0 { g(a - 1) } else { +a } }\nfn f(a) { let n = +a; g(n) }", "f", &[40]);
}

/// Integer powers at the edge of the exponents Rhai takes (up to `u32::MAX`, which only
/// 0, 1 and -1 survive), and booleans combined in place.
#[test]
fn powers_at_the_largest_exponent_and_booleans_in_place_agree() {
    same("fn f(a) { [a ** 4294967295, (a - 1) ** 4294967295, (-a) ** 4294967295] }", "f", &[1]);
    same("fn f(a) { (a + 1) ** 4294967295 }", "f", &[1]);
    same("fn f(a) { a ** 4294967296 }", "f", &[1]);
    same(
        "fn f(a) { let b = a > 0; let c = b; b ^= true; c ^= a > 5; let d = b; d &= c; d |= !c; [b, c, d] }",
        "f",
        &[3],
    );
}

/// Sizes at the sandbox's limits, counted through lists, maps, texts and blobs inside other
/// values: exactly at a limit passes, one past it fails, at the same place on both runtimes.
#[test]
fn sizes_at_their_limits_agree() {
    // 2 lists + 2 x 9,999 items: 20,000 items in all, the limit; one more is past it.
    same("fn f(a) { let x = [[], []]; x[0].pad(9999, a); x[1].pad(9999, a); x.len() }", "f", &[1]);
    same("fn f(a) { let x = [[], []]; x[0].pad(9999, a); x[1].pad(9999, a); x.push(a); x.len() }", "f", &[1]);
    // Map entries inside a list: 5,000 is the limit.
    same("fn f(a) { let m = #{}; for i in 0..4999 { m[`k${i}`] = a; } let x = [m, #{ z: a }]; x.len() }", "f", &[1]);
    same(
        "fn f(a) { let m = #{}; for i in 0..4999 { m[`k${i}`] = a; } let x = [m, #{ y: a, z: a }]; x.len() }",
        "f",
        &[1],
    );
    // Text inside a map inside a list: 65,536 bytes is the limit.
    same("fn f(a) { let s = \"\"; s.pad(65535, 'x'); let x = [#{ s: s }]; x[0].t = \"y\"; x.len() }", "f", &[1]);
    same("fn f(a) { let s = \"\"; s.pad(65535, 'x'); let x = [#{ s: s }]; x[0].t = \"yz\"; x.len() }", "f", &[1]);
    // A blob inside a list counts its bytes as items.
    same("fn f(a) { let b = blob(3, a); let x = [b, [1, 2]]; x.push(a); x.len() }", "f", &[7]);
    same("fn f(a) { let b = blob(19997, a); let x = [b]; x.push(a); x.len() }", "f", &[7]);
    same("fn f(a) { let b = blob(19998, a); let x = [b]; x.len() }", "f", &[7]);
}

/// A map literal's values are worked out in the order written and land under their own
/// keys, whatever the keys' order: side effects in that order, an error in a later value
/// after the earlier ones ran, a key that sorts first written last, quoted keys, a map at
/// the size limit built by a literal.
#[test]
fn map_literals_fill_every_key_in_the_order_written() {
    let src = r#"
fn note(log, x) { log.push(x); x }
fn f(a) {
    let log = [];
    let m = #{ zeta: log.note(a), alpha: log.note(a * 2), "two words": log.note(`t${a}`), mid: [log.note(3), a] };
    [m, log, m.keys(), m.values()]
}
fn g(a) {
    let log = [];
    let m = #{ z: log.note(1), b: 10 / a, a: log.note(2) };
    m
}
fn h(a) { let s = ""; s.pad(65530, 'x'); #{ b: s, a: "x".pad(a, 'y') } }
"#;
    for a in [0, 1, 5, -2] {
        same(src, "f", &[a]);
        same(src, "g", &[a]);
    }
    for a in [1, 5, 6, 7] {
        same(src, "h", &[a]);
    }
}

/// The sizes after a `push` onto a variable, worked out from the last `push`'s, agree
/// with a whole walk: pushes alone up to each limit and one past it (in both call forms),
/// and every other way the list changes between two pushes (an item's text grown in
/// place, an item replaced, the list padded, handed to a function, assigned anew, moved
/// out, its variable going out of scope and another taking its place), with other lists
/// pushed onto between.
#[test]
fn pushes_count_sizes_as_a_whole_walk_would() {
    // Each function straddles a limit as `a` grows: the first values pass, the last fail.
    let src = r#"
fn grow(list) { list[0].s += "yy"; list }
fn grow_this() { this[0].s += "yy"; }
fn by_method(a) { let x = []; for i in 0..a { x.push(#{ n: i }); } x.len() }
fn by_call(a) { let x = []; for i in 0..a { push(x, [i]); } x.len() }
fn text(a) { let s = ""; s.pad(32764, 'x'); let x = []; x.push(s); x.push(s); let t = ""; t.pad(a, 'z'); x.push(t); x.len() }
fn grown_in_place(a) { let s = ""; s.pad(65533, 'x'); let x = [#{ s: "" }]; x.push(1); x[0].s = s; x[0].s += "abcd".sub_string(0, a); x.push(2); x.len() }
fn replaced(a) { let s = ""; s.pad(65530, 'x'); let x = []; x.push(1); x.push(2); x[0] = s; x[1] = "abcdefgh".sub_string(0, a); x.push(3); x.len() }
fn padded(a) { let x = []; x.push(1); x.pad(19995 + a, 0); x.push(a); x.len() }
fn grown_then_empty(a) { let s = ""; s.pad(32765, 'x'); let x = [s, s]; x.push(1); x[0] += "abcdef"; x.push(""); x.len() }
fn grown_then_one(a) { let s = ""; s.pad(32765, 'x'); let x = [s, s]; x.push(1); x[0] += "abcdef"; x.push("z"); x.len() }
fn handed(a) { let s = ""; s.pad(65529 + a, 'x'); let x = [#{ s: s }]; x.push(1); x = grow(x); x.push(a); x.len() }
fn handed_as_method(a) { let s = ""; s.pad(65529 + a, 'x'); let x = [#{ s: s }]; x.push(1); x.grow_this(); x.push(2); x.len() }
fn assigned(a) { let x = []; x.push(1); x = []; x.pad(19994 + a, 0); x.push(a); x.push(a); x.len() }
fn scoped(a) {
    let n = 0;
    for r in 0..2 {
        let x = [];
        if r == 1 { x.pad(19994 + a, 0); }
        x.push(a);
        x.push(a);
        n += x.len();
    }
    n
}
fn moved(a) { let x = []; x.push(1); let y = x; y.pad(19995 + a, 0); y.push(a); y.len() }
fn side_by_side(a) { let s = ""; s.pad(65530, 'x'); let x = [""]; let y = []; x.push(1); y.push(1); x[0] = s; y.push(2); x.push("abcdefgh".sub_string(0, a)); x.len() }
fn lent(a) { let x = [""]; let y = []; x.push(1); y.push(1); let n = reads(x, y); y.pad(19996 + a, 0); x.push(n); y.push(n); y.len() }
fn reads(x, y) { x.len() + y.len() }
fn five(a) { let p = []; let q = []; let r = []; let s = []; let t = []; p.pad(19990, 0); for i in 0..a { p.push(i); q.push(i); r.push(i); s.push(i); t.push(i); } p.len() }
fn nested(a) { let w = []; let h = []; for i in 0..a { h.push(i); w.push(h); } w.len() }
"#;
    for a in [0, 1, 2, 3, 4, 5, 6, 9] {
        for f in [
            "text",
            "grown_in_place",
            "replaced",
            "padded",
            "handed",
            "handed_as_method",
            "assigned",
            "scoped",
            "moved",
            "side_by_side",
            "lent",
        ] {
            same(src, f, &[a]);
        }
    }
    // Between these two pushes only the list's own variable is touched.
    same(src, "grown_then_empty", &[0]);
    same(src, "grown_then_one", &[0]);
    for a in [4_999, 5_000, 5_001] {
        same(src, "by_method", &[a]);
    }
    for a in [9_999, 10_000, 10_001] {
        same(src, "by_call", &[a]);
    }
    // Five lists pushed onto in turn, more than the sizes kept; lists pushed into a list.
    for a in [9, 10, 11] {
        same(src, "five", &[a]);
    }
    for a in [197, 198, 199] {
        same(src, "nested", &[a]);
    }
}
