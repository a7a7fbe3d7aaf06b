// The API view: the control API's OpenAPI description (/emulator/v1/openapi.json, embedded in
// pushmock), as a readable reference grouped by tag.

import { call } from "./api.js";
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
        op.requestBody ? [el("h4", {}, "Body"), pre(op.requestBody.content["application/json"].schema)] : null,
        el("p", { class: "dim" }, Object.entries(op.responses).map(([code, r]) => `${code}: ${r.description}`).join(" · ")))))),
  );
  loaded = true;
}

export function clear() {}

export function bind() {}
