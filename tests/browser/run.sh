#!/usr/bin/env bash
# Swagger UI in a real browser: Debian's Chromium, driven by playwright-core
# (never a downloaded browser), against the release binary, once at the root
# and once under PATH_PREFIX=/cards. Each run gets its own port and a fresh
# SQLite file; the service is stopped on exit. Screenshots land in
# target/ci-artifacts/swagger-<label>.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)

# Debian's chromium, if not already there.
if [ ! -x /usr/bin/chromium ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium
fi
# (Debian's wrapper script prints a harmless "[: ...: unexpected operator" on stderr.)
/usr/bin/chromium --version 2>/dev/null

# playwright-core only: it ships no browser and downloads none.
(
    cd tests/browser
    if [ -f package-lock.json ]; then
        npm ci --no-audit --no-fund
    else
        npm install --no-audit --no-fund
    fi
)

# The same build as deploy/Dockerfile; a no-op when the binary is current.
cargo build --release --locked
binary="${CARGO_TARGET_DIR:-target}/release/kaarttafel"

work=$(mktemp -d)
service_pid=""
stop_service() {
    if [ -n "$service_pid" ]; then
        kill -TERM "$service_pid" 2>/dev/null || true
        wait "$service_pid" 2>/dev/null || true
        service_pid=""
    fi
}
cleanup() {
    stop_service
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

failures=0
run_one() {
    local label=$1 prefix=$2
    local port db log base
    port=$(free_port)
    db="$work/kaarttafel-browser-$label-$$.db"
    log="$work/service-$label.log"
    base="http://127.0.0.1:$port$prefix"
    echo "== $label: $base (DATABASE_URL=sqlite:$db)"
    env -u JWT_SECRET HOST=127.0.0.1 PORT="$port" DATABASE_URL="sqlite:$db" PATH_PREFIX="$prefix" METRICS_ADDR=off RATE_LIMITS=off \
        "$binary" >"$log" 2>&1 &
    service_pid=$!
    for _ in $(seq 100); do
        curl -sf "$base/readyz" >/dev/null && break
        kill -0 "$service_pid" 2>/dev/null || break
        sleep 0.1
    done
    if ! curl -sf "$base/readyz" >/dev/null; then
        echo "service did not become ready at $base"; tail -n 20 "$log"
        stop_service; failures=$((failures + 1)); return
    fi
    if ! node tests/browser/swagger.mjs "$base" "$label"; then
        echo "-- service log ($label):"; tail -n 20 "$log"
        failures=$((failures + 1))
    fi
    stop_service
}

run_one root ""
run_one cards /cards

if [ "$failures" -ne 0 ]; then
    echo "swagger browser check: $failures run(s) failed"
    exit 1
fi
echo "swagger browser check: both runs passed; screenshots in $repo/target/ci-artifacts/"
