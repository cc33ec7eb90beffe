//! Printing in TVM's text format (0.0.5), so that printing then parsing gives
//! a structurally equal program: graph nodes used more than once are bound
//! once with `%N = ...;` (sharing survives), non-scalar constants go to the
//! `#[metadata]` section, variable names are made unique per function.
//!
//! Linear in the program at every shape. Text is written once into an
//! arena, and a nested block (an if branch, a function body) joins its line
//! as a reference, not as a copy: the document is flattened once at the end
//! ([`Doc`]). Indentation stops growing at [`MAX_INDENT`] levels, so that a
//! million nested ifs print in linear space. Shared nodes are placed with
//! jump pointers over the block tree ([`Placement`]).

use crate::relay::pattern::PatternVisitor;
use rustc_hash::FxHashMap;
use std::fmt::Write;
use std::ops::ControlFlow;

use super::extension::ExtPrinter;

use ir_core::stack::guarded;
use ir_core::{Family, Id, IdMap, IdSet, Node};

use super::adt::{TypeData, TypeDefs};
use super::expr::{Constant, Expr, ExprVisitor, Function, Var};
use super::module::RelayModule;
use super::pattern::Pattern;
use super::print_names::Names;
use super::scope_tree::ScopeTree as BlockTree;
use super::tensor::Tensor;
use super::ty::{Type, TypeVisitor};

/// Nesting deeper than this many blocks is printed at this indentation:
/// indenting every level would make the text of `n` nested blocks grow as `n²`.
pub const MAX_INDENT: usize = 32;

/// Room reserved in the arena per node: about what a node's text takes.
const BYTES_PER_NODE: usize = 8;

/// The free variables [`Printer::count_uses`] finds: those used and not
/// bound before.
#[derive(Default)]
struct FreeVars {
    bound: IdSet<Node<Var>>,
    seen: IdSet<Node<Var>>,
    found: Vec<Node<Var>>,
}

/// Two spaces per level, up to [`MAX_INDENT`] levels.
const INDENTATION: &str = "                                                                ";
const _: () = assert!(INDENTATION.len() == 2 * MAX_INDENT);

/// Prints a module: the version header, each `def`, and metadata if any.
pub fn print_module(module: &RelayModule) -> String {
    let mut p = Printer::default();
    let mut out = String::from("#[version = \"0.0.5\"]\n");
    for def in TypeDefs::of(module).into_iter().flat_map(TypeDefs::iter) {
        write_type_def(&mut out, def);
    }
    for (name, function) in module.functions() {
        p.reset_function();
        p.count_uses(&function.body, None);
        p.place_bindings(&function.body);
        let block = p.print_names_settled(|p| {
            p.begin_block(ROOT);
            p.line_start();
            p.write("def @");
            p.write(name);
            p.signature(function);
            p.write(" ");
            p.braced_seq(&function.body, ROOT);
            p.line_end();
            p.end_block()
        });
        out.reserve(p.doc.arena.len());
        p.doc.flatten(&p.doc.blocks[block], &mut out);
    }
    p.write_metadata(&mut out);
    out
}

/// Prints an expression as expression-level text (`tvm.relay.parse_expr`):
/// free variables are declared first with `free_var`.
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer::default();
    let mut free = FreeVars::default();
    p.count_uses(e, Some(&mut free));
    p.place_bindings(e);
    let free = free.found;
    let block = p.print_names_settled(|p| {
        p.begin_block(ROOT);
        for var in &free {
            p.line_start();
            p.write("free_var ");
            p.var_def(var);
            p.write(";");
            p.line_end();
        }
        p.seq(e);
        p.end_block()
    });
    let doc = std::mem::take(&mut p.doc);
    let mut out = doc.into_text(block);
    p.write_metadata(&mut out);
    out
}

/// Prints a type: `Tensor[(1, 4), float32]`, `(int32, bool)`, `fn (T) -> R`, `_`.
pub fn print_type(t: &Type) -> String {
    let mut out = String::new();
    write_type(&mut out, t);
    out
}

