//! The block builder (TVM's `BlockBuilder`): emits bindings one at a time
//! into a stack of blocks, normalizes expressions to A-normal form, names
//! variables, and manages the module's functions copy-on-write.
//!
//! ```
//! use ir_passes::relax::{BlockBuilder, DataType, Expr, PrimExpr, StructInfo};
//!
//! let mut bb = BlockBuilder::new();
//! let x = bb.param("x", StructInfo::tensor(vec![PrimExpr::int(4)], DataType::F32));
//! bb.begin_function("main", vec![x.clone()]).unwrap();
//! bb.begin_dataflow_block().unwrap();
//! let lv = bb.emit(Expr::call_op("add", vec![x.clone().into(), x.clone().into()]), "").unwrap();
//! let gv = bb.emit_output(lv.into(), "").unwrap();
//! bb.end_block().unwrap();
//! bb.emit_func_output(gv.into()).unwrap();
//! let module = bb.finalize().unwrap();
//! assert_eq!(module.get("main").unwrap().params[0].name, "x");
//! ```

use std::fmt;

use compact_str::CompactString;
use ir_core::{Family, IdMap, Node, ShortVec};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::name_hash::name_hash;

use super::arith::can_prove_equal;
use super::expr::{Binding, BindingBlock, Expr, Function, GlobalVar, SeqExpr, Var};
use super::function_dedup::FunctionDedup;
use super::infer::{sinfo_of, sinfo_of_owned};
use super::module::{RelaxModule, extern_sinfo, is_global, module_externs};
use super::prim::PrimExpr;
use super::rename_globals::rename_globals;
use super::sinfo::{FuncStructInfo, StructInfo, is_base_of};

/// A misuse of the builder, or an expression that does not type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuilderError(pub String);

impl fmt::Display for BuilderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuilderError {}

fn err<T>(message: impl Into<String>) -> Result<T, BuilderError> {
    Err(BuilderError(message.into()))
}

/// An open block.
struct Frame {
    bindings: Vec<Node<Binding>>,
    dataflow: bool,
    /// `normalize_argument`'s memo: argument node -> the variable it was bound to.
    memo: IdMap<Expr, (Expr, Node<Var>)>,
}

/// A function being built with `begin_function` / `emit_func_output`.
struct FunctionFrame {
    name: String,
    private: bool,
    params: Vec<Node<Var>>,
    /// How deep the block stack was when it began.
    blocks_at: usize,
    /// Blocks ended inside it, in order.
    blocks: Vec<Node<BindingBlock>>,
    output: Option<Expr>,
}

/// Unique names: a hint is used verbatim while it is free, then gets a
/// counter (`lv`, `lv1`, `lv2`).
///
/// Names a counter gave are not stored: `lv1` to `lv{k-1}` are known taken
/// from the counter of `lv` standing at `k`. So a builder of a million
/// bindings keeps one counter, not a million names, and giving a name costs
/// the same at any size. Only names taken verbatim are stored, by hash (two
/// names with the same 64-bit hash count as one: the second gets a suffix
/// it did not need).
#[derive(Default)]
struct NameSupply {
    /// The hashes of the names taken verbatim.
    verbatim: FxHashSet<u64>,
    /// How many of those names end in a digit: while none do, a counter's
    /// name (`lv12`) cannot be among them and is not hashed to check.
    verbatim_with_digits: usize,
    /// Per hint (by hash), its counter's next number: `hint{i}` is taken for
    /// every `1 <= i < next` (given out, or passed over because taken).
    next: FxHashMap<u64, usize>,
    /// How many counters' hints end in a digit (`x1`): while none do, a
    /// name's only possible counter is the one before its digits.
    digit_hints: usize,
    /// Where a counter's name is put together.
    scratch: String,
}

fn ends_in_digit(name: &str) -> bool {
    name.ends_with(|c: char| c.is_ascii_digit())
}

impl NameSupply {
    /// Marks `name` as taken.
    fn reserve(&mut self, name: &str) {
        self.take_verbatim(name, name_hash(name));
    }

    fn take_verbatim(&mut self, name: &str, hash: u64) {
        if self.verbatim.insert(hash) && ends_in_digit(name) {
            self.verbatim_with_digits += 1;
        }
    }

    /// Whether `name` is taken: verbatim, or by a counter (`lv12` may be
    /// `lv` + 12 or `lv1` + 2). The split at `free_split` is known free
    /// (the counter being asked).
    fn is_taken(&self, name: &str, free_split: Option<usize>) -> bool {
        let digits_from = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let may_be_verbatim = digits_from == name.len() || self.verbatim_with_digits > 0;
        if may_be_verbatim && self.verbatim.contains(&name_hash(name)) {
            return true;
        }
        // Each split leaves a number of one digit or more after it. A prefix
        // ending in a digit can only be a hint ending in one.
        let splits = if self.digit_hints == 0 {
            digits_from..(digits_from + 1).min(name.len())
        } else {
            digits_from..name.len()
        };
        splits.into_iter().any(|split| {
            let number = &name[split..];
            // A counter writes no leading zero.
            Some(split) != free_split
                && !number.starts_with('0')
                && number.parse::<usize>().is_ok_and(|i| {
                    self.next
                        .get(&name_hash(&name[..split]))
                        .is_some_and(|&next| i < next)
                })
        })
    }

