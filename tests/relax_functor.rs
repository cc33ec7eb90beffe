//! Relax's visitor and normalizing mutator, after TVM's
//! `test_expr_functor.py` (case ids from `relax-tir-specs.md`, section 1),
//! and the variable-remap regressions (section 4).

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use ir_passes::relax::mutator;
use ir_passes::relax::{
    Binding, BindingBlock, BlockBuilder, Call, Constant, DataType, Expr, ExprMutator, ExprVisitor,
    ExternFunc, Function, GlobalVar, If, MutatorState, Op, PrimExpr, PrimExprMutator,
    PrimExprVisitor, SeqExpr, ShapeExpr, StructInfo, StructInfoMutator, StructInfoVisitor, Tuple,
    TupleGetItem, Var, run_mutator,
};
use irkit::prelude::*;
use pretty_assertions::assert_eq;

/// `m, n`; `x: Tensor((n,), f32)`, `y: Tensor((m, n), f32)`.
struct Fixtures {
    x: Node<Var>,
    y: Node<Var>,
    m: PrimExpr,
    n: PrimExpr,
}

fn fixtures() -> Fixtures {
    let (m, n): (PrimExpr, PrimExpr) = (PrimExpr::var("m").into(), PrimExpr::var("n").into());
    Fixtures {
        x: Var::new("x", StructInfo::tensor(vec![n.clone()], DataType::F32)),
        y: Var::new(
            "y",
            StructInfo::tensor(vec![m.clone(), n.clone()], DataType::F32),
        ),
        m,
        n,
    }
}

fn var(v: &Node<Var>) -> Expr {
    Expr::Var(v.clone())
}

/// Logs every hook, pre-order, indented by depth (TVM's `ASTPrinter`).
#[derive(Default)]
struct AstPrinter {
    log: Vec<String>,
    depth: usize,
}

impl AstPrinter {
    fn enter(&mut self, name: &str, walk: impl FnOnce(&mut Self)) {
        self.log.push(format!("{}{name}", "\t".repeat(self.depth)));
        self.depth += 1;
        walk(self);
        self.depth -= 1;
    }

    fn of(e: &Expr) -> String {
        let mut p = AstPrinter::default();
        p.visit_expr(e);
        p.log.join("\n")
    }
}

impl PrimExprVisitor for AstPrinter {}
impl StructInfoVisitor for AstPrinter {}

impl ExprVisitor for AstPrinter {
    fn visit_constant(&mut self, _: &Node<Constant>) {
        self.enter("Constant", |_| {});
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        self.enter(if v.dataflow { "DataflowVar" } else { "Var" }, |_| {});
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.enter(
            if v.dataflow {
                "DataflowVarDef"
            } else {
                "VarDef"
            },
            |_| {},
        );
    }
    fn visit_shape_expr(&mut self, _: &Node<ShapeExpr>) {
        self.enter("ShapeExpr", |_| {});
    }
    fn visit_extern_func(&mut self, _: &Node<ExternFunc>) {
        self.enter("ExternFunc", |_| {});
    }
    fn visit_global_var(&mut self, _: &Node<GlobalVar>) {
        self.enter("GlobalVar", |_| {});
    }
    fn visit_op(&mut self, _: &Node<Op>) {
        self.enter("Op", |_| {});
    }
    fn visit_tuple(&mut self, t: &Node<Tuple>) {
        self.enter("Tuple", |p| t.walk(p));
    }
    fn visit_tuple_get_item(&mut self, t: &Node<TupleGetItem>) {
        self.enter("TupleGetItem", |p| t.walk(p));
    }
    fn visit_call(&mut self, c: &Node<Call>) {
        // The op, then the arguments (struct info arguments are not logged).
        self.enter("Call", |p| {
            p.visit_expr(c.op());
            c.args().iter().for_each(|a| p.visit_expr(a));
        });
    }
    fn visit_if(&mut self, i: &Node<If>) {
        self.enter("If", |p| i.walk(p));
    }
    fn visit_seq_expr(&mut self, s: &Node<SeqExpr>) {
        self.enter("SeqExpr", |p| s.walk(p));
    }
    fn visit_function(&mut self, f: &Node<Function>) {
        // Parameters, then the body.
        self.enter("Function", |p| {
            f.params.iter().for_each(|v| p.visit_var_def(v));
            p.visit_seq_expr(&f.body);
        });
    }
    fn visit_binding_block(&mut self, b: &Node<BindingBlock>) {
        self.enter(
            if b.dataflow {
                "DataflowBlock"
            } else {
                "BindingBlock"
            },
            |p| b.walk(p),
        );
    }
    fn visit_binding(&mut self, b: &Node<Binding>) {
        match &b.cast {
            // As TVM's test overrides it: the definition, then the value.
            Some(_) => self.enter("MatchCast", |p| {
                p.visit_var_def(&b.var);
                p.visit_expr(&b.value);
            }),
            None => self.enter("VarBinding", |p| {
                p.visit_expr(&b.value);
                p.visit_var_def(&b.var);
            }),
        }
    }
}

