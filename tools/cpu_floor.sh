#!/usr/bin/env bash
# What one HTTP exchange and one database round trip cost the service's
# process on this machine, without any game (docs/benchmarks.md, "The
# floor"): starts BIN on a fresh Postgres database and, with wrk (16
# connections, 2 s warm-up, 8 s measured), divides its CPU time
# (/proc/<pid>/stat) by the requests wrk made, for GET /healthz (no
# database) and GET /readyz (one statement on a pooled connection).
#
#   tools/cpu_floor.sh target/release/kaarttafel
#
# Needs wrk (Debian's package) and a Postgres server in TEST_DATABASE_URL.
set -euo pipefail
bin=$1
admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=kt_floor_$$
psql "$admin" -qc "CREATE DATABASE $db" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATABASE_URL="${admin%/*}/$db" PORT=$port RUST_LOG=warn RATE_LIMITS=off "$bin" >/dev/null 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
}
trap cleanup EXIT
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.5; done
cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
for path in /healthz /readyz; do
    wrk -t1 -c16 -d2s "http://127.0.0.1:$port$path" >/dev/null
    c0=$(cpu)
    report=$(wrk -t1 -c16 -d8s "http://127.0.0.1:$port$path")
    c1=$(cpu)
    count=$(echo "$report" | awk '/requests in/ {print $1}')
    python3 -c "print(f'$path: {($c1 - $c0) / $(getconf CLK_TCK) * 1000 / $count:.4f} ms CPU per request, {$count} requests in 8 s')"
done
