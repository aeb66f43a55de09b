//! The stored layout of a game's rules state: the live part in
//! `games.state`, the finished records (Klaverjassen score-sheet rows with
//! their history, Potverteren settled rounds) one row each in `game_deals`,
//! written once by the move that finished them.
//!
//! The rules state is written in these two parts and read back from them
//! ([`rules_to_stored`], [`rules_from_stored`]): its serde shape
//! (`{"klaverjassen": {…, "sheet": [...]}}`, `{"potverteren": {…,
//! "history": [...]}}`) without the records' array, and each record's
//! JSON, written once. Rows stored by earlier releases hold the
//! whole state (`games.deals_stored` NULL): they are read as they are, and
//! [`split`] cuts them in two when the service starts
//! ([`Store::split_old_layout`]).

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use sqlx::AnyConnection;

use super::games::RecordJson;
use super::games::records::insert_records;
use super::players::parse_uuid;
use super::{Backend, Store};
use crate::rules::records::FinishedRecords;
use crate::table::{GameKind, Rules};

/// The rules state as the store keeps it: its JSON without the finished
/// records, and each record after the first `read`, JSON each, in order.
pub(super) fn rules_to_stored(
    rules: &mut Rules,
    read: usize,
) -> Result<(String, Vec<RecordJson>), serde_json::Error> {
    match rules {
        Rules::Klaverjassen(game) => game_to_stored(GameKind::Klaverjassen, game, read),
        Rules::Potverteren(game) => game_to_stored(GameKind::Potverteren, game, read),
    }
}

/// `game`'s JSON without its finished records, as `{"<kind>":{…}}` (the
/// shape of the game's variant of [`Rules`]), and the records after the
/// first `read`. The records are set aside while the rest is written and
/// are put back.
fn game_to_stored<G>(
    kind: GameKind,
    game: &mut G,
    read: usize,
) -> Result<(String, Vec<RecordJson>), serde_json::Error>
where
    G: Serialize + FinishedRecords,
    G::Record: Serialize,
{
    let records = std::mem::take(game.finished_records_mut());
    let live = serde_json::to_string(&BTreeMap::from([(kind.as_str(), &*game)]));
    *game.finished_records_mut() = records;
    let added = game
        .finished_records()
        .get(read..)
        .ok_or_else(|| serde::ser::Error::custom("finished records are only ever added"))?
        .iter()
        .map(|record| serde_json::value::to_raw_value(record).map(RecordJson::from))
        .collect::<Result<_, _>>()?;
    Ok((live?, added))
}

/// The rules state from what [`rules_to_stored`] wrote, with the records
/// read of it (held ones left out), or from a state stored whole, with no
/// records apart.
pub(super) fn rules_from_stored(
    live: &str,
    records: &[RecordJson],
) -> Result<Rules, serde_json::Error> {
    let mut rules: Rules = serde_json::from_str(live)?;
    match &mut rules {
        Rules::Klaverjassen(game) => attach_records(game, records)?,
        Rules::Potverteren(game) => attach_records(game, records)?,
    }
    Ok(rules)
}

/// Puts the finished records the store kept apart back into `game`, read
/// from the rest of its state. A state stored whole (before the records
/// were kept apart) comes with none apart; records in both places are
/// refused.
fn attach_records<G>(game: &mut G, records: &[RecordJson]) -> Result<(), serde_json::Error>
where
    G: FinishedRecords,
    G::Record: DeserializeOwned,
{
    if records.is_empty() {
        return Ok(());
    }
    let list = game.finished_records_mut();
    if !list.is_empty() {
        return Err(serde::de::Error::custom(
            "finished records both in the state and kept apart",
        ));
    }
    *list = records
        .iter()
        .filter_map(RecordJson::get)
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    Ok(())
}

/// The key of the finished records' array in the state of game `kind`, if
/// its state has one.
fn records_key(kind: &str) -> Option<&'static str> {
    match kind {
        "klaverjassen" => Some("sheet"),
        "potverteren" => Some("history"),
        _ => None,
    }
}

/// A whole rules state cut in two.
#[derive(Debug, PartialEq, Eq)]
pub struct Split {
    /// The state without the finished records, for `games.state`.
    pub live: String,
    /// The finished records in order, each the JSON it had in the state.
    pub records: Vec<String>,
}

