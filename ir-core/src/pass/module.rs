//! [`Module`]: the global functions of a program, copy-on-write.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A module of named global functions (TVM's `IRModule`).
///
/// Cloning is O(1): clones share the function table until one of them is
/// changed ([`Module::add_function`], [`Module::update_function`]), which copies
/// the table (not the functions) first. A pass takes `&Module` and returns a
/// new one, so the input of a failing pass is never touched.
///
/// Besides its functions a module carries one value of the dialect's own
/// choosing ([`Module::data`], [`Module::set_data`]): what is global but not
/// a function, as Relay's type definitions (TVM's `IRModule` keeps them next
/// to its functions). Passes that clone the module carry it along.
///
/// ```
/// use ir_core::pass::Module;
///
/// let mut a = Module::new();
/// a.add_function("main", 1).unwrap();
/// let b = a.clone();
/// a.update_function("main", 2).unwrap();
/// assert_eq!(a.get("main"), Some(&2));
/// assert_eq!(b.get("main"), Some(&1)); // b still sees the old table
/// ```
#[derive(Clone)]
pub struct Module<F> {
    functions: Arc<BTreeMap<String, F>>,
    data: Option<Arc<dyn Any + Send + Sync>>,
}

/// Why a change to a module's functions was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleError {
    /// `add_function` with a name that is already defined.
    Duplicate(String),
    /// `update_function` or `remove_function` with a name that is not defined.
    Missing(String),
}

impl fmt::Display for ModuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModuleError::Duplicate(name) => write!(f, "function @{name} is already defined"),
            ModuleError::Missing(name) => write!(f, "function @{name} is not defined"),
        }
    }
}

impl std::error::Error for ModuleError {}

impl<F> Default for Module<F> {
    fn default() -> Self {
        Module {
            functions: Arc::new(BTreeMap::new()),
            data: None,
        }
    }
}

impl<F: Clone> Module<F> {
    /// An empty module.
    pub fn new() -> Self {
        Self::default()
    }

    /// A module of these functions; a later duplicate name replaces an earlier one.
    pub fn from_functions(functions: impl IntoIterator<Item = (String, F)>) -> Self {
        Module {
            functions: Arc::new(functions.into_iter().collect()),
            data: None,
        }
    }

    /// The function named `name`.
    pub fn get(&self, name: &str) -> Option<&F> {
        self.functions.get(name)
    }

    /// `true` if `name` is defined.
    pub fn contains(&self, name: &str) -> bool {
        self.functions.contains_key(name)
    }

    /// The functions, by name.
    pub fn functions(&self) -> impl ExactSizeIterator<Item = (&str, &F)> {
        self.functions.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.functions.keys().map(String::as_str)
    }

    /// How many functions.
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// `true` when there are no functions.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// Adds a new function (BlockBuilder's `AddFunction`).
    pub fn add_function(
        &mut self,
        name: impl Into<String>,
        function: F,
    ) -> Result<(), ModuleError> {
        let name = name.into();
        if self.functions.contains_key(&name) {
            return Err(ModuleError::Duplicate(name));
        }
        Arc::make_mut(&mut self.functions).insert(name, function);
        Ok(())
    }

    /// Replaces an existing function (BlockBuilder's `UpdateFunction`).
    pub fn update_function(&mut self, name: &str, function: F) -> Result<(), ModuleError> {
        match Arc::make_mut(&mut self.functions).get_mut(name) {
            Some(slot) => {
                *slot = function;
                Ok(())
            }
            None => Err(ModuleError::Missing(name.to_owned())),
        }
    }

    /// Removes a function, returning it.
    pub fn remove_function(&mut self, name: &str) -> Result<F, ModuleError> {
        if !self.functions.contains_key(name) {
            return Err(ModuleError::Missing(name.to_owned()));
        }
        Arc::make_mut(&mut self.functions)
            .remove(name)
            .ok_or_else(|| ModuleError::Missing(name.to_owned()))
    }

    /// `true` when both share one function table and one data value:
    /// nothing was changed between them.
    pub fn same_as(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.functions, &other.functions)
            && match (&self.data, &other.data) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
    }

    /// The module's data, if it holds a value of type `D`.
    ///
    /// ```
    /// use ir_core::pass::Module;
    ///
    /// let mut m: Module<i32> = Module::new();
    /// assert_eq!(m.data::<Vec<&str>>(), None);
    /// m.set_data(vec!["type List[A] { Cons(A, List[A]), Nil }"]);
    /// let copy = m.clone();
    /// assert_eq!(copy.data::<Vec<&str>>().map(Vec::len), Some(1));
    /// ```
    pub fn data<D: Any>(&self) -> Option<&D> {
        self.data.as_deref().and_then(|d| d.downcast_ref())
    }

    /// Sets the module's data (replacing any value, of any type).
    pub fn set_data<D: Any + Send + Sync>(&mut self, data: D) {
        self.data = Some(Arc::new(data));
    }
}

impl<F: fmt::Debug> fmt::Debug for Module<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.functions.iter()).finish()
    }
}
