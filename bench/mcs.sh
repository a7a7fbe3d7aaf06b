#!/usr/bin/env bash
# make bench (MCS): real GCM clients (bench/mcs_clients.py, on Google's own message
# definitions) on pushmock's MCS port: one FCM v1 send to each of 1,000 connected clients, each
# acknowledging (time to the last ack); sends per second to one client; memory per idle MCS
# client. Server pinned to core 0, clients to core 1.
# usage: bench/mcs.sh PUSHMOCK_BINARY WORK_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 work=$2
ulimit -n 20000  # the idle clients, on both sides (20,000 is this machine's hard limit)
taskset -c 0 "$bin" --port 0 --tls-port 0 --cert-dir "$work/certs" --accept-any-token --device-rate-limit 0 \
  --quota-per-minute 100000000 --max-connections 20000 >"$work/mcs.out" 2>&1 &
server=$!
echo $server >"$work/mcs.pid"
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q 'tls://' "$work/mcs.out" 2>/dev/null && break; sleep 0.05; done
pm=$(grep -o 'http://[0-9.:]*' "$work/mcs.out" | head -n1)
mcs=$(grep -o 'tls://[0-9.:]*' "$work/mcs.out" | head -n1)
PUSHMOCK_PID_FILE="$work/mcs.pid" taskset -c 1 .venv/bin/python bench/mcs_clients.py "${pm#http://}" "${mcs##*:}" \
  "$work/certs/ca.pem" "${BENCH_MCS_CLIENTS:-1000}" "${BENCH_MCS_IDLE:-10000}"
