//! `crown test`: replay the golden games and report what changed, outcome first;
//! `--review` walks the changes one at a time, `--bless` accepts them all, `--explain`
//! lists the games that involve a definition.

use crown_engine::diag::plural;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use crown_engine::content::Pack;
use crown_engine::load::Project;

use crate::golden::*;
use crate::out::{self, Done, Failure};
use crate::session;

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Packs (by id), games (`pack/name`, as the report names them) or game files to
    /// replay (default: every golden game of the project).
    pub targets: Vec<String>,
    /// Accept the new transcripts of the changed games (atomically); unchanged games are
    /// untouched. With targets, only those games are accepted.
    #[arg(long)]
    pub bless: bool,
    /// Walk the changed games one at a time and accept or skip each.
    #[arg(long, conflicts_with = "bless")]
    pub review: bool,
    /// Show the whole transcript diff of each changed game, not just its first difference.
    #[arg(long)]
    pub diff: bool,
    /// List the golden games whose transcripts involve this definition id, and stop.
    #[arg(long)]
    pub explain: Option<String>,
    /// Lines of context around the first difference (0 to 10,000).
    #[arg(long, default_value_t = 4, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=10_000))]
    pub context: usize,
}

/// Ask on standard input; the first letter of the answer, lowercase (`q` at end of input).
fn ask(question: &str) -> char {
    use std::io::Write;
    print!("{question} ");
    let _ = std::io::stdout().flush();
    match crate::out::read_input_line(&mut std::io::stdin().lock()) {
        Ok(None) | Err(_) => 'q',
        Ok(Some(line)) => line.trim().chars().next().map_or(' ', |c| c.to_ascii_lowercase()),
    }
}

pub fn run(project: &Project, args: &TestArgs) -> Done {
    let cases = match cases_for(project, &args.targets) {
        Ok(c) => c,
        Err(e) => {
            return Err(Failure::usage(e.to_string()));
        }
    };
    if let Some(id) = &args.explain {
        return explain(project, &cases, id);
    }
    if cases.is_empty() {
        eprintln!("no golden games found under {}", project.root.join("tests/golden").display());
        println!("0 passed, 0 failed");
        return Ok(());
    }
    let start = Instant::now();
    let packs = packs_for(project, &cases);
    let verdicts = replay(&cases, &packs, args.context);
    let mut run = Run { edited: edited_since_accepted(project, &packs), ..Run::default() };
    for (case, verdict) in cases.iter().zip(verdicts) {
        run.report(case, verdict, args);
    }
    note_accepted(project, args, &packs, &run.unsettled);
    run.summary(&cases, args, start.elapsed().as_secs_f64());
    out::fail_if(!run.left.is_empty() || !run.broken.is_empty())
}

/// Replay every game, in parallel (each game is independent), its verdict in the order of
/// the games; `None` for a game whose pack does not load.
fn replay(cases: &[Case], packs: &Packs, context: usize) -> Vec<Option<Verdict>> {
    use rayon::prelude::*;
    cases
        .par_iter()
        .map(|case| match packs.get(&case.pack) {
            Some(Ok(pack)) => Some(check_case(case, pack, context)),
            _ => None,
        })
        .collect()
}

/// What each pack's definitions were when its games were last accepted, and what was
/// edited since, by pack.
fn edited_since_accepted(project: &Project, packs: &Packs) -> BTreeMap<String, Vec<(String, String)>> {
    let mut edited = BTreeMap::new();
    for (id, p) in packs {
        if let Ok(p) = p {
            if let Some(old) = accepted::read(&accepted::path(project, id)) {
                edited.insert(id.clone(), accepted::changes(&old, &accepted::state_of(p)));
            }
        }
    }
    edited
}

