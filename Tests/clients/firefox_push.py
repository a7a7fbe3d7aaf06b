"""A real headless Firefox ESR receives Web Pushes from pushmock over the Mozilla push protocol.

Usage (inside a network namespace with loopback only, pushmock on port 80):
    firefox_push.py PUSHMOCK_URL
The test serves a page and its service worker on loopback; the page subscribes with a VAPID
key; pushmock's device list shows the subscription; pywebpush sends to the endpoint; the
service worker's `push` event runs with the data and shows a notification, which
`registration.getNotifications()` lists. Then Firefox quits, a push with a TTL is sent, Firefox
starts again on the same profile and the push arrives. Last, a second service worker of the
page subscribes with the project's Web Push certificate and the page registers that
subscription as the Firebase JS SDK does (Installations, then FCM registrations, with `fetch`
from its origin); an FCM v1 send from firebase-admin to the token it got reaches that worker as
the SDK's payload. Prints what it saw as JSON; any surprise is an assertion.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import push_pages
import requests
from marionette_driver.marionette import Marionette
from py_vapid import Vapid
from pywebpush import webpush
from cryptography.hazmat.primitives import serialization

base = sys.argv[1].rstrip("/")
control = base + "/emulator/v1/projects/demo-pushmock"
firefox = shutil.which("firefox-esr") or shutil.which("firefox")
assert firefox, "firefox-esr is not installed"

# The page and its service worker: the worker shows each push's data as a notification.
page = push_pages.serve()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


profile = tempfile.mkdtemp(prefix="pushmock-firefox-")
ws_url = base.replace("http://", "ws://").replace("https://", "wss://") + "/"
PREFS = {
    "dom.push.serverURL": ws_url,
    "dom.push.testing.allowInsecureServerURL": True,
    "dom.push.connection.enabled": True,
    "dom.push.enabled": True,
    "dom.push.loglevel": "Debug",
    "dom.push.maxQuotaPerSubscription": 1000,
    "alerts.useSystemBackend": False,
    "permissions.default.desktop-notification": 1,
    # Nothing in the background reaches for the network (it could not leave the namespace anyway).
    "app.update.enabled": False, "app.update.auto": False,
    "browser.safebrowsing.malware.enabled": False, "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False, "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False, "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False, "toolkit.telemetry.enabled": False,
    "extensions.update.enabled": False, "extensions.getAddons.cache.enabled": False,
    "browser.newtabpage.enabled": False, "browser.startup.page": 0, "browser.shell.checkDefaultBrowser": False,
    "services.settings.server": "http://127.0.0.1:9/", "network.dns.disablePrefetch": True,
    "network.prefetch-next": False, "browser.aboutwelcome.enabled": False,
}


def start_firefox():
    port = free_port()
    with open(os.path.join(profile, "user.js"), "w") as f:
        for k, v in {**PREFS, "marionette.port": port}.items():
            f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
    env = {**os.environ, "MOZ_HEADLESS": "1", "MOZ_REMOTE_ALLOW_SYSTEM_ACCESS": "1",
           "MOZ_CRASHREPORTER_DISABLE": "1", "MOZ_DISABLE_NONLOCAL_CONNECTIONS": "1"}
    proc = subprocess.Popen([firefox, "--headless", "--marionette", "--no-remote", "--profile", profile],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 60
    while True:
        try:
            m = Marionette(host="127.0.0.1", port=port)
            m.start_session()
            return proc, m
        except Exception:
            if time.time() > deadline or proc.poll() is not None:
                raise
            time.sleep(0.5)


def stop_firefox(proc, m):
    try:
        m.quit(in_app=True)
    except Exception:
        pass
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_async(m, script, *args):
    return m.execute_script("return (async () => { " + script + " })();", script_args=args, script_timeout=30000)


def events(device_id):
    return [(e["event"], e.get("reason")) for e in requests.get(control + f"/events?device={device_id}").json()["events"]]


def wait_for(check, what, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)


def notifications(m):
    return run_async(m, """
        const reg = await navigator.serviceWorker.ready;
        return (await reg.getNotifications()).map(n => n.body);""")


key = Vapid()
key.generate_keys()
server_key = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
out = {}
proc, m = start_firefox()
try:
    m.navigate(page)
    m.set_permission({"name": "notifications"}, "granted")
    sub = run_async(m, """
        const reg = await navigator.serviceWorker.register('/sw.js');
        await navigator.serviceWorker.ready;
        const s = await reg.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: new Uint8Array(arguments[0])});
        return s.toJSON();""", list(server_key))
    assert sub["endpoint"].startswith(base + "/wpush/v2/"), sub
    out["subscribed"] = sub["endpoint"]

    # pushmock's device list shows the real browser and its new subscription.
    devices = requests.get(control + "/devices").json()["devices"]
    browser = [d for d in devices if d.get("real_client") and
               any(s["endpoint"] == sub["endpoint"] for s in d["real_client"]["subscriptions"])]
    assert len(browser) == 1, devices
    device = browser[0]
    assert device["browser"] == "firefox" and "Firefox" in (device["real_client"]["user_agent"] or ""), device
    assert device["real_client"]["subscriptions"][0]["application_server_key"], device

    r = webpush(sub, "hello from pushmock", vapid_private_key=key, vapid_claims={"sub": "mailto:ops@example.com"}, ttl=60)
    assert r.status_code == 201, r.text
    shown = wait_for(lambda: [b for b in notifications(m) if b == "hello from pushmock"], "the notification")
    out["shown"] = shown
    wait_for(lambda: ("MESSAGE_DELIVERED", None) in events(device["id"]), "the browser's ack")

    # Firefox quits; a push with a TTL waits; Firefox starts again on the profile and gets it.
    stop_firefox(proc, m)
    wait_for(lambda: not requests.get(control + f"/devices/{device['id']}").json()["online"], "the disconnect")
    r = webpush(sub, "while you were away", vapid_private_key=key, vapid_claims={"sub": "mailto:ops@example.com"}, ttl=300)
    assert r.status_code == 201, r.text
    assert ("MESSAGE_STORED", "device_offline") in events(device["id"]), events(device["id"])
    r = webpush(sub, "now or never", vapid_private_key=key, vapid_claims={"sub": "mailto:ops@example.com"}, ttl=0)
    assert r.status_code == 201, r.text
    proc, m = start_firefox()
    m.navigate(page)
    shown = wait_for(lambda: [b for b in notifications(m) if b == "while you were away"], "the stored push")
    out["after_restart"] = shown
    delivered = wait_for(lambda: events(device["id"]).count(("MESSAGE_DELIVERED", None)) == 2, "the second ack")
    assert "now or never" not in notifications(m)
    assert ("MESSAGE_DROPPED", "ttl_expired") in events(device["id"]), events(device["id"])
    again = requests.get(control + f"/devices/{device['id']}").json()
    assert again["online"] and again["real_client"]["uaid"] == device["real_client"]["uaid"], again

    # The Firebase JS SDK's getToken, by hand: subscribe with the project's Web Push
    # certificate, create an installation, register the subscription with FCM.
    vapid = requests.get(control + "/webPushKey").json()["public_key"]
    number = requests.get(control).json()["number"]
    token = run_async(m, push_pages.REGISTER_WITH_FCM, base, vapid, number, "fQ8PWd8gQ0K9cRq1yUHUfq")
    assert token and ":APA91b" in token, token
    out["fcm_token"] = token
    import firebase_admin
    from firebase_admin import credentials, messaging
    account = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(requests.get(control + "/serviceAccount").json(), account)
    account.close()
    firebase_admin.initialize_app(credentials.Certificate(account.name))
    messaging.send(messaging.Message(token=token, notification=messaging.Notification(title="FCM", body="to Firefox"),
                                     data={"k": "v"}))
    fcm_shown = wait_for(lambda: run_async(m, """
        const reg = await navigator.serviceWorker.getRegistration('/fcm/');
        return (await reg.getNotifications()).map(n => n.title + ': ' + n.body);"""), "the FCM push")
    assert fcm_shown == [f'FCM: to Firefox from {number} {{"k":"v"}}'], fcm_shown
    out["fcm_shown"] = fcm_shown
finally:
    stop_firefox(proc, m)
    shutil.rmtree(profile, ignore_errors=True)
print(json.dumps(out))
