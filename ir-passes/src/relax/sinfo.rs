//! Struct info (TVM's `StructInfo`): what is known statically about a value —
//! an object, a scalar, a shape, a tensor (shape or rank, dtype), a tuple or
//! a function. Shapes are symbolic (`PrimExpr`).

use ir_core::{Mutable, Node, StructuralEq, Visitable};

use super::arith::can_prove_equal;
use super::dtype::DataType;
use super::prim::PrimExpr;

/// `R.Object`: any value.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct ObjectStructInfo {}

/// `R.Prim("int64")`, optionally with a known value (`R.Prim(value=n)`).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct PrimStructInfo {
    /// The scalar type.
    #[ir(skip)]
    pub dtype: DataType,
    /// The value, when known.
    pub value: Option<PrimExpr>,
}

/// `R.Shape([n, 4])` or `R.Shape(ndim=2)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct ShapeStructInfo {
    /// The values, when known.
    pub values: Option<Vec<PrimExpr>>,
    /// The rank, `-1` when unknown.
    #[ir(skip)]
    pub ndim: i64,
}

/// `R.Tensor((n, 4), dtype="float32")`, `R.Tensor(ndim=2)`, `R.Tensor`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TensorStructInfo {
    /// The shape, when known.
    pub shape: Option<Vec<PrimExpr>>,
    /// The rank, `-1` when unknown (equal to the shape's length when known).
    #[ir(skip)]
    pub ndim: i64,
    /// The element type (`Void` when unknown).
    #[ir(skip)]
    pub dtype: DataType,
}

/// `R.Tuple(a, b)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TupleStructInfo {
    /// One per field.
    pub fields: Vec<StructInfo>,
}

/// `R.Callable((a, b), r)`: a function's parameters and result.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct FuncStructInfo {
    /// Parameter infos; `None` for an opaque function.
    pub params: Option<Vec<StructInfo>>,
    /// The result.
    pub ret: StructInfo,
    /// Whether calling it has no side effects.
    #[ir(skip)]
    pub pure: bool,
}

/// The family of struct infos.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(uses(PrimExpr), rewriter)]
pub enum StructInfo {
    /// Any value.
    ObjectStructInfo(Node<ObjectStructInfo>),
    /// A scalar.
    PrimStructInfo(Node<PrimStructInfo>),
    /// A shape.
    ShapeStructInfo(Node<ShapeStructInfo>),
    /// A tensor.
    TensorStructInfo(Node<TensorStructInfo>),
    /// A tuple.
    TupleStructInfo(Node<TupleStructInfo>),
    /// A function.
    FuncStructInfo(Node<FuncStructInfo>),
}

use super::prim::{PrimExprMutator, PrimExprRewriter, PrimExprVisitor};

impl StructInfo {
    /// `R.Object`.
    pub fn object() -> StructInfo {
        ObjectStructInfo {}.into()
    }

    /// A tensor of known shape.
    pub fn tensor(shape: Vec<PrimExpr>, dtype: DataType) -> StructInfo {
        TensorStructInfo {
            ndim: shape.len() as i64,
            shape: Some(shape),
            dtype,
        }
        .into()
    }

    /// A tensor of known rank (`-1`: unknown) and unknown shape.
    pub fn tensor_ndim(ndim: i64, dtype: DataType) -> StructInfo {
        TensorStructInfo {
            shape: None,
            ndim,
            dtype,
        }
        .into()
    }

    /// A shape of known values.
    pub fn shape(values: Vec<PrimExpr>) -> StructInfo {
        ShapeStructInfo {
            ndim: values.len() as i64,
            values: Some(values),
        }
        .into()
    }

    /// A scalar of that type, value unknown.
    pub fn prim(dtype: DataType) -> StructInfo {
        PrimStructInfo { dtype, value: None }.into()
    }

    /// A tuple.
    pub fn tuple(fields: Vec<StructInfo>) -> StructInfo {
        TupleStructInfo { fields }.into()
    }

    /// Whether this is the empty tuple, what an effect (`R.print`) yields:
    /// TVM's "void".
    pub fn is_void(&self) -> bool {
        matches!(self, StructInfo::TupleStructInfo(t) if t.fields.is_empty())
    }

    /// A pure function of those parameters.
    pub fn func(params: Vec<StructInfo>, ret: StructInfo) -> StructInfo {
        FuncStructInfo {
            params: Some(params),
            ret,
            pure: true,
        }
        .into()
    }

