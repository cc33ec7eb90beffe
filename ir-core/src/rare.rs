//! [`Rare`]: an optional child that is usually absent, such as the slot an
//! upstream kind leaves for a downstream dialect's data (Relay's `Var::ext`).

use crate::structural::{EqState, HashState, StructuralEq};
use crate::{ChildType, Mutate, Transformed, Visit, VisitResult};

/// An optional child, like `Option<T>`, for a child that is usually absent:
/// passes visit, rebuild and compare it like any child, but its traversal is
/// out of line and a present child is boxed. A kind that carries one pays a
/// null check and 8 bytes. A plain `Option<Expr>` field takes 16 bytes, and
/// its traversal, inlined in the family's recursion, made Relay's identity
/// pass over a let chain about 5 ns per binding slower.
///
/// ```
/// use ir_core::prelude::*;
/// use ir_core::Rare;
///
/// #[derive(Clone, Visitable, Mutable)]
/// struct Lit { #[ir(skip)] value: i64 }
/// #[derive(Clone, Visitable, Mutable)]
/// struct Var { #[ir(skip)] name: String, note: Rare<Expr> }
/// #[derive(Clone, Visitable, Mutable)]
/// enum Expr { Lit(Node<Lit>), Var(Node<Var>) }
///
/// struct Count(usize);
/// impl ExprVisitor for Count {
///     fn visit_lit(&mut self, _: &Node<Lit>) { self.0 += 1 }
/// }
/// let noted: Expr = Var { name: "x".into(), note: Rare::some(Lit { value: 1 }.into()) }.into();
/// let plain: Expr = Var { name: "y".into(), note: Rare::none() }.into();
/// let mut count = Count(0);
/// count.visit_expr(&noted);
/// count.visit_expr(&plain);
/// assert_eq!(count.0, 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rare<T>(Option<Box<T>>);

impl<T> Rare<T> {
    /// Absent.
    pub const fn none() -> Self {
        Rare(None)
    }

    /// Present.
    pub fn some(value: T) -> Self {
        Rare(Some(Box::new(value)))
    }

    /// The child, if present.
    #[inline]
    pub fn as_ref(&self) -> Option<&T> {
        self.0.as_deref()
    }

    /// The child, mutably, if present.
    #[inline]
    pub fn as_mut(&mut self) -> Option<&mut T> {
        self.0.as_deref_mut()
    }

    /// `true` when present.
    #[inline]
    pub fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// `true` when absent.
    #[inline]
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }

    /// The child, if present, taken out of its box.
    pub fn into_option(self) -> Option<T> {
        self.0.map(|b| *b)
    }
}

impl<T> From<Option<T>> for Rare<T> {
    fn from(value: Option<T>) -> Self {
        Rare(value.map(Box::new))
    }
}

impl<T: ChildType> ChildType for Rare<T> {}

impl<V: ?Sized, R: VisitResult, T: Visit<V, R>> Visit<V, R> for Rare<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        match &self.0 {
            None => R::output(),
            Some(x) => visit_present(&**x, visitor),
        }
    }
}

#[cold]
#[inline(never)]
fn visit_present<V: ?Sized, R, T: Visit<V, R>>(x: &T, visitor: &mut V) -> R {
    x.visit(visitor)
}

impl<M: ?Sized, T: Mutate<M>> Mutate<M> for Rare<T> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
        match &self.0 {
            None => Transformed::Keep,
            Some(x) => mutate_present(&**x, mutator).map(Rare::some),
        }
    }
    #[inline]
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
        match &mut self.0 {
            None => false,
            Some(x) => mutate_present_in_place(&mut **x, mutator),
        }
    }
}

#[cold]
#[inline(never)]
fn mutate_present<M: ?Sized, T: Mutate<M>>(x: &T, mutator: &mut M) -> Transformed<T> {
    x.mutate(mutator)
}

#[cold]
#[inline(never)]
fn mutate_present_in_place<M: ?Sized, T: Mutate<M>>(x: &mut T, mutator: &mut M) -> bool {
    x.mutate_in_place(mutator)
}

impl<T: StructuralEq> StructuralEq for Rare<T> {
    const DEFINES: bool = T::DEFINES;
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        self.0.struct_eq(&other.0, eq)
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        self.0.struct_hash(hasher)
    }
}
