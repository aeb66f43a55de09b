-- One move as the load generator makes it: GET /v1/games/{id} and then
-- POST /v1/games/{id}/moves, with the statements src/store issues for each
-- (src/http/stream.rs, src/http/change.rs: the GET's one statement; for the
-- POST the same read, unlocked, with the caller's token generation, and
-- then the UPDATE, written only while the game is still at the version
-- read, with the live state written back, the event and its pg_notify in
-- one statement; no transaction around them). The state written is the
-- state read, sent back as a parameter (-M prepared), so Postgres stores it
-- anew like the service does; the event payload is a typical move's size
-- (180 bytes; no literal JSON, since pgbench reads every colon as a
-- variable). A deal's end, which also adds a finished-deal row in a
-- transaction, is left out (one move in 32).
\if :picked = 0
\set pick :client_id % :ngames
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\set picked 1
\endif
-- GET view
SELECT id, kind, status, version, host_id, options, state, fairness, created_at, automation, due_at, deals_stored, (SELECT string_agg(d.record, chr(30) ORDER BY d.number) FROM game_deals d WHERE d.game_id = games.id AND d.number <= games.deals_stored) AS records, (SELECT p.token_generation FROM players p WHERE p.id = :pid) AS caller_generation, (SELECT COALESCE(p.last_seen_at, p.created_at) FROM players p WHERE p.id = :pid) AS caller_seen, (SELECT CAST(json_agg(json_build_array(s.seat, p.id, p.name, p.bot_level)) AS TEXT) FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats FROM games WHERE id = :gid;
-- POST move
SELECT id, kind, status, version, host_id, options, state AS st, fairness AS fa, created_at, COALESCE(automation, '') AS au, due_at, deals_stored AS ds, (SELECT string_agg(d.record, chr(30) ORDER BY d.number) FROM game_deals d WHERE d.game_id = games.id AND d.number <= games.deals_stored) AS rs, (SELECT p.token_generation FROM players p WHERE p.id = :pid) AS cg, (SELECT COALESCE(p.last_seen_at, p.created_at) FROM players p WHERE p.id = :pid) AS cs, (SELECT CAST(json_agg(json_build_array(s.seat, p.id, p.name, p.bot_level)) AS TEXT) FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS se FROM games WHERE id = :gid \gset
\set next :version + 1
WITH updated AS (UPDATE games SET status = :status, version = :next, state = :st, fairness = :fa, updated_at = :next, automation = NULLIF(:au, ''), due_at = NULL, deals_stored = :ds WHERE id = :gid AND version = :version RETURNING id), appended AS (INSERT INTO game_events (game_id, seq, player_id, seat, kind, payload, created_at, actor) SELECT id, :next, :pid, 1, 'move', repeat('m', 180), :next, NULL FROM updated RETURNING seq) SELECT pg_notify('kaarttafel_games', concat(CAST(:gid AS text), chr(58), CAST(:next AS text), chr(58), '-')) FROM appended;
