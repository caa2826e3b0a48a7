//! `crown serve`: a local preview page of every card as printed, with the current
//! diagnostics, updated in place on every reload.
//!
//! The server is a few dozen lines on `std::net` (one thread per connection, bound to
//! 127.0.0.1 only): the page, a fragment of it, one SVG per face, and a server-sent event
//! stream announcing each new generation. The page's script fetches the fragment again
//! when an event arrives; it never reloads itself.
//!
//! Faces are rendered with the print templates ([`crate::print::Printer`]) and kept by
//! their print cache key, so a reload renders only the faces whose key changed.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use crown_engine::content::{Pack, Project};
use crown_engine::diag::{self, Diagnostic, SourceMap};

use crate::live::{FsWatcher, PackState, ReloadOptions, Reloader, DEFAULT_DEBOUNCE_MS};
use crate::out;
use crate::print::templates::html_escape;
use crate::print::{self, PrintOptions, Printer, Side};

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
    #[arg(long, default_value_t = DEFAULT_DEBOUNCE_MS)]
    pub debounce: u64,
}

/// One rendered face, by print cache key.
#[derive(Debug, Clone)]
struct Face {
    key: u64,
    svg: Arc<str>,
    diagnostics: Vec<Diagnostic>,
}

/// What the page shows, rebuilt on every reload.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Counts reloads (good or failed); the page asks for the fragment when it changes.
    pub generation: u64,
    /// The page body.
    pub fragment: String,
    /// Faces by `pack/id` and `pack/id.back`.
    faces: BTreeMap<String, Face>,
}

/// The snapshot shared by the connection threads, with a condition variable woken on
/// every new generation.
#[derive(Debug, Default)]
pub struct Shared {
    pub snapshot: Mutex<Snapshot>,
    pub changed: Condvar,
}

/// Render the faces of a pack's definitions again where their print key changed; return
/// how many were rendered.
fn render_faces(
    pack: &Pack,
    old: &BTreeMap<String, Face>,
    faces: &mut BTreeMap<String, Face>,
) -> Result<usize, Vec<Diagnostic>> {
    let geom = print::geometry(pack, &PrintOptions::new(PathBuf::new())).map_err(|d| vec![d])?;
    let (printer, _warnings) = Printer::new(pack, geom)?;
    let mut rendered = 0;
    for d in pack.defs.iter().filter(|d| d.def.count > 0) {
        let mut sides = vec![(Side::Front, format!("{}/{}", pack.id(), d.def.id))];
        if Printer::two_sided(d) {
            sides.push((Side::Back, format!("{}/{}.back", pack.id(), d.def.id)));
        }
        for (side, name) in sides {
            let key = printer.key(d, side);
            match old.get(&name) {
                Some(f) if f.key == key => {
                    faces.insert(name, f.clone());
                }
                _ => {
                    let r = printer.render(d, side);
                    rendered += 1;
                    faces.insert(name, Face { key, svg: r.svg.into(), diagnostics: r.diagnostics });
                }
            }
        }
    }
    Ok(rendered)
}

fn diag_html(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let mut s = String::new();
    for d in diags {
        let cls = if d.is_error() { "error" } else { "warning" };
        let detail = diag::render(std::slice::from_ref(d), sources, false);
        s.push_str(&format!(
            "<li class=\"diag {cls}\"><div class=\"where\">{}</div><pre>{}</pre></li>\n",
            html_escape(&d.to_string()),
            html_escape(detail.trim_end())
        ));
    }
    s
}

