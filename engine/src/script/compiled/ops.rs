//! Rhai's built-in operators on the types rules use all the time (integers, booleans,
//! strings, unit), restated from `rhai-1.27.0/src/func/builtin.rs` and the arithmetic
//! package, errors included. Any other operand types go through the engine, which applies
//! its own built-ins or a registered operator function.

use rhai::{Dynamic, EvalAltResult, ImmutableString, Position, Token};

use super::rt::{boolean, character, int, size_check, R};

fn arith(msg: String) -> Box<EvalAltResult> {
    EvalAltResult::ErrorArithmetic(msg, Position::NONE).into()
}

/// `x op y` when Rhai has a built-in for these operands: `None` otherwise.
pub(crate) fn binary(op: &Token, x: &Dynamic, y: &Dynamic) -> Option<R<Dynamic>> {
    use Token::*;
    if let (Some(a), Some(b)) = (int(x), int(y)) {
        return Some(match op {
            Plus => {
                a.checked_add(b).map(Dynamic::from_int).ok_or_else(|| arith(format!("Addition overflow: {a} + {b}")))
            }
            Minus => {
                a.checked_sub(b).map(Dynamic::from_int).ok_or_else(|| arith(format!("Subtraction overflow: {a} - {b}")))
            }
            Multiply => a
                .checked_mul(b)
                .map(Dynamic::from_int)
                .ok_or_else(|| arith(format!("Multiplication overflow: {a} * {b}"))),
            Divide if b == 0 => Err(arith(format!("Division by zero: {a} / {b}"))),
            Divide => {
                a.checked_div(b).map(Dynamic::from_int).ok_or_else(|| arith(format!("Division overflow: {a} / {b}")))
            }
            Modulo => a
                .checked_rem(b)
                .map(Dynamic::from_int)
                .ok_or_else(|| arith(format!("Modulo division by zero or overflow: {a} % {b}"))),
            EqualsTo => Ok(Dynamic::from_bool(a == b)),
            NotEqualsTo => Ok(Dynamic::from_bool(a != b)),
            GreaterThan => Ok(Dynamic::from_bool(a > b)),
            GreaterThanEqualsTo => Ok(Dynamic::from_bool(a >= b)),
            LessThan => Ok(Dynamic::from_bool(a < b)),
            LessThanEqualsTo => Ok(Dynamic::from_bool(a <= b)),
            ExclusiveRange => Ok(Dynamic::from(a..b)),
            InclusiveRange => Ok(Dynamic::from(a..=b)),
            PowerOf => power(a, b).map(Dynamic::from_int),
            LeftShift => Ok(Dynamic::from_int(shift_left(a, b))),
            RightShift => Ok(Dynamic::from_int(shift_right(a, b))),
            Ampersand => Ok(Dynamic::from_int(a & b)),
            Pipe => Ok(Dynamic::from_int(a | b)),
            XOr => Ok(Dynamic::from_int(a ^ b)),
            _ => return None,
        });
    }
    if let (Some(a), Some(b)) = (boolean(x), boolean(y)) {
        return Some(Ok(Dynamic::from_bool(match op {
            EqualsTo => a == b,
            NotEqualsTo => a != b,
            GreaterThan => a & !b,
            GreaterThanEqualsTo => a >= b,
            LessThan => !a & b,
            LessThanEqualsTo => a <= b,
            Ampersand => a & b,
            Pipe => a | b,
            XOr => a ^ b,
            _ => return None,
        })));
    }
    if let (Some(a), Some(b)) = (character(x), character(y)) {
        return Some(Ok(match op {
            Plus => {
                let s: String = [a, b].iter().collect();
                if let Err(e) = size_check((0, 0, s.len()), Position::NONE) {
                    return Some(Err(e));
                }
                Dynamic::from(ImmutableString::from(s))
            }
            EqualsTo => Dynamic::from_bool(a == b),
            NotEqualsTo => Dynamic::from_bool(a != b),
            GreaterThan => Dynamic::from_bool(a > b),
            GreaterThanEqualsTo => Dynamic::from_bool(a >= b),
            LessThan => Dynamic::from_bool(a < b),
            LessThanEqualsTo => Dynamic::from_bool(a <= b),
            _ => return None,
        }));
    }
    if x.is_string() && y.is_string() {
        let a = x.read_lock::<ImmutableString>().expect("a string");
        let b = y.read_lock::<ImmutableString>().expect("a string");
        return Some(Ok(Dynamic::from_bool(match op {
            EqualsTo => *a == *b,
            NotEqualsTo => *a != *b,
            GreaterThan => *a > *b,
            GreaterThanEqualsTo => *a >= *b,
            LessThan => *a < *b,
            LessThanEqualsTo => *a <= *b,
            Plus => {
                if let Err(e) = size_check((0, 0, a.len() + b.len()), Position::NONE) {
                    return Some(Err(e));
                }
                return Some(Ok(Dynamic::from(&*a + &*b)));
            }
            _ => return None,
        })));
    }
    if x.is_unit() && y.is_unit() {
        return Some(Ok(Dynamic::from_bool(match op {
            EqualsTo => true,
            NotEqualsTo | GreaterThan | GreaterThanEqualsTo | LessThan | LessThanEqualsTo => false,
            _ => return None,
        })));
    }
    if special(op, x, y) {
        return None;
    }
    // Any other two different types: never equal, never ordered.
    if x.type_id() != y.type_id() {
        return Some(Ok(Dynamic::from_bool(match op {
            NotEqualsTo => true,
            EqualsTo | GreaterThan | GreaterThanEqualsTo | LessThan | LessThanEqualsTo => false,
            _ => return None,
        })));
    }
    None
}

