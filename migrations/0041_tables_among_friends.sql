-- Tables among friends (issue 14). Portable SQL, as 0001.
-- The invite codes of live private tables: a code is unique among them and
-- is deleted when its table finishes or is abandoned, so it stops working.
CREATE TABLE invite_codes (
    code    TEXT PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE
);

-- Games whose statistics and ratings are counted (once per game).
CREATE TABLE game_results (
    game_id     TEXT PRIMARY KEY,
    recorded_at BIGINT NOT NULL
);

-- Per player and game: matches played, won and drawn, Klaverjassen points
-- and deals, Potverteren net chips, and the Weng-Lin rating.
CREATE TABLE player_stats (
    player_id   TEXT NOT NULL REFERENCES players (id),
    kind        TEXT NOT NULL,
    played      BIGINT NOT NULL,
    won         BIGINT NOT NULL,
    drawn       BIGINT NOT NULL,
    points      BIGINT NOT NULL,
    deals       BIGINT NOT NULL,
    chips       BIGINT NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    uncertainty DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player_id, kind)
);
