//! A club evening as the service keeps it: its settings, entries, status,
//! schedule and secret seed chain, and the changes entries and the
//! organizer make to it before the start. Pure: the store saves it as one
//! document, the use cases load it, change it here and save it.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{Entry, Round, individual, pairs};
use crate::rules::fairness::{DealInputs, Purpose, SeatSeed, Seed, hash_steps, to_hex};
use crate::table::Level;
use crate::table::fairness::{Boards, FairDeals, ServerSeed};

/// The most pairs an evening takes.
pub const MAX_PAIRS: usize = 20;
/// The most players an individual evening takes (10 tables, as many
/// players as 20 pairs).
pub const MAX_PLAYERS: usize = 40;

/// How entries are made (RULES.md section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Pairs (*koppels*): two players who stay partners all evening.
    Pairs,
    /// Individual (*individueel*): partners change every round.
    Individual,
}

/// Where an evening is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventStatus {
    /// Taking entries.
    Open,
    /// Its rounds are being played.
    Running,
    /// Every round has been played.
    Finished,
    /// Called off by the organizer.
    Cancelled,
}

impl EventStatus {
    /// The API's name of the status.
    pub fn as_str(self) -> &'static str {
        match self {
            EventStatus::Open => "open",
            EventStatus::Running => "running",
            EventStatus::Finished => "finished",
            EventStatus::Cancelled => "cancelled",
        }
    }
}

/// What the organizer chose at creation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The evening's name.
    pub name: String,
    /// Pairs or individual.
    pub format: Format,
    /// Rounds, 1..=20.
    pub rounds: u32,
    /// Deals per table per round, 1..=16.
    pub deals: u8,
    /// Whether boards are duplicated (*portefeuille*).
    pub duplicate: bool,
    /// The table options every table gets, as given.
    pub options: serde_json::Value,
    /// Whether the event is kept out of the list of open events.
    pub private: bool,
    /// When the organizer means to start, Unix microseconds.
    pub starts_at: Option<i64>,
}

/// One player of an entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// The player.
    pub id: Uuid,
    /// Its name when it entered.
    pub name: String,
    /// The level of a computer player; `None` for a person.
    pub bot: Option<Level>,
}

/// One entry: a pair, or one player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRecord {
    /// Its players: who entered first, then the partner once it confirmed.
    pub players: Vec<Member>,
    /// Pairs: the partner named and not yet confirmed.
    pub named: Option<Uuid>,
    /// The entry's event seed, mixed into the draw and the boards.
    pub seed: Option<SeatSeed>,
}

impl EntryRecord {
    /// Whether the entry can play: a pair with both players, or a player.
    pub fn complete(&self, format: Format) -> bool {
        match format {
            Format::Pairs => self.players.len() == 2,
            Format::Individual => self.players.len() == 1,
        }
    }
}

/// The evening's secret seed chain (docs/events.md, "Fair boards"): link 1
/// draws the individual schedule, link `1 + b` deals board `b`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSeeds {
    /// The last link; secret.
    top: ServerSeed,
    /// Links in the chain: `rounds * deals + 1`.
    length: u32,
}

impl EventSeeds {
    /// A chain for `rounds` rounds of `deals` deals, its top from `top`.
    pub fn new(top: ServerSeed, rounds: u32, deals: u8) -> EventSeeds {
        EventSeeds {
            top,
            length: rounds * u32::from(deals) + 1,
        }
    }

    /// The links in the chain.
    pub fn length(&self) -> u32 {
        self.length
    }

    /// Link `k` (1..=length) of the chain.
    pub fn link(&self, k: u32) -> Seed {
        hash_steps(self.top.secret(), self.length - k)
    }

    /// The commitment, link 0, public from the creation.
    pub fn commitment(&self) -> String {
        to_hex(&hash_steps(self.top.secret(), self.length))
    }
}

