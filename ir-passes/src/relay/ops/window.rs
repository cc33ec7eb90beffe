//! The attributes of a window sliding over the spatial axes of NCHW data,
//! shared by convolution, transposed convolution and pooling: strides,
//! padding, dilation and layouts, checked as TVM's attribute nodes give
//! them (a single value stands for both axes, or all four sides).

use super::int_list;
use crate::relay::attrs::{AttrValue, Attrs};
use crate::relay::ty::Dim;

/// A window's geometry along height (index 0) and width (index 1).
#[derive(Debug, Clone, Copy)]
pub(super) struct Window {
    pub strides: [i64; 2],
    /// Top, left, bottom, right.
    pub padding: [i64; 4],
    pub dilation: [i64; 2],
}

/// `key` as one or two positive integers (`default` for both when absent).
pub(super) fn pair(attrs: &Attrs, key: &str, default: i64) -> Result<[i64; 2], String> {
    match int_list(attrs, key)?.as_deref() {
        None => Ok([default, default]),
        Some(&[a]) => Ok([a, a]),
        Some(&[a, b]) => Ok([a, b]),
        Some(v) => Err(format!("`{key}` takes 1 or 2 values, found {}", v.len())),
    }
}

/// Accepts `key` when absent, equal to `want`, or (for an output layout)
/// empty, which means "as the input".
pub(super) fn require_layout(attrs: &Attrs, key: &str, want: &str) -> Result<(), String> {
    match attrs.get(key) {
        None => Ok(()),
        Some(AttrValue::Str(s)) if s == want => Ok(()),
        Some(AttrValue::Str(s)) if s.is_empty() && key.starts_with("out") => Ok(()),
        Some(other) => Err(format!("only {key}=\"{want}\" is supported, found {other}")),
    }
}

impl Window {
    /// Reads `strides`, `padding` and `dilation`: strides and dilation
    /// positive, padding non-negative.
    pub fn from_attrs(attrs: &Attrs) -> Result<Window, String> {
        let strides = pair(attrs, "strides", 1)?;
        let dilation = pair(attrs, "dilation", 1)?;
        if strides.iter().chain(&dilation).any(|&v| v < 1) {
            return Err("strides and dilation must be positive".into());
        }
        let padding = match int_list(attrs, "padding")?.as_deref() {
            None => [0; 4],
            Some(&[p]) => [p; 4],
            Some(&[h, w]) => [h, w, h, w],
            Some(&[t, l, b, r]) => [t, l, b, r],
            Some(v) => {
                return Err(format!(
                    "`padding` takes 1, 2 or 4 values, found {}",
                    v.len()
                ));
            }
        };
        if padding.iter().any(|&p| p < 0) {
            return Err("padding must not be negative".into());
        }
        Ok(Window {
            strides,
            padding,
            dilation,
        })
    }

    /// The input extent a kernel of `k` taps spans along axis `i`, dilated.
    pub fn reach(&self, i: usize, k: i64) -> Option<i64> {
        k.checked_sub(1)?
            .checked_mul(self.dilation[i])?
            .checked_add(1)
    }

    /// The output extent along spatial axis `i` of a window of `kernel`
    /// taps sliding over `input`: the last window may pass the padded
    /// input's end only with `ceil_mode` (pooling), as TVM computes it.
    pub fn out_extent(
        &self,
        i: usize,
        input: Dim,
        kernel: Dim,
        ceil_mode: bool,
    ) -> Result<Dim, String> {
        let (Dim::Known(n), Dim::Known(k)) = (input, kernel) else {
            return Ok(Dim::Any);
        };
        if k <= 0 {
            return Err(format!("the window has an extent of {k}"));
        }
        let padded = n
            .checked_add(self.padding[i])
            .and_then(|v| v.checked_add(self.padding[i + 2]));
        let stride = self.strides[i];
        match (padded, self.reach(i, k)) {
            // The output extent is at most the padded input's, plus one.
            (Some(p), Some(r)) if p >= r => {
                let room = p - r;
                let steps = if ceil_mode {
                    room / stride + i64::from(room % stride != 0)
                } else {
                    room / stride
                };
                steps
                    .checked_add(1)
                    .map(Dim::Known)
                    .ok_or_else(|| "the output extent is longer than 2^63".into())
            }
            _ => Err(format!(
                "the window (extent {k}) does not fit the padded input (extent {n})"
            )),
        }
    }
}
