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
//! every time. Floats keep their order (their `+` does not associate), and so
//! does a chain with a call in it (moving a call would reorder its effects).
//!
//! One pass computes each node's hash bottom-up, in the return values and
//! an accumulator saved on the call stack, so it needs no memo table. A chain
//! already in canonical order comes back as the very same node.

use ir_core::structural::structural_eq;
use ir_core::{IdMap, Node, Rebuild, Transformed};

use crate::tensor_ir::build::constant_of;
use crate::tensor_ir::dtype::{DType, Value};
use crate::tensor_ir::expr::{Arith, Expr, ExprMutator, Tensor, Var};
use crate::tensor_ir::ops::{AddOp, MaxOp, MinOp, MulOp};

/// What the order needs to know of a node: oneDNN's hash, the deepest loop
/// of its variables, and whether it is free of calls.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meta {
    hash: u64,
    loop_depth: u32,
    pure: bool,
}

impl Meta {
    /// The meta of a node of oneDNN type `node_type` before its operands.
    fn start(node_type: u64, pure: bool) -> Self {
        Meta {
            hash: node_type,
            loop_depth: 0,
            pure,
        }
    }

    /// Adds the next operand, in field order.
    fn absorb(&mut self, operand: Meta) {
        self.hash = combine(self.hash, operand.hash);
        self.loop_depth = self.loop_depth.max(operand.loop_depth);
        self.pure &= operand.pure;
    }

    /// The meta of the binary node `l op r` of oneDNN type `node_type`.
    fn binary(node_type: u64, l: Meta, r: Meta) -> Self {
        let mut m = Meta::start(node_type, true);
        m.absorb(l);
        m.absorb(r);
        m
    }

    /// The order key: shallower loops first, then by hash.
    fn key(self) -> (u32, u64) {
        (self.loop_depth, self.hash)
    }
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

/// One operand of a flattened chain.
pub(crate) struct Operand {
    value: Expr,
    /// Subtracted.
    negative: bool,
    meta: Meta,
    /// Cancelled against another operand.
    removed: bool,
}

/// Canonicalizes the integer chains of one expression.
pub(crate) struct Canonicalizer<'a> {
    /// The depth of the loop defining each loop variable (outermost 1).
    loop_depth: &'a IdMap<Node<Var>, u32>,
    /// The operands of the chains being flattened, innermost last: one
    /// buffer for every chain, reused from one expression to the next.
    operands: &'a mut Vec<Operand>,
    /// The meta of the non-chain node whose operands are being visited.
    current: Meta,
}

impl<'a> Canonicalizer<'a> {
    pub(crate) fn new(
        loop_depth: &'a IdMap<Node<Var>, u32>,
        operands: &'a mut Vec<Operand>,
    ) -> Self {
        Canonicalizer {
            loop_depth,
            operands,
            current: Meta::start(0, true),
        }
    }

    /// `e` with every integer chain in canonical order.
    pub(crate) fn run(&mut self, e: &Expr) -> Transformed<Expr> {
        self.canon(e).0
    }

    /// `e` canonicalized, and the meta of the result.
    fn canon(&mut self, e: &Expr) -> (Transformed<Expr>, Meta) {
        let leaf = |hash| Meta {
            hash,
            loop_depth: 0,
            pure: true,
        };
        match e {
            Expr::Var(v) => {
                let mut m = leaf(combine(string_hash(&v.name), dtype_code(v.dtype)));
                m.loop_depth = self.loop_depth.get(&v.id()).copied().unwrap_or(0);
                (Transformed::Keep, m)
            }
            Expr::Tensor(t) => (
                Transformed::Keep,
                leaf(combine(string_hash(&t.name), pointer_code(t.elem))),
            ),
            Expr::Constant(c) => (Transformed::Keep, leaf(constant_hash(c.value, c.dtype))),
            _ => match chain_op(e) {
                Some(op) => ir_core::stack::guarded(|| self.canonicalize(e, op)),
                None => {
                    // The operands report to `current` through `mutate_expr`.
                    let start = Meta::start(node_type(e), !matches!(e, Expr::Call(_)));
                    let saved = std::mem::replace(&mut self.current, start);
                    let out = Rebuild::rebuild(e, self);
                    (out, std::mem::replace(&mut self.current, saved))
                }
            },
        }
    }

