"""A real headless Chromium (`--headless=new`) uses pushmock as its GCM: check-in,
register3 and the MCS connection, by Chromium's own switches, all on 127.0.0.1.

Usage: chromium_push.py HTTP_PORT TLS_PORT MCS_PORT CA_FILE
A page served here registers a service worker and subscribes with a VAPID key; pywebpush
sends to the endpoint Chromium returned (its host, fcm.googleapis.com or jmt17.google.com, is
pushmock's TLS port for this process only); the worker's `push` event shows the data
(and reports it to the page's server, push_pages.SHOWN). Then a
second worker subscribes with the project's Web Push certificate, the page registers that
subscription as the Firebase JS SDK does (Installations, FCM registrations), and an FCM v1
send from firebase-admin reaches the worker as the SDK's payload. Chromium runs in this
network namespace (its GCM connects only while the host has a network, docs/fcm-clients.md),
kept on loopback by its switches and resolver rules; every connection it opened, read from its
net log, must have gone to 127.0.0.1. Prints what it saw as JSON; any surprise is an assertion.
"""
import base64
import hashlib
import json
import os
import shutil
import socket
import ssl
import sys
import tempfile
import time

import firebase_admin
import push_pages
import requests
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from firebase_admin import credentials, messaging
from py_vapid import Vapid
from pywebpush import webpush
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

http_port, tls_port, mcs_port, ca = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
base = f"http://127.0.0.1:{http_port}"
control = base + "/emulator/v1/projects/demo-pushmock"

# The sender (this script, not Chromium) reaches Google's push hosts at pushmock's TLS port.
_resolve = socket.getaddrinfo
PUSH_HOSTS = {"fcm.googleapis.com", "jmt17.google.com", "oauth2.googleapis.com"}


def to_pushmock(host, port, *args, **kwargs):
    if host in PUSH_HOSTS:
        return _resolve("127.0.0.1", tls_port, *args, **kwargs)
    return _resolve(host, port, *args, **kwargs)


socket.getaddrinfo = to_pushmock
os.environ["REQUESTS_CA_BUNDLE"] = ca
os.environ["SSL_CERT_FILE"] = ca

page = push_pages.serve()

# Chromium trusts pushmock's MCS certificate by its key (the MCS socket is always TLS).
pem = ssl.get_server_certificate(("127.0.0.1", mcs_port))
spki = x509.load_pem_x509_certificate(pem.encode()).public_key().public_bytes(
    serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
spki_hash = base64.b64encode(hashlib.sha256(spki).digest()).decode()

work = tempfile.mkdtemp(prefix="pushmock-chromium-")
netlog = os.path.join(work, "netlog.json")
options = webdriver.ChromeOptions()
for flag in [
    "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--user-data-dir={work}/profile",
    f"--gcm-checkin-url={base}/checkin", f"--gcm-registration-url={base}/c2dm/register3",
    f"--gcm-mcs-endpoint=https://127.0.0.1:{mcs_port}", f"--ignore-certificate-errors-spki-list={spki_hash}",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--no-proxy-server",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-pings",
    "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--no-first-run",
    f"--log-net-log={netlog}",
]:
    options.add_argument(flag)
env_proxy = [k for k in os.environ if k.lower().endswith("_proxy")]
for k in env_proxy:
    del os.environ[k]
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_script_timeout(60)
origin = page.rstrip("/")


def run_async(script, *args):
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "(async () => { " + script + " })().then(done, e => done({error: String(e)}));", *args)


def wait_for(check, what, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.3)
    state = gcm_state()
    try:
        driver.get("chrome://gcm-internals")
        time.sleep(2)
        state += "\ngcm-internals: " + driver.find_element("tag name", "body").text[:3000]
    except Exception as e:
        state += str(e)
    raise AssertionError("timed out waiting for " + what + "; gcm: " + state)


def gcm_state():
    try:
        devices = requests.get(control + "/devices", timeout=5).json()["devices"]
        return json.dumps([d.get("real_client") for d in devices if d.get("real_client")])
    except Exception as e:
        return str(e)


def shown(prefix):
    """What the page's workers showed and reported (push_pages.SHOWN), starting with prefix."""
    return [n for n in push_pages.SHOWN if n.startswith(prefix)]


