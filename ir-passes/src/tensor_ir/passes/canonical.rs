//! Canonical order of integer `+`/`-`, `*`, `min` and `max` chains, as the
//! oneDNN Graph Compiler's non-fast constant folder puts them
//! (`canonicalize_expressions_t`): a chain is flattened into its operands
//! (`-` keeps a sign per operand), the operands are sorted (constants last,
//! then by the loop depth of their variables, then by a content hash), the
//! constants of a `+` chain are summed, `+x`/`-x` pairs cancel, and the chain
//! is rebuilt left-nested: `((2 + a) + ((b + a) - (((a + b) - 10) - (a - b))))`
//! becomes `(((a - b) + a) + 12)`.
//!
//! The hash is oneDNN's own (names hashed with `h * 23 + c`, combined with
//! the type code and the node type by `hash_combine_stable`), so operands come
//! out in the order oneDNN's tests expect. It depends only on names, types,
//! constants and structure, never on addresses: a program folds the same way
//! every time. Floats are left in order (their `+` does not associate).

use ir_core::structural::structural_eq;
use ir_core::{Family, IdMap, Node, Transformed};

use crate::tensor_ir::build::constant_of;
use crate::tensor_ir::dtype::{DType, Value};
use crate::tensor_ir::expr::{Arith, Binary, Expr, ExprMutator, ExprVisitor, Tensor, Var};
use crate::tensor_ir::ops::{AddOp, MaxOp, MinOp, MulOp};

/// What one canonicalization knows about a node. The node is kept alive with
/// its entry, so that its address, the key, is never reused by another node.
pub(crate) struct Info {
    _alive: Expr,
    hash: u64,
    loop_depth: u32,
    /// Free of calls, so it may move within its chain.
    pure: bool,
    canonical: bool,
}

/// The chained operators: `-` chains with `+`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ChainOp {
    Add,
    Mul,
    Min,
    Max,
}

fn chain_op(e: &Expr) -> Option<ChainOp> {
    if !e.dtype().is_int() {
        return None;
    }
    Some(match e {
        Expr::Add(_) | Expr::Sub(_) => ChainOp::Add,
        Expr::Mul(_) => ChainOp::Mul,
        Expr::Min(_) => ChainOp::Min,
        Expr::Max(_) => ChainOp::Max,
        _ => return None,
    })
}

/// One operand of a flattened chain; `negative` for a subtracted one.
struct Operand {
    value: Expr,
    negative: bool,
}

/// Canonicalizes integer chains in one expression, remembering hashes and
/// what is already canonical across the repeated runs of one fold.
pub(crate) struct Canonicalizer<'a> {
    info: &'a mut IdMap<Expr, Info>,
    /// The depth of the loop defining each loop variable (outermost 1).
    loop_depth: &'a IdMap<Node<Var>, u32>,
}

/// The memo of one top-level fold: cleared when it ends.
pub(crate) type CanonicalMemo = IdMap<Expr, Info>;

impl<'a> Canonicalizer<'a> {
    pub(crate) fn new(memo: &'a mut CanonicalMemo, loop_depth: &'a IdMap<Node<Var>, u32>) -> Self {
        Canonicalizer {
            info: memo,
            loop_depth,
        }
    }

    /// `e` with every integer chain in canonical order.
    pub(crate) fn run(&mut self, e: &Expr) -> Transformed<Expr> {
        self.mutate_expr(e)
    }

    /// oneDNN's `simple_hash_expr` and the deepest loop of its variables.
    fn hash(&mut self, e: &Expr) -> (u64, u32) {
        let i = self.info(e);
        (i.hash, i.loop_depth)
    }

    fn is_pure(&mut self, e: &Expr) -> bool {
        self.info(e).pure
    }

