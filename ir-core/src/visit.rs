//! Read-only traversal: the traits `#[derive(Visitable)]` implements.
//!
//! A generated `<Family>Visitor<R>` trait has one hook per node kind. The hook
//! *dispatch* (`visit_expr` choosing `visit_call`) is separate from the
//! *default recursion* ([`Walk::walk`]), which an override calls explicitly
//! when it wants the children visited.
//!
//! Visitors only ever see `&` references to nodes behind [`Node`], so a
//! visitor cannot change the IR (oneDNN's `ir_viewer_t`, by construction).

use std::ops::ControlFlow;

use crate::kind_ref::KindRef;
use crate::{ChildType, Family, Node, NodeKind};

/// The result type of a visitor: `()` for visitors that always finish, or
/// [`ControlFlow`] / [`Result`] for visitors that may stop early.
///
/// Generated visitor traits take it as a type parameter defaulting to `()`, so
/// a plain visitor writes nothing for it and pays nothing.
pub trait VisitResult: Sized {
    /// The value that means "keep going".
    fn output() -> Self;
    /// Splits into "keep going" or "stop with this value".
    fn branch(self) -> ControlFlow<Self>;
}

impl VisitResult for () {
    #[inline(always)]
    fn output() {}
    #[inline(always)]
    fn branch(self) -> ControlFlow<Self> {
        ControlFlow::Continue(())
    }
}

impl<B> VisitResult for ControlFlow<B> {
    #[inline(always)]
    fn output() -> Self {
        ControlFlow::Continue(())
    }
    #[inline(always)]
    fn branch(self) -> ControlFlow<Self> {
        match self {
            ControlFlow::Continue(()) => ControlFlow::Continue(()),
            brk => ControlFlow::Break(brk),
        }
    }
}

impl<E> VisitResult for Result<(), E> {
    #[inline(always)]
    fn output() -> Self {
        Ok(())
    }
    #[inline(always)]
    fn branch(self) -> ControlFlow<Self> {
        match self {
            Ok(()) => ControlFlow::Continue(()),
            err => ControlFlow::Break(err),
        }
    }
}

/// Returns early from the enclosing function when a visit result says "stop".
///
/// ```
/// use std::ops::ControlFlow;
/// fn first_negative(xs: &[i32]) -> ControlFlow<i32> {
///     for &x in xs {
///         ir_core::try_visit!(if x < 0 { ControlFlow::Break(x) } else { ControlFlow::Continue(()) });
///     }
///     ControlFlow::Continue(())
/// }
/// assert_eq!(first_negative(&[1, -2, -3]), ControlFlow::Break(-2));
/// ```
#[macro_export]
macro_rules! try_visit {
    ($e:expr) => {
        if let ::core::ops::ControlFlow::Break(r) = $crate::VisitResult::branch($e) {
            return r;
        }
    };
}

/// Default recursion of a visitor.
///
/// * On a node struct (derived): visit every child, in field declaration order.
///   A struct with an `#[ir(tail)]` field (a let's body) walks the chain that
///   field continues in a loop (see [`crate::driver`]), with the same result.
/// * On a family enum (derived): dispatch to the hook of the node's kind.
///
/// Hooks call it explicitly: `call.walk(self)`.
pub trait Walk<V: ?Sized, R> {
    /// Visits what this value contains (or dispatches, for a family).
    fn walk(&self, visitor: &mut V) -> R;
}

/// Marks a struct that `#[derive(Visitable)]` implemented: its [`Visit`] (and,
/// with `#[derive(Mutable)]`, its [`Mutate`](crate::Mutate)) visits its fields
/// in declaration order, and that is also its [`Walk`] (and
/// [`RebuildFields`](crate::RebuildFields)).
///
/// Those two follow from the first two by one impl here for every derived
/// struct, rather than by one more impl per struct in the expansion: a node
/// struct's default recursion is the same whether it is reached as a field
/// or through its kind's hook.
pub trait DerivedStruct {}

impl<V: ?Sized, R, T: Visit<V, R> + DerivedStruct> Walk<V, R> for T {
    #[inline(always)]
    fn walk(&self, visitor: &mut V) -> R {
        self.visit(visitor)
    }
}

/// How a value is visited where it appears as a *field*: a family value goes
/// through the visitor's entry hook, a `Node<Kind>` through its kind's typed
/// hook, a derived struct is walked, and containers visit each element.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be visited as a child by `{V}`",
    label = "not a child node type for this visitor",
    note = "children are family enums, `Node<Kind>` handles, derived structs, and Vec/Option/Box/tuples/arrays of them",
    note = "a family whose kinds contain other families needs `#[ir(uses(...))]` so its visitor trait requires theirs"
)]
pub trait Visit<V: ?Sized, R> {
    /// Visits `self` in child position.
    fn visit(&self, visitor: &mut V) -> R;
}

/// What visiting a field typed `Node<Kind>` means: the kind's definition
/// hook, or its use hook if the kind has no definition sites. Implemented
/// for every kind of a derived family (through the family's dispatch, see
/// [`crate::kind_ref`]) and by the derive for kinds added to an open family.
pub trait VisitKind<V: ?Sized, R>: Sized {
    /// Visits a handle to this kind found in a typed field.
    fn visit_node(node: &Node<Self>, visitor: &mut V) -> R;
}

impl<K> Node<K> {
    /// The default recursion of a visitor hook: visits this node's children
    /// in field declaration order. (The kind's family ties the result type to
    /// the visitor, so `node.walk(self);` needs no annotation.)
    #[inline]
    pub fn walk<V: ?Sized, R>(&self, visitor: &mut V) -> R
    where
        K: Walk<V, R> + VisitKind<V, R>,
    {
        (**self).walk(visitor)
    }
}

