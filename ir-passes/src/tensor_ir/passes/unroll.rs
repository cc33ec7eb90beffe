//! Loop unrolling by a step limit, TVM's `UnrollLoop`: loops marked
//! `unroll`, and serial loops with a constant trip count whose unrolled body
//! stays within the limits, are replaced by one copy of their body per
//! iteration. Each copy gets fresh definitions, so no variable or tensor is
//! defined twice.
//!
//! Loops are processed inner first. For each loop the pass knows, from its
//! already processed body: `steps`, the number of assignments and evaluates
//! the body runs (an unrolled loop multiplies it by its trip count);
//! `unroll_depth`, the depth of unrolled loops inside; `normal_depth`, the
//! number of loops inside that stay loops. A serial loop with trip count `T`
//! is unrolled automatically when no loop inside stays a loop, the unrolled
//! depth is within `max_depth`, and `T * steps <= max_step` or
//! `T <= max_extent`.
//!
//! A statement whose attribute [`MAX_STEP_ATTR`] is set uses that step
//! limit for the loops below it (TVM's `pragma_auto_unroll_max_step`).
//!
//! Unlike TVM, an expansion never produces more than [`MAX_EXPANSION`]
//! statements, whatever the marks and limits say: a loop that would is left
//! a loop (TVM would exhaust memory on `for i in (0, 1000000000, 1) unroll`).

use ir_core::{Node, Rebuild, ReplaceMap, Transformed};

use crate::tensor_ir::attrs::AttrValue;
use crate::tensor_ir::build::stmts;
use crate::tensor_ir::expr::{Expr, ExprMutator, Tensor, Var};
use crate::tensor_ir::passes::trip_count::{nth_value, trip_count};
use crate::tensor_ir::stmt::{
    Assign, Define, DefineTensor, Evaluate, ForKind, ForLoop, Func, Return, Stmt, StmtMutator,
    Stmts,
};

/// The loop attribute that asks for unrolling (`Bool(true)`), as the
/// `unroll` kind does: set by a pass that knows a loop is worth it, read here
/// after whatever rewrites ran in between.
pub const UNROLL_ATTR: &str = "unroll";

/// The statement attribute that sets `max_step` for the statements below it
/// (TVM's `pragma_auto_unroll_max_step` scope), an `Int`.
pub const MAX_STEP_ATTR: &str = "pragma_auto_unroll_max_step";

/// The most statements one expansion may produce.
pub const MAX_EXPANSION: u64 = 1 << 16;

/// When to unroll (TVM's `tir.UnrollLoop` configuration, same defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnrollConfig {
    /// Unroll a serial loop whose unrolled body runs at most this many
    /// assignments and evaluates.
    pub max_step: u64,
    /// Never unroll automatically above this many nested unrolled loops.
    pub max_depth: u32,
    /// Unroll a serial loop of at most this many iterations; with `1`, loops
    /// of one iteration are always replaced by their body.
    pub max_extent: u64,
    /// Expand the loops chosen for unrolling; when `false`, mark them
    /// `unroll` and leave the expansion to a later stage.
    pub explicit: bool,
}

impl Default for UnrollConfig {
    fn default() -> Self {
        UnrollConfig {
            max_step: 0,
            max_depth: 8,
            max_extent: 0,
            explicit: true,
        }
    }
}

/// What the pass knows about the statements processed so far in a scope.
#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    /// Assignments and evaluates run.
    steps: u64,
    /// Statements of any kind produced (bounds expansion).
    size: u64,
    unroll_depth: u32,
    normal_depth: u32,
}

impl Counters {
    /// After one more element of a sequence.
    fn then(self, next: Counters) -> Counters {
        Counters {
            steps: self.steps.saturating_add(next.steps),
            size: self.size.saturating_add(next.size),
            unroll_depth: self.unroll_depth.max(next.unroll_depth),
            normal_depth: self.normal_depth.max(next.normal_depth),
        }
    }
}

