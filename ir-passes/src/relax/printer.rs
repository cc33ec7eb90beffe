//! TVMScript, as TVM 0.27 prints it: `@I.ir_module class Module:` with
//! `@R.function` functions, annotated bindings, `with R.dataflow():` blocks
//! ending in `R.output(...)`, symbolic shape variables declared with
//! `TypeVar` (parameters) or `T.int64()` (defined in the body).
//!
//! Printing recurses over nested functions and `if` only, which the parser
//! bounds; bindings are printed in a loop.

use crate::name_hash::{NameMap, name_hash};
use std::collections::BTreeSet;
use std::fmt::Write;

use ir_core::{Id, IdMap, IdSet, Node};
use std::borrow::Cow;
use std::collections::hash_map::Entry;

use super::expr::{
    AttrValue, Binding, BindingBlock, Call, Constant, Expr, ExprVisitor, ExternFunc, Function,
    SeqExpr, Var,
};
use super::module::{RelaxModule, module_externs};
use super::prim::{PrimExpr, PrimExprVisitor, PrimVar};
use super::sinfo::{StructInfo, StructInfoVisitor, TensorStructInfo};

const METADATA_NOTE: &str = "# Metadata omitted. Use show_meta=True in script() method to show it.";

/// Prints a module as `mod.script()` does.
pub fn print_module(module: &RelaxModule) -> String {
    // TVM's order: external functions, then functions, `main` last; by
    // name within each.
    let mut globals: Vec<(u8, &str, Global)> = module_externs(module)
        .map(|(name, f)| (1, name, Global::Extern(f)))
        .chain(
            module
                .functions()
                .map(|(name, f)| (2, name, Global::Function(f))),
        )
        .map(|(rank, name, g)| (if name == "main" { 3 } else { rank }, name, g))
        .collect();
    globals.sort_by_key(|(rank, name, _)| (*rank, *name));
    let mut p = Printer::new(true);
    let mut body = String::with_capacity(text_size_estimate(module.functions().map(|(_, f)| f)));
    let mut after_function = false;
    for (_, name, global) in globals {
        // A function is set apart from what it follows by a blank line.
        if after_function {
            body.push('\n');
        }
        match global {
            Global::Extern(f) => {
                body.push_str(&format!("    {name} = R.ExternFunc({})\n", quote(&f.name)));
                after_function = false;
            }
            Global::Function(f) => {
                p.function(&mut body, name, f, 1);
                after_function = true;
            }
        }
    }
    p.finish("@I.ir_module\nclass Module:\n", body)
}

/// What a module's class holds.
enum Global<'a> {
    Extern(&'a Node<ExternFunc>),
    Function(&'a Node<Function>),
}

/// Room for the text of `functions`, so that a large module's text is
/// written into one buffer instead of regrown (each regrowth copies it, and
/// touches new pages): a typical binding's line, per binding of each body's
/// own blocks. Room never written costs address space only.
fn text_size_estimate<'f>(functions: impl Iterator<Item = &'f Node<Function>>) -> usize {
    const HEADER: usize = 256;
    const LINE: usize = 96;
    functions.fold(HEADER, |size, f| {
        let bindings: usize = f.body.blocks.iter().map(|b| b.bindings.len()).sum();
        size.saturating_add(HEADER + bindings.saturating_mul(LINE))
    })
}

/// Prints a function as `func.script()` does.
pub fn print_function(name: &str, f: &Node<Function>) -> String {
    let mut p = Printer::new(false);
    let mut body = String::with_capacity(text_size_estimate(std::iter::once(f)));
    p.function(&mut body, name, f, 0);
    p.finish("", body)
}

/// Prints an expression (a value, or a block or binding) without a header.
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer::new(false);
    let mut names = Names::default();
    let mut out = String::new();
    match e {
        Expr::BindingBlock(b) => p.block(&mut out, b, &mut names, 0),
        Expr::Binding(b) => p.binding(&mut out, b, &mut names, 0),
        Expr::Function(f) => p.function(&mut out, "main", f, 0),
        e => out.push_str(&p.value(e, &mut names, false)),
    }
    out.trim_end_matches('\n').to_owned()
}

