//! Value ranges of integer expressions, the range part of the oneDNN Graph
//! Compiler's non-fast constant folder, made sound.
//!
//! A loop variable its body never assigns lies in `[begin, last]`, and a
//! stable variable (`bindings.rs`) in the range of its value. Ranges go
//! through `+ - * / % min max` and integer casts; a binary node whose range
//! is one value becomes that constant, `x % c` becomes `x` when `0 <= x < c`,
//! and a comparison that the ranges decide becomes `true` or `false`.
//!
//! Unlike oneDNN:
//! - arithmetic is exact (in `i128`) and a range that leaves its type's
//!   values is dropped, since the value wraps;
//! - `*` and `/` take the extremes of all four corners, so negative values
//!   are covered;
//! - `x % y` lies in `[0, max(y) - 1]`; oneDNN takes `[0, min(y) - 1]`, so
//!   it would fold `((d % (i + 10)) / 10) == 0` to `true` for `i` in
//!   `[0, 9]`, which `d = 15`, `i = 9` contradicts.
//!
//! Ranges travel bottom-up in return values and in one scratch stack the
//! folder owns: a walk is linear and allocates nothing once the stack has
//! grown.

use ir_core::{IdMap, Node, Rebuild, Transformed};

use crate::tensor_ir::build::{boolean, constant_of};
use crate::tensor_ir::dtype::{DType, Value};
use crate::tensor_ir::expr::{Binary, Cmp, Expr, ExprMutator, Tensor, Var};

/// The values an integer expression can take: `lo..=hi`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    lo: i128,
    hi: i128,
}

/// The values of an integer type.
fn bounds(dtype: DType) -> Option<(i128, i128)> {
    match dtype {
        DType::S32 => Some((i32::MIN.into(), i32::MAX.into())),
        DType::S64 => Some((i64::MIN.into(), i64::MAX.into())),
        DType::Index => Some((0, u64::MAX.into())),
        _ => None,
    }
}

/// A constant's value as an exact integer (`index` is unsigned).
pub(crate) fn exact(v: Value, dtype: DType) -> Option<i128> {
    let i = v.as_int()?;
    match dtype {
        DType::Index => Some(i128::from(i as u64)),
        DType::S32 | DType::S64 => Some(i128::from(i)),
        _ => None,
    }
}

/// The constant of `dtype` with the exact value `v` (in its range).
fn constant(v: i128, dtype: DType) -> Expr {
    let bits = if dtype == DType::Index {
        v as u64 as i64
    } else {
        v as i64
    };
    constant_of(Value::Int(bits), dtype)
}

impl Range {
    /// `lo..=hi` when it lies within `dtype`'s values (otherwise the value
    /// wraps and nothing is known).
    pub(crate) fn new(lo: i128, hi: i128, dtype: DType) -> Option<Range> {
        let (min, max) = bounds(dtype)?;
        (min <= lo && lo <= hi && hi <= max).then_some(Range { lo, hi })
    }

    /// The range of the constant `v`.
    pub(crate) fn of_value(v: Value, dtype: DType) -> Option<Range> {
        let x = exact(v, dtype)?;
        Range::new(x, x, dtype)
    }

    /// The one value in the range, if there is one.
    pub(crate) fn single(self) -> Option<i128> {
        (self.lo == self.hi).then_some(self.lo)
    }

    /// The constant of `dtype` that is the one value in the range.
    pub(crate) fn constant(self, dtype: DType) -> Option<Expr> {
        self.single().map(|v| constant(v, dtype))
    }

    /// The values of a loop variable running from `begin` by `step` while
    /// below `end`: `[begin.lo, last]`. `None` when it runs no times.
    pub(crate) fn of_loop(begin: Range, end: Range, step: i128, dtype: DType) -> Option<Range> {
        if step <= 0 {
            return None;
        }
        let hi = match begin.single() {
            // The last value reached: `b + k * step < end`.
            Some(b) if end.hi > b => b + (end.hi - 1 - b) / step * step,
            _ => end.hi - 1,
        };
        Range::new(begin.lo, hi, dtype)
    }

    fn corners(self, other: Range, op: fn(i128, i128) -> Option<i128>) -> Option<(i128, i128)> {
        let vals = [
            op(self.lo, other.lo)?,
            op(self.lo, other.hi)?,
            op(self.hi, other.lo)?,
            op(self.hi, other.hi)?,
        ];
        Some((*vals.iter().min()?, *vals.iter().max()?))
    }

