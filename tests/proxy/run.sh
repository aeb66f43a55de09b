#!/usr/bin/env bash
# The real pieces: nginx (Debian's package) in front of two instances of the
# release binary sharing one Postgres, driven by tests/proxy/play.py.
# Needs: nginx, python3 with prometheus_client, and a Postgres server URL in
# TEST_DATABASE_URL (.ci/run provides all three). Everything listens on
# 127.0.0.1 only and is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/support/instances.sh
fresh_database kt_proxy
# nginx too is stopped on exit.
trap '[ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; cleanup' EXIT

port_a=$(free_port); port_b=$(free_port); port_proxy=$(free_port)
# Each instance's /metrics on an address of its own (METRICS_ADDR).
declare -A metrics_port=([$port_a]=$(free_port) [$port_b]=$(free_port))

# Both instances start at once: migrations must be safe under that. Each runs
# several workers (WORKERS=4, whatever the cores), so the SIGTERM check in
# play.py covers workers stopping one by one while others still serve.
for port in "$port_a" "$port_b"; do
    METRICS_ADDR="127.0.0.1:${metrics_port[$port]}" PATH_PREFIX=/cards TRUSTED_PROXIES=127.0.0.1 \
        JWT_SECRET=ci-proxy-secret-0123456789abcdef0123 WORKERS=4 start_instance "$port"
done
ready_path=/cards/readyz wait_ready "$port_a" "$port_b"

# deploy/nginx.conf with the upstream pointed at the two local instances.
tests/proxy/nginx_conf.sh "$port_a" "$port_b" "$port_proxy" "$work" >"$work/nginx.conf"
grep -q "127.0.0.1:$port_a" "$work/nginx.conf" && grep -q "127.0.0.1:$port_b" "$work/nginx.conf" \
    || { echo "deploy/nginx.conf: upstream servers not found"; exit 1; }
nginx -t -c "$work/nginx.conf" -p "$work" -e "$work/nginx-error.log"
nginx -c "$work/nginx.conf" -p "$work" -e "$work/nginx-error.log"

PROXY_URL="http://127.0.0.1:$port_proxy/cards" \
DIRECT_URLS="http://127.0.0.1:$port_a/cards http://127.0.0.1:$port_b/cards" \
METRICS_URLS="http://127.0.0.1:${metrics_port[$port_a]} http://127.0.0.1:${metrics_port[$port_b]}" \
INSTANCE_PIDS="${pids[0]} ${pids[1]}" \
INVITE_CODE_FILE="$work/invite-code" \
    python3 tests/proxy/play.py || { tail -n 20 "$work"/instance-*.log "$work"/nginx-error.log; exit 1; }

# The access log masks invite codes, and still logs the invite requests.
code=$(cat "$work/invite-code")
if grep -qi "$code" "$work/nginx-access.log"; then
    echo "FAIL the access log holds an invite code"; grep -i "$code" "$work/nginx-access.log"; exit 1
fi
grep -q '"POST /cards/v1/invites/\* HTTP' "$work/nginx-access.log" \
    || { echo "FAIL no masked invite request in the access log"; tail -n 5 "$work/nginx-access.log"; exit 1; }
echo "ok   the access log masks invite codes"

# The instance that got SIGTERM stopped by itself, cleanly.
if kill -0 "${pids[0]}" 2>/dev/null; then
    echo "the first instance did not stop after SIGTERM"; exit 1
fi
wait "${pids[0]}" && echo "first instance exited 0 after SIGTERM" || { echo "first instance exited non-zero"; exit 1; }
