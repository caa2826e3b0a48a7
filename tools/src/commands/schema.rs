//! `crown schema`: write the JSON Schemas of every definition file.

use crown_engine::content::schema;
use crown_engine::load::Project;

use std::path::PathBuf;

use crate::out;
use crate::out::{Done, Failure};
use clap::Args;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Where to write the schemas (default: <project>/docs/schema).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(project: &Project, args: &SchemaArgs) -> Done {
    let dir = args.out.clone().unwrap_or_else(|| project.root.join("docs").join("schema"));
    // The schemas stay inside the folder named with --out, or else inside the project: a
    // schema file that is a link leading elsewhere is refused, never written through.
    let root = match &args.out {
        Some(d) => match std::fs::create_dir_all(d) {
            Ok(()) => d.clone(),
            Err(e) => {
                return Err(Failure::error(format!("cannot write into {}: {e}; nothing was written", d.display())));
            }
        },
        None => project.root.clone(),
    };
    // Every file can be written, or none is: a bad path does not leave half the set new.
    for (name, _) in schema::all() {
        let path = dir.join(name);
        if let Err(e) = out::check_writable_in(&root, &path) {
            return Err(Failure::error(format!("cannot write {}: {e}; nothing was written", path.display())));
        }
    }
    for (name, s) in schema::all() {
        let path = dir.join(name);
        if let Err(e) = out::write_atomic_in(&root, &path, schema::to_json(&s).as_bytes()) {
            return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
        }
        println!("wrote {}", path.display());
    }
    Ok(())
}