/// `type List[A] {` one constructor per line `}`.
fn write_type_def(out: &mut String, def: &TypeData) {
    if def.external {
        out.push_str("extern ");
    }
    out.push_str("type ");
    out.push_str(&def.name);
    write_names(out, &def.params);
    if def.external {
        out.push('\n');
        return;
    }
    out.push_str(" {\n");
    for c in &def.constructors {
        out.push_str("  ");
        out.push_str(&c.name);
        if !c.inputs.is_empty() {
            write_types(out, "(", &c.inputs, ")");
        }
        out.push_str(",\n");
    }
    out.push_str("}\n");
}

/// `[A, B]`, or nothing for no names.
fn write_names(out: &mut String, names: &[String]) {
    if !names.is_empty() {
        out.push('[');
        out.push_str(&names.join(", "));
        out.push(']');
    }
}

fn write_types(out: &mut String, open: &str, types: &[Type], close: &str) {
    write_types_up_to(out, open, types, close, usize::MAX);
}

fn write_types_up_to(out: &mut String, open: &str, types: &[Type], close: &str, limit: usize) {
    out.push_str(open);
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_type_up_to(out, t, limit);
    }
    out.push_str(close);
}

fn write_type(out: &mut String, t: &Type) {
    write_type_up_to(out, t, usize::MAX);
}

/// The length of a type as printed, for an error message.
const BRIEF: usize = 1000;

/// `t` as printed, cut after about a thousand characters: for error
/// messages, which may name an inferred type whose shared parts would
/// print to any length.
pub fn print_type_brief(t: &Type) -> String {
    let mut out = String::new();
    write_type_up_to(&mut out, t, BRIEF);
    if out.len() > BRIEF {
        let mut cut = BRIEF;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("...");
    }
    out
}

/// `t` as printed, stopping (at a node boundary) once `out` is past `limit`.
fn write_type_up_to(out: &mut String, t: &Type, limit: usize) {
    if out.len() > limit {
        return;
    }
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
                write_type_up_to(out, f, limit);
            }
            if t.fields.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Type::FuncType(t) => {
            out.push_str("fn ");
            write_names(out, &t.type_params);
            write_types_up_to(out, "(", &t.params, ") -> ", limit);
            write_type_up_to(out, &t.ret, limit);
        }
        Type::IncompleteType(_) => out.push('_'),
        Type::TypeVar(v) => out.push_str(&v.name),
        Type::TypeCall(c) => {
            out.push_str(&c.name);
            if !c.args.is_empty() {
                write_types_up_to(out, "[", &c.args, "]", limit);
            }
        }
        Type::RefType(r) => {
            out.push_str("ref(");
            write_type_up_to(out, &r.value, limit);
            out.push(')');
        }
    })
}

/// A block of the printed text: the function body (`ROOT`), an if branch or
/// a function body (`(node, 0 | 1)`), a parenthesised let sequence
/// (`(node, 2)`), a match's clause `i` (`(node, i)`) or its clause list
/// (`(node, CLAUSES)`).
type BlockKey = (Option<Id<Expr>>, u32);
const CLAUSES: u32 = u32::MAX;
const ROOT: BlockKey = (None, 0);

/// A piece of a block's text.
#[derive(Clone, Copy, Debug)]
enum Part {
    /// Text in the arena.
    Text(usize, usize),
    /// A nested block, in place.
    Block(usize),
    /// Indentation by this many levels (at most [`MAX_INDENT`] printed).
    Indent(usize),
}

/// The text being printed: an arena of text, the finished lines of every
/// block as parts, and the lines being built (a binding placed in an outer
/// block is built while the line that uses it is still open).
#[derive(Default)]
struct Doc {
    arena: String,
    /// Each block's finished lines, in order.
    blocks: Vec<Vec<Part>>,
    /// The parts of the lines being built, innermost last.
    line: Vec<Part>,
    /// Where each line being built begins in `line`.
    line_starts: Vec<usize>,
}

impl Doc {
    fn clear(&mut self) {
        self.arena.clear();
        self.blocks.clear();
        self.line.clear();
        self.line_starts.clear();
    }

