//! Fuzzes the Relay passes: any text that parses goes through every pass,
//! alone and as the demo pipeline. Nothing may panic; a pass on a program
//! that verifies (well-formed and typed) must give one that verifies, and
//! its printed text must read back. Run with libFuzzer's per-input limits
//! (`-timeout`, `-rss_limit_mb`), so that a hang or a runaway allocation is
//! a finding too.
#![no_main]

use ir_passes::relay::passes::registry;
use ir_passes::relay::{parse_module, print_module, verify};
use ir_core::pass::PassContext;
use libfuzzer_sys::fuzz_target;

const PIPELINES: [&str; 8] = [
    "infer-type",
    "fold-constant",
    "dce",
    "dce{inline-once=true}",
    "cse",
    "to-anf",
    "to-gnf",
    "infer-type,fold-constant,cse,dce,to-anf,to-gnf",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(module) = parse_module(text) else { return };
    let valid = verify(&module).is_ok();
    for pipeline in PIPELINES {
        let passes = registry().pipeline(pipeline).expect("registered passes");
        let Ok(out) = PassContext::default().with_opt_level(3).run(&passes, &module) else {
            continue;
        };
        if valid {
            if let Err(e) = verify(&out) {
                panic!("{pipeline} broke a valid program: {e}\n{}", print_module(&out));
            }
        }
        let printed = print_module(&out);
        parse_module(&printed).unwrap_or_else(|e| panic!("{pipeline}: the result does not read back: {e}\n{printed}"));
    }
});
