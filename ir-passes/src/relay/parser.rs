//! Parsing TVM's text format (0.0.5): modules (`def @main(...) {...}`) and
//! expression-level text (`tvm.relay.parse_expr`). Errors carry `line:col`,
//! what was expected, and the source line with a caret; nothing panics.

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;

use ir_core::stack::guarded;
use ir_core::{IdSet, Node, ShortVec};

use super::adt::{ConstructorDef, TypeData, TypeDefs};
use super::attrs::{AttrValue, Attrs};
use super::dtype::DType;
use super::expr::{
    Call, Clause, Constant, Expr, Function, GlobalVar, If, Match, Op, RefCreate, RefRead, RefWrite,
    Span, Tuple, TupleGetItem, Var,
};
use super::lexer::{LexError, Lexer, Tok, Token};
use super::module::RelayModule;
use super::parse_scopes::Scopes;
use super::pattern::{Pattern, PatternConstructor, PatternTuple};
use super::pending_lets::PendingLets;
use super::tensor::Tensor;
use super::tvm_metadata::{is_tvm_metadata, tvm_metadata};
use super::ty::{Dim, FuncType, Type};

/// A parse error: position, message, and a rendering with the source line.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What went wrong, e.g. "expected `)`, found `;`".
    pub message: String,
    /// The report: `line:col: message`, the source line, a caret.
    pub report: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.report)
    }
}

impl std::error::Error for ParseError {}

fn position(src: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    (line, col)
}

fn make_error(src: &str, start: usize, end: usize, message: String) -> ParseError {
    let (line, col) = position(src, start);
    let start = start.min(src.len());
    let end = end.clamp(start, src.len());
    let mut rendered = Vec::new();
    let report = ariadne::Report::build(ariadne::ReportKind::Error, ("input", start..end))
        .with_config(
            ariadne::Config::default()
                .with_color(false)
                .with_char_set(ariadne::CharSet::Ascii),
        )
        .with_message(format!("{line}:{col}: {message}"))
        .with_label(ariadne::Label::new(("input", start..end.max(start))).with_message(&message))
        .finish()
        .write(("input", ariadne::Source::from(src)), &mut rendered);
    let report = match report {
        Ok(()) => String::from_utf8_lossy(&rendered).into_owned(),
        Err(_) => format!("{line}:{col}: {message}"),
    };
    ParseError {
        line,
        col,
        message,
        report,
    }
}

/// Parses a module; the `#[version = "0.0.5"]` header is required.
pub fn parse_module(src: &str) -> Result<RelayModule, ParseError> {
    let mut p = Parser::new(src)?;
    p.parse_module()
}

/// Parses expression-level text (`free_var`s, lets, a final expression); the
/// version header is optional.
pub fn parse_expr(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src)?;
    p.parse_expr_text()
}

type PResult<T> = Result<T, ParseError>;

/// The tokens not yet consumed, lexed on demand: the parser holds a few
/// tokens of lookahead, never the whole token stream.
struct Lookahead<'a> {
    lexer: Lexer<'a>,
    ahead: VecDeque<Token<'a>>,
    /// `Eof`, or the token standing for a lexical error: it repeats.
    end: Option<Token<'a>>,
    /// The first lexical error, standing where its token would be.
    error: Option<LexError>,
}

impl<'a> Lookahead<'a> {
    /// Takes the next token.
    fn next(&mut self) -> Token<'a> {
        match self.ahead.pop_front() {
            Some(t) => t,
            None => self.lex(),
        }
    }

    /// The `n`-th token from here (`Eof` repeats at the end).
    fn at(&mut self, n: usize) -> Token<'a> {
        while self.ahead.len() <= n {
            let t = self.lex();
            self.ahead.push_back(t);
        }
        self.ahead[n]
    }

    fn lex(&mut self) -> Token<'a> {
        if let Some(end) = self.end {
            return end;
        }
        let next = self.lexer.next_token();
        self.settle(next)
    }

    /// The token a lexing step gave: an error stands as [`Tok::Error`], and
    /// the end repeats.
    fn settle(&mut self, next: Result<Token<'a>, LexError>) -> Token<'a> {
        let t = next.unwrap_or_else(|e| {
            let t = Token {
                tok: Tok::Error,
                start: e.start,
                end: e.end,
                line: 0,
                col: 0,
            };
            self.error.get_or_insert(e);
            t
        });
        if matches!(t.tok, Tok::Eof | Tok::Error) {
            self.end = Some(t);
        }
        t
    }
}

struct Parser<'a> {
    src: &'a str,
    /// The current token: what nearly every step looks at.
    current: Token<'a>,
    /// The tokens after it, lexed when looked at.
    tokens: RefCell<Lookahead<'a>>,
    /// The token consumed last (errors about a literal point back at it).
    previous: (usize, usize),
    /// Variables in scope by name, in nested scopes.
    scopes: Scopes,
    /// One operator node per name, shared by every call of it (operators
    /// are compared by name, and sharing one costs nothing).
    ops: HashMap<&'a str, Node<Op>>,
    /// One constant node per scalar literal (constants are not graph nodes:
    /// sharing one is not observable).
    scalars: HashMap<(u16, u64, u8), Node<Constant>>,
    /// One node per tensor type written in the text.
    tensor_types: HashMap<&'a str, Type>,
    /// The text of the last tensor type read, if on one line of ASCII: the
    /// same text again (as in a program annotating every binding alike) is
    /// the same type, taken without lexing it.
    last_tensor_type: Option<(&'a str, Type)>,
    /// The arguments of the calls being read, innermost call's last.
    arg_stack: Vec<Expr>,
    /// Scratch for a shape being read.
    dims: Vec<Dim>,
    /// `free_var` declarations: visible for the rest of the parse, below every scope.
    free: HashMap<&'a str, Node<Var>>,
    /// Graph bindings (`%0 = ...;`) in scope; like lets, they end with the
    /// sequence that makes them.
    graph: HashMap<u64, Expr>,
    /// The graph bindings made, with what each hid, to undo at scope end.
    graph_log: Vec<(u64, Option<Expr>)>,
    meta: Vec<Tensor>,
    meta_nodes: HashMap<usize, Expr>,
    /// `meta[runtime.BoxInt][i]`: integer attribute values in TVM's metadata.
    meta_ints: Vec<i64>,
    /// Whether the metadata section was looked for (at the first `meta[...]`).
    meta_loaded: bool,
    /// The module's type definitions so far.
    type_defs: TypeDefs,
    /// Type parameters in scope (of enclosing functions and function
    /// types, or of the type being defined), innermost last.
    type_params: Vec<String>,
    /// The type being defined and its parameter count: it may refer to itself.
    defining: Option<(String, usize)>,
    /// Let variables whose values are being read, when the value is not a
    /// function literal: such a value may not read its own variable (it
    /// would read it before it is defined; only a function may recur).
    let_values: IdSet<Node<Var>>,
}

