//! A JSON text held once and shared: a finished record (a score-sheet row,
//! a settled round) as the store read it, the rules keep it, every view
//! embeds it and the next write passes it on.
//!
//! Each of those steps copied the text until the thirteenth session's profile
//! showed the copies at 3.6 % of a request's instructions, more with their
//! allocations (docs/benchmarks.md, "Records shared, not copied"): a
//! [`JsonText`] is cloned by counting one more holder instead. The records
//! a game's row reads in one column are one text, each record its part of
//! it: one copy and one allocation for them all, not one each
//! (docs/benchmarks.md, "Records read as one text, the token's header read
//! a word at a time").

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// How serde_json's `RawValue` asks a serializer to write its text as it
/// is: a struct of this name whose one field, of the same name, is the text
/// (serde_json's own serializer knows it).
pub(crate) const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// One JSON value as text, without space around it, shared between its
/// holders; written out as it is wherever it is embedded. Several may share
/// one text, each its own part of it: the finished records of a game read
/// in one column are one text, not one allocation each.
#[derive(Clone)]
pub struct JsonText {
    text: Arc<str>,
    /// Where the value is in `text`.
    at: Range<usize>,
}

impl JsonText {
    /// The text of `raw`.
    pub fn new(raw: Box<RawValue>) -> JsonText {
        let text: Box<str> = raw.into();
        let at = 0..text.len();
        JsonText {
            text: text.into(),
            at,
        }
    }

    /// `null`: stands for a finished record that a read of its game left in
    /// the store (`store::games::RECENT_RECORDS`), so that the records keep
    /// their count and order; clone it for each such record. Parsed as a
    /// record it is an error, and only what shows older records (the event
    /// log) reads them all first. (A new text each call: one text shared by
    /// every request would have both workers count its holders on one
    /// cache line.)
    pub fn null() -> JsonText {
        JsonText {
            text: "null".into(),
            at: 0..4,
        }
    }

    /// `text`, checked to be one JSON value; space around it is dropped.
    ///
    /// # Errors
    /// When it is not one JSON value.
    pub fn from_string(text: String) -> Result<JsonText, serde_json::Error> {
        RawValue::from_string(text).map(JsonText::new)
    }

    /// A copy of `text`, not checked; debug builds, and so every test,
    /// check it all the same.
    ///
    /// # Safety
    /// `text` must be one well-formed JSON value with no space around it:
    /// other code, serde_json's included, relies on what a `RawValue` holds.
    pub unsafe fn from_str_unchecked(text: &str) -> JsonText {
        // SAFETY: the caller's promise is the one `part_unchecked` asks.
        unsafe { JsonText::part_unchecked(text.into(), 0..text.len()) }
    }

    /// The part `at` of `text`, not checked, sharing `text` with the other
    /// parts made from it; debug builds, and so every test, check it all the
    /// same.
    ///
    /// # Safety
    /// `text[at]` must be one well-formed JSON value with no space around
    /// it, as for [`JsonText::from_str_unchecked`].
    ///
    /// # Panics
    /// When `at` is not a range of `text` on character boundaries.
    pub unsafe fn part_unchecked(text: Arc<str>, at: Range<usize>) -> JsonText {
        let part = &text[at.clone()];
        debug_assert!(
            serde_json::from_str::<&RawValue>(part).is_ok_and(|value| value.get() == part),
            "a JsonText must be well-formed JSON with no space around it: {part:?}"
        );
        JsonText { text, at }
    }

    /// The text.
    pub fn get(&self) -> &str {
        &self.text[self.at.clone()]
    }
}

impl AsRef<str> for JsonText {
    fn as_ref(&self) -> &str {
        self.get()
    }
}

/// Two texts are equal when they are the same characters.
impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.get() == other.get()
    }
}

impl Eq for JsonText {}

impl fmt::Debug for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

/// Written as serde_json writes a `RawValue`: the text as it is.
impl Serialize for JsonText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(RAW_VALUE, 1)?;
        raw.serialize_field(RAW_VALUE, self.get())?;
        raw.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_text_is_written_out_as_it_is_and_its_clone_shares_it() {
        let text = JsonText::from_string(r#"{"b":1,"a":[2]}"#.to_owned()).unwrap();
        let copy = text.clone();
        assert!(
            std::ptr::eq(text.get(), copy.get()),
            "one text, two holders"
        );
        assert_eq!(
            serde_json::to_string(&[&text, &copy]).unwrap(),
            r#"[{"b":1,"a":[2]},{"b":1,"a":[2]}]"#
        );
    }

    #[test]
    fn parts_of_one_text_are_written_out_each_as_it_is_and_share_it() {
        let text: Arc<str> = r#"{"a":1}|[2,"x"]"#.into();
        // SAFETY: each part is one JSON value with no space around it.
        let (first, second) = unsafe {
            (
                JsonText::part_unchecked(Arc::clone(&text), 0..7),
                JsonText::part_unchecked(Arc::clone(&text), 8..15),
            )
        };
        assert_eq!((first.get(), second.get()), (r#"{"a":1}"#, r#"[2,"x"]"#));
        assert!(std::ptr::eq(first.get(), &text[0..7]), "shared, not copied");
        assert_eq!(
            serde_json::to_string(&[&first, &second]).unwrap(),
            r#"[{"a":1},[2,"x"]]"#
        );
        assert_eq!(first, JsonText::from_string(r#"{"a":1}"#.into()).unwrap());
    }

    /// A part that is not a value alone, or has space around it, stops a
    /// test as a whole text does.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "well-formed JSON")]
    fn in_debug_builds_a_part_that_is_not_one_json_value_stops_the_test() {
        // SAFETY: not kept: the debug check stops the test first.
        let _ = unsafe { JsonText::part_unchecked(r#"[1] [2]"#.into(), 0..4) };
    }

    /// The tests run debug builds, where every record read back from the
    /// store is checked to be JSON after all: a text that is not would
    /// stop them.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "well-formed JSON")]
    fn in_debug_builds_a_stored_record_that_is_not_json_stops_the_test() {
        // SAFETY: not kept: the debug check stops the test first.
        let _ = unsafe { JsonText::from_str_unchecked(r#"{"number":1,"#) };
    }

    #[test]
    fn a_text_that_is_not_one_json_value_is_refused_when_checked_and_space_around_one_dropped() {
        for bad in [r#"{"a":"#, "1 2", ""] {
            assert!(JsonText::from_string(bad.to_owned()).is_err(), "{bad:?}");
        }
        assert_eq!(
            JsonText::from_string(" [1] ".to_owned()).unwrap().get(),
            "[1]"
        );
    }
}
