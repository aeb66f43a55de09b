//! One accepted change to a game is written whole or not at all. In a
//! transaction: lock the game, replay or refuse a reused `Idempotency-Key`,
//! check the caller's version, apply the change through the rules, bump the
//! version, append the event, keep the answer for the key, commit; any
//! failure rolls everything back. A change that writes only the game's row
//! and its event is first made on an unlocked read and written only while
//! the game is still at the version read ([`change_unlocked`]).

use sqlx::AnyConnection;
use uuid::Uuid;

use super::answer::{Answer, OK, etag, etag_listed};
use super::commit::{By, Event, after_commit, event_row, next_row, record_change};
use super::context::App;
use super::error::Error;
use super::friends::{release_reservations, writes_after_change};
use super::idempotency::{Keyed, commit_answer, replay};
use super::notifications::{Before, caused};
use super::read::no_game;
use super::refusal::refusal;
use super::sign_in;
use crate::auth::Identity;
use crate::store::record::game_from_row;
use crate::store::{cleanup, games};
use crate::table::{Game, GameError};

/// Who asks for a change: a player whose token was checked already, or the
/// player a token of ours names, whose check comes in the change's own
/// transaction, in the statement that reads the game.
#[derive(Clone, Copy)]
pub struct Caller<'a> {
    /// The player.
    pub player: Uuid,
    /// The token still to check.
    unconfirmed: Option<&'a Identity>,
}

impl From<Uuid> for Caller<'_> {
    fn from(player: Uuid) -> Self {
        Caller {
            player,
            unconfirmed: None,
        }
    }
}

impl<'a> Caller<'a> {
    /// The bearer of a verified token, checked by the change; an external
    /// identity is checked now, on a connection of its own.
    ///
    /// # Errors
    /// As [`sign_in::check`].
    pub async fn of(app: &App, identity: &'a Identity) -> Result<Caller<'a>, Error> {
        match sign_in::named_player(identity) {
            Some(player) => Ok(Caller {
                player,
                unconfirmed: Some(identity),
            }),
            None => {
                let mut conn = app.store.acquire().await?;
                Ok(sign_in::check(app, &mut conn, identity).await?.into())
            }
        }
    }
}

/// A change a caller asks for, besides what the change does.
pub struct Change<'a> {
    /// Who asks.
    pub caller: Caller<'a>,
    /// The game.
    pub game: Uuid,
    /// The request's `Idempotency-Key`, or why it was refused: the refusal
    /// comes after the token's, so a bad token is refused first.
    pub keyed: Result<Option<Keyed>, Error>,
    /// The caller's `If-Match`: the change is refused unless it lists the
    /// game's ETag.
    pub if_match: Option<&'a str>,
    /// The version the caller saw: the change is refused unless the game
    /// is still at it.
    pub expected_version: Option<i64>,
}

/// Applies `apply` to the game for the caller and answers with the
/// caller's new view.
///
/// A change without an `Idempotency-Key` is first made on an unlocked read
/// and written only if the game is still at the version it read
/// ([`change_unlocked`]): on Postgres two round trips where the
/// transaction takes four, and on SQLite the one writer is held only for
/// the writes. A change that another one overtook, or that writes other
/// rows than the game's own, its event and its notifications (a seat, a
/// finished deal's record, a match's result), is made again in the
/// transaction, on the game as it is then: `apply` may run twice, and only
/// the run that is written counts.
///
/// # Errors
/// The token's, the key's, the preconditions', the refusal of `apply`
/// ([`refusal`]), and the database's.
pub async fn change(
    app: &App,
    change: Change<'_>,
    mut apply: impl FnMut(&mut Game) -> Result<Event, GameError>,
) -> Result<Answer, Error> {
    let Change {
        caller,
        game: id,
        keyed,
        if_match,
        expected_version,
    } = change;
    let checks = Checks {
        if_match,
        expected_version,
    };
    if matches!(keyed, Ok(None))
        && let Some(answer) = change_unlocked(app, caller, id, &checks, &mut apply).await?
    {
        return Ok(answer);
    }
    let mut tx = app.store.begin_write().await?;
    let row = read_for_change(app, &mut tx, caller, id, true).await?;
    let keyed = keyed?;
    let row = row.ok_or_else(|| no_game(id))?;
    let player = caller.player;
    // Checked under the game's lock, so a retry racing its original waits for
    // it and then replays its answer.
    if let Some(replayed) = replay(&mut tx, player, keyed.as_ref(), app.now()).await? {
        return Ok(replayed);
    }
    let (mut game, event, before) = apply_checked(app, &row, player, &checks, apply)?;
    let by = By::Player(player);
    let due_at = record_change(app, &mut tx, &mut game, &row, (&before, &event), by).await?;
    let answer = Answer::view(OK, &game, player, None)?;
    let answer = commit_answer(tx, player, keyed.as_ref(), answer, app.now()).await?;
    after_commit(app, &game, &event, due_at, None);
    Ok(answer)
}

