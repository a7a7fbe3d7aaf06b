// The Devices view: register and remove fake devices, change their state as a person would
// (open the app, force-quit it, go offline, deny notifications), subscribe them to topics,
// and see what each received, as it looked on its screen.

import { api, send } from "./api.js";
import { $, el, pill, when } from "./dom.js";
import { describe, preview, appName } from "./previews.js";
import { timelineRows } from "./timeline.js";
import { listRows, changed, empty, redraw, messageLink } from "./views.js";

// Every state a device can be in, at a glance: the app (on the Web, the page), the network,
// the permission, Low Power Mode, and whether a real client carries it.
const state = (d) => [
  d.platform === "web" ? ({ foreground: "page visible", background: "page hidden" }[d.app_state] || d.app_state) : d.app_state,
  d.online ? "online" : "offline",
  `notifications ${d.notifications}`,
  d.low_power_mode ? "Low Power Mode" : null,
  d.real_client ? "real client" : null,
].filter(Boolean).join(", ");

export async function render(ctx) {
  const data = await api("/devices");
  listRows($("#devices tbody"), data.devices.map((d) => ({ id: d.id, cells: [d.id, d.platform, d.app, state(d)] })),
    ctx.id, (id) => ctx.go("devices", id), 4, "No devices yet: register one above.");
  $("#device-count").textContent = `${data.devices.length} device${data.devices.length === 1 ? "" : "s"}`;
  if (ctx.id) await renderDevice(ctx, ctx.id);
  else empty($("#device"), "Select a device.");
}

export function clear() {
  $("#devices tbody").replaceChildren();
  $("#device-count").textContent = "";
  empty($("#device"));
}

export function bind(ctx) {
  const form = $("#device-create");
  const placeholder = { ios: "com.example.app (bundle id)", android: "com.example.app (package)", web: "https://app.example.com (origin)" };
  form.platform.addEventListener("change", () => { form.app.placeholder = placeholder[form.platform.value]; });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { platform: form.platform.value, app: form.app.value.trim() || (form.platform.value === "web" ? "https://app.example.com" : "com.example.app") };
    if (form.app_state.value) body.app_state = form.app_state.value;
    const d = await ctx.act(() => send("POST", "/devices", body));
    if (d) {
      form.app.value = "";
      ctx.go("devices", d.id);
    }
  });
}

