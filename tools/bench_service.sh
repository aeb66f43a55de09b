#!/usr/bin/env bash
# The service side by side with pgbench running the service's own per-move and
# per-read SQL (tools/pgbench/*.sql) against the same database and game rows,
# on Postgres and on SQLite, in alternating rounds. See docs/performance.md.
#
#   tools/bench_service.sh                       # 16 clients, 3 x 20 s rounds, both backends
#   tools/bench_service.sh --seconds 2 --rounds 1 --warmup 1   # a smoke run
#   tools/bench_service.sh --backends postgres               # Postgres only
#
# Needs pgbench and psql, and a Postgres server in TEST_DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/postgres, trust auth); the bench creates
# and drops a database of its own there. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
# The server is the release build deploy/Dockerfile and CI make; the load
# generator is built apart, so its dev-dependencies leave the server as it is.
cargo build --release --locked
cargo build --release --locked --example loadgen
exec python3 tools/bench_service.py "$@"
