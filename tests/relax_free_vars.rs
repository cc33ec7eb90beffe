//! `relax::free_vars` and `free_vars_of_functions`: the variables an
//! expression uses without defining them, in first-use order.

use ir_core::Node;
use ir_passes::relax::{
    Binding, BindingBlock, Expr, Function, SeqExpr, Var, free_vars, free_vars_of_functions,
    parse_module,
};
use pretty_assertions::assert_eq;

fn main_of(text: &str) -> Node<Function> {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    m.get("main").unwrap().clone()
}

fn names(vars: &[Node<Var>]) -> Vec<&str> {
    vars.iter().map(|v| v.name.as_str()).collect()
}

const CHAIN: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        a: R.Tensor((4,), dtype="float32") = R.add(x, y)
        b: R.Tensor((4,), dtype="float32") = R.add(a, a)
        c: R.Tensor((4,), dtype="float32") = R.add(b, b)
        d: R.Tensor((4,), dtype="float32") = R.add(c, c)
        e: R.Tensor((4,), dtype="float32") = R.add(d, d)
        f: R.Tensor((4,), dtype="float32") = R.add(e, e)
        g: R.Tensor((4,), dtype="float32") = R.add(f, x)
        h: R.Tensor((4,), dtype="float32") = R.add(g, a)
        return h
"#;

/// A function uses only what it defines; its body alone uses its
/// parameters, once each, in the order of first use, however far from its
/// definition a use is.
#[test]
fn a_function_is_closed_and_its_body_uses_its_parameters() {
    let main = main_of(CHAIN);
    assert!(free_vars(&Expr::Function(main.clone())).is_empty());
    let body = Expr::SeqExpr(main.body.clone());
    assert_eq!(names(&free_vars(&body)), ["x", "y"]);
}

/// A nested function's free variables are the outer ones it captures.
#[test]
fn nested_functions_capture_the_variables_around_them() {
    let main = main_of(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), flag: R.Tensor((), dtype="bool")) -> R.Tensor((2, 3), dtype="float32"):
        @R.function
        def while_loop(i: R.Tensor((), dtype="int32"), s: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
            c: R.Tensor((), dtype="int32") = R.const(1, "int32")
            if flag:
                new_i: R.Tensor((), dtype="int32") = R.add(i, c)
                new_s: R.Tensor((2, 3), dtype="float32") = R.add(s, x)
                r: R.Tensor((2, 3), dtype="float32") = new_s
            else:
                r: R.Tensor((2, 3), dtype="float32") = s
            return r

        gv: R.Tensor((2, 3), dtype="float32") = while_loop(R.const(0, "int32"), x)
        return gv
"#,
    );
    let outer = Expr::Function(main.clone());
    assert!(free_vars(&outer).is_empty());
    let Expr::Function(inner) = &main.body.blocks[0].bindings[0].value else {
        panic!("the first binding is the local function")
    };
    let inner_free = free_vars(&Expr::Function(inner.clone()));
    assert_eq!(names(&inner_free), ["flag", "x"]);
    let all = free_vars_of_functions(&outer);
    assert_eq!(all.len(), 2);
    assert!(all.get(&main.id()).unwrap().is_empty());
    assert_eq!(names(all.get(&inner.id()).unwrap()), ["flag", "x"]);
}

/// Operands that are not leaves (a tuple, a nested call built through the
/// API) are walked too.
#[test]
fn operands_that_are_not_leaves_are_walked() {
    let main = main_of(CHAIN);
    let [x, y] = [&main.params[0], &main.params[1]];
    let tuple = Expr::tuple(vec![Expr::Var(y.clone()), Expr::Var(x.clone())]);
    let call = Expr::call_op("add", vec![Expr::Var(y.clone()), tuple]);
    let e = Expr::call_op("add", vec![call, Expr::Var(x.clone())]);
    assert_eq!(names(&free_vars(&e)), ["y", "x"]);
}

/// A variable used before the binding that defines it (as a local function
/// that calls itself is) is defined in the expression, so not free.
#[test]
fn a_use_before_its_definition_is_not_free() {
    let main = main_of(CHAIN);
    let x = &main.params[0];
    let later = Var::new("later", x.sinfo.clone());
    let first = Var::new("first", x.sinfo.clone());
    let bind = |var: &Node<Var>, value: Expr| {
        Node::new(Binding {
            value,
            cast: None,
            var: var.clone(),
        })
    };
    let seq = SeqExpr {
        blocks: vec![Node::new(BindingBlock {
            bindings: vec![
                bind(
                    &first,
                    Expr::call_op("add", vec![Expr::Var(later.clone()), Expr::Var(x.clone())]),
                ),
                bind(
                    &later,
                    Expr::call_op("add", vec![Expr::Var(x.clone()), Expr::Var(x.clone())]),
                ),
            ],
            dataflow: false,
        })],
        body: Expr::Var(first.clone()),
    };
    assert_eq!(names(&free_vars(&Expr::SeqExpr(Node::new(seq)))), ["x"]);
}