/// Cuts the finished records out of a whole rules state.
pub fn split(state: &str) -> Result<Split, serde_json::Error> {
    let outer: BTreeMap<String, BTreeMap<String, &RawValue>> = serde_json::from_str(state)?;
    let mut entries = outer.into_iter();
    let (Some((kind, mut inner)), None) = (entries.next(), entries.next()) else {
        return Err(serde::de::Error::custom(
            "a rules state is an object with one key, the game",
        ));
    };
    let Some(key) = records_key(&kind) else {
        // A game without finished records: stored whole.
        return Ok(Split {
            live: state.to_owned(),
            records: Vec::new(),
        });
    };
    let records: Vec<&RawValue> = match inner.remove(key) {
        Some(list) => serde_json::from_str(list.get())?,
        None => Vec::new(),
    };
    let live = serde_json::to_string(&BTreeMap::from([(kind, inner)]))?;
    Ok(Split {
        live,
        records: records.iter().map(|r| r.get().to_owned()).collect(),
    })
}

impl Store {
    /// Splits every game row still in the layout of earlier releases (the
    /// whole state in `games.state`, `deals_stored` NULL) into its live part
    /// and its `game_deals` rows, in batches of one transaction each. Rows
    /// not split yet are read as they are, and a row is split on its next
    /// write anyway; this does it for all at start so none is left behind.
    pub async fn split_old_layout(&self) -> Result<u64, sqlx::Error> {
        const BATCH: i64 = 200;
        let mut split = 0;
        let mut after = String::new();
        loop {
            let mut tx = self.begin_write().await?;
            let ids: Vec<String> = sqlx::query_scalar(
                "SELECT id FROM games WHERE deals_stored IS NULL AND id > $1 ORDER BY id LIMIT $2",
            )
            .bind(&after)
            .bind(BATCH)
            .fetch_all(&mut *tx)
            .await?;
            let Some(last) = ids.last() else {
                tx.commit().await?;
                return Ok(split);
            };
            after.clone_from(last);
            for id in &ids {
                match split_old_row(&mut tx, self.backend, id).await {
                    Ok(true) => split += 1,
                    Ok(false) => {}
                    // An unreadable state stays as it is (and answers as
                    // before: a 500 naming the game), not blocking the start.
                    Err(sqlx::Error::Encode(error)) => {
                        tracing::error!(game = %id, %error, "stored state unreadable, left whole");
                    }
                    Err(error) => return Err(error),
                }
            }
            tx.commit().await?;
        }
    }
}

