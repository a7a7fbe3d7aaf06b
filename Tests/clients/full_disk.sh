#!/bin/sh
# A full disk under --data-dir, inside `unshare --mount`: a small tmpfs as the data directory.
# usage: unshare --mount sh full_disk.sh PUSHMOCK CERT_DIR PYTHON MODE
#   MODE no-reserve: a 600 KB tmpfs, --disk-reserve-mb 0, batch commits; SIGTERM while sends
#     answered are unwritten.
#   MODE reserve: a 4 MB tmpfs, --disk-reserve-mb 1, --sync always, and a 1 MB file filling
#     part of it, removed after the first 503 (space comes back).
# Prints one JSON line from the client, then one with pushmock's exit status and last words.
set -eu
pushmock=$1 certs=$2 python=$3 mode=$4
# The data directory is a folder of the tmpfs, beside the filler (pushmock refuses a data
# directory that holds other files).
disk=$(mktemp -d)
if [ "$mode" = reserve ]; then
    mount -t tmpfs -o size=4m tmpfs "$disk"
    head -c 1048576 /dev/zero >"$disk/filler"
    flags="--disk-reserve-mb 1 --sync always"
else
    mount -t tmpfs -o size=600k tmpfs "$disk"
    flags="--disk-reserve-mb 0"
fi
dir=$disk/data
mkdir "$dir"
log=$(mktemp)
# shellcheck disable=SC2086
"$pushmock" --port 0 --tls-port off --cert-dir "$certs" --device-rate-limit 0 --accept-any-token --data-dir "$dir" \
    $flags >"$log" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q 'http://' "$log" && break; sleep 0.05; done
port=$(grep -o 'http://127.0.0.1:[0-9]*' "$log" | head -n1 | cut -d: -f3)
"$python" - "$port" "$dir" "$server" "$mode" <<'PY'
import json, os, signal, sqlite3, sys, time, http.client
port, dir, pid, mode = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
def call(method, path, body=None, headers={}):
    c.request(method, path, body, headers)
    r = c.getresponse()
    return r.status, dict(r.getheaders()), r.read()
def events():
    return json.loads(call("GET", "/emulator/v1/projects/demo-pushmock/events?count=true")[2])["count"]
_, _, body = call("POST", "/emulator/v1/projects/demo-pushmock/devices", json.dumps({"platform": "android", "app": "a.b"}),
                  {"Content-Type": "application/json"})
token = json.loads(body)["token"]
legacy = {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"}
def send():
    return call("POST", "/fcm/send", json.dumps({"to": token, "data": {"pad": "x" * 900}}), legacy)
out = {"accepted": 0}
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    before = events()
    status, headers, body = send()
    if status != 200:
        out["legacy"] = [status, headers.get("Retry-After"), body.decode()]
        # A 503 means nothing happened: no event was added by the refused send.
        out["events_added_by_503"] = events() - before
        break
    out["accepted"] += 1
    time.sleep(0.002)
# A control-plane change while the disk is full: answered, and saved once there is room.
out["patched"] = call("PATCH", "/emulator/v1/projects/demo-pushmock/devices/d1", json.dumps({"app_state": "foreground"}),
                      {"Content-Type": "application/json"})[0]
status, _, body = call("POST", "/v1/projects/demo-pushmock/messages:send",
                       json.dumps({"message": {"token": token, "data": {"k": "v"}}}),
                       {"Authorization": "Bearer any", "Content-Type": "application/json"})
out["v1"] = [status, json.loads(body)["error"]["status"]]
status, _, body = call("GET", "/emulator/v1/projects/demo-pushmock/events?count=true")
out["reads"] = [status, json.loads(body)["count"]]
out["health"] = call("GET", "/healthz")[0]
if mode == "reserve":
    # Space comes back: within a couple of seconds sends are accepted again.
    os.unlink(os.path.dirname(dir) + "/filler")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and send()[0] != 200:
        time.sleep(0.2)
    out["after_space_freed"] = send()[0]
    out["accepted"] += 2
out["answered_events"] = events()
os.kill(pid, signal.SIGTERM)
time.sleep(1)
con = sqlite3.connect(dir + "/pushmock.db")
out["integrity"] = con.execute("PRAGMA integrity_check").fetchone()[0]
out["stored"] = con.execute("SELECT count(*) FROM data WHERE event = 'MESSAGE_ACCEPTED'").fetchone()[0]
out["stored_events"] = con.execute("SELECT count(*) FROM data").fetchone()[0]
row = con.execute("SELECT json FROM state_devices WHERE id = 'd1'").fetchone()
out["state_saved"] = row is not None and '"app_state":"foreground"' in row[0].decode()
print(json.dumps(out))
PY
status=0
wait $server || status=$?
printf '{"exit": %d, "said": %s}\n' "$status" "$("$python" -c 'import json, sys; print(json.dumps(open(sys.argv[1]).read()))' "$log")"
umount "$disk"