    /// `hint` itself if free, else `hint` with its counter's first free number.
    fn fresh(&mut self, hint: &str) -> CompactString {
        let hint_hash = name_hash(hint);
        // While no taken name and no counted hint ends in a digit, the
        // counter's next name (`lv7`) can be nobody else's: the only hint it
        // could split into is this one.
        if self.digit_hints == 0
            && self.verbatim_with_digits == 0
            && let Some(next) = self.next.get_mut(&hint_hash)
        {
            *next += 1;
            return counter_name(&mut self.scratch, hint, *next - 1);
        }
        let mut i = match self.next.get(&hint_hash) {
            // A hint has a counter only once it is taken.
            Some(&next) => next,
            None if !self.is_taken(hint, None) => {
                self.take_verbatim(hint, hint_hash);
                return hint.into();
            }
            None => {
                if ends_in_digit(hint) {
                    self.digit_hints += 1;
                }
                1
            }
        };
        loop {
            let name = counter_name(&mut self.scratch, hint, i);
            i += 1;
            if !self.is_taken(&name, Some(hint.len())) {
                self.next.insert(hint_hash, i);
                return name;
            }
        }
    }
}

/// `hint` followed by `i` in decimal. Written by hand: `write!` goes
/// through `fmt`'s padding machinery, which cost a third of naming a
/// variable. Put together in `scratch`, so that the name is made in one
/// piece without checking bytes for UTF-8.
fn counter_name(scratch: &mut String, hint: &str, mut i: usize) -> CompactString {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    scratch.clear();
    scratch.push_str(hint);
    scratch.extend(digits[at..].iter().map(|&d| char::from(d)));
    CompactString::from(scratch.as_str())
}

/// Builds binding blocks, functions and modules; see the module docs.
pub struct BlockBuilder {
    frames: Vec<Frame>,
    /// Spare block storage, so that a builder reused across blocks allocates
    /// nothing once warm.
    spare: Vec<Frame>,
    scopes: Vec<Vec<Node<Var>>>,
    spare_scopes: Vec<Vec<Node<Var>>>,
    functions: Vec<FunctionFrame>,
    names: NameSupply,
    global_names: NameSupply,
    module: RelaxModule,
    /// The module's functions by structure, for `add_function`.
    dedup: FunctionDedup,
    /// TVM's binding table, built when first asked ([`Self::lookup_binding`]):
    /// emitting only appends here, so a pass that never looks a binding up
    /// pays no hash-table insert per binding.
    bindings: BindingTable,
    /// Public functions added under another name than asked for, because a
    /// function held it: (name given, name asked for), settled at `finalize`.
    public_symbols: Vec<(String, String)>,
}

/// The bindings emitted since the builder was last idle (no open block,
/// scope or function), and an index of them by variable, extended lazily.
#[derive(Default)]
struct BindingTable {
    emitted: Vec<Node<Binding>>,
    index: IdMap<Node<Var>, usize>,
    indexed: usize,
}

impl BindingTable {
    fn clear(&mut self) {
        self.emitted.clear();
        self.index.clear();
        self.indexed = 0;
    }

    fn lookup(&mut self, var: &Node<Var>) -> Option<&Expr> {
        for (i, b) in self.emitted.iter().enumerate().skip(self.indexed) {
            // A match_cast is not a binding of its value.
            if b.cast.is_none() {
                self.index.insert(b.var.id(), i);
            }
        }
        self.indexed = self.emitted.len();
        let b = &self.emitted[*self.index.get(&var.id())?];
        b.var.same_as(var).then_some(&b.value)
    }
}

impl Default for BlockBuilder {
    fn default() -> Self {
        BlockBuilder::new()
    }
}

impl BlockBuilder {
    /// A builder over an empty module.
    pub fn new() -> Self {
        BlockBuilder::with_module(RelaxModule::new())
    }

    /// A builder over `module`, which it changes copy-on-write: the caller's
    /// module is never modified.
    pub fn with_module(module: RelaxModule) -> Self {
        let mut bb = BlockBuilder {
            frames: Vec::new(),
            spare: Vec::new(),
            scopes: Vec::new(),
            spare_scopes: Vec::new(),
            functions: Vec::new(),
            names: NameSupply::default(),
            global_names: NameSupply::default(),
            module: RelaxModule::new(),
            dedup: FunctionDedup::default(),
            bindings: BindingTable::default(),
            public_symbols: Vec::new(),
        };
        for (name, f) in module.functions() {
            bb.global_names.reserve(name);
            bb.dedup.record(name, f);
        }
        for (name, _) in module_externs(&module) {
            bb.global_names.reserve(name);
        }
        bb.module = module;
        bb
    }

    // ---- blocks -------------------------------------------------------------

    fn begin(&mut self, dataflow: bool) {
        self.begin_sized(dataflow, 0);
    }