/// The body of every generated default kind hook of a visitor: the node's
/// default recursion, unless a driver takes the node back (a chain link,
/// see [`crate::driver`]).
#[doc(hidden)]
#[inline]
pub fn __visit_default<V: ?Sized, R: VisitResult, K: Walk<V, R> + ChildType>(
    visitor: &mut V,
    node: &Node<K>,
) -> R {
    if K::HAS_TAIL && crate::driver::hand_back(visitor, node.addr()) {
        return R::output();
    }
    (**node).walk(visitor)
}

/// The body of every generated default entry hook of a visitor: dispatch to
/// the kind's hook, letting a driver's chain link through (see [`crate::driver`]).
#[doc(hidden)]
#[inline]
pub fn __visit_entry<V: ?Sized, R, F: Walk<V, R> + Family>(visitor: &mut V, node: &F) -> R {
    if F::ANY_TAIL {
        crate::driver::pass_through(visitor, || node.addr());
    }
    node.walk(visitor)
}

/// The body of a visitor's entry hook that acts *before* walking each node:
/// runs `before`, then the default dispatch unless `before` says
/// `ControlFlow::Break(result)`.
///
/// Because `before` cannot run code after the walk, a let chain below such
/// an entry hook is still walked in a loop (see [`crate::driver`]); an entry
/// hook written by hand that calls `node.walk(self)` gets plain recursion,
/// as its code after the walk must run in order.
///
/// ```
/// use std::ops::ControlFlow;
/// use ir_core::prelude::*;
///
/// #[derive(Clone, Visitable)]
/// struct Lit { #[ir(skip)] value: i64 }
/// #[derive(Clone, Visitable)]
/// struct Let { value: Expr, #[ir(tail)] body: Expr }
/// #[derive(Clone, Visitable)]
/// enum Expr { Lit(Node<Lit>), Let(Node<Let>) }
///
/// struct CountNodes(usize);
/// impl ExprVisitor for CountNodes {
///     fn visit_expr(&mut self, e: &Expr) {
///         ir_core::visit_preorder(self, e, |pass, _| {
///             pass.0 += 1;
///             ControlFlow::Continue(())
///         })
///     }
/// }
///
/// let mut e = Expr::from(Lit { value: 0 });
/// for i in 0..1_000_000 {
///     e = Let { value: Lit { value: i }.into(), body: e }.into();
/// }
/// let mut count = CountNodes(0);
/// count.visit_expr(&e);
/// assert_eq!(count.0, 2_000_001);
/// ```
#[inline]
pub fn visit_preorder<V, R, F>(
    visitor: &mut V,
    node: &F,
    before: impl FnOnce(&mut V, &F) -> ControlFlow<R>,
) -> R
where
    V: ?Sized,
    F: Walk<V, R> + Family,
{
    if let ControlFlow::Break(r) = before(visitor, node) {
        return r;
    }
    __visit_entry(visitor, node)
}

/// Every kind of a derived family: its family's dispatch picks the hook.
impl<V: ?Sized, R, K: NodeKind + 'static> VisitKind<V, R> for K
where
    K::Family: VisitTyped<V, R>,
{
    #[inline]
    fn visit_node(node: &Node<K>, visitor: &mut V) -> R {
        K::Family::visit_typed(visitor, K::INDEX, KindRef::new(node))
    }
}

/// A family's dispatch of typed fields to its kinds' hooks (see
/// [`crate::kind_ref`]). Implemented by `#[derive(Visitable)]` on the family,
/// through the hidden `__visit_kind` method of its visitor trait.
#[doc(hidden)]
pub trait VisitTyped<V: ?Sized, R> {
    /// Calls the hook of the kind at `index` on `node`.
    fn visit_typed(visitor: &mut V, index: usize, node: KindRef<'_>) -> R;
}

impl<V: ?Sized, R, K: VisitKind<V, R>> Visit<V, R> for Node<K> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        crate::stack::guarded(|| K::visit_node(self, visitor))
    }
}

impl<V: ?Sized, R: VisitResult, T: Visit<V, R>> Visit<V, R> for [T] {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        for item in self {
            try_visit!(item.visit(visitor));
        }
        R::output()
    }
}

impl<V: ?Sized, R: VisitResult, T: Visit<V, R>> Visit<V, R> for Vec<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        self.as_slice().visit(visitor)
    }
}

impl<V: ?Sized, R: VisitResult, T: Visit<V, R>> Visit<V, R> for crate::ShortVec<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        self.as_slice().visit(visitor)
    }
}

impl<V: ?Sized, R: VisitResult, T: Visit<V, R>, const N: usize> Visit<V, R> for [T; N] {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        self.as_slice().visit(visitor)
    }
}

impl<V: ?Sized, R: VisitResult, T: Visit<V, R>> Visit<V, R> for Option<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        match self {
            Some(x) => x.visit(visitor),
            None => R::output(),
        }
    }
}

impl<V: ?Sized, R, T: Visit<V, R>> Visit<V, R> for Box<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        (**self).visit(visitor)
    }
}

macro_rules! tuple_visit {
    ($($t:ident $i:tt),+) => {
        impl<V: ?Sized, R: VisitResult, $($t: Visit<V, R>),+> Visit<V, R> for ($($t,)+) {
            #[inline]
            fn visit(&self, visitor: &mut V) -> R {
                $( try_visit!(self.$i.visit(visitor)); )+
                R::output()
            }
        }
    };
}
tuple_visit!(A 0);
tuple_visit!(A 0, B 1);
tuple_visit!(A 0, B 1, C 2);
tuple_visit!(A 0, B 1, C 2, D 3);
