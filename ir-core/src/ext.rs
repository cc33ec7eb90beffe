//! Open families: node kinds that a downstream crate adds to a family defined
//! upstream, without forking it (RAF's `ExtendedVar`, a constant holding a
//! runtime value).
//!
//! * Upstream, a family opts in with `#[ir(extensible)]` and one variant
//!   holding [`Ext<Self>`]: `Ext(Ext<Expr>)`. Its visitor and mutator traits
//!   gain a hook for such nodes (`visit_ext`, `mutate_ext`), and
//!   `From<Node<K>>` converts any downstream kind into the family.
//! * Downstream, kinds are plain structs with the usual derives, gathered in
//!   an extension family: `#[ir(extends(Expr))] enum RafExpr { RtConstant(Node<RtConstant>), .. }`.
//!   Its derives give each kind its runtime description ([`ExtVtable`]) and
//!   generate `RafExprVisitor`/`RafExprMutator`, with one hook per downstream
//!   kind, as easy to write as an upstream hook.
//!
//! An upstream kind can also leave an open slot for downstream data, a field
//! of the family type (a [`crate::Rare`] one, usually absent): Relay's
//! `Var::ext` holds RAF's `MayShare`, so that
//! RAF's extended variables are Relay variables, bound by `let`s.
//!
//! Upstream passes run over IR holding downstream nodes: with no hook for
//! them, the default recursion visits their children, and a mutator rebuilds
//! them copy-on-write, carrying over every skipped field. Equality, hashing,
//! `same_as`, memo tables and in-place mode work on them as on any node.
//!
//! A downstream pass wires its hooks in with one line in its upstream impl:
//!
//! ```text
//! impl ExprVisitor for MyPass {
//!     fn visit_ext(&mut self, node: &Ext<Expr>) { self.visit_raf_expr(node) }
//! }
//! impl RafExprVisitor for MyPass {
//!     fn visit_rt_constant(&mut self, c: &Node<RtConstant>) { ... }
//! }
//! ```
//!
//! That line is the one thing to remember: without it the pass's upstream
//! `visit_ext` keeps its default (visit the children), so its downstream
//! hooks compile but are never called.
//!
//! Dispatch to a downstream kind compares one number per kind of the
//! extension family (the kind's, carried in the handle: see [`Ext`]);
//! upstream kinds dispatch as before. Each downstream kind's description
//! holds its name and plain function pointers to its derived walk, rebuild, equality and hash,
//! instantiated for the family's visitor and mutator as trait objects: a pass
//! reaches them through [`VisitAdapter`] and [`MutAdapter`], which every
//! family's derive implements its traits for. No `dyn Any` is involved.
//!
//! An extensible family may also name an *interface*, a trait every
//! downstream kind implements (`#[ir(extensible(interface = RelayExtension))]`):
//! upstream passes ask it what they need (a type, a printed form, a constant
//! value), as MLIR's op interfaces do.

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{ControlFlow, Deref};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::ext_tag::{self, Tagged};
use crate::kind_ref::{KindMut, KindRef};
use crate::structural::{EqState, HashState, Mode, StructuralEq};
use crate::{Family, Node, RebuildFields, Transformed, VisitResult, Walk};

/// A family as other crates see it: whether it is open to their kinds
/// (`#[ir(extensible)]`), and its visitor as a trait object. Implemented by
/// `#[derive(Visitable)]` for every family, so that adding a kind to a closed
/// family is one error, from [`__assert_open`], rather than one per item.
pub trait Extensible: Family + 'static {
    /// `true` for a family declared `#[ir(extensible)]`.
    const OPEN: bool;
    /// The family's visitor as a trait object (`dyn ExprVisitor<ControlFlow<()>>`).
    type DynVisitor<'a>: ?Sized;
    /// What every downstream kind offers upstream passes (`dyn Interface`),
    /// or `dyn NoInterface`.
    type Interface: ?Sized;
    /// The family's `Ext` variant around a downstream node. (Never called for
    /// a closed family: code that would call it does not compile.)
    fn from_ext(node: Ext<Self>) -> Self;
}

/// The family's mutator as a trait object; implemented by `#[derive(Mutable)]`
/// for every family.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no mutator trait",
    note = "an extensible family derives `Mutable` too"
)]
pub trait ExtensibleMut: 'static {
    /// The family's mutator as a trait object (`dyn ExprMutator`).
    type DynMutator<'a>: ?Sized;
}

