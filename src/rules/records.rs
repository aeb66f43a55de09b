//! The finished records a game keeps: a Klaverjassen match's score-sheet
//! rows, a Potverteren table's settled rounds. One is added at the end of
//! each deal or round and never changes after; whoever keeps the game may
//! set them aside and put them back (the store keeps them apart from the
//! rest of the state, and may bring back only the newest).

/// A game state with a list of finished records, oldest first.
pub trait FinishedRecords {
    /// One finished deal's or round's record.
    type Record;

    /// The finished records held, oldest first.
    fn finished_records(&self) -> &[Self::Record];

    /// The finished records held, to set aside and put back.
    fn finished_records_mut(&mut self) -> &mut Vec<Self::Record>;
}
