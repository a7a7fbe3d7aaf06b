"""make bench (MCS): real GCM clients on pushmock's MCS port, built on Google's own message
definitions (the mcs.proto and checkin.proto firebase-messaging ships).

usage: mcs_clients.py HTTP_HOST:PORT MCS_PORT CA_FILE CLIENTS IDLE
1. CLIENTS clients check in, register3, make an installation and an FCM registration, and
   log in over TLS; one FCM v1 send goes to each (eight senders at once), each client acks
   its data message with a selective ack: the time from the first send to the last ack.
2. One client: FCM v1 sends to it as fast as eight senders go, each acked: sends per second.
3. IDLE more clients check in and log in, and stay idle: pushmock's memory per connection.
Prints three lines; exits non-zero if a push is missing.
"""
import asyncio
import http.client
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse

from firebase_messaging.proto.android_checkin_pb2 import AndroidCheckinProto
from firebase_messaging.proto.checkin_pb2 import AndroidCheckinRequest, AndroidCheckinResponse
from firebase_messaging.proto.mcs_pb2 import DataMessageStanza, IqStanza, LoginRequest, LoginResponse, SelectiveAck

host, port = sys.argv[1].split(":")
mcs_port, ca, clients, idle = int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
API_KEY = "AIzaSyA-pushmock-bench-key-0123456789ab"
P256 = "BDOU99-h67HcA6JeFXHbSNMu7e2yNNu3RzoMj8TM4W88jITfq7ZmPvIM1Iv-4_l2LxQcYwhqby2xGpWwzjfAnG4"
local = threading.local()
# The clients' p256dh: a real P-256 point (FCM encrypts for it; the bench decrypts nothing).
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import serialization
import base64
P256DH = base64.urlsafe_b64encode(ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
    serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)).rstrip(b"=").decode()


def call(method, path, body=b"", headers=None):
    if not hasattr(local, "c"):
        local.c = http.client.HTTPConnection(host, int(port), timeout=30)
    local.c.request(method, path, body=body, headers=headers or {})
    r = local.c.getresponse()
    return r.status, r.read()


def pid():
    return int(open(os.environ["PUSHMOCK_PID_FILE"]).read()) if "PUSHMOCK_PID_FILE" in os.environ else None


def register(i):
    """A client: check-in, register3, installation, FCM registration. Its credentials and token."""
    req = AndroidCheckinRequest(checkin=AndroidCheckinProto(type=3), version=3)
    status, body = call("POST", "/checkin", req.SerializeToString(), {"Content-Type": "application/x-protobuf"})
    answer = AndroidCheckinResponse()
    answer.ParseFromString(body)
    aid, sec = answer.android_id, answer.security_token
    form = urllib.parse.urlencode({"app": "org.chromium.linux", "X-subtype": f"wp:bench#{i}", "device": aid, "sender": P256})
    _, body = call("POST", "/c2dm/register3", form.encode(),
                   {"Authorization": f"AidLogin {aid}:{sec}", "Content-Type": "application/x-www-form-urlencoded"})
    gcm = body.decode()[6:]
    fid = f"cBench{i:016d}"
    _, body = call("POST", "/v1/projects/demo-pushmock/installations", json.dumps(
        {"fid": fid, "appId": "1:1:web:1", "authVersion": "FIS_v2", "sdkVersion": "w:0.6.13"}).encode(),
        {"x-goog-api-key": API_KEY, "Content-Type": "application/json"})
    fis = json.loads(body)["authToken"]["token"]
    keys = {"endpoint": f"https://fcm.googleapis.com/fcm/send/{gcm}", "p256dh": P256DH, "auth": "MDEyMzQ1Njc4OWFiY2RlZg"}
    _, body = call("POST", "/v1/projects/demo-pushmock/registrations", json.dumps({"web": keys}).encode(),
                   {"x-goog-api-key": API_KEY, "x-goog-firebase-installations-auth": fis,
                    "Content-Type": "application/json"})
    return aid, sec, json.loads(body)["token"]


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


