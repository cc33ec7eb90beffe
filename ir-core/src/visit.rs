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

use crate::Node;

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
/// * On a family enum (derived): dispatch to the hook of the node's kind.
///
/// Hooks call it explicitly: `call.walk(self)`.
pub trait Walk<V, R> {
    /// Visits what this value contains (or dispatches, for a family).
    fn walk(&self, visitor: &mut V) -> R;
}

/// How a value is visited where it appears as a *field*: a family value goes
/// through the visitor's entry hook, a `Node<Kind>` through its kind's typed
/// hook, a plain derived struct is walked, and containers visit each element.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be visited as a child by `{V}`",
    label = "not a child node type for this visitor",
    note = "children are family enums, `Node<Kind>` handles, derived structs, and Vec/Option/Box/tuples/arrays of them",
    note = "a family whose kinds contain other families needs `#[ir(uses(...))]` so its visitor trait requires theirs"
)]
pub trait Visit<V, R> {
    /// Visits `self` in child position.
    fn visit(&self, visitor: &mut V) -> R;
}

/// Implemented by `#[derive(Visitable)]` on a family for each of its kinds:
/// what visiting a field typed `Node<Kind>` means (the kind's definition hook,
/// or its use hook if the kind has no definition sites).
pub trait VisitKind<V, R>: Sized {
    /// Visits a handle to this kind found in a typed field.
    fn visit_node(node: &Node<Self>, visitor: &mut V) -> R;
}

impl<K> Node<K> {
    /// The default recursion of a visitor hook: visits this node's children
    /// in field declaration order. (The kind's family ties the result type to
    /// the visitor, so `node.walk(self);` needs no annotation.)
    #[inline]
    pub fn walk<V, R>(&self, visitor: &mut V) -> R
    where
        K: Walk<V, R> + VisitKind<V, R>,
    {
        (**self).walk(visitor)
    }
}

impl<V, R, K: VisitKind<V, R>> Visit<V, R> for Node<K> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        crate::stack::guarded(|| K::visit_node(self, visitor))
    }
}

impl<V, R: VisitResult, T: Visit<V, R>> Visit<V, R> for [T] {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        for item in self {
            try_visit!(item.visit(visitor));
        }
        R::output()
    }
}

impl<V, R: VisitResult, T: Visit<V, R>> Visit<V, R> for Vec<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        self.as_slice().visit(visitor)
    }
}

impl<V, R: VisitResult, T: Visit<V, R>, const N: usize> Visit<V, R> for [T; N] {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        self.as_slice().visit(visitor)
    }
}

impl<V, R: VisitResult, T: Visit<V, R>> Visit<V, R> for Option<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        match self {
            Some(x) => x.visit(visitor),
            None => R::output(),
        }
    }
}

impl<V, R, T: Visit<V, R>> Visit<V, R> for Box<T> {
    #[inline]
    fn visit(&self, visitor: &mut V) -> R {
        (**self).visit(visitor)
    }
}

macro_rules! tuple_visit {
    ($($t:ident $i:tt),+) => {
        impl<V, R: VisitResult, $($t: Visit<V, R>),+> Visit<V, R> for ($($t,)+) {
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
