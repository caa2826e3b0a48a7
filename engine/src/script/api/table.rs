//! Host functions: the table as one seat sees it, and layout helpers for the rules'
//! render hooks (`render(viewer)`, `render_status(viewer)`).

use super::*;

pub(super) fn register(e: &mut Registrar) {
    e.register_fn("can_see", |viewer: i64, c: i64| {
        read(|g| {
            let v = pl(g, viewer)?;
            let c = cd(g, c)?;
            Ok(g.can_see(v, c))
        })
    });
    e.register_fn("counter_label", |k: ImmutableString| read(|g| Ok(g.counter_label(&k).to_string())));
    e.register_fn("counters_text", |p: i64, viewer: i64| {
        read(|g| {
            let p = pl(g, p)?;
            let v = pl(g, viewer)?;
            Ok(g.counters_text(p, v))
        })
    });
    e.register_fn("names_text", |cards: Array, viewer: i64| {
        read(|g| {
            let v = pl(g, viewer)?;
            let mut ids = Vec::with_capacity(cards.len());
            for x in &cards {
                let c = x.as_int().map_err(|_| format!("names_text: cards are card ids, not {}", x.type_name()))?;
                ids.push(cd(g, c)?);
            }
            Ok(g.names_text(&ids, v))
        })
    });
    e.register_fn("columns", |rows: Array| -> R<String> {
        let mut table = Vec::with_capacity(rows.len());
        for r in rows {
            let cells: Vec<String> = match r.read_lock::<Array>() {
                Some(a) => a.iter().map(|c| c.to_string()).collect(),
                None => return Err(format!("columns: each row is an array of cells, not {}", r.type_name()).into()),
            };
            table.push(cells);
        }
        Ok(crate::game::view::columns(&table))
    });
    e.register_fn("words", |list: Array| words(&list, "", "and"));
    e.register_fn("words", |list: Array, none: ImmutableString| words(&list, &none, "and"));
    e.register_fn("words_or", |list: Array| words(&list, "", "or"));
    e.register_fn("count_words", |n: i64, word: ImmutableString| count_words(n, &word, None));
    e.register_fn("count_words", |n: i64, word: ImmutableString, plural: ImmutableString| {
        count_words(n, &word, Some(&plural))
    });
}

pub use crate::diag::count_words;

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
