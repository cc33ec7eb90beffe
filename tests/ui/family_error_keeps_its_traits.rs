//! A family with a mistake still gets its traits for the kinds that are
//! right, so the passes using it report nothing more: one error for an
//! attribute that cannot be read (`grph`), one for a kind named twice.
use ir_core::{Mutable, Node, Transformed, Visitable};

#[derive(Clone, Visitable, Mutable)]
struct Var {}

#[derive(Clone, Visitable, Mutable)]
struct Lit {}

#[derive(Clone, Visitable, Mutable)]
enum Expr {
    #[ir(grph)]
    Var(Node<Var>),
    Lit(Node<Lit>),
}

#[derive(Clone, Visitable, Mutable)]
struct TVar {}

#[derive(Clone, Visitable, Mutable)]
struct TLit {}

#[derive(Clone, Visitable, Mutable)]
enum Type {
    TVar(Node<TVar>),
    TLit(Node<TLit>),
    Again(Node<TLit>),
}

struct Count(usize);
impl ExprVisitor for Count {
    fn visit_var(&mut self, _: &Node<Var>) {
        self.0 += 1;
    }
}
impl TypeVisitor for Count {
    fn visit_t_lit(&mut self, _: &Node<TLit>) {
        self.0 += 1;
    }
}

struct Keep;
impl ExprMutator for Keep {
    fn mutate_lit(&mut self, _: &Node<Lit>) -> Transformed<Expr> {
        Transformed::Keep
    }
}
impl TypeMutator for Keep {}

fn main() {
    let e: Expr = Node::new(Var {}).into();
    let mut count = Count(0);
    count.visit_expr(&e);
    let _ = Keep.mutate_expr(&e);
    let t: Type = Node::new(TLit {}).into();
    count.visit_type(&t);
    let _ = Keep.mutate_type(&t);
}
