//! Club evenings (RULES.md section 4): an organizer makes one, players and
//! computer entries enter, the organizer starts it; each round's tables
//! are made with their seats filled as scheduled, and the next round
//! starts once every table of the current one has finished
//! ([`advance`], run by the scheduler, once per round on any instance).

use std::time::Duration;

use uuid::Uuid;

use super::context::App;
use super::error::Error;
use super::new_table::store_new_table;
use super::notifications;
use super::read::{LONG_POLL_DEFAULT_SECONDS, LONG_POLL_MAX_SECONDS};
use super::tables::PageQuery;
use crate::notify::Wake;
use crate::rules::fairness::SeatSeed;
use crate::store::club_events as store;
use crate::store::record::system_rng;
use crate::store::{Tx, players};
use crate::table::evening::event::{Event, EventError, EventStatus, Format, Member, Settings};
use crate::table::fairness::ServerSeed;
use crate::table::friends::invite_code;
use crate::table::{Game, GameKind, Level, SeatedPlayer, TableOptions};

/// Table options an event sets itself, which its `options` may not name.
const EVENT_SET_OPTIONS: [&str; 4] = ["deals", "first_dealer", "auto_deal", "private"];

/// A new event as its organizer asks for it.
pub struct NewEvent {
    /// Its name, 1 to 100 characters.
    pub name: String,
    /// Pairs or individual.
    pub format: Format,
    /// 1..=20.
    pub rounds: u32,
    /// 1..=16 (default 16).
    pub deals: Option<u8>,
    /// Default false.
    pub duplicate: bool,
    /// Table options for every table.
    pub options: Option<serde_json::Value>,
    /// Default false.
    pub private: bool,
    /// When the organizer means to start, Unix microseconds.
    pub starts_at: Option<i64>,
}

/// The table options of every table of an event with `deals` deals: those
/// given, and the event's own (dealer of deal 1 is seat 3, deals are dealt
/// automatically, no table is private).
fn table_options(given: Option<serde_json::Value>, deals: u8) -> Result<serde_json::Value, Error> {
    let mut options = given.unwrap_or_else(|| serde_json::json!({}));
    let map = options
        .as_object_mut()
        .ok_or_else(|| Error::invalid("options: an object"))?;
    if let Some(name) = EVENT_SET_OPTIONS.iter().find(|n| map.contains_key(**n)) {
        return Err(Error::invalid(format!(
            "options.{name}: set by the event, not per table"
        )));
    }
    map.insert("deals".into(), deals.into());
    map.insert("first_dealer".into(), 3.into());
    map.insert("auto_deal".into(), true.into());
    TableOptions::parse_with(GameKind::Klaverjassen, Some(options.clone()))
        .map_err(|e| Error::invalid(e.to_string()))?;
    Ok(options)
}

fn refused(error: EventError) -> Error {
    match error {
        EventError::Invalid(detail) => Error::Invalid(detail),
        EventError::Forbidden(detail) => Error::Forbidden {
            code: "forbidden",
            detail,
        },
        EventError::NotFound(detail) => Error::NotFound(detail),
        EventError::Conflict { code, detail } => Error::Conflict { code, detail },
    }
}

fn no_event() -> Error {
    Error::NotFound("no such event".into())
}

/// Makes an open event with `caller` as its organizer.
///
/// # Errors
/// [`Error::Invalid`] for a value out of range; the database's.
pub async fn create(app: &App, caller: Uuid, new: NewEvent) -> Result<Event, Error> {
    let name = new.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(Error::invalid("name: 1 to 100 characters"));
    }
    if !(1..=20).contains(&new.rounds) {
        return Err(Error::invalid("rounds: 1 to 20"));
    }
    let deals = new.deals.unwrap_or(16);
    if !(1..=16).contains(&deals) {
        return Err(Error::invalid("deals: 1 to 16"));
    }
    let settings = Settings {
        name,
        format: new.format,
        rounds: new.rounds,
        deals,
        duplicate: new.duplicate,
        options: table_options(new.options, deals)?,
        private: new.private,
        starts_at: new.starts_at,
    };
    let mut tx = app.store.begin_write().await?;
    if players::get(&mut tx, caller).await?.is_none() {
        return Err(Error::Token(crate::auth::TokenError::Invalid));
    }
    let code = new.private.then(|| invite_code(&mut system_rng()));
    let top = ServerSeed::random(&mut system_rng());
    let event = Event::new(Uuid::new_v4(), caller, settings, top, code, app.now());
    store::insert(&mut tx, &event).await?;
    tx.commit().await?;
    Ok(event)
}