/// Logs every hook after the default mutation of the node's children
/// (TVM's `ASTPostPrinterMutator`), and must change nothing.
#[derive(Default)]
struct PostPrinter {
    state: MutatorState,
    log: Vec<&'static str>,
}

impl PostPrinter {
    fn of(e: &Expr) -> String {
        let mut p = PostPrinter::default();
        p.state.builder.begin_binding_block().unwrap();
        let out = p.mutate_expr(e);
        assert!(out.is_keep(), "the default mutator changes nothing");
        assert!(p.state.error.is_none());
        p.log.join("\n")
    }

    fn after<T>(&mut self, name: &'static str, result: T) -> T {
        self.log.push(name);
        result
    }
}

impl PrimExprMutator for PostPrinter {}
impl StructInfoMutator for PostPrinter {}

impl ExprMutator for PostPrinter {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }
    fn mutate_constant(&mut self, c: &Node<Constant>) -> Transformed<Expr> {
        let r = c.rebuild(self).into();
        self.after("Constant", r)
    }
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        let r = mutator::var_use(self, v);
        self.after(if v.dataflow { "DataflowVar" } else { "Var" }, r)
    }
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        let r = mutator::var_def(self, v);
        self.after("VarDef", r)
    }
    fn mutate_shape_expr(&mut self, s: &Node<ShapeExpr>) -> Transformed<Expr> {
        let r = s.rebuild(self).into();
        self.after("ShapeExpr", r)
    }
    fn mutate_op(&mut self, o: &Node<Op>) -> Transformed<Expr> {
        let r = o.rebuild(self).into();
        self.after("Op", r)
    }
    fn mutate_tuple(&mut self, t: &Node<Tuple>) -> Transformed<Expr> {
        let r = t.rebuild(self).into();
        self.after("Tuple", r)
    }
    fn mutate_tuple_get_item(&mut self, t: &Node<TupleGetItem>) -> Transformed<Expr> {
        let r = t.rebuild(self).into();
        self.after("TupleGetItem", r)
    }
    fn mutate_call(&mut self, c: &Node<Call>) -> Transformed<Expr> {
        let r = c.rebuild(self).into();
        self.after("Call", r)
    }
    fn mutate_extern_func(&mut self, e: &Node<ExternFunc>) -> Transformed<Expr> {
        let r = e.rebuild(self).into();
        self.after("ExternFunc", r)
    }
    fn mutate_global_var(&mut self, g: &Node<GlobalVar>) -> Transformed<Expr> {
        let r = g.rebuild(self).into();
        self.after("GlobalVar", r)
    }
    fn mutate_if(&mut self, i: &Node<If>) -> Transformed<Expr> {
        let r = mutator::if_(self, i);
        self.after("If", r)
    }
    fn mutate_seq_expr(&mut self, s: &Node<SeqExpr>) -> Transformed<Expr> {
        let r = mutator::seq_expr(self, s);
        self.after("SeqExpr", r)
    }
    fn mutate_function(&mut self, f: &Node<Function>) -> Transformed<Expr> {
        let r = mutator::function(self, f);
        self.after("Function", r)
    }
    fn mutate_binding_block(&mut self, b: &Node<BindingBlock>) -> Transformed<Expr> {
        let r = mutator::binding_block(self, b);
        self.after(
            if b.dataflow {
                "DataflowBlock"
            } else {
                "BindingBlock"
            },
            r,
        )
    }
    fn mutate_binding(&mut self, b: &Node<Binding>) -> Transformed<Expr> {
        let r = mutator::binding(self, b);
        self.after(
            if b.cast.is_some() {
                "MatchCast"
            } else {
                "VarBinding"
            },
            r,
        )
    }
}

