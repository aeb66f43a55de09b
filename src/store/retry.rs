//! Which database errors mean the database is away, and when a statement
//! is made again on another connection.

/// How often a request's first statement is made again on another
/// connection when the one handed out turns out broken (see
/// [`Store::acquire_with`](super::Store::acquire_with)).
pub const BROKEN_RETRIES: usize = 3;

/// SQLSTATE `read_only_sql_transaction`: a write sent to a server that
/// takes none.
pub const READ_ONLY_SQL_TRANSACTION: &str = "25006";

/// Whether `error` is a write refused by a read-only server.
pub fn is_read_only(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db)
        if db.code().as_deref() == Some(READ_ONLY_SQL_TRANSACTION))
}

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
            // and startup, 53300 too many connections, 25006 a write sent
            // to a server that became read-only (a failover under way).
            code.starts_with("08")
                || code.starts_with("57P0")
                || code == "53300"
                || code == READ_ONLY_SQL_TRANSACTION
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

    #[test]
    fn a_write_refused_by_a_read_only_server_means_the_database_is_away() {
        let read_only = sqlx::Error::Database(Box::new(Refused(READ_ONLY_SQL_TRANSACTION)));
        assert!(is_read_only(&read_only));
        assert!(unavailable(&read_only), "answered 503, not 500");
        let other = sqlx::Error::Database(Box::new(Refused("23505")));
        assert!(!is_read_only(&other) && !unavailable(&other));
    }

    /// A database error with only a SQLSTATE.
    #[derive(Debug)]
    struct Refused(&'static str);

    impl std::fmt::Display for Refused {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "refused with {}", self.0)
        }
    }

    impl std::error::Error for Refused {}

    impl sqlx::error::DatabaseError for Refused {
        fn message(&self) -> &str {
            "refused"
        }

        fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
            Some(self.0.into())
        }

        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }

        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }

        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }

        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }
}
