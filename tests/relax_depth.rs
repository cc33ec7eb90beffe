//! Size and depth: a function of a million bindings goes through parse,
//! print, equality, hashing, well-formedness and every pass; 100,000-deep
//! nested ifs, tuples and functions go through the passes, equality,
//! hashing and drop, all on the default test thread. Nested ifs and
//! functions print with an indentation that grows with depth, so their
//! text is quadratic in the depth (20 GB at 100,000, in TVM's format too):
//! they are printed and read back at depth 1,000, nested tuples at 100,000.

use std::time::Instant;

use ir_core::pass::PassContext;
use ir_passes::relax::passes::registry;
use ir_passes::relax::{
    BlockBuilder, DataType, Expr, Function, RelaxModule, StructInfo, Var, parse_module,
    print_module, well_formed,
};
use irkit::structural::{structural_eq, structural_hash};

const PASSES: &[&str] = &[
    "normalize",
    "dce",
    "canonicalize-bindings",
    "cse",
    "convert-to-dataflow",
    "lambda-lift",
    "to-non-dataflow",
    "well-formed",
];

fn through_passes(name: &str, module: &RelaxModule, t: &Instant) {
    for pass in PASSES {
        let pipeline = registry().pipeline(pass).unwrap();
        let out = PassContext::default().run(&pipeline, module).unwrap();
        // Lambda-lift adds a global per local function; the others keep them.
        if *pass == "lambda-lift" {
            assert!(out.len() >= module.len());
        } else {
            assert_eq!(out.len(), module.len());
        }
        well_formed(&out).unwrap();
        eprintln!("{name}: {pass} at {:.2?}", t.elapsed());
    }
}

fn chain_text(n: usize) -> String {
    let ty = r#"R.Tensor((4,), dtype="float32")"#;
    let mut text = format!(
        "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(x: {ty}) -> {ty}:\n        with R.dataflow():\n"
    );
    for i in 0..n {
        let prev = if i == 0 {
            "x".to_owned()
        } else {
            format!("lv{}", i - 1)
        };
        text.push_str(&format!("            lv{i}: {ty} = R.add({prev}, x)\n"));
    }
    text.push_str(&format!(
        "            gv: {ty} = lv{}\n            R.output(gv)\n        return gv",
        n - 1
    ));
    text
}

#[test]
fn a_million_bindings() {
    let t = Instant::now();
    let text = chain_text(1_000_000);
    let module = parse_module(&text).unwrap();
    eprintln!("million: parsed at {:.2?}", t.elapsed());
    assert_eq!(print_module(&module), text);
    eprintln!("million: printed at {:.2?}", t.elapsed());
    let again = parse_module(&text).unwrap();
    let (a, b) = (module.get("main").unwrap(), again.get("main").unwrap());
    assert!(structural_eq(a, b));
    assert_eq!(structural_hash(a), structural_hash(b));
    eprintln!("million: compared and hashed at {:.2?}", t.elapsed());
    well_formed(&module).unwrap();
    through_passes("million", &module, &t);
}

fn tensor() -> StructInfo {
    StructInfo::tensor(vec![4.into()], DataType::F32)
}

/// `main(c, x)`: `if c: (if c: (... x ...)) else: x`, `depth` deep.
fn nested_ifs(depth: usize) -> RelaxModule {
    let c = Var::new("c", StructInfo::tensor(Vec::new(), DataType::Bool));
    let x = Var::new("x", tensor());
    let mut inner = Expr::Var(x.clone());
    for _ in 0..depth {
        inner = Expr::if_(Expr::Var(c.clone()), inner, Expr::Var(x.clone()));
    }
    let mut bb = BlockBuilder::new();
    bb.begin_function("main", vec![c, x]).unwrap();
    bb.emit_func_output(inner).unwrap();
    bb.finalize().unwrap()
}

/// `main(x)`: `((((x,),),),)`, `depth` deep.
fn nested_tuples(depth: usize) -> RelaxModule {
    let x = Var::new("x", tensor());
    let mut e = Expr::Var(x.clone());
    for _ in 0..depth {
        e = Expr::tuple(vec![e]);
    }
    let mut bb = BlockBuilder::new();
    bb.begin_function("main", vec![x]).unwrap();
    bb.emit_func_output(e).unwrap();
    bb.finalize().unwrap()
}

/// `main(x)`: a function returning a function returning ... `depth` deep.
fn nested_functions(depth: usize) -> RelaxModule {
    let x = Var::new("x", tensor());
    let mut e = Expr::Var(x.clone());
    for i in 0..depth {
        let p = Var::new(&format!("p{i}"), tensor());
        let ret = ir_passes::relax::sinfo_of(&e).unwrap();
        e = Function {
            params: vec![p],
            body: Expr::seq(Vec::new(), e),
            ret_sinfo: ret,
            pure: true,
            private: false,
            attrs: Vec::new(),
        }
        .into();
    }
    let mut bb = BlockBuilder::new();
    bb.begin_function("main", vec![x]).unwrap();
    bb.emit_func_output(e).unwrap();
    bb.finalize().unwrap()
}

fn deep(name: &str, module: RelaxModule) {
    let t = Instant::now();
    well_formed(&module).unwrap();
    through_passes(name, &module, &t);
    let f = module.get("main").unwrap();
    assert!(structural_eq(f, f));
    let _ = structural_hash(f);
    eprintln!("{name}: compared and hashed at {:.2?}", t.elapsed());
    drop(module);
    eprintln!("{name}: dropped at {:.2?}", t.elapsed());
}

/// Printed and read back: the same program.
fn round_trips(module: &RelaxModule) {
    let text = print_module(module);
    let again = parse_module(&text).unwrap();
    assert_eq!(print_module(&again), text);
    assert!(structural_eq(
        module.get("main").unwrap(),
        again.get("main").unwrap()
    ));
}

#[test]
fn a_hundred_thousand_deep_ifs() {
    round_trips(&nested_ifs(1_000));
    deep("ifs", nested_ifs(100_000));
}

#[test]
fn a_hundred_thousand_deep_tuples() {
    let module = nested_tuples(100_000);
    // Tuples print on one line: read back too.
    let again = parse_module(&print_module(&module)).unwrap();
    assert!(structural_eq(
        module.get("main").unwrap(),
        again.get("main").unwrap()
    ));
    deep("tuples", module);
}

#[test]
fn a_hundred_thousand_deep_functions() {
    round_trips(&nested_functions(1_000));
    deep("functions", nested_functions(100_000));
}

#[test]
fn struct_info_of_a_hundred_thousand_nested_calls_of_a_function_variable() {
    // `f(f(... f(x)))`, not normalized: a callee that is not an operator
    // still derives its struct info without recursion limits.
    let f = Var::new(
        "f",
        ir_passes::relax::FuncStructInfo {
            params: Some(vec![tensor()]),
            ret: tensor(),
            pure: true,
        }
        .into(),
    );
    let mut e = Expr::Var(Var::new("x", tensor()));
    for _ in 0..100_000 {
        e = ir_passes::relax::Call::new(Expr::Var(f.clone()), [e]).into();
    }
    let sinfo = ir_passes::relax::sinfo_of(&e).unwrap();
    assert!(structural_eq(&sinfo, &tensor()));
}
