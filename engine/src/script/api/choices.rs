//! Choices: `choose` and the asking of a seat's agent behind every choice (menus too),
//! with the choice recorded; the game is released while the agent decides.

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::args::pl;
use super::failure::FAILURE;
use super::meter::deciding;
use super::reload::maybe_reload;
use super::{with, Registrar, R};
use crate::game::agent::{option_key, ChoiceRequest, Several};
use crate::game::{Choice, ScriptFailure};

/// An option's label (shared with the script's text where it is text: no copy made) and,
/// when the rules show it but it cannot be taken, why (its `unavailable` text: "needs 2
/// more wood"). A map's fields are read in one pass over it, a key told by its length
/// before its letters (every choice reads every option).
fn label_and_reason(opt: &Dynamic) -> Result<(ImmutableString, Option<String>), String> {
    let text = |v: &Dynamic| v.read_lock::<ImmutableString>().map_or_else(|| v.to_string().into(), |s| s.clone());
    if opt.is_map() {
        // Borrow the map in place (a clone would copy every option's fields).
        if let Some(m) = opt.read_lock::<Map>() {
            let (mut label, mut why) = (None, None);
            for (k, v) in m.iter() {
                match k.as_str() {
                    "label" => label = Some(text(v)),
                    "unavailable" => why = Some(v.to_string()),
                    _ => (),
                }
            }
            return label.map(|l| (l, why)).ok_or_else(|| "an option map needs a `label`".to_string());
        }
    }
    Ok((text(opt), None))
}

pub(super) fn register(e: &mut Registrar) {
    e.section("Choices and hooks");
    e.register_fn(
        "choose(p, prompt, options)",
        "Ask player `p`'s agent. Options are strings (their labels) or maps with a `label`; recorded games replay \
         by label, or by the option's `key` (a text or number) when it has one, so a label that shows a changing \
         value (a rank, a count) gives its option a `key`; options sharing a label count as one, and two options \
         may not share a key. Returns the chosen option. A single option is taken without asking. A map's `confirm` \
         text (e.g. on Resign) is asked again, yes or no, before a person at the terminal takes it; bots ignore it. \
         A `space` field (a space id or number, or a list) or a `supply` field (a supply id, or a list) names what \
         on the drawn map a click in the browser takes the option by.",
        choose,
    );
    e.register_fn(
        "choose_some(p, prompt, options, least, most)",
        "Ask player `p`'s agent for `least` to `most` of `options` (labels or maps, as `choose` takes them), and \
         return those picked in the order picked: which pawns harvest, which cards to discard. Asked one pick at a \
         time, each pick a choice of its own among the options not yet picked (recorded, replayed and weighed by \
         bots like any other), with `Done` among them once `least` are picked; the picking ends at `most` or when \
         no option is left. A person picks the whole set at once (`1 3 4` at the terminal, boxes to tick in the \
         browser). `greedy_score` weighs the options, never `Done`, which is worth 0: a greedy bot picks while an \
         option scores above 0. Limits the wrong way round, `least` above the options' count, or an option labelled \
         `Done` are errors.",
        choose_some,
    );
    e.register_fn(
        "choose_number(p, prompt, lo, hi)",
        "Ask player `p`'s agent for a whole number from `lo` to `hi` (both included, at most 10,000 of them): how \
         many armies move, how much to bid. A choice among the numbers, each its own label (`7`), so recordings \
         replay it and bots weigh each number (`greedy_score` gets the number as its option); a person types the \
         number instead of reading a list. A range of one number is taken without asking; an empty range is an \
         error.",
        choose_number,
    );
}

fn choose(p: i64, prompt: ImmutableString, options: Array) -> R<Dynamic> {
    if options.is_empty() {
        return Err(format!("choose(\"{prompt}\") was given no options").into());
    }
    let offer = listed(options)?;
    if offer.labels.is_empty() {
        return Err(
            format!("choose(\"{prompt}\") was given no option that can be taken (every one is unavailable)").into()
        );
    }
    let (i, _) = ask(p, &prompt, &offer)?;
    Ok(offer.options[i].clone())
}

