//! Tokens of the text format, with their positions. Comments nest; `%`/`@`
//! join their names; negative literals fold a run of `-`; the `#[metadata]`
//! section is kept as raw text.

/// What a token is. Names and strings borrow from the source: lexing
/// allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tok<'a> {
    /// An identifier or keyword (`let`, `fn`, `add`, `float32`, `_`).
    Ident(&'a str),
    /// `%name`
    Local(&'a str),
    /// `%N`
    Graph(u64),
    /// `@name`
    Global(&'a str),
    /// An integer literal with its width (16, 32 or 64), and whether the width was explicit.
    Int(i64, u16, bool),
    /// A float literal with its width.
    Float(f64, u16),
    /// `"..."`
    Str(&'a str),
    /// `meta[KEY][INDEX]`
    Meta(&'a str, usize),
    /// `#[version = "..."]`
    Version(&'a str),
    /// `#[metadata]`, with the rest of the file.
    Metadata(&'a str),
    /// Punctuation and operators: `( ) { } [ ] , ; : . = + - * / < > ! ? -> <= >= == !=`.
    Punct(&'static str),
    /// End of input.
    Eof,
    /// Where the text cannot be lexed (never made by [`Lexer`]: the parser's
    /// stand-in for a lexical error it has not reached yet).
    Error,
}

impl Tok<'_> {
    /// How the token is named in "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Local(s) => format!("`%{s}`"),
            Tok::Graph(n) => format!("`%{n}`"),
            Tok::Global(s) => format!("`@{s}`"),
            Tok::Int(v, ..) => format!("integer `{v}`"),
            Tok::Float(v, _) => format!("float `{v}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Meta(k, i) => format!("`meta[{k}][{i}]`"),
            Tok::Version(_) => "a version header".into(),
            Tok::Metadata(_) => "the metadata section".into(),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of input".into(),
            Tok::Error => "text that cannot be read".into(),
        }
    }
}

/// A token and where it starts and ends (byte offsets; 1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Token<'a> {
    /// What it is.
    pub tok: Tok<'a>,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset after its last character.
    pub end: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
}

/// A lexical error: where, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    /// Byte offset.
    pub start: usize,
    /// Byte offset after the offending text.
    pub end: usize,
    /// What is wrong.
    pub message: String,
}

const PUNCT1: [&str; 20] = [
    "(", ")", "{", "}", "[", "]", ",", ";", ":", ".", "=", "+", "-", "*", "/", "<", ">", "!", "?",
    "@",
];

/// Each one-byte punctuation, found by its byte.
const PUNCT_BY_BYTE: [Option<&str>; 128] = {
    let mut table = [None; 128];
    let mut i = 0;
    while i < PUNCT1.len() {
        table[PUNCT1[i].as_bytes()[0] as usize] = Some(PUNCT1[i]);
        i += 1;
    }
    table
};

/// A lexer over one source text, giving one token at a time
/// ([`Lexer::next_token`]): the parser keeps a few tokens of lookahead, not
/// a vector of them all.
#[derive(Clone)]
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
    /// The metadata section was read: only `Eof` follows.
    done: bool,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '/'
}

/// Splits `src` into tokens, ending with [`Tok::Eof`].
#[cfg(test)]
pub fn lex(src: &str) -> Result<Vec<Token<'_>>, LexError> {
    let mut lx = Lexer::new(src);
    let mut out = Vec::new();
    loop {
        let t = lx.next_token()?;
        out.push(t);
        if matches!(t.tok, Tok::Eof) {
            return Ok(out);
        }
    }
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: 0,
            line: 1,
            col: 1,
            done: false,
        }
    }

    /// Continues from byte `pos`, at `line:col` (the caller skipped text it
    /// knows).
    pub fn reposition(&mut self, pos: usize, line: u32, col: u32) {
        self.pos = pos;
        self.line = line;
        self.col = col;
    }

    /// The next token; [`Tok::Eof`] at the end, and after the metadata section.
    pub fn next_token(&mut self) -> Result<Token<'a>, LexError> {
        if !self.done {
            self.skip_trivia()?;
        }
        let (start, line, col) = (self.pos, self.line, self.col);
        if !self.done
            && let Some(tok) = self.plain_token()
        {
            return Ok(Token {
                tok,
                start,
                end: self.pos,
                line,
                col,
            });
        }
        let tok = match self.peek() {
            _ if self.done => Tok::Eof,
            None => Tok::Eof,
            Some(c) => self.token(c)?,
        };
        self.done |= matches!(tok, Tok::Metadata(_));
        Ok(Token {
            tok,
            start,
            end: if matches!(tok, Tok::Eof) {
                start
            } else {
                self.pos
            },
            line,
            col,
        })
    }
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<char> {
        match self.src.as_bytes().get(self.pos) {
            Some(&b) if b.is_ascii() => Some(b as char),
            Some(_) => self.src[self.pos..].chars().next(),
            None => None,
        }
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(n)
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn error(&self, start: usize, message: impl Into<String>) -> LexError {
        LexError {
            start,
            end: self.pos.max(start + 1).min(self.src.len().max(start)),
            message: message.into(),
        }
    }

    fn skip_trivia(&mut self) -> Result<(), LexError> {
        loop {
            match self.peek() {
                Some(' ' | '\t') => {
                    self.pos += 1;
                    self.col += 1;
                }
                Some('\n') => {
                    self.pos += 1;
                    self.line += 1;
                    self.col = 1;
                }
                Some('\r') => {
                    let start = self.pos;
                    self.bump();
                    if self.peek() != Some('\n') {
                        return Err(self.error(start, "expected `\\n` after `\\r`"));
                    }
                }
                Some('/') if self.peek_at(1) == Some('/') => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                Some('/') if self.peek_at(1) == Some('*') => {
                    let start = self.pos;
                    self.bump();
                    self.bump();
                    let mut depth = 1;
                    while depth > 0 {
                        if self.rest().starts_with("/*") {
                            self.bump();
                            self.bump();
                            depth += 1;
                        } else if self.rest().starts_with("*/") {
                            self.bump();
                            self.bump();
                            depth -= 1;
                        } else if self.bump().is_none() {
                            return Err(
                                self.error(start, "unterminated block comment: expected `*/`")
                            );
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// The most common tokens, none of which can fail: `%name`, an ASCII
    /// identifier other than `meta` and the infinities, and punctuation
    /// other than `-` (which may start a literal) and `@` (a global's). `None` leaves the rest
    /// to [`Lexer::token`] (through a `Result`, which costs a copy).
    #[inline(always)]
    fn plain_token(&mut self) -> Option<Tok<'a>> {
        let bytes = self.src.as_bytes();
        let name_end = |from: usize| {
            let len = bytes[from..]
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'/'))
                .unwrap_or(bytes.len() - from);
            // A name going on in non-ASCII letters is read by `ident`.
            (bytes.get(from + len).is_none_or(|b| b.is_ascii())).then_some(from + len)
        };
        let start = self.pos;
        match *bytes.get(start)? {
            b'%' if bytes
                .get(start + 1)
                .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_') =>
            {
                let end = name_end(start + 1)?;
                self.pos = end;
                self.col += (end - start) as u32;
                Some(Tok::Local(&self.src[start + 1..end]))
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let end = name_end(start)?;
                let name = &self.src[start..end];
                if name == "meta" || name.starts_with("inf") {
                    return None;
                }
                self.pos = end;
                self.col += (end - start) as u32;
                Some(Tok::Ident(name))
            }
            b'-' | b'@' => None,
            _ => {
                let p = punct(&bytes[start..])?;
                self.pos += p.len();
                self.col += p.len() as u32;
                Some(Tok::Punct(p))
            }
        }
    }

    fn ident(&mut self) -> &'a str {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        // ASCII names, the common case, a byte at a time.
        while let Some(&b) = bytes.get(self.pos) {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'/' {
                self.pos += 1;
                self.col += 1;
            } else if b.is_ascii() {
                break;
            } else if self.peek().is_some_and(is_ident_char) {
                self.bump();
            } else {
                break;
            }
        }
        &self.src[start..self.pos]
    }

    // Inlined into `next_token`: returned through memory, the token's
    // enum layout made the copy stall on store forwarding.
    #[inline(always)]
    fn token(&mut self, c: char) -> Result<Tok<'a>, LexError> {
        let start = self.pos;
        if c == '-' {
            // A run of `-` directly followed by a digit (or `inff`) is a literal.
            let run = self.rest().chars().take_while(|&c| c == '-').count();
            let after = &self.rest()[run..];
            if after.starts_with(|c: char| c.is_ascii_digit()) || after.starts_with("inff") {
                for _ in 0..run {
                    self.bump();
                }
                return self.number(start, run % 2 == 1);
            }
        }
        if c.is_ascii_digit() {
            return self.number(start, false);
        }
        if c == '%' {
            self.bump();
            return match self.peek() {
                Some(d) if d.is_ascii_digit() => {
                    let digits = self.ident();
                    digits.parse().map(Tok::Graph).map_err(|_| {
                        self.error(start, format!("`%{digits}` is not a valid graph variable"))
                    })
                }
                Some(d) if is_ident_start(d) => Ok(Tok::Local(self.ident())),
                _ => Err(self.error(start, "expected a variable name after `%`")),
            };
        }
        if c == '@' && self.peek_at(1).is_some_and(is_ident_start) {
            self.bump();
            return Ok(Tok::Global(self.ident()));
        }
        if c == '"' {
            self.bump();
            let body_start = self.pos;
            loop {
                match self.bump() {
                    Some('"') => {
                        return Ok(Tok::Str(&self.src[body_start..self.pos - 1]));
                    }
                    Some(_) => {}
                    None => return Err(self.error(start, "unterminated string: expected `\"`")),
                }
            }
        }
        if c == '#' {
            return self.hash_attr(start);
        }
        if is_ident_start(c) {
            let name = self.ident();
            if name == "meta" && self.peek() == Some('[') {
                return self.meta(start);
            }
            if let Some(bits) = infinity_bits(name) {
                return Ok(Tok::Float(f64::INFINITY, bits));
            }
            return Ok(Tok::Ident(name));
        }
        if let Some(p) = punct(self.rest().as_bytes()) {
            self.pos += p.len();
            self.col += p.len() as u32;
            return Ok(Tok::Punct(p));
        }
        self.bump();
        Err(self.error(start, format!("unexpected character `{c}`")))
    }

    /// A number literal, negated if `negative` (the `-` run before it).
    fn number(&mut self, start: usize, negative: bool) -> Result<Tok<'a>, LexError> {
        self.unsigned_number(start)
            .and_then(|t| self.signed(start, t, negative))
    }

    /// An integer's sign applied, and its value checked to fit in 64 bits.
    fn signed(&self, start: usize, t: Wide, negative: bool) -> Result<Tok<'a>, LexError> {
        match t {
            Wide::Int(v, bits, explicit) => {
                let v = if negative { -v } else { v };
                i64::try_from(v)
                    .map(|v| Tok::Int(v, bits, explicit))
                    .map_err(|_| self.error(start, format!("{v} does not fit in int{bits}")))
            }
            Wide::Float(v, bits) => Ok(Tok::Float(if negative { -v } else { v }, bits)),
        }
    }

    fn unsigned_number(&mut self, start: usize) -> Result<Wide, LexError> {
        if self.rest().starts_with("inff") {
            let name = self.ident();
            return match infinity_bits(name) {
                Some(bits) => Ok(Wide::Float(f64::INFINITY, bits)),
                None => Err(self.error(start, format!("invalid number `{name}`"))),
            };
        }
        let body_start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        {
            // `e`/`E` belong to the number only inside it, never as a suffix start.
            self.bump();
        }
        let body = &self.src[body_start..self.pos];
        let suffix = if self.peek().is_some_and(|c| c == 'i' || c == 'f') {
            let s = self.pos;
            self.bump();
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
            Some(&self.src[s..self.pos])
        } else {
            None
        };
        if self.peek().is_some_and(is_ident_char) {
            while self.peek().is_some_and(is_ident_char) {
                self.bump();
            }
            return Err(self.error(
                start,
                format!("invalid number `{}`", &self.src[start..self.pos]),
            ));
        }
        let is_float_body = body.contains(['.', 'e', 'E']);
        match suffix {
            Some(s) if s.starts_with('f') => {
                let bits = match &s[1..] {
                    "" | "32" => 32,
                    "16" => 16,
                    "64" => 64,
                    _ => {
                        return Err(self.error(
                            start,
                            format!("invalid float suffix `{s}`: expected f, f16, f32 or f64"),
                        ));
                    }
                };
                let v: f64 = body
                    .parse()
                    .map_err(|_| self.error(start, format!("invalid float literal `{body}{s}`")))?;
                let max = match bits {
                    16 => 65504.0,
                    32 => f32::MAX as f64,
                    _ => f64::MAX,
                };
                if v.abs() > max {
                    return Err(self.error(start, format!("{body} does not fit in float{bits}")));
                }
                Ok(Wide::Float(v, bits))
            }
            Some(s) => {
                let (bits, explicit) = match &s[1..] {
                    "" | "32" => (32, true),
                    "16" => (16, true),
                    "64" => (64, true),
                    _ => {
                        return Err(self.error(
                            start,
                            format!("invalid integer suffix `{s}`: expected i, i16, i32 or i64"),
                        ));
                    }
                };
                if is_float_body {
                    return Err(self.error(start, format!("invalid integer literal `{body}{s}`")));
                }
                let v: i128 = body.parse().map_err(|_| {
                    self.error(start, format!("invalid integer literal `{body}{s}`"))
                })?;
                Ok(Wide::Int(v, bits, explicit))
            }
            None => {
                if is_float_body {
                    return Err(self.error(
                        start,
                        format!("invalid number `{body}`: a float literal needs an `f` suffix, as in `{body}f`"),
                    ));
                }
                let v: i128 = body
                    .parse()
                    .map_err(|_| self.error(start, format!("invalid number `{body}`")))?;
                Ok(Wide::Int(v, 32, false))
            }
        }
    }

    fn meta(&mut self, start: usize) -> Result<Tok<'a>, LexError> {
        self.bump(); // [
        let key_start = self.pos;
        while self.peek().is_some_and(|c| c != ']') {
            self.bump();
        }
        let key = &self.src[key_start..self.pos];
        if self.bump() != Some(']') || self.bump() != Some('[') {
            return Err(self.error(start, "expected `meta[KEY][INDEX]`"));
        }
        let index = self.ident();
        if self.bump() != Some(']') {
            return Err(self.error(start, "expected `]` after the meta index"));
        }
        let index = index.parse().map_err(|_| {
            self.error(
                start,
                format!("meta index `{index}` is not a non-negative integer"),
            )
        })?;
        Ok(Tok::Meta(key, index))
    }

    fn hash_attr(&mut self, start: usize) -> Result<Tok<'a>, LexError> {
        if self.rest().starts_with("#[metadata]") {
            for _ in 0.."#[metadata]".len() {
                self.bump();
            }
            let rest = self.rest();
            while self.bump().is_some() {}
            return Ok(Tok::Metadata(rest));
        }
        if self.rest().starts_with("#[version") {
            for _ in 0.."#[version".len() {
                self.bump();
            }
            self.skip_trivia()?;
            if self.bump() != Some('=') {
                return Err(self.error(start, "expected `=` in the version header"));
            }
            self.skip_trivia()?;
            let Ok(Tok::Str(v)) = self.token('"') else {
                return Err(self.error(start, "expected a quoted version in the version header"));
            };
            self.skip_trivia()?;
            if self.bump() != Some(']') {
                return Err(self.error(start, "expected `]` to close the version header"));
            }
            return Ok(Tok::Version(v));
        }
        self.bump();
        Err(self.error(start, "expected `#[version = \"0.0.5\"]` or `#[metadata]`"))
    }
}

