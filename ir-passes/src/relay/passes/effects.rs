//! What evaluating an expression may do besides giving its value: write a
//! reference, or read one. Passes that remove, move or merge computations
//! ask before they do (`dce`, `to-gnf`).
//!
//! A call of anything but an operator, a constructor or a function written
//! in place may write, when the module writes a reference anywhere: without
//! knowing the callee, that is all one can say.

use std::ops::ControlFlow;

use ir_core::stack::guarded;
use ir_core::{Family, IdMap, VisitedSet};

use crate::relay::expr::{Expr, ExprVisitor};
use crate::relay::module::RelayModule;
use crate::relay::pattern::PatternVisitor;
use crate::relay::ty::{Type, TypeVisitor};

/// The effects of evaluating an expression.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effect {
    /// It may change a reference: it must run, once, where it is.
    pub writes: bool,
    /// It reads a reference: it may not move past a write.
    pub reads: bool,
    /// It makes a new reference: unused it may go, but it may not move
    /// into a function (each call would make its own) or be duplicated.
    pub creates: bool,
}

impl Effect {
    /// Neither writes nor reads: it may be removed, moved or shared.
    pub fn is_pure(self) -> bool {
        !self.writes && !self.reads && !self.creates
    }

    fn or(self, other: Effect) -> Effect {
        Effect {
            writes: self.writes || other.writes,
            reads: self.reads || other.reads,
            creates: self.creates || other.creates,
        }
    }
}

/// Whether any function of the module writes a reference.
pub fn module_writes(module: &RelayModule) -> bool {
    module.functions().any(|(_, f)| writes_somewhere(&f.body))
}

/// Whether `e` holds a `ref_write` anywhere (in nested functions too).
pub fn writes_somewhere(e: &Expr) -> bool {
    struct Find {
        found: bool,
        seen: VisitedSet<Expr>,
    }
    impl TypeVisitor for Find {
        fn visit_type(&mut self, _: &Type) {}
    }
    impl PatternVisitor for Find {}
    impl ExprVisitor for Find {
        fn visit_expr(&mut self, e: &Expr) {
            ir_core::visit_preorder(self, e, |pass, e| {
                pass.found |= matches!(e, Expr::RefWrite(_));
                if pass.found || !pass.seen.first_visit(e) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
        }
    }
    let mut f = Find {
        found: false,
        seen: VisitedSet::new(),
    };
    f.visit_expr(e);
    f.found
}

/// The effects of expressions, remembered per node (so that asking about
/// every binding of a chain, each holding the next, stays linear).
pub struct Effects {
    /// Whether a call of an unknown function may write.
    unknown_calls_write: bool,
    memo: IdMap<Expr, Effect>,
    /// Keeps the nodes alive, so an address is never reused while the memo lives.
    keep: Vec<Expr>,
}

impl Effects {
    /// An analysis for a module that writes references somewhere
    /// (`unknown_calls_write`) or nowhere.
    pub fn new(unknown_calls_write: bool) -> Self {
        Effects {
            unknown_calls_write,
            memo: IdMap::default(),
            keep: Vec::new(),
        }
    }

    /// The effects of evaluating `e` (a function literal's body runs only
    /// when it is called).
    pub fn of(&mut self, e: &Expr) -> Effect {
        guarded(|| {
            if let Some(&effect) = self.memo.get(&e.id()) {
                return effect;
            }
            let effect = self.uncached(e);
            self.memo.insert(e.id(), effect);
            self.keep.push(e.clone());
            effect
        })
    }

    fn all(&mut self, es: &[Expr]) -> Effect {
        es.iter()
            .fold(Effect::default(), |acc, e| acc.or(self.of(e)))
    }

    fn uncached(&mut self, e: &Expr) -> Effect {
        match e {
            Expr::Constant(_)
            | Expr::Var(_)
            | Expr::GlobalVar(_)
            | Expr::Op(_)
            | Expr::Constructor(_)
            | Expr::Function(_)
            | Expr::Ext(_) => Effect::default(),
            Expr::Tuple(t) => self.all(&t.fields),
            Expr::TupleGetItem(g) => self.of(&g.tuple),
            Expr::Let(head) => {
                // A chain in a loop, down to its end or to a let known
                // already, then back up: every let of it is remembered, so
                // asking about each of a chain's suffixes stays linear.
                let mut chain = vec![head.clone()];
                let mut acc = loop {
                    let body = chain[chain.len() - 1].body.clone();
                    match body.as_let() {
                        Some(next) if !self.memo.contains_key(&body.id()) => {
                            chain.push(next.clone());
                        }
                        _ => break self.of(&body),
                    }
                };
                for (i, l) in chain.into_iter().enumerate().rev() {
                    acc = acc.or(self.of(&l.value));
                    // The head is remembered by `of`.
                    if i > 0 {
                        let link = Expr::Let(l);
                        self.memo.insert(link.id(), acc);
                        self.keep.push(link);
                    }
                }
                acc
            }
            Expr::If(i) => self
                .of(&i.cond)
                .or(self.of(&i.then_branch))
                .or(self.of(&i.else_branch)),
            Expr::Match(m) => {
                let mut acc = self.of(&m.data);
                for c in &m.clauses {
                    acc = acc.or(self.of(&c.rhs));
                }
                acc
            }
            Expr::RefCreate(r) => self.of(&r.value).or(Effect {
                creates: true,
                ..Effect::default()
            }),
            Expr::RefRead(r) => self.of(&r.reference).or(Effect {
                reads: true,
                ..Effect::default()
            }),
            Expr::RefWrite(w) => self.of(&w.reference).or(self.of(&w.value)).or(Effect {
                writes: true,
                ..Effect::default()
            }),
            Expr::Call(c) => {
                let callee = match &c.op {
                    Expr::Op(_) | Expr::Constructor(_) => Effect::default(),
                    Expr::Function(f) => self.of(&f.body),
                    other => self.of(other).or(Effect {
                        writes: self.unknown_calls_write,
                        reads: self.unknown_calls_write,
                        creates: self.unknown_calls_write,
                    }),
                };
                callee.or(self.all(&c.args))
            }
        }
    }
}
