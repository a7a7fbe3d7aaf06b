#!/usr/bin/env bash
# make bench-instructions: instructions per request under valgrind's callgrind, which counts
# the same for the same binary and input whatever else the machine does (wall-clock rates on
# this shared machine move by a third between runs). Each server runs under callgrind; after
# a warm-up the counters are zeroed, a fixed number of requests is sent with h2load and the
# counts dumped. User-space instructions only: the kernel's share is about the same for a
# server and its floor. The RSA key pool's thread is left out (see `measure`).
#   - the bare libevent floor, and pushmock's /fcm/send and HTTP v1 messages:send to one
#     token (HTTP/1.1, 4 connections, 3,000 requests after 300), v1 with a real bearer token
#     from a service account, as `make bench` sends it;
#   - nghttpd's static answer, and pushmock's APNs push to one iPhone over TLS and HTTP/2 with
#     a provider token (4 connections of 100 streams, 20,000 pushes after 2,000).
# pushmock keeps 100 sends and 300 events here, so the warm-up fills both and every measured
# send evicts the oldest send and its events, as every send does in `make bench` once its
# first seconds have filled the default 100,000 and 1,000,000. (With the defaults, 3,000 sends
# would never evict, and the counts would leave out what eviction costs.)
# BIN=path/to/pushmock measures another build (e.g. an older commit's). Builds from before
# mimalloc re-executed themselves to set glibc's malloc tunables unless set (callgrind would
# not follow), so they are set for every build; TUNE= leaves them out, for a build from
# before the tunables.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'pkill -f "callgrind-out-file=$work" 2>/dev/null || true; rm -rf "$work"' EXIT

cc -O2 -Wall -o bench/floor bench/floor.c -levent
if [ -z "${BIN:-}" ]; then make --no-print-directory release >/dev/null; BIN=$(swift build -c release --show-bin-path)/pushmock; fi
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# glibc's malloc tunables, as builds from before mimalloc set them for themselves (above).
tune="${TUNE-glibc.malloc.tcache_count=1000:glibc.malloc.hugetlb=1}"
full=(--max-messages 100 --max-events 300)

load=()  # h2load arguments (without -n), set by each case's setup
measure() { # name, warm-up count, count, readiness URL, command... → prints instructions per request
  local name=$1 warm=$2 n=$3 ready=$4; shift 4
  valgrind --tool=callgrind --callgrind-out-file="$work/$name.%p" "$@" >"$work/$name.log" 2>&1 &
  for _ in $(seq 300); do curl -sk -o /dev/null "$ready" 2>/dev/null && break; sleep 0.1; done
  if [ -n "${setup:-}" ]; then $setup; fi
  h2load -n "$warm" "${load[@]}" >/dev/null
  callgrind_control -z >/dev/null 2>&1
  h2load -n "$n" "${load[@]}" >"$work/h2load.out"
  grep -q "$n succeeded" "$work/h2load.out" || { cat "$work/h2load.out" >&2; exit 1; }
  grep -q "$n 2xx" "$work/h2load.out" || { cat "$work/h2load.out" >&2; echo "answers other than 2xx" >&2; exit 1; }
  callgrind_control -d >/dev/null 2>&1
  sleep 0.5
  local dump
  dump=$(ls "$work/$name".*.1 | head -n1)
  # The RSA key pool's thread (RSAKeyPool.fill) makes keys ahead for service accounts: when
  # the v1 case's account took one, the key made in its place may fall in the measured window,
  # a few hundred million instructions that depend on the primes drawn, not on the requests.
  callgrind_annotate --inclusive=yes "$dump" 2>/dev/null | awk -v n="$n" -v name="$name" '
    /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
    /RSAKeyPool.*fill/ && !pool { gsub(",", "", $1); pool = $1 }
    END { printf "%-28s %8.0f instructions per request\n", name, (total - pool) / n }'
  pkill -f "callgrind-out-file=$work/$name" || true
  sleep 0.5
}

device() { # pushmock URL, platform → the new device's JSON
  curl -sf -H 'Content-Type: application/json' -X POST "$1/emulator/v1/projects/demo-pushmock/devices" -d "{\"platform\":\"$2\",\"app\":\"com.example.bench\"}"
}
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }

