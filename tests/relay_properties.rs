//! Differential properties on random well-typed programs: every pass keeps
//! what the interpreter computes and keeps the program well-formed, and
//! printing then parsing gives back a structurally equal program. The
//! programs hold references (made, written and read in sequence) and
//! matches on an `Option` and on tuples, besides arithmetic, lets, tuples
//! and ifs.

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
    /// `let %r = ref(a)`.
    NewRef(usize),
    /// `let %w = ref_write(r, a)`.
    Write(usize, usize),
    /// `let %v = ref_read(r)`.
    Read(usize),
    /// `match (Some(a) or None) { Some(%y) => y + b, None => c }`.
    MatchOption(usize, usize, usize, bool),
    /// `match ((a, b)) { (%p, %q) => p - q }`.
    MatchPair(usize, usize),
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
        any::<usize>().prop_map(Step::NewRef),
        (any::<usize>(), any::<usize>()).prop_map(|(r, a)| Step::Write(r, a)),
        any::<usize>().prop_map(Step::Read),
        (
            any::<usize>(),
            any::<usize>(),
            any::<usize>(),
            any::<bool>()
        )
            .prop_map(|(a, b, c, some)| Step::MatchOption(a, b, c, some)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Step::MatchPair(a, b)),
    ]
}

/// `type Option[A] { Some(A), None }`, as TVM's prelude has it.
fn option_type() -> TypeDefs {
    let mut defs = TypeDefs::new();
    defs.insert(TypeData {
        name: "Option".into(),
        params: vec!["A".into()],
        constructors: vec![
            ConstructorDef {
                name: "Some".into(),
                inputs: vec![Type::var("A")],
            },
            ConstructorDef {
                name: "None".into(),
                inputs: vec![],
            },
        ],
        external: false,
    })
    .unwrap();
    defs
}

fn var_pattern(name: String) -> (Node<Var>, Pattern) {
    let v = Expr::var(&name, None);
    (v.clone(), Pattern::var(v))
}

/// Builds `def @main(%x: float32) { lets...; result }` from the steps.
fn build(steps: &[Step]) -> RelayModule {
    let x = Expr::var("x", Some(Type::scalar(DType::F32)));
    let mut pool: Vec<Expr> = vec![x.clone().into()];
    let mut lets: Vec<(Node<Var>, Expr)> = Vec::new();
    let pick = |pool: &Vec<Expr>, i: usize| pool[i % pool.len()].clone();
    let defs = option_type();
    let ctor = |name: &str| Expr::from(defs.constructor(name, Span::default()).unwrap());
    let mut refs: Vec<Node<Var>> = Vec::new();
    // Effects are let-bound in order, so that the program says when they
    // run: a read shared as a graph node runs where it is first used, which
    // removing a dead use elsewhere may move (TVM leaves that order
    // unspecified too).
    let bind = |lets: &mut Vec<(Node<Var>, Expr)>, name: String, value: Expr| {
        let v = Expr::var(&name, None);
        lets.push((v.clone(), value));
        v
    };
    for (k, s) in steps.iter().enumerate() {
        let e = match *s {
            Step::NewRef(a) => {
                let value = RefCreate {
                    value: pick(&pool, a),
                    span: Span::default(),
                };
                let r = bind(&mut lets, format!("r{k}"), value.into());
                refs.push(r.clone());
                let read = RefRead {
                    reference: r.into(),
                    span: Span::default(),
                };
                bind(&mut lets, format!("v{k}"), read.into()).into()
            }
            Step::Write(r, a) if !refs.is_empty() => {
                let reference: Expr = refs[r % refs.len()].clone().into();
                let write = RefWrite {
                    reference,
                    value: pick(&pool, a),
                    span: Span::default(),
                };
                bind(&mut lets, format!("w{k}"), write.into());
                continue;
            }
            Step::Read(r) if !refs.is_empty() => {
                let read = RefRead {
                    reference: refs[r % refs.len()].clone().into(),
                    span: Span::default(),
                };
                bind(&mut lets, format!("v{k}"), read.into()).into()
            }
            Step::Write(..) | Step::Read(_) => continue,
            Step::MatchOption(a, b, c, some) => {
                let data = if some {
                    Expr::call(ctor("Some"), vec![pick(&pool, a)])
                } else {
                    Expr::call(ctor("None"), vec![])
                };
                let (y, py) = var_pattern(format!("y{k}"));
                let some_pattern = PatternConstructor {
                    constructor: defs.constructor("Some", Span::default()).unwrap(),
                    patterns: vec![py],
                };
                let none_pattern = PatternConstructor {
                    constructor: defs.constructor("None", Span::default()).unwrap(),
                    patterns: vec![],
                };
                Match {
                    data,
                    clauses: vec![
                        Clause {
                            lhs: some_pattern.into(),
                            rhs: Expr::call_op("add", vec![y.into(), pick(&pool, b)]),
                        },
                        Clause {
                            lhs: none_pattern.into(),
                            rhs: pick(&pool, c),
                        },
                    ],
                    complete: true,
                    span: Span::default(),
                }
                .into()
            }
            Step::MatchPair(a, b) => {
                let (p, pp) = var_pattern(format!("p{k}"));
                let (q, pq) = var_pattern(format!("q{k}"));
                Match {
                    data: Expr::tuple(vec![pick(&pool, a), pick(&pool, b)]),
                    clauses: vec![Clause {
                        lhs: PatternTuple {
                            patterns: vec![pp, pq],
                        }
                        .into(),
                        rhs: Expr::call_op("subtract", vec![p.into(), q.into()]),
                    }],
                    complete: true,
                    span: Span::default(),
                }
                .into()
            }
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
    let mut module = RelayModule::from_functions([("main".to_owned(), main)]);
    module.set_data(defs);
    module
}

fn inputs() -> [Value; 3] {
    [-2.5f32, 0.0, 3.0].map(|v| Value::tensor(Tensor::scalar_f32(v)))
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
            prop_assert!(verify(&out).is_ok(), "{pipeline} broke well-formedness: {}\n{}\n=>\n{}", verify(&out).unwrap_err(), print_module(&module), print_module(&out));
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
