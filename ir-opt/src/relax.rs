//! `ir-opt --dialect relax`: TVMScript (`@I.ir_module class Module:` with
//! `@R.function`s), the Relax passes by name, and the same flags as for
//! Relay where they apply.

use std::process::ExitCode;

use ir_core::structural::structural_eq_map_free_vars;
use ir_passes::relax::passes::{DEFAULT_PIPELINE, registry};
use ir_passes::relax::{RelaxModule, parse_module, print_module, well_formed};

use crate::{Args, Emit, differs, read, run_passes};

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

fn parse(text: &str, origin: &str) -> Result<RelaxModule, String> {
    parse_module(text).map_err(|e| format!("{origin}: {e}"))
}

/// Runs on `input` (the file's text, or `None` for the demo module).
pub fn run(args: &Args, input: Option<(String, String)>) -> Result<ExitCode, String> {
    let reg = registry();
    if args.list_passes {
        for (name, description) in reg.passes() {
            println!("{name:24} {description}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if matches!(args.emit, Emit::Dot) {
        return Err("--emit dot is for Relay; Relax prints as TVMScript".into());
    }
    let demo = input.is_none();
    let (text, origin) =
        input.unwrap_or_else(|| (DEMO_MODULE.to_owned(), "<demo module>".to_owned()));
    let input = parse(&text, &origin)?;
    well_formed(&input).map_err(|e| format!("{origin}: the input is not well-formed: {e}"))?;
    let (output, pipeline_text) = run_passes(
        args,
        &reg,
        demo.then_some(DEFAULT_PIPELINE),
        &input,
        print_module,
        well_formed,
    )?;
    if demo {
        println!("# The demo module:");
        println!("{}", print_module(&input));
        println!();
        println!("# After {}:", pipeline_text.as_deref().unwrap_or(""));
    }
    let got = print_module(&output);
    println!("{got}");

    if let Some(expect_path) = &args.expect {
        let expected = parse(&read(expect_path)?, expect_path)?;
        // Symbolic shape variables are free in a function's signature:
        // they match by first occurrence, as TVM's assert_structural_equal does.
        let equal = output.len() == expected.len()
            && output.functions().all(|(name, f)| {
                expected
                    .get(name)
                    .is_some_and(|g| structural_eq_map_free_vars(f, g))
            });
        if !equal {
            return Ok(differs(expect_path, &print_module(&expected), &got));
        }
    }
    Ok(ExitCode::SUCCESS)
}
