//! What every new table goes through, whoever makes it (a host, a quick
//! match, a rematch): room for it among the caller's waiting tables, its
//! players, and its row, seats and `created` event.

use sqlx::AnyConnection;
use uuid::Uuid;

use super::error::Error;
use super::friends::assign_invite_code;
use crate::auth::TokenError;
use crate::rules::Seat;
use crate::store::events::{self, EventRow};
use crate::store::record::game_to_row;
use crate::store::{Tx, games, players};
use crate::table::Level;
use crate::table::automation::BotTimes;
use crate::table::{Game, GameError, SeatedPlayer};

/// The most tables waiting for players one player may sit at when it makes
/// another (a new table, a quick match that makes one, a rematch): enough
/// for any club evening, while one player cannot fill the lobby, and every
/// quick match's look over it, with thousands of tables.
pub const WAITING_TABLES_PER_PLAYER: i64 = 20;

/// Refuses a new table for `player` who already waits at
/// [`WAITING_TABLES_PER_PLAYER`] tables.
///
/// # Errors
/// [`Error::Conflict`] `too_many_tables`; the database's.
pub async fn room_for_a_new_table(tx: &mut Tx, player: Uuid) -> Result<(), Error> {
    if games::waiting_tables_of(tx, player).await? >= WAITING_TABLES_PER_PLAYER {
        return Err(Error::Conflict {
            code: "too_many_tables",
            detail: format!(
                "you wait at {WAITING_TABLES_PER_PLAYER} tables already: play, fill or leave one first"
            ),
        });
    }
    Ok(())
}

/// The caller as a player to seat: a token whose player is gone is invalid.
///
/// # Errors
/// [`Error::Token`] when the player is gone; the database's.
pub async fn seated_player(conn: &mut AnyConnection, caller: Uuid) -> Result<SeatedPlayer, Error> {
    let player = players::get(conn, caller)
        .await?
        .ok_or(Error::Token(TokenError::Invalid))?;
    Ok(SeatedPlayer {
        id: player.id,
        name: player.name,
        bot: None,
    })
}

/// Seats a new computer player of `level` at `wanted` (the first free seat
/// when `None`), not yet stored; returns its seat and itself.
///
/// # Errors
/// As [`Game::join`].
pub fn seat_bot(
    game: &mut Game,
    level: Level,
    wanted: Option<u8>,
) -> Result<(Seat, SeatedPlayer), GameError> {
    let mut bot = SeatedPlayer {
        id: Uuid::new_v4(),
        name: String::new(),
        bot: Some(level),
    };
    let seat = game.join(bot.clone(), wanted)?;
    // Named after the seat it got, which is known only once seated.
    bot.name = level.player_name(seat.0);
    game.seats[seat.index()] = Some(bot.clone());
    Ok((seat, bot))
}

/// Stores a new table in `tx`: its invite code if it is private, its row,
/// its seats and its `created` event, made by `caller` at `created_at`.
/// Returns when automatic work on it falls due (`bot_times`: a computer
/// player's time for a move, [`Game::schedule`]).
///
/// # Errors
/// The database's.
pub async fn store_new_table(
    tx: &mut Tx,
    game: &mut Game,
    caller: Uuid,
    created_at: i64,
    bot_times: BotTimes,
) -> Result<Option<i64>, Error> {
    assign_invite_code(tx, game).await?;
    let due_at = game.schedule(created_at, created_at, true, bot_times);
    let options = game.options_json().to_string();
    let mut row = game_to_row(game, created_at, options, None)?;
    row.due_at = due_at;
    games::insert(tx, &row).await?;
    for (seat, player) in game.seats.iter().enumerate() {
        if let Some(player) = player {
            games::add_seat(tx, game.id, seat as u8, player.id).await?;
        }
    }
    let seat = game.seat_of(caller).map(|s| s.0);
    events::append(
        tx,
        game.id,
        &EventRow {
            seq: game.version,
            player_id: Some(caller),
            seat,
            kind: "created".into(),
            payload: serde_json::json!({
                "type": "created",
                "seat": seat,
                "fairness": game.fairness.view(1),
            })
            .to_string(),
            created_at,
            actor: None,
        },
    )
    .await?;
    Ok(due_at)
}
