//! Malformed TVMScript gets `line:col` and what was expected; no input
//! panics or overflows the stack.

use std::fs;

use ir_passes::relax::parse_module;
use pretty_assertions::assert_eq;

fn error(text: &str) -> String {
    parse_module(text).unwrap_err().to_string()
}

const HEAD: &str = "@I.ir_module\nclass Module:\n    @R.function\n";

#[test]
fn errors_name_the_place_and_what_was_expected() {
    assert_eq!(
        error(&format!(
            "{HEAD}    def main(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n        y = R.add(x, z)\n        return y"
        )),
        "5:22: undefined variable `z`"
    );
    assert_eq!(
        error(&format!(
            "{HEAD}    def main(x: R.Tensor((2,), \"float32\")):\n        y = R.frobnicate(x)\n        return y"
        )),
        "5:13: unknown operator `R.frobnicate`"
    );
    assert_eq!(
        error(&format!(
            "{HEAD}    def main(x: R.Tensor((2,), \"float32\")):\n        y = R.add(x, x\n        return y"
        )),
        "7:1: a bracket is never closed"
    );
    assert_eq!(
        error(&format!(
            "{HEAD}    def main(x: R.Tensor((2,), \"float32\")):\n        y = R.add(x, x)\n"
        )),
        "6:1: expected `return` at the end of the function"
    );
    assert_eq!(
        error(&format!(
            "{HEAD}    def main(x: R.Tensor((2,), \"float32\"), y: R.Tensor((3,), \"float32\")):\n        z = R.add(x, y)\n        return z"
        )),
        "5:9: R.add: shapes do not broadcast: 2 and 3"
    );
    assert_eq!(
        error(&format!(
            "{HEAD}    def main(x: R.Tensor((2,), \"float32\")):\n        with R.dataflow():\n            y = R.exp(x)\n            R.output(y)\n        return y\n      z = 1"
        )),
        "9:7: this line's indentation matches no enclosing block"
    );
    assert_eq!(
        error(&format!(
            "{HEAD}    def main(x: R.Tensr((2,), \"float32\")):\n        return x"
        )),
        "4:24: unknown annotation `R.Tensr`"
    );
    assert_eq!(
        error("def main():\n    return 1"),
        "1:1: expected `@I.ir_module` or `@R.function`, found `def`"
    );
}

/// Every prefix of every corpus program parses or fails cleanly.
#[test]
fn truncated_programs_fail_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relax/tvm");
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files.iter().take(40) {
        let text = fs::read_to_string(path).unwrap();
        let cuts: Vec<usize> = (0..text.len())
            .step_by(5)
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for cut in cuts {
            let _ = parse_module(&text[..cut]);
            // A stray character spliced in, too.
            let spliced = format!("{}@{}", &text[..cut], &text[cut..]);
            let _ = parse_module(&spliced);
        }
    }
}

/// Deeply nested input is parsed or refused without overflowing the stack.
#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 100_000;
    let tuple = format!("{}x{}", "(".repeat(depth), ",)".repeat(depth));
    let text = format!(
        "{HEAD}    def main(x: R.Tensor((2,), \"float32\")):\n        y = {tuple}\n        return y"
    );
    let module = parse_module(&text).unwrap();
    assert_eq!(module.len(), 1);
    let shape = format!("{}n{}", "(".repeat(depth), ")".repeat(depth));
    let text =
        format!("{HEAD}    def main(x: R.Tensor(({shape},), \"float32\")):\n        return x");
    assert!(parse_module(&text).is_ok());
}

#[test]
fn a_module_level_external_function_is_a_name_bound_to_a_symbol() {
    let module = "@I.ir_module\nclass Module:\n";
    assert_eq!(
        error(&format!("{module}    f = R.ExternFunc(1)\n")),
        "3:22: expected the external function's symbol, a string, found `1`"
    );
    assert_eq!(
        error(&format!("{module}    f = R.add(1)\n")),
        "3:9: expected `R.ExternFunc(\"symbol\")`, found `R`"
    );
    assert_eq!(
        error(&format!(
            "{module}    f = R.ExternFunc(\"f\")\n    f = R.ExternFunc(\"g\")\n"
        )),
        "4:5: `f` is defined twice in the module"
    );
    assert_eq!(
        error(&format!(
            "{module}    f = R.ExternFunc(\"f\")\n    @R.function\n    def f(x: R.Tensor):\n        return x\n"
        )),
        "4:5: `f` is defined twice in the module"
    );
    // Called before it is declared: its name is found ahead, as a function's.
    let text = format!(
        "{module}    @R.function\n    def main(x: R.Tensor) -> R.Tensor:\n        cls = Module\n        y: R.Tensor = cls.g(x)\n        return y\n\n    g = R.ExternFunc(\"g\")\n"
    );
    parse_module(&text).unwrap();
}