    /// Opens a block, reusing the spare storage that best fits `size`
    /// bindings, so that a warm builder does not grow a block again.
    pub(crate) fn begin_sized(&mut self, dataflow: bool, size: usize) {
        self.start_if_idle();
        // Only the few most recently freed blocks are looked at, so that
        // opening a block costs the same however many are spare.
        let fits = |f: &Frame| f.bindings.capacity() >= size;
        let recent = self.spare.len().saturating_sub(4)..self.spare.len();
        let best = recent
            .clone()
            .filter(|&i| fits(&self.spare[i]))
            .min_by_key(|&i| self.spare[i].bindings.capacity())
            .or_else(|| recent.max_by_key(|&i| self.spare[i].bindings.capacity()));
        let mut frame = match best {
            Some(i) => self.spare.swap_remove(i),
            None => Frame {
                bindings: Vec::new(),
                dataflow,
                memo: IdMap::default(),
            },
        };
        frame.dataflow = dataflow;
        // A mutator re-emits about as many bindings as the block had: room
        // for them now rather than copies as the lists double.
        frame.bindings.reserve(size);
        self.bindings.emitted.reserve(size);
        self.frames.push(frame);
    }

    /// Opens a block of the kind of `original`, sized for its bindings
    /// (what a mutator re-emitting `original` calls).
    pub fn begin_block_like(&mut self, original: &BindingBlock) {
        self.begin_sized(original.dataflow, original.bindings.len());
    }

    /// Opens a block of ordinary bindings.
    pub fn begin_binding_block(&mut self) -> Result<(), BuilderError> {
        self.begin(false);
        Ok(())
    }

    /// Opens a dataflow block (`with R.dataflow():`).
    pub fn begin_dataflow_block(&mut self) -> Result<(), BuilderError> {
        self.begin(true);
        Ok(())
    }

    /// Whether the innermost open block is a dataflow block.
    pub fn in_dataflow_block(&self) -> bool {
        self.frames.last().is_some_and(|f| f.dataflow)
    }

    fn pop_frame(&mut self) -> Result<Frame, BuilderError> {
        match self.frames.pop() {
            Some(f) => Ok(f),
            None => err("end_block without an open block"),
        }
    }

    fn recycle(&mut self, mut frame: Frame) {
        frame.bindings.clear();
        frame.memo.clear();
        self.spare.push(frame);
    }

    /// Closes the innermost block and returns it. Inside a function being
    /// built, the block also becomes part of that function's body.
    pub fn end_block(&mut self) -> Result<Node<BindingBlock>, BuilderError> {
        let mut frame = self.pop_frame()?;
        let block = Node::new(BindingBlock {
            bindings: std::mem::take(&mut frame.bindings),
            dataflow: frame.dataflow,
        });
        self.recycle(frame);
        if let Some(f) = self.functions.last_mut()
            && self.frames.len() == f.blocks_at
        {
            f.blocks.push(block.clone());
        }
        Ok(block)
    }

    /// Closes the innermost block and returns it, or `None` (allocating
    /// nothing) when it is empty.
    pub fn end_block_if_any(&mut self) -> Result<Option<Node<BindingBlock>>, BuilderError> {
        if self.frames.last().is_some_and(|f| f.bindings.is_empty()) {
            let frame = self.pop_frame()?;
            self.recycle(frame);
            return Ok(None);
        }
        self.end_block().map(Some)
    }

    /// Closes the innermost block; when it holds exactly the bindings of
    /// `original`, in order, the answer is `Keep` and nothing is allocated.
    pub fn end_block_like(
        &mut self,
        original: &Node<BindingBlock>,
    ) -> Result<ir_core::Transformed<Node<BindingBlock>>, BuilderError> {
        let frame = self
            .frames
            .last()
            .ok_or_else(|| BuilderError("end_block without an open block".into()))?;
        let same = frame.dataflow == original.dataflow
            && frame.bindings.len() == original.bindings.len()
            && frame
                .bindings
                .iter()
                .zip(&original.bindings)
                .all(|(a, b)| a.same_as(b));
        if same {
            let frame = self.pop_frame()?;
            self.recycle(frame);
            Ok(ir_core::Transformed::Keep)
        } else {
            Ok(ir_core::Transformed::Replace(self.end_block()?))
        }
    }

    fn frame(&mut self) -> Result<&mut Frame, BuilderError> {
        match self.frames.last_mut() {
            Some(f) => Ok(f),
            None => err("no open block: call begin_binding_block or begin_dataflow_block first"),
        }
    }

    // ---- emitting -------------------------------------------------------------

    fn new_var(&mut self, hint: &str, dataflow: bool, sinfo: StructInfo) -> Node<Var> {
        let hint = match hint {
            "" if dataflow => "lv",
            "" => "gv",
            h => h,
        };
        Node::new(Var {
            name: self.names.fresh(hint),
            dataflow,
            sinfo,
        })
    }

    /// Binds `value` (normalized first) to a new variable: a dataflow
    /// variable inside a dataflow block, a variable outside one. An empty
    /// hint names it `lv` / `gv` (made unique).
    pub fn emit(&mut self, value: Expr, name_hint: &str) -> Result<Node<Var>, BuilderError> {
        let dataflow = self.frame()?.dataflow;
        self.emit_var(value, name_hint, dataflow)
    }

    fn emit_var(
        &mut self,
        value: Expr,
        hint: &str,
        dataflow: bool,
    ) -> Result<Node<Var>, BuilderError> {
        let mut value = self.normalize_value(value)?;
        let sinfo = sinfo_of_owned(&mut value).map_err(BuilderError)?;
        let var = self.new_var(hint, dataflow, sinfo);
        self.push(Node::new(Binding {
            value,
            cast: None,
            var: var.clone(),
        }))?;
        Ok(var)
    }