async function renderDevice(ctx, id) {
  const box = $("#device");
  const path = "/devices/" + encodeURIComponent(id);
  let d, inbox, events, bridges;
  try {
    [d, inbox, events, bridges] = await Promise.all([api(path), api(path + "/notifications"),
      api(`/events?device=${encodeURIComponent(id)}&limit=100000`), api("/bridges")]);
  } catch (e) {
    if (e.status !== 404) throw e;
    empty(box, `Device ${id} is not here: it was removed or the project was reset.`);
    return;
  }
  if (!changed(box, [d, inbox, events, bridges], id)) return;
  const patch = (change) => ctx.act(() => send("PATCH", path, change));
  // The bridges that forward this device's events (docs/bridges.md).
  const mine = bridges.bridges.filter((b) => (b.device ? b.device === id : b.topic ? d.topics.includes(b.topic) : true) &&
    (!b.simulator || d.platform === "ios"));
  const where = (b) => b.webhook ? `webhook ${b.webhook.url}` : b.simulator ? `Simulator ${b.simulator.udid} ${b.simulator.bundle_id}` : `command ${b.command.argv.join(" ")}`;
  const attempts = events.events.filter((e) => e.event === "BRIDGE_ATTEMPT" || e.event === "BRIDGE_OVERFLOW").slice(-20).reverse();
  const states = d.platform === "web" ? [["foreground", "Page visible"], ["background", "No visible page"]]
    : [["foreground", "Foreground"], ["background", "Background"], ["terminated", "Force-quit"]];
  const permissions = d.platform === "ios" ? ["authorized", "denied", "provisional", "not_determined"] : ["authorized", "denied"];
  redraw(box,
    el("div", { class: "detail-head" },
      el("a", { class: "back", href: ctx.href("devices") }, "← Devices"),
      el("button", { type: "button", class: "danger", onclick: async () => {
        if (!confirm(`Uninstall the app from ${id}? Its token stops working.`)) return;
        // Off the deleted item first, so nothing asks for it again.
        ctx.go("devices");
        await ctx.act(() => send("DELETE", path));
      } }, "Delete device")),
    el("h2", {}, `${d.id} · ${d.platform} · ${appName(d.app)}`),
    el("p", {}, `${d.app} · app ${d.app_state}, ${d.online ? "online" : "offline"}, notifications ${d.notifications}` +
      (d.low_power_mode ? ", Low Power Mode" : "") + `; received ${d.received}, pending ${d.pending}`),
    el("div", { class: "controls", role: "group", "aria-label": "App state" },
      states.map(([s, label]) => el("button", { type: "button", onclick: () => patch({ app_state: s }), "aria-pressed": String(d.app_state === s) }, label)),
      el("button", { type: "button", onclick: () => patch({ online: !d.online }) }, d.online ? "Go offline" : "Go online"),
      d.platform !== "web" ? el("button", { type: "button", onclick: () => patch({ low_power_mode: !d.low_power_mode }), "aria-pressed": String(d.low_power_mode) }, "Low Power Mode") : null,
      el("label", {}, "Notifications ", el("select", { "aria-label": "Notification permission", onchange: (e) => patch({ notifications: e.target.value }) },
        permissions.map((p) => el("option", { value: p, selected: p === d.notifications }, p)))),
      d.token ? el("button", { type: "button", onclick: () => ctx.act(() => send("POST", path + ":refreshToken")) }, "Refresh token") : null),
    el("p", {}, "Token: ", el("code", { class: "token" }, d.token || "none")),
    d.apns_token ? el("p", {}, "APNs token: ", el("code", { class: "token" }, d.apns_token), ` (${d.apns_environment})`) : null,
    d.real_client ? realClient(d) : null,
    d.platform === "web" && d.push_subscription !== undefined ? pushSubscription(ctx, d, path) : null,
    el("h3", {}, `Topics (${d.topics.length})`),
    el("div", { class: "controls topics" },
      d.topics.map((t) => el("span", { class: "chip" }, t, el("button", { type: "button", class: "link", "aria-label": `Unsubscribe from ${t}`,
        onclick: () => ctx.act(() => send("DELETE", `${path}/topics/${encodeURIComponent(t)}`)) }, "×"))),
      el("form", { class: "inline", onsubmit: (e) => {
        e.preventDefault();
        const topic = e.target.topic.value.trim();
        e.target.topic.value = "";
        if (topic) ctx.act(() => send("POST", `${path}/topics/${encodeURIComponent(topic)}`));
      } }, el("input", { name: "topic", placeholder: "topic", "aria-label": "Topic to subscribe to", size: 12 }), el("button", {}, "Subscribe"))),
    el("h3", {}, `Inbox (${inbox.notifications.length})`),
    inbox.notifications.length ? null : el("p", { class: "hint" }, "Nothing received yet."),
    inbox.notifications.slice().reverse().map((n) => el("section", { class: "inbox-entry" },
      el("p", { class: "inbox-line" }, when(n.received_at), " · ", n.shown + (n.opened ? ", opened" : ""), " · ", messageLink(ctx, n.message_id, "message"),
        n.shown !== "app" && n.shown !== "page" && !n.opened ? el("button", { type: "button",
          onclick: () => ctx.act(() => send("POST", `${path}/notifications/${encodeURIComponent(n.message_id)}:open`)) }, "Open notification") : null),
      preview(describe({ ...n, platform: d.platform, app: d.app }), n.received_at))),
    el("h3", {}, `Bridges (${mine.length})`),
    mine.length ? el("table", { class: "list bridges" }, el("tbody", {}, mine.map((b) => el("tr", {},
      el("td", {}, el("code", {}, b.id)), el("td", {}, where(b)),
      el("td", {}, `${b.stats.succeeded} succeeded, ${b.stats.failed} failed, ${b.stats.overflowed} overflowed`))))) :
      el("p", { class: "hint" }, "No bridge forwards this device's events."),
    attempts.length ? el("table", { class: "list attempts" }, el("tbody", {}, attempts.map((e) => el("tr", {},
      el("td", {}, when(e.event_timestamp)), el("td", {}, pill(e.event)), el("td", {}, e.reason || ""))))) : null,
    el("h3", {}, "Timeline"),
    el("table", { class: "list timeline" }, el("tbody", {}, timelineRows(events.events.slice(-200).map((e) => ({ ...e, time: e.event_timestamp })),
      { extra: (e) => (e.message_id ? messageLink(ctx, e.message_id, "message") : "") }).reverse())),
  );
}

const clientKinds = {
  mozilla_push: "Real Firefox, over the Mozilla push protocol",
  mcs: "Real GCM client over MCS (Chrome, firebase-messaging)",
  firebase_sdk: "Registered by a real app's Firebase SDK",
};

/** A real client (docs/fcm-clients.md): which kind, what it said it is, whether its connection
 * is open and when it last said anything, and the subscriptions it made. */
function realClient(d) {
  const c = d.real_client;
  const live = c.connected === undefined ? "" :
    ` · ${c.connected ? "connected" : "away"}${c.last_heard ? `, last heard ${when(c.last_heard)}` : ""} · ${c.unacknowledged} unacknowledged`;
  return el("section", { class: "subscription real-client" },
    el("h3", {}, clientKinds[c.kind] || c.kind),
    el("p", {}, "Client ", el("code", {}, c.client_id), live),
    c.user_agent ? el("p", { class: "hint" }, c.user_agent) : null,
    c.subscriptions.map((s) => el("p", {}, el("code", { class: "token" }, s.endpoint))));
}

/** A browser's push subscription, as `PushSubscription.toJSON()` gives it, ready to paste into
 * an app server's database; a real browser's (an SDK registered it) without the buttons that
 * play the browser (docs/web-push.md). */
function pushSubscription(ctx, d, path) {
  const json = d.push_subscription ? JSON.stringify(d.push_subscription, null, 2) : null;
  return el("section", { class: "subscription" },
    el("h3", {}, `Push subscription (${d.browser}${d.application_server_key ? ", restricted to a VAPID key" : ""})`),
    json ? el("pre", {}, json) : el("p", { class: "hint" }, "None: the browser has no notification permission, or unsubscribed."),
    el("div", { class: "controls" },
      json ? el("button", { type: "button", onclick: () => navigator.clipboard.writeText(json) }, "Copy") : null,
      d.real_client ? null : json ? el("button", { type: "button", onclick: () => ctx.act(() => send("POST", path + ":unsubscribe")) }, "Unsubscribe")
        : el("button", { type: "button", onclick: () => ctx.act(() => send("POST", path + ":subscribe")) }, "Subscribe")));
}