fn lines(s: &str) -> String {
    s.trim()
        .lines()
        .map(|l| l.trim_start_matches(' '))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `x = R.const(1); x` as a sequence with one block.
fn seq_of_one_binding(x: &Node<Var>) -> Node<SeqExpr> {
    let block = Node::new(BindingBlock {
        bindings: vec![Node::new(Binding {
            value: Expr::scalar(1.0, DataType::F32),
            cast: None,
            var: x.clone(),
        })],
        dataflow: false,
    });
    Expr::seq(vec![block], var(x))
}

#[test]
fn ef_01_to_03_leaves() {
    let f = fixtures();
    assert_eq!(
        AstPrinter::of(&Expr::scalar(1.0, DataType::F32)),
        "Constant"
    );
    assert_eq!(
        PostPrinter::of(&Expr::scalar(1.0, DataType::F32)),
        "Constant"
    );
    assert_eq!(AstPrinter::of(&var(&f.x)), "Var");
    let lv = Var::dataflow("lv", StructInfo::tensor(vec![f.n.clone()], DataType::F32));
    assert_eq!(AstPrinter::of(&var(&lv)), "DataflowVar");
    assert_eq!(PostPrinter::of(&var(&lv)), "DataflowVar");
}

#[test]
fn ef_04_tuple() {
    let f = fixtures();
    let t = Expr::tuple(vec![var(&f.x), var(&f.y)]);
    assert_eq!(AstPrinter::of(&t), lines("Tuple\n\tVar\n\tVar"));
    assert_eq!(PostPrinter::of(&t), lines("Var\nVar\nTuple"));
}

#[test]
fn ef_05_seq_expr() {
    let f = fixtures();
    let s = Expr::SeqExpr(seq_of_one_binding(&f.x));
    assert_eq!(
        AstPrinter::of(&s),
        "SeqExpr\n\tBindingBlock\n\t\tVarBinding\n\t\t\tConstant\n\t\t\tVarDef\n\tVar"
    );
    assert_eq!(
        PostPrinter::of(&s),
        lines("Constant\nVarDef\nVarBinding\nBindingBlock\nVar\nSeqExpr")
    );
}

#[test]
fn ef_06_shape_expr() {
    let f = fixtures();
    let s = Expr::shape(vec![f.m.clone(), f.n.clone()]);
    assert_eq!(AstPrinter::of(&s), "ShapeExpr");
    assert_eq!(PostPrinter::of(&s), "ShapeExpr");
}

/// EF-07. TVM 0.18's mutator also visits the call's inferred shape
/// (`Op, Var, Var, ShapeExpr, Call`): here struct info is derived, not a
/// stored field, so there is nothing to visit.
#[test]
fn ef_07_call() {
    let f = fixtures();
    let c = Expr::call_op("add", vec![var(&f.x), var(&f.y)]);
    assert_eq!(AstPrinter::of(&c), "Call\n\tOp\n\tVar\n\tVar");
    assert_eq!(PostPrinter::of(&c), lines("Op\nVar\nVar\nCall"));
}

#[test]
fn ef_08_if() {
    let f = fixtures();
    let i = Expr::if_(var(&f.x), var(&f.x), var(&f.x));
    assert_eq!(
        AstPrinter::of(&i),
        "If\n\tVar\n\tSeqExpr\n\t\tVar\n\tSeqExpr\n\t\tVar"
    );
    assert_eq!(
        PostPrinter::of(&i),
        lines("Var\nVar\nSeqExpr\nVar\nSeqExpr\nIf")
    );
}

#[test]
fn ef_09_tuple_get_item() {
    let f = fixtures();
    let t = Expr::get_item(Expr::tuple(vec![var(&f.x), var(&f.y)]), 0);
    assert_eq!(
        AstPrinter::of(&t),
        "TupleGetItem\n\tTuple\n\t\tVar\n\t\tVar"
    );
    assert_eq!(PostPrinter::of(&t), lines("Var\nVar\nTuple\nTupleGetItem"));
}

/// EF-10 and EF-11: a block built by the builder; in a dataflow block both
/// the emit and the match_cast define dataflow variables.
#[test]
fn ef_10_and_11_blocks() {
    for dataflow in [false, true] {
        let f = fixtures();
        let mut bb = BlockBuilder::new();
        if dataflow {
            bb.begin_dataflow_block().unwrap();
        } else {
            bb.begin_binding_block().unwrap();
        }
        bb.emit(Expr::call_op("add", vec![var(&f.x), var(&f.y)]), "")
            .unwrap();
        let target = StructInfo::tensor(vec![f.m.clone(), f.n.clone()], DataType::F32);
        bb.emit_match_cast(var(&f.y), target, "").unwrap();
        let block = Expr::BindingBlock(bb.end_block().unwrap());
        let (kind, def) = if dataflow {
            ("DataflowBlock", "DataflowVarDef")
        } else {
            ("BindingBlock", "VarDef")
        };
        assert_eq!(
            AstPrinter::of(&block),
            format!(
                "{kind}\n\tVarBinding\n\t\tCall\n\t\t\tOp\n\t\t\tVar\n\t\t\tVar\n\t\t{def}\n\tMatchCast\n\t\t{def}\n\t\tVar"
            )
        );
    }
}

#[test]
fn ef_12_function() {
    let f = fixtures();
    let func: Expr = Function {
        params: vec![f.x.clone()],
        body: seq_of_one_binding(&f.x),
        ret_sinfo: StructInfo::tensor(vec![f.n.clone()], DataType::F32),
        pure: true,
        private: false,
        attrs: Vec::new(),
    }
    .into();
    assert_eq!(
        AstPrinter::of(&func),
        "Function\n\tVarDef\n\tSeqExpr\n\t\tBindingBlock\n\t\t\tVarBinding\n\t\t\t\tConstant\n\t\t\t\tVarDef\n\t\tVar"
    );
    assert_eq!(
        PostPrinter::of(&func),
        lines("VarDef\nConstant\nVarDef\nVarBinding\nBindingBlock\nVar\nSeqExpr\nFunction")
    );
}

/// A pass that overrides nothing.
#[derive(Default)]
struct Identity(MutatorState);

impl PrimExprMutator for Identity {}
impl StructInfoMutator for Identity {}
impl ExprMutator for Identity {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.0
    }
}

