// The Project view: the project's keys and counts, failure injection (chaos) switched on and
// off per surface, and a reset to the start state.

import { api, call, send, project } from "./api.js";
import { $, el } from "./dom.js";
import { changed, empty, redraw } from "./views.js";

// The surfaces chaos acts on, what each covers and the errors it can answer (the first is the
// default), as the server lists them (GET /emulator/v1/chaos/surfaces); read once.
let surfaces;

export async function render(ctx) {
  surfaces = surfaces || (await call("/emulator/v1/chaos/surfaces")).surfaces;
  const [info, chaos, events] = await Promise.all([api(""), api("/chaos"), api("/events?count=true")]);
  const box = $("#project-info");
  if (!changed(box, [info, chaos, events])) return;
  const on = surfaces.filter(({ name }) => active(chaos[name]));
  redraw(box,
    el("h2", {}, `Project ${info.id}`),
    el("table", { class: "list facts" }, el("tbody", {},
      [["Project number", info.number], ["Apple team id", info.apple_team_id], ["Server keys", (info.server_keys || []).join(", ")],
        ["Apps", (info.apps || []).map((a) => `${a.platform} ${a.app}`).join(", ") || "none"], ["Devices", info.devices], ["Topics", info.topics], ["Messages", info.messages], ["Events of this project", events.count], ["Events in the server's log (all projects)", info.events_in_log]]
        .map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, el("code", {}, String(v))))))),
    el("h3", {}, "Chaos"),
    el("p", { id: "chaos-status" }, on.length ? `On for ${on.map(({ name }) => name).join(", ")}.` : "Off: every request is answered normally."),
    el("form", { id: "chaos-form", onsubmit: (e) => {
      e.preventDefault();
      const body = {};
      for (const { name: s } of surfaces) {
        const f = e.target;
        if (!f[`${s}-on`].checked) continue;
        // Every setting the API has, as the form shows it: Apply changes only what was edited.
        body[s] = {
          error_rate: Number(f[`${s}-error_rate`].value) / 100, error: f[`${s}-error`].value,
          retry_after: Number(f[`${s}-retry_after`].value), latency_ms: Number(f[`${s}-latency_ms`].value),
          jitter_ms: Number(f[`${s}-jitter_ms`].value), drop_rate: Number(f[`${s}-drop_rate`].value) / 100, drop: f[`${s}-drop`].value,
        };
      }
      ctx.act(() => send("PUT", "/chaos", body));
    } },
      el("table", { class: "list" },
        el("thead", {}, el("tr", {}, ["Surface", "On", "Errors %", "Error", "Retry-After s", "Latency ms", "Jitter ms", "Dropped connections %", "Drop by"].map((h) => el("th", {}, h)))),
        el("tbody", {}, surfaces.map(({ name: s, label: what, errors }) => {
          const c = chaos[s] || {};
          return el("tr", {}, el("td", {}, `${s} (${what})`),
            el("td", {}, el("input", { type: "checkbox", name: `${s}-on`, "aria-label": `Chaos on ${s}`, checked: active(c) })),
            // The values as they are (a surface that is on shows its own rate, not a suggestion).
            el("td", {}, el("input", { type: "number", name: `${s}-error_rate`, min: 0, max: 100, step: "any", size: 5, value: percent(c.error_rate, active(c) ? 0 : 20), "aria-label": `${s} error rate` })),
            el("td", {}, el("select", { name: `${s}-error`, "aria-label": `${s} error` },
              errors.map((e) => el("option", { value: e, selected: e === String(c.error) }, e)))),
            el("td", {}, el("input", { type: "number", name: `${s}-retry_after`, min: 0, max: 86400, size: 5, value: c.retry_after ?? 10, "aria-label": `${s} Retry-After seconds` })),
            el("td", {}, el("input", { type: "number", name: `${s}-latency_ms`, min: 0, max: 60000, size: 6, value: c.latency_ms || 0, "aria-label": `${s} latency` })),
            el("td", {}, el("input", { type: "number", name: `${s}-jitter_ms`, min: 0, max: 60000, size: 6, value: c.jitter_ms || 0, "aria-label": `${s} jitter` })),
            el("td", {}, el("input", { type: "number", name: `${s}-drop_rate`, min: 0, max: 100, step: "any", size: 5, value: percent(c.drop_rate, 0), "aria-label": `${s} drop rate` })),
            el("td", {}, el("select", { name: `${s}-drop`, "aria-label": `${s} drop mode` },
              ["close", "goaway"].map((m) => el("option", { value: m, selected: m === (c.drop || "close") }, m)))));
        }))),
      el("div", { class: "controls" }, el("button", { type: "submit" }, "Apply chaos"),
        el("button", { type: "button", onclick: () => ctx.act(() => send("DELETE", "/chaos")) }, "Switch chaos off"))),
    el("h3", {}, "Reset"),
    el("p", {}, "Back to the start state: no apps, devices, topics, groups, messages, events or bridges; the server keys stay."),
    el("button", { type: "button", class: "danger", onclick: async () => {
      if (!confirm(`Reset project ${project()}? Every device, message and event goes.`)) return;
      await ctx.act(() => send("DELETE", ""));
    } }, "Reset project"),
  );
}

const active = (c) => !!c && (c.error_rate > 0 || c.latency_ms > 0 || c.jitter_ms > 0 || c.drop_rate > 0);
const percent = (rate, otherwise) => (rate > 0 ? Math.round(rate * 10000) / 100 : otherwise);

export function clear() {
  empty($("#project-info"));
}

export function bind() {}
