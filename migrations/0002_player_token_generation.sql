-- Sign out everywhere: a player's tokens carry the generation they were
-- issued in, and only the current one is accepted. Signing out starts the
-- next generation.

ALTER TABLE players ADD COLUMN token_generation BIGINT NOT NULL DEFAULT 0;
