#!/usr/bin/env bash
# make bench (Web Push): pushes to a fake Chrome device (aes128gcm, VAPID; every answer must be
# 201) against /fcm/send to one token, on the same pushmock, alternating; then the time to
# deliver one push to each of 1,000 browsers connected over the Mozilla push protocol.
# Server pinned to core 0, load to core 1.
# usage: bench/webpush.sh PUSHMOCK_BINARY WORK_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 work=$2
SECONDS_PER_RUN=${BENCH_SECONDS:-10}
ROUNDS=${BENCH_ROUNDS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
KEY=pushmock-dev-server-key
ulimit -n 8192  # a thousand WebSockets on each side

taskset -c 0 "$bin" --port 0 --tls-port off --device-rate-limit 0 --quota-per-minute 100000000 >"$work/webpush.out" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q 'http://' "$work/webpush.out" 2>/dev/null && break; sleep 0.05; done
pm=$(grep -o 'http://[0-9.:]*' "$work/webpush.out" | head -n1)
control=$pm/emulator/v1/projects/demo-pushmock

# A fake Chrome subscribed with an application server key, and one push made for it by
# pywebpush's own encoder and py-vapid (the JWT valid for the run): the same bytes each time.
key=$(.venv/bin/python -c 'from py_vapid import Vapid; v = Vapid(); v.generate_keys(); v.save_key("'"$work"'/vapid.pem")
from cryptography.hazmat.primitives import serialization; import base64
print(base64.urlsafe_b64encode(v.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)).rstrip(b"=").decode())')
curl -sf -H 'Content-Type: application/json' -X POST "$control/devices" \
  -d "{\"platform\":\"web\",\"app\":\"https://bench.example\",\"application_server_key\":\"$key\"}" >"$work/chrome.json"
.venv/bin/python - "$work" <<'PY'
import json, sys, urllib.parse
from py_vapid import Vapid
from pywebpush import WebPusher
work = sys.argv[1]
sub = json.load(open(f"{work}/chrome.json"))["push_subscription"]
body = WebPusher(sub).encode(json.dumps({"title": "Bench", "body": "hello"}).encode(), "aes128gcm")["body"]
open(f"{work}/push.bin", "wb").write(body)
u = urllib.parse.urlparse(sub["endpoint"])
vapid = Vapid.from_file(f"{work}/vapid.pem")
auth = vapid.sign({"sub": "mailto:bench@example.com", "aud": f"{u.scheme}://{u.netloc}"})["Authorization"]
open(f"{work}/push.lua", "w").write(f'''wrk.method = "POST"
local f = io.open("{work}/push.bin", "rb")
wrk.body = f:read("*all")
f:close()
wrk.headers["TTL"] = "60"
wrk.headers["Content-Encoding"] = "aes128gcm"
wrk.headers["Authorization"] = "{auth}"
''')
open(f"{work}/push.path", "w").write(u.path)
PY
path=$(cat "$work/push.path")
status=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary @"$work/push.bin" -H 'TTL: 60' -H 'Content-Encoding: aes128gcm' \
  -H "Authorization: $(grep Authorization "$work/push.lua" | cut -d'"' -f4)" "$pm$path")
[ "$status" = 201 ] || { echo "bench: the Web Push answered $status" >&2; exit 1; }
token=$(curl -sf -H 'Content-Type: application/json' -X POST "$control/devices" \
  -d '{"platform":"android","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
cat >"$work/fcm.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"to":"$token","priority":"high","notification":{"title":"Bench","body":"hello"},"data":{"k":"v"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "key=$KEY"
LUA
run() { # script path → req/s; any answer other than 2xx (a Web Push is 201) fails the bench
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" -s "$work/$1.lua" "$pm$2" >"$work/wrk.out"
  if grep -q 'Non-2xx' "$work/wrk.out"; then cat "$work/wrk.out" >&2; echo "bench: answers other than 2xx" >&2; exit 1; fi
  awk '/Requests\/sec/ {print $2}' "$work/wrk.out"
}
taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s -s "$work/push.lua" "$pm$path" >/dev/null
fcm_total=0; push_total=0
for r in $(seq "$ROUNDS"); do
  a=$(run fcm /fcm/send); b=$(run push "$path")
  printf 'round %d: /fcm/send %8.0f req/s  Web Push to a fake Chrome %8.0f req/s\n' "$r" "$a" "$b"
  fcm_total=$(python3 -c "print($fcm_total + $a)"); push_total=$(python3 -c "print($push_total + $b)")
done
delivered=$(curl -sf "$control/events?count=true&event=MESSAGE_DISPLAYED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
python3 -c "import sys; a, b, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); print(f'Web Push (aes128gcm, VAPID) to a fake Chrome: {b/n:.0f} req/s, /fcm/send {a/n:.0f} req/s, ratio {b/a:.3f} ({sys.argv[4]} notifications displayed)')" \
  "$fcm_total" "$push_total" "$ROUNDS" "$delivered"

# 1,000 browsers on WebSockets, each sent one push; from the first POST to the last
# notification read.
taskset -c 1 .venv/bin/python bench/websocket_fanout.py "${pm#http://}" "${BENCH_BROWSERS:-1000}"
