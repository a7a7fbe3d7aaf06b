// A send to many devices: what became of it on all of them (per outcome and reason, per
// platform), then its devices a page at a time, each line expanding to what that device
// showed and its timeline. A 1,000-device topic send is a table and a page of 25 lines.

import { el, pill } from "./dom.js";

export const DEVICE_PAGE = 25;
/** Up to this many devices a send's detail shows each one in full. */
export const FEW = 3;

const PLATFORMS = ["android", "ios", "web"];

/** Devices per outcome (last event but a bridge's, with its reason) and platform, with totals. */
export function outcomeTable(outcomes) {
  const platforms = PLATFORMS.filter((p) => outcomes.some((o) => o.platform === p));
  const rows = new Map();
  for (const o of outcomes) {
    const key = o.event + "\u0000" + (o.reason || "");
    if (!rows.has(key)) rows.set(key, { event: o.event, reason: o.reason, by: {}, total: 0 });
    const r = rows.get(key);
    r.by[o.platform] = (r.by[o.platform] || 0) + o.devices;
    r.total += o.devices;
  }
  const sum = (p) => outcomes.filter((o) => o.platform === p).reduce((n, o) => n + o.devices, 0);
  return el("table", { class: "list outcomes", "aria-label": "Outcomes per platform" },
    el("thead", {}, el("tr", {}, el("th", {}, "Outcome"), el("th", {}, "Reason"), platforms.map((p) => el("th", { class: "n" }, p)), el("th", { class: "n" }, "All"))),
    el("tbody", {}, [...rows.values()].sort((a, b) => b.total - a.total).map((r) => el("tr", {},
      el("td", {}, pill(r.event)), el("td", {}, r.reason || ""),
      platforms.map((p) => el("td", { class: "n" }, String(r.by[p] || 0))), el("td", { class: "n" }, String(r.total))))),
    el("tfoot", {}, el("tr", {}, el("th", {}, "Devices"), el("th", {}),
      platforms.map((p) => el("th", { class: "n" }, String(sum(p)))), el("th", { class: "n" }, String(outcomes.reduce((n, o) => n + o.devices, 0))))));
}

/**
 * A page of devices, one line each (device, platform, app, fate and reason); a line opens to
 * `detail(d)`. `opened` keeps which lines are open across live refreshes; `go(offset)` pages.
 */
export function devicePage(m, offset, opened, detail, go) {
  const last = Math.min(offset + m.devices.length, m.devices_total);
  return [
    el("div", { class: "pager fanout-pager" },
      el("span", { "aria-live": "polite" }, m.devices_total ? `${offset + 1}–${last} of ${m.devices_total}` : "0 of 0"),
      el("button", { type: "button", disabled: offset === 0, onclick: () => go(Math.max(0, offset - DEVICE_PAGE)) }, "‹ Previous"),
      el("button", { type: "button", disabled: last >= m.devices_total, onclick: () => go(offset + DEVICE_PAGE) }, "Next ›")),
    el("div", { class: "fanout", role: "list", "aria-label": "Devices" }, m.devices.map((d) => el("details", {
      role: "listitem", class: "fanout-device", open: opened.has(d.device_id),
      ontoggle: (e) => (e.target.open ? opened.add(d.device_id) : opened.delete(d.device_id)),
    },
    el("summary", {}, el("span", { class: "device-name" }, d.device_id), el("span", {}, d.platform), el("span", { class: "app" }, d.app),
      el("span", {}, pill(d.fate)), el("span", { class: "dim" }, d.reason || "")),
    el("div", { class: "fanout-detail" }, detail(d))))),
  ];
}
