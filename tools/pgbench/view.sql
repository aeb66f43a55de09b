-- One GET /v1/games/{id}: the one statement src/store issues
-- (store::games::load_for without a lock, src/http/stream.rs load_as: the
-- game row with its finished records, the caller's token generation and
-- its seats).
\if :picked = 0
\set pick :client_id % :ngames
SELECT game_id AS gid, player_id AS pid FROM bench_pick WHERE n = :pick \gset
\set picked 1
\endif
SELECT id, kind, status, version, host_id, options, state, fairness, created_at, automation, due_at, deals_stored, (SELECT string_agg(d.record, chr(30) ORDER BY d.number) FROM game_deals d WHERE d.game_id = games.id AND d.number <= games.deals_stored) AS records, (SELECT p.token_generation FROM players p WHERE p.id = :pid) AS caller_generation, (SELECT COALESCE(p.last_seen_at, p.created_at) FROM players p WHERE p.id = :pid) AS caller_seen, (SELECT CAST(json_agg(json_build_array(s.seat, p.id, p.name, p.bot_level)) AS TEXT) FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = games.id) AS seats FROM games WHERE id = :gid;
