//! Hints and deal analysis: the strong player's choice for the caller's
//! own seat, from the caller's view alone, and the exact value of every
//! card of a finished Klaverjassen deal. Both are computed off the async
//! workers: the solver may think for a while.

use uuid::Uuid;

use super::blocking::off_the_workers;
use super::context::App;
use super::error::Error;
use super::read::load;
use crate::http::hints::{
    DealAnalysis, Hint, NoAnalysis, NoHint, deal_analysis, hint_budget, hint_for,
};
use crate::table::Status;

/// The refusal of a hint to a caller without a seat.
fn not_seated() -> Error {
    Error::Forbidden {
        code: "not_seated",
        detail: "only a seated player gets hints, for its own seat".into(),
    }
}

/// The strong player's choice for `caller`'s own seat at game `id` now,
/// with the estimated value of every legal move.
///
/// # Errors
/// [`Error::NotFound`]; [`Error::Forbidden`] `hints_disabled` for a table
/// made without hints, `not_seated` for a caller without a seat;
/// [`Error::Conflict`] `not_your_turn` when the caller has nothing to
/// decide.
pub async fn hint(app: &App, caller: Uuid, id: Uuid) -> Result<Hint, Error> {
    let game = load(app, id).await?;
    if !game.table.hints {
        return Err(Error::Forbidden {
            code: "hints_disabled",
            detail: "this table was created without hints (`hints: true`)".into(),
        });
    }
    if game.seat_of(caller).is_none() {
        return Err(not_seated());
    }
    let view = game.view_for(Some(caller));
    match off_the_workers(move || hint_for(&view, hint_budget())).await? {
        Ok(hint) => Ok(hint),
        Err(NoHint::NotSeated) => Err(not_seated()),
        Err(NoHint::NothingToDecide) => Err(Error::Conflict {
            code: "not_your_turn",
            detail: if game.status == Status::Playing {
                "you have nothing to decide now".into()
            } else {
                format!("the game is {}: nothing to decide", game.status.as_str())
            },
        }),
    }
}

/// The exact analysis of finished Klaverjassen deal `n` of game `id`.
///
/// # Errors
/// [`Error::NotFound`] for no such game, a deal not over, one ended by a
/// revoke punishment, or a Potverteren game.
pub async fn deal(app: &App, id: Uuid, n: u32) -> Result<DealAnalysis, Error> {
    let game = load(app, id).await?;
    match off_the_workers(move || deal_analysis(&game, n)).await? {
        Ok(analysis) => Ok(analysis),
        Err(NoAnalysis::NotFound(detail)) => Err(Error::NotFound(detail)),
    }
}
