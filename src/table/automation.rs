//! What the scheduler may do to a table, decided purely from the table and
//! the time it is given: when automatic work falls due (a computer player's
//! turn, a seat away, a clock running out, a table left waiting), and which
//! work that is.

use super::Level;
use super::{Game, Status};
use crate::rules::Seat;

/// How long a table may wait for players before it is closed (`abandoned`):
/// 24 hours.
pub const ABANDON_AFTER_MICROS: i64 = 24 * 3600 * 1_000_000;

/// Automatic work due on a table now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Work {
    /// Close the table that waited too long for players.
    Abandon,
    /// The computer player in this seat moves.
    Bot(Seat, Level),
    /// The seat is away: its move is made for it at once.
    Away(Seat),
    /// The clock of these awaited seats ran out: they are marked away and
    /// the first one's move is made.
    Clock(Vec<Seat>),
    /// Every person at a Potverteren table is away when a round may begin:
    /// the table ends for its host (`end_table`), as the host would, so a
    /// table nobody is at does not play on by itself for ever.
    EndTable(Seat),
}

impl Game {
    /// After a change at `now`: sets the awaited seats' deadline and returns
    /// when automatic work falls due (`None`: nothing will be, until a
    /// player acts). `created_at` is the table's creation time. Without
    /// `restart_clock` a deadline already running is kept (a change that
    /// leaves the game where it was, such as a seat's seed).
    pub fn schedule(&mut self, created_at: i64, now: i64, restart_clock: bool) -> Option<i64> {
        let running = self.deadline.filter(|_| !restart_clock);
        self.deadline = None;
        match self.status {
            Status::Waiting => return Some(created_at + ABANDON_AFTER_MICROS),
            Status::Finished | Status::Abandoned => return None,
            Status::Playing => {}
        }
        let awaiting = self.awaiting()?;
        let mut due: Option<i64> = None;
        let mut people = false;
        for seat in awaiting.seats {
            let at = if self.away[seat.index()] {
                now
            } else if self.bot_in(seat).is_some() {
                now + i64::from(self.table.bot_delay_ms) * 1000
            } else {
                people = true;
                continue;
            };
            due = Some(due.map_or(at, |d| d.min(at)));
        }
        if people && let Some(seconds) = self.table.turn_seconds {
            let deadline = running.unwrap_or(now + i64::from(seconds) * 1_000_000);
            self.deadline = Some(deadline);
            due = Some(due.map_or(deadline, |d| d.min(deadline)));
        }
        due
    }

    /// The automatic work due at `now`, if any.
    pub fn due_work(&self, created_at: i64, now: i64) -> Option<Work> {
        match self.status {
            Status::Waiting if now >= created_at + ABANDON_AFTER_MICROS => {
                return Some(Work::Abandon);
            }
            Status::Playing => {}
            _ => return None,
        }
        if let Some(host) = self.deserted_host() {
            return Some(Work::EndTable(host));
        }
        let seats = self.awaiting()?.seats;
        if let Some(seat) = seats.iter().copied().find(|s| self.away[s.index()]) {
            return Some(Work::Away(seat));
        }
        if let Some((seat, level)) = seats
            .iter()
            .find_map(|s| self.bot_in(*s).map(|level| (*s, level)))
        {
            return Some(Work::Bot(seat, level));
        }
        match self.deadline {
            Some(deadline) if now >= deadline => Some(Work::Clock(
                seats
                    .into_iter()
                    .filter(|s| self.bot_in(*s).is_none())
                    .collect(),
            )),
            _ => None,
        }
    }

    /// The host's seat at a table where every person is away and the host
    /// may end the table now (Potverteren, before a round has begun).
    fn deserted_host(&self) -> Option<Seat> {
        let mut people = self
            .seats
            .iter()
            .enumerate()
            .filter(|(i, player)| player.is_some() && self.bot_in(Seat(*i as u8)).is_none());
        if !people.all(|(i, _)| self.away[i]) {
            return None;
        }
        let host = self.seat_of(self.host)?;
        self.legal_moves_of(host)
            .iter()
            .any(super::Move::ends_table)
            .then_some(host)
    }

    /// Closes a table that waited too long for players.
    pub fn abandon(&mut self) {
        if self.status == Status::Waiting {
            self.status = Status::Abandoned;
        }
    }

    /// The caller's seat is back: no longer away.
    pub fn back(&mut self, seat: Seat) {
        if let Some(away) = self.away.get_mut(seat.index()) {
            *away = false;
        }
    }
}
