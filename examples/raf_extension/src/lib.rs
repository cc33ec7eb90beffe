//! RAF's extensions of Relay, as a downstream crate: new node kinds added to
//! the Relay dialect's open `Expr` family without forking it.
//!
//! * RAF's `ExtendedVar`: a Relay variable that may share memory with another
//!   value. RAF subclasses `VarNode` to add `may_share`, and lost it whenever
//!   an upstream pass rebuilt the variable. Here an extended variable *is* a
//!   Relay [`Var`], so it binds in `let`s and function parameters like any
//!   variable; its [`Var::ext`] slot holds a [`MayShare`], a kind this crate
//!   adds to `Expr`. The slot is a child of the variable: every upstream
//!   mutator that keeps the variable keeps it, and one that rewrites the
//!   value it names rewrites it consistently. [`make_var`] (RAF's `MakeVar`)
//!   builds one; [`may_share`] reads it.
//! * [`RtConstant`]: a constant holding a runtime value (RAF's `ConstantNode`
//!   with a `raf::Value`): a tensor on a device, or an opaque runtime handle.
//!   It goes wherever an expression goes.
//!
//! Both kinds implement [`RelayExtension`], Relay's interface for downstream
//! kinds, so Relay's printer, type inference and constant folding understand
//! them. Passes of this crate ([`MaterializeConstants`], [`SharingReport`])
//! have one hook per new kind next to Relay's own hooks.
//!
//! ```
//! use ir_passes::relay::{Expr, print_expr};
//! use raf_extension::{make_var, may_share};
//!
//! let x = Expr::var("x", None);
//! let y = make_var("y", None, Some(x.clone().into()));
//! assert!(may_share(&y).unwrap().as_var().unwrap().same_as(&x));
//! let program = Expr::let_(y.clone(), Expr::call_op("negative", [x.into()]), y.into());
//! assert_eq!(
//!     print_expr(&program),
//!     "free_var %x;\nlet %y{may_share=%x} = negative(%x);\n%y\n"
//! );
//! ```

use ir_core::ext::Ext;
use ir_core::{Mutable, Node, Rare, ReplaceMap, StructuralEq, Transformed, Visitable};
use ir_passes::relay::{
    Constant, Dim, Expr, ExprMutator, ExprVisitor, ExtPrinter, PatternMutator, PatternVisitor,
    RelayExtension, Span, Tensor, Type, TypeMutator, TypeVisitor, Var,
};

/// What RAF's `ExtendedVar` adds to a Relay variable: the value whose memory
/// the variable may reuse. Held in the variable's [`Var::ext`] slot and
/// printed there, `%b{may_share=%a}`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct MayShare {
    /// The value (in RAF, a variable) whose memory may be reused.
    pub value: Expr,
}

/// Where a runtime tensor lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    /// Host memory.
    Cpu,
    /// A GPU, by index.
    Gpu(u32),
}

/// A value of the runtime, held by a constant node.
#[derive(Debug, Clone, PartialEq, Hash)]
pub enum RuntimeValue {
    /// A tensor on a device.
    Tensor {
        /// The data.
        data: Tensor,
        /// Where it lives.
        device: Device,
    },
    /// A runtime object Relay has no constant for (a memory pool, a stream).
    Opaque {
        /// The runtime's handle.
        handle: u64,
        /// What it is, for printing.
        label: String,
    },
}

/// A constant holding a runtime value (RAF's `ConstantNode`).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct RtConstant {
    /// The value.
    #[ir(skip)]
    pub value: RuntimeValue,
}

/// The kinds this crate adds to Relay's `Expr`.
#[derive(Visitable, Mutable)]
#[ir(extends(Expr))]
pub enum RafExpr {
    /// See [`MayShare`].
    MayShare(Node<MayShare>),
    /// See [`RtConstant`].
    RtConstant(Node<RtConstant>),
}

impl RelayExtension for MayShare {
    fn print(&self, out: &mut ExtPrinter<'_>) {
        out.write("may_share=");
        out.expr(&self.value);
    }
}

impl RelayExtension for RtConstant {
    fn print(&self, out: &mut ExtPrinter<'_>) {
        match &self.value {
            RuntimeValue::Tensor { data, device } => {
                let values: Vec<String> = data.to_f64s().iter().map(f64::to_string).collect();
                out.write(&format!("runtime<{device:?}>[{}]", values.join(", ")));
            }
            RuntimeValue::Opaque { handle, label } => {
                out.write(&format!("runtime<{label}#{handle}>"));
            }
        }
    }

    fn ty(&self) -> Option<Type> {
        match &self.value {
            RuntimeValue::Tensor { data, .. } => Some(Type::tensor(
                data.shape().iter().map(|&d| Dim::Known(d as i64)).collect(),
                data.dtype(),
            )),
            RuntimeValue::Opaque { .. } => None,
        }
    }

    fn constant(&self) -> Option<Tensor> {
        match &self.value {
            RuntimeValue::Tensor { data, .. } => Some(data.clone()),
            RuntimeValue::Opaque { .. } => None,
        }
    }
}

