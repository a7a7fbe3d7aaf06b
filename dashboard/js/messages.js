// The Messages view: every send, a page at a time, one line each (who it was for, what it
// said, what became of it), and one send in detail: who it never reached and why; for a few
// devices what each showed (previews) and its timeline; for many, the outcomes per platform
// and the devices a page at a time (fanout.js); and the request exactly as received.

import { api, link, send } from "./api.js";
import { $, el, fill, pill, pre, when } from "./dom.js";
import { describe, preview } from "./previews.js";
import { listRows, changed, empty, hint, deviceLink, shortToken } from "./views.js";
import { DEVICE_PAGE, FEW, devicePage, outcomeTable } from "./fanout.js";
import { timelineRows } from "./timeline.js";

export const PAGE = 50;
let offset = 0;

/** Back to the first page (the filters changed). */
export function firstPage() {
  offset = 0;
}

function filters() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($("#message-filters"))) if (String(v).trim()) q.set(k, String(v).trim());
  return q;
}

export async function render(ctx) {
  const q = filters();
  q.set("limit", String(PAGE));
  q.set("offset", String(offset));
  const data = await api("/messages?" + q);
  if (offset > 0 && data.messages.length === 0 && data.matched > 0) {
    offset = Math.max(0, Math.floor((data.matched - 1) / PAGE) * PAGE);
    return render(ctx);
  }
  listRows($("#messages tbody"), data.messages.map((m) => ({
    id: m.message_id,
    cells: [
      when(m.received_at),
      m.api + (m.http_version === "2" ? " h2" : ""),
      recipient(m),
      m.summary ? el("span", { title: m.summary }, m.summary) : hint("(empty)"),
      // Cut to one line; the tooltip has every count.
      el("span", { title: Object.entries(m.counts || {}).map(([k, n]) => `${k} ${n}`).join("\n") },
        Object.entries(m.counts || {}).map(([k, n]) => pill(k, n))),
    ],
  })), ctx.id, (id) => ctx.go("messages", id), 5, "No messages yet.");
  const shown = data.messages.length;
  const where = data.matched ? `${offset + 1}–${offset + shown} of ${data.matched}` : "0 of 0";
  const more = [data.matched !== data.total ? `${data.total} kept in all` : null, data.evicted ? `${data.evicted} older evicted` : null].filter(Boolean);
  $("#message-count").textContent = where + (more.length ? ` (${more.join(", ")})` : "");
  exportLinks(q);
  $("#message-prev").disabled = offset === 0;
  $("#message-next").disabled = offset + shown >= data.matched;
  if (ctx.id) await renderMessage(ctx, ctx.id);
  else empty($("#message"), "Select a message.");
}

/** Who a send was for: the topic, condition or group; else the device it reached, when one,
 * and the token it named (shortened) or how many a multicast named. */
function recipient(m) {
  if (m.topic) return el("span", { title: "/topics/" + m.topic }, "/topics/" + m.topic);
  if (m.condition) return el("span", { title: m.condition }, m.condition);
  if (m.notification_key_name) return el("span", { title: "device group" }, "group " + m.notification_key_name);
  const named = m.target === "multicast" ? `${m.accepted + m.failed} tokens` : m.token ? shortToken(m.token) : hint("no token");
  return m.device_id ? [el("span", { class: "device-name" }, m.device_id), " ", named] : named;
}

/** The list's downloads, with its filters: the log's events of these sends as NDJSON (the
 * filters the events API has: token, topic, event), and the list itself as CSV. */
function exportLinks(q) {
  const e = new URLSearchParams();
  for (const k of ["token", "topic", "event"]) if (q.get(k)) e.set(k, q.get(k));
  $("#message-ndjson").href = link("/events:export", e);
}

/** The sends the filters match (up to 10,000), one CSV row each. */
async function downloadCSV() {
  const q = filters();
  q.set("limit", "10000");
  const data = await api("/messages?" + q);
  const cell = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  const rows = [["received_at", "message_id", "api", "target", "token", "device_id", "summary", "accepted", "failed", "events"]].concat(
    data.messages.map((m) => [m.received_at, m.message_id, m.api, m.topic ? "/topics/" + m.topic : m.condition || m.notification_key_name || m.target,
      m.token || "", m.device_id || "", m.summary || "", m.accepted, m.failed, Object.entries(m.counts || {}).map(([k, n]) => `${k}:${n}`).join(" ")]));
  save(rows.map((r) => r.map(cell).join(",")).join("\n") + "\n", "text/csv", "pushmock-messages.csv");
}

