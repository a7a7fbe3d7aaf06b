#!/bin/sh
# Runs a command where Google's and Apple's push hosts are pushmock, with nothing patched:
# inside a private network and mount namespace (started by the caller with
# `unshare --net --mount`), /etc/hosts maps fcm/iid/oauth2.googleapis.com, the APNs hosts and
# Google's client-side hosts (check-in, Installations, registrations, MCS) to 127.0.0.1,
# pushmock listens on ports 80, 443 and 5228 (MCS), and SSL_CERT_FILE / REQUESTS_CA_BUNDLE
# trust pushmock's CA. PUSHMOCK_* variables the caller sets reach pushmock.
#
# usage: unshare --net --mount sh in_namespace.sh PUSHMOCK CERT_DIR COMMAND...
set -eu
pushmock=$1 certs=$2
shift 2

ip link set lo up
hosts=$(mktemp)
cat > "$hosts" <<HOSTS
127.0.0.1 localhost fcm.googleapis.com iid.googleapis.com oauth2.googleapis.com
127.0.0.1 api.push.apple.com api.sandbox.push.apple.com api.development.push.apple.com
127.0.0.1 android.clients.google.com firebaseinstallations.googleapis.com fcmregistrations.googleapis.com
127.0.0.1 device-provisioning.googleapis.com fcmtoken.googleapis.com mtalk.google.com
::1 localhost
HOSTS
mount --bind "$hosts" /etc/hosts

log=$(mktemp)
"$pushmock" --host 127.0.0.1 --port 80 --tls-port 443 --cert-dir "$certs" > "$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$hosts" "$log"' EXIT
for _ in $(seq 100); do
    grep -q "https://" "$log" && break
    kill -0 $server 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.05
done

export SSL_CERT_FILE="$certs/ca.pem" REQUESTS_CA_BUNDLE="$certs/ca.pem"
"$@"
