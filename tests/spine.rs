//! Spines: a kind with an `#[ir(tail)]` field (a let's body) is walked in a
//! loop by its default hooks, and a pass that overrides the hooks in the way
//! still sees exactly what plain recursion would show it.

use std::ops::ControlFlow;

use irkit::driver::SpineMutate;
use irkit::prelude::*;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Lit {
    #[ir(skip)]
    value: i64,
}
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Var {
    #[ir(skip)]
    name: String,
}
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Add {
    lhs: Expr,
    rhs: Expr,
}
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Let {
    var: Node<Var>,
    value: Expr,
    #[ir(tail)]
    body: Expr,
}
#[derive(Debug, Clone, Visitable, Mutable)]
#[ir(in_place)]
pub enum Expr {
    Lit(Node<Lit>),
    #[ir(def)]
    Var(Node<Var>),
    Add(Node<Add>),
    Let(Node<Let>),
}

fn lit(value: i64) -> Expr {
    Lit { value }.into()
}

/// `let %0 = 0 + 1; let %1 = %0 + 1; ...; %(n-1)`, with its variables.
fn chain(n: usize) -> (Expr, Vec<Node<Var>>) {
    let vars: Vec<Node<Var>> = (0..n)
        .map(|i| {
            Node::new(Var {
                name: format!("v{i}"),
            })
        })
        .collect();
    let mut e: Expr = vars[n - 1].clone().into();
    for i in (0..n).rev() {
        let prev = if i == 0 {
            lit(0)
        } else {
            vars[i - 1].clone().into()
        };
        let value = Add {
            lhs: prev,
            rhs: lit(1),
        }
        .into();
        e = Let {
            var: vars[i].clone(),
            value,
            body: e,
        }
        .into();
    }
    (e, vars)
}

/// The lets of a chain, outermost first.
fn lets(e: &Expr) -> Vec<Node<Let>> {
    let mut out = Vec::new();
    let mut cur = e;
    while let Some(l) = cur.as_let() {
        out.push(l.clone());
        cur = &l.body;
    }
    out
}

#[derive(Default)]
struct CountLits(usize, StackSpread);
impl ExprVisitor for CountLits {
    fn visit_lit(&mut self, _: &Node<Lit>) {
        self.0 += 1;
        self.1.record();
    }
}

#[test]
fn default_hooks_walk_a_long_chain_on_a_small_stack() {
    let (e, _) = chain(200_000);
    let count = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut c = CountLits::default();
            c.visit_expr(&e);
            (c.0, c.1.spread())
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(count.0, 200_001);
    assert!(count.1 < 64 * 1024, "walked in a loop: spread {}", count.1);
}

/// An overridden entry hook with work after the walk sees true nesting.
#[derive(Default)]
struct Depth {
    depth: usize,
    deepest: usize,
    nodes: usize,
    stack: StackSpread,
}
impl ExprVisitor for Depth {
    fn visit_lit(&mut self, _: &Node<Lit>) {
        self.stack.record();
    }
    fn visit_expr(&mut self, e: &Expr) {
        self.nodes += 1;
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        e.walk(self);
        self.depth -= 1;
    }
}

#[test]
fn an_entry_hook_with_post_work_keeps_plain_recursion() {
    let (e, _) = chain(1_000);
    let mut d = Depth::default();
    d.visit_expr(&e);
    assert!(d.stack.spread() > 1_000 * 64, "recursed: {:?}", d.stack);
    // 1,000 nested lets; the last one's value and that value's operands below it.
    assert_eq!(d.deepest, 1_002);
    assert_eq!(d.depth, 0);
    // Per let: the let, its value, and the value's two operands; plus the result.
    assert_eq!(d.nodes, 4 * 1_000 + 1);
}

