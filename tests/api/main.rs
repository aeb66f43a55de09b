//! API tests: the real app on port 0, a fresh database per test, played the
//! way a client would. Every test runs on SQLite and on Postgres.

mod support;

mod auth;
mod available;
mod bots;
mod concurrency;
mod evenings;
mod failover;
mod fairness;
mod first_hour;
mod first_start;
mod friends;
mod hints;
mod house_rules;
mod input;
mod klaverjassen;
mod layout;
mod limits;
mod live;
mod notifications;
mod outage;
mod play_page;
mod potverteren;
mod readme;
mod scheduling;
mod storage;
