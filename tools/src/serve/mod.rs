//! `crown serve`: a local preview page of every card as printed, with the current
//! diagnostics, updated in place on every reload.
//!
//! The server is axum on a single-threaded tokio runtime in a thread of its own, bound
//! to 127.0.0.1 only: the page, a fragment of it, one SVG per face, and a server-sent
//! event stream announcing each new generation. The page's script fetches the fragment
//! again when an event arrives; it never reloads itself. Requests whose `Host` is not
//! `127.0.0.1:PORT` or `localhost:PORT` are refused (DNS rebinding), as are methods
//! other than GET and requests with a body; the routing ([`route`]) is a plain function
//! that never panics, fuzzed in `fuzz/fuzz_targets/serve_route.rs`.
//!
//! Faces are rendered with the print templates ([`crate::print::Printer`]) and kept by
//! their print cache key, so a reload renders only the faces whose key changed.
//!
//! `/play` hosts a game against bots ([`game`]): the table drawn with the same faces, the
//! options as buttons, the narrated log, undo and stepping back through the log, reloads
//! of the rules applied to the game in progress, and saving it as a golden game. Its
//! actions are POST requests without a body, accepted only with the page's own
//! `X-Crown: play` header and, when the browser sends one, an `Origin` of this server (a
//! page elsewhere can neither set the header nor pass the check).
//!
//! The pages' HTML, style sheets and scripts are files under `assets/` ([`assets`]).

mod assets;
pub mod boards;
pub mod game;
mod page;
mod routing;
pub mod zones;

use crown_engine::diag::plural;
use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Router;
use crown_engine::content::Pack;
use crown_engine::diag::{self, Diagnostic, SourceMap};
use crown_engine::load::Project;

use crate::live::{FsWatcher, PackState, ReloadOptions, Reloader};
use crate::out::html_escape;
use crate::print::{self, PrintOptions, Printer, Side};

pub use routing::{host_allowed, percent_decode, query_pairs, route, PlayCall, Reply, MAX_REQUEST_HEAD};

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

