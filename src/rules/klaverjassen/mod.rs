//! Klaverjassen, Rotterdam rules with mandatory play, and the house rules a
//! table may choose instead (the rules, and every decision where they are
//! silent, are in docs/klaverjassen.md).
//!
//! Pure rules: randomness comes in as `&mut impl Rng`; nothing here does I/O.
//! [`Match`] is the whole state; [`Match::legal_moves`] says what a seat may
//! do, [`Match::play`] does it, [`Match::view_for`] is what a seat may see.

mod cardset;
mod club;
mod deal;
mod deal_state;
mod game;
mod history;
mod moves;
mod options;
mod play_rules;
mod roem;
mod rules;
mod scoring;
mod team;
mod trick;
mod view;

pub use cardset::{CardSet, CardSetIter, RANKS, card_at, card_index};
pub use deal::{canonical_deck, deal_from_deck, shuffled_deck};
pub use game::{Match, MatchResult, Phase};
pub use history::{
    CompletedTrick, DealRecord, OpenTrick, PlayedCard, ReportRecord, RevokeRecord, Seeds,
    fill_seeds,
};
pub use moves::{Move, MoveError};
pub use options::{
    FourJacks, HouseRules, OptionError, Options, RevokeMode, TrumpChoice, TrumpObligation,
    Undertrump,
};
pub use play_rules::{
    TrickSoFar, card_points, legal_cards, points_at, refusal, set_points, strength, trick_winner,
};
pub use roem::roem;
pub use scoring::{DEAL_POINTS, DealScore, LAST_TRICK, PIT_BONUS, punishment, score_deal};
pub use team::{BySeat, ByTeam, Team};
pub use view::View;
