//! Integration tests: watch.
