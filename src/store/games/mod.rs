//! Game rows, their seats and their finished records: the row's types
//! here, reading them in [`read`], writing them in [`write`], and the
//! finished records (one `game_deals` row each) in [`records`].

pub mod read;
pub mod records;
pub mod write;

use serde_json::value::RawValue;
use uuid::Uuid;

use super::players::PlayerRow;

pub use read::{
    CallerToken, due, load, load_for, lobby, next_due, next_due_after, of_player, waiting_tables_of,
};
pub use records::{RECENT_RECORDS, read_all_records};
pub use write::{
    add_seat, insert, remove_seat, set_due, update, write_change, write_change_alone,
    write_change_read_on,
};

/// A stored game: the table's record plus the rules state as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game's id.
    pub id: Uuid,
    /// `klaverjassen` or `potverteren`.
    pub kind: String,
    /// `waiting`, `playing` or `finished`.
    pub status: String,
    /// Adds one with every accepted change.
    pub version: i64,
    /// The player who created the table.
    pub host_id: Uuid,
    /// The table options, JSON.
    pub options: String,
    /// The rules state without its finished records, JSON (a row stored
    /// before the records were kept apart holds them here too, see
    /// `store::layout`); `None` until the table is full.
    pub state: Option<String>,
    /// The finished records (score-sheet rows, settled rounds), JSON each,
    /// in order; those a read left in `game_deals` ([`RECENT_RECORDS`])
    /// are [`RecordJson::held`]. Read with the row, and written by
    /// [`insert`] and [`update`] from the first the row does not hold yet.
    pub records: Vec<RecordJson>,
    /// The secret fair-deal state (seed chains, seat seeds), JSON; `None`
    /// only in rows stored before fair deals.
    pub fairness: Option<String>,
    /// When the table was created, Unix microseconds.
    pub created_at: i64,
    /// Who sits where.
    pub seats: Vec<SeatRow>,
    /// Away seats and the turn deadline, JSON.
    pub automation: Option<String>,
    /// When automatic work is due on this game, Unix microseconds.
    pub due_at: Option<i64>,
    /// How many finished records `game_deals` holds for the game, as
    /// [`load`] read it (0 for a row of the old layout); `None` when not
    /// known, and [`update`] reads it then.
    pub deals_stored: Option<i64>,
}

/// A taken seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    /// The seat number.
    pub seat: u8,
    /// The player in it.
    pub player: PlayerRow,
}

/// A position in a newest-first listing: the last row's creation time and id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// Creation time of the last row seen.
    pub created_at: i64,
    /// Id of the last row seen.
    pub id: Uuid,
}

/// One finished record's JSON as `game_deals` holds it, or the place of
/// one that a read left there ([`RecordJson::held`]).
#[derive(Clone, Debug)]
pub struct RecordJson(Option<Box<RawValue>>);

impl RecordJson {
    /// `text`, checked to be one JSON value; space around it is dropped.
    ///
    /// # Errors
    /// When it is not one JSON value.
    pub fn from_string(text: String) -> Result<RecordJson, serde_json::Error> {
        RawValue::from_string(text).map(RecordJson::from)
    }

    /// The place of a record a read left in the store: the records keep
    /// their count and order, and nothing writes it again.
    pub fn held() -> RecordJson {
        RecordJson(None)
    }

    /// The record's JSON, or `None` for one held in the store.
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref().map(RawValue::get)
    }

    /// The record's JSON as read, or `None` for one held in the store.
    pub fn into_raw(self) -> Option<Box<RawValue>> {
        self.0
    }
}

impl From<Box<RawValue>> for RecordJson {
    fn from(json: Box<RawValue>) -> RecordJson {
        RecordJson(Some(json))
    }
}

/// Two records are equal when their texts are (or both are held).
impl PartialEq for RecordJson {
    fn eq(&self, other: &RecordJson) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RecordJson {}