/// `choose_some(p, prompt, options, least, most)`: from `least` to `most` of the options,
/// in the order picked. Asked one pick at a time ([`Several`]): each pick is a choice of
/// its own among the options not yet picked, with [`Several::DONE`] among them once
/// `least` are picked; the picking ends at `most`, or when none is left.
fn choose_some(p: i64, prompt: ImmutableString, options: Array, least: i64, most: i64) -> R<Array> {
    let call = || format!("choose_some(\"{prompt}\", {least}, {most})");
    if least < 0 || most < least {
        return Err(format!("{}: the limits must be 0 <= least <= most", call()).into());
    }
    let all = listed(options)?;
    if all.labels.iter().any(|l| l.as_str() == Several::DONE) {
        return Err(format!(
            "{}: an option is labelled \"{}\", the label of the end of the picking",
            call(),
            Several::DONE
        )
        .into());
    }
    let n = all.labels.len();
    let (least, most) = (least as usize, (most as usize).min(n));
    if least > n {
        let options = if n == 1 { "option" } else { "options" };
        return Err(
            format!("{}: there {} only {n} {options} to pick from", call(), if n == 1 { "is" } else { "are" }).into()
        );
    }
    let mut left: Vec<usize> = (0..n).collect();
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < most {
        let done = (picked.len() >= least).then_some(left.len());
        let mut labels: Vec<ImmutableString> = left.iter().map(|&i| all.labels[i].clone()).collect();
        let mut options: Array = left.iter().map(|&i| all.options[i].clone()).collect();
        if done.is_some() {
            labels.push(Several::DONE.into());
            options.push(Dynamic::from(Several::DONE));
        }
        let several =
            Several { picked: picked.iter().map(|&i| all.labels[i].to_string()).collect(), least, most, done };
        let offer = Listed { labels, options, unavailable: all.unavailable.clone(), several: Some(several) };
        let (i, _) = ask(p, &prompt, &offer)?;
        if Some(i) == done {
            break;
        }
        picked.push(left.remove(i));
    }
    Ok(picked.into_iter().map(|i| all.options[i].clone()).collect())
}

/// A choice's options as offered: options with the same label are the same choice, the
/// first of each kept; options the rules mark `unavailable` are shown to a person, never
/// offered.
fn listed(options: Array) -> R<Listed> {
    let mut labels: Vec<ImmutableString> = Vec::with_capacity(options.len());
    let mut keep: Vec<usize> = Vec::with_capacity(options.len());
    let mut unavailable: Vec<(String, String)> = Vec::new();
    for (i, o) in options.iter().enumerate() {
        let (l, why) = label_and_reason(o)?;
        if let Some(why) = why {
            unavailable.push((l.to_string(), why));
            continue;
        }
        if !labels.contains(&l) {
            labels.push(l);
            keep.push(i);
        }
    }
    let options: Array =
        if keep.len() == options.len() { options } else { keep.iter().map(|&i| options[i].clone()).collect() };
    Ok(Listed { labels, options, unavailable, several: None })
}

/// The most numbers `choose_number` offers (a range this wide is a mistake in the rules).
const MOST_NUMBERS: i64 = 10_000;

/// `choose_number(p, prompt, lo, hi)`: a number from `lo` to `hi`, both included. It is a
/// choice among the numbers (each its own label), which tables show as one number to type
/// ([`crate::game::agent::ChoiceRequest::number_range`]).
fn choose_number(p: i64, prompt: ImmutableString, lo: i64, hi: i64) -> R<i64> {
    if hi < lo {
        return Err(format!("choose_number(\"{prompt}\", {lo}, {hi}): the range is empty ({hi} is below {lo})").into());
    }
    if hi - lo >= MOST_NUMBERS {
        return Err(
            format!("choose_number(\"{prompt}\", {lo}, {hi}): at most {MOST_NUMBERS} numbers may be offered").into()
        );
    }
    let options: Array = (lo..=hi).map(Dynamic::from_int).collect();
    choose(p, prompt, options)?.as_int().map_err(|t| format!("internal: a number choice returned {t}").into())
}