    /// Binds `value` to a variable named exactly `name` (no name supply:
    /// what a parser needs), of struct info `annotation` if given, which
    /// must describe the value (or be described by it). `output` makes a
    /// plain variable inside a dataflow block.
    pub fn emit_named(
        &mut self,
        value: Expr,
        name: &str,
        annotation: Option<StructInfo>,
        output: bool,
    ) -> Result<Node<Var>, BuilderError> {
        let dataflow = self.frame()?.dataflow && !output;
        let mut value = self.normalize_value(value)?;
        let inferred = sinfo_of_owned(&mut value).map_err(BuilderError)?;
        let sinfo = match annotation {
            None => inferred,
            Some(a) if is_base_of(&a, &inferred) || is_base_of(&inferred, &a) => a,
            Some(_) => {
                return err(format!(
                    "the annotation of `{name}` does not match the struct info of its value"
                ));
            }
        };
        self.names.reserve(name);
        let var = Node::new(Var {
            name: name.into(),
            dataflow,
            sinfo,
        });
        self.push(Node::new(Binding {
            value,
            cast: None,
            var: var.clone(),
        }))?;
        Ok(var)
    }

    /// Binds `value` to `var`, made beforehand: a local function that calls
    /// itself names its own variable in its body (TVM's parser declares it
    /// from the signature first). The value must be described by `var`'s
    /// struct info, and `var` must be of the block's kind (a dataflow
    /// variable only inside a dataflow block).
    pub fn emit_to(&mut self, var: &Node<Var>, value: Expr) -> Result<(), BuilderError> {
        let mut value = self.normalize_value(value)?;
        let inferred = sinfo_of_owned(&mut value).map_err(BuilderError)?;
        if !is_base_of(&var.sinfo, &inferred) {
            return err(format!(
                "the value bound to `{}` does not match its declared struct info",
                var.name
            ));
        }
        self.names.reserve(&var.name);
        self.push(Node::new(Binding {
            value,
            cast: None,
            var: var.clone(),
        }))
    }

    /// `name = R.match_cast(value, sinfo)` with a variable named exactly `name`.
    pub fn emit_match_cast_named(
        &mut self,
        value: Expr,
        sinfo: StructInfo,
        name: &str,
        output: bool,
    ) -> Result<Node<Var>, BuilderError> {
        let dataflow = self.frame()?.dataflow && !output;
        let value = self.normalize_argument(value)?;
        self.names.reserve(name);
        let var = Node::new(Var {
            name: name.into(),
            dataflow,
            sinfo: sinfo.clone(),
        });
        self.push(Node::new(Binding {
            value,
            cast: Some(sinfo),
            var: var.clone(),
        }))?;
        Ok(var)
    }

    /// In a dataflow block, binds `value` to a variable visible after the
    /// block (`R.output`). An error elsewhere.
    pub fn emit_output(&mut self, value: Expr, name_hint: &str) -> Result<Node<Var>, BuilderError> {
        if !self.frame()?.dataflow {
            return err("emit_output must be called inside a dataflow block");
        }
        self.emit_var(value, name_hint, false)
    }

    /// `var = R.match_cast(value, sinfo)`: the variable gets `sinfo`.
    pub fn emit_match_cast(
        &mut self,
        value: Expr,
        sinfo: StructInfo,
        name_hint: &str,
    ) -> Result<Node<Var>, BuilderError> {
        let dataflow = self.frame()?.dataflow;
        let value = self.normalize_argument(value)?;
        let var = self.new_var(name_hint, dataflow, sinfo.clone());
        self.push(Node::new(Binding {
            value,
            cast: Some(sinfo),
            var: var.clone(),
        }))?;
        Ok(var)
    }

    /// Appends a binding that is already normalized, as it is.
    pub fn emit_normalized(&mut self, binding: Node<Binding>) -> Result<(), BuilderError> {
        self.push(binding)
    }

    fn push(&mut self, binding: Node<Binding>) -> Result<(), BuilderError> {
        let frame = self.frame()?;
        if binding.var.dataflow && !frame.dataflow {
            return err(format!(
                "Malformed AST: dataflow variable {} is bound outside a dataflow block",
                binding.var.name
            ));
        }
        self.bindings.emitted.push(binding.clone());
        self.frame()?.bindings.push(binding);
        Ok(())
    }

    /// The value bound to `var` by a binding this builder emitted since it
    /// was last idle (with no open block, scope or function): during a
    /// build or a mutator's run, any binding of it, and after one, until the
    /// next starts.
    pub fn lookup_binding(&mut self, var: &Node<Var>) -> Option<&Expr> {
        self.bindings.lookup(var)
    }

    /// A new build starts from idle: the previous one's bindings are no
    /// longer looked up (so that a builder reused by a mutator over many
    /// functions does not keep them all).
    fn start_if_idle(&mut self) {
        if self.frames.is_empty() && self.scopes.is_empty() && self.functions.is_empty() {
            self.bindings.clear();
        }
    }

    // ---- normalizing ------------------------------------------------------------

