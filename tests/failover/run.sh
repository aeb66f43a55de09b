#!/usr/bin/env bash
# Database failover under load, on this machine's loopback only: a
# pg_auto_failover formation of its own (a monitor and two Postgres nodes
# with synchronous replication, on free ports, in a temp dir), two release
# instances whose DATABASE_URL lists both nodes, nginx in front, load from
# tables of computer players (a person's seat played by
# tests/failover/failover.py) and from the load generator
# (examples/loadgen.rs, which logs every acknowledged move). Then
# `pg_autoctl perform failover`, and the primary node killed with SIGKILL
# (its postgres and its pg_autoctl). Checks from the clients' own logs
# against the database that no acknowledged move was lost or applied
# twice, that no instance was restarted and none answered 500; prints the
# time without a primary and until moves succeed again. Bounded (about
# two minutes after the build); exits non-zero on failure.
#
# Needs: Postgres binaries, python3, nginx; pg_auto_failover
# (postgresql-NN-auto-failover, pg-auto-failover-cli) is installed with
# apt-get when missing (as root, as CI runs). pg_autoctl refuses root, so
# as root the formation runs as the `postgres` user.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

major=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)
bin=/usr/lib/postgresql/$major/bin
[ -x "$bin/initdb" ] || { echo "no Postgres binaries under /usr/lib/postgresql"; exit 1; }
missing=()
command -v pg_autoctl >/dev/null || missing+=(pg-auto-failover-cli)
ls /usr/lib/postgresql/"$major"/lib/pgautofailover.so >/dev/null 2>&1 \
    || missing+=("postgresql-$major-auto-failover")
command -v nginx >/dev/null || missing+=(nginx-light)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "missing ${missing[*]}: install them (apt-get, as root)"; exit 1; }
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
chmod 755 "$work"
owner=$(id -un)
as_owner=()
if [ "$(id -u)" = 0 ]; then owner=postgres; as_owner=(runuser -u postgres --); fi
mkdir -p "$work/pgaf"
chown "$owner" "$work/pgaf"
# pg_autoctl keeps its configuration and state under XDG_*_HOME: here, in
# the temp dir, not in the user's home.
autoctl=("${as_owner[@]}" env XDG_CONFIG_HOME="$work/pgaf/config" XDG_DATA_HOME="$work/pgaf/data"
         PATH="$bin:$PATH" pg_autoctl)
