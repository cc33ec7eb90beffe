//! Relax expressions, bindings and blocks, one family.
//!
//! Bindings and binding blocks are kinds of the `Expr` family rather than
//! families of their own: they and expressions contain each other (a
//! `SeqExpr` holds blocks, a binding holds an expression), and families that
//! use each other would make each pass trait a supertrait of itself, which
//! Rust forbids. They keep their types in fields (`SeqExpr::blocks` holds
//! `Node<BindingBlock>`), have their own hooks (`visit_binding_block`,
//! `visit_binding`), and the builder and `well_formed` never let one stand
//! where a value goes.
//!
//! A `DataflowVar` is a [`Var`] with `dataflow` set, and a `DataflowBlock` a
//! [`BindingBlock`] with `dataflow` set; a `MatchCast` is a [`Binding`] with a
//! `cast`. Their hooks are the var's, block's and binding's: TVM made the
//! dataflow var's hooks default to the var's (#15688) after passes that
//! overrode only one missed the other; here there is only one to override.

use std::hash::{Hash, Hasher};

use compact_str::CompactString;
use ir_core::{Mutable, Node, Rare, ShortVec, StructuralEq, Visitable};

use super::dtype::DataType;
use super::mutator::{self, MutatorState};
use super::prim::{PrimExpr, PrimExprMutator, PrimExprVisitor};
use super::sinfo::{StructInfo, StructInfoMutator, StructInfoVisitor};

/// A constant tensor: `R.const(1.0, "float32")`. Made with
/// [`Constant::new`], which works out its struct info once, as TVM sets a
/// constant's `struct_info_` when it is made: every binding that uses the
/// constant asks for it.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Constant {
    /// The value.
    #[ir(skip)]
    data: ConstData,
    /// Its struct info, from `data`.
    #[ir(skip, eq = false)]
    sinfo: StructInfo,
}

impl Constant {
    /// A constant holding `data`.
    pub fn new(data: ConstData) -> Self {
        let sinfo = StructInfo::tensor(data.shape.iter().map(|&d| d.into()).collect(), data.dtype);
        Constant { data, sinfo }
    }

    /// The value.
    pub fn data(&self) -> &ConstData {
        &self.data
    }

    /// The struct info: a tensor of the data's shape and dtype.
    pub fn sinfo(&self) -> &StructInfo {
        &self.sinfo
    }
}

/// The data of a constant: dtype, static shape and row-major elements.
#[derive(Debug, Clone)]
pub struct ConstData {
    /// Element type.
    pub dtype: DataType,
    /// Static shape (empty for a scalar).
    pub shape: Vec<i64>,
    /// Row-major elements (integers are exact up to 2^53).
    pub values: Vec<f64>,
}

impl PartialEq for ConstData {
    fn eq(&self, other: &Self) -> bool {
        self.dtype == other.dtype
            && self.shape == other.shape
            && self.values.len() == other.values.len()
            && self
                .values
                .iter()
                .zip(&other.values)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Eq for ConstData {}

impl Hash for ConstData {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dtype.hash(state);
        self.shape.hash(state);
        for v in &self.values {
            v.to_bits().hash(state);
        }
    }
}

/// A variable (or, with `dataflow`, a dataflow variable, local to its
/// dataflow block). Identity is the node; the name is a hint.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Var {
    /// Name hint. Names of up to 24 bytes are stored in place: a variable
    /// costs one allocation, not two.
    #[ir(skip, eq = false)]
    pub name: CompactString,
    /// A `DataflowVar`.
    #[ir(skip, eq = true)]
    pub dataflow: bool,
    /// What is known about its value: compared structurally, not walked
    /// (a use does not visit its type, as in TVM).
    #[ir(annotation)]
    pub sinfo: StructInfo,
}

/// `R.shape([n, 4])`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct ShapeExpr {
    /// The values.
    pub values: Vec<PrimExpr>,
}

