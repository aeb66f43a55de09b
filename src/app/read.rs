//! Reading a game: as stored now, for the bearer of a token (checked in
//! the game's own statement), or once it passes a version (a long poll).

use std::time::Duration;

use sqlx::AnyConnection;
use uuid::Uuid;

use super::context::App;
use super::error::Error;
use super::sign_in;
use crate::auth::Identity;
use crate::notify::Wake;
use crate::store::games;
use crate::store::record::{game_from_row, game_to_show};
use crate::table::Game;

/// The longest long poll, in seconds.
pub const LONG_POLL_MAX_SECONDS: u64 = 60;

/// How long a long poll waits when the caller does not say, in seconds.
pub const LONG_POLL_DEFAULT_SECONDS: u64 = 30;

/// The refusal for a game that does not exist.
pub fn no_game(id: Uuid) -> Error {
    Error::NotFound(format!("no game {id}"))
}

/// The game as stored now.
///
/// # Errors
/// [`Error::NotFound`] when there is no such game.
pub async fn load(app: &App, id: Uuid) -> Result<Game, Error> {
    let mut conn = app.store.acquire().await?;
    load_on(&mut conn, app, id).await
}

/// The game as stored now, read on `conn`.
///
/// # Errors
/// As [`load`].
pub async fn load_on(conn: &mut AnyConnection, app: &App, id: Uuid) -> Result<Game, Error> {
    Ok(game_from_row(&row_on(conn, app, id).await?)?)
}

/// [`load_on`] with every finished record, the oldest included, where it
/// holds only the recent ones ([`games::RECENT_RECORDS`]): for the event
/// log, which shows every round's cards.
///
/// # Errors
/// As [`load`].
pub async fn load_with_every_record(
    conn: &mut AnyConnection,
    app: &App,
    id: Uuid,
) -> Result<Game, Error> {
    let mut row = row_on(conn, app, id).await?;
    games::read_all_records(conn, &mut row).await?;
    Ok(game_from_row(&row)?)
}

/// Game `id`'s row as stored now, read on `conn`.
async fn row_on(conn: &mut AnyConnection, app: &App, id: Uuid) -> Result<games::GameRow, Error> {
    games::load(conn, app.store.backend(), id, false)
        .await?
        .ok_or_else(|| no_game(id))
}

/// Game `id` read for the bearer of `identity`, whose check comes in the
/// game's own statement; a refused token still comes before a missing
/// game. Returns the caller and the game, read only to be shown
/// ([`game_to_show`]).
///
/// # Errors
/// [`Error::Token`], then [`Error::NotFound`].
pub async fn load_as(app: &App, identity: &Identity, id: Uuid) -> Result<(Uuid, Game), Error> {
    let Some(player) = sign_in::named_player(identity) else {
        let mut conn = app.store.acquire().await?;
        let caller = sign_in::check(app, &mut conn, identity).await?;
        let row = row_on(&mut conn, app, id).await?;
        let game = game_to_show(row)?;
        if game.seat_of(caller).is_none() {
            may_watch(&mut conn, id, caller).await?;
        }
        return Ok((caller, game));
    };
    let backend = app.store.backend();
    let (mut conn, read) = app
        .store
        .acquire_with(async |conn| games::load_for(conn, backend, id, false, Some(player)).await)
        .await?;
    let Some((row, found)) = read else {
        sign_in::check(app, &mut conn, identity).await?;
        return Err(no_game(id));
    };
    let caller = sign_in::accept(app, &mut conn, identity, found).await?;
    if !row.seats.iter().any(|s| s.player.id == caller) {
        may_watch(&mut conn, id, caller).await?;
    }
    // Given back before the game is decoded and its view built.
    drop(conn);
    Ok((caller, game_to_show(row)?))
}