    /// The tensor info, if it is one.
    pub fn tensor_parts(&self) -> Option<&TensorStructInfo> {
        self.as_tensor_struct_info().map(|n| &**n)
    }
}

/// Whether every value that `derived` describes is also described by `base`
/// (TVM's `IsBaseOf`), as far as can be proven: `R.Tensor((n, 4))` is a
/// `R.Tensor(ndim=2)`, and `R.Tensor((2 * n,))` is a `R.Tensor((n + n,))`.
/// Conservative: `false` when it cannot be shown.
pub fn is_base_of(base: &StructInfo, derived: &StructInfo) -> bool {
    ir_core::stack::guarded(|| match (base, derived) {
        (StructInfo::ObjectStructInfo(_), _) => true,
        (StructInfo::PrimStructInfo(b), StructInfo::PrimStructInfo(d)) => {
            (b.dtype.is_void() || b.dtype == d.dtype)
                && match (&b.value, &d.value) {
                    (None, _) => true,
                    (Some(bv), Some(dv)) => can_prove_equal(bv, dv),
                    (Some(_), None) => false,
                }
        }
        (StructInfo::ShapeStructInfo(b), StructInfo::ShapeStructInfo(d)) => {
            (b.ndim == -1 || b.ndim == d.ndim) && values_base_of(&b.values, &d.values)
        }
        (StructInfo::TensorStructInfo(b), StructInfo::TensorStructInfo(d)) => {
            (b.dtype.is_void() || b.dtype == d.dtype)
                && (b.ndim == -1 || b.ndim == d.ndim)
                && values_base_of(&b.shape, &d.shape)
        }
        (StructInfo::TupleStructInfo(b), StructInfo::TupleStructInfo(d)) => {
            b.fields.len() == d.fields.len()
                && b.fields
                    .iter()
                    .zip(&d.fields)
                    .all(|(b, d)| is_base_of(b, d))
        }
        (StructInfo::FuncStructInfo(b), StructInfo::FuncStructInfo(d)) => {
            (!b.pure || d.pure)
                && is_base_of(&b.ret, &d.ret)
                && match (&b.params, &d.params) {
                    (None, _) => true,
                    // Parameters are contravariant.
                    (Some(bp), Some(dp)) => {
                        bp.len() == dp.len() && bp.iter().zip(dp).all(|(b, d)| is_base_of(d, b))
                    }
                    (Some(_), None) => false,
                }
        }
        _ => false,
    })
}

fn values_base_of(base: &Option<Vec<PrimExpr>>, derived: &Option<Vec<PrimExpr>>) -> bool {
    match (base, derived) {
        (None, _) => true,
        (Some(b), Some(d)) => {
            b.len() == d.len() && b.iter().zip(d).all(|(b, d)| can_prove_equal(b, d))
        }
        (Some(_), None) => false,
    }
}

/// The least specific info covering both (TVM's `StructInfoLCA`), used for
/// the result of an `if`.
pub fn lca(a: &StructInfo, b: &StructInfo) -> StructInfo {
    if is_base_of(a, b) {
        return a.clone();
    }
    if is_base_of(b, a) {
        return b.clone();
    }
    match (a, b) {
        (StructInfo::TensorStructInfo(x), StructInfo::TensorStructInfo(y)) => {
            let dtype = if x.dtype == y.dtype {
                x.dtype
            } else {
                DataType::Void
            };
            let ndim = if x.ndim == y.ndim { x.ndim } else { -1 };
            StructInfo::tensor_ndim(ndim, dtype)
        }
        (StructInfo::ShapeStructInfo(x), StructInfo::ShapeStructInfo(y)) => ShapeStructInfo {
            values: None,
            ndim: if x.ndim == y.ndim { x.ndim } else { -1 },
        }
        .into(),
        (StructInfo::PrimStructInfo(x), StructInfo::PrimStructInfo(y)) => {
            StructInfo::prim(if x.dtype == y.dtype {
                x.dtype
            } else {
                DataType::Void
            })
        }
        (StructInfo::TupleStructInfo(x), StructInfo::TupleStructInfo(y))
            if x.fields.len() == y.fields.len() =>
        {
            StructInfo::tuple(
                x.fields
                    .iter()
                    .zip(&y.fields)
                    .map(|(a, b)| lca(a, b))
                    .collect(),
            )
        }
        _ => StructInfo::object(),
    }
}
