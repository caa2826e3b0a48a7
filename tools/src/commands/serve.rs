//! `crown serve`: the live preview page of every card and the current diagnostics, and a
//! game against bots in the browser at `/play`, on 127.0.0.1.

use crown_engine::diag::plural;
use std::io::Write;
use std::net::TcpListener;
use std::time::Duration;

use clap::Args;
use crown_engine::diag::SourceMap;
use crown_engine::load::Project;

use crate::live::{FsWatcher, ReloadOptions, Reloader, DEFAULT_DEBOUNCE_MS};
use crate::out::{Done, Failure};
use crate::{out, serve};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Packs to show, by id (default: every pack of the project).
    pub packs: Vec<String>,
    /// The port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Poll the files instead of relying on change events.
    #[arg(long)]
    pub poll: bool,
    /// Quiet time, in milliseconds, that ends a batch of changes.
    #[arg(long, default_value_t = DEFAULT_DEBOUNCE_MS, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=60_000))]
    pub debounce: u64,
}

pub fn run(project: &Project, args: &ServeArgs) -> Done {
    let reloader = match Reloader::new(project, &args.packs, ReloadOptions::default()) {
        Ok(r) => r,
        Err(d) => {
            out::print_diagnostics(&[d], &SourceMap::default());
            return Err(Failure::told(2));
        }
    };
    if reloader.packs.is_empty() {
        return Err(Failure::usage(format!("no packs in {}", reloader.project.content_dir().display())));
    }
    let watcher = match FsWatcher::new(&reloader.project.root, args.poll, Duration::from_millis(args.debounce.max(1))) {
        Ok(w) => w,
        Err(e) => {
            return Err(Failure::error(e.to_string()));
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", args.port)) {
        Ok(l) => l,
        Err(e) => {
            return Err(Failure::error(format!("cannot listen on 127.0.0.1:{}: {e} (try another --port)", args.port)));
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    for (id, st) in &reloader.packs {
        if st.pack.is_none() {
            reloader.print_diagnostics(id);
        }
    }
    println!(
        "serving http://127.0.0.1:{port}/ ({} pack{}; Ctrl-C stops)",
        reloader.packs.len(),
        plural(reloader.packs.len())
    );
    let _ = std::io::stdout().flush();
    out::exit(serve::serve(listener, reloader, watcher))
}
