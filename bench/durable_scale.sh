#!/usr/bin/env bash
# Part of make bench (bench/run.sh calls it): the durable store at scale. A fresh pushmock with
# --data-dir registers DEVICES devices on one topic in one batch; it measures how long until
# the answer and until every device's row is committed, the memory per device, the bytes
# written (/proc/PID/io write_bytes) for one device's PATCH, a send to the topic answered with
# every delivery event committed, and the time a restart takes to serve again (every device
# row and the newest events read back).
#   usage: bench/durable_scale.sh PUSHMOCK_BINARY WORK_DIRECTORY [DEVICES]
set -euo pipefail
bin=$1 work=$2 n=${3:-1000000}
key=pushmock-dev-server-key
data="$work/scale"
rm -rf "$data"
base=""
pid=""
serve() { # starts pushmock on $data, sets $base and $pid
  taskset -c 0 "$bin" --port 0 --tls-port off --device-rate-limit 0 --max-events $((n * 3 + 1000)) --data-dir "$data" \
    >"$work/scale.out" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do grep -q 'http://' "$work/scale.out" 2>/dev/null && break; sleep 0.05; done
  base=$(grep -o 'on http://[0-9.:]*' "$work/scale.out" | head -n1 | sed 's/^on //')
}
sql() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$data/pushmock.db" "$1"; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
written() { awk '/^write_bytes/ {print $2}' "/proc/$pid/io"; }
now() { date +%s.%N; }
until_sql() { # query, value: waits until the query answers at least the value
  for _ in $(seq 6000); do [ "$(sql "$1")" -ge "$2" ] && return; sleep 0.05; done
  echo "bench: $1 never reached $2" >&2; exit 1
}

serve
project="$base/emulator/v1/projects/demo-pushmock"
rss0=$(rss)
t0=$(now)
curl -sf -H 'Content-Type: application/json' -X POST "$project/devices:batchCreate" \
  -d "{\"platform\":\"android\",\"app\":\"com.example.bench\",\"count\":$n,\"topics\":[\"all\"]}" >/dev/null
t1=$(now)
until_sql "SELECT count(*) FROM state_devices" "$n"
t2=$(now)
rss1=$(rss)
# Checkpoint first (from here, as a reader may): otherwise the change's commit can be the one
# that crosses SQLite's checkpoint threshold and writes megabytes of earlier commits.
sql "PRAGMA wal_checkpoint(PASSIVE)" >/dev/null
sleep 1
w0=$(written)
curl -sf -H 'Content-Type: application/json' -X PATCH "$project/devices/d1234" -d '{"app_state":"foreground"}' >/dev/null
sleep 1
w1=$(written)
events0=$(sql "SELECT coalesce(sum(count), 0) FROM log")
t3=$(now)
curl -sf -o /dev/null -H "Authorization: key=$key" -H 'Content-Type: application/json' \
  -d '{"to":"/topics/all","data":{"k":"v"}}' "$base/fcm/send"
t4=$(now)
# Accepted, then accepted and delivered for each device: every one committed.
until_sql "SELECT coalesce(sum(count), 0) FROM log" $((events0 + 1 + 2 * n))
t5=$(now)
kill -TERM "$pid"; wait "$pid" || true
t6=$(now)
serve
t7=$(now)
restored=$(curl -sf "$base/emulator/v1/projects/demo-pushmock" | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"])')
kill -TERM "$pid"; wait "$pid" || true
python3 - "$n" "$t0" "$t1" "$t2" "$rss0" "$rss1" "$w0" "$w1" "$t3" "$t4" "$t5" "$t6" "$t7" "$restored" "$(du -sk "$data" | cut -f1)" <<'PY'
import sys
n = int(sys.argv[1]); t0, t1, t2 = map(float, sys.argv[2:5]); rss0, rss1, w0, w1 = map(int, sys.argv[5:9])
t3, t4, t5, t6, t7 = map(float, sys.argv[9:14]); restored, kib = int(sys.argv[14]), int(sys.argv[15])
assert restored == n, f"{restored} of {n} devices after the restart"
print(f"--data-dir, {n} devices on one topic: registered in {t1-t0:.2f} s, every row committed after {t2-t0:.2f} s, "
      f"{(rss1-rss0)*1024/n:.0f} bytes of memory each")
print(f"--data-dir, one device's PATCH among {n}: {w1-w0} bytes written (to the write-ahead log; as many again when checkpointed)")
print(f"--data-dir, topic send to {n} subscribers: answered after {t4-t3:.2f} s, all {2*n+1} events committed after {t5-t3:.2f} s")
print(f"--data-dir, restart with {n} devices and {2*n+1} events: stopped in {t6-t5:.2f} s, serving again after {t7-t6:.2f} s "
      f"({kib/1024:.0f} MiB on disk)")
PY
source "$(dirname "$0")/goals.sh"
goal "$work" "--data-dir restart with $n devices" "$(python3 -c "print($t7 - $t6)")" "<=" 10 s
