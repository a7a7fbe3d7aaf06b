#!/usr/bin/env bash
# make image-check: the container image checked without a Docker engine. Builds the binary the
# Dockerfile's build stage builds (release, static Swift stdlib), makes the runtime stage's root
# file system with debootstrap (bookworm, minbase) plus exactly the packages the Dockerfile
# installs, adds the same non-root user, runs pushmock in it with chroot as that user, and
# passes a smoke test: the HEALTHCHECK command, a device, a send, the log, TLS. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${IMAGE_CHECK_DIR:-/tmp/pushmock-image-check}
rootfs=$work/rootfs
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
port=${IMAGE_CHECK_PORT:-14010}
tls=${IMAGE_CHECK_TLS_PORT:-14443}
mcs=${IMAGE_CHECK_MCS_PORT:-15228}
[ "$(id -u)" = 0 ] || { echo "image-check needs root (debootstrap, chroot)"; exit 1; }
chroot=$(command -v chroot)

# What the Dockerfile says, read from it so the check cannot drift from it.
packages=$(grep -A1 -- '--no-install-recommends' docker/Dockerfile | tail -n1 | tr -d '\\' | xargs)
grep -q '^USER pushmock' docker/Dockerfile
grep -q '^EXPOSE 4010 4443 5228' docker/Dockerfile
grep -q '^VOLUME /data' docker/Dockerfile
grep -q '^HEALTHCHECK .*"pushmock", "health"' docker/Dockerfile
grep -q 'swift build -c release --static-swift-stdlib' docker/Dockerfile
echo "runtime packages (from docker/Dockerfile): $packages"

swift build -c release --static-swift-stdlib --product pushmock
bin=$(swift build -c release --show-bin-path)/pushmock

if [ ! -x "$rootfs/usr/bin/apt-get" ]; then
  rm -rf "$rootfs"; mkdir -p "$work"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log"
fi
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
chroot "$rootfs" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null && rm -rf /var/lib/apt/lists/*"
# debian:bookworm-slim ships without debootstrap's package cache.
chroot "$rootfs" apt-get clean
chroot "$rootfs" sh -c 'id pushmock >/dev/null 2>&1 || useradd --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin pushmock; mkdir -p /data && chown pushmock:pushmock /data'
install -s -m 0755 "$bin" "$rootfs/usr/local/bin/pushmock"
# A container always has /proc (the Swift runtime reads the command line from it).
mountpoint -q "$rootfs/proc" || mount -t proc proc "$rootfs/proc"

# The image's environment, with ports that do not clash with a pushmock already running here.
grep -q '^    PUSHMOCK_DATA_DIR=/data$' docker/Dockerfile
grep -q "^ENV PUSHMOCK_ALLOW_HOST=\* " docker/Dockerfile
env -i PATH=/usr/local/bin:/usr/bin:/bin PUSHMOCK_ALLOW_HOST="*" PUSHMOCK_HOST=0.0.0.0 PUSHMOCK_PORT=$port PUSHMOCK_TLS_PORT=$tls PUSHMOCK_MCS_PORT=$mcs \
  PUSHMOCK_CERT_DIR=/data/certs PUSHMOCK_DATA_DIR=/data "$chroot" --userspec=10001:10001 "$rootfs" /usr/local/bin/pushmock >"$work/pushmock.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; umount "$rootfs/proc" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q 'https://' "$work/pushmock.log" 2>/dev/null && break; sleep 0.1; done
cat "$work/pushmock.log"

timeout 5 env -i PATH=/usr/bin:/bin "$chroot" --userspec=10001:10001 "$rootfs" /usr/local/bin/pushmock health --port "$port"
echo "HEALTHCHECK (pushmock health): ok"
base=http://127.0.0.1:$port/emulator/v1/projects/demo-pushmock
token=$(curl -sf -H 'Content-Type: application/json' -X POST "$base/devices" -d '{"platform":"android","app":"com.example.image"}' \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
answer=$(curl -s -H 'Authorization: key=pushmock-dev-server-key' -H 'Content-Type: application/json' \
  -d "{\"to\":\"$token\",\"notification\":{\"title\":\"from the image\"}}" "http://127.0.0.1:$port/fcm/send")
echo "$answer" | grep -q '"success":1' || { echo "the send failed: $answer"; exit 1; }
count=$(curl -sf "$base/events?count=true" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
[ "$count" -ge 3 ] || { echo "expected the send's events in the log, got $count"; exit 1; }
curl -sf --cacert "$rootfs/data/certs/ca.pem" "https://localhost:$tls/healthz" | grep -q ok
# MCS answers TLS as mtalk.google.com with the image's CA (a client's first packet comes next).
echo | timeout 5 openssl s_client -connect "127.0.0.1:$mcs" -servername mtalk.google.com -CAfile "$rootfs/data/certs/ca.pem" \
  -verify_return_error -verify_hostname mtalk.google.com >/dev/null 2>&1 || { echo "MCS did not answer TLS as mtalk.google.com"; exit 1; }
[ "$(stat -c %u "$rootfs/data/certs/ca.pem")" = 10001 ] || { echo "the CA is not owned by the non-root user"; exit 1; }
sleep 0.2
stored=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from data").fetchone()[0])' "$rootfs/data/pushmock.db")
[ "$stored" -ge "$count" ] || { echo "expected $count events in /data/pushmock.db, found $stored"; exit 1; }
echo "smoke test: health, a send, $count events in the log and $stored in /data/pushmock.db, TLS with the image's CA: ok"
echo "runtime root file system: $(du -sh -x "$rootfs" | cut -f1) ($(du -sh "$rootfs/usr/local/bin/pushmock" | cut -f1) of it the pushmock binary)"
