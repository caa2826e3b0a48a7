//! Host functions: action menus. A menu is a light list of options built by the rules
//! (`menu()`, `m.add(...)`, `m.offer(...)`) and handed to `choose`. An option's label may
//! be a function, called only when someone reads it: a person at the terminal, a bot that
//! reads labels, or the transcript's line for the option chosen. Bots that pick by
//! position (`random`, `first`) never make the others.

use rhai::{FnPtr, NativeCallContext};

use super::*;

/// A menu of options (a registered type: cheaper to build than an array of maps).
#[derive(Clone, Default)]
pub struct Menu {
    items: Vec<Item>,
    /// Options shown but not offered: each its label and why (`m.unavailable(..)`).
    unavailable: Vec<(String, String)>,
    /// What the options of a kind cost or risk, made for a person only (`m.note(kind, f)`).
    notes: Vec<(ImmutableString, FnPtr)>,
}

/// Whether `v` is something `choose` offers without quoting its prompt in an error: a
/// list or a menu with at least one option.
pub(crate) fn offers_something(v: &Dynamic) -> bool {
    if let Some(a) = v.read_lock::<Array>() {
        return !a.is_empty();
    }
    v.read_lock::<Menu>().is_some_and(|m| !m.items.is_empty())
}

#[derive(Clone)]
struct Item {
    kind: ImmutableString,
    /// The card the option is about, or -1.
    card: i64,
    /// For an option added per card: the card's definition (one option per kind of card).
    def: Option<u32>,
    label: Label,
    /// More fields for the rules (`line`, `worth`...), and `confirm`.
    fields: Map,
}

#[derive(Clone)]
enum Label {
    Text(ImmutableString),
    /// Called with the option (a map of its `kind`, `card` and fields) when the label is read.
    Call(FnPtr),
}

impl Menu {
    /// Whether this kind already offers a card of definition `def`.
    fn offers(&self, kind: &str, def: u32) -> bool {
        self.items.iter().any(|it| it.def == Some(def) && it.kind == kind)
    }

    /// Add card `c` (of definition `def`) unless this kind already offers that definition.
    fn push_card(&mut self, kind: ImmutableString, c: i64, def: u32, label: FnPtr, fields: Map) {
        if !self.offers(&kind, def) {
            self.items.push(Item { kind, card: c, def: Some(def), label: Label::Call(label), fields });
        }
    }

    fn push_text(&mut self, kind: ImmutableString, label: ImmutableString, fields: Map) {
        let same = |it: &Item| matches!(&it.label, Label::Text(l) if *l == label);
        if !self.items.iter().any(same) {
            self.items.push(Item { kind, card: -1, def: None, label: Label::Text(label), fields });
        }
    }
}

/// A menu and the context that can call its label functions.
struct Asked<'a, 'b> {
    ctx: &'a NativeCallContext<'b>,
    menu: &'a Menu,
}

impl Asked<'_, '_> {
    /// Option `i` as the rules get it back: its fields, `kind`, `label`, and `card` (the
    /// card it was added for; else a `card` field, else -1).
    fn value(&self, i: usize, label: Option<&str>) -> Dynamic {
        let it = &self.menu.items[i];
        let mut m = it.fields.clone();
        m.insert("kind".into(), Dynamic::from(it.kind.clone()));
        if let Some(l) = label {
            m.insert("label".into(), Dynamic::from(l.to_string()));
        }
        if it.card >= 0 || !m.contains_key("card") {
            m.insert("card".into(), Dynamic::from(it.card));
        }
        Dynamic::from_map(m)
    }
}

impl Offer for Asked<'_, '_> {
    fn len(&self) -> usize {
        self.menu.items.len()
    }
    fn label(&self, i: usize) -> R<String> {
        let it = &self.menu.items[i];
        match &it.label {
            Label::Text(t) => Ok(t.to_string()),
            Label::Call(f) => {
                let v = crate::script::compiled::call_fn_ptr(self.ctx, f, [self.value(i, None)])?;
                if v.is_string() {
                    Ok(v.to_string())
                } else {
                    Err(format!("a menu label function returned {} where a text was expected", v.type_name()).into())
                }
            }
        }
    }
    fn read(&self) -> R<(Vec<String>, Vec<Dynamic>)> {
        let labels: Vec<String> = (0..self.len()).map(|i| self.label(i)).collect::<R<_>>()?;
        let values = labels.iter().enumerate().map(|(i, l)| self.value(i, Some(l))).collect();
        Ok((labels, values))
    }
    fn values(&self) -> R<Vec<Dynamic>> {
        Ok((0..self.len()).map(|i| self.value(i, None)).collect())
    }
    fn key(&self, i: usize) -> R<Option<String>> {
        Ok(self.menu.items[i].fields.get("key").map(crate::game::agent::key_text).transpose()?)
    }
    fn unavailable(&self) -> &[(String, String)] {
        &self.menu.unavailable
    }
    fn add_notes(&self, options: &mut [Dynamic]) -> R<()> {
        if self.menu.notes.is_empty() {
            return Ok(());
        }
        for (i, o) in options.iter_mut().enumerate() {
            let kind = &self.menu.items[i].kind;
            let Some((_, f)) = self.menu.notes.iter().find(|(k, _)| k == kind) else { continue };
            let note = crate::script::compiled::call_fn_ptr(self.ctx, f, [o.clone()])?;
            if note.is_unit() {
                continue;
            }
            if !note.is_string() {
                return Err(format!(
                    "a menu note function returned {} where a text (or nothing) was expected",
                    note.type_name()
                )
                .into());
            }
            if let Some(mut m) = o.write_lock::<Map>() {
                m.insert("note".into(), note);
            }
        }
        Ok(())
    }
}

