//! The game page (`/play`): a form to start a game, then the table, the options as
//! buttons, the narrated log with every decision a step one can go back to, and saving
//! the game as a golden game. Everything it shows comes from `/play/state` (JSON, see
//! [`super::game::View`]); the cards are the printed faces (`/face/PACK/ID.svg`).

use super::Play;
use crate::out::html_escape;

/// The page, with the packs a game can be started with.
pub fn play_page(play: &Play) -> String {
    let mut packs = Vec::new();
    if let Ok(p) = play.packs.lock() {
        for (id, pack) in p.iter() {
            let scenarios: Vec<serde_json::Value> = pack
                .scenarios
                .iter()
                .map(|s| serde_json::json!({ "id": s.scenario.id, "name": s.scenario.name }))
                .collect();
            packs.push(serde_json::json!({
                "id": id,
                "name": pack.manifest.name,
                "min": pack.manifest.players.min,
                "max": pack.manifest.players.max,
                "scenarios": scenarios,
                "default": pack.default_scenario().map(|s| s.scenario.id.clone()),
            }));
        }
    }
    // The JSON goes into a script element: `</` must not close it.
    let packs = serde_json::Value::Array(packs).to_string().replace("</", "<\\/");
    PLAY_PAGE.replace("@PACKS@", &packs).replace("@TITLE@", &html_escape("Crown: play"))
}