/// A page of open public events, newest first.
pub struct EventPage {
    /// The events.
    pub items: Vec<Event>,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Open public events, newest first.
///
/// # Errors
/// The database's.
pub async fn list(app: &App, page: PageQuery) -> Result<EventPage, Error> {
    let mut conn = app.store.acquire().await?;
    let mut items = store::open(&mut conn, page.after(), page.limit() + 1).await?;
    let more = items.len() as i64 > page.limit();
    items.truncate(page.limit() as usize);
    let next_cursor = more
        .then(|| items.last().map(|e| format!("{}_{}", e.created_at, e.id)))
        .flatten();
    Ok(EventPage { items, next_cursor })
}

/// Event `id` now, or, given `wait_for_version`, as soon as it passes that
/// version or after `timeout_s` seconds (default 30).
///
/// # Errors
/// [`Error::NotFound`]; [`Error::Invalid`] for a bad wait.
pub async fn show(
    app: &App,
    id: Uuid,
    wait_for_version: Option<i64>,
    timeout_s: Option<u64>,
) -> Result<Event, Error> {
    let read = || async {
        let mut conn = app.store.acquire().await?;
        store::load(&mut conn, app.store.backend(), id, false)
            .await?
            .ok_or_else(no_event)
    };
    let Some(version) = wait_for_version else {
        if timeout_s.is_some() {
            return Err(Error::invalid("timeout_s: only with wait_for_version"));
        }
        return read().await;
    };
    let seconds = timeout_s.unwrap_or(LONG_POLL_DEFAULT_SECONDS);
    if version < 0 || seconds > LONG_POLL_MAX_SECONDS {
        return Err(Error::invalid(format!(
            "wait_for_version: 0 or more; timeout_s: 0 to {LONG_POLL_MAX_SECONDS}"
        )));
    }
    let mut waiter = app.notifier.subscribe(id).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(seconds);
    loop {
        let event = read().await?;
        if event.version > version {
            return Ok(event);
        }
        match tokio::time::timeout_at(deadline, waiter.wake()).await {
            Ok(Wake::Changed | Wake::Recheck | Wake::SignedOut) => continue,
            Ok(Wake::Shutdown) | Err(_) => return read().await,
        }
    }
}

/// The event with invite code `code` (as typed: case and dashes ignored),
/// if there is one.
///
/// # Errors
/// The database's.
pub async fn of_invite(app: &App, code: &str) -> Result<Option<Event>, Error> {
    let Some(code) = crate::table::friends::normalise_code(code) else {
        return Ok(None);
    };
    let mut conn = app.store.acquire().await?;
    let Some(id) = store::of_invite(&mut conn, &code).await? else {
        return Ok(None);
    };
    Ok(store::load(&mut conn, app.store.backend(), id, false).await?)
}

/// Saves `event` as changed in `tx`, announces it, commits, and wakes this
/// instance's waiters.
async fn commit(app: &App, mut tx: Tx, event: &Event, due_at: Option<i64>) -> Result<(), Error> {
    store::save(&mut tx, event, due_at, app.now()).await?;
    store::announce(&mut tx, app.store.backend(), event.id, event.version).await?;
    tx.commit().await?;
    app.notifier.publish(event.id, event.version);
    Ok(())
}

/// Applies `change` to event `id` under its lock, in one transaction.
async fn change(
    app: &App,
    id: Uuid,
    change: impl AsyncFnOnce(&mut Tx, &mut Event) -> Result<(), Error>,
) -> Result<Event, Error> {
    let mut tx = app.store.begin_write().await?;
    let mut event = store::load(&mut tx, app.store.backend(), id, true)
        .await?
        .ok_or_else(no_event)?;
    change(&mut tx, &mut event).await?;
    commit(app, tx, &event, None).await?;
    Ok(event)
}

async fn member(tx: &mut Tx, player: Uuid) -> Result<Member, Error> {
    let row = players::get(tx, player)
        .await?
        .ok_or(Error::Token(crate::auth::TokenError::Invalid))?;
    Ok(Member {
        id: row.id,
        name: row.name,
        bot: None,
    })
}

/// `caller` enters event `id` (naming `partner` in a pairs event).
///
/// # Errors
/// As [`Event::enter`]; [`Error::NotFound`].
pub async fn enter(
    app: &App,
    caller: Uuid,
    id: Uuid,
    partner: Option<Uuid>,
) -> Result<Event, Error> {
    change(app, id, async |tx, event| {
        let member = member(tx, caller).await?;
        if let Some(partner) = partner
            && players::get(tx, partner).await?.is_none()
        {
            return Err(Error::invalid("partner: no such player"));
        }
        event.enter(member, partner).map_err(refused)
    })
    .await
}

/// `caller` withdraws its entry from event `id`.
///
/// # Errors
/// As [`Event::withdraw`].
pub async fn withdraw(app: &App, caller: Uuid, id: Uuid) -> Result<Event, Error> {
    change(app, id, async |_, event| {
        event.withdraw(caller).map_err(refused)
    })
    .await
}

/// The organizer removes the entry whose first player is `entry` from event `id`.
///
/// # Errors
/// As [`Event::remove_entry`]; [`Error::NotFound`] for no such entry.
pub async fn remove_entry(app: &App, caller: Uuid, id: Uuid, entry: Uuid) -> Result<Event, Error> {
    change(app, id, async |_, event| {
        let number = event
            .entries
            .iter()
            .position(|e| e.players.first().map(|m| m.id) == Some(entry))
            .ok_or_else(|| Error::NotFound("no such entry".into()))?;
        event.remove_entry(caller, number as u16).map_err(refused)
    })
    .await
}

/// The organizer adds `count` computer entries of `level` to event `id`.
///
/// # Errors
/// As [`Event::add_bots`].
pub async fn add_bots(
    app: &App,
    caller: Uuid,
    id: Uuid,
    count: usize,
    level: Level,
) -> Result<Event, Error> {
    change(app, id, async |tx, event| {
        let first = event.entries.iter().map(|e| e.players.len()).sum::<usize>() + 1;
        let mut made = Vec::new();
        event
            .add_bots(caller, count, |i| {
                let bot = Member {
                    id: Uuid::new_v4(),
                    name: format!("Computer {} ({})", first + i, level.as_str()),
                    bot: Some(level),
                };
                made.push(bot.clone());
                bot
            })
            .map_err(refused)?;
        for bot in made {
            players::insert_bot(tx, bot.id, &bot.name, level.as_str()).await?;
        }
        Ok(())
    })
    .await
}

/// `caller`'s entry sends its event seed to event `id`.
///
/// # Errors
/// As [`Event::set_seed`]; [`Error::Invalid`] for a seed that is not 1..64 hex.
pub async fn send_seed(app: &App, caller: Uuid, id: Uuid, value: &str) -> Result<Event, Error> {
    let seed = SeatSeed::parse(value).map_err(|e| Error::invalid(format!("value: {e}")))?;
    change(app, id, async |_, event| {
        event.set_seed(caller, seed).map_err(refused)
    })
    .await
}

/// The organizer cancels event `id`.
///
/// # Errors
/// As [`Event::cancel`].
pub async fn cancel(app: &App, caller: Uuid, id: Uuid) -> Result<Event, Error> {
    change(app, id, async |_, event| {
        event.cancel(caller).map_err(refused)
    })
    .await
}

/// The organizer starts event `id`: its schedule made and round 1's tables
/// created, in one transaction.
///
/// # Errors
/// As [`Event::start`]: `entries_incomplete` saying how many players are missing.
pub async fn start(app: &App, caller: Uuid, id: Uuid) -> Result<Event, Error> {
    let mut due = Vec::new();
    let event = change(app, id, async |tx, event| {
        event.start(caller).map_err(refused)?;
        due = start_round(app, tx, event).await?;
        Ok(())
    })
    .await?;
    for due_at in due {
        app.notifier.work_due(due_at);
    }
    Ok(event)
}

/// Starts the event's next round in `tx`: its tables made with the seats
/// as scheduled and recorded as the round's (once: a second table of the
/// same number is refused by the store). Returns when automatic work on
/// each falls due.
async fn start_round(app: &App, tx: &mut Tx, event: &mut Event) -> Result<Vec<Option<i64>>, Error> {
    let round = event.round + 1;
    let (options, table) =
        TableOptions::parse_with(GameKind::Klaverjassen, Some(event.settings.options.clone()))
            .map_err(|e| Error::Internal(format!("event {}: options: {e}", event.id)))?;
    let seatings = event.schedule[round as usize - 1].clone();
    let mut games = Vec::new();
    let mut due = Vec::new();
    let now = app.now();
    for (number, seats) in seatings.iter().enumerate() {
        let players: Vec<SeatedPlayer> = seats
            .0
            .iter()
            .map(|place| {
                let member =
                    &event.entries[usize::from(place.entry)].players[usize::from(place.member)];
                SeatedPlayer {
                    id: member.id,
                    name: member.name.clone(),
                    bot: member.bot,
                }
            })
            .collect();
        let host = players[0].id;
        let mut game = Game::create(
            Uuid::new_v4(),
            GameKind::Klaverjassen,
            options.clone(),
            table.clone(),
            players[0].clone(),
            Some(0),
            &mut system_rng(),
        )
        .map_err(|e| Error::Internal(e.to_string()))?;
        if event.settings.duplicate {
            game.fairness = event.board_fairness(round);
        }
        for (seat, player) in players.into_iter().enumerate().skip(1) {
            game.join(player, Some(seat as u8))
                .map_err(|e| Error::Internal(e.to_string()))?;
        }
        due.push(store_new_table(tx, &mut game, host, now, app.bot_times).await?);
        store::add_table(tx, event.id, round, number as u32 + 1, game.id).await?;
        games.push(game.id);
    }
    event.round = round;
    event.tables.push(games);
    event.version += 1;
    tell(tx, event, notifications::ROUND_STARTED, now).await?;
    Ok(due)
}

/// Tells every person entered in `event` of `kind` (a round started, the
/// evening finished), in the transaction that made it so.
async fn tell(tx: &mut Tx, event: &Event, kind: &str, at: i64) -> Result<(), Error> {
    let persons = event
        .entries
        .iter()
        .flat_map(|entry| &entry.players)
        .filter(|member| member.bot.is_none())
        .map(|member| member.id);
    notifications::write(
        tx,
        &notifications::of_event(kind, event.id, event.version, persons, at),
    )
    .await
}

/// The work due on one event, done once under its lock: when every table
/// of the current round has finished, the next round starts (or the
/// evening finishes); a table that finished changes the standings, so the
/// version goes up either way. Returns whether an event was due.
///
/// # Errors
/// The database's.
pub async fn advance(app: &App) -> Result<bool, Error> {
    // A read first: most looks find nothing, and on SQLite a write
    // transaction would take the file's lock for nothing.
    if !store::any_due(&mut *app.store.acquire().await?, app.now()).await? {
        return Ok(false);
    }
    let mut tx = app.store.begin_write().await?;
    let Some(&id) = store::due(&mut tx, app.store.backend(), app.now(), 1)
        .await?
        .first()
    else {
        return Ok(false);
    };
    let Some(mut event) = store::load(&mut tx, app.store.backend(), id, true).await? else {
        return Ok(false);
    };
    let mut due = Vec::new();
    if event.status == EventStatus::Running && event.round > 0 {
        let tables = &event.tables[event.round as usize - 1];
        if store::finished_tables(&mut tx, tables).await? == tables.len() {
            if event.round == event.settings.rounds {
                event.status = EventStatus::Finished;
                event.version += 1;
                tell(&mut tx, &event, notifications::EVENT_FINISHED, app.now()).await?;
            } else {
                due = start_round(app, &mut tx, &mut event).await?;
            }
        } else {
            event.version += 1;
        }
    }
    commit(app, tx, &event, None).await?;
    for due_at in due {
        app.notifier.work_due(due_at);
    }
    Ok(true)
}

/// One table of a round as the standings and boards read it.
struct PlayedTable {
    game: Game,
    finished: bool,
}

async fn tables_of_round(app: &App, event: &Event, round: u32) -> Result<Vec<PlayedTable>, Error> {
    let mut conn = app.store.acquire().await?;
    let mut tables = Vec::new();
    for &id in &event.tables[round as usize - 1] {
        let row = crate::store::games::load(&mut conn, app.store.backend(), id, false)
            .await?
            .ok_or_else(|| Error::Internal(format!("event {}: table {id} missing", event.id)))?;
        let game = crate::store::record::game_from_row(&row)?;
        let finished = matches!(game.status, crate::table::Status::Finished);
        tables.push(PlayedTable { game, finished });
    }
    Ok(tables)
}

fn match_of(game: &Game) -> Option<&crate::rules::klaverjassen::Match> {
    match &game.rules {
        Some(crate::table::Rules::Klaverjassen(m)) => Some(m),
        _ => None,
    }
}

/// Event `id` and its standings now: from every table of every round
/// begun. In a duplicate event a round's totals count only once every
/// table of the round has finished, and matchpoints only on complete
/// boards, so that no result of a board shows before it is complete.
///
/// # Errors
/// [`Error::NotFound`]; the database's.
pub async fn standings(
    app: &App,
    id: Uuid,
) -> Result<(Event, Vec<crate::table::evening::standings::Standing>), Error> {
    use crate::table::evening::standings::{Scoring, TableSheet, standings};
    let event = show(app, id, None, None).await?;
    let mut sheets = Vec::new();
    for round in 1..=event.round {
        let tables = tables_of_round(app, &event, round).await?;
        let round_over = tables.iter().all(|t| t.finished);
        for (number, table) in tables.iter().enumerate() {
            let Some(rules) = match_of(&table.game) else {
                continue;
            };
            let totals = rules.totals();
            let shown = table.finished && (round_over || !event.settings.duplicate);
            sheets.push(TableSheet {
                round,
                seats: event.schedule[round as usize - 1][number],
                deals: rules
                    .deals()
                    .iter()
                    .map(|d| [d.score.a, d.score.b])
                    .collect(),
                totals: shown.then_some([totals.a, totals.b]),
            });
        }
    }
    let scoring = if event.settings.duplicate {
        Scoring::Duplicate {
            deals: usize::from(event.settings.deals),
        }
    } else {
        Scoring::Totals
    };
    let lines = standings(event.entries.len(), scoring, &sheets);
    Ok((event, lines))
}

/// One table's result on a board.
pub struct BoardResult {
    /// The table, from 1.
    pub table: u32,
    /// Its game.
    pub game: Uuid,
    /// The deal's record at that table.
    pub record: crate::rules::klaverjassen::DealRecord,
}

/// Board (`round`, `deal`) of duplicate event `id`, once every table of the
/// round has finished that deal: every table's record of it.
///
/// # Errors
/// [`Error::NotFound`] for no such event or board, an event without
/// duplicate, or a board not yet complete.
pub async fn board(app: &App, id: Uuid, round: u32, deal: u8) -> Result<Vec<BoardResult>, Error> {
    let not_yet = || Error::NotFound("no such board, or not every table has finished it".into());
    let event = show(app, id, None, None).await?;
    if !event.settings.duplicate || round == 0 || round > event.round || deal == 0 {
        return Err(not_yet());
    }
    let tables = tables_of_round(app, &event, round).await?;
    let mut results = Vec::new();
    for (number, table) in tables.iter().enumerate() {
        let record = match_of(&table.game)
            .and_then(|m| m.deals().get(usize::from(deal) - 1))
            .ok_or_else(not_yet)?;
        results.push(BoardResult {
            table: number as u32 + 1,
            game: table.game.id,
            record: record.clone(),
        });
    }
    Ok(results)
}
