#!/bin/sh
# A full disk under --data-dir, inside `unshare --mount`: a 600 KB tmpfs as the data directory.
# usage: unshare --mount sh full_disk.sh PUSHMOCK CERT_DIR PYTHON
set -eu
pushmock=$1 certs=$2 python=$3
dir=$(mktemp -d)
mount -t tmpfs -o size=600k tmpfs "$dir"
log=$(mktemp)
"$pushmock" --port 0 --tls-port off --cert-dir "$certs" --device-rate-limit 0 --accept-any-token --data-dir "$dir" >"$log" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q 'http://' "$log" && break; sleep 0.05; done
port=$(grep -o 'http://127.0.0.1:[0-9]*' "$log" | cut -d: -f3)
"$python" - "$port" "$dir/pushmock.db" "$server" <<'PY'
import json, os, signal, sqlite3, sys, time, http.client
port, db, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
def call(method, path, body=None, headers={}):
    c.request(method, path, body, headers)
    r = c.getresponse()
    return r.status, dict(r.getheaders()), r.read()
_, _, body = call("POST", "/emulator/v1/projects/demo-pushmock/devices", json.dumps({"platform": "android", "app": "a.b"}),
                  {"Content-Type": "application/json"})
token = json.loads(body)["token"]
legacy = {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"}
out = {"accepted": 0}
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    status, headers, body = call("POST", "/fcm/send", json.dumps({"to": token, "data": {"pad": "x" * 900}}), legacy)
    if status != 200:
        out["legacy"] = [status, headers.get("Retry-After"), body.decode()]
        break
    out["accepted"] += 1
    time.sleep(0.002)
status, _, body = call("POST", "/v1/projects/demo-pushmock/messages:send",
                       json.dumps({"message": {"token": token, "data": {"k": "v"}}}),
                       {"Authorization": "Bearer any", "Content-Type": "application/json"})
out["v1"] = [status, json.loads(body)["error"]["status"]]
status, _, body = call("GET", "/emulator/v1/projects/demo-pushmock/events?count=true")
out["reads"] = [status, json.loads(body)["count"]]
out["health"] = call("GET", "/healthz")[0]
os.kill(pid, signal.SIGTERM)
time.sleep(1)
con = sqlite3.connect(db)
out["integrity"] = con.execute("PRAGMA integrity_check").fetchone()[0]
out["stored"] = con.execute("SELECT count(*) FROM data WHERE event = 'MESSAGE_ACCEPTED'").fetchone()[0]
print(json.dumps(out))
PY
# SIGTERM with acknowledged sends still unwritten: the exit says what was lost.
status=0
wait $server || status=$?
printf '{"exit": %d, "said": %s}\n' "$status" "$("$python" -c 'import json, sys; print(json.dumps(open(sys.argv[1]).read().strip().splitlines()[-1]))' "$log")"
umount "$dir"
