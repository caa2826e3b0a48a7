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
  // Every game action carries the page's header (the server refuses one without it); so
  // does a preview, which plays the game on a copy.
  const opts = method === "POST" ? { method: "POST", headers: { "X-Crown": "play" } }
    : { cache: "no-store", headers: path.startsWith("/play/preview") ? { "X-Crown": "play" } : {} };
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
      // The game and the point this page shows: the server refuses an action meant for
      // another (a game another tab started, or played on).
      if (view && !path.startsWith("/play/new")) path += "&game=" + view.game + "&total=" + view.total;
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
  // A card an option is about is taken by a click on it (where several are, they are
  // listed beside the table); another card is enlarged.
  const naming = c.card === null || at !== null ? [] : view.options.map((o, i) => (o.cards.includes(c.card) ? i : -1)).filter((i) => i >= 0);
  if (c.card !== null) d.setAttribute("data-card", c.card);
  if (c.id) {
    const src = "/face/" + encodeURIComponent(view.pack) + "/" + encodeURIComponent(c.id) + ".svg";
    const img = el("img", { src: src, alt: c.name, title: c.name + (naming.length ? " (click to choose)" : " (click to enlarge)") });
    img.onerror = () => { img.remove(); };
    if (!naming.length) img.onclick = () => enlarge(src, c.name);
    d.appendChild(img);
  }
  if (naming.length && !view.several && !view.number) {
    d.classList.add("choosable");
    d.onclick = (e) => {
      e.stopPropagation();
      if (naming.length === 1) { pick(naming[0]); return; }
      mapChoices(view, c.name, naming);
    };
  }
  d.appendChild(el("div", { class: "name" }, c.name));
  // The marks the pack shows ("worth 1"), as a badge on the card.
  if (c.marks.length) d.appendChild(el("div", { class: "marks" }, c.marks.join(", ")));
  for (const u of c.under) d.appendChild(el("div", { class: "under" }, "under it: " + u.name));
  return d;
}

// A card face at reading size, over the page; a click anywhere closes it.
function enlarge(src, name) {
  const o = el("div", { id: "enlarged", title: "click to close" });
  o.appendChild(el("img", { src: src, alt: name }));
  o.onclick = () => o.remove();
  document.body.appendChild(o);
}

// The New-game form, once per game shown: the settings of the game on the table (the
// hosted one, or the last started), so "Start a game" plays it again as it is.
let formOf = null;
function fillForm(v) {
  const key = [v.pack, v.scenario, v.seed, v.kinds.join(",")].join("|");
  if (formOf === key) return;
  formOf = key;
  $("pack").value = v.pack;
  fillScenarios();
  $("scenario").value = v.scenario || "";
  $("players").value = v.names.length;
  $("agents").value = v.kinds.join(",");
  $("seed").value = v.seed;
}