/// Rebuild the snapshot from the reloader's packs.
fn rebuild(reloader: &Reloader, snap: &mut Snapshot) -> usize {
    let old = std::mem::take(&mut snap.faces);
    let mut faces = BTreeMap::new();
    let mut body = String::new();
    let mut rendered = 0;
    let mut all_diags = String::new();
    for (id, st) in &reloader.packs {
        let PackState { pack, diagnostics, sources, .. } = st;
        let mut print_diags = Vec::new();
        if let Some(p) = pack {
            match render_faces(p, &old, &mut faces) {
                Ok(n) => rendered += n,
                Err(d) => {
                    // Broken templates: the last good faces stay on the page.
                    let prefix = format!("{id}/");
                    for (k, f) in old.range(prefix.clone()..).take_while(|(k, _)| k.starts_with(&prefix)) {
                        faces.insert(k.clone(), f.clone());
                    }
                    let known: Vec<String> = diagnostics.iter().map(|x| x.to_string()).collect();
                    print_diags = d.into_iter().filter(|x| !known.contains(&x.to_string())).collect();
                }
            }
        }
        let errors = diagnostics.iter().chain(&print_diags).filter(|d| d.is_error()).count();
        let shown: Vec<Diagnostic> = diagnostics.iter().chain(&print_diags).cloned().collect();
        // The counts `crown check` gives for the same files.
        let warnings = shown.len() - errors;
        let status = match (pack, errors) {
            (_, 0) => format!(
                "<p class=\"ok\">{} loaded, no errors, {warnings} warning{}</p>",
                html_escape(id),
                if warnings == 1 { "" } else { "s" }
            ),
            (Some(_), n) => format!(
                "<p class=\"stale\">{}: {n} error{}, {warnings} warning{}; showing the last good load</p>",
                html_escape(id),
                if n == 1 { "" } else { "s" },
                if warnings == 1 { "" } else { "s" }
            ),
            (None, n) => {
                format!(
                    "<p class=\"stale\">{}: {n} error{}; nothing loaded yet</p>",
                    html_escape(id),
                    if n == 1 { "" } else { "s" }
                )
            }
        };
        all_diags.push_str(&status);
        if !shown.is_empty() {
            all_diags.push_str(&format!("<ul class=\"diagnostics\">{}</ul>", diag_html(&shown, sources)));
        }
        let Some(p) = pack else { continue };
        body.push_str(&format!(
            "<section class=\"pack\" id=\"pack-{}\"><h2>{} <small>{}</small></h2><div class=\"cards\">\n",
            html_escape(id),
            html_escape(&p.manifest.name),
            html_escape(&p.manifest.version)
        ));
        for d in p.defs.iter().filter(|d| d.def.count > 0) {
            let front = format!("{id}/{}", d.def.id);
            let mut imgs = String::new();
            let mut face_diags = Vec::new();
            for name in [front.clone(), format!("{front}.back")] {
                if let Some(f) = faces.get(&name) {
                    imgs.push_str(&format!(
                        "<img src=\"/face/{}.svg?k={:016x}\" alt=\"{}\">",
                        html_escape(&name),
                        f.key,
                        html_escape(&d.def.name)
                    ));
                    face_diags.extend(f.diagnostics.iter().cloned());
                }
            }
            let problems = if face_diags.is_empty() {
                String::new()
            } else {
                format!("<ul class=\"diagnostics\">{}</ul>", diag_html(&face_diags, &p.sources))
            };
            body.push_str(&format!(
                "<figure class=\"card\" id=\"card-{}\">{imgs}<figcaption><b class=\"name\">{}</b> <code>{}</code> \
                 <span class=\"kind\">{}</span><p class=\"text\">{}</p>{problems}</figcaption></figure>\n",
                html_escape(&d.def.id),
                html_escape(&d.def.name),
                html_escape(&d.def.id),
                html_escape(&d.def.kind),
                html_escape(&d.def.text)
            ));
        }
        body.push_str("</div></section>\n");
    }
    snap.generation += 1;
    snap.faces = faces;
    snap.fragment = format!(
        "<div id=\"generation\" data-generation=\"{}\"></div><section id=\"status\">{all_diags}</section>\n{body}",
        snap.generation
    );
    rendered
}