    /// What is known of `e`, computed once (children first).
    fn info(&mut self, e: &Expr) -> &mut Info {
        if !self.info.contains_key(&e.id()) {
            let (hash, loop_depth, pure) = match e {
                Expr::Var(v) => (
                    combine(string_hash(&v.name), dtype_code(v.dtype)),
                    self.loop_depth.get(&v.id()).copied().unwrap_or(0),
                    true,
                ),
                Expr::Tensor(t) => (combine(string_hash(&t.name), pointer_code(t.elem)), 0, true),
                Expr::Constant(c) => (constant_hash(c.value, c.dtype), 0, true),
                _ => {
                    let mut hash = node_type(e);
                    let mut depth = 0;
                    let mut pure = !matches!(e, Expr::Call(_));
                    for child in children(e) {
                        let i = ir_core::stack::guarded(|| self.info(&child));
                        hash = combine(hash, i.hash);
                        depth = depth.max(i.loop_depth);
                        pure &= i.pure;
                    }
                    (hash, depth, pure)
                }
            };
            self.info.insert(
                e.id(),
                Info {
                    _alive: e.clone(),
                    hash,
                    loop_depth,
                    pure,
                    canonical: false,
                },
            );
        }
        self.info.get_mut(&e.id()).expect("inserted above")
    }

    fn is_canonical(&self, e: &Expr) -> bool {
        self.info.get(&e.id()).is_some_and(|i| i.canonical)
    }

    fn mark_canonical(&mut self, e: &Expr) {
        self.info(e).canonical = true;
    }

    /// Flattens the chain of `op` rooted at `e` into `out`; `true` if an
    /// operand changed or the chain was not left-nested.
    fn collect(&mut self, e: &Expr, op: ChainOp, out: &mut Vec<Operand>, negative: bool) -> bool {
        if chain_op(e) == Some(op) {
            let b = e.as_binary().expect("a chained node is binary");
            let mut changed = ir_core::stack::guarded(|| self.collect(b.l(), op, out, negative));
            let r_negative = negative ^ matches!(e, Expr::Sub(_));
            let before = out.len();
            changed |= ir_core::stack::guarded(|| self.collect(b.r(), op, out, r_negative));
            // More than one operand on the right: not left-nested.
            changed | (out.len() != before + 1)
        } else {
            let t = ir_core::stack::guarded(|| self.mutate_expr(e));
            let changed = t.is_replace();
            out.push(Operand {
                value: t.unwrap_or_clone(e),
                negative,
            });
            changed
        }
    }

    /// oneDNN's order: constants last, then shallower loops first, then by hash.
    fn less(&mut self, a: &Operand, b: &Operand) -> bool {
        match (a.value.is_constant(), b.value.is_constant()) {
            (true, _) => false,
            (false, true) => true,
            (false, false) => {
                let (ha, da) = self.hash(&a.value);
                let (hb, db) = self.hash(&b.value);
                if da != db { da < db } else { ha < hb }
            }
        }
    }

    fn canonicalize(&mut self, e: &Expr, op: ChainOp) -> Transformed<Expr> {
        if self.is_canonical(e) {
            return Transformed::Keep;
        }
        let dtype = e.dtype();
        let mut ops = Vec::new();
        let changed = self.collect(e, op, &mut ops, false);
        // Calls keep their order: moving one would reorder its effects.
        if !ops.iter().all(|o| self.is_pure(&o.value)) {
            let mut ops = ops.into_iter();
            let first = ops.next().expect("a chain has operands").value;
            let out = ops.fold(first, |acc, o| match op {
                ChainOp::Add if o.negative => acc - o.value,
                _ => make(op, acc, o.value),
            });
            return self.finish(e, out);
        }
        let sorted = (1..ops.len()).all(|i| {
            let (a, b) = (&ops[i - 1], &ops[i]);
            !self.less(b, a)
        });
        if !changed && op != ChainOp::Add && sorted {
            self.mark_canonical(e);
            return Transformed::Keep;
        }
        let mut ops = self.sorted(ops);
        if op != ChainOp::Add {
            let mut it = ops.into_iter();
            let first = it.next().expect("a chain has operands").value;
            let out = it.fold(first, |acc, o| make(op, acc, o.value));
            return self.finish(e, out);
        }
        sum_constants(&mut ops, dtype);
        let mut live: Vec<Option<Operand>> = ops.into_iter().map(Some).collect();
        let mut count = live.len();
        // Cancel `+x`/`-x` pairs among neighbours of equal hash.
        for i in 0..live.len() {
            let Some(a) = &live[i] else { continue };
            let (ha, a_neg, a_val) = (self.hash(&a.value).0, a.negative, a.value.clone());
            for j in i + 1..live.len() {
                let Some(b) = &live[j] else { continue };
                if self.hash(&b.value).0 != ha {
                    break;
                }
                if b.negative == a_neg {
                    continue;
                }
                if structural_eq(&a_val, &b.value) {
                    live[i] = None;
                    live[j] = None;
                    count -= 2;
                    break;
                }
            }
        }
        if count == 0 {
            return Transformed::Replace(constant_of(Value::Int(0), dtype));
        }
        let start = live
            .iter_mut()
            .find(|o| o.as_ref().is_some_and(|o| !o.negative))
            .and_then(Option::take)
            .map_or_else(|| constant_of(Value::Int(0), dtype), |o| o.value);
        let out = live.into_iter().flatten().fold(start, |acc, o| {
            if o.value.as_value().is_some_and(Value::is_zero) {
                acc
            } else if o.negative {
                acc - o.value
            } else {
                acc + o.value
            }
        });
        self.finish(e, out)
    }

