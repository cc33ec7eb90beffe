//! Module-level external functions (`name = R.ExternFunc("symbol")` in a
//! module's class): the passes and the builder treat them as globals that
//! call none of the module's functions, whose names are taken.

use ir_core::pass::PassContext;
use ir_passes::relax::passes::registry;
use ir_passes::relax::*;
use pretty_assertions::assert_eq;

const HEADER: &str = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n";

fn run(pipeline: &str, text: &str) -> String {
    let module = parse_module(text).unwrap();
    let passes = registry().pipeline(pipeline).unwrap();
    let out = PassContext::default().run(&passes, &module).unwrap();
    well_formed(&out).unwrap();
    print_module(&out)
}

#[test]
fn dce_removes_an_unused_private_function_beside_a_called_external_one() {
    let before = format!(
        r#"{HEADER}@I.ir_module
class Module:
    ext = R.ExternFunc("ext")
    @R.function(private=True)
    def unused(x: R.Tensor) -> R.Tensor:
        return x

    @R.function
    def main(x: R.Tensor) -> R.Tensor:
        cls = Module
        y: R.Tensor = cls.ext(x)
        return y"#
    );
    let after = format!(
        r#"{HEADER}@I.ir_module
class Module:
    ext = R.ExternFunc("ext")
    @R.function
    def main(x: R.Tensor) -> R.Tensor:
        cls = Module
        y: R.Tensor = cls.ext(x)
        return y"#
    );
    assert_eq!(run("dce", &before), after);
}

#[test]
fn a_lifted_function_does_not_take_an_external_functions_name() {
    let before = format!(
        r#"{HEADER}@I.ir_module
class Module:
    main_inner = R.ExternFunc("main_inner")
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        @R.function
        def inner(y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            z: R.Tensor((2,), dtype="float32") = R.add(y, y)
            return z

        w: R.Tensor((2,), dtype="float32") = inner(x)
        return w"#
    );
    let lifted = run("lambda-lift", &before);
    let module = parse_module(&lifted).unwrap();
    assert_eq!(module_externs(&module).count(), 1);
    assert_eq!(module.len(), 2, "{lifted}");
    assert!(!module.contains("main_inner"), "{lifted}");
}

#[test]
fn a_function_and_an_external_function_of_one_name_are_not_well_formed() {
    let text = format!(
        "{HEADER}@I.ir_module\nclass Module:\n    f = R.ExternFunc(\"f\")\n    @R.function\n    def main(x: R.Tensor) -> R.Tensor:\n        return x"
    );
    let mut module = parse_module(&text).unwrap();
    let main = module.get("main").unwrap().clone();
    module.add_function("f", main).unwrap();
    assert_eq!(
        well_formed(&module),
        Err("`f` is both a function and an external function".to_owned())
    );
}

#[test]
/// As from a private function: the external one gets the next free name
/// (`f1` went to the public function while it was being added).
fn a_public_function_takes_its_name_back_from_an_external_one() {
    let text = format!(
        "{HEADER}@I.ir_module\nclass Module:\n    f = R.ExternFunc(\"f\")\n    @R.function\n    def main(x: R.Tensor) -> R.Any:\n        cls = Module\n        y: R.Any = cls.f(x)\n        return y"
    );
    let mut bb = BlockBuilder::with_module(parse_module(&text).unwrap());
    let t = StructInfo::tensor(vec![2.into()], DataType::F32);
    let x = bb.param("x", t);
    bb.begin_function("f", vec![x.clone()]).unwrap();
    bb.emit_func_output(Expr::Var(x)).unwrap();
    let module = bb.finalize().unwrap();
    well_formed(&module).unwrap();
    assert_eq!(
        print_module(&module),
        format!(
            r#"{HEADER}@I.ir_module
class Module:
    f2 = R.ExternFunc("f")
    @R.function
    def f(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor) -> R.Any:
        cls = Module
        y: R.Any = cls.f2(x)
        return y"#
        )
    );
}

#[test]
fn an_external_function_runs_nowhere_but_is_named_in_the_error() {
    let text = format!(
        "{HEADER}@I.ir_module\nclass Module:\n    f = R.ExternFunc(\"f\")\n    @R.function\n    def main(x: R.Tensor((1,), dtype=\"float32\")) -> R.Tensor:\n        cls = Module\n        y: R.Tensor = cls.f(x)\n        return y"
    );
    let module = parse_module(&text).unwrap();
    let x = interp::Value::Tensor(interp::Tensor::new(DataType::F32, vec![1], vec![1.0]).unwrap());
    assert_eq!(
        interp::run(&module, "main", vec![x]).err(),
        Some("external function f cannot run here".to_owned())
    );
}
