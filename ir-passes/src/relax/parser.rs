//! A parser for TVMScript (Relax): modules `@I.ir_module class Module:` of
//! `@R.function`s, as TVM prints them and as TVM's tests write them
//! (`R.Tensor((2, "n"), "float32")`, `n = T.int64()`, `R.Object`).
//!
//! The program is built through the [`BlockBuilder`], as TVM's parser does:
//! nested calls are bound, struct info is inferred and checked against the
//! annotations. Errors give `line:col` and what was expected; nothing
//! panics, and nesting is bounded by the stack guard.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use ir_core::{Node, ShortVec};
use rustc_hash::FxHashMap;

use super::builder::{BlockBuilder, BuilderError, is_leaf};
use super::dtype::DataType;
use super::expr::{
    AttrValue, Attrs, BindingBlock, ConstData, Constant, Expr, ExternFunc, Function, GlobalVar,
    SeqExpr, Var,
};
use super::lexer::{LexError, Lexer, LineSkim, Pos, Tok};
use super::module::{RelaxModule, add_externs, extern_sinfo};
use super::ops;
use super::prim::{BinOp, PrimExpr, PrimVar};
use super::sinfo::{FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo};

/// A parse error: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

type PResult<T> = Result<T, ParseError>;

/// Parses a module (`@I.ir_module class Module:`), or a lone
/// `@R.function`, which becomes a module of that one function.
///
/// ```
/// use ir_passes::relax::{parse_module, print_module};
///
/// let text = r#"# from tvm.script import ir as I
/// ## from tvm.script import relax as R
///
/// @I.ir_module
/// class Module:
///     @R.function
///     def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
///         with R.dataflow():
///             lv: R.Tensor((2, 3), dtype="float32") = R.add(x, x)
///             gv: R.Tensor((2, 3), dtype="float32") = R.exp(lv)
///             R.output(gv)
///         return gv"#;
/// assert_eq!(print_module(&parse_module(text).unwrap()), text);
/// ```
pub fn parse_module(text: &str) -> Result<RelaxModule, ParseError> {
    let mut p = Parser::new(Lexer::new(text));
    let r = p.module();
    p.first_error(r)
}

/// How many tokens the parser sees ahead of the one at hand (the longest
/// fixed look-ahead, `n = T.int64()`, is seven tokens).
const LOOK_AHEAD: usize = 8;

struct Parser<'a> {
    /// Where the tokens after `ahead` come from.
    lexer: Lexer<'a>,
    /// The token at hand and the next ones: always `LOOK_AHEAD` of them.
    ahead: VecDeque<(Tok<'a>, Pos)>,
    /// The first lexing error met; the tokens after it read as `Eof`.
    lex_error: Option<LexError>,
    bb: BlockBuilder,
    /// Global function name -> its signature.
    globals: FxHashMap<String, StructInfo>,
    /// Where the module's functions start (line offset and number) and
    /// their indentation, until their signatures are read.
    members: Option<(usize, u32, usize)>,
    /// `Module` in `class Module:`.
    class_name: Option<String>,
    /// Parsing an `else` branch (its result is bound as `y_else`).
    in_else: bool,
}

/// Names in scope inside a function.
#[derive(Default)]
struct Scope {
    vars: Vec<FxHashMap<String, Node<Var>>>,
    symbolic: FxHashMap<String, Node<PrimVar>>,
}

impl Scope {
    fn lookup(&self, name: &str) -> Option<&Node<Var>> {
        self.vars.iter().rev().find_map(|m| m.get(name))
    }
    fn bind(&mut self, name: &str, v: Node<Var>) {
        if let Some(top) = self.vars.last_mut() {
            top.insert(name.to_owned(), v);
        }
    }
    fn symbolic(&mut self, name: &str) -> PrimExpr {
        self.symbolic
            .entry(name.to_owned())
            .or_insert_with(|| PrimExpr::var(name))
            .clone()
            .into()
    }
}

impl<'a> Parser<'a> {
    fn new(lexer: Lexer<'a>) -> Self {
        let mut p = Parser {
            lexer,
            ahead: VecDeque::with_capacity(LOOK_AHEAD),
            lex_error: None,
            bb: BlockBuilder::new(),
            globals: FxHashMap::default(),
            members: None,
            class_name: None,
            in_else: false,
        };
        while p.ahead.len() < LOOK_AHEAD {
            p.lex_one();
        }
        p
    }

    /// The parse's result, unless the text does not lex: a lexing error
    /// is reported first, wherever it is (the tokens after one read as
    /// the end of the input, and a parse that failed earlier never met it:
    /// the rest of the text is lexed to find one).
    fn first_error<T>(&mut self, r: PResult<T>) -> PResult<T> {
        if r.is_err() && self.lex_error.is_none() {
            loop {
                match self.lexer.next() {
                    Ok((Tok::Eof, _)) => break,
                    Ok(_) => {}
                    Err(e) => {
                        self.lex_error = Some(e);
                        break;
                    }
                }
            }
        }
        match self.lex_error.take() {
            Some(e) => Err(ParseError {
                line: e.pos.line,
                col: e.pos.col,
                message: e.message,
            }),
            None => r,
        }
    }

    // ---- tokens ----------------------------------------------------------------

    /// Lexes one more token into the look-ahead.
    fn lex_one(&mut self) {
        let t = match self.lexer.next() {
            Ok(t) => t,
            Err(e) => {
                let at = (Tok::Eof, e.pos);
                self.lex_error.get_or_insert(e);
                at
            }
        };
        self.ahead.push_back(t);
    }

