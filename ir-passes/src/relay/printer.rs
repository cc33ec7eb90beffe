//! Printing in TVM's text format (0.0.5), so that printing then parsing gives
//! a structurally equal program: graph nodes used more than once are bound
//! once with `%N = ...;` (sharing survives), non-scalar constants go to the
//! `#[metadata]` section, variable names are made unique.

use rustc_hash::FxHashSet as HashSet;
use std::ops::ControlFlow;

use super::extension::ExtPrinter;
use super::free_vars::free_vars;
use std::fmt::Write;

use ir_core::stack::guarded;
use ir_core::{Family, Id, IdMap, Node};
use rustc_hash::FxHashMap;

use super::expr::{Constant, Expr, ExprVisitor, Function, Var};
use super::module::RelayModule;
use super::tensor::Tensor;
use super::ty::{Type, TypeVisitor};

/// Prints a module: the version header, each `def`, and metadata if any.
pub fn print_module(module: &RelayModule) -> String {
    let mut p = Printer::default();
    let mut out = String::from("#[version = \"0.0.5\"]\n");
    for (name, function) in module.functions() {
        p.reset_function();
        p.count_uses(&function.body);
        p.place_bindings(&function.body);
        p.begin_block(ROOT);
        p.line_start();
        p.write(&format!("def @{name}"));
        p.signature(function);
        p.write(" ");
        p.braced_seq(&function.body, ROOT);
        p.line_end();
        out.push_str(&p.end_block());
    }
    out.push_str(&p.metadata());
    out
}

/// Prints an expression as expression-level text (`tvm.relay.parse_expr`):
/// free variables are declared first with `free_var`.
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer::default();
    p.count_uses(e);
    p.place_bindings(e);
    p.begin_block(ROOT);
    for var in free_vars(e) {
        p.line_start();
        p.write("free_var ");
        p.var_def(&var);
        p.write(";");
        p.line_end();
    }
    p.seq(e);
    let mut out = p.end_block();
    out.push_str(&p.metadata());
    out
}

/// Prints a type: `Tensor[(1, 4), float32]`, `(int32, bool)`, `fn (T) -> R`, `_`.
pub fn print_type(t: &Type) -> String {
    let mut out = String::new();
    write_type(&mut out, t);
    out
}

fn write_type(out: &mut String, t: &Type) {
    guarded(|| match t {
        Type::TensorType(t) => {
            if t.shape.is_empty() {
                let _ = write!(out, "{}", t.dtype);
            } else {
                let dims: Vec<String> = t.shape.iter().map(ToString::to_string).collect();
                let _ = write!(out, "Tensor[({}), {}]", dims.join(", "), t.dtype);
            }
        }
        Type::TupleType(t) => {
            out.push('(');
            for (i, f) in t.fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(out, f);
            }
            if t.fields.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Type::FuncType(t) => {
            out.push_str("fn (");
            for (i, p) in t.params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(out, p);
            }
            out.push_str(") -> ");
            write_type(out, &t.ret);
        }
        Type::IncompleteType(_) => out.push('_'),
    })
}

/// A block of the printed text: the function body (`ROOT`), an if branch or
/// a function body (`(node, 0 | 1)`), or a parenthesised let sequence (`(node, 2)`).
type BlockKey = (Option<Id<Expr>>, u8);
const ROOT: BlockKey = (None, 0);

#[derive(Default)]
struct Printer {
    /// Open blocks: key, finished text, indentation.
    blocks: Vec<(BlockKey, String, usize)>,
    /// The block each shared compound node is bound in: the innermost block
    /// enclosing all its uses, so its `%N = ...;` precedes every use.
    place: IdMap<Expr, BlockKey>,
    /// Lines being built (a nested binding starts a new one).
    lines: Vec<String>,
    indent: usize,
    /// References to each shared node (only nodes with several handles are counted).
    uses: IdMap<Expr, u32>,
    /// `%N` of graph nodes already bound.
    bound: IdMap<Expr, String>,
    next_binding: usize,
    var_names: IdMap<Node<Var>, String>,
    taken: HashSet<String>,
    meta: Vec<Tensor>,
    meta_index: IdMap<Node<Constant>, usize>,
}

impl Printer {
    fn reset_function(&mut self) {
        self.uses.clear();
        self.place.clear();
        self.bound.clear();
        self.next_binding = 0;
    }

