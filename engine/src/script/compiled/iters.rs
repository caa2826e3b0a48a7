//! The iterators Rhai's standard library makes of numbers and text, for a `for` loop's
//! head: `range(from, to, step)` and `range(from..to, step)`, a text's `chars` (whole, from
//! a place, a length, or a range of places) and a number's `bits` (the same forms).
//!
//! Rhai keeps the types these functions return (`StepRange`, `CharsStream`, `BitRange`)
//! and their iterators to itself, so a `for` loop over one cannot be run from the value.
//! The loop's head is still evaluated as written (the call, with its operations counted
//! and its errors, is the engine's own); while it is, the machine keeps the arguments of
//! the last engine call of these names ([`Head`], set in `natives::engine_call`). That
//! call is the head's outermost one, made after its arguments, so when the head's value is
//! one of these types, it was made from those arguments, and the loop walks the same items
//! restated here from Rhai's own definitions (`packages/iter_basic.rs` in Rhai 1.27).

use rhai::{Dynamic, ImmutableString, INT};

/// The engine calls a loop head may end in, and what each makes.
pub(crate) const NAMES: [&str; 5] = ["range", "chars", "bits", "get$chars", "get$bits"];

/// A `for` loop's head under way: the arguments of the last engine call of one of
/// [`NAMES`] (copies, made before the call could take them).
#[derive(Default)]
pub(crate) struct Head {
    pub call: Option<(&'static str, Vec<Dynamic>)>,
}

impl Head {
    /// Keeps the arguments of an engine call named `name`, when it is one of [`NAMES`].
    pub(crate) fn heard(&mut self, name: &str, args: &[&mut Dynamic]) {
        if let Some(n) = NAMES.iter().find(|n| **n == name) {
            self.call = Some((n, args.iter().map(|a| (**a).clone()).collect()));
        }
    }
}

/// The items of `obj`, when it is one of the iterators this module restates and `head`
/// holds the call that made it; `None` otherwise.
pub(crate) fn items(obj: &Dynamic, head: &Head) -> Option<Box<dyn Iterator<Item = Dynamic>>> {
    if !obj.is_variant() {
        return None;
    }
    let (name, args) = head.call.as_ref()?;
    let kind = obj.type_name();
    match (kind.rsplit("::").next()?, *name) {
        ("StepRange<i64>", "range") => {
            let (from, to, step) = match args.as_slice() {
                [a, b, c] => (a.as_int().ok()?, b.as_int().ok()?, c.as_int().ok()?),
                [r, c] => {
                    let r = r.read_lock::<std::ops::Range<INT>>()?;
                    (r.start, r.end, c.as_int().ok()?)
                }
                _ => return None,
            };
            Some(Box::new(StepRange::new(from, to, step).map(Dynamic::from_int)))
        }
        ("CharsStream", "chars" | "get$chars") => {
            let s = args.first()?.read_lock::<ImmutableString>()?.clone();
            let (from, len) = span(&args[1..])?;
            Some(Box::new(chars(&s, from, len).into_iter().map(Dynamic::from_char)))
        }
        ("BitRange", "bits" | "get$bits") => {
            let value = args.first()?.as_int().ok()?;
            let (from, len) = span(&args[1..])?;
            Some(Box::new(bits(value, from, len)?.map(Dynamic::from_bool)))
        }
        _ => None,
    }
}

/// Where a `chars` or `bits` call starts and how many it takes, from the arguments after
/// the text or the number: none (all), a start, a start and a length, or a range.
fn span(rest: &[Dynamic]) -> Option<(INT, INT)> {
    match rest {
        [] => Some((0, INT::MAX)),
        [from] if from.is_int() => Some((from.as_int().ok()?, INT::MAX)),
        [from, len] => Some((from.as_int().ok()?, len.as_int().ok()?)),
        [r] => {
            if let Some(r) = r.read_lock::<std::ops::Range<INT>>() {
                let from = INT::max(r.start, 0);
                let to = INT::max(r.end, from);
                return Some((from, to - from));
            }
            let r = r.read_lock::<std::ops::RangeInclusive<INT>>()?;
            let from = INT::max(*r.start(), 0);
            let to = INT::min(INT::max(*r.end(), from - 1), INT::MAX - 1);
            Some((from, to - from + 1))
        }
        _ => None,
    }
}

/// Rhai's `StepRange` of integers: from `from` towards `to` (never reached) by `step`,
/// ending early where the next value would overflow.
struct StepRange {
    from: INT,
    to: INT,
    step: INT,
    /// 1 forwards, -1 backwards, 0 done.
    dir: i8,
}

impl StepRange {
    /// (A step of 0 is the call's error, so never seen here.)
    fn new(from: INT, to: INT, step: INT) -> StepRange {
        let mut dir = 0;
        if let Some(n) = from.checked_add(step) {
            if from < to && n > from {
                dir = 1;
            } else if from > to && n < from {
                dir = -1;
            }
        }
        StepRange { from, to, step, dir }
    }
}

impl Iterator for StepRange {
    type Item = INT;

