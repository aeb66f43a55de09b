//! Kaarttafel: a card-game server for Klaverjassen (Rotterdam rules) and
//! Potverteren.
//!
//! Dependencies point one way: `http` → `app`, `jobs` → `store`, `ai`,
//! `api`, `auth`, `notify`, `metrics` → `table` → `rules`. `rules` holds the
//! pure rules, `ai` the computer players on them, `table` the table around
//! them, `api` the JSON contract rendered from them, `store` all SQL, `app`
//! the use cases, `jobs` the scheduler and clean-up, `http` all routes.

pub mod ai;
pub mod api;
pub mod app;
pub mod auth;
pub mod clock;
pub mod config;
pub mod http;
pub mod jobs;
pub mod metrics;
pub mod notify;
pub mod rules;
pub mod startup;
pub mod store;
pub mod table;
pub mod telemetry;
