//! Klaverjassen, Rotterdam rules (shared/RULES.md §1).
