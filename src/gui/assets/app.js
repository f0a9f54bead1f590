// The page of `chuhe gui`: draws the board and the panels from the server's
// state (GET /api/state, polled at most 10 times a second) and sends what
// the user does as API calls. All rules knowledge (legal moves, game end,
// notation) comes from the server; this only draws and forwards.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
const SVGNS = "http://www.w3.org/2000/svg";
const CELL = 100, MARGIN = 75;
const NAMES = {
  K: "帥", A: "仕", B: "相", E: "相", N: "傌", H: "傌", R: "俥", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", e: "象", n: "馬", h: "馬", r: "車", c: "砲", p: "卒",
};

let state = null;        // the last state from the server
let drawnVersion = -1;   // the state version the board shows
let drawnFlip = null;
let flipped = false;
let selected = null;     // ICCS square of the selected piece
let drag = null;         // {from, ghost, moved}
let pollTimer = null;
let busy = false;

const $ = (id) => document.getElementById(id);

function showError(msg) {
  const box = $("error");
  box.textContent = msg;
  box.hidden = !msg;
}

// One API call; the answer is the new state (or an error for the page).
async function api(name, body, opts = {}) {
  const url = `/api/${name}?token=${TOKEN}${opts.query || ""}`;
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": opts.raw ? "application/octet-stream" : "application/json" },
    body: opts.raw ? body : JSON.stringify(body),
  };
  let res;
  try {
    res = await fetch(url, init);
  } catch (e) {
    showError("The server does not answer (is chuhe gui still running?)");
    return null;
  }
  let data = null;
  try { data = await res.json(); } catch (e) { /* no JSON: reported below */ }
  if (!res.ok || !data) {
    showError((data && data.error) || `error ${res.status}`);
    return null;
  }
  if (name !== "state") showError("");
  update(data);
  return data;
}

// ---- board geometry --------------------------------------------------------

function sqToXY(sq) {
  let f = sq.charCodeAt(0) - 97, r = +sq.slice(1);
  if (flipped) { f = 8 - f; r = 9 - r; }
  return [MARGIN + f * CELL, MARGIN + (9 - r) * CELL];
}

function xyToSq(x, y) {
  let f = Math.round((x - MARGIN) / CELL), r = 9 - Math.round((y - MARGIN) / CELL);
  if (f < 0 || f > 8 || r < 0 || r > 9) return null;
  if (flipped) { f = 8 - f; r = 9 - r; }
  return String.fromCharCode(97 + f) + r;
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function parseFen(fen) {
  const board = {};
  const rows = fen.split(" ")[0].split("/");
  rows.forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (ch >= "1" && ch <= "9") f += +ch;
      else { board[String.fromCharCode(97 + f) + (9 - i)] = ch; f++; }
    }
  });
  return board;
}