# The floor answers any request; it is sent the /fcm/send request.
p=$(port)
echo '{"to":"x"}' >"$work/floor.json"
load=(--h1 -c 4 -d "$work/floor.json" -H "Authorization: key=x" -H 'Content-Type: application/json' "http://127.0.0.1:$p/fcm/send")
setup="" measure floor 300 3000 "http://127.0.0.1:$p/" bench/floor "$p"

legacy() {
  local token
  token=$(device "$pm" android | field token)
  echo "{\"to\":\"$token\",\"priority\":\"high\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}" >"$work/send.json"
  load=(--h1 -c 4 -d "$work/send.json" -H "Authorization: key=pushmock-dev-server-key" -H 'Content-Type: application/json' "$pm/fcm/send")
}
v1() {
  local token bearer
  token=$(device "$pm" android | field token)
  echo "{\"message\":{\"token\":\"$token\",\"notification\":{\"title\":\"Bench\",\"body\":\"hello\"},\"data\":{\"k\":\"v\"}}}" >"$work/v1.json"
  curl -sf "$pm/emulator/v1/projects/demo-pushmock/serviceAccount" >"$work/sa.json"
  bearer=$(.venv/bin/python -c 'import sys; from google.oauth2 import service_account; from google.auth.transport.requests import Request
c = service_account.Credentials.from_service_account_file(sys.argv[1], scopes=["https://www.googleapis.com/auth/firebase.messaging"]); c.refresh(Request()); print(c.token)' "$work/sa.json")
  load=(--h1 -c 4 -d "$work/v1.json" -H "Authorization: Bearer $bearer" -H 'Content-Type: application/json'
        "$pm/v1/projects/demo-pushmock/messages:send")
}
for api in legacy v1; do
  p=$(port); pm="http://127.0.0.1:$p"
  GLIBC_TUNABLES="$tune" setup=$api measure "pushmock-$api" 300 3000 "$pm/healthz" \
    "$BIN" --port "$p" --tls-port off --device-rate-limit 0 --quota-per-minute 100000000 "${full[@]}"
done

# APNs: pushmock makes the certificates (in its --cert-dir) that nghttpd then serves with.
apns() {
  local key apnstoken jwt
  curl -sf -H 'Content-Type: application/json' -X POST "$pm/emulator/v1/projects/demo-pushmock/apnsKeys" -d '{}' >"$work/key.json"
  apnstoken=$(device "$pm" ios | field apns_token)
  jwt=$(.venv/bin/python -c 'import json, sys, time, jwt; k = json.load(open(sys.argv[1]))
print(jwt.encode({"iss": k["team_id"], "iat": int(time.time())}, k["private_key"], algorithm="ES256", headers={"kid": k["key_id"]}))' "$work/key.json")
  echo '{"aps":{"alert":{"title":"Bench","body":"hello"}},"k":"v"}' >"$work/apns.json"
  mkdir -p "$work/htdocs/3/device" && : >"$work/htdocs/3/device/$apnstoken"
  load=(-c 4 -m 100 -t 1 -d "$work/apns.json" -H "authorization: bearer $jwt" -H 'apns-topic: com.example.bench'
        -H 'apns-push-type: alert' "$pmtls/3/device/$apnstoken")
}
p=$(port); t=$(port); pm="http://127.0.0.1:$p"; pmtls="https://127.0.0.1:$t"
GLIBC_TUNABLES="$tune" setup=apns measure "pushmock-apns" 2000 20000 "$pm/healthz" \
  "$BIN" --port "$p" --tls-port "$t" --cert-dir "$work/certs" --device-rate-limit 0 --quota-per-minute 100000000 "${full[@]}"
g=$(port)
load=("${load[@]:0:${#load[@]}-1}" "https://127.0.0.1:$g${load[-1]#"$pmtls"}")
setup="" measure nghttpd 2000 20000 "https://127.0.0.1:$g/" \
  nghttpd -n 1 -d "$work/htdocs" "$g" "$work/certs/server-key.pem" "$work/certs/server.pem"
