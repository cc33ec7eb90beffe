//! Families whose mutators carry state (`#[ir(mutator(state = ..))]`), with
//! default hooks that use it (`#[ir(mutate = ..)]`, `#[ir(mutate_def = ..)]`,
//! `#[ir(mutator(entry = ..))]`). This is how Relax's mutator works: its
//! defaults emit into a block builder and remap variables, and a pass that
//! overrides one kind still gets them for every other kind.

use std::collections::HashMap;

use irkit::prelude::*;
use pretty_assertions::assert_eq;

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Num {
    #[ir(skip)]
    pub value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Var {
    #[ir(skip)]
    pub name: String,
}

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Add {
    pub lhs: Expr,
    pub rhs: Expr,
}

/// `let var = value in body`.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Let {
    pub var: Node<Var>,
    pub value: Expr,
    pub body: Expr,
}

#[derive(Debug, Clone, Visitable, Mutable)]
#[ir(mutator(state = Renaming, entry = defaults::entry))]
pub enum Expr {
    Num(Node<Num>),
    #[ir(def, mutate = defaults::var_use, mutate_def = defaults::var_def)]
    Var(Node<Var>),
    Add(Node<Add>),
    Let(Node<Let>),
}

/// What every mutator of `Expr` holds: a variable remap (Relax's
/// `var_remap_`) and a count of the nodes it saw.
#[derive(Default)]
pub struct Renaming {
    remap: HashMap<usize, Node<Var>>,
    seen: usize,
}

/// The family's default hooks, written once.
mod defaults {
    use super::*;

    /// Counts every node, then dispatches.
    pub fn entry<M: ExprMutator + ?Sized>(m: &mut M, e: &Expr) -> Transformed<Expr> {
        m.mutator_state().seen += 1;
        e.rebuild(m)
    }

    /// A use of a remapped variable becomes the new variable.
    pub fn var_use<M: ExprMutator + ?Sized>(m: &mut M, v: &Node<Var>) -> Transformed<Expr> {
        match m.mutator_state().remap.get(&v.addr()) {
            Some(new) => Transformed::Replace(Expr::Var(new.clone())),
            None => Transformed::Keep,
        }
    }

    /// A definition keeps its variable unless a pass replaced it: then uses
    /// follow (the pass's override records the replacement).
    pub fn var_def<M: ExprMutator + ?Sized>(_: &mut M, _: &Node<Var>) -> Transformed<Node<Var>> {
        Transformed::Keep
    }
}

fn var(name: &str) -> Node<Var> {
    Node::new(Var { name: name.into() })
}

fn num(value: i64) -> Expr {
    Num { value }.into()
}

fn add(lhs: Expr, rhs: Expr) -> Expr {
    Add { lhs, rhs }.into()
}

fn print(e: &Expr) -> String {
    match e {
        Expr::Num(n) => n.value.to_string(),
        Expr::Var(v) => v.name.clone(),
        Expr::Add(a) => format!("({} + {})", print(&a.lhs), print(&a.rhs)),
        Expr::Let(l) => format!(
            "let {} = {} in {}",
            l.var.name,
            print(&l.value),
            print(&l.body)
        ),
    }
}

/// `let x = 1 in (x + x)`.
fn program() -> (Expr, Node<Var>) {
    let x = var("x");
    let e = Let {
        var: x.clone(),
        value: num(1),
        body: add(Expr::Var(x.clone()), Expr::Var(x.clone())),
    }
    .into();
    (e, x)
}

/// A pass that overrides nothing: it still runs the family's defaults.
#[derive(Default)]
struct Plain(Renaming);

impl ExprMutator for Plain {
    fn mutator_state(&mut self) -> &mut Renaming {
        &mut self.0
    }
}

#[test]
fn a_pass_that_overrides_nothing_runs_the_family_defaults_and_keeps_the_very_same_tree() {
    let (e, _) = program();
    let mut pass = Plain::default();
    assert!(pass.mutate_expr(&e).is_keep());
    // The entry default counted every node: let, 1, +, x, x.
    assert_eq!(pass.0.seen, 5);
}

#[test]
fn the_state_drives_the_default_use_hook() {
    let (e, x) = program();
    let mut pass = Plain::default();
    pass.0.remap.insert(x.addr(), var("y"));
    let out = pass.mutate_expr(&e).unwrap_or(e);
    // The definition keeps `x` (its default keeps it); the uses follow the state.
    assert_eq!(print(&out), "let x = 1 in (y + y)");
}

/// Renames every definition, recording it in the state: the uses follow
/// through the family's default use hook, which this pass does not write.
#[derive(Default)]
struct Rename(Renaming);

impl ExprMutator for Rename {
    fn mutator_state(&mut self) -> &mut Renaming {
        &mut self.0
    }
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        let new = var(&format!("{}1", v.name));
        self.0.remap.insert(v.addr(), new.clone());
        Transformed::Replace(new)
    }
}

#[test]
fn an_overridden_definition_hook_and_the_default_use_hook_work_together() {
    let (e, _) = program();
    let out = Rename::default().mutate_expr(&e).unwrap_or(e);
    assert_eq!(print(&out), "let x1 = 1 in (x1 + x1)");
    let Expr::Let(l) = &out else { panic!() };
    let Expr::Add(a) = &l.body else { panic!() };
    // Every use is the very node the definition introduced.
    assert!(matches!(&a.lhs, Expr::Var(v) if v.same_as(&l.var)));
}

/// Overriding a kind whose default is custom replaces that default.
#[derive(Default)]
struct Zero(Renaming);

impl ExprMutator for Zero {
    fn mutator_state(&mut self) -> &mut Renaming {
        &mut self.0
    }
    fn mutate_var(&mut self, _: &Node<Var>) -> Transformed<Expr> {
        Transformed::Replace(num(0))
    }
}

#[test]
fn the_pass_hook_wins_over_the_family_default() {
    let (e, x) = program();
    let mut pass = Zero::default();
    pass.0.remap.insert(x.addr(), var("y"));
    let out = pass.mutate_expr(&e).unwrap_or(e);
    assert_eq!(print(&out), "let x = 1 in (0 + 0)");
}
