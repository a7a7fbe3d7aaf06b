// The Topics view: every topic with its subscribers.

import { api } from "./api.js";
import { $, el } from "./dom.js";
import { deviceLink } from "./views.js";

export async function render(ctx) {
  const data = await api("/topics");
  const body = $("#topics tbody");
  body.replaceChildren(...data.topics.map((t) => el("tr", {}, el("td", {}, t.name), el("td", {}, t.subscribers),
    el("td", { class: "device-links" }, t.devices.map((id) => deviceLink(ctx, id)), t.subscribers > t.devices.length ? ` and ${t.subscribers - t.devices.length} more` : ""))));
  if (!data.topics.length) body.append(el("tr", {}, el("td", { colspan: 3, class: "hint" }, "No topics yet: subscribe a device from its page.")));
}

export function clear() {
  $("#topics tbody").replaceChildren();
}

export function bind() {}
