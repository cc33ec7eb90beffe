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

/// Plants RAF's nodes: the let variable `%e` becomes an extended variable
/// that may share the memory of `%a` (its definition and every use are the
/// new variable); the parameters `%rt_gpu`, `%rt_cpu` and `%rt_pool` become
/// runtime values.
#[derive(Default)]
struct Plant {
    a: Option<Node<Var>>,
    remap: IdMap<Node<Var>, Node<Var>>,
}
impl TypeMutator for Plant {}
impl PatternMutator for Plant {}
impl ExprMutator for Plant {
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        match v.name.as_str() {
            "a" => {
                self.a = Some(v.clone());
                Transformed::Keep
            }
            "e" => {
                let e = make_var("e", v.annotation.clone(), self.a.clone().map(Expr::from));
                self.remap.insert(v.id(), e.clone());
                Transformed::Replace(e)
            }
            _ => Transformed::Keep,
        }
    }
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        if let Some(e) = self.remap.get(&v.id()) {
            return Transformed::Replace(e.clone().into());
        }
        match v.name.as_str() {
            "rt_gpu" => rt_tensor(f32s(&[10.0, 20.0]), Device::Gpu(0)).into(),
            "rt_cpu" => rt_tensor(f32s(&[1.0, 2.0]), Device::Cpu).into(),
            "rt_pool" => rt_opaque(7, "pool").into(),
            _ => Transformed::Keep,
        }
    }
}

/// `text`'s `@main` with RAF's nodes planted, as a module.
fn program(text: &str) -> RelayModule {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let main: Expr = module.get("main").unwrap().clone().into();
    let planted = Plant::default().mutate_expr(&main).unwrap_or_clone(&main);
    let main = planted.as_function().unwrap();
    let params = main
        .params
        .iter()
        .filter(|p| !p.name.starts_with("rt_"))
        .cloned()
        .collect();
    let main = Node::new(Function {
        type_params: Vec::new(),
        params,
        ..(**main).clone()
    });
    RelayModule::from_functions([("main".to_owned(), main)])
}

const PROGRAM: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %rt_gpu: Tensor[(2), float32]) {
  let %a = add(%x, 1f);
  let %c = add(2f, 3f);
  let %dead = multiply(%x, %x);
  let %b = add(%x, 1f);
  let %e: Tensor[(2), float32] = add(%a, %c);
  add(add(%e, %e), add(%rt_gpu, %b))
}
"#;

fn main_body(m: &RelayModule) -> Expr {
    m.get("main").unwrap().body.clone()
}

/// `body` as the body of `@main(%x)`, checked well formed: every use of a
/// variable, the extended ones included, is bound by its definition, and
/// the program type-checks.
fn assert_well_formed(body: &Expr) {
    let main = Node::new(Function {
        type_params: Vec::new(),
        params: free_vars(body),
        body: body.clone(),
        ret_type: None,
        attrs: Default::default(),
        span: Span::default(),
    });
    let m = RelayModule::from_functions([("main".to_owned(), main)]);
    if let Err(e) = well_formed(&m) {
        panic!("{e}\n{}", print_expr(body));
    }
}

/// The extended variables a program defines, and its `RtConstant`s.
fn raf_nodes(e: &Expr) -> (Vec<Node<Var>>, Vec<Node<RtConstant>>) {
    #[derive(Default)]
    struct Find(Vec<Node<Var>>, Vec<Node<RtConstant>>);
    impl TypeVisitor for Find {}
    impl PatternVisitor for Find {}
    impl ExprVisitor for Find {
        fn visit_var_def(&mut self, v: &Node<Var>) {
            if may_share(v).is_some() {
                self.0.push(v.clone());
            }
            v.walk(self);
        }
        fn visit_ext(&mut self, node: &Ext<Expr>) {
            self.visit_raf_expr(node)
        }
    }
    impl RafExprVisitor for Find {
        fn visit_rt_constant(&mut self, c: &Node<RtConstant>) {
            self.1.push(c.clone());
        }
    }
    let mut find = Find::default();
    find.visit_expr(e);
    (find.0, find.1)
}

