//! Host functions: the table as one seat sees it, and layout helpers for the rules'
//! render hooks (`render(viewer)`, `render_status(viewer)`).

use super::*;

pub(super) fn register(e: &mut Registrar) {
    e.section("Table");
    e.register_fn(
        "can_see(viewer, c)",
        "Whether seat `viewer` may read card `c`: it lies (or is attached under a card lying) in a public zone or a \
         zone of the viewer's own the viewer may see, and it is face up or the viewer's. Render hooks use it so \
         that nothing hidden is drawn.",
        |viewer: i64, c: i64| {
            read(|g| {
                let v = pl(g, viewer)?;
                let c = cd(g, c)?;
                Ok(g.can_see(v, c))
            })
        },
    );
    e.register_fn(
        "counter_label(k)",
        "How the pack names counter `k` to people (`counter_names` in pack.toml), else `k`.",
        |k: ImmutableString| read(|g| Ok(g.counter_label(&k).to_string())),
    );
    e.register_fn(
        "counters_text(p, viewer)",
        "Player `p`'s counters as `viewer` sees them: the pack's `show_counters`, `label value` each, `?` for one \
         `p` keeps behind a screen.",
        |p: i64, viewer: i64| {
            read(|g| {
                let p = pl(g, p)?;
                let v = pl(g, viewer)?;
                Ok(g.counters_text(p, v))
            })
        },
    );
    e.register_fn(
        "names_text(cards, viewer)",
        "The cards' names as `viewer` may read them (\"a face-down card\" otherwise), in the order given, repeats \
         folded (`Deny ×2`).",
        |cards: Array, viewer: i64| {
            read(|g| {
                let v = pl(g, viewer)?;
                let mut ids = Vec::with_capacity(cards.len());
                for x in &cards {
                    let c = x.as_int().map_err(|_| format!("names_text: cards are card ids, not {}", x.type_name()))?;
                    ids.push(cd(g, c)?);
                }
                Ok(g.names_text(&ids, v))
            })
        },
    );
    e.register_fn(
        "columns(rows)",
        "Rows (arrays of cells) laid out in aligned columns, one line each.",
        |rows: Array| -> R<String> {
            let mut table = Vec::with_capacity(rows.len());
            for r in rows {
                let cells: Vec<String> = match r.read_lock::<Array>() {
                    Some(a) => a.iter().map(|c| c.to_string()).collect(),
                    None => return Err(format!("columns: each row is an array of cells, not {}", r.type_name()).into()),
                };
                table.push(cells);
            }
            Ok(crate::game::view::columns(&table))
        },
    );
    e.register_fn(
        "count_words(n, word)",
        "A number with its noun, plural unless it is one: `1 card`, `3 cards`, `0 armies`, `2 coaches` (English \
         rules).",
        |n: i64, word: ImmutableString| counted(n, &word, None),
    );
    e.register_fn(
        "count_words(n, word, plural)",
        "The same with the plural given, for any other: `count_words(n, \"Dane\", \"Danes\")`, `count_words(n, \
         \"sheep\", \"sheep\")`.",
        |n: i64, word: ImmutableString, plural: ImmutableString| counted(n, &word, Some(&plural)),
    );
    e.register_fn(
        "words(list)",
        "A list for a sentence: `a`, `a and b`, `a, b and c` (each item as text); \"\" for an empty list.",
        |list: Array| words(&list, "", "and"),
    );
    e.register_fn(
        "words(list, none)",
        "The same, with `none` for an empty list (`words(moved, \"nothing\")`).",
        |list: Array, none: ImmutableString| words(&list, &none, "and"),
    );
    e.register_fn("words_or(list)", "A choice for a sentence: `a`, `a or b`, `a, b or c`.", |list: Array| {
        words(&list, "", "or")
    });
}

pub use crate::diag::count_words;

/// [`count_words`] as a script's text, written in a buffer the thread keeps (a label
/// of a few words is then one allocation, the text itself).
fn counted(n: i64, word: &str, plural: Option<&str>) -> ImmutableString {
    thread_local! {
        static BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUFFER.with_borrow_mut(|b| {
        b.clear();
        crate::diag::write_count_words(b, n, word, plural);
        ImmutableString::from(b.as_str())
    })
}

/// A list for a sentence: `a`, `a and b`, `a, b and c` (`or` for a choice); `none` when
/// it is empty.
fn words(list: &[Dynamic], none: &str, last: &str) -> String {
    let items: Vec<String> = list.iter().map(|x| x.to_string()).collect();
    sentence(&items, none, last)
}

/// [`words`] for Rust callers: `a, b and c`.
pub fn sentence(items: &[String], none: &str, last: &str) -> String {
    match items {
        [] => none.to_string(),
        [one] => one.clone(),
        [head @ .., tail] => format!("{} {last} {tail}", head.join(", ")),
    }
}
