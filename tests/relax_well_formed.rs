//! Relax well-formedness: what `well_formed` rejects, with the function
//! named, and that the passes keep programs well formed.

use ir_passes::relax::passes::to_non_dataflow;
use ir_passes::relax::{
    Binding, BindingBlock, DataType, Expr, Function, RelaxModule, StructInfo, Var, parse_module,
    print_module, well_formed,
};
use irkit::prelude::*;
use pretty_assertions::assert_eq;

fn t() -> StructInfo {
    StructInfo::tensor(vec![2.into()], DataType::F32)
}

fn module(params: Vec<Node<Var>>, blocks: Vec<Node<BindingBlock>>, body: Expr) -> RelaxModule {
    let mut m = RelaxModule::new();
    let f = Function {
        params,
        body: Expr::seq(blocks, body),
        ret_sinfo: t(),
        pure: true,
        private: false,
        attrs: Vec::new(),
    };
    m.add_function("main", Node::new(f)).unwrap();
    m
}

fn block(dataflow: bool, bindings: Vec<(Node<Var>, Expr)>) -> Node<BindingBlock> {
    Node::new(BindingBlock {
        bindings: bindings
            .into_iter()
            .map(|(var, value)| {
                Node::new(Binding {
                    value,
                    cast: None,
                    var,
                })
            })
            .collect(),
        dataflow,
    })
}

fn v(x: &Node<Var>) -> Expr {
    Expr::Var(x.clone())
}

#[test]
fn violations_are_reported_with_the_function() {
    let x = Var::new("x", t());
    let y = Var::new("y", t());
    let lv = Var::dataflow("lv", t());
    let exp = |e: Expr| Expr::call_op("exp", vec![e]);

    let undefined = module(vec![x.clone()], vec![], v(&y));
    assert_eq!(
        well_formed(&undefined).unwrap_err(),
        "in function main: variable y is used but not defined"
    );

    let twice = module(
        vec![x.clone()],
        vec![block(
            false,
            vec![(y.clone(), exp(v(&x))), (y.clone(), exp(v(&x)))],
        )],
        v(&y),
    );
    assert_eq!(
        well_formed(&twice).unwrap_err(),
        "in function main: variable y is defined twice"
    );

    let leak = module(
        vec![x.clone()],
        vec![block(true, vec![(lv.clone(), exp(v(&x)))])],
        v(&lv),
    );
    assert_eq!(
        well_formed(&leak).unwrap_err(),
        "in function main: dataflow variable lv is used outside its dataflow block"
    );

    let outside = module(
        vec![x.clone()],
        vec![block(false, vec![(lv.clone(), exp(v(&x)))])],
        v(&x),
    );
    assert_eq!(
        well_formed(&outside).unwrap_err(),
        "in function main: dataflow variable lv is defined outside a dataflow block"
    );

    let nested = module(
        vec![x.clone()],
        vec![block(false, vec![(y.clone(), exp(exp(v(&x))))])],
        v(&y),
    );
    assert_eq!(
        well_formed(&nested).unwrap_err(),
        "in function main: an argument `Call` is not in A-normal form"
    );

    let fine = module(
        vec![x.clone()],
        vec![block(
            true,
            vec![(lv.clone(), exp(v(&x))), (y.clone(), v(&lv))],
        )],
        v(&y),
    );
    assert_eq!(well_formed(&fine), Ok(()));
}

#[test]
fn to_non_dataflow_turns_dataflow_blocks_into_plain_ones() {
    let text = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2,), dtype="float32") = R.exp(x)
            lv1: R.Tensor((2,), dtype="float32") = R.add(lv, x)
            gv: R.Tensor((2,), dtype="float32") = lv1
            R.output(gv)
        return gv"#;
    let m = parse_module(text).unwrap();
    let f = m.get("main").unwrap().clone();
    let Expr::Function(out) = to_non_dataflow(&Expr::Function(f)).unwrap() else {
        panic!("a function")
    };
    let mut result = RelaxModule::new();
    result.add_function("main", out).unwrap();
    well_formed(&result).unwrap();
    assert_eq!(
        print_module(&result),
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        lv: R.Tensor((2,), dtype="float32") = R.exp(x)
        lv1: R.Tensor((2,), dtype="float32") = R.add(lv, x)
        gv: R.Tensor((2,), dtype="float32") = lv1
        return gv"#
    );
}
