-- Notifications when the app is closed (docs/notifications.md). Portable
-- SQL, as 0001.

-- Where a player is told: a browser's Web Push subscription (`url` its
-- endpoint, `p256dh` and `auth` its keys) or an app backend's webhook
-- (`url`, and `secret`, `whsec_` + base64, that signs every delivery).
CREATE TABLE push_subscriptions (
    id         TEXT   PRIMARY KEY,
    player_id  TEXT   NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    kind       TEXT   NOT NULL,
    url        TEXT   NOT NULL,
    p256dh     TEXT,
    auth       TEXT,
    secret     TEXT,
    created_at BIGINT NOT NULL,
    UNIQUE (player_id, url)
);

-- The transactional outbox: one row per notification and subscription,
-- written in the transaction of the change that causes it, deleted once
-- delivered (or dropped). `next_at` is when it is tried next; taking a row
-- sets it a lease ahead, so that one instance delivers it at a time and a
-- delivery cut short is tried again once the lease runs out. Times are Unix
-- microseconds.
CREATE TABLE notification_outbox (
    notification_id TEXT   NOT NULL,
    subscription_id TEXT   NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    player_id       TEXT   NOT NULL,
    game_id         TEXT,
    kind            TEXT   NOT NULL,
    version         BIGINT,
    payload         TEXT   NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    next_at         BIGINT NOT NULL,
    attempts        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (notification_id, subscription_id)
);
CREATE INDEX notification_outbox_next ON notification_outbox (next_at);

-- Whether a player is at a game: when it last read the game (`seen_at`),
-- and until when a stream or long poll it holds counts as watching
-- (`watching_until`). Written at most once per player and game every few
-- seconds by each instance.
CREATE TABLE player_presence (
    player_id      TEXT   NOT NULL,
    game_id        TEXT   NOT NULL,
    seen_at        BIGINT NOT NULL,
    watching_until BIGINT NOT NULL,
    PRIMARY KEY (player_id, game_id)
);
