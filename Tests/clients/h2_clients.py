"""HTTP/2 clients for pushmock, driven by the Swift server tests: on the TLS port (ALPN h2),
or with --h2c on the plain port (HTTP/2 with prior knowledge; PORT is then the plain port).

usage: h2_clients.py httpx PORT CA HTTP_PORT   httpx http2=True: FCM v1 and APNs; prints JSON
       h2_clients.py abuse PORT CA HTTP_PORT [--h2c]
                                               every abuse case; prints one JSON line per case
       h2_clients.py scans PORT CA HTTP_PORT [--h2c]
                                               a hundred log scans on one connection; prints JSON
       h2_clients.py goaway PORT CA            prints "ready", then waits for the server's GOAWAY
       h2_clients.py backpressure PORT CA HTTP_PORT TIMEOUT [--h2c]
                                               large answers to a reader and a non-reader; prints JSON
       h2_clients.py lockout PORT CA CAP TIMEOUT
                                               a trickled handshake is cut off; idle connections at the
                                               cap make room for a new client; prints JSON
       h2_clients.py stalled PORT CA CAP TIMEOUT
                                               connections holding a request whose body never comes fill
                                               the cap beside a working one: a new client gets in, the
                                               working one keeps its place, the stalled streams are reset
       h2_clients.py fields PORT CA HTTP_PORT [--h2c]
                                               answers one after another on one connection, some
                                               fields repeated, some changed; prints JSON
       h2_clients.py streams PORT CA HTTP_PORT  SETTINGS_MAX_CONCURRENT_STREAMS before and after
                                               the first valid provider token; prints JSON
       h2_clients.py busy PORT CA HTTP_PORT PID [--h2c]
                                               quiet connections ask while a turn's work outlasts the
                                               server's --timeout: each is answered; prints JSON
"""
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import httpx

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8  # Linux's tcp_states.h
# HTTP/2 with prior knowledge on the plain port instead of TLS.
H2C = "--h2c" in sys.argv


def base(port):
    return f"http://127.0.0.1:{port}" if H2C else f"https://localhost:{port}"


def http_client(ca, http2=True, **kw):
    """httpx over TLS (ALPN), or on the plain port: h2c with prior knowledge, or HTTP/1.1."""
    if H2C:
        return httpx.Client(http1=not http2, http2=http2, **kw)
    return httpx.Client(http2=http2, verify=ca, **kw)


def connect(port, ca, alpn=("h2",), cert=None, host="localhost"):
    """A connection to PORT: TLS (with ALPN), or plain for h2c."""
    if H2C:
        return socket.create_connection(("127.0.0.1", port), timeout=5)
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert)
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    return ctx.wrap_socket(raw, server_hostname=host)


def healthy(port, ca):
    """A fresh connection gets /healthz at once: the server is up and not stalled."""
    start = time.monotonic()
    with http_client(ca, timeout=5) as c:
        r = c.get(base(port) + "/healthz")
    return r.status_code == 200 and r.http_version == "HTTP/2", round(time.monotonic() - start, 3)


def read_until_closed(sock, conn=None, limit=10.0):
    """Reads until the server closes; returns what h2 events said (GOAWAY code, resets)."""
    seen = {"goaway": None, "resets": 0, "responses": 0, "closed": False}
    deadline = time.monotonic() + limit
    sock.settimeout(0.5)
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except (ConnectionError, ssl.SSLError, OSError):
            seen["closed"] = True
            break
        if not data:
            seen["closed"] = True
            break
        if conn is None:
            continue
        try:
            events = conn.receive_data(data)
        except Exception:
            continue
        for e in events:
            if isinstance(e, h2.events.ConnectionTerminated):
                seen["goaway"] = int(e.error_code)
            elif isinstance(e, h2.events.StreamReset):
                seen["resets"] += 1
            elif isinstance(e, h2.events.ResponseReceived):
                seen["responses"] += 1
        try:
            sock.sendall(conn.data_to_send())
        except OSError:
            pass
    return seen