/// Names as printed in one function: a name used twice gets `_1`, `_2`.
/// An `if` branch is a scope: its names are free again after it.
///
/// Most variables print under their own name, which costs one lookup of
/// its hash, and no string; only the others (a clash, or a name that is not
/// an identifier) are remembered with the name they got.
#[derive(Default)]
struct Names {
    /// The names in scope, by hash, and the variable each belongs to (two
    /// names of one hash count as one: the second is suffixed, which keeps
    /// names unique).
    owner: NameMap<Id<Node<Var>>>,
    /// Variables printed under another name than their own.
    renamed: IdMap<Node<Var>, String>,
    /// Names defined in each open branch.
    scopes: Vec<Vec<u64>>,
    /// The latest variables found to print under their own name: a use just
    /// after its definition (A-normal form) is answered here, without a
    /// lookup in `owner`, which is as large as the program.
    recent: [Option<Id<Node<Var>>>; 4],
}

impl Names {
    fn enter(&mut self) {
        self.scopes.push(Vec::new());
    }

    fn leave(&mut self) {
        self.recent = [None; 4];
        for name in self.scopes.pop().unwrap_or_default() {
            self.owner.remove(&name);
        }
    }

    /// The variable's name, given at its first mention.
    fn define<'v>(&mut self, v: &'v Node<Var>) -> Cow<'v, str> {
        let id = v.id();
        let own = v.name.as_str();
        if self.recent.contains(&Some(id)) {
            return Cow::Borrowed(own);
        }
        if let Some(name) = self.renamed.get(&id) {
            return Cow::Owned(name.clone());
        }
        if !own.is_empty() && !own.contains('.') {
            let key = name_hash(own);
            let owned = match self.owner.entry(key) {
                Entry::Occupied(e) => *e.get() == id,
                Entry::Vacant(e) => {
                    e.insert(id);
                    if let Some(scope) = self.scopes.last_mut() {
                        scope.push(key);
                    }
                    true
                }
            };
            if owned {
                self.recent.rotate_right(1);
                self.recent[0] = Some(id);
                return Cow::Borrowed(own);
            }
        }
        let name = self.fresh(v);
        self.renamed.insert(id, name.clone());
        Cow::Owned(name)
    }

    /// A name for `v` that no variable in scope has: its own, made an
    /// identifier, suffixed `_1`, `_2`, ... until free.
    fn fresh(&mut self, v: &Node<Var>) -> String {
        let base = match v.name.as_str() {
            "" => "v".to_owned(),
            n => n.replace('.', "_"),
        };
        let mut name = base.clone();
        let mut i = 0;
        let key = loop {
            let key = name_hash(&name);
            if let Entry::Vacant(e) = self.owner.entry(key) {
                e.insert(v.id());
                break key;
            }
            i += 1;
            name = format!("{base}_{i}");
        };
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(key);
        }
        name
    }
}

struct Printer {
    in_module: bool,
    /// `T.` was printed (the header then names `tirx`).
    uses_t: bool,
    /// Symbolic variables declared with `TypeVar` at the top.
    type_vars: BTreeSet<String>,
    /// Whether a nested function's signature declared some with `TypeVar`
    /// in front of it (the top imports `TypeVar` then too).
    nested_type_vars: bool,
    /// Whether the function being printed is nested in another.
    nested: bool,
    /// The symbolic variables defined so far in the function being printed
    /// (by its signature, a `match_cast`, an enclosing function's).
    known_symbolic: IdSet<Node<PrimVar>>,
    /// Non-scalar constants, printed as `metadata[...]`.
    metadata: usize,
    /// Tensor annotations already printed (outside signatures), by node.
    tensor_text: IdMap<Node<TensorStructInfo>, String>,
    /// Scalar constants already printed, by node.
    constant_text: IdMap<Node<Constant>, String>,
    /// A binding's value being written (reused: no string per binding).
    scratch: String,
}

fn indent(level: usize) -> std::borrow::Cow<'static, str> {
    // Most lines are a few levels deep: a slice of a constant, no allocation.
    const SPACES: &str = "                                                                ";
    match SPACES.get(..4 * level) {
        Some(pad) => pad.into(),
        None => "    ".repeat(level).into(),
    }
}

