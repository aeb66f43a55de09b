//! The jobs every instance runs beside the HTTP server: the scheduler,
//! which makes the moves no person makes (computer players' turns, expired
//! clocks, tables that waited too long), the delivery of notifications
//! from the outbox, and the storage clean-up. They
//! use the application's use cases, never HTTP.

pub mod cleanup;
pub mod evenings;
pub mod outbox;
pub mod scheduler;
