//! Tables: a host makes one; the lobby and a player's own tables list them
//! a page at a time.

use uuid::Uuid;

use super::answer::{Answer, CREATED};
use super::context::App;
use super::error::Error;
use super::idempotency::{self, Keyed, commit_answer, replay};
use super::new_table::{room_for_a_new_table, seat_bot, seated_player, store_new_table};
use crate::api::game::GameSummary;
use crate::rules::klaverjassen::{FourJacks, TrumpChoice, TrumpObligation, Undertrump};
use crate::store::games::{self, Cursor, GameRow};
use crate::store::players;
use crate::store::record::{game_from_row, system_rng};
use crate::table::Level;
use crate::table::{Game, GameKind, Options, TableOptions};

/// A new table as its host asks for it.
pub struct NewTable {
    /// Which game.
    pub game: GameKind,
    /// The options of that game and the table's, every one optional.
    pub options: Option<serde_json::Value>,
    /// The seat the host takes (default 0).
    pub seat: Option<u8>,
    /// Computer players to seat at once: each one's seat (the first free
    /// one when `None`) and level.
    pub bots: Vec<(Option<u8>, Level)>,
}

/// Makes a table with the caller as its host, seated as `new` asks, and
/// answers 201 with the caller's view and the table's address.
///
/// # Errors
/// [`Error::Invalid`] for options, a seat or computer players that cannot
/// be; [`Error::Conflict`] `too_many_tables`; the key's; the database's.
pub async fn create(
    app: &App,
    caller: Uuid,
    keyed: Option<Keyed>,
    new: NewTable,
) -> Result<Answer, Error> {
    let (options, table) = TableOptions::parse_with(new.game, new.options)
        .map_err(|e| Error::invalid(e.to_string()))?;
    let mut tx = app.store.begin_write().await?;
    // No row to lock yet: the key itself is held, so a retry racing its
    // original waits for it and replays its answer.
    idempotency::lock(&mut tx, app.store.backend(), caller, keyed.as_ref()).await?;
    if let Some(replayed) = replay(&mut tx, caller, keyed.as_ref(), app.now()).await? {
        return Ok(replayed);
    }
    room_for_a_new_table(&mut tx, caller).await?;
    let host = seated_player(&mut tx, caller).await?;
    let mut game = Game::create(
        Uuid::new_v4(),
        new.game,
        options,
        table,
        host,
        new.seat,
        &mut system_rng(),
    )
    .map_err(|e| Error::invalid(format!("seat: {e}")))?;
    for (wanted, level) in new.bots {
        // Every seat of a new table is named by this request, so a seat
        // asked for twice (or more bots than seats) is a bad request, not a
        // conflict with a table that does not exist yet.
        let (_, bot) =
            seat_bot(&mut game, level, wanted).map_err(|e| Error::invalid(format!("bots: {e}")))?;
        players::insert_bot(&mut tx, bot.id, &bot.name, level.as_str()).await?;
    }
    let created_at = app.now();
    let due_at = store_new_table(&mut tx, &mut game, caller, created_at, app.bot_times).await?;
    let answer = Answer::view(CREATED, &game, caller, Some(app.game_location(game.id)))?;
    let answer = commit_answer(tx, caller, keyed.as_ref(), answer, app.now()).await?;
    app.notifier.work_due(due_at);
    Ok(answer)
}

/// A page of tables, newest first.
pub struct Listing {
    /// The tables.
    pub items: Vec<GameSummary>,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// A checked cursor and page size.
pub struct PageQuery {
    /// Where the previous page ended.
    after: Option<Cursor>,
    /// Rows per page.
    limit: i64,
}

impl PageQuery {
    /// Checks `cursor` (as a `next_cursor` of ours) and `limit` (1..100,
    /// default 20).
    ///
    /// # Errors
    /// [`Error::Invalid`] for either out of range.
    pub fn parse(cursor: Option<&str>, limit: Option<u32>) -> Result<PageQuery, Error> {
        let limit = match limit {
            None => 20,
            Some(n @ 1..=100) => i64::from(n),
            Some(_) => return Err(Error::invalid("limit: 1 to 100")),
        };
        let after = cursor
            .map(|c| {
                let (time, id) = c.split_once('_')?;
                Some(Cursor {
                    created_at: time.parse().ok()?,
                    id: Uuid::parse_str(id).ok()?,
                })
            })
            .map(|c| c.ok_or_else(|| Error::invalid("cursor: not a cursor this service gave out")))
            .transpose()?;
        Ok(PageQuery { after, limit })
    }