    /// Appends to the line being built (merging with its last text).
    fn write(&mut self, s: &str) {
        let Some(&line_start) = self.line_starts.last() else {
            return;
        };
        let start = self.arena.len();
        self.arena.push_str(s);
        let end = self.arena.len();
        if self.line.len() > line_start
            && let Some(Part::Text(_, last)) = self.line.last_mut()
            && *last == start
        {
            *last = end;
            return;
        }
        self.line.push(Part::Text(start, end));
    }

    fn push(&mut self, part: Part) {
        if !self.line_starts.is_empty() {
            self.line.push(part);
        }
    }

    fn new_block(&mut self) -> usize {
        self.blocks.push(Vec::new());
        self.blocks.len() - 1
    }

    fn line_start(&mut self) {
        self.line_starts.push(self.line.len());
    }

    /// Ends the innermost line being built into `block`, indented.
    fn line_end_into(&mut self, block: usize, indent: usize) {
        let start = self.line_starts.pop().unwrap_or(self.line.len());
        let newline = self.arena.len();
        // The common line: one run of text at the end of the arena. Its
        // indentation goes into the arena in front of it (moving a line's
        // few bytes), so that consecutive lines of a block are one run of
        // the arena and the block one part, not two parts per line.
        if let [Part::Text(text, end)] = self.line[start..]
            && end == newline
        {
            self.line.truncate(start);
            let levels = indent.min(MAX_INDENT);
            self.arena.insert_str(text, &INDENTATION[..2 * levels]);
            self.arena.push('\n');
            let end = self.arena.len();
            let parts = &mut self.blocks[block];
            match parts.last_mut() {
                Some(Part::Text(_, last)) if *last == text => *last = end,
                _ => parts.push(Part::Text(text, end)),
            }
            return;
        }
        self.arena.push('\n');
        let parts = &mut self.blocks[block];
        parts.push(Part::Indent(indent));
        parts.extend(self.line.drain(start..));
        match parts.last_mut() {
            Some(Part::Text(_, end)) if *end == newline => *end += 1,
            _ => parts.push(Part::Text(newline, newline + 1)),
        }
    }

    /// Ends the innermost line being built, giving its parts.
    fn take_line(&mut self) -> Vec<Part> {
        let start = self.line_starts.pop().unwrap_or(self.line.len());
        self.line.drain(start..).collect()
    }

    /// The text of `block`: the arena itself when the block is all of it
    /// in order (as for a sequence of plain lines), else flattened.
    fn into_text(mut self, block: usize) -> String {
        if let [Part::Text(0, end)] = self.blocks[block][..]
            && end == self.arena.len()
        {
            return std::mem::take(&mut self.arena);
        }
        let mut out = String::with_capacity(self.arena.len());
        self.flatten(&self.blocks[block], &mut out);
        out
    }

    /// Writes `parts`, and the blocks they hold, to `out`: one pass, nested
    /// blocks followed with an explicit stack.
    fn flatten(&self, parts: &[Part], out: &mut String) {
        let mut stack: Vec<(&[Part], usize)> = vec![(parts, 0)];
        while let Some((parts, i)) = stack.pop() {
            let Some(part) = parts.get(i) else {
                continue;
            };
            stack.push((parts, i + 1));
            match *part {
                Part::Text(start, end) => out.push_str(&self.arena[start..end]),
                Part::Indent(levels) => out.push_str(&INDENTATION[..2 * levels.min(MAX_INDENT)]),
                Part::Block(b) => stack.push((&self.blocks[b], 0)),
            }
        }
    }
}

/// An open block: its place in the document, its key, its indentation, and
/// the open block of the same key it hides (the module's `ROOT` holds the
/// function's `ROOT`).
struct OpenBlock {
    doc: usize,
    key: BlockKey,
    indent: usize,
    hides: Option<usize>,
}

