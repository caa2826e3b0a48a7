//! `crown reference`: the pack's rules document (`content/<pack>/rules.md`) with its
//! placeholders filled from the definitions, as HTML, Markdown or PDF.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crown_engine::load::Project;

use crate::out::{Done, Failure};
use crate::print::{reference, render_reference, Paper, ReferenceFormat};
use crate::{out, session};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PaperArg {
    A4,
    Letter,
}

/// Arguments of `crown reference`.
#[derive(Debug, Args)]
pub struct ReferenceArgs {
    /// The pack, by id or path.
    pub pack: String,
    /// Output file (default: <project>/build/reference/<pack>.<format>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// html, pdf or md (default: from the --out extension, else html).
    #[arg(long, value_enum)]
    pub format: Option<ReferenceFormat>,
    /// Paper of the PDF.
    #[arg(long, value_enum, default_value = "a4")]
    pub paper: PaperArg,
}

pub fn run(project: &Project, args: &ReferenceArgs) -> Done {
    let format = match (args.format, args.out.as_ref().and_then(|p| p.extension()).and_then(|e| e.to_str())) {
        (Some(f), _) => f,
        (None, Some("pdf")) => ReferenceFormat::Pdf,
        (None, Some("md" | "markdown")) => ReferenceFormat::Md,
        _ => ReferenceFormat::Html,
    };
    let pack = session::load_printable(project, &args.pack)?;
    let out_path = args.out.clone().unwrap_or_else(|| {
        project.root.join("build").join("reference").join(format!("{}.{}", pack.id(), format.extension()))
    });
    let paper = match args.paper {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    };
    if let Err(e) = out::check_writable(&out_path) {
        return Err(Failure::error(format!("cannot write {}: {e}", out_path.display())));
    }
    let sources = reference::rules_sources(&pack);
    match render_reference(&pack, format, paper) {
        Ok((bytes, diags)) => {
            out::print_diagnostics(&diags, &sources);
            if let Err(e) = out::write_atomic(&out_path, &bytes) {
                return Err(Failure::error(format!("cannot write {}: {e}", out_path.display())));
            }
            let errors = diags.iter().filter(|d| d.is_error()).count();
            println!("{}: reference written to {} ({} bytes)", pack.id(), out_path.display(), bytes.len());
            out::fail_if(errors > 0)
        }
        Err(diags) => {
            out::print_diagnostics(&diags, &sources);
            eprintln!(
                "{}: nothing written; fix the errors above (`crown check {}` finds them too)",
                pack.id(),
                pack.id()
            );
            Err(Failure::told(1))
        }
    }
}
