#!/usr/bin/env bash
# Exactly once across instances (docs/bots.md): two instances of the release
# binary on one Postgres (a fresh database on the server in
# TEST_DATABASE_URL), 40 Klaverjassen tables each of one person and three
# `basic` computer players, driven by tests/instances/play.py; then the same
# with the second instance killed with SIGKILL mid-run. Called by .ci/run
# right after tests/proxy/run.sh and reuses its release build. Everything
# listens on 127.0.0.1 only and is stopped on exit. TABLES, DEALS and
# KILL_AFTER (person moves before the kill) tune the size.
set -euo pipefail
cd "$(dirname "$0")/../.."

: "${TEST_DATABASE_URL:?set TEST_DATABASE_URL to a Postgres server URL}"
work=$(mktemp -d)
pids=()
database="kt_instances_$(date +%s)_$$"
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# The same build command as deploy/Dockerfile (a no-op after tests/proxy/run.sh);
# KAARTTAFEL_BINARY names another build to check instead (say a debug one).
binary=${KAARTTAFEL_BINARY:-}
if [ -z "$binary" ]; then
    cargo build --release --locked
    binary=target/release/kaarttafel
fi

psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $database"
db_url="${TEST_DATABASE_URL%/*}/$database"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port_a=$(free_port); port_b=$(free_port)

for port in "$port_a" "$port_b"; do
    DATABASE_URL="$db_url" PORT="$port" METRICS_ADDR=off RATE_LIMITS=off \
        JWT_SECRET=ci-instances-secret-0123456789abcdef01 SHUTDOWN_TIMEOUT=10 LOG_FORMAT=json WORKERS=2 \
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

INSTANCE_URLS="http://127.0.0.1:$port_a http://127.0.0.1:$port_b" KILL_PID="${pids[1]}" \
    python3 tests/instances/play.py || { tail -n 20 "$work"/instance-*.log; exit 1; }

# The survivor is still up and ready.
curl -sf "http://127.0.0.1:$port_a/readyz" >/dev/null || { echo "the survivor is not ready"; exit 1; }
if kill -0 "${pids[1]}" 2>/dev/null; then echo "the second instance outlived SIGKILL"; exit 1; fi
echo "tests/instances: passed"
