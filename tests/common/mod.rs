//! A small Relay-like dialect used by the integration tests: expressions with
//! calls, lets, tuples and conditionals, defined with the derives only.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write;

use irkit::{Mutable, Node, StructuralEq, Visitable};

pub type Attrs = BTreeMap<String, String>;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub line: u32,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Constant {
    #[ir(skip)]
    pub value: i64,
    #[ir(skip, eq = false)]
    pub span: Span,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Var {
    #[ir(skip, eq = false)]
    pub name: String,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Call {
    #[ir(skip)]
    pub op: String,
    pub args: Vec<Expr>,
    #[ir(skip)]
    pub attrs: Attrs,
    #[ir(skip, eq = false)]
    pub span: Span,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Let {
    pub var: Node<Var>,
    pub value: Expr,
    pub body: Expr,
    #[ir(skip, eq = false)]
    pub span: Span,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Tuple {
    pub fields: Vec<Expr>,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct If {
    pub cond: Expr,
    pub then_branch: Expr,
    pub else_branch: Expr,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Function {
    pub params: Vec<Node<Var>>,
    pub body: Expr,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(rewriter, in_place)]
pub enum Expr {
    Constant(Node<Constant>),
    #[ir(def)]
    Var(Node<Var>),
    #[ir(graph)]
    Call(Node<Call>),
    #[ir(graph)]
    Let(Node<Let>),
    #[ir(graph)]
    Tuple(Node<Tuple>),
    #[ir(graph)]
    If(Node<If>),
    #[ir(graph)]
    Function(Node<Function>),
}

pub fn c(value: i64) -> Expr {
    Constant {
        value,
        span: Span::default(),
    }
    .into()
}

pub fn v(name: &str) -> Node<Var> {
    Node::new(Var { name: name.into() })
}

pub fn call(op: &str, args: Vec<Expr>) -> Expr {
    Call {
        op: op.into(),
        args,
        attrs: Attrs::new(),
        span: Span::default(),
    }
    .into()
}

pub fn let_(var: &Node<Var>, value: Expr, body: Expr) -> Expr {
    Let {
        var: var.clone(),
        value,
        body,
        span: Span::default(),
    }
    .into()
}

pub fn tuple(fields: Vec<Expr>) -> Expr {
    Tuple { fields }.into()
}

pub fn if_(cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
    If {
        cond,
        then_branch,
        else_branch,
    }
    .into()
}

pub fn func(params: &[&Node<Var>], body: Expr) -> Expr {
    Function {
        params: params.iter().map(|p| (*p).clone()).collect(),
        body,
    }
    .into()
}

/// `let %x0 = add(%x, 1); let %x1 = add(%x0, 1); ... %x{n-1}`: an ANF chain nested in its body.
pub fn let_chain(n: usize) -> Expr {
    let vars: Vec<Node<Var>> = (0..n).map(|i| v(&format!("x{i}"))).collect();
    let mut body: Expr = match vars.last() {
        Some(last) => last.clone().into(),
        None => c(0),
    };
    for i in (0..n).rev() {
        let prev: Expr = if i == 0 {
            v("x").into()
        } else {
            vars[i - 1].clone().into()
        };
        body = let_(&vars[i], call("add", vec![prev, c(1)]), body);
    }
    body
}

/// `add(add(...add(%x, 1)..., 1), 1)`: a call nested in its argument.
pub fn nested_calls(n: usize) -> Expr {
    let mut e: Expr = v("x").into();
    for _ in 0..n {
        e = call("add", vec![e, c(1)]);
    }
    e
}

/// A readable text form, printed by a visitor.
pub fn print(e: &Expr) -> String {
    struct Printer(String);
    impl Printer {
        fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    self.0.push_str(", ");
                }
                each(self, item);
            }
        }
    }
    impl ExprVisitor for Printer {
        fn visit_constant(&mut self, n: &Node<Constant>) {
            let _ = write!(self.0, "{}", n.value);
        }
        fn visit_var(&mut self, n: &Node<Var>) {
            let _ = write!(self.0, "%{}", n.name);
        }
        fn visit_var_def(&mut self, n: &Node<Var>) {
            let _ = write!(self.0, "%{}", n.name);
        }
        fn visit_call(&mut self, n: &Node<Call>) {
            self.0.push_str(&n.op);
            self.0.push('(');
            self.list(&n.args, |p, a| p.visit_expr(a));
            self.0.push(')');
        }
        fn visit_let(&mut self, n: &Node<Let>) {
            self.0.push_str("let ");
            self.visit_var_def(&n.var);
            self.0.push_str(" = ");
            self.visit_expr(&n.value);
            self.0.push_str(";\n");
            self.visit_expr(&n.body);
        }
        fn visit_tuple(&mut self, n: &Node<Tuple>) {
            self.0.push('(');
            self.list(&n.fields, |p, a| p.visit_expr(a));
            self.0.push(')');
        }
        fn visit_if(&mut self, n: &Node<If>) {
            self.0.push_str("if (");
            self.visit_expr(&n.cond);
            self.0.push_str(") { ");
            self.visit_expr(&n.then_branch);
            self.0.push_str(" } else { ");
            self.visit_expr(&n.else_branch);
            self.0.push_str(" }");
        }
        fn visit_function(&mut self, n: &Node<Function>) {
            self.0.push_str("fn (");
            self.list(&n.params, |p, v| p.visit_var_def(v));
            self.0.push_str(") { ");
            self.visit_expr(&n.body);
            self.0.push_str(" }");
        }
    }
    let mut p = Printer(String::new());
    p.visit_expr(e);
    p.0
}
