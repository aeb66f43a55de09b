//! What a caller sees of a game: the table envelope around the rules core's
//! own per-seat projection, so hidden information is decided by the rules
//! and by the table here, never by the API layer that renders it.

use serde::Serialize;
use uuid::Uuid;

use super::Level;
use super::fairness::FairnessView;
use super::{Game, GameKind, Move, Options, RulesView, SeatedPlayer, Status, TableOptions};
use crate::rules::{Action, Seat, klaverjassen, potverteren};

/// A seat and who sits in it.
#[derive(Clone, Debug, Serialize)]
pub struct SeatView {
    /// The seat number.
    pub seat: Seat,
    /// The player in it, `None` when free.
    pub player: Option<SeatedPlayer>,
    /// The computer player's level when a computer player sits here.
    pub bot: Option<Level>,
    /// Whether the seat is away: its clock ran out, and its moves are made
    /// for it at once until its player acts again.
    pub away: bool,
}

/// Who the table waits for, and until when.
#[derive(Clone, Debug, Serialize)]
pub struct AwaitingView {
    /// The seats the table waits for.
    pub seats: Vec<Seat>,
    /// What they are to do.
    pub action: Action,
    /// When their clock runs out; `None` on a table without a clock.
    pub deadline: Option<chrono::DateTime<chrono::Utc>>,
}

/// A table's options as views show them: the game's own and the table
/// options both games share, in one object (as `Game::options_json`
/// builds them, without building a JSON tree first).
#[derive(Debug, Serialize)]
pub struct ShownOptions {
    /// The game's own options.
    #[serde(flatten)]
    pub game: Options,
    /// The table options.
    #[serde(flatten)]
    pub table: TableOptions,
}

/// A game as one seat (or a spectator) may see it: what a person in that
/// seat gets, and all a computer player in it may decide from.
#[derive(Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: Uuid,
    /// Which game.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Adds one with every accepted change.
    pub version: i64,
    /// The table options.
    pub options: ShownOptions,
    /// The player who created the table.
    pub host: Uuid,
    /// Who sits where.
    pub seats: Vec<SeatView>,
    /// The seat seen from, `None` for a spectator.
    pub you: Option<Seat>,
    /// Who the table waits for; `None` when finished.
    pub awaiting: Option<AwaitingView>,
    /// The moves that seat may make now.
    pub legal_moves: Vec<Move>,
    /// The Klaverjassen match as that seat may see it, once every seat is
    /// taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub klaverjassen: Option<klaverjassen::View>,
    /// The Potverteren table as that seat may see it, once every seat is
    /// taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potverteren: Option<potverteren::View>,
    /// The commitment to the server seeds and the seat seeds in force.
    pub fairness: FairnessView,
    /// A private table's invite code, for a seated player only.
    pub invite_code: Option<String>,
    /// The table a rematch created after this finished one, for a player
    /// who sat at this table only.
    pub rematch: Option<Uuid>,
    /// Seats a rematch holds for the previous match's players.
    pub reserved_seats: Vec<ReservedSeatView>,
}

impl GameView {
    /// The Klaverjassen moves among `legal_moves` (none at Potverteren), as
    /// the Klaverjassen players and the hint weigh them.
    pub fn klaverjassen_moves(&self) -> Vec<klaverjassen::Move> {
        self.legal_moves
            .iter()
            .filter_map(|m| match m {
                Move::Klaverjassen(m) => Some(*m),
                Move::Potverteren(_) | Move::Table(_) => None,
            })
            .collect()
    }
}

/// A seat held for one player (a rematch).
#[derive(Clone, Debug, Serialize)]
pub struct ReservedSeatView {
    /// The seat.
    pub seat: Seat,
    /// The only player who may take it.
    pub player: Uuid,
    /// When the hold ends.
    pub until: chrono::DateTime<chrono::Utc>,
}

impl Game {
    /// The table's options as views show them.
    pub fn shown_options(&self) -> ShownOptions {
        ShownOptions {
            game: self.options.clone(),
            table: self.table.clone(),
        }
    }

    /// The game as `caller` may see it: its own seat's view when seated, the
    /// spectator view otherwise.
    pub fn view_for(&self, caller: Option<Uuid>) -> GameView {
        self.view_of_seat(caller.and_then(|p| self.seat_of(p)))
    }

    /// The game as `seat` may see it (`None`: a spectator): what a person in
    /// that seat gets, and all a computer player in it may decide from.
    pub fn view_of_seat(&self, you: Option<Seat>) -> GameView {
        let RulesView {
            mut klaverjassen,
            mut potverteren,
        } = self
            .rules
            .as_ref()
            .map(|rules| rules.game().view(you))
            .unwrap_or_default();
        // Seeds of finished deals only: those rows exist once a deal is over.
        // A row has them since its deal ended; one stored before rows kept
        // them gets them here.
        if let Some(view) = klaverjassen.as_mut() {
            crate::rules::klaverjassen::fill_seeds(&mut view.deals, |deal| {
                self.fairness.seeds_of(deal)
            });
        }
        if let Some(last) = potverteren
            .as_mut()
            .and_then(|view| view.last_round.as_mut())
            && let Some(revealed) = self.fairness.reveal(last.round)
        {
            last.server_seed = Some(revealed.server_seed);
            last.seat_seeds = revealed
                .seat_seeds
                .into_iter()
                .map(|s| s.map(String::from))
                .collect();
        }
        GameView {
            id: self.id,
            game: self.kind,
            status: self.status,
            version: self.version,
            options: self.shown_options(),
            host: self.host,
            seats: self.seat_views(),
            you,
            awaiting: self.awaiting().map(|a| AwaitingView {
                seats: a.seats,
                action: a.action,
                deadline: self
                    .deadline
                    .and_then(chrono::DateTime::from_timestamp_micros),
            }),
            legal_moves: you.map(|s| self.legal_moves_of(s)).unwrap_or_default(),
            klaverjassen,
            potverteren,
            fairness: self.fairness.view(self.deal_number()),
            invite_code: you.and(self.friends.invite_code.clone()),
            rematch: you.and(self.friends.rematch),
            reserved_seats: self
                .friends
                .reservations
                .iter()
                .filter(|r| {
                    self.status == Status::Waiting && self.seats[usize::from(r.seat)].is_none()
                })
                .map(|r| ReservedSeatView {
                    seat: Seat(r.seat),
                    player: r.player,
                    until: chrono::DateTime::from_timestamp_micros(r.until).unwrap_or_default(),
                })
                .collect(),
        }
    }

    /// Every seat and who sits in it, public to anyone.
    pub fn seat_views(&self) -> Vec<SeatView> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, player)| SeatView {
                seat: Seat(i as u8),
                player: player.clone(),
                bot: player.as_ref().and_then(|p| p.bot),
                away: self.away.get(i).copied().unwrap_or(false),
            })
            .collect()
    }
}
