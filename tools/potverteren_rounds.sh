#!/usr/bin/env bash
# CPU per accepted change at Potverteren tables as they grow, round after
# round (docs/performance.md): starts BIN on a fresh Postgres database,
# plays 16 Potverteren tables with the load generator for SECONDS (default
# 150; its tables never end), and every 15 s prints the tables' mean settled rounds, the mean bytes
# of their settled rounds' records, the changes accepted in the window (the
# sum of the games' versions) and the CPU per change of the server and of
# all Postgres processes (/proc/<pid>/stat, user and system).
#
#   tools/potverteren_rounds.sh target/release/kaarttafel [SECONDS]
#
# Needs a Postgres server in TEST_DATABASE_URL (default the local one) on
# this machine, and the load generator in LOADGEN_BIN (default
# target/release/examples/loadgen).
set -euo pipefail
bin=$1
seconds=${2:-150}
root=$(cd "$(dirname "$0")/.." && pwd)
loadgen=${LOADGEN_BIN:-$root/target/release/examples/loadgen}
# shellcheck source=tools/fresh_server.sh
source "$root/tools/fresh_server.sh"
trap 'kill "${loader:-}" 2>/dev/null || true; stop_server' EXIT
start_server "$bin"
url="${admin%/*}/$db"
tick=$(getconf CLK_TCK)

# utime + stime of the processes given, in seconds.
cpu_of() {
    local total=0 pid fields
    for pid in "$@"; do
        fields=$(cut -d')' -f2- "/proc/$pid/stat" 2>/dev/null) || continue
        total=$((total + $(awk '{print $12 + $13}' <<<"$fields")))
    done
    awk -v t="$total" -v k="$tick" 'BEGIN {print t / k}'
}
postgres_cpu() {
    # Every Postgres process, so the backends of connections made in the
    # window count too (a backend that exited in it is lost: the pool keeps
    # its connections).
    cpu_of $(pgrep -x postgres || true)
}
sql() { psql -qtAX "$url" -c "$1"; }

"$loadgen" --url "http://127.0.0.1:$port" --game potverteren --tables 16 \
    --seconds "$seconds" >/dev/null 2>&1 &
loader=$!
sleep 5
service0=$(cpu_of "$server"); postgres0=$(postgres_cpu)
version0=$(sql "SELECT COALESCE(sum(version), 0) FROM games")
printf '%8s %14s %9s %16s %17s\n' rounds "records, bytes" changes "service ms/chg" "Postgres ms/chg"
while sleep 15 && kill -0 "$loader" 2>/dev/null; do
    service1=$(cpu_of "$server"); postgres1=$(postgres_cpu)
    version1=$(sql "SELECT COALESCE(sum(version), 0) FROM games")
    rounds=$(sql "SELECT round(avg(deals_stored), 1) FROM games WHERE status = 'playing'")
    bytes=$(sql "SELECT round(avg(s)) FROM (SELECT sum(length(record)) s FROM game_deals GROUP BY game_id) x")
    awk -v r="$rounds" -v b="$bytes" -v c=$((version1 - version0)) \
        -v s="$(awk -v a="$service0" -v b="$service1" 'BEGIN {print b - a}')" \
        -v p="$(awk -v a="$postgres0" -v b="$postgres1" 'BEGIN {print b - a}')" \
        'BEGIN {if (c < 1) c = 1; printf "%8s %14s %9d %16.3f %17.3f\n", r, b, c, s / c * 1000, p / c * 1000}'
    service0=$service1; postgres0=$postgres1; version0=$version1
done
wait "$loader" || true
