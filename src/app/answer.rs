//! A use case's answer as the caller receives it: a status, headers as
//! plain pairs and a JSON body. It is also what an `Idempotency-Key` keeps,
//! so that a retry gets the first answer again byte for byte.

use uuid::Uuid;

use super::error::Error;
use crate::table::Game;

/// 200: done, or found.
pub const OK: u16 = 200;
/// 201: made.
pub const CREATED: u16 = 201;
/// The header naming the game's version.
pub const ETAG: &str = "etag";
/// The header naming a new table's address.
pub const LOCATION: &str = "location";

/// An answer with a JSON body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The status.
    pub status: u16,
    /// Headers, by lower-case name, in the order they are sent.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Vec<u8>,
    /// Whether this is the kept first answer to an `Idempotency-Key`, sent
    /// again.
    pub replayed: bool,
}

impl Answer {
    /// `game` as `caller` sees it, with its ETag, and `location` (the
    /// table's address) first when given.
    ///
    /// # Errors
    /// [`Error::Internal`] if the view cannot be written.
    pub fn view(
        status: u16,
        game: &Game,
        caller: Uuid,
        location: Option<String>,
    ) -> Result<Answer, Error> {
        let body = crate::api::game::view_json(game, Some(caller))
            .map_err(|e| Error::Internal(e.to_string()))?;
        let mut headers = Vec::with_capacity(2);
        if let Some(location) = location {
            headers.push((LOCATION.to_owned(), location));
        }
        headers.push((ETAG.to_owned(), etag(game.version)));
        Ok(Answer {
            status,
            headers,
            body,
            replayed: false,
        })
    }
}

/// The game's ETag: its version, quoted.
pub fn etag(version: i64) -> String {
    format!("\"{version}\"")
}

/// Whether an `If-Match`/`If-None-Match` value lists the ETag of `version`
/// (or `*`). Weak tags compare equal to strong ones.
pub fn etag_listed(value: &str, version: i64) -> bool {
    let current = etag(version);
    value
        .split(',')
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == "*" || tag == current)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's ETag is its version in quotes, as clients and earlier
    /// releases' answers have it, whatever the number of digits.
    #[test]
    fn a_games_etag_is_its_version_in_quotes() {
        assert_eq!(etag(0), "\"0\"");
        assert_eq!(etag(42), "\"42\"");
        assert_eq!(etag(123_456_789), "\"123456789\"");
        assert_eq!(etag(i64::MAX), "\"9223372036854775807\"");
    }

    #[test]
    fn an_etag_is_listed_weak_or_strong_or_by_a_star() {
        assert!(etag_listed("\"3\"", 3));
        assert!(etag_listed("W/\"3\"", 3));
        assert!(etag_listed("\"1\", \"3\"", 3));
        assert!(etag_listed("*", 3));
        assert!(!etag_listed("\"4\"", 3));
        assert!(!etag_listed("", 3));
    }
}
