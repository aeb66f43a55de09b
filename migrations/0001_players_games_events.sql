-- Portable SQL: the same schema on Postgres and SQLite, so behaviour is
-- identical on both. Ids are UUID text, times are Unix microseconds, and
-- JSON documents are text written and read only by the service.

CREATE TABLE players (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    external_sub TEXT UNIQUE,
    created_at   BIGINT NOT NULL
);

CREATE TABLE games (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    status     TEXT NOT NULL,
    version    BIGINT NOT NULL,
    host_id    TEXT NOT NULL REFERENCES players (id),
    options    TEXT NOT NULL,
    state      TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX games_lobby ON games (status, kind, created_at);

CREATE TABLE game_seats (
    game_id   TEXT NOT NULL REFERENCES games (id),
    seat      BIGINT NOT NULL,
    player_id TEXT NOT NULL REFERENCES players (id),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id)
);

CREATE INDEX game_seats_player ON game_seats (player_id);

-- Append-only: one row per accepted change, seq equal to the version it made.
CREATE TABLE game_events (
    game_id    TEXT NOT NULL REFERENCES games (id),
    seq        BIGINT NOT NULL,
    player_id  TEXT REFERENCES players (id),
    seat       BIGINT,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- The first answer to a request sent with an Idempotency-Key, per player.
CREATE TABLE idempotency_keys (
    player_id    TEXT NOT NULL REFERENCES players (id),
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       BIGINT NOT NULL,
    headers      TEXT NOT NULL,
    body         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (player_id, key)
);

-- Values the service generates once and keeps, such as its token secret.
CREATE TABLE service_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