const PAGE_HEAD: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Crown preview</title>
<style>
body { font-family: sans-serif; margin: 1em 2em; background: #f4f1ea; color: #222; }
.cards { display: flex; flex-wrap: wrap; gap: 14px; }
figure.card { margin: 0; width: 220px; background: #fff; padding: 6px; border-radius: 6px; box-shadow: 0 1px 3px #0003; }
figure.card img { width: 100%; display: block; margin-bottom: 4px; }
figcaption { font-size: 12px; } figcaption p.text { margin: 4px 0; color: #444; }
.ok { color: #276227; } .stale { color: #a11; font-weight: bold; }
ul.diagnostics { list-style: none; padding: 0; } li.diag { margin: 6px 0; }
li.diag .where { font-family: monospace; } li.error .where { color: #a11; } li.warning .where { color: #85610a; }
li.diag pre { background: #222; color: #eee; padding: 6px; overflow-x: auto; font-size: 12px; }
#live { position: fixed; top: 6px; right: 10px; font-size: 12px; color: #666; }
</style></head>
<body><div id="live">connecting…</div><main id="main">
"#;

const PAGE_TAIL: &str = r#"</main>
<script>
window.crownLoads = (window.crownLoads || 0) + 1;
window.crownUpdates = 0;
function shownGeneration() {
  const g = document.getElementById("generation");
  return g ? g.dataset.generation : "";
}
async function refresh(gen) {
  if (gen === shownGeneration()) return;
  const r = await fetch("/fragment", { cache: "no-store" });
  document.getElementById("main").innerHTML = await r.text();
  window.crownUpdates += 1;
  document.getElementById("live").textContent = "live: generation " + shownGeneration();
}
const events = new EventSource("/events");
events.addEventListener("reload", (e) => { refresh(e.data); });
events.onopen = () => { document.getElementById("live").textContent = "live: generation " + shownGeneration(); };
events.onerror = () => { document.getElementById("live").textContent = "disconnected; retrying…"; };
</script></body></html>
"#;

fn respond(stream: &mut TcpStream, status: &str, ctype: &str, body: &[u8]) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
}

fn handle(mut stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" {
        return respond(&mut stream, "405 Method Not Allowed", "text/plain", b"GET only\n");
    }
    let path = target.split('?').next().unwrap_or("/");
    match path {
        "/" => {
            let frag = shared.snapshot.lock().map(|s| s.fragment.clone()).unwrap_or_default();
            let page = format!("{PAGE_HEAD}{frag}{PAGE_TAIL}");
            respond(&mut stream, "200 OK", "text/html; charset=utf-8", page.as_bytes())
        }
        "/fragment" => {
            let frag = shared.snapshot.lock().map(|s| s.fragment.clone()).unwrap_or_default();
            respond(&mut stream, "200 OK", "text/html; charset=utf-8", frag.as_bytes())
        }
        "/events" => events(stream, &shared),
        p if p.starts_with("/face/") && p.ends_with(".svg") => {
            let name = percent_decode(&p["/face/".len()..p.len() - ".svg".len()]);
            let svg = shared.snapshot.lock().ok().and_then(|s| s.faces.get(&name).map(|f| f.svg.clone()));
            match svg {
                Some(svg) => respond(&mut stream, "200 OK", "image/svg+xml", svg.as_bytes()),
                None => respond(&mut stream, "404 Not Found", "text/plain", b"no such face\n"),
            }
        }
        _ => respond(&mut stream, "404 Not Found", "text/plain", b"not found\n"),
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The server-sent event stream: the current generation at once, then each new one; a
/// comment every 15 seconds finds closed connections.
fn events(mut stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\nretry: 500\n\n",
    )?;
    let mut sent = 0u64;
    loop {
        let generation = {
            let guard = shared.snapshot.lock().map_err(|_| std::io::Error::other("poisoned"))?;
            let (guard, _) = shared
                .changed
                .wait_timeout_while(guard, Duration::from_secs(15), |s| s.generation == sent)
                .map_err(|_| std::io::Error::other("poisoned"))?;
            guard.generation
        };
        if generation != sent {
            sent = generation;
            write!(stream, "event: reload\ndata: {generation}\n\n")?;
        } else {
            stream.write_all(b": ping\n\n")?;
        }
        stream.flush()?;
    }
}

/// Serve on `listener` until the process ends; `reloader` is reloaded by a watcher on
/// the project. Prints one line per reload, as `crown watch` does.
pub fn serve(listener: TcpListener, mut reloader: Reloader, mut watcher: FsWatcher) -> i32 {
    let shared = Arc::new(Shared::default());
    if let Ok(mut s) = shared.snapshot.lock() {
        rebuild(&reloader, &mut s);
    }
    let accept_shared = shared.clone();
    let accepted = std::thread::Builder::new().name("crown-serve-accept".into()).spawn(move || {
        for stream in listener.incoming().flatten() {
            let sh = accept_shared.clone();
            let _ = std::thread::Builder::new().name("crown-serve-conn".into()).spawn(move || {
                let _ = handle(stream, sh);
            });
        }
    });
    if let Err(e) = accepted {
        eprintln!("error: cannot start the server thread: {e}");
        return 1;
    }
    while let Some(batch) = watcher.next_batch(None) {
        for e in watcher.errors.drain(..) {
            eprintln!("warning: file watcher: {e}");
        }
        if batch.is_empty() {
            continue;
        }
        let reports = reloader.apply(&batch);
        if reports.is_empty() {
            continue;
        }
        let start = Instant::now();
        let rendered = match shared.snapshot.lock() {
            Ok(mut s) => rebuild(&reloader, &mut s),
            Err(_) => 0,
        };
        shared.changed.notify_all();
        for rep in reports {
            if !rep.ok() {
                reloader.print_diagnostics(&rep.pack);
            }
            println!("{}", rep.line());
        }
        println!(
            "page updated: {rendered} face{} rendered [{:.0} ms]",
            if rendered == 1 { "" } else { "s" },
            start.elapsed().as_secs_f64() * 1000.0
        );
        let _ = std::io::stdout().flush();
    }
    0
}

pub fn run(project: &Project, args: &ServeArgs) -> i32 {
    let reloader = match Reloader::new(project, &args.packs, ReloadOptions::default()) {
        Ok(r) => r,
        Err(d) => {
            out::print_diagnostics(&[d], &SourceMap::default());
            return 2;
        }
    };
    if reloader.packs.is_empty() {
        eprintln!("error: no packs in {}", reloader.project.content_dir().display());
        return 2;
    }
    let watcher = match FsWatcher::new(&reloader.project.root, args.poll, Duration::from_millis(args.debounce.max(1))) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", args.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{}: {e} (try another --port)", args.port);
            return 1;
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
        if reloader.packs.len() == 1 { "" } else { "s" }
    );
    let _ = std::io::stdout().flush();
    serve(listener, reloader, watcher)
}
