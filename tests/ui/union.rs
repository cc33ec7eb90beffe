use ir_core::Visitable;

#[derive(Visitable)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