/// How deep lists and parentheses nest in an attribute value.
const MAX_ATTR_NESTING: usize = 64;

/// Whether `s` is a keyword (a name that is not an operator or attribute).
fn is_keyword_name(s: &str) -> bool {
    matches!(
        s,
        "let"
            | "fn"
            | "def"
            | "if"
            | "else"
            | "type"
            | "match"
            | "extern"
            | "free_var"
            | "ref"
            | "ref_read"
            | "ref_write"
            | "True"
            | "False"
    )
}

fn binop(tok: Tok<'_>) -> Option<(u8, &'static str)> {
    // Most expressions end at `,`, `;` or `)`: one byte says no.
    let Tok::Punct(p) = tok else { return None };
    if !matches!(
        p.as_bytes()[0],
        b'*' | b'/' | b'+' | b'-' | b'<' | b'>' | b'=' | b'!'
    ) {
        return None;
    }
    match tok {
        Tok::Punct("*") => Some((12, "multiply")),
        Tok::Punct("/") => Some((12, "divide")),
        Tok::Punct("+") => Some((10, "add")),
        Tok::Punct("-") => Some((10, "subtract")),
        Tok::Punct("<") => Some((8, "less")),
        Tok::Punct("<=") => Some((8, "less_equal")),
        Tok::Punct(">") => Some((8, "greater")),
        Tok::Punct(">=") => Some((8, "greater_equal")),
        Tok::Punct("==") => Some((7, "equal")),
        Tok::Punct("!=") => Some((7, "not_equal")),
        _ => None,
    }
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> PResult<Self> {
        let eof = Token {
            tok: Tok::Eof,
            start: 0,
            end: 0,
            line: 1,
            col: 1,
        };
        let mut p = Parser {
            src,
            current: eof,
            tokens: RefCell::new(Lookahead {
                lexer: Lexer::new(src),
                ahead: VecDeque::new(),
                end: None,
                error: None,
            }),
            previous: (0, 0),
            scopes: Scopes::default(),
            ops: HashMap::default(),
            scalars: HashMap::default(),
            tensor_types: HashMap::default(),
            last_tensor_type: None,
            arg_stack: Vec::new(),
            dims: Vec::new(),
            free: HashMap::default(),
            graph: HashMap::default(),
            graph_log: Vec::new(),
            meta: Vec::new(),
            meta_nodes: HashMap::default(),
            meta_ints: Vec::new(),
            meta_loaded: false,
            type_defs: TypeDefs::new(),
            type_params: Vec::new(),
            defining: None,
            let_values: IdSet::default(),
        };
        p.current = p.tokens.get_mut().next();
        Ok(p)
    }

    // ---- token helpers ----

    fn peek(&self) -> Tok<'a> {
        self.current.tok
    }

    fn peek_at(&self, n: usize) -> Tok<'a> {
        match n {
            0 => self.current.tok,
            _ => self.tokens.borrow_mut().at(n - 1).tok,
        }
    }

    fn token(&self) -> Token<'a> {
        self.current
    }

    fn span(&self) -> Span {
        let t = self.token();
        Span {
            line: t.line,
            col: t.col,
        }
    }

    /// Moves to the next token.
    fn bump(&mut self) {
        if matches!(self.current.tok, Tok::Eof | Tok::Error) {
            return;
        }
        self.previous = (self.current.start, self.current.end);
        let tokens = self.tokens.get_mut();
        if tokens.ahead.is_empty() && tokens.end.is_none() {
            // Nothing looked ahead at: straight from the lexer.
            match tokens.lexer.next_token() {
                Ok(t) if !matches!(t.tok, Tok::Eof) => self.current = t,
                next => self.current = tokens.settle(next),
            }
        } else {
            self.current = tokens.next();
        }
    }

    /// The current token, moving past it.
    fn take(&mut self) -> Tok<'a> {
        let tok = self.peek();
        self.bump();
        tok
    }

    /// Skips from the current token to byte `end` of the same line, text
    /// known to be ASCII tokens (read before), the last ending at `end`.
    /// `false` if tokens after the current one were already looked at.
    fn skip_ascii_line_to(&mut self, end: usize) -> bool {
        let tokens = self.tokens.get_mut();
        if !tokens.ahead.is_empty() || tokens.end.is_some() {
            return false;
        }
        let Token { start, line, .. } = self.current;
        let col = self.current.col + (end - start) as u32;
        tokens.lexer.reposition(end, line, col);
        self.previous = (end - 1, end);
        self.current = tokens.next();
        true
    }

    /// An error at the current token; a lexical error if the text cannot
    /// be read there at all.
    fn error_here(&self, message: impl Into<String>) -> ParseError {
        let t = self.token();
        if matches!(t.tok, Tok::Error)
            && let Some(e) = self.tokens.borrow().error.clone()
        {
            return make_error(self.src, e.start, e.end, e.message);
        }
        make_error(self.src, t.start, t.end, message.into())
    }

    /// An error at the token consumed last.
    fn error_at_previous(&self, message: impl Into<String>) -> ParseError {
        make_error(self.src, self.previous.0, self.previous.1, message.into())
    }

    fn expected(&self, what: &str) -> ParseError {
        self.error_here(format!("expected {what}, found {}", self.peek().describe()))
    }

    #[inline(always)]
    fn eat(&mut self, p: &str) -> bool {
        // Punctuation is one or two bytes: compared without a call.
        let same = |q: &str| {
            let (q, p) = (q.as_bytes(), p.as_bytes());
            q.len() == p.len() && q.first() == p.first() && q.last() == p.last()
        };
        if matches!(self.peek(), Tok::Punct(q) if same(q)) {
            self.bump();
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.expected_punct(p))
        }
    }

    #[cold]
    #[inline(never)]
    fn expected_punct(&self, p: &str) -> ParseError {
        self.expected(&format!("`{p}`"))
    }

    // Inlined: `k` is then a constant, compared without a call.
    #[inline(always)]
    fn is_keyword(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == k)
    }

    // Inlined: `k` is then a constant, compared without a call.
    #[inline(always)]
    fn eat_keyword(&mut self, k: &str) -> bool {
        if self.is_keyword(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    // ---- metadata ----

    /// Reads the metadata section, at the first `meta[...]`: the lexer
    /// looks ahead for it once (text without metadata references never
    /// pays for that).
    fn load_metadata(&mut self) -> PResult<()> {
        if std::mem::replace(&mut self.meta_loaded, true) {
            return Ok(());
        }
        let found = {
            let tokens = self.tokens.borrow();
            let buffered = tokens
                .ahead
                .iter()
                .copied()
                .find(|t| matches!(t.tok, Tok::Metadata(_)));
            match buffered {
                Some(t) => Some(t),
                None => {
                    let mut scan = tokens.lexer.clone();
                    loop {
                        match scan.next_token() {
                            Ok(t) if matches!(t.tok, Tok::Metadata(_)) => break Some(t),
                            Ok(t) if matches!(t.tok, Tok::Eof) => break None,
                            Ok(_) => {}
                            // The parser reports it when it gets there.
                            Err(_) => break None,
                        }
                    }
                }
            }
        };
        let Some(Token {
            tok: Tok::Metadata(text),
            start,
            end,
            ..
        }) = found
        else {
            return Ok(());
        };
        let err = |m: String| make_error(self.src, start, end, m);
        let json: serde_json::Value = serde_json::from_str(text.trim())
            .map_err(|e| err(format!("the metadata section is not valid JSON: {e}")))?;
        if is_tvm_metadata(&json) {
            let meta = tvm_metadata(&json).map_err(err)?;
            self.meta = meta.constants;
            self.meta_ints = meta.ints;
            return Ok(());
        }
        let constants = json
            .get("relay.Constant")
            .and_then(|c| c.as_array())
            .ok_or_else(|| {
                err("expected metadata of the form {\"relay.Constant\": [...]}".into())
            })?;
        for (i, c) in constants.iter().enumerate() {
            let dtype: DType = c
                .get("dtype")
                .and_then(|d| d.as_str())
                .ok_or_else(|| err(format!("relay.Constant {i}: expected a \"dtype\" string")))?
                .parse()
                .map_err(|e| err(format!("relay.Constant {i}: {e}")))?;
            let shape: Vec<usize> = c
                .get("shape")
                .and_then(|s| s.as_array())
                .and_then(|s| s.iter().map(|d| d.as_u64().map(|d| d as usize)).collect())
                .ok_or_else(|| {
                    err(format!(
                        "relay.Constant {i}: expected a \"shape\" list of integers"
                    ))
                })?;
            let data = c.get("data").and_then(|s| s.as_array());
            if dtype == DType::I64 {
                // Read exactly: through f64 they would round past 2^53.
                // Written as integers; earlier versions wrote `1.0`.
                let int = |d: &serde_json::Value| {
                    d.as_i64().or_else(|| {
                        let v = d.as_f64()?;
                        (v.fract() == 0.0 && v.abs() < 2f64.powi(63)).then_some(v as i64)
                    })
                };
                let values: Vec<i64> =
                    data.and_then(|s| s.iter().map(int).collect())
                        .ok_or_else(|| {
                            err(format!(
                                "relay.Constant {i}: expected a \"data\" list of int64 values"
                            ))
                        })?;
                let tensor = Tensor::from_i64s(&shape, values)
                    .map_err(|e| err(format!("relay.Constant {i}: {e}")))?;
                self.meta.push(tensor);
                continue;
            }
            let data: Vec<f64> = data
                .and_then(|s| {
                    s.iter()
                        .map(|d| {
                            d.as_f64().or_else(|| match d.as_str()? {
                                "nan" => Some(f64::NAN),
                                "inf" => Some(f64::INFINITY),
                                "-inf" => Some(f64::NEG_INFINITY),
                                _ => None,
                            })
                        })
                        .collect()
                })
                .ok_or_else(|| {
                    err(format!(
                        "relay.Constant {i}: expected a \"data\" list of numbers (or \"nan\", \"inf\", \"-inf\")"
                    ))
                })?;
            let tensor = Tensor::from_f64s(dtype, &shape, &data)
                .map_err(|e| err(format!("relay.Constant {i}: {e}")))?;
            self.meta.push(tensor);
        }
        Ok(())
    }

    // ---- entry points ----

    fn parse_module(&mut self) -> PResult<RelayModule> {
        match self.peek() {
            Tok::Version("0.0.5") => {
                self.bump();
            }
            Tok::Version(v) => {
                return Err(
                    self.error_here(format!("unsupported version \"{v}\": expected \"0.0.5\""))
                );
            }
            _ => return Err(self.expected("the version header `#[version = \"0.0.5\"]`")),
        }
        let mut module = RelayModule::new();
        loop {
            if self.is_keyword("type") {
                self.type_def(false)?;
                continue;
            }
            if self.eat_keyword("extern") {
                if !self.is_keyword("type") {
                    return Err(self.expected("`type` after `extern`"));
                }
                self.type_def(true)?;
                continue;
            }
            if !self.eat_keyword("def") {
                break;
            }
            let Tok::Global(name) = self.peek() else {
                return Err(self.expected("a global name such as `@main`"));
            };
            let at = self.token();
            self.bump();
            self.graph.clear();
            let f = self.function_rest(self.span())?;
            if module.add_function(name, f).is_err() {
                return Err(make_error(
                    self.src,
                    at.start,
                    at.end,
                    format!("@{name} is defined twice"),
                ));
            }
        }
        self.finish()?;
        if !self.type_defs.is_empty() {
            module.set_data(std::mem::take(&mut self.type_defs));
        }
        Ok(module)
    }

    /// `type List[A] { Cons(A, List[A]), Nil }`: the type may refer to
    /// itself in its constructors' fields. Without braces it has no
    /// constructors; `extern type T[A]` (`external`) must have none.
    fn type_def(&mut self, external: bool) -> PResult<()> {
        let at = self.token();
        self.bump();
        let Tok::Ident(name) = self.peek() else {
            return Err(self.expected("a type name such as `List`"));
        };
        if is_keyword_name(name) {
            return Err(self.expected("a type name such as `List`"));
        }
        self.bump();
        let params = self.type_param_list()?;
        let outer = self.type_params.len();
        self.type_params.extend(params.iter().cloned());
        self.defining = Some((name.to_owned(), params.len()));
        let constructors = self.constructor_defs();
        self.defining = None;
        self.type_params.truncate(outer);
        let constructors = constructors?;
        if external && !constructors.is_empty() {
            return Err(make_error(
                self.src,
                at.start,
                self.token().end,
                "an external type may not have any constructors".into(),
            ));
        }
        self.type_defs
            .insert(TypeData {
                name: name.to_owned(),
                params,
                constructors,
                external,
            })
            .map_err(|m| make_error(self.src, at.start, self.token().end, m))?;
        Ok(())
    }

    fn constructor_defs(&mut self) -> PResult<Vec<ConstructorDef>> {
        let mut constructors = Vec::new();
        if !self.eat("{") {
            return Ok(constructors);
        }
        while !self.eat("}") {
            let Tok::Ident(name) = self.peek() else {
                return Err(self.expected("a constructor such as `Nil` or `Cons(A, List[A])`"));
            };
            self.bump();
            let mut inputs = Vec::new();
            if self.eat("(") {
                while !self.eat(")") {
                    inputs.push(self.ty()?);
                    if !self.eat(",") {
                        self.expect(")")?;
                        break;
                    }
                }
            }
            constructors.push(ConstructorDef {
                name: name.to_owned(),
                inputs,
            });
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(constructors)
    }

    /// `[A, B]`, or nothing.
    fn type_param_list(&mut self) -> PResult<Vec<String>> {
        let mut params = Vec::new();
        if self.eat("[") {
            while !self.eat("]") {
                let Tok::Ident(name) = self.peek() else {
                    return Err(self.expected("a type parameter name"));
                };
                self.bump();
                params.push(name.to_owned());
                if !self.eat(",") {
                    self.expect("]")?;
                    break;
                }
            }
        }
        Ok(params)
    }

    fn parse_expr_text(&mut self) -> PResult<Expr> {
        if let Tok::Version(v) = self.peek() {
            if v != "0.0.5" {
                return Err(
                    self.error_here(format!("unsupported version \"{v}\": expected \"0.0.5\""))
                );
            }
            self.bump();
        }
        let e = self.seq()?;
        self.finish()?;
        Ok(e)
    }

    fn finish(&mut self) -> PResult<()> {
        if matches!(self.peek(), Tok::Metadata(_)) {
            self.bump();
        }
        match self.peek() {
            Tok::Eof => Ok(()),
            _ => Err(self.expected("a definition (`def @name`) or the end of input")),
        }
    }

    // ---- sequences and scopes ----

    fn with_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.scopes.open();
        let graph_start = self.graph_log.len();
        let r = f(self);
        while self.graph_log.len() > graph_start {
            let Some((n, hidden)) = self.graph_log.pop() else {
                break;
            };
            match hidden {
                Some(e) => self.graph.insert(n, e),
                None => self.graph.remove(&n),
            };
        }
        self.scopes.close();
        r
    }

    fn lookup(&self, name: &str) -> Option<Node<Var>> {
        match self.scopes.lookup(name) {
            Some(v) => Some(v.clone()),
            None => self.free.get(name).cloned(),
        }
    }

    /// Binds `name` (the variable's own name) to `v` in the innermost
    /// scope (as a free variable outside every scope).
    fn bind(&mut self, name: &'a str, v: &Node<Var>) {
        if self.scopes.is_empty() {
            return self.declare_free(name, v);
        }
        self.scopes.bind(name, v);
    }

    fn declare_free(&mut self, name: &'a str, v: &Node<Var>) {
        self.free.insert(name, v.clone());
    }

    /// An expression sequence, in its own scope; the lets are chained from
    /// the end without recursion, so a million-binding chain is fine.
    fn seq(&mut self) -> PResult<Expr> {
        // An item that binds nothing and is not followed by `;` is the
        // whole sequence: no scope to open (most call arguments are one).
        let span = self.span();
        let first = if self.at_binding() {
            None
        } else {
            let e = self.seq_item()?;
            if !self.eat(";") {
                return Ok(e);
            }
            Some((Expr::var("_", None), e, span))
        };
        // The chain is built once the scope is closed, so that the scope's
        // tables are given back before the let nodes are made.
        let (lets, last) = self.with_scope(|p| {
            let mut lets = PendingLets::default();
            if let Some((var, value, span)) = first {
                lets.push(var, value, span);
            }
            let last = loop {
                let span = p.span();
                if p.eat_keyword("let") {
                    let (name, var) = p.var_def()?;
                    p.expect("=")?;
                    p.bind(name, &var);
                    let recursive = matches!(p.peek(), Tok::Ident("fn"));
                    if !recursive {
                        p.let_values.insert(var.id());
                    }
                    let value = p.binop_expr();
                    p.let_values.remove(&var.id());
                    let value = value?;
                    p.expect(";")?;
                    lets.push(var, value, span);
                    continue;
                }
                if p.eat_keyword("free_var") {
                    let (name, var) = p.var_def()?;
                    p.expect(";")?;
                    p.declare_free(name, &var);
                    continue;
                }
                if let Tok::Graph(n) = p.peek()
                    && matches!(p.peek_at(1), Tok::Punct("="))
                {
                    p.bump();
                    p.bump();
                    let value = p.binop_expr()?;
                    p.expect(";")?;
                    let hidden = p.graph.insert(n, value);
                    p.graph_log.push((n, hidden));
                    continue;
                }
                let e = p.seq_item()?;
                if p.eat(";") {
                    let var = Expr::var("_", None);
                    lets.push(var, e, span);
                    continue;
                }
                break e;
            };
            Ok((lets, last))
        })?;
        Ok(lets.chain(last))
    }

    /// At `let`, `free_var` or `%N =`: a sequence item that binds.
    fn at_binding(&self) -> bool {
        match self.peek() {
            Tok::Ident(k) => k == "let" || k == "free_var",
            Tok::Graph(_) => matches!(self.peek_at(1), Tok::Punct("=")),
            _ => false,
        }
    }

    /// A sequence item that binds nothing: `{ sequence }` or an expression.
    fn seq_item(&mut self) -> PResult<Expr> {
        // Braces nest sequences in sequences: each level on a guarded stack.
        guarded(|| {
            if self.eat("{") {
                let inner = self.seq()?;
                self.expect("}")?;
                return Ok(inner);
            }
            self.binop_expr()
        })
    }

    /// `%x` or `%x: T`: the name as written, and the variable.
    fn var_def(&mut self) -> PResult<(&'a str, Node<Var>)> {
        let span = self.span();
        let Tok::Local(name) = self.peek() else {
            return Err(self.expected("a variable such as `%x`"));
        };
        self.bump();
        // `%x: _` says no more than `%x`: both are to be inferred (TVM's
        // tests compare `let %_ : _ = ...` with an unannotated variable).
        let annotation = if self.eat(":") {
            Some(self.ty()?).filter(|t| !matches!(t, Type::IncompleteType(_)))
        } else {
            None
        };
        Ok((
            name,
            Node::new(Var {
                name: name.into(),
                annotation,
                ext: ir_core::Rare::none(),
                span,
            }),
        ))
    }

    // ---- expressions ----

    fn binop_expr(&mut self) -> PResult<Expr> {
        self.binop_from(0)
    }

    /// Precedence climbing, all operators left-associative.
    fn binop_from(&mut self, min_prec: u8) -> PResult<Expr> {
        guarded(|| {
            let mut lhs = self.call_expr()?;
            while let Some((prec, op)) = binop(self.peek()) {
                if prec < min_prec {
                    break;
                }
                let span = self.span();
                self.bump();
                let rhs = self.binop_from(prec + 1)?;
                lhs = Call {
                    op: self.op_node(op, span),
                    args: [lhs, rhs].into(),
                    attrs: Attrs::new(),
                    span,
                }
                .into();
            }
            Ok(lhs)
        })
    }

    fn call_expr(&mut self) -> PResult<Expr> {
        let mut e = self.atom()?;
        while matches!(self.peek(), Tok::Punct("(")) {
            let span = self.span();
            self.bump();
            let (args, attrs) = self.call_args()?;
            e = Call {
                op: e,
                args,
                attrs,
                span,
            }
            .into();
        }
        Ok(e)
    }

    /// At `name=` or `dotted.name=` (`relay.reshape_only=1`).
    fn at_attr(&self) -> bool {
        if !matches!(self.peek(), Tok::Ident(s) if !is_keyword_name(s)) {
            return false;
        }
        let mut k = 1;
        while matches!(self.peek_at(k), Tok::Punct("."))
            && matches!(self.peek_at(k + 1), Tok::Ident(_))
        {
            k += 2;
        }
        matches!(self.peek_at(k), Tok::Punct("="))
    }

    /// A call's arguments and attributes, after its `(`. The arguments are
    /// gathered on a stack shared by nested calls, so that each call's list
    /// is made once at its exact length (in the node for two or fewer).
    fn call_args(&mut self) -> PResult<(ShortVec<Expr>, Attrs)> {
        let base = self.arg_stack.len();
        let attrs = self.call_args_onto_stack();
        let args = self.arg_stack.drain(base..).collect();
        Ok((args, attrs?))
    }

    fn call_args_onto_stack(&mut self) -> PResult<Attrs> {
        let mut attrs = Attrs::new();
        loop {
            if self.eat(")") {
                return Ok(attrs);
            }
            if self.at_attr() {
                let (k, v) = self.attr()?;
                attrs.insert(k, v);
            } else if attrs.is_empty() {
                let arg = self.seq()?;
                self.arg_stack.push(arg);
            } else {
                return Err(
                    self.expected("an attribute `name=value` (arguments come before attributes)")
                );
            }
            if !self.eat(",") {
                self.expect(")")?;
                return Ok(attrs);
            }
        }
    }

    fn attr(&mut self) -> PResult<(String, AttrValue)> {
        let Tok::Ident(first) = self.take() else {
            return Err(self.expected("an attribute name"));
        };
        let mut name = first.to_owned();
        while self.eat(".") {
            let Tok::Ident(part) = self.take() else {
                return Err(self.expected("an attribute name"));
            };
            name.push('.');
            name.push_str(part);
        }
        self.expect("=")?;
        Ok((name, self.attr_value(0)?))
    }

    /// An attribute value, `depth` lists or parentheses deep. Attribute
    /// values are data, not program: their nesting is bounded, so that
    /// printing, cloning and dropping them need no stack guard.
    fn attr_value(&mut self, depth: usize) -> PResult<AttrValue> {
        if depth > MAX_ATTR_NESTING {
            return Err(self.error_here(format!(
                "attribute values nest at most {MAX_ATTR_NESTING} deep"
            )));
        }
        guarded(|| {
            Ok(match self.peek() {
                Tok::Int(v, ..) => {
                    self.bump();
                    AttrValue::Int(v)
                }
                Tok::Float(v, _) => {
                    self.bump();
                    AttrValue::Float(v)
                }
                Tok::Str(s) => {
                    self.bump();
                    AttrValue::Str(s.to_owned())
                }
                Tok::Ident(s) if s == "True" || s == "False" => {
                    self.bump();
                    AttrValue::Bool(s == "True")
                }
                Tok::Ident(s) if s == "None" || s == "nullptr" => {
                    self.bump();
                    AttrValue::Null
                }
                Tok::Punct("[") => {
                    self.bump();
                    let mut items = Vec::new();
                    while !self.eat("]") {
                        items.push(self.attr_value(depth + 1)?);
                        if !self.eat(",") {
                            self.expect("]")?;
                            break;
                        }
                    }
                    AttrValue::List(items)
                }
                Tok::Punct("(") => {
                    self.bump();
                    let v = self.attr_value(depth + 1)?;
                    self.expect(")")?;
                    v
                }
                Tok::Meta("runtime.BoxInt", index) => {
                    self.load_metadata()?;
                    let Some(&v) = self.meta_ints.get(index) else {
                        return Err(self.error_here(format!(
                            "meta[runtime.BoxInt][{index}] is out of range: the metadata has {}",
                            self.meta_ints.len()
                        )));
                    };
                    self.bump();
                    AttrValue::Int(v)
                }
                _ => {
                    return Err(
                        self.expected("an attribute value (number, string, bool, list or None)")
                    );
                }
            })
        })
    }

    fn atom(&mut self) -> PResult<Expr> {
        let e = self.atom_base()?;
        if matches!(self.peek(), Tok::Punct("."))
            && let Tok::Int(index, _, _) = self.peek_at(1)
        {
            let span = self.span();
            self.bump();
            self.bump();
            let index = usize::try_from(index)
                .map_err(|_| self.error_here("a tuple index cannot be negative"))?;
            return Ok(TupleGetItem {
                tuple: e,
                index,
                span,
            }
            .into());
        }
        Ok(e)
    }

    fn constant(&self, data: Tensor, span: Span) -> Expr {
        Constant { data, span }.into()
    }

    /// The constant of a scalar literal, one node per distinct literal
    /// (`kind` tells apart literals of equal bits: int, float, bool).
    fn scalar(&mut self, key: (u16, u64, u8), span: Span, data: impl FnOnce() -> Tensor) -> Expr {
        // The node kept by kind: cloning it is a count increment, where
        // cloning an `Expr` is a call through its variants.
        let node = self
            .scalars
            .entry(key)
            .or_insert_with(|| Node::new(Constant { data: data(), span }));
        Expr::Constant(node.clone())
    }

    /// The operator node named `name`, one per name.
    fn op_node(&mut self, name: &'a str, span: Span) -> Expr {
        let node = self.ops.entry(name).or_insert_with(|| {
            Node::new(Op {
                name: name.to_owned(),
                span,
            })
        });
        Expr::Op(node.clone())
    }

    fn atom_base(&mut self) -> PResult<Expr> {
        let span = self.span();
        match self.peek() {
            Tok::Int(v, bits, explicit) => {
                self.bump();
                let data = match (bits, explicit) {
                    (16, _) => i16::try_from(v)
                        .map(|v| Tensor::I16(ndarray::arr0(v).into_dyn()))
                        .ok(),
                    (64, _) | (32, false) if i32::try_from(v).is_err() || bits == 64 => {
                        Some(Tensor::I64(ndarray::arr0(v).into_dyn()))
                    }
                    _ => i32::try_from(v).map(Tensor::scalar_i32).ok(),
                };
                let Some(data) = data else {
                    return Err(self.error_at_previous(format!("{v} does not fit in int{bits}")));
                };
                let width = data.dtype().bits;
                Ok(self.scalar((width, v as u64, 0), span, || data))
            }
            Tok::Float(v, bits) => {
                self.bump();
                Ok(self.scalar((bits, v.to_bits(), 1), span, || match bits {
                    64 => Tensor::F64(ndarray::arr0(v).into_dyn()),
                    16 => Tensor::F16(ndarray::arr0(half::f16::from_f64(v)).into_dyn()),
                    _ => Tensor::scalar_f32(v as f32),
                }))
            }
            Tok::Ident(s) if s == "True" || s == "False" => {
                self.bump();
                let truth = s == "True";
                Ok(self.scalar((1, u64::from(truth), 2), span, || {
                    Tensor::scalar_bool(truth)
                }))
            }
            Tok::Local(name) => {
                let Some(var) = self.lookup(name) else {
                    return Err(self.error_here(format!("unbound variable `%{name}`")));
                };
                if self.let_values.contains(&var.id()) {
                    return Err(self.error_here(format!(
                        "`%{name}` is read in its own value, before it is defined \
                         (only a function may refer to itself)"
                    )));
                }
                self.bump();
                Ok(var.into())
            }
            Tok::Graph(n) => {
                let Some(e) = self.graph.get(&n).cloned() else {
                    return Err(self.error_here(format!(
                        "graph variable `%{n}` is not defined here (it is used before its definition, or outside the block that defines it)"
                    )));
                };
                self.bump();
                Ok(e)
            }
            Tok::Global(name) => {
                self.bump();
                Ok(GlobalVar {
                    name: name.to_owned(),
                    span,
                }
                .into())
            }
            Tok::Meta(key, index) => {
                self.load_metadata()?;
                if key != "relay.Constant" {
                    return Err(self.error_here(format!(
                        "unknown metadata key `{key}`: expected relay.Constant"
                    )));
                }
                if let Some(e) = self.meta_nodes.get(&index) {
                    let e = e.clone();
                    self.bump();
                    return Ok(e);
                }
                let Some(data) = self.meta.get(index).cloned() else {
                    return Err(self.error_here(format!(
                        "meta[relay.Constant][{index}] is out of range: the metadata has {} constants",
                        self.meta.len()
                    )));
                };
                self.bump();
                let e = self.constant(data, span);
                self.meta_nodes.insert(index, e.clone());
                Ok(e)
            }
            Tok::Ident("fn") => {
                self.bump();
                Ok(self.function_rest(span)?.into())
            }
            Tok::Ident("if") => {
                self.bump();
                self.expect("(")?;
                let cond = self.seq()?;
                self.expect(")")?;
                let then_branch = self.braced()?;
                if !self.eat_keyword("else") {
                    return Err(self.expected("`else` (both branches are required)"));
                }
                let else_branch = self.braced()?;
                Ok(If {
                    cond,
                    then_branch,
                    else_branch,
                    span,
                }
                .into())
            }
            Tok::Ident(s) if s == "ref" || s == "ref_read" || s == "ref_write" => {
                self.bump();
                self.expect("(")?;
                let first = self.seq()?;
                let e = match s {
                    "ref" => RefCreate { value: first, span }.into(),
                    "ref_read" => RefRead {
                        reference: first,
                        span,
                    }
                    .into(),
                    _ => {
                        self.expect(",")?;
                        let value = self.seq()?;
                        RefWrite {
                            reference: first,
                            value,
                            span,
                        }
                        .into()
                    }
                };
                self.expect(")")?;
                Ok(e)
            }
            Tok::Ident("match") => {
                self.bump();
                self.match_rest(span)
            }
            Tok::Ident(s) if self.type_defs.is_constructor(s) => {
                self.bump();
                let Some(c) = self.type_defs.constructor(s, span) else {
                    return Err(self.expected("a constructor"));
                };
                // A constructor without fields stands for its value, `Nil`
                // for `Nil()`, as TVM reads and prints it.
                if c.adt.constructors[c.tag].inputs.is_empty()
                    && !matches!(self.peek(), Tok::Punct("("))
                {
                    return Ok(Expr::call(c.into(), Vec::new()));
                }
                Ok(c.into())
            }
            Tok::Ident(s) if !is_keyword_name(s) && s != "_" => {
                let first = self.token();
                self.bump();
                // `nn.relu`: the name runs over the dots; written without
                // spaces (as always) it is the source text itself.
                let (mut end, mut adjacent) = (first.end, true);
                while matches!(self.peek(), Tok::Punct("."))
                    && matches!(self.peek_at(1), Tok::Ident(_))
                {
                    let dot = self.token();
                    self.bump();
                    let part = self.token();
                    self.bump();
                    adjacent &= dot.start == end && part.start == dot.end;
                    end = part.end;
                }
                let text = &self.src[first.start..end];
                if !adjacent {
                    let name: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                    return Ok(Op { name, span }.into());
                }
                Ok(self.op_node(text, span))
            }
            Tok::Punct("(") => {
                self.bump();
                if self.eat(")") {
                    return Ok(Tuple {
                        fields: vec![],
                        span,
                    }
                    .into());
                }
                let first = self.seq()?;
                if self.eat(")") {
                    return Ok(first);
                }
                self.expect(",")?;
                let mut fields = vec![first];
                while !self.eat(")") {
                    fields.push(self.seq()?);
                    if !self.eat(",") {
                        self.expect(")")?;
                        break;
                    }
                }
                Ok(Tuple { fields, span }.into())
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// After `match`: `?` (incomplete), `(data) { pattern => body, ... }`.
    /// A clause's body is braced, or one expression.
    fn match_rest(&mut self, span: Span) -> PResult<Expr> {
        let complete = !self.eat("?");
        if !matches!(self.peek(), Tok::Punct("(")) {
            return Err(self.expected("`(` and the value matched"));
        }
        // `(data)`: a parenthesised expression, or a tuple `(%a, %b)`.
        let data = self.atom()?;
        self.expect("{")?;
        let mut clauses = Vec::new();
        while !self.eat("}") {
            let clause = self.with_scope(|p| {
                let lhs = p.pattern()?;
                p.expect("=>")?;
                let rhs = if matches!(p.peek(), Tok::Punct("{")) {
                    p.braced()?
                } else {
                    p.binop_expr()?
                };
                Ok(Clause { lhs, rhs })
            })?;
            clauses.push(clause);
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(Match {
            data,
            clauses,
            complete,
            span,
        }
        .into())
    }

    /// `_`, `%x` (`%x: T`), `Cons(p, ...)`, `Nil` or `(p, ...)`; variables
    /// are bound in the current scope.
    fn pattern(&mut self) -> PResult<Pattern> {
        guarded(|| match self.peek() {
            Tok::Ident("_") => {
                self.bump();
                Ok(Pattern::wildcard())
            }
            Tok::Local(_) => {
                let (name, var) = self.var_def()?;
                self.bind(name, &var);
                Ok(Pattern::var(var))
            }
            Tok::Punct("(") => {
                self.bump();
                let patterns = self.patterns_until_close()?;
                Ok(PatternTuple { patterns }.into())
            }
            Tok::Ident(s) => {
                let span = self.span();
                let Some(constructor) = self.type_defs.constructor(s, span) else {
                    return Err(self.error_here(format!("unknown constructor `{s}`")));
                };
                self.bump();
                let patterns = if self.eat("(") {
                    self.patterns_until_close()?
                } else {
                    Vec::new()
                };
                let arity = constructor.adt.constructors[constructor.tag].inputs.len();
                if patterns.len() != arity {
                    return Err(self.error_here(format!(
                        "`{s}` has {arity} fields, the pattern gives {}",
                        patterns.len()
                    )));
                }
                Ok(PatternConstructor {
                    constructor,
                    patterns,
                }
                .into())
            }
            _ => Err(self.expected("a pattern (`_`, `%x`, a constructor or a tuple)")),
        })
    }

    fn patterns_until_close(&mut self) -> PResult<Vec<Pattern>> {
        let mut patterns = Vec::new();
        while !self.eat(")") {
            patterns.push(self.pattern()?);
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        Ok(patterns)
    }

    fn braced(&mut self) -> PResult<Expr> {
        self.expect("{")?;
        let e = self.seq()?;
        self.expect("}")?;
        Ok(e)
    }

    /// `[T, ...]? (params, attrs) -> R { body }` after `fn` or `def @name`.
    fn function_rest(&mut self, span: Span) -> PResult<Node<Function>> {
        let type_params = self.type_param_list()?;
        let outer = self.type_params.len();
        self.type_params.extend(type_params.iter().cloned());
        let f = self.function_after_type_params(span, type_params);
        self.type_params.truncate(outer);
        f
    }

    fn function_after_type_params(
        &mut self,
        span: Span,
        type_params: Vec<String>,
    ) -> PResult<Node<Function>> {
        self.expect("(")?;
        self.with_scope(|p| {
            let mut params = Vec::new();
            let mut attrs = Attrs::new();
            loop {
                if p.eat(")") {
                    break;
                }
                if p.at_attr() {
                    let (k, v) = p.attr()?;
                    attrs.insert(k, v);
                } else if attrs.is_empty() {
                    let (name, v) = p.var_def()?;
                    p.bind(name, &v);
                    params.push(v);
                } else {
                    return Err(p.expected(
                        "an attribute `name=value` (parameters come before attributes)",
                    ));
                }
                if !p.eat(",") {
                    p.expect(")")?;
                    break;
                }
            }
            let ret_type = if p.eat("->") { Some(p.ty()?) } else { None };
            let body = p.braced()?;
            Ok(Node::new(Function {
                type_params,
                params,
                ret_type,
                body,
                attrs,
                span,
            }))
        })
    }

    // ---- types ----

    fn ty(&mut self) -> PResult<Type> {
        guarded(|| match self.peek() {
            Tok::Ident("Tensor") => {
                let start = self.token().start;
                if let Some((text, t)) = &self.last_tensor_type
                    && self.src[start..].starts_with(text)
                {
                    let t = t.clone();
                    if self.skip_ascii_line_to(start + text.len()) {
                        return Ok(t);
                    }
                }
                self.bump();
                self.expect("[")?;
                self.expect("(")?;
                let mut shape = std::mem::take(&mut self.dims);
                shape.clear();
                while !self.eat(")") {
                    let dim = match self.peek() {
                        Tok::Int(n, ..) if n >= 0 => Dim::Known(n),
                        Tok::Int(..) => {
                            return Err(
                                self.error_here("a dimension must be a non-negative integer")
                            );
                        }
                        Tok::Punct("?") => Dim::Any,
                        // A symbolic extent of TVM's metadata: Relay's
                        // shapes here are known or unknown, so it reads as
                        // unknown (and prints as `?`).
                        Tok::Meta(key, _) if key == "tir.SizeVar" || key == "tir.Var" => Dim::Any,
                        _ => return Err(self.expected("a dimension (an integer or `?`)")),
                    };
                    self.bump();
                    shape.push(dim);
                    if !self.eat(",") {
                        self.expect(")")?;
                        break;
                    }
                }
                self.expect(",")?;
                let dtype = self.dtype()?;
                self.expect("]")?;
                // One node per type as written: found by its text, so that a
                // type written again allocates nothing.
                let text = &self.src[start..self.previous.1];
                let t = self
                    .tensor_types
                    .entry(text)
                    .or_insert_with(|| Type::tensor(shape.clone(), dtype))
                    .clone();
                self.dims = shape;
                if text.is_ascii() && !text.contains(['\n', '\r']) {
                    self.last_tensor_type = Some((text, t.clone()));
                }
                Ok(t)
            }
            Tok::Ident("_") => {
                self.bump();
                Ok(Type::incomplete())
            }
            Tok::Ident("fn") => {
                self.bump();
                let type_params = self.type_param_list()?;
                let outer = self.type_params.len();
                self.type_params.extend(type_params.iter().cloned());
                let rest = self.func_type_rest();
                self.type_params.truncate(outer);
                let (params, ret) = rest?;
                Ok(FuncType {
                    type_params,
                    params,
                    ret,
                }
                .into())
            }
            Tok::Ident("ref") => {
                self.bump();
                self.expect("(")?;
                let value = self.ty()?;
                self.expect(")")?;
                Ok(Type::reference(value))
            }
            Tok::Ident(s) if self.type_params.iter().rev().any(|p| *p == s) => {
                self.bump();
                Ok(Type::var(s))
            }
            Tok::Ident(s) if self.adt_arity(s).is_some() => {
                let arity = self.adt_arity(s).unwrap_or(0);
                self.bump();
                let mut args = Vec::new();
                if self.eat("[") {
                    while !self.eat("]") {
                        args.push(self.ty()?);
                        if !self.eat(",") {
                            self.expect("]")?;
                            break;
                        }
                    }
                }
                if args.len() != arity {
                    return Err(self.error_at_previous(format!(
                        "`{s}` takes {arity} type arguments, given {}",
                        args.len()
                    )));
                }
                Ok(Type::call(s, args))
            }
            Tok::Ident(_) => Ok(Type::scalar(self.dtype()?)),
            Tok::Punct("(") => {
                self.bump();
                let mut fields = Vec::new();
                while !self.eat(")") {
                    fields.push(self.ty()?);
                    if !self.eat(",") {
                        self.expect(")")?;
                        break;
                    }
                }
                Ok(Type::tuple(fields))
            }
            _ => Err(self.expected("a type")),
        })
    }

    /// `(T, ...) -> R` of a function type.
    fn func_type_rest(&mut self) -> PResult<(Vec<Type>, Type)> {
        self.expect("(")?;
        let mut params = Vec::new();
        while !self.eat(")") {
            params.push(self.ty()?);
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        self.expect("->")?;
        Ok((params, self.ty()?))
    }

    /// The number of type parameters of the type definition `name`, if it is one.
    fn adt_arity(&self, name: &str) -> Option<usize> {
        match &self.defining {
            Some((defining, n)) if defining == name => Some(*n),
            _ => self.type_defs.get(name).map(|d| d.params.len()),
        }
    }

    fn dtype(&mut self) -> PResult<DType> {
        let Tok::Ident(name) = self.peek() else {
            return Err(self.expected("a dtype such as `float32`"));
        };
        let d = name.parse().map_err(|e: String| self.error_here(e))?;
        self.bump();
        Ok(d)
    }
}
