//! The `greedy` bot: the pack's `greedy_score` (in its bots' script, or its rules) ranks
//! the options.

use rhai::Dynamic;

use crate::game::agent::{Agent, ChoiceRequest};
use crate::game::rng::{derive_seed, GameRng};

/// Scores each option with the rules' `greedy_score(player, prompt, option)` and takes the
/// best; ties are broken at random with its own stream. Without `greedy_score` it plays
/// at random.
pub struct GreedyAgent {
    rng: GameRng,
}

impl GreedyAgent {
    pub fn new(game_seed: u64, seat: usize) -> Self {
        GreedyAgent { rng: GameRng::new(derive_seed(game_seed ^ 0x6EED_1000, seat as u64 + 1)) }
    }
}

/// What the scripts of a pack read, worked out by walking their syntax trees once for the
/// process, not once for every bot of every game: kept by the question and the scripts'
/// hashes (an edited script is another key), at most a few hundred answers.
fn remembered(question: &'static str, key: u64, work: impl FnOnce() -> bool) -> bool {
    type Known = std::collections::HashMap<(&'static str, u64), bool>;
    static KNOWN: std::sync::Mutex<Option<Known>> = std::sync::Mutex::new(None);
    if let Some(&v) = KNOWN.lock().ok().as_ref().and_then(|k| k.as_ref()?.get(&(question, key))) {
        return v;
    }
    let v = work();
    if let Ok(mut known) = KNOWN.lock() {
        let known = known.get_or_insert_with(Known::new);
        if known.len() >= 256 {
            known.clear();
        }
        known.insert((question, key), v);
    }
    v
}

/// The rules' `greedy_score(player, prompt, option)` of each option of a choice; `None`
/// when the rules define no `greedy_score`. With a `greedy_plan(player, prompt, options)`,
/// its value, worked out once for the choice, is a fourth argument of every score.
pub fn greedy_scores(req: &ChoiceRequest<'_>) -> Result<Option<Vec<i64>>, String> {
    let Some(rules) = req.pack.bot_hook("greedy_score") else {
        return Ok(None);
    };
    let ast = rules.ast.clone();
    // (The prompt made once, shared by every call.)
    let prompt = Dynamic::from(rhai::ImmutableString::from(req.prompt));
    // What every option of this choice is weighed against, worked out once
    // (`greedy_plan(player, prompt, options)`, optional), then given to each score.
    // One pick of several (`choose_some`): the hooks weigh the options; the end of the
    // picking is worth 0 (a pick is made while one scores above that), and is not theirs
    // to weigh.
    let options = &req.options[..req.offered().min(req.options.len())];
    let mut plan = match req.pack.bot_hook("greedy_plan") {
        Some(s) => {
            let args = vec![Dynamic::from(req.player as i64), prompt.clone(), Dynamic::from_array(options.to_vec())];
            Some(
                crate::script::api::call_script_fn(&s.ast.clone(), "greedy_plan", args)
                    .map_err(|e| failed(&e, &s.ast, "greedy_plan"))?,
            )
        }
        None => None,
    };
    let mut scores = Vec::with_capacity(req.options.len());
    for opt in options {
        // (The plan is lent to each score, where `greedy_score` only reads it.)
        let args = vec![Dynamic::from(req.player as i64), prompt.clone(), opt.clone()];
        let v = crate::script::api::call_script_fn_lending(&ast, "greedy_score", args, plan.as_mut())
            .map_err(|e| failed(&e, &ast, "greedy_score"))?;
        scores.push(v.as_int().map_err(|t| format!("greedy_score returned {t} where an integer was expected"))?);
    }
    scores.resize(req.options.len(), 0);
    Ok(Some(scores))
}

/// A bot hook's error as the rules' errors read: its script's file, line and column, the
/// call chain, and the script's words for types.
fn failed(e: &rhai::EvalAltResult, ast: &rhai::AST, hook: &str) -> String {
    let f = crate::script::api::to_failure_in(e, ast, Some(hook));
    let told = f.to_string();
    crate::script::api::note_failure(f);
    told
}

impl Agent for GreedyAgent {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let Some(scores) = greedy_scores(req)? else {
            return Ok(self.rng.below(req.count as u64) as usize);
        };
        let top = scores.iter().copied().max().unwrap_or(0);
        let best: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == top).collect();
        Ok(best[self.rng.below(best.len() as u64) as usize])
    }
    fn kind(&self) -> String {
        "greedy".into()
    }
    /// Only where `greedy_score` or `greedy_plan` reads its `prompt` parameter (without
    /// `greedy_score` it plays at random and reads nothing).
    fn reads_prompt(&self, pack: &crate::content::Pack, _step: u64) -> bool {
        let Some(score) = pack.bot_hook("greedy_score") else { return false };
        let plan = pack.bot_hook("greedy_plan");
        let key = score.hash.rotate_left(1) ^ plan.map_or(0, |p| p.hash);
        remembered("prompt", key, || {
            crate::script::reads_param(&score.ast, "greedy_score", 1)
                || plan.is_some_and(|p| crate::script::reads_param(&p.ast, "greedy_plan", 1))
        })
    }
    /// Only where some script of the pack reads a field named `label` (the hooks may call
    /// any of them): otherwise the scores cannot depend on the labels' text.
    fn reads_label_text(&self, pack: &crate::content::Pack, _step: u64) -> bool {
        if pack.bot_hook("greedy_score").is_none() {
            return false;
        }
        let key = pack.scripts.iter().fold(0u64, |k, s| k.rotate_left(5) ^ s.hash);
        remembered("label", key, || pack.scripts.iter().any(|s| crate::script::reads_property(&s.ast, "label")))
    }
    fn rng_state(&self) -> Option<String> {
        Some(self.rng.state())
    }
    fn set_rng_state(&mut self, state: &str) -> Result<(), String> {
        self.rng = GameRng::from_state(state)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::GreedyAgent;
    use crate::game::{Game, GameConfig};

    /// In a pick of several (`choose_some`) the greedy bot picks the best option left
    /// while one scores above 0, the worth of `Done`, which `greedy_score` and
    /// `greedy_plan` never see.
    #[test]
    fn greedy_picks_a_set_while_an_option_scores_above_nothing() {
        let pack = crate::script::api::fixture_pack(
            "greedy-several",
            "p",
            &[
                ("content/p/pack.toml", "id = \"p\"\nname = \"P\"\nversion = \"1\"\nplayers = { min = 1, max = 1 }\n"),
                (
                    "scripts/p/rules.rhai",
                    "fn setup() {}\n\
                     fn turn() {\n\
                       let fields = [#{ label: \"Marsh\", v: -1 }, #{ label: \"Mill\", v: 3 }, #{ label: \"Hill\", v: 2 }];\n\
                       let picked = [];\n\
                       for f in choose_some(0, \"Sow which fields?\", fields, 0, 3) { picked.push(f.label); }\n\
                       end_game([0], `${picked}`);\n\
                     }\n",
                ),
                (
                    "scripts/p/bots.rhai",
                    "fn greedy_plan(p, prompt, options) { for o in options { if o.v == () { throw \"not an option\"; } } 0 }\n\
                     fn greedy_score(p, prompt, o, plan) { o.v }\n",
                ),
            ],
        );
        let game = Game::new(pack, GameConfig::new(1, 1), vec![Box::new(GreedyAgent::new(1, 0))]).unwrap();
        let (game, outcome) = game.run();
        assert_eq!(outcome.reason, "[\"Mill\", \"Hill\"]", "{:?}", outcome.status);
        let labels: Vec<&str> = game.choices.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["Mill", "Hill", "Done"]);
    }
}
