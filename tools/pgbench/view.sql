-- One GET /v1/games/{id}: the one statement the store issues for it
-- (src/store/games/read.rs, load_for without a lock on Postgres): the game
-- row with its newest finished records joined as one JSON array, the
-- caller's token generation and last activity, and its seats as json_agg
-- text.
--
-- Which game and player: bench_pick (tools/bench_service.py) holds the
-- load generator's tables, table t's seat s at n = 4 t + s; -D ngames is
-- their count. With -D repick=0 each client reads one table as its first
-- seat, picked once by client id, as the load generator's drivers do;
-- with -D repick=K a client moves to a table and seat picked at random
-- every K reads (a pick is a statement of its own, so not on every read),
-- as many players at many tables read.
\if :repick = 0
\if :picked = 0
\set pick 4 * (:client_id % :ngames)
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\set picked 1
\endif
\elif :done % :repick = 0
\set pick random(0, 4 * :ngames - 1)
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\endif
\set done :done + 1
SELECT id, kind, status, version, host_id, options, state, fairness, created_at, automation, due_at, deals_stored, '[' || NULLIF(array_to_string(ARRAY(SELECT d.record FROM game_deals d WHERE d.game_id = games.id AND d.number <= games.deals_stored AND d.number > games.deals_stored - 16 ORDER BY d.number), ','), '') || ']' AS records, (SELECT p.token_generation FROM players p WHERE p.id = :pid) AS caller_generation, (SELECT COALESCE(p.last_seen_at, p.created_at) FROM players p WHERE p.id = :pid) AS caller_seen, (SELECT CAST(json_agg(json_build_object('seat', s.seat, 'id', p.id, 'name', p.name, 'bot_level', p.bot_level)) AS text) FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats FROM games WHERE id = :gid;