/// What a choice offers: how many options, and their labels and values when an agent
/// reads them (an action menu makes these only then).
pub(in crate::script) trait Offer {
    fn len(&self) -> usize;
    /// Option `i`'s label (for the transcript: the chosen one's).
    fn label(&self, i: usize) -> R<String>;
    /// Every option's label and value (a map with its fields), for agents that read them.
    fn read(&self) -> R<(Vec<String>, Vec<Dynamic>)>;
    /// Every option's value, for agents that read the fields but not the labels' text: an
    /// action menu's label functions are not called, and its options carry no `label`.
    fn values(&self) -> R<Vec<Dynamic>>;
    /// Option `i`'s stable key (its `key` field), if it has one.
    fn key(&self, i: usize) -> R<Option<String>>;
    /// The options shown but not offered, each its label and why it cannot be taken.
    fn unavailable(&self) -> &[(String, String)] {
        &[]
    }
    /// Add each option's `note` (what it costs or risks) to its value, for a person: an
    /// action menu makes its notes only then. Options given as maps carry theirs already.
    fn add_notes(&self, _options: &mut [Dynamic]) -> R<()> {
        Ok(())
    }
    /// When this choice is one pick of several (`choose_some`).
    fn several(&self) -> Option<&Several> {
        None
    }
}

/// Options given as an array of labels or maps (labels made by the script already).
struct Listed {
    labels: Vec<ImmutableString>,
    options: Array,
    unavailable: Vec<(String, String)>,
    /// When this is one pick of several (`choose_some`).
    several: Option<Several>,
}

impl Offer for Listed {
    fn len(&self) -> usize {
        self.labels.len()
    }
    fn label(&self, i: usize) -> R<String> {
        Ok(self.labels[i].to_string())
    }
    fn read(&self) -> R<(Vec<String>, Vec<Dynamic>)> {
        Ok((self.labels.iter().map(ImmutableString::to_string).collect(), self.options.clone()))
    }
    fn values(&self) -> R<Vec<Dynamic>> {
        Ok(self.options.clone())
    }
    fn key(&self, i: usize) -> R<Option<String>> {
        Ok(option_key(&self.options[i])?)
    }
    fn unavailable(&self) -> &[(String, String)] {
        &self.unavailable
    }
    fn several(&self) -> Option<&Several> {
        self.several.as_ref()
    }
}

/// Options read by an agent may not share a key (a recording could not tell them apart).
fn distinct_keys(prompt: &str, options: &[Dynamic]) -> R<()> {
    let mut seen: Vec<String> = Vec::new();
    for o in options {
        if let Some(k) = option_key(o)? {
            if seen.contains(&k) {
                return Err(format!("\"{prompt}\": two options have the key '{k}' (a key names one option)").into());
            }
            seen.push(k);
        }
    }
    Ok(())
}

