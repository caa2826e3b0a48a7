//! Every golden game of the shipped packs, one test each, named after its file.
//! A failure prints the same report as `crown test`.

mod common;

/// Allocations counted per thread, as in the `crown` binary (the script meter's memory
/// limit reads them).
#[global_allocator]
static GLOBAL: crown_alloc::Counting<std::alloc::System> = crown_alloc::Counting(std::alloc::System);

use crown_tools::golden::{check_case, discover, Verdict};
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let project = crate::common::repo_project();
    let cases = discover(&project, &[]);
    let mut packs = std::collections::BTreeMap::new();
    let trials = cases
        .into_iter()
        .map(|case| {
            let pack = packs
                .entry(case.pack.clone())
                .or_insert_with(|| crate::common::load_pack(&project, &case.pack))
                .clone();
            Trial::test(case.name.clone(), move || {
                let pack = pack.map_err(Failed::from)?;
                match check_case(&case, &pack, 4) {
                    Verdict::Pass => Ok(()),
                    Verdict::Differs(change) => Err(format!(
                        "the game changed (review with `crown test --review`, accept with `crown test --bless`)\n{}{}",
                        change.report, change.diff
                    )
                    .into()),
                    Verdict::Broken { report, fix } => Err(format!("could not replay: {report}\nfix: {fix}").into()),
                }
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