/// The one extended variable of `e`, which may share `%<shares>`.
fn the_extended_var(e: &Expr, shares: &str) -> Node<Var> {
    let (vars, _) = raf_nodes(e);
    assert_eq!(vars.len(), 1, "one extended variable in\n{}", print_expr(e));
    let v = vars[0].clone();
    assert_eq!(v.name, "e");
    let shared = may_share(&v).unwrap();
    assert_eq!(shared.as_var().map(|a| a.name.as_str()), Some(shares));
    v
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
         let %e{may_share=%a}: Tensor[(2), float32] = add(%a, %c);\n\
         add(add(%e, %e), add(runtime<Gpu(0)>[10, 20], %b))\n"
    );
    assert_well_formed(&main_body(&m));
}

#[test]
fn an_extended_variable_binds_its_uses() {
    let body = main_body(&program(PROGRAM));
    let e = the_extended_var(&body, "a");
    let uses = free_vars(&body);
    assert!(uses.iter().all(|v| v.name == "x"), "%e is bound");
    let Expr::Call(result) = last_body(&body) else {
        panic!("a call")
    };
    let Expr::Call(lhs) = &result.args[0] else {
        panic!("a call")
    };
    assert!(lhs.args[0].as_var().unwrap().same_as(&e));
    assert!(lhs.args[1].as_var().unwrap().same_as(&e));
}

/// The body at the end of a let chain.
fn last_body(e: &Expr) -> Expr {
    let mut cur = e.clone();
    while let Expr::Let(l) = &cur {
        let next = l.body.clone();
        cur = next;
    }
    cur
}

#[test]
fn an_extended_parameter_survives_the_default_pipeline() {
    let m = program(
        r#"#[version = "0.0.5"]
def @main(%a: Tensor[(2), float32], %e: Tensor[(2), float32]) {
  let %unused = add(%a, %a);
  add(%e, add(1f, 2f))
}
"#,
    );
    let passes = registry()
        .pipeline("infer-type,fold-constant,cse,dce")
        .unwrap();
    let out = PassContext::default()
        .run(&passes, &m)
        .unwrap_or_else(|e| panic!("{e}"));
    well_formed(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        print_module(&out),
        "#[version = \"0.0.5\"]\n\
         def @main(%a: Tensor[(2), float32], %e{may_share=%a}: Tensor[(2), float32]) -> Tensor[(2), float32] {\n  \
         add(%e, 3f)\n\
         }\n"
    );
}

/// A nested function's parameter that may share a let-bound value: when
/// folding or the graph normal form substitutes that value, the parameter is
/// rebuilt and its uses in the function's body follow it.
#[test]
fn a_nested_functions_extended_parameter_stays_bound() {
    let m = program(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  let %a = add(1f, 2f);
  let %f = fn (%e: Tensor[(2), float32]) {
    negative(%e)
  };
  %f(%x)
}
"#,
    );
    assert!(print_expr(&main_body(&m)).contains("fn (%e{may_share=%a}"));
    let folded = fold_constant(&main_body(&m));
    assert!(
        print_expr(&folded).contains("fn (%e{may_share=3f}"),
        "{}",
        print_expr(&folded)
    );
    assert_well_formed(&folded);
    let passes = registry().pipeline("to-gnf").unwrap();
    let gnf = PassContext::default()
        .run(&passes, &m)
        .unwrap_or_else(|e| panic!("{e}"));
    // The printer names the substituted value, now shared, `%0`.
    assert_eq!(
        print_expr(&main_body(&gnf)),
        "free_var %x: Tensor[(2), float32];\n\
         %0 = add(1f, 2f);\n\
         (fn (%e{may_share=%0}: Tensor[(2), float32]) {\n  \
         negative(%e)\n\
         })(%x)\n"
    );
    well_formed(&gnf).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn fold_constant_keeps_raf_nodes() {
    let m = program(PROGRAM);
    let out = fold_constant(&main_body(&m));
    the_extended_var(&out, "a");
    let (_, runtime) = raf_nodes(&out);
    assert_eq!(runtime.len(), 1);
    assert!(print_expr(&out).contains("let %e{may_share=%a}: Tensor[(2), float32] = add(%a, 5f);"));
    assert_well_formed(&out);
}

