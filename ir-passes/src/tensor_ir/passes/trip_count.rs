//! How many times a loop runs, when that is known at compile time.

use crate::tensor_ir::attrs::Attrs;
use crate::tensor_ir::build::constant_of;
use crate::tensor_ir::dtype::{DType, Value};
use crate::tensor_ir::expr::Expr;
use crate::tensor_ir::passes::ConstantFolder;
use crate::tensor_ir::passes::Substitute;
use crate::tensor_ir::passes::bindings::Bindings;
use crate::tensor_ir::passes::ranges::exact;
use crate::tensor_ir::stmt::{ForLoop, Stmt};

/// The number of iterations of `l` when its step is a positive constant and
/// `end - begin` folds to a constant (so `for i in (n, (n + 2L), 1L)` runs
/// twice); `None` otherwise.
///
/// ```
/// use ir_passes::tensor_ir::{parse_stmt, Stmt};
/// use ir_passes::tensor_ir::passes::trip_count;
///
/// let s = parse_stmt("for i in (n, (n + 2), 1) { evaluate{i} }").unwrap();
/// let Stmt::ForLoop(l) = &s else { unreachable!() };
/// assert_eq!(trip_count(l), Some(2));
/// ```
pub fn trip_count(l: &ForLoop) -> Option<u64> {
    count(&l.begin, &l.end, &l.step, l.var.dtype)
}

/// [`trip_count`], also through the values that stable variables among the
/// bounds stand for (oneDNN's `loop_len_hint`): after `m = (n + 1)`,
/// `for i in (n, m, 1)` runs once.
pub(crate) fn trip_count_with(l: &ForLoop, bindings: &Bindings) -> Option<u64> {
    trip_count(l).or_else(|| {
        let begin = bindings.resolve(&l.begin);
        let end = bindings.resolve(&l.end);
        let (b, e) = (
            begin.as_ref().unwrap_or(&l.begin),
            end.as_ref().unwrap_or(&l.end),
        );
        // The resolved pair first, then each side alone, as oneDNN does.
        [(b, e), (&l.begin, e), (b, &l.end)]
            .into_iter()
            .skip_while(|_| begin.is_none() && end.is_none())
            .find_map(|(b, e)| count(b, e, &l.step, l.var.dtype))
    })
}

/// The trips of a loop over a `dtype` variable. Bounds of another type are
/// converted by the interpreter, so they are not counted. Constants are
/// read exactly (`index` as unsigned). A symbolic `end - begin` that folds
/// to a constant is trusted as TVM's and oneDNN's loop passes trust it: it
/// assumes the bounds' own arithmetic does not wrap (`m = (n + 1)` with `n`
/// the type's largest value would make it wrong).
fn count(begin: &Expr, end: &Expr, step: &Expr, dtype: DType) -> Option<u64> {
    if begin.dtype() != dtype || end.dtype() != dtype || step.dtype() != dtype {
        return None;
    }
    let exact = |e: &Expr| exact(e.as_value()?, dtype);
    let step = exact(step)?;
    if step <= 0 {
        return None;
    }
    let extent = match (exact(begin), exact(end)) {
        (Some(b), Some(e)) => e - b,
        _ => {
            let diff = ConstantFolder::new().fold(&(end.clone() - begin.clone()));
            exact(&diff)?
        }
    };
    let trips = if extent <= 0 {
        0
    } else {
        (extent + step - 1) / step
    };
    u64::try_from(trips).ok()
}

/// `begin + k * step`, folded (a constant when `begin` is one).
pub(crate) fn nth_value(l: &ForLoop, k: u64) -> Expr {
    let dtype = l.var.dtype;
    let k = constant_of(Value::Int(dtype.wrap(k as i64)), dtype);
    ConstantFolder::new().fold(&(l.begin.clone() + k * l.step.clone()))
}

/// The body of a loop that runs once, with its variable bound to `begin`,
/// carrying the loop's attributes (see [`carry_attrs`]).
pub(crate) fn single_iteration(l: &ForLoop) -> Stmt {
    let body = Substitute::var(&l.var, l.begin.clone()).apply_stmt(&l.body);
    carry_attrs(&l.attrs, body)
}

/// The statement that takes a removed loop's place, given the loop's
/// attributes (oneDNN's loop elimination passes a removed loop's
/// `merge_loop` on): they go to the loop it promotes when its body is one
/// loop (or a block holding only that), else to the statement itself; the
/// promoted node's own attributes win a clash.
pub(crate) fn carry_attrs(attrs: &Attrs, mut promoted: Stmt) -> Stmt {
    if attrs.is_empty() {
        return promoted;
    }
    let target = match &mut promoted {
        Stmt::Stmts(b) if b.seq.len() == 1 && matches!(b.seq[0], Stmt::ForLoop(_)) => {
            &mut b.make_mut().seq[0]
        }
        other => other,
    };
    let merged = target.attrs().merged(attrs);
    *target.attrs_mut() = merged;
    promoted
}
