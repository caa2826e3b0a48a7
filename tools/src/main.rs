//! The `crown` binary: thin glue over `crown_tools`.

/// mimalloc: allocation is a tenth of a scripted game's instructions (see docs/performance.md).
/// Counted per thread: the script meter's memory limit reads what a script's call allocated.
#[global_allocator]
static GLOBAL: crown_alloc::Counting<mimalloc::MiMalloc> = crown_alloc::Counting(mimalloc::MiMalloc);

fn main() {
    // A closed pipe (`crown test | head`) ends the program quietly instead of panicking.
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        // A panic inside a game is caught and reported as that game's failure.
        if crown_engine::script::api::panic_is_caught() {
            if let Some(l) = info.location() {
                crown_engine::script::api::note_caught_panic(l.to_string());
            }
            return;
        }
        default(info);
    }));
    std::process::exit(crown_tools::run(std::env::args_os()));
}
