#!/usr/bin/env bash
# make bench: pushmock against servers doing no work, same request, same machine, same run:
# HTTP/1.1 against nginx (`return 200`, one process) and the bare libevent floor; h2c and
# APNs over TLS against nghttpd. Rounds alternate the floors and pushmock so drift hits all.
# Every server is single-threaded and pinned to core 0, the load generator to core 1.
# Prints req/s, p99 and the ratios; then latency at 10,000 req/s; then the
# 1,000,000-subscriber topic case with the memory of an idle device; then Web Push
# (bench/webpush.sh), real GCM clients over MCS (bench/mcs.sh) and the durable store at scale
# (bench/durable_scale.sh); last, every measure that has a goal against it (bench/goals.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${BENCH_SECONDS:-10}
ROUNDS=${BENCH_ROUNDS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-1000000}
KEY=pushmock-dev-server-key
work=$(mktemp -d)
source bench/goals.sh
median() { python3 -c 'import statistics, sys; print(f"{statistics.median(map(float, sys.argv[1:])):.3f}")' "$@"; }
exact() { python3 -c 'import sys; print(float(sys.argv[1]) / float(sys.argv[2]))' "$1" "$2"; } # for a goal: unrounded
ratio() { LC_ALL=C printf '%.3f\n' "$(exact "$1" "$2")"; }
pids=()
stop_servers() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait "${pids[@]}" 2>/dev/null || true; pids=(); }
cleanup() { stop_servers; rm -rf "$work"; }
trap cleanup EXIT

cc -O2 -Wall -o bench/floor bench/floor.c -levent
make --no-print-directory release >/dev/null  # the build `make run` and the image use
bin=$(swift build -c release --show-bin-path)/pushmock

started=""
start() { # name, last-line pattern, command...: starts a server, waits for that line, sets $started
  local name=$1 last=$2; shift 2
  "$@" >"$work/$name.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q "$last" "$work/$name.out" 2>/dev/null && break; sleep 0.05; done
  started=$(grep -o 'http://[0-9.:]*' "$work/$name.out" | head -n1)
}

start floor 'http://' taskset -c 0 bench/floor 0; floor=$started; floor_pid=${pids[-1]}
freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# nginx answering the floor's body to every request: one process (no master), no log.
body=$(sed -n '/^static const char body/,/;$/p' bench/floor.c | grep -o '"[^;]*' | sed -e 's/^"//' -e 's/"$//' | tr -d '\n' | sed 's/\\"/"/g')
nport=$(freeport)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
error_log $work/nginx/error.log;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 100000000;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$nport;
    location / { default_type "application/json; charset=UTF-8"; return 200 '$body'; }
  }
}
CONF
taskset -c 0 nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" >"$work/nginx.out" 2>&1 &
pids+=($!); nginx_pid=$!
nginx="http://127.0.0.1:$nport"
for _ in $(seq 100); do curl -sf -o /dev/null -X POST -d x "$nginx/fcm/send" && break; sleep 0.05; done
curl -sf -X POST -d x "$nginx/fcm/send" | grep -q '"success":1'
# FCM's quota (600,000 a minute) and per-device limits are lifted: a run sends more than that,
# and a 429 is cheaper than a send.
start pushmock 'https://' taskset -c 0 "$bin" --port 0 --tls-port 0 --cert-dir "$work/certs" --device-rate-limit 0 \
  --quota-per-minute 100000000; pm=$started; pm_pid=${pids[-1]}
