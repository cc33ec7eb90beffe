//! ToANormalForm: every value (constant, call, tuple, projection, if,
//! function) is bound to a variable by a `let`, in evaluation order; if
//! branches and function bodies are scopes of their own. A node used from
//! several scopes is bound once, in the innermost scope enclosing all its uses
//! (TVM places it the same way, by the lowest common ancestor).

use rustc_hash::FxHashMap as HashMap;

use ir_core::stack::guarded;
use ir_core::{Family, Id, IdMap, IdSet, Node};

use crate::relay::expr::{
    Call, Clause, Expr, Function, If, Match, RefCreate, RefRead, RefWrite, Tuple, TupleGetItem, Var,
};
use crate::relay::scope_tree::ScopeTree;

type ScopeId = usize;

/// The `let`s of one scope, in order.
type Bindings = Vec<(Node<Var>, Expr)>;

/// Not bound by a `let`: variables, globals, operators and constructors.
/// Constants are bound like every other value, as TVM does.
fn is_atomic(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Var(_) | Expr::GlobalVar(_) | Expr::Op(_) | Expr::Constructor(_)
    )
}

/// The children of a node and the scope each is evaluated in.
fn children(
    e: &Expr,
    here: ScopeId,
    scope_of_branch: &mut impl FnMut(Id<Expr>, u32) -> ScopeId,
) -> Vec<(Expr, ScopeId)> {
    match e {
        Expr::Call(c) => std::iter::once(c.op.clone())
            .chain(c.args.iter().cloned())
            .map(|x| (x, here))
            .collect(),
        Expr::Tuple(t) => t.fields.iter().map(|x| (x.clone(), here)).collect(),
        Expr::TupleGetItem(g) => vec![(g.tuple.clone(), here)],
        Expr::Let(l) => vec![(l.value.clone(), here), (l.body.clone(), here)],
        Expr::If(i) => vec![
            (i.cond.clone(), here),
            (i.then_branch.clone(), scope_of_branch(e.id(), 0)),
            (i.else_branch.clone(), scope_of_branch(e.id(), 1)),
        ],
        Expr::Function(f) => vec![(f.body.clone(), scope_of_branch(e.id(), 0))],
        Expr::Match(m) => std::iter::once((m.data.clone(), here))
            .chain(
                m.clauses
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (c.rhs.clone(), scope_of_branch(e.id(), i as u32))),
            )
            .collect(),
        Expr::RefCreate(r) => vec![(r.value.clone(), here)],
        Expr::RefRead(r) => vec![(r.reference.clone(), here)],
        Expr::RefWrite(w) => vec![(w.reference.clone(), here), (w.value.clone(), here)],
        _ => vec![],
    }
}

/// Phase 1: the scope of every compound node, as the common ancestor of its uses.
struct Placement {
    scope_of: IdMap<Expr, ScopeId>,
    /// The scopes as a tree (the root is 0): the innermost scope enclosing
    /// two is found in time logarithmic in their depth, so that a node used
    /// at every level of a deep nesting costs no walk to the root per use.
    tree: ScopeTree,
    branch_scopes: HashMap<(Id<Expr>, u32), ScopeId>,
}

impl Default for Placement {
    fn default() -> Self {
        Placement {
            scope_of: IdMap::default(),
            tree: ScopeTree::new(),
            branch_scopes: HashMap::default(),
        }
    }
}

impl Placement {
    /// The scope of branch `branch` of `node` (an if's branch, a function's
    /// body, a clause), inside the node's own scope, which is placed first.
    fn branch_scope(&mut self, node: Id<Expr>, branch: u32) -> ScopeId {
        if let Some(&id) = self.branch_scopes.get(&(node, branch)) {
            return id;
        }
        let parent = self.scope_of.get(&node).copied().unwrap_or(0);
        let id = self.tree.add(parent);
        self.branch_scopes.insert((node, branch), id);
        id
    }

    fn lca(&self, a: ScopeId, b: ScopeId) -> ScopeId {
        self.tree.common(a, b)
    }

