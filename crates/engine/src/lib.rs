//! Placeholder: this crate is built by its own issue.
