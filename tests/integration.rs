//! The integration tests: one test binary, one module per area (as ripgrep organises its
//! tests), so the whole tool is linked once rather than once per file. Golden games are
//! the other binary (`golden.rs`), one test per game file.
//!
//! Run one area with a filter: `cargo test -p crown-tools --test integration ttk::`.

mod common;

/// Allocations counted per thread, as in the `crown` binary (the script meter's memory
/// limit reads them).
#[global_allocator]
static GLOBAL: crown_alloc::Counting<std::alloc::System> = crown_alloc::Counting(std::alloc::System);

mod campaign;
mod cli;
mod crownfields;
mod hardening;
mod invalid;
mod kic;
mod kl;
mod native;
mod print;
mod print_shops;
mod print_tiles;
mod profile;
mod props;
mod reference;
mod rounds;
mod runtimes;
mod schema;
mod search;
pub(crate) mod serve;
mod sim;
mod slurm;
mod soak;
mod spreadsheets;
mod table;
mod tidy;
mod tlk;
mod ttk;
mod watch;
