//! Games played on with random legal moves, for the tests of the table and
//! of the views built from it.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use uuid::Uuid;

use super::{Game, GameKind, Move, Rules, SeatedPlayer, TableOptions};

/// Random legal moves that `keep` lets through until `done` holds.
pub(crate) fn play_moves_until(
    rules: &mut Rules,
    rng: &mut StdRng,
    keep: impl Fn(&Move) -> bool,
    done: impl Fn(&Rules) -> bool,
) {
    while !done(rules) {
        let awaiting = rules.game().awaiting().expect("a game still going");
        let seat = awaiting.seats[0];
        let moves: Vec<Move> = rules
            .game()
            .legal_moves(seat)
            .into_iter()
            .filter(&keep)
            .collect();
        let mv = moves.choose(rng).cloned().expect("a legal move");
        rules.game_mut().apply(seat, mv, rng).expect("legal");
    }
}

/// A game of `kind` with every seat taken, its rules played on with
/// random legal moves but for revoke reports and take-backs (which end or
/// undo deals in club mode) until `done` holds.
pub(crate) fn game_after(
    kind: GameKind,
    chosen: serde_json::Value,
    done: impl Fn(&Rules) -> bool,
) -> Game {
    let no_revoke_report_nor_take_back = |mv: &Move| {
        let kind = serde_json::to_value(mv).unwrap()["type"].clone();
        kind != "report_revoke" && kind != "take_back"
    };
    game_after_keeping(kind, chosen, no_revoke_report_nor_take_back, done)
}

/// A game of `kind` with every seat taken, its rules played on with
/// random legal moves that `keep` lets through until `done` holds.
pub(crate) fn game_after_keeping(
    kind: GameKind,
    chosen: serde_json::Value,
    keep: impl Fn(&Move) -> bool,
    done: impl Fn(&Rules) -> bool,
) -> Game {
    let mut rng = StdRng::seed_from_u64(11);
    let (options, table) = TableOptions::parse_with(kind, Some(chosen)).unwrap();
    let player = |i: u8| SeatedPlayer {
        id: Uuid::from_u128(u128::from(i) + 1),
        name: format!("player {i}"),
        bot: None,
    };
    let mut game = Game::create(
        Uuid::new_v4(),
        kind,
        options,
        table,
        player(0),
        None,
        &mut rng,
    )
    .unwrap();
    for i in 1..game.seats.len() as u8 {
        game.join(player(i), None).unwrap();
    }
    let rules = game
        .rules
        .as_mut()
        .expect("started once every seat is taken");
    play_moves_until(rules, &mut rng, keep, done);
    game
}
