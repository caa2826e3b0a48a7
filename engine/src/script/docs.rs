//! The script API reference, generated from the registered functions.