/// Ask seat `p`'s agent to pick one of `offer`'s options (a single one is taken without
/// asking), record the choice, and return its index and label.
pub(in crate::script) fn ask(p: i64, prompt: &ImmutableString, offer: &dyn Offer) -> R<(usize, String)> {
    let count = offer.len();
    if super::invariants::checking() {
        return Err("an invariant asked for a choice: invariants only look at the table".into());
    }
    // Live reload happens between choices.
    maybe_reload();
    let next = with(|g| Ok(g.state.choices))?;
    if let Err(f) = super::invariants::check(|| format!("before decision {next}")) {
        let msg = f.message.clone();
        FAILURE.with(|slot| {
            slot.borrow_mut().get_or_insert(f);
        });
        return Err(msg.into());
    }
    let (player, step, reads, texts) = with(|g| {
        let player = pl(g, p)?;
        let step = g.state.choices;
        g.state.choices += 1;
        if g.fork_hook.as_ref().is_some_and(|(at, _)| *at == step) {
            if let Some((_, hook)) = g.fork_hook.take() {
                hook(g);
            }
        }
        let agent = g.agents[player].as_ref();
        let reads = count > 1 && agent.is_none_or(|a| a.reads_labels(step));
        let texts = reads && agent.is_none_or(|a| a.reads_label_text(&g.pack, step));
        // A person reads the options' notes too.
        let person = texts && agent.is_some_and(|a| a.reads_notes());
        Ok((player, step, reads, (texts, person)))
    })?;
    let (texts, person) = texts;
    // Labels and fields are made only for an agent that reads them (the game is not
    // borrowed here: an action menu's labels are script functions).
    let (labels, mut options) = match (reads, texts) {
        (true, true) => offer.read()?,
        (true, false) => (Vec::new(), offer.values()?),
        _ => (Vec::new(), Vec::new()),
    };
    if person {
        offer.add_notes(&mut options)?;
    }
    distinct_keys(prompt, &options)?;
    // A person is told of a menu of one option, taken without asking.
    // The game is not borrowed while the person is told: they may be shown the table.
    if count == 1 && with(|g| Ok(g.agents[player].as_ref().is_some_and(|a| a.hears_only_choices())))? {
        let label = offer.label(0)?;
        let (mut a, pack) = with(|g| Ok((g.agents[player].take().ok_or("internal: agent busy")?, g.pack.clone())))?;
        deciding(|| a.only_choice(&pack, player, prompt, &label));
        with(|g| {
            g.agents[player] = Some(a);
            Ok(())
        })?;
    }
    let (agent, pack, name, view, fork) = with(|g| {
        if count == 1 {
            return Ok((None, g.pack.clone(), String::new(), None, None));
        }
        let agent = g.agents[player].take().ok_or("internal: agent busy")?;
        let view = agent.wants_view().then(|| g.view(player));
        // A searching agent gets the turn's fork point and the choices made since.
        let fork = match (agent.wants_fork(), g.fork_point.take()) {
            (true, Some(fp)) => {
                let since: Vec<(u64, String)> =
                    g.choices.iter().skip(fp.choices_before).map(|c| (c.step, c.label.clone())).collect();
                Some((fp, since))
            }
            (_, fp) => {
                g.fork_point = fp;
                None
            }
        };
        Ok((Some(agent), g.pack.clone(), g.state.players[player].name.clone(), view, fork))
    })?;
    let (index, asked) = match agent {
        None => (0, false),
        Some(mut a) => {
            let req = ChoiceRequest {
                step,
                player,
                player_name: &name,
                prompt,
                count,
                labels: &labels,
                options: &options,
                unavailable: if reads { offer.unavailable() } else { &[] },
                pack: &pack,
                fork: fork.as_ref().map(|(fp, since)| (&**fp, since.as_slice())),
                several: offer.several(),
            };
            let r = deciding(|| {
                if let Some(v) = view {
                    a.show(&v);
                }
                a.choose(&req)
            });
            with(|g| {
                g.agents[player] = Some(a);
                if let Some((fp, _)) = fork {
                    g.fork_point.get_or_insert(fp);
                }
                Ok(())
            })?;
            match r {
                Ok(i) if i < count => (i, true),
                Ok(i) => return Err(format!("agent chose option {i} of {count}").into()),
                Err(msg) => {
                    FAILURE.with(|f| {
                        f.borrow_mut().get_or_insert_with(|| ScriptFailure::plain(msg.clone()));
                    });
                    return Err(msg.into());
                }
            }
        }
    };
    let label = match labels.get(index) {
        Some(l) => l.clone(),
        None => offer.label(index)?,
    };
    let key = offer.key(index)?;
    with(|g| {
        g.log(|s| {
            let who = &s.players[player].name;
            if asked {
                format!("choice {step} {who}: {prompt} -> {label}")
            } else {
                format!("choice {step} {who}: {prompt} -> {label} (only option)")
            }
        });
        g.choices.push(Choice { step, player, prompt: prompt.to_string(), label: label.clone(), key, asked });
        Ok(())
    })?;
    Ok((index, label))
}