/// Game `id` for the bearer of `identity` (whose token expires at
/// `expires_at`, Unix seconds): now, or, given `wait_for_version`, as soon
/// as it passes that version or after `timeout_s` seconds (default 30),
/// whichever comes first. Returns the caller and the game, read only to be
/// shown ([`game_to_show`]). The read, and the poll while it is held, count
/// as the caller being at the game (no `your_turn` is sent then).
///
/// # Errors
/// [`Error::Token`], also when the token expires or its player signs out
/// during the wait; [`Error::Invalid`] for a timeout without a version, a
/// negative version or a timeout over [`LONG_POLL_MAX_SECONDS`];
/// [`Error::NotFound`].
pub async fn view(
    app: &App,
    identity: &Identity,
    expires_at: i64,
    id: Uuid,
    wait_for_version: Option<i64>,
    timeout_s: Option<u64>,
) -> Result<(Uuid, Game), Error> {
    let presence = &app.notifications.presence;
    if wait_for_version.is_none() && timeout_s.is_none() {
        // The token is checked in the game's own statement.
        let (caller, game) = load_as(app, identity, id).await?;
        presence.seen(caller, id, app.now());
        return Ok((caller, game));
    }
    // A long poll holds no connection while it waits. Its token is
    // checked with each read of the game below.
    let caller = match sign_in::named_player(identity) {
        Some(player) => player,
        None => {
            let mut conn = app.store.acquire().await?;
            sign_in::check(app, &mut conn, identity).await?
        }
    };
    let Some(version) = wait_for_version else {
        return Err(Error::invalid("timeout_s: only with wait_for_version"));
    };
    let seconds = timeout_s.unwrap_or(LONG_POLL_DEFAULT_SECONDS);
    if version < 0 || seconds > LONG_POLL_MAX_SECONDS {
        return Err(Error::invalid(format!(
            "wait_for_version: 0 or more; timeout_s: 0 to {LONG_POLL_MAX_SECONDS}"
        )));
    }
    let mut waiter = app.notifier.subscribe_as(id, caller).await;
    // The caller is at the game while the poll is held (notifications).
    let _watching = presence.watch(caller, id);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(seconds);
    loop {
        // Read after subscribing, so a change in between is not missed;
        // the token is checked again in the game's statement, so a poll
        // held by a token signed out or expired meanwhile answers 401.
        let (caller, game) = load_as(app, identity, id).await?;
        sign_in::unexpired(app, expires_at)?;
        if game.version > version {
            return Ok((caller, game));
        }
        match tokio::time::timeout_at(deadline, waiter.wake()).await {
            Ok(Wake::Changed | Wake::Recheck | Wake::SignedOut) => continue,
            Ok(Wake::Shutdown) | Err(_) => {
                // The answer is read now, with the token checked now.
                let (caller, game) = load_as(app, identity, id).await?;
                sign_in::unexpired(app, expires_at)?;
                return Ok((caller, game));
            }
        }
    }
}

/// Refuses `caller` a table of a running event it does not sit at: such
/// tables have no spectators, so no board leaks to another table.
///
/// # Errors
/// [`Error::Forbidden`] `not_seated`; the database's.
pub async fn may_watch(
    conn: &mut sqlx::AnyConnection,
    game: Uuid,
    caller: Uuid,
) -> Result<(), Error> {
    if crate::store::club_events::watching_running_table(conn, game, caller).await? {
        return Err(Error::Forbidden {
            code: "not_seated",
            detail: "a table of a running club evening has no spectators".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rand::seq::IndexedRandom;
    use serde_json::Value;

    use super::*;
    use crate::api::game::view_json;
    use crate::store::record::game_to_row;
    use crate::table::testing::{callers, varied_games};

    /// At every step of random games of both kinds, a game read only to be
    /// shown shows each seat and a spectator what the game read to be
    /// changed shows them, JSON for JSON; and Klaverjassen score-sheet rows
    /// do go out as they were stored.
    #[test]
    fn a_game_read_to_be_shown_shows_what_the_game_read_to_be_changed_shows() {
        let mut rows_as_stored = 0;
        for (mut game, mut rng) in varied_games() {
            let callers = callers(&game);
            for _ in 0..400 {
                let options = game.options_json().to_string();
                let row = game_to_row(&mut game.clone(), 0, options, None).unwrap();
                let mut read = game_from_row(&row).unwrap();
                let mut shown = game_to_show(row).unwrap();
                rows_as_stored += shown.stored_sheet.rows().len();
                // The row's seats are the store's to read apart.
                read.seats.clone_from(&game.seats);
                shown.seats.clone_from(&game.seats);
                for &caller in &callers {
                    let json = |game: &Game| -> Value {
                        serde_json::from_slice(&view_json(game, caller).unwrap()).unwrap()
                    };
                    assert_eq!(json(&shown), json(&read));
                }
                let rules = game.rules.as_ref().unwrap().game();
                let Some(awaiting) = rules.awaiting() else {
                    break;
                };
                let seat = awaiting.seats[0];
                let mv = rules.legal_moves(seat).choose(&mut rng).cloned().unwrap();
                game.play_for(seat, mv, &mut rng).unwrap();
            }
        }
        assert!(rows_as_stored > 0, "no score-sheet row went out as stored");
    }
}
