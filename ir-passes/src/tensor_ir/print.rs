//! The text format (oneDNN's printer): `((1 + 2) - 3)`,
//! `for i in (0, 100, 1) { ... }`. Printing is a visitor, so it is
//! stack-safe at any depth.
//!
//! Names are unique among the definitions in scope: a variable whose name is
//! taken by another visible one is printed with a suffix (`i_1`), so that the
//! parser reads the text back to the same structure.

use std::fmt::{self, Write};

use ir_core::{IdMap, Node};
use rustc_hash::FxHashMap;

use super::dtype::write_constant;
use super::expr::{
    Binary, Call, Cast, Cmp, Constant, Expr, ExprVisitor, Indexing, IntrinsicCall, Logic, Select,
    Tensor, TensorPtr, Var,
};
use super::stmt::{
    Assign, Define, DefineTensor, Evaluate, ForLoop, Func, IfElse, Module, Return, Stmt,
    StmtVisitor, Stmts,
};

/// Deeper blocks are indented as this depth: the braces still delimit them
/// (the parser reads the text back), and printing stays linear in the size
/// of the program at any depth (full indentation of a nest of depth `d` is
/// `d²` characters).
pub const MAX_INDENT: usize = 64;

/// Printer state: the text, the indentation, and the names given so far.
#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
    vars: IdMap<Node<Var>, String>,
    tensors: IdMap<Node<Tensor>, String>,
    /// Names visible now, with how many definitions hold them.
    visible: FxHashMap<String, usize>,
    /// Names introduced per open scope.
    scopes: Vec<Vec<String>>,
    /// The last suffix given: one counter for the whole print, as oneDNN
    /// numbers its renames (`var1_1`, `var0_2`), so finding a free name
    /// never rescans the suffixes tried before.
    suffix: usize,
}

impl Printer {
    fn line(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent.min(MAX_INDENT) {
            self.out.push_str("  ");
        }
    }

    fn open_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    fn close_scope(&mut self) {
        for name in self.scopes.pop().unwrap_or_default() {
            if let Some(n) = self.visible.get_mut(&name) {
                *n -= 1;
                if *n == 0 {
                    self.visible.remove(&name);
                }
            }
        }
    }

    /// A name for a new definition: `base`, or `base_1`, ... if taken.
    /// `scoped`: released when the current scope closes; otherwise (a free
    /// variable) it stays taken, so that later definitions avoid it.
    fn fresh(&mut self, base: &str, scoped: bool) -> String {
        let base = if base.is_empty() { "v" } else { base };
        let mut name = base.to_owned();
        while self.visible.contains_key(&name) {
            self.suffix += 1;
            name = format!("{base}_{}", self.suffix);
        }
        *self.visible.entry(name.clone()).or_default() += 1;
        if scoped && let Some(scope) = self.scopes.last_mut() {
            scope.push(name.clone());
        }
        name
    }

    fn var_def(&mut self, v: &Node<Var>) -> String {
        let name = self.fresh(&v.name, true);
        self.vars.insert(v.id(), name.clone());
        name
    }

    fn tensor_def(&mut self, t: &Node<Tensor>) -> String {
        let name = self.fresh(&t.name, true);
        self.tensors.insert(t.id(), name.clone());
        name
    }

    fn var_name(&mut self, v: &Node<Var>) -> String {
        if let Some(name) = self.vars.get(&v.id()) {
            return name.clone();
        }
        let name = self.fresh(&v.name, false);
        self.vars.insert(v.id(), name.clone());
        name
    }

    fn tensor_name(&mut self, t: &Node<Tensor>) -> String {
        if let Some(name) = self.tensors.get(&t.id()) {
            return name.clone();
        }
        let name = self.fresh(&t.name, false);
        self.tensors.insert(t.id(), name.clone());
        name
    }

