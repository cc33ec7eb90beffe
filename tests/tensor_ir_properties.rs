//! Differential properties on random Tensor IR programs: every pass keeps
//! what the reference interpreter computes (the returned value and the final
//! buffer), unrolling defines nothing twice, and printing then parsing gives
//! back a structurally equal module.
//!
//! The programs are integer programs (`s32`, `bool`, `index` loop variables,
//! `s64` arithmetic through casts, tensors viewing `A` through pointers):
//! the folder applies oneDNN's fast-math identities to floats (`x * 0` is 0),
//! which are not meant to preserve NaN. A program that the interpreter
//! rejects (a division by zero, an out-of-bounds index, a signed overflow)
//! has no meaning to preserve and is skipped; the generator keeps those rare
//! by clamping indices and divisors.

use ir_core::Node;
use ir_core::structural::structural_eq_map_free_vars;
use ir_passes::tensor_ir::interp::{Arg, Interpreter, Outcome};
use ir_passes::tensor_ir::passes::{self, Simplify, Substitute, Unroll, UnrollConfig};
use ir_passes::tensor_ir::*;
use proptest::prelude::*;

/// An expression shape; variables index the scope at the point of use.
#[derive(Debug, Clone)]
enum E {
    Const(i8),
    /// Near the end of the `s32` range: `2147483647 - k` or `-2147483648 + k`.
    Edge(bool, u8),
    Var(usize),
    Load(Box<E>),
    Bin(u8, Box<E>, Box<E>),
    Select(Box<C>, Box<E>, Box<E>),
    Call(Box<E>),
    Store(Box<E>),
    /// `cast<s32>(cast<s64>(a) op cast<s64>(b))`: 64-bit arithmetic, truncated.
    Wide(u8, Box<E>, Box<E>),
}

/// A condition shape.
#[derive(Debug, Clone)]
enum C {
    Lit(bool),
    Cmp(u8, E, E),
    And(Box<C>, Box<C>),
    Or(Box<C>, Box<C>),
    Not(Box<C>),
}

/// One step of a program: statements, and the opening and closing of blocks.
#[derive(Debug, Clone)]
enum Op {
    Define(E),
    /// `var v: s32` with no initializer, then `v = e` when there is one.
    Declare(Option<E>),
    /// `tensor T: [s32 * 2]`, `T[1] = e`, `A[0] = (T[0] + T[1])`: a tensor
    /// defined in the current block (in a loop, once per iteration).
    Scratch(E),
    /// `tensor V: [s32 * 2] = &A[k]` (`k` clamped to 0..=6), `V[1] = e`,
    /// `A[0] = (V[0] + V[1])`: writes through a view that aliases `A`.
    View(E, E),
    Assign(usize, E),
    Store(E, E),
    Eval(E),
    For {
        begin: u8,
        end: End,
        step: u8,
        index: bool,
        unroll: bool,
    },
    If(C),
    Else,
    Close,
    Return(E),
}

/// A loop bound.
#[derive(Debug, Clone)]
enum End {
    Const(u8),
    /// `max(min(n, c), 0)`: known only at run time.
    Param(u8),
    /// `((v + c) - v)` for a variable `v` in scope: the constant `c` once folded.
    Offset(usize, u8),
}

fn expr() -> impl Strategy<Value = E> + Clone {
    let leaf = prop_oneof![
        3 => (-6i8..40).prop_map(E::Const),
        1 => (any::<bool>(), 0u8..4).prop_map(|(hi, k)| E::Edge(hi, k)),
        4 => any::<usize>().prop_map(E::Var),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            4 => (0u8..8, inner.clone(), inner.clone()).prop_map(|(o, a, b)| E::Bin(o, Box::new(a), Box::new(b))),
            1 => inner.clone().prop_map(|a| E::Load(Box::new(a))),
            1 => (cond_leaf(inner.clone()), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| E::Select(Box::new(c), Box::new(a), Box::new(b))),
            1 => inner.clone().prop_map(|a| E::Call(Box::new(a))),
            1 => inner.clone().prop_map(|a| E::Store(Box::new(a))),
            1 => (0u8..3, inner.clone(), inner).prop_map(|(o, a, b)| E::Wide(o, Box::new(a), Box::new(b))),
        ]
    })
}

fn cond_leaf(e: impl Strategy<Value = E> + Clone) -> impl Strategy<Value = C> {
    prop_oneof![
        any::<bool>().prop_map(C::Lit),
        (0u8..6, e.clone(), e).prop_map(|(o, a, b)| C::Cmp(o, a, b)),
    ]
}

