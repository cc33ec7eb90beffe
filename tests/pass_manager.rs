//! The pass manager: function and module passes over a copy-on-write module,
//! `Sequential`, opt-level / required / disabled, instruments in order,
//! verification naming the pass that broke the IR, failures that leave the
//! input intact, a registry with MLIR-style pipeline text, parallel functions.

use std::sync::{Arc, Mutex};

use ir_passes::tensor_ir::{ConstantFolder, Stmt, StmtMutator, assign, constant, evaluate, var};
use irkit::pass::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

fn module() -> Module<Stmt> {
    Module::from_functions([
        (
            "main".to_owned(),
            assign(var("a"), constant(1) + constant(2)),
        ),
        (
            "helper".to_owned(),
            evaluate(var("x") - (constant(5) - constant(2))),
        ),
        ("done".to_owned(), evaluate(var("y"))),
    ])
}

fn print(m: &Module<Stmt>) -> String {
    m.functions()
        .map(|(name, f)| format!("@{name}: {f}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn fold() -> FunctionPass<Stmt> {
    FunctionPass::new(
        "fold-constant",
        1,
        |f: &Stmt, _: &Module<Stmt>, _: &PassContext<Stmt>| Ok(ConstantFolder::new().mutate_stmt(f)),
    )
}

/// A pass that breaks a rule the verifier checks: it renames nothing but adds `evaluate{bad}`.
fn vandal() -> ModulePass<Stmt> {
    ModulePass::new("vandal", 0, |m: &Module<Stmt>, _: &PassContext<Stmt>| {
        let mut out = m.clone();
        out.add_function("bad", evaluate(var("bad")))
            .map_err(|e| PassError::new(e.to_string()))?;
        Ok(out)
    })
}

fn no_function_named_bad(m: &Module<Stmt>) -> Result<(), String> {
    if m.contains("bad") {
        Err("function @bad must not exist".to_owned())
    } else {
        Ok(())
    }
}

#[test]
fn a_function_pass_rewrites_each_function_and_shares_the_rest() {
    let input = module();
    let out = PassContext::default().run(&fold(), &input).unwrap();
    assert_eq!(
        print(&out),
        "@done: evaluate{y}\n@helper: evaluate{(x - 3)}\n@main: a = 3"
    );
    assert!(out.get("done").unwrap().same_as(input.get("done").unwrap()));
    // Nothing left to fold: the very same module comes back.
    let again = PassContext::default().run(&fold(), &out).unwrap();
    assert!(again.same_as(&out));
}

#[test]
fn parallel_and_sequential_runs_agree() {
    let many = Module::from_functions((0..200).map(|i| {
        (
            format!("f{i:03}"),
            assign(var("a"), constant(i) + constant(1) - constant(2)),
        )
    }));
    let par = PassContext::default().run(&fold(), &many).unwrap();
    let seq = PassContext::default()
        .with_parallel(false)
        .run(&fold(), &many)
        .unwrap();
    assert_eq!(print(&par), print(&seq));
    assert_eq!(par.get("f010").unwrap().to_string(), "a = 9");
}

#[test]
fn opt_level_required_and_disabled() {
    let pipeline = Sequential::new("p", vec![Box::new(fold())]);
    let input = module();
    let skipped = PassContext::default()
        .with_opt_level(0)
        .run(&pipeline, &input)
        .unwrap();
    assert!(skipped.same_as(&input));
    let required = PassContext::default()
        .with_opt_level(0)
        .require("fold-constant")
        .run(&pipeline, &input)
        .unwrap();
    assert!(!required.same_as(&input));
    let disabled = PassContext::default()
        .disable("fold-constant")
        .run(&pipeline, &input)
        .unwrap();
    assert!(disabled.same_as(&input));
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);
impl Recorder {
    fn log(&self, s: String) {
        self.0.lock().unwrap().push(s);
    }
    fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}
impl PassInstrument<Stmt> for Recorder {
    fn enter_pass_ctx(&self) {
        self.log("enter".into());
    }
    fn exit_pass_ctx(&self) {
        self.log("exit".into());
    }
    fn should_run(&self, info: &PassInfo, _: &Module<Stmt>) -> bool {
        self.log(format!("should-run {}", info.name));
        info.name != "skipped-by-instrument"
    }
    fn run_before_pass(&self, info: &PassInfo, _: &Module<Stmt>) -> Result<(), PassError> {
        self.log(format!("before {}", info.name));
        Ok(())
    }
    fn run_after_pass(&self, info: &PassInfo, _: &Module<Stmt>) -> Result<(), PassError> {
        self.log(format!("after {}", info.name));
        Ok(())
    }
}

#[test]
fn instruments_run_in_order() {
    let recorder = Recorder::default();
    let noop = ModulePass::new(
        "skipped-by-instrument",
        0,
        |m: &Module<Stmt>, _: &PassContext<Stmt>| Ok(m.clone()),
    );
    let pipeline = Sequential::new("p", vec![Box::new(fold()), Box::new(noop)]);
    PassContext::default()
        .with_instrument(recorder.clone())
        .run(&pipeline, &module())
        .unwrap();
    assert_eq!(
        recorder.events(),
        [
            "enter",
            "should-run fold-constant",
            "before fold-constant",
            "after fold-constant",
            "should-run skipped-by-instrument",
            "exit",
        ]
    );
}

#[test]
fn verification_names_the_pass_that_broke_the_ir() {
    let pipeline = Sequential::new("p", vec![Box::new(fold()), Box::new(vandal())]);
    let input = module();
    let err = PassContext::default()
        .with_instrument(VerifyEach::new(no_function_named_bad))
        .run(&pipeline, &input)
        .unwrap_err();
    assert_eq!(err.kind, FailureKind::Verification);
    assert_eq!(
        err.to_string(),
        "pass `vandal` produced IR that does not verify: function @bad must not exist"
    );
    assert_eq!(input.len(), 3);
}

#[test]
fn a_panicking_pass_is_reported_and_leaves_the_input_intact() {
    let boom = FunctionPass::new(
        "boom",
        0,
        |f: &Stmt, _: &Module<Stmt>, _: &PassContext<Stmt>| {
            if f.is_assign() {
                panic!("cannot handle assignments");
            }
            Ok(Transformed::Keep)
        },
    );
    let pipeline = Sequential::new("p", vec![Box::new(fold()), Box::new(boom)]);
    let input = module();
    let before = print(&input);
    let err = PassContext::default().run(&pipeline, &input).unwrap_err();
    assert_eq!(err.kind, FailureKind::Panicked);
    assert_eq!(err.pass, "boom");
    assert!(err.message.contains("cannot handle assignments"));
    assert_eq!(print(&input), before);
}

#[test]
fn timing_and_printing_instruments() {
    let timer = Arc::new(PassTimer::new());
    let printed = Recorder::default();
    let sink = printed.clone();
    PassContext::default()
        .with_instrument(timer.clone())
        .with_instrument(PrintIr::new(print, move |s: &str| sink.log(s.to_owned())).before(true))
        .run(&fold(), &module())
        .unwrap();
    assert_eq!(timer.times().len(), 1);
    assert_eq!(timer.times()[0].0, "fold-constant");
    assert!(timer.report().contains("fold-constant"));
    assert_eq!(
        printed.events(),
        [
            "// IR before fold-constant\n@done: evaluate{y}\n@helper: evaluate{(x - (5 - 2))}\n@main: a = (1 + 2)",
            "// IR after fold-constant\n@done: evaluate{y}\n@helper: evaluate{(x - 3)}\n@main: a = 3",
        ]
    );
}

fn registry() -> PassRegistry<Stmt> {
    let mut r = PassRegistry::new();
    r.register("fold-constant", "fold s32 + and -", |o: &PassOptions| {
        o.expect_only(&[])?;
        Ok(Box::new(fold()))
    });
    r.register("vandal", "adds @bad", |o: &PassOptions| {
        let times = o.get_u64("times", 1)?;
        o.expect_only(&["times"])?;
        let passes: Vec<Box<dyn Pass<Stmt>>> =
            (0..times).map(|_| Box::new(vandal()) as _).collect();
        Ok(Box::new(Sequential::new("vandal-n", passes)))
    });
    r
}

#[test]
fn a_pipeline_is_a_list_of_names() {
    let pipeline = registry()
        .pipeline("fold-constant, vandal{times=1}")
        .unwrap();
    assert_eq!(pipeline.passes().len(), 2);
    let out = PassContext::default().run(&pipeline, &module()).unwrap();
    assert!(out.contains("bad"));
    let twice = registry().pipeline("vandal{times=2}").unwrap();
    let err = PassContext::default().run(&twice, &module()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pass `vandal` failed: function @bad is already defined"
    );
}

#[test]
fn pipeline_errors_say_where_and_what() {
    let err = |text: &str| {
        registry()
            .pipeline(text)
            .err()
            .map(|e| e.to_string())
            .unwrap()
    };
    assert_eq!(
        err("fold-constant,dse"),
        "pipeline column 15: unknown pass `dse`; known passes: fold-constant, vandal"
    );
    assert_eq!(
        err("vandal{times=x}"),
        "pipeline column 1: pass `vandal`: option `times` expects an unsigned integer, found `x`"
    );
    assert_eq!(
        err("fold-constant{level=3}"),
        "pipeline column 1: pass `fold-constant`: unknown option `level`: this pass takes none"
    );
    assert_eq!(
        err("fold-constant;vandal"),
        "pipeline column 14: expected `,` between passes, found `;`"
    );
    assert_eq!(
        err(""),
        "pipeline column 1: expected a pass name, found end of input"
    );
}
