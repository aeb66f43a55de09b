#!/usr/bin/env bash
# Notifications under faults (docs/notifications.md): two release instances
# on one Postgres (a fresh database on the server in TEST_DATABASE_URL), a
# webhook receiver of tests/notifications/faults.py, players each at a table
# with three computer players who move whenever told it is their turn.
# Phases: both instances deliver (no notification sent by both); the
# receiver down for 30 s and back (every notification arrives, each id
# acknowledged once); the second instance killed with SIGKILL while its
# deliveries hang, the first stopped meanwhile so that it holds none
# (nothing lost). Bounded (about two minutes after the
# build); everything listens on 127.0.0.1 and is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/support/instances.sh
fresh_database kt_notify
port_a=$(free_port); port_b=$(free_port); receiver_port=$(free_port)
for port in "$port_a" "$port_b"; do
    JWT_SECRET=ci-notify-secret-0123456789abcdef0123 NOTIFY_DELAY=0.2 NOTIFY_RETRY_MAX=2 \
        WEBHOOK_ALLOW_PRIVATE=1 BOT_MOVE_MS=0 start_instance "$port"
done
wait_ready "$port_a" "$port_b"

INSTANCE_URLS="http://127.0.0.1:$port_a http://127.0.0.1:$port_b" KILL_PID="${pids[1]}" KEEP_PID="${pids[0]}" \
RECEIVER_PORT="$receiver_port" \
    timeout 300 python3 tests/notifications/faults.py || { tail -n 20 "$work"/instance-*.log; exit 1; }
echo "tests/notifications: passed"
