//! Club mode (*verzaken*): a revoke is accepted, may be taken back while its
//! trick is open, reported by the other team, or found in the review after
//! the last trick.

use crate::rules::Seat;
use crate::rules::fairness::Randomness;

use super::game::{Match, Phase, bit, check_seat};
use super::history::ReportRecord;
use super::moves::MoveError;
use super::options::RevokeMode;
use super::team::Team;

impl Match {
    pub(super) fn club(&self) -> bool {
        self.options.revoke_mode == RevokeMode::Club
    }

    fn require_club(&self) -> Result<(), MoveError> {
        if self.club() {
            Ok(())
        } else {
            Err(MoveError::ClubModeOnly)
        }
    }

    pub(super) fn open_revoke(&self, seat: Seat) -> bool {
        let open = self.deal.completed + 1;
        self.deal
            .revokes
            .iter()
            .any(|revoke| revoke.seat == seat && revoke.trick == open && !revoke.corrected)
    }

    pub(super) fn take_back(&mut self, seat: Seat) -> Result<(), MoveError> {
        self.require_club()?;
        if self.phase != Phase::Playing {
            return Err(MoveError::WrongPhase);
        }
        let trick = self.current_trick();
        if trick.position_of(seat) >= usize::from(trick.len) {
            return Err(MoveError::NothingToTakeBack);
        }
        if !self.open_revoke(seat) {
            return Err(MoveError::NotARevoke);
        }
        self.correct(seat);
        Ok(())
    }

    /// Whether `seat`'s revoke was corrected (taken back or reported) in the
    /// open trick or in the trick that closed since.
    fn recently_corrected(&self, seat: Seat) -> bool {
        let trick = self.deal.corrected_in[seat];
        trick != 0 && self.deal.completed <= trick
    }

    /// Returns `seat`'s card in the open trick and every card after it to
    /// their hands; `seat` plays again and its new card must be allowed.
    pub(super) fn correct(&mut self, seat: Seat) {
        let deal = &mut self.deal;
        let number = deal.completed + 1;
        let trick = &mut deal.tricks[usize::from(deal.completed)];
        let from = trick.position_of(seat);
        for position in from..usize::from(trick.len) {
            let owner = trick.seat_at(position);
            if let Some(card) = trick.cards[position].take() {
                deal.hands[owner].insert(card);
                trick.set.remove(card);
            }
            for revoke in deal.revokes.iter_mut() {
                if revoke.seat == owner && revoke.trick == number {
                    revoke.corrected = true;
                }
            }
        }
        trick.len = from as u8;
        deal.must_play_allowed |= bit(seat);
        deal.corrected_in[seat] = number;
    }

    pub(super) fn report<R: Randomness + ?Sized>(
        &mut self,
        reporter: Seat,
        named: Seat,
        rng: &mut R,
    ) -> Result<(), MoveError> {
        self.require_club()?;
        if !matches!(self.phase, Phase::Playing | Phase::Review) {
            return Err(MoveError::WrongPhase);
        }
        check_seat(named)?;
        if Team::of(named) == Team::of(reporter) {
            return Err(MoveError::OwnTeam);
        }
        if self.phase == Phase::Review && self.deal.review_done & bit(reporter) != 0 {
            return Err(MoveError::AlreadyReported);
        }
        let closed = self.deal.completed;
        let revoked_in_closed_trick = self
            .deal
            .revokes
            .iter()
            .any(|revoke| revoke.seat == named && revoke.trick <= closed && !revoke.corrected);
        if !revoked_in_closed_trick && self.phase == Phase::Playing && self.open_revoke(named) {
            self.correct(named);
            return Ok(());
        }
        if !revoked_in_closed_trick && self.recently_corrected(named) {
            return Err(MoveError::AlreadyCorrected);
        }
        let report = ReportRecord {
            seat: named,
            reported_by: reporter,
            valid: revoked_in_closed_trick,
        };
        self.finish_deal(Some(report), rng);
        Ok(())
    }

    pub(super) fn end_review<R: Randomness + ?Sized>(
        &mut self,
        seat: Seat,
        rng: &mut R,
    ) -> Result<(), MoveError> {
        self.require_club()?;
        if self.phase != Phase::Review {
            return Err(MoveError::WrongPhase);
        }
        if self.deal.review_done & bit(seat) != 0 {
            return Err(MoveError::AlreadyReported);
        }
        self.deal.review_done |= bit(seat);
        if self.deal.review_done == 0b1111 {
            self.finish_deal(None, rng);
        }
        Ok(())
    }
}