/// The snapshot shared with the server thread; each new generation is also announced on
/// a watch channel, which the event streams wait on.
#[derive(Debug, Default)]
pub struct Shared {
    pub snapshot: Mutex<Snapshot>,
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
                plural(warnings)
            ),
            (Some(_), n) => format!(
                "<p class=\"stale\">{}: {n} error{}, {warnings} warning{}; showing the last good load</p>",
                html_escape(id),
                plural(n),
                plural(warnings)
            ),
            (None, n) => {
                format!("<p class=\"stale\">{}: {n} error{}; nothing loaded yet</p>", html_escape(id), plural(n))
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

/// The game in the page and what it needs: the project (where golden games are saved) and
/// the packs as last loaded without errors.
#[derive(Default)]
pub struct Play {
    pub root: PathBuf,
    pub packs: Mutex<BTreeMap<String, Arc<Pack>>>,
    pub session: Mutex<Option<game::Session>>,
}

#[derive(Clone)]
struct AppState {
    shared: Arc<Shared>,
    play: Arc<Play>,
    generations: tokio::sync::watch::Receiver<u64>,
    port: u16,
    /// Event streams open at once (each page holds one); past the cap a new one is refused.
    streams: Arc<tokio::sync::Semaphore>,
    /// Game actions under way or waiting for the game; past the cap a new one is refused.
    play_slots: Arc<tokio::sync::Semaphore>,
}

/// The most connections open at once (event streams included); past it a new one is
/// closed unanswered.
const MAX_CONNECTIONS: usize = 256;

/// How long a client may take to send a request's head before the connection is closed.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The most game actions under way or waiting at once: the game answers one at a time,
/// so a page sending hundreds a second (undo held down) gets 503 past these, and neither
/// threads nor waiting replays pile up.
const MAX_PLAY_CALLS: usize = 8;

/// The most event streams served at once: far more than the browser tabs a designer
/// keeps open, few enough that a runaway page cannot hold the server's memory.
const MAX_EVENT_STREAMS: usize = 64;

fn plain(status: u16, body: &'static str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], body)
        .into_response()
}

fn ok(ctype: &'static str, body: String) -> Response {
    (StatusCode::OK, [(header::CONTENT_TYPE, ctype), (header::CACHE_CONTROL, "no-store")], body).into_response()
}

async fn answer(State(st): State<AppState>, req: Request) -> Response {
    let has_body = req.headers().get(header::CONTENT_LENGTH).is_some_and(|v| v.as_bytes() != b"0")
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    // Two Host headers are a malformed request (RFC 9112), whatever the first one says.
    if req.headers().get_all(header::HOST).iter().count() > 1 {
        return plain(400, "more than one Host header\n");
    }
    let host = req.headers().get(header::HOST).map(|h| h.as_bytes());
    let reply = route(req.method().as_str(), req.uri().path(), host, st.port);
    let head: usize =
        req.uri().to_string().len() + req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum::<usize>();
    if head > MAX_REQUEST_HEAD && !matches!(reply, Reply::Refused(421, _)) {
        return plain(431, "request head too large\n");
    }
    if has_body && !matches!(reply, Reply::Refused(..)) {
        // Only GET is served, and a GET has no body: never read one.
        return plain(413, "requests carry no body here\n");
    }
    match reply {
        Reply::Refused(code, why) => plain(code, why),
        Reply::Page => {
            let frag = st.shared.snapshot.lock().map(|s| s.fragment.clone()).unwrap_or_default();
            let (head, tail) = &*assets::PREVIEW;
            ok("text/html; charset=utf-8", format!("{head}{frag}{tail}"))
        }
        Reply::Fragment => {
            let frag = st.shared.snapshot.lock().map(|s| s.fragment.clone()).unwrap_or_default();
            ok("text/html; charset=utf-8", frag)
        }
        Reply::Face(name) => {
            let svg = st.shared.snapshot.lock().ok().and_then(|s| s.faces.get(&name).map(|f| f.svg.clone()));
            match svg {
                Some(svg) => ok("image/svg+xml", svg.to_string()),
                None => plain(404, "no such face\n"),
            }
        }
        Reply::Events => match st.streams.clone().try_acquire_owned() {
            Ok(permit) => events(st.generations, permit).into_response(),
            Err(_) => plain(503, "too many open event streams\n"),
        },
        Reply::PlayPage => ok("text/html; charset=utf-8", page::play_page(&st.play)),
        Reply::Play(call) => {
            if call != PlayCall::State && !same_origin(req.headers(), st.port) {
                return plain(403, "game actions come from the game page only\n");
            }
            let Ok(slot) = st.play_slots.clone().try_acquire_owned() else {
                return plain(503, "the game is busy with earlier requests: try again\n");
            };
            let query = query_pairs(req.uri().query().unwrap_or(""));
            let play = st.play.clone();
            let r = tokio::task::spawn_blocking(move || {
                let _slot = slot;
                with_big_stack(move || play_call(&play, call, &query))
            })
            .await;
            match r {
                Ok(Ok(json)) => ok("application/json", json),
                Ok(Err((code, msg))) => {
                    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
                    let body = serde_json::json!({ "error": msg }).to_string();
                    (status, [(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")], body)
                        .into_response()
                }
                Err(_) => plain(500, "the game could not be played\n"),
            }
        }
    }
}

/// Whether a game action comes from this server's own page: it carries the page's
/// `X-Crown: play` header (a form elsewhere cannot set one, and a script elsewhere would
/// need a preflight this server never grants), and its `Origin`, if any, is this server.
fn same_origin(headers: &axum::http::HeaderMap, port: u16) -> bool {
    if headers.get("x-crown").map(|v| v.as_bytes()) != Some(b"play") {
        return false;
    }
    match headers.get(header::ORIGIN) {
        None => true,
        Some(o) => {
            let o = o.as_bytes();
            o == format!("http://127.0.0.1:{port}").as_bytes() || o == format!("http://localhost:{port}").as_bytes()
        }
    }
}

/// Run `f` on a thread with the stack simulations use (scripts may nest deep), and wait.
fn with_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("crown-serve-game".into())
        .stack_size(16 * 1024 * 1024)
        .spawn(f)
        .expect("a game thread")
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
}

type PlayResult = Result<String, (u16, String)>;

/// Carry out one `/play/...` request; the JSON answer.
fn play_call(play: &Play, call: PlayCall, q: &BTreeMap<String, String>) -> PlayResult {
    let number = |k: &str| -> Result<Option<usize>, (u16, String)> {
        q.get(k).map(|v| v.parse::<usize>().map_err(|_| (400, format!("`{k}` is not a number: `{v}`")))).transpose()
    };
    let mut guard = play.session.lock().map_err(|_| (500, "the game is unavailable".to_string()))?;
    if call == PlayCall::New {
        let id = q.get("pack").cloned().unwrap_or_default();
        let pack = play
            .packs
            .lock()
            .ok()
            .and_then(|p| p.get(&id).cloned())
            .ok_or_else(|| (400, format!("no pack `{id}` is loaded without errors")))?;
        let scenario = q.get("scenario").filter(|s| !s.is_empty()).cloned();
        // The seat count the command line allows (`--players`, 1 to 64): a number from the
        // query reaches nothing that sizes memory by it unchecked.
        let asked = number("players")?;
        if asked.is_some_and(|n| !(1..=64).contains(&n)) {
            return Err((400, format!("`players` must be 1 to 64, not {}", q["players"])));
        }
        let players = crate::seats::player_count(&pack, scenario.as_deref(), asked);
        let wanted: Vec<String> = q
            .get("agents")
            .map(|a| a.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect())
            .unwrap_or_default();
        let bot = crate::seats::default_bot(&pack);
        let wanted = if wanted.is_empty() { vec!["human".to_string(), bot.clone()] } else { wanted };
        let kinds =
            crate::seats::agent_kinds(&pack, scenario.as_deref(), players, &wanted, &bot).map_err(|e| (400, e))?;
        let seed = q.get("seed").map(|v| v.parse::<u64>().map_err(|_| (400, format!("`seed` is not a number: `{v}`"))));
        let seed = seed.transpose()?.unwrap_or(1);
        let setup = game::Setup { pack: id, scenario, seed, kinds };
        *guard = Some(game::Session::new(setup, pack).map_err(|e| (400, e))?);
    }
    let session = guard.as_mut().ok_or((404, "no game: start one".to_string()))?;
    // Rules reloaded since the last request take over from where the game stands.
    if let Some(p) = play.packs.lock().ok().and_then(|p| p.get(&session.setup.pack).cloned()) {
        session.reloaded(p);
    }
    // A page plays the game it shows: an action from a page showing another game (a tab
    // that started one since) or another point of it (a tab that played on) is refused,
    // never applied to a game the person does not see.
    if call != PlayCall::New && call != PlayCall::State {
        if let Some(g) = q.get("game").filter(|g| **g != session.id.to_string()) {
            return Err((
                409,
                format!(
                    "this page shows game {}, but another tab has started game {} since: reload the page",
                    crate::out::shown(g),
                    session.id
                ),
            ));
        }
        if let Some(t) = q.get("total").filter(|t| **t != session.choices.len().to_string()) {
            return Err((
                409,
                format!(
                    "this page shows the game after {} decisions, but it stands at {} (played in another tab): \
                     reload the page",
                    crate::out::shown(t),
                    session.choices.len()
                ),
            ));
        }
    }
    let mut extra = serde_json::Map::new();
    let at = match call {
        PlayCall::State => number("at")?,
        PlayCall::New => None,
        PlayCall::Choose => {
            // `picks=2,0`: a set of options of a choice that picks several, in order.
            if let Some(picks) = q.get("picks") {
                let picks: Vec<usize> = picks
                    .split(',')
                    .filter(|k| !k.is_empty())
                    .map(|k| k.parse::<usize>().map_err(|_| (400, format!("`picks` holds `{k}`, not a number"))))
                    .collect::<Result<_, _>>()?;
                session.choose_set(&picks).map_err(|e| (409, e))?;
            } else {
                let i = number("i")?.ok_or((400, "which option? (`i`)".to_string()))?;
                session.choose(i).map_err(|e| (409, e))?;
            }
            None
        }
        PlayCall::Preview => {
            let i = number("i")?.ok_or((400, "which option? (`i`)".to_string()))?;
            let text = session.preview(i).map_err(|e| (409, e))?;
            extra.insert("preview".into(), serde_json::json!(text));
            None
        }
        PlayCall::Rewind => {
            let to = number("to")?.ok_or((400, "back to which decision? (`to`)".to_string()))?;
            session.rewind(to);
            None
        }
        PlayCall::Save => {
            let name = q.get("name").cloned().unwrap_or_default();
            let description = q.get("description").cloned().unwrap_or_default();
            let wrote = session.save_golden(&play.root, &name, &description).map_err(|e| (400, e))?;
            let shown: Vec<String> = wrote
                .iter()
                .map(|p| p.strip_prefix(&play.root).unwrap_or(p).to_string_lossy().replace('\\', "/"))
                .collect();
            extra.insert("saved".into(), serde_json::json!(shown));
            None
        }
    };
    let view = session.view(at);
    let mut v = serde_json::to_value(&view).map_err(|e| (500, e.to_string()))?;
    if let Some(m) = v.as_object_mut() {
        m.extend(extra);
    }
    Ok(v.to_string())
}

/// The server-sent event stream: the current generation at once, then each new one; a
/// comment every 15 seconds finds closed connections.
fn events(
    rx: tokio::sync::watch::Receiver<u64>,
    permit: tokio::sync::OwnedSemaphorePermit,
) -> Sse<impl futures_util::stream::Stream<Item = Result<Event, std::convert::Infallible>>> {
    // The permit lives as long as the stream: closing the page frees its place.
    let stream = futures_util::stream::unfold((rx, true, permit), |(mut rx, first, permit)| async move {
        if !first && rx.changed().await.is_err() {
            return None;
        }
        let generation = *rx.borrow_and_update();
        let mut event = Event::default().event("reload").data(generation.to_string());
        if first {
            event = event.retry(Duration::from_millis(500));
        }
        Some((Ok(event), (rx, false, permit)))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)).text("ping"))
}

/// The request handling of the server: every request goes to [`answer`] (the routing,
/// the checks, the pages, faces, events and the game's actions).
fn app(shared: Arc<Shared>, play: Arc<Play>, generations: tokio::sync::watch::Receiver<u64>, port: u16) -> Router {
    let streams = Arc::new(tokio::sync::Semaphore::new(MAX_EVENT_STREAMS));
    let play_slots = Arc::new(tokio::sync::Semaphore::new(MAX_PLAY_CALLS));
    Router::new().fallback(answer).with_state(AppState { shared, play, generations, port, streams, play_slots })
}

/// Serve one connection with hyper directly (as `axum::serve` would), with a time limit
/// on reading a request's head. With `half_close`, requests sent before the client closed
/// its side are still answered (the raw entry point sends a whole connection, then ends
/// its input); the socket server closes at once, as hyper does by default.
async fn serve_connection<I>(io: I, app: Router, half_close: bool)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper_util::service::TowerToHyperService::new(app);
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .half_close(half_close)
        .serve_connection(hyper_util::rt::TokioIo::new(io), service)
        .await;
}

/// The server's whole request handling (hyper's HTTP/1 parser, the router, the checks
/// and the handlers) over a project's packs, without a socket: raw bytes in, raw bytes
/// out. For the fuzz target (`fuzz/fuzz_targets/serve_route.rs`) and tests; `crown serve`
/// runs the same [`app`] and [`serve_connection`] on its listener (the one difference:
/// here the requests of a connection whose input has ended are still answered).
pub struct RawServer {
    runtime: tokio::runtime::Runtime,
    app: Router,
    /// The port requests must name in their `Host`.
    pub port: u16,
}

impl RawServer {
    /// Load the packs of `project` (all of them when `packs` is empty) and render the page
    /// as `crown serve` does. The event stream ends after its first event (no reloads
    /// come), so every answer ends.
    pub fn new(project: &Project, packs: &[String], port: u16) -> Result<RawServer, String> {
        let reloader = Reloader::new(project, packs, ReloadOptions::default()).map_err(|d| d.to_string())?;
        let shared = Arc::new(Shared::default());
        if let Ok(mut s) = shared.snapshot.lock() {
            rebuild(&reloader, &mut s);
        }
        let play = Arc::new(Play { root: reloader.project.root.clone(), ..Play::default() });
        publish_packs(&reloader, &play);
        let (_, generations) = tokio::sync::watch::channel(1);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| e.to_string())?;
        Ok(RawServer { runtime, app: app(shared, play, generations, port), port })
    }

    /// Send `request` as the whole of one connection (then the end of input) and return
    /// everything the server answered before closing it, or what came within `limit`.
    /// A panic in the handling is not caught: it reaches the caller.
    pub fn answer(&self, request: &[u8], limit: Duration) -> Vec<u8> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let app = self.app.clone();
        self.runtime.block_on(async move {
            let (client, server) = tokio::io::duplex(64 * 1024);
            let (mut from_server, mut to_server) = tokio::io::split(client);
            // Writing, reading and serving at once (a pipelined request may not be read
            // before an answer is), all on this task, so a panic while serving is the
            // caller's panic.
            let serving = tokio::time::timeout(limit, serve_connection(server, app, true));
            let writing = async move {
                let _ = to_server.write_all(request).await;
                let _ = to_server.shutdown().await;
            };
            let reading = async move {
                let mut answer = Vec::new();
                let _ = tokio::time::timeout(limit, from_server.read_to_end(&mut answer)).await;
                answer
            };
            let (_, _, answer) = tokio::join!(serving, writing, reading);
            answer
        })
    }
}

