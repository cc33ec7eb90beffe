//! The Tensor IR's in-place mode allocates only the new leaves: on a
//! uniquely owned program where every constant changes, no statement or
//! expression above a constant is reallocated. Copy-on-write, on the same
//! program, allocates every node on the path of a change.

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_during;
use ir_core::{Family, Mutate, Node, Transformed};
use ir_passes::tensor_ir::*;
use pretty_assertions::assert_eq;

/// Replaces every integer constant by one one larger.
struct Bump;
impl ExprMutator for Bump {
    fn mutate_constant(&mut self, c: &Node<Constant>) -> Transformed<Expr> {
        let Value::Int(v) = c.value else {
            return Transformed::Keep;
        };
        Transformed::Replace(constant(v + 1))
    }
    // A tensor is one node at its definition and every use: its shape is
    // left alone.
    fn mutate_tensor(&mut self, _: &Node<Tensor>) -> Transformed<Expr> {
        Transformed::Keep
    }
    fn mutate_tensor_def(&mut self, _: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        Transformed::Keep
    }
}
impl StmtMutator for Bump {}

/// The addresses of every statement and every non-constant expression node.
fn inner_nodes(s: &Stmt) -> Vec<usize> {
    #[derive(Default)]
    struct Addrs(Vec<usize>);
    impl ExprVisitor for Addrs {
        fn visit_binary(&mut self, b: Binary<'_>) {
            self.0.push(Expr::from(b).addr());
            b.walk(self)
        }
        fn visit_indexing(&mut self, i: &Node<Indexing>) {
            self.0.push(i.addr());
            i.walk(self)
        }
        fn visit_select(&mut self, n: &Node<Select>) {
            self.0.push(n.addr());
            n.walk(self)
        }
    }
    impl StmtVisitor for Addrs {
        fn visit_stmt(&mut self, s: &Stmt) {
            self.0.push(s.addr());
            ir_core::Walk::walk(s, self)
        }
    }
    let mut a = Addrs::default();
    a.visit_stmt(s);
    a.0
}

/// Parsed from text, so every node is uniquely owned (tensors and
/// variables are shared by their definition and uses, and hold no constant
/// that changes).
fn program() -> Stmt {
    parse_stmt(
        "{ tensor A: [s32 * 16]
           var x: s32 = (1 + 2)
           for i in (0, 16, 1) {
             A[i] = (((i * 3) + (x - 4)) % 5)
             if ((A[i] > 6)) { A[(i / 7)] = ((x < 8) ? 9 : 10) } else { x = (x + 11) }
           }
           evaluate{min((x + 12), 13)} }",
    )
    .unwrap()
}

const CONSTANTS: usize = 16;

#[test]
fn in_place_allocates_only_the_new_leaves() {
    let mut s = program();
    let before = inner_nodes(&s);
    let (changed, allocations) = allocations_during(|| s.mutate_in_place(&mut Bump));
    assert!(changed);
    assert_eq!(allocations, CONSTANTS, "one allocation per new constant");
    assert_eq!(
        inner_nodes(&s),
        before,
        "no node above a constant reallocated"
    );
    assert_eq!(
        s.to_string(),
        program()
            .to_string()
            .replace("(1 + 2)", "(2 + 3)")
            .replace("(0, 16, 1)", "(1, 17, 2)")
            .replace("* 3) + (x - 4)) % 5", "* 4) + (x - 5)) % 6")
            .replace("> 6", "> 7")
            .replace("i / 7", "i / 8")
            .replace("x < 8) ? 9 : 10", "x < 9) ? 10 : 11")
            .replace("x + 11", "x + 12")
            .replace("min((x + 12), 13)", "min((x + 13), 14)")
    );
}

#[test]
fn copy_on_write_allocates_every_node_on_the_path_of_a_change() {
    let s = program();
    let ((out, allocations), text) = (allocations_during(|| Bump.mutate_stmt(&s)), s.to_string());
    let out = out.unwrap_or_clone(&s);
    assert!(allocations > 2 * CONSTANTS, "{allocations} allocations");
    assert_eq!(s.to_string(), text, "the input is unchanged");
    let mut again = program();
    again.mutate_in_place(&mut Bump);
    assert_eq!(out.to_string(), again.to_string());
}