#[test]
fn fold_constant_rewrites_what_may_be_shared_and_rebinds_the_variable() {
    // `%k` folds to a constant, substituted at every use, the sharing
    // included: the extended variable is rebuilt, and its uses follow it.
    let m = program(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  let %a = add(1f, 2f);
  let %e = add(%x, %a);
  multiply(%e, %e)
}
"#,
    );
    let out = fold_constant(&main_body(&m));
    assert_eq!(
        print_expr(&out),
        "free_var %x: Tensor[(2), float32];\n\
         let %e{may_share=3f} = add(%x, 3f);\n\
         multiply(%e, %e)\n"
    );
    assert_well_formed(&out);
    // RAF's clean-up pass drops the stale sharing; the uses follow.
    let clean = DropStaleSharing::run(&out);
    assert_eq!(
        print_expr(&clean),
        "free_var %x: Tensor[(2), float32];\n\
         let %e = add(%x, 3f);\n\
         multiply(%e, %e)\n"
    );
    assert_well_formed(&clean);
}

#[test]
fn dropping_stale_sharing_keeps_sharing_that_names_a_variable() {
    let body = main_body(&program(PROGRAM));
    assert!(
        DropStaleSharing::run(&body).same_as(&body),
        "nothing to drop: the same node"
    );
}

#[test]
fn dce_keeps_extended_variables_and_what_they_share() {
    let m = program(PROGRAM);
    // `%c` and `%b` are used once and inlined; `%dead` goes. `%e` is used
    // twice; `%a` is used by `%e`'s value and by its sharing.
    let out = dead_code_elimination(&main_body(&m), true);
    assert_eq!(
        print_expr(&out),
        "free_var %x: Tensor[(2), float32];\n\
         let %a = add(%x, 1f);\n\
         let %e{may_share=%a}: Tensor[(2), float32] = add(%a, add(2f, 3f));\n\
         add(add(%e, %e), add(runtime<Gpu(0)>[10, 20], add(%x, 1f)))\n"
    );
    assert_well_formed(&out);
}

#[test]
fn dce_neither_inlines_an_extended_variable_nor_into_its_sharing() {
    // `%e` and `%a` are each used once, but `%e`'s binding carries RAF's
    // sharing, and `%a` is used only there: inlining either would lose it
    // (or put a computation where a variable is expected).
    let m = program(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  let %a = add(%x, 1f);
  let %e = add(%x, 2f);
  negative(%e)
}
"#,
    );
    let out = dead_code_elimination(&main_body(&m), true);
    assert_eq!(
        print_expr(&out),
        "free_var %x: Tensor[(2), float32];\n\
         let %a = add(%x, 1f);\n\
         let %e{may_share=%a} = add(%x, 2f);\n\
         negative(%e)\n"
    );
    assert_well_formed(&out);
}

#[test]
fn cse_keeps_raf_nodes() {
    let m = program(PROGRAM);
    let out = eliminate_common_subexpr(&main_body(&m));
    the_extended_var(&out, "a");
    let (_, runtime) = raf_nodes(&out);
    assert_eq!(runtime.len(), 1);
    assert_well_formed(&out);
}

