//! Fuzzes the Tensor IR text parser: any input either parses or gives a
//! `ParseError` at a position; what parses prints and parses back to the
//! same text, and folding it never panics.
#![no_main]

use ir_passes::tensor_ir::{ConstantFolder, parse_module, parse_stmt, print_module, print_stmt};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse_module(text) {
        Ok(module) => {
            let printed = print_module(&module);
            let again = parse_module(&printed).expect("printed modules parse");
            assert_eq!(print_module(&again), printed);
            for (_, f) in module.functions() {
                let _ = ConstantFolder::new().fold_stmt(&f.body);
            }
        }
        Err(e) => assert!(e.line >= 1 && e.col >= 1),
    }
    if let Ok(s) = parse_stmt(text) {
        let printed = print_stmt(&s);
        let again = parse_stmt(&printed).expect("printed statements parse");
        assert_eq!(print_stmt(&again), printed);
    }
});