/// Answer HTTP on `listener` from a thread of its own (a single-threaded tokio runtime:
/// the page, its fragment, faces and the event stream are all small and quick).
fn start_http(
    listener: TcpListener,
    shared: Arc<Shared>,
    play: Arc<Play>,
    generations: tokio::sync::watch::Receiver<u64>,
) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build()?;
    std::thread::Builder::new().name("crown-serve-http".into()).spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
            let app = app(shared, play, generations, port);
            // A cap on open connections; past it a new one is closed at once.
            let connections = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
            loop {
                let stream = match listener.accept().await {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        eprintln!("error: the preview server cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                // Past the cap the connection is closed at once.
                let Ok(permit) = connections.clone().try_acquire_owned() else { continue };
                let app = app.clone();
                tokio::spawn(async move {
                    serve_connection(stream, app, false).await;
                    drop(permit);
                });
            }
        });
    })?;
    Ok(())
}

/// Serve on `listener` until the process ends; `reloader` is reloaded by a watcher on
/// the project. Prints one line per reload, as `crown watch` does.
pub fn serve(listener: TcpListener, mut reloader: Reloader, mut watcher: FsWatcher) -> i32 {
    let shared = Arc::new(Shared::default());
    if let Ok(mut s) = shared.snapshot.lock() {
        rebuild(&reloader, &mut s);
    }
    let play = Arc::new(Play { root: reloader.project.root.clone(), ..Play::default() });
    publish_packs(&reloader, &play);
    let first = shared.snapshot.lock().map(|s| s.generation).unwrap_or(0);
    let (generations, rx) = tokio::sync::watch::channel(first);
    if let Err(e) = start_http(listener, shared.clone(), play.clone(), rx) {
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
        publish_packs(&reloader, &play);
        if let Ok(s) = shared.snapshot.lock() {
            generations.send_replace(s.generation);
        }
        for rep in reports {
            if !rep.ok() {
                reloader.print_diagnostics(&rep.pack);
            }
            println!("{}", rep.line());
        }
        println!(
            "page updated: {rendered} face{} rendered [{:.0} ms]",
            plural(rendered),
            start.elapsed().as_secs_f64() * 1000.0
        );
        let _ = std::io::stdout().flush();
    }
    0
}