/// Fails the build, once, when kinds are added to a closed family.
#[doc(hidden)]
pub const fn __assert_open<F: Extensible>() {
    assert!(
        F::OPEN,
        "this family is closed: only a family declared `#[ir(extensible)]`, with a variant \
         `Ext(Ext<Family>)`, accepts kinds from other crates"
    );
}

/// The interface of an extensible family that names none.
pub trait NoInterface {}
impl<T: ?Sized> NoInterface for T {}

/// A kind added to the extensible family `F` by a downstream crate.
/// Implemented by the extension family's derive (`#[ir(extends(F))]`).
pub trait ExtKind<F: Extensible>: Sized + Send + Sync + 'static {
    /// The kind's runtime description (a `static`, numbered on first use:
    /// the number is the kind's identity in a handle).
    fn vtable() -> &'static ExtVtable<F>;
    /// The node as the family's interface.
    fn interface(&self) -> &F::Interface;
}

/// What a kind of an open family must derive; a single bound, so that a
/// kind that misses some gets a single error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` lacks the derives of a kind of an open family",
    label = "a kind added to `{F}` from another crate",
    note = "derive them: `#[derive(Clone, Debug, Visitable, Mutable, StructuralEq)]`"
)]
pub trait Derived<F: Extensible + ExtensibleMut> {
    /// The kind's derived code, behind function pointers.
    #[doc(hidden)]
    const FNS: KindFns<F>;
}

#[diagnostic::do_not_recommend]
impl<F: Extensible + ExtensibleMut, K> Derived<F> for K
where
    K: ExtKind<F>
        + Clone
        + fmt::Debug
        + StructuralEq
        + for<'a> Walk<F::DynVisitor<'a>, ControlFlow<()>>
        + for<'a> RebuildFields<F::DynMutator<'a>>,
{
    const FNS: KindFns<F> = KindFns {
        drop: drop_node::<K>,
        walk: walk_node::<F, K>,
        // SAFETY: function pointers all have one size; `Ext::rebuild_dyn` and
        // `Ext::rebuild_in_place_dyn` turn them back into these very types.
        rebuild: unsafe { std::mem::transmute::<RebuildFn<F>, fn()>(rebuild_node::<F, K>) },
        rebuild_in_place: unsafe {
            std::mem::transmute::<InPlaceFn<F>, fn()>(rebuild_node_in_place::<F, K>)
        },
        eq: eq_nodes::<K>,
        hash: hash_node::<K>,
        interface: interface_of::<F, K>,
        debug: debug_node::<K>,
    };
}

type WalkFn<F> = for<'a, 'b> unsafe fn(
    NonNull<()>,
    &'a mut <F as Extensible>::DynVisitor<'b>,
) -> ControlFlow<()>;
type RebuildFn<F> = for<'a, 'b> unsafe fn(
    NonNull<()>,
    &'a mut <F as ExtensibleMut>::DynMutator<'b>,
) -> Transformed<Ext<F>>;
type InPlaceFn<F> =
    for<'a, 'b> unsafe fn(NonNull<()>, &'a mut <F as ExtensibleMut>::DynMutator<'b>) -> bool;

/// The runtime description of a downstream kind: its name, how structural
/// equality treats it, and its derived code behind plain function pointers.
/// One `static` per kind (`ExtKind::vtable`).
pub struct ExtVtable<F: Extensible> {
    name: &'static str,
    mode: Mode,
    fns: KindFns<F>,
    /// The kind's number in a handle (see `ext_tag`), 0 until first used.
    number: AtomicU32,
}

