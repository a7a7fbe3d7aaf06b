"""The Mozilla push protocol as Firefox speaks it, and as a hostile client would, against
pushmock's WebSocket push server: a raw RFC 6455 client (wsclient.py) so every byte is the
test's, pywebpush as the app server, and http_ece to decrypt as the browser would.

Usage: mozilla_push.py HOST PORT [TLS_PORT CA_FILE]
       mozilla_push.py idle HOST PORT   (a server with --timeout 1: a silent peer is pinged, then closed)
Exits non-zero (an assertion) on any surprise; prints what it checked.
"""
import base64
import json
import os
import struct
import sys
import time
import uuid

import http_ece
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pywebpush import webpush

from wsclient import Closed, WebSocket, handshake

if sys.argv[1] == "idle":
    # Against a server started with --timeout 1: a silent peer is pinged, then closed (1001).
    w = WebSocket(sys.argv[2], int(sys.argv[3]))
    w.send({"messageType": "hello", "use_webpush": True})
    assert w.receive()["messageType"] == "hello"
    start = time.time()
    opcode, _ = w.read_frame(timeout=5)
    assert opcode == 0x9, opcode
    try:
        while True:
            opcode, payload = w.read_frame(timeout=5)
            assert opcode == 0x8, opcode
            raise Closed(struct.unpack(">H", payload[:2])[0], payload[2:].decode())
    except Closed as c:
        assert c.code == 1001, c
    print(json.dumps({"pinged_then_closed_after": round(time.time() - start, 1)}))
    sys.exit(0)

host, port = sys.argv[1], int(sys.argv[2])
base = f"http://{host}:{port}"
control = base + "/emulator/v1/projects/demo-pushmock"
checked = []


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def events(device_id):
    return [(e["event"], e.get("reason")) for e in requests.get(control + f"/events?device={device_id}").json()["events"]]


def device_of(uaid):
    return next(d for d in requests.get(control + "/devices").json()["devices"]
                if (d.get("real_client") or {}).get("uaid") == uaid)


def hello(ws, uaid=None):
    msg = {"messageType": "hello", "broadcasts": {}, "use_webpush": True}
    if uaid:
        msg["uaid"] = uaid
    ws.send(msg)
    reply = ws.receive()
    assert reply["messageType"] == "hello" and reply["status"] == 200 and reply["use_webpush"] is True, reply
    assert reply["broadcasts"] == {} and len(reply["uaid"]) == 32, reply
    return reply["uaid"]