/// `R.prim_value(n)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct PrimValue {
    /// The value.
    pub value: PrimExpr,
}

/// `R.str("text")`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct StringImm {
    /// The text.
    #[ir(skip)]
    pub value: String,
}

/// `R.dtype("int32")`: an element type as a value (what the allocation
/// operators take).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct DataTypeImm {
    /// The element type.
    #[ir(skip)]
    pub value: DataType,
}

/// `(a, b)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Tuple {
    /// The fields.
    pub fields: Vec<Expr>,
}

/// `t[i]`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TupleGetItem {
    /// The tuple.
    pub tuple: Expr,
    /// The field index.
    #[ir(skip)]
    pub index: usize,
}

/// An attribute value of a call or function.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AttrValue {
    /// An integer.
    Int(i64),
    /// A list of integers.
    Ints(Vec<i64>),
    /// A flag.
    Bool(bool),
    /// Text.
    Str(String),
    /// `None`.
    Null,
}

/// Named attributes, in order.
pub type Attrs = Vec<(String, AttrValue)>;

/// `op(args)`: `R.add(x, y)`, `cls.f(x)`, `f(x)`.
///
/// Made with [`Call::new`] (or [`Expr::call_op`](super::Expr::call_op)) and
/// read through accessors. A call remembers the struct info inferred for
/// it, as TVM's `struct_info_` does: an `#[ir(cache)]` field, which every
/// rebuild that changes an operand resets (copy-on-write or in place), and
/// which private fields keep anything else from making stale. A pass that
/// rebuilds a call over operands of the very same struct info (variables
/// renamed, say) gets the remembered struct info carried over by the
/// mutator, with no new inference.
///
/// ```
/// use ir_passes::relax::{Call, DataType, Expr, StructInfo, Var, sinfo_of};
///
/// let t = StructInfo::tensor(vec![4.into()], DataType::F32);
/// let x = Expr::Var(Var::new("x", t.clone()));
/// let call = Call::new(Expr::op("negative"), [x]);
/// assert_eq!(call.args().len(), 1);
/// let sinfo = sinfo_of(&call.into()).unwrap();
/// assert!(ir_core::structural::structural_eq(&sinfo, &t));
/// ```
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Call {
    /// The callee: an [`Op`], a [`GlobalVar`], a [`Var`] or an [`ExternFunc`].
    op: Expr,
    /// The arguments, in place when there are at most two: most calls
    /// allocate no list.
    args: ShortVec<Expr>,
    /// Attributes and struct info arguments, which most calls have none
    /// of: out of line, so that a call takes 72 bytes rather than 112 (a
    /// pass over a large module reads a third fewer bytes per call). Absent
    /// whenever both are empty, so that equality and hashing see one form.
    extra: Rare<CallExtra>,
    /// The struct info inferred for this call, once the builder bound it
    /// (a rebuild that changes an operand resets it).
    #[ir(cache)]
    inferred: Option<StructInfo>,
}

impl Call {
    /// `op(args)`, without attributes or struct info arguments.
    pub fn new(op: Expr, args: impl Into<ShortVec<Expr>>) -> Self {
        Call {
            op,
            args: args.into(),
            extra: Rare::none(),
            inferred: None,
        }
    }

    /// The call with operator attributes `attrs` (replacing any).
    pub fn with_attrs(self, attrs: Attrs) -> Self {
        let sinfo_args = self
            .extra
            .into_option()
            .map(|e| e.sinfo_args)
            .unwrap_or_default();
        Call {
            extra: CallExtra::of(attrs, sinfo_args),
            inferred: None,
            ..self
        }
    }

    /// The call with struct info arguments `sinfo_args` (replacing any).
    pub fn with_sinfo_args(self, sinfo_args: Vec<StructInfo>) -> Self {
        let attrs = self
            .extra
            .into_option()
            .map(|e| e.attrs)
            .unwrap_or_default();
        Call {
            extra: CallExtra::of(attrs, sinfo_args),
            inferred: None,
            ..self
        }
    }

