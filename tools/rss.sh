#!/usr/bin/env bash
# Resident memory of the release server, idle and after a load run
# (docs/performance.md): starts the server on a fresh
# database (BACKEND=postgres: a database on the server in TEST_DATABASE_URL,
# dropped at the end; BACKEND=sqlite: a file in a temporary folder), reads
# /proc/<pid>/status 2 s after /readyz answers, runs
# `loadgen --tables 16 --seconds 20`, reads it again, and stops the server.
#
#   BACKEND=postgres tools/rss.sh [server binary] [loadgen binary]
#
# Extra environment (WORKERS, MALLOC_ARENA_MAX, ...) is passed to the server.
# SMAPS=1 also prints the server's largest mappings by Rss when idle.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${1:-$ROOT/target/release/kaarttafel}
LOADGEN=${2:-$ROOT/target/release/examples/loadgen}
BACKEND=${BACKEND:-postgres}
SECONDS_LOAD=${SECONDS_LOAD:-20}
PORT=${PORT:-18390}
ADMIN=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DIR=$(mktemp -d)
DB=kt_rss_$$
if [ "$BACKEND" = postgres ]; then
  URL=${ADMIN%/*}/$DB
  psql "$ADMIN" -qX -c "CREATE DATABASE $DB"
else
  URL=sqlite:$DIR/rss.db
fi
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  if [ "$BACKEND" = postgres ]; then psql "$ADMIN" -qX -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)"; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
DATABASE_URL=$URL PORT=$PORT METRICS_ADDR=off RATE_LIMITS=off RUST_LOG=warn "$SERVER" >"$DIR/server.log" 2>&1 &
PID=$!
for _ in $(seq 300); do
  curl -sf -o /dev/null "http://127.0.0.1:$PORT/readyz" && break
  sleep 0.1
done
sleep 2
status() { grep -E 'VmRSS|VmHWM|RssAnon|RssFile|Threads' "/proc/$PID/status" | tr -s ' \t' ' ' | paste -sd' '; }
echo "$BACKEND idle:  $(status)  load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${SMAPS:-}" = 1 ]; then
  awk '/^[0-9a-f]+-[0-9a-f]+ /{name=$6; if(name=="") name="[anon " $1 "]"} /^Rss:/{rss[name]+=$2} END{for(n in rss) if(rss[n]>=256) printf "%8d kB  %s\n", rss[n], n}' "/proc/$PID/smaps" | sort -rn | head -20
fi
"$LOADGEN" --url "http://127.0.0.1:$PORT" --tables 16 --seconds "$SECONDS_LOAD" >"$DIR/loadgen.txt"
echo "$BACKEND after: $(status)  load $(cut -d' ' -f1-3 /proc/loadavg)  $(grep -m1 -i 'moves/s' "$DIR/loadgen.txt" || true)"
