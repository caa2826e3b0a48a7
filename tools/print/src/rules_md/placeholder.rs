//! One placeholder, `{{ name ARG... }}`, read from its characters: its name, its bare and
//! `key=value` arguments (a value bare or in double quotes), each with its span.

use std::ops::Range;

use super::{Arg, Placeholder, SyntaxError};

/// A character of the text at its byte offset in the file; `literal` when Markdown took it
/// literally (written after a `\`, as an entity, or inside a code span), so it is never
/// part of Crown's own syntax: `\"` is a quote inside a quoted value, `\{{` two braces.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ch {
    pub c: char,
    pub at: usize,
    pub literal: bool,
}

impl Ch {
    /// Whether this is `c` as syntax (not taken literally).
    pub fn is(&self, c: char) -> bool {
        self.c == c && !self.literal
    }
}

/// `{{ name args }}` from its characters, `{{` and `}}` included; `end` is the offset
/// after `}}`.
pub(super) fn parse_placeholder(chars: &[Ch], end: usize) -> Result<Placeholder, SyntaxError> {
    let start = chars[0].at;
    let inner = &chars[2..chars.len() - 2];
    let off = |k: usize| inner.get(k).map_or(end - 2, |c| c.at);
    let mut k = 0;
    let skip_ws = |k: &mut usize| {
        while *k < inner.len() && inner[*k].c.is_whitespace() {
            *k += 1;
        }
    };
    skip_ws(&mut k);
    let name_start = k;
    while k < inner.len() && (inner[k].c.is_ascii_alphanumeric() || inner[k].c == '-' || inner[k].c == '_') {
        k += 1;
    }
    if k == name_start {
        return Err(SyntaxError::new(start..end, "a placeholder without a name")
            .hint("write `{{ name ... }}`, e.g. `{{ cards kind=\"attack\" }}` or `{{ value pikemen attack }}`"));
    }
    let name: String = inner[name_start..k].iter().map(|c| c.c).collect();
    let name_span = off(name_start)..off(k);
    if k < inner.len() && !inner[k].c.is_whitespace() {
        return Err(SyntaxError::new(
            off(k)..off(k) + inner[k].c.len_utf8(),
            format!("unexpected `{}` after the placeholder's name", inner[k].c),
        ));
    }
    let mut args = Vec::new();
    loop {
        skip_ws(&mut k);
        if k >= inner.len() {
            break;
        }
        let a0 = k;
        let word = |k: &mut usize| {
            let s = *k;
            while *k < inner.len() && !inner[*k].c.is_whitespace() && !inner[*k].is('=') && !inner[*k].is('"') {
                *k += 1;
            }
            (s, *k)
        };
        let quoted = |k: &mut usize| -> Result<(String, Range<usize>), SyntaxError> {
            let q = *k;
            *k += 1;
            let mut v = String::new();
            while *k < inner.len() && !inner[*k].is('"') {
                // Markdown keeps a `\` before a letter or a space; it takes the next
                // character as it is here too.
                if inner[*k].is('\\') && *k + 1 < inner.len() {
                    *k += 1;
                }
                v.push(inner[*k].c);
                *k += 1;
            }
            if *k >= inner.len() {
                return Err(SyntaxError::new(off(q)..off(q) + 1, "a quoted value that is never closed")
                    .hint("end it with `\"` before `}}`"));
            }
            // The value's span leaves the quotes out.
            let span = off(q + 1)..off(*k);
            *k += 1;
            Ok((v, span))
        };
        if inner[k].is('"') {
            let (v, vs) = quoted(&mut k)?;
            args.push(Arg { key: None, value: v, span: off(a0)..off(k), value_span: vs });
            continue;
        }
        let (ws, we) = word(&mut k);
        if ws == we {
            return Err(SyntaxError::new(
                off(k)..off(k) + 1,
                format!("unexpected `{}` in the placeholder", inner[k].c),
            ));
        }
        let w: String = inner[ws..we].iter().map(|c| c.c).collect();
        if k < inner.len() && inner[k].is('=') {
            k += 1;
            if k >= inner.len() || inner[k].c.is_whitespace() {
                return Err(SyntaxError::new(off(a0)..off(k), format!("`{w}=` without a value"))
                    .hint(format!("write `{w}=value` or `{w}=\"a value\"`")));
            }
            let (v, vs) = if inner[k].is('"') {
                quoted(&mut k)?
            } else {
                let (s, e) = word(&mut k);
                (inner[s..e].iter().map(|c| c.c).collect(), off(s)..off(e))
            };
            args.push(Arg { key: Some(w), value: v, span: off(a0)..off(k), value_span: vs });
        } else {
            args.push(Arg { key: None, value: w, span: off(ws)..off(we), value_span: off(ws)..off(we) });
        }
    }
    Ok(Placeholder { name, name_span, args, span: start..end })
}
