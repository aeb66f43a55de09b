//! Play: the dealer deals and seated players move. A player's move and an
//! automatic one (a computer player's, or the clock's for a seat) make
//! their event the same way.

use std::time::Instant;

use uuid::Uuid;

use super::answer::Answer;
use super::change::{Change, change};
use super::commit::Event;
use super::context::App;
use super::error::Error;
use crate::ai::{self, Chosen, Player, Players};
use crate::rules::Seat;
use crate::store::record::system_rng;
use crate::table::events as event_log;
use crate::table::{Game, GameError, Level, Move, Rules};

/// The dealer (Klaverjassen) or pothouder (Potverteren) deals; the same as
/// the move `{"type": "deal"}`.
///
/// # Errors
/// As [`change`].
pub async fn deal(app: &App, asked: Change<'_>) -> Result<Answer, Error> {
    let caller = asked.caller.player;
    change(app, asked, |game| {
        let mv = Move::deal(game.kind);
        apply_move(game, caller, mv)
    })
    .await
}

/// The caller makes `mv`, a move of the game's own as JSON.
///
/// # Errors
/// [`Error::Invalid`] for a move of another game or none; as [`change`].
pub async fn make_move(
    app: &App,
    asked: Change<'_>,
    mv: &serde_json::Value,
) -> Result<Answer, Error> {
    let caller = asked.caller.player;
    change(app, asked, |game| {
        let mv = Move::parse(game.kind, mv.clone())?;
        apply_move(game, caller, mv)
    })
    .await
}

/// `mv` for the caller's seat; a player who acts for its seat is back.
fn apply_move(game: &mut Game, caller: Uuid, mv: Move) -> Result<Event, GameError> {
    let seat = game.seat_of(caller).ok_or(GameError::NotSeated)?;
    let event = seat_move(game, seat, mv)?;
    game.back(seat);
    Ok(event)
}

/// Applies `mv` for `seat` and returns its event: the one path of a
/// player's move and of an automatic one.
///
/// # Errors
/// The rules' refusal.
pub fn seat_move(game: &mut Game, seat: Seat, mv: Move) -> Result<Event, GameError> {
    let mut payload = serde_json::to_value(&mv).unwrap_or_default();
    let kind = if mv.is_deal() { "deal" } else { "move" };
    let context = event_log::context_before(game);
    let finished = event_log::finished_deals(game);
    let (seat, committed) = game.play_for(seat, mv, &mut system_rng())?;
    let result = event_log::public_result(game, seat, &context, &payload);
    if let Some(object) = payload.as_object_mut() {
        // `seat` is the seat that acted, in every event; the seat a move
        // names itself (a `report_revoke`'s) is kept as `reported_seat`.
        if let Some(named) = object.insert("seat".into(), serde_json::json!(seat)) {
            object.insert("reported_seat".into(), named);
        }
        object.extend(context);
        object.extend(result);
        object.extend(event_log::fairness_result(game, finished, &committed));
    }
    Ok(Event {
        kind,
        seat: Some(seat.0),
        payload,
        seat_change: None,
    })
}

/// The computer player of `level` for the game `G`: the one place that maps
/// a level to a player, so a stronger player drops in here without
/// touching the code that asks it.
pub fn player_for<G: Players>(level: Level) -> Box<dyn Player<G>> {
    match level {
        Level::Basic => G::basic(),
        Level::Strong => G::strong(),
    }
}

/// The move the computer player of `level` makes for `seat`, decided from
/// the seat's view of the rules and its legal moves alone.
pub fn computer_move(
    rules: &Rules,
    seat: Seat,
    level: Level,
    rng: &mut dyn rand::Rng,
) -> Option<Move> {
    match rules {
        Rules::Klaverjassen(game) => {
            ai::decide(game, seat, &*player_for(level), rng).map(Move::from)
        }
        Rules::Potverteren(game) => {
            ai::decide(game, seat, &*player_for(level), rng).map(Move::from)
        }
    }
}

/// As [`computer_move`], thinking no later than `until`
/// ([`ai::Player::choose_by`]): the service makes a computer player's move
/// at a fixed time, and no search runs on past it. The move says whether
/// it is the player's own decision.
pub fn computer_move_by(
    rules: &Rules,
    seat: Seat,
    level: Level,
    until: Instant,
    rng: &mut dyn rand::Rng,
) -> Option<Chosen<Move>> {
    fn into<M: Into<Move>>(chosen: Chosen<M>) -> Chosen<Move> {
        Chosen {
            mv: chosen.mv.into(),
            own: chosen.own,
        }
    }
    match rules {
        Rules::Klaverjassen(game) => {
            ai::decide_by(game, seat, &*player_for(level), until, rng).map(into)
        }
        Rules::Potverteren(game) => {
            ai::decide_by(game, seat, &*player_for(level), until, rng).map(into)
        }
    }
}