/// An entry hook that acts before walking only (`visit_preorder`) keeps the
/// loop: nothing it could run after the walk is out of order.
#[derive(Default)]
struct Preorder {
    seen: VisitedSet<Expr>,
    nodes: usize,
    stack: StackSpread,
}
impl ExprVisitor for Preorder {
    fn visit_expr(&mut self, e: &Expr) {
        irkit::visit_preorder(self, e, |pass, e| {
            if pass.seen.first_visit(e) {
                pass.nodes += 1;
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })
    }
    fn visit_lit(&mut self, _: &Node<Lit>) {
        self.stack.record();
    }
}

/// The range of stack addresses a hook ran at: small when a chain is walked
/// in a loop, about the chain's length times a frame when it recurses.
#[derive(Debug, Default)]
struct StackSpread {
    low: Option<usize>,
    high: usize,
}
impl StackSpread {
    #[inline(never)]
    fn record(&mut self) {
        let marker = 0u8;
        let at = std::hint::black_box(&marker) as *const u8 as usize;
        self.low = Some(self.low.map_or(at, |l| l.min(at)));
        self.high = self.high.max(at);
    }
    fn spread(&self) -> usize {
        self.high - self.low.unwrap_or(self.high)
    }
}

#[test]
fn a_preorder_entry_hook_sees_every_node_once() {
    let (e, _) = chain(100_000);
    let mut p = Preorder::default();
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn_scoped(s, || p.visit_expr(&e))
            .unwrap()
            .join()
            .unwrap()
    });
    // Per let: the let, its value and the value's two operands; plus the result.
    assert_eq!(p.nodes, 4 * 100_000 + 1);
    assert!(
        p.stack.spread() < 64 * 1024,
        "walked in a loop: {:?}",
        p.stack
    );
}

/// An overridden kind hook runs around each let, in recursive order.
#[derive(Default)]
struct Brackets(String);
impl ExprVisitor for Brackets {
    fn visit_let(&mut self, l: &Node<Let>) {
        self.0.push('(');
        l.walk(self);
        self.0.push(')');
    }
    fn visit_lit(&mut self, n: &Node<Lit>) {
        self.0.push_str(&n.value.to_string());
    }
}

#[test]
fn an_overridden_let_hook_brackets_its_whole_body() {
    let (e, _) = chain(3);
    let mut b = Brackets::default();
    b.visit_expr(&e);
    assert_eq!(b.0, "(01(1(1)))");
}

/// Stops at the first value adding a literal greater than `limit`.
struct FirstBig {
    limit: i64,
    visited_lets: usize,
}
impl ExprVisitor<ControlFlow<i64>> for FirstBig {
    fn visit_let(&mut self, l: &Node<Let>) -> ControlFlow<i64> {
        self.visited_lets += 1;
        l.walk(self)
    }
    fn visit_lit(&mut self, n: &Node<Lit>) -> ControlFlow<i64> {
        if n.value > self.limit {
            ControlFlow::Break(n.value)
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// The same with default let hooks: counts lits seen until the break.
struct FirstBigDefault {
    limit: i64,
    lits: usize,
}
impl ExprVisitor<ControlFlow<i64>> for FirstBigDefault {
    fn visit_lit(&mut self, n: &Node<Lit>) -> ControlFlow<i64> {
        self.lits += 1;
        if n.value > self.limit {
            ControlFlow::Break(n.value)
        } else {
            ControlFlow::Continue(())
        }
    }
}

#[test]
fn early_exit_stops_the_loop_where_recursion_would_stop() {
    // Replace the literal `1` of binding 500 by 7.
    let (e, _) = chain(1_000);
    let mut bump = BumpAt {
        index: 500,
        seen: 0,
    };
    let e = bump.mutate_expr(&e).unwrap_or_clone(&e);
    let mut f = FirstBigDefault { limit: 5, lits: 0 };
    assert_eq!(f.visit_expr(&e), ControlFlow::Break(7));
    // Bindings 0..500 have two literals for binding 0 and one each after.
    assert_eq!(f.lits, 1 + 500 + 1);
    let mut g = FirstBig {
        limit: 5,
        visited_lets: 0,
    };
    assert_eq!(g.visit_expr(&e), ControlFlow::Break(7));
    assert_eq!(g.visited_lets, 501);
}

struct Identity;
impl ExprMutator for Identity {}

#[test]
fn identity_mutation_of_a_chain_returns_keep_and_allocates_nothing() {
    let (e, _) = chain(100_000);
    let _ = Identity.mutate_expr(&e); // warm up thread-locals
    let (r, allocations) = allocations_during(|| Identity.mutate_expr(&e));
    assert!(matches!(r, Transformed::Keep));
    assert_eq!(allocations, 0);
}

/// Rewrites the `index`-th literal `1` (0-based, in visiting order) to 7.
struct BumpAt {
    index: usize,
    seen: usize,
}
impl ExprMutator for BumpAt {
    fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
        if n.value != 1 {
            return Transformed::Keep;
        }
        self.seen += 1;
        if self.seen - 1 == self.index {
            lit(7).into()
        } else {
            Transformed::Keep
        }
    }
}

#[test]
fn a_change_deep_in_a_chain_rebuilds_exactly_the_lets_above_it() {
    let (e, vars) = chain(1_000);
    let mut bump = BumpAt {
        index: 600,
        seen: 0,
    };
    let (new, allocations) = allocations_during(|| bump.mutate_expr(&e).unwrap_or_clone(&e));
    let (old_lets, new_lets) = (lets(&e), lets(&new));
    assert_eq!(new_lets.len(), 1_000);
    for i in 0..1_000 {
        let same = old_lets[i].same_as(&new_lets[i]);
        assert_eq!(same, i > 600, "let {i}");
        assert!(new_lets[i].var.same_as(&vars[i]), "variables are kept");
    }
    let changed = new_lets[600].value.as_add().unwrap();
    assert_eq!(changed.rhs.as_lit().unwrap().value, 7);
    // 601 lets, the changed `add` and its literal, and the driver's one
    // vector of the chain (allocated at the first change).
    assert_eq!(allocations, 601 + 2 + 1);
}

/// Replaces the final body of the chain.
struct ReplaceResult;
impl ExprMutator for ReplaceResult {
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        if v.name == "v9" {
            lit(42).into()
        } else {
            Transformed::Keep
        }
    }
}

#[test]
fn a_new_final_body_rebuilds_the_whole_chain() {
    let (e, _) = chain(10);
    let new = ReplaceResult.mutate_expr(&e).unwrap_or_clone(&e);
    let (old_lets, new_lets) = (lets(&e), lets(&new));
    assert!(old_lets.iter().zip(&new_lets).all(|(a, b)| !a.same_as(b)));
    assert_eq!(new_lets[9].body.as_lit().unwrap().value, 42);
    // Heads are shared with the old chain.
    assert!(
        old_lets
            .iter()
            .zip(&new_lets)
            .all(|(a, b)| a.value.same_as(&b.value))
    );
}

/// The same rewrite through a memoizing entry hook (plain recursion) agrees.
#[derive(Default)]
struct MemoBump {
    memo: MemoMap<Expr>,
}
impl ExprMutator for MemoBump {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        irkit::memoized(self, e, |p| &mut p.memo)
    }
    fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
        lit(n.value + 1).into()
    }
}
struct Bump;
impl ExprMutator for Bump {
    fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
        lit(n.value + 1).into()
    }
}

