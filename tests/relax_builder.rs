//! The Relax block builder, after TVM's `test_blockbuilder_core.py` (case
//! ids from `relax-tir-specs.md`, section 2).

use ir_passes::relax::{
    BlockBuilder, DataType, Expr, PrimExpr, StructInfo, Var, can_prove_equal, sinfo_of,
};
use irkit::prelude::*;
use pretty_assertions::assert_eq;

/// `m, n` symbolic; `x: Tensor((m, n), float16)`, `y: Tensor((n,), float16)`.
fn fixtures(bb: &mut BlockBuilder) -> (Node<Var>, Node<Var>, PrimExpr, PrimExpr) {
    let (m, n): (PrimExpr, PrimExpr) = (PrimExpr::var("m").into(), PrimExpr::var("n").into());
    let x = bb.param(
        "x",
        StructInfo::tensor(vec![m.clone(), n.clone()], DataType::Float(16)),
    );
    let y = bb.param(
        "y",
        StructInfo::tensor(vec![n.clone()], DataType::Float(16)),
    );
    (x, y, m, n)
}

fn call(op: &str, args: &[&Node<Var>]) -> Expr {
    Expr::call_op(
        op,
        args.iter()
            .map(|v| Expr::Var((*v).clone()))
            .collect::<Vec<_>>(),
    )
}

fn shape_of(v: &Node<Var>) -> Vec<String> {
    let t = v.sinfo.tensor_parts().expect("a tensor");
    t.shape
        .as_ref()
        .unwrap()
        .iter()
        .map(|d| d.to_string())
        .collect()
}

/// BB-01: blocks nest as a stack; after an inner block closes, emitting goes
/// to the enclosing one.
#[test]
fn blocks_nest_as_a_stack() {
    let mut bb = BlockBuilder::new();
    let (x, y, _, _) = fixtures(&mut bb);
    bb.begin_binding_block().unwrap();
    let gv0 = bb.emit(call("add", &[&x, &y]), "").unwrap();
    bb.begin_dataflow_block().unwrap();
    let lv0 = bb.emit(call("multiply", &[&gv0, &y]), "").unwrap();
    bb.emit_output(call("multiply", &[&lv0, &lv0]), "").unwrap();
    let b0 = bb.end_block().unwrap();
    bb.begin_dataflow_block().unwrap();
    let lv1 = bb.emit(call("multiply", &[&gv0, &y]), "").unwrap();
    bb.emit_output(call("multiply", &[&lv1, &lv1]), "").unwrap();
    let b1 = bb.end_block().unwrap();
    let gv3 = bb.emit(call("add", &[&x, &y]), "").unwrap();
    let b2 = bb.end_block().unwrap();
    assert!(b0.dataflow && b1.dataflow && !b2.dataflow);
    let outer: Vec<&str> = b2.bindings.iter().map(|b| b.var.name.as_str()).collect();
    assert_eq!(outer, vec![gv0.name.as_str(), gv3.name.as_str()]);
    assert!(lv0.dataflow && !gv0.dataflow);
}

/// BB-02 and BB-03: explicit hints are used verbatim; default names are
/// `lv` for dataflow variables and `gv` for others, with a counter.
#[test]
fn names_come_from_hints_or_lv_and_gv_with_a_counter() {
    let mut bb = BlockBuilder::new();
    let (x, y, _, _) = fixtures(&mut bb);
    bb.begin_function("func", vec![x.clone(), y.clone()])
        .unwrap();
    bb.begin_dataflow_block().unwrap();
    let lv0 = bb.emit(call("add", &[&x, &y]), "").unwrap();
    let lv1 = bb.emit(call("multiply", &[&lv0, &y]), "").unwrap();
    let named = bb.emit(call("add", &[&x, &y]), "add").unwrap();
    let gv0 = bb.emit_output(Expr::Var(lv1.clone()), "").unwrap();
    let multi = bb
        .emit_output(call("multiply", &[&named, &y]), "multi")
        .unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(Expr::Var(gv0.clone())).unwrap();
    let names: Vec<&str> = [&lv0, &lv1, &named, &gv0, &multi]
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, vec!["lv", "lv1", "add", "gv", "multi"]);

    let module = bb.finalize().unwrap();
    let func = module.get("func").unwrap();
    // The parameters are the very variables given.
    assert!(func.params[0].same_as(&x) && func.params[1].same_as(&y));
    assert!(matches!(&func.body.body, Expr::Var(v) if v.same_as(&gv0)));
    assert_eq!(func.body.blocks.len(), 1);
    assert_eq!(func.body.blocks[0].bindings.len(), 5);
    assert_eq!(shape_of(&gv0), vec!["m", "n"]);
}

