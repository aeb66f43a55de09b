//! A game's finished records (score-sheet rows, settled rounds): one
//! `game_deals` row each, written once by the move that finished it. A
//! read of the game brings the newest [`RECENT_RECORDS`]; the event log,
//! which shows every round's cards, reads them all ([`read_all_records`]).

use serde_json::value::RawValue;
use sqlx::AnyConnection;
use uuid::Uuid;

use super::{GameRow, RecordJson};
use crate::store::id_text;

/// How many of a game's finished records, the newest, a read of the game
/// brings (the `16` in `read::records_column`): a whole Klaverjassen match
/// (at most 16 deals), and a Potverteren table's last rounds, of which a
/// move and a view use only the last. The older ones stay in `game_deals`
/// and are held as [`RecordJson::held`], so the records keep their count
/// and order. Reading them all would make a Potverteren table's every
/// request cost more with every round.
pub const RECENT_RECORDS: i64 = 16;

/// Reads a game's finished records into `game.records`, as loaded with
/// `deals_stored` (None: a row of the old layout, whose state holds them).
/// `read`: the records read in the row's own statement, as the JSON array
/// it reads them as, if it read them.
pub(super) async fn complete(
    conn: &mut AnyConnection,
    game: &mut GameRow,
    deals_stored: Option<i64>,
    read: Option<&str>,
) -> Result<(), sqlx::Error> {
    let (Some(count), Some(_)) = (deals_stored, game.state.as_deref()) else {
        return Ok(());
    };
    if count == 0 {
        return Ok(());
    }
    let recent = count.min(RECENT_RECORDS);
    if let Some(read) = read {
        let records = records_from_json(read)?;
        // All the recent ones: `load_for` passes none it read in another
        // snapshot than the row's; counted anyway, since a missing one
        // would be lost from the state for good at the next write.
        if records.len() as i64 == recent {
            game.records = after_older(count, records);
            return Ok(());
        }
    }
    // Up to the count read with the row: a read outside a transaction may
    // see a deal finished since (records are only ever added, and never
    // change once written).
    let records = records_between(conn, game.id, count - recent, count).await?;
    game.records = after_older(count, records);
    Ok(())
}

/// The records of a JSON array of them, each as its own text.
fn records_from_json(json: &str) -> Result<Vec<RecordJson>, sqlx::Error> {
    let records: Vec<Box<RawValue>> = serde_json::from_str(json).map_err(|e| {
        sqlx::Error::Decode(format!("the finished records read are not JSON: {e}").into())
    })?;
    Ok(records.into_iter().map(RecordJson::from).collect())
}

/// Reads every finished record of `game`, where a read of the game brought
/// only the [`RECENT_RECORDS`] newest: for what shows older ones.
pub async fn read_all_records(
    conn: &mut AnyConnection,
    game: &mut GameRow,
) -> Result<(), sqlx::Error> {
    let count = game.records.len() as i64;
    if count > RECENT_RECORDS {
        game.records = records_between(conn, game.id, 0, count).await?;
    }
    Ok(())
}

/// Records `after + 1 ..= upto` of game `id`, all of them or an error.
async fn records_between(
    conn: &mut AnyConnection,
    id: Uuid,
    after: i64,
    upto: i64,
) -> Result<Vec<RecordJson>, sqlx::Error> {
    let records = sqlx::query_scalar::<_, String>(
        "SELECT record FROM game_deals WHERE game_id = $1 AND number > $2 AND number <= $3 \
         ORDER BY number",
    )
    .bind(id_text(id))
    .bind(after)
    .bind(upto)
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .map(|record| {
        RecordJson::from_string(record).map_err(|e| {
            sqlx::Error::Decode(format!("game {id}: a finished record is not JSON: {e}").into())
        })
    })
    .collect::<Result<Vec<_>, _>>()?;
    if records.len() as i64 != upto - after {
        return Err(sqlx::Error::Protocol(format!(
            "game {id}: {} finished records expected, {} stored",
            upto - after,
            records.len()
        )));
    }
    Ok(records)
}