#[test]
fn the_loop_and_recursion_build_equal_results() {
    let (e, _) = chain(2_000);
    let a = Bump.mutate_expr(&e).unwrap_or_clone(&e);
    let b = MemoBump::default().mutate_expr(&e).unwrap_or_clone(&e);
    let sum = |e: &Expr| {
        struct Sum(i64);
        impl ExprVisitor for Sum {
            fn visit_lit(&mut self, n: &Node<Lit>) {
                self.0 += n.value;
            }
        }
        let mut s = Sum(0);
        s.visit_expr(e);
        s.0
    };
    assert_eq!(sum(&e), 2_000);
    assert_eq!(sum(&a), 2_000 * 2 + 1);
    assert_eq!(sum(&a), sum(&b));
    assert_eq!(lets(&a).len(), lets(&b).len());
}

/// A visitor that runs another visitor (of another type) over the same chain
/// from inside a hook: neither takes the other's hand-back.
struct Outer {
    inner_counts: Vec<usize>,
    e: Expr,
}
impl ExprVisitor for Outer {
    fn visit_var(&mut self, v: &Node<Var>) {
        if v.name == "v5" {
            let mut inner = CountLits::default();
            inner.visit_expr(&self.e.clone());
            self.inner_counts.push(inner.0);
        }
    }
}

#[test]
fn nested_passes_do_not_take_each_others_chains() {
    let (e, _) = chain(50);
    let mut outer = Outer {
        inner_counts: Vec::new(),
        e: e.clone(),
    };
    outer.visit_expr(&e);
    assert_eq!(outer.inner_counts, vec![51]);
    let mut c = CountLits::default();
    c.visit_expr(&e);
    assert_eq!(c.0, 51);
}

/// Bumps every literal 1 to 7, recording where on the stack it ran.
#[derive(Default)]
struct BumpOnes(StackSpread);
impl ExprMutator for BumpOnes {
    fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
        self.0.record();
        if n.value == 1 {
            lit(7).into()
        } else {
            Transformed::Keep
        }
    }
}

