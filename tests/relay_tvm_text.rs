//! Every program text of TVM's `tests/python/relay/test_ir_parser.py` and
//! `test_ir_text_printer.py` (the last TVM with Relay), as text fixtures in
//! `tests/relay/tvm_text/`. `cases.txt` lists each case: its name, whether
//! TVM reads it as an expression or a module, and whether TVM accepts it.
//!
//! An accepted text must parse and be well-formed, and a module must
//! type-check (TVM's `relay.parse` runs `InferType`); printed and read again it
//! must give the same text (a fixed point) and a structurally equal program;
//! where TVM's test compares it with a program built in Python, that program
//! is `<case>.expected.relay`, and they must be equal (free variables mapped,
//! as TVM's `assert_graph_equal`). Where TVM's test compares the printed
//! text with the case character for character (`[print-exact]`), ours must
//! print it exactly too, but for the cases `PRINTED_DIFFERENTLY` lists with
//! the reason. A rejected text must give an error with its position.

use std::path::Path;

use ir_passes::relay::*;
use irkit::structural::structural_eq_map_free_vars;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relay/tvm_text");

#[derive(Debug)]
enum Parsed {
    Expr(Expr),
    Module(RelayModule),
}

impl Parsed {
    fn read(kind: &str, text: &str) -> Result<Parsed, ParseError> {
        match kind {
            "expr" => parse_expr(text).map(Parsed::Expr),
            _ => parse_module(text).map(Parsed::Module),
        }
    }

    fn print(&self) -> String {
        match self {
            Parsed::Expr(e) => print_expr(e),
            Parsed::Module(m) => print_module(m),
        }
    }

    fn well_formed(&self) -> Result<(), String> {
        match self {
            Parsed::Expr(e) => {
                let main = irkit::Node::new(Function {
                    type_params: Vec::new(),
                    params: free_vars(e),
                    ret_type: None,
                    body: e.clone(),
                    attrs: Attrs::new(),
                    span: Span::default(),
                });
                well_formed(&RelayModule::from_functions([("main".to_owned(), main)]))
            }
            Parsed::Module(m) => well_formed(m),
        }
    }

    fn equal(&self, other: &Parsed) -> bool {
        match (self, other) {
            (Parsed::Expr(a), Parsed::Expr(b)) => structural_eq_map_free_vars(a, b),
            (Parsed::Module(a), Parsed::Module(b)) => {
                a.len() == b.len()
                    && a.functions().all(|(name, f)| {
                        b.get(name)
                            .is_some_and(|g| structural_eq_map_free_vars(f, g))
                    })
            }
            _ => false,
        }
    }
}

/// A module after `infer-type`, as TVM's `assert_parse_module_as` compares.
fn typed(p: Parsed) -> Result<Parsed, String> {
    let Parsed::Module(m) = p else {
        return Ok(p);
    };
    let passes = ir_passes::relay::passes::registry()
        .pipeline("infer-type")
        .map_err(|e| e.to_string())?;
    irkit::pass::PassContext::default()
        .run(&passes, &m)
        .map(Parsed::Module)
        .map_err(|e| format!("infer-type fails: {e}"))
}

/// `[print-exact]` cases we print differently from TVM, and why. Each still
/// reads back structurally equal; the test fails if one starts to match, so
/// that the list stays true.
const PRINTED_DIFFERENTLY: &[(&str, &str)] = &[(
    "printer__call_node_order",
    "TVM binds every function literal in call position to a `%N` graph binding; \
     ours prints a node used once inline, where it is used",
)];

