//! `ir-opt --dialect tensor-ir`: the loop-level Tensor IR (a module of
//! `func name(params): type { ... }`), its passes by name, and the same
//! flags as for Relay where they apply.

use std::process::ExitCode;

use ir_core::structural::structural_eq_map_free_vars;
use ir_passes::tensor_ir::passes::{DEFAULT_PIPELINE, registry};
use ir_passes::tensor_ir::{Module, parse_module, print_module};

use crate::{Args, Emit, differs, read, run_passes};

/// The built-in input: a bounds check that the loop range decides, folding
/// work, a small loop to unroll and a branch whose condition decides an
/// inner comparison.
pub const DEMO_KERNEL: &str = "func kernel(A: [s32 * 16], B: [s32 * 4], n: s32): void {
  for i in (0, 16, 1) {
    if ((i < 16)) {
      A[i] = ((A[i] * 1) + (2 + 3))
    }
  }
  for j in (0, 4, 1) {
    B[j] = (((j + 1) - 1) * 2)
  }
  if ((n == 5)) {
    B[0] = ((n != 5) ? 1 : (n + 0))
  }
}
";

fn parse(text: &str, origin: &str) -> Result<Module, String> {
    parse_module(text).map_err(|e| format!("{origin}: {e}"))
}

/// Printing then parsing again must succeed: every use is in the scope of
/// its definition and every call names a function of the module.
fn verify(m: &Module) -> Result<(), String> {
    parse_module(&print_module(m))
        .map(|_| ())
        .map_err(|e| format!("the result does not read back: {e}"))
}

/// Runs on `input` (the file's text, or `None` for the demo kernel).
pub fn run(args: &Args, input: Option<(String, String)>) -> Result<ExitCode, String> {
    let reg = registry();
    if args.list_passes {
        for (name, description) in reg.passes() {
            println!("{name:16} {description}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if matches!(args.emit, Emit::Dot) {
        return Err("--emit dot is for Relay; Tensor IR prints as text".into());
    }
    let demo = input.is_none();
    let (text, origin) =
        input.unwrap_or_else(|| (DEMO_KERNEL.to_owned(), "<demo kernel>".to_owned()));
    let input = parse(&text, &origin)?;
    let (output, pipeline_text) = run_passes(
        args,
        &reg,
        demo.then_some(DEFAULT_PIPELINE),
        &input,
        print_module,
        verify,
    )?;
    if demo {
        println!("// The demo kernel:");
        println!("{}", print_module(&input));
        println!();
        println!("// After {}:", pipeline_text.as_deref().unwrap_or(""));
    }
    let got = print_module(&output);
    println!("{got}");

    if let Some(expect_path) = &args.expect {
        let expected = parse(&read(expect_path)?, expect_path)?;
        let equal = output.len() == expected.len()
            && output.functions().all(|(name, f)| {
                // Parameters are matched by position (they are free
                // variables of a function's body), whatever --map-free-vars says.
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
