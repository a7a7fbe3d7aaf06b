"""Hostile HTTP/1.1 clients, driven by the Swift server tests (the server runs with --timeout 2).

usage: hostile.py HTTP_PORT TLS_PORT CA [--tls]
Prints one JSON line per case: what the attacker saw, and whether a well-behaved client was
served meanwhile (and how fast). With --tls the attacks go to the TLS port (ALPN http/1.1);
slowloris, which already opens connections on both ports, runs only without it.
"""
import json
import socket
import ssl
import sys
import time

import httpx

KEY = "pushmock-dev-server-key"
TLS = "--tls" in sys.argv
CA = None


def connect(port):
    """A connection to the attacked port: plain, or TLS with ALPN http/1.1."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    if not TLS:
        return raw
    ctx = ssl.create_default_context(cafile=CA)
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx.wrap_socket(raw, server_hostname="localhost")


def healthy(base):
    start = time.monotonic()
    r = httpx.get(base + "/healthz", timeout=5)
    return r.status_code == 200, round(time.monotonic() - start, 3)


def answer(sock, limit=10.0):
    """Reads until the server closes or `limit` passes; returns (status or None, closed)."""
    sock.settimeout(limit)
    got = b""
    closed = False
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                closed = True
                break
            got += chunk
            if b"\r\n\r\n" in got and len(got) > 12 and b"Content-Length: " in got:
                head, _, body = got.partition(b"\r\n\r\n")
                length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                if len(body) >= length:
                    break
    except (socket.timeout, ConnectionResetError, ssl.SSLError):
        closed = True
    status = int(got.split(b" ")[1]) if got.startswith(b"HTTP/1.1 ") else None
    return status, closed, got.partition(b"\r\n\r\n")[2][:200].decode("utf-8", "replace")


def post(port, path, body, content_type="application/json", extra=b""):
    s = connect(port)
    try:
        s.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: localhost\r\nAuthorization: key=" + KEY.encode() +
                  b"\r\nContent-Type: " + content_type.encode() + b"\r\nContent-Length: " + str(len(body)).encode() +
                  b"\r\n" + extra + b"\r\n" + body)
    except OSError:  # a reset or broken pipe, or TLS's EOF
        pass  # the server answered (413) and closed before taking it all
    return s


def slowloris(base, port, tls_port, ca, count=150, tls_count=20):
    """Connections that trickle a header byte at a time: cut off after --timeout, while a
    normal client is served at once."""
    socks = []
    # Timed from before the first connection opens: the server counts each one's deadline
    # from its own opening.
    start = time.monotonic()
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["http/1.1"])
    for i in range(count + tls_count):
        raw = socket.create_connection(("127.0.0.1", port if i < count else tls_port), timeout=5)
        s = raw if i < count else ctx.wrap_socket(raw, server_hostname="localhost")
        s.sendall(b"POST /fcm/send HTTP/1.1\r\nHost: localhost\r\n")
        s.setblocking(False)
        socks.append(s)
    closed_at = [None] * len(socks)
    served = []
    while time.monotonic() - start < 8 and None in closed_at:
        for i, s in enumerate(socks):
            if closed_at[i] is not None:
                continue
            try:
                s.send(b"X")
                data = s.recv(4096)
                if data == b"":
                    closed_at[i] = time.monotonic() - start
            except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                pass
            except OSError:
                closed_at[i] = time.monotonic() - start
        if 1.0 < time.monotonic() - start and not served:
            served.append(healthy(base))
        time.sleep(0.2)
    for s in socks:
        s.close()
    done = [t for t in closed_at if t is not None]
    return {"connections": len(socks), "cut_off": len(done), "first_cut": round(min(done), 2) if done else None,
            "last_cut": round(max(done), 2) if done else None, "served_during": served[0][0] if served else False,
            "served_seconds": served[0][1] if served else None}


def header_flood(base, port, tls_port, ca):
    out = {}
    s = connect(port)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + b"".join(b"X-Flood-%d: %s\r\n" % (i, b"v" * 90) for i in range(2000)) + b"\r\n")
    out["big_headers"] = answer(s)[:2]
    s = connect(port)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Long: " + b"a" * 200_000 + b"\r\n\r\n")
    out["long_header"] = answer(s)[:2]
    return out


def huge_json(base, port, tls_port, ca):
    out = {}
    s = post(port, "/fcm/send", b'{"to":"x","data":{"k":"' + b"v" * (5 << 20) + b'"}}')
    out["5MiB_with_length"] = answer(s)[:2]
    s = connect(port)
    s.sendall(b"POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nAuthorization: key=" + KEY.encode() +
              b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    try:
        for _ in range(40):
            s.sendall(b"20000\r\n" + b"a" * 0x20000 + b"\r\n")
    except OSError:
        pass
    out["5MiB_chunked"] = answer(s)[:2]
    many = b'{"to":"x","data":{' + b",".join(b'"k%d":"v"' % i for i in range(60_000)) + b"}}"
    start = time.monotonic()
    s = post(port, "/fcm/send", many)
    status, _, body = answer(s)
    out["60000_keys"] = [status, round(time.monotonic() - start, 2), body[:60]]
    start = time.monotonic()
    v1 = b'{"message":{"token":"x","data":{' + b",".join(b'"k%d":"v"' % i for i in range(60_000)) + b"}}}"
    s = post(port, "/v1/projects/demo-pushmock/messages:send", v1)
    status, _, body = answer(s)
    out["v1_60000_keys"] = [status, round(time.monotonic() - start, 2)]
    return out


def deep_json(base, port, tls_port, ca):
    out = {}
    for name, path in [("legacy", "/fcm/send"), ("v1", "/v1/projects/demo-pushmock/messages:send"),
                       ("control", "/emulator/v1/projects/demo-pushmock/devices")]:
        s = post(port, path, b'{"data":' + b"[" * 500_000 + b"]" * 500_000 + b"}")
        status, _, body = answer(s)
        out[name] = [status, body[:80]]
    return out


def invalid_utf8(base, port, tls_port, ca):
    out = {}
    bad = b'{"to":"\xff\xfe\xfd","data":{"k":"\xc3\x28"}}'
    for name, path in [("legacy", "/fcm/send"), ("v1", "/v1/projects/demo-pushmock/messages:send"),
                       ("control", "/emulator/v1/projects/demo-pushmock/devices")]:
        status, _, body = answer(post(port, path, bad))
        out[name] = [status, body[:80]]
    status, _, body = answer(post(port, "/fcm/send", b"registration_id=\xff\xfe&data.k=\xc3\x28",
                                  content_type="application/x-www-form-urlencoded"))
    out["legacy_form"] = [status, body[:80]]
    s = connect(port)
    s.sendall(b"GET /emulator/v1/projects/demo-pushmock/events?topic=\xff\xfe HTTP/1.1\r\nHost: localhost\r\nX-Bad: \xff\r\n\r\n")
    out["query_and_header"] = list(answer(s)[:2])
    return out


def main(port, tls_port, ca):
    base = f"http://127.0.0.1:{port}"
    cases = [("slowloris", slowloris)] if not TLS else []
    cases += [("header_flood", header_flood), ("huge_json", huge_json), ("deep_json", deep_json),
              ("invalid_utf8", invalid_utf8)]
    for name, fn in cases:
        start = time.monotonic()
        attacked = tls_port if TLS and name != "slowloris" else port
        seen = fn(base, attacked, tls_port, ca)
        ok, seconds = healthy(base)
        print(json.dumps({"case": name, "seen": seen, "healthy": ok, "seconds": seconds,
                          "took": round(time.monotonic() - start, 2)}), flush=True)


if __name__ == "__main__":
    sys.argv = [a for a in sys.argv if a != "--tls"]
    CA = sys.argv[3]
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
