#!/usr/bin/env bash
# Fair deals end to end: the release binary on a fresh SQLite file, a whole
# Klaverjassen match and Potverteren rounds of both variants played over
# HTTP, each checked by tools/verify_deals.py (tests/fairness/play.py).
set -euo pipefail
cd "$(dirname "$0")/../.."

work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The same build as tests/proxy/run.sh (a no-op when that already ran).
cargo build --release --locked
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATABASE_URL="sqlite:$work/fair.db" PORT="$port" METRICS_ADDR=off RATE_LIMITS=off RUST_LOG=debug \
    target/release/kaarttafel >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { cat "$work/server.log"; exit 1; }
timeout 300 python3 tests/fairness/play.py "http://127.0.0.1:$port" "$work" "$work/server.log"
