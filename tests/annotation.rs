//! `#[ir(annotation)]`: a field that passes do not walk or rebuild (it is
//! carried over) but that structural equality compares structurally — a
//! variable's type, which mentions variables bound elsewhere.

use irkit::prelude::*;

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Dim {
    #[ir(skip)]
    pub name: String,
}

/// A type: dimensions that are (uses of) variables.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Shape {
    pub dims: Vec<Ty>,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub enum Ty {
    #[ir(def)]
    Dim(Node<Dim>),
    Shape(Node<Shape>),
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Var {
    #[ir(skip, eq = false)]
    pub name: String,
    #[ir(annotation)]
    pub ty: Ty,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Lam {
    pub param: Node<Var>,
    pub body: Expr,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(uses(Ty))]
pub enum Expr {
    #[ir(def)]
    Var(Node<Var>),
    Lam(Node<Lam>),
}

fn lam(dim: &str) -> Expr {
    let n = Node::new(Dim { name: dim.into() });
    let ty: Ty = Shape {
        dims: vec![Ty::Dim(n)],
    }
    .into();
    let x = Node::new(Var {
        name: "x".into(),
        ty,
    });
    Lam {
        param: x.clone(),
        body: Expr::Var(x),
    }
    .into()
}

/// Counts the type nodes a visitor reaches.
#[derive(Default)]
struct CountTypes(usize);
impl TyVisitor for CountTypes {
    fn visit_shape(&mut self, s: &Node<Shape>) {
        self.0 += 1;
        s.walk(self)
    }
}
impl ExprVisitor for CountTypes {}

#[test]
fn an_annotation_is_not_walked() {
    let mut count = CountTypes::default();
    count.visit_expr(&lam("n"));
    assert_eq!(count.0, 0);
}

#[test]
fn an_annotation_is_compared_structurally() {
    // Two programs whose annotations mention different (free) variables are
    // equal when free variables are mapped, and not otherwise.
    assert!(structural_eq_map_free_vars(&lam("n"), &lam("m")));
    assert!(!structural_eq(&lam("n"), &lam("n")));
    assert_eq!(
        structural_hash_map_free_vars(&lam("n")),
        structural_hash_map_free_vars(&lam("m"))
    );
    // A different annotation is a different program.
    let n = Node::new(Dim { name: "n".into() });
    let two: Ty = Shape {
        dims: vec![Ty::Dim(n.clone()), Ty::Dim(n)],
    }
    .into();
    let x = Node::new(Var {
        name: "x".into(),
        ty: two,
    });
    let other: Expr = Lam {
        param: x.clone(),
        body: Expr::Var(x),
    }
    .into();
    assert!(!structural_eq_map_free_vars(&lam("n"), &other));
}
