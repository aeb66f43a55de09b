//! Roem (*meld*): the bonus points a trick carries to the team that wins it
//! (docs/klaverjassen.md, "Roem").

use crate::rules::cards::{Card, Rank, Suit};

use super::cardset::{CardSet, rank_index};
use super::options::HouseRules;

/// Starting bits of a run of three that stays within one suit.
const RUN3_STARTS: u32 = 0x3F3F_3F3F;
/// Starting bits of a run of four that stays within one suit.
const RUN4_STARTS: u32 = 0x1F1F_1F1F;

/// The roem in a complete trick: the highest sequence (three 20, four 50,
/// natural order 7..A), four of a kind (100; four jacks 200, or 100 under
/// the house rule `four_jacks: 100`) and *stuk* (king and queen of trump,
/// 20, adding to a sequence that holds them).
pub fn roem(trick: CardSet, trump: Suit, rules: HouseRules) -> i32 {
    let bits = trick.bits();
    // The same rank in all four suits: one bit set in every byte, at the
    // same place.
    let four_of_a_kind = bits & (bits >> 8) & (bits >> 16) & (bits >> 24) & 0xFF;
    if four_of_a_kind != 0 {
        let jacks = 1 << rank_index(Rank::Jack).unwrap_or(0);
        return if four_of_a_kind == jacks {
            rules.four_jacks.points()
        } else {
            100
        };
    }
    let run3 = bits & (bits >> 1) & (bits >> 2) & RUN3_STARTS;
    let run4 = run3 & (bits >> 3) & RUN4_STARTS;
    let sequence = if run4 != 0 {
        50
    } else if run3 != 0 {
        20
    } else {
        0
    };
    let stuk = CardSet::single(Card::new(Rank::King, trump))
        | CardSet::single(Card::new(Rank::Queen, trump));
    let stuk = if (trick & stuk) == stuk { 20 } else { 0 };
    sequence + stuk
}
