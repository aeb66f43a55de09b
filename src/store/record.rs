//! Between the stored row and the [`Game`]: the rules state and options are
//! JSON documents in the row.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use crate::store::games::GameRow;
use crate::table::Level;
use crate::table::fairness::FairDeals;
use crate::table::{Game, GameKind, Options, Rules, SeatedPlayer, Status, TableOptions};

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

/// A stored game that cannot be read back, or a game that cannot be
/// written: the detail is for the log.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RecordError(String);

/// The game stored in `row`.
pub fn game_from_row(row: &GameRow) -> Result<Game, RecordError> {
    let corrupt = |what: &str| RecordError(format!("game {}: stored {what} unreadable", row.id));
    let kind = GameKind::parse(&row.kind).ok_or_else(|| corrupt("kind"))?;
    let status = Status::parse(&row.status).ok_or_else(|| corrupt("status"))?;
    let (options, table) = stored_options(kind, &row.options).ok_or_else(|| corrupt("options"))?;
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
        Some(json) => FairDeals::from_stored(json).map_err(|_| corrupt("fairness"))?,
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

/// The options stored as `text` for a game of `kind` (`None`: unreadable).
/// A table's options never change once it is created, and most tables
/// share a few texts, so each text is read once and remembered (at most
/// [`OPTIONS_REMEMBERED`], then forgotten all at once): every request
/// reads its game's options, and reading them costs more than the copy.
fn stored_options(kind: GameKind, text: &str) -> Option<(Options, TableOptions)> {
    // By text (looked up without a copy of it), then by game. foldhash,
    // seeded per process: std's SipHash of a 140-byte text cost 1,000
    // instructions a request, and the map is bounded whatever texts come.
    type Read =
        HashMap<String, Vec<(GameKind, (Options, TableOptions))>, foldhash::fast::RandomState>;
    static READ: LazyLock<Mutex<Read>> = LazyLock::new(Mutex::default);
    let remembered = |read: &Read| {
        let games = read.get(text)?;
        let (_, options) = games.iter().find(|(game, _)| *game == kind)?;
        Some(options.clone())
    };
    if let Some(read) = remembered(&*READ.lock().ok()?) {
        return Some(read);
    }
    let read = TableOptions::parse_with(kind, Some(serde_json::from_str(text).ok()?)).ok()?;
    let mut remembered = READ.lock().ok()?;
    if remembered.len() >= OPTIONS_REMEMBERED {
        remembered.clear();
    }
    let games = remembered.entry(text.to_owned()).or_default();
    // Another request may have read it meanwhile.
    if !games.iter().any(|(game, _)| *game == kind) {
        games.push((kind, read.clone()));
    }
    Some(read)
}

/// The options stored as `text` for a game of `kind` as views show them
/// (`None`: unreadable), without reading the game itself.
pub fn shown_options_of(kind: GameKind, text: &str) -> Option<serde_json::Value> {
    let (game, table) = stored_options(kind, text)?;
    serde_json::to_value(crate::table::view::ShownOptions { game, table }).ok()
}

/// How many options texts [`stored_options`] keeps.
const OPTIONS_REMEMBERED: usize = 256;

/// The operating system's CSPRNG, for server seeds.
pub fn system_rng() -> rand::rand_core::UnwrapErr<rand::rngs::SysRng> {
    rand::rand_core::UnwrapErr(rand::rngs::SysRng)
}

/// The row that stores `game` (seats are written separately). The rules
/// state's finished records are set aside while the rest is written
/// (`Rules::to_stored`), hence `&mut`; the game is as it was after.
/// `options` is the options' stored text: `game.options_json()` written
/// out for a new row, the text already stored for a changed one (a
/// table's options never change, and `games::update` does not write them).
/// `fairness` is the fair-deal state's text as the game was read with it
/// (`None` for a new row): stored again as it is while the state has not
/// changed, which is most moves.
pub fn game_to_row(
    game: &mut Game,
    created_at: i64,
    options: String,
    fairness: Option<&str>,
) -> Result<GameRow, RecordError> {
    let id = game.id;
    let json = |e: serde_json::Error| RecordError(format!("serialising game {id}: {e}"));
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
        options,
        state,
        records,
        fairness: Some(match fairness {
            Some(read) if !game.fairness.changed() => read.to_owned(),
            _ => serde_json::to_string(&game.fairness).map_err(json)?,
        }),
        created_at,
        seats: Vec::new(),
        automation: Some(
            crate::json_write::to_string(&Automation {
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

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use uuid::Uuid;

    use super::*;

    /// A read game's fair-deal state is stored again as the text it was
    /// read from while it has not changed, and written anew once it has.
    #[test]
    fn the_fair_deal_state_is_stored_as_it_was_read_until_it_changes() {
        let mut rng = StdRng::seed_from_u64(5);
        let host = SeatedPlayer {
            id: Uuid::from_u128(1),
            name: "host".into(),
            bot: None,
        };
        let options = Options::parse(GameKind::Klaverjassen, None).unwrap();
        let table = TableOptions::default();
        let mut game = Game::create(
            Uuid::from_u128(9),
            GameKind::Klaverjassen,
            options,
            table,
            host,
            None,
            &mut rng,
        )
        .unwrap();
        let options = game.options_json().to_string();
        let new = game_to_row(&mut game, 0, options.clone(), None).unwrap();
        // Space serde_json never writes: a text passed on shows it.
        let as_read = format!(" {} ", new.fairness.as_deref().unwrap());
        let read_row = GameRow {
            fairness: Some(as_read.clone()),
            ..new
        };
        let mut read = game_from_row(&read_row).unwrap();
        let again = game_to_row(&mut read, 0, options.clone(), Some(&as_read)).unwrap();
        assert_eq!(again.fairness.as_deref(), Some(as_read.as_str()));

        read.fairness.set_seat_seed(
            1,
            Some(crate::rules::fairness::SeatSeed::parse("c0ffee").unwrap()),
        );
        let changed = game_to_row(&mut read, 0, options, Some(&as_read)).unwrap();
        let written = changed.fairness.unwrap();
        assert_ne!(written, as_read);
        assert_eq!(
            serde_json::from_str::<crate::table::fairness::FairDeals>(&written).unwrap(),
            read.fairness
        );
    }

    /// The remembered options are those of the text and of the game: the
    /// same text read for the other game gives that game's options, and a
    /// second read gives what the first did.
    #[test]
    fn options_read_before_are_those_of_the_text_and_the_game() {
        let text = r#"{"hints":true,"turn_seconds":30}"#;
        for _ in 0..2 {
            let (options, table) = stored_options(GameKind::Klaverjassen, text).unwrap();
            assert!(matches!(options, Options::Klaverjassen(_)));
            assert!(table.hints);
            assert_eq!(table.turn_seconds, Some(30));
            let (options, table) = stored_options(GameKind::Potverteren, text).unwrap();
            assert!(matches!(options, Options::Potverteren(_)));
            assert!(table.hints);
        }
        let (_, table) = stored_options(GameKind::Klaverjassen, "{}").unwrap();
        assert!(!table.hints);
        assert!(stored_options(GameKind::Klaverjassen, r#"{"hints":"#).is_none());
        assert!(stored_options(GameKind::Klaverjassen, r#"{"colour":1}"#).is_none());
    }
}
