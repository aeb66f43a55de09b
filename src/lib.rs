//! Kaarttafel: a card-game server for Klaverjassen (Rotterdam rules) and
//! Potverteren.
//!
//! Dependencies point one way: `http` → `auth`, `store`, `api`, `table` →
//! `rules`. `rules` holds the pure rules, `table` the table around them,
//! `api` the JSON contract rendered from them, `store` all SQL, `http` all
//! routes.

pub mod ai;
pub mod api;
pub mod auth;
pub mod clock;
pub mod config;
pub mod http;
pub mod notify;
pub mod rules;
pub mod startup;
pub mod store;
pub mod table;
pub mod telemetry;
