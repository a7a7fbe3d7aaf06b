// What the person holding the device sees: a description of each delivery made from exactly
// what the device received (docs/dashboard.md, "Previews"), then drawn as an iOS lock screen
// and banner, an Android notification shade entry, a browser notification, or, for a push
// that shows nothing, what the app got. `describe` is plain data so it can be tested alone.

import { el, when } from "./dom.js";

/** The name under the app's icon: the last part of a bundle id or package, or a web origin's host. */
export function appName(app) {
  if (/^https?:\/\//.test(app)) return app.replace(/^https?:\/\//, "");
  const last = app.split(".").pop() || app;
  return last.charAt(0).toUpperCase() + last.slice(1);
}

const FATES = {
  MESSAGE_DROPPED: "dropped",
  MESSAGE_EXPIRED: "expired",
  MESSAGE_COLLAPSED: "collapsed",
  MESSAGE_STORED: "stored",
};

/**
 * One delivery as the person sees it.
 * `d`: {platform, app, shown?, fate?, reason?, apns?, android?, web?} (an inbox entry or one
 * device of a message's detail). Answers {kind: "ios" | "android" | "web" | "silent" |
 * "pending" | "dropped", …}.
 */
export function describe(d) {
  const fate = FATES[d.fate];
  if (fate === "dropped" || fate === "expired") return { kind: "dropped", fate, reason: d.reason || fate, platform: d.platform };
  if (fate === "stored" || fate === "collapsed")
    return { kind: "pending", fate, reason: d.reason || "", platform: d.platform };
  const shownBySystem = d.shown ? !["app", "page"].includes(d.shown) : ["MESSAGE_DISPLAYED", "MESSAGE_PRESENTED", "MESSAGE_IMPRESSION", "MESSAGE_OPEN"].includes(d.fate);
  const shown = d.shown || (d.fate === "MESSAGE_PRESENTED" ? "presented" : shownBySystem ? "displayed" : "app");
  if (d.platform === "ios" && d.apns) return shownBySystem ? iosNotification(d, shown) : silent(d, shown);
  if (d.platform === "android" && d.android) return shownBySystem ? androidNotification(d) : silent(d, shown);
  if (d.platform === "web" && d.web) return shownBySystem && d.web.notification ? webNotification(d) : silent(d, shown);
  return silent(d, shown);
}

function iosNotification(d, shown) {
  const payload = d.apns.payload || {};
  const aps = payload.aps || {};
  const alert = typeof aps.alert === "string" ? { body: aps.alert } : aps.alert || {};
  const image = payload["gcm.notification.image"] || (payload.fcm_options && payload.fcm_options.image) || null;
  const mutable = aps["mutable-content"] === 1;
  const sound = typeof aps.sound === "object" && aps.sound !== null ? aps.sound.name : aps.sound;
  return {
    kind: "ios",
    app: appName(d.app),
    title: alert.title || alert["title-loc-key"] || "",
    subtitle: alert.subtitle || "",
    body: alert.body || alert["loc-key"] || "",
    badge: typeof aps.badge === "number" ? aps.badge : null,
    sound: shown === "displayed_quietly" ? null : sound || null,
    category: aps.category || null,
    thread: aps["thread-id"] || null,
    // FCM's image reaches the screen only through the app's Notification Service Extension,
    // which iOS runs only for mutable-content pushes.
    image: image && mutable ? image : null,
    imageWithheld: image && !mutable ? image : null,
    quiet: shown === "displayed_quietly",
    presented: shown === "presented",
  };
}

function androidNotification(d) {
  const n = d.android.notification || {};
  return {
    kind: "android",
    app: appName(d.app),
    title: n.title || n.title_loc_key || "",
    body: n.body || n.body_loc_key || "",
    icon: n.icon || null,
    color: /^#[0-9a-fA-F]{6}$/.test(n.color || "") ? n.color : null,
    image: n.image || null,
    channel: n.channel_id || "fcm_fallback_notification_channel",
    sound: n.sound || null,
  };
}

function webNotification(d) {
  const n = d.web.notification;
  const o = n.options || {};
  return {
    kind: "web",
    origin: d.app,
    title: n.title || "",
    body: o.body || "",
    icon: o.icon || null,
    image: o.image || null,
    actions: (o.actions || []).map((a) => a.title || a.action),
    requireInteraction: o.requireInteraction === true || o.require_interaction === true,
  };
}

const HANDLERS = {
  ios: "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)",
  android: "FirebaseMessagingService.onMessageReceived",
  web: "onBackgroundMessage in the service worker",
};

function silent(d, shown) {
  const handler = d.platform === "web" && shown === "page" ? "onMessage in the open page" : HANDLERS[d.platform] || "the app";
  const data = d.apns ? Object.keys(d.apns.payload || {}).filter((k) => k !== "aps" && !k.startsWith("gcm.") && !k.startsWith("google."))
    : d.android ? Object.keys(d.android.data || {}) : d.web ? Object.keys((d.web.payload && d.web.payload.data) || {}) : [];
  return { kind: "silent", platform: d.platform, handler, data };
}

/** A preview as the person would see it, shown at `time`; images load only when asked for. */
export function preview(model, time) {
  const at = time ? when(time) : null;
  switch (model.kind) {
    case "ios":
      return el("div", { class: "preview ios" },
        el("div", { class: "frame lock", "aria-label": "iOS lock screen" }, el("div", { class: "frame-label" }, "Lock screen"), iosCard(model, at)),
        el("div", { class: "frame banner", "aria-label": "iOS banner" }, el("div", { class: "frame-label" }, model.presented ? "Banner (in the app)" : "Banner"), iosCard(model, at && at.cloneNode(true))),
        el("div", { class: "home", "aria-label": "Home screen icon" }, el("span", { class: "icon" }, model.app.charAt(0)),
          model.badge !== null ? el("span", { class: "badge" }, model.badge) : null, el("span", { class: "icon-name" }, model.app)),
        notes([
          model.sound ? `Sound: ${model.sound}` : model.quiet ? "Delivered quietly (provisional): no sound, no banner" : "No sound",
          model.category ? `Category ${model.category}: the actions the app registered for it` : null,
          model.thread ? `Grouped by thread ${model.thread}` : null,
          model.imageWithheld ? "Image not attached: mutable-content is not set, so the Notification Service Extension does not run" : null,
        ]));
    case "android":
      return el("div", { class: "preview android" },
        el("div", { class: "frame shade", "aria-label": "Android notification shade" }, el("div", { class: "frame-label" }, "Notification shade"),
          el("div", { class: "card" },
            el("div", { class: "card-head" }, el("span", { class: "small-icon", style: model.color ? `background:${model.color}` : null, title: model.icon || "the app's default icon" }),
              el("span", { class: "app", style: model.color ? `color:${model.color}` : null }, model.app), el("span", { class: "dim" }, at)),
            el("div", { class: "title" }, model.title), el("div", { class: "body" }, model.body),
            model.image ? image(model.image) : null)),
        notes([`Channel: ${model.channel}`, model.icon ? `Small icon: ${model.icon}` : null, model.sound ? `Sound: ${model.sound}` : null]));
    case "web":
      return el("div", { class: "preview web" },
        el("div", { class: "frame desktop", "aria-label": "Browser notification" }, el("div", { class: "frame-label" }, "Browser notification"),
          el("div", { class: "card" },
            el("div", { class: "card-head" }, el("span", { class: "app" }, model.origin), el("span", { class: "dim" }, at)),
            el("div", { class: "title" }, model.title), el("div", { class: "body" }, model.body),
            model.image ? image(model.image) : null,
            model.actions.length ? el("div", { class: "actions" }, model.actions.map((a) => el("span", { class: "action" }, a))) : null)),
        notes([model.requireInteraction ? "Stays until the user acts (requireInteraction)" : null, model.icon ? `Icon: ${model.icon}` : null]));
    case "silent":
      return el("div", { class: "preview silent" }, el("p", {}, el("strong", {}, "Nothing shown. "), `The app was woken: ${model.handler} got it`,
        model.data.length ? ` with data ${model.data.join(", ")}.` : "."));
    case "pending":
      return el("div", { class: "preview silent" }, el("p", {}, el("strong", {}, "Not shown yet. "),
        model.fate === "stored" ? "Stored until the device can take it" : "Replaced by a newer message with the same collapse key", model.reason ? ` (${model.reason}).` : "."));
    default:
      return el("div", { class: "preview silent dropped" }, el("p", {}, el("strong", {}, model.fate === "expired" ? "Expired. " : "Dropped. "),
        `The device never showed it: ${model.reason}.`));
  }
}

function iosCard(model, at) {
  return el("div", { class: "card" },
    el("div", { class: "card-head" }, el("span", { class: "app-icon" }, model.app.charAt(0)), el("span", { class: "app" }, model.app.toUpperCase()), el("span", { class: "dim" }, at)),
    el("div", { class: "card-main" },
      el("div", {}, model.title ? el("div", { class: "title" }, model.title) : null,
        model.subtitle ? el("div", { class: "subtitle" }, model.subtitle) : null,
        el("div", { class: "body" }, model.body)),
      model.image ? image(model.image, true) : null));
}

/** A placeholder for a remote image; the browser fetches it only after a click. */
function image(url, thumbnail) {
  const box = el("div", { class: thumbnail ? "image thumb" : "image" });
  const load = el("button", { type: "button", class: "link", title: url, onclick: (e) => {
    e.stopPropagation();
    box.replaceChildren(el("img", { src: url, alt: "Notification image", referrerpolicy: "no-referrer" }));
  } }, "Load image");
  box.append(el("span", { class: "dim" }, "Image"), load);
  return box;
}

function notes(lines) {
  const kept = lines.filter(Boolean);
  return kept.length ? el("ul", { class: "notes" }, kept.map((l) => el("li", {}, l))) : null;
}
