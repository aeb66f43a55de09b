//! A game as the API shows it: the view a caller gets of one table, the
//! summary a listing shows, and the JSON of a view.

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::cards::{self, Seat};
use super::klaverjassen::KlaverjassenView;
use super::moves::MoveSchema;
use super::options::OptionsSchema;
use super::potverteren::PotverterenView;
use crate::rules::fairness::SeatSeed;
use crate::table::fairness;
use crate::table::view::{self, ShownOptions};
use crate::table::{self, Game};

/// A game as the caller may see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameView {
    /// The game's id.
    #[schema(example = "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11")]
    pub id: Uuid,
    /// Which game.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Adds one with every accepted change; send it back as `expected_version`.
    #[schema(example = 7)]
    pub version: i64,
    /// The table options.
    #[schema(value_type = OptionsSchema)]
    pub options: ShownOptions,
    /// The player who created the table and controls it before it starts.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub host: Uuid,
    /// Who sits where.
    pub seats: Vec<SeatView>,
    /// The caller's seat, or null for a spectator.
    #[schema(required = true)]
    pub you: Option<Seat>,
    /// Who the table waits for; null when finished.
    #[schema(required = true)]
    pub awaiting: Option<AwaitingView>,
    /// The moves the caller may make now.
    #[schema(value_type = Vec<MoveSchema>)]
    pub legal_moves: Vec<table::Move>,
    /// The Klaverjassen match as the caller may see it; absent until every seat is taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = KlaverjassenView)]
    pub klaverjassen: Option<KlaverjassenView>,
    /// The Potverteren table as the caller may see it; absent until every seat is taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = PotverterenView)]
    pub potverteren: Option<PotverterenView>,
    /// The commitment to the server seeds and the seat seeds in force
    /// (docs/fairness.md).
    pub fairness: FairnessView,
    /// A private table's invite code, for seated players only (null for
    /// others and on public tables): `GET`/`POST /v1/invites/{code}`.
    #[schema(example = "K7M9TQ4XRB")]
    #[schema(required = true)]
    pub invite_code: Option<String>,
    /// The table `POST …/rematch` created after this finished one, for the
    /// players who sat at this table; null before it and for spectators.
    #[schema(example = "7e4d2c1b-9a8f-4e6d-b5c3-1a2b3c4d5e6f")]
    #[schema(required = true)]
    pub rematch: Option<Uuid>,
    /// Seats a rematch holds for the previous match's players: only that
    /// player may take one until `until`, then it is free for anyone.
    pub reserved_seats: Vec<ReservedSeatView>,
}

impl From<view::GameView> for GameView {
    fn from(view: view::GameView) -> GameView {
        GameView {
            id: view.id,
            game: view.game.into(),
            status: view.status.into(),
            version: view.version,
            options: view.options,
            host: view.host,
            seats: view.seats.into_iter().map(SeatView::from).collect(),
            you: view.you.map(Seat::from),
            awaiting: view.awaiting.map(AwaitingView::from),
            legal_moves: view.legal_moves,
            klaverjassen: view.klaverjassen.map(KlaverjassenView::from),
            potverteren: view.potverteren.map(PotverterenView::from),
            fairness: view.fairness.into(),
            invite_code: view.invite_code,
            rematch: view.rematch,
            reserved_seats: view
                .reserved_seats
                .into_iter()
                .map(ReservedSeatView::from)
                .collect(),
        }
    }
}

/// The view `caller` gets of `game` ([`Game::view_for`]), its score sheet
/// led by the rows the game keeps as stored ([`Game::stored_sheet`]).
fn view_of(game: &Game, caller: Option<Uuid>) -> GameView {
    let mut view = GameView::from(game.view_for(caller));
    if let Some(match_view) = view.klaverjassen.as_mut()
        && !game.stored_sheet.is_empty()
    {
        let stored = game.stored_sheet.rows().iter().cloned();
        match_view
            .deals
            .splice(0..0, stored.map(super::klaverjassen::SheetRow::Stored));
    }
    view
}

/// The view `caller` gets of `game` ([`Game::view_for`]) as JSON.
pub fn view_json(game: &Game, caller: Option<Uuid>) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec(&view_of(game, caller))
}

/// [`view_json`] added to the end of `out` (an event stream's frame, say).
pub fn write_view_json(
    game: &Game,
    caller: Option<Uuid>,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    serde_json::to_writer(out, &view_of(game, caller))
}

/// Which game a table plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Klaverjassen, Rotterdam rules, 4 seats.
    Klaverjassen,
    /// Potverteren, 5 to 10 seats.
    Potverteren,
}

impl From<table::GameKind> for GameKind {
    fn from(kind: table::GameKind) -> GameKind {
        match kind {
            table::GameKind::Klaverjassen => GameKind::Klaverjassen,
            table::GameKind::Potverteren => GameKind::Potverteren,
        }
    }
}

