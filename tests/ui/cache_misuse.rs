use irkit::prelude::*;

#[derive(Debug, Clone, Default)]
pub struct Inferred(Option<u32>);

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Lit {
    #[ir(skip)]
    pub value: i64,
}

// A cache is never compared: `eq = true` contradicts it.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Neg {
    pub arg: Expr,
    #[ir(cache, eq = true)]
    pub inferred: Inferred,
}

// A chain node is rebuilt by replacing its tail alone: a cache would go stale.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Seq {
    pub head: Expr,
    #[ir(tail)]
    pub rest: Expr,
    #[ir(cache)]
    pub inferred: Inferred,
}

// A cache is never walked: `skip` says it again, `tail` contradicts it.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Pair {
    pub first: Expr,
    #[ir(cache, skip)]
    pub once: Inferred,
    #[ir(cache, tail)]
    pub second: Expr,
}

// A cache is never compared: an `annotation` always is.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Typed {
    pub value: Expr,
    #[ir(cache, annotation)]
    pub ty: Inferred,
}

#[derive(Debug, Clone, Visitable, Mutable)]
pub enum Expr {
    Lit(Node<Lit>),
    Neg(Node<Neg>),
    Seq(Node<Seq>),
    Pair(Node<Pair>),
    Typed(Node<Typed>),
}

// A family variant is a child, never a cache.
#[derive(Debug, Clone, Visitable, Mutable)]
pub enum Stmt {
    Eval(#[ir(cache)] Node<Lit>),
}

fn main() {}