    fn list(&mut self, items: &[Expr]) {
        for (i, e) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.visit_expr(e);
        }
    }

    fn infix(&mut self, l: &Expr, symbol: &str, r: &Expr) {
        self.out.push('(');
        self.visit_expr(l);
        let _ = write!(self.out, " {symbol} ");
        self.visit_expr(r);
        self.out.push(')');
    }

    /// `[f32 * 10 * 20]`, and the strides when they are not the dense ones.
    fn tensor_type(&mut self, t: &Tensor) {
        let _ = write!(self.out, "[{}", t.elem);
        for d in &t.dims {
            self.out.push_str(" * ");
            self.visit_expr(d);
        }
        self.out.push(']');
        let dense = super::build::tensor_of("", t.elem, t.dims.clone());
        if !ir_core::structural::structural_eq(&dense.strides, &t.strides) {
            self.out.push_str(" strides [");
            self.list(&t.strides);
            self.out.push(']');
        }
    }

    /// A statement as a block body: `{ ... }` around it unless it is one.
    fn block(&mut self, body: &Stmt) {
        match body {
            Stmt::Stmts(_) => self.visit_stmt(body),
            other => {
                self.out.push('{');
                self.indent += 1;
                self.open_scope();
                self.line();
                self.visit_stmt(other);
                self.close_scope();
                self.indent -= 1;
                self.line();
                self.out.push('}');
            }
        }
    }

    fn func(&mut self, f: &Func) {
        self.open_scope();
        let _ = write!(self.out, "func {}(", f.name);
        for (i, p) in f.params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match p {
                Expr::Var(v) => {
                    let name = self.var_def(v);
                    let _ = write!(self.out, "{name}: {}", v.dtype);
                }
                Expr::Tensor(t) => {
                    let name = self.tensor_def(t);
                    let _ = write!(self.out, "{name}: ");
                    self.tensor_type(t);
                }
                other => self.visit_expr(other),
            }
        }
        let _ = write!(self.out, "): {} ", f.ret);
        self.block(&f.body);
        self.close_scope();
    }
}

impl ExprVisitor for Printer {
    fn visit_constant(&mut self, c: &Node<Constant>) {
        let _ = write_constant(&mut self.out, c.value, c.dtype);
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        let name = self.var_name(v);
        self.out.push_str(&name);
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        let name = self.var_def(v);
        self.out.push_str(&name);
    }
    fn visit_tensor(&mut self, t: &Node<Tensor>) {
        let name = self.tensor_name(t);
        self.out.push_str(&name);
    }
    fn visit_tensor_def(&mut self, t: &Node<Tensor>) {
        let name = self.tensor_def(t);
        self.out.push_str(&name);
    }
    fn visit_cast(&mut self, c: &Node<Cast>) {
        let _ = write!(self.out, "{}(", c.dtype);
        self.visit_expr(&c.value);
        self.out.push(')');
    }
    fn visit_binary(&mut self, b: Binary<'_>) {
        if matches!(b, Binary::Min(_) | Binary::Max(_)) {
            let _ = write!(self.out, "{}(", b.symbol());
            self.visit_expr(b.l());
            self.out.push_str(", ");
            self.visit_expr(b.r());
            self.out.push(')');
        } else {
            self.infix(b.l(), b.symbol(), b.r());
        }
    }
    fn visit_cmp(&mut self, c: Cmp<'_>) {
        self.infix(c.l(), c.symbol(), c.r());
    }
    fn visit_logic(&mut self, l: Logic<'_>) {
        match l {
            Logic::And(n) => self.infix(&n.l, "&&", &n.r),
            Logic::Or(n) => self.infix(&n.l, "||", &n.r),
            Logic::Not(n) => {
                self.out.push_str("!(");
                self.visit_expr(&n.value);
                self.out.push(')');
            }
        }
    }
    fn visit_select(&mut self, s: &Node<Select>) {
        self.out.push('(');
        self.visit_expr(&s.cond);
        self.out.push_str(" ? ");
        self.visit_expr(&s.then_value);
        self.out.push_str(" : ");
        self.visit_expr(&s.else_value);
        self.out.push(')');
    }
    fn visit_call(&mut self, c: &Node<Call>) {
        let _ = write!(self.out, "{}(", c.func);
        self.list(&c.args);
        self.out.push(')');
    }
    fn visit_intrinsic(&mut self, c: &Node<IntrinsicCall>) {
        let _ = write!(self.out, "{}(", c.intrin.name());
        self.list(&c.args);
        self.out.push(')');
    }
    fn visit_indexing(&mut self, i: &Node<Indexing>) {
        self.visit_expr(&i.tensor);
        self.out.push('[');
        self.list(&i.index);
        self.out.push(']');
    }
    fn visit_tensor_ptr(&mut self, p: &Node<TensorPtr>) {
        self.out.push('&');
        self.visit_indexing(&p.base);
    }
}

