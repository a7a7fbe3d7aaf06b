"""make bench: the dashboard's API while sends arrive at 1,000 a second.

usage: dashboard.py BASE_URL TOKEN SECONDS
Prints the log size and, per dashboard request, the median and slowest answer.
"""
import http.client
import json
import statistics
import sys
import threading
import time
import urllib.parse

base, token, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
host = urllib.parse.urlparse(base)
stop = threading.Event()
sent = [0]


def sender():
    c = http.client.HTTPConnection(host.hostname, host.port)
    body = json.dumps({"to": token, "data": {"k": "v"}})
    headers = {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"}
    next_at = time.monotonic()
    while not stop.is_set():
        c.request("POST", "/fcm/send", body, headers)
        c.getresponse().read()
        sent[0] += 1
        next_at += 0.001
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def timed(c, path):
    start = time.monotonic()
    c.request("GET", path)
    r = c.getresponse()
    r.read()
    assert r.status == 200, (path, r.status)
    return time.monotonic() - start


c = http.client.HTTPConnection(host.hostname, host.port)
c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true")
count = json.loads(c.getresponse().read())["count"]
thread = threading.Thread(target=sender)
thread.start()
p = "/emulator/v1/projects/demo-pushmock"
paths = {"page": "/", "messages": p + "/messages?limit=200", "message filter": p + "/messages?limit=200&event=MESSAGE_DROPPED",
         "reports": p + "/reports", "devices": p + "/devices", "device events": p + "/events?device=d1&limit=200"}
times = {name: [] for name in paths}
start = time.monotonic()
while time.monotonic() - start < seconds:
    for name, path in paths.items():
        times[name].append(timed(c, path))
    time.sleep(0.2)
stop.set()
thread.join()
rate = sent[0] / (time.monotonic() - start)
print(f"dashboard with {count} events in the log and {rate:.0f} sends/s arriving:")
for name, t in times.items():
    print(f"  {name:15s} median {statistics.median(t)*1000:7.1f} ms, slowest {max(t)*1000:7.1f} ms ({len(t)} requests)")
