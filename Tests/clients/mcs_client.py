"""GCM check-in, register3 and MCS against pushmock, byte by byte: a raw client built on
Google's own message definitions (the mcs.proto and checkin.proto that firebase-messaging
ships, compiled), which checks every answer and every close, good input and hostile.

Usage: mcs_client.py HTTP_PORT MCS_PORT CA_FILE   (pushmock started with --timeout 2)
       mcs_client.py flood HTTP_PORT MCS_PORT CA_FILE N   (pushmock with --max-connections < N)
Prints a line per check; exits non-zero on the first surprise.
"""
import json
import socket
import ssl
import sys
import time
import urllib.error
import urllib.request

from firebase_messaging.proto.android_checkin_pb2 import AndroidCheckinProto, ChromeBuildProto
from firebase_messaging.proto.checkin_pb2 import AndroidCheckinRequest, AndroidCheckinResponse
from firebase_messaging.proto.mcs_pb2 import (Close, DataMessageStanza, HeartbeatAck, HeartbeatPing, IqStanza,
                                              LoginRequest, LoginResponse, SelectiveAck)

flood = sys.argv[1] == "flood"
if flood:
    sys.argv.pop(1)
http_port, mcs_port, ca = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
base = f"http://127.0.0.1:{http_port}"
TAGS = {0: HeartbeatPing, 1: HeartbeatAck, 3: LoginResponse, 4: Close, 7: IqStanza, 8: DataMessageStanza}


def post(path, body, headers):
    req = urllib.request.Request(base + path, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def control(path):
    with urllib.request.urlopen(base + "/emulator/v1/projects/demo-pushmock" + path, timeout=15) as r:
        return json.load(r)


def checkin(android_id=None, token=None):
    req = AndroidCheckinRequest(
        checkin=AndroidCheckinProto(type=3, chrome_build=ChromeBuildProto(platform=3, chrome_version="156.0.8078.114",
                                                                          channel=1)),
        version=3, user_serial_number=0)
    if android_id is not None:
        req.id, req.security_token = android_id, token
    status, body, headers = post("/checkin", req.SerializeToString(), {"Content-Type": "application/x-protobuf"})
    if status != 200:
        return status, None
    assert headers["Content-Type"] == "application/x-protobuf", headers
    answer = AndroidCheckinResponse()
    answer.ParseFromString(body)
    return status, answer


def register(android_id, token, form, auth=True):
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if auth:
        headers["Authorization"] = f"AidLogin {android_id}:{token}"
    status, body, _ = post("/c2dm/register3", urllib.parse.urlencode(form).encode(), headers)
    return status, body.decode()


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


class MCS:
    """One TLS connection to the MCS port, as mtalk.google.com."""

    def __init__(self):
        context = ssl.create_default_context(cafile=ca)
        raw = socket.create_connection(("127.0.0.1", mcs_port), timeout=10)
        self.sock = context.wrap_socket(raw, server_hostname="mtalk.google.com")
        self.buffer = b""
        self.first = True

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, tag, message, version=True):
        payload = message.SerializeToString()
        head = bytes([41, tag]) if (version and self.first) else bytes([tag])
        self.first = False
        self.sock.sendall(head + varint(len(payload)) + payload)

    def read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def packet(self, timeout=10):
        self.sock.settimeout(timeout)
        if not hasattr(self, "version_read"):
            assert self.read(1) == bytes([41])
            self.version_read = True
        tag = self.read(1)[0]
        size, shift = 0, 0
        while True:
            b = self.read(1)[0]
            size |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        message = TAGS[tag]()
        message.ParseFromString(self.read(size))
        return tag, message

    def closed(self, timeout=10):
        """True once the server closed the connection (after whatever it still sent)."""
        self.sock.settimeout(timeout)
        try:
            while True:
                if not self.sock.recv(65536):
                    return True
        except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def login(self, android_id, token, received=()):
        self.send(2, LoginRequest(id="chrome-156.0.8078.114", domain="mcs.android.com", user=str(android_id),
                                  resource=str(android_id), auth_token=str(token),
                                  device_id=f"android-{android_id:x}", received_persistent_id=list(received),
                                  adaptive_heartbeat=False, use_rmq2=True, auth_service=2, network_type=1))
        return self.packet()


