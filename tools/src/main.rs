//! The `crown` binary: thin glue over `crown_tools`.

fn main() {
    std::process::exit(crown_tools::run(std::env::args_os()));
}
