//! A person answering a menu at the terminal ([`HumanAgent`]): the numbered options, a
//! number typed for a number choice, a set typed at once for a choice that picks several,
//! answers typed ahead, and the words that ask for something else (handed to the table,
//! [`super::TablePlayer`]).

use std::io::{BufRead, Write};
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::game::agent::{Agent, ChoiceRequest, SetProblem, Several};

/// A person choosing at the terminal: numbered options, re-asked on bad input; a few
/// words ask for something else than an option (see [`HumanAgent::ask`]).
pub struct HumanAgent<R: BufRead + Send, W: Write + Send> {
    pub input: R,
    pub output: W,
    /// Answers typed ahead ("1 1 2": this question's, then the next ones'), taken in turn
    /// by the next menus while they fit them.
    ahead: std::collections::VecDeque<String>,
    /// The rest of a set picked at once (`choose_some`): the labels the next picks take.
    picking: std::collections::VecDeque<String>,
}

impl<R: BufRead + Send, W: Write + Send> HumanAgent<R, W> {
    pub fn new(input: R, output: W) -> Self {
        HumanAgent { input, output, ahead: Default::default(), picking: Default::default() }
    }

    /// Whether `req` is a later pick of a set the person picked at once: answered from
    /// what they typed, without asking or showing anything.
    pub(super) fn picks_on(&self, req: &ChoiceRequest<'_>) -> bool {
        req.several.is_some_and(|s| !s.picked.is_empty())
    }

    /// Whether `label`, taken as the only choice left, is the next pick of a set typed at
    /// once (the last of it): then it is passed over, since the person picked it already.
    pub(super) fn typed_pick(&mut self, label: &str) -> bool {
        let next = self.picking.front().is_some_and(|l| l == label);
        if next {
            self.picking.pop_front();
        }
        next
    }

    /// The next pick of a set typed at once: the next label typed, then the end.
    pub(super) fn next_pick(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let several = req.several.ok_or("internal: not a pick of several")?;
        match self.picking.pop_front() {
            Some(l) => req.labels.iter().position(|x| *x == l).ok_or_else(|| format!("internal: '{l}' is not offered")),
            None => several.done.ok_or_else(|| "internal: fewer were picked than the least".into()),
        }
    }

    /// The first pick of a "pick several" choice: the person types the whole set (their
    /// numbers, in the order they are to be taken), or `none` where none may be picked.
    fn ask_several(
        &mut self,
        req: &ChoiceRequest<'_>,
        several: &Several,
        command: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Result<usize, String> {
        if !self.ahead.is_empty() {
            self.ahead.clear();
            let _ = writeln!(self.output, "(the answers typed ahead are dropped: this question picks several)");
        }
        self.write_menu(req);
        let (n, least, most) = (req.offered(), several.least, several.most);
        let range = if least == most { format!("{least}") } else { format!("{least} to {most}") };
        loop {
            let _ = write!(self.output, "pick {range}> ");
            let _ = self.output.flush();
            let t = self.read_line()?;
            let words: Vec<&str> = t.split([' ', ',']).filter(|w| !w.is_empty()).collect();
            if least == 0 && matches!(t.to_lowercase().as_str(), "none" | "done" | "0") {
                return several.done.ok_or_else(|| "internal: none may be picked but no end is offered".into());
            }
            // Typed from 1; options from 0 (a 0 typed is no option).
            let numbers: Option<Vec<usize>> =
                words.iter().map(|w| w.parse::<usize>().ok().map(|k| k.wrapping_sub(1))).collect();
            let Some(numbers) = numbers.filter(|ns| !ns.is_empty()) else {
                match command(&t.to_lowercase()) {
                    Some(text) => {
                        let _ = writeln!(self.output, "{}", text.trim_end());
                        self.write_menu(req);
                    }
                    None => {
                        let none = if least == 0 { ", or none" } else { "" };
                        let _ = writeln!(
                            self.output,
                            "'{}' is not a set of options: type {range} numbers from 1 to {n} (like 1 3){none}, or {COMMANDS}",
                            crate::out::shown(&t)
                        );
                    }
                }
                continue;
            };
            let problem = match Several::set_problem(&numbers, n, least, most) {
                Some(SetProblem::NoSuchOption(k)) => format!("there is no option {} (1 to {n})", k.wrapping_add(1)),
                Some(SetProblem::Twice(k)) => format!("option {} is picked twice", k + 1),
                Some(SetProblem::Count(c)) => format!("pick {range}, not {c}"),
                None => {
                    self.picking = numbers[1..].iter().map(|&k| req.labels[k].clone()).collect();
                    return Ok(numbers[0]);
                }
            };
            let _ = writeln!(self.output, "{problem}; pick again");
        }
    }

    /// Whether answers typed ahead wait for the next menus.
    pub fn answers_ahead(&self) -> bool {
        !self.ahead.is_empty()
    }
}

/// What the words typed at a menu other than an option ask for.
pub const COMMANDS: &str = "several numbers (1 1 2: this answer, then the next questions' in turn), board (the whole table), status (your state again), log (the last two turns; log N, log all), ?N (what option N names), preview N (what option N would do), compare (every option's preview in one line each), help NAME (a card's text), help";

impl<R: BufRead + Send, W: Write + Send> HumanAgent<R, W> {
    fn read_line(&mut self) -> Result<String, String> {
        match crate::out::read_input_line(&mut self.input) {
            Ok(None) => Err("input ended: the game was abandoned".into()),
            Ok(Some(line)) => Ok(line.trim().to_string()),
            Err(e) => Err(format!("cannot read input ({e}): the game was abandoned")),
        }
    }

