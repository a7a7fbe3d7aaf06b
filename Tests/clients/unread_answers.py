"""Clients that ask for large answers and never read them, driven by the Swift server tests.

usage: unread_answers.py HTTP_PORT TLS_PORT CA PID TIMEOUT
Fills the log with about 140,000 events from two topic sends and 3,000 token sends, then runs
each attack on one connection while a well-behaved client asks /healthz every 10 ms on another:
HTTP/2 event exports, long event lists and long-polls answered with long lists (over TLS and
h2c) and long lists of sends (TLS), on streams whose flow-control window is 0, and 100
pipelined long event lists (plain and TLS) or long-polls (plain) never read over HTTP/1.1. Prints one JSON line per attack: the
server's resident memory before and at its peak (KiB), whether the attacker was cut off and
when, and the other client's answers and p99 latency.
"""
import json
import socket
import ssl
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import httpx

from h2_clients import TCP_CLOSE, TCP_CLOSE_WAIT, watch_latency

http_port, tls_port, ca, pid, timeout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
PROJECT = "/emulator/v1/projects/demo-pushmock"
KEY = "pushmock-dev-server-key"


def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def connect(tls, alpn):
    raw = socket.create_connection(("127.0.0.1", tls_port if tls else http_port), timeout=10)
    if not tls:
        return raw
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols([alpn])
    return ctx.wrap_socket(raw, server_hostname="localhost")


def h2_unread(tls, paths):
    """Streams asking for `paths` on one connection whose window is 0: nothing can be sent."""
    sock = connect(tls, "h2")
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.local_settings = h2.settings.Settings(client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    conn.initiate_connection()
    for path in paths:
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "GET"), (":path", path), (":scheme", "https" if tls else "http"),
                                (":authority", "localhost")], end_stream=True)
    sock.sendall(conn.data_to_send())
    return sock


def http1_unread(tls, paths):
    sock = connect(tls, "http/1.1")
    sock.sendall(b"".join(b"GET " + p.encode() + b" HTTP/1.1\r\nHost: localhost\r\n\r\n" for p in paths))
    return sock


def attack(name, open_attacker):
    before = rss_kib()
    stop, latencies = threading.Event(), []
    watcher = threading.Thread(target=watch_latency, args=(http_port, stop, latencies), daemon=True)
    watcher.start()
    start = time.monotonic()
    sock = open_attacker()
    peak, cut_after = before, None
    while time.monotonic() - start < timeout + 6:
        peak = max(peak, rss_kib())
        # The answers are never read, so a close cannot be seen by reading: the kernel's TCP
        # state says whether the server closed (CLOSE_WAIT) or reset (CLOSE) the connection.
        state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
        if state in (TCP_CLOSE_WAIT, TCP_CLOSE):
            cut_after = time.monotonic() - start
            break
        time.sleep(0.2)
    stop.set()
    watcher.join()
    sock.close()
    ok = sorted(t for t in latencies if t is not None)
    print(json.dumps({"case": name, "rss_before": before, "rss_peak": peak, "growth_mib": round((peak - before) / 1024, 1),
                      "cut_after": round(cut_after, 2) if cut_after else None, "answers": len(ok),
                      "failed": len(latencies) - len(ok), "p99_ms": ok[int(len(ok) * 0.99)] if ok else None}),
          flush=True)


def main():
    with httpx.Client(base_url=f"http://127.0.0.1:{http_port}", timeout=60) as c:
        c.post(PROJECT + "/devices:batchCreate",
               json={"platform": "android", "app": "com.example.many", "count": 50000, "topics": ["many"]})
        for _ in range(2):
            c.post("/fcm/send", headers={"Authorization": f"key={KEY}"}, json={"to": "/topics/many", "data": {"k": "v"}})
        token = c.post(PROJECT + "/devices", json={"platform": "ios", "app": "com.example.one"}).json()["token"]
        for i in range(3000):
            c.post("/fcm/send", headers={"Authorization": f"key={KEY}"},
                   json={"to": token, "notification": {"title": f"send {i}", "body": "x" * 100}})
        events = c.get(PROJECT + "/events?count=true").json()["count"]
        messages = c.get(PROJECT + "/messages?limit=1").json()["total"]
    print(json.dumps({"case": "log", "events": events, "messages": messages}), flush=True)
    export = PROJECT + "/events:export"
    lists = PROJECT + "/events?limit=100000"
    # A long-poll that waits its second out (fewer than `min` events match), then answers with
    # the ~80,000 events after seq 60,000.
    polls = PROJECT + "/events?since=60000&limit=100000&min=100000&wait=1"
    sends = PROJECT + "/messages?limit=10000"
    for tls in (True, False):
        port = "tls" if tls else "h2c"
        attack(f"h2_exports_{port}", lambda: h2_unread(tls, [export] * 10))
        attack(f"h2_lists_{port}", lambda: h2_unread(tls, [lists] * 100))
        attack(f"h2_long_polls_{port}", lambda: h2_unread(tls, [polls] * 100))
        attack(f"http1_pipelined_{'tls' if tls else 'plain'}", lambda: http1_unread(tls, [lists] * 100))
    # The same on the other port would only repeat these.
    attack("h2_messages_tls", lambda: h2_unread(True, [sends] * 100))
    attack("http1_long_polls_plain", lambda: http1_unread(False, [polls] * 100))


main()
