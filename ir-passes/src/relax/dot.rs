//! A Relax module as a Graphviz dataflow graph (`ir-opt --emit dot`): one
//! cluster per function, a node per parameter and per binding (dataflow
//! blocks as nested clusters), an edge from each variable to the bindings
//! that use it, and the function's result.

use std::fmt::Write;

use ir_core::{IdMap, IdSet, Node};

use super::expr::{Binding, Expr, Function, Var};
use super::module::RelaxModule;
use super::passes::used_vars;

/// The module as a `digraph` in Graphviz's dot language.
///
/// ```
/// use ir_passes::relax::{module_to_dot, parse_module};
///
/// let module = parse_module(r#"# from tvm.script import ir as I
/// ## from tvm.script import relax as R
///
/// @I.ir_module
/// class Module:
///     @R.function
///     def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
///         y: R.Tensor((2,), dtype="float32") = R.exp(x)
///         return y"#).unwrap();
/// let dot = module_to_dot(&module);
/// assert!(dot.starts_with("digraph module {"));
/// assert!(dot.contains("label=\"y = R.exp\""));
/// assert!(dot.contains("f0_x -> f0_b0;"));
/// ```
pub fn module_to_dot(module: &RelaxModule) -> String {
    let mut out = String::from("digraph module {\n  rankdir=BT;\n");
    for (i, (name, f)) in module.functions().enumerate() {
        let _ = writeln!(
            out,
            " subgraph cluster_{i} {{\n  label=\"{}{}\";",
            if f.private { "private " } else { "" },
            escape(name)
        );
        function(&mut out, &format!("f{i}_"), f);
        out.push_str(" }\n");
    }
    out.push_str("}\n");
    out
}

/// Node names of the variables defined so far in one function, with the
/// order of their definition.
struct Graph<'a> {
    out: &'a mut String,
    prefix: &'a str,
    names: IdMap<Node<Var>, (usize, String)>,
    bindings: usize,
}

impl Graph<'_> {
    /// Edges from each variable `value` uses (that the graph knows) to `to`.
    fn edges(&mut self, value: &Expr, to: &str) {
        let mut used = IdSet::default();
        used_vars(value, &mut used);
        // In the order of definition, so the output is deterministic.
        let mut from: Vec<&(usize, String)> =
            used.iter().filter_map(|v| self.names.get(v)).collect();
        from.sort();
        for (_, f) in from {
            let _ = writeln!(self.out, "  {f} -> {to};");
        }
    }

    fn binding(&mut self, b: &Node<Binding>) {
        let id = format!("{}b{}", self.prefix, self.bindings);
        self.bindings += 1;
        let what = match (&b.value, &b.cast) {
            (_, Some(_)) => "R.match_cast".to_owned(),
            (Expr::Call(c), None) => match c.op() {
                Expr::Op(op) => format!("R.{}", op.name()),
                Expr::GlobalVar(g) => format!("cls.{}", g.name),
                Expr::Var(v) => format!("{}(...)", v.name),
                _ => "call".to_owned(),
            },
            (e, None) => e.kind_name().to_owned(),
        };
        let _ = writeln!(
            self.out,
            "  {id} [label=\"{} = {}\", shape=box];",
            escape(&b.var.name),
            escape(&what)
        );
        self.edges(&b.value, &id);
        let order = self.names.len();
        self.names.insert(b.var.id(), (order, id));
    }
}

fn function(out: &mut String, prefix: &str, f: &Node<Function>) {
    let mut g = Graph {
        out,
        prefix,
        names: IdMap::default(),
        bindings: 0,
    };
    for (i, p) in f.params.iter().enumerate() {
        let id = format!("{prefix}{}", escape_id(&p.name, i));
        let _ = writeln!(g.out, "  {id} [label=\"{}\"];", escape(&p.name));
        g.names.insert(p.id(), (i, id));
    }
    for (bi, block) in f.body.blocks.iter().enumerate() {
        if block.dataflow {
            let _ = writeln!(
                g.out,
                "  subgraph cluster_{prefix}df{bi} {{\n   label=\"dataflow\"; style=dashed;"
            );
        }
        for b in &block.bindings {
            g.binding(b);
        }
        if block.dataflow {
            g.out.push_str("  }\n");
        }
    }
    let result = format!("{prefix}out");
    let _ = writeln!(g.out, "  {result} [label=\"output\", shape=doublecircle];");
    g.edges(&f.body.body, &result);
}

/// A parameter's node id: its name when it is a plain identifier (so that
/// graphs read well), else its position.
fn escape_id(name: &str, i: usize) -> String {
    if !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name != "out"
        && !(name.starts_with('b') && name[1..].chars().all(|c| c.is_ascii_digit()))
    {
        name.to_owned()
    } else {
        format!("p{i}")
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
