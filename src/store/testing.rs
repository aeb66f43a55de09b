//! Games played with random legal moves, for the store's tests.

use crate::table::testing::game_after_keeping;
use crate::table::{Game, GameKind, Move, Rules};

/// How many finished records (score-sheet rows, settled rounds) `rules` holds.
pub fn records(rules: &Rules) -> usize {
    match rules {
        Rules::Klaverjassen(m) => m.deals().len(),
        Rules::Potverteren(t) => t.settled_rounds().len(),
    }
}

/// Whether `mv` neither ends nor undoes a deal (a revoke report or a
/// take-back in club mode) nor ends a Potverteren table.
pub fn plays_on(mv: &Move) -> bool {
    let kind = serde_json::to_value(mv).unwrap()["type"].clone();
    kind != "report_revoke" && kind != "take_back" && kind != "end_table"
}

/// A game of `kind` with every seat taken, its rules played on with
/// random legal moves that [`plays_on`] lets through until `done`
/// holds.
pub fn game_after(
    kind: GameKind,
    chosen: serde_json::Value,
    done: impl Fn(&Rules) -> bool,
) -> Game {
    game_after_keeping(kind, chosen, plays_on, done)
}