    /// `value` in A-normal form with its nested non-leaf parts bound, left to
    /// right, in the current block; the very same handle when it already is.
    pub fn normalize(&mut self, value: Expr) -> Result<Expr, BuilderError> {
        self.normalize_with_sinfo(value).map(|(e, _)| e)
    }

    /// [`Self::normalize`], with the struct info it derived for the result.
    #[inline(always)]
    pub fn normalize_with_sinfo(
        &mut self,
        value: Expr,
    ) -> Result<(Expr, StructInfo), BuilderError> {
        let mut out = self.normalize_inner(value)?;
        let sinfo = sinfo_of_owned(&mut out).map_err(BuilderError)?;
        Ok((out, sinfo))
    }

    /// [`Self::normalize`] for the mutator: the result's struct info is
    /// checked and returned, except that of a call, which remembers it
    /// (`sinfo_of` reads it back without a copy to drop).
    pub(crate) fn normalize_checked(
        &mut self,
        value: Expr,
    ) -> Result<(Expr, Option<StructInfo>), BuilderError> {
        let mut out = self.normalize_inner(value)?;
        if matches!(&out, Expr::Call(c) if c.inferred().is_some()) {
            return Ok((out, None));
        }
        let sinfo = sinfo_of_owned(&mut out).map_err(BuilderError)?;
        let remembered = matches!(&out, Expr::Call(c) if c.inferred().is_some());
        Ok((out, (!remembered).then_some(sinfo)))
    }

    /// Normalizes a value that is about to be bound: a `SeqExpr` is flattened
    /// into the current block and stands for its result.
    fn normalize_value(&mut self, value: Expr) -> Result<Expr, BuilderError> {
        if let Expr::SeqExpr(seq) = &value
            && let Some(frame) = self.frames.last()
        {
            // Blocks of another kind would split the open block: the
            // sequence is bound as it is, and flattened when the function
            // ends (`flatten_blocks`), as TVM's normalizer does.
            if seq.blocks.iter().any(|b| b.dataflow != frame.dataflow) {
                return Ok(value);
            }
            let seq = seq.clone();
            for block in &seq.blocks {
                for b in &block.bindings {
                    if b.var.dataflow && !self.in_dataflow_block() {
                        return err(format!(
                            "Malformed AST: dataflow variable {} would leak out of its block",
                            b.var.name
                        ));
                    }
                    self.push(b.clone())?;
                }
            }
            return self.normalize_value(seq.body.clone());
        }
        self.normalize_inner(value)
    }

    fn normalize_inner(&mut self, value: Expr) -> Result<Expr, BuilderError> {
        // A call of leaves (what a rewrite of a binding's value most often
        // gives) is in normal form: no stack check, no list.
        if let Expr::Call(c) = &value
            && c.args().iter().all(is_leaf)
            && !matches!(c.op(), Expr::Op(op) if super::ops::has_legalizer(op.name()))
        {
            return Ok(value);
        }
        ir_core::stack::guarded(|| match &value {
            Expr::Tuple(t) => {
                let fields = self.normalize_list(&t.fields, true)?;
                Ok(match fields {
                    Some(fields) => super::expr::Tuple { fields }.into(),
                    None => value,
                })
            }
            Expr::TupleGetItem(t) => {
                let tuple = self.normalize_arg(&t.tuple, true)?;
                Ok(if tuple.same_as(&t.tuple) {
                    value
                } else {
                    super::expr::TupleGetItem {
                        tuple,
                        index: t.index,
                    }
                    .into()
                })
            }
            Expr::Call(c) => {
                let mut args: Option<ShortVec<Expr>> = self.normalize_list(c.args(), false)?;
                if let Expr::Op(op) = c.op()
                    && super::ops::has_legalizer(op.name())
                {
                    let now = args.as_ref().map_or(c.args(), |a| a.as_slice());
                    let sinfo = now.iter().map(sinfo_of).collect::<Result<Vec<_>, _>>();
                    if let Ok(sinfo) = sinfo
                        && let Some(legal) = super::ops::legalize_call(op.name(), now, &sinfo)
                    {
                        args = Some(legal.into());
                    }
                }
                Ok(match args {
                    Some(args) => super::expr::Call::new(c.op().clone(), args)
                        .with_attrs(c.attrs().to_vec())
                        .with_sinfo_args(c.sinfo_args().to_vec())
                        .into(),
                    None => value,
                })
            }
            Expr::If(i) => {
                let cond = self.normalize_arg(&i.cond, false)?;
                let t = self.normalize_scope(&i.true_branch)?;
                let f = self.normalize_scope(&i.false_branch)?;
                Ok(
                    if cond.same_as(&i.cond)
                        && t.same_as(&i.true_branch)
                        && f.same_as(&i.false_branch)
                    {
                        value
                    } else {
                        super::expr::If {
                            cond,
                            true_branch: t,
                            false_branch: f,
                        }
                        .into()
                    },
                )
            }
            Expr::Function(func) => {
                self.scopes.push(func.params.clone());
                let body = self.normalize_scope(&func.body);
                self.scopes.pop();
                let body = body?;
                Ok(if body.same_as(&func.body) {
                    value
                } else {
                    Function {
                        body,
                        ..(**func).clone()
                    }
                    .into()
                })
            }
            Expr::SeqExpr(seq) => Ok(Expr::SeqExpr(self.normalize_scope(seq)?)),
            Expr::BindingBlock(_) | Expr::Binding(_) => {
                err("a block or binding cannot be normalized as a value")
            }
            _ => Ok(void_as_tuple(value)),
        })
    }

