// The API view: the control API's OpenAPI description (/emulator/v1/openapi.json, embedded in
// pushmock), as a readable reference grouped by tag. Each operation can be tried: its
// parameters as a form (the project filled in), its body as JSON made from its schema, a curl
// command that follows the form, and Send, which calls pushmock and shows the answer.

import { call, project, token } from "./api.js";
import { $, el, fill, pre } from "./dom.js";

let loaded = false;

export async function render() {
  if (loaded) return;
  const spec = await call("/emulator/v1/openapi.json");
  const byTag = new Map();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = (op.tags && op.tags[0]) || "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ method: method.toUpperCase(), path, op });
    }
  }
  fill($("#reference"),
    el("h2", {}, spec.info.title),
    el("p", {}, spec.info.description),
    el("p", {}, el("a", { href: "/emulator/v1/openapi.json" }, "openapi.json"), " (OpenAPI ", spec.openapi, ")"),
    el("nav", { class: "toc", "aria-label": "API sections" }, [...byTag.keys()].map((t) => el("a", { href: "#", onclick: (e) => {
      e.preventDefault();
      document.getElementById("tag-" + t.replace(/\W+/g, "-")).scrollIntoView();
    } }, t))),
    [...byTag].map(([tag, ops]) => el("section", { class: "tag", id: "tag-" + tag.replace(/\W+/g, "-") },
      el("h3", {}, tag),
      ops.map(({ method, path, op }) => el("details", { class: "operation" },
        el("summary", {}, el("span", { class: `method ${method.toLowerCase()}` }, method), " ", el("code", {}, path), " ", el("span", { class: "dim" }, op.summary)),
        el("p", {}, op.description),
        op.parameters ? el("table", { class: "list" }, el("thead", {}, el("tr", {}, ["Parameter", "In", "Description"].map((h) => el("th", {}, h)))),
          el("tbody", {}, op.parameters.map((p) => el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in), el("td", {}, p.description))))) : null,
        op.requestBody ? el("details", { class: "schema" }, el("summary", {}, "Body schema"), pre(op.requestBody.content["application/json"].schema)) : null,
        el("p", { class: "dim" }, Object.entries(op.responses).map(([code, r]) => `${code}: ${r.description}`).join(" · ")),
        tryIt(method, path, op))))),
  );
  loaded = true;
}

// Values a body made from a schema starts with, by property name, where "" would be refused.
const EXAMPLES = { app: "com.example.app", bundle_id: "com.example.app", count: 10, seconds: 60 };

/** A body for a schema: its required properties (enums at their first value), else `{}`. */
function skeleton(schema) {
  const body = {};
  for (const name of schema.required || []) {
    const p = schema.properties[name] || {};
    body[name] = name in EXAMPLES ? EXAMPLES[name] : p.enum ? p.enum[0]
      : { string: "", number: 0, integer: 0, boolean: false, array: [], object: {} }[p.type] ?? null;
  }
  return JSON.stringify(body, null, 2);
}

/** JSON on one line for a command line; text that is not JSON as it is. */
function oneLine(text) {
  try { return JSON.stringify(JSON.parse(text)); } catch { return text; }
}

const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The operation's form, its curl command, Send and the answer. */
function tryIt(method, path, op) {
  const params = (op.parameters || []).filter((p) => p.in === "path" || p.in === "query");
  const body = op.requestBody ? el("textarea", { name: "body", rows: 6, spellcheck: "false", "aria-label": "Request body (JSON)" }, skeleton(op.requestBody.content["application/json"].schema)) : null;
  const curl = el("pre", { class: "curl" });
  const answer = el("div", { class: "answer", "aria-live": "polite" });
  const form = el("form", { class: "try", onsubmit: (e) => { e.preventDefault(); send(); }, oninput: () => show() },
    el("h4", {}, "Try it"),
    params.length ? el("div", { class: "try-params" }, params.map((p) => el("label", {}, el("code", {}, p.name), p.in === "query" ? " (query)" : "",
      el("input", { name: "p-" + p.name, value: p.name === "project" ? project() : "", placeholder: p.schema?.type || "", required: p.required || false, spellcheck: "false" })))) : null,
    body,
    curl,
    el("div", { class: "controls" }, el("button", { type: "submit" }, "Send"), el("button", { type: "button", onclick: () => navigator.clipboard.writeText(curl.textContent) }, "Copy curl")),
    answer);

  // The URL the form names: path parameters in place, query parameters that have a value.
  const url = () => {
    const value = (name) => form.elements["p-" + name].value.trim();
    let target = path;
    for (const p of params.filter((p) => p.in === "path")) target = target.replace(`{${p.name}}`, encodeURIComponent(value(p.name)));
    const q = new URLSearchParams();
    for (const p of params.filter((p) => p.in === "query")) if (value(p.name)) q.set(p.name, value(p.name));
    return location.origin + target + (String(q) ? "?" + q : "");
  };
  function show() {
    const parts = ["curl", "-X", method, quote(url())];
    if (token()) parts.push("-H", quote("Authorization: Bearer " + token()));
    if (body) parts.push("-H", quote("Content-Type: application/json"), "--data", quote(oneLine(body.value)));
    curl.textContent = parts.join(" ");
  }
  async function send() {
    fill(answer, el("p", { class: "hint" }, "Sending…"));
    const headers = {};
    if (token()) headers.Authorization = "Bearer " + token();
    if (body) headers["Content-Type"] = "application/json";
    // A stream or a long export is shown up to its first 64 KiB, or what came in 10 s.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 10_000);
    try {
      const r = await fetch(url(), { method, headers, body: body ? body.value : undefined, signal: stop.signal });
      let text = "";
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
          if (text.length > 65536) { text = text.slice(0, 65536) + "\n… (cut at 64 KiB)"; break; }
        }
      } catch {
        text += "\n… (still open after 10 s)";
      }
      stop.abort();
      let shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch { /* not JSON: as it came */ }
      fill(answer, el("p", { class: "status" }, `HTTP ${r.status} ${r.statusText}`, el("span", { class: "dim" }, ` · ${r.headers.get("Content-Type") || ""}`)), pre(shown));
      answer.scrollIntoView({ block: "nearest" });
    } catch (e) {
      fill(answer, el("p", { class: "status bad" }, `No answer: ${e.message}`));
    } finally {
      clearTimeout(timer);
    }
  }
  show();
  return form;
}

export function clear() {}

export function bind() {}
