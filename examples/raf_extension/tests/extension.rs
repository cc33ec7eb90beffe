//! Relay's upstream passes over programs holding RAF's kinds, and RAF's own
//! passes over programs holding Relay's: both directions of the extension.
//!
//! Programs are written in Relay's text format; the parameters named
//! `%ext_<name>` and `%rt_<device>` stand for RAF nodes and are replaced by
//! them (Relay's parser knows nothing of RAF).

use ir_core::ext::Ext;
use ir_core::pass::PassContext;
use ir_core::prelude::*;
use ir_passes::relay::passes::{
    dead_code_elimination, eliminate_common_subexpr, fill_types, fold_constant, registry,
};
use ir_passes::relay::*;
use pretty_assertions::assert_eq;
use raf_extension::*;

fn f32s(values: &[f64]) -> Tensor {
    Tensor::from_f64s(DType::F32, &[values.len()], values).unwrap()
}

fn vector_type() -> Type {
    Type::tensor(vec![Dim::Known(2)], DType::F32)
}

/// The RAF nodes the placeholders stand for: `%ext_e` may share the value of
/// the let variable `%a`; `%rt_gpu` and `%rt_cpu` hold runtime tensors.
struct Plant {
    share: Option<Expr>,
}
impl TypeMutator for Plant {}
impl ExprMutator for Plant {
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        match v.name.as_str() {
            "ext_e" => extended_var("e", Some(vector_type()), self.share.clone()).into(),
            "rt_gpu" => rt_tensor(f32s(&[10.0, 20.0]), Device::Gpu(0)).into(),
            "rt_cpu" => rt_tensor(f32s(&[1.0, 2.0]), Device::Cpu).into(),
            "rt_pool" => rt_opaque(7, "pool").into(),
            _ => Transformed::Keep,
        }
    }
    fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
        if l.var.name == "a" {
            self.share = Some(l.var.clone().into());
        }
        l.rebuild(self).into()
    }
}

/// `text`'s `@main` with the placeholders planted, as a module.
fn program(text: &str) -> RelayModule {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let main = module.get("main").unwrap();
    let body = Plant { share: None }
        .mutate_expr(&main.body)
        .unwrap_or_clone(&main.body);
    let params = main
        .params
        .iter()
        .filter(|p| !p.name.starts_with("ext_") && !p.name.starts_with("rt_"))
        .cloned()
        .collect();
    let main = Node::new(Function {
        params,
        body,
        ..(**main).clone()
    });
    RelayModule::from_functions([("main".to_owned(), main)])
}

const PROGRAM: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %ext_e: Tensor[(2), float32], %rt_gpu: Tensor[(2), float32]) {
  let %a = add(%x, 1f);
  let %c = add(2f, 3f);
  let %dead = multiply(%x, %x);
  let %b = add(%x, 1f);
  add(add(%ext_e, %c), add(%rt_gpu, %b))
}
"#;

fn main_body(m: &RelayModule) -> Expr {
    m.get("main").unwrap().body.clone()
}

/// The `ExtendedVar` of a program (there is one), and the `RtConstant`s.
fn raf_nodes(e: &Expr) -> (Option<Node<ExtendedVar>>, Vec<Node<RtConstant>>) {
    #[derive(Default)]
    struct Find(Option<Node<ExtendedVar>>, Vec<Node<RtConstant>>);
    impl TypeVisitor for Find {}
    impl ExprVisitor for Find {
        fn visit_ext(&mut self, node: &Ext<Expr>) {
            self.visit_raf_expr(node)
        }
    }
    impl RafExprVisitor for Find {
        fn visit_extended_var(&mut self, v: &Node<ExtendedVar>) {
            self.0 = Some(v.clone());
            v.walk(self);
        }
        fn visit_rt_constant(&mut self, c: &Node<RtConstant>) {
            self.1.push(c.clone());
        }
    }
    let mut find = Find::default();
    find.visit_expr(e);
    (find.0, find.1)
}

