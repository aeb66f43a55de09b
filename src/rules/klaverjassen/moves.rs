//! The moves a seat can make, and why a move is refused.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rules::Seat;
use crate::rules::cards::{Card, Suit};

/// A move, tagged by `type` as the API writes it: `{"type":"play","card":"7C"}`.
/// Reading refuses any field the move does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "RawMove")]
pub enum Move {
    /// The dealer deals the cards (3-2-3).
    Deal,
    /// The seat to name trump names it (*troef maken*).
    ChooseTrump {
        /// The trump suit.
        suit: Suit,
    },
    /// With `trump_choice: pass_round`: the seat to name trump passes, and
    /// the next seat is to name it (*passen*).
    Pass,
    /// The seat to play plays a card.
    Play {
        /// The card played.
        card: Card,
    },
    /// Club mode: take back one's revoked card from the open trick.
    TakeBack,
    /// Club mode: report that a seat of the other team revoked.
    ReportRevoke {
        /// The seat reported.
        seat: Seat,
    },
    /// Club mode: say one is done with the review of the deal.
    EndReview,
}

/// A move as read, before it is checked to carry exactly its own fields:
/// serde's `deny_unknown_fields` does not reach the unit variants of an
/// internally tagged enum, so `{"type": "deal", "card": "7C"}` would pass.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMove {
    #[serde(rename = "type")]
    kind: MoveKind,
    suit: Option<Suit>,
    card: Option<Card>,
    seat: Option<Seat>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum MoveKind {
    Deal,
    ChooseTrump,
    Pass,
    Play,
    TakeBack,
    ReportRevoke,
    EndReview,
}

impl TryFrom<RawMove> for Move {
    type Error = String;

    fn try_from(raw: RawMove) -> Result<Move, Self::Error> {
        let (name, field) = match raw.kind {
            MoveKind::Deal => ("deal", None),
            MoveKind::ChooseTrump => ("choose_trump", Some("suit")),
            MoveKind::Pass => ("pass", None),
            MoveKind::Play => ("play", Some("card")),
            MoveKind::TakeBack => ("take_back", None),
            MoveKind::ReportRevoke => ("report_revoke", Some("seat")),
            MoveKind::EndReview => ("end_review", None),
        };
        let present = [
            ("suit", raw.suit.is_some()),
            ("card", raw.card.is_some()),
            ("seat", raw.seat.is_some()),
        ];
        if let Some((extra, _)) = present
            .iter()
            .find(|(other, there)| *there && Some(*other) != field)
        {
            return Err(format!("`{name}` has no field `{extra}`"));
        }
        let missing = || format!("`{name}` needs a `{}`", field.unwrap_or_default());
        Ok(match raw.kind {
            MoveKind::Deal => Move::Deal,
            MoveKind::ChooseTrump => Move::ChooseTrump {
                suit: raw.suit.ok_or_else(missing)?,
            },
            MoveKind::Pass => Move::Pass,
            MoveKind::Play => Move::Play {
                card: raw.card.ok_or_else(missing)?,
            },
            MoveKind::TakeBack => Move::TakeBack,
            MoveKind::ReportRevoke => Move::ReportRevoke {
                seat: raw.seat.ok_or_else(missing)?,
            },
            MoveKind::EndReview => Move::EndReview,
        })
    }
}