    /// Flattens the chain of `op` rooted at `e` onto `self.operands`;
    /// `true` if an operand changed or the chain was not left-nested.
    fn collect(&mut self, e: &Expr, op: ChainOp, negative: bool) -> bool {
        if chain_op(e) == Some(op) {
            let b = e.as_binary().expect("a chained node is binary");
            let mut changed = ir_core::stack::guarded(|| self.collect(b.l(), op, negative));
            let r_negative = negative ^ matches!(e, Expr::Sub(_));
            let before = self.operands.len();
            changed |= ir_core::stack::guarded(|| self.collect(b.r(), op, r_negative));
            // More than one operand on the right: not left-nested.
            changed | (self.operands.len() != before + 1)
        } else {
            let (t, meta) = self.canon(e);
            let changed = t.is_replace();
            self.operands.push(Operand {
                value: t.unwrap_or_clone(e),
                negative,
                meta,
                removed: false,
            });
            changed
        }
    }

    fn canonicalize(&mut self, e: &Expr, op: ChainOp) -> (Transformed<Expr>, Meta) {
        let start = self.operands.len();
        let changed = self.collect(e, op, false);
        let out = reorder(e, op, changed, &mut self.operands[start..]);
        self.operands.truncate(start);
        out
    }
}

impl ExprMutator for Canonicalizer<'_> {
    /// Every operand of a non-chain node: canonicalized, its meta added to
    /// the node's.
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        let (out, meta) = self.canon(e);
        self.current.absorb(meta);
        out
    }

    // A tensor is one node at its definition and every use.
    fn mutate_tensor_def(&mut self, _: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        Transformed::Keep
    }
}

/// oneDNN's order: constants last, then shallower loops first, then by hash.
fn before(a: &Operand, b: &Operand) -> bool {
    match (a.value.is_constant(), b.value.is_constant()) {
        (true, _) => false,
        (false, true) => true,
        (false, false) => a.meta.key() < b.meta.key(),
    }
}

/// The chain `e` of `op` with its flattened operands `ops` (left to right)
/// in canonical order: `e` itself when it already is.
fn reorder(e: &Expr, op: ChainOp, changed: bool, ops: &mut [Operand]) -> (Transformed<Expr>, Meta) {
    let dtype = e.dtype();
    // Calls keep their order: moving one would reorder its effects.
    let pure = ops.iter().all(|o| o.meta.pure);
    let canonical = !pure
        || match op {
            ChainOp::Add => is_canonical_sum(ops, dtype),
            _ => ops.windows(2).all(|w| !before(&w[1], &w[0])),
        };
    if !changed && canonical {
        return (Transformed::Keep, chain_meta(op, ops));
    }
    if pure {
        ops.sort_by(
            |a, b| match (a.value.is_constant(), b.value.is_constant()) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Greater,
                (false, true) => std::cmp::Ordering::Less,
                (false, false) => a.meta.key().cmp(&b.meta.key()),
            },
        );
    }
    if op != ChainOp::Add || !pure {
        return finish(e, op, ops);
    }
    let ops = sum_constants(ops, dtype);
    cancel_pairs(ops);
    if ops.iter().all(|o| o.removed) {
        return constant_result(0, dtype);
    }
    // The chain starts from its first positive operand, or from 0.
    if let Some(first) = ops.iter().position(|o| !o.removed && !o.negative) {
        ops[..=first].rotate_right(1);
    }
    let first = ops
        .iter()
        .position(|o| !o.removed)
        .expect("an operand is left");
    let zero = ops[first].negative;
    // `None`: the constant 0, built only if the chain is.
    let (start, mut meta) = if zero {
        (None, constant_hash_meta(0, dtype))
    } else {
        (Some(&ops[first].value), ops[first].meta)
    };
    let terms = || {
        ops[first + usize::from(!zero)..]
            .iter()
            .filter(|o| !o.removed && !o.value.as_value().is_some_and(Value::is_zero))
    };
    for o in terms() {
        let node_type = if o.negative { 5 } else { 4 };
        meta = Meta::binary(node_type, meta, o.meta);
    }
    // The sum as it stands may already be this one (its check above is
    // stricter than this order): then nothing is built.
    if !changed && is_sum_of(e, start, dtype, terms()) {
        return (Transformed::Keep, meta);
    }
    let mut acc = match start {
        Some(first) => first.clone(),
        None => constant_of(Value::Int(0), dtype),
    };
    for o in terms() {
        acc = if o.negative {
            acc - o.value.clone()
        } else {
            acc + o.value.clone()
        };
    }
    if same_chain(e, &acc) {
        (Transformed::Keep, meta)
    } else {
        (Transformed::Replace(acc), meta)
    }
}

