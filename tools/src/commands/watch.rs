//! `crown watch`: keep packs loaded while their files are edited, printing one line per
//! reload (and the diagnostics of a broken edit). The reloading itself is [`crate::live`].

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use crown_engine::diag::SourceMap;
use crown_engine::load::Project;

use crate::live::{print_faces, FsWatcher, ReloadOptions, Reloader, DEFAULT_DEBOUNCE_MS};
use crate::out;
use crate::out::{Done, Failure};
use crate::validate::digest_tag;
use crown_engine::diag::plural;

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Packs to watch, by id (default: every pack of the project, new ones included).
    pub packs: Vec<String>,
    /// Render the changed cards again (SVG and PNG) into this folder on every reload.
    #[arg(long)]
    pub print: Option<PathBuf>,
    /// Replay the golden games involving the changed definitions on every reload.
    #[arg(long)]
    pub test: bool,
    /// Poll the files instead of relying on change events (network and container file systems).
    #[arg(long)]
    pub poll: bool,
    /// Quiet time, in milliseconds, that ends a batch of changes.
    #[arg(long, default_value_t = DEFAULT_DEBOUNCE_MS, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=60_000))]
    pub debounce: u64,
    /// End every load and reload line with `[digest HEX]`, the digest of the pack as loaded
    /// (the last good load on an error line); `crown check --digest` prints the same figure
    /// for a clean load.
    #[arg(long)]
    pub digest: bool,
}

// ---------------------------------------------------------------------------------------
// The command

pub fn run(project: &Project, args: &WatchArgs) -> Done {
    let opts = ReloadOptions { print: args.print.clone(), test: args.test };
    let mut reloader = match Reloader::new(project, &args.packs, opts) {
        Ok(r) => r,
        Err(d) => {
            out::print_diagnostics(&[d], &SourceMap::default());
            return Err(Failure::told(2));
        }
    };
    if reloader.packs.is_empty() {
        return Err(Failure::new(
            2,
            format!("no packs in {} (create one with `crown new pack NAME`)", reloader.project.content_dir().display()),
        ));
    }
    let mut watcher =
        match FsWatcher::new(&reloader.project.root, args.poll, Duration::from_millis(args.debounce.max(1))) {
            Ok(w) => w,
            Err(e) => {
                return Err(Failure::error(e.to_string()));
            }
        };
    let ids: Vec<String> = reloader.packs.keys().cloned().collect();
    for id in &ids {
        let st = &reloader.packs[id];
        match &st.pack {
            Some(p) => {
                let mut line = format!("loaded {id}: {} definitions, {} scripts", p.defs.len(), p.scripts.len());
                if args.digest {
                    line.push(' ');
                    line.push_str(&digest_tag(p));
                }
                if let Some(dir) = &args.print {
                    let t = Instant::now();
                    let (n, e) = print_faces(p, dir, Vec::new());
                    line.push_str(&format!(
                        "; {n} face{} rendered into {}{} [{:.0} ms]",
                        plural(n),
                        dir.join(id).display(),
                        if e > 0 { format!(" ({e} print error{})", plural(e)) } else { String::new() },
                        t.elapsed().as_secs_f64() * 1000.0
                    ));
                }
                println!("{line}");
            }
            None => {
                reloader.print_diagnostics(id);
                println!("error  {id}: {} error{}; watching for a fix", st.errors(), plural(st.errors()));
            }
        }
    }
    println!(
        "watching {} for changes ({}, debounce {} ms; Ctrl-C stops)",
        watcher.root().display(),
        if args.poll { "polling" } else { "file events" },
        args.debounce
    );
    flush();
    while let Some(batch) = watcher.next_batch(None) {
        for e in watcher.errors.drain(..) {
            eprintln!("warning: file watcher: {e}");
        }
        if batch.is_empty() {
            continue;
        }
        for rep in reloader.apply(&batch) {
            if !rep.ok() {
                reloader.print_diagnostics(&rep.pack);
            }
            let mut line = rep.line();
            if args.digest {
                if let Some(p) = reloader.packs.get(&rep.pack).and_then(|s| s.pack.as_ref()) {
                    line.push(' ');
                    line.push_str(&digest_tag(p));
                }
            }
            println!("{line}");
        }
        flush();
    }
    Ok(())
}

fn flush() {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
}
