//! Integration tests: invalid.
