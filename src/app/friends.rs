//! What tables among friends add to every change: a rematch's held seats
//! run out, a private table's invite code stops working once the table is
//! over, and a finished game counts in its players' results.

use super::error::Error;
use super::results::record_results;
use crate::store::friends as store;
use crate::store::record::system_rng;
use crate::store::{Backend, Tx};
use crate::table::friends::invite_code;
use crate::table::{Game, Status};

/// Forgets the seats a rematch held whose time ran out at `now` (or that
/// were taken), before a change is applied to `game`.
pub fn release_reservations(game: &mut Game, now: i64) {
    let seats = &game.seats;
    game.friends
        .release(now, |seat| seats[usize::from(seat)].is_some());
}

/// Inside the transaction of every accepted change: a private table's
/// code stops working once it is over, and a game that just finished
/// counts, once, in its players' statistics and ratings.
///
/// # Errors
/// The database's.
pub async fn after_change(tx: &mut Tx, backend: Backend, game: &Game) -> Result<(), Error> {
    if !writes_after_change(game) {
        return Ok(());
    }
    if game.friends.invite_code.is_some() {
        store::drop_invite_code(tx, game.id).await?;
    }
    if game.status == Status::Finished && store::mark_result(tx, game.id).await? {
        record_results(tx, backend, game).await?;
        // A table of a club evening: its event has work (the standings
        // changed; the next round may start), due at once.
        if let Some(event) = crate::store::club_events::of_game(tx, game.id).await? {
            crate::store::club_events::make_due(tx, event, 0).await?;
        }
    }
    Ok(())
}

/// Whether [`after_change`] writes anything for `game` as changed: only
/// when it is over.
pub fn writes_after_change(game: &Game) -> bool {
    matches!(game.status, Status::Finished | Status::Abandoned)
}

/// Gives a private table its invite code: random from the operating
/// system's CSPRNG, and drawn again in the rare case a live table has it.
///
/// # Errors
/// [`Error::Internal`] when eight draws in a row are taken; the database's.
pub async fn assign_invite_code(tx: &mut Tx, game: &mut Game) -> Result<(), Error> {
    if !game.table.private {
        return Ok(());
    }
    for _ in 0..8 {
        let code = invite_code(&mut system_rng());
        if store::claim_invite_code(tx, &code, game.id).await? {
            game.friends.invite_code = Some(code);
            return Ok(());
        }
    }
    Err(Error::Internal("no free invite code after 8 draws".into()))
}