def client(port, ca, cert=None, host="localhost"):
    sock = connect(port, ca, cert=cert, host=host)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    return sock, conn


def headers(path="/healthz", method="GET", extra=()):
    scheme = "http" if H2C else "https"
    return [(":method", method), (":path", path), (":scheme", scheme), (":authority", "localhost")] + list(extra)


def case_garbage_handshake(port, ca):
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    raw.sendall(b"\x16\x03\x01\x00\x05hello" + b"\x00" * 2000)
    return read_until_closed(raw)


def case_plain_http_on_tls_port(port, ca):
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    raw.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    return read_until_closed(raw)


def case_bad_preface(port, ca):
    sock = connect(port, ca)
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + b"\x00" * 64)
    return read_until_closed(sock)


def case_oversized_headers(port, ca):
    sock, conn = client(port, ca)
    big = [(f"x-big-{i}", "v" * 4000) for i in range(40)]  # 160 KB of headers
    conn.send_headers(1, headers(extra=big), end_stream=True)
    sock.sendall(conn.data_to_send())
    seen = read_until_closed(sock, conn, limit=3)
    seen["refused"] = seen["resets"] > 0 or seen["goaway"] is not None or seen["closed"]
    return seen


def case_too_many_streams(port, ca):
    sock, conn = client(port, ca)
    conn.local_settings.max_concurrent_streams = 100000
    # Open 1,100 streams without ending them: more than the advertised 1,000.
    for i in range(1100):
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, headers(path="/healthz", method="POST"), end_stream=False)
    conn.max_outbound_frame_size = 16384
    sock.sendall(conn.data_to_send())
    return read_until_closed(sock, conn, limit=3)


def case_rapid_reset(port, ca):
    sock, conn = client(port, ca)
    for _ in range(3000):
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, headers(), end_stream=False)
        conn.reset_stream(sid)
    sock.sendall(conn.data_to_send())
    return read_until_closed(sock, conn, limit=5)


def case_continuation_flood(port, ca):
    """A header block that never ends: HEADERS without END_HEADERS, then CONTINUATION frames
    without end."""
    sock, conn = client(port, ca)
    frames = b"\x00\x00\x01\x01\x00\x00\x00\x00\x01\x82"  # HEADERS, stream 1, :method GET
    frames += b"\x00\x00\x01\x09\x00\x00\x00\x00\x01\x84" * 20000  # CONTINUATION, :path /
    try:
        sock.sendall(frames)
    except OSError:
        pass
    return read_until_closed(sock, conn, limit=5)


HEALTH = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"


def ask_health(s):
    """Asks /healthz on an HTTP/1.1 socket and reads the answer; OSError if the server closed it."""
    s.sendall(HEALTH)
    read_health(s)


def read_health(s):
    """Reads a /healthz answer from an HTTP/1.1 socket; OSError if the server closed it."""
    got = b""
    while not got.endswith(b'"ok"}'):
        chunk = s.recv(4096)
        if not chunk:
            raise OSError("closed")
        got += chunk


def watch_latency(http_port, stop, out):
    """A well-behaved HTTP/1.1 client on the plain port: /healthz every 10 ms until `stop`;
    `out` gets each answer's time in ms (or None when it failed)."""
    s = socket.create_connection(("127.0.0.1", http_port), timeout=10)
    while not stop.is_set():
        start = time.monotonic()
        try:
            ask_health(s)
            out.append(round((time.monotonic() - start) * 1000, 2))
        except OSError:
            out.append(None)
            s = socket.create_connection(("127.0.0.1", http_port), timeout=10)
        time.sleep(0.01)


