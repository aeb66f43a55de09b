//! Between a stored row and the [`Game`] it stores: the rules state,
//! options, fair-deal state and automation are JSON documents in the row,
//! and the rules' finished records are rows of `game_deals` (see
//! `store::layout`), of which a read brings the newest
//! ([`RECENT_RECORDS`](super::games::RECENT_RECORDS)).

use super::StoreError;
use super::games::{GameRow, RecordJson};
use super::layout::{rules_from_stored, rules_to_stored};
use crate::table::Level;
use crate::table::{Game, GameKind, Options, SeatedPlayer, Status, StoredSheet, TableOptions};

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

/// The game stored in `row`. Its rules hold the finished records the row
/// was read with: all of them, or the newest when a read left the older
/// ones in the store.
pub fn game_from_row(row: &GameRow) -> Result<Game, StoreError> {
    game_with_records(row, &row.records, StoredSheet::default())
}

/// The game stored in `row`, read only to be shown: of its finished
/// records the rules hold those a view reads, and the score-sheet rows a
/// view shows as they are stay the JSON they were stored as
/// ([`Game::stored_sheet`]). A Klaverjassen view shows every row of the
/// sheet, a Potverteren view only the last settled round. Such a game is
/// not to be changed: writing it again is refused, as its rules lack the
/// records it was read with.
pub fn game_to_show(mut row: GameRow) -> Result<Game, StoreError> {
    let Some((last, _)) = row.records.split_last() else {
        return game_from_row(&row);
    };
    match row.kind.as_str() {
        "klaverjassen" if row.records.iter().all(shown_as_stored) => {
            let records = std::mem::take(&mut row.records);
            let sheet = records.into_iter().filter_map(RecordJson::into_raw);
            game_with_records(&row, &[], StoredSheet::new(sheet.collect()))
        }
        "potverteren" => {
            game_with_records(&row, std::slice::from_ref(last), StoredSheet::default())
        }
        _ => game_from_row(&row),
    }
}

