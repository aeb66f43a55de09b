//! What the scheduler may do to a table, decided purely from the table and
//! the time it is given: when automatic work falls due (a computer player's
//! turn, a seat away, a clock running out, a table left waiting), and which
//! work that is.

use super::Level;
use super::{Game, Status};
use crate::rules::{Action, Seat};

/// How long a table may wait for players before it is closed (`abandoned`):
/// 24 hours.
pub const ABANDON_AFTER_MICROS: i64 = 24 * 3600 * 1_000_000;

/// How long a computer player has for a move, Unix microseconds: its move
/// is made that long after it falls due, however long it thinks, so that
/// its timing does not tell what it had to choose from (docs/bots.md,
/// "Pacing"). 0: as soon as decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BotTimes {
    /// For every move but the trump choice (`BOT_MOVE_MS`).
    pub moves: i64,
    /// For naming trump or passing (`BOT_TRUMP_MS`), where the strong
    /// player values every suit and the pass: the trump choice is public,
    /// so a time of its own tells nothing of the hand.
    pub trump_choice: i64,
}

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
    ///
    /// A computer player has its time for the move awaited
    /// ([`Game::bot_time`] of `bot_times`), and its move is made that long
    /// after it falls due: its turn falls due so that the move comes the
    /// table's `bot_delay_ms` after `now`, or its time after if that is
    /// longer ([`Game::bot_due`]).
    pub fn schedule(
        &mut self,
        created_at: i64,
        now: i64,
        restart_clock: bool,
        bot_times: BotTimes,
    ) -> Option<i64> {
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
                self.bot_due(now, self.bot_time(bot_times))
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

    /// A computer player's time for the move the table awaits: the trump
    /// choice's while trump is named (or passed), else a move's. Both are
    /// public, so the time tells nothing of any hand.
    pub fn bot_time(&self, bot_times: BotTimes) -> i64 {
        match self.awaiting() {
            Some(awaiting) if awaiting.action == Action::ChooseTrump => bot_times.trump_choice,
            _ => bot_times.moves,
        }
    }

    /// When a computer player whose turn came at `now` starts deciding: its
    /// move, made `bot_move` later, comes the table's `bot_delay_ms` after
    /// `now`, or `bot_move` after `now` if that is longer.
    fn bot_due(&self, now: i64, bot_move: i64) -> i64 {
        let delay = i64::from(self.table.bot_delay_ms) * 1000;
        now + (delay - bot_move).max(0)
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

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use uuid::Uuid;

    use super::BotTimes;
    use crate::rules::Action;
    use crate::table::{Game, GameKind, Level, Move, SeatedPlayer, TableOptions};

    /// A Klaverjassen table of one person (seat 0) and three computer
    /// players, the one in seat 1 dealing first.
    fn table_with_a_bot_dealing(bot_delay_ms: u32) -> Game {
        let chosen = serde_json::json!({"first_dealer": 1, "bot_delay_ms": bot_delay_ms});
        let (options, table) =
            TableOptions::parse_with(GameKind::Klaverjassen, Some(chosen)).unwrap();
        let player = |i: u8, bot| SeatedPlayer {
            id: Uuid::from_u128(u128::from(i) + 1),
            name: format!("player {i}"),
            bot,
        };
        let mut game = Game::create(
            Uuid::new_v4(),
            GameKind::Klaverjassen,
            options,
            table,
            player(0, None),
            None,
            &mut StdRng::seed_from_u64(1),
        )
        .unwrap();
        for i in 1..4 {
            game.join(player(i, Some(Level::Strong)), None).unwrap();
        }
        game
    }

    /// A computer player's move is made `bot_move` after its turn falls
    /// due: with a table delay longer than that, it falls due so that the
    /// move still comes the delay after the change; with a shorter one, the
    /// move comes `bot_move` after the change.
    #[test]
    fn a_computer_players_move_comes_the_tables_delay_after_its_turn_or_its_time_for_a_move_if_longer()
     {
        let (now, moves) = (1_000_000_000, 400_000);
        let times = BotTimes {
            moves,
            trump_choice: 1_500_000,
        };
        for (delay_ms, move_after) in [(800, 800_000), (400, 400_000), (0, 400_000)] {
            let mut game = table_with_a_bot_dealing(delay_ms);
            let due = game.schedule(now, now, true, times);
            assert_eq!(due, Some(now + move_after - moves), "delay {delay_ms}");
        }
        let mut game = table_with_a_bot_dealing(800);
        assert_eq!(
            game.schedule(now, now, true, BotTimes::default()),
            Some(now + 800_000)
        );
    }

    /// At the trump choice a computer player has the trump choice's time
    /// (`BOT_TRUMP_MS`), at every other move a move's (`BOT_MOVE_MS`).
    #[test]
    fn a_computer_player_has_the_trump_choices_time_to_name_trump() {
        let now = 1_000_000_000;
        let times = BotTimes {
            moves: 400_000,
            trump_choice: 1_500_000,
        };
        let mut game = table_with_a_bot_dealing(800);
        assert_eq!(game.bot_time(times), times.moves);
        let dealer = game.awaiting().unwrap().seats[0];
        game.play_for(
            dealer,
            Move::deal(GameKind::Klaverjassen),
            &mut StdRng::seed_from_u64(2),
        )
        .unwrap();
        assert_eq!(game.awaiting().unwrap().action, Action::ChooseTrump);
        assert_eq!(game.bot_time(times), times.trump_choice);
        // The move comes its time after the change, as that is longer than
        // the table's delay of 800 ms: it falls due at once.
        assert_eq!(game.schedule(now, now, true, times), Some(now));
    }
}
