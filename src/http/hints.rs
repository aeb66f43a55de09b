//! Hints and deal analysis (docs/api.md, "Hints and analysis"):
//! `GET /v1/games/{id}/hint`, the strong player's choice for the caller's
//! own seat from the caller's view alone, and
//! `GET /v1/games/{id}/deals/{n}/analysis`, the exact value of every card of
//! a finished Klaverjassen deal, over HTTP.

use actix_web::{get, web};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::AuthPlayer;
use super::problems::{NoSuchGame, Unauthenticated};
use super::state::AppState;
use crate::api::moves::MoveSchema;
use crate::app::hints;
use crate::rules::Seat;
use crate::rules::cards::Card;
use crate::table::Move;

/// A move and what it is estimated to be worth.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct MoveValue {
    /// One of the caller's legal moves.
    #[schema(value_type = MoveSchema)]
    #[serde(rename = "move")]
    pub mv: Move,
    /// Klaverjassen: the deal's final score difference, the caller's team
    /// minus the other, as the score sheet counts it, averaged over the
    /// sampled deals. Potverteren: the caller's expected chips this round
    /// from now on. Null for a move not weighed (the only sensible move).
    #[schema(example = 23.5)]
    #[schema(required = true)]
    pub value: Option<f64>,
}

/// The strong player's advice for the caller's seat now.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"version": 12, "move": {"type": "play", "card": "JH"},
    "moves": [{"move": {"type": "play", "card": "JH"}, "value": 41.3},
              {"move": {"type": "play", "card": "7H"}, "value": 12.0}]}))]
pub struct Hint {
    /// The game version the hint is for.
    pub version: i64,
    /// The strong player's choice.
    #[schema(value_type = MoveSchema)]
    #[serde(rename = "move")]
    pub mv: Move,
    /// Every legal move of the caller (reports and seeds aside), with its
    /// estimated value.
    pub moves: Vec<MoveValue>,
}

impl From<hints::Hint> for Hint {
    fn from(hint: hints::Hint) -> Self {
        Hint {
            version: hint.version,
            mv: hint.mv,
            moves: hint
                .moves
                .into_iter()
                .map(|m| MoveValue {
                    mv: m.mv,
                    value: m.value,
                })
                .collect(),
        }
    }
}

/// The strong player's choice for the caller's own seat now, with the
/// estimated value of every legal move, decided from the caller's view
/// alone (docs/api.md, "Hints and analysis").
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game")),
    responses(
        (status = 200, description = "The hint", body = Hint),
        Unauthenticated,
        (status = 403, description = "`hints_disabled`: the table was created without `hints: true`; `not_seated`: the caller has no seat here", body = Problem, content_type = "application/problem+json"),
        NoSuchGame,
        (status = 409, description = "`not_your_turn`: nothing for the caller to decide now (another seat's turn, the table not started, or the game over)", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}/hint")]
pub async fn get_hint(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    id: web::Path<Uuid>,
) -> Result<web::Json<Hint>, ApiError> {
    Ok(web::Json(
        hints::hint(&state.app, caller.id, *id).await?.into(),
    ))
}

/// One card of a deal and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"trick": 1, "seat": 0, "card": "9C", "value_before": 42,
    "value_after": 22, "lost": 20}))]
pub struct CardAnalysis {
    /// The trick, 1..=8.
    #[schema(example = 1)]
    pub trick: u8,
    /// The seat that played the card.
    #[schema(value_type = crate::api::cards::Seat)]
    pub seat: Seat,
    /// The card.
    #[schema(value_type = crate::api::cards::Card)]
    pub card: Card,
    /// The value before the card: the final score difference, team A minus
    /// team B, under best play by both teams from there.
    #[schema(example = 42)]
    pub value_before: i32,
    /// The value after the card, the same way.
    #[schema(example = 22)]
    pub value_after: i32,
    /// What the card cost its own team against its best card: 0 for a best
    /// card, more for a mistake (`value_before - value_after` for team A,
    /// the opposite for team B). Only a revoke left standing can show less
    /// than 0 (the solver's best card is always an allowed one).
    #[schema(example = 20)]
    pub lost: i32,
}

/// The exact analysis of a finished Klaverjassen deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct DealAnalysis {
    /// The deal's number.
    #[schema(example = 1)]
    pub deal: u8,
    /// The value of the deal as dealt (after trump), before the first card:
    /// the final score difference, team A minus team B, under best play.
    #[schema(example = 42)]
    pub par: i32,
    /// The deal's result on the score sheet: team A's score minus team B's.
    #[schema(example = 2)]
    pub result: i32,
    /// Every card played, in play order.
    pub cards: Vec<CardAnalysis>,
}

impl From<hints::CardAnalysis> for CardAnalysis {
    fn from(card: hints::CardAnalysis) -> CardAnalysis {
        CardAnalysis {
            trick: card.trick,
            seat: card.seat,
            card: card.card,
            value_before: card.value_before,
            value_after: card.value_after,
            lost: card.lost,
        }
    }
}

impl From<hints::DealAnalysis> for DealAnalysis {
    fn from(deal: hints::DealAnalysis) -> DealAnalysis {
        DealAnalysis {
            deal: deal.deal,
            par: deal.par,
            result: deal.result,
            cards: deal.cards.into_iter().map(CardAnalysis::from).collect(),
        }
    }
}

/// The exact analysis of finished Klaverjassen deal `n`: its par and, for
/// every card played, the value before and after it and what it cost
/// (docs/api.md, "Hints and analysis"). Every hand is public once the deal
/// is over, so anyone who may see the game may see it.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The game"),
        ("n" = u32, Path, description = "The deal's number, from 1")),
    responses(
        (status = 200, description = "The analysis", body = DealAnalysis),
        Unauthenticated,
        (status = 404, description = "`not_found`: no such game; or deal n is not over (or does not exist), was ended by a revoke punishment, or the game is Potverteren", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{id}/deals/{n}/analysis")]
pub async fn get_deal_analysis(
    state: web::Data<AppState>,
    caller: AuthPlayer,
    path: web::Path<(Uuid, u32)>,
) -> Result<web::Json<DealAnalysis>, ApiError> {
    let (id, n) = path.into_inner();
    Ok(web::Json(
        hints::deal(&state.app, caller.id, id, n).await?.into(),
    ))
}