/// BB-04 and BB-05: several blocks per function; the name supply is the
/// builder's, not reset per function.
#[test]
fn a_function_of_several_blocks_and_a_second_function() {
    let mut bb = BlockBuilder::new();
    let (x, y, _, _) = fixtures(&mut bb);
    bb.begin_function("func", vec![x.clone(), y.clone()])
        .unwrap();
    bb.begin_dataflow_block().unwrap();
    let lv0 = bb.emit(call("add", &[&x, &y]), "").unwrap();
    let gv0 = bb.emit_output(Expr::Var(lv0.clone()), "").unwrap();
    bb.end_block().unwrap();
    bb.begin_binding_block().unwrap();
    let gv1 = bb.emit(call("add", &[&gv0, &gv0]), "").unwrap();
    bb.end_block().unwrap();
    bb.begin_dataflow_block().unwrap();
    let lv1 = bb.emit(call("add", &[&gv1, &gv1]), "").unwrap();
    let gv2 = bb.emit_output(Expr::Var(gv1.clone()), "").unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(Expr::Var(gv2.clone())).unwrap();
    assert_eq!(
        [&lv0, &gv0, &gv1, &lv1, &gv2].map(|v| v.name.clone()),
        ["lv", "gv", "gv1", "lv1", "gv2"]
    );

    bb.begin_function("func2", vec![x.clone()]).unwrap();
    bb.begin_dataflow_block().unwrap();
    let first = bb.emit(call("negative", &[&x]), "").unwrap();
    let out = bb.emit_output(Expr::Var(first.clone()), "").unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(Expr::Var(out)).unwrap();
    assert_eq!(first.name, "lv2");

    let module = bb.finalize().unwrap();
    let func = module.get("func").unwrap();
    let sizes: Vec<usize> = func.body.blocks.iter().map(|b| b.bindings.len()).collect();
    assert_eq!(sizes, vec![2, 1, 2]);
    assert_eq!(module.len(), 2);
}

/// BB-06: `match_cast` gives its variable the cast's struct info, a
/// dataflow variable inside a dataflow block.
#[test]
fn match_cast_defines_a_variable_of_the_cast_type() {
    let mut bb = BlockBuilder::new();
    let x = bb.param("x", StructInfo::tensor_ndim(-1, DataType::F32));
    let (m, n): (PrimExpr, PrimExpr) = (PrimExpr::var("m").into(), PrimExpr::var("n").into());
    bb.begin_function("func", vec![x.clone()]).unwrap();
    bb.begin_dataflow_block().unwrap();
    let target = StructInfo::tensor(vec![m, n], DataType::F32);
    let lv0 = bb
        .emit_match_cast(x.clone().into(), target.clone(), "")
        .unwrap();
    let gv0 = bb.emit_output(lv0.clone().into(), "").unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(gv0.into()).unwrap();
    assert!(lv0.dataflow);
    assert!(structural_eq(&lv0.sinfo, &target));
    let module = bb.finalize().unwrap();
    let binding = &module.get("func").unwrap().body.blocks[0].bindings[0];
    assert!(binding.cast.is_some());
    assert!(binding.var.same_as(&lv0));
    // A match_cast is not a binding of its value.
    assert!(bb.lookup_binding(&lv0).is_none());
}

/// BB-08: normalizing fills in struct info; nested tuples stay tuples.
#[test]
fn normalize_infers_struct_info_and_keeps_nested_tuples() {
    let mut bb = BlockBuilder::new();
    let (x, y, _, _) = fixtures(&mut bb);
    bb.begin_binding_block().unwrap();
    let mul = call("multiply", &[&x, &y]);
    let normal = bb.normalize(mul.clone()).unwrap();
    assert!(
        normal.same_as(&mul),
        "already in A-normal form: the same node"
    );
    let s = sinfo_of(&normal).unwrap();
    assert_eq!(
        s.tensor_parts()
            .unwrap()
            .shape
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>(),
        vec!["m", "n"]
    );
    let nested = Expr::tuple(vec![
        x.clone().into(),
        Expr::tuple(vec![x.clone().into(), y.clone().into()]),
    ]);
    let normal = bb.normalize(nested.clone()).unwrap();
    assert!(normal.same_as(&nested));
    let s = sinfo_of(&normal).unwrap();
    assert_eq!(s.as_tuple_struct_info().unwrap().fields.len(), 2);
    assert!(bb.end_block().unwrap().bindings.is_empty());
}