    fn peek(&self) -> &Tok<'a> {
        &self.ahead[0].0
    }

    /// The token `k` after the one at hand (`k < LOOK_AHEAD`).
    fn peek_at(&self, k: usize) -> &Tok<'a> {
        &self.ahead[k].0
    }

    fn pos(&self) -> Pos {
        self.ahead[0].1
    }

    fn bump(&mut self) -> Tok<'a> {
        if matches!(self.peek(), Tok::Eof) {
            return Tok::Eof;
        }
        self.lex_one();
        self.ahead.pop_front().map_or(Tok::Eof, |(t, _)| t)
    }

    /// The tokens from the one at hand to the end of the text, lexed by a
    /// copy of the lexer (for look-ahead past `LOOK_AHEAD`). A lexing error
    /// ends them; the parse meets it in its turn.
    fn tokens_ahead(&self) -> impl Iterator<Item = Tok<'a>> + '_ {
        let mut lexer = self.lexer.clone();
        let mut ended = false;
        let rest = std::iter::from_fn(move || {
            if ended {
                return None;
            }
            match lexer.next() {
                Ok((Tok::Eof, _)) | Err(_) => {
                    ended = true;
                    Some(Tok::Eof)
                }
                Ok((t, _)) => Some(t),
            }
        });
        self.ahead
            .iter()
            .map(|(t, _)| t.clone())
            .take_while(|t| !matches!(t, Tok::Eof))
            .chain(rest)
    }

    fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        let pos = self.pos();
        Err(ParseError {
            line: pos.line,
            col: pos.col,
            message: message.into(),
        })
    }

    fn expected<T>(&self, what: &str) -> PResult<T> {
        self.error(format!("expected {what}, found {}", self.peek()))
    }

    fn builder_error<T>(&self, pos: Pos, e: BuilderError) -> PResult<T> {
        Err(ParseError {
            line: pos.line,
            col: pos.col,
            message: e.0,
        })
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.expected(&format!("`{p}`"))
        }
    }

    fn is_name(&self, n: &str) -> bool {
        matches!(self.peek(), Tok::Name(m) if *m == n)
    }

    fn name(&mut self) -> PResult<&'a str> {
        match self.peek().clone() {
            Tok::Name(n) => {
                self.bump();
                Ok(n)
            }
            _ => self.expected("a name"),
        }
    }

    fn keyword(&mut self, k: &str) -> PResult<()> {
        if self.is_name(k) {
            self.bump();
            Ok(())
        } else {
            self.expected(&format!("`{k}`"))
        }
    }

    fn newline(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline => {
                self.bump();
                Ok(())
            }
            Tok::Eof | Tok::Dedent => Ok(()),
            _ => self.expected("the end of the line"),
        }
    }

    /// `R.` `name` (`R.nn.relu` gives `nn.relu`).
    fn dotted_after(&mut self) -> PResult<String> {
        let mut name = self.name()?.to_owned();
        while self.is_punct(".") {
            self.bump();
            name.push('.');
            name.push_str(self.name()?);
        }
        Ok(name)
    }

    /// Whether the next tokens are `prefix . name`.
    fn at_qualified(&self, prefix: &str, name: &str) -> bool {
        matches!(self.peek(), Tok::Name(p) if *p == prefix)
            && matches!(self.peek_at(1), Tok::Punct("."))
            && matches!(self.peek_at(2), Tok::Name(n) if *n == name)
    }

    /// `prefix.name` (`R.dataflow`), else an error that `expected` was.
    fn qualified(&mut self, prefix: &str, name: &str, expected: &str) -> PResult<()> {
        if !self.at_qualified(prefix, name) {
            return self.expected(expected);
        }
        for _ in 0..3 {
            self.bump();
        }
        Ok(())
    }

    // ---- module ---------------------------------------------------------------------

    fn module(&mut self) -> PResult<RelaxModule> {
        // `n = TypeVar("n")` and imports before the decorator.
        while !self.is_punct("@") {
            match self.peek() {
                Tok::Newline => {
                    self.bump();
                }
                Tok::Name(n) if *n == "import" || *n == "from" => self.skip_line(),
                Tok::Name(_) if matches!(self.peek_at(1), Tok::Punct("=")) => self.skip_line(),
                _ => return self.expected("`@I.ir_module` or `@R.function`"),
            }
        }
        let mut module = RelaxModule::new();
        if self.at_qualified_decorator("I", "ir_module") {
            self.bump();
            self.bump();
            self.bump();
            self.bump();
            self.newline()?;
            self.keyword("class")?;
            self.class_name = Some(self.name()?.to_owned());
            self.punct(":")?;
            self.newline()?;
            if !matches!(self.peek(), Tok::Indent) {
                return self.expected("the functions of the module, indented");
            }
            self.bump();
            // A function may call one defined below it: the first such
            // call reads the signatures of all (`scan_signatures`).
            self.members = Some(self.line_at_hand());
            // Added once read, as one table.
            let mut externs = BTreeMap::new();
            loop {
                let at = self.pos();
                let (name, member) = if self.is_punct("@") {
                    let (name, f, _) = self.function(&mut Scope::default(), None)?;
                    (name, Member::Function(f))
                } else if matches!(self.peek(), Tok::Name(_))
                    && matches!(self.peek_at(1), Tok::Punct("="))
                {
                    let (name, f) = self.extern_global()?;
                    (name, Member::Extern(f))
                } else {
                    break;
                };
                if module.contains(&name) || externs.contains_key(&name) {
                    return Err(ParseError {
                        line: at.line,
                        col: at.col,
                        message: format!("`{name}` is defined twice in the module"),
                    });
                }
                match member {
                    Member::Function(f) => {
                        let _ = module.add_function(&name, f);
                    }
                    Member::Extern(f) => {
                        externs.insert(name, f);
                    }
                }
            }
            match self.peek() {
                Tok::Dedent => {
                    self.bump();
                }
                Tok::Eof => {}
                _ => {
                    return self.expected(
                        "`@R.function`, `name = R.ExternFunc(...)` or the end of the module",
                    );
                }
            }
            let _ = add_externs(&mut module, externs);
        } else {
            let (name, f, _) = self.function(&mut Scope::default(), None)?;
            let _ = module.add_function(&name, f);
        }
        while matches!(self.peek(), Tok::Newline | Tok::Dedent) {
            self.bump();
        }
        if !matches!(self.peek(), Tok::Eof) {
            return self.expected("the end of the input");
        }
        Ok(module)
    }

    /// `name = R.ExternFunc("symbol")`, a line of a module's class: an
    /// external function the module's functions call as `cls.name(...)`.
    fn extern_global(&mut self) -> PResult<(String, Node<ExternFunc>)> {
        let name = self.name()?.to_owned();
        self.punct("=")?;
        self.qualified("R", "ExternFunc", "`R.ExternFunc(\"symbol\")`")?;
        let symbol = self.extern_symbol()?;
        self.newline()?;
        self.globals.insert(name.clone(), extern_sinfo());
        Ok((name, Node::new(ExternFunc { name: symbol })))
    }

    /// `("symbol")`, after `R.ExternFunc`.
    fn extern_symbol(&mut self) -> PResult<String> {
        self.punct("(")?;
        let symbol = match self.peek() {
            Tok::Str(s) => s.clone().into_owned(),
            _ => return self.expected("the external function's symbol, a string"),
        };
        self.bump();
        self.punct(")")?;
        Ok(symbol)
    }

    fn at_qualified_decorator(&self, prefix: &str, name: &str) -> bool {
        matches!(self.peek(), Tok::Punct("@"))
            && matches!(self.peek_at(1), Tok::Name(p) if *p == prefix)
            && matches!(self.peek_at(2), Tok::Punct("."))
            && matches!(self.peek_at(3), Tok::Name(n) if *n == name)
    }

    fn skip_line(&mut self) {
        while !matches!(self.peek(), Tok::Newline | Tok::Eof) {
            self.bump();
        }
        self.bump();
    }

    /// Where the line of the token at hand starts, its number, and its
    /// indentation's width.
    fn line_at_hand(&self) -> (usize, u32, usize) {
        let text = self.lexer.text();
        let pos = self.pos();
        let start = text[..pos.offset].rfind('\n').map_or(0, |i| i + 1);
        let width = LineSkim::new(text, start, pos.line)
            .next()
            .and_then(|l| l.width)
            .unwrap_or(0);
        (start, pos.line, width)
    }

    /// The signature of the module's function `name`. One defined below
    /// the function at hand is not known yet: the first time one is asked
    /// for, the headers of all are read, skimming the bodies.
    fn global(&mut self, name: &str) -> PResult<Option<StructInfo>> {
        if !self.globals.contains_key(name) {
            self.scan_signatures()?;
        }
        Ok(self.globals.get(name).cloned())
    }

    /// Reads the headers of the module's functions (`members`: where they
    /// start, and their indentation).
    fn scan_signatures(&mut self) -> PResult<()> {
        let Some((offset, line_no, width)) = self.members.take() else {
            return Ok(());
        };
        let text = self.lexer.text();
        for line in LineSkim::new(text, offset, line_no) {
            match line.width {
                Some(w) if w < width => break,
                // An external function (`name = R.ExternFunc(...)`): known
                // by its name.
                Some(w)
                    if w == width
                        && let Some((name, value)) = line.content.split_once('=')
                        && value.trim_start().starts_with("R.ExternFunc") =>
                {
                    self.globals
                        .entry(name.trim().to_owned())
                        .or_insert_with(extern_sinfo);
                }
                Some(w) if w == width && line.content.starts_with('@') => {
                    let lexer = Lexer::resume(text, line.offset, line.line_no, vec![0, width]);
                    let mut header = Parser::new(lexer);
                    header.class_name = self.class_name.clone();
                    let r = header.header(&mut Scope::default());
                    let (name, params, ret, pure, _) = header.first_error(r)?;
                    self.globals
                        .entry(name.to_owned())
                        .or_insert_with(|| signature(&params, ret, pure));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `@R.function(...)` `def name(params) -> ret:` NEWLINE; the body's
    /// indent is next.
    #[allow(clippy::type_complexity)]
    fn header(
        &mut self,
        scope: &mut Scope,
    ) -> PResult<(&'a str, Vec<Node<Var>>, Option<StructInfo>, bool, bool)> {
        if !self.at_qualified_decorator("R", "function") {
            return self.expected("`@R.function`");
        }
        for _ in 0..4 {
            self.bump();
        }
        let (mut pure, mut private) = (true, false);
        if self.eat_punct("(") {
            while !self.is_punct(")") {
                let key = self.name()?;
                self.punct("=")?;
                let value = match self.name()? {
                    "True" => true,
                    "False" => false,
                    _ => return self.error("expected `True` or `False`"),
                };
                match key {
                    "pure" => pure = value,
                    "private" => private = value,
                    _ => return self.error(format!("unknown function option `{key}`")),
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.punct(")")?;
        }
        self.newline()?;
        self.keyword("def")?;
        let name = self.name()?;
        self.punct("(")?;
        let mut params = Vec::new();
        scope.vars.push(FxHashMap::default());
        while !self.is_punct(")") {
            let pname = self.name()?;
            self.punct(":")?;
            let sinfo = self.annotation(scope)?;
            let v = Node::new(Var {
                name: pname.into(),
                dataflow: false,
                sinfo,
            });
            scope.bind(pname, v.clone());
            params.push(v);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.punct(")")?;
        let ret = if self.eat_punct("->") {
            Some(self.annotation(scope)?)
        } else {
            None
        };
        self.punct(":")?;
        self.newline()?;
        Ok((name, params, ret, pure, private))
    }

    /// A nested function (`@R.function def name(...)` in a body), bound to
    /// a variable of its name; in a dataflow block, one of `outputs` is an
    /// output.
    fn local_function(&mut self, scope: &mut Scope, outputs: &[&str]) -> PResult<()> {
        let pos = self.pos();
        let in_dataflow = self.bb.in_dataflow_block();
        let (name, f, itself) = self.function(scope, Some((in_dataflow, outputs)))?;
        let output = outputs.contains(&name.as_str());
        let v = match itself {
            Some(v) => self
                .bb
                .emit_to(&v, Expr::Function(f))
                .map(|()| v)
                .or_else(|e| self.builder_error(pos, e))?,
            None => self
                .bb
                .emit_named(Expr::Function(f), &name, None, output)
                .or_else(|e| self.builder_error(pos, e))?,
        };
        scope.bind(&name, v);
        Ok(())
    }

    /// A function: a module's (`local` is `None`), which is known to the
    /// calls in its body and below by its signature, or a nested one,
    /// whose variable (of that kind: dataflow or not) is known in its own
    /// body when its result is annotated, so that it can call itself; the
    /// variable is returned then.
    fn function(
        &mut self,
        outer: &mut Scope,
        local: Option<(bool, &[&str])>,
    ) -> PResult<(String, Node<Function>, Option<Node<Var>>)> {
        let global = local.is_none();
        ir_core::stack::guarded(|| {
            // A nested function sees the enclosing names.
            let mut scope = Scope {
                vars: outer.vars.clone(),
                symbolic: outer.symbolic.clone(),
            };
            let (name, params, ret, pure, private) = self.header(&mut scope)?;
            if global && !self.globals.contains_key(name) {
                let sig = signature(&params, ret.clone(), pure);
                self.globals.insert(name.to_owned(), sig);
            }
            // (A parameter of the function's own name hides it.)
            let shadowed = params.iter().any(|p| p.name == name);
            let itself = match (local, &ret) {
                (Some((in_dataflow, outputs)), Some(_)) if !shadowed => {
                    let dataflow = in_dataflow && !outputs.contains(&name);
                    let v = Node::new(Var {
                        name: name.into(),
                        dataflow,
                        sinfo: signature(&params, ret.clone(), pure),
                    });
                    scope.bind(name, v.clone());
                    Some(v)
                }
                _ => None,
            };
            if !matches!(self.peek(), Tok::Indent) {
                return self.expected("the function's body, indented");
            }
            self.bump();
            self.bb.begin_scope(&params);
            let body = self.body(&mut scope, BodyEnd::Return);
            let _ = self.bb.end_scope();
            let (seq, attrs) = match body {
                Ok(b) => b,
                Err(e) => {
                    self.bb.unwind();
                    return Err(e);
                }
            };
            let inferred =
                super::infer::sinfo_of(&seq.body).unwrap_or_else(|_| StructInfo::object());
            // As TVM's `Function` constructor: the body's struct info (made
            // well defined by the parameters) when the declared result
            // describes it, for it may be finer. A function's result is
            // kept as declared: comparing signatures at every level of
            // nested functions would cost the square of their depth.
            let ret_sinfo = match ret {
                // A recursive local function's variable carries the declared
                // signature, which its calls were checked against.
                Some(declared)
                    if itself.is_some()
                        || declared.same_as(&inferred)
                        || matches!(inferred, StructInfo::FuncStructInfo(_)) =>
                {
                    declared
                }
                Some(declared) if !super::sinfo::is_base_of(&declared, &inferred) => declared,
                _ => super::erase::function_result(&inferred, &params),
            };
            let f = Function {
                params,
                body: Node::new(seq),
                ret_sinfo,
                pure,
                private,
                attrs,
            };
            Ok((name.to_owned(), Node::new(f), itself))
        })
    }

    /// Statements up to the block's end: bindings (grouped into blocks),
    /// then `return value` (a function) or a last binding (an `if` branch,
    /// whose value is the branch's result).
    fn body(&mut self, scope: &mut Scope, end: BodyEnd<'_>) -> PResult<(SeqExpr, Attrs)> {
        let mut blocks: Vec<Node<BindingBlock>> = Vec::new();
        let mut attrs = Attrs::new();
        let mut plain_open = false;
        scope.vars.push(FxHashMap::default());
        let result = loop {
            let pos = self.pos();
            match self.peek().clone() {
                Tok::Dedent | Tok::Eof => {
                    break match end {
                        BodyEnd::Return => {
                            self.error("expected `return` at the end of the function")
                        }
                        BodyEnd::Branch(_) => {
                            self.error("a branch ends with a binding of the `if`'s variable")
                        }
                    };
                }
                Tok::Newline => {
                    self.bump();
                }
                Tok::Name("return") => {
                    self.bump();
                    let value = self.expr_top(scope)?;
                    self.newline()?;
                    self.close_plain(&mut blocks, &mut plain_open)?;
                    let value = self.in_block(&mut blocks, |p| {
                        p.bb.normalize_argument(value)
                            .or_else(|e| p.builder_error(pos, e))
                    })?;
                    break Ok(value);
                }
                Tok::Name("with") => {
                    self.close_plain(&mut blocks, &mut plain_open)?;
                    let block = self.dataflow_block(scope)?;
                    if !block.bindings.is_empty() {
                        blocks.push(block);
                    }
                }
                Tok::Name("if") => {
                    if !plain_open {
                        let _ = self.bb.begin_binding_block();
                        plain_open = true;
                    }
                    self.if_stmt(scope, false)?;
                }
                Tok::Punct("@") => {
                    if !plain_open {
                        let _ = self.bb.begin_binding_block();
                        plain_open = true;
                    }
                    self.local_function(scope, &[])?;
                }
                _ if self.at_qualified("R", "func_attr") => {
                    attrs = self.func_attr()?;
                }
                Tok::Name(n)
                    if matches!(self.peek_at(1), Tok::Punct("="))
                        && (self.class_name.as_deref() == Some(n)
                            || matches!(self.peek_at(2), Tok::Name(c) if Some(*c) == self.class_name.as_deref()))
                        && matches!(self.peek_at(3), Tok::Newline | Tok::Dedent | Tok::Eof) =>
                {
                    // `cls = Module`.
                    self.skip_line();
                }
                Tok::Name(n)
                    if matches!(self.peek_at(1), Tok::Punct("=")) && self.at_symbolic_decl() =>
                {
                    scope.symbolic(n);
                    self.skip_line();
                }
                // `m = TypeVar("m")` before a nested function whose
                // signature introduces `m`: the signature defines it.
                Tok::Name(_)
                    if matches!(self.peek_at(1), Tok::Punct("="))
                        && matches!(self.peek_at(2), Tok::Name("TypeVar")) =>
                {
                    self.skip_line();
                }
                Tok::Name(_) if self.at_expression_statement() => {
                    if !plain_open {
                        let _ = self.bb.begin_binding_block();
                        plain_open = true;
                    }
                    self.expression_statement(scope)?;
                }
                Tok::Name(_) => {
                    // The last binding of a branch is its result.
                    if let BodyEnd::Branch(var_name) = end
                        && self.is_last_statement()
                    {
                        let (name, ann, value) = self.binding_parts(scope)?;
                        if name != var_name && !var_name.is_empty() {
                            return self.error(format!(
                                "both branches must end by binding `{var_name}`, not `{name}`"
                            ));
                        }
                        let _ = ann;
                        self.close_plain(&mut blocks, &mut plain_open)?;
                        let value = self.in_block(&mut blocks, |p| {
                            let v = match value {
                                BindingValue::Expr(e) => e,
                                BindingValue::MatchCast(..) => {
                                    return p.error("a branch cannot end with a match_cast");
                                }
                            };
                            if is_leaf(&v) || matches!(v, Expr::Tuple(_)) {
                                p.bb.normalize(v).or_else(|e| p.builder_error(pos, e))
                            } else {
                                let name = format!("{name}{}", p.branch_suffix());
                                p.bb.emit_named(v, &name, None, false)
                                    .map(Expr::Var)
                                    .or_else(|e| p.builder_error(pos, e))
                            }
                        })?;
                        break Ok(value);
                    }
                    if !plain_open {
                        let _ = self.bb.begin_binding_block();
                        plain_open = true;
                    }
                    self.binding(scope, false)?;
                }
                _ => break self.expected("a statement"),
            }
        };
        scope.vars.pop();
        let value = match result {
            Ok(v) => v,
            Err(e) => {
                if plain_open {
                    let _ = self.bb.end_block();
                }
                return Err(e);
            }
        };
        // The block's end.
        while matches!(self.peek(), Tok::Newline) {
            self.bump();
        }
        match self.peek() {
            Tok::Dedent => {
                self.bump();
            }
            Tok::Eof => {}
            _ => return self.expected("the end of the block after its last statement"),
        }
        Ok((
            SeqExpr {
                blocks,
                body: value,
            },
            attrs,
        ))
    }

    fn branch_suffix(&self) -> &'static str {
        if self.in_else { "_else" } else { "_then" }
    }

    /// Whether the statement at hand is the last of its block.
    fn is_last_statement(&self) -> bool {
        let mut toks = self.tokens_ahead();
        let mut depth = 0usize;
        while let Some(t) = toks.next() {
            match t {
                Tok::Indent => depth += 1,
                Tok::Dedent if depth == 0 => return true,
                Tok::Dedent => depth -= 1,
                Tok::Newline if depth == 0 => {
                    let next = toks.find(|t| !matches!(t, Tok::Newline));
                    return matches!(next, Some(Tok::Dedent | Tok::Eof) | None);
                }
                Tok::Eof => return true,
                _ => {}
            }
        }
        true
    }

    fn at_symbolic_decl(&self) -> bool {
        // `n = T.int64()` / `n = T.int32()`.
        matches!(self.peek_at(2), Tok::Name(t) if *t == "T")
            && matches!(self.peek_at(3), Tok::Punct("."))
            && matches!(self.peek_at(4), Tok::Name(_))
            && matches!(self.peek_at(5), Tok::Punct("("))
            && matches!(self.peek_at(6), Tok::Punct(")"))
    }

    /// Runs `f` with an open block of its own; a non-empty block is added.
    fn in_block<T>(
        &mut self,
        blocks: &mut Vec<Node<BindingBlock>>,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        let _ = self.bb.begin_binding_block();
        let r = f(self);
        match self.bb.end_block_if_any() {
            Ok(Some(b)) => blocks.push(b),
            Ok(None) => {}
            Err(e) => return self.builder_error(self.pos(), e),
        }
        r
    }

    fn close_plain(
        &mut self,
        blocks: &mut Vec<Node<BindingBlock>>,
        open: &mut bool,
    ) -> PResult<()> {
        if std::mem::take(open) {
            match self.bb.end_block_if_any() {
                Ok(Some(b)) => blocks.push(b),
                Ok(None) => {}
                Err(e) => return self.builder_error(self.pos(), e),
            }
        }
        Ok(())
    }

    fn func_attr(&mut self) -> PResult<Attrs> {
        self.bump();
        self.bump();
        self.bump();
        self.punct("(")?;
        self.punct("{")?;
        let mut attrs = Attrs::new();
        while !self.is_punct("}") {
            let key = match self.bump() {
                Tok::Str(s) => s,
                _ => return self.expected("an attribute name in quotes"),
            };
            self.punct(":")?;
            let value = self.attr_value()?;
            attrs.push((key.into_owned(), value));
            if !self.eat_punct(",") {
                break;
            }
        }
        self.punct("}")?;
        self.punct(")")?;
        self.newline()?;
        Ok(attrs)
    }

    /// `with R.dataflow():` and its block, ending with `R.output(...)`.
    fn dataflow_block(&mut self, scope: &mut Scope) -> PResult<Node<BindingBlock>> {
        self.keyword("with")?;
        self.qualified("R", "dataflow", "`R.dataflow()`")?;
        self.punct("(")?;
        self.punct(")")?;
        self.punct(":")?;
        self.newline()?;
        if !matches!(self.peek(), Tok::Indent) {
            return self.expected("the dataflow block, indented");
        }
        self.bump();
        let outputs = self.scan_outputs();
        let _ = self.bb.begin_dataflow_block();
        let r = self.dataflow_statements(scope, &outputs);
        let block = self.bb.end_block();
        r?;
        block.or_else(|e| self.builder_error(self.pos(), e))
    }

    fn dataflow_statements(&mut self, scope: &mut Scope, outputs: &[&str]) -> PResult<()> {
        loop {
            match self.peek().clone() {
                Tok::Newline => {
                    self.bump();
                }
                Tok::Dedent => {
                    self.bump();
                    return Ok(());
                }
                Tok::Eof => return Ok(()),
                _ if self.at_qualified("R", "output") => {
                    self.skip_line();
                }
                Tok::Name("if") => {
                    self.if_stmt(scope, true)?;
                }
                Tok::Punct("@") => {
                    self.local_function(scope, outputs)?;
                }
                Tok::Name(_)
                    if matches!(self.peek_at(1), Tok::Punct("="))
                        && matches!(self.peek_at(2), Tok::Name("TypeVar")) =>
                {
                    self.skip_line();
                }
                Tok::Name(n)
                    if matches!(self.peek_at(1), Tok::Punct("=")) && self.at_symbolic_decl() =>
                {
                    scope.symbolic(n);
                    self.skip_line();
                }
                Tok::Name(_) if self.at_expression_statement() => {
                    self.expression_statement(scope)?;
                }
                Tok::Name(n) => {
                    let output = outputs.contains(&n);
                    self.binding(scope, output)?;
                }
                _ => return self.expected("a binding or `R.output(...)`"),
            }
        }
    }

    /// The names `R.output(...)` lists in the block at hand.
    /// Found by skimming the block's lines: only a line at the block's
    /// own indentation that starts with `R` is lexed.
    fn scan_outputs(&self) -> Vec<&'a str> {
        let mut out = Vec::new();
        if matches!(self.peek(), Tok::Eof) {
            return out;
        }
        let (start, line_no, width) = self.line_at_hand();
        for line in LineSkim::new(self.lexer.text(), start, line_no) {
            match line.width {
                Some(w) if w < width => break,
                Some(w) if w == width && line.content.starts_with('R') => {
                    let mut toks = Lexer::expression(line.content);
                    let mut next = || toks.next().map_or(Tok::Eof, |(t, _)| t);
                    if (next(), next(), next(), next())
                        != (
                            Tok::Name("R"),
                            Tok::Punct("."),
                            Tok::Name("output"),
                            Tok::Punct("("),
                        )
                    {
                        continue;
                    }
                    loop {
                        match next() {
                            Tok::Name(n) => out.push(n),
                            Tok::Punct(")") | Tok::Eof => break,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// `if cond:` ... `else:` ..., each branch ending by binding the same
    /// variable, which the `if` defines.
    fn if_stmt(&mut self, scope: &mut Scope, in_dataflow: bool) -> PResult<()> {
        // Nested `if`s recurse through here.
        ir_core::stack::guarded(|| self.if_stmt_inner(scope, in_dataflow))
    }

    fn if_stmt_inner(&mut self, scope: &mut Scope, in_dataflow: bool) -> PResult<()> {
        let pos = self.pos();
        self.keyword("if")?;
        let cond = self.expr(scope)?;
        self.punct(":")?;
        self.newline()?;
        let name = self.branch_var_name();
        let then = self.branch(scope, name, false)?;
        self.keyword("else")?;
        self.punct(":")?;
        self.newline()?;
        let otherwise = self.branch(scope, name, true)?;
        let cond = self
            .bb
            .normalize_argument(cond)
            .or_else(|e| self.builder_error(pos, e))?;
        let value: Expr = super::expr::If {
            cond,
            true_branch: Node::new(then),
            false_branch: Node::new(otherwise),
        }
        .into();
        let _ = in_dataflow;
        let v = self
            .bb
            .emit_named(value, name, None, false)
            .or_else(|e| self.builder_error(pos, e))?;
        scope.bind(name, v);
        Ok(())
    }

    /// The variable the branch's last binding defines (looked ahead).
    fn branch_var_name(&self) -> &'a str {
        let mut depth = 0usize;
        let mut last_stmt_start = None;
        let mut line_start = true;
        for t in self.tokens_ahead() {
            match t {
                Tok::Indent => {
                    depth += 1;
                    line_start = true;
                }
                Tok::Dedent => {
                    if depth <= 1 {
                        break;
                    }
                    depth -= 1;
                    line_start = true;
                }
                Tok::Newline => line_start = true,
                Tok::Name(n) if line_start && depth == 1 => {
                    last_stmt_start = Some(n);
                    line_start = false;
                }
                _ => line_start = false,
            }
        }
        last_stmt_start.unwrap_or_default()
    }

    fn branch(&mut self, scope: &mut Scope, name: &str, else_branch: bool) -> PResult<SeqExpr> {
        if !matches!(self.peek(), Tok::Indent) {
            return self.expected("the branch, indented");
        }
        self.bump();
        let saved = std::mem::replace(&mut self.in_else, else_branch);
        let r = self.body(scope, BodyEnd::Branch(name));
        self.in_else = saved;
        r.map(|(seq, _)| seq)
    }

    /// Whether the statement at hand is an expression alone (`R.print(...)`),
    /// not a binding: its first name is followed by neither `=` nor `:`.
    fn at_expression_statement(&self) -> bool {
        !matches!(self.peek_at(1), Tok::Punct("=" | ":"))
    }

    /// An expression alone, bound to a variable named `_`, as TVM's parser
    /// binds it: an effect (`R.print(...)`, `R.assert_op(...)`).
    fn expression_statement(&mut self, scope: &mut Scope) -> PResult<()> {
        let pos = self.pos();
        let value = self.expr_top(scope)?;
        self.newline()?;
        self.bb
            .emit_named(value, "_", None, false)
            .or_else(|e| self.builder_error(pos, e))?;
        Ok(())
    }

    /// `name [: ann] = value` into the builder.
    fn binding(&mut self, scope: &mut Scope, output: bool) -> PResult<()> {
        let pos = self.pos();
        let (name, ann, value) = self.binding_parts(scope)?;
        let v = match value {
            BindingValue::Expr(e) => self.bb.emit_named(e, name, ann, output),
            BindingValue::MatchCast(e, s) => self.bb.emit_match_cast_named(e, s, name, output),
        }
        .or_else(|e| self.builder_error(pos, e))?;
        scope.bind(name, v);
        Ok(())
    }

    fn binding_parts(
        &mut self,
        scope: &mut Scope,
    ) -> PResult<(&'a str, Option<StructInfo>, BindingValue)> {
        let name = self.name()?;
        let ann = if self.eat_punct(":") {
            Some(self.annotation(scope)?)
        } else {
            None
        };
        self.punct("=")?;
        let value = if self.at_qualified("R", "match_cast") {
            self.bump();
            self.bump();
            self.bump();
            self.punct("(")?;
            let v = self.expr(scope)?;
            self.punct(",")?;
            let s = self.annotation(scope)?;
            self.punct(")")?;
            BindingValue::MatchCast(v, s)
        } else {
            BindingValue::Expr(self.expr_top(scope)?)
        };
        self.newline()?;
        Ok((name, ann, value))
    }

    // ---- expressions -------------------------------------------------------------

    /// A value where a bare `a, b` is a tuple.
    fn expr_top(&mut self, scope: &mut Scope) -> PResult<Expr> {
        let first = self.expr(scope)?;
        if !self.is_punct(",") {
            return Ok(first);
        }
        let mut fields = vec![first];
        while self.eat_punct(",") {
            if matches!(self.peek(), Tok::Newline | Tok::Eof) {
                break;
            }
            fields.push(self.expr(scope)?);
        }
        Ok(Expr::tuple(fields))
    }

    fn expr(&mut self, scope: &mut Scope) -> PResult<Expr> {
        ir_core::stack::guarded(|| {
            let mut e = self.atom(scope)?;
            loop {
                if self.eat_punct("[") {
                    let index = match self.bump() {
                        Tok::Int(i) if i >= 0 => i as usize,
                        _ => return self.expected("a field index"),
                    };
                    self.punct("]")?;
                    e = Expr::get_item(e, index);
                } else if self.is_punct("(") && matches!(e, Expr::Var(_) | Expr::GlobalVar(_)) {
                    self.bump();
                    let args = self.args(scope)?;
                    e = super::expr::Call::new(e, args).into();
                } else {
                    return Ok(e);
                }
            }
        })
    }

    fn args(&mut self, scope: &mut Scope) -> PResult<ShortVec<Expr>> {
        let mut args = ShortVec::new();
        while !self.is_punct(")") {
            args.push(self.expr(scope)?);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.punct(")")?;
        Ok(args)
    }

    fn atom(&mut self, scope: &mut Scope) -> PResult<Expr> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Punct("(") => {
                self.bump();
                let mut fields = Vec::new();
                let mut trailing_comma = false;
                while !self.is_punct(")") {
                    fields.push(self.expr(scope)?);
                    trailing_comma = self.eat_punct(",");
                    if !trailing_comma {
                        break;
                    }
                }
                self.punct(")")?;
                Ok(if fields.len() == 1 && !trailing_comma {
                    fields.pop().unwrap_or_else(|| Expr::tuple(Vec::new()))
                } else {
                    Expr::tuple(fields)
                })
            }
            Tok::Name(n) if n == "R" && matches!(self.peek_at(1), Tok::Punct(".")) => {
                self.bump();
                self.bump();
                let name = self.dotted_after()?;
                self.r_call(scope, &name, pos)
            }
            Tok::Name(n) if n == "cls" || Some(n) == self.class_name.as_deref() => {
                self.bump();
                self.punct(".")?;
                let at = self.pos();
                let f = self.name()?;
                match self.global(f)? {
                    Some(sig) => Ok(GlobalVar {
                        name: f.to_owned(),
                        sinfo: Some(sig),
                    }
                    .into()),
                    None => Err(ParseError {
                        line: at.line,
                        col: at.col,
                        message: format!("the module has no function `{f}`"),
                    }),
                }
            }
            Tok::Name(n) => {
                self.bump();
                if let Some(v) = scope.lookup(n) {
                    return Ok(Expr::Var(v.clone()));
                }
                if let Some(sig) = self.global(n)? {
                    return Ok(GlobalVar {
                        name: n.to_owned(),
                        sinfo: Some(sig),
                    }
                    .into());
                }
                if scope.symbolic.contains_key(n) {
                    return Ok(super::expr::PrimValue {
                        value: scope.symbolic(n),
                    }
                    .into());
                }
                Err(ParseError {
                    line: pos.line,
                    col: pos.col,
                    message: format!("undefined variable `{n}`"),
                })
            }
            Tok::Int(i) => {
                self.bump();
                Ok(super::expr::PrimValue {
                    value: PrimExpr::int(i),
                }
                .into())
            }
            // A negative integer: `R.arange(10, 0, -3)`.
            Tok::Punct("-") if matches!(self.peek_at(1), Tok::Int(_)) => {
                self.bump();
                match self.bump() {
                    Tok::Int(i) => Ok(super::expr::PrimValue {
                        value: PrimExpr::int(i.wrapping_neg()),
                    }
                    .into()),
                    _ => self.expected("an integer"),
                }
            }
            _ => self.expected("an expression"),
        }
    }

    /// `R.<name>(...)`.
    fn r_call(&mut self, scope: &mut Scope, name: &str, pos: Pos) -> PResult<Expr> {
        match name {
            "const" => {
                self.punct("(")?;
                let (values, shape, is_float, is_bool) = self.const_value()?;
                let dtype = if self.eat_punct(",") {
                    if self.is_name("dtype") {
                        self.bump();
                        self.punct("=")?;
                    }
                    match self.bump() {
                        Tok::Str(s) => s.parse().or_else(|e: String| self.error(e))?,
                        _ => return self.expected("a dtype string"),
                    }
                } else if is_bool {
                    DataType::Bool
                } else if is_float {
                    DataType::F32
                } else {
                    DataType::Int(32)
                };
                self.punct(")")?;
                Ok(Constant::new(ConstData {
                    dtype,
                    shape,
                    values,
                })
                .into())
            }
            "shape" => {
                self.punct("(")?;
                self.punct("[")?;
                let values = self.prim_list(scope, "]")?;
                self.punct(")")?;
                Ok(Expr::shape(values))
            }
            "prim_value" => {
                self.punct("(")?;
                let value = self.prim(scope)?;
                self.punct(")")?;
                Ok(super::expr::PrimValue { value }.into())
            }
            "str" => {
                self.punct("(")?;
                let value = match self.bump() {
                    Tok::Str(s) => s,
                    _ => return self.expected("a string"),
                };
                self.punct(")")?;
                Ok(super::expr::StringImm {
                    value: value.into_owned(),
                }
                .into())
            }
            "dtype" => {
                self.punct("(")?;
                let value = match self.bump() {
                    Tok::Str(s) => s.parse().or_else(|e: String| self.error(e))?,
                    _ => return self.expected("a dtype string"),
                };
                self.punct(")")?;
                Ok(super::expr::DataTypeImm { value }.into())
            }
            "tuple" => {
                self.punct("(")?;
                let fields = self.args(scope)?;
                Ok(Expr::tuple(fields.into_vec()))
            }
            // A call of a packed function by name, which may have effects:
            // its callee is the `R.ExternFunc` itself.
            "call_packed" => {
                self.punct("(")?;
                let func = self.packed_function()?;
                let mut args = ShortVec::new();
                let mut sinfo_args = Vec::new();
                while self.eat_punct(",") && !self.is_punct(")") {
                    if self.is_name("ty_args") && matches!(self.peek_at(1), Tok::Punct("=")) {
                        self.bump();
                        self.bump();
                        sinfo_args = self.ty_args(scope)?;
                    } else {
                        args.push(self.expr(scope)?);
                    }
                }
                self.punct(")")?;
                Ok(super::expr::Call::new(func, args)
                    .with_sinfo_args(sinfo_args)
                    .into())
            }
            "ExternFunc" => Ok(ExternFunc {
                name: self.extern_symbol()?,
            }
            .into()),
            op => {
                let Some(def) = ops::lookup(op) else {
                    return Err(ParseError {
                        line: pos.line,
                        col: pos.col,
                        message: format!("unknown operator `R.{op}`"),
                    });
                };
                self.punct("(")?;
                let mut args = ShortVec::new();
                let mut attrs = Attrs::new();
                let positional_attrs: &[&str] = match op {
                    "permute_dims" => &["axes"],
                    "sum" => &["axis", "keepdims"],
                    "concat" => &["axis"],
                    "matmul" => &["out_dtype"],
                    "astype" | "ones" | "zeros" => &["dtype"],
                    "arange" => &["dtype"],
                    _ => &[],
                };
                let mut sinfo_args = Vec::new();
                let format_at = ops::format_index(op);
                let mut format = None;
                while !self.is_punct(")") {
                    if format_at.is_some()
                        && self.is_name("format")
                        && matches!(self.peek_at(1), Tok::Punct("="))
                    {
                        // An effect's format string: `format=R.str("...")`.
                        self.bump();
                        self.bump();
                        format = Some(self.expr(scope)?);
                    } else if self.is_name("ty_args") && matches!(self.peek_at(1), Tok::Punct("="))
                    {
                        // The result's struct info: `ty_args=(R.Tensor(...),)`.
                        self.bump();
                        self.bump();
                        sinfo_args = self.ty_args(scope)?;
                    } else if op == "call_dps_packed"
                        && self.is_name("out_ty")
                        && matches!(self.peek_at(1), Tok::Punct("="))
                    {
                        // The outputs: `out_ty=S`, or `out_ty=[S1, S2]` for a
                        // tuple of them.
                        self.bump();
                        self.bump();
                        sinfo_args = vec![self.out_ty(scope)?];
                    } else if args.is_empty()
                        && ops::takes_packed_function(op)
                        && matches!(self.peek(), Tok::Str(_))
                    {
                        args.push(self.packed_function()?);
                    } else if matches!(self.peek(), Tok::Name(_))
                        && matches!(self.peek_at(1), Tok::Punct("="))
                    {
                        let key = self.name()?;
                        self.punct("=")?;
                        attrs.push((key.to_owned(), self.attr_value()?));
                    } else if args.len() < def.arity - usize::from(format_at.is_some())
                        || def.variadic
                    {
                        let arg = match (op, args.len()) {
                            // A shape written as a tuple or list of integers.
                            ("reshape", 1) if self.is_punct("(") || self.is_punct("[") => {
                                let close = if self.eat_punct("(") {
                                    ")"
                                } else {
                                    self.bump();
                                    "]"
                                };
                                Expr::shape(self.prim_list(scope, close)?)
                            }
                            // `R.concat([x, y])`.
                            ("concat", 0) if self.is_punct("[") => {
                                self.bump();
                                let mut fields = Vec::new();
                                while !self.is_punct("]") {
                                    fields.push(self.expr(scope)?);
                                    if !self.eat_punct(",") {
                                        break;
                                    }
                                }
                                self.punct("]")?;
                                Expr::tuple(fields)
                            }
                            _ => self.expr(scope)?,
                        };
                        args.push(arg);
                    } else if let Some(key) = positional_attrs.get(attrs.len()) {
                        attrs.push(((*key).to_owned(), self.attr_value()?));
                    } else {
                        return self.error(format!("R.{op} takes {} arguments", def.arity));
                    }
                    if !self.eat_punct(",") {
                        break;
                    }
                }
                self.punct(")")?;
                let attrs = ops::canonical_attrs(op, attrs).map_err(|m| ParseError {
                    line: pos.line,
                    col: pos.col,
                    message: m,
                })?;
                if let Some(at) = format_at {
                    // In TVM's place among the arguments; empty when not given.
                    let format = format.unwrap_or_else(|| {
                        super::expr::StringImm {
                            value: String::new(),
                        }
                        .into()
                    });
                    let mut all: Vec<Expr> = args.into_vec();
                    if at > all.len() {
                        return self.error(format!("R.{op} takes at least {at} argument"));
                    }
                    all.insert(at, format);
                    args = all.into();
                }
                if op == "call_dps_packed"
                    && let Some(inputs) = args.get(1)
                    && !matches!(inputs, Expr::Tuple(_))
                {
                    // One input, written alone: TVM wraps it in a tuple.
                    let mut all = args.into_vec();
                    all[1] = Expr::tuple(vec![all[1].clone()]);
                    args = all.into();
                }
                Ok(super::expr::Call::new(ops::op_expr(op), args)
                    .with_attrs(attrs)
                    .with_sinfo_args(sinfo_args)
                    .into())
            }
        }
    }

    /// A packed function's name, a string: an `R.ExternFunc`.
    fn packed_function(&mut self) -> PResult<Expr> {
        match self.bump() {
            Tok::Str(name) => Ok(super::expr::ExternFunc {
                name: name.into_owned(),
            }
            .into()),
            _ => self.expected("a packed function's name (a string)"),
        }
    }

    /// `(S1, S2, ...)` after `ty_args=`.
    fn ty_args(&mut self, scope: &mut Scope) -> PResult<Vec<StructInfo>> {
        let mut out = Vec::new();
        self.punct("(")?;
        while !self.is_punct(")") {
            out.push(self.annotation(scope)?);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.punct(")")?;
        Ok(out)
    }

    /// `S` or `[S1, S2, ...]` (a tuple of them) after `out_ty=`.
    fn out_ty(&mut self, scope: &mut Scope) -> PResult<StructInfo> {
        if !self.eat_punct("[") {
            return self.annotation(scope);
        }
        let mut fields = Vec::new();
        while !self.is_punct("]") {
            fields.push(self.annotation(scope)?);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.punct("]")?;
        Ok(StructInfo::tuple(fields))
    }

    /// A constant's value: a number, a bool, or nested lists of them.
    fn const_value(&mut self) -> PResult<(Vec<f64>, Vec<i64>, bool, bool)> {
        let mut values = Vec::new();
        let mut shape: Vec<i64> = Vec::new();
        let (mut is_float, mut is_bool) = (false, false);
        self.const_nested(0, &mut values, &mut shape, &mut is_float, &mut is_bool)?;
        Ok((values, shape, is_float, is_bool))
    }

    fn const_nested(
        &mut self,
        depth: usize,
        values: &mut Vec<f64>,
        shape: &mut Vec<i64>,
        f: &mut bool,
        b: &mut bool,
    ) -> PResult<()> {
        ir_core::stack::guarded(|| {
            let negative = self.eat_punct("-");
            let sign = if negative { -1.0 } else { 1.0 };
            match self.peek().clone() {
                Tok::Int(i) => {
                    self.bump();
                    values.push(sign * i as f64);
                }
                Tok::Float(x) => {
                    self.bump();
                    *f = true;
                    values.push(sign * x);
                }
                Tok::Str(s) if !negative && matches!(s.as_ref(), "inf" | "-inf" | "nan") => {
                    self.bump();
                    *f = true;
                    values.push(s.parse::<f64>().unwrap_or(f64::NAN));
                }
                Tok::Name(n) if !negative && (n == "True" || n == "False") => {
                    self.bump();
                    *b = true;
                    values.push(if n == "True" { 1.0 } else { 0.0 });
                }
                Tok::Punct("[") if !negative => {
                    self.bump();
                    let mut count = 0i64;
                    while !self.is_punct("]") {
                        self.const_nested(depth + 1, values, shape, f, b)?;
                        count += 1;
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    self.punct("]")?;
                    if shape.len() == depth {
                        shape.push(count);
                    } else if shape.get(depth) != Some(&count) {
                        return self.error("the rows of a constant differ in length");
                    }
                }
                _ => return self.expected("a number, a bool or a list"),
            }
            Ok(())
        })
    }

    fn attr_value(&mut self) -> PResult<AttrValue> {
        let negative = self.eat_punct("-");
        match self.bump() {
            Tok::Int(i) => Ok(AttrValue::Int(if negative { -i } else { i })),
            Tok::Name("None") => Ok(AttrValue::Null),
            Tok::Name("True") => Ok(AttrValue::Bool(true)),
            Tok::Name("False") => Ok(AttrValue::Bool(false)),
            Tok::Str(s) => Ok(AttrValue::Str(s.into_owned())),
            Tok::Punct(open @ ("[" | "(")) => {
                let close = if open == "[" { "]" } else { ")" };
                let mut v = Vec::new();
                while !self.is_punct(close) {
                    let neg = self.eat_punct("-");
                    match self.bump() {
                        Tok::Int(i) => v.push(if neg { -i } else { i }),
                        _ => return self.expected("an integer"),
                    }
                    if !self.eat_punct(",") {
                        break;
                    }
                }
                self.punct(close)?;
                Ok(AttrValue::Ints(v))
            }
            _ => self.expected("an attribute value"),
        }
    }

    // ---- symbolic expressions ------------------------------------------------------

    fn prim_list(&mut self, scope: &mut Scope, close: &str) -> PResult<Vec<PrimExpr>> {
        let mut out = Vec::new();
        while !self.is_punct(close) {
            out.push(self.prim(scope)?);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.punct(close)?;
        Ok(out)
    }

    fn prim(&mut self, scope: &mut Scope) -> PResult<PrimExpr> {
        self.prim_level(scope, 0)
    }

    fn prim_level(&mut self, scope: &mut Scope, level: u8) -> PResult<PrimExpr> {
        ir_core::stack::guarded(|| {
            if level == 2 {
                return self.prim_atom(scope);
            }
            let mut lhs = self.prim_level(scope, level + 1)?;
            loop {
                let op = match (level, self.peek()) {
                    (0, Tok::Punct("+")) => BinOp::Add,
                    (0, Tok::Punct("-")) => BinOp::Sub,
                    (1, Tok::Punct("*")) => BinOp::Mul,
                    (1, Tok::Punct("//")) => BinOp::FloorDiv,
                    (1, Tok::Punct("%")) => BinOp::FloorMod,
                    _ => return Ok(lhs),
                };
                self.bump();
                let rhs = self.prim_level(scope, level + 1)?;
                lhs = PrimExpr::binary(op, lhs, rhs);
            }
        })
    }

    fn prim_atom(&mut self, scope: &mut Scope) -> PResult<PrimExpr> {
        ir_core::stack::guarded(|| match self.peek().clone() {
            Tok::Int(i) => {
                self.bump();
                Ok(PrimExpr::int(i))
            }
            Tok::Punct("-") => {
                self.bump();
                let inner = self.prim_atom(scope)?;
                Ok(match inner.as_int() {
                    Some(v) if v != i64::MIN => PrimExpr::int(-v),
                    _ => PrimExpr::binary(BinOp::Mul, inner, PrimExpr::int(-1)),
                })
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.prim(scope)?;
                self.punct(")")?;
                Ok(e)
            }
            Tok::Str(s) => {
                // A quoted expression: `"n + 1"`.
                let pos = self.pos();
                self.bump();
                // Its tokens borrow from the string, not the text: a parser
                // of their own, which needs only the scope.
                let mut inner = Parser::new(Lexer::expression(&s));
                let r = inner.prim(scope);
                let complete = matches!(inner.peek(), Tok::Eof);
                let r = inner.first_error(r);
                match r {
                    Ok(e) if complete => Ok(e),
                    Ok(_) => Err(ParseError {
                        line: pos.line,
                        col: pos.col,
                        message: format!("{s:?} is not a shape expression"),
                    }),
                    Err(e) => Err(ParseError {
                        line: pos.line,
                        col: pos.col,
                        message: format!("in {s:?}: {}", e.message),
                    }),
                }
            }
            Tok::Name("T") => {
                self.bump();
                self.punct(".")?;
                let f = self.name()?;
                self.punct("(")?;
                let r = match f {
                    "min" | "max" => {
                        let a = self.prim(scope)?;
                        self.punct(",")?;
                        let b = self.prim(scope)?;
                        PrimExpr::binary(if f == "min" { BinOp::Min } else { BinOp::Max }, a, b)
                    }
                    "int64" | "int32" => self.prim(scope)?,
                    _ => return self.error(format!("unknown function `T.{f}`")),
                };
                self.punct(")")?;
                Ok(r)
            }
            Tok::Name(n) => {
                self.bump();
                Ok(scope.symbolic(n))
            }
            _ => self.expected("a shape value"),
        })
    }

    // ---- annotations -------------------------------------------------------------------

    fn annotation(&mut self, scope: &mut Scope) -> PResult<StructInfo> {
        ir_core::stack::guarded(|| {
            let prefix = self.name()?;
            self.punct(".")?;
            let kind = self.name()?;
            match (prefix, kind) {
                ("R", "Tensor") => self.tensor_annotation(scope),
                ("R", "Shape") => {
                    if !self.eat_punct("(") {
                        return Ok(ShapeStructInfo {
                            values: None,
                            ndim: -1,
                        }
                        .into());
                    }
                    let close = if self.eat_punct("[") {
                        Some("]")
                    } else if self.eat_punct("(") {
                        Some(")")
                    } else {
                        None
                    };
                    let s = if let Some(close) = close {
                        StructInfo::shape(self.prim_list(scope, close)?)
                    } else {
                        self.keyword("ndim")?;
                        self.punct("=")?;
                        let ndim = self.small_int()?;
                        ShapeStructInfo { values: None, ndim }.into()
                    };
                    self.punct(")")?;
                    Ok(s)
                }
                ("R", "Object" | "Any") => Ok(StructInfo::object()),
                ("I", "StringType") => {
                    self.punct("(")?;
                    self.punct(")")?;
                    Ok(StructInfo::object())
                }
                ("R", "Prim") => {
                    self.punct("(")?;
                    let s = if self.is_name("value") {
                        self.bump();
                        self.punct("=")?;
                        PrimStructInfo {
                            dtype: DataType::I64,
                            value: Some(self.prim(scope)?),
                        }
                        .into()
                    } else {
                        if self.is_name("dtype") {
                            self.bump();
                            self.punct("=")?;
                        }
                        match self.bump() {
                            Tok::Str(d) => {
                                StructInfo::prim(d.parse().or_else(|e: String| self.error(e))?)
                            }
                            _ => return self.expected("a dtype string"),
                        }
                    };
                    self.punct(")")?;
                    Ok(s)
                }
                ("T", dtype) => Ok(StructInfo::prim(
                    dtype.parse().or_else(|e: String| self.error(e))?,
                )),
                ("R", "Tuple") => {
                    if !self.eat_punct("(") {
                        return Ok(StructInfo::tuple(Vec::new()));
                    }
                    let mut fields = Vec::new();
                    while !self.is_punct(")") {
                        fields.push(self.annotation(scope)?);
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    self.punct(")")?;
                    Ok(StructInfo::tuple(fields))
                }
                ("R", "Callable") => {
                    if !self.eat_punct("(") {
                        return Ok(FuncStructInfo {
                            params: None,
                            ret: StructInfo::object(),
                            pure: false,
                        }
                        .into());
                    }
                    self.punct("(")?;
                    let mut params = Vec::new();
                    while !self.is_punct(")") {
                        params.push(self.annotation(scope)?);
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    self.punct(")")?;
                    self.punct(",")?;
                    let ret = self.annotation(scope)?;
                    let pure = if self.eat_punct(",") {
                        match self.name()? {
                            "True" => true,
                            "False" => false,
                            _ => return self.error("expected `True` or `False`"),
                        }
                    } else {
                        true
                    };
                    self.punct(")")?;
                    Ok(FuncStructInfo {
                        params: Some(params),
                        ret,
                        pure,
                    }
                    .into())
                }
                _ => self.error(format!("unknown annotation `{prefix}.{kind}`")),
            }
        })
    }

    fn small_int(&mut self) -> PResult<i64> {
        let negative = self.eat_punct("-");
        match self.bump() {
            Tok::Int(i) => Ok(if negative { -i } else { i }),
            _ => self.expected("an integer"),
        }
    }

    /// `R.Tensor`, `R.Tensor((2, n), "float32")`, `R.Tensor(ndim=2, dtype="float32")`.
    fn tensor_annotation(&mut self, scope: &mut Scope) -> PResult<StructInfo> {
        let mut shape = None;
        let mut dtype = DataType::Void;
        let mut ndim = -1;
        if self.eat_punct("(") {
            if self.is_punct("(") || self.is_punct("[") {
                let close = if self.eat_punct("(") {
                    ")"
                } else {
                    self.bump();
                    "]"
                };
                shape = Some(self.prim_list(scope, close)?);
                self.eat_punct(",");
            }
            if let Tok::Str(d) = self.peek().clone() {
                self.bump();
                dtype = d.parse().or_else(|e: String| self.error(e))?;
                self.eat_punct(",");
            }
            while !self.is_punct(")") {
                let key = self.name()?;
                self.punct("=")?;
                match key {
                    "dtype" => match self.bump() {
                        Tok::Str(d) => dtype = d.parse().or_else(|e: String| self.error(e))?,
                        _ => return self.expected("a dtype string"),
                    },
                    "ndim" => ndim = self.small_int()?,
                    "shape" => {
                        let close = if self.eat_punct("(") {
                            ")"
                        } else {
                            self.punct("[")?;
                            "]"
                        };
                        shape = Some(self.prim_list(scope, close)?);
                    }
                    _ => return self.error(format!("unknown tensor option `{key}`")),
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.punct(")")?;
        }
        Ok(match shape {
            Some(shape) => TensorStructInfo {
                ndim: shape.len() as i64,
                shape: Some(shape),
                dtype,
            }
            .into(),
            None => StructInfo::tensor_ndim(ndim, dtype),
        })
    }
}

/// How a body ends.
#[derive(Clone, Copy)]
enum BodyEnd<'a> {
    /// With `return value` (a function).
    Return,
    /// With a binding of this variable (an `if` branch).
    Branch(&'a str),
}

enum BindingValue {
    Expr(Expr),
    MatchCast(Expr, StructInfo),
}

/// A function's struct info from its header (an unannotated return is an
/// object).
fn signature(params: &[Node<Var>], ret: Option<StructInfo>, pure: bool) -> StructInfo {
    FuncStructInfo {
        params: Some(params.iter().map(|p| p.sinfo.clone()).collect()),
        ret: ret.unwrap_or_else(StructInfo::object),
        pure,
    }
    .into()
}

/// What a module's class holds.
enum Member {
    Function(Node<Function>),
    Extern(Node<ExternFunc>),
}