/// What went wrong with an accepted case, if anything. `after_infer_type`:
/// TVM's test compares with the expected program after `InferType`;
/// `print_exact`: TVM's test compares the printed text with the case's own,
/// character for character (the files end without a newline, which our
/// printer adds).
fn check_accepted(
    name: &str,
    kind: &str,
    text: &str,
    after_infer_type: bool,
    print_exact: bool,
) -> Result<(), String> {
    let parsed = Parsed::read(kind, text).map_err(|e| format!("does not parse: {e}"))?;
    parsed
        .well_formed()
        .map_err(|e| format!("is not well-formed: {e}"))?;
    // TVM's `relay.parse` runs `InferType` on the module it read.
    if let Parsed::Module(m) = &parsed {
        verify(m).map_err(|e| format!("does not type-check: {e}"))?;
    }
    let printed = parsed.print();
    if print_exact {
        let body = printed
            .strip_prefix("#[version = \"0.0.5\"]\n")
            .unwrap_or(&printed);
        let want = text
            .strip_prefix("#[version = \"0.0.5\"]\n")
            .unwrap_or(text);
        let differs = body.trim_end() != want.trim_end();
        match PRINTED_DIFFERENTLY.iter().find(|(case, _)| *case == name) {
            None if differs => {
                return Err(format!(
                    "prints differently from TVM:\n{body}\nTVM prints\n{want}"
                ));
            }
            Some(_) if !differs => {
                return Err("now prints as TVM does: take it off PRINTED_DIFFERENTLY".into());
            }
            _ => {}
        }
    }
    let reparsed = Parsed::read(kind, &printed)
        .map_err(|e| format!("its printed text does not parse: {e}\n{printed}"))?;
    let again = reparsed.print();
    if again != printed {
        return Err(format!(
            "printing is not a fixed point:\n{printed}\nthen\n{again}"
        ));
    }
    if !parsed.equal(&reparsed) {
        return Err(format!("reads back different:\n{printed}"));
    }
    let expected = Path::new(DIR).join(format!("{name}.expected.relay"));
    if let Ok(want) = std::fs::read_to_string(&expected) {
        let mut want = Parsed::read(kind, &want)
            .map_err(|e| format!("the expected program does not parse: {e}"))?;
        let mut parsed = parsed;
        if after_infer_type {
            parsed = typed(parsed)?;
            want = typed(want)?;
        }
        if !parsed.equal(&want) {
            return Err(format!(
                "differs from the expected program:\n{printed}\nexpected\n{}",
                want.print()
            ));
        }
    }
    Ok(())
}

#[test]
fn tvm_parser_and_printer_programs_behave_as_in_tvm() {
    let manifest = std::fs::read_to_string(Path::new(DIR).join("cases.txt")).unwrap();
    let (mut accepted, mut rejected, mut skipped, mut round_tripped) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut words = line.split_whitespace();
        let (Some(name), Some(kind), Some(outcome)) = (words.next(), words.next(), words.next())
        else {
            panic!("a malformed line in cases.txt: {line}");
        };
        if outcome == "skip" {
            skipped += 1;
            continue;
        }
        let text = std::fs::read_to_string(Path::new(DIR).join(format!("{name}.relay")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        match outcome {
            "accept" => match check_accepted(
                name,
                kind,
                &text,
                line.contains("after InferType"),
                line.contains("[print-exact"),
            ) {
                Ok(()) => {
                    accepted += 1;
                    round_tripped += 1;
                }
                Err(why) => failures.push(format!("{name} (TVM accepts it) {why}")),
            },
            "reject" => match Parsed::read(kind, &text) {
                Err(e) if e.line > 0 => rejected += 1,
                Err(e) => failures.push(format!("{name}: an error without a position: {e}")),
                Ok(p) => match p.well_formed() {
                    // Read, but refused as ill-formed, as TVM refuses it.
                    Err(_) => rejected += 1,
                    Ok(()) => failures.push(format!("{name}: TVM rejects it, we accept it")),
                },
            },
            other => panic!("{name}: unknown outcome {other}"),
        }
    }
    eprintln!(
        "TVM text cases: {accepted} accepted and round-tripped ({round_tripped}), {rejected} rejected, {skipped} skipped, {} failing",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
