//! Fuzzes the Relay text parser: any input either parses or gives a
//! `ParseError`; what parses prints and parses back to an equal program.
#![no_main]

use ir_passes::relay::{parse_expr, parse_module, print_expr, print_module};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(module) = parse_module(text) {
        let printed = print_module(&module);
        let again = parse_module(&printed).expect("printed modules parse");
        assert_eq!(print_module(&again), printed);
    }
    if let Ok(e) = parse_expr(text) {
        let printed = print_expr(&e);
        let again = parse_expr(&printed).expect("printed expressions parse");
        assert_eq!(print_expr(&again), printed);
    }
});
