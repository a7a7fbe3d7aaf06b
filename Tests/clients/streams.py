"""Event streams against a live pushmock: SSE (live, resume, heartbeats, a slow client cut
off without stalling anyone), the NDJSON export, and /metrics. Prints one JSON object.

usage: streams.py HTTP_PORT
"""
import json
import socket
import sys
import threading
import time
import urllib.request

port = int(sys.argv[1])
root = f"http://127.0.0.1:{port}"
control = root + "/emulator/v1/projects/demo-pushmock"
out = {}


def call(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def send(token, n):
    call("POST", root + "/fcm/send", {"to": token, "data": {"n": str(n)}},
         {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"})


def sse(path, headers=(), seconds=2.0):
    """Reads an SSE stream for `seconds`; returns (ids, event names, heartbeats, raw text)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
    s.settimeout(0.2)
    raw = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            break
        raw += chunk
    s.close()
    text = raw.decode(errors="replace")
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    events = [json.loads(line[6:])["event"] for line in text.splitlines() if line.startswith("data: {\"seq\"")]
    return ids, events, text.count(": heartbeat"), text


device = json.loads(call("POST", control + "/devices", {"platform": "android", "app": "com.example.app"}))
token = device["token"]
send(token, 0)

# Live: a reader attached before two sends sees their events, and only those.
result = {}
reader = threading.Thread(target=lambda: result.update(live=sse("/emulator/v1/projects/demo-pushmock/events:stream?heartbeat=0.3", seconds=2.0)))
reader.start()
time.sleep(0.5)
send(token, 1)
send(token, 2)
reader.join()
ids, events, beats, text = result["live"]
out["live_ids"] = ids
out["live_events"] = events
out["heartbeats"] = beats
out["content_type"] = "text/event-stream" in text.split("\r\n\r\n")[0]

# Resume after Last-Event-ID: everything later, filtered.
ids, events, _, _ = sse("/emulator/v1/projects/demo-pushmock/events:stream?event=MESSAGE_DELIVERED",
                        headers=[("Last-Event-ID", "2")], seconds=0.6)
out["resumed_ids"] = ids
out["resumed_events"] = events

# A client that never reads is cut off; another client and the API carry on meanwhile.
slow = socket.create_connection(("127.0.0.1", port))
slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
slow.sendall(b"GET /emulator/v1/projects/demo-pushmock/events:stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
time.sleep(0.3)
metrics = call("GET", root + "/metrics").decode()
out["stream_clients_while_open"] = [l for l in metrics.splitlines() if l.startswith("pushmock_stream_clients")]
call("POST", control + "/devices:batchCreate", {"platform": "android", "app": "com.example.many", "count": 3000, "topics": ["many"]})
# Keep events coming for a while: the unread stream grows until pushmock drops it.
slowest = 0.0
deadline = time.monotonic() + 15
while time.monotonic() < deadline:
    start = time.monotonic()
    call("POST", root + "/fcm/send", {"to": "/topics/many", "data": {"k": "v"}},
         {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"})
    slowest = max(slowest, time.monotonic() - start)
    metrics = call("GET", root + "/metrics").decode()
    if "pushmock_stream_clients 0" in metrics:
        break
    time.sleep(0.05)
out["slowest_send_while_slow_client_seconds"] = round(slowest, 3)
out["slow_client_cut_off"] = "pushmock_stream_clients 0" in metrics
out["health_after"] = json.loads(call("GET", root + "/healthz"))["status"]
slow.close()

# The export: every event so far, one JSON object a line, with the log's columns.
count = json.loads(call("GET", control + "/events?count=true"))["count"]
lines = call("GET", control + "/events:export").decode().splitlines()
rows = [json.loads(l) for l in lines]
out["export_rows"] = len(rows)
out["export_expected"] = count
out["export_columns"] = sorted(rows[0].keys()) if rows else []
out["export_in_order"] = all(a["seq"] < b["seq"] for a, b in zip(rows, rows[1:]))
out["metrics_requests"] = [l for l in metrics.splitlines() if 'route="POST /fcm/send"' in l]
print(json.dumps(out))
