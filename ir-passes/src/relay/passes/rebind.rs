//! A definition rebuilt because what its variable carries (`Var::ext`)
//! names a variable the pass replaced: the passes that substitute variables
//! send every later use to the rebuilt one.

use ir_core::{IdMap, Node, Transformed};

use crate::relay::expr::{Expr, ExprMutator, Var};

/// `v`'s default rebuild as a definition, recorded in the pass's map of
/// what replaces a variable at its uses (the map `mutate_var` reads).
pub(super) fn rebuild_definition<P: ExprMutator + ?Sized>(
    pass: &mut P,
    v: &Node<Var>,
    uses: impl FnOnce(&mut P) -> &mut IdMap<Node<Var>, Expr>,
) -> Transformed<Node<Var>> {
    let rebuilt = v.rebuild(pass);
    if let Transformed::Replace(new) = &rebuilt {
        uses(pass).insert(v.id(), new.clone().into());
    }
    rebuilt
}