/// Where a table is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Seats are still free.
    Waiting,
    /// Every seat is taken and the game is on.
    Playing,
    /// The match is over (or the Potverteren host ended the table).
    Finished,
    /// The table waited too long for players and was closed.
    Abandoned,
}

impl From<table::Status> for Status {
    fn from(status: table::Status) -> Status {
        match status {
            table::Status::Waiting => Status::Waiting,
            table::Status::Playing => Status::Playing,
            table::Status::Finished => Status::Finished,
            table::Status::Abandoned => Status::Abandoned,
        }
    }
}

/// How strong a computer player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A sound rule-based player with a club player's habits.
    Basic,
    /// The strongest player available: at Klaverjassen the exact-solver
    /// player (docs/solver.md), at Potverteren the expected-chips player
    /// (docs/bots.md).
    Strong,
}

impl From<table::Level> for Level {
    fn from(level: table::Level) -> Level {
        match level {
            table::Level::Basic => Level::Basic,
            table::Level::Strong => Level::Strong,
        }
    }
}

/// A seated player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"}))]
pub struct SeatedPlayer {
    /// The player's id.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub id: Uuid,
    /// The player's name.
    #[schema(example = "Anneke")]
    pub name: String,
}

impl From<table::SeatedPlayer> for SeatedPlayer {
    fn from(player: table::SeatedPlayer) -> SeatedPlayer {
        SeatedPlayer {
            id: player.id,
            name: player.name,
        }
    }
}

/// A seat and who sits in it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "seat": 0, "player": {"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"},
    "bot": null, "away": false
}))]
pub struct SeatView {
    /// The seat number.
    pub seat: Seat,
    /// The player in it, or null when free.
    #[schema(required = true)]
    pub player: Option<SeatedPlayer>,
    /// The computer player's level when a computer player sits here, else null.
    #[schema(required = true)]
    pub bot: Option<Level>,
    /// Whether the seat is away: its clock ran out, and its moves are made
    /// for it at once until its player acts again.
    pub away: bool,
}

impl From<view::SeatView> for SeatView {
    fn from(seat: view::SeatView) -> SeatView {
        SeatView {
            seat: seat.seat.into(),
            player: seat.player.map(SeatedPlayer::from),
            bot: seat.bot.map(Level::from),
            away: seat.away,
        }
    }
}

/// What the table waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Players to take the empty seats.
    Join,
    /// The dealer (Klaverjassen) or pothouder (Potverteren) to deal.
    Deal,
    /// The seat after the dealer to name trump.
    ChooseTrump,
    /// A seat to play a card.
    Play,
    /// A seat to bid or pass in the auction.
    Bid,
    /// A seat to ask a card or stand.
    HitOrStand,
    /// Seats to report a revoke or say they are done with the review.
    EndReview,
}

impl From<crate::rules::Action> for Action {
    fn from(action: crate::rules::Action) -> Action {
        use crate::rules::Action as Rules;
        match action {
            Rules::Join => Action::Join,
            Rules::Deal => Action::Deal,
            Rules::ChooseTrump => Action::ChooseTrump,
            Rules::Play => Action::Play,
            Rules::Bid => Action::Bid,
            Rules::HitOrStand => Action::HitOrStand,
            Rules::EndReview => Action::EndReview,
        }
    }
}

/// Who the table waits for, and until when.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"seats": [3], "action": "play", "deadline": "2026-12-05T10:16:00Z"}))]
pub struct AwaitingView {
    /// The seats the table waits for.
    pub seats: Vec<Seat>,
    /// What they are to do.
    pub action: Action,
    /// When their clock runs out (RFC 3339); null on a table without a clock.
    #[schema(example = "2026-12-05T10:16:00Z")]
    #[schema(required = true)]
    pub deadline: Option<chrono::DateTime<chrono::Utc>>,
}

impl From<view::AwaitingView> for AwaitingView {
    fn from(awaiting: view::AwaitingView) -> AwaitingView {
        AwaitingView {
            seats: cards::seats(awaiting.seats),
            action: awaiting.action.into(),
            deadline: awaiting.deadline,
        }
    }
}

/// A seat held for one player (a rematch).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"seat": 2, "player": "c1e7a9b3-2d4f-4e81-a6b5-7f9c3e1d2a48",
    "until": "2026-12-05T10:20:00Z"}))]
pub struct ReservedSeatView {
    /// The seat.
    pub seat: Seat,
    /// The only player who may take it.
    #[schema(example = "c1e7a9b3-2d4f-4e81-a6b5-7f9c3e1d2a48")]
    pub player: Uuid,
    /// When the hold ends.
    #[schema(example = "2026-12-05T10:20:00Z")]
    pub until: chrono::DateTime<chrono::Utc>,
}

