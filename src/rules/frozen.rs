//! A value kept as the JSON it was stored as, parsed only when something
//! asks for its fields: a finished record (a Klaverjassen score-sheet row, a
//! settled Potverteren round), and the fair-deal state's list of the seat
//! seeds that went into each deal begun (src/table/fairness.rs).
//!
//! Such a record never changes once its deal or round is over, but every
//! request loads the whole rules state and every view shows the score sheet.
//! Parsing each row into its struct and writing it out again on every
//! request made a move's cost grow with the match (docs/benchmarks.md,
//! "Finished records kept as JSON"). A [`Frozen`] value is read as raw JSON,
//! written back as the same text, and parsed only when something asks for
//! its fields ([`Frozen::get`], or through `Deref`).
//!
//! Reading a state stored whole checks that the text is JSON; a record the
//! store read back from `game_deals` comes as the [`JsonText`] it took as
//! the text this service wrote there ([`attach_records`]), and is shared,
//! not copied, by the game, its views and the next write. That it is a
//! record of its type is checked when it is first parsed: the text was
//! written by serde from that type, so only a bug (a layout change without
//! its migration) could make it fail, and `Deref` then panics;
//! [`Frozen::get`] returns the error.

use std::fmt;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::json_text::JsonText;

/// A record held as its JSON text, parsed on first use.
pub struct Frozen<T> {
    json: JsonText,
    parsed: OnceLock<T>,
}

impl<T: Serialize> Frozen<T> {
    /// A record made now: written to JSON once, kept parsed too.
    pub fn new(value: T) -> Frozen<T> {
        let json = serde_json::value::to_raw_value(&value)
            .expect("a record of plain fields always serialises");
        Frozen {
            json: JsonText::new(json),
            parsed: OnceLock::from(value),
        }
    }
}

impl<T> Frozen<T> {
    /// A value as this service stored it, parsed as a `T` on first use,
    /// sharing its text: a record the store read back from `game_deals`,
    /// or the list a fair-deal state keeps as text. Its text is not checked
    /// to be JSON again: that check was 11 % of the service's CPU per move
    /// (docs/benchmarks.md, "Finished records not checked again"), on text
    /// this service wrote (`store::games::stored_record`); see
    /// [`JsonText::from_str_unchecked`] for what the text must be.
    pub fn from_text(json: JsonText) -> Frozen<T> {
        Frozen {
            json,
            parsed: OnceLock::new(),
        }
    }

    /// The record's JSON, as stored and as served.
    pub fn json(&self) -> &str {
        self.json.get()
    }

    /// The record's JSON, shared.
    pub fn text(&self) -> &JsonText {
        &self.json
    }

    /// The record if it has been parsed already.
    pub fn parsed(&self) -> Option<&T> {
        self.parsed.get()
    }
}

impl<T: DeserializeOwned> Frozen<T> {
    /// The record's fields, parsed the first time they are asked for.
    ///
    /// # Errors
    /// When the stored JSON is not a record of this type.
    pub fn get(&self) -> Result<&T, serde_json::Error> {
        if let Some(value) = self.parsed.get() {
            return Ok(value);
        }
        let value = serde_json::from_str(self.json.get())?;
        Ok(self.parsed.get_or_init(|| value))
    }
}

impl<T: Serialize + DeserializeOwned> Frozen<T> {
    /// Changes the record (the table fills in a finished deal's seeds once)
    /// and writes its JSON anew.
    ///
    /// # Errors
    /// When the stored JSON is not a record of this type.
    pub fn update(&mut self, change: impl FnOnce(&mut T)) -> Result<(), serde_json::Error> {
        let mut value = match self.parsed.take() {
            Some(value) => value,
            None => serde_json::from_str(self.json.get())?,
        };
        change(&mut value);
        *self = Frozen::new(value);
        Ok(())
    }
}

impl<T: DeserializeOwned> std::ops::Deref for Frozen<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.get()
            .expect("a finished record reads as the type it was written from")
    }
}

/// The default value, written to JSON once.
impl<T: Serialize + Default> Default for Frozen<T> {
    fn default() -> Frozen<T> {
        Frozen::new(T::default())
    }
}

impl<T: Clone> Clone for Frozen<T> {
    fn clone(&self) -> Self {
        Frozen {
            json: self.json.clone(),
            parsed: self.parsed.clone(),
        }
    }
}

/// Two records are equal when their JSON is: the text is written by serde
/// from the fields, in their declared order, so equal fields give equal text.
impl<T> PartialEq for Frozen<T> {
    fn eq(&self, other: &Self) -> bool {
        self.json.get() == other.json.get()
    }
}

impl<T> Eq for Frozen<T> {}

impl<T> fmt::Debug for Frozen<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.json.get())
    }
}

impl<T> Serialize for Frozen<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

impl<'de, T> Deserialize<'de> for Frozen<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Frozen {
            json: JsonText::new(Box::<RawValue>::deserialize(deserializer)?),
            parsed: OnceLock::new(),
        })
    }
}

/// A game state that keeps finished records ([`Frozen`], in order): the
/// store writes each of them once, when it is made, and the rest of the
/// state on every change (src/store/layout.rs).
pub trait FrozenRecords {
    /// A finished record.
    type Record;
    /// The finished records, in order, for the store to set aside and put
    /// back; nothing else changes them.
    fn frozen_records(&mut self) -> &mut Vec<Frozen<Self::Record>>;

    /// The finished records, in order.
    fn records(&self) -> &[Frozen<Self::Record>];
}

