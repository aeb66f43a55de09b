-- Fills a migrated kaarttafel Postgres database with :games finished
-- Klaverjassen games (4 seats each, :events events each, one game_deals row
-- each) and :games players, cloned from the real rows the load generator
-- left in the same database (the newest game with a finished deal is the
-- template for state, options, fairness and the deal record; event payloads
-- are the template game's own, in order). Used by tools/bench_scale.sh;
-- see docs/benchmarks.md, "Memory, SQLite latency and scale".
--
--   psql "$DB" -v games=1000000 -v events=10 -f tools/scale_fill.sql
--
-- Ids are md5-derived UUID text, as the service's are UUID text; times are
-- spread over the past year. Rows are inserted with the real primary keys
-- and indexes in place (no index rebuilt afterwards), like a year of play.
\set ON_ERROR_STOP on
SET synchronous_commit = off;
-- Rows go in in key order (sorted first), so each index is appended to
-- rather than written at random pages: minutes instead of hours at 10M rows.
SET work_mem = '256MB';

CREATE TEMP TABLE tpl AS
SELECT g.id, g.options, g.state, g.fairness,
       (SELECT record FROM game_deals d WHERE d.game_id = g.id ORDER BY number LIMIT 1) AS record
FROM games g
WHERE g.deals_stored >= 1
ORDER BY g.updated_at DESC
LIMIT 1;

DO $$ BEGIN
  IF (SELECT count(*) FROM tpl) = 0 THEN
    RAISE EXCEPTION 'no template: play at least one finished deal first (loadgen --deals 2)';
  END IF;
END $$;

CREATE TEMP TABLE tpl_events AS
SELECT row_number() OVER (ORDER BY seq) AS n, kind, payload, seat, actor
FROM game_events WHERE game_id = (SELECT id FROM tpl) AND kind IN ('deal', 'move');

\echo players
INSERT INTO players (id, name, created_at, token_generation, last_seen_at)
SELECT md5('p' || i)::uuid::text, 'filler ' || i,
       1733000000000000 + i * 10000, 0, 1733000000000000 + i * 10000
FROM generate_series(1::bigint, :games) i
ORDER BY 1;

\echo games
INSERT INTO games (id, kind, status, version, host_id, options, state, fairness,
                   created_at, updated_at, due_at, automation, deals_stored)
SELECT md5('g' || i)::uuid::text, 'klaverjassen', 'finished', :events,
       md5('p' || i)::uuid::text, t.options, t.state, t.fairness,
       1733000000000000 + i * 30000000, 1733000000000000 + i * 30000000 + 600000000,
       NULL, NULL, 1
FROM generate_series(1::bigint, :games) i CROSS JOIN tpl t
ORDER BY 1;

\echo seats
INSERT INTO game_seats (game_id, seat, player_id)
SELECT md5('g' || i)::uuid::text, s,
       md5('p' || (((i - 1) * 4 + s) % :games + 1))::uuid::text
FROM generate_series(1::bigint, :games) i CROSS JOIN generate_series(0, 3) s
ORDER BY 1, 2;

\echo game_deals
INSERT INTO game_deals (game_id, number, record)
SELECT md5('g' || i)::uuid::text, 1, t.record
FROM generate_series(1::bigint, :games) i CROSS JOIN tpl t
ORDER BY 1;

\echo events
INSERT INTO game_events (game_id, seq, player_id, seat, kind, payload, created_at, actor)
SELECT md5('g' || i)::uuid::text, e,
       md5('p' || (((i - 1) * 4 + coalesce(te.seat, 0)) % :games + 1))::uuid::text,
       te.seat, te.kind, te.payload, 1733000000000000 + i * 30000000 + e * 1000000, te.actor
FROM generate_series(1::bigint, :games) i
CROSS JOIN generate_series(1, :events) e
JOIN tpl_events te ON te.n = (e - 1) % (SELECT count(*) FROM tpl_events) + 1
ORDER BY 1, 2;

ANALYZE;
SELECT (SELECT count(*) FROM games) AS games, (SELECT count(*) FROM game_events) AS events,
       (SELECT count(*) FROM game_deals) AS deals, (SELECT count(*) FROM players) AS players,
       pg_size_pretty(pg_database_size(current_database())) AS size;