#[test]
fn relay_prints_raf_nodes_through_their_hook() {
    let m = program(PROGRAM);
    assert_eq!(
        print_expr(&main_body(&m)),
        "free_var %x: Tensor[(2), float32];\n\
         let %a = add(%x, 1f);\n\
         let %c = add(2f, 3f);\n\
         let %dead = multiply(%x, %x);\n\
         let %b = add(%x, 1f);\n\
         add(add(%e{may_share=%a}, %c), add(runtime<Gpu(0)>[10, 20], %b))\n"
    );
}

#[test]
fn fold_constant_keeps_raf_nodes() {
    let m = program(PROGRAM);
    let out = fold_constant(&main_body(&m));
    let (var, runtime) = raf_nodes(&out);
    let var = var.expect("the extended variable survives");
    assert_eq!(var.name, "e");
    assert!(var.may_share.as_ref().unwrap().as_var().unwrap().name == "a");
    assert_eq!(runtime.len(), 1);
    assert!(print_expr(&out).contains("add(%e{may_share=%a}, 5f)"));
}

#[test]
fn dce_rewrites_may_share_consistently_and_keeps_everything_else() {
    let m = program(PROGRAM);
    // `%a` is used once, by `may_share`: inlined there, so the extended
    // variable is rebuilt; its name, annotation and sharing survive.
    let out = dead_code_elimination(&main_body(&m), true);
    let (var, runtime) = raf_nodes(&out);
    let var = var.unwrap();
    assert_eq!(var.name, "e");
    assert!(var.annotation.is_some());
    assert_eq!(
        print_expr(var.may_share.as_ref().unwrap()),
        "free_var %x: Tensor[(2), float32];\nadd(%x, 1f)\n"
    );
    assert_eq!(runtime.len(), 1);
    assert!(!print_expr(&out).contains("%dead"));
}

#[test]
fn cse_keeps_raf_nodes() {
    let m = program(PROGRAM);
    let out = eliminate_common_subexpr(&main_body(&m));
    let (var, runtime) = raf_nodes(&out);
    assert_eq!(var.unwrap().name, "e");
    assert_eq!(runtime.len(), 1);
}

#[test]
fn infer_type_types_raf_nodes_and_remaps_may_share() {
    // RAF's bug: inferring types rebuilt variables and lost `may_share`. Here
    // `%a` gets its inferred type (a new node), every use is remapped to it,
    // `may_share` included, and the extended variable keeps its name.
    let m = program(PROGRAM);
    let main = m.get("main").unwrap();
    let typed = fill_types(&m, main).unwrap().unwrap_or_clone(main);
    let (var, runtime) = raf_nodes(&typed.body);
    let var = var.unwrap();
    let shared = var.may_share.as_ref().unwrap().as_var().unwrap();
    assert_eq!(shared.name, "a");
    assert_eq!(
        print_type(shared.annotation.as_ref().unwrap()),
        "Tensor[(2), float32]"
    );
    let let_a = typed.body.as_let().unwrap();
    assert!(
        let_a.var.same_as(shared),
        "definition and use stay one node"
    );
    assert_eq!(runtime.len(), 1);
    assert_eq!(
        print_type(typed.ret_type.as_ref().unwrap()),
        "Tensor[(2), float32]"
    );
}

#[test]
fn infer_type_reports_a_raf_node_without_a_type() {
    let m = program(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %rt_pool: Tensor[(2), float32]) {
  add(%x, %rt_pool)
}
"#,
    );
    let main = m.get("main").unwrap();
    let err = fill_types(&m, main).unwrap_err();
    assert!(err.message.contains("`RtConstant`"), "{err}");
}

#[test]
fn the_default_pipeline_runs_over_raf_nodes() {
    let m = program(PROGRAM);
    let passes = registry()
        .pipeline("infer-type,fold-constant,cse,dce")
        .unwrap();
    let out = PassContext::default()
        .with_opt_level(3)
        .run(&passes, &m)
        .unwrap_or_else(|e| panic!("{e}"));
    let body = main_body(&out);
    let (var, runtime) = raf_nodes(&body);
    let var = var.unwrap();
    assert_eq!(var.name, "e");
    assert!(var.may_share.is_some());
    assert_eq!(runtime.len(), 1);
    assert!(!print_expr(&body).contains("%dead"));
}