/// A downstream kind's derived code, behind function pointers. The two that
/// take the family's mutator are stored without their type (`fn()`), so that
/// a family's visitor side does not depend on its mutator side.
#[doc(hidden)]
pub struct KindFns<F: Extensible> {
    drop: unsafe fn(NonNull<()>),
    walk: WalkFn<F>,
    rebuild: fn(),
    rebuild_in_place: fn(),
    eq: unsafe fn(NonNull<()>, NonNull<()>, Mode, &mut EqState) -> bool,
    hash: unsafe fn(NonNull<()>, Mode, &mut HashState<'_>),
    interface: unsafe fn(NonNull<()>) -> *const F::Interface,
    debug: unsafe fn(NonNull<()>, &mut fmt::Formatter<'_>) -> fmt::Result,
}

impl<F: Extensible> ExtVtable<F> {
    /// The description of kind `K` (used by the generated `static`s).
    pub const fn of<K: Derived<F>>(name: &'static str, mode: Mode) -> Self
    where
        F: ExtensibleMut,
    {
        ExtVtable {
            name,
            mode,
            fns: K::FNS,
            number: AtomicU32::new(0),
        }
    }

    /// The kind's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The kind's number in a handle, given on first use.
    #[inline]
    fn number(&'static self) -> u16 {
        ext_tag::number(std::ptr::from_ref(self).cast(), &self.number)
    }
}

/// A borrowed `Node<K>` made from an erased handle's pointer: it shares the
/// handle's count and is never dropped.
///
/// # Safety
/// `ptr` is a live `Node<K>` allocation that outlives `'a`.
unsafe fn view<'a, K>(ptr: NonNull<()>) -> NodeRef<'a, K> {
    NodeRef {
        // SAFETY: the caller's pointer is a `Node<K>` allocation; the view
        // does not give its count back (`ManuallyDrop`).
        node: ManuallyDrop::new(unsafe { Node::from_raw(ptr) }),
        _borrow: PhantomData,
    }
}

unsafe fn drop_node<K>(ptr: NonNull<()>) {
    // SAFETY: gives back the count of the `Ext` being dropped.
    drop(unsafe { Node::<K>::from_raw(ptr) });
}

unsafe fn walk_node<F: Extensible, K>(
    ptr: NonNull<()>,
    visitor: &mut F::DynVisitor<'_>,
) -> ControlFlow<()>
where
    K: for<'a> Walk<F::DynVisitor<'a>, ControlFlow<()>>,
{
    // SAFETY: `ptr` is the live node of an `Ext` borrowed by the caller.
    let node = unsafe { view::<K>(ptr) };
    Walk::walk(&**node, visitor)
}

unsafe fn rebuild_node<F: Extensible + ExtensibleMut, K>(
    ptr: NonNull<()>,
    mutator: &mut F::DynMutator<'_>,
) -> Transformed<Ext<F>>
where
    K: ExtKind<F> + for<'a> RebuildFields<F::DynMutator<'a>>,
{
    // SAFETY: as above.
    let node = unsafe { view::<K>(ptr) };
    node.rebuild_fields(mutator)
        .map(|contents| Ext::new(Node::new(contents)))
}

unsafe fn rebuild_node_in_place<F: Extensible + ExtensibleMut, K>(
    ptr: NonNull<()>,
    mutator: &mut F::DynMutator<'_>,
) -> bool
where
    K: for<'a> RebuildFields<F::DynMutator<'a>>,
{
    // SAFETY: as above; the caller holds the only handle, mutably.
    let mut node = unsafe { view::<K>(ptr) };
    crate::driver::node_in_place(&mut *node.node, mutator)
}

unsafe fn eq_nodes<K: StructuralEq + 'static>(
    a: NonNull<()>,
    b: NonNull<()>,
    mode: Mode,
    eq: &mut EqState,
) -> bool {
    // SAFETY: both are live nodes of kind `K` (their vtables are the same).
    let (a, b) = unsafe { (view::<K>(a), view::<K>(b)) };
    let (a, b): (&Node<K>, &Node<K>) = (&a, &b);
    let fields = |eq: &mut EqState| (**a).struct_eq(b, eq);
    match mode {
        Mode::Graph => eq.graph(a, b, fields),
        Mode::Structural | Mode::Def => eq.structural(a, b, fields),
    }
}

unsafe fn hash_node<K: StructuralEq + 'static>(
    ptr: NonNull<()>,
    mode: Mode,
    hasher: &mut HashState<'_>,
) {
    // SAFETY: a live node of kind `K`.
    let node = unsafe { view::<K>(ptr) };
    let node: &Node<K> = &node;
    let fields = |h: &mut HashState<'_>| (**node).struct_hash(h);
    match mode {
        Mode::Graph => hasher.graph(node, fields),
        Mode::Structural | Mode::Def => hasher.structural(node, fields),
    }
}

unsafe fn interface_of<F: Extensible, K: ExtKind<F>>(ptr: NonNull<()>) -> *const F::Interface {
    // SAFETY: a live node of kind `K`; the pointer is used while it lives.
    let node = unsafe { view::<K>(ptr) };
    let interface: &F::Interface = (**node).interface();
    interface
}

unsafe fn debug_node<K: fmt::Debug>(ptr: NonNull<()>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    // SAFETY: a live node of kind `K`.
    let node = unsafe { view::<K>(ptr) };
    fmt::Debug::fmt(&**node, f)
}

/// A handle to a node of a kind added to the family `F` by a downstream
/// crate: the payload of an extensible family's `Ext` variant.
///
/// One word on 64-bit targets: the node's address, with its kind's number
/// in the top bits (see `ext_tag`), so that an extensible family is no
/// bigger than a closed one.
pub struct Ext<F: Extensible> {
    handle: Tagged,
    _kind: PhantomData<&'static ExtVtable<F>>,
}

// SAFETY: downstream kinds are `Send + Sync` (`ExtKind`), and the handle is a
// `Node` of one of them.
unsafe impl<F: Extensible> Send for Ext<F> {}
// SAFETY: as above.
unsafe impl<F: Extensible> Sync for Ext<F> {}

impl<F: Extensible> Ext<F> {
    /// Erases a downstream node's kind.
    pub fn new<K: ExtKind<F>>(node: Node<K>) -> Self {
        // The handle is made (which may panic) before the node's count is
        // taken over, so that a panic drops the node rather than leak it.
        let ext = Ext::from_parts(node.raw(), K::vtable());
        std::mem::forget(node);
        ext
    }

