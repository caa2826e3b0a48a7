//! Integration tests: native.