groups=()
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    # Each pg_autoctl runs in a process group of its own, with its postgres.
    for group in "${groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null || true; done
    wait 2>/dev/null || true
    # FAILOVER_LOGS=DIR keeps the logs (instances, nginx, pg_autoctl, clients).
    if [ -n "${FAILOVER_LOGS:-}" ]; then
        mkdir -p "$FAILOVER_LOGS" && cp "$work"/*.log "$work"/pgaf/*.log "$work"/loadgen.err "$FAILOVER_LOGS"/ 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# The release build .ci/run made (a no-op then), or KAARTTAFEL_BINARY; and
# the load generator `cargo test` built.
binary=${KAARTTAFEL_BINARY:-}
if [ -z "$binary" ]; then
    cargo build --release --locked
    binary=$root/target/release/kaarttafel
fi
loadgen=${LOADGEN_BIN:-$root/target/debug/examples/loadgen}
[ -x "$loadgen" ] || cargo build --locked --example loadgen

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port_monitor=$(free_port); port_1=$(free_port); port_2=$(free_port)
monitor="postgres://autoctl_node@127.0.0.1:$port_monitor/pg_auto_failover?sslmode=disable"
# Each statement on its own (ALTER SYSTEM takes no transaction block).
sql() { psql "postgres://$owner@127.0.0.1:$1/$2?sslmode=disable" -qtA -v ON_ERROR_STOP=1 -f - <<<"$3"; }
state() { "${autoctl[@]}" show state --pgdata "$work/pgaf/monitor" 2>/dev/null || true; }
wait_for() {  # seconds, description, command...
    local seconds=$1 what=$2; shift 2
    for _ in $(seq $((seconds * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
    echo "FAIL $what within $seconds s"; state; tail -n 20 "$work"/pgaf/*.log; exit 1
}
started=$SECONDS

# The monitor, with health checks every second, a node unhealthy after 2 s
# (the defaults, 5 s and 20 s, make a dead primary's failover take half a
# minute; docs/performance.md says what the settings trade).
setsid "${autoctl[@]}" create monitor --pgdata "$work/pgaf/monitor" --pgport "$port_monitor" \
    --pgctl "$bin/pg_ctl" --hostname 127.0.0.1 --auth trust --no-ssl --run \
    >"$work/pgaf/monitor.log" 2>&1 &
groups+=("$!")
wait_for 60 "the monitor answers" sql "$port_monitor" pg_auto_failover 'select 1'
sql "$port_monitor" pg_auto_failover "
    ALTER SYSTEM SET pgautofailover.health_check_period = 1000;
    ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000;
    ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1;
    ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500;
    ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 2000;
    SELECT pg_reload_conf();" >/dev/null

node() {  # name, port
    setsid "${autoctl[@]}" create postgres --pgdata "$work/pgaf/$1" --pgport "$2" --pgctl "$bin/pg_ctl" --listen 127.0.0.1 \
        --hostname 127.0.0.1 --name "$1" --auth trust --no-ssl --dbname kaarttafel \
        --monitor "$monitor" --run >"$work/pgaf/$1.log" 2>&1 &
    groups+=("$!")
}
node node1 "$port_1"
monitor_says() { [ "$(sql "$port_monitor" pg_auto_failover "$1")" = "$2" ]; }
wait_for 90 "node1 runs as a single primary" \
    monitor_says "select count(*) from pgautofailover.node where nodename = 'node1' and reportedstate = 'single'" 1
# No fsync (a test's data need not outlive the machine; replication is
# still synchronous), and checkpoints not spread out: the standby's base
# backup waits for one.
sql "$port_1" kaarttafel "
    ALTER SYSTEM SET fsync = off;
    ALTER SYSTEM SET checkpoint_completion_target = 0;
    SELECT pg_reload_conf();" >/dev/null
sql "$port_1" kaarttafel 'CHECKPOINT' >/dev/null
node node2 "$port_2"
wait_for 120 "node2 runs as the synchronous standby" \
    monitor_says "select count(*) from pgautofailover.node where reportedstate = goalstate and reportedstate in ('primary', 'secondary')" 2
# A primary cut off from the monitor and the standby stops taking writes
# after 3 s (network_partition_timeout, default 20 s), so the monitor lets
# the promoted standby take writes after 5 s (primary_demote_timeout,
# default 30 s) instead of half a minute.
for name in node1 node2; do
    "${autoctl[@]}" config set --pgdata "$work/pgaf/$name" timeout.network_partition_timeout 3 >/dev/null
    "${autoctl[@]}" reload --pgdata "$work/pgaf/$name" >/dev/null
done
sql "$port_monitor" pg_auto_failover "
    ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000;
    SELECT pg_reload_conf();" >/dev/null
echo "formation up in $((SECONDS - started)) s: node1 127.0.0.1:$port_1 (primary), node2 127.0.0.1:$port_2; synchronous_standby_names = $(sql "$port_1" kaarttafel 'show synchronous_standby_names')"

# Two instances listing both nodes, as libpq lists hosts.
database_url="postgres://$owner@127.0.0.1:$port_1,127.0.0.1:$port_2/kaarttafel?target_session_attrs=read-write&sslmode=disable"
port_a=$(free_port); port_b=$(free_port); port_proxy=$(free_port)
for port in "$port_a" "$port_b"; do
    DATABASE_URL="$database_url" PORT="$port" METRICS_ADDR=off PATH_PREFIX=/cards TRUSTED_PROXIES=127.0.0.1 RATE_LIMITS=off \
        JWT_SECRET=ci-failover-secret-0123456789abcdef012 LOG_FORMAT=json WORKERS=2 \
        "$binary" >"$work/instance-$port.log" 2>&1 &
    pids+=("$!")
done
for port in "$port_a" "$port_b"; do
    wait_for 30 "instance on $port ready" curl -sf "http://127.0.0.1:$port/cards/readyz"
done

# deploy/nginx.conf with the upstream pointed at the two local instances.
tests/proxy/nginx_conf.sh "$port_a" "$port_b" "$port_proxy" "$work" >"$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work" -e "$work/nginx-error.log"

PROXY_URL="http://127.0.0.1:$port_proxy" \
DIRECT_URLS="http://127.0.0.1:$port_a/cards http://127.0.0.1:$port_b/cards" \
INSTANCE_PIDS="${pids[*]}" \
NODE_PORTS="$port_1 $port_2" NODE_GROUPS="${groups[1]} ${groups[2]}" \
PG_USER="$owner" MONITOR_URL="postgres://$owner@127.0.0.1:$port_monitor/pg_auto_failover?sslmode=disable" \
AUTOCTL="${autoctl[*]}" MONITOR_PGDATA="$work/pgaf/monitor" \
LOADGEN="$loadgen" WORK="$work" \
    python3 tests/failover/failover.py || {
        echo "--- formation"; state
        echo "--- instance logs (last 15 lines each)"; tail -n 15 "$work"/instance-*.log
        exit 1
    }
echo "tests/failover: passed in $((SECONDS - started)) s after the build"
