//! Pipelines as text, in MLIR's style: `fold-constant,dce{inline-once=true},cse`.

use std::collections::BTreeMap;
use std::fmt;

/// One pass of a pipeline: its name and options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineStep {
    /// The registered pass name.
    pub name: String,
    /// Options given in braces.
    pub options: PassOptions,
    /// 1-based column of the name in the pipeline text.
    pub column: usize,
}

/// Options of one pass, `key=value` pairs; a bare `key` means `key=true`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassOptions {
    values: BTreeMap<String, String>,
}

impl PassOptions {
    /// Options from pairs.
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        PassOptions {
            values: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// The raw value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// A boolean option (`true`/`false`/`1`/`0`), or `default` when absent.
    pub fn get_bool(&self, key: &str, default: bool) -> Result<bool, String> {
        match self.get(key) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => Err(format!(
                "option `{key}` expects true or false, found `{other}`"
            )),
        }
    }

    /// An unsigned integer option, or `default` when absent.
    pub fn get_u64(&self, key: &str, default: u64) -> Result<u64, String> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("option `{key}` expects an unsigned integer, found `{v}`")),
        }
    }

    /// Fails on any option not in `known`.
    pub fn expect_only(&self, known: &[&str]) -> Result<(), String> {
        match self.values.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) if known.is_empty() => {
                Err(format!("unknown option `{k}`: this pass takes none"))
            }
            Some(k) => Err(format!(
                "unknown option `{k}`; known options: {}",
                known.join(", ")
            )),
        }
    }

    /// `true` when no option was given.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A malformed or unknown pipeline, with the 1-based column it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineError {
    /// 1-based column in the pipeline text.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pipeline column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for PipelineError {}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Parses `a,b{k=v k2=v2},c` (options separated by spaces or commas).
///
/// ```
/// use ir_core::pass::parse_pipeline;
///
/// let steps = parse_pipeline("fold-constant, dce{inline-once=true}").unwrap();
/// assert_eq!(steps[1].name, "dce");
/// assert_eq!(steps[1].options.get_bool("inline-once", false), Ok(true));
/// assert_eq!(
///     parse_pipeline("dce{inline-once").unwrap_err().to_string(),
///     "pipeline column 4: expected `}` to close the options of `dce`"
/// );
/// ```
pub fn parse_pipeline(text: &str) -> Result<Vec<PipelineStep>, PipelineError> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut steps = Vec::new();
    let err = |column: usize, message: String| PipelineError { column, message };
    let skip_space = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_space(&mut i);
        let start = i;
        while i < chars.len() && is_name_char(chars[i]) {
            i += 1;
        }
        if start == i {
            let found = chars
                .get(i)
                .map_or("end of input".to_owned(), |c| format!("`{c}`"));
            return Err(err(i + 1, format!("expected a pass name, found {found}")));
        }
        let name: String = chars[start..i].iter().collect();
        let mut options = BTreeMap::new();
        skip_space(&mut i);
        if chars.get(i) == Some(&'{') {
            let open = i;
            i += 1;
            loop {
                while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
                    i += 1;
                }
                match chars.get(i) {
                    Some('}') => {
                        i += 1;
                        break;
                    }
                    None => {
                        return Err(err(
                            open + 1,
                            format!("expected `}}` to close the options of `{name}`"),
                        ));
                    }
                    _ => {}
                }
                let key_start = i;
                while i < chars.len() && is_name_char(chars[i]) {
                    i += 1;
                }
                if key_start == i {
                    return Err(err(
                        i + 1,
                        format!("expected an option name, found `{}`", chars[i]),
                    ));
                }
                let key: String = chars[key_start..i].iter().collect();
                let value = if chars.get(i) == Some(&'=') {
                    i += 1;
                    let value_start = i;
                    while i < chars.len()
                        && !chars[i].is_whitespace()
                        && !matches!(chars[i], ',' | '}')
                    {
                        i += 1;
                    }
                    if value_start == i {
                        return Err(err(i + 1, format!("expected a value for option `{key}`")));
                    }
                    chars[value_start..i].iter().collect()
                } else {
                    "true".to_owned()
                };
                if options.insert(key.clone(), value).is_some() {
                    return Err(err(key_start + 1, format!("option `{key}` is given twice")));
                }
            }
        }
        steps.push(PipelineStep {
            name,
            options: PassOptions { values: options },
            column: start + 1,
        });
        skip_space(&mut i);
        match chars.get(i) {
            None => return Ok(steps),
            Some(',') => i += 1,
            Some(c) => {
                return Err(err(
                    i + 1,
                    format!("expected `,` between passes, found `{c}`"),
                ));
            }
        }
    }
}
