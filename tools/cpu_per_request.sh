#!/usr/bin/env bash
# The service's CPU per request under load, for A/B comparisons of two
# builds (docs/benchmarks.md): starts BIN on a fresh Postgres database,
# plays 16 tables with the load generator for 14 s, and divides the CPU
# time the server used (/proc/<pid>/stat) in a 10 s window after the first
# 3 s by the requests its /metrics counted in that window.
#
#   tools/cpu_per_request.sh target/release/kaarttafel --deals 16
#   tools/cpu_per_request.sh /tmp/old-kaarttafel --deals 16 --reads
#
# Arguments after BIN go to the load generator. PERF=1 records a profile of
# the window instead (perf record, DWARF call graphs, into perf.data).
# Needs a Postgres server in TEST_DATABASE_URL (default the local one).
set -euo pipefail
bin=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
loadgen=${LOADGEN_BIN:-$root/target/release/examples/loadgen}
admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=kt_cpu_$$
psql "$admin" -qc "CREATE DATABASE $db" >/dev/null
log=$(mktemp)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATABASE_URL="${admin%/*}/$db" PORT=$port RUST_LOG=warn RATE_LIMITS=off "$bin" >"$log" 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
    rm -f "$log"
}
trap cleanup EXIT
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.5; done
"$loadgen" --url "http://127.0.0.1:$port" --tables 16 --seconds 14 "$@" >/dev/null &
client=$!
requests() {
    curl -s "http://127.0.0.1:$port/metrics" | awk '/^kaarttafel_http_requests_total/ {s += $2} END {print s}'
}
cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
sleep 3
c0=$(cpu); r0=$(requests)
if [ -n "${PERF:-}" ]; then
    perf record -F 499 --call-graph dwarf,16384 -o perf.data -p "$server" -- sleep 10 >/dev/null 2>&1
else
    sleep 10
fi
c1=$(cpu); r1=$(requests)
wait "$client" || true
python3 -c "
ticks, requests = $c1 - $c0, $r1 - $r0
print(f'{ticks / $(getconf CLK_TCK) * 1000 / max(1, requests):.3f} ms CPU per request, {requests} requests in 10 s')"