    /// The callee.
    pub fn op(&self) -> &Expr {
        &self.op
    }

    /// The arguments.
    pub fn args(&self) -> &[Expr] {
        &self.args
    }

    /// Operator attributes.
    pub fn attrs(&self) -> &[(String, AttrValue)] {
        self.extra.as_ref().map_or(&[], |e| &e.attrs)
    }

    /// Struct info arguments.
    pub fn sinfo_args(&self) -> &[StructInfo] {
        self.extra.as_ref().map_or(&[], |e| &e.sinfo_args)
    }

    /// Whether `other` has the same attributes and, like this call, no
    /// struct info arguments: what inference reads besides the callee and
    /// the operands. A rebuild keeps the very same attributes, so that is
    /// checked first.
    pub(crate) fn same_extra(&self, other: &Call) -> bool {
        match (self.extra.as_ref(), other.extra.as_ref()) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.sinfo_args.is_empty()
                    && b.sinfo_args.is_empty()
                    && (std::ptr::eq(a, b) || a.attrs == b.attrs)
            }
            _ => false,
        }
    }

    /// The struct info inferred for this call, if it was remembered.
    pub(crate) fn inferred(&self) -> Option<&StructInfo> {
        self.inferred.as_ref()
    }

    /// Remembers `sinfo` as this call's inferred struct info. Set only by
    /// this crate, on a call it holds the only handle of, once its operands
    /// are final.
    pub(crate) fn remember(&mut self, sinfo: StructInfo) {
        self.inferred = Some(sinfo);
    }
}

/// A call's attributes and struct info arguments, kept out of line
/// ([`Call`]'s `extra`): a child struct, so the struct info arguments are
/// walked, rebuilt and compared as the call's own children.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
struct CallExtra {
    /// Operator attributes (`axis`, `keepdims`).
    #[ir(skip)]
    attrs: Attrs,
    /// Struct info arguments (the result type of an opaque call).
    sinfo_args: Vec<StructInfo>,
}

impl CallExtra {
    /// Present only when there is something to hold.
    fn of(attrs: Attrs, sinfo_args: Vec<StructInfo>) -> Rare<CallExtra> {
        if attrs.is_empty() && sinfo_args.is_empty() {
            Rare::none()
        } else {
            Rare::some(CallExtra { attrs, sinfo_args })
        }
    }
}

/// `if cond: ... else: ...`; each branch is a scope.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct If {
    /// The condition.
    pub cond: Expr,
    /// The true branch.
    pub true_branch: Node<SeqExpr>,
    /// The false branch.
    pub false_branch: Node<SeqExpr>,
}

/// A function: parameters (definitions), a body, its result's struct info.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Function {
    /// Parameters.
    pub params: Vec<Node<Var>>,
    /// The body.
    pub body: Node<SeqExpr>,
    /// The declared (or inferred) result: compared structurally, not
    /// walked (nested functions' types nest; walking them at every level
    /// would cost the square of the depth).
    #[ir(annotation)]
    pub ret_sinfo: StructInfo,
    /// Whether it is pure.
    #[ir(skip)]
    pub pure: bool,
    /// `@R.function(private=True)`: no external name.
    #[ir(skip)]
    pub private: bool,
    /// Function attributes (`R.func_attr`).
    #[ir(skip)]
    pub attrs: Attrs,
}

impl Function {
    /// How many variables the function itself defines: its parameters and
    /// its body's bindings (not those of nested functions or branches). What
    /// an analysis sizes its tables by.
    pub fn own_definitions(&self) -> usize {
        let bindings: usize = self.body.blocks.iter().map(|b| b.bindings.len()).sum();
        self.params.len() + bindings
    }
}

/// Binding blocks, then a result.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct SeqExpr {
    /// The blocks, in order.
    pub blocks: Vec<Node<BindingBlock>>,
    /// The result.
    pub body: Expr,
}