/// The unrolling pass.
///
/// ```
/// use ir_passes::tensor_ir::parse_stmt;
/// use ir_passes::tensor_ir::passes::{Unroll, UnrollConfig};
///
/// let s = parse_stmt("{ tensor A: [s32 * 3]  for i in (0, 3, 1) unroll { A[i] = i } }").unwrap();
/// let out = Unroll::new(UnrollConfig::default()).run(&s);
/// assert_eq!(
///     out.to_string(),
///     "{\n  tensor A: [s32 * 3]\n  A[0] = 0\n  A[1] = 1\n  A[2] = 2\n}"
/// );
/// ```
#[derive(Debug, Clone)]
pub struct Unroll {
    config: UnrollConfig,
    counters: Counters,
}

impl Unroll {
    /// The pass with `config`.
    pub fn new(config: UnrollConfig) -> Self {
        Unroll {
            config,
            counters: Counters::default(),
        }
    }

    /// Unrolls in a statement; the very same statement when nothing unrolls.
    pub fn run(&mut self, s: &Stmt) -> Stmt {
        self.counters = Counters::default();
        self.mutate_stmt(s).unwrap_or_clone(s)
    }

    /// Unrolls in a function's body.
    pub fn run_func(&mut self, f: &Func) -> Func {
        f.map_body(|body| self.run(body))
    }

    /// One statement that runs (or produces) once.
    fn leaf<T>(&mut self, counts_as_step: bool) -> Transformed<T> {
        self.counters.size = self.counters.size.saturating_add(1);
        if counts_as_step {
            self.counters.steps = self.counters.steps.saturating_add(1);
        }
        Transformed::Keep
    }

    /// `trips` copies of the loop's body, each with its own definitions.
    fn expand(&self, l: &ForLoop, trips: u64) -> Stmt {
        let mut seq = Vec::new();
        for k in 0..trips {
            let mut copy = FreshCopy {
                loop_var: l.var.clone(),
                value: nth_value(l, k),
                vars: ReplaceMap::new(),
                tensors: ReplaceMap::new(),
            };
            let body = copy.mutate_stmt(&l.body).unwrap_or_clone(&l.body);
            match body {
                Stmt::Stmts(block) => seq.extend(block.seq.iter().cloned()),
                other => seq.push(other),
            }
        }
        stmts(seq)
    }
}

impl ExprMutator for Unroll {
    // Expressions hold no loops: nothing to do below a statement's operands.
    fn mutate_expr(&mut self, _: &Expr) -> Transformed<Expr> {
        Transformed::Keep
    }
    fn mutate_var_def(&mut self, _: &Node<Var>) -> Transformed<Node<Var>> {
        Transformed::Keep
    }
    fn mutate_tensor_def(&mut self, _: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        Transformed::Keep
    }
}

impl StmtMutator for Unroll {
    fn mutate_stmt(&mut self, s: &Stmt) -> Transformed<Stmt> {
        // A scope with a step limit of its own.
        match s.attrs().get(MAX_STEP_ATTR) {
            Some(&AttrValue::Int(limit)) => {
                let outer = self.config.max_step;
                self.config.max_step = u64::try_from(limit).unwrap_or(0);
                let out = s.rebuild(self);
                self.config.max_step = outer;
                out
            }
            _ => s.rebuild(self),
        }
    }

    fn mutate_assign(&mut self, _: &Node<Assign>) -> Transformed<Stmt> {
        self.leaf(true)
    }

    fn mutate_evaluate(&mut self, _: &Node<Evaluate>) -> Transformed<Stmt> {
        self.leaf(true)
    }

    fn mutate_define(&mut self, _: &Node<Define>) -> Transformed<Stmt> {
        self.leaf(false)
    }

    fn mutate_define_tensor(&mut self, _: &Node<DefineTensor>) -> Transformed<Stmt> {
        self.leaf(false)
    }

    fn mutate_return(&mut self, _: &Node<Return>) -> Transformed<Stmt> {
        self.leaf(false)
    }