/// Board `board` (from 1) is round `(board - 1) / deals + 1`, deal
/// `(board - 1) % deals + 1`; this is its number.
pub fn board_number(deals: u8, round: u32, deal: u8) -> u32 {
    (round - 1) * u32::from(deals) + u32::from(deal)
}

/// A refusal of a change to an event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// A value that cannot be (`validation_failed`).
    #[error("{0}")]
    Invalid(String),
    /// Not the organizer, or not entered (`forbidden`).
    #[error("{0}")]
    Forbidden(String),
    /// No such entry (`not_found`).
    #[error("{0}")]
    NotFound(String),
    /// The change conflicts with the event's state; `code` is stable.
    #[error("{detail}")]
    Conflict {
        /// `event_started`, `already_entered`, `event_full`,
        /// `entries_incomplete`, `event_over`.
        code: &'static str,
        /// Why.
        detail: String,
    },
}

fn conflict(code: &'static str, detail: impl Into<String>) -> EventError {
    EventError::Conflict {
        code,
        detail: detail.into(),
    }
}

/// A club evening.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The event's id.
    pub id: Uuid,
    /// Who created it and runs it.
    pub organizer: Uuid,
    /// What the organizer chose.
    pub settings: Settings,
    /// Where it is.
    pub status: EventStatus,
    /// Every accepted change adds 1, as at a table.
    pub version: i64,
    /// The entries, in entry order: entry 0 is pair or player 1.
    pub entries: Vec<EntryRecord>,
    /// A private event's invite code.
    pub invite_code: Option<String>,
    /// The secret seed chain.
    pub seeds: EventSeeds,
    /// The schedule, every round, once started.
    pub schedule: Vec<Round>,
    /// The round being played, from 1; 0 before the start.
    pub round: u32,
    /// The tables (games) of every round begun, table 1 first.
    pub tables: Vec<Vec<Uuid>>,
    /// When it was created, Unix microseconds.
    pub created_at: i64,
}

impl Event {
    /// A new open event.
    pub fn new(
        id: Uuid,
        organizer: Uuid,
        settings: Settings,
        top: ServerSeed,
        invite_code: Option<String>,
        now: i64,
    ) -> Event {
        let seeds = EventSeeds::new(top, settings.rounds, settings.deals);
        Event {
            id,
            organizer,
            settings,
            status: EventStatus::Open,
            version: 1,
            entries: Vec::new(),
            invite_code,
            seeds,
            schedule: Vec::new(),
            round: 0,
            tables: Vec::new(),
            created_at: now,
        }
    }

    fn require_open(&self) -> Result<(), EventError> {
        match self.status {
            EventStatus::Open => Ok(()),
            _ => Err(conflict(
                "event_started",
                format!(
                    "the event is {}; entries change only while it is open",
                    self.status.as_str()
                ),
            )),
        }
    }

    fn require_organizer(&self, caller: Uuid) -> Result<(), EventError> {
        if caller == self.organizer {
            Ok(())
        } else {
            Err(EventError::Forbidden(
                "only the organizer may do this".into(),
            ))
        }
    }

    /// The entry `player` belongs to (as either player of a pair).
    pub fn entry_of(&self, player: Uuid) -> Option<Entry> {
        self.entries
            .iter()
            .position(|e| e.players.iter().any(|m| m.id == player))
            .map(|i| i as Entry)
    }

    fn capacity(&self) -> usize {
        match self.settings.format {
            Format::Pairs => MAX_PAIRS,
            Format::Individual => MAX_PLAYERS,
        }
    }

    fn require_room(&self, entries: usize) -> Result<(), EventError> {
        if self.entries.len() + entries > self.capacity() {
            return Err(conflict(
                "event_full",
                format!("the event takes at most {} entries", self.capacity()),
            ));
        }
        Ok(())
    }