    /// Places every compound node in the innermost scope enclosing all its
    /// uses. A node is placed once all its users are (Kahn's order over the
    /// graph): placing it at its first use and moving it up later would
    /// leave what it holds placed under its old position.
    fn place(&mut self, root: &Expr) {
        // How many edges lead to each compound node.
        let mut users: IdMap<Expr, usize> = IdMap::default();
        let mut stack = vec![root.clone()];
        let mut seen = ir_core::VisitedSet::<Expr>::new();
        while let Some(e) = stack.pop() {
            if is_atomic(&e) || !seen.first_visit(&e) {
                continue;
            }
            for (child, _) in children(&e, 0, &mut |_, _| 0) {
                if !is_atomic(&child) {
                    *users.entry(child.id()).or_insert(0) += 1;
                    stack.push(child);
                }
            }
        }
        // The scope enclosing the uses met so far, per node.
        let mut enclosing: IdMap<Expr, ScopeId> = IdMap::default();
        let mut work = vec![(root.clone(), 0)];
        while let Some((e, s)) = work.pop() {
            self.scope_of.insert(e.id(), s);
            let kids = children(&e, s, &mut |n, b| self.branch_scope(n, b));
            for (child, at) in kids {
                if is_atomic(&child) {
                    continue;
                }
                let here = match enclosing.get(&child.id()) {
                    Some(&before) => self.lca(before, at),
                    None => at,
                };
                enclosing.insert(child.id(), here);
                let left = users.entry(child.id()).or_insert(1);
                *left = left.saturating_sub(1);
                if *left == 0 {
                    work.push((child, here));
                }
            }
        }
    }
}

/// Phase 2: conversion, binding each node into its placed scope.
struct Anf {
    placement: Placement,
    /// Open scopes (id, instance) and their bindings, outermost first.
    open: Vec<(ScopeId, usize, Bindings)>,
    /// Whether each scope instance is open. A scope's id names its place
    /// (a branch of a node), and a node met twice (a shared `if` bound by two
    /// lets) opens it twice: what the first instance bound is gone in the second.
    live: Vec<bool>,
    /// Each bound node's variable and the scope instance binding it.
    bound: IdMap<Expr, (Expr, usize)>,
    keep: Vec<Expr>,
    fresh: usize,
    /// Let variables whose (non-function) values are being converted, and
    /// those of them read inside their own values: such a value cannot be
    /// converted, as its parts would be bound before the let that defines
    /// what they read. It is kept whole.
    defining: IdSet<Node<Var>>,
    self_read: IdSet<Node<Var>>,
    /// The nodes `bound`, in order, and the open scopes' lengths when each
    /// value in `defining` began: what undoing that value's conversion
    /// takes away.
    journal: Vec<Id<Expr>>,
    marks: Vec<usize>,
}

impl Anf {
    fn fresh_var(&mut self) -> Node<Var> {
        let v = Expr::var(&format!("x{}", self.fresh), None);
        self.fresh += 1;
        v
    }

    /// Converts `e` in scope `id` and returns the scope's let chain.
    fn scope(&mut self, id: ScopeId, e: &Expr) -> Expr {
        let instance = self.live.len();
        self.live.push(true);
        self.open.push((id, instance, Vec::new()));
        let result = self.atom(e);
        let (_, _, bindings) = self.open.pop().unwrap_or_default();
        self.live[instance] = false;
        bindings
            .into_iter()
            .rev()
            .fold(result, |body, (var, value)| Expr::let_(var, value, body))
    }

    fn bind(&mut self, original: &Expr, value: Expr, var: Option<Node<Var>>) -> Expr {
        let var = var.unwrap_or_else(|| self.fresh_var());
        let atom: Expr = var.clone().into();
        let slot = self.slot_of(original);
        if let Some((_, instance, bindings)) = self.open.get_mut(slot) {
            bindings.push((var, value));
            self.bound.insert(original.id(), (atom.clone(), *instance));
            self.journal.push(original.id());
        }
        self.keep.push(original.clone());
        atom
    }

    /// The open scope `original` is bound in: its placed scope, which is
    /// open (it encloses every use); else the innermost.
    fn slot_of(&self, original: &Expr) -> usize {
        let target = self.placement.scope_of.get(&original.id()).copied();
        target
            .and_then(|t| self.open.iter().rposition(|(id, ..)| *id == t))
            .unwrap_or(self.open.len().saturating_sub(1))
    }

    /// Remembers that `original` stands for `atom` where `bind` would have
    /// bound it.
    fn record(&mut self, original: &Expr, atom: Expr) {
        if let Some((_, instance, _)) = self.open.get(self.slot_of(original)) {
            self.bound.insert(original.id(), (atom, *instance));
            self.journal.push(original.id());
            self.keep.push(original.clone());
        }
    }

    /// The variable `e` is bound to, if its binding is in an open scope.
    fn bound_atom(&self, e: &Expr) -> Option<Expr> {
        self.bound
            .get(&e.id())
            .filter(|(_, instance)| self.live[*instance])
            .map(|(atom, _)| atom.clone())
    }