    fn next(&mut self) -> Option<INT> {
        if self.dir == 0 {
            return None;
        }
        let v = self.from;
        self.from = self.from.checked_add(self.step)?;
        if (self.dir > 0 && self.from >= self.to) || (self.dir < 0 && self.from <= self.to) {
            self.dir = 0;
        }
        Some(v)
    }
}

/// Rhai's `CharsStream`: `len` characters of `s` from `from` (counted from the end when
/// negative).
fn chars(s: &str, from: INT, len: INT) -> Vec<char> {
    if len <= 0 {
        return Vec::new();
    }
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let skip = if from >= 0 {
        usize::try_from(from).unwrap_or(usize::MAX)
    } else {
        let back = usize::try_from(from.unsigned_abs()).unwrap_or(usize::MAX);
        s.chars().count().saturating_sub(back)
    };
    s.chars().skip(skip).take(len).collect()
}

/// Rhai's `BitRange`: `len` bits of `value` from bit `from` (counted from the top when
/// negative), lowest first; `None` where the call would have failed.
fn bits(value: INT, from: INT, len: INT) -> Option<impl Iterator<Item = bool>> {
    const WIDTH: usize = INT::BITS as usize;
    let from = if from < 0 {
        let back = usize::try_from(from.unsigned_abs()).ok()?;
        WIDTH.checked_sub(back)?
    } else {
        usize::try_from(from).ok().filter(|&f| f < WIDTH)?
    };
    let len = if len < 0 {
        0
    } else {
        match usize::try_from(len) {
            Ok(len) if len.checked_add(from).is_some_and(|x| x <= WIDTH) => len,
            _ => WIDTH - from,
        }
    };
    let value = value >> from;
    Some((0..len).map(move |i| (value >> i) & 1 != 0))
}

#[cfg(test)]
mod tests {
    use super::super::tests::same;

    /// A `for` loop over `range` with a step, a text's `chars` and a number's `bits`, in
    /// every form Rhai has, runs compiled and walks the same items as the interpreter:
    /// forwards, backwards, empty, up to an overflow, a step of zero (the call's error),
    /// negative and out-of-range places and lengths, ranges of places up to the largest
    /// integer, a property (`s.chars`), a head at the end of a longer chain (`m.s.chars()`,
    /// `m.l[0].chars()`), a `break` out of an endless range, the loop's counter, and
    /// arguments of the wrong type (the call's error).
    #[test]
    fn loops_over_ranges_chars_and_bits_run_compiled_and_agree() {
        let src = r#"
fn walk(a) { let out = []; for i in range(0, 10, a) { out.push(i); } out }
fn down(a) { let out = []; for i in range(a, -5, -2) { out.push(i); } out }
fn ranged(a) { let out = []; for i in range(a..12, 3) { out.push(i); } out }
fn edge(a) { let out = []; for i in range(9223372036854775800 + a, 9223372036854775807, 3) { out.push(i); } out }
fn endless(a) { let n = 0; for i in range(0, 9223372036854775807, 1) { if i > a { break; } n += i; } n }
fn counted(a) { let out = []; for (i, k) in range(1, 20, a + 1) { out.push(i * 100 + k); } out }
fn letters(a) { let s = "héllo, wörld"; let out = ""; for c in s.chars() { out += c; out += "|"; } out }
fn from(a) { let out = []; for c in "abcdef".chars(a) { out.push(c); } out }
fn part(a) { let out = []; for c in chars("abcdef", a, 2) { out.push(c); } out }
fn spans(a) { let out = []; for c in "abcdef".chars(a..4) { out.push(c); } for c in "abcdef".chars(1..=a) { out.push(c); } for c in "abcdef".chars(a..=9223372036854775807) { out.push(c); } out }
fn prop(a) { let s = "xyz"; let out = []; for c in s.chars { out.push(c); } for b in a.bits { if b { out.push(1); } } out }
fn bitwise(a) { let out = []; for b in 11.bits(a) { out.push(b); } for b in bits(-1, a, 3) { out.push(b); } for b in 11.bits(1, a) { out.push(b); } out }
fn bitspans(a) { let out = []; for b in 1000.bits(a..6) { out.push(b); } for b in 1000.bits(2..=a) { out.push(b); } out }
fn nested(a) { let m = #{ s: "abc", l: ["de"] }; let out = []; for c in m.s.chars(a) { out.push(c); } for c in m.l[0].chars() { out.push(c); } for b in m.l.len().bits(0, a) { out.push(b); } out }
fn wrong(a) { let out = []; for i in range(0, "x", a) { out.push(i); } out }
fn empty(a) { let n = 0; for i in range(0, a, 1) { } for i in range(a, a, 1) { n += 1; } for i in range(a, a, -1) { n += 1; } n }
"#;
        let ast = crate::script::compile("diff.rhai", src).unwrap();
        assert_eq!(super::super::not_compiled(&ast), []);
        for f in [
            "walk", "down", "ranged", "edge", "endless", "counted", "letters", "from", "part", "spans", "prop",
            "bitwise", "bitspans", "nested", "wrong", "empty",
        ] {
            for a in [-70, -7, -3, -1, 0, 1, 2, 3, 7, 64, 70] {
                same(src, f, &[a]);
            }
        }
    }

    /// A script function named like one of these calls is the script's: the loop over
    /// it runs on the interpreter, as before.
    #[test]
    fn a_script_function_of_the_same_name_is_left_to_the_interpreter() {
        let src = "fn range(a, b, c) { [a, b, c] }\nfn f(a) { let n = 0; for i in range(a, 2, 3) { n += i; } n }";
        let ast = crate::script::compile("diff.rhai", src).unwrap();
        let left: Vec<String> = super::super::not_compiled(&ast).into_iter().map(|f| f.name).collect();
        assert_eq!(left, ["f"]);
        same(src, "f", &[1]);
    }
}