/// Note what each pack was accepted against when all its games agree (unchanged or
/// accepted); a run over only some of its games says nothing about the others.
fn note_accepted(project: &Project, args: &TestArgs, packs: &Packs, unsettled: &BTreeSet<String>) {
    let whole = targets_whole_packs(&args.targets);
    for (id, p) in packs {
        if let (Ok(p), true, false) = (p, whole, unsettled.contains(id)) {
            let file = accepted::path(project, id);
            match accepted::write(&project.root, &file, &accepted::state_of(p)) {
                Ok(true) => println!("noted what {id}'s golden games were accepted against in {}", file.display()),
                Ok(false) => {}
                Err(e) => println!("warning: cannot write {}: {e}", file.display()),
            }
        }
    }
}

/// What a run has found so far, game by game.
#[derive(Default)]
struct Run {
    unchanged: usize,
    path_only: usize,
    outcome: usize,
    accepted: usize,
    /// The games that could not be replayed, with what to do about each.
    broken: Vec<(String, String)>,
    /// The changed games left unaccepted.
    left: Vec<String>,
    /// The person reviewing the changes quit.
    quit: bool,
    /// What was edited in each pack since its games were last accepted.
    edited: BTreeMap<String, Vec<(String, String)>>,
    /// The packs whose edits were already listed.
    told: BTreeSet<String>,
    /// Packs with a game that is neither unchanged nor accepted.
    unsettled: BTreeSet<String>,
}

impl Run {
    /// Report one game's verdict (`None`: its pack does not load), and count it.
    fn report(&mut self, case: &Case, verdict: Option<Verdict>, args: &TestArgs) {
        let Some(verdict) = verdict else {
            println!("FAIL {}: pack `{}` does not load", case.name, case.pack);
            self.broken.push((case.name.clone(), format!("fix the errors `crown check {}` shows", case.pack)));
            self.unsettled.insert(case.pack.clone());
            return;
        };
        match verdict {
            Verdict::Pass => {
                self.unchanged += 1;
                println!("ok   {}", case.name);
            }
            Verdict::Differs(change) => self.changed(case, &change, args),
            Verdict::Broken { report, fix } => {
                println!("FAIL {}: could not replay: {report}", case.name);
                self.broken.push((case.name.clone(), fix));
                self.unsettled.insert(case.pack.clone());
            }
        }
    }

    /// A changed game: say what changed (and what was edited in its pack, the first time),
    /// then accept it, ask whether to, or leave it.
    fn changed(&mut self, case: &Case, change: &Change, args: &TestArgs) {
        if change.outcome_changed {
            self.outcome += 1;
        } else {
            self.path_only += 1;
        }
        let changes = self.edited.get(&case.pack).filter(|c| !c.is_empty());
        if let Some(changes) = changes {
            if self.told.insert(case.pack.clone()) {
                println!("{}: edited since its golden games were accepted:", case.pack);
                for (_, line) in changes {
                    println!("  {line}");
                }
            }
        }
        show_change(case, change, changes, args);
        if self.wants_accepted(change, args) {
            match accept(case, change) {
                Ok(wrote) => {
                    self.accepted += 1;
                    let names: Vec<String> = wrote.iter().map(|p| p.display().to_string()).collect();
                    println!("  accepted: wrote {}", names.join(", "));
                }
                Err(e) => {
                    println!("  not accepted: {e}");
                    self.leave(case);
                }
            }
        } else {
            self.leave(case);
        }
    }

    /// Whether to accept a change: always with `--bless`; with `--review`, as the person
    /// answers (until they quit); else never.
    fn wants_accepted(&mut self, change: &Change, args: &TestArgs) -> bool {
        if args.bless {
            return true;
        }
        if !args.review || self.quit {
            return false;
        }
        loop {
            match ask("accept this change? [y]es, [n]o, [d]iff, [q]uit:") {
                'y' => break true,
                'n' => break false,
                'd' => {
                    for l in change.diff.lines() {
                        println!("    {l}");
                    }
                }
                'q' => {
                    self.quit = true;
                    break false;
                }
                _ => {}
            }
        }
    }

    /// A changed game stays unaccepted.
    fn leave(&mut self, case: &Case) {
        self.left.push(case.name.clone());
        self.unsettled.insert(case.pack.clone());
    }

