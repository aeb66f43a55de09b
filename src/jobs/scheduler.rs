//! The scheduler: every instance runs one. It makes the moves no person
//! makes: a computer player's turn, the move of a seat whose clock ran out
//! or that is away, and closing a table that waited too long for players.
//!
//! Work is due when a game row's `due_at` has passed; the change that makes
//! work due writes `due_at` in its own transaction, so nothing is lost when
//! an instance dies. The runner picks due games (on Postgres with `FOR
//! UPDATE SKIP LOCKED`, so instances share the work), reads the game and
//! decides the move outside any lock (a computer player thinks here), then
//! applies it in one transaction under the row's lock, only if the version
//! is still the one it read; otherwise it reads again and decides again.
//! The move goes through the same path as a player's (`record_change`), so
//! it is one version, one event, and wakes streams and long polls. Each
//! instance wakes at once when a change it hears of (its own, or another's
//! through `LISTEN` while a stream or long poll keeps that open) makes work
//! due before it would look anyway, on a jump of a hand-moved clock, and
//! polls every second as a fallback.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::{JoinError, JoinSet};
use uuid::Uuid;

use crate::ai::Chosen;
use crate::app::blocking::off_the_workers;
use crate::app::commit::{By, Event, after_commit, record_change};
use crate::app::context::App;
use crate::app::error::Error;
use crate::app::notifications::Before;
use crate::app::play::{computer_move, computer_move_by, seat_move};
use crate::clock::{sleep_until, whole_millis};
use crate::rules::Seat;
use crate::store::games;
use crate::store::record::game_from_row;
use crate::table::automation::Work;
use crate::table::{Game, Level, Move};

/// How often an idle runner looks for due work without being woken.
const POLL: Duration = Duration::from_secs(1);
/// New games picked per round.
const BATCH: i64 = 16;
/// How many games an instance works on at once. Most of them wait for
/// their computer player's time; the players that think share the cores,
/// each within its own time limit.
const IN_FLIGHT: usize = 64;
/// How often a move is decided afresh after losing a race for the game.
const ATTEMPTS: usize = 8;

/// Runs until the server shuts down. The moves in hand are finished first.
pub async fn run(app: App) {
    let jumps = app.clock.jumps();
    let mut in_flight = InFlight::default();
    while !app.notifier.is_shutting_down() {
        app.notifier.scheduler_awake();
        in_flight.forget_finished();
        let started = match round(&app, &mut in_flight).await {
            Ok(started) => started,
            Err(error) => {
                tracing::warn!(%error, "scheduler round failed");
                false
            }
        };
        if started {
            continue;
        }
        let wait = async {
            match &jumps {
                Some(jumps) => jumps.notified().await,
                None => std::future::pending().await,
            }
        };
        let sleep = idle_wait(&app).await;
        let until = app
            .clock
            .now_micros()
            .saturating_add(i64::try_from(sleep.as_micros()).unwrap_or(i64::MAX));
        app.notifier.scheduler_sleeps_until(until);
        tokio::select! {
            _ = app.notifier.work.notified() => {}
            _ = wait => {}
            _ = tokio::time::sleep(sleep) => {}
            _ = in_flight.one_finished() => {}
        }
    }
    in_flight.all_finished().await;
}

/// The games this instance works on, each in a task of its own.
#[derive(Default)]
struct InFlight {
    tasks: JoinSet<()>,
    games: HashMap<tokio::task::Id, Uuid>,
}

impl InFlight {
    fn holds(&self, game: Uuid) -> bool {
        self.games.values().any(|held| *held == game)
    }

    fn is_full(&self) -> bool {
        self.games.len() >= IN_FLIGHT
    }

    /// Starts working on game `id`.
    fn start(&mut self, app: &App, id: Uuid) {
        let app = app.clone();
        let task = self.tasks.spawn(async move { work_on(&app, id).await });
        self.games.insert(task.id(), id);
    }

    fn finished(&mut self, done: Result<(tokio::task::Id, ()), JoinError>) {
        let task = match done {
            Ok((task, ())) => task,
            Err(error) => {
                tracing::error!(%error, "automatic move task failed");
                error.id()
            }
        };
        self.games.remove(&task);
    }

    fn forget_finished(&mut self) {
        while let Some(done) = self.tasks.try_join_next_with_id() {
            self.finished(done);
        }
    }

    /// Returns when one game's task ends; never, with none in flight.
    async fn one_finished(&mut self) {
        match self.tasks.join_next_with_id().await {
            Some(done) => self.finished(done),
            None => std::future::pending().await,
        }
    }

    async fn all_finished(&mut self) {
        while let Some(done) = self.tasks.join_next_with_id().await {
            self.finished(done);
        }
    }
}

