//! `ir-opt --dialect tensor-ir`: the loop-level Tensor IR (a module of
//! `func name(params): type { ... }`), its passes by name, and the same
//! flags as for Relay where they apply.

use std::process::ExitCode;

use ir_passes::tensor_ir::passes::{DEFAULT_PIPELINE, registry};
use ir_passes::tensor_ir::{Module, parse_module, print_module};

use crate::Args;
use crate::text_dialect::{self, TextDialect};

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

/// Printing then parsing again must succeed: every use is in the scope of
/// its definition and every call names a function of the module.
fn verify(m: &Module) -> Result<(), String> {
    parse_module(&print_module(m))
        .map(|_| ())
        .map_err(|e| format!("the result does not read back: {e}"))
}

/// Runs on `input` (the file's text, or `None` for the demo kernel).
pub fn run(args: &Args, input: Option<(String, String)>) -> Result<ExitCode, String> {
    let dialect = TextDialect {
        prints_as: "Tensor IR prints as text",
        registry: registry(),
        default_pipeline: DEFAULT_PIPELINE,
        demo: (DEMO_KERNEL, "demo kernel"),
        comment: "//",
        list_width: 16,
        parse: |text| parse_module(text).map_err(|e| e.to_string()),
        print: print_module,
        verify,
        dot: None,
        check_input: false,
        // A kernel module holds nothing but its kernels.
        same_globals: |_, _| true,
    };
    text_dialect::run(dialect, args, input)
}
