//! `crown print` and `crown reference`: printable card sheets and rules references.

use clap::Args;
use crown_engine::content::Project;

/// Arguments of `crown print`.
#[derive(Debug, Args)]
pub struct PrintArgs {
    /// The pack, by id or path.
    pub pack: String,
}

/// Arguments of `crown reference`.
#[derive(Debug, Args)]
pub struct ReferenceArgs {
    /// The pack, by id or path.
    pub pack: String,
}

pub fn run_print(_project: &Project, _args: &PrintArgs) -> i32 {
    eprintln!("error: crown print is not built yet");
    2
}

pub fn run_reference(_project: &Project, _args: &ReferenceArgs) -> i32 {
    eprintln!("error: crown reference is not built yet");
    2
}
