#!/usr/bin/env bash
# Proves that openapi/openapi.json is enough to integrate: generates a Python
# client from it with openapi-python-client (from PyPI, pinned), starts the
# release binary on a free port with a fresh SQLite file, and plays a
# Klaverjassen deal and a Potverteren round with nothing but the generated
# models and calls (tests/client/play.py). The generated code lives in a
# temporary folder and is never committed. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

GENERATOR_VERSION=0.29.1
target="${CARGO_TARGET_DIR:-target}"
venv="target/client-venv"          # kept between runs; pip caches the rest
binary="$target/release/kaarttafel"

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# 1. The generator, in a virtualenv of its own (reused when it has the pin).
if ! "$venv/bin/openapi-python-client" --version 2>/dev/null | grep -qx "openapi-python-client version: $GENERATOR_VERSION"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==$GENERATOR_VERSION" \
        python-dateutil  # the generated code parses date-times with it
fi
"$venv/bin/openapi-python-client" --version

# 2. The client, from the committed document; any generator warning fails.
"$venv/bin/openapi-python-client" generate --path openapi/openapi.json \
    --config tests/client/generator.yaml --meta none \
    --output-path "$work/client/kaarttafel_client" >"$work/generate.log" 2>&1 \
    || { cat "$work/generate.log"; exit 1; }
cat "$work/generate.log"
if grep -qi "warning" "$work/generate.log"; then
    echo "openapi-python-client warned about openapi/openapi.json"; exit 1
fi

# 3. The service: the release binary (a no-op build when current), on a free port.
cargo build --release --locked
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATABASE_URL="sqlite:$work/kaarttafel.db" HOST=127.0.0.1 PORT="$port" METRICS_ADDR=off RATE_LIMITS=off \
    JWT_SECRET=client-test-secret-0123456789abcdef0123 RUST_LOG=warn \
    "$binary" >"$work/server.log" 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 100); do
    curl -sf "$url/readyz" >/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
curl -sf "$url/readyz" >/dev/null || { echo "the service did not become ready"; cat "$work/server.log"; exit 1; }

# 4. Play, through the generated client only.
status=0
KAARTTAFEL_URL="$url" PYTHONPATH="$work/client" PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" tests/client/play.py || status=$?
[ "$status" -eq 0 ] || { echo "--- server log"; tail -n 40 "$work/server.log"; }
exit "$status"