def case_hpack_bomb(port, ca, http_port, seconds=3.0):
    """HEADERS frames packed with 16,000 one-byte HPACK references (static entry 16), sent
    without pause on new streams: the server bounds its work per turn and ends the connection
    once its streams keep failing; a client on another connection is served meanwhile."""
    import threading
    stop, latencies = threading.Event(), []
    # A daemon: should the attack raise, the watcher does not keep the process alive.
    watcher = threading.Thread(target=watch_latency, args=(http_port, stop, latencies), daemon=True)
    watcher.start()
    sock, conn = client(port, ca)
    block = b"\x90" * 16000
    sent, sid = 0, 1
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            frame = len(block).to_bytes(3, "big") + b"\x01\x05" + sid.to_bytes(4, "big") + block
            sock.sendall(frame * 8)
            sent += 8
            sid += 16
    except OSError:
        pass
    seen = read_until_closed(sock, conn, limit=5)
    stop.set()
    watcher.join()
    ok = sorted(t for t in latencies if t is not None)
    seen.update({"frames": sent, "answers": len(ok), "failed": len(latencies) - len(ok),
                 "p99_ms": ok[int(len(ok) * 0.99)] if ok else None, "max_ms": ok[-1] if ok else None})
    return seen


def fill_log_for_scans(http_port):
    """80,000 events in the log (20,000 devices on a topic, two sends to it): a scan reads them all."""
    control = f"http://127.0.0.1:{http_port}/emulator/v1/projects/demo-pushmock"
    with httpx.Client(timeout=60) as c:
        c.post(control + "/devices:batchCreate",
               json={"platform": "android", "app": "com.example.scan", "count": 20000, "topics": ["scan"]})
        for _ in range(2):
            c.post(f"http://127.0.0.1:{http_port}/fcm/send", headers={"Authorization": "key=pushmock-dev-server-key"},
                   json={"to": "/topics/scan", "data": {"k": "v"}})


def case_log_scans(port, ca, http_port, streams=100):
    """A hundred requests that each read the whole log (a count no event matches), sent at once
    on one connection: the server leaves what exceeds one turn's time for the next turn, so a
    client on another connection is answered between them rather than after them all."""
    import threading
    fill_log_for_scans(http_port)
    stop, answered = threading.Event(), []

    def watch():
        s = socket.create_connection(("127.0.0.1", http_port), timeout=30)
        while not stop.is_set():
            start = time.monotonic()
            try:
                ask_health(s)
                answered.append((time.monotonic(), round((time.monotonic() - start) * 1000, 2)))
            except OSError:
                # Closed by the server (its idle bound, in a slow sanitized build): ask on a new
                # connection rather than read a closed one forever.
                s = socket.create_connection(("127.0.0.1", http_port), timeout=30)
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.2)
    sock, conn = client(port, ca)
    ended = []
    try:
        for _ in range(streams):
            conn.send_headers(conn.get_next_available_stream_id(),
                              headers("/emulator/v1/projects/demo-pushmock/events?count=true&token=none"), end_stream=True)
        sock.sendall(conn.data_to_send())
        sock.settimeout(30)
        while len(ended) < streams:
            data = sock.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.StreamEnded):
                    ended.append(time.monotonic())
            sock.sendall(conn.data_to_send())
    except OSError:
        pass  # cut off or timed out: `answered` below says how far it got
    finally:
        stop.set()
        watcher.join()
        sock.close()
    during = sorted(ms for t, ms in answered if ended and ended[0] < t < ended[-1])
    return {"answered": len(ended), "seconds": round(ended[-1] - ended[0], 2) if ended else None,
            "others_between": len(during), "p99_ms": during[int(len(during) * 0.99)] if during else None}


def flood(port, ca, frame):
    """Sends a frame 300,000 times and never reads the ACKs: the server stops reading from us,
    then cuts us off after its --timeout (the tests run it with 2 seconds)."""
    sock, conn = client(port, ca)
    sock.settimeout(2)
    try:
        for _ in range(300):
            sock.sendall(frame * 1000)
    except OSError:
        pass
    # Still never reading (reading would let a slow server make progress again): the kernel's
    # TCP state says when the server closed (CLOSE_WAIT) or reset (CLOSE) the connection.
    # Generous: under the address sanitizer, with other tests running, the server is slow.
    deadline = time.monotonic() + 18
    while time.monotonic() < deadline:
        if sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0] in (TCP_CLOSE_WAIT, TCP_CLOSE):
            return {"goaway": None, "resets": 0, "responses": 0, "closed": True}
        time.sleep(0.2)
    return {"goaway": None, "resets": 0, "responses": 0, "closed": False}