/// A nested call is bound, left to right, once per node and block.
#[test]
fn normalize_binds_nested_calls_once_per_node() {
    let mut bb = BlockBuilder::new();
    let (x, y, _, _) = fixtures(&mut bb);
    bb.begin_binding_block().unwrap();
    let inner = call("add", &[&x, &y]);
    let twice = Expr::call_op("multiply", vec![inner.clone(), inner.clone()]);
    let out = bb.emit(twice, "out").unwrap();
    let equal_copy = Expr::call_op("multiply", vec![call("add", &[&x, &y]), inner.clone()]);
    bb.emit(equal_copy, "other").unwrap();
    let block = bb.end_block().unwrap();
    let names: Vec<&str> = block.bindings.iter().map(|b| b.var.name.as_str()).collect();
    // `inner` bound once (gv), the equal copy bound again (gv1).
    assert_eq!(names, vec!["gv", "out", "gv1", "other"]);
    assert_eq!(shape_of(&out), vec!["m", "n"]);
}

/// BB-12: a sequence emitted as a value is flattened in front of its
/// binding, which binds its result.
#[test]
fn an_emitted_sequence_is_flattened_into_the_block() {
    let mut inner = BlockBuilder::new();
    let scalar = |v| Expr::scalar(v, DataType::Int(32));
    inner.begin_binding_block().unwrap();
    let a = inner.emit(scalar(1.0), "a").unwrap();
    let b = inner.emit(scalar(2.0), "b").unwrap();
    let c = inner.emit(call("add", &[&a, &b]), "c").unwrap();
    let block = inner.end_block().unwrap();
    let seq = Expr::SeqExpr(Expr::seq(vec![block], c.into()));

    let mut bb = BlockBuilder::new();
    bb.begin_binding_block().unwrap();
    let d = bb.emit(scalar(3.0), "d").unwrap();
    let e = bb.emit(seq, "e").unwrap();
    bb.emit(call("add", &[&d, &e]), "f").unwrap();
    let block = bb.end_block().unwrap();
    let names: Vec<&str> = block.bindings.iter().map(|b| b.var.name.as_str()).collect();
    assert_eq!(names, vec!["d", "a", "b", "c", "e", "f"]);
    assert!(matches!(&block.bindings[4].value, Expr::Var(v) if v.name == "c"));
}

/// BB-09 and BB-10: misuse is an error, and the builder can be used again.
#[test]
fn misuse_is_an_error_and_the_builder_recovers() {
    let mut bb = BlockBuilder::new();
    let (x, _, _, _) = fixtures(&mut bb);
    assert!(bb.emit(x.clone().into(), "").is_err(), "no open block");
    bb.begin_binding_block().unwrap();
    let err = bb.emit_output(x.clone().into(), "").unwrap_err();
    assert_eq!(
        err.to_string(),
        "emit_output must be called inside a dataflow block"
    );
    bb.end_block().unwrap();
    assert!(bb.end_block().is_err());
    assert_eq!(
        bb.emit_func_output(x.clone().into())
            .unwrap_err()
            .to_string(),
        "emit_func_output must be called in a relax function"
    );
    // A function left without its output fails, and unwinds.
    bb.begin_function("f", vec![x.clone()]).unwrap();
    bb.begin_dataflow_block().unwrap();
    bb.emit(x.clone().into(), "").unwrap();
    assert!(bb.end_function().is_err());
    assert!(!bb.in_dataflow_block());
    // The same builder builds a correct function afterwards.
    bb.begin_function("f", vec![x.clone()]).unwrap();
    bb.emit_func_output(x.clone().into()).unwrap();
    assert!(bb.finalize().unwrap().get("f").is_some());
    // A call that does not type is an error too.
    bb.begin_binding_block().unwrap();
    let z = bb.param("z", StructInfo::tensor(vec![3.into()], DataType::Float(16)));
    let w = bb.param("w", StructInfo::tensor(vec![4.into()], DataType::Float(16)));
    let err = bb.emit(call("add", &[&z, &w]), "").unwrap_err();
    assert_eq!(err.to_string(), "R.add: shapes do not broadcast: 3 and 4");
}