/// Whether a view may show `record` as it was stored: a score-sheet row
/// read with the game (not one left in the store) that holds its deal's
/// seeds. The store writes a row with serde_json, compact, once its deal
/// is over and its seeds are in it; a row stored before rows kept their
/// seeds is read into the rules' record, for the view to fill them in.
fn shown_as_stored(record: &RecordJson) -> bool {
    record
        .get()
        .is_some_and(|json| json.contains(r#""server_seed":""#))
}

/// The game stored in `row`, its rules holding `records` (of `row`'s) and
/// the game keeping `stored_sheet`.
fn game_with_records(
    row: &GameRow,
    records: &[RecordJson],
    stored_sheet: StoredSheet,
) -> Result<Game, StoreError> {
    let unreadable = |what| StoreError::Unreadable { game: row.id, what };
    let kind = GameKind::parse(&row.kind).ok_or_else(|| unreadable("kind"))?;
    let status = Status::parse(&row.status).ok_or_else(|| unreadable("status"))?;
    let (options, table) =
        stored_options(kind, &row.options).ok_or_else(|| unreadable("options"))?;
    let rules = row
        .state
        .as_deref()
        .map(|live| rules_from_stored(live, records))
        .transpose()
        .map_err(|_| unreadable("state"))?;
    let mut seats = vec![None; usize::from(options.seat_count())];
    for taken in &row.seats {
        let slot = seats
            .get_mut(usize::from(taken.seat))
            .ok_or_else(|| unreadable("seat"))?;
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
        .map_err(|_| unreadable("automation"))?
        .unwrap_or_default();
    let mut away = automation.away;
    away.resize(seats.len(), false);
    let fairness = match row.fairness.as_deref() {
        Some(json) => serde_json::from_str(json).map_err(|_| unreadable("fairness"))?,
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
        stored_sheet,
    })
}

/// The options stored as `text` for a game of `kind` (`None`: unreadable).
fn stored_options(kind: GameKind, text: &str) -> Option<(Options, TableOptions)> {
    TableOptions::parse_with(kind, Some(serde_json::from_str(text).ok()?)).ok()
}

/// The options stored as `text` for a game of `kind` as views show them
/// (`None`: unreadable), without reading the game itself.
pub fn shown_options_of(kind: GameKind, text: &str) -> Option<serde_json::Value> {
    let (game, table) = stored_options(kind, text)?;
    serde_json::to_value(crate::table::view::ShownOptions { game, table }).ok()
}

/// The operating system's CSPRNG, for server seeds.
pub fn system_rng() -> rand::rand_core::UnwrapErr<rand::rngs::SysRng> {
    rand::rand_core::UnwrapErr(rand::rngs::SysRng)
}

/// The row that stores a new `game` (seats are written separately), every
/// finished record of it to be written. The finished records are set aside
/// while the rest of the rules state is written, hence `&mut`; the game is
/// as it was after. `options` is the options' stored text
/// (`game.options_json()` written out). `fairness` is the fair-deal
/// state's text as the game was read with it (`None` for a new game):
/// stored again as it is while the state has not changed.
pub fn game_to_row(
    game: &mut Game,
    created_at: i64,
    options: String,
    fairness: Option<&str>,
) -> Result<GameRow, StoreError> {
    to_row(game, created_at, options, fairness, 0, 0)
}

/// The row that stores `game` after a change to the game `loaded` held
/// (the version, deadline and when work is due are the caller's to set):
/// its options, creation time and fair-deal text as loaded, and the
/// finished records the change added, to be written after those the row
/// holds.
pub fn changed_row(game: &mut Game, loaded: &GameRow) -> Result<GameRow, StoreError> {
    let stored = usize::try_from(loaded.deals_stored.unwrap_or(0)).unwrap_or(0);
    let read = loaded.records.iter().filter(|r| r.get().is_some()).count();
    let mut row = to_row(
        game,
        loaded.created_at,
        loaded.options.clone(),
        loaded.fairness.as_deref(),
        stored,
        read,
    )?;
    row.deals_stored = loaded.deals_stored;
    Ok(row)
}

/// The row that stores `game`. Of its finished records, the first `read`
/// are the newest of the `stored` ones the row holds already (each of
/// those is [`RecordJson::held`] in the row); the rest are written after
/// them.
fn to_row(
    game: &mut Game,
    created_at: i64,
    options: String,
    fairness: Option<&str>,
    stored: usize,
    read: usize,
) -> Result<GameRow, StoreError> {
    let id = game.id;
    let unwritable = |source| StoreError::Unwritable { game: id, source };
    let (state, added) = match game.rules.as_mut() {
        Some(rules) => {
            let (live, added) = rules_to_stored(rules, read).map_err(unwritable)?;
            (Some(live), added)
        }
        None => (None, Vec::new()),
    };
    let mut records = vec![RecordJson::held(); stored];
    records.extend(added);
    let automation = serde_json::to_string(&Automation {
        away: game.away.clone(),
        deadline: game.deadline,
        friends: game.friends.clone(),
    })
    .map_err(unwritable)?;
    Ok(GameRow {
        id,
        kind: game.kind.as_str().to_owned(),
        status: game.status.as_str().to_owned(),
        version: game.version,
        host_id: game.host,
        options,
        state,
        records,
        fairness: Some(match fairness {
            Some(read) if !game.fairness.changed() => read.to_owned(),
            _ => serde_json::to_string(&game.fairness).map_err(unwritable)?,
        }),
        created_at,
        seats: Vec::new(),
        automation: Some(automation),
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
    use crate::store::games::SeatRow;
    use crate::store::players::PlayerRow;
    use crate::store::testing::{game_after, plays_on, records};
    use crate::table::Rules;
    use crate::table::fairness::FairDeals;
    use crate::table::testing::{callers, play_moves_until, play_one_move, varied_games};

    /// The store's side of `row`, written for `game`: the records the row
    /// adds after those `stored` holds are stored too, and the row reads
    /// back as a read of the game brings it, with the game's seats, the
    /// newest `recent` records and the older ones held.
    fn stored_and_read(
        row: &GameRow,
        game: &Game,
        stored: &mut Vec<RecordJson>,
        recent: usize,
    ) -> GameRow {
        stored.extend(row.records[stored.len()..].iter().cloned());
        let older = stored.len().saturating_sub(recent);
        let mut records = vec![RecordJson::held(); older];
        records.extend(stored[older..].iter().cloned());
        GameRow {
            records,
            deals_stored: Some(stored.len() as i64),
            seats: seat_rows(game),
            ..row.clone()
        }
    }

    /// The seats of `game` as the store reads them.
    fn seat_rows(game: &Game) -> Vec<SeatRow> {
        let taken = game.seats.iter().zip(0..);
        taken
            .filter_map(|(seat, number)| {
                let player = seat.as_ref()?;
                Some(SeatRow {
                    seat: number,
                    player: PlayerRow {
                        id: player.id,
                        name: player.name.clone(),
                        bot_level: player.bot.map(|level| level.as_str().to_owned()),
                    },
                })
            })
            .collect()
    }

    /// At every step of random games of both kinds (revokes, take-backs
    /// and reviews, a computer player, an away seat and a clock's deadline
    /// included), the game read back from the row the store keeps is the
    /// game, and shows every seat and a spectator the same view; the row
    /// written after a change adds just the finished records the change
    /// made.
    #[test]
    fn a_game_read_back_from_its_row_is_the_game_at_every_step_of_both_games() {
        for (mut game, mut rng) in varied_games() {
            let callers = callers(&game);
            let options = game.options_json().to_string();
            let mut stored = Vec::new();
            let new = game_to_row(&mut game, 0, options, None).unwrap();
            let mut row = stored_and_read(&new, &game, &mut stored, usize::MAX);
            for _ in 0..400 {
                let read = game_from_row(&row).unwrap();
                assert_eq!(read, game);
                for &caller in &callers {
                    assert_eq!(
                        serde_json::to_vec(&read.view_for(caller)).unwrap(),
                        serde_json::to_vec(&game.view_for(caller)).unwrap()
                    );
                }
                if !play_one_move(&mut game, &mut rng) {
                    break;
                }
                let finished = records(game.rules.as_ref().unwrap());
                let changed = changed_row(&mut game, &row).unwrap();
                assert_eq!(changed.records.len(), finished);
                assert!(
                    changed.records[..stored.len()]
                        .iter()
                        .all(|r| r.get().is_none())
                );
                row = stored_and_read(&changed, &game, &mut stored, usize::MAX);
            }
        }
    }

    /// A Potverteren table read with only its newest settled rounds plays
    /// on: the round it settles next is written after all of those stored,
    /// and read back with the newest, it is the table that settled it.
    #[test]
    fn a_table_read_with_only_its_newest_rounds_writes_each_round_it_settles_after_them() {
        let mut game = game_after(
            GameKind::Potverteren,
            serde_json::json!({"auto_deal": true, "seats": 5}),
            |r| records(r) == 5,
        );
        let options = game.options_json().to_string();
        let mut stored = Vec::new();
        let new = game_to_row(&mut game, 0, options, None).unwrap();
        let mut row = stored_and_read(&new, &game, &mut stored, 3);
        let mut rng = StdRng::seed_from_u64(5);
        for round in 6..=8 {
            let mut read = game_from_row(&row).unwrap();
            let Some(Rules::Potverteren(table)) = &read.rules else {
                panic!("a Potverteren table");
            };
            let held: Vec<u32> = table.settled_rounds().iter().map(|r| r.round).collect();
            assert_eq!(held, (round - 3..round).collect::<Vec<_>>());
            assert!(
                table.settled_round(round - 4).is_none(),
                "left in the store"
            );
            play_moves_until(read.rules.as_mut().unwrap(), &mut rng, plays_on, |r| {
                records(r) == 4
            });
            let changed = changed_row(&mut read, &row).unwrap();
            assert_eq!(changed.records.len(), usize::try_from(round).unwrap());
            let written: serde_json::Value =
                serde_json::from_str(changed.records.last().unwrap().get().unwrap()).unwrap();
            assert_eq!(written["round"], round);
            row = stored_and_read(&changed, &read, &mut stored, 3);
            let again = game_from_row(&row).unwrap();
            let (Some(Rules::Potverteren(read)), Some(Rules::Potverteren(again))) =
                (&read.rules, &again.rules)
            else {
                panic!("Potverteren tables");
            };
            assert_eq!(read.settled_rounds()[1..], again.settled_rounds()[..]);
        }
    }

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
            serde_json::from_str::<FairDeals>(&written).unwrap(),
            read.fairness
        );
    }

    /// The options read are those of the text and of the game: the same
    /// text read for the other game gives that game's options.
    #[test]
    fn options_read_are_those_of_the_text_and_the_game() {
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