fn cond() -> impl Strategy<Value = C> {
    cond_leaf(expr()).prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| C::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| C::Or(Box::new(a), Box::new(b))),
            inner.prop_map(|a| C::Not(Box::new(a))),
        ]
    })
}

fn op() -> impl Strategy<Value = Op> {
    let end = prop_oneof![
        (0u8..7).prop_map(End::Const),
        (0u8..7).prop_map(End::Param),
        (any::<usize>(), 0u8..4).prop_map(|(v, c)| End::Offset(v, c)),
    ];
    prop_oneof![
        3 => expr().prop_map(Op::Define),
        1 => prop::option::of(expr()).prop_map(Op::Declare),
        1 => expr().prop_map(Op::Scratch),
        1 => (expr(), expr()).prop_map(|(k, e)| Op::View(k, e)),
        3 => (any::<usize>(), expr()).prop_map(|(v, e)| Op::Assign(v, e)),
        2 => (expr(), expr()).prop_map(|(i, e)| Op::Store(i, e)),
        1 => expr().prop_map(Op::Eval),
        2 => (0u8..3, end, 1u8..4, any::<bool>(), any::<bool>())
            .prop_map(|(begin, end, step, index, unroll)| Op::For { begin, end, step, index, unroll }),
        2 => cond().prop_map(Op::If),
        1 => Just(Op::Else),
        2 => Just(Op::Close),
        1 => expr().prop_map(Op::Return),
    ]
}

const LEN: u32 = 8;

/// The module's pieces that every generated function refers to.
struct Env {
    n: Node<Var>,
    a: Node<Tensor>,
}

/// A block being built, with the variables it defined.
struct Open {
    kind: Block,
    seq: Vec<Stmt>,
    then_seq: Option<Vec<Stmt>>,
    scope_len: usize,
}

enum Block {
    Body,
    For {
        var: Node<Var>,
        begin: Expr,
        end: Expr,
        step: Expr,
        unroll: bool,
    },
    If(Expr),
}

struct Builder<'a> {
    env: &'a Env,
    /// Scalars in scope: `s32` variables, and whether each may be assigned.
    scope: Vec<(Expr, bool)>,
    counter: usize,
}

impl Builder<'_> {
    fn fresh(&mut self, base: &str, dtype: DType) -> Node<Var> {
        self.counter += 1;
        var_of(&format!("{base}{}", self.counter), dtype)
    }

    fn pick(&self, k: usize) -> Expr {
        self.scope[k % self.scope.len()].0.clone()
    }

    /// An index into `A` within bounds: `min(max(e, 0), 7)`.
    fn clamp(&self, e: &E) -> Expr {
        max(min(self.expr(e), constant(i64::from(LEN) - 1)), constant(0))
    }

    fn expr(&self, e: &E) -> Expr {
        match e {
            E::Const(c) => constant((*c).into()),
            E::Edge(true, k) => constant(i64::from(i32::MAX) - i64::from(*k)),
            E::Edge(false, k) => constant(i64::from(i32::MIN) + i64::from(*k)),
            E::Var(k) => self.pick(*k),
            E::Load(i) => indexing(&self.env.a, vec![self.clamp(i)]),
            E::Bin(o, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                match o {
                    0 => a + b,
                    1 => a - b,
                    2 => a * b,
                    // Divisors at least 1 (or a small nonzero constant).
                    3 => a / max(b, constant(1)),
                    4 => a % max(b, constant(1)),
                    5 => min(a, b),
                    6 => max(a, b),
                    _ => a + constant(1) - b,
                }
            }
            E::Select(c, a, b) => select(self.cond(c), self.expr(a), self.expr(b)),
            E::Call(a) => call("twice", vec![self.expr(a)], DType::S32),
            E::Store(a) => call(
                "put",
                vec![Expr::Tensor(self.env.a.clone()), self.expr(a)],
                DType::S32,
            ),
            E::Wide(o, a, b) => {
                let wide = |e: &E| cast(DType::S64, self.expr(e));
                let (a, b) = (wide(a), wide(b));
                cast(
                    DType::S32,
                    match o {
                        0 => a + b,
                        1 => a - b,
                        _ => a * b,
                    },
                )
            }
        }
    }

    fn cond(&self, c: &C) -> Expr {
        match c {
            C::Lit(b) => boolean(*b),
            C::Cmp(o, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                [cmp_eq, cmp_ne, cmp_lt, cmp_le, cmp_gt, cmp_ge][*o as usize](a, b)
            }
            C::And(a, b) => logic_and(self.cond(a), self.cond(b)),
            C::Or(a, b) => logic_or(self.cond(a), self.cond(b)),
            C::Not(a) => logic_not(self.cond(a)),
        }
    }
}