/// Whether the chain `e` is `start`, then `terms` added or subtracted in
/// order, nested to the left: what [`reorder`] would build, without building it.
fn is_sum_of<'a>(
    e: &Expr,
    start: Option<&Expr>,
    dtype: DType,
    terms: impl DoubleEndedIterator<Item = &'a Operand>,
) -> bool {
    let mut a = e;
    for o in terms.rev() {
        let Some(b) = a.as_binary() else {
            return false;
        };
        let op_matches = if o.negative {
            matches!(a, Expr::Sub(_))
        } else {
            matches!(a, Expr::Add(_))
        };
        if !op_matches || !same_operand(b.r(), &o.value) {
            return false;
        }
        a = b.l();
    }
    match start {
        Some(start) => same_operand(a, start),
        None => a
            .as_constant()
            .is_some_and(|c| c.value == Value::Int(0) && c.dtype == dtype),
    }
}

/// The same node, or equal constants.
fn same_operand(a: &Expr, b: &Expr) -> bool {
    a.same_as(b)
        || a.as_constant()
            .zip(b.as_constant())
            .is_some_and(|(x, y)| x.value == y.value && x.dtype == y.dtype)
}

/// The operands of `op` re-nested to the left, in their order.
fn finish(e: &Expr, op: ChainOp, ops: &[Operand]) -> (Transformed<Expr>, Meta) {
    let meta = chain_meta(op, ops);
    let mut acc = ops[0].value.clone();
    for o in &ops[1..] {
        let v = o.value.clone();
        acc = match op {
            ChainOp::Add if o.negative => acc - v,
            ChainOp::Add => Arith::<AddOp>::new(acc, v).into(),
            ChainOp::Mul => Arith::<MulOp>::new(acc, v).into(),
            ChainOp::Min => Arith::<MinOp>::new(acc, v).into(),
            ChainOp::Max => Arith::<MaxOp>::new(acc, v).into(),
        };
    }
    if same_chain(e, &acc) {
        (Transformed::Keep, meta)
    } else {
        (Transformed::Replace(acc), meta)
    }
}

/// The meta of the left-nested chain of `ops`.
fn chain_meta(op: ChainOp, ops: &[Operand]) -> Meta {
    let mut meta = ops[0].meta;
    for o in &ops[1..] {
        let node_type = match op {
            ChainOp::Add if o.negative => 5,
            ChainOp::Add => 4,
            ChainOp::Mul => 6,
            ChainOp::Min | ChainOp::Max => 23,
        };
        meta = Meta::binary(node_type, meta, o.meta);
    }
    meta
}

fn constant_result(value: i64, dtype: DType) -> (Transformed<Expr>, Meta) {
    (
        Transformed::Replace(constant_of(Value::Int(value), dtype)),
        constant_hash_meta(value, dtype),
    )
}

