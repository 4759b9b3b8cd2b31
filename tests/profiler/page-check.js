// page-check.js — runs the script of an `lzprof timeline` HTML page under node with a
// stub DOM and canvas, and checks that it draws, zooms, pans and answers clicks.
//   node page-check.js PAGE.html [--expect-exact]
// Prints what it did and the time the first draw took; exit status 1 on any failure.
"use strict";
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const wantExact = process.argv.includes("--expect-exact");
const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
const dataScript = scripts.find(s => /id="data"/.test(s[1]));
const code = scripts.find(s => !/id="data"/.test(s[1]));
function fail(msg) { console.log("FAIL: " + msg); process.exit(1); }
if (!dataScript || !code) fail("no data or no script element");

let fills = 0;
const ctx = new Proxy({}, { get(t, k) { if (k === "fillRect") return () => { fills++; }; if (k in t) return t[k]; return () => {}; },
                            set(t, k, v) { t[k] = v; return true; } });
const handlers = {};
function el(id) {
  return { id, textContent: "", style: {}, className: "", children: [],
    classList: { add() {}, remove() {} }, appendChild(c) { this.children.push(c); },
    addEventListener(ev, f) { handlers[id + ":" + ev] = f; }, set onclick(f) { handlers[id + ":click"] = f; },
    getContext() { return ctx; }, parentElement: { clientWidth: 1280 },
    getBoundingClientRect() { return { left: 0, top: 0 }; } };
}
const els = { data: { textContent: dataScript[2] } };
global.document = { getElementById(id) { return els[id] || (els[id] = el(id)); },
  createElement() { return el("x"); }, createTextNode(t) { return { t }; } };
global.window = { devicePixelRatio: 1, addEventListener(ev, f) { handlers["window:" + ev] = f; } };
global.atob = s => Buffer.from(s, "base64").toString("latin1");

const t0 = Date.now();
new Function(code[2] + "\n;globalThis.__lz = { get v0() { return v0; }, get v1() { return v1; }, ROWS_Y, ROW_H, LANE_H, GAP, LEFT, IV, SP, __SPAN: SPAN, get cols() { return cols; } };")();
const firstDraw = Date.now() - t0;
const P = globalThis.__lz;
if (fills === 0) fail("nothing drawn");
console.log("first draw (parse + decode + draw): " + firstDraw + " ms, " + fills + " rectangles");
const cv = els.cv;
const detail = () => els.details.textContent;
function click(x, y) {
  handlers["cv:mousedown"]({ offsetX: x, offsetY: y });
  handlers["window:mouseup"]({ target: cv, clientX: x });
  return detail();
}
// a click on capability 0's row at the whole-run view
const rowY = P.ROWS_Y + P.ROW_H / 2;
let d = click(P.LEFT + 300, rowY);
if (!/cap 0/.test(d)) fail("click on cap 0 gave: " + d);
console.log("click (whole run): " + d.split("\n")[0]);
// zoom with the wheel on the middle of cap 0's longest run (the time under the cursor
// stays put), pan by dragging and back, then click there
const W = 1280 - P.LEFT - 10;
let x = P.LEFT + 300, hit = -1;
if (P.IV) {
  const a = P.IV[0];
  for (let i = 0; i < a.n; i++) if (a.st[i] === 1 && (hit < 0 || a.t1[i] - a.t0[i] > a.t1[hit] - a.t0[hit])) hit = i;
  if (hit >= 0) x = P.LEFT + ((a.t0[hit] + a.t1[hit]) / 2 - P.v0) / ((P.v1 - P.v0) / W);
}
for (let i = 0; i < 40 && (P.v1 - P.v0) > 2e4; i++) handlers["cv:wheel"]({ deltaY: -1, offsetX: x, preventDefault() {} });
const span = P.v1 - P.v0, before = P.v0;
handlers["cv:mousedown"]({ offsetX: 600, offsetY: rowY });
handlers["window:mousemove"]({ clientX: 400 });
handlers["window:mouseup"]({ target: cv, clientX: 400 });
if (!(Math.abs(P.v1 - P.v0 - span) < span * 1e-6) || !(P.v0 > before || P.v1 >= P.__SPAN)) fail("drag did not pan");
handlers["cv:mousedown"]({ offsetX: 400, offsetY: rowY });
handlers["window:mousemove"]({ clientX: 600 });
handlers["window:mouseup"]({ target: cv, clientX: 600 });
console.log("zoomed view: " + (P.v1 - P.v0).toFixed(0) + " ns; exact intervals: " + P.cols.exact);
if (wantExact && !P.cols.exact) fail("the zoomed view does not use exact intervals");
if (hit >= 0 && P.cols.exact) {
  d = click(x, rowY);
  if (!/cap 0: running — thread \d+/.test(d) || !/stopped: |still running/.test(d)) fail("click on a running interval gave: " + d);
  console.log("click (interval): " + d.replace(/\n/g, " | "));
}
if (P.SP && P.cols.exact) { // click on a spark tick of cap 0 or 1
  const npp = (P.v1 - P.v0) / W;
  for (let i = 0; i < P.SP.n; i++) {
    if (P.SP.t[i] <= P.v0 || P.SP.t[i] >= P.v1) continue;
    const c = P.SP.cap[i], x = P.LEFT + (P.SP.t[i] - P.v0) / npp;
    d = click(x, P.ROWS_Y + c * (P.ROW_H + P.LANE_H + P.GAP) + P.ROW_H + 4);
    if (!/^spark \d+:\d+/.test(d)) fail("click on a spark tick gave: " + d);
    console.log("click (spark): " + d.replace(/\n/g, " | "));
    break;
  }
}
handlers["window:keydown"]({ key: "0" });
if (P.v0 !== 0) fail("fit did not reset the view");
console.log("ok");
