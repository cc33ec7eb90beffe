//! [`Note`]: what a pass tells the user about a run that did not fail.

use std::fmt;

/// A remark a pass made during a run: something it left undone on purpose
/// (a constant too large to fold), worth telling the user though nothing
/// failed. Passes add notes with [`super::PassContext::note`]; the driver
/// reads them with [`super::PassContext::notes`] after the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The pass that made it.
    pub pass: String,
    /// What it says.
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pass, self.message)
    }
}
