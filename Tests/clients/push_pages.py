"""What the real-browser tests (firefox_push.py, chromium_push.py) serve and run in a page: a
page, a service worker that shows each push's data, one that does what the Firebase SDK's
worker does with FCM's payload, and the Firebase JS SDK's getToken done by hand.

Each worker also reports every notification it showed (once `showNotification` resolved) to
this server, which keeps them in SHOWN as "title: body". Headless Chromium showed a push's
notification and yet its `getNotifications()` listed nothing for the next minute, twice in
ten runs on 2026-12-02, so the Chromium test reads SHOWN; Firefox's lists were always right.
"""
import http.server
import json
import threading

SHOWN = []

PAGE = b"<!doctype html><title>push test</title><p>push test</p>"
# Shows a notification, then reports it to the page's server.
SHOW = b"""
const show = (title, options) => self.registration.showNotification(title, options).then(() =>
  fetch('/shown', {method: 'POST', body: JSON.stringify(title + ': ' + options.body)}));
"""
WORKER = SHOW + b"""
self.addEventListener('push', event => {
  const text = event.data ? event.data.text() : '(no data)';
  event.waitUntil(show('pushmock', {body: text, tag: String(Date.now())}));
});
"""
# What the Firebase SDK's worker does with FCM's payload: shows its notification.
FCM_WORKER = SHOW + b"""
self.addEventListener('push', event => {
  const p = event.data.json();
  event.waitUntil(show(p.notification.title,
    {body: p.notification.body + ' from ' + p.from + ' ' + JSON.stringify(p.data), tag: p.fcmMessageId}));
});
"""


class Site(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        scripts = {"/sw.js": WORKER, "/fcm/sw.js": FCM_WORKER}
        body, kind = (scripts[self.path], "text/javascript") if self.path in scripts else (PAGE, "text/html")
        self.reply(body, kind)

    def do_POST(self):
        if self.path == "/shown":
            SHOWN.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.reply(b"", "text/plain")

    def reply(self, body, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve():
    """The page and its workers on a loopback port; the page's URL."""
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{site.server_address[1]}/"


# The body of an async function (arguments: pushmock's base URL, the project's Web Push
# certificate's public key, the project number, a FID): the FCM worker subscribes with the
# certificate, the page creates an installation and registers the subscription with FCM as
# the JS SDK does, from its own origin. Returns the FCM token (or the answer, when none).
REGISTER_WITH_FCM = """
    const [base, vapid, number, fid] = arguments;
    const bytes = Uint8Array.from(atob(vapid.replace(/-/g, '+').replace(/_/g, '/')), c => c.charCodeAt(0));
    const reg = await navigator.serviceWorker.register('/fcm/sw.js', {scope: '/fcm/'});
    await new Promise(r => { const w = reg.installing || reg.waiting; if (!w) r();
                             else w.addEventListener('statechange', () => w.state === 'activated' && r()); });
    const sub = (await reg.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: bytes})).toJSON();
    const key = 'AIzaSyA-pushmock-test-key-0123456789abc';
    const fis = await (await fetch(base + '/v1/projects/demo-pushmock/installations', {method: 'POST',
        headers: {'Content-Type': 'application/json', 'Accept': 'application/json', 'x-goog-api-key': key},
        body: JSON.stringify({fid: fid, authVersion: 'FIS_v2',
                              appId: '1:' + number + ':web:0a1b2c', sdkVersion: 'w:0.6.13'})})).json();
    const registered = await (await fetch(base + '/v1/projects/demo-pushmock/registrations', {method: 'POST',
        headers: {'Content-Type': 'application/json', 'Accept': 'application/json', 'x-goog-api-key': key,
                  'x-goog-firebase-installations-auth': 'FIS ' + fis.authToken.token},
        body: JSON.stringify({web: {endpoint: sub.endpoint, auth: sub.keys.auth, p256dh: sub.keys.p256dh,
                                    applicationPubKey: vapid}})})).json();
    return registered.token || JSON.stringify(registered);"""