out = {}
try:
    driver.get(page)
    # The permission lasts as long as this session (it stays open until the end).
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["notifications"], "origin": origin})
    key = Vapid()
    key.generate_keys()
    server_key = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    sub = run_async("""
        const reg = await navigator.serviceWorker.register('/sw.js');
        await navigator.serviceWorker.ready;
        const s = await reg.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: new Uint8Array(arguments[0])});
        return s.toJSON();""", list(server_key))
    assert "endpoint" in sub, sub
    host = sub["endpoint"].split("/")[2]
    assert host in PUSH_HOSTS and "/fcm/send/" in sub["endpoint"], sub
    out["endpoint_host"] = host
    # pushmock knows the browser: a real GCM client, connected over MCS.
    wait_for(lambda: any((d.get("real_client") or {}).get("connected") for d in
                         requests.get(control + "/devices").json()["devices"]
                         if (d.get("real_client") or {}).get("kind") == "mcs"), "Chromium's MCS login")

    r = webpush(sub, "hello Chromium", vapid_private_key=key, vapid_claims={"sub": "mailto:ops@example.com"}, ttl=60)
    assert r.status_code == 201, r.text
    # Under a loaded CI machine Chromium's GCM can take its time to show it: a minute.
    out["web_push"] = wait_for(lambda: [n for n in shown("pushmock: ") if n == "pushmock: hello Chromium"], "the Web Push", 60)

    # The Firebase JS SDK's getToken, by hand, then an FCM v1 send to the token.
    vapid = requests.get(control + "/webPushKey").json()["public_key"]
    number = requests.get(control).json()["number"]
    token = run_async(push_pages.REGISTER_WITH_FCM, base, vapid, number, "cQ8PWd8gQ0K9cRq1yUHUfq")
    assert token and ":APA91b" in token, token
    account = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, dir=work)
    json.dump(requests.get(control + "/serviceAccount").json(), account)
    account.close()
    firebase_admin.initialize_app(credentials.Certificate(account.name))
    messaging.send(messaging.Message(token=token, notification=messaging.Notification(title="FCM", body="to Chromium"),
                                     data={"k": "v"}))
    out["fcm"] = wait_for(lambda: shown("FCM: "), "the FCM push")
    assert out["fcm"] == [f'FCM: to Chromium from {number} {{"k":"v"}}'], out["fcm"]
finally:
    driver.quit()

# Every connection Chromium opened went to loopback (its net log lists each one's address):
# every TCP connection, and every UDP socket that sent anything. Chromium's IPv6 reachability
# probe "connects" a UDP socket to Google's public DNS address to learn a source address, and
# sends nothing on it; that is allowed, a datagram is not.
text = open(netlog).read().rstrip().rstrip(",")
if not text.endswith("}"):
    text += "]}"
log = json.loads(text)
names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
sources = {v: k for k, v in log["constants"]["logSourceType"].items()}
loopback = lambda a: a.startswith("127.0.0.1:") or a.startswith("[::1]:")
tcp, udp_connected, udp_sent = set(), {}, set()
for e in log.get("events", []):
    name, params, source = names.get(e["type"], ""), e.get("params") or {}, e.get("source", {})
    kind = sources.get(source.get("type"), "")
    if name in ("TCP_CONNECT_ATTEMPT", "TCP_CONNECT") and "address" in params:
        tcp.add(params["address"])
    if kind.startswith("UDP") and name == "SOCKET_CONNECT" and "address" in params:
        udp_connected[source["id"]] = params["address"]
    if kind.startswith("UDP") and name == "UDP_BYTES_SENT":
        udp_sent.add(source["id"])
assert tcp, "the net log lists no connections"
outside = [a for a in tcp if not loopback(a)]
outside += [a for sid, a in udp_connected.items() if sid in udp_sent and not loopback(a)]
assert not outside, outside
out["tcp_connections"] = sorted(tcp)
out["udp_probes_sending_nothing"] = sorted({a for sid, a in udp_connected.items() if sid not in udp_sent})
shutil.rmtree(work, ignore_errors=True)
print(json.dumps(out))