    fn count_uses(&mut self, e: &Expr) {
        struct Count<'a>(&'a mut IdMap<Expr, u32>);
        impl TypeVisitor for Count<'_> {}
        impl ExprVisitor for Count<'_> {
            fn visit_expr(&mut self, e: &Expr) {
                ir_core::visit_preorder(self, e, |pass, e| {
                    if e.strong_count() == 1 {
                        return ControlFlow::Continue(());
                    }
                    let n = pass.0.entry(e.id()).or_insert(0);
                    *n += 1;
                    if *n == 1 {
                        ControlFlow::Continue(())
                    } else {
                        ControlFlow::Break(())
                    }
                })
            }
        }
        Count(&mut self.uses).visit_expr(e);
    }

    /// Places each shared compound node in the innermost block enclosing all
    /// its uses (blocks follow the printer: if branches, function bodies, lets
    /// in expression position). Scopes move outward only, so a worklist settles.
    fn place_bindings(&mut self, root: &Expr) {
        let mut owner: FxHashMap<BlockKey, Id<Expr>> = FxHashMap::default();
        let mut scope_of: IdMap<Expr, BlockKey> = IdMap::default();
        let parent = |owner: &FxHashMap<BlockKey, Id<Expr>>,
                      scope_of: &IdMap<Expr, BlockKey>,
                      k: BlockKey| {
            owner
                .get(&k)
                .map(|o| scope_of.get(o).copied().unwrap_or(ROOT))
        };
        let lca = |owner: &FxHashMap<BlockKey, Id<Expr>>,
                   scope_of: &IdMap<Expr, BlockKey>,
                   a: BlockKey,
                   b: BlockKey| {
            let chain = |mut k: BlockKey| {
                let mut v = vec![k];
                while let Some(p) = parent(owner, scope_of, k) {
                    v.push(p);
                    k = p;
                }
                v
            };
            let ca = chain(a);
            chain(b)
                .into_iter()
                .find(|k| ca.contains(k))
                .unwrap_or(ROOT)
        };
        // (node, block, in sequence position)
        let mut work: Vec<(Expr, BlockKey, bool)> = vec![(root.clone(), ROOT, true)];
        while let Some((e, here, seq)) = work.pop() {
            if !Self::is_graph(&e) {
                continue;
            }
            let shared = self.is_shared(&e);
            let new = match scope_of.get(&e.id()) {
                Some(&old) => {
                    let l = lca(&owner, &scope_of, old, here);
                    if l == old {
                        continue;
                    }
                    l
                }
                None => here,
            };
            scope_of.insert(e.id(), new);
            let mut open = |key: BlockKey| {
                owner.insert(key, e.id());
                key
            };
            match &e {
                Expr::Let(l) if seq && !shared => {
                    work.push((l.body.clone(), new, true));
                    work.push((l.value.clone(), new, false));
                }
                Expr::Let(l) => {
                    let k = open((Some(e.id()), 2));
                    work.push((l.body.clone(), k, true));
                    work.push((l.value.clone(), k, false));
                }
                Expr::If(i) => {
                    let (t, f) = (open((Some(e.id()), 0)), open((Some(e.id()), 1)));
                    work.push((i.else_branch.clone(), f, true));
                    work.push((i.then_branch.clone(), t, true));
                    work.push((i.cond.clone(), new, false));
                }
                Expr::Function(f) => {
                    let k = open((Some(e.id()), 0));
                    work.push((f.body.clone(), k, true));
                }
                Expr::Call(c) => {
                    work.extend(c.args.iter().map(|a| (a.clone(), new, false)));
                    work.push((c.op.clone(), new, false));
                }
                Expr::Tuple(t) => work.extend(t.fields.iter().map(|a| (a.clone(), new, false))),
                Expr::TupleGetItem(g) => work.push((g.tuple.clone(), new, false)),
                _ => {}
            }
        }
        self.place = scope_of
            .into_iter()
            .filter(|(addr, _)| self.uses.get(addr).is_some_and(|&n| n > 1))
            .collect();
    }

    fn write(&mut self, s: &str) {
        if let Some(line) = self.lines.last_mut() {
            line.push_str(s);
        }
    }

    fn begin_block(&mut self, key: BlockKey) {
        self.blocks.push((key, String::new(), self.indent));
    }

    fn end_block(&mut self) -> String {
        self.blocks
            .pop()
            .map(|(_, text, _)| text)
            .unwrap_or_default()
    }

    fn line_start(&mut self) {
        self.lines.push(String::new());
    }

    fn line_end(&mut self) {
        let top = self.blocks.len().saturating_sub(1);
        self.line_end_in(top);
    }

    /// Ends the current line into the block at `index` of the open blocks.
    fn line_end_in(&mut self, index: usize) {
        let line = self.lines.pop().unwrap_or_default();
        if let Some((_, block, indent)) = self.blocks.get_mut(index) {
            for _ in 0..*indent {
                block.push_str("  ");
            }
            block.push_str(&line);
            block.push('\n');
        }
    }

    /// `{`, the sequence indented, `}` (the braces go into the current line).
    fn braced_seq(&mut self, e: &Expr, key: BlockKey) {
        self.write("{");
        self.nested_seq(e, key);
        self.write("}");
    }

    fn nested_seq(&mut self, e: &Expr, key: BlockKey) {
        self.indent += 1;
        self.begin_block(key);
        self.seq(e);
        let text = self.end_block();
        self.indent -= 1;
        self.write("\n");
        self.write(&text);
        let pad = "  ".repeat(self.indent);
        self.write(&pad);
    }

    /// An expression sequence: a let chain as items, then the final expression.
    fn seq(&mut self, e: &Expr) {
        let mut e = e.clone();
        loop {
            let next = match &e {
                Expr::Let(l) if !self.is_shared(&e) => {
                    self.line_start();
                    self.write("let ");
                    self.var_def(&l.var);
                    self.write(" = ");
                    self.expr(&l.value);
                    self.write(";");
                    self.line_end();
                    l.body.clone()
                }
                _ => break,
            };
            e = next;
        }
        self.line_start();
        self.expr(&e);
        self.line_end();
    }

    fn is_shared(&self, e: &Expr) -> bool {
        self.uses.get(&e.id()).is_some_and(|&n| n > 1)
    }

    /// Compound nodes: printed once with `%N = ...;` when used more than once
    /// (projections too, though equality ignores their sharing, so that
    /// printing a DAG of them stays linear).
    fn is_graph(e: &Expr) -> bool {
        matches!(
            e,
            Expr::Call(_)
                | Expr::Tuple(_)
                | Expr::TupleGetItem(_)
                | Expr::Function(_)
                | Expr::Let(_)
                | Expr::If(_)
        )
    }

    /// An expression in expression position: a reference to its binding if
    /// it is a shared graph node, else the node itself.
    fn expr(&mut self, e: &Expr) {
        guarded(|| {
            if let Some(name) = self.bound.get(&e.id()) {
                let name = name.clone();
                return self.write(&name);
            }
            if Self::is_graph(e) && self.is_shared(e) {
                self.line_start();
                self.inline(e);
                let text = self.lines.pop().unwrap_or_default();
                let name = format!("%{}", self.next_binding);
                self.next_binding += 1;
                let key = self.place.get(&e.id()).copied().unwrap_or(ROOT);
                let top = self.blocks.len().saturating_sub(1);
                let index = self
                    .blocks
                    .iter()
                    .rposition(|(k, _, _)| *k == key)
                    .unwrap_or(top);
                self.line_start();
                self.write(&format!("{name} = {text};"));
                self.line_end_in(index);
                self.bound.insert(e.id(), name.clone());
                return self.write(&name);
            }
            self.inline(e)
        })
    }

    fn inline(&mut self, e: &Expr) {
        match e {
            Expr::Constant(c) => self.constant(c),
            Expr::Var(v) => {
                let name = self.var_name(v);
                self.write(&name);
            }
            Expr::GlobalVar(g) => self.write(&format!("@{}", g.name)),
            Expr::Op(op) => self.write(&op.name),
            Expr::Tuple(t) => {
                self.write("(");
                for (i, f) in t.fields.iter().enumerate() {
                    if i > 0 {
                        self.write(", ");
                    }
                    self.expr(f);
                }
                if t.fields.len() == 1 {
                    self.write(",");
                }
                self.write(")");
            }
            Expr::TupleGetItem(g) => {
                let atomic = matches!(g.tuple, Expr::Var(_))
                    || self.bound.contains_key(&g.tuple.id())
                    || (Self::is_graph(&g.tuple) && self.is_shared(&g.tuple));
                if atomic {
                    self.expr(&g.tuple);
                } else {
                    self.write("(");
                    self.expr(&g.tuple);
                    self.write(")");
                }
                self.write(&format!(".{}", g.index));
            }
            Expr::Call(c) => {
                let callee_atomic = matches!(
                    c.op,
                    Expr::Op(_) | Expr::Var(_) | Expr::GlobalVar(_) | Expr::Call(_)
                ) || self.bound.contains_key(&c.op.id())
                    || (Self::is_graph(&c.op) && self.is_shared(&c.op));
                if callee_atomic {
                    self.expr(&c.op);
                } else {
                    self.write("(");
                    self.expr(&c.op);
                    self.write(")");
                }
                self.write("(");
                let mut first = true;
                for a in &c.args {
                    if !first {
                        self.write(", ");
                    }
                    first = false;
                    self.expr(a);
                }
                for (k, v) in &c.attrs {
                    if !first {
                        self.write(", ");
                    }
                    first = false;
                    self.write(&format!("{k}={v}"));
                }
                self.write(")");
            }
            Expr::Function(f) => {
                self.write("fn ");
                self.signature(f);
                self.write(" ");
                self.braced_seq(&f.body, (Some(e.id()), 0));
            }
            Expr::Let(_) => {
                self.write("(");
                self.nested_seq(e, (Some(e.id()), 2));
                self.write(")");
            }
            Expr::Ext(x) => {
                let mut text = String::new();
                let mut child = |out: &mut String, e: &Expr| {
                    let start = self.lines.last().map_or(0, String::len);
                    self.expr(e);
                    if let Some(line) = self.lines.last_mut() {
                        out.push_str(&line[start..]);
                        line.truncate(start);
                    }
                };
                x.interface().print(&mut ExtPrinter {
                    text: &mut text,
                    expr: &mut child,
                });
                if text.is_empty() {
                    text = format!("{}()", x.kind_name());
                }
                self.write(&text);
            }
            Expr::If(i) => {
                self.write("if (");
                self.expr(&i.cond);
                self.write(") ");
                self.braced_seq(&i.then_branch, (Some(e.id()), 0));
                self.write(" else ");
                self.braced_seq(&i.else_branch, (Some(e.id()), 1));
            }
        }
    }

    /// `(%x: T, %y, Attr=1) -> R`
    fn signature(&mut self, f: &Node<Function>) {
        self.write("(");
        let mut first = true;
        for p in &f.params {
            if !first {
                self.write(", ");
            }
            first = false;
            self.var_def(p);
        }
        for (k, v) in &f.attrs {
            if !first {
                self.write(", ");
            }
            first = false;
            self.write(&format!("{k}={v}"));
        }
        self.write(")");
        if let Some(ret) = &f.ret_type {
            self.write(" -> ");
            let mut s = String::new();
            write_type(&mut s, ret);
            self.write(&s);
        }
    }

    fn var_def(&mut self, v: &Node<Var>) {
        let name = self.var_name(v);
        self.write(&name);
        if let Some(ext) = v.ext.as_ref() {
            self.write("{");
            self.expr(ext);
            self.write("}");
        }
        if let Some(t) = &v.annotation {
            let mut s = String::from(": ");
            write_type(&mut s, t);
            self.write(&s);
        }
    }

    /// `%name`, unique per variable node.
    fn var_name(&mut self, v: &Node<Var>) -> String {
        if let Some(n) = self.var_names.get(&v.id()) {
            return n.clone();
        }
        let base: String = v
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = match base.chars().next() {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => base,
            _ => format!("v{base}"),
        };
        let mut name = base.clone();
        let mut k = 1;
        while self.taken.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        let printed = format!("%{name}");
        self.var_names.insert(v.id(), printed.clone());
        printed
    }

    fn constant(&mut self, c: &Node<Constant>) {
        if let Some(text) = c.data.scalar_literal() {
            return self.write(&text);
        }
        let next = self.meta.len();
        let index = *self.meta_index.entry(c.id()).or_insert(next);
        if index == next {
            self.meta.push(c.data.clone());
        }
        self.write(&format!("meta[relay.Constant][{index}]"));
    }

    /// The `#[metadata]` section: `{"relay.Constant": [{"dtype", "shape", "data"}]}`.
    fn metadata(&self) -> String {
        if self.meta.is_empty() {
            return String::new();
        }
        let constants: Vec<serde_json::Value> = self
            .meta
            .iter()
            .map(|t| {
                serde_json::json!({
                    "dtype": t.dtype().to_string(),
                    "shape": t.shape(),
                    "data": t.to_f64s(),
                })
            })
            .collect();
        let json = serde_json::json!({ "relay.Constant": constants });
        format!("#[metadata]\n{json}\n")
    }
}
