#!/usr/bin/env bash
# What one HTTP exchange and one database round trip cost the service's
# process on this machine, without any game (docs/benchmarks.md, "LISTEN
# only while someone waits, card codes from a table, the floor"): starts
# BIN on a fresh Postgres database and, with wrk (16 connections, 2 s
# warm-up, 8 s measured), divides its CPU time (/proc/<pid>/stat) by the
# requests wrk made, for GET /healthz (no database) and GET /readyz (one
# statement on a pooled connection).
#
#   tools/cpu_floor.sh target/release/kaarttafel
#
# Needs wrk (Debian's package) and a Postgres server in TEST_DATABASE_URL.
set -euo pipefail
bin=$1
. "$(dirname "$0")/fresh_server.sh"
trap stop_server EXIT
start_server "$bin"
for path in /healthz /readyz; do
    wrk -t1 -c16 -d2s "http://127.0.0.1:$port$path" >/dev/null
    c0=$(cpu_ticks)
    report=$(wrk -t1 -c16 -d8s "http://127.0.0.1:$port$path")
    c1=$(cpu_ticks)
    count=$(echo "$report" | awk '/requests in/ {print $1}')
    python3 -c "print(f'$path: {($c1 - $c0) / $(getconf CLK_TCK) * 1000 / $count:.4f} ms CPU per request, {$count} requests in 8 s')"
done
