#!/usr/bin/env bash
# The service's user-space instructions per request, counted by callgrind:
# for A/B comparisons of two builds that the shared machine's noise hides
# from CPU time (docs/benchmarks.md, "Instructions per request"). Starts BIN
# under valgrind on a fresh Postgres database, warms up with 300 moves,
# then counts the instructions of MOVES moves at 8 tables (each a new
# 16-deal match unless the arguments say otherwise) and divides them by the
# requests its /metrics counted. The same build and arguments give the same
# count within about 1 % (the deals are random).
#
#   tools/instructions_per_request.sh target/release/kaarttafel 4000 --deals 16
#
# Arguments after MOVES go to the load generator. KEEP=DIR keeps the
# callgrind output there (callgrind_annotate reads it). Needs valgrind and a
# Postgres server in TEST_DATABASE_URL (default the local one); kernel time
# is not counted.
set -euo pipefail
bin=$1; moves=$2; shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
loadgen=${LOADGEN_BIN:-$root/target/release/examples/loadgen}
admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=kt_instr_$$
out=$(mktemp -d)
psql "$admin" -qc "CREATE DATABASE $db" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATABASE_URL="${admin%/*}/$db" PORT=$port RUST_LOG=warn RATE_LIMITS=off \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/callgrind.out" \
    "$bin" >"$out/server.log" 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$out"/callgrind.out* "$KEEP"/; fi
    rm -rf "$out"
}
trap cleanup EXIT
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.5; done
"$loadgen" --url "http://127.0.0.1:$port" --tables 8 --seconds 600 --max-moves 300 "$@" >/dev/null
requests() {
    curl -s "http://127.0.0.1:$port/metrics" | awk '/^kaarttafel_http_requests_total/ {s += $2} END {print s}'
}
r0=$(requests)
callgrind_control -i on "$server" >/dev/null 2>&1
"$loadgen" --url "http://127.0.0.1:$port" --tables 8 --seconds 600 --max-moves "$moves" "$@" >/dev/null
callgrind_control -i off "$server" >/dev/null 2>&1
r1=$(requests)
callgrind_control -d "$server" >/dev/null 2>&1
sleep 1
total=$(cat "$out"/callgrind.out.* | awk '/^summary:|^totals:/ {s += $2} END {print s}')
python3 -c "print(f'{$total / ($r1 - $r0):,.0f} instructions per request ({$r1 - $r0} requests, {$total:,} in all)')"
