//! Graphviz output: one node per IR node (shared nodes once), edges from
//! operands to their users.

use crate::relay::pattern::PatternVisitor;
use std::fmt::Write;

use ir_core::{Family, IdMap, Node};

use super::expr::{Expr, ExprVisitor, Function};
use super::module::RelayModule;
use super::ty::{Type, TypeVisitor};

struct Dot {
    out: String,
    ids: IdMap<Expr, usize>,
    prefix: String,
}

impl Dot {
    fn id(&mut self, e: &Expr) -> (String, bool) {
        let next = self.ids.len();
        let mut fresh = false;
        let n = *self.ids.entry(e.id()).or_insert_with(|| {
            fresh = true;
            next
        });
        (format!("{}{n}", self.prefix), fresh)
    }

    fn label(e: &Expr) -> String {
        let text = match e {
            Expr::Constant(c) => c.data.to_string(),
            Expr::Var(v) => format!("%{}", v.name),
            Expr::GlobalVar(g) => format!("@{}", g.name),
            Expr::Op(o) => o.name.clone(),
            Expr::Tuple(_) => "Tuple".into(),
            Expr::TupleGetItem(g) => format!(".{}", g.index),
            Expr::Function(_) => "fn".into(),
            Expr::Call(c) => match c.op.as_op() {
                Some(o) => o.name.clone(),
                None => "call".into(),
            },
            Expr::Let(l) => format!("let %{}", l.var.name),
            Expr::If(_) => "if".into(),
            Expr::Constructor(c) => c.name.clone(),
            Expr::Match(m) => if m.complete { "match" } else { "match?" }.into(),
            Expr::RefCreate(_) => "ref".into(),
            Expr::RefRead(_) => "ref_read".into(),
            Expr::RefWrite(_) => "ref_write".into(),
            Expr::Ext(x) => x.kind_name().into(),
        };
        text.replace('"', "\\\"")
    }
}

impl TypeVisitor for Dot {
    // Types hold no expressions, and are shared: walking each would cost
    // the depth of nested function types at every function.
    fn visit_type(&mut self, _: &Type) {}
}
impl PatternVisitor for Dot {}
impl ExprVisitor for Dot {
    fn visit_expr(&mut self, e: &Expr) {
        let (id, fresh) = self.id(e);
        if !fresh {
            return;
        }
        let shape = if matches!(e, Expr::Var(_) | Expr::Constant(_)) {
            "ellipse"
        } else {
            "box"
        };
        let _ = writeln!(
            self.out,
            "  {id} [label=\"{}\", shape={shape}];",
            Dot::label(e)
        );
        // Operands: a call's arguments (its op is in the label), other kinds' children.
        let operands: Vec<Expr> = match e {
            Expr::Call(c) if c.op.is_op() => c.args.to_vec(),
            Expr::Call(c) => std::iter::once(c.op.clone())
                .chain(c.args.iter().cloned())
                .collect(),
            Expr::Tuple(t) => t.fields.clone(),
            Expr::TupleGetItem(g) => vec![g.tuple.clone()],
            Expr::Let(l) => vec![l.value.clone(), l.body.clone()],
            Expr::If(i) => vec![i.cond.clone(), i.then_branch.clone(), i.else_branch.clone()],
            Expr::Function(f) => vec![f.body.clone()],
            _ => vec![],
        };
        for operand in &operands {
            ir_core::stack::guarded(|| self.visit_expr(operand));
            let (from, _) = self.id(operand);
            let _ = writeln!(self.out, "  {from} -> {id};");
        }
    }
}

/// The module as a Graphviz digraph, one cluster per function.
pub fn module_to_dot(module: &RelayModule) -> String {
    let mut dot = Dot {
        out: String::from("digraph module {\n  rankdir=BT;\n"),
        ids: IdMap::default(),
        prefix: String::new(),
    };
    for (i, (name, f)) in module.functions().enumerate() {
        dot.prefix = format!("f{i}_");
        dot.ids.clear();
        let _ = writeln!(dot.out, " subgraph cluster_{i} {{\n  label=\"@{name}\";");
        function(&mut dot, f);
        dot.out.push_str(" }\n");
    }
    dot.out.push_str("}\n");
    dot.out
}

fn function(dot: &mut Dot, f: &Node<Function>) {
    dot.visit_expr(&f.body);
    let (body, _) = dot.id(&f.body);
    let _ = writeln!(
        dot.out,
        "  {}out [label=\"output\", shape=doublecircle];\n  {body} -> {}out;",
        dot.prefix, dot.prefix
    );
}
