//! Symbolic variables a `match_cast` pins down, and a function's result
//! made from its body's struct info, as TVM 0.27 does them (its printed
//! results for the same inputs are the expectations).

use ir_core::pass::PassContext;
use ir_passes::relax::passes::registry;
use ir_passes::relax::{parse_module, print_module, well_formed};
use pretty_assertions::assert_eq;

const RELAX: &str = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n";
const WITH_T: &str = "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n# from tvm.script import relax as R\n\n";

fn canonicalize(text: &str) -> Result<String, String> {
    let module = parse_module(text).map_err(|e| e.to_string())?;
    let passes = registry().pipeline("canonicalize-bindings").unwrap();
    let out = PassContext::default()
        .run(&passes, &module)
        .map_err(|e| e.to_string())?;
    well_formed(&out)?;
    Ok(print_module(&out))
}

#[test]
fn a_cast_that_pins_a_variable_to_a_constant_goes_and_the_constant_stays() {
    let before = format!(
        r#"{WITH_T}@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        o = T.int64()
        z: R.Tensor((o,), dtype="float32") = R.match_cast(x, R.Tensor((o,), dtype="float32"))
        w: R.Tensor((o,), dtype="float32") = R.exp(z)
        return w"#
    );
    let after = format!(
        r#"{RELAX}@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        w: R.Tensor((16,), dtype="float32") = R.exp(x)
        return w"#
    );
    assert_eq!(canonicalize(&before).unwrap(), after);
}

#[test]
fn a_cast_that_pins_nothing_stays_and_the_result_forgets_its_variable() {
    // TVM's parser already makes the result `ndim=1`: the body's struct
    // info, without the variable only the body defines.
    let before = format!(
        r#"{WITH_T}@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32"):
        n = T.int64()
        a: R.Tensor(dtype="float32", ndim=1) = x
        z: R.Tensor((n,), dtype="float32") = R.match_cast(a, R.Tensor((n,), dtype="float32"))
        w: R.Tensor((n,), dtype="float32") = R.exp(z)
        return w"#
    );
    let parsed = print_module(&parse_module(&before).unwrap());
    assert_eq!(
        parsed,
        before.replace(
            r#"-> R.Tensor(dtype="float32"):"#,
            r#"-> R.Tensor(dtype="float32", ndim=1):"#
        )
    );
    let after = format!(
        r#"{WITH_T}@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
        n = T.int64()
        z: R.Tensor((n,), dtype="float32") = R.match_cast(x, R.Tensor((n,), dtype="float32"))
        w: R.Tensor((n,), dtype="float32") = R.exp(z)
        return w"#
    );
    assert_eq!(canonicalize(&before).unwrap(), after);
}

#[test]
fn two_casts_that_pin_one_variable_to_two_constants_are_an_error() {
    let before = format!(
        r#"{WITH_T}@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), dtype="float32"), y: R.Tensor((32,), dtype="float32")) -> R.Tuple(R.Tensor((16,), dtype="float32"), R.Tensor((32,), dtype="float32")):
        o = T.int64()
        z1: R.Tensor((o,), dtype="float32") = R.match_cast(x, R.Tensor((o,), dtype="float32"))
        z2: R.Tensor((o,), dtype="float32") = R.match_cast(y, R.Tensor((o,), dtype="float32"))
        return (z1, z2)"#
    );
    let err = canonicalize(&before).unwrap_err();
    assert!(
        err.contains("match_cast statements must be consistent"),
        "{err}"
    );
}

#[test]
fn a_recursive_local_function_whose_body_gets_finer_still_calls_itself() {
    // Its variable keeps the declared signature, which still describes it:
    // the call inside, visited before the binding, names that variable.
    let before = format!(
        r#"{RELAX}@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
        @R.function
        def f(y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
            z: R.Tensor((2, 3), dtype="float32") = y
            w: R.Tensor(dtype="float32", ndim=2) = f(z)
            return z

        r: R.Tensor(dtype="float32", ndim=2) = f(x)
        return r"#
    );
    let after = canonicalize(&before).unwrap();
    assert!(
        after.contains("w: R.Tensor(dtype=\"float32\", ndim=2) = f(y)"),
        "{after}"
    );
    parse_module(&after).unwrap();
}