const PLAY_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>@TITLE@</title>
<style>
body { font-family: sans-serif; margin: 1em 2em; background: #f4f1ea; color: #222; }
a { color: #1f5fa8; }
#game { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(300px, 2fr) minmax(260px, 1fr); gap: 16px; }
pre { background: #fffdf7; border: 1px solid #d8cfbd; padding: 8px; white-space: pre-wrap; font-size: 12px; }
#options button.option { display: block; width: 100%; text-align: left; margin: 3px 0; padding: 6px 8px; font-size: 13px; cursor: pointer; }
#confirm { background: #fff3cd; border: 1px solid #c9a227; padding: 8px; margin: 6px 0; }
.zone { margin-bottom: 10px; } .zone h3 { font-size: 13px; margin: 4px 0; }
.cards { display: flex; flex-wrap: wrap; gap: 6px; align-items: flex-start; }
.card { width: 92px; } .card img { width: 92px; display: block; border-radius: 4px; box-shadow: 0 1px 3px #0004; }
.card .name { font-size: 11px; text-align: center; } .card .under { margin-left: 10px; font-size: 11px; color: #555; }
#log { font-size: 12px; max-height: 70vh; overflow-y: auto; padding-left: 1.4em; }
#log li.decision { list-style: none; margin: 4px 0 2px -1.2em; cursor: pointer; color: #1f5fa8; font-weight: bold; }
#log li.decision.current { color: #a11; }
#travel button { margin: 2px; }
#error { color: #a11; font-weight: bold; white-space: pre-wrap; } #over { color: #276227; font-weight: bold; }
#past { background: #e7eefb; border: 1px solid #1f5fa8; padding: 6px; }
#live { position: fixed; top: 6px; right: 10px; font-size: 12px; color: #666; }
</style></head>
<body><div id="live">connecting…</div>
<p><a href="/">← the cards</a></p>
<h1>Play</h1>
<form id="new" onsubmit="return false">
  <label>Pack <select id="pack"></select></label>
  <label>Scenario <select id="scenario"></select></label>
  <label>Players <input id="players" type="number" min="1" max="64" style="width: 4em"></label>
  <label>Seats <input id="agents" value="human,random" size="24" title="human (you, once) and bots: random, first, greedy, search"></label>
  <label>Seed <input id="seed" type="number" value="1" style="width: 6em"></label>
  <button id="start" type="button">Start a game</button>
</form>
<div id="error"></div>
<div id="game" hidden>
  <section>
    <h2 id="title"></h2>
    <div id="past" hidden>Looking back at decision <span id="past-step"></span>.
      <button id="resume" type="button">Play on from here</button> <button id="now" type="button">Back to now</button></div>
    <pre id="status"></pre>
    <div id="over"></div>
    <div id="prompt"></div>
    <div id="options"></div>
    <div id="confirm" hidden><span id="confirm-text"></span>
      <button id="yes" type="button">Yes</button> <button id="no" type="button">No</button></div>
    <div id="travel">
      <button id="undo" type="button">Undo</button>
      <button id="back" type="button">◀ Back</button>
      <button id="forward" type="button">Forward ▶</button>
      <span id="step"></span>
    </div>
    <p><label><input id="show-board" type="checkbox"> the whole table</label></p>
    <pre id="board" hidden></pre>
    <p>Save as a golden game: <input id="save-name" placeholder="my-game" size="16">
      <input id="save-description" placeholder="what it shows" size="24">
      <button id="save" type="button">Save</button></p>
    <div id="saved"></div>
    <div id="reloads"></div>
  </section>
  <section><h2>Table</h2><div id="zones"></div></section>
  <section><h2>What happened</h2><ol id="log"></ol>
    <div id="scripts" hidden><h3>What the scripts printed</h3><pre id="script-output"></pre></div></section>
</div>
<script>
const PACKS = @PACKS@;
let view = null;      // the last view shown
let at = null;        // the decision looked at, or null for now
let chosen = null;    // an option waiting for its confirmation
let queue = Promise.resolve();  // requests go one at a time, so answers come in order
let failure = "";     // why the last action was refused
window.crownPlayUpdates = 0;  // answers shown (after an action or a look, not after a reload)

const $ = (id) => document.getElementById(id);
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

function fillPacks() {
  for (const p of PACKS) $("pack").appendChild(el("option", { value: p.id }, p.name + " (" + p.id + ")"));
  $("pack").onchange = fillScenarios;
  fillScenarios();
}
function fillScenarios() {
  const p = PACKS.find((x) => x.id === $("pack").value);
  const s = $("scenario");
  s.innerHTML = "";
  if (!p) return;
  s.appendChild(el("option", { value: "" }, "(default)"));
  for (const sc of p.scenarios) s.appendChild(el("option", { value: sc.id }, sc.name));
  $("players").min = p.min; $("players").max = p.max;
  $("players").value = Math.max(p.min, Math.min(2, p.max));
  $("agents").value = p.max === 1 ? "human" : "human,random";
}

async function call(method, path) {
  const opts = method === "POST" ? { method: "POST", headers: { "X-Crown": "play" } } : { cache: "no-store" };
  const r = await fetch(path, opts);
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || r.statusText);
  return j;
}
function enqueue(f) {
  const next = queue.then(f, f);
  queue = next.catch(() => {});
  return next;
}
function act(path) {
  return enqueue(async () => {
    failure = "";
    try {
      const v = await call("POST", path);
      at = null;
      show(v);
      return v;
    } catch (e) {
      failure = e.message;
      $("error").textContent = failure;
    } finally {
      window.crownPlayUpdates += 1;
    }
  });
}
// Look at the game again (`counted`: the person asked for it, not a reload of the rules).
function load(counted) {
  return enqueue(async () => {
    try {
      show(await call("GET", "/play/state" + (at === null ? "" : "?at=" + at)));
    } catch (e) {
      if (view) $("error").textContent = e.message;
    } finally {
      if (counted) window.crownPlayUpdates += 1;
    }
  });
}

function cardEl(c) {
  const d = el("div", { class: "card" });
  if (c.id) {
    const img = el("img", { src: "/face/" + encodeURIComponent(view.pack) + "/" + encodeURIComponent(c.id) + ".svg", alt: c.name, title: c.name });
    img.onerror = () => { img.remove(); };
    d.appendChild(img);
  }
  d.appendChild(el("div", { class: "name" }, c.name));
  for (const u of c.under) d.appendChild(el("div", { class: "under" }, "under it: " + u.name));
  return d;
}

function show(v) {
  view = v;
  chosen = null;
  $("game").hidden = false;
  $("title").textContent = v.pack_name + " — seed " + v.seed + " — you are " + v.names[v.seat];
  $("past").hidden = at === null;
  $("past-step").textContent = v.step;
  $("status").textContent = v.status;
  $("board").textContent = v.board;
  $("board").hidden = !$("show-board").checked;
  $("over").textContent = v.over || "";
  $("error").textContent = v.error || failure;
  $("step").textContent = "decision " + v.step + " of " + v.total;
  $("prompt").textContent = v.prompt ? v.names[v.seat] + ", " + v.prompt + ":" : "";
  $("confirm").hidden = true;
  const opts = $("options");
  opts.innerHTML = "";
  v.options.forEach((o, i) => {
    const b = el("button", { class: "option", type: "button", "data-i": i }, o.label);
    b.disabled = at !== null;
    b.onclick = () => pick(i);
    opts.appendChild(b);
  });
  const zs = $("zones");
  zs.innerHTML = "";
  for (const z of v.zones) {
    const d = el("div", { class: "zone" });
    const more = z.count > z.cards.length ? " (" + z.count + " cards" + (z.cards.length ? ", the top one shown" : "") + ")" : "";
    d.appendChild(el("h3", {}, z.label + more));
    const cs = el("div", { class: "cards" });
    for (const c of z.cards) cs.appendChild(cardEl(c));
    d.appendChild(cs);
    zs.appendChild(d);
  }
  const log = $("log");
  log.innerHTML = "";
  let shown = -1;
  const mark = (k) => {
    const li = el("li", { class: "decision" + (k === v.step ? " current" : ""), "data-step": k }, "▸ decision " + k);
    li.onclick = () => { at = k === v.total ? null : k; load(true); };
    log.appendChild(li);
  };
  for (const l of v.log) {
    while (shown < l.at) { shown += 1; if (shown > 0) mark(shown); }
    log.appendChild(el("li", {}, l.text));
  }
  while (shown < v.step) { shown += 1; if (shown > 0) mark(shown); }
  log.scrollTop = log.scrollHeight;
  $("undo").disabled = v.total === 0 || at !== null;
  $("back").disabled = v.step === 0;
  $("forward").disabled = at === null;
  $("scripts").hidden = v.script_output.length === 0;
  $("script-output").textContent = v.script_output.join("\n");
  $("reloads").textContent = v.reloads.length ? "Rules reloaded at decision " + v.reloads.join(", ") + "." : "";
}

function pick(i) {
  const o = view.options[i];
  if (o.confirm) {
    chosen = i;
    $("confirm-text").textContent = o.confirm;
    $("confirm").hidden = false;
    return;
  }
  act("/play/choose?i=" + i);
}

$("yes").onclick = () => { if (chosen !== null) act("/play/choose?i=" + chosen); };
$("no").onclick = () => { chosen = null; $("confirm").hidden = true; };
$("start").onclick = () => {
  const q = new URLSearchParams({ pack: $("pack").value, scenario: $("scenario").value, players: $("players").value, agents: $("agents").value, seed: $("seed").value });
  act("/play/new?" + q.toString());
};
$("undo").onclick = () => { if (view && view.total > 0) act("/play/rewind?to=" + (view.total - 1)); };
$("back").onclick = () => { if (view && view.step > 0) { at = view.step - 1; load(true); } };
$("forward").onclick = () => { if (view && at !== null) { at = at + 1 >= view.total ? null : at + 1; load(true); } };
$("now").onclick = () => { at = null; load(true); };
$("resume").onclick = () => { if (at !== null) act("/play/rewind?to=" + at); };
$("show-board").onchange = () => { $("board").hidden = !$("show-board").checked; };
$("save").onclick = async () => {
  const q = new URLSearchParams({ name: $("save-name").value, description: $("save-description").value });
  const v = await act("/play/save?" + q.toString());
  if (v && v.saved) $("saved").textContent = "saved " + v.saved.join(" and ");
};

fillPacks();
load(false);
const events = new EventSource("/events");
events.addEventListener("reload", () => { if (view) load(false); $("live").textContent = "live"; });
events.onopen = () => { $("live").textContent = "live"; };
events.onerror = () => { $("live").textContent = "disconnected; retrying…"; };
</script></body></html>
"#;