/// Every upstream mutator keeps RAF's nodes: the A-normal and graph normal
/// form conversions too, each alone and one after the other.
#[test]
fn normal_form_conversions_keep_raf_nodes() {
    let m = program(PROGRAM);
    for pipeline in [
        "to-anf",
        "to-gnf",
        "to-gnf,to-anf",
        "to-anf,to-gnf,infer-type,dce",
    ] {
        let passes = registry().pipeline(pipeline).unwrap();
        let out = PassContext::default()
            .run(&passes, &m)
            .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
        let body = main_body(&out);
        let (var, runtime) = raf_nodes(&body);
        let var = var.unwrap_or_else(|| panic!("{pipeline}: the ExtendedVar is gone"));
        assert_eq!(var.name, "e", "{pipeline}");
        let share = var.may_share.as_ref().expect("may_share survives");
        assert!(
            print_expr(share).contains("%a") || print_expr(share).contains("add(%x, 1f)"),
            "{pipeline}: may_share names the value of %a, not {}",
            print_expr(share)
        );
        assert_eq!(runtime.len(), 1, "{pipeline}");
        assert!(
            print_expr(&body).contains("runtime<Gpu(0)>[10, 20]"),
            "{pipeline}"
        );
    }
}

#[test]
fn a_raf_pass_sees_relay_and_raf_kinds() {
    let m = program(PROGRAM);
    let report = SharingReport::of(&main_body(&m));
    assert_eq!(
        report,
        SharingReport {
            relay_vars: ["x", "x", "x", "x", "a", "c", "b"]
                .map(String::from)
                .to_vec(),
            relay_constants: 4,
            sharing: vec![("e".into(), Some("%a".into()))],
            runtime_values: 1,
        }
    );
}

#[test]
fn a_raf_mutator_rewrites_its_kinds_among_relay_nodes() {
    let m = program(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %rt_cpu: Tensor[(2), float32], %rt_gpu: Tensor[(2), float32]) {
  add(add(%x, %rt_cpu), %rt_gpu)
}
"#,
    );
    let body = main_body(&m);
    let out = MaterializeConstants
        .mutate_expr(&body)
        .unwrap_or_clone(&body);
    assert_eq!(
        print_expr(&out),
        "free_var %x: Tensor[(2), float32];\n\
         add(add(%x, meta[relay.Constant][0]), runtime<Gpu(0)>[10, 20])\n\
         #[metadata]\n\
         {\"relay.Constant\":[{\"data\":[1.0,2.0],\"dtype\":\"float32\",\"shape\":[2]}]}\n"
    );
    // Runtime tensors fold like Relay constants (Relay's folder asks them).
    let sum = fold_constant(&Expr::call_op(
        "add",
        vec![
            rt_tensor(f32s(&[1.0, 2.0]), Device::Cpu),
            rt_tensor(f32s(&[3.0, 4.0]), Device::Gpu(1)),
        ],
    ));
    assert_eq!(sum.as_constant().unwrap().data.to_f64s(), [4.0, 6.0]);
}

#[test]
fn raf_nodes_compare_hash_and_share_like_relay_nodes() {
    let (a, b) = (program(PROGRAM), program(PROGRAM));
    let (ea, eb) = (main_body(&a), main_body(&b));
    assert!(structural_eq_map_free_vars(&ea, &eb));
    assert_eq!(
        structural_hash_map_free_vars(&ea),
        structural_hash_map_free_vars(&eb)
    );
    let other = program(&PROGRAM.replace("let %a = add(%x, 1f);", "let %a = add(%x, 2f);"));
    assert!(!structural_eq_map_free_vars(&ea, &main_body(&other)));
    let gpu = rt_tensor(f32s(&[1.0, 2.0]), Device::Gpu(0));
    let cpu = rt_tensor(f32s(&[1.0, 2.0]), Device::Cpu);
    assert!(!structural_eq(&gpu, &cpu), "the runtime value counts");
    assert!(structural_eq(
        &gpu,
        &rt_tensor(f32s(&[1.0, 2.0]), Device::Gpu(0))
    ));
    let twice = Expr::call_op("add", vec![gpu.clone(), gpu.clone()]);
    let call = twice.as_call().unwrap();
    assert!(call.args[0].same_as(&call.args[1]));
    assert_eq!(call.args[0].kind_name(), "RtConstant");
}
