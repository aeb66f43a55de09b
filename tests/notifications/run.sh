#!/usr/bin/env bash
# Notifications under faults (docs/notifications.md): two release instances
# on one Postgres (a fresh database on the server in TEST_DATABASE_URL), a
# webhook receiver of tests/notifications/faults.py, players each at a table
# with three computer players who move whenever told it is their turn.
# Phases: both instances deliver (no notification sent by both); the
# receiver down for 30 s and back (every notification arrives, each id
# acknowledged once); the second instance killed with SIGKILL while its
# deliveries hang, the first stopped meanwhile so that it holds none
# (nothing lost). Bounded (about two minutes after the
# build); everything listens on 127.0.0.1 and is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."

: "${TEST_DATABASE_URL:?set TEST_DATABASE_URL to a Postgres server URL}"
work=$(mktemp -d)
pids=()
database="kt_notify_$(date +%s)_$$"
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

binary=${KAARTTAFEL_BINARY:-}
if [ -z "$binary" ]; then
    cargo build --release --locked
    binary=target/release/kaarttafel
fi

psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $database"
db_url="${TEST_DATABASE_URL%/*}/$database"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port_a=$(free_port); port_b=$(free_port); receiver_port=$(free_port)

for port in "$port_a" "$port_b"; do
    DATABASE_URL="$db_url" PORT="$port" METRICS_ADDR=off RATE_LIMITS=off \
        JWT_SECRET=ci-notify-secret-0123456789abcdef0123 SHUTDOWN_TIMEOUT=10 LOG_FORMAT=json WORKERS=2 \
        NOTIFY_DELAY=0.2 NOTIFY_RETRY_MAX=2 WEBHOOK_ALLOW_PRIVATE=1 BOT_MOVE_MS=0 \
        "$binary" >"$work/instance-$port.log" 2>&1 &
    pids+=("$!")
done
for port in "$port_a" "$port_b"; do
    for _ in $(seq 150); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.1
    done
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { cat "$work"/instance-*.log; exit 1; }
done

INSTANCE_URLS="http://127.0.0.1:$port_a http://127.0.0.1:$port_b" KILL_PID="${pids[1]}" KEEP_PID="${pids[0]}" \
RECEIVER_PORT="$receiver_port" \
    timeout 300 python3 tests/notifications/faults.py || { tail -n 20 "$work"/instance-*.log; exit 1; }
echo "tests/notifications: passed"
