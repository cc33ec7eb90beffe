//! `ir-opt`: parse a program of one of irkit's dialects (Relay, Relax's
//! TVMScript, or the Tensor IR), run passes on it by name, print the result.
//!
//! With no FILE it runs the dialect's default pipeline on a built-in demo
//! and shows before and after. With a FILE (or `-` for stdin) only the passes
//! named by `--passes` run, none when it is absent (parse, verify, print).

/// IR passes allocate and free millions of small nodes; mimalloc does that
/// several times faster than the system allocator.
#[global_allocator]
static ALLOCATOR: ir_core::alloc::MiMalloc = ir_core::alloc::MiMalloc;

#[macro_use]
mod output;
mod relax;
mod tensor_ir;
mod text_dialect;

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use ir_core::Node;
use ir_core::pass::{Module, PassContext, PassRegistry, PassTimer, PrintIr, VerifyEach};
use ir_core::structural::{structural_eq, structural_eq_map_free_vars};
use ir_passes::relay::passes::{DEFAULT_PIPELINE, registry};
use ir_passes::relay::{
    Function, RelayModule, Span, check_module, demo::DEMO_MODEL, free_vars, module_to_dot,
    parse_expr, parse_module, print_expr, print_module, verify, well_formed,
};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Dialect {
    /// TVM's Relay text (`def @main(...) { ... }` or expression text).
    Relay,
    /// TVM's Relax, as TVMScript (`@I.ir_module class Module: ...`).
    Relax,
    /// The loop-level Tensor IR (`func f(A: [s32 * 4]): void { ... }`).
    TensorIr,
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// The text format.
    Text,
    /// Graphviz.
    Dot,
}

/// Optimize Relay, Relax and Tensor IR programs with irkit passes.
#[derive(Parser)]
#[command(name = "ir-opt", version)]
struct Args {
    /// The program (`-` for standard input); without it, the dialect's built-in demo.
    file: Option<String>,
    /// The input's dialect; by default Tensor IR when the text starts with
    /// `func` (or the file ends in `.tir`), Relax when it is TVMScript
    /// (`@I.ir_module`, `@R.function`), Relay otherwise.
    #[arg(long, value_enum)]
    dialect: Option<Dialect>,
    /// Passes to run, e.g. `fold-constant,dce{inline-once=true},cse`.
    #[arg(long)]
    passes: Option<String>,
    /// Print the IR after each pass (to stderr).
    #[arg(long)]
    print_after_all: bool,
    /// Print the time of each pass (to stderr).
    #[arg(long)]
    time_passes: bool,
    /// Check well-formedness and types after each pass.
    #[arg(long)]
    verify_each: bool,
    /// Type-check an expression input before any pass runs (Relay). A module
    /// (`def @main ...`) is always type-checked on input, as TVM's
    /// `relay.parse` does; an expression text, as TVM's `parse_expr`, is only
    /// parsed: well-formed but ill-typed, it is accepted, and type errors
    /// surface when a pass needs types (`infer-type`) or with --verify-each.
    #[arg(long)]
    check_types: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    emit: Emit,
    /// Compare the result with this program under alpha-equivalence; exit 1 with a diff if they differ.
    #[arg(long)]
    expect: Option<String>,
    /// With --expect: match free variables by position (TVM's map_free_vars=True).
    #[arg(long)]
    map_free_vars: bool,
    /// Optimization level: passes above it are skipped.
    #[arg(short = 'O', default_value_t = 3)]
    opt_level: u32,
    /// List the passes and exit.
    #[arg(long)]
    list_passes: bool,
}

/// A program as read: a module, or expression-level text wrapped as `@main`
/// over its free variables.
struct Program {
    module: RelayModule,
    expression: bool,
}

fn read(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

/// Expression text (TVM's `parse_expr`) defines no global function; it may
/// start with the version header, as TVM prints an expression.
fn is_expression_text(text: &str) -> bool {
    !text.split_whitespace().any(|w| w == "def")
}

fn parse(text: &str, origin: &str) -> Result<Program, String> {
    if is_expression_text(text) {
        let e = parse_expr(text).map_err(|e| format!("{origin}: {e}"))?;
        let params = free_vars(&e);
        let main = Node::new(Function {
            type_params: Vec::new(),
            params,
            ret_type: None,
            body: e,
            attrs: Default::default(),
            span: Span::default(),
        });
        let module = RelayModule::from_functions([("main".to_owned(), main)]);
        return Ok(Program {
            module,
            expression: true,
        });
    }
    let module = parse_module(text).map_err(|e| format!("{origin}: {e}"))?;
    Ok(Program {
        module,
        expression: false,
    })
}

fn render(program: &Program, module: &RelayModule, emit: Emit) -> String {
    match emit {
        Emit::Dot => module_to_dot(module),
        Emit::Text if program.expression => match module.get("main") {
            Some(main) => print_expr(&main.body),
            None => String::new(),
        },
        Emit::Text => print_module(module),
    }
}

/// The dialect asked for, or the one the text is written in.
fn dialect_of(args: &Args, input: Option<&(String, String)>) -> Dialect {
    if let Some(d) = args.dialect {
        return d;
    }
    match input {
        Some((text, origin)) => {
            let first = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with("//"));
            if origin.ends_with(".tir") || first.is_some_and(|l| l.starts_with("func ")) {
                Dialect::TensorIr
            } else if relax::is_tvmscript(text) {
                Dialect::Relax
            } else {
                Dialect::Relay
            }
        }
        None => Dialect::Relay,
    }
}

