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

#[derive(Debug, Clone, Visitable, Mutable)]
pub enum Expr {
    Lit(Node<Lit>),
    Neg(Node<Neg>),
    Seq(Node<Seq>),
}

fn main() {}
