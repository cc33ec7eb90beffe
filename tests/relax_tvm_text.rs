//! TVM's own printed programs (from its Normalize, CanonicalizeBindings,
//! DeadCodeElimination, EliminateCommonSubexpr, ConvertToDataflow and
//! LambdaLift tests, printed by TVM 0.27) read back and printed
//! again: `print(parse(text)) == text`. `tests/relax/tvm.pending` lists the
//! files the dialect cannot express yet, with the reason; each must still
//! fail, so the list stays true.

use std::collections::BTreeMap;
use std::fs;

use ir_passes::relax::{parse_module, print_module};
use pretty_assertions::assert_eq;

/// `Ok(())`, or what went wrong.
fn round_trip(text: &str) -> Result<(), String> {
    let module = parse_module(text).map_err(|e| format!("parse error {e}"))?;
    let printed = print_module(&module);
    if printed == text.trim_end() {
        return Ok(());
    }
    let (line, (got, want)) = printed
        .lines()
        .zip(text.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .unwrap_or((0, ("<length>", "<length>")));
    Err(format!("line {}: printed {got:?}, TVM {want:?}", line + 1))
}

#[test]
fn tvm_printed_programs_print_back_the_same() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relax");
    let pending: BTreeMap<String, String> = fs::read_to_string(format!("{dir}/tvm.pending"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, why) = l.split_once(' ').unwrap_or((l, ""));
            (name.to_owned(), why.trim().to_owned())
        })
        .collect();
    let mut files: Vec<_> = fs::read_dir(format!("{dir}/tvm"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    let mut wrong = Vec::new();
    let mut passed = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(path).unwrap();
        match (round_trip(&text), pending.contains_key(&name)) {
            (Ok(()), false) => passed += 1,
            (Ok(()), true) => wrong.push(format!(
                "{name}: round-trips now; remove it from tvm.pending"
            )),
            (Err(e), false) => wrong.push(format!("{name}: {e}")),
            (Err(_), true) => {}
        }
    }
    assert_eq!(wrong, Vec::<String>::new());
    assert!(
        passed >= 60,
        "only {passed} of {} files round-trip",
        files.len()
    );
    for name in pending.keys() {
        assert!(
            files.iter().any(|p| p.ends_with(name)),
            "tvm.pending names a missing file {name}"
        );
    }
}
