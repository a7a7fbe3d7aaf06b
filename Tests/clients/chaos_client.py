"""Chaos over real sockets, driven by the Swift server tests.

usage: chaos_client.py HTTP_PORT TLS_PORT CA
Prints one JSON object: what each case saw. The server runs with --chaos-seed.
"""
import json
import socket
import sys
import threading
import time

import h2.connection
import h2.events
import httpx

from h2_clients import client, headers, read_until_closed

KEY = "pushmock-dev-server-key"


def main(http_port, tls_port, ca):
    base = f"http://127.0.0.1:{http_port}"
    control = base + "/emulator/v1/projects/demo-pushmock"
    out = {}
    with httpx.Client(timeout=10) as c:
        token = c.post(control + "/devices", json={"platform": "android", "app": "com.example.app"}).json()["token"]
        other = c.post(base + "/emulator/v1/projects/other-project/devices",
                       json={"platform": "android", "app": "com.example.app"}).json()["token"]
        iphone = c.post(control + "/devices", json={"platform": "ios", "app": "com.example.app"}).json()
        cert = c.post(control + "/apnsCertificates", json={"bundle_id": "com.example.app"}).json()
        with open("/tmp/pushmock-chaos-cert.pem", "w") as f:
            f.write(cert["certificate"] + cert["private_key"])

        def chaos(settings):
            r = c.put(control + "/chaos", json=settings)
            assert r.status_code == 200, r.text

        def send(to, key=KEY):
            return httpx.post(base + "/fcm/send", json={"to": to, "data": {"k": "v"}},
                              headers={"Authorization": "key=" + key}, timeout=10)

        # Latency on a loop timer: while one send waits 400 ms, the loop answers others.
        chaos({"legacy": {"latency_ms": 400}})
        finished = []
        slow = threading.Thread(target=lambda: finished.append(("delayed", send(token).status_code)))
        start = time.monotonic()
        slow.start()
        time.sleep(0.05)
        finished.append(("healthz", httpx.get(base + "/healthz").status_code))
        finished.append(("other project", send(other, key=KEY + "-other-project").status_code))
        slow.join()
        out["latency"] = {"order": [name for name, _ in finished], "statuses": [s for _, s in finished],
                          "delayed_at_least_400ms": time.monotonic() - start >= 0.4}

        # A client that leaves while its delayed answer is pending does not trouble the server.
        def accepted():
            return len(c.get(control + "/events?event=MESSAGE_ACCEPTED&limit=1000").json()["events"])
        before = accepted()
        raw = socket.create_connection(("127.0.0.1", http_port))
        body = json.dumps({"to": token}).encode()
        raw.sendall(b"POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nAuthorization: key=" + KEY.encode() +
                    b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        raw.close()
        # The server takes that send before the chaos settings change (else, on a busy
        # machine, the drop below could take it too).
        deadline = time.monotonic() + 10
        while accepted() == before and time.monotonic() < deadline:
            time.sleep(0.02)

        # Dropped HTTP/1.1 connection: closed with no byte of an answer.
        chaos({"legacy": {"drop_rate": 1}})
        raw = socket.create_connection(("127.0.0.1", http_port), timeout=5)
        raw.sendall(b"POST /fcm/send HTTP/1.1\r\nHost: localhost\r\nAuthorization: key=" + KEY.encode() +
                    b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        got = b""
        try:
            while True:
                chunk = raw.recv(4096)
                if not chunk:
                    break
                got += chunk
        except ConnectionResetError:
            pass
        out["http1_drop"] = {"bytes": len(got)}
        time.sleep(0.5)  # the abandoned delayed send has been answered into the void by now

        # APNs over HTTP/2 with a client certificate.
        path = f"/3/device/{iphone['apns_token']}"
        push = headers(path=path, method="POST", extra=[("apns-push-type", "alert"), ("apns-topic", "com.example.app")])

        def h2_push(extra_get=False):
            sock, conn = client(tls_port, ca, cert="/tmp/pushmock-chaos-cert.pem")
            conn.send_headers(1, push, end_stream=False)
            conn.send_data(1, b'{"aps":{"alert":"chaos"}}', end_stream=True)
            if extra_get:
                conn.send_headers(3, headers(), end_stream=True)
            sock.sendall(conn.data_to_send())
            return sock, conn

        # GOAWAY: last stream id below the push's, so the client knows it was not processed.
        chaos({"apns": {"drop_rate": 1, "drop": "goaway"}})
        sock, conn = h2_push()
        seen = {"goaway": None, "last_stream_id": None, "responses": 0, "resets": 0, "closed": False}
        sock.settimeout(5)
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    seen["closed"] = True
                    break
                for e in conn.receive_data(data):
                    if isinstance(e, h2.events.ConnectionTerminated):
                        seen["goaway"], seen["last_stream_id"] = int(e.error_code), e.last_stream_id
                    elif isinstance(e, h2.events.ResponseReceived):
                        seen["responses"] += 1
                    elif isinstance(e, h2.events.StreamReset):
                        seen["resets"] += 1
                sock.sendall(conn.data_to_send())
        except OSError:
            seen["closed"] = True
        out["h2_goaway"] = seen

        # close: the TLS connection ends with no answer and no GOAWAY.
        chaos({"apns": {"drop_rate": 1, "drop": "close"}})
        sock, conn = h2_push()
        out["h2_close"] = read_until_closed(sock, conn, limit=5)

        # Latency on HTTP/2: a delayed push does not hold up the other stream of its connection,
        # and a connection closed while the answer is pending leaves the server well.
        chaos({"apns": {"latency_ms": 300}})
        sock, conn = h2_push(extra_get=True)
        order = []
        sock.settimeout(5)
        while len(order) < 2:
            for e in conn.receive_data(sock.recv(65536)):
                if isinstance(e, h2.events.ResponseReceived):
                    order.append({1: "push", 3: "healthz"}[e.stream_id])
            sock.sendall(conn.data_to_send())
        sock.close()
        sock, conn = h2_push()
        sock.close()
        time.sleep(0.5)
        out["h2_latency_order"] = order

        chaos({})
        out["healthy_after"] = httpx.get(base + "/healthz").status_code
        events = c.get(control + "/events?limit=1000").json()["events"]
        out["chaos_events"] = sum(1 for e in events if e.get("reason") == "chaos")
        out["chaos_event_rows"] = [[e.get("event"), e.get("message_id"), e.get("device_id")] for e in events
                                   if e.get("reason") == "chaos"]
        out["metrics_dropped"] = [line for line in c.get(base + "/metrics").text.splitlines()
                                  if 'status="dropped"' in line]
    print(json.dumps(out))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
