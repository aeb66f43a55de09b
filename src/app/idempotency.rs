//! `Idempotency-Key`: a change sent again with the same key gets its first
//! answer again instead of being made twice; the same key with another
//! request is refused. The answer is kept in the change's own transaction,
//! so it exists exactly when the change does.

use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::AnyConnection;
use uuid::Uuid;

use super::answer::Answer;
use super::error::Error;
use crate::store::idempotency::{self, Recorded, StoredResponse};
use crate::store::{Backend, Tx};

/// The longest `Idempotency-Key` accepted.
pub const KEY_MAX: usize = 255;

/// A request's `Idempotency-Key`, checked, with the hash that ties it to
/// that one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keyed {
    key: String,
    hash: String,
}

impl Keyed {
    /// The key `text` (`None`: a header value that is not text) of the
    /// request `method path` with `body`. The path is the one the router
    /// reads (percent escapes of plain characters decoded), so a retry
    /// spelt differently is still the same request.
    ///
    /// # Errors
    /// [`Error::Invalid`] unless the key is 1 to [`KEY_MAX`] visible ASCII
    /// characters.
    pub fn new(
        text: Option<&str>,
        method: &str,
        path: &str,
        body: &impl Serialize,
    ) -> Result<Keyed, Error> {
        let key = text.map(str::trim).filter(|k| {
            !k.is_empty() && k.len() <= KEY_MAX && k.bytes().all(|b| b.is_ascii_graphic())
        });
        let Some(key) = key else {
            return Err(Error::invalid(format!(
                "Idempotency-Key: 1 to {KEY_MAX} visible ASCII characters"
            )));
        };
        let mut hasher = Sha256::new();
        hasher.update(method);
        hasher.update(b" ");
        hasher.update(path);
        hasher.update(b"\n");
        hasher.update(serde_json::to_vec(body).unwrap_or_default());
        Ok(Keyed {
            key: key.to_owned(),
            hash: crate::rules::fairness::to_hex(&hasher.finalize()),
        })
    }

    /// The key as the caller sent it, trimmed.
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// The first answer for `caller`'s key, if the key was used before:
/// replayed when the request is the same, refused when it is not.
///
/// # Errors
/// [`Error::IdempotencyMismatch`] for the key of another request.
pub async fn replay(
    conn: &mut AnyConnection,
    caller: Uuid,
    keyed: Option<&Keyed>,
    now: i64,
) -> Result<Option<Answer>, Error> {
    let Some(keyed) = keyed else { return Ok(None) };
    let Some(stored) = idempotency::find(conn, caller, &keyed.key, now).await? else {
        return Ok(None);
    };
    if stored.request_hash != keyed.hash {
        return Err(Error::IdempotencyMismatch);
    }
    Ok(Some(Answer {
        status: stored.status,
        headers: serde_json::from_str(&stored.headers).unwrap_or_default(),
        body: stored.body.into_bytes(),
        replayed: true,
    }))
}

/// Holds `caller`'s key until `tx` ends, for a request that locks no row
/// first (a new table): a retry racing its original waits for it, then
/// replays its answer.
pub async fn lock(
    tx: &mut Tx,
    backend: Backend,
    caller: Uuid,
    keyed: Option<&Keyed>,
) -> Result<(), Error> {
    if let Some(keyed) = keyed {
        idempotency::lock(tx, backend, caller, &keyed.key).await?;
    }
    Ok(())
}

/// Keeps `answer` for `caller`'s key (if any) in `tx`, commits `tx`, and
/// gives the answer back.
///
/// # Errors
/// [`Error::IdempotencyMismatch`] when another request took the key while
/// this one ran; the database's errors.
pub async fn commit_answer(
    mut tx: Tx,
    caller: Uuid,
    keyed: Option<&Keyed>,
    answer: Answer,
    now: i64,
) -> Result<Answer, Error> {
    if let Some(keyed) = keyed {
        let body = std::str::from_utf8(&answer.body).map_err(|e| Error::Internal(e.to_string()))?;
        let stored = StoredResponse {
            request_hash: keyed.hash.clone(),
            status: answer.status,
            headers: serde_json::to_string(&answer.headers).unwrap_or_default(),
            body: body.to_owned(),
        };
        match idempotency::insert(&mut tx, caller, &keyed.key, &stored, now).await? {
            Recorded::Yes => {}
            // Another request took the key while this one ran: a retry
            // waits for its original under the lock of the row both
            // change, so this is another request with the same key.
            Recorded::Taken => return Err(Error::IdempotencyMismatch),
        }
    }
    tx.commit().await?;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_one_to_255_visible_ascii_characters_trimmed() {
        let keyed = |text| Keyed::new(text, "POST", "/v1/games", &());
        assert_eq!(keyed(Some(" abc ")).unwrap().key(), "abc");
        let longest = "k".repeat(KEY_MAX);
        assert!(keyed(Some(&longest)).is_ok());
        for bad in [Some(""), Some("   "), Some("a b"), Some("\u{e9}")] {
            assert!(matches!(keyed(bad), Err(Error::Invalid(_))), "{bad:?}");
        }
        let too_long = "k".repeat(KEY_MAX + 1);
        assert!(keyed(Some(&too_long)).is_err());
        assert!(keyed(None).is_err(), "a header that is not text");
    }

    #[test]
    fn the_hash_ties_a_key_to_its_method_path_and_body() {
        let hash = |method, path, body: &serde_json::Value| {
            Keyed::new(Some("k"), method, path, body).unwrap().hash
        };
        let body = serde_json::json!({"seat": 1});
        let first = hash("POST", "/v1/games/1/seats", &body);
        assert_eq!(first, hash("POST", "/v1/games/1/seats", &body));
        assert_ne!(first, hash("DELETE", "/v1/games/1/seats", &body));
        assert_ne!(first, hash("POST", "/v1/games/2/seats", &body));
        assert_ne!(
            first,
            hash("POST", "/v1/games/1/seats", &serde_json::json!({"seat": 2}))
        );
    }
}
