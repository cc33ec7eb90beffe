//! Post-order rewriting (TVM's `PostOrderRewrite`/`ExprRewriter`, TIR's
//! `IRTransform`), across families.
//!
//! A family marked `#[ir(rewriter)]` gets a `<Family>Rewriter` trait (others
//! pay nothing for one; the families it `uses` are marked as well, since their
//! rewriters are its supertraits). It has one hook per kind receiving
//! `(pre, post)`: `pre` is the original node and `post` the node rebuilt from
//! its already rewritten children (the same handle as `pre` when none
//! changed). Each node, shared or not, is rewritten once, after its children.
//!
//! Children of every family are rewritten: a `StmtRewriter` whose family uses
//! `Expr` also runs the pass's `ExprRewriter` hooks on the expressions inside
//! statements (TVM's `StmtExprMutator`), because the rewriter traits have the
//! same supertraits as the mutator traits and one adapter, [`PostOrder`],
//! implements every family's mutator trait. Recursion is stack-safe
//! (see [`crate::stack`]).

use std::mem::MaybeUninit;

use rustc_hash::FxHashMap;

use crate::{Mutate, Rebuild, Transformed};

/// The mutator that runs a rewriter's `(pre, post)` hooks bottom-up. The
/// derive of every `#[ir(rewriter)]` family implements its mutator trait for it.
pub struct PostOrder<'a, W: ?Sized> {
    rewriter: &'a mut W,
    /// Results for shared nodes, by the address of the original node.
    memo: FxHashMap<usize, Erased>,
}

impl<'a, W: ?Sized> PostOrder<'a, W> {
    /// An adapter around `rewriter`, with an empty memo.
    pub fn new(rewriter: &'a mut W) -> Self {
        PostOrder {
            rewriter,
            memo: FxHashMap::default(),
        }
    }

    /// The rewriter whose hooks run.
    pub fn rewriter(&mut self) -> &mut W {
        self.rewriter
    }
}

/// Rewrites `root` bottom-up with the hooks of `rewriter`; shared nodes are
/// rewritten once and stay shared, and an unchanged graph comes back as the
/// same handle.
pub fn rewrite<'a, W, F>(rewriter: &'a mut W, root: &F) -> F
where
    W: ?Sized,
    F: Mutate<PostOrder<'a, W>> + Clone,
{
    let mut adapter = PostOrder::new(rewriter);
    root.mutate(&mut adapter).unwrap_or_clone(root)
}

/// The entry hook of the adapter for one family (generated): the recorded
/// result of a shared node seen before, else the children first, then the
/// kind's hook `(pre, post)`.
#[doc(hidden)]
pub fn __step<W, F>(
    adapter: &mut PostOrder<'_, W>,
    pre: &F,
    hook: impl FnOnce(&mut W, &F, &F) -> Transformed<F>,
) -> Transformed<F>
where
    W: ?Sized,
    F: Clone + for<'b> Rebuild<PostOrder<'b, W>>,
{
    let handle = pre.node_handle();
    let shared = handle.strong_count > 1;
    if shared && let Some(done) = adapter.memo.get(&handle.addr) {
        // SAFETY: entries at the address of a node of family `F` are written
        // by this function for `F` only (a live node has one address and one
        // family, and the originals stay alive while the root is borrowed).
        return unsafe { done.get::<F>() };
    }
    let result = match pre.rebuild(adapter) {
        Transformed::Keep => hook(adapter.rewriter, pre, pre),
        Transformed::Replace(post) => {
            Transformed::Replace(hook(adapter.rewriter, pre, &post).unwrap_or(post))
        }
    };
    if shared {
        adapter
            .memo
            .insert(handle.addr, Erased::new(result.clone()));
    }
    result
}

/// A `Transformed<F>` of some family, stored without its type: the memo holds
/// results of several families at once with neither a box nor `dyn Any`.
struct Erased {
    bytes: MaybeUninit<[usize; 4]>,
    drop: unsafe fn(*mut [usize; 4]),
}

impl Erased {
    fn new<F>(value: Transformed<F>) -> Self {
        const {
            assert!(size_of::<Transformed<F>>() <= size_of::<[usize; 4]>());
            assert!(align_of::<Transformed<F>>() <= align_of::<usize>());
        }
        let mut bytes = MaybeUninit::<[usize; 4]>::uninit();
        // SAFETY: the buffer is large and aligned enough (checked above).
        unsafe { bytes.as_mut_ptr().cast::<Transformed<F>>().write(value) };
        Erased {
            bytes,
            drop: drop_erased::<F>,
        }
    }

    /// # Safety
    /// `F` must be the type this was created with.
    unsafe fn get<F: Clone>(&self) -> Transformed<F> {
        // SAFETY: the caller names the stored type.
        unsafe { (*self.bytes.as_ptr().cast::<Transformed<F>>()).clone() }
    }
}

unsafe fn drop_erased<F>(bytes: *mut [usize; 4]) {
    // SAFETY: called once, from `Drop`, with the type the value was stored as.
    unsafe { std::ptr::drop_in_place(bytes.cast::<Transformed<F>>()) }
}

impl Drop for Erased {
    fn drop(&mut self) {
        // SAFETY: the value was written in `new` and is dropped once.
        unsafe { (self.drop)(self.bytes.as_mut_ptr()) }
    }
}
