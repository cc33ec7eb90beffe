//! Relax's TVMScript printer, against what TVM 0.27 prints
//! (`tests/relax/*.expected` hold TVM's own output).

use ir_passes::relax::{
    AttrValue, BlockBuilder, DataType, Expr, PrimExpr, StructInfo, Var, print_module,
};
use irkit::prelude::*;
use pretty_assertions::assert_eq;

fn v(x: &Node<Var>) -> Expr {
    Expr::Var(x.clone())
}

fn tensor(dims: &[&PrimExpr], dtype: DataType) -> StructInfo {
    StructInfo::tensor(dims.iter().map(|d| (*d).clone()).collect(), dtype)
}

/// Section 1 of the printer catalogue: a dataflow block in `main`.
#[test]
fn a_module_with_a_dataflow_block_prints_as_tvm_prints_it() {
    let mut bb = BlockBuilder::new();
    let t = tensor(&[&2.into(), &3.into()], DataType::F32);
    let x = bb.param("x", t.clone());
    let y = bb.param("y", t);
    bb.begin_function("main", vec![x.clone(), y.clone()])
        .unwrap();
    bb.begin_dataflow_block().unwrap();
    let lv = bb
        .emit(Expr::call_op("add", vec![v(&x), v(&y)]), "lv")
        .unwrap();
    let lv1 = bb
        .emit(Expr::call_op("multiply", vec![v(&lv), v(&y)]), "lv1")
        .unwrap();
    let gv = bb.emit_output(v(&lv1), "gv").unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(v(&gv)).unwrap();
    let module = bb.finalize().unwrap();
    assert_eq!(
        print_module(&module),
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
            lv1: R.Tensor((2, 3), dtype="float32") = R.multiply(lv, y)
            gv: R.Tensor((2, 3), dtype="float32") = lv1
            R.output(gv)
        return gv"#
    );
}

/// `name = R.op(args, attrs)`.
type Row<'a> = (&'a str, &'a str, Vec<Expr>, Vec<(&'a str, AttrValue)>);

/// Emits each row and returns the printed binding lines.
fn binding_lines(params: Vec<Node<Var>>, rows: Vec<Row<'_>>) -> String {
    let mut bb = BlockBuilder::new();
    bb.begin_function("main", params).unwrap();
    bb.begin_binding_block().unwrap();
    let mut last = None;
    for (name, op, args, attrs) in rows {
        let attrs = attrs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        let call = Expr::call_op_with(op, args, attrs);
        last = Some(
            bb.emit(call, name)
                .unwrap_or_else(|e| panic!("{name}: {e}")),
        );
    }
    bb.end_block().unwrap();
    bb.emit_func_output(v(&last.unwrap())).unwrap();
    let text = print_module(&bb.finalize().unwrap());
    text.lines()
        .filter(|l| l.contains(" = R."))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::Ints(v.to_vec())
}

