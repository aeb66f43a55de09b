//! The error answers many operations share, defined once for the OpenAPI
//! document: a handler lists the ones it gives in its `responses(...)`,
//! and the document's builder adds the ones every route can give.

use utoipa::IntoResponses;

use super::error::Problem;

/// A response of `status` with a problem body, named `$name` and described
/// as `description` in the document.
macro_rules! problem {
    ($(#[$doc:meta])* $name:ident, $status:literal, $description:literal) => {
        $(#[$doc])*
        #[derive(IntoResponses)]
        #[response(
            status = $status,
            description = $description,
            content_type = "application/problem+json"
        )]
        pub struct $name(pub Problem);
    };
}

problem! {
    /// 401 to a request without a usable bearer token.
    Unauthenticated, 401, "Missing or invalid token"
}

problem! {
    /// 404 for a game id that names no game.
    NoSuchGame, 404, "No such game"
}

problem! {
    /// 404 for an event id that names no club evening.
    NoSuchEvent, 404, "`not_found`"
}

problem! {
    /// 403 to a caller who is not the club evening's organizer.
    NotOrganizer, 403, "`forbidden`: not the organizer"
}

problem! {
    /// 409: the club evening has started, and its entries are fixed.
    EventStarted, 409, "`event_started`"
}

problem! {
    /// 422 for a page's `cursor` or `limit` that is none.
    BadPage, 422, "Bad cursor or limit"
}

problem! {
    /// 422 for a long poll's `wait_for_version` or `timeout_s` out of range.
    BadLongPoll, 422, "Bad wait_for_version or timeout_s"
}

problem! {
    /// 404 for an invite code that names no live table.
    NoSuchInvite, 404, "`not_found`: no live table with this code"
}

problem! {
    /// 429 to a client that sent too many wrong invite codes.
    TooManyWrongCodes, 429, "`rate_limited`: too many wrong codes"
}

problem! {
    /// 412 for an `If-Match` that names another version than the game's.
    IfMatchFailed, 412, "If-Match does not match"
}

problem! {
    /// 422 for an `Idempotency-Key` that is no key, or one first sent with
    /// another request.
    KeyRefused, 422, "An invalid `Idempotency-Key`, or one first used with another request"
}

problem! {
    /// 429: a rate limit refused the request.
    RateLimited, 429, "`rate_limited`: too many requests; see `Retry-After` and `RateLimit`"
}

problem! {
    /// 503: the database is away.
    DatabaseUnavailable, 503, "`database_unavailable`: retry after `Retry-After` seconds"
}

/// What a request with a body can be refused for before its handler runs.
#[derive(IntoResponses)]
pub enum BodyRefused {
    /// 400.
    #[response(
        status = 400,
        description = "`malformed_json`, or a body that is not JSON",
        content_type = "application/problem+json"
    )]
    Malformed(Problem),
    /// 408.
    #[response(
        status = 408,
        description = "`request_timeout`: the body did not arrive in time",
        content_type = "application/problem+json"
    )]
    TooSlow(Problem),
    /// 413.
    #[response(
        status = 413,
        description = "`payload_too_large`: the body is over 16 KiB",
        content_type = "application/problem+json"
    )]
    TooLarge(Problem),
    /// 415.
    #[response(
        status = 415,
        description = "`unsupported_media_type`: a body not sent as `Content-Type: application/json`",
        content_type = "application/problem+json"
    )]
    NotJson(Problem),
}