def case_settings_flood(port, ca):
    return flood(port, ca, b"\x00\x00\x06\x04\x00\x00\x00\x00\x00" + b"\x00\x03\x00\x00\x00\x64")


def case_ping_flood(port, ca):
    return flood(port, ca, b"\x00\x00\x08\x06\x00\x00\x00\x00\x00" + b"pingpong")


def abuse(port, ca, http_port):
    cases = [("garbage_handshake", case_garbage_handshake), ("plain_http_on_tls_port", case_plain_http_on_tls_port),
             ("bad_preface", case_bad_preface), ("oversized_headers", case_oversized_headers),
             ("too_many_streams", case_too_many_streams), ("rapid_reset", case_rapid_reset),
             ("continuation_flood", case_continuation_flood), ("settings_flood", case_settings_flood),
             ("ping_flood", case_ping_flood), ("hpack_bomb", lambda p, c: case_hpack_bomb(p, c, http_port)),
             ("log_scans", lambda p, c: case_log_scans(p, c, http_port))]
    for name, fn in cases:
        if H2C and name == "plain_http_on_tls_port":
            continue  # HTTP/1.1 is welcome on the plain port
        try:
            seen = fn(port, ca)
        except Exception as e:  # the attack itself may be cut off mid-way; that is fine
            seen = {"error": type(e).__name__}
        ok, seconds = healthy(port, ca)
        print(json.dumps({"case": name, "seen": seen, "healthy": ok, "seconds": seconds}), flush=True)


def with_httpx(port, ca, http_port):
    out = {}
    control = f"http://127.0.0.1:{http_port}/emulator/v1/projects/demo-pushmock"
    with httpx.Client(timeout=10) as c:
        android = c.post(control + "/devices", json={"platform": "android", "app": "com.example.app"}).json()
        iphone = c.post(control + "/devices", json={"platform": "ios", "app": "com.example.app"}).json()
        cert = c.post(control + "/apnsCertificates", json={"bundle_id": "com.example.app"}).json()
        c.post(control + "/devices:batchCreate", json={"platform": "android", "app": "com.example.many", "count": 3000})
    with httpx.Client(http2=True, verify=ca, timeout=10) as c:
        r = c.post(f"https://localhost:{port}/v1/projects/demo-pushmock/messages:send",
                   json={"message": {"token": android["token"], "data": {"via": "httpx"}}})
        out["v1"] = [r.status_code, r.http_version, r.json().get("name", "")]
        # A body far larger than HTTP/2's initial 64 KiB window: flow control must carry it.
        plain = httpx.get(control + "/devices", timeout=10).content
        big = c.get(f"https://localhost:{port}/emulator/v1/projects/demo-pushmock/devices")
        out["large_body"] = [big.http_version, len(big.content), len(plain), big.content == plain]
    pem = "/tmp/pushmock-httpx-cert.pem"
    with open(pem, "w") as f:
        f.write(cert["certificate"] + cert["private_key"])
    ctx = ssl.create_default_context(cafile=ca)
    ctx.load_cert_chain(pem)
    with httpx.Client(http2=True, verify=ctx, timeout=10) as c:
        r = c.post(f"https://localhost:{port}/3/device/{iphone['apns_token']}",
                   headers={"apns-push-type": "alert"}, content=b'{"aps":{"alert":"httpx"}}')
        out["apns"] = [r.status_code, r.http_version, r.headers.get("apns-id", ""), r.headers.get("apns-unique-id", "")]
        r = c.post(f"https://localhost:{port}/3/device/{iphone['apns_token']}",
                   headers={"apns-priority": "3"}, content=b'{"aps":{"alert":"httpx"}}')
        out["apns_error"] = [r.status_code, r.json()]
    print(json.dumps(out))


