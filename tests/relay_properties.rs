//! Differential properties on random well-typed programs: every pass keeps
//! what the interpreter computes and keeps the program well-formed, and
//! printing then parsing gives back a structurally equal program.

use ir_passes::relay::passes::registry;
use ir_passes::relay::*;
use irkit::Node;
use irkit::pass::PassContext;
use irkit::structural::structural_eq;
use proptest::prelude::*;

/// One step of building a program; operands index the pool of built expressions.
#[derive(Debug, Clone)]
enum Step {
    Const(i8),
    Unary(u8, usize),
    Binary(u8, usize, usize),
    Let(usize),
    Pair(usize, usize, bool),
    If(usize, usize, usize, usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<i8>().prop_map(Step::Const),
        (0u8..2, any::<usize>()).prop_map(|(o, a)| Step::Unary(o, a)),
        (0u8..5, any::<usize>(), any::<usize>()).prop_map(|(o, a, b)| Step::Binary(o, a, b)),
        any::<usize>().prop_map(Step::Let),
        (any::<usize>(), any::<usize>(), any::<bool>()).prop_map(|(a, b, i)| Step::Pair(a, b, i)),
        (
            any::<usize>(),
            any::<usize>(),
            any::<usize>(),
            any::<usize>()
        )
            .prop_map(|(a, b, c, d)| Step::If(a, b, c, d)),
    ]
}

/// Builds `def @main(%x: float32) { lets...; result }` from the steps.
fn build(steps: &[Step]) -> RelayModule {
    let x = Expr::var("x", Some(Type::scalar(DType::F32)));
    let mut pool: Vec<Expr> = vec![x.clone().into()];
    let mut lets: Vec<(Node<Var>, Expr)> = Vec::new();
    let pick = |pool: &Vec<Expr>, i: usize| pool[i % pool.len()].clone();
    for (k, s) in steps.iter().enumerate() {
        let e = match *s {
            Step::Const(v) => Expr::constant(Tensor::scalar_f32(v as f32)),
            Step::Unary(o, a) => {
                Expr::call_op(["negative", "nn.relu"][o as usize], vec![pick(&pool, a)])
            }
            Step::Binary(o, a, b) => Expr::call_op(
                ["add", "subtract", "multiply", "maximum", "minimum"][o as usize],
                vec![pick(&pool, a), pick(&pool, b)],
            ),
            Step::Let(a) => {
                let v = Expr::var(&format!("v{k}"), None);
                lets.push((v.clone(), pick(&pool, a)));
                v.into()
            }
            Step::Pair(a, b, first) => {
                let t = Expr::tuple(vec![pick(&pool, a), pick(&pool, b)]);
                TupleGetItem {
                    tuple: t,
                    index: if first { 0 } else { 1 },
                    span: Span::default(),
                }
                .into()
            }
            Step::If(a, b, c, d) => If {
                cond: Expr::call_op("less", vec![pick(&pool, a), pick(&pool, b)]),
                then_branch: pick(&pool, c),
                else_branch: pick(&pool, d),
                span: Span::default(),
            }
            .into(),
        };
        pool.push(e);
    }
    let result = pool.last().cloned().unwrap_or_else(|| x.clone().into());
    let body = lets
        .into_iter()
        .rev()
        .fold(result, |body, (var, value)| Expr::let_(var, value, body));
    let main = Node::new(Function {
        type_params: Vec::new(),
        params: vec![x],
        ret_type: None,
        body,
        attrs: Attrs::new(),
        span: Span::default(),
    });
    RelayModule::from_functions([("main".to_owned(), main)])
}

fn inputs() -> [Value; 3] {
    [-2.5f32, 0.0, 3.0].map(|v| Value::Tensor(Tensor::scalar_f32(v)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn passes_preserve_meaning_and_well_formedness(steps in prop::collection::vec(step(), 1..40)) {
        let module = build(&steps);
        prop_assert!(verify(&module).is_ok());
        let expected: Vec<Value> = inputs().iter().map(|x| run_main(&module, std::slice::from_ref(x)).unwrap()).collect();
        for pipeline in [
            "fold-constant", "dce", "dce{inline-once=true}", "cse", "to-anf", "to-gnf", "infer-type",
            "to-anf,fold-constant,to-gnf,cse,dce{inline-once=true}",
        ] {
            let passes = registry().pipeline(pipeline).unwrap();
            let out = PassContext::default().with_opt_level(3).run(&passes, &module).unwrap();
            prop_assert!(verify(&out).is_ok(), "{pipeline} broke well-formedness:\n{}", print_module(&out));
            for (x, want) in inputs().iter().zip(&expected) {
                let got = run_main(&out, std::slice::from_ref(x)).unwrap();
                prop_assert_eq!(&got, want, "{} changed the result:\n{}\n=>\n{}", pipeline, print_module(&module), print_module(&out));
            }
        }
    }

    #[test]
    fn printing_then_parsing_round_trips(steps in prop::collection::vec(step(), 1..40)) {
        let module = build(&steps);
        let text = print_module(&module);
        let parsed = parse_module(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert!(structural_eq(module.get("main").unwrap(), parsed.get("main").unwrap()), "{}", text);
        prop_assert_eq!(print_module(&parsed), text);
    }
}