    /// A sequence normalized in a scope of its own: bindings its result
    /// needs go in a new last block; adjacent blocks of one kind merge and
    /// empty blocks drop.
    fn normalize_scope(&mut self, seq: &Node<SeqExpr>) -> Result<Node<SeqExpr>, BuilderError> {
        self.begin(false);
        let body = match self.normalize_argument(seq.body.clone()) {
            Ok(b) => b,
            Err(e) => {
                let frame = self.pop_frame()?;
                self.recycle(frame);
                return Err(e);
            }
        };
        let mut frame = self.pop_frame()?;
        let prologue = std::mem::take(&mut frame.bindings);
        self.recycle(frame);
        let tidy = seq
            .blocks
            .windows(2)
            .all(|w| w[0].dataflow != w[1].dataflow)
            && seq.blocks.iter().all(|b| !b.bindings.is_empty());
        if prologue.is_empty() && body.same_as(&seq.body) && tidy {
            return Ok(seq.clone());
        }
        let mut blocks: Vec<Node<BindingBlock>> = Vec::with_capacity(seq.blocks.len() + 1);
        let extra = (!prologue.is_empty()).then(|| {
            Node::new(BindingBlock {
                bindings: prologue,
                dataflow: false,
            })
        });
        for block in seq.blocks.iter().chain(extra.as_ref()) {
            if block.bindings.is_empty() {
                continue;
            }
            match blocks.last_mut() {
                Some(last) if last.dataflow == block.dataflow => {
                    let mut merged = last.bindings.clone();
                    merged.extend(block.bindings.iter().cloned());
                    *last = Node::new(BindingBlock {
                        bindings: merged,
                        dataflow: block.dataflow,
                    });
                }
                _ => blocks.push(block.clone()),
            }
        }
        // A sequence bound unflattened (it would have split its block).
        let blocks = super::flatten::flatten_blocks(blocks)?;
        Ok(Node::new(SeqExpr { blocks, body }))
    }

    /// Normalizes each element; `None` when none changed. `L` is the list
    /// type the caller stores (a tuple's `Vec`, a call's `ShortVec`).
    fn normalize_list<L: Default + Extend<Expr>>(
        &mut self,
        items: &[Expr],
        tuple: bool,
    ) -> Result<Option<L>, BuilderError> {
        let mut out: Option<L> = None;
        for (i, item) in items.iter().enumerate() {
            // A leaf stays as it is: no handle is taken to find that out.
            if is_leaf(item) {
                if let Some(out) = &mut out {
                    out.extend([item.clone()]);
                }
                continue;
            }
            let new = self.normalize_arg(item, tuple)?;
            if let Some(out) = &mut out {
                out.extend([new]);
            } else if !new.same_as(item) {
                let mut v = L::default();
                v.extend(items[..i].iter().cloned().chain([new]));
                out = Some(v);
            }
        }
        Ok(out)
    }

    /// A tuple field (`in_tuple`) may itself be a tuple; other arguments are
    /// leaves or variables.
    fn normalize_arg(&mut self, e: &Expr, in_tuple: bool) -> Result<Expr, BuilderError> {
        if in_tuple && let Expr::Tuple(_) = e {
            return self.normalize_inner(e.clone());
        }
        self.normalize_argument(e.clone())
    }

    /// An argument position: a leaf or a tuple stays, anything else is bound
    /// to a new variable, once per node and block (the same node twice gives
    /// one binding; two equal nodes give two).
    pub fn normalize_argument(&mut self, e: Expr) -> Result<Expr, BuilderError> {
        if is_leaf(&e) {
            return Ok(void_as_tuple(e));
        }
        if let Expr::Tuple(_) = e {
            return self.normalize_inner(e);
        }
        let key = e.id();
        if let Some(frame) = self.frames.last()
            && let Some((node, var)) = frame.memo.get(&key)
            && node.same_as(&e)
        {
            return Ok(var.clone().into());
        }
        if self.frames.is_empty() {
            return err("a nested expression needs a block to be bound in");
        }
        let var = self.emit(e.clone(), "")?;
        self.frame()?.memo.insert(key, (e, var.clone()));
        Ok(var.into())
    }

    /// The struct info of `e`.
    pub fn sinfo_of(&self, e: &Expr) -> Result<StructInfo, BuilderError> {
        sinfo_of(e).map_err(BuilderError)
    }

    // ---- scopes and functions ----------------------------------------------------

    /// A parameter variable (defined where a function lists it).
    pub fn param(&mut self, name: &str, sinfo: StructInfo) -> Node<Var> {
        Node::new(Var {
            name: name.into(),
            dataflow: false,
            sinfo,
        })
    }

    /// Opens a function scope over `params` (TVM's `BeginScope`).
    pub fn begin_scope(&mut self, params: &[Node<Var>]) {
        self.start_if_idle();
        let mut scope = self.spare_scopes.pop().unwrap_or_default();
        scope.extend_from_slice(params);
        self.scopes.push(scope);
    }