/// Pairs of types Rhai gives built-in operators of their own not restated here
/// (characters with strings, unit with strings or in ranges, blobs, ranges): the caller
/// has the engine apply them, counting no operation, as Rhai's fast path counts none.
pub(crate) fn special(op: &Token, x: &Dynamic, y: &Dynamic) -> bool {
    use Token::*;
    let compare =
        matches!(op, EqualsTo | NotEqualsTo | GreaterThan | GreaterThanEqualsTo | LessThan | LessThanEqualsTo);
    let range = matches!(op, ExclusiveRange | InclusiveRange);
    let text = |a: &Dynamic| a.is_string() || a.is_char();
    ((x.is_char() && y.is_string() || x.is_string() && y.is_char()) && (compare || matches!(op, Plus)))
        || (x.is_string() && y.is_char() && matches!(op, Minus))
        || ((x.is_unit() && y.is_string() || x.is_string() && y.is_unit()) && (compare || matches!(op, Plus)))
        || ((x.is_unit() && y.is_int() || x.is_int() && y.is_unit()) && range)
        || (x.is_blob() && (y.is_blob() || text(y) || y.is_int()))
        || x.is::<std::ops::Range<i64>>()
        || x.is::<std::ops::RangeInclusive<i64>>()
}

fn power(x: i64, y: i64) -> R<i64> {
    if y > i64::from(u32::MAX) {
        Err(arith(format!("Exponential overflow: {x} ** {y}")))
    } else if y < 0 {
        Err(arith(format!("Integer raised to a negative power: {x} ** {y}")))
    } else {
        x.checked_pow(y as u32).ok_or_else(|| arith(format!("Exponential overflow: {x} ** {y}")))
    }
}

fn shift_left(x: i64, y: i64) -> i64 {
    if y > i64::from(u32::MAX) {
        0
    } else if y < 0 {
        shift_right(x, y.checked_abs().unwrap_or(i64::MAX))
    } else {
        x.checked_shl(y as u32).unwrap_or(0)
    }
}

fn shift_right(x: i64, y: i64) -> i64 {
    if y > i64::from(u32::MAX) {
        x.wrapping_shr(u32::MAX)
    } else if y < 0 {
        shift_left(x, y.checked_abs().unwrap_or(i64::MAX))
    } else {
        x.checked_shr(y as u32).unwrap_or_else(|| x.wrapping_shr(u32::MAX))
    }
}

