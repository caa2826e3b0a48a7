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
            // Rhai counts a lone carriage return as a line break too (the first find of
            // this target: a script with CR line ends), so count both.
            let breaks = text.bytes().filter(|&b| b == b'\n' || b == b'\r').count();
            assert!(line <= breaks + 1, "error at line {line} of a text with {breaks} line breaks");
        }
        let _ = e.to_string();
    }
});