class Browser:
    """What Firefox keeps per subscription: its own P-256 key pair and auth secret."""

    def __init__(self):
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self, endpoint):
        public = self.private.public_key().public_bytes(serialization.Encoding.X962,
                                                        serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": endpoint, "keys": {"p256dh": b64(public), "auth": b64(self.auth)}}

    def decrypt(self, note):
        data = base64.urlsafe_b64decode(note["data"] + "=" * (-len(note["data"]) % 4))
        headers = note["headers"]
        if headers["encoding"] == "aesgcm":
            salt = headers["encryption"].split("salt=")[1].split(";")[0]
            dh = [p.split("=", 1)[1] for p in headers["crypto_key"].replace(",", ";").split(";") if p.startswith("dh=")][0]
            return http_ece.decrypt(data, salt=base64.urlsafe_b64decode(salt + "=" * (-len(salt) % 4)),
                                    private_key=self.private, dh=base64.urlsafe_b64decode(dh + "=" * (-len(dh) % 4)),
                                    auth_secret=self.auth, version="aesgcm").decode()
        return http_ece.decrypt(data, private_key=self.private, auth_secret=self.auth, version="aes128gcm").decode()


key = Vapid()
key.generate_keys()
raw_key = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
claims = {"sub": "mailto:ops@example.com"}

# 1. Handshake: 101 with the RFC's accept key; refusals for a wrong version or no key.
_, status, headers = handshake(host, port, version="8")
assert status == 426 and headers.get("sec-websocket-version") == "13", (status, headers)
_, status, _ = handshake(host, port, headers={"Sec-WebSocket-Key": None})
assert status == 400, status
_, status, _ = handshake(host, port, headers={"Connection": "keep-alive"})
assert status == 400, status
# A GET / without Upgrade is still the dashboard.
assert "text/html" in requests.get(base + "/").headers["Content-Type"]
checked.append("handshake: 101, 426, 400; / without Upgrade is the dashboard")

# 2. hello, register with and without a key, a push that reaches the browser and is acked.
ws = WebSocket(host, port)
uaid = hello(ws)
channel = str(uuid.uuid4())
ws.send({"messageType": "register", "channelID": channel, "key": base64.urlsafe_b64encode(raw_key).decode()})
reg = ws.receive()
assert reg == {"messageType": "register", "channelID": channel, "status": 200, "pushEndpoint": reg["pushEndpoint"]}, reg
assert reg["pushEndpoint"].startswith(base + "/wpush/v2/"), reg
plain_channel = str(uuid.uuid4())
ws.send({"messageType": "register", "channelID": plain_channel})
plain = ws.receive()
assert plain["pushEndpoint"].startswith(base + "/wpush/v1/"), plain
browser = Browser()
r = webpush(browser.subscription(reg["pushEndpoint"]), "first push", vapid_private_key=key, vapid_claims=claims, ttl=60)
assert r.status_code == 201, r.text
note = ws.receive()
assert note["messageType"] == "notification" and note["channelID"] == channel, note
assert note["headers"] == {"encoding": "aes128gcm"} and browser.decrypt(note) == "first push", note
assert "ttl" not in note and "topic" not in note, note  # TTL and Topic are not forwarded (RFC 8030)
device = device_of(uaid)
assert ("MESSAGE_DELIVERED", None) not in events(device["id"])  # not before the ack
ws.send({"messageType": "ack", "updates": [{"channelID": channel, "version": note["version"], "code": 100}]})
ws.send({})
assert ws.receive() == {}
assert ("MESSAGE_DELIVERED", None) in events(device["id"]), events(device["id"])
checked.append("register v1/v2, notification decrypted by the browser, ack 100 delivered")

# 3. The older aesgcm coding travels with its headers; a restricted endpoint refuses another key.
r = webpush(browser.subscription(plain["pushEndpoint"]), "old coding", content_encoding="aesgcm", ttl=60)
assert r.status_code == 201, r.text
note = ws.receive()
assert note["headers"]["encoding"] == "aesgcm" and "crypto_key" in note["headers"] and "encryption" in note["headers"], note
assert browser.decrypt(note) == "old coding"
ws.send({"messageType": "ack", "updates": [{"channelID": plain_channel, "version": note["version"], "code": 101}]})
ws.send({})
ws.receive()
assert ("MESSAGE_DROPPED", "decryption_failed") in events(device["id"]), events(device["id"])
other = Vapid()
other.generate_keys()
r = requests.post(reg["pushEndpoint"], data=b"", headers={"TTL": "0"})
assert r.status_code == 401 and r.json()["errno"] == 109, r.text
# An empty push carries no data and no headers.
r = webpush(browser.subscription(plain["pushEndpoint"]), None, ttl=30)
note = ws.receive()
assert "data" not in note and "headers" not in note, note
ws.send({"messageType": "nack", "version": note["version"], "code": 301})
ws.send({})
ws.receive()
assert ("MESSAGE_DROPPED", "service_worker_error_301") in events(device["id"]), events(device["id"])
checked.append("aesgcm headers forwarded; ack 101 and nack 301 logged; VAPID on a v2 endpoint")

# 4. Away: stored for the TTL (a newer push with the same Topic replaces it), TTL 0 dropped,
#    unacknowledged pushes kept; hello with the uaid gets them.
r = webpush(browser.subscription(reg["pushEndpoint"]), "unacked", vapid_private_key=key, vapid_claims=claims, ttl=60)
assert ws.receive()["messageType"] == "notification"
ws.close()
time.sleep(0.3)
assert not requests.get(control + f"/devices/{device['id']}").json()["online"]
sub = browser.subscription(reg["pushEndpoint"])
for text, extra in [("score 1", {"Topic": "score"}), ("score 2", {"Topic": "score"})]:
    assert webpush(sub, text, vapid_private_key=key, vapid_claims=claims, ttl=120, headers=extra).status_code == 201
assert webpush(sub, "never", vapid_private_key=key, vapid_claims=claims, ttl=0).status_code == 201
ws = WebSocket(host, port)
assert hello(ws, uaid) == uaid
got = sorted(browser.decrypt(ws.receive()) for _ in range(2))
assert got == ["score 2", "unacked"], got
kinds = events(device["id"])
assert ("MESSAGE_COLLAPSED", "replaced_by_newer") in kinds and ("MESSAGE_DROPPED", "ttl_expired") in kinds, kinds
checked.append("away: stored, collapsed by Topic, TTL 0 dropped, unacked kept; hello with uaid delivers")

# 5. unregister ends the endpoint (410); a second connection with the same uaid replaces the first.
ws.send({"messageType": "unregister", "channelID": plain_channel, "code": 200})
assert ws.receive() == {"messageType": "unregister", "channelID": plain_channel, "status": 200}
r = requests.post(plain["pushEndpoint"], headers={"TTL": "0"})
assert r.status_code == 410 and r.json()["errno"] == 106, r.text
second = WebSocket(host, port)
assert hello(second, uaid) == uaid
try:
    ws.receive()
    raise AssertionError("the first connection stayed open")
except Closed as c:
    assert c.code == 1000, c
second.close()
# A uaid the server does not know gets a new one (Firefox then drops its subscriptions).
fresh = WebSocket(host, port)
assert hello(fresh, "0" * 32) != "0" * 32
fresh.close()
checked.append("unregister 410; a newer connection replaces the old; unknown uaid renewed")


# 6. Hostile input: each closes with RFC 6455's code, or the protocol's answer.
def closes(code, act, hello_first=True):
    w = WebSocket(host, port)
    if hello_first:
        hello(w)
    act(w)
    try:
        while True:
            w.receive(timeout=10)
    except Closed as c:
        assert c.code == code, (c.code, c.reason, code)
        checked.append(f"close {code}: {c.reason}")
    w.sock.close()


closes(1002, lambda w: w.frame(0x1, b'{"messageType":"hello"}', mask=False), hello_first=False)
closes(1002, lambda w: w.frame(0x9, b"x" * 126))
closes(1002, lambda w: w.frame(0x9, b"x", fin=False))
closes(1002, lambda w: w.frame(0x1, b"{}", rsv=4))
closes(1002, lambda w: w.frame(0x0, b"{}"))
closes(1002, lambda w: (w.frame(0x1, b"{", fin=False), w.frame(0x1, b"}")))
closes(1002, lambda w: w.frame(0x3, b"{}"))
closes(1009, lambda w: w.frame(0x1, b" " * (64 * 1024 + 1)))
closes(1009, lambda w: [w.frame(0x1 if i == 0 else 0x0, b" " * 20000, fin=False) for i in range(4)])
closes(1007, lambda w: w.frame(0x1, b"\xff\xfe"))
closes(1003, lambda w: w.frame(0x2, b"\x00\x01"))
closes(1002, lambda w: w.send({"messageType": "register", "channelID": str(uuid.uuid4())}), hello_first=False)
closes(1002, lambda w: w.send("not json"))
closes(1002, lambda w: w.send({"messageType": "register", "channelID": "not-a-uuid"}))
closes(1002, lambda w: w.send({"messageType": "hello", "use_webpush": True}))
closes(1000, lambda w: w.frame(0x8, struct.pack(">H", 1000)))
# Fragments that make a whole message are fine; a ping in between is answered.
w = WebSocket(host, port)
hello(w)
w.frame(0x1, b'{"messageType"', fin=False)
w.frame(0x9, b"hi")
w.frame(0x0, b':"ping"}')
opcode, payload = w.read_frame()
assert (opcode, payload) == (0xA, b"hi"), (opcode, payload)
assert w.receive() == {}
# A flood of register: a browser has at most 1000 subscriptions, then 503.
for i in range(1000):
    w.send({"messageType": "register", "channelID": str(uuid.uuid4())})
statuses = [w.receive()["status"] for _ in range(1000)]
w.send({"messageType": "register", "channelID": str(uuid.uuid4())})
assert statuses.count(200) == 1000 and w.receive()["status"] == 503, statuses[-3:]
w.close()
checked.append("fragments joined, pings answered, register flood bounded")
# No hello within 5 seconds: closed, as autopush does.
quiet = WebSocket(host, port)
t = time.time()
try:
    quiet.receive(timeout=10)
except Closed as c:
    assert c.code == 1002 and 4 <= time.time() - t <= 8, (c, time.time() - t)
checked.append("no hello: closed after 5 s")

# 7. wss:// on the TLS port.
if len(sys.argv) > 4:
    tls = WebSocket(host, int(sys.argv[3]), ca=sys.argv[4])
    tls_uaid = hello(tls)
    tls.send({"messageType": "register", "channelID": str(uuid.uuid4())})
    endpoint = tls.receive()["pushEndpoint"]
    assert endpoint.startswith(f"https://{host}:{sys.argv[3]}/wpush/v1/"), endpoint
    r = requests.post(endpoint, headers={"TTL": "10"}, verify=sys.argv[4])
    assert r.status_code == 201 and tls.receive()["messageType"] == "notification", r.text
    tls.close()
    checked.append("wss:// on the TLS port")

print(json.dumps({"checked": len(checked), "cases": checked}))
