//! Every golden game of the shipped packs, one test each, named after its file, and once
//! more on Rhai's interpreter (`NAME [rhai]`): both runtimes must replay every game to the
//! same transcript, byte for byte. A failure prints the same report as `crown test`.

mod common;

/// Allocations counted per thread, as in the `crown` binary (the script meter's memory
/// limit reads them).
#[global_allocator]
static GLOBAL: crown_alloc::Counting<std::alloc::System> = crown_alloc::Counting(std::alloc::System);

use crown_engine::script::compiled::{with_runtime, Runtime};
use crown_tools::golden::{check_case, discover, Verdict};
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let project = crate::common::repo_project();
    let cases = discover(&project, &[]);
    let mut packs = std::collections::BTreeMap::new();
    let mut trials = Vec::new();
    for case in cases {
        let pack =
            packs.entry(case.pack.clone()).or_insert_with(|| crate::common::load_pack(&project, &case.pack)).clone();
        for runtime in [Runtime::Compiled, Runtime::Rhai] {
            let (case, pack) = (case.clone(), pack.clone());
            let name = match runtime {
                Runtime::Compiled => case.name.clone(),
                Runtime::Rhai => format!("{} [rhai]", case.name),
            };
            // The check runs on this thread, so the runtime chosen for it holds throughout.
            trials.push(Trial::test(name, move || {
                let pack = pack.map_err(Failed::from)?;
                match with_runtime(runtime, || check_case(&case, &pack, 4)) {
                    Verdict::Pass => Ok(()),
                    Verdict::Differs(change) => Err(format!(
                        "the game changed (review with `crown test --review`, accept with `crown test --bless`)\n{}{}",
                        change.report, change.diff
                    )
                    .into()),
                    Verdict::Broken { report, fix } => Err(format!("could not replay: {report}\nfix: {fix}").into()),
                }
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