/// The module: structurally equal functions are added once; updating one
/// of two names that hold equal functions leaves the other.
#[test]
fn add_function_deduplicates_and_update_function_keeps_the_other_name() {
    let mut bb = BlockBuilder::new();
    let (x, _, _, _) = fixtures(&mut bb);
    bb.begin_function("f", vec![x.clone()]).unwrap();
    bb.emit_func_output(x.clone().into()).unwrap();
    let module = bb.finalize().unwrap();
    let f = module.get("f").unwrap().clone();
    // An equal function (other variable objects) is found again.
    let x2 = bb.param("x", x.sinfo.clone());
    let copy = ir_passes::relax::Function {
        params: vec![x2.clone()],
        body: Expr::seq(Vec::new(), x2.into()),
        ..(*f).clone()
    };
    let gv = bb.add_function(Node::new(copy), "g").unwrap();
    assert_eq!(gv.name, "f");
    assert_eq!(bb.context_module().len(), 1);
    // The input module is untouched by later changes (copy-on-write).
    let neg = bb.param("x", x.sinfo.clone());
    let other = ir_passes::relax::Function {
        params: vec![neg.clone()],
        body: Expr::seq(Vec::new(), call("negative", &[&neg])),
        ..(*f).clone()
    };
    let g = bb.add_function(Node::new(other.clone()), "g").unwrap();
    assert_eq!(g.name, "g");
    bb.update_function(&gv, Node::new(other.clone())).unwrap();
    assert_eq!(module.len(), 1);
    assert!(module.get("f").unwrap().same_as(&f));
    // Both names now hold `other`: it is found under the first, and after
    // `g` is updated too, under `f`, which still holds it.
    let again = |bb: &mut BlockBuilder| bb.add_function(Node::new(other.clone()), "h").unwrap();
    assert_eq!(again(&mut bb).name, "g");
    let y = bb.param("y", x.sinfo.clone());
    let third = ir_passes::relax::Function {
        params: vec![y.clone()],
        body: Expr::seq(Vec::new(), call("exp", &[&y])),
        ..(*f).clone()
    };
    bb.update_function(&g, Node::new(third)).unwrap();
    assert_eq!(again(&mut bb).name, "f");
    // What `f` held first is no longer in the module: it is added anew.
    assert_eq!(bb.add_function(f.clone(), "f").unwrap().name, "f1");
    assert_eq!(bb.context_module().len(), 3);
}

/// `can_prove_shape_equal` is conservative.
#[test]
fn shape_equality_is_proven_or_not_claimed() {
    let bb = BlockBuilder::new();
    let n: PrimExpr = PrimExpr::var("n").into();
    let m: PrimExpr = PrimExpr::var("m").into();
    use ir_passes::relax::BinOp::*;
    let n1 = PrimExpr::binary(Sub, PrimExpr::binary(Add, n.clone(), 1.into()), 1.into());
    assert!(bb.can_prove_shape_equal(&[n1, 4.into()], &[n.clone(), 4.into()]));
    assert!(!bb.can_prove_shape_equal(std::slice::from_ref(&n), std::slice::from_ref(&m)));
    let twice = PrimExpr::binary(Mul, 2.into(), n.clone());
    assert!(can_prove_equal(
        &twice,
        &PrimExpr::binary(Add, n.clone(), n.clone())
    ));
    let half = PrimExpr::binary(FloorDiv, twice.clone(), 2.into());
    assert!(can_prove_equal(&half, &n));
    assert!(!can_prove_equal(
        &PrimExpr::binary(FloorDiv, n.clone(), 2.into()),
        &m
    ));
}

