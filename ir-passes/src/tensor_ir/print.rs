//! The text form, `((1 + 2) + var_b)`, printed by visitors so that printing is
//! stack-safe at any depth.

use std::fmt::{self, Write};

use ir_core::Node;

use super::expr::{
    AddOp, Binary, BinaryOp, Cmp, Constant, DivOp, Expr, ExprVisitor, ModOp, MulOp, SubOp, Var,
};
use super::stmt::{Assign, Evaluate, ForLoop, IfElse, Seq, Stmt, StmtVisitor};

struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn binary<Op: BinaryOp>(&mut self, b: &Binary<Op>) {
        self.out.push('(');
        self.visit_expr(&b.l);
        let _ = write!(self.out, " {} ", Op::SYMBOL);
        self.visit_expr(&b.r);
        self.out.push(')');
    }

    fn line(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn block(&mut self, body: &Stmt) {
        self.out.push('{');
        self.indent += 1;
        match body {
            Stmt::Seq(s) => {
                for stmt in &s.stmts {
                    self.line();
                    self.visit_stmt(stmt);
                }
            }
            other => {
                self.line();
                self.visit_stmt(other);
            }
        }
        self.indent -= 1;
        self.line();
        self.out.push('}');
    }
}

impl ExprVisitor for Printer {
    fn visit_constant(&mut self, c: &Node<Constant>) {
        let _ = write!(self.out, "{}", c.value);
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        self.out.push_str(&v.name);
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.out.push_str(&v.name);
    }
    fn visit_add(&mut self, b: &Node<Binary<AddOp>>) {
        self.binary(b)
    }
    fn visit_sub(&mut self, b: &Node<Binary<SubOp>>) {
        self.binary(b)
    }
    fn visit_mul(&mut self, b: &Node<Binary<MulOp>>) {
        self.binary(b)
    }
    fn visit_div(&mut self, b: &Node<Binary<DivOp>>) {
        self.binary(b)
    }
    fn visit_mod(&mut self, b: &Node<Binary<ModOp>>) {
        self.binary(b)
    }
    fn visit_cmp(&mut self, c: &Node<Cmp>) {
        self.out.push('(');
        self.visit_expr(&c.l);
        let _ = write!(self.out, " {} ", c.op.symbol());
        self.visit_expr(&c.r);
        self.out.push(')');
    }
}

impl StmtVisitor for Printer {
    fn visit_assign(&mut self, s: &Node<Assign>) {
        self.visit_expr(&s.var);
        self.out.push_str(" = ");
        self.visit_expr(&s.value);
    }
    fn visit_seq(&mut self, s: &Node<Seq>) {
        for (i, stmt) in s.stmts.iter().enumerate() {
            if i > 0 {
                self.line();
            }
            self.visit_stmt(stmt);
        }
    }
    fn visit_if_else(&mut self, s: &Node<IfElse>) {
        self.out.push_str("if ");
        self.visit_expr(&s.condition);
        self.out.push(' ');
        self.block(&s.then_case);
        if let Some(e) = &s.else_case {
            self.out.push_str(" else ");
            self.block(e);
        }
    }
    fn visit_for_loop(&mut self, s: &Node<ForLoop>) {
        self.out.push_str("for ");
        self.visit_var_def(&s.var);
        self.out.push_str(" in (");
        self.visit_expr(&s.iter_begin);
        self.out.push_str(", ");
        self.visit_expr(&s.iter_end);
        self.out.push_str(", ");
        self.visit_expr(&s.step);
        self.out.push_str(") ");
        self.block(&s.body);
    }
    fn visit_evaluate(&mut self, s: &Node<Evaluate>) {
        self.out.push_str("evaluate{");
        s.walk(self);
        self.out.push('}');
    }
}

fn print(f: &mut fmt::Formatter<'_>, run: impl FnOnce(&mut Printer)) -> fmt::Result {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    run(&mut p);
    f.write_str(&p.out)
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(f, |p| p.visit_expr(self))
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print(f, |p| p.visit_stmt(self))
    }
}
