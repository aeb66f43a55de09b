-- One move as the load generator makes it: GET /v1/games/{id} and then
-- POST /v1/games/{id}/moves, with the statements src/store issues for each
-- (src/http/extract.rs, src/http/change.rs: token generation; BEGIN; the game
-- row FOR UPDATE and its seats; UPDATE with the whole state written back;
-- the event; pg_notify; COMMIT). The state written is the state read, sent
-- back as a parameter (-M prepared), so Postgres stores it anew like the
-- service does; the event payload is a typical move's size (180 bytes; no literal JSON,
-- since pgbench reads every colon as a variable).
\if :picked = 0
\set pick :client_id % :ngames
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\set picked 1
\endif
-- GET view
SELECT token_generation FROM players WHERE id = :pid;
SELECT id, kind, status, version, host_id, options, state, created_at FROM games WHERE id = :gid;
SELECT s.seat, p.id, p.name FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = :gid ORDER BY s.seat;
-- POST move
SELECT token_generation FROM players WHERE id = :pid;
BEGIN;
SELECT id, kind, status, version, host_id, options, state AS st, created_at FROM games WHERE id = :gid FOR UPDATE \gset
SELECT s.seat, p.id, p.name FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = :gid ORDER BY s.seat;
\set next :version + 1
UPDATE games SET status = :status, version = :next, state = :st, updated_at = :next WHERE id = :gid;
INSERT INTO game_events (game_id, seq, player_id, seat, kind, payload, created_at) VALUES (:gid, :next, :pid, 1, 'move', repeat('m', 180), :next);
SELECT pg_notify('kaarttafel_games', concat(CAST(:gid AS text), chr(58), CAST(:next AS text)));
COMMIT;
