-- One move as the load generator makes it: GET /v1/games/{id} and then
-- POST /v1/games/{id}/moves, with the statements the store issues for each
-- on Postgres (src/store/games/read.rs, load_for; src/store/games/write.rs,
-- update_announcing): the GET's one statement; for the POST the same read,
-- unlocked, with the caller's token generation, and then one statement that
-- updates the row only while the game is still at the version read, with
-- the live state written back, appends the event, writes the your_turn it
-- causes to the outbox for each subscription of the player told (none
-- here) and announces it with pg_notify; no transaction around them. The
-- state written is the state read, sent back as a parameter (-M
-- prepared), so Postgres stores it anew like the service does (a NULL
-- automation goes through \gset as '' and back as NULL); the event
-- payload is a typical move's size (180 bytes; no literal JSON, since
-- pgbench reads a colon before a name as a variable).
-- A deal's end, which also adds a finished-deal row in a transaction, is
-- left out (one move in 32).
--
-- Which game: bench_pick (tools/bench_service.py) holds the load
-- generator's tables, table t's seat s at n = 4 t + s, driver d's k-th
-- table at t = k * clients + d; -D ngames is their count, -D clients the
-- clients'. With -D repick=0 each client plays one table, picked once by
-- client id, as the load generator's drivers do; with -D repick=K a client
-- moves every K moves to another of its own tables, picked at random, and
-- reads it as a random seat (clients never share a table, as the drivers
-- never do).
\if :repick = 0
\if :picked = 0
\set pick 4 * (:client_id % :ngames)
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\set picked 1
\endif
\elif :done % :repick = 0
\set game :client_id + :clients * random(0, :ngames / :clients - 1)
\set pick 4 * :game + random(0, 3)
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\endif
\set done :done + 1
-- GET view
SELECT id, kind, status, version, host_id, options, state, fairness, created_at, automation, due_at, deals_stored, '[' || NULLIF(array_to_string(ARRAY(SELECT d.record FROM game_deals d WHERE d.game_id = games.id AND d.number <= games.deals_stored AND d.number > games.deals_stored - 16 ORDER BY d.number), ','), '') || ']' AS records, (SELECT p.token_generation FROM players p WHERE p.id = :pid) AS caller_generation, (SELECT COALESCE(p.last_seen_at, p.created_at) FROM players p WHERE p.id = :pid) AS caller_seen, (SELECT CAST(json_agg(json_build_object('seat', s.seat, 'id', p.id, 'name', p.name, 'bot_level', p.bot_level)) AS text) FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats FROM games WHERE id = :gid;
-- POST move
SELECT id, kind, status, version, host_id, options, state AS st, fairness AS fa, created_at, COALESCE(automation, '') AS au, due_at, deals_stored AS ds, '[' || NULLIF(array_to_string(ARRAY(SELECT d.record FROM game_deals d WHERE d.game_id = games.id AND d.number <= games.deals_stored AND d.number > games.deals_stored - 16 ORDER BY d.number), ','), '') || ']' AS rs, (SELECT p.token_generation FROM players p WHERE p.id = :pid) AS cg, (SELECT COALESCE(p.last_seen_at, p.created_at) FROM players p WHERE p.id = :pid) AS cs, (SELECT CAST(json_agg(json_build_object('seat', s.seat, 'id', p.id, 'name', p.name, 'bot_level', p.bot_level)) AS text) FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS se FROM games WHERE id = :gid \gset
\set next :version + 1
WITH updated AS (UPDATE games SET status = :status, version = :next, state = :st, fairness = :fa, updated_at = :next, automation = NULLIF(:au, ''), due_at = NULL, deals_stored = :ds WHERE id = :gid AND version = :version RETURNING id), appended AS (INSERT INTO game_events (game_id, seq, player_id, seat, kind, payload, created_at, actor) SELECT id, :next, :pid, 1, 'move', repeat('m', 180), :next, NULL FROM updated RETURNING seq), told AS (INSERT INTO notification_outbox (notification_id, subscription_id, player_id, game_id, kind, version, payload, created_at, expires_at, next_at, attempts) SELECT v.column1, s.id, s.player_id, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8, v.column9, 0 FROM (VALUES (md5(CAST(:next AS text)), :pid, :gid, 'your_turn', CAST(:next AS BIGINT), repeat('n', 200), CAST(:next AS BIGINT), CAST(:next AS BIGINT), CAST(:next AS BIGINT))) AS v JOIN push_subscriptions s ON s.player_id = v.column2 WHERE EXISTS (SELECT 1 FROM appended)) SELECT pg_notify('kaarttafel_games', concat(CAST(:gid AS text), chr(58), CAST(:next AS text), chr(58), '-')) FROM appended;
