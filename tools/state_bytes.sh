#!/usr/bin/env bash
# Bytes of game state written per move over one 16-deal Klaverjassen match
# (docs/performance.md): a Postgres trigger logs the length of games.state
# on every write and of every game_deals row inserted, while
# examples/loadgen plays one table to the end.
#
#   tools/state_bytes.sh [SERVER_BINARY] [LOADGEN_BINARY]
#
# Defaults: target/debug/kaarttafel and target/debug/examples/loadgen (the
# bytes do not depend on the build profile); give another build's binaries
# to compare. Needs psql and a Postgres server in TEST_DATABASE_URL
# (default postgres://postgres@127.0.0.1:5432/postgres); creates and drops
# a database of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
server=${1:-target/debug/kaarttafel}
loadgen=${2:-target/debug/examples/loadgen}
admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
name=kt_state_bytes_$$
url="${admin%/*}/$name"
port=${PORT:-18600}
psql -q "$admin" -c "CREATE DATABASE $name"
cleanup() {
    [[ -n "${pid:-}" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    psql -q "$admin" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)"
}
trap cleanup EXIT
# The schema first (the server applies its migrations), then the log.
PORT=$port DATABASE_URL=$url METRICS_ADDR=off RATE_LIMITS=off "$server" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
psql -q "$url" <<'SQL'
CREATE TABLE state_log (at BIGSERIAL, what TEXT, version BIGINT, deal INT, bytes BIGINT);
CREATE FUNCTION log_state() RETURNS trigger AS $$
BEGIN
  INSERT INTO state_log (what, version, deal, bytes) VALUES ('state', NEW.version,
    (NEW.state::jsonb #>> '{klaverjassen,deal_number}')::int, length(NEW.state));
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER log_state AFTER UPDATE ON games FOR EACH ROW WHEN (NEW.state IS NOT NULL) EXECUTE FUNCTION log_state();
DO $$ BEGIN
  IF to_regclass('game_deals') IS NOT NULL THEN
    CREATE FUNCTION log_deal() RETURNS trigger AS $f$
    BEGIN
      INSERT INTO state_log (what, version, bytes) VALUES ('deal', NEW.number, length(NEW.record));
      RETURN NEW;
    END $f$ LANGUAGE plpgsql;
    CREATE TRIGGER log_deal AFTER INSERT ON game_deals FOR EACH ROW EXECUTE FUNCTION log_deal();
  END IF;
END $$;
SQL
"$loadgen" --url "http://127.0.0.1:$port" --tables 1 --deals 16 --max-moves 543 --seconds 300 >/dev/null
psql -q "$url" <<'SQL'
\echo state rewritten per move, by deal (bytes of JSON)
SELECT deal, COUNT(*) AS moves, MIN(bytes), ROUND(AVG(bytes)) AS mean, MAX(bytes)
FROM state_log WHERE what = 'state' GROUP BY deal ORDER BY deal;
\echo whole match
SELECT COUNT(*) AS moves, MAX(bytes) AS max_state, ROUND(AVG(bytes)) AS mean_state, SUM(bytes) AS state_bytes
FROM state_log WHERE what = 'state';
SELECT COUNT(*) AS deal_rows, ROUND(AVG(bytes)) AS mean_deal_row, SUM(bytes) AS deal_bytes
FROM state_log WHERE what = 'deal';
SQL