/// `x op= y` in place when Rhai has a built-in for these operands: `None` otherwise.
pub(crate) fn assign(op: &Token, x: &mut Dynamic, y: &Dynamic) -> Option<R<()>> {
    use Token::*;
    if let (Some(a), Some(b)) = (int(x), int(y)) {
        let base = match op {
            PlusAssign => Plus,
            MinusAssign => Minus,
            MultiplyAssign => Multiply,
            DivideAssign => Divide,
            ModuloAssign => Modulo,
            PowerOfAssign => PowerOf,
            RightShiftAssign => RightShift,
            LeftShiftAssign => LeftShift,
            AndAssign => Ampersand,
            OrAssign => Pipe,
            XOrAssign => XOr,
            _ => return None,
        };
        let r = binary(&base, &Dynamic::from_int(a), &Dynamic::from_int(b))?;
        return Some(r.map(|v| *x.write_lock::<i64>().expect("an integer") = v.as_int().expect("an integer")));
    }
    if let (Some(a), Some(b)) = (boolean(x), boolean(y)) {
        let v = match op {
            AndAssign => a && b,
            OrAssign => a || b,
            XOrAssign => a ^ b,
            _ => return None,
        };
        *x.write_lock::<bool>().expect("a boolean") = v;
        return Some(Ok(()));
    }
    if x.is_string() && y.is_string() && matches!(op, PlusAssign) {
        let b = y.read_lock::<ImmutableString>().expect("a string").clone();
        let mut s = x.write_lock::<ImmutableString>().expect("a string");
        if !s.is_empty() && !b.is_empty() {
            if let Err(e) = size_check((0, 0, s.len() + b.len()), Position::NONE) {
                return Some(Err(e));
            }
        }
        *s += &b;
        return Some(Ok(()));
    }
    None
}

/// Op-assignments Rhai has built in but not restated here (characters and strings mixed,
/// string subtraction, arrays and blobs appended to): the caller has the engine apply
/// them, counting no operation.
pub(crate) fn special_assign(op: &Token, x: &Dynamic, y: &Dynamic) -> bool {
    use Token::*;
    match op {
        PlusAssign => {
            (x.is_char() && (y.is_char() || y.is_string()))
                || (x.is_string() && y.is_char())
                || x.is_array()
                || (x.is_blob() && (y.is_blob() || y.is_int() || y.is_char() || y.is_string()))
        }
        MinusAssign => x.is_string() && (y.is_string() || y.is_char()),
        _ => false,
    }
}

/// An operator on two integers, for a node to try before [`binary`]: `None` where the
/// result is an error (an overflow, a division by zero), which [`binary`] then makes.
pub(crate) type IntOp = fn(i64, i64) -> Option<Dynamic>;

/// The integer form of `op`, chosen when the node is compiled.
pub(crate) fn int_op(op: &Token) -> Option<IntOp> {
    use Token::*;
    Some(match op {
        Plus => |a, b| a.checked_add(b).map(Dynamic::from_int),
        Minus => |a, b| a.checked_sub(b).map(Dynamic::from_int),
        Multiply => |a, b| a.checked_mul(b).map(Dynamic::from_int),
        Divide => |a, b| if b == 0 { None } else { a.checked_div(b).map(Dynamic::from_int) },
        Modulo => |a, b| a.checked_rem(b).map(Dynamic::from_int),
        EqualsTo => |a, b| Some(Dynamic::from_bool(a == b)),
        NotEqualsTo => |a, b| Some(Dynamic::from_bool(a != b)),
        GreaterThan => |a, b| Some(Dynamic::from_bool(a > b)),
        GreaterThanEqualsTo => |a, b| Some(Dynamic::from_bool(a >= b)),
        LessThan => |a, b| Some(Dynamic::from_bool(a < b)),
        LessThanEqualsTo => |a, b| Some(Dynamic::from_bool(a <= b)),
        _ => return None,
    })
}

/// The integer form of an op-assignment (`+=`, `-=`, `*=`), as [`int_op`].
pub(crate) fn int_assign(op: &Token) -> Option<fn(i64, i64) -> Option<i64>> {
    use Token::*;
    Some(match op {
        PlusAssign => i64::checked_add,
        MinusAssign => i64::checked_sub,
        MultiplyAssign => i64::checked_mul,
        _ => return None,
    })
}
