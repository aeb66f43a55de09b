//! JSON written as `serde_json::to_writer` writes it, byte for byte, but
//! with each struct's field names copied as they are: for the views every
//! request answers with, and the state every move stores.
//!
//! serde_json escapes every string it writes, field names included: it
//! looks up each byte of a name in its table of bytes to escape, and
//! writes the name, its quotes and the colon one by one. A view has about
//! 120 fields, and that was a tenth of a request's instructions
//! (docs/benchmarks.md, "The stack's floor at a move's pace, field names
//! written as they are"). A field name is an identifier of the source or
//! a `rename` of ours, which never needs escaping (debug builds, and so
//! every test, check it). A string with nothing to escape is copied as it
//! is. Every other value, numbers and strings to escape included, is
//! still written by serde_json itself.

use serde::Serialize;
use serde::ser::{self, Impossible};

// How serde_json's `RawValue` (and so `JsonText`) asks to be written as its
// text.
use crate::json_text::RAW_VALUE;

type Error = serde_json::Error;
type Result<T = ()> = std::result::Result<T, Error>;

/// `value`'s JSON, exactly as `serde_json::to_string(value)` writes it.
///
/// # Errors
/// As [`to_writer`].
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut out = Vec::new();
    to_writer(&mut out, value)?;
    // Checked all the same: a few hundred bytes, and no `unsafe` for them.
    String::from_utf8(out).map_err(ser::Error::custom)
}

/// `value`'s JSON added to the end of `out`, exactly as
/// `serde_json::to_writer(out, value)` writes it.
///
/// # Errors
/// When `value` fails to serialise (as serde_json's would), or has a map
/// key of a type other than a string, a character, an integer, a bool or
/// a unit variant.
pub fn to_writer<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result {
    value.serialize(Writer { out })
}

/// Writes `name` (a field or variant name) as a key, with its quotes and
/// colon, after a comma unless `first`.
fn key(out: &mut Vec<u8>, first: bool, name: &str) {
    debug_assert!(
        name.bytes()
            .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b != 0x7f),
        "a name that needs escaping: {name:?}"
    );
    if !first {
        out.push(b',');
    }
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Whether JSON escapes a byte of `text`, as serde_json does: a control
/// character, `"` or `\` (and nothing else: not `/`, not DEL, not any
/// byte of a character beyond ASCII, all 0x80 or more). Eight bytes at a
/// time, where serde_json looks up each byte.
fn needs_escaping(text: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // A byte below `n` (n at most 0x80) sets its high bit here.
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH;
    let is = |word: u64, b: u8| below(word ^ (ONES * u64::from(b)), 1);
    let mut words = text.chunks_exact(8);
    for chunk in &mut words {
        let word = u64::from_ne_bytes(chunk.try_into().expect("eight bytes"));
        if below(word, 0x20) | is(word, b'"') | is(word, b'\\') != 0 {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Writes `text` as a JSON string, a value's or a map key's: copied as it
/// is when it has nothing to escape (ids, card codes, seeds, most names),
/// escaped by serde_json otherwise.
fn string(out: &mut Vec<u8>, text: &str) -> Result {
    if needs_escaping(text.as_bytes()) {
        return ser::Serializer::serialize_str(&mut serde_json(out), text);
    }
    out.reserve(text.len() + 2);
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
    Ok(())
}

/// Opens a variant with fields: `{"variant":` and `bracket`.
fn open_variant(out: &mut Vec<u8>, variant: &str, bracket: u8) {
    out.push(b'{');
    key(out, true, variant);
    out.push(bracket);
}

/// serde_json's own serializer, writing to `out`.
fn serde_json(out: &mut Vec<u8>) -> serde_json::Serializer<&mut Vec<u8>> {
    serde_json::Serializer::new(out)
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

/// Methods that serde_json answers for itself.
macro_rules! by_serde_json {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method(self, $($arg: $ty),*) -> Result {
                ser::Serializer::$method(&mut serde_json(self.out), $($arg),*)
            }
        )*
    };
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Map<'a>;
    type SerializeStruct = Struct<'a>;
    type SerializeStructVariant = Struct<'a>;

    by_serde_json! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_str(self, v: &str) -> Result {
        string(self.out, v)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.out.push(b'{');
        key(self.out, true, variant);
        value.serialize(Writer {
            out: &mut *self.out,
        })?;
        self.out.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a>> {
        self.out.push(b'[');
        Ok(Seq {
            out: self.out,
            first: true,
            in_variant: false,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'a>> {
        open_variant(self.out, variant, b'[');
        Ok(Seq {
            out: self.out,
            first: true,
            in_variant: true,
        })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'a>> {
        self.out.push(b'{');
        Ok(Map {
            out: self.out,
            first: true,
        })
    }

    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Struct<'a>> {
        if name == RAW_VALUE {
            return Ok(Struct {
                out: self.out,
                first: true,
                shape: Shape::Raw,
            });
        }
        self.out.push(b'{');
        Ok(Struct {
            out: self.out,
            first: true,
            shape: Shape::Fields,
        })
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Struct<'a>> {
        open_variant(self.out, variant, b'{');
        Ok(Struct {
            out: self.out,
            first: true,
            shape: Shape::VariantFields,
        })
    }
}

/// A sequence, a tuple, or a tuple variant's fields (then closed twice).
struct Seq<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    in_variant: bool,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Writer {
            out: &mut *self.out,
        })
    }

    fn close(self) -> Result {
        self.out.push(b']');
        if self.in_variant {
            self.out.push(b'}');
        }
        Ok(())
    }
}

/// The four ways serde hands over a sequence's elements, all alike.
macro_rules! elements {
    ($($trait:ident::$method:ident),*) => {
        $(
            impl ser::$trait for Seq<'_> {
                type Ok = ();
                type Error = Error;

                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
                    self.element(value)
                }

                fn end(self) -> Result {
                    self.close()
                }
            }
        )*
    };
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// A map: its keys are written as serde_json writes them.
struct Map<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl ser::SerializeMap for Map<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        key.serialize(MapKey {
            out: &mut *self.out,
        })
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.out.push(b':');
        value.serialize(Writer {
            out: &mut *self.out,
        })
    }

    fn end(self) -> Result {
        self.out.push(b'}');
        Ok(())
    }
}