/// How long to sleep with nothing new due: until the next work due later
/// on a running clock, at most [`POLL`]. (Work due already is in hand, or
/// waits for a game in hand to finish.)
async fn idle_wait(app: &App) -> Duration {
    let now = app.clock.now_micros();
    let next = match app.store.acquire().await {
        Ok(mut conn) => games::next_due_after(&mut conn, now).await.ok().flatten(),
        Err(_) => None,
    };
    match next {
        Some(due) if app.clock.jumps().is_none() => {
            Duration::from_micros(due.saturating_sub(now).max(1) as u64).min(POLL)
        }
        _ => POLL,
    }
}

/// How long the oldest due automatic work has waited, in seconds: 0 when
/// none is due.
///
/// # Errors
/// The database's.
pub async fn lag_seconds(app: &App) -> Result<f64, Error> {
    let mut conn = app.store.acquire().await?;
    let next = games::next_due(&mut conn).await?;
    let now = app.now();
    Ok(next.map_or(0.0, |due| (now - due).max(0) as f64 / 1e6))
}

/// One round: starts work on the due games not in hand yet. True when it
/// started some, so the runner looks again at once.
async fn round(app: &App, in_flight: &mut InFlight) -> Result<bool, Error> {
    let now = app.clock.now_micros();
    let mut tx = app.store.begin_write().await?;
    let limit = BATCH + in_flight.games.len() as i64;
    let due = games::due(&mut tx, app.store.backend(), now, limit).await?;
    tx.commit().await?;
    let mut started = false;
    for id in due {
        if app.notifier.is_shutting_down() || in_flight.is_full() {
            break;
        }
        if !in_flight.holds(id) {
            in_flight.start(app, id);
            started = true;
        }
    }
    Ok(started)
}

/// Makes the automatic move due on game `id`. A game that fails is left
/// alone for a while (it stays due), not tried again at once.
async fn work_on(app: &App, id: Uuid) {
    if let Err(error) = step(app, id).await {
        tracing::warn!(%error, game = %id, "automatic move failed");
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            () = app.notifier.shutting_down() => {}
        }
    }
}

/// When a computer player's move is made: `bot_move` after it fell `due`,
/// or, if it was `picked` up more than half of `bot_move` late (an instance
/// that was busy or down), `bot_move / 2` after it was picked up, so that
/// the player has that long at least. Either way the time does not depend
/// on how long the player thinks. Whole milliseconds.
fn move_time(due: i64, picked: i64, bot_move: i64) -> i64 {
    whole_millis(due.max(picked - bot_move / 2) + bot_move)
}

/// How long before its move is made a computer player stops thinking: the
/// time for drawing its last sample, ending its threads and a busy machine,
/// so that its decision is in hand when the move is made.
const THINKING_MARGIN: Duration = Duration::from_millis(50);

/// A computer player's decision on `game`, given at `at`, the time its
/// move is made. It thinks until [`THINKING_MARGIN`] before then at the
/// latest (every search it starts ends by then, so none runs on unheeded)
/// and its decision is its own if it decides by `at`; else (counted in
/// `bot_moves_over_budget`, as is a player that fell back on a simpler
/// player's move for want of time) the `basic` player's, so that the time
/// never shows how long it thought. `None` if the server stops meanwhile:
/// the move is not made here (the game stays due).
async fn decide_by(
    app: &App,
    game: Arc<Game>,
    work: Work,
    at: i64,
) -> Result<Option<Option<Decision>>, Error> {
    let left = u64::try_from(at - app.clock.now_micros()).unwrap_or(0);
    let until = Instant::now() + Duration::from_micros(left).saturating_sub(THINKING_MARGIN);
    let thinking = {
        let (game, work) = (Arc::clone(&game), work.clone());
        off_the_workers(move || decide(&game, work, Some(until)))
    };
    let decision = tokio::select! {
        biased;
        decided = thinking => decided?,
        () = sleep_until(&*app.clock, at) => {
            app.metrics.count_bot_move_over_budget();
            let basic = match work {
                Work::Bot(seat, _) => Work::Bot(seat, Level::Basic),
                other => other,
            };
            return Ok(Some(decide(&game, basic, None)));
        }
        () = app.notifier.shutting_down() => return Ok(None),
    };
    if let Some(Decision::Move { own: false, .. }) = decision {
        app.metrics.count_bot_move_over_budget();
    }
    tokio::select! {
        () = sleep_until(&*app.clock, at) => Ok(Some(decision)),
        () = app.notifier.shutting_down() => Ok(None),
    }
}

/// What the scheduler decided to do to a game.
enum Decision {
    Abandon,
    Move {
        seat: Seat,
        mv: Move,
        actor: &'static str,
        away: Vec<Seat>,
        /// The deciding player's own decision, not a simpler player's made
        /// for want of time ([`crate::ai::Chosen`]).
        own: bool,
    },
}

