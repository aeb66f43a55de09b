#!/usr/bin/env bash
# The service's user-space instructions per request, counted by callgrind:
# for A/B comparisons of two builds that the shared machine's noise hides
# from CPU time (docs/benchmarks.md, "LISTEN only while someone waits,
# card codes from a table, the floor"). Starts BIN under valgrind on a
# fresh Postgres database, warms up with 300 moves,
# then counts the instructions of MOVES moves at 8 tables (each a new
# 16-deal match unless the arguments say otherwise) and divides them by the
# requests its /metrics counted. The same build and arguments give the same
# count within about 2 % (the deals are random, and how far each
# table gets sets how many finished records each request reads).
#
#   tools/instructions_per_request.sh target/release/kaarttafel 4000 --deals 16
#
# The server logs at warn; SERVER_RUST_LOG=info counts it at a real
# instance's default level (tools/fresh_server.sh).
# Arguments after MOVES go to the load generator. KEEP=DIR keeps the
# callgrind output there (callgrind_annotate reads it). VECTOR_COPIES=1
# has glibc copy and clear memory with its vector loops at every size:
# callgrind counts each byte of a `rep movsb` as an instruction, which
# inflates the count of large copies (docs/benchmarks.md, "The stack's
# floor at a move's pace, field names written as they are"). Needs valgrind and a
# Postgres server in TEST_DATABASE_URL (default the local one); kernel time
# is not counted.
set -euo pipefail
bin=$1; moves=$2; shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
loadgen=${LOADGEN_BIN:-$root/target/release/examples/loadgen}
out=$(mktemp -d)
. "$root/tools/fresh_server.sh"
if [ -n "${VECTOR_COPIES:-}" ]; then
    export GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1000000000:glibc.cpu.x86_rep_stosb_threshold=1000000000
fi
cleanup() {
    stop_server
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$out"/callgrind.out* "$KEEP"/; fi
    rm -rf "$out"
}
trap cleanup EXIT
server_log=$out/server.log start_server "$bin" \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/callgrind.out"
"$loadgen" --url "http://127.0.0.1:$port" --tables 8 --seconds 600 --max-moves 300 "$@" >/dev/null
r0=$(requests)
callgrind_control -i on "$server" >/dev/null 2>&1
"$loadgen" --url "http://127.0.0.1:$port" --tables 8 --seconds 600 --max-moves "$moves" "$@" >/dev/null
callgrind_control -i off "$server" >/dev/null 2>&1
r1=$(requests)
callgrind_control -d "$server" >/dev/null 2>&1
sleep 1
total=$(cat "$out"/callgrind.out.* | awk '/^summary:|^totals:/ {s += $2} END {print s}')
python3 -c "print(f'{$total / ($r1 - $r0):,.0f} instructions per request ({$r1 - $r0} requests, {$total:,} in all)')"
