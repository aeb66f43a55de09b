//! Which database errors mean the database is away, and when a statement
//! is made again on another connection.

/// How often a request's first statement is made again on another
/// connection when the one handed out turns out broken (see
/// [`Store::acquire_with`](super::Store::acquire_with)).
pub const BROKEN_RETRIES: usize = 3;

/// Whether `error` means the database is away or going away (a timed-out
/// wait for a connection, a broken or refused connection, a server shutting
/// down or starting up) rather than a fault of the request or of the code.
pub fn unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // Postgres: class 08 connection exception, 57P01..57P03 shutdown
            // and startup, 53300 too many connections.
            code.starts_with("08") || code.starts_with("57P0") || code == "53300"
        }),
        _ => false,
    }
}

/// Whether to make a first statement again after `error`: the connection
/// was broken and fewer than [`BROKEN_RETRIES`] retries were made (counted
/// in `tries`). The one rule of `Store::acquire_with` and
/// `Store::begin_write`.
pub(super) fn retry_broken(error: &sqlx::Error, tries: &mut usize) -> bool {
    if !retryable(error) || *tries >= BROKEN_RETRIES {
        return false;
    }
    *tries += 1;
    tracing::warn!(%error, "retrying a broken database connection");
    true
}

/// Whether a fresh try may succeed at once: the database is away in a way
/// a new connection may cure, and the wait for one did not already run out.
pub(super) fn retryable(error: &sqlx::Error) -> bool {
    unavailable(error) && !matches!(error, sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_connection_is_retried_a_few_times_and_a_timed_out_wait_never() {
        let broken = sqlx::Error::Io(std::io::ErrorKind::ConnectionReset.into());
        let mut tries = 0;
        for _ in 0..BROKEN_RETRIES {
            assert!(retry_broken(&broken, &mut tries));
        }
        assert!(!retry_broken(&broken, &mut tries), "only a few times");
        assert!(!retry_broken(&sqlx::Error::PoolTimedOut, &mut 0));
        assert!(unavailable(&sqlx::Error::PoolTimedOut));
        assert!(!unavailable(&sqlx::Error::RowNotFound));
    }
}
