//! Facts known inside a branch: comparisons between a variable the program
//! never assigns and a constant or another such variable. Only such
//! variables keep their value for the whole branch; tensor elements and call
//! results are never facts (a store or a call may change them).
//!
//! Facts are kept per variable (an integer interval, a few exclusions and a
//! few other atoms), so deciding a comparison costs the same at any depth of
//! nesting. Entering a branch records an undo mark; leaving it restores the
//! facts from before, so a fact never escapes its branch.

use ir_core::{Id, IdMap, IdSet, Node};

use crate::tensor_ir::dtype::Value;
use crate::tensor_ir::expr::{Cmp, Expr, ExprVisitor, Var};
use crate::tensor_ir::stmt::{Assign, Stmt, StmtVisitor};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Rel {
    /// `!(a op b)` is `a negate(op) b`.
    fn negate(self) -> Rel {
        match self {
            Rel::Eq => Rel::Ne,
            Rel::Ne => Rel::Eq,
            Rel::Lt => Rel::Ge,
            Rel::Le => Rel::Gt,
            Rel::Gt => Rel::Le,
            Rel::Ge => Rel::Lt,
        }
    }

    /// `a op b` is `b swap(op) a`.
    fn swap(self) -> Rel {
        match self {
            Rel::Lt => Rel::Gt,
            Rel::Le => Rel::Ge,
            Rel::Gt => Rel::Lt,
            Rel::Ge => Rel::Le,
            other => other,
        }
    }

    /// Whether `a self b` decides `a query b`: `Some(true)` when it implies
    /// it, `Some(false)` when it implies its negation.
    fn decides(self, query: Rel) -> Option<bool> {
        use Rel::*;
        let implies = |f: Rel, q: Rel| {
            f == q
                || matches!(
                    (f, q),
                    (Eq, Le) | (Eq, Ge) | (Lt, Le) | (Lt, Ne) | (Gt, Ge) | (Gt, Ne)
                )
        };
        if implies(self, query) {
            Some(true)
        } else if implies(self, query.negate()) {
            Some(false)
        } else {
            None
        }
    }
}

/// The right side of an atom.
#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Value(Value),
    Var(Id<Node<Var>>),
}

/// `var op operand`, with `var` a variable the program never assigns.
struct Atom {
    var: Id<Node<Var>>,
    rel: Rel,
    rhs: Operand,
}

/// At most this many exclusions and atoms per variable: older ones are
/// forgotten (which is sound: fewer facts, fewer decisions).
const KEEP: usize = 16;

/// What is known about one variable.
#[derive(Debug, Clone, Default)]
struct Known {
    /// Integer bounds, inclusive.
    lo: Option<i64>,
    hi: Option<i64>,
    /// Integer values it is not.
    not: Vec<i64>,
    /// Other atoms that hold (float or bool constants, other variables).
    atoms: Vec<(Rel, Operand)>,
}

fn push_capped<T>(v: &mut Vec<T>, x: T) {
    if v.len() == KEEP {
        v.remove(0);
    }
    v.push(x);
}

impl Known {
    fn assume(&mut self, rel: Rel, rhs: Operand) {
        let Operand::Value(Value::Int(c)) = rhs else {
            push_capped(&mut self.atoms, (rel, rhs));
            return;
        };
        let raise = |lo: &mut Option<i64>, v: Option<i64>| {
            if let Some(v) = v {
                *lo = Some(lo.map_or(v, |l| l.max(v)));
            }
        };
        let lower = |hi: &mut Option<i64>, v: Option<i64>| {
            if let Some(v) = v {
                *hi = Some(hi.map_or(v, |h| h.min(v)));
            }
        };
        match rel {
            Rel::Eq => {
                raise(&mut self.lo, Some(c));
                lower(&mut self.hi, Some(c));
            }
            Rel::Ne => push_capped(&mut self.not, c),
            Rel::Lt => lower(&mut self.hi, c.checked_sub(1)),
            Rel::Le => lower(&mut self.hi, Some(c)),
            Rel::Gt => raise(&mut self.lo, c.checked_add(1)),
            Rel::Ge => raise(&mut self.lo, Some(c)),
        }
    }

    fn decide(&self, rel: Rel, rhs: &Operand) -> Option<bool> {
        if let Operand::Value(Value::Int(c)) = *rhs
            && let Some(d) = self.decide_int(rel, c)
        {
            return Some(d);
        }
        self.atoms
            .iter()
            .rev()
            .filter(|(_, r)| r == rhs)
            .find_map(|(f, _)| f.decides(rel))
    }

