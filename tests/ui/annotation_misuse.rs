use irkit::prelude::*;

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Ty {}

// An annotation is never walked and always compared: `skip` contradicts it.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Var {
    #[ir(annotation, skip)]
    pub ty: Ty,
}

fn main() {}
