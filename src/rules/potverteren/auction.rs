//! The auction for the pothouder (*opbod*): bids strictly higher, passes
//! final, until one bidder remains or everyone has passed.

use serde::{Deserialize, Serialize};

use super::moves::MAX_BID;
use crate::rules::Seat;

/// The auction in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Auction {
    /// The highest bid so far.
    pub(crate) high_bid: Option<u32>,
    /// The seat that made it.
    pub(crate) high_bidder: Option<Seat>,
    /// Which seats have passed, by seat.
    pub(crate) passed: Vec<bool>,
    /// The seat to bid or pass now.
    pub(crate) to_speak: Seat,
}

/// How an auction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// One bidder remains and every other seat has passed.
    Won { seat: Seat, bid: u32 },
    /// Every seat passed without a bid.
    AllPassed,
}

impl Auction {
    /// A fresh auction at a table of `seats`, opened by `first`.
    pub(crate) fn new(seats: u8, first: Seat) -> Auction {
        Auction {
            high_bid: None,
            high_bidder: None,
            passed: vec![false; usize::from(seats)],
            to_speak: first,
        }
    }

    /// The lowest bid allowed now: one more than the highest bid, at least 1.
    pub(crate) fn minimum(&self) -> u32 {
        self.high_bid.map_or(1, |bid| bid + 1)
    }

    /// Whether any bid at all is still possible (the highest bid is below the cap).
    pub(crate) fn can_bid(&self) -> bool {
        self.minimum() <= MAX_BID
    }

    /// `to_speak` bids `amount` (already checked); returns the outcome if the auction ended.
    pub(crate) fn bid(&mut self, amount: u32) -> Option<Outcome> {
        self.high_bid = Some(amount);
        self.high_bidder = Some(self.to_speak);
        self.advance()
    }

    /// `to_speak` passes; returns the outcome if the auction ended.
    pub(crate) fn pass(&mut self) -> Option<Outcome> {
        self.passed[self.to_speak.index()] = true;
        self.advance()
    }

    /// Seats that have passed, in seat order.
    pub(crate) fn passed_seats(&self) -> Vec<Seat> {
        seats_where(&self.passed)
    }

    fn advance(&mut self) -> Option<Outcome> {
        let passes = self.passed.iter().filter(|&&p| p).count();
        let seats = self.passed.len();
        match (self.high_bidder, self.high_bid) {
            (None, _) if passes == seats => return Some(Outcome::AllPassed),
            (Some(seat), Some(bid)) if passes == seats - 1 => {
                return Some(Outcome::Won { seat, bid });
            }
            _ => {}
        }
        // The high bidder is never reached again while another seat is in,
        // so the next seat not passed is the next to speak.
        let count = u8::try_from(seats).expect("at most 10 seats");
        let mut next = self.to_speak.next(count);
        while self.passed[next.index()] {
            next = next.next(count);
        }
        self.to_speak = next;
        None
    }
}

fn seats_where(flags: &[bool]) -> Vec<Seat> {
    (0u8..)
        .zip(flags)
        .filter(|&(_, &flag)| flag)
        .map(|(seat, _)| Seat(seat))
        .collect()
}