impl Printer {
    fn new(in_module: bool) -> Self {
        Printer {
            in_module,
            uses_t: false,
            type_vars: BTreeSet::new(),
            nested_type_vars: false,
            nested: false,
            known_symbolic: IdSet::default(),
            metadata: 0,
            tensor_text: IdMap::default(),
            constant_text: IdMap::default(),
            scratch: String::new(),
        }
    }

    /// The header (what the body turned out to need), then `body`: the
    /// header is inserted in front of the body in the body's own buffer,
    /// which moves the text once in place (it was copied into a new buffer,
    /// touching as many new pages).
    fn finish(&self, preamble: &str, mut body: String) -> String {
        let mut out = String::new();
        if !self.type_vars.is_empty() || self.nested_type_vars {
            out.push_str("# from typing import TypeVar\n");
        }
        if self.in_module {
            out.push_str("# from tvm.script import ir as I\n");
        }
        if self.uses_t {
            out.push_str(
                "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n",
            );
        }
        out.push_str("# from tvm.script import relax as R\n\n");
        for v in &self.type_vars {
            let _ = writeln!(out, "{v} = TypeVar(\"{v}\")");
        }
        out.push_str(preamble);
        body.truncate(body.trim_end_matches('\n').len());
        body.insert_str(0, &out);
        if self.metadata > 0 {
            body.push_str("\n\n");
            body.push_str(METADATA_NOTE);
        }
        body
    }

