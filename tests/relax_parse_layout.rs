//! How the TVMScript parser reads a module's layout: the parser lexes as
//! it goes and looks far ahead by skimming lines (a dataflow block's
//! `R.output`, the signatures of functions defined further down), and
//! these cases pin what the skim must agree on with the lexer.

use ir_passes::relax::{parse_module, print_module};
use pretty_assertions::assert_eq;

fn round_trip(text: &str) -> String {
    print_module(&parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}")))
}

#[test]
fn a_function_calls_one_defined_below_it() {
    let text = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        y: R.Tensor((2,), dtype="float32") = cls.helper(x)
        return y

    @R.function
    def helper(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y: R.Tensor((2,), dtype="float32") = R.exp(x)
        return y"#;
    let printed = round_trip(text);
    assert!(
        printed.contains(r#"y: R.Tensor((2,), dtype="float32") = cls.helper(x)"#),
        "{printed}"
    );
    assert_eq!(round_trip(&printed), printed);
}

#[test]
fn a_call_of_a_missing_function_names_it() {
    let text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        y = Module.nowhere(x)\n        return y\n\n    @R.function\n    def other(x: R.Tensor((2,), \"float32\")):\n        return x\n";
    assert_eq!(
        parse_module(text).unwrap_err().to_string(),
        "5:20: the module has no function `nowhere`"
    );
}

#[test]
fn a_signature_further_down_that_does_not_parse_is_reported_where_it_is() {
    let text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        y = Module.g(x)\n        return y\n\n    @R.function\n    def g(x: R.Tensr((2,), \"float32\")):\n        return x\n";
    assert_eq!(
        parse_module(text).unwrap_err().to_string(),
        "9:21: unknown annotation `R.Tensr`"
    );
}

/// Lines continued inside brackets, less indented than the block, and
/// `R.output` spread over lines: the block's end and its outputs are found
/// as the lexer sees them.
#[test]
fn continued_lines_neither_end_a_block_nor_hide_its_outputs() {
    let text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        with R.dataflow():\n            a = R.add(x,\n  x)  # a comment ( with a bracket\n            b = R.multiply(a, \"(\")\n            R.output(\n    a,\n  b)\n        return (a, b)\n";
    let err = parse_module(text).unwrap_err().to_string();
    // `"("` is not a tensor: the block was read through to that binding.
    assert!(err.starts_with("8:"), "{err}");
    let text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        with R.dataflow():\n            a = R.add(x,\n  x)  # a comment ( with a bracket\n            b = R.multiply(a, a)\n            R.output(\n    a,\n  b)\n        return (a, b)\n";
    let printed = round_trip(text);
    // Both are outputs: plain variables, usable after the block.
    assert!(printed.contains("R.output(a, b)"), "{printed}");
    assert!(printed.contains("return (a, b)"), "{printed}");
}

#[test]
fn a_lone_function_may_call_itself() {
    let text = "@R.function\ndef main(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n    y: R.Tensor((2,), \"float32\") = main(x)\n    return y\n";
    let printed = round_trip(text);
    assert!(printed.contains("= cls.main(x)"), "{printed}");
    assert_eq!(round_trip(&printed), printed);
}

/// Columns count characters, also after a string holding a wider one.
#[test]
fn columns_count_characters() {
    let text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        y = R.add(\"é\", x) $\n        return y\n";
    assert_eq!(
        parse_module(text).unwrap_err().to_string(),
        "5:27: unexpected character `$`"
    );
}