/// BB-finalize (TVM's `test_finalize_public_private_name_conflict`): two
/// private functions and then a public one, all asked to be `func`. Until
/// `finalize` the public one holds a fresh name; `finalize` gives it `func`,
/// renames the private one that held it, and every call follows.
#[test]
fn finalize_gives_a_public_function_its_name_back_from_a_private_one() {
    let mut bb = BlockBuilder::new();
    bb.begin_private_function("func", vec![]).unwrap();
    bb.emit_func_output(Expr::scalar(0.0, DataType::I64))
        .unwrap();
    let first = bb.global_var("func");
    bb.begin_private_function("func", vec![]).unwrap();
    bb.begin_binding_block().unwrap();
    let gv0 = bb
        .emit(
            ir_passes::relax::Call::new(Expr::GlobalVar(first), []).into(),
            "",
        )
        .unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(Expr::Var(gv0)).unwrap();
    let second = bb.global_var("func1");
    bb.begin_function("func", vec![]).unwrap();
    bb.begin_binding_block().unwrap();
    let gv1 = bb
        .emit(
            ir_passes::relax::Call::new(Expr::GlobalVar(second), []).into(),
            "",
        )
        .unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(Expr::Var(gv1)).unwrap();
    let names: Vec<&str> = bb.context_module().names().collect();
    assert_eq!(names, ["func", "func1", "func2"]);
    assert!(!bb.context_module().get("func2").unwrap().private);

    let module = bb.finalize().unwrap();
    ir_passes::relax::well_formed(&module).unwrap();
    assert_eq!(
        ir_passes::relax::print_module(&module),
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def func() -> R.Tensor((), dtype="int64"):
        cls = Module
        gv1: R.Tensor((), dtype="int64") = cls.func1()
        return gv1

    @R.function(private=True)
    def func1() -> R.Tensor((), dtype="int64"):
        cls = Module
        gv: R.Tensor((), dtype="int64") = cls.func3()
        return gv

    @R.function(private=True)
    def func3() -> R.Tensor((), dtype="int64"):
        return R.const(0, "int64")"#
    );
}

/// Equal functions held by several names: a lookup finds the first name
/// recorded that still holds one, whichever of them was updated.
#[test]
fn the_first_name_still_holding_an_equal_function_is_found() {
    let three = |body: &str| {
        let mut text = String::from("@I.ir_module\nclass Module:\n");
        for name in ["a", "b", "c"] {
            text += &format!(
                "    @R.function\n    def {name}(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n        return {body}\n\n"
            );
        }
        ir_passes::relax::parse_module(&text).unwrap()
    };
    let exps = three("R.exp(x)");
    let negatives = three("R.negative(x)");
    let exp = || exps.get("a").unwrap().clone();
    let negative = |name| negatives.get(name).unwrap().clone();
    let mut bb = BlockBuilder::with_module(exps.clone());
    let gv = |bb: &mut BlockBuilder, f| bb.add_function(f, "d").unwrap().name.clone();
    assert_eq!(gv(&mut bb, exp()), "a");
    let a = bb.add_function(exp(), "a").unwrap();
    bb.update_function(&a, negative("a")).unwrap();
    assert_eq!(gv(&mut bb, exp()), "b");
    assert_eq!(gv(&mut bb, negative("c")), "a");
    let b = bb.add_function(exp(), "b").unwrap();
    assert_eq!(b.name, "b");
    bb.update_function(&b, negative("b")).unwrap();
    assert_eq!(gv(&mut bb, exp()), "c");
    assert_eq!(bb.context_module().len(), 3);
}

/// A builder over a wide module updates every function in linear time:
/// records not yet hashed are looked through only while they are few.
#[test]
fn every_function_of_a_wide_module_is_updated() {
    let n = 20_000;
    let mut text = String::from("@I.ir_module\nclass Module:\n");
    for i in 0..n {
        text += &format!(
            "    @R.function\n    def f{i}(x: R.Tensor(({i},), dtype=\"float32\")) -> R.Tensor(({i},), dtype=\"float32\"):\n        return x\n\n"
        );
    }
    let module = ir_passes::relax::parse_module(&text).unwrap();
    let mut bb = BlockBuilder::with_module(module.clone());
    for i in 0..n {
        let name = format!("f{i}");
        let gv = bb
            .add_function(module.get(&name).unwrap().clone(), "g")
            .unwrap();
        assert_eq!(gv.name, name);
        let f = module.get(&format!("f{}", (i + 1) % n)).unwrap().clone();
        bb.update_function(&gv, f).unwrap();
    }
    assert_eq!(bb.context_module().len(), n);
}