// People sharing the screen: before another person's seat is shown the screen is passed
// on, and the table stays hidden until that person asks for it.
let shownSeat = null;
function show(v) {
  view = v;
  fillForm(v);
  chosen = null;
  const passing = v.humans.length > 1 && shownSeat !== null && v.seat !== shownSeat && !v.over;
  if (!passing) shownSeat = v.seat;
  $("handover").hidden = !passing;
  $("handover-text").textContent = "Pass the screen to " + v.names[v.seat] + ".";
  $("handover-ready").onclick = () => { shownSeat = view.seat; show(view); };
  $("game").hidden = passing;
  const who = v.humans.length > 1 ? v.names[v.seat] + "'s seat" : "you are " + v.names[v.seat];
  $("title").textContent = v.pack_name + " — seed " + v.seed + " — " + who;
  $("past").hidden = at === null;
  $("past-step").textContent = v.step;
  $("status").textContent = v.status;
  $("board").textContent = v.board;
  $("board").hidden = !$("show-board").checked;
  // The map is drawn by the server from board.toml (an SVG made of escaped text only). A
  // click on a space, or on a supply beneath the map, takes the option naming it; where
  // several do, they are listed beside the map to pick from. What names nothing on the
  // map (passing, buying nothing) is listed there too, so a game is played on the board.
  $("map").innerHTML = v.map || "";
  const named = new Set();
  for (const g of document.querySelectorAll("#map .space, #map .supply")) {
    const supply = g.classList.contains("supply");
    const id = g.getAttribute(supply ? "data-supply" : "data-space");
    const naming = v.options.map((o, i) => ((supply ? o.supplies : o.spaces).includes(id) ? i : -1)).filter((i) => i >= 0);
    naming.forEach((i) => named.add(i));
    if (!naming.length || at !== null) continue;
    g.classList.add("choosable");
    g.onclick = () => {
      // In a set to pick, a click ticks (or unticks) the option the space names.
      if (v.several && naming.length === 1) {
        document.querySelector('#options input.pick[data-i="' + naming[0] + '"]').click();
        return;
      }
      if (naming.length === 1) { pick(naming[0]); return; }
      for (const b of document.querySelectorAll("#options .option")) {
        b.classList.toggle("marked", naming.includes(Number(b.getAttribute("data-i"))));
      }
      mapChoices(v, g.querySelector("title").textContent.split(",")[0].split(":")[0], naming);
    };
  }
  mapChoices(v, null, []);
  mapOff(v, v.options.map((_, i) => i).filter((i) => !named.has(i)));
  $("over").textContent = v.over || "";
  $("error").textContent = v.error || failure;
  $("step").textContent = "decision " + v.step + " of " + v.total;
  $("prompt").textContent = v.prompt ? v.names[v.seat] + ", " + v.prompt + ":" : "";
  $("confirm").hidden = true;
  const opts = $("options");
  opts.innerHTML = "";
  aiming = null;
  $("place-bar").hidden = true;
  const places = [];
  if (v.number) {
    // A number from lo to hi: one field, not a button each.
    const [lo, hi] = v.number;
    const f = el("input", { id: "number", type: "number", min: lo, max: hi, value: lo, "aria-label": v.prompt });
    const b = el("button", { class: "option", id: "number-go", type: "button" }, "Choose");
    b.disabled = at !== null;
    b.onclick = () => {
      const n = Number(f.value);
      if (Number.isInteger(n) && n >= lo && n <= hi) pick(n - lo);
      else $("error").textContent = "a number from " + lo + " to " + hi;
    };
    opts.appendChild(el("label", { class: "number" }, "a number from " + lo + " to " + hi + " "));
    opts.appendChild(f);
    opts.appendChild(b);
  }
  if (v.several) {
    // A set of the options, ticked in the order they are to be taken, sent at once.
    const [least, most] = v.several;
    const ticked = [];
    const how = least === most ? "pick " + least : least === 0 ? "pick up to " + most + ", or none" : "pick " + least + " to " + most;
    $("prompt").textContent += " (" + how + ", in the order they are taken)";
    const go = el("button", { class: "option", id: "several-go", type: "button" }, "Take these");
    const order = el("span", { class: "about", id: "several-order" }, "");
    const tick = (i, box) => {
      const k = ticked.indexOf(i);
      if (box.checked && k < 0) ticked.push(i);
      if (!box.checked && k >= 0) ticked.splice(k, 1);
      order.textContent = ticked.length ? "in this order: " + ticked.map((t) => v.options[t].label).join("; ") : "";
      go.disabled = at !== null || ticked.length < least || ticked.length > most;
    };
    v.options.forEach((o, i) => {
      const box = el("input", { type: "checkbox", class: "pick", "data-i": i });
      box.disabled = at !== null;
      box.onchange = () => tick(i, box);
      const l = el("label", { class: "option pick", title: o.explain }, "");
      l.appendChild(box);
      l.appendChild(document.createTextNode(" " + o.label));
      if (o.note) l.appendChild(el("span", { class: "note" }, o.note));
      opts.appendChild(l);
    });
    go.disabled = at !== null || least > 0;
    go.onclick = () => act("/play/choose?picks=" + ticked.join(","));
    opts.appendChild(go);
    opts.appendChild(order);
  }
  v.options.forEach((o, i) => {
    if (v.number || v.several) return;
    if (o.place) { places.push(i); return; }
    const b = el("button", { class: "option", type: "button", "data-i": i, title: o.explain }, o.label);
    if (o.ends_turn) b.appendChild(el("span", { class: "ends" }, "ends your turn"));
    if (o.note) b.appendChild(el("span", { class: "note" }, o.note));
    if (o.about) b.appendChild(el("span", { class: "about" }, o.about));
    b.disabled = at !== null;
    b.onclick = () => pick(i);
    opts.appendChild(b);
    // What taking it would do, worked out on a copy of the table (`preview N` at the terminal).
    const pv = el("button", { class: "preview", type: "button", "data-i": i, title: "what taking it would do" }, "preview");
    pv.disabled = at !== null;
    pv.onclick = () => preview(i);
    opts.appendChild(pv);
  });
  $("preview").hidden = true;
  if (places.length) opts.appendChild(placeList(v, places));
  // What the rules show but do not offer now, and why.
  for (const [label, why] of v.unavailable) {
    const b = el("button", { class: "option unavailable", type: "button", title: why }, label);
    b.appendChild(el("span", { class: "about" }, "not now: " + why));
    b.disabled = true;
    opts.appendChild(b);
  }
  drawBoards(v);
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
    // "▸ decision 3: Take Walls for your Castle": what the person chose there.
    const what = k <= v.chosen.length ? ": " + v.chosen[k - 1] : "";
    const li = el("li", { class: "decision" + (k === v.step ? " current" : ""), "data-step": k }, "▸ decision " + k + what);
    li.onclick = () => { at = k === v.total ? null : k; load(true); };
    log.appendChild(li);
  };
  for (const l of v.log) {
    while (shown < l.at) { shown += 1; if (shown > 0) mark(shown); }
    // "── turn 5 · Bea ──": the header that opens a turn.
    log.appendChild(el("li", l.text.startsWith("── ") ? { class: "turn" } : {}, l.text));
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

// ---- boards and tiles ----

let aiming = null;  // the tile being laid: { board, square, ways (option numbers), k (the one shown) }

// The ways to lay a tile, grouped by square ("d13 at c4: north east south"), folded away:
// the board is where a person lays it.
function placeList(v, places) {
  const d = el("details", { id: "place-list" });
  d.appendChild(el("summary", {}, "Lay the tile: click a square of the board (" + places.length + " ways), or pick one here"));
  let group = null, head = null;
  for (const i of places) {
    const o = v.options[i];
    const h = o.place.head;
    if (h !== head) {
      head = h;
      group = el("div", { class: "place-group" });
      group.appendChild(el("span", { class: "head" }, h + ", facing"));
      d.appendChild(group);
    }
    const b = el("button", { class: "place", type: "button", "data-i": i, title: o.label }, o.place.facing);
    b.disabled = at !== null;
    b.onclick = () => pick(i);
    group.appendChild(b);
  }
  return d;
}

// Each board as a grid of squares in their terrains' colours. While a tile waits to be
// laid, the squares it may cover take clicks: a click shows a way to lay it there, another
// click (or Turn) the next way, and "Lay it here" takes it.
function drawBoards(v) {
  const host = $("boards");
  host.innerHTML = "";
  v.boards.forEach((b, bi) => {
    const d = el("div", { class: "board", "data-board": bi });
    d.appendChild(el("h3", {}, b.label));
    const g = el("div", { class: "grid" });
    g.style.gridTemplateColumns = "1.6em repeat(" + b.cols.length + ", 3.2em)";
    g.appendChild(el("span", { class: "corner" }));
    for (const c of b.cols) g.appendChild(el("span", { class: "col" }, c));
    b.squares.forEach((row, r) => {
      g.appendChild(el("span", { class: "row" }, b.rows[r]));
      for (const q of row) {
        const s = el("div", { class: "square" + (q.terrain ? " filled" : ""), "data-square": q.name });
        s.title = q.name + (q.terrain ? ": " + q.terrain + (q.values ? ", " + q.values : "") + (q.tile ? " (" + q.tile + ")" : "") : ": empty");
        if (q.color) s.style.background = q.color;
        if (q.terrain) s.appendChild(el("span", { class: "terrain" }, q.terrain));
        if (q.values) s.appendChild(el("span", { class: "values" }, q.values));
        if (at === null && ways(v, bi, q.name).length) {
          s.classList.add("can");
          s.onclick = () => aim(bi, q.name);
        }
        g.appendChild(s);
      }
    });
    d.appendChild(g);
    host.appendChild(d);
  });
}

// The options that lay the tile on board `bi` covering square `name`, those whose first
// cell lies there first.
function ways(v, bi, name) {
  const all = v.options.map((o, i) => i).filter((i) => {
    const p = v.options[i].place;
    return p && p.board === bi && p.squares.includes(name);
  });
  return all.filter((i) => v.options[i].place.at === name).concat(all.filter((i) => v.options[i].place.at !== name));
}

function aim(bi, name) {
  if (aiming && aiming.board === bi && aiming.square === name) {
    aiming.k = (aiming.k + 1) % aiming.ways.length;
  } else {
    aiming = { board: bi, square: name, ways: ways(view, bi, name), k: 0 };
  }
  showAim();
}

function showAim() {
  for (const s of document.querySelectorAll("#boards .square.ghost")) {
    s.classList.remove("ghost");
    s.style.background = s.dataset.was || "";
    const t = s.querySelector(".ghost-terrain");
    if (t) t.remove();
  }
  if (!aiming) { $("place-bar").hidden = true; return; }
  const i = aiming.ways[aiming.k];
  const p = view.options[i].place;
  const board = document.querySelector('#boards .board[data-board="' + p.board + '"]');
  p.squares.forEach((name, j) => {
    const s = board.querySelector('.square[data-square="' + name + '"]');
    s.dataset.was = s.style.background;
    s.classList.add("ghost");
    if (p.colors[j]) s.style.background = p.colors[j];
    s.appendChild(el("span", { class: "ghost-terrain" }, p.terrains[j] || ""));
  });
  $("place-what").textContent = view.options[i].label + (aiming.ways.length > 1 ? " (way " + (aiming.k + 1) + " of " + aiming.ways.length + " here)" : "");
  $("turn").disabled = aiming.ways.length < 2;
  $("place-bar").hidden = false;
}

$("turn").onclick = () => { if (aiming) { aiming.k = (aiming.k + 1) % aiming.ways.length; showAim(); } };
$("lay").onclick = () => { if (aiming) pick(aiming.ways[aiming.k]); };
$("unaim").onclick = () => { aiming = null; showAim(); };

function preview(i) {
  return enqueue(async () => {
    try {
      const q = "?i=" + i + "&game=" + view.game + "&total=" + view.total;
      const v = await call("GET", "/play/preview" + q);
      $("preview").textContent = v.preview;
      $("preview").hidden = false;
    } catch (e) {
      $("error").textContent = e.message;
    } finally {
      window.crownPlayUpdates += 1;
    }
  });
}

function pick(i) {
  const o = view.options[i];
  if (o.confirm) {
    chosen = i;
    $("confirm-text").textContent = o.confirm;
    $("confirm").hidden = false;
    // Asked beside the map too, where the option may have been picked.
    if (view.map) {
      const here = $("map-here");
      here.innerHTML = "";
      here.appendChild(el("span", { class: "ask" }, o.confirm + " "));
      const yes = el("button", { class: "map-yes", type: "button" }, "Yes");
      yes.onclick = () => act("/play/choose?i=" + i);
      const no = el("button", { class: "map-no", type: "button" }, "No");
      no.onclick = () => { chosen = null; $("confirm").hidden = true; here.innerHTML = ""; };
      here.appendChild(yes);
      here.appendChild(no);
    }
    return;
  }
  act("/play/choose?i=" + i);
}

// Beside the map: the options a click on one of its elements (`where`) names, to pick one.
function mapChoices(v, where, naming) {
  const here = $("map-here");
  here.innerHTML = "";
  if (!naming.length) return;
  here.appendChild(el("span", { class: "head" }, where + ":"));
  for (const i of naming) here.appendChild(mapButton(v, i));
}

// A button beside the map that takes option `i`.
function mapButton(v, i) {
  const b = el("button", { class: "map-option", type: "button", "data-i": i }, v.options[i].label);
  b.onclick = () => pick(i);
  return b;
}

// Beside the map: the options that name nothing on it (passing, buying nothing), and, in a
// set to pick, the button that takes the set ticked.
function mapOff(v, off) {
  const d = $("map-off");
  d.innerHTML = "";
  d.hidden = !v.map || at !== null || v.number !== null;
  if (d.hidden) return;
  if (v.several) {
    const go = el("button", { class: "map-option", id: "map-several-go", type: "button" }, "Take these");
    go.onclick = () => $("several-go").click();
    d.appendChild(go);
    return;
  }
  if (!off.length) return;
  d.appendChild(el("span", { class: "head" }, "Not on the board:"));
  for (const i of off) d.appendChild(mapButton(v, i));
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