/// The bytes of `game`'s finished records' JSON, which every view carries
/// as it is.
pub fn records_len<G: FrozenRecords>(game: &G) -> usize {
    game.records()
        .iter()
        .map(|record| record.json().len())
        .sum()
}

/// `game`'s JSON without its finished records, as `{"<kind>":{…}}` (the
/// shape of the game's variant in the table's rules state), and each
/// record's JSON in order, shared. The records are set aside while the
/// rest is written and are put back, their parsed values kept.
pub fn to_stored<G: Serialize + FrozenRecords>(
    kind: &str,
    game: &mut G,
) -> Result<(String, Vec<JsonText>), serde_json::Error> {
    let records = std::mem::take(game.frozen_records());
    let inner = serde_json::to_string(game);
    *game.frozen_records() = records;
    let mut live = String::with_capacity(kind.len() + 5 + inner.as_ref().map_or(0, String::len));
    live.push_str("{\"");
    live.push_str(kind);
    live.push_str("\":");
    live.push_str(&inner?);
    live.push('}');
    let records = game
        .frozen_records()
        .iter()
        .map(|record| record.text().clone())
        .collect();
    Ok((live, records))
}

/// Puts the finished records the store kept apart back into `game`, read
/// from the rest of its state. A state stored whole (before the records
/// were kept apart) comes with none apart; records in both places are
/// refused. `records` are texts read back from `game_deals`, which only
/// [`to_stored`]'s records are written to ([`Frozen::from_text`]); the
/// game shares them.
pub fn attach_records<G: FrozenRecords>(
    game: &mut G,
    records: &[JsonText],
) -> Result<(), serde_json::Error> {
    if records.is_empty() {
        return Ok(());
    }
    let list = game.frozen_records();
    if !list.is_empty() {
        return Err(serde::de::Error::custom(
            "finished records both in the state and kept apart",
        ));
    }
    *list = records
        .iter()
        .map(|json| Frozen::from_text(json.clone()))
        .collect();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Row {
        number: u8,
        seed: Option<String>,
    }

    #[test]
    fn a_frozen_record_is_written_back_as_the_text_it_was_read_as() {
        let text = r#"[{"number":1,"seed":null},{"number":2,"seed":"ab"}]"#;
        let rows: Vec<Frozen<Row>> = serde_json::from_str(text).unwrap();
        assert!(rows.iter().all(|row| row.parsed().is_none()), "not parsed");
        assert_eq!(serde_json::to_string(&rows).unwrap(), text);
        assert_eq!(
            rows[1].get().unwrap(),
            &Row {
                number: 2,
                seed: Some("ab".into())
            }
        );
    }

    #[test]
    fn a_frozen_record_equals_the_record_it_was_made_from_once_stored() {
        let made = Frozen::new(Row {
            number: 3,
            seed: None,
        });
        let text = serde_json::to_string(&made).unwrap();
        let read: Frozen<Row> = serde_json::from_str(&text).unwrap();
        assert_eq!(read, made);
        assert_eq!(read.get().unwrap(), made.get().unwrap());
        let from_value: Frozen<Row> =
            serde_json::from_value(json!({"number": 3, "seed": null})).unwrap();
        assert_eq!(from_value.get().unwrap().number, 3);
    }

    #[test]
    fn an_updated_record_is_written_with_its_change() {
        let mut row: Frozen<Row> = serde_json::from_str(r#"{"number":4,"seed":null}"#).unwrap();
        row.update(|r| r.seed = Some("cd".into())).unwrap();
        assert_eq!(row.json(), r#"{"number":4,"seed":"cd"}"#);
    }

    #[derive(Serialize)]
    struct Sheet(Vec<Frozen<Row>>);

    impl FrozenRecords for Sheet {
        type Record = Row;
        fn frozen_records(&mut self) -> &mut Vec<Frozen<Row>> {
            &mut self.0
        }

        fn records(&self) -> &[Frozen<Row>] {
            &self.0
        }
    }

    #[test]
    fn records_read_back_from_the_store_are_served_as_stored_and_parsed_on_use() {
        let stored = texts(&[r#"{"number":1,"seed":null}"#, r#"{"number":2,"seed":"ab"}"#]);
        let mut sheet = Sheet(Vec::new());
        attach_records(&mut sheet, &stored).unwrap();
        assert!(
            sheet.0.iter().all(|row| row.parsed().is_none()),
            "not parsed"
        );
        assert_eq!(
            serde_json::to_string(&sheet.0).unwrap(),
            format!("[{},{}]", stored[0].get(), stored[1].get())
        );
        assert_eq!(sheet.0[1].seed.as_deref(), Some("ab"));
        let (_, records) = to_stored("sheet", &mut sheet).unwrap();
        assert_eq!(records, stored);
    }

    #[test]
    fn records_both_in_the_state_and_kept_apart_are_refused() {
        let mut sheet = Sheet(vec![Frozen::new(Row {
            number: 1,
            seed: None,
        })]);
        let stored = texts(&[r#"{"number":1,"seed":null}"#]);
        assert!(attach_records(&mut sheet, &stored).is_err());
    }

    fn texts(records: &[&str]) -> Vec<JsonText> {
        records
            .iter()
            .map(|text| JsonText::from_string((*text).to_owned()).unwrap())
            .collect()
    }

    #[test]
    fn a_record_that_is_not_of_its_type_is_an_error_when_read() {
        let row: Frozen<Row> = serde_json::from_str(r#"{"number":"x"}"#).unwrap();
        assert!(row.get().is_err());
    }
}
