//! Patterns of `match` clauses, the third family of Relay: wildcard,
//! variable, constructor and tuple patterns.
//!
//! A pattern variable is an expression-family variable, and the expression
//! family holds patterns; two families cannot each require the other's
//! visitor, so a pattern keeps its variable (and constructor) as an
//! annotation, and `Match`'s default hooks ([`visit_match`],
//! [`mutate_match`]) visit each clause's pattern, then its variables as
//! definition sites (`visit_var_def`, `mutate_var_def`), then its body.

use ir_core::stack::guarded;
use ir_core::{Mutable, Node, StructuralEq, Transformed, VisitResult, Visitable, try_visit};

use super::expr::{Clause, Constructor, Expr, ExprMutator, ExprVisitor, Match, Var};

/// `_`: matches anything, binds nothing.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct PatternWildcard {}

/// `%x`: matches anything and binds it.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct PatternVar {
    /// The variable bound (a definition site, visited by `Match`'s hooks).
    #[ir(annotation)]
    pub var: Node<Var>,
}

/// `Cons(p1, p2)`: matches a value made by the constructor, and its fields
/// against the sub-patterns.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct PatternConstructor {
    /// The constructor.
    #[ir(annotation)]
    pub constructor: Node<Constructor>,
    /// One pattern per field.
    pub patterns: Vec<Pattern>,
}

/// `(p1, p2)`: matches a tuple field by field.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct PatternTuple {
    /// One pattern per field.
    pub patterns: Vec<Pattern>,
}

/// The family of patterns.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(rewriter)]
pub enum Pattern {
    /// `_`.
    PatternWildcard(Node<PatternWildcard>),
    /// `%x`.
    PatternVar(Node<PatternVar>),
    /// `Cons(...)`.
    PatternConstructor(Node<PatternConstructor>),
    /// `(...)`.
    PatternTuple(Node<PatternTuple>),
}

impl Pattern {
    /// `_`.
    pub fn wildcard() -> Pattern {
        PatternWildcard {}.into()
    }

    /// `%x`.
    pub fn var(var: Node<Var>) -> Pattern {
        PatternVar { var }.into()
    }

    /// The variables the pattern binds, left to right.
    pub fn bound_vars(&self) -> Vec<Node<Var>> {
        let mut out = Vec::new();
        // A worklist, not recursion: patterns may nest as deep as the input.
        let mut stack = vec![self];
        while let Some(p) = stack.pop() {
            match p {
                Pattern::PatternWildcard(_) => {}
                Pattern::PatternVar(v) => out.push(v.var.clone()),
                Pattern::PatternConstructor(c) => stack.extend(c.patterns.iter().rev()),
                Pattern::PatternTuple(t) => stack.extend(t.patterns.iter().rev()),
            }
        }
        out
    }

    /// The number of pattern nodes.
    pub fn size(&self) -> usize {
        let mut n = 0;
        let mut stack = vec![self];
        while let Some(p) = stack.pop() {
            n += 1;
            match p {
                Pattern::PatternConstructor(c) => stack.extend(&c.patterns),
                Pattern::PatternTuple(t) => stack.extend(&t.patterns),
                _ => {}
            }
        }
        n
    }

    /// The pattern with each variable replaced by what `f` gives for it
    /// (the same pattern, shared, when `f` keeps them all).
    pub fn rebind(
        &self,
        f: &mut impl FnMut(&Node<Var>) -> Transformed<Node<Var>>,
    ) -> Transformed<Pattern> {
        guarded(|| match self {
            Pattern::PatternWildcard(_) => Transformed::Keep,
            Pattern::PatternVar(v) => f(&v.var).map(Pattern::var),
            Pattern::PatternConstructor(c) => rebind_all(&c.patterns, f).map(|patterns| {
                PatternConstructor {
                    constructor: c.constructor.clone(),
                    patterns,
                }
                .into()
            }),
            Pattern::PatternTuple(t) => {
                rebind_all(&t.patterns, f).map(|patterns| PatternTuple { patterns }.into())
            }
        })
    }
}

fn rebind_all(
    patterns: &[Pattern],
    f: &mut impl FnMut(&Node<Var>) -> Transformed<Node<Var>>,
) -> Transformed<Vec<Pattern>> {
    let mut out: Option<Vec<Pattern>> = None;
    for (i, p) in patterns.iter().enumerate() {
        match p.rebind(f) {
            Transformed::Replace(new) => {
                out.get_or_insert_with(|| patterns[..i].to_vec()).push(new)
            }
            Transformed::Keep => {
                if let Some(out) = &mut out {
                    out.push(p.clone());
                }
            }
        }
    }
    match out {
        Some(v) => Transformed::Replace(v),
        None => Transformed::Keep,
    }
}

/// The default of `visit_match`: the matched value, then per clause its
/// pattern, its variables as definitions, and its body.
pub fn visit_match<V: ExprVisitor<R> + ?Sized, R: VisitResult>(v: &mut V, m: &Node<Match>) -> R {
    try_visit!(v.visit_expr(&m.data));
    for clause in &m.clauses {
        try_visit!(v.visit_pattern(&clause.lhs));
        for var in clause.lhs.bound_vars() {
            try_visit!(v.visit_var_def(&var));
        }
        try_visit!(v.visit_expr(&clause.rhs));
    }
    R::output()
}

/// The default of `mutate_match`: as [`visit_match`], rebuilding the match
/// only if something changed; a variable `mutate_var_def` replaces is
/// replaced in its pattern.
pub fn mutate_match<M: ExprMutator + ?Sized>(m: &mut M, node: &Node<Match>) -> Transformed<Expr> {
    let data = m.mutate_expr(&node.data);
    let mut clauses: Option<Vec<Clause>> = None;
    for (i, clause) in node.clauses.iter().enumerate() {
        let lhs = m.mutate_pattern(&clause.lhs);
        let rebound = lhs
            .as_ref_or(&clause.lhs)
            .rebind(&mut |var| m.mutate_var_def(var));
        let lhs = match rebound {
            Transformed::Replace(p) => Transformed::Replace(p),
            Transformed::Keep => lhs,
        };
        let rhs = m.mutate_expr(&clause.rhs);
        if lhs.is_keep() && rhs.is_keep() {
            if let Some(out) = &mut clauses {
                out.push(clause.clone());
            }
            continue;
        }
        clauses
            .get_or_insert_with(|| node.clauses[..i].to_vec())
            .push(Clause {
                lhs: lhs.unwrap_or_clone(&clause.lhs),
                rhs: rhs.unwrap_or_clone(&clause.rhs),
            });
    }
    if data.is_keep() && clauses.is_none() {
        return Transformed::Keep;
    }
    Transformed::Replace(
        Match {
            data: data.unwrap_or_clone(&node.data),
            clauses: clauses.unwrap_or_else(|| node.clauses.clone()),
            complete: node.complete,
            span: node.span,
        }
        .into(),
    )
}