    /// The prompt and its numbered options; an option that offers a noble or a leader
    /// has its ability beneath it.
    fn write_menu(&mut self, req: &ChoiceRequest<'_>) {
        if let Some((lo, hi)) = req.number_range() {
            let _ = writeln!(self.output, "{}, {} (a number from {lo} to {hi})", req.player_name, req.prompt);
            return;
        }
        // A pick of several lists the options without the end of the picking.
        let shown = req.offered();
        match req.several {
            Some(s) => {
                let how = match (s.least, s.most) {
                    (l, m) if l == m => format!("pick {l}"),
                    (0, m) => format!("pick up to {m}, or none"),
                    (l, m) => format!("pick {l} to {m}"),
                };
                let _ = writeln!(
                    self.output,
                    "{}, {} ({how}: type their numbers in the order they are taken, like 1 3):",
                    req.player_name, req.prompt
                );
            }
            None => {
                let _ = writeln!(self.output, "{}, {}:", req.player_name, req.prompt);
            }
        }
        if shown > 9 {
            let _ = writeln!(self.output, "  (type a word to see only the options that name it)");
        }
        let mut i = 0;
        while i < shown {
            // A tile's placements on one square, one line: "d13 at c4, facing:  1. north  2. east".
            let group = placement_group(req, i);
            if group.len() > 1 {
                let (head, _) = group[0];
                let facings: Vec<String> =
                    group.iter().enumerate().map(|(k, (_, f))| format!("{:>2}. {f}", i + k + 1)).collect();
                let _ = writeln!(self.output, "  {head}, facing: {}", facings.join("  "));
                i += group.len();
                continue;
            }
            let l = &req.labels[i];
            let ends = if req.ends_turn(i) { "  [ends your turn]" } else { "" };
            let _ = writeln!(self.output, "  {:>2}. {l}{ends}", i + 1);
            if let Some(note) = req.note(i) {
                let _ = writeln!(self.output, "      ({note})");
            }
            if let Some(about) = crate::explain::character_note(req.pack, req.options.get(i)) {
                let _ = writeln!(self.output, "      {about}");
            }
            i += 1;
        }
        // What the rules show but do not offer now, and why.
        for (label, why) in req.unavailable {
            let _ = writeln!(self.output, "   -  {label} (not now: {why})");
        }
    }