    fn mutate_stmts(&mut self, s: &Node<Stmts>) -> Transformed<Stmt> {
        // Each element starts from zero; steps add up, depths take the max.
        let mut acc = self.counters;
        let mut seq: Option<Vec<Stmt>> = None;
        for (i, st) in s.seq.iter().enumerate() {
            self.counters = Counters::default();
            let outcome = self.mutate_stmt(st);
            acc = acc.then(self.counters);
            match outcome {
                Transformed::Keep => {
                    if let Some(seq) = &mut seq {
                        seq.push(st.clone());
                    }
                }
                Transformed::Replace(new) => {
                    let seq = seq.get_or_insert_with(|| s.seq[..i].to_vec());
                    // An expanded loop's copies join the enclosing block.
                    match (st, new) {
                        (Stmt::ForLoop(_), Stmt::Stmts(copies)) => {
                            seq.extend(copies.seq.iter().cloned())
                        }
                        (_, new) => seq.push(new),
                    }
                }
            }
        }
        self.counters = acc;
        match seq {
            None => Transformed::Keep,
            Some(seq) => Transformed::Replace(Stmt::Stmts(Node::new(Stmts {
                seq,
                attrs: s.attrs.clone(),
            }))),
        }
    }

    fn mutate_for_loop(&mut self, l: &Node<ForLoop>) -> Transformed<Stmt> {
        let rebuilt = l.rebuild_fields(self);
        let current = rebuilt.as_ref_or(l);
        let config = self.config;
        let trips = trip_count(current);
        let c = &mut self.counters;
        let fits = |t: u64, c: &Counters| t.saturating_mul(c.size.max(1)) <= MAX_EXPANSION;
        // An earlier pass may have asked for unrolling through the attribute.
        let kind = match current.attrs.get(UNROLL_ATTR) {
            Some(AttrValue::Bool(true)) => ForKind::Unroll,
            _ => current.kind,
        };
        let auto = match (kind, trips) {
            (ForKind::Unroll, Some(t)) => fits(t, c),
            (ForKind::Serial, Some(t)) => {
                c.normal_depth == 0
                    && c.unroll_depth <= config.max_depth
                    && (t.saturating_mul(c.steps) <= config.max_step || t <= config.max_extent)
                    && fits(t, c)
            }
            _ => false,
        };
        match trips {
            Some(t) if auto => {
                c.steps = c.steps.saturating_mul(t);
                c.size = c.size.saturating_mul(t);
                c.unroll_depth += 1;
            }
            _ => c.normal_depth += 1,
        }
        let one_trip_rule = config.max_extent == 1 && trips.is_some_and(|t| t <= 1);
        if let Some(t) = trips
            && ((auto && config.explicit) || one_trip_rule)
        {
            return Transformed::Replace(self.expand(current, t));
        }
        if auto && kind != ForKind::Unroll {
            let mut marked = current.clone();
            marked.kind = ForKind::Unroll;
            return Transformed::Replace(marked.into());
        }
        rebuilt.map(Stmt::from)
    }
}

/// One copy of an unrolled body: the loop variable replaced by its value,
/// every variable and tensor defined inside replaced by a fresh one.
struct FreshCopy {
    loop_var: Node<Var>,
    value: Expr,
    vars: ReplaceMap<Var>,
    tensors: ReplaceMap<Tensor>,
}

impl ExprMutator for FreshCopy {
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        if v.same_as(&self.loop_var) {
            return Transformed::Replace(self.value.clone());
        }
        self.vars.at_use(v).map(Expr::Var)
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        self.vars
            .record(v, Transformed::Replace(Node::new((**v).clone())))
    }

    fn mutate_tensor(&mut self, t: &Node<Tensor>) -> Transformed<Expr> {
        self.tensors.at_use(t).map(Expr::Tensor)
    }

    fn mutate_tensor_def(&mut self, t: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        // Its dims may use the loop variable; either way it is a new tensor.
        let fresh = match t.rebuild_fields(self) {
            Transformed::Replace(contents) => Node::new(contents),
            Transformed::Keep => Node::new((**t).clone()),
        };
        self.tensors.record(t, Transformed::Replace(fresh))
    }
}

impl StmtMutator for FreshCopy {}
