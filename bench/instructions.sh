#!/usr/bin/env bash
# make bench-instructions: instructions per request under valgrind's callgrind, which counts
# the same for the same binary and input whatever else the machine does (wall-clock rates on
# this shared machine move by a third between runs). For pushmock's /fcm/send and HTTP v1
# messages:send to one token, and for the bare libevent floor, each after 300 warm-up requests:
# the counters are zeroed, 3,000 requests are sent with h2load (HTTP/1.1, 4 connections) and
# the counts dumped. User-space instructions only: the kernel's share is the same for all three.
# BIN=path/to/pushmock measures another build (e.g. an older commit's; TUNE= runs it without
# the malloc tunable, as a build from before the tunable ran).
set -euo pipefail
cd "$(dirname "$0")/.."
N=3000
work=$(mktemp -d)
trap 'pkill -f "callgrind-out-file=$work" 2>/dev/null || true; rm -rf "$work"' EXIT

cc -O2 -Wall -o bench/floor bench/floor.c -levent
if [ -z "${BIN:-}" ]; then swift build -c release --product pushmock >/dev/null; BIN=$(swift build -c release --show-bin-path)/pushmock; fi
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

measure() { # name, port, url, body file, auth header, command... → prints instructions per request
  local name=$1 p=$2 url=$3 body=$4 auth=$5; shift 5
  valgrind --tool=callgrind --callgrind-out-file="$work/$name.%p" "$@" >"$work/$name.log" 2>&1 &
  for _ in $(seq 200); do curl -sf -o /dev/null "http://127.0.0.1:$p/healthz" 2>/dev/null && break
    curl -s -o /dev/null "http://127.0.0.1:$p/" 2>/dev/null && break; sleep 0.1; done
  if [ -n "${setup:-}" ]; then $setup "$p"; fi
  h2load --h1 -n 300 -c 4 -d "$work/$body" -H "$auth" -H 'Content-Type: application/json' "$url" >/dev/null
  callgrind_control -z >/dev/null
  h2load --h1 -n $N -c 4 -d "$work/$body" -H "$auth" -H 'Content-Type: application/json' "$url" >"$work/h2load.out"
  grep -q "$N succeeded" "$work/h2load.out" || { cat "$work/h2load.out" >&2; exit 1; }
  grep -q "$N 2xx" "$work/h2load.out" || { cat "$work/h2load.out" >&2; echo "answers other than 2xx" >&2; exit 1; }
  callgrind_control -d >/dev/null
  sleep 0.5
  local dump
  dump=$(ls "$work/$name".*.1 | head -n1)
  callgrind_annotate "$dump" 2>/dev/null | awk -v n=$N -v name="$name" \
    '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%-28s %8.0f instructions per request\n", name, $1 / n; exit }'
  pkill -f "callgrind-out-file=$work/$name" || true
  sleep 0.5
}

register() { # port: one Android device; writes the bodies with its token
  local token
  token=$(curl -sf -X POST "http://127.0.0.1:$1/emulator/v1/projects/demo-pushmock/devices" \
    -d '{"platform":"android","app":"com.example.bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  echo "{\"to\":\"$token\",\"priority\":\"high\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}" >"$work/send.json"
  echo "{\"message\":{\"token\":\"$token\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}}" >"$work/v1.json"
}
echo '{"to":"x"}' >"$work/floor.json"

p=$(port)
setup="" measure floor "$p" "http://127.0.0.1:$p/fcm/send" floor.json "Authorization: key=x" bench/floor "$p"
for api in legacy v1; do
  p=$(port)
  if [ $api = legacy ]; then url="http://127.0.0.1:$p/fcm/send" body=send.json auth="Authorization: key=pushmock-dev-server-key"
  else url="http://127.0.0.1:$p/v1/projects/demo-pushmock/messages:send" body=v1.json auth="Authorization: Bearer any"; fi
  # The bodies need the device's token: register it before the warm-up.
  # GLIBC_TUNABLES as pushmock sets it for itself (it would otherwise re-execute itself to set
  # it, which callgrind would not follow).
  GLIBC_TUNABLES="${TUNE-glibc.malloc.tcache_count=1000}" setup=register measure "pushmock-$api" "$p" "$url" "$body" "$auth" \
    "$BIN" --port "$p" --tls-port off --device-rate-limit 0 --accept-any-token --quota-per-minute 100000000
done
