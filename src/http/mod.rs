//! The HTTP layer: routes, extractors, errors, middleware and the OpenAPI
//! document. It turns requests into use-case calls ([`crate::app`]) and
//! their results into responses; the only place that knows HTTP.

pub mod answer;
pub mod bots;
pub mod error;
pub mod evenings;
pub mod events;
pub mod extract;
pub mod fallback;
pub mod friends;
pub mod games;
pub mod health;
pub mod hints;
pub mod limits;
pub mod metrics;
pub mod open_streams;
pub mod openapi;
pub mod page;
pub mod play;
pub mod players;
pub mod problems;
pub mod profiles;
pub mod proxy;
pub mod request;
pub mod routes;
pub mod state;
pub mod stream;
pub mod subscriptions;
pub mod timeout;

pub use openapi::{openapi, openapi_served_at};