    /// A handle to the allocation `ptr` of a node of the kind `vtable`
    /// describes, taking over one count (or none, for a view kept in
    /// `ManuallyDrop`).
    #[inline]
    fn from_parts(ptr: NonNull<()>, vtable: &'static ExtVtable<F>) -> Self {
        Ext {
            handle: Tagged::new(ptr, vtable.number()),
            _kind: PhantomData,
        }
    }

    /// The node's allocation.
    #[inline(always)]
    fn ptr(&self) -> NonNull<()> {
        self.handle.ptr()
    }

    /// The kind's description.
    #[inline]
    fn vtable(&self) -> &'static ExtVtable<F> {
        // SAFETY: the number was given to an `ExtVtable<F>` (`from_parts`),
        // and numbers are never reused.
        unsafe { &*ext_tag::description(self.handle.kind()).cast::<ExtVtable<F>>() }
    }

    /// The kind's name, e.g. `"RtConstant"`.
    pub fn kind_name(&self) -> &'static str {
        self.vtable().name
    }

    /// How structural equality treats the kind.
    pub fn mode(&self) -> Mode {
        self.vtable().mode
    }

    /// The node's address (as [`Node::addr`] of the same node).
    #[inline]
    pub fn addr(&self) -> usize {
        self.ptr().as_ptr() as usize
    }

    /// The handle with its kind erased, for its family's
    /// [`Family::kind_ref`](crate::Family::kind_ref): no `NodeKind` casts it back.
    #[doc(hidden)]
    #[inline]
    pub fn kind_ref(&self) -> KindRef<'_> {
        KindRef::downstream(&self.handle)
    }

    /// [`Ext::kind_ref`], mutably.
    #[doc(hidden)]
    #[inline]
    pub fn kind_mut(&mut self) -> KindMut<'_> {
        KindMut::downstream(&mut self.handle)
    }

    /// How many handles share the node.
    #[inline]
    pub fn strong_count(&self) -> usize {
        // SAFETY: as above.
        unsafe { Node::<()>::raw_count(self.ptr()) }.load(Ordering::Acquire)
    }

    /// Pointer identity.
    #[inline]
    pub fn same_as(&self, other: &Self) -> bool {
        self.handle == other.handle
    }

    /// `true` when the node is of kind `K`.
    #[inline]
    pub fn is<K: ExtKind<F>>(&self) -> bool {
        // A kind never numbered has no handles.
        u32::from(self.handle.kind()) == K::vtable().number.load(Ordering::Acquire)
    }

    /// The node as a `Node<K>`, if it is of kind `K` (no count change).
    #[inline]
    pub fn downcast<K: ExtKind<F>>(&self) -> Option<NodeRef<'_, K>> {
        // SAFETY: the kind is checked; the view borrows `self`.
        self.is::<K>().then(|| unsafe { view::<K>(self.ptr()) })
    }

    /// The node as the family's interface.
    pub fn interface(&self) -> &F::Interface {
        // SAFETY: the pointer comes from the node, which `self` keeps alive.
        unsafe { &*(self.vtable().fns.interface)(self.ptr()) }
    }

    /// Visits the node's children with a pass as the family's visitor object
    /// (see [`VisitAdapter`]).
    pub fn walk_dyn(&self, visitor: &mut F::DynVisitor<'_>) -> ControlFlow<()> {
        // SAFETY: a live node of the kind the vtable describes.
        unsafe { (self.vtable().fns.walk)(self.ptr(), visitor) }
    }

    /// The node rebuilt from its mutated children (copy-on-write), carrying
    /// over its other fields.
    pub fn rebuild_dyn(&self, mutator: &mut F::DynMutator<'_>) -> Transformed<Ext<F>>
    where
        F: ExtensibleMut,
    {
        // SAFETY: stored from a `RebuildFn<F>` (see `KindFns`), for this node's kind.
        unsafe {
            let rebuild = std::mem::transmute::<fn(), RebuildFn<F>>(self.vtable().fns.rebuild);
            rebuild(self.ptr(), mutator)
        }
    }

    /// In-place mode: the node's children mutated in place when this handle
    /// is the only one, else a copy-on-write rebuild.
    pub fn rebuild_in_place_dyn(&mut self, mutator: &mut F::DynMutator<'_>) -> bool
    where
        F: ExtensibleMut,
    {
        if self.strong_count() == 1 {
            // SAFETY: stored from an `InPlaceFn<F>` (see `KindFns`); the only
            // handle, borrowed mutably.
            unsafe {
                let in_place =
                    std::mem::transmute::<fn(), InPlaceFn<F>>(self.vtable().fns.rebuild_in_place);
                in_place(self.ptr(), mutator)
            }
        } else {
            self.rebuild_dyn(mutator).assign_to(self)
        }
    }
}

impl<F: Extensible> Clone for Ext<F> {
    #[inline]
    fn clone(&self) -> Self {
        // SAFETY: the handle keeps its node alive.
        let old = unsafe { Node::<()>::raw_count(self.ptr()) }.fetch_add(1, Ordering::Relaxed);
        if old > isize::MAX as usize {
            std::process::abort();
        }
        Ext {
            handle: self.handle,
            _kind: PhantomData,
        }
    }
}

impl<F: Extensible> Drop for Ext<F> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: gives back this handle's count, once.
        unsafe { (self.vtable().fns.drop)(self.ptr()) }
    }
}

