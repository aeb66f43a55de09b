#!/usr/bin/env bash
# Faults under load, on this machine's loopback only: a throwaway Postgres
# cluster of its own on a free port, one release instance, a few clients
# playing moves (tests/faults/faults.py), then kill -9 of the instance and a
# restart, a Postgres restart, and Postgres stopped for 15 s. Checks that
# every acknowledged move is in the event log exactly once, no request was
# answered 500, requests during the outage were answered 503 with
# Retry-After within the documented wait, and /readyz turned red within 1 s
# and green again by itself. Bounded (about a minute after the build);
# prints a summary; exits non-zero on failure.
# Needs: Postgres binaries under /usr/lib/postgresql/*/bin, python3.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "no Postgres binaries under /usr/lib/postgresql"; exit 1; }

work=$(mktemp -d)
chmod 755 "$work"
as_owner=()
if [ "$(id -u)" = 0 ]; then as_owner=(runuser -u postgres --); fi
instance_pid=""
cleanup() {
    [ -f "$work/instance.pid" ] && kill -9 "$(cat "$work/instance.pid")" 2>/dev/null || true
    "${as_owner[@]}" "$bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# The same build command as deploy/Dockerfile (a no-op when .ci/run built it);
# FAULTS_BINARY names another binary to try (a debug build, say).
if [ -n "${FAULTS_BINARY:-}" ]; then
    binary=$(realpath "$FAULTS_BINARY")
else
    cargo build --release --locked
    binary=$(pwd)/target/release/kaarttafel
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pg_port=$(free_port); port=$(free_port)

mkdir -p "$work/pg" "$work/sock"
[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$work/pg" "$work/sock"
"${as_owner[@]}" "$bin/initdb" -D "$work/pg" -A trust -U postgres --no-sync >/dev/null
# Helper scripts the driver calls to stop and start the cluster.
cat >"$work/pg-ctl" <<SCRIPT
#!/bin/sh
exec ${as_owner[*]} "$bin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w -t 30 \\
    -o "-p $pg_port -k $work/sock -c listen_addresses=127.0.0.1 -c fsync=off" "\$@"
SCRIPT
chmod +x "$work/pg-ctl"
[ "$(id -u)" = 0 ] && touch "$work/pg.log" && chown postgres "$work/pg.log"
"$work/pg-ctl" start >/dev/null

PG_CTL="$work/pg-ctl" \
DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/kaarttafel" \
PORT="$port" BINARY="$binary" WORK="$work" \
    python3 tests/faults/faults.py || {
        echo "--- instance log (last 30 lines)"; tail -n 30 "$work"/instance-*.log 2>/dev/null || true
        exit 1
    }
