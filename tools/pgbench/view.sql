-- One GET /v1/games/{id}: the statements src/store issues, in order
-- (token generation check in src/http/extract.rs, then store::games::load
-- without a lock: the game row and its seats).
\if :picked = 0
\set pick :client_id % :ngames
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\set picked 1
\endif
SELECT token_generation FROM players WHERE id = :pid;
SELECT id, kind, status, version, host_id, options, state, created_at FROM games WHERE id = :gid;
SELECT s.seat, p.id, p.name FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = :gid ORDER BY s.seat;
