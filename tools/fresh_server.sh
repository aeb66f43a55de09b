# Sourced by the tools that measure one server (cpu_per_request.sh,
# potverteren_rounds.sh) and by pgo.sh.
#
# start_server BIN [WRAPPER...] starts BIN (under WRAPPER, if given: say
# `env` with variables of its own) on a fresh database of the Postgres server in
# TEST_DATABASE_URL (default the local one), or on SERVER_DATABASE_URL
# instead when that is set (an SQLite file, say), on a free port of 127.0.0.1,
# with its output in $server_log (default /dev/null), and returns once it
# answers /readyz. It sets `server` (the pid), `port` and `metrics_port`. stop_server stops
# it and drops the database; call it from the caller's EXIT trap.
# The server logs at SERVER_RUST_LOG (default warn, as the figures in
# docs/performance.md are measured; info is the default of a real instance).
admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=kt_tool_$$

start_server() {
    local bin=$1
    shift
    [ -n "${SERVER_DATABASE_URL:-}" ] || psql "$admin" -qc "CREATE DATABASE $db" >/dev/null
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    metrics_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    DATABASE_URL="${SERVER_DATABASE_URL:-${admin%/*}/$db}" PORT=$port METRICS_ADDR=127.0.0.1:$metrics_port \
        RUST_LOG=${SERVER_RUST_LOG:-warn} RATE_LIMITS=off \
        "$@" "$bin" >"${server_log:-/dev/null}" 2>&1 &
    server=$!
    for _ in $(seq 120); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && return 0
        sleep 0.5
    done
    echo "the server did not answer /readyz within 60 s" >&2
    return 1
}

stop_server() {
    if [ -n "${server:-}" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    psql "$admin" -q -c "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
}

# The requests the server's /metrics (on its METRICS_ADDR) has counted.
requests() {
    curl -s "http://127.0.0.1:$metrics_port/metrics" | awk '/^kaarttafel_http_requests_total/ {s += $2} END {print s}'
}

# The server's CPU time so far, in clock ticks (/proc/<pid>/stat).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }

# The same, as user and system time: two numbers.
cpu_split() { awk '{print $14, $15}' "/proc/$server/stat"; }

# The server's context switches so far over its threads, voluntary (it
# waited) and involuntary (it was put off its core): two numbers.
switches() {
    cat /proc/"$server"/task/*/status 2>/dev/null |
        awk '/^voluntary_ctxt_switches/ {v += $2} /^nonvoluntary_ctxt_switches/ {n += $2} END {print v + 0, n + 0}'
}