enum Shape {
    /// A struct's fields.
    Fields,
    /// A struct variant's fields: closed twice.
    VariantFields,
    /// serde_json's `RawValue`: serde_json writes its one field, the text.
    Raw,
}

struct Struct<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    shape: Shape,
}

impl Struct<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result {
        if let Shape::Raw = self.shape {
            // serde_json writes its own raw text.
            let mut json = serde_json(&mut *self.out);
            let mut raw = ser::Serializer::serialize_struct(&mut json, RAW_VALUE, 1)?;
            ser::SerializeStruct::serialize_field(&mut raw, name, value)?;
            return ser::SerializeStruct::end(raw);
        }
        key(self.out, self.first, name);
        self.first = false;
        value.serialize(Writer {
            out: &mut *self.out,
        })
    }

    fn close(self) -> Result {
        match self.shape {
            Shape::Fields => self.out.push(b'}'),
            Shape::VariantFields => self.out.extend_from_slice(b"}}"),
            Shape::Raw => {}
        }
        Ok(())
    }
}

/// The two ways serde hands over a struct's fields, alike.
macro_rules! fields {
    ($($trait:ident),*) => {
        $(
            impl ser::$trait for Struct<'_> {
                type Ok = ();
                type Error = Error;

                fn serialize_field<T: Serialize + ?Sized>(
                    &mut self,
                    name: &'static str,
                    value: &T,
                ) -> Result {
                    self.field(name, value)
                }

                fn end(self) -> Result {
                    self.close()
                }
            }
        )*
    };
}

fields!(SerializeStruct, SerializeStructVariant);

fn unsupported<T>(what: &str) -> Result<T> {
    Err(ser::Error::custom(format!("not written here: {what}")))
}

/// Writes a map key as serde_json does: a string, or a number, bool or
/// character in quotes.
struct MapKey<'a> {
    out: &'a mut Vec<u8>,
}

impl MapKey<'_> {
    /// `write` serde_json's way, inside quotes.
    fn quoted(
        self,
        write: impl FnOnce(&mut serde_json::Serializer<&mut Vec<u8>>) -> Result,
    ) -> Result {
        self.out.push(b'"');
        write(&mut serde_json(&mut *self.out))?;
        self.out.push(b'"');
        Ok(())
    }
}

/// Map key methods serde_json refuses too, or that no key of ours needs.
macro_rules! refused {
    ($($method:ident($($ty:ty),*);)*) => {
        $(
            fn $method(self, $(_: $ty),*) -> Result {
                unsupported(concat!(stringify!($method), " as a map key"))
            }
        )*
    };
}