/// Section 5a: every operator's inferred struct info on static shapes.
#[test]
fn operators_infer_static_shapes_as_tvm_does() {
    use AttrValue::{Bool, Int, Str};
    let f32 = DataType::F32;
    let mut bb = BlockBuilder::new();
    let mut p = |name: &str, dims: &[i64], dtype| {
        let dims: Vec<PrimExpr> = dims.iter().map(|&d| d.into()).collect();
        bb.param(name, StructInfo::tensor(dims, dtype))
    };
    let (x, y) = (p("x", &[2, 3], f32), p("y", &[2, 3], f32));
    let (col, row) = (p("col", &[2, 1], f32), p("row", &[1, 3], f32));
    let (w, bx, bw) = (
        p("w", &[3, 4], f32),
        p("bx", &[5, 2, 3], f32),
        p("bw", &[1, 3, 4], f32),
    );
    let (vv, i) = (p("v", &[3], f32), p("i", &[2, 3], DataType::Int(32)));
    let one = Expr::scalar(1.0, f32);
    let shape = |d: &[i64]| Expr::shape(d.iter().map(|&x| x.into()).collect());
    let pair = Expr::tuple(vec![v(&x), v(&y)]);
    let rows = vec![
        ("a0", "add", vec![v(&x), v(&y)], vec![]),
        ("a1", "subtract", vec![v(&x), v(&y)], vec![]),
        ("a2", "multiply", vec![v(&x), v(&y)], vec![]),
        ("a3", "divide", vec![v(&x), v(&y)], vec![]),
        ("a4", "maximum", vec![v(&x), v(&y)], vec![]),
        ("a5", "minimum", vec![v(&x), v(&y)], vec![]),
        ("a6", "negative", vec![v(&x)], vec![]),
        ("a7", "exp", vec![v(&x)], vec![]),
        ("a8", "nn.relu", vec![v(&x)], vec![]),
        ("b0", "add", vec![v(&col), v(&row)], vec![]),
        ("b1", "add", vec![v(&x), one], vec![]),
        ("m0", "matmul", vec![v(&x), v(&w)], vec![]),
        ("m1", "matmul", vec![v(&bx), v(&bw)], vec![]),
        ("m2", "matmul", vec![v(&vv), v(&w)], vec![]),
        ("m3", "matmul", vec![v(&x), v(&vv)], vec![]),
        (
            "m4",
            "matmul",
            vec![v(&x), v(&w)],
            vec![("out_dtype", Str("float16".into()))],
        ),
        ("r0", "reshape", vec![v(&x), shape(&[3, 2])], vec![]),
        ("r1", "reshape", vec![v(&x), shape(&[-1])], vec![]),
        ("r2", "reshape", vec![v(&bx), shape(&[5, -1])], vec![]),
        ("p0", "permute_dims", vec![v(&bx)], vec![]),
        (
            "p1",
            "permute_dims",
            vec![v(&bx)],
            vec![("axes", ints(&[0, 2, 1]))],
        ),
        (
            "p2",
            "permute_dims",
            vec![v(&bx)],
            vec![("axes", ints(&[1, 0, 2]))],
        ),
        ("c0", "concat", vec![pair.clone()], vec![("axis", Int(0))]),
        ("c1", "concat", vec![pair], vec![("axis", Int(1))]),
        ("s0", "sum", vec![v(&x)], vec![]),
        ("s1", "sum", vec![v(&x)], vec![("axis", Int(1))]),
        (
            "s2",
            "sum",
            vec![v(&x)],
            vec![("axis", ints(&[1])), ("keepdims", Bool(true))],
        ),
        ("s3", "sum", vec![v(&bx)], vec![("axis", ints(&[0, 2]))]),
        ("s4", "sum", vec![v(&x)], vec![("keepdims", Bool(true))]),
        ("sh", "shape_of", vec![v(&x)], vec![]),
        ("i0", "add", vec![v(&i), v(&i)], vec![]),
    ];
    let params = vec![x.clone(), y.clone(), col, row, w, bx, bw, vv, i];
    assert_eq!(
        binding_lines(params, rows),
        include_str!("relax/ops_static.expected").trim_end()
    );
}

/// Section 5b: the same on symbolic shapes.
#[test]
fn operators_infer_symbolic_shapes_as_tvm_does() {
    use AttrValue::{Bool, Int};
    let f32 = DataType::F32;
    let [n, m, k, b, p]: [PrimExpr; 5] = ["n", "m", "k", "b", "p"].map(|s| PrimExpr::var(s).into());
    let mut bb = BlockBuilder::new();
    let mut param = |name: &str, dims: &[&PrimExpr]| bb.param(name, tensor(dims, f32));
    let (x, y) = (param("x", &[&n, &m]), param("y", &[&n, &m]));
    let (col, row) = (
        param("col", &[&n, &1.into()]),
        param("row", &[&1.into(), &m]),
    );
    let w = param("w", &[&m, &k]);
    let bx = param("bx", &[&b, &n, &m]);
    let bw = param("bw", &[&m, &k]);
    let bbp = param("bb", &[&1.into(), &m, &k]);
    let z = param("z", &[&p, &m]);
    let u = bb.param("u", StructInfo::tensor_ndim(2, f32));
    let q = bb.param("q", StructInfo::tensor_ndim(-1, f32));
    let shape = |d: Vec<PrimExpr>| Expr::shape(d);
    let tup = |a: &Node<Var>, b: &Node<Var>| Expr::tuple(vec![v(a), v(b)]);
    let rows = vec![
        ("a0", "add", vec![v(&x), v(&y)], vec![]),
        ("a2", "multiply", vec![v(&x), v(&col)], vec![]),
        ("a3", "divide", vec![v(&x), v(&row)], vec![]),
        ("b0", "add", vec![v(&col), v(&row)], vec![]),
        ("b1", "add", vec![v(&x), v(&u)], vec![]),
        ("b2", "add", vec![v(&x), v(&q)], vec![]),
        ("b3", "add", vec![v(&x), v(&z)], vec![]),
        ("m0", "matmul", vec![v(&x), v(&w)], vec![]),
        ("m1", "matmul", vec![v(&bx), v(&bw)], vec![]),
        ("m2", "matmul", vec![v(&bx), v(&bbp)], vec![]),
        ("m3", "matmul", vec![v(&u), v(&u)], vec![]),
        (
            "r0",
            "reshape",
            vec![v(&x), shape(vec![m.clone(), n.clone()])],
            vec![],
        ),
        (
            "r1",
            "reshape",
            vec![v(&x), shape(vec![(-1).into()])],
            vec![],
        ),
        (
            "r2",
            "reshape",
            vec![v(&bx), shape(vec![(-1).into(), m.clone()])],
            vec![],
        ),
        ("p0", "permute_dims", vec![v(&x)], vec![]),
        (
            "p1",
            "permute_dims",
            vec![v(&bx)],
            vec![("axes", ints(&[0, 2, 1]))],
        ),
        ("p2", "permute_dims", vec![v(&u)], vec![]),
        ("c0", "concat", vec![tup(&x, &y)], vec![("axis", Int(0))]),
        ("c1", "concat", vec![tup(&x, &z)], vec![("axis", Int(0))]),
        ("c2", "concat", vec![tup(&x, &y)], vec![("axis", Int(1))]),
        ("c3", "concat", vec![tup(&x, &u)], vec![("axis", Int(0))]),
        ("s0", "sum", vec![v(&x)], vec![]),
        ("s1", "sum", vec![v(&x)], vec![("axis", Int(1))]),
        (
            "s2",
            "sum",
            vec![v(&x)],
            vec![("axis", ints(&[1])), ("keepdims", Bool(true))],
        ),
        (
            "s3",
            "sum",
            vec![v(&bx)],
            vec![("axis", ints(&[0, 2])), ("keepdims", Bool(true))],
        ),
        ("s4", "sum", vec![v(&u)], vec![("axis", ints(&[0]))]),
        ("sh", "shape_of", vec![v(&x)], vec![]),
        ("sh2", "shape_of", vec![v(&u)], vec![]),
        ("sh3", "shape_of", vec![v(&q)], vec![]),
    ];
    let params = vec![x, y, col, row, w, bx, bw, bbp, z, u, q];
    assert_eq!(
        binding_lines(params, rows),
        include_str!("relax/ops_symbolic.expected").trim_end()
    );
}