    fn function(&mut self, out: &mut String, name: &str, f: &Node<Function>, level: usize) {
        let mut names = Names::default();
        let pad = indent(level);
        let decorator = match (f.pure, f.private) {
            (true, false) => "@R.function",
            (true, true) => "@R.function(private=True)",
            (false, false) => "@R.function(pure=False)",
            (false, true) => "@R.function(pure=False, private=True)",
        };
        // Symbolic variables the parameters mention are declared up front
        // (a nested function's, those its enclosing functions do not know,
        // are declared by the binding in front of it).
        let mut param_vars = SymbolicVars::default();
        for p in &f.params {
            param_vars.visit_struct_info(&p.sinfo);
        }
        if !self.nested {
            self.known_symbolic.clear();
            for v in &param_vars.order {
                self.type_vars.insert(v.name.clone());
            }
        }
        for v in &param_vars.order {
            self.known_symbolic.insert(v.id());
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                let name = names.define(p);
                format!("{name}: {}", self.sinfo(&p.sinfo, true))
            })
            .collect();
        let ret = self.sinfo(&f.ret_sinfo, true);
        let _ = writeln!(
            out,
            "{pad}{decorator}\n{pad}def {name}({}) -> {ret}:",
            params.join(", ")
        );
        let inner = indent(level + 1);
        if !f.attrs.is_empty() {
            let attrs: Vec<String> = f
                .attrs
                .iter()
                .map(|(k, v)| format!("\"{k}\": {}", attr_value(v)))
                .collect();
            let _ = writeln!(out, "{inner}R.func_attr({{{}}})", attrs.join(", "));
        }
        if self.in_module && mentions_global(&f.body) {
            let _ = writeln!(out, "{inner}cls = Module");
        }
        // Symbolic variables first defined in the body (by a match_cast).
        let mut body_vars = SymbolicVars {
            seen: param_vars.seen.clone(),
            ..SymbolicVars::default()
        };
        for block in &f.body.blocks {
            for b in &block.bindings {
                if let Some(cast) = &b.cast {
                    body_vars.visit_struct_info(cast);
                }
            }
        }
        for v in &body_vars.order {
            self.uses_t = true;
            self.known_symbolic.insert(v.id());
            let _ = writeln!(out, "{inner}{} = T.int64()", v.name);
        }
        self.seq_body(out, &f.body, &mut names, level + 1, None);
    }

    /// A sequence's blocks, then `return body` (or, for an `if` branch,
    /// `var: T = body`).
    fn seq_body(
        &mut self,
        out: &mut String,
        seq: &SeqExpr,
        names: &mut Names,
        level: usize,
        result: Option<(&str, &str)>,
    ) {
        for block in &seq.blocks {
            self.block(out, block, names, level);
        }
        let pad = indent(level);
        let value = self.value(&seq.body, names, false);
        match result {
            None => {
                let _ = writeln!(out, "{pad}return {value}");
            }
            Some((var, ty)) => {
                let _ = writeln!(out, "{pad}{var}: {ty} = {value}");
            }
        }
    }

    fn block(&mut self, out: &mut String, block: &BindingBlock, names: &mut Names, level: usize) {
        if !block.dataflow {
            for b in &block.bindings {
                self.binding(out, b, names, level);
            }
            return;
        }
        let _ = writeln!(out, "{}with R.dataflow():", indent(level));
        let mut outputs = Vec::new();
        for b in &block.bindings {
            self.binding(out, b, names, level + 1);
            if !b.var.dataflow {
                outputs.push(names.define(&b.var));
            }
        }
        let _ = writeln!(out, "{}R.output({})", indent(level + 1), outputs.join(", "));
    }

    fn binding(&mut self, out: &mut String, b: &Node<Binding>, names: &mut Names, level: usize) {
        // Nested `if`s and functions recurse through here.
        ir_core::stack::guarded(|| self.binding_inner(out, b, names, level))
    }

    fn binding_inner(
        &mut self,
        out: &mut String,
        b: &Node<Binding>,
        names: &mut Names,
        level: usize,
    ) {
        let pad = indent(level);
        match (&b.value, &b.cast) {
            (Expr::Function(f), None) => {
                let name = names.define(&b.var);
                // Symbolic variables its signature introduces: `TypeVar`s.
                let mut introduced = SymbolicVars::default();
                for p in &f.params {
                    introduced.visit_struct_info(&p.sinfo);
                }
                let new: BTreeSet<&str> = introduced
                    .order
                    .iter()
                    .filter(|v| !self.known_symbolic.contains(&v.id()))
                    .map(|v| v.name.as_str())
                    .collect();
                if !new.is_empty() {
                    self.nested_type_vars = true;
                }
                if self.nested_type_vars {
                    let _ = writeln!(out, "{pad}# from typing import TypeVar");
                }
                // TVM's header names what the function prints: `T.` for
                // scalars and symbolic variables a match_cast defines.
                if prints_tirx(f, &self.known_symbolic) {
                    self.uses_t = true;
                    let _ = writeln!(
                        out,
                        "{pad}# from tvm.script import tirx as T\n{pad}# from tvm.tirx.layout import Axis"
                    );
                }
                let _ = writeln!(out, "{pad}# from tvm.script import relax as R\n{pad}");
                for v in &new {
                    let _ = writeln!(out, "{pad}{v} = TypeVar(\"{v}\")");
                }
                self.function_nested(out, &name, f, level);
                out.push('\n');
            }
            (Expr::If(i), None) => {
                let cond = self.value(&i.cond, names, false);
                let name = names.define(&b.var);
                let ty = self.sinfo(&b.var.sinfo, false);
                let _ = writeln!(out, "{pad}if {cond}:");
                names.enter();
                self.seq_body(out, &i.true_branch, names, level + 1, Some((&name, &ty)));
                names.leave();
                let _ = writeln!(out, "{pad}else:");
                names.enter();
                self.seq_body(out, &i.false_branch, names, level + 1, Some((&name, &ty)));
                names.leave();
            }
            // A binding of nothing to nothing (an effect's result; the
            // builder makes every use of it `R.tuple()`): TVM prints the
            // value alone.
            (value, None)
                if b.var.sinfo.is_void() && super::sinfo_of(value).is_ok_and(|s| s.is_void()) =>
            {
                let value = self.value(value, names, true);
                let _ = writeln!(out, "{pad}{value}");
            }
            // TVM leaves out the annotation of a `call_dps_packed`'s result
            // when its outputs say it all.
            (Expr::Call(c), None)
                if matches!(c.op(), Expr::Op(op) if op.name() == "call_dps_packed")
                    && super::sinfo_of(&b.value)
                        .is_ok_and(|s| ir_core::structural::structural_eq(&s, &b.var.sinfo)) =>
            {
                let value = self.value(&b.value, names, true);
                let name = names.define(&b.var);
                let _ = writeln!(out, "{pad}{name} = {value}");
            }
            (value, None) => {
                // The value first (its names are given before the
                // variable's), into scratch, then the line.
                let mut text = std::mem::take(&mut self.scratch);
                text.clear();
                self.write_value(&mut text, value, names, true);
                out.push_str(&pad);
                out.push_str(&names.define(&b.var));
                out.push_str(": ");
                self.write_sinfo(out, &b.var.sinfo);
                out.push_str(" = ");
                out.push_str(&text);
                out.push('\n');
                self.scratch = text;
            }
            (value, cast) => {
                let value = self.value(value, names, true);
                let name = names.define(&b.var);
                let ty = self.sinfo(&b.var.sinfo, false);
                match cast {
                    None => {
                        let _ = writeln!(out, "{pad}{name}: {ty} = {value}");
                    }
                    Some(c) => {
                        let c = self.sinfo(c, false);
                        let _ = writeln!(out, "{pad}{name}: {ty} = R.match_cast({value}, {c})");
                    }
                }
            }
        }
    }

    /// A function bound in another: its own names would clash with the
    /// enclosing ones in TVM's printer only by choice; it shares them.
    fn function_nested(&mut self, out: &mut String, name: &str, f: &Node<Function>, level: usize) {
        let outer = std::mem::replace(&mut self.nested, true);
        self.function(out, name, f, level);
        self.nested = outer;
    }

    /// [`Printer::value`], written into `out`: a variable, an operator, a
    /// constant printed before and calls of them need no string of their own.
    fn write_value(&mut self, out: &mut String, e: &Expr, names: &mut Names, top: bool) {
        match e {
            Expr::Var(v) => out.push_str(&names.define(v)),
            Expr::Op(o) => {
                out.push_str("R.");
                out.push_str(o.name());
            }
            Expr::Constant(c) if self.constant_text.contains_key(&c.id()) => {
                out.push_str(&self.constant_text[&c.id()]);
            }
            Expr::Call(c)
                if c.attrs().is_empty()
                    && c.sinfo_args().is_empty()
                    && format_index(c).is_none()
                    && !names_packed_function(c) =>
            {
                ir_core::stack::guarded(|| {
                    self.write_value(out, c.op(), names, false);
                    out.push('(');
                    for (i, a) in c.args().iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        self.write_value(out, a, names, false);
                    }
                    out.push(')');
                })
            }
            e => {
                let text = self.value(e, names, top);
                out.push_str(&text);
            }
        }
    }

    /// [`Printer::sinfo`] (not quoted), written into `out`.
    fn write_sinfo(&mut self, out: &mut String, s: &StructInfo) {
        if let StructInfo::TensorStructInfo(t) = s
            && let Some(text) = self.tensor_text.get(&t.id())
        {
            return out.push_str(text);
        }
        let text = self.sinfo(s, false);
        out.push_str(&text);
    }

    /// An expression; `top` is a binding's right-hand side, where a tuple
    /// prints without parentheses.
    fn value(&mut self, e: &Expr, names: &mut Names, top: bool) -> String {
        ir_core::stack::guarded(|| match e {
            Expr::Constant(c) if self.constant_text.contains_key(&c.id()) => {
                self.constant_text[&c.id()].clone()
            }
            Expr::Constant(c) => {
                let d = &c.data();
                let inline = d.shape.is_empty()
                    && d.values.len() == 1
                    && matches!(
                        d.dtype,
                        super::DataType::Bool
                            | super::DataType::Int(8 | 16 | 32 | 64)
                            | super::DataType::Float(16 | 32 | 64)
                    );
                if inline {
                    // A shared constant (`R.add(lv, c)` a million times) is
                    // formatted once.
                    let text = format!(
                        "R.const({}, \"{}\")",
                        scalar(d.values.first().copied().unwrap_or(0.0), d.dtype),
                        d.dtype
                    );
                    self.constant_text.insert(c.id(), text.clone());
                    text
                } else {
                    self.metadata += 1;
                    format!("metadata[\"ir.GenericConst\"][{}]", self.metadata - 1)
                }
            }
            Expr::Var(v) => names.define(v).into_owned(),
            Expr::ShapeExpr(s) => format!("R.shape([{}])", self.prims(&s.values, false)),
            Expr::PrimValue(p) => p.value.to_string(),
            Expr::StringImm(s) => format!("R.str({})", quote(&s.value)),
            Expr::DataTypeImm(d) => format!("R.dtype({})", quote(&d.value.to_string())),
            Expr::Tuple(t) => {
                let fields: Vec<String> = t
                    .fields
                    .iter()
                    .map(|f| self.value(f, names, false))
                    .collect();
                match (fields.len(), top) {
                    (0, _) => "R.tuple()".to_owned(),
                    (1, _) => format!("({},)", fields[0]),
                    (_, true) => fields.join(", "),
                    (_, false) => format!("({})", fields.join(", ")),
                }
            }
            Expr::TupleGetItem(t) => format!("{}[{}]", self.value(&t.tuple, names, false), t.index),
            Expr::Call(c) => self.call(c, names),
            Expr::GlobalVar(g) => {
                if self.in_module {
                    format!("cls.{}", g.name)
                } else {
                    g.name.clone()
                }
            }
            Expr::Op(o) => format!("R.{}", o.name()),
            Expr::ExternFunc(f) => format!("R.ExternFunc({})", quote(&f.name)),
            // Not values: printed as statements where they occur.
            Expr::If(_)
            | Expr::Function(_)
            | Expr::SeqExpr(_)
            | Expr::BindingBlock(_)
            | Expr::Binding(_) => {
                format!("<{}>", e.kind_name())
            }
        })
    }

    fn call(&mut self, c: &Call, names: &mut Names) -> String {
        let format = format_index(c);
        let mut args: Vec<String> = Vec::with_capacity(c.args().len() + 1);
        // A packed function called by name: `R.call_packed("f", ...)`.
        let callee = match c.op() {
            Expr::ExternFunc(f) => {
                args.push(quote(&f.name));
                "R.call_packed".to_owned()
            }
            op => self.value(op, names, false),
        };
        for (i, a) in c.args().iter().enumerate() {
            match a {
                _ if Some(i) == format => {}
                // An operator's packed function, by name (TVM's `PrintCallee`).
                Expr::ExternFunc(f)
                    if i == 0
                        && matches!(c.op(), Expr::Op(op) if super::ops::takes_packed_function(op.name())) =>
                {
                    args.push(quote(&f.name));
                }
                a => {
                    let text = self.value(a, names, false);
                    args.push(text);
                }
            }
        }
        if let Some(i) = format {
            let text = self.value(&c.args()[i], names, false);
            args.push(format!("format={text}"));
        }
        args.extend(
            c.attrs()
                .iter()
                .map(|(k, v)| format!("{k}={}", attr_value(v))),
        );
        if let (Expr::Op(op), [out]) = (c.op(), c.sinfo_args())
            && op.name() == "call_dps_packed"
        {
            // The outputs: one, or a list for a tuple of them.
            let text = match out {
                StructInfo::TupleStructInfo(t) => {
                    let fields: Vec<String> =
                        t.fields.iter().map(|s| self.sinfo(s, false)).collect();
                    format!("[{}]", fields.join(", "))
                }
                s => self.sinfo(s, false),
            };
            args.push(format!("out_ty={text}"));
        } else if !c.sinfo_args().is_empty() {
            let s: Vec<String> = c
                .sinfo_args()
                .iter()
                .map(|s| self.sinfo(s, false))
                .collect();
            // A Python tuple: a trailing comma only for one element.
            let comma = if s.len() == 1 { "," } else { "" };
            args.push(format!("ty_args=({}{comma})", s.join(", ")));
        }
        format!("{callee}({})", args.join(", "))
    }

    fn prims(&mut self, values: &[PrimExpr], quoted: bool) -> String {
        let parts: Vec<String> = values
            .iter()
            .map(|v| match (v, quoted) {
                (PrimExpr::IntImm(_) | PrimExpr::PrimVar(_), _) | (_, false) => v.to_string(),
                (_, true) => format!("\"{v}\""),
            })
            .collect();
        parts.join(", ")
    }

    /// A struct info annotation; in a signature (`quoted`), compound shape
    /// values are strings.
    fn sinfo(&mut self, s: &StructInfo, quoted: bool) -> String {
        // A tensor annotation shared by many variables is printed once.
        if let (StructInfo::TensorStructInfo(t), false) = (s, quoted) {
            if let Some(text) = self.tensor_text.get(&t.id()) {
                return text.clone();
            }
            let text = self.sinfo_uncached(s, quoted);
            self.tensor_text.insert(t.id(), text.clone());
            return text;
        }
        self.sinfo_uncached(s, quoted)
    }

    fn sinfo_uncached(&mut self, s: &StructInfo, quoted: bool) -> String {
        ir_core::stack::guarded(|| match s {
            StructInfo::ObjectStructInfo(_) => "R.Any".to_owned(),
            StructInfo::PrimStructInfo(p) => {
                self.uses_t = true;
                format!("T.{}", p.dtype)
            }
            StructInfo::ShapeStructInfo(sh) => match &sh.values {
                Some(v) => format!("R.Shape([{}])", self.prims(v, quoted)),
                None => format!("R.Shape(ndim={})", sh.ndim),
            },
            StructInfo::TensorStructInfo(t) => {
                let dtype = (!t.dtype.is_void()).then(|| format!("dtype=\"{}\"", t.dtype));
                match (&t.shape, dtype) {
                    (Some(shape), dtype) => {
                        let dims = self.prims(shape, quoted);
                        let dims = if shape.len() == 1 {
                            format!("({dims},)")
                        } else {
                            format!("({dims})")
                        };
                        match dtype {
                            Some(d) => format!("R.Tensor({dims}, {d})"),
                            None => format!("R.Tensor({dims})"),
                        }
                    }
                    (None, Some(d)) if t.ndim >= 0 => format!("R.Tensor({d}, ndim={})", t.ndim),
                    (None, Some(d)) => format!("R.Tensor({d})"),
                    (None, None) if t.ndim >= 0 => format!("R.Tensor(ndim={})", t.ndim),
                    (None, None) => "R.Tensor".to_owned(),
                }
            }
            StructInfo::TupleStructInfo(t) if t.fields.is_empty() => "R.Tuple".to_owned(),
            StructInfo::TupleStructInfo(t) => {
                let fields: Vec<String> = t.fields.iter().map(|f| self.sinfo(f, quoted)).collect();
                format!("R.Tuple({})", fields.join(", "))
            }
            StructInfo::FuncStructInfo(f) => {
                let ret = self.sinfo(&f.ret, quoted);
                match &f.params {
                    Some(params) => {
                        let params: Vec<String> =
                            params.iter().map(|p| self.sinfo(p, quoted)).collect();
                        let params = if params.len() == 1 {
                            format!("({},)", params[0])
                        } else {
                            format!("({})", params.join(", "))
                        };
                        format!("R.Callable({params}, {ret}, {})", py_bool(f.pure))
                    }
                    None => "R.Callable".to_owned(),
                }
            }
        })
    }
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