/// The punctuation `rest` starts with: two characters before one.
fn punct(rest: &[u8]) -> Option<&'static str> {
    let two = match rest {
        [b'-', b'>', ..] => Some("->"),
        [b'=', b'>', ..] => Some("=>"),
        [b'<', b'=', ..] => Some("<="),
        [b'>', b'=', ..] => Some(">="),
        [b'=', b'=', ..] => Some("=="),
        [b'!', b'=', ..] => Some("!="),
        _ => None,
    };
    two.or_else(|| {
        let c = *rest.first()?;
        PUNCT_BY_BYTE.get(usize::from(c)).copied().flatten()
    })
}

/// A number as read, before its sign: integers wider than the 64 bits a
/// token holds, so that `-9223372036854775808` reads.
enum Wide {
    Int(i128, u16, bool),
    Float(f64, u16),
}

/// The width of an infinity literal: `inff` (float32), `inff16`, `inff32`, `inff64`.
fn infinity_bits(name: &str) -> Option<u16> {
    match name {
        "inff" | "inff32" => Some(32),
        "inff16" => Some(16),
        "inff64" => Some(64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_the_spec_cases() {
        assert_eq!(
            toks("%x_0 %12 @main nn.relu"),
            vec![
                Tok::Local("x_0"),
                Tok::Graph(12),
                Tok::Global("main"),
                Tok::Ident("nn"),
                Tok::Punct("."),
                Tok::Ident("relu"),
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("-5 --10 ---10")[..3],
            [
                Tok::Int(-5, 32, false),
                Tok::Int(10, 32, false),
                Tok::Int(-10, 32, false)
            ]
        );
        assert_eq!(
            toks("1e-05f 1.5f 3f64 -inff")[..4],
            [
                Tok::Float(1e-5, 32),
                Tok::Float(1.5, 32),
                Tok::Float(3.0, 64),
                Tok::Float(f64::NEG_INFINITY, 32)
            ]
        );
        assert_eq!(
            toks("5i64 5i16 5i")[..3],
            [
                Tok::Int(5, 64, true),
                Tok::Int(5, 16, true),
                Tok::Int(5, 32, true)
            ]
        );
        assert_eq!(
            toks("/* a /* b */ c */ x // y\n z")[..2],
            [Tok::Ident("x"), Tok::Ident("z")]
        );
        assert_eq!(toks("a/b")[0], Tok::Ident("a/b"));
        assert_eq!(
            toks("meta[relay.Constant][3]")[0],
            Tok::Meta("relay.Constant", 3)
        );
        assert_eq!(
            toks("%t.0")[..3],
            [Tok::Local("t"), Tok::Punct("."), Tok::Int(0, 32, false)]
        );
        assert_eq!(toks("%n-1")[1], Tok::Int(-1, 32, false));
    }

    #[test]
    fn reports_bad_numbers() {
        assert!(
            lex("1.0")
                .unwrap_err()
                .message
                .contains("needs an `f` suffix")
        );
        assert!(lex("2-1").unwrap_err().message.contains("invalid number"));
        assert!(
            lex("65505f16")
                .unwrap_err()
                .message
                .contains("does not fit")
        );
        assert!(lex("/* open").unwrap_err().message.contains("unterminated"));
    }
}
