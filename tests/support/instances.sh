# Sourced by the scripts that run two release instances on one fresh
# Postgres database (tests/instances, tests/notifications, tests/proxy): the database,
# the binary, free ports, the instances started and waited for, and
# everything stopped and dropped on exit.
#
#   source tests/support/instances.sh
#   fresh_database kt_name        # sets work, database, db_url; the trap
#   port_a=$(free_port); port_b=$(free_port)
#   SOME_SETTING=1 start_instance "$port_a"   # env before the call reaches it
#   wait_ready "$port_a" "$port_b"            # ready_path=/prefix/readyz behind a PATH_PREFIX
#
# Needs TEST_DATABASE_URL; KAARTTAFEL_BINARY names another build to check
# instead of the release build (a no-op after an earlier step made it).

: "${TEST_DATABASE_URL:?set TEST_DATABASE_URL to a Postgres server URL}"
pids=()

cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}

# A database of its own named after $1, and a work directory, both gone on exit.
fresh_database() {
    work=$(mktemp -d)
    database="$1_$(date +%s)_$$"
    trap cleanup EXIT
    psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $database"
    db_url="${TEST_DATABASE_URL%/*}/$database"
}

binary=${KAARTTAFEL_BINARY:-}
if [ -z "$binary" ]; then
    cargo build --release --locked
    binary=target/release/kaarttafel
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# An instance on port $1 on the fresh database, its log in $work; settings
# given in the environment of the call come first in its own (METRICS_ADDR
# and WORKERS too: off and 2 unless given).
start_instance() {
    DATABASE_URL="$db_url" PORT="$1" METRICS_ADDR="${METRICS_ADDR:-off}" RATE_LIMITS=off \
        JWT_SECRET="${JWT_SECRET:-ci-instances-secret-0123456789abcdef01}" SHUTDOWN_TIMEOUT=10 \
        LOG_FORMAT=json WORKERS="${WORKERS:-2}" "$binary" >"$work/instance-$1.log" 2>&1 &
    pids+=("$!")
}

# Waits up to 15 s for each port's readiness ($ready_path, /readyz unless
# set); the logs and a failure otherwise.
wait_ready() {
    local url
    for port in "$@"; do
        url="http://127.0.0.1:$port${ready_path:-/readyz}"
        for _ in $(seq 150); do
            curl -sf "$url" >/dev/null && break
            sleep 0.1
        done
        curl -sf "$url" >/dev/null || { cat "$work"/instance-*.log; exit 1; }
    done
}