impl<F: Extensible> fmt::Debug for Ext<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: a live node of the kind the vtable describes.
        unsafe { (self.vtable().fns.debug)(self.ptr(), f) }
    }
}

impl<F: Extensible> StructuralEq for Ext<F> {
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        if self.handle.kind() != other.handle.kind() {
            return false;
        }
        let vtable = self.vtable();
        // SAFETY: the same kind: both nodes are of the kind `vtable` describes.
        unsafe { (vtable.fns.eq)(self.ptr(), other.ptr(), vtable.mode, eq) }
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        let vtable = self.vtable();
        std::hash::Hash::hash(vtable.name, hasher);
        // SAFETY: a live node of the vtable's kind.
        unsafe { (vtable.fns.hash)(self.ptr(), vtable.mode, hasher) }
    }
}

/// A `Node<K>` borrowed from an [`Ext`] (or made for a typed field of a
/// downstream kind): it dereferences to the node; clone it for a handle of
/// your own.
pub struct NodeRef<'a, K> {
    node: ManuallyDrop<Node<K>>,
    _borrow: PhantomData<&'a Node<K>>,
}

impl<K> Deref for NodeRef<'_, K> {
    type Target = Node<K>;
    #[inline]
    fn deref(&self) -> &Node<K> {
        &self.node
    }
}

/// An `Ext` view of a downstream node found in a typed field, for the pass's
/// `visit_ext`/`mutate_ext` hooks.
pub struct ExtRef<'a, F: Extensible> {
    ext: ManuallyDrop<Ext<F>>,
    _borrow: PhantomData<&'a ()>,
}

impl<F: Extensible> Deref for ExtRef<'_, F> {
    type Target = Ext<F>;
    #[inline]
    fn deref(&self) -> &Ext<F> {
        &self.ext
    }
}

impl<F: Extensible> ExtRef<'_, F> {
    /// The `Ext` view of `node` (no count change).
    pub fn of<K: ExtKind<F>>(node: &Node<K>) -> ExtRef<'_, F> {
        ExtRef {
            ext: ManuallyDrop::new(Ext::from_parts(node.raw(), K::vtable())),
            _borrow: PhantomData,
        }
    }
}

/// A pass seen as its family's visitor object: every family's derive
/// implements its visitor trait (result `ControlFlow<()>`) for it by
/// forwarding each hook to the pass, and keeps the pass's own result when it
/// stops early. How a downstream node's derived walk, compiled once for the
/// trait object, reaches any pass.
pub struct VisitAdapter<'a, V: ?Sized, R> {
    visitor: &'a mut V,
    stopped: Option<R>,
}

