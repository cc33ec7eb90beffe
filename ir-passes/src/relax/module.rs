//! A Relax module: named global functions, copy-on-write.

use ir_core::Node;
use ir_core::pass::Module;

use super::expr::Function;

/// The global functions of a program, by name (`cls.f` / `@f`).
pub type RelaxModule = Module<Node<Function>>;
