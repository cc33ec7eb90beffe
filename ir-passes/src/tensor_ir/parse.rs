//! The parser of the text format the printer writes (see [`super::print`]).
//! Errors carry `line:col` and what was expected; no input panics, and
//! nesting depth is limited only by memory (the recursion is stack-guarded).
//!
//! Names are scoped: a loop variable or `var` is visible in the rest of its
//! block, parameters in the function. In a standalone expression or
//! statement, names not defined in it are free `s32` variables (one variable
//! per name); in a function they are an error.

use std::fmt;

use ir_core::Node;
use ir_core::stack::guarded;
use rustc_hash::FxHashMap;

use super::attrs::Attrs;
use super::build;
use super::dtype::{DType, Value};
use super::expr::{Expr, Intrin, Tensor, Var};
use super::stmt::{ForKind, Func, Module, Stmt};

/// A syntax or scoping error, at a position of the input (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
    /// What was expected, and what was found.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// Digits and suffix: `1`, `1L`, `1UL`.
    Int(i64, DType),
    Float(f32),
    Punct(&'static str),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Int(v, _) => write!(f, "number `{v}`"),
            Tok::Float(v) => write!(f, "number `{v}`"),
            Tok::Punct(p) => write!(f, "`{p}`"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

#[derive(Clone)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
}

const PUNCT: [&str; 26] = [
    "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", "{", "}", ",", ":", "=", "<", ">", "+",
    "-", "*", "/", "%", "!", "?", "&", ";",
];

fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut col) = (0, 1, 1);
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let start = (line, col);
        let start_i = i;
        let err = |message: String| ParseError {
            line: start.0,
            col: start.1,
            message,
        };
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                s.push(chars[i]);
                i += 1;
            }
            Tok::Ident(s)
        } else if c.is_ascii_digit() {
            let mut s = String::new();
            let mut float = false;
            while i < chars.len() {
                let d = chars[i];
                let exp_sign = (d == '-' || d == '+') && s.ends_with('e');
                if d.is_ascii_digit() || d == '.' || d == 'e' || exp_sign {
                    float |= d == '.' || d == 'e';
                    s.push(d);
                    i += 1;
                } else {
                    break;
                }
            }
            let mut suffix = String::new();
            while i < chars.len() && chars[i].is_ascii_alphabetic() {
                suffix.push(chars[i]);
                i += 1;
            }
            match suffix.as_str() {
                "f" => Tok::Float(
                    s.parse::<f32>()
                        .map_err(|_| err(format!("malformed float literal `{s}f`")))?,
                ),
                "" | "L" | "UL" if !float => {
                    let dtype = match suffix.as_str() {
                        "" => DType::S32,
                        "L" => DType::S64,
                        _ => DType::Index,
                    };
                    let v = s
                        .parse::<u64>()
                        .map_err(|_| err(format!("integer literal `{s}` is too large")))?;
                    let fits = match dtype {
                        DType::S32 => v <= i32::MAX as u64 + 1,
                        DType::S64 => v <= i64::MAX as u64 + 1,
                        _ => true,
                    };
                    if !fits {
                        return Err(err(format!(
                            "integer literal `{s}{suffix}` does not fit in {dtype}"
                        )));
                    }
                    Tok::Int(v as i64, dtype)
                }
                _ => {
                    return Err(err(format!(
                        "malformed number `{s}{suffix}`: expected an integer (`1`, `1L`, `1UL`) or a float (`1.5f`)"
                    )));
                }
            }
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let Some(p) = PUNCT.iter().find(|p| rest.starts_with(**p)) else {
                return Err(err(format!("unexpected character `{c}`")));
            };
            i += p.chars().count();
            Tok::Punct(p)
        };
        col += i - start_i;
        out.push(Token {
            tok,
            line: start.0,
            col: start.1,
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(out)
}

#[derive(Clone)]
enum Binding {
    Var(Node<Var>),
    Tensor(Node<Tensor>),
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// What each name means now, innermost definition last: a lookup costs
    /// the same at any depth of nesting.
    names: FxHashMap<String, Vec<Binding>>,
    /// The names each open scope defined, to forget when it closes.
    scopes: Vec<Vec<String>>,
    /// Free names become variables (standalone expressions and statements).
    allow_free: bool,
    free: FxHashMap<String, Node<Var>>,
    /// Return types of the module's functions.
    funcs: FxHashMap<String, DType>,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn new(src: &str, allow_free: bool) -> PResult<Self> {
        Ok(Parser {
            toks: lex(src)?,
            pos: 0,
            names: FxHashMap::default(),
            scopes: vec![Vec::new()],
            allow_free,
            free: FxHashMap::default(),
            funcs: FxHashMap::default(),
        })
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn here(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn error_at(&self, token: &Token, message: String) -> ParseError {
        ParseError {
            line: token.line,
            col: token.col,
            message,
        }
    }

    fn expected(&self, what: &str) -> ParseError {
        let t = self.here();
        self.error_at(t, format!("expected {what}, found {}", t.tok))
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == kw)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{p}`")))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            _ => Err(self.expected(what)),
        }
    }

    fn dtype(&mut self) -> PResult<DType> {
        let t = self.here().clone();
        let name = self.ident("a type (`s32`, `s64`, `index`, `f32`, `bool`, `void`)")?;
        DType::from_name(&name).ok_or_else(|| {
            self.error_at(
                &t,
                format!(
                    "expected a type (`s32`, `s64`, `index`, `f32`, `bool`, `void`), found `{name}`"
                ),
            )
        })
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.names.get(name)?.last().cloned()
    }

    fn bind(&mut self, name: String, b: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(name.clone());
            self.names.entry(name).or_default().push(b);
        }
    }

    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.scopes.push(Vec::new());
        let out = f(self);
        for name in self.scopes.pop().unwrap_or_default() {
            if let Some(stack) = self.names.get_mut(&name) {
                stack.pop();
                if stack.is_empty() {
                    self.names.remove(&name);
                }
            }
        }
        out
    }

    fn at_end(&self) -> PResult<()> {
        if matches!(self.peek(), Tok::Eof) {
            Ok(())
        } else {
            Err(self.expected("end of input"))
        }
    }

    // ---- Functions ----

    /// Records every function's return type, so that calls can name
    /// functions defined later.
    fn scan_signatures(&mut self) {
        let mut depth = 0usize;
        let mut i = 0;
        while i < self.toks.len() {
            match &self.toks[i].tok {
                Tok::Punct("{") => depth += 1,
                Tok::Punct("}") => depth = depth.saturating_sub(1),
                Tok::Ident(kw) if kw == "func" && depth == 0 => {
                    if let Some(Tok::Ident(name)) = self.toks.get(i + 1).map(|t| &t.tok) {
                        // Find the `)` closing the parameters, then `: type`.
                        let mut j = i + 2;
                        let mut parens = 0usize;
                        while j < self.toks.len() {
                            match self.toks[j].tok {
                                Tok::Punct("(") | Tok::Punct("[") => parens += 1,
                                Tok::Punct(")") | Tok::Punct("]") => {
                                    parens = parens.saturating_sub(1);
                                    if parens == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            j += 1;
                        }
                        if let (Some(Tok::Punct(":")), Some(Tok::Ident(ty))) = (
                            self.toks.get(j + 1).map(|t| &t.tok),
                            self.toks.get(j + 2).map(|t| &t.tok),
                        ) && let Some(d) = DType::from_name(ty)
                        {
                            self.funcs.insert(name.clone(), d);
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    fn func(&mut self) -> PResult<Func> {
        if !self.is_kw("func") {
            return Err(self.expected("`func`"));
        }
        self.bump();
        let name = self.ident("a function name")?;
        self.scoped(|p| {
            p.expect("(")?;
            let mut params = Vec::new();
            if !p.is(")") {
                loop {
                    params.push(p.param()?);
                    if !p.eat(",") {
                        break;
                    }
                }
            }
            p.expect(")")?;
            p.expect(":")?;
            let ret = p.dtype()?;
            if !p.is("{") {
                return Err(p.expected("`{` opening the function body"));
            }
            let body = p.stmt()?;
            Ok(build::func(&name, params, body, ret))
        })
    }

    fn param(&mut self) -> PResult<Expr> {
        let name = self.ident("a parameter name")?;
        self.expect(":")?;
        if self.is("[") {
            let t = self.tensor_type(&name)?;
            self.bind(name, Binding::Tensor(t.clone()));
            Ok(t.into())
        } else {
            let dtype = self.dtype()?;
            let v = build::var_of(&name, dtype);
            self.bind(name, Binding::Var(v.clone()));
            Ok(v.into())
        }
    }

    /// `[f32 * 10 * 20]`, then optionally `strides [20, 1]`.
    fn tensor_type(&mut self, name: &str) -> PResult<Node<Tensor>> {
        self.expect("[")?;
        let elem = self.dtype()?;
        let mut dims = Vec::new();
        // Each dim is one operand (`(n + 1)` is parenthesized): `*` separates them.
        while self.eat("*") {
            dims.push(self.unary()?);
        }
        self.expect("]")?;
        let mut t = build::tensor_of(name, elem, dims);
        if self.is_kw("strides") {
            self.bump();
            self.expect("[")?;
            let strides = self.expr_list("]")?;
            if strides.len() != t.dims.len() {
                return Err(self.expected(&format!("{} strides, one per dim", t.dims.len())));
            }
            t = Node::new(Tensor {
                strides,
                ..(*t).clone()
            });
        }
        Ok(t)
    }

    // ---- Statements ----

    fn stmt(&mut self) -> PResult<Stmt> {
        guarded(|| self.stmt_inner())
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        if self.is("{") {
            self.bump();
            return self.scoped(|p| {
                let mut seq = Vec::new();
                while !p.is("}") {
                    if matches!(p.peek(), Tok::Eof) {
                        return Err(p.expected("`}` closing the block"));
                    }
                    seq.push(p.stmt()?);
                    p.eat(";");
                }
                p.bump();
                Ok(build::stmts(seq))
            });
        }
        let kw = match self.peek() {
            Tok::Ident(s) => s.clone(),
            _ => String::new(),
        };
        match kw.as_str() {
            "var" => {
                self.bump();
                let name = self.ident("a variable name")?;
                self.expect(":")?;
                let dtype = self.dtype()?;
                // The initializer is read before the variable is in scope.
                let init = if self.eat("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                let v = build::var_of(&name, dtype);
                self.bind(name, Binding::Var(v.clone()));
                Ok(build::define(v, init))
            }
            "tensor" => {
                self.bump();
                let name = self.ident("a tensor name")?;
                self.expect(":")?;
                let t = self.tensor_type(&name)?;
                // The initializer is read before the tensor is in scope: a
                // pointer to memory of the tensor's element type.
                let init = if self.eat("=") {
                    let at = self.here().clone();
                    let init = self.expr()?;
                    match &init {
                        Expr::TensorPtr(p) => match &p.base.tensor {
                            Expr::Tensor(base) if base.elem != t.elem => {
                                return Err(self.error_at(
                                    &at,
                                    format!(
                                        "a view of `{}` ({} elements) has element type {}, not {}",
                                        base.name, base.elem, base.elem, t.elem
                                    ),
                                ));
                            }
                            _ => {}
                        },
                        _ => {
                            return Err(self.error_at(
                                &at,
                                "expected a tensor pointer such as `&A[0]` as the tensor's initializer"
                                    .to_owned(),
                            ));
                        }
                    }
                    Some(init)
                } else {
                    None
                };
                self.bind(name, Binding::Tensor(t.clone()));
                Ok(build::define_tensor_at(t, init))
            }
            "if" => {
                self.bump();
                self.expect("(")?;
                let cond = self.expr()?;
                self.expect(")")?;
                let then_case = self.branch()?;
                let else_case = if self.is_kw("else") {
                    self.bump();
                    Some(if self.is_kw("if") {
                        self.stmt()?
                    } else {
                        self.branch()?
                    })
                } else {
                    None
                };
                Ok(build::if_else(cond, then_case, else_case))
            }
            "for" => {
                self.bump();
                let name = self.ident("a loop variable")?;
                if !self.is_kw("in") {
                    return Err(self.expected("`in`"));
                }
                self.bump();
                self.expect("(")?;
                let begin = self.expr()?;
                self.expect(",")?;
                let end = self.expr()?;
                self.expect(",")?;
                let step = self.expr()?;
                self.expect(")")?;
                let kind = match self.peek() {
                    Tok::Ident(k) if k == "parallel" => ForKind::Parallel,
                    Tok::Ident(k) if k == "unroll" => ForKind::Unroll,
                    Tok::Ident(k) if k == "vectorized" => ForKind::Vectorized,
                    _ => ForKind::Serial,
                };
                if kind != ForKind::Serial {
                    self.bump();
                }
                if !self.is("{") {
                    return Err(self.expected("`{` opening the loop body"));
                }
                let var = build::var_of(&name, begin.dtype());
                let body = self.scoped(|p| {
                    p.bind(name, Binding::Var(var.clone()));
                    p.stmt()
                })?;
                Ok(build::for_loop_of(kind, var, begin, end, step, body))
            }
            "evaluate" => {
                self.bump();
                self.expect("{")?;
                let e = self.expr()?;
                self.expect("}")?;
                Ok(build::evaluate(e))
            }
            "return" => {
                let line = self.here().line;
                self.bump();
                let next = self.here();
                let ends = matches!(self.peek(), Tok::Eof) || self.is("}") || self.is(";");
                let value = if next.line == line && !ends {
                    Some(self.expr()?)
                } else {
                    None
                };
                Ok(build::returns(value))
            }
            _ => {
                let start = self.here().clone();
                let lhs = self.expr()?;
                if !matches!(lhs, Expr::Var(_) | Expr::Indexing(_)) {
                    return Err(self.error_at(
                        &start,
                        "expected a statement (`var`, `tensor`, `if`, `for`, `evaluate{..}`, \
                         `return`, a block, or an assignment to a variable or tensor element)"
                            .to_owned(),
                    ));
                }
                self.expect("=")?;
                let rhs = self.expr()?;
                Ok(build::assign(lhs, rhs))
            }
        }
    }

    fn branch(&mut self) -> PResult<Stmt> {
        if !self.is("{") {
            return Err(self.expected("`{`"));
        }
        self.stmt()
    }

    // ---- Expressions ----

    fn expr(&mut self) -> PResult<Expr> {
        guarded(|| self.binary(0))
    }

    fn expr_list(&mut self, close: &str) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            if self.eat(close) {
                return Ok(out);
            }
            if !self.eat(",") {
                return Err(self.expected(&format!("`,` or `{close}`")));
            }
        }
    }

    /// Precedence climbing; every level is left associative.
    fn binary(&mut self, level: usize) -> PResult<Expr> {
        const LEVELS: [&[&str]; 5] = [
            &["||"],
            &["&&"],
            &["==", "!=", "<", "<=", ">", ">="],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut l = self.binary(level + 1)?;
        // A chain `a + b + c + ...` is read in a loop: its length is not
        // limited by the stack.
        while let Tok::Punct(p) = *self.peek() {
            if !LEVELS[level].contains(&p) {
                break;
            }
            self.bump();
            let r = self.binary(level + 1)?;
            l = match p {
                "||" => build::logic_or(l, r),
                "&&" => build::logic_and(l, r),
                "==" => build::cmp_eq(l, r),
                "!=" => build::cmp_ne(l, r),
                "<" => build::cmp_lt(l, r),
                "<=" => build::cmp_le(l, r),
                ">" => build::cmp_gt(l, r),
                ">=" => build::cmp_ge(l, r),
                "+" => l + r,
                "-" => l - r,
                "*" => l * r,
                "/" => l / r,
                _ => l % r,
            };
        }
        Ok(l)
    }

    fn unary(&mut self) -> PResult<Expr> {
        guarded(|| {
            if self.eat("!") {
                return Ok(build::logic_not(self.unary()?));
            }
            if self.is("-") {
                match self.peek_at(1).clone() {
                    Tok::Int(v, d) => {
                        self.bump();
                        self.bump();
                        return Ok(build::constant_of(Value::Int(d.wrap(v.wrapping_neg())), d));
                    }
                    Tok::Float(v) => {
                        self.bump();
                        self.bump();
                        return Ok(build::float(-v));
                    }
                    _ => {
                        self.bump();
                        let e = self.unary()?;
                        let zero = build::constant_of(Value::zero(e.dtype()), e.dtype());
                        return Ok(zero - e);
                    }
                }
            }
            if self.eat("&") {
                let start = self.here().clone();
                let e = self.postfix()?;
                let Expr::Indexing(i) = &e else {
                    return Err(self.error_at(
                        &start,
                        "expected a tensor element after `&`, as in `&A[i]`".to_owned(),
                    ));
                };
                return Ok(super::expr::TensorPtr {
                    base: i.clone(),
                    attrs: Attrs::new(),
                }
                .into());
            }
            self.postfix()
        })
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let e = self.primary()?;
        if self.is("[") {
            let Expr::Tensor(t) = &e else {
                return Err(self.expected("an operator (only tensors are indexed)"));
            };
            let t = t.clone();
            self.bump();
            let index = self.expr_list("]")?;
            return Ok(build::indexing(&t, index));
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.here().clone();
        match self.bump() {
            Tok::Int(v, d) => Ok(build::constant_of(Value::Int(d.wrap(v)), d)),
            Tok::Float(v) => Ok(build::float(v)),
            Tok::Punct("(") => {
                let e = self.expr()?;
                if self.eat("?") {
                    let a = self.expr()?;
                    self.expect(":")?;
                    let b = self.expr()?;
                    self.expect(")")?;
                    return Ok(build::select(e, a, b));
                }
                self.expect(")")?;
                Ok(e)
            }
            Tok::Ident(name) => self.named(name, &start),
            other => Err(self.error_at(&start, format!("expected an expression, found {other}"))),
        }
    }

    fn named(&mut self, name: String, start: &Token) -> PResult<Expr> {
        match name.as_str() {
            "true" => return Ok(build::boolean(true)),
            "false" => return Ok(build::boolean(false)),
            "nan_f32" => return Ok(build::float(f32::NAN)),
            "inf_f32" => return Ok(build::float(f32::INFINITY)),
            _ => {}
        }
        if self.is("(") {
            self.bump();
            let args = self.expr_list(")")?;
            let arity = |n: usize, p: &Self| -> PResult<()> {
                if args.len() == n {
                    Ok(())
                } else {
                    Err(p.error_at(
                        start,
                        format!("`{name}` takes {n} argument(s), found {}", args.len()),
                    ))
                }
            };
            if let Some(d) = DType::from_name(&name) {
                arity(1, self)?;
                return Ok(build::cast(
                    d,
                    args.into_iter()
                        .next()
                        .unwrap_or_else(|| build::constant(0)),
                ));
            }
            if name == "min" || name == "max" {
                arity(2, self)?;
                let mut it = args.into_iter();
                let (Some(a), Some(b)) = (it.next(), it.next()) else {
                    return Err(self.error_at(start, format!("`{name}` takes 2 arguments")));
                };
                return Ok(if name == "min" {
                    build::min(a, b)
                } else {
                    build::max(a, b)
                });
            }
            if let Some(i) = Intrin::from_name(&name) {
                arity(1, self)?;
                return Ok(build::intrinsic(i, args));
            }
            let dtype = match self.funcs.get(&name) {
                Some(d) => *d,
                None if self.allow_free => DType::S32,
                None => {
                    return Err(self.error_at(start, format!("undefined function `{name}`")));
                }
            };
            return Ok(build::call(&name, args, dtype));
        }
        match self.lookup(&name) {
            Some(Binding::Var(v)) => Ok(v.into()),
            Some(Binding::Tensor(t)) => Ok(t.into()),
            None if self.allow_free => {
                let v = self
                    .free
                    .entry(name.clone())
                    .or_insert_with(|| build::var_of(&name, DType::S32))
                    .clone();
                Ok(v.into())
            }
            None => Err(self.error_at(start, format!("undefined variable `{name}`"))),
        }
    }
}

/// Parses an expression; undefined names are free `s32` variables.
///
/// ```
/// use ir_passes::tensor_ir::parse_expr;
///
/// let e = parse_expr("1 + a * 2").unwrap();
/// assert_eq!(e.to_string(), "(1 + (a * 2))");
/// let err = parse_expr("1 +").unwrap_err();
/// assert_eq!(err.to_string(), "1:4: expected an expression, found end of input");
/// ```
pub fn parse_expr(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src, true)?;
    let e = p.expr()?;
    p.at_end()?;
    Ok(e)
}

/// Parses a statement (often a block); undefined names are free `s32` variables.
pub fn parse_stmt(src: &str) -> Result<Stmt, ParseError> {
    let mut p = Parser::new(src, true)?;
    let s = p.stmt()?;
    p.at_end()?;
    Ok(s)
}

/// Parses one function; every name must be defined.
pub fn parse_func(src: &str) -> Result<Func, ParseError> {
    let mut p = Parser::new(src, false)?;
    p.scan_signatures();
    let f = p.func()?;
    p.at_end()?;
    Ok(f)
}

/// Parses a module: a sequence of functions with distinct names.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    let mut p = Parser::new(src, false)?;
    p.scan_signatures();
    let mut m = Module::new();
    while !matches!(p.peek(), Tok::Eof) {
        let start = p.here().clone();
        let f = p.func()?;
        let name = f.name.clone();
        m.add_function(name.clone(), f)
            .map_err(|_| p.error_at(&start, format!("function `{name}` is defined twice")))?;
    }
    Ok(m)
}
