//! A Relay module: global functions by name.

use ir_core::Node;
use ir_core::pass::Module;

use super::expr::Function;

/// A Relay module (`def @main(...) { ... }` and friends).
pub type RelayModule = Module<Node<Function>>;