/// RAF's `MakeVar`: a new variable, extended with the value whose memory
/// it may reuse (a plain Relay variable when `may_share` is `None`).
pub fn make_var(name: &str, annotation: Option<Type>, may_share: Option<Expr>) -> Node<Var> {
    Node::new(Var {
        ext: may_share.map(|value| MayShare { value }.into()).into(),
        ..(*Expr::var(name, annotation)).clone()
    })
}

/// The value whose memory `v` may reuse: the value of its [`MayShare`], if
/// it has one (a handle to it).
pub fn may_share(v: &Var) -> Option<Expr> {
    match v.ext.as_ref()? {
        Expr::Ext(x) => x.downcast::<MayShare>().map(|m| m.value.clone()),
        _ => None,
    }
}

/// A new [`RtConstant`] holding a tensor on `device`.
pub fn rt_tensor(data: Tensor, device: Device) -> Expr {
    RtConstant {
        value: RuntimeValue::Tensor { data, device },
    }
    .into()
}

/// A new [`RtConstant`] holding an opaque runtime object.
pub fn rt_opaque(handle: u64, label: &str) -> Expr {
    RtConstant {
        value: RuntimeValue::Opaque {
            handle,
            label: label.to_owned(),
        },
    }
    .into()
}

/// Replaces runtime tensors held on the host by Relay constants (a pass of
/// this crate: a hook for a downstream kind next to Relay's hooks).
pub struct MaterializeConstants;

impl TypeMutator for MaterializeConstants {}
impl PatternMutator for MaterializeConstants {}
impl ExprMutator for MaterializeConstants {
    fn mutate_ext(&mut self, node: &Ext<Expr>) -> Transformed<Expr> {
        self.mutate_raf_expr(node)
    }
}
impl RafExprMutator for MaterializeConstants {
    fn mutate_rt_constant(&mut self, node: &Node<RtConstant>) -> Transformed<Expr> {
        match &node.value {
            RuntimeValue::Tensor {
                data,
                device: Device::Cpu,
            } => Constant {
                data: data.clone(),
                span: Span::default(),
            }
            .into(),
            _ => Transformed::Keep,
        }
    }
}

/// Drops sharing that no longer names a variable: after `fold-constant` has
/// substituted a constant for the variable an extended variable may share,
/// `%e{may_share=3f}` becomes `%e`. The variable is rebuilt at its
/// definition, and every use follows it through a [`ReplaceMap`], so the
/// program stays bound.
#[derive(Default)]
pub struct DropStaleSharing {
    rebuilt: ReplaceMap<Var>,
}

impl DropStaleSharing {
    /// `e` without stale sharing.
    pub fn run(e: &Expr) -> Expr {
        DropStaleSharing::default()
            .mutate_expr(e)
            .unwrap_or_clone(e)
    }
}

impl TypeMutator for DropStaleSharing {}
impl PatternMutator for DropStaleSharing {}
impl ExprMutator for DropStaleSharing {
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        let change = match may_share(v) {
            Some(shared) if !shared.is_var() => Transformed::Replace(Node::new(Var {
                ext: Rare::none(),
                ..(**v).clone()
            })),
            _ => v.rebuild(self),
        };
        self.rebuilt.record(v, change)
    }
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.rebuilt.get(v).cloned().map(Expr::from).into()
    }
}

/// What a program holds, by kind, old and new: Relay variables and
/// constants, extended variables with what they may share, runtime values.
#[derive(Debug, Default, PartialEq)]
pub struct SharingReport {
    /// Names of variables used, in visit order.
    pub relay_vars: Vec<String>,
    /// Relay constants met.
    pub relay_constants: usize,
    /// `(variable, what it may share)` for each extended variable defined, in
    /// visit order (a variable shared by name, anything else by kind).
    pub sharing: Vec<(String, String)>,
    /// Runtime values met.
    pub runtime_values: usize,
}

impl SharingReport {
    /// The report for `e`.
    pub fn of(e: &Expr) -> SharingReport {
        let mut pass = Report::default();
        pass.visit_expr(e);
        pass.report
    }
}

/// The pass behind [`SharingReport::of`]: Relay's hooks for variables and
/// constants, this crate's for what it added.
#[derive(Default)]
struct Report {
    report: SharingReport,
    /// The variable whose definition is being visited.
    defining: Option<String>,
}

impl TypeVisitor for Report {}
impl PatternVisitor for Report {}
impl ExprVisitor for Report {
    fn visit_var(&mut self, v: &Node<Var>) {
        self.report.relay_vars.push(v.name.to_string());
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        let outer = self.defining.replace(v.name.to_string());
        v.walk(self);
        self.defining = outer;
    }
    fn visit_constant(&mut self, _: &Node<Constant>) {
        self.report.relay_constants += 1;
    }
    fn visit_ext(&mut self, node: &Ext<Expr>) {
        self.visit_raf_expr(node)
    }
}
impl RafExprVisitor for Report {
    fn visit_may_share(&mut self, m: &Node<MayShare>) {
        let shared = match &m.value {
            Expr::Var(x) => format!("%{}", x.name),
            other => other.kind_name().to_owned(),
        };
        let var = self.defining.clone().unwrap_or_default();
        self.report.sharing.push((var, shared));
        m.walk(self);
    }
    fn visit_rt_constant(&mut self, _: &Node<RtConstant>) {
        self.report.runtime_values += 1;
    }
}
