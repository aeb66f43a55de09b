-- Computer players and turn clocks (issue 9).
-- A computer player is a player row of its own, marked with its level.
ALTER TABLE players ADD COLUMN bot_level TEXT;
-- Automatic work due on a game (a computer player's turn, an expired clock,
-- a waiting table to close), Unix microseconds; NULL when nothing is due.
-- Written in the same transaction that makes the work due.
ALTER TABLE games ADD COLUMN due_at BIGINT;
-- The table's automation state, JSON: away seats and the turn deadline.
ALTER TABLE games ADD COLUMN automation TEXT;
CREATE INDEX games_due ON games (due_at);
-- Who made a change: NULL or 'player', 'bot' or 'clock'.
ALTER TABLE game_events ADD COLUMN actor TEXT;
