//! The stored layout of a game's rules state: the live part in
//! `games.state`, the finished records (Klaverjassen score-sheet rows with
//! their history, Potverteren settled rounds) one row each in `game_deals`,
//! written once by the move that finished them.
//!
//! The rules state writes itself in these two parts and reads itself back
//! from them (`Rules::to_stored`, `Rules::from_stored`): its serde shape
//! (`{"klaverjassen": {…, "sheet": [...]}}`, `{"potverteren": {…,
//! "history": [...]}}`) without the records' array, and each record's JSON.
//! Rows stored by earlier releases hold the whole state (`games.deals_stored`
//! NULL): they are read as they are, and [`split`] cuts them in two when the
//! service starts (`Store::split_old_layout`).

use std::collections::BTreeMap;

use serde_json::value::RawValue;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

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
        // Frozen::from_stored takes game_deals' texts unchecked, as one JSON
        // value with nothing around it: what split writes there must be so
        // even when the stored state was written with spaces.
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