    /// Closes the innermost function scope.
    pub fn end_scope(&mut self) -> Result<(), BuilderError> {
        match self.scopes.pop() {
            Some(mut scope) => {
                scope.clear();
                self.spare_scopes.push(scope);
                Ok(())
            }
            None => err("end_scope without begin_scope"),
        }
    }

    /// Starts building function `name` (Python's `with bb.function(...)`).
    pub fn begin_function(
        &mut self,
        name: &str,
        params: Vec<Node<Var>>,
    ) -> Result<(), BuilderError> {
        self.begin_function_with(name, params, false)
    }

    /// Starts building a private function (`bb.function(..., private=True)`):
    /// its name is not a symbol of the module, and `finalize` renames it when
    /// a public function wants it.
    pub fn begin_private_function(
        &mut self,
        name: &str,
        params: Vec<Node<Var>>,
    ) -> Result<(), BuilderError> {
        self.begin_function_with(name, params, true)
    }

    fn begin_function_with(
        &mut self,
        name: &str,
        params: Vec<Node<Var>>,
        private: bool,
    ) -> Result<(), BuilderError> {
        self.start_if_idle();
        self.scopes.push(params.clone());
        self.functions.push(FunctionFrame {
            name: name.into(),
            private,
            params,
            blocks_at: self.frames.len(),
            blocks: Vec::new(),
            output: None,
        });
        Ok(())
    }

    /// Sets the result of the function being built; once per function.
    pub fn emit_func_output(&mut self, output: Expr) -> Result<(), BuilderError> {
        let Some(f) = self.functions.last_mut() else {
            return err("emit_func_output must be called in a relax function");
        };
        if f.output.is_some() {
            return err("emit_func_output must be called exactly once in a relax function");
        }
        f.output = Some(output);
        self.end_function().map(|_| ())
    }

    /// Finishes the function being built and adds it to the module. An
    /// error (no output, blocks left open) unwinds the builder's stacks, so
    /// the builder can be used again.
    pub fn end_function(&mut self) -> Result<Node<GlobalVar>, BuilderError> {
        let Some(f) = self.functions.pop() else {
            return err("end_function without begin_function");
        };
        self.scopes.pop();
        let result = self.finish_function(f);
        if result.is_err() {
            self.unwind();
        }
        result
    }

    fn finish_function(&mut self, mut f: FunctionFrame) -> Result<Node<GlobalVar>, BuilderError> {
        let Some(output) = f.output.take() else {
            self.truncate_frames(f.blocks_at);
            return err("emit_func_output must be called in a relax function");
        };
        if self.frames.len() > f.blocks_at {
            self.truncate_frames(f.blocks_at);
            return err("a block is still open at the end of the function");
        }
        // The output's own nested parts go in a last block.
        self.begin(false);
        // A result that is not a leaf or a tuple is bound, as in TVM.
        let body = self
            .normalize_value(output)
            .and_then(|v| self.normalize_argument(v));
        let mut frame = self.pop_frame()?;
        let body = body?;
        if !frame.bindings.is_empty() {
            f.blocks.push(Node::new(BindingBlock {
                bindings: std::mem::take(&mut frame.bindings),
                dataflow: false,
            }));
        }
        self.recycle(frame);
        let ret_sinfo = sinfo_of(&body).map_err(BuilderError)?;
        let body = Node::new(SeqExpr {
            blocks: super::flatten::flatten_blocks(f.blocks)?,
            body,
        });
        let func = Node::new(Function {
            params: f.params,
            body,
            ret_sinfo,
            pure: true,
            private: f.private,
            attrs: Vec::new(),
        });
        self.add_function(func, &f.name)
    }

    fn truncate_frames(&mut self, len: usize) {
        while self.frames.len() > len {
            if let Some(frame) = self.frames.pop() {
                self.recycle(frame);
            }
        }
    }

    /// Drops every open block, scope and function: the state after a
    /// failed build, ready to be used again.
    pub fn unwind(&mut self) {
        self.truncate_frames(0);
        self.scopes.clear();
        self.functions.clear();
    }

    // ---- the module ------------------------------------------------------------------

    /// The module as built so far (shares its functions with the builder's).
    pub fn context_module(&self) -> &RelaxModule {
        &self.module
    }

    /// Adds `func` under a fresh name from `name_hint`; a function
    /// structurally equal to one already there is not added again, and the
    /// existing name comes back.
    pub fn add_function(
        &mut self,
        func: Node<Function>,
        name_hint: &str,
    ) -> Result<Node<GlobalVar>, BuilderError> {
        if let Some(name) = self.dedup.find(&func) {
            let name = name.to_owned();
            return Ok(self.global_var(&name));
        }
        let name = self.global_names.fresh(name_hint).to_string();
        self.module
            .add_function(&name, func.clone())
            .map_err(|e| BuilderError(e.to_string()))?;
        self.dedup.record(&name, &func);
        if !func.private && name != name_hint {
            // A public function's name is its symbol: `finalize` gives it
            // back, renaming a private function that holds it.
            self.public_symbols
                .push((name.clone(), name_hint.to_owned()));
        }
        Ok(self.global_var(&name))
    }