fn def_of_card(c: i64) -> R<u32> {
    with(|g| Ok(g.state.cards[cd(g, c)? as usize].def))
}

pub(super) fn register(e: &mut Registrar) {
    e.section("Choices and hooks");
    e.register_type_with_name::<Menu>("Menu");
    e.register_fn(
        "unavailable(menu, label, why)",
        "Show an option a person cannot take now, and why (`m.unavailable(\"Build a wall\", \"needs 2 more \
         wood\")`): listed greyed out after the menu's options, never offered, never seen by bots. In an array of \
         options, a map with an `unavailable` text does the same.",
        |m: &mut Menu, label: ImmutableString, why: ImmutableString| {
            m.unavailable.push((label.to_string(), why.to_string()));
        },
    );
    e.register_fn(
        "menu()",
        "An empty action menu: a light list of options for `choose(p, prompt, menu)`, cheaper to build than an \
         array of maps, whose labels may be functions called only when someone reads them.",
        Menu::default,
    );
    e.register_fn(
        "add(menu, kind, label)",
        "`m.add(\"end\", \"End turn\")`: an option with a fixed label (an option whose label the menu already holds \
         is left out).",
        |m: &mut Menu, kind: ImmutableString, label: ImmutableString| {
            m.push_text(kind, label, Map::new());
        },
    );
    e.register_fn(
        "add(menu, kind, label, fields)",
        "The same with a map of more fields the chosen option carries (`#{ line: l, worth: 3 }`).",
        |m: &mut Menu, kind: ImmutableString, label: ImmutableString, fields: Map| {
            m.push_text(kind, label, fields);
        },
    );
    e.register_fn(
        "add(menu, kind, label, fields)",
        "The label may be a function of the option, made only when read: `m.add(\"target\", |o| `Attack \
         ${name_of(o.line)}`, #{ line: l })` (such options are never merged: give each its own reading).",
        |m: &mut Menu, kind: ImmutableString, label: FnPtr, fields: Map| {
            // A label made when read: never merged with another option (its text is not known).
            let card = fields.get("card").and_then(|c| c.as_int().ok()).unwrap_or(-1);
            m.items.push(Item { kind, card, def: None, label: Label::Call(label), fields });
        },
    );
    e.register_fn(
        "add_numbered(menu, kind, label, fields)",
        "As `add`, but a label the menu already holds is numbered instead of left out (`Fire Archers from your Land \
         (2)`): for options that are distinct though they read the same.",
        |m: &mut Menu, kind: ImmutableString, label: ImmutableString, fields: Map| {
            // `Fire Archers from your Land`, then `... (2)`, `... (3)` for more of the same.
            let held = |l: &str| m.items.iter().any(|it| matches!(&it.label, Label::Text(t) if t.as_str() == l));
            let mut text = label.to_string();
            let mut k = 1;
            while held(&text) {
                k += 1;
                text = format!("{label} ({k})");
            }
            m.push_text(kind, text.into(), fields);
        },
    );
    e.register_fn(
        "add_card(menu, kind, c, label_fn)",
        "`m.add_card(\"play\", c, |o| `Play ${name_of(o.card)}`)`: an option about card `c`, labelled by \
         `label_fn(option)` only when read (the option is a map of its `kind`, `card` and fields); one option per \
         kind and card definition (a second copy of a card already offered is left out).",
        |m: &mut Menu, kind: ImmutableString, c: i64, label: FnPtr| -> R<()> {
            let def = def_of_card(c)?;
            m.push_card(kind, c, def, label, Map::new());
            Ok(())
        },
    );
    e.register_fn(
        "add_card(menu, kind, c, label_fn, fields)",
        "The same with a map of more fields the option carries (`#{ cost: 0, ends_turn: true }`).",
        |m: &mut Menu, kind: ImmutableString, c: i64, label: FnPtr, fields: Map| -> R<()> {
            let def = def_of_card(c)?;
            m.push_card(kind, c, def, label, fields);
            Ok(())
        },
    );
    e.register_fn(
        "offer(menu, kind, cards, hook, args, label_fn)",
        "For each card of `cards` (one per definition), call the card's `hook(args..., c)` and add the card (as \
         `add_card`) when it returns true; a card whose script lacks the hook is left out. `m.offer(\"play\", \
         cards(hand(p)), \"can_play\", [p], |o| `Play ${name_of(o.card)}`)`.",
        |m: &mut Menu,
         kind: ImmutableString,
         cards: Array,
         hook: ImmutableString,
         args: Array,
         label: FnPtr|
         -> R<()> {
            for x in cards {
                let c = x.as_int().map_err(|t| format!("offer: cards are card ids, not {t}"))?;
                let def = def_of_card(c)?;
                if m.offers(&kind, def) {
                    continue;
                }
                let Some(ast) = with(|g| target_fn(g, &Dynamic::from(c), &hook))? else {
                    continue;
                };
                let mut a = args.clone();
                a.push(Dynamic::from(c));
                let ok = nested_call(&ast, &hook, a)?;
                if ok.as_bool().map_err(|t| format!("offer: `{hook}` returned {t} where true or false was expected"))? {
                    m.push_card(kind.clone(), c, def, label.clone(), Map::new());
                }
            }
            Ok(())
        },
    );
    e.register_fn(
        "note(menu, kind, note_fn)",
        "`m.note(\"target\", |o| `defended by ${defences(o.line)}`)`: what each option of `kind` costs or risks, \
         made by `note_fn(option)` only for a person (the terminal prints it under the option, the browser beneath \
         its button, `preview` above what changes); bots never make it. It may return `()` for no note. An option \
         map says the same with a `note` text.",
        |m: &mut Menu, kind: ImmutableString, f: FnPtr| {
            // One note function a kind: the last one given.
            m.notes.retain(|(k, _)| *k != kind);
            m.notes.push((kind, f));
        },
    );
    e.register_fn(
        "ends_turn(menu)",
        "Mark the option added last as ending the seat's turn: the terminal and the browser say so beside it (an \
         option map says the same with `ends_turn: true`).",
        |m: &mut Menu| -> R<()> {
            let last = m.items.last_mut().ok_or("ends_turn: the menu has no option yet")?;
            last.fields.insert("ends_turn".into(), Dynamic::TRUE);
            Ok(())
        },
    );
    e.register_fn(
        "confirm(menu, text)",
        "Give the option added last a question a person at the table must answer yes to before it is taken (bots \
         ignore it).",
        |m: &mut Menu, text: ImmutableString| -> R<()> {
            let last = m.items.last_mut().ok_or("confirm: the menu has no option yet")?;
            last.fields.insert("confirm".into(), Dynamic::from(text));
            Ok(())
        },
    );
    e.register_fn("len(menu)", "How many options the menu holds.", |m: &mut Menu| m.items.len() as i64);
    e.register_fn(
        "labels(menu)",
        "Every option's label, in order (label functions called): for tests and for rules that show a menu.",
        |ctx: NativeCallContext, m: &mut Menu| -> R<Array> {
            let asked = Asked { ctx: &ctx, menu: m };
            (0..asked.len()).map(|i| asked.label(i).map(Dynamic::from)).collect()
        },
    );
    e.register_fn(
        "options(menu)",
        "Every option as `choose` would return it (a map of its `kind`, `card`, `label` and fields), in order: for \
         tests, and for rules that act on an option they pick themselves.",
        |ctx: NativeCallContext, m: &mut Menu| -> R<Array> {
            Ok(Asked { ctx: &ctx, menu: m }.read()?.1.into_iter().collect())
        },
    );
    e.register_fn(
        "choose(p, prompt, menu)",
        "Ask player `p`'s agent to pick from an action menu; returns the chosen option as a map: `kind`, `card` (-1 \
         for none), `label` and the fields it was given. Label functions must not change the game (they run only \
         when someone reads them: a person, the transcript's chosen line, a bot whose scripts read `label`). A \
         greedy bot whose scripts never read `label` gets the options without it.",
        |ctx: NativeCallContext, p: i64, prompt: ImmutableString, m: Menu| -> R<Dynamic> {
            if m.items.is_empty() {
                return Err(format!("choose(\"{prompt}\") was given an empty menu").into());
            }
            let asked = Asked { ctx: &ctx, menu: &m };
            let (i, label) = ask(p, &prompt, &asked)?;
            Ok(asked.value(i, Some(&label)))
        },
    );
}