def goaway(port, ca):
    """An open connection that has had its answer: at shutdown it must get GOAWAY."""
    sock, conn = client(port, ca)
    conn.send_headers(1, headers(), end_stream=True)
    sock.sendall(conn.data_to_send())
    answered = 0
    while not answered:
        for e in conn.receive_data(sock.recv(65536)):
            if isinstance(e, h2.events.ResponseReceived):
                answered = 1
        sock.sendall(conn.data_to_send())
    print("ready", flush=True)
    seen = read_until_closed(sock, conn, limit=10)
    seen["responses"] += answered
    print(json.dumps(seen), flush=True)


def many_at_once(port, ca, path, count):
    """A connection with HTTP/2's largest windows (the server may send all it can) that asks
    for `path` `count` times at once."""
    sock = connect(port, ca)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.local_settings = h2.settings.Settings(client=True, initial_values={
        h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 2**31 - 1})
    conn.initiate_connection()
    conn.increment_flow_control_window(2**31 - 1 - 65535)
    for i in range(count):
        conn.send_headers(1 + 2 * i, headers(path), end_stream=True)
    sock.sendall(conn.data_to_send())
    return sock, conn


def read_bodies(sock, conn, count, limit=60.0):
    bodies, ended = {}, 0
    deadline = time.monotonic() + limit
    while ended < count and time.monotonic() < deadline:
        data = sock.recv(1 << 20)
        if not data:
            break
        for e in conn.receive_data(data):
            if isinstance(e, h2.events.DataReceived):
                bodies[e.stream_id] = bodies.get(e.stream_id, b"") + e.data
            elif isinstance(e, h2.events.StreamEnded):
                ended += 1
        sock.sendall(conn.data_to_send())
    return bodies, ended


def backpressure(port, ca, http_port, timeout):
    """Answers far larger than the socket buffers: a client that reads gets every
    byte of each (HTTP/2 and HTTP/1.1); one that stops reading is cut off after the timeout
    while others are served."""
    out = {}
    control = f"http://127.0.0.1:{http_port}/emulator/v1/projects/demo-pushmock"
    path = "/emulator/v1/projects/demo-pushmock/devices"
    with httpx.Client(timeout=30) as c:
        c.post(control + "/devices:batchCreate", json={"platform": "android", "app": "com.example.many", "count": 3000})
        reference = c.get(control + "/devices").content
    count = 10
    sock, conn = many_at_once(port, ca, path, count)
    bodies, ended = read_bodies(sock, conn, count)
    sock.close()
    out["reader"] = {"ended": ended, "identical": sum(1 for b in bodies.values() if b == reference),
                     "bytes": sum(len(b) for b in bodies.values()), "each": len(reference)}
    with http_client(ca, http2=False, timeout=30) as c:
        answers = [c.get(base(port) + path) for _ in range(3)]
    out["http1"] = [[r.http_version, r.content == reference] for r in answers]
    # Bodies far larger than the socket buffers the other way: with no flow control on
    # HTTP/1.1 the client sends all at once, so reading pauses and resumes with records
    # OpenSSL has read ahead.
    big = json.dumps({"to": "x", "data": {"k": "v" * 900_000}}).encode()
    uploads = []
    for http2 in (False, True):
        with http_client(ca, http2=http2, timeout=30) as c:
            for _ in range(3):
                r = c.post(base(port) + "/fcm/send", content=big,
                           headers={"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"})
                uploads.append([r.http_version, r.status_code, r.json().get("results")])
    out["uploads"] = uploads
    # Past the kernel's buffers, and past the time the answers take to make (slower under
    # the address sanitizer) plus the timeout.
    count = 8
    sock, conn = many_at_once(port, ca, path, count)
    time.sleep(timeout + 4)
    out["healthy_meanwhile"] = healthy(port, ca)[0]
    received, closed = 0, False
    sock.settimeout(1.0)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            data = sock.recv(1 << 20)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
        if not data:
            closed = True
            break
        received += len(data)
    out["non_reader"] = {"closed": closed, "received": received, "asked": count * len(reference)}
    print(json.dumps(out))