    /// `player` enters: alone in an individual event; in a pairs event
    /// naming `partner`, which completes the entry of a partner who named
    /// `player` first, or else makes an incomplete entry.
    pub fn enter(&mut self, player: Member, partner: Option<Uuid>) -> Result<(), EventError> {
        self.require_open()?;
        if self.entry_of(player.id).is_some() {
            return Err(conflict(
                "already_entered",
                "the caller has entered already",
            ));
        }
        match (self.settings.format, partner) {
            (Format::Individual, Some(_)) => {
                return Err(EventError::Invalid(
                    "an individual event takes no partner".into(),
                ));
            }
            (Format::Individual, None) => {
                self.require_room(1)?;
                self.entries.push(EntryRecord {
                    players: vec![player],
                    named: None,
                    seed: None,
                });
            }
            (Format::Pairs, None) => {
                return Err(EventError::Invalid(
                    "a pairs entry names the partner (`partner`: a player id)".into(),
                ));
            }
            (Format::Pairs, Some(partner)) if partner == player.id => {
                return Err(EventError::Invalid("a player cannot partner itself".into()));
            }
            (Format::Pairs, Some(partner)) => {
                let waiting = self.entries.iter_mut().find(|e| {
                    e.named == Some(player.id) && e.players.first().map(|m| m.id) == Some(partner)
                });
                if let Some(entry) = waiting {
                    entry.players.push(player);
                    entry.named = None;
                } else {
                    if self.entry_of(partner).is_some() {
                        return Err(conflict(
                            "already_entered",
                            "the partner named plays in another entry",
                        ));
                    }
                    self.require_room(1)?;
                    self.entries.push(EntryRecord {
                        players: vec![player],
                        named: Some(partner),
                        seed: None,
                    });
                }
            }
        }
        self.version += 1;
        Ok(())
    }

    /// `player` withdraws its entry; a pair's entry goes with either player.
    pub fn withdraw(&mut self, player: Uuid) -> Result<(), EventError> {
        self.require_open()?;
        let entry = self
            .entry_of(player)
            .ok_or_else(|| EventError::NotFound("the caller has not entered".into()))?;
        self.entries.remove(usize::from(entry));
        self.version += 1;
        Ok(())
    }

    /// The organizer removes entry `entry`.
    pub fn remove_entry(&mut self, caller: Uuid, entry: Entry) -> Result<(), EventError> {
        self.require_organizer(caller)?;
        self.require_open()?;
        if usize::from(entry) >= self.entries.len() {
            return Err(EventError::NotFound(format!("no entry {entry}")));
        }
        self.entries.remove(usize::from(entry));
        self.version += 1;
        Ok(())
    }

    /// The organizer adds `count` computer entries (pairs of two computer
    /// players, or single players); `bot(i)` makes the `i`-th new player.
    pub fn add_bots(
        &mut self,
        caller: Uuid,
        count: usize,
        mut bot: impl FnMut(usize) -> Member,
    ) -> Result<(), EventError> {
        self.require_organizer(caller)?;
        self.require_open()?;
        if count == 0 {
            return Err(EventError::Invalid("`count` is at least 1".into()));
        }
        self.require_room(count)?;
        let per_entry = match self.settings.format {
            Format::Pairs => 2,
            Format::Individual => 1,
        };
        for i in 0..count {
            self.entries.push(EntryRecord {
                players: (0..per_entry).map(|m| bot(i * per_entry + m)).collect(),
                named: None,
                seed: None,
            });
        }
        self.version += 1;
        Ok(())
    }

    /// `player`'s entry sends its event seed.
    pub fn set_seed(&mut self, player: Uuid, seed: SeatSeed) -> Result<(), EventError> {
        self.require_open()?;
        let entry = self
            .entry_of(player)
            .ok_or_else(|| EventError::Forbidden("only an entry may send an event seed".into()))?;
        self.entries[usize::from(entry)].seed = Some(seed);
        self.version += 1;
        Ok(())
    }