    fn decide_int(&self, rel: Rel, c: i64) -> Option<bool> {
        let below = self.hi.is_some_and(|h| h < c);
        let above = self.lo.is_some_and(|l| l > c);
        let at_most = self.hi.is_some_and(|h| h <= c);
        let at_least = self.lo.is_some_and(|l| l >= c);
        let excluded = below || above || self.not.contains(&c);
        let exactly = at_most && at_least;
        let d = |t: bool, f: bool| {
            if t {
                Some(true)
            } else if f {
                Some(false)
            } else {
                None
            }
        };
        match rel {
            Rel::Eq => d(exactly, excluded),
            Rel::Ne => d(excluded, exactly),
            Rel::Lt => d(below, at_least),
            Rel::Le => d(at_most, above),
            Rel::Gt => d(above, at_most),
            Rel::Ge => d(at_least, below),
        }
    }
}

/// The facts in scope, with an undo log.
#[derive(Default)]
pub(crate) struct Facts {
    /// Variables the program assigns somewhere: never the subject of a fact.
    assigned: IdSet<Node<Var>>,
    known: IdMap<Node<Var>, Known>,
    undo: Vec<(Id<Node<Var>>, Option<Known>)>,
}

impl Facts {
    /// Facts about `program`'s variables, none known yet.
    pub(crate) fn for_program(program: &Stmt) -> Facts {
        #[derive(Default)]
        struct Assigned(IdSet<Node<Var>>);
        impl ExprVisitor for Assigned {}
        impl StmtVisitor for Assigned {
            fn visit_assign(&mut self, a: &Node<Assign>) {
                if let Expr::Var(v) = &a.lhs {
                    self.0.insert(v.id());
                }
                a.walk(self);
            }
        }
        let mut assigned = Assigned::default();
        assigned.visit_stmt(program);
        Facts {
            assigned: assigned.0,
            ..Facts::default()
        }
    }

    /// Whether nothing is known.
    pub(crate) fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// Where to come back to when the branch ends.
    pub(crate) fn mark(&self) -> usize {
        self.undo.len()
    }

    /// Forgets the facts assumed since `mark`.
    pub(crate) fn restore(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let (var, before) = self.undo.pop().expect("above the mark");
            match before {
                Some(k) => self.known.insert(var, k),
                None => self.known.remove(&var),
            };
        }
    }

    /// Assumes `cond` evaluates to `holds` (entering a branch).
    pub(crate) fn assume(&mut self, cond: &Expr, holds: bool) {
        // Work list instead of recursion: conditions can be deep.
        let mut todo = vec![(cond, holds)];
        while let Some((c, holds)) = todo.pop() {
            match c {
                Expr::And(n) if holds => todo.extend([(&n.l, true), (&n.r, true)]),
                Expr::Or(n) if !holds => todo.extend([(&n.l, false), (&n.r, false)]),
                Expr::Not(n) => todo.push((&n.value, !holds)),
                _ => {
                    if let Some(atom) = self.atom(c) {
                        let rel = if holds { atom.rel } else { atom.rel.negate() };
                        let before = self.known.get(&atom.var).cloned();
                        self.undo.push((atom.var, before));
                        self.known
                            .entry(atom.var)
                            .or_default()
                            .assume(rel, atom.rhs);
                    }
                }
            }
        }
    }

    /// Whether the facts decide the comparison `c`.
    pub(crate) fn decide(&self, c: Cmp<'_>) -> Option<bool> {
        let atom = self.atom(&Expr::from(c))?;
        self.known.get(&atom.var)?.decide(atom.rel, &atom.rhs)
    }

    /// `c` as `var op operand`, when it compares an unassigned variable with
    /// a constant or another unassigned variable.
    fn atom(&self, c: &Expr) -> Option<Atom> {
        let cmp = c.as_cmp()?;
        let rel = match cmp {
            Cmp::Eq(_) => Rel::Eq,
            Cmp::Ne(_) => Rel::Ne,
            Cmp::Lt(_) => Rel::Lt,
            Cmp::Le(_) => Rel::Le,
            Cmp::Gt(_) => Rel::Gt,
            Cmp::Ge(_) => Rel::Ge,
        };
        let stable = |e: &Expr| match e {
            Expr::Var(v) if !self.assigned.contains(&v.id()) => Some(v.id()),
            _ => None,
        };
        let operand = |e: &Expr| match (e.as_value(), stable(e)) {
            (Some(v), _) => Some(Operand::Value(v)),
            (None, Some(v)) => Some(Operand::Var(v)),
            _ => None,
        };
        let (l, r) = (cmp.l(), cmp.r());
        if let Some(var) = stable(l) {
            return Some(Atom {
                var,
                rel,
                rhs: operand(r)?,
            });
        }
        Some(Atom {
            var: stable(r)?,
            rel: rel.swap(),
            rhs: operand(l)?,
        })
    }
}
