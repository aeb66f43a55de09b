//! The public JSON contract: the views, options and moves the service
//! answers with, as types of the API's own. Each carries its serde form and
//! its OpenAPI schema (utoipa's `ToSchema`: its `///` docs and examples are
//! the document's), and is built `From` the table's and the rules' values,
//! which carry no schema. Imports `table` and `rules` only.
//!
//! Where the JSON is written by a rules or table type itself (a move, the
//! options, which the table also reads and stores), the type here only
//! describes it, and tests/openapi.rs holds the two to the same fields.

pub mod cards;
pub mod evenings;
pub mod game;
pub mod klaverjassen;
pub mod moves;
pub mod options;
pub mod potverteren;
