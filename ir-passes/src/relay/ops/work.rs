//! How much work a kernel does, estimated from its argument and result
//! types before it runs: what a run of constant folding is charged, so
//! that many calls, each within [`super::MAX_WORK`], cannot add up to any
//! amount of time.

use super::{extent_span, int_list, tensor_type};
use crate::relay::attrs::Attrs;
use crate::relay::ty::{Dim, Type};

/// The steps (multiply-adds, or elements read and written) evaluating
/// `name` takes on arguments of types `args` giving `result`; `None` when
/// the count overflows a `u64`.
pub(super) fn estimate(name: &str, args: &[Type], attrs: &Attrs, result: &Type) -> Option<u64> {
    // Elements read and written, each at a cost that grows with the rank:
    // a kernel steps an index of that many coordinates per element.
    let rank = args
        .iter()
        .chain([result])
        .filter_map(|t| tensor_type(t).ok())
        .map(|(shape, _)| shape.len() as u64)
        .max()
        .unwrap_or(0);
    let moved = args
        .iter()
        .chain([result])
        .try_fold(0u64, |n, t| n.checked_add(extent_span(t)?))?
        .checked_mul(1 + rank)?;
    let product = |dims: &[Dim]| {
        dims.iter().try_fold(1u64, |n, d| match d {
            Dim::Known(k) => n.checked_mul(u64::try_from(*k).ok()?.max(1)),
            Dim::Any => None,
        })
    };
    let out = extent_span(result)?;
    let per_output = match name {
        // Each output sums a row of the weight.
        "nn.dense" => product(&tensor_type(&args[1]).ok()?.0[1..])?,
        // Each output sums a group's channels over the kernel.
        "nn.conv2d" => product(&tensor_type(&args[1]).ok()?.0[1..])?,
        // Each input scatters the kernel into a group's outputs.
        "nn.conv2d_transpose" => {
            let per_input = product(&tensor_type(&args[1]).ok()?.0[1..])?;
            return extent_span(&args[0])?
                .checked_mul(per_input)?
                .checked_add(moved);
        }
        // Each output reads the window's taps inside the input.
        "nn.max_pool2d" | "nn.avg_pool2d" => {
            let (shape, _) = tensor_type(&args[0]).ok()?;
            let pool = int_list(attrs, "pool_size").ok()?.unwrap_or(vec![1, 1]);
            let taps = |i: usize| -> Option<u64> {
                let k = u64::try_from(*pool.get(i).or(pool.first())?).ok()?;
                let extent = product(&shape[2 + i..3 + i])?;
                Some(k.min(extent).max(1))
            };
            taps(0)?.checked_mul(taps(1)?)?
        }
        _ => 1,
    };
    out.checked_mul(per_output)?.checked_add(moved)
}
