// Small DOM helpers shared by the views.

/** An element with attributes (`on…` are listeners) and children (strings, nodes, arrays). */
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  append(e, children);
  return e;
}

function append(e, children) {
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
}

/** Replaces a box's contents; arrays are spread, nulls skipped. */
export function fill(box, ...children) {
  box.replaceChildren();
  append(box, children);
}

export const $ = (sel, root) => (root || document).querySelector(sel);
export const $$ = (sel, root) => [...(root || document).querySelectorAll(sel)];

export function pre(value, cls) {
  return el("pre", { class: cls }, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

const BAD = /DROPPED|EXPIRED|INVALID|MISMATCH|QUOTA|AUTH|TOO_LARGE|INTERNAL|MISSING|OVERFLOW/;
const WAIT = /STORED|COLLAPSED/;
const GOOD = /DELIVERED|DISPLAYED|PRESENTED|OPEN|IMPRESSION/;

/** An event kind as a coloured label, with a count when given. */
export function pill(kind, n) {
  const short = kind.replace("MESSAGE_", "").toLowerCase();
  const tone = BAD.test(kind) ? "bad" : WAIT.test(kind) ? "wait" : GOOD.test(kind) ? "good" : "";
  return el("span", { class: "pill " + tone, title: kind }, n === undefined ? short : `${short} ${n}`);
}

// Times are shown relative to pushmock's clock, which a test may have set (--clock manual):
// `clockOffset` is its time minus the browser's, read from /emulator/v1/clock.
let clockOffset = 0;
export function setServerNow(iso) {
  const t = Date.parse(iso);
  if (!Number.isNaN(t)) clockOffset = t - Date.now();
}

/** "just now", "12 s ago", "5 min ago", "3 h ago", "2 d ago" (or "in …" for the future). */
export function relative(iso, now = Date.now() + clockOffset) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.round((now - t) / 1000);
  const a = Math.abs(s);
  const text = a < 5 ? null : a < 60 ? `${a} s` : a < 3600 ? `${Math.floor(a / 60)} min` : a < 86400 ? `${Math.floor(a / 3600)} h` : `${Math.floor(a / 86400)} d`;
  if (text === null) return "just now";
  return s >= 0 ? `${text} ago` : `in ${text}`;
}

/** A time element that shows the relative time and keeps the exact one as its tooltip. */
export function when(iso) {
  return el("time", { datetime: iso, title: iso }, relative(iso));
}

/** Brings every shown relative time up to date. */
export function refreshTimes() {
  for (const t of $$("time[datetime]")) t.textContent = relative(t.getAttribute("datetime"));
}