    /// The range of `l op r` for the binary `b`, with `l`'s range unknown
    /// only for `%`.
    fn binary(b: Binary<'_>, l: Option<Range>, r: Range, dtype: DType) -> Option<Range> {
        if let Binary::Mod(_) = b {
            return Range::rem(l, r, dtype);
        }
        let l = l?;
        let (lo, hi) = match b {
            Binary::Add(_) => (l.lo + r.lo, l.hi + r.hi),
            Binary::Sub(_) => (l.lo - r.hi, l.hi - r.lo),
            Binary::Mul(_) => l.corners(r, i128::checked_mul)?,
            // Truncating division is monotone in each operand while the
            // divisor keeps its sign.
            Binary::Div(_) if r.lo > 0 || r.hi < 0 => l.corners(r, i128::checked_div)?,
            Binary::Div(_) => return None,
            Binary::Min(_) => (l.lo.min(r.lo), l.hi.min(r.hi)),
            Binary::Max(_) => (l.lo.max(r.lo), l.hi.max(r.hi)),
            Binary::Mod(_) => unreachable!("handled above"),
        };
        Range::new(lo, hi, dtype)
    }

    /// `l % r`: the sign of the dividend, smaller than the divisor.
    fn rem(l: Option<Range>, r: Range, dtype: DType) -> Option<Range> {
        if r.lo <= 0 && r.hi >= 0 {
            return None;
        }
        let m = r.lo.abs().max(r.hi.abs()) - 1;
        // An unknown dividend takes any value of its type.
        let l = match l {
            Some(l) => l,
            None => bounds(dtype).map(|(lo, hi)| Range { lo, hi })?,
        };
        let (lo, hi) = if l.lo >= 0 {
            (0, l.hi.min(m))
        } else if l.hi <= 0 {
            (l.lo.max(-m), 0)
        } else {
            (-m, m)
        };
        Range::new(lo, hi, dtype)
    }

    /// Whether `l op r` holds for every value (`Some(true)`), for none
    /// (`Some(false)`), or depends.
    fn decide(c: Cmp<'_>, l: Range, r: Range) -> Option<bool> {
        let lt = |a: Range, b: Range| {
            if a.hi < b.lo {
                Some(true)
            } else if a.lo >= b.hi {
                Some(false)
            } else {
                None
            }
        };
        let le = |a: Range, b: Range| {
            if a.hi <= b.lo {
                Some(true)
            } else if a.lo > b.hi {
                Some(false)
            } else {
                None
            }
        };
        let eq = || {
            if l.single().is_some() && l == r {
                Some(true)
            } else if l.hi < r.lo || r.hi < l.lo {
                Some(false)
            } else {
                None
            }
        };
        match c {
            Cmp::Eq(_) => eq(),
            Cmp::Ne(_) => eq().map(|b| !b),
            Cmp::Lt(_) => lt(l, r),
            Cmp::Le(_) => le(l, r),
            Cmp::Gt(_) => lt(r, l),
            Cmp::Ge(_) => le(r, l),
        }
    }
}

/// What a walk learns of an expression.
#[derive(Clone, Copy)]
pub(crate) struct Info {
    range: Option<Range>,
    /// Free of calls: it can be replaced by its value.
    pure: bool,
}

/// Folds one expression with the ranges of the variables in scope.
pub(crate) struct RangeFolder<'a> {
    ranges: &'a IdMap<Node<Var>, Range>,
    /// The operands' infos of the nodes being walked, innermost last.
    stack: &'a mut Vec<Info>,
}

impl<'a> RangeFolder<'a> {
    pub(crate) fn new(ranges: &'a IdMap<Node<Var>, Range>, stack: &'a mut Vec<Info>) -> Self {
        RangeFolder { ranges, stack }
    }

    /// `e` with what the ranges decide folded, and the range of the result.
    pub(crate) fn run(&mut self, e: &Expr) -> (Transformed<Expr>, Option<Range>) {
        let (t, info) = self.fold(e);
        (t, info.range)
    }

    fn fold(&mut self, e: &Expr) -> (Transformed<Expr>, Info) {
        match e {
            Expr::Constant(c) => (
                Transformed::Keep,
                Info {
                    range: Range::of_value(c.value, c.dtype),
                    pure: true,
                },
            ),
            Expr::Var(v) => (
                Transformed::Keep,
                Info {
                    range: self.ranges.get(&v.id()).copied(),
                    pure: true,
                },
            ),
            Expr::Tensor(_) => (
                Transformed::Keep,
                Info {
                    range: None,
                    pure: true,
                },
            ),
            _ => ir_core::stack::guarded(|| self.fold_node(e)),
        }
    }

