//! Tokens of TVMScript's Python subset, with `INDENT` / `DEDENT` /
//! `NEWLINE` as Python makes them: newlines inside brackets join lines,
//! comments run to the end of the line.

use std::fmt;

/// Where a token starts (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A token. Names borrow from the text: lexing allocates only for string
/// literals (which may hold escapes) and the token vector.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok<'a> {
    /// A name.
    Name(&'a str),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal (unescaped).
    Str(String),
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

const PUNCT: &[&str] = &[
    "->", "//", "==", "!=", "<=", ">=", "**", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=",
    "+", "-", "*", "%", "@", "<", ">", "/",
];

/// Splits `text` into tokens. It works on bytes (everything but string
/// literals and comments is ASCII); a column counts characters.
pub fn lex(text: &str) -> Result<Vec<(Tok<'_>, Pos)>, LexError> {
    let mut out = Vec::new();
    let mut indents: Vec<usize> = vec![0];
    let mut depth = 0usize; // bracket nesting
    for (line_no, line) in text.lines().enumerate() {
        let line_no = line_no as u32 + 1;
        let bytes = line.as_bytes();
        let ascii = line.is_ascii();
        let mut i = 0;
        let pos_at = |i: usize| Pos {
            line: line_no,
            col: if ascii {
                i as u32 + 1
            } else {
                line[..i].chars().count() as u32 + 1
            },
        };
        if depth == 0 {
            let mut width = 0;
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                width += if bytes[i] == b'\t' { 8 - width % 8 } else { 1 };
                i += 1;
            }
            if i == bytes.len() || bytes[i] == b'#' {
                continue; // blank or comment-only line
            }
            let current = *indents.last().unwrap_or(&0);
            if width > current {
                indents.push(width);
                out.push((Tok::Indent, pos_at(i)));
            } else {
                while width < *indents.last().unwrap_or(&0) {
                    indents.pop();
                    out.push((Tok::Dedent, pos_at(i)));
                }
                if width != *indents.last().unwrap_or(&0) {
                    return Err(LexError {
                        pos: pos_at(i),
                        message: "this line's indentation matches no enclosing block".into(),
                    });
                }
            }
        }
        let run = |mut i: usize, f: fn(u8) -> bool| {
            while i < bytes.len() && f(bytes[i]) {
                i += 1;
            }
            i
        };
        while i < bytes.len() {
            let c = bytes[i];
            let start = pos_at(i);
            if c == b' ' || c == b'\t' {
                i += 1;
            } else if c == b'#' {
                break;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let s = i;
                i = run(i, |b| b.is_ascii_alphanumeric() || b == b'_');
                out.push((Tok::Name(&line[s..i]), start));
            } else if c.is_ascii_digit() {
                let s = i;
                i = run(i, |b| b.is_ascii_digit());
                let mut float = false;
                if bytes.get(i) == Some(&b'.') {
                    float = true;
                    i = run(i + 1, |b| b.is_ascii_digit());
                }
                if matches!(bytes.get(i), Some(b'e' | b'E')) {
                    float = true;
                    i += 1;
                    if matches!(bytes.get(i), Some(b'+' | b'-')) {
                        i += 1;
                    }
                    i = run(i, |b| b.is_ascii_digit());
                }
                let text = &line[s..i];
                let tok = if float {
                    text.parse().map(Tok::Float).ok()
                } else {
                    text.parse().map(Tok::Int).ok()
                };
                match tok {
                    Some(t) => out.push((t, start)),
                    None => {
                        return Err(LexError {
                            pos: start,
                            message: format!("number `{text}` is out of range"),
                        });
                    }
                }
            } else if c == b'"' || c == b'\'' {
                let (s, len) = string_literal(&line[i + 1..], char::from(c)).ok_or(LexError {
                    pos: start,
                    message: "unterminated string".into(),
                })?;
                i += 1 + len;
                out.push((Tok::Str(s), start));
            } else {
                let Some(p) = PUNCT.iter().find(|p| bytes[i..].starts_with(p.as_bytes())) else {
                    let ch = line[i..]
                        .chars()
                        .next()
                        .unwrap_or(char::REPLACEMENT_CHARACTER);
                    return Err(LexError {
                        pos: start,
                        message: format!("unexpected character `{ch}`"),
                    });
                };
                match *p {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i += p.len();
                out.push((Tok::Punct(p), start));
            }
        }
        if depth == 0
            && !matches!(
                out.last(),
                Some((Tok::Newline | Tok::Indent | Tok::Dedent, _)) | None
            )
        {
            out.push((Tok::Newline, pos_at(bytes.len())));
        }
    }
    let end = Pos {
        line: text.lines().count() as u32 + 1,
        col: 1,
    };
    if depth != 0 {
        return Err(LexError {
            pos: end,
            message: "a bracket is never closed".into(),
        });
    }
    while indents.len() > 1 {
        indents.pop();
        out.push((Tok::Dedent, end));
    }
    out.push((Tok::Eof, end));
    Ok(out)
}

/// A string literal's value, from just after its opening `quote`, and how
/// many bytes it takes with the closing quote; `None` if it never closes.
fn string_literal(rest: &str, quote: char) -> Option<(String, usize)> {
    let mut s = String::new();
    let mut chars = rest.char_indices();
    while let Some((at, ch)) = chars.next() {
        match ch {
            q if q == quote => return Some((s, at + q.len_utf8())),
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