/// `func main(n: s32, A: [s32 * 8]): s32 { ... }` from the steps, with the
/// helpers `twice(x) = x * 2` and `put(B, v)`, which stores `v` in `B[0]`
/// (a call with an effect).
fn build(ops: &[Op]) -> Module {
    let env = Env {
        n: var_of("n", DType::S32),
        a: tensor("A", DType::S32, &[LEN]),
    };
    let mut b = Builder {
        env: &env,
        scope: vec![(Expr::Var(env.n.clone()), true)],
        counter: 0,
    };
    let mut stack = vec![Open {
        kind: Block::Body,
        seq: Vec::new(),
        then_seq: None,
        scope_len: 1,
    }];
    for op in ops {
        let stmt = match op {
            Op::Define(e) => {
                let init = b.expr(e);
                let v = b.fresh("v", DType::S32);
                b.scope.push((Expr::Var(v.clone()), true));
                define(v, Some(init))
            }
            Op::Declare(e) => {
                let value = e.as_ref().map(|e| b.expr(e));
                let v = b.fresh("v", DType::S32);
                b.scope.push((Expr::Var(v.clone()), true));
                let declared = define(v.clone(), None);
                match value {
                    Some(value) => {
                        let top = stack.last_mut().expect("the body is never closed");
                        top.seq.push(declared);
                        assign(Expr::Var(v), value)
                    }
                    None => declared,
                }
            }
            Op::Scratch(e) => {
                b.counter += 1;
                let t = tensor(&format!("T{}", b.counter), DType::S32, &[2]);
                let value = b.expr(e);
                let top = stack.last_mut().expect("the body is never closed");
                top.seq.push(define_tensor(t.clone()));
                top.seq.push(assign(indexing(&t, vec![constant(1)]), value));
                assign(
                    indexing(&env.a, vec![constant(0)]),
                    indexing(&t, vec![constant(0)]) + indexing(&t, vec![constant(1)]),
                )
            }
            Op::View(k, e) => {
                b.counter += 1;
                let v = tensor(&format!("V{}", b.counter), DType::S32, &[2]);
                let start = max(min(b.expr(k), constant(i64::from(LEN) - 2)), constant(0));
                let value = b.expr(e);
                let top = stack.last_mut().expect("the body is never closed");
                top.seq.push(define_tensor_at(
                    v.clone(),
                    Some(tensor_ptr(&env.a, vec![start])),
                ));
                top.seq.push(assign(indexing(&v, vec![constant(1)]), value));
                assign(
                    indexing(&env.a, vec![constant(0)]),
                    indexing(&v, vec![constant(0)]) + indexing(&v, vec![constant(1)]),
                )
            }
            Op::Assign(k, e) => {
                let assignable: Vec<Expr> = b
                    .scope
                    .iter()
                    .filter(|(_, ok)| *ok)
                    .map(|(v, _)| v.clone())
                    .collect();
                assign(assignable[k % assignable.len()].clone(), b.expr(e))
            }
            Op::Store(i, e) => assign(indexing(&env.a, vec![b.clamp(i)]), b.expr(e)),
            Op::Eval(e) => evaluate(b.expr(e)),
            Op::Return(e) => returns(Some(b.expr(e))),
            Op::If(c) => {
                let cond = b.cond(c);
                stack.push(Open {
                    kind: Block::If(cond),
                    seq: Vec::new(),
                    then_seq: None,
                    scope_len: b.scope.len(),
                });
                continue;
            }
            Op::Else => {
                let top = stack.last_mut().expect("the body is never closed");
                if matches!(top.kind, Block::If(_)) && top.then_seq.is_none() {
                    top.then_seq = Some(std::mem::take(&mut top.seq));
                    b.scope.truncate(top.scope_len);
                }
                continue;
            }
            Op::For {
                begin,
                end,
                step,
                index: as_index,
                unroll,
            } => {
                let dtype = if *as_index { DType::Index } else { DType::S32 };
                let int = |v: i64| constant_of(Value::Int(v), dtype);
                let begin_e = int((*begin).into());
                let end_e = match end {
                    End::Const(c) => int((*c).into()),
                    End::Param(c) => cast(
                        dtype,
                        max(
                            min(Expr::Var(env.n.clone()), constant((*c).into())),
                            constant(0),
                        ),
                    ),
                    End::Offset(k, c) => {
                        let outer = b.pick(*k);
                        cast(dtype, outer.clone() + constant((*c).into()) - outer)
                    }
                };
                let var = b.fresh(if *as_index { "j" } else { "i" }, dtype);
                let scope_len = b.scope.len();
                let use_ = if *as_index {
                    cast(DType::S32, Expr::Var(var.clone()))
                } else {
                    Expr::Var(var.clone())
                };
                b.scope.push((use_, false));
                stack.push(Open {
                    kind: Block::For {
                        var,
                        begin: begin_e,
                        end: end_e,
                        step: int((*step).into()),
                        unroll: *unroll,
                    },
                    seq: Vec::new(),
                    then_seq: None,
                    scope_len,
                });
                continue;
            }
            Op::Close => {
                if stack.len() > 1 {
                    close(&mut stack, &mut b);
                }
                continue;
            }
        };
        stack
            .last_mut()
            .expect("the body is never closed")
            .seq
            .push(stmt);
    }
    while stack.len() > 1 {
        close(&mut stack, &mut b);
    }
    let mut body = stack.pop().expect("the body").seq;
    let all: Expr = b
        .scope
        .iter()
        .map(|(v, _)| v.clone())
        .reduce(|a, v| a + v)
        .expect("n is in scope");
    body.push(returns(Some(all)));
    let main = func(
        "main",
        vec![Expr::Var(env.n.clone()), Expr::Tensor(env.a.clone())],
        stmts(body),
        DType::S32,
    );
    Module::from_functions([
        ("main".to_owned(), main),
        (
            "twice".to_owned(),
            parse_func("func twice(x: s32): s32 {\n  return (x * 2)\n}").unwrap(),
        ),
        (
            "put".to_owned(),
            parse_func("func put(B: [s32 * 8], v: s32): s32 {\n  B[0] = v\n  return v\n}").unwrap(),
        ),
    ])
}