async def read_packet(reader):
    tag = (await reader.readexactly(1))[0]
    size, shift = 0, 0
    while True:
        b = (await reader.readexactly(1))[0]
        size |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    return tag, await reader.readexactly(size)


async def connect(aid, sec, context):
    reader, writer = await asyncio.open_connection("127.0.0.1", mcs_port, ssl=context, server_hostname="mtalk.google.com")
    login = LoginRequest(id="chrome-bench", domain="mcs.android.com", user=str(aid), resource=str(aid),
                         auth_token=str(sec), device_id=f"android-{aid:x}", use_rmq2=True, auth_service=2).SerializeToString()
    writer.write(bytes([41, 2]) + varint(len(login)) + login)
    assert (await reader.readexactly(1))[0] == 41
    tag, _ = await read_packet(reader)
    assert tag == 3, tag
    return reader, writer


async def acker(reader, writer, expected, acked):
    """Acks each data message with a selective ack; records when."""
    for _ in range(expected):
        while True:
            tag, payload = await read_packet(reader)
            if tag == 8:
                break
        data = DataMessageStanza()
        data.ParseFromString(payload)
        iq = IqStanza(type=1, id="", extension={"id": 12, "data": SelectiveAck(id=[data.persistent_id]).SerializeToString()})
        body = iq.SerializeToString()
        writer.write(bytes([7]) + varint(len(body)) + body)
        acked.append(time.monotonic())


def send_all(tokens, senders=8):
    """One FCM v1 send to each token, from `senders` threads on keep-alive connections."""
    chunks = [tokens[i::senders] for i in range(senders)]

    def work(chunk):
        for t in chunk:
            status, body = call("POST", "/v1/projects/demo-pushmock/messages:send",
                                json.dumps({"message": {"token": t, "data": {"k": "v"}}}).encode(),
                                {"Authorization": "Bearer bench", "Content-Type": "application/json"})
            assert status == 200, body

    threads = [threading.Thread(target=work, args=(c,)) for c in chunks]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def rss_kb(p):
    return int(next(l for l in open(f"/proc/{p}/status") if l.startswith("VmRSS")).split()[1])


async def main():
    context = ssl.create_default_context(cafile=ca)
    loop = asyncio.get_running_loop()
    made = [register(i) for i in range(clients)]
    conns = [await connect(a, s, context) for a, s, _ in made]
    acked = []
    tasks = [asyncio.create_task(acker(r, w, 1, acked)) for r, w in conns]
    start = time.monotonic()
    await loop.run_in_executor(None, send_all, [t for _, _, t in made])
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert len(acked) == clients
    print(f"one FCM v1 send to each of {clients} MCS clients, each acknowledged: last ack after "
          f"{(max(acked) - start) * 1000:.0f} ms")

    sends = 4000
    r, w = conns[0]
    acked = []
    task = asyncio.create_task(acker(r, w, sends, acked))
    start = time.monotonic()
    await loop.run_in_executor(None, send_all, [made[0][2]] * sends)
    await asyncio.wait_for(task, 120)
    print(f"FCM v1 sends to one MCS client, each acknowledged: {sends / (max(acked) - start):.0f} sends/s")
    for _, w in conns:
        w.close()

    p = pid()
    if p and idle:
        before = rss_kb(p)
        held = []
        for i in range(idle):
            aid, sec = register_checkin_only()
            held.append(await connect(aid, sec, context))
        await asyncio.sleep(1)
        after = rss_kb(p)
        print(f"{idle} idle MCS clients logged in: {(after - before) * 1024 / idle:.0f} bytes of pushmock's memory each")
        for _, w in held:
            w.close()


def register_checkin_only():
    req = AndroidCheckinRequest(checkin=AndroidCheckinProto(type=3), version=3)
    _, body = call("POST", "/checkin", req.SerializeToString(), {"Content-Type": "application/x-protobuf"})
    answer = AndroidCheckinResponse()
    answer.ParseFromString(body)
    return answer.android_id, answer.security_token


asyncio.run(main())
