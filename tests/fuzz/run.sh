#!/usr/bin/env bash
# Schema fuzzing: schemathesis (pinned) against a release instance on a
# fresh Postgres database, every phase that applies, bounded in time; any
# failure fails CI. Needs TEST_DATABASE_URL (a Postgres server URL) and the
# release binary (built here if missing; CI's proxy check builds it first).
#
# Left out, and why:
# - GET /v1/games/{id}/stream: an event stream never ends by design, so no
#   check could read a whole answer.
# - Rate limits are off (RATE_LIMITS=off): the fuzzer sends thousands of
#   requests from one address by design; tests/api/limits.rs covers them.
# Every check runs (`--checks all`) except:
# - positive_data_acceptance (ST202): the API refuses schema-valid requests
#   by state and meaning that no schema can express: a stale If-Match (412),
#   a reused Idempotency-Key with another body (422), an opaque cursor that
#   the service did not give out, timeout_s without wait_for_version, a move
#   out of turn (422 with the rule's code). Each is a documented answer.
# The response-time check allows 65 s: a long poll waits up to 60 s by design.
# One worker: with two, hypothesis (a dependency of schemathesis) parses
# lambda sources with `ast.parse` in both threads at once, and CPython 3.11.7
# (this machine's) keeps one AST recursion counter for all threads, so the
# run could die with "AST constructor recursion depth mismatch", a crash of
# the tool that says nothing about the API (seen once in CI, 2026-12-01).
set -euo pipefail
cd "$(dirname "$0")/../.."

SCHEMATHESIS_VERSION=4.32.5
MAX_TIME="${FUZZ_MAX_TIME:-150}"
venv="target/schemathesis-venv"
binary="target/release/kaarttafel"
: "${TEST_DATABASE_URL:?set TEST_DATABASE_URL to a Postgres server URL}"

if ! "$venv/bin/st" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
[ -x "$binary" ] || cargo build --release --locked

work=$(mktemp -d)
server_pid=""
db="kt_fuzz_$(date +%s)_$$"
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    psql "$TEST_DATABASE_URL" -qtAc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

psql "$TEST_DATABASE_URL" -qtAc "CREATE DATABASE $db" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DATABASE_URL="${TEST_DATABASE_URL%/*}/$db" HOST=127.0.0.1 PORT="$port" METRICS_ADDR=off RATE_LIMITS=off \
    JWT_SECRET=fuzz-test-secret-0123456789abcdef0123 RUST_LOG=warn \
    "$binary" >"$work/server.log" 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$url/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "$url/readyz" >/dev/null || { cat "$work/server.log"; exit 1; }

token=$(curl -sf -X POST "$url/v1/players" -H 'Content-Type: application/json' \
    -d '{"name":"Fuzzer"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')

status=0
"$venv/bin/st" run "$url/openapi.json" \
    --url "$url" \
    --header "Authorization: Bearer $token" \
    --phases examples,coverage,fuzzing,stateful \
    --checks all \
    --exclude-checks positive_data_acceptance \
    --max-response-time 65 \
    --exclude-path '/v1/games/{id}/stream' \
    --max-time "$MAX_TIME" \
    --max-examples 40 \
    --request-timeout 70 \
    --workers 1 \
    --seed 13 \
    --warnings off \
    || status=$?
if [ "$status" -ne 0 ]; then
    echo "== server log (last 40 lines)"
    tail -n 40 "$work/server.log"
fi
exit "$status"
