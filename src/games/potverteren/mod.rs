//! Potverteren (shared/RULES.md §2).