fn attr_value(v: &AttrValue) -> String {
    match v {
        AttrValue::Int(i) => i.to_string(),
        AttrValue::Ints(v) => {
            let parts: Vec<String> = v.iter().map(i64::to_string).collect();
            format!("[{}]", parts.join(", "))
        }
        AttrValue::Bool(b) => py_bool(*b).to_owned(),
        AttrValue::Str(s) => quote(s),
        AttrValue::Null => "None".to_owned(),
    }
}

/// A Python string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A scalar as Python prints it: `1.0`, `1`, `True`, `"inf"`.
fn scalar(v: f64, dtype: super::DataType) -> String {
    match dtype {
        super::DataType::Bool => py_bool(v != 0.0).to_owned(),
        d if d.is_int() => format!("{}", v as i64),
        _ if v.is_nan() => "\"nan\"".to_owned(),
        _ if v.is_infinite() => if v > 0.0 { "\"inf\"" } else { "\"-inf\"" }.to_owned(),
        _ => python_float(v),
    }
}

/// Python's `repr(float)`: the shortest round-tripping digits, with an
/// exponent from 1e16 up and below 1e-4.
fn python_float(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        let s = format!("{v:e}");
        // Rust: `1e16`, `1.5e-5`; Python: `1e+16`, `1.5e-05`.
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        format!("{mantissa}e{sign}{digits:0>2}")
    } else {
        format!("{v:?}")
    }
}