/// [`change`] on an unlocked read, written only while the game is still
/// at the version read (`games::write_change_read_on`: on Postgres in one
/// statement, on SQLite in a write transaction sent as one message, which
/// holds the writer only for the writes), with the notifications it causes.
/// `None` when the change must be made in a transaction instead: it writes
/// more than the game's row, its event and its notifications, or another
/// change came first (nothing is written then).
/// Refusals are answered from the game as read, as if the request had come
/// just before whatever changed it since.
async fn change_unlocked(
    app: &App,
    caller: Caller<'_>,
    id: Uuid,
    checks: &Checks<'_>,
    apply: impl FnOnce(&mut Game) -> Result<Event, GameError>,
) -> Result<Option<Answer>, Error> {
    let mut conn = app.store.acquire().await?;
    let row = read_for_change(app, &mut conn, caller, id, false)
        .await?
        .ok_or_else(|| no_game(id))?;
    let (mut game, event, before) = apply_checked(app, &row, caller.player, checks, apply)?;
    if event.seat_change.is_some() || writes_after_change(&game) {
        return Ok(None);
    }
    let at = app.now();
    let (new_row, due_at) = next_row(app, &mut game, &row, &event, at)?;
    if Some(new_row.records.len() as i64) != row.deals_stored {
        // A deal finished: its record is added in the transaction.
        return Ok(None);
    }
    // Written with the change, in its statement: to each subscription
    // there is when the change is written.
    let told = caused(
        &before,
        &game,
        Some(caller.player),
        at,
        app.notifications.delay,
    );
    let event_row = event_row(&event, game.version, By::Player(caller.player), at);
    let answer = Answer::view(OK, &game, caller.player, None)?;
    let written =
        games::write_change_read_on(&app.store, conn, new_row, event_row, due_at, told).await?;
    if !written {
        return Ok(None);
    }
    after_commit(app, &game, &event, due_at, None);
    Ok(Some(answer))
}

/// The game a change is made on, read on `conn` (locked with `lock`), with
/// a token still to check checked in the same statement.
async fn read_for_change(
    app: &App,
    conn: &mut AnyConnection,
    caller: Caller<'_>,
    id: Uuid,
    lock: bool,
) -> Result<Option<games::GameRow>, Error> {
    let read = games::load_for(
        conn,
        app.store.backend(),
        id,
        lock,
        caller.unconfirmed.map(|_| caller.player),
    )
    .await?;
    if let Some(identity) = caller.unconfirmed {
        let found = match &read {
            Some((_, found)) => *found,
            None => cleanup::player_for_token(conn, caller.player).await?,
        };
        sign_in::accept(app, conn, identity, found).await?;
    }
    Ok(read.map(|(row, _)| row))
}

/// What the caller's change is conditional on.
struct Checks<'a> {
    if_match: Option<&'a str>,
    expected_version: Option<i64>,
}

impl Checks<'_> {
    /// Refuses a change to a game at `version` that the caller did not
    /// expect: `If-Match` with another version, then `expected_version`.
    fn hold_at(&self, version: i64) -> Result<(), Error> {
        if let Some(value) = self.if_match
            && !etag_listed(value, version)
        {
            return Err(Error::PreconditionFailed(format!(
                "If-Match {value} does not match the game's ETag {}",
                etag(version)
            )));
        }
        if let Some(expected) = self.expected_version
            && expected != version
        {
            return Err(Error::Conflict {
                code: "version_conflict",
                detail: format!(
                    "expected_version is {expected} but the game is at version {version}"
                ),
            });
        }
        Ok(())
    }
}

/// The game in `row` with `apply` applied for `caller`, after the caller's
/// checks; the change's event, and the game as it was before.
fn apply_checked(
    app: &App,
    row: &games::GameRow,
    caller: Uuid,
    checks: &Checks<'_>,
    apply: impl FnOnce(&mut Game) -> Result<Event, GameError>,
) -> Result<(Game, Event, Before), Error> {
    let now = app.now();
    let mut game = game_from_row(row)?;
    release_reservations(&mut game, now);
    checks.hold_at(game.version)?;
    let before = Before::of(&game);
    let event = apply(&mut game).map_err(|error| {
        // A refusal shows the legal moves of the game as it was, which
        // `apply` may have changed in part: read again from the row only
        // then, instead of a copy of the whole game made before every change.
        let mut before = match game_from_row(row) {
            Ok(before) => before,
            Err(unreadable) => return unreadable.into(),
        };
        release_reservations(&mut before, now);
        refusal(&before, caller, error)
    })?;
    Ok((game, event, before))
}