#[test]
fn in_place_mode_walks_a_chain_in_a_loop_and_writes_into_every_let() {
    let (mut e, _) = chain(100_000);
    let before: Vec<usize> = lets(&e).iter().map(|l| l.addr()).collect();
    let (spread, allocations) = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn_scoped(s, || {
                let mut pass = BumpOnes::default();
                let (changed, allocations) = allocations_during(|| e.mutate_in_place(&mut pass));
                assert!(changed);
                (pass.0.spread(), allocations)
            })
            .unwrap()
            .join()
            .unwrap()
    });
    assert!(spread < 64 * 1024, "walked in a loop: spread {spread}");
    // One new literal per let; every let, and every `add`, written in place.
    assert_eq!(allocations, 100_000);
    let after: Vec<usize> = lets(&e).iter().map(|l| l.addr()).collect();
    assert_eq!(before, after);
    let first = lets(&e)[0]
        .value
        .as_add()
        .unwrap()
        .rhs
        .as_lit()
        .unwrap()
        .value;
    assert_eq!(first, 7);
}

#[test]
fn in_place_mode_runs_an_overridden_let_hook_on_every_let() {
    // A let hook in the way: the loop gives way to plain recursion, and the
    // hook runs exactly once per let, as in copy-on-write mode.
    #[derive(Default)]
    struct CountLets(usize);
    impl ExprMutator for CountLets {
        fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
            self.0 += 1;
            l.rebuild(self).into()
        }
    }
    let (mut e, _) = chain(1_000);
    let mut pass = CountLets::default();
    assert!(!e.mutate_in_place(&mut pass));
    assert_eq!(pass.0, 1_000);
}

/// Removes the lets whose variable is named in `dead` with `mutate_chain`,
/// counting the links it decides.
#[derive(Default)]
struct DropLets {
    dead: std::collections::HashSet<String>,
    decided: usize,
    stack: StackSpread,
}
impl ExprMutator for DropLets {
    fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
        irkit::driver::mutate_chain(l, self, |pass, l| {
            pass.decided += 1;
            pass.stack.record();
            (!pass.dead.contains(&l.var.name)).then(|| l.rebuild_head(pass))
        })
    }
}

/// The same pass with an entry hook of its own, counting what it sees.
#[derive(Default)]
struct DropLetsCountingEntries(DropLets, usize);
impl ExprMutator for DropLetsCountingEntries {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        self.1 += 1;
        e.rebuild(self)
    }
    fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
        irkit::driver::mutate_chain(l, self, |pass, l| {
            pass.0.decided += 1;
            (!pass.0.dead.contains(&l.var.name)).then(|| l.rebuild_head(pass))
        })
    }
}

#[test]
fn a_per_binding_pass_runs_an_overridden_entry_hook_on_every_link() {
    let (e, _) = chain(1_000);
    let mut pass = DropLetsCountingEntries::default();
    pass.0.dead.insert("v3".to_owned());
    let out = pass.mutate_expr(&e).unwrap_or_clone(&e);
    assert_eq!(pass.0.decided, 1_000);
    // Every let, every kept let's value (an add and its two operands) and
    // the final variable, as plain recursion would show them.
    assert_eq!(pass.1, 1_000 + 999 * 3 + 1);
    assert_eq!(lets(&out).len(), 999);
}

#[test]
fn a_per_binding_pass_with_the_default_entry_hook_loops_on_a_small_stack() {
    let (e, _) = chain(200_000);
    let (kept, decided, spread) = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut pass = DropLets::default();
            pass.dead.extend(["v0".to_owned(), "v1".to_owned()]);
            let out = pass.mutate_expr(&e).unwrap_or_clone(&e);
            let kept = lets(&out).len();
            (kept, pass.decided, pass.stack.spread())
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!((kept, decided), (199_998, 200_000));
    assert!(spread < 64 * 1024, "decided in one loop: spread {spread}");
}

/// A kind hook that changes what `mutate_chain` returned: on a link the
/// loop decides, that is the loop's placeholder, and the loop says so
/// instead of losing the change.
#[test]
#[should_panic(expected = "return `mutate_chain`'s result as it is")]
fn a_hook_that_changes_the_placeholder_of_mutate_chain_is_caught() {
    struct WrapEveryLet;
    impl ExprMutator for WrapEveryLet {
        fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
            let out = irkit::driver::mutate_chain(l, self, |pass, l| Some(l.rebuild_head(pass)));
            let e: Expr = l.clone().into();
            Transformed::Replace(out.unwrap_or_clone(&e))
        }
    }
    let (e, _) = chain(3);
    let _ = WrapEveryLet.mutate_expr(&e);
}
