//! Tokens of TVMScript's Python subset, with `INDENT` / `DEDENT` /
//! `NEWLINE` as Python makes them: newlines inside brackets join lines,
//! comments run to the end of the line.

use std::borrow::Cow;
use std::fmt;

/// Where a token starts (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
    /// Byte offset in the text.
    pub offset: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A token. Names borrow from the text: lexing allocates only for string
/// literals (which may hold escapes).
#[derive(Debug, Clone, PartialEq)]
pub enum Tok<'a> {
    /// A name.
    Name(&'a str),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal, unescaped (borrowed unless it holds escapes).
    Str(Cow<'a, str>),
    /// Punctuation or an operator: `(`, `->`, `//`, `==`, ...
    Punct(&'static str),
    /// The end of a logical line.
    Newline,
    /// The start of a more indented block.
    Indent,
    /// The end of an indented block.
    Dedent,
    /// The end of the input.
    Eof,
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Name(n) => write!(f, "`{n}`"),
            Tok::Int(i) => write!(f, "`{i}`"),
            Tok::Float(x) => write!(f, "`{x}`"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Punct(p) => write!(f, "`{p}`"),
            Tok::Newline => f.write_str("end of line"),
            Tok::Indent => f.write_str("an indented block"),
            Tok::Dedent => f.write_str("the end of a block"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

/// A lexing error: position and message.
#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    /// Where.
    pub pos: Pos,
    /// What.
    pub message: String,
}

/// The punctuation starting with `c` (then `next`): two-character
/// operators first.
fn punct(c: u8, next: u8) -> Option<&'static str> {
    Some(match (c, next) {
        (b'-', b'>') => "->",
        (b'/', b'/') => "//",
        (b'=', b'=') => "==",
        (b'!', b'=') => "!=",
        (b'<', b'=') => "<=",
        (b'>', b'=') => ">=",
        (b'*', b'*') => "**",
        (b'(', _) => "(",
        (b')', _) => ")",
        (b'[', _) => "[",
        (b']', _) => "]",
        (b'{', _) => "{",
        (b'}', _) => "}",
        (b',', _) => ",",
        (b':', _) => ":",
        (b'.', _) => ".",
        (b'=', _) => "=",
        (b'+', _) => "+",
        (b'-', _) => "-",
        (b'*', _) => "*",
        (b'%', _) => "%",
        (b'@', _) => "@",
        (b'<', _) => "<",
        (b'>', _) => ">",
        (b'/', _) => "/",
        _ => return None,
    })
}

/// Tokens of a text, made as the parser asks for them: a module of a
/// million bindings never holds its tokens all at once. It works on bytes
/// (everything but string literals and comments is ASCII); a column counts
/// characters. A clone is cheap and lexes ahead on its own (the parser's
/// look-ahead beyond a few tokens).
#[derive(Clone)]
pub struct Lexer<'a> {
    text: &'a str,
    lines: std::str::Lines<'a>,
    /// The line at hand, and where in it the next token starts.
    line: &'a str,
    at: usize,
    /// Whether the line at hand is all ASCII (a column is then a byte).
    ascii: bool,
    /// On a line that is not: a byte index in it and the characters before
    /// it, where counting for the next column resumes (tokens come in
    /// order, so a long line is counted once, not once per token).
    counted: (usize, u32),
    /// The line at hand's number; 0 before the first.
    line_no: u32,
    /// Whether `line` may still have tokens to give.
    in_line: bool,
    /// Widths of the enclosing indented blocks.
    indents: Vec<usize>,
    /// Bracket nesting, and the nesting the text starts at (1 for a quoted
    /// expression, whose lines end no statement).
    depth: usize,
    base_depth: usize,
    /// An `Indent` to give, or dedents, before the line's tokens.
    indent: Option<Pos>,
    dedents: usize,
    dedent_pos: Pos,
    /// Whether the last token given ends a line (or none was given): a
    /// line gives one `Newline` at most.
    at_break: bool,
    /// The text ended (or failed) here: only `Eof` is left.
    done: Option<Pos>,
}

impl<'a> Lexer<'a> {
    /// A lexer over a module's text.
    pub fn new(text: &'a str) -> Self {
        Lexer {
            text,
            lines: text.lines(),
            line: "",
            at: 0,
            ascii: true,
            counted: (0, 0),
            line_no: 0,
            in_line: false,
            indents: vec![0],
            depth: 0,
            base_depth: 0,
            indent: None,
            dedents: 0,
            dedent_pos: Pos::default(),
            at_break: true,
            done: None,
        }
    }

    /// A lexer over `text` from `offset`, the start of line `line_no`,
    /// inside the indented blocks of widths `indents` (which starts with 0):
    /// the lexer after a skipped stretch of lines.
    pub fn resume(text: &'a str, offset: usize, line_no: u32, indents: Vec<usize>) -> Self {
        Lexer {
            lines: text[offset..].lines(),
            line_no: line_no.saturating_sub(1),
            indents,
            ..Lexer::new(text)
        }
    }

    /// The text being lexed.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// A lexer over one expression (a quoted shape value such as
    /// `"n + 1"`): no indentation and no line ends.
    pub fn expression(text: &'a str) -> Self {
        Lexer {
            depth: 1,
            base_depth: 1,
            ..Lexer::new(text)
        }
    }

    /// The next token and where it starts. After the end, or after an
    /// error, every call gives `Eof`.
    #[allow(clippy::should_implement_trait)] // it can fail, and never ends
    pub fn next(&mut self) -> Result<(Tok<'a>, Pos), LexError> {
        loop {
            if self.dedents > 0 {
                self.dedents -= 1;
                self.at_break = true;
                return Ok((Tok::Dedent, self.dedent_pos));
            }
            if let Some(pos) = self.indent.take() {
                self.at_break = true;
                return Ok((Tok::Indent, pos));
            }
            if let Some(end) = self.done {
                return Ok((Tok::Eof, end));
            }
            if !self.in_line {
                self.next_line()?;
                continue;
            }
            let bytes = self.line.as_bytes();
            while self.at < bytes.len() && matches!(bytes[self.at], b' ' | b'\t') {
                self.at += 1;
            }
            if self.at == bytes.len() || bytes[self.at] == b'#' {
                self.in_line = false;
                if self.depth == 0 && !self.at_break {
                    self.at_break = true;
                    return Ok((Tok::Newline, self.pos_at(bytes.len())));
                }
                continue;
            }
            let tok = self.token()?;
            self.at_break = false;
            return Ok(tok);
        }
    }

    fn pos_at(&mut self, i: usize) -> Pos {
        let col = if self.ascii {
            i as u32 + 1
        } else {
            let (from, before) = match self.counted {
                (at, n) if at <= i => (at, n),
                _ => (0, 0),
            };
            let n = before + self.line[from..i].chars().count() as u32;
            self.counted = (i, n);
            n + 1
        };
        Pos {
            offset: self.line.as_ptr() as usize - self.text.as_ptr() as usize + i,
            line: self.line_no,
            col,
        }
    }

    /// Ends the text with an error: what follows is `Eof`.
    fn fail<T>(&mut self, pos: Pos, message: impl Into<String>) -> Result<T, LexError> {
        self.done = Some(pos);
        self.indent = None;
        self.dedents = 0;
        Err(LexError {
            pos,
            message: message.into(),
        })
    }

    /// Moves to the next line and notes its indentation's tokens; at the
    /// end of the text, the blocks still open close.
    fn next_line(&mut self) -> Result<(), LexError> {
        let Some(line) = self.lines.next() else {
            let end = Pos {
                line: self.line_no + 1,
                col: 1,
                offset: self.text.len(),
            };
            if self.depth != self.base_depth {
                return self.fail(end, "a bracket is never closed");
            }
            self.dedents = self.indents.len() - 1;
            self.indents.truncate(1);
            self.dedent_pos = end;
            self.done = Some(end);
            return Ok(());
        };
        self.line = line;
        self.at = 0;
        self.ascii = line.is_ascii();
        self.counted = (0, 0);
        self.line_no += 1;
        self.in_line = true;
        if self.depth > 0 {
            return Ok(()); // inside brackets, lines join
        }
        let bytes = line.as_bytes();
        let width;
        (width, self.at) = indentation(line);
        if self.at == bytes.len() || bytes[self.at] == b'#' {
            self.in_line = false; // blank or comment-only
            return Ok(());
        }
        let pos = self.pos_at(self.at);
        if width > *self.indents.last().unwrap_or(&0) {
            self.indents.push(width);
            self.indent = Some(pos);
            return Ok(());
        }
        // The line closes the blocks above the one of its width.
        match self.indents.iter().rposition(|&w| w <= width) {
            Some(open) if self.indents[open] == width => {
                self.dedents = self.indents.len() - 1 - open;
                self.indents.truncate(open + 1);
            }
            _ => return self.fail(pos, "this line's indentation matches no enclosing block"),
        }
        self.dedent_pos = pos;
        Ok(())
    }

    /// The token at `self.at`, which is not a blank or a comment.
    fn token(&mut self) -> Result<(Tok<'a>, Pos), LexError> {
        let line = self.line;
        let bytes = line.as_bytes();
        let run = |mut i: usize, f: fn(u8) -> bool| {
            while i < bytes.len() && f(bytes[i]) {
                i += 1;
            }
            i
        };
        let i = self.at;
        let c = bytes[i];
        let start = self.pos_at(i);
        if c.is_ascii_alphabetic() || c == b'_' {
            self.at = run(i, |b| b.is_ascii_alphanumeric() || b == b'_');
            return Ok((Tok::Name(&line[i..self.at]), start));
        }
        if c.is_ascii_digit() {
            let mut end = run(i, |b| b.is_ascii_digit());
            let mut float = false;
            if bytes.get(end) == Some(&b'.') {
                float = true;
                end = run(end + 1, |b| b.is_ascii_digit());
            }
            if matches!(bytes.get(end), Some(b'e' | b'E')) {
                float = true;
                end += 1;
                if matches!(bytes.get(end), Some(b'+' | b'-')) {
                    end += 1;
                }
                end = run(end, |b| b.is_ascii_digit());
            }
            self.at = end;
            let text = &line[i..end];
            let tok = if float {
                text.parse().map(Tok::Float).ok()
            } else {
                text.parse().map(Tok::Int).ok()
            };
            return match tok {
                Some(t) => Ok((t, start)),
                None => self.fail(start, format!("number `{text}` is out of range")),
            };
        }
        if c == b'"' || c == b'\'' {
            let Some((s, len)) = string_literal(&line[i + 1..], char::from(c)) else {
                return self.fail(start, "unterminated string");
            };
            self.at = i + 1 + len;
            return Ok((Tok::Str(s), start));
        }
        let Some(p) = punct(c, bytes.get(i + 1).copied().unwrap_or(0)) else {
            let ch = line[i..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            return self.fail(start, format!("unexpected character `{ch}`"));
        };
        match c {
            b'(' | b'[' | b'{' => self.depth += 1,
            b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        self.at = i + p.len();
        Ok((Tok::Punct(p), start))
    }
}

/// The width of a line's indentation (a tab goes to the next multiple of
/// 8), and where its text starts.
fn indentation(line: &str) -> (usize, usize) {
    let mut width = 0;
    let mut i = 0;
    for &b in line.as_bytes() {
        match b {
            b' ' => width += 1,
            b'\t' => width += 8 - width % 8,
            _ => break,
        }
        i += 1;
    }
    (width, i)
}

/// The bytes a line skim stops at: brackets, quotes and `#`.
static SKIM_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let special = b"()[]{}\"'#";
    while i < special.len() {
        t[special[i] as usize] = true;
        i += 1;
    }
    t
};

/// A logical line: physical lines joined while a bracket is open.
#[derive(Debug, Clone, Copy)]
pub struct SkimLine<'a> {
    /// Where its first physical line starts, and that line's number.
    pub offset: usize,
    pub line_no: u32,
    /// Its indentation, `None` for a blank or comment-only line.
    pub width: Option<usize>,
    /// Its text after the indentation.
    pub content: &'a str,
}

/// The logical lines of a text from a line's start, found without lexing
/// them: brackets, strings and comments are only skipped over. This is
/// how the parser looks far ahead (an indented block's end, a dataflow
/// block's `R.output`) at a fraction of lexing's cost.
pub struct LineSkim<'a> {
    text: &'a str,
    at: usize,
    line_no: u32,
}

impl<'a> LineSkim<'a> {
    /// The lines from `offset`, the start of line `line_no`.
    pub fn new(text: &'a str, offset: usize, line_no: u32) -> Self {
        LineSkim {
            text,
            at: offset,
            line_no,
        }
    }

    /// The next physical line (without its line break), moving past it.
    fn physical(&mut self) -> Option<&'a str> {
        let rest = self.text.get(self.at..).filter(|r| !r.is_empty())?;
        let len = rest.find('\n').unwrap_or(rest.len());
        self.at += (len + 1).min(rest.len());
        self.line_no += 1;
        Some(rest[..len].strip_suffix('\r').unwrap_or(&rest[..len]))
    }
}