    fn fold_node(&mut self, e: &Expr) -> (Transformed<Expr>, Info) {
        // The operands report to the stack through `mutate_expr`.
        let mark = self.stack.len();
        let rebuilt = Rebuild::rebuild(e, self);
        let operands = &self.stack[mark..];
        let pure = !matches!(e, Expr::Call(_)) && operands.iter().all(|o| o.pure);
        let mut first = operands.first().and_then(|o| o.range);
        let mut second = operands.get(1).and_then(|o| o.range);
        self.stack.truncate(mark);
        let current = match &rebuilt {
            Transformed::Keep => e,
            Transformed::Replace(n) => n,
        };
        let dtype = current.dtype();
        // The interpreter computes and compares in the left operand's type:
        // an operand of another type is read as that type's bits, so its
        // exact range says nothing.
        let operand_types = match (current.as_binary(), current.as_cmp()) {
            (Some(b), _) => Some((b.l().dtype(), b.r().dtype())),
            (_, Some(c)) => Some((c.l().dtype(), c.r().dtype())),
            _ => None,
        };
        if let Some((l, r)) = operand_types
            && (l != r || (current.as_binary().is_some() && l != dtype))
        {
            first = None;
            second = None;
        }
        let info = |range| Info { range, pure };
        if let Some(b) = current.as_binary() {
            let Some(range) = second.and_then(|r| Range::binary(b, first, r, dtype)) else {
                return (rebuilt, info(None));
            };
            if pure && let Some(v) = range.single() {
                return (Transformed::Replace(constant(v, dtype)), info(Some(range)));
            }
            // `x % c` is `x` when `0 <= x < c`.
            if let (Binary::Mod(_), Some(l), Some(r)) = (b, first, second)
                && l.lo >= 0
                && l.hi < r.lo
                && pure
            {
                return (Transformed::Replace(b.l().clone()), info(Some(l)));
            }
            return (rebuilt, info(Some(range)));
        }
        if let Some(c) = current.as_cmp()
            && let (Some(l), Some(r)) = (first, second)
            && pure
            && let Some(holds) = Range::decide(c, l, r)
        {
            return (Transformed::Replace(boolean(holds)), info(None));
        }
        // An integer conversion keeps the values the new type holds.
        let range = match (current, first) {
            (Expr::Cast(c), Some(r)) => Range::new(r.lo, r.hi, c.dtype),
            _ => None,
        };
        (rebuilt, info(range))
    }
}

impl ExprMutator for RangeFolder<'_> {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        let (out, info) = self.fold(e);
        self.stack.push(info);
        out
    }

    // A tensor is one node at its definition and every use.
    fn mutate_tensor_def(&mut self, _: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        Transformed::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(lo: i128, hi: i128) -> Range {
        Range { lo, hi }
    }

    #[test]
    fn a_loop_variable_ends_at_its_last_value() {
        let one = |v| r(v, v);
        assert_eq!(
            Range::of_loop(one(0), one(10), 1, DType::Index),
            Some(r(0, 9))
        );
        assert_eq!(
            Range::of_loop(one(0), one(10), 3, DType::Index),
            Some(r(0, 9))
        );
        assert_eq!(
            Range::of_loop(one(0), one(10), 4, DType::Index),
            Some(r(0, 8))
        );
        assert_eq!(Range::of_loop(one(5), one(5), 1, DType::S32), None);
    }

    #[test]
    fn a_remainder_is_below_the_largest_divisor() {
        assert_eq!(Range::rem(None, r(10, 19), DType::Index), Some(r(0, 18)));
        assert_eq!(
            Range::rem(Some(r(0, 4)), r(10, 19), DType::Index),
            Some(r(0, 4))
        );
        assert_eq!(Range::rem(None, r(3, 3), DType::S32), Some(r(-2, 2)));
        assert_eq!(
            Range::rem(Some(r(-7, -1)), r(3, 3), DType::S32),
            Some(r(-2, 0))
        );
        assert_eq!(Range::rem(None, r(-1, 1), DType::S32), None);
    }

    #[test]
    fn a_range_that_wraps_is_unknown() {
        assert_eq!(Range::new(-1, 3, DType::Index), None);
        assert_eq!(Range::new(0, 1 << 40, DType::S32), None);
        assert_eq!(Range::new(0, 1 << 40, DType::S64), Some(r(0, 1 << 40)));
    }
}