/// `recent`, the newest of `count` records, after a [`RecordJson::held`]
/// for each older one left in the store.
fn after_older(count: i64, recent: Vec<RecordJson>) -> Vec<RecordJson> {
    let older = usize::try_from(count)
        .unwrap_or(0)
        .saturating_sub(recent.len());
    if older == 0 {
        return recent;
    }
    let mut records = Vec::with_capacity(older + recent.len());
    records.resize(older, RecordJson::held());
    records.extend(recent);
    records
}

/// Adds the finished records `game_deals` does not hold yet; returns how
/// many the game has.
pub(super) async fn add_records(
    conn: &mut AnyConnection,
    game: &GameRow,
) -> Result<usize, sqlx::Error> {
    let records = &game.records;
    if records.is_empty() {
        return Ok(0);
    }
    // Known from the locked load in the same transaction, so nothing can
    // have added a record since; read only when not known.
    let stored = match game.deals_stored {
        Some(stored) => stored,
        None => {
            sqlx::query_scalar::<_, Option<i64>>("SELECT deals_stored FROM games WHERE id = $1")
                .bind(id_text(game.id))
                .fetch_one(&mut *conn)
                .await?
                .unwrap_or(0)
        }
    };
    let stored = stored_count(stored, records.len())?;
    insert_records(conn, game.id, records, stored).await?;
    Ok(records.len())
}

/// How many of `total` records are stored, checked: records are only ever
/// added to a state.
fn stored_count(stored: i64, total: usize) -> Result<usize, sqlx::Error> {
    usize::try_from(stored)
        .ok()
        .filter(|&stored| stored <= total)
        .ok_or_else(|| {
            sqlx::Error::Protocol(format!(
                "{stored} finished records stored but the state has {total}"
            ))
        })
}

/// Adds `records[from..]` to `game_deals`, numbered from `from + 1`.
pub(crate) async fn insert_records(
    conn: &mut AnyConnection,
    game: Uuid,
    records: &[RecordJson],
    from: usize,
) -> Result<(), sqlx::Error> {
    for (index, record) in records.iter().enumerate().skip(from) {
        let Some(json) = record.get() else {
            return Err(sqlx::Error::Protocol(format!(
                "game {game}: finished record {} to be written was never read",
                index + 1
            )));
        };
        sqlx::query("INSERT INTO game_deals (game_id, number, record) VALUES ($1, $2, $3)")
            .bind(id_text(game))
            .bind(index as i64 + 1)
            .bind(json)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(json: &str) -> RecordJson {
        RecordJson::from_string(json.to_owned()).unwrap()
    }

    /// The older records a read leaves in the store are held, before the
    /// recent ones, so that their count and order stay.
    #[test]
    fn older_records_are_held_before_the_recent_ones() {
        let recent = records_from_json(r#"[{"round":19},{"round":20}]"#).unwrap();
        let held = after_older(20, recent.clone());
        assert_eq!(held.len(), 20);
        assert!(held[..18].iter().all(|r| r.get().is_none()));
        assert_eq!(
            held[18..],
            [record(r#"{"round":19}"#), record(r#"{"round":20}"#)]
        );
        assert_eq!(after_older(2, recent).len(), 2);
    }

    /// The records' array reads back each record as the text it is, space
    /// between them dropped; anything that is not a JSON array is refused.
    #[test]
    fn records_read_as_a_json_array_come_apart_as_each_ones_text() {
        let records = [r#"{"n":1}"#, r#"{"name":"Ée\u001e,]"}"#, "[]", r#""✓""#];
        let read = records_from_json(&format!("[{}]", records.join(", "))).unwrap();
        let apart: Vec<&str> = read.iter().map(|r| r.get().unwrap()).collect();
        assert_eq!(apart, records);
        for bad in [r#"[{"n":1}"#, r#"{"n":1}"#, ""] {
            assert!(records_from_json(bad).is_err(), "{bad:?}");
        }
    }
}