impl<V: ?Sized, R: VisitResult> VisitAdapter<'_, V, R> {
    /// Runs one of the pass's hooks on `node`; a result that stops is kept.
    /// The hook is named as a function item (`<V as ExprVisitor<R>>::visit_call`),
    /// so the generated adapter has no closure per hook for the compiler to
    /// check and build.
    #[doc(hidden)]
    #[inline]
    pub fn forward_to<N: ?Sized>(
        &mut self,
        node: &N,
        hook: impl FnOnce(&mut V, &N) -> R,
    ) -> ControlFlow<()> {
        match hook(self.visitor, node).branch() {
            ControlFlow::Continue(()) => ControlFlow::Continue(()),
            ControlFlow::Break(r) => {
                self.stopped = Some(r);
                ControlFlow::Break(())
            }
        }
    }
}

/// The default `visit_ext` hook: visits the node's children with `visitor`.
/// `walk` is `|adapter| node.walk_dyn(adapter)`, written where the adapter
/// becomes the family's visitor object.
#[doc(hidden)]
pub fn __walk<V: ?Sized, R: VisitResult>(
    visitor: &mut V,
    walk: impl FnOnce(&mut VisitAdapter<'_, V, R>) -> ControlFlow<()>,
) -> R {
    let mut adapter = VisitAdapter {
        visitor,
        stopped: None,
    };
    let _ = walk(&mut adapter);
    adapter.stopped.unwrap_or_else(R::output)
}

/// A pass seen as its family's mutator object (see [`VisitAdapter`]).
pub struct MutAdapter<'a, M: ?Sized>(&'a mut M);

impl<M: ?Sized> MutAdapter<'_, M> {
    /// The pass whose hooks run.
    #[doc(hidden)]
    #[inline]
    pub fn inner(&mut self) -> &mut M {
        self.0
    }
}

/// The default `mutate_ext` hook: rebuilds the node from its children
/// mutated by `mutator` (or hands it back to an in-place driver).
#[doc(hidden)]
pub fn __rebuild<M: ?Sized, F: Extensible>(
    mutator: &mut M,
    node: &Ext<F>,
    rebuild: impl FnOnce(&mut MutAdapter<'_, M>) -> Transformed<Ext<F>>,
) -> Transformed<Ext<F>> {
    if F::IN_PLACE && crate::driver::hand_back_outlined(mutator, node.addr()) {
        return Transformed::Keep;
    }
    rebuild(&mut MutAdapter(mutator))
}

/// In-place mode on a downstream node (after the hooks handed it back).
#[doc(hidden)]
pub fn __rebuild_in_place<M: ?Sized>(
    mutator: &mut M,
    rebuild: impl FnOnce(&mut MutAdapter<'_, M>) -> bool,
) -> bool {
    rebuild(&mut MutAdapter(mutator))
}

/// A field typed `Node<K>` of a downstream kind, copy-on-write: its default
/// rebuild through the family's mutator object (the kind stays `K`).
#[doc(hidden)]
pub fn __mutate_kind<M: ?Sized, F: Extensible, K: ExtKind<F>>(
    mutator: &mut M,
    node: &Node<K>,
    rebuild: impl FnOnce(&mut MutAdapter<'_, M>, &Ext<F>) -> Transformed<Ext<F>>,
) -> Transformed<Node<K>> {
    let ext = ExtRef::of(node);
    match rebuild(&mut MutAdapter(mutator), &ext) {
        Transformed::Keep => Transformed::Keep,
        // A rebuild keeps the kind.
        Transformed::Replace(new) => new
            .downcast::<K>()
            .map_or(Transformed::Keep, |n| Transformed::Replace((*n).clone())),
    }
}

/// The same in in-place mode.
#[doc(hidden)]
pub fn __mutate_kind_in_place<M: ?Sized, F: Extensible, K: ExtKind<F>>(
    mutator: &mut M,
    node: &mut Node<K>,
    rebuild: impl FnOnce(&mut MutAdapter<'_, M>, &Ext<F>) -> Transformed<Ext<F>>,
    in_place: impl FnOnce(&mut MutAdapter<'_, M>, &mut Ext<F>) -> bool,
) -> bool {
    if node.strong_count() != 1 {
        return __mutate_kind(mutator, node, rebuild).assign_to(node);
    }
    // The only handle: the view writes into the node and never replaces it.
    let mut view = ManuallyDrop::new(Ext::from_parts(node.raw(), K::vtable()));
    in_place(&mut MutAdapter(mutator), &mut view)
}