/// The packs loaded without errors, for the game page (a pack with errors keeps its last
/// good load, as the preview does).
fn publish_packs(reloader: &Reloader, play: &Play) {
    if let Ok(mut packs) = play.packs.lock() {
        for (id, st) in &reloader.packs {
            if let Some(p) = &st.pack {
                packs.insert(id.clone(), p.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number of the game the server plays now, from its state.
    fn play_call_game(s: &RawServer) -> u64 {
        let a = s.answer(b"GET /play/state HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n", Duration::from_secs(5));
        let a = String::from_utf8_lossy(&a);
        let body = &a[a.find("\r\n\r\n").unwrap() + 4..];
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        v["game"].as_u64().unwrap()
    }

    /// The raw-bytes entry point runs the server's own handling: hyper's parser, the
    /// router and the handlers, pipelined requests and all, and every answer ends.
    #[test]
    fn raw_server_answers_like_the_socket() {
        let tiny = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/invalid/_base/tiny");
        let s = RawServer::new(&Project::new(&tiny), &[], 7878).unwrap();
        let status = |req: &str| {
            let a = s.answer(req.as_bytes(), Duration::from_secs(5));
            String::from_utf8_lossy(&a).get(9..12).unwrap_or("").to_string()
        };
        assert_eq!(status("GET / HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n"), "200");
        assert_eq!(status("GET / HTTP/1.1\r\nHost: evil.example:7878\r\n\r\n"), "421");
        assert_eq!(status("GET / HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nHost: evil.example\r\n\r\n"), "400");
        assert_eq!(status("GET /face/%zz.svg HTTP/1.1\r\nHost: localhost:7878\r\n\r\n"), "400");
        assert_eq!(status("\x00\x01 garbage\r\n\r\n"), "400");
        // The event stream ends after its first event here (no reloads come).
        let a = s.answer(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n", Duration::from_secs(5));
        assert!(String::from_utf8_lossy(&a).contains("event: reload"));
        // A seat count the command line would refuse is refused (it once sized a vector).
        let new = |players: &str| {
            status(&format!(
                "POST /play/new?pack=tiny&players={players} HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nX-Crown: play\r\n\r\n"
            ))
        };
        assert_eq!(new("7273703029523728157"), "400");
        assert_eq!(new("0"), "400");
        assert_eq!(new("2"), "200");
        // An action from a page showing another game, or another point of it (a second
        // tab), is refused; one from the page showing this one is taken.
        let act = |q: &str| {
            status(&format!("POST /play/choose?{q} HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nX-Crown: play\r\n\r\n"))
        };
        let game = play_call_game(&s);
        assert_eq!(act(&format!("i=0&game={}&total=0", game + 1)), "409");
        assert_eq!(act(&format!("i=0&game={game}&total=5")), "409");
        assert_eq!(act(&format!("i=0&game={game}&total=0")), "200");
        assert_eq!(act(&format!("i=0&game={game}&total=0")), "409", "the game moved on");
        // Without the page's header, or from another origin: refused before anything runs.
        assert_eq!(status("POST /play/rewind?to=0 HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n"), "403");
        let cross = "POST /play/rewind?to=0 HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nX-Crown: play\r\nOrigin: http://evil.example\r\n\r\n";
        assert_eq!(status(cross), "403");
        // Pipelined: both answered on the one connection.
        let two = "GET /fragment HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n".repeat(2);
        let a = s.answer(two.as_bytes(), Duration::from_secs(5));
        assert_eq!(String::from_utf8_lossy(&a).matches("HTTP/1.1 200").count(), 2);
    }
}