    /// Ask the menu of `req`. A line that is neither an option's number nor its label is
    /// handed to `command`; what it returns is shown and the menu asked again (`None`: not
    /// a command either).
    pub fn ask(
        &mut self,
        req: &ChoiceRequest<'_>,
        command: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Result<usize, String> {
        if self.picks_on(req) {
            return self.next_pick(req);
        }
        if let Some(several) = req.several {
            return self.ask_several(req, several, command);
        }
        self.write_menu(req);
        // A number choice is answered with the number itself; a menu with an option's
        // place in it (from 1).
        let (first, last) = req.number_range().unwrap_or((1, req.labels.len() as i64));
        loop {
            let _ = write!(self.output, "choose {first}-{last}> ");
            let _ = self.output.flush();
            let typed_ahead = self.ahead.pop_front();
            let t = match &typed_ahead {
                Some(t) => {
                    let _ = writeln!(self.output, "{t} (typed ahead)");
                    t.clone()
                }
                None => {
                    let line = self.read_line()?;
                    // "1 1 2": this answer, and the next questions' in turn.
                    let numbers: Vec<&str> = line.split_whitespace().collect();
                    if numbers.len() > 1 && numbers.iter().all(|n| n.parse::<i64>().is_ok()) {
                        self.ahead.extend(numbers[1..].iter().map(|n| n.to_string()));
                        numbers[0].to_string()
                    } else {
                        line
                    }
                }
            };
            let picked = match t.parse::<i64>() {
                Ok(n) if (first..=last).contains(&n) => Some((n - first) as usize),
                _ => req.labels.iter().position(|l| l.eq_ignore_ascii_case(&t)),
            };
            if picked.is_none() && typed_ahead.is_some() {
                // The game asked something the answers typed ahead did not foresee.
                self.ahead.clear();
                let _ = writeln!(
                    self.output,
                    "'{}' (typed ahead) is not an option here: the answers typed ahead are dropped; choose again",
                    crate::out::shown(&t)
                );
                continue;
            }
            let Some(i) = picked else {
                match command(&t.to_lowercase()) {
                    Some(text) => {
                        let _ = writeln!(self.output, "{}", text.trim_end());
                        self.write_menu(req);
                    }
                    None => match naming(req, &t) {
                        Some(found) => {
                            let _ = writeln!(self.output, "{found}");
                        }
                        None => {
                            let _ = writeln!(
                                self.output,
                                "'{}' is not an option: type a number from {first} to {last}, or {COMMANDS}",
                                crate::out::shown(&t)
                            );
                        }
                    },
                }
                continue;
            };
            // A choice the rules mark with `confirm` (resigning, passing with actions
            // left) is asked again before it is taken.
            let Some(question) = req.confirm(i) else { return Ok(i) };
            let _ = write!(self.output, "{question} (y/n)> ");
            let _ = self.output.flush();
            let answer = self.read_line()?;
            if matches!(answer.to_lowercase().as_str(), "y" | "yes") {
                return Ok(i);
            }
            let _ = writeln!(self.output, "not taken; choose again");
        }
    }
}

/// The options whose labels name `word` (any case), each with its number, when there are
/// some: how a person finds an option in a long menu. A word of one letter names nothing.
fn naming(req: &ChoiceRequest<'_>, word: &str) -> Option<String> {
    let w = word.trim().to_lowercase();
    if w.chars().count() < 2 || req.number_range().is_some() {
        return None;
    }
    let found: Vec<String> = (0..req.labels.len())
        .filter(|&i| req.labels[i].to_lowercase().contains(&w))
        .map(|i| format!("  {:>2}. {}", i + 1, req.labels[i]))
        .collect();
    (!found.is_empty()).then(|| format!("the options that name '{}':\n{}", crate::out::shown(word), found.join("\n")))
}

/// The placements of one tile on one square that follow option `i` (from `i` on): each
/// its label's head ("d13 at c4") and its facing. Empty when option `i` is no placement.
fn placement_group<'a>(req: &'a ChoiceRequest<'_>, i: usize) -> Vec<(&'a str, String)> {
    let Some(first) = req.placement_head(i) else { return Vec::new() };
    let mut out = vec![first];
    while let Some(next) = req.placement_head(i + out.len()).filter(|(h, _)| *h == out[0].0) {
        out.push(next);
    }
    out
}

impl<R: BufRead + Send, W: Write + Send> Agent for HumanAgent<R, W> {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let _ = writeln!(self.output);
        self.ask(req, &mut |_| None)
    }
    fn hears_only_choices(&self) -> bool {
        true
    }
    fn only_choice(&mut self, _pack: &Arc<Pack>, _player: usize, prompt: &str, label: &str) {
        if self.typed_pick(label) {
            return;
        }
        let sep = if prompt.ends_with(['?', ':']) { "" } else { ":" };
        let _ = writeln!(self.output, "{prompt}{sep} {label} (the only choice)");
    }
    fn kind(&self) -> String {
        "human".into()
    }
}
