//! Fields typed as one node kind keep their type through mutation, and
//! definition sites reach their own hook, distinct from uses.

mod common;

use common::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

#[test]
fn definition_sites_and_uses_reach_different_hooks() {
    #[derive(Default)]
    struct DefsAndUses {
        defs: Vec<String>,
        uses: Vec<String>,
    }
    impl ExprVisitor for DefsAndUses {
        fn visit_var_def(&mut self, v: &Node<Var>) {
            self.defs.push(v.name.clone());
        }
        fn visit_var(&mut self, v: &Node<Var>) {
            self.uses.push(v.name.clone());
        }
    }
    let (p, q, t) = (v("p"), v("q"), v("t"));
    let e = func(
        &[&p, &q],
        let_(
            &t,
            call("add", vec![p.clone().into(), q.clone().into()]),
            t.clone().into(),
        ),
    );
    let mut pass = DefsAndUses::default();
    pass.visit_expr(&e);
    assert_eq!(pass.defs, ["p", "q", "t"]);
    assert_eq!(pass.uses, ["p", "q", "t"]);
}

/// Renames every variable, definitions and uses alike, keeping one new node
/// per old variable (Relax's `var_remap_`).
#[derive(Default)]
struct Rename {
    remap: std::collections::HashMap<usize, Node<Var>>,
}
impl Rename {
    fn renamed(&mut self, v: &Node<Var>) -> Node<Var> {
        self.remap
            .entry(v.addr())
            .or_insert_with(|| {
                Node::new(Var {
                    name: format!("{}_1", v.name),
                })
            })
            .clone()
    }
}
impl ExprMutator for Rename {
    // The result is a `Node<Var>`: the field `Let::var` keeps its type, no downcast.
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        Transformed::Replace(self.renamed(v))
    }
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.renamed(v).into()
    }
}

#[test]
fn typed_fields_keep_their_kind_through_mutation() {
    let (p, t) = (v("p"), v("t"));
    let e = func(
        &[&p],
        let_(&t, call("neg", vec![p.clone().into()]), t.clone().into()),
    );
    let new = Rename::default().mutate_expr(&e).unwrap_or_clone(&e);
    assert_eq!(print(&new), "fn (%p_1) { let %t_1 = neg(%p_1);\n%t_1 }");

    let f = new.as_function().unwrap();
    let param: &Node<Var> = &f.params[0];
    let let_node = f.body.as_let().unwrap();
    let bound: &Node<Var> = &let_node.var;
    // Definition and uses are the same new node.
    assert!(let_node.body.as_var().unwrap().same_as(bound));
    let arg = let_node.value.as_call().unwrap().args[0].clone();
    assert!(arg.as_var().unwrap().same_as(param));
}
