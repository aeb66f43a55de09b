-- Fills a migrated kaarttafel Postgres database with :games finished
-- Klaverjassen games (4 seats each, :events events each, one game_deals row
-- each) and :games players, cloned from the real rows the load generator
-- left in the same database (the newest game with a finished deal is the
-- template for state, options, fairness and the deal record; event payloads
-- are the template game's own, in order). Used by tools/bench_scale.py
-- (docs/performance.md).
--
--   psql "$DB" -v games=1000000 -v events=10 -f tools/scale_fill.sql
--
-- Ids are md5-derived UUID text, as the service's are UUID text; times are
-- spread over the year before now, one game every :games-th of it.
--
-- How, and why it is fast: a row inserted with its table's foreign keys in
-- place fires one check per key, each an index probe plus a row lock
-- (`FOR KEY SHARE`) that rewrites the referenced players/games row; with the
-- indexes in place every row also goes into each B-tree one at a time. At 1M
-- games that was over 13 minutes for the 4M seats alone. So, as pg_restore
-- does, the filled tables' primary keys, unique constraints, other indexes
-- and every foreign key to or from them are dropped first (their definitions
-- kept), the rows inserted in time order (the order a year of play writes
-- them: ids random against the heap), then the keys and indexes rebuilt by
-- sorting and every foreign key added back, which checks all rows at once
-- (a join) and fails the fill if any row breaks one. The tables stay logged
-- (no UNLOGGED): the measured database is an ordinary one. VACUUM ANALYZE at
-- the end sets the hint bits and visibility map and the statistics, so
-- autovacuum does not start on the new rows during the measurement.
\set ON_ERROR_STOP on
SET synchronous_commit = off;
-- Index builds sort in memory; one process (the machine is shared).
SET maintenance_work_mem = '1GB';
SET max_parallel_maintenance_workers = 0;
\timing on

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

-- The filled tables, and what is dropped and rebuilt around the fill.
CREATE TEMP TABLE filled (rel regclass PRIMARY KEY);
INSERT INTO filled VALUES ('players'), ('games'), ('game_seats'), ('game_events'), ('game_deals');

CREATE TEMP TABLE saved_constraints AS
SELECT c.conrelid::regclass AS rel, c.conname, c.contype, pg_get_constraintdef(c.oid) AS def
FROM pg_constraint c
WHERE (c.contype IN ('p', 'u') AND c.conrelid IN (SELECT rel FROM filled))
   OR (c.contype = 'f' AND (c.conrelid IN (SELECT rel FROM filled)
                            OR c.confrelid IN (SELECT rel FROM filled)));

CREATE TEMP TABLE saved_indexes AS
SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
FROM pg_index i
WHERE i.indrelid IN (SELECT rel FROM filled)
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                  WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u'));

\echo drop foreign keys, keys and indexes
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM saved_constraints ORDER BY contype = 'f' DESC LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.rel, r.conname);
  END LOOP;
  FOR r IN SELECT * FROM saved_indexes LOOP
    EXECUTE format('DROP INDEX %s', r.name);
  END LOOP;
END $$;

-- Times in microseconds, as the service stores them: one game every
-- :step over the year before now.
SELECT (extract(epoch FROM now() - interval '1 year') * 1e6)::bigint AS t0,
       (365 * 86400 * 1e6 / :games)::bigint AS step \gset

\echo players
INSERT INTO players (id, name, created_at, token_generation, last_seen_at)
SELECT md5('p' || i)::uuid::text, 'filler ' || i, (:t0 + i * :step), 0, (:t0 + i * :step)
FROM generate_series(1::bigint, :games) i;

\echo games
INSERT INTO games (id, kind, status, version, host_id, options, state, fairness,
                   created_at, updated_at, due_at, automation, deals_stored)
SELECT md5('g' || i)::uuid::text, 'klaverjassen', 'finished', :events,
       md5('p' || i)::uuid::text, t.options, t.state, t.fairness,
       (:t0 + i * :step), (:t0 + i * :step) + 600000000, NULL, NULL, 1
FROM generate_series(1::bigint, :games) i CROSS JOIN tpl t;

\echo seats
INSERT INTO game_seats (game_id, seat, player_id)
SELECT md5('g' || i)::uuid::text, s,
       md5('p' || (((i - 1) * 4 + s) % :games + 1))::uuid::text
FROM generate_series(1::bigint, :games) i CROSS JOIN generate_series(0, 3) s;

\echo game_deals
INSERT INTO game_deals (game_id, number, record)
SELECT md5('g' || i)::uuid::text, 1, t.record
FROM generate_series(1::bigint, :games) i CROSS JOIN tpl t;

\echo events
INSERT INTO game_events (game_id, seq, player_id, seat, kind, payload, created_at, actor)
SELECT md5('g' || i)::uuid::text, e,
       md5('p' || (((i - 1) * 4 + coalesce(te.seat, 0)) % :games + 1))::uuid::text,
       te.seat, te.kind, te.payload, (:t0 + i * :step) + e * 1000000, te.actor
FROM generate_series(1::bigint, :games) i
CROSS JOIN generate_series(1, :events) e
JOIN tpl_events te ON te.n = (e - 1) % (SELECT count(*) FROM tpl_events) + 1;

\echo rebuild keys and indexes, add the foreign keys back (checks every row)
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM saved_constraints WHERE contype <> 'f' LOOP
    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', r.rel, r.conname, r.def);
  END LOOP;
  FOR r IN SELECT * FROM saved_indexes LOOP
    EXECUTE r.def;
  END LOOP;
  FOR r IN SELECT * FROM saved_constraints WHERE contype = 'f' LOOP
    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', r.rel, r.conname, r.def);
  END LOOP;
END $$;

\echo vacuum analyze
VACUUM (ANALYZE) players, games, game_seats, game_events, game_deals;
ANALYZE;
\timing off
SELECT (SELECT count(*) FROM games) AS games, (SELECT count(*) FROM game_events) AS events,
       (SELECT count(*) FROM game_deals) AS deals, (SELECT count(*) FROM players) AS players,
       (SELECT count(*) FROM pg_constraint c JOIN filled f ON c.conrelid = f.rel) AS constraints,
       (SELECT count(*) FROM pg_index i JOIN filled f ON i.indrelid = f.rel) AS indexes,
       pg_size_pretty(pg_database_size(current_database())) AS size;