/// `main(x, y)`: a dataflow block of `n` additions chained on `x`.
fn chain(n: usize) -> Node<Function> {
    let f = fixtures();
    let mut bb = BlockBuilder::new();
    bb.begin_function("main", vec![f.y.clone()]).unwrap();
    bb.begin_dataflow_block().unwrap();
    let mut last = f.y.clone();
    for _ in 0..n {
        last = bb
            .emit(Expr::call_op("add", vec![var(&last), var(&f.y)]), "")
            .unwrap();
    }
    let out = bb.emit_output(var(&last), "").unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(var(&out)).unwrap();
    bb.finalize().unwrap().get("main").unwrap().clone()
}

/// The empty mutator returns the very same function, and once its builder
/// is warm it allocates nothing.
#[test]
fn the_empty_mutator_keeps_every_handle_and_allocates_nothing_when_warm() {
    let func = Expr::Function(chain(1000));
    let mut pass = Identity::default();
    assert!(pass.mutate_expr(&func).is_keep());
    let (result, allocations) = counting_alloc::allocations_during(|| pass.mutate_expr(&func));
    assert!(result.is_keep());
    assert_eq!(allocations, 0);
    assert!(run_mutator(&mut pass, &func).unwrap().same_as(&func));
}

/// EF-16: a parameter replaced at its definition is remapped at every use,
/// the body re-normalized, and the declared result re-derived because the
/// old one no longer holds.
#[test]
fn ef_16_a_replaced_parameter_changes_the_body_and_the_result() {
    let t = |a: i64, b: i64| StructInfo::tensor(vec![a.into(), b.into()], DataType::F32);
    let a = Var::new("A", t(16, 32));
    let b = Var::new("B", t(32, 64));
    let mut bb = BlockBuilder::new();
    bb.begin_function("before", vec![a.clone(), b.clone()])
        .unwrap();
    bb.begin_binding_block().unwrap();
    let gv = bb
        .emit(Expr::call_op("matmul", vec![var(&a), var(&b)]), "")
        .unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(var(&gv)).unwrap();
    let before = Expr::Function(bb.finalize().unwrap().get("before").unwrap().clone());

    #[derive(Default)]
    struct NewShape(MutatorState);
    impl PrimExprMutator for NewShape {}
    impl StructInfoMutator for NewShape {}
    impl ExprMutator for NewShape {
        fn mutator_state(&mut self) -> &mut MutatorState {
            &mut self.0
        }
        fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
            if v.name == "A" {
                let t = StructInfo::tensor(vec![1.into(), 32.into()], DataType::F32);
                Transformed::Replace(Var::new("A_with_new_shape", t))
            } else {
                Transformed::Keep
            }
        }
    }
    let after = run_mutator(&mut NewShape::default(), &before).unwrap();
    let Expr::Function(func) = &after else {
        panic!("a function")
    };
    let shape = |s: &StructInfo| -> Vec<String> {
        s.tensor_parts()
            .unwrap()
            .shape
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect()
    };
    assert_eq!(shape(&func.params[0].sinfo), vec!["1", "32"]);
    assert_eq!(shape(&func.ret_sinfo), vec!["1", "64"]);
    let binding = &func.body.blocks[0].bindings[0];
    assert_eq!(shape(&binding.var.sinfo), vec!["1", "64"]);
    let Expr::Call(call) = &binding.value else {
        panic!("a call")
    };
    assert!(matches!(&call.args()[0], Expr::Var(v) if v.same_as(&func.params[0])));
    // The result is the re-typed variable, not the stale one.
    assert!(matches!(&func.body.body, Expr::Var(v) if v.same_as(&binding.var)));
}

