-- Finished deals written once (docs/benchmarks.md, "Stored game state per
-- move"): each finished Klaverjassen deal (its score-sheet row with the
-- deal's history) and each settled Potverteren round is one row here, written
-- by the move that finished it and never rewritten; games.state keeps only
-- the live part. `number` is the record's place in the sheet, from 1.
CREATE TABLE game_deals (
    game_id TEXT   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    number  BIGINT NOT NULL,
    record  TEXT   NOT NULL,
    PRIMARY KEY (game_id, number)
);
-- How many of the game's finished records are in game_deals. NULL: the row
-- is still in the layout of releases before this one (the records inside
-- games.state); the service splits such rows at start and on their next write.
ALTER TABLE games ADD COLUMN deals_stored BIGINT;