/** Hands the browser a file made here (no request: the data is already on the page). */
function save(text, type, name) {
  const a = el("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function clear() {
  $("#messages tbody").replaceChildren();
  $("#message-count").textContent = "";
  empty($("#message"));
}

export function bind(ctx) {
  $("#message-prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); ctx.refresh(); });
  $("#message-csv").addEventListener("click", () => ctx.act(downloadCSV));
  $("#message-next").addEventListener("click", () => { offset += PAGE; ctx.refresh(); });
  $("#message-clear").addEventListener("click", async () => {
    if (!confirm("Delete every message of this project, the devices' inboxes and its event log?")) return;
    // Off the deleted item first, so nothing asks for it again.
    ctx.go("messages");
    await ctx.act(() => send("DELETE", "/messages"));
  });
}

const SHOWN = ["MESSAGE_DISPLAYED", "MESSAGE_PRESENTED"];
const FAILURE = /INVALID|MISMATCH|QUOTA|AUTH|TOO_LARGE|INTERNAL|MISSING/;

// The page of devices the open message shows, and which of their lines are open.
const fanout = { id: null, offset: 0, opened: new Set() };

async function renderMessage(ctx, id) {
  const box = $("#message");
  if (fanout.id !== id) Object.assign(fanout, { id, offset: 0, opened: new Set() });
  const path = "/messages/" + encodeURIComponent(id);
  let m;
  try {
    m = await api(`${path}?device_offset=${fanout.offset}&device_limit=${DEVICE_PAGE}`);
  } catch (e) {
    if (e.status !== 404) throw e;
    empty(box, `Message ${id} is not here: it was deleted, cleared or evicted.`);
    return;
  }
  if (!changed(box, m, id)) return;
  // Recipients FCM refused (a bad or unregistered token in a multicast): no device, one event.
  const failed = m.events.filter((e) => !e.device_id && FAILURE.test(e.event));
  // The request, what each device received (up to 1,000) and the events, as the API gives them.
  const download = async () => {
    const all = await api(path);
    save(JSON.stringify(all, null, 2) + "\n", "application/json", `pushmock-message-${m.message_id.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);
  };
  fill(box,
    el("div", { class: "detail-head" },
      el("a", { class: "back", href: ctx.href("messages") }, "← Messages"),
      el("button", { type: "button", class: "danger", onclick: async () => {
        if (!confirm("Delete this message from the list and the devices' inboxes? The event log keeps it.")) return;
        // Off the deleted item first, so nothing asks for it again.
        ctx.go("messages");
        await ctx.act(() => send("DELETE", "/messages/" + encodeURIComponent(m.message_id)));
      } }, "Delete")),
    el("h2", {}, m.summary || m.message_id),
    el("p", {}, `${m.api} · ${m.target} · ${m.message_type} · received `, when(m.received_at),
      ` · HTTP/${m.http_version}${m.tls ? " over TLS" : ""}${m.dry_run ? " · dry run" : ""}`),
    el("p", {}, "Message id: ", el("code", {}, m.message_id), ` · ${m.accepted} accepted, ${m.failed} failed · `,
      el("button", { type: "button", class: "link", id: "message-json", onclick: () => ctx.act(download) }, "Download JSON")),
    failed.length ? [
      el("h3", {}, `Not delivered (${failed.length})`),
      el("table", { class: "list failed" }, el("tbody", {}, failed.map((e) => el("tr", {},
        el("td", {}, el("code", { class: "token" }, e.token || "(no token)")), el("td", {}, pill(e.event)), el("td", {}, e.reason || ""))))),
    ] : null,
    m.devices_total > FEW ? [
      el("h3", {}, "Outcomes"),
      outcomeTable(m.outcomes),
      el("h3", {}, `Devices (${m.devices_total})`),
      devicePage(m, fanout.offset, fanout.opened, (d) => [el("p", {}, deviceLink(ctx, d.device_id), ` ${d.platform} ${d.app}`), received(d)],
        (offset) => { fanout.offset = offset; ctx.refresh(); }),
    ] : [
      el("h3", {}, `Devices (${m.devices_total})`),
      m.devices.length ? null : el("p", { class: "hint" }, "No device received it."),
      m.devices.map((d) => el("section", { class: "delivery" },
        el("p", {}, deviceLink(ctx, d.device_id), ` ${d.platform} ${d.app} — `, pill(d.fate), d.reason ? ` ${d.reason}` : ""),
        received(d))),
    ],
    el("h3", {}, "Request as received"),
    rawRequest(m),
  );
}

/** What one device showed, its timeline, and the payload exactly as it got it. */
function received(d) {
  return [
    preview(describe(d), (d.timeline.find((t) => SHOWN.includes(t.event)) || {}).time),
    el("table", { class: "list timeline" }, el("tbody", {}, timelineRows(d.timeline, { delay: (t) => sinceAccepted(d.timeline, t) }))),
    el("details", {}, el("summary", {}, { ios: "APNs request", android: "Android message", web: "Web push payload" }[d.platform]), pre(d.apns || d.android || d.web)),
  ];
}

/** How long after its acceptance an event came (`+2.5 s`): the wait for a device that was
 * offline, dozing or held back shows here; nothing for the acceptance itself. */
function sinceAccepted(timeline, t) {
  const accepted = timeline.find((e) => e.event === "MESSAGE_ACCEPTED");
  if (!accepted || t === accepted) return "";
  const ms = Date.parse(t.time) - Date.parse(accepted.time);
  if (!(ms >= 0)) return "";
  if (ms < 1000) return `+${ms} ms`;
  if (ms < 60_000) return `+${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `+${Math.round(ms / 60_000)} min`;
  return `+${(ms / 3_600_000).toFixed(1)} h`;
}

/** The request as an HTTP message: request line, headers, then the body (JSON pretty-printed on request). */
function rawRequest(m) {
  const r = m.request;
  const head = r.method ? [`${r.method} ${r.path} HTTP/${m.http_version}`, ...r.headers.map((h) => `${h.name}: ${h.value}`)].join("\n") : "(the request line and headers are not kept across a restart)";
  const body = pre(r.body, "raw-body");
  return el("div", { class: "raw" },
    pre(head, "raw-head"),
    body,
    r.json !== undefined ? el("button", { type: "button", onclick: (e) => {
      const pretty = e.target.getAttribute("aria-pressed") !== "true";
      e.target.setAttribute("aria-pressed", String(pretty));
      body.textContent = pretty ? JSON.stringify(r.json, null, 2) : r.body;
    }, "aria-pressed": "false" }, "Pretty-print JSON") : null);
}