function drawGrid(svg) {
  const g = el("g", { class: "grid" }, svg);
  const x0 = MARGIN, y0 = MARGIN, x1 = MARGIN + 8 * CELL, y1 = MARGIN + 9 * CELL;
  el("rect", { class: "frame", x: x0 - 12, y: y0 - 12, width: 8 * CELL + 24, height: 9 * CELL + 24 }, svg);
  for (let r = 0; r < 10; r++) el("line", { x1: x0, y1: y0 + r * CELL, x2: x1, y2: y0 + r * CELL }, g);
  for (let f = 0; f < 9; f++) {
    const x = x0 + f * CELL;
    if (f === 0 || f === 8) el("line", { x1: x, y1: y0, x2: x, y2: y1 }, g);
    else {
      el("line", { x1: x, y1: y0, x2: x, y2: y0 + 4 * CELL }, g);
      el("line", { x1: x, y1: y0 + 5 * CELL, x2: x, y2: y1 }, g);
    }
  }
  // The palaces' diagonals.
  for (const top of [0, 7]) {
    const ya = y0 + top * CELL, yb = ya + 2 * CELL;
    el("line", { x1: x0 + 3 * CELL, y1: ya, x2: x0 + 5 * CELL, y2: yb }, g);
    el("line", { x1: x0 + 5 * CELL, y1: ya, x2: x0 + 3 * CELL, y2: yb }, g);
  }
  // The marks where cannons and pawns start.
  const marks = [[1, 2], [7, 2], [1, 7], [7, 7]];
  for (let f = 0; f < 9; f += 2) marks.push([f, 3], [f, 6]);
  for (const [f, r] of marks) {
    const cx = x0 + f * CELL, cy = y0 + r * CELL, d = 8, l = 18;
    for (const sx of [-1, 1]) {
      if ((f === 0 && sx < 0) || (f === 8 && sx > 0)) continue;
      for (const sy of [-1, 1]) {
        el("polyline", {
          points: `${cx + sx * (d + l)},${cy + sy * d} ${cx + sx * d},${cy + sy * d} ${cx + sx * d},${cy + sy * (d + l)}`,
        }, g);
      }
    }
  }
  // The river: 楚河 on Black's side of it, 汉界 on Red's, read from Red's seat.
  const ry = y0 + 4.5 * CELL + 18;
  const left = flipped ? "汉界" : "楚河", right = flipped ? "楚河" : "汉界";
  el("text", { class: "river", x: x0 + 1.5 * CELL, y: ry, "text-anchor": "middle", "letter-spacing": "30" }, svg).textContent = left;
  el("text", { class: "river", x: x0 + 6.5 * CELL, y: ry, "text-anchor": "middle", "letter-spacing": "30" }, svg).textContent = right;
  // File coordinates (ICCS letters) along the bottom edge.
  for (let f = 0; f < 9; f++) {
    const name = String.fromCharCode(97 + (flipped ? 8 - f : f));
    el("text", { class: "coord", x: x0 + f * CELL, y: y1 + 64, "text-anchor": "middle" }, svg).textContent = name;
  }
}

function pieceNode(ch, x, y, parent) {
  const red = ch === ch.toUpperCase();
  const g = el("g", { class: "piece " + (red ? "red" : "black"), transform: `translate(${x},${y})` }, parent);
  el("circle", { class: "outer", r: 44, fill: "url(#piece-face)" }, g);
  el("circle", { class: "inner", r: 37 }, g);
  const t = el("text", { "text-anchor": "middle", "dominant-baseline": "central", y: 2 }, g);
  t.textContent = NAMES[ch] || "?";
  return g;
}

function canMoveFrom(sq) {
  return state && state.legal && Object.prototype.hasOwnProperty.call(state.legal, sq);
}

function drawBoard() {
  const svg = $("board");
  svg.textContent = "";
  const defs = el("defs", {}, svg);
  const grad = el("radialGradient", { id: "piece-face", cx: "40%", cy: "35%", r: "70%" }, defs);
  el("stop", { offset: "0%", "stop-color": "#fff6df" }, grad);
  el("stop", { offset: "100%", "stop-color": "#e2c48c" }, grad);
  const marker = el("marker", { id: "head", viewBox: "0 0 10 10", refX: "5", refY: "5", markerWidth: "3", markerHeight: "3", orient: "auto-start-reverse" }, defs);
  el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "rgba(30,140,60,0.85)" }, marker);
  drawGrid(svg);
  if (!state) return;
  const board = parseFen(state.fen);
  if (state.last_move) {
    for (const sq of [state.last_move.slice(0, 2), state.last_move.slice(2, 4)]) {
      const [x, y] = sqToXY(sq);
      el("rect", { class: "last", x: x - 48, y: y - 48, width: 96, height: 96, rx: 10 }, svg);
    }
  }
  if (state.in_check) {
    const king = Object.keys(board).find((sq) => board[sq] === (state.side_to_move === "red" ? "K" : "k"));
    if (king) { const [x, y] = sqToXY(king); el("circle", { class: "check", cx: x, cy: y, r: 54 }, svg); }
  }
  const layer = el("g", { id: "pieces" }, svg);
  for (const sq in board) {
    const [x, y] = sqToXY(sq);
    const g = pieceNode(board[sq], x, y, layer);
    g.dataset.sq = sq;
    if (canMoveFrom(sq)) g.classList.add("movable");
    if (sq === selected) g.classList.add("selected");
  }
  if (selected && canMoveFrom(selected)) {
    for (const to of state.legal[selected]) {
      const [x, y] = sqToXY(to);
      if (board[to]) el("circle", { class: "target capture", cx: x, cy: y, r: 47 }, svg);
      else el("circle", { class: "target", cx: x, cy: y, r: 14 }, svg);
    }
  }
  el("g", { id: "arrows" }, svg);
  drawArrow();
  drawnVersion = state.version;
  drawnFlip = flipped;
}

