#!/usr/bin/env bash
# Exactly once across instances (docs/bots.md): two instances of the release
# binary on one Postgres (a fresh database on the server in
# TEST_DATABASE_URL), 40 Klaverjassen tables each of one person and three
# `basic` computer players, driven by tests/instances/play.py; then the same
# with the second instance killed with SIGKILL mid-run. Called by .ci/run
# right after tests/proxy/run.sh and reuses its release build. Everything
# listens on 127.0.0.1 only and is stopped on exit. TABLES, DEALS and
# KILL_AFTER (person moves before the kill) tune the size.
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/support/instances.sh
fresh_database kt_instances
port_a=$(free_port); port_b=$(free_port)
start_instance "$port_a"; start_instance "$port_b"
wait_ready "$port_a" "$port_b"

INSTANCE_URLS="http://127.0.0.1:$port_a http://127.0.0.1:$port_b" KILL_PID="${pids[1]}" \
    python3 tests/instances/play.py || { tail -n 20 "$work"/instance-*.log; exit 1; }

# The survivor is still up and ready.
curl -sf "http://127.0.0.1:$port_a/readyz" >/dev/null || { echo "the survivor is not ready"; exit 1; }
if kill -0 "${pids[1]}" 2>/dev/null; then echo "the second instance outlived SIGKILL"; exit 1; fi
echo "tests/instances: passed"