    /// Where the previous page ended.
    pub fn after(&self) -> Option<Cursor> {
        self.after
    }

    /// Rows per page.
    pub fn limit(&self) -> i64 {
        self.limit
    }

    /// Turns the `limit + 1` rows read into a page of at most `limit`.
    fn listing(&self, rows: Vec<GameRow>) -> Result<Listing, Error> {
        let limit = self.limit;
        let more = rows.len() as i64 > limit;
        let rows = &rows[..rows.len().min(limit as usize)];
        let next_cursor = more
            .then(|| rows.last().map(|r| format!("{}_{}", r.created_at, r.id)))
            .flatten();
        let items = rows
            .iter()
            .map(|row| game_from_row(row).map(|g| GameSummary::from(&g)))
            .collect::<Result<_, _>>()?;
        Ok(Listing { items, next_cursor })
    }
}

/// The lobby's filter on the Klaverjassen house rules (RULES.md section
/// 3): a rule left out matches any value; a rule given matches only
/// Klaverjassen tables that play it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HouseRulesFilter {
    /// Only tables with this `trump_obligation`.
    pub trump_obligation: Option<TrumpObligation>,
    /// Only tables with this `undertrump`.
    pub undertrump: Option<Undertrump>,
    /// Only tables with this `trump_choice`.
    pub trump_choice: Option<TrumpChoice>,
    /// Only tables with this `four_jacks`.
    pub four_jacks: Option<FourJacks>,
}

impl HouseRulesFilter {
    /// Whether no rule is asked for.
    fn is_empty(&self) -> bool {
        *self == HouseRulesFilter::default()
    }

    /// Whether `game` plays every rule asked for.
    fn admits(&self, game: &Game) -> bool {
        let Options::Klaverjassen(options) = &game.options else {
            return false;
        };
        let rules = options.house_rules();
        self.trump_obligation
            .is_none_or(|rule| rule == rules.trump_obligation)
            && self.undertrump.is_none_or(|rule| rule == rules.undertrump)
            && self
                .trump_choice
                .is_none_or(|rule| rule == rules.trump_choice)
            && self.four_jacks.is_none_or(|rule| rule == rules.four_jacks)
    }
}

/// How many waiting tables the lobby reads at a time while it filters on
/// house rules.
const LOBBY_SCAN: i64 = 100;

/// The lobby: tables waiting for players (of `kind` only, when given, and
/// playing the house rules `filter` asks for), newest first. With a filter
/// the waiting tables are read a page of [`LOBBY_SCAN`] at a time, newest
/// first, until the page asked for is full.
///
/// # Errors
/// The database's; a stored table that cannot be read.
pub async fn lobby(
    app: &App,
    kind: Option<GameKind>,
    filter: HouseRulesFilter,
    page: PageQuery,
) -> Result<Listing, Error> {
    let mut conn = app.store.acquire().await?;
    let kind = kind.map(GameKind::as_str);
    if filter.is_empty() {
        let rows = games::lobby(
            &mut conn,
            app.store.backend(),
            kind,
            page.after,
            page.limit + 1,
        )
        .await?;
        return page.listing(rows);
    }
    let mut kept = Vec::new();
    let mut after = page.after;
    loop {
        let rows = games::lobby(&mut conn, app.store.backend(), kind, after, LOBBY_SCAN).await?;
        let more = rows.len() as i64 == LOBBY_SCAN;
        after = rows.last().map(|row| Cursor {
            created_at: row.created_at,
            id: row.id,
        });
        for row in rows {
            if kept.len() as i64 > page.limit {
                break;
            }
            if filter.admits(&game_from_row(&row)?) {
                kept.push(row);
            }
        }
        if kept.len() as i64 > page.limit || !more {
            break;
        }
    }
    page.listing(kept)
}

/// The tables `player` sits at, newest first.
///
/// # Errors
/// The database's.
pub async fn of_player(app: &App, player: Uuid, page: PageQuery) -> Result<Listing, Error> {
    let mut conn = app.store.acquire().await?;
    let rows = games::of_player(
        &mut conn,
        app.store.backend(),
        player,
        page.after,
        page.limit + 1,
    )
    .await?;
    page.listing(rows)
}
