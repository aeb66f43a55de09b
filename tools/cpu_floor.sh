#!/usr/bin/env bash
# What the service's process cannot go below on this machine, without any
# game (docs/benchmarks.md, "LISTEN only while someone waits, card codes
# from a table, the floor" and "The stack's floor at a move's pace"):
#
# 1. BIN on a fresh Postgres database under wrk (16 connections, 2 s
#    warm-up, 8 s measured): its CPU time (/proc/<pid>/stat) divided by the
#    requests wrk made, for GET /healthz (no database) and GET /readyz (one
#    statement on a pooled connection), as fast as they go.
# 2. The floor server (examples/floor.rs: the service's HTTP server, store
#    and allocator, no game) at a move's pace: a move's two requests in turn
#    (tools/floor_move.lua: one statement, then two), each statement
#    keeping Postgres as busy as WORK rows of generate_series do. WORK=0
#    goes as fast as it can; WORK=4000 set this machine's 2 cores at about
#    a real move's pace (4,000-5,000 requests/s). Compare its CPU per move
#    with tools/cpu_per_request.sh's per request times two.
#
#   tools/release_build.sh
#   tools/cpu_floor.sh target/release/kaarttafel
#
# FLOOR_BIN: the floor server (default target/release/examples/floor; the
# second part is left out when it is not built). FLOOR_WORK: the WORK
# values (default "0 4000"). Needs wrk (Debian's package) and a Postgres
# server in TEST_DATABASE_URL.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
floor=${FLOOR_BIN:-$root/target/release/examples/floor}
. "$root/tools/fresh_server.sh"
trap stop_server EXIT

# measure LABEL REQUESTS_PER_UNIT UNIT WRK_ARGUMENTS...: the server's CPU per
# request (and per UNIT of REQUESTS_PER_UNIT requests), user and system.
measure() {
    local label=$1 per=$2 unit=$3
    shift 3
    wrk -t1 -c16 -d2s "$@" >/dev/null
    local u0 s0 u1 s1 report count
    read -r u0 s0 < <(cpu_split)
    report=$(wrk -t1 -c16 -d8s "$@")
    read -r u1 s1 < <(cpu_split)
    count=$(echo "$report" | awk '/requests in/ {print $1}')
    python3 -c "
tick, n, per = $(getconf CLK_TCK), $count, $per
user, system = ($u1 - $u0) / tick * 1000 / n, ($s1 - $s0) / tick * 1000 / n
line = f'$label: {user + system:.4f} ms CPU per request (user {user:.4f}, system {system:.4f}), {n} requests in 8 s'
if per > 1:
    line += f'; {(user + system) * per:.4f} ms per $unit'
print(line)"
}

start_server "$bin"
for path in /healthz /readyz; do
    measure "$path" 1 request "http://127.0.0.1:$port$path"
done
stop_server
if [ ! -x "$floor" ]; then
    echo "no floor server at $floor (tools/release_build.sh): its part left out" >&2
    exit 0
fi
for work in ${FLOOR_WORK:-0 4000}; do
    WORK=$work start_server "$floor"
    measure "floor server, WORK=$work" 2 move -s "$root/tools/floor_move.lua" "http://127.0.0.1:$port"
    stop_server
done