def lockout(port, ca, cap, timeout):
    """The TLS port cannot be locked out: a ClientHello trickled a byte at a time is cut off at
    the timeout, and idle HTTP/2 connections at the connection cap make room for a new client
    (the one idle longest gets GOAWAY)."""
    out = {}
    ctx = ssl.create_default_context(cafile=ca)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls_obj = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        tls_obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outgoing.read()
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    start, closed_after = time.monotonic(), None
    for b in hello:
        try:
            raw.sendall(bytes([b]))
            raw.settimeout(0.3)
            if raw.recv(1) == b"":
                closed_after = time.monotonic() - start
                break
        except socket.timeout:
            pass
        except OSError:
            closed_after = time.monotonic() - start
            break
        if time.monotonic() - start > timeout + 5:
            break
    out["trickle"] = {"closed_after": round(closed_after, 2) if closed_after else None, "sent": len(hello)}
    raw.close()
    idle = []
    for _ in range(cap):
        sock, conn = client(port, ca)
        conn.send_headers(conn.get_next_available_stream_id(), headers(), end_stream=True)
        sock.sendall(conn.data_to_send())
        answered = False
        while not answered:
            for e in conn.receive_data(sock.recv(65536)):
                answered = answered or isinstance(e, h2.events.StreamEnded)
            sock.sendall(conn.data_to_send())
        idle.append((sock, conn))
    start = time.monotonic()
    try:
        with httpx.Client(http2=True, verify=ca, timeout=10) as c:
            status = c.get(f"https://localhost:{port}/healthz").status_code
    except httpx.HTTPError as e:
        status = type(e).__name__
    out["new_client"] = {"status": status, "seconds": round(time.monotonic() - start, 2)}
    out["oldest_idle"] = read_until_closed(*idle[0], limit=3)
    print(json.dumps(out))


def stalled(port, ca, cap, timeout):
    """HTTP/2 requests whose body never arrives: at the connection cap the stalled
    connections make room, not the kept-alive one that works, and each stalled stream is
    reset about `timeout` after it opened."""
    out = {}
    working, wconn = client(port, ca)

    def ask(sock, conn):
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, headers(), end_stream=True)
        sock.sendall(conn.data_to_send())
        while True:
            for e in conn.receive_data(sock.recv(65536)):
                if isinstance(e, h2.events.ConnectionTerminated):
                    return "goaway"
                if isinstance(e, h2.events.StreamEnded) and e.stream_id == sid:
                    sock.sendall(conn.data_to_send())
                    return 200
            sock.sendall(conn.data_to_send())

    out["working_first"] = ask(working, wconn)
    stuck = []
    for _ in range(cap - 1):
        sock, conn = client(port, ca)
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, headers("/fcm/send", "POST", [("content-length", "100"), ("content-type", "application/json")]))
        sock.sendall(conn.data_to_send())
        stuck.append((sock, conn))
        time.sleep(0.05)
        # The working client goes on working, as one polling every few milliseconds does.
        ask(working, wconn)
    out["working_at_cap"] = ask(working, wconn)
    try:
        with httpx.Client(http2=True, verify=ca, timeout=10) as c:
            status = c.get(f"https://localhost:{port}/healthz").status_code
    except httpx.HTTPError as e:
        status = type(e).__name__
    out["new_client"] = status
    out["working_after"] = ask(working, wconn)
    # The stalled streams still open are reset within the timeout and the sweep.
    start = time.monotonic()
    resets, goaways = 0, 0
    for sock, conn in stuck:
        sock.settimeout(0.5)
        while time.monotonic() - start < timeout + 4:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except (ConnectionError, ssl.SSLError, OSError):
                break
            if not data:
                break
            events = conn.receive_data(data)
            if any(isinstance(e, h2.events.StreamReset) for e in events):
                resets += 1
                break
            if any(isinstance(e, h2.events.ConnectionTerminated) for e in events):
                goaways += 1
                break
    out["stalled"] = {"reset": resets, "goaway": goaways, "count": len(stuck),
                      "seconds": round(time.monotonic() - start, 2)}
    print(json.dumps(out))


