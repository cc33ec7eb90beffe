//! Fuzzes the Relax (TVMScript) parser: any input either parses or gives a
//! `ParseError` (never a panic or a hang); what parses prints, and the
//! printed text parses back and prints the same (unless it refers to
//! constants that print as `metadata[...]`, as TVM prints them: such text
//! reads back in TVM only with the metadata beside it, and here not at all).
#![no_main]

use ir_passes::relax::{parse_module, print_module};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(module) = parse_module(text) {
        let printed = print_module(&module);
        if printed.contains("metadata[") {
            return;
        }
        let again = parse_module(&printed).expect("printed modules parse");
        assert_eq!(print_module(&again), printed);
    }
});