    /// Replaces the function named by `gv`.
    pub fn update_function(
        &mut self,
        gv: &Node<GlobalVar>,
        func: Node<Function>,
    ) -> Result<(), BuilderError> {
        let Some(old) = self.module.get(&gv.name).cloned() else {
            return err(format!("function {} is not in the module", gv.name));
        };
        self.dedup.forget(&gv.name, &old);
        self.module
            .update_function(&gv.name, func.clone())
            .map_err(|e| BuilderError(e.to_string()))?;
        self.dedup.record(&gv.name, &func);
        Ok(())
    }

    /// A reference to the global function `name`, with its struct info.
    pub fn global_var(&self, name: &str) -> Node<GlobalVar> {
        let sinfo = self.module.get(name).map(|f| -> StructInfo {
            FuncStructInfo {
                params: Some(f.params.iter().map(|p| p.sinfo.clone()).collect()),
                ret: f.ret_sinfo.clone(),
                pure: f.pure,
            }
            .into()
        });
        let sinfo = sinfo.or_else(|| is_global(&self.module, name).then(extern_sinfo));
        Node::new(GlobalVar {
            name: name.into(),
            sinfo,
        })
    }

    /// The finished module; an error while a block or function is open.
    ///
    /// A public function added under a name a private function already held
    /// got a fresh name then; here it takes its own name back, and the
    /// private function a fresh one, every reference renamed (TVM's
    /// `NormalizeGlobalVar`). Two public functions of one name are an error.
    pub fn finalize(&mut self) -> Result<RelaxModule, BuilderError> {
        if !self.frames.is_empty() || !self.functions.is_empty() {
            self.unwind();
            return err("finalize with a block or function still open");
        }
        let mut renames: FxHashMap<String, String> = FxHashMap::default();
        for (key, symbol) in std::mem::take(&mut self.public_symbols) {
            if self.module.get(&key).is_none_or(|f| f.private) {
                continue;
            }
            let holder_renamed = renames.contains_key(&symbol);
            match self.module.get(&symbol) {
                Some(holder) if !holder.private && !holder_renamed => {
                    return err(format!(
                        "two public functions are named {symbol} (the second was added as {key})"
                    ));
                }
                // A private function, or an external one (which has no
                // public symbol either, as in TVM's NormalizeGlobalVar).
                _ if !holder_renamed && is_global(&self.module, &symbol) => {
                    let fresh = self.global_names.fresh(&symbol).to_string();
                    renames.insert(symbol.clone(), fresh);
                }
                _ => {}
            }
            renames.insert(key, symbol);
        }
        if !renames.is_empty() {
            self.module = rename_globals(&self.module, &renames)?;
            self.dedup.clear();
            let functions: Vec<_> = self
                .module
                .functions()
                .map(|(n, f)| (n.to_owned(), f.clone()))
                .collect();
            for (name, f) in &functions {
                self.dedup.record(name, f);
            }
        }
        Ok(self.module.clone())
    }

    /// Whether two shapes are equal for every value of their symbolic
    /// variables, as far as can be proven (never a false yes).
    pub fn can_prove_shape_equal(&self, a: &[PrimExpr], b: &[PrimExpr]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| can_prove_equal(x, y))
    }

    /// Whether `base` describes every value `derived` does (TVM's `IsBaseOf`).
    pub fn is_base_of(&self, base: &StructInfo, derived: &StructInfo) -> bool {
        is_base_of(base, derived)
    }
}

/// A use of a variable holding nothing (an effect's result, such as
/// `R.print`'s) is the empty tuple itself, as TVM's normalizer makes it: the
/// binding of the effect is then used by nothing and prints as a bare
/// statement. Dataflow variables are left alone, as TVM leaves them.
fn void_as_tuple(e: Expr) -> Expr {
    match &e {
        Expr::Var(v) if !v.dataflow && v.sinfo.is_void() => Expr::tuple(Vec::new()),
        _ => e,
    }
}

/// Leaves stay in argument positions: constants, variables, shapes, scalars,
/// strings, globals, operators and external functions.
pub fn is_leaf(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Constant(_)
            | Expr::Var(_)
            | Expr::ShapeExpr(_)
            | Expr::PrimValue(_)
            | Expr::StringImm(_)
            | Expr::DataTypeImm(_)
            | Expr::GlobalVar(_)
            | Expr::Op(_)
            | Expr::ExternFunc(_)
    )
}

#[cfg(test)]
mod tests {
    use super::NameSupply;

    #[test]
    fn names_are_unique_whether_given_verbatim_or_by_a_counter() {
        let mut names = NameSupply::default();
        let given: Vec<String> = ["lv", "lv", "lv", "lv1", "lv11", "lv", "x0", "x", "x"]
            .iter()
            .map(|hint| names.fresh(hint).to_string())
            .collect();
        // `lv1` is the counter's; asked verbatim it gets a counter of its
        // own (`lv11`), which `lv11` then finds taken (`lv111`).
        assert_eq!(
            given,
            ["lv", "lv1", "lv2", "lv11", "lv111", "lv3", "x0", "x", "x1"]
        );
        names.reserve("lv4");
        assert_eq!(names.fresh("lv"), "lv5");
        // A number with a leading zero is no counter's.
        assert_eq!(names.fresh("lv05"), "lv05");
        // An empty hint, with counters of digit-ending hints about.
        assert_eq!(names.fresh(""), "");
        assert_eq!(names.fresh(""), "1");
    }
}