def fields(port, ca):
    """Requests one after another on one connection, whose answers repeat fields and change
    them: each answer's fields as HPACK decoded them, with whether each was sent as one never
    to be indexed (a "sensitive" field)."""
    sock, conn = client(port, ca)
    answers = []
    for path in ["/healthz", "/healthz", "/healthz", "/emulator/v1/nope", "/metrics", "/healthz", "/healthz"]:
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, headers(path), end_stream=True)
        sock.sendall(conn.data_to_send())
        answer = {"path": path, "fields": [], "body": 0}
        done = False
        while not done:
            for e in conn.receive_data(sock.recv(65536)):
                if isinstance(e, h2.events.ResponseReceived):
                    answer["fields"] = [[f[0], f[1], type(f).__name__ == "NeverIndexedHeaderTuple"] for f in e.headers]
                elif isinstance(e, h2.events.DataReceived):
                    answer["body"] += len(e.data)
                    conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                elif isinstance(e, h2.events.StreamEnded):
                    done = True
            sock.sendall(conn.data_to_send())
        answers.append(answer)
    sock.close()
    print(json.dumps(answers))


def streams(port, ca, http_port):
    """APNs' start of a token-authenticated connection to an APNs host (SNI): one stream until
    the first valid provider token, then more; a FCM request on such a connection raises it
    too; a connection to localhost starts with every stream."""
    import jwt  # PyJWT, in the test venv
    control = f"http://127.0.0.1:{http_port}/emulator/v1/projects/demo-pushmock"
    with httpx.Client(timeout=10) as c:
        key = c.post(control + "/apnsKeys", json={}).json()
        iphone = c.post(control + "/devices", json={"platform": "ios", "app": "com.example.app"}).json()
    token = jwt.encode({"iss": key["team_id"], "iat": int(time.time())}, key["private_key"], algorithm="ES256",
                       headers={"kid": key["key_id"]})

    def limits_after(requests, host="api.sandbox.push.apple.com"):
        """The server's MAX_CONCURRENT_STREAMS at the start, and after each request's answer."""
        sock, conn = client(port, ca, host=host)
        seen = []

        def pump(until):
            while True:
                events = conn.receive_data(sock.recv(65536))
                sock.sendall(conn.data_to_send())
                for e in events:
                    if isinstance(e, h2.events.RemoteSettingsChanged):
                        code = h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS
                        if code in e.changed_settings:
                            seen.append(e.changed_settings[code].new_value)
                    if until(e):
                        return e
        pump(lambda e: isinstance(e, h2.events.RemoteSettingsChanged))
        statuses = []
        for path, extra in requests:
            sid = conn.get_next_available_stream_id()
            conn.send_headers(sid, headers(path, "POST", extra), end_stream=False)
            conn.send_data(sid, b'{"aps":{"alert":"hi"}}', end_stream=True)
            sock.sendall(conn.data_to_send())
            e = pump(lambda e: isinstance(e, h2.events.ResponseReceived))
            statuses.append(int(dict(e.headers)[":status"]))
            # The raised limit follows its answer in the same flush, or soon after.
            sock.settimeout(0.5)
            try:
                pump(lambda e: False)
            except (socket.timeout, TimeoutError):
                pass
            sock.settimeout(5)
        sock.close()
        return {"limits": seen, "statuses": statuses}

    device = f"/3/device/{iphone['apns_token']}"
    push = [("apns-topic", "com.example.app")]
    print(json.dumps({
        "bad_then_good": limits_after([(device, push + [("authorization", "bearer nope")]),
                                       (device, push + [("authorization", f"bearer {token}")])]),
        "fcm": limits_after([("/fcm/send", [("authorization", "key=pushmock-dev-server-key")])]),
        "localhost": limits_after([(device, push + [("authorization", f"bearer {token}")])], host="localhost"),
    }))


