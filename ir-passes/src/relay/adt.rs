//! Algebraic data types: `type List[A] { Cons(A, List[A]), Nil }`. A module
//! keeps its type definitions as its data ([`TypeDefs`]); each constructor
//! node shares its definition, so passes over expressions need no module.

use std::sync::Arc;

use ir_core::Node;
use rustc_hash::FxHashMap;

use super::expr::{Constructor, Span};
use super::module::RelayModule;
use super::ty::Type;

/// One constructor of a type definition: `Cons(A, List[A])`.
#[derive(Debug, Clone)]
pub struct ConstructorDef {
    /// The name.
    pub name: String,
    /// The types of its fields, in terms of the definition's parameters.
    pub inputs: Vec<Type>,
}

/// A type definition: its name, type parameters and constructors.
#[derive(Debug, Clone)]
pub struct TypeData {
    /// `List`.
    pub name: String,
    /// `A`, ...
    pub params: Vec<String>,
    /// The constructors; a constructor's tag is its index here.
    pub constructors: Vec<ConstructorDef>,
    /// `extern type T`: defined outside the program, with no constructors.
    pub external: bool,
}

impl TypeData {
    /// The type this definition makes, applied to its own parameters: `List[A]`.
    pub fn self_type(&self) -> Type {
        Type::call(
            &self.name,
            self.params.iter().map(|p| Type::var(p)).collect(),
        )
    }
}

/// The type definitions of a module, in declaration order, with their
/// constructors by name.
#[derive(Debug, Clone, Default)]
pub struct TypeDefs {
    defs: Vec<Arc<TypeData>>,
    by_name: FxHashMap<String, usize>,
    constructors: FxHashMap<String, (usize, usize)>,
}

impl TypeDefs {
    /// No definitions.
    pub fn new() -> Self {
        Self::default()
    }

    /// The module's definitions (none if it has no data).
    pub fn of(module: &RelayModule) -> Option<&TypeDefs> {
        module.data::<TypeDefs>()
    }

    /// Adds a definition; its name and its constructors' names must be new.
    pub fn insert(&mut self, def: TypeData) -> Result<Arc<TypeData>, String> {
        if self.by_name.contains_key(&def.name) {
            return Err(format!("type `{}` is defined twice", def.name));
        }
        let index = self.defs.len();
        for (tag, c) in def.constructors.iter().enumerate() {
            if self
                .constructors
                .insert(c.name.clone(), (index, tag))
                .is_some()
            {
                return Err(format!("constructor `{}` is defined twice", c.name));
            }
        }
        self.by_name.insert(def.name.clone(), index);
        let def = Arc::new(def);
        self.defs.push(def.clone());
        Ok(def)
    }

    /// The definition named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<TypeData>> {
        self.by_name.get(name).map(|&i| &self.defs[i])
    }

    /// Whether a constructor is named `name`.
    pub fn is_constructor(&self, name: &str) -> bool {
        !self.constructors.is_empty() && self.constructors.contains_key(name)
    }

    /// A new node for the constructor named `name`.
    pub fn constructor(&self, name: &str, span: Span) -> Option<Node<Constructor>> {
        let &(def, tag) = self.constructors.get(name)?;
        Some(Node::new(Constructor {
            name: name.to_owned(),
            tag,
            adt: self.defs[def].clone(),
            span,
        }))
    }

    /// The definitions, in declaration order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Arc<TypeData>> {
        self.defs.iter()
    }

    /// How many definitions.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}