    /// Players still needed before the start: the partners of incomplete
    /// pairs, and the players that make the field an even number of pairs
    /// (at least 2; 4 with duplicate) or a multiple of 4 players (at least
    /// 4; 8 with duplicate).
    pub fn missing_players(&self) -> usize {
        let entries = self.entries.len();
        let duplicate = self.settings.duplicate;
        match self.settings.format {
            Format::Pairs => {
                let partners = self
                    .entries
                    .iter()
                    .filter(|e| !e.complete(Format::Pairs))
                    .count();
                let least = if duplicate { 4 } else { 2 };
                let field = entries.next_multiple_of(2).max(least);
                partners + 2 * (field - entries)
            }
            Format::Individual => {
                let least = if duplicate { 8 } else { 4 };
                entries.next_multiple_of(4).max(least) - entries
            }
        }
    }

    /// The seeds of the entries, in entry order, as mixed into the draw
    /// and the boards.
    pub fn entry_seeds(&self) -> Vec<Option<SeatSeed>> {
        self.entries.iter().map(|e| e.seed.clone()).collect()
    }

    /// The inputs of the draw (`board` 0) or of board `board`.
    fn with_inputs<T>(&self, board: u32, draw: impl FnOnce(DealInputs<'_>) -> T) -> T {
        let seed = self.seeds.link(board + 1);
        let seat_seeds = self.entry_seeds();
        draw(DealInputs {
            server_seed: &seed,
            game_id: *self.id.as_bytes(),
            deal: board,
            seat_seeds: &seat_seeds,
        })
    }

    /// The deck of board `board` (from 1): `cards`, in canonical order, shuffled.
    pub fn board_deck(&self, board: u32, cards: &mut [crate::rules::cards::Card]) {
        self.with_inputs(board, |inputs| inputs.deck(cards));
    }

    /// The fair-deal state of a table of round `round` of a duplicate
    /// evening: its deals are the round's boards, so every table of the
    /// round gets the same deck for each deal.
    pub fn board_fairness(&self, round: u32) -> FairDeals {
        let deals = u32::from(self.settings.deals);
        let first_board = board_number(self.settings.deals, round, 1);
        let top = ServerSeed::from_secret(self.seeds.link(1 + first_board - 1 + deals));
        FairDeals::for_boards(
            top,
            deals,
            Boards {
                event_id: self.id,
                first_board,
                seeds: self.entry_seeds(),
            },
        )
    }

    /// The organizer starts the evening: every entry complete and the field
    /// full, the schedule made (drawn, in an individual event).
    pub fn start(&mut self, caller: Uuid) -> Result<(), EventError> {
        self.require_organizer(caller)?;
        self.require_open()?;
        let missing = self.missing_players();
        if missing > 0 {
            return Err(conflict(
                "entries_incomplete",
                format!("{missing} players missing"),
            ));
        }
        let rounds = self.settings.rounds;
        self.schedule = match self.settings.format {
            Format::Pairs => pairs::schedule(self.entries.len(), rounds),
            Format::Individual => {
                let entries = self.entries.len();
                self.with_inputs(0, |inputs| {
                    individual::draw(entries, rounds, &mut inputs.stream(Purpose::Draw))
                })
            }
        };
        self.status = EventStatus::Running;
        self.version += 1;
        Ok(())
    }

    /// The organizer calls the evening off (open or running).
    pub fn cancel(&mut self, caller: Uuid) -> Result<(), EventError> {
        self.require_organizer(caller)?;
        if matches!(self.status, EventStatus::Finished | EventStatus::Cancelled) {
            return Err(conflict(
                "event_over",
                format!("the event is {}", self.status.as_str()),
            ));
        }
        self.status = EventStatus::Cancelled;
        self.version += 1;
        Ok(())
    }

    /// The draw seed (link 1), public once the event has started: anyone can
    /// then repeat the draw (docs/events.md).
    pub fn draw_seed(&self) -> Option<String> {
        (self.status != EventStatus::Open && !self.schedule.is_empty())
            .then(|| to_hex(&self.seeds.link(1)))
    }
}

#[cfg(test)]
mod tests;