if flood:
    # N idle MCS connections (TLS done, nothing sent) against a smaller --max-connections: the
    # oldest idle ones are closed to make room, and the HTTP port still answers.
    n = int(sys.argv[4])
    held = [MCS() for _ in range(n)]
    assert urllib.request.urlopen(f"http://127.0.0.1:{http_port}/healthz", timeout=10).status == 200
    closed = sum(1 for c in held[: n // 2] if c.closed(timeout=0.5))
    assert closed > 0, "none of the oldest idle connections was closed"
    print(json.dumps({"opened": n, "oldest_closed": closed}))
    sys.exit(0)

checks = []
def ok(text):
    checks.append(text)
    print("ok:", text, flush=True)


# 0. Android's Firebase SDK gzips its Installations bodies; a body that inflates past the limit
#    (1 MiB) is refused.
import gzip
android = {"Content-Type": "application/json", "Accept": "application/json", "Content-Encoding": "gzip",
           "Cache-Control": "no-cache", "x-goog-api-key": "AIzaSyA-pushmock-test-key-0123456789abc",
           "X-Android-Package": "com.example.app", "X-Android-Cert": "0123456789ABCDEF0123456789ABCDEF01234567"}
body = gzip.compress(json.dumps({"fid": "fQ8PWd8gQ0K9cRq1yUHUfa", "appId": "1:1:android:1", "authVersion": "FIS_v2",
                                 "sdkVersion": "a:18.0.0"}).encode())
status, answer, _ = post("/v1/projects/demo-pushmock/installations", body, android)
assert status == 200 and json.loads(answer)["fid"] == "fQ8PWd8gQ0K9cRq1yUHUfa", answer
bomb = gzip.compress(b" " * (2 << 20))
assert post("/v1/projects/demo-pushmock/installations", bomb, android)[0] == 400
ok("Installations: Android's gzip body read; a body inflating past the limit refused")

# 1. Check-in: new credentials, fixed64, non-zero, below 2^63; the same again echoed; a known id
#    with another token refused; a body that is not a protobuf refused.
status, first = checkin()
assert status == 200 and first.stats_ok and 0 < first.android_id < 2**63 and 0 < first.security_token < 2**63, first
aid, sec = first.android_id, first.security_token
status, again = checkin(aid, sec)
assert status == 200 and (again.android_id, again.security_token) == (aid, sec), again
assert checkin(aid, sec ^ 1)[0] == 401
assert post("/checkin", b"\x0a\xff", {"Content-Type": "application/x-protobuf"})[0] == 400
status, adopted = checkin(1234567890123456789, 987654321)
assert status == 200 and adopted.android_id == 1234567890123456789 and adopted.security_token == 987654321, adopted
ok("check-in: new, renewed, wrong token 401, malformed 400, an unknown pair adopted")

# 2. register3: AidLogin required; sender checked; a token with no newline; delete.
form = {"app": "org.chromium.linux", "X-subtype": "wp:receiver.push.com#7b0b3a41", "device": str(aid),
        "sender": "BDOU99-h67HcA6JeFXHbSNMu7e2yNNu3RzoMj8TM4W88jITfq7ZmPvIM1Iv-4_l2LxQcYwhqby2xGpWwzjfAnG4"}
assert register(aid, sec, form, auth=False) == (401, "Error=AUTHENTICATION_FAILED")
assert register(aid, sec ^ 1, form) == (401, "Error=AUTHENTICATION_FAILED")
assert register(aid, sec, {**form, "sender": "not a sender"}) == (200, "Error=INVALID_SENDER")
assert register(aid, sec, {k: v for k, v in form.items() if k != "app"}) == (200, "Error=INVALID_PARAMETERS")
status, body = register(aid, sec, form)
assert status == 200 and body.startswith("token=") and "\n" not in body and "=" not in body[6:], body
gcm = body[6:]
assert register(aid, sec, form) == (200, body), "the same registration again is the same token"
gone_form = {**form, "X-subtype": "wp:gone#1"}
gone = register(aid, sec, gone_form)[1][6:]
assert register(aid, sec, {**gone_form, "delete": "true"}) == (200, "deleted=org.chromium.linux")
assert post(f"/fcm/send/{gone}", b"", {"TTL": "60"})[0] == 410
ok("register3: AidLogin 401, INVALID_SENDER, INVALID_PARAMETERS, token= without newline, delete= then 410")

# 3. MCS: a wrong security token gets a LoginResponse with an error, then the close.
bad = MCS()
tag, answer = bad.login(aid, sec ^ 1)
assert tag == 3 and answer.HasField("error") and answer.error.code != 0, answer
assert bad.closed()
ok("MCS login with the wrong security token: LoginResponse error, closed")

# 4. A good login: the request's id, no error at all, the heartbeat interval; a ping answered.
mcs = MCS()
tag, answer = mcs.login(aid, sec)
assert tag == 3 and answer.id == "chrome-156.0.8078.114" and not answer.HasField("error"), answer
assert answer.heartbeat_config.interval_ms == 1000, answer
mcs.send(0, HeartbeatPing())
tag, ack = mcs.packet()
assert tag == 1, tag
ok("MCS login answered (id echoed, no error, heartbeat 1000 ms); a ping acked")

# 5. A Web Push to the endpoint arrives as a DataMessageStanza; its body is forwarded as is.
body = bytes(range(200))
status, _, headers = post(f"/fcm/send/{gcm}", body, {"TTL": "60", "Content-Encoding": "aes128gcm"})
assert status == 201, status
tag, data = mcs.packet()
assert tag == 8, tag
app = {d.key: d.value for d in data.app_data}
fields = {f.name: v for f, v in data.ListFields()}
assert fields["category"] == "org.chromium.linux" and fields["from"] == form["sender"], fields
assert app["subtype"] == form["X-subtype"] and app["content-encoding"] == "aes128gcm", app
assert data.raw_data == body and data.persistent_id.startswith("0:") and data.ttl == 60, data
first_pid = data.persistent_id
ok("Web Push to /fcm/send/<token>: a data message with category, from, subtype, aes128gcm, the body, TTL")

# 6. Not acknowledged and the connection lost: it comes again at the next login; named in the
#    login's received_persistent_id, it is delivered and not sent again.
mcs.sock.close()
time.sleep(0.3)
mcs = MCS()
assert mcs.login(aid, sec)[0] == 3
tag, data = mcs.packet()
assert tag == 8 and data.raw_data == body, data
mcs.sock.close()
time.sleep(0.3)
mcs = MCS()
assert mcs.login(aid, sec, received=[data.persistent_id])[0] == 3
mcs.send(0, HeartbeatPing())
assert mcs.packet()[0] == 1, "no redelivery before the ping's ack"
delivered = control(f"/events?event=MESSAGE_DELIVERED&min=1&wait=5")["events"]
assert len(delivered) == 1, delivered
ok("unacknowledged: sent again after a reconnect; named at login: delivered, not sent again")

# 7. aesgcm: the salt and sender key as padded base64url, nothing else; a selective ack.
salt = "c2FsdHNhbHRzYWx0c2FsdA"
dh = "BPM4nCsyqnxUdRDwqcWdcD0Yl76NuJYP5zA1eDMQyS0GNhWwkxhPHUGXDwE3NZA-I1rFPCjF_U1uMG_nUDyiY9I"
status, _, _ = post(f"/fcm/send/{gcm}", b"x" * 50,
                    {"TTL": "60", "Content-Encoding": "aesgcm", "Encryption": f"salt={salt}", "Crypto-Key": f"dh={dh}"})
assert status == 201, status
tag, data = mcs.packet()
app = {d.key: d.value for d in data.app_data}
assert app["encryption"] == "salt=" + salt + "==" and app["crypto-key"] == "dh=" + dh + "=", app
assert "content-encoding" not in app, app
mcs.send(7, IqStanza(type=1, id="", extension={"id": 12, "data": SelectiveAck(id=[data.persistent_id]).SerializeToString()}))
control(f"/events?event=MESSAGE_DELIVERED&min=2&wait=5")
ok("aesgcm: encryption salt= and crypto-key dh= padded, nothing else; a selective ack delivers it")

# 8. Chrome's way: last_stream_id_received on its next packet acknowledges what was sent before.
post(f"/fcm/send/{gcm}", b"y", {"TTL": "60", "Content-Encoding": "aes128gcm"})
tag, data = mcs.packet()
assert tag == 8
mcs.send(0, HeartbeatPing(last_stream_id_received=99))
assert mcs.packet()[0] == 1
assert len(control(f"/events?event=MESSAGE_DELIVERED&min=3&wait=5")["events"]) == 3
ok("last_stream_id_received on a ping acknowledges the data messages sent before it")

# 9. Silence: the server pings after the heartbeat interval, and closes a client that does not
#    answer (a Close packet first).
tag, _ = mcs.packet(timeout=5)
assert tag == 0, f"expected the server's ping, got {tag}"
tag, _ = mcs.packet(timeout=5)
assert tag == 4, f"expected Close, got {tag}"
assert mcs.closed()
ok("a silent client is pinged, then closed with Close")

# 10. A push whose TTL runs out while the client is away expires.
post(f"/fcm/send/{gcm}", b"z", {"TTL": "1", "Content-Encoding": "aes128gcm"})
expired = control(f"/events?event=MESSAGE_EXPIRED&min=1&wait=8")["events"]
assert len(expired) >= 1, expired
ok("a push waiting for an absent client expires after its TTL")

# 11. Hostile framing: each closes the connection, the server goes on.
def closes(data, login_first=True, label=""):
    c = MCS()
    if login_first:
        assert c.login(aid, sec)[0] == 3
    c.send_raw(data)
    assert c.closed(), label


closes(bytes([37, 2, 0]), login_first=False, label="an unsupported version")
closes(bytes([41, 0, 0]), login_first=False, label="anything before the login")
closes(bytes([41, 2, 5, 0x0a, 0xff, 0xff, 0xff, 0xff]), login_first=False, label="a truncated login")
closes(bytes([200, 0]), label="an unknown tag")
closes(bytes([7]) + varint(1 << 20), label="a packet larger than the limit")
closes(bytes([7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), label="a length varint too long")
closes(bytes([7, 3, 0x12, 0x05, 0x00]), label="a truncated IQ")
c = MCS()
assert c.login(aid, sec)[0] == 3
c.send_raw(bytes([5, 2, 0x08, 0x01]))  # a MessageStanza: taken and passed over
c.send(0, HeartbeatPing())
assert c.packet()[0] == 1
ok("bad version, packet before login, truncated login, unknown tag, oversize, long varint, truncated IQ: closed; skipped stanzas passed over")

assert urllib.request.urlopen(base + "/healthz", timeout=5).status == 200
print(json.dumps({"checks": len(checks)}))