    /// `out` as the canonical form of `e`: `e` itself if it is the same chain.
    fn finish(&mut self, e: &Expr, out: Expr) -> Transformed<Expr> {
        if same_chain(e, &out) {
            self.mark_canonical(e);
            return Transformed::Keep;
        }
        self.mark_canonical(&out);
        Transformed::Replace(out)
    }

    /// The operands in oneDNN's order (a stable sort: constants last, then
    /// shallower loops first, then by hash).
    fn sorted(&mut self, ops: Vec<Operand>) -> Vec<Operand> {
        let mut keyed: Vec<(Option<(u32, u64)>, Operand)> = ops
            .into_iter()
            .map(|o| {
                let key = (!o.value.is_constant()).then(|| {
                    let (h, d) = self.hash(&o.value);
                    (d, h)
                });
                (key, o)
            })
            .collect();
        keyed.sort_by(|(a, _), (b, _)| match (a, b) {
            (None, None) => std::cmp::Ordering::Equal,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
            (Some(a), Some(b)) => a.cmp(b),
        });
        keyed.into_iter().map(|(_, o)| o).collect()
    }
}

impl ExprMutator for Canonicalizer<'_> {
    // A tensor is one node at its definition and every use.
    fn mutate_tensor(&mut self, _: &Node<Tensor>) -> Transformed<Expr> {
        Transformed::Keep
    }

    fn mutate_tensor_def(&mut self, _: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        Transformed::Keep
    }

    fn mutate_binary(&mut self, b: Binary<'_>) -> Transformed<Expr> {
        let e = b.to_family();
        match chain_op(&e) {
            Some(op) => self.canonicalize(&e, op),
            None => b.rebuild(self),
        }
    }
}

fn make(op: ChainOp, l: Expr, r: Expr) -> Expr {
    match op {
        ChainOp::Add => Arith::<AddOp>::new(l, r).into(),
        ChainOp::Mul => Arith::<MulOp>::new(l, r).into(),
        ChainOp::Min => Arith::<MinOp>::new(l, r).into(),
        ChainOp::Max => Arith::<MaxOp>::new(l, r).into(),
    }
}

/// Sums the constants of a sorted `+` chain (they are last) into one
/// operand, as oneDNN does: signed types through a signed sum, `index` as
/// an unsigned magnitude with a sign.
fn sum_constants(ops: &mut Vec<Operand>, dtype: DType) {
    let value = |o: &Operand| o.value.as_value().and_then(Value::as_int).unwrap_or(0);
    let Some(first) = ops.iter().position(|o| o.value.is_constant()) else {
        return;
    };
    // One constant that is already a magnitude stays the very same node.
    if first + 1 == ops.len() && (dtype == DType::Index || value(&ops[first]) >= 0) {
        return;
    }
    let (magnitude, negative) = if dtype == DType::Index {
        let mut cur = value(&ops[first]) as u64;
        let mut negative = ops[first].negative;
        for o in &ops[first + 1..] {
            let c = value(o) as u64;
            if o.negative == negative {
                cur = cur.wrapping_add(c);
            } else if cur > c {
                cur -= c;
            } else {
                negative = o.negative;
                cur = c - cur;
            }
        }
        (cur as i64, negative)
    } else {
        let signed = |o: &Operand| {
            if o.negative {
                value(o).wrapping_neg()
            } else {
                value(o)
            }
        };
        let sum = ops[first..]
            .iter()
            .fold(0i64, |acc, o| dtype.wrap(acc.wrapping_add(signed(o))));
        (dtype.wrap(sum.wrapping_abs()), sum < 0)
    };
    ops.truncate(first);
    ops.push(Operand {
        value: constant_of(Value::Int(magnitude), dtype),
        negative,
    });
}

