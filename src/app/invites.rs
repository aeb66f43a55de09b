//! Private tables: a table's invite code shows it, and takes a seat at it.

use uuid::Uuid;

use super::answer::{Answer, OK};
use super::change::Change;
use super::context::App;
use super::error::Error;
use super::friends::release_reservations;
use super::idempotency::{Keyed, replay};
use super::seats::join;
use crate::api::game::GameSummary;
use crate::rules::Seat;
use crate::store::friends as store;
use crate::store::games;
use crate::store::record::game_from_row;
use crate::table::friends::normalise_code;
use crate::table::{Game, Status};

/// What an invite code shows before taking a seat.
pub struct Invitation {
    /// The table.
    pub table: GameSummary,
    /// The host's name.
    pub host_name: String,
    /// The seats still free for the caller.
    pub free_seats: Vec<Seat>,
}

/// The live table of invite `code` (case and dashes ignored).
async fn invited_game(app: &App, code: &str) -> Result<Game, Error> {
    let unknown = || Error::NotFound("no table with this invite code".into());
    let code = normalise_code(code).ok_or_else(unknown)?;
    let mut conn = app.store.acquire().await?;
    let id = store::game_of_invite(&mut conn, &code)
        .await?
        .ok_or_else(unknown)?;
    let row = games::load(&mut conn, app.store.backend(), id, false)
        .await?
        .ok_or_else(unknown)?;
    let game = game_from_row(&row)?;
    if !matches!(game.status, Status::Waiting | Status::Playing) {
        return Err(unknown());
    }
    Ok(game)
}

/// The table of invite `code` as `caller` may join it.
///
/// # Errors
/// [`Error::NotFound`] for an unknown code or a table that is over.
pub async fn show(app: &App, caller: Uuid, code: &str) -> Result<Invitation, Error> {
    let mut game = invited_game(app, code).await?;
    release_reservations(&mut game, app.now());
    let host_name = game
        .seats
        .iter()
        .flatten()
        .find(|p| p.id == game.host)
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let free_seats = (0..game.seats.len() as u8)
        .filter(|&s| {
            game.status == Status::Waiting
                && game.seats[usize::from(s)].is_none()
                && game.friends.may_take(s, caller)
        })
        .map(Seat)
        .collect();
    Ok(Invitation {
        table: GameSummary::from(&game),
        host_name,
        free_seats,
    })
}

/// Seats `caller` at the table of invite `code`, at seat `wanted` or the
/// first free one, as taking a seat by the table's id does. A caller
/// already seated there gets the view, unchanged.
///
/// # Errors
/// [`Error::NotFound`] for an unknown code or a table that is over; as
/// [`join`].
pub async fn accept(
    app: &App,
    caller: Uuid,
    code: &str,
    keyed: Result<Option<Keyed>, Error>,
    if_match: Option<&str>,
    wanted: Option<u8>,
) -> Result<Answer, Error> {
    let game = invited_game(app, code).await?;
    if game.seat_of(caller).is_some() {
        // Seated by an earlier request: one with this `Idempotency-Key`
        // (replayed, or refused if it was another request), or none.
        if let Some(keyed) = keyed? {
            let mut conn = app.store.acquire().await?;
            if let Some(replayed) = replay(&mut conn, caller, Some(&keyed), app.now()).await? {
                return Ok(replayed);
            }
        }
        return Answer::view(OK, &game, caller, None);
    }
    let asked = Change {
        caller: caller.into(),
        game: game.id,
        keyed,
        if_match,
        expected_version: None,
    };
    join(app, asked, wanted).await
}
