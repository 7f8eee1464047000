// holokb proof browser: ask a question (POST-free GET /answer) or a fact (GET /explain), show the
// verdict, the fact chain, the proof DAG as SVG and the source sentences highlighted in their chunks.
// Everything is built with DOM calls and textContent (never innerHTML with data from the KB).
"use strict";

const DAY = 86400000;
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let prefixes = {};
let domain = null;            // [startMs, endMs] of the valid-time slider
let current = null;           // the view model on screen

function el(tag, attrs, ...kids) {
  const n = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
  for (const k of kids) n.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return n;
}

function short(iri) {
  let best = null;
  for (const [p, ns] of Object.entries(prefixes)) {
    if (iri.startsWith(ns) && /^[\w.-]*$/.test(iri.slice(ns.length)) && (!best || ns.length > best[1].length)) best = [p, ns];
  }
  return best ? `${best[0]}:${iri.slice(best[1].length)}` : `<${iri}>`;
}

function term(t) {
  if (!t) return "?";
  if (t.type === "uri") return short(t.value);
  if (t.datatype && t.datatype.endsWith("#string")) return JSON.stringify(t.value);
  if (t.datatype && /#(integer|decimal|boolean)$/.test(t.datatype)) return t.value;
  return `"${t.value}"` + (t.lang ? `@${t.lang}` : t.datatype ? `^^${short(t.datatype)}` : "");
}

function atom(predicate, args, negated) {
  let text = predicate.endsWith("#type") && args.length === 2
    ? `${term(args[1])}(${term(args[0])})` : `${short(predicate)}(${args.map(term).join(", ")})`;
  return negated ? `not ${text}` : text;
}

function isoDay(ms) { return new Date(ms).toISOString().slice(0, 10); }
function interval(from, to) {
  const a = from === null || from === undefined || from <= -9e18 ? "-inf" : new Date(from).toISOString().replace(".000Z", "Z");
  const b = to === null || to === undefined ? "+inf" : new Date(to).toISOString().replace(".000Z", "Z");
  return `[${a}, ${b})`;
}

// ---- view models: both APIs become {verdict, text, reason, nodes[], root, chunks} -------------------

function fromExplain(doc) {
  const view = { verdict: doc.holds ? "supported" : "unsupported", text: doc.holds ? "Yes, it holds" : null,
                 reason: null, nodes: [], root: null, chunks: doc.chunks || {} };
  const fact = atom(doc.fact.predicate, doc.fact.args, false);
  if (!doc.holds) {
    view.reason = `${fact} does not hold at this time` + (doc.truncated ? ` (closure cut short: ${doc.limitHit})` : "");
    return view;
  }
  const nodes = doc.proof.nodes;
  view.root = doc.proof.root;
  for (const [id, n] of Object.entries(nodes)) {
    view.nodes.push({ id, label: atom(n.predicate, n.args, n.negated), rule: n.rule, partial: n.partial,
                      role: id === view.root ? "conclusion" : n.rule ? "derived" : "premise",
                      valid: n.valid, premises: n.premises, evidence: n.evidence || [], score: n.score });
  }
  return view;
}

function fromAnswer(doc) {
  const view = { verdict: doc.verdict, text: doc.text, reason: doc.reason ? doc.reason.message : null,
                 nodes: [], root: null, chunks: doc.chunks || {} };
  for (const e of doc.factChain) {
    const f = e.fact;
    const args = f.object ? [f.subject, f.object] : [f.subject];
    view.nodes.push({ id: e.factId, label: atom(f.predicate, args, f.polarity === "negate"), rule: e.rule,
                      partial: false, role: e.role, valid: [f.valid.from, f.valid.to],
                      premises: e.premises, evidence: e.evidence, score: e.score });
    if (e.role === "conclusion") view.root = e.factId;
  }
  for (const c of doc.conflicts || []) {
    view.reason = (view.reason ? view.reason + " · " : "") + c.message;
  }
  return view;
}

// ---- rendering -------------------------------------------------------------------------------------

function render(view) {
  current = view;
  $("result").hidden = false;
  const v = $("verdict");
  v.textContent = view.verdict;
  v.className = `verdict ${view.verdict}`;
  $("answer-text").textContent = view.text || "";
  $("reason").textContent = view.reason || "";
  renderChain(view);
  renderDag(view);
  renderSources(view);
  widenDomain(view);
}

function order(view) {
  const rank = { premise: 0, derived: 1, conclusion: 2 };
  return [...view.nodes].sort((a, b) => rank[a.role] - rank[b.role] || a.label.localeCompare(b.label));
}

function renderChain(view) {
  const list = $("chain");
  list.replaceChildren();
  for (const n of order(view)) {
    const meta = [`valid ${interval(n.valid[0], n.valid[1])}`];
    if (n.rule) meta.push(`by rule ${n.rule}`);
    if (n.score !== null && n.score !== undefined) meta.push(`score ${Number(n.score).toFixed(3)}`);
    for (const e of n.evidence) meta.push(`from ${e.document}#${e.chunk} [${e.charStart}:${e.charEnd}]`);
    const li = el("li", { "data-id": n.id, "data-role": n.role }, el("span", { class: "role" }, n.role),
                  el("span", { class: "atom" }, n.label), el("span", { class: "meta" }, meta.join(" · ")));
    li.addEventListener("click", () => select(n.id));
    list.append(li);
  }
}

function layers(view) {
  // depth = longest path from the conclusion, so every premise sits below everything resting on it
  const byId = Object.fromEntries(view.nodes.map((n) => [n.id, n]));
  const depth = {};
  const visit = (id, d) => {
    if (!byId[id] || (depth[id] !== undefined && depth[id] >= d)) return;
    depth[id] = d;
    for (const p of byId[id].premises) visit(p, d + 1);
  };
  if (view.root) visit(view.root, 0);
  for (const n of view.nodes) if (depth[n.id] === undefined) depth[n.id] = 0;
  const rows = [];
  for (const n of order(view)) (rows[depth[n.id]] = rows[depth[n.id]] || []).push(n);
  return rows;
}

function renderDag(view) {
  const box = $("dag");
  box.replaceChildren();
  if (!view.nodes.length) return;
  const rows = layers(view);
  const W = 300, H = 46, GX = 24, GY = 46;
  const width = Math.max(...rows.map((r) => r.length)) * (W + GX) + GX;
  const height = rows.length * (H + GY) + GY;
  const svg = el("svg:svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
                              "aria-label": "proof DAG" });
  const defs = el("svg:defs", {}, el("svg:marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5",
                                                      markerWidth: "7", markerHeight: "7", orient: "auto" },
                                     el("svg:path", { d: "M0,0 L10,5 L0,10 z", fill: "#9aa5b4" })));
  svg.append(defs);
  const pos = {};
  rows.forEach((row, d) => {
    const offset = (width - row.length * (W + GX) + GX) / 2;
    row.forEach((n, i) => { pos[n.id] = { x: offset + i * (W + GX), y: GY / 2 + d * (H + GY) }; });
  });
  for (const n of view.nodes) {
    for (const p of n.premises) {
      if (!pos[p]) continue;
      svg.append(el("svg:line", { x1: pos[p].x + W / 2, y1: pos[p].y, x2: pos[n.id].x + W / 2, y2: pos[n.id].y + H }));
    }
  }
  for (const n of view.nodes) {
    const { x, y } = pos[n.id];
    const cls = `node ${n.rule ? "derived" : "asserted"}${n.partial ? " partial" : ""}`;
    const label = n.label.length > 40 ? n.label.slice(0, 39) + "…" : n.label;
    const g = el("svg:g", { class: cls, "data-id": n.id, transform: `translate(${x},${y})` },
                 el("svg:title", {}, n.label),
                 el("svg:rect", { width: W, height: H }),
                 el("svg:text", { x: 8, y: 18 }, label),
                 el("svg:text", { x: 8, y: 36, class: "sub" },
                    (n.rule ? `rule ${n.rule}` : "asserted") + `  ${interval(n.valid[0], n.valid[1])}`));
    g.addEventListener("click", () => select(n.id));
    svg.append(g);
  }
  box.append(svg);
}

