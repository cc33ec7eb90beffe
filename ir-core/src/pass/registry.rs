//! [`PassRegistry`]: passes by name, so that a pipeline is a list of names.

use std::collections::BTreeMap;

use super::{Pass, PassOptions, PipelineError, Sequential, parse_pipeline};

type Factory<F> = dyn Fn(&PassOptions) -> Result<Box<dyn Pass<F>>, String> + Send + Sync;

struct Entry<F> {
    description: String,
    factory: Box<Factory<F>>,
}

/// Named pass factories. A factory receives the pass's options and may reject them.
pub struct PassRegistry<F> {
    entries: BTreeMap<String, Entry<F>>,
}

impl<F> Default for PassRegistry<F> {
    fn default() -> Self {
        PassRegistry {
            entries: BTreeMap::new(),
        }
    }
}

impl<F: Clone + 'static> PassRegistry<F> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers (or replaces) the pass `name`.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        factory: impl Fn(&PassOptions) -> Result<Box<dyn Pass<F>>, String> + Send + Sync + 'static,
    ) -> &mut Self {
        self.entries.insert(
            name.into(),
            Entry {
                description: description.into(),
                factory: Box::new(factory),
            },
        );
        self
    }

    /// `(name, description)` of every registered pass, sorted by name.
    pub fn passes(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .map(|(k, e)| (k.as_str(), e.description.as_str()))
    }

    /// Builds one pass by name.
    pub fn build(&self, name: &str, options: &PassOptions) -> Result<Box<dyn Pass<F>>, String> {
        match self.entries.get(name) {
            Some(entry) => (entry.factory)(options).map_err(|e| format!("pass `{name}`: {e}")),
            None => Err(format!(
                "unknown pass `{name}`; known passes: {}",
                self.entries.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Builds a pipeline from text such as `fold-constant,dce{inline-once=true}`.
    pub fn pipeline(&self, text: &str) -> Result<Sequential<F>, PipelineError> {
        let steps = parse_pipeline(text)?;
        let passes = steps
            .iter()
            .map(|step| {
                self.build(&step.name, &step.options)
                    .map_err(|message| PipelineError {
                        column: step.column,
                        message,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Sequential::new("pipeline", passes))
    }
}