def stream_status(sock, conn, stream):
    """Reads until `stream` ends: its :status, or "reset" / "closed" if it never does."""
    status = None
    while True:
        data = sock.recv(65536)
        if not data:
            return "closed"
        for e in conn.receive_data(data):
            if isinstance(e, h2.events.ResponseReceived) and e.stream_id == stream:
                status = dict(e.headers).get(":status")
            elif isinstance(e, h2.events.StreamEnded) and e.stream_id == stream:
                return status
            elif isinstance(e, (h2.events.ConnectionTerminated, h2.events.StreamReset)):
                return "reset"
        sock.sendall(conn.data_to_send())


def busy(port, ca, http_port, pid, scans=16):
    """A quiet HTTP/2 connection and a quiet HTTP/1.1 one ask while the server is busy: `scans`
    log scans on as many connections, written while it was stopped (SIGSTOP) so that one turn
    reads them all and runs them for longer than its --timeout. The quiet connections'
    requests are read in the next turn, with the sweep that fell due meanwhile: each must get
    its answer, not be cut off as a peer that stopped reading. Prints what each got."""
    import os
    import signal
    fill_log_for_scans(http_port)
    sock, conn = client(port, ca)
    sock.settimeout(60)
    plain = socket.create_connection(("127.0.0.1", http_port), timeout=60)
    scanners = [socket.create_connection(("127.0.0.1", http_port), timeout=60) for _ in range(scans)]

    def plain_answer():
        read_health(plain)
        return "answered"

    def ask_quiet(stream):
        """Both quiet connections ask before either answer is read."""
        conn.send_headers(stream, headers(), end_stream=True)
        sock.sendall(conn.data_to_send())
        plain.sendall(HEALTH)
        got = []
        for read in (lambda: stream_status(sock, conn, stream), plain_answer):
            try:
                got.append(read())
            except OSError as e:
                got.append(type(e).__name__)
        return got

    out = {"before": ask_quiet(1)}
    os.kill(pid, signal.SIGSTOP)
    try:
        for s in scanners:
            s.sendall(b"GET /emulator/v1/projects/demo-pushmock/events?count=true&token=none HTTP/1.1\r\n"
                      b"Host: localhost\r\n\r\n")
    finally:
        os.kill(pid, signal.SIGCONT)
    time.sleep(0.3)
    out["during"] = ask_quiet(3)
    for s in scanners:
        s.close()
    return out

if __name__ == "__main__":
    sys.argv = [a for a in sys.argv if a != "--h2c"]
    mode, port, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "abuse":
        abuse(port, ca, int(sys.argv[4]))
    elif mode == "scans":
        print(json.dumps(case_log_scans(port, ca, int(sys.argv[4]))))
    elif mode == "httpx":
        with_httpx(port, ca, int(sys.argv[4]))
    elif mode == "goaway":
        goaway(port, ca)
    elif mode == "backpressure":
        backpressure(port, ca, int(sys.argv[4]), float(sys.argv[5]))
    elif mode == "lockout":
        lockout(port, ca, int(sys.argv[4]), float(sys.argv[5]))
    elif mode == "stalled":
        stalled(port, ca, int(sys.argv[4]), float(sys.argv[5]))
    elif mode == "busy":
        print(json.dumps(busy(port, ca, int(sys.argv[4]), int(sys.argv[5]))))
    elif mode == "streams":
        streams(port, ca, int(sys.argv[4]))
    elif mode == "fields":
        fields(port, ca)