impl From<view::ReservedSeatView> for ReservedSeatView {
    fn from(reserved: view::ReservedSeatView) -> ReservedSeatView {
        ReservedSeatView {
            seat: reserved.seat.into(),
            player: reserved.player,
            until: reserved.until,
        }
    }
}

/// The `fairness` object of every view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({
    "commitment": "4f5904d4cb102b7cf840a022240b81982131ef01ec09bef981991123fbdb1c07",
    "chain_length": 16, "chain_start": 1, "next_commitment": null,
    "seat_seeds": ["9f2c", null, null, null]
}))]
pub struct FairnessView {
    /// `s(0)` of the chain that covers the deal in progress or due: SHA-256
    /// applied `k` times to deal `k`'s server seed gives it (k counted from
    /// the chain's first deal).
    #[schema(example = "3f1c9a5e0b7d24c8e6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7")]
    pub commitment: String,
    /// Deals (Klaverjassen) or rounds (Potverteren) per chain.
    #[schema(example = 16)]
    pub chain_length: u32,
    /// The first deal or round the commitment covers (1 for the first chain).
    #[schema(example = 1)]
    pub chain_start: u32,
    /// Potverteren: the next chain's commitment, once the last round of the
    /// current chain has begun; else null.
    #[schema(example = "0554e507e92c9856e895f774c7bdc37eabe99969782990f2cdf4df1e5aa741bd")]
    #[schema(required = true)]
    pub next_commitment: Option<String>,
    /// The seat seeds in force, by seat; null where none was sent.
    #[schema(value_type = Vec<Option<String>>, example = json!(["9f2c", null, null, "00ff17"]))]
    pub seat_seeds: Vec<Option<SeatSeed>>,
}

impl From<fairness::FairnessView> for FairnessView {
    fn from(view: fairness::FairnessView) -> FairnessView {
        FairnessView {
            commitment: view.commitment,
            chain_length: view.chain_length,
            chain_start: view.chain_start,
            next_commitment: view.next_commitment,
            seat_seeds: view.seat_seeds,
        }
    }
}

/// A table in a listing.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11", "game": "klaverjassen", "status": "waiting",
    "version": 2,
    "options": {"revoke_mode": "enforced", "first_dealer": 3, "deals": 16, "auto_deal": true,
        "trump_obligation": "amsterdam", "undertrump": "last_resort",
        "trump_choice": "voorhand", "four_jacks": 200,
        "turn_seconds": 60, "bot_delay_ms": 800, "hints": false, "private": false},
    "host": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72",
    "seats": [
        {"seat": 0, "player": {"id": "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72", "name": "Anneke"},
            "bot": null, "away": false},
        {"seat": 1, "player": {"id": "8a2b4c6d-1e3f-4a5b-9c7d-2e4f6a8b0c1d",
            "name": "Computer 1 (basic)"}, "bot": "basic", "away": false},
        {"seat": 2, "player": null, "bot": null, "away": false},
        {"seat": 3, "player": null, "bot": null, "away": false}
    ]
}))]
pub struct GameSummary {
    /// The game's id.
    #[schema(example = "0b9c5c2e-4f1a-4d2b-9a57-3f0c2d8e6a11")]
    pub id: Uuid,
    /// Which game.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// The game's version.
    #[schema(example = 2)]
    pub version: i64,
    /// The table options.
    #[schema(value_type = OptionsSchema)]
    pub options: ShownOptions,
    /// The player who created the table.
    #[schema(example = "5d3f8a21-7c4e-4b19-8e2a-9f6b1c0d4e72")]
    pub host: Uuid,
    /// Who sits where.
    pub seats: Vec<SeatView>,
}

/// The lobby's summary of a table (public: no hidden information).
impl From<&Game> for GameSummary {
    fn from(game: &Game) -> GameSummary {
        GameSummary {
            id: game.id,
            game: game.kind.into(),
            status: game.status.into(),
            version: game.version,
            options: game.shown_options(),
            host: game.host,
            seats: game.seat_views().into_iter().map(SeatView::from).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::testing::{callers, play_one_move, varied_games};

    /// A view's JSON, written from the API's own types, is byte for byte
    /// what serde_json writes of the table's view, for every seat and a
    /// spectator, at every step of random games of both kinds: revokes,
    /// take-backs and reviews, a computer player, an away seat and a
    /// clock's deadline included.
    #[test]
    fn a_views_json_is_the_tables_view_at_every_step_of_both_games() {
        for (mut game, mut rng) in varied_games() {
            let callers = callers(&game);
            for _ in 0..400 {
                for &caller in &callers {
                    let json = view_json(&game, caller).unwrap();
                    let expected = serde_json::to_vec(&game.view_for(caller)).unwrap();
                    assert_eq!(
                        String::from_utf8(json).unwrap(),
                        String::from_utf8(expected).unwrap()
                    );
                }
                if !play_one_move(&mut game, &mut rng) {
                    break;
                }
            }
        }
    }
}