#[derive(Default)]
struct Printer {
    doc: Doc,
    /// Open blocks, innermost last.
    open: Vec<OpenBlock>,
    /// The innermost open block of each key, as an index into `open`.
    open_by_key: FxHashMap<BlockKey, usize>,
    /// The block each shared compound node is bound in: the innermost block
    /// enclosing all its uses, so its `%N = ...;` precedes every use.
    place: IdMap<Expr, BlockKey>,
    indent: usize,
    /// References to each shared node (only nodes with several handles are counted).
    uses: IdMap<Expr, u32>,
    /// `N` of `%N` of graph nodes already bound.
    bound: IdMap<Expr, usize>,
    next_binding: usize,
    /// Printed names of the variables not printed under their own name
    /// (another variable of the function took it), without `%`.
    renamed: IdMap<Node<Var>, Box<str>>,
    /// The text of each type printed, and the types (kept alive, so that
    /// an address is never reused while the table lives).
    type_text: IdMap<Type, Box<str>>,
    keep_types: Vec<Type>,
    /// The text of each shared scalar constant printed, likewise.
    scalar_text: IdMap<Node<Constant>, Box<str>>,
    keep_constants: Vec<Node<Constant>>,
    /// Names given in this function.
    names: Names,
    meta: Vec<Tensor>,
    meta_index: IdMap<Node<Constant>, usize>,
}

impl Printer {
    fn reset_function(&mut self) {
        self.doc.clear();
        self.uses.clear();
        self.place.clear();
        self.bound.clear();
        self.next_binding = 0;
        self.renamed.clear();
    }

    /// Prints a function (or an expression) with `print`, which gives the
    /// document block printed: optimistically first, then again if names
    /// were given twice (see [`Names`]). Returns the block.
    fn print_names_settled(&mut self, mut print: impl FnMut(&mut Self) -> usize) -> usize {
        self.names.begin();
        let block = print(self);
        if self.names.first_printing_stands() {
            return block;
        }
        // The blocks opened were closed again: only the text and the
        // graph bindings it made are undone.
        self.doc.clear();
        self.bound.clear();
        self.next_binding = 0;
        self.renamed.clear();
        print(self)
    }