/// Map key methods that write a value in quotes.
macro_rules! quoted {
    ($($method:ident($ty:ty);)*) => {
        $(
            fn $method(self, v: $ty) -> Result {
                self.quoted(|json| ser::Serializer::$method(json, v))
            }
        )*
    };
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    quoted! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
    }

    fn serialize_str(self, v: &str) -> Result {
        string(self.out, v)
    }

    fn serialize_char(self, v: char) -> Result {
        ser::Serializer::serialize_char(&mut serde_json(self.out), v)
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }

    refused! {
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result {
        unsupported("an option as a map key")
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result {
        unsupported("a newtype variant as a map key")
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        unsupported("a sequence as a map key")
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        unsupported("a tuple as a map key")
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        unsupported("a tuple struct as a map key")
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        unsupported("a tuple variant as a map key")
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        unsupported("a map as a map key")
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        unsupported("a struct as a map key")
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        unsupported("a struct variant as a map key")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::json;

    use super::*;
    use crate::json_text::JsonText;

    fn both<T: Serialize>(value: &T) -> (String, String) {
        let mut ours = b"prefix".to_vec();
        to_writer(&mut ours, value).unwrap();
        let theirs = serde_json::to_vec(value).unwrap();
        (
            String::from_utf8(ours).unwrap(),
            format!("prefix{}", String::from_utf8(theirs).unwrap()),
        )
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Newtype(u8);

    #[derive(Serialize)]
    struct Pair(i32, &'static str);

    #[derive(Serialize)]
    struct Empty {}

    #[derive(Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Variants {
        Plain,
        Wrapped(Vec<u8>),
        Tuple(u8, Option<String>),
        Fields { first: bool, second: Empty },
    }

    #[derive(Serialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Tagged {
        Play { card: &'static str },
        Pass,
    }

    #[derive(Serialize)]
    struct Everything {
        t: bool,
        small: i8,
        negative: i64,
        big: u128,
        wide: i128,
        float: f64,
        not_a_number: f32,
        letter: char,
        text: &'static str,
        escaped: String,
        none: Option<u8>,
        some: Option<Vec<Option<u8>>>,
        unit: (),
        unit_struct: Unit,
        newtype: Newtype,
        pair: Pair,
        tuple: (u8, (), &'static str),
        empty_seq: Vec<u8>,
        empty_struct: Empty,
        empty_map: BTreeMap<String, u8>,
        shapes: Vec<Variants>,
        tagged: Vec<Tagged>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        #[serde(rename = "A")]
        renamed: u8,
        by_text: BTreeMap<&'static str, u8>,
        by_number: BTreeMap<i16, &'static str>,
        by_letter: BTreeMap<char, u8>,
        by_bool: BTreeMap<bool, u8>,
        by_variant: BTreeMap<Team, u8>,
        raw: JsonText,
        value: serde_json::Value,
        id: uuid::Uuid,
        at: chrono::DateTime<chrono::Utc>,
    }

    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum Team {
        A,
        B,
    }

    /// Every shape serde has, written as serde_json writes it.
    #[test]
    fn every_shape_is_written_as_serde_json_writes_it() {
        let everything = Everything {
            t: true,
            small: -8,
            negative: i64::MIN,
            big: u128::MAX,
            wide: i128::MIN,
            float: 0.1 + 0.2,
            not_a_number: f32::NAN,
            letter: '"',
            text: "plain",
            escaped: "quote \" backslash \\ tab \t newline \n bell \u{7} é 🂡".into(),
            none: None,
            some: Some(vec![Some(1), None]),
            unit: (),
            unit_struct: Unit,
            newtype: Newtype(7),
            pair: Pair(-1, "two"),
            tuple: (1, (), "three"),
            empty_seq: Vec::new(),
            empty_struct: Empty {},
            empty_map: BTreeMap::new(),
            shapes: vec![
                Variants::Plain,
                Variants::Wrapped(vec![1, 2]),
                Variants::Tuple(3, None),
                Variants::Tuple(4, Some("x".into())),
                Variants::Fields {
                    first: false,
                    second: Empty {},
                },
            ],
            tagged: vec![Tagged::Play { card: "9C" }, Tagged::Pass],
            skipped: None,
            renamed: 1,
            by_text: BTreeMap::from([("a\"b", 1), ("c", 2)]),
            by_number: BTreeMap::from([(-3, "minus"), (12, "twelve")]),
            by_letter: BTreeMap::from([('x', 1), ('\n', 2)]),
            by_bool: BTreeMap::from([(false, 0), (true, 1)]),
            by_variant: BTreeMap::from([(Team::A, 1), (Team::B, 2)]),
            raw: JsonText::from_string(r#"{"kept":[1, 2],"as":"is"}"#.into()).unwrap(),
            value: json!({"nested": [1, "two", {"three": null}], "empty": {}}),
            id: uuid::Uuid::from_u128(0x1234),
            at: chrono::DateTime::from_timestamp_micros(1_764_000_000_123_456).unwrap(),
        };
        let (ours, theirs) = both(&everything);
        assert_eq!(ours, theirs);
        assert!(ours.contains(r#""kept":[1, 2]"#), "the raw text as it is");
    }

    /// A string is escaped exactly where serde_json escapes it, whatever
    /// byte of an eight-byte word the character falls on.
    #[test]
    fn a_string_is_escaped_exactly_where_serde_json_escapes_it() {
        let specials = [
            '"', '\\', '\n', '\u{0}', '\u{1f}', ' ', '/', '\u{7f}', 'é', '🂡', 'a',
        ];
        for len in 0..20 {
            for at in 0..len {
                for special in specials {
                    let text: String = (0..len)
                        .map(|i| if i == at { special } else { 'x' })
                        .collect();
                    let (ours, theirs) = both(&text);
                    assert_eq!(ours, theirs, "{text:?}");
                    let escaped = ['"', '\\', '\n', '\u{0}', '\u{1f}'].contains(&special);
                    assert_eq!(needs_escaping(text.as_bytes()), escaped, "{text:?}");
                }
            }
        }
    }

    /// A map key serde_json refuses is refused here too, and nothing is
    /// claimed about what was written before it.
    #[test]
    fn a_map_key_that_is_no_string_is_refused_as_serde_json_refuses_it() {
        let by_list = BTreeMap::from([(vec![1u8], 1u8)]);
        assert!(to_writer(&mut Vec::new(), &by_list).is_err());
        assert!(serde_json::to_vec(&by_list).is_err());
    }
}
