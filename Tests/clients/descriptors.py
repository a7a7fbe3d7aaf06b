"""pushmock out of file descriptors, driven by HardeningTests.

usage: descriptors.py PUSHMOCK CERT_DIR
Starts pushmock with a limit of 128 descriptors, opens 300 idle connections (the kernel
queues what is not accepted), and reports the server's CPU use meanwhile (a spinning accept
loop would use a whole core), whether a new client gets in while the idle ones stay open
(before, it waited behind them for --timeout), and whether the start of it is said. Prints
one JSON line.
"""
import json
import os
import re
import resource
import socket
import subprocess
import sys
import time


def limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))


def get(sock):
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    got = b""
    while b"\r\n\r\n" not in got or not got.endswith(b"}"):
        chunk = sock.recv(4096)
        if not chunk:
            break
        got += chunk
    return int(got.split(b" ")[1]) if got.startswith(b"HTTP/1.1 ") else None


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(binary, cert_dir):
    server = subprocess.Popen([binary, "--port", "0", "--tls-port", "off", "--cert-dir", cert_dir],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=limit, text=True)
    port = None
    lines = []
    while port is None:
        line = server.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
    out = {}
    try:
        kept = socket.create_connection(("127.0.0.1", port), timeout=5)
        out["kept_first"] = get(kept)
        crowd = []
        for _ in range(300):
            crowd.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        time.sleep(0.5)
        before = cpu_seconds(server.pid)
        time.sleep(2)
        out["cpu_share"] = round((cpu_seconds(server.pid) - before) / 2, 3)
        # A new client, while all 300 stay open: idle ones make room for it.
        start = time.monotonic()
        status = None
        try:
            fresh = socket.create_connection(("127.0.0.1", port), timeout=10)
            status = get(fresh)
            fresh.close()
        except OSError as e:
            status = type(e).__name__
        out["new_seconds"] = round(time.monotonic() - start, 2)
        out["new_after"] = status
    finally:
        server.terminate()
        rest, _ = server.communicate(timeout=10)
        out["warned"] = "accept failed" in "".join(lines) + rest
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
