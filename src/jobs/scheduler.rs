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

use std::time::Duration;

use uuid::Uuid;

use crate::app::blocking::off_the_workers;
use crate::app::commit::{Event, after_commit, record_change};
use crate::app::context::App;
use crate::app::error::Error;
use crate::app::play::{computer_move, seat_move};
use crate::rules::Seat;
use crate::store::games;
use crate::store::record::game_from_row;
use crate::table::automation::Work;
use crate::table::{Game, Level, Move};

/// How often an idle runner looks for due work without being woken.
const POLL: Duration = Duration::from_secs(1);
/// Games picked per round.
const BATCH: i64 = 16;
/// How often a move is decided afresh after losing a race for the game.
const ATTEMPTS: usize = 8;

/// Runs until the server shuts down. The move in hand is finished first.
pub async fn run(app: App) {
    let jumps = app.clock.jumps();
    while !app.notifier.is_shutting_down() {
        app.notifier.scheduler_awake();
        let busy = match round(&app).await {
            Ok(busy) => busy,
            Err(error) => {
                tracing::warn!(%error, "scheduler round failed");
                false
            }
        };
        if busy {
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
        }
    }
}

/// How long to sleep with nothing due: until the next due work on a
/// running clock, at most [`POLL`].
async fn idle_wait(app: &App) -> Duration {
    let next = match app.store.acquire().await {
        Ok(mut conn) => games::next_due(&mut conn).await.ok().flatten(),
        Err(_) => None,
    };
    let now = app.clock.now_micros();
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

/// One round: the due games, one automatic move each. True when there was
/// work, so the runner goes on at once.
async fn round(app: &App) -> Result<bool, Error> {
    let now = app.clock.now_micros();
    let mut tx = app.store.begin_write().await?;
    let due = games::due(&mut tx, app.store.backend(), now, BATCH).await?;
    tx.commit().await?;
    let mut progressed = false;
    for id in due {
        if app.notifier.is_shutting_down() {
            break;
        }
        progressed |= step(app, id).await?;
    }
    Ok(progressed)
}

/// What the scheduler decided to do to a game.
enum Decision {
    Abandon,
    Move {
        seat: Seat,
        mv: Move,
        actor: &'static str,
        away: Vec<Seat>,
    },
}

/// Decides and applies one automatic move on game `id`. True when the game
/// changed (or its stale mark was cleared).
async fn step(app: &App, id: Uuid) -> Result<bool, Error> {
    let backend = app.store.backend();
    for _ in 0..ATTEMPTS {
        let row = {
            let mut conn = app.store.acquire().await?;
            games::load(&mut conn, backend, id, false).await?
        };
        let Some(row) = row else { return Ok(false) };
        let now = app.clock.now_micros();
        if row.due_at.is_none_or(|due| due > now) {
            return Ok(false);
        }
        let game = game_from_row(&row)?;
        let deadline = game.deadline;
        // Decided from the version read, with no lock and no transaction
        // held: the move is applied below only if that version still holds.
        let decision = match game.due_work(row.created_at, now) {
            Some(work) => off_the_workers(move || decide(&game, work)).await?,
            None => None,
        };
        let mut tx = app.store.begin_write().await?;
        let Some(locked) = games::load(&mut tx, backend, id, true).await? else {
            return Ok(false);
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
            return Ok(true);
        };
        let mut game = game_from_row(&locked)?;
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
        let due_at = record_change(
            app,
            &mut tx,
            &mut game,
            &locked,
            &event,
            player,
            Some(actor),
        )
        .await?;
        tx.commit().await?;
        let counted = (event.kind != "abandoned").then_some(actor);
        after_commit(app, &game, &event, due_at, counted);
        return Ok(true);
    }
    Ok(false)
}

/// The move for `work`, decided from the seat's own view only.
fn decide(game: &Game, work: Work) -> Option<Decision> {
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
            });
        }
    };
    let mv = computer_move(game.rules.as_ref()?, seat, level, &mut rand::rng())?;
    Some(Decision::Move {
        seat,
        mv,
        actor,
        away,
    })
}