/// Whether the rebuilt chain `out` is `e` again: the same operators along
/// the left spine and the same operand nodes (equal constants count as the
/// same). Shallow, so a chain nested in a chain costs its length only.
fn same_chain(e: &Expr, out: &Expr) -> bool {
    let same_operand = |a: &Expr, b: &Expr| {
        a.same_as(b)
            || a.as_constant()
                .zip(b.as_constant())
                .is_some_and(|(x, y)| x.value == y.value && x.dtype == y.dtype)
    };
    let (mut a, mut b) = (e, out);
    loop {
        if a.same_as(b) {
            return true;
        }
        match (a.as_binary(), b.as_binary()) {
            (Some(x), Some(y))
                if a.kind_index() == b.kind_index() && same_operand(x.r(), y.r()) =>
            {
                (a, b) = (x.l(), y.l());
            }
            _ => return same_operand(a, b),
        }
    }
}

/// The direct operands of a node, in oneDNN's order.
fn children(e: &Expr) -> Vec<Expr> {
    use ir_core::Walk;
    struct Direct(Vec<Expr>);
    impl ExprVisitor for Direct {
        fn visit_expr(&mut self, e: &Expr) {
            self.0.push(e.clone());
        }
    }
    if let Expr::TensorPtr(p) = e {
        return vec![Expr::Indexing(p.base.clone())];
    }
    let mut direct = Direct(Vec::new());
    e.walk(&mut direct);
    direct.0
}

/// `hash_combine_stable` of oneDNN's `hash_utils.hpp`.
fn combine(seed: u64, v: u64) -> u64 {
    seed ^ v
        .wrapping_add(0x9e37_79b9)
        .wrapping_add(seed << 6)
        .wrapping_add(seed >> 2)
}

fn string_hash(s: &str) -> u64 {
    s.bytes().fold(0u64, |h, c| {
        h.wrapping_mul(23).wrapping_add((c as i8) as u64)
    })
}

/// oneDNN's `sc_data_type_t` as an integer: one lane, the type code.
fn dtype_code(dtype: DType) -> u64 {
    let code = match dtype {
        DType::F32 => 4,
        DType::S32 => 5,
        DType::Index => 9,
        DType::Bool => 11,
        DType::Void => 12,
        // oneDNN has no 64-bit signed scalar type; any free code will do.
        DType::S64 => 13,
    };
    (1 << 32) | code
}

/// The type of a tensor: a pointer to its element type.
fn pointer_code(elem: DType) -> u64 {
    dtype_code(elem) | 0x100
}

/// `content_hash_t<constant_c>`: the type, then `h * 23 + value`. A float
/// hashes its bit pattern here (oneDNN uses the C++ library's float hash).
fn constant_hash(value: Value, dtype: DType) -> u64 {
    let base = dtype_code(dtype);
    match value {
        Value::Int(v) => base.wrapping_mul(23).wrapping_add(v as u64),
        Value::Float(f) => base.wrapping_mul(23).wrapping_add(u64::from(f.to_bits())),
        Value::Bool(_) => base,
    }
}

/// oneDNN's `sc_expr_type` of the node (`min` and `max` are intrinsic calls there).
fn node_type(e: &Expr) -> u64 {
    match e {
        Expr::Constant(_) => 1,
        Expr::Var(_) => 2,
        Expr::Cast(_) => 3,
        Expr::Add(_) => 4,
        Expr::Sub(_) => 5,
        Expr::Mul(_) => 6,
        Expr::Div(_) => 7,
        Expr::Mod(_) => 8,
        Expr::Eq(_) => 9,
        Expr::Ne(_) => 10,
        Expr::Lt(_) => 11,
        Expr::Le(_) => 12,
        Expr::Gt(_) => 13,
        Expr::Ge(_) => 14,
        Expr::And(_) => 15,
        Expr::Or(_) => 16,
        Expr::Not(_) => 17,
        Expr::Select(_) => 18,
        Expr::Indexing(_) => 19,
        Expr::Call(_) => 20,
        Expr::Tensor(_) => 21,
        Expr::TensorPtr(_) => 22,
        Expr::Min(_) | Expr::Max(_) | Expr::Intrinsic(_) => 23,
    }
}
