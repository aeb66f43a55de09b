//! Between the stored row and the [`Game`]: the rules state and options are
//! JSON documents in the row.

use uuid::Uuid;

use super::error::ApiError;
use crate::bots::Level;
use crate::store::games::GameRow;
use crate::table::{Game, GameKind, Rules, SeatedPlayer, Status, TableOptions};

/// The automation state kept beside a game: away seats and the deadline.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Automation {
    #[serde(default)]
    away: Vec<bool>,
    #[serde(default)]
    deadline: Option<i64>,
    /// Invite code, rematch and reserved seats (src/table/friends.rs).
    #[serde(default)]
    friends: crate::table::friends::Friends,
}

/// The game stored in `row`.
pub fn game_from_row(row: &GameRow) -> Result<Game, ApiError> {
    let corrupt =
        |what: &str| ApiError::Internal(format!("game {}: stored {what} unreadable", row.id));
    let kind = GameKind::parse(&row.kind).ok_or_else(|| corrupt("kind"))?;
    let status = Status::parse(&row.status).ok_or_else(|| corrupt("status"))?;
    let (options, table) = TableOptions::parse_with(
        kind,
        Some(serde_json::from_str(&row.options).map_err(|_| corrupt("options"))?),
    )
    .map_err(|_| corrupt("options"))?;
    let rules = row
        .state
        .as_deref()
        .map(|live| Rules::from_stored(live, &row.records))
        .transpose()
        .map_err(|_| corrupt("state"))?;
    let mut seats = vec![None; usize::from(options.seat_count())];
    for taken in &row.seats {
        let slot = seats
            .get_mut(usize::from(taken.seat))
            .ok_or_else(|| corrupt("seat"))?;
        *slot = Some(SeatedPlayer {
            id: taken.player.id,
            name: taken.player.name.clone(),
            bot: taken.player.bot_level.as_deref().and_then(Level::parse),
        });
    }
    let automation: Automation = row
        .automation
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|_| corrupt("automation"))?
        .unwrap_or_default();
    let mut away = automation.away;
    away.resize(seats.len(), false);
    let fairness = match row.fairness.as_deref() {
        Some(json) => serde_json::from_str(json).map_err(|_| corrupt("fairness"))?,
        // A row stored before fair deals: it gets its chain now, committed
        // from this moment on.
        None => options.fair_deals(&mut system_rng()),
    };
    Ok(Game {
        table,
        away,
        deadline: automation.deadline,
        id: row.id,
        kind,
        status,
        version: row.version,
        host: row.host_id,
        options,
        seats,
        rules,
        fairness,
        friends: automation.friends,
    })
}

/// The operating system's CSPRNG, for server seeds.
pub fn system_rng() -> rand::rand_core::UnwrapErr<rand::rngs::SysRng> {
    rand::rand_core::UnwrapErr(rand::rngs::SysRng)
}

/// The row that stores `game` (seats are written separately). The rules
/// state's finished records are set aside while the rest is written
/// (`Rules::to_stored`), hence `&mut`; the game is as it was after.
pub fn game_to_row(game: &mut Game, created_at: i64) -> Result<GameRow, ApiError> {
    let id = game.id;
    let json = |e: serde_json::Error| ApiError::Internal(format!("serialising game {id}: {e}"));
    let (state, records) = match game.rules.as_mut().map(Rules::to_stored).transpose() {
        Ok(Some((live, records))) => (Some(live), records),
        Ok(None) => (None, Vec::new()),
        Err(e) => return Err(json(e)),
    };
    Ok(GameRow {
        id: game.id,
        kind: game.kind.as_str().to_owned(),
        status: game.status.as_str().to_owned(),
        version: game.version,
        host_id: game.host,
        options: game.options_json().to_string(),
        state,
        records,
        fairness: Some(serde_json::to_string(&game.fairness).map_err(json)?),
        created_at,
        seats: Vec::new(),
        automation: Some(
            serde_json::to_string(&Automation {
                away: game.away.clone(),
                deadline: game.deadline,
                friends: game.friends.clone(),
            })
            .map_err(json)?,
        ),
        due_at: None,
        deals_stored: None,
    })
}

/// A game id from a path, as text, for error messages.
pub fn no_game(id: Uuid) -> ApiError {
    ApiError::NotFound(format!("no game {id}"))
}