// The best move of the analysis as an arrow (redrawn on every poll).
function drawArrow() {
  const layer = $("arrows");
  if (!layer) return;
  layer.textContent = "";
  const best = state && state.engine.best;
  if (!best) return;
  const [x1, y1] = sqToXY(best.slice(0, 2)), [x2, y2] = sqToXY(best.slice(2, 4));
  const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1, cut = 30;
  el("line", {
    class: "arrow", x1, y1, x2: x2 - (dx / len) * cut, y2: y2 - (dy / len) * cut, "marker-end": "url(#head)",
  }, layer);
}

// ---- moving pieces -----------------------------------------------------------

function svgPoint(evt) {
  const svg = $("board");
  const pt = svg.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

async function tryMove(from, to) {
  selected = null;
  if (state.legal[from] && state.legal[from].includes(to)) {
    await api("move", { move: from + to });
  }
  drawBoard();
}

function onPointerDown(evt) {
  if (!state || evt.button > 0) return;
  const p = svgPoint(evt);
  const sq = xyToSq(p.x, p.y);
  if (!sq) return;
  if (selected && sq !== selected && state.legal[selected] && state.legal[selected].includes(sq)) {
    tryMove(selected, sq);
    return;
  }
  if (!canMoveFrom(sq)) { if (selected) { selected = null; drawBoard(); } return; }
  selected = sq;
  drawBoard();
  const piece = [...document.querySelectorAll("#pieces .piece")].find((g) => g.dataset.sq === sq);
  if (!piece) return;
  const ghost = piece.cloneNode(true);
  ghost.classList.add("ghost");
  ghost.setAttribute("transform", `translate(${p.x},${p.y})`);
  drag = { from: sq, piece, ghost, moved: false };
  $("board").setPointerCapture(evt.pointerId);
  evt.preventDefault();
}

function onPointerMove(evt) {
  if (!drag) return;
  const p = svgPoint(evt);
  if (!drag.moved) {
    drag.moved = true;
    drag.piece.classList.add("dragging");
    $("board").appendChild(drag.ghost);
  }
  drag.ghost.setAttribute("transform", `translate(${p.x},${p.y})`);
}

function onPointerUp(evt) {
  if (!drag) return;
  const d = drag;
  drag = null;
  if (!d.moved) return; // a click: the piece stays selected
  d.ghost.remove();
  const p = svgPoint(evt);
  const to = xyToSq(p.x, p.y);
  if (to && to !== d.from) tryMove(d.from, to);
  else drawBoard();
}

// ---- panels ------------------------------------------------------------------

function moveText(m) {
  return $("notation").value === "iccs" ? m.iccs : m.chinese;
}

function fmtClock(ms) {
  const s = Math.ceil(ms / 1000), m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

// Moves are numbered as moves, not plies: "1. Red Black" on a row, as
// records are written; a game from a Black-to-move position starts its first
// row with an empty Red cell.
function drawMoves() {
  const list = $("moves");
  list.textContent = "";
  const fields = (state.start_fen || "").split(/\s+/);
  const blackFirst = fields[1] === "b";
  const first = Math.max(1, parseInt(fields[5], 10) || 1);
  const cell = (cls, text) => {
    const li = document.createElement("li");
    li.className = cls;
    li.textContent = text;
    list.appendChild(li);
  };
  state.moves.forEach((m, i) => {
    const k = i + (blackFirst ? 1 : 0);
    if (k % 2 === 0 || i === 0) cell("num", `${first + Math.floor(k / 2)}.`);
    if (i === 0 && blackFirst) cell("empty", "…");
    const li = document.createElement("li");
    li.className = "mv";
    li.textContent = moveText(m);
    if (m.mark) {
      const s = document.createElement("span");
      s.className = "mark " + ({ "?!": "mark-inaccuracy", "?": "mark-mistake", "??": "mark-blunder" }[m.mark] || "");
      s.textContent = m.mark;
      li.appendChild(s);
    }
    if (m.variations) li.title = `${m.variations} variation(s) in the record`;
    if (i + 1 === state.cursor) li.classList.add("current");
    li.addEventListener("click", () => api("goto", { ply: i + 1 }));
    list.appendChild(li);
  });
  const cur = list.querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
  $("start-comment").textContent = state.start_comment || "";
  const m = state.cursor > 0 ? state.moves[state.cursor - 1] : null;
  $("comment").textContent = (m && m.comment) || "";
}

function drawGraph() {
  const svg = $("graph");
  svg.textContent = "";
  const plies = state.review.plies;
  el("line", { class: "axis", x1: 0, y1: 60, x2: 400, y2: 60 }, svg);
  if (!plies.length) return;
  const n = Math.max(state.review.total, plies.length);
  const x = (i) => (i / n) * 400;
  const y = (cp) => 60 - (Math.max(-1000, Math.min(1000, cp)) / 1000) * 56;
  let d = `M 0 60 L 0 60`;
  plies.forEach((p) => { d += ` L ${x(p.ply)} ${y(p.red_cp)}`; });
  d += ` L ${x(plies[plies.length - 1].ply)} 60 Z`;
  el("path", { class: "area", d }, svg);
  plies.forEach((p) => {
    if (!p.mark) return;
    el("circle", {
      cx: x(p.ply), cy: y(p.red_cp), r: 3.5,
      fill: { inaccuracy: "#b8860b", mistake: "#d2691e", blunder: "#c00" }[p.mark_name],
    }, svg);
  });
  el("line", { class: "cursor", x1: x(state.cursor), y1: 0, x2: x(state.cursor), y2: 120 }, svg);
}

function drawReview() {
  const r = state.review;
  let text = "";
  if (r.running) text = `Analysing: ${r.done}/${r.total} plies…`;
  else if (r.error) text = r.error;
  else if (r.plies.length) text = `Done: ${r.plies.length} plies.` + (r.ending ? ` Rules: ${r.ending}` : "");
  $("review-status").textContent = text;
  $("review-stop").disabled = !r.running;
  drawGraph();
  const ul = $("mistakes");
  ul.textContent = "";
  for (const p of r.plies) {
    if (!p.mark) continue;
    const li = document.createElement("li");
    const num = Math.ceil(p.ply / 2);
    li.textContent = `${num}${p.ply % 2 ? "." : "…"} ${$("notation").value === "iccs" ? p.iccs : p.chinese}${p.mark} ${p.mark_name}` +
      (p.best_chinese ? `, better ${p.best_chinese}` : "") + ` (${p.comment})`;
    li.className = "mark-" + p.mark_name;
    li.addEventListener("click", () => api("goto", { ply: p.ply - 1 }));
    ul.appendChild(li);
  }
}

function drawEngine() {
  const e = state.engine;
  const lines = $("lines");
  lines.textContent = "";
  for (const l of e.lines) {
    const li = document.createElement("li");
    const s = document.createElement("span");
    s.className = "score";
    s.textContent = l.score;
    li.appendChild(s);
    const pv = $("notation").value === "iccs" ? l.pv_iccs : l.pv_chinese;
    li.appendChild(document.createTextNode(` d${l.depth} ${pv.slice(0, 12).join(" ")}`));
    lines.appendChild(li);
  }
  const info = { idle: "Engine idle", thinking: "Engine thinking…", analysing: "Analysing", reviewing: "Analysing the game" }[e.task];
  $("engine-info").textContent = e.nodes ? `${info} · ${e.nodes.toLocaleString()} nodes · ${Math.round(e.nps / 1000)} kN/s` : info;
  const top = e.lines[0];
  const [w, d, l] = top ? top.wdl : [0, 1000, 0];
  $("wdl-w").style.width = w / 10 + "%";
  $("wdl-d").style.width = d / 10 + "%";
  $("wdl-l").style.width = l / 10 + "%";
  $("wdl").title = top ? `Red ${w / 10}% · draw ${d / 10}% · Black ${l / 10}% (score ${top.score})` : "no analysis";
  $("analyse").classList.toggle("on", state.analysing);
  $("analyse").textContent = state.analysing ? "Stop analysis" : "Analyse";
}

function drawStatus() {
  const g = state.game;
  let text;
  if (state.result) text = state.result.summary;
  else if (g.on) text = g.engine_side === state.side_to_move ? "Engine to move" : "Your move";
  else text = (state.side_to_move === "red" ? "Red" : "Black") + " to move";
  if (state.in_check && !state.result) text += " (check)";
  if (state.message) text += " · " + state.message;
  $("status").textContent = text;
  const res = $("result");
  res.hidden = !state.result;
  if (state.result) {
    $("result-summary").textContent = state.result.summary;
    $("result-detail").textContent = state.result.detail;
  }
  $("takeback").disabled = !state.moves.length;
  $("draw").disabled = $("resign").disabled = !g.on;
  $("analyse").disabled = g.on && !!g.engine_side;
  if (document.activeElement !== $("fen")) $("fen").value = state.fen;
  const c = state.clocks;
  $("clocks").hidden = !c;
  if (c) {
    $("clock-red").textContent = "Red " + fmtClock(c.red_ms);
    $("clock-black").textContent = "Black " + fmtClock(c.black_ms);
    $("clock-red").classList.toggle("running", c.running === "red");
    $("clock-black").classList.toggle("running", c.running === "black");
  }
}

function update(data) {
  state = data;
  if ((state.version !== drawnVersion || flipped !== drawnFlip) && !drag) {
    if (selected && !canMoveFrom(selected)) selected = null;
    drawBoard();
    drawMoves();
  } else {
    drawArrow();
  }
  drawEngine();
  drawStatus();
  drawReview();
  schedulePoll();
}

// Polls while something changes by itself (the engine, a clock); the
// interval keeps the page to at most 10 updates a second.
function schedulePoll() {
  clearTimeout(pollTimer);
  const active = state.engine.task !== "idle" || (state.clocks && state.clocks.running);
  pollTimer = setTimeout(poll, active ? 150 : 1000);
}

async function poll() {
  if (busy) { schedulePoll(); return; }
  busy = true;
  try { await api("state"); } finally { busy = false; }
}

// ---- controls ------------------------------------------------------------------

function newGame() {
  const req = { side: $("side").value };
  if ($("strength-kind").value === "elo") req.elo = Math.round(+$("elo").value);
  else req.level = Math.round(+$("level").value);
  if ($("tc-kind").value === "clock") {
    req.clock_min = +$("clock-min").value;
    req.inc_s = +$("inc-s").value;
  } else {
    req.movetime_ms = Math.round(+$("movetime").value * 1000);
  }
  if ($("from-board").checked && state) req.fen = state.fen;
  flipped = req.side === "black";
  selected = null;
  api("new", req);
}

async function download(format) {
  const res = await fetch(`/api/save?token=${TOKEN}&format=${format}`);
  if (!res.ok) {
    let msg = `error ${res.status}`;
    try { msg = (await res.json()).error; } catch (e) { /* keep the status */ }
    showError(msg);
    return;
  }
  const blob = await res.blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = "chuhe-game." + format;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

async function loadFile(file) {
  if (!file) return;
  const lower = file.name.toLowerCase();
  const format = lower.endsWith(".xqf") ? "xqf" : lower.endsWith(".pgn") ? "pgn" : "";
  const bytes = await file.arrayBuffer();
  const data = await api("load", bytes, { raw: true, query: format ? `&format=${format}` : "" });
  if (data) {
    flipped = false;
    selected = null;
    drawBoard();
    if (data.loaded_games > 1) showError(`${file.name} holds ${data.loaded_games} games; the first is loaded.`);
  }
}

function goto(ply) {
  if (!state) return;
  ply = Math.max(0, Math.min(state.moves.length, ply));
  if (ply !== state.cursor) api("goto", { ply });
}

function init() {
  const svg = $("board");
  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointercancel", () => { if (drag) { drag.ghost.remove(); drag = null; drawBoard(); } });
  $("first").onclick = () => goto(0);
  $("prev").onclick = () => goto(state.cursor - 1);
  $("next").onclick = () => goto(state.cursor + 1);
  $("last").onclick = () => goto(state.moves.length);
  $("flip").onclick = () => { flipped = !flipped; drawBoard(); };
  $("new-game").onclick = newGame;
  $("takeback").onclick = () => api("takeback", {});
  $("draw").onclick = () => api("draw", {});
  $("resign").onclick = () => { if (confirm("Resign this game?")) api("resign", {}); };
  $("analyse").onclick = () => api("analyse", { on: !state.analysing, multipv: +$("multipv").value });
  $("multipv").onchange = () => api("analyse", { on: state.analysing, multipv: +$("multipv").value });
  $("notation").onchange = () => { drawMoves(); drawEngine(); drawReview(); };
  $("strength-kind").onchange = () => {
    const elo = $("strength-kind").value === "elo";
    $("elo").hidden = !elo; $("level").hidden = elo;
  };
  $("tc-kind").onchange = () => {
    const clock = $("tc-kind").value === "clock";
    $("tc-clock").hidden = !clock; $("tc-move").hidden = clock;
  };
  $("set-fen").onclick = () => api("fen", { fen: $("fen").value });
  $("start-pos").onclick = () => api("fen", { fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" });
  $("file").onchange = (e) => { loadFile(e.target.files[0]); e.target.value = ""; };
  $("save-pgn").onclick = () => download("pgn");
  $("save-xqf").onclick = () => download("xqf");
  $("review").onclick = () => api("review", { movetime_ms: Math.round(+$("review-time").value * 1000) });
  $("review-stop").onclick = () => api("review", { stop: true });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || !state) return;
    if (e.key === "ArrowLeft") goto(state.cursor - 1);
    else if (e.key === "ArrowRight") goto(state.cursor + 1);
    else if (e.key === "Home") goto(0);
    else if (e.key === "End") goto(state.moves.length);
    else return;
    e.preventDefault();
  });
  // Drop a record file anywhere on the page.
  let depth = 0;
  document.addEventListener("dragenter", (e) => { e.preventDefault(); depth++; $("drop-hint").hidden = false; });
  document.addEventListener("dragleave", () => { if (--depth <= 0) { depth = 0; $("drop-hint").hidden = true; } });
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    depth = 0;
    $("drop-hint").hidden = true;
    if (e.dataTransfer.files.length) loadFile(e.dataTransfer.files[0]);
  });
  drawBoard();
  // Draw again once the font is in, so the pieces never show a fallback.
  if (document.fonts) document.fonts.load('bold 50px "ChuheCJK"', "帥將").then(() => drawBoard());
  poll();
}

init();