impl<'a> Iterator for LineSkim<'a> {
    type Item = SkimLine<'a>;

    fn next(&mut self) -> Option<SkimLine<'a>> {
        let (offset, line_no) = (self.at, self.line_no);
        let line = self.physical()?;
        let (width, start) = indentation(line);
        let bytes = line.as_bytes();
        if start == bytes.len() || bytes[start] == b'#' {
            return Some(SkimLine {
                offset,
                line_no,
                width: None,
                content: "",
            });
        }
        let mut depth = 0usize;
        let mut end_of = |line: &str| -> usize {
            let bytes = line.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                // Most bytes mean nothing here: one table look-up each.
                if !SKIM_SPECIAL[bytes[i] as usize] {
                    i += 1;
                    continue;
                }
                match bytes[i] {
                    b'#' => break,
                    q @ (b'"' | b'\'') => {
                        i += 1;
                        while i < bytes.len() && bytes[i] != q {
                            i += if bytes[i] == b'\\' { 2 } else { 1 };
                        }
                    }
                    b'(' | b'[' | b'{' => depth += 1,
                    _ => depth = depth.saturating_sub(1),
                }
                i += 1;
            }
            depth
        };
        let mut open = end_of(line);
        let mut end = offset + line.len();
        while open > 0 {
            let Some(next) = self.physical() else { break };
            end = next.as_ptr() as usize - self.text.as_ptr() as usize + next.len();
            open = end_of(next);
        }
        Some(SkimLine {
            offset,
            line_no,
            width: Some(width),
            content: &self.text[offset + start..end],
        })
    }
}

/// A string literal's value, from just after its opening `quote`, and how
/// many bytes it takes with the closing quote; `None` if it never closes.
fn string_literal(rest: &str, quote: char) -> Option<(Cow<'_, str>, usize)> {
    let q = quote as u8;
    let bytes = rest.as_bytes();
    let end = bytes.iter().position(|&b| b == q || b == b'\\')?;
    if bytes[end] == q {
        return Some((Cow::Borrowed(&rest[..end]), end + 1));
    }
    let mut s = String::from(&rest[..end]);
    let mut chars = rest[end..].char_indices();
    while let Some((at, ch)) = chars.next() {
        match ch {
            c if c == quote => return Some((Cow::Owned(s), end + at + c.len_utf8())),
            '\\' => match chars.next()?.1 {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                e => s.push(e),
            },
            ch => s.push(ch),
        }
    }
    None
}