    /// The closing figures, how to accept what is left, and why each broken game failed.
    fn summary(&self, cases: &[Case], args: &TestArgs, secs: f64) {
        let (unchanged, path_only, outcome, broken) = (self.unchanged, self.path_only, self.outcome, &self.broken);
        println!(
            "\n{} game{} in {secs:.2} s: {unchanged} unchanged, {path_only} changed path only, {outcome} changed outcome, {} could not replay",
            cases.len(),
            crown_engine::diag::plural(cases.len()),
            broken.len()
        );
        if self.accepted > 0 {
            println!("{} accepted", self.accepted);
        }
        if !self.left.is_empty() {
            let all_changed = self.left.len() == cases.len() - unchanged - broken.len() && args.targets.is_empty();
            let which = if all_changed { String::new() } else { format!(" {}", self.left.join(" ")) };
            println!(
                "to accept the changes: `crown test --bless{which}` (or `crown test --review` to go through them one at a time)"
            );
        }
        for (name, fix) in broken {
            println!("could not replay {name}: {fix}");
        }
    }
}

/// Say how a game changed: the first difference, a note on a game recorded with the
/// example cards, the edited definitions it involves, and the whole diff or how to see it.
fn show_change(case: &Case, change: &Change, changes: Option<&Vec<(String, String)>>, args: &TestArgs) {
    let what = if change.outcome_changed {
        "the outcome changed"
    } else if change.diff.is_empty() {
        "the same transcript, but a person's seat is now played on by the fallback agent"
    } else {
        "the path changed"
    };
    println!("CHANGED {}: {what}\n{}", case.name, change.report.trim_end());
    if case.read_game_file().is_ok_and(|t| t.contains(crate::validate::EXAMPLE_MARK)) {
        println!(
            "  this game was recorded by `crown new` with its example cards: once yours replace them, accept it with `crown test --bless {}` (or record games of your own and delete it)",
            case.name
        );
    }
    if let Some(changes) = changes {
        let here: Vec<&str> =
            changes.iter().filter(|(id, _)| change.named.contains(id)).map(|(id, _)| id.as_str()).collect();
        if !here.is_empty() {
            println!("  edited definitions this game involves: {}", here.join(", "));
        }
    }
    if args.diff {
        for l in change.diff.lines() {
            println!("    {l}");
        }
    } else if !args.review {
        println!("  (whole diff: crown test {} --diff)", case.name);
    }
}

fn explain(project: &Project, cases: &[Case], id: &str) -> Done {
    let mut hits = 0;
    for c in cases {
        let t = c.read_transcript().ok().flatten().unwrap_or_default();
        let n = t.lines().filter(|l| definitions_in(l).iter().any(|d| d == id)).count();
        if n > 0 {
            hits += 1;
            println!("{:<48} {n} event{}", c.name, plural(n));
        }
    }
    println!("{hits} of {} golden games involve `{id}`", cases.len());
    if hits == 0 {
        // An id no pack defines is most likely a typo: name the nearest one.
        let ids: Vec<String> = project
            .pack_ids()
            .iter()
            .filter_map(|p| {
                crown_engine::load::load_pack(project, p, crown_engine::load::LoadOptions { compile_scripts: false })
                    .pack
            })
            .flat_map(|p| p.defs.iter().map(|d| d.def.id.clone()).collect::<Vec<_>>())
            .collect();
        if !ids.iter().any(|d| d == id) {
            let near = crown_engine::diag::did_you_mean(id, ids.iter().map(String::as_str));
            println!("no pack defines `{id}`{}", near.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default());
        }
    }
    Ok(())
}

/// Each pack of the games, loaded (or why it does not load), by id.
type Packs = BTreeMap<String, Result<Arc<Pack>, Failure>>;

/// Load each pack once.
fn packs_for(project: &Project, cases: &[Case]) -> Packs {
    let mut packs = BTreeMap::new();
    for c in cases {
        if !packs.contains_key(&c.pack) {
            packs.insert(c.pack.clone(), session::load(project, &c.pack));
        }
    }
    packs
}
