//! Integration tests: props.
