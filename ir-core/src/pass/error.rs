//! [`PassError`]: which pass failed, and how.

use std::fmt;

/// How a pass failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    /// The pass returned an error.
    Failed,
    /// The pass panicked; the panic was caught.
    Panicked,
    /// The pass ran, but the IR it produced did not verify.
    Verification,
    /// An instrument refused to go on.
    Instrument,
}

/// A pass failure, naming the pass. The input module is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassError {
    /// The failing pass.
    pub pass: String,
    /// How it failed.
    pub kind: FailureKind,
    /// What went wrong.
    pub message: String,
}

impl PassError {
    /// A pass's own error; the pass manager fills in the pass name if empty.
    pub fn new(message: impl Into<String>) -> Self {
        PassError {
            pass: String::new(),
            kind: FailureKind::Failed,
            message: message.into(),
        }
    }

    /// The same error attributed to `pass`, unless it already names one.
    pub fn in_pass(mut self, pass: &str) -> Self {
        if self.pass.is_empty() {
            self.pass = pass.to_owned();
        }
        self
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            FailureKind::Failed => "failed",
            FailureKind::Panicked => "panicked",
            FailureKind::Verification => "produced IR that does not verify",
            FailureKind::Instrument => "was stopped by an instrument",
        };
        write!(f, "pass `{}` {what}: {}", self.pass, self.message)
    }
}

impl std::error::Error for PassError {}
