//! `dce`: dead-code elimination (TVM's `DeadCodeElimination`). Bindings
//! whose variables are never used and whose values have no side effects go,
//! in and out of dataflow blocks, in nested functions and `if` branches too;
//! blocks left empty go. Private functions that no public function reaches
//! go, unless some call names a function outside the module (then which
//! functions are reachable is unknown and none is removed).

use ir_core::{IdSet, Node, Transformed};
use rustc_hash::FxHashSet;

use super::purity::impure;
use super::uses::used_vars;
use crate::relax::expr::{
    Binding, BindingBlock, Expr, ExprVisitor, Function, GlobalVar, If, SeqExpr, Var,
};
use crate::relax::prim::PrimExprVisitor;
use crate::relax::sinfo::StructInfoVisitor;
use crate::relax::{RelaxModule, is_global};

/// The sequence without its dead bindings; `Keep` when nothing is dead.
pub fn remove_unused_bindings(seq: &Node<SeqExpr>) -> Transformed<Node<SeqExpr>> {
    dce_seq(seq, &mut IdSet::default())
}

/// A sequence's dead bindings removed; the variables it uses that it does
/// not define are added to `live` (so that each scope is walked once: an
/// enclosing scope learns what a nested one uses from this set, not by
/// walking it again).
///
/// One set serves every scope: a variable is defined once and used only
/// within its scope, so a nested scope's own variables are never live in
/// an enclosing one, and removing them at their definitions leaves in the
/// set exactly the enclosing scope's uses.
fn dce_seq(seq: &Node<SeqExpr>, live: &mut IdSet<Node<Var>>) -> Transformed<Node<SeqExpr>> {
    ir_core::stack::guarded(|| {
        let body = dce_value(&seq.body, live);
        // Backwards: a binding is live if a later live one (or the result) uses it.
        let mut kept: Vec<Vec<Node<Binding>>> = seq
            .blocks
            .iter()
            .map(|b| Vec::with_capacity(b.bindings.len()))
            .collect();
        let mut changed = body.is_replace();
        for (bi, block) in seq.blocks.iter().enumerate().rev() {
            for b in block.bindings.iter().rev() {
                let defined = live.remove(&b.var.id());
                if !defined && !impure(&b.value) {
                    changed = true;
                    continue;
                }
                let value = dce_value(&b.value, live);
                kept[bi].push(match value {
                    Transformed::Keep => b.clone(),
                    Transformed::Replace(v) => {
                        changed = true;
                        Node::new(Binding {
                            value: v,
                            cast: b.cast.clone(),
                            var: b.var.clone(),
                        })
                    }
                });
            }
        }
        if !changed {
            return Transformed::Keep;
        }
        let blocks = seq
            .blocks
            .iter()
            .zip(kept)
            .filter(|(_, k)| !k.is_empty())
            .map(|(block, mut k)| {
                k.reverse();
                let same = k.len() == block.bindings.len()
                    && k.iter().zip(&block.bindings).all(|(a, b)| a.same_as(b));
                if same {
                    block.clone()
                } else {
                    Node::new(BindingBlock {
                        bindings: k,
                        dataflow: block.dataflow,
                    })
                }
            })
            .collect();
        let body = body.unwrap_or_clone(&seq.body);
        Transformed::Replace(Node::new(SeqExpr { blocks, body }))
    })
}

/// Dead code inside a value (a nested function's body, an `if`'s
/// branches); the variables the value uses are added to `live`.
fn dce_value(e: &Expr, live: &mut IdSet<Node<Var>>) -> Transformed<Expr> {
    match e {
        Expr::Function(f) => {
            let body = dce_seq(&f.body, live);
            for p in &f.params {
                live.remove(&p.id());
            }
            body.map(|body| {
                Expr::Function(Node::new(Function {
                    body,
                    ..(**f).clone()
                }))
            })
        }
        Expr::If(i) => {
            used_vars(&i.cond, live);
            let t = dce_seq(&i.true_branch, live);
            let f = dce_seq(&i.false_branch, live);
            if t.is_keep() && f.is_keep() {
                return Transformed::Keep;
            }
            let out = If {
                cond: i.cond.clone(),
                true_branch: t.unwrap_or_clone(&i.true_branch),
                false_branch: f.unwrap_or_clone(&i.false_branch),
            };
            Transformed::Replace(out.into())
        }
        Expr::SeqExpr(s) => dce_seq(s, live).map(Expr::SeqExpr),
        e => {
            used_vars(e, live);
            Transformed::Keep
        }
    }
}

fn in_function(f: &Node<Function>) -> Transformed<Node<Function>> {
    remove_unused_bindings(&f.body).map(|body| {
        Node::new(Function {
            body,
            ..(**f).clone()
        })
    })
}

/// Global names a function refers to.
struct Globals(FxHashSet<String>);
impl PrimExprVisitor for Globals {}
impl StructInfoVisitor for Globals {}
impl ExprVisitor for Globals {
    fn visit_global_var(&mut self, g: &Node<GlobalVar>) {
        self.0.insert(g.name.clone());
    }
}

/// Dead bindings and unreachable private functions removed; `entry`
/// functions count as public.
pub fn dead_code_elimination(module: &RelaxModule, entry: &[String]) -> RelaxModule {
    let mut out = module.clone();
    for (name, f) in module.functions() {
        if let Transformed::Replace(g) = in_function(f) {
            let _ = out.update_function(name, g);
        }
    }
    // Without a private function there is nothing to remove, and no call
    // graph to walk.
    if !out
        .functions()
        .any(|(name, f)| f.private && !entry.iter().any(|e| e == name))
    {
        return out;
    }
    // Reachability from the public functions.
    let mut reached: FxHashSet<String> = out
        .functions()
        .filter(|(name, f)| !f.private || entry.iter().any(|e| e == name))
        .map(|(name, _)| name.to_owned())
        .collect();
    let mut work: Vec<String> = reached.iter().cloned().collect();
    while let Some(name) = work.pop() {
        let Some(f) = out.get(&name) else { continue };
        let mut g = Globals(FxHashSet::default());
        g.visit_function(f);
        for callee in g.0 {
            if !out.contains(&callee) {
                // An external function calls none of the module's.
                if is_global(&out, &callee) {
                    continue;
                }
                // Reachability is unknown: keep every function.
                return out;
            }
            if reached.insert(callee.clone()) {
                work.push(callee);
            }
        }
    }
    let unreached: Vec<String> = out
        .names()
        .filter(|n| !reached.contains(*n))
        .map(str::to_owned)
        .collect();
    for name in unreached {
        let _ = out.remove_function(&name);
    }
    out
}