/// Symbolic variables in order of first appearance.
#[derive(Default)]
struct SymbolicVars {
    seen: IdSet<Node<PrimVar>>,
    order: Vec<Node<PrimVar>>,
}

impl PrimExprVisitor for SymbolicVars {
    fn visit_prim_var(&mut self, v: &Node<PrimVar>) {
        if self.seen.insert(v.id()) {
            self.order.push(v.clone());
        }
    }
}
impl StructInfoVisitor for SymbolicVars {}

/// Whether a function body refers to a global function (`cls.f`).
fn mentions_global(body: &Node<SeqExpr>) -> bool {
    struct Finder;
    impl PrimExprVisitor<std::ops::ControlFlow<()>> for Finder {}
    impl StructInfoVisitor<std::ops::ControlFlow<()>> for Finder {}
    impl ExprVisitor<std::ops::ControlFlow<()>> for Finder {
        fn visit_global_var(
            &mut self,
            _: &Node<super::expr::GlobalVar>,
        ) -> std::ops::ControlFlow<()> {
            std::ops::ControlFlow::Break(())
        }
        fn visit_function(&mut self, _: &Node<Function>) -> std::ops::ControlFlow<()> {
            // A nested function prints its own `cls = Module`.
            std::ops::ControlFlow::Continue(())
        }
    }
    body.walk(&mut Finder).is_break()
}