/// Why a move was refused; the state is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The move does not belong to the current phase.
    WrongPhase,
    /// It is another seat's turn.
    NotYourTurn,
    /// A seat number outside 0..=3.
    NoSuchSeat {
        /// The seat named.
        seat: Seat,
    },
    /// The card is not in the seat's hand.
    CardNotInHand {
        /// The card played.
        card: Card,
    },
    /// The seat holds the led suit and must follow it (*kleur bekennen*).
    MustFollowSuit {
        /// The card played.
        card: Card,
        /// The suit led.
        led: Suit,
    },
    /// The seat cannot follow and must play a trump (*introeven*).
    MustTrump {
        /// The card played.
        card: Card,
    },
    /// The seat must beat the highest trump in the trick (*overtroeven*).
    MustOvertrump {
        /// The card played.
        card: Card,
    },
    /// The seat may not play a lower trump while it holds a card of another
    /// suit (*ondertroeven*).
    MustNotUndertrump {
        /// The card played.
        card: Card,
    },
    /// A pass where the seat must name trump: the table names trump without
    /// a pass round, or all four seats passed and the voorhand names it.
    MustChooseTrump,
    /// `take_back` of a card that was allowed.
    NotARevoke,
    /// `take_back` by a seat with no card in the open trick.
    NothingToTakeBack,
    /// A report naming a seat of the reporter's own team.
    OwnTeam,
    /// A report or `end_review` by a seat that already said it is done with
    /// the review.
    AlreadyReported,
    /// A report naming a seat whose revoke was corrected (taken back or
    /// reported) in the open trick or in the trick that closed since: a
    /// partner's report that arrived just after the correction, not a false
    /// report.
    AlreadyCorrected,
    /// `take_back`, `report_revoke` or `end_review` at a table that does not
    /// play in club mode.
    ClubModeOnly,
}

impl MoveError {
    /// The stable `snake_case` code the API answers with.
    pub fn code(&self) -> &'static str {
        match self {
            MoveError::WrongPhase => "wrong_phase",
            MoveError::NotYourTurn => "not_your_turn",
            MoveError::NoSuchSeat { .. } => "no_such_seat",
            MoveError::CardNotInHand { .. } => "card_not_in_hand",
            MoveError::MustFollowSuit { .. } => "must_follow_suit",
            MoveError::MustTrump { .. } => "must_trump",
            MoveError::MustOvertrump { .. } => "must_overtrump",
            MoveError::MustNotUndertrump { .. } => "must_not_undertrump",
            MoveError::MustChooseTrump => "must_choose_trump",
            MoveError::NotARevoke => "not_a_revoke",
            MoveError::NothingToTakeBack => "nothing_to_take_back",
            MoveError::OwnTeam => "own_team",
            MoveError::AlreadyReported => "already_reported",
            MoveError::AlreadyCorrected => "already_corrected",
            MoveError::ClubModeOnly => "club_mode_only",
        }
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::WrongPhase => {
                f.write_str("that move does not belong to this phase of the deal")
            }
            MoveError::NotYourTurn => f.write_str("it is not this seat's turn"),
            MoveError::NoSuchSeat { seat } => {
                write!(f, "a Klaverjassen table has seats 0 to 3, not {}", seat.0)
            }
            MoveError::CardNotInHand { card } => write!(f, "{card} is not in this seat's hand"),
            MoveError::MustFollowSuit { card, led } => write!(
                f,
                "{card} may not be played: a seat holding the led suit ({led}) must follow it"
            ),
            MoveError::MustTrump { card } => write!(
                f,
                "{card} may not be played: a seat that cannot follow suit must play a trump"
            ),
            MoveError::MustOvertrump { card } => write!(
                f,
                "{card} may not be played: a seat that can beat the highest trump in the trick must do so"
            ),
            MoveError::MustNotUndertrump { card } => write!(
                f,
                "{card} may not be played: a seat may play a trump lower than the highest in the trick only when it holds nothing but such trumps"
            ),
            MoveError::MustChooseTrump => f.write_str(
                "this seat must name trump: the table has no pass round, or all four seats passed",
            ),
            MoveError::NotARevoke => {
                f.write_str("only a revoked card may be taken back, and this card was allowed")
            }
            MoveError::NothingToTakeBack => {
                f.write_str("this seat has no card in the open trick to take back")
            }
            MoveError::OwnTeam => {
                f.write_str("a team does not report its own seats: report a seat of the other team")
            }
            MoveError::AlreadyReported => {
                f.write_str("this seat has already said it is done with the review")
            }
            MoveError::AlreadyCorrected => f.write_str(
                "this seat's revoke was already corrected in this trick or the one just closed; nothing changed",
            ),
            MoveError::ClubModeOnly => {
                f.write_str("revokes are taken back, reported and reviewed only in club mode")
            }
        }
    }
}

impl std::error::Error for MoveError {}