    fn atom(&mut self, e: &Expr) -> Expr {
        guarded(|| {
            if is_atomic(e) {
                if let Expr::Var(v) = e
                    && self.defining.contains(&v.id())
                {
                    self.self_read.insert(v.id());
                }
                return e.clone();
            }
            if let Some(atom) = self.bound_atom(e) {
                return atom;
            }
            if let Expr::Let(_) = e {
                // Each let of the chain stands for the chain's result. A
                // shared let is converted once (its variables bound once),
                // and a chain reaching one converted already stops there.
                let mut chain = Vec::new();
                let mut cur = e.clone();
                let mut done = None;
                while let Expr::Let(l) = &cur {
                    if !chain.is_empty()
                        && let Some(atom) = self.bound_atom(&cur)
                    {
                        done = Some(atom);
                        break;
                    }
                    // A value already bound (a shared node) is not computed twice.
                    let value = match self.bound_atom(&l.value) {
                        Some(atom) => atom,
                        None if matches!(l.value, Expr::Function(_)) => self.value(&l.value),
                        None => self.own_value(&l.var, &l.value),
                    };
                    self.bind(&l.value, value, Some(l.var.clone()));
                    chain.push(cur.clone());
                    cur = l.body.clone();
                }
                let result = match done {
                    Some(atom) => atom,
                    None => self.atom(&cur),
                };
                for converted in &chain {
                    self.record(converted, result.clone());
                }
                return result;
            }
            let value = self.value(e);
            self.bind(e, value, None)
        })
    }

    /// The converted value of the let defining `var`, or the value kept
    /// whole if it reads `var` (its conversion undone).
    fn own_value(&mut self, var: &Node<Var>, value: &Expr) -> Expr {
        let marks = self.marks.len();
        self.marks.extend(self.open.iter().map(|(_, _, b)| b.len()));
        let journal = self.journal.len();
        self.defining.insert(var.id());
        let converted = self.value(value);
        self.defining.remove(&var.id());
        let kept = if self.self_read.remove(&var.id()) {
            for ((_, _, bindings), &len) in self.open.iter_mut().zip(&self.marks[marks..]) {
                bindings.truncate(len);
            }
            for id in self.journal.drain(journal..) {
                self.bound.remove(&id);
            }
            value.clone()
        } else {
            converted
        };
        self.marks.truncate(marks);
        kept
    }

    fn value(&mut self, e: &Expr) -> Expr {
        guarded(|| match e {
            Expr::Call(c) => {
                let op = self.atom(&c.op);
                let args = c.args.iter().map(|a| self.atom(a)).collect();
                Call {
                    op,
                    args,
                    attrs: c.attrs.clone(),
                    span: c.span,
                }
                .into()
            }
            Expr::Tuple(t) => Tuple {
                fields: t.fields.iter().map(|f| self.atom(f)).collect(),
                span: t.span,
            }
            .into(),
            Expr::TupleGetItem(g) => TupleGetItem {
                tuple: self.atom(&g.tuple),
                index: g.index,
                span: g.span,
            }
            .into(),
            Expr::If(i) => {
                let cond = self.atom(&i.cond);
                let (t, f) = (
                    self.placement.branch_scope(e.id(), 0),
                    self.placement.branch_scope(e.id(), 1),
                );
                let then_branch = self.scope(t, &i.then_branch);
                let else_branch = self.scope(f, &i.else_branch);
                If {
                    cond,
                    then_branch,
                    else_branch,
                    span: i.span,
                }
                .into()
            }
            Expr::Function(f) => {
                let s = self.placement.branch_scope(e.id(), 0);
                let body = self.scope(s, &f.body);
                Function {
                    body,
                    ..(**f).clone()
                }
                .into()
            }
            Expr::Let(_) => {
                let s = self.open.last().map(|(id, ..)| *id).unwrap_or(0);
                self.scope(s, e)
            }
            Expr::Match(m) => {
                let data = self.atom(&m.data);
                let clauses = m
                    .clauses
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let s = self.placement.branch_scope(e.id(), i as u32);
                        Clause {
                            lhs: c.lhs.clone(),
                            rhs: self.scope(s, &c.rhs),
                        }
                    })
                    .collect();
                Match {
                    data,
                    clauses,
                    complete: m.complete,
                    span: m.span,
                }
                .into()
            }
            Expr::RefCreate(r) => RefCreate {
                value: self.atom(&r.value),
                span: r.span,
            }
            .into(),
            Expr::RefRead(r) => RefRead {
                reference: self.atom(&r.reference),
                span: r.span,
            }
            .into(),
            Expr::RefWrite(w) => {
                let reference = self.atom(&w.reference);
                RefWrite {
                    reference,
                    value: self.atom(&w.value),
                    span: w.span,
                }
                .into()
            }
            atomic => atomic.clone(),
        })
    }
}

/// Converts `e` to A-normal form.
pub fn to_anf(e: &Expr) -> Expr {
    let mut placement = Placement::default();
    placement.place(e);
    let mut anf = Anf {
        placement,
        open: Vec::new(),
        live: Vec::new(),
        bound: IdMap::default(),
        keep: Vec::new(),
        fresh: 0,
        defining: IdSet::default(),
        self_read: IdSet::default(),
        journal: Vec::new(),
        marks: Vec::new(),
    };
    anf.scope(0, e)
}