/// The meta of the integer constant `value`.
fn constant_hash_meta(value: i64, dtype: DType) -> Meta {
    Meta {
        hash: constant_hash(Value::Int(value), dtype),
        loop_depth: 0,
        pure: true,
    }
}

/// A sorted, left-nested `+` chain that summing and cancelling would leave
/// as it is: it starts positive, has at most one constant, a nonzero
/// magnitude, and no run of equal hashes with both signs.
fn is_canonical_sum(ops: &[Operand], dtype: DType) -> bool {
    // Sorted, except that the first positive operand leads: the rest is
    // sorted, and whatever sorts before the leader is subtracted.
    let (lead, rest) = ops.split_first().expect("a chain has operands");
    if lead.negative
        || !rest.windows(2).all(|w| !before(&w[1], &w[0]))
        || rest.iter().any(|o| before(o, lead) && !o.negative)
        || rest
            .iter()
            .any(|o| o.meta.hash == lead.meta.hash && o.negative)
    {
        return false;
    }
    let constants = ops.iter().filter(|o| o.value.is_constant()).count();
    if constants > 1 {
        return false;
    }
    if let Some(c) = ops.iter().find(|o| o.value.is_constant()) {
        let v = c.value.as_value().and_then(Value::as_int).unwrap_or(0);
        if v == 0 || (dtype != DType::Index && v < 0) {
            return false;
        }
    }
    let mut run_start = 0;
    for i in 1..=rest.len() {
        if i == rest.len() || rest[i].meta.hash != rest[run_start].meta.hash {
            let run = &rest[run_start..i];
            if run.iter().any(|o| o.negative) && run.iter().any(|o| !o.negative) {
                return false;
            }
            run_start = i;
        }
    }
    true
}

/// Sums the constants of a sorted `+` chain (they are last) into one
/// operand, as oneDNN does: signed types through a signed sum, `index` as
/// an unsigned magnitude with a sign. Returns the operands left.
fn sum_constants(ops: &mut [Operand], dtype: DType) -> &mut [Operand] {
    let Some(first) = ops.iter().position(|o| o.value.is_constant()) else {
        return ops;
    };
    let value = |o: &Operand| o.value.as_value().and_then(Value::as_int).unwrap_or(0);
    // One constant that is already a magnitude stays the very same node.
    if first + 1 == ops.len() && (dtype == DType::Index || value(&ops[first]) >= 0) {
        return ops;
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
    // The sum may be one of the constants already there (the others summing
    // to 0, as the 0 a chain of subtracted operands starts from): keep its node.
    if let Some(k) = ops[first..]
        .iter()
        .position(|o| o.negative == negative && value(o) == magnitude)
    {
        ops.swap(first, first + k);
        return &mut ops[..=first];
    }
    let (c, meta) = constant_result(magnitude, dtype);
    ops[first] = Operand {
        value: c.unwrap_or_else(|| unreachable!("a constant result is new")),
        negative,
        meta,
        removed: false,
    };
    &mut ops[..=first]
}

/// Cancels `+x`/`-x` pairs within runs of equal hash, as oneDNN does.
fn cancel_pairs(ops: &mut [Operand]) {
    for i in 0..ops.len() {
        if ops[i].removed {
            continue;
        }
        for j in i + 1..ops.len() {
            if ops[j].removed {
                continue;
            }
            if ops[j].meta.hash != ops[i].meta.hash {
                break;
            }
            if ops[j].negative == ops[i].negative {
                continue;
            }
            if structural_eq(&ops[i].value, &ops[j].value) {
                ops[i].removed = true;
                ops[j].removed = true;
                break;
            }
        }
    }
}

/// Whether the rebuilt chain `out` is `e` again: the same operators along
/// the left spine and the same operand nodes (equal constants count as the
/// same). Shallow, so a chain nested in a chain costs its length only.
fn same_chain(e: &Expr, out: &Expr) -> bool {
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

/// oneDNN's `sc_expr_type` of the node (`min` and `max` are intrinsic calls
/// there). A `&A[i]` hashes its indexing's operands directly.
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
