#!/bin/bash
# Runs every command block of the README, in order, in one shell session, as a new user would
# paste them into one terminal: `sh` blocks as they are, `python` blocks through python3 (YAML
# blocks are CI configuration, not commands). Inside a private network and mount namespace
# (started by the caller with `unshare --net --mount`) so ports 80, 443, 4010 and 4443 and
# /etc/hosts are its own, with a fresh HOME.
#
# The commands a test cannot run as such are stood in for, and only those (shims on PATH):
# `make run` starts the pushmock under test instead of building a release one, and returns
# once it answers, as if it ran in a terminal of its own (a second `make run` finds it
# running); `make install` copies it; `make test`/`make check` are this suite itself; `sudo` runs the command (the
# namespace is root's); `python3` is the test venv's (with firebase-admin); curl fails on an
# HTTP error answer (`--fail-with-body`), so a recipe that stops working fails here. Each
# wait in a recipe is bounded by the test's time limit.
#
# usage: unshare --net --mount bash readme.sh PUSHMOCK PYTHON README
set -euo pipefail
bin=$1 python=$2 readme=$3

ip link set lo up
hosts=$(mktemp)
printf '127.0.0.1 localhost fcm.googleapis.com iid.googleapis.com oauth2.googleapis.com android.clients.google.com device-provisioning.googleapis.com\n::1 localhost\n' >"$hosts"
mount --bind "$hosts" /etc/hosts

work=$(mktemp -d)
# The pushmock `make run` started outlives the session, as in a terminal of its own; not this.
trap 'kill $(cat "$work/make-run.pid" 2>/dev/null) 2>/dev/null; rm -rf "$work" "$hosts"' EXIT
export HOME=$work/home
unset XDG_DATA_HOME
mkdir -p "$HOME" "$work/shims" "$work/cwd"
cat >"$work/shims/make" <<SHIM
#!/bin/sh
case "\$1" in
  run)
    /usr/bin/curl -sf localhost:4010/healthz >/dev/null && exit 0
    "$bin" >"$work/make-run.log" 2>&1 &
    echo \$! >"$work/make-run.pid"
    for _ in \$(seq 100); do /usr/bin/curl -sf localhost:4010/healthz >/dev/null && exit 0; sleep 0.1; done
    cat "$work/make-run.log" >&2; exit 1 ;;
  install) install -D -m 755 "$bin" "\${2#PREFIX=}/bin/pushmock" ;;
  test|check) echo "(make \$1: the suite running this)" ;;
  *) echo "make \$*: not stood in for by the README test" >&2; exit 1 ;;
esac
SHIM
printf '#!/bin/sh\nexec "$@"\n' >"$work/shims/sudo"
printf '#!/bin/sh\nexec %s "$@"\n' "$python" >"$work/shims/python3"
cat >"$work/shims/curl" <<'SHIM'
#!/bin/sh
# --fail-with-body unless the command already asks for --fail (curl takes only one of them).
for a in "$@"; do
  case "$a" in --fail*|-f*|-[!-]*f*) exec /usr/bin/curl "$@" ;; esac
done
exec /usr/bin/curl --fail-with-body "$@"
SHIM
chmod +x "$work/shims/"*
export PATH="$work/shims:$PATH"

# The session: each block, announced, then its commands.
"$python" - "$readme" >"$work/session.sh" <<'EXTRACT'
import re, sys
text = open(sys.argv[1]).read()
out = ["set -euo pipefail", "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT"]
for n, (lang, body) in enumerate(re.findall(r"^```(\w+)\n(.*?)^```$", text, re.S | re.M), 1):
    if lang == "sh":
        out += [f"echo '== block {n} (sh)'", body]
    elif lang == "python":
        out += [f"echo '== block {n} (python)'", "python3 - <<'PYTHON'", body + "PYTHON"]
# The servers a block left running are stopped, and what they say on stopping is printed,
# before the session says it is done.
out += ["kill $(jobs -p) 2>/dev/null || true", "wait", "echo 'README OK'"]
print("\n".join(out))
EXTRACT
cd "$work/cwd"
bash "$work/session.sh"