/// REG-01 (TVM #16367): a pass replaces `D` by `E` at its definition while
/// the value's type changes, so the base mutator re-emits a fresh `E2`:
/// uses of `D`, and of the `E` the pass produced, both mean `E2`.
#[test]
fn reg_01_uses_of_the_old_and_of_the_visited_variable_mean_the_final_one() {
    let n: PrimExpr = PrimExpr::var("n").into();
    let a = Var::new(
        "A",
        StructInfo::tensor(vec![n.clone(), 4.into()], DataType::F32),
    );
    let loose = StructInfo::tensor_ndim(2, DataType::F32);
    let c = Var::new("C", a.sinfo.clone());
    let d = Var::new("D", loose.clone());
    let bind = |var: &Node<Var>, value: Expr| {
        Node::new(Binding {
            value,
            cast: None,
            var: var.clone(),
        })
    };
    let f_var = Var::new("F", loose.clone());
    let block = Node::new(BindingBlock {
        bindings: vec![
            bind(&c, var(&a)),
            bind(&d, Expr::call_op("add", vec![var(&c), var(&c)])),
            bind(&f_var, Expr::call_op("add", vec![var(&d), var(&d)])),
        ],
        dataflow: false,
    });
    let func: Expr = Function {
        params: vec![a.clone()],
        body: Expr::seq(vec![block], var(&f_var)),
        ret_sinfo: loose.clone(),
        pure: true,
        private: false,
        attrs: Vec::new(),
    }
    .into();

    /// Uses of `C` become `A`; `D` is renamed `E` at its definition.
    struct Canonicalize {
        state: MutatorState,
        c: Node<Var>,
        a: Node<Var>,
        e: Option<Node<Var>>,
    }
    impl PrimExprMutator for Canonicalize {}
    impl StructInfoMutator for Canonicalize {}
    impl ExprMutator for Canonicalize {
        fn mutator_state(&mut self) -> &mut MutatorState {
            &mut self.state
        }
        fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
            if v.same_as(&self.c) {
                return Transformed::Replace(Expr::Var(self.a.clone()));
            }
            mutator::var_use(self, v)
        }
        fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
            if v.name == "D" {
                let e = Var::new("E", v.sinfo.clone());
                self.e = Some(e.clone());
                return Transformed::Replace(e);
            }
            Transformed::Keep
        }
    }
    let mut pass = Canonicalize {
        state: MutatorState::default(),
        c: c.clone(),
        a: a.clone(),
        e: None,
    };
    let out = run_mutator(&mut pass, &func).unwrap();
    let Expr::Function(out) = &out else {
        panic!("a function")
    };
    let bindings = &out.body.blocks[0].bindings;
    let e2 = &bindings[1].var;
    assert_eq!(e2.name, "E");
    // The refined type: (n, 4), no longer ndim=2.
    assert_eq!(
        e2.sinfo
            .tensor_parts()
            .unwrap()
            .shape
            .as_ref()
            .map(Vec::len),
        Some(2)
    );
    let e = pass.e.clone().unwrap();
    assert!(!e2.same_as(&e), "a fresh variable for the new type");
    assert!(pass.state.remapped(&d).unwrap().same_as(e2));
    assert!(pass.state.remapped(&e).unwrap().same_as(e2));
    let Expr::Call(later) = &bindings[2].value else {
        panic!("a call")
    };
    assert!(matches!(&later.args()[0], Expr::Var(v) if v.same_as(e2)));
}

