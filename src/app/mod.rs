//! The application's use cases: apply a change to a game, make a table,
//! take and leave seats, quick match, rematch, invites, hints, sign-up and
//! sign-in. Written against the store and the domain, with no HTTP in
//! them: each takes plain values and gives an [`answer::Answer`], a value
//! or an [`error::Error`], which the HTTP layer turns into responses.

pub mod answer;
pub mod blocking;
pub mod change;
pub mod commit;
pub mod context;
pub mod error;
pub mod evenings;
pub mod event_log;
pub mod friends;
pub mod hints;
pub mod idempotency;
pub mod invites;
pub mod matchmaking;
pub mod new_table;
pub mod notifications;
pub mod play;
pub mod players;
pub mod read;
pub mod refusal;
pub mod rematch;
pub mod results;
pub mod seats;
pub mod sign_in;
pub mod subscriptions;
pub mod tables;
