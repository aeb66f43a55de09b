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

/// A fresh game of each kind, option set and seed the round-trip tests of
/// the views and of the store walk through, with the RNG that plays it on:
/// a computer player with a name that needs escaping, an away seat, a
/// clock's deadline and a seat's seed, so that every part of a view shows.
pub(crate) fn varied_games() -> Vec<(Game, StdRng)> {
    [
        (
            GameKind::Klaverjassen,
            serde_json::json!({"revoke_mode": "club", "deals": 2, "hints": true}),
            21,
        ),
        (
            GameKind::Klaverjassen,
            serde_json::json!({"auto_deal": true, "deals": 3}),
            22,
        ),
        (
            GameKind::Potverteren,
            serde_json::json!({"auto_deal": true, "seats": 7, "turn_seconds": 20}),
            23,
        ),
    ]
    .into_iter()
    .map(|(kind, chosen, seed)| {
        let mut game = game_after(kind, chosen, |_| true);
        if let Some(Some(seat)) = game.seats.get_mut(1) {
            seat.bot = Some(super::Level::Basic);
            seat.name = "a \"quoted\" name\twith a tab".into();
        }
        game.away[2] = true;
        game.deadline = Some(1_764_000_000_123_456);
        game.fairness
            .set_seat_seed(0, crate::rules::fairness::SeatSeed::parse("c0ffee").ok());
        (game, StdRng::seed_from_u64(seed))
    })
    .collect()
}

/// Whoever may ask for a view of `game`: each seated player, then a
/// spectator.
pub(crate) fn callers(game: &Game) -> Vec<Option<Uuid>> {
    game.seats
        .iter()
        .map(|s| s.as_ref().map(|p| p.id))
        .chain([None])
        .collect()
}

/// Plays one random legal move of the first awaited seat; false, and
/// nothing played, when no seat is awaited.
pub(crate) fn play_one_move(game: &mut Game, rng: &mut StdRng) -> bool {
    let rules = game.rules.as_mut().expect("a started game");
    let Some(awaiting) = rules.game().awaiting() else {
        return false;
    };
    let seat = awaiting.seats[0];
    let moves = rules.game().legal_moves(seat);
    let mv = moves.choose(rng).cloned().expect("a legal move");
    rules.game_mut().apply(seat, mv, rng).expect("legal");
    true
}