fn close(stack: &mut Vec<Open>, b: &mut Builder<'_>) {
    let open = stack.pop().expect("checked by the caller");
    b.scope.truncate(open.scope_len);
    let stmt = match open.kind {
        Block::Body => unreachable!("the body is never closed"),
        Block::If(cond) => match open.then_seq {
            Some(then_seq) => if_else(cond, stmts(then_seq), Some(stmts(open.seq))),
            None => if_else(cond, stmts(open.seq), None),
        },
        Block::For {
            var,
            begin,
            end,
            step,
            unroll,
        } => {
            let kind = if unroll {
                ForKind::Unroll
            } else {
                ForKind::Serial
            };
            for_loop_of(kind, var, begin, end, step, stmts(open.seq))
        }
    };
    stack.last_mut().expect("the body stays").seq.push(stmt);
}

fn run(m: &Module, n: i64) -> Result<Outcome, String> {
    let a = (0..i64::from(LEN)).map(|k| Value::Int(k * 3 - 7)).collect();
    Interpreter::new(m)
        .with_fuel(200_000)
        .run("main", vec![Arg::Scalar(Value::Int(n)), Arg::Buffer(a)])
        .map_err(|e| e.0)
}

fn map_main(m: &Module, f: impl FnOnce(&Func) -> Func) -> Module {
    let mut out = m.clone();
    let main = f(m.get("main").unwrap());
    out.update_function("main", main).unwrap();
    out
}

/// A pass over one function.
type FuncPass = fn(&Func) -> Func;

/// The passes under test, by name.
fn passes() -> Vec<(&'static str, FuncPass)> {
    vec![
        ("fold", |f| {
            f.map_body(|b| ConstantFolder::new().fold_stmt(b))
        }),
        ("simplify", |f| Simplify::default().run_func(f)),
        ("unroll", |f| {
            Unroll::new(UnrollConfig {
                max_step: 16,
                max_extent: 4,
                ..UnrollConfig::default()
            })
            .run_func(f)
        }),
        ("substitute", |f| {
            // Every variable and tensor renamed to a fresh one, parameters
            // included: at definitions and uses alike, so the program means
            // the same.
            struct Defs(Substitute);
            impl ExprVisitor for Defs {
                fn visit_var_def(&mut self, v: &Node<Var>) {
                    let fresh = var_of(&format!("{}_r", v.name), v.dtype);
                    self.0.insert_var(v, Expr::Var(fresh));
                }
                fn visit_tensor_def(&mut self, t: &Node<Tensor>) {
                    let mut fresh = (**t).clone();
                    fresh.name = format!("{}_r", t.name);
                    self.0.insert_tensor(t, Node::new(fresh));
                }
            }
            impl StmtVisitor for Defs {}
            let mut defs = Defs(Substitute::new());
            for p in &f.params {
                match p {
                    Expr::Var(v) => defs.visit_var_def(v),
                    Expr::Tensor(t) => defs.visit_tensor_def(t),
                    _ => {}
                }
            }
            defs.visit_stmt(&f.body);
            defs.0.apply_func(f)
        }),
        ("mark-unroll, fold, unroll", |f| {
            let f = f.map_body(|b| passes::MarkUnroll { max_extent: 3 }.run(b));
            let f = f.map_body(|b| ConstantFolder::new().fold_stmt(b));
            Unroll::new(UnrollConfig::default()).run_func(&f)
        }),
        ("unroll, fold, simplify", |f| {
            let f = Unroll::new(UnrollConfig {
                max_step: 64,
                max_extent: 6,
                ..UnrollConfig::default()
            })
            .run_func(f);
            let f = f.map_body(|b| ConstantFolder::new().fold_stmt(b));
            Simplify::default().run_func(&f)
        }),
    ]
}