function renderSources(view) {
  const box = $("sources");
  box.replaceChildren();
  const spans = {};  // chunk ref -> [{start, end, id}]
  for (const n of view.nodes) {
    for (const e of n.evidence) {
      if (e.chunk === null || e.charStart === null) continue;
      const ref = `${e.document}#${e.chunk}`;
      (spans[ref] = spans[ref] || []).push({ start: e.charStart, end: e.charEnd, id: n.id });
    }
  }
  for (const ref of Object.keys(spans).sort()) {
    const text = view.chunks[ref];
    const div = el("div", { class: "chunk", "data-chunk": ref }, el("h3", {}, ref));
    if (text === undefined) { div.append("(chunk text not available)"); box.append(div); continue; }
    const marks = spans[ref].sort((a, b) => a.start - b.start || b.end - a.end);
    let at = 0;
    for (const m of marks) {
      if (m.start < at) continue;  // overlapping spans: the first one shown is kept whole
      div.append(text.slice(at, m.start));
      div.append(el("mark", { "data-id": m.id }, text.slice(m.start, m.end)));
      at = m.end;
    }
    div.append(text.slice(at));
    box.append(div);
  }
}

function select(id) {
  for (const n of document.querySelectorAll("[data-id]")) {
    const on = n.getAttribute("data-id") === id;
    if (n.tagName.toLowerCase() === "mark") n.classList.toggle("focus", on);
    else n.classList.toggle("selected", on);
  }
}

