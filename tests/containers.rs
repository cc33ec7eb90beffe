//! Children inside `Vec`, `ShortVec`, `Option`, `Box`, tuples and arrays are traversed
//! element by element, in order, and rebuilt copy-on-write.

use ir_passes::tensor_ir::{ConstantFolder, Expr, ExprVisitor, Var, constant, var};
use irkit::prelude::*;
use irkit::{Mutate, ShortVec, Visit};

#[derive(Debug, Clone, Visitable, Mutable)]
struct Everything {
    list: Vec<Expr>,
    maybe: Option<Expr>,
    boxed: Box<Expr>,
    pair: (Expr, Vec<Expr>),
    triple: [Expr; 3],
    nested: Vec<Option<(Expr, Box<Expr>)>>,
    short: ShortVec<Expr>,
}

fn sample(n: i64) -> Everything {
    let k = |i: i64| constant(n * 100 + i);
    Everything {
        list: vec![k(1), k(2)],
        maybe: Some(k(3)),
        boxed: Box::new(k(4)),
        pair: (k(5), vec![k(6)]),
        triple: [k(7), k(8), k(9)],
        nested: vec![None, Some((k(10), Box::new(k(11))))],
        short: [k(12), k(13)].into(),
    }
}

#[derive(Default)]
struct Order(Vec<i64>);
impl ExprVisitor for Order {
    fn visit_constant(&mut self, c: &Node<ir_passes::tensor_ir::Constant>) {
        self.0.push(c.value.as_int().unwrap());
    }
}

#[test]
fn containers_are_visited_in_order() {
    let mut order = Order::default();
    sample(0).visit(&mut order);
    assert_eq!(order.0, (1..=13).collect::<Vec<_>>());
}

#[test]
fn unchanged_containers_mean_no_rebuild() {
    assert!(sample(0).mutate(&mut ConstantFolder::new()).is_keep());
}

#[test]
fn a_change_deep_in_a_container_rebuilds_only_that_path() {
    let mut s = sample(0);
    s.nested[1] = Some((constant(1) + constant(2), Box::new(var("x"))));
    s.short[1] = constant(3) * constant(4);
    let new = s
        .mutate(&mut ConstantFolder::new())
        .into_option()
        .expect("1 + 2 folds");
    let (old_inner, new_inner) = (
        s.nested[1].as_ref().unwrap(),
        new.nested[1].as_ref().unwrap(),
    );
    assert_eq!(new_inner.0.to_string(), "3");
    assert!(old_inner.1.same_as(&new_inner.1));
    assert!(s.list[0].same_as(&new.list[0]) && s.list[1].same_as(&new.list[1]));
    assert!(s.boxed.same_as(&new.boxed));
    assert!(s.pair.0.same_as(&new.pair.0));
    for i in 0..3 {
        assert!(s.triple[i].same_as(&new.triple[i]));
    }
    assert!(s.short[0].same_as(&new.short[0]));
    assert_eq!(new.short[1].to_string(), "12");
    assert!(new.short.is_inline(), "two rebuilt items stay in place");
    let _: Option<&Node<Var>> = new.list[0].as_var();
}

#[test]
fn a_short_list_past_two_items_is_visited_and_rebuilt_like_a_vec() {
    let mut s = sample(0);
    s.short.push(constant(5) - constant(1));
    assert!(!s.short.is_inline());
    let mut order = Order::default();
    s.short.visit(&mut order);
    assert_eq!(order.0, [12, 13, 5, 1]);
    let new = s
        .mutate(&mut ConstantFolder::new())
        .into_option()
        .expect("5 - 1 folds");
    assert_eq!(new.short.len(), 3);
    assert!(s.short[0].same_as(&new.short[0]) && s.short[1].same_as(&new.short[1]));
    assert_eq!(new.short[2].to_string(), "4");
}
