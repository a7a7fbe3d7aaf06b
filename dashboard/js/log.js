// The Log view: every event of the project, refusals included, newest first, filtered by
// event, reason, device, token, API and time, live; each links to its message and device.

import { api } from "./api.js";
import { $, el, pill, when } from "./dom.js";
import { deviceLink, messageLink, short, shortToken } from "./views.js";

export const PAGE = 200;

function filters() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($("#log-filters"))) if (String(v).trim() && k !== "after") q.set(k, String(v).trim());
  return q;
}

export async function render(ctx) {
  const q = filters();
  const [page, total] = await Promise.all([
    api(`/events?order=newest&limit=${PAGE}&` + q),
    // The project's own count (the server's log holds every project's events).
    api("/events?count=true&" + q),
  ]);
  // Time: only events at or after the chosen moment (the page is newest first).
  const after = $("#log-filters").after.value;
  const since = after ? Date.parse(after) : NaN;
  const events = Number.isNaN(since) ? page.events : page.events.filter((e) => Date.parse(e.event_timestamp) >= since);
  const body = $("#log tbody");
  body.replaceChildren(...events.map((e) => el("tr", { "data-seq": e.seq },
    el("td", {}, when(e.event_timestamp)), el("td", {}, pill(e.event)), el("td", {}, e.reason || ""),
    el("td", {}, e.device_id ? deviceLink(ctx, e.device_id) : e.token ? shortToken(e.token) : ""),
    el("td", {}, e.message_id && e.message_id !== "fake_message_id" ? messageLink(ctx, e.message_id, short(e.message_id)) : e.message_id || ""))));
  if (!events.length) body.append(el("tr", {}, el("td", { colspan: 5, class: "hint" }, "No events match.")));
  $("#log-count").textContent = `${events.length < total.count ? `newest ${events.length} of ` : ""}${total.count} event${total.count === 1 ? "" : "s"} in this project`;
}

export function clear() {
  $("#log tbody").replaceChildren();
  $("#log-count").textContent = "";
}

// Its filters refresh it as every view's do (main.js).
export function bind() {}
