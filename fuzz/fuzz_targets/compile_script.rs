//! Script compilation under Crown's limits (the shared sandboxed engine): any text
//! compiles or gives an error, never a panic or a stack overflow. Errors with a line
//! must point inside the text.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = crown_engine::script::compile("fuzz.rhai", text) {
        if let Some(line) = e.position().line() {
            assert!(line <= text.lines().count() + 1, "error at line {line} of a {}-line text", text.lines().count());
        }
        let _ = e.to_string();
    }
});