/// Prints the diff between the expected and the actual text; exit code 1.
fn differs(expect_path: &str, want: &str, got: &str) -> ExitCode {
    eprintln!("ir-opt: the result differs from {expect_path} (- expected, + actual):");
    let diff = similar::TextDiff::from_lines(want, got);
    eprint!(
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header(expect_path, "result")
    );
    ExitCode::from(1)
}

/// Runs the passes `--passes` names (`default_pipeline` when it is absent,
/// which the demos give) on `input`, under the instruments the flags ask
/// for: the result, and the pipeline's text if one ran. Shared by both dialects.
fn run_passes<F: Clone + Send + Sync + 'static>(
    args: &Args,
    registry: &PassRegistry<F>,
    default_pipeline: Option<&str>,
    input: &Module<F>,
    print: impl Fn(&Module<F>) -> String + Send + Sync + 'static,
    verify: impl Fn(&Module<F>) -> Result<(), String> + Send + Sync + 'static,
) -> Result<(Module<F>, Option<String>), String> {
    let Some(text) = args.passes.as_deref().or(default_pipeline) else {
        return Ok((input.clone(), None));
    };
    let pipeline = registry
        .pipeline(text)
        .map_err(|e| format!("--passes: {e}"))?;
    let timer = std::sync::Arc::new(PassTimer::new());
    let mut ctx = PassContext::default().with_opt_level(args.opt_level);
    if args.print_after_all {
        ctx = ctx.with_instrument(PrintIr::new(print, |s: &str| eprint!("{s}")));
    }
    if args.verify_each {
        ctx = ctx.with_instrument(VerifyEach::new(verify));
    }
    if args.time_passes {
        ctx = ctx.with_instrument(timer.clone());
    }
    let output = ctx.run(&pipeline, input);
    // What passes left undone on purpose, also when a later pass failed.
    for note in ctx.notes() {
        eprintln!("ir-opt: note: {note}");
    }
    let output = output.map_err(|e| e.to_string())?;
    if args.time_passes {
        eprint!("{}", timer.report());
    }
    Ok((output, Some(text.to_owned())))
}

fn run(args: Args) -> Result<ExitCode, String> {
    let input = match &args.file {
        Some(path) => Some((read(path)?, path.clone())),
        None => None,
    };
    match dialect_of(&args, input.as_ref()) {
        Dialect::TensorIr => tensor_ir::run(&args, input),
        Dialect::Relax => relax::run(&args, input),
        Dialect::Relay => run_relay(&args, input),
    }
}

fn run_relay(args: &Args, input: Option<(String, String)>) -> Result<ExitCode, String> {
    let reg = registry();
    if args.list_passes {
        for (name, description) in reg.passes() {
            outln!("{name:16} {description}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let demo = input.is_none();
    let (text, origin) =
        input.unwrap_or_else(|| (DEMO_MODEL.to_owned(), "<demo model>".to_owned()));
    let program = parse(&text, &origin)?;
    well_formed(&program.module)
        .map_err(|e| format!("{origin}: the input is not well-formed: {e}"))?;
    if !program.expression || args.check_types || args.verify_each {
        check_module(&program.module)
            .map_err(|e| format!("{origin}: the input does not type-check: {e}"))?;
    }

    let expression = program.expression;
    let (output, pipeline_text) = run_passes(
        args,
        &reg,
        demo.then_some(DEFAULT_PIPELINE),
        &program.module,
        move |m: &RelayModule| match (expression, m.get("main")) {
            (true, Some(main)) => print_expr(&main.body),
            _ => print_module(m),
        },
        verify,
    )?;

    if demo {
        outln!("// The demo model:");
        out!("{}", render(&program, &program.module, args.emit));
        outln!();
        outln!("// After {}:", pipeline_text.as_deref().unwrap_or(""));
    }
    let rendered = render(&program, &output, args.emit);
    out!("{rendered}");

    if let Some(expect_path) = &args.expect {
        let expected = parse(&read(expect_path)?, expect_path)?;
        // Expression text compares bodies, so its free variables stay free.
        let bodies = program.expression && expected.expression;
        let same = |f: &Node<Function>, g: &Node<Function>| match (bodies, args.map_free_vars) {
            (true, true) => structural_eq_map_free_vars(&f.body, &g.body),
            (true, false) => structural_eq(&f.body, &g.body),
            (false, true) => structural_eq_map_free_vars(f, g),
            (false, false) => structural_eq(f, g),
        };
        let equal = |a: &RelayModule, b: &RelayModule| {
            a.len() == b.len()
                && a.functions()
                    .all(|(name, f)| b.get(name).is_some_and(|g| same(f, g)))
        };
        if !equal(&output, &expected.module) {
            let want = render(&expected, &expected.module, Emit::Text);
            let got = render(&program, &output, Emit::Text);
            return Ok(differs(expect_path, &want, &got));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("ir-opt: {message}");
            ExitCode::from(2)
        }
    }
}