impl StmtVisitor for Printer {
    fn visit_assign(&mut self, a: &Node<Assign>) {
        self.visit_expr(&a.lhs);
        self.out.push_str(" = ");
        self.visit_expr(&a.rhs);
    }
    fn visit_stmts(&mut self, s: &Node<Stmts>) {
        self.out.push('{');
        self.indent += 1;
        self.open_scope();
        for stmt in &s.seq {
            self.line();
            self.visit_stmt(stmt);
        }
        self.close_scope();
        self.indent -= 1;
        self.line();
        self.out.push('}');
    }
    fn visit_if_else(&mut self, s: &Node<IfElse>) {
        self.out.push_str("if (");
        self.visit_expr(&s.cond);
        self.out.push_str(") ");
        self.block(&s.then_case);
        if let Some(e) = &s.else_case {
            self.out.push_str(" else ");
            self.block(e);
        }
    }
    fn visit_for_loop(&mut self, l: &Node<ForLoop>) {
        // The bounds are outside the loop variable's scope: print them first.
        let start = self.out.len();
        for (i, e) in [&l.begin, &l.end, &l.step].into_iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.visit_expr(e);
        }
        let range = self.out.split_off(start);
        self.open_scope();
        let name = self.var_def(&l.var);
        let _ = write!(self.out, "for {name} in ({range}) ");
        if l.kind.keyword() != "" {
            let _ = write!(self.out, "{} ", l.kind.keyword());
        }
        self.block(&l.body);
        self.close_scope();
    }
    fn visit_evaluate(&mut self, e: &Node<Evaluate>) {
        self.out.push_str("evaluate{");
        self.visit_expr(&e.value);
        self.out.push('}');
    }
    fn visit_return(&mut self, r: &Node<Return>) {
        self.out.push_str("return");
        if let Some(v) = &r.value {
            self.out.push(' ');
            self.visit_expr(v);
        }
    }
    fn visit_define(&mut self, d: &Node<Define>) {
        // The initializer is printed (and its names resolved) before the
        // variable is defined: `var x: s32 = (x + 1)` reads an outer `x`.
        let init = d.init.as_ref().map(|init| {
            let start = self.out.len();
            self.visit_expr(init);
            self.out.split_off(start)
        });
        let name = self.var_def(&d.var);
        let _ = write!(self.out, "var {name}: {}", d.var.dtype);
        if let Some(init) = init {
            let _ = write!(self.out, " = {init}");
        }
    }
    fn visit_define_tensor(&mut self, d: &Node<DefineTensor>) {
        // As for a variable: the initializer's names resolve outside.
        let init = d.init.as_ref().map(|init| {
            let start = self.out.len();
            self.visit_expr(init);
            self.out.split_off(start)
        });
        let name = self.tensor_def(&d.tensor);
        let _ = write!(self.out, "tensor {name}: ");
        self.tensor_type(&d.tensor);
        if let Some(init) = init {
            let _ = write!(self.out, " = {init}");
        }
    }
}

/// The text of an expression.
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer::default();
    p.visit_expr(e);
    p.out
}

/// The text of a statement.
pub fn print_stmt(s: &Stmt) -> String {
    let mut p = Printer::default();
    p.visit_stmt(s);
    p.out
}

/// The text of a function.
pub fn print_func(f: &Func) -> String {
    let mut p = Printer::default();
    p.func(f);
    p.out
}

/// The text of a module: its functions in name order, a blank line apart.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    for (i, (_, f)) in m.functions().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&print_func(f));
    }
    out
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_expr(self))
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_stmt(self))
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_func(self))
    }
}