/// Every definition site (loop variables, `var`, `tensor`) is defined once.
fn defined_once(f: &Func) -> Result<(), String> {
    struct Defs(std::collections::HashSet<usize>, Option<String>);
    impl ExprVisitor for Defs {
        fn visit_var_def(&mut self, v: &Node<Var>) {
            if !self.0.insert(v.addr()) {
                self.1
                    .get_or_insert_with(|| format!("`{}` is defined twice", v.name));
            }
        }
        fn visit_tensor_def(&mut self, t: &Node<Tensor>) {
            if !self.0.insert(t.addr()) {
                self.1
                    .get_or_insert_with(|| format!("tensor `{}` is defined twice", t.name));
            }
        }
    }
    impl StmtVisitor for Defs {}
    let mut d = Defs(Default::default(), None);
    d.visit_stmt(&f.body);
    d.1.map_or(Ok(()), Err)
}

/// 192 cases in the test suite; `PROPTEST_CASES` asks for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(192)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn passes_preserve_what_the_program_computes(ops in prop::collection::vec(op(), 1..30)) {
        let module = build(&ops);
        let main = module.get("main").unwrap();
        prop_assert!(defined_once(main).is_ok());
        for n in [-3, 0, 2, 5] {
            let Ok(want) = run(&module, n) else { continue };
            for (name, pass) in passes() {
                let out = map_main(&module, pass);
                let text = || format!("{}\n=>\n{}", print_func(main), print_func(out.get("main").unwrap()));
                prop_assert!(defined_once(out.get("main").unwrap()).is_ok(), "{} defines twice:\n{}", name, text());
                let got = run(&out, n);
                prop_assert_eq!(got.as_ref(), Ok(&want), "{} changed the result for n = {}:\n{}", name, n, text());
            }
        }
    }

    #[test]
    fn folding_reaches_a_fixed_point(ops in prop::collection::vec(op(), 1..30)) {
        let main = build(&ops).get("main").unwrap().clone();
        let once = main.map_body(|b| ConstantFolder::new().fold_stmt(b));
        let twice = once.map_body(|b| ConstantFolder::new().fold_stmt(b));
        prop_assert!(twice.body.same_as(&once.body), "{}\n=>\n{}\n=>\n{}", print_func(&main), print_func(&once), print_func(&twice));
    }

    #[test]
    fn printing_then_parsing_round_trips(ops in prop::collection::vec(op(), 1..30)) {
        let module = build(&ops);
        let text = print_module(&module);
        let parsed = parse_module(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(print_module(&parsed), text.clone());
        for (name, f) in module.functions() {
            prop_assert!(structural_eq_map_free_vars(f, parsed.get(name).unwrap()), "{}", text);
        }
    }
}

/// The generator makes what the module docs say it makes: among a few
/// hundred programs, views of `A`, 64-bit arithmetic, loops and calls.
#[test]
fn the_generator_covers_views_casts_loops_and_calls() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = prop::collection::vec(op(), 1..30);
    let texts: Vec<String> = (0..300)
        .map(|_| {
            let ops = strategy.new_tree(&mut runner).unwrap().current();
            print_func(build(&ops).get("main").unwrap())
        })
        .collect();
    for needle in ["= &A[", "s64", "for ", "twice(", "put(", "tensor T"] {
        let n = texts.iter().filter(|t| t.contains(needle)).count();
        assert!(n >= 10, "`{needle}` in only {n} of 300 programs");
    }
}