pmtls=$(grep -o 'https://[0-9.:]*' "$work/pushmock.out" | head -n1)
token=$(curl -sf -H 'Content-Type: application/json' -X POST "$pm/emulator/v1/projects/demo-pushmock/devices" \
  -d '{"platform":"android","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
cat >"$work/send.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"to":"$token","priority":"high","notification":{"title":"Bench","body":"hello"},"data":{"k":"v"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "key=$KEY"
LUA
# HTTP v1 with a real bearer token: a service account from pushmock, exchanged by google-auth.
curl -sf "$pm/emulator/v1/projects/demo-pushmock/serviceAccount" >"$work/sa.json"
bearer=$(.venv/bin/python -c 'import sys; from google.oauth2 import service_account; from google.auth.transport.requests import Request
c = service_account.Credentials.from_service_account_file(sys.argv[1], scopes=["https://www.googleapis.com/auth/firebase.messaging"]); c.refresh(Request()); print(c.token)' "$work/sa.json")
cat >"$work/v1.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"message":{"token":"$token","notification":{"title":"Bench","body":"hello"},"data":{"k":"v"}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $bearer"
LUA

run() { # url [script] [path] → "req/s p99"
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency -s "$work/${2:-send}.lua" "$1${3:-/fcm/send}" >"$work/wrk.out"
  local rps p99
  if grep -q 'Non-2xx' "$work/wrk.out"; then cat "$work/wrk.out" >&2; echo "bench: answers other than 2xx" >&2; exit 1; fi
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")
  p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.out")
  echo "$rps $p99"
}

# Check that both requests succeed before timing them.
curl -sf -H "Authorization: key=$KEY" -H 'Content-Type: application/json' \
  -d "{\"to\":\"$token\",\"data\":{\"k\":\"v\"}}" "$pm/fcm/send" | grep -q '"success":1'
curl -sf -H "Authorization: Bearer $bearer" -H 'Content-Type: application/json' \
  -d "{\"message\":{\"token\":\"$token\",\"data\":{\"k\":\"v\"}}}" "$pm/v1/projects/demo-pushmock/messages:send" | grep -q '"name"'

for warm in "$floor" "$nginx" "$pm"; do taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s -s "$work/send.lua" "$warm/fcm/send" >/dev/null; done
# The CPU each server spends per request, user and kernel apart (its clock ticks in
# /proc/PID/stat over a run, over wrk's count of requests). nginx and pushmock make the same
# two system calls a request (a read, a write; libevent's evhttp six), so nginx's kernel time
# is about what pushmock's cannot go below, and a ratio says how its user time compares.
declare -A cpu_user cpu_kernel cpu_requests
measured() { # name pid run-args...: run, its "req/s p99" in $out; adds the server's ticks and requests to name's
  local u0 k0 u1 k1
  read -r u0 k0 < <(awk '{print $14, $15}' "/proc/$2/stat")
  out=$(run "${@:3}")
  read -r u1 k1 < <(awk '{print $14, $15}' "/proc/$2/stat")
  cpu_user[$1]=$((${cpu_user[$1]:-0} + u1 - u0)); cpu_kernel[$1]=$((${cpu_kernel[$1]:-0} + k1 - k0))
  cpu_requests[$1]=$((${cpu_requests[$1]:-0} + $(awk '/requests in/ {print $1}' "$work/wrk.out")))
}
# Each API's floor is nginx given that API's request: v1's carries a bearer token of some 700
# bytes, which nginx reads too.
floor_total=0; nginx_total=0; nginx_v1_total=0; pm_total=0; v1_total=0
for r in $(seq "$ROUNDS"); do
  measured libevent "$floor_pid" "$floor"; read -r f fp99 <<<"$out"
  measured nginx "$nginx_pid" "$nginx"; read -r x xp99 <<<"$out"
  measured /fcm/send "$pm_pid" "$pm"; read -r p pp99 <<<"$out"
  measured nginx-v1 "$nginx_pid" "$nginx" v1 /v1/projects/demo-pushmock/messages:send; read -r xv xvp99 <<<"$out"
  measured v1 "$pm_pid" "$pm" v1 /v1/projects/demo-pushmock/messages:send; read -r v vp99 <<<"$out"
  printf 'round %d: libevent %8.0f req/s (p99 %s)  nginx %8.0f req/s (p99 %s)  /fcm/send %8.0f req/s (p99 %s)  nginx given v1 %8.0f req/s (p99 %s)  v1 %8.0f req/s (p99 %s)\n' \
    "$r" "$f" "$fp99" "$x" "$xp99" "$p" "$pp99" "$xv" "$xvp99" "$v" "$vp99"
  floor_total=$(python3 -c "print($floor_total + $f)"); nginx_total=$(python3 -c "print($nginx_total + $x)")
  nginx_v1_total=$(python3 -c "print($nginx_v1_total + $xv)")
  pm_total=$(python3 -c "print($pm_total + $p)"); v1_total=$(python3 -c "print($v1_total + $v)")
done
python3 - "$floor_total" "$nginx_total" "$nginx_v1_total" "$pm_total" "$v1_total" "$ROUNDS" <<'PY'
import sys
f, x, xv, p, v = map(float, sys.argv[1:6]); n = int(sys.argv[6])
print(f"/fcm/send to one token: nginx {x/n:.0f} req/s, pushmock {p/n:.0f} req/s, ratio {p/x:.3f} (libevent floor {f/n:.0f} req/s, ratio {p/f:.3f})")
print(f"v1 messages:send to one token: nginx given v1's request {xv/n:.0f} req/s, pushmock {v/n:.0f} req/s, ratio {v/xv:.3f} (against nginx given /fcm/send's {v/x:.3f}; libevent floor ratio {v/f:.3f})")
PY
goal "$work" "/fcm/send / nginx" "$(exact "$pm_total" "$nginx_total")" ">=" 0.8 ""
goal "$work" "v1 messages:send / nginx" "$(exact "$v1_total" "$nginx_v1_total")" ">=" 0.8 ""
split=""
for name in nginx libevent /fcm/send nginx-v1 v1; do
  split+=$(python3 -c 'import os, sys; u, k, n = map(int, sys.argv[2:]); t = 1e6 / os.sysconf("SC_CLK_TCK") / n
print(f"  {sys.argv[1]} {u * t:.1f} + {k * t:.1f}", end="")' "$name" "${cpu_user[$name]}" "${cpu_kernel[$name]}" "${cpu_requests[$name]}")
done
echo "CPU per request, user + kernel (µs):$split"

# The durable log: the same /fcm/send and v1 against a pushmock with --data-dir, alternating
# with the in-memory one; then /fcm/send with --sync always (each answer waits for its commit).
# APNs with --data-dir is measured with the other APNs runs below.
durable() { # name, flags... → starts a pushmock with a data directory, sets $started, $dtoken, $dbearer
  local name=$1; shift
  start "$name" 'https://' taskset -c 0 "$bin" --port 0 --tls-port 0 --cert-dir "$work/certs" --device-rate-limit 0 \
    --quota-per-minute 100000000 --data-dir "$work/$name" "$@"
  dtoken=$(curl -sf -H 'Content-Type: application/json' -X POST "$started/emulator/v1/projects/demo-pushmock/devices" \
    -d '{"platform":"android","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  curl -sf "$started/emulator/v1/projects/demo-pushmock/serviceAccount" >"$work/$name-sa.json"
  dbearer=$(.venv/bin/python -c 'import sys; from google.oauth2 import service_account; from google.auth.transport.requests import Request
c = service_account.Credentials.from_service_account_file(sys.argv[1], scopes=["https://www.googleapis.com/auth/firebase.messaging"]); c.refresh(Request()); print(c.token)' "$work/$name-sa.json")
  sed "s|$token|$dtoken|" "$work/send.lua" >"$work/$name.lua"
  sed -e "s|$token|$dtoken|" -e "s|$bearer|$dbearer|" "$work/v1.lua" >"$work/$name-v1.lua"
}
durable stored; stored=$started; storedtls=$(grep -o 'https://[0-9.:]*' "$work/stored.out" | head -n1)
durable synced --sync always; synced=$started
# Each round's ratios are of runs a few seconds apart; the figure is their median over
# DURABLE_ROUNDS rounds (one run taken during a burst of the host's other work moves a sum).
DURABLE_ROUNDS=${BENCH_DURABLE_ROUNDS:-4}
send_ratios=(); v1_ratios=(); sync_ratios=()
for r in $(seq "$DURABLE_ROUNDS"); do
  read -r a _ <<<"$(run "$pm")"; read -r b _ <<<"$(run "$stored" stored)"
  read -r c _ <<<"$(run "$pm" v1 /v1/projects/demo-pushmock/messages:send)"
  read -r d _ <<<"$(run "$stored" stored-v1 /v1/projects/demo-pushmock/messages:send)"
  read -r e _ <<<"$(run "$synced" synced)"
  printf 'round %d: /fcm/send %8.0f req/s in memory, %8.0f with --data-dir, %8.0f with --sync always; v1 %8.0f in memory, %8.0f with --data-dir\n' \
    "$r" "$a" "$b" "$e" "$c" "$d"
  send_ratios+=("$(ratio "$b" "$a")"); v1_ratios+=("$(ratio "$d" "$c")"); sync_ratios+=("$(ratio "$e" "$a")")
done
rows=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select sum(count) from log").fetchone()[0])' "$work/stored/pushmock.db")
echo "/fcm/send with --data-dir: $(median "${send_ratios[@]}") of the in-memory rate (median of rounds ${send_ratios[*]}; $rows events in pushmock.db)"
echo "v1 messages:send with --data-dir: $(median "${v1_ratios[@]}") of the in-memory rate (median of rounds ${v1_ratios[*]})"
echo "/fcm/send with --data-dir --sync always: $(median "${sync_ratios[@]}") of the in-memory rate (median of rounds ${sync_ratios[*]})"

# A webhook that never answers (it accepts and reads nothing) on every delivery, against no
# bridge, same run: its queue fills within the first milliseconds, and from then on what
# the send path pays is the check of a full queue and a counter (docs/bridges.md).
.venv/bin/python -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4096); print(s.getsockname()[1], flush=True)
held = []
while True: held.append(s.accept()[0])' >"$work/blackhole.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/blackhole.out" ] && break; sleep 0.05; done
start hooked 'http://' taskset -c 0 "$bin" --port 0 --tls-port off --device-rate-limit 0 --quota-per-minute 100000000 \
  --webhook "http://127.0.0.1:$(cat "$work/blackhole.out")/push"
hooked=$(grep -o 'on http://[0-9.:]*' "$work/hooked.out" | head -n1 | sed 's/^on //') # not the webhook's URL in the banner
htoken=$(curl -sf -H 'Content-Type: application/json' -X POST "$hooked/emulator/v1/projects/demo-pushmock/devices" \
  -d '{"platform":"android","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
sed "s/$token/$htoken/" "$work/send.lua" >"$work/hooked.lua"
# Warmed as the in-memory one is by the rounds before: its log is full and recycles slots.
taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" -s "$work/hooked.lua" "$hooked/fcm/send" >/dev/null
plain_total=0; hooked_total=0
for r in $(seq "$ROUNDS"); do
  read -r a _ <<<"$(run "$pm")"; read -r b _ <<<"$(run "$hooked" hooked)"
  printf 'round %d: /fcm/send %8.0f req/s without a bridge, %8.0f req/s with a webhook that never answers\n' "$r" "$a" "$b"
  plain_total=$(python3 -c "print($plain_total + $a)"); hooked_total=$(python3 -c "print($hooked_total + $b)")
done
overflowed=$(curl -sf "$hooked/emulator/v1/projects/demo-pushmock/bridges/webhook" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["overflowed"])')
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'/fcm/send with a webhook that never answers: {b/a:.3f} of the rate without ({sys.argv[3]} events turned away by its full queue)')" "$plain_total" "$hooked_total" "$overflowed"

# Three SSE clients (the dashboard's live stream) attached, against none, same run: the send
# path should lose no more than 10%. The clients share wrk's core at the lowest priority, so
# what is measured is pushmock's cost, not the clients' competition with wrk.
sse_run() { # n clients → /fcm/send req/s
  local spids=()
  for _ in $(seq "$1"); do
    taskset -c 1 nice -n 19 curl -sN "$pm/emulator/v1/projects/demo-pushmock/events:stream" >/dev/null 2>&1 &
    spids+=($!)
  done
  sleep 0.5
  local r; read -r r _ <<<"$(run "$pm")"
  for p in "${spids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${spids[@]}" 2>/dev/null || true
  echo "$r"
}
none_total=0; sse_total=0
for r in $(seq "$ROUNDS"); do
  a=$(sse_run 0); b=$(sse_run 3)
  printf 'round %d: /fcm/send %8.0f req/s without SSE, %8.0f req/s with 3 SSE clients\n' "$r" "$a" "$b"
  none_total=$(python3 -c "print($none_total + $a)"); sse_total=$(python3 -c "print($sse_total + $b)")
done
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'/fcm/send with 3 SSE clients: {b/a:.3f} of the rate without (aim: at least 0.9)')" "$none_total" "$sse_total"
goal "$work" "/fcm/send with 3 SSE clients / without" "$(exact "$sse_total" "$none_total")" ">=" 0.9 ""

# The dashboard's API on a fresh pushmock whose log holds 100,000 events (125 data messages to
# a topic of 400 devices: accepted and delivered for each), while 1,000 sends a second arrive.
start dash 'https://' taskset -c 0 "$bin" --port 0 --tls-port 0 --cert-dir "$work/certs" --device-rate-limit 0; dash=$started
dtoken=$(curl -sf -H 'Content-Type: application/json' -X POST "$dash/emulator/v1/projects/demo-pushmock/devices" \
  -d '{"platform":"android","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
curl -sf -H 'Content-Type: application/json' -X POST "$dash/emulator/v1/projects/demo-pushmock/devices:batchCreate" \
  -d '{"platform":"android","app":"com.example.bench","count":400,"topics":["dash"]}' >/dev/null
for _ in $(seq 125); do
  curl -sf -o /dev/null -H "Authorization: key=$KEY" -H 'Content-Type: application/json' \
    -d '{"to":"/topics/dash","data":{"k":"v"}}' "$dash/fcm/send"
done
.venv/bin/python bench/dashboard.py "$dash" "$dtoken" "$SECONDS_PER_RUN"

# APNs over HTTP/2: h2load, many streams on a few connections, a provider token signed with a
# key pushmock made, to one iPhone. The floor is nghttpd (one worker, same core, same
# certificate) answering the same request from an empty file at the same path.
curl -sf -H 'Content-Type: application/json' -X POST "$pm/emulator/v1/projects/demo-pushmock/apnsKeys" -d '{}' >"$work/key.json"
apns=$(curl -sf -H 'Content-Type: application/json' -X POST "$pm/emulator/v1/projects/demo-pushmock/devices" \
  -d '{"platform":"ios","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["apns_token"])')
jwt=$(.venv/bin/python -c 'import json, sys, time, jwt; k = json.load(open(sys.argv[1]))
print(jwt.encode({"iss": k["team_id"], "iat": int(time.time())}, k["private_key"], algorithm="ES256", headers={"kid": k["key_id"]}))' "$work/key.json")
echo '{"aps":{"alert":{"title":"Bench","body":"hello"}},"k":"v"}' >"$work/apns.json"
mkdir -p "$work/htdocs/3/device" && : >"$work/htdocs/3/device/$apns"
ngport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
taskset -c 0 nghttpd -n 1 -d "$work/htdocs" "$ngport" "$work/certs/server-key.pem" "$work/certs/server.pem" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf --cacert "$work/certs/ca.pem" -o /dev/null "https://localhost:$ngport/3/device/$apns" && break; sleep 0.05; done
h2run() { # https url → req/s
  taskset -c 1 h2load -D "$SECONDS_PER_RUN" -c "${BENCH_H2_CONNECTIONS:-4}" -m "${BENCH_H2_STREAMS:-100}" -t 1 -d "$work/apns.json" \
    -H "authorization: bearer $jwt" -H 'apns-topic: com.example.bench' -H 'apns-push-type: alert' \
    "$1/3/device/$apns" >"$work/h2load.out"
  grep -q ' 0 failed, 0 errored' "$work/h2load.out" || { cat "$work/h2load.out" >&2; exit 1; }
  awk '/^finished in/ {print $4}' "$work/h2load.out"
}
curl -sf --http2 --cacert "$work/certs/ca.pem" -o /dev/null -H "authorization: bearer $jwt" -H 'apns-topic: com.example.bench' \
  --data-binary @"$work/apns.json" "$pmtls/3/device/$apns"
ng_total=0; apns_total=0
for r in $(seq "$ROUNDS"); do
  n=$(h2run "https://127.0.0.1:$ngport"); a=$(h2run "$pmtls")
  printf 'round %d: nghttpd %8.0f req/s  APNs /3/device %8.0f req/s\n' "$r" "$n" "$a"
  ng_total=$(python3 -c "print($ng_total + $n)"); apns_total=$(python3 -c "print($apns_total + $a)")
done
python3 -c "import sys; n, a, r = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); print(f'APNs over HTTP/2 to one token: nghttpd {n/r:.0f} req/s, pushmock {a/r:.0f} req/s, ratio {a/n:.3f}')" \
  "$ng_total" "$apns_total" "$ROUNDS"
goal "$work" "APNs over TLS / nghttpd" "$(exact "$apns_total" "$ng_total")" ">=" 0.8 ""
# The same pushes to a pushmock with --data-dir (its own key, token and iPhone).
curl -sf -H 'Content-Type: application/json' -X POST "$stored/emulator/v1/projects/demo-pushmock/apnsKeys" -d '{}' >"$work/skey.json"
sapns=$(curl -sf -H 'Content-Type: application/json' -X POST "$stored/emulator/v1/projects/demo-pushmock/devices" \
  -d '{"platform":"ios","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["apns_token"])')
sjwt=$(.venv/bin/python -c 'import json, sys, time, jwt; k = json.load(open(sys.argv[1]))
print(jwt.encode({"iss": k["team_id"], "iat": int(time.time())}, k["private_key"], algorithm="ES256", headers={"kid": k["key_id"]}))' "$work/skey.json")
apns_ratios=()
for r in $(seq "$DURABLE_ROUNDS"); do
  a=$(h2run "$pmtls"); b=$(jwt=$sjwt apns=$sapns h2run "$storedtls")
  printf 'round %d: APNs /3/device %8.0f req/s in memory, %8.0f req/s with --data-dir\n' "$r" "$a" "$b"
  apns_ratios+=("$(ratio "$b" "$a")")
done
echo "APNs /3/device with --data-dir: $(median "${apns_ratios[@]}") of the in-memory rate (median of rounds ${apns_ratios[*]})"

# h2c (HTTP/2 with prior knowledge on the plain port): /fcm/send and v1 with h2load, against
# nghttpd without TLS (one worker, same core) answering the floor's body from files at the
# same paths.
mkdir -p "$work/h2c/fcm" "$work/h2c/v1/projects/demo-pushmock"
printf '%s' "$body" >"$work/h2c/fcm/send"; cp "$work/h2c/fcm/send" "$work/h2c/v1/projects/demo-pushmock/messages:send"
h2cport=$(freeport)
taskset -c 0 nghttpd -n 1 --no-tls -d "$work/h2c" "$h2cport" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf --http2-prior-knowledge -o /dev/null "http://127.0.0.1:$h2cport/fcm/send" && break; sleep 0.05; done
echo "{\"to\":\"$token\",\"priority\":\"high\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}" >"$work/h2c-send.json"
echo "{\"message\":{\"token\":\"$token\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}}" >"$work/h2c-v1.json"
h2crun() { # url body authorization → req/s
  taskset -c 1 h2load -D "$SECONDS_PER_RUN" -c "${BENCH_H2_CONNECTIONS:-4}" -m "${BENCH_H2_STREAMS:-100}" -t 1 -d "$2" \
    -H "authorization: $3" -H 'content-type: application/json' "$1" >"$work/h2load.out"
  grep -q ' 0 failed, 0 errored' "$work/h2load.out" || { cat "$work/h2load.out" >&2; exit 1; }
  grep -q 'status codes: [0-9]* 2xx, 0 3xx, 0 4xx, 0 5xx' "$work/h2load.out" || { cat "$work/h2load.out" >&2; exit 1; }
  awk '/^finished in/ {print $4}' "$work/h2load.out"
}
# As over HTTP/1.1, each API's floor is nghttpd given that API's request: h2load's HPACK never
# indexes an authorization header, so v1's bearer token is decoded in full on every stream.
ngc_total=0; ngv_total=0; h2s_total=0; h2v_total=0
for r in $(seq "$ROUNDS"); do
  n=$(h2crun "http://127.0.0.1:$h2cport/fcm/send" "$work/h2c-send.json" "key=$KEY")
  a=$(h2crun "$pm/fcm/send" "$work/h2c-send.json" "key=$KEY")
  nv=$(h2crun "http://127.0.0.1:$h2cport/v1/projects/demo-pushmock/messages:send" "$work/h2c-v1.json" "Bearer $bearer")
  b=$(h2crun "$pm/v1/projects/demo-pushmock/messages:send" "$work/h2c-v1.json" "Bearer $bearer")
  printf 'round %d: nghttpd --no-tls %8.0f req/s  /fcm/send over h2c %8.0f req/s  nghttpd given v1 %8.0f req/s  v1 over h2c %8.0f req/s\n' \
    "$r" "$n" "$a" "$nv" "$b"
  ngc_total=$(python3 -c "print($ngc_total + $n)"); h2s_total=$(python3 -c "print($h2s_total + $a)")
  ngv_total=$(python3 -c "print($ngv_total + $nv)"); h2v_total=$(python3 -c "print($h2v_total + $b)")
done
python3 - "$ngc_total" "$ngv_total" "$h2s_total" "$h2v_total" "$ROUNDS" <<'PY'
import sys
g, gv, a, b = map(float, sys.argv[1:5]); n = int(sys.argv[5])
print(f"/fcm/send over h2c: nghttpd --no-tls {g/n:.0f} req/s, pushmock {a/n:.0f} req/s, ratio {a/g:.3f}")
print(f"v1 messages:send over h2c: nghttpd --no-tls given v1's request {gv/n:.0f} req/s, pushmock {b/n:.0f} req/s, ratio {b/gv:.3f} (against nghttpd given /fcm/send's {b/g:.3f})")
PY
goal "$work" "/fcm/send over h2c / nghttpd --no-tls" "$(exact "$h2s_total" "$ngc_total")" ">=" 0.8 ""
goal "$work" "v1 over h2c / nghttpd --no-tls" "$(exact "$h2v_total" "$ngv_total")" ">=" 0.8 ""

# Latency at a fixed rate: 10,000 requests a second (h2load --rps: 10 connections of 1,000
# each, one request in flight per connection, since h2load sends a connection's requests in
# bursts of its stream count) for BENCH_SECONDS; p50, p99 and max from its per-request log.
latency() { # name, h2load arguments... → one line
  local name=$1; shift
  rm -f "$work/latency.log"
  taskset -c 1 h2load -t 1 -D "$SECONDS_PER_RUN" --log-file="$work/latency.log" "$@" >"$work/h2load.out"
  grep -q ' 0 failed, 0 errored' "$work/h2load.out" || { cat "$work/h2load.out" >&2; exit 1; }
  python3 - "$work/latency.log" "$name" <<'PY'
import sys
t = sorted(int(line.split("\t")[2]) for line in open(sys.argv[1]))
n = len(t)
print(f"{sys.argv[2]} at 10,000 req/s: {n} requests, p50 {t[n // 2] / 1000:.2f} ms, p99 {t[int(n * 0.99)] / 1000:.2f} ms, max {t[-1] / 1000:.2f} ms")
PY
}
echo "{\"to\":\"$token\",\"priority\":\"high\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}" >"$work/send.json"
echo "{\"message\":{\"token\":\"$token\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}}" >"$work/v1.json"
latency "/fcm/send" --h1 -c 10 --rps 1000 -d "$work/send.json" -H "Authorization: key=$KEY" -H 'Content-Type: application/json' "$pm/fcm/send"
latency "v1 messages:send" --h1 -c 10 --rps 1000 -d "$work/v1.json" -H "Authorization: Bearer $bearer" -H 'Content-Type: application/json' \
  "$pm/v1/projects/demo-pushmock/messages:send"
latency "APNs over HTTP/2" -c 10 -m 1 --rps 1000 -d "$work/apns.json" -H "authorization: bearer $jwt" -H 'apns-topic: com.example.bench' \
  -H 'apns-push-type: alert' "$pmtls/3/device/$apns"

# The rate benches are done: their servers are stopped, so that what follows has core 0 to
# itself (an idle-looking server may still be working there: the hooked one's webhook queue
# retrying, a --data-dir store checkpointing).
stop_servers

# Topic fan-out on a fresh pushmock (a log with room for every event): SUBSCRIBERS idle
# devices on one topic (their memory is measured), then one send. The send is answered once
# every device's events are in the log (the fan-out runs before the answer); the count of
# MESSAGE_DELIVERED events is checked after.
start fanout 'http://' taskset -c 0 "$bin" --port 0 --tls-port off --device-rate-limit 0 --max-events $((SUBSCRIBERS * 3 + 1000)); fanout=$started
fpid=${pids[-1]}
rss() { awk '/VmRSS/ {print $2}' "/proc/$fpid/status"; }
rss0=$(rss)
t0=$(date +%s.%N)
curl -sf -H 'Content-Type: application/json' -X POST "$fanout/emulator/v1/projects/demo-pushmock/devices:batchCreate" \
  -d "{\"platform\":\"android\",\"app\":\"com.example.bench\",\"count\":$SUBSCRIBERS,\"topics\":[\"bench\"]}" >/dev/null
t1=$(date +%s.%N)
rss1=$(rss)
start_ns=$(date +%s%N)
curl -sf -o "$work/topic.json" -H "Authorization: key=$KEY" -H 'Content-Type: application/json' \
  -d '{"to":"/topics/bench","data":{"k":"v"}}' "$fanout/fcm/send"
answered_ns=$(date +%s%N)
curl -sf "$fanout/emulator/v1/projects/demo-pushmock/events?count=true&event=MESSAGE_DELIVERED&topic=bench" >"$work/count.json"
python3 - "$work/count.json" "$SUBSCRIBERS" "$t0" "$t1" "$start_ns" "$answered_ns" "$rss0" "$rss1" <<'PY'
import json, sys
count = json.load(open(sys.argv[1]))["count"]
n = int(sys.argv[2]); t0, t1 = float(sys.argv[3]), float(sys.argv[4])
s, a = int(sys.argv[5]), int(sys.argv[6])
rss0, rss1 = int(sys.argv[7]), int(sys.argv[8])
assert count == n, f"only {count} of {n} delivery events"
print(f"{n} idle devices on one topic: registered in {t1-t0:.2f} s, {(rss1 - rss0) * 1024 / n:.0f} bytes of memory each")
print(f"topic send to {n} subscribers: accepted, delivered and all {count} MESSAGE_DELIVERED events logged "
      f"when answered, after {(a-s)/1e6:.0f} ms")
PY
goal "$work" "$SUBSCRIBERS devices registered in one batch" "$(python3 -c "print($t1 - $t0)")" "<=" 2 s
goal "$work" "memory per idle device" "$(python3 -c "print(($rss1 - $rss0) * 1024 / $SUBSCRIBERS)")" "<=" 512 B
goal "$work" "topic send to $SUBSCRIBERS, all events logged" "$(python3 -c "print(($answered_ns - $start_ns) / 1e6)")" "<=" 1000 ms

# Web Push: pushes to a fake Chrome against /fcm/send, and 1,000 browsers on WebSockets.
bench/webpush.sh "$bin" "$work"

# Real GCM clients over MCS: a send to each of 1,000, sends to one, idle clients' memory.
bench/mcs.sh "$bin" "$work"

# The durable store at scale: a million devices and a million-subscriber send with --data-dir.
bench/durable_scale.sh "$bin" "$work" "$SUBSCRIBERS"

goals_report "$work"
