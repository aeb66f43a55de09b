#!/usr/bin/env bash
# The service's CPU per request under load, for A/B comparisons of two
# builds (docs/performance.md): starts BIN on a fresh Postgres database,
# plays 16 tables with the load generator for 14 s, and divides the CPU
# time the server used (/proc/<pid>/stat: user and system, and their sum)
# in a 10 s window after the first 3 s by the requests its /metrics counted
# in that window; and the context switches of its threads in that window
# per request (/proc/<pid>/task/*/status).
#
#   tools/cpu_per_request.sh target/release/kaarttafel --deals 16
#   tools/cpu_per_request.sh /tmp/old-kaarttafel --deals 16 --reads
#
# Arguments after BIN go to the load generator. PERF=1 records a profile of
# the window instead (perf record, DWARF call graphs, into perf.data;
# PERF_HZ samples per second, default 499).
# Needs a Postgres server in TEST_DATABASE_URL (default the local one).
set -euo pipefail
bin=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
loadgen=${LOADGEN_BIN:-$root/target/release/examples/loadgen}
. "$root/tools/fresh_server.sh"
trap stop_server EXIT
start_server "$bin"
"$loadgen" --url "http://127.0.0.1:$port" --tables 16 --seconds 14 "$@" >/dev/null &
client=$!
sleep 3
read -r u0 s0 < <(cpu_split); read -r v0 n0 < <(switches); r0=$(requests)
if [ -n "${PERF:-}" ]; then
    perf record -F ${PERF_HZ:-499} --call-graph dwarf,16384 -o perf.data -p "$server" -- sleep 10 >/dev/null 2>&1
else
    sleep 10
fi
read -r u1 s1 < <(cpu_split); read -r v1 n1 < <(switches); r1=$(requests)
wait "$client" || true
python3 -c "
tick, requests = $(getconf CLK_TCK), max(1, $r1 - $r0)
user, system = ($u1 - $u0) / tick * 1000 / requests, ($s1 - $s0) / tick * 1000 / requests
print(f'{user + system:.3f} ms CPU per request (user {user:.4f}, system {system:.4f}), {requests} requests in 10 s')
print(f'{($v1 - $v0) / requests:.2f} voluntary and {($n1 - $n0) / requests:.2f} involuntary context switches per request')"
