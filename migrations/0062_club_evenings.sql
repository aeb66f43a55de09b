-- Club evenings (issue 50). Portable SQL, as 0001.
-- An event: its organizer, status and version in columns for the list of
-- open events and for locking; the rest (settings, entries, schedule, the
-- secret seed chain) a JSON document written and read only by the service.
-- due_at: Unix microseconds from which the event has work to do (its next
-- round to start); NULL when none. Written in the transaction that makes
-- the work due, so an instance that dies leaves it for another.
CREATE TABLE club_events (
    id           TEXT PRIMARY KEY,
    organizer_id TEXT NOT NULL REFERENCES players (id),
    status       TEXT NOT NULL,
    private      BIGINT NOT NULL,
    invite_code  TEXT UNIQUE,
    version      BIGINT NOT NULL,
    state        TEXT NOT NULL,
    due_at       BIGINT,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);

CREATE INDEX club_events_open ON club_events (status, private, created_at);
CREATE INDEX club_events_due ON club_events (due_at);

-- The tables of every round: a round's tables are created once, in the
-- transaction that starts the round (the key refuses a second).
CREATE TABLE club_event_tables (
    event_id  TEXT NOT NULL REFERENCES club_events (id),
    round     BIGINT NOT NULL,
    table_no  BIGINT NOT NULL,
    game_id   TEXT NOT NULL UNIQUE REFERENCES games (id),
    PRIMARY KEY (event_id, round, table_no)
);

-- The entries' players, to find a player's events.
CREATE TABLE club_event_players (
    event_id  TEXT NOT NULL REFERENCES club_events (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    PRIMARY KEY (event_id, player_id)
);

CREATE INDEX club_event_players_player ON club_event_players (player_id);
