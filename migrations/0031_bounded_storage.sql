-- Bounded storage (docs/operations.md, "Bounded storage").
-- When a player last used the service (an authenticated request, a token
-- renewal), Unix microseconds; NULL until the first use after this column
-- was added, read as the player's creation time. Written at most once an
-- hour per player.
ALTER TABLE players ADD COLUMN last_seen_at BIGINT;
-- Idempotency answers are removed by age.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
-- Leases of periodic jobs that must run on one instance at a time: the
-- instance that takes a job's lease holds it until `until_at` (Unix
-- microseconds); no other instance runs the job before then.
CREATE TABLE job_leases (
    name     TEXT PRIMARY KEY,
    holder   TEXT NOT NULL,
    until_at BIGINT NOT NULL
);
