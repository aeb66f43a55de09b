//! The jobs every instance runs beside the HTTP server: the scheduler,
//! which makes the moves no person makes (computer players' turns, expired
//! clocks, tables that waited too long), and the storage clean-up. They
//! use the application's use cases, never HTTP.

pub mod cleanup;
pub mod evenings;
pub mod scheduler;
