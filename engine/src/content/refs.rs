//! What a script refers to by name, as data: the function names it calls, the string
//! literals it passes to host functions that take a name, and the kinds of name it reads
//! or writes through a variable. [`crate::script::lint`] collects it from the syntax tree
//! when a script is compiled; the loader's whole-pack checks read it.

use std::collections::BTreeSet;

/// What a string literal passed to a host function names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Names {
    /// A definition id (`def_*`).
    Id,
    /// A value key of a definition, stage or face (`value`, `def_value`).
    ValueKey,
    /// An attribute key of a definition or stage (`attr`, `def_attr`).
    AttrKey,
    /// A keyword (`has_keyword`, `with_keyword`, `def_has_keyword`).
    Keyword,
    /// A deck name that cards list in `decks` (`create_deck`, `defs_in_deck`).
    Deck,
    /// A supply of the board (`supply`, `take`, `give_back`).
    Supply,
    /// A scenario option (`option`, `option_or`).
    OptionKey,
    /// A value of a scenario's seat (`seat_value`).
    SeatValue,
    /// A value or attribute of a board space (`space_value`, `space_attr`).
    SpaceKey,
    /// A per-player counter (`counter`; written by `set_counter`, `add_counter`).
    Counter,
    /// A mark on a card (`mark`; written by `set_mark`, `add_mark`).
    Mark,
    /// A zone (`zone`, `pzone`): zones come into being when named, so a name used once
    /// beside a near one is a likely typo.
    Zone,
    /// A phase of a round that pack.toml's `phases` lists (`set_phase`, `is_phase`).
    Phase,
    /// A function some script of the pack defines, called by name (`invoke`, `fold`).
    Hook,
}

/// A string literal naming something the pack should have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    pub names: Names,
    pub text: String,
    /// The function it is passed to.
    pub function: String,
    /// Whether the call writes the name (sets a counter or a mark).
    pub writes: bool,
    pub line: usize,
    pub col: usize,
}

/// What a script refers to by name, collected once when it is compiled: the names it
/// may call a function by (every function it calls, and every string literal shaped like
/// a name: a hook invoked by name, `invoke(c, "on_play", ...)`), the literals that name
/// what the pack declares, and the kinds of name it also writes or reads through a
/// variable (which the checks then cannot judge).
#[derive(Debug, Clone, Default)]
pub struct References {
    pub names: BTreeSet<String>,
    /// Every string constant of the script, whatever its shape.
    pub strings: BTreeSet<String>,
    pub literals: Vec<Literal>,
    pub dynamic: BTreeSet<Names>,
    /// The kinds of definition the script lists with `defs(kind)` (`*`: a kind given
    /// through a variable).
    pub def_kinds: BTreeSet<String>,
    /// Changes a function makes to an array or map parameter that it never returns: lost
    /// when the function returns, since Rhai passes arguments by value.
    pub lost_changes: Vec<LostChange>,
}

/// A function changing its parameter `param` in place (`param.push(x)`, `param[k] = v`)
/// at `line`:`col` without returning it: the caller's array or map never changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostChange {
    pub function: String,
    pub param: String,
    /// How it is changed (`push`, `[...] =`).
    pub how: String,
    pub line: usize,
    pub col: usize,
}

impl References {
    /// A string constant of the script: among the names when it is shaped like one.
    pub(crate) fn add_string(&mut self, s: &str) {
        if s.chars().all(|c| c.is_alphanumeric() || c == '_') {
            self.names.insert(s.to_string());
        }
        self.strings.insert(s.to_string());
    }
}