/// Splits one row still in the old layout (whole state in `games.state`),
/// if it still is: its finished records go to `game_deals`, its state
/// keeps the live part. `updated_at` is left as it is. Returns whether the
/// row was split.
async fn split_old_row(
    conn: &mut AnyConnection,
    backend: Backend,
    id: &str,
) -> Result<bool, sqlx::Error> {
    let query = if backend == Backend::Postgres {
        "SELECT state FROM games WHERE id = $1 AND deals_stored IS NULL FOR UPDATE"
    } else {
        "SELECT state FROM games WHERE id = $1 AND deals_stored IS NULL"
    };
    let Some(state): Option<Option<String>> = sqlx::query_scalar(query)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(false);
    };
    let (state, records) = match state.as_deref().map(split).transpose() {
        Ok(Some(split)) => (Some(split.live), split.records),
        Ok(None) => (None, Vec::new()),
        Err(e) => return Err(sqlx::Error::Encode(Box::new(e))),
    };
    let records = records
        .into_iter()
        .map(RecordJson::from_string)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    insert_records(conn, parse_uuid(id)?, &records, 0).await?;
    sqlx::query("UPDATE games SET state = $1, deals_stored = $2 WHERE id = $3")
        .bind(state)
        .bind(records.len() as i64)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use serde_json::{Value, json};

    use super::*;
    use crate::store::testing::records;
    use crate::table::testing::play_moves_until;
    /// The store writes a state as its live part and its finished records:
    /// read back, they make the same state, the live part holds no record,
    /// and writing leaves the state as it was.
    fn assert_stored_and_read_back(mut rules: Rules, key: &str) {
        let before = rules.clone();
        let (live, stored) = rules_to_stored(&mut rules, 0).unwrap();
        assert_eq!(rules, before, "writing changes nothing");
        assert_eq!(stored.len(), records(&rules));
        let live_json: serde_json::Value = serde_json::from_str(&live).unwrap();
        let (_, inner) = live_json.as_object().unwrap().iter().next().unwrap();
        assert!(inner.get(key).is_none(), "{live}");
        assert_eq!(rules_from_stored(&live, &stored).unwrap(), before);
        // A state stored whole (before the records were kept apart).
        let whole = serde_json::to_string(&before).unwrap();
        assert_eq!(rules_from_stored(&whole, &[]).unwrap(), before);
        // Records in the state and apart at once are refused.
        if !stored.is_empty() {
            assert!(rules_from_stored(&whole, &stored).is_err());
        }
    }

    #[test]
    fn a_klaverjassen_match_is_stored_as_its_live_part_and_its_sheet_rows() {
        let mut rng = StdRng::seed_from_u64(7);
        let options = crate::rules::klaverjassen::Options {
            auto_deal: true,
            ..Default::default()
        };
        let mut rules =
            Rules::Klaverjassen(crate::rules::klaverjassen::Match::new(options, &mut rng));
        assert_stored_and_read_back(rules.clone(), "sheet");
        play_moves_until(&mut rules, &mut rng, |_| true, |r| records(r) == 2);
        assert_stored_and_read_back(rules, "sheet");
    }

    #[test]
    fn a_potverteren_table_is_stored_as_its_live_part_and_its_settled_rounds() {
        let mut rng = StdRng::seed_from_u64(7);
        let options = crate::rules::potverteren::Options {
            auto_deal: true,
            ..Default::default()
        };
        let mut rules = Rules::Potverteren(crate::rules::potverteren::Table::new(
            options,
            crate::rules::Seat(0),
            &mut rng,
        ));
        assert_stored_and_read_back(rules.clone(), "history");
        play_moves_until(&mut rules, &mut rng, |_| true, |r| records(r) == 2);
        assert_stored_and_read_back(rules, "history");
    }

    /// The whole state again, as the rules state reads it from its parts.
    fn join(live: &str, records: &[String]) -> Result<String, serde_json::Error> {
        let mut whole: BTreeMap<String, BTreeMap<String, Value>> = serde_json::from_str(live)?;
        let Some((kind, inner)) = whole.iter_mut().next() else {
            return Err(serde::de::Error::custom("not one game"));
        };
        if let Some(key) = records_key(kind) {
            let records = records
                .iter()
                .map(|r| serde_json::from_str(r))
                .collect::<Result<Vec<Value>, _>>()?;
            inner.insert(key.to_owned(), Value::Array(records));
        }
        serde_json::to_string(&whole)
    }

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn a_klaverjassen_state_splits_into_live_part_and_sheet_rows_and_joins_back() {
        let whole = json!({"klaverjassen": {
            "options": {"deals": 16}, "deal_number": 3,
            "sheet": [{"number": 1, "trump": "hearts"}, {"number": 2, "trump": "clubs"}],
            "totals": [10, 20]
        }})
        .to_string();
        let split = split(&whole).unwrap();
        assert!(!split.live.contains("sheet"), "{}", split.live);
        assert_eq!(split.records.len(), 2);
        assert_eq!(
            parsed(&split.records[1]),
            json!({"number": 2, "trump": "clubs"})
        );
        assert_eq!(
            parsed(&join(&split.live, &split.records).unwrap()),
            parsed(&whole)
        );
    }

    #[test]
    fn a_potverteren_state_splits_its_settled_rounds() {
        let whole = json!({"potverteren": {"round": 2, "history": [{"round": 1}]}}).to_string();
        let split = split(&whole).unwrap();
        assert_eq!(split.records, vec![json!({"round": 1}).to_string()]);
        assert_eq!(
            parsed(&join(&split.live, &split.records).unwrap()),
            parsed(&whole)
        );
    }

    #[test]
    fn a_split_record_is_its_json_without_the_space_around_it() {
        // Each record goes to game_deals as one JSON value with nothing
        // around it, even when the stored state was written with spaces.
        let whole =
            "{ \"potverteren\" : { \"history\" : [ {\"round\": 1} ,\n\t{ \"round\" : 2 } ] } }";
        let split = split(whole).unwrap();
        assert_eq!(split.records, vec![r#"{"round": 1}"#, r#"{ "round" : 2 }"#]);
    }

    #[test]
    fn a_state_with_no_finished_records_yet_joins_back_with_an_empty_list() {
        let whole = json!({"klaverjassen": {"deal_number": 1, "sheet": []}}).to_string();
        let split = split(&whole).unwrap();
        assert!(split.records.is_empty());
        assert_eq!(parsed(&join(&split.live, &[]).unwrap()), parsed(&whole));
    }

    #[test]
    fn a_state_of_another_game_is_stored_whole() {
        let whole = json!({"other": {"history": [1, 2]}}).to_string();
        let split = split(&whole).unwrap();
        assert_eq!(split.live, whole);
        assert!(split.records.is_empty());
        assert_eq!(join(&split.live, &[]).unwrap(), whole);
    }

    #[test]
    fn a_state_that_is_not_one_game_is_refused() {
        assert!(split(r#"{"klaverjassen": {}, "potverteren": {}}"#).is_err());
        assert!(split("[]").is_err());
        assert!(join("[]", &[]).is_err());
    }
}
