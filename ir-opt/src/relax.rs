//! `ir-opt --dialect relax`: TVMScript (`@I.ir_module class Module:` with
//! `@R.function`s), the Relax passes by name, and the same flags as for
//! Relay where they apply.

use std::process::ExitCode;

use ir_passes::relax::passes::{DEFAULT_PIPELINE, registry};
use ir_passes::relax::{module_to_dot, parse_module, print_module, same_externs, well_formed};

use crate::Args;
use crate::text_dialect::{self, TextDialect};

/// The built-in input: a dataflow block with a dead binding and a private
/// function nothing calls.
pub const DEMO_MODULE: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def unused(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w, out_dtype=None)
            dead: R.Tensor((2, 3), dtype="float32") = R.exp(x)
            gv: R.Tensor((2, 4), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv"#;

/// Whether `text` is TVMScript.
pub fn is_tvmscript(text: &str) -> bool {
    text.contains("@I.ir_module") || text.contains("@R.function")
}

/// Runs on `input` (the file's text, or `None` for the demo module).
pub fn run(args: &Args, input: Option<(String, String)>) -> Result<ExitCode, String> {
    let dialect = TextDialect {
        prints_as: "Relax prints as TVMScript",
        registry: registry(),
        default_pipeline: DEFAULT_PIPELINE,
        demo: (DEMO_MODULE, "demo module"),
        comment: "#",
        list_width: 24,
        parse: |text| parse_module(text).map_err(|e| e.to_string()),
        print: print_module,
        verify: well_formed,
        check_input: true,
        dot: Some(module_to_dot),
        same_globals: same_externs,
    };
    text_dialect::run(dialect, args, input)
}
