//! The Tensor IR passes by name, for pipelines such as
//! `fold,simplify,unroll{max-step=16}` (what `ir-opt` runs).

use ir_core::Transformed;
use ir_core::pass::{FunctionPass, Module, Pass, PassContext, PassOptions, PassRegistry};

use super::{ConstantFolder, MarkUnroll, Simplify, Unroll, UnrollConfig};
use crate::tensor_ir::stmt::Func;

/// The pipeline `ir-opt` runs on its Tensor IR demo.
pub const DEFAULT_PIPELINE: &str = "fold,simplify,unroll{max-extent=4},fold";

/// A pass that rewrites each function's body with `f`.
fn on_body(
    name: &'static str,
    opt_level: u32,
    f: impl Fn(&Func) -> Func + Send + Sync + 'static,
) -> Box<dyn Pass<Func>> {
    Box::new(FunctionPass::new(
        name,
        opt_level,
        move |func: &Func, _: &Module<Func>, _: &PassContext<Func>| {
            let out = f(func);
            Ok(if out.body.same_as(&func.body) {
                Transformed::Keep
            } else {
                Transformed::Replace(out)
            })
        },
    ))
}

/// The registry of Tensor IR passes: `fold`, `simplify`, `unroll` (options
/// `max-step`, `max-depth`, `max-extent`, `explicit`, TVM's defaults) and
/// `mark-unroll` (option `max-extent`).
///
/// ```
/// use ir_core::pass::PassContext;
/// use ir_passes::tensor_ir::{parse_module, print_module, passes::registry};
///
/// let m = parse_module("func f(A: [s32 * 4]): void {\n  for i in (0, 2, 1) {\n    A[i] = (i * 1)\n  }\n}").unwrap();
/// let passes = registry().pipeline("fold,unroll{max-extent=2}").unwrap();
/// let out = PassContext::default().run(&passes, &m).unwrap();
/// assert_eq!(print_module(&out), "func f(A: [s32 * 4]): void {\n  A[0] = 0\n  A[1] = 1\n}");
/// ```
pub fn registry() -> PassRegistry<Func> {
    let mut r = PassRegistry::new();
    r.register(
        "fold",
        "constant folding: evaluate, reassociate, apply identities, decide ifs and one-trip loops",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(on_body("fold", 1, |f| {
                f.map_body(|b| ConstantFolder::new().fold_stmt(b))
            }))
        },
    );
    r.register(
        "simplify",
        "decide comparisons from the facts of enclosing ifs and loops; drop empty blocks and loops",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(on_body("simplify", 1, |f| Simplify::default().run_func(f)))
        },
    );
    r.register(
        "unroll",
        "unroll loops (TVM's UnrollLoop): max-step, max-depth, max-extent, explicit",
        |o: &PassOptions| {
            let d = UnrollConfig::default();
            let config = UnrollConfig {
                max_step: o.get_u64("max-step", d.max_step)?,
                max_depth: u32::try_from(o.get_u64("max-depth", d.max_depth.into())?)
                    .map_err(|_| "max-depth is too large".to_owned())?,
                max_extent: o.get_u64("max-extent", d.max_extent)?,
                explicit: o.get_bool("explicit", d.explicit)?,
            };
            o.expect_only(&["max-step", "max-depth", "max-extent", "explicit"])?;
            Ok(on_body("unroll", 2, move |f| {
                Unroll::new(config).run_func(f)
            }))
        },
    );
    r.register(
        "mark-unroll",
        "set the unroll attribute on loops of at most max-extent iterations (default 4)",
        |o: &PassOptions| {
            let max_extent = o.get_u64("max-extent", 4)?;
            o.expect_only(&["max-extent"])?;
            Ok(on_body("mark-unroll", 2, move |f| {
                f.map_body(|b| MarkUnroll { max_extent }.run(b))
            }))
        },
    );
    r
}
