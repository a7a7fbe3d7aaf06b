"""A webhook receiver for pushmock's bridge tests, as a team would write one.

usage: webhook_receiver.py SECRET RECORD_FILE [CERT_FILE KEY_FILE]
Prints "PORT <n>" once listening on 127.0.0.1 (HTTPS with the certificate when given), then
appends one JSON line per request to RECORD_FILE. It checks each request's signature the way
docs/bridges.md tells users to: HMAC-SHA256 of the raw body with the bridge's secret,
compared in constant time with the X-Pushmock-Signature header.

Paths: /ok answers 204; /flaky answers 500 to the first two attempts of each delivery, then
204; /stall lets the first attempt of each delivery wait 3 s (longer than the bridge's
timeout) before answering, then answers 204 at once.
"""
import hashlib
import hmac
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

secret, record = sys.argv[1].encode(), sys.argv[2]
seen = {}
lock = threading.Lock()


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, self.headers.get("X-Pushmock-Signature", ""))
        key = self.headers.get("Idempotency-Key", "")
        with lock:
            seen[(self.path, key)] = n = seen.get((self.path, key), 0) + 1
        doc = json.loads(body)
        with lock, open(record, "a") as f:
            f.write(json.dumps({
                "path": self.path, "key": key, "delivery_id": doc["delivery_id"], "valid_signature": valid,
                "event": doc["event"]["event"], "attempt": int(self.headers.get("X-Pushmock-Attempt", "0")),
                "device": doc["device"]["id"], "received": sorted(doc.get("received", {}).keys()),
            }) + "\n")
        if self.path == "/stall" and n == 1:
            time.sleep(3)
        status = 500 if self.path == "/flaky" and n <= 2 else 204
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
if len(sys.argv) > 4:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[3], sys.argv[4])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