/// REG-02 (TVM #15688): there, a pass overriding only the `Var` hooks
/// missed dataflow variables, or turned their definitions into plain ones
/// through the default delegation. Here a dataflow variable is a `Var`: the
/// one use hook sees both kinds, and the one definition hook gets the
/// variable itself, so the kind is the pass's choice (`Var::with_name` keeps
/// it); the uses follow the definition either way.
#[test]
fn reg_02_a_dataflow_definition_stays_a_dataflow_variable() {
    let y = Var::new("y", StructInfo::tensor(vec![4.into()], DataType::F32));
    let mut bb = BlockBuilder::new();
    bb.begin_function("main", vec![y.clone()]).unwrap();
    bb.begin_dataflow_block().unwrap();
    let lv = bb.emit(Expr::call_op("exp", vec![var(&y)]), "").unwrap();
    let gv = bb.emit_output(var(&lv), "").unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(var(&gv)).unwrap();
    let func = Expr::Function(bb.finalize().unwrap().get("main").unwrap().clone());

    #[derive(Default)]
    struct Plain(MutatorState);
    impl PrimExprMutator for Plain {}
    impl StructInfoMutator for Plain {}
    impl ExprMutator for Plain {
        fn mutator_state(&mut self) -> &mut MutatorState {
            &mut self.0
        }
        fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
            Transformed::Replace(Var::with_name(v, &format!("{}_new", v.name)))
        }
    }
    let out = run_mutator(&mut Plain::default(), &func).unwrap();
    let Expr::Function(out) = &out else {
        panic!("a function")
    };
    let bindings = &out.body.blocks[0].bindings;
    assert!(bindings[0].var.dataflow, "lv stays a dataflow variable");
    assert!(!bindings[1].var.dataflow, "gv stays an output");
    // Its use in `gv = lv` follows it.
    assert!(matches!(&bindings[1].value, Expr::Var(v) if v.same_as(&bindings[0].var)));
}

/// A call's inferred struct info is remembered on the call (a derived
/// cache): a rebuild over an operand of other struct info infers it again,
/// whether copy-on-write or in place into the only handle.
#[test]
fn a_call_rebuilt_over_a_retyped_operand_is_inferred_again() {
    let tensor = |n: i64| StructInfo::tensor(vec![n.into()], DataType::F32);
    let (x, y) = (Var::new("x", tensor(4)), Var::new("y", tensor(8)));
    let bound = BlockBuilder::new()
        .normalize(Expr::call_op("negative", [var(&x)]))
        .unwrap();
    assert!(irkit::structural::structural_eq(
        &ir_passes::relax::sinfo_of(&bound).unwrap(),
        &tensor(4)
    ));

    #[derive(Default)]
    struct Retype(MutatorState);
    impl PrimExprMutator for Retype {}
    impl StructInfoMutator for Retype {}
    impl ExprMutator for Retype {
        fn mutator_state(&mut self) -> &mut MutatorState {
            &mut self.0
        }
    }
    let mut pass = Retype::default();
    pass.0.remap(&x, &y);
    let rebuilt = run_mutator(&mut pass, &bound).unwrap();
    assert!(irkit::structural::structural_eq(
        &ir_passes::relax::sinfo_of(&rebuilt).unwrap(),
        &tensor(8)
    ));

    let Expr::Call(mut call) = bound else {
        panic!("a call")
    };
    let before = call.addr();
    assert!(call.mutate_in_place(&mut pass));
    assert_eq!(call.addr(), before, "written in place");
    let call = Expr::Call(call);
    assert!(irkit::structural::structural_eq(
        &ir_passes::relax::sinfo_of(&call).unwrap(),
        &tensor(8)
    ));
}

