//! Relay types: tensor, tuple, function, type parameters, algebraic data
//! types applied to arguments, references and incomplete types.

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

/// `fn (T1, T2) -> R`, or generic: `fn [A](A) -> A`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct FuncType {
    /// Type parameters, by name (`A`).
    #[ir(skip)]
    pub type_params: Vec<String>,
    /// Parameter types.
    pub params: Vec<Type>,
    /// Result type.
    pub ret: Type,
}

/// `A`: a type parameter of a generic function or of a type definition.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TypeVar {
    /// The name.
    #[ir(skip)]
    pub name: String,
}

/// `List[A]`: an algebraic data type applied to arguments (`Nat` when it
/// takes none).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TypeCall {
    /// The type definition's name.
    #[ir(skip)]
    pub name: String,
    /// The arguments, one per type parameter.
    pub args: Vec<Type>,
}

/// `ref(T)`: a mutable reference cell holding a `T`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct RefType {
    /// The held type.
    pub value: Type,
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
    /// A type parameter.
    TypeVar(Node<TypeVar>),
    /// An algebraic data type applied to arguments.
    TypeCall(Node<TypeCall>),
    /// A reference type.
    RefType(Node<RefType>),
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

    /// A type parameter.
    pub fn var(name: &str) -> Type {
        TypeVar {
            name: name.to_owned(),
        }
        .into()
    }

    /// `name[args]`.
    pub fn call(name: &str, args: Vec<Type>) -> Type {
        TypeCall {
            name: name.to_owned(),
            args,
        }
        .into()
    }

    /// `ref(value)`.
    pub fn reference(value: Type) -> Type {
        RefType { value }.into()
    }

    /// `fn (params) -> ret`.
    pub fn func(params: Vec<Type>, ret: Type) -> Type {
        FuncType {
            type_params: Vec::new(),
            params,
            ret,
        }
        .into()
    }
}
