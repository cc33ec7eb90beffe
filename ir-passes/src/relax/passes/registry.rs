//! The Relax passes by name, for pipelines such as `normalize,dce`
//! (what `ir-opt` runs on TVMScript).

use ir_core::Transformed;
use ir_core::pass::{
    FunctionPass, ModulePass, Pass, PassContext, PassError, PassOptions, PassRegistry, Sequential,
};

use super::canonicalize::canonicalize_bindings;
use super::convert_to_dataflow::convert_to_dataflow;
use super::cse::eliminate_common_subexpr;
use super::dce::{dead_code_elimination, remove_unused_bindings};
use super::lambda_lift::lambda_lift;
use super::normalize::normalize_module_function;
use super::to_non_dataflow::to_non_dataflow;
use crate::relax::expr::{Expr, Function};
use crate::relax::{RelaxModule, well_formed};
use ir_core::Node;

/// The pipeline `ir-opt` runs on its Relax demo.
pub const DEFAULT_PIPELINE: &str = "normalize,dce";

type Func = Node<Function>;

/// The registry of Relax passes: `normalize`, `dce` (option `entry`, a
/// function to keep as if public), `to-non-dataflow` and `well-formed` (a
/// check that changes nothing).
///
/// ```
/// use ir_core::pass::PassContext;
/// use ir_passes::relax::{parse_module, print_module, passes::registry};
///
/// let text = r#"# from tvm.script import ir as I
/// ## from tvm.script import relax as R
///
/// @I.ir_module
/// class Module:
///     @R.function
///     def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
///         unused: R.Tensor((2,), dtype="float32") = R.exp(x)
///         return x"#;
/// let passes = registry().pipeline("dce").unwrap();
/// let out = PassContext::default().run(&passes, &parse_module(text).unwrap()).unwrap();
/// assert!(!print_module(&out).contains("unused"));
/// ```
pub fn registry() -> PassRegistry<Func> {
    let mut r = PassRegistry::new();
    r.register(
        "normalize",
        "A-normal form with struct info derived (TVM's Normalize)",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(FunctionPass::new(
                "normalize",
                0,
                |f: &Func, _: &RelaxModule, _: &PassContext<Func>| {
                    normalize_module_function(f).map_err(|e| PassError::new(e.0))
                },
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "dce",
        "remove unused pure bindings and unreachable private functions (option entry=<name>)",
        |o: &PassOptions| {
            let entry: Vec<String> = o
                .get("entry")
                .map(|e| vec![e.to_owned()])
                .unwrap_or_default();
            o.expect_only(&["entry"])?;
            Ok(Box::new(ModulePass::new(
                "dce",
                1,
                move |m: &RelaxModule, _: &PassContext<Func>| Ok(dead_code_elimination(m, &entry)),
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "remove-unused-bindings",
        "remove unused pure bindings only (functions stay)",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(FunctionPass::new(
                "remove-unused-bindings",
                1,
                |f: &Func, _: &RelaxModule, _: &PassContext<Func>| {
                    Ok(remove_unused_bindings(&f.body).map(|body| {
                        Node::new(Function {
                            body,
                            ..(**f).clone()
                        })
                    }))
                },
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "canonicalize-bindings",
        "trivial bindings removed and their uses rewritten (TVM's CanonicalizeBindings)",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(FunctionPass::new(
                "canonicalize-bindings",
                1,
                |f: &Func, _: &RelaxModule, _: &PassContext<Func>| {
                    canonicalize_bindings(f).map_err(|e| PassError::new(e.0))
                },
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "cse",
        "bindings of a value bound before in scope use the earlier variable \
         (TVM's EliminateCommonSubexpr; option call_only=true merges calls only)",
        |o: &PassOptions| {
            o.expect_only(&["call_only"])?;
            let call_only = o.get_bool("call_only", false)?;
            Ok(Box::new(FunctionPass::new(
                "cse",
                1,
                move |f: &Func, _: &RelaxModule, _: &PassContext<Func>| {
                    eliminate_common_subexpr(f, call_only).map_err(|e| PassError::new(e.0))
                },
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "convert-to-dataflow",
        "runs of pure bindings become dataflow blocks, then canonicalize-bindings \
         (TVM's ConvertToDataflow; option min_size, default 2)",
        |o: &PassOptions| {
            o.expect_only(&["min_size"])?;
            let min_size = o.get_u64("min_size", 2)? as usize;
            let convert = FunctionPass::new(
                "convert-to-dataflow",
                0,
                move |f: &Func, _: &RelaxModule, _: &PassContext<Func>| {
                    convert_to_dataflow(f, min_size).map_err(|e| PassError::new(e.0))
                },
            );
            let canonicalize = FunctionPass::new(
                "canonicalize-bindings",
                0,
                |f: &Func, _: &RelaxModule, _: &PassContext<Func>| {
                    canonicalize_bindings(f).map_err(|e| PassError::new(e.0))
                },
            );
            Ok(Box::new(Sequential::new(
                "convert-to-dataflow",
                vec![Box::new(convert), Box::new(canonicalize)],
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "lambda-lift",
        "local functions become private globals, captured variables extra parameters \
         (TVM's LambdaLift)",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(ModulePass::new(
                "lambda-lift",
                0,
                |m: &RelaxModule, _: &PassContext<Func>| {
                    lambda_lift(m).map_err(|e| PassError::new(e.0))
                },
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "to-non-dataflow",
        "dataflow blocks become ordinary blocks (TVM's ToNonDataflow)",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(FunctionPass::new(
                "to-non-dataflow",
                0,
                |f: &Func, _: &RelaxModule, _: &PassContext<Func>| match to_non_dataflow(
                    &Expr::Function(f.clone()),
                ) {
                    Ok(Expr::Function(g)) if !g.same_as(f) => Ok(Transformed::Replace(g)),
                    Ok(_) => Ok(Transformed::Keep),
                    Err(e) => Err(PassError::new(e.0)),
                },
            )) as Box<dyn Pass<Func>>)
        },
    );
    r.register(
        "well-formed",
        "check well-formedness; change nothing",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(ModulePass::new(
                "well-formed",
                0,
                |m: &RelaxModule, _: &PassContext<Func>| {
                    well_formed(m).map_err(PassError::new)?;
                    Ok(m.clone())
                },
            )) as Box<dyn Pass<Func>>)
        },
    );
    r
}
