//! `crown schema`: write the JSON Schemas of every definition file, or one pack's (its
//! declared vocabulary in the definition files' schemas).

use crown_engine::content::schema;
use crown_engine::load::{load_pack, LoadOptions, Project};

use std::path::PathBuf;

use crate::out;
use crate::out::{Done, Failure};
use clap::Args;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Where to write the schemas (default: <project>/docs/schema, or
    /// <project>/docs/schema/<pack> with --pack).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write this pack's schemas (by id or path): the definition files' schemas know the
    /// keys, ranges and required values of its `[vocabulary.<kind>]`. Its files' `#:schema`
    /// lines may point at them (`crown new pack` does).
    #[arg(long)]
    pub pack: Option<String>,
}

pub fn run(project: &Project, args: &SchemaArgs) -> Done {
    let (project, schemas, default_dir) = match &args.pack {
        None => (project.clone(), schema::all(), project.root.join("docs").join("schema")),
        Some(name) => {
            let (proj, id) = project.resolve(name).map_err(|d| {
                eprintln!("{d}");
                Failure::told(2)
            })?;
            let loaded = load_pack(&proj, &id, LoadOptions { compile_scripts: false });
            let Some(pack) = loaded.pack else {
                out::print_diagnostics(&loaded.diagnostics, &loaded.sources);
                eprintln!("{id}: fix the pack first (see `crown check {id}`)");
                return Err(Failure::told(1));
            };
            let dir = proj.root.join("docs").join("schema").join(&id);
            (proj, schema::for_pack(&pack.manifest), dir)
        }
    };
    let dir = args.out.clone().unwrap_or(default_dir);
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
    for (name, _) in &schemas {
        let path = dir.join(name);
        if let Err(e) = out::check_writable_in(&root, &path) {
            return Err(Failure::error(format!("cannot write {}: {e}; nothing was written", path.display())));
        }
    }
    for (name, s) in &schemas {
        let path = dir.join(name);
        if let Err(e) = out::write_atomic_in(&root, &path, schema::to_json(s).as_bytes()) {
            return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
        }
        println!("wrote {}", path.display());
    }
    Ok(())
}