    /// Counts the uses of each shared graph node, and reserves room in the
    /// arena for the text of the nodes met (reserved memory that is never
    /// written costs nothing, and a growing arena copies itself). With
    /// `free`, the same walk finds the free variables, in order of first
    /// use (as [`free_vars`](super::free_vars::free_vars) finds them, without
    /// a walk of its own).
    fn count_uses(&mut self, e: &Expr, free: Option<&mut FreeVars>) {
        struct Count<'a> {
            uses: &'a mut IdMap<Expr, u32>,
            nodes: usize,
            free: Option<&'a mut FreeVars>,
        }
        impl TypeVisitor for Count<'_> {
            // Types hold no expressions, and are shared: walking each would cost
            // the depth of nested function types at every function.
            fn visit_type(&mut self, _: &Type) {}
        }
        impl PatternVisitor for Count<'_> {}
        impl ExprVisitor for Count<'_> {
            fn visit_expr(&mut self, e: &Expr) {
                ir_core::visit_preorder(self, e, |pass, e| {
                    pass.nodes += 1;
                    // Only graph nodes get `%N = ...;` (a variable or an
                    // operator used twice is just written twice).
                    if e.strong_count() == 1 || !Printer::is_graph(e) {
                        return ControlFlow::Continue(());
                    }
                    let n = pass.uses.entry(e.id()).or_insert(0);
                    *n += 1;
                    if *n == 1 {
                        ControlFlow::Continue(())
                    } else {
                        ControlFlow::Break(())
                    }
                })
            }
            fn visit_var_def(&mut self, v: &Node<Var>) {
                if let Some(free) = self.free.as_deref_mut() {
                    free.bound.insert(v.id());
                }
                v.walk(self);
            }
            fn visit_var(&mut self, v: &Node<Var>) {
                if let Some(free) = self.free.as_deref_mut()
                    && !free.bound.contains(&v.id())
                    && free.seen.insert(v.id())
                {
                    free.found.push(v.clone());
                }
                // What a use's variable holds is not a use here (as in
                // `free_vars`); its sharing still counts.
                let free = self.free.take();
                v.walk(self);
                self.free = free;
            }
        }
        let mut count = Count {
            uses: &mut self.uses,
            nodes: 0,
            free,
        };
        count.visit_expr(e);
        let nodes = count.nodes;
        self.doc.arena.reserve(nodes.saturating_mul(BYTES_PER_NODE));
    }

    /// Places each shared compound node in the innermost block enclosing all
    /// its uses (blocks follow the printer: if branches, function bodies,
    /// lets in expression position). A node is placed once all its users
    /// are (Kahn's order over the graph), so each node is visited once and
    /// each use of a shared node costs one query on the block tree.
    fn place_bindings(&mut self, root: &Expr) {
        if !self.uses.values().any(|&n| n > 1) {
            // Nothing shared: nothing to place.
            return;
        }
        let mut tree = BlockTree::new();
        let mut keys: Vec<BlockKey> = vec![ROOT];
        // Shared nodes met: the node, its uses not yet met, the innermost
        // block enclosing those met.
        let mut waiting: IdMap<Expr, (Expr, u32, usize)> = IdMap::default();
        let mut met: Vec<Id<Expr>> = Vec::new();
        // (node, its block, in sequence position)
        let mut work: Vec<(Expr, usize, bool)> = vec![(root.clone(), 0, true)];
        loop {
            while let Some((e, here, seq)) = work.pop() {
                let shared = self.is_shared(&e);
                if shared {
                    self.place.insert(e.id(), keys[here]);
                }
                let mut open = |branch: u32| {
                    keys.push((Some(e.id()), branch));
                    tree.add(here)
                };
                let mut children: Vec<(&Expr, usize, bool)> = Vec::new();
                match &e {
                    Expr::Let(l) if seq && !shared => {
                        children.push((&l.value, here, false));
                        children.push((&l.body, here, true));
                    }
                    Expr::Let(l) => {
                        let k = open(2);
                        children.push((&l.value, k, false));
                        children.push((&l.body, k, true));
                    }
                    Expr::If(i) => {
                        let (t, f) = (open(0), open(1));
                        children.push((&i.cond, here, false));
                        children.push((&i.then_branch, t, true));
                        children.push((&i.else_branch, f, true));
                    }
                    Expr::Function(f) => {
                        let k = open(0);
                        children.push((&f.body, k, true));
                    }
                    Expr::Call(c) => {
                        children.push((&c.op, here, false));
                        children.extend(c.args.iter().map(|a| (a, here, false)));
                    }
                    Expr::Tuple(t) => children.extend(t.fields.iter().map(|f| (f, here, false))),
                    Expr::TupleGetItem(g) => children.push((&g.tuple, here, false)),
                    Expr::Match(m) => {
                        children.push((&m.data, here, false));
                        for (i, c) in m.clauses.iter().enumerate() {
                            let k = open(i as u32);
                            children.push((&c.rhs, k, true));
                        }
                    }
                    Expr::RefCreate(r) => children.push((&r.value, here, false)),
                    Expr::RefRead(r) => children.push((&r.reference, here, false)),
                    Expr::RefWrite(r) => {
                        children.push((&r.reference, here, false));
                        children.push((&r.value, here, false));
                    }
                    _ => {}
                }
                for (child, block, seq) in children {
                    if !Self::is_graph(child) {
                        continue;
                    }
                    let uses = self.uses.get(&child.id()).copied().unwrap_or(1);
                    if uses <= 1 {
                        work.push((child.clone(), block, seq));
                        continue;
                    }
                    let entry = waiting.entry(child.id()).or_insert_with(|| {
                        met.push(child.id());
                        (child.clone(), uses, block)
                    });
                    entry.2 = tree.common(entry.2, block);
                    entry.1 -= 1;
                    if entry.1 == 0 {
                        work.push((entry.0.clone(), entry.2, false));
                    }
                }
            }
            // Uses this walk does not follow (inside a downstream node) leave
            // a node waiting: place it where its uses met so far meet.
            let stuck = met.iter().find_map(|id| {
                let (e, left, block) = waiting.get_mut(id)?;
                (*left > 0).then(|| {
                    *left = 0;
                    (e.clone(), *block, false)
                })
            });
            match stuck {
                Some(next) => work.push(next),
                None => break,
            }
        }
    }

    fn write(&mut self, s: &str) {
        self.doc.write(s);
    }

    fn line_start(&mut self) {
        self.doc.line_start();
    }

    fn begin_block(&mut self, key: BlockKey) {
        let doc = self.doc.new_block();
        let hides = self.open_by_key.insert(key, self.open.len());
        self.open.push(OpenBlock {
            doc,
            key,
            indent: self.indent,
            hides,
        });
    }

    /// Closes the innermost block, giving its place in the document.
    fn end_block(&mut self) -> usize {
        let Some(block) = self.open.pop() else {
            return self.doc.new_block();
        };
        match block.hides {
            Some(outer) => self.open_by_key.insert(block.key, outer),
            None => self.open_by_key.remove(&block.key),
        };
        block.doc
    }

    fn line_end(&mut self) {
        let top = self.open.len().saturating_sub(1);
        self.line_end_in(top);
    }

    /// Ends the current line into the block at `index` of the open blocks.
    fn line_end_in(&mut self, index: usize) {
        match self.open.get(index) {
            Some(block) => self.doc.line_end_into(block.doc, block.indent),
            None => {
                self.doc.take_line();
            }
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
        // A let printed in parentheses is this sequence's first item, even
        // when it is shared (its `%N = (...)` is being printed).
        let head_is_item = key.1 == 2 && matches!(e, Expr::Let(_));
        self.seq_items(e, head_is_item);
        let block = self.end_block();
        self.indent -= 1;
        self.write("\n");
        self.doc.push(Part::Block(block));
        self.doc.push(Part::Indent(self.indent));
    }

    /// An expression sequence: a let chain as items, then the final expression.
    fn seq(&mut self, e: &Expr) {
        self.seq_items(e, false);
    }

    /// [`Printer::seq`], where `head_is_item` makes `e` (a let) an item even
    /// if it is shared.
    fn seq_items(&mut self, mut e: &Expr, mut head_is_item: bool) {
        while let Expr::Let(l) = e
            && (std::mem::take(&mut head_is_item) || !self.is_shared(e))
        {
            self.line_start();
            self.write("let ");
            self.var_def(&l.var);
            self.write(" = ");
            self.expr(&l.value);
            self.write(";");
            self.line_end();
            e = &l.body;
        }
        self.line_start();
        self.expr(e);
        self.line_end();
    }

    fn is_shared(&self, e: &Expr) -> bool {
        // A node held once is shared by no one: no table lookup.
        e.strong_count() > 1 && self.uses.get(&e.id()).is_some_and(|&n| n > 1)
    }

    /// The `%N` a shared node was bound to, if it was.
    fn binding_of(&self, e: &Expr) -> Option<usize> {
        if e.strong_count() == 1 {
            return None;
        }
        self.bound.get(&e.id()).copied()
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
                | Expr::Match(_)
                | Expr::RefCreate(_)
                | Expr::RefRead(_)
                | Expr::RefWrite(_)
        )
    }

    fn write_binding(&mut self, n: usize) {
        let mut name = String::with_capacity(8);
        let _ = write!(name, "%{n}");
        self.write(&name);
    }

    /// An expression in expression position: a reference to its binding if
    /// it is a shared graph node, else the node itself.
    fn expr(&mut self, e: &Expr) {
        guarded(|| {
            if let Some(n) = self.binding_of(e) {
                return self.write_binding(n);
            }
            if Self::is_graph(e) && self.is_shared(e) {
                // `%N = <node>;` into the block the node is placed in; N is
                // given after the node's own bindings, so they number first.
                self.line_start();
                let line_at = self.doc.line.len();
                self.inline(e);
                self.write(";");
                let n = self.next_binding;
                self.next_binding += 1;
                let start = self.doc.arena.len();
                let _ = write!(self.doc.arena, "%{n} = ");
                let prefix = Part::Text(start, self.doc.arena.len());
                self.doc.line.insert(line_at, prefix);
                let key = self.place.get(&e.id()).copied().unwrap_or(ROOT);
                let top = self.open.len().saturating_sub(1);
                let index = self.open_by_key.get(&key).copied().unwrap_or(top);
                self.line_end_in(index);
                self.bound.insert(e.id(), n);
                return self.write_binding(n);
            }
            self.inline(e)
        })
    }

    fn inline(&mut self, e: &Expr) {
        match e {
            Expr::Constant(c) => self.constant(c),
            Expr::Var(v) => self.var_use(v),
            Expr::GlobalVar(g) => {
                self.write("@");
                self.write(&g.name);
            }
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
                let atomic = matches!(g.tuple, Expr::Var(_) | Expr::Tuple(_))
                    || self.binding_of(&g.tuple).is_some()
                    || (Self::is_graph(&g.tuple) && self.is_shared(&g.tuple));
                if atomic {
                    self.expr(&g.tuple);
                } else {
                    self.write("(");
                    self.expr(&g.tuple);
                    self.write(")");
                }
                let mut index = String::with_capacity(8);
                let _ = write!(index, ".{}", g.index);
                self.write(&index);
            }
            Expr::Call(c) => {
                if let Expr::Constructor(k) = &c.op
                    && c.args.is_empty()
                    && c.attrs.is_empty()
                {
                    // `Nil`, as TVM prints a constructor applied to nothing.
                    return self.write(&k.name);
                }
                let callee_atomic = matches!(
                    c.op,
                    Expr::Op(_)
                        | Expr::Var(_)
                        | Expr::GlobalVar(_)
                        | Expr::Call(_)
                        | Expr::Constructor(_)
                ) || self.binding_of(&c.op).is_some()
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
                    self.line_start();
                    self.expr(e);
                    let parts = self.doc.take_line();
                    self.doc.flatten(&parts, out);
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
            Expr::Constructor(c) => self.write(&c.name),
            Expr::RefCreate(r) => {
                self.write("ref(");
                self.expr(&r.value);
                self.write(")");
            }
            Expr::RefRead(r) => {
                self.write("ref_read(");
                self.expr(&r.reference);
                self.write(")");
            }
            Expr::RefWrite(r) => {
                self.write("ref_write(");
                self.expr(&r.reference);
                self.write(", ");
                self.expr(&r.value);
                self.write(")");
            }
            Expr::Match(m) => {
                self.write(if m.complete { "match (" } else { "match? (" });
                self.expr(&m.data);
                self.write(") {");
                self.indent += 1;
                self.begin_block((Some(e.id()), CLAUSES));
                for (i, c) in m.clauses.iter().enumerate() {
                    self.line_start();
                    self.pattern(&c.lhs);
                    self.write(" => ");
                    self.braced_seq(&c.rhs, (Some(e.id()), i as u32));
                    self.write(",");
                    self.line_end();
                }
                let block = self.end_block();
                self.indent -= 1;
                self.write("\n");
                self.doc.push(Part::Block(block));
                self.doc.push(Part::Indent(self.indent));
                self.write("}");
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

    /// `_`, `%x: T`, `Cons(p, ...)`, `Nil` or `(p, ...)`.
    fn pattern(&mut self, p: &Pattern) {
        guarded(|| match p {
            Pattern::PatternWildcard(_) => self.write("_"),
            Pattern::PatternVar(v) => self.var_def(&v.var),
            Pattern::PatternConstructor(c) => {
                self.write(&c.constructor.name);
                if !c.patterns.is_empty() {
                    self.patterns(&c.patterns);
                }
            }
            Pattern::PatternTuple(t) => self.patterns(&t.patterns),
        })
    }

    fn patterns(&mut self, patterns: &[Pattern]) {
        self.write("(");
        for (i, p) in patterns.iter().enumerate() {
            if i > 0 {
                self.write(", ");
            }
            self.pattern(p);
        }
        self.write(")");
    }

    /// `[A](%x: T, %y, Attr=1) -> R`
    fn signature(&mut self, f: &Node<Function>) {
        let mut names = String::new();
        write_names(&mut names, &f.type_params);
        self.write(&names);
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
            self.type_(ret);
        }
    }

    /// A variable at its definition, where its printed name is decided
    /// (definitions print before uses), with its annotation.
    fn var_def(&mut self, v: &Node<Var>) {
        if !self.renamed.contains_key(&v.id())
            && let Some(name) = self.names.define(&v.name)
        {
            self.renamed.insert(v.id(), name);
        }
        self.var_use(v);
        if let Some(ext) = v.ext.as_ref() {
            self.write("{");
            self.expr(ext);
            self.write("}");
        }
        if let Some(t) = &v.annotation {
            self.write(": ");
            self.type_(t);
        }
    }

    /// A type, printed once per type node (annotations share their types).
    fn type_(&mut self, t: &Type) {
        if let Some(text) = self.type_text.get(&t.id()) {
            return self.doc.write(text);
        }
        let mut text = String::new();
        write_type(&mut text, t);
        self.doc.write(&text);
        self.type_text.insert(t.id(), text.into());
        self.keep_types.push(t.clone());
    }

    /// `%name`, unique per variable node within a function: the name its
    /// definition was given.
    fn var_use(&mut self, v: &Node<Var>) {
        self.doc.write("%");
        match self.renamed.get(&v.id()) {
            Some(name) => self.doc.write(name),
            None => self.doc.write(&v.name),
        }
    }

    fn constant(&mut self, c: &Node<Constant>) {
        if let Some(text) = self.scalar_text.get(&c.id()) {
            return self.doc.write(text);
        }
        if let Some(text) = c.data.scalar_literal() {
            self.write(&text);
            if c.strong_count() > 1 {
                // Shared (a parsed literal is one node): print it once.
                self.scalar_text.insert(c.id(), text.into());
                self.keep_constants.push(c.clone());
            }
            return;
        }
        let next = self.meta.len();
        let index = *self.meta_index.entry(c.id()).or_insert(next);
        if index == next {
            self.meta.push(c.data.clone());
        }
        self.write(&format!("meta[relay.Constant][{index}]"));
    }

    /// The `#[metadata]` section: `{"relay.Constant": [{"data", "dtype", "shape"}]}`,
    /// written as it goes (a JSON tree of a large constant took some twelve
    /// times the constant's memory), each value formatted by `serde_json`.
    fn write_metadata(&self, out: &mut String) {
        use std::fmt::Write;
        if self.meta.is_empty() {
            return;
        }
        out.push_str("#[metadata]\n{\"relay.Constant\":[");
        for (i, t) in self.meta.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"data\":[");
            write_metadata_values(out, t);
            out.push(']');
            let dtype = serde_json::Value::from(t.dtype().to_string());
            let _ = write!(out, ",\"dtype\":{dtype},\"shape\":[");
            for (j, d) in t.shape().iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{d}");
            }
            out.push_str("]}");
        }
        out.push_str("]}\n");
    }
}

/// A constant's values in the `#[metadata]` JSON, comma-separated: int64
/// exactly (through f64 they would round past 2^53), and the rest as
/// `serde_json` writes an f64, NaN and infinities as strings (JSON has
/// none), which the parser reads back.
fn write_metadata_values(out: &mut String, t: &Tensor) {
    let mut sep = "";
    if let Tensor::I64(a) = t {
        for x in a {
            let _ = write!(out, "{sep}{x}");
            sep = ",";
        }
        return;
    }
    for x in t.to_f64s() {
        out.push_str(sep);
        sep = ",";
        match x {
            x if x.is_nan() => out.push_str("\"nan\""),
            f64::INFINITY => out.push_str("\"inf\""),
            f64::NEG_INFINITY => out.push_str("\"-inf\""),
            x => {
                let _ = write!(out, "{}", serde_json::Value::from(x));
            }
        }
    }
}