#[test]
fn infer_type_types_raf_nodes_and_remaps_may_share() {
    // RAF's bug: inferring types rebuilt variables and lost `may_share`. Here
    // `%a` gets its inferred type (a new node); every use is remapped to it,
    // the sharing included, so `%e` is rebuilt too, and its uses follow.
    let m = program(PROGRAM);
    let main = m.get("main").unwrap();
    let typed = fill_types(&m, main).unwrap().unwrap_or_clone(main);
    let e = the_extended_var(&typed.body, "a");
    let shared = may_share(&e).unwrap();
    let shared = shared.as_var().unwrap();
    assert_eq!(
        print_type(shared.annotation.as_ref().unwrap()),
        "Tensor[(2), float32]"
    );
    let let_a = typed.body.as_let().unwrap();
    assert!(
        let_a.var.same_as(shared),
        "definition and use stay one node"
    );
    let (_, runtime) = raf_nodes(&typed.body);
    assert_eq!(runtime.len(), 1);
    assert_eq!(
        print_type(typed.ret_type.as_ref().unwrap()),
        "Tensor[(2), float32]"
    );
    assert_well_formed(&typed.body);
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
    the_extended_var(&body, "a");
    let (_, runtime) = raf_nodes(&body);
    assert_eq!(runtime.len(), 1);
    assert!(!print_expr(&body).contains("%dead"));
    well_formed(&out).unwrap_or_else(|e| panic!("{e}"));
}

/// Every upstream mutator that keeps a `let` keeps its extended variable:
/// the A-normal form conversion and the passes after it. The graph normal
/// form has no `let`s: converting to it substitutes every let-bound value
/// for its variable, so the extended variable, and what it may share, go
/// with its binding (RAF keeps sharing in A-normal form for this reason).
#[test]
fn normal_form_conversions_keep_raf_nodes_while_lets_stay() {
    let m = program(PROGRAM);
    for (pipeline, keeps_lets) in [
        ("to-anf", true),
        ("to-anf,infer-type,dce", true),
        ("to-gnf", false),
        ("to-gnf,to-anf", false),
    ] {
        let passes = registry().pipeline(pipeline).unwrap();
        let out = PassContext::default()
            .run(&passes, &m)
            .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
        let body = main_body(&out);
        let (vars, runtime) = raf_nodes(&body);
        if keeps_lets {
            the_extended_var(&body, "a");
        } else {
            assert_eq!(vars.len(), 0, "{pipeline}");
        }
        assert_eq!(runtime.len(), 1, "{pipeline}");
        assert!(
            print_expr(&body).contains("runtime<Gpu(0)>[10, 20]"),
            "{pipeline}"
        );
        well_formed(&out).unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    }
}

#[test]
fn a_raf_pass_sees_relay_and_raf_kinds() {
    let m = program(PROGRAM);
    let report = SharingReport::of(&main_body(&m));
    assert_eq!(
        report,
        SharingReport {
            relay_vars: ["x", "x", "x", "x", "a", "a", "c", "e", "e", "b"]
                .map(String::from)
                .to_vec(),
            relay_constants: 4,
            sharing: vec![("e".into(), "%a".into())],
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

/// `let %a = negative(%x); let %<name>{may_share=<shares>} = negative(%a); %<name>`,
/// sharing nothing, `%x` or `%a`.
fn sharing(name: &str, shares: Option<&str>) -> Expr {
    let x = Expr::var("x", None);
    let a = Expr::var("a", None);
    let shared = shares.map(|s| if s == "x" { x.clone() } else { a.clone() });
    let v = make_var(name, None, shared.map(Expr::from));
    Expr::let_(
        a.clone(),
        Expr::call_op("negative", vec![x.into()]),
        Expr::let_(
            v.clone(),
            Expr::call_op("negative", vec![a.into()]),
            v.into(),
        ),
    )
}

#[test]
fn what_a_variable_may_share_counts_for_equality_and_its_name_does_not() {
    let e = sharing("e", Some("a"));
    let renamed = sharing("f", Some("a"));
    assert!(structural_eq_map_free_vars(&e, &renamed));
    assert_eq!(
        structural_hash_map_free_vars(&e),
        structural_hash_map_free_vars(&renamed)
    );
    for other in [sharing("e", None), sharing("e", Some("x"))] {
        assert!(
            !structural_eq_map_free_vars(&e, &other),
            "{}",
            print_expr(&other)
        );
        assert_ne!(
            structural_hash_map_free_vars(&e),
            structural_hash_map_free_vars(&other)
        );
    }
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