/// A call's children in TVM's order: the callee, the arguments, then the
/// struct info arguments (kept out of line, walked as the call's own).
#[test]
fn a_call_walks_its_callee_then_its_arguments_then_its_struct_info_arguments() {
    #[derive(Default)]
    struct Log(Vec<&'static str>);
    impl PrimExprVisitor for Log {}
    impl StructInfoVisitor for Log {
        fn visit_tensor_struct_info(&mut self, t: &Node<ir_passes::relax::TensorStructInfo>) {
            self.0.push("TensorStructInfo");
            t.walk(self);
        }
    }
    impl ExprVisitor for Log {
        fn visit_op(&mut self, _: &Node<Op>) {
            self.0.push("Op");
        }
        fn visit_var(&mut self, _: &Node<Var>) {
            self.0.push("Var");
        }
    }
    let f = fixtures();
    let opaque = StructInfo::tensor(vec![f.n.clone()], DataType::F32);
    let call: Expr = Call::new(Expr::op("add"), [var(&f.x), var(&f.x)])
        .with_sinfo_args(vec![opaque])
        .into();
    let mut log = Log::default();
    log.visit_expr(&call);
    assert_eq!(log.0, ["Op", "Var", "Var", "TensorStructInfo"]);
}

/// EF-13. TVM skips the global variable's mutator half; here it runs too.
#[test]
fn ef_13_extern_func_and_global_var() {
    let extern_func: Expr = ExternFunc { name: "f".into() }.into();
    assert_eq!(AstPrinter::of(&extern_func), "ExternFunc");
    assert_eq!(PostPrinter::of(&extern_func), "ExternFunc");
    let global: Expr = GlobalVar {
        name: "gv".into(),
        sinfo: None,
    }
    .into();
    assert_eq!(AstPrinter::of(&global), "GlobalVar");
    assert_eq!(PostPrinter::of(&global), "GlobalVar");
}

/// TVM's `dummy` of EF-14 and EF-15: a plain block, then a dataflow block
/// that binds an output to a variable.
const DUMMY: &str = r#"
@I.ir_module
class Module:
    @R.function
    def dummy(x: R.Tensor((10, 10), dtype="float32")) -> R.Tensor((10, 10), dtype="float32"):
        lv: R.Tensor((10, 10), dtype="float32") = R.add(x, R.const(1, "float32"))
        with R.dataflow():
            gv: R.Tensor((10, 10), dtype="float32") = lv
            R.output(gv)
        return gv
"#;

fn dummy() -> Expr {
    let module = ir_passes::relax::parse_module(DUMMY).unwrap();
    Expr::Function(module.get("dummy").unwrap().clone())
}

/// What EF-14's and EF-15's visitors log for the dummy function (the
/// parameter's definition, then each block; constants, sequences and the
/// function itself are not logged).
const DUMMY_LOG: &str = "VarDef\nBindingBlock\nVarBinding\nLeafCall\nInternalCall\nOp\nVar\nVarDef\n\
                         DataflowBlock\nVarBinding\nVar\nVarDef\nVar";

/// EF-14's visitors: `Internal` logs some kinds before the default
/// traversal; `Leaf` overrides only calls, logs, then runs `Internal`'s hook
/// (TVM's `super()`).
#[derive(Default)]
struct InternalVisitor {
    log: Vec<&'static str>,
    leaf: bool,
}

impl InternalVisitor {
    fn internal_call(&mut self, c: &Node<Call>) {
        self.log.push("InternalCall");
        c.walk(self);
    }
}

impl PrimExprVisitor for InternalVisitor {}
impl StructInfoVisitor for InternalVisitor {}
impl ExprVisitor for InternalVisitor {
    fn visit_binding_block(&mut self, b: &Node<BindingBlock>) {
        self.log.push(if b.dataflow {
            "DataflowBlock"
        } else {
            "BindingBlock"
        });
        b.walk(self);
    }
    fn visit_binding(&mut self, b: &Node<Binding>) {
        self.log.push("VarBinding");
        b.walk(self);
    }
    fn visit_call(&mut self, c: &Node<Call>) {
        if self.leaf {
            self.log.push("LeafCall");
        }
        self.internal_call(c);
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.log.push(if v.dataflow {
            "DataflowVarDef"
        } else {
            "VarDef"
        });
    }
    fn visit_var(&mut self, _: &Node<Var>) {
        self.log.push("Var");
    }
    fn visit_op(&mut self, _: &Node<Op>) {
        self.log.push("Op");
    }
}

/// EF-14. A hook that calls the one it overrides runs before it, and the
/// default traversal follows.
#[test]
fn ef_14_a_visitor_hook_can_call_the_one_it_overrides() {
    let f = fixtures();
    let add = Expr::call_op("add", vec![var(&f.x), var(&f.y)]);
    let log = |leaf: bool, e: &Expr| {
        let mut v = InternalVisitor {
            leaf,
            ..Default::default()
        };
        v.visit_expr(e);
        v.log.join("\n")
    };
    assert_eq!(log(false, &add), lines("InternalCall\nOp\nVar\nVar"));
    assert_eq!(
        log(true, &add),
        lines("LeafCall\nInternalCall\nOp\nVar\nVar")
    );
    assert_eq!(log(true, &dummy()), lines(DUMMY_LOG));
}

/// EF-15's mutators: as EF-14's visitors, logging before the default
/// mutation; they change nothing.
#[derive(Default)]
struct InternalMutator {
    state: MutatorState,
    log: Vec<&'static str>,
    leaf: bool,
}

impl PrimExprMutator for InternalMutator {}
impl StructInfoMutator for InternalMutator {}
impl ExprMutator for InternalMutator {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }
    fn mutate_binding_block(&mut self, b: &Node<BindingBlock>) -> Transformed<Expr> {
        self.log.push(if b.dataflow {
            "DataflowBlock"
        } else {
            "BindingBlock"
        });
        mutator::binding_block(self, b)
    }
    fn mutate_binding(&mut self, b: &Node<Binding>) -> Transformed<Expr> {
        self.log.push("VarBinding");
        mutator::binding(self, b)
    }
    fn mutate_call(&mut self, c: &Node<Call>) -> Transformed<Expr> {
        if self.leaf {
            self.log.push("LeafCall");
        }
        self.log.push("InternalCall");
        c.rebuild(self).into()
    }
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        self.log.push(if v.dataflow {
            "DataflowVarDef"
        } else {
            "VarDef"
        });
        mutator::var_def(self, v)
    }
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.log.push("Var");
        mutator::var_use(self, v)
    }
    fn mutate_op(&mut self, o: &Node<Op>) -> Transformed<Expr> {
        self.log.push("Op");
        o.rebuild(self).into()
    }
}

/// EF-15. The same with mutators: the same logs, and the input comes back
/// as itself.
#[test]
fn ef_15_a_mutator_hook_can_call_the_one_it_overrides() {
    let f = fixtures();
    let add = Expr::call_op("add", vec![var(&f.x), var(&f.y)]);
    let log = |leaf: bool, e: &Expr| {
        let mut m = InternalMutator {
            leaf,
            ..Default::default()
        };
        let out = run_mutator(&mut m, e).unwrap();
        assert!(
            out.same_as(e),
            "an overriding hook that defers changes nothing"
        );
        m.log.join("\n")
    };
    assert_eq!(log(false, &add), lines("InternalCall\nOp\nVar\nVar"));
    assert_eq!(
        log(true, &add),
        lines("LeafCall\nInternalCall\nOp\nVar\nVar")
    );
    assert_eq!(log(true, &dummy()), lines(DUMMY_LOG));
}