// ---- time ------------------------------------------------------------------------------------------

function widenDomain(view) {
  const edges = [];
  for (const n of view.nodes) for (const t of n.valid) if (t !== null && t > -9e18) edges.push(t);
  if (!edges.length) return;
  const lo = Math.min(...edges) - 60 * DAY, hi = Math.max(...edges) + 60 * DAY;
  if (domain && lo >= domain[0] && hi <= domain[1]) return;
  const keep = sliderTime();
  domain = domain ? [Math.min(domain[0], lo), Math.max(domain[1], hi)] : [lo, hi];
  $("when").max = String(Math.round((domain[1] - domain[0]) / DAY));
  setSlider(keep);
}

function sliderTime() {
  if (!domain) return null;
  return domain[0] + Number($("when").value) * DAY;
}

function setSlider(ms) {
  if (ms === null) return;
  $("when").value = String(Math.round((ms - domain[0]) / DAY));
  showTime();
}

function showTime() {
  $("when-text").value = $("latest").checked || !domain ? "latest" : isoDay(sliderTime());
}

// ---- asking ----------------------------------------------------------------------------------------

const FACT = /^\s*[A-Za-z][\w-]*:[\w.-]*\s*\(.*\)\s*\.?\s*$/s;

// Only the latest question may write the page: moving the slider asks once per step, and an older
// answer arriving after a newer one must not replace it (the page would show another time than its slider).
let asking = null;

async function ask() {
  const q = $("question").value.trim();
  if (!q) return;
  const params = new URLSearchParams();
  const valid = $("latest").checked || !domain ? null : isoDay(sliderTime());
  const system = $("system").value.trim();
  if (system && system !== "latest") params.set("as-of", system);
  if (valid) params.set("valid", valid);
  else if (system && system !== "latest") params.set("valid", "latest");
  const isFact = FACT.test(q);
  params.set(isFact ? "fact" : "question", q);
  const status = $("status");
  status.className = "";
  status.textContent = "asking…";
  if (asking) asking.abort();
  const mine = new AbortController();
  asking = mine;
  try {
    const r = await fetch(`/${isFact ? "explain" : "answer"}?${params}`,
      { headers: { Accept: "application/json" }, signal: mine.signal });
    const doc = await r.json().catch(() => null);
    if (asking !== mine) return;
    if (!r.ok) {
      const detail = doc && doc.detail ? doc.detail : `${r.status} ${r.statusText}`;
      throw new Error(r.status === 404 && !isFact
        ? "this server has no answer API yet; ask a fact, e.g. ex:expired(ex:supportConsoleToken)" : detail);
    }
    prefixes = doc.prefixes || prefixes;
    render(isFact ? fromExplain(doc) : fromAnswer(doc));
    status.textContent = `as of ${valid ? `valid ${valid}` : "latest"}` + (system && system !== "latest" ? `, recorded ${system}` : "");
    document.body.dataset.state = "answered";
  } catch (e) {
    if (asking !== mine) return;  // superseded (aborted or late): the newer question owns the page
    status.className = "error";
    status.textContent = String(e.message || e);
    document.body.dataset.state = "error";
  }
}

$("ask").addEventListener("submit", (ev) => { ev.preventDefault(); ask(); });
$("when").addEventListener("input", () => { $("latest").checked = false; showTime(); });
$("when").addEventListener("change", () => { if (current) ask(); });
$("latest").addEventListener("change", () => { showTime(); if (current) ask(); });
(() => {
  const u = new URLSearchParams(location.search);
  if (u.get("q")) $("question").value = u.get("q");
  if (u.get("valid")) {
    const t = Date.parse(u.get("valid"));
    if (!Number.isNaN(t)) { domain = [t - 180 * DAY, t + 180 * DAY]; $("when").max = "360"; $("latest").checked = false; setSlider(t); }
  }
  showTime();
  if (u.get("q")) ask();
})();
