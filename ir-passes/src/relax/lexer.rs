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

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A name.
    Name(String),
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

impl fmt::Display for Tok {
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

/// Splits `text` into tokens.
pub fn lex(text: &str) -> Result<Vec<(Tok, Pos)>, LexError> {
    let mut out = Vec::new();
    let mut indents: Vec<usize> = vec![0];
    let mut depth = 0usize; // bracket nesting
    for (line_no, line) in text.lines().enumerate() {
        let line_no = line_no as u32 + 1;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        let pos_at = |i: usize| Pos {
            line: line_no,
            col: i as u32 + 1,
        };
        if depth == 0 {
            let mut width = 0;
            while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
                width += if chars[i] == '\t' { 8 - width % 8 } else { 1 };
                i += 1;
            }
            if i == chars.len() || chars[i] == '#' {
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
        while i < chars.len() {
            let c = chars[i];
            let start = pos_at(i);
            if c == ' ' || c == '\t' {
                i += 1;
            } else if c == '#' {
                break;
            } else if c.is_ascii_alphabetic() || c == '_' {
                let s = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                out.push((Tok::Name(chars[s..i].iter().collect()), start));
            } else if c.is_ascii_digit() {
                let s = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let mut float = false;
                if i < chars.len() && chars[i] == '.' {
                    float = true;
                    i += 1;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                    float = true;
                    i += 1;
                    if i < chars.len() && (chars[i] == '+' || chars[i] == '-') {
                        i += 1;
                    }
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                let text: String = chars[s..i].iter().collect();
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
            } else if c == '"' || c == '\'' {
                i += 1;
                let mut s = String::new();
                loop {
                    match chars.get(i) {
                        None => {
                            return Err(LexError {
                                pos: start,
                                message: "unterminated string".into(),
                            });
                        }
                        Some(&q) if q == c => {
                            i += 1;
                            break;
                        }
                        Some('\\') => {
                            match chars.get(i + 1) {
                                Some('n') => s.push('\n'),
                                Some('t') => s.push('\t'),
                                Some(&e) => s.push(e),
                                None => {
                                    return Err(LexError {
                                        pos: start,
                                        message: "unterminated string".into(),
                                    });
                                }
                            }
                            i += 2;
                        }
                        Some(&ch) => {
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                out.push((Tok::Str(s), start));
            } else {
                let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
                let Some(p) = PUNCT.iter().find(|p| rest.starts_with(**p)) else {
                    return Err(LexError {
                        pos: start,
                        message: format!("unexpected character `{c}`"),
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
            out.push((Tok::Newline, pos_at(chars.len())));
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
