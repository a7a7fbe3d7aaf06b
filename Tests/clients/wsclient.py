"""A minimal RFC 6455 client on a raw socket, so the tests control every byte a browser (or a
hostile client) would send: the opening handshake, masked or unmasked frames, fragments,
control frames, and the server's frames read back as they come."""
import base64
import hashlib
import json
import os
import socket
import struct
import ssl

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Closed(Exception):
    """The server closed the WebSocket: its close code and reason."""

    def __init__(self, code, reason):
        super().__init__(f"closed {code} {reason!r}")
        self.code, self.reason = code, reason


def handshake(host, port, path="/", headers=None, ca=None, version="13"):
    """Opens a socket, sends the opening handshake; returns (socket, status, headers)."""
    raw = socket.create_connection((host, port), timeout=10)
    if ca:
        ctx = ssl.create_default_context(cafile=ca)
        ctx.set_alpn_protocols(["http/1.1"])
        raw = ctx.wrap_socket(raw, server_hostname=host)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", f"Sec-WebSocket-Version: {version}",
             "Sec-WebSocket-Protocol: push-notification", "User-Agent: wsclient-test/1.0"]
    for k, v in (headers or {}).items():
        lines = [l for l in lines if not l.lower().startswith(k.lower() + ":")]
        if v is not None:
            lines.append(f"{k}: {v}")
    raw.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = raw.recv(1)
        if not chunk:
            break
        head += chunk
    status_line, *rest = head.decode().split("\r\n")
    got = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in rest if ":" in l}
    status = int(status_line.split()[1])
    if status == 101:
        want = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        assert got.get("sec-websocket-accept") == want, (got, want)
    return raw, status, got


class WebSocket:
    def __init__(self, host, port, path="/", ca=None):
        self.sock, status, self.headers = handshake(host, port, path, ca=ca)
        assert status == 101, status
        self.buffer = b""

    def frame(self, opcode, payload, fin=True, mask=True, rsv=0):
        head = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
        n = len(payload)
        bit = 0x80 if mask else 0
        if n < 126:
            head += bytes([bit | n])
        elif n < 65536:
            head += bytes([bit | 126]) + struct.pack(">H", n)
        else:
            head += bytes([bit | 127]) + struct.pack(">Q", n)
        if mask:
            key = os.urandom(4)
            payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
            head += key
        self.sock.sendall(head + payload)

    def send(self, message):
        self.frame(0x1, (message if isinstance(message, str) else json.dumps(message)).encode())

    def read_frame(self, timeout=10):
        self.sock.settimeout(timeout)
        while True:
            if len(self.buffer) >= 2:
                n = self.buffer[1] & 0x7F
                off = 2
                if n == 126 and len(self.buffer) >= 4:
                    n, off = struct.unpack(">H", self.buffer[2:4])[0], 4
                elif n == 127 and len(self.buffer) >= 10:
                    n, off = struct.unpack(">Q", self.buffer[2:10])[0], 10
                if n < 126 or off > 2:
                    assert self.buffer[1] & 0x80 == 0, "server frames are not masked"
                    if len(self.buffer) >= off + n:
                        opcode, payload = self.buffer[0] & 0x0F, self.buffer[off:off + n]
                        self.buffer = self.buffer[off + n:]
                        return opcode, payload
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed(None, "connection ended without a close frame")
            self.buffer += chunk

    def receive(self, timeout=10):
        """The next text message (answering pings); a close frame raises Closed."""
        while True:
            opcode, payload = self.read_frame(timeout)
            if opcode == 0x9:
                self.frame(0xA, payload)
            elif opcode == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                raise Closed(code, payload[2:].decode())
            elif opcode == 0x1:
                return json.loads(payload) if payload.startswith(b"{") else payload.decode()

    def close(self):
        try:
            self.frame(0x8, struct.pack(">H", 1000))
            self.sock.close()
        except OSError:
            pass