/// Where a call of `R.print` or `R.assert_op` holds its format string,
/// which prints last, as `format=`.
fn format_index(c: &Call) -> Option<usize> {
    match c.op() {
        Expr::Op(op) => super::ops::format_index(op.name()).filter(|&i| i < c.args().len()),
        _ => None,
    }
}

/// Whether a call names a packed function (as its callee, or as an
/// operator's first argument), which prints as a string.
fn names_packed_function(c: &Call) -> bool {
    matches!(c.op(), Expr::ExternFunc(_))
        || matches!(
            (c.op(), c.args().first()),
            (Expr::Op(op), Some(Expr::ExternFunc(_))) if super::ops::takes_packed_function(op.name())
        )
}

/// Whether a nested function's own text (its signature and bindings, not
/// its nested functions') uses `T.`: a scalar's struct info, or a symbolic
/// variable a match_cast defines (`n = T.int64()`). Looking one level deep
/// keeps printing linear in the depth of nested functions.
fn prints_tirx(f: &Function, known: &IdSet<Node<PrimVar>>) -> bool {
    #[derive(Default)]
    struct Scalars(bool);
    impl PrimExprVisitor for Scalars {}
    impl StructInfoVisitor for Scalars {
        fn visit_prim_struct_info(&mut self, _: &Node<super::sinfo::PrimStructInfo>) {
            self.0 = true;
        }
    }
    let mut scalars = Scalars::default();
    for p in &f.params {
        scalars.visit_struct_info(&p.sinfo);
    }
    scalars.visit_struct_info(&f.ret_sinfo);
    let mut signature = SymbolicVars::default();
    for p in &f.params {
        signature.visit_struct_info(&p.sinfo);
    }
    for block in &f.body.blocks {
        for b in &block.bindings {
            scalars.visit_struct_info(&b.var.sinfo);
            if let Some(cast) = &b.cast {
                let mut cast_vars = SymbolicVars::default();
                cast_vars.visit_struct_info(cast);
                if cast_vars
                    .order
                    .iter()
                    .any(|v| !signature.seen.contains(&v.id()) && !known.contains(&v.id()))
                {
                    return true;
                }
            }
        }
    }
    scalars.0
}