/// A global function's name: `cls.f`, `@f`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct GlobalVar {
    /// The name.
    #[ir(skip)]
    pub name: String,
    /// The function's struct info, when known.
    #[ir(skip, eq = false)]
    pub sinfo: Option<StructInfo>,
}

/// An operator: `R.add`. Made with [`Expr::op`], which hands out the
/// registry's one node per registered operator.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Op {
    /// Its name without the `R.` prefix: `add`, `nn.relu`.
    #[ir(skip)]
    name: String,
    /// Its place in the registry (TVM's `Op::index_`), found once when it
    /// was made, so that inference reads the registry without looking the
    /// name up; `None` for an unregistered name. It follows from the name,
    /// so it is not compared.
    #[ir(skip, eq = false)]
    registered: Option<u32>,
}

impl Op {
    /// The operator of registry entry `index`, or of no entry.
    pub(crate) fn with_index(name: &str, registered: Option<u32>) -> Op {
        Op {
            name: name.to_owned(),
            registered,
        }
    }

    /// Its name without the `R.` prefix: `add`, `nn.relu`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its registry entry, if it is registered.
    pub fn def(&self) -> Option<&'static super::ops::OpDef> {
        self.registered.map(super::ops::def_at)
    }
}

/// An external (packed) function, by name.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct ExternFunc {
    /// The symbol.
    #[ir(skip)]
    pub name: String,
}

/// A block of bindings; with `dataflow`, a `with R.dataflow():` block.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct BindingBlock {
    /// The bindings, in order.
    pub bindings: Vec<Node<Binding>>,
    /// A dataflow block.
    #[ir(skip)]
    pub dataflow: bool,
}

/// `var = value`, or with `cast`, `var = R.match_cast(value, cast)`. The
/// value is visited before the variable it defines (and the cast between).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Binding {
    /// The bound value.
    pub value: Expr,
    /// A `MatchCast`'s struct info.
    pub cast: Option<StructInfo>,
    /// The defined variable.
    pub var: Node<Var>,
}

/// The family of Relax expressions (and of its bindings and blocks).
///
/// Its mutators normalize, as TVM's `ExprMutator` does: they hold a
/// [`MutatorState`] (a block builder and a variable remap), and the default
/// hooks of sequences, functions, `if`, bindings, blocks and variables use it.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(
    uses(StructInfo, PrimExpr),
    mutator(state = MutatorState, entry = mutator::entry)
)]
pub enum Expr {
    /// A constant.
    Constant(Node<Constant>),
    /// A variable use; bindings and parameters are its definition sites.
    #[ir(def, mutate = mutator::var_use, mutate_def = mutator::var_def)]
    Var(Node<Var>),
    /// A shape value.
    ShapeExpr(Node<ShapeExpr>),
    /// A scalar value.
    PrimValue(Node<PrimValue>),
    /// A string.
    StringImm(Node<StringImm>),
    /// An element type.
    DataTypeImm(Node<DataTypeImm>),
    /// A tuple.
    Tuple(Node<Tuple>),
    /// A projection.
    TupleGetItem(Node<TupleGetItem>),
    /// A call.
    Call(Node<Call>),
    /// A conditional.
    #[ir(mutate = mutator::if_)]
    If(Node<If>),
    /// A function.
    #[ir(mutate = mutator::function)]
    Function(Node<Function>),
    /// Blocks and a result.
    #[ir(mutate = mutator::seq_expr)]
    SeqExpr(Node<SeqExpr>),
    /// A global function's name.
    GlobalVar(Node<GlobalVar>),
    /// An operator.
    Op(Node<Op>),
    /// An external function.
    ExternFunc(Node<ExternFunc>),
    /// A block of bindings (only inside a `SeqExpr`).
    #[ir(mutate = mutator::binding_block)]
    BindingBlock(Node<BindingBlock>),
    /// A binding (only inside a block).
    #[ir(mutate = mutator::binding)]
    Binding(Node<Binding>),
}
