"""The hostile-clients probe of docs/hardening.md ("Measured (issue 32)"), against a release
build: `make probe`, or

    probe.py PUSHMOCK CERT_DIR [CLASS,CLASS...]

Starts pushmock (plain and TLS port, --clock manual, --timeout 5, --max-connections 60), keeps
a well-behaved client asking /healthz every 10 ms on a kept-alive connection, and runs each
attack class in turn. For each it prints one JSON line: the class, the resident memory growth
during it (MiB, the peak over its start), the other client's p99 and worst answer times (ms)
while it ran, and what the attacker got. Loopback only.
"""
import http.client
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

import h2.config
import h2.connection
import h2.events

KEY = "pushmock-dev-server-key"
BASE = "/emulator/v1/projects/demo-pushmock"


class Server:
    def __init__(self, binary, cert_dir):
        self.cert_dir = cert_dir
        self.ca = os.path.join(cert_dir, "ca.pem")
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--tls-port", "0", "--cert-dir", cert_dir, "--clock", "manual", "--timeout", "5",
             "--max-connections", "60", "--device-rate-limit", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.port = self.tls_port = None
        while self.port is None or self.tls_port is None:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("pushmock did not start")
            if m := re.search(r"on http://127\.0\.0\.1:(\d+)", line):
                self.port = int(m.group(1))
            if m := re.search(r"on https://127\.0\.0\.1:(\d+)", line):
                self.tls_port = int(m.group(1))
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def rss_mib(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


class Poller(threading.Thread):
    """The well-behaved client: GET /healthz every 10 ms, each answer's time kept."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.times = []  # (when, seconds or None for a failure)
        self.stop = False

    def run(self):
        c = None
        while not self.stop:
            start = time.monotonic()
            try:
                if c is None:
                    c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                c.request("GET", "/healthz")
                ok = c.getresponse().read() == b'{"status":"ok"}'
                self.times.append((start, time.monotonic() - start if ok else None))
            except (OSError, http.client.HTTPException):
                self.times.append((start, None))
                c = None
            time.sleep(0.01)

    def during(self, since):
        got = [t for w, t in self.times if w >= since]
        good = sorted(t for t in got if t is not None)
        p99 = good[min(len(good) - 1, int(len(good) * 0.99))] * 1000 if good else None
        return {"answers": len(good), "failed": len(got) - len(good),
                "p99_ms": round(p99, 2) if p99 is not None else None,
                "worst_ms": round(good[-1] * 1000, 2) if good else None}


def call(port, method, path, body=None, headers=None, timeout=60):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = dict(headers or {})
    if body is not None and "Content-Type" not in h:
        h["Content-Type"] = "application/json"
    c.request(method, path, body, h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def raw(port, text, limit=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=limit)
    s.sendall(text)
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
            if b"\r\n\r\n" in got:
                break
    except OSError:
        pass
    s.close()
    return int(got.split(b" ")[1]) if got.startswith(b"HTTP/1.1 ") else None


def case(name, server, poller, attack):
    start_rss = server.rss_mib()
    peak = [start_rss]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], server.rss_mib())
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    since = time.monotonic()
    started = time.monotonic()
    outcome = attack(server)
    seconds = round(time.monotonic() - started, 2)
    done.set()
    sampler.join()
    alive = server.process.poll() is None
    print(json.dumps({"class": name, "memory_growth_mib": round(max(peak[0], server.rss_mib()) - start_rss, 1),
                      "seconds": seconds, "other_client": poller.during(since), "alive": alive, "outcome": outcome}),
          flush=True)
    if not alive:
        raise SystemExit(f"pushmock died during {name}")


def numbers(s):
    return [call(s.port, "POST", "/emulator/v1/clock:advance", json.dumps({"seconds": n}) if not isinstance(n, str) else n)[0]
            for n in [1e19, 2 ** 63, 1e300, '{"seconds": 1e400}']]


def command_bridge(s):
    return call(s.port, "POST", BASE + "/bridges", json.dumps({"command": {"argv": ["sh", "-c", "id"]}}))[0]


def h2_client(s):
    ctx = ssl.create_default_context(cafile=s.ca)
    ctx.set_alpn_protocols(["h2"])
    sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.tls_port), timeout=10), server_hostname="localhost")
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    return sock, conn


def stalled_streams(s):
    """60 HTTP/2 connections (the cap) each with a request whose body never comes."""
    held = []
    for _ in range(60):
        try:
            sock, conn = h2_client(s)
            sid = conn.get_next_available_stream_id()
            conn.send_headers(sid, [(":method", "POST"), (":path", "/fcm/send"), (":scheme", "https"),
                                    (":authority", "localhost"), ("content-length", "100")])
            sock.sendall(conn.data_to_send())
            held.append(sock)
        except OSError:
            break
    time.sleep(1)
    fresh = call(s.port, "GET", "/healthz")[0]
    time.sleep(6.5)  # past --timeout 5 and the sweep: the stalled streams are reset
    for sock in held:
        sock.close()
    return {"stalled_connections": len(held), "new_client": fresh}


def projects(s):
    """A send of 1 MB to each of 150 project ids made by naming them."""
    statuses = {}
    pad = "x" * 1_000_000
    for n in range(150):
        st, _ = call(s.port, "GET", f"/emulator/v1/projects/flood-{n}")
        if st == 200:
            st, _ = call(s.port, "POST", "/fcm/send", json.dumps({"to": "/topics/none", "data": {"k": "v"}, "pad": pad}),
                         {"Authorization": f"key={KEY}-flood-{n}"})
        statuses[st] = statuses.get(st, 0) + 1
    for n in range(150):
        call(s.port, "DELETE", f"/emulator/v1/projects/flood-{n}")
    return statuses


def bridges(s):
    """Five bridges to a dead webhook on one device, then 2,000 sends of 3.5 KB."""
    st, body = call(s.port, "POST", BASE + "/devices", json.dumps({"platform": "android", "app": "com.example.probe"}))
    device = json.loads(body)
    made = [call(s.port, "POST", BASE + "/bridges", json.dumps(
        {"device": device["id"], "queue_limit": 100000,
         "webhook": {"url": "http://127.0.0.1:9/x", "max_attempts": 100}}))[0] for _ in range(5)]
    body = json.dumps({"to": device["token"], "data": {"k": "x" * 3500}})
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    for _ in range(2000):
        c.request("POST", "/fcm/send", body, {"Authorization": f"key={KEY}", "Content-Type": "application/json"})
        c.getresponse().read()
    time.sleep(0.5)
    listed = json.loads(call(s.port, "GET", BASE + "/bridges")[1])["bridges"]
    for b in listed:
        call(s.port, "DELETE", BASE + "/bridges/" + b["id"])
    return {"made": made, "forwarded": sum(b["stats"]["forwarded"] for b in listed),
            "overflowed": sum(b["stats"]["overflowed"] for b in listed)}


def identifiers(s):
    """300 devices with a 1 MB app name."""
    body = json.dumps({"platform": "android", "app": "a" * 1_000_000})
    statuses = {}
    for _ in range(300):
        st = call(s.port, "POST", BASE + "/devices", body)[0]
        statuses[st] = statuses.get(st, 0) + 1
    return statuses


def service_accounts(s):
    """GET .../serviceAccount in a loop for 5 s, each for a new project id."""
    statuses, n, end = {}, 0, time.monotonic() + 5
    while time.monotonic() < end:
        st = call(s.port, "GET", f"/emulator/v1/projects/keys-{n}/serviceAccount")[0]
        statuses[st] = statuses.get(st, 0) + 1
        n += 1
    for k in range(n):
        call(s.port, "DELETE", f"/emulator/v1/projects/keys-{k}")
    return statuses


def batch_create(s):
    st, body = call(s.port, "POST", BASE + "/devices:batchCreate", json.dumps(
        {"platform": "android", "app": "com.example.load", "count": 1_000_000, "topics": ["million"]}), timeout=300)
    return {"status": st, "answer": json.loads(body)}


def topic_send(s):
    st, body = call(s.port, "POST", "/fcm/send", json.dumps({"to": "/topics/million", "data": {"k": "v"}}),
                    {"Authorization": f"key={KEY}"}, timeout=300)
    return {"status": st}


def long_chains(s):
    """TLS handshakes with a client chain of 100 certificates, for 5 s."""
    cert = json.loads(call(s.port, "POST", BASE + "/apnsCertificates", json.dumps({"bundle_id": "com.example.app"}))[1])
    ca = open(s.ca).read()
    with tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False) as f:
        f.write(cert["certificate"] + ca * 100 + cert["private_key"])
        chain = f.name
    ctx = ssl.create_default_context(cafile=s.ca)
    ctx.load_cert_chain(chain)
    refused = accepted = 0
    end = time.monotonic() + 5
    while time.monotonic() < end:
        try:
            t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", s.tls_port), timeout=5), server_hostname="localhost")
            t.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            accepted += 1 if t.recv(100).startswith(b"HTTP/1.1 200") else 0
            t.close()
        except (OSError, ssl.SSLError):
            refused += 1
    os.unlink(chain)
    return {"handshakes_refused": refused, "served": accepted}


def webhook_crlf(s):
    return [call(s.port, "POST", BASE + "/bridges", json.dumps({"webhook": {"url": u}}))[0]
            for u in ["http://127.0.0.1:9/x\r\nX-Injected: 1", "http://127.0.0.1:9/a b", "http://127.0.0.1:9/x HTTP/1.1\r\n\r\nGET /"]]


def lenient(s):
    p = s.port
    return {
        "te_gzip_chunked": raw(p, b"POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
        "no_slash": raw(p, b"GET healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        "host_with_space": raw(p, b"GET /healthz HTTP/1.1\r\nHost: local host\r\n\r\n"),
        "host_bad_port": raw(p, b"GET /healthz HTTP/1.1\r\nHost: localhost:abc\r\n\r\n"),
        "absolute_form": raw(p, b"GET http://localhost/healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    }


def big_sends(s):
    """300 sends of 1 MB against the 256 MiB bound of one project."""
    pad = "x" * 1_000_000
    body = json.dumps({"to": "/topics/none", "data": {"k": "v"}, "pad": pad})
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    for _ in range(300):
        c.request("POST", "/fcm/send", body, {"Authorization": f"key={KEY}", "Content-Type": "application/json"})
        c.getresponse().read()
    info = json.loads(call(s.port, "GET", BASE)[1])
    return {"kept": info["messages"], "evicted": info["messages_evicted"]}


def main(binary, cert_dir, only=None):
    server = Server(binary, cert_dir)
    poller = Poller(server.port)
    poller.start()
    time.sleep(1)
    try:
        for name, attack in [("numbers", numbers), ("command_bridge", command_bridge), ("big_sends", big_sends),
                             ("projects", projects), ("bridges", bridges), ("identifiers", identifiers),
                             ("service_accounts", service_accounts), ("stalled_h2_streams", stalled_streams),
                             ("long_client_chains", long_chains), ("webhook_crlf", webhook_crlf), ("lenient", lenient),
                             ("batch_create_1m", batch_create), ("topic_send_1m", topic_send)]:
            if only is None or name in only:
                case(name, server, poller, attack)
    finally:
        poller.stop = True
        server.process.terminate()
        server.process.wait(timeout=30)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3].split(",") if len(sys.argv) > 3 else None)
