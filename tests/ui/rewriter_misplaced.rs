use irkit::prelude::*;

// `rewriter` marks a family enum, not a node struct.
#[derive(Debug, Clone, Visitable, Mutable)]
#[ir(rewriter)]
pub struct Num {
    #[ir(skip)]
    pub value: i64,
}

pub struct State;

// A family whose mutators hold state has no post-order rewriter.
#[derive(Debug, Clone, Visitable, Mutable)]
#[ir(mutator(state = State), rewriter)]
pub enum Expr {
    Num(Node<Num>),
}

fn main() {}
