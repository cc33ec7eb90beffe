//! Every misuse of the derives is a compile error with a readable, spanned
//! message. `cargo xtask bless` regenerates the expected `.stderr` files.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