/// Decides and applies one automatic move on game `id`.
async fn step(app: &App, id: Uuid) -> Result<(), Error> {
    let backend = app.store.backend();
    for _ in 0..ATTEMPTS {
        let row = {
            let mut conn = app.store.acquire().await?;
            games::load(&mut conn, backend, id, false).await?
        };
        let Some(row) = row else { return Ok(()) };
        let now = app.clock.now_micros();
        let Some(due) = row.due_at.filter(|due| *due <= now) else {
            return Ok(());
        };
        let game = Arc::new(game_from_row(&row)?);
        let deadline = game.deadline;
        let work = game.due_work(row.created_at, now);
        // Decided from the version read, with no lock and no transaction
        // held: the move is applied below only if that version still holds.
        // A computer player's move is made at its time for a move.
        let (decision, at) = match work {
            Some(work @ Work::Bot(..)) if game.bot_time(app.bot_times) > 0 => {
                let at = move_time(due, now, game.bot_time(app.bot_times));
                match decide_by(app, game, work, at).await? {
                    Some(decision) => (decision, at),
                    None => return Ok(()),
                }
            }
            Some(work) => {
                let decision = off_the_workers(move || decide(&game, work, None)).await?;
                (decision, app.now())
            }
            None => (None, app.now()),
        };
        let mut tx = app.store.begin_write().await?;
        let Some(locked) = games::load(&mut tx, backend, id, true).await? else {
            return Ok(());
        };
        if locked.version != row.version {
            // Someone moved meanwhile: decide again on the new game.
            continue;
        }
        let Some(decision) = decision else {
            // Nothing to do now (a stale mark): the next due time is the
            // clock's deadline, if it still runs.
            games::set_due(&mut tx, id, deadline.filter(|d| *d > now)).await?;
            tx.commit().await?;
            return Ok(());
        };
        let mut game = game_from_row(&locked)?;
        let before = Before::of(&game);
        let (event, actor, player) = match decision {
            Decision::Abandon => {
                game.abandon();
                (
                    Event::new("abandoned", None, serde_json::json!({"type": "abandoned"})),
                    "clock",
                    None,
                )
            }
            Decision::Move {
                seat,
                mv,
                actor,
                away,
                own: _,
            } => {
                for seat in away {
                    game.away[seat.index()] = true;
                }
                let player = game.seats[seat.index()].as_ref().map(|p| p.id);
                let event = seat_move(&mut game, seat, mv)
                    .map_err(|e| Error::Internal(format!("automatic move refused: {e}")))?;
                (event, actor, player)
            }
        };
        let by = By::Scheduler { actor, player, at };
        let change = (&before, &event);
        let due_at = record_change(app, &mut tx, &mut game, &locked, change, by).await?;
        tx.commit().await?;
        let counted = (event.kind != "abandoned").then_some(actor);
        after_commit(app, &game, &event, due_at, counted);
        return Ok(());
    }
    Ok(())
}

/// The move for `work`, decided from the seat's own view only, thinking no
/// later than `until` when given.
fn decide(game: &Game, work: Work, until: Option<Instant>) -> Option<Decision> {
    let (seat, level, actor, away) = match work {
        Work::Abandon => return Some(Decision::Abandon),
        Work::Bot(seat, level) => (seat, level, "bot", Vec::new()),
        Work::Away(seat) => (seat, Level::Basic, "clock", Vec::new()),
        Work::Clock(seats) => (*seats.first()?, Level::Basic, "clock", seats),
        Work::EndTable(host) => {
            return Some(Decision::Move {
                seat: host,
                mv: crate::table::Move::Potverteren(crate::rules::potverteren::Move::EndTable),
                actor: "clock",
                away: Vec::new(),
                own: true,
            });
        }
    };
    let rules = game.rules.as_ref()?;
    let rng = &mut rand::rng();
    let Chosen { mv, own } = match until {
        Some(until) => computer_move_by(rules, seat, level, until, rng)?,
        None => Chosen {
            mv: computer_move(rules, seat, level, rng)?,
            own: true,
        },
    };
    Some(Decision::Move {
        seat,
        mv,
        actor,
        away,
        own,
    })
}

#[cfg(test)]
mod tests {
    use super::move_time;

    /// A computer player's move is made its time for a move after it fell
    /// due, whenever in that time it was picked up and however long it
    /// thought; picked up late, that long after it was picked up.
    #[test]
    fn a_computer_players_move_is_made_its_time_after_it_fell_due() {
        let (due, bot_move) = (1_000_000_000, 400_000);
        for picked in [due, due + 3_000, due + 200_000] {
            assert_eq!(move_time(due, picked, bot_move), due + bot_move);
        }
        let late = due + 5_000_000;
        assert_eq!(move_time(due, late, bot_move), late + 200_000);
        assert_eq!(move_time(due + 123, due + 123, 0), due);
    }
}
