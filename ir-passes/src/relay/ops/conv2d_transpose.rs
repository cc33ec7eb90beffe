//! `nn.conv2d_transpose`: the gradient of a 2-D convolution with respect
//! to its input, with TVM's attributes (`strides`, `padding`,
//! `output_padding`, `dilation`, `groups`, `channels`, `kernel_size`,
//! `out_dtype`), NCHW data and an IOHW weight (TVM's default layouts).

use super::nn::{agree, bounded_work, groups, same_dtype, split_into_groups, wide};
use super::window::{Window, pair, require_layout};
use super::{OpDef, OpValue, as_tensor, int_list, known, tensor_type, value_type};
use crate::relay::attrs::{AttrValue, Attrs};
use crate::relay::tensor::Tensor;
use crate::relay::ty::{Dim, Type};

/// The operator of this file, for the registry.
pub(super) static OPS: [OpDef; 1] = [OpDef {
    name: "nn.conv2d_transpose",
    arity: 2,
    infer: infer_conv2d_transpose,
    eval: eval_conv2d_transpose,
}];

const NAME: &str = "nn.conv2d_transpose";

/// The checked attributes.
struct Transposed {
    window: Window,
    output_padding: [i64; 2],
    groups: i64,
}

impl Transposed {
    fn from_attrs(attrs: &Attrs) -> Result<Transposed, String> {
        require_layout(attrs, "data_layout", "NCHW")?;
        require_layout(attrs, "kernel_layout", "IOHW")?;
        require_layout(attrs, "out_layout", "NCHW")?;
        let output_padding = pair(attrs, "output_padding", 0)?;
        if output_padding.iter().any(|&p| p < 0) {
            return Err("`output_padding` must not be negative".into());
        }
        Ok(Transposed {
            window: Window::from_attrs(attrs)?,
            output_padding,
            groups: groups(attrs)?,
        })
    }

    /// The output extent along spatial axis `i`: where the last input
    /// element's kernel reaches, less the padding, plus `output_padding`.
    fn out_extent(&self, i: usize, input: Dim, kernel: Dim) -> Result<Dim, String> {
        let (Dim::Known(n), Dim::Known(k)) = (input, kernel) else {
            return Ok(Dim::Any);
        };
        if n < 1 || k < 1 {
            return Err(format!(
                "{NAME} needs input and kernel extents of at least 1, found {n} and {k}"
            ));
        }
        let w = &self.window;
        let extent = (n - 1)
            .checked_mul(w.strides[i])
            .and_then(|v| v.checked_add(w.reach(i, k)?))
            .and_then(|v| v.checked_add(self.output_padding[i]))
            .ok_or("the output extent is longer than 2^63")?
            .saturating_sub(w.padding[i])
            .saturating_sub(w.padding[i + 2]);
        if extent < 1 {
            return Err(format!(
                "{NAME}: the padding leaves an output extent of {extent}"
            ));
        }
        Ok(Dim::Known(extent))
    }
}

fn infer_conv2d_transpose(args: &[Type], attrs: &Attrs) -> Result<Type, String> {
    let conv = Transposed::from_attrs(attrs)?;
    let (sx, dx) = tensor_type(&args[0])?;
    let (sw, dw) = tensor_type(&args[1])?;
    same_dtype(NAME, dx, dw)?;
    if sx.len() != 4 || sw.len() != 4 {
        return Err(format!(
            "{NAME} takes NCHW data and an IOHW weight, both of rank 4"
        ));
    }
    agree(NAME, "input channels", sx[1], sw[0])?;
    split_into_groups(sx[1], "channels", conv.groups)?;
    let out_channels = match sw[1] {
        Dim::Known(o) => Dim::Known(
            o.checked_mul(conv.groups)
                .ok_or("the output channels number more than 2^63")?,
        ),
        Dim::Any => Dim::Any,
    };
    if let Some(channels) = attrs.get("channels").and_then(AttrValue::as_int) {
        agree(NAME, "channels", Dim::Known(channels), out_channels)?;
    }
    if let Some(ks) = int_list(attrs, "kernel_size")? {
        if ks.len() != 2 {
            return Err("`kernel_size` takes 2 values".into());
        }
        agree(NAME, "kernel_size", Dim::Known(ks[0]), sw[2])?;
        agree(NAME, "kernel_size", Dim::Known(ks[1]), sw[3])?;
    }
    let dtype = match attrs.get("out_dtype") {
        Some(AttrValue::Str(s)) if !s.is_empty() => s.parse()?,
        _ => dx,
    };
    Ok(Type::tensor(
        vec![
            sx[0],
            out_channels,
            conv.out_extent(0, sx[2], sw[2])?,
            conv.out_extent(1, sx[3], sw[3])?,
        ],
        dtype,
    ))
}

/// Scatters each input element, times the kernel, into the output.
fn eval_conv2d_transpose(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let (x, w) = (as_tensor(&args[0])?, as_tensor(&args[1])?);
    let arg_types: Vec<Type> = args.iter().map(value_type).collect();
    let out_type = infer_conv2d_transpose(&arg_types, attrs)?;
    let (out_dims, dtype) = tensor_type(&out_type)?;
    let conv = Transposed::from_attrs(attrs)?;
    let win = conv.window;
    let (sx, xs) = wide(x);
    let (sw, ws) = wide(w);
    let [n, c, h, wd] = [sx[0], sx[1], sx[2], sx[3]];
    let [per_group_out, kh, kw] = [sw[1], sw[2], sw[3]];
    let out = known(&out_dims)?;
    let [o, oh, ow] = [out[1], out[2], out[3]];
    bounded_work(
        NAME,
        sx.iter()
            .chain(&[per_group_out, kh, kw])
            .try_fold(1u64, |a, &d| a.checked_mul(d as u64)),
    )?;
    let in_per_group = c / conv.groups as usize;
    let mut result = vec![0.0; n * o * oh * ow];
    for b in 0..n {
        for ic in 0..c {
            let g = ic / in_per_group.max(1);
            for iy in 0..h {
                for ix in 0..wd {
                    let v = xs[((b * c + ic) * h + iy) * wd + ix];
                    for oc in 0..per_group_out {
                        let och = g * per_group_out + oc;
                        for ky in 0..kh {
                            let y = (iy as i64) * win.strides[0] + (ky as i64) * win.dilation[0]
                                - win.padding[0];
                            if y < 0 || y >= oh as i64 {
                                continue;
                            }
                            for kx in 0..kw {
                                let xo = (ix as i64) * win.strides[1]
                                    + (kx as i64) * win.dilation[1]
                                    - win.padding[1];
                                if xo < 0 || xo >= ow as i64 {
                                    continue;
                                }
                                let wi = ((ic * per_group_out + oc) * kh + ky) * kw + kx;
                                result[((b * o + och) * oh + y as usize) * ow + xo as usize] +=
                                    v * ws[wi];
                            }
                        }
                    }
                }
            }
        }
    }
    Tensor::from_f64s(dtype, &out, &result).map(OpValue::Tensor)
}
