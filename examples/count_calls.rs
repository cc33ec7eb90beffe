//! What a pass author writes: node kinds and a family with the derives, a
//! visitor that counts calls, and a mutator that folds additions.
//!
//! Run with `cargo run --example count_calls`; see the generated code with
//! `cargo xtask expand count_calls`.

use irkit::prelude::*;

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Const {
    #[ir(skip)]
    pub value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Var {
    #[ir(skip)]
    pub name: String,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Call {
    #[ir(skip)]
    pub op: String,
    pub args: Vec<Expr>,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub enum Expr {
    Const(Node<Const>),
    Var(Node<Var>),
    Call(Node<Call>),
}

/// A visitor: override one hook, recurse explicitly.
struct CountCalls(usize);
impl ExprVisitor for CountCalls {
    fn visit_call(&mut self, call: &Node<Call>) {
        self.0 += 1;
        call.walk(self);
    }
}

/// A mutator: rebuild the children first, then fold `add` of constants.
struct FoldAdd;
impl ExprMutator for FoldAdd {
    fn mutate_call(&mut self, call: &Node<Call>) -> Transformed<Expr> {
        // Children first; the new contents are allocated only if the call stays.
        let new = call.rebuild_fields(self);
        let call = new.as_ref_or(call); // the call as rebuilt
        let consts: Option<Vec<i64>> = call
            .args
            .iter()
            .map(|a| a.as_const().map(|c| c.value))
            .collect();
        match consts {
            Some(values) if call.op == "add" => Const {
                value: values.iter().sum(),
            }
            .into(),
            _ => new.map(Expr::from), // Transformed::Keep if no child changed
        }
    }
}

fn call(op: &str, args: Vec<Expr>) -> Expr {
    Call {
        op: op.into(),
        args,
    }
    .into()
}

fn show(e: &Expr) -> String {
    match e {
        Expr::Const(c) => c.value.to_string(),
        Expr::Var(v) => format!("%{}", v.name),
        Expr::Call(c) => {
            let args: Vec<String> = c.args.iter().map(show).collect();
            format!("{}({})", c.op, args.join(", "))
        }
    }
}

fn main() {
    let x: Expr = Var { name: "x".into() }.into();
    let e = call(
        "mul",
        vec![
            call(
                "add",
                vec![Const { value: 1 }.into(), Const { value: 2 }.into()],
            ),
            call("add", vec![x, Const { value: 3 }.into()]),
        ],
    );

    let mut count = CountCalls(0);
    count.visit_expr(&e);
    println!("{}: {} calls", show(&e), count.0);

    let folded = FoldAdd.mutate_expr(&e).unwrap_or_clone(&e);
    println!("folded: {}", show(&folded));

    let unchanged = FoldAdd.mutate_expr(&folded);
    println!(
        "folding again changes nothing: {}",
        matches!(unchanged, Transformed::Keep)
    );

    // Structural equality: the same program built twice, not the same nodes.
    let again = FoldAdd.mutate_expr(&e).unwrap_or_clone(&e);
    println!(
        "folded twice, equal: {}, same node: {}",
        structural_eq(&folded, &again),
        folded.same_as(&again)
    );
}