/// Two variables named `x`: the second prints as `x_1` at its definition
/// and at every use, interleaved with uses of the first.
#[test]
fn a_name_used_twice_prints_suffixed_at_every_mention() {
    let mut bb = BlockBuilder::new();
    let t = tensor(&[&4.into()], DataType::F32);
    let x = bb.param("x", t);
    bb.begin_function("main", vec![x.clone()]).unwrap();
    bb.begin_binding_block().unwrap();
    let mut emit = |op: &str, args: [&Node<Var>; 2], name: &str| {
        bb.emit_named(
            Expr::call_op(op, [v(args[0]), v(args[1])]),
            name,
            None,
            false,
        )
        .unwrap()
    };
    let x1 = emit("add", [&x, &x], "x");
    let y = emit("multiply", [&x1, &x], "y");
    let z = emit("add", [&x, &x1], "z");
    let w = emit("add", [&y, &z], "w");
    bb.end_block().unwrap();
    bb.emit_func_output(v(&w)).unwrap();
    let module = bb.finalize().unwrap();
    assert_eq!(
        print_module(&module),
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        x_1: R.Tensor((4,), dtype="float32") = R.add(x, x)
        y: R.Tensor((4,), dtype="float32") = R.multiply(x_1, x)
        z: R.Tensor((4,), dtype="float32") = R.add(x, x_1)
        w: R.Tensor((4,), dtype="float32") = R.add(y, z)
        return w"#
    );
}

#[test]
#[cfg(target_pointer_width = "64")]
fn a_call_keeps_its_rare_parts_out_of_line_in_one_form() {
    use ir_passes::relax::Call;
    use irkit::structural::{structural_eq, structural_hash};

    // Callee, two arguments in place, and the remembered struct info: a
    // pass over a large module reads 80 bytes per call, header included.
    assert_eq!(size_of::<Call>(), 72);

    let x = Var::new("x", tensor(&[&4.into()], DataType::F32));
    let plain = || Call::new(Expr::op("sum"), [v(&x)]);
    let keepdims = vec![("keepdims".to_string(), AttrValue::Bool(true))];
    let opaque = vec![tensor(&[&4.into()], DataType::F32)];

    // Empty attributes or struct info arguments are the same call as none.
    let emptied = plain().with_attrs(vec![]).with_sinfo_args(vec![]);
    assert!(structural_eq(&plain(), &emptied));
    assert_eq!(structural_hash(&plain()), structural_hash(&emptied));
    let cleared = plain().with_attrs(keepdims.clone()).with_attrs(vec![]);
    assert!(structural_eq(&plain(), &cleared));
    assert_eq!(structural_hash(&plain()), structural_hash(&cleared));

    // Setting one keeps the other.
    let both = plain()
        .with_attrs(keepdims.clone())
        .with_sinfo_args(opaque.clone());
    assert_eq!(both.attrs(), &keepdims[..]);
    assert_eq!(both.sinfo_args().len(), 1);
    let both = both.with_attrs(vec![]);
    assert!(both.attrs().is_empty());
    assert_eq!(both.sinfo_args().len(), 1);
    assert!(!structural_eq(&plain(), &both));
    assert!(!structural_eq(&plain(), &plain().with_attrs(keepdims)));
}
