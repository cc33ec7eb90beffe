//! Relay types: tensor, tuple, function and incomplete types.

use std::fmt;

use ir_core::{Mutable, Node, StructuralEq, Visitable};

use super::dtype::DType;

/// One dimension of a tensor shape: known, or `?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A known extent.
    Known(i64),
    /// `?`: unknown.
    Any,
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Any => f.write_str("?"),
        }
    }
}

/// `Tensor[(d1, d2), dtype]`; a bare dtype is rank 0.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TensorType {
    /// The dimensions.
    #[ir(skip)]
    pub shape: Vec<Dim>,
    /// The element type.
    #[ir(skip)]
    pub dtype: DType,
}

/// `(T1, T2)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TupleType {
    /// The field types.
    pub fields: Vec<Type>,
}

/// `fn (T1, T2) -> R`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct FuncType {
    /// Parameter types.
    pub params: Vec<Type>,
    /// Result type.
    pub ret: Type,
}

/// `_`: to be inferred.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct IncompleteType {}

/// The family of Relay types.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(rewriter)]
pub enum Type {
    /// A tensor type.
    TensorType(Node<TensorType>),
    /// A tuple type.
    TupleType(Node<TupleType>),
    /// A function type.
    FuncType(Node<FuncType>),
    /// An incomplete type.
    IncompleteType(Node<IncompleteType>),
}

impl Type {
    /// `Tensor[shape, dtype]`.
    pub fn tensor(shape: Vec<Dim>, dtype: DType) -> Type {
        TensorType { shape, dtype }.into()
    }

    /// A rank-0 tensor type.
    pub fn scalar(dtype: DType) -> Type {
        Type::tensor(Vec::new(), dtype)
    }

    /// A tuple type.
    pub fn tuple(fields: Vec<Type>) -> Type {
        TupleType { fields }.into()
    }

    /// `_`.
    pub fn incomplete() -> Type {
        IncompleteType {}.into()
    }
}
