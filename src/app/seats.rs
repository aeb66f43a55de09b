//! Who sits where before and during a game: a player takes or leaves a
//! seat, the host seats or removes a computer player, and a seat that was
//! away comes back.

use super::answer::{Answer, CREATED, OK};
use super::change::{Change, change};
use super::commit::{Event, SeatChange};
use super::context::App;
use super::error::Error;
use super::new_table::{seat_bot, seated_player};
use super::read::load;
use super::refusal::refusal;
use crate::table::Level;
use crate::table::{GameError, Status};

/// Seats the caller at the game, at seat `wanted` or the first free one:
/// the one path of taking a seat by the table's id and by its invite code.
/// The game starts when every seat is taken.
///
/// # Errors
/// [`Error::Token`] when the caller's player is gone; as [`change`].
pub async fn join(app: &App, asked: Change<'_>, wanted: Option<u8>) -> Result<Answer, Error> {
    let mut conn = app.store.acquire().await?;
    let player = seated_player(&mut conn, asked.caller.player).await?;
    drop(conn);
    change(app, asked, |game| {
        let seat = game.join(player.clone(), wanted)?;
        Ok(Event {
            kind: "joined",
            seat: Some(seat.0),
            payload: serde_json::json!({"type": "joined", "seat": seat}),
            seat_change: Some(SeatChange::Took(seat.0)),
        })
    })
    .await
}

/// The caller leaves its seat before the game has started.
///
/// # Errors
/// As [`change`].
pub async fn leave(app: &App, asked: Change<'_>) -> Result<Answer, Error> {
    let caller = asked.caller.player;
    change(app, asked, |game| {
        let seat = game.leave(caller)?;
        Ok(Event {
            kind: "left",
            seat: Some(seat.0),
            payload: serde_json::json!({"type": "left", "seat": seat}),
            seat_change: Some(SeatChange::Left(seat.0)),
        })
    })
    .await
}

/// The host seats a computer player of `level` at `wanted` (the first free
/// seat when `None`) before the game starts; answers 201.
///
/// # Errors
/// [`Error::Forbidden`] for anyone but the host; as [`change`].
pub async fn add_bot(
    app: &App,
    asked: Change<'_>,
    level: Level,
    wanted: Option<u8>,
) -> Result<Answer, Error> {
    let caller = asked.caller.player;
    let mut answer = change(app, asked, |game| {
        if game.host != caller {
            return Err(GameError::NotHost);
        }
        let (seat, bot) = seat_bot(game, level, wanted)?;
        Ok(Event {
            kind: "joined",
            seat: Some(seat.0),
            payload: serde_json::json!({"type": "joined", "seat": seat, "bot": level}),
            seat_change: Some(SeatChange::Bot(seat.0, bot)),
        })
    })
    .await?;
    // Kept for the key as the change answers (200), made 201 on every
    // answer, the replayed ones too.
    if answer.status == OK {
        answer.status = CREATED;
    }
    Ok(answer)
}

/// The host removes the computer player in `seat` before the game starts.
///
/// # Errors
/// [`Error::Forbidden`] for anyone but the host, [`Error::NotFound`] for a
/// seat without a computer player; as [`change`].
pub async fn remove_bot(app: &App, asked: Change<'_>, seat: u8) -> Result<Answer, Error> {
    let caller = asked.caller.player;
    change(app, asked, |game| {
        if game.host != caller {
            return Err(GameError::NotHost);
        }
        game.remove_bot(seat)?;
        Ok(Event {
            kind: "left",
            seat: Some(seat),
            payload: serde_json::json!({"type": "left", "seat": seat}),
            seat_change: Some(SeatChange::Left(seat)),
        })
    })
    .await
}

/// The caller's seat is no longer away: its moves are its own again.
///
/// # Errors
/// [`Error::NotFound`], [`Error::Forbidden`] `not_seated`; as [`change`].
pub async fn back(app: &App, asked: Change<'_>) -> Result<Answer, Error> {
    let caller = asked.caller.player;
    // A seat that is not away (or a table no longer playing) has nothing to
    // come back from: the view as it is, no new version, no event, so that
    // `back` cannot be sent to bump a table's version (and wake every
    // stream on it) at will.
    let game = load(app, asked.game).await?;
    let seat = game
        .seat_of(caller)
        .ok_or_else(|| refusal(&game, caller, GameError::NotSeated))?;
    if !game.away[seat.index()] || game.status != Status::Playing {
        return Answer::view(OK, &game, caller, None);
    }
    change(app, asked, |game| {
        let seat = game.seat_of(caller).ok_or(GameError::NotSeated)?;
        game.back(seat);
        Ok(Event::new(
            "back",
            Some(seat.0),
            serde_json::json!({"type": "back", "seat": seat}),
        ))
    })
    .await
}
