"""N browsers connected to pushmock over the Mozilla push protocol (raw WebSockets, as
Tests/clients/wsclient.py speaks it), each registered once; then one empty push POSTed to each
endpoint over one keep-alive connection while a selector reads every socket. Prints the time
from the first POST to the last notification read, and the mean per push.

usage: websocket_fanout.py HOST:PORT N
"""
import json
import os
import selectors
import sys
import threading
import time
import uuid

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "clients"))
from wsclient import WebSocket  # noqa: E402

host, port = sys.argv[1].split(":")
n = int(sys.argv[2])
browsers = []
for _ in range(n):
    ws = WebSocket(host, int(port))
    ws.send({"messageType": "hello", "use_webpush": True})
    assert ws.receive()["messageType"] == "hello"
    ws.send({"messageType": "register", "channelID": str(uuid.uuid4())})
    browsers.append((ws, ws.receive()["pushEndpoint"]))

selector = selectors.DefaultSelector()
for ws, _ in browsers:
    ws.sock.setblocking(False)
    selector.register(ws.sock, selectors.EVENT_READ, ws)
received = 0
done = threading.Event()


def read():
    global received
    while received < n:
        for key, _ in selector.select(timeout=30):
            ws = key.data
            ws.buffer += ws.sock.recv(65536)
            while len(ws.buffer) >= 2 and len(ws.buffer) >= 2 + (ws.buffer[1] & 0x7F):
                length = ws.buffer[1] & 0x7F
                payload, ws.buffer = ws.buffer[2:2 + length], ws.buffer[2 + length:]
                if b'"notification"' in payload:
                    received += 1
    done.set()


reader = threading.Thread(target=read, daemon=True)
session = requests.Session()
start = time.perf_counter()
reader.start()
for _, endpoint in browsers:
    r = session.post(endpoint, headers={"TTL": "60"})
    assert r.status_code == 201, r.text
posted = time.perf_counter()
assert done.wait(60), f"only {received} of {n} notifications arrived"
end = time.perf_counter()
print(f"one push to each of {n} browsers on WebSockets: {(end - start) * 1000:.0f} ms from the first POST to the last "
      f"notification ({(end - start) / n * 1e6:.0f} us a push; the POSTs took {(posted - start) * 1000:.0f} ms)")
