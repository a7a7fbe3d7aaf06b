// What the previews say a person sees, from exactly what each device received.
// Run by `node --test Tests/dashboard/` (DashboardTests.scripts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { describe, appName } from "../../dashboard/js/previews.js";

const apns = (aps, extra = {}) => ({ headers: { "apns-push-type": "alert" }, payload: { aps, ...extra } });

test("an iPhone shows title, subtitle, body, badge, sound and category; FCM's image only with mutable-content", () => {
  const d = { platform: "ios", app: "com.example.shop", shown: "displayed",
    apns: apns({ alert: { title: "Sale", subtitle: "Today", body: "50% off" }, badge: 3, sound: "default", category: "SALE", "mutable-content": 1 },
      { "gcm.notification.image": "https://example.com/a.png" }) };
  const m = describe(d);
  assert.equal(m.kind, "ios");
  assert.deepEqual([m.app, m.title, m.subtitle, m.body, m.badge, m.sound, m.category], ["Shop", "Sale", "Today", "50% off", 3, "default", "SALE"]);
  assert.equal(m.image, "https://example.com/a.png");
  delete d.apns.payload.aps["mutable-content"];
  const plain = describe(d);
  assert.equal(plain.image, null);
  assert.equal(plain.imageWithheld, "https://example.com/a.png");
});

test("an alert string is the body; a provisional delivery is quiet; a presented one is a banner in the app", () => {
  assert.equal(describe({ platform: "ios", app: "a.b", shown: "displayed", apns: apns({ alert: "Hi" }) }).body, "Hi");
  const quiet = describe({ platform: "ios", app: "a.b", shown: "displayed_quietly", apns: apns({ alert: "Hi", sound: "default" }) });
  assert.equal(quiet.quiet, true);
  assert.equal(quiet.sound, null);
  assert.equal(describe({ platform: "ios", app: "a.b", shown: "presented", apns: apns({ alert: "Hi" }) }).presented, true);
});

test("the v1 image reaches the iPhone as fcm_options.image", () => {
  const m = describe({ platform: "ios", app: "a.b", shown: "displayed",
    apns: apns({ alert: "Hi", "mutable-content": 1 }, { fcm_options: { image: "https://example.com/v1.png" } }) });
  assert.equal(m.image, "https://example.com/v1.png");
});

test("Android shows title, body, small icon, color, image and channel (FCM's fallback channel when none)", () => {
  const m = describe({ platform: "android", app: "com.example.news", shown: "displayed",
    android: { notification: { title: "T", body: "B", icon: "ic_n", color: "#ff0000", image: "https://example.com/i.png", channel_id: "promo" } } });
  assert.deepEqual([m.kind, m.app, m.title, m.body, m.icon, m.color, m.image, m.channel], ["android", "News", "T", "B", "ic_n", "#ff0000", "https://example.com/i.png", "promo"]);
  const bare = describe({ platform: "android", app: "x.y", shown: "displayed", android: { notification: { title: "T", color: "red" } } });
  assert.equal(bare.channel, "fcm_fallback_notification_channel");
  assert.equal(bare.color, null);
});

test("a browser shows the service worker's notification: title, body, image, actions", () => {
  const m = describe({ platform: "web", app: "https://shop.example.com", shown: "displayed",
    web: { payload: {}, notification: { title: "Hello", options: { body: "B", image: "https://example.com/w.png", actions: [{ action: "buy", title: "Buy" }], requireInteraction: true } } } });
  assert.deepEqual([m.kind, m.origin, m.title, m.body, m.image, m.actions, m.requireInteraction], ["web", "https://shop.example.com", "Hello", "B", "https://example.com/w.png", ["Buy"], true]);
});

test("a push that shows nothing says which handler got it and its data keys", () => {
  const ios = describe({ platform: "ios", app: "a.b", shown: "app", apns: { headers: {}, payload: { aps: { "content-available": 1 }, sync: "1", "gcm.message_id": "x" } } });
  assert.deepEqual([ios.kind, ios.data], ["silent", ["sync"]]);
  assert.match(ios.handler, /didReceiveRemoteNotification/);
  const android = describe({ platform: "android", app: "a.b", shown: "app", android: { data: { k: "v" } } });
  assert.match(android.handler, /onMessageReceived/);
  const page = describe({ platform: "web", app: "https://a.example", shown: "page", web: { payload: { data: { k: "v" } }, notification: { title: "T" } } });
  assert.deepEqual([page.kind, page.data], ["silent", ["k"]]);
  assert.match(page.handler, /onMessage in the open page/);
});

test("in a message's detail, the fate decides: dropped and expired with their reason, stored and collapsed as waiting", () => {
  assert.deepEqual(describe({ platform: "ios", app: "a.b", fate: "MESSAGE_DROPPED", reason: "app_terminated" }),
    { kind: "dropped", fate: "dropped", reason: "app_terminated", platform: "ios" });
  assert.equal(describe({ platform: "android", app: "a.b", fate: "MESSAGE_EXPIRED" }).kind, "dropped");
  assert.equal(describe({ platform: "android", app: "a.b", fate: "MESSAGE_STORED" }).kind, "pending");
  const displayed = describe({ platform: "android", app: "a.b", fate: "MESSAGE_OPEN", android: { notification: { title: "T" } } });
  assert.equal(displayed.kind, "android");
  const handed = describe({ platform: "android", app: "a.b", fate: "MESSAGE_DELIVERED", android: { data: {}, notification: { title: "T" } } });
  assert.equal(handed.kind, "silent");
});

test("app names: the last part of a bundle id, or a web origin's host", () => {
  assert.equal(appName("com.example.news"), "News");
  assert.equal(appName("https://shop.example.com"), "shop.example.com");
});
