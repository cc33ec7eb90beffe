//! The built-in demo model of `ir-opt`: a small network with a constant
//! subgraph, a dead binding, a branch decided by constants, and repeated
//! subexpressions.

/// The demo model, in the text format.
pub const DEMO_MODEL: &str = r#"#[version = "0.0.5"]
// A two-layer block: dense, scale, bias, relu, with the usual leftovers.
def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(3, 4), float32]) {
  let %scale = multiply(2f, 3f);                            // constant subgraph
  let %bias = add(meta[relay.Constant][0], meta[relay.Constant][0]);
  let %h = nn.dense(%x, %w);
  let %debug = nn.relu(multiply(%h, 100f));                 // dead: never used
  let %a = nn.relu(add(multiply(%h, %scale), %bias));
  let %b = nn.relu(add(multiply(%h, %scale), %bias));       // repeats %a
  let %y = if (greater(%scale, 10f)) { %a } else { add(%a, %b) };  // decided by constants
  reshape(%y, newshape=[3])
}
#[metadata]
{"relay.Constant": [{"dtype": "float32", "shape": [3], "data": [0.5, -1, 2]}]}
"#;
