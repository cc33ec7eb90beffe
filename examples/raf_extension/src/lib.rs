//! RAF's extensions of Relay, as a downstream crate: new node kinds added to
//! the Relay dialect's open `Expr` family without forking it.
//!
//! * [`ExtendedVar`]: a variable that may share memory with another value
//!   (RAF's `ExtendedVar` with `may_share`). RAF lost `may_share` whenever an
//!   upstream mutator rebuilt a variable; here the field is a child, so every
//!   upstream mutator rebuilds the node copy-on-write and carries it over
//!   (rewritten consistently when the value it names is rewritten).
//! * [`RtConstant`]: a constant holding a runtime value (RAF's `ConstantNode`
//!   with a `raf::Value`): a tensor on a device, or an opaque runtime handle.
//!
//! Both implement [`RelayExtension`], Relay's interface for downstream kinds,
//! so Relay's printer, type inference and constant folding understand them.
//! Passes of this crate ([`MaterializeConstants`], [`SharingReport`]) have one
//! hook per new kind next to Relay's own hooks.

use ir_core::ext::Ext;
use ir_core::{Mutable, Node, StructuralEq, Transformed, Visitable};
use ir_passes::relay::{
    Constant, Dim, Expr, ExprMutator, ExprVisitor, ExtPrinter, RelayExtension, Span, Tensor, Type,
    TypeMutator, TypeVisitor, Var,
};

/// A variable that may reuse the memory of another value (RAF's `ExtendedVar`).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct ExtendedVar {
    /// Name hint, without `%`.
    #[ir(skip)]
    pub name: String,
    /// The variable's type, if annotated.
    pub annotation: Option<Type>,
    /// The value whose memory this variable may reuse.
    pub may_share: Option<Expr>,
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
    /// See [`ExtendedVar`].
    ExtendedVar(Node<ExtendedVar>),
    /// See [`RtConstant`].
    RtConstant(Node<RtConstant>),
}

impl RelayExtension for ExtendedVar {
    fn print(&self, out: &mut ExtPrinter<'_>) {
        out.write(&format!("%{}", self.name));
        if let Some(share) = &self.may_share {
            out.write("{may_share=");
            out.expr(share);
            out.write("}");
        }
    }

    fn ty(&self) -> Option<Type> {
        self.annotation.clone()
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

/// A new [`ExtendedVar`].
pub fn extended_var(name: &str, annotation: Option<Type>, may_share: Option<Expr>) -> Expr {
    ExtendedVar {
        name: name.to_owned(),
        annotation,
        may_share,
    }
    .into()
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

/// What a program holds, by kind, old and new: Relay variables and
/// constants, extended variables with what they may share, runtime values.
#[derive(Debug, Default, PartialEq)]
pub struct SharingReport {
    /// Names of Relay variables used.
    pub relay_vars: Vec<String>,
    /// Relay constants met.
    pub relay_constants: usize,
    /// `(variable, what it may share)`, in visit order (the sharer printed by kind).
    pub sharing: Vec<(String, Option<String>)>,
    /// Runtime values met.
    pub runtime_values: usize,
}

impl SharingReport {
    /// The report for `e`.
    pub fn of(e: &Expr) -> SharingReport {
        let mut report = SharingReport::default();
        report.visit_expr(e);
        report
    }
}

impl TypeVisitor for SharingReport {}
impl ExprVisitor for SharingReport {
    fn visit_var(&mut self, v: &Node<Var>) {
        self.relay_vars.push(v.name.clone());
    }
    fn visit_constant(&mut self, _: &Node<Constant>) {
        self.relay_constants += 1;
    }
    fn visit_ext(&mut self, node: &Ext<Expr>) {
        self.visit_raf_expr(node)
    }
}
impl RafExprVisitor for SharingReport {
    fn visit_extended_var(&mut self, v: &Node<ExtendedVar>) {
        let shared = v.may_share.as_ref().map(|e| match e {
            Expr::Var(x) => format!("%{}", x.name),
            Expr::Ext(x) => match x.downcast::<ExtendedVar>() {
                Some(x) => format!("%{}", x.name),
                None => x.kind_name().to_owned(),
            },
            other => other.kind_name().to_owned(),
        });
        self.sharing.push((v.name.clone(), shared));
        v.walk(self);
    }
    fn visit_rt_constant(&mut self, _: &Node<RtConstant>) {
        self.runtime_values += 1;
    }
}
