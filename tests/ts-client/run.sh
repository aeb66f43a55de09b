#!/usr/bin/env bash
# The typed TypeScript client and the /play page, end to end: installs the
# pinned packages (npm ci), generates the types from openapi/openapi.json
# (openapi-typescript), type-checks the Node play script and the page's own
# scripts against them (tsc --checkJs), starts the server on a fresh SQLite
# file (the release binary when current, else the debug one CI already
# built), plays a Klaverjassen deal and a Potverteren round through
# openapi-fetch (play.mjs), and plays on /play in Debian's Chromium under
# PATH_PREFIX=/cards (browser.mjs: Klaverjassen with house rules,
# Potverteren, a friend joining by invite code; with axe-core), then again
# behind nginx (deploy/nginx.conf) with the same prefix (skipped with
# NO_BROWSER=1). Screenshots land in target/ci-artifacts/play*.png. Exits non-zero on any
# failure; the server is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
repo=$(cd ../.. && pwd)
target="${CARGO_TARGET_DIR:-$repo/target}"

work=$(mktemp -d)
server_pid=""
cleanup() {
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# 1. Packages, exactly as locked; the types from the committed document.
npm ci --no-audit --no-fund
npm run --silent generate
npm run --silent check
echo "ok   tsc: play.mjs and src/http/play/*.js type-check against the generated types"

# 2. The server: whichever build is newest (CI built both before this step).
binary="$target/debug/kaarttafel"
if [ -x "$target/release/kaarttafel" ] && [ "$target/release/kaarttafel" -nt "$binary" ]; then
    binary="$target/release/kaarttafel"
fi
[ -x "$binary" ] || (cd "$repo" && cargo build --locked)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env -u JWT_SECRET DATABASE_URL="sqlite:$work/kaarttafel.db" HOST=127.0.0.1 PORT="$port" PATH_PREFIX=/cards \
    METRICS_ADDR=off RATE_LIMITS=off RUST_LOG=warn "$binary" >"$work/server.log" 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port/cards"
for _ in $(seq 100); do
    curl -sf "$url/readyz" >/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
curl -sf "$url/readyz" >/dev/null || { echo "the service did not become ready"; cat "$work/server.log"; exit 1; }
echo "server: $binary at $url"

# 3. Both games through the typed client, then the page in a browser.
status=0
KAARTTAFEL_URL="$url" node play.mjs || status=$?
if [ "${NO_BROWSER:-}" != 1 ]; then
    if [ ! -x /usr/bin/chromium ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq chromium >/dev/null
    fi
    node browser.mjs "$url" "$target/ci-artifacts/play.png" || status=$?

    # The same page behind nginx (deploy/nginx.conf, its upstream this one
    # server), under the prefix: the live stream and the invite through it.
    command -v nginx >/dev/null || {
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null
    }
    proxy_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$repo/tests/proxy/nginx_conf.sh" "$port" "$port" "$proxy_port" "$work" >"$work/nginx.conf"
    nginx -c "$work/nginx.conf" -p "$work" -e "$work/nginx-error.log"
    node browser.mjs "http://127.0.0.1:$proxy_port/cards" "$target/ci-artifacts/play-nginx.png" || status=$?
fi
[ "$status" -eq 0 ] || { echo "--- server log"; tail -n 40 "$work/server.log"; }
exit "$status"
